"""CacheConfig's checks of the memory options it is given (vllm/config/cache.py), built by
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) after the V1 support check and before the data-parallel
checks and ParallelConfig; pydantic wraps their ValueError in a ValidationError for CacheConfig.

- 0.10.2 / 0.11.0 (``CacheConfig._verify_args``): a negative ``--cpu-offload-gb``, then ``--gpu-memory-utilization``
  above 1.
- 0.11.1+: the fields' pydantic bounds instead (``gpu_memory_utilization`` in (0, 1]; ``cpu_offload_gb`` at least 0,
  in CacheConfig to 0.17.1 and in the offload config after): pydantic's message names the host's pydantic version,
  so such a launch is undecidable.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CPU_OFFLOAD_MESSAGE", "GPU_MEMORY_MESSAGE", "cpu_offload_negative", "field_bounds", "gpu_memory_above_one"]

CPU_OFFLOAD_MESSAGE = "CPU offload space must be non-negative, but got {cpu_offload_gb}"
GPU_MEMORY_MESSAGE = "GPU memory utilization must be less than 1.0. Got {gpu_memory_utilization}."


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
    """0.11.1+: the pydantic bounds of the memory options (checked as the config is built)."""
    util, offload = state.layout.gpu_memory_utilization, state.layout.cpu_offload_gb
    out = []
    if util is not None and not 0 < util <= 1:
        out.append(f"--gpu-memory-utilization {util}")
    if offload is not None and not offload >= 0:
        out.append(f"--cpu-offload-gb {offload}")
    if out:
        state.undecided(f"the config's field bounds refuse {', '.join(out)} with pydantic's message, which names the "
                        "host's pydantic version: kvguard does not quote it")
