"""ParallelConfig's profiling and NUMA options (kvguard.rules.parallel_flags): what the releases answered
(tests/upstream/test_parallel_flags.py and the golden cases pf-*, serve path), written out literally."""

from __future__ import annotations

import pytest

from kvguard.cli import run


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("backend", [[], ["--distributed-executor-backend", "mp"]])
def test_nsight_needs_the_ray_executor(serve_json, version, backend):
    status, data = serve_json(version, "--ray-workers-use-nsight", *backend)
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"], data["message"]) == (
        1, "parallel_config", "PA_nsight_without_ray", "ValueError", "ParallelConfig",
        "Unable to use nsight profiling unless workers run with Ray.")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_nsight_switched_off_is_accepted(serve_json, version):
    status, data = serve_json(version, "--no-ray-workers-use-nsight")
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.20.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("args", [["--numa-bind-nodes", "0"], ["--numa-bind-cpus", "0-3"]])
def test_numa_lists_need_numa_bind(serve_json, version, args):
    status, data = serve_json(version, *args)
    assert (status, data["check"], data["wrapped_by"], data["message"]) == (
        1, "PV_numa_requires_bind", "ParallelConfig", "numa_bind_nodes and numa_bind_cpus require numa_bind=True.")


@pytest.mark.parametrize("args,check,message", [
    (["--numa-bind-nodes", "-1"], "FIELD_numa_nodes", "numa_bind_nodes must contain non-negative integers."),
    (["--numa-bind-cpus", "x"], "FIELD_numa_cpus_syntax",
     "numa_bind_cpus entries must use numactl CPU list syntax, for example '0-3' or '0,2,4-7'."),
    (["--numa-bind-cpus", "0-3", "7-5"], "FIELD_numa_cpus_order",
     "numa_bind_cpus ranges must be ascending, but got '7-5'."),
    (["--numa-bind-cpus", "3-1", "x"], "FIELD_numa_cpus_order",
     "numa_bind_cpus ranges must be ascending, but got '3-1'."),
])
def test_numa_entries_are_validated_before_numa_bind_is_asked(serve_json, args, check, message):
    status, data = serve_json("0.33.0", *args)
    assert (status, data["check"], data["wrapped_by"], data["message"]) == (1, check, "ParallelConfig", message)


def test_numa_bind_with_good_lists_is_accepted(serve_json):
    status, data = serve_json("0.20.0", "--numa-bind", "--numa-bind-nodes", "0", "1", "--numa-bind-cpus",
                              "0-3,8", "4-7")
    assert (status, data["ok"]) == (0, True)


def test_a_none_entry_is_undecidable(capsys, serve_json):
    status = run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--numa-bind",
                  "--numa-bind-cpus", "0-3", "None"])
    assert status == 2
    assert "pydantic" in capsys.readouterr().err


GE_1 = "Input should be greater than or equal to 1"


@pytest.mark.parametrize(("version", "flag", "value", "field", "error_type", "message"), [
    ("0.28.0", "--data-parallel-rpc-port", "0", "data_parallel_rpc_port", "greater_than_equal", GE_1),
    ("0.33.0", "-dpp", "65536", "data_parallel_rpc_port", "less_than_equal",
     "Input should be less than or equal to 65535"),
    ("0.30.0", "--dp-sync-interval", "0", "dp_sync_interval", "greater_than_equal", GE_1),
    ("0.24.0", "--max-parallel-loading-workers", "0", "max_parallel_loading_workers", "greater_than_equal", GE_1),
    ("0.33.0", "--elastic-ep-max-dp-size", "-8", "elastic_ep_max_dp_size", "greater_than_equal", GE_1),
])
def test_passed_over_parallel_options_out_of_bounds_meet_the_field_bound(serve_json, version, flag, value, field,
                                                                         error_type, message):
    """Options kvguard otherwise passes over, given outside ParallelConfig's field bound: the field's pydantic error
    (the releases' answers, tests/upstream/test_parallel_flags.py)."""
    status, data = serve_json(version, flag, value)
    assert (status, data["exc_type"], data["wrapped_by"], data["stage"], data["check"], data["message"]) == (
        1, "ValidationError", "ParallelConfig", "parallel_config", "FIELD", message)
    assert data["errors"] == [{"type": error_type, "loc": [field], "msg": message}]


def test_passed_over_parallel_bounds_fail_with_the_sizes_in_declaration_order(serve_json):
    status, data = serve_json("0.33.0", "--elastic-ep-max-dp-size", "0", "--max-parallel-loading-workers", "0",
                              "-dpp", "0", "--dp-sync-interval", "0", "-tp", "0", "--ubatch-size", "-1")
    assert (status, data["message"]) == (1, GE_1)
    assert [(e["loc"][0], e["msg"]) for e in data["errors"]] == [
        ("tensor_parallel_size", GE_1), ("data_parallel_rpc_port", GE_1), ("dp_sync_interval", GE_1),
        ("max_parallel_loading_workers", GE_1), ("elastic_ep_max_dp_size", GE_1),
        ("ubatch_size", "Input should be greater than or equal to 0")]


def test_the_last_value_of_a_passed_over_parallel_option_is_validated(serve_json):
    status, data = serve_json("0.33.0", "--dp-sync-interval", "0", "--dp-sync-interval", "3")
    assert (status, data["ok"]) == (0, True)
    status, data = serve_json("0.33.0", "--dp-sync-interval", "3", "--dp-sync-interval", "0")
    assert (status, data["errors"]) == (1, [{"type": "greater_than_equal", "loc": ["dp_sync_interval"],
                                             "msg": GE_1}])


def test_every_occurrence_meets_argparse_s_type_check(serve_json):
    status, data = serve_json("0.33.0", "--dp-sync-interval", "x", "--dp-sync-interval", "3")
    assert (status, data["stage"], data["message"]) == (
        1, "argparse", "vllm serve: error: argument --dp-sync-interval: invalid int value: 'x'")


def test_a_numa_list_refused_beside_a_bound_joins_its_validation_error(serve_json):
    """0.33.0 answered with one ValidationError: the bound's entry, then the NUMA validator's."""
    status, data = serve_json("0.33.0", "--numa-bind", "--numa-bind-cpus", "4-7", "2-0", "--elastic-ep-max-dp-size",
                              "0")
    assert (status, data["exc_type"], data["wrapped_by"], data["message"]) == (1, "ValidationError", "ParallelConfig",
                                                                             GE_1)
    assert data["errors"] == [
        {"type": "greater_than_equal", "loc": ["elastic_ep_max_dp_size"], "msg": GE_1},
        {"type": "value_error", "loc": ["numa_bind_cpus"],
         "msg": "Value error, numa_bind_cpus ranges must be ascending, but got '2-0'."}]


def test_numa_lists_both_refused_are_one_validation_error(serve_json):
    """0.33.0's ParallelConfig(numa_bind_nodes=[-1], numa_bind_cpus=["3-1"], nnodes=0, decode_context_parallel_size=0)
    in its oracle: the lists' entries after nnodes, before the decode context size; both lists alone as well."""
    status, data = serve_json("0.33.0", "--nnodes", "0", "--decode-context-parallel-size", "0", "--numa-bind",
                              "--numa-bind-nodes", "-1", "--numa-bind-cpus", "3-1")
    assert (status, [(e["type"], e["loc"]) for e in data["errors"]]) == (1, [
        ("greater_than_equal", ["nnodes"]), ("value_error", ["numa_bind_nodes"]), ("value_error", ["numa_bind_cpus"]),
        ("greater_than_equal", ["decode_context_parallel_size"])])
    status, data = serve_json("0.20.0", "--numa-bind", "--numa-bind-nodes", "-1", "--numa-bind-cpus", "x")
    assert (status, data["exc_type"], data["message"]) == (
        1, "ValidationError", "Value error, numa_bind_nodes must contain non-negative integers.")
    assert [(e["type"], e["loc"]) for e in data["errors"]] == [("value_error", ["numa_bind_nodes"]),
                                                               ("value_error", ["numa_bind_cpus"])]


def test_a_numa_validator_s_error_is_placed_at_its_field():
    """str() of 0.33.0's ParallelConfig(numa_bind_nodes=[-1], numa_bind=True) in its oracle, after the pydantic
    version its link names."""
    import re

    import kvguard
    from kvguard.launch.layout import Host

    verdict = kvguard.examine("0.33.0", ["vllm", "serve", "Qwen/Qwen3-8B", "--numa-bind", "--numa-bind-nodes", "-1"],
                              host=Host(platform="cpu")).verdict
    text = re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/", str(kvguard.to_exception(verdict)))
    assert text == ("1 validation error for ParallelConfig\nnuma_bind_nodes\n  Value error, numa_bind_nodes must "
                    "contain non-negative integers. [type=value_error, input_value=[-1], input_type=list]\n    For "
                    "further information visit https://errors.pydantic.dev/v/value_error")
