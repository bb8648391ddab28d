"""Built-in config.json copies of well-known checkpoints (offline model resolution).

One JSON file per checkpoint: ``{"id", "aliases", "source", "config"}``, and
``hf_quant_config`` for a ModelOpt export that keeps its quantization config in
``hf_quant_config.json`` beside config.json (read as vLLM's ``get_config`` reads
that file: kvguard.launch.load), and ``quantization_unknown`` where the copy of that file is abridged (a check of
the entry is then undecidable), and ``safetensors_dtypes`` where config.json names no dtype (the weights' dtypes
vLLM then reads, with their source); ``source`` says where the values come from
(tests/data/catalog_sources.md has the cross-checks).  Used when a ``vllm serve``
model is neither a local path nor in the Hugging Face cache.

An entry is ``<org>--<name>.json``, the repo id spelled as a file name, or ``<org>--<name>.json.gz``, the same JSON
gzip-compressed, for a checkpoint whose files carry a per-layer quantization table (a ModelOpt MIXED_PRECISION
export: thousands of layer names, which kvguard reads) too large to ship as plain text (every package data file
stays under 1 MB).  A lookup finds an entry by its repo id or bare name from the file names alone and reads that one
file; only an alias not found that way reads the plain entries, never a compressed one (whose aliases may only
repeat its bare name: tests/test_catalog_store.py).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from ..record import Record

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["CatalogEntry", "entries", "lookup"]


class CatalogEntry(Record):
    id: str
    aliases: tuple[str, ...]
    source: dict[str, Any]
    config: dict[str, Any]
    #: the checkpoint's hf_quant_config.json (ModelOpt up to 0.29), None when it has none
    hf_quant_config: Optional[dict[str, Any]] = None
    #: why the copy does not tell how vLLM reads the checkpoint's quantization (an abridged hf_quant_config.json):
    #: a check of the entry is then undecidable, with this reason
    quantization_unknown: Optional[str] = None
    #: the safetensors dtype names of the checkpoint's weights as the Hugging Face Hub's metadata lists them
    #: (``{"dtypes": [...], "source": ...}``), where config.json names no dtype and vLLM reads them
    #: (kvguard.facts.weights_dtype); None when not recorded
    safetensors_dtypes: Optional[dict[str, Any]] = None

    def checkpoint_config(self) -> dict[str, Any]:
        """config.json as the loader reads the checkpoint's directory (with its hf_quant_config.json), and the
        weights' dtypes where the entry records them."""
        config = self._checkpoint_config()
        if self.safetensors_dtypes is None:
            return config
        from ..launch.load import WEIGHTS_DTYPES

        return {**config, WEIGHTS_DTYPES: list(self.safetensors_dtypes["dtypes"])}

    def _checkpoint_config(self) -> dict[str, Any]:
        if self.quantization_unknown is not None:
            from ..launch.load import QUANT_CONFIG_UNKNOWN

            return {**self.config, QUANT_CONFIG_UNKNOWN: f"kvguard's catalog copy of {self.id} cannot be read as vLLM "
                                                         f"reads the checkpoint: {self.quantization_unknown}; pass "
                                                         f"--model-config with the checkpoint's own files"}
        if self.hf_quant_config is None or self.config.get("quantization_config") is not None:
            return self.config
        from ..launch.load import SIDE_QUANT_CONFIG

        return {**self.config, SIDE_QUANT_CONFIG: self.hf_quant_config}


_HERE = os.path.dirname(os.path.abspath(__file__))
#: the file name endings of a plain and of a gzip-compressed entry
PLAIN_SUFFIX = ".json"
COMPRESSED_SUFFIX = ".json.gz"


def _read(name: str) -> CatalogEntry:
    path = os.path.join(_HERE, name)
    if name.endswith(COMPRESSED_SUFFIX):
        import gzip  # only for the entry asked for: zlib stays out of a check of a plainly stored model

        with gzip.open(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
    else:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    return CatalogEntry(data["id"], tuple(data.get("aliases") or ()), data.get("source") or {}, data["config"],
                        data.get("hf_quant_config"), data.get("quantization_unknown"), data.get("safetensors_dtypes"))


def entry_stem(file_name: str) -> Optional[str]:
    """``<org>--<name>`` of an entry's file name, None for a file that is no entry."""
    for suffix in (COMPRESSED_SUFFIX, PLAIN_SUFFIX):
        if file_name.endswith(suffix):
            return file_name[:-len(suffix)]
    return None


@lru_cache(maxsize=1)
def _file_names() -> tuple[str, ...]:
    return tuple(name for name in sorted(os.listdir(_HERE)) if entry_stem(name) is not None)


@lru_cache(maxsize=1)
def _files_by_name() -> dict[str, str]:
    """Each entry's repo id and bare name (lower case), as its file name spells them, -> its file name; the first
    file in name order keeps a name (the catalog's names are unique: tests/test_catalog_store.py)."""
    found: dict[str, str] = {}
    for file_name in _file_names():
        repo_id = str(entry_stem(file_name)).replace("--", "/", 1).lower()
        found.setdefault(repo_id, file_name)
        found.setdefault(repo_id.split("/")[-1], file_name)
    return found


@lru_cache(maxsize=None)
def _entry(file_name: str) -> CatalogEntry:
    return _read(file_name)


@lru_cache(maxsize=1)
def entries() -> tuple[CatalogEntry, ...]:
    """Every entry, in file name order (this reads and decompresses them all)."""
    return tuple(_entry(name) for name in _file_names())


def _names(entry: CatalogEntry) -> set[str]:
    return {entry.id.lower(), entry.id.split("/")[-1].lower(), *(a.lower() for a in entry.aliases)}


def lookup(name: str) -> Optional[CatalogEntry]:
    """The entry for a repo id (``org/name``), its bare name, or an alias; case-insensitive."""
    key = name.strip().rstrip("/").lower()
    file_name = _files_by_name().get(key)
    if file_name is not None:
        # a repo id or bare name as a file spells it: that file only (a check reads one model)
        try:
            entry = _entry(file_name)
        except (OSError, ValueError, KeyError):
            entry = None
        if entry is not None and key in _names(entry):
            return entry
    for file_name in _file_names():
        if file_name.endswith(COMPRESSED_SUFFIX):
            continue  # found by its file name above: its aliases only repeat its bare name
        entry = _entry(file_name)
        if key in _names(entry):
            return entry
    return None
