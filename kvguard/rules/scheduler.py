"""SchedulerConfig's checks of the batch it is given against the maximum length (``SchedulerConfig.verify_max_model_len``,
vllm/config/scheduler.py from 0.11.1; ``SchedulerConfig._verify_args`` in vllm/config/__init__.py before), which
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) reaches after the speculative config and before
VllmConfig; pydantic wraps their ValueError in a ValidationError for SchedulerConfig.

- Without chunked prefill, ``--max-num-batched-tokens`` below the maximum length is refused.  Whether chunked
  prefill is on is EngineArgs' default unless the launch says: on for a generative decoder (0.10.2's V1 engine and
  0.11.0 turn it on whatever the launch says), off for an encoder-decoder model from 0.11.1; a pooling runner's
  default depends on its pooler (not modelled), 0.10.2's V0 engine (``VLLM_USE_V1=0``, and the V1 oracle's
  fallbacks) has its own.
- ``--max-num-batched-tokens`` below ``--max-num-seqs`` is refused.  A default ``max_num_seqs`` is capped at the
  batched tokens, so only a launch that gives both is refused; one that gives only ``--max-num-seqs`` meets the
  host's default batched tokens (not modelled: past 2,048 sequences, the smallest default, it is undecidable).

- ``--num-lookahead-slots`` (0.10.2 / 0.11.0) below 0 is refused, after the two checks above; a speculative config
  gives SchedulerConfig its own slot count (the draft's token count, checked positive before) in place of the
  launch's.  From 0.11.1 the field's bound refuses it with pydantic's message (kvguard.launch.argv: undecidable).
- ``--max-num-active-seqs`` (0.31.0+) above ``--max-num-seqs`` is refused (with the host's default
  ``max_num_seqs``: undecidable).
- ``--long-prefill-token-threshold`` above the maximum length is refused: from 0.27.0 always (an encoder-decoder
  model's is reset to 0 first), before only with concurrent partial prefills, which only 0.10.2 (V0 engine) and
  0.11.0 (VLLM_USE_V1 unset or 0) let reach SchedulerConfig (kvguard.rules.v1_features).  Those two also check the
  partial prefills themselves: at least 1, more than 1 only with chunked prefill, and at most as many long ones.
- The fields' pydantic bounds (``max_num_batched_tokens`` and ``max_num_seqs`` at least 1 from 0.11.1,
  ``max_num_active_seqs`` at least 1, the threshold at least 0 from 0.25.0, ``num_lookahead_slots`` at least 0 on
  0.11.1 - 0.11.2) refuse first: one ValidationError for SchedulerConfig, an error per field in the class's
  declaration order ("Input should be greater than or equal to 1").  Where the launch gives only one of batched
  tokens and sequences, below 1, EngineArgs derives the other from it, below 1 too: both are refused.  The options
  kvguard otherwise passes over join them, in the same order, given outside their bounds (kvguard.launch.argv
  carries only such values): ``max_num_scheduled_tokens`` (at least 0 on 0.26.0 - 0.31.0, 1 from 0.32.0; the
  option is 0.26.0+), ``max_num_queued_reqs`` / ``max_num_queued_tokens`` (at least 0, 0.29.0+), ``watermark``
  (``ge=0.0, lt=1.0``: "Input should be less than 1"), ``prefill_schedule_interval`` (at least 1; both 0.24.0+) and
  ``stream_interval`` (at least 1, 0.11.1+).  A non-finite watermark is undecidable.

Only batched tokens the launch gives are read: EngineArgs' default is never below the maximum length without
chunked prefill.  A maximum length the host decides (``-1`` / ``auto``, 0.14.0+) is not followed.  0.10.2's V0
engine keeps a chunked-prefill switch the launch gives; its own default (long contexts on a GPU) is not modelled.
"""

from __future__ import annotations

from .v1_features import runs_v0_engine

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ACTIVE_MESSAGE", "LENGTH_MESSAGE", "LONG_PARTIAL_MESSAGE", "LOOKAHEAD_MESSAGE", "PARTIAL_CHUNKED_MESSAGE",
           "PARTIAL_MIN_MESSAGE", "SEQS_MESSAGE", "THRESHOLD_MESSAGE", "active_above_seqs", "batched_below_length",
           "batched_below_seqs", "field_bounds", "long_partial_out_of_range", "lookahead_negative",
           "partial_needs_chunked", "partial_below_one", "pooling_launch", "scheduled_tokens_with_drafting",
           "threshold_above_length", "threshold_above_length_with_partial"]

LENGTH_MESSAGE = ("max_num_batched_tokens ({batched}) is smaller than max_model_len ({length}). This effectively "
                  "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
                  "sequences. Please increase max_num_batched_tokens or decrease max_model_len.")
SEQS_MESSAGE = "max_num_batched_tokens ({batched}) must be greater than or equal to max_num_seqs ({seqs})."
LOOKAHEAD_MESSAGE = "num_lookahead_slots ({slots}) must be greater than or equal to 0."
ACTIVE_MESSAGE = "max_num_active_seqs ({active}) cannot be greater than max_num_seqs ({seqs})."
THRESHOLD_MESSAGE = "long_prefill_token_threshold ({threshold}) cannot be greater than the max_model_len ({length})."
PARTIAL_MIN_MESSAGE = "max_num_partial_prefills ({partial}) must be greater than or equal to 1."
PARTIAL_CHUNKED_MESSAGE = "Chunked prefill must be enabled to set max_num_partial_prefills > 1."
LONG_PARTIAL_MESSAGE = ("max_long_partial_prefills ({long}) must be greater than or equal to 1 and less than or equal "
                        "to max_num_partial_prefills ({partial}).")

#: the smallest default max_num_batched_tokens a release gives an API server on any host (a GPU with little memory,
#: the CPU platform): more sequences than this may meet a smaller default
_SMALLEST_DEFAULT_BATCHED = 2048
#: 0.10.2's V0 engine: ``_set_default_args_v0`` gives max_num_seqs this default, uncapped
_V0_DEFAULT_SEQS = 256


def pooling_launch(state: Any) -> bool:
    """The launch runs the model on a pooling runner (``--runner`` / ``--convert``, or the model's default)."""
    from kvguard.length import runner_is_pooling

    return (state.layout.runner not in (None, "auto", "generate")
            or state.layout.convert not in (None, "auto", "none")
            or runner_is_pooling(state.facts, state.release, state.sidecar))


def _chunked_prefill_off(state: Any) -> bool:
    """Whether SchedulerConfig is built without chunked prefill (undecided where kvguard cannot tell)."""
    chunked = state.layout.enable_chunked_prefill
    if chunked is True:
        return False
    pooling = pooling_launch(state)
    if pooling and chunked is None:
        state.undecided("without chunked prefill SchedulerConfig refuses --max-num-batched-tokens below the maximum "
                        "length, and a pooling runner's chunked-prefill default is not modelled")
    if not state.release.within("0.11.0"):
        if runs_v0_engine(state):
            if chunked is None:
                state.undecided("SchedulerConfig's checks depend on whether chunked prefill is on, and vLLM 0.10.2's "
                                "V0 engine (VLLM_USE_V1=0, or the V1 oracle's fallback) has chunked-prefill defaults "
                                "kvguard does not model")
            return True                              # V0 keeps the launch's switch: here, off
        return pooling and chunked is False          # the V1 engine turns it on for a generative model
    if not state.release.within("0.11.1"):
        return pooling and chunked is False          # 0.11.0 turns it on for a generative model
    if chunked is False:
        return True
    return bool(state.facts.resolved_top.get("is_encoder_decoder"))


def _length(state: Any) -> "Optional[int]":
    final = state.len_final
    if final is None or isinstance(final, bool) or not isinstance(final, (int, float)) or final < 1:
        return None
    return int(final)


def _length_read(state: Any) -> "Optional[int]":
    """The maximum length a check compares with; a length the host decides is skipped (None) where the check reads
    it."""
    length = _length(state)
    if length is None and state.len_final is not None:
        state.unmodelled("the maximum length the host decides (-1 / auto) is not followed")
    return length


def batched_below_length(state: Any) -> bool:
    batched = state.layout.max_num_batched_tokens
    if batched is None:
        return False
    length = _length_read(state)
    return length is not None and batched < length and _chunked_prefill_off(state)


def length_bind(state: Any) -> dict:
    return {"batched": state.layout.max_num_batched_tokens, "length": _length(state)}


def _seqs(state: Any) -> "Optional[int]":
    """max_num_seqs as SchedulerConfig gets it where kvguard knows it: the launch's, or 0.10.2's V0 default."""
    seqs = state.layout.max_num_seqs
    if seqs is None and not state.release.within("0.11.0") and runs_v0_engine(state):
        return _V0_DEFAULT_SEQS
    return seqs


def batched_below_seqs(state: Any) -> bool:
    batched, seqs = state.layout.max_num_batched_tokens, _seqs(state)
    if seqs is None and batched is not None and batched == 0:
        state.undecided("--max-num-batched-tokens 0 is refused below the host's default max_num_seqs (0 caps "
                        "nothing), which depends on the host's GPUs and the usage context (not modelled)")
    if seqs is None:
        return False                  # a default max_num_seqs is capped at the batched tokens
    if batched is None:
        if seqs > _SMALLEST_DEFAULT_BATCHED:
            state.undecided(f"--max-num-seqs {seqs} is refused when the host's default max_num_batched_tokens is "
                            "smaller; that default depends on the host's GPUs and the usage context (not modelled)")
        return False
    return batched < seqs


def seqs_bind(state: Any) -> dict:
    return {"batched": state.layout.max_num_batched_tokens, "seqs": _seqs(state)}


def lookahead_negative(state: Any) -> bool:
    """0.10.2 / 0.11.0: the launch's lookahead slots below 0, unless a speculative config replaces them."""
    return getattr(state, "sc", None) is None and state.layout.num_lookahead_slots < 0


def lookahead_bind(state: Any) -> dict:
    return {"slots": state.layout.num_lookahead_slots}


#: SchedulerConfig's bounded fields the launch sets, in the class's declaration order (the same order in every
#: release that has them): (field, layout field, bounds as (kind, bound) pairs, first release, last release)
#: (vllm/config/scheduler.py: ``Field(default=…, ge=…)``, 0.11.1-0.33.0).  The layout's ``*_out_of_bounds`` fields
#: carry options kvguard otherwise passes over, given only outside their bounds (kvguard.launch.argv).  The partial
#: prefills' bounds (0.11.1-0.26.0) never answer: a value other than 1 is refused before, as a V1-unsupported feature.
_BOUNDED_FIELDS = (
    ("max_num_batched_tokens", "max_num_batched_tokens", (("ge", 1),), "0.11.1", None),
    ("max_num_scheduled_tokens", "max_num_scheduled_tokens_out_of_bounds", (("ge", 0),), "0.26.0", "0.31.0"),
    ("max_num_scheduled_tokens", "max_num_scheduled_tokens_out_of_bounds", (("ge", 1),), "0.32.0", None),
    ("max_num_seqs", "max_num_seqs", (("ge", 1),), "0.11.1", None),
    ("max_num_active_seqs", "max_num_active_seqs", (("ge", 1),), "0.31.0", None),
    ("long_prefill_token_threshold", "long_prefill_token_threshold", (("ge", 0),), "0.25.0", None),
    ("max_num_queued_reqs", "max_num_queued_reqs_out_of_bounds", (("ge", 0),), "0.29.0", None),
    ("max_num_queued_tokens", "max_num_queued_tokens_out_of_bounds", (("ge", 0),), "0.29.0", None),
    ("num_lookahead_slots", "num_lookahead_slots", (("ge", 0),), "0.11.1", "0.11.2"),
    ("watermark", "watermark_out_of_bounds", (("ge", 0.0), ("lt", 1.0)), "0.24.0", None),
    ("prefill_schedule_interval", "prefill_schedule_interval_out_of_bounds", (("ge", 1),), "0.24.0", None),
    ("stream_interval", "stream_interval_out_of_bounds", (("ge", 1),), "0.11.1", None))


def _batch_values(state: Any) -> dict:
    """The batch fields SchedulerConfig is given from 0.11.1, where the launch sets one of them below 1: EngineArgs
    fills the other as ``min(max_num_seqs * max_model_len, default)`` (batched tokens) or ``min(default,
    max_num_batched_tokens)`` (sequences), a value below 1 too whatever the host's defaults."""
    layout = state.layout
    batched, seqs = layout.max_num_batched_tokens, layout.max_num_seqs
    if batched is not None and seqs is None and batched < 1:
        seqs = batched
    elif seqs is not None and batched is None and seqs < 1:
        length = _length(state)
        if length is None:
            state.undecided(f"--max-num-seqs {seqs} makes the default max_num_batched_tokens {seqs} x the maximum "
                            "length, which the host decides here (-1 / auto)")
        batched = seqs * length
    return {"max_num_batched_tokens": batched, "max_num_seqs": seqs}


def field_bounds(state: Any) -> None:
    """SchedulerConfig's pydantic field bounds, checked as it is built (before any of its own checks): one
    ValidationError for SchedulerConfig with an error per field out of bounds, in declaration order."""
    from kvguard.rules.cache_config import bound_error, broken_bound
    from kvguard.rules.engine import Refusal

    layout, release = state.layout, state.release
    batch = _batch_values(state) if release.within("0.11.1") else {}
    entries = []
    for name, carrier, bounds, since, until in _BOUNDED_FIELDS:
        value = batch[name] if name in batch else getattr(layout, carrier)
        if value is None or not release.within(since, until):
            continue
        if name == "num_lookahead_slots" and getattr(state, "sc", None) is not None:
            continue              # a speculative config gives its own slot count (its token count, checked before)
        broken = broken_bound(value, bounds)
        if broken is None:
            continue
        if value != value or value in (float("inf"), float("-inf")):
            state.undecided(f"SchedulerConfig's field {name} refuses {value} with pydantic's message, which kvguard "
                            "does not render for a non-finite value")
        entries.append(bound_error(name, value, *broken))
    if entries:
        raise Refusal("ValidationError", entries[0].msg, errors=tuple(entries))


def active_above_seqs(state: Any) -> bool:
    active, seqs = state.layout.max_num_active_seqs, state.layout.max_num_seqs
    if active is None:
        return False
    if seqs is None:
        state.undecided(f"--max-num-active-seqs {active} is refused above max_num_seqs, whose default depends on the "
                        "host's GPUs and the usage context (not modelled)")
    return active > seqs


def active_bind(state: Any) -> dict:
    return {"active": state.layout.max_num_active_seqs, "seqs": state.layout.max_num_seqs}


def _threshold(state: Any) -> int:
    """The long-prefill threshold SchedulerConfig checks: an encoder-decoder model's is reset to 0 (0.11.1+)."""
    if state.release.within("0.11.1") and state.facts.resolved_top.get("is_encoder_decoder"):
        return 0
    return state.layout.long_prefill_token_threshold


def threshold_above_length(state: Any) -> bool:
    """0.27.0+: the threshold above the maximum length, partial prefills or not."""
    threshold = _threshold(state)
    if threshold <= 0:
        return False
    length = _length_read(state)
    return length is not None and threshold > length


def threshold_bind(state: Any) -> dict:
    return {"threshold": _threshold(state), "length": _length(state)}


def _partial(state: Any) -> int:
    return state.layout.max_num_partial_prefills


def partial_below_one(state: Any) -> bool:
    return _partial(state) < 1


def partial_needs_chunked(state: Any) -> bool:
    return _partial(state) > 1 and _chunked_prefill_off(state)


def threshold_above_length_with_partial(state: Any) -> bool:
    """0.10.2 / 0.11.0: the threshold is checked with concurrent partial prefills only (0 becomes 4% of the
    maximum length there)."""
    return _partial(state) > 1 and threshold_above_length(state)


def long_partial_out_of_range(state: Any) -> bool:
    long = state.layout.max_long_partial_prefills
    return long < 1 or long > _partial(state)


def partial_bind(state: Any) -> dict:
    return {"partial": _partial(state), "long": state.layout.max_long_partial_prefills}


#: the releases whose VllmConfig._set_max_num_scheduled_tokens compares the batched tokens with the draft's new slots
#: per request alone (SpeculativeConfig.max_num_new_slots_for_drafting: 0, 1, K - 1 or K for K speculative tokens);
#: 0.20.0 - 0.27.0 take those slots times max_num_seqs, 0.33.0 adds checks of its own
SLOTS_ONLY_RECKONING = ("0.28.0", "0.32.0")
#: from this release VllmConfig compares the batched tokens with num_lookahead_tokens, for every method that drafts
#: from the target's hidden states or with a draft model (SpeculativeConfig.use_eagle / uses_draft_model)
LOOKAHEAD_RECKONING = "0.33.0"
LOOKAHEAD_METHODS = frozenset({"eagle", "eagle3", "mtp", "dflash", "dspark", "draft_model"})


def scheduled_tokens_with_drafting(state: Any) -> None:
    """0.20.0+: VllmConfig takes the draft's new slots per sequence (a draft model: one; parallel drafting: the
    speculative tokens less one) times max_num_seqs from the batched tokens, and refuses a batch left with no token.
    kvguard does not model that (the default max_num_seqs is the host's): a launch that sizes the batch itself with
    such a draft is undecidable.  0.28.0 - 0.32.0 compare the batched tokens with those slots alone (at most the
    speculative tokens, one for an autoregressive draft model): batched tokens above that leave the launch decided
    (found from vllm-project/vllm-ascend#13717's DSpark launch, undecidable before).  0.33.0 compares them with
    the draft's lookahead tokens instead, for EAGLE / EAGLE3 / MTP drafts too (kvguard accepted those): batched
    tokens not above the speculative tokens plus one are undecidable there.  With any speculative config it refuses ``--max-num-scheduled-tokens 0`` (within the
    field's bound on 0.26.0 - 0.31.0): undecidable too (where it falls among VllmConfig's checks is not followed)."""
    spec = getattr(state, "sc", None)
    if spec is None:
        return
    if state.layout.max_num_scheduled_tokens_zero:
        state.undecided("VllmConfig refuses --max-num-scheduled-tokens 0 with a speculative config (no token left to "
                        "schedule); kvguard does not render where that check falls among VllmConfig's")
    lookahead = state.release.within(LOOKAHEAD_RECKONING) and spec.method in LOOKAHEAD_METHODS
    if not (spec.method == "draft_model" or spec.parallel_drafting or lookahead):
        return
    layout = state.layout
    if layout.max_num_batched_tokens is None and layout.max_num_seqs is None:
        return
    # (batched tokens the host decides are never below 2,048, the smallest default)
    batched = layout.max_num_batched_tokens if layout.max_num_batched_tokens is not None else 2048
    tokens = spec.num
    if state.release.within(*SLOTS_ONLY_RECKONING):
        # 0.28.0 - 0.32.0 no longer multiply by max_num_seqs: they refuse batched tokens at or below the draft's new
        # slots per request, never more than its token count (one for a draft model's own), whatever max_num_seqs
        if type(tokens) is int and type(batched) is int and batched > max(tokens, 1):
            return
    elif lookahead:
        # 0.33.0+: batched tokens at or below num_lookahead_tokens (the token count, one more for a fill-in draft)
        # are refused, whatever max_num_seqs (a DFlash / DSpark batch only lowers max_num_active_seqs)
        if type(tokens) is int and type(batched) is int and batched > tokens + 1:
            return
        state.undecided("VllmConfig refuses batched tokens at or below the draft's lookahead tokens (its speculative "
                        "tokens, one more for a fill-in draft); kvguard does not render where that check falls "
                        "among VllmConfig's")
        return
    state.undecided("VllmConfig refuses a batch the draft's new slots (times max_num_seqs) leave with no token "
                    "to schedule; kvguard does not model that reckoning")
