"""One front door for a launch (kvguard.front): the command line, scan and the pytest plugin check a
launch through it, and a command line or a parsed one give the same report (issue 11 item 8)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import kvguard
from kvguard.cli import EXIT_REFUSE, run
from kvguard.front import LaunchReport, NotAnImageLaunch, command_release, examine, examine_command
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

PACKAGE = Path(kvguard.__file__).resolve().parent
LAUNCH = ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3"]


def _report(capsys, *argv) -> dict:
    run(list(argv))
    return json.loads(capsys.readouterr().out)


def test_the_command_line_prints_what_the_front_door_returns(capsys):
    release = resolve("0.20.0")
    report = examine(release, LAUNCH, suggest=True)
    assert isinstance(report, LaunchReport) and not report.verdict.ok
    printed = _report(capsys, "check", "--vllm-version", "0.20.0", "--format", "json", "--", *LAUNCH)
    expected = json.loads(json.dumps(report.to_dict(), default=str))
    expected["vllm_version_source"] = "--vllm-version"
    assert printed == expected


def test_a_parsed_command_gives_the_same_verdict_and_facts_as_its_command_line():
    release = resolve("0.20.0")
    from_argv = examine(release, LAUNCH, suggest=True)
    from_parsed = examine(release, parse_serve(LAUNCH, release), suggest=True)
    assert from_parsed.verdict.to_dict() == from_argv.verdict.to_dict()
    assert from_parsed.kv_facts() == from_argv.kv_facts()
    assert [s.to_dict() for s in from_parsed.suggestions] == [s.to_dict() for s in from_argv.suggestions]


def test_model_names_resolve_the_same_way_in_the_library_and_the_front_door():
    release = resolve("0.28.0")
    report = examine(release, ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"])
    facts = kvguard.model_facts("Qwen/Qwen3-32B", vllm_version="0.28.0")
    assert report.source == "catalog" and report.facts.to_dict() == facts.to_dict()


def test_a_docker_launch_names_its_release_and_a_pinned_version_wins():
    docker = ["docker", "run", "--gpus", "all", "vllm/vllm-openai:v0.20.0", "--model", "Qwen/Qwen3-32B", "-tp", "8"]
    tokens, release, source = command_release(docker)
    assert release.key == "0.20.0" and "vllm/vllm-openai:v0.20.0" in source and "Qwen/Qwen3-32B" in tokens
    assert "docker" not in tokens
    _, release, source = command_release(docker, "0.28.0")
    assert (release.key, source) == ("0.28.0", "--vllm-version")
    report = examine_command(docker)
    assert report.verdict.vllm_version == "0.20.0" and "vllm/vllm-openai:v0.20.0" in report.release_source
    with pytest.raises(NotAnImageLaunch):
        command_release(["docker", "run", "ubuntu", "bash"])


def test_the_front_door_is_the_only_way_in(capsys):
    """cli.py parses kvguard's own flags and prints: it neither parses the launch, resolves the
    model nor runs the checks itself; scan and the pytest plugin check through kvguard.front."""
    tree = ast.parse((PACKAGE / "cli.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not imported & {"launch.argv", "launch.resolve", "rules.check", "rules.engine", "launch.pins"}
    assert "build_report" not in (PACKAGE / "cli.py").read_text(encoding="utf-8")
    for module in ("scan/check.py", "pytest_plugin.py"):
        assert "front import examine" in (PACKAGE / module).read_text(encoding="utf-8"), module
    status = run(["check", "--vllm-version", "0.20.0", "--", *LAUNCH])
    assert status == EXIT_REFUSE
