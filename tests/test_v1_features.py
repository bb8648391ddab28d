"""The V1 engine's feature refusals and 0.10.2 / 0.11.0's fallback to V0 (kvguard.rules.v1_features): what the
releases answered (tests/upstream/test_v1_features.py, serve path), written out literally."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

PARTIAL = ("Concurrent Partial Prefill is not supported. We recommend to remove Concurrent Partial Prefill from your "
           "config.")
PATTERN = ("--logits-processor-pattern is not supported. We recommend to remove --logits-processor-pattern from your "
           "config.")


def _refusal(data: dict) -> tuple:
    return data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]


@pytest.mark.parametrize("version", ["0.11.1", "0.16.0", "0.26.0"])
@pytest.mark.parametrize("args", [["--max-num-partial-prefills", "2"], ["--max-long-partial-prefills", "0"],
                                  ["--max-num-partial-prefills", "0"]])
def test_concurrent_partial_prefills_are_refused(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert status == 1
    assert _refusal(data) == ("engine_args", "EA_partial_prefill", "NotImplementedError", None, PARTIAL)


@pytest.mark.parametrize("version", ["0.11.1", "0.16.0"])
def test_a_logits_processor_pattern_is_refused_first(serve_json, version):
    status, data = serve_json(version, "--max-num-partial-prefills", "2", "--logits-processor-pattern", "x.*")
    assert status == 1
    assert _refusal(data) == ("engine_args", "EA_logits_processor_pattern", "NotImplementedError", None, PATTERN)


@pytest.mark.parametrize("args", [["--logits-processor-pattern", "None"], ["--logits-processor-pattern", ""],
                                  ["--max-num-partial-prefills", "1", "--max-long-partial-prefills", "1"]])
def test_the_defaults_spelled_out_are_accepted(serve_json, args):
    status, data = serve_json("0.16.0", *args)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version,args", [("0.17.0", ["--logits-processor-pattern", "x"]),
                                          ("0.27.0", ["--max-num-partial-prefills", "2"])])
def test_the_options_are_gone_after_their_last_release(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, data["stage"]) == (1, "argparse")
    assert data["message"] == f"vllm: error: unrecognized arguments: {' '.join(args)}"


@pytest.mark.parametrize("args,feature", [
    (["--max-num-partial-prefills", "2", "--preemption-mode", "swap"], "--preemption-mode"),
    (["--scheduler-delay-factor", "0.5", "--logits-processor-pattern", "x"], "--logits-processor-pattern"),
    (["--load-format", "sharded_state", "--logits-processor-pattern", "x"], "--load_format sharded_state"),
    (["--enable-prompt-embeds", "--disable-async-output-proc"], "--disable-async-output-proc"),
    (["--max-num-partial-prefills", "2", "--enable-prompt-embeds"], "--enable-prompt-embeds"),
    (["--max-long-partial-prefills", "2"], "Concurrent Partial Prefill"),
])
def test_the_v1_oracle_names_the_first_feature_of_its_list_when_v1_is_forced(serve_json, args, feature):
    status, data = serve_json("0.10.2", *args, env=("VLLM_USE_V1=1",))
    assert status == 1
    assert (data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        "engine_args", "NotImplementedError", None, f"VLLM_USE_V1=1 is not supported with {feature}.")


def test_0_11_0_forced_to_v1_refuses_partial_prefills(serve_json):
    status, data = serve_json("0.11.0", "--max-num-partial-prefills", "2", env=("VLLM_USE_V1=1",))
    assert (status, data["message"]) == (1, "VLLM_USE_V1=1 is not supported with Concurrent Partial Prefill.")


@pytest.mark.parametrize("args,message", [
    (["--max-num-partial-prefills", "2", "--no-enable-chunked-prefill"],
     "Chunked prefill must be enabled to set max_num_partial_prefills > 1."),
    (["--max-long-partial-prefills", "2", "--enable-chunked-prefill"],
     "max_long_partial_prefills (2) must be greater than or equal to 1 and less than or equal to "
     "max_num_partial_prefills (1)."),
    (["--max-num-partial-prefills", "0", "--enable-chunked-prefill"],
     "max_num_partial_prefills (0) must be greater than or equal to 1."),
])
def test_0_10_2_falls_back_to_v0_whose_scheduler_checks_partial_prefills(serve_json, args, message):
    status, data = serve_json("0.10.2", *args)
    assert status == 1
    assert (data["stage"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        "scheduler", "ValueError", "SchedulerConfig", message)


def test_0_10_2_v0_keeps_its_own_max_num_seqs_default(serve_json):
    status, data = serve_json("0.10.2", "--logits-processor-pattern", "x", "--enable-chunked-prefill",
                              "--max-num-batched-tokens", "128")
    assert (status, data["message"]) == (
        1, "max_num_batched_tokens (128) must be greater than or equal to max_num_seqs (256).")


def test_a_fallback_feature_alone_leaves_0_10_2_accepting(serve_json):
    status, data = serve_json("0.10.2", "--scheduler-delay-factor", "0.5")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("args,env", [(["--logits-processor-pattern", "x"], ()), ([], ("VLLM_USE_V1=0",))])
def test_0_11_0_without_the_v1_engine_is_undecidable(capsys, serve_json, args, env):
    options = [word for value in env for word in ("--env", value)]
    status = run(["check", "--vllm-version", "0.11.0", *options, "--", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    assert status == 2
    assert "asserts VLLM_USE_V1" in capsys.readouterr().err


def test_a_v0_only_architecture_forced_to_v1_is_undecidable(capsys, serve_json, tmp_path):
    config = {"architectures": ["MotifForCausalLM"], "model_type": "llama", "hidden_size": 1024,
              "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000,
              "intermediate_size": 2048, "max_position_embeddings": 4096}
    (tmp_path / "config.json").write_text(json.dumps(config))
    status = run(["check", "--vllm-version", "0.11.0", "--env", "VLLM_USE_V1=1", "--", "vllm", "serve",
                  str(tmp_path), "--max-num-partial-prefills", "2"])
    assert status == 2
    assert "architectures" in capsys.readouterr().err
