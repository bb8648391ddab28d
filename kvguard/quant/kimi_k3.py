"""Kimi-K3 at model construction, vLLM 0.27.0 – 0.33.0: the layers built before the first decoder layer.

Mirrors vllm/models/kimi_k3/nvidia/model.py (``KimiK3ForConditionalGeneration`` and ``KimiLinearModel``, the class a
CUDA host imports through vllm/models/kimi_k3/__init__.py; read in 0.27.0, 0.29.0, 0.30.0 and 0.33.0),
vllm/model_executor/models/kimi_k25_vit.py (the vision tower it reuses) and vllm/model_executor/models/config.py
(``KimiK3ForConditionalGenerationConfig``).

``KimiK3ForConditionalGeneration`` builds, in this order, Kimi-K2.5's MoonViT vision tower (its sharding, and the
data-parallel fall-back for a head count tp does not divide, are :func:`kvguard.quant.kimi_k25.vision_refusal`'s),
the multimodal projector (replicated linears), then ``KimiLinearForCausalLM`` on ``text_config`` under
``language_model``, whose first layer is the vocabulary embedding (``VocabParallelEmbedding``: the vocabulary padded
to 64, divided by tp).  Those are decided here.  The decoder layers after them (Kimi Delta Attention, MLA with its
output gate, the latent MoE) are not: the unquantized experts' backend and the MXFP4 experts' backend are the GPU
host's choice, so a launch that passes the embedding stays undecided (:data:`DECODER`).

The checkpoint's ``quantization_config`` (compressed-tensors, ``format: mxfp4-pack-quantized``) is rewritten to
``mxfp4`` by ``KimiK3ForConditionalGenerationConfig`` in every release (:func:`rewritten_method`, which
kvguard.quant.verify reads: the method ModelConfig checks against ``--quantization`` and VllmConfig's dtypes): ``Mxfp4Config`` builds every linear layer,
the tower's included, with the unquantized linear method, so the tower and the embedding shard as in the
unquantized model.  Other quantization (another method, ``--quantization``) is left undecided.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import kimi_k25 as _kimi_k25
from .embedding import padded_vocabulary
from .names import KIMI_K3_ARCH
from .wrappers import tower_left_out

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "DECODER", "SINCE", "before_decoder", "rewritten_method"]

ARCH = KIMI_K3_ARCH
#: the first release that registers the architecture
SINCE = "0.27.0"
#: the compressed-tensors format KimiK3ForConditionalGenerationConfig rewrites to the mxfp4 method
MXFP4_PACK = "mxfp4-pack-quantized"
#: why a launch past the embedding is not decided
DECODER = (f"the decoder layers of {ARCH} (Kimi Delta Attention, MLA, the latent MoE whose experts' backend the GPU "
           f"host chooses) are not modelled")
_EMBEDDING = "language_model.model.embed_tokens"


def rewritten_method(resolved_top: Mapping[str, Any], cfg: Mapping[str, Any], release) -> "Optional[str]":
    """``mxfp4`` when ``KimiK3ForConditionalGenerationConfig`` rewrites the checkpoint's quantization config — a
    Kimi-K3 model's compressed-tensors config (``quant_method`` spelled so, not lower-cased) of format
    mxfp4-pack-quantized, 0.27.0+ — before ``ModelConfig._verify_quantization`` reads it; else None."""
    if (ARCH in (resolved_top.get("architectures") or ()) and release.within(SINCE)
            and cfg.get("quant_method") == "compressed-tensors" and cfg.get("format") == MXFP4_PACK):
        return "mxfp4"
    return None


def _quantization_unmodelled(quant_cfg: Mapping[str, Any], quantization: "Optional[str]") -> "Optional[str]":
    if quantization is not None:
        return f"--quantization {quantization} with {ARCH} is not modelled"
    if not quant_cfg:
        return None
    method, fmt = quant_cfg.get("quant_method"), quant_cfg.get("format")
    if method == "compressed-tensors" and fmt == MXFP4_PACK:
        return None  # rewritten to mxfp4: no linear layer is quantized
    return f"the {method} ({fmt}) weight-shard checks of {ARCH} are not modelled"


def before_decoder(resolved: Mapping[str, Any], resolved_top: Mapping[str, Any], quant_cfg: Mapping[str, Any],
                   quantization: "Optional[str]", tp: int, pp: int, mm_encoder_tp_mode: str, mm_limits: bool,
                   release) -> tuple:
    """What the construction up to the first decoder layer answers: ``("refused", check, values, layer)``, or
    ``("unmodelled", reason)`` (:data:`DECODER` when the embedding builds).  ``mm_limits``: --limit-mm-per-prompt or
    --language-model-only given, with which the wrapper may build no tower (``_mark_tower_model``)."""
    if not release.within(SINCE):
        return ("unmodelled", f"the model construction of {ARCH} before vLLM {SINCE} is not modelled")
    why = _quantization_unmodelled(quant_cfg, quantization)
    if why is not None:
        return ("unmodelled", why)
    if _kimi_k25.attention_width(resolved_top, release) is None:
        return ("unmodelled", f"the vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not "
                              f"modelled")
    refused = _kimi_k25.vision_refusal(resolved_top, tp, mm_encoder_tp_mode, release)
    if refused is not None:
        return ("unmodelled", tower_left_out(ARCH)) if mm_limits else ("refused", *refused)
    vocab = resolved.get("vocab_size")
    if type(vocab) is not int or vocab < 1:
        return ("unmodelled", f"the model construction of {ARCH} with vocab_size={vocab!r} is not modelled")
    if pp != 1:
        # the first stage builds the embedding, the last the LM head: which stage's refusal the launch reports
        return ("unmodelled", f"the model construction of {ARCH} with {pp} pipeline stages is not modelled")
    padded = padded_vocabulary(vocab)
    if padded % tp:
        return ("refused", "MI_divide", {"numerator": padded, "denominator": tp}, _EMBEDDING)
    return ("unmodelled", DECODER)
