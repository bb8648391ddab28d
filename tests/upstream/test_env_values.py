"""The measured getter classifications (kvguard/data/env_parsers.json, kvguard.rules.env_values) predict each release's
own ``vllm.envs`` getters on fresh values: ones the measurement never tried (tools/measure_env_parsers.py PROBES),
and for choice-like variables their options respelled.

Per release: every ``VLLM_*`` getter is called with each fresh value in its oracle (tests/upstream/env_parsers_runner.py)
and kvguard's prediction compared: agree, undecided (a variable known only by its refused probes, asked another
value, or refused as its ``like`` class predicts, the exception not measured) or disagree (kvguard would accept a refused
value, refuse an accepted one, or word the refusal otherwise).

Releases: KVG_ORACLE_VERSIONS ∩ {0.10.2, 0.20.0, 0.33.0} (else the last).  Run directly for the figures:
``python -m tests.upstream.test_env_values 0.10.2 0.20.0 0.33.0``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.rules.env_values import MODELLED, READ_BY_RULES, kind, predict  # noqa: E402
from kvguard.versions import resolve  # noqa: E402

from ._oracle import oracle_or_skip, run_runner  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.20.0 0.33.0").split()
SAMPLE = [v for v in VERSIONS if v in ("0.10.2", "0.20.0", "0.33.0")] or VERSIONS[-1:]
#: values outside the measurement's probes: a word, a float, signs, digit separators, a blank, special floats,
#: non-ASCII digits, prefixed literals, an exponent with sign
FRESH = ("xyz", "2.5", "+3", "1_000", "FALSE", "  ", "nan", "-0", "\u0663", "0b1", "1e-2", "inf", "10 ")


def compare(version: str) -> dict:
    python, python_env = oracle_or_skip(version)
    release = resolve(version)
    first = run_runner("env_parsers_runner.py", python, dict(python_env, VLLM_TARGET_DEVICE="cpu"),
                       [{"value": value} for value in FRESH])
    pairs = [(name, value, outcome) for name, row in first["outcomes"].items() for value, outcome in zip(FRESH, row)]
    respelled = []
    for name in first["outcomes"]:
        found = kind(release, name)
        if isinstance(found, list):
            for option in found[1]:
                respelled += [{"name": name, "value": v} for v in (option.lower(), option.upper(), option + " ")]
    if respelled:
        second = run_runner("env_parsers_runner.py", python, dict(python_env, VLLM_TARGET_DEVICE="cpu"), respelled)
        pairs += [(case["name"], case["value"], outcome) for case, outcome in zip(respelled, second["named"])]
    figures: dict = {"agree": 0, "undecided": 0, "disagree": []}
    for name, value, outcome in pairs:
        found = kind(release, name)
        predicted = None if found is None else predict(name, found, value)
        if predicted == outcome:
            figures["agree"] += 1
        elif isinstance(found, dict) and predicted is None:
            figures["undecided"] += 1       # a value outside the refused probes of a variable no class predicts
        elif predicted == ["", ""] and outcome is not None:
            figures["undecided"] += 1       # refused as predicted (``like``), the exception not measured for it
        else:
            figures["disagree"].append((name, value, predicted, outcome))
    return figures


@pytest.mark.parametrize("version", SAMPLE)
def test_the_classifications_predict_fresh_values(version):
    figures = compare(version)
    assert figures["agree"] > 0
    assert figures["disagree"] == [], figures["disagree"][:10]


#: values an operator writes for a switch kvguard reads only as set / unset (kvguard.rules.env_values.MODELLED outside
#: READ_BY_RULES): words, choices respelled, JSON, blanks
SWITCH_VALUES = ("abc", "true", "yes", "1", "0", "2", "FP8", "fp8", "int8", "", " 1 ", "x", "{}", "latency", "1.0")


@pytest.mark.parametrize("version", SAMPLE)
def test_the_switches_read_as_set_are_predicted(version):
    # the undecidable answer for such a switch quotes predict(): the release's own getter must raise exactly that
    release = resolve(version)
    names = sorted(n for n in MODELLED if n not in READ_BY_RULES and kind(release, n) is not None)
    python, python_env = oracle_or_skip(version)
    cases = [{"name": name, "value": value} for name in names for value in SWITCH_VALUES]
    out = run_runner("env_parsers_runner.py", python, dict(python_env, VLLM_TARGET_DEVICE="cpu"), cases)
    wrong = [(case, outcome) for case, outcome in zip(cases, out["named"])
             if predict(case["name"], kind(release, case["name"]), case["value"]) != outcome]
    assert any(outcome for outcome in out["named"])
    assert wrong == [], wrong[:10]


if __name__ == "__main__":
    for version in sys.argv[1:] or SAMPLE:
        found = compare(version)
        print(f"{version}: agree {found['agree']}, undecided {found['undecided']}, disagree {len(found['disagree'])}")
        for row in found["disagree"][:20]:
            print("   ", row)
