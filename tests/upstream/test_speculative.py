"""Differential test of speculative decoding: kvguard vs the real release's ``vllm serve`` path.

Generates seeded launches with ``--speculative-config`` (JSON, dotted keys, ``-sc``, ``--spec-*``) over
target checkpoints of the catalog and drafts derived from real draft checkpoints' configs (EAGLE and
EAGLE-3 heads, a small draft model, a speculators-format EAGLE-3 head, a Medusa head, an MLP speculator, a
Qwen3 DSpark draft; DeepSeek-V4-Flash's own DSpark / MTP stages from 0.25.0; the catalog's draft entries when
present), with layouts (tp, pp, expert parallel, dcp) and ``--async-scheduling``.  Each launch runs in the
release's oracle through ``tests/upstream/serve_runner.py`` (its own parser, EngineArgs and
``create_engine_config`` on the CPU platform, the drafts written to the directories the launch names) and
through :func:`kvguard.front.examine` with the oracle's host (CPU platform, no GPUs): the verdicts
must agree — accepted, or the same exception type, message and pydantic wrapping; for an argparse
refusal the same error line.  Launches kvguard declares undecidable are counted, never compared.

Releases: KVG_ORACLE_VERSIONS (default "0.11.0 0.20.0 0.28.0 0.33.0"); KVG_SPEC_CASES launches per release
(default 24); seed KVG_SPEC_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``speculative-<release>.json``.  The catalog's
draft heads (hand-picked launches, ``--heads``) run on a sample of those releases (KVG_SPEC_HEADS_VERSIONS).
Run directly for a full report: ``python -m tests.upstream.test_speculative --vllm 0.28.0 --cases 150``.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard import catalog  # noqa: E402

from ._oracle import run_runner  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.11.0 0.20.0 0.28.0 0.33.0").split()

#: targets: catalog entries (their real config.json)
TARGETS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-R1",
           "deepseek-ai/DeepSeek-V3", "mistralai/Mistral-7B-Instruct-v0.3", "microsoft/phi-4")


def oracle_host(version: "str | None" = None) -> dict:
    """The oracle's host as kvguard states it: vLLM's CPU platform, no GPUs, no Ray/Triton/NIXL, AMX tiles as
    KVG_ORACLE_CPU_AMX makes the oracle answer (tests/upstream/oracle_runner.py cpu_amx_answer); with ``version``,
    the pydantic its oracle imports too (argparse's refusals of a config class name it: without it, undecidable)."""
    with open("/proc/meminfo") as fh:
        mem = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemTotal:"))
    host = {"platform": "cpu", "gpus_per_node": 0, "ray": False, "triton": False, "nixl": False,
            "cpu_memory_bytes": mem, "arctic_inference": False, "ipex": False,
            "amx": os.environ.get("KVG_ORACLE_CPU_AMX") == "1"}
    pydantic = oracle_pydantic(version) if version is not None else None
    if pydantic is not None:
        host["pydantic"] = pydantic
    return host


@functools.lru_cache(maxsize=None)
def oracle_pydantic(version: str) -> "str | None":
    """The major.minor of the pydantic the release's oracle imports (None without an oracle)."""
    from .differential import oracle_command

    found = oracle_command(version)
    if found is None:
        return None
    python, python_env = found
    proc = subprocess.run([python, "-c", "import pydantic.version as v; print(v.VERSION)"], capture_output=True,
                          text=True, env=dict(os.environ, **(python_env or {})), timeout=120)
    if proc.returncode != 0:
        return None
    return ".".join(proc.stdout.strip().split(".")[:2])


def _config(name: str) -> dict:
    entry = catalog.lookup(name)
    assert entry is not None, name
    cfg = copy.deepcopy(entry.config)
    cfg.pop("auto_map", None)  # the oracle reads the config as vLLM's own class, like kvguard's catalog copy
    return cfg


def _head(target: dict, *, eagle3: bool, layers: int = 1) -> dict:
    """A one-layer EAGLE / EAGLE-3 head of a target: the shape real heads have (yuhuili/EAGLE-LLaMA3.1-
    Instruct-8B, yuhuili/EAGLE3-LLaMA3.1-Instruct-8B: the target's hidden size, heads and vocabulary, one
    decoder layer, architectures LlamaForCausalLM / LlamaForCausalLMEagle3)."""
    text = target.get("text_config", target)
    head = {"architectures": ["LlamaForCausalLMEagle3" if eagle3 else "LlamaForCausalLM"], "model_type": "llama",
            "hidden_act": "silu", "hidden_size": text["hidden_size"],
            "intermediate_size": text.get("intermediate_size", 4 * text["hidden_size"]),
            "max_position_embeddings": 2048, "num_attention_heads": text["num_attention_heads"],
            "num_key_value_heads": text.get("num_key_value_heads", text["num_attention_heads"]),
            "num_hidden_layers": layers, "rms_norm_eps": 1e-05, "vocab_size": text["vocab_size"],
            "torch_dtype": "float16"}
    if eagle3:
        head["draft_vocab_size"] = 32000
    return head


def _small_draft(target: dict) -> dict:
    """A small draft model of the target's family and vocabulary (Llama-3.2-1B / Qwen3-0.6B shaped)."""
    text = target.get("text_config", target)
    if text.get("model_type") == "qwen3":
        return {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
                "intermediate_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                "num_hidden_layers": 28, "max_position_embeddings": 40960, "vocab_size": text["vocab_size"],
                "rms_norm_eps": 1e-06, "torch_dtype": "bfloat16"}
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
            "intermediate_size": 8192, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 16,
            "max_position_embeddings": 131072, "vocab_size": text["vocab_size"], "rms_norm_eps": 1e-05,
            "torch_dtype": "bfloat16"}


def _speculators(target_name: str, target: dict, tokens: int) -> dict:
    """A speculators-format EAGLE-3 head (the layout of RedHatAI's ``*-speculator.eagle3`` checkpoints)."""
    layer = _head(target, eagle3=False)
    layer.pop("architectures")
    layer.pop("torch_dtype")
    return {"architectures": ["Eagle3Speculator"], "draft_vocab_size": 32000, "norm_before_residual": True,
            "speculators_model_type": "eagle3", "speculators_version": "0.1.0",
            "speculators_config": {"algorithm": "eagle3", "default_proposal_method": "greedy",
                                   "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": tokens,
                                                         "accept_tolerance": 0.0, "verifier_accept_k": 1}],
                                   "verifier": {"architectures": target["architectures"],
                                                "name_or_path": target_name}},
            "target_hidden_size": None, "transformer_layer_config": layer}


def _medusa(target: dict) -> dict:
    """A Medusa head in vLLM's format (the config.json shape of abhigoyal/vllm-medusa-llama-68m-random, the
    head vLLM's own tests use: MedusaModel, hidden size, five heads, one residual layer, vocabulary) with the
    target's hidden size and vocabulary."""
    text = target.get("text_config", target)
    return {"architectures": ["MedusaModel"], "hidden_size": text["hidden_size"], "model_type": "medusa",
            "num_heads": 5, "num_hidden_layers": 1, "torch_dtype": "float32", "truncated_vocab_size": None,
            "vocab_size": text["vocab_size"]}


def _mlp_speculator(target: dict) -> dict:
    """An MLP speculator (the config.json shape of ibm-ai-platform/llama3-8b-accelerator: emb_dim, inner_dim,
    n_predict 4 with one top-k per head) with the target's hidden size and vocabulary."""
    text = target.get("text_config", target)
    return {"architectures": ["MLPSpeculatorPreTrainedModel"], "emb_dim": text["hidden_size"], "inner_dim": 3072,
            "model_type": "mlp_speculator", "n_candidates": 5, "n_predict": 4, "scale_input": True,
            "tie_weights": True, "top_k_tokens_per_head": [4, 3, 2, 2], "torch_dtype": "float16",
            "vocab_size": text["vocab_size"]}


def _dspark_qwen3(target: dict, block: int) -> dict:
    """A Qwen3DSparkModel draft (no public config.json copy was found: the target's Qwen3 attention geometry and
    vocabulary, one layer, and the keys vLLM's qwen3_dspark model and SpeculativeConfig read — markov_rank,
    dspark_block_size / block_size, optionally dspark_draft_topk)."""
    text = target.get("text_config", target)
    return {"architectures": ["Qwen3DSparkModel"], "model_type": "qwen3", "hidden_size": text["hidden_size"],
             "intermediate_size": text["intermediate_size"], "num_attention_heads": text["num_attention_heads"],
             "num_key_value_heads": text["num_key_value_heads"], "head_dim": text.get("head_dim", 128),
             "num_hidden_layers": 1, "max_position_embeddings": 40960, "vocab_size": text["vocab_size"],
             "rms_norm_eps": 1e-06, "rope_theta": 1000000, "torch_dtype": "bfloat16", "block_size": block,
             "dspark_block_size": block, "markov_rank": 256}


def _drafts(target_name: str, target: dict) -> dict[str, dict]:
    """Draft directories (their names matter: vLLM detects EAGLE / EAGLE-3 / DSpark from them)."""
    out = {"EAGLE-head": _head(target, eagle3=False), "EAGLE3-head": _head(target, eagle3=True),
           "draft-small": _small_draft(target), "head-plain": _head(target, eagle3=False),
           "spec-eagle3": _speculators(target_name, target, 3), "medusa-head": _medusa(target),
           "mlp-accelerator": _mlp_speculator(target)}
    if target.get("model_type") == "qwen3":
        out["dspark_qwen3_block7"] = _dspark_qwen3(target, 7)
        out["qwen3-spark-topk"] = dict(_dspark_qwen3(target, 4), dspark_draft_topk=target["vocab_size"] + 1)
    for entry in catalog.entries():
        draft_for = entry.source.get("draft_for") if isinstance(entry.source, dict) else None
        if draft_for == target_name:
            out[entry.id.split("/")[-1]] = copy.deepcopy(entry.config)
    return out


_METHODS = [None, None, "ngram", "mtp", "deepseek_mtp", "eagle", "eagle3", "draft_model", "suffix", "bogus",
            "ngram_gpu", "medusa", "dspark", "mlp_speculator"]
#: DeepSeek-V4 (its own DSpark / MTP stages), from the releases that know the model
V4_TARGET, V4_SINCE = "deepseek-ai/DeepSeek-V4-Flash", (0, 25, 0)
_TOKENS = [None, 1, 2, 3, 3, 4, 0, "3", 2.5, -1, 7]


def _spec(rng: random.Random, drafts: list[str], root: str, tp: int, own_stages: bool = False) -> dict:
    """``own_stages``: the target ships its own DSpark stages (DeepSeek-V4)."""
    spec: dict = {}
    method = rng.choice(_METHODS)
    spark = [d for d in drafts if "spark" in d]
    if method == "dspark" and not spark and not own_stages:
        method = None  # kvguard models DSpark only for Qwen3DSparkModel drafts and DeepSeek-V4's own stages
    if method is not None:
        spec["method"] = method
    r = rng.random()
    if method == "dspark" and not spark:
        pass  # DSpark without a model: the target's own stages (DeepSeek-V4)
    elif r < 0.55 and method not in ("ngram", "mtp", "deepseek_mtp", "suffix", "ngram_gpu"):
        spec["model"] = os.path.join(root, rng.choice(spark if method == "dspark" else drafts))
    elif r < 0.6 and method not in ("medusa", "mlp_speculator", "dspark"):
        spec["model"] = "ngram"
    tokens = rng.choice(_TOKENS)
    if tokens is not None:
        spec["num_speculative_tokens"] = tokens
    if rng.random() < 0.2:
        spec["draft_tensor_parallel_size"] = rng.choice([1, tp, 3, 0])
    if rng.random() < 0.15:
        spec["prompt_lookup_min"] = rng.choice([1, 3, 5, 0])
    if rng.random() < 0.15:
        spec["prompt_lookup_max"] = rng.choice([2, 4, 0])
    if rng.random() < 0.05:
        spec["tensor_parallel_size"] = 2
    if rng.random() < 0.05:
        spec["foo"] = 1
    if rng.random() < 0.05:
        spec["disable_padded_drafter_batch"] = True
    return spec


def _spec_args(rng: random.Random, spec: dict, version: tuple) -> list[str]:
    form = rng.random()
    if form < 0.2 and spec:
        args: list[str] = []
        for key, value in spec.items():
            args += [f"--speculative-config.{key}", value if isinstance(value, str) else json.dumps(value)]
        return args
    if version >= (0, 22, 0) and form < 0.35:
        args = []
        rest = dict(spec)
        for key, flag in (("method", "--spec-method"), ("model", "--spec-model"),
                          ("num_speculative_tokens", "--spec-tokens")):
            if key in rest and rng.random() < 0.7 and not isinstance(rest[key], float):
                args += [flag, str(rest.pop(key))]
        if rest or rng.random() < 0.2:
            if rng.random() < 0.3 and spec:
                key = rng.choice(list(spec))
                rest.setdefault(key, spec[key])
            args += ["--speculative-config", json.dumps(rest)]
        return args
    flag = "-sc" if version >= (0, 19, 0) and rng.random() < 0.3 else "--speculative-config"
    return [flag, json.dumps(spec)]


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    vt = tuple(int(x) for x in version.split("."))
    cases = []
    for i in range(n):
        target_name = rng.choice(TARGETS + ((V4_TARGET,) if vt >= V4_SINCE else ()))
        target = _config(target_name)
        drafts = _drafts(target_name, target)
        case_root = os.path.join(root, f"c{i}")
        tp = rng.choice([1, 1, 2, 4, 8, 3])
        pp = rng.choice([1, 1, 1, 2])
        spec = _spec(rng, list(drafts), case_root, tp, own_stages=target_name == V4_TARGET)
        args = _spec_args(rng, spec, vt)
        if tp != 1:
            args += ["-tp", str(tp)]
        if pp != 1:
            args += ["-pp", str(pp)]
        if rng.random() < 0.1:
            args.append("--enable-expert-parallel")
        if rng.random() < 0.1:
            args += ["-dcp", "2"]
        if rng.random() < 0.12 and pp == 1:
            # (with PP the CPU platform, which the oracle runs on, turns async scheduling off in
            # check_and_update_config: a host difference, not the launch's)
            args.append("--async-scheduling")
        files = {os.path.join(case_root, name): cfg for name, cfg in drafts.items()}
        cases.append({"id": f"s{i}", "target": target_name, "config": target, "args": args,
                      "model_dir": os.path.join(case_root, "target"), "files": files})
    return cases


def dspark_launches(version: str, root: str) -> list[dict]:
    """Hand-picked DSpark launches: DeepSeek-V4-Flash's own stages (tp 8 / 3, pp 2, expert parallel, no / 0 / 4
    tokens, async scheduling, MTP beside it, a config asking for dspark_draft_topk) and Qwen3-8B drafts (a Qwen3DSparkModel draft with 3 / 7 / no
    tokens, pp 2, draft tp 1, dspark_draft_topk out of range and valid, a block_size-only draft, detection by
    architecture alone, DSparkDraftModel with a qwen3 model type with and without the method and with a top-k)."""
    v4, qwen = _config(V4_TARGET), _config("Qwen/Qwen3-8B")
    block7 = _dspark_qwen3(qwen, 7)
    block_only = {k: v for k, v in _dspark_qwen3(qwen, 5).items() if k != "dspark_block_size"}
    drafts = {"dspark_qwen3_block7": block7,
              "qwen3-spark-topk": dict(_dspark_qwen3(qwen, 4), dspark_draft_topk=qwen["vocab_size"] + 1),
              "qwen3-spark-topk-ok": dict(_dspark_qwen3(qwen, 7), dspark_draft_topk=64),
              "qwen3-block-only": block_only,
              "qwen3-arch-only": dict(block7),
              "qwen3-draftmodel": dict(block7, architectures=["DSparkDraftModel"]),
              "qwen3-draftmodel-topk": dict(block7, architectures=["DSparkDraftModel"], dspark_draft_topk=64)}
    v4_specs = [({"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "8"]),
                ({"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "3"]),
                ({"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "8", "-pp", "2"]),
                ({"method": "dspark"}, ["-tp", "8"]),
                ({"method": "dspark", "num_speculative_tokens": 0}, ["-tp", "8"]),
                ({"method": "dspark", "num_speculative_tokens": 4}, ["-tp", "8"]),
                ({"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "8", "--async-scheduling"]),
                ({"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "8", "--enable-expert-parallel"]),
                ({"method": "dspark", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}, ["-tp", "8"]),
                ({"method": "mtp", "num_speculative_tokens": 1}, ["-tp", "8"])]
    qwen_specs = [({"model": "dspark_qwen3_block7", "num_speculative_tokens": 3}, []),
                  ({"model": "dspark_qwen3_block7", "num_speculative_tokens": 7}, []),
                  ({"model": "dspark_qwen3_block7"}, []),
                  ({"model": "dspark_qwen3_block7", "num_speculative_tokens": 7}, ["-pp", "2"]),
                  ({"model": "dspark_qwen3_block7", "num_speculative_tokens": 7, "draft_tensor_parallel_size": 1},
                   ["-tp", "2"]),
                  ({"model": "dspark_qwen3_block7", "num_speculative_tokens": 7}, ["--async-scheduling"]),
                  ({"model": "qwen3-spark-topk", "num_speculative_tokens": 4}, []),
                  ({"model": "qwen3-spark-topk-ok", "num_speculative_tokens": 7}, []),
                  ({"model": "qwen3-block-only"}, []),
                  ({"model": "qwen3-arch-only", "num_speculative_tokens": 7}, []),
                  ({"model": "qwen3-draftmodel", "num_speculative_tokens": 7}, []),
                  ({"method": "dspark", "model": "qwen3-draftmodel", "num_speculative_tokens": 7}, []),
                  ({"model": "qwen3-draftmodel-topk", "num_speculative_tokens": 7}, [])]
    # DeepSeek-V4 stages whose config asks for dspark_draft_topk (only Qwen3 DSpark models support it)
    v4_topk = dict(v4, dspark_draft_topk=8)
    cases = []
    for i, (target_name, target, spec, args) in enumerate(
            [(V4_TARGET, v4, s, a) for s, a in v4_specs] + [("Qwen/Qwen3-8B", qwen, s, a) for s, a in qwen_specs]
            + [(V4_TARGET, v4_topk, {"method": "dspark", "num_speculative_tokens": 3}, ["-tp", "8"])]):
        case_root = os.path.join(root, f"d{i}")
        spec = dict(spec)
        if "model" in spec:
            spec["model"] = os.path.join(case_root, spec["model"])
        files = {os.path.join(case_root, name): cfg for name, cfg in drafts.items()} if target is qwen else {}
        cases.append({"id": f"d{i}", "target": target_name, "config": target,
                      "args": ["--speculative-config", json.dumps(spec), *args],
                      "model_dir": os.path.join(case_root, "target"), "files": files})
    return cases


#: the drafts of the sized-batch launches, by method: (draft directory or None, targets it fits)
_BATCH_DRAFTS = (("draft_model", "draft-small", None), ("eagle", "EAGLE-head", None), ("eagle3", "EAGLE3-head", None),
                 ("eagle3", "spec-eagle3", None), ("mtp", None, "Qwen/Qwen3.5-9B"),
                 ("dspark", "dspark_qwen3_block7", "Qwen/Qwen3-8B"), ("dspark", "dspark-fill-in", "Qwen/Qwen3-8B"),
                 ("draft_model", "draft-small", "parallel"))
#: batched tokens and sequences around the thresholds (the draft's tokens, one more, the slots times the sequences,
#: the smallest default max_num_seqs 128)
_BATCHED = [None, None, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 64, 100, 128, 129, 256, 2048]
_SEQS = [None, None, None, 1, 2, 3, 4, 8, 16, 64, 128, 256, 512]


def batched_launches(seed: int, n: int, version: str, root: str) -> list[dict]:
    """Speculative launches that size their own batch (``--max-num-batched-tokens`` / ``--max-num-seqs``, sometimes
    ``--max-num-scheduled-tokens``) with a draft model (autoregressive or parallel), EAGLE / EAGLE-3 heads, a Qwen3.5
    MTP target and Qwen3 DSpark drafts that do and do not sample from their anchor: VllmConfig's
    ``_set_max_num_scheduled_tokens`` (0.20.0+) and SchedulerConfig's batch checks before it."""
    rng = random.Random(f"batched-{seed}-{version}")
    vt = tuple(int(x) for x in version.split("+")[0].split("."))
    cases = []
    for i in range(n):
        method, draft, fits = rng.choice([d for d in _BATCH_DRAFTS if d[0] != "dspark" or vt >= (0, 25, 0)])
        target_name = fits if fits not in (None, "parallel") else rng.choice(("Qwen/Qwen3-8B",
                                                                              "meta-llama/Llama-3.1-8B-Instruct"))
        target = _config(target_name)
        drafts = _drafts(target_name, target) if target_name != "Qwen/Qwen3.5-9B" else {}
        if target_name == "Qwen/Qwen3-8B":
            drafts["dspark-fill-in"] = dict(_dspark_qwen3(target, 7), sample_from_anchor=False)
        case_root = os.path.join(root, f"b{i}")
        spec: dict = {"method": method, "num_speculative_tokens": rng.choice([1, 2, 3, 4, 5, 7, 8])}
        if draft is not None:
            spec["model"] = os.path.join(case_root, draft)
        if fits == "parallel":
            spec["parallel_drafting"] = True
        args = ["--speculative-config", json.dumps(spec)]
        batched, seqs = rng.choice(_BATCHED), rng.choice(_SEQS)
        if batched is not None and seqs is not None and seqs > batched and rng.random() < 0.8:
            seqs = rng.choice([None, batched, max(batched // 2, 1)])   # mostly past SchedulerConfig's own check
        if batched is not None:
            args += ["--max-num-batched-tokens", str(batched)]
        if seqs is not None:
            args += ["--max-num-seqs", str(seqs)]
        if vt >= (0, 26, 0) and rng.random() < 0.1:
            args += ["--max-num-scheduled-tokens", rng.choice(["0", "8", "4096"])]
        if rng.random() < 0.2:
            args += ["--max-model-len", rng.choice(["4", "16", "2048"])]
        files = {os.path.join(case_root, name): cfg for name, cfg in drafts.items()}
        cases.append({"id": f"b{i}", "target": target_name, "config": target, "args": args,
                      "model_dir": os.path.join(case_root, "target"), "files": files})
    return cases


#: catalog drafts whose target is not in the catalog: a catalog target of the same geometry stands in
#: (yuhuili/EAGLE-LLaMA3-Instruct-8B was trained for Meta-Llama-3-8B-Instruct; Llama-3.1-8B-Instruct has the
#: same hidden size 4096, 32 heads / 8 KV heads, 32 layers and vocabulary 128256 — what the checks read)
_STAND_IN = {"meta-llama/Meta-Llama-3-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct"}


def catalog_draft_launches(version: str, root: str) -> list[dict]:
    """Hand-picked launches for every draft head of the catalog (``source.draft_for``) with its target: the
    method named (eagle / eagle3) and detected from the directory name, the other EAGLE method, no token
    count, tp 1 / 2 / 8 / 3, pp 2, draft tp 1 and 2, async scheduling, expert parallel on a dense target;
    and the head served on its own (tp 2 / 3, pp 2, a max-model-len above its 2048 positions). The head's
    directory is named after the checkpoint (vLLM detects the method from the name), its config.json the
    catalog's copy."""
    cases = []
    heads = [e for e in catalog.entries() if isinstance(e.source, dict) and e.source.get("draft_for")]
    for h, entry in enumerate(heads):
        target_name = _STAND_IN.get(entry.source["draft_for"], entry.source["draft_for"])
        target = _config(target_name)
        name = entry.id.split("/")[-1]
        method = "eagle3" if "eagle3" in name.lower() else "eagle"
        other = "eagle" if method == "eagle3" else "eagle3"
        specs = [({"method": method, "num_speculative_tokens": 3}, []),
                 ({"method": method, "num_speculative_tokens": 3}, ["-tp", "2"]),
                 ({"method": method, "num_speculative_tokens": 3}, ["-tp", "8"]),
                 ({"method": method, "num_speculative_tokens": 3}, ["-tp", "3"]),
                 ({"method": method, "num_speculative_tokens": 3}, ["-pp", "2"]),
                 ({"num_speculative_tokens": 3}, ["-tp", "2"]),
                 ({"method": method}, ["-tp", "2"]),
                 ({"method": other, "num_speculative_tokens": 3}, ["-tp", "2"]),
                 ({"method": method, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}, ["-tp", "2"]),
                 ({"method": method, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2}, ["-tp", "4"]),
                 ({"method": method, "num_speculative_tokens": 3}, ["-tp", "2", "--async-scheduling"]),
                 ({"method": method, "num_speculative_tokens": 3}, ["-tp", "2", "--enable-expert-parallel"])]
        for i, (spec, args) in enumerate(specs):
            case_root = os.path.join(root, f"h{h}-{i}")
            spec = dict(spec, model=os.path.join(case_root, name))
            cases.append({"id": f"h{h}-{i}", "target": target_name, "config": target,
                          "args": ["--speculative-config", json.dumps(spec), *args],
                          "model_dir": os.path.join(case_root, "target"),
                          "files": {os.path.join(case_root, name): copy.deepcopy(entry.config)}})
        # the head served on its own (a one-layer Llama to vLLM's config checks)
        for i, args in enumerate([["-tp", "2"], ["-tp", "3"], ["-pp", "2"], ["--max-model-len", "4096"]]):
            case_root = os.path.join(root, f"h{h}-own{i}")
            cases.append({"id": f"h{h}-own{i}", "target": entry.id, "config": copy.deepcopy(entry.config),
                          "args": args, "model_dir": os.path.join(case_root, name), "files": {}})
    return cases


_ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def _normalise(text):
    return _ADDRESS.sub(" at 0x…>", text) if isinstance(text, str) else text


def _oracle_outcome(rec: dict, *, errors: bool = False) -> dict:
    """The oracle's verdict; ``errors``: a pydantic ValidationError's every entry too (type, field, message)."""
    if rec.get("stage") == "argparse":
        line = (rec.get("stderr") or [""])[-1]
        return {"argparse": _normalise(line.split(": error: ", 1)[-1])}
    if rec.get("stage") == "ok":
        return {"ok": True}
    out = {"ok": False, "exc_type": rec.get("exc_type"), "message": _normalise(rec.get("message")),
           "wrapped_by": rec.get("wrapped_by")}
    if errors and rec.get("exc_type") == "ValidationError":
        out["errors"] = [[e.get("type"), list(e.get("loc") or ()), e.get("msg")] for e in rec.get("errors") or ()]
    return out


#: kvguard's stages after create_engine_config, where serve_runner.py stops: a refusal there (model construction, the
#: workers' checks) is proven by its own tiers (tests/upstream/test_quant.py, test_attention_backends.py), and is
#: counted apart when the runner, which never gets there, accepts the launch
PAST_THE_RUNNER = ("model_init", "worker")


def _kvguard_outcome(case: dict, version: str, *, stage: bool = False, errors: bool = False) -> dict:
    """kvguard's verdict in the oracle outcome's form; ``stage``: also the stage of a refusal past the runner;
    ``errors``: a ValidationError's every entry too."""
    from kvguard.errors import Undecidable
    from kvguard.front import examine
    from kvguard.launch.layout import Host
    from kvguard.versions import resolve

    release = resolve(version)
    # ``env_prefix``: the launch's own ``VAR=value`` words, which kvguard reads off the command line as an operator
    # writes it (the oracle gets them as the case's ``env``); without it, ``env`` is given to kvguard as such
    prefix = list(case.get("env_prefix") or ())
    launch = [*prefix, "vllm", "serve", case["model_dir"], *case["args"]]
    env = {} if prefix else dict(case.get("env") or {})
    try:
        report = examine(release, launch, host=Host(**oracle_host(version)), env=env)
    except Undecidable as exc:
        return {"undecidable": str(exc)}
    v = report.verdict
    if v.stage == "argparse" and (v.exc_type or "").startswith("SystemExit"):
        return {"argparse": (v.message or "").split(": error: ", 1)[-1]}
    if v.ok:
        return {"ok": True}
    out = {"ok": False, "exc_type": v.exc_type, "message": v.message, "wrapped_by": v.wrapped_by}
    if errors and v.exc_type == "ValidationError":
        out["errors"] = [[e.type, list(e.loc), e.msg] for e in v.errors]
    if stage and v.stage in PAST_THE_RUNNER:
        out["past_the_runner"] = v.stage
    return out


def run(version: str, n: int, seed: int) -> dict:
    root = tempfile.mkdtemp(prefix="kvg-spec-")
    try:
        return compare_launches(version, seed, generate(seed, n, version, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def compare_launches(version: str, seed: int, cases: list[dict], *, errors: bool = False) -> dict:
    """Write each case's checkpoint files, run the cases through the release's own serve path
    (serve_runner.py) and compare with kvguard: the report's counts, mismatches and undecidable cases (``errors``:
    a pydantic ValidationError's entries compared too, each one's type, field and message)."""
    from ._oracle import oracle_or_skip

    python, python_env = oracle_or_skip(version)
    for case in cases:
        for directory, cfg in case.get("files", {}).items():
            os.makedirs(directory, exist_ok=True)
            Path(directory, "config.json").write_text(json.dumps(cfg))
        os.makedirs(case["model_dir"], exist_ok=True)
        Path(case["model_dir"], "config.json").write_text(json.dumps(case["config"]))
    runner_env = dict(python_env, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1")
    runner_env.setdefault("KVG_ORACLE_INSPECT", os.environ.get("KVG_ORACLE_INSPECT", "inprocess"))
    runner_env.setdefault("KVG_ORACLE_TORCHVISION", os.environ.get("KVG_ORACLE_TORCHVISION", "stub"))
    records = run_runner("serve_runner.py", python, runner_env, cases)
    by_id = {r["id"]: r for r in records}
    counts: Counter = Counter()
    mismatches, undecidable = [], []
    for case in cases:
        want = _oracle_outcome(by_id[case["id"]], errors=errors)
        if "failed to be inspected" in (want.get("message") or ""):
            counts["oracle_env_failures"] += 1   # the oracle host could not import the model class
            continue
        got = _kvguard_outcome(case, version, stage=True, errors=errors)
        past = got.pop("past_the_runner", None)
        if past is not None and want.get("ok"):
            counts[f"refused_at_{past}"] += 1   # where the runner does not go (PAST_THE_RUNNER)
            continue
        key = "accepted" if want.get("ok") else ("argparse" if "argparse" in want else "refused")
        if "undecidable" in got:
            counts["undecidable"] += 1
            undecidable.append({"id": case["id"], "args": case["args"], "reason": got["undecidable"],
                                "oracle": want})
            continue
        if got == want:
            counts["agree"] += 1
            counts[f"agree_{key}"] += 1
        else:
            counts["disagree"] += 1
            mismatches.append({"id": case["id"], "target": case["target"], "args": case["args"],
                               "oracle": want, "kvguard": got})
    return {"version": version, "seed": seed, "counts": dict(counts), "mismatches": mismatches,
            "undecidable": undecidable}


#: the heads' launches (~35 s a release) on a sample of the releases asked for — the boundaries of the golden
#: cases spec-catalog-* — or on all of them when none of the sample is asked (KVG_SPEC_HEADS_VERSIONS overrides)
HEAD_VERSIONS = os.environ.get("KVG_SPEC_HEADS_VERSIONS", " ".join(
    [v for v in VERSIONS if v in ("0.10.2", "0.20.0", "0.30.0", "0.33.0")] or VERSIONS)).split()


@pytest.mark.parametrize("version", HEAD_VERSIONS)
def test_catalog_draft_heads_agree_with_real_vllm(version):
    """The catalog's EAGLE / EAGLE-3 heads (their config.json as the catalog holds it) with their targets."""
    root = tempfile.mkdtemp(prefix="kvg-heads-")
    try:
        report = compare_launches(version, 0, catalog_draft_launches(version, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    counts = report["counts"]
    print(f"\nvLLM {version} catalog draft heads: {counts}")
    assert counts.get("agree", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


@pytest.mark.parametrize("version", VERSIONS)
def test_speculative_agrees_with_real_vllm(version):
    n = int(os.environ.get("KVG_SPEC_CASES", "24"))
    seed = int(os.environ.get("KVG_SPEC_SEED", "5"))
    report = run(version, n, seed)
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"speculative-{version}.json").write_text(json.dumps(report, indent=1, default=str))
    counts = report["counts"]
    print(f"\nvLLM {version} speculative: {counts}")
    assert counts.get("agree", 0) > 0
    assert counts.get("undecidable", 0) <= n // 3, report["undecidable"][:5]
    assert counts.get("oracle_env_failures", 0) <= max(1, n // 10)
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


#: the sized-batch launches (batched_launches) per release from 0.20.0, where VllmConfig starts checking them
BATCHED_VERSIONS = [v for v in VERSIONS if tuple(int(x) for x in v.split("+")[0].split(".")) >= (0, 20, 0)]


@pytest.mark.parametrize("version", BATCHED_VERSIONS)
def test_sized_batches_agree_with_real_vllm(version):
    """KVG_SPEC_BATCHED_CASES launches (default 8, seed KVG_SPEC_SEED) that size their own batch with a draft."""
    n = int(os.environ.get("KVG_SPEC_BATCHED_CASES", "8"))
    seed = int(os.environ.get("KVG_SPEC_SEED", "5"))
    root = tempfile.mkdtemp(prefix="kvg-batched-")
    try:
        report = compare_launches(version, seed, batched_launches(seed, n, version, root), errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    counts = report["counts"]
    print(f"\nvLLM {version} sized batches: {counts}")
    assert counts.get("agree", 0) > 0
    assert counts.get("undecidable", 0) <= n // 3, report["undecidable"][:5]
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--vllm", nargs="+", required=True)
    ap.add_argument("--cases", type=int, default=150)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument("--dspark", action="store_true", help="the hand-picked DSpark launches instead")
    ap.add_argument("--heads", action="store_true", help="the catalog's draft heads with their targets instead")
    ap.add_argument("--batched", action="store_true", help="launches that size their own batch instead")
    a = ap.parse_args()
    for v in a.vllm:
        if a.batched:
            tmp = tempfile.mkdtemp(prefix="kvg-batched-")
            try:
                rep = compare_launches(v, a.seed, batched_launches(a.seed, a.cases, v, tmp), errors=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        elif a.heads or a.dspark:
            hand_picked = catalog_draft_launches if a.heads else dspark_launches
            tmp = tempfile.mkdtemp(prefix="kvg-launches-")
            try:
                rep = compare_launches(v, 0, hand_picked(v, tmp))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        else:
            rep = run(v, a.cases, a.seed)
        print(v, rep["counts"], flush=True)
        if a.out:
            Path(a.out).mkdir(parents=True, exist_ok=True)
            (Path(a.out) / f"speculative-{v}.json").write_text(json.dumps(rep, indent=1, default=str))
