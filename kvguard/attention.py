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
* MLA models: every MLA implementation on CUDA returns the softmax LSE (0.11.0+), so ``-dcp`` passes;
* from 0.26.0 the selector itself filters by context parallelism (``AttentionSelectorConfig.use_pcp``, and
  ``use_dcp`` from 0.29.0, which refuses a backend from 0.30.0 when its implementation does not declare DCP
  support): kvguard walks the sm_90 priority list of non-MLA backends (``FLASH_ATTN``, ``FLASHINFER``,
  ``TRITON_ATTN``, ``FLEX_ATTENTION``, ``TURBOQUANT``) with each backend's head sizes, dtypes, KV-cache
  dtypes, PCP and DCP support, and reproduces the selector's ``ValueError`` (``No valid attention backend
  found for cuda with AttentionSelectorConfig(...). Reasons: {...}.``, or ``Selected backend ... is not valid
  for this configuration. Reason: [...]`` for ``--attention-backend``) raised while the model is built; no
  non-MLA backend supports PCP, so every non-MLA PCP launch that reaches the workers is refused there —
  except on 0.33.0, whose V2 model runner refuses it earlier, in its constructor (``MRV2 PCP currently
  supports MLA models only.``);
* MLA models with PCP: every MLA backend of the sm_90 list supports PCP, so the workers' PCP check passes
  whichever one the host's kernels make the selector pick.

The selector is decided for the inputs kvguard sees — the checkpoint's dtype (bfloat16 / float16),
``--kv-cache-dtype auto``, a model without sliding-window layers, sinks or a multimodal prefix, no speculative
decoding, ``--dtype`` when given (``half``/``float16``, ``bfloat16``, ``float``/``float32``); a launch that gives
``--block-size`` or ``--kv-transfer-config`` (both in the selector's config and its reasons) is not decided here.

Not modelled (skipped, listed): other platforms and GPU generations, ``VLLM_ATTENTION_BACKEND``, hybrid /
attention-free models, selector inputs other than the above, the V2 model runner's PCP checks for MLA models
(``PCPManager.validate_config``: encoder-decoder, multimodal, LoRA, speculative decoding, CUDA-graph mode,
PCP with DCP), the MTP-with-interleave check.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional


__all__ = ["BACKENDS", "SelectorRefusal", "select_backend", "selected_impl"]

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


#: the release from which the CUDA selector filters backends by context parallelism (and kvguard models it)
SELECTOR_FILTERS_CP = "0.26.0"
#: the non-MLA backends in the order the CUDA selector tries them on compute capability 9.0 (0.26.0+; a
#: multimodal prefix puts another first, not modelled)
SM90_PRIORITY = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT")
#: the dtypes each backend's class declares (those without an entry take float32 too)
_HALF_ONLY = {"FLASH_ATTN", "FLASHINFER", "TURBOQUANT"}
#: backends whose implementation declares DCP support (``supports_dcp``; the selector asks from 0.30.0 —
#: in 0.29.0 every implementation declared it)
_DCP_CAPABLE = {"FLASH_ATTN", "FLASHINFER"}
#: the fields ``AttentionSelectorConfig.__repr__`` prints after ``use_kv_connector``, and from which release
_SELECTOR_TAIL_FIELDS = (("use_adaptive_verification", "0.28.0"), ("use_pcp", "0.26.0"), ("use_dcp", "0.29.0"),
                         ("use_rswa", "0.30.0"))


class SelectorRefusal(Exception):
    """The selector's ``ValueError`` while the model is built (``message`` is vLLM's text)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


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
    if state.kv_cache_dtype == "auto" and state.cache_dtype != "auto":
        raise NotDecided(f"the KV-cache dtype {state.cache_dtype} (--kv-cache-dtype auto resolved from the "
                         f"checkpoint's KV-cache quantization): the backends' KV-cache dtypes are not modelled")
    for flag in ("is_attention_free", "is_hybrid", "has_inner_state"):
        if arch_flag(facts.architectures, flag, state.release):
            raise NotDecided("hybrid or attention-free models build other attention layers (not modelled)")
    name = getattr(state.layout, "attention_backend", None)
    chosen = None if name is None else str(name).upper()
    if chosen == "AUTO":
        chosen = None   # "let the selector choose" where the release takes it (refused before otherwise)
    if state.release.within(SELECTOR_FILTERS_CP):
        head, dtype = _selector_inputs(state)
        if not isinstance(head, int):
            raise NotDecided(f"head size {head!r} (not modelled)")
        if chosen is not None and chosen not in SM90_PRIORITY:
            raise NotDecided(f"--attention-backend {chosen} is not modelled")
        name = select_backend(state.release, head_size=head, dtype=dtype, pcp=state.pcp, dcp=state.dcp,
                              chosen=chosen)
        if name not in BACKENDS:
            raise NotDecided(f"the {name} backend's implementation is not modelled")
        impl, lse_since = BACKENDS[name]
        return name, impl, lse_since
    if _GIVEN_DTYPES.get(state.layout.dtype) == "float32":
        # "auto" always makes a half type on CUDA (a float32 checkpoint runs in bfloat16)
        raise NotDecided(f"--dtype {state.layout.dtype}: the selection for float32 is not modelled")
    head = facts.head_size
    if not isinstance(head, int) or head % 8 or not 0 < head <= 256:
        raise NotDecided(f"head size {head!r}: FlashAttention does not take it (the fallback is not modelled)")
    name = chosen or "FLASH_ATTN"
    if name not in BACKENDS:
        raise NotDecided(f"--attention-backend {name} is not modelled")
    if name == "FLASHINFER" and head not in _FLASHINFER_HEAD_SIZES:
        raise NotDecided(f"FlashInfer with head size {head} (the selector's refusal is not modelled)")
    impl, lse_since = BACKENDS[name]
    return name, impl, lse_since


def _head_size_refused(name: str, head: int) -> bool:
    """The backend's ``supports_head_size`` on sm_90; NotDecided where the answer needs the host's kernels."""
    if name == "FLASH_ATTN":
        if head % 8:
            return True
        if head > 256:
            raise NotDecided(f"head size {head}: FlashAttention takes it only with FlashAttention 4 on the host "
                             f"(not modelled)")
        return False
    if name == "FLASHINFER":
        return head not in (64, 128, 256, 512)
    if name == "TRITON_ATTN":
        return head < 32
    return False


def _reasons(name: str, release: Any, head: int, dtype: str, pcp: int, dcp: int) -> list[str]:
    """What ``validate_configuration`` lists against ``name`` on sm_90 (0.26.0+), in its order;
    ``--kv-cache-dtype auto``, no block size, sinks, sliding window, multimodal prefix."""
    reasons = []
    if _head_size_refused(name, head):
        reasons.append("head_size not supported")
    if dtype == "float32" and name in _HALF_ONLY:
        reasons.append("dtype not supported")
    if name == "TURBOQUANT":       # it stores a quantized cache only: 'auto' is not among its KV-cache dtypes
        reasons.append("kv_cache_dtype not supported")
    if pcp > 1:                    # no non-MLA implementation of these releases supports PCP
        reasons.append("PCP not supported")
    if dcp > 1 and release.within("0.30.0") and name not in _DCP_CAPABLE:
        reasons.append("DCP not supported")
    return reasons


def _selector_config(release: Any, head: int, dtype: str, pcp: int, dcp: int) -> str:
    """``AttentionSelectorConfig.__repr__`` for a plain decoder layer of a non-MLA model."""
    parts = [f"head_size={head}", f"dtype=torch.{dtype}", "kv_cache_dtype=auto", "block_size=None",
             "use_mla=False", "has_sink=False", "use_sparse=False", "use_mm_prefix=False",
             "use_per_head_quant_scales=False", "attn_type=AttentionType.DECODER", "has_sliding_window=False",
             "use_non_causal=False", "use_batch_invariant=False", "use_kv_connector=False"]
    values = {"use_adaptive_verification": False, "use_pcp": pcp > 1, "use_dcp": dcp > 1, "use_rswa": False}
    parts += [f"{name}={values[name]}" for name, since in _SELECTOR_TAIL_FIELDS if release.within(since)]
    return "AttentionSelectorConfig(" + ", ".join(parts) + ")"


def select_backend(release: Any, *, head_size: int, dtype: str, pcp: int, dcp: int,
                   chosen: Optional[str] = None) -> str:
    """The non-MLA backend the CUDA selector of ``release`` (0.26.0+) picks on sm_90 — ``chosen`` is the
    ``--attention-backend`` name — or :class:`SelectorRefusal` with vLLM's message."""
    if chosen is not None:
        reasons = _reasons(chosen, release, head_size, dtype, pcp, dcp)
        if reasons:
            raise SelectorRefusal(f"Selected backend AttentionBackendEnum.{chosen} is not valid for this "
                                  f"configuration. Reason: {reasons!r}")
        return chosen
    refused = {}
    for name in SM90_PRIORITY:
        reasons = _reasons(name, release, head_size, dtype, pcp, dcp)
        if not reasons:
            return name
        refused[name] = reasons
    listed = ", ".join(f"{name}: [{', '.join(reasons)}]" for name, reasons in refused.items())
    raise SelectorRefusal(f"No valid attention backend found for cuda with "
                          f"{_selector_config(release, head_size, dtype, pcp, dcp)}. Reasons: {{{listed}}}.")


#: ``--dtype`` values other than "auto" and the torch dtype ModelConfig makes of them (its string table)
_GIVEN_DTYPES = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
                 "float32": "float32"}


def _selector_inputs(state: Any) -> tuple[int, str]:
    """(head size, dtype) of the model's decoder attention layers, when every other selector input is
    vLLM's default; NotDecided otherwise."""
    facts = state._facts
    resolved = facts.resolved or {}
    if state.kv_cache_dtype != "auto":
        raise NotDecided(f"--kv-cache-dtype {state.kv_cache_dtype}: the backends' KV-cache dtypes are not modelled")

    if state.env.get("VLLM_BATCH_INVARIANT"):
        raise NotDecided("VLLM_BATCH_INVARIANT is set (not modelled)")
    if getattr(state, "spec", None) is not None:
        raise NotDecided("speculative decoding builds draft layers and may ask for adaptive verification "
                         "(not modelled)")
    layout = state.layout
    if layout.block_size is not None:
        raise NotDecided(f"--block-size {layout.block_size}: the backends' block sizes are not modelled")
    if layout.kv_transfer_config:
        raise NotDecided("--kv-transfer-config: the backends' KV-connector support is not modelled")
    dtype = _GIVEN_DTYPES.get(layout.dtype)
    if dtype is None:
        dtype = str(resolved.get("dtype") or (facts.resolved_top or {}).get("dtype") or "")
        dtype = dtype.replace("torch.", "")
        if dtype not in ("bfloat16", "float16"):
            raise NotDecided(f"the checkpoint's dtype {dtype or '(unset)'}: vLLM's 'auto' dtype resolution is "
                             f"not modelled here")
    layer_types = resolved.get("layer_types") or ()
    if (resolved.get("sliding_window") and resolved.get("use_sliding_window", True) is not False) or \
            any(kind != "full_attention" for kind in layer_types):
        raise NotDecided("a model with sliding-window or other non-full attention layers (not modelled)")
    model_type = str(resolved.get("model_type") or "")
    if model_type in ("gpt_oss",) or resolved.get("is_encoder_decoder"):
        raise NotDecided(f"{model_type}: attention sinks or cross-attention (not modelled)")
    from .archs import arch_flag
    if arch_flag(facts.architectures, "supports_multimodal", state.release) is not False:
        raise NotDecided("a multimodal model, or one this release does not register (its layers may ask for "
                         "a multimodal prefix: not modelled)")
    return facts.head_size, dtype


def _decided(state: Any) -> Optional[tuple[str, str, Optional[str]]]:
    """The non-MLA selection, or None for an MLA model; a NotDecided becomes a skipped check."""
    from kvguard.rules.engine import SkipCheck

    if state.need("platform") != "cuda" or state.need("gpu_capability") != 90:
        raise SkipCheck("attention_backend")
    if state.use_mla:
        return None
    try:
        return selected_impl(state)
    except NotDecided as exc:
        raise SkipCheck(f"the attention backend is not modelled here: {exc.reason}") from None
    except SelectorRefusal:
        raise SkipCheck("the attention selector refuses this launch first (W_attn_selector)") from None


def dcp_lse_refused(state: Any) -> bool:
    """``-dcp`` > 1 and the layers' implementation does not return the softmax LSE for decode."""
    if state.dcp <= 1:
        return False
    sel = _decided(state)
    if sel is None:
        if not state.release.within("0.11.0"):
            from kvguard.rules.engine import SkipCheck
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
        from kvguard.rules.engine import SkipCheck
        raise SkipCheck("attention_backend")       # which MLA implementation: not modelled
    return True


def impl_bind(state: Any) -> dict:
    sel = _decided(state)
    return {"impl": sel[1] if sel else "?"}


def _host_modelled(state: Any) -> None:
    from kvguard.rules.engine import SkipCheck

    if state.need("platform") != "cuda" or state.need("gpu_capability") != 90:
        raise SkipCheck("attention_backend")


def selector_refusal(state: Any) -> Optional[str]:
    """The selector's ValueError message while the workers build the model (0.26.0+, non-MLA), or None.
    Decided for launches with context parallelism (the selector's CP filters); without it kvguard does not
    read the selection."""
    from kvguard.rules.engine import SkipCheck

    if state.pcp <= 1 and state.dcp <= 1:
        return None
    _host_modelled(state)
    if state.use_mla:
        return None
    try:
        selected_impl(state)
    except NotDecided as exc:
        if state.pcp > 1:
            raise SkipCheck(f"the attention selector's inputs are not modelled here ({exc.reason}); no non-MLA "
                            f"backend of this release supports PCP, so the workers are expected to refuse this "
                            f"launch with 'No valid attention backend found for cuda with "
                            f"AttentionSelectorConfig(...)', whose text kvguard cannot give") from None
        raise SkipCheck(f"the attention backend is not modelled here: {exc.reason}") from None
    except SelectorRefusal as refusal:
        return refusal.message
    return None


#: why the V2 model runner's PCP checks are listed as skipped for an MLA model
_MRV2_PCP_UNMODELLED = ("the V2 model runner's PCP checks (PCPManager.validate_config: encoder-decoder, multimodal "
                        "inputs, LoRA, speculative decoding, the CUDA-graph mode, PCP with DCP) are not modelled; "
                        "the attention backend itself supports PCP (every MLA backend does)")


def mrv2_pcp_mla_only(state: Any) -> bool:
    """0.33.0+: the V2 model runner's constructor refuses PCP for a non-MLA model (before the model is built);
    for an MLA model its other PCP checks are listed as skipped."""
    from kvguard.rules.engine import SkipCheck

    if state.pcp <= 1:
        return False
    if state.need("platform") != "cuda":
        raise SkipCheck("attention_backend")
    if state.use_mla:
        raise SkipCheck(_MRV2_PCP_UNMODELLED)
    return True


def mrv2_pcp_unmodelled(state: Any) -> bool:
    """0.26.0 - 0.32.0: the V2 model runner's PCP checks run after the model is built, before the CP check;
    not modelled for MLA models (a non-MLA model was refused by the selector before)."""
    from kvguard.rules.engine import SkipCheck

    if state.pcp > 1 and state.use_mla:
        raise SkipCheck(_MRV2_PCP_UNMODELLED)
    return False


def pcp_backend_refused(state: Any) -> bool:
    """``-pcp`` > 1 from 0.26.0: the selector keeps only backends that support PCP, so the workers' check
    passes — for an MLA model every MLA backend supports PCP, a non-MLA model was refused by the selector."""
    if state.pcp <= 1:
        return False
    _host_modelled(state)
    if state.use_mla:
        return False
    from kvguard.rules.engine import SkipCheck
    raise SkipCheck("the attention selector refuses a non-MLA PCP launch before this check (W_attn_selector)")
