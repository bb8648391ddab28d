"""Built-in config.json copies of well-known checkpoints (offline model resolution).

One JSON file per checkpoint: ``{"id", "aliases", "source", "config"}``, and
``hf_quant_config`` for a ModelOpt export that keeps its quantization config in
``hf_quant_config.json`` beside config.json (read as vLLM's ``get_config`` reads
that file: kvguard.launch.load), and ``quantization_unknown`` where the copy of that file is abridged (a check of
the entry is then undecidable), and ``safetensors_dtypes`` where config.json names no dtype (the weights' dtypes
vLLM then reads, with their source); ``source`` says where the values come from
(tests/data/catalog_sources.md has the cross-checks).  Used when a ``vllm serve``
model is neither a local path nor in the Hugging Face cache.
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


def _read(name: str) -> CatalogEntry:
    with open(os.path.join(_HERE, name), encoding="utf-8") as fh:
        data = json.load(fh)
    return CatalogEntry(data["id"], tuple(data.get("aliases") or ()), data.get("source") or {}, data["config"],
                        data.get("hf_quant_config"), data.get("quantization_unknown"), data.get("safetensors_dtypes"))


@lru_cache(maxsize=1)
def entries() -> tuple[CatalogEntry, ...]:
    return tuple(_read(name) for name in sorted(os.listdir(_HERE)) if name.endswith(".json"))


def lookup(name: str) -> Optional[CatalogEntry]:
    """The entry for a repo id (``org/name``), its bare name, or an alias; case-insensitive."""
    key = name.strip().rstrip("/").lower()
    if "/" in key and entries.cache_info().currsize == 0:
        # a repo id spelled as its file is named: read that file only (a check reads one model)
        try:
            entry = _read(name.strip().rstrip("/").replace("/", "--") + ".json")
        except (OSError, ValueError, KeyError):
            entry = None
        if entry is not None and entry.id.lower() == key:
            return entry
    for entry in entries():
        names = {entry.id.lower(), entry.id.split("/")[-1].lower(), *(a.lower() for a in entry.aliases)}
        if key in names:
            return entry
    return None
