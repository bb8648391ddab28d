"""SchedulerConfig's batch checks (kvguard.rules.scheduler): what the releases answered (tests/upstream/test_scheduler.py,
serve path), written out literally."""

from __future__ import annotations

import pytest

from kvguard.cli import run

LENGTH_1024 = ("max_num_batched_tokens (1024) is smaller than max_model_len (40960). This effectively limits the "
               "maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. Please "
               "increase max_num_batched_tokens or decrease max_model_len.")


@pytest.mark.parametrize("version", ["0.11.1", "0.14.1", "0.20.0", "0.33.0"])
def test_batched_tokens_below_the_length_without_chunked_prefill(serve_json, version):
    status, data = serve_json(version, "--no-enable-chunked-prefill", "--max-num-batched-tokens", "1024")
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["check"], data["message"]) == (
        1, "ValueError", "SchedulerConfig", "scheduler", "SCH_batched_below_len", LENGTH_1024)


def test_the_length_is_the_one_modelconfig_ends_with(serve_json):
    status, data = serve_json("0.33.0", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "8k",
                              "--max-model-len", "8192")
    assert (status, data["message"]) == (1, LENGTH_1024.replace("1024", "8000").replace("40960", "8192"))
    status, data = serve_json("0.33.0", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "8k",
                              "--max-model-len", "8000")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version,args", [
    ("0.33.0", ["--max-num-batched-tokens", "1024"]),                               # chunked prefill on by default
    ("0.11.0", ["--no-enable-chunked-prefill", "--max-num-batched-tokens", "1024"]),  # 0.11.0 turns it on anyway
    ("0.10.2", ["--no-enable-chunked-prefill", "--max-num-batched-tokens", "1024"]),  # so does 0.10.2's V1 engine
    ("0.20.0", ["--max-num-batched-tokens", "64", "--max-num-seqs", "64"]),
    ("0.20.0", ["--max-num-batched-tokens", "16"]),                                 # the default max_num_seqs is capped
    ("0.20.0", ["--max-num-seqs", "2048"]),
])
def test_launches_the_scheduler_accepts(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_batched_tokens_below_max_num_seqs(serve_json, version):
    status, data = serve_json(version, "--max-num-batched-tokens", "16", "--max-num-seqs", "64")
    assert (status, data["exc_type"], data["wrapped_by"], data["check"], data["message"]) == (
        1, "ValueError", "SchedulerConfig", "SCH_batched_below_seqs",
        "max_num_batched_tokens (16) must be greater than or equal to max_num_seqs (64).")


def test_batched_tokens_take_no_auto(serve_json):
    status, data = serve_json("0.33.0", "--max-num-batched-tokens", "auto")
    assert (status, data["stage"], data["message"]) == (
        1, "argparse", "vllm serve: error: argument --max-num-batched-tokens: invalid human_readable_int value: 'auto'")


@pytest.mark.parametrize("version,args,reason", [
    ("0.33.0", ["--max-num-seqs", "4096"], "default max_num_batched_tokens"),
    ("0.33.0", ["--max-num-batched-tokens", "1024", "--runner", "pooling"], "pooling runner's chunked-prefill"),
    ("0.10.2", ["--max-num-batched-tokens", "1024", "--env", "VLLM_USE_V1=0"], "V0 engine"),
])
def test_what_kvguard_does_not_follow_is_undecidable(capsys, serve_json, version, args, reason):
    launch = [a for a in args if a not in ("--env", "VLLM_USE_V1=0")]
    env = ["--env", "VLLM_USE_V1=0"] if "--env" in args else []
    status = run(["check", "--vllm-version", version, *env, "--", "vllm", "serve", "Qwen/Qwen3-8B", *launch])
    assert status == 2
    assert reason in capsys.readouterr().err


LOOKAHEAD = "num_lookahead_slots ({}) must be greater than or equal to 0."


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
@pytest.mark.parametrize("slots", ["-1", "-8"])
def test_negative_lookahead_slots_are_refused_by_the_scheduler(serve_json, version, slots):
    status, data = serve_json(version, "--num-lookahead-slots", slots)
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["check"], data["message"]) == (
        1, "ValueError", "SchedulerConfig", "scheduler", "SCH_lookahead_negative", LOOKAHEAD.format(slots))


def test_the_batch_checks_come_before_the_lookahead_slots(serve_json):
    status, data = serve_json("0.10.2", "--num-lookahead-slots", "-1", "--max-num-batched-tokens", "16",
                              "--max-num-seqs", "64")
    assert (status, data["message"]) == (
        1, "max_num_batched_tokens (16) must be greater than or equal to max_num_seqs (64).")


@pytest.mark.parametrize("version,slots", [("0.10.2", "0"), ("0.11.0", "4"), ("0.11.2", "0")])
def test_lookahead_slots_from_zero_pass(serve_json, version, slots):
    status, data = serve_json(version, "--num-lookahead-slots", slots)
    assert (status, data["ok"]) == (0, True)


def test_a_draft_gives_its_own_lookahead_slots(serve_json):
    status, data = serve_json("0.11.0", "--num-lookahead-slots", "-1", "--speculative-config",
                              '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}')
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.11.1", "0.11.2"])
def test_negative_lookahead_slots_meet_the_field_bound_from_0_11_1(capsys, version):
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  "--num-lookahead-slots", "-1"])
    assert status == 1
    out = capsys.readouterr().out
    assert "raises:  ValidationError, surfacing as pydantic ValidationError for SchedulerConfig" in out
    assert "message: Input should be greater than or equal to 0" in out


GE_0 = "Input should be greater than or equal to 0"
GE_1 = "Input should be greater than or equal to 1"


@pytest.mark.parametrize(("version", "flag", "value", "field", "error_type", "message"), [
    ("0.26.0", "--max-num-scheduled-tokens", "-1", "max_num_scheduled_tokens", "greater_than_equal", GE_0),
    ("0.31.0", "--max-num-scheduled-tokens", "-1", "max_num_scheduled_tokens", "greater_than_equal", GE_0),
    ("0.32.0", "--max-num-scheduled-tokens", "0", "max_num_scheduled_tokens", "greater_than_equal", GE_1),
    ("0.33.0", "--max-num-queued-tokens", "-1", "max_num_queued_tokens", "greater_than_equal", GE_0),
    ("0.29.0", "--max-num-queued-reqs", "-4", "max_num_queued_reqs", "greater_than_equal", GE_0),
    ("0.11.1", "--stream-interval", "0", "stream_interval", "greater_than_equal", GE_1),
    ("0.24.0", "--watermark", "1", "watermark", "less_than", "Input should be less than 1"),
    ("0.26.0", "--watermark=-0.5", None, "watermark", "greater_than_equal", GE_0),
    ("0.33.0", "--prefill-schedule-interval", "0", "prefill_schedule_interval", "greater_than_equal", GE_1),
])
def test_passed_over_scheduler_options_out_of_bounds_meet_the_field_bound(serve_json, version, flag, value, field,
                                                                          error_type, message):
    """Options kvguard otherwise passes over, given outside SchedulerConfig's field bound: the field's pydantic
    error (the releases' answers, tests/upstream/test_scheduler.py)."""
    status, data = serve_json(version, flag, *([value] if value is not None else []))
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["check"], data["message"]) == (
        1, "ValidationError", "SchedulerConfig", "scheduler", "sch_field_bounds", message)
    assert data["errors"] == [{"type": error_type, "loc": [field], "msg": message}]


def test_passed_over_scheduler_bounds_fail_with_the_others_in_declaration_order(serve_json):
    status, data = serve_json("0.33.0", "--stream-interval", "0", "--watermark", "1.5", "--max-num-queued-reqs", "-1",
                              "--max-num-active-seqs", "0", "--max-num-scheduled-tokens", "0",
                              "--max-num-batched-tokens", "0", "--max-num-seqs", "8")
    assert status == 1
    assert [(e["loc"][0], e["msg"]) for e in data["errors"]] == [
        ("max_num_batched_tokens", GE_1), ("max_num_scheduled_tokens", GE_1), ("max_num_active_seqs", GE_1),
        ("max_num_queued_reqs", GE_0), ("watermark", "Input should be less than 1"), ("stream_interval", GE_1)]


def test_the_last_value_of_a_passed_over_scheduler_option_is_validated(serve_json):
    status, data = serve_json("0.33.0", "--stream-interval", "0", "--stream-interval", "4")
    assert (status, data["ok"]) == (0, True)
    status, data = serve_json("0.33.0", "--stream-interval", "4", "--stream-interval", "0")
    assert (status, data["errors"]) == (1, [{"type": "greater_than_equal", "loc": ["stream_interval"], "msg": GE_1}])


@pytest.mark.parametrize("value", ["nan", "inf", "1e999"])
def test_a_non_finite_watermark_is_undecidable(capsys, value):
    status = run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--watermark", value])
    assert status == 2
    assert "SchedulerConfig's field watermark refuses" in capsys.readouterr().err


@pytest.mark.parametrize(("version", "args"), [
    ("0.33.0", ("--watermark", "0.99", "--stream-interval", "2", "--max-num-queued-reqs", "0",
                "--max-num-queued-tokens", "4k", "--prefill-schedule-interval", "3")),
    ("0.31.0", ("--max-num-scheduled-tokens", "0", "--watermark", "0")),
    ("0.11.1", ("--stream-interval", "1")),
])
def test_passed_over_scheduler_options_within_bounds_pass(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize(("version", "value"), [("0.26.0", "0"), ("0.33.0", "2k")])
def test_human_readable_scheduler_options_within_bounds_pass(serve_json, version, value):
    status, data = serve_json(version, "--max-num-scheduled-tokens", value)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize(("version", "value"), [("0.26.0", "0"), ("0.31.0", "0k")])
def test_zero_scheduled_tokens_with_a_speculative_config_is_undecidable(capsys, version, value):
    """Within the field's bound to 0.31.x, but VllmConfig._set_max_num_scheduled_tokens refuses 0 with any
    speculative config (0.29.0's ValueError 'max_num_scheduled_tokens is set to 0 based on the speculative decoding
    settings, …', wrapped by VllmConfig); where it falls among VllmConfig's checks is not modelled."""
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  "--max-num-scheduled-tokens", value, "--speculative-config",
                  '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'])
    assert status == 2
    assert "VllmConfig refuses --max-num-scheduled-tokens 0 with a speculative config" in capsys.readouterr().err


DSPARK_7 = '{"num_speculative_tokens":7,"method":"dspark","enforce_eager":true}'


@pytest.mark.parametrize("version", ["0.28.0", "0.30.0", "0.32.0", "0.33.0"])
def test_dspark_batch_sized_by_the_launch_is_decided_where_max_num_seqs_no_longer_counts(serve_json, version):
    """vllm-project/vllm-ascend#13717's decode node (120 batched tokens, 60 sequences, seven DSpark tokens): 0.28.0 -
    0.32.0 compare the batched tokens with the draft's six new slots alone, 0.33.0 with its seven or eight lookahead
    tokens, and start on a CUDA host (written by hand from those releases' VllmConfig._set_max_num_scheduled_tokens;
    the CPU oracle refuses the launch before, for its
    model runner: tools/issue_reports.py --oracle agrees there; the golden sch-draft-batched-equals-seqs cases prove
    the reckoning itself); kvguard had left it undecidable."""
    status, data = serve_json(version, "--kv-cache-dtype", "fp8", "--max-num-batched-tokens", "120",
                              "--max-num-seqs", "60", "--speculative-config", DSPARK_7,
                              model="deepseek-ai/DeepSeek-V4-Flash")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize(("version", "batched"), [("0.27.0", "120"), ("0.30.0", "7")])
def test_dspark_batch_stays_undecidable_where_the_reckoning_is_not_followed(serve_json, version, batched):
    """0.20.0 - 0.27.0 take the slots times max_num_seqs; batched tokens not above the draft's token count are not
    followed either."""
    status, data = serve_json(version, "--kv-cache-dtype", "fp8", "--max-num-batched-tokens", batched,
                              "--max-num-seqs", "6", "--speculative-config", DSPARK_7,
                              model="deepseek-ai/DeepSeek-V4-Flash")
    assert status == 2
    assert "kvguard does not model that reckoning" in data["reason"]


@pytest.mark.parametrize("batched", ["2", "3"])
def test_mtp_batch_at_the_lookahead_tokens_is_undecidable_on_0_33_0(serve_json, batched):
    """0.33.0 refuses batched tokens at or below num_lookahead_tokens for an MTP draft too ("VllmConfig does not have
    enough slots to schedule a token and support the speculative decoding settings. Got max_num_batched_tokens=2 and
    num_lookahead_tokens=2.", the release's answer in the CPU oracle): kvguard accepted it; now undecidable up to the
    tokens plus one."""
    status, data = serve_json("0.33.0", "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}',
                              "--max-num-batched-tokens", batched, model="Qwen/Qwen3.5-9B")
    assert status == 2
    assert "at or below the draft's lookahead tokens" in data["reason"]


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
def test_mtp_batch_above_the_lookahead_tokens_starts(serve_json, version):
    """Written by hand from the releases' VllmConfig._set_max_num_scheduled_tokens (0.33.0: lookahead 2 < 4 batched
    tokens; 0.32.0: an MTP draft adds no slot); the CPU oracle accepts 3 batched tokens with two MTP tokens on
    0.33.0."""
    status, data = serve_json(version, "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}',
                              "--max-num-batched-tokens", "4" if version == "0.33.0" else "2",
                              model="Qwen/Qwen3.5-9B")
    assert (status, data["ok"]) == (0, True)
