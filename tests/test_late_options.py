"""The late options (kvguard.rules.late_options) and vllm serve's own checks after validate_parsed_serve_args
(kvguard.rules.serve_args): what the releases answered (tests/upstream/test_late_options.py), written out literally."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvguard
from kvguard.launch.layout import Host


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


MM_LORAS = "Default modality-specific LoRA(s) were provided for a non multimodal model"
HEADLESS_0_15 = "--api-server-count=2 cannot be used with --headless (no API servers are started in headless mode)."
LB_0_15 = ("Cannot use both external and hybrid data parallel load balancing modes. External LB is enabled via "
           "--data-parallel-external-lb or --data-parallel-rank. Hybrid LB is enabled via --data-parallel-hybrid-lb or "
           "--data-parallel-start-rank. Use one mode or the other.")
LB_0_22 = ("Cannot use more than one data parallel load balancing mode. Choose one of: "
           "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
           "--data-parallel-hybrid-lb (or --data-parallel-start-rank).")
EFFORTS = "['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']"
NO_TRITON = ("VLLM_USE_V2_MODEL_RUNNER=0",)


# -- --default-mm-loras (every release) ------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("value", ["1", '{"image": "/tmp/lora"}', '"x"'])
def test_default_mm_loras_on_a_text_only_model(serve_json, version, value):
    status, data = serve_json(version, "--default-mm-loras", value)
    assert (status, *_refusal(data)) == (1, "engine_args", "EA_default_mm_loras", "ValueError", None, MM_LORAS)


@pytest.mark.parametrize("value", ["{}", "0", "null", "None"])
def test_default_mm_loras_that_json_reads_as_false_pass(serve_json, value):
    assert serve_json("0.33.0", "--default-mm-loras", value)[1]["ok"] is True


def test_default_mm_loras_is_refused_with_lora_too_before_lora_config(serve_json):
    # LoRAConfig would refuse 1 (no mapping); the text-only refusal comes first (0.33.0 answered so)
    status, data = serve_json("0.33.0", "--default-mm-loras", "1", "--enable-lora")
    assert (status, data["check"], data["message"]) == (1, "EA_default_mm_loras", MM_LORAS)


def test_a_false_default_mm_loras_that_lora_config_refuses_is_undecidable(serve_json):
    status, data = serve_json("0.31.0", "--default-mm-loras", "0", "--enable-lora")
    assert (status, data["reason_kind"]) == (2, "undecidable")
    assert "LoRAConfig" in data["reason"]


# -- vllm serve's own checks -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "message"), [
    ("0.10.2", "api_server_count can't be set in headless mode"),
    ("0.14.1", "api_server_count can't be set in headless mode"),
    ("0.15.0", HEADLESS_0_15),
    ("0.33.0", HEADLESS_0_15),
])
def test_headless_with_api_servers(serve_json, version, message):
    status, data = serve_json(version, "--headless", "--api-server-count", "2")
    assert (status, *_refusal(data)) == (1, "frontend", "FE_headless_api_servers", "ValueError", None, message)


def test_headless_with_one_api_server(serve_json):
    # run_headless refused only a count above 1 up to 0.14.1; from 0.15.0 any positive count
    assert serve_json("0.14.1", "--headless", "--api-server-count", "1")[1]["ok"] is True
    status, data = serve_json("0.15.0", "--headless", "--api-server-count", "1")
    assert (status, data["message"]) == (1, HEADLESS_0_15.replace("=2", "=1"))
    assert serve_json("0.33.0", "--headless", "--api-server-count", "0")[1]["ok"] is True


@pytest.mark.parametrize(("version", "args", "message"), [
    ("0.15.0", ("-dp", "2", "-dpe", "-dph"), LB_0_15),
    ("0.21.0", ("-dp", "2", "-dpn", "0", "-dpr", "0"), LB_0_15),
    ("0.22.0", ("-dp", "2", "-dpe", "-dph"), LB_0_22),
    ("0.33.0", ("-dp", "2", "-dpn", "0", "-dpr", "0"), LB_0_22),
])
def test_more_than_one_load_balancing_mode(serve_json, version, args, message):
    status, data = serve_json(version, *args)
    assert (status, *_refusal(data)) == (1, "frontend", "FE_lb_modes", "ValueError", None, message)


def test_the_headless_check_comes_before_the_load_balancing_modes(serve_json):
    status, data = serve_json("0.33.0", "--headless", "-asc", "3", "-dp", "2", "-dpe", "-dph")
    assert data["check"] == "FE_headless_api_servers"
    assert data["message"] == HEADLESS_0_15.replace("=2", "=3")


def test_a_start_rank_with_the_hybrid_switch_is_one_mode(serve_json):
    # 0.22.0+: -dpr counts as hybrid only without -dph / -dpm, so -dph -dpr is one mode (the engine then decides)
    status, data = serve_json("0.33.0", "-dp", "2", "-dph", "-dpr", "0")
    assert data.get("check") != "FE_lb_modes"


# -- 0.33.0's --reasoning-effort-map ---------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "message"), [
    ('{"foo": "low"}', f"Error: --reasoning-effort-map has unknown efforts ['foo']; keys must be one of {EFFORTS}."),
    ('{"zz": "a", "aa": "b"}',
     f"Error: --reasoning-effort-map has unknown efforts ['aa', 'zz']; keys must be one of {EFFORTS}."),
    ('{"high": 1}', "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings."),
    ("[1]", "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings."),
    ('"low"', "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings."),
])
def test_reasoning_effort_map(serve_json, value, message):
    status, data = serve_json("0.33.0", "--reasoning-effort-map", value)
    assert (status, *_refusal(data)) == (1, "frontend", "FE_reasoning_effort_map", "ValueError", None, message)


@pytest.mark.parametrize("value", ['{"medium": "low"}', '{"xhigh": "max", "none": "low"}', "null", "{}"])
def test_reasoning_effort_maps_that_pass(serve_json, value):
    assert serve_json("0.33.0", "--reasoning-effort-map", value)[1]["ok"] is True


# -- VllmConfig: the model runner ------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "args", "check", "message"), [
    ("0.28.0", ("--return-sampling-mask",), "VC_sampling_mask_mrv2",
     "sampling distribution replay requires Model Runner V2"),
    ("0.33.0", ("--return-sampling-mask",), "VC_sampling_mask_mrv2",
     "sampling distribution replay requires Model Runner V2"),
    ("0.29.0", ("--enable-trace-replay",), "VC_trace_replay_mrv2", "trace replay requires Model Runner V2"),
    ("0.33.0", ("--enable-batch-sharded-sampling",), "VC_mrv1_unsupported",
     "Model Runner V1 does not support: batch-sharded sampling"),
    ("0.31.0", ("--enable-return-routed-experts",), "VC_aux_mrv2",
     "AuxOutput Connector requires Model Runner V2; set VLLM_USE_V2_MODEL_RUNNER=1."),
])
def test_the_v1_model_runner_refuses(serve_json, version, args, check, message):
    status, data = serve_json(version, *args, env=NO_TRITON)
    assert (status, *_refusal(data)) == (1, "verify", check, "ValueError", "VllmConfig", message)


def test_sampling_mask_comes_before_trace_replay(serve_json):
    status, data = serve_json("0.33.0", "--enable-trace-replay", "--return-sampling-mask", env=NO_TRITON)
    assert data["check"] == "VC_sampling_mask_mrv2"


def test_the_v2_model_runner_on_a_triton_host():
    # the standard host has Triton: the default runner of 0.29.0+ is V2, which takes trace replay
    report = kvguard.examine("0.33.0", "vllm serve Qwen/Qwen3-8B --enable-trace-replay")
    assert report.verdict.ok is True
    with pytest.raises(kvguard.Undecidable, match="--enable-batch-sharded-sampling on the V2 model runner"):
        kvguard.examine("0.33.0", "vllm serve Qwen/Qwen3-8B --enable-batch-sharded-sampling")
    without = kvguard.examine("0.33.0", "vllm serve Qwen/Qwen3-8B --enable-trace-replay",
                              host=Host(platform="cuda", triton=False))
    assert (without.verdict.check, without.verdict.message) == ("VC_trace_replay_mrv2",
                                                                "trace replay requires Model Runner V2")


@pytest.mark.parametrize(("model", "args", "check", "message"), [
    ("Qwen/Qwen3-8B", (), "VC_aux_moe", "AuxOutput Connector only supports MoE models."),
    ("Qwen/Qwen3-30B-A3B", ("--no-enable-prefix-caching",), "VC_aux_prefix_caching",
     "AuxOutput Connector requires prefix caching."),
    ("Qwen/Qwen3-30B-A3B", ("-pp", "2"), "VC_aux_routed_pp",
     "--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1)."),
])
def test_routed_experts_on_the_v2_runner(serve_json, model, args, check, message):
    status, data = serve_json("0.33.0", "--enable-return-routed-experts", *args, model=model,
                              env=("VLLM_USE_V2_MODEL_RUNNER=1",))
    assert (status, data["check"], data["message"]) == (1, check, message)


def test_routed_experts_on_an_moe_model_pass_on_the_v2_runner(serve_json):
    status, data = serve_json("0.33.0", "--enable-return-routed-experts", model="Qwen/Qwen3-30B-A3B",
                              env=("VLLM_USE_V2_MODEL_RUNNER=1",))
    assert data["ok"] is True


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
@pytest.mark.parametrize("value", ["summary", "detailed"])
def test_per_request_spec_decode_metrics_need_speculative_decoding(serve_json, version, value):
    status, data = serve_json(version, "--per-request-spec-decode-metrics", value)
    assert (status, *_refusal(data)) == (
        1, "verify", "VC_per_request_spec_metrics", "ValueError", "VllmConfig",
        "--per-request-spec-decode-metrics requires speculative decoding to be enabled (via --speculative-config).")
    assert serve_json(version, "--per-request-spec-decode-metrics", "none")[1]["ok"] is True


@pytest.mark.parametrize(("version", "message"), [
    ("0.27.0", "--use-replayssm is only supported for Nemotron-H models (got architecture 'Qwen3ForCausalLM')"),
    ("0.28.0", "--use-replayssm is only supported for Nemotron-H models (got architecture 'Qwen3ForCausalLM')"),
    ("0.29.0", "--use-replayssm is not supported for architecture 'Qwen3ForCausalLM'"),
    ("0.33.0", "--use-replayssm is not supported for architecture 'Qwen3ForCausalLM'"),
])
def test_replayssm_on_a_model_without_inner_state(serve_json, version, message):
    status, data = serve_json(version, "--use-replayssm")
    assert (status, *_refusal(data)) == (1, "verify", "VC_replayssm_arch", "ValueError", "VllmConfig", message)


def test_replayssm_on_a_hybrid_model_is_undecidable(serve_json):
    status, data = serve_json("0.33.0", "--use-replayssm", model="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert (status, data["reason_kind"]) == (2, "undecidable")
    assert "ReplaySSM" in data["reason"]


# -- properties ------------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), st.text(max_size=4), max_size=4))
def test_an_effort_map_of_strings_is_refused_exactly_when_a_key_is_unknown(mapping):
    known = {"none", "minimal", "low", "medium", "high", "xhigh", "max"}
    text = json.dumps(mapping)
    try:
        report = kvguard.examine("0.33.0", ["vllm", "serve", "Qwen/Qwen3-8B", "--reasoning-effort-map", text])
    except kvguard.InputError:
        return   # a word argparse cannot take (a leading dash)
    unknown = sorted(set(mapping) - known)
    assert report.verdict.ok is (not unknown)
    if unknown:
        assert report.verdict.message == (f"Error: --reasoning-effort-map has unknown efforts {unknown!r}; keys must "
                                          f"be one of {EFFORTS}.")


# -- --replayssm-buffer-len (0.27.0+): CacheConfig's Field(gt=0) ---------------------------------------------------

@pytest.mark.parametrize("version", ["0.27.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("args", [("--replayssm-buffer-len", "0"), ("--replayssm-buffer-len", "-5", "--use-replayssm"),
                                  ("--replayssm-buffer-len", "0", "-tp", "0")])   # CacheConfig before ParallelConfig
def test_a_replayssm_buffer_that_is_not_positive(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, *_refusal(data)) == (1, "cache_config", "CC_FIELD", "ValidationError", "CacheConfig",
                                         "Input should be greater than 0")
    assert [e["loc"] for e in data["errors"]] == [["replayssm_buffer_len"]]


def test_a_positive_replayssm_buffer_passes(serve_json):
    assert serve_json("0.33.0", "--replayssm-buffer-len", "3")[1]["ok"] is True


def test_0_33_0s_cache_dtype_check_beside_the_buffer_is_one_validation_error(serve_json):
    """cache_dtype is declared before replayssm_buffer_len: 0.33.0 raises "2 validation errors for CacheConfig" (the
    validator's value error, then the buffer's bound; the oracle's CacheConfig)."""
    status, data = serve_json("0.33.0", "--replayssm-buffer-len", "0", "--kv-cache-dtype", "fp4")
    assert (status, data["exc_type"], data["wrapped_by"]) == (1, "ValidationError", "CacheConfig")
    assert [(e["type"], e["loc"]) for e in data["errors"]] == [("value_error", ["cache_dtype"]),
                                                               ("greater_than", ["replayssm_buffer_len"])]
    assert data["errors"][0]["msg"].startswith("Value error, Invalid kv_cache_dtype: 'fp4'. Valid values are: [")


# -- 0.30.0+: a watermark config and HiSparse force Model Runner V2 -------------------------------------------------

WATERMARK = ("--watermark-config", '{"key": 1}')


@pytest.mark.parametrize("version", ["0.30.0", "0.33.0"])
def test_a_watermark_config_forces_the_v2_runner_whatever_the_variable_says(serve_json, version):
    # the V1 runner would refuse each of these; the release runs V2 (the oracle host, no Triton, answered so too)
    assert serve_json(version, *WATERMARK, "--enable-trace-replay", env=NO_TRITON)[1]["ok"] is True
    assert serve_json(version, *WATERMARK, "--enable-return-routed-experts", model="Qwen/Qwen3-30B-A3B",
                      env=NO_TRITON)[1]["ok"] is True


def test_a_watermark_config_without_triton():
    """The forced V2 runner on a host without Triton: 0.30.0 - 0.32.0 refuse it (as the oracle host answered), 0.33.0
    checks Triton no more."""
    host = Host(platform="cuda", triton=False)
    launch = "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3-8B --watermark-config '{\"key\": 1}' --enable-trace-replay"
    refused = kvguard.examine("0.30.0", launch, host=host).verdict
    assert (refused.check, refused.exc_type, refused.wrapped_by, refused.message) == (
        "VC_mrv2_triton", "ValueError", "VllmConfig", "Model Runner V2 requires Triton.")
    assert kvguard.examine("0.33.0", launch, host=host).verdict.ok is True


@pytest.mark.parametrize("value,why", [
    ("{}", "non-negative integer key"),
    ('{"key": -1}', "non-negative integer key"),
    ('{"key": 1, "algorithm": "x"}', "non-negative integer key"),
])
def test_a_watermark_config_kvguard_cannot_vouch_for(capsys, value, why):
    from kvguard.cli import run

    assert run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--watermark-config",
                value]) == 2
    assert why in capsys.readouterr().err


@pytest.mark.parametrize("args,why", [
    (("--attention-config", '{"hisparse_config": {}}'), "HiSparse"),
    (("--kv-transfer-config", '{"kv_connector": "HiSparseConnector", "kv_role": "kv_both"}'), "HiSparse"),
    ((*WATERMARK, "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 2}'),
     "watermark-config with speculative decoding"),
])
def test_what_the_v2_overrides_check_is_undecidable(capsys, args, why):
    from kvguard.cli import run

    assert run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-8B", *args]) == 2
    assert why in capsys.readouterr().err
