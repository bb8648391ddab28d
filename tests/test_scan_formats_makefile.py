"""Makefile recipes read as GNU make expands them before its shell runs them (kvguard.scan.makefile).

Expected launches are written by hand from the GNU make manual ("Basics of Variable References": "A dollar sign
followed by a character other than a dollar sign, open-parenthesis or open-brace treats that single character as
the variable name", so ``$MODEL`` is ``$(M)ODEL``); each expected recipe line is also checked against
``make -n`` when make is installed."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kvguard.scan import find_launches

CASES = [
    # ($(M) is a makefile variable: $MODEL is its value followed by ODEL)
    ("M = Qwen/Qwen3-32B\nMODEL = Qwen/Qwen3-8B\nserve:\n\tvllm serve $MODEL -tp 2\n",
     "vllm serve Qwen/Qwen3-32BODEL -tp 2", ["vllm", "serve", "Qwen/Qwen3-32BODEL", "-tp", "2"], ()),
    # $T is make's variable T (set nowhere in the file: the environment's, unknown), not the shell's $TP
    ("export TP = 2\nserve:\n\tvllm serve Qwen/Qwen3-8B -tp $TP\n",
     "vllm serve Qwen/Qwen3-8B -tp P", None, ("T",)),
    # $$TP is the shell's $TP: the exported make variable
    ("export TP = 2\nserve:\n\tvllm serve Qwen/Qwen3-8B -tp $$TP\n",
     "vllm serve Qwen/Qwen3-8B -tp $TP", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], ()),
    # parentheses and braces name the whole variable
    ("TP = 4\nMODEL = Qwen/Qwen3-8B\nserve:\n\tvllm serve ${MODEL} -tp $(TP)\n",
     "vllm serve Qwen/Qwen3-8B -tp 4", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"], ()),
]


def _launch(tmp_path, text):
    makefile = tmp_path / "Makefile"
    makefile.write_text(text, encoding="utf-8")
    launches, skipped, _ = find_launches([str(makefile)])
    assert skipped == [] and len(launches) == 1
    return launches[0]


@pytest.mark.parametrize(("text", "make_line", "tokens", "unresolved"), CASES)
def test_recipe_references_as_make_expands_them(tmp_path, text, make_line, tokens, unresolved):
    launch = _launch(tmp_path, text)
    assert launch.unresolved == unresolved
    if tokens is not None:
        assert launch.tokens == tokens


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")
@pytest.mark.parametrize(("text", "make_line", "tokens", "unresolved"), CASES)
def test_the_expected_recipe_line_is_what_make_runs(tmp_path, text, make_line, tokens, unresolved):
    (tmp_path / "Makefile").write_text(text, encoding="utf-8")
    done = subprocess.run(["make", "-s", "-n", "serve"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, check=True)
    assert done.stdout.strip() == make_line


#: (makefile, the words of each launch make runs for `make serve`, after `vllm`): each recipe line runs in a shell
#: of its own — what one sets (a variable, `set -e`, `set -u`) is gone on the next line — unless `.ONESHELL:` hands
#: the whole recipe to one shell; the shell starts with `.SHELLFLAGS` (`-c`, `-ec` under `.POSIX:`)
SHELLS = [
    ("serve:\n\tset -e\n\tfalse; vllm serve m --a\n", [["serve", "m", "--a"]]),
    (".ONESHELL:\nserve:\n\tset -e\n\tfalse; vllm serve m --a\n", []),
    ("serve:\n\tset -u; unset X\n\techo $$X; vllm serve m --a\n", [["serve", "m", "--a"]]),
    (".ONESHELL:\nserve:\n\tset -u; unset X\n\techo $$X; vllm serve m --a\n", []),
    ("serve:\n\tTP=4\n\tvllm serve m -tp $${TP:-2}\n", [["serve", "m", "-tp", "2"]]),
    (".ONESHELL:\nserve:\n\tTP=4\n\tvllm serve m -tp $${TP:-2}\n", [["serve", "m", "-tp", "4"]]),
    ("serve:\n\tfalse; vllm serve m --a\n", [["serve", "m", "--a"]]),
    ("SHELL := /bin/bash\n.SHELLFLAGS := -eu -o pipefail -c\nserve:\n\tunset X; echo $$X; vllm serve m --a\n", []),
    (".SHELLFLAGS = -e -c\nserve:\n\tfalse; vllm serve m --a\n", []),
    (".POSIX:\nserve:\n\tfalse; vllm serve m --a\n", []),
]


@pytest.mark.parametrize(("text", "runs"), SHELLS)
def test_each_recipe_line_runs_in_a_shell_of_its_own_unless_oneshell(tmp_path, text, runs):
    (tmp_path / "Makefile").write_text(text, encoding="utf-8")
    assert [launch.tokens[1:] for launch in find_launches([str(tmp_path / "Makefile")])[0]] == runs


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("bash") is None, reason="GNU make is not installed")
@pytest.mark.parametrize(("text", "runs"), SHELLS)
def test_the_expected_launches_are_the_ones_make_runs(tmp_path, text, runs):
    (tmp_path / "Makefile").write_text(text, encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    vllm = bin_dir / "vllm"
    vllm.write_text("#!/bin/sh\nprintf '%s\\0' \"$@\"\nprintf '\\n'\n")
    vllm.chmod(0o755)
    done = subprocess.run(["make", "-s", "serve"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"})
    assert [line.split("\0")[:-1] for line in done.stdout.split("\n")[:-1] if "\0" in line] == runs
