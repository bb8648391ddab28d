"""The attention-backend name ``--attention-backend`` gives (0.13.0+), as ``EngineArgs.create_engine_config``
(vllm/engine/arg_utils.py) turns it into ``AttentionBackendEnum`` after SchedulerConfig is built and before VllmConfig:

- with ``--attention-config`` setting ``backend`` too: ValueError "attention_backend and attention_config.backend are
  mutually exclusive";
- a name the release's enum lacks (upper-cased first; ``auto`` is "let the selector choose" from the releases where
  the measurement says so): the enum's ValueError listing the release's names in its order.

The names and the meaning of ``auto`` are measured per release (kvguard/data/backend_names.json, written by
tools/measure_backend_names.py from each release's own serve path).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["EXCLUSIVE_MESSAGE", "UNKNOWN_MESSAGE", "backend_given_twice", "measured_names",
           "unknown_attention_backend", "unknown_bind"]

EXCLUSIVE_MESSAGE = "attention_backend and attention_config.backend are mutually exclusive"
UNKNOWN_MESSAGE = "Unknown attention backend: '{name}'. Valid options are: {names}"
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "backend_names.json")


@lru_cache(maxsize=None)
def _measured() -> dict:
    with open(_DATA, encoding="utf-8") as fh:
        return json.load(fh)["releases"]


def measured_names(version: str) -> Optional[list]:
    """The release's AttentionBackendEnum names as measured, in its order (None: not measured)."""
    found = _measured().get(version)
    return None if found is None else found["names"]


def _release_names(state: Any) -> dict:
    found = _measured().get(str(state.release.version))
    if found is None:
        state.undecided(f"the attention-backend names of vLLM {state.release.version} are not measured")
    return dict(found or {})


def _means_auto(state: Any, value: str) -> bool:
    return value.lower() == "auto" and _release_names(state)["auto"]


def backend_given_twice(state: Any) -> bool:
    given, in_config = state.layout.attention_backend, state.layout.attention_config_backend
    if given is None or in_config is None:
        return False
    if in_config.lower() == "auto":
        state.undecided("--attention-config sets backend to 'auto', which its validator may turn into None (not "
                        "modelled): whether it clashes with --attention-backend is not decided")
    return True


def unknown_attention_backend(state: Any) -> bool:
    name = state.layout.attention_backend
    if name is None or _means_auto(state, name):
        return False
    return name.upper() not in _release_names(state)["names"]


def unknown_bind(state: Any) -> dict:
    return {"name": state.layout.attention_backend.upper(), "names": ", ".join(_release_names(state)["names"])}
