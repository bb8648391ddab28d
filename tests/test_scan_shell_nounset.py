"""``set -u`` in a shell script: a reference to a name kvguard knows is unset (one the script itself unset or
declared ``local`` without a value, a positional parameter past the ones a call gave, an empty array's ``$A``) ends
the script where bash ends it (``X: unbound variable``, status 127, ``set -e`` or not), and the launches below it
are not reported.  A name the script never sets may come from the environment it is run with: there the reading
goes on, the name set to a value kvguard cannot know after the reference (bash goes on only when the environment
gives it), so ``[ -z "$X" ] && X=8`` no longer gives X the 8 bash never reaches.  The expected launches are what
bash runs (checked against bash itself below when it is installed), except the rows marked as kvguard's reading of
what it cannot decide."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest

from kvguard.scan import find_launches

from .test_scan_shell_stops import bash_runs

BASH = shutil.which("bash")

#: (script, the words of each launch bash runs, after `vllm`)
_ENDS = [
    # a name the script unset: a plain reference, a test, `if` / `case` on it, its length, a pattern removal
    ("set -u\nX=1\nunset X\n[ -z \"$X\" ] && X=8\nvllm serve m --b\n", []),
    ("set -euo pipefail\nX=1\nunset X\nvllm serve m --a\necho \"$X\"\nvllm serve m --b\n", [["serve", "m", "--a"]]),
    ("set -u\nunset X\nvllm serve m --b ${#X}\n", []),
    ("set -u\nunset X\necho ${X%x} >/dev/null\nvllm serve m --b\n", []),
    ("set -eu\nunset X\nif [ -z \"$X\" ]; then X=2; fi\nvllm serve m --b\n", []),
    ("set -u\nunset X\ncase $X in *) ;; esac\nvllm serve m --b\n", []),
    ("set -u\nunset X\nvllm serve m --b $X 2>&1\n", []),
    ("set -u\nunset X\necho \"${X}\" >/dev/null; vllm serve m --b\n", []),
    # a list's later command: the ones before it run
    ("set -u\nunset X\nvllm serve m --a; echo $X; vllm serve m --b\n", [["serve", "m", "--a"]]),
    ("set -u\nA=()\necho a >/dev/null; vllm serve m --b $A\n", []),
    ("set -u\nunset X\necho $X; vllm serve m --b; unset X\n", []),
    # without set -e too (a non-interactive shell exits on an unbound variable); set -o nounset, set -eu
    ("set -o nounset\nunset X\necho $X\nvllm serve m --b\n", []),
    ("set -eu\nX=\nunset X\nY=$X\nvllm serve m --b\n", []),
    # a positional parameter past the ones given; an empty array's $A
    ("set -u\nf() { vllm serve m --f $1; }\nf\nvllm serve m --b\n", []),
    ("set -u\nset -- a\nvllm serve m --b $2\n", []),
    ("set -u\nA=()\nvllm serve m $A --b\n", []),
    # where set -u is set: a function's holds after the call, a subshell's stays in it; set +u clears it
    ("unset X\nf() { set -u; }\nf\necho $X\nvllm serve m --b\n", []),
    ("( set -u )\nunset X\necho $X >/dev/null\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nset +u\nunset X\necho $X >/dev/null\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nset +o nounset\nunset X\necho $X >/dev/null\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    # what does not trip it: the default expansions, "${A[@]}" of an empty array, $@ / $* with no parameters, a
    # reference after || that does not run, a pipeline's, a subshell's and a command substitution's (the subshell
    # alone ends), single quotes, a set parameter
    ("set -u\nunset X\nvllm serve m --b ${X:-4} ${X-5} ${X+6}\n", [["serve", "m", "--b", "4", "5"]]),
    ("set -u\nA=()\nvllm serve m \"${A[@]}\" --b\n", [["serve", "m", "--b"]]),
    ("set -u\nf() { vllm serve m --f \"$@\" $*; }\nf\n", [["serve", "m", "--f"]]),
    ("set -u\nunset X\ntrue || echo $X\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nunset X\necho $X | cat >/dev/null\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nunset X\n( echo $X )\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nunset X\nY=$(echo $X)\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nunset X\necho '$X' >/dev/null\nvllm serve m --b\n", [["serve", "m", "--b"]]),
    ("set -u\nf() { vllm serve m --f $1; }\nf 2\nvllm serve m --b\n",
     [["serve", "m", "--f", "2"], ["serve", "m", "--b"]]),
    ("set -u\nunset X\nX=3\nvllm serve m --b $X\n", [["serve", "m", "--b", "3"]]),
]


def _launches(tmp_path, script: str) -> list:
    path = tmp_path / "serve.sh"
    path.write_text(script)
    return find_launches([str(path)])[0]


@pytest.mark.parametrize("script, runs", _ENDS)
def test_a_reference_set_u_acts_on_ends_the_script(tmp_path, script, runs):
    launches = _launches(tmp_path, script)
    assert [launch.tokens[1:] for launch in launches] == runs
    assert all(not launch.unresolved for launch in launches)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, runs", _ENDS)
def test_the_expected_launches_are_the_ones_bash_runs(tmp_path, script, runs):
    _launches(tmp_path, script)
    assert bash_runs(str(tmp_path / "serve.sh")) == runs


def _bash_runs_with(path: str, environment: dict) -> list[list[str]]:
    """The words of each ``vllm`` command bash runs for the script at ``path``, run with ``environment``."""
    probe = subprocess.run([BASH or "bash", "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n"
                            "bash " + shlex.quote(path) + " 2>/dev/null"], capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", ""), **environment}, cwd=os.path.dirname(path))
    return [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1] if "\0" in line]


#: (script, what kvguard reports and whether it is unresolved, what bash runs without X in its environment, what
#: bash runs with X=5): a name the script never sets may come from the environment, so kvguard cannot tell whether
#: the script ends at the reference: it reads on, the name's value unknown after it (the default idiom's 8 is
#: never what bash runs under set -u: it exits, or X holds the caller's value)
_READ_ON = [
    ("set -euo pipefail\n[ -z \"$X\" ] && X=8\nvllm serve m -tp $X\n",
     [(["serve", "m", "-tp", "$X"], True)], [], [["serve", "m", "-tp", "5"]]),
    ("set -u\nif [ -z \"$X\" ]; then X=8; fi\nvllm serve m -tp $X\n",
     [(["serve", "m", "-tp", "$X"], True)], [], [["serve", "m", "-tp", "5"]]),
    ("set -u\nvllm serve m --a\n[ -n \"$X\" ] || X=8\nvllm serve m --b\n",
     [(["serve", "m", "--a"], False), (["serve", "m", "--b"], False)], [["serve", "m", "--a"]],
     [["serve", "m", "--a"], ["serve", "m", "--b"]]),
    # without set -u the default idiom is read as before: the environment taken as not giving X
    ("[ -z \"$X\" ] && X=8\nvllm serve m -tp $X\n", [(["serve", "m", "-tp", "8"], False)],
     [["serve", "m", "-tp", "8"]], [["serve", "m", "-tp", "5"]]),
    # a pipeline's element that ends its subshell: under set -eo pipefail the pipeline fails, and set -e ends the
    # script (kvguard does not follow pipefail: it reads on, as for any pipeline whose status it does not know)
    ("set -euo pipefail\nunset X\necho $X | cat\nvllm serve m --b\n", [(["serve", "m", "--b"], False)], [], []),
    # set -u in a branch kvguard does not decide: not known to be on, read as before
    ("if [ -f /no/such/file ]; then set -u; fi\nunset X\necho $X\nvllm serve m --b\n", [(["serve", "m", "--b"], False)],
     [["serve", "m", "--b"]], [["serve", "m", "--b"]]),
]


@pytest.mark.parametrize("script, reported, runs, runs_with_x", _READ_ON)
def test_where_kvguard_cannot_tell_whether_the_name_is_set_it_reads_on(tmp_path, script, reported, runs,
                                                                       runs_with_x):
    launches = _launches(tmp_path, script)
    assert [(launch.tokens[1:], bool(launch.unresolved)) for launch in launches] == reported
    if BASH is not None:
        assert _bash_runs_with(str(tmp_path / "serve.sh"), {}) == runs
        assert _bash_runs_with(str(tmp_path / "serve.sh"), {"X": "5"}) == runs_with_x


def test_a_guide_s_block_is_typed_into_an_interactive_shell_that_goes_on(tmp_path):
    """An interactive shell ends the command with an unbound variable alone, and reads the next line: a guide's
    block (typed into one) reads on."""
    guide = tmp_path / "guide.md"
    guide.write_text("# guide\n\n```bash\nset -u\nunset X\necho $X\nvllm serve m --after\n```\n")
    assert [launch.tokens[1:] for launch in find_launches([str(guide)])[0]] == [["serve", "m", "--after"]]
    if BASH is not None:
        probe = subprocess.run([BASH, "-i"], input="set -u\nunset X\necho $X\necho after\n", capture_output=True,
                               text=True, env={"PATH": os.environ.get("PATH", "")}, cwd=str(tmp_path))
        assert "after" in probe.stdout.split()


#: (script, what bash runs): a name the script unset, then set in a way kvguard does not follow (an element's
#: assignment, a command substitution's, a nameref): no longer known to be unset, the reading goes on (the launch
#: reported with the name unresolved, as it was before)
_SET_AGAIN = [
    ("set -u\nunset X\nX[0]=2\nvllm serve m --b $X\n", [["serve", "m", "--b", "2"]]),
    ("set -u\nunset X\nX=$(echo 8)\nvllm serve m --b $X\n", [["serve", "m", "--b", "8"]]),
    ("set -u\nunset X\ndeclare -n R=X\nR=16\nvllm serve m --b $X\n", [["serve", "m", "--b", "16"]]),
    ("set -u\nunset X\nprintf -v X %s 1\nvllm serve m --b $X\n", [["serve", "m", "--b", "1"]]),
    ("set -u\nunset X\necho a >/dev/null; X=$(echo 3); vllm serve m --b $X\n", [["serve", "m", "--b", "3"]]),
    # a sourced file kvguard cannot read, an eval of a text it does not know: they may set any name
    ("set -u\nunset X\n. \"$(dirname \"$0\")/env.sh\"\nvllm serve m --b $X\n", [["serve", "m", "--b", "4"]]),
    ("set -u\nunset X\nS='X=5'\neval \"$S$(true)\"\nvllm serve m --b $X\n", [["serve", "m", "--b", "5"]]),
]


@pytest.mark.parametrize("script, runs", _SET_AGAIN)
def test_a_name_set_again_in_a_way_kvguard_does_not_follow_does_not_end_the_script(tmp_path, script, runs):
    (tmp_path / "env.sh").write_text("X=4\n")
    launches = _launches(tmp_path, script)
    assert [launch.tokens[1:3] for launch in launches] == [words[:2] for words in runs]
    if BASH is not None:
        assert bash_runs(str(tmp_path / "serve.sh")) == runs
