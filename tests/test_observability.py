"""ObservabilityConfig's options (kvguard.rules.observability): what the releases answered
(tests/upstream/test_observability.py and the golden cases obs-*, serve path), written out literally."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.cli import run
from kvguard.launch.layout import join_list, list_values, make_layout


@pytest.mark.parametrize("version", ["0.11.1", "0.20.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("modules", [["all"], ["worker", "model"]])
def test_detailed_traces_need_an_endpoint_from_0_11_1(serve_json, version, modules):
    status, data = serve_json(version, "--collect-detailed-traces", *modules)
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "observability", "OBS_traces_without_endpoint", "ValueError", "ObservabilityConfig",
        "collect_detailed_traces requires `--otlp-traces-endpoint` to be set.")


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_detailed_traces_without_an_endpoint_are_taken_before_0_11_1(serve_json, version):
    status, data = serve_json(version, "--collect-detailed-traces", "all", "--show-hidden-metrics-for-version",
                              "x")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.11.1", "0.20.0", "0.33.0"])
def test_a_hidden_metrics_version_that_is_none_comes_first(serve_json, version):
    status, data = serve_json(version, "--show-hidden-metrics-for-version", "x", "--collect-detailed-traces",
                              "all")
    assert (status, data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "OBS_hidden_metrics_version", "InvalidVersion", "ObservabilityConfig", "Invalid version: 'x'")


@pytest.mark.parametrize("value", ["0.10", "1.0.0rc1", " 0.9 "])
def test_a_hidden_metrics_version_is_parsed_as_packaging_does(serve_json, value):
    status, data = serve_json("0.33.0", "--show-hidden-metrics-for-version", value)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
def test_an_endpoint_passes_from_0_17_0(serve_json, version):
    status, data = serve_json(version, "--collect-detailed-traces", "all", "--otlp-traces-endpoint",
                              "http://localhost:4317")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.16.0"])
def test_an_endpoint_is_undecidable_before_0_17_0(capsys, serve_json, version):
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  "--otlp-traces-endpoint", "http://localhost:4317"])
    assert status == 2
    assert "OpenTelemetry" in capsys.readouterr().err


@pytest.mark.parametrize("version,value", [("0.10.2", "model,worker"), ("0.20.0", "model,worker"),
                                           ("0.33.0", "None")])
def test_a_value_that_is_no_module_is_undecidable(capsys, serve_json, version, value):
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  "--collect-detailed-traces", value])
    assert status == 2
    assert "no module name" in capsys.readouterr().err


@given(st.lists(st.text(alphabet=st.characters(exclude_characters="\0"), min_size=1), min_size=1, max_size=4))
def test_a_list_option_keeps_its_words_in_order(values):
    kept = make_layout(collect_detailed_traces=join_list(values)).collect_detailed_traces
    assert list_values(kept) == values


def test_a_list_option_writes_none_as_the_word_none():
    assert list_values(join_list(["model", None])) == ["model", "None"]
    assert list_values(None) == []


@pytest.mark.parametrize(("version", "value", "error_type", "message"), [
    ("0.12.0", "0", "greater_than", "Input should be greater than 0"),
    ("0.20.0", "=-0.5", "greater_than", "Input should be greater than 0"),
    ("0.33.0", "1.5", "less_than_equal", "Input should be less than or equal to 1"),
])
def test_a_metrics_sample_out_of_its_bound_is_refused(serve_json, version, value, error_type, message):
    """--kv-cache-metrics-sample, an option kvguard otherwise passes over: ObservabilityConfig's field bound
    (tests/upstream/test_observability.py, golden obs-passed-over-*)."""
    args = ["--kv-cache-metrics-sample" + value] if value.startswith("=") else ["--kv-cache-metrics-sample", value]
    status, data = serve_json(version, *args)
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["message"]) == (
        1, "ValidationError", "ObservabilityConfig", "observability", message)
    assert data["errors"] == [{"type": error_type, "loc": ["kv_cache_metrics_sample"], "msg": message}]


def test_the_last_metrics_sample_is_the_one_validated(serve_json):
    status, data = serve_json("0.20.0", "--kv-cache-metrics-sample", "2", "--kv-cache-metrics-sample", "0.5")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("args", [["--kv-cache-metrics-sample", "inf"],
                                  ["--kv-cache-metrics-sample", "0", "--custom-histogram-buckets", "{}"]])
def test_what_kvguard_does_not_render_of_the_metrics_sample_is_undecidable(capsys, args):
    status = run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    assert status == 2
    assert "--kv-cache-metrics-sample" in capsys.readouterr().err


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
def test_an_invalid_version_beside_the_sample_bound_is_one_validation_error(serve_json, version):
    """0.20.0's answer (tests/upstream/test_observability.py): the version's field validator error, then the bound's."""
    status, data = serve_json(version, "--show-hidden-metrics-for-version", "latest", "--kv-cache-metrics-sample", "0")
    assert (status, data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "ValidationError", "ObservabilityConfig", "Value error, Invalid version: 'latest'")
    assert data["errors"] == [
        {"type": "value_error", "loc": ["show_hidden_metrics_for_version"], "msg": "Value error, Invalid version: 'latest'"},
        {"type": "greater_than", "loc": ["kv_cache_metrics_sample"], "msg": "Input should be greater than 0"}]


def test_an_invalid_version_beside_an_otlp_endpoint_before_0_17_0_is_undecidable(serve_json):
    # 0.12.0's oracle joins OpenTelemetry's import refusal (the host's) to the version's error
    status, data = serve_json("0.12.0", "--show-hidden-metrics-for-version", "x", "--otlp-traces-endpoint",
                              "grpc://collector:4317")
    assert status == 2
    assert "OpenTelemetry" in data["reason"]
