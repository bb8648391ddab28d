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
    built = glm4v.tower_layers(facts.resolved_top, resolve("0.33.0"), None)
    assert [(layer.prefix, layer.kind, layer.input_size, layer.output_sizes) for layer in built] == [
        ("visual.blocks.0.attn.qkv", "qkv", 1536, ()),
        ("visual.blocks.0.attn.proj", "row", 1536, (1536,)),
        ("visual.blocks.0.mlp.gate_up_proj", "merged", 1536, (4096, 4096)),
        ("visual.blocks.0.mlp.down_proj", "row", 4096, (1536,)),
        ("visual.merger.proj", "column", 4096, (4096,)),
        ("visual.merger.gate_up_proj", "merged", 4096, (10944, 10944)),
        ("visual.merger.down_proj", "row", 10944, (4096,))]
    assert built[0].qkv == (1536, 128, 12, 12)
    assert [layer.prefix for layer in glm4v.tower_layers(facts.resolved_top, resolve("0.17.1"), "fp8")][:1] == [
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


def test_what_stays_open_is_skipped_not_accepted():
    release = resolve("0.28.0")
    awq = glm45v()
    awq["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                  "version": "gemm"}
    why = outcome(model_facts(awq, vllm_version="0.28.0"), release, Launch(tp=1)).unmodelled
    assert why is not None and "Glm4vMoeForConditionalGeneration" in why
    facts = model_facts(glm45v(), vllm_version="0.28.0")
    assert outcome(facts, release, Launch(tp=1, pp=2)).unmodelled is not None
    assert outcome(facts, release, Launch(tp=1)).unmodelled is None
    odd = model_facts(glm45v(num_heads=7), vllm_version="0.28.0")  # 1536 / 7: the head size's own divide
    assert outcome(odd, release, Launch(tp=1)).unmodelled is not None
