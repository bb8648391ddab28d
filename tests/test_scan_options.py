"""``kvguard scan`` conventions: ``-`` (stdin), ``-q``, ``--exit-zero``, ``--output-file``, ``--exclude``
and ``[tool.kvguard]`` settings in the scanned repository's pyproject.toml.

Inputs are written by the tests; expected verdicts follow README's tables (Qwen3-32B: 8 KV heads).
"""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from kvguard.cli import EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED, run
from kvguard.front import examine as build_report
from kvguard.scan import find_launches, scan
from kvguard.scan.settings import find_settings

REFUSED = "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3\n"          # tp_size=8 must be divisible by dcp_size=3.
ACCEPTED = "vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8\n"
COMPOSE = ("services:\n  llm:\n    image: vllm/vllm-openai:v0.20.0\n    entrypoint: vllm serve\n"
           "    command: Qwen/Qwen3-32B -tp 8 -dcp 2\n")


def _toml():
    if sys.version_info < (3, 11):
        pytest.importorskip("tomli")


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


# ----------------------------------------------------------------- `scan -`


def test_stdin_kind_from_option_filename_or_content(monkeypatch, capsys, tmp_path):
    pytest.importorskip("yaml")
    _stdin(monkeypatch, COMPOSE)
    status = run(["scan", "--format", "json", "--stdin-kind", "yaml", "-"])
    doc = _json(capsys)
    assert status == EXIT_REFUSE
    [finding] = doc["findings"]
    assert (finding["file"], finding["line"], finding["kind"]) == ("<stdin>", 4, "yaml")
    assert finding["command"] == "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2"
    assert finding["vllm_version"] == "0.20.0"            # the image tag on stdin pins it
    assert finding["result"]["exc_type"] == "AssertionError"
    # --stdin-filename: names the findings and gives the kind
    _stdin(monkeypatch, "FROM vllm/vllm-openai:v0.28.0\nCMD [\"Qwen/Qwen3-32B\", \"-tp\", \"8\", \"-dcp\", \"3\"]\n")
    status = run(["scan", "--format", "json", "--stdin-filename", "deploy/Dockerfile", "-"])
    [finding] = _json(capsys)["findings"]
    assert (finding["file"], finding["line"], finding["kind"], finding["vllm_version"]) == (
        "deploy/Dockerfile", 2, "dockerfile", "0.28.0")
    assert status == EXIT_REFUSE and finding["result"]["message"] == "tp_size=8 must be divisible by dcp_size=3."
    # neither: the content decides (a Markdown guide here)
    _stdin(monkeypatch, "# Guide\n\n```console\n$ vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3\nINFO started\n```\n")
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", "-"])
    [finding] = _json(capsys)["findings"]
    assert (status, finding["kind"], finding["line"]) == (EXIT_REFUSE, "markdown", 4)


def test_stdin_filename_finds_the_pins_beside_it(monkeypatch, capsys, tmp_path):
    (tmp_path / "requirements.txt").write_text("vllm==0.20.0\n")
    _stdin(monkeypatch, "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2\n")
    status = run(["scan", "--format", "json", "--stdin-filename", str(tmp_path / "serve.sh"), "-"])
    [finding] = _json(capsys)["findings"]
    assert status == EXIT_REFUSE and finding["vllm_version"] == "0.20.0"
    assert finding["vllm_version_source"].startswith("requirements.txt: vllm==0.20.0")


def test_every_kind_a_file_is_read_as_can_be_given_for_stdin():
    from kvguard.cli import _parser
    from kvguard.scan.files import KINDS

    scan_parser = next(action for action in _parser("scan")._actions if action.dest == "command").choices["scan"]
    [stdin_kind] = [action for action in scan_parser._actions if action.dest == "stdin_kind"]
    assert tuple(stdin_kind.choices) == KINDS


def test_a_notebook_on_stdin(monkeypatch, capsys):
    _stdin(monkeypatch, json.dumps({"cells": [{"cell_type": "code", "source": ["!vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3"]}]}))
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", "--stdin-kind", "notebook", "-"])
    [finding] = _json(capsys)["findings"]
    assert (status, finding["kind"], finding["result"]["message"]) == (
        EXIT_REFUSE, "notebook", "tp_size=8 must be divisible by dcp_size=3.")
    # without --stdin-kind, a notebook as nbformat writes it is recognised by its content
    _stdin(monkeypatch, json.dumps({"cells": [{"cell_type": "code", "source": ["!vllm serve Qwen/Qwen3-32B -tp 3"]}]},
                                   indent=1))
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", "-"])
    [finding] = _json(capsys)["findings"]
    assert (status, finding["kind"], finding["line"]) == (EXIT_REFUSE, "notebook", 6)


def test_stdin_api_and_misuse(capsys):
    launches, skipped, files = find_launches(["-"], stdin_text=REFUSED, stdin_kind="shell")
    assert [(launch.path, launch.line, launch.tokens[-2:]) for launch in launches] == [("<stdin>", 1, ["-dcp", "3"])]
    assert files == 1 and skipped == []
    result = scan(["-"], "0.28.0", lambda r, t, **k: build_report(r, t, **k), stdin_text=REFUSED)
    assert [f.status for f in result.findings] == ["refused"]
    assert run(["scan", "--stdin-kind", "yaml", "somefile.sh"]) == EXIT_UNDECIDED
    assert "--stdin-kind" in capsys.readouterr().err
    assert run(["scan", "-", "-"]) == EXIT_UNDECIDED
    assert "once" in capsys.readouterr().err


# ----------------------------------------------------------------- -q, --exit-zero, --output-file


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "bad.sh").write_text(REFUSED)
    (tmp_path / "good.sh").write_text(ACCEPTED)
    (tmp_path / "unknown.sh").write_text("vllm serve Qwen/Qwen3-32B -tp $TP\n")
    return tmp_path


def test_quiet_prints_only_refusals_and_undecided(repo, capsys):
    status = run(["scan", "--no-config", "-q", "--vllm-version", "0.28.0", str(repo)])
    out = capsys.readouterr().out
    assert status == EXIT_REFUSE
    lines = out.splitlines()
    assert lines[0] == f"{repo / 'bad.sh'}:1: REFUSE  vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3"
    assert any(line.startswith(f"{repo / 'unknown.sh'}:1: UNDECIDABLE") for line in lines)
    assert "ACCEPT" not in out and "launch(es) found" not in out
    # nothing to report: nothing printed
    status = run(["scan", "--no-config", "-q", "--vllm-version", "0.28.0", str(repo / "good.sh")])
    assert status == EXIT_ACCEPT and capsys.readouterr().out == ""
    # github annotations: no summary line either
    run(["scan", "--no-config", "-q", "--format", "github", "--vllm-version", "0.28.0", str(repo)])
    assert all(line.startswith("::") for line in capsys.readouterr().out.splitlines())


def test_exit_zero_and_output_file(repo, capsys, tmp_path):
    report = tmp_path / "out" / "kvguard.json"
    report.parent.mkdir()
    status = run(["scan", "--no-config", "--exit-zero", "--format", "json", "--vllm-version", "0.28.0",
                  "--output-file", str(report), str(repo)])
    assert status == EXIT_ACCEPT
    assert capsys.readouterr().out == ""
    doc = json.loads(report.read_text())
    assert doc["summary"]["refused"] == 1 and doc["summary"]["undecidable"] == 1
    # --exit-zero does not hide misuse of kvguard
    assert run(["scan", "--exit-zero", "--set", "NOEQUALS", str(repo)]) == EXIT_UNDECIDED
    capsys.readouterr()
    status = run(["scan", "--no-config", "-o", str(tmp_path / "missing-dir" / "x.txt"), str(repo)])
    assert status == EXIT_UNDECIDED and "--output-file: cannot write" in capsys.readouterr().err


# ----------------------------------------------------------------- [tool.kvguard]


def _project(tmp_path, settings: str):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'deploy'\n\n" + settings)
    deploy = tmp_path / "deploy"
    (deploy / "legacy").mkdir(parents=True)
    (deploy / "serve.sh").write_text("vllm serve Qwen/Qwen3-32B -tp $TP -dcp 2\n")
    (deploy / "legacy" / "old.sh").write_text(REFUSED)
    (deploy / "bigger.sh").write_text("vllm serve Qwen/Qwen3-32B -tp 16 -dcp 2\n")
    return deploy


SETTINGS = """[tool.kvguard]
vllm-version = "0.20.0"
exclude = ["deploy/legacy"]

[tool.kvguard.variables]
TP = 8

[tool.kvguard.host]
gpus-per-node = 16
"""


def test_settings_from_pyproject_apply_and_flags_win(tmp_path, capsys):
    _toml()
    deploy = _project(tmp_path, SETTINGS)
    status = run(["scan", "--format", "json", str(deploy)])
    doc = _json(capsys)
    assert status == EXIT_REFUSE
    by_file = {os.path.basename(f["file"]): f for f in doc["findings"]}
    assert sorted(by_file) == ["bigger.sh", "serve.sh"]                  # legacy/ excluded
    assert by_file["serve.sh"]["command"] == "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2"     # TP from variables
    assert by_file["serve.sh"]["result"]["exc_type"] == "AssertionError"                 # 0.20.0's assert
    assert by_file["serve.sh"]["vllm_version_source"] == \
        f"[tool.kvguard] vllm-version in {tmp_path / 'pyproject.toml'}"
    assert by_file["bigger.sh"]["status"] == "accepted"                 # -tp 16 fits the stated 16-GPU node
    # the command line wins: --vllm-version, --set, --host
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", "--set", "TP=16",
                  "--host", "gpus_per_node=8", str(deploy)])
    by_file = {os.path.basename(f["file"]): f for f in _json(capsys)["findings"]}
    assert by_file["serve.sh"]["command"] == "vllm serve Qwen/Qwen3-32B -tp 16 -dcp 2"
    assert by_file["serve.sh"]["vllm_version"] == "0.28.0"
    assert by_file["bigger.sh"]["result"]["check"] == "PC_gpu_count"   # 16 ranks on the stated 8-GPU node
    # excluded even when named (pre-commit names files); --no-config reads everything
    status = run(["scan", "--format", "json", str(deploy / "legacy" / "old.sh")])
    assert status == EXIT_ACCEPT and _json(capsys)["findings"] == []
    status = run(["scan", "--format", "json", "--no-config", "--vllm-version", "0.28.0", str(deploy / "legacy")])
    assert status == EXIT_REFUSE and len(_json(capsys)["findings"]) == 1


def test_settings_are_found_from_the_scanned_path_upward(tmp_path):
    _toml()
    deploy = _project(tmp_path, SETTINGS)
    nested = deploy / "sub"
    nested.mkdir()
    (nested / "pyproject.toml").write_text("[project]\nname = 'no-kvguard-table-here'\n")
    found = find_settings(str(nested / "x.sh"))
    assert found.path == str(tmp_path / "pyproject.toml")
    assert (found.vllm_version, found.variables, found.host) == ("0.20.0", {"TP": "8"}, {"gpus_per_node": 16})
    assert find_settings(str(tmp_path.parent)).path is None


def test_the_flags_win_over_the_settings_in_the_scan_package(tmp_path):
    """kvguard.scan.settings resolves what a scan runs with; the command line only parses."""
    from kvguard.scan.settings import Settings, resolve_settings, settings_for

    found = Settings(path="p/pyproject.toml", vllm_version="0.20.0", nearest=True, exclude=("legacy",),
                     variables={"TP": "8", "PP": "2"}, host={"gpus_per_node": 16, "ray": True},
                     problem=None)
    s = resolve_settings(found, vllm_version=None, variables={"TP": "4"}, exclude=("old",),
                         host={"gpus_per_node": 8})
    assert (s.vllm_version, s.release_source) == ("0.20.0", "[tool.kvguard] vllm-version in p/pyproject.toml")
    assert s.nearest and s.variables == {"TP": "4", "PP": "2"} and s.exclude == ("legacy", "old")
    assert s.host == {"gpus_per_node": 8, "ray": True}
    s = resolve_settings(found, vllm_version="0.28.0")
    assert (s.vllm_version, s.release_source) == ("0.28.0", "--vllm-version")
    s = resolve_settings(Settings())
    assert (s.vllm_version, s.nearest, s.variables, s.exclude, s.host) == (None, False, {}, (), {})
    assert settings_for(["-"], stdin_filename=str(tmp_path / "x.sh"), no_config=True) == Settings()


@pytest.mark.parametrize(("settings", "message"), [
    ("[tool.kvguard]\nvllm_version = '0.28.0'\n", "unknown key 'vllm_version'"),
    ("[tool.kvguard]\nexclude = 'legacy'\n", "exclude must be a list of strings"),
    ("[tool.kvguard.host]\nray = 'yes'\n", "host.ray must be true or false"),
    ("[tool.kvguard.host]\nwat = 1\n", "host: unknown fact 'wat'"),
    ("[tool.kvguard.variables]\nTP = true\n", "variables.TP must be a string or a number"),
    ("[tool.kvguard]\nvllm-version = '0.9.0'\n", "0.9.0"),
])
def test_bad_settings_are_misuse(tmp_path, capsys, settings, message):
    _toml()
    deploy = _project(tmp_path, settings)
    assert run(["scan", str(deploy)]) == EXIT_UNDECIDED
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_unreadable_settings_are_reported_not_fatal(tmp_path, capsys, monkeypatch):
    deploy = _project(tmp_path, "[tool.kvguard\nvllm-version = '0.20.0'\n")
    (deploy / "serve.sh").write_text(ACCEPTED)
    status = run(["scan", "--exclude", "legacy", "--exclude", "bigger.sh", str(deploy)])
    out = capsys.readouterr().out
    assert status == EXIT_ACCEPT
    assert f"{tmp_path / 'pyproject.toml'}: skipped: [tool.kvguard] settings " in out
    # Python 3.10 without tomli: the settings are not read, and the scan says so
    (tmp_path / "pyproject.toml").write_text("[tool.kvguard]\nvllm-version = '0.20.0'\n")
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    status = run(["scan", "--exclude", "legacy", "--exclude", "bigger.sh", str(deploy)])
    out = capsys.readouterr().out
    assert status == EXIT_ACCEPT
    assert "settings not read: TOML needs Python 3.11+ or the tomli package" in out
