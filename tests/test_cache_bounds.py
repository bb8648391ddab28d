"""CacheConfig's bounds on --block-size and --swap-space (kvguard.rules.cache_config): what the releases answered
(tools/option_sweep.py, serve path; tests/upstream/test_cache_config.py), written out literally: a value out of a
pydantic bound is refused with the ValidationError for CacheConfig, a value the release takes is accepted."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run


def _status(capsys, version: str, *args: str) -> tuple[int, str]:
    status = run(["check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-8B", *args])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("version", ["0.23.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_block_size_below_one_is_refused_from_0_23_0(serve_json, version, value):
    status, data = serve_json(version, "--block-size", value)
    assert (status, data["exc_type"], data["wrapped_by"], data["loc"], data["message"]) == (
        1, "ValidationError", "CacheConfig", ["block_size"], "Input should be greater than 0")


@pytest.mark.parametrize("version", ["0.11.1", "0.17.1"])
def test_a_negative_swap_space_is_refused_from_0_11_1(serve_json, version):
    status, data = serve_json(version, "--swap-space", "-1")
    assert (status, data["exc_type"], data["wrapped_by"], data["loc"], data["message"]) == (
        1, "ValidationError", "CacheConfig", ["swap_space"], "Input should be greater than or equal to 0")


@pytest.mark.parametrize("version,args", [("0.22.1", ["--block-size", "0"]), ("0.11.0", ["--swap-space", "-1"]),
                                          ("0.11.1", ["--swap-space", "0"])])
def test_outside_those_releases_the_configuration_takes_it(capsys, version, args):
    status = run(["check", "--vllm-version", version, "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-8B",
                  *args])
    assert (status, json.loads(capsys.readouterr().out)["ok"]) == (0, True)
