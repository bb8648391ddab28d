"""--enable-hc-sp with -tp above 1 (kvguard.launch.argv _HC_SP_PROBLEM): vLLM 0.32.0-0.33.0's
ModelConfig.verify_with_parallel_config refuses it first thing off CUDA (0.33.0: CUDA and ROCm), for a model class
without SupportsHCSP and with -pp above 1; kvguard renders none of these, and had accepted them (or given the
attention-heads refusal that comes after).  What the releases answered (tools/option_sweep.py --pairs on mamba-2.8b,
0.33.0; the CPU oracle), written out by hand."""

from __future__ import annotations

import pytest


def _reason(tp: int, version: str) -> str:
    return (f"--enable-hc-sp with -tp {tp}: vLLM {version}'s ModelConfig.verify_with_parallel_config refuses it off "
            "CUDA, for a model class without SupportsHCSP or with -pp above 1 (ValueErrors kvguard does not render)")


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
@pytest.mark.parametrize(("args", "tp"), [
    (("--enable-hc-sp", "-tp", "2"), 2),
    (("--enable-hc-sp", "-tp", "2", "-pp", "2"), 2),
    # 32 heads do not divide by 3: the heads' refusal comes after hc-sp's
    (("-tp", "3", "--enable-hc-sp"), 3),
])
def test_hc_sp_with_tensor_parallelism_is_undecidable(serve_json, version, args, tp):
    status, data = serve_json(version, *args)
    assert (status, data["ok"], data["reason_kind"], data["reason"]) == (2, None, "undecidable", _reason(tp, version))


@pytest.mark.parametrize("args", [
    ("--enable-hc-sp",),
    ("--enable-hc-sp", "-pp", "2"),
    # the last switch counts
    ("--enable-hc-sp", "-tp", "2", "--no-enable-hc-sp"),
])
def test_what_is_accepted(serve_json, args):
    status, data = serve_json("0.33.0", *args)
    assert (status, data["ok"]) == (0, True)


def test_the_heads_refusal_without_hc_sp(serve_json):
    status, data = serve_json("0.33.0", "-tp", "3")
    assert (status, data["message"]) == (1, "Total number of attention heads (32) must be divisible by tensor "
                                            "parallel size (3).")
