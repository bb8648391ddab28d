"""The differential tier: kvguard against a real vLLM release's own config code.

Generates model configs (many model types, MLA and not, edge values) and
layouts (tp 1..64, pcp 1..4, dcp 0..64, dp 1..2, pp 1..2, expert parallel
on/off), runs them through ``oracle_runner.py`` inside a CPU-only oracle of the
release (tools/oracle_env.py or tools/oracle_venv.sh builds one), and compares
verdict (exception type + message, pydantic entries) and facts with
``kvguard.check(..., entry="config")``.

usage (standalone):
  python tests/upstream/differential.py --vllm 0.28.0 [--python ORACLE_PY] \
      [--configs 60] [--layouts 60] [--seed 1] [--env VLLM_MLA_DISABLE=1] [--report FILE]
Without --python the oracle is looked up with ``oracle_command`` (KVG_ORACLE_ROOT).
Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from packaging.version import Version

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import kvguard  # noqa: E402
from kvguard.errors import Undecidable  # noqa: E402

# ---------------------------------------------------------------------------
# config generators: one per model family; each returns a config.json mapping


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _dense(rng: random.Random, arch: str, model_type: str, *, head_dims=(64, 128), kv_key="num_key_value_heads",
           omit_kv: float = 0.15, extra: dict | None = None) -> dict:
    heads = rng.choice([1, 2, 4, 8, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 96, 128])
    head_dim = rng.choice(head_dims)
    kv = rng.choice(_divisors(heads))
    cfg = {
        "architectures": [arch], "model_type": model_type,
        "hidden_size": heads * head_dim, "num_attention_heads": heads,
        "num_hidden_layers": rng.choice([2, 4, 24, 32, 61, 64, 80]),
        "intermediate_size": 4 * heads * head_dim, "vocab_size": rng.choice([32000, 151936, 128256]),
        "max_position_embeddings": rng.choice([4096, 32768, 131072]), "torch_dtype": "bfloat16",
    }
    if rng.random() > omit_kv:
        cfg[kv_key] = kv
    if extra:
        cfg.update(extra)
    return cfg


def gen_llama(rng):
    return _dense(rng, "LlamaForCausalLM", "llama")


def gen_mistral(rng):
    return _dense(rng, "MistralForCausalLM", "mistral", extra={"sliding_window": None})


def gen_qwen2(rng):
    return _dense(rng, "Qwen2ForCausalLM", "qwen2")


def gen_qwen3(rng):
    cfg = _dense(rng, "Qwen3ForCausalLM", "qwen3", head_dims=(128,))
    if rng.random() < 0.8:
        cfg["head_dim"] = 128
    return cfg


def gen_qwen3_moe(rng):
    cfg = _dense(rng, "Qwen3MoeForCausalLM", "qwen3_moe", head_dims=(128,))
    cfg.update(head_dim=128, num_experts=rng.choice([0, 8, 64, 128]), num_experts_per_tok=8,
               moe_intermediate_size=768)
    return cfg


def gen_mixtral(rng):
    cfg = _dense(rng, "MixtralForCausalLM", "mixtral", head_dims=(128,))
    cfg.update(num_local_experts=rng.choice([8, 16]), num_experts_per_tok=2)
    return cfg


def gen_gemma2(rng):
    cfg = _dense(rng, "Gemma2ForCausalLM", "gemma2", head_dims=(128, 256))
    cfg["head_dim"] = cfg["hidden_size"] // cfg["num_attention_heads"]
    return cfg


def gen_phi3(rng):
    return _dense(rng, "Phi3ForCausalLM", "phi3", head_dims=(96, 128))


def _mla(rng: random.Random, arch: str, model_type: str) -> dict:
    heads = rng.choice([16, 32, 64, 128])
    cfg = {
        "architectures": [arch], "model_type": model_type,
        "hidden_size": rng.choice([2048, 5120, 7168]), "num_attention_heads": heads,
        "num_key_value_heads": heads, "num_hidden_layers": rng.choice([27, 61]),
        "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
        "n_routed_experts": rng.choice([64, 256]), "num_experts_per_tok": 8, "n_shared_experts": 1,
        "first_k_dense_replace": 1, "max_position_embeddings": 163840, "torch_dtype": "bfloat16",
        "q_lora_rank": rng.choice([None, 1536]),
    }
    r = rng.random()
    if r < 0.6:
        cfg["kv_lora_rank"] = 512
    elif r < 0.8:
        cfg["kv_lora_rank"] = None
    # else: absent -> the config class default decides
    if rng.random() < 0.2:
        del cfg["num_key_value_heads"]
    return cfg


def gen_deepseek_v3(rng):
    return _mla(rng, "DeepseekV3ForCausalLM", "deepseek_v3")


def gen_deepseek_v2(rng):
    return _mla(rng, "DeepseekV2ForCausalLM", "deepseek_v2")


def gen_kimi_k2(rng):
    return _mla(rng, "DeepseekV3ForCausalLM", "kimi_k2")


def gen_falcon(rng):
    heads = rng.choice([32, 64, 71, 128])
    cfg = {"architectures": ["FalconForCausalLM"], "model_type": "falcon",
           "hidden_size": heads * 64, "num_attention_heads": heads, "num_hidden_layers": 32,
           "vocab_size": 65024, "torch_dtype": "bfloat16",
           "multi_query": rng.random() < 0.5, "new_decoder_architecture": rng.random() < 0.5,
           "parallel_attn": True, "bias": False, "alibi": False}
    if rng.random() < 0.6:
        cfg["num_kv_heads"] = rng.choice(_divisors(heads))
    return cfg


def gen_gpt_bigcode(rng):
    heads = rng.choice([16, 32, 48])
    return {"architectures": ["GPTBigCodeForCausalLM"], "model_type": "gpt_bigcode",
            "n_embd": heads * 128, "n_head": heads, "n_layer": 40, "n_positions": 8192,
            "vocab_size": 49152, "multi_query": rng.random() < 0.7, "torch_dtype": "bfloat16"}


def gen_mamba(rng):
    return {"architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 2560,
            "num_hidden_layers": 64, "vocab_size": 50280, "state_size": 16, "torch_dtype": "bfloat16"}


def gen_chatglm(rng):
    heads = 32
    return {"architectures": ["ChatGLMModel"], "model_type": "chatglm", "hidden_size": 4096,
            "num_attention_heads": heads, "num_layers": 28, "padded_vocab_size": 65024,
            "multi_query_attention": True, "multi_query_group_num": rng.choice([1, 2, 4, 8]),
            "kv_channels": 128, "seq_length": 8192, "torch_dtype": "bfloat16"}


def gen_gemma(rng):
    cfg = _dense(rng, "GemmaForCausalLM", "gemma", head_dims=(256,))
    if rng.random() < 0.7:
        cfg["head_dim"] = 256
    return cfg


def gen_gemma3_text(rng):
    cfg = _dense(rng, "Gemma3ForCausalLM", "gemma3_text", head_dims=(128, 256))
    cfg["head_dim"] = cfg["hidden_size"] // cfg["num_attention_heads"]
    return cfg


def _nested(rng, arch, model_type, text_type, text_arch="LlamaForCausalLM", extra=None):
    text = _dense(rng, text_arch, text_type)
    del text["architectures"]
    cfg = {"architectures": [arch], "model_type": model_type, "text_config": text, "torch_dtype": "bfloat16"}
    if extra:
        cfg.update(extra)
    return cfg


def gen_gemma3(rng):
    cfg = _nested(rng, "Gemma3ForConditionalGeneration", "gemma3", "gemma3_text",
                  extra={"vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152,
                                           "num_attention_heads": 16, "num_hidden_layers": 27,
                                           "image_size": 896, "patch_size": 14, "intermediate_size": 4304}})
    cfg["text_config"]["head_dim"] = cfg["text_config"]["hidden_size"] // cfg["text_config"]["num_attention_heads"]
    return cfg


#: Gemma 4's text config as google/gemma-4-26B-A4B ships it (layer_types and the sizes varied below)
_GEMMA4_TEXT = {
    "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 2, "dtype": "bfloat16", "eos_token_id": 1,
    "final_logit_softcapping": 30.0, "hidden_activation": "gelu_pytorch_tanh", "hidden_size_per_layer_input": 0,
    "initializer_range": 0.02, "max_position_embeddings": 262144, "model_type": "gemma4_text",
    "num_kv_shared_layers": 0, "pad_token_id": 0, "rms_norm_eps": 1e-06,
    "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                                           "rope_type": "proportional"},
                        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}},
    "sliding_window": 1024, "tie_word_embeddings": True, "use_cache": True, "use_double_wide_mlp": False,
    "vocab_size": 262144, "vocab_size_per_layer_input": 262144,
}
_GEMMA4_VISION = {"model_type": "gemma4_vision", "hidden_size": 1152, "intermediate_size": 4304,
                  "num_attention_heads": 16, "num_hidden_layers": 27, "num_key_value_heads": 16, "head_dim": 72,
                  "global_head_dim": 72, "patch_size": 16, "pooling_kernel_size": 3,
                  "position_embedding_size": 10240, "rope_parameters": {"rope_theta": 100.0, "rope_type": "default"}}


def _gemma4_text(rng: random.Random) -> dict:
    """Sizes around the real Gemma 4 checkpoints (E2B–31B, 26B-A4B): every sixth layer full attention with a
    larger head (``global_head_dim``) and, with ``attention_k_eq_v``, its own KV-head count."""
    text = copy.deepcopy(_GEMMA4_TEXT)
    heads = rng.choice([4, 8, 16, 32])
    layers = rng.choice([6, 12, 30, 35, 60])
    head_dim = rng.choice([128, 256, 256])
    text.update(num_attention_heads=heads, num_hidden_layers=layers, head_dim=head_dim,
                hidden_size=rng.choice([1536, 2560, 2816, 5376]), intermediate_size=rng.choice([2112, 8192, 21504]),
                num_key_value_heads=rng.choice(_divisors(heads)),
                global_head_dim=rng.choice([512, 512, 512, head_dim, head_dim, None]),
                attention_k_eq_v=rng.random() < 0.6,
                num_global_key_value_heads=rng.choice([*_divisors(heads), None]),
                layer_types=[("full_attention" if (i + 1) % 6 == 0 else "sliding_attention")
                             for i in range(layers + (6 if rng.random() < 0.1 else 0))])
    if rng.random() < 0.5:
        text.update(enable_moe_block=True, num_experts=rng.choice([64, 128]), top_k_experts=8,
                    moe_intermediate_size=704)
    else:
        text.update(enable_moe_block=False, num_experts=None, top_k_experts=None)
    if rng.random() < 0.2:
        text["num_kv_shared_layers"] = rng.choice([layers // 3, layers])
    return text


def gen_gemma4_text(rng):
    text = _gemma4_text(rng)
    text["architectures"] = ["Gemma4ForCausalLM"]
    return text


def gen_gemma4(rng):
    text = _gemma4_text(rng)
    text["use_bidirectional_attention"] = rng.choice(["vision", None])
    return {"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4", "dtype": "bfloat16",
            "text_config": text, "vision_config": copy.deepcopy(_GEMMA4_VISION), "audio_config": None,
            "image_token_id": 258880, "tie_word_embeddings": True, "vision_soft_tokens_per_image": 280}


def gen_per_layer(rng):
    """A Llama or Qwen3 config.json with transformers 5's ``per_layer_config`` (layer index -> attribute
    overrides): from transformers 5.x the config becomes heterogeneous, and vLLM 0.28.0+ converts it layer by
    layer; before that the key is one more attribute."""
    cfg = rng.choice([gen_llama, gen_qwen3])(rng)
    layers = cfg["num_hidden_layers"]
    heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    attribute_values = {
        "num_key_value_heads": _divisors(heads),
        "head_dim": [head_dim, 2 * head_dim, head_dim // 2 or 1],
        "num_attention_heads": [heads, 2 * heads, max(1, heads // 2)],
        "max_position_embeddings": [2048, 4096, 131072],
        "sliding_window": [None, 1024],
        "intermediate_size": [1024, 8192],
        "attention_chunk_size": [None, 8192],
    }
    overrides: dict[str, dict] = {}
    for _ in range(rng.choice([1, 1, 2, 3])):
        index = rng.randrange(layers + (2 if rng.random() < 0.1 else 0))
        name = rng.choice(sorted(attribute_values))
        overrides.setdefault(str(index), {})[name] = rng.choice(attribute_values[name])
    cfg["per_layer_config"] = overrides
    return cfg


def gen_llama4(rng):
    cfg = _nested(rng, "Llama4ForConditionalGeneration", "llama4", "llama4_text")
    cfg["text_config"].update(num_local_experts=rng.choice([16, 128]), num_experts_per_tok=1,
                              head_dim=cfg["text_config"]["hidden_size"] // cfg["text_config"]["num_attention_heads"])
    return cfg


def gen_qwen2_5_vl(rng):
    cfg = _dense(rng, "Qwen2_5_VLForConditionalGeneration", "qwen2_5_vl")
    cfg["vision_config"] = {"depth": 32, "hidden_size": 1280, "num_heads": 16, "out_hidden_size": cfg["hidden_size"]}
    if rng.random() < 0.5:  # the newer layout: text parameters in text_config
        text = {k: cfg.pop(k) for k in list(cfg) if k in ("hidden_size", "num_attention_heads", "num_key_value_heads",
                                                         "num_hidden_layers", "intermediate_size", "vocab_size",
                                                         "max_position_embeddings")}
        text["model_type"] = "qwen2_5_vl_text"
        cfg["text_config"] = text
    return cfg


def gen_dbrx(rng):
    heads = rng.choice([16, 32, 48])
    cfg = {"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "d_model": heads * 128, "n_heads": heads,
           "n_layers": 40, "max_seq_len": 32768, "vocab_size": 100352, "torch_dtype": "bfloat16",
           "attn_config": {"clip_qkv": 8, "rope_theta": 500000},
           "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4}}
    if rng.random() < 0.7:
        cfg["attn_config"]["kv_n_heads"] = rng.choice(_divisors(heads))
    return cfg


def gen_mpt(rng):
    heads = rng.choice([16, 32, 64])
    cfg = {"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": heads * 128, "n_heads": heads,
           "n_layers": 32, "max_seq_len": 2048, "vocab_size": 50432, "torch_dtype": "bfloat16",
           "attn_config": {"attn_type": "multihead_attention", "alibi": True}}
    if rng.random() < 0.5:
        cfg["attn_config"]["kv_n_heads"] = rng.choice(_divisors(heads))
    return cfg


def gen_nemotron_nas(rng):
    heads = 64
    blocks = []
    for _ in range(rng.choice([4, 8])):
        no_op = rng.random() < 0.3
        blocks.append({"attention": {"no_op": no_op, "replace_with_linear": False,
                                     "n_heads_in_group": None if no_op else rng.choice([8, 16, 32])},
                       "ffn": {"no_op": False, "replace_with_linear": False, "ffn_mult": 2.625}})
    return {"architectures": ["DeciLMForCausalLM"], "model_type": "nemotron-nas", "hidden_size": 8192,
            "num_attention_heads": heads, "num_hidden_layers": len(blocks), "block_configs": blocks,
            "vocab_size": 128256, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
            "num_key_value_heads": None}


def gen_starcoder2(rng):
    return _dense(rng, "Starcoder2ForCausalLM", "starcoder2")


def gen_olmo2(rng):
    return _dense(rng, "Olmo2ForCausalLM", "olmo2")


def gen_granite(rng):
    return _dense(rng, "GraniteForCausalLM", "granite")


def gen_glm4_moe(rng):
    cfg = _dense(rng, "Glm4MoeForCausalLM", "glm4_moe", head_dims=(128,))
    cfg.update(n_routed_experts=rng.choice([64, 160]), num_experts_per_tok=8, head_dim=128,
               moe_intermediate_size=1408, first_k_dense_replace=1)
    return cfg


def gen_gpt_oss(rng):
    cfg = _dense(rng, "GptOssForCausalLM", "gpt_oss", head_dims=(64,))
    cfg.update(num_local_experts=rng.choice([32, 128]), num_experts_per_tok=4, head_dim=64,
               sliding_window=128)
    return cfg


def gen_phimoe(rng):
    cfg = _dense(rng, "PhiMoEForCausalLM", "phimoe")
    cfg.update(num_local_experts=16, num_experts_per_tok=2)
    return cfg


def gen_qwen2_moe(rng):
    cfg = _dense(rng, "Qwen2MoeForCausalLM", "qwen2_moe")
    cfg.update(num_experts=rng.choice([0, 60]), num_experts_per_tok=4, moe_intermediate_size=1408,
               shared_expert_intermediate_size=5632)
    return cfg


def gen_jamba(rng):
    cfg = _dense(rng, "JambaForCausalLM", "jamba", head_dims=(128,))
    cfg.update(num_experts=16, num_experts_per_tok=2, attn_layer_period=8, attn_layer_offset=4,
               expert_layer_period=2, expert_layer_offset=1, num_hidden_layers=8)
    return cfg


def gen_falcon_mamba(rng):
    return {"architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba", "hidden_size": 4096,
            "num_hidden_layers": 64, "vocab_size": 65024, "state_size": 16, "torch_dtype": "bfloat16"}


def gen_deepseek_mtp(rng):
    cfg = _mla(rng, "DeepSeekMTPModel", "deepseek_mtp")
    cfg["num_nextn_predict_layers"] = rng.choice([1, 2])
    return cfg


def gen_glm4_moe_lite(rng):
    cfg = _mla(rng, "Glm4MoeLiteForCausalLM", "glm4_moe_lite")
    return cfg


def gen_deepseek_v4(rng):
    """DeepSeek-V4-Flash-like sizes; the vision-tower keys decide the convertor's routing (0.30.0+)."""
    cfg = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
           "num_hidden_layers": rng.choice([43, 61]), "num_attention_heads": rng.choice([64, 128]),
           "num_key_value_heads": 1, "head_dim": 512, "vocab_size": 129280, "n_routed_experts": 256,
           "num_experts_per_tok": 6, "n_shared_experts": 1, "moe_intermediate_size": 2048,
           "index_topk": 512, "torch_dtype": "bfloat16"}
    routing = rng.random()
    if routing < 0.4:
        cfg["vision_n_layers"] = rng.choice([0, 2, 24])
    elif routing < 0.5:
        cfg["vision_n_layers"] = rng.choice([None, "24"])
    if rng.random() < 0.15:
        cfg["_dsv4_vl_inner"] = True
    if rng.random() < 0.15:
        cfg["architectures"] = rng.choice([["DeepseekV4ForCausalLM", "DeepseekV4ForCausalLM"],
                                           ["DeepseekV4ForConditionalGeneration"]])
    return cfg


def gen_deepseek_v4_checkpoint(rng):
    """The real DeepSeek-V4-Flash / -Pro config.json (kvguard's catalog), with varied heads, experts, sizes,
    expert dtype, length and quantization: the convertor, length and KV facts of the checkpoints as shipped."""
    from kvguard import catalog

    name = rng.choice(["deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro"])
    cfg = copy.deepcopy(next(e.config for e in catalog.entries() if e.id == name))
    if rng.random() < 0.5:
        cfg["num_attention_heads"] = rng.choice([16, 32, 64, 96, 128])
        cfg["o_groups"] = rng.choice([g for g in (4, 8, 16) if cfg["num_attention_heads"] % g == 0])
    if rng.random() < 0.4:
        cfg["n_routed_experts"] = rng.choice([64, 128, 256, 384, 96])
        cfg["moe_intermediate_size"] = rng.choice([1024, 1536, 2048, 3072])
    if rng.random() < 0.3:
        cfg["max_position_embeddings"] = rng.choice([65536, 131072, 524288])
    if rng.random() < 0.3:
        cfg["expert_dtype"] = rng.choice(["fp8", "fp4"])
    if rng.random() < 0.2:
        cfg.pop("quantization_config")
    if rng.random() < 0.2:
        cfg["rope_scaling"] = dict(cfg["rope_scaling"], factor=rng.choice([4, 8, 32]))
    return cfg


def gen_qwen3_5(rng):
    """Qwen3.5 (text model in text_config), as served: the 0.33.0 convertor checks the checkpoint for a
    joint-schema head (the generated checkpoint has none).  Not its bare ``Qwen3_5Model``: ModelConfig loads
    that one's image processor, a file the generated checkpoint does not have."""
    cfg = _nested(rng, "Qwen3_5ForConditionalGeneration", "qwen3_5", "qwen3_5_text", text_arch="Qwen3_5ForCausalLM")
    cfg["text_config"]["head_dim"] = 256
    return cfg


def gen_qwen3_omni_moe(rng):
    """Qwen3-Omni-MoE: the thinker's text model is the one vLLM serves."""
    text = _dense(rng, "Qwen3OmniMoeThinkerForConditionalGeneration", "qwen3_omni_moe_text")
    del text["architectures"]
    text.update(num_experts=128, num_experts_per_tok=8, moe_intermediate_size=768, head_dim=128)
    return {"architectures": ["Qwen3OmniMoeForConditionalGeneration"], "model_type": "qwen3_omni_moe",
            "thinker_config": {"model_type": "qwen3_omni_moe_thinker", "text_config": text},
            "torch_dtype": "bfloat16"}


MUTATIONS = (
    ("drop", ("num_key_value_heads", "head_dim", "kv_lora_rank", "num_attention_heads", "hidden_size",
              "num_hidden_layers", "max_position_embeddings")),
    ("none", ("num_key_value_heads", "head_dim", "kv_lora_rank", "num_experts", "n_routed_experts")),
    ("string", ("num_key_value_heads", "num_attention_heads", "head_dim")),
    ("float", ("num_key_value_heads", "num_attention_heads")),
    ("zero", ("num_key_value_heads", "num_attention_heads", "head_dim")),
    ("odd_hidden", ("hidden_size",)),
)


#: architecture names no release registers and transformers does not export (vLLM refuses them by name)
UNKNOWN_ARCHS = ("FooForCausalLM", "MyLlamaForCausalLM", "Llama5ForCausalLM", "AcmeMoeForCausalLM",
                 "Step3p7FlashForCausalLM", "NotAModel")


def gen_unregistered(rng):
    """A Llama config under architectures the release may not register: made-up names, text models only
    newer releases register, retired ones, or a mix (vLLM's registry refuses them before any layout is
    seen, listing the names it holds, in its order).  No name transformers exports: with one of those
    first, vLLM tries its Transformers backend, which kvguard does not model."""
    from kvguard import archs

    exported = set(archs._exports().get("names", ()))  # a class of some transformers line
    cfg = _dense(rng, "LlamaForCausalLM", "llama")
    newer = ["MiniMaxM2ForCausalLM", "Qwen3NextForCausalLM", "AXK1ForCausalLM",
             "GlmMoeDsaForCausalLM", "Step3p5ForCausalLM", "BailingMoeV2ForCausalLM"]
    retired = sorted(set(archs._data().get("previously_supported", {})) - exported)
    pools = [list(UNKNOWN_ARCHS), newer, retired or list(UNKNOWN_ARCHS)]
    names = [rng.choice(rng.choice(pools)) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    if rng.random() < 0.15:
        names.append("LlamaForCausalLM")  # a registered one among them: accepted
    cfg["architectures"] = [name for name in names if name not in exported] or ["FooForCausalLM"]
    return cfg


def mutate(rng: random.Random, cfg: dict) -> dict:
    """An edge value for one key the facts read (missing, None, wrong type, zero, odd size)."""
    cfg = json.loads(json.dumps(cfg))
    target = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) and rng.random() < 0.7 else cfg
    kind, keys = rng.choice(MUTATIONS)
    keys = [k for k in keys if k in target] or list(keys)
    key = rng.choice(keys)
    if kind == "drop":
        target.pop(key, None)
    elif kind == "none":
        target[key] = None
    elif kind == "string":
        target[key] = str(target.get(key, 8))
    elif kind == "float":
        target[key] = float(target.get(key, 8) or 8)
    elif kind == "zero":
        target[key] = 0
    else:
        target[key] = int(target.get(key, 4096) or 4096) + rng.choice([1, 64, 100])
    cfg.setdefault("_mutation", f"{kind}:{key}")
    return cfg


def gen_exaone4(rng):
    """EXAONE 4: sliding attention except every ``sliding_window_pattern``-th layer (the 5.x comprehension)."""
    cfg = _dense(rng, "Exaone4ForCausalLM", "exaone4")
    window = rng.choice([None, 4096, 128])
    cfg["sliding_window"] = window
    if window is not None or rng.random() < 0.3:
        cfg["sliding_window_pattern"] = rng.choice([4, 3, 1, 0]) if rng.random() < 0.3 else 4
    if rng.random() < 0.2:
        cfg["layer_types"] = ["full_attention"] * cfg["num_hidden_layers"]
    return cfg


def gen_exaone_moe(rng):
    cfg = gen_exaone4(rng)
    cfg.update({"architectures": ["ExaoneMoEForCausalLM"], "model_type": "exaone_moe",
                "num_experts": rng.choice([64, 128]), "num_experts_per_tok": 8, "num_shared_experts": 1,
                "moe_intermediate_size": rng.choice([1024, 2048]), "first_k_dense_replace": rng.choice([0, 1, 3])})
    return cfg


def gen_ministral3(rng):
    """Ministral 3 text: the YaRN defaults apply when the checkpoint has no RoPE parameters."""
    cfg = _dense(rng, "Ministral3ForCausalLM", "ministral3", head_dims=(128,))
    if rng.random() < 0.5:
        cfg["rope_parameters"] = {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0,
                                  "original_max_position_embeddings": 16384, "beta_fast": 32.0, "beta_slow": 1.0,
                                  "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1}
    return cfg


def gen_minicpm3(rng):
    """MiniCPM3: multi-head latent attention with its own head sizes."""
    heads = rng.choice([20, 40, 64])
    return {"architectures": ["MiniCPM3ForCausalLM"], "model_type": "minicpm3", "hidden_size": heads * 64,
            "num_attention_heads": heads, "num_key_value_heads": heads, "num_hidden_layers": rng.choice([2, 62]),
            "intermediate_size": 6400, "vocab_size": 73448, "max_position_embeddings": 32768,
            "q_lora_rank": 768, "kv_lora_rank": 256, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32,
            "v_head_dim": 64, "scale_depth": rng.choice([1.4, None]), "dim_model_base": 256, "torch_dtype": "bfloat16"}


def gen_lfm2(rng):
    """LFM2: attention on the layers ``full_attn_idxs`` names, short convolutions elsewhere."""
    cfg = _dense(rng, "Lfm2ForCausalLM", "lfm2", head_dims=(64,))
    layers = cfg["num_hidden_layers"]
    if rng.random() < 0.7:
        cfg["full_attn_idxs"] = sorted(rng.sample(range(layers), max(1, layers // 3)))
    cfg["conv_L_cache"] = 3
    return cfg


def gen_gemma3n(rng):
    """Gemma 3n text: per-layer intermediate sizes, full attention every fifth layer, KV sharing."""
    layers = rng.choice([30, 35])
    cfg = {"architectures": ["Gemma3nForCausalLM"], "model_type": "gemma3n_text", "hidden_size": 2048,
           "num_attention_heads": 8, "num_key_value_heads": rng.choice([1, 2, 8]), "head_dim": 256,
           "num_hidden_layers": layers, "vocab_size": 262400, "max_position_embeddings": 32768,
           "sliding_window": 512, "num_kv_shared_layers": rng.choice([0, 10, 15]), "torch_dtype": "bfloat16"}
    cfg["intermediate_size"] = rng.choice([16384, [16384] * layers, [8192] * (layers - 1)])
    if rng.random() < 0.2:
        cfg["activation_sparsity_pattern"] = [0.0] * rng.choice([layers, layers + 1])
    return cfg


def gen_granite_swa(rng):
    """Granite SWA: full attention on layer 0 and every fourth layer after it; per-layer RoPE bases."""
    cfg = _dense(rng, "GraniteSWAForCausalLM", "granite_swa")
    cfg["sliding_window"] = rng.choice([128, 4096, None])
    return cfg


def gen_cohere2_moe(rng):
    cfg = _dense(rng, "Cohere2MoeForCausalLM", "cohere2_moe", head_dims=(128,))
    cfg.update({"sliding_window": 4096, "sliding_window_pattern": 4, "num_experts": 64, "num_experts_per_tok": 8,
                "moe_intermediate_size": 1024})
    if rng.random() < 0.5:
        cfg["first_k_dense_replace"] = rng.choice([1, 3])
        cfg["prefix_dense_sliding_window_pattern"] = rng.choice([2, 4])
    return cfg


def gen_deepseek_v41(rng):
    """DeepSeek-V4.1: the V4 text model nested under ``text_config`` (vLLM's class flattens it), a vision tower."""
    text = gen_deepseek_v4(rng)
    text.pop("architectures")
    text["model_type"] = "deepseek_v4"
    for key in ("vision_n_layers", "_dsv4_vl_inner"):
        text.pop(key, None)
    if rng.random() < 0.3:
        text["rope_scaling"] = {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536,
                                "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}
    if rng.random() < 0.2:
        text["num_labels"] = 3
    if rng.random() < 0.7:   # the per-layer compress ratios V4.1 checkpoints carry (MTP layer included)
        text.update({"num_nextn_predict_layers": 1, "max_position_embeddings": 1048576, "sliding_window": 128,
                     "compress_ratios": [rng.choice([0, 4, 128]) for _ in range(text["num_hidden_layers"] + 1)]})
    cfg = {"architectures": ["DeepseekV41ForCausalLM"], "model_type": "deepseek_v41", "text_config": text,
           "torch_dtype": "bfloat16"}
    if rng.random() < 0.7:
        cfg["vision_config"] = {"num_hidden_layers": rng.choice([0, 24]), "hidden_size": 1024,
                                "num_attention_heads": 16, "max_wh_ratio": rng.choice([None, 4])}
    return cfg


def gen_hy_v4(rng):
    """HY-V4: MLA with a sparse-attention indexer; layer types in the checkpoint's DSA spellings or absent."""
    layers = rng.choice([4, 34])
    heads = rng.choice([16, 32, 64])
    cfg = {"architectures": ["HYV4ForCausalLM"], "model_type": "hy_v4", "hidden_size": 2816,
           "num_attention_heads": heads, "num_key_value_heads": heads, "num_hidden_layers": layers,
           "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64,
           "v_head_dim": 256, "torch_dtype": "bfloat16"}
    if rng.random() < 0.5:
        cfg["layer_types"] = [rng.choice(["sparse_attention", "sparse", "full_attention",
                                          "deepseek_sparse_attention"]) for _ in range(layers)]
    if rng.random() < 0.3:
        cfg["enable_lm_head_fp32"] = rng.choice([True, False])
    return cfg


def gen_smollm3(rng):
    """SmolLM3 (served by vLLM's Transformers backend): RoPE-less layers every fourth, sliding when enabled."""
    cfg = _dense(rng, "SmolLM3ForCausalLM", "smollm3", head_dims=(128,))
    if rng.random() < 0.5:
        cfg.update({"use_sliding_window": True, "sliding_window": rng.choice([None, 4096])})
    return cfg


def gen_olmo3(rng):
    """OLMo 3: sliding attention with full attention every fourth layer, RoPE parameters per layer type."""
    cfg = _dense(rng, "Olmo3ForCausalLM", "olmo3")
    cfg["sliding_window"] = rng.choice([4096, 128])
    if rng.random() < 0.4:
        cfg["rope_theta"] = 500000.0
    return cfg


FAMILIES: dict[str, Callable[[random.Random], dict]] = {
    "llama": gen_llama, "mistral": gen_mistral, "qwen2": gen_qwen2, "qwen3": gen_qwen3,
    "qwen3_moe": gen_qwen3_moe, "mixtral": gen_mixtral, "gemma2": gen_gemma2, "phi3": gen_phi3,
    "deepseek_v3": gen_deepseek_v3, "deepseek_v2": gen_deepseek_v2, "kimi_k2": gen_kimi_k2,
    "falcon": gen_falcon, "gpt_bigcode": gen_gpt_bigcode, "mamba": gen_mamba, "chatglm": gen_chatglm,
    "gemma": gen_gemma, "gemma3_text": gen_gemma3_text, "gemma3": gen_gemma3, "llama4": gen_llama4,
    "qwen2_5_vl": gen_qwen2_5_vl, "dbrx": gen_dbrx, "mpt": gen_mpt, "nemotron-nas": gen_nemotron_nas,
    "starcoder2": gen_starcoder2, "olmo2": gen_olmo2, "granite": gen_granite, "glm4_moe": gen_glm4_moe,
    "gpt_oss": gen_gpt_oss, "phimoe": gen_phimoe, "qwen2_moe": gen_qwen2_moe, "jamba": gen_jamba,
    "falcon_mamba": gen_falcon_mamba, "deepseek_mtp": gen_deepseek_mtp, "glm4_moe_lite": gen_glm4_moe_lite,
    "deepseek_v4": gen_deepseek_v4, "deepseek_v4_checkpoint": gen_deepseek_v4_checkpoint, "qwen3_5": gen_qwen3_5, "qwen3_omni_moe": gen_qwen3_omni_moe,
    "gemma4_text": gen_gemma4_text, "gemma4": gen_gemma4, "per_layer": gen_per_layer,
    "unregistered": gen_unregistered, "exaone4": gen_exaone4, "exaone_moe": gen_exaone_moe,
    "ministral3": gen_ministral3, "minicpm3": gen_minicpm3, "lfm2": gen_lfm2, "gemma3n": gen_gemma3n,
    "granite_swa": gen_granite_swa, "cohere2_moe": gen_cohere2_moe, "deepseek_v41": gen_deepseek_v41,
    "hy_v4": gen_hy_v4, "smollm3": gen_smollm3, "olmo3": gen_olmo3,
}


#: the first release whose model registry has the family's architecture (before it vLLM falls back to its
#: Transformers backend, which kvguard does not model: such configs are not generated there)
#: families generated only when named (--families): the default sample of the CI runs stays as it was
OPT_IN = frozenset({"deepseek_v4_checkpoint", "gemma4_text", "gemma4", "per_layer", "unregistered", "exaone4",
                    "exaone_moe", "ministral3", "minicpm3", "lfm2", "gemma3n", "granite_swa", "cohere2_moe",
                    "deepseek_v41", "hy_v4", "smollm3", "olmo3"})
FAMILY_SINCE = {"gemma4_text": Version("0.19.0"), "gemma4": Version("0.19.0"), "deepseek_v4": Version("0.20.0"), "deepseek_v4_checkpoint": Version("0.20.0"), "qwen3_5": Version("0.17.0"),
                "qwen3_omni_moe": Version("0.11.1"), "granite_swa": Version("0.29.0"),
                "deepseek_v41": Version("0.30.0"), "hy_v4": Version("0.29.0")}

#: the first release whose ParallelConfig has the field (older ones reject it as an unknown argument)
FIELD_SINCE = {"prefill_context_parallel_size": Version("0.12.0")}


def gen_layout(rng: random.Random, cfg: dict, version: str | None = None) -> dict:
    """A layout: half plausible (tp divides the heads, dcp divides tp), half anywhere in range.

    With ``version``, fields that release lacks are left out (pcp is then 1).
    """
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else cfg
    heads = text.get("num_attention_heads") or text.get("n_head") or text.get("n_heads")
    if not isinstance(heads, int) or isinstance(heads, bool) or heads < 1:
        heads = 32
    if rng.random() < 0.5:
        tp = rng.choice([d for d in _divisors(heads) if d <= 64] or [1])
        pcp = rng.choice([1, 1, 1, 2, 4])
        dcp = rng.choice([1, 1, *[d for d in _divisors(tp)], pcp, tp * pcp])
    else:
        tp = rng.choice([1, 2, 3, 4, 6, 8, 16, 32, 64, rng.randint(1, 64)])
        pcp = rng.choice([1, 1, 2, 3, 4])
        dcp = rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64, rng.randint(0, 64), pcp, tp, tp * pcp])
    layout = {"tensor_parallel_size": tp, "decode_context_parallel_size": min(dcp, 64),
              "prefill_context_parallel_size": pcp,
              "data_parallel_size": rng.choice([1, 1, 2]), "pipeline_parallel_size": rng.choice([1, 1, 2]),
              "enable_expert_parallel": rng.random() < 0.25}
    if version is not None:
        release = Version(version).release
        for name, since in FIELD_SINCE.items():
            if release < since.release:
                del layout[name]
    return layout


def generate(seed: int, n_configs: int, n_layouts: int, mutation_rate: float = 0.2,
             version: str | None = None, families: "list[str] | None" = None) -> list[dict]:
    rng = random.Random(seed)
    names = sorted(name for name in (families or [f for f in FAMILIES if f not in OPT_IN])
                   if version is None or name not in FAMILY_SINCE or Version(version) >= FAMILY_SINCE[name])
    rng.shuffle(names)
    cases = []
    for i in range(n_configs):
        family = names[i % len(names)]
        cfg = FAMILIES[family](rng)
        if rng.random() < mutation_rate:
            cfg = mutate(rng, cfg)
            family += "+" + cfg.pop("_mutation")
        layouts = [gen_layout(rng, cfg, version) for _ in range(n_layouts)]
        cases.append({"id": f"{family}-{i}", "family": family, "config": cfg, "layouts": layouts})
    return cases


def catalog_cases(seed: int, n_layouts: int, version: str | None = None,
                  only: "list[str] | None" = None) -> list[dict]:
    """Every built-in catalog checkpoint's config.json as published (``only``: those ids), unchanged, each
    with ``n_layouts`` generated layouts: kvguard's verdicts on the configs its users launch by name.  The
    oracle sees config.json alone (a ModelOpt export's hf_quant_config.json is the quantization tier's)."""
    from kvguard import catalog

    rng = random.Random(seed)
    cases = []
    for entry in catalog.entries():
        if only is not None and entry.id not in only:
            continue
        cfg = copy.deepcopy(entry.config)
        layouts = [gen_layout(rng, cfg, version) for _ in range(n_layouts)]
        # a catalog checkpoint may be one kvguard cannot decide (vLLM's Transformers backend): counted apart
        cases.append({"id": f"catalog:{entry.id}", "family": "catalog", "config": cfg, "layouts": layouts,
                      "undecidable_ok": True})
    return cases


# ---------------------------------------------------------------------------


def oracle_command(version: str, root: str | os.PathLike | None = None) -> tuple[str, dict[str, str]] | None:
    """(python, environment overrides) of the oracle for ``version``, or None if none is built.

    Under ``root`` (default $KVG_ORACLE_ROOT or ~/.cache/kvguard-oracle): first the layout of
    tools/oracle_env.py (a base env per transformers line, the release on PYTHONPATH), then
    the older venv per release, ``<root>/<version>/bin/python`` (no overrides).
    """
    root = Path(root or os.environ.get("KVG_ORACLE_ROOT") or os.path.expanduser("~/.cache/kvguard-oracle"))
    tool = HERE.parents[1] / "tools" / "oracle_env.py"
    if (root / "releases" / version).is_dir() and tool.exists():
        import importlib.util

        spec = importlib.util.spec_from_file_location("kvguard_oracle_env", tool)
        oracle_env = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(oracle_env)
        found = oracle_env.command(root.expanduser().resolve(), version)
        if found:
            return found
    venv_python = root / version / "bin" / "python"
    if venv_python.exists():
        return str(venv_python), {}
    return None


def run_oracle(python: str, cases: list[dict], env: dict[str, str], timeout: int = 3600,
               python_env: dict[str, str] | None = None) -> list[dict]:
    """``python_env``: the oracle's own environment overrides (``oracle_command``'s second item)."""
    with tempfile.TemporaryDirectory(prefix="kvg-diff-") as tmp:
        inp, out = os.path.join(tmp, "cases.json"), os.path.join(tmp, "out.json")
        with open(inp, "w") as fh:
            json.dump({"env": env, "cases": cases}, fh)
        # TMPDIR: the runner's per-case work folders go inside ``tmp`` and leave with it
        proc_env = dict(os.environ, HF_HUB_OFFLINE="1", VLLM_CACHE_ROOT=os.path.join(tmp, "vllm-cache"), TMPDIR=tmp)
        proc_env.update(python_env or {})
        proc_env.update(env)
        proc = subprocess.run([python, str(HERE / "oracle_runner.py"), inp, out], env=proc_env,
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"oracle failed ({proc.returncode}): {proc.stderr[-2000:]}")
        with open(out) as fh:
            return json.load(fh)


def _kv_outcome(verdict) -> dict:
    if verdict.ok:
        return {"stage": "ok"}
    out = {"exc_type": verdict.exc_type, "message": verdict.message}
    if verdict.exc_type == "ValidationError":
        out["errors"] = [{"type": e.type, "loc": list(e.loc), "msg": e.msg} for e in verdict.errors]
    return out


def _oracle_outcome(rec: dict) -> dict:
    if rec.get("stage") == "ok":
        return {"stage": "ok"}
    message = rec.get("message")
    if isinstance(message, str) and rec.get("model_path"):
        # the oracle's checkpoint is a temporary directory; kvguard names a config given as a dict "/model"
        message = message.replace(rec["model_path"], "/model")
    out = {"exc_type": rec.get("exc_type"), "message": message}
    if rec.get("exc_type") == "ValidationError":
        out["errors"] = rec.get("errors")
    return out


FACT_KEYS = ("use_mla", "total_num_kv_heads", "total_num_attention_heads", "head_size", "num_hidden_layers")


def _kv_fact(facts, key: str):
    """A fact as oracle_runner records it: the value, or the error its read raises (0.10.2-0.13.0
    compute facts on demand, so a bad config fails only where the fact is read)."""
    crash = (getattr(facts, "deferred", None) or {}).get(key)
    if crash is not None:
        return {"error": crash.exc_type, "message": crash.message}
    return getattr(facts, key)


def _model_config_rows(facts, case: dict, version: str, env: dict[str, str]) -> dict:
    """What kvguard answers for a config ModelConfig refuses, when the facts derive: ModelConfig's own checks
    that kvguard runs as rule rows (the quantization method, …), on the case's first layout."""
    try:
        verdict = kvguard.check(facts, case["layouts"][0], vllm_version=version, env=env, entry="config")
    except Undecidable as exc:
        return {"undecidable": str(exc)}
    return _kv_outcome(verdict) if not verdict.ok and verdict.stage == "model_config" else {"stage": "ok"}


def compare(version: str, cases: list[dict], results: list[dict], env: dict[str, str]) -> dict[str, Any]:
    """Compare every case/layout; returns counts and the mismatches."""
    counts: Counter = Counter()
    per_family: Counter = Counter()
    mismatches: list[dict] = []
    host_failures: list[dict] = []
    by_id = {r["id"]: r for r in results}

    def undecided(family: str) -> None:  # a case kvguard may leave undecided (catalog checkpoints)
        counts["undecided"] += 1
        per_family[(family, "undecided")] += 1

    for case in cases:
        rec = by_id[case["id"]]
        fam = case.get("family", "?")
        try:
            facts = kvguard.model_facts(case["config"], vllm_version=version, env=env)
            kv_model_crash = None
        except kvguard.ModelConfigRefused as exc:
            facts, kv_model_crash = None, exc.verdict
        except Undecidable as exc:
            counts["undecidable_configs"] += 1
            if case.get("undecidable_ok"):
                undecided(fam)
                continue
            mismatches.append({"id": case["id"], "what": "undecidable", "kvguard": str(exc),
                               "oracle": rec.get("stage")})
            continue
        if rec["stage"] == "model" and "failed to be inspected" in (rec.get("message") or ""):
            # the oracle host could not import the model class (a missing optional package such as
            # torchvision): an artefact of the CPU venv, not vLLM's answer for this config
            counts["oracle_env_failures"] += 1
            host_failures.append({"id": case["id"], "message": (rec.get("message") or "")[:300]})
            continue
        if rec["stage"] == "model":
            counts["model_refusals"] += 1
            got = _kv_outcome(kv_model_crash) if kv_model_crash else _model_config_rows(facts, case, version, env)
            want = _oracle_outcome(rec)
            if "undecidable" in got and case.get("undecidable_ok"):
                undecided(fam)
                continue
            if got == want:
                counts["agree"] += 1
                per_family[(fam, "agree")] += 1
            else:
                counts["disagree"] += 1
                per_family[(fam, "disagree")] += 1
                mismatches.append({"id": case["id"], "what": "model_config", "kvguard": got, "oracle": want,
                                   "config": case["config"]})
            continue
        if kv_model_crash is not None:
            counts["disagree"] += len(case["layouts"])
            per_family[(fam, "disagree")] += len(case["layouts"])
            mismatches.append({"id": case["id"], "what": "model_config", "kvguard": _kv_outcome(kv_model_crash),
                               "oracle": "accepted", "config": case["config"]})
            continue
        fact_diff = {k: (_kv_fact(facts, k), rec["facts"].get(k)) for k in FACT_KEYS
                     if _kv_fact(facts, k) != rec["facts"].get(k)}
        counts["facts_compared"] += 1
        if fact_diff:
            counts["facts_disagree"] += 1
            mismatches.append({"id": case["id"], "what": "facts", "diff": fact_diff, "config": case["config"]})
        for lay, orec in zip(case["layouts"], rec["layouts"]):
            counts["layouts"] += 1
            try:
                verdict = kvguard.check(facts, lay, vllm_version=version, env=env, entry="config")
            except Undecidable as exc:
                verdict = None
                got = {"undecidable": str(exc)}
            else:
                got = _kv_outcome(verdict)
            want = _oracle_outcome(orec)
            if verdict is None and case.get("undecidable_ok"):
                undecided(fam)
                continue
            same = got == want
            if same and verdict is not None and verdict.ok and isinstance(orec.get("num_kv_heads"), int):
                if facts.num_kv_heads(lay["tensor_parallel_size"]) != orec["num_kv_heads"]:
                    same = False
                    got = dict(got, num_kv_heads=facts.num_kv_heads(lay["tensor_parallel_size"]))
                    want = dict(want, num_kv_heads=orec["num_kv_heads"])
            if same:
                counts["agree"] += 1
                per_family[(fam, "agree")] += 1
            else:
                counts["disagree"] += 1
                per_family[(fam, "disagree")] += 1
                mismatches.append({"id": case["id"], "layout": lay, "kvguard": got, "oracle": want})
            counts["oracle_" + ("ok" if want.get("stage") == "ok" else "refused")] += 1
    return {"version": version, "env": env, "counts": dict(counts),
            "families": {f"{f}:{k}": v for (f, k), v in sorted(per_family.items())},
            "mismatches": mismatches, "oracle_host_failures": host_failures,
            "inspect": os.environ.get("KVG_ORACLE_INSPECT", "subprocess")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vllm", required=True, help="vLLM release of the oracle venv")
    ap.add_argument("--python", help="the oracle venv's python (default: oracle_command(VLLM))")
    ap.add_argument("--configs", type=int, default=60)
    ap.add_argument("--layouts", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--env", action="append", default=[], help="K=V seen by both sides")
    ap.add_argument("--families", help="comma-separated config families (default: all)")
    ap.add_argument("--report", help="write the full JSON report here")
    ap.add_argument("--catalog", nargs="*", metavar="ID",
                    help="instead of generated configs: every built-in catalog checkpoint (or the ids given) "
                         "unchanged, with --layouts layouts each")
    args = ap.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    python, python_env = args.python, {}
    if python is None:
        found = oracle_command(args.vllm)
        if found is None:
            ap.error(f"no oracle for vLLM {args.vllm}: python tools/oracle_env.py ensure {args.vllm}")
        python, python_env = found
    families = args.families.split(",") if args.families else None
    unknown = sorted(set(families or ()) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families: {', '.join(unknown)}")
    if args.catalog is not None:
        cases = catalog_cases(args.seed, args.layouts, version=args.vllm, only=args.catalog or None)
    else:
        cases = generate(args.seed, args.configs, args.layouts, version=args.vllm, families=families)
    results = run_oracle(python, cases, env, python_env=python_env)
    report = compare(args.vllm, cases, results, env)
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1, default=str))
    c = report["counts"]
    print(f"vLLM {args.vllm} env={env}: {c.get('agree', 0)} agree, {c.get('disagree', 0)} disagree, "
          f"{c.get('undecided', 0)} undecided "
          f"({c.get('layouts', 0)} layouts on {c.get('facts_compared', 0)} configs, "
          f"{c.get('model_refusals', 0)} configs refused by ModelConfig; oracle ok={c.get('oracle_ok', 0)} "
          f"refused={c.get('oracle_refused', 0)}; facts disagree={c.get('facts_disagree', 0)}; "
          f"undecidable configs={c.get('undecidable_configs', 0)}; oracle host failures="
          f"{c.get('oracle_env_failures', 0)})")
    for m in report["mismatches"][:15]:
        print("  MISMATCH", json.dumps(m, default=str)[:600])
    return 0 if not report["mismatches"] else 1


if __name__ == "__main__":
    sys.exit(main())
