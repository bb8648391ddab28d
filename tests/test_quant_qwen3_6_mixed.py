"""Model construction of NVIDIA's Qwen3.6 ModelOpt MIXED_PRECISION exports (kvguard.quant.modelopt_mixed in the
general walk of kvguard.quant, families qwen3_5 / qwen3_5_moe).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/layers/quantization/modelopt.py's ``ModelOptMixedPrecisionConfig`` of 0.17.0 - 0.33.0: each
layer's quant_algo looked up in ``quantized_layers`` after the wrapper's checkpoint-name mapper, a fused layer by its
shards; FP8 checks no size, NVFP4 and, from 0.22.0, W4A16_NVFP4 want per-rank inputs in whole 16-element groups (the
weight-only method's own message up to 0.29.0); the LM head takes its algorithm from 0.23.0; W4A16_NVFP4 layers and
experts stay unquantized before 0.22.0).  tests/upstream/test_quant.py (run_qwen3_6_mixed) and the golden cases
mi-modelopt-mixed-qwen3-6-* compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node()
DENSE = "nvidia/Qwen3.6-27B-NVFP4"
MOE = "nvidia/Qwen3.6-35B-A3B-NVFP4"
A16_MESSAGE = "Unsupported model: input feature size is not a multiple of 16."
NVFP4_MESSAGE = "Unsupported model when in features size is not multiple of 16"


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def config(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


@pytest.mark.parametrize("version", ["0.17.0", "0.21.0", "0.22.0", "0.26.0", "0.30.0", "0.33.0"])
@pytest.mark.parametrize("name", [DENSE, MOE])
def test_published_exports_build(name, version):
    # 27B: hidden 5120, MLP 17408 (down_proj 17408 / 8 = 2176 = 16 x 136 per rank), 48 x 128 value features into the
    # FP8 out_proj; 35B-A3B: hidden 2048, shared expert 512 / 8 = 64, W4A16_NVFP4 experts (FP4 Marlin from 0.22.0,
    # unquantized before); the LM head (W4A16_NVFP4) takes the unsplit 5120 / 2048
    for tp in (1, 2, 4, 8):
        v = kvguard.check(name, vllm_version=version, tp=tp, host=H100)
        assert v.ok and mi_skip(v) == "", (tp, v.check, mi_skip(v))


@pytest.mark.parametrize(("version", "expected"), [
    ("0.17.0", None), ("0.21.0", None),  # W4A16_NVFP4 layers are built unquantized
    ("0.22.0", ("MI_nvfp4a16_input", A16_MESSAGE)), ("0.29.0", ("MI_nvfp4a16_input", A16_MESSAGE)),
    ("0.30.0", ("MI_nvfp4_input", NVFP4_MESSAGE)), ("0.33.0", ("MI_nvfp4_input", NVFP4_MESSAGE)),
])
def test_weight_only_mlp_input(version, expected):
    # the 27B export with an MLP of 17400: down_proj (W4A16_NVFP4) takes 17400 / 2 = 8700 = 16 x 543 + 12 input
    # features per rank at tp 2; layer 0's FP8 gated delta net and the W4A16 gate_up_proj (5120 inputs) build first
    cfg = config(DENSE)
    cfg["text_config"]["intermediate_size"] = 17400
    v = kvguard.check(cfg, vllm_version=version, tp=2, host=H100)
    if expected is None:
        assert v.ok and mi_skip(v) == "", (v.check, mi_skip(v))
        return
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", *expected[:1], "ValueError",
                                                               expected[1])


@pytest.mark.parametrize(("version", "refused"), [("0.22.0", False), ("0.23.0", True), ("0.33.0", True)])
def test_lm_head_takes_its_algorithm_from_0_23(version, refused):
    # every decoder layer FP8 (no size check), the LM head W4A16_NVFP4 on a hidden size of 5128 = 16 x 320 + 8:
    # ParallelLMHead is handed a linear method from 0.23.0 (0.22.x builds it unquantized)
    cfg = config(DENSE)
    cfg["text_config"]["hidden_size"] = 5128
    table = cfg["quantization_config"]["quantized_layers"]
    for key in table:
        if key != "lm_head":
            table[key] = {"quant_algo": "FP8"}
    v = kvguard.check(cfg, vllm_version=version, tp=2, host=H100)
    if not refused:
        assert v.ok and mi_skip(v) == "", (v.check, mi_skip(v))
        return
    check = "MI_nvfp4a16_input" if version != "0.33.0" else "MI_nvfp4_input"
    assert (v.ok, v.check) == (False, check), (v.check, mi_skip(v))


def test_fused_shards_of_two_algorithms_stay_open():
    # in_proj_z NVFP4 beside an FP8 in_proj_qkv: vLLM's "Mixed quant_algo within fused layer" ValueError (its set
    # printed in hash order) is not modelled
    cfg = config(DENSE)
    cfg["quantization_config"]["quantized_layers"]["model.language_model.layers.0.linear_attn.in_proj_z"] = {
        "quant_algo": "NVFP4", "group_size": 16}
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=2, host=H100)
    assert "MIXED_PRECISION shards of language_model.model.layers.0.linear_attn.in_proj_qkvz" in mi_skip(v)


@pytest.mark.parametrize(("hidden", "decided"), [(2048, True), (2056, False)])
def test_unquantized_experts_by_hidden_size(hidden, decided):
    # layer 0 excluded: its experts are built unquantized, whose MoE backend selection (0.20.0+) refuses some hidden
    # sizes (2056 on 0.32.0 / 0.33.0): decided for whole 128-element blocks only
    cfg = config(MOE)
    cfg["quantization_config"]["ignore"].append("model.language_model.layers.0.*")
    cfg["text_config"]["hidden_size"] = hidden
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=1, host=H100)
    reason = mi_skip(v)
    assert ("unquantized MoE backend selection" in reason) is not decided, reason


@pytest.mark.parametrize(("algo", "refused"), [("W4A16_NVFP4", False), ("NVFP4", False), ("FP8", True)])
def test_eplb_by_the_experts_algorithm(algo, refused):
    # FusedMoE asks the experts' method whether it takes EPLB: ModelOptNvFp4FusedMoE does (NVFP4 and W4A16_NVFP4),
    # ModelOptFp8MoEMethod does not (routed_experts.py prints the class name after "supported", no "for")
    cfg = config(MOE)
    table = cfg["quantization_config"]["quantized_layers"]
    for key in table:
        if key.endswith(".mlp.experts"):
            table[key] = {"quant_algo": algo, "group_size": 16} if "NVFP4" in algo else {"quant_algo": algo}
    v = kvguard.check(cfg, vllm_version="0.33.0", tp=2, dp=4, enable_expert_parallel=True, enable_eplb=True,
                      host=H100)
    if not refused:
        assert v.ok and mi_skip(v) == "", (v.check, mi_skip(v))
        return
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_eplb_unsupported", "NotImplementedError",
                                                      "EPLB is not supported ModelOptFp8MoEMethod.")
