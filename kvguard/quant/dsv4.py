"""DeepSeek-V4 (``DeepseekV4ForCausalLM``) at model construction on the default host, vLLM 0.20.0 – 0.33.0.

Mirrors the CUDA implementation the model registry loads on a GPU host: vllm/models/deepseek_v4/nvidia/model.py
(``DeepseekV4Model``, ``DeepseekV4DecoderLayer``, ``DeepseekV4MoE``, ``DeepseekV4MLP``),
vllm/models/deepseek_v4/attention.py (``DeepseekV4Attention.__init__``), vllm/models/deepseek_v4/quant_config.py
(``DeepseekV4FP8Config.get_quant_method``) and the MXFP4 experts' backend choice
(vllm/model_executor/layers/fused_moe/oracle/mxfp4.py, ``select_deepseek_v4_mxfp4_moe_backend``), read in 0.30.0,
0.31.0, 0.32.0 and 0.33.0; before 0.30.0 the same package (from 0.22.0; 0.20.x – 0.21.0:
vllm/model_executor/models/deepseek_v4.py with vllm/model_executor/layers/deepseek_v4_attention.py), read in
0.20.0 – 0.29.0, differs in:

- the KV-cache dtype the sparse-MLA attention reads while it is built (FlashMLA's FP8 block layout on compute
  capability 9.0): before 0.30.0 an assert that takes fp8 names only, ``auto`` included in the refusal (the message
  changes in 0.23.0 and 0.24.0); from 0.30.0 ``auto`` reads as fp8 and another name is a ValueError;
- the heads per rank: checked by the MLA wrapper after the projections before 0.23.0 (0.20.x – 0.21.0 with their
  own message), before them from 0.23.0, and in 0.27.0 – 0.28.0 also by the model before the embedding;
- the experts over tp: a bare assert on the routed experts before 0.24.0, with the redundant ones and a message
  from 0.24.0 (dropped in 0.31.0); the routed experts get EPLB's arguments from 0.24.0 only (before, a launch's
  EPLB neither adds redundant experts nor splits them evenly);
- the shared experts: the plain size (block-FP8 checked) before 0.24.0, rounded up to whole blocks per rank from
  0.24.0, replicated with the sequence-parallel MoE from 0.27.0; ``n_shared_experts`` read with no default before
  0.33.0 (a config without it: an AttributeError; 0.33.0's transformers config class defaults it);
- the experts' dtype: 0.20.0 ignores ``expert_dtype`` (MXFP4 experts always); from 0.20.1 the FP8 config resolves it
  when the first block-FP8 linear asks for its scale dtype (``fp4`` / ``fp8`` only, another value refused there)
  and ``fp8`` builds the routed experts with the block-FP8 MoE method;
- ``MixtureOfExperts``: implemented from 0.23.0 only (``DeepseekV4MixtureOfExperts``); before, a built model with
  ``--enable-eplb`` leaves the V1 worker nothing to balance and its first EPLB step asserts (W_eplb_no_moe_model,
  shown by the releases: tests/upstream/test_dsv4_eplb.py).

What the worker builds, in order, and what of it reads the launch (everything else is replicated, unquantized or
sized from the config alone, so it cannot refuse one layout and take another):

- the vocabulary embedding: the vocabulary padded to a multiple of 64, divided by tp;
- per decoder layer, the attention module: a bare ``assert`` that tp divides the attention heads (ModelConfig
  already refuses such a tp, so it is not reached from the CLI), FlashMLA's head count (the sparse-MLA class
  compute capability 9.0 gets: at most 128 query heads per rank, "DeepseekV4 FlashMLA does not support … heads"),
  then its block-FP8 projections: the fused
  ``q_a`` / ``kv`` projection (tp disabled), ``wq_b`` (column-parallel, heads x head size), ``wo_a``
  (column-parallel, output groups x output LoRA rank), ``wo_b`` (row-parallel back to the hidden size); the
  compressor and indexer projections are replicated or unquantized;
- the MoE block: the router (replicated, unquantized), the shared experts (``DeepseekV4MLP``: with a block size its
  intermediate size is rounded *up* to whole blocks per rank — ``ceil(I // block / tp) * block * tp`` — so its
  block-FP8 checks cannot refuse; with the sequence-parallel MoE, expert parallel with tp > 1 and dp > 1 and pp = 1,
  it is replicated), in 0.30.0 only an assert that tp divides the routed + redundant experts
  (``n_physical_experts=… must be divisible by tp_size=…. Adjust num_redundant_experts.``; 0.31.0 dropped it), and
  the routed experts (the MoE layer factory: EPLB's even split, the intermediate size over the MoE TP size).

The FP4 experts' ``Mxfp4MoEMethod`` chooses its backend while it is built.  On the default host (CUDA compute
capability 9.0, ``--moe-backend auto``, the default all2all backend, no FlashInfer / Humming packages steering it)
the release's own selection names Marlin (``MarlinExperts``: FlashInfer TRT-LLM and DeepGEMM MXFP4 need SM100),
which pads its sizes and checks none; the method takes EPLB.  Shown by the release: tests/upstream/test_dsv4_model.py
builds the CUDA model on the meta device with the release's selection answering as that host.

Shared experts without rows (``n_shared_experts`` 0, or from 0.24.0 fewer than one block once rounded): split by
tp, the gate/up projection's block-FP8 check divides by its empty per-rank output (a ZeroDivisionError); unsplit
(tp 1, or replicated under the sequence-parallel MoE) every check passes.  A null ``n_shared_experts`` builds none.

FP8 experts: the block-FP8 MoE method checks the per-rank intermediate size against the block (from 0.29.0 refined
for a kernel that takes the block shape: the default host's FP8 MoE kernel, Triton, as for every block-FP8 MoE
kvguard decides — the oracle answers the release's FP8 MoE selection the same way).

The attention class (``_select_dsv4_attn_cls``, 0.23.0+; before, the flag is not read while the model is built):
from 0.24.0 ``--attention-backend FLASHINFER_MLA_SPARSE`` / ``FLASHINFER_MLA_SPARSE_SM120`` are refused by name when
layer 0 picks it (0.27.0 - 0.28.0: when the model asks it for the padded head count, before the embedding);
``FLASHINFER_MLA_SPARSE_DSV4`` builds DeepSeek-V4's FlashInfer class (left open); every other name builds FlashMLA's
class on compute capability 9.0, the default.

The FP8 config a CUDA host builds from 0.30.0 is DeepSeek-V4.1's class (vllm/models/deepseek_v41/quant_config.py):
the same as DeepSeek-V4's but for a ``[32, 32]`` block with e8m0 scales (FP4 experts), whose linears it builds with
ModelOpt's MXFP8 method — left open.

Named backends: ``--moe-backend marlin`` makes the FP4 experts' method ask Marlin's kernel class, supported on
compute capability 9.0 and what ``auto`` picks there (0.20.x - 0.21.0 build the same experts either way); naming
``--all2all-backend allgather_reducescatter``, every release's default, is the default.  A ``--moe-backend`` name
the release takes but the MXFP4 map (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py, ``map_mxfp4_backend``)
lacks is refused by the FP4 experts' method on every GPU (``MXFP4_UNMAPPED``), after FusedMoE's own checks, from
0.21.0 (DeepSeek-V4's own MXFP4 selection; 0.20.x left open).  The same holds for FP8 experts (``Fp8MoEMethod``,
vllm/model_executor/layers/fused_moe/oracle/fp8.py ``map_fp8_backend``, 0.20.1+) and NVFP4 experts
(``map_nvfp4_backend``, first in the named branch of ``select_nvfp4_moe_backend``, 0.22.0+): a name their map lacks
is a ValueError on every GPU (:mod:`kvguard.quant.moe_backend`); right after it, NVFP4 experts with a
``swiglu_limit`` refuse a named backend outside the release's ``NVFP4_BACKENDS_WITH_CLAMP``, on every GPU
(``flashinfer_cutedsl`` from 0.28.0, whose batched variant does not clamp, left open).  Any other named backend
(not a MegaMoE one) is honoured by the experts' method alone, so every layer before the routed experts (the embedding, layer 0's attention
class, heads, projections and KV cache, the shared experts, the experts-over-tp assert) and FusedMoE's own checks
are decided as for ``auto``; whether the named kernel supports the deployment is a question of the GPU and the
kernel packages, and the experts are left open there (:func:`experts_backend_open`).

NVFP4 experts (NVIDIA's ModelOpt exports, nvidia/DeepSeek-V4-Flash-NVFP4 / -Pro-NVFP4: ``quant_method`` fp8 for the
block-FP8 linears, ``moe_quant_algo: NVFP4``, an ``ignore`` list), read in vllm/models/deepseek_v4/quant_config.py
0.22.0 – 0.33.0 and vllm/models/deepseek_v41/quant_config.py 0.30.0 – 0.33.0: from 0.22.0 the FP8 config upper-cases
``moe_quant_algo`` when the first FP4 experts ask and, for NVFP4, builds them with ModelOpt's ``ModelOptNvFp4FusedMoE``
(group 16; 0.20.x – 0.21.0 do not read the key: MXFP4 experts).  That method runs the release's NVFP4 MoE selection
(vllm/model_executor/layers/fused_moe/oracle/nvfp4.py, ``select_nvfp4_moe_backend``) after FusedMoE's own checks:
with the experts' ``swiglu_limit`` set, only the backends that apply the SwiGLU clamp are candidates — 0.22.0 – 0.23.0
FlashInfer TRT-LLM alone, which needs the SM100 family, so compute capability 9.0 has none (NotImplementedError, "No
NvFp4 MoE backend supports the deployment configuration."); 0.24.0 adds Marlin, which takes every size (the weights
are sized by floor divisions) and EPLB.  From 0.32.0 the CUDA config class reads the export's ``ignore`` list and keeps
the MXFP4 method for a main layer whose ``layers.N.ffn.experts`` it matches (the published lists match none).  Shown
by the release: tests/upstream/test_dsv4_model.py runs the release's own NVFP4 selection on the CUDA 9.0 stand-in.

``DeepseekV4MoE``'s MegaMoE path belongs to ``--moe-backend deep_gemm_mega_moe`` (0.20.0+; in 0.29.0 – 0.31.0
also the FlashInfer MoE-EP backends, :func:`mega_experts_path`), with expert parallel (from 0.21.0 the model refuses
it without, before any layer: kvguard.rules.table MI_dsv4_mega_moe_ep; 0.20.x takes the fused path without).  Read
in 0.20.0, 0.21.0, 0.22.0, 0.23.0, 0.27.0 – 0.33.0: the MoE block
checks the routing for that path (``sqrtsoftplus`` scoring, from 0.31.0 normalized top-k, ``fp4`` experts), builds
its router and shared experts (replicated from 0.27.0 when the MoE runs sequence-parallel, which that path makes it
with expert parallel, tp > 1 and pp 1), then ``_init_mega_moe_experts`` asserts that the EP group (dp x pcp x tp
ranks) divides the experts: bare, on the routed experts alone, to 0.22.x; from 0.23.0 on the routed + redundant
ones (``--eplb-config``'s ``num_redundant_experts``) with ``n_physical_experts=… must be divisible by ep_size=….
Adjust num_redundant_experts.``.  Decided for ``deep_gemm_mega_moe`` on the released routing (``scoring_func``
sqrtsoftplus, ``norm_topk_prob`` true, ``expert_dtype`` fp4, all written in the config), NVFP4 exports included (the
checkpoint's experts are not read before the assert): the layers before the experts as for ``auto``, then the assert
(:func:`mega_experts_indivisible`); the DeepGEMM MegaMoE experts built after it need a GPU (left open).  Another
MegaMoE name (the FlashInfer MoE-EP ones, ``aiter_mega_moe``) or other routing stay open; where the assert fails there, the release refuses whatever comes first,
and the launch is undecidable (kvguard.rules.table, never accepted).

Left open (reported as not modelled): other architectures of the family (the vision
model, DeepSeek-V4.1), a checkpoint the DeepSeek-V4 FP8 override does not claim, an ``expert_dtype`` that is neither
a string nor null, ignored layers (``ignored_layers`` / ``modules_to_not_convert``), a ``moe_quant_algo`` that is not
a string, NVFP4 experts with a ``swiglu_limit`` that is neither a number nor null, from
0.32.0 NVFP4 experts whose ``ignore`` list names a main layer's experts, a MegaMoE ``--moe-backend``, the routed
experts with another named ``--moe-backend`` (the named kernel's support is asked of the GPU and the kernel packages;
with FP8 / NVFP4 experts also ``marlin``; the layers before them decided), another ``--all2all-backend``,
``--attention-backend FLASHINFER_MLA_SPARSE_DSV4`` (0.23.0+), from 0.30.0 a ``[32, 32]`` block with FP4 experts
(ModelOpt MXFP8 linears), an attention geometry other than the released
checkpoints' (the compressor, indexer and kernels check head sizes and compress ratios whatever the launch), a
``hidden_act`` other than ``silu`` (the shared experts refuse it), another host.
"""

from __future__ import annotations

from .names import DSV4_ARCH

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Mapping, Optional

__all__ = ["ARCH", "ATTN_REFUSED", "EXPERT_DTYPES", "FLASHMLA_MAX_HEADS", "HOST_ENV", "MEGA_EXPERTS_MESSAGE",
           "MEGA_EXPERTS_SINCE", "NVFP4_HOST_ENV", "SINCE", "TP_EXPERTS_DROPPED", "attention_backend",
           "attention_refused", "expert_dtype", "experts_backend_open", "experts_backend_refusal", "kv_cache_refused",
           "mega_decided", "mega_experts_indivisible", "mega_experts_path", "megamoe_path", "moe_backend_refused",
           "mxfp4_map", "nvfp4_experts", "nvfp4_clamp_refused", "shared_experts_missing", "shared_intermediate",
           "unmodelled"]

#: the architecture decided here (the registry's name of the CUDA text model)
ARCH = DSV4_ARCH
#: the first release whose construction kvguard models (and proves against the release): the first that registers it
SINCE = "0.20.0"
#: the first release whose fused-MoE path no longer asserts that tp divides the routed + redundant experts
TP_EXPERTS_DROPPED = "0.31.0"
#: the first release whose assert on the experts over tp counts the redundant ones and says so (before: a bare
#: assert on the routed experts alone)
TP_EXPERTS_MESSAGE = "0.24.0"
#: the releases whose DeepseekV4Model asks the attention class for its padded head count before the embedding
MODEL_HEADS = ("0.27.0", "0.28.0")
#: the first release whose attention module pads its heads before building its projections (before: the MLA
#: wrapper built after them)
HEADS_BEFORE_LINEARS = "0.23.0"
#: the first release whose routed experts are built with EPLB's arguments (before: without, whatever the launch)
EPLB_PASSED = "0.24.0"
#: the first release whose CUDA model implements ``MixtureOfExperts`` (``DeepseekV4MixtureOfExperts``): before it the
#: V1 worker finds no MoE model for ``--enable-eplb`` and its first EPLB step asserts (W_eplb_no_moe_model)
MIXTURE_OF_EXPERTS = "0.23.0"
#: the first release whose shared experts keep whole weight blocks per rank (before: the plain size, checked)
SHARED_ROUNDED = "0.24.0"
#: the first release whose shared experts are replicated when the MoE runs sequence-parallel
SP_SHARED_EXPERTS = "0.27.0"
#: the first release whose DeepSeek-V4 FP8 config reads the checkpoint's ``expert_dtype`` (``fp8``: block-FP8
#: experts; another value refused when the first block-FP8 linear asks for its scale dtype); 0.20.0 ignores the key
#: and always builds MXFP4 experts
EXPERT_DTYPE_READ = "0.20.1"
#: the expert dtypes that release's config takes, in its order (printed in its refusal)
EXPERT_DTYPES = ("fp4", "fp8")
#: from this release ``auto`` reads as fp8 for the FP8 block layout and a refusal is a ValueError (before: an
#: assert that takes fp8 names only, ``auto`` included in the refusal)
KV_AUTO_FP8 = "0.30.0"
#: --moe-backend values decided: ``auto`` and ``marlin``, which the FP4 experts' method honours by asking Marlin's
#: kernel class, supported on compute capability 9.0 — the backend ``auto`` selects there (shown by the releases)
DECIDED_MOE_BACKENDS = ("auto", "marlin")
#: ParallelConfig.all2all_backend's default in every release that registers DeepSeek-V4: naming it is the default
DEFAULT_ALL2ALL = "allgather_reducescatter"
#: environment variables that steer the MXFP4 MoE backend selection (Humming's input quantization, the B12X
#: kernels' activation) or the older MXFP4 switches: a launch that sets one is not decided
HOST_ENV = ("VLLM_HUMMING_INPUT_QUANT_CONFIG", "VLLM_B12X_MOE_FP4_FORCE_A16", "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16",
            "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS",
            "VLLM_MXFP4_USE_MARLIN")

#: the first release whose DeepSeek-V4 MoE block has the MegaMoE path (``deep_gemm_mega_moe``; 0.20.x only with expert
#: parallel, the fused path without it): its experts assert that the EP group divides the routed experts (bare)
MEGA_EXPERTS_SINCE = "0.20.0"
#: the first release whose MegaMoE assert counts the redundant experts and says so
MEGA_EXPERTS_MESSAGE = "0.23.0"
#: the releases whose MoE block also sends the FlashInfer MoE-EP backends down the MegaMoE path (``use_mega_moe``
#: is ``moe_backend in MEGA_MOE_BACKENDS``; from 0.32.0 only the native name)
MEGA_FLASHINFER = ("0.29.0", "0.31.0")
_NATIVE_MEGA = "deep_gemm_mega_moe"
_FLASHINFER_MEGA = ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl")
#: the first release whose MegaMoE path refuses un-normalized top-k probabilities
MEGA_RENORMALIZE = "0.31.0"

#: the first release whose FP8 config builds ModelOpt's NVFP4 experts (``ModelOptNvFp4FusedMoE``, group 16) for FP4
#: experts when the checkpoint's quantization config says ``moe_quant_algo: NVFP4`` (any case; before, the key is
#: not read and the experts are MXFP4)
NVFP4_EXPERTS = "0.22.0"
#: the first release whose NVFP4 MoE selection counts Marlin among the backends that apply the SwiGLU clamp; before,
#: experts with a ``swiglu_limit`` may take FlashInfer TRT-LLM only, which needs the SM100 family: on compute
#: capability 9.0 no backend is left (NotImplementedError)
NVFP4_CLAMP_MARLIN = "0.24.0"
#: the first release whose CUDA config class (DeepSeek-V4.1's) reads a ModelOpt export's ``ignore`` list for the
#: experts: a main layer's ``layers.N.ffn.experts`` it matches (fnmatch) keeps MXFP4 experts
NVFP4_IGNORE_READ = "0.32.0"
#: environment variables that steer the NVFP4 MoE backend selection (FlashInfer FP4, its backend, the B12X
#: override, Marlin's input dtype, batch invariance): a launch with NVFP4 experts that sets one is not decided
NVFP4_HOST_ENV = ("VLLM_USE_FLASHINFER_MOE_FP4", "VLLM_FLASHINFER_MOE_BACKEND", "VLLM_B12X_MOE_FP4_FORCE_A16",
                  "VLLM_MARLIN_INPUT_DTYPE", "VLLM_BATCH_INVARIANT", "VLLM_HUMMING_INPUT_QUANT_CONFIG")

#: the first release whose CUDA model picks its sparse-MLA attention class from --attention-backend (before, the
#: FlashMLA class whatever the flag names: the flag is not read while the model is built)
ATTN_CLASS_CHOSEN = "0.23.0"
#: from this release the model refuses the generic FlashInfer sparse-MLA backends by name, in its order
ATTN_REFUSED_SINCE = "0.24.0"
ATTN_REFUSED = ("FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120")
#: the backend that selects DeepSeek-V4's FlashInfer sparse-MLA class (0.23.0+): its own head padding and KV-cache
#: layout, not modelled
FLASHINFER_DSV4 = "FLASHINFER_MLA_SPARSE_DSV4"
#: the --moe-backend names the MXFP4 experts' method maps to a kernel family (``map_mxfp4_backend``), in the
#: release's order (printed in its refusal of another name), by the first release of each list
_MXFP4_MAP_0_21 = ("deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                   "flashinfer_cutlass_afp8", "triton", "triton_unfused", "humming", "marlin", "aiter",
                   "aiter_mxfp4_fp8", "xpu", "emulation")
_MXFP4_MAP_0_22 = ("deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                   "flashinfer_cutlass_afp8", "triton", "triton_unfused", "humming", "marlin", "aiter",
                   "aiter_mxfp4_fp8", "aiter_mxfp4_mxfp4", "xpu", "cpu", "emulation")
_MXFP4_MAP_0_29 = ("b12x",) + _MXFP4_MAP_0_22
_MXFP4_MAP_0_30 = ("b12x", "deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                   "flashinfer_cutlass_afp8", "triton", "triton_unfused", "humming", "marlin", "aiter",
                   "aiter_triton_mxfp4_bf16", "aiter_mxfp4_fp8", "aiter_mxfp4_mxfp4", "xpu", "cpu", "emulation")
_MXFP4_MAP_0_32 = ("b12x", "deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                   "flashinfer_cutlass_afp8", "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm",
                   "triton", "triton_unfused", "humming", "marlin", "aiter", "aiter_triton_mxfp4_bf16",
                   "aiter_mxfp4_fp8", "aiter_mxfp4_mxfp4", "xpu", "cpu", "emulation")
_MXFP4_MAP_0_33 = ("b12x", "deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                   "flashinfer_cutlass_afp8", "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm",
                   "triton", "triton_unfused", "humming", "marlin", "aiter", "aiter_triton_mxfp4_bf16",
                   "aiter_mxfp4_fp8", "aiter_triton_mxfp4_mxfp4", "aiter_mxfp4_mxfp4", "xpu", "cpu", "emulation")
MXFP4_MAPPED = (("0.33.0", _MXFP4_MAP_0_33), ("0.32.0", _MXFP4_MAP_0_32), ("0.30.0", _MXFP4_MAP_0_30),
                ("0.29.0", _MXFP4_MAP_0_29), ("0.22.0", _MXFP4_MAP_0_22), ("0.21.0", _MXFP4_MAP_0_21))
#: the first release whose FP4 experts choose their backend with DeepSeek-V4's own MXFP4 selection (0.20.x: the
#: generic one, which maps a named backend the same way; not shown by the oracle, which stands in for that selection)
MXFP4_DSV4_SELECTION = "0.21.0"
#: --moe-backend names the release takes but the MXFP4 map lacks, shown to reach the FP4 experts and be refused
#: there on every GPU (by the first release that has the name, from MXFP4_DSV4_SELECTION); the MegaMoE names (``deep_gemm_mega_moe``, the
#: FlashInfer MoE-EP ones in 0.29.0 - 0.31.0, ``aiter_mega_moe``) take another path and stay open
MXFP4_UNMAPPED = (("cutlass", "0.20.0"), ("flashinfer_cutedsl", "0.20.0"), ("flashinfer_b12x", "0.22.0"),
                  ("flydsl", "0.24.0"), ("hpc", "0.25.0"), ("batched_triton", "0.27.0"), ("rdna3", "0.30.0"))


def mxfp4_map(release) -> "tuple[str, ...]":
    """The names the release's MXFP4 map takes (``map_mxfp4_backend``)."""
    return next(names for since, names in MXFP4_MAPPED if release.within(since))


def moe_backend_refused(moe_backend: str, experts: "Optional[str]", release) -> bool:
    """Whether the FP4 experts' method refuses the named --moe-backend whatever the GPU: a name the release takes
    whose MXFP4 map has no entry for it (a ValueError listing the map's names)."""
    return (experts == "fp4" and release.within(MXFP4_DSV4_SELECTION)
            and any(moe_backend == name and release.within(since) for name, since in MXFP4_UNMAPPED))


#: the first release whose CUDA FP8 config is DeepSeek-V4.1's class, which builds ModelOpt MXFP8 linears for a
#: ``[32, 32]`` weight block with e8m0 scales (the FP4 experts' checkpoints)
MXFP8_LINEARS = "0.30.0"

#: the attention geometry of the released checkpoints (Flash, Pro), the one decided
_HEAD_DIM, _ROPE_HEAD_DIM, _INDEX_HEAD_DIM = 512, 64, 128
#: FlashMLA's FP8 decode kernel takes at most this many query heads per rank (padded to 64 or 128)
FLASHMLA_MAX_HEADS = 128

_SIZES = ("hidden_size", "num_attention_heads", "head_dim", "q_lora_rank", "o_groups", "o_lora_rank",
          "moe_intermediate_size", "n_routed_experts", "vocab_size", "num_hidden_layers")


def attention_backend(name: "Optional[str]", release) -> "Optional[str]":
    """The ``--attention-backend`` as the model reads it (upper case; None: not given, ``auto``, or a release
    whose model does not read it)."""
    if name is None or name.upper() == "AUTO" or not release.within(ATTN_CLASS_CHOSEN):
        return None
    return name.upper()


def attention_refused(name: "Optional[str]", release) -> bool:
    """Whether the CUDA model refuses the named backend when it picks layer 0's attention class (0.24.0+: the
    generic FlashInfer sparse-MLA backends, whatever the GPU)."""
    return release.within(ATTN_REFUSED_SINCE) and attention_backend(name, release) in ATTN_REFUSED


def unmodelled(resolved: "Mapping[str, Any]", quant_cfg: "Mapping[str, Any]", architectures, release, *,
               claimed: "bool | str", moe_backend: str, all2all_backend: "Optional[str]", dtype: str,
               attention: "Optional[str]" = None) -> "Optional[str]":
    """Why kvguard does not decide this DeepSeek-V4 construction (None: it does).  ``claimed``: whether the
    DeepSeek-V4 FP8 override claims the checkpoint (kvguard.quant.dsv4_fp8.claim)."""
    archs = list(architectures or ())
    if not archs or archs[0] != ARCH:
        return None if not archs else (f"the model construction of {archs[0]} (DeepSeek-V4 family) is not "
                                       f"modelled")
    if not release.within(SINCE):
        return f"the model construction of {ARCH} is modelled from vLLM {SINCE}"
    if claimed is not True:
        return (claimed if isinstance(claimed, str) else
                f"the model construction of {ARCH} with a {quant_cfg.get('quant_method')!r} checkpoint (not the "
                f"DeepSeek-V4 FP8 method) is not modelled")
    block = quant_cfg.get("weight_block_size")
    if not (isinstance(block, (list, tuple)) and len(block) == 2 and all(type(b) is int and b > 0 for b in block)):
        return f"the model construction of {ARCH} with weight_block_size {block!r} is not modelled"
    if quant_cfg.get("ignored_layers") or quant_cfg.get("modules_to_not_convert"):
        return (f"the model construction of {ARCH} with layers left unquantized (ignored_layers, "
                f"modules_to_not_convert) is not modelled")
    algo = quant_cfg.get("moe_quant_algo")
    if algo and not isinstance(algo, str) and release.within(NVFP4_EXPERTS):
        # the config upper-cases it when the first FP4 experts ask
        return f"the model construction of {ARCH} with moe_quant_algo {algo!r} is not modelled"
    experts = expert_dtype(resolved, release)
    if experts is not None and not isinstance(experts, str):
        # a number / list / mapping: its printed form in the release's refusal is not modelled
        return f"the model construction of {ARCH} with expert_dtype {experts!r} is not modelled"
    if resolved.get("hidden_act", "silu") != "silu":
        return (f"the model construction of {ARCH} with hidden_act {resolved.get('hidden_act')!r} (refused by the "
                f"shared experts) is not modelled")
    ratios = resolved.get("compress_ratios")
    rates, types = resolved.get("compress_rates"), resolved.get("layer_types")
    if ratios is None and isinstance(rates, dict) and isinstance(types, list):
        # transformers 5's config class folds the legacy list into per-layer-type rates
        ratios = [rates.get(t, 0) for t in types]
    if (resolved.get("head_dim") != _HEAD_DIM or resolved.get("qk_rope_head_dim") != _ROPE_HEAD_DIM
            or resolved.get("index_head_dim", _INDEX_HEAD_DIM) != _INDEX_HEAD_DIM
            or not isinstance(ratios, list) or not set(ratios) <= {0, 1, 4, 128}):
        # the compressor / indexer / sparse-MLA modules check these against their kernels' layouts (e.g.
        # "Unsupported head_dim for fused quant+cache: …"), whatever the launch
        return (f"the model construction of {ARCH} with an attention geometry other than the released checkpoints' "
                f"(head_dim {_HEAD_DIM}, qk_rope_head_dim {_ROPE_HEAD_DIM}, index_head_dim {_INDEX_HEAD_DIM}, "
                f"compress ratios 4 / 128 or none) is not modelled")
    if attention_backend(attention, release) == FLASHINFER_DSV4:
        # the FlashInfer class pads its heads and lays out its KV cache its own way (bf16 or per-tensor fp8)
        return (f"the model construction of {ARCH} with --attention-backend {FLASHINFER_DSV4} (DeepSeek-V4's "
                f"FlashInfer sparse-MLA attention class) is not modelled")
    if (release.within(MXFP8_LINEARS) and experts == "fp4" and list(block) == [32, 32]):
        # the CUDA config class builds every linear with ModelOpt's MXFP8 method for this block (e8m0 scales, the
        # FP4 experts' checkpoints): its checks are not the block-FP8 ones kvguard applies
        return (f"the model construction of {ARCH} with weight_block_size [32, 32] and FP4 experts (ModelOpt MXFP8 "
                f"linears, from vLLM {MXFP8_LINEARS}) is not modelled")
    mega = megamoe_path(moe_backend)
    if mega and not mega_decided(moe_backend, resolved, release):
        # the MoE block takes another path (its own experts, the sequence-parallel choice) from its first line
        return (f"the model construction of {ARCH} with --moe-backend {moe_backend} is not modelled (the MegaMoE "
                f"experts' path)")
    if nvfp4_experts(experts, quant_cfg, release) and not mega:
        # (the MegaMoE path builds DeepGEMM's MXFP4 experts whatever the checkpoint's experts are, after its assert)
        why = _nvfp4_unmodelled(resolved, quant_cfg, release)
        if why is not None:
            return why
    if all2all_backend not in (None, DEFAULT_ALL2ALL):
        return (f"the model construction of {ARCH} with --all2all-backend {all2all_backend} is not modelled (its "
                f"dispatch decides the MoE activation format and the sequence-parallel MoE; decided: "
                f"{DEFAULT_ALL2ALL}, every release's default)")
    if dtype not in ("auto", "bfloat16", "bf16", "float16", "half"):
        return f"the model construction of {ARCH} with --dtype {dtype} is not modelled"
    for name in _SIZES:
        value = resolved.get(name)
        if type(value) is not int or value < 1:
            return f"the model construction of {ARCH} with {name}={value!r} is not modelled"
    shared = resolved.get("n_shared_experts")
    if shared is not None and (type(shared) is not int or shared < 0):
        return f"the model construction of {ARCH} with n_shared_experts={shared!r} is not modelled"
    return None


def nvfp4_experts(experts: "Any", quant_cfg: "Mapping[str, Any]", release) -> bool:
    """Whether the FP4 experts are built with ModelOpt's NVFP4 MoE method (``moe_quant_algo`` NVFP4, 0.22.0+)."""
    algo = quant_cfg.get("moe_quant_algo")
    return (experts == "fp4" and release.within(NVFP4_EXPERTS) and isinstance(algo, str)
            and algo.upper() == "NVFP4")


def mega_experts_path(moe_backend: str, release) -> bool:
    """Whether DeepseekV4MoE builds its experts with ``_init_mega_moe_experts`` for this --moe-backend (0.20.0+:
    ``deep_gemm_mega_moe``; 0.29.0 – 0.31.0 also the FlashInfer MoE-EP names)."""
    if not release.within(MEGA_EXPERTS_SINCE):
        return False
    return moe_backend == _NATIVE_MEGA or (moe_backend in _FLASHINFER_MEGA and release.within(*MEGA_FLASHINFER))


def mega_experts_indivisible(n_routed: int, redundant: int, ep_size: int, release) -> "Optional[dict]":
    """The values of ``_init_mega_moe_experts``' assert when the EP group does not divide the experts (None: it
    does): to 0.22.x the routed experts alone (a bare assert, no values), from 0.23.0 routed + redundant."""
    if not release.within(MEGA_EXPERTS_MESSAGE):
        return None if n_routed % ep_size == 0 else {}
    physical = n_routed + redundant
    return None if physical % ep_size == 0 else {"experts": physical, "ep": ep_size}


def mega_decided(moe_backend: str, resolved: "Mapping[str, Any]", release) -> bool:
    """Whether the MegaMoE path is decided up to its experts' assert: ``deep_gemm_mega_moe`` with the released
    routing written in the config, which its own checks take (the checkpoint's experts' quantization is not read
    before the assert: DeepGEMM's MXFP4 experts are built after it)."""
    if moe_backend != _NATIVE_MEGA or not release.within(MEGA_EXPERTS_SINCE):
        return False
    return (resolved.get("scoring_func") == "sqrtsoftplus" and resolved.get("norm_topk_prob") is True
            and resolved.get("expert_dtype") == "fp4")


def megamoe_path(moe_backend: str) -> bool:
    """Whether the named --moe-backend takes DeepSeek-V4's MegaMoE path (``deep_gemm_mega_moe``, ``aiter_mega_moe``,
    the FlashInfer MoE-EP backends): the MoE block builds other experts and runs sequence-parallel with it."""
    return "mega" in moe_backend or moe_backend.startswith("flashinfer_moe_ep")


def experts_backend_open(experts: "Any", quant_cfg: "Mapping[str, Any]", moe_backend: str, release,
                         resolved: "Mapping[str, Any]") -> "Optional[str]":
    """Why the routed experts are not decided for the named --moe-backend (None: they are), once every layer
    before them is built: the experts' method honours the name, and whether its kernel supports this deployment
    is asked of the GPU and the kernel packages installed.  Decided: ``auto``; for MXFP4 experts ``marlin`` (what
    compute capability 9.0 selects) and the names the release's MXFP4 map lacks (refused on every GPU)."""
    if moe_backend == "auto" or experts_backend_refusal(experts, quant_cfg, moe_backend, release,
                                                        resolved) is not None:
        return None
    if nvfp4_experts(experts, quant_cfg, release):
        what = "the named NVFP4 kernel's support is asked of the GPU, the kernel packages and the SwiGLU clamp"
    elif experts == "fp8":
        what = "the FP8 experts' MoE backend it names: a question of the GPU and the kernel packages installed"
    elif moe_backend in DECIDED_MOE_BACKENDS:
        return None
    else:
        what = ("whether the named MXFP4 kernel supports this deployment is asked of the GPU and the kernel "
                "packages installed")
    return (f"the model construction of {ARCH}'s routed experts with --moe-backend {moe_backend} is not modelled "
            f"({what}; decided: auto, marlin for MXFP4 experts — what CUDA compute capability 9.0 selects — and "
            f"the names the experts' map lacks, refused on every GPU; the layers before the experts are decided)")


def experts_backend_refusal(experts: "Any", quant_cfg: "Mapping[str, Any]", moe_backend: str, release,
                            resolved: "Mapping[str, Any]") -> "Optional[tuple[str, dict]]":
    """The experts' method's refusal of a named --moe-backend whatever the GPU (once FusedMoE's own checks pass) as
    (check, values), or None: a name the experts' map lacks — MXFP4 experts from 0.21.0 (:func:`moe_backend_refused`),
    FP8 experts (``map_fp8_backend``, 0.20.1+), NVFP4 experts (``map_nvfp4_backend``, 0.22.0+) —, then for NVFP4
    experts with a SwiGLU clamp a name whose backend does not apply it.  The MegaMoE names take another path
    (:func:`megamoe_path`)."""
    from .moe_backend import nvfp4_clamp_refusal, unmapped

    if moe_backend == "auto" or megamoe_path(moe_backend):
        return None
    if nvfp4_experts(experts, quant_cfg, release):
        values = unmapped("nvfp4", moe_backend, release)
        if values is not None:
            return "MI_dsv4_moe_backend", values
        clamp = nvfp4_clamp_refusal(moe_backend, resolved.get("swiglu_limit"), release)
        return None if clamp is None else ("MI_dsv4_nvfp4_clamp_backend", clamp)
    if experts == "fp8":
        values = unmapped("fp8", moe_backend, release)
        return None if values is None else ("MI_dsv4_moe_backend", values)
    if moe_backend_refused(moe_backend, experts, release):
        return "MI_dsv4_moe_backend", {"name": moe_backend, "kind": "MXFP4", "names": repr(list(mxfp4_map(release)))}
    return None


def _nvfp4_unmodelled(resolved: "Mapping[str, Any]", quant_cfg: "Mapping[str, Any]",
                      release) -> "Optional[str]":
    """Why NVFP4 experts are not decided (None: they are: the release's NVFP4 MoE selection on compute capability
    9.0 with --moe-backend auto, which reads the experts' SwiGLU clamp and no size; a named backend leaves the
    experts alone open: experts_backend_open)."""
    if "swiglu_limit" not in resolved or isinstance(resolved["swiglu_limit"], bool) or not isinstance(
            resolved["swiglu_limit"], (int, float, type(None))):
        return (f"the model construction of {ARCH} with NVFP4 experts and swiglu_limit "
                f"{resolved.get('swiglu_limit', '(absent)')!r} is not modelled")
    ignore = quant_cfg.get("ignore")
    layers = resolved.get("num_hidden_layers")
    if isinstance(ignore, list) and type(layers) is int and release.within(NVFP4_IGNORE_READ):
        from fnmatch import fnmatchcase

        patterns = [p for p in ignore if isinstance(p, str)]
        hit = next((f"layers.{i}.ffn.experts" for i in range(layers)
                    if any(fnmatchcase(f"layers.{i}.ffn.experts", p) for p in patterns)), None)
        if hit is not None:
            # the CUDA config class keeps these experts MXFP4 (0.22.0 - 0.31.x read no such list); the oracle's CPU
            # platform builds DeepSeek-V4's own class, which does not read it: not shown
            return (f"the model construction of {ARCH} with NVFP4 experts whose ignore list names {hit} (MXFP4 "
                    f"experts for it from vLLM {NVFP4_IGNORE_READ}) is not modelled")
    return None


def nvfp4_clamp_refused(resolved: "Mapping[str, Any]", release) -> bool:
    """Whether the NVFP4 MoE selection finds no backend on compute capability 9.0: experts with a SwiGLU clamp
    before Marlin applies it (0.22.0 - 0.23.x)."""
    return resolved.get("swiglu_limit") is not None and not release.within(NVFP4_CLAMP_MARLIN)


def shared_intermediate(size: int, block_n: int, tp: int, sequence_parallel: bool) -> int:
    """The shared experts' intermediate size as ``DeepseekV4MLP`` builds it: with a weight block and tensor
    parallelism it keeps whole blocks per rank, rounding the rank's block count up (the trailing ranks' extra
    rows are zero-filled when the weights load)."""
    if sequence_parallel:
        return size
    per_rank = -(-(size // block_n) // tp)
    return per_rank * block_n * tp


def expert_dtype(resolved: "Mapping[str, Any]", release) -> "Any":
    """The experts' dtype the DeepSeek-V4 FP8 config resolves (``fp4`` when the key is missing or the release
    does not read it)."""
    return resolved.get("expert_dtype", "fp4") if release.within(EXPERT_DTYPE_READ) else "fp4"


def shared_experts_missing(resolved: "Mapping[str, Any]") -> bool:
    """Whether the config object lacks ``n_shared_experts`` (the MoE block reads it unguarded): before 0.33.0
    the DeepSeek-V4 config class has no default for it, so a config without the key has no such attribute;
    0.33.0's class defaults it (kvguard's resolved config then carries the default)."""
    return "n_shared_experts" not in resolved


def kv_cache_refused(cache_dtype: str, release) -> bool:
    """Whether the sparse-MLA attention (FlashMLA's FP8 block layout, the class compute capability 9.0 gets)
    refuses the KV-cache dtype: it stores fp8 names only; before 0.30.0 ``auto`` is not one of them."""
    if cache_dtype == "auto" and release.within(KV_AUTO_FP8):
        return False
    return not cache_dtype.startswith("fp8")
