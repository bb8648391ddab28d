"""Intern-S1's / InternVL's wrapper at model construction (kvguard.quant.interns1: InternS1ForConditionalGeneration,
registered for InternVLForConditionalGeneration too).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/interns1.py and interns1_vit.py of 0.10.2 – 0.33.0: the InternViT tower first, its
encoder built without the quantization config, each layer's attention of unsharded nn.Linear layers, then mlp.fc1
(column) and mlp.fc2 (row); layers/linear.py's divide asserts; Fp8MoEMethod's block check); tests/upstream/
test_quant.py (run_interns1) compares with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.errors import Undecidable
from kvguard.quant import Launch, interns1, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
WIDE = kvguard.Host.cuda_node(gpus_per_node=16)
VERSIONS = ["0.10.2", "0.14.1", "0.24.0", "0.33.0"]
#: transformers' InternVL form with Intern-S1's sizes: Qwen/Qwen3-235B-A22B's text config (hidden 4096, 64 heads,
#: 4 KV heads, 128 experts of 1536, 94 layers) and an InternViT-6B tower (hidden 3200, 25 heads, intermediate
#: 12800, 45 layers)
INTERNVL = {"architectures": ["InternVLForConditionalGeneration"], "model_type": "internvl", "downsample_ratio": 0.5,
            "projector_hidden_act": "gelu", "image_token_id": 151671,
            "text_config": copy.deepcopy(catalog.lookup("Qwen/Qwen3-235B-A22B").config),
            "vision_config": {"model_type": "internvl_vision", "hidden_size": 3200, "num_attention_heads": 25,
                              "intermediate_size": 12800, "num_hidden_layers": 45, "use_qk_norm": True,
                              "norm_type": "rms_norm", "image_size": [448, 448], "patch_size": [14, 14]}}
BLOCK_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}


def _with(quant: "dict | None" = None, text: "dict | None" = None, **vision) -> dict:
    out = copy.deepcopy(INTERNVL)
    out["vision_config"].update(vision)
    out["text_config"].update(text or {})
    if quant is not None:
        out["quantization_config"] = quant
    return out


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_published_sizes_unquantized_are_accepted_and_decided(version):
    # 12800 / 16 = 800 per rank; the experts' 1536 / 16 = 96 (no block size unquantized)
    for tp in (1, 2, 4, 8, 16):
        v = kvguard.check(INTERNVL, vllm_version=version, tp=tp, host=WIDE)
        assert v.ok and mi_skip(v) == "", tp


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.24.0", "0.28.0"])
def test_block_fp8_experts_refuse_tp8_before_the_refinement(version):
    # the tower is built unquantized whatever the checkpoint holds; the experts' 1536 / 8 = 192 is not whole blocks
    # of 128 (the recipe's "TP must divide 12" for Intern-S1-FP8)
    v = kvguard.check(_with(BLOCK_FP8), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_fp8_moe_block_n", "ValueError",
        "The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128.")
    v = kvguard.check(_with(BLOCK_FP8), vllm_version=version, tp=4, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_block_fp8_experts_at_tp8_are_refined_from_0_29_0():
    # gcd(128, 128, 192, 4096) = 64 >= 32: finer blocks on Triton (the default host)
    v = kvguard.check(_with(BLOCK_FP8), vllm_version="0.33.0", tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_a_tower_mlp_width_tp_does_not_divide(version):
    # the text model passes -tp 4 (64 heads, 4 KV heads, experts of 1536); the tower, built first, splits layer 0's
    # fc1 outputs 12802 by 4
    v = kvguard.check(_with(intermediate_size=12802), vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_divide", "AssertionError",
                                                                "12802 is not divisible by 4")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_data_parallel_encoder_falls_back_to_the_split_tower(version):
    # InternS1ForConditionalGeneration does not declare supports_encoder_tp_data: the same fc1 refuses
    res = outcome(model_facts(_with(intermediate_size=12802), vllm_version=version), resolve(version),
                  Launch(tp=4, mm_encoder_tp_mode="data"))
    assert (res.check, res.layer) == ("MI_divide", "vision_tower.encoder.layer.0.mlp.fc1")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_another_language_model_is_left_open(version):
    dense = _with(text={"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"})
    v = kvguard.check(dense, vllm_version=version, tp=2, host=H100)
    assert mi_skip(v) == ("the language model 'Qwen3ForCausalLM' of InternVLForConditionalGeneration is not modelled "
                          "(only Qwen3MoeForCausalLM)")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_a_tower_the_heads_do_not_divide_is_left_open(version):
    v = kvguard.check(_with(num_attention_heads=24), vllm_version=version, tp=2, host=H100)
    assert mi_skip(v).startswith("the InternViT vision tower of InternVLForConditionalGeneration with sizes")


def test_the_towers_layers():
    layers = interns1.tower_layers(model_facts(INTERNVL, vllm_version="0.33.0").resolved_top)
    assert len(layers) == 45 * 2
    fc1, fc2 = layers[:2]
    assert (fc1.prefix, fc1.kind, fc1.input_size, fc1.output_sizes, fc1.quantized) == (
        "vision_tower.encoder.layer.0.mlp.fc1", "column", 3200, (12800,), False)
    assert (fc2.prefix, fc2.kind, fc2.input_size, fc2.output_sizes, fc2.quantized) == (
        "vision_tower.encoder.layer.0.mlp.fc2", "row", 12800, (3200,), False)


def test_the_mapper_renames_the_checkpoint_names():
    assert interns1.ignored_names(("model.vision_tower.encoder.layer.0.mlp.fc1", "model.language_model.layers.3.mlp.gate",
                                   "lm_head", "model.multi_modal_projector.linear_1", "vision_tower")) == (
        "vision_tower.encoder.layer.0.mlp.fc1", "language_model.model.layers.3.mlp.gate", "lm_head",
        "multi_modal_projector.linear_1", "vision_tower")  # prefixes only: "lm_head" lacks the mapper's "lm_head."


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0"])
def test_intern_s1s_remote_code_config_is_undecidable(version):
    # internlm/Intern-S1 names its own InternS1Config (remote code): read as a plain PretrainedConfig, its text_config
    # stays a dictionary, which the repository's class builds into a Qwen3MoeConfig
    remote = dict(copy.deepcopy(INTERNVL), model_type="interns1", architectures=["InternS1ForConditionalGeneration"],
                  auto_map={"AutoConfig": "configuration_interns1.InternS1Config"})
    with pytest.raises(Undecidable, match="its text_config stays a dictionary there"):
        kvguard.check(remote, vllm_version=version, tp=8, host=H100, trust_remote_code=True)


@pytest.mark.parametrize("version, refused", [("0.10.2", True), ("0.21.0", True), ("0.22.1", False),
                                              ("0.33.0", False)])
def test_eplb_before_the_worker_registers_the_language_model(version, refused):
    # the wrapper implements no MixtureOfExperts (interns1.py, every release read): up to 0.21.x the V1 worker's first
    # EPLB step asserts on it; from 0.22.0 it registers the wrapper's language model (gpu_model_runner.py)
    v = kvguard.check(INTERNVL, vllm_version=version, tp=2, dp=4, enable_expert_parallel=True, enable_eplb=True,
                      host=H100)
    if refused:
        assert (v.ok, v.stage, v.check, v.exc_type) == (False, "worker", "W_eplb_no_moe_model", "AssertionError")
    else:
        assert v.ok and mi_skip(v) == ""
