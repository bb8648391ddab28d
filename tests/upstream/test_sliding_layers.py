"""Sliding-window layers of whole models: kvguard.kv.sliding vs the attention layers a release's model class builds.

``tests/upstream/kvspec_model_runner.py`` builds the model of a config through the release's own
``EngineArgs(...).create_engine_config()`` (so ``CacheConfig.sliding_window`` is the release's) with the ``Attention``
class replaced by a recorder, and builds the release's ``FullAttentionSpec`` / ``SlidingWindowSpec`` for each layer
from the window the model hands it (else the cache config's).  kvguard's :func:`kvguard.kv.sliding.
sliding_layer_windows` must give every layer the same window (None = full attention), and the layers one page size
equal to kvguard's per-layer bytes; where kvguard declines (a reason) the case is "undecided" and reported — allowed
only where the release does not build the model (Qwen2 with mixed layer types asserts) or the test says so.

Configs: small gpt-oss (from the catalog's gpt-oss-20b), Gemma 2, Gemma 3 (text), Cohere2, Mistral (from the
catalog's Mistral-7B-Instruct-v0.3, with and without a window), Llama (layer_types all full, all sliding, mixed
or absent, with and without a window), Qwen2 (from Qwen2.5-72B-Instruct) and Qwen3 with
``use_sliding_window`` and ``max_window_layers`` of every kind, some under ``--disable-sliding-window``.
Releases: KVG_SLIDING_MODEL_VERSIONS (default "0.11.1 0.28.0", a sample: each release builds every model, ~15 s;
the full run names all 24 group releases); KVG_SLIDING_MODEL_CASES (default 12).
"""

from __future__ import annotations

import copy
import json
import os
import random

import pytest

from kvguard import catalog
from kvguard.kv.kvsize import kv_bytes_per_token_per_layer, kv_cache_dtype_bytes
from kvguard.kv.sliding import sliding_layer_windows
from kvguard.versions import resolve

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_SLIDING_MODEL_VERSIONS", "0.11.1 0.28.0").split()


def _small(rng: random.Random) -> dict:
    heads, head_dim = rng.choice([4, 8]), rng.choice([64, 128])
    # hidden_size = heads * head_dim: Qwen2 and Cohere2 derive the head size from it
    return {"num_attention_heads": heads, "num_key_value_heads": rng.choice([1, 2, heads]),
            "head_dim": head_dim, "hidden_size": heads * head_dim, "intermediate_size": 256, "vocab_size": 1000,
            "num_hidden_layers": rng.choice([2, 3, 5, 6, 7, 12]), "torch_dtype": "bfloat16"}


def _gpt_oss(rng):
    cfg = copy.deepcopy(catalog.lookup("openai/gpt-oss-20b").config)
    cfg.pop("quantization_config", None)  # the KV cache does not depend on the experts' MXFP4 weights
    cfg.update(_small(rng), num_local_experts=4, experts_per_token=2, num_experts_per_tok=2,
               sliding_window=rng.choice([128, 64, 4096]))
    n = cfg["num_hidden_layers"]
    cfg["layer_types"] = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n)]
    return cfg


def _gemma2(rng):
    cfg = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "sliding_window": rng.choice([4096, 512]),
           "query_pre_attn_scalar": 64, "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
           "hidden_activation": "gelu_pytorch_tanh", "hidden_act": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
           "rope_theta": 10000.0, "max_position_embeddings": 8192}
    cfg.update(_small(rng))
    return cfg


def _gemma3(rng):
    cfg = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "sliding_window": rng.choice([512, 1024]),
           "sliding_window_pattern": 6, "query_pre_attn_scalar": 64, "rope_local_base_freq": 10000.0,
           "rope_theta": 1000000.0, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
           "max_position_embeddings": 32768}
    cfg.update(_small(rng))
    return cfg


def _cohere2(rng):
    cfg = {"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "sliding_window": 4096,
           "sliding_window_pattern": 4, "logit_scale": 0.25, "layer_norm_eps": 1e-5, "rope_theta": 50000.0,
           "max_position_embeddings": 8192}
    cfg.update(_small(rng))
    cfg.pop("head_dim")  # Cohere2 derives it from hidden_size / num_attention_heads
    return cfg


def _mistral(rng):
    cfg = copy.deepcopy(catalog.lookup("mistralai/Mistral-7B-Instruct-v0.3").config)
    cfg.update(_small(rng), sliding_window=rng.choice([4096, None, 1024]))
    return cfg


def _llama(rng):
    """Llama with layer_types of every kind and a sliding_window (kept as an attribute by LlamaConfig): all
    full_attention slides every layer through CacheConfig.sliding_window in 0.11.1-0.26.0, not in 0.27.0+."""
    cfg = copy.deepcopy(catalog.lookup("mistralai/Mistral-7B-Instruct-v0.3").config)
    cfg.update(_small(rng), architectures=["LlamaForCausalLM"], model_type="llama",
               sliding_window=rng.choice([4096, None]), use_sliding_window=False)
    n = cfg["num_hidden_layers"]
    kind = rng.choice(["full", "sliding", "mixed", "absent"])
    if kind != "absent":
        cfg["layer_types"] = [("sliding_attention" if kind == "sliding" or (kind == "mixed" and i % 2) else
                               "full_attention") for i in range(n)]
    return cfg


def _qwen2(rng):
    cfg = copy.deepcopy(catalog.lookup("Qwen/Qwen2.5-72B-Instruct").config)
    cfg.update(_small(rng))
    n = cfg["num_hidden_layers"]
    cfg.update(use_sliding_window=rng.choice([True, False]), sliding_window=rng.choice([4096, 131072]),
               max_window_layers=rng.choice([0, n, n // 2]))
    return cfg


def _qwen3(rng):
    cfg = _qwen2(rng)
    cfg.update(architectures=["Qwen3ForCausalLM"], model_type="qwen3")
    return cfg


BUILDERS = (_gpt_oss, _gemma2, _gemma3, _cohere2, _mistral, _llama, _qwen2, _qwen3)


def generate(seed: int, n: int = 12) -> list[dict]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        cfg = BUILDERS[i % len(BUILDERS)](rng)
        # prefix caching off: 0.11.0 runs a sliding-window model on the CPU platform with the V0 engine, whose
        # CacheConfig refuses prefix caching with a window (on CUDA it is V1); the windows do not depend on it
        engine_args = {"enable_prefix_caching": False}
        if rng.random() < 0.2:
            engine_args["disable_sliding_window"] = True
        cases.append({"config": cfg, "tp": 1, "block_size": 16, "kv_cache_dtype": "auto", "engine_args": engine_args})
    return cases


@pytest.mark.parametrize("version", VERSIONS)
def test_sliding_layer_windows_match_the_models_attention_layers(version):
    import kvguard

    release = resolve(version)
    cases = generate(int(os.environ.get("KVG_DIFF_SEED", "7")), int(os.environ.get("KVG_SLIDING_MODEL_CASES", "12")))
    python, python_env = _python(version)
    out = run_runner("kvspec_model_runner.py", python, python_env, cases)
    assert len(out["results"]) == len(cases)
    agree, undecided, bad = 0, [], []
    built_sliding, built_errors = 0, 0
    for case, rec in zip(cases, out["results"]):
        built_errors += "error" in rec
        built_sliding += any(la.get("sliding_window") is not None for la in rec.get("layers", ()))
        cfg = case["config"]
        arch = cfg["architectures"][0]
        try:
            facts = kvguard.model_facts(cfg, vllm_version=version)
        except kvguard.KvguardError as exc:
            windows, why = None, f"{type(exc).__name__}: {exc}"
        else:
            windows, why = sliding_layer_windows(facts, release, cfg,
                                                 disable_sliding_window=case["engine_args"].get("disable_sliding_window", False))
        if "error" in rec:
            print(f"  not built: {arch}: {rec['error'][:200]}")
            verdict = kvguard.check(cfg, vllm_version=version, tp=case["tp"],
                                    disable_sliding_window=case["engine_args"].get("disable_sliding_window", False))
            if windows is None or (not verdict.ok and rec["error"].startswith(f"{verdict.exc_type}: ")):
                # the release does not build it; kvguard does not size it, or its check refuses the launch as the
                # release does (0.10.2-0.11.1: --disable-sliding-window with rope_scaling)
                agree += 1
            else:
                bad.append({"arch": arch, "oracle error": rec["error"][:300], "kvguard": windows})
            continue
        theirs = [la.get("sliding_window") for la in rec["layers"] if "DECODER" in la.get("attn_type", "").upper()]
        if windows is None:
            undecided.append({"arch": arch, "why": why, "oracle": theirs})
            continue
        _, b = kv_cache_dtype_bytes("auto", model_dtype="bfloat16")
        per_layer = kv_bytes_per_token_per_layer(facts.num_kv_heads(case["tp"]), facts.head_size, b, mla=False)
        pages = {la["page_size_bytes"] for la in rec["layers"]}
        if theirs != windows or len(rec["layers"]) != facts.num_hidden_layers \
                or pages != {per_layer * case["block_size"]}:
            bad.append({"arch": arch, "engine_args": case["engine_args"], "kvguard": windows, "oracle": theirs,
                        "pages": sorted(pages), "kvguard page": per_layer * case["block_size"]})
        else:
            agree += 1
    print(f"\nvLLM {version}: sliding-window layers agree {agree}, undecided {len(undecided)}, disagree {len(bad)} "
          f"of {len(cases)} ({built_sliding} built with sliding-window layers, {built_errors} not built)")
    for u in undecided:
        print("  undecided:", json.dumps(u)[:300])
    assert not bad, json.dumps(bad[:3], indent=1)[:4000]
