"""Runs inside a vLLM release's oracle environment: KV-cache capacity from the release's own accounting.

Usage: ``python capacity_runner.py IN.json OUT.json`` with IN = ``{"cases": [{"heads", "head_size",
"mla", "kv_cache_dtype", "model_dtype", "block_size", "layers", "pp", "dcp", "pcp", "tp",
"available", "max_model_len"}, …]}``; a case may add ``"layer_windows"`` (one entry per layer:
``null`` a full-attention layer, an integer a sliding-window layer of that window, built as the
release's ``SlidingWindowSpec``) with ``"max_num_batched_tokens"`` and ``"async_scheduling"`` (what
the sliding-window spec's memory bound reads: the scheduler's ``max_num_batched_tokens``, and from
0.26.0 the release's own ``VllmConfig.max_in_flight_tokens`` / ``max_concurrent_batches`` properties,
bound to the stand-in, with ``"v2_model_runner"`` as its ``use_v2_model_runner``), and
``"disable_hybrid_kv_cache_manager"`` (the scheduler config's flag, what ``--disable-hybrid-kv-cache-manager``
sets; default false).

For each case the release's own ``FullAttentionSpec`` / ``MLAAttentionSpec`` is built (as
``kvspec_runner.py`` does) once per layer name ``model.layers.{i}.self_attn.attn``; the layers are
split over the pipeline stages by the release's ``vllm.distributed.utils.get_pp_indices``; one
worker per stage gets ``available`` bytes.  Then the release's own functions of
``vllm/v1/core/kv_cache_utils.py`` (``kv_cache_planning.py`` in 0.33.0) run in the order
``EngineCore._initialize_kv_caches`` calls them:

* 0.10.2: ``get_kv_cache_config`` per worker, ``unify_kv_cache_configs``;
* 0.11.0–0.32.0: ``get_kv_cache_configs``, ``generate_scheduler_kv_cache_config``, and from 0.28.0
  ``update_kv_cache_capacity``;
* 0.33.0: ``get_global_kv_cache_groups``, ``get_kv_cache_configs`` (with the default
  ``DefaultKVCacheConfigBuilder``, the one CUDA uses), ``generate_scheduler_kv_cache_config``,
  ``update_kv_cache_capacity``;

plus ``get_max_concurrency_for_kv_cache_config`` on the scheduler config and, where the release has
it, ``resolve_kv_cache_block_sizes``.  The module's ``logger`` is replaced by a recorder, so every
``info`` / ``info_once`` line is captured as formatted text (``info_once`` deduplicated per case).

The spec classes and the accounting functions are the release's own; the ``VllmConfig`` is a
**stand-in** exposing exactly the attributes those functions read (model_config.max_model_len /
original_max_model_len, parallel_config's dcp/pcp/tp sizes, cache_config.block_size /
num_gpu_blocks_override / prefix caching / kv_cache_layout, scheduler_config.
disable_hybrid_kv_cache_manager, speculative_config / kv_transfer_config = None,
device_config.device_type = "cuda", attention_config.hisparse_config = None): building a real one
needs a model config and a GPU platform.  A missing attribute fails the case loudly.

OUT: ``{"results": [{"num_blocks", "max_concurrency", "lines", "scheduler_block_size" (or None),
"error": [type, message] or None} …]}``.  Standard library + the release only.
"""

from __future__ import annotations

import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kvspec_runner import _kv_dtype, _spec  # noqa: E402

#: VllmConfig properties the sliding-window spec reads (0.26.0 on), taken from the release's own class
_VLLM_CONFIG_PROPERTIES = ("max_in_flight_tokens", "max_concurrent_batches")


class _Strict:
    """Attribute bag that fails loudly on an attribute it was not given."""

    def __init__(self, name: str, **attrs):
        object.__setattr__(self, "_name", name)
        self.__dict__.update(attrs)

    def __getattr__(self, item):
        raise AttributeError(f"stand-in {self._name} has no attribute {item!r} (the runner must supply it)")


class _Recorder:
    def __init__(self):
        self.lines: list[tuple[str, str]] = []
        self._once: set = set()

    def _fmt(self, msg, args):
        return (msg % args) if args else str(msg)

    def _log(self, level, msg, *args, **kwargs):
        self.lines.append((level, self._fmt(msg, args)))

    def _log_once(self, level, msg, *args, **kwargs):
        text = self._fmt(msg, args)
        if (level, text) in self._once:
            return
        self._once.add((level, text))
        self.lines.append((level, text))

    _LEVELS = {"info": "info", "warning": "warning", "warn": "warning", "debug": "debug", "error": "error"}

    def __getattr__(self, name):
        """``logger.info(...)``, ``logger.warning_once(...)`` …: recorded at that level (``*_once`` once)."""
        once = name.endswith("_once")
        level = self._LEVELS.get(name[:-5] if once else name)
        if level is None:
            raise AttributeError(name)
        record = self._log_once if once else self._log
        return lambda msg, *args, **kwargs: record(level, msg, *args)


def _config(case: dict, modules):
    cache = _Strict("cache_config", block_size=case["block_size"], num_gpu_blocks_override=None,
                    enable_prefix_caching=False, prefix_match_unit=None, hash_block_size=None,
                    kv_cache_layout="LBNHC", prefix_cache_retention_interval=None,
                    kv_cache_size_tokens=None, kv_cache_max_concurrency=None, mamba_block_size=None,
                    num_gpu_blocks=None)
    try:  # 0.33.0: the real method on the stand-in
        from vllm.config.cache import CacheConfig
        if hasattr(CacheConfig, "get_resolved_kv_cache_layout"):
            cache.get_resolved_kv_cache_layout = types.MethodType(CacheConfig.get_resolved_kv_cache_layout, cache)
    except ImportError:
        pass
    model = _Strict("model_config", max_model_len=case["max_model_len"], original_max_model_len=case["max_model_len"],
                    supports_kv_cache_grouping=False)
    parallel = _Strict("parallel_config", decode_context_parallel_size=case["dcp"],
                       prefill_context_parallel_size=case["pcp"], tensor_parallel_size=case["tp"],
                       pipeline_parallel_size=case["pp"])
    scheduler = _Strict("scheduler_config",
                        disable_hybrid_kv_cache_manager=bool(case.get("disable_hybrid_kv_cache_manager", False)))
    stand_in = _Strict
    extra = {}
    if case.get("layer_windows") is not None:
        scheduler.max_num_batched_tokens = case["max_num_batched_tokens"]
        scheduler.async_scheduling = case["async_scheduling"]
        from vllm.config import VllmConfig
        props = {name: getattr(VllmConfig, name) for name in _VLLM_CONFIG_PROPERTIES if hasattr(VllmConfig, name)}
        stand_in = type("VllmConfigStandIn", (_Strict,), props)
        # max_concurrent_batches reads it with async scheduling: pp + 1 batches on the V2 runner (2 at -pp 1)
        extra["use_v2_model_runner"] = bool(case.get("v2_model_runner", False))
    return stand_in("vllm_config", model_config=model, parallel_config=parallel, cache_config=cache,
                   scheduler_config=scheduler, **extra,
                   speculative_config=None, kv_transfer_config=None,
                   device_config=_Strict("device_config", device_type="cuda"),
                   attention_config=_Strict("attention_config", hisparse_config=None),
                   num_prefill_lookahead_tokens=0)


def _specs(case: dict, dtype) -> list[dict]:
    from vllm.distributed.utils import get_pp_indices

    spec = _spec(case, dtype)
    windows = case.get("layer_windows")
    if windows is not None:
        assert len(windows) == case["layers"], "one window entry per layer"
        from vllm.v1.kv_cache_interface import SlidingWindowSpec
        layer_specs = [spec if w is None else _sliding(SlidingWindowSpec, spec, w) for w in windows]
    else:
        layer_specs = [spec] * case["layers"]
    workers = []
    for rank in range(case["pp"]):
        start, end = get_pp_indices(case["layers"], rank, case["pp"])
        workers.append({f"model.layers.{i}.self_attn.attn": layer_specs[i] for i in range(start, end)})
    return workers


def _sliding(cls, full, window: int):
    """The release's SlidingWindowSpec with the full-attention spec's shape (block size, heads, head size,
    dtype, and ``use_mla`` where the release's spec has that field)."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {f.name: getattr(full, f.name) for f in dataclasses.fields(full)
              if f.name in names and f.name in ("block_size", "num_kv_heads", "head_size", "dtype", "use_mla")}
    return cls(sliding_window=window, **kwargs)


def run_case(case: dict, dtype, ku, planning) -> dict:
    rec = _Recorder()
    saved = [(m, m.logger) for m in (ku, planning) if m is not None]
    for m, _ in saved:
        m.logger = rec
    try:
        cfg = _config(case, (ku, planning))
        specs = _specs(case, dtype)
        avail = [case["available"]] * len(specs)
        try:
            if planning is not None:  # 0.33.0
                from vllm.v1.core import kv_cache_config_builder as builder_mod
                saved_builder = builder_mod.get_kv_cache_config_builder
                builder_mod.get_kv_cache_config_builder = lambda _cfg: planning.DefaultKVCacheConfigBuilder()
                try:
                    groups = planning.get_global_kv_cache_groups(cfg, specs)
                    configs = planning.get_kv_cache_configs(cfg, specs, avail, groups)
                finally:
                    builder_mod.get_kv_cache_config_builder = saved_builder
            elif hasattr(ku, "get_kv_cache_configs"):
                configs = ku.get_kv_cache_configs(cfg, specs, avail)
            else:  # 0.10.2
                configs = [ku.get_kv_cache_config(cfg, s, a) for s, a in zip(specs, avail)]
                try:
                    ku.unify_kv_cache_configs(configs)
                except AssertionError as exc:  # its bare assert on the workers' group specs (pipeline stages)
                    return {"error": [type(exc).__name__, str(exc)], "lines": [t for _, t in rec.lines]}
        except ValueError as exc:
            return {"error": [type(exc).__name__, str(exc)], "lines": [t for _, t in rec.lines]}
        sched = ku.generate_scheduler_kv_cache_config(configs) if hasattr(ku, "generate_scheduler_kv_cache_config") \
            else configs[0]
        if hasattr(ku, "update_kv_cache_capacity"):
            ku.update_kv_cache_capacity(cfg, sched)
        concurrency = ku.get_max_concurrency_for_kv_cache_config(cfg, sched)
        sbs = None
        if hasattr(ku, "resolve_kv_cache_block_sizes"):
            sbs = ku.resolve_kv_cache_block_sizes(sched, cfg)[0]
        return {"error": None, "num_blocks": sched.num_blocks, "max_concurrency": concurrency,
                "scheduler_block_size": sbs, "lines": [t for _, t in rec.lines],
                "levels": [lvl for lvl, _ in rec.lines]}
    finally:
        for m, lg in saved:
            m.logger = lg


def _stub_xgrammar_if_broken() -> None:
    """``kv_cache_utils`` imports ``vllm.v1.request``, which imports the structured-output backends; in
    some oracle bases xgrammar cannot load (its tvm_ffi is the overlay's, of another version).  The
    accounting never touches structured output, so a broken xgrammar is replaced by an inert stub."""
    try:
        import xgrammar  # noqa: F401
    except Exception:
        for name in [m for m in sys.modules if m == "xgrammar" or m.startswith("xgrammar.")]:
            del sys.modules[name]

        class _Stub(types.ModuleType):
            __path__: list = []

            def __getattr__(self, item):
                if item.startswith("__"):
                    raise AttributeError(item)
                value = type(item, (), {"__init__": lambda self, *a, **k: None})
                setattr(self, item, value)
                return value

        sys.modules["xgrammar"] = _Stub("xgrammar")


def main(inp: str, out: str) -> None:
    import torch  # noqa: F401 - loaded first, as in vLLM (the xgrammar probe below imports it too)
    _stub_xgrammar_if_broken()
    from vllm.v1.core import kv_cache_utils as ku
    try:
        from vllm.v1.core import kv_cache_planning as planning
    except ImportError:
        planning = None

    with open(inp) as fh:
        cases = json.load(fh)["cases"]
    results = []
    for case in cases:
        try:
            results.append(run_case(case, _kv_dtype(case), ku, planning))
        except Exception as exc:  # reported; the test counts it as a disagreement
            import traceback
            results.append({"crash": f"{type(exc).__name__}: {exc}", "tb": traceback.format_exc()[-1500:]})
    with open(out, "w") as fh:
        json.dump({"results": results}, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
