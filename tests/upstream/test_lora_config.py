"""Differential test of LoRAConfig's refusals (kvguard.rules.lora_config) against real releases.

Generates seeded ``vllm serve`` launches of Qwen/Qwen3-8B and of models whose class lacks SupportsLoRA
(tiiuae/falcon-mamba-7b, state-spaces/mamba-2.8b-hf), most with ``--enable-lora``, giving ``--max-loras`` and
``--max-cpu-loras`` values within and outside what LoRAConfig accepts (0, negative, ``None``, below and at the other),
at times twice (the last value counts), from 0.20.0 at times with VLLM_LORA_ENABLE_DUAL_STREAM (refused on the
oracle's CPU platform), on 0.10.2 at times with VLLM_USE_V1 and ``--cpu-offload-gb``, at times a refusal of a later
config (LoadConfig's prefetch-threads bound, the stochastic-rounding check), on 0.33.0 at times a megakernel
``--moe-backend``, and on releases whose parser has them
``--max-lora-rank`` / ``--lora-extra-vocab-size`` values (0.10.2 - 0.11.0 check them in ``__post_init__``) and
``--max-lora-cls-labels`` values (0.31.0+, a field bound like ``--max-loras``'s from 0.11.1); then runs each through the
release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and through kvguard: the verdicts, and the wrapped
message, must agree.  Launches kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.20.0 0.33.0"): the first, 0.20.0 where listed, and the
last; KVG_LORA_CASES launches per release
(default 10); seed KVG_LORA_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``lora-<release>.json``.  Run directly for a full
report: ``python -m tests.upstream.test_lora_config 0.10.2 0.33.0 --cases 30``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.20.0 0.33.0").split()

#: LoRAConfig's options, with values it accepts and refuses (where the release's parser has the option)
VALUES = {"--max-loras": ("1", "2", "4", "0", "-1"),
          "--max-cpu-loras": ("1", "2", "3", "8", "0", "-2", "None"),
          "--max-lora-rank": ("8", "16", "7", "1024"),
          "--lora-extra-vocab-size": ("256", "512", "300"),
          "--max-lora-cls-labels": ("1", "3", "0", "-2", "None")}
#: the checkpoints: most a class with SupportsLoRA, some without it in every release (Mamba; FalconMamba resolves
#: to the same class)
MODELS = (("qwen3-8b", "Qwen/Qwen3-8B", 0.7), ("falcon-mamba-7b", "tiiuae/falcon-mamba-7b", 0.15),
          ("mamba-2.8b", "state-spaces/mamba-2.8b-hf", 0.15))
#: refusals of other configs built after LoRAConfig (LoadConfig's bound, 0.21.0+) or verified after its VllmConfig
#: checks (stochastic rounding, 0.20.0+), where the release's parser has the option
LATER = {"--safetensors-prefetch-num-threads": ("0", "2"), "--enable-mamba-cache-stochastic-rounding": ()}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = ["--enable-lora"] if rng.random() < 0.85 else []
        for option, values in VALUES.items():
            if option not in table or rng.random() < (0.2 if option in ("--max-loras", "--max-cpu-loras") else 0.75):
                continue
            for _ in range(1 if rng.random() < 0.85 else 2):
                args += [option, rng.choice(values)]
        if version == "0.33.0" and rng.random() < 0.15:
            # 0.33.0's LoRAConfig.verify_with_kernel_config refuses a megakernel MoE backend (any model)
            args += ["--moe-backend", rng.choice(("deep_gemm_mega_moe", "Flashinfer-MoE-EP-CuteDSL", "aiter_mega_moe",
                                                  "triton"))]
        for option, values in LATER.items():
            if option in table and rng.random() < 0.15:
                args += [option, *([rng.choice(values)] if values else [])]
        extra: dict = {}
        if resolve(version).within("0.20.0") and rng.random() < 0.3:
            # the dual-stream switch, refused on this CPU host's platform (0.20.0+)
            extra["env"] = {"VLLM_LORA_ENABLE_DUAL_STREAM": rng.choice(("1", "0", "2"))}
        if version == "0.10.2" and rng.random() < 0.3:
            # 0.10.2's V0 engine refuses LoRA with CPU offload (LoRAConfig.verify_with_cache_config)
            extra["env"] = {"VLLM_USE_V1": rng.choice(("0", "1"))}
            args += ["--cpu-offload-gb", rng.choice(("0", "1", "2.5"))]
        target, name = rng.choices([m[:2] for m in MODELS], weights=[m[2] for m in MODELS])[0]
        cases.append(launch_case(root, f"l{i}", target, _config(name), args or ["--enable-lora"], **extra))
    return cases


run = generated_launches("kvg-lora-", generate, errors=True)


test_lora_config_agrees_with_real_vllm = launch_differential(
    run, kind="lora", label="LoRAConfig's refusals", cases=("KVG_LORA_CASES", 10), seed="KVG_LORA_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.20.0",))


if __name__ == "__main__":
    launches_main(__doc__, run)
