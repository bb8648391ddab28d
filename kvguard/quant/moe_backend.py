"""The MoE backend a launch names, where a quantization method's experts are decided only for the default choice.

The experts' methods kvguard decides on the default host (ModelOpt FP8 / NVFP4: kvguard.quant.modelopt_shards; MXFP4:
kvguard.quant.gpt_oss) choose their MoE backend while they are built (vllm/model_executor/layers/fused_moe/oracle/ of
the releases that have it): with ``--moe-backend auto`` and the default all2all backend the choice refuses no layout;
a named backend, or another all2all backend (it changes the activation format the choice reads), is not modelled.

A named backend is first mapped to the method's own kernel family (``map_fp8_backend`` in oracle/fp8.py,
``map_nvfp4_backend`` in oracle/nvfp4.py, read in 0.20.0 - 0.33.0): a name the map lacks is a ValueError listing the
map's names, whatever the GPU (:func:`unmapped`; DeepSeek-V4's experts use it, kvguard.quant.dsv4).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Optional


__all__ = ["FP8_MAPPED", "NVFP4_CLAMPING", "NVFP4_MAPPED", "mapped_names", "named_backend_unmodelled",
           "nvfp4_clamp_refusal", "unmapped"]

#: the --moe-backend names each map takes, in the release's order (printed in its refusal), by the first release of
#: each list
FP8_MAPPED = (("0.25.0", ("triton", "deep_gemm", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin",
                          "humming", "aiter", "hpc")),
              ("0.20.0", ("triton", "deep_gemm", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin",
                          "aiter")))
NVFP4_MAPPED = (("0.32.0", ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                            "flashinfer_moe_ep_cutedsl", "flashinfer_b12x", "marlin", "humming", "emulation")),
                ("0.29.0", ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                            "flashinfer_b12x", "marlin", "humming", "emulation")),
                ("0.25.0", ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                            "flashinfer_b12x", "marlin", "humming", "emulation")),
                ("0.22.0", ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                            "flashinfer_b12x", "marlin", "emulation")),
                ("0.20.0", ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "marlin",
                            "emulation")))
#: the named NVFP4 backends that apply the experts' SwiGLU clamp (``NVFP4_BACKENDS_WITH_CLAMP`` by the names that map
#: to them) and the alternatives the refusal of another name prints, by the first release of each; from 0.28.0
#: ``flashinfer_cutedsl`` clamps in the standard activation format only (its batched variant does not)
NVFP4_CLAMPING = (
    ("0.32.0", ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_moe_ep_cutedsl", "marlin",
                "humming", "emulation"),
     "'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_moe_ep_cutedsl', 'cutlass', "
     "'b12x', 'marlin', or 'humming'"),
    ("0.29.0", ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin", "humming", "emulation"),
     "'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'cutlass', 'b12x', 'marlin', or 'humming'"),
    ("0.28.0", ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin", "humming", "emulation"),
     "'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'cutlass', 'marlin', or 'humming'"),
    ("0.24.0", ("flashinfer_trtllm", "flashinfer_cutlass", "marlin"), "'flashinfer_trtllm' or 'flashinfer_cutlass'"),
    ("0.22.0", ("flashinfer_trtllm",), "'flashinfer_trtllm' or 'flashinfer_cutlass'"),
)
#: the first release whose clamping set holds the CuteDSL backend in the standard activation format only
NVFP4_CUTEDSL_CLAMPS = "0.28.0"
#: the name each map's refusal gives its experts
_KIND = {"fp8": "FP8", "nvfp4": "NvFP4"}


def mapped_names(kind: str, release) -> "tuple[str, ...]":
    """The --moe-backend names the ``kind`` ("fp8" / "nvfp4") experts' map takes in ``release``."""
    table = FP8_MAPPED if kind == "fp8" else NVFP4_MAPPED
    return next(names for since, names in table if release.within(since))


def nvfp4_clamp_refusal(moe_backend: str, swiglu_limit: "object", release) -> "Optional[dict]":
    """The refusal's values (``limit``, ``name``, ``alternatives``) when NVFP4 experts with a SwiGLU clamp name a
    backend (one the NVFP4 map has) that does not apply it — on every GPU, right after the name is mapped — or None
    (no clamp, a clamping backend, or ``flashinfer_cutedsl`` from 0.28.0, whose variant the activation format
    picks)."""
    if swiglu_limit is None or moe_backend == "auto":
        return None
    if moe_backend == "flashinfer_cutedsl" and release.within(NVFP4_CUTEDSL_CLAMPS):
        return None
    names, alternatives = next((names, alt) for since, names, alt in NVFP4_CLAMPING if release.within(since))
    if moe_backend in names:
        return None
    return {"limit": str(swiglu_limit), "name": moe_backend, "alternatives": alternatives}


def unmapped(kind: str, moe_backend: str, release) -> "Optional[dict]":
    """The refusal's values (``name``, ``kind``, ``names``) when the ``kind`` experts' map lacks the named backend
    (the release took the name on the command line), or None."""
    if moe_backend == "auto" or moe_backend in mapped_names(kind, release):
        return None
    return {"name": moe_backend, "kind": _KIND[kind], "names": repr(list(mapped_names(kind, release)))}


def named_backend_unmodelled(experts: str, moe_backend: Optional[str], all2all_backend: Optional[str]
                             ) -> Optional[str]:
    """Why the construction of ``experts`` (e.g. "MXFP4 experts") is not decided for the launch's backends, or None."""
    if moe_backend not in (None, "auto"):
        return f"--moe-backend {moe_backend} with {experts} (the MoE backend selection) is not modelled"
    if all2all_backend is not None:
        return (f"--all2all-backend {all2all_backend} with {experts} (the MoE backend selection reads the activation "
                f"format) is not modelled")
    return None
