"""Qwen2-VL / Qwen2.5-VL construction (kvguard.quant.qwen2_vl): expected values worked out by hand from
vllm/model_executor/models/qwen2_vl.py, qwen2_5_vl.py, layers/linear.py and layers/quantization/awq.py of the
releases (the differential in tests/upstream/test_quant.py, run_qwen2_vl, checks them against the releases
themselves)."""

from __future__ import annotations

import copy

import pytest

from kvguard.quant import Launch, outcome, qwen2_vl
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

#: Qwen/Qwen2.5-VL-7B-Instruct's config.json (flat: the text sizes at the top level)
QWEN2_5_VL_7B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "hidden_act": "silu",
    "hidden_size": 3584, "intermediate_size": 18944, "max_position_embeddings": 128000, "max_window_layers": 28,
    "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "use_sliding_window": False, "vocab_size": 152064, "image_token_id": 151655, "video_token_id": 151656,
    "vision_start_token_id": 151652, "vision_end_token_id": 151653,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
                      "spatial_merge_size": 2, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
                      "tokens_per_second": 2, "temporal_patch_size": 2}}
#: Qwen2.5-VL-72B-Instruct: the 72B text sizes
QWEN2_5_VL_72B = dict(QWEN2_5_VL_7B, hidden_size=8192, intermediate_size=29568, num_attention_heads=64,
                      num_key_value_heads=8, num_hidden_layers=80, max_window_layers=80,
                      vision_config=dict(QWEN2_5_VL_7B["vision_config"], out_hidden_size=8192))
#: Qwen/Qwen2-VL-72B-Instruct: Qwen2-VL's vision config (its width embed_dim, its output hidden_size)
QWEN2_VL_72B = dict(QWEN2_5_VL_72B, architectures=["Qwen2VLForConditionalGeneration"], model_type="qwen2_vl",
                    max_position_embeddings=32768,
                    vision_config={"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16, "in_chans": 3,
                                   "hidden_size": 8192, "patch_size": 14, "spatial_merge_size": 2,
                                   "temporal_patch_size": 2})
AWQ = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm", "quant_method": "awq"}
GPTQ = {"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": False, "sym": True, "true_sequential": True,
        "quant_method": "gptq"}


def _quantized(cfg: dict, quant: dict) -> dict:
    out = copy.deepcopy(cfg)
    out["quantization_config"] = quant
    return out


def _outcome(cfg: dict, version: str, **launch):
    return outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(**launch))


@pytest.mark.parametrize("version", ["0.10.2", "0.17.1", "0.33.0"])
def test_the_towers_mlp_refuses_tp8_unless_the_encoder_runs_data_parallel(version):
    # the tower is built first: block 0's gate_up_proj has two 3420-wide outputs, 3420 % 8 = 4
    res = _outcome(QWEN2_5_VL_72B, version, tp=8)
    assert (res.check, res.layer) == ("MI_merged_assert", "visual.blocks.0.mlp.gate_up_proj")
    res = _outcome(QWEN2_5_VL_72B, version, tp=8, mm_encoder_tp_mode="data")
    assert res.check is None and res.unmodelled is None


def test_qwen2_vl_divides_its_vision_heads_before_any_layer():
    # Qwen2VisionAttention: divide(16 heads, 32); its qkv is a plain column layer (3840 / 32 = 120 would pass)
    res = _outcome(QWEN2_VL_72B, "0.24.0", tp=32)
    assert (res.check, dict(res.values), res.layer) == ("MI_divide", {"numerator": 16, "denominator": 32},
                                                        "visual.blocks.0.attn")
    # at tp 8 every tower layer splits evenly (fc1: 1280 x 4 = 5120)
    res = _outcome(QWEN2_VL_72B, "0.24.0", tp=8)
    assert res.check is None and res.unmodelled is None


def test_qwens_awq_export_leaves_the_tower_unquantized():
    assert _outcome(_quantized(QWEN2_5_VL_7B, dict(AWQ, modules_to_not_convert=["visual"])), "0.24.0",
                    tp=4).check is None
    # nothing unconverted: the tower's down_proj takes 3420 inputs, 26.7 groups of 128 (the merged gate_up_proj's
    # 6840 outputs are whole packs of 8; Marlin declines both, the plain AWQ kernels refuse the first)
    res = _outcome(_quantized(QWEN2_5_VL_7B, dict(AWQ, modules_to_not_convert=None)), "0.24.0", tp=1)
    assert (res.check, dict(res.values), res.layer) == ("MI_awq_input", {"size": 3420, "group": 128, "input": 3420},
                                                        "visual.blocks.0.mlp.down_proj")


def test_awqs_list_through_the_mapper_from_0_11_1():
    cfg = _quantized(QWEN2_5_VL_7B, dict(AWQ, modules_to_not_convert=["model.visual."]))
    assert "names its checkpoint-name mapper rewrites" in (_outcome(cfg, "0.11.0", tp=4).unmodelled or "")
    res = _outcome(cfg, "0.11.1", tp=4)
    assert res.check is None and res.unmodelled is None


def test_gptq_reaches_the_tower_from_0_11_0():
    cfg = _quantized(QWEN2_5_VL_7B, GPTQ)
    # 0.10.2's wrapper hands GPTQ configs no tower: the language model's 4736-wide shards fit
    res = _outcome(cfg, "0.10.2", tp=4)
    assert res.check is None and res.unmodelled is None
    # from 0.11.0 the tower's attn.proj takes 1280 / 4 = 320 inputs, which Marlin cannot run (a kernel choice left open)
    assert "Marlin cannot run" in (_outcome(cfg, "0.11.0", tp=4).unmodelled or "")


def test_the_mapper_renames_the_checkpoint_names():
    assert qwen2_vl.ignored_names(("model.visual.blocks.0.attn.qkv", "model.layers.3.mlp.down_proj",
                                   "model.language_model.layers.0.mlp.up_proj", "lm_head", "lm_head.weight",
                                   "visual")) == (
        "visual.blocks.0.attn.qkv", "language_model.model.layers.3.mlp.down_proj",
        "language_model.model.layers.0.mlp.up_proj", "lm_head", "language_model.lm_head.weight", "visual")


@pytest.mark.parametrize(("cfg", "launch", "why"), [
    (QWEN2_5_VL_7B, {"tp": 4, "pp": 2}, "pipeline parallelism"),
    (QWEN2_5_VL_7B, {"tp": 4, "mm_limits": True}, "--limit-mm-per-prompt"),
    (_quantized(QWEN2_5_VL_7B, {"quant_method": "compressed-tensors", "format": "float-quantized",
                                "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
                                    "num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel",
                                    "dynamic": False}, "input_activations": {
                                    "num_bits": 8, "type": "float", "symmetric": True, "strategy": "token",
                                    "dynamic": True}}},
                                "ignore": ["lm_head", "model.visual.merger.mlp.0"]}),
     {"tp": 2}, "names its checkpoint-name mapper rewrites"),
    (dict(QWEN2_5_VL_7B, vision_config=dict(QWEN2_5_VL_7B["vision_config"], hidden_act="gelu")), {"tp": 2},
     "vision tower"),
])
def test_left_open(cfg, launch, why):
    res = _outcome(cfg, "0.24.0", **launch)
    assert res.check is None and why in (res.unmodelled or "")
