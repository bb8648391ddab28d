"""Model-fact traps, with expected values taken from real vLLM + transformers runs.

Every expected value below was read from ``data/unit_oracle_<release>.json``
(the real ``get_config`` in the vLLM 0.20.0 / transformers 4.57.6 and vLLM
0.28.0 / transformers 5.24.0 venvs), not from kvguard.
"""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.facts.loader import LoadCrash, hf_text_config, load_config
from kvguard.versions import resolve

from ._util import read

CASES = {c["id"]: c for c in read("unit_cases.json")}
V4, V5 = resolve("0.20.0"), resolve("0.28.0")
BOTH = pytest.mark.parametrize("rel", [V4, V5], ids=["0.20.0", "0.28.0"])


def load(case_id, rel):
    c = CASES[case_id]
    return load_config(c["config"], rel, path=c["path"])


@BOTH
def test_deepseek_v3_class_default_kv_lora_rank(rel):
    cfg = load("dsv3_no_kv_lora_rank", rel)
    assert "kv_lora_rank" not in CASES["dsv3_no_kv_lora_rank"]["config"]
    assert cfg.kv_lora_rank == 512


@BOTH
def test_deepseek_v2_head_dim_is_qk_rope_head_dim(rel):
    cfg = load("dsv2_head_dim", rel)
    assert cfg.head_dim == 64
    assert cfg.num_key_value_heads == 128


def test_mpt_attn_config_drops_kv_n_heads_on_4x():
    cfg = load("mpt_kv_n_heads", V4)
    assert cfg.num_attention_heads == 32  # attribute_map -> n_heads
    assert cfg.attn_config.kvg_class == "MptAttentionConfig"
    assert "kv_n_heads" not in cfg.attn_config
    assert not hasattr(cfg.attn_config, "kv_n_heads")


def test_mpt_attn_config_keeps_kv_n_heads_on_5x_and_is_not_subscriptable():
    cfg = load("mpt_kv_n_heads", V5)
    assert "kv_n_heads" in cfg.attn_config
    assert cfg.attn_config.kv_n_heads == 8
    # vLLM <=0.28 then does attn_config["kv_n_heads"]: the crash users see
    with pytest.raises(TypeError, match=r"^'MptAttentionConfig' object is not subscriptable$"):
        cfg.attn_config["kv_n_heads"]


@BOTH
def test_falcon_fills_num_kv_heads(rel):
    cfg = load("falcon7b", rel)
    assert cfg.num_kv_heads == 71
    assert cfg.multi_query is True
    assert not hasattr(cfg, "num_key_value_heads")
    assert load("falcon40b", rel).num_kv_heads == 8


@BOTH
def test_refinedweb_vllm_class(rel):
    cfg = load("refinedwebmodel", rel)
    assert cfg.kvg_class == "RWConfig"
    assert cfg.model_type == "RefinedWebModel"
    assert (cfg.n_head_kv, cfg.num_kv_heads, cfg.num_attention_heads) == (1, 1, 71)
    assert cfg.new_decoder_architecture is False
    assert cfg.head_dim == 64  # property hidden_size // n_head
    big = load("refinedweb_8192", rel)
    assert big.new_decoder_architecture is True and big.n_head_kv == 8


def test_mistral_default_kv_heads_and_head_dim():
    assert load("mistral_no_kv", V4).num_key_value_heads == 8
    assert load("mistral_no_kv", V4).head_dim is None
    assert load("mistral_no_kv", V5).num_key_value_heads == 8
    assert load("mistral_no_kv", V5).head_dim == 128


@BOTH
def test_mistral_with_layer_types_becomes_ministral(rel):
    cfg = load("mistral_layer_types", rel)
    assert cfg.kvg_class == "MinistralConfig"
    assert cfg.model_type == "ministral"


@BOTH
def test_class_defaults(rel):
    assert load("qwen2_no_kv", rel).num_key_value_heads == 32
    assert not hasattr(load("qwen2_no_kv", rel), "head_dim")
    llama = load("llama_min", rel)
    assert (llama.num_key_value_heads, llama.head_dim) == (32, 128)
    assert load("llama_kv_none", rel).num_key_value_heads == 32
    gemma = load("gemma_min", rel)
    assert (gemma.head_dim, gemma.num_key_value_heads) == (256, 16)
    qwen3 = load("qwen3_min", rel)
    assert (qwen3.head_dim, qwen3.num_key_value_heads) == (128, 32)


def test_llama_validate_architecture_on_5x_only():
    cfg = load("llama_4097", V4)
    assert cfg.hidden_size == 4097
    with pytest.raises(LoadCrash) as ei:
        load("llama_4097", V5)
    e = ei.value
    assert e.exc_type == "StrictDataclassClassValidationError"
    assert e.exc_module == "huggingface_hub.errors"
    assert e.wrapped_by is None  # not a ValueError: escapes ModelConfig raw
    assert e.message == ("Class validation error for validator 'validate_architecture':\n"
                         "    ValueError: The hidden size (4097) is not a multiple of the number of attention heads "
                         "(32).")


def test_strict_field_types_on_5x():
    with pytest.raises(LoadCrash) as ei:
        load("llama_heads_str", V5)
    assert ei.value.exc_type == "StrictDataclassFieldValidationError"
    assert ei.value.message.startswith("Validation error for field 'num_attention_heads':\n    TypeError: ")
    with pytest.raises(LoadCrash) as ei:
        load("llama_heads_str", V4)
    assert (ei.value.exc_type, ei.value.message) == ("TypeError", "unsupported operand type(s) for //: 'int' and 'str'")


@BOTH
def test_vllm_registry_classes(rel):
    glm = load("chatglm", rel)
    assert glm.kvg_class == "ChatGLMConfig"
    assert (glm.n_head_kv, glm.multi_query_group_num, glm.num_hidden_layers) == (2, 2, 28)
    k2 = load("kimi_k2", rel)
    assert (k2.kvg_class, k2.model_type, k2.kv_lora_rank) == ("DeepseekV3Config", "kimi_k2", 512)
    v32 = load("deepseek_v32", rel)
    assert (v32.kvg_class, v32.model_type) == ("DeepseekV3Config", "deepseek_v32")
    assert load("step3_text", rel).num_attention_groups == 1


@BOTH
def test_gpt_bigcode_aliases(rel):
    cfg = load("gpt_bigcode", rel)
    assert (cfg.num_attention_heads, cfg.multi_query, cfg.hidden_size) == (48, True, 6144)


@BOTH
def test_get_text_config_override(rel):
    cfg = load("qwen2_5_omni", rel)
    text = cfg.get_text_config()
    assert text is not cfg and text.kvg_class == "Qwen2_5OmniTextConfig"
    assert hf_text_config(cfg) is text


@BOTH
def test_eagle_nests_the_target_config(rel):
    cfg = load("eagle", rel)
    assert cfg.kvg_class == "EAGLEConfig" and cfg.model_type == "eagle"
    assert cfg.architectures == ["EagleLlamaForCausalLM"]
    assert cfg.model.kvg_class == "LlamaConfig"
    assert cfg.num_key_value_heads == 8  # copied from the nested model


@BOTH
def test_text_config_without_heads(rel):
    cfg = load("text_no_heads", rel)
    with pytest.raises(LoadCrash) as ei:
        hf_text_config(cfg)
    assert ei.value.exc_type == "ValueError" and ei.value.wrapped_by == "ModelConfig"
    assert ei.value.message.startswith("The text_config extracted from the model config does not have "
                                       "`num_attention_heads` attribute.")


def test_glm4_moe_lite_head_dim_alias_on_5x():
    cfg = load("glm4_moe_lite", V5)
    assert cfg.head_dim == 64 == cfg.qk_rope_head_dim
    with pytest.raises(Undecidable):  # no such model type in transformers 4.57.6 nor vLLM 0.20.0's registry
        load("glm4_moe_lite", V4)


@BOTH
def test_dbrx_attn_config_default(rel):
    cfg = load("dbrx", rel)
    assert cfg.num_attention_heads == 48
    assert cfg.attn_config.kv_n_heads == 1


@BOTH
def test_medusa_and_zamba2(rel):
    med = load("medusa", rel)
    assert (med.kvg_class, med.num_attention_heads, med.num_heads) == ("MedusaConfig", 0, 5)
    assert load("zamba2", rel).attention_head_dim == 160


def test_qwen2_5_vl_flat_layout_builds_text_config():
    for rel, top_level in ((V4, {"v": 4}), (V5, None)):
        cfg = load("qwen2_5_vl_flat", rel)
        assert cfg.text_config.kvg_class == "Qwen2_5_VLTextConfig"
        assert cfg.text_config.num_key_value_heads == 4
        assert hasattr(cfg, "num_key_value_heads") is (top_level is not None)


@BOTH
def test_unknown_model_type_is_undecidable_with_the_would_be_error(rel):
    with pytest.raises(Undecidable) as ei:
        load("unknown_type", rel)
    crash = ei.value.load_crash
    assert crash.exc_type == "ValueError" and crash.wrapped_by == "ModelConfig"
    assert crash.message.startswith("The checkpoint you are trying to load has model type `foobar_xyz` but "
                                    "Transformers does not recognize this architecture.")


@BOTH
def test_plain_crashes(rel):
    with pytest.raises(LoadCrash) as ei:
        load("heads0", rel)
    assert (ei.value.exc_type, ei.value.message, ei.value.wrapped_by) == \
        ("ZeroDivisionError", "integer division or modulo by zero", None)
    with pytest.raises(LoadCrash) as ei:
        load("dtype_bogus", rel)
    assert (ei.value.exc_type, ei.value.message) == ("AttributeError", "module 'torch' has no attribute 'bogus'")


def test_views_carry_raw_and_level():
    c = CASES["eagle"]
    cfg = load_config(c["config"], V5)
    assert cfg.kvg_raw == c["config"]
    assert cfg.model.kvg_raw == c["config"]["model"]
    assert cfg.kvg_emulation == "exact" and cfg.model.kvg_emulation == "exact"
    from packaging.version import Version

    from kvguard.versions import Release
    # a release kvguard has no verification run for (0.34.0 reads 0.33.0's data): generic
    assert load_config(c["config"], Release(Version("0.34.0"))).kvg_emulation == "generic"
    assert load_config(c["config"], resolve("0.28.0+pr55030")).kvg_emulation == "exact"
