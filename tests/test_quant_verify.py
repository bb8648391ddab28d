"""ModelConfig._verify_quantization (kvguard.quant.verify): MC_quant_mismatch / _unknown / _deprecated.

Expected values are written by hand from the release sources (vllm/config/model.py::_verify_quantization,
vllm/model_executor/layers/quantization/__init__.py) and the messages the releases print; the differential
tier (tests/upstream/test_quant_verify.py) compares with the releases themselves.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.quant.verify import methods, verify
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()

_MISMATCH = ("Quantization method specified in the model config ({}) does not match the quantization method "
             "specified in the `quantization` argument ({}).")
#: vllm 0.28.0 QuantizationMethods, in the order of the Literal
_METHODS_0_28 = ["awq", "auto_awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8",
                 "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming",
                 "compressed-tensors", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4",
                 "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel",
                 "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8"]


def cfg(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


def plain_with(quant: dict) -> dict:
    return dict(cfg("Qwen/Qwen3-8B"), quantization_config=quant)


def test_fp8_checkpoint_with_awq_is_refused_in_model_config():
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B-FP8"), vllm_version="0.28.0", tp=2, quantization="awq", host=H100)
    assert (verdict.ok, verdict.stage, verdict.check) == (False, "model_config", "MC_quant_mismatch")
    assert (verdict.exc_type, verdict.wrapped_by) == ("ValueError", "ModelConfig")
    assert verdict.message == _MISMATCH.format("fp8", "awq")


def test_cli_exit_status_of_the_mismatch(capsys):
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve",
                  "Qwen/Qwen3-32B-FP8", "-tp", "2", "--quantization", "awq"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["check"] == "MC_quant_mismatch"
    # no override reads the platform for an FP8 checkpoint: decided on any host
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--unknown-host", "--", "vllm", "serve",
                  "Qwen/Qwen3-32B-FP8", "-tp", "2", "--quantization", "awq"])
    assert status == 1 and json.loads(capsys.readouterr().out)["check"] == "MC_quant_mismatch"
    # an AWQ checkpoint: the CPU / XPU platforms have AWQ methods whose overrides claim it
    argv = ["vllm", "serve", "Qwen/Qwen2.5-72B-Instruct-AWQ", "-tp", "2", "--quantization", "gptq"]
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--", *argv])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["check"] == "MC_quant_mismatch" and "platform='cuda'" in out["assumptions"]
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--unknown-host", "--", *argv])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and "MC_quant_mismatch" in [s["check"] for s in out["skipped"]]


def test_unknown_method_prints_the_release_list():
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", quantization="foo", host=H100)
    assert verdict.check == "MC_quant_unknown" and verdict.wrapped_by == "ModelConfig"
    assert verdict.message == f"Unknown quantization method: foo. Must be one of {_METHODS_0_28!r}."
    assert methods(resolve("0.28.0"))[0] == _METHODS_0_28


def test_upper_case_quantization_is_lower_cased_first():
    out = verify(plain_with({"quant_method": "bogus"}), {}, resolve("0.28.0"), "FP8")
    assert (out.check, dict(out.values)) == ("MC_quant_mismatch", {"checkpoint": "bogus", "user": "fp8"})
    assert verify(cfg("Qwen/Qwen3-32B-FP8"), {}, resolve("0.28.0"), "FP8").check is None


def test_deprecated_method_from_0_14_0():
    message = ("('The quantization method %s is deprecated and will be removed in future versions of vLLM. To bypass, "
               "set `--allow-deprecated-quantization`.', 'fbgemm_fp8')")
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.14.0", quantization="fbgemm_fp8", host=H100)
    assert (verdict.check, verdict.exc_type, verdict.message) == ("MC_quant_deprecated", "ValueError", message)
    allowed = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.14.0", quantization="fbgemm_fp8",
                            allow_deprecated_quantization=True, host=H100)
    assert allowed.ok and "MI_model" in [s.check for s in allowed.skipped]
    older = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.13.0", quantization="fbgemm_fp8", host=H100)
    assert older.ok


def test_deprecated_flag_parsed_from_the_command_line():
    argv = ["vllm", "serve", "Qwen/Qwen3-32B", "--quantization", "fbgemm_fp8", "--allow-deprecated-quantization"]
    assert run(["check", "--vllm-version", "0.28.0", "--", *argv]) == 0
    # 0.13.0 has no such flag: argparse refuses it
    assert run(["check", "--vllm-version", "0.13.0", "--", *argv]) == 1


def test_quantization_config_without_quant_method():
    quant = {"bits": 4}
    # 0.10.2 keeps the empty method: ModelConfig ends with quantization "" and refuses it as unknown
    out = verify(plain_with(quant), {}, resolve("0.10.2"), None)
    assert out.check == "MC_quant_unknown" and out.values["method"] == ""
    # 0.11.0 on: the empty method reads as None (unquantized) ...
    assert verify(plain_with(quant), {}, resolve("0.11.0"), None).check is None
    # ... and differs from any --quantization
    out = verify(plain_with(quant), {}, resolve("0.11.0"), "awq")
    assert (out.check, out.values["checkpoint"]) == ("MC_quant_mismatch", None)
    verdict = kvguard.check(plain_with(quant), vllm_version="0.28.0", quantization="awq", host=H100)
    assert verdict.message == _MISMATCH.format("None", "awq")


def test_compressed_tensors_spelling_and_compression_config():
    out = verify(plain_with({"quant_method": "compressed_tensors"}), {}, resolve("0.28.0"), "fp8")
    assert dict(out.values) == {"checkpoint": "compressed-tensors", "user": "fp8"}
    top = dict(cfg("Qwen/Qwen3-8B"), compression_config={"quant_method": "compressed-tensors"})
    verdict = kvguard.check(top, vllm_version="0.28.0", quantization="experts_int8", host=H100)
    assert verdict.message == _MISMATCH.format("compressed-tensors", "experts_int8")


def test_awq_checkpoint_overrides_per_release():
    awq = cfg("Qwen/Qwen2.5-72B-Instruct-AWQ")  # 4-bit, zero_point true, group_size 128
    # another family's name: no override claims the checkpoint
    assert verify(awq, {}, resolve("0.20.0"), "gptq").check == "MC_quant_mismatch"
    # auto_awq is a method from 0.24.0 (AutoAWQConfig claims the checkpoint); before, it is a mismatch
    out = verify(awq, {}, resolve("0.20.0"), "auto_awq")
    assert dict(out.values) == {"checkpoint": "awq", "user": "auto_awq"}
    assert verify(awq, {}, resolve("0.24.0"), "auto_awq").deferred
    # the Marlin conversion claims a checkpoint that fits Marlin
    assert verify(awq, {}, resolve("0.20.0"), "awq_marlin").deferred
    odd = copy.deepcopy(awq)
    odd["quantization_config"]["group_size"] = 256
    assert verify(odd, {}, resolve("0.20.0"), "awq_marlin").unmodelled


def test_gptq_bitblas_is_left_open_up_to_0_15_1():
    gptq = plain_with({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True})
    assert verify(gptq, {}, resolve("0.15.1"), "gptq_bitblas").unmodelled
    # 0.16.0 has no BitBLAS override (nor the method): the names differ
    assert verify(gptq, {}, resolve("0.16.0"), "gptq_bitblas").check == "MC_quant_mismatch"
    assert verify(gptq, {}, resolve("0.22.0"), "marlin").deferred


@pytest.mark.parametrize("quant,user,version", [
    ({"quant_method": "modelopt", "quant_algo": ["FP8"]}, "fp8", "0.28.0"),
    ({"quant_method": "quark"}, "deepseek_v4_fp8", "0.28.0"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, "moe_wna16", "0.28.0"),
    ({"quant_method": "gptq", "checkpoint_format": "marlin_24"}, "gptq_marlin_24", "0.14.0"),
])
def test_overrides_kvguard_leaves_open(quant, user, version):
    out = verify(plain_with(quant), {}, resolve(version), user)
    assert out.unmodelled and out.check is None
    verdict = kvguard.check(plain_with(quant), vllm_version=version, quantization=user, host=H100)
    assert "MC_quant_mismatch" in [s.check for s in verdict.skipped]


def test_humming_refusal_is_not_listed_as_skipped_without_quantization_humming():
    """humming.py's refusal is raised only by its own override, asked only when --quantization names humming: a
    launch that does not name it never lists that check, even when the other quantization checks are left open."""
    verdict = kvguard.check(plain_with({"quant_method": "auto-round"}), vllm_version="0.33.0", host=H100)
    skipped = [s.check for s in verdict.skipped]
    assert "MC_quant_mismatch" in skipped and "MC_quant_gpt_oss_humming" not in skipped
    verdict = kvguard.check(plain_with({"quant_method": "auto-round"}), vllm_version="0.33.0", quantization="Humming",
                            host=H100)
    assert "MC_quant_gpt_oss_humming" in [s.check for s in verdict.skipped]


def test_gguf_is_a_mismatch_outside_its_override_releases():
    out = verify(plain_with({"quant_method": "fp8"}), {}, resolve("0.24.0"), "gguf")
    assert dict(out.values) == {"checkpoint": "fp8", "user": "gguf"}
    # 0.20.0 - 0.23.0: GGUFConfig's override claims any checkpoint when named; humming's from 0.20.0
    assert verify(plain_with({"quant_method": "fp8"}), {}, resolve("0.23.0"), "gguf").quantization == "gguf"
    assert verify(plain_with({"quant_method": "fp8"}), {}, resolve("0.33.0"), "humming").quantization == "humming"
    assert verify(plain_with({"quant_method": "fp8"}), {}, resolve("0.14.1"), "humming").check == "MC_quant_mismatch"


def test_online_fp8_is_decided():
    # --quantization fp8 of an unquantized checkpoint: per-tensor FP8 built while loading, no check skipped
    for version in ("0.10.2", "0.20.0", "0.28.0", "0.33.0"):
        verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version=version, quantization="fp8", tp=4, host=H100)
        assert verdict.ok, version
        assert not [s for s in verdict.skipped if s.check in ("MI_model", "VC_quant_act_dtype")], version


def test_other_online_methods_stay_skipped_with_their_reason():
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", quantization="experts_int8", host=H100)
    reason = next(s.reason for s in verdict.skipped if s.check == "MI_model")
    assert reason == ("online quantization of an unquantized checkpoint (--quantization experts_int8: the method's "
                      "weight creation) is not modelled")


def awq_of_dtype(dtype):
    config = cfg("Qwen/Qwen2.5-72B-Instruct-AWQ")  # its config.json names no dtype
    if dtype is not None:
        config["torch_dtype"] = dtype
    return config


def test_plain_awq_refuses_bfloat16_up_to_0_23():
    # AWQConfig.get_supported_act_dtypes() is [torch.half]; --quantization awq keeps the plain method up to 0.23.0
    verdict = kvguard.check(awq_of_dtype("bfloat16"), vllm_version="0.23.0", tp=2, quantization="awq", host=H100)
    assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by) == (
        "verify", "VC_quant_act_dtype", "ValueError", "VllmConfig")
    assert verdict.message == ("torch.bfloat16 is not supported for quantization method awq. Supported dtypes: "
                               "[torch.float16]")
    # 0.24.0: AutoAWQConfig takes the name (float16 and bfloat16)
    assert kvguard.check(awq_of_dtype("bfloat16"), vllm_version="0.24.0", tp=2, quantization="awq",
                         host=H100).check != "VC_quant_act_dtype"
    # without --quantization the Marlin method takes a 4-bit, zero-point, group-128 checkpoint
    assert kvguard.check(awq_of_dtype("bfloat16"), vllm_version="0.23.0", tp=2, host=H100).check != \
        "VC_quant_act_dtype"


def test_float32_refused_by_fp8_and_marlin_methods():
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B-FP8"), vllm_version="0.10.2", dtype="float", host=H100)
    assert verdict.message == ("torch.float32 is not supported for quantization method fp8. Supported dtypes: "
                               "[torch.bfloat16, torch.float16]")
    verdict = kvguard.check(awq_of_dtype("float16"), vllm_version="0.20.0", tp=2, dtype="float32", host=H100)
    assert verdict.message == ("torch.float32 is not supported for quantization method awq_marlin. Supported dtypes: "
                               "[torch.float16, torch.bfloat16]")
    verdict = kvguard.check(awq_of_dtype("float16"), vllm_version="0.28.0", tp=2, dtype="float32", host=H100)
    assert verdict.message.startswith("torch.float32 is not supported for quantization method auto_awq.")


def test_act_dtype_left_open_without_a_config_dtype():
    # the dtype then comes from the weights' safetensors metadata
    verdict = kvguard.check(awq_of_dtype(None), vllm_version="0.23.0", tp=2, quantization="awq", host=H100)
    assert verdict.ok
    reason = next(s.reason for s in verdict.skipped if s.check == "VC_quant_act_dtype")
    assert "safetensors metadata" in reason
    # an explicit --dtype decides it
    verdict = kvguard.check(awq_of_dtype(None), vllm_version="0.23.0", tp=2, quantization="awq", dtype="half",
                            host=H100)
    assert "VC_quant_act_dtype" not in [s.check for s in verdict.skipped]
    # an unquantized checkpoint builds no quantization config
    assert "VC_quant_act_dtype" not in [s.check for s in kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.23.0",
                                                                        host=H100).skipped]


def test_online_fp8_refuses_float32():
    # Fp8Config / the online FP8 config: get_supported_act_dtypes() is [torch.bfloat16, torch.half]
    for version in ("0.10.2", "0.20.0", "0.33.0"):
        verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version=version, quantization="fp8", dtype="float32",
                                host=H100)
        assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by) == (
            "verify", "VC_quant_act_dtype", "ValueError", "VllmConfig"), version
        assert verdict.message == ("torch.float32 is not supported for quantization method fp8. Supported dtypes: "
                                   "[torch.bfloat16, torch.float16]")
    # the method is lower-cased by ModelConfig first
    assert kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.20.0", quantization="FP8", dtype="float",
                         host=H100).check == "VC_quant_act_dtype"
    for dtype in ("bfloat16", "float16", "half", "auto"):
        assert kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.20.0", quantization="fp8", dtype=dtype,
                             host=H100).ok, dtype


def test_other_online_methods_act_dtype_left_open():
    verdict = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.10.2", quantization="experts_int8",
                            dtype="float32", host=H100)
    reason = next(s.reason for s in verdict.skipped if s.check == "VC_quant_act_dtype")
    assert reason.startswith("VllmConfig's capability and activation-dtype checks of quantization method experts_int8")


# ---------------------------------------------------------------------------
# gpt-oss MXFP4 checkpoints (quant_method mxfp4): Mxfp4Config up to 0.19.1, GptOssMxfp4Config's override from
# 0.20.0; both take bfloat16 activations only (get_supported_act_dtypes), minimum capability 80

_MXFP4_REFUSAL = "torch.{} is not supported for quantization method {}. Supported dtypes: [torch.bfloat16]"


def gpt_oss(dtype=None, size="20b"):
    config = cfg(f"openai/gpt-oss-{size}")  # its config.json names no dtype
    if dtype is not None:
        config["torch_dtype"] = dtype
    return config


@pytest.mark.parametrize("version,method", [("0.10.2", "mxfp4"), ("0.19.1", "mxfp4"), ("0.20.0", "gpt_oss_mxfp4"),
                                            ("0.33.0", "gpt_oss_mxfp4")])
def test_gpt_oss_refuses_float16_and_float32(version, method):
    for dtype, shown in (("float16", "float16"), ("half", "float16"), ("float32", "float32"), ("float", "float32")):
        verdict = kvguard.check(gpt_oss(size="120b"), vllm_version=version, tp=8, dtype=dtype, host=H100)
        assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by) == (
            "verify", "VC_quant_act_dtype", "ValueError", "VllmConfig")
        assert verdict.message == _MXFP4_REFUSAL.format(shown, method)
    verdict = kvguard.check(gpt_oss(size="120b"), vllm_version=version, tp=8, dtype="bfloat16", host=H100)
    assert verdict.ok and "VC_quant_act_dtype" not in [s.check for s in verdict.skipped]


def test_gpt_oss_config_dtype_decides_auto():
    verdict = kvguard.check(gpt_oss("float16"), vllm_version="0.28.0", host=H100)
    assert verdict.message == _MXFP4_REFUSAL.format("float16", "gpt_oss_mxfp4")
    verdict = kvguard.check(gpt_oss("bfloat16"), vllm_version="0.14.1", host=H100)
    assert verdict.ok and "VC_quant_act_dtype" not in [s.check for s in verdict.skipped]
    # no dtype in config.json: vLLM reads the weights' safetensors metadata
    verdict = kvguard.check(gpt_oss(), vllm_version="0.28.0", host=H100)
    reason = next(s.reason for s in verdict.skipped if s.check == "VC_quant_act_dtype")
    assert "safetensors metadata" in reason
    # a CPU host: the check is CUDA's
    verdict = kvguard.check(gpt_oss(), vllm_version="0.28.0", dtype="half", host=kvguard.Host(platform="cpu"))
    assert "VC_quant_act_dtype" in [s.check for s in verdict.skipped]


def test_gpt_oss_quantization_argument_per_release():
    top = gpt_oss()
    # up to 0.19.1 no override claims an MXFP4 checkpoint: the plain mismatch
    out = verify(top, top, resolve("0.19.1"), "fp8")
    assert (out.check, dict(out.values)) == ("MC_quant_mismatch", {"checkpoint": "mxfp4", "user": "fp8"})
    out = verify(top, top, resolve("0.10.2"), "gpt_oss_mxfp4")
    assert (out.check, dict(out.values)) == ("MC_quant_mismatch", {"checkpoint": "mxfp4", "user": "gpt_oss_mxfp4"})
    assert verify(top, top, resolve("0.14.1"), "MXFP4").quantization == "mxfp4"
    assert verify(top, top, resolve("0.14.1"), None).quantization == "mxfp4"
    # 0.20.0+: GptOssMxfp4Config claims the gpt_oss checkpoint
    for user in (None, "mxfp4", "gpt_oss_mxfp4"):
        out = verify(top, top, resolve("0.20.0"), user)
        assert (out.check, out.quantization, out.unmodelled) == (None, "gpt_oss_mxfp4", None)
    # any other name, an unknown one included: GptOssMxfp4Config's override replaces it (no mismatch, no unknown)
    for version in ("0.20.0", "0.24.0", "0.33.0"):
        for user in ("fp8", "awq", "foo", "gguf", "moe_wna16", "modelopt", "compressed-tensors", "cpu_awq", "inc"):
            out = verify(top, top, resolve(version), user)
            assert (out.check, out.quantization, out.unmodelled) == (None, "gpt_oss_mxfp4", None), (version, user)
    # humming's override is asked first when named: it claims the checkpoint on 0.20.x, refuses it from 0.21.0
    out = verify(top, top, resolve("0.20.0"), "humming")
    assert (out.check, out.quantization, out.unmodelled) == (None, "humming", None)
    for version in ("0.21.0", "0.24.0", "0.33.0"):
        out = verify(top, top, resolve(version), "HUMMING")
        assert (out.check, out.unmodelled) == ("MC_quant_gpt_oss_humming", None)
    # an MXFP4 checkpoint of another model type: no override claims it (gguf / humming take any when named)
    other = plain_with({"quant_method": "mxfp4"})
    assert verify(other, other, resolve("0.20.0"), None).quantization == "mxfp4"
    out = verify(other, other, resolve("0.20.0"), "fp8")
    assert (out.check, dict(out.values)) == ("MC_quant_mismatch", {"checkpoint": "mxfp4", "user": "fp8"})
    assert verify(other, other, resolve("0.24.0"), "humming").quantization == "humming"
    assert verify(other, other, resolve("0.23.0"), "gguf").quantization == "gguf"
    assert verify(other, other, resolve("0.24.0"), "gguf").check == "MC_quant_mismatch"
    assert verify(other, other, resolve("0.19.1"), "fp8").check == "MC_quant_mismatch"
    # ModelOpt-style keys beside quant_method: left open
    assert verify(dict(top, quantization_config={"quant_method": "mxfp4", "quant_algo": "FP8"}), top,
                  resolve("0.14.1"), "fp8").unmodelled


_HUMMING_REFUSAL = "For gpt-oss model, use '--moe-backend humming' instead of '--quantization humming'."


def test_gpt_oss_other_quantization_names_through_check():
    """vllm 0.20.0+ mxfp4.py GptOssMxfp4Config.override_quantization_method and 0.21.0+ humming.py's refusal, through
    the whole check: the launch ends with gpt_oss_mxfp4 (its bfloat16-only activation check follows)."""
    for version in ("0.20.0", "0.33.0"):
        for user in ("fp8", "foo"):
            verdict = kvguard.check(gpt_oss("bfloat16", "120b"), vllm_version=version, tp=8, quantization=user,
                                    host=H100)
            assert verdict.ok and not [s for s in verdict.skipped if "quant" in s.check], (version, user)
            verdict = kvguard.check(gpt_oss("bfloat16", "120b"), vllm_version=version, tp=8, quantization=user,
                                    dtype="float16", host=H100)
            assert verdict.message == _MXFP4_REFUSAL.format("float16", "gpt_oss_mxfp4"), (version, user)
    verdict = kvguard.check(gpt_oss(size="120b"), vllm_version="0.28.0", tp=8, quantization="humming", host=H100)
    assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
        "model_config", "MC_quant_gpt_oss_humming", "ValueError", "ModelConfig", _HUMMING_REFUSAL)
    verdict = kvguard.check(gpt_oss(size="120b"), vllm_version="0.19.1", tp=8, quantization="fp8", host=H100)
    assert verdict.message == _MISMATCH.format("mxfp4", "fp8")


def test_gpt_oss_online_quantization_name_leaves_the_dtype_check_open():
    """0.20.0 - 0.21.0: an online-quantization name becomes a quantization_config that get_quant_config refuses
    for a checkpoint with one of its own (weight_utils.py); 0.22.0+ builds the checkpoint's config."""
    verdict = kvguard.check(gpt_oss("bfloat16"), vllm_version="0.20.0", quantization="fp8_per_tensor", host=H100)
    reason = next(s.reason for s in verdict.skipped if s.check == "VC_quant_act_dtype")
    assert "online-quantization name" in reason
    verdict = kvguard.check(gpt_oss("bfloat16"), vllm_version="0.22.1", quantization="fp8_per_tensor", host=H100)
    assert verdict.ok and "VC_quant_act_dtype" not in [s.check for s in verdict.skipped]


def test_gpt_oss_model_construction_is_decided():
    # (kvguard.quant.gpt_oss, tests/test_quant_gpt_oss.py): world 8 divides the intermediate size 2880 and the MXFP4
    # experts check no size on the default host
    verdict = kvguard.check(gpt_oss(size="120b"), vllm_version="0.28.0", tp=8, dtype="bfloat16", host=H100)
    assert verdict.ok and "MI_model" not in [s.check for s in verdict.skipped]


# ---------------------------------------------------------------------------
# ModelOpt checkpoints (kvguard.quant.modelopt): expected values from each release's _parse_quant_hf_config /
# _normalize_quantization_config and the ModelOpt override_quantization_method functions

_MO_PRODUCER = {"name": "modelopt", "version": "0.29.0"}


def mo_flat(algo: str, method: str = "modelopt", **extra) -> dict:
    """The newer export (e.g. nvidia/Llama-3.3-70B-Instruct-FP4's config.json)."""
    return plain_with({"quant_method": method, "quant_algo": algo, "producer": dict(_MO_PRODUCER),
                       "ignore": ["lm_head"], **extra})


def mo_nested(algo: str, **extra) -> dict:
    """The older export (hf_quant_config.json's layout): no quant_method; producer + quantization."""
    return plain_with({"producer": dict(_MO_PRODUCER), "quantization": {
        "quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"], **extra}})


_UNKNOWN_ALGO = "Unknown ModelOpt quant algo: {}"


@pytest.mark.parametrize("version", ["0.10.2", "0.14.0", "0.22.0", "0.33.0"])
def test_nvfp4_flat_export_claimed_whatever_quantization_names(version):
    # ModelOptNvFp4Config's override: "FP4" in the upper-cased flat quant_algo; it ignores --quantization
    for user in (None, "fp8", "modelopt", "foo"):
        out = verify(mo_flat("NVFP4", group_size=16), {}, resolve(version), user)
        assert (out.check, out.quantization, out.reads_platform) == (None, "modelopt_fp4", True), user


def test_nested_export_normalized_then_overridden():
    nested_fp8 = mo_nested("FP8")
    # the normalization writes quant_method modelopt; ModelOptFp8Config's override then claims it for any name
    assert verify(nested_fp8, {}, resolve("0.10.2"), None).quantization == "modelopt"
    assert verify(nested_fp8, {}, resolve("0.10.2"), "modelopt_fp4").quantization == "modelopt"
    # NVFP4 becomes modelopt_fp4, which no override reads up to 0.21.0 (exactly "modelopt"): a mismatch
    out = verify(mo_nested("NVFP4", group_size=16), {}, resolve("0.21.0"), "fp8")
    assert out.check == "MC_quant_mismatch" and dict(out.values) == {"checkpoint": "modelopt_fp4", "user": "fp8"}
    # 0.22.0: _extract_modelopt_quant_algo takes every method starting with "modelopt"
    assert verify(mo_nested("NVFP4", group_size=16), {}, resolve("0.22.0"), "fp8").quantization == "modelopt_fp4"


@pytest.mark.parametrize("version,algo,want", [
    ("0.13.0", "fp8", _UNKNOWN_ALGO.format("fp8")),        # compared as written up to 0.13.0
    ("0.14.0", "fp8", None),                               # upper-cased from 0.14.0
    ("0.13.0", "FP8_PB_WO", _UNKNOWN_ALGO.format("FP8_PB_WO")),
    ("0.14.0", "FP8_PER_CHANNEL_PER_TOKEN", None),
    ("0.32.0", "MIXED_PRECISION", _UNKNOWN_ALGO.format("MIXED_PRECISION")),
    ("0.33.0", "MIXED_PRECISION", None),
    ("0.33.0", "W4A8_AWQ", _UNKNOWN_ALGO.format("W4A8_AWQ")),
])
def test_normalization_refusal_per_release(version, algo, want):
    verdict = kvguard.check(mo_nested(algo), vllm_version=version, host=H100)
    if want is None:
        assert verdict.check not in ("MC_quant_modelopt_algo", "MC_quant_mismatch", "MC_quant_unknown")
    else:
        assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
            "model_config", "MC_quant_modelopt_algo", "ValueError", "ModelConfig", want)


def test_normalization_refusal_moves_before_the_dtype_in_0_14_0():
    gemma2 = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "torch_dtype": "bfloat16",
              "num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1024, "max_position_embeddings": 4096,
              "quantization_config": {"producer": dict(_MO_PRODUCER), "quantization": {"quant_algo": "W4A8_AWQ"}}}
    # 0.13.0: _verify_quantization normalizes after the dtype check; 0.14.0: model_arch_config, before it
    assert kvguard.check(gemma2, vllm_version="0.13.0", dtype="half", host=H100).check == "MC_dtype_float16"
    assert kvguard.check(gemma2, vllm_version="0.14.0", dtype="half", host=H100).check == "MC_quant_modelopt_algo"


def test_legacy_export_normalized_from_0_26_0():
    legacy = plain_with({"quantization": {"quant_algo": "W4A16_AWQ", "modelopt_quant_config": {}}})
    # before 0.26.0 nothing rewrites its empty quant_method: no quantization
    out = verify(legacy, {}, resolve("0.25.1"), None)
    assert (out.check, out.quantization) == (None, None)
    assert dict(verify(legacy, {}, resolve("0.26.0"), None).values) == {"algo": "W4A16_AWQ"}


def test_flat_algorithms_per_override_release():
    # FP8_PB_WO: ModelOptFp8Config's override takes "FP8" in the algorithm up to 0.15.1, equality from 0.16.0
    assert verify(mo_flat("FP8_PB_WO"), {}, resolve("0.15.1"), "fp8").quantization == "modelopt"
    out = verify(mo_flat("FP8_PB_WO"), {}, resolve("0.16.0"), "fp8")
    assert dict(out.values) == {"checkpoint": "modelopt", "user": "fp8"}
    # MXFP8: no override before 0.16.0 (the method stays modelopt)
    assert verify(mo_flat("MXFP8"), {}, resolve("0.15.1"), None).quantization == "modelopt"
    assert verify(mo_flat("MXFP8"), {}, resolve("0.16.0"), "fp8").quantization == "modelopt_mxfp8"
    assert verify(mo_flat("MXFP8"), {}, resolve("0.25.0"), "fp8").quantization == "modelopt_mxfp8"
    # MIXED_PRECISION: ModelOptMixedPrecisionConfig from 0.17.0
    assert dict(verify(mo_flat("MIXED_PRECISION"), {}, resolve("0.16.0"), "modelopt_mixed").values) == {
        "checkpoint": "modelopt", "user": "modelopt_mixed"}
    assert verify(mo_flat("MIXED_PRECISION"), {}, resolve("0.17.0"), "fp8").quantization == "modelopt_mixed"


def test_unlisted_mxfp8_override_of_0_24_0():
    verdict = kvguard.check(mo_flat("MXFP8"), vllm_version="0.24.0", host=H100)
    assert (verdict.check, verdict.exc_type, verdict.wrapped_by) == (
        "MC_quant_override_unlisted", "ValueError", "ModelConfig")
    assert verdict.message == ("Quantization method mxfp8 is an override but is has not been added to the "
                               "`overrides` list above. This is necessary to ensure that the overrides are checked "
                               "in order of preference.")


def test_humming_named_first_gguf_after_the_modelopt_overrides():
    assert verify(mo_flat("NVFP4"), {}, resolve("0.20.0"), "humming").quantization == "humming"
    assert verify(mo_flat("NVFP4"), {}, resolve("0.20.0"), "gguf").quantization == "modelopt_fp4"
    # no algorithm an override reads: gguf's claims it
    assert verify(mo_flat("W4A8_AWQ"), {}, resolve("0.20.0"), "gguf").quantization == "gguf"


def test_modelopt_refusals_read_the_platform():
    # a mismatch on CUDA; ROCm's petit_nvfp4 override reads ModelOpt checkpoints too
    quant = mo_flat("W4A8_AWQ")
    assert kvguard.check(quant, vllm_version="0.28.0", quantization="fp8", host=H100).check == "MC_quant_mismatch"
    verdict = kvguard.check(quant, vllm_version="0.28.0", quantization="fp8",
                            host=kvguard.Host.standard(platform="rocm"))
    assert "MC_quant_mismatch" in [s.check for s in verdict.skipped]


def test_modelopt_activation_dtypes():
    verdict = kvguard.check(mo_flat("NVFP4", group_size=16), vllm_version="0.28.0", dtype="float32", host=H100)
    assert (verdict.stage, verdict.check, verdict.wrapped_by) == ("verify", "VC_quant_act_dtype", "VllmConfig")
    assert verdict.message == ("torch.float32 is not supported for quantization method modelopt_fp4. Supported "
                               "dtypes: [torch.bfloat16, torch.float16, torch.float8_e4m3fn]")
    verdict = kvguard.check(mo_nested("FP8"), vllm_version="0.10.2", dtype="float", host=H100)
    assert verdict.message == ("torch.float32 is not supported for quantization method modelopt. Supported dtypes: "
                               "[torch.bfloat16, torch.float16]")
    assert kvguard.check(mo_nested("FP8"), vllm_version="0.10.2", host=H100).ok


def test_modelopt_fp8_minimum_capability_comes_first_up_to_0_26_0():
    a100 = kvguard.Host.standard(gpu_capability=80)
    verdict = kvguard.check(mo_nested("FP8"), vllm_version="0.26.0", dtype="float32", host=a100)
    assert verdict.check == "VC_quant_capability"
    verdict = kvguard.check(mo_nested("FP8"), vllm_version="0.27.0", dtype="float32", host=a100)
    assert verdict.check == "VC_quant_act_dtype"


def test_modelopt_configs_kvguard_does_not_build_stay_open():
    # a MIXED_PRECISION export without a top-level quantized_layers (get_quant_config reads hf_quant_config.json),
    # a block-FP8 layer
    block = {"model.layers.0.mlp.experts": {"quant_algo": "FP8_PB_WO", "group_size": 128}}
    for quant in (mo_flat("MIXED_PRECISION"), mo_flat("MIXED_PRECISION", quantized_layers=block)):
        verdict = kvguard.check(quant, vllm_version="0.28.0", dtype="float32", host=H100)
        assert verdict.ok and "VC_quant_act_dtype" in [s.check for s in verdict.skipped]


def test_modelopt_own_from_config_before_0_12_0():
    # 0.10.2 - 0.11.x: ModelOptNvFp4Config.from_config asks the nested mapping's required fields after QUANT_ALGOS,
    # with the message of the shared one
    verdict = kvguard.check(plain_with({"producer": dict(_MO_PRODUCER), "quantization": {"quant_algo": "NVFP4"}}),
                            vllm_version="0.11.0", dtype="float32", host=H100)
    assert (verdict.check, verdict.exc_type, verdict.wrapped_by) == ("VC_quant_modelopt_fields", "ValueError",
                                                                     "VllmConfig")
    assert verdict.message == ("NVFP4 quantization requires the following fields in hf_quant_config.json: "
                               "['group_size', 'kv_cache_quant_algo', 'exclude_modules']")
    # a nested mapping without quant_algo: "Missing 'quant_algo'" from either class's own from_config
    for method in ("modelopt", "modelopt_fp4"):
        verdict = kvguard.check(plain_with({"quant_method": method, "quantization": {"exclude_modules": []}}),
                                vllm_version="0.10.2", host=H100)
        assert (verdict.check, verdict.message) == ("VC_quant_modelopt_no_algo",
                                                    "Missing 'quant_algo' in quantization config"), method
    # the flat layout reads a missing quant_algo as "": the QUANT_ALGOS refusal
    verdict = kvguard.check(plain_with({"quant_method": "modelopt", "ignore": []}), vllm_version="0.11.0", host=H100)
    assert (verdict.check, verdict.message) == (
        "VC_quant_modelopt_algo", "ModelOpt currently only supports: ['FP8', 'NVFP4'] quantizations in vLLM. Please "
        "check the `hf_quant_config.json` file for your model's quant configuration.")


_FP8_INIT = ("Unsupported ModelOpt FP8 quant_algo for vLLM: {}. Supported: FP8 / FP8_PER_CHANNEL_PER_TOKEN / "
             "FP8_PB_WO.")
_NVFP4_INIT = "Unsupported ModelOpt NVFP4 quant_algo: {}. Supported: NVFP4 / W4A16_NVFP4."
_MXFP8_INIT = "MXFP8 quantization requires a serialized checkpoint. Dynamic quantization is not supported."


def test_modelopt_method_of_another_class_than_the_algorithm():
    # ModelOptFp8Config.__init__ refuses NVFP4 from 0.14.0 (a nested lower-case nvfp4, which no override up to
    # 0.16.x claims: compared as written); 0.12.0 - 0.13.x compare it as written (not in QUANT_ALGOS)
    lower = plain_with({"quant_method": "modelopt", "quantization": {
        "quant_algo": "nvfp4", "kv_cache_quant_algo": None, "exclude_modules": [], "group_size": 16}})
    for version in ("0.14.0", "0.16.0"):
        verdict = kvguard.check(lower, vllm_version=version, host=H100)
        assert (verdict.check, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
            "VC_quant_modelopt_fp8_algo", "ValueError", "VllmConfig", _FP8_INIT.format("NVFP4")), version
    assert kvguard.check(lower, vllm_version="0.13.0", host=H100).check == "VC_quant_modelopt_algo"
    # 0.17.0+: the NVFP4 override claims it (upper-cased): modelopt_fp4, float32 refused by its dtypes
    assert kvguard.check(lower, vllm_version="0.17.0", dtype="float32", host=H100).message == (
        "torch.float32 is not supported for quantization method modelopt_fp4. Supported dtypes: [torch.bfloat16, "
        "torch.float16, torch.float8_e4m3fn]")
    # quant_method modelopt_fp4 for FP8: no override reads it up to 0.21.x; ModelOptNvFp4Config takes it before
    # 0.21.0, refuses it from 0.21.0; 0.22.0+ the FP8 override claims it (modelopt)
    fp8 = mo_flat("FP8", method="modelopt_fp4")
    verdict = kvguard.check(fp8, vllm_version="0.20.0", dtype="float32", host=H100)
    assert (verdict.check, verdict.message) == ("VC_quant_act_dtype", "torch.float32 is not supported for "
                                                "quantization method modelopt_fp4. Supported dtypes: [torch.bfloat16, "
                                                "torch.float16, torch.float8_e4m3fn]")
    assert kvguard.check(fp8, vllm_version="0.20.0", host=H100).ok
    verdict = kvguard.check(fp8, vllm_version="0.21.0", host=H100)
    assert (verdict.check, verdict.message) == ("VC_quant_modelopt_nvfp4_algo", _NVFP4_INIT.format("FP8"))
    assert kvguard.check(fp8, vllm_version="0.22.0", host=H100).ok
    # FP8_PB_WO, which no override claims: refused from 0.21.0 (in QUANT_ALGOS from 0.14.0)
    pbwo = mo_flat("FP8_PB_WO", method="modelopt_fp4")
    assert kvguard.check(pbwo, vllm_version="0.28.0", host=H100).message == _NVFP4_INIT.format("FP8_PB_WO")
    assert kvguard.check(pbwo, vllm_version="0.20.0", host=H100).ok
    # ModelOptMxFp8Config refuses any algorithm but MXFP8 (0.16.0+)
    mx = mo_flat("FP8_PB_WO", method="modelopt_mxfp8")
    for version in ("0.16.0", "0.33.0"):
        verdict = kvguard.check(mx, vllm_version=version, host=H100)
        assert (verdict.check, verdict.message) == ("VC_quant_modelopt_mxfp8_serialized", _MXFP8_INIT), version
    # a nested mapping of another algorithm than NVFP4 without its fields: the fields are not asked
    nested = plain_with({"quant_method": "modelopt_fp4", "quantization": {"quant_algo": "FP8"}})
    assert kvguard.check(nested, vllm_version="0.21.0", host=H100).check == "VC_quant_modelopt_nvfp4_algo"
    assert kvguard.check(nested, vllm_version="0.11.0", host=H100).ok


def test_modelopt_w4a16_nvfp4():
    # QUANT_ALGOS lists W4A16_NVFP4 from 0.21.0: ModelOptNvFp4Config's second form (the NVFP4 override claims it)
    flat = mo_flat("W4A16_NVFP4", group_size=16)
    verdict = kvguard.check(flat, vllm_version="0.20.0", host=H100)
    assert (verdict.check, verdict.message) == (
        "VC_quant_modelopt_algo", "ModelOpt currently only supports: ['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', "
        "'FP8_PB_WO', 'NVFP4', 'MXFP8', 'MIXED_PRECISION'] quantizations in vLLM. Please check the "
        "`hf_quant_config.json` file for your model's quant configuration.")
    assert kvguard.check(flat, vllm_version="0.21.0", dtype="bfloat16", host=H100).ok
    verdict = kvguard.check(flat, vllm_version="0.33.0", dtype="float32", host=H100)
    assert (verdict.check, verdict.message) == ("VC_quant_act_dtype", "torch.float32 is not supported for "
                                                "quantization method modelopt_fp4. Supported dtypes: [torch.bfloat16, "
                                                "torch.float16, torch.float8_e4m3fn]")
    # its minimum capability is ModelOptNvFp4Config's (75)
    assert kvguard.check(flat, vllm_version="0.21.0", host=kvguard.Host.standard(gpu_capability=75)).ok
    # the nested layout asks NVFP4's required fields ("NVFP4" in the algorithm)
    nested = plain_with({"quant_method": "modelopt", "quantization": {"quant_algo": "W4A16_NVFP4"}})
    verdict = kvguard.check(nested, vllm_version="0.24.0", host=H100)
    assert (verdict.check, verdict.message) == ("VC_quant_modelopt_fields", "NVFP4 quantization requires the "
                                                "following fields in hf_quant_config.json: ['group_size', "
                                                "'kv_cache_quant_algo', 'exclude_modules']")


def test_modelopt_nested_mapping_without_required_fields():
    # ModelOptNvFp4Config._from_config (0.12.0+) / ModelOptMxFp8Config._from_config: the missing ones, in the order
    # of its list, before the capability and the activation dtypes
    verdict = kvguard.check(plain_with({"producer": dict(_MO_PRODUCER), "quantization": {"quant_algo": "NVFP4"}}),
                            vllm_version="0.28.0", dtype="float32", host=H100)
    assert (verdict.check, verdict.exc_type, verdict.wrapped_by) == ("VC_quant_modelopt_fields", "ValueError",
                                                                     "VllmConfig")
    assert verdict.message == ("NVFP4 quantization requires the following fields in hf_quant_config.json: "
                               "['group_size', 'kv_cache_quant_algo', 'exclude_modules']")
    mx = plain_with({"quant_method": "modelopt", "quantization": {"quant_algo": "MXFP8", "exclude_modules": []}})
    verdict = kvguard.check(mx, vllm_version="0.16.0", host=H100)
    assert verdict.message == ("MXFP8 quantization requires the following fields in hf_quant_config.json: "
                               "['kv_cache_quant_algo']")
    verdict = kvguard.check(plain_with({"quant_method": "modelopt", "quantization": {"quant_algo": "MXFP8"}}),
                            vllm_version="0.33.0", host=H100)
    assert verdict.message == ("MXFP8 quantization requires the following fields in hf_quant_config.json: "
                               "['kv_cache_quant_algo', 'exclude_modules']")
    # with both: the capability (0.16.0: 100) refuses on a capability-9.0 GPU
    mx["quantization_config"]["quantization"]["kv_cache_quant_algo"] = None
    assert kvguard.check(mx, vllm_version="0.16.0", host=H100).check == "VC_quant_capability"


_MIXED_LAYERS = {"model.layers.0.mlp.experts": {"quant_algo": "NVFP4", "group_size": 16},
                 "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}
_CAPABILITY = ("The quantization method {} is not supported for the current GPU. Minimum capability: {}. Current "
               "capability: {}.")


@pytest.mark.parametrize("version,dtype,message", [
    # ModelOptMxFp8Config: minimum capability 100 up to 0.19.x (checked before the activation dtypes), 80 from
    # 0.20.0; activation dtypes [torch.bfloat16] (vllm/model_executor/layers/quantization/modelopt.py)
    ("0.16.0", "bfloat16", _CAPABILITY.format("modelopt_mxfp8", 100, 90)),
    ("0.19.1", "float32", _CAPABILITY.format("modelopt_mxfp8", 100, 90)),
    ("0.20.0", "auto", None),
    ("0.20.0", "float16", "torch.float16 is not supported for quantization method modelopt_mxfp8. Supported dtypes: "
                          "[torch.bfloat16]"),
    ("0.33.0", "float", "torch.float32 is not supported for quantization method modelopt_mxfp8. Supported dtypes: "
                        "[torch.bfloat16]"),
])
def test_modelopt_mxfp8_capability_then_activation_dtypes(version, dtype, message):
    verdict = kvguard.check(mo_flat("MXFP8"), vllm_version=version, dtype=dtype, host=H100)
    if message is None:
        assert verdict.ok and not [s for s in verdict.skipped if s.check.startswith("VC_quant")]
        return
    assert (verdict.stage, verdict.exc_type, verdict.wrapped_by) == ("verify", "ValueError", "VllmConfig")
    assert verdict.check == ("VC_quant_capability" if "capability" in message else "VC_quant_act_dtype")
    assert verdict.message == message


def test_modelopt_mxfp8_float16_checkpoint_and_nested_export():
    # --dtype auto keeps a float16 checkpoint's float16: refused
    verdict = kvguard.check(dict(mo_flat("MXFP8"), torch_dtype="float16"), vllm_version="0.28.0", host=H100)
    assert verdict.message == ("torch.float16 is not supported for quantization method modelopt_mxfp8. Supported "
                               "dtypes: [torch.bfloat16]")
    # the nested export (0.16.0 - 0.33.0: ModelConfig's normalization lists no MXFP8 from 0.14.0) is refused earlier
    assert kvguard.check(mo_nested("MXFP8"), vllm_version="0.28.0", host=H100).check == "MC_quant_modelopt_algo"


@pytest.mark.parametrize("version,dtype,message", [
    # ModelOptMixedPrecisionConfig (0.17.0+): minimum capability 89 (75 from 0.24.0), activation dtypes
    # [torch.bfloat16, torch.float16]
    ("0.17.0", "float32", "torch.float32 is not supported for quantization method modelopt_mixed. Supported dtypes: "
                          "[torch.bfloat16, torch.float16]"),
    ("0.17.0", "float16", None),
    ("0.33.0", "auto", None),
    ("0.33.0", "float32", "torch.float32 is not supported for quantization method modelopt_mixed. Supported dtypes: "
                          "[torch.bfloat16, torch.float16]"),
])
def test_modelopt_mixed_activation_dtypes(version, dtype, message):
    verdict = kvguard.check(mo_flat("MIXED_PRECISION", quantized_layers=_MIXED_LAYERS), vllm_version=version,
                            dtype=dtype, host=H100)
    if message is None:
        assert verdict.ok and not [s for s in verdict.skipped if s.check.startswith("VC_quant")]
    else:
        assert (verdict.check, verdict.message) == ("VC_quant_act_dtype", message)


def test_modelopt_capability_on_other_gpus():
    # ModelOptMixedPrecisionConfig's minimum is 89 up to 0.23.0, 75 from 0.24.0; ModelOpt FP8's 89 up to 0.26.0
    a100 = kvguard.Host.standard(gpu_capability=80)
    mixed = mo_flat("MIXED_PRECISION", quantized_layers=_MIXED_LAYERS)
    verdict = kvguard.check(mixed, vllm_version="0.23.0", host=a100)
    assert (verdict.check, verdict.message) == ("VC_quant_capability", _CAPABILITY.format("modelopt_mixed", 89, 80))
    assert kvguard.check(mixed, vllm_version="0.24.0", host=a100).ok
    verdict = kvguard.check(mo_nested("FP8"), vllm_version="0.26.0", dtype="float32", host=a100)
    assert verdict.message == _CAPABILITY.format("modelopt", 89, 80)
    # MXFP8 on a B200 (capability 100) before 0.20.0: the activation dtypes follow
    b200 = kvguard.Host.standard(gpu_capability=100)
    verdict = kvguard.check(mo_flat("MXFP8"), vllm_version="0.19.1", dtype="float16", host=b200)
    assert verdict.check == "VC_quant_act_dtype"
    # MXFP8 claimed, algorithm not listed (from_config comes before the capability)
    verdict = kvguard.check(mo_flat("MXFP8_W8"), vllm_version="0.19.1", host=H100)
    assert verdict.check == "VC_quant_modelopt_algo"


_ONLY_SUPPORTS = ("ModelOpt currently only supports: {} quantizations in vLLM. Please check the `hf_quant_config.json` "
                  "file for your model's quant configuration.")


@pytest.mark.parametrize("version,algos", [
    ("0.10.2", "['FP8', 'NVFP4']"),
    ("0.14.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4']"),
    ("0.16.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'MXFP8']"),
    ("0.20.2", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'MXFP8', 'MIXED_PRECISION']"),
    ("0.21.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'W4A16_NVFP4', 'MXFP8', 'MIXED_PRECISION']"),
    ("0.33.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'W4A16_NVFP4', 'MXFP8', 'MIXED_PRECISION']"),
])
def test_modelopt_config_refuses_an_algorithm_it_does_not_list(version, algos):
    # the flat W4A8_AWQ export: no override claims it, ModelConfig takes "modelopt"; ModelOptFp8Config.from_config
    # (the shared base's from 0.12.0) refuses the algorithm in VllmConfig
    verdict = kvguard.check(mo_flat("W4A8_AWQ"), vllm_version=version, host=H100)
    assert (verdict.stage, verdict.check, verdict.exc_type, verdict.wrapped_by) == (
        "verify", "VC_quant_modelopt_algo", "ValueError", "VllmConfig")
    assert verdict.message == _ONLY_SUPPORTS.format(algos)


def test_modelopt_config_algorithm_compared_upper_cased_from_0_14_0():
    # NVFP4_AWQ: claimed by ModelOptNvFp4Config's override ("FP4" in it), refused by from_config
    assert kvguard.check(mo_flat("NVFP4_AWQ"), vllm_version="0.28.0", host=H100).check == "VC_quant_modelopt_algo"
    # lower-case fp8 (flat, method "modelopt"): refused as written on 0.13.0, upper-cased on 0.14.0
    assert kvguard.check(mo_flat("fp8"), vllm_version="0.13.0", host=H100).check == "VC_quant_modelopt_algo"
    assert kvguard.check(mo_flat("fp8"), vllm_version="0.14.0", host=H100).check != "VC_quant_modelopt_algo"


def test_modelopt_config_reads_the_algorithm_upper_cased_and_the_fp8_forms_from_0_14_0():
    # from_config upper-cases quant_algo from 0.14.0; ModelOptFp8Config takes FP8 / FP8_PER_CHANNEL_PER_TOKEN /
    # FP8_PB_WO (its __init__)
    fp32 = ("torch.float32 is not supported for quantization method modelopt. Supported dtypes: [torch.bfloat16, "
            "torch.float16]")
    for quant in (mo_flat("FP8_PB_WO"), mo_nested("FP8_PER_CHANNEL_PER_TOKEN"), mo_flat("fp8", method="ModelOpt")):
        verdict = kvguard.check(quant, vllm_version="0.28.0", dtype="float32", host=H100)
        assert (verdict.check, verdict.message) == ("VC_quant_act_dtype", fp32)
    verdict = kvguard.check(mo_flat("mxfp8"), vllm_version="0.19.1", host=H100)
    assert verdict.message == _CAPABILITY.format("modelopt_mxfp8", 100, 90)


def test_modelopt_config_without_an_algorithm_and_mixed_without_layers():
    # from_config refuses a missing quant_algo first (0.12.0+: the shared one, in both layouts)
    no_algo = plain_with({"quant_method": "modelopt", "producer": dict(_MO_PRODUCER), "ignore": ["lm_head"]})
    verdict = kvguard.check(no_algo, vllm_version="0.12.0", host=H100)
    assert (verdict.check, verdict.exc_type, verdict.message) == (
        "VC_quant_modelopt_no_algo", "ValueError", "Missing 'quant_algo' in quantization config")
    assert kvguard.check(no_algo, vllm_version="0.33.0", dtype="float32", host=H100).check == "VC_quant_modelopt_no_algo"
    # before, the flat layout's missing quant_algo is "" for the QUANT_ALGOS check
    verdict = kvguard.check(no_algo, vllm_version="0.11.0", host=H100)
    assert verdict.check == "VC_quant_modelopt_algo"
    # ModelOptMixedPrecisionConfig._from_config (0.17.0+): an empty top-level quantized_layers
    verdict = kvguard.check(mo_flat("MIXED_PRECISION", quantized_layers={}), vllm_version="0.17.0", host=H100)
    assert (verdict.check, verdict.message) == ("VC_quant_modelopt_mixed_layers", "MIXED_PRECISION quant_algo "
                                                "requires a non-empty 'quantized_layers' mapping in the quantization "
                                                "config.")


def test_one_models_launches_share_the_quantization_answer_only_for_the_same_flags():
    """The rule rows keep ``_verify_quantization``'s outcome per facts object, release and flags: the
    layouts of a model share it, another --quantization does not."""
    facts = kvguard.model_facts(catalog.lookup("deepseek-ai/DeepSeek-R1").config, vllm_version="0.28.0")
    mismatch = ("Quantization method specified in the model config (fp8) does not match the quantization method "
                "specified in the `quantization` argument (awq).")
    for _ in range(2):
        assert kvguard.check(facts, vllm_version="0.28.0", tp=8).ok
        refused = kvguard.check(facts, vllm_version="0.28.0", tp=8, quantization="awq")
        assert (refused.ok, refused.check, refused.exc_type, refused.message) == (
            False, "MC_quant_mismatch", "ValueError", mismatch)
        assert kvguard.check(facts, vllm_version="0.28.0", tp=4, quantization="fp8").ok
