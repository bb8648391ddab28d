"""Assignments a script makes in forms beyond one plain ``NAME=value``: a command substitution with blanks or quotes
in it (``TP=$(echo 8)``, ``TP=`echo 8```), over several lines (``TP=$(`` … ``)``), several assignments in one
command (``TP=8 PP=2``, ``export PP=2 TP=$(…)``, ``local TP=$(…) X``), a declaration builtin's options (``declare -i``,
``typeset``).  A command substitution's output is not known: the name is unresolved after it (the launch that uses
it undecidable), never left at the value it had before; a plain value is read.  The expected launches were worked out
by hand from the bash manual ("Simple Command Expansion", "Command Substitution", "Bash Builtins": declare); bash
itself runs each script below when it is installed, which shows what the old value would have got wrong."""

from __future__ import annotations

import shutil

import pytest

from kvguard.scan import find_launches
from kvguard.scan.assignments import Assignment, AssignmentCommand, assignment_command, open_substitution

from .test_scan_shell_stops import bash_runs

BASH = shutil.which("bash")

#: (script, kvguard's words after `vllm`, its unresolved names, the words bash runs after `vllm`)
_ASSIGNMENTS = [
    # a command substitution kvguard cannot run: unresolved, not the 4 of the line above
    ("TP=4\nTP=$(echo 8)\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",), ["serve", "m", "-tp", "8"]),
    ("TP=4\nTP=$(printf '%s' 8)\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    ("TP=4\nTP=`echo 8`\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",), ["serve", "m", "-tp", "8"]),
    ("TP=4\nTP=$(echo 8) 2>/dev/null\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    ("TP=4\nTP=$(echo 8); vllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",), ["serve", "m", "-tp", "8"]),
    ("TP=4\ndeclare -i TP=$(echo 8)\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    ("TP=4\ntypeset TP=$(echo 8)\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    # over several lines
    ("TP=4\nTP=$(\n  echo 8\n)\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    ("TP=4\nTP=\"$(\n  echo 8\n)\"\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "$TP"], ("TP",),
     ["serve", "m", "-tp", "8"]),
    # several in one command, in turn
    ("TP=4\nexport TP=$(echo 8) PP=2\nvllm serve m -tp $TP -pp $PP\n", ["serve", "m", "-tp", "$TP", "-pp", "2"],
     ("TP",), ["serve", "m", "-tp", "8", "-pp", "2"]),
    ("TP=4\nTP=8 PP=2\nvllm serve m -tp $TP -pp $PP\n", ["serve", "m", "-tp", "8", "-pp", "2"], (),
     ["serve", "m", "-tp", "8", "-pp", "2"]),
    ("A=1 B=$A\nvllm serve m --a $B\n", ["serve", "m", "--a", "1"], (), ["serve", "m", "--a", "1"]),
    ("TP=4\nreadonly PP=2 TP=8\nvllm serve m -tp $TP\n", ["serve", "m", "-tp", "8"], (), ["serve", "m", "-tp", "8"]),
    # a variable's assignment before a command is that command's environment: $TP is expanded before it
    ("TP=4\nTP=8 PP=2 vllm serve m -tp $TP\n", ["serve", "m", "-tp", "4"], (), ["serve", "m", "-tp", "4"]),
]


def _launches(tmp_path, script: str) -> list:
    path = tmp_path / "serve.sh"
    path.write_text(script)
    return find_launches([str(path)])[0]


@pytest.mark.parametrize("script, words, unresolved, runs", _ASSIGNMENTS)
def test_an_assignment_sets_its_name_and_a_command_substitution_leaves_it_unresolved(tmp_path, script, words,
                                                                                      unresolved, runs):
    [launch] = _launches(tmp_path, script)
    assert launch.tokens[launch.tokens.index("vllm") + 1:] == words
    assert launch.unresolved == unresolved


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, words, unresolved, runs", _ASSIGNMENTS)
def test_bash_gives_the_launch_what_kvguard_reads_or_what_it_leaves_unresolved(tmp_path, script, words, unresolved,
                                                                             runs):
    _launches(tmp_path, script)
    assert bash_runs(str(tmp_path / "serve.sh")) == [runs]
    # where kvguard leaves a name unresolved, the value it had before is not the one bash gives the launch
    assert all(word in runs for word in words if "$" not in word)


def test_a_function_s_local_assignment_holds_in_the_call_only(tmp_path):
    script = "f() {\n  local TP=$(echo 8) X\n  vllm serve m --in $TP\n}\nTP=4\nf\nvllm serve m --after $TP\n"
    launches = _launches(tmp_path, script)
    assert [launch.tokens[1:] for launch in launches] == [["serve", "m", "--in", "$TP"], ["serve", "m", "--after", "4"]]
    assert [launch.unresolved for launch in launches] == [("TP",), ()]
    if BASH is not None:
        assert bash_runs(str(tmp_path / "serve.sh")) == [["serve", "m", "--in", "8"], ["serve", "m", "--after", "4"]]


@pytest.mark.parametrize("text, command", [
    ("TP=$(python -c 'print(8)') PP=2",
     AssignmentCommand("", "", [Assignment("TP", False, "$(python -c 'print(8)')"), Assignment("PP", False, "2")], [])),
    ("local -r TP=`nproc --all` X",
     AssignmentCommand("local", "r", [Assignment("TP", False, "`nproc --all`")], ["X"])),
    ('export A+="x y" >log', AssignmentCommand("export", "", [Assignment("A", True, '"x y"')], [])),
    ("TP=$(nproc) vllm serve m", None),         # a command's environment
    ("TP=1; vllm serve m", None),               # a list: read command by command
    ("TP=$(", None),                            # left open
    ("echo TP=1", None),
])
def test_an_assignment_command_s_words(text, command):
    assert assignment_command(text) == command


@pytest.mark.parametrize("text, before, still_open", [
    ("TP=$(", None, [")"]),
    ('TP="$(', None, ['"', ")"]),
    ("TP=`", None, ["`"]),
    ("TP='$('", None, None),
    ("TP=$(nproc)", None, None),
    ("  nproc --all", [")"], [")"]),
    ("  nproc --all\n)", [")"], None),
])
def test_a_command_substitution_left_open_goes_on_over_the_lines_below(text, before, still_open):
    assert open_substitution(text, before) == still_open
