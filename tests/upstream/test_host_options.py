"""Differential test of the host-fact options (kvguard.rules.host_options) against real releases.

Generates seeded ``vllm serve`` launches with ``--enable-sleep-mode`` (or its negative), ``--enable-cumem-allocator``
(0.22.0+), ``--device-ids`` lists (0.24.0+: duplicates, integer ids and UUID-like words mixed, ``-1``, ``01``, empty
items, with the CPU platform's device-control variable set now and then), ``--kda-prefill-backend`` (0.30.0+: its
CUDA-only and ROCm-only kernels, sometimes behind an OffloadConfig refusal) and, from 0.31.0,
``--logging-config.pylogging_config_file`` naming a file that exists (a valid dictConfig); some launches add an option
refused earlier (--config-format, --data-parallel-backend) or later (-tp 3, --max-model-len) to pin the position in
the release's order.  Each runs through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and
through kvguard with the oracle's host (the CPU platform: the branch that refuses sleep mode, the cumem allocator and
a UUID); the verdicts must agree.  A host file kvguard skips (the logging config) is accepted by both when it exists.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.22.0 0.24.0 0.33.0"); KVG_HOST_CASES launches per release
(default 16); seed KVG_HOST_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``host-options-<release>.json``.  Run directly for a
full report: ``python -m tests.upstream.test_host_options 0.10.2 0.33.0 --cases 40``.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.versions import resolve  # noqa: E402

from ._oracle import generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.22.0 0.24.0 0.33.0").split()

DEVICE_ITEMS = ("0", "1", "2", "01", " 3", "-1", "GPU-1a2b", "x", "")
KDA = ("auto", "triton", "flashkda", "flashinfer", "fused")
EARLIER = (["--config-format", "x"], ["--data-parallel-backend", "x"])
LATER = (["-tp", "3"], ["--max-model-len", "10000000"])


def _sleep(rng, release) -> list[str]:
    if rng.random() < 0.8:
        return ["--enable-sleep-mode"]
    return ["--disable-sleep-mode" if release.within("0.33.0") else "--no-enable-sleep-mode"]


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    release = resolve(version)
    os.makedirs(root, exist_ok=True)
    logging_file = os.path.join(root, "logging.json")
    Path(logging_file).write_text(json.dumps({"version": 1, "disable_existing_loggers": False}))
    cases = []
    for i in range(n):
        args: list[str] = []
        env: dict[str, str] = {}
        kind = rng.choice(("sleep", "cumem", "device", "device", "logging", "kda"))
        if kind == "kda" and not release.within("0.30.0"):
            kind = "device"
        if kind == "cumem" and not release.within("0.22.0"):
            kind = "sleep"
        if kind == "device" and not release.within("0.24.0"):
            kind = "sleep"
        if kind == "logging" and not release.within("0.31.0"):
            kind = "sleep"
        if kind == "sleep":
            args += _sleep(rng, release)
            if release.within("0.22.0") and rng.random() < 0.3:
                args += ["--enable-cumem-allocator"]
        elif kind == "cumem":
            args += ["--enable-cumem-allocator"]
            if rng.random() < 0.4:
                args += _sleep(rng, release)
        elif kind == "device":
            count = rng.choice((1, 2, 2, 3))
            args += ["--device-ids", ",".join(rng.choice(DEVICE_ITEMS) for _ in range(count))]
            if rng.random() < 0.25:
                env["CPU_VISIBLE_MEMORY_NODES"] = rng.choice(("0", "0,1", "x"))
        elif kind == "kda":
            args += ["--kda-prefill-backend", rng.choice(KDA)]
            if rng.random() < 0.25:
                args += ["--offload-backend", "prefetch", "--offload-group-size", "1", "--offload-num-in-group", "2"]
        else:
            args += ["--logging-config.pylogging_config_file", logging_file]
            if rng.random() < 0.5:
                args += _sleep(rng, release)
        draw = rng.random()
        if draw < 0.2:
            args += rng.choice(EARLIER)
        elif draw < 0.4:
            args += rng.choice(LATER)
        extra = {"env": env} if env else {}
        cases.append(launch_case(root, f"h{i}", "qwen3-8b", _config("Qwen/Qwen3-8B"), args, **extra))
    return cases


run = generated_launches("kvg-host-", generate)

test_host_options_agree_with_real_vllm = launch_differential(
    run, kind="host-options", label="host-fact options (sleep mode, cumem allocator, --device-ids, KDA prefill kernel, logging file)",
    cases=("KVG_HOST_CASES", 16), seed="KVG_HOST_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.22.0", "0.24.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
