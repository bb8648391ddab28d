"""ERNIE-4.5 model construction: the MoE models (the ernie4_5_moe family of kvguard/data/quant_archs.json) and the dense
ERNIE-4.5-0.3B (Ernie4_5ForCausalLM, the llama family's rows).

Expected values are worked out by hand from the catalog's ERNIE-4.5 configs (baidu/ERNIE-4.5-21B-A3B-PT: hidden 2560,
20 heads, 4 KV heads of 128, dense intermediate 12288, MoE intermediate 1536, 64 experts, 2 shared experts, MoE from
layer 1; baidu/ERNIE-4.5-300B-A47B-PT: hidden 8192, 64 heads, 8 KV heads, dense intermediate 28672, MoE intermediate
3584, 64 experts, no shared expert, MoE from layer 3) and vLLM's vllm/model_executor/models/ernie45_moe.py;
tests/upstream/test_quant.py (run_ernie45_moe) and the golden cases tests/cases/*/mi-ernie45-*.json compare with the
releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import layers
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}


def ernie(size: str, **patch) -> dict:
    cfg = copy.deepcopy(catalog.lookup(f"baidu/ERNIE-4.5-{size}-PT").config)
    cfg.update(patch)
    return cfg


def _layer_names(cfg: dict, version: str, index: int) -> list[str]:
    facts = model_facts(cfg, vllm_version=version)
    prefix = f"model.layers.{index}."
    return [layer.prefix[len(prefix):] for layer in layers(facts.resolved, "ernie4_5_moe", resolve(version),
                                                            facts.architectures)
            if layer.prefix.startswith(prefix)]


DENSE = ["self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate_up_proj", "mlp.down_proj"]
SHARED = ["mlp.shared_experts.gate_up_proj", "mlp.shared_experts.down_proj"]


@pytest.mark.parametrize(("version", "moe_block"), [
    # up to 0.11.0 the routed experts are built before the shared experts; from 0.11.1 (SharedFusedMoE) after them
    ("0.10.2", ["mlp.gate", "mlp.experts"] + SHARED),
    ("0.11.0", ["mlp.gate", "mlp.experts"] + SHARED),
    ("0.11.1", ["mlp.gate"] + SHARED + ["mlp.experts"]),
    ("0.33.0", ["mlp.gate"] + SHARED + ["mlp.experts"]),
])
def test_21b_dense_first_layer_then_moe_block_order(version, moe_block):
    cfg = ernie("21B-A3B", num_hidden_layers=3, moe_layer_end_index=-1)
    assert _layer_names(cfg, version, 0) == DENSE
    assert _layer_names(cfg, version, 1) == ["self_attn.qkv_proj", "self_attn.o_proj"] + moe_block
    assert _layer_names(cfg, version, 2) == ["self_attn.qkv_proj", "self_attn.o_proj"] + moe_block


def test_300b_moe_range_and_interval_decide_the_moe_layers():
    # 300B: no shared expert; MoE from layer 3; with interval 2 only the layers i with (i + 1) % 2 == 0 from 3 on
    cfg = ernie("300B-A47B", num_hidden_layers=6, moe_layer_end_index=-1)
    moe = ["self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate", "mlp.experts"]
    assert [_layer_names(cfg, "0.33.0", i) for i in range(6)] == [DENSE] * 3 + [moe] * 3
    cfg = ernie("300B-A47B", num_hidden_layers=6, moe_layer_end_index=4, moe_layer_interval=2)
    assert [_layer_names(cfg, "0.33.0", i) for i in range(6)] == [DENSE] * 3 + [moe, DENSE, DENSE]


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.24.0", "0.33.0"])
def test_recipe_launches_are_accepted(version):
    # the vLLM recipe's 300B launches: online FP8 at -tp 8, BF16 at -tp 16 (224 expert rows per rank, 4 heads)
    fp8 = kvguard.check(ernie("300B-A47B"), vllm_version=version, tp=8, quantization="fp8", host=H100)
    assert fp8.ok, fp8.message
    assert fp8.skipped == () or all(s.check != "MI_model" for s in fp8.skipped)
    if version != "0.10.2":  # (no --nnodes before 0.11.1)
        bf16 = kvguard.check(ernie("300B-A47B"), vllm_version=version, tp=16, nnodes=2, host=H100)
        assert bf16.ok, bf16.message


@pytest.mark.parametrize(("version", "ok"), [("0.11.1", False), ("0.28.0", False), ("0.29.0", True),
                                             ("0.33.0", True)])
def test_300b_block_fp8_tp16_experts(version, ok):
    # 3584 / 16 = 224 rows per rank: 1.75 blocks of 128; from 0.29.0 the block scales are refined (gcd(128, 128, 224,
    # 8192) = 32) and Triton runs them on the default host
    verdict = kvguard.check(ernie("300B-A47B", quantization_config=FP8_BLOCK), vllm_version=version, tp=16, nnodes=2,
                            host=H100)
    if ok:
        assert verdict.ok, verdict.message
        return
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by) == (False, "model_init", "ValueError", None)
    assert verdict.message == "The output_size of gate's and up's weight = 224 is not divisible by weight quantization " \
                              "block_n = 128."


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.33.0"])
def test_300b_experts_split_over_six_ranks_assert(version):
    # no expert parallel: the experts are split over tp x dp = 6 and 3584 % 6 != 0 (FusedMoE's bare assert)
    verdict = kvguard.check(ernie("300B-A47B"), vllm_version=version, tp=2, dp=3, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (False, "model_init", "AssertionError", "")


@pytest.mark.parametrize(("version", "stage", "exc", "message"), [
    # up to 0.11.0 the MoE block hands FusedMoE no EPLB: the model builds, and the worker's first EPLB step asserts
    # (the model implements no MixtureOfExperts yet)
    ("0.10.2", "worker", "AssertionError", ""),
    ("0.11.1", "model_init", "AssertionError", "EPLB currently only supports even distribution of experts across ranks."),
    ("0.21.0", "model_init", "AssertionError", "EPLB currently only supports even distribution of experts across ranks."),
    ("0.22.1", "model_init", "ValueError", "EPLB currently only supports even distribution of experts across ranks. Got "
                                           "64 experts and 6 EP ranks."),
])
def test_300b_eplb_over_six_ranks(version, stage, exc, message):
    verdict = kvguard.check(ernie("300B-A47B"), vllm_version=version, dp=6, enable_expert_parallel=True,
                            enable_eplb=True, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (False, stage, exc, message)


def test_tp_above_the_expert_count_is_refused_by_the_moe_block():
    verdict = kvguard.check(ernie("300B-A47B", moe_num_experts=6), vllm_version="0.33.0", tp=8, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (
        False, "model_init", "ValueError", "Tensor parallel size 8 is greater than the number of experts 6.")


def test_21b_block_fp8_routed_experts_split_over_tp_times_dp():
    # the shared experts (3072, split by tp 2) build; the routed experts take 1536 / 8 = 192 rows per rank
    cfg = ernie("21B-A3B", quantization_config=FP8_BLOCK)
    refused = kvguard.check(cfg, vllm_version="0.28.0", tp=2, dp=4, host=H100)
    assert (refused.ok, refused.exc_type, refused.message) == (
        False, "ValueError", "The output_size of gate's and up's weight = 192 is not divisible by weight quantization "
                             "block_n = 128.")
    assert kvguard.check(cfg, vllm_version="0.33.0", tp=2, dp=4, host=H100).ok


def test_unmodelled_forms_are_skipped_not_accepted():
    nvfp4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head"]}
    verdict = kvguard.check(ernie("21B-A3B", quantization_config=nvfp4), vllm_version="0.33.0", tp=2, host=H100)
    assert any(s.check == "MI_model" for s in verdict.skipped)
    verdict = kvguard.check(ernie("21B-A3B", moe_num_shared_experts=None), vllm_version="0.33.0", tp=2, host=H100)
    assert any(s.check == "MI_model" and "moe_num_shared_experts" in s.reason for s in verdict.skipped)


# ERNIE-4.5-0.3B (Ernie4_5ForCausalLM): a LlamaForCausalLM subclass in every release, so the llama family's rows
# (hidden 1024, 16 heads, 2 KV heads of 128, intermediate 3072)
@pytest.mark.parametrize(("version", "message"), [
    # 3072 / 16 = 192 rows per rank: the merged gate_up_proj up to 0.13.x, its row-parallel down_proj from 0.14.0
    ("0.11.1", "Weight output_partition_size = 192 is not divisible by weight quantization block_n = 128."),
    ("0.14.1", "Weight input_size_per_partition = 192 is not divisible by weight quantization block_k = 128."),
    ("0.33.0", "Weight input_size_per_partition = 192 is not divisible by weight quantization block_k = 128."),
])
def test_03b_block_fp8_tp16(version, message):
    cfg = copy.deepcopy(catalog.lookup("baidu/ERNIE-4.5-0.3B-PT").config)
    cfg["quantization_config"] = FP8_BLOCK
    verdict = kvguard.check(cfg, vllm_version=version, tp=16, nnodes=2, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.message) == (False, "model_init", "ValueError", message)
    # at tp 8 the MLP's 384 rows and the attention's 2 heads of 128 per rank are whole blocks
    assert kvguard.check(cfg, vllm_version=version, tp=8, host=H100).ok


def test_03b_layers_are_llamas():
    facts = model_facts(catalog.lookup("baidu/ERNIE-4.5-0.3B-PT").config, vllm_version="0.33.0")
    built = layers(facts.resolved, "llama", resolve("0.33.0"), facts.architectures)
    assert [layer.prefix for layer in built if layer.prefix.startswith("model.layers.0.")] == [
        "model.layers.0.self_attn.qkv_proj", "model.layers.0.self_attn.o_proj", "model.layers.0.mlp.gate_up_proj",
        "model.layers.0.mlp.down_proj"]
