"""ModelConfig's quantization checks as a real release runs them; runs INSIDE an oracle venv.

usage: python quant_verify_runner.py CASES.json OUT.json

CASES: {"cases": [{"id", "config": {...config.json...}, "quantization": str | null, "dtype": str | null,
        "allow_deprecated_quantization": bool, "vllm_config": bool, "files": {name: json} beside config.json,
        "safetensors": {name: {"tensors": {tensor: dtype name}, "metadata": {...} | absent}} written beside it as
        safetensors files (write_safetensors),
        "cache_dtype": bool (also record what ``--kv-cache-dtype auto`` resolves to)}]}

Per case one ``ModelConfig(model=<dir with config.json>, quantization=…, dtype=…)`` (offline, tokenizer
init skipped): ``_verify_quantization`` (the checkpoint's ``quant_method``, the override loop, the
mismatch, unknown-method and deprecated-method refusals) runs at the end of its ``__post_init__``.
With ``vllm_config`` the whole ``EngineArgs(...).create_engine_config()`` runs instead (the CPU platform
apart from the quantization modules): VllmConfig's ``_get_quantization_config`` (the method's minimum
capability, which the CPU platform does not have unless the case gives ``cuda_capability``, and the
activation-dtype refusal) follows.  The outcome
is the exception (oracle_runner.describe: pydantic's ValidationError unwrapped), else ``ok`` with the
``quantization`` and ``dtype`` ModelConfig ends with.

The host is the default one, CUDA with compute capability 9.0: the quantization modules see the stand-in
of quant_runner (their overrides ask ``current_platform``: the CPU AWQ / GPTQ methods must not claim the
checkpoint, Marlin's conversion reads the capability; the IPEX method's override, up to 0.15.1, too) and the
platform's ``verify_quantization`` is
CUDA's (no list of supported methods: it accepts every method).

This file must not import kvguard.
"""

import json
import logging
import os
import shutil
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def _ipex_sees_cuda_90():
    """The IPEX method's override (up to 0.15.1) claims every AWQ / GPTQ checkpoint on a CPU or XPU platform:
    on the default host (CUDA) it does not."""
    import importlib

    from quant_runner import _cuda_90_stand_in

    try:
        mod = importlib.import_module("vllm.model_executor.layers.quantization.ipex_quant")
    except Exception:  # noqa: BLE001 - not in this release
        return
    if "current_platform" in mod.__dict__:
        mod.current_platform = _cuda_90_stand_in()


_NO_OWN = object()

#: bytes per element of the safetensors dtype names the cases use (a tensor's data is one element)
_ELEMENT_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "I32": 4, "I64": 8, "F8_E4M3": 1, "F8_E5M2": 1,
                  "F16": 2, "BF16": 2, "F32": 4, "F64": 8, "F8_E8M0": 1, "U16": 2}


def write_safetensors(path, tensors, metadata=None):
    """A safetensors file of one-element tensors named ``tensors`` (name -> dtype name): an 8-byte little-endian
    header length, the JSON header (``__metadata__`` when given), then the zero-filled data.  Also imported by
    the tests, which write the same files for kvguard."""
    import struct

    header, offset = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype in tensors.items():
        size = _ELEMENT_BYTES.get(dtype, 1)
        header[name] = {"dtype": dtype, "shape": [1], "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header).encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(blob)) + blob + bytes(offset))


def _quant_config_sees_capability(capability):
    """With a case's ``cuda_capability`` (e.g. 90): while VllmConfig builds the quantization config, the platform
    reports that compute capability, so the method's minimum-capability check runs as on the default host (the CPU
    platform reports none and vLLM skips the check).  Returns the undo."""
    import vllm.platforms as platforms
    from vllm.platforms.interface import DeviceCapability

    try:
        from vllm.config.vllm import VllmConfig
    except ImportError:  # 0.10.2: vllm/config/__init__.py
        from vllm.config import VllmConfig
    plat = type(platforms._current_platform)
    real = VllmConfig.__dict__["_get_quantization_config"]

    def build(model_config, load_config):
        own = plat.__dict__.get("get_device_capability", _NO_OWN)
        plat.get_device_capability = classmethod(
            lambda cls, device_id=0: DeviceCapability(capability // 10, capability % 10))
        try:
            return real.__func__(model_config, load_config)
        finally:
            if own is _NO_OWN:
                del plat.get_device_capability
            else:
                plat.get_device_capability = own

    VllmConfig._get_quantization_config = staticmethod(build)
    return lambda: setattr(VllmConfig, "_get_quantization_config", real)


def _auto_cache_dtype(model_config):
    """What ``--kv-cache-dtype auto`` becomes: the call EngineArgs.create_engine_config makes before it builds
    CacheConfig (0.14.0+, vllm.utils.torch_utils.resolve_kv_cache_dtype_string); "auto" in releases without it.
    (The whole engine config is not built: the CPU platform refuses an FP8 KV cache, the GPU does not.)"""
    try:
        from vllm.utils.torch_utils import resolve_kv_cache_dtype_string
    except ImportError:
        return "auto"
    return resolve_kv_cache_dtype_string("auto", model_config)


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from oracle_runner import describe, shortcuts_from_env, torch_compat

    torch_compat()
    from quant_runner import _quant_modules_see_cuda_90, _setup

    _setup()
    _ipex_sees_cuda_90()
    from vllm.config import ModelConfig

    shortcuts_from_env()  # the registry's class inspection here, not a subprocess per architecture (~10 s each)

    results = []
    environ = dict(os.environ)
    for case in spec["cases"]:
        # each case sees the run's environment only: 0.10.2/0.11.0's create_engine_config writes VLLM_USE_V1 into
        # os.environ (envs.set_vllm_use_v1); a later case read it as set, and the CPU platform's V1 refusal of
        # sliding-window models then raised (before VllmConfig's checks) instead of falling back to V0
        os.environ.clear()
        os.environ.update(environ)
        work = tempfile.mkdtemp(prefix="kvg-qv-")
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        for name, content in (case.get("files") or {}).items():   # e.g. hf_quant_config.json beside config.json
            with open(os.path.join(work, name), "w") as fh:
                json.dump(content, fh)
        for name, tensors in (case.get("safetensors") or {}).items():
            os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
            write_safetensors(os.path.join(work, name), tensors.get("tensors", {}), tensors.get("metadata"))
        rec = {"id": case["id"]}
        kwargs = {"model": work, "tokenizer": work, "skip_tokenizer_init": True}
        if case.get("quantization") is not None:
            kwargs["quantization"] = case["quantization"]
        if case.get("dtype"):
            kwargs["dtype"] = case["dtype"]
        if case.get("allow_deprecated_quantization"):
            kwargs["allow_deprecated_quantization"] = True
        _quant_modules_see_cuda_90()
        _ipex_sees_cuda_90()
        undo = _quant_config_sees_capability(case["cuda_capability"]) if case.get("cuda_capability") else None
        try:
            if case.get("vllm_config"):
                from vllm.engine.arg_utils import EngineArgs

                kwargs.pop("tokenizer")
                vc = EngineArgs(**kwargs).create_engine_config()
                mc = vc.model_config
            else:
                mc = ModelConfig(**kwargs)
        except BaseException as exc:  # noqa: BLE001
            rec.update(stage="model", **describe(exc))
        else:
            rec.update(stage="ok", quantization=mc.quantization, dtype=str(mc.dtype))
            if case.get("cache_dtype"):
                rec["cache_dtype"] = _auto_cache_dtype(mc)
        finally:
            if undo is not None:
                undo()
        results.append(rec)
        shutil.rmtree(work, ignore_errors=True)
    with open(out_path, "w") as fh:
        json.dump(results, fh, default=str)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
