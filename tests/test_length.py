"""ModelConfig's maximum length (kvguard.length) and the inputs that decide verdicts (issue 12 items 3, 6).

Expected values are written out by hand from the release sources (and agree with the real releases:
tests/upstream/test_length.py, the golden cases of tests/cases/*/len-*.json); none is computed by the
code under test.
"""

from __future__ import annotations

import argparse
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.length import TOO_LONG_TEMPLATE, allow_long, max_model_len, parse_length
from kvguard.versions import KNOWN_RELEASES, resolve

QWEN = catalog.lookup("Qwen/Qwen3-32B").config
R1 = catalog.lookup("deepseek-ai/DeepSeek-R1").config
LENGTH_CONFIGS = {c["id"]: c for c in json.loads(
    (__import__("pathlib").Path(__file__).parent / "data" / "length_configs.json").read_text())["configs"]}
YARN = LENGTH_CONFIGS["Qwen/Qwen3-32B+yarn"]["config"]
PHI3 = LENGTH_CONFIGS["microsoft/Phi-3-mini-128k-instruct"]["config"]
MISTRAL = LENGTH_CONFIGS["mistralai/Mistral-7B-v0.1"]["config"]
COMMAND_R = LENGTH_CONFIGS["CohereForAI/c4ai-command-r-v01"]["config"]

_WARN = ("VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position "
         "encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute position "
         "encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error.")


def _too_long(user, key, derived, mml="None"):
    return (f"User-specified max_model_len ({user}) is greater than the derived max_model_len ({key}={derived} or "
            f"model_max_length={mml} in model's config.json). To allow overriding this maximum, set the env var "
            f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. {_WARN}")


# -- --max-model-len as the releases parse it -------------------------------------------------


@pytest.mark.parametrize(("text", "old", "new"), [
    ("4096", 4096, 4096), (" 100 ", 100, 100), ("1_000", 1000, 1000), ("+5", 5, 5), ("-7", -7, -7),
    ("128k", 128000, 128000), ("25.6k", 25600, 25600), ("1m", 10**6, 10**6), ("2g", 2 * 10**9, 2 * 10**9),
    ("1K", 1024, 1024), ("32K", 32768, 32768), ("1M", 1048576, 1048576), ("1G", 2**30, 2**30),
    ("1t", ValueError, 10**12), ("1T", ValueError, 2**40),
    ("auto", ValueError, -1), ("AUTO", ValueError, -1), ("-1", -1, -1),
    ("1.5K", argparse.ArgumentTypeError, argparse.ArgumentTypeError),
    ("abc", ValueError, ValueError), ("1e5", ValueError, ValueError), ("", ValueError, ValueError),
])
def test_parse_length(text, old, new):
    """human_readable_int (0.10.2: no t/T multipliers, 0.13.0 adds them) and human_readable_int_or_auto (0.14.0+)."""
    for release, want in (("0.10.2", old), ("0.12.0", old), ("0.14.0", new), ("0.33.0", new)):
        want = want if release != "0.12.0" or text not in ("1t", "1T") else ValueError
        if isinstance(want, type):
            with pytest.raises(want):
                parse_length(text, resolve(release))
        else:
            assert parse_length(text, resolve(release)) == want, (text, release)
    assert parse_length("1t", resolve("0.13.0")) == 10**12


@pytest.mark.parametrize(("release", "value", "message"), [
    ("0.10.2", "1.5K", "vllm serve: error: argument --max-model-len: Decimals are not allowed with binary suffixes "
                       "like K. Did you mean to use 1.5k instead?"),
    ("0.13.0", "auto", "vllm serve: error: argument --max-model-len: invalid human_readable_int value: 'auto'"),
    ("0.14.0", "abc", "vllm serve: error: argument --max-model-len: invalid human_readable_int_or_auto value: 'abc'"),
    ("0.12.0", "1t", "vllm serve: error: argument --max-model-len: invalid human_readable_int value: '1t'"),
])
def test_argparse_refusals(release, value, message):
    from kvguard.launch.argv import parse_serve

    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(["vllm", "serve", "M", "--max-model-len", value], resolve(release))
    assert info.value.message == message


def test_other_human_readable_options_are_checked_too():
    from kvguard.launch.argv import parse_serve

    with pytest.raises(ArgparseRefusal, match="invalid human_readable_int value: 'lots'"):
        parse_serve("vllm serve M --max-num-batched-tokens lots", resolve("0.28.0"))
    assert parse_serve("vllm serve M --max-num-batched-tokens 8k", resolve("0.28.0")).fields == {
        "max_num_batched_tokens": 8000}


# -- the derived maximum --------------------------------------------------------------------


@pytest.mark.parametrize(("config", "release", "want"), [
    (QWEN, "0.10.2", 40960), (QWEN, "0.33.0", 40960),
    (R1, "0.10.2", 163840), (R1, "0.28.0", 163840),
    (YARN, "0.29.0", 131072), (YARN, "0.30.0", 40960), (YARN, "0.33.0", 40960),
    (PHI3, "0.10.2", 131072), (PHI3, "0.11.1", 4096), (PHI3, "0.33.0", 4096),
    (MISTRAL, "0.20.0", 32768), (COMMAND_R, "0.20.0", 131072),
])
def test_derived_default(config, release, want):
    """The length without --max-model-len: YaRN 4 x 32768 until 0.30.0 leaves YaRN unscaled; LongRoPE defaults
    to original_max_position_embeddings from 0.11.1; Command-R's model_max_length wins."""
    assert max_model_len(config, vllm_version=release) == want


def test_disable_sliding_window_caps_the_length():
    assert max_model_len(MISTRAL, vllm_version="0.20.0", disable_sliding_window=True) == 4096
    v = kvguard.check(MISTRAL, vllm_version="0.20.0", disable_sliding_window=True, max_model_len=8192)
    assert (v.check, v.exc_type, v.wrapped_by) == ("MC_max_len", "ValueError", "ModelConfig")
    assert v.message == _too_long(8192, "sliding_window", "4096.0")  # then x 1.0 (default RoPE parameters)


@pytest.mark.parametrize(("release", "derived"), [("0.10.2", "40960"), ("0.11.2", "40960"), ("0.12.0", "40960.0"),
                                                  ("0.20.0", "40960.0"), ("0.33.0", "40960.0")])
def test_too_long_prints_the_derived_length_as_vllm_holds_it(release, derived):
    v = kvguard.check(QWEN, vllm_version=release, max_model_len=131072)
    assert not v.ok and (v.stage, v.check, v.exc_type, v.wrapped_by) == ("model_config", "MC_max_len", "ValueError",
                                                                        "ModelConfig")
    assert v.message == _too_long(131072, "max_position_embeddings", derived)


def test_model_max_length_allows_a_longer_length():
    assert kvguard.check(COMMAND_R, vllm_version="0.28.0", max_model_len=131072).ok
    v = kvguard.check(COMMAND_R, vllm_version="0.28.0", max_model_len=200000)
    assert v.message == _too_long(200000, "model_max_length", "131072.0", "131072")


def test_disable_sliding_window_with_rope_scaling_is_not_implemented_before_0_12():
    v = kvguard.check(YARN, vllm_version="0.11.2", disable_sliding_window=True)
    assert (v.check, v.exc_type, v.wrapped_by) == ("MC_max_len_rope_sliding", "NotImplementedError", None)
    assert v.message == ("Disabling sliding window is not supported for models with rope_scaling. Please raise an issue "
                         "so we can investigate.")
    assert kvguard.check(YARN, vllm_version="0.12.0", disable_sliding_window=True).ok


@pytest.mark.parametrize(("value", "allowed"), [("1", True), ("true", True), (" TRUE ", True), ("0", False),
                                                ("yes", False), ("", False)])
def test_allow_long_max_model_len(value, allowed):
    assert allow_long({"VLLM_ALLOW_LONG_MAX_MODEL_LEN": value}) is allowed
    v = kvguard.check(QWEN, vllm_version="0.28.0", max_model_len=131072,
                      env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": value})
    assert v.ok is allowed


@pytest.mark.parametrize(("release", "value", "expect"), [
    ("0.13.0", 0, ("ValidationError", "Input should be greater than 0")),
    ("0.13.0", -1, ("ValidationError", "Input should be greater than 0")),
    ("0.14.0", -2, ("ValidationError", "Input should be greater than or equal to -1")),
    ("0.23.0", 0, ("ValueError", "max_model_len must be a positive integer, got int: 0. Example: max_model_len=2048")),
    ("0.14.0", -1, None), ("0.33.0", -1, None),
])
def test_lengths_below_one(release, value, expect):
    v = kvguard.check(QWEN, vllm_version=release, max_model_len=value)
    if expect is None:
        assert v.ok
    else:
        assert (v.exc_type, v.message, v.wrapped_by, v.stage) == (*expect, "ModelConfig", "model_config")


@pytest.mark.parametrize(("release", "value"), [("0.10.2", 0), ("0.12.0", -1), ("0.20.0", 0), ("0.22.1", 0)])
def test_lengths_below_one_that_modelconfig_keeps_are_undecidable(release, value):
    with pytest.raises(Undecidable, match=f"takes max_model_len {value} as it is"):
        kvguard.check(QWEN, vllm_version=release, max_model_len=value)


def test_field_validation_comes_before_the_config():
    """ModelConfig validates max_model_len before __post_init__ reads config.json."""
    broken = {"architectures": ["NoSuchArchForCausalLM"], "model_type": "llama"}
    v = kvguard.check(broken, vllm_version="0.28.0", max_model_len=-5)
    assert (v.check, v.exc_type, v.loc) == ("MC_FIELD", "ValidationError", ("max_model_len",))


def test_pr_keys_decide_the_length_as_their_base():
    for base in ("0.28.0", "0.33.0"):
        for length in (None, 40960, 131072, -1):
            a = kvguard.check(QWEN, vllm_version=base, max_model_len=length)
            b = kvguard.check(QWEN, vllm_version=f"{base}+pr55030", max_model_len=length)
            assert (a.ok, a.check, a.message) == (b.ok, b.check, b.message)


@settings(max_examples=150, deadline=None)
@given(release=st.sampled_from([r for r in KNOWN_RELEASES]), length=st.integers(1, 10**7),
       allow=st.booleans())
def test_refused_exactly_above_the_derived_maximum(release, length, allow):
    """Qwen3-32B (no model_max_length, no RoPE scaling): a length is refused iff it exceeds 40960 and
    VLLM_ALLOW_LONG_MAX_MODEL_LEN is unset; the message is the upstream template filled in."""
    env = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"} if allow else {}
    v = kvguard.check(QWEN, vllm_version=release, max_model_len=length, env=env)
    refused = length > 40960 and not allow
    assert (v.check == "MC_max_len") is refused
    if refused:
        derived = "40960" if not resolve(release).within("0.12.0") else "40960.0"
        assert v.message == TOO_LONG_TEMPLATE.format(max_model_len=length, len_key="max_position_embeddings",
                                                     len_derived=derived, len_model_max_length=None)


# -- the environment and the host -----------------------------------------------------------


def _json_check(argv, capsys):
    status = run(["check", "--format", "json", *argv])
    return status, json.loads(capsys.readouterr().out)


def test_env_defaults_that_decide_are_assumptions(capsys):
    status, out = _json_check(["--vllm-version", "0.28.0", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1",
                               "-tp", "8", "-dcp", "8"], capsys)
    assert status == 0 and "VLLM_MLA_DISABLE unset" in out["assumptions"]
    (mla,) = [a for a in out["env_assumptions"] if a["name"] == "VLLM_MLA_DISABLE"]
    assert mla["value"] == "1" and mla["verdict"]["check"] == "MC_dcp_tp_gt_kv"
    status, out = _json_check(["--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8",
                               "--max-model-len", "128k"], capsys)
    assert status == 1 and out["assumptions"] == ["VLLM_ALLOW_LONG_MAX_MODEL_LEN unset"]
    assert out["env_assumptions"][0]["verdict"]["ok"] is True
    # stated: not an assumption
    status, out = _json_check(["--vllm-version", "0.28.0", "--env", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=0", "--",
                               "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "128k"], capsys)
    assert status == 1 and "env_assumptions" not in out
    # a default that decides nothing is not listed
    status, out = _json_check(["--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"], capsys)
    assert status == 0 and "env_assumptions" not in out and not any(a.startswith("VLLM_") for a in out["assumptions"])


def test_v2_model_runner_default_is_an_assumption_where_it_decides(capsys):
    status, out = _json_check(["--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4",
                               "-pcp", "2"], capsys)
    names = [a["name"] for a in out.get("env_assumptions", [])]
    assert "VLLM_USE_V2_MODEL_RUNNER" in names


FP8 = {"kv_cache_dtype": "fp8"}
V1 = {"VLLM_USE_V1": "1"}
_KV_MSG = "VLLM_USE_V1=1 is not supported with --kv-cache-dtype."


@pytest.mark.parametrize(("config", "host", "env", "refused"), [
    (QWEN, kvguard.Host.cuda_node(), V1, False),                                   # H100: FA3 supports FP8
    (QWEN, kvguard.Host(platform="cuda", gpu_capability=80), V1, True),         # A100: FA2, no FP8
    (QWEN, kvguard.Host(platform="cuda", gpu_capability=100), V1, False),       # Blackwell
    (QWEN, kvguard.Host.cuda_node(), dict(V1, VLLM_FLASH_ATTN_VERSION="2"), True),
    (QWEN, kvguard.Host(platform="cuda", gpu_capability=80), dict(V1, VLLM_ATTENTION_BACKEND="FLASHINFER"), False),
    (QWEN, kvguard.Host(platform="cuda", gpu_capability=89), dict(V1, VLLM_ATTENTION_BACKEND="TRITON_ATTN_VLLM_V1"),
     False),
    (R1, kvguard.Host(platform="cuda", gpu_capability=80), V1, False),         # FlashMLA
    (QWEN, kvguard.Host(platform="rocm"), V1, False),
    (QWEN, kvguard.Host(platform="cpu"), V1, True),
    (QWEN, kvguard.Host(platform="cuda", gpu_capability=80), {}, False),       # falls back to V0
])
def test_kv_cache_dtype_support_check_of_0_10_2(config, host, env, refused):
    v = kvguard.check(config, vllm_version="0.10.2", host=host, env=env, **FP8)
    assert (v.check == "EA_kv_cache_dtype_oracle") is refused
    if refused:
        assert (v.exc_type, v.message, v.wrapped_by, v.stage) == ("NotImplementedError", _KV_MSG, None, "engine_args")
    assert kvguard.check(config, vllm_version="0.11.0", host=host, env=env, **FP8).check != "EA_kv_cache_dtype_oracle"


def test_kv_cache_dtype_check_is_skipped_or_assumed_for_an_unknown_gpu():
    v = kvguard.check(QWEN, vllm_version="0.10.2", host=kvguard.Host(platform="cuda"), env=V1, **FP8)
    assert v.ok and [s.check for s in v.skipped if s.check.startswith("EA_kv")] == ["EA_kv_cache_dtype_oracle"]
    v = kvguard.check(QWEN, vllm_version="0.10.2", host=kvguard.Host.standard(), env=V1, **FP8)
    assert v.ok and "gpu_capability=90" in v.assumptions


def test_cpu_sliding_window_check_of_the_v1_oracle():
    msg = "VLLM_USE_V1=1 is not supported with sliding window (CPU backend)."
    for release in ("0.10.2", "0.11.0"):
        v = kvguard.check(MISTRAL, vllm_version=release, host=kvguard.Host(platform="cpu"), env=V1)
        assert (v.check, v.exc_type, v.message) == ("EA_cpu_sliding_window_oracle", "NotImplementedError", msg)
        assert kvguard.check(MISTRAL, vllm_version=release, host=kvguard.Host(platform="cpu"), env=V1,
                             disable_sliding_window=True).check != "EA_cpu_sliding_window_oracle"
    assert kvguard.check(MISTRAL, vllm_version="0.10.2", host=kvguard.Host.cuda_node(), env=V1).ok


def test_host_capability_on_the_command_line(capsys):
    argv = ["--vllm-version", "0.10.2", "--env", "VLLM_USE_V1=1", "--host", "gpu_capability=8.0", "--",
            "vllm", "serve", "Qwen/Qwen3-32B", "--kv-cache-dtype", "fp8"]
    status, out = _json_check(argv, capsys)
    assert status == 1 and out["check"] == "EA_kv_cache_dtype_oracle"
    status, out = _json_check(argv[:4] + ["--unknown-host"] + argv[6:], capsys)
    assert status == 0 and "EA_kv_cache_dtype_oracle" in [s["check"] for s in out["skipped"]]


# -- audit, plan and the report ---------------------------------------------------------------


def test_audit_shows_the_derived_maximum_and_capacity_uses_it():
    report = kvguard.audit("deepseek-ai/DeepSeek-R1", 8, dcp=8, vllm_version="0.28.0", kv_memory_gib=40)
    (m,) = report.models
    assert (m.max_model_len, m.max_model_len_key) == (163840, "max_position_embeddings")
    # README's figures, with the derived length instead of a given one
    assert m.capacity.max_model_len == 163840 and m.capacity.num_tokens == 4889088


def test_audit_notes_a_length_vllm_refuses():
    report = kvguard.audit("Qwen/Qwen3-32B", 8, vllm_version="0.28.0", kv_memory_gib=40, max_model_len=131072)
    assert any("refuses --max-model-len 131072" in n for n in report.models[0].capacity.notes)


def test_plan_refuses_every_layout_for_a_refused_length():
    report = kvguard.plan("Qwen/Qwen3-32B", 8, vllm_version="0.28.0", max_model_len=131072)
    assert report.accepted == 0 and set(report.refused_by_check) == {"MC_max_len"}
    report = kvguard.plan("Qwen/Qwen3-32B", 8, vllm_version="0.28.0")
    assert report.max_model_len_derived == 40960 and report.entries[0].kv_gib_per_gpu_for_max_len == 1.25


def test_check_reports_the_length(capsys):
    status, out = _json_check(["--vllm-version", "0.20.0", "--", "vllm", "serve", "Qwen/Qwen3-32B"], capsys)
    assert out["facts"]["max_model_len"] == 40960
    assert out["facts"]["max_model_len_derived"] == {"value": 40960.0, "key": "max_position_embeddings",
                                                     "default": 40960}
    run(["check", "--vllm-version", "0.20.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "50000"])
    text = capsys.readouterr().out
    assert "the longest --max-model-len vLLM 0.20.0 takes for this model is 40960" in text


def test_pooling_model_length_reads_the_model_directory(tmp_path):
    bge = LENGTH_CONFIGS["BAAI/bge-m3"]
    v = kvguard.check(bge["config"], vllm_version="0.28.0", max_model_len=8193)
    assert v.ok and any(s.check == "MC_max_len" for s in v.skipped)
    for name, content in bge["files"].items():
        (tmp_path / name).write_text(json.dumps(content))
    v = kvguard.check(bge["config"], vllm_version="0.28.0", max_model_len=8193, model_dir=str(tmp_path))
    assert v.check == "MC_max_len" and "(max_position_embeddings=8192 or" in v.message
    assert max_model_len(bge["config"], vllm_version="0.28.0", model_dir=str(tmp_path)) == 8192


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 10**9), release=st.sampled_from(["0.10.2", "0.13.0", "0.14.0", "0.33.0"]))
def test_human_readable_suffixes(n, release):
    r = resolve(release)
    assert parse_length(str(n), r) == n
    assert parse_length(f"{n}k", r) == n * 1000 and parse_length(f"{n}K", r) == n * 1024
    assert parse_length(f"{n}m", r) == n * 10**6 and parse_length(f"{n}M", r) == n * 2**20
    assert parse_length(f"{n}g", r) == n * 10**9 and parse_length(f"{n}G", r) == n * 2**30


def test_every_environment_variable_a_check_reads_is_listed():
    """kvguard.envdefaults.VERDICT_ENV names every variable the modelled checks read (read from the
    sources of the rule modules, the length and the facts), except the ones vLLM's launchers set."""
    import re
    from pathlib import Path

    from kvguard.envdefaults import VERDICT_ENV

    root = Path(kvguard.__file__).parent
    sources = [*sorted((root / "rules").glob("*.py")), root / "length.py", *sorted((root / "facts").glob("*.py"))]
    read = set()
    for path in sources:
        text = path.read_text()
        read |= set(re.findall(r'env(?:\.get\(|\[)\s*"([A-Z][A-Z0-9_]+)"', text))
        read |= set(re.findall(r'env_flag_set\(state, "([A-Z][A-Z0-9_]+)"\)', text))
    launcher_set = {"VLLM_DP_SIZE", "VLLM_DP_RANK", "RANK"}
    assert read - launcher_set == {v.name for v in VERDICT_ENV}, read


GEMMA3 = LENGTH_CONFIGS["google/gemma-3-27b-it"]["config"]
GEMMA2 = LENGTH_CONFIGS["google/gemma-2-9b-it"]["config"]
_NO_FLOAT16 = "does not support float16. Reason: Numerical instability. Please use bfloat16 or float32 instead."


@pytest.mark.parametrize("release", ["0.10.2", "0.20.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("dtype", ["half", "float16"])
def test_float16_is_refused_for_gemma_before_the_length(release, dtype):
    # vllm/config/model.py::_check_valid_dtype, called from _get_and_verify_dtype before the maximum length
    # is derived: the length refusal the same launch would meet is not reached
    v = kvguard.check(GEMMA3, vllm_version=release, dtype=dtype, max_model_len=10**9)
    assert (v.stage, v.check, v.exc_type, v.wrapped_by) == ("model_config", "MC_dtype_float16", "ValueError",
                                                            "ModelConfig")
    assert v.message == "The model type 'gemma3' " + _NO_FLOAT16
    assert kvguard.check(GEMMA2, vllm_version=release, dtype=dtype).message == "The model type 'gemma2' " + _NO_FLOAT16


@pytest.mark.parametrize("dtype", ["auto", "bfloat16", "float32", "float"])
def test_other_dtypes_pass_for_gemma(dtype):
    assert kvguard.check(GEMMA3, vllm_version="0.28.0", dtype=dtype).ok


def test_float16_passes_for_models_vllm_does_not_list():
    assert kvguard.check(QWEN, vllm_version="0.28.0", dtype="half").ok


def test_float16_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(GEMMA2))
    status = run(["check", "--vllm-version", "0.33.0", "--model-config", str(path), "--", "vllm", "serve", "m",
                  "--dtype", "half"])
    out = capsys.readouterr().out
    assert status == 1 and "The model type 'gemma2' " + _NO_FLOAT16 in out
