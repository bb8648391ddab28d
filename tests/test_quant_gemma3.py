"""Model construction of Gemma 3's text model (kvguard/data/quant_archs.json family gemma3, Gemma3ForCausalLM).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/gemma3.py of 0.10.2 – 0.33.0: Gemma3Attention's bare asserts on the heads, then
qkv_proj, o_proj, gate_up_proj and down_proj per layer; the MLP's activation check on hidden_activation;
Gemma3ForCausalLM's tie_word_embeddings assert up to 0.13.x; the AWQ kernels' input alignment and Fp8Config's block
checks); tests/upstream/test_quant.py (run_gemma3) and the golden cases mi-*-gemma3-1b-* compare with the releases
themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard

H100 = kvguard.Host.cuda_node()
VERSIONS = ["0.10.2", "0.14.1", "0.33.0"]
AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
             "parallel size.")
#: google/gemma-3-1b-it's config.json (the text model: hidden 1152, intermediate 6912, 4 heads, 1 KV head, head 256)
GEMMA3_1B = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 1152,
             "intermediate_size": 6912, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
             "num_hidden_layers": 26, "max_position_embeddings": 32768, "rope_scaling": None, "rope_theta": 1000000,
             "rope_local_base_freq": 10000, "sliding_window": 512, "sliding_window_pattern": 6,
             "query_pre_attn_scalar": 256, "vocab_size": 262144, "torch_dtype": "bfloat16",
             "hidden_activation": "gelu_pytorch_tanh"}
#: AutoAWQ's 4-bit form, groups of 128
AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
BLOCK_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}


def gemma3(quantization_config=None, **sizes) -> dict:
    c = copy.deepcopy(GEMMA3_1B)
    c.update(sizes)
    if quantization_config is not None:
        c["quantization_config"] = quantization_config
    return c


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", VERSIONS)
def test_awq_down_proj_input_not_whole_groups(version):
    # -tp 4: down_proj takes 6912 / 4 = 1728 inputs per rank, 13.5 groups of 128: neither Marlin nor the AWQ kernel
    v = kvguard.check(gemma3(AWQ), vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_awq_input", "ValueError",
                                                                AWQ_INPUT)


@pytest.mark.parametrize("version", VERSIONS)
def test_awq_tp2_is_decided_and_accepted(version):
    # -tp 2: 3456 = 27 x 128 inputs per rank for down_proj, o_proj 2 x 256 = 512: every layer builds
    v = kvguard.check(gemma3(AWQ), vllm_version=version, tp=2, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_block_fp8_refuses_the_mlp_shard():
    # -tp 4: gate_up_proj's per-rank outputs 1728 (13.5 blocks of 128); 0.10.2 checks each output partition of the
    # merged layer (block_n), 0.33.0 lets the merged layer through and down_proj's 1728 inputs refuse (block_k)
    old = kvguard.check(gemma3(BLOCK_FP8), vllm_version="0.10.2", tp=4, host=H100)
    assert (old.exc_type, old.message) == (
        "ValueError", "Weight output_partition_size = 1728 is not divisible by weight quantization block_n = 128.")
    new = kvguard.check(gemma3(BLOCK_FP8), vllm_version="0.33.0", tp=4, host=H100)
    assert (new.exc_type, new.message) == (
        "ValueError", "Weight input_size_per_partition = 1728 is not divisible by weight quantization block_k = 128.")


@pytest.mark.parametrize("version", VERSIONS)
def test_kv_heads_assert_before_any_layer(version):
    # 8 heads (ModelConfig's check passes at -tp 4), 6 KV heads: 6 >= 4 and 6 % 4 != 0, so Gemma3Attention's bare
    # assert (AssertionError, empty message) fires before qkv_proj is built
    v = kvguard.check(gemma3(AWQ, num_attention_heads=8, num_key_value_heads=6), vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_attn_assert", "AssertionError", "")


def test_another_activation_is_left_open():
    v = kvguard.check(gemma3(AWQ, hidden_activation="gelu"), vllm_version="0.33.0", tp=2, host=H100)
    assert v.ok and "hidden_activation 'gelu'" in mi_skip(v)


def test_untied_head_open_up_to_0_13_decided_after():
    # up to 0.13.x Gemma3ForCausalLM asserts tie_word_embeddings before building; from 0.14.0 it builds an untied
    # ParallelLMHead, which AWQ hands no linear method
    old = kvguard.check(gemma3(AWQ, tie_word_embeddings=False), vllm_version="0.13.0", tp=2, host=H100)
    assert old.ok and "asserts tie_word_embeddings" in mi_skip(old)
    new = kvguard.check(gemma3(AWQ, tie_word_embeddings=False), vllm_version="0.14.1", tp=2, host=H100)
    assert new.ok and mi_skip(new) == ""


def test_modelopt_stays_skipped_on_the_text_model_and_the_multimodal_wrapper():
    mo = gemma3({"quant_method": "modelopt", "quant_algo": "FP8"})
    v = kvguard.check(mo, vllm_version="0.33.0", tp=1, host=H100)
    assert "weight-shard checks of Gemma3ForCausalLM are not modelled" in mi_skip(v)
    mm = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
          "text_config": dict(GEMMA3_1B, hidden_size=2560, intermediate_size=10240, num_attention_heads=8,
                              num_key_value_heads=4, architectures=None),
          "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                            "num_attention_heads": 16, "num_hidden_layers": 27, "image_size": 896, "patch_size": 14,
                            "vision_use_head": False},
          "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8"}}
    v = kvguard.check(mm, vllm_version="0.33.0", tp=2, host=H100)
    assert v.ok and "Gemma3ForConditionalGeneration" in mi_skip(v)
