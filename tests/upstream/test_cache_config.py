"""Differential test of CacheConfig's memory options (kvguard.rules.cache_config) against real releases.

Generates seeded ``vllm serve`` launches with ``--gpu-memory-utilization``, ``--cpu-offload-gb``, ``--swap-space`` and
``--block-size`` inside and outside their bounds (and in the spellings argparse's float takes), ``--kv-cache-dtype`` names (0.33.0's field validator) and the options kvguard otherwise passes over whose bounds CacheConfig checks with the others (``--prefix-match-unit``, ``--prefix-cache-retention-interval``, ``--mamba-block-size``; given twice at times), and runs each through the release's own ``vllm serve`` path
(tests/upstream/serve_runner.py) and through kvguard with the oracle's host: the verdicts must agree.  Launches
kvguard declares undecidable (non-finite values, the offload config's bound after 0.17.1) are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.11.1 0.18.0 0.33.0"); KVG_CACHE_CASES launches per
release (default 16); seed KVG_CACHE_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``cache-config-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_cache_config 0.10.2 0.33.0 --cases 60``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.11.1 0.18.0 0.33.0").split()

UTILIZATION = ("0.9", "0.95", "1", "1.0", "1.01", "95", "90", "0", "-1", "1e-3", "0.5")
OFFLOAD = ("0", "4", "-1", "-0.5", "16.5")
#: --kv-cache-dtype: names of some releases, near misses (0.33.0 checks them in CacheConfig, before: argparse)
SWAP = ("0", "4", "-1", "-0.5")
BLOCK_SIZES = ("0", "-16", "16", "32")
CACHE_DTYPES = ("x", "FP8", "int8", "fp8", "auto", "bfloat16", "octave_k3v4", "nvfp4", " fp8", "fp8_e4m3")
#: CacheConfig's options kvguard otherwise passes over whose field bounds it renders, where the release's parser has
#: them: values within and outside the bound (optional_type's None too)
PASSED_OVER = {"--prefix-match-unit": ("None", "16", "1", "0", "-4"),
               "--prefix-cache-retention-interval": ("None", "0", "8", "-1"),
               "--mamba-block-size": ("None", "0", "-16")}


def _has_swap_space(version: str) -> bool:
    from kvguard.versions import resolve

    return resolve(version).within("0.10.2", "0.17.1")


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = []
        if rng.random() < 0.8:
            args += ["--gpu-memory-utilization", rng.choice(UTILIZATION)]
        if rng.random() < 0.4 or not args:
            args += ["--cpu-offload-gb", rng.choice(OFFLOAD)]
        if rng.random() < 0.4:
            args += ["--kv-cache-dtype", rng.choice(CACHE_DTYPES)]
        if rng.random() < 0.3:  # the releases that have the flag: 0.10.2-0.17.1
            args += ["--swap-space", rng.choice(SWAP)] if _has_swap_space(version) else []
        if rng.random() < 0.2:  # a free integer from 0.23.0 (argparse's choices before)
            args += ["--block-size", rng.choice(BLOCK_SIZES)]
        for option, values in PASSED_OVER.items():
            if option in table and rng.random() < 0.3:
                # given twice at times: argparse keeps the last occurrence, which alone CacheConfig validates
                for _ in range(1 if rng.random() < 0.7 else 2):
                    args += [option, rng.choice(values)]
        ident = f"c{i}"
        cases.append(launch_case(root, ident, "qwen3-8b", _config("Qwen/Qwen3-8B"), args))
    return cases


#: a ValidationError's entries are compared too: the fields out of bounds and their declaration order
run = generated_launches("kvg-cache-", generate, errors=True)


test_cache_config_checks_agree_with_real_vllm = launch_differential(
    run, kind="cache-config", label="CacheConfig memory options",
    cases=("KVG_CACHE_CASES", 16), seed="KVG_CACHE_SEED", versions=VERSIONS, since="0.10.2", also=("0.11.0", "0.11.1"))


if __name__ == "__main__":
    launches_main(__doc__, run)
