"""Online quantization: ``--quantization fp8`` of a checkpoint without a quantization config, 0.10.2 – 0.33.0.

Mirrors what vllm/model_executor/model_loader/weight_utils.py (``get_quant_config``) and the FP8 method modules
build for such a launch on the default host (CUDA, compute capability 9.0):

- the config: ``Fp8Config()`` up to 0.30.x (the checkpoint has no quantization config and ``Fp8Config`` names no
  config file, so the release builds the class with its defaults: not FP8-serialized, dynamic activations, no
  ``weight_block_size``, nothing ignored; minimum capability 80 up to 0.13.x, 75 from 0.14.x); from 0.31.0 the
  ``OnlineQuantizationConfig`` of the ``fp8_per_tensor`` shorthand (per-tensor weights, nothing ignored,
  minimum capability 75);
- the linear layers: ``Fp8LinearMethod`` (0.10.2 – 0.14.x), ``Fp8OnlineLinearMethod`` (0.15.0 – 0.23.x), the
  online per-tensor method (0.24.0+): weights created at the full-precision shard size, no block, so no shard
  check beyond the unquantized model's;
- the MoE layers: ``Fp8MoEMethod`` (0.10.2 – 0.12.x), ``Fp8OnlineMoEMethod`` (0.13.0 – 0.24.x; 0.13.x asserts
  that FlashInfer was not chosen), the online per-tensor MoE method (0.25.0+): per-tensor scales, no block
  check; each takes EPLB (an ``Fp8MoEMethod`` subclass, or ``supports_eplb``); the FP8 MoE backend it selects on
  compute capability 9.0 with the default settings takes per-tensor weights (Triton at least).

What is left open (reported as not modelled): other online methods (``bitsandbytes``, ``experts_int8``, the
online shorthands of the newer releases, ...), an explicit ``--moe-backend`` for the MoE layers and the
environment variables that steer the FP8 MoE backend selection (kvguard.rules.table reads those).

The VllmConfig checks of the same launch (minimum capability 80 / 75, bfloat16 / float16 activations) are
:func:`kvguard.quant.verify.act_dtype_refusal`'s.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Optional


__all__ = ["FP8_MOE_ENV", "unmodelled_reason"]

#: the environment variables that steer the FP8 MoE backend selection (or, 0.13.0 – , make the online MoE method
#: assert that FlashInfer was not chosen)
FP8_MOE_ENV = ("VLLM_USE_FLASHINFER_MOE_FP8", "VLLM_FLASHINFER_MOE_BACKEND", "VLLM_TEST_FORCE_FP8_MARLIN",
               "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM", "VLLM_BATCH_INVARIANT")


def unmodelled_reason(method: str, has_moe: bool, moe_backend: Optional[str]) -> Optional[str]:
    """Why kvguard cannot decide the model construction of ``--quantization method`` of an unquantized
    checkpoint (None: it can: per-tensor FP8, the unquantized model's checks)."""
    if method != "fp8":
        return (f"online quantization of an unquantized checkpoint (--quantization {method}: the method's weight "
                f"creation) is not modelled")
    if has_moe and moe_backend not in (None, "auto"):
        return (f"--moe-backend {moe_backend} with online FP8 experts (the FP8 MoE backend selection) is not "
                f"modelled")
    return None
