"""kvguard/launch/argv.py decodes one release's part of serve_options.json: the same table as a whole decode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvguard
from kvguard.launch import argv
from tests.upstream.argv_runner import merge_tables, split_table, table_text

PATH = Path(kvguard.__file__).parent / "data" / "serve_options.json"


@pytest.fixture(scope="module")
def whole():
    return json.loads(PATH.read_text(encoding="utf-8"))


def _expected(whole: dict, version: str) -> list[tuple]:
    """The release's options in its parser's order, each as (option, nargs, action, dest, type, choices,
    value, names), read from the whole decode."""
    idx = whole["versions"].index(version)
    names = list(whole["options"])
    order = next(o for o, lo, hi in whole["orders"] if lo <= idx <= hi)
    rows = []
    for i in order:
        opt = names[i]
        spec_id = next(spec for spec, lo, hi in whole["options"][opt] if lo <= idx <= hi)
        spec = whole["specs"][spec_id]
        rows.append((opt, spec["n"], spec["a"], spec["d"], spec.get("t"),
                     tuple(spec["c"]) if spec.get("c") is not None else None, spec.get("v"),
                     tuple(spec.get("o", ()))))
    return rows


def _read(table: dict) -> list[tuple]:
    return [(opt, o.nargs, o.action, o.dest, o.type, o.choices, o.value, o.names) for opt, o in table.items()]


@pytest.fixture
def reread(monkeypatch, tmp_path):
    """argv reading the table from a file the test writes, its caches emptied before and after."""
    def use(text: str) -> None:
        path = tmp_path / "serve_options.json"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(argv, "_DATA", str(path))
        argv._table_data.cache_clear()
        argv._options_for.cache_clear()
    yield use
    argv._table_data.cache_clear()
    argv._options_for.cache_clear()


def test_the_file_is_laid_out_as_its_generator_writes_it(whole):
    assert PATH.read_text(encoding="utf-8") == table_text(whole)


def test_the_file_splits_into_the_dumps_it_was_merged_from(whole):
    """--refresh-table replaces some releases' dumps and merges again: split then merge gives the file back."""
    dumps = split_table(whole)
    assert list(dumps) == whole["versions"]
    assert dumps["0.33.0"]["options"]["--max-num-seqs"]["dest"] == "max_num_seqs"
    assert "--max-num-seqs" in dumps["0.33.0"]["order"]
    assert table_text(merge_tables(dumps)) == PATH.read_text(encoding="utf-8")


@pytest.mark.parametrize("layout", ["as generated", "decoded whole"])
def test_every_release_reads_as_the_whole_file_decodes_it(whole, reread, layout):
    reread(table_text(whole) if layout == "as generated" else json.dumps(whole, indent=2))
    assert len(whole["versions"]) >= 36
    for version in whole["versions"]:
        table = argv._options_for(version)
        assert _read(table) == _expected(whole, version), version
        assert len(table) > 200


def test_the_release_an_option_came_and_went():
    assert argv._releases_with("--moe-backend") == ("0.17.0", "0.33.0")
    assert argv._releases_with("-pcp") == ("0.12.0", "0.33.0")
    assert argv._releases_with("--task") == ("0.10.2", "0.12.0")
    assert argv._releases_with("--no-such-option") == (None, None)
