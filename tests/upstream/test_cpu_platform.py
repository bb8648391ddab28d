"""Differential test of the CPU platform's config hook (kvguard.rules.cpu_platform) against real releases.

vLLM's CPU platform refuses a quantized KV cache with chunked prefill or prefix caching on (0.10.2 – 0.20.2), and
0.10.2's refuses a block size other than 16 without intel_extension_for_pytorch.  Generates seeded ``vllm serve``
launches of dense, MoE, sliding-window and hybrid checkpoints and a ModelOpt one naming its KV cache's dtype, with the KV cache dtypes the release's parser offers,
chunked prefill and prefix caching on, off or left to the release, an explicit block size, a pooling runner, and
some with ``VLLM_CPU_KVCACHE_SPACE`` set (an integer, one int() refuses, an empty value: the hook's legacy
setting of 0.20.0+), and runs each through the release's own ``vllm serve`` path on the CPU platform (tests/upstream/serve_runner.py, as
tests/upstream/test_speculative.py does) and through kvguard with the oracle's host (``platform="cpu"``): the
verdicts must agree.  Launches kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.14.1 0.15.0 0.20.0 0.21.0");
KVG_CPU_CASES launches per release (default 24); seed KVG_CPU_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps
``cpu-platform-<release>.json``.  Run directly for a full report:
``python -m tests.upstream.test_cpu_platform 0.10.2 0.20.2 --cases 120``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.14.1 0.15.0 0.20.0 0.21.0").split()

#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"),
    "qwen3-moe": gen.gen_qwen3_moe,
    "llama": gen.gen_llama,
    "gemma2": gen.gen_gemma2,
    "mistral": gen.gen_mistral,
    "jamba": gen.gen_jamba,
    # a ModelOpt checkpoint naming an FP8 KV cache: --kv-cache-dtype auto takes it from 0.14.0
    "qwen3.6-27b-nvfp4": lambda rng: _config("nvidia/Qwen3.6-27B-NVFP4"),
}

#: VLLM_CPU_KVCACHE_SPACE values tried (its own draws: the launches without it stay those of earlier seeds)
KVCACHE_SPACES = ("8", " 4 ", "-1", "abc", "1.5", "4GiB", "")

#: KV cache dtypes tried, those the release's parser lacks left out
KV_CACHE_DTYPES = ("auto", "auto", "fp8", "fp8_e5m2", "fp8_e4m3", "bfloat16", "float16", "nvfp4",
                   "int8_per_token_head", "fp8_per_token_head", "fp8_inc")


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    env_rng = random.Random(f"{seed}-{version}-kvcache-space")
    table = option_table(resolve(version))
    # (a release whose parser lists no choices validates the dtype later: the common ones then)
    choices = table["--kv-cache-dtype"].choices or ("auto", "fp8", "fp8_e5m2", "bfloat16")
    dtypes = [d for d in KV_CACHE_DTYPES if d in choices]
    names = sorted(CHECKPOINTS)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        args = ["--kv-cache-dtype", rng.choice(dtypes)] if rng.random() < 0.85 else []
        args += flag_switch(rng, table, "enable-chunked-prefill") + flag_switch(rng, table, "enable-prefix-caching")
        if rng.random() < 0.2:
            args += ["--block-size", rng.choice(("16", "32", "128"))]
        if rng.random() < 0.1 and "--runner" in table:
            args += ["--runner", "pooling"]
        ident = f"cpu{i}"
        extra = {"env": {"VLLM_CPU_KVCACHE_SPACE": env_rng.choice(KVCACHE_SPACES)}} if env_rng.random() < 0.3 else {}
        cases.append(launch_case(root, ident, name, CHECKPOINTS[name](rng), args, **extra))
    return cases


run = generated_launches("kvg-cpu-", generate)


#: the releases where the hook changes — 0.10.2 (V0 defaults), 0.11.0 (the last block-size check), 0.14.1 and
#: 0.15.0 (what counts as quantized), 0.20.0 (nvfp4 and per-token-head), 0.21.0 (no check) — those asked for
test_cpu_platform_hook_agrees_with_real_vllm = launch_differential(
    run, kind="cpu-platform", label="CPU platform hook",
    cases=("KVG_CPU_CASES", 24), seed="KVG_CPU_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.11.0", "0.14.1", "0.15.0", "0.20.0", "0.21.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
