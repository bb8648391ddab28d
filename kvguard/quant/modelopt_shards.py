"""ModelOpt FP8 / NVFP4 checkpoints at model construction, vLLM 0.10.2 – 0.33.0 (dense layers, MoE experts).

Mirrors vllm/model_executor/layers/quantization/modelopt.py of each release (read in 0.10.2, 0.14.1, 0.16.0,
0.20.0, 0.24.0, 0.28.0, 0.33.0), the part that runs while the model's linear layers are built:

- ModelOpt NVFP4 (method ``modelopt_fp4``): ``ModelOptNvFp4LinearMethod.create_weights`` (0.33.0: the
  ``KNvfp4Static`` weight scheme of ``ModelOptLinearMethod``) refuses a layer whose per-rank input size is not
  a multiple of 16 (``ValueError``, the same text in every release).  The method picks its GEMM kernel when it is
  built (inline up to 0.14.x, ``select_nvfp4_linear_backend`` 0.16.0 – 0.18.x, ``init_nvfp4_linear_kernel``
  0.20.0+); on the default host (CUDA, compute capability 9.0) that is FP4 Marlin, whose choice reads no layer
  size (``can_implement`` takes every layer; the emulation kernel is the last resort) — a host fact, assumed.
- ModelOpt FP8 (method ``modelopt``): ``quant_algo`` FP8 (per-tensor scales, every release) and
  FP8_PER_CHANNEL_PER_TOKEN (``ModelOptFp8PcPtLinearMethod``, 0.14.0+; 0.33.0 the ``KFp8StaticChannel`` scheme):
  ``create_weights`` checks no size.  FP8_PB_WO (128 x 128 blocks: 0.14.1 – 0.28.0 refuse a per-rank output or
  input that is not a multiple of 128, 0.29.0+ pad the output; from 0.20.0 the host's block-FP8 kernel choice runs
  while the layer is built) is not modelled.

The MoE experts (``FusedMoE``; 0.33.0 ``RoutedExperts``) of Qwen3-MoE and Mixtral (DeepSeek-V2/V3: FP8),
``quant_algo`` FP8 (``ModelOptFp8MoEMethod``) and NVFP4 (``ModelOptNvFp4FusedMoE``), read in 0.10.2, 0.13.0, 0.14.1, 0.15.0, 0.16.0,
0.20.0, 0.24.0, 0.28.0, 0.30.0, 0.33.0: the method picks its MoE backend while it is built, then ``create_weights``
sizes the expert weights and scales from the per-rank intermediate size (``// 2`` packed FP4, ``// group_size``
block scales: floor divisions, no check; no padding at construction — 0.12.0+ pad for FlashInfer only after the
weights are loaded).  On the default host (CUDA, compute capability 9.0, default environment, ``--moe-backend
auto``, the default all2all backend) the backend choice refuses no layout:

- FP8: 0.10.2 – 0.13.x FlashInfer only with ``VLLM_USE_FLASHINFER_MOE_FP8``, else the Triton / CUTLASS path;
  ``select_fp8_moe_backend`` (0.14.0+) falls through to a backend that takes per-tensor FP8 on 9.0 (Triton at the
  latest in its priority list);
- NVFP4: FP4 CUTLASS and the FlashInfer FP4 kernels need the SM100 family, so 0.10.2 – 0.13.x
  ``detect_nvfp4_moe_support`` answers Marlin, 0.14.x ``select_nvfp4_moe_backend`` MARLIN, and from 0.15.0 the
  priority list's MARLIN entry (``MarlinExperts``: CUDA 7.5+, the standard activation format of the default
  all2all backend, no size check; 0.32.0+ HUMMING may come before it, taking the layer or not; 0.20.0+ EMULATION
  after it) takes the layer.

DeepSeek-V2/V3 (vllm/model_executor/models/deepseek_v2.py): the FP8 exports only — per-tensor FP8 checks no size in
any layer (the MLA projections, replicated or not, the dense and shared-expert MLPs), and the experts are Qwen3-MoE's
case; NVFP4 there would need the input check of the replicated MLA projections (``kv_a_proj_with_mqa``, by release),
which is not modelled.

So the experts add no refusal of their own: the construction is FusedMoE's (the flattened MoE TP size, the
per-partition intermediate size) and the linear layers' (NVFP4: the attention and dense layers' input multiple
of 16).  Left skipped (:func:`moe_unmodelled`): other MoE families, NVFP4 on DeepSeek-V2/V3,
``FP8_PER_CHANNEL_PER_TOKEN`` experts, ``--moe-backend`` other than auto, an explicit ``--all2all-backend``, the NVFP4
``moe`` activation override (0.32.0+), and (kvguard.rules.table) another compute capability or an environment
variable of :data:`MOE_ENV`.

``--enable-eplb`` (FusedMoE.__init__; 0.24.0+ routed_experts.py): after the method is built and before its
``create_weights``, a method without EPLB support is refused (NotImplementedError, :func:`eplb_refusal`): up to
0.11.0 every method but ``Fp8MoEMethod`` and the unquantized one ("EPLB is only supported for FP8 quantization for
now."), from 0.11.1 by ``supports_eplb``, which ``ModelOptNvFp4FusedMoE`` sets from 0.13.0 and
``ModelOptFp8MoEMethod`` never does.

Only the plain exports are decided: ``quant_algo`` exactly ``FP8``, ``FP8_PER_CHANNEL_PER_TOKEN`` or ``NVFP4``
(as ModelOpt writes them), nothing excluded but
``lm_head`` (which layers ``exclude_modules`` / ``ignore`` leave unquantized — exact names with the packed-modules
mapping, substrings, wildcards, by release — is not modelled).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from . import modelopt as _modelopt

__all__ = ["INPUT_MULTIPLE", "METHODS", "MOE_ENV", "MOE_FAMILIES", "NVFP4_EPLB", "eplb_refusal", "moe_unmodelled",
           "read"]

#: the quantization methods whose construction this module decides
METHODS = ("modelopt", "modelopt_fp4")
#: ModelOptNvFp4LinearMethod.create_weights: the per-rank input must be a multiple of this (every release)
INPUT_MULTIPLE = 16
#: the quant_algo values each decided method is read for (as ModelOpt writes them, upper case)
_ALGOS = {"modelopt": ("FP8", "FP8_PER_CHANNEL_PER_TOKEN"), "modelopt_fp4": ("NVFP4",)}
#: exclusion entries that leave no decoder layer unquantized (the LM head is built after the decoder layers)
_HARMLESS = ("lm_head",)
#: the MoE families whose ModelOpt experts are decided (kvguard/data/quant_archs.json names; deepseek_v2 for FP8
#: only, in moe_unmodelled)
MOE_FAMILIES = ("qwen3_moe", "mixtral")
#: the environment variables that steer the ModelOpt MoE backend selection in some release (FP8 / NVFP4 FlashInfer,
#: DeepGEMM, AITER, the forced-Marlin test switch, 0.30.0+ the B12X FP4 override, the Marlin input dtype, batch
#: invariance): a launch that sets one is not decided
MOE_ENV = ("VLLM_USE_FLASHINFER_MOE_FP8", "VLLM_USE_FLASHINFER_MOE_FP4", "VLLM_FLASHINFER_MOE_BACKEND",
           "VLLM_TEST_FORCE_FP8_MARLIN", "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM", "VLLM_ROCM_USE_AITER",
           "VLLM_ROCM_USE_AITER_MOE", "VLLM_B12X_MOE_FP4_FORCE_A16", "VLLM_MARLIN_INPUT_DTYPE",
           "VLLM_BATCH_INVARIANT")


def _exclusions(cfg: Mapping[str, Any]) -> list:
    """Every list the releases read exclusions from (nested ``exclude_modules``; flat ``exclude_modules`` up to
    0.11.x, ``ignore`` later): the union, since kvguard only asks whether anything but the LM head is named."""
    out: list = []
    nested = cfg.get("quantization")
    sources = [nested.get("exclude_modules")] if isinstance(nested, Mapping) else []
    sources += [cfg.get("exclude_modules"), cfg.get("ignore")]
    for src in sources:
        if isinstance(src, (list, tuple)):
            out.extend(src)
        elif src is not None:
            out.append(src)
    return out


def read(cfg: Mapping[str, Any], release) -> tuple[Optional[str], Optional[str]]:
    """``(method, None)`` when kvguard decides the checkpoint's construction, else ``(None, reason)``."""
    try:
        written = _modelopt.normalize(cfg, release)
        method = written or str(cfg.get("quant_method", "")).lower()
        claimed = _modelopt.claim(cfg, method, release)
    except (_modelopt.NotRead, _modelopt.UnknownAlgo):
        return None, "the ModelOpt checkpoint's weight-shard checks are not modelled (its config is not read)"
    method = claimed or method
    nested = cfg.get("quantization")
    algo = nested.get("quant_algo") if isinstance(nested, Mapping) else cfg.get("quant_algo")
    if method not in METHODS or algo not in _ALGOS[method]:
        return None, (f"the {method} quantization method's weight-shard checks with quant_algo {algo!r} are not "
                      f"modelled")
    named = [x for x in _exclusions(cfg) if x not in _HARMLESS]
    if named:
        return None, (f"which layers the ModelOpt checkpoint's exclude_modules / ignore ({named[:4]!r}) leave "
                      f"unquantized is not modelled")
    return method, None


def _algo(cfg: Mapping[str, Any]) -> Any:
    nested = cfg.get("quantization")
    return nested.get("quant_algo") if isinstance(nested, Mapping) else cfg.get("quant_algo")


def moe_unmodelled(family: str, cfg: Mapping[str, Any], method: str, *, moe_backend: Optional[str],
                   all2all_backend: Optional[str]) -> Optional[str]:
    """Why the ModelOpt experts of a launch are not decided (None: they are; see the module docstring)."""
    algo = _algo(cfg)
    if family == "deepseek_v2" and algo == "FP8":
        pass  # per-tensor FP8 checks no size in any layer: DeepSeek's replicated MLA projections included
    elif family == "deepseek_v2":
        return (f"the {method} quantization method on DeepSeek-V2/V3 (the NVFP4 check of the replicated MLA "
                f"projections, by release) is not modelled")
    elif family not in MOE_FAMILIES:
        return (f"the {method} quantization method's MoE experts of the {family} family (ModelOpt's MoE methods "
                f"choose a MoE backend on the GPU while they are built) are not modelled")
    if algo not in ("FP8", "NVFP4"):
        return f"the {method} quantization method's MoE experts with quant_algo {algo!r} are not modelled"
    nested = cfg.get("quantization")
    if "moe" in cfg or isinstance(nested, Mapping) and "moe" in nested:
        return "the ModelOpt checkpoint's MoE section (the NVFP4 MoE activation override) is not modelled"
    if moe_backend not in (None, "auto"):
        return f"--moe-backend {moe_backend} with {method} experts (the MoE backend selection) is not modelled"
    if all2all_backend is not None:
        return (f"--all2all-backend {all2all_backend} with {method} experts (the MoE backend selection reads the "
                f"activation format) is not modelled")
    return None


#: the experts' method classes, as FusedMoE's EPLB refusal names them (0.11.1+)
_MOE_CLASSES = {"modelopt": "ModelOptFp8MoEMethod", "modelopt_fp4": "ModelOptNvFp4FusedMoE"}
#: ModelOptNvFp4FusedMoE.supports_eplb is True from this release (ModelOptFp8MoEMethod never overrides the base's False)
NVFP4_EPLB = "0.13.0"


def eplb_refusal(method: str, release) -> Optional[dict]:
    """FusedMoE's EPLB check of the experts' method (when it applies: kvguard.quant.wna16_moe.eplb_applies): the
    ``MI_eplb_unsupported`` values, or None when the method takes EPLB.  Up to 0.11.0 only ``Fp8MoEMethod`` and the
    unquantized method pass (an isinstance check: both ModelOpt methods refused); from 0.11.1 ``supports_eplb``
    (FP8: never; NVFP4: from 0.13.0), the message naming the class."""
    if not release.within("0.11.1"):
        return {}
    if method == "modelopt_fp4" and release.within(NVFP4_EPLB):
        return None
    return {"method": _MOE_CLASSES[method]}
