"""ModelConfig's maximum length: kvguard vs the release's own ModelConfig, on generated inputs.

Inputs are derived from real checkpoints' configs — kvguard's catalog (kvguard/catalog) and
tests/data/length_configs.json (RoPE-scaled, LongRoPE, sliding-window, Gemma 3, Command-R's
model_max_length, pooling models with their sentence-transformers / tokenizer files) — and mutations of
their length fields (the keys, RoPE type and factor, original_max_position_embeddings, the sliding
window, model_max_length), each with a ``--max-model-len`` around the derived maximum (or none, -1,
0, negative, huge), with and without ``--disable-sliding-window``, under environments with and without
``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` (0.10.2/0.11.0 also VLLM_USE_V1=0 with an XFORMERS backend).
``tests/upstream/length_runner.py`` builds ``ModelConfig(model=dir, max_model_len=…,
disable_sliding_window=…)`` in the release's oracle; kvguard must give the same refusal (exception
type, message, pydantic wrapping — the model-facts refusals included) or, when ModelConfig accepts,
the same ``max_model_len`` (:func:`kvguard.length.max_model_len`).  A case kvguard declares
undecidable is counted apart, never as agreement; every mismatch fails.  A length below 1 before
0.23.0 passes ModelConfig (what fails next depends on host defaults: kvguard declares the launch
undecidable); for those the ModelConfig-level answer (:func:`kvguard.length.resolve`) is compared and
counted as ``agree_model_config_only``.

Releases: KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0").  Size: KVG_LENGTH_CASES per release and
environment (default 40; ``python -m tests.upstream.test_length`` runs every release with more cases).
Reports: KVG_DIFF_REPORT_DIR/length-<release>.json.
"""

from __future__ import annotations

import copy
import json
import os
import random
import tempfile
from pathlib import Path

import pytest

import kvguard
from kvguard import catalog
from kvguard.errors import Undecidable
from kvguard.length import find_sidecar, resolve
from kvguard.length import max_model_len as kv_max_model_len
from kvguard.rules.check import resolve_release

from ._oracle import oracle_or_skip as _python
from ._oracle import release_sample, run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()
DATA = Path(__file__).resolve().parents[1] / "data" / "length_configs.json"

_ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "su", "deepseek_yarn")


def bases() -> list[dict]:
    """The real configs the inputs derive from: the catalog and the length configs."""
    out = [{"id": e.id, "config": e.config} for e in catalog.entries()]
    out += json.loads(DATA.read_text())["configs"]
    return out


def _text(cfg: dict) -> dict:
    return cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg


def mutate(rng: random.Random, cfg: dict) -> dict:
    """A variant of ``cfg`` with one or two length fields changed, as checkpoints have them."""
    cfg = copy.deepcopy(cfg)
    text = _text(cfg)
    for _ in range(rng.choice((1, 1, 2))):
        what = rng.choice(("factor", "type", "mpe", "sliding", "mml", "key", "ompe", "drop_rope", "null_factor"))
        rope = text.get("rope_scaling")
        if what == "factor" and isinstance(rope, dict):
            rope["factor"] = rng.choice((2, 2.0, 4.0, 8, 0.5, 32.0, 1.5))
        elif what == "null_factor" and isinstance(rope, dict):
            rope["factor"] = None
        elif what == "type":
            kind = rng.choice(_ROPE_TYPES)
            new = {"rope_type": kind, "factor": rng.choice((2.0, 4.0, 8.0))}
            if kind in ("yarn", "deepseek_yarn", "longrope", "llama3", "su") or rng.random() < 0.3:
                new["original_max_position_embeddings"] = rng.choice((2048, 4096, 8192, 32768))
            if kind in ("longrope", "su"):
                new.pop("factor", None)
                head = text.get("head_dim") or (text.get("hidden_size", 4096) // max(1, text.get("num_attention_heads", 32)))
                half = int(head * text.get("partial_rotary_factor", 1.0)) // 2
                new["long_factor"] = [1.0] * half
                new["short_factor"] = [1.0] * half
            if kind == "llama3":
                new.update(low_freq_factor=1.0, high_freq_factor=4.0)
            if rng.random() < 0.3 and "original_max_position_embeddings" in new:
                text["original_max_position_embeddings"] = new["original_max_position_embeddings"]
            text["rope_scaling"] = new
        elif what == "mpe" and "max_position_embeddings" in text:
            text["max_position_embeddings"] = rng.choice((2048, 4096, 8192, 32768, 40960, 131072, 1000000))
        elif what == "sliding":
            text["sliding_window"] = rng.choice((None, 0, 1024, 4096, 10**7))
        elif what == "mml":
            text["model_max_length"] = rng.choice((2048, 65536, 131072, 262144))
        elif what == "key":
            key = rng.choice(("n_positions", "seq_length", "max_seq_len", "max_sequence_length", "seq_len"))
            text[key] = rng.choice((1024, 2048, 8192, 10**6))
        elif what == "ompe":
            text["original_max_position_embeddings"] = rng.choice((2048, 4096))
        elif what == "drop_rope":
            text.pop("rope_scaling", None)
    return cfg


def mutate_files(rng: random.Random, files: dict) -> dict:
    """A variant of a pooling model's files: one dropped, a key missing, another length."""
    files = copy.deepcopy(files)
    what = rng.choice(("drop_tokenizer", "drop_encoder", "no_lower_case", "seq_len", "huge_tokenizer_len"))
    if what == "drop_tokenizer":
        files.pop("tokenizer_config.json", None)
    elif what == "drop_encoder":
        files.pop("sentence_bert_config.json", None)
    elif what == "no_lower_case" and "sentence_bert_config.json" in files:
        files["sentence_bert_config.json"].pop("do_lower_case", None)
    elif what == "seq_len" and "sentence_bert_config.json" in files:
        files["sentence_bert_config.json"]["max_seq_length"] = rng.choice((256, 1000, 100000))
    elif what == "huge_tokenizer_len" and "tokenizer_config.json" in files:
        files["tokenizer_config.json"]["model_max_length"] = 1000000000000000019884624838656  # tokenizers' "none"
    return files


def _around(rng: random.Random, derived) -> "int | None":
    if derived is None:
        return rng.choice((None, 2048, 4096, 32768, 131072))
    return rng.choice((None, None, -1, derived, derived, derived - 1, derived + 1, 2 * derived, derived // 2,
                       1, 0, -2, 10**9, rng.randint(1, 2 * derived + 2)))


def generate(seed: int, version: str, n: int) -> list[dict]:
    """``n`` cases, a third of them (at least 8) under an environment other than the default."""
    rng = random.Random(seed)
    # --dtype from its own stream (the other inputs stay those of earlier runs of the same seed): ModelConfig
    # checks it before the length (float16 for the model types it keeps off float16)
    dtype_rng = random.Random(f"{seed}-dtype")
    pool = bases()
    cases = []
    # one directory per case: vLLM caches what it reads beside config.json by the model path
    model_dir = os.path.join(tempfile.gettempdir(), f"kvg-length-{os.getpid()}-{seed}", "{i}")
    others = envs_for(version)[1:]
    for i in range(n):
        env = rng.choice(others) if rng.random() < 0.33 else {}
        base = pool[i % len(pool)] if i < len(pool) else rng.choice(pool)
        cfg = base["config"] if rng.random() < 0.35 else mutate(rng, base["config"])
        dsw = rng.random() < 0.25
        try:
            derived = kv_max_model_len(cfg, vllm_version=version, disable_sliding_window=dsw, env=env)
        except Exception:  # noqa: BLE001 - only picks interesting lengths; the oracle decides
            derived = None
        files = base.get("files") or {}
        if files and rng.random() < 0.5:
            files = mutate_files(rng, files)
        cases.append({"id": f"{base['id']}#{i}", "config": cfg, "files": files,
                      "max_model_len": _around(rng, derived), "disable_sliding_window": dsw, "env": env,
                      "model_dir": model_dir.format(i=i),
                      "dtype": dtype_rng.choice((None, None, None, "half", "float16", "bfloat16", "float32"))})
    return cases


def _view(rec: dict) -> dict:
    if rec["stage"] == "ok":
        return {"ok": True, "max_model_len": rec["max_model_len"]}
    out = {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"], "wrapped_by": rec.get("wrapped_by")}
    if rec.get("errors"):
        out["errors"] = [{"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"]} for e in rec["errors"]]
    return out


def kvguard_view(case: dict, version: str) -> tuple[dict, str]:
    """What kvguard says ModelConfig does with the case, and how far kvguard decides the launch:
    "launch", or "model_config" for a length below 1 before 0.23.0 (ModelConfig keeps it; kvguard
    declares the launch undecidable, and its ModelConfig-level answer is what is compared)."""
    env = case["env"]
    with tempfile.TemporaryDirectory(prefix="kvg-len-") as tmp:
        for name, content in case["files"].items():
            Path(tmp, name).parent.mkdir(parents=True, exist_ok=True)
            Path(tmp, name).write_text(json.dumps(content))
        model_dir = tmp if case["files"] else None
        try:
            verdict = kvguard.check(case["config"], vllm_version=version, env=env, model_dir=model_dir,
                                    model_path=case["model_dir"], max_model_len=case["max_model_len"],
                                    disable_sliding_window=case["disable_sliding_window"],
                                    dtype=case.get("dtype") or "auto")
        except Undecidable as exc:
            if "takes max_model_len" not in str(exc):
                raise
            facts = kvguard.model_facts(case["config"], vllm_version=version, env=env)
            out = resolve(facts, resolve_release(version), max_model_len=case["max_model_len"],
                          disable_sliding_window=case["disable_sliding_window"], env=env,
                          sidecar=find_sidecar(None, model_dir, None))
            return {"ok": True, "max_model_len": out.final}, "model_config"
        if not verdict.ok and verdict.stage == "model_config":
            out = {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                   "wrapped_by": verdict.wrapped_by}
            if verdict.exc_type == "ValidationError":
                out["errors"] = [{"type": e.type, "loc": list(e.loc), "msg": e.msg} for e in verdict.errors]
            return out, "launch"
        if any(s.check.startswith("MC_max_len") for s in verdict.skipped):
            raise Undecidable("; ".join(s.reason for s in verdict.skipped if s.check.startswith("MC_max_len")))
        final = kv_max_model_len(case["config"], vllm_version=version, env=env, model_dir=model_dir,
                                 max_model_len=case["max_model_len"],
                                 disable_sliding_window=case["disable_sliding_window"])
        return {"ok": True, "max_model_len": final}, "launch"


def compare(version: str, cases: list[dict], records: list[dict]) -> dict:
    by_id = {r["id"]: r for r in records}
    counts = {"agree": 0, "disagree": 0, "undecidable": 0, "oracle_env_failures": 0, "refusals_agreed": 0,
              "agree_model_config_only": 0}
    mismatches, undecided = [], []
    for case in cases:
        rec = by_id[case["id"]]
        if "failed to be inspected" in (rec.get("message") or ""):
            counts["oracle_env_failures"] += 1
            continue
        want = _view(rec)
        try:
            got, level = kvguard_view(case, version)
        except Undecidable as exc:
            counts["undecidable"] += 1
            undecided.append({"id": case["id"], "reason": str(exc)[:300], "oracle": want})
            continue
        if got == want:
            counts["agree"] += 1
            counts["refusals_agreed"] += not want["ok"]
            counts["agree_model_config_only"] += level == "model_config"
        else:
            counts["disagree"] += 1
            mismatches.append({"id": case["id"], "max_model_len": case["max_model_len"], "env": case["env"],
                               "disable_sliding_window": case["disable_sliding_window"], "oracle": want,
                               "kvguard": got, "config": case["config"]})
    return {"version": version, "counts": counts, "mismatches": mismatches, "undecidable": undecided}


def run(version: str, n: int, seed: int) -> dict:
    python, python_env = _python(version)
    cases = generate(seed, version, n)
    records = run_runner("length_runner.py", python, python_env, cases)
    return compare(version, cases, records)


def envs_for(version: str) -> list[dict]:
    out = [{}, {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}]
    if version in ("0.10.2", "0.11.0"):
        out.append({"VLLM_USE_V1": "0", "VLLM_ATTENTION_BACKEND": "XFORMERS"})
    return out


@pytest.mark.parametrize("version", VERSIONS)
def test_length_agrees_with_real_vllm(version):
    n = int(os.environ.get("KVG_LENGTH_CASES", "30"))
    seed = int(os.environ.get("KVG_DIFF_SEED", "7"))
    report = run(version, n, seed)
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"length-{version}.json").write_text(json.dumps(report, indent=1, default=str))
    counts = report["counts"]
    print(f"\nvLLM {version}: {counts}")
    assert not report["mismatches"], json.dumps(report["mismatches"][:3], indent=1, default=str)[:6000]
    assert counts["agree"] > 0
    # what kvguard cannot decide stays rare (lengths below 1 before 0.23.0, pooling models without files)
    assert counts["undecidable"] <= max(2, (counts["agree"] + counts["undecidable"]) // 5), report["undecidable"]


if __name__ == "__main__":   # the full run: every release, more cases, figures per release
    import argparse

    ap = argparse.ArgumentParser(description="full differential run of the maximum length")
    ap.add_argument("--versions", nargs="*", default=list(kvguard.KNOWN_RELEASES))
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    figures = {}
    for v in args.versions:
        rep = run(v, args.cases, args.seed)
        print(v, rep["counts"], flush=True)
        for m in rep["mismatches"][:5]:
            print("  MISMATCH", json.dumps({k: m[k] for k in ("id", "max_model_len", "env", "oracle", "kvguard")})[:900])
        for u in rep["undecidable"][:3]:
            print("  UNDECIDABLE", json.dumps(u)[:400])
        figures[v] = rep["counts"]
        if args.out:
            Path(args.out).write_text(json.dumps({"figures": figures}, indent=1))
    print(json.dumps(figures, indent=1))


#: catalog checkpoints whose text config class types ``sliding_window`` as ``int`` under transformers 5 (the
#: strict dataclass refuses ModelConfig's None), and two whose class takes None
_UNSET_BASES = ("google/gemma-4-26B-A4B", "nvidia/Gemma-4-31B-IT-NVFP4", "XiaomiMiMo/MiMo-V2-Flash",
                "deepseek-ai/DeepSeek-V4-Flash", "mistralai/Mistral-7B-Instruct-v0.3", "meta-llama/Llama-3.1-8B-Instruct")


def unset_cases() -> list[dict]:
    """--disable-sliding-window, and a window of 0, on the checkpoints of :data:`_UNSET_BASES`."""
    entries = {e.id: e.config for e in catalog.entries()}
    model_dir = os.path.join(tempfile.gettempdir(), f"kvg-length-unset-{os.getpid()}", "{i}")
    cases = []
    for name in _UNSET_BASES:
        if name not in entries:
            continue
        zero = copy.deepcopy(entries[name])
        _text(zero)["sliding_window"] = 0
        for tag, cfg, dsw, length in (("dsw", entries[name], True, None), ("dsw-len", entries[name], True, 2048),
                                      ("zero", zero, False, None)):
            i = len(cases)
            cases.append({"id": f"{name}#{tag}", "config": cfg, "files": {}, "max_model_len": length,
                          "disable_sliding_window": dsw, "env": {}, "model_dir": model_dir.format(i=i),
                          "dtype": None})
    return cases


# transformers 5 releases: the first, 0.28.0 (per-layer configs) and the last
@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.24.0", also=("0.28.0",)))
def test_unset_sliding_window_agrees(version):
    """ModelConfig's ``hf_text_config.sliding_window = None`` against transformers 5's strict config classes."""
    python, python_env = _python(version)
    cases = unset_cases()
    assert len(cases) == 3 * len(_UNSET_BASES)
    report = compare(version, cases, run_runner("length_runner.py", python, python_env, cases))
    print(f"\nvLLM {version}: {report['counts']}")
    assert not report["mismatches"], json.dumps(report["mismatches"][:3], indent=1, default=str)[:6000]
    assert report["counts"]["undecidable"] == 0, report["undecidable"]
    assert report["counts"]["agree"] == len(cases) and report["counts"]["refusals_agreed"] > 0
