"""--enable-eplb with a MoE model that implements no MixtureOfExperts (row W_eplb_no_moe_model).

Expected values written by hand from the releases' worker code (vllm/v1/worker/gpu_model_runner.py::eplb_step,
vllm/v1/worker/gpu/eplb_utils.py::EPLBController.step) and the models' interfaces (checked against the releases'
own is_mixture_of_experts by tests/upstream/test_quant.py::test_eplb_registration_of_the_model_agrees).
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node()
EPLB = {"tensor_parallel_size": 4, "data_parallel_size": 2, "enable_expert_parallel": True, "enable_eplb": True}


def config(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


def minimax() -> dict:
    cfg = config("MiniMaxAI/MiniMax-M2.5")
    cfg.pop("auto_map", None)  # served as the model type the release registers
    return cfg


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0"])
def test_minimax_m2_refused_by_the_v1_runner_by_default(version):
    v = kvguard.check(minimax(), EPLB, vllm_version=version, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "worker", "W_eplb_no_moe_model", "AssertionError", "", None)


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_minimax_m2_on_the_default_v2_runner(version):
    # from 0.29.0 the V2 runner is the default where Triton imports: it steps no unregistered model
    assert kvguard.check(minimax(), EPLB, vllm_version=version, host=H100).ok is True
    v1 = kvguard.check(minimax(), EPLB, vllm_version=version, host=H100, env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
    assert (v1.ok, v1.check, v1.exc_type) == (False, "W_eplb_no_moe_model", "AssertionError")


def test_without_eplb_nothing_changes():
    layout = dict(EPLB, enable_eplb=False)
    assert kvguard.check(minimax(), layout, vllm_version="0.28.0", host=H100).ok is True


@pytest.mark.parametrize(("version", "refused"), [("0.10.2", True), ("0.11.0", False), ("0.20.0", False)])
def test_mixtral_implements_mixture_of_experts_from_0_11(version, refused):
    v = kvguard.check(config("mistralai/Mixtral-8x7B-v0.1"), EPLB, vllm_version=version, host=H100)
    if refused:
        assert (v.ok, v.check, v.exc_type, v.message) == (False, "W_eplb_no_moe_model", "AssertionError", "")
    else:
        assert v.ok is True


def test_a_moe_language_model_under_a_wrapper_is_not_this_refusal():
    # Gemma 4's language model implements MixtureOfExperts (the runner unwraps it): the check does not fire;
    # what EPLB does with layers the model hands no EPLB stays skipped
    v = kvguard.check(config("google/gemma-4-26B-A4B"), EPLB, vllm_version="0.28.0", host=H100)
    assert v.check != "W_eplb_no_moe_model"
    assert "take no EPLB" in {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def test_a_skipped_construction_is_not_decided_after():
    # an environment variable that moves gpt-oss's MXFP4 MoE backend leaves the construction skipped: the worker
    # step after it is not claimed either
    cfg = config("openai/gpt-oss-120b")
    v = kvguard.check(cfg, EPLB, vllm_version="0.20.0", host=H100, env={"VLLM_MXFP4_USE_MARLIN": "1"})
    assert v.ok is True and v.check is None
    assert "MI_model" in [s.check for s in v.skipped]


#: DeepSeek-V4's CUDA model implements MixtureOfExperts from 0.23.0 (vllm/models/deepseek_v4/nvidia/model.py,
#: ``DeepseekV4MixtureOfExperts``); 0.20.0 - 0.22.x's (vllm/model_executor/models/deepseek_v4.py, then the nvidia
#: package) do not, and their V1 worker's first EPLB step asserts (vllm/v1/worker/gpu_model_runner.py::eplb_step)
DSV4_EPLB = {"tensor_parallel_size": 2, "enable_expert_parallel": True, "enable_eplb": True,
             "kv_cache_dtype": "fp8"}


@pytest.mark.parametrize(("version", "refused"), [("0.20.0", True), ("0.21.0", True), ("0.22.1", True),
                                                  ("0.23.0", False), ("0.28.0", False)])
def test_deepseek_v4_implements_mixture_of_experts_from_0_23(version, refused):
    v = kvguard.check(config("deepseek-ai/DeepSeek-V4-Flash"), DSV4_EPLB, vllm_version=version, host=H100)
    if refused:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
            False, "worker", "W_eplb_no_moe_model", "AssertionError", "", None)
    else:
        assert v.ok is True


def test_deepseek_v4_on_the_v2_runner_or_without_eplb():
    # the V2 runner steps only the models it registered; without --enable-eplb there is no EPLB step
    cfg = config("deepseek-ai/DeepSeek-V4-Flash")
    assert kvguard.check(cfg, DSV4_EPLB, vllm_version="0.22.1", host=H100,
                         env={"VLLM_USE_V2_MODEL_RUNNER": "1"}).ok is True
    assert kvguard.check(cfg, dict(DSV4_EPLB, enable_eplb=False), vllm_version="0.22.1", host=H100).ok is True
