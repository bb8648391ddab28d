"""Differential test of the bounds of ModelConfig's, CacheConfig's, LoadConfig's and VllmConfig's options kvguard
otherwise passes over (kvguard.rules.table's MC_FIELD, kvguard.rules.cache_config, kvguard.rules.late_bounds)
against real releases.

Generates seeded ``vllm serve`` launches with ``--max-logprobs`` (ModelConfig, 0.25.0+, beside ``--max-model-len``),
``--replayssm-buffer-len`` (CacheConfig, 0.27.0+, beside ``--gpu-memory-utilization``, ``--block-size``,
``--mamba-block-size``, ``--prefix-cache-retention-interval``, ``--cpu-offload-gb`` and 0.33.0's ``--kv-cache-dtype``, an
unknown one the validator's value error among the bounds' or alone), ``--safetensors-prefetch-num-threads`` /
``--safetensors-prefetch-block-size`` (LoadConfig, 0.21.0+) and ``--shutdown-timeout`` (VllmConfig, 0.18.0+), values
within and outside the bounds, two bounded options of one class together, an option given twice at times (the last
value counts), and runs each through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and
through kvguard: the verdicts, and every error of a ValidationError, must agree.  Launches kvguard declares
undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.18.0 0.21.0 0.25.0 0.28.0 0.33.0"): the first from 0.18.0,
0.21.0 and 0.25.0 where listed, and the last (CI's group: 0.18.0, 0.21.0, 0.33.0); KVG_BOUNDS_CASES launches per
release (default 12); seed KVG_BOUNDS_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``bounds-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_bounds 0.20.0 0.33.0 --cases 60``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.18.0 0.21.0 0.25.0 0.28.0 0.33.0").split()

#: per config class, its bounded options with values within and outside the bound, where the release's parser has them
GROUPS = (
    {"--max-logprobs": ("20", "-1", "0", "-2", "-100"), "--max-model-len": ("4096", "-1", "-2", "0")},
    {"--replayssm-buffer-len": ("16", "1", "0", "-3"), "--gpu-memory-utilization": ("0.9", "1.5", "0"),
     "--block-size": ("16", "0"), "--mamba-block-size": ("0", "None"), "--kv-cache-dtype": ("auto", "fp8", "xx", "xx"),
     "--prefix-cache-retention-interval": ("0", "-1"), "--cpu-offload-gb": ("0", "-1")},
    {"--safetensors-prefetch-num-threads": ("1", "8", "0", "-1"),
     "--safetensors-prefetch-block-size": ("1", "1024", "0", "-5")},
    {"--shutdown-timeout": ("0", "30", "-1", "-60"), "-tp": ("1", "3")},
)


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = []
        groups = [rng.choice(GROUPS)] + ([rng.choice(GROUPS)] if rng.random() < 0.3 else [])
        for group in groups:
            for option, values in group.items():
                if option not in table or rng.random() < 0.35:
                    continue
                for _ in range(1 if rng.random() < 0.8 else 2):
                    args += [option, rng.choice(values)]
        if not args:
            args = ["--max-model-len", "4096"]
        cases.append(launch_case(root, f"b{i}", "qwen3-8b", _config("Qwen/Qwen3-8B"), args))
    return cases


#: a ValidationError's entries are compared too: the fields out of bounds and their declaration order
run = generated_launches("kvg-bounds-", generate, errors=True)


test_bounds_agree_with_real_vllm = launch_differential(
    run, kind="bounds", label="passed-over option bounds", cases=("KVG_BOUNDS_CASES", 12), seed="KVG_BOUNDS_SEED",
    versions=VERSIONS, since="0.18.0", also=("0.21.0", "0.25.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
