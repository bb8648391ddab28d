"""Gemma 3's multimodal wrapper (``Gemma3ForConditionalGeneration``) at model construction, vLLM 0.10.2 – 0.33.0:
the SigLIP vision tower the ``gemma3`` family of kvguard/data/quant_archs.json cannot say by itself.

Mirrors vllm/model_executor/models/gemma3_mm.py (``Gemma3ForConditionalGeneration``: the construction order, its
``hf_to_vllm_mapper``, ``Gemma3MultiModalProjector``) and siglip.py (``SiglipVisionModel`` /
``SiglipVisionTransformer`` / ``SiglipEncoderLayer`` / ``SiglipAttention`` / ``SiglipMLP``), read in 0.10.2, 0.11.0,
0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.17.0, 0.20.0, 0.24.0, 0.28.0, 0.31.0 and 0.33.0.

The wrapper builds the vision tower first with the checkpoint's quantization config (prefix
``vision_tower.vision_model``), then the projector (a plain weight and a norm: no linear layer), then Gemma 3's
text model (``Gemma3ForCausalLM``, the ``gemma3`` family, prefix ``language_model``).  Each of the tower's
``num_hidden_layers`` encoder layers (:func:`tower_layers`) builds ``self_attn.qkv_proj`` (QKV, every head its own KV
head), ``self_attn.out_proj`` (row), ``mlp.fc1`` (column) and ``mlp.fc2`` (row); ``SiglipMLP`` hands its two
layers the quantization config only when the tower's hidden and intermediate sizes are both multiples of 64 (the
published tower's 4304 is not: its MLP is built unquantized whatever the checkpoint holds).  The wrapper does not
declare ``supports_encoder_tp_data``, so ``--mm-encoder-tp-mode data`` falls back to ``weights`` in every release
(ModelConfig): the tower is always split by tp.

Left open (:func:`unmodelled`): a tower whose width the head count does not divide (``SiglipAttention``'s
ValueError) or whose activation is not ``gelu_pytorch_tanh``; the attention-pooling head up to 0.14.x (built when
the vision config does not set ``vision_use_head`` false; from 0.15.0 the wrapper never builds it); methods other
than :data:`METHODS`; an exclusion list the wrapper's mapper would rewrite where the method's config does not map it
(:data:`MAPPED_SINCE`); ``--limit-mm-per-prompt`` / ``--language-model-only`` (from 0.15.0 no tower is
built when the image limit is 0) and pipeline parallelism.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import GEMMA3_MM_ARCH
from .wrappers import MAPPED_SINCE as _WRAPPERS_MAPPED_SINCE
from .wrappers import exclusion_mapper, past_the_tower, tower_sizes, unmapped_exclusions

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "MAPPED_SINCE", "METHODS", "ignored_names", "tower_layers", "unmodelled"]

ARCH = GEMMA3_MM_ARCH
#: the checkpoint methods whose construction is proven through the tower (None: unquantized)
METHODS = (None, "fp8", "awq", "gptq", "compressed-tensors")
#: the first release whose SigLIP transformer builds the attention-pooling head only when asked (the wrapper never
#: asks); before it, a vision config that does not set ``vision_use_head`` false builds the head
HEADLESS_SINCE = "0.15.0"
#: the methods whose exclusion list the wrapper's mapper rewrites, from the release each names: the wrappers' common
#: ones, and compressed-tensors' ``ignore`` (``apply_vllm_mapper`` in every release read; from 0.13.0 only dotted
#: entries that are no ``re:`` pattern, which every entry the prefix renames touch is)
MAPPED_SINCE = dict(_WRAPPERS_MAPPED_SINCE, **{"compressed-tensors": "0.10.2"})
#: SiglipMLP hands fc1 / fc2 the quantization config only when both sizes are multiples of this
MLP_QUANTIZABLE_MULTIPLE = 64
#: the wrapper's hf_to_vllm_mapper prefix renames (every release read), applied in order
_PREFIXES = (("model.language_model.", "language_model.model."), ("model.vision_tower.", "vision_tower."),
             ("model.multi_modal_projector.", "multi_modal_projector."), ("lm_head.", "language_model.lm_head."))
_SIZES = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers")
_ROOT = "vision_tower.vision_model.encoder.layers"


ignored_names = exclusion_mapper(_PREFIXES)


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, Any]]":
    sizes = tower_sizes(resolved_top, _SIZES, ("hidden_size", "num_attention_heads"))
    if sizes is None or sizes.get("hidden_act") != "gelu_pytorch_tanh":
        return None
    return sizes


def unmodelled(facts, architecture: str, method: "Optional[str]", ignored: "tuple[str, ...]", launch,
               release) -> "Optional[str]":
    """Why the construction of this Gemma 3 multimodal launch is not decided, or None (kvguard.quant.wrappers)."""
    resolved_top = facts.resolved_top
    sizes = _tower(resolved_top)
    if sizes is None:
        return f"the SigLIP vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not modelled"
    if sizes.get("vision_use_head") is not False and not release.within(HEADLESS_SINCE):
        return (f"the SigLIP attention-pooling head of {ARCH} (built up to 0.14.x unless the vision config sets "
                f"vision_use_head false) is not modelled")
    return past_the_tower(ARCH, method, METHODS,
                          unmapped_exclusions(method, tuple(ignored), _PREFIXES, ARCH, release, MAPPED_SINCE), launch,
                          "which stage builds the vision tower")


def tower_layers(resolved_top: Mapping[str, Any], architecture: "Optional[str]" = None,
                 method: "Optional[str]" = None, release=None) -> "list[Any]":
    """The SigLIP encoder's linear layers in construction order (global sizes; none when the sizes are not
    modelled), whatever the method."""
    from . import Layer

    sizes = _tower(resolved_top)
    if sizes is None:
        return []
    width, heads, inner = sizes["hidden_size"], sizes["num_attention_heads"], sizes["intermediate_size"]
    mlp_quantized = width % MLP_QUANTIZABLE_MULTIPLE == 0 and inner % MLP_QUANTIZABLE_MULTIPLE == 0
    out = []
    for n in range(sizes["num_hidden_layers"]):
        layer = f"{_ROOT}.{n}"
        out += [Layer(-1, f"{layer}.self_attn.qkv_proj", "qkv", input_size=width,
                      qkv=(width, width // heads, heads, heads), shards=("q_proj", "k_proj", "v_proj")),
                Layer(-1, f"{layer}.self_attn.out_proj", "row", input_size=width, output_sizes=(width,)),
                Layer(-1, f"{layer}.mlp.fc1", "column", input_size=width, output_sizes=(inner,),
                      quantized=mlp_quantized),
                Layer(-1, f"{layer}.mlp.fc2", "row", input_size=inner, output_sizes=(width,),
                      quantized=mlp_quantized)]
    return out
