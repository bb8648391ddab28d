"""The CPU platform's config hook (kvguard.rules.cpu_platform): what the releases answered on their CPU platform
(tests/upstream/test_cpu_platform.py, serve path, no intel_extension_for_pytorch), written out literally."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

FP8_REFUSAL = "Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache."


def _check(capsys, version: str, *args: str, platform: str = "cpu", host: tuple[str, ...] = ()) -> tuple[int, dict]:
    extra = [item for fact in host for item in ("--host", fact)]
    status = run(["check", "--vllm-version", version, "--platform", platform, *extra, "--format", "json", "--",
                  "vllm", "serve", *args])
    return status, json.loads(capsys.readouterr().out or "{}")


@pytest.mark.parametrize("version,args", [
    ("0.20.0", ["--kv-cache-dtype", "fp8"]),                                   # both switches on by default
    ("0.20.0", ["--kv-cache-dtype", "fp8_e5m2", "--no-enable-prefix-caching"]),  # chunked prefill still on
    ("0.20.2", ["--kv-cache-dtype", "nvfp4"]),
    ("0.20.0", ["--kv-cache-dtype", "int8_per_token_head"]),
    ("0.14.1", ["--kv-cache-dtype", "bfloat16"]),                              # any dtype but auto, to 0.14.x
    ("0.11.0", ["--kv-cache-dtype", "fp8"]),
    ("0.11.0", ["--kv-cache-dtype", "bfloat16", "--no-enable-chunked-prefill", "--no-enable-prefix-caching"]),
    ("0.10.2", ["--kv-cache-dtype", "fp8", "--enable-prefix-caching"]),        # V0: only what the launch turns on
    ("0.10.2", ["--kv-cache-dtype", "fp8_e5m2", "--enable-chunked-prefill"]),
])
def test_a_quantized_kv_cache_with_chunked_prefill_or_prefix_caching_is_refused(capsys, version, args):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", *args)
    assert (status, data["ok"], data["exc_type"], data["message"], data["check"]) == (
        1, False, "RuntimeError", FP8_REFUSAL, "PLAT_cpu_quantized_kv")


@pytest.mark.parametrize("version,args", [
    ("0.20.0", ["--kv-cache-dtype", "fp8", "--no-enable-chunked-prefill", "--no-enable-prefix-caching"]),
    ("0.15.0", ["--kv-cache-dtype", "bfloat16"]),                              # only fp8… from 0.15.0
    ("0.21.0", ["--kv-cache-dtype", "fp8"]),                                   # the check is gone
    ("0.10.2", ["--kv-cache-dtype", "fp8"]),                                   # V0 defaults: both off
    ("0.20.0", ["--kv-cache-dtype", "auto"]),
])
def test_other_launches_pass_the_hook(capsys, version, args):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", *args)
    assert (status, data["ok"]) == (0, True)


def test_the_default_host_is_a_cuda_node_and_says_so(capsys):
    status, data = _check(capsys, "0.20.0", "Qwen/Qwen3-8B", "--kv-cache-dtype", "fp8", platform="cuda")
    assert (status, data["ok"]) == (0, True)
    status = run(["check", "--vllm-version", "0.20.0", "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  "--kv-cache-dtype", "fp8"])
    data = json.loads(capsys.readouterr().out)
    assert (status, data["ok"], data["assumptions"]) == (0, True, ["platform='cuda'"])


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_a_block_size_other_than_16_needs_ipex(capsys, version):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--block-size", "128")
    assert (status, data["exc_type"], data["message"], data["check"]) == (
        1, "RuntimeError", "--block-size=128 requires intel_extension_for_pytorch", "PLAT_cpu_block_size")
    assert "ipex=False" in data["assumptions"]
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--block-size", "128", host=("ipex=1",))
    assert (status, data["ok"]) == (0, True)
    status, data = _check(capsys, "0.11.1", "Qwen/Qwen3-8B", "--block-size", "128")
    assert (status, data["ok"]) == (0, True)


def test_the_block_size_check_comes_before_the_kv_cache_check(capsys):
    status, data = _check(capsys, "0.11.0", "Qwen/Qwen3-8B", "--kv-cache-dtype", "bfloat16", "--block-size", "32")
    assert (status, data["message"]) == (1, "--block-size=32 requires intel_extension_for_pytorch")


@pytest.mark.parametrize("version,args,reason", [
    ("0.20.0", ["--kv-cache-dtype", "fp8", "--runner", "pooling"], "pooling runner's defaults"),
    ("0.20.0", ["--kv-cache-dtype", "fp8", "--no-enable-chunked-prefill"], "Mamba / hybrid model's default"),
    ("0.10.2", [], "picks the block size"),
])
def test_what_kvguard_does_not_follow_is_undecidable(capsys, version, args, reason):
    model = "Qwen/Qwen3-8B" if "--runner" in args else "Qwen/Qwen3-Next-80B-A3B-Instruct"
    status = run(["check", "--vllm-version", version, "--platform", "cpu", "--", "vllm", "serve", model, *args])
    assert status == 2
    assert reason in capsys.readouterr().err


def test_the_kv_cache_dtype_a_modelopt_checkpoint_names_counts(capsys):
    """nvidia/Qwen3.6-27B-NVFP4 names an FP8 KV cache: from 0.14.0 `--kv-cache-dtype auto` takes it (a recipe's
    launch that 0.20.0's CPU platform refuses)."""
    status, data = _check(capsys, "0.20.0", "nvidia/Qwen3.6-27B-NVFP4", "--tensor-parallel-size", "1")
    assert (status, data["message"], data["check"]) == (1, FP8_REFUSAL, "PLAT_cpu_quantized_kv")
    status, data = _check(capsys, "0.20.0", "nvidia/Qwen3.6-27B-NVFP4", "--kv-cache-dtype", "bfloat16")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version,args,refused", [
    ("0.11.0", [], True),                                   # auto becomes DeepSeek-V3.2's own FP8 format
    ("0.11.0", ["--kv-cache-dtype", "bfloat16"], False),    # bfloat16 becomes auto
    ("0.11.1", [], False),
    ("0.14.1", ["--kv-cache-dtype", "bfloat16"], False),    # (any other dtype but auto counts to 0.14.x)
    ("0.14.1", ["--kv-cache-dtype", "fp8"], True),
])
def test_deepseek_v32_sets_its_cache_dtype_before_the_hook(capsys, version, args, refused):
    status, data = _check(capsys, version, "deepseek-ai/DeepSeek-V3.2", "-dp", "8", "--enable-expert-parallel", *args)
    assert (status, data["ok"], data.get("message") if refused else None) == (
        (1, False, FP8_REFUSAL) if refused else (0, True, None))
