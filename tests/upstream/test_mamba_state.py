"""Differential test of a hybrid model's Mamba state sizing (kvguard.rules.mamba_state) against real releases.

Generates seeded ``vllm serve`` launches of hybrid checkpoints — Qwen3-Next from the catalog, Qwen3.5, Jamba and
LFM2 from the layout differential's generators, GraniteMoeHybrid / Bamba / Falcon-H1 / Zamba2 / LFM2-MoE /
MiniMax-Text-01 configs built here (Nemotron-H's model type is unknown to these releases' transformers without
remote code) — with Mamba sizes drawn so that some tensor-parallel sizes do not divide them, at tp 1 – 8, and runs
each through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py, as
tests/upstream/test_speculative.py does) and through kvguard: the verdicts must agree.  Launches kvguard declares
undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS within 0.10.2 – 0.19.1 (default "0.11.0 0.15.0 0.17.1 0.19.1");
KVG_MAMBA_STATE_CASES launches per release (default 24); seed KVG_MAMBA_STATE_SEED.  Up to 0.11.0 the CPU oracle
refuses the block size the sizing picks for an accepted hybrid model (no intel_extension_for_pytorch): counted as
``cpu_oracle_block_size``, not compared.  Run directly for a full report:
``python -m tests.upstream.test_mamba_state 0.11.0 0.19.1 --cases 120``.
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
from packaging.version import Version

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from . import differential as gen  # noqa: E402
from ._oracle import launches_main, release_sample  # noqa: E402
from .test_speculative import _config, compare_launches  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.11.0 0.15.0 0.17.1 0.19.1").split()


def _base(rng: random.Random, arch: str, model_type: str) -> dict:
    heads = rng.choice([8, 16, 32])
    return {"architectures": [arch], "model_type": model_type, "hidden_size": rng.choice([1536, 2048, 3072, 4096]),
            "num_attention_heads": heads, "num_key_value_heads": rng.choice([1, 2, 4, 8]), "num_hidden_layers": 4,
            "intermediate_size": 8192, "max_position_embeddings": 4096, "vocab_size": 32000,
            "torch_dtype": "bfloat16"}


def _qwen3_next(rng: random.Random) -> dict:
    cfg = _config("Qwen/Qwen3-Next-80B-A3B-Instruct")
    if rng.random() < 0.5:
        cfg.update(linear_num_key_heads=rng.choice([4, 6, 16]), linear_num_value_heads=rng.choice([12, 24, 32, 48]))
    return cfg


def _qwen3_5(rng: random.Random) -> dict:
    cfg = gen.gen_qwen3_5(rng)
    if rng.random() < 0.6:
        cfg["text_config"].update(linear_num_key_heads=rng.choice([4, 6, 16]),
                                  linear_num_value_heads=rng.choice([12, 24, 32, 40]),
                                  linear_key_head_dim=128, linear_value_head_dim=rng.choice([96, 128]))
    return cfg


def _jamba(rng: random.Random) -> dict:
    cfg = gen.gen_jamba(rng)
    cfg["mamba_expand"] = rng.choice([1, 2, 3])
    return cfg


def _lfm2(rng: random.Random) -> dict:
    cfg = gen.gen_lfm2(rng)
    if rng.random() < 0.6:
        cfg["conv_dim"] = rng.choice([1536, 2048, 2560])
    return cfg


def _granite_hybrid(rng: random.Random) -> dict:
    arch, model_type = rng.choice((("GraniteMoeHybridForCausalLM", "granitemoehybrid"),
                                   ("BambaForCausalLM", "bamba")))
    cfg = _base(rng, arch, model_type)
    # the config class asks mamba_n_heads * mamba_d_head == mamba_expand * hidden_size
    head_dim = rng.choice([32, 64, 128])
    cfg.update(mamba_n_heads=2 * cfg["hidden_size"] // head_dim, mamba_d_head=head_dim,
               mamba_n_groups=rng.choice([1, 2, 3]), mamba_d_state=rng.choice([64, 128]), mamba_d_conv=4,
               mamba_expand=2)
    if arch == "GraniteMoeHybridForCausalLM":
        # a quarter attention-only (granite-4.0-micro): not hybrid from 0.11.1
        layer_types = ["attention"] * 4 if rng.random() < 0.25 else ["mamba", "attention", "mamba", "mamba"]
        cfg.update(layer_types=layer_types, shared_intermediate_size=8192, num_local_experts=0)
    else:
        cfg.update(attn_layer_indices=[1], num_logits_to_keep=1)
    return cfg


def _falcon_h1(rng: random.Random) -> dict:
    cfg = _base(rng, "FalconH1ForCausalLM", "falcon_h1")
    heads, head_dim = rng.choice([24, 32, 48, 56]), rng.choice([32, 64])
    intermediate = heads * head_dim
    if rng.random() < 0.5:
        cfg.update(mamba_d_ssm=intermediate)
    else:
        cfg.update(mamba_d_ssm=None, hidden_size=intermediate // 2)
    cfg.update(mamba_n_heads=heads, mamba_d_head=head_dim, mamba_n_groups=rng.choice([1, 2]),
               mamba_d_state=rng.choice([16, 64, 128]), mamba_d_conv=4, mamba_expand=2, head_dim=64)
    return cfg


def _zamba2(rng: random.Random) -> dict:
    cfg = _base(rng, "Zamba2ForCausalLM", "zamba2")
    head_dim = rng.choice([32, 64])
    cfg.update(n_mamba_heads=2 * cfg["hidden_size"] // head_dim, mamba_headdim=head_dim,
               mamba_ngroups=rng.choice([1, 2]), mamba_d_state=rng.choice([64, 128]), mamba_d_conv=4, mamba_expand=2,
               layers_block_type=["mamba", "hybrid", "mamba", "mamba"], num_mem_blocks=1, use_mem_rope=False,
               attention_head_dim=2 * cfg["hidden_size"] // cfg["num_attention_heads"], use_shared_mlp_adapter=False,
               use_shared_attention_adapter=False, hybrid_layer_ids=[1])
    return cfg


def _lfm2_moe(rng: random.Random) -> dict:
    cfg = gen.gen_lfm2(rng)
    cfg.update(architectures=["Lfm2MoeForCausalLM"], model_type="lfm2_moe", num_experts=8, num_experts_per_tok=2,
               moe_intermediate_size=1024, num_dense_layers=1, hidden_size=rng.choice([1536, 2048, 2560]))
    return cfg


def _minimax(rng: random.Random) -> dict:
    """MiniMax-Text-01's shape (tests/upstream/test_kvspec_model.py's text01 cases): linear attention layers."""
    layers = 4
    types = [rng.choice([0, 1]) for _ in range(layers)]
    types[rng.randrange(layers)] = 0
    return {"architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax", "hidden_size": 512,
            "num_attention_heads": rng.choice([4, 6, 8]), "num_key_value_heads": rng.choice([1, 2]), "head_dim": 64,
            "num_hidden_layers": layers, "attn_type_list": types, "intermediate_size": 256, "num_local_experts": 4,
            "num_experts_per_tok": 2, "vocab_size": 1000, "max_position_embeddings": 4096, "rotary_dim": 64,
            "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6, "postnorm": True}


#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "qwen3-next": _qwen3_next,
    "qwen3.5": _qwen3_5,
    "jamba": _jamba,
    "lfm2": _lfm2,
    "granite-hybrid": _granite_hybrid,
    "falcon-h1": _falcon_h1,
    "zamba2": _zamba2,
    "lfm2-moe": _lfm2_moe,
    "minimax": _minimax,
}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    cases = []
    names = sorted(CHECKPOINTS)
    if Version(version.split("+")[0]) < Version("0.17.0"):
        names.remove("qwen3.5")  # registered from 0.17.0
    if Version(version.split("+")[0]) < Version("0.11.1"):
        names.remove("lfm2-moe")  # registered from 0.11.1
    for i in range(n):
        name = rng.choice(names)
        config = CHECKPOINTS[name](rng)
        args = ["-tp", str(rng.randint(1, 8))]
        ident = f"s{i}"
        cases.append({"id": ident, "target": name, "config": config, "model_dir": os.path.join(root, ident),
                      "args": args})
    return cases


def _cpu_oracle_limit(mismatch: dict) -> bool:
    """Up to 0.11.0 the CPU platform refuses every block size but 16 without intel_extension_for_pytorch, and the
    sizing raises a hybrid model's block size to fit its Mamba page: a limit of the CPU oracle, which kvguard does
    not model (tests/upstream/test_kvspec_model.py meets the same)."""
    message = mismatch["oracle"].get("message") or ""
    return mismatch["kvguard"] == {"ok": True} and message.endswith(" requires intel_extension_for_pytorch")


def run(version: str, n: int, seed: int) -> dict:
    root = tempfile.mkdtemp(prefix="kvg-mamba-state-")
    try:
        report = compare_launches(version, seed, generate(seed, n, version, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    limited = [m for m in report["mismatches"] if _cpu_oracle_limit(m)]
    if limited:
        report["mismatches"] = [m for m in report["mismatches"] if not _cpu_oracle_limit(m)]
        report["counts"]["cpu_oracle_block_size"] = len(limited)
        report["counts"]["disagree"] -= len(limited)
        if not report["counts"]["disagree"]:
            del report["counts"]["disagree"]
    return report


@pytest.mark.parametrize("version", release_sample([v for v in VERSIONS if Version(v.split("+")[0]) <= Version("0.19.1")],
                                                   "0.10.2", also=("0.15.0", "0.17.1")))
def test_mamba_state_sizing_agrees_with_real_vllm(version):
    report = run(version, int(os.environ.get("KVG_MAMBA_STATE_CASES", "24")),
                 int(os.environ.get("KVG_MAMBA_STATE_SEED", "0")))
    counts = report["counts"]
    directory = os.environ.get("KVG_DIFF_REPORT_DIR")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        Path(directory, f"mamba-state-{version}.json").write_text(json.dumps(report, indent=1))
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1)
    assert counts.get("agree", 0) > 0, counts
    assert counts.get("cpu_oracle_block_size", 0) == 0 or version.split("+")[0] in ("0.10.2", "0.11.0"), counts


if __name__ == "__main__":
    launches_main(__doc__, run)
