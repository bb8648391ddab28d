"""Differential test of the kernel-selection options: kvguard vs the real release's ``vllm serve`` path.

Seeded launches with ``--moe-backend`` (0.17.0+; valid names, names in another case or with dashes, a
name no release offers) and ``--all2all-backend`` (0.11.1+; the default, explicit backends, the removed
pplx / naive, moonep, the CLI-hidden passthrough), with tp / expert parallel, over MoE and dense catalog
checkpoints and a DeepSeek-V4 config (the architecture the FlashInfer MoE-EP DeepGEMM backend is kept
for).  Each launch runs in the release's oracle through ``tests/upstream/serve_runner.py`` (its own
parser, EngineArgs and ``create_engine_config`` on the CPU platform) and through
:func:`kvguard.front.examine` with the oracle's host: the verdicts must agree — accepted, or the same
exception type, message and pydantic wrapping; for an argparse refusal the same error line.  Model
construction (DeepSeek-V4's MegaMoE refusal) is not part of this path: the CPU oracle builds no model.

Releases: KVG_ORACLE_VERSIONS (default "0.16.0 0.29.0 0.33.0"); KVG_KERNEL_CASES launches per release
(default 16); seed KVG_KERNEL_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``kernel-<release>.json``.
Run directly for a full report: ``python -m tests.upstream.test_kernel_backends --vllm 0.33.0 --cases 80``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from .test_speculative import _config, compare_launches  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.16.0 0.29.0 0.33.0").split()

#: MoE and dense checkpoints of the catalog
TARGETS = ("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3", "mistralai/Mixtral-8x7B-v0.1")

#: DeepSeek-V4-Flash-like sizes, without a vision tower (the convertor keeps DeepseekV4ForCausalLM)
DSV4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
        "num_hidden_layers": 43, "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512,
        "vocab_size": 129280, "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1,
        "moe_intermediate_size": 2048, "index_topk": 512, "torch_dtype": "bfloat16"}

#: --moe-backend values: the FlashInfer MoE-EP backends of each line, vLLM's MegaMoE, ordinary ones,
#: spellings the parser normalises, and a name no release offers
_MOE = [None, None, "flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_deep_gemm",
        "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_cutedsl", "deep_gemm_mega_moe", "triton", "auto",
        "FlashInfer-MoE-EP-Mega-Deep-Gemm", "Triton", "bogus_backend"]
_A2A = [None, None, None, "allgather_reducescatter", "deepep_low_latency", "deepep_high_throughput", "naive",
        "pplx", "passthrough", "moonep"]


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    vt = tuple(int(x) for x in version.split("."))
    cases = []
    for i in range(n):
        target_name = rng.choice(TARGETS + ("dsv4", "dsv4"))
        config = dict(DSV4) if target_name == "dsv4" else _config(target_name)
        args: list[str] = []
        # each option only where the release defines it: serve_runner passes the model as --model, so an
        # unknown option's value would become the positional model there (a harness effect, not vLLM's)
        moe = rng.choice(_MOE)
        if moe is not None and vt >= (0, 17, 0):
            args += ["--moe-backend", moe]
        a2a = rng.choice(_A2A)
        if a2a is not None and vt >= (0, 11, 1):
            args += ["--all2all-backend", a2a]
        tp = rng.choice([1, 1, 2, 4])
        if tp != 1:
            args += ["-tp", str(tp)]
        if rng.random() < 0.4:
            args.append("--enable-expert-parallel")
        cases.append({"id": f"k{i}", "target": target_name, "config": config, "args": args,
                      "model_dir": os.path.join(root, f"c{i}", "model"), "files": {}})
    return cases


def run(version: str, n: int, seed: int) -> dict:
    root = tempfile.mkdtemp(prefix="kvg-kernel-")
    try:
        return compare_launches(version, seed, generate(seed, n, version, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_kernel_backends_agree_with_real_vllm(version):
    n = int(os.environ.get("KVG_KERNEL_CASES", "16"))
    seed = int(os.environ.get("KVG_KERNEL_SEED", "12"))
    report = run(version, n, seed)
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"kernel-{version}.json").write_text(json.dumps(report, indent=1, default=str))
    counts = report["counts"]
    print(f"\nvLLM {version} kernel backends: {counts}")
    assert counts.get("agree", 0) > 0
    assert counts.get("undecidable", 0) <= n // 3, report["undecidable"][:5]
    assert counts.get("oracle_env_failures", 0) <= max(1, n // 10)
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--vllm", nargs="+", required=True)
    ap.add_argument("--cases", type=int, default=80)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    for v in a.vllm:
        rep = run(v, a.cases, a.seed)
        print(v, rep["counts"], flush=True)
        if a.out:
            Path(a.out).mkdir(parents=True, exist_ok=True)
            (Path(a.out) / f"kernel-{v}.json").write_text(json.dumps(rep, indent=1, default=str))
