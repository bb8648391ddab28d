"""ModelConfig's quantization checks: kvguard vs the release's own ModelConfig, on generated inputs.

Inputs: real checkpoints' configs (kvguard's catalog: unquantized, FP8, AWQ, compressed-tensors; plus a
GPTQ and a few variants of the quantization config: no ``quant_method``, an upper-case or
``compressed_tensors`` spelling, a method the release does not know, a deprecated one) crossed with
``--quantization`` values (none, the release's methods, a few it does not know) and
``--allow-deprecated-quantization``.  ``tests/upstream/quant_verify_runner.py`` builds
``ModelConfig(model=dir, quantization=…)`` in the release's oracle (the quantization modules see CUDA
with compute capability 9.0: the default host); kvguard must give the same refusal (exception type,
message, pydantic wrapping), or accept when ModelConfig accepts.  A case kvguard leaves undecided (a
skipped ``MC_quant_*`` check) is counted apart, never as agreement; every mismatch fails.

A second differential builds the whole ``create_engine_config`` (``vllm_config``) for FP8 / AWQ / GPTQ /
unquantized checkpoints of several config dtypes × ``--quantization`` × ``--dtype``: VllmConfig's
activation-dtype refusal (``VC_quant_act_dtype``) must agree; an oracle refusal elsewhere (the CPU oracle
host) with kvguard passing these checks is counted apart (``oracle_other``).

Releases: KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0").  Size: KVG_QVERIFY_CASES (default 16) and
KVG_QVERIFY_DTYPE_CASES (default 12) per release; ``python -m tests.upstream.test_quant_verify V1 V2 …`` runs
more (80 and 40).  Reports:
KVG_DIFF_REPORT_DIR/qverify-<release>.json and qverify-dtype-<release>.json.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys

import pytest

import kvguard
from kvguard import catalog
from kvguard.launch.layout import Host
from kvguard.quant.verify import methods
from kvguard.rules.check import resolve_release

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()

_BASES = ("Qwen/Qwen3-8B", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen/Qwen3-30B-A3B-FP8")
_GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
_NOT_METHODS = ("foo", "FP8", "awq-marlin", "bitsandbytes", "gguf", "ipex", "cpu_awq", "deepspeedfp")


def _configs() -> list[tuple[str, dict]]:
    entries = {e.id: e.config for e in catalog.entries()}
    out = [(name, entries[name]) for name in _BASES]
    plain = entries["Qwen/Qwen3-8B"]
    out.append(("gptq", dict(plain, quantization_config=dict(_GPTQ))))
    out.append(("no-method", dict(plain, quantization_config={"bits": 4})))
    out.append(("upper-FP8", dict(plain, quantization_config={"quant_method": "FP8", "activation_scheme": "dynamic"})))
    out.append(("ct-underscore", dict(plain, quantization_config={"quant_method": "compressed_tensors",
                                                                    "config_groups": {}})))
    out.append(("unknown-method", dict(plain, quantization_config={"quant_method": "bogus"})))
    out.append(("fbgemm", dict(plain, quantization_config={"quant_method": "fbgemm_fp8"})))
    out.append(("compression-config", dict(plain, compression_config={"quant_method": "compressed-tensors"})))
    return out


def generate(seed: int, version: str, n: int) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    known, deprecated = methods(resolve_release(version))
    users = [None, None, *known, *deprecated, *_NOT_METHODS, "fp8", "awq", "gptq", "compressed-tensors"]
    configs = _configs()
    cases = []
    for i in range(n):
        name, cfg = configs[i % len(configs)] if i < len(configs) else rng.choice(configs)
        user = rng.choice(users)
        cases.append({"id": f"{i}-{name}-{user}", "config": copy.deepcopy(cfg), "quantization": user,
                      "allow_deprecated_quantization": rng.random() < 0.25})
    return cases


def _oracle_view(rec: dict) -> dict:
    if rec["stage"] == "ok":
        return {"ok": True}
    return {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"], "wrapped_by": rec.get("wrapped_by")}


def kvguard_view(case: dict, version: str) -> "dict | None":
    """kvguard's answer for ModelConfig, None when kvguard leaves it undecided."""
    fields = {"quantization": case["quantization"]}
    if case["allow_deprecated_quantization"] and resolve_release(version).within("0.14.0"):
        fields["allow_deprecated_quantization"] = True
    verdict = kvguard.check(case["config"], vllm_version=version, host=Host.standard(), **fields)
    if not verdict.ok and verdict.stage == "model_config":
        return {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                "wrapped_by": verdict.wrapped_by}
    if any(s.check.startswith("MC_quant") for s in verdict.skipped):
        return None
    return {"ok": True}


def compare(version: str, cases: list[dict], records: list[dict]) -> dict:
    out = {"version": version, "agree": 0, "undecided": 0, "disagree": [], "undecided_cases": []}
    for case, rec in zip(cases, records):
        want = _oracle_view(rec)
        got = kvguard_view(case, version)
        if got is None:
            out["undecided"] += 1
            out["undecided_cases"].append({"id": case["id"], "oracle": want})
        elif got == want:
            out["agree"] += 1
        else:
            out["disagree"].append({"id": case["id"], "oracle": want, "kvguard": got})
    return out


def _source_lists(path: str) -> tuple[list, list]:
    """QuantizationMethods' literal values and DEPRECATED_QUANTIZATION_METHODS of a release's source."""
    import ast

    tree = ast.parse(open(path, encoding="utf-8").read())
    names: list = []
    deprecated: list = []
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        if target == "QuantizationMethods" and isinstance(value, ast.Subscript):
            items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            names = [item.value for item in items if isinstance(item, ast.Constant)]
        elif target == "DEPRECATED_QUANTIZATION_METHODS" and isinstance(value, ast.List):
            deprecated = [item.value for item in value.elts if isinstance(item, ast.Constant)]
    return names, deprecated


def test_method_lists_match_the_release_sources():
    """kvguard/data/quant_methods.json against each release's vllm/model_executor/layers/quantization/__init__.py
    (the unpacked sources of the oracle)."""
    from kvguard.versions import KNOWN_RELEASES

    root = os.path.join(os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle")),
                        "releases")
    checked = 0
    for version in KNOWN_RELEASES:
        path = os.path.join(root, version, "vllm", "model_executor", "layers", "quantization", "__init__.py")
        if not os.path.exists(path):
            continue
        assert methods(resolve_release(version)) == _source_lists(path), version
        checked += 1
    if not checked:
        pytest.skip(f"no release sources under {root}")


# ---------------------------------------------------------------------------
# VllmConfig._get_quantization_config: the activation-dtype refusal (the whole create_engine_config in the oracle)

_QUANT_IDS = ("MC_quant_mismatch", "MC_quant_unknown", "MC_quant_deprecated", "VC_quant_act_dtype")
_QUANT_MESSAGES = ("Quantization method specified in the model config", "Unknown quantization method",
                   "('The quantization method", " is not supported for quantization method ")
_DTYPES = ("auto", "auto", "float16", "bfloat16", "float32", "half", "float")


def _dtype_configs() -> list[tuple[str, dict]]:
    entries = {e.id: e.config for e in catalog.entries()}
    awq, fp8 = entries["Qwen/Qwen2.5-72B-Instruct-AWQ"], entries["Qwen/Qwen3-32B-FP8"]
    plain = entries["Qwen/Qwen3-8B"]
    gptq = dict(plain, quantization_config=dict(_GPTQ))
    out = [("fp8", fp8), ("plain", plain)]
    for dtype in ("float16", "bfloat16", None):
        out.append((f"awq-{dtype}", dict(awq, torch_dtype=dtype) if dtype else awq))
        out.append((f"gptq-{dtype}", dict(gptq, torch_dtype=dtype) if dtype else gptq))
    out.append(("awq-g256-bfloat16", dict(awq, torch_dtype="bfloat16",
                                          quantization_config=dict(awq["quantization_config"], group_size=256))))
    return out


def generate_dtype(seed: int, version: str, n: int) -> list[dict]:
    rng = random.Random(f"dtype-{seed}-{version}")
    users = [None, None, "awq", "gptq", "awq_marlin", "gptq_marlin", "marlin", "fp8", "auto_awq", "auto_gptq"]
    configs = _dtype_configs()
    cases = []
    for i in range(n):
        name, cfg = configs[i % len(configs)] if i < len(configs) else rng.choice(configs)
        user, dtype = rng.choice(users), rng.choice(_DTYPES)
        cases.append({"id": f"d{i}-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                      "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                      "vllm_config": True})
    return cases + online_dtype_cases() if n else cases


def online_dtype_cases() -> list[dict]:
    """Online FP8 (``--quantization fp8`` of an unquantized checkpoint, bfloat16 and float16 configs) at every
    ``--dtype``: the online config's activation dtypes."""
    plain = {e.id: e.config for e in catalog.entries()}["Qwen/Qwen3-8B"]
    cases = []
    for name, cfg in (("plain", plain), ("plain-float16", dict(plain, torch_dtype="float16"))):
        for user in ("fp8", "FP8"):
            for dtype in ("auto", "float16", "bfloat16", "float32", "half", "float"):
                if user == "FP8" and dtype not in ("auto", "float32"):
                    continue
                cases.append({"id": f"online-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                              "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                              "vllm_config": True})
    return cases


def _oracle_quant_view(rec: dict) -> "dict | str":
    if rec["stage"] == "ok":
        return {"ok": True}
    if any(m in rec["message"] for m in _QUANT_MESSAGES):
        return _oracle_view(rec)
    return "other"


def kvguard_quant_view(case: dict, version: str) -> "dict | None":
    verdict = kvguard.check(case["config"], vllm_version=version, host=Host.standard(),
                            quantization=case["quantization"], dtype=case["dtype"] or "auto")
    if not verdict.ok and verdict.check in _QUANT_IDS:
        return {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                "wrapped_by": verdict.wrapped_by}
    if any(s.check in _QUANT_IDS for s in verdict.skipped):
        return None
    return {"ok": True}


def compare_dtype(version: str, cases: list[dict], records: list[dict]) -> dict:
    out = {"version": version, "agree": 0, "undecided": 0, "oracle_other": 0, "disagree": [], "undecided_cases": []}
    for case, rec in zip(cases, records):
        want = _oracle_quant_view(rec)
        got = kvguard_quant_view(case, version)
        if got is None:
            out["undecided"] += 1
            out["undecided_cases"].append({"id": case["id"], "oracle": want})
        elif want == "other" and got == {"ok": True}:
            out["oracle_other"] += 1  # vLLM refused elsewhere (the CPU oracle host); these checks passed
        elif got == want:
            out["agree"] += 1
        else:
            out["disagree"].append({"id": case["id"], "oracle": want if want != "other" else rec, "kvguard": got})
    return out


def run_both(version: str, n: int, n_dtype: int, seed: int) -> tuple[dict, dict]:
    """Both kinds of case through one oracle start (the release's import dominates the cost)."""
    python, python_env = _python(version)
    cases, dtype_cases = generate(seed, version, n), generate_dtype(seed, version, n_dtype)
    records = run_runner("quant_verify_runner.py", python, python_env, cases + dtype_cases)
    return (compare(version, cases, records[:len(cases)]),
            compare_dtype(version, dtype_cases, records[len(cases):]))


@pytest.mark.parametrize("version", VERSIONS)
def test_quant_checks_agree_with_real_vllm(version):
    report, dtype_report = run_both(version, int(os.environ.get("KVG_QVERIFY_CASES", "16")),
                                    int(os.environ.get("KVG_QVERIFY_DTYPE_CASES", "12")),
                                    int(os.environ.get("KVG_DIFF_SEED", "7")))
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        os.makedirs(out, exist_ok=True)
        for name, rep in ((f"qverify-{version}.json", report), (f"qverify-dtype-{version}.json", dtype_report)):
            with open(os.path.join(out, name), "w") as fh:
                json.dump(rep, fh, indent=1)
    for rep in (report, dtype_report):
        assert not rep["disagree"], json.dumps(rep["disagree"][:5], indent=1)
        assert rep["agree"] > 0


if __name__ == "__main__":
    part = os.environ.get("KVG_QVERIFY_PART", "both")
    for v in sys.argv[1:] or VERSIONS:
        r, d = run_both(v, int(os.environ.get("KVG_QVERIFY_CASES", "80")) if part != "act_dtype" else 0,
                        int(os.environ.get("KVG_QVERIFY_DTYPE_CASES", "40")) if part != "model_config" else 0,
                        int(os.environ.get("KVG_DIFF_SEED", "7")))
        if part != "act_dtype":
            print(v, "model_config: agree", r["agree"], "undecided", r["undecided"], "disagree", len(r["disagree"]))
            for case in r["disagree"][:6]:
                print("  ", json.dumps(case)[:600])
        if part != "model_config":
            print(v, "act_dtype: agree", d["agree"], "undecided", d["undecided"], "oracle_other", d["oracle_other"],
                  "disagree", len(d["disagree"]))
            for case in d["disagree"][:6]:
                print("  ", json.dumps(case)[:700])
