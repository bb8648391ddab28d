"""GLM-4.5V / GLM-4.6V model construction (kvguard.quant.glm4v: the vision tower, then the glm4_moe family's language
model).

Expected values are worked out by hand from GLM-4.5V's config (tests/upstream/test_quant.py GLM4V_CONFIG: vision depth
24, hidden 1536, 12 heads, MLP out 4096, merger 10944; text as GLM-4.5-Air) and vLLM's
vllm/model_executor/models/glm4_1v.py; tests/upstream/test_quant.py (run_glm4v) and the golden cases
tests/cases/*/mi-*glm45v*.json compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard.quant import Launch, glm4v, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve
from tests.upstream.test_quant import GLM4V_CONFIG

H100 = kvguard.Host.cuda_node()

#: the dense first layer's MLP in checkpoint names (10944 = 85.5 blocks of 128)
DENSE = [f"model.language_model.layers.0.mlp.{n}" for n in ("gate_proj", "up_proj", "down_proj")]
TOWER = ([f"model.visual.blocks.{b}.{n}" for b in range(24)
          for n in ("attn.qkv", "attn.proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")]
         + [f"model.visual.merger.{n}" for n in ("proj", "gate_proj", "up_proj", "down_proj")])


def glm45v(ignored=None, **vision) -> dict:
    cfg = copy.deepcopy(GLM4V_CONFIG)
    cfg["vision_config"].update(vision)
    if ignored is not None:
        cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic",
                                      "weight_block_size": [128, 128], "modules_to_not_convert": ignored + ["lm_head"]}
    return cfg


@pytest.mark.parametrize("version", ["0.10.2", "0.18.0", "0.33.0"])
def test_twelve_vision_heads_refuse_tp8_unless_the_encoder_runs_data_parallel(version):
    verdict = kvguard.check(glm45v(), vllm_version=version, tp=8, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type) == (False, "model_init", "AssertionError")
    assert verdict.message == "12 is not divisible by 8"
    assert kvguard.check(glm45v(), vllm_version=version, tp=8, mm_encoder_tp_mode="data", host=H100).ok


@pytest.mark.parametrize(("version", "message"), [
    # the patch merger's gate_up_proj: two halves of 10944, 5472 per rank at tp 2
    ("0.10.2", "Weight output_partition_size = 5472 is not divisible by weight quantization block_n = 128."),
    ("0.11.0", "Weight output_partition_size = 5472 is not divisible by weight quantization block_n = 128."),
    # 0.14.0+: the ragged merged layer is exempt, the merger's row-parallel down_proj (5472 inputs) refuses
    ("0.14.1", "Weight input_size_per_partition = 5472 is not divisible by weight quantization block_k = 128."),
    ("0.33.0", "Weight input_size_per_partition = 5472 is not divisible by weight quantization block_k = 128."),
])
def test_block_fp8_on_the_tower_refuses_in_its_merger(version, message):
    verdict = kvguard.check(glm45v(DENSE), vllm_version=version, tp=2, host=H100)
    assert (verdict.ok, verdict.stage, verdict.exc_type) == (False, "model_init", "ValueError")
    assert verdict.message == message


@pytest.mark.parametrize(("version", "message"), [
    # up to 0.17.x the quantized QKV layer is attn.qkv_proj: the list's attn.qkv names none of its q/k/v shards, so it
    # is quantized; 16 heads of 96 give 2 * 96 = 192 rows per shard at tp 8 (0.10.2 - 0.13.x check each shard)
    ("0.10.2", "Weight output_partition_size = 192 is not divisible by weight quantization block_n = 128."),
    # 0.18.0+: the layer is attn.qkv (listed: unquantized); the shared experts refuse next, 1408 / 8 = 176 inputs
    ("0.18.0", "Weight input_size_per_partition = 176 is not divisible by weight quantization block_k = 128."),
])
def test_the_tower_qkv_layer_is_named_by_the_method(version, message):
    verdict = kvguard.check(glm45v(TOWER + DENSE, num_heads=16), vllm_version=version, tp=8, host=H100)
    assert (verdict.ok, verdict.exc_type, verdict.message) == (False, "ValueError", message)


def test_tower_layers_in_construction_order():
    facts = model_facts(glm45v(depth=1), vllm_version="0.33.0")
    built = glm4v.tower_layers(facts.resolved_top, glm4v.ARCH, None, resolve("0.33.0"))
    assert [(layer.prefix, layer.kind, layer.input_size, layer.output_sizes) for layer in built] == [
        ("visual.blocks.0.attn.qkv", "qkv", 1536, ()),
        ("visual.blocks.0.attn.proj", "row", 1536, (1536,)),
        ("visual.blocks.0.mlp.gate_up_proj", "merged", 1536, (4096, 4096)),
        ("visual.blocks.0.mlp.down_proj", "row", 4096, (1536,)),
        ("visual.merger.proj", "column", 4096, (4096,)),
        ("visual.merger.gate_up_proj", "merged", 4096, (10944, 10944)),
        ("visual.merger.down_proj", "row", 10944, (4096,))]
    assert built[0].qkv == (1536, 128, 12, 12)
    assert [layer.prefix for layer in glm4v.tower_layers(facts.resolved_top, glm4v.ARCH, "fp8", resolve("0.17.1"))][:1] == [
        "visual.blocks.0.attn.qkv_proj"]


@pytest.mark.parametrize(("version", "without_moe_model"), [("0.11.1", True), ("0.21.0", True), ("0.22.0", False),
                                                            ("0.33.0", False)])
def test_eplb_registers_the_language_model_from_0_22_0(version, without_moe_model):
    # the wrapper implements no MixtureOfExperts; the V1 worker looks through it to the language model from 0.22.0
    facts = model_facts(glm45v(depth=1), vllm_version=version)
    res = outcome(facts, resolve(version), Launch(tp=1, dp=8, ep=True, eplb=True))
    assert (res.check, res.unmodelled, res.eplb_without_moe_model) == (None, None, without_moe_model)


def ct(weights: dict, activations: "dict | None", fmt: str = "float-quantized") -> dict:
    """A compressed-tensors config as llm-compressor writes it, with the ignore list in zai-org/GLM-4.5V-FP8's form (the
    tower's QKV layers named as vLLM builds them under compressed-tensors) and GLM-4.x's router gates / LM head."""
    cfg = glm45v()
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": activations,
                                      "output_activations": None}},
        "ignore": ["re:.*gate$", "lm_head"] + [f"visual.blocks.{b}.attn.qkv_proj" for b in range(24)]}
    return cfg


FP8 = {"num_bits": 8, "type": "float", "symmetric": True, "dynamic": False}


@pytest.mark.parametrize("version", ["0.18.0", "0.33.0"])
def test_ct_fp8_dynamic_in_the_checkpoints_form_is_accepted_at_the_recipes_launch(version):
    # per-channel FP8 weights, dynamic per-token activations: no layer checks its per-rank size
    cfg = ct(dict(FP8, strategy="channel"), dict(FP8, strategy="token", dynamic=True))
    verdict = kvguard.check(cfg, vllm_version=version, tp=4, enable_expert_parallel=True, mm_encoder_tp_mode="data",
                            host=H100)
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("version", ["0.11.0", "0.14.1", "0.33.0"])
def test_ct_fp8_block_on_the_tower_refuses_in_its_merger(version):
    # the compressed-tensors block scheme has no merged-layer allowance: the merger's gate_up_proj (two halves of
    # 10944, 5472 per rank at tp 2) refuses its block_n in every release from 0.11.0
    message = "Weight output_partition_size = 5472 is not divisible by weight quantization block_n = 128."
    cfg = ct(dict(FP8, strategy="block", block_structure=[128, 128]),
             dict(FP8, strategy="group", group_size=128, dynamic=True))
    verdict = kvguard.check(cfg, vllm_version=version, tp=2, host=H100)
    assert (verdict.ok, verdict.exc_type, verdict.message) == (False, "ValueError", message)


def awq(unconverted=None) -> dict:
    """AutoAWQ's form (4-bit GEMM, zero points, groups of 128) with ``unconverted`` as modules_to_not_convert."""
    cfg = glm45v()
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                  "version": "gemm", "modules_to_not_convert": unconverted}
    return cfg


AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
             "parallel size.")


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.18.0", "0.24.0", "0.33.0"])
@pytest.mark.parametrize(("unconverted", "layer"), [
    # 10944 inputs are 85.5 groups of 128 in the tower's merger and in the dense first layer: Marlin declines the
    # straddling group, the plain AWQ kernels refuse, at any tp
    (None, "visual.merger.down_proj"),
    (["visual"], "language_model.model.layers.0.mlp.down_proj"),
])
def test_awq_refuses_a_10944_wide_down_proj(version, unconverted, layer):
    res = outcome(model_facts(awq(unconverted), vllm_version=version), resolve(version), Launch(tp=1))
    assert (res.check, res.layer) == ("MI_awq_input", layer)
    verdict = kvguard.check(awq(unconverted), vllm_version=version, tp=1, host=H100)
    assert (verdict.ok, verdict.exc_type, verdict.message) == (False, "ValueError", AWQ_INPUT)


@pytest.mark.parametrize("version", ["0.11.1", "0.18.0", "0.24.0", "0.33.0"])
def test_awq_shared_experts_split_by_tp(version):
    # the tower and the dense first layer unconverted in checkpoint names (the wrapper's mapper maps AWQ's list from
    # 0.11.1): at -tp 4 the shared experts' down_proj takes 1408 / 4 = 352 inputs (2.75 groups); at -dp 4 with expert
    # parallel nothing is split by tp and the experts (32 per rank, 1408 rows) take the fused Marlin MoE kernel
    cfg = awq(["visual", "model.language_model.layers.0."])
    res = outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(tp=4, ep=True))
    assert (res.check, res.layer) == ("MI_awq_input", "language_model.model.layers.1.mlp.shared_experts.down_proj")
    assert kvguard.check(cfg, vllm_version=version, dp=4, enable_expert_parallel=True, host=H100).ok


def test_awq_lists_the_mapper_would_rewrite_stay_open_before_0_11_1():
    # 0.10.2 / 0.11.0 match modules_to_not_convert as written: a checkpoint name the later mapper rewrites is left open;
    # a list it leaves as written ("visual") is decided in every release
    for version in ("0.10.2", "0.11.0"):
        facts = model_facts(awq(["model.visual."]), vllm_version=version)
        why = outcome(facts, resolve(version), Launch(tp=1)).unmodelled
        assert why is not None and "modules_to_not_convert" in why
    assert outcome(model_facts(awq(["model.visual."]), vllm_version="0.11.1"), resolve("0.11.1"),
                   Launch(tp=1)).layer == "language_model.model.layers.0.mlp.down_proj"


def test_what_stays_open_is_skipped_not_accepted():
    release = resolve("0.28.0")
    modelopt = glm45v()
    modelopt["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "FP8"}
    why = outcome(model_facts(modelopt, vllm_version="0.28.0"), release, Launch(tp=1)).unmodelled
    assert why is not None
    facts = model_facts(glm45v(), vllm_version="0.28.0")
    assert outcome(facts, release, Launch(tp=1, pp=2)).unmodelled is not None
    assert outcome(facts, release, Launch(tp=1)).unmodelled is None
    odd = model_facts(glm45v(num_heads=7), vllm_version="0.28.0")  # 1536 / 7: the head size's own divide
    assert outcome(odd, release, Launch(tp=1)).unmodelled is not None
