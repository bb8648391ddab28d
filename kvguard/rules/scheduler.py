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

With a speculative config, ``VllmConfig._set_max_num_scheduled_tokens`` (vllm/config/vllm.py, 0.20.0 - 0.33.0, after
the HiSparse checks; the slots from ``SpeculativeConfig.max_num_new_slots_for_drafting`` in vllm/config/speculative.py,
0.33.0's ``VllmConfig.num_lookahead_tokens``) refuses a batch left with no token to schedule
(:func:`scheduled_tokens_refusal`); the host's default batch sizes, where they decide, leave it undecidable.
"""

from __future__ import annotations

from .v1_features import runs_v0_engine

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ACTIVE_MESSAGE", "LENGTH_MESSAGE", "LONG_PARTIAL_MESSAGE", "LOOKAHEAD_MESSAGE", "LOOKAHEAD_SLOTS_MESSAGE",
           "PARTIAL_CHUNKED_MESSAGE", "PARTIAL_MIN_MESSAGE", "SCHEDULED_NONE_MESSAGE", "SCHEDULED_NONE_MESSAGE_0_28",
           "SEQS_MESSAGE", "SLOTS_MESSAGE", "THRESHOLD_MESSAGE", "active_above_seqs", "batched_below_length",
           "batched_below_seqs", "field_bounds", "long_partial_out_of_range", "lookahead_negative", "lookahead_tokens",
           "partial_below_one", "partial_needs_chunked", "pooling_launch", "scheduled_tokens_bind",
           "scheduled_tokens_refusal", "scheduled_tokens_refused", "threshold_above_length",
           "threshold_above_length_with_partial"]

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


#: VllmConfig._set_max_num_scheduled_tokens (vllm/config/vllm.py) with a speculative config, in three forms:
#: 0.20.0 - 0.27.x take the draft's new slots per request times max_num_seqs from the batched tokens and refuse a
#: batch left with no token to schedule; 0.28.0 - 0.32.0 compare the batched tokens with those slots alone
#: (SpeculativeConfig.max_num_new_slots_for_drafting, reckoned anew); 0.33.0 with VllmConfig.num_lookahead_tokens
SLOTS_TIMES_SEQS_RECKONING = ("0.20.0", "0.27.1")
SLOTS_ONLY_RECKONING = ("0.28.0", "0.32.0")
LOOKAHEAD_RECKONING = "0.33.0"
#: the methods whose lookahead is their speculative tokens on 0.33.0 (use_eagle() or uses_draft_model(); DFlash and
#: a DSpark draft that does not sample from its anchor take one more)
LOOKAHEAD_METHODS = frozenset({"eagle", "eagle3", "mtp", "dflash", "dspark", "draft_model"})

#: the scheduled tokens left at or below 0 (0.20.0 - 0.27.x: the slots times max_num_seqs taken off; 0.26.0+ also an
#: explicit --max-num-scheduled-tokens 0, within the field's bound to 0.31.x)
SCHEDULED_NONE_MESSAGE = ("max_num_scheduled_tokens is set to {scheduled} based on the speculative decoding "
                          "settings, which does not allow any tokens to be scheduled. Increase max_num_batched_tokens "
                          "to accommodate the additional draft token slots, or decrease num_speculative_tokens or "
                          "max_num_seqs.")
#: 0.28.0 - 0.31.x: the same refusal without max_num_seqs among the remedies
SCHEDULED_NONE_MESSAGE_0_28 = ("max_num_scheduled_tokens is set to {scheduled} based on the speculative decoding "
                               "settings, which does not allow any tokens to be scheduled. Increase "
                               "max_num_batched_tokens to accommodate the additional draft token slots, or decrease "
                               "num_speculative_tokens.")
SLOTS_MESSAGE = ("VllmConfig does not have enough slots to schedule a token and support the speculative decoding "
                 "settings. Got max_num_batched_tokens={batched} and scheduled_token_delta={delta}.")
LOOKAHEAD_SLOTS_MESSAGE = ("VllmConfig does not have enough slots to schedule a token and support the speculative "
                           "decoding settings. Got max_num_batched_tokens={batched} and "
                           "num_lookahead_tokens={lookahead}.")

#: the smallest default max_num_seqs (SchedulerConfig.DEFAULT_MAX_NUM_SEQS, the CPU platform's API server's): a
#: launch's batched tokens at or below it cap the default
_SMALLEST_DEFAULT_SEQS = 128
#: the smallest default batched tokens where ParallelConfig.use_batched_dp_moe may hold (expert parallelism with data
#: parallelism: SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP) or on a TPU host
_SMALLEST_DEFAULT_BATCHED_DP = 256


def _new_slots(state: Any, spec: Any) -> "Optional[int]":
    """SpeculativeConfig.max_num_new_slots_for_drafting (0.20.0 - 0.32.0), None where the token count is unknown."""
    tokens = spec.num
    if type(tokens) is not int:
        return None
    draft_model = spec.method == "draft_model"
    if state.release.within(*SLOTS_TIMES_SEQS_RECKONING):
        return (tokens - 1 if spec.parallel_drafting else 0) + (1 if draft_model else 0)
    if spec.method == "dflash":
        return tokens
    if spec.parallel_drafting:
        return tokens if draft_model else tokens - 1
    return 1 if draft_model else 0


def _dspark_samples_from_anchor(spec: Any) -> "Optional[bool]":
    """``getattr(draft hf_config, "sample_from_anchor", True)`` as a truth value: the draft checkpoint's key (the
    speculators format's rewrite sets it, False by default); None where kvguard holds no checkpoint config."""
    draft = spec.draft
    raw = None if draft is None else draft.raw
    if not isinstance(raw, dict) or not raw:
        return None
    return bool(raw.get("sample_from_anchor", "speculators_model_type" not in raw))


def lookahead_tokens(state: Any) -> "Optional[int]":
    """0.33.0's VllmConfig.num_lookahead_tokens: the speculative tokens for EAGLE / EAGLE3 / MTP / draft-model and
    anchor-sampling DSpark drafts, one more for DFlash and a DSpark draft that does not sample from its anchor, 0 for
    the others; None where kvguard cannot tell."""
    spec = state.sc
    tokens = spec.num
    if spec.method not in LOOKAHEAD_METHODS:
        return 0
    if type(tokens) is not int:
        return None
    if spec.method == "dflash":
        return tokens + 1
    if spec.method == "dspark":
        anchor = _dspark_samples_from_anchor(spec)
        return None if anchor is None else tokens + (0 if anchor else 1)
    return tokens


def _batched_floor(state: Any, seqs: "Optional[int]") -> "Optional[int]":
    """The least batched tokens EngineArgs may give a launch that leaves them unset: min(max_num_seqs x max_model_len,
    the host's default), that default never below 2,048 (256 with expert and data parallelism, or on a TPU)."""
    length = _length(state)
    if length is None:
        return None
    layout = state.layout
    smallest = (_SMALLEST_DEFAULT_BATCHED_DP if state.host.platform == "tpu"
                or (layout.enable_expert_parallel and layout.data_parallel_size > 1) else _SMALLEST_DEFAULT_BATCHED)
    return min((seqs if seqs is not None else _SMALLEST_DEFAULT_SEQS) * length, smallest)


def _defaults_ratio(state: Any) -> int:
    """The least default batched tokens per default sequence (2,048 / 256 on a GPU, 8,192 / 1,024 on a large one,
    2,048 / 128 per CPU rank, both doubled in throughput mode); 1 where the batched tokens may default to 256."""
    layout = state.layout
    if state.host.platform == "tpu" or (layout.enable_expert_parallel and layout.data_parallel_size > 1):
        return 1
    return 8


def scheduled_tokens_refusal(state: Any) -> "Optional[tuple[str, dict]]":
    """VllmConfig._set_max_num_scheduled_tokens's refusal of a speculative launch (0.20.0+): the message template
    and its values, None where it starts; undecided where the host's batch defaults decide.

    - an explicit ``--max-num-scheduled-tokens 0`` (0.26.0 - 0.31.x, within the field's bound) is refused first;
      another value given on 0.26.0 - 0.27.x is checked against the batched tokens less the slots (not modelled);
    - 0.20.0 - 0.27.x: the batched tokens less the draft's new slots per request times max_num_seqs at or below 0;
    - 0.28.0 - 0.32.0: the batched tokens at or below those slots (reckoned anew: K for DFlash, K - 1 for parallel
      drafting, K for a parallel draft model, 1 for an autoregressive one);
    - 0.33.0: the batched tokens at or below num_lookahead_tokens (:func:`lookahead_tokens`)."""
    spec = getattr(state, "sc", None)
    if spec is None:
        return None
    release, layout = state.release, state.layout
    if layout.max_num_scheduled_tokens_zero:
        template = SCHEDULED_NONE_MESSAGE if release.within(*SLOTS_TIMES_SEQS_RECKONING) else SCHEDULED_NONE_MESSAGE_0_28
        return template, {"scheduled": 0}
    batched, seqs = layout.max_num_batched_tokens, layout.max_num_seqs
    length = _length(state)
    if batched is None and seqs is not None and length is not None and _batched_floor(state, seqs) == seqs * length:
        batched = seqs * length                # max_num_seqs x max_model_len, at or below every default
    if release.within(*SLOTS_TIMES_SEQS_RECKONING):
        if layout.max_num_scheduled_tokens_given:
            # (the option is 0.26.0+)
            state.undecided("VllmConfig checks --max-num-scheduled-tokens plus the draft's new slots times "
                            "max_num_seqs against the batched tokens; kvguard does not read that value")
        slots = _new_slots(state, spec)
        if slots == 0:
            return None
        if slots is None:
            state.undecided("VllmConfig takes the draft's new slots times max_num_seqs from the batched tokens, and "
                            "kvguard does not know the draft's token count")
            return None                        # (undecided raises)
        if batched is not None and seqs is None and batched <= _SMALLEST_DEFAULT_SEQS:
            seqs = batched                     # the host's default max_num_seqs is capped at the batched tokens
        if batched is not None and seqs is not None:
            scheduled = batched - slots * seqs
            return (SCHEDULED_NONE_MESSAGE, {"scheduled": scheduled}) if scheduled <= 0 else None
        if batched is None:
            # the batched tokens the host defaults to, never below the floor, leave a token per sequence's slots
            floor = _batched_floor(state, seqs)
            if seqs is not None and floor is not None and slots * seqs < floor:
                return None
            if seqs is None and floor is not None and slots < min(_length(state) or 0, _defaults_ratio(state)):
                return None
        state.undecided("VllmConfig takes the draft's new slots times max_num_seqs from the batched tokens, and the "
                        "host's default max_num_seqs / max_num_batched_tokens (its GPUs and the usage context) decide "
                        "whether a token is left to schedule (not modelled)")
    if release.within(*SLOTS_ONLY_RECKONING):
        threshold, template, name = _new_slots(state, spec), SLOTS_MESSAGE, "delta"
    elif release.within(LOOKAHEAD_RECKONING):
        threshold, template, name = lookahead_tokens(state), LOOKAHEAD_SLOTS_MESSAGE, "lookahead"
    else:
        return None
    if threshold == 0:
        return None
    if threshold is None:
        # (a DSpark draft whose anchor sampling kvguard cannot read: its lookahead is the tokens or one more)
        most = spec.num + 1 if type(spec.num) is int else None
        floor = batched if batched is not None else _batched_floor(state, seqs)
        if most is not None and floor is not None and floor > most:
            return None
        state.undecided("VllmConfig refuses batched tokens at or below the draft's lookahead tokens, and kvguard "
                        "does not know the draft's token count or whether a DSpark draft samples from its anchor")
        return None                            # (undecided raises)
    if batched is not None:
        return (template, {"batched": batched, name: threshold}) if batched <= threshold else None
    floor = _batched_floor(state, seqs)
    if floor is not None and threshold < floor:
        return None
    state.undecided("VllmConfig refuses batched tokens at or below the draft's new slots, and the host's default "
                    "max_num_batched_tokens (its GPUs and the usage context) decides them (not modelled)")
    return None


def scheduled_tokens_refused(state: Any) -> bool:
    return scheduled_tokens_refusal(state) is not None


def scheduled_tokens_bind(state: Any) -> dict:
    refusal = scheduled_tokens_refusal(state)
    assert refusal is not None
    template, values = refusal
    return {"message": template.format(**values)}
