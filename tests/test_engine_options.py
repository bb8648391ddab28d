"""The engine options of kvguard.rules.engine_options: --config-format / --hf-config-path, --distributed-executor-backend,
microbatching, OffloadConfig's prefetch group and 0.11.1 - 0.13.0's --kv-offloading-backend.  Expected answers are
the releases' own (tests/upstream/test_engine_options.py, the option sweep and the golden cases eo-*), written out
literally from their sources."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.cli import run

UBATCH_0_14 = ("Microbatching currently only supports the deepep_low_latency and deepep_high_throughput all2all "
               "backend. allgather_reducescatter is not supported. To fix use --all2all-backend=deepep_low_latency "
               "or --all2all-backend=deepep_high_throughput and install the DeepEP kernels.")
UBATCH_0_24 = ("Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and nixl_ep "
               "all2all backends. allgather_reducescatter is not supported. To fix use "
               "--all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, or "
               "--all2all-backend=nixl_ep and install the matching kernels.")
UBATCH_0_33 = ("Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, nixl_ep all2all "
               "backends on this platform. allgather_reducescatter is not supported. To fix use one of "
               "--all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, "
               "--all2all-backend=nixl_ep and install the matching kernels.")


def _check(capsys, version: str, *args: str, platform: str = "cuda") -> tuple[int, dict]:
    status = run(["check", "--vllm-version", version, "--platform", platform, "--format", "json", "--", "vllm",
                  "serve", "Qwen/Qwen3-8B", *args])
    return status, json.loads(capsys.readouterr().out or "{}")


def _undecidable(capsys, version: str, *args: str) -> str:
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    assert status == 2
    return capsys.readouterr().err


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


# ----- --config-format / --hf-config-path -----

@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.24.0", "0.33.0"])
@pytest.mark.parametrize("name", ["x", "HF", "gguf"])
def test_an_unknown_config_format_is_refused_by_model_config(capsys, version, name):
    status, data = _check(capsys, version, "--config-format", name, "--hf-config-path", "elsewhere")
    assert status == 1
    assert _refusal(data) == ("model_config", "MC_config_format_unknown", "ValueError", "ModelConfig",
                              f"Unknown config format `{name}`.")


@pytest.mark.parametrize("name", ["auto", "hf"])
def test_the_hf_formats_read_the_model_config(capsys, name):
    status, data = _check(capsys, "0.33.0", "--config-format", name)
    assert (status, data["ok"]) == (0, True)


def test_the_mistral_format_and_another_config_path_are_undecidable(capsys):
    assert "params.json" in _undecidable(capsys, "0.20.0", "--config-format", "mistral")
    assert "--hf-config-path 'x'" in _undecidable(capsys, "0.20.0", "--hf-config-path", "x")



# ----- --model-impl terratorch, 0.10.2's --override-pooler-config -----

@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.20.0", "0.33.0"])
def test_the_terratorch_implementation_is_a_host_fact(capsys, version):
    # the oracle host (no terratorch package) stops on the missing class: 'NoneType' object has no attribute
    # 'is_text_generation_model' (0.10.2 - 0.32.0), an AssertionError from ModelConfig on 0.33.0
    assert "terratorch package" in _undecidable(capsys, version, "--model-impl", "terratorch")


@pytest.mark.parametrize("name", ["auto", "vllm"])
def test_the_other_implementations_pass(capsys, name):
    status, data = _check(capsys, "0.20.0", "--model-impl", name)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("value", ["1", "x", "mean"])
def test_0_10_2_keeps_a_pooler_override_without_braces_as_a_string(capsys, value):
    # ModelConfig refuses the string: ValidationError "Input should be a valid dictionary" (pydantic's wording)
    assert f"--override-pooler-config='{value}' (no JSON object)" in _undecidable(
        capsys, "0.10.2", "--override-pooler-config", value)


@pytest.mark.parametrize("value", ['{"pooling_type": "MEAN"}', "None", ""])
def test_0_10_2_passes_a_pooler_override_object_or_none(capsys, value):
    status, data = _check(capsys, "0.10.2", "--override-pooler-config", value)
    assert (status, data["ok"]) == (0, True)


# ----- --distributed-executor-backend -----

@pytest.mark.parametrize("version", ["0.19.0", "0.24.0", "0.33.0"])
@pytest.mark.parametrize("name", ["x", "1", "MP"])
def test_an_executor_name_without_a_dot_fails_to_unpack_from_0_19_0(capsys, version, name):
    status, data = _check(capsys, version, "--distributed-executor-backend", name)
    assert status == 1
    assert _refusal(data) == ("verify", "VC_executor_backend", "ValueError", "VllmConfig",
                              "not enough values to unpack (expected 2, got 1)")


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.18.1"])
def test_an_executor_name_resolved_after_the_config_is_undecidable_before_0_19_0(capsys, version):
    assert "only when the engine starts" in _undecidable(capsys, version, "--distributed-executor-backend", "x")


@pytest.mark.parametrize("version", ["0.13.0", "0.18.1", "0.33.0"])
@pytest.mark.parametrize("name", ["mp", "uni"])
def test_the_built_in_executors_pass(capsys, version, name):
    status, data = _check(capsys, version, "--distributed-executor-backend", name)
    assert (status, data["ok"]) == (0, True)


def test_a_dotted_executor_name_is_a_host_fact(capsys):
    assert "qualified class name" in _undecidable(capsys, "0.33.0", "--distributed-executor-backend", "my.pkg.Exec")


# ----- microbatching -----

@pytest.mark.parametrize("version,message", [("0.14.0", UBATCH_0_14), ("0.23.0", UBATCH_0_14),
                                             ("0.24.0", UBATCH_0_24), ("0.32.0", UBATCH_0_24),
                                             ("0.33.0", UBATCH_0_33)])
def test_microbatching_needs_a_deepep_like_all2all_backend(capsys, version, message):
    status, data = _check(capsys, version, "--ubatch-size", "2")
    assert status == 1
    assert _refusal(data) == ("verify", "VC_ubatch_all2all", "AssertionError", "VllmConfig", message)


def test_rocm_also_takes_allgather_reducescatter_for_microbatching_on_0_33_0(capsys):
    status, data = _check(capsys, "0.33.0", "--ubatch-size", "2", platform="rocm")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.14.0", "0.24.0", "0.33.0"])
@pytest.mark.parametrize("backend", ["deepep_low_latency", "deepep_high_throughput"])
def test_microbatching_with_deepep_passes(capsys, version, backend):
    status, data = _check(capsys, version, "--ubatch-size", "2", "--all2all-backend", backend)
    assert (status, data["ok"]) == (0, True)


def test_the_nixl_ep_backend_is_refused_before_0_24_0(capsys):
    status, data = _check(capsys, "0.23.0", "--ubatch-size", "2", "--all2all-backend", "nixl_ep")
    assert data["message"].startswith("Microbatching currently only supports the deepep_low_latency and "
                                      "deepep_high_throughput all2all backend. nixl_ep is not supported.")


@pytest.mark.parametrize("version", ["0.13.0", "0.20.0"])
def test_the_cpu_platform_turns_dbo_off(capsys, version):
    status, data = _check(capsys, version, "--enable-dbo", platform="cpu")
    assert (status, data["ok"]) == (0, True)
    status, data = _check(capsys, version, "--enable-dbo")
    assert data["check"] == "VC_ubatch_all2all"


@pytest.mark.parametrize("args,ubatches", [(("--ubatch-size", "65536"), 65536), (("--ubatch-size", "33"), 33),
                                           (("--enable-dbo", "--dbo-decode-token-threshold", "1"), 2)])
def test_dbo_thresholds_below_the_microbatches_are_refused_from_0_30_0(capsys, args, ubatches):
    status, data = _check(capsys, "0.33.0", *args)
    assert _refusal(data) == ("parallel_config", "PA_dbo_thresholds", "ValueError", "ParallelConfig",
                              "dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the "
                              f"number of microbatches ({ubatches}).")
    status, data = _check(capsys, "0.29.0", *args)
    assert data["check"] == "VC_ubatch_all2all"


@pytest.mark.parametrize("version", ["0.23.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("args,errors", [
    (("--ubatch-size", "-1"), [["ubatch_size"]]),
    (("--dbo-decode-token-threshold", "-2"), [["dbo_decode_token_threshold"]]),
    (("--dbo-prefill-token-threshold", "-1", "--enable-dbo"), [["dbo_prefill_token_threshold"]]),
    # one ValidationError, the fields in ParallelConfig's declaration order
    (("--dbo-prefill-token-threshold", "-1", "--ubatch-size", "-3", "-dcp", "0", "-tp", "0"),
     [["tensor_parallel_size"], ["ubatch_size"], ["dbo_prefill_token_threshold"], ["decode_context_parallel_size"]]),
])
def test_negative_microbatching_values_are_parallel_config_field_errors(capsys, version, args, errors):
    """0.23.0+: ParallelConfig's ubatch_size and DBO thresholds are Field(ge=0), checked with its other fields."""
    status, data = _check(capsys, version, *args)
    first = "Input should be greater than or equal to 1" if "-tp" in args else \
        "Input should be greater than or equal to 0"
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "parallel_config", "ValidationError", "ParallelConfig", first)
    assert [e["loc"] for e in data["errors"]] == errors


def test_a_negative_ubatch_size_passes_before_0_23_0(capsys):
    status, data = _check(capsys, "0.22.0", "--ubatch-size", "-1")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.19.0", "0.20.0", "0.22.1"])
@pytest.mark.parametrize("args", [("-tp", "-1"), ("-pp", "0"), ("-pcp", "0"), ("-pp", "0", "-dp", "3"),
                                  ("-tp", "-1", "-dp", "-2")])
def test_a_world_below_one_leaves_no_executor_backend(capsys, version, args):
    status, data = _check(capsys, version, *args)
    assert (status, data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "VC_executor_none", "ValueError", "VllmConfig", "Unknown distributed executor backend: None")


@pytest.mark.parametrize("version,args", [("0.22.1", ("-tp", "-2", "-pp", "-1")),   # a world of 2: mp is chosen
                                          ("0.18.1", ("-tp", "-1"))])               # the engine resolves it later
def test_no_executor_refusal_where_a_backend_is_chosen_or_resolved_later(capsys, version, args):
    status, data = _check(capsys, version, *args)
    assert (status, data["ok"]) == (0, True)


# ----- the deprecated --guided-decoding-* switches -----

WHITESPACE = "disable_any_whitespace is only supported for xgrammar and guidance backends."
ADDITIONAL = "disable_additional_properties is only supported for the guidance backend."


@pytest.mark.parametrize("args,message", [
    (("--guided-decoding-disable-any-whitespace",), WHITESPACE),
    (("--guided-decoding-disable-any-whitespace", "--guided-decoding-backend", "outlines"), WHITESPACE),
    (("--guided-decoding-disable-any-whitespace", "--guided-decoding-backend", "xgrammar"), None),
    (("--guided-decoding-disable-additional-properties", "--guided-decoding-backend", "xgrammar"), ADDITIONAL),
    (("--guided-decoding-disable-additional-properties", "--guided-decoding-disable-any-whitespace",
      "--guided-decoding-backend", "lm-format-enforcer"), WHITESPACE),
    (("--guided-decoding-disable-additional-properties", "--guided-decoding-disable-any-whitespace",
      "--guided-decoding-backend", "guidance"), None),
    (("--no-guided-decoding-disable-any-whitespace",), None),
])
def test_0_10_2_decoding_config_checks_the_switches(capsys, args, message):
    status, data = _check(capsys, "0.10.2", *args)
    if message is None:
        assert (status, data["ok"]) == (0, True)
    else:
        assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
            1, "decoding", "ValueError", "DecodingConfig", message)


@pytest.mark.parametrize("version", ["0.11.1", "0.11.2"])
@pytest.mark.parametrize("args,message", [
    (("--guided-decoding-disable-any-whitespace", "true"), WHITESPACE),
    (("--guided-decoding-disable-any-whitespace", "false"), WHITESPACE),       # type=bool: any word is true
    (("--guided-decoding-disable-any-whitespace", ""), None),                  # but the empty one
    (("--guided-decoding-disable-any-whitespace", "1", "--guided-decoding-backend", "xgrammar"), WHITESPACE),
    (("--guided-decoding-disable-any-whitespace", "1", "--structured-outputs-config", '{"backend": "xgrammar"}'),
     None),
    (("--guided-decoding-disable-additional-properties", "1", "--guided-decoding-disable-any-whitespace", "1",
      "--structured-outputs-config", '{"backend": "xgrammar"}'), ADDITIONAL),
    (("--guided-decoding-disable-additional-properties", "no", "--structured-outputs-config",
      '{"backend": "guidance"}'), None),
    # the validator re-runs in VllmConfig's field validation, before verify_with_parallel_config
    (("--guided-decoding-disable-any-whitespace", "1", "-tp", "3"), WHITESPACE),
])
def test_0_11_1_vllm_config_revalidates_the_switches(capsys, version, args, message):
    status, data = _check(capsys, version, *args)
    if message is None:
        assert (status, data["ok"]) == (0, True)
    else:
        assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
            1, "verify", "ValueError", "VllmConfig", message)


def test_0_11_0_assigns_the_switches_where_nothing_reads_them(capsys):
    status, data = _check(capsys, "0.11.0", "--guided-decoding-disable-any-whitespace", "1",
                          "--guided-decoding-disable-additional-properties", "1")
    assert (status, data["ok"]) == (0, True)


# ----- OffloadConfig -----

@pytest.mark.parametrize("version", ["0.17.0", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("args,message", [
    (("--offload-backend", "prefetch"), "offload_num_in_group (1) must be <= offload_group_size (0)"),
    (("--offload-group-size", "2", "--offload-num-in-group", "3"),
     "offload_num_in_group (3) must be <= offload_group_size (2)"),
    (("--offload-backend", "uva", "--offload-group-size", "1", "--offload-prefetch-step", "0"),
     "offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)"),
])
def test_prefetch_offloading_checks_its_group(capsys, version, args, message):
    status, data = _check(capsys, version, *args)
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "offload", "ValueError", "OffloadConfig", message)


@pytest.mark.parametrize("args", [("--offload-backend", "uva"), ("--offload-backend", "auto"),
                                  ("--offload-backend", "uva", "--offload-prefetch-step", "0"),
                                  ("--offload-backend", "prefetch", "--offload-group-size", "2")])
def test_offloading_without_a_bad_prefetch_group_passes(capsys, args):
    status, data = _check(capsys, "0.33.0", *args)
    assert (status, data["ok"]) == (0, True)


GE_ZERO = "Input should be greater than or equal to 0"
GE_ONE = "Input should be greater than or equal to 1"


@pytest.mark.parametrize("version", ["0.17.0", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("args,errors", [
    (("--offload-num-in-group", "0"), [("greater_than_equal", ["offload_num_in_group"], GE_ONE)]),
    (("--offload-group-size", "-1"), [("greater_than_equal", ["offload_group_size"], GE_ZERO)]),
    # every field out of bounds, in declaration order (group size, number in a group, step), before the group check
    (("--offload-prefetch-step", "-1", "--offload-num-in-group", "0", "--offload-group-size", "-2"),
     [("greater_than_equal", ["offload_group_size"], GE_ZERO), ("greater_than_equal", ["offload_num_in_group"], GE_ONE),
      ("greater_than_equal", ["offload_prefetch_step"], GE_ZERO)]),
])
def test_prefetch_values_below_their_bounds_are_refused_by_prefetch_offload_config(capsys, version, args, errors):
    """PrefetchOffloadConfig's Field(ge=...) bounds (vllm/config/offload.py), checked as it is built for OffloadConfig
    (tests/upstream/test_engine_options.py on 0.17.0, 0.20.0, 0.33.0)."""
    status, data = _check(capsys, version, *args)
    assert (status, data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "offload", "ValidationError", "PrefetchOffloadConfig", errors[0][2])
    assert [(e["type"], e["loc"], e["msg"]) for e in data["errors"]] == errors



# ----- --kv-offloading-backend -----

@pytest.mark.parametrize("version", ["0.11.1", "0.12.0", "0.13.0"])
@pytest.mark.parametrize("backend", ["native", "lmcache"])
def test_a_kv_offloading_backend_needs_a_size_to_0_13_0(capsys, version, backend):
    status, data = _check(capsys, version, "--kv-offloading-backend", backend)
    assert _refusal(data) == ("verify", "VC_kv_offloading_size", "ValueError", "VllmConfig",
                              "You must set kv_offloading_size when kv_offloading_backend is set.")


@pytest.mark.parametrize("version", ["0.14.0", "0.33.0"])
def test_a_kv_offloading_backend_alone_is_inert_from_0_14_0(capsys, version):
    status, data = _check(capsys, version, "--kv-offloading-backend", "native")
    assert (status, data["ok"]) == (0, True)


@settings(max_examples=40, deadline=None)
@given(group=st.integers(0, 6), in_group=st.integers(1, 6), step=st.integers(0, 3))
def test_the_prefetch_group_refusal_follows_its_three_values(group, in_group, step):
    """With --offload-backend prefetch: a refusal exactly when the group is smaller than the offloaded layers or the
    step is 0, the group checked first."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-8B",
                      "--offload-backend", "prefetch", "--offload-group-size", str(group),
                      "--offload-num-in-group", str(in_group), "--offload-prefetch-step", str(step)])
    data = json.loads(out.getvalue())
    if in_group > group:
        assert data["check"] == "OFF_prefetch_group"
    elif step < 1:
        assert data["check"] == "OFF_prefetch_step"
    else:
        assert (status, data["ok"]) == (0, True)
