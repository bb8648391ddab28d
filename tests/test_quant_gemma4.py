"""Model construction of Gemma 4 (kvguard/data/quant_archs.json family gemma4, kvguard.quant.gemma4).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/gemma4.py and gemma4_mm.py of 0.28.0 – 0.33.0: each decoder layer's attention takes the
layer's head size and KV heads — full attention: global_head_dim, and with attention_k_eq_v
num_global_key_value_heads —, Gemma4Attention's bare asserts on the KV heads, the NVFP4 linear method's input
multiple of 16 (ModelOptNvFp4LinearMethod.create_weights), the wrapper's checkpoint-name mapper applied to the
exclusion list); tests/upstream/test_quant.py (run_gemma4) and the golden cases mi-modelopt-nvfp4-gemma4-* compare
with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant.expr import ExpressionError, evaluate

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
NVFP4_INPUT = "Unsupported model when in features size is not multiple of 16"
VERSIONS = ["0.28.0", "0.31.0", "0.33.0"]


def gemma4_31b(ignore=("lm_head", "model.embed_vision*"), **text) -> dict:
    """nvidia/Gemma-4-31B-IT-NVFP4 (hidden 5376, 32 heads; sliding layers: head 256, 16 KV heads; full-attention
    layers (every sixth): head 512, 4 KV heads; intermediate 21504) with another exclusion list and text sizes."""
    c = copy.deepcopy(catalog.lookup("nvidia/Gemma-4-31B-IT-NVFP4").config)
    c["text_config"].update(text)
    c["quantization_config"]["ignore"] = list(ignore)
    return c


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", VERSIONS)
def test_published_31b_nvfp4_is_decided(version):
    # attention excluded; down_proj per rank at tp 4: 21504 / 4 = 5376 = 336 x 16: built
    v = kvguard.check("nvidia/Gemma-4-31B-IT-NVFP4", vllm_version=version, tp=4, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_nvfp4_dense_mlp_input_not_a_multiple_of_16(version):
    # intermediate 2120 = 132 x 16 + 8: layer 0's down_proj refuses at tp 1 (its attention, 5376 / 8192 inputs, passes)
    v = kvguard.check(gemma4_31b(intermediate_size=2120), vllm_version=version, tp=1, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_nvfp4_input", "ValueError", NVFP4_INPUT)


@pytest.mark.parametrize("version", VERSIONS)
def test_exclusions_are_matched_after_the_wrappers_mapper(version):
    # the same down_proj, excluded by "model.language_model.layers.*.mlp*": the wrapper maps the entry to
    # language_model.model.layers.*.mlp* (then language_model.model.layers.*.mlp / .mlp.*), which matches every
    # MLP of the built model (language_model.model.layers.<i>.mlp.down_proj): accepted
    ignore = ("lm_head", "model.embed_vision*", "model.language_model.layers.*.mlp*")
    v = kvguard.check(gemma4_31b(ignore, intermediate_size=2120), vllm_version=version, tp=1, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_full_attention_layers_have_their_own_head_size(version):
    # global_head_dim 264 at tp 32: the sliding layers' o_proj takes 32 x 256 / 32 = 256 features per rank (16 x 16),
    # the full-attention layer 5's 32 x 264 / 32 = 264 (16 x 16 + 8): refused there; down_proj 21504 / 32 = 672
    # (42 x 16); KV heads 16 and 4 each divide 32
    v = kvguard.check(gemma4_31b(global_head_dim=264), vllm_version=version, tp=32, host=BIG)
    assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input", NVFP4_INPUT)
    # the same launch with the published 512: 32 x 512 / 32 = 512: built
    ok = kvguard.check(gemma4_31b(), vllm_version=version, tp=32, host=BIG)
    assert ok.ok and mi_skip(ok) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_full_attention_kv_heads_assert(version):
    # unquantized, num_global_key_value_heads 3 (attention_k_eq_v: the full-attention layers' KV heads) at tp 2:
    # Gemma4Attention asserts 3 % 2 == 0 (3 >= 2): a bare AssertionError while layer 5 is built; the sliding layers'
    # 16 KV heads pass.  With 4: built
    c = gemma4_31b(num_global_key_value_heads=3)
    del c["quantization_config"]
    v = kvguard.check(c, vllm_version=version, tp=2, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_attn_assert",
                                                                "AssertionError", "")
    c["text_config"]["num_global_key_value_heads"] = 4
    ok = kvguard.check(c, vllm_version=version, tp=2, host=H100)
    assert ok.ok and mi_skip(ok) == ""


def gemma4_26b_fp8_block(**text) -> dict:
    """google/gemma-4-26B-A4B (hidden 2816, 16 heads, experts 128 x 704 with gelu_tanh) as a block-FP8 (Fp8Config,
    128 x 128) checkpoint, its dense MLP narrowed to 2048 (256 per rank at tp 8: a multiple of 128)."""
    c = copy.deepcopy(catalog.lookup("google/gemma-4-26B-A4B").config)
    c["text_config"].update(dict({"intermediate_size": 2048}, **text))
    c["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
    return c


FP8_BLOCK_N = "The output_size of gate's and up's weight = {} is not divisible by weight quantization block_n = 128."


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("tp", [4, 8, 16])
def test_published_26b_nvfp4_experts_are_decided(version, tp):
    # attention, dense MLP and router excluded; the NVFP4 experts (704 / tp per rank: 176, 88, 44 — floor-divided by
    # the 16-wide scale group, no check) on FP4 Marlin, which takes gelu_tanh on compute capability 9.0: built
    v = kvguard.check("nvidia/Gemma-4-26B-A4B-NVFP4", vllm_version=version, tp=tp, host=H100 if tp <= 8 else BIG)
    assert v.ok and v.skipped == ()


@pytest.mark.parametrize("version", VERSIONS)
def test_modelopt_fp8_and_online_fp8_experts_are_decided(version):
    # per-tensor FP8 experts (ModelOpt FP8; --quantization fp8 of the bf16 checkpoint): no size check, the FP8 MoE
    # backend selection ends with Triton, which takes gelu_tanh
    c = copy.deepcopy(catalog.lookup("nvidia/Gemma-4-26B-A4B-NVFP4").config)
    c["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_scheme": None,
                                "ignore": c["quantization_config"]["ignore"]}
    v = kvguard.check(c, vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""
    online = kvguard.check("google/gemma-4-26B-A4B", vllm_version=version, tp=8, quantization="fp8", host=H100)
    assert online.ok and mi_skip(online) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_block_fp8_experts_check_the_block_shape(version):
    # tp 8: the experts' per-rank intermediate 704 / 8 = 88 is not a multiple of block_n 128 (gcd(128, 88, 2816) = 8:
    # too small to refine from 0.29.0) — refused in the experts of layer 0, after its dense MLP (2048 / 8 = 256)
    v = kvguard.check(gemma4_26b_fp8_block(), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_fp8_moe_block_n", "ValueError", FP8_BLOCK_N.format(88))


def test_block_fp8_experts_refined_from_0_29():
    # tp 1: 704 is not a multiple of 128: refused in 0.28.0; from 0.29.0 the scales are refined to
    # gcd(128, 128, 704, 2816) = 64 (the default host's Triton MoE kernel takes it, and gelu_tanh): built
    old = kvguard.check(gemma4_26b_fp8_block(), vllm_version="0.28.0", tp=1, host=H100)
    assert (old.ok, old.check, old.message) == (False, "MI_fp8_moe_block_n", FP8_BLOCK_N.format(704))
    new = kvguard.check(gemma4_26b_fp8_block(), vllm_version="0.29.0", tp=1, host=H100)
    assert new.ok and mi_skip(new) == ""


def test_nvfp4_moe_activation_override_is_left_open():
    # 0.32.0+: a ``moe`` section (the NVFP4 MoE activation override) changes the backend the experts need
    c = copy.deepcopy(catalog.lookup("nvidia/Gemma-4-26B-A4B-NVFP4").config)
    c["quantization_config"]["moe"] = {"activation": "nvfp4_per_token"}
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert v.ok and "MoE section" in mi_skip(v)


def test_named_moe_backend_is_left_open():
    v = kvguard.check("nvidia/Gemma-4-26B-A4B-NVFP4", vllm_version="0.33.0", tp=4, moe_backend="marlin", host=H100)
    assert v.ok and "--moe-backend marlin" in mi_skip(v)


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_unquantized_moe_block_is_decided(version):
    # google/gemma-4-26B-A4B (bf16): 16 heads, KV heads 8 / 2, experts 128 x 704 split by tp 4 (176 each): built
    v = kvguard.check("google/gemma-4-26B-A4B", vllm_version=version, tp=4, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_quantizable_vision_tower_is_left_open():
    # a vision tower of hidden 1152 (18 x 64) and intermediate 4352 (68 x 64): the wrapper hands it the NVFP4 config
    c = gemma4_31b()
    c["vision_config"]["intermediate_size"] = 4352
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert "quantized vision tower" in mi_skip(v)


def test_per_layer_embeddings_are_left_open():
    c = gemma4_31b(hidden_size_per_layer_input=256)
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert "per-layer embeddings" in mi_skip(v)


def test_expression_indexes_per_layer_lists():
    assert evaluate("layer_head_dim[i] * 2", {"layer_head_dim": [256, 512], "i": 1}) == 1024
    with pytest.raises(ExpressionError):
        evaluate("layer_head_dim[i]", {"layer_head_dim": [256], "i": 3})
    with pytest.raises(ExpressionError):
        evaluate("layer_head_dim[i]", {"i": 0})
