"""Differential test of ObservabilityConfig's checks (kvguard.rules.observability) against real releases.

Generates seeded ``vllm serve`` launches with ``--collect-detailed-traces`` (one or two modules, a comma-joined pair,
``None``), ``--otlp-traces-endpoint``, ``--show-hidden-metrics-for-version`` (versions and strings that are none) and
``--kv-cache-metrics-sample`` within and outside its field bound (0.12.0+; given twice at times), and runs each through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and through kvguard with
the oracle's host: the verdicts must agree.  Launches kvguard declares undecidable (pydantic's literal errors,
OpenTelemetry before 0.17.0) are counted, never compared.  From 0.17.0 OpenTelemetry is a dependency of the release,
which kvguard takes as importable; an oracle venv without it refuses the endpoint ("OpenTelemetry is not
available"): such a launch kvguard accepts is counted as ``host``, not compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.11.1 0.20.0 0.33.0"); KVG_OBS_CASES launches per
release (default 16); seed KVG_OBS_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``observability-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_observability 0.10.2 0.33.0 --cases 40``.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.launch.argv import option_table  # noqa: E402
from kvguard.versions import resolve  # noqa: E402

from ._oracle import generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.11.1 0.20.0 0.33.0").split()

TRACES = (["all"], ["model"], ["worker"], ["model", "worker"], ["worker", "all"], ["model,worker"], ["None"])
VERSION_STRINGS = ("0.10", "0.32", "1.0.0rc1", "x", "v0.9", "0.10.x", "latest", " 0.9 ")
ENDPOINTS = ("http://localhost:4317", "grpc://collector:4317")
#: --kv-cache-metrics-sample (0.12.0+, an option kvguard otherwise passes over): within and outside (0, 1]
METRICS_SAMPLES = ("0.01", "1", "0", "-0.5", "1.5", "2")


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    with_sample = "--kv-cache-metrics-sample" in option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = []
        if rng.random() < 0.7:
            args += ["--collect-detailed-traces", *rng.choice(TRACES)]
        if rng.random() < 0.3:
            args += ["--otlp-traces-endpoint", rng.choice(ENDPOINTS)]
        if rng.random() < 0.5 or not args:
            args += ["--show-hidden-metrics-for-version", rng.choice(VERSION_STRINGS)]
        if rng.random() < 0.2:
            args += ["-tp", rng.choice(("0", "2"))]
        if with_sample and rng.random() < 0.4:
            # given twice at times: argparse keeps the last occurrence, which alone ObservabilityConfig validates
            for _ in range(1 if rng.random() < 0.7 else 2):
                args += ["--kv-cache-metrics-sample", rng.choice(METRICS_SAMPLES)]
        ident = f"o{i}"
        cases.append(launch_case(root, ident, "qwen3-8b", _config("Qwen/Qwen3-8B"), args))
    return cases


#: a ValidationError's entries are compared too (the metrics sample's bound)
_launches = generated_launches("kvg-obs-", generate, errors=True)


def _without_otel(report: dict) -> dict:
    """The oracle venv's missing OpenTelemetry (a dependency of the release from 0.17.0) is the host's, not the
    launch's: such mismatches where kvguard accepts (or refuses a later ObservabilityConfig field) are counted as
    ``host``."""
    kept = []
    for mismatch in report["mismatches"]:
        message = mismatch["oracle"].get("message") or ""
        # kvguard accepts, or refuses a field ObservabilityConfig validates after the endpoint (the metrics sample)
        takes_otel = mismatch["kvguard"] == {"ok": True} or mismatch["kvguard"].get("wrapped_by") == "ObservabilityConfig"
        if takes_otel and message.startswith("OpenTelemetry is not available."):
            report["counts"]["host"] = report["counts"].get("host", 0) + 1
            report["counts"]["disagree"] -= 1
            continue
        kept.append(mismatch)
    report["mismatches"] = kept
    return report


def run(version: str, n: int, seed: int) -> dict:
    return _without_otel(_launches(version, n, seed))


test_observability_checks_agree_with_real_vllm = launch_differential(
    run, kind="observability", label="ObservabilityConfig options",
    cases=("KVG_OBS_CASES", 16), seed="KVG_OBS_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.11.0", "0.11.1", "0.20.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
