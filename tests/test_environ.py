"""The environment variables each release defines (kvguard.rules.environ) through the CLI: --fail-on-environ-validation
(EA_unknown_env) and the host-dependent skips that ignore a variable the release lacks.  Expected verdicts are written
out by hand from the releases' vllm/envs.py (tests/upstream/test_env_names.py checks them against the releases)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.cli import run
from kvguard.rules.environ import defines
from kvguard.versions import resolve


@pytest.fixture
def check(capsys):
    def go(version: str, *args: str, env: tuple[str, ...] = (), model: str = "Qwen/Qwen3-8B") -> tuple[int, dict]:
        code = run(["check", "--vllm-version", version, "--format", "json", "--", *env, "vllm", "serve", model,
                    *args])
        return code, json.loads(capsys.readouterr().out)
    return go


def _answer(data: dict) -> tuple:
    return (data["ok"], data["exc_type"], data["message"], data["wrapped_by"], data["stage"], data["check"])


@pytest.mark.parametrize("version", ["0.17.0", "0.20.0", "0.28.0", "0.33.0"])
def test_an_unknown_variable_is_refused_with_the_switch(check, version):
    code, data = check(version, "--fail-on-environ-validation", env=("VLLM_TENSOR_PARALLEL_SIZE=8",))
    assert code == 1
    assert _answer(data) == (False, "ValueError",
                             "Unknown vLLM environment variable detected: VLLM_TENSOR_PARALLEL_SIZE", None,
                             "engine_args", "EA_unknown_env")


@pytest.mark.parametrize("args", [(), ("--no-fail-on-environ-validation",)])
def test_an_unknown_variable_is_only_a_warning_without_the_switch(check, args):
    code, data = check("0.33.0", *args, env=("VLLM_TENSOR_PARALLEL_SIZE=8",))
    assert code == 0 and data["ok"]


def test_before_0_17_0_the_switch_is_an_unrecognized_argument(check):
    code, data = check("0.16.0", "--fail-on-environ-validation", env=("VLLM_TENSOR_PARALLEL_SIZE=8",))
    assert code == 1
    assert data["stage"] == "argparse"
    assert data["message"] == "vllm: error: unrecognized arguments: --fail-on-environ-validation"


@pytest.mark.parametrize(("version", "refused"), [("0.23.0", False), ("0.24.0", True), ("0.33.0", True)])
def test_a_variable_a_later_release_dropped(check, version, refused):
    # VLLM_USE_FLASHINFER_MOE_FP4 is in vllm/envs.py up to 0.23.0
    code, data = check(version, "--fail-on-environ-validation", env=("VLLM_USE_FLASHINFER_MOE_FP4=1",))
    if refused:
        assert (code, data["message"]) == (1, "Unknown vLLM environment variable detected: VLLM_USE_FLASHINFER_MOE_FP4")
    else:
        assert code == 0 and data["ok"]


def test_known_and_unprefixed_names_pass(check):
    code, data = check("0.33.0", "--fail-on-environ-validation",
                       env=("VLLM_LOGGING_LEVEL=INFO", "NCCL_DEBUG=WARN", "vllm_lower=1"))
    assert code == 0 and data["ok"]


def test_two_unknown_names_are_undecidable(capsys):
    code = run(["check", "--vllm-version", "0.33.0", "--", "VLLM_A_PROBE=1", "VLLM_B_PROBE=1", "vllm", "serve",
                "Qwen/Qwen3-8B", "--fail-on-environ-validation"])
    assert code == 2
    err = capsys.readouterr().err
    assert "VLLM_A_PROBE, VLLM_B_PROBE" in err and "process environment's order" in err


def test_the_release_lists():
    assert defines(resolve("0.23.0"), "VLLM_USE_FLASHINFER_MOE_FP4")
    assert not defines(resolve("0.24.0"), "VLLM_USE_FLASHINFER_MOE_FP4")
    assert defines(resolve("0.10.2"), "VLLM_USE_V1")
    assert defines(resolve("0.33.0"), "VLLM_LOGGING_LEVEL")
    assert not defines(resolve("0.33.0"), "VLLM_TENSOR_PARALLEL_SIZE")


@pytest.mark.parametrize(("version", "skipped"), [("0.23.0", True), ("0.24.0", False), ("0.33.0", False)])
def test_a_dropped_moe_switch_no_longer_skips_the_model_construction(check, version, skipped):
    # vLLM's DeepSeek-V3.1 NVFP4 recipe sets VLLM_USE_FLASHINFER_MOE_FP4=1, which 0.24.0+ no longer read
    code, data = check(version, "-tp", "8", "--enable-expert-parallel", model="nvidia/DeepSeek-V3.1-NVFP4",
                       env=("VLLM_USE_FLASHINFER_MOE_FP4=1",))
    assert code == 0 and data["ok"]
    reasons = [s["reason"] for s in data["skipped"] if s["check"] == "MI_model"]
    assert reasons == (["VLLM_USE_FLASHINFER_MOE_FP4 changes the ModelOpt MoE backend selection (not modelled)"]
                       if skipped else [])


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True).filter(lambda n: not n.startswith("VLLM_")),
                       st.sampled_from(["0", "1", "x"]), max_size=4))
def test_names_outside_the_prefix_never_refuse(env):
    from kvguard.rules.environ import unknown_names

    assert unknown_names(resolve("0.33.0"), env) == []
