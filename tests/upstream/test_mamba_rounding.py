"""Differential test of the Mamba SSU backend name and the Mamba cache's stochastic rounding check
(kvguard.rules.mamba_rounding) against real releases.

Generates seeded ``vllm serve`` launches with ``--enable-mamba-cache-stochastic-rounding`` (on, off, absent) and
``--mamba-ssm-cache-dtype`` (each choice of the release, or absent) for a dense model, a hybrid model whose SSM cache
dtype nothing replaces (Qwen3-Next) and the models whose config handlers replace an ``auto`` dtype (Qwen3.5,
Nemotron-H), and runs each through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and through
kvguard with the oracle's host: the verdicts must agree.  Some launches add ``--mamba-backend`` (members of
MambaBackendEnum in any case, and names that are none) and, where the release has it (0.27.0+),
``--mamba-ssu-algorithm``.  Launches kvguard declares undecidable (``auto`` for the
latter models) are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.19.1 0.20.0 0.28.0 0.33.0"); KVG_ROUNDING_CASES launches per
release (default 16); seed KVG_ROUNDING_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``mamba-rounding-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_mamba_rounding 0.20.0 0.33.0 --cases 40``.
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

from ._oracle import (  # noqa: E402
    flag_switch,
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.19.1 0.20.0 0.28.0 0.33.0").split()

TARGETS = ("Qwen/Qwen3-8B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3.5-27B",
           "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")

BACKENDS = ("triton", "FlashInfer", "cpu", "x", "flash_infer")
SSU_ALGORITHMS = ("auto", "simple", "vertical", "horizontal")


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    dtypes = list((table.get("--mamba-ssm-cache-dtype") or None).choices or ())
    cases = []
    for i in range(n):
        target = rng.choice(TARGETS)
        args = flag_switch(rng, table, "enable-mamba-cache-stochastic-rounding", ("on", "on", "off", "default"))
        if rng.random() < 0.6:
            args += ["--mamba-ssm-cache-dtype", rng.choice(dtypes)]
        if rng.random() < 0.3 and "--mamba-backend" in table:
            # (a release without the option: the harness gives the model by --model, so argparse takes the value
            # for the positional model and leaves it out of "unrecognized arguments", as a real launch would not)
            args += ["--mamba-backend", rng.choice(BACKENDS)]
        if rng.random() < 0.35 and "--mamba-ssu-algorithm" in table:
            args += ["--mamba-ssu-algorithm", rng.choice(SSU_ALGORITHMS)]
        if rng.random() < 0.15 and target == TARGETS[0]:
            args += ["-tp", "0"]   # (a hybrid model's -tp 0 fails in its Mamba state sizing first, not modelled here)
        ident = f"r{i}"
        cases.append(launch_case(root, ident, target, _config(target), args))
    return cases


run = generated_launches("kvg-rounding-", generate)


test_stochastic_rounding_check_agrees_with_real_vllm = launch_differential(
    run, kind="mamba-rounding", label="Mamba cache stochastic rounding",
    cases=("KVG_ROUNDING_CASES", 16), seed="KVG_ROUNDING_SEED", versions=VERSIONS, since="0.19.1", also=("0.20.0",))


if __name__ == "__main__":
    launches_main(__doc__, run)
