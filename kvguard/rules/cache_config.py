"""CacheConfig's checks of the memory options it is given (vllm/config/cache.py), built by
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) after the V1 support check and before the data-parallel
checks and ParallelConfig; pydantic wraps their ValueError in a ValidationError for CacheConfig.

- 0.10.2 / 0.11.0 (``CacheConfig._verify_args``): a negative ``--cpu-offload-gb``, then ``--gpu-memory-utilization``
  above 1.
- 0.11.1+: the fields' pydantic bounds instead (``gpu_memory_utilization`` in (0, 1]; ``cpu_offload_gb`` at least 0,
  in CacheConfig to 0.17.1 and in the offload config after; ``swap_space`` at least 0 until the flag goes, 0.17.1;
  ``block_size`` greater than 0 from 0.23.0, ``SkipValidation`` before): pydantic's message names the host's pydantic
  version, so such a launch is undecidable.
- 0.33.0: ``--kv-cache-dtype`` is a free string (before, argparse's choices), checked by the ``cache_dtype`` field
  validator against ``KV_CACHE_DTYPES``: the ``CacheDType`` literal plus the names a platform registers with
  ``register_kv_cache_dtype`` when it activates.  No in-tree platform registers one, so the list is the literal's on
  every platform kvguard knows (the platform is read, and listed when assumed).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CACHE_DTYPE_MESSAGE", "CPU_OFFLOAD_MESSAGE", "GPU_MEMORY_MESSAGE", "KV_CACHE_DTYPES_0330",
           "cache_dtype_bind", "cpu_offload_negative", "field_bounds", "gpu_memory_above_one", "unknown_cache_dtype"]

CPU_OFFLOAD_MESSAGE = "CPU offload space must be non-negative, but got {cpu_offload_gb}"
GPU_MEMORY_MESSAGE = "GPU memory utilization must be less than 1.0. Got {gpu_memory_utilization}."
CACHE_DTYPE_MESSAGE = "Invalid kv_cache_dtype: {quoted}. Valid values are: {valid}"
#: 0.33.0's ``CacheDType`` literal (vllm/config/cache.py), in its order: ``KV_CACHE_DTYPES`` on in-tree platforms
KV_CACHE_DTYPES_0330 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
                        "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
                        "turboquant_3bit_nc", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "ultraquant_4bit",
                        "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head", "nvfp4", "nvfp4_4over6")


def cpu_offload_negative(state: Any) -> bool:
    given = state.layout.cpu_offload_gb
    return given is not None and given < 0


def gpu_memory_above_one(state: Any) -> bool:
    given = state.layout.gpu_memory_utilization
    return given is not None and given > 1.0


def offload_bind(state: Any) -> dict:
    return {"cpu_offload_gb": state.layout.cpu_offload_gb}


def memory_bind(state: Any) -> dict:
    return {"gpu_memory_utilization": state.layout.gpu_memory_utilization}


def field_bounds(state: Any) -> None:
    """0.11.1+: the pydantic bounds of the memory, swap and block options (checked together as the config is
    built)."""
    lay, release = state.layout, state.release
    util, offload = lay.gpu_memory_utilization, lay.cpu_offload_gb
    out = []
    if util is not None and not 0 < util <= 1:
        out.append(f"--gpu-memory-utilization {util}")
    if offload is not None and not offload >= 0:
        out.append(f"--cpu-offload-gb {offload}")
    if release.within("0.11.1", "0.17.1") and not lay.swap_space >= 0:
        out.append(f"--swap-space {lay.swap_space} (at least 0)")
    if lay.block_size is not None and release.within("0.23.0") and not lay.block_size > 0:
        out.append(f"--block-size {lay.block_size} (greater than 0)")
    if out:
        state.undecided(f"the config's field bounds refuse {', '.join(out)} with pydantic's message, which names the "
                        "host's pydantic version: kvguard does not quote it")


def unknown_cache_dtype(state: Any) -> bool:
    """0.33.0: a ``--kv-cache-dtype`` the field validator does not know (the platform decides the list)."""
    given = state.layout.kv_cache_dtype
    if given is None or given in KV_CACHE_DTYPES_0330:
        return False
    state.need("platform")
    return True


def cache_dtype_bind(state: Any) -> dict:
    return {"quoted": repr(state.layout.kv_cache_dtype), "valid": repr(list(KV_CACHE_DTYPES_0330))}
