"""One reporter interface for every format and subcommand (kvguard.report, one module per format),
and every JSON document kvguard prints carries ``schema`` (issue 11 item 10)."""

from __future__ import annotations

import importlib
import json
import re
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


# --------------------------------------------------------------------------- github and sarif for every subcommand

#: one command line per (subcommand, outcome) that --format github / sarif now answer, and its exit status
NEW_RUNS = {
    "audit": (["audit", "Qwen/Qwen3-32B", "deepseek-ai/DeepSeek-R1", "--tp", "8", "--vllm-version", "0.28.0"], 0),
    "audit refused": (["audit", "Qwen/Qwen3-32B", "--tp", "8", "--dcp", "3", "--vllm-version", "0.28.0",
                       "--kv-memory-gib", "0.5", "--max-model-len", "163840"], 0),
    "audit capacity": (["audit", "deepseek-ai/DeepSeek-R1", "--tp", "8", "--dcp", "8", "--vllm-version", "0.28.0",
                        "--kv-memory-gib", "40", "--max-model-len", "163840", "--block-size", "64"], 0),
    "plan": (["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--top", "2", "--vllm-version", "0.28.0"], 0),
    "plan every layout": (["plan", "deepseek-ai/DeepSeek-R1", "--gpus", "16", "--top", "0", "--vllm-version",
                           "0.28.0", "--max-model-len", "8192"], 0),
    "diff refused": (["diff", "--from", "0.20.0", "--to", "0.28.0", *LAUNCH, "-dcp", "3"], 1),
    "diff accepted": (["diff", "--from", "0.20.0", "--to", "0.28.0", *LAUNCH], 0),
    "diff undecidable": (["diff", "--from", "0.20.0", "--to", "0.28.0", "--", "vllm", "serve", "no-such/model"], 2),
}

#: a workflow command: ::level[ key=value,key=value]::message — a property value holds no raw
#: ',' ':' CR LF, the message no raw CR LF, and every '%' of either is one of the runner's escapes
_GH_LINE = re.compile(r"^::(notice|warning|error)(?: ([a-z]+=[^,:\r\n]*(?:,[a-z]+=[^,:\r\n]*)*))?::([^\r\n]*)$")
_GH_PERCENT = re.compile(r"%(?!25|0D|0A|3A|2C)")


def _run_format(argv: list, fmt: str, capsys) -> tuple:
    command, rest = argv[0], argv[1:]
    if "--" in rest:
        i = rest.index("--")
        args = [command, *rest[:i], "--format", fmt, *rest[i:]]
    else:
        args = [command, *rest, "--format", fmt]
    status = run(args)
    return status, capsys.readouterr().out


def _github_lines(out: str) -> list:
    lines = out.rstrip("\n").split("\n")
    assert lines and all(lines)
    for line in lines:
        m = _GH_LINE.match(line)
        assert m, line
        assert not _GH_PERCENT.search(m.group(3)), line
        for prop in (m.group(2) or "").split(",") if m.group(2) else ():
            assert not _GH_PERCENT.search(prop.split("=", 1)[1]), line
    return lines


def _sarif_run(out: str) -> dict:
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    assert len(doc["runs"]) == 1
    run0 = doc["runs"][0]
    driver = run0["tool"]["driver"]
    assert driver["name"] == "kvguard" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids))
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    for result in run0["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning") and result["message"]["text"]
    invocation, = run0["invocations"]
    assert invocation["executionSuccessful"] is True
    for note in invocation["toolExecutionNotifications"]:
        assert note["level"] == "note" and note["message"]["text"]
    return run0


@pytest.mark.parametrize("name", sorted(NEW_RUNS))
def test_github_answers_every_subcommand(name, capsys):
    argv, status = NEW_RUNS[name]
    text_status, _ = _run_format(argv, "text", capsys)
    got, out = _run_format(argv, "github", capsys)
    assert got == status == text_status             # the exit status is the format's business nowhere
    lines = _github_lines(out)
    levels = [_GH_LINE.match(line).group(1) for line in lines]
    if name == "audit":
        assert levels == ["notice", "notice"] and "Qwen/Qwen3-32B" in lines[0]
        assert "title=kvguard audit Qwen/Qwen3-32B (vLLM 0.28.0%2C -tp 8 -pcp 1 -dcp 1)::" in lines[0]
    elif name == "audit refused":
        assert levels == ["warning"]
        assert "vLLM 0.28.0 refuses -dcp 3 at this layout" in lines[0]
        assert "%0Acapacity: vLLM refuses to start: ValueError: " in lines[0]
    elif name == "audit capacity":
        assert levels == ["notice"] and "GPU KV cache size: 4,889,088 tokens" in lines[0]
    elif name.startswith("plan"):
        assert set(levels) == {"notice"} and lines[0].startswith("::notice title=kvguard plan::")
        assert all(line.startswith(f"::notice title=kvguard plan #{i}::vllm serve ")
                   for i, line in enumerate(lines[1:], 1))
        assert len(lines) == (3 if name == "plan" else 1 + json.loads(_run_format(argv, "json", capsys)[1])["accepted"])
    elif name == "diff refused":
        assert levels == ["warning"] and lines[0].startswith("::warning title=kvguard diff::0.20.0: refused")
    elif name == "diff accepted":
        assert levels == ["notice"]
    else:
        # neither side can be checked: the same (no) verdict, as before this format answered audit/plan
        assert levels == ["notice"] and "same verdict under vLLM 0.20.0 and 0.28.0" in lines[0]


@pytest.mark.parametrize("name", sorted(NEW_RUNS))
def test_sarif_answers_every_subcommand(name, capsys):
    argv, status = NEW_RUNS[name]
    got, out = _run_format(argv, "sarif", capsys)
    assert got == status
    run0 = _sarif_run(out)
    # the invocation's properties are the --format json document, schema included
    _, doc = _run_format(argv, "json", capsys)
    properties = run0["invocations"][0]["properties"]
    assert properties == json.loads(doc) and properties["schema"] == JSON_SCHEMA_VERSION
    rules = [r["ruleId"] for r in run0["results"]]
    if name == "audit refused":
        assert rules == ["kvguard-dcp-refused", "kvguard-capacity-refused"]
        assert run0["results"][0]["message"]["text"] == ("vLLM 0.28.0 refuses -dcp 3 for Qwen/Qwen3-32B at -tp 8 "
                                                         "-pcp 1: the legal -dcp sizes are [1]")
        assert run0["results"][0]["properties"]["legal_dcp_sizes"] == [1]
        assert "ValueError: To serve at least one request" in run0["results"][1]["message"]["text"]
    elif name == "diff refused":
        assert rules == ["PV_tp_dcp_div"] and run0["results"][0]["level"] == "error"
        assert run0["tool"]["driver"]["rules"][0]["help"]["markdown"]     # the check's own section of rules.md
        assert "tp_size=8 must be divisible by dcp_size=3." in run0["results"][0]["message"]["text"]
        assert run0["results"][0]["properties"]["verdict_changed"] is True
    elif name == "diff undecidable":
        assert rules == ["kvguard-undecidable"] and run0["results"][0]["level"] == "warning"
        assert run0["results"][0]["properties"]["reason_kind"]
    else:
        assert rules == []                      # nothing refused: the facts are in the invocation
        assert run0["invocations"][0]["toolExecutionNotifications"]


def _plan_refusing_every_layout():
    import dataclasses

    from kvguard.kv.plan import plan

    report = plan("Qwen/Qwen3-32B", 8, vllm_version="0.28.0")
    return dataclasses.replace(report, entries=(), accepted=0,
                               refused_by_check={**report.refused_by_check, "PC_gpu_count": report.accepted})


def test_a_plan_whose_every_layout_is_refused():
    report = _plan_refusing_every_layout()
    lines = _github_lines(reporter("github").plan(report, 10))
    assert len(lines) == 1 and lines[0].startswith("::error title=kvguard plan (vLLM 0.28.0)::vLLM 0.28.0 refuses "
                                                   "every layout of 8 GPUs.")
    run0 = _sarif_run(reporter("sarif").plan(report, 10))
    assert [r["ruleId"] for r in run0["results"]] == list(report.refused_by_check)
    assert {r["level"] for r in run0["results"]} == {"error"}
    assert run0["results"][0]["properties"]["refused_layouts"] == report.refused_by_check["MC_dcp_tp_gt_kv"]


def test_github_escapes_what_it_quotes():
    import dataclasses

    from kvguard.kv.economics import audit

    report = audit(["Qwen/Qwen3-32B"], 8, vllm_version="0.28.0")
    odd = dataclasses.replace(report.models[0], model="dir,with:odd%name\r\nline",
                              notes=("100% of it, here: 1\r\n2",))
    line, = _github_lines(reporter("github").audit(dataclasses.replace(report, models=(odd,))))
    assert "title=kvguard audit dir%2Cwith%3Aodd%25name%0D%0Aline (vLLM 0.28.0%2C" in line
    assert line.endswith("%0Anote: 100%25 of it, here: 1%0D%0A2")
