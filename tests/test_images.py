"""The command vLLM's own images start (kvguard.launch.images), and the api_server's positional model.

Expected values are written by hand from the ENTRYPOINT of the vllm-openai target in docker/Dockerfile of
each release's source distribution (0.10.2, 0.11.0: the api_server module; 0.11.1 onwards: `vllm serve`)
and from the releases' make_arg_parser (a positional model_tag that only `vllm serve` copies to --model).
"""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.front import command_release, examine, examine_command, launch_gpus
from kvguard.launch.argv import parse_serve
from kvguard.launch.images import image_entrypoint, with_image_entrypoint
from kvguard.versions import resolve

API_SERVER = ["python3", "-m", "vllm.entrypoints.openai.api_server"]


@pytest.mark.parametrize(("version", "launcher"), [
    ("0.10.2", API_SERVER), ("0.11.0", API_SERVER),
    ("0.11.1", ["vllm", "serve"]), ("0.11.2", ["vllm", "serve"]), ("0.20.0", ["vllm", "serve"]),
    ("0.33.0", ["vllm", "serve"]), ("0.28.0+pr55030", ["vllm", "serve"]),
])
def test_the_image_entrypoint_of_each_release(version, launcher):
    assert image_entrypoint(resolve(version)) == launcher


def test_the_entrypoint_replaces_vllm_serve_after_the_environment():
    tokens = ["VLLM_MLA_DISABLE=1", "vllm", "serve", "--model", "M", "-tp", "2"]
    assert with_image_entrypoint(tokens, resolve("0.11.0")) == \
        ["VLLM_MLA_DISABLE=1", *API_SERVER, "--model", "M", "-tp", "2"]
    assert with_image_entrypoint(tokens, resolve("0.12.0")) == tokens
    with pytest.raises(ValueError):
        with_image_entrypoint(["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "M"],
                              resolve("0.11.0"))


def test_a_docker_run_on_an_old_image_runs_the_api_server():
    docker = ["docker", "run", "--gpus", "all", "vllm/vllm-openai:v0.10.2", "--model", "Qwen/Qwen3-32B", "-tp", "8"]
    tokens, release, _source = command_release(docker)
    assert release.key == "0.10.2"
    assert tokens == [*API_SERVER, "--model", "Qwen/Qwen3-32B", "-tp", "8"]
    assert examine_command(docker).verdict.ok      # 0.10.2's `vllm serve --model` would be a ValueError
    # the release asked for decides the image's entrypoint
    tokens, _release, _source = command_release(docker, "0.20.0")
    assert tokens == ["vllm", "serve", "--model", "Qwen/Qwen3-32B", "-tp", "8"]
    # sudo (with its options) before the container CLI changes nothing of what the container runs
    sudo = ["sudo", "-E", "docker", "run", "--gpus", "2", "vllm/vllm-openai:v0.10.2", "--model", "Qwen/Qwen3-32B"]
    assert command_release(sudo)[:2] == ([*API_SERVER, "--model", "Qwen/Qwen3-32B"], resolve("0.10.2"))
    assert launch_gpus(sudo) == 2
    # --entrypoint replaces the image's: nothing is inserted
    own = ["docker", "run", "--entrypoint", "vllm", "vllm/vllm-openai:v0.10.2", "serve", "Qwen/Qwen3-32B"]
    assert command_release(own)[0] == ["vllm", "serve", "Qwen/Qwen3-32B"]


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_the_api_server_does_not_read_a_positional_model(version):
    release = resolve(version)
    cmd = parse_serve([*API_SERVER, "Qwen/Qwen3-32B", "-tp", "3"], release)
    assert (cmd.model, cmd.ignored_model) == (None, "Qwen/Qwen3-32B")
    with pytest.raises(Undecidable, match=r"does not read a positional model \('Qwen/Qwen3-32B'\): it serves "
                                          r"--model, by default Qwen/Qwen3-0\.6B"):
        examine(release, [*API_SERVER, "Qwen/Qwen3-32B", "-tp", "3"])
    # --model is the model it serves, a positional beside it is parsed and dropped
    cmd = parse_serve([*API_SERVER, "other/model", "--model", "Qwen/Qwen3-32B"], release)
    assert (cmd.model, cmd.ignored_model) == ("Qwen/Qwen3-32B", None)
    refused = examine(release, [*API_SERVER, "--model", "Qwen/Qwen3-32B", "-tp", "3"])
    assert refused.verdict.message == \
        "Total number of attention heads (64) must be divisible by tensor parallel size (3)."
    # `vllm serve` takes the positional model
    assert parse_serve(["vllm", "serve", "Qwen/Qwen3-32B"], release).model == "Qwen/Qwen3-32B"
