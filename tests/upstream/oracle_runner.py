"""Runs a real vLLM release's own config code on cases; executed INSIDE an oracle venv.

usage: python oracle_runner.py CASES.json OUT.json

CASES: {"env": {...}, "cases": [{"id", "config": {...config.json...},
        "layouts": [{ParallelConfig field: value, ...}, ...]}]}

Per case one ``ModelConfig(model=<dir with config.json>)`` (offline), then per
layout ``ParallelConfig(**layout)`` and ``model_config.verify_with_parallel_config``
— the path a Python caller of vLLM's config classes takes (kvguard's
``entry="config"``).  Every outcome is recorded as the exception the failing
statement raised: for pydantic's ValidationError the inner error (``ctx.error``)
or, for field-constraint failures, the error entries.

This file must not import kvguard: it runs with the oracle venv's Python.
"""

import json
import logging
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def describe(exc):
    """(exc_type, message, extra) of the statement that raised, unwrapping pydantic: a ValidationError whose one
    entry is a validator's ValueError / AssertionError as that exception (``loc``: the field of a field validator's,
    empty for a model validator's); with several entries, or one of a field's constraint, as the ValidationError
    with every entry.  ``text``: the whole ``str()`` of what was raised."""
    rec = {"exc_type": type(exc).__name__, "message": str(exc), "text": str(exc)}
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):
        entries = exc.errors()
        rec["title"] = getattr(exc, "title", None)
        first = entries[0]
        inner = (first.get("ctx") or {}).get("error")
        if len(entries) == 1 and first.get("type") in ("value_error", "assertion_error") \
                and isinstance(inner, BaseException):
            rec.update(exc_type=type(inner).__name__, message=str(inner), wrapped_by=rec["title"],
                       loc=[str(p) for p in first.get("loc", ())])
        else:
            rec.update(exc_type="ValidationError", message=first.get("msg"), wrapped_by=rec["title"],
                       errors=[{"type": e.get("type"), "loc": [str(p) for p in e.get("loc", ())],
                                "msg": e.get("msg")} for e in entries])
    return rec


def fact(fn):
    try:
        value = fn()
        if isinstance(value, bool) or value is None or isinstance(value, (int, float, str)):
            return value
        return repr(value)
    except Exception as exc:  # noqa: BLE001
        return {"error": type(exc).__name__, "message": str(exc)}


def torch_compat():
    """The oracle's torch is its base env's, newer than 0.17.x pins: their CPU platform's kernel import
    calls ``torch._C._cpu._is_avx512_supported()``, which newer torch no longer has (``torch.cpu.
    _is_avx512_supported`` answers it; later releases call that).  Without the alias, importing any
    model module (registry inspection in process, model loading) fails on the oracle host with an
    AttributeError and every case reads "failed to be inspected" — the host's answer, not vLLM's."""
    try:
        import torch
    except ImportError:
        return
    cpu = getattr(torch._C, "_cpu", None)
    if cpu is not None and not hasattr(cpu, "_is_avx512_supported") \
            and hasattr(getattr(torch, "cpu", None), "_is_avx512_supported"):
        cpu._is_avx512_supported = torch.cpu._is_avx512_supported
    cpu_amx_answer()


def cpu_amx_answer():
    """The oracle host stands in for a CPU without AMX tiles (kvguard's assumed host fact ``amx=0``), or with them
    when KVG_ORACLE_CPU_AMX=1, whatever the machine has.  The CPU platform of 0.22.0+ asks
    ``torch.cpu._is_amx_tile_supported()`` while it updates the config (with linear-attention layers it turns prefix
    caching and chunked prefill off up to 0.24.x; 0.26.0 - 0.28.x reset the Mamba SSM cache dtype; from 0.29.0 an MLA
    model takes the AMX MLA backend): an answer of the machine (kvguard.rules.cpu_amx).  Without this, a tier's
    verdicts would change with the machine CI runs on."""
    import torch

    amx = os.environ.get("KVG_ORACLE_CPU_AMX") == "1"

    def amx_tiles() -> bool:
        return amx

    for owner in (getattr(torch, "cpu", None), getattr(torch._C, "_cpu", None)):
        if owner is not None and hasattr(owner, "_is_amx_tile_supported"):
            owner._is_amx_tile_supported = amx_tiles


def inspect_in_process():
    """KVG_ORACLE_INSPECT=inprocess: run the model registry's class inspection here.

    vLLM inspects a model class in a fresh ``python -m ...registry`` subprocess
    (``registry._run_in_subprocess``), which costs a torch import (~4 s) per
    architecture.  This runs the same callable in the oracle's own process and
    keeps the failure contract of the original (any exception becomes a
    RuntimeError, which the registry's callers catch and turn into "failed to be
    inspected").  The answer is the same; tests/upstream/test_differential.py
    compares both modes on a sample.
    """
    from vllm.model_executor.models import registry

    if not hasattr(registry, "_run_in_subprocess"):
        return

    def run_here(fn):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"Error raised in subprocess:\n{exc!r}") from exc

    registry._run_in_subprocess = run_here


def shortcuts_from_env():
    """The oracle shortcuts the environment asks for (after vLLM's config imports): KVG_ORACLE_TORCHVISION=stub,
    KVG_ORACLE_INSPECT=inprocess."""
    if os.environ.get("KVG_ORACLE_TORCHVISION") == "stub":
        stub_torchvision()
    if os.environ.get("KVG_ORACLE_INSPECT") == "inprocess":
        inspect_in_process()


def stub_torchvision():
    """KVG_ORACLE_TORCHVISION=stub: an importable stand-in when torchvision is missing.

    PyPI's torchvision cannot load beside the CPU build of torch the oracles use, and
    transformers 5.x image processors import it at module level, so vLLM's registry
    fails to inspect multimodal classes (Gemma3, Llama 4, Qwen2.5-VL ...) on the oracle
    host: "failed to be inspected", an artefact of the host, not vLLM's answer.  The
    stand-in only has to survive module-level imports and definitions (any attribute,
    call, subscript or base class is another stand-in); inspection reads class-level
    flags (supports_pp, is_attention_free, ...) that do not touch it.  Nothing runs a
    transform.  Without this, such configs are counted as oracle host failures.
    """
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import types

    if importlib.util.find_spec("torchvision") is not None:
        return

    class _Meta(type):
        def __getattr__(cls, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _Stub

        def __getitem__(cls, item):
            return _Stub

        def __or__(cls, other):
            return _Stub

        __ror__ = __or__

    class _Stub(metaclass=_Meta):
        def __init__(self, *args, **kwargs):
            pass

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _Stub

        def __call__(self, *args, **kwargs):
            return _Stub()

    class _Module(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _Stub

    class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path=None, target=None):
            if fullname == "torchvision" or fullname.startswith("torchvision."):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            module = _Module(spec.name)
            module.__path__ = []
            module.__version__ = "0.0.0+kvguard-oracle-stub"
            return module

        def exec_module(self, module):
            pass

    sys.meta_path.append(_Finder())


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    for key, value in (spec.get("env") or {}).items():
        os.environ[key] = str(value)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch_compat()
    from vllm.config import ModelConfig, ParallelConfig

    shortcuts_from_env()
    results = []
    for case in spec["cases"]:
        work = tempfile.mkdtemp(prefix="kvg-oracle-")
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        rec = {"id": case["id"], "model_path": work}
        try:
            mc = ModelConfig(model=work, tokenizer=work, skip_tokenizer_init=True)
        except BaseException as exc:  # noqa: BLE001
            rec.update(stage="model", **describe(exc))
            results.append(rec)
            continue
        facts = {
            "use_mla": fact(lambda: bool(mc.use_mla)),
            "total_num_kv_heads": fact(lambda: mc.get_total_num_kv_heads()),
            # the total vLLM divides by tp in get_num_attention_heads: model_arch_config's from
            # 0.14.0, before it the text config's attribute (read as vLLM reads it)
            "total_num_attention_heads": fact(lambda: mc.model_arch_config.total_num_attention_heads
                                              if hasattr(mc, "model_arch_config")
                                              else getattr(mc.hf_text_config, "num_attention_heads", 0)),
            "head_size": fact(lambda: mc.get_head_size()),
            # get_total_num_hidden_layers arrived after 0.10.2; before it, the layer count of a
            # single pipeline stage (pp=1) is the total
            "num_hidden_layers": fact(lambda: mc.get_total_num_hidden_layers()
                                      if hasattr(mc, "get_total_num_hidden_layers")
                                      else mc.get_num_layers(ParallelConfig())),
            "is_moe": fact(lambda: bool(mc.is_moe)),
        }
        rec.update(stage="facts", facts=facts, layouts=[])
        for lay in case["layouts"]:
            out = {}
            try:
                pc = ParallelConfig(**lay)
            except BaseException as exc:  # noqa: BLE001
                out.update(stage="parallel", **describe(exc))
                rec["layouts"].append(out)
                continue
            out["num_kv_heads"] = fact(lambda: mc.get_num_kv_heads(pc))
            try:
                mc.verify_with_parallel_config(pc)
            except BaseException as exc:  # noqa: BLE001
                out.update(stage="verify", **describe(exc))
                rec["layouts"].append(out)
                continue
            out["stage"] = "ok"
            rec["layouts"].append(out)
        results.append(rec)
    with open(out_path, "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
