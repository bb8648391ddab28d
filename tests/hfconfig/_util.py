"""Shared helpers of the hfconfig tests (the comparing code lives in tools/)."""

from __future__ import annotations

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
import hfconfig_summary as summary  # noqa: E402

RELEASES = ("0.20.0", "0.28.0")


def read(name):
    path = os.path.join(DATA, name)
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def oracle_venv(release: str) -> str | None:
    root = os.environ.get("KVG_ORACLE_ROOT", "/work/oracle")
    py = os.path.join(root, release, "bin", "python")
    return py if os.path.exists(py) else None
