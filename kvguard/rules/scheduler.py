"""SchedulerConfig's checks of the batch it is given against the maximum length (``SchedulerConfig.verify_max_model_len``,
vllm/config/scheduler.py from 0.11.1; ``SchedulerConfig._verify_args`` in vllm/config/__init__.py before), which
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) reaches after the speculative config and before
VllmConfig; pydantic wraps their ValueError in a ValidationError for SchedulerConfig.

- Without chunked prefill, ``--max-num-batched-tokens`` below the maximum length is refused.  Whether chunked
  prefill is on is EngineArgs' default unless the launch says: on for a generative decoder (0.10.2's V1 engine and
  0.11.0 turn it on whatever the launch says), off for an encoder-decoder model from 0.11.1; a pooling runner's
  default depends on its pooler (not modelled), 0.10.2's V0 engine (``VLLM_USE_V1=0``, and the fallbacks of the
  CPU platform) has its own.
- ``--max-num-batched-tokens`` below ``--max-num-seqs`` is refused.  A default ``max_num_seqs`` is capped at the
  batched tokens, so only a launch that gives both is refused; one that gives only ``--max-num-seqs`` meets the
  host's default batched tokens (not modelled: past 2,048 sequences, the smallest default, it is undecidable).

Only batched tokens the launch gives are read: EngineArgs' default is never below the maximum length without
chunked prefill.  A maximum length the host decides (``-1`` / ``auto``, 0.14.0+) is not followed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["LENGTH_MESSAGE", "SEQS_MESSAGE", "batched_below_length", "batched_below_seqs", "pooling_launch"]

LENGTH_MESSAGE = ("max_num_batched_tokens ({batched}) is smaller than max_model_len ({length}). This effectively "
                  "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
                  "sequences. Please increase max_num_batched_tokens or decrease max_model_len.")
SEQS_MESSAGE = "max_num_batched_tokens ({batched}) must be greater than or equal to max_num_seqs ({seqs})."

#: the smallest default max_num_batched_tokens a release gives an API server on any host (a GPU with little memory,
#: the CPU platform): more sequences than this may meet a smaller default
_SMALLEST_DEFAULT_BATCHED = 2048


def pooling_launch(state: Any) -> bool:
    """The launch runs the model on a pooling runner (``--runner`` / ``--convert``, or the model's default)."""
    from ..length import runner_is_pooling

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
        if _v0_engine(state):
            state.undecided("without chunked prefill SchedulerConfig refuses --max-num-batched-tokens below the "
                            "maximum length, and vLLM 0.10.2's V0 engine (VLLM_USE_V1=0, or the CPU platform's "
                            "fallback) has chunked-prefill defaults kvguard does not model")
        return pooling and chunked is False          # the V1 engine turns it on for a generative model
    if not state.release.within("0.11.1"):
        return pooling and chunked is False          # 0.11.0 turns it on for a generative model
    if chunked is False:
        return True
    return bool(state.facts.resolved_top.get("is_encoder_decoder"))


def _v0_engine(state: Any) -> bool:
    """0.10.2 runs the V0 engine: VLLM_USE_V1=0, or the CPU platform's V1 check falling back (a quantized KV cache,
    a model that keeps a sliding window)."""
    if state.env.get("VLLM_USE_V1") == "0":
        return True
    if state.env.get("VLLM_USE_V1") == "1" or state.need("platform") != "cpu":
        return False
    sliding = state.facts.resolved.get("sliding_window") is not None and not state.layout.disable_sliding_window
    return state.kv_cache_dtype != "auto" or sliding


def _length(state: Any) -> "Optional[int]":
    final = state.len_final
    if final is None or isinstance(final, bool) or not isinstance(final, (int, float)) or final < 1:
        return None
    return int(final)


def batched_below_length(state: Any) -> bool:
    batched = state.layout.max_num_batched_tokens
    if batched is None:
        return False
    length = _length(state)
    if length is None:
        if state.len_final is not None:
            state.unmodelled("the maximum length the host decides (-1 / auto) is not followed")
        return False
    return batched < length and _chunked_prefill_off(state)


def length_bind(state: Any) -> dict:
    return {"batched": state.layout.max_num_batched_tokens, "length": _length(state)}


def batched_below_seqs(state: Any) -> bool:
    batched, seqs = state.layout.max_num_batched_tokens, state.layout.max_num_seqs
    if seqs is None:
        return False                  # a default max_num_seqs is capped at the batched tokens
    if batched is None:
        if seqs > _SMALLEST_DEFAULT_BATCHED:
            state.undecided(f"--max-num-seqs {seqs} is refused when the host's default max_num_batched_tokens is "
                            "smaller; that default depends on the host's GPUs and the usage context (not modelled)")
        return False
    return batched < seqs


def seqs_bind(state: Any) -> dict:
    return {"batched": state.layout.max_num_batched_tokens, "seqs": state.layout.max_num_seqs}
