"""Model types whose configuration classes kvguard follows from stop 35 on, mostly on the transformers 5 lines
(vLLM 0.24.0+).

Mirrors transformers 5.17.0 / 5.19.0 / 5.20.2 / 5.24.0 (``transformers/models/<type>/configuration_*.py``):
- EXAONE 4 / EXAONE-MoE: sliding attention except every ``sliding_window_pattern``-th layer (zero without a window,
  which divides by zero when the layer types are not given), EXAONE-MoE's dense first layers;
- LFM2's attention layers at ``full_attn_idxs``, SmolLM3's RoPE-less layers that slide;
- Ministral 3's YaRN defaults, MiniCPM3's depth scale and ``logits_scaling``;
- Gemma 3n's per-layer sizes and their checks, and the timm-style ``to_dict`` of its vision config;
- Granite SWA's and CWM's full attention from layer 0 every fourth layer, Cohere2-MoE's dense prefix;
- Idefics3 / SmolVLM ``pad_token_id``, PaliGemma, HyperCLOVAX, AXK1, EXAONE 4.5, Voxtral;
- OLMo 3's RoPE parameters per layer type; InternLM3's and IQuestCoder's ``validate_architecture``.

It also mirrors vLLM's own ``DeepseekV41Config`` and ``HYV4Config`` (``vllm/transformers_utils/configs/``).
Expected values are written by hand from those sources, and checked against the real classes where the base class
adds to them (tools/hfconfig_oracle.py --all and tests/upstream/differential.py compare the same classes with the
real releases).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard.facts import repr5
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

# one release per transformers 5 line: 5.24.0 (0.28.0), 5.17.0 (0.31.0), 5.19.0 (0.32.0), 5.20.2 (0.33.0)
RELEASES = ["0.28.0", "0.31.0", "0.32.0", "0.33.0"]


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


def dense(model_type: str, arch: str, layers: int = 8, **extra) -> dict:
    cfg = {"architectures": [arch], "model_type": model_type, "hidden_size": 1024, "num_attention_heads": 8,
           "num_key_value_heads": 2, "num_hidden_layers": layers, "intermediate_size": 4096, "vocab_size": 32000,
           "max_position_embeddings": 32768}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_full_attention_every_fourth_layer(rel):
    obj = load(rel, dense("exaone4", "Exaone4ForCausalLM", sliding_window=4096, sliding_window_pattern=4))
    assert obj.layer_types == ["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 3 + [
        "full_attention"]


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_without_window_divides_by_zero(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, dense("exaone4", "Exaone4ForCausalLM", sliding_window=None))
    assert info.value.exc_type == "ZeroDivisionError"
    assert info.value.message == "integer modulo by zero"


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_given_layer_types_are_kept(rel):
    kinds = ["full_attention", "sliding_attention"] * 2
    obj = load(rel, dense("exaone4", "Exaone4ForCausalLM", layers=4, sliding_window=None, layer_types=kinds))
    assert obj.layer_types == kinds


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone_moe_dense_first_layers(rel):
    obj = load(rel, dense("exaone_moe", "ExaoneMoEForCausalLM", layers=4, sliding_window=128,
                          sliding_window_pattern=2, first_k_dense_replace=2, num_experts=64))
    assert obj.mlp_layer_types == ["dense", "dense", "sparse", "sparse"]
    assert obj.layer_types == ["sliding_attention", "full_attention"] * 2


@pytest.mark.parametrize("rel", RELEASES)
def test_lfm2_attention_at_listed_layers(rel):
    obj = load(rel, dense("lfm2", "Lfm2ForCausalLM", layers=5, full_attn_idxs=[0, 3]))
    assert obj.layer_types == ["full_attention", "conv", "conv", "full_attention", "conv"]


@pytest.mark.parametrize("rel", RELEASES)
def test_lfm2_every_layer_attention_by_default(rel):
    cfg = dense("lfm2", "Lfm2ForCausalLM", layers=3)
    obj = load(rel, cfg)
    assert obj.full_attn_idxs == [0, 1, 2]
    assert obj.layer_types == ["full_attention"] * 3


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_sliding_on_the_layers_without_rope(rel):
    obj = load(rel, dense("smollm3", "SmolLM3ForCausalLM", no_rope_layer_interval=4, use_sliding_window=True,
                          sliding_window=4096))
    assert obj.no_rope_layers == [1, 1, 1, 0, 1, 1, 1, 0]
    assert [i for i, kind in enumerate(obj.layer_types) if kind == "sliding_attention"] == [3, 7]


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_no_window_means_full_attention(rel):
    obj = load(rel, dense("smollm3", "SmolLM3ForCausalLM", layers=4, no_rope_layer_interval=2,
                          use_sliding_window=False, sliding_window=4096))
    assert obj.no_rope_layers == [1, 0, 1, 0]
    assert obj.layer_types == ["full_attention"] * 4


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_short_rope_flags_raise_index_error(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, dense("smollm3", "SmolLM3ForCausalLM", layers=4, no_rope_layers=[1, 0]))
    assert info.value.exc_type == "IndexError"
    assert info.value.message == "list index out of range"


@pytest.mark.parametrize("rel", RELEASES)
def test_ministral3_yarn_defaults(rel):
    obj = load(rel, dense("ministral3", "Ministral3ForCausalLM", max_position_embeddings=262144))
    rope = obj.rope_parameters
    assert rope["rope_type"] == "yarn"
    assert rope["factor"] == 16.0
    assert rope["original_max_position_embeddings"] == 16384
    assert rope["llama_4_scaling_beta"] == 0.1
    assert "partial_rotary_factor" not in rope
    assert obj.head_dim == 128


@pytest.mark.parametrize("rel", RELEASES)
def test_minicpm3_depth_scale_and_logits_scaling(rel):
    cfg = dense("minicpm3", "MiniCPM3ForCausalLM", layers=9, num_key_value_heads=8, scale_depth=None,
                dim_model_base=256, q_lora_rank=768, kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=32,
                v_head_dim=64)
    obj = load(rel, cfg)
    assert obj.scale_depth == 3.0
    assert obj.logits_scaling == 4.0
    assert obj.head_dim == 32
    assert obj.qk_head_dim == 96


def text(model_type: str, layers: int, **extra) -> dict:
    cfg = {"model_type": model_type, "hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 2,
           "vocab_size": 32000, "num_hidden_layers": layers}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize("rel", RELEASES)
def test_gemma3n_text_per_layer_defaults(rel):
    obj = load(rel, text("gemma3n_text", 12, intermediate_size=100))
    assert obj.intermediate_size == [100] * 12
    assert [i for i, kind in enumerate(obj.layer_types) if kind == "full_attention"] == [4, 9]
    assert obj.activation_sparsity_pattern == [0.95] * 10 + [0.0] * 2


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("changes, message", [
    ({"intermediate_size": [1, 2]}, "intermediate_size must have an explicit intermediate size for every layer or "
                                     "one for all layers. Expected 4 values but got 2."),
    ({"activation_sparsity_pattern": [0.0]}, "activation_sparsity_pattern must have an explicit activation sparsity "
                                             "value for every layer.Expected 4 values but got 1."),
])
def test_gemma3n_text_refusals(rel, changes, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, text("gemma3n_text", 4, **changes))
    assert (info.value.exc_type, info.value.message) == ("ValueError", message)


@pytest.mark.parametrize("rel", RELEASES)
def test_gemma3n_vision_to_dict_names_timm_labels(rel):
    obj = load(rel, {"model_type": "gemma3n", "architectures": ["Gemma3nForConditionalGeneration"]})
    vision = obj.vision_config
    out = repr5.to_dict(vision.kvg_facts.library, vision)
    assert out["num_classes"] == 2
    assert out["label_names"] == ["LABEL_0", "LABEL_1"]
    assert "id2label" not in out and "label2id" not in out


@pytest.mark.parametrize("rel", ["0.29.0", "0.31.0", "0.32.0", "0.33.0"])
def test_granite_swa_full_attention_from_layer_zero(rel):
    obj = load(rel, text("granite_swa", 6))
    assert obj.layer_types == ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention", "sliding_attention"]
    assert obj.layer_rope_theta == [10000.0] * 6


@pytest.mark.parametrize("rel", RELEASES)
def test_cwm_layer_types_and_window(rel):
    obj = load(rel, text("cwm", 6, sliding_window=8192))
    assert obj.layer_types == ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention", "sliding_attention"]
    assert obj.sliding_window == 8192


@pytest.mark.parametrize("rel", RELEASES)
def test_cwm_zero_window_fails_the_field_check(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, text("cwm", 2, sliding_window=0))
    assert info.value.exc_type == "StrictDataclassFieldValidationError"
    assert info.value.message == ("Validation error for field 'sliding_window':\n"
                                  "    TypeError: Field 'sliding_window' expected int, got NoneType (value: None)")


@pytest.mark.parametrize("rel", RELEASES)
def test_cohere2_moe_dense_prefix_on_its_own_pattern(rel):
    obj = load(rel, text("cohere2_moe", 6, first_k_dense_replace=2, prefix_dense_sliding_window_pattern=2,
                         sliding_window_pattern=3))
    assert obj.layer_types == ["sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
                               "full_attention", "sliding_attention"]
    assert obj.mlp_layer_types == ["dense", "dense", "sparse", "sparse", "sparse", "sparse"]


# vLLM's DeepseekV41Config (0.30.0+, vllm/transformers_utils/configs/deepseek_v41.py): the nested text config is
# set on the object key by key (its model_type and the class's properties skipped), rope_scaling becomes
# rope_parameters after PreTrainedConfig's __init__, the vision tower's sizes are read with defaults and the
# quantization config's expert_dtype is copied up
V41_RELEASES = ["0.30.0", "0.31.0", "0.32.0", "0.33.0"]


@pytest.mark.parametrize("rel", V41_RELEASES)
def test_deepseek_v41_flattens_its_text_config(rel):
    cfg = {"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
           "text_config": {"model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64,
                           "max_position_embeddings": 1048576, "num_labels": 3,
                           "rope_scaling": {"rope_type": "yarn", "factor": 16.0, "rope_theta": 10000.0}},
           "vision_config": {"num_hidden_layers": 24},
           "quantization_config": {"quant_method": "fp8", "expert_dtype": "fp4"}}
    obj = load(rel, cfg)
    assert obj.model_type == "deepseek_v41"
    assert (obj.hidden_size, obj.num_attention_heads) == (4096, 64)
    assert obj.num_labels == 2   # a property of the class: the loop leaves it alone
    # YaRN's standardisation then adds the original length (the model's, as vLLM's get_config prints it)
    assert obj.rope_parameters == {"rope_type": "yarn", "factor": 16.0, "rope_theta": 10000.0,
                                   "original_max_position_embeddings": 1048576}
    assert obj.expert_dtype == "fp4"
    assert (obj.vision_n_layers, obj.vision_dim, obj.vision_max_wh_ratio) == (24, 1024, None)


@pytest.mark.parametrize("rel", V41_RELEASES)
def test_deepseek_v41_without_sub_configs(rel):
    obj = load(rel, {"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"]})
    assert obj.vision_n_layers == 0
    assert not hasattr(obj, "expert_dtype")
    assert not hasattr(obj, "hidden_size")


@pytest.mark.parametrize("rel", V41_RELEASES)
def test_deepseek_v41_yarn_without_a_length_is_an_attribute_error(rel):
    # the class sets no max_position_embeddings of its own: YaRN's validation finds none
    cfg = {"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
           "text_config": {"hidden_size": 4096, "rope_scaling": {"rope_type": "yarn", "factor": 16.0,
                                                                 "rope_theta": 10000.0}}}
    with pytest.raises(LoadCrash) as info:
        load(rel, cfg)
    assert info.value.exc_type == "AttributeError"
    assert info.value.message == "'DeepseekV41Config' object has no attribute 'max_position_embeddings'"


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])   # 5.24.0 and 5.20.2: the deprecated pad_token_id property
@pytest.mark.parametrize("model_type", ["idefics3", "smolvlm"])
def test_idefics3_pad_token_id_property(rel, model_type):
    assert load(rel, {"model_type": model_type}).pad_token_id == 128002
    assert load(rel, {"model_type": model_type, "pad_token_id": 7}).pad_token_id == 7


@pytest.mark.parametrize("rel", RELEASES)
def test_paligemma_text_model_attends_both_ways_by_default(rel):
    obj = load(rel, {"model_type": "paligemma", "architectures": ["PaliGemmaForConditionalGeneration"]})
    assert obj.text_config.use_bidirectional_attention is True
    assert obj.text_config.num_image_tokens == 256


@pytest.mark.parametrize("rel", ["0.32.0", "0.33.0"])   # transformers' class (vLLM's own before)
def test_hyperclovax_attention_multiplier_default(rel):
    obj = load(rel, text("hyperclovax", 2, head_dim=64))
    assert obj.attention_multiplier == 0.125


# transformers' AXK1Config derives mlp_layer_types from 5.20 on; vLLM's own class serves axk1 up to 0.31.0
@pytest.mark.parametrize("rel", ["0.33.0"])
def test_axk1_moe_layers_from_the_legacy_keywords(rel):
    obj = load(rel, text("axk1", 6, first_k_dense_replace=2, moe_layer_freq=2))
    assert obj.mlp_layer_types == ["dense", "dense", "sparse", "dense", "sparse", "dense"]
    assert not hasattr(obj, "first_k_dense_replace")   # popped: the keywords were read


@pytest.mark.parametrize("rel", ["0.33.0"])
def test_axk1_given_mlp_layer_types_leave_the_keywords(rel):
    obj = load(rel, text("axk1", 3, mlp_layer_types=["dense", "sparse", "sparse"], first_k_dense_replace=2))
    assert obj.mlp_layer_types == ["dense", "sparse", "sparse"]
    assert obj.first_k_dense_replace == 2


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])   # 5.24.0 / 5.20.2: sub_configs_defaults with init_kwargs
def test_voxtral_text_config_completed_with_its_defaults(rel):
    obj = load(rel, {"model_type": "voxtral", "text_config": {"hidden_size": 1024}})
    assert obj.text_config.hidden_size == 1024
    assert (obj.text_config.vocab_size, obj.text_config.max_position_embeddings) == (131072, 131072)


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])
def test_exaone4_5_old_text_model_type_renamed(rel):
    obj = load(rel, {"model_type": "exaone4_5", "text_config": {
        "model_type": "exaone4_5_text", "num_hidden_layers": 4, "sliding_window": None,
        "layer_types": ["full_attention"] * 4}})
    assert obj.text_config.model_type == "exaone4"


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])
def test_exaone4_5_text_config_without_model_type_is_a_key_error(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, {"model_type": "exaone4_5", "text_config": {"hidden_size": 8}})
    assert (info.value.exc_type, info.value.message) == ("KeyError", "'model_type'")


# vLLM's HYV4Config (0.29.0+, vllm/transformers_utils/configs/hy_v4.py)
@pytest.mark.parametrize("rel", ["0.29.0", "0.33.0"])
def test_hy_v4_layer_defaults(rel):
    obj = load(rel, {"model_type": "hy_v4", "num_hidden_layers": 7})
    assert obj.mlp_layer_types == ["dense"] + ["sparse"] * 6
    assert obj.indexer_types == ["full", "full", "shared", "shared", "shared", "full", "shared"]
    assert obj.head_dtype == "float32"          # enable_lm_head_fp32 defaults to True
    assert (obj.qk_head_dim, obj.head_dim) == (256, 64)


@pytest.mark.parametrize("rel", ["0.29.0", "0.33.0"])
def test_hy_v4_dsa_spellings_folded_and_head_dtype_kept(rel):
    obj = load(rel, {"model_type": "hy_v4", "num_hidden_layers": 3, "head_dtype": "bfloat16",
                     "layer_types": ["sparse_attention", "sparse", "full_attention"]})
    # folded to "deepseek_sparse_attention", which PreTrainedConfig's legacy remap then calls "indexed_attention"
    assert obj.layer_types == ["indexed_attention", "indexed_attention", "full_attention"]
    assert obj.head_dtype == "bfloat16"


@pytest.mark.parametrize("rel", RELEASES)
def test_olmo3_rope_parameters_per_layer_type(rel):
    obj = load(rel, text("olmo3", 4, rope_theta=500000.0))
    assert obj.rope_parameters == {"sliding_attention": {"rope_type": "default", "rope_theta": 500000.0},
                                   "full_attention": {"rope_type": "default", "rope_theta": 500000.0}}


@pytest.mark.parametrize("rel", ["0.28.0"])   # transformers 5.24.0's classes
@pytest.mark.parametrize("model_type, changes, message", [
    ("internlm3", {"attention_bias": True, "mlp_bias": False},
     "InternLM3 with `qkv_bias` different from `bias` is not supported, because the Llama implementation uses the "
     "same bias setting for the query, key, value and output projections."),
    ("iquestcoder", {"use_sliding_window": True}, "IQuestCoder does not support `use_sliding_window`."),
    ("iquestcoder", {"clip_qkv": 8}, "IQuestCoder does not support `clip_qkv`."),
])
def test_validate_architecture_refusals(rel, model_type, changes, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, text(model_type, 2, **changes))
    assert info.value.exc_type == "StrictDataclassClassValidationError"
    assert info.value.message == ("Class validation error for validator 'validate_architecture':\n"
                                  f"    ValueError: {message}")
