"""How a load error reaches the user: recorded from real ``ModelConfig(...)`` runs.

``data/modelconfig_<release>.json`` holds what the real vLLM raised for the
configs of ``data/modelconfig_cases.json`` when building ``ModelConfig``:
ValueError (and AssertionError) inside ``ModelConfig.__post_init__`` surface as
``pydantic_core.ValidationError`` titled ``ModelConfig`` (entry ``value_error`` / ``assertion_error``); everything else
(TypeError, KeyError, AttributeError, ZeroDivisionError, huggingface_hub's
StrictDataclass*Error) escapes raw.  Recorded with tools/hfconfig_oracle.py --modelconfig --record.
"""

from __future__ import annotations

import re

import pytest

from kvguard.errors import Undecidable
from kvguard.facts.loader import LoadCrash, hf_text_config, load_config

from ._util import RELEASES, oracle, read, release

CASES = {c["id"]: c for c in read("modelconfig_cases.json")}


def _params():
    for rel in RELEASES:
        for rec in read(f"modelconfig_{rel}.json"):
            if rec["id"] == "mpt_kvn":  # that one fails later, in vLLM's convertor (kvguard.facts)
                continue
            yield pytest.param(rel, rec, id=f"{rel}-{rec['id']}")


def _unpath(msg: str) -> str:
    return re.sub(r"/tmp/kvgo[^ .\n]*", "<path>", msg)


@pytest.mark.parametrize("rel,rec", list(_params()))
def test_surface_matches_real_modelconfig(rel, rec):
    case = CASES[rec["id"]]
    try:
        cfg = load_config(case["config"], release(rel), trust_remote_code=False, path="/tmp/kvgo_x")
        hf_text_config(cfg)
        got = None
    except LoadCrash as e:
        got = e
    except Undecidable as e:
        got = e.load_crash
    if rec["outcome"] == "ok":
        assert got is None
        return
    err = rec["error"]
    assert got is not None
    if err["type"] == "ValidationError":
        assert err["title"] == "ModelConfig" and got.wrapped_by == "ModelConfig"
        (entry,) = err["pydantic"]
        # pydantic titles a ValueError "Value error, <msg>" and an AssertionError "Assertion failed, <msg>"
        # (0.10.2-0.12.0: get_hf_text_config's bare assert)
        prefix = {"value_error": ("ValueError", "Value error, "),
                  "assertion_error": ("AssertionError", "Assertion failed, ")}[entry["type"]]
        assert got.exc_type == prefix[0]
        assert _unpath(entry["msg"]) == _unpath(prefix[1] + got.message)
    else:
        assert got.wrapped_by is None
        assert got.exc_type == err["type"]
        assert oracle.same_message(_unpath(err["message"]), _unpath(got.message))
