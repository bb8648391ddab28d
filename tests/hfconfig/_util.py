"""Shared helpers of the hfconfig tests (the comparing code lives in tools/)."""

from __future__ import annotations

import functools
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import hfconfig_oracle as oracle  # noqa: E402

#: releases with recorded oracle answers for the trap configs (data/unit_oracle_<release>.json.gz) and how
#: load errors surface through ModelConfig (data/modelconfig_<release>.json): one or more per loader variant
#: (see kvguard/hfconfig/_load.py FEATURES) and per transformers line
RELEASES = ("0.10.2", "0.11.1", "0.12.0", "0.13.0", "0.15.0", "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.22.1",
            "0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")
#: releases with recorded answers for generated configs (data/oracle_<release>.json.gz)
GENERATED = ("0.10.2", "0.12.0", "0.13.0", "0.19.0", "0.20.0", "0.21.0", "0.23.0", "0.24.0", "0.26.0", "0.28.0",
             "0.31.0", "0.32.0", "0.33.0")


def read(name):
    path = os.path.join(DATA, name)
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def recorded(stem: str, rel: str) -> dict:
    """Hand-written configs (``data/<stem>.json``) with the oracle's answers recorded for ``rel``
    (``data/<stem>_oracle_<rel>.json.gz``, written by ``tools/hfconfig_oracle.py --unit --record``): id -> (case,
    record)."""
    cases = {c["id"]: c for c in read(f"{stem}.json")["cases"]}
    return {rec["id"]: (cases[rec["id"]], rec) for rec in read(f"{stem}_oracle_{rel}.json.gz")["results"]}


def answers(stem: str, rel: str) -> dict:
    """The oracle's recorded answers for ``data/<stem>.json``'s configs on ``rel``: id -> record."""
    return {case_id: rec for case_id, (_, rec) in recorded(stem, rel).items()}


def case_ids(stem: str) -> list:
    """The ids of ``data/<stem>.json``'s hand-written configs, in their order."""
    return [c["id"] for c in read(f"{stem}.json")["cases"]]


def assert_agrees(stem: str, rel: str, case_id: str) -> None:
    """kvguard reads the hand-written config ``case_id`` of ``data/<stem>.json`` as the release's recorded answer."""
    case, rec = recorded(stem, rel)[case_id]
    verdict, detail = oracle.compare(rec, oracle.run_kvguard(case, release(rel)))
    assert verdict == "agree", detail


def release(rel: str):
    """A Release for any known version (kvguard.versions.resolve accepts only the verified ones)."""
    from packaging.version import Version

    from kvguard.versions import Release
    return Release(Version(rel))


def oracle_env(rel: str):
    """(python, extra environment) of the oracle for ``rel``, or None (tools/oracle_env.py, classic venvs)."""
    root = oracle.default_env_root()
    return oracle.find_oracle(rel, root, os.environ.get("KVG_ORACLE_ROOT", root))
