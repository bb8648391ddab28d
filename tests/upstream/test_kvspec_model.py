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

import kvguard
from kvguard import catalog
from kvguard.kv.kvsize import cache_layers, kv_bytes_per_token_per_layer, kv_cache_dtype_bytes, kv_cache_groups_reason
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


#: the releases whose CPU oracle builds a MiniMax model (MiniMax-M2 is registered from 0.11.1; up to 0.11.0 the CPU
#: platform refuses the hybrid Text-01's block size of 128 before the model is built: "--block-size=128 requires
#: intel_extension_for_pytorch", a limit of the CPU oracle)
BUILT = [v for v in VERSIONS if resolve(v).within("0.11.1")]


@pytest.mark.parametrize("version", BUILT)
def test_minimax_kv_bytes_match_the_models_attention_layers(version):
    """MiniMax-M2 (registered 0.11.1+): kvguard's bytes equal the release's pages.  MiniMax-Text-01 (registered
    0.10.2-0.23.0; built by the CPU oracle from 0.11.1), the other side of UNREAD_LAYER_KEYS: minimax_text_01.py builds ``Attention`` only for the layers
    ``attn_type_list`` marks 1, so kvguard must keep refusing to size it.  One oracle start per release for both."""
    release = resolve(version)
    seed = int(os.environ.get("KVG_DIFF_SEED", "7"))
    m2 = generate(seed, version)
    text01 = text01_cases(seed) if release.within("0.11.1", "0.23.0") else []
    python, python_env = _python(version)
    out = run_runner("kvspec_model_runner.py", python, python_env, m2 + text01)
    assert len(out["results"]) == len(m2) + len(text01)
    agree, undecided, bad = 0, [], []
    for case, rec in zip(m2, out["results"]):
        mine = kvguard_answer(case, version)
        if "error" in rec:
            bad.append({"case": case["config"].get("num_key_value_heads"), "oracle": rec, "kvguard": mine})
            continue
        layers = [la for la in rec["layers"] if "shared_with" not in la]
        one_group = (len(layers) == len(rec["layers"]) == rec["num_hidden_layers"]
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


#: the first release that builds a Gemma 4 launch (the per-layer conversion); before it ModelConfig refuses
GEMMA4_BUILT = [v for v in VERSIONS if resolve(v).within("0.28.0")]


def gemma4_cases(seed: int, n: int = 8) -> list[dict]:
    """Gemma 4 text configs (the differential tier's generator: sliding layers with head_dim, full-attention layers
    with global_head_dim and, with attention_k_eq_v, their own KV heads), a few layers, a third of them reading an
    earlier layer's KV cache in some (num_kv_shared_layers, as Gemma 4 E2B / E4B)."""
    from .differential import _gemma4_text

    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        cfg = _gemma4_text(rng)
        shared = rng.choice([0, 0, 4])
        # a sharing layer needs an earlier layer of its type (else the model raises while it is built)
        layers = 12 if shared else rng.choice([6, 7, 12])
        cfg.update(architectures=["Gemma4ForCausalLM"], num_hidden_layers=layers, num_kv_shared_layers=shared,
                   layer_types=[("full_attention" if (i + 1) % 6 == 0 else "sliding_attention") for i in range(layers)],
                   global_head_dim=rng.choice([512, cfg["head_dim"]]))
        if cfg.get("enable_moe_block"):
            cfg["num_experts"] = 8
        kv_heads = [k for k in (cfg["num_key_value_heads"], cfg.get("num_global_key_value_heads")) if k]
        tp = rng.choice([t for t in (1, 2, 4, 8) if cfg["num_attention_heads"] % t == 0
                         and all(t <= k or t % k == 0 for k in kv_heads)])
        cases.append({"config": cfg, "tp": tp, "block_size": rng.choice([16, 32]),
                      "kv_cache_dtype": rng.choice(["auto", "fp8"]), "engine_args": {}})
    return cases


@pytest.mark.parametrize("version", GEMMA4_BUILT)
def test_gemma4_layers_get_their_own_kv_heads_and_head_size(version):
    """A heterogeneous Gemma 4 config: every attention layer the release builds has the KV heads per rank and the
    head size kvguard gives that layer (ModelFacts.layer_kv: vLLM's model_arch_config[i]), and the per-token bytes
    of the layers sum to audit's exact figure."""
    from kvguard.kv.economics import audit

    cases = gemma4_cases(int(os.environ.get("KVG_DIFF_SEED", "7")))
    python, python_env = _python(version)
    out = run_runner("kvspec_model_runner.py", python, python_env, cases)
    assert len(out["results"]) == len(cases)
    bad = []
    for case, rec in zip(cases, out["results"]):
        assert "error" not in rec, rec.get("error")
        facts = kvguard.model_facts(case["config"], vllm_version=version)
        own, unmodelled = cache_layers(facts, resolve(version))
        assert unmodelled is None, unmodelled
        layer_kv = own or ((facts.total_num_kv_heads, facts.head_size),) * facts.num_hidden_layers
        mine = [(max(1, kv // case["tp"]), size) for kv, size in layer_kv]
        theirs = [(la["num_kv_heads"], la["head_size"]) for la in rec["layers"] if "shared_with" not in la]
        if len(rec["layers"]) != facts.num_hidden_layers:
            bad.append({"layers built": len(rec["layers"]), "kvguard": facts.num_hidden_layers})
        report = audit(case["config"], tp=case["tp"], vllm_version=version,
                       kv_cache_dtype=case["kv_cache_dtype"]).models[0]
        pages = sum(la.get("page_size_bytes", 0) for la in rec["layers"]) / case["block_size"]
        if mine != theirs or report.kv_bytes_per_token_per_rank != pages:
            bad.append({"tp": case["tp"], "kvguard": mine, "oracle": theirs,
                        "bytes": (report.kv_bytes_per_token_per_rank, pages)})
    print(f"\nvLLM {version}: Gemma 4 per-layer KV agree {len(cases) - len(bad)}, disagree {len(bad)}")
    assert not bad, json.dumps(bad[:3], indent=1)[:4000]
