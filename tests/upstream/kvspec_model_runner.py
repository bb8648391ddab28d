"""Runs inside a vLLM release's oracle environment: the KV-cache spec of every attention layer a model builds.

Usage: ``python kvspec_model_runner.py IN.json OUT.json`` with IN = ``{"cases": [{"config": {...config.json...},
"engine_args": {...}, "kv_cache_dtype": str, "tp": int, "block_size": int}, ...]}``.  ``kv_cache_dtype`` is set on the
built ``cache_config`` rather than passed to ``EngineArgs``: the CPU platform's config check refuses an FP8 cache with
chunked prefill (0.11.1), which a CUDA host does not.

The model is built as ``quant_runner.py`` builds it (the release's ``EngineArgs(...).create_engine_config()``, the
tensor-parallel group reporting the case's ``tp``, the model class the registry picks constructed on the meta device
with the same stand-ins), except that the ``Attention`` class the model module uses is a recorder: it keeps what the
model hands it (``num_heads``, ``head_size``, ``num_kv_heads``, ``per_layer_sliding_window``, ``attn_type``, the
cache config's ``sliding_window``).  For each recorded layer the release's own ``FullAttentionSpec`` (a
``SlidingWindowSpec`` when a window is set) is built with those values, the block size and the cache dtype
(``cache_config.cache_dtype`` through the release's ``STR_DTYPE_TO_TORCH_DTYPE``, ``auto`` = the model dtype),
as the release's ``Attention.get_kv_cache_spec`` / the GPU model runner's ``get_kv_cache_spec`` does for a decoder
layer, and its ``page_size_bytes`` read.  OUT: ``{"results": [{"layers": [{prefix, num_kv_heads, head_size,
sliding_window, attn_type, spec_class, page_size_bytes}` or `{prefix, shared_with}` for a layer that reads another
layer's cache (``kv_sharing_target_layer_name``: no spec of its own)], "num_hidden_layers", "cache_dtype"} or
{"error"}]}``.

Layers a model builds from other classes (MiniMax-Text-01's linear attention, Mamba mixers) are not
``Attention`` and are not recorded: a count below ``num_hidden_layers`` says the model is not all full attention.
"""

from __future__ import annotations

import json
import os
import sys
import traceback


def _recorder(records):
    import torch.nn as nn

    class AttentionRecorder(nn.Module):
        def __init__(self, num_heads, head_size, scale=None, num_kv_heads=None, *args, **kw):
            super().__init__()
            cache_config = kw.get("cache_config")
            records.append({"prefix": kw.get("prefix"), "num_heads": num_heads, "head_size": head_size,
                            "num_kv_heads": num_heads if num_kv_heads is None else num_kv_heads,
                            "per_layer_sliding_window": kw.get("per_layer_sliding_window"),
                            "cache_sliding_window": getattr(cache_config, "sliding_window", None),
                            "kv_sharing_target": kw.get("kv_sharing_target_layer_name"),
                            "attn_type": str(kw.get("attn_type", "decoder"))})

    return AttentionRecorder


def _spec(rec: dict, block_size: int, dtype):
    import dataclasses

    from vllm.v1 import kv_cache_interface as kvi

    window = rec["per_layer_sliding_window"]
    if window is None:
        window = rec["cache_sliding_window"]
    cls = kvi.FullAttentionSpec if window is None else kvi.SlidingWindowSpec
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = dict(block_size=block_size, num_kv_heads=rec["num_kv_heads"], head_size=rec["head_size"], dtype=dtype)
    if "use_mla" in names:
        kwargs["use_mla"] = False
    if window is not None:
        kwargs["sliding_window"] = window
    return cls(**kwargs)


def main(inp: str, out: str) -> None:
    with open(inp) as fh:
        cases = json.load(fh)["cases"]
    import quant_runner as qr  # this directory is the script's: first on sys.path
    from oracle_runner import shortcuts_from_env, torch_compat

    torch_compat()
    qr._setup()
    shortcuts_from_env()
    import torch

    try:
        torch.fx.experimental._config.meta_nonzero_assume_all_nonzero = True
    except Exception:  # noqa: BLE001
        pass
    try:
        from vllm.config import set_current_vllm_config
    except ImportError:
        from vllm.config.vllm import set_current_vllm_config
    from kvspec_runner import _str_dtype_map
    from vllm.model_executor.model_loader.utils import get_model_architecture

    qr._patch()
    records: list = []
    results = []
    environ = dict(os.environ)
    for case in cases:
        os.environ.clear()
        os.environ.update(environ)
        del records[:]
        try:
            qr._quant_modules_see_cuda_90()
            vc = qr._vllm_config(case["config"], case.get("engine_args") or {})
            vc.cache_config.cache_dtype = case["kv_cache_dtype"]
            cls = get_model_architecture(vc.model_config)[0]
            qr._load_text_model_class(vc.model_config)
            qr._patch()
            qr._stubs()
            qr._quant_modules_see_cuda_90()
            recorder = _recorder(records)
            for mname, mod in list(sys.modules.items()):
                if mod is not None and mname.startswith("vllm.model_executor.models.") \
                        and isinstance(getattr(mod, "Attention", None), type):
                    mod.Attention = recorder
            qr.SIZES.update(tp=case["tp"], dp=1, pcp=1)
            qr._set(vc.parallel_config, "tensor_parallel_size", case["tp"])
            vc.compilation_config.static_forward_context.clear()
            with set_current_vllm_config(vc), torch.device("meta"):
                cls(vllm_config=vc, prefix="")
            cache_dtype = vc.cache_config.cache_dtype
            dtype = vc.model_config.dtype if cache_dtype == "auto" else _str_dtype_map()[cache_dtype]
            layers = []
            for rec in records:
                if rec["kv_sharing_target"]:
                    # the GPU model runner's get_kv_cache_spec gives a layer that reads another's cache no spec
                    layers.append({"prefix": rec["prefix"], "shared_with": rec["kv_sharing_target"]})
                    continue
                spec = _spec(rec, case["block_size"], dtype)
                layers.append({"prefix": rec["prefix"], "num_kv_heads": rec["num_kv_heads"],
                               "head_size": rec["head_size"], "attn_type": rec["attn_type"],
                               "sliding_window": getattr(spec, "sliding_window", None),
                               "spec_class": type(spec).__name__, "page_size_bytes": spec.page_size_bytes})
            results.append({"layers": layers, "cache_dtype": str(cache_dtype), "dtype": str(dtype),
                            "num_hidden_layers": vc.model_config.hf_text_config.num_hidden_layers})
        except Exception as exc:  # noqa: BLE001 - reported, compared as a failure by the test
            results.append({"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-2000:]})
    with open(out, "w") as fh:
        json.dump({"results": results}, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
