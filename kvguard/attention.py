"""Attention backends at worker start: the backend a release selects, and the workers' context-parallel check.

When the workers build the model, each attention layer gets the backend the release's selector picks for the
model, dtype, layout and GPU; then the workers check that every layer's implementation supports the
context parallelism asked for (``gpu_model_runner`` up to 0.12.0, ``check_attention_cp_compatibility`` in
``vllm/v1/worker/cp_utils.py`` from 0.13.0): with ``-dcp`` > 1 the implementation must return the softmax
LSE for decode, with ``-pcp`` > 1 it must support PCP.  A refusal here is a bare ``AssertionError`` in a
worker, after the configuration was accepted (and weights started loading).

What kvguard models (kvguard's own code; backend names, implementation classes, their capabilities per
release and the messages are upstream facts):

* the host: a CUDA platform with GPUs of compute capability 9.0 (H100-class; the command line's standard
  node, stated as an assumption) — any other host makes these checks *skipped*, listed;
* non-MLA attention models with a head size FlashAttention takes (a multiple of 8, at most 256): the default
  backend on that host is ``FLASH_ATTN`` (``FlashAttentionImpl``, which returns the LSE from 0.11.1) in every
  release; ``--attention-backend``
  (0.13.0+) names another (``FLASHINFER``, ``TRITON_ATTN``, ``FLEX_ATTENTION``);
* MLA models: every MLA implementation on CUDA returns the softmax LSE (0.11.0+), so ``-dcp`` passes; which
  MLA implementation a PCP launch meets is not modelled (skipped).

Not modelled (skipped, listed): other platforms and GPU generations, ``VLLM_ATTENTION_BACKEND``, hybrid /
attention-free models, PCP from 0.26.0 (the selector itself filters backends by PCP support there), the
MTP-with-interleave check.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["BACKENDS", "selected_impl"]

#: non-MLA backend -> (implementation class, first release whose implementation returns the softmax LSE for
#: decode — ``can_return_lse_for_decode`` — or None: never)
BACKENDS: dict[str, tuple[str, Optional[str]]] = {
    "FLASH_ATTN": ("FlashAttentionImpl", "0.11.1"),
    "FLASHINFER": ("FlashInferImpl", "0.11.1"),
    "TRITON_ATTN": ("TritonAttentionImpl", None),
    "FLEX_ATTENTION": ("FlexAttentionImpl", None),
}
#: head sizes FlashInfer's kernels take
_FLASHINFER_HEAD_SIZES = (64, 128, 256)


class NotDecided(Exception):
    """The backend (or what it does) is not modelled for this launch: the worker checks are skipped."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def selected_impl(state: Any) -> tuple[str, str, Optional[str]]:
    """(backend name, implementation class, release from which it returns the LSE) the workers of this launch
    build for a non-MLA model; raises :class:`NotDecided` where kvguard does not model the selection."""
    from .archs import arch_flag

    facts = state._facts
    if state.env.get("VLLM_ATTENTION_BACKEND"):
        raise NotDecided("VLLM_ATTENTION_BACKEND is set (not modelled)")
    for flag in ("is_attention_free", "is_hybrid", "has_inner_state"):
        if arch_flag(facts.architectures, flag, state.release):
            raise NotDecided("hybrid or attention-free models build other attention layers (not modelled)")
    head = facts.head_size
    if not isinstance(head, int) or head % 8 or not 0 < head <= 256:
        raise NotDecided(f"head size {head!r}: FlashAttention does not take it (the fallback is not modelled)")
    name = getattr(state.layout, "attention_backend", None)
    if name is None:
        name = "FLASH_ATTN"
    name = str(name).upper()
    if name not in BACKENDS:
        raise NotDecided(f"--attention-backend {name} is not modelled")
    if name == "FLASHINFER" and head not in _FLASHINFER_HEAD_SIZES:
        raise NotDecided(f"FlashInfer with head size {head} (the selector's refusal is not modelled)")
    impl, lse_since = BACKENDS[name]
    return name, impl, lse_since


def _decided(state: Any) -> Optional[tuple[str, str, Optional[str]]]:
    """The non-MLA selection, or None for an MLA model; a NotDecided becomes a skipped check."""
    from .rules.engine import SkipCheck

    if state.need("platform") != "cuda" or state.need("gpu_capability") != 90:
        raise SkipCheck("attention_backend")
    if state.use_mla:
        return None
    try:
        return selected_impl(state)
    except NotDecided as exc:
        raise SkipCheck(f"the attention backend is not modelled here: {exc.reason}") from None


def dcp_lse_refused(state: Any) -> bool:
    """``-dcp`` > 1 and the layers' implementation does not return the softmax LSE for decode."""
    if state.dcp <= 1:
        return False
    sel = _decided(state)
    if sel is None:
        if not state.release.within("0.11.0"):
            from .rules.engine import SkipCheck
            raise SkipCheck("attention_backend")   # 0.10.2's MLA implementations: not modelled
        return False                           # every CUDA MLA implementation returns the LSE (0.11.0+)
    _name, _impl, since = sel
    return since is None or not state.release.within(since)


def pcp_refused(state: Any) -> bool:
    """``-pcp`` > 1 (0.13.0 - 0.25.1): no attention implementation of these releases supports PCP."""
    if state.pcp <= 1:
        return False
    sel = _decided(state)
    if sel is None:
        from .rules.engine import SkipCheck
        raise SkipCheck("attention_backend")       # which MLA implementation: not modelled
    return True


def impl_bind(state: Any) -> dict:
    sel = _decided(state)
    return {"impl": sel[1] if sel else "?"}


def pcp_backend_unmodelled(state: Any) -> bool:
    """``-pcp`` > 1 from 0.26.0: the selector keeps only backends that support PCP (MLA ones do, no other
    does); what a worker then meets is not modelled — listed as skipped, never guessed."""
    from .rules.engine import SkipCheck

    if state.pcp <= 1:
        return False
    if not state.use_mla:
        raise SkipCheck("from 0.26.0 the attention selector keeps only backends that support PCP, and no non-MLA "
                        "attention implementation of this release does: on a CUDA host its workers are expected to "
                        "refuse this launch ('No valid attention backend found for cuda with "
                        "AttentionSelectorConfig(...)'); the per-backend reasons that message lists are not modelled")
    raise SkipCheck("from 0.26.0 the attention selector filters backends by PCP support (MLA backends support it); "
                    "which backend a PCP launch gets, or the selector's refusal, is not modelled")
