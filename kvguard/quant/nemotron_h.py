"""Nemotron-H (``NemotronHForCausalLM``): the model construction up to its first Mamba-2 mixer, vLLM 0.24.0 – 0.33.0.

Mirrors vllm/model_executor/models/nemotron_h.py (``NemotronHModel.__init__``: the vocabulary embedding, then the
decoder layers in ``hybrid_override_pattern`` order, ``M`` a ``NemotronHMambaDecoderLayer`` that builds its
``MambaMixer2`` first) and vllm/model_executor/layers/mamba/mamba_mixer2.py (``MambaMixer2.__init__``), read in
0.10.2, 0.11.0, 0.11.1, 0.14.1, 0.15.1, 0.16.0, 0.20.0, 0.24.0, 0.28.0, 0.29.0 and 0.33.0.  The mixer asserts, before
it builds any weight, in this order (bare ``assert`` with a message, on the TP size):

1. ``mamba_num_heads`` divides by tp: "Tensor parallel world size must divide num heads.";
2. ``n_groups`` divides by tp, or is 1: "If tensor parallel world size does not divide num_groups, then num_groups
   must equal 1." (0.11.0+; 0.10.2 says "num_heads" in its first clause).

(0.10.2 – 0.15.x add a third with a quantization config, on tp and n_groups; 0.16.0 dropped it.)  The released
Nemotron-H checkpoints start with a Mamba layer (Nemotron-3-Nano: ``MEMEM*E…``, 8 groups), so at ``-tp 16`` the first
mixer refuses before any attention, MoE or quantized weight is built, BF16 and NVFP4 alike.

Decided here: the embedding's division and layer 0's mixer asserts, with one pipeline stage (with more, another
stage's first layer may refuse first, and which worker's error the launch reports is not modelled), from 0.24.0, the
first release whose ModelConfig reads a ``nemotron_h`` config.json without the checkpoint's remote code (transformers
5; before, the checkpoint's own configuration code builds the config, which the oracle cannot run, so those releases
stay as they were).  What the model builds after the first mixer (the mixer's own layers and the quantized weights,
the attention, the ``relu2`` non-gated MoE experts, whose backend choice on the GPU kvguard does not model) stays as
before: skipped with its reason for a quantized checkpoint, the general "no quantization: no construction check"
otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

ARCH = "NemotronHForCausalLM"

#: the first release decided here (before: the checkpoint's remote configuration code builds the config)
SINCE = "0.24.0"

#: VocabParallelEmbedding pads the vocabulary to a multiple of this before dividing it by tp
_VOCAB_PADDING = 64


def _positive_int(value: Any) -> bool:
    return type(value) is int and value >= 1


def first_mixer(resolved: Mapping[str, Any], tp: int, pp: int, release) -> tuple:
    """What the construction up to layer 0's mixer answers: ``("refused", check, values, layer)``, ``("passes",)``
    (no mixer assert refuses: what follows is not decided here) or ``("unmodelled", reason)`` (a launch this module
    does not follow in which some Mamba layer's mixer would refuse tp)."""
    answer = _first_mixer(resolved, tp, pp, release)
    if answer[0] == "unmodelled" and not _some_mixer_refuses(resolved, tp):
        return ("passes",)  # every mixer asserts the same on tp: none refuses wherever it sits
    return answer


def _first_mixer(resolved: Mapping[str, Any], tp: int, pp: int, release) -> tuple:
    if not release.within(SINCE):
        return ("unmodelled", f"the model construction of {ARCH} before vLLM {SINCE} (the config built by the "
                              f"checkpoint's remote code) is not modelled")
    pattern = resolved.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or not pattern:
        return ("unmodelled", f"the model construction of {ARCH} without a hybrid_override_pattern string is not "
                              f"modelled")
    vocab, heads, groups = (resolved.get(k) for k in ("vocab_size", "mamba_num_heads", "n_groups"))
    if not (isinstance(vocab, int) and isinstance(heads, int) and isinstance(groups, int)) or not all(
            _positive_int(v) for v in (vocab, heads, groups)):
        return ("unmodelled", f"the model construction of {ARCH} with vocab_size={vocab!r}, mamba_num_heads={heads!r}, "
                              f"n_groups={groups!r} is not modelled")
    if pp != 1:
        return ("unmodelled", f"the model construction of {ARCH} with {pp} pipeline stages (which stage's first "
                              f"layer refuses first) is not modelled")
    padded = -(-vocab // _VOCAB_PADDING) * _VOCAB_PADDING
    if padded % tp:
        return ("refused", "MI_divide", {"numerator": padded, "denominator": tp}, "model.embed_tokens")
    if pattern[0] != "M":
        return ("unmodelled", f"the model construction of {ARCH} whose first layer is {pattern[0]!r} (not a Mamba "
                              f"layer) is not modelled")
    mixer = "model.layers.0.mixer"
    if heads % tp:
        return ("refused", "MI_mamba2_heads", {}, mixer)
    if groups % tp and groups != 1:
        return ("refused", "MI_mamba2_groups", {}, mixer)
    return ("passes",)


def _some_mixer_refuses(resolved: Mapping[str, Any], tp: int) -> bool:
    """Whether a Mamba layer's mixer asserts would refuse ``tp`` wherever the layer sits (every ``MambaMixer2``
    asserts the same on tp, mamba_num_heads and n_groups).  An unreadable config counts as refusing."""
    pattern = resolved.get("hybrid_override_pattern")
    if not isinstance(pattern, str):
        return True
    if "M" not in pattern:
        return False
    heads, groups = resolved.get("mamba_num_heads"), resolved.get("n_groups")
    if not (isinstance(heads, int) and isinstance(groups, int) and _positive_int(heads) and _positive_int(groups)) \
            or type(tp) is not int or tp < 1:
        return True
    return bool(heads % tp or (groups % tp and groups != 1))

