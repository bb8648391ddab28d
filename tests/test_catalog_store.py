"""How the built-in catalog is stored (kvguard/catalog): plain ``<org>--<name>.json`` entries and gzip-compressed
``<org>--<name>.json.gz`` ones for checkpoints whose per-layer quantization table is too large to ship as text.

Every package data file stays under 1 MB; a compressed entry is read only when it is the one looked up; its values
are the checkpoint's files' (hand-counted from aiconfigurator-core 0.12.0's copies, tests/data/catalog_sources.md).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvguard import catalog

PACKAGE = Path(catalog.__file__).resolve().parents[1]
CATALOG = Path(catalog.__file__).resolve().parent
#: the limit every file the package ships is held to (the before-stop hook checks the same)
MAX_DATA_FILE_BYTES = 1_000_000
MINIMAX_NVFP4 = "nvidia--MiniMax-M3-NVFP4.json.gz"
LIGHTNING = "nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4.json.gz"


def _entry_files() -> list[str]:
    return sorted(name for name in os.listdir(CATALOG) if name.endswith((".json", ".json.gz")))


def _load(name: str) -> dict:
    opener = gzip.open if name.endswith(".gz") else open
    with opener(CATALOG / name, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def test_every_package_file_stays_under_one_megabyte():
    too_large = [(str(path.relative_to(PACKAGE)), path.stat().st_size) for path in PACKAGE.rglob("*")
                 if path.is_file() and "__pycache__" not in path.parts and path.stat().st_size >= MAX_DATA_FILE_BYTES]
    assert too_large == []


def test_the_large_quantization_tables_are_stored_compressed():
    compressed = [name for name in _entry_files() if name.endswith(".gz")]
    assert compressed == [MINIMAX_NVFP4, LIGHTNING]
    for name in compressed:
        assert not (CATALOG / name[:-len(".gz")]).exists()   # one copy of an entry
        header = (CATALOG / name).read_bytes()[:10]
        # gzip without a file name or time stamp (gzip -9 -n): the same bytes whoever compresses it
        assert header[:4] == b"\x1f\x8b\x08\x00" and header[4:8] == b"\x00\x00\x00\x00"


def test_each_entry_is_named_as_its_repo_id_and_every_name_is_unique():
    owners: dict[str, str] = {}
    for name in _entry_files():
        data = _load(name)
        stem = name[:-len(".json.gz")] if name.endswith(".gz") else name[:-len(".json")]
        assert data["id"].replace("/", "--") == stem, name
        bare = data["id"].split("/")[-1].lower()
        aliases = {alias.lower() for alias in data.get("aliases") or ()}
        if name.endswith(".gz"):
            # a lookup finds a compressed entry by its file name alone: an alias must be its bare name
            assert aliases <= {bare}, name
        for key in {data["id"].lower(), bare, *aliases}:
            assert owners.setdefault(key, data["id"]) == data["id"], (key, owners[key], data["id"])


@pytest.fixture
def reads(monkeypatch):
    """The entry files a lookup reads (the catalog's caches emptied first, and again after)."""
    seen: list[str] = []
    real = catalog._read

    def recording(name):
        seen.append(name)
        return real(name)

    for cached in (catalog._entry, catalog.entries, catalog._file_names, catalog._files_by_name):
        cached.cache_clear()
    monkeypatch.setattr(catalog, "_read", recording)
    yield seen
    for cached in (catalog._entry, catalog.entries):
        cached.cache_clear()


@pytest.mark.parametrize("name", ["nvidia/MiniMax-M3-NVFP4", "NVIDIA/minimax-m3-nvfp4", "MiniMax-M3-NVFP4",
                                  "minimax-m3-nvfp4", " nvidia/MiniMax-M3-NVFP4/ "])
def test_a_compressed_entry_is_found_by_reading_that_file_only(reads, name):
    entry = catalog.lookup(name)
    assert entry is not None and entry.id == "nvidia/MiniMax-M3-NVFP4"
    assert reads == [MINIMAX_NVFP4]


@pytest.mark.parametrize(("name", "found"), [
    ("Qwen/Qwen3-32B", "Qwen/Qwen3-32B"), ("qwen3-32b", "Qwen/Qwen3-32B"),
    ("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4"),
])
def test_a_repo_id_or_bare_name_reads_one_file(reads, name, found):
    assert catalog.lookup(name).id == found
    assert len(reads) == 1


@pytest.mark.parametrize(("name", "found"), [
    ("llama-4-scout", "meta-llama/Llama-4-Scout-17B-16E-Instruct"), ("nemotron-super-49b",
                                                                    "nvidia/Llama-3_3-Nemotron-Super-49B-v1"),
    ("no-such/model", None), ("qwen3-coder-480b", "Qwen/Qwen3-Coder-480B-A35B-Instruct"),
])
def test_an_alias_or_unknown_name_never_decompresses_an_entry(reads, name, found):
    entry = catalog.lookup(name)
    assert (entry.id if entry else None) == found
    assert reads and not [name for name in reads if name.endswith(".gz")]


def test_the_listing_holds_every_entry_compressed_or_not():
    ids = [entry.id for entry in catalog.entries()]
    assert len(ids) == len(_entry_files())
    assert "nvidia/MiniMax-M3-NVFP4" in ids and "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4" in ids


def test_a_check_of_a_plainly_stored_model_does_not_import_gzip():
    code = ("import sys; from kvguard import catalog; catalog.lookup('Qwen/Qwen3-32B'); catalog.lookup('qwen3-8b'); "
            "print('gzip' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_minimax_m3_nvfp4_keeps_its_whole_per_layer_table():
    entry = catalog.lookup("nvidia/MiniMax-M3-NVFP4")
    quant = entry.config["quantization_config"]
    assert (quant["quant_method"], quant["quant_algo"], quant["kv_cache_quant_algo"]) == (
        "modelopt", "MIXED_PRECISION", None)
    layers = quant["quantized_layers"]
    assert len(layers) == 22422
    assert sum(v == {"quant_algo": "MXFP8"} for v in layers.values()) == 534
    assert sum(v == {"quant_algo": "NVFP4", "group_size": 16} for v in layers.values()) == 21888
    assert layers["language_model.model.layers.0.mlp.down_proj"] == {"quant_algo": "MXFP8"}
    assert layers["language_model.model.layers.59.block_sparse_moe.experts.127.w3"] == {
        "quant_algo": "NVFP4", "group_size": 16}
    assert len(quant["exclude_modules"]) == 62 and quant["exclude_modules"][:2] == ["lm_head", "model.embed_tokens"]
    # hf_quant_config.json carries the same table (vLLM reads config.json's first)
    assert entry.hf_quant_config["producer"] == {"name": "modelopt", "version": "minimax-m3-mxfp8-nvfp4-mixed"}
    assert entry.hf_quant_config["quantization"] == quant
    text = entry.config["text_config"]
    assert (text["num_hidden_layers"], text["num_attention_heads"], text["num_key_value_heads"], text["head_dim"],
            text["num_local_experts"], text["num_experts_per_tok"]) == (60, 64, 4, 128, 128, 4)


def test_lightning_keeps_its_whole_per_layer_table():
    entry = catalog.lookup("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4")
    assert entry.config.get("quantization_config") is None
    quant = entry.hf_quant_config["quantization"]
    assert entry.hf_quant_config["producer"] == {"name": "modelopt", "version": "0.44.0rc5"}
    assert (quant["quant_algo"], quant["kv_cache_quant_algo"]) == ("MIXED_PRECISION", "FP8")
    layers = quant["quantized_layers"]
    assert len(layers) == 5981 and len(quant["exclude_modules"]) == 72
    assert sum(v == {"quant_algo": "FP8"} for v in layers.values()) == 46
    assert sum(v == {"quant_algo": "W4A16_NVFP4", "group_size": 16} for v in layers.values()) == 5935
    assert layers["backbone.layers.0.mixer.in_proj"] == {"quant_algo": "FP8"}
