"""The model runner and async scheduling a release resolves for ``vllm serve MODEL -pp N`` of a sliding-window model
(0.26.0+), and the tokens in flight a sliding-window layer reserves then: kvguard vs the release's own VllmConfig.

Inputs are real sliding-window checkpoints' configs (gpt-oss, Gemma 2 / 3, Mistral, Qwen2, Llama, from kvguard's
catalog and tests/data/length_configs.json; their ``quantization_config`` removed: the CPU oracle refuses MXFP4 /
FP8 checkpoints, and no release's runner or async-scheduling choice reads it) and mutations: an expert count added
to a dense config (``ModelConfig.is_moe`` then holds, which 0.26.0-0.28.0's default runner choice reads), ``-pp``
2-4 and ``-tp`` 1-2 within one 8-GPU node, ``VLLM_USE_V2_MODEL_RUNNER`` unset / 0 / 1, ``--no-async-scheduling``
or not, ``--max-num-batched-tokens``.  ``tests/upstream/pp_runner_runner.py`` builds the release's own
``VllmConfig`` with ``EngineArgs(...).create_engine_config()`` (see there what stands in for the CUDA host) and
records ``use_v2_model_runner``, the resolved ``async_scheduling``, ``max_concurrent_batches`` and
``max_in_flight_tokens``; kvguard's are :func:`kvguard.kv.capacity.serve_pp_runner` and
:func:`kvguard.kv.capacity.in_flight_tokens` on the model facts kvguard derives from the config.  Every
mismatch fails; a case kvguard declines is counted apart.

Releases: those of KVG_ORACLE_VERSIONS from 0.26.0 on (default "0.26.0 0.33.0").  Size: KVG_PPRUNNER_CASES (default 16), seed
KVG_DIFF_SEED (default 5).  ``python -m tests.upstream.test_pp_runner [N] [SEED]`` runs 0.26.0-0.33.0.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
from pathlib import Path

import pytest

from kvguard import catalog
from kvguard.errors import CapacityNotModelled
from kvguard.kv.capacity import in_flight_tokens, serve_pp_runner
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

from ._oracle import oracle_or_skip, run_runner

pytestmark = pytest.mark.upstream

#: the releases asked for that have the choice (0.26.0 on); CI's KVG_ORACLE_VERSIONS names every group release
VERSIONS = [v for v in os.environ.get("KVG_ORACLE_VERSIONS", "0.26.0 0.33.0").split()
            if resolve(v).within("0.26.0")] or ["0.33.0"]
RELEASES = ("0.26.0", "0.27.0", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")
DATA = Path(__file__).resolve().parents[1] / "data" / "length_configs.json"
_CATALOG = ("openai/gpt-oss-20b", "openai/gpt-oss-120b", "Qwen/Qwen2.5-72B-Instruct", "meta-llama/Llama-3.1-8B-Instruct",
            "mistralai/Mistral-7B-Instruct-v0.3")
_LENGTH = ("google/gemma-3-1b-it", "google/gemma-2-9b-it", "mistralai/Mistral-7B-v0.1", "Qwen/Qwen2.5-7B-Instruct+yarn")
_EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")


def bases() -> list[dict]:
    out = [{"id": e.id, "config": e.config} for e in catalog.entries() if e.id in _CATALOG]
    out += [c for c in json.loads(DATA.read_text())["configs"] if c["id"] in _LENGTH]
    assert len(out) == len(_CATALOG) + len(_LENGTH), "a base config went missing"
    for base in out:
        base["config"] = {k: v for k, v in base["config"].items() if k != "quantization_config"}
    return out


def generate(seed: int, n: int) -> list[dict]:
    rng = random.Random(seed)
    pool = bases()
    cases = []
    for i in range(n):
        base = rng.choice(pool)
        cfg = copy.deepcopy(base["config"])
        moe = ""
        if not any(cfg.get(k) for k in _EXPERT_KEYS) and rng.random() < 0.3:
            moe = rng.choice(_EXPERT_KEYS)
            cfg[moe] = rng.choice((2, 8))
        pp = rng.choice((2, 3, 4))
        tp = rng.choice((1, 2)) if pp <= 4 else 1
        env = rng.choice(({}, {}, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}))
        cases.append({"id": f"{i}:{base['id']}{'+' + moe if moe else ''}", "config": cfg, "pp": pp, "tp": tp,
                      "env": env, "async_scheduling": rng.choice((None, None, False)),
                      "max_num_batched_tokens": rng.choice((2048, 8192, 16384)), "max_model_len": 4096})
    return cases


def kvguard_view(case: dict, version: str) -> dict:
    facts = model_facts(case["config"], vllm_version=version, env=case["env"])
    v2, async_on, _ = serve_pp_runner(version, architectures=facts.architectures, is_moe=facts.is_moe, pp=case["pp"],
                                      env=case["env"], async_scheduling=case["async_scheduling"])
    tokens = in_flight_tokens(version, case["max_num_batched_tokens"], async_on, case["pp"], v2)
    return {"use_v2_model_runner": v2, "async_scheduling": async_on,
            "max_concurrent_batches": tokens // case["max_num_batched_tokens"], "max_in_flight_tokens": tokens}


def run(version: str, n: int, seed: int) -> dict:
    python, python_env = oracle_or_skip(version)
    cases = generate(seed, n)
    records = {r["id"]: r for r in run_runner("pp_runner_runner.py", python, python_env, cases)}
    counts = {"agree": 0, "disagree": 0, "declined": 0, "oracle_errors": 0}
    mismatches = []
    for case in cases:
        rec = records[case["id"]]
        if rec["stage"] != "ok":
            counts["oracle_errors"] += 1
            mismatches.append({"id": case["id"], "oracle": rec})
            continue
        want = {k: rec[k] for k in ("use_v2_model_runner", "async_scheduling", "max_concurrent_batches",
                                    "max_in_flight_tokens")}
        try:
            got = kvguard_view(case, version)
        except CapacityNotModelled:
            counts["declined"] += 1
            continue
        if got == want:
            counts["agree"] += 1
        else:
            counts["disagree"] += 1
            mismatches.append({"id": case["id"], "pp": case["pp"], "tp": case["tp"], "env": case["env"],
                               "async_scheduling": case["async_scheduling"], "oracle": want, "kvguard": got})
    return {"version": version, "seed": seed, "counts": counts, "mismatches": mismatches}


@pytest.mark.parametrize("version", VERSIONS)
def test_pp_runner_agrees_with_real_vllm(version):
    report = run(version, int(os.environ.get("KVG_PPRUNNER_CASES", "16")), int(os.environ.get("KVG_DIFF_SEED", "5")))
    print(f"\nvLLM {version}: {report['counts']}")
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)
    assert report["counts"]["agree"] > 0


def test_generator_varies_what_the_choice_reads():
    cases = generate(5, 60)
    assert {c["pp"] for c in cases} == {2, 3, 4}
    assert {c["env"].get("VLLM_USE_V2_MODEL_RUNNER") for c in cases} == {None, "0", "1"}
    assert {c["async_scheduling"] for c in cases} == {None, False}
    assert any("+" in c["id"] for c in cases)    # an expert count added to a dense config
    assert any("gpt-oss" in c["id"] for c in cases)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    for release in RELEASES:
        print(json.dumps(run(release, n, seed)["counts"]), release, flush=True)
