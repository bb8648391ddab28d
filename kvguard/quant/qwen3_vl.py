"""Qwen3-VL and Qwen3-VL-MoE at model construction, vLLM 0.11.0 – 0.33.0 (the vision tower and what the ``llama`` /
``qwen3_moe`` families of kvguard/data/quant_archs.json cannot say by themselves).

Mirrors vllm/model_executor/models/qwen3_vl.py and qwen3_vl_moe.py (``Qwen3_VisionTransformer``,
``Qwen3_VisionPatchMerger``, ``Qwen3_VisionBlock``, ``Qwen3_VisionMLP``, the wrappers' ``hf_to_vllm_mapper``),
qwen2_5_vl.py (``Qwen2_5_VisionAttention``) and vision.py (``is_vit_use_data_parallel``), read in 0.11.0, 0.11.1,
0.12.0, 0.20.0, 0.24.0, 0.26.0, 0.28.0, 0.31.0, 0.32.0 and 0.33.0.

``Qwen3VLForConditionalGeneration`` / ``Qwen3VLMoeForConditionalGeneration`` build the vision transformer first
(prefix ``visual``), then Qwen3's / Qwen3-MoE's language model on ``text_config`` (prefix ``language_model``: the
decoder at ``language_model.model``, the family's layers).  The tower hands the checkpoint's quantization config to
every linear layer it builds, in this order (:func:`tower_layers`):

- the patch merger, then one merger per ``deepstack_visual_indexes`` entry: ``linear_fc1`` (column,
  ``hidden_size * spatial_merge_size**2`` to itself) and ``linear_fc2`` (row, to ``out_hidden_size``);
- each of the ``depth`` blocks: the attention splits its heads over tp (``divide``), then ``attn.qkv`` (QKV, every
  head its own KV head), ``attn.proj`` (row), ``mlp.linear_fc1`` (column, to ``intermediate_size``) and
  ``mlp.linear_fc2`` (row).

Every one of them is built with ``disable_tp`` when the encoder runs data-parallel (``--mm-encoder-tp-mode data``);
Qwen3-VL calls ``is_vit_use_data_parallel()`` without the head count, so the tower never falls back to data
parallelism by itself (Kimi-K2.5's does from 0.26.0).  So a 16-head tower refuses ``-tp 32`` in every release, and
block FP8 refuses the published tower (``linear_fc1``'s 4304 outputs are not whole 128-blocks) unless the export's
``modules_to_not_convert`` names its layers: ``Fp8Config.apply_vllm_mapper`` maps the list through the wrapper's
checkpoint-name mapper first (:func:`ignored_names`).

Decided: unquantized, ``Fp8Config`` (block or per-tensor, with or without the tower in its list), online
``--quantization fp8``, from 0.11.1 (whose AWQ config maps ``modules_to_not_convert`` through the same mapper)
AWQ on the default host (the tower's layers take the dense AWQ path, the experts Qwen3-MoE's), and compressed-tensors
whose ``ignore`` list the mapper leaves as written (``re:`` patterns, undotted names; from 0.11.1, as the dense
wrapper).  Left open (:func:`unmodelled`): other methods (GPTQ: the published tower's 4304-wide MLP is a Marlin kernel
question in every layout, so no launch was decided to prove it; ModelOpt: the tower and LM head paths are not
proven), a compressed-tensors ``ignore`` entry the mapper would rewrite, the dense wrapper in 0.11.0 (its decoder is built at ``language_model.layers``, from 0.11.1 at
``language_model.model``), EPLB on Qwen3-VL-MoE before 0.12.0 (its wrapper implements no ``MixtureOfExperts`` in 0.11.x: what the worker
then does with EPLB is not read), pipeline
parallelism (the wrapper asserts the later stages start past the deepstack layers), ``--limit-mm-per-prompt`` /
``--language-model-only`` (the wrapper builds no tower when every modality is limited to 0).

Qwen3.5's wrappers (``Qwen3_5ForConditionalGeneration`` / ``Qwen3_5MoeForConditionalGeneration``, qwen3_5.py read in
0.17.0, 0.18.0, 0.19.1, 0.20.0, 0.24.0, 0.28.0 and 0.33.0) subclass Qwen3-VL's: the same tower (its
``deepstack_visual_indexes`` empty in the published configs) and checkpoint-name mapper, then the ``qwen3_5`` /
``qwen3_5_moe`` family's language model.  Decided there (:data:`QWEN3_5_METHODS`): unquantized, ``Fp8Config``, online
FP8, ModelOpt NVFP4 and FP8 (kvguard.quant.modelopt_shards maps the exclusion list through the same mapper),
compressed-tensors (``ignore`` patterns and undotted names as written; a layer path the mapper would rewrite is left
open, kvguard.quant.compressed_tensors) and AWQ / GPTQ on the default host (the tower takes the dense path, AWQ's
``modules_to_not_convert`` through the same mapper; the gated delta net's replicated ``in_proj_ba`` is the family's);
left open: a text config whose model type is not the wrapper's, other methods, the limited modalities, pipeline
parallelism.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import QWEN3_VL_ARCHS, TOWER_DATA_PARALLEL
from .wrappers import exclusion_mapper, past_the_tower, tower_sizes, unmapped_exclusions

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCHS", "DATA_PARALLEL", "READS_MODELOPT_METHOD", "ignored_names", "tower_layers", "unmodelled"]

ARCHS = QWEN3_VL_ARCHS
DENSE_ARCH, MOE_ARCH = ARCHS[:2]
#: Qwen3.5's wrappers (qwen3_5.py, 0.17.0+): subclasses of Qwen3-VL's that build the same tower, then the qwen3_5 /
#: qwen3_5_moe family's language model; the text config's model type each wrapper's decoder layers expect
QWEN3_5_ARCHS = dict(zip(ARCHS[2:], ("qwen3_5_text", "qwen3_5_moe_text")))
#: the first release that registers both wrappers
SINCE = "0.11.0"
#: the first release whose dense wrapper builds its decoder at language_model.model (0.11.0: language_model.layers)
DENSE_SINCE = "0.11.1"
#: the first release whose Qwen3-VL-MoE wrapper implements MixtureOfExperts (0.11.0 and 0.11.1's do not)
MOE_EPLB_SINCE = "0.12.0"
#: the checkpoint methods whose construction is proven through the tower (None: unquantized)
METHODS = (None, "fp8", "awq", "compressed-tensors")
#: the methods whose exclusion list the wrapper's checkpoint-name mapper rewrites, from the release each names; the
#: others' (compressed-tensors' ignore list, which the mapper rewrites in ways kvguard does not follow by release) are
#: decided only where the mapper would leave them as written
MAPPED_SINCE = {None: SINCE, "fp8": SINCE, "awq": "0.11.1"}
#: the same for Qwen3.5's wrappers (ModelOpt NVFP4: the tower's layers take the linear method unless the exclusion
#: list, through the wrapper's checkpoint-name mapper, names them)
QWEN3_5_METHODS = (None, "fp8", "modelopt_fp4", "modelopt_mixed", "modelopt", "compressed-tensors", "awq", "gptq")
#: the releases whose Qwen3.5 wrappers build in_proj_qkv and in_proj_z apart (not merged) when a LoRAConfig exists
#: (qwen3_5.py's ``create_in_proj_qkvz=vllm_config.lora_config is None``): --enable-lora is left open there
QWEN3_5_LORA_SPLIT = ("0.19.0", "0.20.2")
#: the first release whose AWQ config maps modules_to_not_convert through the wrapper's checkpoint-name mapper
AWQ_SINCE = "0.11.1"
DATA_PARALLEL = TOWER_DATA_PARALLEL
#: (kvguard.quant.wrappers) a ModelOpt export's method is the one the release's ModelOpt override names
READS_MODELOPT_METHOD = True
#: the wrappers' hf_to_vllm_mapper prefix renames (every release read), applied in order
_PREFIXES = (("model.visual.", "visual."), ("lm_head.", "language_model.lm_head."),
             ("model.language_model.", "language_model.model."))
_SIZES = ("hidden_size", "num_heads", "intermediate_size", "depth", "out_hidden_size", "spatial_merge_size")


#: an exclusion list (Fp8Config's ignore list, AWQ's modules_to_not_convert) after the wrapper's mapper
ignored_names = exclusion_mapper(_PREFIXES)


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, Any]]":
    sizes = tower_sizes(resolved_top, _SIZES, ("hidden_size", "num_heads"))
    deepstack = sizes.get("deepstack_visual_indexes") if sizes is not None else None
    if deepstack is not None and not isinstance(deepstack, list):
        return None
    return sizes


def unmodelled(facts, architecture: str, method: "Optional[str]", ignored: "tuple[str, ...]", launch,
               release) -> "Optional[str]":
    """Why the construction of this Qwen3-VL / Qwen3.5 launch is not decided, or None (kvguard.quant.wrappers)."""
    resolved_top = facts.resolved_top
    if architecture in QWEN3_5_ARCHS:
        return _qwen3_5_unmodelled(resolved_top, architecture, method, launch, release,
                                   facts.resolved.get("model_type"))
    if not release.within(SINCE):
        return f"the model construction of {architecture} in vLLM {release.key} is not modelled"
    if architecture == DENSE_ARCH and not release.within(DENSE_SINCE):
        return (f"the model construction of {architecture} in vLLM {release.key} (its decoder built as "
                f"language_model.layers, not the family's language_model.model) is not modelled")
    why = _tower_unmodelled(resolved_top, architecture)
    if why is not None:
        return why
    unmapped: "Optional[str]"
    if method == "awq" and not release.within(AWQ_SINCE):
        unmapped = (f"the awq weight-shard checks of {architecture} in vLLM {release.key} (modules_to_not_convert not "
                    f"mapped to the wrapper's names) are not modelled")
    else:
        # (past the release checks above, every method of MAPPED_SINCE is mapped)
        unmapped = unmapped_exclusions(method, tuple(ignored), _PREFIXES, architecture, release, MAPPED_SINCE)
    why = past_the_tower(architecture, method, METHODS, unmapped, launch,
                         "the wrapper asserts that the later stages start past the deepstack layers")
    if why is not None:
        return why
    if launch.eplb and architecture == MOE_ARCH and not release.within(MOE_EPLB_SINCE):
        return (f"--enable-eplb with {architecture} in vLLM {release.key} (whether its wrapper implements "
                f"MixtureOfExperts) is not modelled")
    return None


def _tower_unmodelled(resolved_top: Mapping[str, Any], architecture: str) -> "Optional[str]":
    """Why the wrapper's tower sizes leave the construction open, or None."""
    if _tower(resolved_top) is None:
        return (f"the vision tower of {architecture} with sizes {resolved_top.get('vision_tower')!r} is not "
                f"modelled")
    return None


def _qwen3_5_unmodelled(resolved_top: Mapping[str, Any], architecture: str, method: "Optional[str]", launch, release,
                        text_model_type: "Optional[str]") -> "Optional[str]":
    """Qwen3.5's wrappers (the releases are the family's): the tower, the methods, the launches left open."""
    if text_model_type != QWEN3_5_ARCHS[architecture]:
        # the decoder layer picks its MLP by the text model type (another is a ValueError of the model; a dense model
        # in the MoE wrapper finds no MoE layer, a RuntimeError): not modelled
        return (f"the model construction of {architecture} with a text config of model type {text_model_type!r} is "
                f"not modelled")
    why = _tower_unmodelled(resolved_top, architecture) or past_the_tower(
        architecture, method, QWEN3_5_METHODS, None, launch, "which decoder layers each stage builds")
    if why is not None:
        return why
    if launch.lora and release.within(*QWEN3_5_LORA_SPLIT):
        return (f"--enable-lora with {architecture} in vLLM {release.key} (the gated-delta-net input projections "
                f"built unmerged for LoRA) is not modelled")
    return None


def tower_layers(resolved_top: Mapping[str, Any], architecture: "Optional[str]" = None,
                 method: "Optional[str]" = None, release=None) -> "list[Any]":
    """The vision transformer's linear layers in construction order (global sizes; none when the sizes are not
    modelled), whatever the method."""
    from . import Layer

    sizes = _tower(resolved_top)
    if sizes is None:
        return []
    hidden, heads = sizes["hidden_size"], sizes["num_heads"]
    merged = hidden * sizes["spatial_merge_size"] ** 2
    out = []
    mergers = ["visual.merger"] + [f"visual.deepstack_merger_list.{n}"
                                   for n in range(len(sizes.get("deepstack_visual_indexes") or ()))]
    for merger in mergers:
        out += [Layer(-1, f"{merger}.linear_fc1", "column", input_size=merged, output_sizes=(merged,),
                      disable_tp=DATA_PARALLEL),
                Layer(-1, f"{merger}.linear_fc2", "row", input_size=merged, output_sizes=(sizes["out_hidden_size"],),
                      disable_tp=DATA_PARALLEL)]
    for n in range(sizes["depth"]):
        block = f"visual.blocks.{n}"
        out += [Layer(-1, f"{block}.attn.qkv", "qkv", input_size=hidden, disable_tp=DATA_PARALLEL,
                      qkv=(hidden, hidden // heads, heads, heads)),
                Layer(-1, f"{block}.attn.proj", "row", input_size=hidden, output_sizes=(hidden,),
                      disable_tp=DATA_PARALLEL),
                Layer(-1, f"{block}.mlp.linear_fc1", "column", input_size=hidden,
                      output_sizes=(sizes["intermediate_size"],), disable_tp=DATA_PARALLEL),
                Layer(-1, f"{block}.mlp.linear_fc2", "row", input_size=sizes["intermediate_size"],
                      output_sizes=(hidden,), disable_tp=DATA_PARALLEL)]
    return out
