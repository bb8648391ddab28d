"""Nemotron-H's first Mamba-2 mixer at model construction (kvguard.quant.nemotron_h) against the releases.

The oracle (tests/upstream/quant_runner.py) builds ``NemotronHForCausalLM`` on the meta device for configs derived
from nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B (Mamba heads, groups, the first layer's letter, a ModelOpt NVFP4
hf_quant_config.json beside config.json or none) at tp 1 – 32, and the outcome is compared with kvguard's.  kvguard
decides the embedding and layer 0's mixer asserts; where they hold, a quantized checkpoint stays undecided (counted
as such) and an unquantized one is accepted by the general rule, which the CPU oracle cannot check past a MoE layer:
its ``relu2`` experts are refused by the CPU platform only (``is_act_and_mul=False is supported only for CUDA, XPU and
ROCm for now``), counted apart as ``oracle_cpu_only`` (a CUDA host passes that check).

Run: ``python -m tests.upstream.test_nemotron_h V... [--configs N] [--seed S]``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys

import pytest

from kvguard import catalog

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner
from .test_quant import _kvguard_source, keep_report, kvguard_outcome

pytestmark = pytest.mark.upstream

BF16 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
NVFP4 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
#: the CPU platform's refusal of non-gated MoE activations (Nemotron-H's relu2 experts), which a CUDA host passes
CPU_ONLY = "is_act_and_mul=False is supported only for CUDA, XPU and ROCm for now"
TPS = (1, 2, 4, 8, 16, 32)


def _entry(model: str):
    return catalog.lookup(model)


def variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` cases: the Nano config with drawn Mamba heads / groups / first layer, a short pattern (the oracle builds
    every layer), quantized (ModelOpt NVFP4, the checkpoint's own hf_quant_config.json) or not."""
    bf16 = _entry(BF16)
    nvfp4 = _entry(NVFP4)
    cases = []
    for k in range(n):
        cfg = copy.deepcopy(dict(bf16.config))
        cfg.pop("auto_map", None)  # the release's own NemotronHConfig, not the checkpoint's remote code
        cfg["mamba_num_heads"] = rng.choice((64, 64, 48, 24, 40, 128, 8))
        cfg["n_groups"] = rng.choice((8, 8, 1, 2, 4, 16, 3, 6, 32))
        first = rng.choice("MMMMMM*E-")
        pattern = first + "".join(rng.choice("MEM*") for _ in range(3))
        cfg["hybrid_override_pattern"] = pattern
        cfg["num_hidden_layers"] = len(pattern)
        case = {"config": cfg}
        if k % 2:
            case["files"] = {"hf_quant_config.json": copy.deepcopy(dict(nvfp4.hf_quant_config))}
        case["layouts"] = [{"tp": tp} for tp in TPS]
        cases.append(case)
    return cases


def run(version: str, n: int, seed: int = 5) -> dict:
    python, python_env = _python(version)
    cases = variants(random.Random(seed * 1000 + 45), n)
    out = run_runner("quant_runner.py", python, python_env,
                     [{k: v for k, v in c.items() if k != "_dir"} for c in cases])
    counts = {"agree": 0, "agree_refused": 0, "disagree": 0, "undecided": 0, "oracle_cpu_only": 0,
              "oracle_setup_failures": 0}
    mismatches: list = []
    for case, res in zip(cases, out["results"]):
        if "setup_error" in res:
            counts["oracle_setup_failures"] += 1
            mismatches.append({"setup_error": res["setup_error"][:300],
                               "pattern": case["config"]["hybrid_override_pattern"]})
            continue
        for lay, rec in zip(case["layouts"], res["outcomes"]):
            mine = kvguard_outcome(_kvguard_source(case), {"tp": lay["tp"]}, version)
            theirs = (rec["ok"], rec.get("exc_type"), rec.get("message"))
            if mine is None:
                counts["undecided"] += 1
            elif mine == theirs:
                counts["agree"] += 1
                counts["agree_refused"] += not rec["ok"]
            elif mine == (True, None, None) and rec.get("message") == CPU_ONLY:
                counts["oracle_cpu_only"] += 1
            else:
                counts["disagree"] += 1
                mismatches.append({"tp": lay["tp"], "kvguard": mine, "oracle": theirs, "where": rec.get("where"),
                                   "quantized": bool(case.get("files")),
                                   "sizes": {k: case["config"][k] for k in ("mamba_num_heads", "n_groups",
                                                                             "hybrid_override_pattern")}})
    return {"version": version, "counts": counts, "mismatches": mismatches}


def check_report(report: dict) -> None:
    counts = report["counts"]
    keep_report(report, report["version"], "nemotron-h-construction")
    print(f"\nvLLM {report['version']}: Nemotron-H first mixer {json.dumps(counts)}")
    assert not report["mismatches"], json.dumps(report["mismatches"][:4], indent=1, default=str)
    assert counts["agree_refused"] > 0


def _sample() -> list[str]:
    from kvguard import SUPPORTED_VERSIONS

    # the first release decided, the releases around the 0.29.0 model change, and the last
    return [v for v in ("0.24.0", "0.28.0", "0.29.0", "0.33.0") if v in SUPPORTED_VERSIONS]


@pytest.mark.parametrize("version", _sample())
def test_nemotron_h_first_mixer_agrees(version):
    check_report(run(version, int(os.environ.get("KVG_NEMOTRON_H_CONFIGS", "4")),
                     int(os.environ.get("KVG_DIFF_SEED", "5"))))


if __name__ == "__main__":
    args = sys.argv[1:]
    n_configs, seed = 8, 5
    if "--configs" in args:
        i = args.index("--configs")
        n_configs = int(args[i + 1])
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    for v in args:
        rep = run(v, n_configs, seed)
        print(v, json.dumps(rep["counts"]), json.dumps(rep["mismatches"][:6], default=str))
