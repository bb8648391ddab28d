"""Differential test of the late options (kvguard.rules.late_options) and ``vllm serve``'s own checks after
validate_parsed_serve_args (kvguard.rules.serve_args: --headless with --api-server-count, the data-parallel
load-balancing modes) against real releases.

Generates seeded ``vllm serve`` launches of a text-only model (Qwen/Qwen3-8B) and an MoE one (Qwen/Qwen3-30B-A3B) with,
each drawn only on the releases whose parser has it: ``--default-mm-loras`` (JSON true and false values, with or
without ``--enable-lora``), ``--headless`` / ``--api-server-count`` and the load-balancing switches (``-dpe``,
``-dpn``, ``-dph``, ``-dpr``, 0.22.0+ ``-dpm``), ``--use-replayssm`` (0.27.0+), ``--return-sampling-mask`` (0.28.0+),
``--enable-trace-replay`` / ``--enable-batch-sharded-sampling`` / ``--per-request-spec-decode-metrics`` (0.29.0+),
``--enable-return-routed-experts`` (0.31.0+ checks), ``--reasoning-effort-map`` (0.33.0), ``--replayssm-buffer-len``
(0.27.0+, CacheConfig's Field(gt=0)), ``--watermark-config`` and HiSparse (0.30.0+: both force Model Runner V2; HiSparse
and JSON kvguard cannot vouch for are undecidable), sometimes with
``VLLM_USE_V2_MODEL_RUNNER=0``, and runs each through the release's own ``vllm serve`` path (tests/upstream/
serve_runner.py with the front end and ServeSubcommand.cmd's checks) and through kvguard with the oracle's host (no
Triton: the default model runner is V1 there): the verdicts must agree; undecidable launches are counted.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.14.1 0.21.0 0.28.0 0.31.0 0.33.0"); KVG_LATE_CASES launches
per release (default 16); seed KVG_LATE_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``late-options-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_late_options 0.26.0 0.33.0 --cases 40``.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from ._oracle import generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.14.1 0.21.0 0.28.0 0.31.0 0.33.0").split()

MM_LORAS = ('{"image": "/tmp/kvg-lora"}', "{}", "1", "0", "null", '"x"', '{"audio": 3}')
EFFORT_MAPS = ('{"medium": "low"}', '{"xhigh": "max", "none": "low"}', '{"foo": "low"}', '{"high": 1}', "[1]",
               '"low"', "null", '{"zz": "a", "aa": "b"}')
LB = ("-dpe", "-dph", "dpn", "dpr", "-dpm")
WATERMARKS = ('{"key": 1}', '{"key": 0}', "{}", '{"key": -1}')


def _version(v: str) -> tuple:
    return tuple(int(x) for x in v.split("+")[0].split("."))


def _draw(rng, version: str) -> tuple[list[str], dict, str]:
    v = _version(version)
    args: list[str] = []
    env: dict = {}
    model = "Qwen/Qwen3-8B"
    if rng.random() < 0.3:
        args += ["--default-mm-loras", rng.choice(MM_LORAS)]
        if rng.random() < 0.4:
            args += ["--enable-lora"]
    if rng.random() < 0.3:
        if rng.random() < 0.7:
            args += ["--headless"]
        if rng.random() < 0.7:
            args += ["--api-server-count", rng.choice(["0", "1", "2"])]
    if rng.random() < 0.3:
        args += ["-dp", "2"]
        for switch in rng.sample(LB, 2):
            if switch == "dpn":
                args += ["-dpn", "0"]
            elif switch == "dpr":
                args += ["-dpr", "0"]
            elif switch != "-dpm" or v >= (0, 22, 0):
                args += [switch]
    if v >= (0, 27, 0) and rng.random() < 0.25:
        args += ["--use-replayssm"]
    if v >= (0, 28, 0) and rng.random() < 0.2:
        args += ["--return-sampling-mask"]
    if v >= (0, 29, 0):
        if rng.random() < 0.2:
            args += ["--enable-trace-replay"]
        if rng.random() < 0.2:
            args += ["--enable-batch-sharded-sampling"]
        if rng.random() < 0.3:
            args += ["--per-request-spec-decode-metrics", rng.choice(["none", "summary", "detailed"])]
        if rng.random() < 0.2:
            env["VLLM_USE_V2_MODEL_RUNNER"] = "0"
    if v >= (0, 14, 0) and rng.random() < 0.25:
        args += ["--enable-return-routed-experts"]
        if rng.random() < 0.5:
            model = "Qwen/Qwen3-30B-A3B"
    if v >= (0, 27, 0) and rng.random() < 0.25:
        args += ["--replayssm-buffer-len", rng.choice(["0", "-1", "1", "16"])]
    if v >= (0, 30, 0) and rng.random() < 0.3:
        args += ["--watermark-config", rng.choice(WATERMARKS)]
    if v >= (0, 30, 0) and rng.random() < 0.05:
        args += ["--attention-config", '{"hisparse_config": {}}']
    if v >= (0, 33, 0) and rng.random() < 0.35:
        args += ["--reasoning-effort-map", rng.choice(EFFORT_MAPS)]
    if rng.random() < 0.15:
        args += ["-tp", "2"]
    return args, env, model


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    cases = []
    for i in range(n):
        args, env, model = _draw(rng, version)
        ident = f"l{i}"
        cases.append(launch_case(root, ident, model, _config(model), args, frontend=True, **({"env": env} if env else {})))
    return cases


run = generated_launches("kvg-late-", generate)


test_late_options_agree_with_real_vllm = launch_differential(
    run, kind="late-options", label="late options and vllm serve's own checks",
    cases=("KVG_LATE_CASES", 16), seed="KVG_LATE_SEED",
    versions=VERSIONS, since="0.14.1", also=("0.21.0", "0.33.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
