"""gpt-oss (``GptOssForCausalLM``) at model construction, vLLM 0.10.2 – 0.33.0: MXFP4 experts and the BF16 form.

Mirrors vllm/model_executor/models/gpt_oss.py and vllm/model_executor/layers/quantization/mxfp4.py (0.19.1+ with
vllm/model_executor/layers/fused_moe/oracle/mxfp4.py), read in 0.10.2, 0.11.0, 0.11.1, 0.13.0, 0.16.0, 0.18.0,
0.19.1, 0.20.0, 0.24.0, 0.27.0, 0.28.0, 0.33.0.  Per decoder layer the model builds, in this order (the layer data:
the ``gpt_oss`` family of kvguard/data/quant_archs.json):

- the attention projections (``QKVParallelLinear``, ``RowParallelLinear``): unquantized in every release (up to
  0.11.0 the attention is built without the quantization config; from 0.11.1 ``Mxfp4Config.get_quant_method``
  answers every linear layer with ``UnquantizedLinearMethod``), so only vLLM's sharding checks apply;
- the router (``torch.nn.Linear`` up to 0.16.x, then ``ReplicatedLinear`` / ``GateLinear`` without quantization);
- the MLP block's bare ``assert config.intermediate_size % self.world_size == 0`` (every release), where
  ``world_size`` is ``torch.distributed``'s world size, not the TP size: ``init_distributed_environment`` makes it
  ParallelConfig's world size (tp x pp, x pcp from 0.12.0) and, with more than one DP rank, multiplies it by dp
  (except under the ``external_launcher`` executor from 0.11.0, and with elastic EP from 0.20.0).  So expert
  parallelism does not lift it: gpt-oss-120b (intermediate size 2880 = 2^6 x 45) refuses ``-tp 8 -dp 16`` with or
  without ``--enable-expert-parallel`` (world 128) with a bare ``AssertionError`` (``MI_gptoss_world``);
- the experts (``FusedMoE``; 0.24.0+ the MoE layer factory): the MoE TP size's intermediate assert (implied by the
  world assert above), then the experts' method.

The MXFP4 experts' method (``Mxfp4MoEMethod``; ``GptOssMxfp4MoEMethod`` from 0.20.0, ``GptOssMxfp4Config`` claiming
the checkpoint) picks its MoE backend while it is built and pads the per-rank sizes for it (``create_weights``,
0.20.0+ ``maybe_roundup_sizes`` / ``mxfp4_round_up_hidden_size_and_intermediate_size``: intermediate size up to a
multiple of 64 (Triton) or 128 (Marlin, FlashInfer CUTLASS) or 256 (FlashInfer TRT-LLM), the hidden size for the
Marlin / FlashInfer kernels); no release checks a per-rank size there.  On the default host (CUDA compute capability
9.0, default environment, ``--moe-backend auto``, the default all2all backend) the selection names a backend without
refusing: 0.10.2 – 0.18.x ``get_mxfp4_backend`` (the FlashInfer SM90 backend only with
``VLLM_USE_FLASHINFER_MOE_MXFP4_BF16``; then Triton with the triton_kernels package and torch 2.8+, else Marlin),
0.19.1+ the priority list of ``select_mxfp4_moe_backend`` (FlashInfer TRT-LLM needs SM100, CK ROCm; Triton, then
FlashInfer CUTLASS, Triton unfused, Marlin).  Either way the construction refuses nothing of its own: a host
assumption (compute capability 9.0), listed as skipped for another capability, ``--unknown-host``, or an environment
variable of :data:`MXFP4_ENV`.

``--enable-eplb``: gpt-oss hands its experts no EPLB in any release; from 0.24.0 the MoE layer reads the MoE parallel
config's ``enable_eplb`` and refuses a method without ``supports_eplb`` after building it — ``GptOssMxfp4MoEMethod``
has none: ``NotImplementedError: EPLB is not supported GptOssMxfp4MoEMethod.`` (:func:`eplb_refusal`).  Up to 0.23.x
the construction passes and what EPLB does with a model whose MoE layers take none is not modelled.

The BF16 form (no ``quantization_config``): the same sharding checks and world assert; its experts'
``UnquantizedFusedMoEMethod`` picks an unquantized MoE backend on the GPU for the ``swigluoai`` activation with
biases, which is not modelled (:data:`BF16_EXPERTS`): a layout the checks above accept is left undecided.
"""

from __future__ import annotations

from .moe_backend import named_backend_unmodelled
from .names import GPT_OSS_FAMILY

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["BF16_EXPERTS", "EPLB_SINCE", "FAMILY", "MXFP4_ENV", "eplb_refusal", "unmodelled"]

#: the kvguard/data/quant_archs.json family
FAMILY = GPT_OSS_FAMILY
#: the release from which the MoE layer checks the MXFP4 method's EPLB support whatever the model passes
EPLB_SINCE = "0.24.0"
#: the environment variables that steer the MXFP4 MoE backend selection in some release (FlashInfer SM90 / SM100
#: backends, the forced Marlin switch): a launch that sets one is not decided
MXFP4_ENV = ("VLLM_USE_FLASHINFER_MOE_MXFP4_BF16", "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8",
             "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS", "VLLM_MXFP4_USE_MARLIN")
#: why the BF16 form's experts stay undecided
BF16_EXPERTS = ("the unquantized experts of GptOssForCausalLM (the MoE backend the GPU selects for the swigluoai "
                "activation with biases) are not modelled")


def unmodelled(method: Optional[str], *, quantization: Optional[str], moe_backend: Optional[str],
               all2all_backend: Optional[str]) -> Optional[str]:
    """Why the construction of a gpt-oss launch is not decided (None: it is).  ``method``: the checkpoint's
    ``quant_method`` (None: the BF16 form)."""
    if method not in (None, "mxfp4"):
        return f"the weight-shard checks of GptOssForCausalLM with the {method} quantization method are not modelled"
    if quantization is not None and (method is None or quantization not in ("mxfp4", "gpt_oss_mxfp4")):
        # (from 0.20.0 GptOssMxfp4Config claims the checkpoint whatever the name; online quantization of the BF16
        # form builds other methods)
        return f"--quantization {quantization} with GptOssForCausalLM is not modelled"
    if method is None:
        return None
    return named_backend_unmodelled("MXFP4 experts", moe_backend, all2all_backend)


def eplb_refusal(release) -> Optional[dict]:
    """The ``MI_eplb_unsupported`` values of ``--enable-eplb`` with MXFP4 experts, or None (the construction does
    not check EPLB: up to 0.23.x)."""
    if not release.within(EPLB_SINCE):
        return None
    return {"method": "GptOssMxfp4MoEMethod"}
