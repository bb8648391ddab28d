"""Differential test of ``VllmConfig.validate_mamba_block_size`` (kvguard.rules.mamba_block_size) against real
releases.

Generates seeded ``vllm serve`` launches of pure Mamba (Mamba, Falcon-Mamba), hybrid (Jamba, Qwen3-Next, Qwen3.5,
LFM2, an attention-only GraniteMoeHybrid), plain (Llama) and MLA models (DeepSeek-V2-Lite, Kimi-Linear, a hybrid
one) with ``--mamba-block-size`` more often than not (a size equal to the checkpoint's maximum length among them),
prefix caching and chunked prefill on, off or left to the release, ``--mamba-cache-mode``, ``--block-size``,
``--max-model-len``, ``--attention-backend CPU_MLA`` and a pipeline, and runs each through the release's own
``vllm serve`` path on the CPU platform (tests/upstream/serve_runner.py) and through kvguard with the oracle's host:
the verdicts must agree.  The oracle answers ``torch.cpu._is_amx_tile_supported()`` as ``KVG_ORACLE_CPU_AMX`` says
and kvguard is told the same host fact (``amx``); the pytest entry runs each release with both answers.  Launches
kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS from 0.11.1, the validator's first (default
"0.11.1 0.17.1 0.21.0 0.24.0 0.25.0 0.26.0 0.29.0 0.33.0"; the CI sample keeps the first, 0.24.0 and the last);
KVG_MBS_CASES launches per release and answer (default 6; the AMX answer only where the platform reads it); seed KVG_MBS_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps
``mamba-block-size-<release>.json`` and ``mamba-block-size-amx-<release>.json``.  Run directly for a full report
(with the answer the environment gives): ``python -m tests.upstream.test_mamba_block_size 0.11.1 0.33.0 --cases 60``.
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
from .test_mamba_cache import _granite_attention_only  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS",
                          "0.11.1 0.17.1 0.21.0 0.24.0 0.25.0 0.26.0 0.29.0 0.33.0").split()

#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "mamba": gen.gen_mamba,
    "falcon-mamba": gen.gen_falcon_mamba,
    "jamba": gen.gen_jamba,
    "qwen3-next": lambda rng: _config("Qwen/Qwen3-Next-80B-A3B-Instruct"),
    "qwen3.5": gen.gen_qwen3_5,
    "lfm2": gen.gen_lfm2,
    "granite-attention-only": _granite_attention_only,
    "llama": gen.gen_llama,
    "deepseek-v2-lite": lambda rng: _config("deepseek-ai/DeepSeek-V2-Lite"),
    "kimi-linear": lambda rng: _config("moonshotai/Kimi-Linear-48B-A3B-Instruct"),
}


def _names(version: str) -> list[str]:
    names = sorted(CHECKPOINTS)
    release = resolve(version)
    if not release.within("0.20.0"):
        # before 0.20.0 the hybrid set-up sizes the Mamba state from config keys the generated LFM2 config lacks
        # (tests/upstream/test_mamba_cache.py)
        names.remove("lfm2")
    if not release.within("0.17.0"):
        names.remove("qwen3.5")       # not registered yet
    return names


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"mbs-{seed}-{version}")
    table = option_table(resolve(version))
    modes = list(table["--mamba-cache-mode"].choices or ()) if "--mamba-cache-mode" in table else []
    names = _names(version)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        config = CHECKPOINTS[name](rng)
        length = config.get("max_position_embeddings")
        args = flag_switch(rng, table, "enable-chunked-prefill") + flag_switch(rng, table, "enable-prefix-caching")
        if rng.random() < 0.3:
            length = rng.choice([2048, 4096])
            args += ["--max-model-len", str(length)]
        if rng.random() < 0.75:
            sizes = [16, 64, 2048] + ([int(length)] if isinstance(length, int) else [])
            args += ["--mamba-block-size", str(rng.choice(sizes))]
        if modes and rng.random() < 0.25:
            args += ["--mamba-cache-mode", rng.choice(modes)]
        if rng.random() < 0.2:
            args += ["--block-size", str(rng.choice([16, 32, 128]))]
        if rng.random() < 0.2 and "--attention-backend" in table:
            args += ["--attention-backend", "CPU_MLA"]
        if rng.random() < 0.1:
            args += ["-pp", "2"]
        cases.append(launch_case(root, f"b{i}", name, config, args))
    return cases


run = generated_launches("kvg-mbs-", generate)


def _amx_matters(version: str) -> bool:
    """The releases whose CPU platform reads AMX tiles before the validator: the linear-attention branch
    (0.22.0 - 0.24.x) and the AMX MLA kernels (0.29.0+)."""
    release = resolve(version)
    return release.within("0.22.0", "0.24.0") or release.within("0.29.0")


@pytest.mark.parametrize(("version", "amx"), [
    (version, amx) for version in release_sample(VERSIONS, "0.11.1", also=("0.24.0",))
    for amx in ("0", "1") if amx == "0" or _amx_matters(version)])
def test_mamba_block_size_agrees_with_real_vllm(version, amx, monkeypatch):
    # the oracle (its subprocess inherits the variable) and kvguard's host (oracle_host) read the same answer
    monkeypatch.setenv("KVG_ORACLE_CPU_AMX", amx)
    report = run(version, int(os.environ.get("KVG_MBS_CASES", "6")), int(os.environ.get("KVG_MBS_SEED", "0")))
    check_launch_report(report, "mamba-block-size-amx" if amx == "1" else "mamba-block-size",
                        "--mamba-block-size, AMX CPU" if amx == "1" else "--mamba-block-size, CPU without AMX")


if __name__ == "__main__":
    launches_main(__doc__, run)
