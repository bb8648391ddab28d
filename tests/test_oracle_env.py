"""tools/oracle_env.py's ``ensure --jobs N`` scheduling (ensure_many), with the builds replaced by stand-ins:
which releases start first, a failure reported and counted, a release whose base changed meanwhile ensured
again.  The builds themselves run in .ci/run."""

from __future__ import annotations

import importlib.util
import threading
import time
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "oracle_env.py"


@pytest.fixture()
def oracle_env():
    spec = importlib.util.spec_from_file_location("kvg_oracle_env_under_test", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_first_jobs_start_on_different_transformers_lines(oracle_env, monkeypatch, tmp_path):
    # 0.10.2-0.12.0 share 4.57.6; 0.33.0 and 0.32.0 have lines of their own (kvguard/data/releases.json)
    versions = ["0.10.2", "0.11.0", "0.12.0", "0.32.0", "0.33.0"]
    assert len({oracle_env.MANIFEST[v] for v in versions}) == 3
    started, lock, gate = [], threading.Lock(), threading.Event()

    def fake_ensure(root, version):
        with lock:
            started.append(version)
            if len(started) == 3:
                gate.set()
        gate.wait(5)
        return ("python", {"PYTHONPATH": version})

    monkeypatch.setattr(oracle_env, "ensure", fake_ensure)
    monkeypatch.setattr(oracle_env, "command", lambda root, version: ("python", {"PYTHONPATH": version}))
    reported = []
    failed = oracle_env.ensure_many(tmp_path, versions, 3, lambda v, r: reported.append(v))
    assert failed == 0
    assert started[:3] == ["0.10.2", "0.32.0", "0.33.0"]
    assert sorted(reported) == sorted(versions)


def test_a_failure_is_reported_and_counted(oracle_env, monkeypatch, tmp_path):
    def fake_ensure(root, version):
        if version == "0.11.0":
            raise oracle_env.Failure("no wheel")
        return ("python", {"PYTHONPATH": version})

    monkeypatch.setattr(oracle_env, "ensure", fake_ensure)
    monkeypatch.setattr(oracle_env, "command", lambda root, version: ("python", {"PYTHONPATH": version}))
    reported = {}
    failed = oracle_env.ensure_many(tmp_path, ["0.10.2", "0.11.0"], 2, reported.__setitem__)
    assert failed == 1
    assert isinstance(reported["0.11.0"], oracle_env.Failure) and str(reported["0.11.0"]) == "no wheel"
    assert reported["0.10.2"] == ("python", {"PYTHONPATH": "0.10.2"})


def test_a_release_whose_base_changed_meanwhile_is_ensured_again(oracle_env, monkeypatch, tmp_path):
    calls = []
    stale = {"0.10.2"}  # another job's probe added a module to the base after 0.10.2 was built

    def fake_ensure(root, version):
        calls.append(version)
        time.sleep(0.01)
        return ("python", {"PYTHONPATH": version})

    def fake_command(root, version):
        if version in stale:
            stale.discard(version)
            return None
        return ("python", {"PYTHONPATH": version})

    monkeypatch.setattr(oracle_env, "ensure", fake_ensure)
    monkeypatch.setattr(oracle_env, "command", fake_command)
    reported = []
    assert oracle_env.ensure_many(tmp_path, ["0.10.2", "0.11.0"], 2, lambda v, r: reported.append(v)) == 0
    assert sorted(calls) == ["0.10.2", "0.10.2", "0.11.0"]
    assert sorted(reported) == ["0.10.2", "0.10.2", "0.11.0"]


@pytest.mark.parametrize("argv", [["ensure", "--jobs", "2", "0.10.2", "0.11.0"],
                                  ["ensure", "0.10.2", "0.11.0", "--jobs", "2"],
                                  ["ensure", "0.10.2", "--jobs", "2", "0.11.0"]])
def test_options_may_come_before_among_or_after_the_releases(oracle_env, monkeypatch, tmp_path, argv, capsys):
    seen = {}

    def fake_many(root, versions, jobs, done):
        seen.update(versions=versions, jobs=jobs)
        return 0

    monkeypatch.setattr(oracle_env, "ensure_many", fake_many)
    assert oracle_env.main([*argv, "--root", str(tmp_path)]) == 0
    assert seen == {"versions": ["0.10.2", "0.11.0"], "jobs": 2}
