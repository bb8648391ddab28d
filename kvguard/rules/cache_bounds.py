"""CacheConfig's pydantic bounds on ``--block-size`` and ``--swap-space`` (vllm/config/cache.py), checked as
``EngineArgs.create_engine_config`` builds CacheConfig:

- ``swap_space: float = Field(default=4, ge=0)`` from 0.11.1 until the flag goes (0.17.1; 0.10.2 / 0.11.0 declare no
  bound);
- ``block_size: int = Field(default=None, gt=0)`` from 0.23.0 (before, ``SkipValidation``: no bound here).

A value outside them is refused with pydantic's ValidationError, whose message names the host's pydantic version:
kvguard declines such a launch (undecidable), as kvguard.rules.cache_config does for the memory options.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["block_and_swap_bounds"]


def block_and_swap_bounds(state: Any) -> None:
    lay, release = state.layout, state.release
    out = []
    if lay.block_size is not None and release.within("0.23.0") and not lay.block_size > 0:
        out.append(f"--block-size {lay.block_size} (greater than 0)")
    if release.within("0.11.1", "0.17.1") and not lay.swap_space >= 0:
        out.append(f"--swap-space {lay.swap_space} (at least 0)")
    if out:
        state.undecided(f"CacheConfig's field bounds refuse {', '.join(out)} with pydantic's message, which names "
                        "the host's pydantic version: kvguard does not quote it")
