"""validate_parsed_serve_args's checks (kvguard.rules.serve_args): what the releases answered
(tests/upstream/test_serve_args.py, the serve path with the front end), written out literally."""

from __future__ import annotations

import pytest


def _front_skips(data: dict) -> list:
    """The front end's skipped checks (0.10.2 also skips the swap space's, for want of the host's memory)."""
    return [s["check"] for s in data["skipped"] if s["check"].startswith("FE_")]


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


LOG_OUTPUTS = "Error: --enable-log-outputs requires --enable-log-requests"
PER_REQUEST = ("Error: --enable-per-request-metrics requires engine statistics logging; remove --disable-log-stats to "
               "enable per-request metrics.")
SSE = "Error: --sse-keep-alive-interval must be a non-negative integer (0 disables keep-alive comments)."
RUST = "--grpc-port requires VLLM_USE_RUST_FRONTEND=1 vllm serve"


@pytest.mark.parametrize("version", ["0.11.0", "0.20.0", "0.33.0"])
def test_log_outputs_need_log_requests(serve_json, version):
    status, data = serve_json(version, "--enable-log-outputs")
    assert (status, *_refusal(data)) == (1, "frontend", "FE_log_outputs_needs_requests", "TypeError", None,
                                         LOG_OUTPUTS)


def test_log_outputs_alone_pass_0_10_2_and_with_requests_later(serve_json):
    assert serve_json("0.10.2", "--enable-log-outputs")[1]["ok"] is True
    assert serve_json("0.33.0", "--enable-log-outputs", "--enable-log-requests")[1]["ok"] is True


def test_per_request_metrics_need_stats(serve_json):
    status, data = serve_json("0.25.0", "--enable-per-request-metrics", "--disable-log-stats")
    assert (status, *_refusal(data)) == (1, "frontend", "FE_per_request_metrics", "ValueError", None, PER_REQUEST)


def test_the_keep_alive_interval_comes_before_the_metrics(serve_json):
    status, data = serve_json("0.29.0", "--enable-per-request-metrics", "--disable-log-stats",
                              "--sse-keep-alive-interval", "-1")
    assert (status, data["check"], data["message"]) == (1, "FE_sse_keep_alive", SSE)


@pytest.mark.parametrize(("args", "env", "message"), [
    (("--grpc-port", "9000"), (), RUST),
    (("--grpc-port", "9000"), ("VLLM_USE_RUST_FRONTEND=yes",), "invalid literal for int() with base 10: 'yes'"),
    (("--grpc-port", "9000", "--grpc"), (), "--grpc and --grpc-port are mutually exclusive. Use --grpc --port for "
     "the Python gRPC server, or VLLM_USE_RUST_FRONTEND=1 with --grpc-port for the Rust frontend."),
    (("--grpc-port", "70000"), ("VLLM_USE_RUST_FRONTEND=1",), "--grpc-port must be between 0 and 65535"),
    (("--grpc-port", "8000"), ("VLLM_USE_RUST_FRONTEND=1",), "--grpc-port must differ from --port when HTTP uses TCP"),
    (("--grpc-port", "9000", "--headless"), ("VLLM_USE_RUST_FRONTEND=1",),
     "--grpc-port requires a Rust frontend; remove --headless and non-positive --api-server-count"),
    (("--grpc-port", "9000", "-dpm", "-dp", "4", "-dpl", "2"), ("VLLM_USE_RUST_FRONTEND=1",),
     "--grpc-port is incompatible with --data-parallel-multi-port-external-lb: its frontends would share the same "
     "gRPC port"),
])
def test_the_grpc_port(serve_json, args, env, message):
    status, data = serve_json("0.33.0", *args, env=env)
    assert (status, *_refusal(data)) == (1, "frontend", "FE_grpc_port", "ValueError", None, message)


def test_a_grpc_port_the_rust_frontend_takes(serve_json):
    status, data = serve_json("0.32.0", "--grpc-port", "8000", "--uds", "/tmp/s.sock",
                              env=("VLLM_USE_RUST_FRONTEND=1",))
    assert data.get("check") != "FE_grpc_port"


@pytest.mark.parametrize(("version", "args", "message"), [
    ("0.22.0", ("-dp", "1"), "Error: --data-parallel-multi-port-external-lb requires --data-parallel-size > 1"),
    ("0.22.0", ("-dp", "4", "-dpl", "2", "--ssl-ca-certs", "ca.pem"),
     "Error: --data-parallel-multi-port-external-lb does not support HTTPS yet"),
    ("0.23.0", ("-dp", "4", "-dpl", "2", "--ssl-keyfile", "k.pem"),
     "Error: --ssl-keyfile and --ssl-certfile must be provided together"),
    ("0.33.0", ("-dp", "4", "-dpl", "1"),
     "Error: --data-parallel-multi-port-external-lb requires --data-parallel-size-local >= 2"),
    ("0.33.0", ("-dp", "4", "-dpl", "8"), "Error: --data-parallel-size-local cannot exceed --data-parallel-size"),
    ("0.33.0", ("-dp", "6", "-dpl", "4"), "Error: --data-parallel-size must be divisible by --data-parallel-size-local"),
    ("0.33.0", ("-dp", "4", "-dpl", "2", "-dpr", "3"),
     "Error: multi-port supervised ranks would exceed --data-parallel-size"),
    ("0.33.0", ("-dp", "4", "-dpl", "2", "--data-parallel-supervisor-port", "8001"),
     "Error: --data-parallel-supervisor-port 8001 overlaps with child rank ports 8000-8001"),
    ("0.22.0", ("-dp", "4", "-dpl", "2", "--port", "9255"),
     "Error: --data-parallel-supervisor-port 9256 overlaps with child rank ports 9255-9256"),
    ("0.33.0", ("-dp", "4", "-dpl", "2", "--data-parallel-hybrid-lb"),
     "Error: --data-parallel-multi-port-external-lb cannot be combined with --data-parallel-external-lb or "
     "--data-parallel-hybrid-lb"),
])
def test_the_multi_port_external_load_balancer(serve_json, version, args, message):
    status, data = serve_json(version, "--data-parallel-multi-port-external-lb", *args)
    assert (status, *_refusal(data)) == (1, "frontend", "FE_multi_port_external_lb", "ValueError", None, message)


@pytest.mark.parametrize(("version", "template"), [
    ("0.20.0", "template_chatml.jinja"), ("0.25.1", "template_fuyu.jinja"), ("0.33.0", "registry.py"),
    ("0.10.2", "{{ messages }}"), ("0.33.0", "."), ("0.10.2", "/"),
])
def test_chat_templates_every_host_has(serve_json, version, template):
    status, data = serve_json(version, "--chat-template", template)
    assert (status, data["ok"], _front_skips(data)) == (0, True, [])


@pytest.mark.parametrize(("version", "template"), [
    ("0.10.2", "template_chatml.jinja"),   # no built-in directory before 0.13.0
    ("0.26.0", "template_fuyu.jinja"),     # removed in 0.26.0
    ("0.33.0", "examples/tool_chat_template_hermes.jinja"),
])
def test_a_template_file_is_the_host_s(serve_json, version, template):
    status, data = serve_json(version, "--chat-template", template)
    assert (status, data["ok"], _front_skips(data)) == (0, True, ["FE_chat_template_path"])
    assert "whether it does is not known to kvguard" in data["skipped"][0]["reason"]


@pytest.mark.parametrize(("version", "skips"), [
    ("0.30.0", []),                        # the uvicorn log config, read when the server starts, never refused
    ("0.31.0", ["FE_log_config_file"]),    # vllm serve applies it right after argparse: a missing file is refused
    ("0.33.0", ["FE_log_config_file"]),    # the deprecated option's own argparse action, a plain store
])
def test_a_log_config_file_is_the_host_s(serve_json, version, skips):
    status, data = serve_json(version, "--log-config-file", "/srv/logging.json")
    assert (status, data["ok"], _front_skips(data)) == (0, True, skips)


def test_an_empty_log_config_file_is_no_file(serve_json):
    status, data = serve_json("0.33.0", "--log-config-file=")
    assert (status, data["ok"], _front_skips(data)) == (0, True, [])
