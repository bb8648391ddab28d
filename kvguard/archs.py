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


def _registered(name: str, release: Release) -> bool:
    entry = _data().get("archs", {}).get(name)
    return bool(entry) and _in_ranges(entry.get("registered"), release)


def _suffix_table(release: Release) -> list:
    for block in _data().get("suffixes", ()):
        if release.within(block["since"], block["until"]):
            return block["table"]
    return []


def normalize_arch(arch: str, release: Release) -> Optional[str]:
    """``_ModelRegistry._normalize_arch`` for the default runner/convert: the registered name vLLM uses.

    A registered name is itself; otherwise the first suffix of the release's
    ``_SUFFIX_TO_DEFAULTS`` table that ends the name is replaced by each table
    suffix in order, and the first registered result is used
    (``Qwen2_5_VLModel`` -> ``Qwen2_5_VLForConditionalGeneration``).
    """
    if _registered(arch, release):
        return arch
    table = _suffix_table(release)
    match = next((row for row in table if arch.endswith(row[0])), None)
    if match is None:
        return None
    for repl, _runner, _convert in table:
        base = arch.replace(match[0], repl)
        if _registered(base, release):
            return base
    return None


def registered_arch(architectures, release: Release) -> Optional[str]:
    """The registry entry ``release`` resolves ``architectures`` to (first hit wins), or None."""
    for arch in architectures:
        if not isinstance(arch, str):
            continue
        found = normalize_arch(arch, release)
        if found is not None:
            return found
    return None


def arch_flag(architectures, flag: str, release: Release) -> Optional[bool]:
    """``flag`` (e.g. ``supports_pp``) of the architecture vLLM resolves, None if unknown."""
    arch = registered_arch(architectures, release)
    if arch is None:
        return None
    return _in_ranges(_data()["archs"][arch].get(flag), release)
