"""Replays answers recorded from the real vLLM + transformers (no oracle needed).

``data/oracle_<release>.json.gz``: generated configs (tools/hfconfig_oracle.py
--record) with what real ``get_config`` + ``get_hf_text_config`` answered;
``data/unit_oracle_<release>.json.gz``: the hand-written trap configs of
``data/unit_cases.json`` run through the real oracle worker
(tools/hfconfig_oracle.py --unit --record), each in a fresh-process state.
"""

from __future__ import annotations

import pytest

from ._util import GENERATED, RELEASES, oracle, read, release


def _cases():
    for rel in GENERATED:
        for case in read(f"oracle_{rel}.json.gz")["cases"]:
            yield pytest.param(rel, case, id=f"{rel}-{case['id']}")


def _unit_cases():
    cases = {c["id"]: c for c in read("unit_cases.json")}
    for rel in RELEASES:
        for rec in read(f"unit_oracle_{rel}.json.gz")["results"]:
            yield pytest.param(rel, cases[rec["id"]], rec, id=f"{rel}-{rec['id']}")


#: model types kvguard declines on purpose (Undecidable with this reason) although vLLM loads them
NOT_MODELLED = {"speculators": "SpeculatorsConfig.from_pretrained is not modelled"}


def _check(rel, case, o):
    k = oracle.run_kvguard({"id": case["id"], "config": case["config"], "path": case.get("path")}, release(rel))
    verdict, detail = oracle.compare(o, k)
    config = case["config"]
    model_type = "speculators" if "speculators_model_type" in config else config.get("model_type")
    declined = NOT_MODELLED.get(model_type) if isinstance(model_type, str) else None
    if verdict == "gap" and declined is not None:
        assert declined in k["reason"]
        return
    assert verdict in ("agree", "undecidable"), detail


@pytest.mark.parametrize("rel,case", list(_cases()))
def test_generated_configs_match_recorded_oracle(rel, case):
    _check(rel, case, case["oracle"])


@pytest.mark.parametrize("rel,case,rec", list(_unit_cases()))
def test_trap_configs_match_recorded_oracle(rel, case, rec):
    _check(rel, case, rec)
