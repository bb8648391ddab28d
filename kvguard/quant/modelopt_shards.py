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

The MoE experts (``FusedMoE``; 0.33.0 ``RoutedExperts``) of Qwen3-MoE, Mixtral, MiniMax-M2 (0.11.1+, read in 0.11.1,
0.20.0, 0.24.0, 0.28.0, 0.33.0: its router gate never takes the quantization config), Qwen3.5-MoE (0.17.0+, read in
0.17.0, 0.20.0, 0.24.0, 0.33.0: Qwen3-Next's MoE block, router and shared-expert gates built without the quantization
config; the exclusion list through the Qwen3-VL wrapper's mapper, kvguard.quant.qwen3_vl), Llama 4's wrapper (its
experts apply the router weight on the input, which no ModelOpt MoE backend choice reads: kvguard.quant.llama4),
DeepSeek-V2/V3 and Gemma 4
(0.28.0+, whose ``gelu_tanh`` experts get the same backends on the default host: kvguard.quant.gemma4),
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

DeepSeek-V2/V3 (vllm/model_executor/models/deepseek_v2.py, read in 0.10.2, 0.20.0, 0.33.0): per-tensor FP8 checks no
size in any layer (the MLA projections, replicated or not, the dense and shared-expert MLPs); NVFP4 checks the input
of every linear layer built with the quantization config: the split ones as in the dense models, the replicated
``kv_a_proj_with_mqa`` (no q LoRA) and the tp-disabled ``fused_qkv_a_proj`` (q LoRA) on their whole input (the
hidden size), while the MoE router gate is built without it in every release (``ReplicatedLinear`` / 0.20.0+
``GateLinear`` with ``quant_config=None``).  The experts are Qwen3-MoE's case.

So the experts add no refusal of their own: the construction is FusedMoE's (the flattened MoE TP size, the
per-partition intermediate size) and the linear layers' (NVFP4: the attention and dense layers' input multiple
of 16; Qwen3-MoE's router gate, a ``ReplicatedLinear`` (0.33.0 ``GateLinear``) the model hands the quantization
config in every release, on its whole input, the hidden size — Mixtral's is built without it).  Left skipped (:func:`moe_unmodelled`): other MoE families, ``FP8_PER_CHANNEL_PER_TOKEN`` experts,
``--moe-backend`` other than auto, an explicit ``--all2all-backend``, the NVFP4
``moe`` activation override (0.32.0+), and (kvguard.rules.table) another compute capability or an environment
variable of :data:`MOE_ENV`.

``--enable-eplb`` (FusedMoE.__init__; 0.24.0+ routed_experts.py): after the method is built and before its
``create_weights``, a method without EPLB support is refused (NotImplementedError, :func:`eplb_refusal`): up to
0.11.0 every method but ``Fp8MoEMethod`` and the unquantized one ("EPLB is only supported for FP8 quantization for
now."), from 0.11.1 by ``supports_eplb``, which ``ModelOptNvFp4FusedMoE`` sets from 0.13.0 and
``ModelOptFp8MoEMethod`` never does.

Only the plain exports are decided: ``quant_algo`` exactly ``FP8``, ``FP8_PER_CHANNEL_PER_TOKEN`` or ``NVFP4``
(as ModelOpt writes them).

Exclusions (``is_layer_excluded`` / ``get_quant_method`` of the ModelOpt configs, read in 0.10.2, 0.11.0, 0.11.1,
0.12.0, 0.13.0, 0.16.0, 0.20.0, 0.24.0, 0.26.0, 0.28.0, 0.29.0, 0.33.0; :func:`exclusions`, :func:`layer_state`):

- the list: the nested ``quantization.exclude_modules`` (hf_quant_config layout), else the flat config's
  ``exclude_modules`` (0.10.2 – 0.11.0), ``ignore`` (0.11.1 – 0.32.x), ``ignore`` falling back to
  ``exclude_modules`` (0.33.0);
- the model's checkpoint-name mapper, where the model class has one (the ``llama`` family, Qwen3-MoE and Mixtral
  from 0.26.0; DeepSeek-V2/V3 none), rewrites the list first: from 0.13.0 a pattern ending in ``*`` not after a dot
  (``a*``) becomes ``a`` and ``a.*``; Mixtral's renames (0.29.0+) turn ``.gate_proj.`` / ``.up_proj.`` /
  ``.down_proj.`` into ``.w1.`` / ``.w3.`` / ``.w2.``;
- a linear layer is excluded when ``is_layer_skipped`` (exact names; a fused layer shard by shard — shards that
  disagree are a ValueError, ``MI_fused_shards``; 0.24.0+ the fused name itself first; 0.11.0+ an ``experts``
  prefix contained in a listed ``experts`` name) says so, then by release: FP8 0.10.2 a listed name contained in
  the prefix, 0.11.0 – 0.11.x the same but not the prefix itself; NVFP4 0.10.2 every entry as a regular expression
  (``.`` literal, ``*`` any run), 0.11.0 – 0.11.x the entries with a ``*`` or a ``.``; 0.12.0+ (both methods) a
  listed name contained in the prefix but not equal to it, then ``fnmatch`` wildcards;
- the MoE experts consult the list from 0.11.1 (NVFP4) / 0.12.0 (FP8) (excluded: ``UnquantizedFusedMoEMethod``,
  which takes EPLB); before, they are always quantized;
- 0.23.0+ the LM head (``ParallelLMHead``) takes the linear method unless excluded (:func:`lm_head`).

The LM head (vllm/model_executor/layers/vocab_parallel_embedding.py and the model classes, read in 0.20.0, 0.22.1,
0.23.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0 – 0.33.0): ``ParallelLMHead`` is built after the decoder (on the last
pipeline rank; Qwen3-MoE and Mixtral on every rank, which changes nothing here).  Its ``__init__`` asks the config for
a method (0.23.0+: the ModelOpt linear method, or ``UnquantizedLinearMethod`` when excluded; before: none, the head
is unquantized), divides the vocabulary padded to 64 over tp (the embedding's division, already passed), then calls
the method's ``create_weights`` with the unsplit hidden size as its input: NVFP4 refuses a hidden size that is not
a multiple of 16 (the decoder's first quantized layer reading it refuses first, with the same text, unless the list
excludes every such layer; Qwen3-MoE's router gate reads it too); the output (the padded vocabulary per rank) is not
checked, FP8 checks nothing.  Tied word embeddings: LlamaForCausalLM (and MistralForCausalLM) tie the built head
through ``ParallelLMHead.tie_weights``, which from 0.24.0 hands it to the head's method — 0.24.0's base
``QuantizeMethodBase.tie_weights`` is a bare ``NotImplementedError`` (``MI_lm_head_tie``, FP8 and NVFP4, the head
excluded or not), 0.25.0+ it shares the weight; Qwen2 / Qwen3 build no head when tied up to 0.27.x (the embedding
is the head), and build and tie one from 0.28.0; Qwen3-MoE, Mixtral and DeepSeek-V2/V3 tie without a check.

An excluded layer gets ``UnquantizedLinearMethod``: no quantized-shape check.  An entry whose regular-expression
reading (NVFP4, 0.10.2 – 0.11.x) is unsure (a character other than letters, digits, ``_ . * - /``) or that is not a
string is not modelled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import fnmatchcase

from . import families as _families
from . import modelopt as _modelopt
from .moe_backend import named_backend_unmodelled
from .names import MODELOPT_SHARD_METHODS

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["A16_LINEAR", "INPUT_MULTIPLE", "LM_HEAD_SINCE", "METHODS", "MOE_ENV", "NVFP4_EPLB",
           "TIE_RAISES", "eplb_refusal", "exclusions", "layer_state", "lm_head", "moe_unmodelled", "read",
           "weight_only_linear"]

#: the quantization methods whose construction this module decides
METHODS = MODELOPT_SHARD_METHODS
#: ModelOptNvFp4LinearMethod.create_weights: the per-rank input must be a multiple of this (every release)
INPUT_MULTIPLE = 16
#: 0.29.0 only: ModelOptNvFp4Config.from_config reads NVFP4 config groups that quantize no input activations as
#: W4A16_NVFP4, whose linear method (ModelOptNvFp4W4A16LinearMethod) refuses a per-rank input that is not a multiple
#: of 16 with a message of its own (MI_nvfp4a16_input); from 0.30.0 the W4A4 and W4A16 forms share one weight scheme
#: (MI_nvfp4_input), before 0.29.0 the config groups are not read
A16_LINEAR = ("0.29.0", "0.29.0")
#: the quant_algo values each decided method is read for (as ModelOpt writes them, upper case)
_ALGOS = {"modelopt": ("FP8", "FP8_PER_CHANNEL_PER_TOKEN"), "modelopt_fp4": ("NVFP4",)}
#: The MoE families whose ModelOpt experts are decided name ``modelopt`` in their ``moe_methods``
#: (kvguard/data/quant_archs.json; DeepSeek-V2/V3 and V3.2 too, in moe_unmodelled).
#: the environment variables that steer the ModelOpt MoE backend selection in some release (FP8 / NVFP4 FlashInfer,
#: DeepGEMM, AITER, the forced-Marlin test switch, 0.30.0+ the B12X FP4 override, the Marlin input dtype, batch
#: invariance): a launch that sets one is not decided
MOE_ENV = ("VLLM_USE_FLASHINFER_MOE_FP8", "VLLM_USE_FLASHINFER_MOE_FP4", "VLLM_FLASHINFER_MOE_BACKEND",
           "VLLM_TEST_FORCE_FP8_MARLIN", "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM", "VLLM_ROCM_USE_AITER",
           "VLLM_ROCM_USE_AITER_MOE", "VLLM_B12X_MOE_FP4_FORCE_A16", "VLLM_MARLIN_INPUT_DTYPE",
           "VLLM_BATCH_INVARIANT")


def read(cfg: Mapping[str, Any], release, mixed: bool = False) -> tuple[Optional[str], Optional[str]]:
    """``(method, None)`` when kvguard decides the checkpoint's construction, else ``(None, reason)``; ``mixed``: the
    caller decides MIXED_PRECISION exports too (kvguard.quant.modelopt_mixed), named ``modelopt_mixed``."""
    try:
        written = _modelopt.normalize(cfg, release)
        method = written or str(cfg.get("quant_method", "")).lower()
        claimed = _modelopt.claim(cfg, method, release)
    except (_modelopt.NotRead, _modelopt.UnknownAlgo):
        return None, "the ModelOpt checkpoint's weight-shard checks are not modelled (its config is not read)"
    method = claimed or method
    nested = cfg.get("quantization")
    algo = nested.get("quant_algo") if isinstance(nested, Mapping) else cfg.get("quant_algo")
    if mixed and method == "modelopt_mixed" and isinstance(algo, str) and algo.upper() == "MIXED_PRECISION":
        return method, None
    if method not in METHODS or algo not in _ALGOS[method]:
        return None, (f"the {method} quantization method's weight-shard checks with quant_algo {algo!r} are not "
                      f"modelled")
    return method, None


def weight_only_linear(cfg: Mapping[str, Any], release) -> bool:
    """Whether the release builds an NVFP4 checkpoint's linear layers with the W4A16 method (:data:`A16_LINEAR`): a
    non-empty ``config_groups`` mapping (read at the config's top level, either layout) whose every group is a mapping
    without ``input_activations`` (absent or null)."""
    if not release.within(*A16_LINEAR):
        return False
    groups = cfg.get("config_groups")
    return (isinstance(groups, Mapping) and bool(groups)
            and all(isinstance(g, Mapping) and g.get("input_activations") is None for g in groups.values()))


#: the families whose model class hands the quantization config a checkpoint-name mapper, from this release
#: (LlamaModel / Qwen2Model / Qwen3MoeModel / MixtralModel / NemotronHForCausalLM.hf_to_vllm_mapper; DeepSeek-V2/V3
#: have none; Nemotron-H is modelled from 0.24.0; Llama 4's wrapper has none, but the Llama4ForCausalLM it builds is
#: a LlamaForCausalLM, whose SupportsQuant construction applies Llama's mapper from 0.26.0 — its unstacked form
#: renames nothing: only the ``a*`` split)
MAPPER_SINCE = {"llama": "0.26.0", "llama4": "0.26.0", "qwen3_moe": "0.26.0", "mixtral": "0.26.0", "gemma4": "0.28.0",
                "nemotron_h": "0.24.0", "qwen3_5": "0.17.0", "qwen3_5_moe": "0.17.0"}
#: ModelOptQuantConfigBase.apply_vllm_mapper splits ``a*`` into ``a`` and ``a.*`` from this release
SPLIT_SINCE = "0.13.0"
#: MixtralModel's mapper renames the experts' projections in names (orig_to_new_substr) from this release
MIXTRAL_RENAMES_SINCE = "0.29.0"
_MIXTRAL_RENAMES = ((".gate_proj.", ".w1."), (".up_proj.", ".w3."), (".down_proj.", ".w2."))
#: entries whose reading as a regular expression (NVFP4 up to 0.11.x) is the same as a ``*``-only wildcard
_PLAIN = re.compile(r"[A-Za-z0-9_.*/-]*")
#: get_quant_method leaves an excluded FusedMoE unquantized (returns None) from this release, by method
MOE_EXCLUDED_SINCE = {"modelopt": "0.12.0", "modelopt_fp4": "0.11.1", "modelopt_mixed": "0.17.0"}


def _listed(cfg: Mapping[str, Any], release) -> Any:
    """The list the release's ``from_config`` reads (None: absent)."""
    nested = cfg.get("quantization")
    if isinstance(nested, Mapping):
        return nested.get("exclude_modules")
    if not release.within("0.11.1"):
        return cfg.get("exclude_modules")
    if release.within("0.33.0") and "ignore" not in cfg:
        return cfg.get("exclude_modules")
    return cfg.get("ignore")


def _split_wildcards(names: list[str]) -> list[str]:
    """apply_vllm_mapper's rewriting of ``a*`` (no dot before the star) into ``a`` and ``a.*``."""
    return [part for name in names for part in
            ((name[:-1], name[:-1] + ".*") if len(name) >= 2 and name[-1] == "*" and name[-2] != "." else (name,))]


def exclusions(cfg: Mapping[str, Any], family: str, method: str,
               release, architectures: tuple[str, ...] = ()) -> tuple[tuple[str, ...], Optional[str]]:
    """``(names, None)``: the exclusion list as the release matches layers against it (after the model's
    checkpoint-name mapper), or ``((), reason)`` when kvguard does not model it."""
    raw = _listed(cfg, release)
    if raw is None:
        raw = []
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        return (), f"the ModelOpt checkpoint's exclusion list {raw!r} (not a list of names) is not modelled"
    names = list(raw)
    kimi = family == "deepseek_v2" and "KimiK25ForConditionalGeneration" in (architectures or ())
    if kimi and release.within("0.16.0"):
        # Kimi-K2.5's wrapper has a checkpoint-name mapper from 0.16.0 (kvguard.quant.kimi_k25); its DeepSeek
        # language model has none
        if release.within(SPLIT_SINCE):
            names = _split_wildcards(names)
        from .kimi_k25 import exclusion_names as _kimi_names

        names = _kimi_names(names)
    elif family in MAPPER_SINCE and release.within(MAPPER_SINCE[family]):
        if release.within(SPLIT_SINCE):
            names = _split_wildcards(names)
        if family == "nemotron_h":
            from .nemotron_h import exclusion_names as _nemotron_names

            names = _nemotron_names(names, release)
        if family == "gemma4":
            from .gemma4 import exclusion_names

            names = exclusion_names(names, architectures, release)
        if family in ("qwen3_5", "qwen3_5_moe"):
            # Qwen3.5's wrappers map names as Qwen3-VL's (kvguard.quant.qwen3_vl)
            from .qwen3_vl import ignored_names

            names = list(ignored_names(tuple(names)))
        if family == "mixtral" and release.within(MIXTRAL_RENAMES_SINCE):
            renamed = []
            for name in names:
                for old, new in _MIXTRAL_RENAMES:
                    if old in name:
                        name = name.replace(old, new, 1)
                renamed.append(name)
            names = renamed
    if method == "modelopt_fp4" and not release.within("0.12.0"):
        unsure = [n for n in names if not _PLAIN.fullmatch(n)]
        if unsure:
            return (), (f"the ModelOpt NVFP4 exclusion {unsure[0]!r} read as a regular expression (vLLM "
                        f"{release.key}) is not modelled")
    return tuple(names), None


#: ModelOptQuantConfigBase.get_quant_method hands a ``ParallelLMHead`` the linear method (``UnquantizedLinearMethod``
#: when the list excludes ``lm_head``) from this release; before, it answers None and the head is unquantized
LM_HEAD_SINCE = "0.23.0"
#: Qwen2ForCausalLM / Qwen3ForCausalLM (and Qwen3.5's language model, which hands its head the quantization config
#: from LM_HEAD_SINCE) with tied word embeddings use the embedding itself as their LM head (no ParallelLMHead is
#: built) before this release; from it they build one and tie it (qwen2.py / qwen3.py / qwen3_5.py)
QWEN_TIED_HEAD_SINCE = "0.28.0"
#: the model classes of kvguard's families that build a ParallelLMHead only when the embeddings are not tied, until
#: QWEN_TIED_HEAD_SINCE
_QWEN_ARCHS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "Qwen3_5ForConditionalGeneration",
               "Qwen3_5MoeForConditionalGeneration")
#: LlamaForCausalLM (MistralForCausalLM inherits its __init__) ties a built LM head through
#: ParallelLMHead.tie_weights, which hands it to the head's quantization method from 0.24.0 (0.23.0 sets the weight
#: itself)
TIE_THROUGH_METHOD = ("LlamaForCausalLM", "MistralForCausalLM")
#: multimodal wrappers whose language model is a LlamaForCausalLM (Llama 4's): a tied head is not decided (the tie
#: reads the text config, which kvguard does not follow here), an untied one as the others
_TIED_UNDECIDED = ("Llama4ForConditionalGeneration",)
#: the releases whose base QuantizeMethodBase.tie_weights raises a bare NotImplementedError, which neither the
#: ModelOpt linear methods nor UnquantizedLinearMethod override (read in 0.24.0; 0.25.0 and 0.25.1 — the same
#: launch-check group, whose rows MI_lm_head_tie spans — and 0.26.0+ share the embedding's weight instead)
TIE_RAISES = ("0.24.0", "0.24.0")


def lm_head(architectures: tuple[str, ...], resolved: Mapping[str, Any], release) -> tuple[Optional[bool], str]:
    """Whether the model builds a ParallelLMHead that the ModelOpt config hands a linear method (after the decoder,
    on the last pipeline rank — Qwen3-MoE and Mixtral on every rank), and how it is tied: ``(built, tie)`` with
    ``tie`` ``"method"`` (ParallelLMHead.tie_weights, :data:`TIE_THROUGH_METHOD`), ``"shared"`` (another way that
    checks nothing) or ``""`` (not tied).  ``(None, reason)`` when the config leaves it open."""
    if not release.within(LM_HEAD_SINCE):
        return False, ""
    tied = resolved.get("tie_word_embeddings")
    arch = architectures[0] if len(architectures) == 1 else None
    matters = arch in TIE_THROUGH_METHOD or arch in _QWEN_ARCHS and not release.within(QWEN_TIED_HEAD_SINCE)
    if not isinstance(tied, bool):
        if matters or arch is None:
            return None, (f"the LM head of a ModelOpt checkpoint whose tie_word_embeddings is {tied!r} (not written "
                          f"as true or false) is not modelled")
        tied = False
    if arch is None:
        return None, f"the LM head of {', '.join(architectures) or 'this model'} is not modelled"
    if arch in _TIED_UNDECIDED and resolved.get("tie_word_embeddings") is not False:
        return None, (f"the LM head of a ModelOpt {arch} checkpoint whose tie_word_embeddings is "
                      f"{resolved.get('tie_word_embeddings')!r} (not false) is not modelled")
    if tied and arch in _QWEN_ARCHS and not release.within(QWEN_TIED_HEAD_SINCE):
        return False, ""
    if not tied:
        return True, ""
    return True, "method" if arch in TIE_THROUGH_METHOD else "shared"


def _exact(prefix: str, names: tuple[str, ...], shards: tuple[str, ...], release) -> Optional[bool]:
    """quant_utils.is_layer_skipped (exact names) with the packed-modules mapping; None: the shards disagree."""
    if shards:
        if release.within("0.24.0") and prefix in names:
            return True
        proj = prefix.split(".")[-1]
        hits = {prefix.replace(proj, shard) in names for shard in shards}
        return None if len(hits) > 1 else hits.pop()
    if "experts" in prefix and release.within("0.11.0"):
        return any(prefix in name for name in names if "experts" in name)
    return prefix in names


def layer_state(prefix: str, shards: tuple[str, ...], kind: str, names: tuple[str, ...], method: str,
                release) -> str:
    """``skipped`` (excluded: unquantized), ``quantized`` or ``fused_error`` (is_layer_skipped's ValueError) for a
    layer (``kind``: ``linear`` or ``moe``) and the list :func:`exclusions` returned."""
    if kind == "moe" and not release.within(MOE_EXCLUDED_SINCE[method]):
        return "quantized"  # FusedMoE takes the ModelOpt MoE method without consulting the list
    exact = _exact(prefix, names, shards, release)
    if exact is None:
        return "fused_error"
    if exact:
        return "skipped"
    if release.within("0.12.0"):
        hit = any(n != prefix and n in prefix for n in names) or any(fnmatchcase(prefix, n) for n in names)
    elif method == "modelopt":
        hit = any((n != prefix or not release.within("0.11.0")) and n in prefix for n in names)
    elif release.within("0.11.0"):
        hit = any(fnmatchcase(prefix, n) for n in names if "*" in n or "." in n)
    else:
        hit = any(fnmatchcase(prefix, n) for n in names)
    return "skipped" if hit else "quantized"


def _algo(cfg: Mapping[str, Any]) -> Any:
    nested = cfg.get("quantization")
    return nested.get("quant_algo") if isinstance(nested, Mapping) else cfg.get("quant_algo")


def moe_unmodelled(family: str, cfg: Mapping[str, Any], method: str, *, moe_backend: Optional[str],
                   all2all_backend: Optional[str]) -> Optional[str]:
    """Why the ModelOpt experts of a launch are not decided (None: they are; see the module docstring)."""
    algo = _algo(cfg)
    if family in ("deepseek_v2", "deepseek_v32"):
        # FP8 checks no size in any layer; NVFP4 checks every quantized linear's input (the replicated too: DeepSeek-V3.2's
        # indexer wq_b)
        pass
    elif not _families.moe_method_decided(family, "modelopt"):
        return (f"the {method} quantization method's MoE experts of the {family} family (ModelOpt's MoE methods "
                f"choose a MoE backend on the GPU while they are built) are not modelled")
    if algo not in ("FP8", "NVFP4") and method != "modelopt_mixed":
        # (MIXED_PRECISION: each MoE layer's algorithm is checked where the walk builds it, kvguard.quant.modelopt_mixed)
        return f"the {method} quantization method's MoE experts with quant_algo {algo!r} are not modelled"
    nested = cfg.get("quantization")
    if "moe" in cfg or isinstance(nested, Mapping) and "moe" in nested:
        return "the ModelOpt checkpoint's MoE section (the NVFP4 MoE activation override) is not modelled"
    return named_backend_unmodelled(f"{method} experts", moe_backend, all2all_backend)


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
