"""Model construction of Qwen3.5 compressed-tensors and ModelOpt FP8 exports (families qwen3_5_moe / qwen3_5, 0.17.0+).

Expected values are worked out by hand from Qwen/Qwen3.5-397B-A17B's sizes (hidden 4096; 64 value heads; expert and
shared-expert intermediate size 1024; the tower's 16 heads) and the release source: qwen3_5.py / qwen3_next.py (layer
0 is a gated-delta-net layer, then its MoE block: the router and shared-expert gates built without the quantization
config, the shared expert's gate_up_proj / down_proj, the experts), compressed_tensors.py (``ignore`` regexes matched at
the start of the module name), schemes/compressed_tensors_w8a8_fp8.py with fp8_utils.validate_fp8_block_shape (no
merged-layer allowance for compressed-tensors), the NVFP4 experts' method (no EPLB support).  tests/upstream/
test_quant.py (run_qwen3_5 with qwen3_5_quantized_variants) and the golden cases mi-ct-*-qwen3-5-* compare with the
releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import Launch, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
MOE = "Qwen/Qwen3.5-397B-A17B"
NVFP4 = "nvidia/Qwen3.5-397B-A17B-NVFP4"
RELEASES = ["0.17.0", "0.20.0", "0.24.0", "0.28.0", "0.33.0"]
#: llm-compressor's Qwen3.5 recipes (examples/quantization_w8a8_fp8/qwen3_5_moe.py)
RECIPE_IGNORE = ["re:.*lm_head", "re:visual.*", "re:model.visual.*", "re:.*mlp.gate$", "re:.*embed_tokens$",
                 "re:.*shared_expert_gate$", "re:.*mlp\\.shared_expert$", "re:.*linear_attn.*"]


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def _args(**k) -> dict:
    out = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "strategy": "channel",
           "block_structure": None, "dynamic": False, "actorder": None}
    out.update(k)
    return out


#: (weights, input activations, format) of llm-compressor's presets, written out by hand
PRESETS = {
    "FP8_DYNAMIC": (_args(), _args(strategy="token", dynamic=True), "float-quantized"),
    "FP8_BLOCK": (_args(strategy="block", block_structure=[128, 128]),
                  _args(strategy="group", group_size=128, dynamic=True), "float-quantized"),
    "W4A16": (_args(num_bits=4, type="int", strategy="group", group_size=128), None, "pack-quantized"),
    "NVFP4": (_args(num_bits=4, strategy="tensor_group", group_size=16),
              _args(num_bits=4, strategy="tensor_group", group_size=16, dynamic="local"), "nvfp4-pack-quantized"),
}


def first_refused_layer(cfg: dict, version: str, tp: int) -> "str | None":
    return outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(tp=tp)).layer


def ct(preset: str, ignore=tuple(RECIPE_IGNORE), dtype: "str | None" = None) -> dict:
    cfg = copy.deepcopy(catalog.lookup(MOE).config)
    weights, acts, fmt = PRESETS[preset]
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": acts,
                                      "output_activations": None, "format": fmt}},
        "ignore": list(ignore), "kv_cache_scheme": None, "sparsity_config": {}}
    if dtype is not None:
        cfg["torch_dtype"] = dtype
    return cfg


@pytest.mark.parametrize("version", RELEASES)
def test_fp8_dynamic_recipe_builds(version):
    # per-channel FP8 weights check no size; the tower is ignored but still split: its 16 heads refuse tp 32
    v = kvguard.check(ct("FP8_DYNAMIC"), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""
    v = kvguard.check(ct("FP8_DYNAMIC"), vllm_version=version, tp=32, host=BIG)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_divide", "AssertionError", "16 is not divisible by 32")


@pytest.mark.parametrize("version", RELEASES)
def test_fp8_block_shared_expert_refuses(version):
    # every gated-delta-net layer ignored: the first quantized layer is layer 0's shared-expert gate_up_proj, split
    # over tp 16 into [64, 64] rows per rank, not whole 128-blocks; at tp 8, 128 rows are
    v = kvguard.check(ct("FP8_BLOCK"), vllm_version=version, tp=16, host=BIG)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_fp8_block_n", "ValueError",
        "Weight output_partition_size = 64 is not divisible by weight quantization block_n = 128.")
    assert first_refused_layer(ct("FP8_BLOCK"), version, 16) == "language_model.model.layers.0.mlp.shared_expert.gate_up_proj"
    v = kvguard.check(ct("FP8_BLOCK"), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", RELEASES)
def test_fp8_block_quantized_gated_delta_net_refuses_at_tp1(version):
    # the gated delta net left quantized: in_proj_qkvz [2048, 2048, 8192, 8192] is whole blocks, in_proj_ba [64, 64]
    # is a merged layer whose first shard (64 rows) is checked even unsplit
    ignore = [x for x in RECIPE_IGNORE if "linear_attn" not in x]
    v = kvguard.check(ct("FP8_BLOCK", ignore), vllm_version=version, tp=1, host=H100)
    assert (v.ok, v.check, v.message) == (
        False, "MI_fp8_block_n", "Weight output_partition_size = 64 is not divisible by weight quantization block_n = "
                                 "128.")
    assert first_refused_layer(ct("FP8_BLOCK", ignore), version, 1) == "language_model.model.layers.0.linear_attn.in_proj_ba"


@pytest.mark.parametrize("version", RELEASES)
def test_nvfp4_recipe_builds_and_refuses_eplb(version):
    v = kvguard.check(ct("NVFP4"), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""
    v = kvguard.check(ct("NVFP4"), vllm_version=version, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_eplb_unsupported", "NotImplementedError", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod.")


@pytest.mark.parametrize("version", RELEASES)
def test_w4a16_reads_the_top_level_dtype(version):
    # groups of 128: the shared expert's down_proj takes 1024 / 8 = 128 input features per rank (one group); the
    # catalog config names its dtype only in text_config, which kvguard does not read for the kernels' dtype
    v = kvguard.check(ct("W4A16", dtype="bfloat16"), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""
    v = kvguard.check(ct("W4A16"), vllm_version=version, tp=8, host=H100)
    assert "compressed-tensors integer weights with the model dtype None" in mi_skip(v)


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_modelopt_fp8_export_builds(version):
    # NVIDIA's exclusion list with quant_algo FP8: per-tensor FP8 layers and experts check no size
    cfg = copy.deepcopy(catalog.lookup(NVFP4).config)
    q = cfg["quantization_config"]
    q["quant_algo"] = "FP8"
    group = {"dynamic": False, "num_bits": 8, "type": "float"}
    q["config_groups"] = {"group_0": {"input_activations": dict(group), "weights": dict(group), "targets": ["Linear"]}}
    q.pop("group_size", None)
    v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_awq_and_gptq_reach_the_tower():
    # AWQ / GPTQ without an exclusion list quantize the vision tower (tests/test_quant_qwen3_5.py has the gated delta
    # net's cases): at tp 4 the first block's attn.qkv has 3456 / 4 = 864 outputs per rank (Marlin needs multiples of
    # 64: the plain AWQ method takes it, 864 = 108 packed words), then attn.proj 1152 / 4 = 288 inputs, not whole groups
    # of 128: AWQ refuses; GPTQ's kernel choice past Marlin is the host's (left open)
    cfg = copy.deepcopy(catalog.lookup(MOE).config)
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                  "version": "gemm"}
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=4, host=H100)
    assert (v.ok, v.check, v.exc_type) == (False, "MI_awq_input", "ValueError")
    cfg["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                                  "sym": True}
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=4, host=H100)
    assert "the GPU kernel choice for visual.blocks.0.attn.proj (per-rank input 288, output 1152)" in mi_skip(v)
