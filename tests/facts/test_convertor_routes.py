"""The convertors that re-route hf_config.architectures before the conversion (vllm/transformers_utils/
model_arch_config_convertor.py): DeepSeek-V4's vision variant (0.30.0+) and the checkpoint-file routes of
Qwen3.5 (0.33.0) and Qwen3-Omni-MoE (0.32.0+).  Expected values are read from those releases' convertors;
tests/upstream/differential.py's deepseek_v4 / qwen3_5 / qwen3_omni_moe families check the same against
the releases themselves."""

from __future__ import annotations

import pytest

import kvguard

DEEPSEEK_V4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
               "num_hidden_layers": 43, "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512,
               "vocab_size": 129280, "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1,
               "moe_intermediate_size": 2048, "torch_dtype": "bfloat16"}
QWEN3_5 = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "torch_dtype": "bfloat16",
           "text_config": {"model_type": "qwen3_5_text", "hidden_size": 4096, "num_attention_heads": 16,
                           "num_key_value_heads": 4, "num_hidden_layers": 32, "head_dim": 256, "vocab_size": 248320}}
QWEN3_OMNI = {"architectures": ["Qwen3OmniMoeForConditionalGeneration"], "model_type": "qwen3_omni_moe",
              "thinker_config": {"model_type": "qwen3_omni_moe_thinker",
                                 "text_config": {"model_type": "qwen3_omni_moe_text", "hidden_size": 2048,
                                                 "num_attention_heads": 32, "num_key_value_heads": 4,
                                                 "num_hidden_layers": 48, "head_dim": 128, "num_experts": 128,
                                                 "num_experts_per_tok": 8, "moe_intermediate_size": 768}}}


def _with(config, **keys):
    return {**config, **keys}


@pytest.mark.parametrize("release", ["0.30.0", "0.31.0", "0.33.0"])
def test_deepseek_v4_with_a_vision_tower_is_served_as_the_vl_class(release):
    facts = kvguard.model_facts(_with(DEEPSEEK_V4, vision_n_layers=24), vllm_version=release)
    assert facts.architectures == ("DeepseekV4ForConditionalGeneration",)
    assert facts.resolved_top["architectures"] == ["DeepseekV4ForConditionalGeneration"]


@pytest.mark.parametrize(("keys", "release"), [({"vision_n_layers": 24}, "0.29.0"), ({"vision_n_layers": 0}, "0.33.0"),
                                               ({}, "0.33.0"),
                                               ({"vision_n_layers": 24, "_dsv4_vl_inner": True}, "0.33.0"),
                                               ({"vision_n_layers": 24,
                                                 "architectures": ["DeepseekV4ForCausalLM", "DeepseekV4ForCausalLM"]},
                                                "0.33.0")])
def test_deepseek_v4_keeps_its_architectures_otherwise(keys, release):
    config = _with(DEEPSEEK_V4, **keys)
    facts = kvguard.model_facts(config, vllm_version=release)
    assert facts.architectures == tuple(config["architectures"])


def test_deepseek_v4_vision_layers_of_another_type_raise_in_the_convertor():
    verdict = kvguard.check(_with(DEEPSEEK_V4, vision_n_layers="24"), {"tp": 8}, vllm_version="0.30.0")
    assert (verdict.exc_type, verdict.message) == ("TypeError", "'>' not supported between instances of 'str' and 'int'")
    assert verdict.wrapped_by is None


def test_qwen3_5_without_the_checkpoint_is_read_as_having_no_joint_head_and_says_so():
    verdict = kvguard.check(QWEN3_5, {"tp": 4}, vllm_version="0.33.0")
    assert verdict.ok
    assert verdict.facts.architectures == ("Qwen3_5ForConditionalGeneration",)
    assert verdict.facts.assumptions == (
        "the checkpoint has no joint_head_config.json (vLLM 0.33.0 serves Qwen3_5ForConditionalGeneration as "
        "ClefFlashForJointSchema when it has one; pass the model directory to check)",)


def test_qwen3_5_before_0_33_has_no_route_to_assume():
    assert kvguard.model_facts(QWEN3_5, vllm_version="0.32.0").assumptions == ()


def test_qwen3_5_checkpoint_with_a_joint_head_is_served_as_clef_flash(tmp_path):
    (tmp_path / "joint_head_config.json").write_text("{}")
    verdict = kvguard.check(QWEN3_5, {"tp": 4}, vllm_version="0.33.0", model_path=str(tmp_path))
    assert verdict.facts.architectures == ("ClefFlashForJointSchema",)
    assert verdict.facts.assumptions == ()


def test_qwen3_5_checkpoint_directory_without_the_file_is_decided_without_an_assumption(tmp_path):
    verdict = kvguard.check(QWEN3_5, {"tp": 4}, vllm_version="0.33.0", model_path=str(tmp_path))
    assert verdict.facts.architectures == ("Qwen3_5ForConditionalGeneration",)
    assert verdict.facts.assumptions == ()


@pytest.mark.parametrize(("release", "assumed"), [("0.31.0", False), ("0.32.0", True), ("0.33.0", True)])
def test_qwen3_omni_moe_joint_head_route_from_0_32(release, assumed):
    facts = kvguard.model_facts(QWEN3_OMNI, vllm_version=release)
    assert facts.architectures == ("Qwen3OmniMoeForConditionalGeneration",)
    assert bool(facts.assumptions) is assumed


def test_qwen3_omni_moe_checkpoint_with_a_joint_head_is_served_as_clef_omni(tmp_path):
    (tmp_path / "joint_head_config.json").write_text("{}")
    verdict = kvguard.check(QWEN3_OMNI, {"tp": 4}, vllm_version="0.32.0", model_path=str(tmp_path))
    assert verdict.facts.architectures == ("ClefOmniForJointSchema",)


@pytest.mark.parametrize("release", ["0.30.0", "0.33.0"])
def test_catalog_deepseek_v4_flash_is_decided(release):
    # config.json: 43 layers, head_dim 512 (compress_ratios: the head size is head_dim), 1 KV head, 256 experts
    facts = kvguard.model_facts("deepseek-ai/DeepSeek-V4-Flash", vllm_version=release)
    assert (facts.use_mla, facts.head_size, facts.num_hidden_layers, facts.num_experts) == (True, 512, 43, 256)
    assert kvguard.check("deepseek-ai/DeepSeek-V4-Flash", {"tp": 8}, vllm_version=release).ok
