"""The rows tagged option-only for the cached checks' speed (Row.options: the load-balancing, multi-node, EPLB, elastic
EP, fault-tolerance, routed-experts, tool-choice, dtype and humming rows): a launch that gives none of their options
runs a program without them, and answers as the whole program does; a launch that gives one still reaches them."""

from __future__ import annotations

import pytest

import kvguard
from kvguard.launch.layout import Host, Layout
from kvguard.rules import engine
from kvguard.versions import resolve

#: the rows tagged in session 56 (each with the option that can make it fire)
TAGGED = {
    "FE_auto_tool_needs_parser": "enable_auto_tool_choice", "FE_tool_call_parser": "enable_auto_tool_choice",
    "MC_dtype_float16": "dtype", "MC_quant_gpt_oss_humming": "quantization",
    "EA_headless_hybrid": "data_parallel_hybrid_lb", "EA_hybrid_and_external": "data_parallel_hybrid_lb",
    "EA_nnodes_dp_backend": "nnodes", "EA_nnodes_world_size": "nnodes", "EA_node_rank": "nnodes",
    "EA_extlb_nnodes_dp": "nnodes", "EA_ft_requires_extlb": "enable_fault_tolerance",
    "PC_elastic_needs_eplb": "enable_elastic_ep", "PC_elastic_pp": "enable_elastic_ep",
    "PC_elastic_lb": "enable_elastic_ep", "PC_elastic_nixl": "enable_elastic_ep",
    "PV_ft_api": "enable_fault_tolerance", "PV_eplb_platform": "enable_eplb", "PV_eplb_needs_ep": "enable_eplb",
    "PV_eplb_needs_parallel": "enable_eplb", "PV_redundant_without_eplb": "num_redundant_experts",
    "VC_aux_routed_pp": "enable_return_routed_experts", "VC_aux_routed_cp": "enable_return_routed_experts",
}


@pytest.mark.parametrize("version", ["0.11.1", "0.20.0", "0.27.0", "0.33.0"])
def test_the_tagged_rows_leave_the_default_program_only(version):
    release = resolve(version)
    _calls, plain = engine._program(release, "serve")
    _calls, with_options = engine._program(release, "serve" + engine._WITH_OPTIONS)
    assert not set(TAGGED) & {row.id for row in plain}
    tagged_here = {row.id for row in with_options} & set(TAGGED)
    assert {"EA_nnodes_world_size", "EA_node_rank", "PV_eplb_needs_ep", "PV_redundant_without_eplb"} <= tagged_here
    for row in with_options:
        if row.id in TAGGED:
            assert TAGGED[row.id] in row.options


def _verdict(model: str, version: str, host: Host, fields: dict):
    try:
        v = kvguard.check(model, vllm_version=version, host=host, **fields)
    except kvguard.Undecidable as exc:
        return ("undecidable", str(exc))
    return (v.ok, v.check, v.exc_type, v.message, v.wrapped_by, v.skipped, v.assumptions)


LAYOUTS = [{"tp": tp, "dcp": dcp, "pp": pp, "dp": dp}
           for tp in (1, 2, 3, 8, 16) for dcp in (1, 2, 8) for pp, dp in ((1, 1), (2, 1), (1, 2), (4, 2))]


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.17.0", "0.24.0", "0.27.0", "0.31.0", "0.33.0"])
@pytest.mark.parametrize("model", ["deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-32B"])
def test_launches_without_the_options_answer_as_the_whole_program(monkeypatch, version, model):
    hosts = (Host.cuda_node(), Host())  # known and unknown host facts: a skipped check is part of the answer
    gated = [_verdict(model, version, host, lay) for host in hosts for lay in LAYOUTS]
    monkeypatch.setattr(engine, "_OPTION_FIELDS", frozenset(Layout.model_fields))  # every launch: the whole program
    whole = [_verdict(model, version, host, lay) for host in hosts for lay in LAYOUTS]
    assert gated == whole
    assert len({answer[:2] for answer in gated}) > 2  # refused by several rows, accepted too


# upstream messages (vllm/config/parallel.py, vllm/engine/arg_utils.py, vllm/config/vllm.py of the release)
GIVEN = [
    ("0.33.0", "deepseek-ai/DeepSeek-R1", {"tp": 8, "enable_eplb": True},
     ("ValueError", "enable_expert_parallel must be True to use EPLB.", "ParallelConfig")),
    ("0.20.0", "Qwen/Qwen3-32B", {"tp": 2, "nnodes": 4},
     ("AssertionError", "world_size=2 must be divisible by nnodes=4.", None)),
    ("0.33.0", "Qwen/Qwen3-32B", {"tp": 2, "num_redundant_experts": 2},
     ("ValueError", "num_redundant_experts is set to 2 but EPLB is not enabled. Either enable EPLB or unset "
                    "num_redundant_experts.", "ParallelConfig")),
    ("0.33.0", "deepseek-ai/DeepSeek-R1", {"tp": 4, "pp": 2, "enable_return_routed_experts": True},
     ("ValueError", "--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).",
      "VllmConfig")),
]


@pytest.mark.parametrize(("version", "model", "fields", "expected"), GIVEN)
def test_a_launch_giving_the_option_still_reaches_the_row(version, model, fields, expected):
    v = kvguard.check(model, vllm_version=version, host=Host.cuda_node(), **fields)
    assert (v.exc_type, v.message, v.wrapped_by) == expected


# ---------------------------------------------------------------------------
# Row.env (session 57): the logging rows read three variables and five options; a launch that sets none of the
# variables and gives none of the options runs a program without them (and kvguard.rules.check skips the logging
# refusal asked before any config is built)

LOGGING_ROWS = {"FE_logging_disabled", "fe_logging_level_field", "FE_logging_level", "FE_logging_config_file",
                "ea_logging_level_field"}


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.30.0", "0.31.0", "0.33.0"])
def test_the_logging_rows_leave_the_default_program_only(version):
    release = resolve(version)
    _calls, plain = engine._program(release, "serve")
    _calls, with_env = engine._program(release, "serve" + engine._WITH_ENV)
    _calls, with_options = engine._program(release, "serve" + engine._WITH_OPTIONS)
    assert not LOGGING_ROWS & {row.id for row in plain}
    expected = {"FE_logging_disabled", "FE_logging_level", "FE_logging_config_file"}
    if version >= "0.31.0":
        expected |= {"fe_logging_level_field", "ea_logging_level_field"}
    assert LOGGING_ROWS & {row.id for row in with_env} == expected
    assert LOGGING_ROWS & {row.id for row in with_options} == expected
    # the option-only rows stay out of the environment's program
    assert not set(TAGGED) & {row.id for row in with_env}
    for row in with_env:
        if row.id in LOGGING_ROWS:
            assert row.env == ("VLLM_CONFIGURE_LOGGING", "VLLM_LOGGING_LEVEL", "VLLM_LOGGING_CONFIG_PATH")
            assert "log_config_file" in row.options


def test_the_logging_inputs_are_named_by_the_variables_and_options_the_rows_read():
    from kvguard.rules import host_options

    empty = Layout()
    assert not host_options.logging_inputs_given(empty, {})
    assert not host_options.logging_inputs_given(empty, {"VLLM_USE_V1": "1", "CUDA_VISIBLE_DEVICES": "0"})
    assert host_options.logging_inputs_given(empty, {"VLLM_LOGGING_LEVEL": "INFO"})
    assert host_options.logging_inputs_given(empty, {"VLLM_CONFIGURE_LOGGING": ""})
    assert host_options.logging_inputs_given(Layout(log_config_file="/x.json"), {})
    assert host_options.logging_inputs_given(Layout(logging_level_given=True), {})


def _all_rows(monkeypatch):
    """Every launch runs the whole program and asks the logging refusal before the configs."""
    monkeypatch.setattr(engine, "_OPTION_FIELDS", frozenset(Layout.model_fields))
    monkeypatch.setattr("kvguard.rules.check.logging_inputs_given", lambda lay, env: True)


ENVS = [{}, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_LOGGING_LEVEL": "NOPE"}, {"VLLM_LOGGING_LEVEL": "warn"},
        {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "/srv/log.json"},
        {"VLLM_LOGGING_CONFIG_PATH": "/srv/log.json"}, {"VLLM_CONFIGURE_LOGGING": "x"}]
LOGGING_FIELDS = [{}, {"logging_level_given": True}, {"log_config_file": "/srv/log.json"},
                  {"logging_configure": False, "logging_config_file": "/srv/log.json"}]


def _env_verdict(version: str, env: dict, fields: dict, lay: dict):
    try:
        v = kvguard.check("Qwen/Qwen3-32B", vllm_version=version, host=Host.cuda_node(), env=env, **fields, **lay)
    except kvguard.Undecidable as exc:
        return ("undecidable", str(exc))
    return (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by, v.skipped, v.assumptions)


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.24.0", "0.30.0", "0.31.0", "0.33.0"])
def test_launches_with_or_without_logging_inputs_answer_as_the_whole_program(monkeypatch, version):
    layouts = [{"tp": 2}, {"tp": 3}, {"tp": 8, "dcp": 16}]
    cases = [(env, fields, lay) for env in ENVS for fields in LOGGING_FIELDS for lay in layouts
             if version >= "0.31.0" or not fields]  # the options exist from 0.31.0
    gated = [_env_verdict(version, *case) for case in cases]
    _all_rows(monkeypatch)
    whole = [_env_verdict(version, *case) for case in cases]
    assert gated == whole
    checks = {answer[2] for answer in gated if answer[0] is False}
    assert "FE_logging_level" in checks and "FE_logging_disabled" in checks  # the logging rows still refuse
    assert {answer[0] for answer in gated} >= {True, False, "undecidable"}
