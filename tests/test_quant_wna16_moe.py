"""AWQ / GPTQ checkpoints on MoE architectures at model construction (kvguard.quant.wna16_moe).

Expected values are worked out by hand from the catalog configs and the releases' source
(vllm marlin_utils.check_moe_marlin_supports_layer, moe_wna16.MoeWNA16Method.create_weights, the WNA16
MoE backend selection of fused_moe/oracle/int_wna16.py and the experts' is_supported_config);
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
from kvguard.record import replace

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


# --enable-eplb: FusedMoE refuses a quant method without EPLB support once the method is built (layer.py,
# routed_experts.py from 0.24.0).  Up to 0.11.0 only Fp8MoEMethod and the unquantized method pass; from 0.11.1 the
# method's supports_eplb, which none of the AWQ / GPTQ / MoeWNA16 methods sets, and the message names the class
# (AWQMoEMethod, renamed AWQMarlinMoEMethod in 0.12.0, AutoAWQMoEMethod from 0.24.0; GPTQMarlinMoEMethod,
# AutoGPTQMoEMethod from 0.22.0); the "only FP8" sentence is dropped in 0.15.0.
_FP8_ONLY = "EPLB is only supported for FP8 quantization for now."


@pytest.mark.parametrize("q,version,message", [
    (GPTQ, "0.10.2", _FP8_ONLY),
    (AWQ, "0.11.0", _FP8_ONLY),
    (GPTQ, "0.11.1", "EPLB is not supported GPTQMarlinMoEMethod. " + _FP8_ONLY),
    (AWQ, "0.11.1", "EPLB is not supported AWQMoEMethod. " + _FP8_ONLY),
    (AWQ, "0.12.0", "EPLB is not supported AWQMarlinMoEMethod. " + _FP8_ONLY),
    (GPTQ, "0.14.1", "EPLB is not supported GPTQMarlinMoEMethod. " + _FP8_ONLY),
    (GPTQ, "0.15.0", "EPLB is not supported GPTQMarlinMoEMethod."),
    (AWQ, "0.20.0", "EPLB is not supported AWQMarlinMoEMethod."),
    (GPTQ, "0.22.0", "EPLB is not supported AutoGPTQMoEMethod."),
    (AWQ, "0.23.0", "EPLB is not supported AWQMarlinMoEMethod."),
    (AWQ, "0.24.0", "EPLB is not supported AutoAWQMoEMethod."),
    (GPTQ, "0.28.0", "EPLB is not supported AutoGPTQMoEMethod."),
    (AWQ, "0.33.0", "EPLB is not supported AutoAWQMoEMethod."),
])
def test_eplb_refuses_the_marlin_moe_methods(q, version, message):
    # Qwen3-30B-A3B, dp 8 with expert parallel: 128 experts over 8 ranks (even), every rank keeps 768 (Marlin MoE)
    v = kvguard.check(qwen3(q), vllm_version=version, tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_eplb_unsupported", "NotImplementedError", message, None)


@pytest.mark.parametrize("version,message", [
    ("0.10.2", _FP8_ONLY),
    ("0.14.1", "EPLB is not supported MoeWNA16Method. " + _FP8_ONLY),
    ("0.20.0", "EPLB is not supported MoeWNA16Method."),
    ("0.28.0", "EPLB is not supported MoeWNA16Method."),
])
def test_eplb_refuses_the_fall_back_before_its_group_assert(version, message):
    # MoE intermediate 784: 784 % 64 (strict tile) and 784 % 128 (a group straddling, 0.25.0+) leave Marlin MoE ->
    # MoeWNA16Method, whose create_weights would halve 128 -> 64 -> 32 -> 16 and assert; EPLB is refused first
    plain = kvguard.check(qwen3(GPTQ, moe_intermediate_size=784), vllm_version=version, tp=1, dp=8,
                          enable_expert_parallel=True, host=BIG)
    assert (plain.check, plain.exc_type) == ("MI_moe_wna16_group", "AssertionError")
    v = kvguard.check(qwen3(GPTQ, moe_intermediate_size=784), vllm_version=version, tp=1, dp=8,
                      enable_expert_parallel=True, enable_eplb=True, host=BIG)
    assert (v.check, v.exc_type, v.message) == ("MI_eplb_unsupported", "NotImplementedError", message)


def test_eplb_comes_after_the_even_split_and_the_backend_choice():
    # 128 + 4 redundant experts over 8 EP ranks: the even-distribution check (the MoE layer factory) comes first
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.24.0", tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      num_redundant_experts=4, host=BIG)
    assert (v.check, v.message) == ("MI_eplb_even", "EPLB currently only supports even distribution of experts "
                                                    "across ranks. Got 132 experts and 8 EP ranks.")
    # --moe-backend flashinfer_trtllm: the method's backend selection (its __init__) refuses before FusedMoE reads
    # supports_eplb (GPTQ's method declares possible expert bias)
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.33.0", tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      host=BIG, moe_backend="flashinfer_trtllm")
    assert (v.check, v.exc_type, v.message) == (
        "MI_wna16_moe_backend_unsupported", "ValueError",
        "WNA16 MoE backend 'FLASHINFER_TRTLLM' does not support the deployment configuration since zero points and "
        "bias are not supported.")


def test_eplb_with_unquantized_experts_builds():
    # modules_to_not_convert naming the experts: UnquantizedFusedMoEMethod supports EPLB
    q = dict(AWQ, modules_to_not_convert=["experts"])
    for version in ("0.10.2", "0.20.0", "0.33.0"):
        v = kvguard.check(qwen3(q), vllm_version=version, tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                          host=BIG)
        assert v.ok and not any("EPLB" in r or "eplb" in r for r in skipped_reasons(v)), (version, v.skipped)


def test_mixtral_tp32_falls_back_and_builds():
    # 14336 / 32 = 448: 448 % 128 = 64 (no Marlin MoE), 448 % 32 = 0 (MoeWNA16 takes it); the gate is unquantized
    assert kvguard.check(mixtral(AWQ), vllm_version="0.10.2", tp=32, host=BIG).ok


def test_mixtral_odd_intermediate_refused():
    # 14000 / 8 = 1750: 1750 % 32 = 22 -> refused at tp 8; tp 1: 14000 % 128 = 48 -> MoeWNA16, 14000 % 32 = 16
    v = kvguard.check(mixtral(GPTQ, intermediate_size=14000), vllm_version="0.19.1", tp=8, host=BIG)
    assert (v.check, v.exc_type, v.message) == ("MI_moe_wna16_group", "AssertionError", "")
    v1 = kvguard.check(mixtral(GPTQ, intermediate_size=14000), vllm_version="0.19.1", tp=1, host=BIG)
    assert v1.check == "MI_moe_wna16_group"


def test_host_backend_selection_is_decided_on_the_default_host():
    # GPTQ 0.20.0+, AWQ 0.22.0+: the Marlin MoE methods select a kernel backend when constructed.  On CUDA 9.0 with
    # the default all2all backend (standard activation format): MARLIN (0.20.0-0.22.x first; 0.23.0+ after
    # FLASHINFER_TRTLLM, which needs the SM100 family; 0.27.0+ the AWQ / GPTQ methods declare expert bias, which
    # FLASHINFER_TRTLLM refuses) takes 4-bit weights: tp 2 (384 per rank) builds
    for q, version in ((GPTQ, "0.20.0"), (AWQ, "0.22.0"), (GPTQ, "0.24.0"), (AWQ, "0.27.1"), (GPTQ, "0.31.0")):
        v = kvguard.check(qwen3(q), vllm_version=version, tp=2, host=BIG)
        assert v.ok and not any("WNA16 MoE" in r for r in skipped_reasons(v)), (q["quant_method"], version)


@pytest.mark.parametrize("q", [GPTQ, AWQ], ids=["gptq", "awq"])
def test_humming_ahead_of_marlin_from_0_32_does_not_change_construction(q):
    # 0.32.0+: prioritize_humming puts HUMMING ahead of MARLIN on compute capability 9.0; whether Humming takes
    # the layer (its checks are humming-kernels') or MARLIN does, create_weights is the same: tp 2 builds, tp 16
    # (MoeWNA16: HUMMING or TRITON) asserts in create_weights
    assert kvguard.check(qwen3(q), vllm_version="0.33.0", tp=2, host=BIG).ok
    assert kvguard.check(qwen3(q), vllm_version="0.33.0", tp=16, host=BIG).check == "MI_moe_wna16_group"
    # --moe-backend humming: its refusal would be humming's own (skipped)
    v = kvguard.check(qwen3(q), vllm_version="0.33.0", tp=2, host=BIG, moe_backend="humming")
    assert v.check is None and any("HUMMING WNA16 MoE kernel" in r for r in skipped_reasons(v))


@pytest.mark.parametrize("version", ["0.20.0", "0.26.0", "0.27.0", "0.31.0", "0.32.0"])
def test_the_fall_back_refuses_at_tp16(version):
    # tp 16 (48 per rank): MoeWNA16Method.  From 0.27.0 it selects a backend first: FLASHINFER_TRTLLM (no zero
    # points for GPTQ, but the SM100 family only), MARLIN / BATCHED_MARLIN refuse its layout, TRITON takes 4-bit
    # weights; then create_weights' group halving reaches 16 and asserts
    assert kvguard.check(qwen3(GPTQ), vllm_version=version, tp=16, host=BIG).check == "MI_moe_wna16_group"


def test_int8_fall_back_with_groups_asserts_in_0_27_and_0_28():
    # MoeWNA16Method.__init__ of 0.27.0-0.28.0 asserts group_size == -1 for 8-bit weights (bare assert), before
    # selecting; 0.29.0 dropped the assert: TRITON takes kInt8Static, and create_weights' halving (48 -> 16) asserts
    q = dict(GPTQ, bits=8)
    for version in ("0.27.0", "0.28.0"):
        v = kvguard.check(qwen3(q), vllm_version=version, tp=16, host=BIG)
        assert (v.check, v.exc_type, v.message) == ("MI_moe_wna16_int8_group", "AssertionError", ""), version
    assert kvguard.check(qwen3(q), vllm_version="0.29.0", tp=16, host=BIG).check == "MI_moe_wna16_group"
    # tp 2 (384 per rank: three whole groups of 128): Marlin MoE takes it, no assert; tp 4 (192: a group straddles
    # two ranks) falls back and asserts
    assert kvguard.check(qwen3(q), vllm_version="0.27.0", tp=2, host=BIG).ok
    assert kvguard.check(qwen3(q), vllm_version="0.27.0", tp=4, host=BIG).check == "MI_moe_wna16_int8_group"


def test_tile_padding_from_0_25_keeps_marlin_for_whole_groups():
    # group 32, tp 8: 96 per rank.  Up to 0.24.0 the Marlin MoE kernel needs a multiple of max(64, 32) = 64:
    # MoeWNA16 (96 % 32 = 0) builds; 0.25.0+ pads the tile and takes whole groups: Marlin MoE, whose backend
    # selection picks MARLIN (kInt4Static: group 32 keys the scale as the general group scale)
    q = dict(GPTQ, group_size=32)
    for version in ("0.24.0", "0.25.0"):
        v = kvguard.check(qwen3(q), vllm_version=version, tp=8, host=BIG)
        assert v.ok and not any("model construction" in r or "MoE" in r for r in skipped_reasons(v)), version


@pytest.mark.parametrize(("version", "names"), [
    ("0.26.0", "['marlin', 'humming', 'flashinfer_trtllm', 'emulation']"),
    ("0.27.1", "['triton', 'marlin', 'humming', 'flashinfer_trtllm', 'emulation']"),
    ("0.33.0", "['triton', 'marlin', 'humming', 'flashinfer_trtllm', 'emulation', 'rdna3']")])
def test_moe_backend_outside_the_wna16_mapping(version, names):
    v = kvguard.check(qwen3(GPTQ), vllm_version=version, tp=2, host=BIG, moe_backend="cutlass")
    assert (v.stage, v.check, v.exc_type, v.message) == (
        "model_init", "MI_wna16_moe_backend_name", "ValueError",
        f"moe_backend='cutlass' is not supported for WNA16 MoE. Expected one of {names}.")


def test_moe_backend_is_ignored_before_0_25_and_skipped_in_0_25():
    assert kvguard.check(qwen3(GPTQ), vllm_version="0.24.0", tp=2, host=BIG, moe_backend="cutlass").ok
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.25.1", tp=2, host=BIG, moe_backend="cutlass")
    assert v.check is None and any("--moe-backend cutlass" in r for r in skipped_reasons(v))


def test_moe_backend_the_layer_does_not_fit():
    since = "WNA16 MoE backend '{}' does not support the deployment configuration since {}."
    # 0.26.0: no incompatibility reasons, the kernel's own check (device first)
    v = kvguard.check(qwen3(AWQ), vllm_version="0.26.0", tp=2, host=BIG, moe_backend="flashinfer_trtllm")
    assert (v.check, v.exc_type, v.message) == ("MI_wna16_moe_backend_unsupported", "ValueError", since.format(
        "FLASHINFER_TRTLLM", "kernel does not support current device cuda"))
    # 0.27.0+: the AWQ / GPTQ methods declare possible expert bias
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=2, host=BIG, moe_backend="flashinfer_trtllm")
    assert v.message == since.format("FLASHINFER_TRTLLM", "zero points and bias are not supported")
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=2, host=BIG, moe_backend="triton")
    assert v.message == since.format("TRITON", "expert bias is not supported")
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.30.0", tp=2, host=BIG, moe_backend="rdna3")
    assert v.message == since.format("RDNA3", "only compressed-tensors checkpoints are supported")
    # MoeWNA16Method (tp 16) refuses the Marlin and emulation backends by its layout; Triton takes it, and then
    # create_weights asserts
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=16, host=BIG, moe_backend="marlin")
    assert v.message == since.format("MARLIN", "the MoeWNA16 checkpoint layout is not supported")
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=16, host=BIG, moe_backend="emulation")
    assert v.message == since.format("EMULATION", "the MoeWNA16 checkpoint layout is not supported")
    assert kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=16, host=BIG,
                         moe_backend="triton").check == "MI_moe_wna16_group"
    # marlin takes the Marlin method's layer; humming is not modelled
    assert kvguard.check(qwen3(GPTQ), vllm_version="0.33.0", tp=2, host=BIG, moe_backend="marlin").ok
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=2, host=BIG, moe_backend="humming")
    assert v.check is None and any("HUMMING" in r for r in skipped_reasons(v))


def test_batched_all2all_backend_is_not_modelled():
    v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=1, dp=8, enable_expert_parallel=True,
                      all2all_backend="deepep_low_latency", host=BIG)
    assert v.check is None and any("--all2all-backend deepep_low_latency" in r for r in skipped_reasons(v))


def test_the_selection_is_the_default_hosts(capsys, tmp_path):
    # an unknown host, or a GPU of another compute capability (B200: FLASHINFER_TRTLLM's SM100 family), leaves the
    # selection skipped; the CLI's default host is assumed (and reported as such)
    from kvguard.cli import run

    for host in (kvguard.Host(), replace(BIG, gpu_capability=100)):
        v = kvguard.check(qwen3(GPTQ), vllm_version="0.28.0", tp=16, host=host)
        assert v.check is None and any("compute capability" in r for r in skipped_reasons(v))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(qwen3(dict(GPTQ, bits=8))))
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve", str(tmp_path),
                  "-tp", "4"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["check"] == "MI_moe_wna16_int8_group" and "gpu_capability=90" in out["assumptions"]


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
    c = copy.deepcopy(catalog.lookup("Qwen/Qwen3-Next-80B-A3B-Instruct").config)
    c["quantization_config"] = dict(AWQ)
    v = kvguard.check(c, vllm_version="0.24.0", tp=2, host=BIG)
    assert any("weight-shard checks of Qwen3NextForCausalLM are not modelled" in r for r in skipped_reasons(v))


def test_audit_names_the_forbidden_tp_sizes():
    q = kvguard.audit(qwen3(GPTQ), tp=4, vllm_version="0.10.2").models[0].quantization
    assert [(f["tp"], f["check"], f["exc_type"], f["message"]) for f in q["forbidden_tp"]] == [
        (16, "MI_moe_wna16_group", "AssertionError", ""), (32, "MI_moe_wna16_group", "AssertionError", "")]
    assert q["rules"] == ["AWQ / GPTQ MoE: MoE intermediate size 768 split over the MoE TP size; a per-rank size the "
                          "fused MoE Marlin kernel does not take falls back to the MoE WNA16 kernels, whose group size "
                          "(128, halved to no less than 32) must divide it and the hidden size 2048: refused at tp "
                          "16, 32"]


def test_audit_decides_the_selected_sizes():
    # 0.22.0: 768 and 384 per rank (tp 1, 2) on Marlin MoE, whose selection picks MARLIN; 192 and 96 fall back to
    # MoE WNA16 (builds), 48 and 24 are refused by its group-size assert
    q = kvguard.audit(qwen3(GPTQ), tp=4, vllm_version="0.22.0").models[0].quantization
    assert q["modelled"] is True and "undecided_tp" not in q
    assert [f["tp"] for f in q["forbidden_tp"]] == [16, 32]


def test_audit_text_names_the_undecided_sizes(capsys, tmp_path):
    # 0.33.0 with a batched all2all backend is not an audit input; AWQ with group_size -1 on the experts is
    # undecided at every size (a negative scale dimension), so the text names the reason
    from kvguard.cli import run

    path = tmp_path / "config.json"
    path.write_text(json.dumps(qwen3(dict(AWQ, group_size=-1))))
    assert run(["audit", str(path), "--tp", "4", "--vllm-version", "0.33.0"]) == 0
    out = capsys.readouterr().out
    assert "group_size -1" in out


# ---------------------------------------------------------------------------
# DeepSeek-V2/V3 (MLA) and MiniMax-M2: the router gate unquantized, MLA / dense / shared-expert layers dense
#
# DeepSeek-R1: hidden 7168, dense intermediate 18432 (layers 0-2), MoE intermediate 2048, 256 experts, 1 shared
# expert, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_rope 64, qk_nope 128, v_head 128.
# MiniMax-M2.5: hidden 3072, intermediate 1536, 256 experts, 48 heads, 8 KV heads, head_dim 128.
# DeepSeek-V2-Lite: hidden 2048, MoE intermediate 1408, 64 experts, 2 shared experts, 16 heads, no q LoRA.

#: the form of cognitivecomputations/DeepSeek-R1-AWQ's quantization_config (AutoAWQ: 4-bit GEMM, zero points)
R1_AWQ = dict(AWQ, group_size=64)
HUGE = kvguard.Host.cuda_node(gpus_per_node=128)


def catalog_config(name: str, q: dict, **sizes) -> dict:
    c = copy.deepcopy(catalog.lookup(name).config)
    c.update(sizes)
    c["quantization_config"] = dict(q)
    return c


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.24.0", "0.28.0", "0.33.0"])
def test_deepseek_r1_awq_experts_refused_when_a_group_straddles_ranks(version):
    # tp 8 x dp 16 without expert parallel: MoE TP 128, 2048 / 128 = 16 per rank; Marlin MoE takes neither 16 %
    # 64 (strict) nor a group of 64 over 16 rows (padded, 0.25.0+) -> MoeWNA16, whose halving 64 -> 32 -> 16 asserts
    # (the MLA, dense and shared-expert layers before it fit Marlin at tp 8: q_b 1536 -> 3072, kv_b 512 -> 4096,
    # o_proj 2048 -> 7168, dense down_proj 2304, shared down_proj 256)
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", R1_AWQ), vllm_version=version, tp=8, dp=16,
                      host=HUGE)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_moe_wna16_group", "AssertionError", ""), version


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.24.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("tp,dp,ep", [(8, 1, False), (16, 1, False), (8, 16, True)])
def test_deepseek_r1_awq_builds(version, tp, dp, ep):
    # 2048 / 8 = 256, / 16 = 128 per rank (Marlin MoE); with expert parallel the experts keep 2048
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", R1_AWQ), vllm_version=version, tp=tp, dp=dp,
                      enable_expert_parallel=ep, host=HUGE)
    assert v.ok and not any("model construction" in r or "MoE" in r for r in skipped_reasons(v)), (
        version, skipped_reasons(v))


def test_deepseek_gptq_tp64_falls_back_and_builds():
    # GPTQ 4-bit group 128 at tp 64: 2048 / 64 = 32 per rank: not Marlin's (strict) -> MoeWNA16 halves 128 -> 64 -> 32
    # (divides 32 and 7168): builds in 0.10.2
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", GPTQ), vllm_version="0.10.2", tp=64, host=BIG)
    assert v.ok


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.33.0"])
def test_minimax_m2_gate_is_never_quantized(version):
    # 60 experts: a quantized gate (3072 -> 60) would fall back from Marlin (60 % 64) to the plain AWQ kernels, whose
    # packing refuses 60 % 8 (Qwen3-MoE's AWQ gate does); MiniMax-M2 builds its gate without the quantization
    c = catalog_config("MiniMaxAI/MiniMax-M2.5", AWQ, num_local_experts=60, torch_dtype="float16")
    v = kvguard.check(c, vllm_version=version, tp=4, host=BIG, trust_remote_code=True)
    assert v.ok and not any("model construction" in r or "MoE" in r for r in skipped_reasons(v)), (
        version, skipped_reasons(v))


def test_minimax_m2_experts_refused_at_tp_8_dp_4():
    # MoE TP 32: 1536 / 32 = 48 per rank; group 128: Marlin MoE refuses (48 % 128), MoeWNA16 halves 128 -> 64 -> 32
    # -> 16 and asserts
    c = catalog_config("MiniMaxAI/MiniMax-M2.5", AWQ, torch_dtype="float16")
    v = kvguard.check(c, vllm_version="0.24.0", tp=8, dp=4, host=BIG, trust_remote_code=True)
    assert (v.check, v.exc_type, v.message) == ("MI_moe_wna16_group", "AssertionError", "")


def test_minimax_m2_eplb_refused_from_0_24_only():
    # MiniMax-M2 passes no enable_eplb to its MoE layers: up to 0.23.x FusedMoE reads the layer's (False), the model
    # builds, and the V1 runner's first EPLB step finds no MixtureOfExperts model (a bare assert); from 0.24.0 the
    # check reads the MoE parallel config's enable_eplb (--enable-eplb) and refuses the AWQ method first
    c = catalog_config("MiniMaxAI/MiniMax-M2.5", AWQ, torch_dtype="float16")
    old = kvguard.check(c, vllm_version="0.23.0", tp=4, dp=2, enable_expert_parallel=True, enable_eplb=True,
                        host=BIG, trust_remote_code=True)
    assert (old.stage, old.check, old.exc_type, old.message) == ("worker", "W_eplb_no_moe_model", "AssertionError", "")
    v = kvguard.check(c, vllm_version="0.24.0", tp=4, dp=2, enable_expert_parallel=True, enable_eplb=True, host=BIG,
                      trust_remote_code=True)
    assert (v.check, v.exc_type, v.message) == ("MI_eplb_unsupported", "NotImplementedError",
                                                "EPLB is not supported AutoAWQMoEMethod.")


def test_deepseek_r1_awq_eplb_refused():
    # DeepSeek-R1-AWQ at -tp 4 --enable-expert-parallel --enable-eplb: 256 experts over 4 EP ranks, each keeps
    # 2048 (Marlin MoE), the MLA / dense / shared-expert layers fit Marlin at tp 4
    for version, message in (("0.11.0", _FP8_ONLY), ("0.14.1", "EPLB is not supported AWQMarlinMoEMethod. " + _FP8_ONLY),
                             ("0.20.0", "EPLB is not supported AWQMarlinMoEMethod."),
                             ("0.28.0", "EPLB is not supported AutoAWQMoEMethod.")):
        v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", R1_AWQ), vllm_version=version, tp=4,
                          enable_expert_parallel=True, enable_eplb=True, host=HUGE)
        assert (v.check, v.exc_type, v.message) == ("MI_eplb_unsupported", "NotImplementedError", message), version


def test_deepseek_v2_lite_quantizes_its_replicated_kv_a_projection():
    # no q LoRA: kv_a_proj_with_mqa is a ReplicatedLinear with the checkpoint's quantization (unlike the gate):
    # kv_lora_rank 500 -> output 500 + 64 = 564, which Marlin (strict, 0.10.2) does not take (564 % 64), and the plain
    # AWQ kernels' packing refuses (564 % 8 = 4)
    c = catalog_config("deepseek-ai/DeepSeek-V2-Lite", dict(AWQ, group_size=128), kv_lora_rank=500,
                       torch_dtype="float16")
    v = kvguard.check(c, vllm_version="0.10.2", tp=1, host=BIG)
    assert (v.check, v.exc_type, v.message) == (
        "MI_awq_output", "ValueError", "The output size is not aligned with the quantized weight shape. This can be "
        "caused by too large tensor parallel size.")


@pytest.mark.parametrize("version,expect", [
    # up to 0.11.0 is_layer_skipped_awq: "gate" is part of model.layers.0.mlp.gate_up_proj -> left unquantized
    ("0.10.2", None), ("0.11.0", None),
    # 0.11.1-0.23.x: shard by shard, gate_proj listed and up_proj not -> ValueError
    ("0.11.1", "MI_fused_shards"), ("0.14.1", "MI_fused_shards"), ("0.20.0", "MI_fused_shards"),
    ("0.23.0", "MI_fused_shards"),
    # 0.24.0+: the fused name first -> unquantized
    ("0.24.0", None), ("0.28.0", None), ("0.33.0", None)])
def test_deepseek_gate_in_modules_to_not_convert_by_release(version, expect):
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", dict(R1_AWQ, modules_to_not_convert=["gate"])),
                      vllm_version=version, tp=8, host=BIG)
    if expect is None:
        assert v.ok and not any("model construction" in r or "MoE" in r for r in skipped_reasons(v)), (
            version, skipped_reasons(v))
    else:
        assert (v.check, v.exc_type, v.message) == (
            expect, "ValueError", "Detected some but not all shards of model.layers.0.mlp.gate_up_proj are "
            "quantized. All shards of fused layers to have the same precision."), version


def test_deepseek_kv_a_proj_in_modules_to_not_convert_splits_the_fused_projection():
    # fused_qkv_a_proj = q_a_proj + kv_a_proj_with_mqa: only the second is listed (0.11.1+: shard by shard; the fused
    # name does not contain it)
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", dict(R1_AWQ, modules_to_not_convert=[
        "kv_a_proj_with_mqa"])), vllm_version="0.28.0", tp=8, host=BIG)
    assert (v.check, v.message) == (
        "MI_fused_shards", "Detected some but not all shards of model.layers.0.self_attn.fused_qkv_a_proj are "
        "quantized. All shards of fused layers to have the same precision.")


def test_deepseek_sequence_parallel_moe_with_a_named_all2all_backend_is_not_modelled():
    v = kvguard.check(catalog_config("deepseek-ai/DeepSeek-R1", R1_AWQ), vllm_version="0.24.0", tp=2, dp=4,
                      enable_expert_parallel=True, all2all_backend="naive", host=BIG)
    assert v.check is None and any("sequence-parallel MoE path with --all2all-backend naive" in r
                                   for r in skipped_reasons(v))


@pytest.mark.parametrize("version,message", [
    ("0.10.2", _FP8_ONLY),
    ("0.11.0", _FP8_ONLY),
    ("0.11.1", "EPLB is not supported AWQMoEMethod. " + _FP8_ONLY),
])
def test_explicit_awq_with_eplb_is_refused_on_the_cuda_host(version, message):
    # --quantization awq: AWQ Marlin's override declines (the user named plain awq) and so does ipex's on a CUDA
    # host (it claims AWQ / GPTQ checkpoints only on CPU / XPU up to 0.11.x), so AWQConfig builds the experts:
    # 128 experts over tp 2 x dp 4 = 8 EP ranks keep 14336 each (Marlin MoE), and FusedMoE refuses EPLB.
    c = qwen3(AWQ, moe_intermediate_size=14336, torch_dtype="float16")
    v = kvguard.check(c, vllm_version=version, tp=2, dp=4, enable_expert_parallel=True, enable_eplb=True,
                      num_redundant_experts=8, quantization="awq", host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_eplb_unsupported", "NotImplementedError", message, None)


@pytest.mark.parametrize("version,refused", [("0.11.1", False), ("0.14.1", False), ("0.15.0", True),
                                             ("0.24.0", True), ("0.33.0", True)])
def test_minimax_m2_fuses_qkv_shards_for_awq_from_0_15(version, refused):
    # AWQ modules_to_not_convert ["q_proj"]: MiniMaxM2ForCausalLM declares its packed-modules mapping (qkv_proj ->
    # q_proj, k_proj, v_proj) from 0.15.0 only.  Before, is_layer_skipped matches the fused name by substring
    # ("q_proj" is no part of "qkv_proj") and quantizes the whole layer; from 0.15.0 it reads the shards, of which
    # only q_proj is listed, and refuses.
    q = dict(AWQ, modules_to_not_convert=["q_proj"])
    v = kvguard.check(catalog_config("MiniMaxAI/MiniMax-M2.5", q, torch_dtype="float16"), vllm_version=version,
                      tp=4, host=BIG, trust_remote_code=True)
    if not refused:
        assert v.ok and not any("model construction" in r for r in skipped_reasons(v)), (version, skipped_reasons(v))
        return
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_fused_shards", "ValueError", "Detected some but not all shards of "
        "model.layers.0.self_attn.qkv_proj are quantized. All shards of fused layers to have the same precision.", None)


@pytest.mark.parametrize("version,mlp_only_layers,refused", [
    ("0.11.0", [0], False), ("0.11.1", [], False), ("0.11.1", [0], True), ("0.23.0", [], False),
    ("0.23.0", [0], True), ("0.24.0", [0], False)])
def test_qwen3_moe_gate_up_shards_only_with_mlp_only_layers(version, mlp_only_layers, refused):
    # AWQ modules_to_not_convert ["gate"], layer 0 a dense MLP (by mlp_only_layers, else by decoder_sparse_step 2).
    # From 0.11.1 Qwen3MoeForCausalLM adds gate_up_proj to its packed-modules mapping only when mlp_only_layers is
    # set: without it the dense gate_up_proj is matched by its own name ("gate" is part of it: unquantized); with it
    # shard by shard (gate_proj listed, up_proj not) and refused up to 0.23.x; 0.24.0+ matches the fused name first;
    # up to 0.11.0 is_layer_skipped_awq matches the fused name only.
    q = dict(AWQ, modules_to_not_convert=["gate"])
    c = qwen3(q, num_hidden_layers=2, mlp_only_layers=mlp_only_layers, decoder_sparse_step=1 if mlp_only_layers else 2,
              torch_dtype="float16")
    v = kvguard.check(c, vllm_version=version, tp=1, host=BIG)
    if not refused:
        assert v.ok and not any("model construction" in r for r in skipped_reasons(v)), (version, skipped_reasons(v))
        return
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_fused_shards", "ValueError", "Detected some but not all shards of "
        "model.layers.0.mlp.gate_up_proj are quantized. All shards of fused layers to have the same precision.", None)
