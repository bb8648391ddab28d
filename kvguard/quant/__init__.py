"""Model construction: the checks vLLM's layers run while the model is built (worker, model init).

When the config checks pass, each worker builds the model: every decoder layer constructs its
linear layers (``QKVParallelLinear``, ``MergedColumnParallelLinear``, ``ColumnParallelLinear``,
``RowParallelLinear``, ``ReplicatedLinear``; vllm/model_executor/layers/linear.py) and MoE
layers (``FusedMoE``), each shards its weight by the tensor-parallel size (MoE layers by the
flattened MoE size: tp x dp x pcp, or the expert-parallel size) and hands the per-rank sizes
to the checkpoint's quantization method, whose ``create_weights`` refuses shards that do not
fit its blocks.  The first layer that refuses ends the launch, raised as it is (no pydantic
wrapping).

What this module models (each a fact per vLLM release, kvguard/data/quant_archs.json for the
architectures, :mod:`kvguard.rules.table` for the messages):

- the architecture's layers in construction order (:func:`layers`);
- vLLM's sharding: ``divide`` / ``ensure_divisibility`` ("X is not divisible by Y"), the merged
  layer's bare ``assert``, KV-head replication of ``QKVParallelLinear``;
- ``FusedMoE`` construction: EPLB's even-distribution check, the MoE TP size vLLM flattens
  (``FusedMoEParallelConfig.make``), the per-partition intermediate size (bare ``assert``);
- block-FP8 (``Fp8Config`` with ``weight_block_size``): ``validate_fp8_block_shape`` (dense),
  merged column layers' mismatch allowance (0.14.0+), ``Fp8MoEMethod`` (inline checks, then
  ``validate_fp8_block_shape_moe``), the MoE block-scale refinement of 0.29.0+ (an answer that
  depends on the MoE kernel the GPU selects: a host fact), layers left unquantized
  (``ignored_layers`` / ``modules_to_not_convert``, ``is_layer_skipped``).

- AWQ / GPTQ (dense ``llama`` family) and compressed-tensors (:mod:`kvguard.quant.compressed_tensors`: FP8
  per-tensor / channel / block, INT8 W8A8, NVFP4 (no size check on the default host), integer weights through
  Marlin; FP8 experts of Qwen3-MoE, Mixtral and
  DeepSeek-V2/V3, whose block shape is checked without refinement) on the default host, CUDA compute
  capability 9.0.

- online FP8 (``--quantization fp8`` of an unquantized checkpoint, :mod:`kvguard.quant.online`): per-tensor FP8
  linear and MoE methods, no block, nothing ignored.

- ModelOpt FP8 / NVFP4 exports of the dense ``llama`` family, Qwen3-MoE, Mixtral and DeepSeek-V2/V3
  (:mod:`kvguard.quant.modelopt_shards`, with the layers their exclusion lists leave unquantized, by release): the
  NVFP4 linear method's per-rank input multiple of 16; FP8 per-tensor
  checks no size; the experts' methods (FP8 per-tensor, NVFP4) choose a backend that takes every per-rank size on
  the default host and check none.

- gpt-oss (:mod:`kvguard.quant.gpt_oss`): the MLP block's assert on torch.distributed's world size (tp x pp x pcp x
  dp), the MXFP4 experts on the default host (their backend choice pads, checks no size), their EPLB refusal from
  0.24.0; the BF16 form's refusals (its unquantized experts' backend choice is not modelled).

- DeepSeek-V4 (0.20.0+, :mod:`kvguard.quant.dsv4`): the CUDA model's block-FP8 attention projections, FlashMLA's
  heads per rank, the KV-cache dtype its attention asserts, the experts-over-tp assert (up to 0.30.0), the shared
  experts, the FP4 experts (Marlin on the default host; a ModelOpt export's NVFP4 experts from 0.22.0) and EPLB.

- Kimi-K3 (0.27.0+, :mod:`kvguard.quant.kimi_k3`): the vision tower's sharding and the vocabulary embedding, built
  before the decoder layers; unquantized or the checkpoint's mxfp4-pack-quantized (no linear layer quantized); past
  the embedding undecided.

- Llama 4 Scout / Maverick (the ``llama4`` family, :mod:`kvguard.quant.llama4`): the wrapper's vision model and
  projector, built unquantized, before the language model; the MoE layers' unquantized router, shared expert and
  experts (EPLB from 0.11.1), the dense layers between; unquantized and, on the wrapper, compressed-tensors FP8.

- Gemma 4 (0.28.0+, :mod:`kvguard.quant.gemma4`): per-layer head sizes and KV heads, the wrapper's module names,
  unquantized / ModelOpt FP8 / NVFP4 / FP8 dense layers and experts (their gelu_tanh activation takes the default
  host's MoE backends: Marlin for NVFP4, Triton at the latest for FP8).

- DeepSeek-V3.2 / GLM-5 (0.11.0 – 0.33.0, the ``deepseek_v32`` family): DeepSeek-V3's layers and the sparse-attention
  indexer's projections (replicated or unquantized: no refusal of their own), on the layers IndexCache keeps
  (``index_topk_freq`` / ``index_skip_topk_offset`` or an ``index_topk_pattern``: the family's ``letters``); from
  0.29.0 the CUDA host's vllm/models/deepseek_v32 (nvidia/model.py, attention.py): kv_b_proj and the indexer before
  the other MLA projections, the dense MLP replicated under the sequence-parallel MoE with one pipeline stage
  (``sp_moe_pp1``); unquantized, ``Fp8Config``, online FP8, ModelOpt FP8 / NVFP4 and AWQ / GPTQ (the indexer's
  quantized projections on the same methods; a family's ``until`` / ``unmodelled`` / ``methods``:
  :func:`_family_unmodelled`).

- Qwen3-VL / Qwen3-VL-MoE (0.11.0+, :mod:`kvguard.quant.qwen3_vl`): the vision tower's linear layers before the
  ``llama`` / ``qwen3_moe`` family's (split by tp unless ``--mm-encoder-tp-mode data``), unquantized, ``Fp8Config``
  (its ignore list through the wrapper's checkpoint-name mapper) and online FP8.

- GLM-4.x MoE (GLM-4.5 / 4.5-Air / 4.6 / 4.7, the ``glm4_moe`` family, vllm/model_executor/models/glm4_moe.py of
  0.10.2 - 0.33.0): Llama's attention, the dense MLP before ``first_k_dense_replace``, an unquantized router, the shared
  experts after the routed ones in 0.10.2 and before them from 0.11.0; unquantized, ``Fp8Config``, online FP8 and
  AWQ / GPTQ (a family's ``activation`` and ``unmodelled_launch``: :func:`_family_unmodelled`).

- Qwen3.5 / Qwen3.6 (0.17.0+, the ``qwen3_5_moe`` / ``qwen3_5`` families, which ``extends`` Qwen3-Next's items with
  the split gated-delta-net projections): Qwen3-VL's tower first (:mod:`kvguard.quant.qwen3_vl`), then Qwen3-Next's
  layers under ``language_model``; unquantized, ``Fp8Config``, online FP8, ModelOpt NVFP4 / FP8 (the exclusion list
  through the wrapper's checkpoint-name mapper, the routed experts on the default host's FP4 Marlin),
  compressed-tensors (as Qwen3-Next's, with NVFP4 experts) and AWQ / GPTQ on the default host (from 0.22.0 the gated
  delta net replicates ``in_proj_ba`` under the Marlin-capable configs: a layer's ``disable_tp`` "wna16_marlin").

- Nemotron-H (0.24.0+, :mod:`kvguard.quant.nemotron_h`): the first Mamba-2 mixer's asserts; past them a ModelOpt NVFP4
  or FP8 export's layers (the per-rank inputs of the Mamba, attention, shared-expert and MLP projections, the exclusion
  list in the export's ``backbone.`` names), its ``relu2`` experts on the default host's FP4 Marlin, and a
  MIXED_PRECISION export's per-layer methods (:mod:`kvguard.quant.modelopt_mixed`).

- MiMo-V2-Flash (0.24.0+, the ``mimo_v2_flash`` family): full-attention and sliding-window layers with their own heads
  and a value head size apart (a qkv item's ``v_head_size``), the per-layer MoE pattern, an unquantized router.

Other quantization methods and other architectures are reported as not modelled (the check is
listed as skipped), never as accepted.  :func:`outcome` is what the rule rows read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from ..memo import PerFacts
from ..record import Record, field
from ..record import replace as _replace
from .embedding import padded_vocabulary
from .expr import ExpressionError, evaluate, names_in
from .families import dense_only as _dense_only
from .families import families as _families
from .names import (
    CT_METHOD,
    DSV4_ARCH,
    ERNIE45_VL_ARCH,
    GEMMA4_FAMILY,
    GLM4V_ARCH,
    GPT_OSS_FAMILY,
    INTERNS1_ARCHS,
    KIMI_K3_ARCH,
    KIMI_K25_ARCH,
    LLAMA4_FAMILY,
    MIXED_METHOD,
    MODELOPT_SHARD_METHODS,
    NEMOTRON_H_ARCH,
    TOWER_DATA_PARALLEL,
    TOWER_WRAPPERS,
)

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

    from . import compressed_tensors as _ct
    from . import dsv4 as _dsv4
    from . import ernie45_vl as _ernie45_vl
    from . import gemma4 as _gemma4
    from . import glm4v as _glm4v
    from . import gpt_oss as _gpt_oss
    from . import interns1 as _interns1
    from . import kimi_k3 as _kimi_k3
    from . import kimi_k25 as _kimi
    from . import llama4 as _llama4
    from . import modelopt as _modelopt
    from . import modelopt_mixed as _mixed
    from . import modelopt_shards as _mo_shards
    from . import nemotron_h as _nemotron_h
    from . import online as _online
    from . import qwen3_vl as _qwen3_vl
    from . import wna16_moe as _wna16_moe
    from . import wrappers as _wrappers

#: the formats' and families' modules, by the name this module reads each under: each is imported when a check
#: first reads one of its names (a launch of a model none of them concerns reads none of them)
_ON_FIRST_USE = {"_ct": "compressed_tensors", "_dsv4": "dsv4", "_ernie45_vl": "ernie45_vl", "_gemma4": "gemma4",
                 "_glm4v": "glm4v", "_gpt_oss": "gpt_oss",
                 "_kimi_k3": "kimi_k3", "_kimi": "kimi_k25", "_llama4": "llama4",
                 "_modelopt": "modelopt", "_mixed": "modelopt_mixed",
                 "_mo_shards": "modelopt_shards", "_nemotron_h": "nemotron_h", "_online": "online",
                 "_qwen3_vl": "qwen3_vl", "_wna16_moe": "wna16_moe", "_wrappers": "wrappers",
                 "_interns1": "interns1"}


class _OnFirstUse:
    """Stands for one of _ON_FIRST_USE's modules until a name is read from it, then imports the module, which
    takes its place in this module's namespace."""

    __slots__ = ("_alias",)

    def __init__(self, alias: str):
        self._alias = alias

    def __getattr__(self, name: str) -> Any:
        from importlib import import_module

        module = import_module(f"{__name__}.{_ON_FIRST_USE[self._alias]}")
        globals()[self._alias] = module
        return getattr(module, name)


if not TYPE_CHECKING:
    globals().update({alias: _OnFirstUse(alias) for alias in _ON_FIRST_USE})

__all__ = ["Layer", "Outcome", "QuantScheme", "family_has_moe", "family_of", "first_attention_layer", "forbidden_tp", "implements_moe", "layers",
           "outcome", "scheme_of"]

def family_of(architectures: "tuple[str, ...] | list[str]") -> Optional[str]:
    """The family name of the first architecture kvguard models, else None."""
    for arch in architectures or ():
        for name, fam in _families().items():
            if arch in fam["architectures"]:
                return name
    return None


def implements_moe(family: str, release) -> bool:
    """Whether the model the worker resolves for EPLB implements ``MixtureOfExperts`` in ``release`` (the family's
    ``mixture_of_experts``, kvguard/data/quant_archs.json)."""
    fact = _families()[family].get("mixture_of_experts", True)
    return release.within(fact) if isinstance(fact, str) else bool(fact)


def first_attention_layer(family: str, resolved: Mapping[str, Any]) -> int:
    """The index of the first decoder layer that selects an attention backend while it is built: the first ``i`` for
    which the family's ``attention_layer`` condition holds (kvguard/data/quant_archs.json; Qwen3-Next's
    gated-delta-net layers select none), else 0 (every layer does, or the config does not say)."""
    condition = _families()[family].get("attention_layer")
    if condition is None:
        return 0
    names = _names(resolved, _families()[family])
    count = names.get("num_hidden_layers")
    try:
        return next((i for i in range(count if type(count) is int else 0) if evaluate(condition, dict(names, i=i))), 0)
    except (ExpressionError, TypeError, IndexError):
        return 0


def family_has_moe(family: str) -> bool:
    """Whether the family's layers include a MoE layer (kvguard/data/quant_archs.json; none where its ``moe_layer``
    holds for no layer: Qwen3.5's dense model)."""
    fam = _families()[family]
    return fam.get("moe_layer") != "False" and any(item.get("kind") == "moe" for item in fam["layer"])


# ---------------------------------------------------------------------------
# the quantization scheme, as the release's quantization config class reads it


class QuantScheme(Record):
    """What the checkpoint's ``quantization_config`` means to the release.

    ``method``: the config's ``quant_method`` (lower case); ``block``: FP8's
    ``weight_block_size`` (None: per-tensor FP8); ``ignored``: ``ignored_layers``, else
    ``modules_to_not_convert``; ``modelled``: whether kvguard models the method's checks
    (``reason``: why not).  AWQ / GPTQ (4- or 8-bit integer weights, "WNA16"): ``bits``,
    ``group_size`` (-1: one group per input row), ``zero_point`` (AWQ), ``desc_act`` (GPTQ's
    activation order).
    """

    method: str
    block: Optional[tuple[int, int]] = None
    ignored: tuple[str, ...] = ()
    modelled: bool = True
    reason: Optional[str] = None
    bits: int = 0
    group_size: int = 0
    zero_point: bool = False
    desc_act: bool = False
    #: compressed-tensors: the scheme kvguard models (``fp8`` / ``fp8_block`` / ``int8`` / ``nvfp4`` / ``wna16``;
    #: kvguard.quant.compressed_tensors)
    ct: Optional[str] = None
    #: compressed-tensors on MoE experts: why kvguard does not model the experts' method (None: it does)
    ct_moe: Optional[str] = None
    #: compressed-tensors NVFP4: weights only (NVFP4A16), no input activations
    ct_weight_only: bool = False
    #: ModelOpt NVFP4 built with the W4A16 linear method (0.29.0: kvguard.quant.modelopt_shards.weight_only_linear)
    modelopt_a16: bool = False
    #: ModelOpt MIXED_PRECISION: the export's quantized_layers as the release looks layers up in it (each key through
    #: the model's checkpoint-name mapper, each value its upper-cased quant_algo: kvguard.quant.modelopt_mixed)
    mixed_layers: tuple[tuple[str, str], ...] = ()


def scheme_of(resolved_top: Mapping[str, Any], resolved: Mapping[str, Any], release=None
              ) -> Optional[QuantScheme]:
    """The checkpoint's quantization (None: unquantized).  ``ModelConfig._parse_quant_hf_config``
    reads ``hf_config.quantization_config`` (the text config's as a fallback).  With a ``release``, the method is
    the one that release's normalization of a ModelOpt config writes (kvguard.quant.modelopt.normalize: a
    ``producer`` ``modelopt`` config, ModelOpt's ``hf_quant_config.json`` among them, names no ``quant_method``
    of its own)."""
    cfg = resolved_top.get("quantization_config")
    if not isinstance(cfg, Mapping):
        cfg = resolved.get("quantization_config")
    if not isinstance(cfg, Mapping):
        return None
    method = str(cfg.get("quant_method", "")).lower()
    if release is not None:
        try:
            method = _modelopt.normalize(cfg, release) or method
        except (_modelopt.NotRead, _modelopt.UnknownAlgo):
            # the ModelOpt checks give the reason (kvguard.quant.modelopt_shards.read)
            return QuantScheme("modelopt", modelled=False)
    if method == "fp8":
        ignored = cfg.get("ignored_layers") or cfg.get("modules_to_not_convert") or ()
        block = cfg.get("weight_block_size")
        if block is not None:
            if not (isinstance(block, (list, tuple)) and len(block) == 2
                    and all(type(b) is int and b > 0 for b in block)):
                return QuantScheme(method, modelled=False)
            block = (block[0], block[1])
        return QuantScheme(method, block, tuple(str(x) for x in ignored))
    if method in ("awq", "gptq"):
        return _wna16_scheme(method, cfg)
    if method == CT_METHOD:
        read = _ct.scheme_from_config(cfg)
        if "unmodelled" in read:
            return QuantScheme(method, modelled=False, reason=read["unmodelled"])
        return QuantScheme(method, read.get("block"), read["ignore"], bits=read.get("bits", 0),
                           group_size=read.get("group_size", 0), ct=read["kind"], ct_moe=read.get("moe"),
                           ct_weight_only=read.get("weight_only", False))
    return QuantScheme(method or "unknown", modelled=False)


#: vllm marlin_utils.MARLIN_SUPPORTED_GROUP_SIZES (every release)
_MARLIN_GROUP_SIZES = (-1, 32, 64, 128)


def _wna16_scheme(method: str, cfg: Mapping[str, Any]) -> QuantScheme:
    """An AWQ / GPTQ ``quantization_config``, or why kvguard does not model it."""
    bits, group = cfg.get("bits"), cfg.get("group_size")

    def unmodelled(why: str) -> QuantScheme:
        return QuantScheme(method, modelled=False, reason=f"the {method} checkpoint's {why} is not modelled")

    if type(group) is not int or group == 0 or group < -1:
        return unmodelled(f"group_size {group!r}")
    if cfg.get("lm_head"):
        return unmodelled("quantized lm_head")
    if method == "awq":
        zero_point = cfg.get("zero_point")
        if bits != 4 or type(zero_point) is not bool:
            # AWQ's config refuses other widths before any layer is built
            return unmodelled(f"bits={bits!r} / zero_point={zero_point!r}")
        ignored = cfg.get("modules_to_not_convert") or ()
        if not (isinstance(ignored, (list, tuple)) and all(isinstance(x, str) for x in ignored)):
            return unmodelled("modules_to_not_convert")
        return QuantScheme(method, ignored=tuple(ignored), bits=4, group_size=group, zero_point=zero_point)
    desc_act, sym = cfg.get("desc_act"), cfg.get("sym")
    if bits not in (4, 8) or sym is not True or type(desc_act) is not bool or group not in _MARLIN_GROUP_SIZES:
        # not convertible to Marlin: the plain GPTQ kernels (up to 0.21.0) or the config's own refusal (0.22.0+)
        return unmodelled(f"bits={bits!r} / sym={sym!r} / desc_act={desc_act!r} / group_size={group!r} (no "
                          "Marlin kernel)")
    if cfg.get("dynamic") or cfg.get("modules_in_block_to_quantize"):
        return unmodelled("per-module rules (dynamic / modules_in_block_to_quantize)")
    return QuantScheme(method, bits=bits, group_size=group, desc_act=desc_act)


# ---------------------------------------------------------------------------
# the layers an architecture builds


class Layer(Record):
    """One layer as the model constructs it (global sizes; sharding is applied per launch).

    ``kind``: ``qkv`` / ``merged`` / ``column`` / ``row`` / ``replicated`` / ``moe`` / ``check``.
    """

    index: int
    prefix: str
    kind: str
    input_size: int = 0
    output_sizes: tuple[int, ...] = ()
    shards: tuple[str, ...] = ()
    #: True, False, "sp_moe" (disabled when vLLM runs the MoE sequence-parallel) or "sp_moe_pp1" (that, with one
    #: pipeline stage)
    disable_tp: Any = False
    #: qkv: (hidden, head_size, heads, kv_heads)
    qkv: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: qkv: the value heads' size where it differs from head_size (QKVParallelLinear's v_head_size; MiMo-V2-Flash), else 0
    v_head_size: int = 0
    #: moe: (experts, hidden, intermediate, passes enable_eplb)
    moe: tuple[int, int, int, bool] = (0, 0, 0, False)
    #: moe: the model passes no enable_eplb but hands FusedMoE --eplb-config's redundant experts (GLM-4.7-Flash)
    redundant_without_eplb: bool = False
    #: moe: the experts apply the router weight on the input (Llama 4's ``apply_router_weight_on_input=True``), which
    #: the fused Marlin MoE check declines up to 0.26.x
    router_on_input: bool = False
    #: check: (row id, condition expression, {name: expression})
    check: tuple = ()
    #: False: built without the quantization config (Gemma 4's router GateLinear), whatever the checkpoint holds
    quantized: bool = True
    names: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def signature(self) -> tuple:
        """What decides the layer's checks apart from its name."""
        # a check whose condition reads a per-layer value (``…[i]``) is its own layer's: never folded into another's;
        # checks of one id with other conditions (Llama 4's vision attention and its decoder's) are not folded either
        per_layer = (self.index,) if self.check and "[i]" in self.check[1] else ()
        return (self.kind, self.input_size, self.output_sizes, self.shards, self.disable_tp, (self.qkv, self.v_head_size), self.moe,
                self.check[:2] + per_layer, self.quantized, self.redundant_without_eplb, self.router_on_input)


def _names(resolved: Mapping[str, Any], fam: dict) -> dict[str, Any]:
    names = dict(resolved)
    for key in ("head_dim",):
        if key in fam:
            names[key] = evaluate(fam[key], names)
    names.setdefault("decoder_sparse_step", 1)
    names.setdefault("moe_layer_freq", 1)
    names.setdefault("first_k_dense_replace", 0)
    # the family's own defaults: the value vLLM's getattr falls back to when the config holds none (DeepSeek-V3.2's
    # index_topk_freq / index_skip_topk_offset)
    for key, default in (fam.get("defaults") or {}).items():
        if names.get(key) is None:
            names[key] = default
    # per-layer flags spelled as letters (DeepSeek-V3.2's index_topk_pattern, "F" / "S" per layer): vLLM compares
    # the layer's item with the letter and treats a layer past the pattern's end as not marked, so the flags are
    # padded with 0 to the layer count; a value that is neither a string nor a list gives None (the family's
    # ``unmodelled`` names that case)
    for key, spec in (fam.get("letters") or {}).items():
        pattern = names.get(spec["from"])
        if isinstance(pattern, (str, list)):
            flags = [1 if item == spec["letter"] else 0 for item in pattern]
            count = names.get("num_hidden_layers")
            names[key] = flags + [0] * max(0, (count if type(count) is int else 0) - len(flags))
        else:
            names[key] = None
    return names


def _module_path(table: Mapping[str, Any], architectures: "tuple[str, ...] | list[str]", release,
                 default: str) -> str:
    """An architecture's entry in a family's ``root`` / ``head`` table: a path, or release-ranged rows
    (``since`` / ``until`` / ``path``) where a wrapper moved the module between releases; ``default`` otherwise."""
    entry = next((table[a] for a in architectures or () if a in table), default)
    if isinstance(entry, str):
        return entry
    return next((row["path"] for row in entry
                 if release is None or release.within(row.get("since", "0.10.2"), row.get("until"))), default)


def root_of(family: str, architectures: "tuple[str, ...] | list[str]" = (), release=None) -> str:
    """The decoder's module path in the model the architecture builds in the release (``model``; Gemma 4's
    multimodal wrapper ``language_model.model``: the family's ``root``)."""
    return _module_path(_families()[family].get("root") or {}, architectures, release, "model")


def head_of(family: str, architectures: "tuple[str, ...] | list[str]" = (), release=None) -> str:
    """The LM head's module name in the release (``lm_head``; the family's ``head`` by architecture)."""
    return _module_path(_families()[family].get("head") or {}, architectures, release, "lm_head")


def layers(resolved: Mapping[str, Any], family: str, release,
           architectures: "tuple[str, ...] | list[str]" = ()) -> list[Layer]:
    """Every layer of the decoder stack of ``family`` for a config, in construction order."""
    fam = _families()[family]
    names = _names(resolved, fam)
    count = names.get("num_hidden_layers") or 0
    root = root_of(family, architectures, release)
    out: list[Layer] = []
    for item in fam.get("pre", ()):
        if release.within(item.get("since", "0.10.2"), item.get("until")):
            out.append(_layer(item, dict(names, i=None), -1, release, root))
    built = [item for item in fam["layer"] if release.within(item.get("since", "0.10.2"), item.get("until"))]
    # the layers' scopes differ only in ``i`` and ``moe_layer``: an expression that does not read ``i``
    # has one value per kind of layer (dense or MoE), worked out once
    values: dict[tuple[str, Any], Any] = {}

    def value(expr: Any, scope: dict) -> Any:
        if not isinstance(expr, str) or "i" in names_in(expr):
            return evaluate(expr, scope)
        key = (expr, scope.get("moe_layer"))
        if key not in values:
            values[key] = evaluate(expr, scope)
        return values[key]

    # and a layer whose sizes read no ``i`` is its kind's first such layer under another name
    alike = [item["kind"] != "check" and not any("i" in names_in(expr) for expr in _expressions(item))
             for item in built]
    first: dict[tuple[int, Any], Layer] = {}
    for i in range(int(count)):
        scope = dict(names, i=i)
        if "moe_layer" in fam:
            scope["moe_layer"] = bool(evaluate(fam["moe_layer"], scope))
        for n, item in enumerate(built):
            if "when" in item and not value(item["when"], scope):
                continue
            if alike[n]:
                key = (n, scope.get("moe_layer"))
                if key in first:
                    out.append(_replace(first[key], index=i, prefix=_prefix(item, i, root)))
                    continue
                first[key] = _layer(item, scope, i, release, root, value)
                out.append(first[key])
                continue
            out.append(_layer(item, scope, i, release, root, value))
    return out


#: the keys of a layer item that hold expressions
_EXPRESSION_KEYS = ("when", "hidden", "head_size", "v_head_size", "heads", "kv_heads", "vocab", "experts",
                    "intermediate", "in", "out")


def _expressions(item: dict) -> list:
    return [item[key] for key in _EXPRESSION_KEYS if key in item] + list(item.get("outs", ()))


def _prefix(item: dict, i: int, root: str) -> str:
    if i < 0:
        return item["name"].replace("{model}", root)
    return f"{root}.layers.{i}.{item['name']}" if "name" in item else f"{root}.layers.{i}"


def _since_flag(flag: Any, release) -> bool:
    """A quant_archs.json flag that is true, false, or the first release where it holds."""
    return release.within(flag) if isinstance(flag, str) else bool(flag)


def _layer(item: dict, scope: dict, i: int, release, root: str = "model",
           value: Callable[[Any, dict], Any] = evaluate) -> Layer:
    kind = item["kind"]
    prefix = _prefix(item, i, root)
    ev = lambda key: value(item[key], scope)  # noqa: E731
    if kind == "check":
        return Layer(i, prefix, kind, check=(item["check"], item["fires"], tuple(item.get("values", {}).items())),
                     names=scope)
    if kind == "qkv":
        return Layer(i, prefix, kind, input_size=ev("hidden"), shards=tuple(item.get("shards", ())),
                     disable_tp=item.get("disable_tp", False),
                     qkv=(ev("hidden"), ev("head_size"), ev("heads"), ev("kv_heads")),
                     v_head_size=ev("v_head_size") if "v_head_size" in item else 0)
    if kind == "vocab":
        return Layer(i, prefix, kind, output_sizes=(ev("vocab"),))
    if kind == "moe":
        passes = _since_flag(item.get("eplb", False), release)
        return Layer(i, prefix, kind, moe=(ev("experts"), ev("hidden"), ev("intermediate"), passes),
                     redundant_without_eplb=not passes and _since_flag(item.get("redundant", False), release),
                     router_on_input=bool(item.get("router_on_input", False)))
    outs = tuple(value(o, scope) for o in item["outs"]) if "outs" in item else (ev("out"),)
    return Layer(i, prefix, kind, input_size=ev("in"), output_sizes=outs, shards=tuple(item.get("shards", ())),
                 disable_tp=item.get("disable_tp", False), quantized=item.get("quantized", True))


# ---------------------------------------------------------------------------
# the launch's view: per-rank sizes and the checks, in vLLM's order


class Outcome(Record):
    """The first refusal while building the model (``check`` is a rule id of the model_init
    stage, ``values`` its template values), or ``check=None`` (the model builds).  ``needs``:
    host facts the answer read; ``unmodelled``: why kvguard cannot answer (the check is skipped)."""

    check: Optional[str] = None
    values: Mapping[str, Any] = field(default_factory=dict)
    layer: Optional[str] = None
    needs: tuple[str, ...] = ()
    unmodelled: Optional[str] = None
    #: built with ``--enable-eplb``, but the model the worker resolves for EPLB implements no
    #: ``MixtureOfExperts``: the worker's first EPLB step decides (``W_eplb_no_moe_model``)
    eplb_without_moe_model: bool = False


class _Refused(Exception):
    def __init__(self, check: str, **values: Any):
        super().__init__(check)
        self.check = check
        self.values = values


def _divide(n: int, d: int) -> int:
    """vllm.distributed.utils.divide (ensure_divisibility's assert)."""
    if n % d != 0:
        raise _Refused("MI_divide", numerator=n, denominator=d)
    return n // d


class Launch(Record, frozen=False):
    """The sizes the model construction reads from the launch."""

    tp: int
    dp: int = 1
    pcp: int = 1
    ep: bool = False
    #: -pp: read only by checks on torch.distributed's world size (gpt-oss's MLP block)
    pp: int = 1
    eplb: bool = False
    redundant: int = 0
    #: the default MoE kernel selection can take a refined FP8 block shape (a host fact; None: unknown)
    refined_fp8_moe_kernel: Optional[bool] = None
    #: --quantization (None: the checkpoint's method, converted to its Marlin variant where vLLM does)
    quantization: Optional[str] = None
    #: --dtype ("auto": the checkpoint's)
    dtype: str = "auto"
    #: --moe-backend (KernelConfig.moe_backend; "auto": each MoE layer's own selection)
    moe_backend: str = "auto"
    #: --all2all-backend (None: the release's default)
    all2all_backend: Optional[str] = None
    #: CacheConfig.cache_dtype (--kv-cache-dtype, "auto" resolved from the checkpoint where the release does):
    #: DeepSeek-V4's sparse-MLA attention reads it while it is built
    kv_cache_dtype: str = "auto"
    #: --mm-encoder-tp-mode (MultiModalConfig.mm_encoder_tp_mode; "data": a vision encoder is not split by tp)
    mm_encoder_tp_mode: str = "weights"
    #: --limit-mm-per-prompt or --language-model-only given: a multimodal wrapper may build no vision tower
    mm_limits: bool = False
    #: --attention-backend (None: not given): DeepSeek-V4's model picks its attention class from it
    attention_backend: Optional[str] = None
    #: --enable-lora (a LoRAConfig built): Qwen3.5's wrappers build other projections with it (0.19.0 - 0.20.x)
    lora: bool = False

    def moe_sizes(self, release) -> tuple[int, int, bool]:
        """(MoE TP size, EP size, use_ep): ``FusedMoEParallelConfig.make``."""
        pcp = self.pcp if release.within("0.12.0") else 1
        flat = self.dp * pcp * self.tp
        use_ep = flat > 1 and self.ep
        return (1, flat, True) if use_ep else (flat, 1, False)

    def world_size(self, release) -> int:
        """torch.distributed's world size on a worker: ParallelConfig.world_size (tp x pp, x pcp from 0.12.0), times
        dp with more than one DP rank (``init_distributed_environment``)."""
        return self.pp * self.tp * (self.pcp if release.within("0.12.0") else 1) * self.dp

    def sp_moe(self, release) -> bool:
        """``ParallelConfig.use_sequence_parallel_moe`` with the default all2all backend."""
        return release.within("0.11.0") and self.ep and self.tp > 1 and self.dp > 1


def _is_layer_skipped(prefix: str, ignored: tuple[str, ...], shards: tuple[str, ...], release) -> bool:
    """vllm quant_utils.is_layer_skipped (exact match) with the model's packed-modules mapping."""
    proj = prefix.split(".")[-1]
    if shards:
        if release.within("0.24.0") and prefix in ignored:
            return True
        skipped = None
        for shard in shards:
            hit = prefix.replace(proj, shard) in ignored
            if skipped is None:
                skipped = hit
            elif hit != skipped:
                raise _Refused("MI_fused_shards", prefix=prefix)
        return bool(skipped)
    if "experts" in prefix and release.within("0.11.0"):
        return any(prefix in name for name in ignored if "experts" in name)
    return prefix in ignored


#: the first release whose FusedMoE (the MoE layer factory) asserts on redundant experts without EPLB whatever the
#: layout (before: only when the layer runs expert-parallel)
REDUNDANT_ASSERT_WITHOUT_EP_SINCE = "0.24.0"


def _require_int_sizes(layer: Layer, sizes: tuple) -> None:
    """A layer's sizes come from the config; one it leaves unset (None) or not an integer makes vLLM fail in
    its own arithmetic while building the layer, which kvguard does not model."""
    if any(type(size) is not int for size in sizes):
        raise _Unmodelled(f"model construction of {layer.prefix} with sizes {tuple(sizes)!r} (a size the config "
                          "leaves unset or not an integer) is not modelled")


def _lm_head(layer: Layer, launch: Launch, scheme: Optional[QuantScheme], release, skip: str) -> None:
    """ParallelLMHead under a ModelOpt config (kvguard.quant.modelopt_shards.lm_head): the vocabulary padded to a
    multiple of 64 and divided over tp (VocabParallelEmbedding.__init__), the method's create_weights on the unsplit
    hidden size (NVFP4: a multiple of 16), then, where the model ties the head through its method, the release's
    tie_weights (MI_lm_head_tie)."""
    _require_int_sizes(layer, (layer.input_size, *layer.output_sizes))
    vocab = layer.output_sizes[0]
    _divide(padded_vocabulary(vocab), launch.tp)
    if (scheme is not None and scheme.method == "modelopt_fp4" and skip == "quantized"
            and layer.input_size % _mo_shards.INPUT_MULTIPLE != 0):
        raise _Refused(_nvfp4_input_check(scheme), size=layer.input_size)
    if scheme is not None and scheme.method == MIXED_METHOD and skip.startswith("mixed"):
        _mixed_linear(skip, layer.prefix, layer.input_size, release)  # the unsplit hidden size
    if layer.names.get("tie") == "method" and release.within(*_mo_shards.TIE_RAISES):
        raise _Refused("MI_lm_head_tie")


def _nvfp4_input_check(scheme: QuantScheme) -> str:
    """The ModelOpt NVFP4 linear method's input-size refusal: the W4A16 method's own message where the release builds
    the layers with it (0.29.0's weight-only config groups), else the NVFP4 one."""
    return "MI_nvfp4a16_input" if scheme.modelopt_a16 else "MI_nvfp4_input"


def _row_applies(check_id: str, release) -> bool:
    """Whether the release has the refusal ``check_id``: its rule row (kvguard.rules.table) holds the range, so the
    model construction and the verdict cannot disagree on it."""
    from ..rules.table import RULES  # the rules import this package lazily; already loaded by ``import kvguard``

    return next(row for row in RULES if row.id == check_id).applies(release)


def _linear(layer: Layer, launch: Launch, scheme: Optional[QuantScheme], release, skip: str = "quantized",
            path: Optional[str] = None, family: Optional[str] = None) -> None:
    if layer.kind == "replicated":
        if (scheme is not None and scheme.method == "modelopt_fp4" and skip == "quantized" and layer.quantized
                and (not layer.prefix.endswith(".gate")
                     or family is not None and _wna16_moe.gate_quantized(family, scheme, release))):
            # a replicated projection built with the quantization config (DeepSeek's kv_a_proj_with_mqa without a
            # q LoRA; Qwen3-MoE's router gate, which the model hands the config in every release — Mixtral's,
            # DeepSeek's and MiniMax-M2's never take it): the NVFP4 input check on the whole input
            _require_int_sizes(layer, (layer.input_size, *layer.output_sizes))
            if layer.input_size % _mo_shards.INPUT_MULTIPLE != 0:
                raise _Refused(_nvfp4_input_check(scheme), size=layer.input_size)
        if (scheme is not None and scheme.method == MIXED_METHOD and skip.startswith("mixed") and layer.quantized
                and (not layer.prefix.endswith(".gate")
                     or family is not None and _wna16_moe.gate_quantized(family, scheme, release))):
            # the layer's own algorithm on the whole input (a router gate the model hands the config)
            _require_int_sizes(layer, (layer.input_size, *layer.output_sizes))
            _mixed_linear(skip, layer.prefix, layer.input_size, release)
        return
    if layer.kind == "vocab":
        # VocabParallelEmbedding: the vocabulary padded to a multiple of 64, divided over tp
        vocab = layer.output_sizes[0]
        _divide(padded_vocabulary(vocab), launch.tp)
        return
    if skip == "ct_unmodelled":
        raise _Unmodelled(f"which layers the compressed-tensors checkpoint's ignore list leaves unquantized (it may "
                          f"name {layer.prefix} or a shard of it) is not modelled")
    if (scheme is not None and scheme.method == CT_METHOD and layer.prefix.endswith(".self_attn.fused_qkv_a_proj")
            and skip == "quantized" and _row_applies("MI_ct_no_target", release)):
        # DeepSeek's MLA: 0.17.x builds the layer as DeepSeekV2FusedQkvAProj, whose class name does not contain the
        # "Linear" target and whose shards' names do not match it either, so find_matched_target refuses the layer
        # it does not ignore (0.18.0 renames the class DeepSeekV2FusedQkvAProjLinear); its tp is disabled, so no
        # sharding check comes first
        raise _Refused("MI_ct_no_target", prefix=layer.prefix)
    # "sp_moe_pp1": the MoE runs sequence-parallel and there is a single pipeline stage (DeepSeek-V3.2's CUDA decoder
    # layer, 0.29.0+, builds its dense MLP replicated then)
    disable = (layer.disable_tp == "sp_moe" and launch.sp_moe(release) or layer.disable_tp is True
               or layer.disable_tp == "sp_moe_pp1" and launch.sp_moe(release) and launch.pp == 1
               or layer.disable_tp == TOWER_DATA_PARALLEL and launch.mm_encoder_tp_mode == "data"
               or layer.disable_tp == _WNA16_REPLICATED and _wna16_marlin_config(scheme, path, release))
    tp = 1 if disable else launch.tp
    if layer.kind == "qkv":
        hidden, head, heads, kv = layer.qkv
        per_heads = _divide(heads, tp)
        if tp >= kv:
            per_kv = 1
            _divide(tp, kv)
        else:
            per_kv = _divide(kv, tp)
        outputs: tuple[int, ...] = (per_heads * head * tp, per_kv * head * tp, per_kv * (layer.v_head_size or head) * tp)
        input_size, output_size = hidden, sum(outputs)
    else:
        input_size, outputs = layer.input_size, layer.output_sizes
        output_size = sum(outputs)
    if layer.kind == "row":
        ipp = _divide(input_size, tp)
        parts = [output_size]
    else:
        if layer.kind == "merged" and not all(o % tp == 0 for o in outputs):
            raise _Refused("MI_merged_assert")
        ipp = input_size
        _divide(output_size, tp)
        parts = [_divide(o, tp) for o in outputs] if layer.kind in ("qkv", "merged") else [output_size // tp]
    if not layer.quantized:
        # built with quant_config=None (DeepSeek-V3.2's indexer wk_weights_proj): the sharding is all that is checked
        return
    if skip == "ct_fused_error":
        # get_scheme's should_ignore_layer, after the sharding and before any scheme is looked up
        raise _Refused("MI_ct_fused_ignore", prefix=layer.prefix, shards=list(layer.shards))
    if skip == "skipped" and scheme is not None and scheme.method == CT_METHOD:
        return      # an ignored layer is built unquantized: its sharding is all that is checked
    if path == "no_scheme":
        raise _Refused("MI_ct_no_scheme")
    if path == "nvfp4_fp8_refused":
        # compressed-tensors NVFP4 weights with FP8 activations (kvguard.quant.compressed_tensors.NVFP4_FP8_REFUSED)
        raise _Refused("MI_ct_nvfp4_activations")
    if scheme is not None and path is not None and skip != "skipped":
        if skip == "fused_error":
            # the quantization config's is_layer_skipped, after the sharding and before create_weights
            raise _Refused("MI_fused_shards", prefix=layer.prefix)
        _wna16_layer(layer.prefix, scheme, path, input_size, ipp, sum(parts))
        return
    if scheme is not None and scheme.method == MIXED_METHOD:
        if skip == "fused_error":
            # ModelOpt's is_layer_excluded, after the sharding and before the layer's algorithm is looked up
            raise _Refused("MI_fused_shards", prefix=layer.prefix)
        if skip.startswith("mixed"):
            _mixed_linear(skip, layer.prefix, ipp, release)
        return
    if scheme is not None and scheme.method in MODELOPT_SHARD_METHODS:
        if skip == "fused_error":
            # ModelOpt's is_layer_excluded, after the sharding and before create_weights
            raise _Refused("MI_fused_shards", prefix=layer.prefix)
        if skip != "skipped" and scheme.method == "modelopt_fp4" and ipp % _mo_shards.INPUT_MULTIPLE != 0:
            raise _Refused(_nvfp4_input_check(scheme), size=ipp)
    if scheme is None or scheme.method not in ("fp8", CT_METHOD):
        return
    if skip == "fused_error":
        raise _Refused("MI_fused_shards", prefix=layer.prefix)
    if skip == "skipped" or scheme.block is None:
        return
    block_n, block_k = scheme.block
    if (scheme.method == "fp8" and release.within("0.14.0") and layer.kind != "row" and len(parts) > 1
            and any(p % block_n != 0 for p in parts)):
        return  # ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch
    if tp > 1 and input_size // ipp == tp and ipp % block_k != 0:
        raise _Refused("MI_fp8_block_k", size=ipp, block=block_k)
    is_tp_split = tp > 1 and output_size // sum(parts) == tp
    merged = len(parts) > 1
    if is_tp_split or merged:
        check = parts if is_tp_split else parts[:-1]
        for size in check:
            if size % block_n != 0:
                raise _Refused("MI_fp8_block_n", size=size, block=block_n)


def _moe(layer: Layer, launch: Launch, scheme: Optional[QuantScheme], release, needs: list,
         skip: str = "quantized") -> None:
    experts, hidden, intermediate, passes_eplb = layer.moe
    compressed = scheme is not None and scheme.method == CT_METHOD
    if compressed and skip == "ct_unmodelled":
        raise _Unmodelled(f"which MoE layers the compressed-tensors checkpoint's ignore list leaves unquantized (it "
                          f"may name {layer.prefix} or its experts' projections) is not modelled")
    moe_tp, ep_size, use_ep = launch.moe_sizes(release)
    eplb = launch.eplb and passes_eplb
    redundant = launch.redundant if passes_eplb else 0
    total = experts + redundant
    if eplb and use_ep and total % ep_size != 0:
        raise _Refused("MI_eplb_even", experts=total, ep_size=ep_size)
    if (not passes_eplb and layer.redundant_without_eplb and launch.redundant != 0
            and (use_ep or release.within(REDUNDANT_ASSERT_WITHOUT_EP_SINCE))):
        # FusedMoE's other branch: without enable_eplb it asserts that no redundant experts came with the layer (up
        # to 0.23.0 only under expert parallelism; from 0.24.0, in the MoE layer factory, whatever the layout)
        raise _Refused("MI_redundant_without_eplb")
    if intermediate % moe_tp != 0:
        raise _Refused("MI_moe_intermediate")
    ispp = intermediate // moe_tp
    nvfp4_experts = compressed and scheme is not None and scheme.ct == "nvfp4" and skip != "skipped"
    if nvfp4_experts and scheme is not None and scheme.ct_weight_only and _ct.nvfp4a16_moe_refused(release):
        # get_moe_method (up to 0.13.x) finds no test for NVFP4A16 experts before one that reads the activations'
        # num_bits (kvguard.quant.compressed_tensors.NVFP4A16_MOE_READ): after the assert above, before the EPLB check
        raise _Refused("MI_ct_nvfp4a16_moe")
    if compressed and eplb and not release.within("0.11.1"):
        # the method is built, then FusedMoE takes EPLB only with Fp8MoEMethod or unquantized experts (0.11.1+:
        # CompressedTensorsW8A8Fp8MoEMethod.supports_eplb is True); the block shape is checked after
        raise _Refused("MI_eplb_unsupported")
    if nvfp4_experts and _wna16_moe.eplb_applies(launch.eplb, passes_eplb, release):
        # the NVFP4 MoE method is built (its backend choice, FP4 Marlin on the default host, refuses nothing), then
        # FusedMoE asks whether it takes EPLB: no backend the default host picks does
        raise _Refused("MI_eplb_unsupported", method=_ct.nvfp4_moe_class(release))
    if (scheme is not None and scheme.method in MODELOPT_SHARD_METHODS and skip != "skipped"
            and _wna16_moe.eplb_applies(launch.eplb, passes_eplb, release)):
        # the ModelOpt experts' method is built (its backend choice refuses nothing on the default host), then
        # FusedMoE asks whether it takes EPLB
        refusal = _mo_shards.eplb_refusal(scheme.method, release)
        if refusal is not None:
            raise _Refused("MI_eplb_unsupported", **refusal)
    if scheme is not None and scheme.method == MIXED_METHOD and skip == "skipped":
        _mixed_unquantized_experts(layer.prefix, hidden, release)
    if scheme is not None and scheme.method == MIXED_METHOD and skip.startswith("mixed"):
        # the experts' method by their algorithm (kvguard.quant.modelopt_mixed), then FusedMoE's EPLB question
        algo = _mixed_algo(skip, layer.prefix)
        why = _mixed.experts_unmodelled(algo)
        if why is not None:
            raise _Unmodelled(why)
        method = _mixed.experts_method(algo, release)
        if method is None:
            _mixed_unquantized_experts(layer.prefix, hidden, release)
        if method is not None and _wna16_moe.eplb_applies(launch.eplb, passes_eplb, release):
            refusal = _mo_shards.eplb_refusal(method, release)
            if refusal is not None:
                raise _Refused("MI_eplb_unsupported", **refusal)
    if (scheme is not None and scheme.method == "mxfp4"
            and _wna16_moe.eplb_applies(launch.eplb, passes_eplb, release)):
        # gpt-oss's MXFP4 experts (kvguard.quant.gpt_oss): the method is built (its backend choice refuses nothing on
        # the default host), then the MoE layer asks whether it takes EPLB (0.24.0+)
        refusal = _gpt_oss.eplb_refusal(release)
        if refusal is not None:
            raise _Refused("MI_eplb_unsupported", **refusal)
    if scheme is None or scheme.method not in ("fp8", CT_METHOD) or scheme.block is None:
        return
    if skip == "skipped":
        return
    block_n, block_k = scheme.block
    tp = launch.tp  # get_tensor_model_parallel_world_size(): the attention TP group
    refined = False
    # (CompressedTensorsW8A8Fp8MoEMethod validates the block shape as it is: no release refines its block scales)
    if not compressed and release.within("0.29.0") and not (ispp % block_n == 0 and (moe_tp == 1 or ispp % block_k == 0)):
        refine = math.gcd(block_n, block_k, ispp, hidden)
        if refine >= 32:
            # the refined block shape is served only by kernels that take it as an argument (Triton):
            # whether the host's MoE kernel selection has one is a host fact
            needs.append("refined_fp8_moe_kernel")
            if launch.refined_fp8_moe_kernel is None:
                raise _Unknown("refined_fp8_moe_kernel")
            if not launch.refined_fp8_moe_kernel:
                raise _Unmodelled("the MoE kernel selection without a kernel for refined FP8 block scales is not "
                                  "modelled")
            refined = True
    if refined:
        return
    if ispp % block_n != 0:
        raise _Refused("MI_fp8_moe_block_n", size=ispp, block=block_n)
    if tp > 1 and ispp % block_k != 0:
        raise _Refused("MI_fp8_moe_block_k", size=ispp, block=block_k)


# ---------------------------------------------------------------------------
# AWQ / GPTQ (integer weights, 16-bit activations) on the default host: CUDA, compute capability 9.0

_WNA16 = ("awq", "gptq")
#: vllm marlin_utils.GPTQ_MARLIN_MIN_THREAD_N / _K: the per-rank shape Marlin takes without padding
_MARLIN_MIN_N, _MARLIN_MIN_K = 64, 128


def _wna16_path(scheme: QuantScheme, release, user: Optional[str], top: Mapping[str, Any]) -> str:
    """Which kernels build the layers: ``marlin`` (the Marlin layer check then, where it fails, the plain
    kernels), ``plain`` (the plain AWQ kernels' checks), ``gptq_marlin`` (the mixed-precision kernel choice),
    or ``unmodelled:<reason>``.  The conversion (``override_quantization_method``) happens on CUDA when the
    checkpoint fits a Marlin kernel on the GPU (compute capability 9.0 here) unless --quantization names
    another method; from 0.24.0 (AWQ) / 0.22.0 (GPTQ) one unified method takes every AWQ / GPTQ name."""
    if scheme.method == "awq":
        # the Marlin kernels carry AWQ's zero points only for 4-bit weights (uint4)
        fits_marlin = scheme.zero_point and scheme.group_size in _MARLIN_GROUP_SIZES
        if release.within("0.24.0"):
            if user not in (None, "awq", "awq_marlin", "auto_awq", "marlin"):
                return f"unmodelled:--quantization {user} with an AWQ checkpoint is not modelled"
            return "marlin_padded" if fits_marlin else "plain"
        if fits_marlin and user in (None, "marlin", "awq_marlin"):
            return "marlin"
        if user not in (None, "awq"):
            return f"unmodelled:--quantization {user} with an AWQ checkpoint is not modelled"
        dtype = top.get("torch_dtype") or top.get("dtype")
        if dtype != "float16":
            # the plain AWQ kernels run float16 activations only: the config check on the model's dtype
            # (which --dtype may change) is not modelled
            return (f"unmodelled:the plain awq kernels' dtype check (float16 only; config dtype {dtype!r}) is "
                    f"not modelled")
        return "plain"
    if release.within("0.22.0"):
        if user not in (None, "gptq", "gptq_marlin", "auto_gptq", "marlin"):
            return f"unmodelled:--quantization {user} with a GPTQ checkpoint is not modelled"
        if release.within("0.30.0") and scheme.desc_act and scheme.group_size != -1:
            return "unmodelled:GPTQ desc_act=True (refused by the quantization config from 0.30.0) is not modelled"
        padded = release.within("0.24.0") and not (scheme.desc_act and not release.within("0.30.0"))
        return "gptq_marlin_padded" if padded else "gptq_marlin"
    if user not in (None, "marlin", "gptq_marlin"):
        return f"unmodelled:--quantization {user} with a GPTQ checkpoint (the plain GPTQ kernels) is not modelled"
    return "gptq_marlin"


#: a Layer's ``disable_tp`` that replicates it under the Marlin-capable AWQ / GPTQ configs (Qwen3.5's in_proj_ba,
#: 0.22.0+: the gated delta net's ``maybe_disable_tp`` on CUDA keeps each rank's output above Marlin's minimum)
_WNA16_REPLICATED = "wna16_marlin"


def _wna16_marlin_config(scheme: Optional[QuantScheme], path: Optional[str], release) -> bool:
    """Whether the release builds the checkpoint with one of the config classes the gated delta net replicates
    in_proj_ba for on CUDA: AWQMarlinConfig up to 0.23.x (the Marlin conversion, path ``marlin``; ``--quantization
    awq``'s plain AWQConfig is not one), AutoAWQConfig from 0.24.0 (every AWQ name), AutoGPTQConfig (0.22.0+)."""
    if scheme is None or scheme.method not in _WNA16 or path is None:
        return False
    if scheme.method == "gptq" or release.within("0.24.0"):
        return True
    return path == "marlin"


def _marlin_takes(input_size: int, ipp: int, opp: int, group: int, padded: bool) -> bool:
    """Whether Marlin takes the layer's per-rank shape: the thread tiles (unless the release pads the weight
    to them) and a quantization group that does not straddle two ranks."""
    straddles = group != -1 and group < input_size and ipp % group != 0
    if padded:
        return not straddles
    return opp % _MARLIN_MIN_N == 0 and ipp % _MARLIN_MIN_K == 0 and not straddles


def _wna16_layer(prefix: str, scheme: QuantScheme, path: str, input_size: int, ipp: int, opp: int) -> None:
    """The AWQ / GPTQ checks of one quantized linear layer (per-rank input ``ipp``, output ``opp``)."""
    group = scheme.group_size
    if path.startswith("gptq_marlin"):
        if not _marlin_takes(input_size, ipp, opp, group, path.endswith("_padded")):
            # the mixed-precision kernel choice then tries the other kernels, whose answers (and the refusal's
            # list of reasons) depend on the packages the host has installed
            raise _Unmodelled(f"the GPU kernel choice for {prefix} (per-rank input {ipp}, output {opp}), which "
                              f"Marlin cannot run, is not modelled")
        return
    if path.startswith("marlin") and _marlin_takes(input_size, ipp, opp, group, path.endswith("_padded")):
        return
    # the plain AWQ kernels (chosen, or Marlin's fall-back for this layer): whole groups and packed words per rank
    whole = group if group != -1 else input_size
    if ipp % whole != 0:
        raise _Refused("MI_awq_input", size=ipp, group=whole, input=input_size)
    if opp % (32 // scheme.bits) != 0:
        raise _Refused("MI_awq_output", size=opp, pack=32 // scheme.bits)


def _wna16_skip_state(layer: Layer, scheme: QuantScheme, release) -> str:
    """AWQ's modules_to_not_convert (a listed name that is part of the prefix leaves the layer unquantized), with
    the model's packed-modules mapping for fused layers (``layer.shards``, which ``configure_quant_config`` hands to
    the quantization config):

    - up to 0.11.0 ``is_layer_skipped_awq``: the fused layer by its own name;
    - 0.11.1+ ``is_layer_skipped`` (substring matching): shard by shard, a fused layer whose shards disagree is a
      ValueError (``fused_error``: ``MI_fused_shards``); from 0.24.0 a match of the fused name itself comes first
      (skipped)."""
    if scheme.method != "awq" or not scheme.ignored:
        return "quantized"

    def listed(name: str) -> bool:
        return any(m in name for m in scheme.ignored)

    if not layer.shards or not release.within("0.11.1"):
        return "skipped" if listed(layer.prefix) else "quantized"
    if release.within("0.24.0") and listed(layer.prefix):
        return "skipped"
    proj = layer.prefix.split(".")[-1]
    hits = {listed(layer.prefix.replace(proj, shard)) for shard in layer.shards}
    if hits == {True}:
        return "skipped"
    return "quantized" if hits == {False} else "fused_error"


def _wna16_experts(layer: Layer, launch: Launch, scheme: QuantScheme, path: str, release, skip: str) -> None:
    """The AWQ / GPTQ method of a MoE layer (kvguard.quant.wna16_moe) at the launch's per-rank size."""
    _, hidden, intermediate, passes_eplb = layer.moe
    moe_tp, _, use_ep = launch.moe_sizes(release)
    eplb = _wna16_moe.eplb_applies(launch.eplb, passes_eplb, release)
    if scheme.method == CT_METHOD:
        if skip == "quantized":
            _wna16_moe.compressed_tensors_experts(
                layer.prefix, hidden, intermediate // moe_tp, scheme, release, _Refused, _Unmodelled, eplb=eplb,
                selection=_wna16_moe.Selection(launch.moe_backend, launch.all2all_backend, use_ep),
                router_on_input=layer.router_on_input)
        return
    _wna16_moe.experts(layer.prefix, hidden, intermediate // moe_tp, scheme, path, release, skip, _Refused,
                       _Unmodelled, eplb=eplb,
                       selection=_wna16_moe.Selection(launch.moe_backend, launch.all2all_backend, use_ep))


class _Unknown(Exception):
    """A host fact the answer needs is unknown."""


class _Unmodelled(Exception):
    """kvguard does not model what decides the answer."""


class ModelInitBug(RuntimeError):
    """kvguard's own failure while walking the model's layers (never a verdict: the engine lets a
    RuntimeError through, and the API reports it as kvguard.InternalError)."""


#: the config sizes the layer data reads: a config whose sizes are not positive integers (0, a string, a
#: float) is not walked — vLLM's own arithmetic on it is not modelled
_SIZES = ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
          "moe_intermediate_size", "num_experts", "n_routed_experts", "num_local_experts", "q_lora_rank",
          "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "vocab_size", "num_hidden_layers",
          "n_shared_experts", "decoder_sparse_step", "moe_layer_freq")


def _degenerate(facts, launch: Launch) -> Optional[str]:
    for name in ("tp", "dp", "pcp", "pp"):
        value = getattr(launch, name)
        if type(value) is not int or value < 1:
            return f"{name}={value!r}"
    if type(launch.redundant) is not int or launch.redundant < 0:
        return f"num_redundant_experts={launch.redundant!r}"
    dsv4 = (facts.architectures or [None])[0] == DSV4_ARCH
    ernie45_vl = ERNIE45_VL_ARCH in (facts.architectures or ())
    walked = family_of(facts.architectures) is not None
    for name in _SIZES:
        value = facts.resolved.get(name)
        if name == "moe_layer_freq" and (not walked or isinstance(value, list)):
            # read only by the families' MoE-layer test: an architecture kvguard does not walk may give it otherwise,
            # and a per-layer list (MiMo-V2-Flash's flags) is indexed by the family that reads one; another family's
            # arithmetic on a list is an expression error (not modelled)
            continue
        if name == "n_shared_experts" and dsv4 and value == 0 and type(value) is int:
            continue  # DeepSeek-V4 builds its shared experts empty (kvguard.quant.dsv4 decides it)
        if name == "moe_intermediate_size" and ernie45_vl and isinstance(value, list):
            continue  # ERNIE-4.5-VL's per expert group sizes: read past the head split kvguard.quant.ernie45_vl decides
        if value is not None and (type(value) is not int or value < 1):
            return f"{name}={value!r}"
    fk = facts.resolved.get("first_k_dense_replace")
    if fk is not None and (type(fk) is not int or fk < 0):
        return f"first_k_dense_replace={fk!r}"
    return None


#: outcomes per facts object, release and launch sizes
_OUTCOMES = PerFacts(limit=8192)


def outcome(facts, release, launch: Launch) -> Outcome:
    """The model-construction outcome of a launch (see :class:`Outcome`), kept per facts object,
    release and launch sizes (plan and scan ask the same model many times)."""
    key = (release.version, release.patches, launch.tp, launch.dp, launch.pcp, launch.pp, launch.ep, launch.eplb,
           launch.redundant, launch.refined_fp8_moe_kernel, launch.quantization, launch.dtype, launch.moe_backend,
           launch.all2all_backend, launch.mm_encoder_tp_mode, launch.kv_cache_dtype, launch.mm_limits,
           launch.attention_backend, launch.lora)
    return _OUTCOMES.get(facts, key, lambda: _decide(facts, release, launch))


def _decide(facts, release, launch: Launch) -> Outcome:
    bad = _degenerate(facts, launch)
    if bad is not None:
        return Outcome(unmodelled=f"model construction with {bad} is not modelled")
    try:
        return _outcome(facts, release, launch)
    except ExpressionError as exc:
        return Outcome(unmodelled=f"model construction with the config's values is not modelled ({exc})")
    except ModelInitBug:
        raise
    except Exception as exc:  # noqa: BLE001 - a failure of kvguard's own walk, not vLLM's verdict
        raise ModelInitBug(f"kvguard.quant: {type(exc).__name__}: {exc}") from exc


#: why DeepSeek-V4's construction stays open where kvguard.quant.dsv4 does not decide it (before 0.20.0, other forms):
#: the CUDA implementation builds its own sparse-MLA attention, hyper-connection and hash-routed MoE modules, and
#: its FP4 experts' method picks an MXFP4 MoE kernel on the GPU (docs/model-construction.md)
_DSV4_CONSTRUCTION = ("the model construction of DeepseekV4ForCausalLM (vLLM's CUDA implementation: sparse-MLA "
                      "attention, block-FP8 linears, MXFP4 / FP8 experts and their MoE kernel selection) is not "
                      "modelled")


def _dsv4_outcome(facts, release, launch: Launch, scheme: QuantScheme) -> Outcome:
    """DeepSeek-V4's CUDA model built on the default host (kvguard.quant.dsv4), in construction order; before
    0.20.0 and outside what that module decides, the reason it stays open."""
    from . import dsv4_fp8 as _dsv4_fp8

    resolved = facts.resolved
    quant_cfg = facts.resolved_top.get("quantization_config") or resolved.get("quantization_config") or {}
    user = launch.quantization.lower() if isinstance(launch.quantization, str) else None
    claimed = _dsv4_fp8.claim(scheme.method, user, facts.resolved_top.get("model_type"), release)
    why = _dsv4.unmodelled(resolved, quant_cfg, facts.architectures, release, claimed=claimed,
                           moe_backend=launch.moe_backend, all2all_backend=launch.all2all_backend,
                           dtype=launch.dtype, attention=launch.attention_backend)
    if why is not None:
        reason = why if release.within(_dsv4.SINCE) else f"{_DSV4_CONSTRUCTION} ({why})"
        return Outcome(unmodelled=reason)
    block_n, block_k = quant_cfg["weight_block_size"]
    fp8 = QuantScheme("fp8", block=(block_n, block_k))
    tp = launch.tp
    heads, head_dim, groups = resolved["num_attention_heads"], resolved["head_dim"], resolved["o_groups"]
    hidden = resolved["hidden_size"]
    # past _dsv4.unmodelled, a MegaMoE name is deep_gemm_mega_moe on the released routing (kvguard.quant.dsv4)
    mega = _dsv4.mega_experts_path(launch.moe_backend, release)
    if mega and not launch.ep:
        # from 0.21.0 DeepseekV4Model refuses the MegaMoE path without expert parallel before any layer
        # (MI_dsv4_mega_moe_ep); 0.20.x builds the fused experts with the name (not modelled)
        return Outcome(unmodelled=f"the model construction of {_dsv4.ARCH} with --moe-backend {launch.moe_backend} "
                                  f"without expert parallel is not modelled")
    # DeepseekV4DecoderLayer: the MoE runs sequence-parallel (its shared experts replicated) with expert parallel,
    # tp > 1 and dp > 1 (or the MegaMoE path, whatever dp) on one pipeline stage
    sequence_parallel = launch.pp == 1 and launch.ep and tp > 1 and (launch.dp > 1 or mega)
    root = "model.layers.0"
    heads_rank = heads // tp
    heads_step = ("MI_dsv4_flashmla_heads", f"{root}.attn", heads_rank > _dsv4.FLASHMLA_MAX_HEADS,
                  {"heads": heads_rank})
    # picking the attention class (0.24.0+) refuses the generic FlashInfer sparse-MLA backends by name
    attn_step = ("MI_dsv4_attention_backend", f"{root}.attn",
                 _dsv4.attention_refused(launch.attention_backend, release),
                 {"backend": _dsv4.attention_backend(launch.attention_backend, release)})
    steps: list = []
    if release.within(*_dsv4.MODEL_HEADS):
        # 0.27.0 - 0.28.0: DeepseekV4Model asks the attention class for its padded head count before any layer
        # (picking the class first)
        steps += [attn_step, heads_step]
    steps += [Layer(-1, "model.embed_tokens", "vocab", output_sizes=(resolved["vocab_size"],)), attn_step,
              ("MI_attn_assert", f"{root}.attn", heads % tp != 0, {})]
    if release.within(_dsv4.HEADS_BEFORE_LINEARS):
        steps.append(heads_step)
    experts_dtype = _dsv4.expert_dtype(resolved, release)
    # the first block-FP8 linear's method asks the config for its scale dtype, which resolves expert_dtype
    steps.append(("MI_dsv4_expert_dtype", f"{root}.attn.fused_wqa_wkv", experts_dtype not in _dsv4.EXPERT_DTYPES,
                  {"value": repr(experts_dtype)}))
    steps += [Layer(0, f"{root}.attn.fused_wqa_wkv", "merged", input_size=hidden,
                    output_sizes=(resolved["q_lora_rank"], head_dim), disable_tp=True),
              Layer(0, f"{root}.attn.wq_b", "column", input_size=resolved["q_lora_rank"],
                    output_sizes=(heads * head_dim,)),
              Layer(0, f"{root}.attn.wo_a", "column", input_size=heads * head_dim // groups,
                    output_sizes=(groups * resolved["o_lora_rank"],)),
              Layer(0, f"{root}.attn.wo_b", "row", input_size=groups * resolved["o_lora_rank"],
                    output_sizes=(hidden,))]
    if not release.within(_dsv4.HEADS_BEFORE_LINEARS):
        # before 0.23.0 the MLA wrapper built after the projections checks the heads (0.20.x - 0.21.0 with its own
        # message, 0.22.x through FlashMLA's padding)
        steps.append(("MI_dsv4_attn_heads" if not release.within("0.22.0") else heads_step[0], f"{root}.attn",
                      heads_rank > _dsv4.FLASHMLA_MAX_HEADS, {"heads": heads_rank}))
    steps.append(("MI_dsv4_kv_cache_dtype", f"{root}.attn", _dsv4.kv_cache_refused(launch.kv_cache_dtype, release),
                  {"kv": launch.kv_cache_dtype}))
    sequence_parallel = sequence_parallel and release.within(_dsv4.SP_SHARED_EXPERTS)
    if _dsv4.shared_experts_missing(resolved):
        # the MoE block reads config.n_shared_experts after its router: no default before 0.33.0
        steps.append(("MI_dsv4_shared_experts_attr", f"{root}.ffn", True, {}))
    elif resolved["n_shared_experts"] is not None:  # None: the MoE block builds no shared experts
        shared = resolved["moe_intermediate_size"] * resolved["n_shared_experts"]
        size = (_dsv4.shared_intermediate(shared, block_n, tp, sequence_parallel)
                if release.within(_dsv4.SHARED_ROUNDED) else shared)
        if size == 0:
            # no shared experts' rows (n_shared_experts 0, or under one weight block once rounded to whole
            # blocks): the block-FP8 validation of the split gate/up projection divides by its empty per-rank
            # output when tp splits it; unsplit, an empty projection passes every check
            steps.append(("MI_dsv4_shared_experts_empty", f"{root}.ffn.shared_experts.gate_up_proj",
                          tp > 1 and not sequence_parallel, {}))
        else:
            steps += [Layer(0, f"{root}.ffn.shared_experts.gate_up_proj", "merged", input_size=hidden,
                            output_sizes=(size, size), disable_tp=sequence_parallel),
                      Layer(0, f"{root}.ffn.shared_experts.down_proj", "row", input_size=size,
                            output_sizes=(hidden,), disable_tp=sequence_parallel)]
    if mega:
        # DeepseekV4MoE._init_mega_moe_experts: the EP group (dp x pcp x tp ranks) must divide the experts; the
        # DeepGEMM MegaMoE experts built after it are checked on the GPU (left open)
        indivisible = _dsv4.mega_experts_indivisible(resolved["n_routed_experts"], launch.redundant,
                                                     launch.dp * launch.pcp * tp, release)
        steps.append(("MI_dsv4_mega_moe_experts", f"{root}.ffn", indivisible is not None, indivisible or {}))
    elif not release.within(_dsv4.TP_EXPERTS_MESSAGE):
        # 0.20.0 - 0.23.0: a bare assert on the routed experts alone
        steps.append(("MI_dsv4_experts_tp", f"{root}.ffn", resolved["n_routed_experts"] % tp != 0, {}))
    elif not release.within(_dsv4.TP_EXPERTS_DROPPED):
        physical = resolved["n_routed_experts"] + launch.redundant
        steps.append(("MI_dsv4_experts_tp", f"{root}.ffn", physical % tp != 0,
                      {"experts": physical, "tp": tp}))
    # before 0.24.0 the routed experts are built without EPLB's arguments (no redundant experts, no even split)
    if not mega:
        steps.append(Layer(0, f"{root}.ffn.experts", "moe",
                           moe=(resolved["n_routed_experts"], hidden, resolved["moe_intermediate_size"],
                                release.within(_dsv4.EPLB_PASSED))))
    nvfp4 = not mega and _dsv4.nvfp4_experts(experts_dtype, quant_cfg, release)
    needs = ["dsv4_default_host"] + (["dsv4_nvfp4_experts"] if nvfp4 else [])
    experts_open = _dsv4.experts_backend_open(experts_dtype, quant_cfg, launch.moe_backend, release, resolved)
    backend_refusal = _dsv4.experts_backend_refusal(experts_dtype, quant_cfg, launch.moe_backend, release, resolved)
    for step in steps:
        try:
            if isinstance(step, tuple):
                check, prefix, fires, values = step
                if fires:
                    return Outcome(check, values, prefix, tuple(needs))
            elif step.kind == "moe" and (experts_open is not None or backend_refusal is not None):
                # a named backend the experts' method maps to its kernel family when it is built, after FusedMoE's
                # own checks: a name its map lacks is refused on every GPU; the named kernel's support is a
                # question of the GPU
                _moe(step, launch, None, release, needs)
                if backend_refusal is not None:
                    return Outcome(backend_refusal[0], backend_refusal[1], step.prefix, tuple(needs))
                return Outcome(unmodelled=experts_open)
            elif step.kind == "moe":
                # the MXFP4 experts on the default host (Marlin) check no size and take EPLB: FusedMoE's own checks;
                # FP8 experts (expert_dtype fp8): the block-FP8 MoE method's as well
                _moe(step, launch, fp8 if experts_dtype == "fp8" else None, release, needs)
                if nvfp4 and _dsv4.nvfp4_clamp_refused(resolved, release):
                    # ModelOpt's NVFP4 experts' method picks its backend once FusedMoE's checks pass: before
                    # 0.24.0 clamped experts may take FlashInfer TRT-LLM only, which compute capability 9.0 lacks
                    # (NVFP4 experts take EPLB: no refusal of their own after it)
                    return Outcome("MI_dsv4_nvfp4_moe_backend", {}, step.prefix, tuple(needs))
            else:
                _linear(step, launch, fp8, release)
        except _Refused as exc:
            return Outcome(exc.check, exc.values, step.prefix, tuple(needs))
    if mega:
        return Outcome(needs=tuple(needs), unmodelled=(
            f"the model construction of {_dsv4.ARCH}'s DeepGEMM MegaMoE experts (--moe-backend "
            f"{launch.moe_backend}; built on the GPU after the layers before them and the experts' EP-size assert, "
            f"which this launch passes) is not modelled"))
    # built: with --enable-eplb, a model that implements no MixtureOfExperts leaves the worker nothing to balance
    return Outcome(needs=tuple(needs), eplb_without_moe_model=launch.eplb and not release.within(
        _dsv4.MIXTURE_OF_EXPERTS))


def _sp_moe_shared_experts(family: str, scheme: QuantScheme, launch: Launch, release) -> Optional[str]:
    """Why an integer-weight checkpoint's shared experts (DeepSeek's, split by tp unless the MoE runs
    sequence-parallel) are not decided for this launch, or None."""
    if (launch.all2all_backend is not None and launch.sp_moe(release)
            and any(item.get("disable_tp") == "sp_moe" for item in _families()[family]["layer"])):
        # ParallelConfig.use_sequence_parallel_moe holds for some all2all backends only (a list that grows by
        # release): whether the shared experts are split by tp is not modelled for a named backend
        return (f"the sequence-parallel MoE path with --all2all-backend {launch.all2all_backend} ({scheme.method} "
                f"shared experts) is not modelled")
    return None


def _names_no_method(facts, release, launch: Launch) -> bool:
    """Whether ModelConfig ends without a quantization method for a quantization config that names none (no
    ``quant_method``, nothing the release's normalization or an override names: kvguard.quant.verify): from 0.11.0
    an empty method reads as None, and the release builds the model unquantized."""
    from . import verify as _verify

    out = _verify.verify(facts.resolved_top, facts.resolved, release, launch.quantization)
    return out.check is None and out.unmodelled is None and not out.deferred and out.quantization is None


def _family_unmodelled(family: str, facts, release, scheme: Optional[QuantScheme], pp: int = 1) -> Optional[str]:
    """Why a family's data does not decide this config in this release (kvguard/data/quant_archs.json: a family's
    ``until`` / ``until_reason``, the ``activation`` its MLP requires, its ``unmodelled`` conditions, those of
    ``unmodelled_launch`` that also read the launch's pipeline size ``pp``, the checkpoint ``methods`` it is proven
    with), or None."""
    fam = _families()[family]
    archs = ", ".join(facts.architectures)
    until = fam.get("until")
    if until is not None and not release.within(None, until):
        return f"{fam.get('until_reason') or f'the model construction of {archs} after vLLM {until}'} is not modelled"
    activation = fam.get("activation")
    attr = fam.get("activation_attr", "hidden_act")
    value = facts.resolved.get(attr, activation)
    if activation is not None and value != activation:
        # the model's MLP refuses another activation (a ValueError of its own, not modelled)
        return f"the model construction of {archs} with {attr} {value!r} is not modelled"
    conditions: list[tuple[dict, dict[str, int]]] = [(item, {}) for item in fam.get("unmodelled") or ()
                                                     if not item.get("after_layers")]
    conditions += [(item, {"pp": pp}) for item in fam.get("unmodelled_launch") or ()]
    why = _condition_met(conditions, fam, facts, release)
    if why is not None:
        return why
    methods = fam.get("methods")
    method = scheme.method if scheme is not None else None
    if methods is not None and scheme is not None and not scheme.modelled and scheme.method.startswith("modelopt"):
        # config.json's flat ModelOpt layout (quant_method modelopt, quant_algo beside it: nvidia/GLM-5.1-NVFP4)
        # names its method only through ModelOpt's overrides (modelopt -> modelopt_fp4 in every release:
        # kvguard.quant.modelopt.claim); the family's methods are the method the release builds with
        quant_cfg = facts.resolved_top.get("quantization_config") or facts.resolved.get("quantization_config") or {}
        claimed, why = _modelopt_read(quant_cfg, family, release)
        if why is not None:
            return why  # (the ModelOpt config kvguard does not read, or an algorithm it does not model)
        method = claimed or method
    if methods is not None and method is not None and method not in methods:
        return f"the {method} weight-shard checks of {archs} are not modelled"
    return None


def _condition_met(conditions: list, fam: dict, facts, release) -> Optional[str]:
    """Why the first of a family's ``unmodelled`` conditions (item, launch names) that holds skips the launch."""
    if not conditions:
        return None
    names = _names(facts.resolved, fam)
    for item, launch_names in conditions:
        if release.within(item.get("since"), item.get("until")) and evaluate(item["when"], dict(names, **launch_names)):
            return f"the model construction of {', '.join(facts.architectures)} ({item['reason']}) is not modelled"
    return None


def _tower_wrappers(architectures: "tuple[str, ...] | list[str]") -> list[tuple[Any, str]]:
    """(the module, the architecture) of each wrapper of kvguard.quant.names.TOWER_WRAPPERS that ``architectures``
    names, in that order (the module imported here: a model none of them concerns imports none)."""
    found = []
    for module, names in TOWER_WRAPPERS:
        architecture = next((a for a in architectures if a in names), None)
        if architecture is not None:
            from importlib import import_module

            found.append((import_module(f"{__name__}.{module}"), architecture))
    return found


def _kimi_unmodelled(facts, release, launch: Launch, scheme: Optional[QuantScheme],
                     quant_cfg: Mapping[str, Any]) -> Optional[str]:
    """Why a Kimi-K2.5 launch is not decided (kvguard.quant.kimi_k25), with the ModelOpt exclusion list's answer for
    the vision tower's layers."""
    if launch.mm_limits:
        return _wrappers.tower_left_out(KIMI_K25_ARCH)
    method = scheme.method if scheme is not None else launch.quantization
    state = None
    if scheme is not None and scheme.method.startswith("modelopt"):
        read, why = _mo_shards.read(quant_cfg, release)
        if why is not None:
            return why
        names, why = _mo_shards.exclusions(quant_cfg, "deepseek_v2", str(read), release, tuple(facts.architectures))
        if why is not None:
            return why

        def state(prefix: str) -> str:
            return _mo_shards.layer_state(prefix, (), "linear", names, str(read), release)
    ignore = tuple(quant_cfg.get("ignore") or ()) if isinstance(quant_cfg.get("ignore"), list) else ()
    return _kimi.unmodelled(facts.resolved_top, method, release, state, ignore)


def _modelopt_read(quant_cfg: Mapping[str, Any], family: str, release) -> tuple[Optional[str], Optional[str]]:
    """kvguard.quant.modelopt_shards.read, MIXED_PRECISION exports decided for the families whose ``methods``
    (kvguard/data/quant_archs.json) name ``modelopt_mixed``."""
    return _mo_shards.read(quant_cfg, release, mixed=MIXED_METHOD in (_families()[family].get("methods") or ()))


def _mixed_table(quant_cfg: Mapping[str, Any], release) -> "dict[str, str] | str":
    """A MIXED_PRECISION export's quantized_layers in the names of Qwen3.5's wrappers, the only family whose ``methods``
    name ``modelopt_mixed`` (their checkpoint-name mapper is Qwen3-VL's: kvguard.quant.qwen3_vl), or why it is not
    followed."""
    why = _modelopt.config_unread(quant_cfg, MIXED_METHOD, release)
    if why is not None:
        return why
    table = _mixed.layer_table(quant_cfg, lambda key: _qwen3_vl.ignored_names((key,))[0])
    if isinstance(table, str):
        return f"{table} is not modelled"
    dropped = next((key for key in table if key.startswith("mtp.")), None)
    if dropped is not None:
        # the MTP layers' names, which some releases' mappers drop (``mtp.``: None): not followed
        return f"a MIXED_PRECISION quantized_layers entry of the MTP layers ({dropped!r}) is not modelled"
    return table


def _mixed_algo(skip: str, prefix: str) -> Optional[str]:
    """The algorithm a MIXED_PRECISION layer's skip state carries (None: the export names none, the layer is built
    unquantized)."""
    if skip.startswith("mixed_disagree:"):
        raise _Unmodelled(f"the MIXED_PRECISION shards of {prefix} with quant_algo {skip.split(':', 1)[1]} (vLLM "
                          f"refuses a fused layer of mixed algorithms) are not modelled")
    return skip.split(":", 1)[1] or None


def _mixed_linear(skip: str, prefix: str, size: int, release) -> None:
    """The per-rank input check of the method a MIXED_PRECISION layer's algorithm names (``size``: its per-rank
    input)."""
    check, why = _mixed.linear_check(_mixed_algo(skip, prefix), release)
    if why is not None:
        raise _Unmodelled(why)
    if check is not None and size % _mo_shards.INPUT_MULTIPLE != 0:
        raise _Refused(check, size=size)


def _mixed_unquantized_experts(prefix: str, hidden: int, release) -> None:
    """Experts a MIXED_PRECISION export leaves unquantized (excluded, or no algorithm): from 0.20.0 the unquantized
    MoE backend is chosen per hidden size. The CPU oracle's choice refuses some sizes ("No Unquantized MoE backend
    supports the deployment configuration.": 2056 and 5128 from 0.28.0) through the CPU experts' alignment, which an
    H100 does not use; the H100's choice for such sizes is not proven by the differential, so they stay undecided and
    only whole 128-element blocks are decided."""
    if release.within(_mixed.UNQUANTIZED_EXPERTS_BACKEND) and hidden % _mixed.UNQUANTIZED_EXPERTS_HIDDEN != 0:
        raise _Unmodelled(f"the unquantized MoE backend selection for the experts {prefix} of a MIXED_PRECISION export "
                          f"with hidden size {hidden} is not modelled")


def _mixed_state(layer: Layer, table: Mapping[str, str], release) -> str:
    """``mixed:<algorithm>`` (empty: none) for a layer the MIXED_PRECISION export does not exclude, looked up by the
    layer's name and, for a fused layer, its shards (the model's packed-modules mapping holds the layer's shards);
    ``mixed_disagree:<algorithms>`` when the shards name several."""
    packed = {layer.prefix.rsplit(".", 1)[-1]: layer.shards} if layer.shards else {}
    try:
        algo = _mixed.resolve(layer.prefix, table, packed, release)
    except _mixed.ShardsDisagree as exc:
        return "mixed_disagree:" + "/".join(exc.args[0])
    return "mixed:" + (algo or "")


def _outcome(facts, release, launch: Launch) -> Outcome:
    family = family_of(facts.architectures)
    scheme = scheme_of(facts.resolved_top, facts.resolved, release)
    if scheme is not None and scheme.method == "unknown" and _names_no_method(facts, release, launch):
        scheme = None
    if family is None:
        if KIMI_K3_ARCH in facts.architectures:
            # (kvguard.quant.kimi_k3) the vision tower and the embedding, built before the decoder layers
            quant_cfg = facts.resolved_top.get("quantization_config") or facts.resolved.get(
                "quantization_config") or {}
            first = _kimi_k3.before_decoder(facts.resolved, facts.resolved_top, quant_cfg, launch.quantization,
                                            launch.tp, launch.pp, launch.mm_encoder_tp_mode,
                                            launch.mm_limits, release)
            if first[0] == "refused":
                return Outcome(first[1], first[2], first[3])
            return Outcome(unmodelled=first[1])
        if ERNIE45_VL_ARCH in facts.architectures:
            # (kvguard.quant.ernie45_vl) the first vision block divides its heads by tp before any layer is built,
            # whatever the quantization; past it the construction stays undecided
            first = _ernie45_vl.before_vision_layers(facts.resolved_top, launch.tp, launch.mm_limits)
            if first[0] == "refused":
                return Outcome(first[1], first[2], first[3])
            return Outcome(unmodelled=first[1])
        if NEMOTRON_H_ARCH in facts.architectures:
            # (kvguard.quant.nemotron_h) the embedding and layer 0's Mamba-2 mixer asserts, which refuse before any
            # quantized weight is built, or a launch it does not follow where a mixer would refuse; past them the
            # model stays undecided below, as before
            first = _nemotron_h.first_mixer(facts.resolved, launch.tp, launch.pp, release)
            if first[0] == "refused":
                return Outcome(first[1], first[2], first[3])
            if first[0] == "unmodelled":
                return Outcome(unmodelled=first[1])
            if scheme is not None and scheme.method.startswith("modelopt"):
                # a ModelOpt export past the first mixer: the NVFP4 layers' per-rank inputs (kvguard.quant.nemotron_h)
                quant_cfg = facts.resolved_top.get("quantization_config") or facts.resolved.get(
                    "quantization_config") or {}
                past = _nemotron_h.past_first_mixer(facts.resolved, quant_cfg, launch, release,
                                                    tuple(facts.architectures))
                if past[0] == "refused":
                    return Outcome(past[1], past[2], past[3])
                if past[0] == "unmodelled":
                    return Outcome(unmodelled=past[1])
                return Outcome()
        if scheme is not None and DSV4_ARCH in facts.architectures:
            return _dsv4_outcome(facts, release, launch, scheme)
        if scheme is not None:
            return Outcome(unmodelled=f"the weight-shard checks of {', '.join(facts.architectures) or 'this model'} "
                                      f"are not modelled")
        if launch.quantization is not None:
            return Outcome(unmodelled=f"--quantization {launch.quantization} with "
                                      f"{', '.join(facts.architectures) or 'this model'} is not modelled")
        if launch.eplb:
            return Outcome(unmodelled=f"the MoE layers of {', '.join(facts.architectures) or 'this model'} are not "
                                      f"modelled (EPLB's expert-distribution check)")
        return Outcome()
    since = _families()[family].get("since")
    if since is not None and not release.within(since):
        return Outcome(unmodelled=f"the model construction of {', '.join(facts.architectures)} is modelled from vLLM "
                                  f"{since}")
    why = _family_unmodelled(family, facts, release, scheme, launch.pp)
    if why is not None:
        return Outcome(unmodelled=why)
    if family == GEMMA4_FAMILY:
        # (kvguard.quant.gemma4) the E2B / E4B layers, the methods and the quantized towers left open
        why = _gemma4.unmodelled(facts.resolved, facts.resolved_top,
                                 scheme.method if scheme is not None else launch.quantization)
        if why is not None:
            return Outcome(unmodelled=why)
    if family == LLAMA4_FAMILY:
        # (kvguard.quant.llama4) the quantization methods and the launches that change the vision tower left open
        why = _llama4.unmodelled(facts.resolved_top, facts.architectures,
                                 scheme.method if scheme is not None else launch.quantization, launch,
                                 scheme.ct if scheme is not None else None)
        if why is not None:
            return Outcome(unmodelled=why)
    if family == GPT_OSS_FAMILY:
        # gpt-oss (kvguard.quant.gpt_oss): the MXFP4 experts on the default host, or the BF16 form
        why = _gpt_oss.unmodelled(scheme.method if scheme is not None else None, quantization=launch.quantization,
                                  moe_backend=launch.moe_backend, all2all_backend=launch.all2all_backend)
        if why is not None:
            return Outcome(unmodelled=why)
        if scheme is not None:
            scheme = QuantScheme("mxfp4")
        launch = _replace(launch, quantization=None) if launch.quantization else launch
    quant_cfg = facts.resolved_top.get("quantization_config") or facts.resolved.get("quantization_config") or {}
    for wrapper, architecture in _tower_wrappers(facts.architectures):
        # (kvguard.quant.wrappers) the wrapper builds its vision tower first (Qwen3-VL / Qwen3.5, Qwen2-VL /
        # Qwen2.5-VL, Gemma 3, Intern-S1, GLM-4.5V): the language models, methods and launches proven through it, the
        # exclusion list in the names the wrapper's checkpoint-name mapper gives it, then the tower's own refusal
        # before its layers (Qwen2-VL's first attention block divides the heads by tp)
        method = scheme.method if scheme is not None else launch.quantization
        if (getattr(wrapper, "READS_MODELOPT_METHOD", False) and scheme is not None and not scheme.modelled
                and scheme.method.startswith("modelopt")):
            method = _modelopt_read(quant_cfg, family, release)[0] or method  # the method ModelOpt's override names
        why = wrapper.unmodelled(facts, architecture, method, scheme.ignored if scheme is not None else (), launch,
                                 release)
        if why is not None:
            return Outcome(unmodelled=why)
        if scheme is not None:
            scheme = _replace(scheme, ignored=wrapper.ignored_names(scheme.ignored))
        refused = getattr(wrapper, "refused", None)
        refusal = refused(facts.resolved_top, architecture, launch) if refused is not None else None
        if refusal is not None:
            return Outcome(*refusal)
    if KIMI_K25_ARCH in facts.architectures:
        # (kvguard.quant.kimi_k25) the wrapper's releases and the vision tower built quantized left open
        why = _kimi_unmodelled(facts, release, launch, scheme, quant_cfg)
        if why is not None:
            return Outcome(unmodelled=why)
    if scheme is not None and not scheme.modelled and scheme.method.startswith("modelopt"):
        # ModelOpt FP8 / NVFP4 (kvguard.quant.modelopt_shards): the method the release's override names
        method, why = _modelopt_read(quant_cfg, family, release)
        if why is None and family_has_moe(family):
            # the experts' method (kvguard.quant.modelopt_shards): decided for Qwen3-MoE, Mixtral and Gemma 4 on the
            # default host, where its backend choice and create_weights refuse no per-rank size
            why = _mo_shards.moe_unmodelled(family, quant_cfg, str(method),
                                            moe_backend=launch.moe_backend,
                                            all2all_backend=launch.all2all_backend)
        table: Mapping[str, str] = {}
        if why is None and method == MIXED_METHOD:
            # each layer's algorithm (kvguard.quant.modelopt_mixed), looked up as the walk meets the layer
            read_table = _mixed_table(quant_cfg, release)
            if isinstance(read_table, str):
                why = read_table
            else:
                table = read_table
        names: tuple[str, ...] = ()
        if why is None:
            # the exclusion list as the release matches it (kvguard.quant.modelopt_shards.layer_state)
            names, why = _mo_shards.exclusions(quant_cfg, family, str(method), release, tuple(facts.architectures))
        if why is None:
            # the LM head the config hands a linear method (0.23.0+), built after the decoder
            built, tie = _mo_shards.lm_head(tuple(facts.architectures), facts.resolved, release)
            why = tie if built is None else None
        if why is not None:
            return Outcome(unmodelled=why)
        scheme = QuantScheme(str(method), ignored=names,
                             modelopt_a16=method == "modelopt_fp4" and _mo_shards.weight_only_linear(quant_cfg, release),
                             mixed_layers=tuple(table.items()))
    if scheme is not None and not scheme.modelled:
        return Outcome(unmodelled=scheme.reason
                       or f"the {scheme.method} quantization method's weight-shard checks are not modelled")
    path = None
    if scheme is not None and scheme.method in _WNA16:
        if not _dense_only(family):
            moe_reason = _wna16_moe.unmodelled_reason(family, scheme, facts, release)
            if moe_reason is not None:
                return Outcome(unmodelled=moe_reason)
        sp_reason = _sp_moe_shared_experts(family, scheme, launch, release)
        if sp_reason is not None:
            return Outcome(unmodelled=sp_reason)
        if launch.dtype != "auto":
            # which kernels take the layers, and the kernels' activation-dtype check, read the model's dtype
            return Outcome(unmodelled=f"--dtype {launch.dtype} with {scheme.method} weights is not modelled")
        path = _wna16_path(scheme, release, launch.quantization, facts.resolved_top)
        if path.startswith("unmodelled:"):
            return Outcome(unmodelled=path.split(":", 1)[1])
    elif scheme is not None and scheme.method == CT_METHOD:
        path = _ct.path(scheme.ct or "", family, release, launch.quantization, launch.dtype, facts.resolved_top,
                        facts.architectures, scheme.ct_moe,
                        _ct.forbidden_args(quant_cfg, release), _ct.static_token_args(quant_cfg, release))
        if path.startswith("unmodelled:"):
            return Outcome(unmodelled=path.split(":", 1)[1])
        if not _dense_only(family) and scheme.ct == "nvfp4":
            # the NVFP4 experts: decided by release on the default MoE / all2all backends
            why = _ct.nvfp4_moe_unmodelled(family, release, launch.moe_backend, launch.all2all_backend)
            if why is not None:
                return Outcome(unmodelled=why)
        if not _dense_only(family) and scheme.ct == "wna16":
            # the integer-weight experts: kvguard.quant.wna16_moe's families and activation
            if not _wna16_moe.ct_experts_decided(family):
                return Outcome(unmodelled=f"compressed-tensors integer weights on the MoE experts of "
                                          f"{', '.join(facts.architectures)} are not modelled")
            moe_reason = _wna16_moe.unmodelled_reason(family, scheme, facts, release)
            if moe_reason is not None:
                return Outcome(unmodelled=moe_reason)
            sp_reason = _sp_moe_shared_experts(family, scheme, launch, release)
            if sp_reason is not None:
                return Outcome(unmodelled=sp_reason)
        if path in ("fp8", "fp8_block", "int8", "nvfp4"):
            path = None  # the FP8 schemes: the block-FP8 checks below; INT8 W8A8 and NVFP4: none
    elif launch.quantization is not None and scheme is None:
        # ModelConfig accepted the method (kvguard.quant.verify); the release quantizes the weights as it loads
        # them (kvguard.quant.online): per-tensor FP8, no block, nothing ignored
        method = str(launch.quantization).lower()
        why = _online.unmodelled_reason(method, family_has_moe(family), launch.moe_backend)
        if why is not None:
            return Outcome(unmodelled=why)
        scheme = QuantScheme(method)
    elif launch.quantization is not None and scheme is not None and launch.quantization != scheme.method:
        return Outcome(unmodelled=f"--quantization {launch.quantization} with a {scheme.method} checkpoint (an "
                                  f"override of the checkpoint's method) is not modelled")
    if KIMI_K25_ARCH in facts.architectures:
        # the vision tower is built before the language model: its sharding refuses first
        refused = _kimi.vision_refusal(facts.resolved_top, launch.tp, launch.mm_encoder_tp_mode, release)
        if refused is not None:
            return Outcome(refused[0], refused[1], refused[2])
    prepared = _prepared(facts, family, release, scheme)
    needs: list[str] = []
    result = Outcome()
    for layer, skip in prepared:
        try:
            if layer.kind == "check":
                check_id, fires, values = layer.check
                scope = dict(layer.names, tp=launch.tp, dp=launch.dp, pcp=launch.pcp, ep=launch.ep,
                             world=launch.world_size(release))
                if evaluate(fires, scope):
                    raise _Refused(check_id, **{k: evaluate(v, scope) for k, v in values})
            elif layer.kind == "lm_head":
                _lm_head(layer, launch, scheme, release, skip)
            elif layer.kind == "moe":
                _require_int_sizes(layer, layer.moe[:3])
                if path == "no_scheme" and skip != "skipped":
                    # a compressed-tensors scheme no linear method takes, met first by the experts (every earlier
                    # linear layer ignored: Qwen3-Next's gated-delta-net layers): the MoE method's own refusal, a
                    # RuntimeError that prints the scheme's fields as the pinned compressed-tensors package does
                    raise _Unmodelled(f"the compressed-tensors scheme of the experts {layer.prefix}, which no linear "
                                      f"layer met first, is not modelled")
                _moe(layer, launch, scheme, release, needs, skip)
                if family == GPT_OSS_FAMILY and scheme is None:
                    raise _Unmodelled(_gpt_oss.BF16_EXPERTS)
                if path is not None and scheme is not None:
                    _wna16_experts(layer, launch, scheme, path, release, skip)
            elif layer.kind == "replicated" and path is not None and scheme is not None and layer.quantized:
                # (a replicated layer built without the quantization config, Qwen3-Next's router and shared-expert
                # gates from 0.17.0, takes none of the method's checks)
                _require_int_sizes(layer, (layer.input_size, *layer.output_sizes))
                # the router gate (``*.gate``) takes the checkpoint's quantization where the model hands it over;
                # other replicated layers (DeepSeek's kv_a_proj_with_mqa) always do
                router = layer.prefix.endswith(".gate")
                if not router and scheme.method == CT_METHOD:
                    # a replicated projection the model quantizes (DeepSeek's kv_a_proj_with_mqa without a q LoRA),
                    # looked up in the ignore list as any linear layer
                    state = _ct.ignore_state(layer.prefix, layer.shards, scheme.ignored, family, release)
                    if state not in ("quantized", "skipped"):
                        raise _Unmodelled(f"whether the compressed-tensors checkpoint's ignore list leaves "
                                          f"{layer.prefix} unquantized is not modelled")
                    skip = state
                if skip != "skipped" and (not router or _wna16_moe.gate_quantized(family, scheme, release)):
                    if scheme.method == CT_METHOD and not path.startswith("gptq_marlin"):
                        # a compressed-tensors scheme that finds no scheme or refuses its activations reaching a
                        # replicated layer first (every earlier linear ignored): which layer the release meets
                        # first there, and how its ignore list reads the router, is not walked
                        raise _Unmodelled(f"the compressed-tensors scheme of the replicated layer {layer.prefix} "
                                          f"(path {path}) is not modelled")
                    _wna16_layer(layer.prefix, scheme, path, layer.input_size, layer.input_size,
                                 layer.output_sizes[0])
            else:
                if layer.kind != "replicated":
                    _require_int_sizes(layer, layer.qkv + ((layer.v_head_size,) if layer.v_head_size != 0 else ())
                                       if layer.kind == "qkv"
                                       else (layer.input_size, *layer.output_sizes))
                _linear(layer, launch, scheme, release, skip, path, family)
        except _Refused as exc:
            result = Outcome(exc.check, exc.values, layer.prefix, tuple(needs))
            break
        except _Unknown:
            result = Outcome(needs=tuple(needs), layer=layer.prefix)
            break
        except _Unmodelled as exc:
            result = Outcome(needs=tuple(needs), unmodelled=str(exc), layer=layer.prefix)
            break
    else:
        result = Outcome(needs=tuple(needs))
        fam = _families()[family]
        after = _condition_met([(item, {}) for item in fam.get("unmodelled") or () if item.get("after_layers")], fam,
                               facts, release)
        if after is not None:
            return Outcome(needs=tuple(needs), unmodelled=after)
        moe = [layer for layer, _ in prepared if layer.kind == "moe"]
        registers = implements_moe(family, release)
        if registers and GLM4V_ARCH in facts.architectures:
            registers = release.within(_glm4v.EPLB_LANGUAGE_MODEL_SINCE)  # (the wrapper itself implements none)
        if registers and any(a in INTERNS1_ARCHS for a in facts.architectures):
            # (kvguard.quant.interns1) nor does Intern-S1's: the worker registers its language model from 0.22.0
            registers = release.within(_interns1.EPLB_LANGUAGE_MODEL_SINCE)
        if launch.eplb and moe and not registers:
            # the worker finds no MoE model to balance (W_eplb_no_moe_model decides what follows)
            result = Outcome(needs=tuple(needs), eplb_without_moe_model=True)
        elif launch.eplb and any(not layer.moe[3] for layer in moe):
            # a MoE model whose layers the model hands no EPLB (Gemma 4's, through its language model): what
            # EPLB does with them after the model is built is not modelled
            result = Outcome(needs=tuple(needs), unmodelled=f"--enable-eplb with {', '.join(facts.architectures)}, "
                             f"whose MoE layers take no EPLB in vLLM {release.key}, is not modelled")
    return result


def _skip_state(layer: Layer, scheme: Optional[QuantScheme], release, family: str,
                table: Optional[Mapping[str, str]] = None) -> str:
    """Whether the quantization method leaves the layer unquantized (launch-independent; ``table``: a MIXED_PRECISION
    scheme's ``mixed_layers`` as a mapping, else built from them)."""
    if not layer.quantized:
        return "quantized"  # built without the quantization config: no ignore list is consulted
    if scheme is not None and scheme.method == CT_METHOD:
        if layer.kind == "moe":
            return "ct_unmodelled" if _ct.may_ignore_experts(layer.prefix, scheme.ignored) else "quantized"
        if layer.kind not in ("qkv", "merged", "column", "row"):
            return "quantized"
        return _ct.ignore_state(layer.prefix, layer.shards, scheme.ignored, family, release)
    if scheme is not None and scheme.method in _WNA16 and layer.kind not in ("check", "vocab"):
        return _wna16_skip_state(layer, scheme, release)
    if scheme is not None and (scheme.method in MODELOPT_SHARD_METHODS or scheme.method == MIXED_METHOD):
        # replicated layers are matched too (none is a fused layer): NVFP4 checks DeepSeek's kv_a_proj_with_mqa
        if layer.kind not in ("qkv", "merged", "column", "row", "moe", "replicated", "lm_head"):
            return "quantized"
        state = _mo_shards.layer_state(layer.prefix, layer.shards, "moe" if layer.kind == "moe" else "linear",
                                       scheme.ignored, scheme.method, release)
        if scheme.method == MIXED_METHOD and state == "quantized":
            return _mixed_state(layer, table if table is not None else dict(scheme.mixed_layers), release)
        return state
    if scheme is None or scheme.method != "fp8" or layer.kind in ("check", "vocab", "replicated"):
        return "quantized"
    try:
        if layer.kind == "moe":
            if not release.within("0.11.0"):
                return "quantized"
            return "skipped" if _is_layer_skipped(layer.prefix, scheme.ignored, (), release) else "quantized"
        return "skipped" if _is_layer_skipped(layer.prefix, scheme.ignored, layer.shards, release) else "quantized"
    except _Refused:
        return "fused_error"


#: each model's layers without repeats, per facts object, family, release and scheme
_LAYERS = PerFacts(limit=256)


def _prepared(facts, family: str, release, scheme: Optional[QuantScheme]) -> list[tuple[Layer, str]]:
    """[(layer, skip state)] without repeats: layers with the same sizes and skip state decide the same way,
    so only the first of each is walked."""
    return _LAYERS.get(facts, (family, release.version, release.patches, scheme),
                       lambda: _unique_layers(facts, family, release, scheme))


def _unique_layers(facts, family: str, release, scheme: Optional[QuantScheme]) -> list[tuple[Layer, str]]:
    unique: list[tuple[Layer, str]] = []
    seen: set[tuple[Any, Any]] = set()
    stack = layers(facts.resolved, family, release, tuple(facts.architectures))
    for wrapper, architecture in _tower_wrappers(facts.architectures):
        # the vision tower (kvguard.quant.wrappers), before the language model
        stack = wrapper.tower_layers(facts.resolved_top, architecture, scheme.method if scheme is not None else None,
                                     release) + stack
    if family == LLAMA4_FAMILY:
        # the vision model and the projector, unquantized, before the language model
        stack = _llama4.tower_layers(facts.resolved_top, facts.resolved.get("hidden_size")) + stack
    table = dict(scheme.mixed_layers) if scheme is not None and scheme.method == MIXED_METHOD else None
    for layer in stack:
        skip = _skip_state(layer, scheme, release, family, table)
        sig = (layer.signature(), skip)
        if sig in seen:
            continue
        seen.add(sig)
        unique.append((layer, skip))
    if scheme is not None and (scheme.method in MODELOPT_SHARD_METHODS or scheme.method == MIXED_METHOD):
        # the LM head (ParallelLMHead), built after the decoder when the ModelOpt config hands it a linear method
        built, tie = _mo_shards.lm_head(tuple(facts.architectures), facts.resolved, release)
        if built:
            head = Layer(len(unique), head_of(family, tuple(facts.architectures), release), "lm_head",
                         input_size=facts.resolved.get("hidden_size"),
                         output_sizes=(facts.resolved.get("vocab_size"),), names={"tie": tie})
            unique.append((head, _skip_state(head, scheme, release, family, table)))
    return unique


# ---------------------------------------------------------------------------
# audit: which tensor-parallel sizes the checkpoint's quantization forbids


def forbidden_tp(facts, release, sizes: "range | list[int]", *, dp: int = 1, ep: bool = False,
                 refined_fp8_moe_kernel: Optional[bool] = True) -> list[tuple[int, Outcome]]:
    """``(tp, outcome)`` for each size in ``sizes`` whose model construction refuses."""
    out = []
    for tp in sizes:
        res = outcome(facts, release, Launch(tp=tp, dp=dp, ep=ep, refined_fp8_moe_kernel=refined_fp8_moe_kernel))
        if res.check is not None:
            out.append((tp, res))
    return out


def render(result: Outcome, release) -> tuple[str, str]:
    """``(exception type, message)`` of a refusal, from the release's rule row for its check."""
    from ..rules import Check
    from ..rules.table import rows_for

    for row in rows_for(release):
        if isinstance(row, Check) and row.id == result.check:
            return row.exc, row.template.format_map(dict(result.values))
    raise LookupError(f"no rule row {result.check} in vLLM {release.key}")


# ---------------------------------------------------------------------------
# audit: the tensor-parallel sizes the checkpoint's layers forbid, and why

#: what a refusal's per-rank size is a share of, by check (for the "why" line)
_WHAT = {"MI_fp8_moe_block_n": "MoE intermediate size", "MI_fp8_moe_block_k": "MoE intermediate size"}


def _why(res: Outcome, tp: int, moe_tp: int) -> Optional[tuple[str, int, int]]:
    """(what, global size, blocks) of a block-FP8 refusal: the size that is cut into tp shards."""
    size, block = res.values.get("size"), res.values.get("block")
    if size is None or block is None:
        return None
    shards = moe_tp if res.check in _WHAT else tp
    total = size * shards
    what = _WHAT.get(res.check or "") or f"{(res.layer or '').split('.', 3)[-1]} {'input' if res.check == 'MI_fp8_block_k' else 'output'} size"
    return what, total, block


def quant_audit(facts, release, *, dp: int = 1, pcp: int = 1, ep: bool = False,
                refined_fp8_moe_kernel: Optional[bool] = True, max_tp: int = 256) -> Optional[dict]:
    """What the checkpoint's layers say about tensor-parallel sizes (audit's ``quantization`` section).

    Every tp that divides the attention heads (the others vLLM refuses before building the model),
    up to ``max_tp``, is built as :func:`outcome` builds it (``dp``/``pcp``/``ep`` as given);
    ``forbidden_tp`` lists the refused ones with vLLM's exception, and ``rules`` says why in
    block arithmetic ("MoE intermediate size 1536 / 128 = 12 blocks: tp must divide 12");
    ``undecided_tp`` (with ``modelled`` False) the sizes kvguard cannot decide, with the reason — when no
    size is decided, ``not_modelled`` gives the first reason instead.
    None for an unquantized checkpoint of a model without refusals.
    """
    scheme = scheme_of(facts.resolved_top, facts.resolved)
    heads = facts.total_num_attention_heads if isinstance(facts.total_num_attention_heads, int) else 0
    sizes = [t for t in range(1, max_tp + 1) if heads > 0 and heads % t == 0]
    out: dict[str, Any] = {"method": scheme.method if scheme else None,
                           "weight_block_size": list(scheme.block) if scheme and scheme.block else None,
                           "modelled": None, "tp_sizes_checked": sizes, "forbidden_tp": [], "rules": [],
                           "assumptions": []}
    launch = Launch(tp=1, dp=dp, pcp=pcp, ep=ep, refined_fp8_moe_kernel=refined_fp8_moe_kernel)
    undecided: list[dict[str, Any]] = []
    groups: dict[tuple, list[int]] = {}
    for tp in sizes:
        launch.tp = tp
        res = outcome(facts, release, launch)
        if "refined_fp8_moe_kernel" in res.needs and "refined FP8 MoE blocks" not in " ".join(out["assumptions"]):
            out["assumptions"].append("refined FP8 MoE blocks served by Triton (an H100-class GPU, compute "
                                      "capability 90, with Triton: the default host)")
        if scheme is not None and scheme.modelled and scheme.method == CT_METHOD and not any(
                "compressed-tensors" in a for a in out["assumptions"]):
            out["assumptions"].append("the compressed-tensors schemes of an H100-class GPU (CUDA, compute capability "
                                      "90: the scheme choice, the Marlin layer check; the default host)")
            if scheme.ct == "nvfp4":
                out["assumptions"].append("compressed-tensors NVFP4 on an H100-class GPU (CUDA, compute capability 90, "
                                          "default environment: no FP4 CUTLASS, so FP4 Marlin - the W4A16 FP4 scheme up "
                                          "to 0.15.x - chosen without a size check; the default host)")
                if family_has_moe(family_of(facts.architectures) or "llama") and not res.unmodelled:
                    out["assumptions"].append("the NVFP4 MoE backend of an H100-class GPU for compressed-tensors "
                                              "experts (CUDA, compute capability 90, default environment: FP4 Marlin, "
                                              "chosen without a size check and without EPLB support; 0.17.0-0.19.x "
                                              "import flashinfer-python, a requirement of vLLM's CUDA wheel, while "
                                              "choosing it; the default host)")
        if scheme is not None and scheme.modelled and scheme.method in _WNA16 and not any(
                "AWQ / GPTQ" in a for a in out["assumptions"]):
            out["assumptions"].append("the AWQ / GPTQ kernels of an H100-class GPU (CUDA, compute capability 90: "
                                      "the Marlin conversion and its layer check; the default host)")
        if scheme is not None and scheme.method.startswith("modelopt") and not res.unmodelled and not any(
                "ModelOpt" in a for a in out["assumptions"]):
            out["assumptions"].append("the ModelOpt linear kernels of an H100-class GPU (CUDA, compute capability 90: "
                                      "FP4 Marlin for NVFP4, chosen without a size check; the default host)")
            if family_has_moe(family_of(facts.architectures) or "llama"):
                out["assumptions"].append("the ModelOpt MoE backend of an H100-class GPU (CUDA, compute capability "
                                          "90, default environment: FP4 Marlin for NVFP4 experts, a per-tensor FP8 "
                                          "backend for FP8 experts, chosen without a size check; the default host)")
        if scheme is not None and scheme.method == "mxfp4" and not res.unmodelled and not any(
                "MXFP4" in a for a in out["assumptions"]):
            out["assumptions"].append("the MXFP4 MoE backend of an H100-class GPU (CUDA, compute capability 90, default "
                                      "environment: Triton with triton_kernels, else Marlin; either pads the per-rank "
                                      "sizes and checks none; the default host)")
        if res.unmodelled:
            # a size kvguard cannot decide (e.g. the host's kernel choice) does not hide the sizes it can
            undecided.append({"tp": tp, "reason": res.unmodelled})
            continue
        if res.check is None:
            continue
        exc, message = render(res, release)
        moe_tp = launch.moe_sizes(release)[0]
        why = _why(res, tp, moe_tp)
        out["forbidden_tp"].append({"tp": tp, "check": res.check, "exc_type": exc, "message": message,
                                    "layer": res.layer})
        if why is not None:
            groups.setdefault(why, []).append(tp)
    out["modelled"] = not undecided
    if undecided and len(undecided) == len(sizes):
        out["not_modelled"] = undecided[0]["reason"]
        return out
    if undecided:
        out["undecided_tp"] = undecided
    scale = dp * (pcp if release.within("0.12.0") else 1)
    hidden = facts.resolved.get("hidden_size")
    for (what, total, block), tps in groups.items():
        moe = what.startswith("MoE")
        factor = "" if not moe or ep or scale == 1 else f" x {scale} (dp x pcp: without expert parallel the experts " \
                                                              f"are split over tp x dp x pcp)"
        first = f"first refusal at tp {', '.join(map(str, tps))}"
        if total % block:
            out["rules"].append(f"{what} {total} is not a multiple of {block}: {first}")
            continue
        n = total // block
        rule = f"{what} {total} / {block} = {n} blocks: tp{factor} must divide {n}"
        if moe and release.within("0.29.0") and scheme is not None and scheme.method == "fp8":
            # (compressed-tensors MoE experts are never refined)
            rule += (f", or the per-rank size, {block} and the hidden size {hidden} must share a block of at least 32 "
                     f"(vLLM {release.key} then refines the block scales; assumed: an H100-class GPU with Triton)")
        out["rules"].append(f"{rule} ({first})")
    other: dict[str, list[int]] = {}
    for item in out["forbidden_tp"]:
        if not any(item["tp"] in tps for tps in groups.values()):
            other.setdefault(item["check"], []).append(item["tp"])
    for check, tps in other.items():
        label = ", ".join(map(str, tps))
        if check == "MI_attn_assert":
            kv = facts.resolved.get("num_key_value_heads")
            out["rules"].append(f"the attention module asserts that tp divides the {kv} KV heads or is a multiple of "
                                f"them: refused at tp {label}")
        elif check == "MI_gptoss_world":
            inter = facts.resolved.get("intermediate_size")
            out["rules"].append(f"gpt-oss's MLP block asserts that torch.distributed's world size (tp x pp x pcp x dp, "
                                f"expert parallel or not) divides the intermediate size {inter}: refused at tp {label}")
        elif check == "MI_tp_gt_experts":
            out["rules"].append(f"tp above the expert count: refused at tp {label}")
        elif check == "MI_awq_input":
            item = next(f for f in out["forbidden_tp"] if f["check"] == check)
            res = outcome(facts, release, Launch(tp=item["tp"], dp=dp, pcp=pcp, ep=ep,
                                                 refined_fp8_moe_kernel=refined_fp8_moe_kernel))
            total, group = res.values["input"], res.values["group"]
            layer = (item["layer"] or "").split(".", 3)[-1]
            out["rules"].append(f"AWQ: {layer} input size {total} = {total // group} groups of {group}; a shard that "
                                f"is not whole groups is not taken by Marlin and the plain AWQ kernels refuse it: "
                                f"refused at tp {label}")
        elif check == "MI_ct_wna16_moe_group":
            item = next(f for f in out["forbidden_tp"] if f["check"] == check)
            launch.tp = item["tp"]
            res = outcome(facts, release, launch)
            total = res.values["size"] * launch.moe_sizes(release)[0]
            group = res.values["group"]
            whole = f"{total // group} groups of {group}" if total % group == 0 else f"not a multiple of {group}"
            out["rules"].append(f"compressed-tensors integer-weight MoE: MoE intermediate size {total} ({whole}) split "
                                f"over the MoE TP size must leave whole groups per rank: refused at tp {label}")
        elif check in ("MI_nvfp4_input", "MI_nvfp4a16_input"):
            item = next(f for f in out["forbidden_tp"] if f["check"] == check)
            res = outcome(facts, release, Launch(tp=item["tp"], dp=dp, pcp=pcp, ep=ep,
                                                 refined_fp8_moe_kernel=refined_fp8_moe_kernel))
            layer = (item["layer"] or "").split(".", 3)[-1]
            out["rules"].append(f"ModelOpt NVFP4: {layer} takes {res.values['size']} input features per rank at tp "
                                f"{item['tp']}, not a multiple of 16: refused at tp {label}")
        elif check == "MI_lm_head_tie":
            out["rules"].append(f"tied word embeddings: the LM head is tied through its ModelOpt / unquantized linear "
                                f"method, whose tie_weights raises NotImplementedError in vLLM {release.key}: refused "
                                f"at tp {label}")
        elif check == "MI_moe_wna16_group":
            item = next(f for f in out["forbidden_tp"] if f["check"] == check)
            launch.tp = item["tp"]
            res = outcome(facts, release, launch)
            out["rules"].append(_wna16_moe.audit_rule(res.values, launch.moe_sizes(release)[0], label))
        else:
            item = next(f for f in out["forbidden_tp"] if f["check"] == check)
            out["rules"].append(f"{item['layer']}: {item['exc_type']}: {item['message'] or '(bare assert)'}: refused "
                                f"at tp {label}")
    if scheme is None and not out["forbidden_tp"]:
        return None
    return out
