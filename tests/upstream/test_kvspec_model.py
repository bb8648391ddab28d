"""KV-cache bytes per token of whole models: kvguard vs the attention layers a release's model class builds.

``tests/upstream/kvspec_model_runner.py`` builds the model of a config (meta device, ``quant_runner.py``'s stand-ins)
with the ``Attention`` class replaced by a recorder, and builds the release's own ``FullAttentionSpec`` /
``SlidingWindowSpec`` for each recorded layer from what the model handed it (KV heads per rank, head size, window).
kvguard must find one full-attention KV-cache group (``kv_cache_groups_reason`` None) exactly when the release builds
``num_hidden_layers`` decoder ``Attention`` layers with no window, and then its per-layer bytes
(``kv_bytes_per_token_per_layer``) must equal every layer's ``page_size_bytes / block_size`` and its per-rank bytes
(``ModelFacts.kv_bytes_per_token``) their sum.  Where kvguard gives a reason it must be because the release does not
build one such group (else the case is counted "undecided" and reported, not failed: a refusal is allowed, a wrong
number is not).

Configs: the catalog's MiniMax-M2.5 checkpoints (``attn_type_list`` of all 1s, which minimax_m2.py never reads:
kvguard.kv.kvsize.UNREAD_LAYER_KEYS) and variants of KV heads, head_dim, layers and tp, under ``--kv-cache-dtype``
auto and fp8.  The other side: MiniMax-Text-01 configs (``minimax_text_01.py``, 0.10.2-0.23.0, reads the key: 0 =
linear attention) build ``Attention`` only where the list says 1, and kvguard keeps refusing them.
Releases: KVG_ORACLE_VERSIONS (default "0.11.1 0.28.0"); MiniMax-M2 is registered from 0.11.1.
"""

from __future__ import annotations

import copy
import json
import os
import random

import pytest

from kvguard import catalog
from kvguard.kv.kvsize import kv_bytes_per_token_per_layer, kv_cache_dtype_bytes, kv_cache_groups_reason
from kvguard.versions import resolve

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.11.1 0.28.0").split()
BASES = ("MiniMaxAI/MiniMax-M2.5", "nvidia/MiniMax-M2.5-NVFP4")


def _base(name: str, version: str) -> dict:
    from kvguard.errors import ModelConfigRefused
    from kvguard.rules.check import model_facts

    cfg = copy.deepcopy(catalog.lookup(name).config)
    cfg.pop("auto_map", None)  # read as the model type the release registers (no repository code here)
    # a ModelOpt NVFP4 MoE is not built on CPU (its MoE backend is chosen on the GPU); the KV cache does not depend
    # on the experts' quantization, and the catalog's attention layers are unquantized
    cfg.pop("quantization_config", None)
    cfg.setdefault("attn_type_list", [1] * cfg["num_hidden_layers"])
    if "dtype" not in cfg and "torch_dtype" not in cfg:
        cfg["torch_dtype"] = "bfloat16"  # what kvguard sizes an unknown dtype as (a bf16-capable CUDA GPU)
    cfg["num_local_experts"] = 8  # the experts do not change the KV cache; fewer build faster
    try:
        model_facts(cfg, vllm_version=version)
    except ModelConfigRefused:
        # Transformers before 5.x has no minimax_m2 config class (the repository code's): Mixtral's reads the same
        # sizes and keeps the other keys as attributes; the architecture picks vLLM's MiniMax-M2 model
        cfg["model_type"] = "mixtral"
    return cfg


def generate(seed: int, version: str, n: int = 12) -> list[dict]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        cfg = _base(BASES[i % len(BASES)], version)
        if i >= 2:  # the first two are the catalog's geometry
            heads = rng.choice([48, 64, 32, 16])
            cfg["num_attention_heads"] = heads
            cfg["num_key_value_heads"] = rng.choice([k for k in (1, 2, 4, 8, 16) if heads % k == 0])
            cfg["head_dim"] = rng.choice([64, 128, 256])
            cfg["rotary_dim"] = cfg["head_dim"] // 2
            cfg["num_hidden_layers"] = rng.choice([1, 2, 3, 5])
            cfg["attn_type_list"] = [1] * cfg["num_hidden_layers"]
        else:
            cfg["num_hidden_layers"] = 62 if i == 0 else 3
            cfg["attn_type_list"] = [1] * cfg["num_hidden_layers"]
        kv_heads = cfg["num_key_value_heads"]
        tp = rng.choice([t for t in (1, 2, 4, 8) if t <= kv_heads or t % kv_heads == 0])
        cases.append({"config": cfg, "tp": tp, "block_size": rng.choice([16, 32, 64]),
                      "kv_cache_dtype": rng.choice(["auto", "fp8"]), "engine_args": {}})
    return cases


def kvguard_answer(case: dict, version: str):
    from kvguard.rules.check import model_facts

    cfg = case["config"]
    facts = model_facts(cfg, vllm_version=version)
    reason = kv_cache_groups_reason(cfg, facts, resolve(version))
    if reason is not None:
        return reason
    dtype = case["kv_cache_dtype"]
    _, b = kv_cache_dtype_bytes(dtype, model_dtype=cfg.get("dtype") or cfg.get("torch_dtype") or "bfloat16",
                                vllm_version=version)
    per_layer = kv_bytes_per_token_per_layer(facts.num_kv_heads(case["tp"]), facts.head_size, b, mla=False)
    return per_layer, facts.kv_bytes_per_token(case["tp"], dtype_bytes=b), facts.num_hidden_layers


def text01_cases(seed: int) -> list[dict]:
    """MiniMax-Text-01 / M1 configs (transformers' ``minimax`` config class) whose ``attn_type_list`` mixes 0
    (linear "lightning" attention) and 1 (softmax attention)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(4):
        layers = rng.choice([2, 3, 4, 6])
        types = [rng.choice([0, 1]) for _ in range(layers)]
        types[rng.randrange(layers)] = 0  # at least one linear layer
        cfg = {"architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax", "hidden_size": 512,
               "num_attention_heads": 8, "num_key_value_heads": rng.choice([1, 2, 8]), "head_dim": 64,
               "num_hidden_layers": layers, "attn_type_list": types, "intermediate_size": 256,
               "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 1000, "max_position_embeddings": 4096,
               "rotary_dim": 64, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6, "postnorm": True}
        cases.append({"config": cfg, "tp": 1, "block_size": 16, "kv_cache_dtype": "auto", "engine_args": {}})
    return cases


@pytest.mark.parametrize("version", VERSIONS)
def test_minimax_kv_bytes_match_the_models_attention_layers(version):
    """MiniMax-M2 (registered 0.11.1+): kvguard's bytes equal the release's pages.  MiniMax-Text-01 (registered
    0.10.2-0.23.0; built by the CPU oracle from 0.11.1), the other side of UNREAD_LAYER_KEYS: minimax_text_01.py builds ``Attention`` only for the layers
    ``attn_type_list`` marks 1, so kvguard must keep refusing to size it.  One oracle start per release for both."""
    release = resolve(version)
    seed = int(os.environ.get("KVG_DIFF_SEED", "7"))
    m2 = generate(seed, version) if release.within("0.11.1") else []
    # (up to 0.11.0 the CPU platform refuses the hybrid model's block size of 128 before the model is built:
    # "--block-size=128 requires intel_extension_for_pytorch", a limit of the CPU oracle)
    text01 = text01_cases(seed) if release.within("0.11.1", "0.23.0") else []
    if not m2 + text01:
        pytest.skip(f"vLLM {version}: no MiniMax model the CPU oracle builds")
    python, python_env = _python(version)
    out = run_runner("kvspec_model_runner.py", python, python_env, m2 + text01)
    assert len(out["results"]) == len(m2) + len(text01)
    agree, undecided, bad = 0, [], []
    for case, rec in zip(m2, out["results"]):
        mine = kvguard_answer(case, version)
        if "error" in rec:
            bad.append({"case": case["config"].get("num_key_value_heads"), "oracle": rec, "kvguard": mine})
            continue
        layers = rec["layers"]
        one_group = (len(layers) == rec["num_hidden_layers"]
                     and all(la["spec_class"] == "FullAttentionSpec" and "DECODER" in la["attn_type"].upper()
                             for la in layers))
        if isinstance(mine, str):
            if one_group:  # kvguard refuses a model the release gives one full-attention group
                undecided.append(mine)
            else:
                agree += 1
            continue
        per_layer, per_rank, num_layers = mine
        pages = [la["page_size_bytes"] / case["block_size"] for la in layers]
        if one_group and num_layers == len(layers) and all(p == per_layer for p in pages) and sum(pages) == per_rank:
            agree += 1
        else:
            bad.append({"tp": case["tp"], "cache": rec["cache_dtype"], "kvguard": mine,
                        "oracle": [(la["num_kv_heads"], la["head_size"], la["spec_class"], la["page_size_bytes"])
                                   for la in layers[:3]], "n": len(layers)})
    print(f"\nvLLM {version}: MiniMax-M2 model KV bytes agree {agree}, undecided {len(undecided)}, "
          f"disagree {len(bad)} of {len(m2)}; MiniMax-Text-01 {len(text01)} configs")
    assert not bad, json.dumps(bad[:3], indent=1)[:4000]
    assert not undecided, undecided[:3]
    for case, rec in zip(text01, out["results"][len(m2):]):
        assert "error" not in rec, rec
        softmax = [i for i, t in enumerate(case["config"]["attn_type_list"]) if t == 1]
        assert [la["prefix"] for la in rec["layers"]] == [f"model.layers.{i}.attn" for i in softmax]
        assert isinstance(kvguard_answer(case, version), str)
