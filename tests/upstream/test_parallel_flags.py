"""Differential test of ParallelConfig's profiling and NUMA checks (kvguard.rules.parallel_flags) against real releases.

Generates seeded ``vllm serve`` launches with ``--ray-workers-use-nsight`` (with and without an executor backend)
and, from 0.20.0, ``--numa-bind`` / ``--numa-bind-nodes`` / ``--numa-bind-cpus`` (numactl CPU lists, descending
ranges, other strings, negative nodes), the options kvguard otherwise passes over whose bounds ParallelConfig checks
with the sizes' (``--data-parallel-rpc-port`` 0.28.0+, ``--dp-sync-interval`` and ``--elastic-ep-max-dp-size``
0.30.0+, ``--max-parallel-loading-workers``; given twice at times), and runs each through the release's own ``vllm serve`` path
(tests/upstream/serve_runner.py) and through kvguard with the oracle's host: the verdicts must agree.  Launches
kvguard declares undecidable (an empty or ``None`` entry: pydantic's type error) are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.19.1 0.20.0 0.33.0"); KVG_PFLAGS_CASES launches per
release (default 16); seed KVG_PFLAGS_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``parallel-flags-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_parallel_flags 0.10.2 0.33.0 --cases 40``.
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
from kvguard.versions import parse_version, resolve  # noqa: E402

from ._oracle import (  # noqa: E402
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.19.1 0.20.0 0.33.0").split()

BACKENDS = ("mp", "uni", "ray", "external_launcher")
CPUS = ("0-3", "0,2,4-7", "8", "3-1", "0-3,7-5", "x", "0-", "1,,2", "0-3 4-7", "4-7 2-0")
NODES = ("0", "1", "0 1", "-1", "1 -2")
#: ParallelConfig's options kvguard otherwise passes over whose field bounds it renders with the sizes', where the
#: release's parser has them: values within and outside the bound (optional_type's None too)
PASSED_OVER = {"--data-parallel-rpc-port": ("29550", "1", "65535", "0", "65536", "-1"),
               "--dp-sync-interval": ("16", "1", "0", "-2"),
               "--max-parallel-loading-workers": ("None", "2", "0", "-1"),
               "--elastic-ep-max-dp-size": ("4", "1", "0", "-8")}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    numa = parse_version(version.split("+")[0]) >= parse_version("0.20.0")
    table = option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = []
        if rng.random() < 0.5 or not numa:
            args.append(rng.choice(("--ray-workers-use-nsight", "--ray-workers-use-nsight", "--no-ray-workers-use-nsight")))
            if rng.random() < 0.5:
                args += ["--distributed-executor-backend", rng.choice(BACKENDS)]
        if numa and rng.random() < 0.8:
            if rng.random() < 0.6:
                args.append("--numa-bind")
            if rng.random() < 0.6:
                args += ["--numa-bind-nodes", *rng.choice(NODES).split()]
            if rng.random() < 0.7 or "--numa-bind-nodes" not in args:
                args += ["--numa-bind-cpus", *rng.choice(CPUS).split()]
        if rng.random() < 0.2:
            args += ["-tp", rng.choice(("0", "2"))]
        for option, values in PASSED_OVER.items():
            if option in table and rng.random() < 0.3:
                # given twice at times: argparse keeps the last occurrence, which alone ParallelConfig validates
                for _ in range(1 if rng.random() < 0.7 else 2):
                    args += [option, rng.choice(values)]
        ident = f"p{i}"
        cases.append(launch_case(root, ident, "qwen3-8b", _config("Qwen/Qwen3-8B"), args))
    return cases


#: a ValidationError's entries are compared too: the fields out of bounds and their declaration order
run = generated_launches("kvg-pflags-", generate, errors=True)


test_parallel_flag_checks_agree_with_real_vllm = launch_differential(
    run, kind="parallel-flags", label="ParallelConfig profiling and NUMA options",
    cases=("KVG_PFLAGS_CASES", 16), seed="KVG_PFLAGS_SEED", versions=VERSIONS, since="0.10.2", also=("0.20.0",))


if __name__ == "__main__":
    launches_main(__doc__, run)
