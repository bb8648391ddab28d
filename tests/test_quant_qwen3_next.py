"""Model construction of Qwen3-Next (kvguard/data/quant_archs.json family qwen3_next).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/qwen3_next.py of 0.10.2 - 0.33.0, with its gated-delta-net layer in
vllm/model_executor/layers/mamba/gdn_linear_attn.py (0.19.x - 0.23.x) and gdn/qwen_gdn_linear_attn.py (0.24.0+),
qwen2_moe.py's Qwen2MoeMLP, fp8.py's block checks): each linear-attention layer builds conv1d (unquantized), its input
projections (0.10.2: one merged in_proj of qkvz and ba; 0.11.0 - 0.16.x two column layers; 0.17.x merged layers, ba
with two outputs; 0.18.0+ one output each), divides the value heads by tp (A_log), then out_proj; the MoE block builds
the routed experts before the shared expert up to 0.11.0 and after it from 0.11.1.  tests/upstream/test_quant.py
(run_qwen3_next) and the golden cases mi-fp8-qwen3-next-* compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
FP8 = "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8"


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def bf16(**sizes) -> dict:
    """Qwen/Qwen3-Next-80B-A3B-Instruct (hidden 2048; linear attention 16 key / 32 value heads of 128; attention 16
    heads, 2 KV heads of 256; 512 experts of 512, a shared expert of 512) with other sizes."""
    c = copy.deepcopy(catalog.lookup("Qwen/Qwen3-Next-80B-A3B-Instruct").config)
    c.update(sizes)
    return c


@pytest.mark.parametrize(("version", "check", "message"), [
    # the ignore list names in_proj_ba but not in_proj_qkvz: 0.10.2 builds both as one merged in_proj
    ("0.10.2", "MI_fused_shards", "Detected some but not all shards of model.layers.0.linear_attn.in_proj are "
                                  "quantized. All shards of fused layers to have the same precision."),
    # 512 / 8 = 64 expert features per rank; 0.11.0 builds the routed experts first
    ("0.11.0", "MI_fp8_moe_block_n",
     "The output_size of gate's and up's weight = 64 is not divisible by weight quantization block_n = 128."),
    # 0.11.1 - 0.13.x: the shared expert first, its merged gate_up_proj [64, 64] per rank
    ("0.11.1", "MI_fp8_block_n", "Weight output_partition_size = 64 is not divisible by weight quantization "
                                 "block_n = 128."),
    ("0.13.0", "MI_fp8_block_n", "Weight output_partition_size = 64 is not divisible by weight quantization "
                                 "block_n = 128."),
    # 0.14.0+: the merged layer's ragged shard is allowed; its down_proj takes 64 inputs per rank
    ("0.14.1", "MI_fp8_block_k", "Weight input_size_per_partition = 64 is not divisible by weight quantization "
                                 "block_k = 128."),
    ("0.24.0", "MI_fp8_block_k", "Weight input_size_per_partition = 64 is not divisible by weight quantization "
                                 "block_k = 128."),
    ("0.33.0", "MI_fp8_block_k", "Weight input_size_per_partition = 64 is not divisible by weight quantization "
                                 "block_k = 128."),
])
def test_fp8_release_at_tp8(version, check, message):
    v = kvguard.check(FP8, vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", check, "ValueError", message)


@pytest.mark.parametrize("version", ["0.11.0", "0.17.1", "0.20.0", "0.33.0"])
def test_fp8_release_at_tp4_builds(version):
    # 512 / 4 = 128: one block per rank in the experts and the shared expert; in_proj_ba and conv1d are left
    # unquantized by the list; the attention's qkv_proj (2 x 16 query heads with the output gate, 2 KV heads of 256)
    # gives 2048 + 256 + 256 outputs per rank, whole blocks
    v = kvguard.check(FP8, vllm_version=version, tp=4, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize(("version", "stage", "check"), [
    # 24 value heads, 12 key heads of 128 at tp 16: conv1d 2 x 1536 + 3072 = 6144 (384 per rank), in_proj_qkvz
    # 9216 (576), in_proj_ba 48 (3) divide.  Up to 0.19.x the hybrid model's Mamba state sizing divides the value
    # heads first, in the engine config (VC_mamba_state_tp); from 0.20.0 it is A_log's divide(24, 16) while layer 0
    # is built
    ("0.10.2", "verify", "VC_mamba_state_tp"),
    ("0.17.1", "verify", "VC_mamba_state_tp"),
    ("0.19.1", "verify", "VC_mamba_state_tp"),
    ("0.20.0", "model_init", "MI_divide"),
    ("0.24.0", "model_init", "MI_divide"),
    ("0.33.0", "model_init", "MI_divide"),
])
def test_value_heads_divided_by_tp(version, stage, check):
    c = bf16(linear_num_key_heads=12, linear_num_value_heads=24)
    v = kvguard.check(c, vllm_version=version, tp=16, host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, stage, check, "AssertionError",
                                                               "24 is not divisible by 16")


@pytest.mark.parametrize(("version", "message"), [
    # block FP8 with no ignore list at tp 2: in_proj_ba's 2 x 32 value heads.  0.16.0: a column layer, 32 outputs per
    # rank; 0.17.x: a merged layer of two outputs, [16, 16] per rank, whose ragged shard is allowed (0.14.0+), and
    # every other layer holds whole blocks (qkvz 6144, out_proj 2048, experts and shared expert 256 per rank):
    # built; 0.18.0+: one output, 32 per rank
    ("0.16.0", "Weight output_partition_size = 32 is not divisible by weight quantization block_n = 128."),
    ("0.17.1", None),
    ("0.18.0", "Weight output_partition_size = 32 is not divisible by weight quantization block_n = 128."),
    ("0.33.0", "Weight output_partition_size = 32 is not divisible by weight quantization block_n = 128."),
])
def test_in_proj_ba_quantized(version, message):
    c = bf16(quantization_config={"quant_method": "fp8", "activation_scheme": "dynamic",
                                  "weight_block_size": [128, 128]})
    v = kvguard.check(c, vllm_version=version, tp=2, host=H100)
    if message is None:
        assert v.ok and mi_skip(v) == ""
    else:
        assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_fp8_block_n", "ValueError", message)


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.33.0"])
def test_conv1d_is_split_before_the_projections(version):
    # 3 key heads / 6 value heads of 128 at tp 4 (attention heads 16): conv1d 2 x 384 + 768 = 1536 (384 per rank),
    # in_proj_qkvz 2304: 576 per rank; value heads 6 % 4: A_log refuses.  With 4 / 8 heads everything divides
    c = bf16(linear_num_key_heads=3, linear_num_value_heads=6)
    v = kvguard.check(c, vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.check, v.message) == (False, "MI_divide", "6 is not divisible by 4")
    ok = kvguard.check(bf16(linear_num_key_heads=4, linear_num_value_heads=8), vllm_version=version, tp=4, host=H100)
    assert ok.ok and mi_skip(ok) == ""


@pytest.mark.parametrize(("version", "ok"), [("0.19.1", False), ("0.20.0", True), ("0.33.0", True)])
def test_shared_expert_replicated_under_the_sequence_parallel_moe(version, ok):
    # FP8 release at -tp 8 -dp 2 --enable-expert-parallel: the MoE runs sequence-parallel (tp > 1, dp > 1, EP);
    # from 0.20.0 Qwen2MoeMLP is built with disable_tp then, so the shared expert keeps its 512 (4 blocks) and the
    # routed experts are whole per rank: built.  Up to 0.19.x it is split by tp: down_proj 64 inputs per rank
    v = kvguard.check(FP8, vllm_version=version, tp=8, dp=2, enable_expert_parallel=True, host=BIG)
    assert v.ok is ok
    if not ok:
        assert (v.check, v.message) == ("MI_fp8_block_k", "Weight input_size_per_partition = 64 is not divisible "
                                                          "by weight quantization block_k = 128.")


def test_other_methods_stay_skipped():
    # AWQ on Qwen3-Next is not modelled (the family is proven with block FP8 and unquantized checkpoints)
    c = bf16(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                  "version": "gemm"})
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert "awq weight-shard checks of Qwen3NextForCausalLM are not modelled" in mi_skip(v)


#: llm-compressor's Qwen3-Next example: every gated-delta-net layer, the routers and the shared-expert gates ignored
CT_IGNORE = ["lm_head", "re:.*mlp.gate$", "re:.*mlp.shared_expert_gate$", "re:.*linear_attn.*"]


def ct(weights: dict, activations: "dict | None", fmt: str) -> dict:
    return {"quant_method": "compressed-tensors", "format": fmt, "ignore": CT_IGNORE,
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights,
                                          "input_activations": activations, "format": fmt}}}


FP8_BLOCK = ct({"num_bits": 8, "type": "float", "symmetric": True, "strategy": "block", "block_structure": [128, 128],
                "dynamic": False},
               {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "group", "group_size": 128,
                "dynamic": True}, "float-quantized")
FP8_DYNAMIC = ct({"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel", "dynamic": False},
                 {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "token", "dynamic": True},
                 "float-quantized")


@pytest.mark.parametrize(("version", "message"), [
    # 512 / 8 = 64 features per rank: 0.11.0 builds the routed experts first (the gated-delta-net layers of layer 0
    # are ignored), from 0.11.1 the shared expert's merged gate_up_proj, which this scheme does not exempt
    ("0.11.0", "The output_size of gate's and up's weight = 64 is not divisible by weight quantization block_n = 128."),
    ("0.11.1", "Weight output_partition_size = 64 is not divisible by weight quantization block_n = 128."),
    ("0.33.0", "Weight output_partition_size = 64 is not divisible by weight quantization block_n = 128."),
])
def test_compressed_tensors_block_fp8_at_tp8(version, message):
    v = kvguard.check(bf16(torch_dtype="bfloat16", quantization_config=FP8_BLOCK), vllm_version=version, tp=8,
                      host=H100)
    assert (v.ok, v.stage, v.exc_type, v.message) == (False, "model_init", "ValueError", message)


def test_compressed_tensors_block_fp8_on_0_10_2_is_left_open():
    # 0.10.2 takes no block strategy; the first quantized layer is layer 0's experts, whose MoE method raises a
    # RuntimeError printing the scheme's fields: not decided
    v = kvguard.check(bf16(torch_dtype="bfloat16", quantization_config=FP8_BLOCK), vllm_version="0.10.2", tp=8,
                      host=H100)
    assert "compressed-tensors scheme of the experts model.layers.0.mlp.experts" in mi_skip(v)


@pytest.mark.parametrize("version", ["0.10.2", "0.17.1", "0.33.0"])
def test_compressed_tensors_fp8_dynamic_builds(version):
    # per-channel FP8 weights: no size check on any layer
    v = kvguard.check(bf16(torch_dtype="bfloat16", quantization_config=FP8_DYNAMIC), vllm_version=version, tp=8,
                      host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize(("layer_types", "first"), [
    # Qwen3-Next-80B-A3B's pattern: three gated-delta-net layers, then full attention
    (["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12, 3),
    (["full_attention", "linear_attention"] * 24, 0),
    # no layer kinds to read: the selector is taken to fire at the first layer
    (None, 0),
])
def test_first_attention_layer(layer_types, first):
    from kvguard.quant import first_attention_layer

    assert first_attention_layer("qwen3_next", {"num_hidden_layers": 48, "layer_types": layer_types}) == first


def test_families_without_linear_attention_select_at_the_first_layer():
    from kvguard.quant import first_attention_layer

    assert first_attention_layer("qwen3_moe", {"num_hidden_layers": 48}) == 0


@pytest.mark.parametrize("version", ["0.11.1", "0.11.2"])
def test_a_layer_refusal_comes_before_the_moe_bookkeeping(version):
    """0.11.1 - 0.11.2 refuse a first layer without experts in the model's MoE bookkeeping, which runs once every
    decoder layer is built: with mlp_only_layers [0] at -tp 8 layer 1's shared expert (512 / 8 = 64 rows per rank, half
    a 128-block) refuses first; at -tp 4 (one block per rank) every layer builds and the bookkeeping is left open."""
    config = copy.deepcopy(catalog.lookup(FP8).config)
    config["mlp_only_layers"] = [0]
    refused = kvguard.check(config, vllm_version=version, tp=8, host=H100)
    assert (refused.ok, refused.exc_type, refused.message) == (
        False, "ValueError", "Weight output_partition_size = 64 is not divisible by weight quantization block_n = 128.")
    built = kvguard.check(config, vllm_version=version, tp=4, host=H100)
    assert built.ok and "a first layer without experts" in mi_skip(built)
