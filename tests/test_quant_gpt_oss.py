"""Model construction of gpt-oss (kvguard.quant.gpt_oss): the MXFP4 checkpoints and the BF16 form.

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source:
gpt_oss.py's MLP block asserts ``config.intermediate_size % world_size == 0`` with torch.distributed's world size
(every release, a bare assert: empty message); FusedMoE's EPLB refusal of GptOssMxfp4MoEMethod from 0.24.0
(routed_experts.py: "EPLB is not supported GptOssMxfp4MoEMethod.").  tests/upstream/test_quant.py
(gpt_oss_variants) and the golden cases mi-gptoss-* compare with the releases themselves.
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
BIG = kvguard.Host.cuda_node(gpus_per_node=128)
VERSIONS = ["0.10.2", "0.11.0", "0.13.0", "0.16.0", "0.20.0", "0.24.0", "0.28.0", "0.33.0"]


def gpt_oss(size: str = "120b", **patch) -> dict:
    c = copy.deepcopy(catalog.lookup(f"openai/gpt-oss-{size}").config)
    c.update(patch)
    return c


def _mi_reason(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def _decided(v) -> bool:
    return "MI_model" not in [s.check for s in v.skipped]


@pytest.mark.parametrize("version", VERSIONS)
def test_world_of_128_does_not_divide_2880(version):
    # intermediate 2880 = 2^6 x 45: tp 8 x dp 16 is a world of 128 (2880 / 128 = 22.5): the bare assert, with or
    # without expert parallel (the world is not the MoE TP size)
    for ep in (False, True):
        v = kvguard.check(gpt_oss(), vllm_version=version, tp=8, dp=16, enable_expert_parallel=ep, host=BIG)
        assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
            False, "model_init", "MI_gptoss_world", "AssertionError", "", None), (ep, v.check, v.message)


@pytest.mark.parametrize("version", VERSIONS)
def test_tp8_builds_on_the_default_host(version):
    # world 8 divides 2880; 64 heads / 8, 8 KV heads / 8; the MXFP4 experts pad 360 per rank and check nothing
    for size in ("120b", "20b"):
        v = kvguard.check(gpt_oss(size), vllm_version=version, tp=8, host=H100)
        assert v.ok and _decided(v), (size, v.check, _mi_reason(v))


def test_pipeline_parallel_counts_in_the_world():
    # tp 64 alone: world 64 (2880 / 64 = 45) builds; with pp 2 the world is 128: refused
    facts = model_facts(gpt_oss(), vllm_version="0.28.0")
    release = resolve("0.28.0")
    assert outcome(facts, release, Launch(tp=64)).check is None
    assert outcome(facts, release, Launch(tp=64, pp=2)).check == "MI_gptoss_world"


def test_pcp_counts_from_0_12():
    # intermediate 2880, tp 8 x pcp 16 = 128: the world includes pcp from 0.12.0 (ParallelConfig.world_size)
    facts = model_facts(gpt_oss(), vllm_version="0.13.0")
    assert outcome(facts, resolve("0.13.0"), Launch(tp=8, pcp=16)).check == "MI_gptoss_world"
    assert outcome(facts, resolve("0.13.0"), Launch(tp=8, pcp=4)).check is None


def test_dp_7_refused_in_every_release():
    # 2880 / 7 is not whole: -dp 7 (world 7) refused with or without expert parallel
    for version in ("0.10.2", "0.20.0", "0.33.0"):
        v = kvguard.check(gpt_oss(), vllm_version=version, dp=7, enable_expert_parallel=True, host=H100)
        assert (v.check, v.exc_type, v.message) == ("MI_gptoss_world", "AssertionError", "")


@pytest.mark.parametrize(("version", "check", "exc_type", "message"), [
    ("0.10.2", "W_eplb_no_moe_model", "AssertionError", ""),
    ("0.20.0", "W_eplb_no_moe_model", "AssertionError", ""),
    ("0.23.0", "W_eplb_no_moe_model", "AssertionError", ""),
    ("0.24.0", "MI_eplb_unsupported", "NotImplementedError", "EPLB is not supported GptOssMxfp4MoEMethod."),
    ("0.28.0", "MI_eplb_unsupported", "NotImplementedError", "EPLB is not supported GptOssMxfp4MoEMethod."),
    ("0.33.0", "MI_eplb_unsupported", "NotImplementedError", "EPLB is not supported GptOssMxfp4MoEMethod.")])
def test_eplb_refused_in_every_release(version, check, exc_type, message):
    # gpt-oss implements no MixtureOfExperts: up to 0.23.x the model builds and the V1 runner's first EPLB step
    # asserts on the state it never registered a model with; from 0.24.0 the MoE layer reads --enable-eplb itself
    # and refuses the MXFP4 method first
    v = kvguard.check(gpt_oss(), vllm_version=version, dp=8, enable_expert_parallel=True, enable_eplb=True, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, check, exc_type, message)
    assert v.stage == ("worker" if check.startswith("W_") else "model_init")


@pytest.mark.parametrize("version", ["0.20.0", "0.22.1", "0.23.0"])
def test_eplb_accepted_on_the_v2_model_runner(version):
    # the V2 runner's EPLB controller steps only the models it registered
    v = kvguard.check(gpt_oss(), vllm_version=version, dp=8, enable_expert_parallel=True, enable_eplb=True, host=H100,
                      env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert v.ok is True


def test_bf16_form_refusals_decided_acceptance_open():
    # no quantization_config: the world assert applies (tp 8 x dp 16); an accepted layout reaches the unquantized
    # experts' backend choice, which is not modelled
    plain = gpt_oss()
    plain.pop("quantization_config")
    v = kvguard.check(plain, vllm_version="0.33.0", tp=8, dp=16, host=BIG)
    assert (v.check, v.exc_type) == ("MI_gptoss_world", "AssertionError")
    ok = kvguard.check(plain, vllm_version="0.33.0", tp=8, host=H100)
    assert "unquantized experts of GptOssForCausalLM" in _mi_reason(ok)


def test_host_and_selection_inputs_leave_the_experts_open():
    b200 = kvguard.Host(**{**H100.__dict__, "gpu_capability": 100})
    v = kvguard.check(gpt_oss(), vllm_version="0.33.0", tp=8, host=b200)
    assert "compute capability 90" in _mi_reason(v)
    v = kvguard.check(gpt_oss(), vllm_version="0.20.0", tp=8, host=H100, env={"VLLM_MXFP4_USE_MARLIN": "1"})
    assert "VLLM_MXFP4_USE_MARLIN" in _mi_reason(v)
    v = kvguard.check(gpt_oss(), vllm_version="0.33.0", tp=8, host=H100, moe_backend="marlin")
    assert "--moe-backend marlin" in _mi_reason(v)
    # a refusal before the experts reads neither the GPU nor the environment
    v = kvguard.check(gpt_oss(), vllm_version="0.33.0", tp=8, dp=16, host=kvguard.Host(
        **{**BIG.__dict__, "gpu_capability": 100}))
    assert v.check == "MI_gptoss_world"


def test_other_quantization_of_gpt_oss_stays_open():
    fp8 = gpt_oss(quantization_config={"quant_method": "fp8", "weight_block_size": [128, 128]})
    v = kvguard.check(fp8, vllm_version="0.28.0", tp=8, host=H100)
    assert not _decided(v)


def test_audit_names_the_world_assert():
    # dp 16: tp 8 makes a world of 128 (2880 / 128 = 22.5), tp 4 a world of 64 (45): refused from tp 8 up
    from kvguard.quant import quant_audit

    audit = quant_audit(model_facts(gpt_oss(), vllm_version="0.33.0"), resolve("0.33.0"), dp=16)
    assert [f["tp"] for f in audit["forbidden_tp"]] == [8, 16, 32, 64]
    assert audit["rules"] == ["gpt-oss's MLP block asserts that torch.distributed's world size (tp x pp x pcp x dp, "
                              "expert parallel or not) divides the intermediate size 2880: refused at tp 8, 16, 32, 64"]
    assert any("MXFP4" in a for a in audit["assumptions"])
