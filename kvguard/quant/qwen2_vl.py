"""Qwen2-VL and Qwen2.5-VL at model construction, vLLM 0.10.2 – 0.33.0 (the vision tower the ``llama`` family of
kvguard/data/quant_archs.json cannot say by itself).

Mirrors vllm/model_executor/models/qwen2_vl.py and qwen2_5_vl.py (``Qwen2VisionTransformer`` / ``Qwen2VisionBlock`` /
``Qwen2VisionAttention`` / ``Qwen2VisionMLP`` / ``Qwen2VisionPatchMerger``, their ``Qwen2_5_Vision*`` counterparts,
the wrappers' ``hf_to_vllm_mapper`` and the quantization config they hand the tower), read in 0.10.2, 0.11.0, 0.12.0,
0.13.0, 0.15.0, 0.17.0, 0.17.1, 0.20.0, 0.22.1, 0.24.0, 0.26.0, 0.28.0, 0.30.0, 0.31.0, 0.32.0 and 0.33.0 (the
tower's linear layers, their classes and names are the same in all of them).

``Qwen2VLForConditionalGeneration`` / ``Qwen2_5_VLForConditionalGeneration`` build the vision transformer first
(prefix ``visual``), then Qwen2's language model on the text config (prefix ``language_model``: the decoder at
``language_model.model``, the ``llama`` family's layers).  The tower's linear layers, in construction order
(:func:`tower_layers`), each block's attention first dividing the head count by tp (``divide``):

- Qwen2.5-VL, each of the ``depth`` blocks: ``attn.qkv`` (QKV, every head its own KV head), ``attn.proj`` (row),
  ``mlp.gate_up_proj`` (merged, twice ``intermediate_size``), ``mlp.down_proj`` (row); then the patch merger's
  ``merger.mlp.0`` (column, ``hidden_size * spatial_merge_size**2`` to itself) and ``merger.mlp.2`` (row, to
  ``out_hidden_size``);
- Qwen2-VL, each block: ``attn.qkv`` (column, ``embed_dim`` to three times it), ``attn.proj`` (row), ``mlp.fc1``
  (column, to ``int(embed_dim * mlp_ratio)``), ``mlp.fc2`` (row); then ``merger.mlp.0`` / ``merger.mlp.2`` (to the
  vision config's ``hidden_size``, the language model's width).

Every one of them is built with ``disable_tp`` when the encoder runs data-parallel (``--mm-encoder-tp-mode data``).
The tower takes the checkpoint's quantization config, but for GPTQ in 0.10.2 (``_maybe_ignore_quant_config`` hands
``GPTQConfig`` / ``GPTQMarlinConfig`` None there; from 0.11.0 the wrappers hand the config as it is).

Left open (:func:`unmodelled`): a tower whose sizes are not whole (or, in Qwen2.5-VL, whose MLP activation is not
``silu``), methods other than :data:`METHODS`, an exclusion list the wrapper's checkpoint-name mapper would rewrite
where the method's config does not map it (:data:`MAPPED_SINCE`: ``Fp8Config`` in every release, AWQ from 0.11.1;
GPTQ and compressed-tensors are decided on lists the mapper leaves as written), ``--limit-mm-per-prompt`` / ``--language-model-only`` (no tower
built when every modality is limited to 0) and pipeline parallelism.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import QWEN2_VL_ARCHS, TOWER_DATA_PARALLEL
from .wrappers import MAPPED_SINCE, exclusion_mapper, past_the_tower, tower_sizes, unmapped_exclusions

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCHS", "MAPPED_SINCE", "METHODS", "head_split_refused", "ignored_names", "refused", "tower_layers",
           "tower_quantized", "unmodelled"]

ARCHS = QWEN2_VL_ARCHS
QWEN2_5_ARCH, QWEN2_ARCH = ARCHS
#: the checkpoint methods whose construction is proven through the tower (None: unquantized)
METHODS = (None, "fp8", "awq", "gptq", "compressed-tensors")
#: the first release whose wrappers hand a GPTQ config to the tower (0.10.2: built unquantized)
GPTQ_TOWER_SINCE = "0.11.0"
DATA_PARALLEL = TOWER_DATA_PARALLEL
#: the wrappers' hf_to_vllm_mapper prefix renames (every release read), applied in order
_PREFIXES = (("model.language_model.", "language_model.model."), ("model.visual.", "visual."),
             ("lm_head.", "language_model.lm_head."), ("model.", "language_model.model."))
_SIZES = {QWEN2_5_ARCH: ("hidden_size", "num_heads", "intermediate_size", "depth", "out_hidden_size",
                         "spatial_merge_size"),
          QWEN2_ARCH: ("embed_dim", "num_heads", "depth", "hidden_size", "spatial_merge_size")}


def _tower(resolved_top: Mapping[str, Any], architecture: str) -> "Optional[dict[str, Any]]":
    sizes = tower_sizes(resolved_top, _SIZES[architecture]) if architecture in _SIZES else None
    if sizes is None:
        return None
    if architecture == QWEN2_5_ARCH:
        if sizes.get("hidden_act") != "silu":
            return None  # get_act_and_mul_fn's other activations: not modelled
        width = sizes["hidden_size"]
    else:
        ratio = sizes.get("mlp_ratio")
        if type(ratio) not in (int, float) or isinstance(ratio, bool) or int(sizes["embed_dim"] * ratio) <= 0:
            return None
        width = sizes["embed_dim"]
    if width % sizes["num_heads"] != 0:
        return None  # the head size's own divide() refuses at any tp: not modelled
    return dict(sizes)


def tower_quantized(method: "Optional[str]", release) -> bool:
    """Whether the wrapper hands the tower the checkpoint's quantization config."""
    return not (method == "gptq" and not release.within(GPTQ_TOWER_SINCE))


ignored_names = exclusion_mapper(_PREFIXES)


def unmodelled(facts, architecture: str, method: "Optional[str]", ignored: "tuple[str, ...]", launch,
               release) -> "Optional[str]":
    """Why the construction of this Qwen2-VL / Qwen2.5-VL launch is not decided, or None (kvguard.quant.wrappers)."""
    resolved_top = facts.resolved_top
    if _tower(resolved_top, architecture) is None:
        return (f"the vision tower of {architecture} with sizes {resolved_top.get('vision_tower')!r} is not "
                f"modelled")
    return past_the_tower(architecture, method, METHODS,
                          unmapped_exclusions(method, tuple(ignored), _PREFIXES, architecture, release, MAPPED_SINCE),
                          launch, "which stage builds the vision tower")


def refused(resolved_top: Mapping[str, Any], architecture: str,
            launch) -> "Optional[tuple[str, dict[str, int], str]]":
    """(kvguard.quant.wrappers) Qwen2-VL's head split (:func:`head_split_refused`) as ``(check, values, layer)``."""
    split = head_split_refused(resolved_top, architecture, launch)
    if split is None:
        return None
    return "MI_divide", {"numerator": split[0], "denominator": split[1]}, split[2]


def head_split_refused(resolved_top: Mapping[str, Any], architecture: str,
                       launch) -> "Optional[tuple[int, int, str]]":
    """Qwen2-VL's first block divides its heads by tp before it builds a layer (``Qwen2VisionAttention``; its
    ``qkv`` is a plain column layer that checks no head count): (heads, tp, the attention's name) when that refuses,
    else None.  (Qwen2.5-VL's ``QKVParallelLinear`` divides the same numbers: its qkv layer's own check.)"""
    sizes = _tower(resolved_top, architecture)
    if architecture != QWEN2_ARCH or sizes is None or launch.mm_encoder_tp_mode == "data":
        return None
    if sizes["num_heads"] % launch.tp != 0:
        return sizes["num_heads"], launch.tp, "visual.blocks.0.attn"
    return None


def tower_layers(resolved_top: Mapping[str, Any], architecture: str, method: "Optional[str]" = None,
                 release=None) -> "list[Any]":
    """The vision transformer's linear layers in construction order (global sizes; none when the sizes are not
    modelled); built without the quantization config where the wrapper does not hand the tower ``method``'s
    (:func:`tower_quantized`; ``release`` is read only for a method)."""
    from . import Layer

    quantized = tower_quantized(method, release)

    sizes = _tower(resolved_top, architecture)
    if sizes is None:
        return []
    heads = sizes["num_heads"]
    out = []
    if architecture == QWEN2_5_ARCH:
        width, inner = sizes["hidden_size"], sizes["intermediate_size"]
        for n in range(sizes["depth"]):
            block = f"visual.blocks.{n}"
            out += [Layer(-1, f"{block}.attn.qkv", "qkv", input_size=width, qkv=(width, width // heads, heads, heads)),
                    Layer(-1, f"{block}.attn.proj", "row", input_size=width, output_sizes=(width,)),
                    Layer(-1, f"{block}.mlp.gate_up_proj", "merged", input_size=width, output_sizes=(inner, inner),
                          shards=("gate_proj", "up_proj")),
                    Layer(-1, f"{block}.mlp.down_proj", "row", input_size=inner, output_sizes=(width,))]
        merged, out_size = width * sizes["spatial_merge_size"] ** 2, sizes["out_hidden_size"]
    else:
        width = sizes["embed_dim"]
        inner = int(width * sizes["mlp_ratio"])
        for n in range(sizes["depth"]):
            block = f"visual.blocks.{n}"
            out += [Layer(-1, f"{block}.attn.qkv", "column", input_size=width, output_sizes=(3 * width,),
),
                    Layer(-1, f"{block}.attn.proj", "row", input_size=width, output_sizes=(width,)),
                    Layer(-1, f"{block}.mlp.fc1", "column", input_size=width, output_sizes=(inner,)),
                    Layer(-1, f"{block}.mlp.fc2", "row", input_size=inner, output_sizes=(width,))]
        merged, out_size = width * sizes["spatial_merge_size"] ** 2, sizes["hidden_size"]
    out += [Layer(-1, "visual.merger.mlp.0", "column", input_size=merged, output_sizes=(merged,)),
            Layer(-1, "visual.merger.mlp.2", "row", input_size=merged, output_sizes=(out_size,))]
    return [Layer(layer.index, layer.prefix, layer.kind, input_size=layer.input_size,
                  output_sizes=layer.output_sizes, shards=layer.shards, qkv=layer.qkv, names=layer.names,
                  disable_tp=DATA_PARALLEL, quantized=quantized) for layer in out]
