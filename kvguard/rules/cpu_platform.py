"""The CPU platform's config hook: the refusals of ``CpuPlatform.check_and_update_config`` (vllm/platforms/cpu.py,
0.10.2 – 0.20.2), which ``VllmConfig.__post_init__`` runs after the model's cache set-up.

- 0.10.2 – 0.11.0 fill an unset block size with 16 without intel_extension_for_pytorch (a host fact, ``ipex``) and
  refuse any other size then; a Mamba or hybrid model's cache set-up has already picked the size, which kvguard
  does not follow: such a launch is undecidable there.
- 0.10.2 – 0.20.2 refuse a quantized KV cache with chunked prefill or prefix caching on: ``CacheConfig``'s dtype,
  which from 0.14.0 a ModelOpt checkpoint's KV-cache quantization gives ``--kv-cache-dtype auto``, and which
  DeepSeek-V3.2's cache set-up changes first (0.11.0 – 0.17.1).  What counts as quantized
  changed: any dtype but "auto" to 0.14.x, an "fp8…" one from 0.15.0, "nvfp4" and "…per_token_head" too from
  0.20.0.  On 0.10.2 a quantized KV cache sends the engine back to V0 on this platform (the V1 support check's
  answer), whose defaults turn neither switch on, so only a launch that turns one on is refused; 0.11.0 turns
  chunked prefill on for a generative model whatever the launch says; from 0.11.1 the defaults turn both on
  unless the launch turns them off.

- ``VLLM_CPU_KVCACHE_SPACE`` set to a value ``int()`` refuses: Python's ValueError, inside VllmConfig.  0.10.2 –
  0.19.1 read it through the vllm.envs getter (``get_device_total_memory``, an empty value refused too) after the
  block-size and quantized-KV-cache refusals; 0.20.0 – 0.33.0 read a non-empty value with ``int(os.environ[...])``
  (the "legacy setting") before the quantized-KV-cache refusal (0.20.x) and the AMX linear-attention branch
  (0.22.0 – 0.25.x), after the AMX MLA branch (0.29.0+).  An empty value the hook skips there is refused by the
  getter when the engine starts (``enable_envs_cache``): undecidable (kvguard.rules.env_values).

The hook's branches of 0.22.0+ that ask ``torch.cpu._is_amx_tile_supported()`` read the host fact ``amx``
(kvguard.rules.cpu_amx; assumed False, a CPU without AMX tiles).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["block_size_refused", "kvcache_space_bind", "kvcache_space_refused", "quantized_kv_cache", "refused_on_v0", "refused_with_chunked_prefill_forced",
           "refused_with_defaults"]


def quantized_kv_cache(dtype: str, release: Any) -> bool:
    """``is_quantized_kv_cache`` of the release (0.10.2 – 0.20.2)."""
    if not release.within("0.15.0"):
        return dtype != "auto"
    if not release.within("0.20.0"):
        return dtype.startswith("fp8")
    return dtype.startswith("fp8") or dtype.endswith("per_token_head") or dtype == "nvfp4"


def _cache_dtype_at_hook(state: Any) -> str:
    """CacheConfig's dtype when the hook reads it: DeepSeek-V3.2's cache set-up (``DeepseekV32ForCausalLM`` in
    ``MODELS_CONFIG_MAP``, run first) takes ``bfloat16`` as ``auto`` (0.11.0 – 0.17.1) and, on 0.11.0, ``auto``
    as its own FP8 format."""
    dtype = state.cache_dtype
    if not state.release.within("0.11.0", "0.17.1"):
        return dtype
    from ..archs import registered_arch

    if registered_arch(state.facts.architectures, state.release) != "DeepseekV32ForCausalLM":
        return dtype
    if dtype == "bfloat16":
        return "auto"
    if not state.release.within("0.11.1") and (dtype == "auto" or dtype.startswith("fp8")):
        return "fp8_ds_mla"
    return dtype


def _on_cpu(state: Any) -> bool:
    return state.need("platform") == "cpu"


def block_size_refused(state: Any) -> bool:
    """0.10.2 – 0.11.0: a block size other than 16 without intel_extension_for_pytorch."""
    from .mamba_cache import has_mamba_layers

    mamba = has_mamba_layers(state)
    size = state.layout.block_size
    if not mamba and (size is None or size == 16):
        return False        # the platform is read only where it matters: its assumption is listed then
    if not _on_cpu(state):
        return False
    if mamba:
        state.undecided(f"on vLLM {state.release.version}'s CPU platform a Mamba / hybrid model's cache set-up picks "
                        "the block size, which the platform then refuses unless it is 16 or "
                        "intel_extension_for_pytorch is installed; kvguard does not model that size")
    return not state.need("ipex")


def _kvcache_space_error(state: Any) -> "str | None":
    """The message of the ValueError the hook's ``int()`` raises for VLLM_CPU_KVCACHE_SPACE, or None."""
    value = state.env.get("VLLM_CPU_KVCACHE_SPACE")
    if value is None:
        return None  # the usual launch: no import (a relative one runs importlib's Python code each call)
    from kvguard.rules.env_values import is_placeholder

    if is_placeholder(value) or (value == "" and state.release.within("0.20.0")):
        return None
    try:
        int(value)          # the hook's own parser: Python's int() and its message
    except ValueError as exc:
        return str(exc)
    return None


def kvcache_space_refused(state: Any) -> bool:
    """VLLM_CPU_KVCACHE_SPACE set to a value the hook's int() refuses, on the CPU platform."""
    return _kvcache_space_error(state) is not None and _on_cpu(state)


def kvcache_space_bind(state: Any) -> dict:
    return {"message": _kvcache_space_error(state)}


def _quantized_on_cpu(state: Any) -> bool:
    """A quantized KV cache (CacheConfig's dtype, after the model's own cache set-up) on the CPU platform."""
    return quantized_kv_cache(_cache_dtype_at_hook(state), state.release) and _on_cpu(state)


def refused_on_v0(state: Any) -> bool:
    """0.10.2: the V0 engine (kvguard.rules.v1_features decides when it runs; a quantized KV cache on this platform
    is one of the V1 oracle's fallbacks) turns neither switch on by default."""
    if not _quantized_on_cpu(state):
        return False
    from .v1_features import runs_v0_engine

    if not runs_v0_engine(state):
        state.undecided("vLLM 0.10.2's V1 engine with a quantized KV cache on the CPU platform: its chunked-prefill "
                        "and prefix-caching defaults there are not modelled")
    return bool(state.layout.enable_chunked_prefill) or bool(state.layout.enable_prefix_caching)


def refused_with_chunked_prefill_forced(state: Any) -> bool:
    """0.11.0: chunked prefill is on for a generative model whatever the launch says."""
    if not _quantized_on_cpu(state):
        return False
    from .scheduler import pooling_launch

    return not pooling_launch(state) or _switches_on(state, pooling=True)


def refused_with_defaults(state: Any) -> bool:
    """0.11.1 – 0.20.2: the launch's switches, else the release's defaults (both on for a generative model)."""
    if not _quantized_on_cpu(state):
        return False
    from .scheduler import pooling_launch

    return _switches_on(state, pooling=pooling_launch(state))


def _switches_on(state: Any, *, pooling: bool) -> bool:
    """Chunked prefill or prefix caching on: what the launch says, else the default (undecided where kvguard does
    not model it)."""
    chunked, prefix = state.layout.enable_chunked_prefill, state.layout.enable_prefix_caching
    from .mamba_cache import has_mamba_layers

    # the Mamba cache set-up (0.15.0+) runs before the hook and is not modelled for a pooling runner's defaults
    if pooling and state.release.within("0.15.0") and has_mamba_layers(state):
        state.undecided("a Mamba / hybrid model on a pooling runner: the cache set-up before the CPU platform's "
                        "check (which may refuse first) is not modelled for pooling runners")
    if chunked or prefix:
        return True
    if (chunked is None or prefix is None) and pooling:
        state.undecided("a quantized KV cache on the CPU platform is refused when chunked prefill or prefix caching "
                        "is on, and kvguard does not model a pooling runner's defaults for them")
    if chunked is None:
        return True                                # the default for a generative model
    if prefix is None:
        if has_mamba_layers(state):
            state.undecided("a quantized KV cache on the CPU platform is refused when prefix caching is on, and "
                            "kvguard does not model a Mamba / hybrid model's default for it there")
        return True
    return False
