"""Values a release's vllm.envs getters refuse, for variables kvguard does not model (kvguard.rules.env_values):
the launch is undecidable, never accepted.  Expected messages are written out by hand from the releases'
vllm/envs.py (tests/upstream/test_env_values.py checks the measured classifications against the releases)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kvguard.cli import run
from kvguard.rules.env_values import MODELLED, kind, predict
from kvguard.versions import resolve

ROOT = Path(__file__).resolve().parents[1]


def _check(capsys, version: str, *words: str, flags: tuple[str, ...] = ()) -> tuple[int, str, str]:
    code = run(["check", "--vllm-version", version, "--format", "json", *flags, "--", *words, "vllm", "serve",
                "Qwen/Qwen3-8B"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_a_refused_integer_is_undecidable(capsys, version):
    code, _, err = _check(capsys, version, "VLLM_CPU_KVCACHE_SPACE=abc")
    assert code == 2
    assert (f"vLLM {version} refuses the value of VLLM_CPU_KVCACHE_SPACE='abc': ValueError: invalid literal for "
            "int() with base 10: 'abc'") in err
    assert "kvguard does not model where vLLM reads it" in err


def test_the_env_option_is_read_too(capsys):
    code, _, err = _check(capsys, "0.33.0", flags=("--env", "VLLM_CPU_KVCACHE_SPACE=1.5"))
    assert code == 2
    assert "invalid literal for int() with base 10: '1.5'" in err


def test_the_env_from_os_option_is_read_too(capsys, monkeypatch):
    monkeypatch.setenv("VLLM_KV_CACHE_LAYOUT", "nhd")
    code, _, err = _check(capsys, "0.20.0", flags=("--env-from-os",))
    assert code == 2
    assert "Invalid value 'nhd' for VLLM_KV_CACHE_LAYOUT. Valid options: ['NHD', 'HND']." in err


@pytest.mark.parametrize("word", ["VLLM_CPU_KVCACHE_SPACE=4", "VLLM_CPU_KVCACHE_SPACE= 8 ", "VLLM_KV_CACHE_LAYOUT=HND",
                                  "VLLM_FLOAT32_MATMUL_PRECISION=HIGH"])
def test_an_accepted_value_changes_nothing(capsys, word):
    code, out, _ = _check(capsys, "0.33.0", word)
    assert code == 0 and json.loads(out)["ok"]


def test_a_port_outside_the_measured_probes_is_undecidable(capsys):
    # VLLM_PORT's getter words its refusal itself (and a URI otherwise): known to refuse what int() refuses
    code, _, err = _check(capsys, "0.33.0", "VLLM_PORT=http")
    assert code == 2
    assert "VLLM_PORT='http' (the exception for this value not measured)" in err
    code, _, err = _check(capsys, "0.33.0", "VLLM_PORT=abc")
    assert code == 2
    assert "VLLM_PORT='abc': ValueError: VLLM_PORT 'abc' must be a valid integer" in err


def test_a_modelled_variable_keeps_its_own_rule(capsys):
    # VLLM_USE_V2_MODEL_RUNNER=abc: kvguard's own rule answers (the model runner's refusal), not the getter table
    code, out, _ = _check(capsys, "0.33.0", "VLLM_USE_V2_MODEL_RUNNER=abc")
    assert code == 1
    assert json.loads(out)["check"] == "VC_mrv2_unsupported"


def test_a_variable_the_release_does_not_define_is_not_parsed(capsys):
    # VLLM_KV_CACHE_LAYOUT arrives in vllm/envs.py after 0.10.2: that release never parses it
    code, out, _ = _check(capsys, "0.10.2", "VLLM_KV_CACHE_LAYOUT=nhd")
    assert code == 0 and json.loads(out)["ok"]


def test_the_predictions():
    assert predict("X", "int", "-1") is None
    assert predict("X", "int", "") == ["ValueError", "invalid literal for int() with base 10: ''"]
    assert predict("X", "float", "1e3") is None
    assert predict("X", "float", "fast") == ["ValueError", "could not convert string to float: 'fast'"]
    assert predict("VLLM_X", ["choices", ["a", "B"], False], "b") is None
    assert predict("VLLM_X", ["choices", ["a", "B"], True], "b") == [
        "ValueError", "Invalid value 'b' for VLLM_X. Valid options: ['a', 'B']."]
    table = {"refused": {"abc": ["ValueError", "VLLM_PORT 'abc' must be a valid integer"]}}
    assert predict("VLLM_PORT", table, "abc") == ["ValueError", "VLLM_PORT 'abc' must be a valid integer"]
    assert predict("VLLM_PORT", table, "xyz") is None
    assert predict("VLLM_PORT", dict(table, like="int"), "xyz") == ["", ""]
    assert predict("VLLM_PORT", dict(table, like="int"), "8000") is None


def test_measured_classifications():
    assert kind(resolve("0.33.0"), "VLLM_CPU_KVCACHE_SPACE") == "int"
    assert kind(resolve("0.33.0"), "VLLM_KV_CACHE_LAYOUT") == [
        "choices", ["LBNHC", "LBHNC", "LHBNC", "NHD", "HND", "BLHNC", "BLNHC", "BHLNC"], True]
    assert kind(resolve("0.20.0"), "VLLM_KV_CACHE_LAYOUT") == ["choices", ["NHD", "HND"], True]
    assert kind(resolve("0.33.0"), "VLLM_LOGGING_PREFIX") is None     # a free string


def test_the_modelled_list_is_every_name_kvguard_reads():
    named = set()
    for path in (ROOT / "kvguard").rglob("*.py"):
        if path.name != "env_values.py":
            named.update(re.findall(r"VLLM_[A-Z0-9_]+", path.read_text(encoding="utf-8")))
    assert named == set(MODELLED)


def test_the_check_api_is_undecidable_too():
    import kvguard
    from kvguard.errors import Undecidable

    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
              "max_position_embeddings": 8192, "vocab_size": 32000, "torch_dtype": "bfloat16"}
    with pytest.raises(Undecidable, match=r"VLLM_CPU_KVCACHE_SPACE='x': ValueError: invalid literal for int\(\)"):
        kvguard.check(config, vllm_version="0.33.0", env={"VLLM_CPU_KVCACHE_SPACE": "x"})
    assert kvguard.check(config, vllm_version="0.33.0", env={"VLLM_CPU_KVCACHE_SPACE": "40"}).ok


@pytest.mark.parametrize("word", ["VLLM_NIXL_SIDE_CHANNEL_PORT=<unique_port>", "VLLM_CPU_KVCACHE_SPACE=$SPACE",
                                  "VLLM_CPU_KVCACHE_SPACE=${SPACE:-4}"])
def test_a_placeholder_is_not_read(capsys, word):
    # the recipes' `VLLM_NIXL_SIDE_CHANNEL_PORT=<unique_port> vllm serve …` (Kimi-K2.5): a value not written yet,
    # as an option's `<PORT>` or `$PORT` is
    code, out, _ = _check(capsys, "0.33.0", word)
    assert (code, json.loads(out)["ok"]) == (0, True)


# -- variables kvguard reads only as set / unset: a value their getter refuses is no longer accepted ------------------

@pytest.mark.parametrize("version, word, refusal", [
    ("0.10.2", "VLLM_USE_DEEP_GEMM=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.20.0", "VLLM_USE_DEEP_GEMM=true", "ValueError: invalid literal for int() with base 10: 'true'"),
    ("0.33.0", "VLLM_USE_DEEP_GEMM=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.33.0", "VLLM_MOE_USE_DEEP_GEMM=yes", "ValueError: invalid literal for int() with base 10: 'yes'"),
    ("0.20.0", "VLLM_MARLIN_INPUT_DTYPE=abc",
     "ValueError: Invalid value 'abc' for VLLM_MARLIN_INPUT_DTYPE. Valid options: ['int8', 'fp8']."),
    ("0.33.0", "VLLM_MARLIN_INPUT_DTYPE=FP8",      # case-sensitive
     "ValueError: Invalid value 'FP8' for VLLM_MARLIN_INPUT_DTYPE. Valid options: ['int8', 'fp8']."),
    ("0.20.0", "VLLM_BATCH_INVARIANT=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.33.0", "VLLM_BATCH_INVARIANT=on", "ValueError: invalid literal for int() with base 10: 'on'"),
    ("0.20.0", "VLLM_USE_FLASHINFER_MOE_FP8=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.10.2", "VLLM_MXFP4_USE_MARLIN=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.20.0", "VLLM_FLASHINFER_MOE_BACKEND=fast",
     "ValueError: Invalid value 'fast' for VLLM_FLASHINFER_MOE_BACKEND. Valid options: ['throughput', 'latency', "
     "'masked_gemm']."),
    ("0.33.0", "VLLM_HUMMING_INPUT_QUANT_CONFIG=x",
     "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
    ("0.33.0", "VLLM_XLA_USE_SPMD=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    # 0.12.0 - 0.19.1: kvguard does not read the model-runner switch (its rule starts at 0.20.0)
    ("0.17.0", "VLLM_USE_V2_MODEL_RUNNER=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    # VLLM_USE_RUST_FRONTEND without --grpc-port: vllm serve reads it, kvguard's rule does not
    ("0.33.0", "VLLM_USE_RUST_FRONTEND=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    # 0.13.0 - 0.14.1: AttentionConfig reads these while vllm serve builds its parser (ValidationError there)
    ("0.13.0", "VLLM_FLASH_ATTN_VERSION=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.14.1", "VLLM_FLASH_ATTN_VERSION=3.0", "ValueError: invalid literal for int() with base 10: '3.0'"),
    ("0.13.0", "VLLM_USE_CUDNN_PREFILL=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("0.10.2", "VLLM_FLASH_ATTN_VERSION=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
])
def test_a_switch_read_only_as_set_is_undecidable_for_a_refused_value(capsys, version, word, refusal):
    code, _, err = _check(capsys, version, word)
    assert code == 2
    name, value = word.split("=", 1)
    assert f"vLLM {version} refuses the value of {name}={value!r}: {refusal}" in err


@pytest.mark.parametrize("version, word", [
    ("0.10.2", "VLLM_USE_DEEP_GEMM=0"), ("0.33.0", "VLLM_USE_DEEP_GEMM=1"), ("0.33.0", "VLLM_MARLIN_INPUT_DTYPE=fp8"),
    ("0.20.0", "VLLM_BATCH_INVARIANT=0"), ("0.20.0", "VLLM_FLASHINFER_MOE_BACKEND=latency"),
    ("0.33.0", "VLLM_HUMMING_INPUT_QUANT_CONFIG={}"), ("0.13.0", "VLLM_FLASH_ATTN_VERSION=2"),
    ("0.17.0", "VLLM_USE_V2_MODEL_RUNNER=0"), ("0.33.0", "VLLM_USE_RUST_FRONTEND=0"),
    # releases whose getter does not refuse it: VLLM_USE_DEEP_GEMM's int() arrives with the variable, the MoE
    # FlashInfer switches end at 0.23.0, VLLM_MARLIN_INPUT_DTYPE starts at 0.12.0
    ("0.24.0", "VLLM_USE_FLASHINFER_MOE_FP8=abc"), ("0.11.1", "VLLM_MARLIN_INPUT_DTYPE=abc"),
])
def test_a_good_value_of_a_switch_changes_nothing(capsys, version, word):
    code, out, _ = _check(capsys, version, word)
    assert (code, json.loads(out)["ok"]) == (0, True)


def test_unset_switches_change_nothing(capsys):
    code, out, _ = _check(capsys, "0.33.0")
    assert (code, json.loads(out)["ok"]) == (0, True)


def test_the_grpc_rule_keeps_the_rust_frontend_refusal(capsys):
    # with --grpc-port, kvguard.rules.serve_args reads VLLM_USE_RUST_FRONTEND as vLLM does (golden
    # sa-grpc-port-without-rust, tests/upstream/test_serve_args.py draws "yes"): its refusal stands
    code = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--", "VLLM_USE_RUST_FRONTEND=yes", "vllm",
                "serve", "Qwen/Qwen3-8B", "--grpc-port", "9000"])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["exc_type"], out["message"]) == (1, "ValueError", "invalid literal for int() with base 10: 'yes'")


@pytest.mark.parametrize("version, word, message", [
    ("0.10.2", "VLLM_DP_SIZE=abc", "invalid literal for int() with base 10: 'abc'"),
    ("0.33.0", "VLLM_MLA_DISABLE=abc", "invalid literal for int() with base 10: 'abc'"),
    ("0.11.0", "VLLM_ATTENTION_BACKEND=abc", "Invalid value 'abc' for VLLM_ATTENTION_BACKEND. Valid options: ["),
])
def test_a_variable_a_rule_reads_keeps_its_refusal(capsys, version, word, message):
    code, out, _ = _check(capsys, version, word)
    assert code == 1 and json.loads(out)["message"].startswith(message)


# -- VLLM_CPU_KVCACHE_SPACE on the CPU platform: its config hook parses it (kvguard.rules.cpu_platform) -------------

def _cpu_check(capsys, version: str, value: str, *args: str) -> tuple[int, dict, str]:
    code = run(["check", "--vllm-version", version, "--platform", "cpu", "--format", "json", "--",
                f"VLLM_CPU_KVCACHE_SPACE={value}", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else {}), captured.err


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.19.1", "0.20.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("value, message", [
    ("abc", "invalid literal for int() with base 10: 'abc'"),
    ("1.5", "invalid literal for int() with base 10: '1.5'"),
    ("4GiB", "invalid literal for int() with base 10: '4GiB'"),
])
def test_the_cpu_platform_refuses_a_kv_cache_space_int_refuses(capsys, version, value, message):
    code, out, _ = _cpu_check(capsys, version, value)
    assert code == 1
    assert (out["stage"], out["check"], out["exc_type"], out["message"]) == (
        "verify", "PLAT_cpu_kvcache_space", "ValueError", message)


@pytest.mark.parametrize("version", ["0.10.2", "0.19.1", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("value", ["8", " 4 ", "-1", "0"])
def test_the_cpu_platform_takes_an_integer_kv_cache_space(capsys, version, value):
    code, out, _ = _cpu_check(capsys, version, value)
    assert (code, out["ok"]) == (0, True)


def test_an_empty_kv_cache_space(capsys):
    # to 0.19.1 the getter (int('')) refuses it in the hook; from 0.20.0 the hook skips it and the getter refuses
    # it when the engine starts (enable_envs_cache), a stage kvguard does not model
    code, out, _ = _cpu_check(capsys, "0.19.1", "")
    assert (code, out["check"], out["message"]) == (1, "PLAT_cpu_kvcache_space",
                                                    "invalid literal for int() with base 10: ''")
    code, _, err = _cpu_check(capsys, "0.20.0", "")
    assert code == 2 and "VLLM_CPU_KVCACHE_SPACE='': ValueError: invalid literal for int() with base 10: ''" in err


def test_the_hook_refuses_a_quantized_kv_cache_first_to_0_19(capsys):
    # 0.10.2 - 0.19.1 read the size after the quantized-KV-cache refusal; 0.20.x before it
    code, out, _ = _cpu_check(capsys, "0.19.1", "abc", "--kv-cache-dtype", "fp8")
    assert (code, out["exc_type"], out["message"]) == (
        1, "RuntimeError", "Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.")
    code, out, _ = _cpu_check(capsys, "0.20.0", "abc", "--kv-cache-dtype", "fp8")
    assert (code, out["check"], out["message"]) == (1, "PLAT_cpu_kvcache_space",
                                                    "invalid literal for int() with base 10: 'abc'")


def test_other_platforms_leave_it_undecidable(capsys):
    # a CUDA host reads it only when the engine starts (the getter, in enable_envs_cache)
    code, _, err = _check(capsys, "0.33.0", "VLLM_CPU_KVCACHE_SPACE=abc", flags=("--platform", "cuda"))
    assert code == 2 and "kvguard does not model where vLLM reads it" in err


def test_a_placeholder_kv_cache_space_is_not_read_on_the_cpu_platform(capsys):
    code, out, _ = _cpu_check(capsys, "0.33.0", "$SPACE")
    assert (code, out["ok"]) == (0, True)


# -- a variable a rule reads, with a refused value the rule did not reach: the engine reads it after the checks -----
# (checked in the oracles: vllm.envs.enable_envs_cache() raises ValueError for VLLM_MLA_DISABLE=abc on 0.11.1,
# 0.20.0 and 0.33.0, and 0.10.2's vllm.envs.compute_hash() does)

@pytest.mark.parametrize("version, words, refusal", [
    ("0.10.2", ("VLLM_MLA_DISABLE=abc",), "VLLM_MLA_DISABLE='abc': ValueError: invalid literal for int() with base 10"),
    ("0.20.0", ("VLLM_MLA_DISABLE=abc",), "VLLM_MLA_DISABLE='abc': ValueError: invalid literal for int() with base 10"),
    ("0.20.0", ("VLLM_DP_SIZE=two", "-dp", "2"), "VLLM_DP_SIZE='two': ValueError: invalid literal for int()"),
    ("0.33.0", ("VLLM_DP_RANK=x", "-dp", "2"), "VLLM_DP_RANK='x': ValueError: invalid literal for int()"),
])
def test_a_refused_value_a_rule_did_not_reach_is_undecidable(capsys, version, words, refusal):
    env = [w for w in words if "=" in w]
    flags = [w for w in words if "=" not in w]
    code = run(["check", "--vllm-version", version, "--format", "json", "--", *env, "vllm", "serve", "Qwen/Qwen3-8B",
                *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert refusal in err and "where the launch's checks do not read it" in err


@pytest.mark.parametrize("version, word", [("0.20.0", "VLLM_MLA_DISABLE=1"), ("0.33.0", "VLLM_MLA_DISABLE=0"),
                                           ("0.20.0", "VLLM_DP_SIZE=1")])
def test_a_good_value_a_rule_did_not_reach_changes_nothing(capsys, version, word):
    code, out, _ = _check(capsys, version, word)
    assert (code, json.loads(out)["ok"]) == (0, True)


def test_a_refusal_before_the_engine_stands(capsys):
    # -tp 3 is refused by the configuration before the engine starts: the refused VLLM_MLA_DISABLE does not matter
    code = run(["check", "--vllm-version", "0.20.0", "--format", "json", "--", "VLLM_MLA_DISABLE=abc", "vllm", "serve",
                "Qwen/Qwen3-8B", "-tp", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["ok"] is False and "divisible" in out["message"]
