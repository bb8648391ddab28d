"""The options a shell is started with, read as ``set`` would set them: a script's ``#!`` line (``#!/bin/bash -eu``,
``#!/usr/bin/env -S bash -eu``) when it is run as a program, a child shell's words (``bash -eu -c '…'``, ``bash -e
<<EOF``), a GitHub workflow step's ``shell: bash -eu {0}``.  ``set -e`` then ends the script at a command kvguard
knows fails, ``set -u`` at a reference to a name kvguard knows is unset.  The expected launches are what bash runs
(checked against bash itself below when it is installed: a ``#!`` script run as a program, the others as ``bash
serve.sh``)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from kvguard.scan import find_launches
from kvguard.scan.shell import invocation_set_words, shebang_option_words

from .test_scan_shell_stops import bash_runs

BASH = shutil.which("bash")


@pytest.mark.parametrize("words, given", [
    (["-eu", "serve.sh"], "-e -u"),
    (["--noprofile", "--norc", "-eo", "pipefail", "{0}"], "-e -o pipefail"),
    (["-o", "nounset", "-c", "vllm serve m"], "-o nounset"),
    (["-ec", "vllm serve m", "-u"], "-e"),                 # after the command string: $0, $1, no option
    (["--rcfile", "-u", "-O", "extglob", "+e", "x.sh"], "+e"),   # --rcfile's and -O's value: no option
    (["serve.sh", "-e"], ""),
    (["-", "-e"], ""),
])
def test_a_shell_s_command_line_gives_set_s_options(words, given):
    assert invocation_set_words(words) == given


@pytest.mark.parametrize("line, words", [
    ("#!/bin/bash -eu", ["-eu"]),
    ("#! /bin/sh -e", ["-e"]),
    ("#!/usr/bin/env -S bash -eu", ["-eu"]),
    ("#!/usr/bin/env -S LC_ALL=C bash -e -u", ["-e", "-u"]),
    ("#!/bin/bash", []),
    # one word for the interpreter: bash refuses `-e -u`, env finds no `bash -e`; no script starts
    ("#!/bin/bash -e -u", []),
    ("#!/usr/bin/env bash -e", []),
    ("#!/usr/bin/env bash", []),
    ("#!/usr/bin/python3 -u", []),
    ("# a comment", []),
])
def test_a_shebang_line_gives_its_shell_s_option_words(line, words):
    assert shebang_option_words(line) == words


#: (script, the words of each launch bash runs when the script is run as a program, after `vllm`)
_SHEBANGS = [
    ("#!/bin/bash -e\nX=1\n[ \"$X\" = 2 ]\nvllm serve m --a\n", []),
    ("#!/bin/bash -u\nunset X\necho \"$X\"\nvllm serve m --a\n", []),
    ("#!/bin/bash -eu\nunset X\nvllm serve m --a $X\n", []),
    ("#!/usr/bin/env -S bash -eu\nfalse\nvllm serve m --a\n", []),
    # without the options (or with one bash refuses, when nothing runs at all): the reading goes on
    ("#!/bin/bash\nfalse\nvllm serve m --a\n", [["serve", "m", "--a"]]),
    ("#!/bin/bash -x\nunset X\necho \"$X\" >/dev/null\nvllm serve m --a\n", [["serve", "m", "--a"]]),
    ("#!/bin/bash -eu\nset +eu\nunset X\nfalse\necho \"$X\" >/dev/null\nvllm serve m --a\n", [["serve", "m", "--a"]]),
]


def _launches(tmp_path, script: str, name: str = "serve.sh") -> list:
    path = tmp_path / name
    path.write_text(script)
    return find_launches([str(path)])[0]


def _program_runs(path) -> "list[list[str]]":
    """The words each ``vllm`` command gets when the script at ``path`` is run as a program (its ``#!`` line
    read), ``vllm`` an exported function that prints them."""
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    probe = subprocess.run([BASH or "bash", "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n"
                            "./" + path.name + " 2>/dev/null"], capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "")}, cwd=str(path.parent))
    return [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1] if "\0" in line]


@pytest.mark.parametrize("script, runs", _SHEBANGS)
def test_a_script_s_shebang_options_are_set_from_its_first_line(tmp_path, script, runs):
    assert [launch.tokens[1:] for launch in _launches(tmp_path, script)] == runs


@pytest.mark.skipif(BASH is None or shutil.which("env") is None, reason="bash is not installed")
@pytest.mark.parametrize("script, runs", _SHEBANGS)
def test_the_expected_launches_are_the_ones_the_script_run_as_a_program_runs(tmp_path, script, runs):
    (tmp_path / "serve.sh").write_text(script)
    assert _program_runs(tmp_path / "serve.sh") == runs


def test_a_sourced_file_s_shebang_sets_nothing(tmp_path):
    """``source`` reads a file's ``#!`` line as a comment: its options are not set."""
    (tmp_path / "lib.sh").write_text("#!/bin/bash -e\nTP=2\n")
    script = "source ./lib.sh\nfalse\nvllm serve m -tp $TP\n"
    assert [launch.tokens[1:] for launch in _launches(tmp_path, script)] == [["serve", "m", "-tp", "2"]]
    if BASH is not None:
        assert bash_runs(str(tmp_path / "serve.sh")) == [["serve", "m", "-tp", "2"]]


#: (script, the words of each launch bash runs, after `vllm`): a child shell's own options
_CHILD_SHELLS = [
    ("bash -e -c 'false; vllm serve m --a'\n", []),
    ("bash -ec 'false; vllm serve m --a'\n", []),
    ("bash -u -c 'unset X; vllm serve m --a $X'\n", []),
    ("bash -o errexit -c 'false; vllm serve m --a'\n", []),
    ("bash -e <<'EOF'\nfalse\nvllm serve m --a\nEOF\n", []),
    ("bash -u <<'EOF'\nunset X\necho \"$X\"\nvllm serve m --a\nEOF\n", []),
    # without the options, and the parent's set -e is not the child's
    ("bash -c 'false; vllm serve m --a'\n", [["serve", "m", "--a"]]),
    ("set -e\nbash <<'EOF'\nfalse\nvllm serve m --a\nEOF\n", [["serve", "m", "--a"]]),
    ("bash -c 'false; vllm serve m --a' -e\n", [["serve", "m", "--a"]]),
]


@pytest.mark.parametrize("script, runs", _CHILD_SHELLS)
def test_a_child_shell_s_options_are_set_from_its_words(tmp_path, script, runs):
    assert [launch.tokens[1:] for launch in _launches(tmp_path, script)] == runs


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, runs", _CHILD_SHELLS)
def test_the_expected_child_shell_launches_are_the_ones_bash_runs(tmp_path, script, runs):
    (tmp_path / "serve.sh").write_text(script)
    assert bash_runs(str(tmp_path / "serve.sh")) == runs


_WORKFLOW = """name: serve
on: push
jobs:
  serve:
    runs-on: ubuntu-latest
    steps:
      - shell: bash -u {0}
        run: |
          unset X
          echo "$X"
          vllm serve Qwen/Qwen3-8B -tp 1
      - shell: bash -eu {0}
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 2
      - shell: bash --noprofile --norc -eo pipefail {0}
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 3
      - shell: /bin/bash -o errexit {0}
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 4
      - shell: bash {0}
        run: |
          unset X
          echo "$X"
          vllm serve Qwen/Qwen3-8B -tp 5
      - shell: bash
        run: |
          unset X
          echo "$X"
          vllm serve Qwen/Qwen3-8B -tp 6
"""


def test_a_workflow_step_s_shell_command_gives_its_options(tmp_path):
    """``shell: bash -u {0}`` is ``set -u``, ``bash -eu {0}`` ``set -e`` and ``set -u``, ``bash --noprofile --norc
    -eo pipefail {0}`` (the command ``shell: bash`` stands for, written out) and ``-o errexit`` ``set -e``: their
    steps end before their launch; ``bash {0}`` and ``bash`` set no ``set -u``."""
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    path = workflows / "serve.yml"
    path.write_text(_WORKFLOW)
    assert [launch.tokens[-1] for launch in find_launches([str(path)])[0]] == ["5", "6"]
