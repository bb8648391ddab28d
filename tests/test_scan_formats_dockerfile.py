"""Dockerfiles read as the container they build runs (kvguard.scan.dockerfile).

Expected launches are written by hand from the Dockerfile reference: "Understand how CMD and ENTRYPOINT interact"
(an exec-form ENTRYPOINT is given a shell-form CMD as ``/bin/sh -c TEXT``; a shell-form ENTRYPOINT ignores CMD;
setting ENTRYPOINT resets a CMD inherited from the base), "ARG" ("An ARG declared before a FROM is outside of a
build stage, so it can't be used in any instruction after a FROM"; "ARG variables are not persisted into the built
image as ENV variables are"), "Multi-stage builds" (each FROM starts a new stage; only the last one is the image),
and the ``vllm/vllm-openai`` image's ``ENTRYPOINT ["vllm", "serve"]`` (kvguard.launch.images)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kvguard.scan import find_launches

VLLM = "FROM vllm/vllm-openai:v0.20.0\n"

CASES = [
    # a shell-form CMD after the image's exec ENTRYPOINT: `vllm serve /bin/sh -c "…"`, not a shell running vllm
    (VLLM + "CMD vllm serve Qwen/Qwen3-8B -tp 2\n",
     [(2, ["vllm", "serve", "/bin/sh", "-c", "vllm serve Qwen/Qwen3-8B -tp 2"], True, ())]),
    # an exec-form CMD that starts with `vllm serve` is appended to the image's `vllm serve`
    (VLLM + 'CMD ["vllm", "serve", "Qwen/Qwen3-8B"]\n',
     [(2, ["vllm", "serve", "vllm", "serve", "Qwen/Qwen3-8B"], True, ())]),
    # ... and so is an exec-form `sh -c` script
    (VLLM + 'CMD ["sh", "-c", "vllm serve Qwen/Qwen3-8B"]\n',
     [(2, ["vllm", "serve", "sh", "-c", "vllm serve Qwen/Qwen3-8B"], True, ())]),
    # `ENTRYPOINT []` clears the image's: the shell-form CMD is the whole command
    (VLLM + "ENTRYPOINT []\nCMD vllm serve Qwen/Qwen3-8B -tp 2\n",
     [(3, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    # a shell-form ENTRYPOINT ignores CMD: one launch, the CMD's words are not another
    (VLLM + 'ENTRYPOINT vllm serve Qwen/Qwen3-8B\nCMD ["-tp", "2"]\n',
     [(2, ["vllm", "serve", "Qwen/Qwen3-8B"], False, ())]),
    # an ARG is the build's: the container's shell does not see it (ENV it would)
    ("FROM ubuntu:24.04\nARG MODEL=Qwen/Qwen3-8B\nCMD vllm serve $MODEL -tp 2\n",
     [(3, ["vllm", "serve", "$MODEL", "-tp", "2"], False, ("MODEL",))]),
    ("FROM ubuntu:24.04\nARG MODEL=Qwen/Qwen3-8B\nENV MODEL=$MODEL\nCMD vllm serve $MODEL -tp 2\n",
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    # an ARG above FROM is for the FROM lines; a RUN sees it only where the stage declares it again
    ("ARG MODEL=Qwen/Qwen3-8B\nFROM ubuntu:24.04\nRUN vllm serve $MODEL -tp 2\n",
     [(3, ["vllm", "serve", "$MODEL", "-tp", "2"], False, ("MODEL",))]),
    ("ARG MODEL=Qwen/Qwen3-8B\nFROM ubuntu:24.04\nARG MODEL\nRUN vllm serve $MODEL -tp 2\n",
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    # an earlier stage's ENV is not in a stage that starts from another image
    ("FROM ubuntu:24.04 AS build\nENV TP=8\nFROM ubuntu:24.04\nCMD vllm serve Qwen/Qwen3-8B -tp $TP\n",
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$TP"], False, ("TP",))]),
    # ... and is in one that starts FROM it
    ("FROM ubuntu:24.04 AS build\nENV TP=8\nFROM build\nCMD vllm serve Qwen/Qwen3-8B -tp $TP\n",
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "8"], False, ())]),
    # only the last stage runs: an earlier stage's CMD, and a CMD a later one replaces, start nothing
    (VLLM + "CMD vllm serve Qwen/Qwen3-8B\nFROM ubuntu:24.04\nCMD [\"bash\"]\n", []),
    ("FROM ubuntu:24.04\nCMD vllm serve Qwen/Qwen3-8B\nCMD vllm serve Qwen/Qwen3-32B -tp 2\n",
     [(3, ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2"], False, ())]),
    # an ENTRYPOINT resets the CMD the stage inherits
    ('FROM ubuntu:24.04 AS base\nCMD ["-tp", "2"]\nFROM base\nENTRYPOINT ["vllm", "serve", "Qwen/Qwen3-8B"]\n',
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B"], False, ())]),
    # an excerpt without FROM (a README's) is one stage on an image kvguard does not know
    ('CMD ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]\n', [(1, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    ("ENV TP=2\nCMD vllm serve Qwen/Qwen3-8B -tp $TP\n", [(2, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    # `sh -c SCRIPT NAME ARGS…` (the CMD appended): the script's "$@" is the CMD's words; none: empty
    ('FROM ubuntu:24.04\nENTRYPOINT ["/bin/bash", "-c", "vllm serve \\"$@\\"", "--"]\nCMD ["Qwen/Qwen3-8B", "-tp", "2"]\n',
     [(3, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    ('FROM ubuntu:24.04\nENTRYPOINT ["/bin/bash", "-c", "vllm serve Qwen/Qwen3-8B -tp 2 $1"]\n',
     [(2, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False, ())]),
    # a variable a RUN's shell assigns is gone after it
    ("FROM ubuntu:24.04\nRUN export TP=2\nRUN vllm serve Qwen/Qwen3-8B -tp $TP\n",
     [(3, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$TP"], False, ("TP",))]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_container_a_dockerfile_builds_runs(tmp_path, text, expected):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(text, encoding="utf-8")
    launches, skipped, _ = find_launches([str(dockerfile)])
    assert skipped == []
    assert [(launch.line, launch.tokens, launch.image_entrypoint, launch.unresolved) for launch in launches] \
        == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(("script", "arguments", "words"), [
    ('vllm serve "$@"', ["Qwen/Qwen3-8B", "-tp", "2"], ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]),
    ("vllm serve Qwen/Qwen3-8B -tp 2 $1", [], ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]),
])
def test_the_expected_words_of_a_shell_given_arguments_are_what_bash_runs(script, arguments, words):
    # `vllm` stands in as a function that prints the words it is given
    done = subprocess.run(["bash", "-c", 'vllm() { printf "%s\\n" vllm "$@"; }; ' + script, "--", *arguments],
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == words


#: (Dockerfile, the words of each launch, after `vllm`): a shell-form instruction runs as SHELL (`/bin/sh -c`), whose
#: options `set -e` / `set -u` are on from the start; an exec-form one runs its own words
SHELL_OPTIONS = [
    ('FROM ubuntu:24.04\nSHELL ["/bin/bash", "-eu", "-c"]\nCMD false; vllm serve m --a\n', []),
    ('FROM ubuntu:24.04\nSHELL ["/bin/bash", "-u", "-c"]\nENTRYPOINT unset X; echo $X; vllm serve m --a\n', []),
    ('FROM ubuntu:24.04\nSHELL ["/bin/bash", "-euo", "pipefail", "-c"]\nRUN false; vllm serve m --a\n', []),
    ('FROM ubuntu:24.04\nCMD false; vllm serve m --a\n', [["serve", "m", "--a"]]),
    ('FROM ubuntu:24.04\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nCMD false; vllm serve m --a\n',
     [["serve", "m", "--a"]]),
    ('FROM ubuntu:24.04\nSHELL ["/bin/bash", "-eu", "-c"]\nCMD ["bash", "-c", "false; vllm serve m --a"]\n',
     [["serve", "m", "--a"]]),
]


@pytest.mark.parametrize(("text", "runs"), SHELL_OPTIONS)
def test_a_shell_form_instruction_runs_with_the_options_of_shell(tmp_path, text, runs):
    (tmp_path / "Dockerfile").write_text(text, encoding="utf-8")
    assert [launch.tokens[1:] for launch in find_launches([str(tmp_path / "Dockerfile")])[0]] == runs
