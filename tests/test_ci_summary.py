"""The CI summary (.ci/run) names every construction tier's reports.

The differential tiers of tests/upstream keep their reports as ``<kind>-<release>.json``; the summary prints a line per
kind it names and lists the others as "reports this summary does not name".  The kinds the construction tiers write
are literal strings in their calls to ``keep_report`` / ``_check_family_report`` (the last string) and
``check_launch_report`` (the first), read here from the test sources.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CALL = re.compile(r"\b(keep_report|_check_family_report|check_launch_report)\(report, ([^\n]*)\)\s*$", re.M)
_STRING = re.compile(r'"([^"]*)"')


def _kinds() -> dict[str, str]:
    """{kind: the test file that writes it}"""
    kinds = {}
    for path in sorted((ROOT / "tests" / "upstream").glob("test_*.py")):
        for call, args in _CALL.findall(path.read_text(encoding="utf-8")):
            strings = _STRING.findall(args)
            if strings:
                kinds[strings[0] if call == "check_launch_report" else strings[-1]] = path.name
    return kinds


def test_the_kinds_are_found():
    kinds = _kinds()
    # written by hand from tests/upstream: a family tier, a kept report, a launch report
    assert kinds["gemma4-construction"] == "test_quant.py"
    assert kinds["nemotron-h-construction"] == "test_nemotron_h.py"
    assert kinds["parsers"] == "test_parsers.py"


def test_every_construction_tier_has_a_summary_line():
    summary = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    unnamed = {kind: where for kind, where in _kinds().items() if f'("{kind}", "' not in summary}
    assert unnamed == {}
