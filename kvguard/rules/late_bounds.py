"""The pydantic bounds of LoadConfig's and VllmConfig's options kvguard otherwise passes over, checked when
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) builds those configs.

- LoadConfig (vllm/config/load.py, 0.21.0+): ``safetensors_prefetch_num_threads`` and
  ``safetensors_prefetch_block_size``, each ``Field(ge=1)``, declared in that order.  ``create_load_config`` builds it
  after the Mamba config's and kernel config's checks, before DecodingConfig (0.10.2 only) and ObservabilityConfig:
  one ValidationError for LoadConfig, an error per field out of bounds.  Its field validators (``load_format``,
  ``ignore_patterns``) refuse nothing.
- VllmConfig (vllm/config/vllm.py, 0.18.0+): ``shutdown_timeout: int = Field(default=0, ge=0)``, validated when
  VllmConfig is built, after every config above and before ``__post_init__``; no other field of VllmConfig is
  bounded, and its model validators run only after the fields pass.

Values come from kvguard.launch.argv, which carries an option's last value only when it lies outside the bound.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LOAD_BOUNDS", "SHUTDOWN_BOUND", "load_prefetch_bounds", "shutdown_timeout_bound"]

#: LoadConfig's bounded fields in declaration order: (field, layout carrier, bounds)
LOAD_BOUNDS = (("safetensors_prefetch_num_threads", "safetensors_prefetch_num_threads_out_of_bounds", (("ge", 1),)),
               ("safetensors_prefetch_block_size", "safetensors_prefetch_block_size_out_of_bounds", (("ge", 1),)))
#: VllmConfig's shutdown_timeout bound
SHUTDOWN_BOUND = (("ge", 0),)


def _raise_bound_errors(found: list) -> None:
    """A ValidationError (the row's stage names the class) with an error per ``(field, value, bounds)`` out of its
    bounds, in the order given."""
    from .cache_config import bound_error, broken_bound
    from .engine import Refusal

    entries = []
    for name, value, bounds in found:
        broken = broken_bound(value, bounds)
        if broken is not None:
            entries.append(bound_error(name, value, *broken))
    if entries:
        raise Refusal("ValidationError", entries[0].msg, errors=tuple(entries))


def load_prefetch_bounds(state: Any) -> None:
    """0.21.0+: ``--safetensors-prefetch-num-threads`` / ``--safetensors-prefetch-block-size`` below 1."""
    lay = state.layout
    _raise_bound_errors([(name, getattr(lay, carrier), bounds) for name, carrier, bounds in LOAD_BOUNDS
                         if getattr(lay, carrier) is not None])


def shutdown_timeout_bound(state: Any) -> None:
    """0.18.0+: ``--shutdown-timeout`` below 0, VllmConfig's field validation (before ``__post_init__``)."""
    value = state.layout.shutdown_timeout_out_of_bounds
    if value is not None:
        _raise_bound_errors([("shutdown_timeout", value, SHUTDOWN_BOUND)])
