"""Differential test of the dtype read from a checkpoint's safetensors headers (kvguard.facts.weights_dtype).

Local model directories hold a config.json naming no dtype (gpt-oss-20b as published; Qwen3-8B with its dtype
removed) and small safetensors files written by hand (tests/upstream/quant_verify_runner.write_safetensors: a header
with chosen dtypes, one-element tensors): mixed BF16 / U8 shards as gpt-oss's, F16 with I32 as an AWQ export's, a
single dtype, float32 beside bfloat16, FP8 with float32 scales, integers only, no weights at all, a tie (F16 and
BF16, also through ``__metadata__``), a name the pinned safetensors does not map, a tensor in two files, files
vLLM's glob does not see (a sub-directory, another suffix).  The release's own ``ModelConfig`` (gpt-oss: the whole
``create_engine_config``, so that VllmConfig's activation-dtype check of the MXFP4 method runs on the dtype read)
builds each directory in the oracle; kvguard reads the same directory.  Compared: the model dtype ModelConfig ends
with against kvguard's weights dtype as ``--dtype auto`` resolves it on the default host (bfloat16 / float16 stay,
anything else becomes the preferred bfloat16), and for gpt-oss the verdict (VC_quant_act_dtype).  A case kvguard
leaves open is counted apart, never as agreement.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.18.0 0.33.0": the first, 0.18.0 when listed, the
last): before 0.18.0 a local directory gets no metadata (the dtype is float32), from 0.18.0 its headers
are read.  KVG_WEIGHTS_DTYPE_SETS weight sets (default 6, 18 cases; 0.10.2-0.17.1 wait out the Hub client's retry,
2 s a case); ``python -m tests.upstream.test_weights_dtype V…`` runs all 14 and prints the figures.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tempfile

import pytest

import kvguard
from kvguard import catalog
from kvguard.launch.layout import Host

from ._oracle import oracle_or_skip, release_sample, run_runner
from .quant_verify_runner import write_safetensors

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.18.0 0.33.0").split()

_SHARDS = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")

#: name -> the safetensors files of a model directory ({file: {"tensors": {name: dtype}, "metadata": …}})
WEIGHTS: dict[str, dict] = {
    "bf16-u8-shards": {_SHARDS[0]: {"tensors": {"model.embed_tokens.weight": "BF16",
                                                "model.layers.0.mlp.experts.gate_up_proj_blocks": "U8"}},
                       _SHARDS[1]: {"tensors": {"model.layers.0.mlp.experts.gate_up_proj_scales": "U8",
                                                "lm_head.weight": "BF16"}}},
    "f16-i32": {"model.safetensors": {"tensors": {"a.qweight": "I32", "a.qzeros": "I32", "a.scales": "F16"}}},
    "f32-bf16": {"model.safetensors": {"tensors": {"a": "BF16", "norm": "F32"}}},
    "no-weights": {},
    "tie-f16-bf16": {"model.safetensors": {"tensors": {"a": "F16", "b": "BF16"}}},
    "unseen-files": {"original/model.safetensors": {"tensors": {"a": "F32"}},
                     "model.safetensors.bak": {"tensors": {"a": "F32"}},
                     "model.safetensors": {"tensors": {"a": "F16"}}},
    "bf16": {"model.safetensors": {"tensors": {"a": "BF16"}, "metadata": {"format": "pt"}}},
    "f16": {"model.safetensors": {"tensors": {"a": "F16", "b": "F16"}}},
    "fp8-f32-bf16": {"model.safetensors": {"tensors": {"w": "F8_E4M3", "w_scale": "F32", "e": "BF16"}}},
    "fp8-bf16": {"model.safetensors": {"tensors": {"w": "F8_E4M3", "e": "BF16"}}},
    "ints": {"model.safetensors": {"tensors": {"a": "I32", "b": "U8", "c": "BOOL"}}},
    "tie-through-metadata": {"model.safetensors": {"tensors": {"a": "BF16"}, "metadata": {"format": "pt",
                                                                                          "dtype": "F16"}}},
    "unmapped-e8m0": {"model.safetensors": {"tensors": {"a": "BF16", "s": "F8_E8M0"}}},
    "same-name-two-dtypes": {_SHARDS[0]: {"tensors": {"a": "F16"}}, _SHARDS[1]: {"tensors": {"a": "BF16"}}},
}


def _configs() -> list[tuple[str, dict, bool]]:
    """(name, config.json naming no dtype, whether the whole engine config is built)."""
    entries = {e.id: e.config for e in catalog.entries()}
    plain = {k: v for k, v in entries["Qwen/Qwen3-8B"].items() if k not in ("torch_dtype", "dtype")}
    oss = entries["openai/gpt-oss-20b"]
    assert "torch_dtype" not in oss and "dtype" not in oss
    return [("qwen3-8b", plain, False), ("gpt-oss-20b", oss, True)]


def generate(sets: "int | None" = None) -> list[dict]:
    """The cases of the first ``sets`` weight sets (all: None)."""
    cases = []
    for name, config, whole in _configs():
        for weights, files in list(WEIGHTS.items())[:sets]:
            for quantization in ((None, "mxfp4") if whole else (None,)):
                cases.append({"id": f"{name}-{weights}-{quantization}", "config": copy.deepcopy(config),
                              "safetensors": copy.deepcopy(files), "quantization": quantization, "dtype": None,
                              "allow_deprecated_quantization": False, "vllm_config": whole})
    return cases


def _resolved(weights_dtype: str) -> str:
    """``--dtype auto`` of a config dtype on the default host (and the x86 CPU oracle): bfloat16 and float16 are
    supported as they are; float32 and any other dtype become the preferred bfloat16 (not a pooling model)."""
    return weights_dtype if weights_dtype in ("bfloat16", "float16") else "bfloat16"


def kvguard_side(case: dict, version: str) -> dict:
    """kvguard on a directory holding the case's files: the weights dtype (None: open) and the verdict."""
    with tempfile.TemporaryDirectory(prefix="kvg-wd-") as work:
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        for name, spec in case["safetensors"].items():
            os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
            write_safetensors(os.path.join(work, name), spec.get("tensors", {}), spec.get("metadata"))
        facts = kvguard.model_facts(work, vllm_version=version, model_path=work)
        verdict = kvguard.check(work, vllm_version=version, host=Host.standard(), model_path=work,
                                quantization=case["quantization"])
    out: dict = {"dtype": facts.weights_dtype, "why": facts.weights_dtype_unknown}
    if not verdict.ok and verdict.check == "VC_quant_act_dtype":
        out["verdict"] = {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                          "wrapped_by": verdict.wrapped_by}
    elif any(s.check == "VC_quant_act_dtype" for s in verdict.skipped):
        out["verdict"] = None
    else:
        out["verdict"] = {"ok": True}
    return out


def _oracle_verdict(rec: dict) -> dict:
    if rec["stage"] == "ok":
        return {"ok": True}
    return {"ok": False, "exc_type": rec.get("exc_type"), "message": rec.get("message"),
            "wrapped_by": rec.get("wrapped_by")}


def compare(version: str, cases: list[dict], records: list[dict]) -> dict:
    out: dict = {"version": version, "agree": 0, "undecided": 0, "disagree": [], "undecided_cases": []}
    for case, rec in zip(cases, records):
        got = kvguard_side(case, version)
        if got["dtype"] is None:
            out["undecided"] += 1
            out["undecided_cases"].append({"id": case["id"], "why": got["why"], "oracle": rec.get("dtype")})
            continue
        problems = []
        if rec["stage"] == "ok" and rec["dtype"] != f"torch.{_resolved(got['dtype'])}":
            problems.append(f"dtype: oracle {rec['dtype']}, kvguard {got['dtype']}")
        if case["vllm_config"] and got["verdict"] is not None and got["verdict"] != _oracle_verdict(rec):
            problems.append(f"verdict: oracle {_oracle_verdict(rec)}, kvguard {got['verdict']}")
        if not case["vllm_config"] and rec["stage"] != "ok":
            problems.append(f"the oracle refused: {rec}")
        if problems:
            out["disagree"].append({"id": case["id"], "problems": problems})
        else:
            out["agree"] += 1
    return out


def run(version: str, sets: "int | None" = None) -> dict:
    python, python_env = oracle_or_skip(version)
    cases = generate(sets)
    return compare(version, cases, run_runner("quant_verify_runner.py", python, python_env, cases))


@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.10.2", also=("0.18.0",)))
def test_weights_dtype_agrees_with_real_vllm(version):
    report = run(version, int(os.environ.get("KVG_WEIGHTS_DTYPE_SETS", "6")))
    assert not report["disagree"], json.dumps(report["disagree"], indent=1)
    assert report["agree"] >= 10, report


if __name__ == "__main__":
    for v in sys.argv[1:]:
        r = run(v)
        print(v, f"agree {r['agree']} undecided {r['undecided']} disagree {len(r['disagree'])}")
        for d in r["disagree"]:
            print("  DISAGREE", d)
        for u in r["undecided_cases"]:
            print("  undecided", u)
