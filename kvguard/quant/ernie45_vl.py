"""ERNIE-4.5-VL (``Ernie4_5_VLMoeForConditionalGeneration``) at model construction, vLLM 0.10.2 – 0.33.0: the first
vision block's head split, which refuses before any layer of the model is built.

Mirrors vllm/model_executor/models/ernie45_vl.py (``Ernie4_5_VLMoeForConditionalGeneration.__init__``,
``Ernie4_5_VisionTransformer``, ``Ernie4_5_VisionBlock``, ``Ernie4_5_VisionAttention``), read in 0.10.2, 0.11.0,
0.11.1, 0.24.0, 0.26.0, 0.27.0, 0.31.0, 0.32.0 and 0.33.0, and ernie45_vl_moe.py (the language model), read in the
same releases.

The wrapper builds its DFNRope vision transformer first (prefix ``vision_model``), with the checkpoint's
quantization config: a patch embedding (a plain ``nn.Linear``), the rotary embedding, then ``depth`` blocks.  The first
block's attention divides the tower's width (``embed_dim``) by ``num_heads`` and then ``num_heads`` by tp (vLLM's
``divide``: ``AssertionError: {a} is not divisible by {b}``) before it builds its ``qkv`` layer — whatever the
quantization, the parallel layout or the language model.  Those two divisions are decided here.  The wrapper does not
declare ``supports_encoder_tp_data``: ``--mm-encoder-tp-mode data`` falls back to ``weights`` in ModelConfig (every
release), so the tower is always split by tp.

Everything after them is not modelled (:data:`PAST_HEAD_SPLIT`): the tower's layers (``attn.qkv`` QKV, ``attn.proj``
row, ``mlp.fc1`` column, ``mlp.fc2`` row), the resampler (column layers that gather their output, built without the
quantization config — it reads ``config.quant_config``, which the checkpoint's config does not have; built after the
language model in 0.10.2 – 0.11.x, before it from the release that marks the towers), and the language model: its
attention, its dense layers, and its MoE layers, each with shared experts, a text and a vision expert group (a
router, ``ReplicatedLinear`` built with the quantization config, and a ``FusedMoE`` each, by the per-group
``moe_layer_start_index`` / ``moe_layer_end_index``; a layer of the MoE range outside one group's range builds a
dense MLP for it instead), and ``Tensor parallel size {tp} is greater than the number of experts {moe_num_experts}.``
Also left open: a launch limiting the multimodal inputs (``_mark_tower_model`` builds no tower when every modality
is limited to 0), and a tower whose sizes are not positive integers.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import ERNIE45_VL_ARCH
from .wrappers import tower_left_out

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "PAST_HEAD_SPLIT", "TOWER_SIZES", "before_vision_layers"]

ARCH = ERNIE45_VL_ARCH
#: the vision config's attributes the first block's head split reads (kvguard.facts.model snapshots them)
TOWER_SIZES = ("depth", "embed_dim", "num_heads")
#: why a launch whose first vision block divides its heads is not decided
PAST_HEAD_SPLIT = (f"the model construction of {ARCH} past its first vision block's head split (the vision "
                   f"tower's layers, the resampler, the language model's text and vision expert groups) is not "
                   f"modelled")
#: the attention the refusal names
_FIRST_ATTENTION = "vision_model.blocks.0.attn"


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, int]]":
    sizes = resolved_top.get("vision_tower")
    if not isinstance(sizes, Mapping) or not all(type(sizes.get(k)) is int and sizes[k] > 0 for k in TOWER_SIZES):
        return None
    return {k: sizes[k] for k in TOWER_SIZES}


def before_vision_layers(resolved_top: Mapping[str, Any], tp: int, mm_limits: bool) -> tuple:
    """What the construction up to the first vision block's ``qkv`` layer answers: ``("refused", check, values,
    layer)`` or ``("unmodelled", reason)`` (:data:`PAST_HEAD_SPLIT` when the head split passes).  ``mm_limits``:
    --limit-mm-per-prompt or --language-model-only given, with which the wrapper may build no tower."""
    sizes = _tower(resolved_top)
    if sizes is None:
        return ("unmodelled", f"the vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not "
                              f"modelled")
    width, heads = sizes["embed_dim"], sizes["num_heads"]
    for numerator, denominator in ((width, heads), (heads, tp)):
        if numerator % denominator:
            if mm_limits:
                return ("unmodelled", tower_left_out(ARCH))
            return ("refused", "MI_divide", {"numerator": numerator, "denominator": denominator}, _FIRST_ATTENTION)
    return ("unmodelled", PAST_HEAD_SPLIT)
