"""Which (model type, release) pairs the differential tier verified against the real libraries.

``kvguard/data/facts/verified.json`` (written by tools/facts_verified.py from tools/hfconfig_oracle.py runs):
a model type is verified for a release when that release's run compared at least 30 generated configs of it
and every one agreed with the real vLLM + transformers.  Facts of other configs are derived the same way but
reported as ``generic``, with a note.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["emulation_level"]

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "facts", "verified.json")


@lru_cache(maxsize=1)
def _table() -> dict:
    try:
        with open(_PATH, encoding="utf-8") as fh:
            return json.load(fh)["model_types"]
    except (OSError, ValueError, KeyError):
        return {}


def emulation_level(raw: Any, release: Any) -> str:
    """"exact" when ``raw``'s model type was verified for ``release``, else "generic"."""
    model_type = raw.get("model_type") if hasattr(raw, "get") else None
    if model_type is None and hasattr(raw, "get") and raw.get("speculators_config") is not None:
        model_type = "speculators"
    if not isinstance(model_type, str):
        return "generic"
    ranges = _table().get(model_type, ())
    return "exact" if any(release.within(first, last) for first, last in ranges) else "generic"
