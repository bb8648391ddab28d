"""GLM-4.x MoE model construction (the glm4_moe family of kvguard/data/quant_archs.json).

Expected values are worked out by hand from GLM-4.5-Air's config (kvguard/catalog: hidden 4096, 96 heads, 8 KV heads
of 128, dense intermediate 10944, MoE intermediate 1408, 128 experts, one shared expert, one dense layer) and vLLM's
vllm/model_executor/models/glm4_moe.py; tests/upstream/test_quant.py (run_glm4_moe) and the golden cases
tests/cases/*/mi-glm45-air-*.json compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import Launch, layers, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()

#: Fp8Config's block form, the dense first layer's MLP left unquantized (10944 = 85.5 blocks of 128)
FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128],
             "modules_to_not_convert": ["lm_head", "model.layers.0.mlp.gate_proj", "model.layers.0.mlp.up_proj",
                                        "model.layers.0.mlp.down_proj"]}


def air(**patch) -> dict:
    cfg = copy.deepcopy(catalog.lookup("zai-org/GLM-4.5-Air").config)
    cfg.update(patch)
    return cfg


@pytest.mark.parametrize(("version", "message"), [
    # 0.10.2: the routed experts are built before the shared ones; 1408 / 4 = 352 rows per rank
    ("0.10.2", "The output_size of gate's and up's weight = 352 is not divisible by weight quantization block_n = 128."),
    # 0.11.0 - 0.13.x: the shared experts first, their merged gate_up_proj split by tp
    ("0.11.0", "Weight output_partition_size = 352 is not divisible by weight quantization block_n = 128."),
    ("0.13.0", "Weight output_partition_size = 352 is not divisible by weight quantization block_n = 128."),
    # 0.14.0+: the ragged merged layer is exempt, its row-parallel down_proj refuses; 0.29.0's MoE refinement does not
    # reach the (dense) shared experts
    ("0.14.1", "Weight input_size_per_partition = 352 is not divisible by weight quantization block_k = 128."),
    ("0.29.0", "Weight input_size_per_partition = 352 is not divisible by weight quantization block_k = 128."),
    ("0.33.0", "Weight input_size_per_partition = 352 is not divisible by weight quantization block_k = 128."),
])
def test_air_block_fp8_tp4_refused_by_the_experts_built_first(version, message):
    verdict = kvguard.check(air(quantization_config=FP8_BLOCK), vllm_version=version, tp=4, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by) == (False, "model_init", "ValueError", None)
    assert verdict.message == message


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.24.0", "0.33.0"])
def test_air_block_fp8_expert_parallel_over_dp_is_accepted(version):
    # nothing split by tp: 1408 is 11 blocks, the attention's 12 / 1 heads per rank are whole blocks at tp 1
    verdict = kvguard.check(air(quantization_config=FP8_BLOCK), vllm_version=version, dp=8, enable_expert_parallel=True,
                            host=H100)
    assert verdict.ok, verdict.message


@pytest.mark.parametrize(("version", "exc", "message"), [
    ("0.21.0", "AssertionError", "EPLB currently only supports even distribution of experts across ranks."),
    ("0.22.1", "ValueError", "EPLB currently only supports even distribution of experts across ranks. Got 128 experts "
                             "and 5 EP ranks."),
])
def test_air_eplb_over_five_ranks(version, exc, message):
    verdict = kvguard.check(air(quantization_config=FP8_BLOCK), vllm_version=version, dp=5, enable_expert_parallel=True,
                            enable_eplb=True, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (False, "model_init", exc, message)


def _moe_layer_names(version: str) -> list[str]:
    facts = model_facts(air(num_hidden_layers=2), vllm_version=version)
    return [layer.prefix.split("layers.1.", 1)[1] for layer in layers(facts.resolved, "glm4_moe", resolve(version),
                                                                      facts.architectures)
            if layer.prefix.startswith("model.layers.1.")]


def test_the_moe_block_order_by_release():
    assert _moe_layer_names("0.10.2") == ["self_attn.qkv_proj", "self_attn.o_proj", "mlp.experts",
                                          "mlp.shared_experts.gate_up_proj", "mlp.shared_experts.down_proj"]
    assert _moe_layer_names("0.30.0") == ["self_attn.qkv_proj", "self_attn.o_proj", "mlp.shared_experts.gate_up_proj",
                                          "mlp.shared_experts.down_proj", "mlp.experts"]
    # the router: an nn.Linear (no vLLM linear layer) up to 0.30.0, a GateLinear from 0.31.0
    assert _moe_layer_names("0.31.0") == ["self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate",
                                          "mlp.shared_experts.gate_up_proj", "mlp.shared_experts.down_proj",
                                          "mlp.experts"]


@pytest.mark.parametrize(("version", "without_moe_model"), [("0.10.2", True), ("0.11.0", True), ("0.11.1", False)])
def test_eplb_finds_a_mixture_of_experts_model_from_0_11_1(version, without_moe_model):
    facts = model_facts(air(), vllm_version=version)
    res = outcome(facts, resolve(version), Launch(tp=1, dp=8, ep=True, eplb=True))
    assert (res.check, res.unmodelled, res.eplb_without_moe_model) == (None, None, without_moe_model)


def test_what_stays_open_is_skipped_not_accepted():
    release = resolve("0.28.0")
    gelu = outcome(model_facts(air(hidden_act="gelu"), vllm_version="0.28.0"), release, Launch(tp=1))
    assert gelu.unmodelled is not None and "hidden_act 'gelu'" in gelu.unmodelled
    dense = outcome(model_facts(air(first_k_dense_replace=46), vllm_version="0.28.0"), release, Launch(tp=1))
    assert dense.unmodelled is not None and "without a MoE layer" in dense.unmodelled
    facts = model_facts(air(), vllm_version="0.28.0")
    # 46 layers over 16 stages: 2 per stage, the first stage's may hold only the dense layer and one more
    assert outcome(facts, release, Launch(tp=1, pp=16)).unmodelled is not None
    assert outcome(facts, release, Launch(tp=1, pp=8)).unmodelled is None
    ct = air(quantization_config={"quant_method": "compressed-tensors", "config_groups": {}, "ignore": ["lm_head"]})
    assert outcome(model_facts(ct, vllm_version="0.28.0"), release, Launch(tp=1)).unmodelled is not None


def test_awq_router_is_never_quantized():
    # a router width Marlin's layer check would decline and the plain AWQ kernels refuse (100 experts: not a multiple
    # of 64, nor of the 8 values a packed word holds): built unquantized, so only the experts' and the other layers'
    # checks decide; the dense layer 0 (10944 inputs: 85.5 groups of 128) left unquantized, everything else whole
    awq = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm",
           "modules_to_not_convert": ["model.layers.0."], "quant_method": "awq"}
    cfg = air(n_routed_experts=100, quantization_config=awq, torch_dtype="bfloat16")
    res = outcome(model_facts(cfg, vllm_version="0.33.0"), resolve("0.33.0"), Launch(tp=1))
    assert (res.check, res.unmodelled) == (None, None)


#: GLM-4.7-Flash's sizes (tests/upstream/test_quant.py GLM4_MOE_LITE: slime's glm4.7-30B-A3B script), one dense layer
FLASH = {"architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "glm4_moe_lite", "hidden_size": 2048,
         "intermediate_size": 10240, "moe_intermediate_size": 1536, "num_hidden_layers": 2, "num_attention_heads": 20,
         "num_key_value_heads": 20, "q_lora_rank": 768, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 256, "n_routed_experts": 64, "n_shared_experts": 1,
         "num_experts_per_tok": 4, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1, "hidden_act": "silu",
         "vocab_size": 154880, "torch_dtype": "bfloat16",
         "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}}


def test_flash_block_fp8_q_b_proj_at_tp4():
    # q_b_proj: 20 heads x (128 + 64) = 3840 outputs, 960 per rank at tp 4 (7.5 blocks); the unsplit fused_qkv_a_proj
    # before it checks 768 (its first output) only
    refused = kvguard.check(FLASH, vllm_version="0.28.0", tp=4, host=H100)
    assert (refused.ok, refused.stage, refused.exc_type) == (False, "model_init", "ValueError")
    assert refused.message == "Weight output_partition_size = 960 is not divisible by weight quantization block_n = 128."
    # tp 2: 1920 / 3840 (kv_b_proj) / 2560 (o_proj) / 5120 (dense) / 768 (shared and routed experts): whole blocks
    assert kvguard.check(FLASH, vllm_version="0.28.0", tp=2, host=H100).ok


def test_flash_layers_and_what_stays_open():
    facts = model_facts(dict(FLASH, quantization_config=None), vllm_version="0.31.0")
    names = [layer.prefix.split("layers.1.", 1)[1] for layer in layers(facts.resolved, "glm4_moe_lite", resolve("0.31.0"),
                                                                       facts.architectures)
             if layer.prefix.startswith("model.layers.1.")]
    assert names == ["self_attn.fused_qkv_a_proj", "self_attn.q_b_proj", "self_attn.kv_b_proj", "self_attn.o_proj",
                     "mlp.gate", "mlp.shared_experts.gate_up_proj", "mlp.shared_experts.down_proj", "mlp.experts"]
    # the model hands its MoE layers no EPLB: what --enable-eplb then does is left open
    res = outcome(facts, resolve("0.31.0"), Launch(tp=1, dp=8, ep=True, eplb=True))
    assert res.unmodelled is not None and "take no EPLB" in res.unmodelled


EPLB_REDUNDANT_8 = {"tp": 2, "dp": 4, "enable_expert_parallel": True, "enable_eplb": True, "num_redundant_experts": 8}


@pytest.mark.parametrize("version", ["0.24.0", "0.27.1", "0.31.0", "0.33.0"])
def test_flash_redundant_experts_without_eplb_in_its_moe_layers(version):
    # Glm4MoeLite builds Glm4MoE without enable_eplb, which still reads eplb_config.num_redundant_experts and passes
    # it to FusedMoE: the MoE layer factory asserts that no redundant experts came without EPLB (the attention and
    # shared experts before it build at tp 2: 1920, 3840, 2560 and 768 per rank are whole blocks)
    verdict = kvguard.check(FLASH, vllm_version=version, host=H100, **EPLB_REDUNDANT_8)
    assert (verdict.ok, verdict.stage, verdict.check, verdict.exc_type, verdict.message, verdict.wrapped_by) == (
        False, "model_init", "MI_redundant_without_eplb", "AssertionError",
        "Redundant experts are only supported with EPLB.", None)


def test_flash_eplb_without_redundant_experts_stays_open():
    # no redundant experts: the layers build; what EPLB then does with layers that took none is not read
    verdict = kvguard.check(FLASH, vllm_version="0.33.0", host=H100, **dict(EPLB_REDUNDANT_8, num_redundant_experts=0))
    assert verdict.ok
    assert any(s.check == "MI_model" and "take no EPLB" in s.reason for s in verdict.skipped)


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_air_takes_the_redundant_experts_with_eplb(version):
    # Glm4MoE is given enable_eplb by its decoder layer: 128 + 8 = 136 physical experts, 17 on each of 8 EP ranks
    # (unquantized: block FP8 would refuse the shared experts' 1408 / 2 = 704 rows per rank first)
    verdict = kvguard.check(air(), vllm_version=version, host=H100, **EPLB_REDUNDANT_8)
    assert verdict.ok, verdict.message
    refused = kvguard.check(air(), vllm_version=version, host=H100,
                            **dict(EPLB_REDUNDANT_8, num_redundant_experts=4))
    assert (refused.check, refused.message) == (
        "MI_eplb_even", "EPLB currently only supports even distribution of experts across ranks. Got 132 experts and "
                        "8 EP ranks.")


def _ct(weights: dict, activations: "dict | None", fmt: str, ignore: list) -> dict:
    """A compressed-tensors quantization_config of one ``Linear`` group, as llm-compressor writes it."""
    return {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": activations,
                                          "output_activations": None, "format": fmt}},
            "ignore": ignore, "kv_cache_scheme": None, "sparsity_config": {}}


#: the ignore list of llm-compressor's GLM-4.6 FP8_BLOCK example (examples/model_free_ptq/glm_4.6_fp8_block.py)
GLM_CT_IGNORE = ["re:.*gate$", "lm_head", "model.embed_tokens"]
CT_W4A16_G32 = _ct({"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 32}, None,
                   "pack-quantized", GLM_CT_IGNORE)
CT_FP8_BLOCK = _ct({"num_bits": 8, "type": "float", "symmetric": True, "strategy": "block", "block_structure": [128, 128]},
                   {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "group", "group_size": 128,
                    "dynamic": True}, "float-quantized", GLM_CT_IGNORE)
CT_FP8_DYNAMIC = _ct({"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel"},
                     {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "token", "dynamic": True},
                     "float-quantized", GLM_CT_IGNORE)


@pytest.mark.parametrize(("version", "exc", "message"), [
    # 0.10.2: no scheme takes block weights (the first quantized layer, layer 0's qkv_proj)
    ("0.10.2", "NotImplementedError", "No compressed-tensors compatible scheme was found."),
    # 0.11.0+: the dense first layer's merged gate_up_proj, 10944 / 4 = 2736 rows per rank (21.375 blocks); the
    # merged-layer allowance of 0.14.0+ reads Fp8Config's weight_block_size, which this config has not
    ("0.11.0", "ValueError", "Weight output_partition_size = 2736 is not divisible by weight quantization block_n = 128."),
    ("0.14.1", "ValueError", "Weight output_partition_size = 2736 is not divisible by weight quantization block_n = 128."),
    ("0.33.0", "ValueError", "Weight output_partition_size = 2736 is not divisible by weight quantization block_n = 128."),
])
def test_air_compressed_tensors_fp8_block_tp4(version, exc, message):
    verdict = kvguard.check(air(quantization_config=CT_FP8_BLOCK, torch_dtype="bfloat16"), vllm_version=version, tp=4,
                            host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (False, "model_init", exc, message)


@pytest.mark.parametrize("version", ["0.10.2", "0.12.0", "0.31.0", "0.33.0"])
def test_air_compressed_tensors_fp8_dynamic_tp4_is_accepted(version):
    # per-channel FP8 weights with dynamic per-token activations: no size check on the linear layers nor the experts
    verdict = kvguard.check(air(quantization_config=CT_FP8_DYNAMIC, torch_dtype="bfloat16"), vllm_version=version, tp=4,
                            host=H100)
    assert verdict.ok and not [s for s in verdict.skipped if s.check == "MI_model"], verdict.message


def test_air_compressed_tensors_w4a16_tp2():
    cfg = air(quantization_config=CT_W4A16_G32, torch_dtype="bfloat16")
    # 0.24.0+: Marlin pads its tiles, 5472 / 2 inputs of layer 0's down_proj are 171 groups of 32: accepted
    res = outcome(model_facts(cfg, vllm_version="0.33.0"), resolve("0.33.0"), Launch(tp=2))
    assert (res.check, res.unmodelled) == (None, None)
    # up to 0.23.x: 5472 is not a multiple of Marlin's 128-input tile: which kernel then takes it stays open
    res = outcome(model_facts(cfg, vllm_version="0.20.0"), resolve("0.20.0"), Launch(tp=2))
    assert res.unmodelled is not None and "model.layers.0.mlp.down_proj (per-rank input 5472" in res.unmodelled


def test_compressed_tensors_router_is_never_quantized():
    # 100 experts: a router width Marlin's unpadded tiles (up to 0.23.x) decline (not a multiple of 64); with only
    # lm_head ignored the gate is still built unquantized (an nn.Linear; from 0.31.0 a GateLinear without the
    # quantization config). The dense MLP at 10240 (80 tiles of 128) so that every other layer fits Marlin
    cfg = air(n_routed_experts=100, intermediate_size=10240, torch_dtype="bfloat16",
              quantization_config=dict(CT_W4A16_G32, ignore=["lm_head"]))
    for version in ("0.20.0", "0.33.0"):
        res = outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(tp=1))
        assert (res.check, res.unmodelled) == (None, None), version
