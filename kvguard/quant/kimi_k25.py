"""Kimi-K2.5 / K2.6 at model construction, vLLM 0.15.0 – 0.33.0 (what the ``deepseek_v2`` family of
kvguard/data/quant_archs.json cannot say by itself).

Mirrors vllm/model_executor/models/kimi_k25.py and kimi_k25_vit.py (read in 0.15.0, 0.16.0, 0.17.0, 0.19.0,
0.22.0, 0.24.0, 0.25.0, 0.26.0, 0.27.0, 0.28.0, 0.29.0, 0.31.0, 0.33.0), vllm/model_executor/models/vision.py
(``is_vit_use_data_parallel``) and vllm/transformers_utils/configs/kimi_k25.py (the vision config's attribute names).

``KimiK25ForConditionalGeneration`` builds, in this order, the MoonViT vision tower, the multimodal projector
(replicated linears) and then DeepSeek-V3's language model on ``text_config`` (the ``deepseek_v2`` family's layers):
from 0.16.0 ``DeepseekV2ForCausalLM`` under ``language_model`` (its decoder at ``language_model.model``, its head at
``language_model.lm_head``); in 0.15.x a bare ``DeepseekV2Model`` named ``language_model`` (its layers at
``language_model.layers``) and, beside it, an ``lm_head`` built without the quantization config (the family's
release-ranged ``root`` / ``head``; kvguard.quant.modelopt_shards.lm_head).  What this module adds:

- the vision tower's sharding (:func:`vision_refusal`): each encoder block splits its heads and its MLP / output
  projections by tp (``divide``: heads, then the MLP's intermediate size, then the attention width — the hidden size,
  or from 0.27.0 the vision config's ``qkv_hidden_size`` when set: :func:`attention_width`) unless the encoder
  runs data-parallel — ``--mm-encoder-tp-mode data``, or from 0.26.0 a head count tp does not divide (vision.py
  falls back to data parallelism).  The sizes are the vision config's ``num_attention_heads`` / ``intermediate_size``
  / ``hidden_size`` (the checkpoints' ``vt_*`` keys are not read by the config class: 16 / 4304 / 1152);
- which launches build the tower quantized (:func:`unmodelled`): up to 0.16.x the tower and projector are built
  without the quantization config; from 0.17.0 they receive it unless it is compressed-tensors.  Decided: no
  quantization, compressed-tensors, and ModelOpt whose exclusion list (after the mapper) leaves every tower and
  projector layer unquantized (nvidia's exports exclude ``vision_tower*`` / ``mm_projector*``); other methods on
  0.17.0+ (a quantized tower) stay open;
- :func:`exclusion_names`: the checkpoint-name mapper (:data:`MAPPER_SINCE`) that ModelOpt's exclusion list passes
  through:
  ``language_model.layers.`` → ``language_model.model.layers.`` (older NVFP4 exports), after the ``a*`` → ``a``,
  ``a.*`` split.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import KIMI_K25_ARCH
from .wrappers import renamed

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "SINCE", "attention_width", "exclusion_names", "tower_sizes", "unmodelled", "vision_refusal"]

ARCH = KIMI_K25_ARCH
#: the first release that registers the wrapper
SINCE = "0.15.0"
#: the first release whose wrapper builds the language model as DeepseekV2ForCausalLM under ``language_model`` (its
#: head built with the quantization config) and maps checkpoint names (``hf_to_vllm_mapper``)
MAPPER_SINCE = "0.16.0"
#: from this release the vision tower and projector receive the quantization config (compressed-tensors excepted)
TOWER_QUANT_SINCE = "0.17.0"
#: from this release a head count tp does not divide makes the vision encoder run data-parallel (vision.py)
DP_FALLBACK_SINCE = "0.26.0"
#: from this release the encoder's attention width is the vision config's qkv_hidden_size when it sets one (Kimi-K3's
#: 1536), else its hidden size
QKV_HIDDEN_SINCE = "0.27.0"
#: KimiK25ForConditionalGeneration.hf_to_vllm_mapper's prefix renames that reach the language model's names
_PREFIXES = (("language_model.layers.", "language_model.model.layers."),)
#: the tower's and projector's linear layers, as the release names them (one encoder block stands for all)
_TOWER_LAYERS = ("vision_tower.encoder.blocks.0.mlp.fc0", "vision_tower.encoder.blocks.0.mlp.fc1",
                 "vision_tower.encoder.blocks.0.wqkv", "vision_tower.encoder.blocks.0.wo",
                 "mm_projector.linear_1", "mm_projector.linear_2")
_CT = "compressed-tensors"


def exclusion_names(names: "list[str]") -> "list[str]":
    """A ModelOpt exclusion list after the wrapper's checkpoint-name mapper (the caller has split ``a*``)."""
    return renamed(names, _PREFIXES)


def tower_sizes(resolved_top: Mapping[str, Any]) -> "Optional[tuple[int, int, int]]":
    """The MoonViT tower's (heads, intermediate size, hidden size), or None unless the config gives all three as
    positive integers."""
    sizes = resolved_top.get("vision_tower")
    if not isinstance(sizes, Mapping):
        return None
    values = (sizes.get("num_attention_heads"), sizes.get("intermediate_size"), sizes.get("hidden_size"))
    if not all(type(v) is int and v > 0 for v in values):
        return None
    return values  # type: ignore[return-value]


def attention_width(resolved_top: Mapping[str, Any], release) -> "Optional[int]":
    """The width of each encoder block's attention (``wqkv``'s outputs per kind, ``wo``'s input): the vision config's
    ``qkv_hidden_size`` from 0.27.0 when it sets one, else its hidden size; None when the tower's sizes are not read
    or ``qkv_hidden_size`` is neither unset nor a positive integer."""
    sizes = tower_sizes(resolved_top)
    if sizes is None:
        return None
    width = (resolved_top.get("vision_tower") or {}).get("qkv_hidden_size")
    if width is None or not release.within(QKV_HIDDEN_SINCE):
        return sizes[2]
    return width if type(width) is int and width > 0 else None


def unmodelled(resolved_top: Mapping[str, Any], method: "Optional[str]", release,
               tower_state: "Optional[Callable[[str], str]]" = None,
               ignore: "tuple[str, ...]" = ()) -> "Optional[str]":
    """Why the construction of this Kimi-K2.5 launch is not decided (``method``: the checkpoint's or
    ``--quantization``'s, None unquantized; ``tower_state(prefix)``: the ModelOpt exclusion list's answer for a
    layer, ``skipped`` when it leaves it unquantized; ``ignore``: a compressed-tensors ignore list), or None."""
    if attention_width(resolved_top, release) is None:
        return f"the vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not modelled"
    if (method == _CT and release.within(MAPPER_SINCE)
            and any(isinstance(n, str) and n.startswith(_PREFIXES[0][0]) for n in ignore)):
        # the mapper renames these in vLLM; kvguard's compressed-tensors lookup reads the names as written
        return (f"a compressed-tensors ignore list naming {_PREFIXES[0][0]}* (renamed by {ARCH}'s checkpoint-name "
                f"mapper) is not modelled")
    if method is None or method == _CT or not release.within(TOWER_QUANT_SINCE):
        return None
    if method.startswith("modelopt") and tower_state is not None:
        quantized = [p for p in _TOWER_LAYERS if tower_state(p) != "skipped"]
        if not quantized:
            return None
        return (f"the {method} vision tower / projector of {ARCH} ({quantized[0]} not excluded: the wrapper hands it "
                f"the quantization config) is not modelled")
    return (f"the {method} vision tower / projector of {ARCH} (the wrapper hands them the quantization config) "
            f"is not modelled")


def vision_refusal(resolved_top: Mapping[str, Any], tp: int, mm_encoder_tp_mode: str,
                   release) -> "Optional[tuple[str, dict[str, int], str]]":
    """The vision tower's sharding refusal (``(check, values, layer)``), or None when it builds."""
    sizes, width = tower_sizes(resolved_top), attention_width(resolved_top, release)
    if sizes is None or width is None or tp == 1 or mm_encoder_tp_mode == "data":
        return None
    heads, intermediate = sizes[:2]
    if heads % tp != 0 and release.within(DP_FALLBACK_SINCE):
        return None  # is_vit_use_data_parallel(num_heads): the encoder runs data-parallel
    block = "vision_tower.encoder.blocks.0"
    # MoonViTEncoderLayer: the heads per rank, then MLP2's fc0 (column) / fc1 (row), then wqkv and wo (row: the
    # attention width)
    for size, layer in ((heads, block), (intermediate, f"{block}.mlp.fc0"), (width, f"{block}.wo")):
        if size % tp != 0:
            return "MI_divide", {"numerator": size, "denominator": tp}, layer
    return None


if TYPE_CHECKING:
    from collections.abc import Callable
