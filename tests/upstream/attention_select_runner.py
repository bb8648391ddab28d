"""The attention selector and the workers' context-parallel check of a real release; runs INSIDE an oracle venv.

usage: python attention_select_runner.py CASES.json OUT.json
  CASES: {"cases": [{"id", "head_size", "dtype", "kv_cache_dtype", "use_mla", "pcp", "dcp", "backend"}]}

For each case the release's own ``CudaPlatform.get_attn_backend_cls`` picks the backend (``backend`` is the
``--attention-backend`` name, or null for the default priority list) with the release's own
``AttentionSelectorConfig`` (only the fields the case sets; every other field keeps its default: no sinks,
no sliding window, decoder attention, no multimodal prefix, ...); when a backend is selected, the release's
own ``check_attention_cp_compatibility`` runs on one layer using it.  Output per case: ``selected`` (backend
name) and ``cp_check`` (null, or [exception type, message]), or ``error`` ([type, message]) from the selector.

Stand-ins (this is a CPU host; each is what an H100 node with the release's CUDA wheel provides):

* the platform's device capability is 9.0 (``CudaPlatform.get_device_capability``);
* compiled extension modules (``vllm._C`` ...) and the ``flashinfer`` package are permissive empty modules,
  so the backend modules import and their class-level capabilities answer (a backend whose selection needs
  a kernel library's runtime answer — FlashAttention MLA, FlashMLA, FlashInfer MLA — still reports it
  unavailable here: the test compares MLA selections only through kvguard's skip);
* the layer's implementation object in the CP check is built without its ``__init__`` (which needs GPU
  state): ``dcp_world_size`` and ``need_to_return_lse_for_decode`` are set as ``__init__`` sets them
  (``dcp > 1 and can_return_lse_for_decode``).

Must not import kvguard.
"""

import importlib.abc
import importlib.machinery
import json
import sys
import types
import warnings

warnings.filterwarnings("ignore")


class _Permissive(types.ModuleType):
    """A module whose every attribute is a harmless placeholder class."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        placeholder = type(name, (), {"__init__": lambda self, *a, **k: None,
                                      "__call__": lambda self, *a, **k: None})
        setattr(self, name, placeholder)
        return placeholder


#: the release's compiled extension modules the selector's imports reach
_COMPILED = {"vllm._C", "vllm._C_stable_libtorch", "vllm._moe_C"}


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the compiled extensions and flashinfer when nothing real does."""

    def find_spec(self, fullname, path, target=None):
        stand_in = fullname.split(".")[0] == "flashinfer" or fullname in _COMPILED
        if not stand_in:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                real = finder.find_spec(fullname, path, target)
            except Exception:  # noqa: BLE001
                real = None
            if real is not None:
                return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _Permissive(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


def _dtype(name):
    import torch

    return getattr(torch, name)


def main(cases_path, out_path):
    sys.meta_path.append(_StandIns())
    import vllm.platforms.cuda as cuda
    from vllm.platforms.interface import DeviceCapability
    from vllm.v1.attention.backends.registry import AttentionBackendEnum
    from vllm.v1.attention.selector import AttentionSelectorConfig
    from vllm.v1.worker import cp_utils

    platform = cuda.CudaPlatform
    platform.get_device_capability = classmethod(lambda cls, device_id=0: DeviceCapability(9, 0))
    fields = AttentionSelectorConfig._fields
    out = {"fields": list(fields), "results": {}}
    for case in json.load(open(cases_path))["cases"]:
        values = {"head_size": case["head_size"], "dtype": _dtype(case["dtype"]),
                  "kv_cache_dtype": case["kv_cache_dtype"], "block_size": None, "use_mla": case["use_mla"]}
        if "use_pcp" in fields:
            values["use_pcp"] = case["pcp"] > 1
        if "use_dcp" in fields:
            values["use_dcp"] = case["dcp"] > 1
        config = AttentionSelectorConfig(**values)
        chosen = AttentionBackendEnum[case["backend"]] if case["backend"] else None
        result = {}
        try:
            path = platform.get_attn_backend_cls(chosen, config, num_heads=case.get("num_heads", 32))
        except Exception as exc:  # noqa: BLE001 - the selector's refusal is the answer
            result["error"] = [type(exc).__name__, str(exc)]
        else:
            from vllm.utils.import_utils import resolve_obj_by_qualname

            backend = resolve_obj_by_qualname(path)
            impl_cls = backend.get_impl_cls()
            result["selected"] = backend.get_name()
            result["impl"] = impl_cls.__name__
            impl = object.__new__(impl_cls)
            impl.dcp_world_size = case["dcp"]
            impl.need_to_return_lse_for_decode = case["dcp"] > 1 and bool(
                getattr(impl_cls, "can_return_lse_for_decode", False))
            layer = types.SimpleNamespace(impl=impl, get_attn_backend=lambda b=backend: b)
            parallel = types.SimpleNamespace(prefill_context_parallel_size=case["pcp"],
                                             decode_context_parallel_size=case["dcp"],
                                             cp_kv_cache_interleave_size=1)
            vllm_config = types.SimpleNamespace(parallel_config=parallel, speculative_config=None)
            cp_utils.get_layers_from_vllm_config = lambda *a, _layer=layer, **k: {"model.layers.0.self_attn.attn": _layer}
            try:
                cp_utils.check_attention_cp_compatibility(vllm_config)
                result["cp_check"] = None
            except Exception as exc:  # noqa: BLE001
                result["cp_check"] = [type(exc).__name__, str(exc)]
        out["results"][case["id"]] = result
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
