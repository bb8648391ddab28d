"""Hand tests of the bounds of options kvguard otherwise passes over: ModelConfig's --max-logprobs (MC_FIELD,
0.25.0+), LoadConfig's --safetensors-prefetch-* (0.21.0+), VllmConfig's --shutdown-timeout (0.18.0+)
(kvguard.rules.late_bounds) and CacheConfig's --replayssm-buffer-len beside the other bounds (0.27.0+).  Expected
values written by hand from the releases' sources (vllm/config/model.py, load.py, vllm.py, cache.py), as the 0.33.0
oracle answered them."""

from __future__ import annotations

import pytest

GE_MINUS_ONE = "Input should be greater than or equal to -1"
GE_ZERO = "Input should be greater than or equal to 0"
GE_ONE = "Input should be greater than or equal to 1"
GT_ZERO = "Input should be greater than 0"


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


def _errors(data: dict) -> list:
    return [(e["type"], e["loc"]) for e in data["errors"]]


@pytest.mark.parametrize("version", ["0.25.0", "0.29.0", "0.33.0"])
def test_max_logprobs_below_minus_one_is_refused_by_model_config(serve_json, version):
    status, data = serve_json(version, "--max-logprobs", "-2")
    assert (status, *_refusal(data)) == (1, "model_config", "MC_FIELD", "ValidationError", "ModelConfig", GE_MINUS_ONE)
    assert _errors(data) == [("greater_than_equal", ["max_logprobs"])]


def test_max_logprobs_joins_max_model_len_in_declaration_order(serve_json):
    status, data = serve_json("0.33.0", "--max-logprobs", "-3", "--max-model-len", "-5")
    assert status == 1
    assert _errors(data) == [("greater_than_equal", ["max_model_len"]), ("greater_than_equal", ["max_logprobs"])]


@pytest.mark.parametrize("args", [("--max-logprobs", "-1"), ("--max-logprobs", "0"),
                                  ("--max-logprobs", "-2", "--max-logprobs", "5")])   # the last value counts
def test_max_logprobs_within_its_bound_is_accepted(serve_json, args):
    status, data = serve_json("0.33.0", *args)
    assert (status, data["ok"]) == (0, True)


def test_max_logprobs_is_unbounded_before_0_25_0(serve_json):
    status, data = serve_json("0.24.0", "--max-logprobs", "-2")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.21.0", "0.28.0", "0.33.0"])
def test_safetensors_prefetch_options_below_one_are_refused_by_load_config(serve_json, version):
    status, data = serve_json(version, "--safetensors-prefetch-block-size", "0",
                              "--safetensors-prefetch-num-threads", "-1")
    assert (status, *_refusal(data)) == (1, "load", "load_prefetch_bounds", "ValidationError", "LoadConfig", GE_ONE)
    # declaration order: the thread count first, whatever the command line's order
    assert _errors(data) == [("greater_than_equal", ["safetensors_prefetch_num_threads"]),
                             ("greater_than_equal", ["safetensors_prefetch_block_size"])]


def test_load_config_comes_before_observability_and_after_scheduler(serve_json):
    status, data = serve_json("0.33.0", "--safetensors-prefetch-block-size", "0", "--kv-cache-metrics-sample", "2")
    assert (status, data["wrapped_by"]) == (1, "LoadConfig")
    status, data = serve_json("0.33.0", "--safetensors-prefetch-block-size", "0", "--max-num-seqs", "0")
    assert (status, data["wrapped_by"]) == (1, "SchedulerConfig")


@pytest.mark.parametrize("version", ["0.18.0", "0.25.0", "0.33.0"])
def test_negative_shutdown_timeout_is_refused_by_vllm_config(serve_json, version):
    status, data = serve_json(version, "--shutdown-timeout", "-1", "-tp", "3")   # before __post_init__'s layout check
    assert (status, *_refusal(data)) == (1, "verify", "vc_shutdown_timeout_bound", "ValidationError", "VllmConfig",
                                         GE_ZERO)
    assert _errors(data) == [("greater_than_equal", ["shutdown_timeout"])]


def test_shutdown_timeout_comes_after_the_load_config(serve_json):
    status, data = serve_json("0.33.0", "--shutdown-timeout", "-1", "--safetensors-prefetch-num-threads", "0")
    assert (status, data["wrapped_by"]) == (1, "LoadConfig")


@pytest.mark.parametrize("args", [("--shutdown-timeout", "0"), ("--safetensors-prefetch-block-size", "1"),
                                  ("--shutdown-timeout", "-1", "--shutdown-timeout", "5")])
def test_within_bounds_is_accepted(serve_json, args):
    status, data = serve_json("0.33.0", *args)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.27.0", "0.33.0"])
def test_replayssm_buffer_joins_the_other_cache_bounds_last(serve_json, version):
    status, data = serve_json(version, "--replayssm-buffer-len", "0", "--gpu-memory-utilization", "2",
                              "--mamba-block-size", "0")
    assert (status, *_refusal(data)) == (1, "cache_config", "cc_field_bounds", "ValidationError", "CacheConfig",
                                         "Input should be less than or equal to 1")
    assert _errors(data) == [("less_than_equal", ["gpu_memory_utilization"]), ("greater_than", ["mamba_block_size"]),
                             ("greater_than", ["replayssm_buffer_len"])]


def test_replayssm_buffer_alone_stays_its_own_row(serve_json):
    status, data = serve_json("0.33.0", "--replayssm-buffer-len", "0", "--cpu-offload-gb", "-1")
    assert (status, *_refusal(data)) == (1, "cache_config", "CC_FIELD", "ValidationError", "CacheConfig", GT_ZERO)


def test_unknown_cache_dtype_beside_the_replayssm_buffer_is_one_validation_error(serve_json):
    # the 0.33.0 oracle: one ValidationError, the dtype validator's value error, then the buffer's bound
    status, data = serve_json("0.33.0", "--replayssm-buffer-len", "0", "--kv-cache-dtype", "xx")
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"]) == (1, "cache_config", "ValidationError",
                                                                           "CacheConfig")
    assert data["message"].startswith("Value error, Invalid kv_cache_dtype: 'xx'. Valid values are: ['auto', ")
    assert _errors(data) == [("value_error", ["cache_dtype"]), ("greater_than", ["replayssm_buffer_len"])]
    assert data["errors"][1]["msg"] == GT_ZERO


def test_unknown_cache_dtype_alone_is_still_refused(serve_json):
    status, data = serve_json("0.33.0", "--kv-cache-dtype", "xx")
    assert (status, data["check"], data["exc_type"]) == (1, "CC_cache_dtype_unknown", "ValueError")
