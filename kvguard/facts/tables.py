"""The measured class tables (``kvguard/data/facts/``), loaded on first use.

``transformers-<line>.json``: per transformers line, the model-type mapping, the line's shared facts
(PretrainedConfig's parameters, RoPE key sets, allowed layer types) and the index of its configuration
classes; ``vllm.json``: per vLLM release, its loader tables (``_CONFIG_REGISTRY``,
``_SPECULATIVE_DECODING_CONFIGS``, …) and the index of its own config classes.  Each class record
(attribute map, parameters with their defaults, sub-configs, the steps its ``__init__`` takes) is a
file of ``classes/``, shared by every line and release that has the same class, and is read only when
a config needs it.  All of it is written by tools/facts_extract.py from the real libraries.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from functools import lru_cache

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["transformers_tables", "vllm_release_tables", "vllm_releases"]

_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "facts")


def _read(name: str) -> dict:
    with open(os.path.join(_DIR, name), encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=None)
def class_record(file_id: str) -> dict:
    """One class record (``classes/<file_id>.json``)."""
    return _read(os.path.join("classes", file_id + ".json"))


class ClassRecords(Mapping):
    """Class name -> record, read from ``classes/`` when first asked for."""

    def __init__(self, index: Mapping[str, str]):
        self._index = index

    def __getitem__(self, name: str) -> dict:
        return class_record(self._index[name])

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


@lru_cache(maxsize=None)
def transformers_tables(line: str) -> dict:
    try:
        tables = _read(f"transformers-{line}.json")
    except FileNotFoundError:
        raise Undecidable(f"kvguard has no tables for transformers {line}") from None
    tables["classes"] = ClassRecords(tables["classes"])
    return tables


@lru_cache(maxsize=1)
def _vllm_text() -> str:
    with open(os.path.join(_DIR, "vllm.json"), encoding="utf-8") as fh:
        return fh.read()


@lru_cache(maxsize=1)
def _vllm() -> dict:
    return json.loads(_vllm_text())


def vllm_releases() -> tuple[str, ...]:
    return tuple(_vllm()["releases"])


@lru_cache(maxsize=None)
def vllm_release_entry(release: str) -> "dict | None":
    """``vllm.json``'s entry for ``release``, or None when the file has none (the package's file, read
    once: the loader asks for it each time it builds a config, three times in a first check of
    DeepSeek-R1, ~2.7M instructions a decoding).

    A check needs one release of the 36: when the file (compact JSON, as tools/facts_extract.py
    writes it) spells ``"<release>":{`` exactly once, after ``"releases":{``, that value alone is
    decoded (~1 ms less per cold check than decoding the 270 KB file); anything else falls back to
    the whole file."""
    text = _vllm_text()
    needle = json.dumps(release) + ":{"
    at = text.find(needle)
    if 0 <= text.find('"releases":{') < at and text[at - 1] in ",{" and text.find(needle, at + 1) < 0:
        value, _ = json.JSONDecoder().raw_decode(text, at + len(needle) - 1)
        if isinstance(value, dict) and "classes" in value and "class_aliases" in value:
            return value
    return _vllm()["releases"].get(release)


@lru_cache(maxsize=None)
def vllm_release_tables(release: str) -> dict:
    """One release's registry, loader tables and class records (shared records resolved)."""
    entry = vllm_release_entry(release)
    if entry is None:
        raise Undecidable(f"kvguard has no facts tables for vLLM {release}")
    out: dict[str, Any] = {k: v for k, v in entry.items() if k != "classes"}
    out["classes"] = ClassRecords(entry["classes"])
    return out
