"""ModelOpt FP8 / NVFP4 checkpoints at model construction, vLLM 0.10.2 – 0.33.0 (dense layers).

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

Only the plain exports are decided: ``quant_algo`` exactly ``FP8``, ``FP8_PER_CHANNEL_PER_TOKEN`` or ``NVFP4``
(as ModelOpt writes them), nothing excluded but
``lm_head`` (which layers ``exclude_modules`` / ``ignore`` leave unquantized — exact names with the packed-modules
mapping, substrings, wildcards, by release — is not modelled), dense families (the ModelOpt MoE methods choose a
MoE backend on the GPU while they are built).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from . import modelopt as _modelopt

__all__ = ["INPUT_MULTIPLE", "METHODS", "read"]

#: the quantization methods whose construction this module decides
METHODS = ("modelopt", "modelopt_fp4")
#: ModelOptNvFp4LinearMethod.create_weights: the per-rank input must be a multiple of this (every release)
INPUT_MULTIPLE = 16
#: the quant_algo values each decided method is read for (as ModelOpt writes them, upper case)
_ALGOS = {"modelopt": ("FP8", "FP8_PER_CHANNEL_PER_TOKEN"), "modelopt_fp4": ("NVFP4",)}
#: exclusion entries that leave no decoder layer unquantized (the LM head is built after the decoder layers)
_HARMLESS = ("lm_head",)


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
