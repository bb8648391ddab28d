"""Llama 4 construction (kvguard.quant.llama4 and the llama4 family): expected values worked out by hand from
vllm/model_executor/models/mllama4.py and llama4.py of the releases (the vision model and projector built with
``quant_config=None`` before the language model; Llama4MoE handing FusedMoE ``enable_eplb`` from 0.11.1), and
vllm/distributed/utils.py's ``ensure_divisibility`` message.  The differential in tests/upstream/test_quant.py
(run_llama4) checks them against the releases themselves."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvguard
from kvguard import catalog
from kvguard.quant import Launch, layers, llama4, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
MAVERICK = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
#: llm-compressor's Llama 4 recipe ignore list
RECIPE_IGNORE = ["re:.*lm_head", "re:.*self_attn", "re:.*router", "re:.*vision_model.*",
                 "re:.*multi_modal_projector.*", "Llama4TextAttention"]


def _outcome(cfg: dict, version: str, **launch):
    return outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(**launch))


def _config(model: str, **text) -> dict:
    cfg = copy.deepcopy(catalog.lookup(model).config)
    cfg["text_config"].update(text)
    return cfg


def _ct(model: str, weights: dict, activations, fmt: str, ignore: list) -> dict:
    cfg = _config(model)
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": activations,
                                      "format": fmt}},
        "ignore": ignore, "kv_cache_scheme": None}
    return cfg


FP8_CHANNEL = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel", "dynamic": False}
FP8_TOKEN = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "token", "dynamic": True}
FP8_BLOCK = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "block", "block_structure": [128, 128],
             "dynamic": False}
FP8_GROUP = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "group", "group_size": 128, "dynamic": True}
W4A16 = {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128, "dynamic": False}


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.24.0", "0.33.0"])
@pytest.mark.parametrize("tp", [5, 10, 20, 40])
def test_the_vision_patch_embedding_refuses_a_tp_the_text_heads_allow(version, tp):
    # 40 query heads divide by tp (the config checks pass); the tower is built first, and its patch embedding's
    # 1408 output features do not divide
    res = _outcome(_config(SCOUT), version, tp=tp)
    assert (res.check, dict(res.values), res.layer) == (
        "MI_divide", {"numerator": 1408, "denominator": tp}, "vision_model.patch_embedding.linear")


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_thirty_two_ranks_split_sixteen_vision_heads_after_the_patch_embedding(version):
    # 64 query heads (tp 32 passes the config), 1408 = 32 x 44 (the patch embedding divides): the vision attention's
    # bare assert on its 16 heads
    res = _outcome(_config(SCOUT, num_attention_heads=64), version, tp=32)
    assert (res.check, res.layer) == ("MI_attn_assert", "vision_model.model.layers.0")


@pytest.mark.parametrize("version", ["0.10.2", "0.28.0"])
def test_published_checkpoints_build_at_tp8(version):
    for model in (SCOUT, MAVERICK):
        res = _outcome(_config(model), version, tp=8)
        assert res.check is None and res.unmodelled is None


@pytest.mark.parametrize("version", ["0.11.1", "0.21.0", "0.22.0", "0.33.0"])
def test_eplb_refuses_sixteen_experts_over_six_ranks(version):
    res = _outcome(_config(SCOUT), version, tp=1, dp=6, ep=True, eplb=True)
    assert (res.check, dict(res.values), res.layer) == (
        "MI_eplb_even", {"experts": 16, "ep_size": 6}, "language_model.model.layers.0.feed_forward.experts")


def test_maverick_meets_its_first_experts_in_layer_one():
    res = _outcome(_config(MAVERICK), "0.28.0", tp=1, dp=5, ep=True, eplb=True)
    assert (res.check, dict(res.values), res.layer) == (
        "MI_eplb_even", {"experts": 128, "ep_size": 5}, "language_model.model.layers.1.feed_forward.experts")


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_before_0_11_1_the_model_hands_no_eplb_to_its_experts(version):
    # Llama4MoE passes no enable_eplb and Llama4ForConditionalGeneration implements no MixtureOfExperts: the worker's
    # first EPLB step decides (W_eplb_no_moe_model)
    res = _outcome(_config(SCOUT), version, tp=1, dp=6, ep=True, eplb=True)
    assert res.check is None and res.eplb_without_moe_model


def test_maverick_layers_alternate_dense_and_moe():
    facts = model_facts(_config(MAVERICK, num_hidden_layers=2), vllm_version="0.33.0")
    names = [(layer.prefix, layer.kind) for layer in layers(facts.resolved, "llama4", resolve("0.33.0"),
                                                             facts.architectures) if layer.kind != "check"]
    assert names == [
        ("language_model.model.embed_tokens", "vocab"),
        ("language_model.model.layers.0.self_attn.qkv_proj", "qkv"),
        ("language_model.model.layers.0.self_attn.o_proj", "row"),
        ("language_model.model.layers.0.feed_forward.gate_up_proj", "merged"),
        ("language_model.model.layers.0.feed_forward.down_proj", "row"),
        ("language_model.model.layers.1.self_attn.qkv_proj", "qkv"),
        ("language_model.model.layers.1.self_attn.o_proj", "row"),
        ("language_model.model.layers.1.feed_forward.router", "replicated"),
        ("language_model.model.layers.1.feed_forward.shared_expert.gate_up_proj", "merged"),
        ("language_model.model.layers.1.feed_forward.shared_expert.down_proj", "row"),
        ("language_model.model.layers.1.feed_forward.experts", "moe")]


def test_the_tower_is_built_unquantized_in_construction_order():
    facts = model_facts(_config(SCOUT), vllm_version="0.28.0")
    tower = llama4.tower_layers(facts.resolved_top, facts.resolved["hidden_size"])
    assert [(layer.prefix, layer.input_size, layer.output_sizes) for layer in tower[:2]] == [
        ("vision_model.patch_embedding.linear", 588, (1408,)), ("vision_model.model.layers.0", 0, ())]
    assert [(layer.prefix, layer.input_size, layer.output_sizes) for layer in tower[-3:]] == [
        ("vision_model.vision_adapter.mlp.fc1", 5632, (4096,)), ("vision_model.vision_adapter.mlp.fc2", 4096, (4096,)),
        ("multi_modal_projector.linear_1", 4096, (5120,))]
    assert len(tower) == 1 + 34 * 5 + 3
    assert not any(layer.quantized for layer in tower if layer.kind != "check")


@pytest.mark.parametrize("version", ["0.10.2", "0.24.0", "0.33.0"])
def test_compressed_tensors_fp8_dynamic_with_the_recipe_ignore_list_builds(version):
    res = _outcome(_ct(SCOUT, FP8_CHANNEL, FP8_TOKEN, "float-quantized", RECIPE_IGNORE), version, tp=8)
    assert res.check is None and res.unmodelled is None


def test_compressed_tensors_block_fp8_finds_no_scheme_in_0_10_2():
    # 0.10.2's compressed-tensors config reads no block strategy: the first quantized layer (Maverick's dense layer 0
    # gate_up_proj; the attention is ignored) finds no scheme
    res = _outcome(_ct(MAVERICK, FP8_BLOCK, FP8_GROUP, "float-quantized", RECIPE_IGNORE), "0.10.2", tp=8)
    assert (res.check, res.layer) == ("MI_ct_no_scheme", "language_model.model.layers.0.feed_forward.gate_up_proj")
    res = _outcome(_ct(MAVERICK, FP8_BLOCK, FP8_GROUP, "float-quantized", RECIPE_IGNORE), "0.11.0", tp=8)
    assert res.check is None and res.unmodelled is None


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.23.0", "0.24.0", "0.27.0", "0.33.0"])
def test_w4a16_in_redhats_form_builds_at_tp8(version):
    # RedHatAI's -quantized.w4a16 (groups of 128, the recipe's ignore list): the shared expert's 8192 / 8 = 1024 inputs
    # per rank and the experts' 1024 rows are whole groups
    res = _outcome(_ct(SCOUT, W4A16, None, "pack-quantized", RECIPE_IGNORE), version, tp=8)
    assert res.check is None and res.unmodelled is None


_FP8_ONLY = "EPLB is only supported for FP8 quantization for now."


@pytest.mark.parametrize(("version", "message"), [
    # the Marlin MoE check declines experts that apply the router weight on the input: the fall-back method, which
    # supports EPLB from 0.12.0 (Qwen3-MoE's same launch gets the Marlin method, refused up to 0.26.x)
    ("0.11.1", "EPLB is not supported CompressedTensorsWNA16MoEMethod. " + _FP8_ONLY),
    ("0.12.0", None), ("0.20.0", None), ("0.26.0", None),
    # 0.27.0+: one method; the backend selection's Marlin check no longer reads the router weight: MARLIN takes 8192
    # rows (EP, MoE tp 1), and the method supports EPLB only on TRITON
    ("0.27.0", "EPLB is not supported CompressedTensorsWNA16MoEMethod."),
    ("0.33.0", "EPLB is not supported CompressedTensorsWNA16MoEMethod."),
])
def test_w4a16_experts_with_eplb(version, message):
    v = kvguard.check(_ct(SCOUT, W4A16, None, "pack-quantized", RECIPE_IGNORE), vllm_version=version, dp=8, ep=True,
                      enable_eplb=True, host=H100)
    if message is None:
        assert v.ok, v.message
    else:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
            False, "model_init", "MI_eplb_unsupported", "NotImplementedError", message)


@pytest.mark.parametrize(("version", "refused"), [("0.23.0", False), ("0.24.0", True), ("0.26.0", True),
                                                  ("0.27.0", True), ("0.33.0", True)])
def test_w4a16_experts_split_below_a_group(version, refused):
    # -tp 8 -dp 16 without expert parallel: MoE tp 128, 8192 / 128 = 64 rows per rank, half a group of 128; the
    # fall-back (Marlin declines: the router weight up to 0.26.x, the straddling group after) checks it from 0.24.0
    cfg = _ct(SCOUT, W4A16, None, "pack-quantized", RECIPE_IGNORE)
    res = _outcome(cfg, version, tp=8, dp=16)
    if not refused:
        assert res.check is None and res.unmodelled is None
        return
    assert (res.check, res.layer) == ("MI_ct_wna16_moe_group", "language_model.model.layers.0.feed_forward.experts")
    v = kvguard.check(cfg, vllm_version=version, tp=8, dp=16, host=kvguard.Host.cuda_node(gpus_per_node=128))
    assert (v.ok, v.exc_type, v.message) == (False, "ValueError",
        "CompressedTensors WNA16 MoE with static group scales requires the MoE intermediate size per tensor-parallel "
        "partition (64) to be divisible by group_size (128). Scale groups would otherwise cross TP shard boundaries; use "
        "a compatible TP size or enable expert parallelism.")


def test_compressed_tensors_nvfp4_weights_stay_open():
    nvfp4 = {"num_bits": 4, "type": "float", "symmetric": True, "strategy": "tensor_group", "group_size": 16,
             "dynamic": False}
    res = _outcome(_ct(SCOUT, nvfp4, dict(nvfp4, dynamic="local"), "nvfp4-pack-quantized", RECIPE_IGNORE), "0.28.0",
                   tp=8)
    assert res.check is None and res.unmodelled


def test_layer_paths_in_the_ignore_list_stay_open_once_the_llama_mapper_rewrites_them():
    names = [f"language_model.model.layers.{i}.self_attn.{p}" for i in range(48)
             for p in ("q_proj", "k_proj", "v_proj", "o_proj")] + ["language_model.lm_head"]
    assert _outcome(_ct(SCOUT, FP8_CHANNEL, FP8_TOKEN, "float-quantized", names), "0.24.0", tp=8).unmodelled is None
    assert "ignore list" in _outcome(_ct(SCOUT, FP8_CHANNEL, FP8_TOKEN, "float-quantized", names), "0.25.0",
                                     tp=8).unmodelled


@pytest.mark.parametrize("launch", [{"mm_encoder_tp_mode": "data"}, {"mm_limits": True}, {"quantization": "fp8"}])
def test_launches_that_change_the_tower_or_the_method_are_left_open(launch):
    res = _outcome(_config(SCOUT), "0.28.0", tp=5, **launch)
    assert res.check is None and res.unmodelled


def test_other_methods_are_left_open():
    cfg = _config(MAVERICK)
    cfg["quantization_config"] = {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                                  "modules_to_not_convert": ["vision_model", "multi_modal_projector"]}
    res = _outcome(cfg, "0.28.0", tp=8)
    assert res.check is None and res.unmodelled


@settings(max_examples=40, deadline=None)
@given(tp=st.sampled_from([1, 2, 4, 5, 8, 10, 20, 40]), heads=st.sampled_from([8, 11, 16, 22]))
def test_the_tower_refuses_exactly_where_vllm_divides(tp, heads):
    # a 1408-wide tower: the patch embedding divides 1408 first, then the vision attention asserts on its heads,
    # then the QKV layer divides the heads again (never reached: the assert came first)
    cfg = _config(SCOUT)
    cfg["vision_config"] = dict(cfg["vision_config"], num_attention_heads=heads, num_hidden_layers=1)
    res = _outcome(cfg, "0.33.0", tp=tp)
    if 1408 % tp:
        assert (res.check, res.layer) == ("MI_divide", "vision_model.patch_embedding.linear")
    elif heads % tp:
        assert (res.check, res.layer) == ("MI_attn_assert", "vision_model.model.layers.0")
    else:
        assert res.layer is None or not res.layer.startswith("vision_model")
