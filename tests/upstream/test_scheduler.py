"""Differential test of SchedulerConfig's batch checks (kvguard.rules.scheduler) against real releases.

Generates seeded ``vllm serve`` launches of dense, MoE and sliding-window checkpoints with
``--max-num-batched-tokens`` (human-readable forms too), ``--max-num-seqs``, ``--max-model-len``,
``--long-prefill-token-threshold``, ``--max-num-active-seqs``, ``--num-lookahead-slots``, and the options kvguard
otherwise passes over whose field bounds SchedulerConfig checks with the others (``--max-num-scheduled-tokens``,
``--max-num-queued-reqs`` / ``-tokens``, ``--watermark``, ``--prefill-schedule-interval``, ``--stream-interval``)
(values out of their bounds too), chunked prefill
on, off or left to the release, and sometimes a pooling runner, and runs each through the release's own
``vllm serve`` path (tests/upstream/serve_runner.py, as tests/upstream/test_speculative.py does) and through
kvguard with the oracle's host: the verdicts must agree.  Launches kvguard declares undecidable are counted,
never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.11.1 0.20.0 0.33.0"); KVG_SCHED_CASES launches
per release (default 24); seed KVG_SCHED_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``scheduler-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_scheduler 0.11.1 0.33.0 --cases 120``.
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

from . import differential as gen  # noqa: E402
from ._oracle import (  # noqa: E402
    flag_switch,
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.11.1 0.20.0 0.33.0").split()

#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"),
    "qwen3-moe": gen.gen_qwen3_moe,
    "gemma2": gen.gen_gemma2,
    "mistral": gen.gen_mistral,
}

BATCHED = ("512", "1024", "2048", "8k", "8192", "16384", "32K", "40960", "65536", "131072", "1.5k", "0")
SEQS = ("1", "8", "64", "256", "1024", "2048", "4096", "0")
LENGTHS = ("2048", "4096", "8192", "32768")
THRESHOLDS = ("0", "512", "4096", "8192", "40000", "200000", "-1")
ACTIVE = ("1", "8", "64", "512", "None", "0")
#: --num-lookahead-slots (0.10.2 - 0.11.2): _verify_args' check to 0.11.0, the field's bound after
LOOKAHEAD = ("0", "1", "4", "-1", "-8")
#: the passed-over SchedulerConfig options with a field bound, where the release's parser has them: values within
#: and outside the bound (human-readable forms, optional_type's None, the watermark's both ends)
PASSED_OVER = {"--max-num-scheduled-tokens": ("None", "2k", "512", "1", "0", "-1"),
               "--max-num-queued-reqs": ("None", "16", "0", "-1", "-4"),
               "--max-num-queued-tokens": ("None", "4k", "0", "-1"),
               "--watermark": ("0", "0.01", "0.5", "0.99", "1", "1.5", "-0.1"),
               "--prefill-schedule-interval": ("1", "4", "0", "-1"),
               "--stream-interval": ("1", "8", "0", "-3")}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    names = sorted(CHECKPOINTS)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        args = ["--max-num-batched-tokens", rng.choice(BATCHED)] if rng.random() < 0.85 else []
        if rng.random() < 0.4:
            args += ["--max-num-seqs", rng.choice(SEQS)]
        if rng.random() < 0.4:
            args += ["--max-model-len", rng.choice(LENGTHS)]
        args += flag_switch(rng, table, "enable-chunked-prefill", ("on", "off", "off", "default"))
        if rng.random() < 0.3:
            args += ["--long-prefill-token-threshold", rng.choice(THRESHOLDS)]
        if rng.random() < 0.3 and "--max-num-active-seqs" in table:
            args += ["--max-num-active-seqs", rng.choice(ACTIVE)]
        if rng.random() < 0.1 and "--runner" in table:
            args += ["--runner", "pooling"]
        if "--num-lookahead-slots" in table and rng.random() < 0.3:
            args += ["--num-lookahead-slots", rng.choice(LOOKAHEAD)]
        for option, values in PASSED_OVER.items():
            if option in table and rng.random() < 0.2:
                args += [option, rng.choice(values)]
        ident = f"s{i}"
        cases.append(launch_case(root, ident, name, CHECKPOINTS[name](rng), args))
    return cases


#: a ValidationError's entries are compared too: the fields out of bounds and their declaration order
run = generated_launches("kvg-sched-", generate, errors=True)


#: the releases where the checks' inputs change — 0.10.2 (V1 / V0 defaults), 0.11.0 (chunked prefill forced on),
#: 0.11.1 (the launch's word), 0.20.0 — those asked for
test_scheduler_checks_agree_with_real_vllm = launch_differential(
    run, kind="scheduler", label="SchedulerConfig",
    cases=("KVG_SCHED_CASES", 24), seed="KVG_SCHED_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.11.0", "0.11.1", "0.20.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
