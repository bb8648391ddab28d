"""The vLLM environment variables each release defines (``vllm/envs.py``'s ``environment_variables``, 0.10.2 – 0.33.0).

The per-release lists are measured in each release (kvguard/data/env_names.json, written by
tools/measure_env_names.py).  Two verdicts follow from them:

- ``--fail-on-environ-validation`` (0.17.0+, EA_unknown_env): ``EngineArgs.create_engine_config`` walks the process
  environment right after the logging configuration (0.17.0 – 0.32.0 ``validate_environ`` of vllm/envs.py, 0.33.0+
  the platform's, vllm/platforms/interface.py, which no platform overrides) and raises ``ValueError: Unknown vLLM
  environment variable detected: NAME`` at the first ``VLLM_*`` name outside its list (without the flag: a logged
  warning).  "First" is the process environment's order, which kvguard does not see: one such name is decided,
  several leave the launch undecidable.
- A variable outside a release's list steers none of that release's choices: the checks that skip a launch because
  a variable changing a host-dependent kernel choice is set (kvguard.rules.table, kvguard.quant) ask
  :func:`steers` first (tests/upstream/test_env_names.py checks, per release, that each name they list appears
  nowhere in the source of the releases without it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MESSAGE", "READ_OUTSIDE_ENVS", "VALIDATION_SINCE", "defines", "steers", "unknown_bind", "unknown_names",
           "unknown_refused"]

#: the first release with --fail-on-environ-validation
VALIDATION_SINCE = "0.17.0"
MESSAGE = "Unknown vLLM environment variable detected: {name}"

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "env_names.json")


@lru_cache(maxsize=None)
def _ranges() -> Mapping[str, tuple[tuple[str, "str | None"], ...]]:
    with open(_DATA, encoding="utf-8") as handle:
        names = json.load(handle)["names"]
    return {name: tuple((first, last) for first, last in spans) for name, spans in names.items()}


def defines(release: Any, name: str) -> bool:
    """Whether ``release``'s ``vllm.envs.environment_variables`` has ``name``."""
    return any(release.within(first, last) for first, last in _ranges().get(name, ()))


#: variables some releases read straight from ``os.environ`` without listing them in vllm/envs.py (batch invariance:
#: vllm/model_executor/layers/batch_invariant.py from 0.11.1, in vllm/envs.py from 0.19.0): they steer whenever set
READ_OUTSIDE_ENVS = frozenset({"VLLM_BATCH_INVARIANT"})


def steers(state: Any, name: str) -> bool:
    """Whether the launch sets ``name`` (non-empty) and its release reads it: only then can the variable change what
    the release chooses."""
    return bool(state.env.get(name)) and (name in READ_OUTSIDE_ENVS or defines(state.release, name))


def unknown_names(release: Any, env: Mapping[str, str]) -> list[str]:
    """The ``VLLM_*`` names of ``env`` that ``release`` does not define, in ``env``'s order."""
    return [name for name in env if name.startswith("VLLM_") and not defines(release, name)]


def unknown_refused(state: Any) -> bool:
    """EA_unknown_env's condition: --fail-on-environ-validation with a ``VLLM_*`` name the release does not define."""
    if not state.layout.fail_on_environ_validation:
        return False
    unknown = unknown_names(state.release, state.env)
    if len(unknown) > 1:
        state.undecided(f"--fail-on-environ-validation with {len(unknown)} VLLM_* variables vLLM "
                        f"{state.release.version} does not define ({', '.join(unknown)}): it refuses the first one "
                        f"in the process environment's order, which kvguard does not see")
    return bool(unknown)


def unknown_bind(state: Any) -> dict[str, str]:
    return {"name": unknown_names(state.release, state.env)[0]}
