"""Shared test helpers: golden cases and configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
