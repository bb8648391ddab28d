"""The cache set-up of Mamba and hybrid models, the first thing VllmConfig validates (0.15.0 – 0.33.0).

Mirrors ``MambaModelConfig.verify_and_update_config`` in vllm/model_executor/models/config.py, which
``VllmConfig.try_verify_and_update_config`` (vllm/config/vllm.py) reaches for the pure Mamba architectures of
``MODELS_CONFIG_MAP`` and, through ``HybridAttentionMambaModelConfig``, for every hybrid model
(``ModelConfig.is_hybrid``); it runs before ``ModelConfig.verify_with_parallel_config``.  The switches it
reads are ``EngineArgs``' defaults (``_set_default_chunked_prefill_and_prefix_caching_args`` in
vllm/engine/arg_utils.py, ``ModelConfig.is_prefix_caching_supported``) unless the launch sets them.

With prefix caching on, the set-up settles a Mamba cache mode and asserts that chunked prefill is on —
for mode ``align`` from 0.15.0, for every mode from 0.32.0 — so ``--no-enable-chunked-prefill`` on such a
model is refused where prefix caching is on, by default from 0.28.0 for hybrid models.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PURE_MAMBA_ARCHITECTURES", "chunked_prefill_refused", "chunked_prefill_refused_in_align_mode",
           "has_mamba_layers", "is_hybrid", "prefix_caching_on", "runs_mamba_setup",
           "speculative_refused"]

#: ``MODELS_CONFIG_MAP``'s architectures handled by MambaModelConfig itself (the same three 0.15.0 – 0.33.0)
PURE_MAMBA_ARCHITECTURES = ("MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM")

#: layer kinds a hybrid-registered model may list in ``layer_types`` and still be attention-only
#: (``ModelConfig.is_hybrid`` from 0.11.1: granite-4.0-micro); "full_attention" counts from 0.29.0
_ATTENTION_LAYERS = ("attention",)
_ATTENTION_LAYERS_SINCE_0_29 = ("attention", "full_attention")


def _architecture(state: Any) -> "str | None":
    from kvguard.archs import registered_arch

    return registered_arch(state.facts.architectures, state.release)


def is_hybrid(state: Any) -> bool:
    """``ModelConfig.is_hybrid``: the registry's flag; from 0.11.1 a model whose top-level ``layer_types`` are
    all attention layers is not hybrid."""
    from kvguard.archs import arch_flag

    if not arch_flag(state.facts.architectures, "is_hybrid", state.release):
        return False
    if not state.release.within("0.11.1"):
        return True
    layer_types = state.facts.resolved_top.get("layer_types")
    attention = _ATTENTION_LAYERS_SINCE_0_29 if state.release.within("0.29.0") else _ATTENTION_LAYERS
    return not isinstance(layer_types, (list, tuple)) or not all(kind in attention for kind in layer_types)


def has_mamba_layers(state: Any) -> bool:
    """A hybrid model (``is_hybrid``) or one of the pure Mamba architectures."""
    return is_hybrid(state) or _architecture(state) in PURE_MAMBA_ARCHITECTURES


def runs_mamba_setup(state: Any) -> bool:
    """Whether VllmConfig runs the Mamba cache set-up for this model (a pooling runner's too; where the launch
    leaves prefix caching to a pooling runner's default, which is not modelled, the launch is undecidable)."""
    hybrid = is_hybrid(state)
    if not hybrid and _architecture(state) not in PURE_MAMBA_ARCHITECTURES:
        return False
    from kvguard.length import runner_is_pooling

    if state.layout.enable_prefix_caching is None and (
            state.layout.runner not in (None, "auto", "generate") or state.layout.convert not in (None, "auto", "none")
            or runner_is_pooling(state.facts, state.release, state.sidecar)):
        state.undecided("the Mamba cache set-up refuses this launch where prefix caching is on, and a pooling "
                        "runner's prefix-caching default is not modelled")
    return True


def prefix_caching_on(state: Any) -> bool:
    """Whether prefix caching is on for a Mamba or hybrid model when the Mamba cache set-up reads it: the launch's
    switch, else the release's default for a generative model."""
    if state.layout.enable_prefix_caching is not None:
        return state.layout.enable_prefix_caching
    # is_prefix_caching_supported for a generative model: attention-free ones never; hybrid ones from 0.26.0,
    # but EngineArgs keeps them opt-in up to 0.27.x
    return is_hybrid(state) and state.release.within("0.28.0")


def _cache_mode(state: Any) -> str:
    """The Mamba cache mode the set-up settles on when prefix caching is on (0.15.0 – 0.31.0)."""
    mode = state.layout.mamba_cache_mode or "none"
    if mode == "align" or (mode == "none" and state.release.within("0.28.0")):
        return "align"
    from kvguard.archs import arch_flag

    supported = arch_flag(state.facts.architectures, "supports_mamba_prefix_caching", state.release)
    if supported is None:
        state.unmodelled("whether the model class supports Mamba prefix caching (SupportsMambaPrefixCaching) is "
                         "not recorded for this architecture")
    if mode == "all":
        return "all" if supported else "align"
    # the default mode: "all" where the class supports it; 0.20.0 – 0.21.x keep "align" for speculative decoding
    if supported and not (state.spec is not None and state.release.within("0.20.0", "0.21.0")):
        return "all"
    return "align"


def chunked_prefill_refused(state: Any) -> bool:
    """``assert enable_chunked_prefill`` of the set-up in every cache mode (0.32.0+): the launch turns chunked
    prefill off with prefix caching on."""
    if state.layout.enable_chunked_prefill is not False:
        return False  # a generative model's default is on
    return runs_mamba_setup(state) and prefix_caching_on(state)


def chunked_prefill_refused_in_align_mode(state: Any) -> bool:
    """The same assertion in the cache mode 'align' only (0.15.0 – 0.31.x)."""
    return chunked_prefill_refused(state) and _cache_mode(state) == "align"


def speculative_refused(state: Any) -> bool:
    """0.15.0 – 0.16.x: mode ``align`` also refuses speculative decoding."""
    if state.spec is None or not runs_mamba_setup(state) or not prefix_caching_on(state):
        return False
    return _cache_mode(state) == "align"
