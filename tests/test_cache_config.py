"""CacheConfig's memory options (kvguard.rules.cache_config): what the releases answered
(tests/upstream/test_cache_config.py and the golden cases cc-*, serve path), written out literally."""

from __future__ import annotations

import pytest

from kvguard.cli import run


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_a_utilization_above_one_is_refused_before_0_11_1(serve_json, version):
    status, data = serve_json(version, "--gpu-memory-utilization", "95")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "cache_config", "CC_gpu_memory_above_one", "ValueError", "CacheConfig",
        "GPU memory utilization must be less than 1.0. Got 95.0.")


def test_a_negative_offload_comes_first(serve_json):
    status, data = serve_json("0.10.2", "--gpu-memory-utilization", "2", "--cpu-offload-gb", "-1")
    assert (status, data["check"], data["message"]) == (
        1, "CC_cpu_offload_negative", "CPU offload space must be non-negative, but got -1.0")


@pytest.mark.parametrize("value", ["0", "-1", "0.0"])
def test_0_10_2_takes_a_utilization_of_zero_or_below(serve_json, value):
    status, data = serve_json("0.10.2", "--gpu-memory-utilization", value)
    assert (status, data["ok"]) == (0, True)


# pydantic's field bounds from 0.11.1: one ValidationError for CacheConfig (the oracles' answers,
# tests/upstream/test_cache_config.py: exc_type, first message, wrapper)
@pytest.mark.parametrize("version", ["0.11.1", "0.20.0", "0.33.0"])
@pytest.mark.parametrize(("value", "error_type", "message"), [
    ("95", "less_than_equal", "Input should be less than or equal to 1"),
    ("0", "greater_than", "Input should be greater than 0"),
    ("-1", "greater_than", "Input should be greater than 0"),
])
def test_a_utilization_out_of_the_pydantic_bounds_is_refused_from_0_11_1(serve_json, version, value, error_type,
                                                                         message):
    status, data = serve_json(version, "--gpu-memory-utilization", value)
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "cache_config", "ValidationError", "CacheConfig", message)
    assert data["errors"] == [{"type": error_type, "loc": ["gpu_memory_utilization"], "msg": message}]


def test_every_field_out_of_bounds_is_an_error_in_declaration_order(serve_json):
    status, data = serve_json("0.16.0", "--cpu-offload-gb", "-1", "--swap-space", "-1",
                              "--gpu-memory-utilization", "95")
    assert (status, data["message"]) == (1, "Input should be less than or equal to 1")
    assert [(e["loc"], e["msg"]) for e in data["errors"]] == [
        (["gpu_memory_utilization"], "Input should be less than or equal to 1"),
        (["swap_space"], "Input should be greater than or equal to 0"),
        (["cpu_offload_gb"], "Input should be greater than or equal to 0")]


def test_the_block_size_bound_comes_first_from_0_23_0(serve_json):
    status, data = serve_json("0.24.0", "--gpu-memory-utilization", "0", "--block-size", "0")
    assert (status, data["message"]) == (1, "Input should be greater than 0")
    assert [e["loc"] for e in data["errors"]] == [["block_size"], ["gpu_memory_utilization"]]


@pytest.mark.parametrize(("version", "args"), [
    ("0.17.1", ["--cpu-offload-gb", "-1"]),           # UVAOffloadConfig, built after ParallelConfig
    ("0.33.0", ["--cpu-offload-gb", "-1"]),
    ("0.20.0", ["--gpu-memory-utilization", "nan"]),  # a non-finite value
    ("0.33.0", ["--gpu-memory-utilization", "95", "--kv-cache-dtype", "x"]),  # two errors of one validation
])
def test_what_kvguard_does_not_render_stays_undecidable(capsys, version, args):
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    assert status == 2
    assert "field bounds" in capsys.readouterr().err


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("value", ["1", "0.95", "1e-3"])
def test_a_utilization_within_the_bounds_is_accepted(serve_json, version, value):
    status, data = serve_json(version, "--gpu-memory-utilization", value)
    assert (status, data["ok"]) == (0, True)


_VALID_0330 = ("['auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla', 'nvfp4_ds_mla', "
               "'turboquant_k8v4', 'turboquant_4bit_nc', 'turboquant_k3v4_nc', 'turboquant_3bit_nc', 'octave_k3v4', "
               "'octave_k3v3', 'octave_k3v3_compact', 'ultraquant_4bit', 'int4_per_token_head', "
               "'int8_per_token_head', 'fp8_per_token_head', 'nvfp4', 'nvfp4_4over6']")


@pytest.mark.parametrize(("value", "quoted"), [("x", "'x'"), ("FP8", "'FP8'"), ("int8", "'int8'")])
def test_0_33_0_checks_the_cache_dtype_in_cache_config(serve_json, value, quoted):
    # 0.33.0's answer (tools/option_sweep.py; tests/upstream/test_cache_config.py): the field validator's ValueError
    status, data = serve_json("0.33.0", "--kv-cache-dtype", value)
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "cache_config", "CC_cache_dtype_unknown", "ValueError", "CacheConfig",
        f"Invalid kv_cache_dtype: {quoted}. Valid values are: {_VALID_0330}")


def test_before_0_33_0_argparse_refuses_an_unknown_cache_dtype(serve_json):
    status, data = serve_json("0.32.0", "--kv-cache-dtype", "x")
    assert (status, data["stage"], data["exc_type"]) == (1, "argparse", "SystemExit")
    assert data["message"].startswith("vllm serve: error: argument --kv-cache-dtype: invalid choice: 'x' (choose from ")


@pytest.mark.parametrize("value", ["octave_k3v4", "fp8", "auto"])
def test_0_33_0_takes_its_cache_dtypes(serve_json, value):
    status, data = serve_json("0.33.0", "--kv-cache-dtype", value)
    assert (status, data["ok"]) == (0, True)
