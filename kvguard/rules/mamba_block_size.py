"""``VllmConfig.validate_mamba_block_size`` (vllm/config/vllm.py, 0.11.1 – 0.33.0, the same check and message in
every release that has it): a model validator, run after ``VllmConfig.__post_init__``, that refuses a Mamba block
size other than the final maximum model length once prefix caching ends up off.

The Mamba block size is the launch's ``--mamba-block-size`` or, for a model the Mamba cache set-up runs for
(``MambaModelConfig.verify_and_update_config``, vllm/model_executor/models/config.py), the one the set-up took: the
maximum length (0.11.x always, when the launch gave none), else the block size where prefix caching was on at the
set-up.  Prefix caching at the validator is the launch's switch or ``EngineArgs``' default
(vllm/engine/arg_utils.py: 0.11.x ``get_chunked_prefill_prefix_caching_defaults``, off for a hybrid model; from
0.12.0 ``ModelConfig.is_prefix_caching_supported``, off for attention-free and encoder-decoder models and, to
0.27.x, for hybrid ones, and off with a prefill context parallel size above 1), then what turns it off before the
validator, in upstream order:

- 0.11.1 – 0.14.x: the Mamba cache set-up, for a model class without Mamba prefix-caching support;
- 0.11.x: ``__post_init__``'s final off-switch for an encoder-decoder model (and pooling ones: undecidable);
- 0.22.0 – 0.24.x: the CPU platform on an AMX CPU, for a model with linear-attention layers (kvguard.rules.cpu_amx);
- 0.25.0+: ``UnlimitedOCRForCausalLMConfig`` (undecidable: kvguard does not follow that hook's backend checks);
- 0.28.0+: the CPU platform for an MLA model (from 0.29.0 unless the AMX MLA kernels take it: undecidable there).

The AMX CPU fact and the platform are read only where the answer depends on them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAMBA_BLOCK_SIZE_MESSAGE", "refused_0_11", "refused_0_12", "refused_0_15", "refused_0_22",
           "refused_0_26", "refused_0_28"]

#: VllmConfig.validate_mamba_block_size's refusal (the same text 0.11.1 – 0.33.0)
MAMBA_BLOCK_SIZE_MESSAGE = "--mamba-block-size can only be set with --enable-prefix-caching"

#: CacheConfig.DEFAULT_BLOCK_SIZE (0.22.0+): the block size the set-up reads where the launch gives none
_DEFAULT_BLOCK_SIZE = 16

#: the one model class with no-op blocks (``HasNoOps``, vllm/model_executor/models/nemotron_nas.py, 0.22.0 – 0.24.x)
_NO_OP_BLOCK_ARCHITECTURES = ("DeciLMForCausalLM",)

#: the model classes whose own config hook turns prefix caching off (MODELS_CONFIG_MAP, 0.25.0+)
_PREFIX_CACHING_OFF_HOOKS = ("UnlimitedOCRForCausalLM",)


def _max_len(state: Any) -> "int | None":
    final = getattr(state, "len_final", None)
    if isinstance(final, bool) or not isinstance(final, (int, float)) or final < 1:
        return None                  # not known, or left to the host (-1 / auto)
    return int(final)


def _maybe_pooling(state: Any) -> bool:
    lay = state.layout
    if lay.runner not in (None, "auto", "generate") or lay.convert not in (None, "auto", "none"):
        return True
    from kvguard.length import runner_is_pooling

    return bool(runner_is_pooling(state.facts, state.release, state.sidecar))


def _encoder_decoder(state: Any) -> bool:
    return bool(state.facts.resolved_top.get("is_encoder_decoder"))


def _prefix_caching_default(state: Any, mamba: bool) -> bool:
    """EngineArgs' prefix-caching default for a generative model (a pooling one's is not modelled)."""
    if _maybe_pooling(state):
        state.undecided("--mamba-block-size is refused where prefix caching ends up off, and kvguard does not model "
                        "a pooling runner's prefix-caching default")
    from kvguard.rules.mamba_cache import is_hybrid, prefix_caching_on

    if not state.release.within("0.12.0"):
        return not is_hybrid(state)  # 0.11.x: on but for a hybrid model
    if state.pcp > 1:
        return False                 # a prefill context parallel size above 1 turns the default off
    if mamba:
        return prefix_caching_on(state)
    return not _encoder_decoder(state)


def _refused(state: Any, *, set_up_drops_unsupported: bool = False, post_init_off_switch: bool = False,
             amx_linear_attention: bool = False, own_hooks: bool = False, cpu_mla_reset: bool = False) -> bool:
    """The validator with the resets of one range of releases (the keywords: the list of the module docstring)."""
    from kvguard.archs import arch_flag, registered_arch
    from kvguard.rules.mamba_cache import has_mamba_layers, runs_mamba_setup

    given = state.layout.mamba_block_size
    amx_linear_attention = amx_linear_attention and state.release.within(None, "0.24.0")
    if given is None and not (amx_linear_attention or cpu_mla_reset):
        # the set-up gives the block size only where prefix caching is on, and only those releases turn it off after
        return False
    attention_free = bool(arch_flag(state.facts.architectures, "is_attention_free", state.release))
    mamba = attention_free or has_mamba_layers(state)
    if given is None:
        if not mamba:
            return False             # no Mamba block size
        if not amx_linear_attention and not (state.use_mla and state.need("platform") == "cpu"):
            return False             # the CPU platform's MLA reset is the only one after the set-up
    set_up = mamba and runs_mamba_setup(state)
    no_op_blocks = amx_linear_attention and (
        registered_arch(state.facts.architectures, state.release) in _NO_OP_BLOCK_ARCHITECTURES)
    if given is None and not set_up:
        return False
    if own_hooks and given is not None and any(arch in _PREFIX_CACHING_OFF_HOOKS
                                               for arch in state.facts.architectures or ()):
        state.undecided("this model class's own config hook (UnlimitedOCRForCausalLMConfig) turns prefix caching "
                        "off after checking its attention backends, which kvguard does not follow")
    prefix = state.layout.enable_prefix_caching
    if prefix is None:
        prefix = _prefix_caching_default(state, mamba)
    elif post_init_off_switch and _maybe_pooling(state):
        state.undecided("vLLM 0.11.x turns prefix caching off for a pooling model by its pooling type, which kvguard "
                        "does not model")
    if set_up_drops_unsupported and set_up and prefix and not arch_flag(
            state.facts.architectures, "supports_mamba_prefix_caching", state.release):
        prefix = False               # the set-up turns it off for a class without Mamba prefix caching
    if given is not None:
        size = given
    elif post_init_off_switch or not prefix:
        return False                 # the set-up took the maximum length
    else:
        size = state.layout.block_size or _DEFAULT_BLOCK_SIZE
    final = _max_len(state)
    if final is not None and size == final:
        return False
    if post_init_off_switch and _encoder_decoder(state):
        prefix = False               # 0.11.x: __post_init__'s final off-switch
    if prefix and amx_linear_attention:
        # (a count the platform cannot make is PLAT_cpu_amx_linear_attention's)
        prefix = not _amx_turns_prefix_caching_off(state, mamba or no_op_blocks)
    if prefix and cpu_mla_reset and state.use_mla and state.need("platform") == "cpu":
        from kvguard.rules.cpu_amx import amx_mla_kernels

        if amx_mla_kernels(state):
            state.undecided(f"on an AMX CPU vLLM {state.release.version}'s CPU platform keeps prefix caching on for "
                            "an MLA model on its AMX kernels, which kvguard does not model")
        prefix = False               # the CPU platform turns prefix caching off for an MLA model
    if prefix:
        return False
    if final is None:
        state.undecided("vLLM refuses a Mamba block size other than the maximum model length without prefix "
                        "caching, and kvguard does not know this launch's maximum length")
    return True


def _amx_turns_prefix_caching_off(state: Any, candidate: bool) -> bool:
    """0.22.0 – 0.24.x: the CPU platform on an AMX CPU turns prefix caching off for a model with linear-attention
    layers (a plain transformer counts none: the platform and the fact are not read)."""
    if not candidate:
        return False
    from kvguard.rules.cpu_amx import amx_cpu, linear_attention_layers

    return amx_cpu(state) and linear_attention_layers(state)


def refused_0_11(state: Any) -> bool:
    """0.11.1 – 0.11.2: the set-up drops prefix caching for a class without support, __post_init__'s off-switch."""
    return _refused(state, set_up_drops_unsupported=True, post_init_off_switch=True)


def refused_0_12(state: Any) -> bool:
    """0.12.0 – 0.14.x: the set-up drops prefix caching for a class without support."""
    return _refused(state, set_up_drops_unsupported=True)


def refused_0_15(state: Any) -> bool:
    """0.15.0 – 0.21.x: the launch's switch or the default, untouched before the validator."""
    return _refused(state)


def refused_0_22(state: Any) -> bool:
    """0.22.0 – 0.25.x: the CPU platform's AMX branch (to 0.24.x), the model hooks (0.25.0+).  0.25.x share 0.24.0's
    rule rows (launch-check group V16, tests/test_new_release.py): the two gates are versions in code."""
    return _refused(state, amx_linear_attention=True, own_hooks=state.release.within("0.25.0"))


def refused_0_26(state: Any) -> bool:
    """0.26.0 – 0.27.x: the model hooks."""
    return _refused(state, own_hooks=True)


def refused_0_28(state: Any) -> bool:
    """0.28.0+: the model hooks, the CPU platform's MLA reset."""
    return _refused(state, own_hooks=True, cpu_mla_reset=True)
