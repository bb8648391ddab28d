"""What the tests against real vLLM releases share: finding a release's oracle, or skipping.

Without an oracle a test skips — unless KVG_REQUIRE_ORACLE=1 (as in .ci/run), which
turns a missing oracle into a failure.  tools/oracle_env.py ensure X builds one.
"""

from __future__ import annotations

import os

import pytest

from .differential import oracle_command


def oracle_or_skip(version: str) -> tuple[str, dict[str, str]]:
    """(python, environment overrides) of the oracle for ``version`` (differential.oracle_command)."""
    found = oracle_command(version)
    if found is None:
        root = os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle"))
        if os.environ.get("KVG_REQUIRE_ORACLE") == "1":
            pytest.fail(f"oracle for vLLM {version} missing under {root} (KVG_REQUIRE_ORACLE=1)")
        pytest.skip(f"no oracle for vLLM {version} (build one with python tools/oracle_env.py ensure {version})")
    return found
