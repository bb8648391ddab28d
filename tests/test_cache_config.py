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


GT_0 = "Input should be greater than 0"
GE_0 = "Input should be greater than or equal to 0"


@pytest.mark.parametrize(("version", "flag", "value", "field", "error_type", "message"), [
    ("0.26.0", "--prefix-match-unit", "0", "prefix_match_unit", "greater_than", GT_0),
    ("0.33.0", "--prefix-match-unit", "-4", "prefix_match_unit", "greater_than", GT_0),
    ("0.29.0", "--prefix-cache-retention-interval", "-1", "prefix_cache_retention_interval", "greater_than_equal",
     GE_0),
    ("0.11.1", "--mamba-block-size", "0", "mamba_block_size", "greater_than", GT_0),
    ("0.24.0", "--mamba-block-size", "-16", "mamba_block_size", "greater_than", GT_0),
])
def test_passed_over_cache_options_out_of_bounds_meet_the_field_bound(serve_json, version, flag, value, field,
                                                                      error_type, message):
    """Options kvguard otherwise passes over, given outside CacheConfig's field bound: the field's pydantic error
    (the releases' answers, tests/upstream/test_cache_config.py)."""
    status, data = serve_json(version, flag, value)
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["check"], data["message"]) == (
        1, "ValidationError", "CacheConfig", "cache_config", "cc_field_bounds", message)
    assert data["errors"] == [{"type": error_type, "loc": [field], "msg": message}]


def test_passed_over_cache_bounds_fail_with_the_others_in_declaration_order(serve_json):
    status, data = serve_json("0.29.0", "--mamba-block-size", "-3", "--prefix-cache-retention-interval", "-1",
                              "--gpu-memory-utilization", "2", "--prefix-match-unit", "0", "--block-size", "0")
    assert (status, data["message"]) == (1, GT_0)
    assert [(e["loc"][0], e["msg"]) for e in data["errors"]] == [
        ("block_size", GT_0), ("prefix_match_unit", GT_0),
        ("gpu_memory_utilization", "Input should be less than or equal to 1"),
        ("prefix_cache_retention_interval", GE_0), ("mamba_block_size", GT_0)]


def test_cache_config_refuses_before_the_offload_config(serve_json):
    """From 0.17.0 --cpu-offload-gb is UVAOffloadConfig's, built later: CacheConfig's own error comes first (0.29.0
    answered so)."""
    status, data = serve_json("0.29.0", "--cpu-offload-gb", "-1", "--prefix-match-unit", "1",
                              "--mamba-block-size", "0")
    assert (status, data["wrapped_by"], data["errors"]) == (
        1, "CacheConfig", [{"type": "greater_than", "loc": ["mamba_block_size"], "msg": GT_0}])


def test_the_last_value_of_a_passed_over_cache_option_is_validated(serve_json):
    status, data = serve_json("0.33.0", "--prefix-match-unit", "0", "--prefix-match-unit", "16")
    assert (status, data["ok"]) == (0, True)
    status, data = serve_json("0.33.0", "--prefix-match-unit", "16", "--prefix-match-unit", "0")
    assert (status, data["errors"]) == (1, [{"type": "greater_than", "loc": ["prefix_match_unit"], "msg": GT_0}])


@pytest.mark.parametrize(("version", "args"), [
    ("0.26.0", ["--prefix-match-unit", "1"]),
    ("0.33.0", ["--prefix-match-unit", "None"]),
    ("0.29.0", ["--prefix-cache-retention-interval", "0"]),
    ("0.33.0", ["--mamba-block-size", "None"]),
])
def test_passed_over_cache_options_within_bounds_pass(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, data["ok"]) == (0, True)


#: what ``str()`` of the release's ValidationError reads after the pydantic version its link names
_PYDANTIC_LINK = "    For further information visit https://errors.pydantic.dev/"


def _without_pydantic_version(text: str) -> str:
    import re

    return re.sub(r"(?m)^(" + re.escape(_PYDANTIC_LINK) + r")[0-9.]+/v/", r"\1v/", text)


def _api_exception_text(*args: str) -> str:
    import kvguard
    from kvguard.launch.layout import Host

    verdict = kvguard.examine("0.33.0", ["vllm", "serve", "Qwen/Qwen3-8B", *args], host=Host(platform="cpu")).verdict
    return _without_pydantic_version(str(kvguard.to_exception(verdict)))


def _link(kind: str) -> str:
    return f"{_PYDANTIC_LINK}v/{kind}"


#: 0.33.0's ValueError for an unknown dtype 'x' (vllm/config/cache.py, CacheConfig._validate_cache_dtype)
_INVALID_X = f"Invalid kv_cache_dtype: 'x'. Valid values are: {_VALID_0330}"


def test_the_cache_dtype_error_is_placed_at_its_field():
    # str() of 0.33.0's CacheConfig(cache_dtype="x") in its oracle: the field validator's entry at cache_dtype, the
    # value its input (a model validator's has no field and the config's arguments as input)
    assert _api_exception_text("--kv-cache-dtype", "x") == "\n".join([
        "1 validation error for CacheConfig", "cache_dtype",
        f"  Value error, {_INVALID_X} [type=value_error, input_value='x', input_type=str]", _link("value_error")])


def test_the_cache_dtype_error_joins_the_bounds_in_declaration_order(serve_json):
    # str() of 0.33.0's CacheConfig(cache_dtype="x", gpu_memory_utilization=95.0) in its oracle
    assert _api_exception_text("--gpu-memory-utilization", "95", "--kv-cache-dtype", "x") == "\n".join([
        "2 validation errors for CacheConfig", "gpu_memory_utilization",
        "  Input should be less than or equal to 1 [type=less_than_equal, input_value=95.0, input_type=float]",
        _link("less_than_equal"), "cache_dtype",
        f"  Value error, {_INVALID_X} [type=value_error, input_value='x', input_type=str]", _link("value_error")])
    status, data = serve_json("0.33.0", "--gpu-memory-utilization", "95", "--kv-cache-dtype", "x")
    assert (status, data["check"], data["exc_type"], data["message"]) == (
        1, "cc_field_bounds", "ValidationError", "Input should be less than or equal to 1")
    assert [(e["type"], e["loc"]) for e in data["errors"]] == [("less_than_equal", ["gpu_memory_utilization"]),
                                                               ("value_error", ["cache_dtype"])]


def test_the_cache_dtype_error_comes_before_the_retention_interval(serve_json):
    # 0.33.0's CacheConfig(cache_dtype="fp4", prefix_cache_retention_interval=-1, block_size=0) in its oracle
    status, data = serve_json("0.33.0", "--prefix-cache-retention-interval", "-1", "--kv-cache-dtype", "fp4",
                              "--block-size", "0")
    assert (status, data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "ValidationError", "CacheConfig", "Input should be greater than 0")
    assert [(e["type"], e["loc"], e["msg"]) for e in data["errors"]] == [
        ("greater_than", ["block_size"], "Input should be greater than 0"),
        ("value_error", ["cache_dtype"], f"Value error, {_INVALID_X.replace(repr('x'), repr('fp4'))}"),
        ("greater_than_equal", ["prefix_cache_retention_interval"], "Input should be greater than or equal to 0")]


def test_the_cache_dtype_error_alone_comes_before_the_offload_config(serve_json):
    # CacheConfig is built before UVAOffloadConfig (0.17.0+): its error alone, where the offload bound was undecidable
    status, data = serve_json("0.33.0", "--cpu-offload-gb", "-1", "--kv-cache-dtype", "x")
    assert (status, data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "CC_cache_dtype_unknown", "ValueError", "CacheConfig", _INVALID_X)
