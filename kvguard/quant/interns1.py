"""Intern-S1's / InternVL's multimodal wrapper (``InternS1ForConditionalGeneration``, which vLLM also registers for
transformers' ``InternVLForConditionalGeneration`` checkpoints) at model construction, vLLM 0.10.2 – 0.33.0: the
InternViT vision tower the ``qwen3_moe`` family of kvguard/data/quant_archs.json cannot say by itself.

Mirrors vllm/model_executor/models/interns1.py (``InternS1ForConditionalGeneration``: the construction order, its
``hf_to_vllm_mapper``, ``InternS1MultiModalProjector``) and interns1_vit.py (``InternS1VisionModel`` /
``InternS1VisionEncoder`` / ``InternS1VisionLayer`` / ``InternSdpaAttention`` / ``InternS1VisionMLP``), read in
0.10.2, 0.11.0, 0.11.1, 0.24.0, 0.26.0, 0.31.0, 0.32.0 and 0.33.0 (the construction order and the encoder's missing
quantization config also in 0.12.0 – 0.23.0).

The wrapper builds the vision tower first (prefix ``vision_tower``), then (up to 0.14.x) the language model and the
projector, or (from 0.15.0) the projector and the language model; the projector's two layers are plain
``nn.Linear`` (no sharding, no quantization method), so the order changes nothing kvguard checks.  The language
model is the registered class of ``text_config.architectures[0]`` under ``language_model``; kvguard walks it only
for Qwen3-MoE (the ``qwen3_moe`` family).  Each of the tower's ``num_hidden_layers`` layers builds its attention
from ``nn.Linear`` layers (no sharding) and then ``mlp.fc1`` (column) and ``mlp.fc2`` (row): ``InternS1VisionModel``
hands its encoder no quantization config in any release read, so both are built unquantized whatever the
checkpoint holds, and only their tp split can refuse (``12800 is not divisible by 3``).  The wrapper does not
declare ``supports_encoder_tp_data``, so ``--mm-encoder-tp-mode data`` falls back to ``weights`` (ModelConfig): the
tower's MLP is always split by tp.

Left open (:func:`unmodelled`): another language model than Qwen3-MoE; a tower whose width the head count does not
divide (``InternSdpaAttention``'s ValueError); methods other than :data:`METHODS`; an exclusion list the wrapper's
mapper would rewrite where the method's config does not map it; ``--limit-mm-per-prompt`` /
``--language-model-only`` (from 0.15.0 no tower is built when image and video are limited to 0) and pipeline
parallelism.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import INTERNS1_ARCHS
from .wrappers import MAPPED_SINCE, exclusion_mapper, past_the_tower, tower_sizes, unmapped_exclusions

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCHS", "EPLB_LANGUAGE_MODEL_SINCE", "LANGUAGE_MODEL", "METHODS", "ignored_names", "tower_layers",
           "unmodelled"]

ARCHS = INTERNS1_ARCHS
#: the text architecture whose construction kvguard walks under the wrapper (the ``qwen3_moe`` family)
LANGUAGE_MODEL = "Qwen3MoeForCausalLM"
#: the first release whose V1 worker, given ``--enable-eplb``, registers the wrapper's language model (the wrapper
#: implements no ``MixtureOfExperts`` in any release read; before, the worker's first EPLB step asserts on it:
#: W_eplb_no_moe_model), as for GLM-4.5V's (vllm/v1/worker/gpu_model_runner.py, 0.21.0 / 0.22.1)
EPLB_LANGUAGE_MODEL_SINCE = "0.22.0"
#: the checkpoint methods whose construction is proven through the wrapper (None: unquantized; ``fp8``: block FP8
#: checkpoints and ``--quantization fp8``)
METHODS = (None, "fp8")
#: the wrapper's hf_to_vllm_mapper prefix renames (every release read), applied in order
_PREFIXES = (("lm_head.", "language_model.lm_head."), ("model.language_model.", "language_model.model."),
             ("model.vision_tower.", "vision_tower."), ("model.multi_modal_projector.", "multi_modal_projector."))
_SIZES = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers")
_ROOT = "vision_tower.encoder.layer"


ignored_names = exclusion_mapper(_PREFIXES)


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, Any]]":
    return tower_sizes(resolved_top, _SIZES, ("hidden_size", "num_attention_heads"))


def unmodelled(facts, architecture: str, method: "Optional[str]", ignored: "tuple[str, ...]", launch,
               release) -> "Optional[str]":
    """Why the construction of this launch of the wrapper ``architecture`` is not decided, or None
    (kvguard.quant.wrappers)."""
    resolved_top = facts.resolved_top
    text = resolved_top.get("text_architectures")
    if not isinstance(text, list) or not text or text[0] != LANGUAGE_MODEL:
        return (f"the language model {text[0] if isinstance(text, list) and text else None!r} of {architecture} "
                f"is not modelled (only {LANGUAGE_MODEL})")
    if _tower(resolved_top) is None:
        return (f"the InternViT vision tower of {architecture} with sizes {resolved_top.get('vision_tower')!r} is not "
                f"modelled")
    # the tower is never quantized: the method list is the language model's
    return past_the_tower(architecture, method, METHODS,
                          unmapped_exclusions(method, tuple(ignored), _PREFIXES, architecture, release, MAPPED_SINCE),
                          launch, "which stage builds the vision tower", method_why="")


def tower_layers(resolved_top: Mapping[str, Any], architecture: "Optional[str]" = None,
                 method: "Optional[str]" = None, release=None) -> "list[Any]":
    """The InternViT encoder's sharded linear layers in construction order (global sizes; none when the sizes are
    not modelled): per layer ``mlp.fc1`` and ``mlp.fc2``, never quantized, whatever the method."""
    from . import Layer

    sizes = _tower(resolved_top)
    if sizes is None:
        return []
    width, inner = sizes["hidden_size"], sizes["intermediate_size"]
    out = []
    for n in range(sizes["num_hidden_layers"]):
        layer = f"{_ROOT}.{n}"
        out += [Layer(-1, f"{layer}.mlp.fc1", "column", input_size=width, output_sizes=(inner,), quantized=False),
                Layer(-1, f"{layer}.mlp.fc2", "row", input_size=inner, output_sizes=(width,), quantized=False)]
    return out
