"""docker compose files read as compose interpolates and splits them (kvguard.scan.containers, compose).

Expected launches are written by hand from the Compose Specification ("Interpolation": ``$$`` for a literal
``$``; values from the shell's environment and the project's ``.env``) and compose-go's template package, whose
pattern takes ``$$``, ``$NAME`` and ``${…}`` and refuses any other ``$`` ("invalid interpolation format … You may
need to escape any $ with another $"), and whose loader interpolates the whole file before a string ``command``
is split into words; and ``command`` "overrides the default command declared by the container image (for example
by Dockerfile's CMD)": the image's ENTRYPOINT (the vLLM image's ``vllm serve``) still runs, given it."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

IMAGE = "    image: vllm/vllm-openai:v0.20.0\n"

CASES = [
    # a string command is interpolated first, then split: `$ARGS` of the .env gives two words, quotes and all
    ("command: Qwen/Qwen3-8B $ARGS", 'ARGS=-tp 2 --served-model-name "a b"\n',
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--served-model-name", "a b"], ()),
    # a list item is one word whatever its value holds
    ('command: ["Qwen/Qwen3-8B", "-tp", "$TP"]', "TP=2 --max-model-len 100\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2 --max-model-len 100"], ()),
    # no shell runs the command: `$$TP` reaches vLLM as `$TP`, however the .env sets TP
    ("command: Qwen/Qwen3-8B -tp $$TP", "TP=2\n", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$TP"], ()),
    # `$(TP)` is no compose reference (Kubernetes' syntax): compose refuses the file, it is not the .env's TP
    ('command: ["Qwen/Qwen3-8B", "-tp", "$(TP)"]', "TP=2\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$(TP)"], ("$(TP)",)),
    # `${X-d}` takes the default only when X is unset: the .env sets it empty
    ('command: ["Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "${LEN-4096}"]', "LEN=\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", ""], ()),
    ('command: ["Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "${LEN:-4096}"]', "LEN=\n",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "4096"], ()),
    # a `sh -c` command without an entrypoint of its own is given to the image's `vllm serve`: no shell runs it
    ('command: ["sh", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"]', "",
     ["vllm", "serve", "sh", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"], ()),
    ('command: bash -c "vllm serve Qwen/Qwen3-8B -tp 2"', "",
     ["vllm", "serve", "bash", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"], ()),
    # `bash -c SCRIPT NAME ARGS…`: the command, interpolated, is the script's "$@" (`$$@` in the file)
    ('entrypoint: ["/bin/bash", "-c", "vllm serve \\"$$@\\"", "--"]\n    command: ["Qwen/Qwen3-8B", "-tp", "${TP:-2}"]',
     "", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], ()),
    # with an entrypoint of its own, the shell runs the script
    ('entrypoint: ["sh", "-c"]\n    command: ["vllm serve Qwen/Qwen3-8B -tp 2"]', "",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], ()),
]


def _launches(tmp_path, service: str, dotenv: str):
    (tmp_path / "compose.yaml").write_text("services:\n  vllm:\n" + IMAGE + "    " + service + "\n", encoding="utf-8")
    (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
    launches, skipped, _ = find_launches([str(tmp_path / "compose.yaml")])
    assert skipped == []
    return launches


@pytest.mark.parametrize(("service", "dotenv", "tokens", "unresolved"), CASES)
def test_service_command_as_compose_runs_it(tmp_path, service, dotenv, tokens, unresolved):
    [launch] = _launches(tmp_path, service, dotenv)
    assert (launch.tokens, launch.unresolved) == (tokens, unresolved)


def test_a_command_substitution_compose_refuses_in_a_script_is_unresolved(tmp_path):
    [launch] = _launches(tmp_path, 'entrypoint: ["sh", "-c", "vllm serve Qwen/Qwen3-8B -tp $(nproc)"]', "")
    assert "$(nproc)" in launch.unresolved
    assert any(note.startswith("compose refuses `$(nproc)`") for note in launch.notes)
    # written `$$(nproc)`, compose hands the shell `$(nproc)`: unresolved as the shell's, not refused
    [launch] = _launches(tmp_path, 'entrypoint: ["sh", "-c", "vllm serve Qwen/Qwen3-8B -tp $$(nproc)"]', "")
    assert launch.unresolved and not any(note.startswith("compose refuses") for note in launch.notes)


def test_an_environment_value_with_a_doubled_dollar_is_a_literal_dollar(tmp_path):
    service = ('environment:\n      VLLM_LOGGING_PREFIX: "$$p"\n'
               '    command: ["Qwen/Qwen3-8B", "-tp", "2"]')
    [launch] = _launches(tmp_path, service, "")
    assert launch.tokens[0] == "VLLM_LOGGING_PREFIX=$p" and launch.unresolved == ()


def test_an_extension_field_runs_nothing_a_service_merging_it_does(tmp_path):
    # the Compose Specification's "Extension": fields prefixed x- are ignored by Compose; YAML merge keys bring
    # their content into a service
    (tmp_path / "compose.yaml").write_text(
        "x-vllm: &vllm\n  image: vllm/vllm-openai:v0.20.0\n  command: [\"Qwen/Qwen3-8B\", \"-tp\", \"2\"]\n"
        "services:\n  a:\n    <<: *vllm\n  b:\n    <<: *vllm\n    command: [\"Qwen/Qwen3-32B\", \"-tp\", \"4\"]\n",
        encoding="utf-8")
    launches, _, _ = find_launches([str(tmp_path / "compose.yaml")])
    assert [(launch.line, launch.tokens) for launch in launches] == [
        (3, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]), (9, ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4"])]


@pytest.mark.parametrize("option, runs", [
    ("-c", [["serve", "Qwen/Qwen3-8B", "-tp", "2"]]),
    ("-ec", []),            # sh -e: `false` ends the script before the launch
])
def test_a_service_shell_s_options_are_set_from_its_option_word(tmp_path, option, runs):
    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.1\n"
                    f'    entrypoint: ["/bin/sh", "{option}", "false; vllm serve Qwen/Qwen3-8B -tp 2"]\n')
    assert [launch.tokens[1:] for launch in find_launches([str(path)])[0]] == runs
