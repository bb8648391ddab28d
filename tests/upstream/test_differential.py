"""The differential tier as a pytest test: kvguard vs the real release, on generated inputs.

Runs for every release in KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0") whose
oracle venv exists under KVG_ORACLE_ROOT (tools/oracle_venv.sh builds them).
Without venvs the tests skip — unless KVG_REQUIRE_ORACLE=1 (as in .ci/run),
which turns a missing oracle into a failure.  Size: KVG_DIFF_CONFIGS x
KVG_DIFF_LAYOUTS per release and environment (default 12 x 20).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .differential import compare, generate, run_oracle

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()
ENVS = [{}, {"VLLM_MLA_DISABLE": "1"}]


def _python(version: str) -> str:
    root = os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle"))
    py = Path(root) / version / "bin" / "python"
    if not py.exists():
        if os.environ.get("KVG_REQUIRE_ORACLE") == "1":
            pytest.fail(f"oracle venv for vLLM {version} missing at {py} (KVG_REQUIRE_ORACLE=1)")
        pytest.skip(f"no oracle venv for vLLM {version} (build one with tools/oracle_venv.sh {version})")
    return str(py)


@pytest.mark.parametrize("env", ENVS, ids=["default", "mla-disabled"])
@pytest.mark.parametrize("version", VERSIONS)
def test_agrees_with_real_vllm(version, env):
    python = _python(version)
    n_configs = int(os.environ.get("KVG_DIFF_CONFIGS", "12"))
    n_layouts = int(os.environ.get("KVG_DIFF_LAYOUTS", "20"))
    seed = int(os.environ.get("KVG_DIFF_SEED", "7")) + (1 if env else 0)
    cases = generate(seed, n_configs, n_layouts)
    report = compare(version, cases, run_oracle(python, cases, env), env)
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        name = f"differential-{version}-{'mla-off' if env else 'default'}.json"
        (Path(out) / name).write_text(json.dumps(report, indent=1, default=str))
    counts = report["counts"]
    print(f"\nvLLM {version} {env or ''}: {counts}")
    assert counts.get("layouts", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)
