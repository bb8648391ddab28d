"""Values of options kvguard passes over, checked as the release's serve path checks them.

1. vLLM's ``optional_type(X)`` / ``parse_type(X)`` (``vllm/engine/arg_utils.py``): a value X refuses is an argparse
   error naming X as its ArgumentTypeError does (``<class 'int'>``, ``<function loads at 0x…>`` -- the address is the
   vLLM process's, kvguard prints ``0x…``), ``""`` and ``"None"`` are optional_type's None (parse_type has no such
   shortcut).  X is measured per release (``i`` in serve_options.json).  A JSON value that is no object is refused
   later by the config field (pydantic): declined.
2. A plain option whose config field declares bounds (``b``): a value outside them is refused by pydantic's
   ValidationError, whose message names the host's pydantic version: declined; values inside pass.

What the releases answered (tools/option_sweep.py, the serve path on the oracle host):
0.20.0 refuses ``--max-log-len x`` ("Value x cannot be converted to <class 'int'>."), ``--kv-offloading-size x``
(``<class 'float'>``), ``--mm-processor-kwargs x`` and ``--limit-mm-per-prompt x`` (``<function loads at …>``),
``--kv-cache-memory-bytes x`` (``<function human_readable_int at …>``), ``--collect-detailed-traces None`` (invalid
choice: None), and with a ValidationError ``--mm-processor-kwargs 1`` (valid dictionary), ``--stream-interval 0``
(>= 1), ``--shutdown-timeout -1`` (>= 0), ``--kv-cache-metrics-sample 0`` / ``1.5`` (> 0, <= 1),
``--offload-num-in-group 0`` (>= 1), ``--optimization-level x`` ("Input should be 0, 1, 2 or 3"); it accepts
``--stream-interval 1`` and 2, ``--shutdown-timeout 0``, ``--kv-cache-metrics-sample 0.5``, ``--max-log-len 1``.
0.33.0 refuses ``--data-parallel-rpc-port 65536`` (<= 65535), ``--dp-sync-interval 0`` (>= 1), ``--watermark 1.5``
(< 1) and ``--safetensors-prefetch-block-size 0`` (>= 1, a human-readable integer).
"""

from __future__ import annotations

import pytest

from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.launch.argv import option_table, parse_serve
from kvguard.launch.config_values import option_value_problem
from kvguard.versions import resolve

REFUSED = [
    ("0.20.0", ["--max-log-len", "x"], "argument --max-log-len: Value x cannot be converted to <class 'int'>."),
    ("0.20.0", ["--max-log-len=1e3"], "argument --max-log-len: Value 1e3 cannot be converted to <class 'int'>."),
    ("0.20.0", ["--kv-offloading-size", "x"],
     "argument --kv-offloading-size: Value x cannot be converted to <class 'float'>."),
    ("0.20.0", ["--mm-processor-kwargs", "x"],
     "argument --mm-processor-kwargs: Value x cannot be converted to <function loads at 0x…>."),
    ("0.11.1", ["--mm-processor-kwargs", "{bad"],
     "argument --mm-processor-kwargs: Value {bad cannot be converted to <function loads at 0x…>."),
    # parse_type(json.loads): no None shortcut
    ("0.20.0", ["--limit-mm-per-prompt", "x"],
     "argument --limit-mm-per-prompt: Value x cannot be converted to <function loads at 0x…>."),
    ("0.33.0", ["--limit-mm-per-prompt", "None"],
     "argument --limit-mm-per-prompt: Value None cannot be converted to <function loads at 0x…>."),
    ("0.20.0", ["--kv-cache-memory-bytes", "x"],
     "argument --kv-cache-memory-bytes: Value x cannot be converted to <function human_readable_int at 0x…>."),
    # human_readable_int's own ArgumentTypeError passes through
    ("0.20.0", ["--kv-cache-memory-bytes", "1.5K"],
     "argument --kv-cache-memory-bytes: Decimals are not allowed with binary suffixes like K. Did you mean to use "
     "1.5k instead?"),
    # optional_type's None, then the choices check
    ("0.20.0", ["--collect-detailed-traces", "None"],
     "argument --collect-detailed-traces: invalid choice: None (choose from 'all', 'model', 'worker', 'None', "
     "'model,worker', 'model,all', 'worker,model', 'worker,all', 'all,model', 'all,worker')"),
    ("0.33.0", ["--max-num-queued-reqs", "many"],
     "argument --max-num-queued-reqs: Value many cannot be converted to <class 'int'>."),
]


@pytest.mark.parametrize(("version", "args", "message"), REFUSED)
def test_wrapped_type_refusals_are_quoted(version, args, message):
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(["vllm", "serve", "M", *args], resolve(version))
    assert (info.value.exc_type, info.value.message) == ("SystemExit", f"vllm serve: error: {message}")


DECLINED = [
    ("0.20.0", ["--mm-processor-kwargs", "1"], "takes an object"),
    ("0.20.0", ["--mm-processor-kwargs", "[1]"], "takes an object"),
    ("0.33.0", ["--override-generation-config", '"s"'], "takes an object"),
    ("0.20.0", ["--optimization-level", "x"], "the release accepts '0', '1', '2', '3'"),
]


@pytest.mark.parametrize(("version", "args", "reason"), DECLINED)
def test_values_the_config_field_refuses_are_declined(version, args, reason):
    with pytest.raises(Undecidable) as info:
        parse_serve(["vllm", "serve", "M", *args], resolve(version))
    assert reason in str(info.value)
    assert "pydantic" in str(info.value)


#: SchedulerConfig's, CacheConfig's and ParallelConfig's passed-over options outside their field bounds: carried to the
#: rules, which render the bound's refusal with the other fields' (tests/test_scheduler.py, tests/test_cache_config.py,
#: tests/test_parallel_flags.py); the last value given is the one validated
CARRIED = [
    ("0.20.0", ["--stream-interval", "0"], {"stream_interval_out_of_bounds": 0}),
    ("0.20.0", ["--stream-interval=-1"], {"stream_interval_out_of_bounds": -1}),
    ("0.33.0", ["--watermark", "1"], {"watermark_out_of_bounds": 1.0}),
    ("0.33.0", ["--max-num-scheduled-tokens", "0", "--max-num-queued-tokens", "-1"],
     {"max_num_scheduled_tokens_out_of_bounds": 0, "max_num_queued_tokens_out_of_bounds": -1}),
    ("0.33.0", ["--stream-interval", "0", "--stream-interval", "2"], {}),
    ("0.33.0", ["--watermark", "0.5", "--prefill-schedule-interval", "1"], {}),
    # CacheConfig's and ParallelConfig's (tests/test_cache_config.py, tests/test_parallel_flags.py)
    ("0.33.0", ["--data-parallel-rpc-port", "65536"], {"data_parallel_rpc_port_out_of_bounds": 65536}),
    ("0.33.0", ["--dp-sync-interval", "0"], {"dp_sync_interval_out_of_bounds": 0}),
    # ModelConfig's, LoadConfig's and VllmConfig's (tests/test_late_bounds.py)
    ("0.20.0", ["--shutdown-timeout", "3", "--shutdown-timeout", "-1"], {"shutdown_timeout_out_of_bounds": -1}),
    ("0.20.0", ["--shutdown-timeout", "-1", "--shutdown-timeout", "0"], {}),
    ("0.33.0", ["--safetensors-prefetch-block-size", "0"], {"safetensors_prefetch_block_size_out_of_bounds": 0}),
    ("0.33.0", ["--max-logprobs", "-2"], {"max_logprobs_out_of_bounds": -2}),
    ("0.24.0", ["--max-logprobs", "-2"], {}),
    ("0.33.0", ["--prefix-match-unit", "0", "--mamba-block-size", "-1"],
     {"prefix_match_unit_out_of_bounds": 0, "mamba_block_size_out_of_bounds": -1}),
    ("0.29.0", ["--prefix-cache-retention-interval", "-1", "--max-parallel-loading-workers", "0"],
     {"prefix_cache_retention_interval_out_of_bounds": -1, "max_parallel_loading_workers_out_of_bounds": 0}),
    ("0.33.0", ["--elastic-ep-max-dp-size", "0", "--elastic-ep-max-dp-size", "2"], {}),
    ("0.20.0", ["--kv-cache-metrics-sample", "0.5", "--kv-cache-metrics-sample", "2"],
     {"kv_cache_metrics_sample_out_of_bounds": 2.0}),
    # LoRAConfig's, with --enable-lora only (tests/test_lora_config.py)
    ("0.20.0", ["--enable-lora", "--max-loras", "0"], {"lora_max_loras_out_of_bounds": 0}),
    ("0.20.0", ["--max-loras", "3", "--enable-lora", "--max-loras", "0"], {"lora_max_loras_out_of_bounds": 0}),
    ("0.33.0", ["--max-lora-cls-labels", "-1", "--enable-lora"], {"lora_max_lora_cls_labels_out_of_bounds": -1}),
    ("0.33.0", ["--max-loras", "0", "--max-lora-cls-labels", "0"], {}),
]


@pytest.mark.parametrize(("version", "args", "carried"), CARRIED)
def test_values_out_of_bounds_are_carried_to_their_config(version, args, carried):
    fields = parse_serve(["vllm", "serve", "M", *args], resolve(version)).fields
    assert {key: value for key, value in fields.items() if key.endswith("_out_of_bounds")} == carried


PASSED = [
    # argparse keeps the last occurrence: an earlier one outside the field's bound is never validated
    ("0.20.0", ["--kv-cache-metrics-sample", "0", "--kv-cache-metrics-sample", "0.5"]),
    ("0.20.0", ["--shutdown-timeout", "-1", "--shutdown-timeout", "3"]),
    ("0.20.0", ["--max-log-len", "1"]),
    ("0.20.0", ["--max-log-len", "None"]),
    ("0.20.0", ["--max-log-len", ""]),
    ("0.20.0", ["--kv-offloading-size", "2.5"]),
    ("0.20.0", ["--mm-processor-kwargs", '{"num_crops": 4}']),
    ("0.20.0", ["--mm-processor-kwargs", "None"]),
    ("0.33.0", ["--limit-mm-per-prompt", '{"image": 2, "video": 0}']),
    ("0.20.0", ["--kv-cache-memory-bytes", "8G"]),
    ("0.20.0", ["--collect-detailed-traces", "all"]),
    ("0.20.0", ["--stream-interval", "1"]),
    ("0.20.0", ["--stream-interval", "2"]),
    ("0.20.0", ["--shutdown-timeout", "0"]),
    ("0.20.0", ["--kv-cache-metrics-sample", "0.5"]),
    ("0.20.0", ["--kv-cache-metrics-sample", "1"]),
    ("0.20.0", ["--optimization-level", "3"]),
    ("0.20.0", ["-O3"]),
    ("0.33.0", ["--data-parallel-rpc-port", "65535"]),
    ("0.33.0", ["--watermark", "0.99"]),
    ("0.33.0", ["--watermark", "0"]),
    ("0.33.0", ["--safetensors-prefetch-block-size", "16M"]),
    # placeholders are not values
    ("0.20.0", ["--stream-interval", "$INTERVAL"]),
    ("0.20.0", ["--max-log-len", "<N>"]),
]


@pytest.mark.parametrize(("version", "args"), PASSED)
def test_values_the_release_takes_pass(version, args):
    cmd = parse_serve(["vllm", "serve", "M", *args], resolve(version))
    assert cmd.model == "M"


def test_the_table_records_the_inner_type_and_bounds():
    table = option_table(resolve("0.20.0"))
    assert (table["--max-log-len"].type, table["--max-log-len"].inner) == ("_optional_type", "<class 'int'>")
    assert table["--limit-mm-per-prompt"].inner == "<function loads at 0x…>"
    assert table["--stream-interval"].bounds == "int>=1"
    assert table["--kv-cache-metrics-sample"].bounds == "float>0<=1"
    assert table["--optimization-level"].bounds == ["0", "1", "2", "3"]
    assert table["--max-model-len"].inner is None and table["--port"].bounds is None


def test_bounds_are_the_measured_releases_own():
    # 0.10.2's config classes declare no pydantic bounds on --max-log-len's neighbours: nothing is declined there
    cmd = parse_serve(["vllm", "serve", "M", "--max-log-len", "0"], resolve("0.10.2"))
    assert cmd.model == "M"
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(["vllm", "serve", "M", "--max-log-len", "x"], resolve("0.10.2"))
    assert info.value.message.endswith("Value x cannot be converted to <class 'int'>.")


@pytest.mark.parametrize(("kind", "value", "expected"), [
    ("int>=1", 1, None),
    ("int>=1", 0, "the field is an int >= 1"),
    ("int?>0", None, None),
    ("int>0", None, "the field is an int > 0"),
    ("float>0<=1", 1.0, None),
    ("float>0<=1", 1, None),
    ("float>0<=1", 1.01, "the field is a float > 0 <= 1"),
    ("int>=1<=65535", 65536, "the field is an int >= 1 <= 65535"),
    (["0", "1", "2", "3"], "2", None),
    (["0", "1", "2", "3"], 2, "the release accepts '0', '1', '2', '3'"),
    (["swap", "recompute", None], None, None),
])
def test_option_value_problem(kind, value, expected):
    assert option_value_problem(kind, value) == expected
