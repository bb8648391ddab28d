"""MiMo-V2-Flash model construction (the mimo_v2_flash family of kvguard/data/quant_archs.json, 0.24.0+).

Expected values are worked out by hand from MiMo-V2-Flash's config (kvguard/catalog: hidden 4096; full-attention
layers 64 heads and 4 KV heads, sliding-window layers 64 heads and 8 KV heads, both with query / key heads of 192 and
value heads of 128; dense intermediate 16384, MoE intermediate 2048, 256 experts; layer 0 dense; block FP8 [128, 128])
and vLLM's vllm/model_executor/models/mimo_v2_flash.py / mimo_v2.py; tests/upstream/test_quant.py
(run_mimo_v2_flash) and the golden cases tests/cases/*/mi-mimo-v2-flash-*.json compare with the releases themselves.
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
#: four nodes of eight (the -tp 32 / -tp 64 launches)
NODES = kvguard.Host.cuda_node(gpus_per_node=64)


def flash(**patch) -> dict:
    cfg = copy.deepcopy(catalog.lookup("XiaomiMiMo/MiMo-V2-Flash").config)
    cfg.update(patch)
    return cfg


def test_layers_of_a_full_and_a_sliding_window_layer():
    facts = model_facts(flash(), vllm_version="0.33.0")
    built = layers(facts.resolved, "mimo_v2_flash", resolve("0.33.0"), facts.architectures)
    by_name = {layer.prefix: layer for layer in built}
    # layer 0: full attention (hybrid_layer_pattern 0), dense MLP; layer 1: sliding window (1), experts
    full, swa = by_name["model.layers.0.self_attn.qkv_proj"], by_name["model.layers.1.self_attn.qkv_proj"]
    assert (full.qkv, full.v_head_size) == ((4096, 192, 64, 4), 128)
    assert (swa.qkv, swa.v_head_size) == ((4096, 192, 64, 8), 128)
    # the output projection reads the value heads: 64 x 128
    assert by_name["model.layers.1.self_attn.o_proj"].input_size == 8192
    assert by_name["model.layers.0.mlp.gate_up_proj"].output_sizes == (16384, 16384)
    assert "model.layers.1.mlp.gate_up_proj" not in by_name
    assert by_name["model.layers.1.mlp.experts"].moe[:3] == (256, 4096, 2048)
    # the router: a GateLinear built without the quantization config from 0.31.0 (an nn.Linear before: no layer)
    assert not by_name["model.layers.1.mlp.gate"].quantized
    older = layers(facts.resolved, "mimo_v2_flash", resolve("0.30.0"), facts.architectures)
    assert not any(layer.prefix.endswith(".mlp.gate") for layer in older)


@pytest.mark.parametrize(("version", "message"), [
    # 2048 / 32 = 64 rows per expert rank, half a block
    ("0.24.0", "The output_size of gate's and up's weight = 64 is not divisible by weight quantization block_n = 128."),
    ("0.28.0", "The output_size of gate's and up's weight = 64 is not divisible by weight quantization block_n = 128."),
])
def test_block_fp8_tp32_refused_by_the_experts(version, message):
    verdict = kvguard.check(flash(), vllm_version=version, tp=32, host=NODES)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by) == (False, "model_init", "ValueError", None)
    assert verdict.message == message


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_block_fp8_tp32_refined_from_0_29_0(version):
    # 0.29.0's FP8 MoE method refines the block to gcd(128, 128, 64, 4096) = 64, which the default host's Triton takes
    verdict = kvguard.check(flash(), vllm_version=version, tp=32, host=NODES)
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_model_card_launches_are_accepted(version):
    assert kvguard.check(flash(), vllm_version=version, tp=8, host=H100).ok
    assert kvguard.check(flash(), vllm_version=version, dp=8, enable_expert_parallel=True, host=H100).ok


def test_value_heads_decide_the_output_projection():
    # value heads of 96: o_proj's input 64 x 96 = 6144, 192 per rank at -tp 32 (1.5 blocks): its block_k refuses
    # before any expert is built (layer 0's attention comes first)
    verdict = kvguard.check(flash(v_head_dim=96), vllm_version="0.33.0", tp=32, host=NODES)
    assert (verdict.ok, verdict.exc_type) == (False, "ValueError")
    assert verdict.message == "Weight input_size_per_partition = 192 is not divisible by weight quantization block_k = 128."


def test_tensor_parallel_above_the_expert_count():
    # checked by the MoE block before its router and experts: layer 1 at -tp 16 with 8 experts
    verdict = kvguard.check(flash(n_routed_experts=8), vllm_version="0.33.0", tp=16, host=NODES)
    assert (verdict.ok, verdict.exc_type) == (False, "ValueError")
    assert verdict.message == "Tensor parallel size 16 is greater than the number of experts 8."


@pytest.mark.parametrize(("version", "without_moe_model"), [("0.24.0", True), ("0.33.0", True)])
def test_eplb_finds_no_mixture_of_experts_model(version, without_moe_model):
    # the model class derives from MixtureOfExperts but never sets num_moe_layers: is_mixture_of_experts is False
    res = outcome(model_facts(flash(), vllm_version=version), resolve(version), Launch(tp=1, dp=8, ep=True, eplb=True))
    assert (res.check, res.unmodelled, res.eplb_without_moe_model) == (None, None, without_moe_model)


def test_what_stays_open_is_skipped_not_accepted():
    release = resolve("0.33.0")
    fused = outcome(model_facts(flash(attention_projection_layout="fused_qkv"), vllm_version="0.33.0"), release,
                    Launch(tp=8))
    assert fused.unmodelled is not None and "attention projection layout" in fused.unmodelled
    # 0.32.0 builds the split QKVParallelLinear whatever the layout says
    assert outcome(model_facts(flash(attention_projection_layout="fused_qkv"), vllm_version="0.32.0"),
                   resolve("0.32.0"), Launch(tp=8)).unmodelled is None
    no_swa = flash()
    del no_swa["swa_num_key_value_heads"]
    assert outcome(model_facts(no_swa, vllm_version="0.33.0"), release, Launch(tp=8)).unmodelled is not None
    # moe_layer_freq as a number: no per-layer flag to read (vLLM builds every layer dense), left open
    assert outcome(model_facts(flash(moe_layer_freq=1), vllm_version="0.33.0"), release,
                   Launch(tp=8)).unmodelled is not None
    awq = flash(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                     "version": "gemm"})
    assert "awq" in (outcome(model_facts(awq, vllm_version="0.33.0"), release, Launch(tp=8)).unmodelled or "")
    # before 0.24.0 transformers does not read the config: the construction is not claimed
    assert outcome(model_facts(flash(), vllm_version="0.33.0"), resolve("0.23.0"), Launch(tp=8)).unmodelled
