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


def test_quantized_experts_are_left_open():
    v = kvguard.check("nvidia/Gemma-4-26B-A4B-NVFP4", vllm_version="0.33.0", tp=4, host=H100)
    assert v.ok and "quantized MoE experts of Gemma 4" in mi_skip(v)


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
