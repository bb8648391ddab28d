"""Model construction of Qwen3.5 / Qwen3.6 (kvguard/data/quant_archs.json families qwen3_5_moe and qwen3_5, 0.17.0+).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/qwen3_5.py of 0.17.0 - 0.33.0: the Qwen3-VL vision tower first, then Qwen3-Next's
attention, gated delta net and MoE block with the gated-delta-net input projections built from the checkpoint's split
weights: in_proj_qkvz a merged layer of [key dim, key dim, value dim, value dim], in_proj_ba one of [value heads,
value heads]; fp8.py's block checks; modelopt.py's NVFP4 input check).  tests/upstream/test_quant.py (run_qwen3_5) and
the golden cases mi-qwen3-5-* compare with the releases themselves.
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
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
MOE = "Qwen/Qwen3.5-397B-A17B"
DENSE = "Qwen/Qwen3.5-27B"
NVFP4 = "nvidia/Qwen3.5-397B-A17B-NVFP4"
RELEASES = ["0.17.0", "0.18.0", "0.20.0", "0.24.0", "0.28.0", "0.33.0"]


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def config(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


def qwen_fp8(cfg: dict, *, drop: tuple[str, ...] = ()) -> dict:
    """A block-FP8 config in the form of Qwen's FP8 exports: the vision tower, each gated-delta-net layer's conv1d /
    in_proj_a / in_proj_b, the router and shared-expert gates and the LM head in modules_to_not_convert (checkpoint
    names), but the names in ``drop``."""
    text, vision = cfg["text_config"], cfg["vision_config"]
    names = [f"model.visual.blocks.{b}.{n}" for b in range(vision["depth"])
             for n in ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2")]
    names += [f"model.visual.merger.linear_fc{k}" for k in (1, 2)]
    for i, kind in enumerate(text["layer_types"]):
        if kind == "linear_attention":
            names += [f"model.language_model.layers.{i}.linear_attn.{n}" for n in ("conv1d", "in_proj_a", "in_proj_b")]
        if "num_experts" in text:
            names += [f"model.language_model.layers.{i}.mlp.{n}" for n in ("gate", "shared_expert_gate")]
    names.append("lm_head")
    cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                  "weight_block_size": [128, 128],
                                  "modules_to_not_convert": [n for n in names if n not in drop]}
    return cfg


def test_layers_take_the_split_projections():
    # hidden 4096; 16 key heads and 64 value heads of 128: in_proj_qkvz [2048, 2048, 8192, 8192] from in_proj_qkv /
    # in_proj_z, in_proj_ba [64, 64] from in_proj_b / in_proj_a (Qwen3-Next's own are one fused output each); every
    # layer a MoE layer under language_model.model
    facts = model_facts(config(MOE), vllm_version="0.33.0")
    built = {(layer.prefix, layer.output_sizes, layer.shards) for layer in
             layers(facts.resolved, "qwen3_5_moe", resolve("0.33.0"), facts.architectures)}
    root = "language_model.model.layers.0"
    assert (f"{root}.linear_attn.in_proj_qkvz", (2048, 2048, 8192, 8192), ("in_proj_qkv", "in_proj_z")) in built
    assert (f"{root}.linear_attn.in_proj_ba", (64, 64), ("in_proj_b", "in_proj_a")) in built
    assert (f"{root}.mlp.shared_expert.gate_up_proj", (1024, 1024), ("gate_proj", "up_proj")) in built
    assert not any(prefix.endswith(".mlp.down_proj") for prefix, _, _ in built)


@pytest.mark.parametrize("version", RELEASES)
def test_vision_tower_refuses_first(version):
    # the tower's 16 heads split over tp 32 (Qwen2_5_VisionAttention's divide) before the language model, whose 32
    # attention heads, 2 KV heads and 64 value heads take tp 32
    v = kvguard.check(MOE, vllm_version=version, tp=32, host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_divide", "AssertionError",
                                                               "16 is not divisible by 32")


@pytest.mark.parametrize("version", RELEASES)
def test_nvidia_nvfp4_export_builds(version):
    # the export leaves everything but the routed experts unquantized (the tower, each layer's attention or gated
    # delta net and shared expert, the LM head); the router is built without the quantization config; the NVFP4 experts
    # (FP4 Marlin on the default host) check no size: 1024 / 16 = 64 expert features per rank build
    for tp in (4, 16):
        v = kvguard.check(NVFP4, vllm_version=version, tp=tp, host=BIG)
        assert v.ok and mi_skip(v) == "", (tp, v.check, mi_skip(v))


@pytest.mark.parametrize("version", RELEASES)
def test_nvfp4_quantized_tower_refuses(version):
    # "model.visual*" left out of the exclusion list: the tower's mlp.linear_fc2 takes 4304 / 2 = 2152 input features
    # per rank, not a multiple of 16 (the merger's and the attention's 4608 / 2 and 1152 / 2 are); not split with
    # --mm-encoder-tp-mode data (4304 = 16 x 269)
    cfg = config(NVFP4)
    cfg["quantization_config"]["ignore"].remove("model.visual*")
    v = kvguard.check(cfg, vllm_version=version, tp=2, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_nvfp4_input", "ValueError",
        "Unsupported model when in features size is not multiple of 16")
    v = kvguard.check(cfg, vllm_version=version, tp=2, host=H100, mm_encoder_tp_mode="data")
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", RELEASES)
def test_fp8_half_listed_in_proj_ba(version):
    # in_proj_a listed, in_proj_b not: the fused in_proj_ba's shards disagree (is_layer_skipped, names through the
    # wrapper's mapper: model.language_model. -> language_model.model.)
    cfg = qwen_fp8(config(MOE), drop=("model.language_model.layers.0.linear_attn.in_proj_b",))
    v = kvguard.check(cfg, vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_fused_shards", "ValueError",
        "Detected some but not all shards of language_model.model.layers.0.linear_attn.in_proj_ba are quantized. All "
        "shards of fused layers to have the same precision.")


@pytest.mark.parametrize("version", RELEASES)
def test_fp8_dense_mlp_block_k(version):
    # Qwen3.5-27B with a dense intermediate size of 3584 at tp 8: gate_up_proj's [448, 448] per rank are ragged
    # blocks the merged layer allows (0.14.0+), down_proj's 448 input features are not whole 128-blocks; layer 0's
    # gated delta net (in_proj_qkvz [256, 256, 768, 768], out_proj 6144 / 8 = 768 inputs) builds first
    cfg = config(DENSE)
    cfg["text_config"]["intermediate_size"] = 3584
    v = kvguard.check(qwen_fp8(cfg), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_fp8_block_k",  "ValueError",
        "Weight input_size_per_partition = 448 is not divisible by weight quantization block_k = 128.")
    assert kvguard.check(qwen_fp8(config(DENSE)), vllm_version=version, tp=8, host=H100).ok


def test_other_forms_stay_skipped():
    # GPTQ's per-module rules (GPTQModel's dynamic), a GPTQ layer Marlin cannot run (the tower's merger.linear_fc2:
    # 4608 / 8 = 576 inputs per rank, not whole 128-row tiles; the kernel choice then depends on the host's packages),
    # pipeline parallelism (ModelOpt's MIXED_PRECISION exports: tests/test_quant_qwen3_6_mixed.py)
    cfg = config(DENSE)
    cfg["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                                  "sym": True, "dynamic": {"-:.*visual.*": {}}}
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=8, host=H100)
    assert "per-module rules (dynamic / modules_in_block_to_quantize) is not modelled" in mi_skip(v)
    del cfg["quantization_config"]["dynamic"]
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=8, host=H100)
    assert "the GPU kernel choice for visual.merger.linear_fc2 (per-rank input 576" in mi_skip(v)
    v = kvguard.check(NVFP4, vllm_version="0.33.0", tp=4, pp=2, host=H100)
    assert "pipeline parallelism with Qwen3_5MoeForConditionalGeneration" in mi_skip(v)


AWQ_OUTPUT = ("The output size is not aligned with the quantized weight shape. This can be caused by too large tensor "
              "parallel size.")
AWQ_INPUT = AWQ_OUTPUT.replace("output size", "input size")


def qwen_awq(cfg: dict, unconverted: list[str], dtype: str = "bfloat16") -> dict:
    """A 4-bit AWQ config with zero points and groups of 128, as AutoAWQ writes it."""
    cfg["torch_dtype"] = dtype
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                  "version": "gemm", "modules_to_not_convert": unconverted}
    return cfg


@pytest.mark.parametrize(("version", "refused"), [
    ("0.17.0", True), ("0.20.0", True), ("0.21.0", True), ("0.22.0", False), ("0.23.0", False), ("0.24.0", False),
    ("0.28.0", False), ("0.33.0", False),
])
def test_awq_in_proj_ba_replicated_from_0_22(version, refused):
    # Qwen3.5-27B at tp 8, the tower and the LM head unconverted ("visual" is part of every tower prefix): layer 0's
    # in_proj_ba is [48, 48] over 5120 inputs.  Split by tp it is [6, 6]: 12 outputs per rank, which Marlin (64-wide
    # tiles) cannot run, so the plain AWQ method takes the layer and refuses 12 % 8 != 0 (packed 4-bit words).
    # From 0.22.0 the gated delta net replicates it under AWQMarlinConfig (AutoAWQConfig from 0.24.0) on CUDA: 96
    # outputs, 96 % 8 == 0 for the plain fall-back of 0.22.x-0.23.x (96 is no multiple of 64), padded Marlin from
    # 0.24.0; every other layer's per-rank shape fits Marlin (in_proj_qkvz 2048 outputs, out_proj 768 inputs, the
    # MLP's 2176)
    v = kvguard.check(qwen_awq(config(DENSE), ["visual", "lm_head"]), vllm_version=version, tp=8, host=H100)
    if refused:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_awq_output",
                                                                   "ValueError", AWQ_OUTPUT)
    else:
        assert v.ok and mi_skip(v) == "", (v.check, mi_skip(v))


@pytest.mark.parametrize(("version", "refused"), [("0.22.0", True), ("0.23.0", True), ("0.24.0", False)])
def test_awq_plain_method_keeps_in_proj_ba_split(version, refused):
    # --quantization awq (float16 checkpoint): up to 0.23.x the plain AWQConfig, which the gated delta net does not
    # replicate for: the 12 outputs per rank above refuse; 0.24.0's AutoAWQConfig takes every AWQ name
    cfg = qwen_awq(config(DENSE), ["visual", "lm_head"], dtype="float16")
    v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100, quantization="awq")
    assert (v.ok, v.check) == ((False, "MI_awq_output") if refused else (True, None)), (v.check, mi_skip(v))


@pytest.mark.parametrize("version", ["0.17.0", "0.24.0", "0.33.0"])
def test_awq_bare_model_visual_leaves_the_tower_quantized(version):
    # "model.visual" (no trailing dot) is not renamed by the wrapper's mapper (its prefix rule is "model.visual.")
    # and is no part of "visual.merger.linear_fc2": the tower is quantized, and its merger's row layer takes
    # 4608 / 8 = 576 inputs per rank, not whole groups of 128 (Marlin and its padding refuse a straddling group):
    # the plain AWQ method refuses.  Not split (--mm-encoder-tp-mode data), the blocks' mlp.linear_fc2 takes all 4304
    # inputs, not whole groups of 128 either; with "visual" listed the tower is unquantized and the launch builds
    for mode in ({}, {"mm_encoder_tp_mode": "data"}):
        v = kvguard.check(qwen_awq(config(DENSE), ["model.visual", "lm_head"]), vllm_version=version, tp=8,
                          host=H100, **mode)
        assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_awq_input", "ValueError", AWQ_INPUT)
    v = kvguard.check(qwen_awq(config(DENSE), ["visual", "lm_head"]), vllm_version=version, tp=8, host=H100,
                      mm_encoder_tp_mode="data")
    assert v.ok if version != "0.17.0" else v.check == "MI_awq_output", (v.check, mi_skip(v))


@pytest.mark.parametrize(("prefix", "first", "before"), [
    # the heads assert of the first full-attention layer under the wrapper comes before its attention backend is
    # selected; a later layer's does not
    ("language_model.model.layers.3", 3, True),
    ("language_model.model.layers.13", 3, False),
    ("language_model.model.layers.7", 3, False),
])
def test_wrapper_attention_assert_before_the_selector(prefix, first, before):
    from kvguard.rules.table import _before_first_attention

    assert _before_first_attention(prefix, "MI_attn_assert", first) is before


@pytest.mark.parametrize(("version", "open_"), [
    # qwen3_5.py of 0.19.0 - 0.20.x builds in_proj_qkv and in_proj_z apart when a LoRAConfig exists (block FP8's
    # allowance for a ragged shard covers only the merged layer): left open; 0.18.0 and 0.21.0+ build the same layers
    # with or without LoRA
    ("0.18.0", False), ("0.19.0", True), ("0.20.2", True), ("0.21.0", False), ("0.33.0", False),
])
def test_lora_is_left_open_where_it_changes_the_projections(version, open_):
    v = kvguard.check(qwen_fp8(config(MOE)), vllm_version=version, tp=4, host=H100, enable_lora=True)
    reason = mi_skip(v)
    assert ("--enable-lora with Qwen3_5MoeForConditionalGeneration" in reason) is open_
    plain = kvguard.check(qwen_fp8(config(MOE)), vllm_version=version, tp=4, host=H100)
    assert "--enable-lora" not in mi_skip(plain)


def test_lora_flag_reaches_the_construction_from_the_command_line():
    from kvguard import front

    with_lora = front.examine("0.20.0", ["vllm", "serve", MOE, "-tp", "8", "--enable-lora"]).verdict
    assert "--enable-lora with Qwen3_5MoeForConditionalGeneration in vLLM 0.20.0" in mi_skip(with_lora)
    without = front.examine("0.20.0", ["vllm", "serve", MOE, "-tp", "8"]).verdict
    assert without.ok and mi_skip(without) == ""
