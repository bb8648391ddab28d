"""AWQ / GPTQ checkpoints on MoE architectures at model construction (kvguard.quant.wna16_moe).

Expected values are worked out by hand from the catalog configs and the releases' source
(vllm marlin_utils.check_moe_marlin_supports_layer, moe_wna16.MoeWNA16Method.create_weights);
tests/upstream/test_quant.py compares with the releases building the models.

Qwen3-30B-A3B: hidden 2048, MoE intermediate size 768, 128 experts, 32 heads, 4 KV heads.
Mixtral-8x7B: hidden 4096, intermediate size 14336, 8 experts, 32 heads, 8 KV heads.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog

BIG = kvguard.Host.cuda_node(gpus_per_node=64)

GPTQ = {"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": False, "sym": True, "true_sequential": True,
        "quant_method": "gptq"}
AWQ = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm", "modules_to_not_convert": None,
       "quant_method": "awq"}


def qwen3(q: dict, **sizes) -> dict:
    c = copy.deepcopy(catalog.lookup("Qwen/Qwen3-30B-A3B").config)
    c.update(sizes)
    c["quantization_config"] = dict(q)
    return c


def mixtral(q: dict, **sizes) -> dict:
    c = copy.deepcopy(catalog.lookup("mistralai/Mixtral-8x7B-v0.1").config)
    c.update(sizes)
    c["quantization_config"] = dict(q)
    return c


def skipped_reasons(v) -> list[str]:
    return [s.reason for s in v.skipped]


@pytest.mark.parametrize("q", [GPTQ, AWQ], ids=["gptq", "awq"])
@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.19.1"])
def test_qwen3_30b_tp16_experts_fall_back_and_refuse(q, version):
    # tp 16: 768 / 16 = 48 per rank; not a multiple of 128 (Marlin MoE) -> MoeWNA16; 48 % 32 = 16 -> the halving
    # loop reaches 16 and asserts
    v = kvguard.check(qwen3(q), vllm_version=version, tp=16, host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_moe_wna16_group", "AssertionError", "", None)


@pytest.mark.parametrize("q", [GPTQ, AWQ], ids=["gptq", "awq"])
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_qwen3_30b_small_tp_builds(q, tp):
    # 768 / tp = 768, 384 (Marlin MoE: multiples of 128), 192, 96 (MoeWNA16: multiples of 32)
    assert kvguard.check(qwen3(q), vllm_version="0.10.2", tp=tp, host=BIG).ok


def test_data_parallel_splits_the_experts_too():
    # without expert parallel the MoE TP size is tp x dp: tp 2 x dp 8 = 16 -> 48 per rank, refused;
    # with expert parallel the experts keep 768 (Marlin MoE)
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.10.2", tp=2, dp=8, host=BIG)
    assert v.check == "MI_moe_wna16_group"
    assert kvguard.check(qwen3(GPTQ), vllm_version="0.10.2", tp=2, dp=8, enable_expert_parallel=True,
                         host=BIG).ok


def test_eplb_with_quantized_experts_is_not_modelled():
    # FusedMoE checks the quantization method's EPLB support (NotImplementedError for methods without it)
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.10.2", tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      host=BIG)
    assert v.check is None and any("--enable-eplb with the gptq MoE method" in r for r in skipped_reasons(v))


def test_mixtral_tp32_falls_back_and_builds():
    # 14336 / 32 = 448: 448 % 128 = 64 (no Marlin MoE), 448 % 32 = 0 (MoeWNA16 takes it); the gate is unquantized
    assert kvguard.check(mixtral(AWQ), vllm_version="0.10.2", tp=32, host=BIG).ok


def test_mixtral_odd_intermediate_refused():
    # 14000 / 8 = 1750: 1750 % 32 = 22 -> refused at tp 8; tp 1: 14000 % 128 = 48 -> MoeWNA16, 14000 % 32 = 16
    v = kvguard.check(mixtral(GPTQ, intermediate_size=14000), vllm_version="0.19.1", tp=8, host=BIG)
    assert (v.check, v.exc_type, v.message) == ("MI_moe_wna16_group", "AssertionError", "")
    v1 = kvguard.check(mixtral(GPTQ, intermediate_size=14000), vllm_version="0.19.1", tp=1, host=BIG)
    assert v1.check == "MI_moe_wna16_group"


def test_host_backend_selection_is_skipped_not_accepted():
    # GPTQ 0.20.0+, AWQ 0.22.0+: the Marlin MoE methods select a kernel backend when constructed
    for q, version in ((GPTQ, "0.20.0"), (AWQ, "0.22.0"), (GPTQ, "0.33.0")):
        v = kvguard.check(qwen3(q), vllm_version=version, tp=2, host=BIG)
        assert any("select_wna16_moe_backend" in r for r in skipped_reasons(v)), (q["quant_method"], version)
        assert v.check is None
    # AWQ up to 0.21.0 does not select: tp 2 (384 per rank) builds on Marlin MoE
    assert not any("select_wna16_moe_backend" in r for r in
                   skipped_reasons(kvguard.check(qwen3(AWQ), vllm_version="0.21.0", tp=2, host=BIG)))


@pytest.mark.parametrize("version", ["0.20.0", "0.26.0"])
def test_the_fall_back_is_decided_until_0_26(version):
    # MoeWNA16Method selects no backend up to 0.26.0: tp 16 (48 per rank) is refused there, undecided from 0.27.0
    assert kvguard.check(qwen3(GPTQ), vllm_version=version, tp=16, host=BIG).check == "MI_moe_wna16_group"
    later = kvguard.check(qwen3(GPTQ), vllm_version="0.27.0", tp=16, host=BIG)
    assert later.check is None
    assert any("MoeWNA16Method" in r for r in skipped_reasons(later))


def test_tile_padding_from_0_25_keeps_marlin_for_whole_groups():
    # group 32, tp 8: 96 per rank.  Up to 0.24.0 the Marlin MoE kernel needs a multiple of max(64, 32) = 64:
    # MoeWNA16 (96 % 32 = 0) builds, decided; 0.25.0+ pads the tile and takes whole groups: Marlin MoE, whose
    # backend selection is the host's (undecided)
    q = dict(GPTQ, group_size=32)
    old = kvguard.check(qwen3(q), vllm_version="0.24.0", tp=8, host=BIG)
    assert old.ok and not any("model construction" in r or "MoE" in r for r in skipped_reasons(old))
    new = kvguard.check(qwen3(q), vllm_version="0.25.0", tp=8, host=BIG)
    assert any("select_wna16_moe_backend" in r for r in skipped_reasons(new))


@pytest.mark.parametrize("version", ["0.10.2", "0.15.0", "0.21.0"])
def test_qwen3_quantizes_its_router_gate_with_awq(version):
    # 60 experts: the replicated gate's output 60 is not a multiple of Marlin's 64 -> the plain AWQ kernels,
    # 60 % 8 = 4 -> the output refusal, at every tp; "gate" in modules_to_not_convert leaves it unquantized
    v = kvguard.check(qwen3(AWQ, num_experts=60), vllm_version=version, tp=2, host=BIG)
    assert (v.check, v.exc_type, v.message) == (
        "MI_awq_output", "ValueError",
        "The output size is not aligned with the quantized weight shape. This can be caused by too large tensor "
        "parallel size.")
    assert kvguard.check(qwen3(dict(AWQ, modules_to_not_convert=["gate"]), num_experts=60), vllm_version=version,
                         tp=2, host=BIG).ok


def test_mixtral_never_quantizes_its_gate():
    # Mixtral builds block_sparse_moe.gate without a quantization config: 4 experts (output 4) is not checked
    assert kvguard.check(mixtral(AWQ, num_local_experts=4), vllm_version="0.10.2", tp=1, host=BIG).ok


def test_awq_modules_to_not_convert_leaves_experts_unquantized():
    # "experts" is part of the MoE layer's prefix: UnquantizedFusedMoEMethod, no group check
    q = dict(AWQ, modules_to_not_convert=["experts"])
    assert kvguard.check(qwen3(q), vllm_version="0.10.2", tp=16, host=BIG).ok


def test_group_minus_one_fall_back_is_not_modelled():
    q = dict(GPTQ, group_size=-1)
    # 768 / 16 = 48: 48 % 64 != 0 -> MoeWNA16 with group_size -1 (negative scale sizes): not modelled
    v = kvguard.check(qwen3(q), vllm_version="0.10.2", tp=16, host=BIG)
    assert v.check is None and any("group_size -1" in r for r in skipped_reasons(v))


def test_awq_channelwise_experts_are_not_modelled():
    # AWQMoEMethod sizes its scales hidden_size // -1 (0.10.2: a negative dimension torch refuses): skipped
    v = kvguard.check(mixtral(dict(AWQ, group_size=-1)), vllm_version="0.10.2", tp=1, host=BIG)
    assert v.check is None and any("group_size -1" in r for r in skipped_reasons(v))


def test_other_moe_architectures_stay_unmodelled():
    c = copy.deepcopy(catalog.lookup("deepseek-ai/DeepSeek-V2-Lite").config)
    c["quantization_config"] = dict(AWQ)
    v = kvguard.check(c, vllm_version="0.10.2", tp=2, host=BIG)
    assert any("with MoE layers" in r for r in skipped_reasons(v))


def test_audit_names_the_forbidden_tp_sizes():
    q = kvguard.audit(qwen3(GPTQ), tp=4, vllm_version="0.10.2").models[0].quantization
    assert [(f["tp"], f["check"], f["exc_type"], f["message"]) for f in q["forbidden_tp"]] == [
        (16, "MI_moe_wna16_group", "AssertionError", ""), (32, "MI_moe_wna16_group", "AssertionError", "")]
    assert q["rules"] == ["AWQ / GPTQ MoE: MoE intermediate size 768 split over the MoE TP size; a per-rank size the "
                          "fused MoE Marlin kernel does not take falls back to the MoE WNA16 kernels, whose group size "
                          "(128, halved to no less than 32) must divide it and the hidden size 2048: refused at tp "
                          "16, 32"]


def test_audit_keeps_the_decided_sizes_when_some_are_not():
    # 0.22.0: the per-rank sizes the fused MoE Marlin kernel takes (768, 384: multiples of max(64, group 128))
    # leave the kernel to the host's backend selection (undecided); 192 and 96 fall back to MoE WNA16 (builds),
    # 48 and 24 are refused by its group-size assert
    q = kvguard.audit(qwen3(GPTQ), tp=4, vllm_version="0.22.0").models[0].quantization
    assert q["modelled"] is False and "not_modelled" not in q
    assert [f["tp"] for f in q["forbidden_tp"]] == [16, 32]
    assert [u["tp"] for u in q["undecided_tp"]] == [1, 2]
    assert all("select_wna16_moe_backend" in u["reason"] for u in q["undecided_tp"])


def test_audit_text_names_the_undecided_sizes(capsys, tmp_path):
    from kvguard.cli import run

    path = tmp_path / "config.json"
    path.write_text(json.dumps(qwen3(GPTQ)))
    assert run(["audit", str(path), "--tp", "4", "--vllm-version", "0.22.0"]) == 0
    out = capsys.readouterr().out
    assert "refuses while building the model: [16, 32] (of the sizes dividing the attention heads, among those " \
           "kvguard decides)" in out
    assert "not decided at tp 1, 2: the WNA16 MoE backend the host selects" in out
