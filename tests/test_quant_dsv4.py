"""DeepSeek-V4 checkpoints: the FP8 override of ModelConfig._verify_quantization and VllmConfig's
activation-dtype check of the method it builds (kvguard.quant.dsv4_fp8, kvguard.quant.verify).

Expected values are written by hand from the release sources (DeepseekV4FP8Config.override_quantization_method,
the overrides list of vllm/config/model.py, Fp8Config.get_supported_act_dtypes); the differential tier
(tests/upstream/test_quant_verify.py, its DeepSeek-V4 cases) compares with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant.verify import act_dtype_refusal, verify
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
FLASH, PRO = "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro"


def cfg(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("user", [None, "fp8", "deepseek_v4_fp8", "awq", "modelopt"])
def test_the_override_claims_a_v4_fp8_checkpoint_whatever_is_named(version, user):
    # the override returns deepseek_v4_fp8 for model_type deepseek_v4: ModelConfig's quantization becomes it and
    # nothing can mismatch (the checkpoint's method is replaced too)
    out = verify(cfg(FLASH), cfg(FLASH), resolve(version), user)
    assert (out.check, out.quantization, out.unmodelled, out.deferred) == (None, "deepseek_v4_fp8", None, False)


def test_before_0_20_the_checkpoint_is_plain_fp8():
    out = verify(cfg(PRO), cfg(PRO), resolve("0.19.1"), None)
    assert out.quantization == "fp8"
    assert dict(verify(cfg(PRO), cfg(PRO), resolve("0.19.1"), "awq").values) == {"checkpoint": "fp8", "user": "awq"}


def test_named_method_claims_other_fp8_checkpoints():
    qwen = cfg("Qwen/Qwen3-32B-FP8")
    assert verify(qwen, qwen, resolve("0.28.0"), "deepseek_v4_fp8").quantization == "deepseek_v4_fp8"
    # not claimed without the name: the ordinary mismatch
    assert verify(qwen, qwen, resolve("0.28.0"), "awq").check == "MC_quant_mismatch"
    # an AWQ checkpoint is not an FP8 one: the name mismatches
    awq = cfg("Qwen/Qwen2.5-72B-Instruct-AWQ")
    assert dict(verify(awq, awq, resolve("0.28.0"), "deepseek_v4_fp8").values) == {
        "checkpoint": "awq", "user": "deepseek_v4_fp8"}


def test_humming_and_gguf_order():
    # --quantization humming puts Humming's override first (every release 0.20.0+)
    assert verify(cfg(FLASH), cfg(FLASH), resolve("0.33.0"), "humming").quantization == "humming"
    # 0.20.0 lists gguf after deepseek_v4_fp8 among the overrides: DeepSeek-V4's claim comes first
    assert verify(cfg(FLASH), cfg(FLASH), resolve("0.20.0"), "gguf").quantization == "deepseek_v4_fp8"


def test_other_v4_model_types_and_quark_are_left_open():
    text = dict(cfg(FLASH), model_type="deepseek_v41")
    assert "deepseek_v41" in verify(text, text, resolve("0.33.0"), None).unmodelled
    # before 0.30.0 CUDA builds DeepSeek-V4's own class, which claims model type deepseek_v4 only
    assert verify(text, text, resolve("0.29.0"), None).quantization == "fp8"
    quark = dict(cfg(FLASH), quantization_config={"quant_method": "quark"})
    assert verify(quark, quark, resolve("0.28.0"), None).unmodelled


def test_the_act_dtype_check_of_deepseek_v4_fp8():
    verdict = kvguard.check(cfg(FLASH), vllm_version="0.24.0", dtype="float32", host=H100)
    assert (verdict.ok, verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by) == (
        False, "verify", "VC_quant_act_dtype", "ValueError", "VllmConfig")
    assert verdict.message == ("torch.float32 is not supported for quantization method deepseek_v4_fp8. "
                               "Supported dtypes: [torch.bfloat16, torch.float16]")
    # --quantization fp8 ends with the same method (the override), the same refusal
    named = kvguard.check(cfg(PRO), vllm_version="0.33.0", quantization="fp8", dtype="float", host=H100)
    assert named.message == verdict.message
    for dtype in ("auto", "float16", "bfloat16"):
        ok = kvguard.check(cfg(FLASH), vllm_version="0.33.0", tp=8, dtype=dtype, host=H100)
        assert "VC_quant_act_dtype" not in [s.check for s in ok.skipped] and ok.check != "VC_quant_act_dtype"


def test_the_method_config_refusals_stay_open():
    flash = cfg(FLASH)
    static = dict(flash, quantization_config=dict(flash["quantization_config"], activation_scheme="static"))
    values, why = act_dtype_refusal(static, static, resolve("0.28.0"), None, "float32",
                                    verify(static, static, resolve("0.28.0"), None))
    assert values is None and "static activation_scheme" in why
    # a checkpoint named deepseek_v4_fp8 builds the same Fp8Config: decided
    named = dict(flash, quantization_config=dict(flash["quantization_config"], quant_method="deepseek_v4_fp8"))
    values, why = act_dtype_refusal(named, named, resolve("0.28.0"), None, "half",
                                    verify(named, named, resolve("0.28.0"), None))
    assert (values, why) == (None, None)
