"""One reporter interface for every format and subcommand (kvguard.report, one module per format),
and every JSON document kvguard prints carries ``schema`` (issue 11 item 10)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from kvguard.cli import run
from kvguard.report import COMMANDS, FORMATS, JSON_SCHEMA_VERSION, FormatNotOffered, Reporter, reporter

LAUNCH = ["--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"]
SCAN_FILE = "launch.sh"

#: one command line per subcommand, each printing a JSON document with --format json
JSON_RUNS = {
    "check accepted": ["check", "--vllm-version", "0.28.0", "--format", "json", *LAUNCH],
    "check refused": ["check", "--vllm-version", "0.28.0", "--format", "json", *LAUNCH, "-dcp", "3"],
    "check refused by vLLM's parser": ["check", "--vllm-version", "0.28.0", "--format", "json", *LAUNCH,
                                       "--no-such-flag"],
    "scan": ["scan", "--vllm-version", "0.28.0", "--format", "json", SCAN_FILE],
    "audit": ["audit", "Qwen/Qwen3-32B", "--tp", "8", "--vllm-version", "0.28.0", "--format", "json"],
    "plan": ["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--top", "2", "--vllm-version", "0.28.0", "--format", "json"],
    "diff": ["diff", "--from", "0.20.0", "--to", "0.28.0", "--format", "json", *LAUNCH],
    # kvguard gives no verdict: the document says why, with the same schema
    "check undecided": ["check", "--vllm-version", "9.9", "--format", "json", *LAUNCH],
    "scan undecided": ["scan", "--vllm-version", "9.9", "--format", "json", SCAN_FILE],
    "audit undecided": ["audit", "Qwen/Qwen3-32B", "--tp", "8", "--vllm-version", "9.9", "--format", "json"],
    "plan undecided": ["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--vllm-version", "9.9", "--format", "json"],
    "diff undecided": ["diff", "--from", "9.9", "--to", "0.28.0", "--format", "json", *LAUNCH],
    "bad kvguard arguments": ["audit", "Qwen/Qwen3-32B", "--format", "json"],
}


@pytest.mark.parametrize("name", sorted(JSON_RUNS))
def test_every_json_document_has_schema(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / SCAN_FILE).write_text("vllm serve Qwen/Qwen3-32B -tp 8\n", encoding="utf-8")
    run(JSON_RUNS[name])
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == JSON_SCHEMA_VERSION


def test_every_subcommand_has_a_json_run_here():
    assert {name.split()[0] for name in JSON_RUNS} >= set(COMMANDS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_is_one_module_with_one_reporter(fmt):
    module = importlib.import_module(f"kvguard.report.{fmt}")
    made = reporter(fmt, color=False, quiet=True)
    assert isinstance(made, Reporter) and type(made).__module__ == module.__name__
    assert made.format == fmt and made.quiet is True
    assert Path(module.__file__).name == f"{fmt}.py"
    # the reporter answers every subcommand: a method of its own, or FormatNotOffered
    for command in COMMANDS:
        method = getattr(made, command)
        if getattr(type(made), command) is getattr(Reporter, command):
            with pytest.raises(FormatNotOffered, match=f"--format {fmt} is not offered for `kvguard {command}`"):
                method(None)


def test_what_the_command_line_offers_each_reporter_answers():
    """The --format choices of each subcommand are the formats whose reporter has that method."""
    from kvguard.cli import _parser

    subcommands = next(a for a in _parser()._actions if a.dest == "command").choices
    for command in COMMANDS:
        offered = next(a for a in subcommands[command]._actions if a.dest == "format").choices
        for fmt in offered:
            assert getattr(type(reporter(fmt)), command) is not getattr(Reporter, command), (command, fmt)


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        reporter("xml")
