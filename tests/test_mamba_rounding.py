"""The Mamba cache's stochastic rounding (kvguard.rules.mamba_rounding): what the releases answered
(tests/upstream/test_mamba_rounding.py and the golden cases mr-*, serve path), written out literally."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

MESSAGE = ("Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it explicitly, by "
           "specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding by not specifying "
           "`--enable-mamba-cache-stochastic-rounding`.")


def _remote(model: str) -> list[str]:
    """The catalog's Nemotron-H configs name repository code (auto_map): the oracle read them without it."""
    return ["--trust-remote-code"] if "Nemotron" in model else []


def _check(capsys, version: str, model: str, *args: str) -> tuple[int, dict]:
    status = run(["check", "--vllm-version", version, "--format", "json", "--", "vllm", "serve", model,
                  *_remote(model), *args])
    return status, json.loads(capsys.readouterr().out or "{}")


@pytest.mark.parametrize("version", ["0.20.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("model", ["Qwen/Qwen3-8B", "Qwen/Qwen3-Next-80B-A3B-Instruct"])
@pytest.mark.parametrize("dtype", [[], ["--mamba-ssm-cache-dtype", "float32"], ["--mamba-ssm-cache-dtype", "auto"]])
def test_stochastic_rounding_needs_a_float16_ssm_cache(capsys, version, model, dtype):
    status, data = _check(capsys, version, model, "--enable-mamba-cache-stochastic-rounding", *dtype)
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "verify", "VC_mamba_stochastic_rounding", "ValueError", "VllmConfig", MESSAGE)


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
@pytest.mark.parametrize("model", ["Qwen/Qwen3-8B", "Qwen/Qwen3.5-27B", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"])
def test_a_float16_ssm_cache_takes_it(capsys, version, model):
    status, data = _check(capsys, version, model, "--enable-mamba-cache-stochastic-rounding",
                          "--mamba-ssm-cache-dtype", "float16")
    assert data["ok"] is True


@pytest.mark.parametrize("model", ["Qwen/Qwen3.5-27B", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"])
def test_an_auto_dtype_a_config_handler_replaces_is_undecidable(capsys, model):
    status = run(["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", model, *_remote(model),
                  "--enable-mamba-cache-stochastic-rounding"])
    assert status == 2
    assert "config handler replaces 'auto'" in capsys.readouterr().err


@pytest.mark.parametrize("version,names", [("0.20.0", "TRITON, FLASHINFER"), ("0.26.0", "TRITON, FLASHINFER"),
                                           ("0.27.0", "TRITON, FLASHINFER, CPU"), ("0.33.0", "TRITON, FLASHINFER, CPU")])
def test_an_unknown_mamba_backend_is_refused_with_the_release_names(capsys, version, names):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--mamba-backend", "flash_infer")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "engine_args", "EA_mamba_backend_unknown", "ValueError", None,
        f"Unknown Mamba SSU backend: 'FLASH_INFER'. Valid options are: {names}")


@pytest.mark.parametrize("version,name", [("0.20.0", "FlashInfer"), ("0.27.0", "cpu"), ("0.33.0", "triton")])
def test_a_mamba_backend_is_looked_up_upper_cased(capsys, version, name):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--mamba-backend", name)
    assert data["ok"] is True


SSU_MESSAGE = ("Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set "
               "`--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.")


@pytest.mark.parametrize("version", ["0.27.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("backend", [[], ["--mamba-backend", "triton"], ["--mamba-backend", "CPU"]])
@pytest.mark.parametrize("algorithm", ["auto", "simple", "vertical", "horizontal"])
def test_an_ssu_algorithm_needs_the_flashinfer_backend(capsys, version, backend, algorithm):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--mamba-ssu-algorithm", algorithm, *backend)
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "engine_args", "EA_mamba_ssu_algorithm", "ValueError", None, SSU_MESSAGE)


@pytest.mark.parametrize("version", ["0.27.0", "0.33.0"])
@pytest.mark.parametrize("backend", ["flashinfer", "FlashInfer", "FLASHINFER"])
def test_an_ssu_algorithm_with_flashinfer_is_taken(capsys, version, backend):
    status, data = _check(capsys, version, "Qwen/Qwen3-8B", "--mamba-ssu-algorithm", "simple", "--mamba-backend",
                          backend)
    assert (status, data["ok"]) == (0, True)


def test_an_unknown_backend_is_refused_before_the_algorithm(capsys):
    status, data = _check(capsys, "0.33.0", "Qwen/Qwen3-8B", "--mamba-ssu-algorithm", "simple", "--mamba-backend",
                          "x")
    assert (status, data["check"], data["message"]) == (
        1, "EA_mamba_backend_unknown", "Unknown Mamba SSU backend: 'X'. Valid options are: TRITON, FLASHINFER, CPU")


def test_the_algorithm_is_an_option_from_0_27_0(capsys):
    status, data = _check(capsys, "0.26.0", "Qwen/Qwen3-8B", "--mamba-ssu-algorithm", "simple")
    assert (status, data["stage"], data["message"]) == (
        1, "argparse", "vllm: error: unrecognized arguments: --mamba-ssu-algorithm simple")
