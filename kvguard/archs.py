"""vLLM's model registry, as data: which architectures a release knows and their flags.

``kvguard/data/archs.json`` is generated from each release's
vllm/model_executor/models/registry.py and the model classes' interfaces by
tools/extract_registry.py.  Flags are lists of inclusive release ranges.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Optional

from .versions import Release

__all__ = ["arch_flag", "registered_arch", "registry_loaded"]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    try:
        text = resources.files("kvguard").joinpath("data/archs.json").read_text("utf-8")
    except (FileNotFoundError, OSError):
        return {}
    return json.loads(text)


def registry_loaded() -> bool:
    return bool(_data().get("archs"))


def _in_ranges(ranges, release: Release) -> bool:
    return any(release.within(first, last) for first, last in ranges or ())


def registered_arch(architectures, release: Release) -> Optional[str]:
    """The first of ``architectures`` that ``release``'s registry knows, or None."""
    archs = _data().get("archs", {})
    for arch in architectures:
        entry = archs.get(arch)
        if entry and _in_ranges(entry.get("registered"), release):
            return arch
    return None


def arch_flag(architectures, flag: str, release: Release) -> Optional[bool]:
    """``flag`` (e.g. ``supports_pp``) of the architecture vLLM resolves, None if unknown."""
    arch = registered_arch(architectures, release)
    if arch is None:
        return None
    return _in_ranges(_data()["archs"][arch].get(flag), release)
