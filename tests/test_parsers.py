"""The tool-call and reasoning parser checks (kvguard.rules.parsers): what the releases answered
(tests/upstream/test_parsers.py, serve path with the front end), written out literally."""

from __future__ import annotations

import pytest

from kvguard.rules.parsers import registered
from kvguard.versions import KNOWN_RELEASES

TOOLS_0_10_2 = ("deepseek_v3,deepseek_v31,glm45,granite-20b-fc,granite,hermes,hunyuan_a13b,internlm,jamba,kimi_k2,"
                "llama4_pythonic,llama4_json,llama3_json,minimax,mistral,openai,phi4_mini_json,pythonic,qwen3_coder,"
                "seed_oss,step3,xlam")
TOOLS_0_20_0 = ("deepseek_v3,deepseek_v31,deepseek_v32,deepseek_v4,ernie45,functiongemma,gemma4,gigachat3,glm45,glm47,"
                "granite,granite-20b-fc,granite4,hermes,hunyuan_a13b,hy_v3,internlm,jamba,kimi_k2,llama3_json,"
                "llama4_json,llama4_pythonic,longcat,mimo,minimax,minimax_m2,mistral,olmo3,openai,phi4_mini_json,"
                "pythonic,qwen3_coder,qwen3_xml,seed_oss,step3,step3p5,xlam")
REASONING_0_11_1 = ("deepseek_r1,deepseek_v3,ernie45,glm45,granite,hunyuan_a13b,kimi_k2,minimax_m2,"
                    "minimax_m2_append_think,mistral,olmo3,openai_gptoss,qwen3,seed_oss,step3")
REASONING_0_20_0 = ("deepseek_r1, deepseek_v3, deepseek_v4, ernie45, gemma4, glm45, granite, holo2, hunyuan_a13b, hy_v3, "
                    "kimi_k2, mimo, minimax_m2, minimax_m2_append_think, mistral, nemotron_v3, olmo3, openai_gptoss, "
                    "qwen3, seed_oss, step3, step3p5")


def test_a_tool_parser_of_a_newer_release_is_refused_by_the_api_server(serve_json):
    status, data = serve_json("0.10.2", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_xml")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "frontend", "FE_tool_call_parser", "KeyError", None,
        f"'invalid tool call parser: qwen3_xml (chose from {{ {TOOLS_0_10_2} }})'")


def test_the_tool_parser_message_lists_the_release_s_names(serve_json):
    status, data = serve_json("0.20.0", "--enable-auto-tool-choice", "--tool-call-parser", "x")
    assert (status, data["message"]) == (1, f"'invalid tool call parser: x (chose from {{ {TOOLS_0_20_0} }})'")


@pytest.mark.parametrize("args", [
    ("--tool-call-parser", "x"),                                   # not looked up without auto tool choice
    ("--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"),
    ("--headless", "--enable-auto-tool-choice", "--tool-call-parser", "x"),   # no API server
])
def test_tool_parsers_the_release_takes(serve_json, args):
    status, data = serve_json("0.20.0", *args)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("args", [("--enable-auto-tool-choice",),
                                  ("--enable-auto-tool-choice", "--tool-call-parser", "None")])
def test_auto_tool_choice_needs_a_parser(serve_json, args):
    status, data = serve_json("0.33.0", *args)
    assert (status, data["stage"], data["check"], data["exc_type"], data["message"]) == (
        1, "frontend", "FE_auto_tool_needs_parser", "TypeError",
        "Error: --enable-auto-tool-choice requires --tool-call-parser")


def test_a_plugin_may_register_the_tool_parser(serve_json):
    status, data = serve_json("0.20.0", "--enable-auto-tool-choice", "--tool-call-parser", "mine",
                              "--tool-parser-plugin", "/opt/my_parser.py")
    assert status == 2
    status, data = serve_json("0.20.0", "--enable-auto-tool-choice", "--tool-call-parser", "mine",
                              "--tool-parser-plugin", "abc")          # a plugin path of 3 characters is not imported
    assert (status, data["check"]) == (1, "FE_tool_call_parser")


def test_reasoning_parser_0_11_1_structured_outputs_validator(serve_json):
    status, data = serve_json("0.11.1", "--reasoning-parser", "x")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "verify", "VC_reasoning_parser", "ValueError", "VllmConfig",
        f"invalid reasoning parser: x (chose from {{ {REASONING_0_11_1} }})")


def test_reasoning_parser_0_20_0_reasoning_config(serve_json):
    status, data = serve_json("0.20.0", "--reasoning-parser", "x")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "verify", "VC_reasoning_parser", "KeyError", None,
        f"\"Reasoning parser 'x' not found. Available parsers: {REASONING_0_20_0}\"")


def test_reasoning_parser_0_14_1_engine_core(serve_json):
    status, data = serve_json("0.14.1", "--reasoning-parser", "deepseek_v4")
    assert (status, data["stage"], data["check"], data["exc_type"]) == (1, "worker", "EC_reasoning_parser", "KeyError")
    assert data["message"].startswith("\"Reasoning parser 'deepseek_v4' not found. Available parsers: deepseek_r1, ")
    status, data = serve_json("0.14.1", "--reasoning-parser", "deepseek_v4", "--skip-tokenizer-init")
    assert status == 2


@pytest.mark.parametrize("version,args,ok", [
    ("0.20.0", ("--reasoning-parser", "deepseek_v4"), True),
    ("0.18.0", ("--reasoning-parser", "deepseek_v4"), False),
    ("0.33.0", ("--reasoning-parser", "NONE"), True),        # 0.33.0 reads "none" as no parser
    ("0.28.0", ("--reasoning-parser", "none"), False),
    ("0.20.0", ("--reasoning-parser", "mine", "--reasoning-parser-plugin", "/opt/mine.py"), None),
    ("0.20.0", ("--reasoning-parser", "mine", "--reasoning-config", '{"reasoning_start_str": "<a>"}'), None),
])
def test_reasoning_parsers_by_release(serve_json, version, args, ok):
    status, data = serve_json(version, *args)
    assert status == {True: 0, False: 1, None: 2}[ok]


def test_0_10_2_lists_reasoning_parsers_as_argparse_choices(serve_json):
    status, data = serve_json("0.10.2", "--reasoning-parser", "qwen4")
    assert (status, data["stage"]) == (1, "argparse")


def test_every_release_is_measured():
    """A release added without running tools/measure_parser_names.py fails here (its launches would be undecidable)."""
    assert [v for v in KNOWN_RELEASES if registered(v, "tool") is None] == []
    assert [v for v in KNOWN_RELEASES if registered(v, "reasoning") is None] == ["0.10.2", "0.11.0"]
    assert (len(registered("0.10.2", "tool")), len(registered("0.33.0", "tool")) > 50) == (22, True)


# the API server's checks run only where vllm serve starts one (vllm/entrypoints/cli/serve.py); the releases'
# answers (tests/upstream/test_parsers.py, seeds 3 and 7)
@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("count", ["0", "-1"])
def test_no_api_server_below_one_api_server(serve_json, version, count):
    # run_headless: no validate_api_server_args, so an unknown tool-call parser is never looked up
    status, data = serve_json(version, "--enable-auto-tool-choice", "--tool-call-parser", "x",
                              "--api-server-count", count)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("count", ["1", "2"])
def test_one_or_more_api_servers_check_the_tool_parser(serve_json, count):
    status, data = serve_json("0.20.0", "--enable-auto-tool-choice", "--tool-call-parser", "x", "-asc", count)
    assert (status, data["check"], data["message"]) == (
        1, "FE_tool_call_parser", f"'invalid tool call parser: x (chose from {{ {TOOLS_0_20_0} }})'")


def test_grpc_is_undecidable_after_the_serve_checks(serve_json):
    # the gRPC server's optional package (vllm[grpc]) is the host's; validate_parsed_serve_args runs before it
    status, data = serve_json("0.20.0", "--grpc", "--enable-auto-tool-choice", "--tool-call-parser", "x")
    assert status == 2
    status, data = serve_json("0.20.0", "--grpc", "--enable-auto-tool-choice")
    assert (status, data["check"], data["exc_type"]) == (1, "FE_auto_tool_needs_parser", "TypeError")
    status, data = serve_json("0.11.1", "--grpc")       # no --grpc option before 0.20.0
    assert (status, data["stage"]) == (1, "argparse")


REASONING_API_0_20_0 = REASONING_0_20_0.replace(", ", ",")


def test_the_api_server_looks_up_the_structured_outputs_reasoning_parser(serve_json):
    status, data = serve_json("0.20.0", "--structured-outputs-config", '{"reasoning_parser": "muse"}')
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "frontend", "FE_reasoning_parser", "KeyError", None,
        f"'invalid reasoning parser: muse (chose from {{ {REASONING_API_0_20_0} }})'")
    # after the tool-call parser
    status, data = serve_json("0.20.0", "--structured-outputs-config", '{"reasoning_parser": "muse"}',
                              "--enable-auto-tool-choice", "--tool-call-parser", "x")
    assert data["check"] == "FE_tool_call_parser"


@pytest.mark.parametrize("args,ok", [
    (("--structured-outputs-config", '{"reasoning_parser": "qwen3"}'), True),
    # not --reasoning-parser's name: create_engine_config copies it in later
    (("--reasoning-parser", "qwen3", "--structured-outputs-config", '{"reasoning_parser": "muse"}'), False),
    # no API server: the engine's lookup of the JSON's name is not modelled, unless --reasoning-parser replaces it
    (("--headless", "--structured-outputs-config", '{"reasoning_parser": "muse"}'), None),
    (("--headless", "--reasoning-parser", "qwen3", "--structured-outputs-config", '{"reasoning_parser": "muse"}'), True),
    (("--structured-outputs-config", '{"reasoning_parser": "mine"}', "--reasoning-parser-plugin", "/opt/m.py"), None),
])
def test_structured_outputs_reasoning_parser(serve_json, args, ok):
    status, data = serve_json("0.20.0", *args)
    assert status == {True: 0, False: 1, None: 2}[ok]


@pytest.mark.parametrize("version,args,ok", [
    # cohere_command_reasoning_parser.py imports cohere_melody (0.21.0 - 0.29.0), the host's optional package
    ("0.28.0", ("--structured-outputs-config", '{"reasoning_parser": "cohere_command4"}'), None),
    ("0.28.0", ("--reasoning-parser", "cohere_command3"), None),
    ("0.30.0", ("--reasoning-parser", "cohere_command3"), True),
])
def test_a_reasoning_parser_needing_an_optional_package(serve_json, version, args, ok):
    status, data = serve_json(version, *args)
    assert status == {True: 0, False: 1, None: 2}[ok]
