"""Shared test helpers: golden cases, configs, and ``kvguard check`` of a ``vllm serve`` line as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def serve_json(capsys):
    """``serve_json(version, *args, model=..., env=())``: the exit status and JSON report of ``kvguard check`` for
    ``[ENV...] vllm serve MODEL ARGS...`` on a release (``env``: ``NAME=value`` words before ``vllm``)."""
    from kvguard.cli import run

    def check(version: str, *args: str, model: str = "Qwen/Qwen3-8B", env: tuple[str, ...] = ()) -> tuple[int, dict]:
        status = run(["check", "--vllm-version", version, "--format", "json", "--", *env, "vllm", "serve", model,
                      *args])
        return status, json.loads(capsys.readouterr().out or "{}")

    return check


HERE = Path(__file__).resolve().parent

CASES = HERE / "cases"


def golden_cases():
    """(release, case) for every tests/cases/<release>/<id>.json."""
    out = []
    for path in sorted(CASES.glob("*/*.json")):
        case = json.loads(path.read_text())
        out.append(pytest.param(path.parent.name, case, id=f"{path.parent.name}/{path.stem}"))
    return out


def model_config(case: dict) -> dict:
    from kvguard import catalog

    if "config" in case:
        return case["config"]
    entry = catalog.lookup(case["model"])
    assert entry is not None, case["model"]
    return entry.config
