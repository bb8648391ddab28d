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
