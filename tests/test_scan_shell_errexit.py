"""``set -e`` in a shell script, and a sourced file's ``exit``: a command kvguard knows fails ends the script where
bash ends it (the launches below it never run and are not reported); where bash ignores ``set -e``, where kvguard
cannot tell whether it is on, or whether the command fails, the reading goes on.  The expected launches are what
bash runs (checked against bash itself below when it is installed), except the rows marked as kvguard's reading of
what it cannot decide."""

from __future__ import annotations

import shutil

import pytest

from kvguard.scan import find_launches

from .test_scan_shell_stops import bash_runs

BASH = shutil.which("bash")

#: (script, the files it sources, the words of each launch bash runs, after `vllm`)
_ENDS = [
    # a test that fails, alone or as the last command of a list
    ("set -e\nX=1\n[ \"$X\" = 2 ]\nvllm serve m --a\n", {}, []),
    ("set -e; X=1; [ $X = 1 ]; vllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -o errexit\nfalse\nvllm serve m --a\n", {}, []),
    ("set -eo pipefail\nX=1\n[ $X = 1 ] && [ $X = 2 ]\nvllm serve m --a\n", {}, []),
    ("set -e\nfalse || [ -z x ]\nvllm serve m --a\n", {}, []),
    ("set -e\nvllm serve m --a\ntest 1 -gt 2\nvllm serve m --b\n", {}, [["serve", "m", "--a"]]),
    # ignored: before && / ||, after !, in a function called before || (its whole body)
    ("set -e\nX=1\n[ $X = 2 ] && vllm serve m --x\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\n! true\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\nf() { false; vllm serve m --in; }\nf || true\nvllm serve m --a\n", {},
     [["serve", "m", "--in"], ["serve", "m", "--a"]]),
    ("set -e\nf() { false; vllm serve m --in; }\nf\nvllm serve m --a\n", {}, []),
    # arithmetic worth 0: `(( X++ ))` is worth X before the step
    ("set -e\nX=0\n(( X++ ))\nvllm serve m -tp $X\n", {}, []),
    ("set -e\nX=1\n(( X++ ))\nvllm serve m -tp $X\n", {}, [["serve", "m", "-tp", "2"]]),
    ("set -e\nX=1\nlet X=X-1\nvllm serve m -tp $X\n", {}, []),
    ("X=1\nlet X=X-1\nvllm serve m -tp $X\n", {}, [["serve", "m", "-tp", "0"]]),
    # a subshell, a call, a sourced file that ends with a failing status; `shift` past the parameters; `return` at
    # an executed script's top
    ("set -e\n( exit 3 )\nvllm serve m --a\n", {}, []),
    ("set -e\n( exit 0 )\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\n( false; vllm serve m --in )\nvllm serve m --a\n", {}, []),
    ("set -e\nr() { return 3; }\nr\nvllm serve m --a\n", {}, []),
    ("set -e\nr() { return 3; }\nr || true\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\nset -- a b\nshift 3\nvllm serve m --a\n", {}, []),
    ("set -- a b\nshift 3\nX=$1\nvllm serve m --x $X\n", {}, [["serve", "m", "--x", "a"]]),
    ("set -e\nfor i in 1; do return; done\nvllm serve m --a\n", {}, []),
    ("set -e\nsource ./lib.sh\nvllm serve m --a\n", {"lib.sh": "return 4\n"}, []),
    ("set -e\nsource ./lib.sh\nvllm serve m --a\n", {"lib.sh": "false\nX=2\n"}, []),
    # where set -e is set or cleared: a function's holds after the call, a subshell's stays in it, a sourced file's
    # holds
    ("f() { set -e; }\nf\nfalse\nvllm serve m --a\n", {}, []),
    ("( set -e )\nfalse\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\nset +e\nfalse\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    (". ./lib.sh\nfalse\nvllm serve m --a\n", {"lib.sh": "set -e\n"}, []),
    ("source ./lib.sh || true\nvllm serve m --a\n", {"lib.sh": "set -e\nfalse\n"}, [["serve", "m", "--a"]]),
    # a block whose status && / || / | takes: bash ignores set -e in its body (kvguard reads the whole text so)
    ("set -e\nfor i in 1 2; do false; vllm serve m --l $i; done || true\nvllm serve m --a\n", {},
     [["serve", "m", "--l", "1"], ["serve", "m", "--l", "2"], ["serve", "m", "--a"]]),
    ("set -e\n{\n  false\n  vllm serve m --g\n} || true\nvllm serve m --a\n", {},
     [["serve", "m", "--g"], ["serve", "m", "--a"]]),
    # a quote a line leaves open: its lines are no commands (kvguard reads the whole text so)
    ("set -e\necho \"\n[ a = b ]\n\"\nvllm serve m --a\n", {}, [["serve", "m", "--a"]]),
    ("set -e\n( false; vllm serve m --s ) || echo failed\nvllm serve m --a\n", {},
     [["serve", "m", "--s"], ["serve", "m", "--a"]]),
    # a sourced file's exit ends the whole script, set -e or not; its return ends the file alone
    ("source ./lib.sh\nvllm serve m --a\n", {"lib.sh": "X=1\nexit 0\n"}, []),
    ("TP=2\n. ./lib.sh\nvllm serve m -tp $TP\n", {"lib.sh": "if [ \"$TP\" -gt 1 ]; then exit 0; fi\n"}, []),
    ("TP=1\n. ./lib.sh\nvllm serve m -tp $TP\n", {"lib.sh": "if [ \"$TP\" -gt 1 ]; then exit 0; fi\nTP=4\n"},
     [["serve", "m", "-tp", "4"]]),
    ("source ./lib.sh\nvllm serve m --a $X\n", {"lib.sh": "X=1\nreturn 0\nX=2\n"}, [["serve", "m", "--a", "1"]]),
    ("f() { . ./lib.sh; }\nf\nvllm serve m --a\n", {"lib.sh": "exit 0\n"}, []),
    ("( . ./lib.sh )\nvllm serve m --a\n", {"lib.sh": "exit 0\n"}, [["serve", "m", "--a"]]),
]


def _launches(tmp_path, script: str, sourced: dict) -> list:
    for name, text in sourced.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "serve.sh"
    path.write_text(script)
    return find_launches([str(path)])[0]


@pytest.mark.parametrize("script, sourced, runs", _ENDS)
def test_a_failure_set_e_acts_on_and_a_sourced_exit_end_the_script(tmp_path, script, sourced, runs):
    launches = _launches(tmp_path, script, sourced)
    assert [launch.tokens[1:] for launch in launches] == runs
    assert all(not launch.unresolved for launch in launches)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, sourced, runs", _ENDS)
def test_the_expected_launches_are_the_ones_bash_runs(tmp_path, script, sourced, runs):
    _launches(tmp_path, script, sourced)
    assert bash_runs(str(tmp_path / "serve.sh")) == runs


#: (script, what kvguard reports, what bash runs): kvguard cannot tell whether the script ends before the launch —
#: set -e set in a branch that may not run, a function's status its last command's, a command substitution's
#: failure — so it reads on: the launch is reported, as one after an exit that may not run is
_READ_ON = [
    ("set -e\nif [ -f /no/such/file ]; then set +e; fi\nfalse\nvllm serve m --a\n", [["serve", "m", "--a"]], []),
    ("set -e\nf() { [ a = b ] && echo x; }\nf\nvllm serve m --a\n", [["serve", "m", "--a"]], []),
    ("set -e\nX=$(false)\nvllm serve m --a\n", [["serve", "m", "--a"]], []),
    ("set -$FLAGS\nfalse\nvllm serve m --a\n", [["serve", "m", "--a"]], [["serve", "m", "--a"]]),
    # a pipeline's status (its last command's; with `set -o pipefail` the last failing one's): kvguard decides
    # none, whatever the options — its commands run in subshells, and no status kvguard knows comes from one in
    # a deployment script — so it reads on either way
    ("set -e\ntrue | false\nvllm serve m --a\n", [["serve", "m", "--a"]], []),
    ("set -e\nfalse | true\nvllm serve m --a\n", [["serve", "m", "--a"]], [["serve", "m", "--a"]]),
    ("set -eo pipefail\nfalse | true\nvllm serve m --a\n", [["serve", "m", "--a"]], []),
]


@pytest.mark.parametrize("script, reported, runs", _READ_ON)
def test_where_kvguard_cannot_tell_whether_the_script_ends_it_reads_on(tmp_path, script, reported, runs):
    assert [launch.tokens[1:] for launch in _launches(tmp_path, script, {})] == reported
    if BASH is not None:
        assert bash_runs(str(tmp_path / "serve.sh")) == runs


def test_a_function_a_guide_s_earlier_block_defines_is_read_as_its_own_text_is(tmp_path):
    """A block's function whose loop `|| true` follows, called under `set -e` from a later block: bash ignores
    `set -e` in that loop; kvguard, which did not look at the function's text with the later block, reads on."""
    guide = tmp_path / "guide.md"
    guide.write_text("# guide\n\n```bash\nf() {\n  for i in 1; do false; done || true\n  vllm serve m --in\n}\n```\n\n"
                     "```bash\nset -e\nf\nvllm serve m --after\n```\n")
    assert [launch.tokens[1:] for launch in find_launches([str(guide)])[0]] == [
        ["serve", "m", "--in"], ["serve", "m", "--after"]]
