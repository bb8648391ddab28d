"""The measured class tables (``kvguard/data/facts/``), loaded on first use.

``transformers-<line>.json``: per transformers line, every configuration class (attribute map,
parameters with their defaults, sub-configs, the steps its ``__init__`` takes), the model-type
mapping, and the line's shared facts (PretrainedConfig's parameters, RoPE key sets, allowed layer
types).  ``vllm.json``: per vLLM release, its own config classes and loader tables
(``_CONFIG_REGISTRY``, ``_SPECULATIVE_DECODING_CONFIGS``, …), class records shared between
releases.  Both are written by tools/facts_extract.py from the real libraries.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

from ..errors import Undecidable

__all__ = ["transformers_tables", "vllm_release_tables", "vllm_releases"]

_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "facts")


def _read(name: str) -> dict:
    with open(os.path.join(_DIR, name), encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=None)
def transformers_tables(line: str) -> dict:
    try:
        return _read(f"transformers-{line}.json")
    except FileNotFoundError:
        raise Undecidable(f"kvguard has no tables for transformers {line}") from None


@lru_cache(maxsize=1)
def _vllm() -> dict:
    return _read("vllm.json")


def vllm_releases() -> tuple[str, ...]:
    return tuple(_vllm()["releases"])


@lru_cache(maxsize=None)
def vllm_release_tables(release: str) -> dict:
    """One release's registry, loader tables and class records (shared records resolved)."""
    data = _vllm()
    entry = data["releases"].get(release)
    if entry is None:
        raise Undecidable(f"kvguard has no facts tables for vLLM {release}")
    out: dict[str, Any] = {k: v for k, v in entry.items() if k != "classes"}
    out["classes"] = {name: data["classes"][digest] for name, digest in entry["classes"].items()}
    return out
