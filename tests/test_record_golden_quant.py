"""The model-construction golden recorder's reading of a case's launch (tools/record_golden_quant.py): the parallel
layout it hands the oracle (tests/upstream/quant_runner.py) is the one the case's argv states.  Expected values are
written by hand."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

_TOOL = Path(__file__).resolve().parents[1] / "tools" / "record_golden_quant.py"


@pytest.fixture(scope="module")
def tool():
    # the tool's module namespace (run as a module, not as __main__: it records nothing)
    return SimpleNamespace(**runpy.run_path(str(_TOOL)))


@pytest.mark.parametrize("argv, layout", [
    ([], {"tp": 1}),
    (["-tp", "16", "--nnodes", "2"], {"tp": 16}),
    (["-tp", "8", "--quantization", "fp8"], {"tp": 8}),
    (["-tp", "8", "--mm-encoder-tp-mode", "data"], {"tp": 8}),
    (["-dp", "8", "--enable-expert-parallel"], {"tp": 1, "dp": 8, "ep": True}),
    (["-dp", "5", "--enable-expert-parallel", "--enable-eplb"], {"tp": 1, "dp": 5, "ep": True, "eplb": True}),
    (["-tp", "2", "-dp", "4", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
      '{"num_redundant_experts": 8}'], {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8}),
])
def test_the_layout_is_the_argv_s(tool, argv, layout):
    assert tool.launch_layout(argv) == layout


def test_every_case_states_no_layout_of_its_own(tool):
    # the argv is the one statement of a case's layout: a second one could contradict it
    assert [c["id"] for c in tool.CASES if "layout" in c] == []
