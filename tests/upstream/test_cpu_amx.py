"""Differential test of the CPU platform's AMX branches (kvguard.rules.cpu_amx) against real releases.

Generates seeded ``vllm serve`` launches of the models those branches touch — pure Mamba (Mamba, Falcon-Mamba),
hybrid (Jamba, Qwen3-Next, Qwen3.5, LFM2), a plain transformer, and MLA models (DeepSeek-V2-Lite,
Kimi-Linear) — with prefix caching and chunked prefill on, off or left to the release, ``--mamba-cache-mode``,
``--mamba-block-size``, ``--block-size``, ``--attention-backend CPU_MLA`` and a pipeline, and runs each through the
release's own ``vllm serve`` path on the CPU platform (tests/upstream/serve_runner.py) and through kvguard with the
oracle's host: the verdicts must agree.  The oracle answers ``torch.cpu._is_amx_tile_supported()`` as
``KVG_ORACLE_CPU_AMX`` says (tests/upstream/oracle_runner.py ``cpu_amx_answer``) and kvguard is told the same host
fact (``amx``); the pytest entry runs each release with both answers.  Launches kvguard declares undecidable are
counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS from 0.22.0, its first, 0.24.0 (the last with the linear-attention branch)
and its last (default "0.22.1 0.24.0 0.29.0 0.33.0"; the MLA branch from 0.29.0); KVG_AMX_CASES
launches per release and answer (default 8); seed KVG_AMX_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps
``cpu-amx-<release>.json`` and ``cpu-no-amx-<release>.json``.  Run directly for a full report (with the answer the
environment gives): ``KVG_ORACLE_CPU_AMX=1 python -m tests.upstream.test_cpu_amx 0.22.1 0.33.0 --cases 60``.
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
    check_launch_report,
    flag_switch,
    generated_launches,
    launch_case,
    launches_main,
    release_sample,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.22.1 0.24.0 0.29.0 0.33.0").split()

#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "mamba": gen.gen_mamba,
    "falcon-mamba": gen.gen_falcon_mamba,
    "jamba": gen.gen_jamba,
    "qwen3-next": lambda rng: _config("Qwen/Qwen3-Next-80B-A3B-Instruct"),
    "qwen3.5": gen.gen_qwen3_5,
    "lfm2": gen.gen_lfm2,
    "llama": gen.gen_llama,
    "deepseek-v2-lite": lambda rng: _config("deepseek-ai/DeepSeek-V2-Lite"),
    "kimi-linear": lambda rng: _config("moonshotai/Kimi-Linear-48B-A3B-Instruct"),
}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"amx-{seed}-{version}")
    table = option_table(resolve(version))
    modes = list(table["--mamba-cache-mode"].choices or ()) if "--mamba-cache-mode" in table else []
    names = sorted(CHECKPOINTS)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        config = CHECKPOINTS[name](rng)
        # prefix caching on more often than not: the branch that turns it off decides only then
        args = flag_switch(rng, table, "enable-chunked-prefill")
        args += ["--enable-prefix-caching"] if rng.random() < 0.5 else flag_switch(rng, table,
                                                                                    "enable-prefix-caching")
        if modes and rng.random() < 0.3:
            args += ["--mamba-cache-mode", rng.choice(modes)]
        if rng.random() < 0.25:
            args += ["--mamba-block-size", str(rng.choice([16, 64, 2048, 4096]))]
        if rng.random() < 0.25:
            args += ["--block-size", str(rng.choice([16, 32, 128]))]
        if rng.random() < 0.25 and "--attention-backend" in table:
            args += ["--attention-backend", "CPU_MLA"]
        if rng.random() < 0.15:
            args += ["-pp", "2"]
        cases.append(launch_case(root, f"x{i}", name, config, args))
    return cases


run = generated_launches("kvg-amx-", generate)


@pytest.mark.parametrize("amx", ["1", "0"])
@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.22.0", also=("0.24.0",)))
def test_cpu_amx_branches_agree_with_real_vllm(version, amx, monkeypatch):
    # the oracle (its subprocess inherits the variable) and kvguard's host (oracle_host) read the same answer
    monkeypatch.setenv("KVG_ORACLE_CPU_AMX", amx)
    report = run(version, int(os.environ.get("KVG_AMX_CASES", "8")), int(os.environ.get("KVG_AMX_SEED", "0")))
    check_launch_report(report, "cpu-amx" if amx == "1" else "cpu-no-amx",
                        "CPU platform, AMX" if amx == "1" else "CPU platform, no AMX")


if __name__ == "__main__":
    launches_main(__doc__, run)
