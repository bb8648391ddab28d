"""Shell conditions kvguard decides (``if`` / ``elif`` / ``else``, ``case`` arms, ``TEST && COMMAND``): the branch
bash takes is the only one read, and a branch that does not run is not read at all.  Checked against bash itself
on generated scripts, ``vllm`` a shell function that prints the words it is given."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvguard.scan import find_launches
from kvguard.scan.conditions import arm_matches, condition_value
from kvguard.scan.variables import Variables

BASH = shutil.which("bash")


def _variables() -> Variables:
    variables = Variables({})
    for name, value in {"GPU": "H100", "TP": "8", "EMPTY": "", "PAIR": "a b", "DASH": "-n"}.items():
        variables.set_known(name, value)
    return variables


@pytest.mark.parametrize("condition, value", [
    ('[ "$GPU" = H100 ]', True), ("[ $GPU == A100 ]", False), ('[ "$GPU" != H100 ]', False),
    ('[ -z "$EMPTY" ]', True), ('[ -n "$EMPTY" ]', False), ('[ "$PAIR" ]', True), ('[ "$EMPTY" ]', False),
    ("[ $TP -gt 4 ]", True), ("[ $TP -le 4 ]", False), ("test $TP -eq 8", True), ("! [ $TP -lt 2 ]", True),
    ('[ "$DASH" = x ]', False),                # `test` sees three arguments: the binary `=` wins
    ("[[ $GPU == H* ]]", True), ('[[ $GPU == "H*" ]]', False), ("[[ $PAIR == 'a b' ]]", True),
    ("[[ -z $EMPTY ]]", True), ("[[ ! -n $EMPTY ]]", True),
    ('[ -z "${GPU:-}" ]', False), ('[ -n "${EMPTY-}" ]', False), ("[[ ${TP:-} -gt 4 ]]", True),
    ("true", True), ("false", False), (":", True),
    ("[ $TP -gt 4 ] && [ $GPU = A100 ]", False), ("[ $TP -gt 4 ] || [ $NOPE = x ]", True),
    ("false && [ $NOPE = x ]", False),
    # undecided: a variable the environment may hold, word splitting, a file test, a command's status
    ('[ "$NOPE" = x ]', None), ("[ -z $EMPTY ]", None), ("[ $PAIR = a ]", None), ("[ -f /etc/x ]", None),
    ("grep -q H100 gpus.txt", None), ("[ $GPU = H* ]", None), ("[[ $GPU =~ H1 ]]", None),
    ("[ $(nproc) -gt 4 ]", None), ("[ $GPU -gt 4 ]", None), ("[[ $GPU < I ]]", None),
    ("[ " + "9" * 5000 + " -gt 4 ]", None),
])
def test_condition_values(condition, value):
    assert condition_value(condition, _variables()) is value


@pytest.mark.parametrize("subject, patterns, value", [
    ('"$GPU"', "A100|H1*", True), ("$GPU", '"H100"', True), ("$GPU", "*", True), ("$GPU", "a", False),
    ("$GPU", "H[0-9]00", True), ("$GPU", "[!H]*", False), ("$NOPE", "*", None), ("$GPU", "$NOPE", None),
    ("$GPU", "H[^1]*", None),
])
def test_case_arm_values(subject, patterns, value):
    assert arm_matches(subject, patterns, _variables()) is value


def _launches(tmp_path, script: str) -> list:
    path = tmp_path / "serve.sh"
    path.write_text(script)
    return find_launches([str(path)])[0]


def test_only_the_branch_that_runs_is_read_and_what_it_sets_holds(tmp_path):
    script = ("GPU=H100\nMODE=ep\nif [ \"$GPU\" = H100 ]; then\n  TP=8\nelif [ \"$GPU\" = A100 ]; then\n  TP=4\n"
              "  vllm serve dead -tp 4\nelse\n  TP=1\nfi\nvllm serve m -tp $TP\ncase \"$MODE\" in\n"
              "  tp) EXTRA=\"-dp 1\" ;;\n  ep) EXTRA=--enable-expert-parallel ;;\n  *) EXTRA= ;;\nesac\n"
              "vllm serve m -tp $TP $EXTRA\nif [ \"$GPU\" = A100 ]; then vllm serve dead2; else PP=2; fi\n"
              "[ \"$GPU\" = A100 ] && vllm serve dead3\n[ \"$GPU\" = H100 ] && vllm serve m -pp $PP\n")
    assert [(launch.line, launch.tokens[2:], launch.unresolved) for launch in _launches(tmp_path, script)] == [
        (11, ["m", "-tp", "8"], ()), (17, ["m", "-tp", "8", "--enable-expert-parallel"], ()),
        (20, ["m", "-pp", "2"], ())]


def test_an_undecided_condition_reads_every_branch_as_before(tmp_path):
    script = "TP=2\nif [ -f /etc/big ]; then\n  TP=8\n  vllm serve m -tp $TP\nfi\nvllm serve m -tp $TP\n"
    assert [(launch.tokens[2:], launch.unresolved) for launch in _launches(tmp_path, script)] == [
        (["m", "-tp", "8"], ()), (["m", "-tp", "$TP"], ("TP",))]


def test_a_branch_after_an_undecided_one_that_surely_runs_leaves_the_names_unresolved(tmp_path):
    script = "TP=2\nif [ -f /etc/big ]; then TP=8\nelif true; then TP=4\nfi\nvllm serve m -tp $TP\n"
    (launch,) = _launches(tmp_path, script)
    assert launch.unresolved == ("TP",)


def test_a_case_arm_that_falls_through_leaves_the_rest_undecided(tmp_path):
    script = "M=a\nTP=1\ncase $M in\n  a) TP=2 ;&\n  b) TP=4 ;;\nesac\nvllm serve m -tp $TP\n"
    (launch,) = _launches(tmp_path, script)
    assert launch.unresolved == ("TP",)


# ---- bash itself, on generated scripts whose conditions kvguard decides
_VALUES = st.sampled_from(["", "8", "4", "H100", "A100", "a b", "-n", "x"])
_CONDITIONS = st.sampled_from([
    '[ "$X" = "$Y" ]', '[ "$X" != H100 ]', '[ -z "$X" ]', '[ -n "$Y" ]', '[ "$X" ]', "[[ $X == H* ]]",
    '[[ $Y != "$X" ]]', "[[ -z $Y ]]", '[ "$N" -gt 4 ]', '[ "$N" -eq 8 ]', "true", "false",
    '! [ "$X" = A100 ]', '[ -n "$X" ] && [ "$N" -lt 6 ]', '[ -z "$Y" ] || [[ $X == *0 ]]'])
_ARMS = st.lists(st.sampled_from(["H100", "A1*", "''", "*", '"a b"', "8|4", "x|-n", "[AH]100"]), min_size=1,
                 max_size=3)


def _if_block(conditions: list[str], one_line: bool) -> str:
    parts = []
    for i, condition in enumerate(conditions):
        parts.append(f"{'if' if i == 0 else 'elif'} {condition}; then TP={i + 1}; vllm serve b{i} -tp $TP")
    parts.append("else TP=9; vllm serve else -tp $TP")
    return ("; ".join(parts) + "; fi") if one_line else ("\n".join(parts) + "\nfi")


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(x=_VALUES, y=_VALUES, n=st.sampled_from(["2", "4", "8"]),
       conditions=st.lists(_CONDITIONS, min_size=1, max_size=3), one_line=st.booleans(), arms=_ARMS,
       guard=_CONDITIONS)
def test_decided_conditions_agree_with_bash(tmp_path, x, y, n, conditions, one_line, arms, guard):
    case = "case $X in\n" + "".join(f"  {pattern}) PP={i + 1} ;;\n" for i, pattern in enumerate(arms)) + "esac\n"
    script = (f"X={shlex.quote(x)}\nY={shlex.quote(y)}\nN={n}\nPP=0\n" + _if_block(conditions, one_line) + "\n"
              + case + "vllm serve after -tp $TP -pp $PP\n" + guard + " && vllm serve guarded\n")
    path = tmp_path / "serve.sh"
    path.write_text(script)
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\n. " +
                            shlex.quote(str(path))], capture_output=True, text=True)
    runs = [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]
    launches = find_launches([str(path)])[0]
    assert all(not launch.unresolved for launch in launches), script
    assert [launch.tokens[1:] for launch in launches] == runs, script


def test_deeply_nested_branches_that_do_not_run_are_skipped_in_linear_time(tmp_path):
    import time

    depth = 20000
    script = ("GPU=H100\n" + 'if [ "$GPU" = A100 ]; then\n' * depth + "vllm serve m -tp 3\n" + "fi\n" * depth
              + "vllm serve m -tp 2\n")
    started = time.perf_counter()
    launches = _launches(tmp_path, script)
    assert time.perf_counter() - started < 10
    assert [launch.tokens[3:] for launch in launches] == [["-tp", "2"]]


# ---- bash itself, on generated scripts mixing loops, functions, conditions and one-line forms
_STATEMENTS = st.sampled_from([
    "X=2", "X=4", "Y=$X", "X=$((X*2))", "vllm serve m -tp $X", "vllm serve m -tp $X -pp $Y",
    "for v in 1 3; do X=$v; vllm serve m --loop $v -tp $X; done",
    "if [ \"$X\" -gt 3 ]; then Y=big; else Y=small; fi",
    "if [ \"$Y\" = big ]; then vllm serve m --big $X; fi",
    "case $Y in big) X=8 ;; *) X=1 ;; esac",
    "f 5", "[ \"$X\" -lt 5 ] && vllm serve m --small $X", "[ -n \"$Y\" ] || Y=set",
    "A=(-tp \"$X\" --name 'a b')", "vllm serve m \"${A[@]}\"", "export X", "unset Y; Y=${Y:-again}",
    "vllm serve m --n ${#Y} --x $((X+1))", "for i in {1..2}; do X=$((X+i)); done",
    "g() { local X=9; f $X; }; g", "set -- 7 8; shift; X=$1", "while false; do X=99; done; vllm serve m --w $Y",
    "((X++))", "(( X += 2 ))", "let X=X*2", "let \"X = X - 1\"", "((--X))", "eval \"X=5\"",
    "eval vllm serve m --eval $X", "( X=5; vllm serve m --sub $X )", "{ X=6; vllm serve m --grp $X; }",
    "(\n  X=7\n  vllm serve m --ml $X\n)", "{\n  Y=grp\n}", "(vllm serve m --bg $Y) 2>/dev/null",
    "case \"$Y\" in\n  big|huge)\n    X=8\n    vllm serve m --case $X\n    ;;\n  none|small) X=2 ;;\n  *)\n    X=1\n    ;;\nesac",
    "if [ $X -gt 2 ]; then\n  if [ \"$Y\" = big ]; then X=3; else vllm serve m --inner $Y; fi\nelif [ $X -eq 2 ]; then\n"
    "  Y=two\nfi",
    "for w in a b; do\n  if [ $w = b ]; then Y=$w; fi\ndone",
    # what ends what runs: in a called function, a loop's run, a branch, a subshell; `return` at the top (bash
    # refuses it in an executed script and goes on)
    "h 5", "e 3", "r", "for i in 1; do exit 0; done", "[ $X -gt 3 ] && exit 0", "if [ \"$Y\" = big ]; then exit 0; fi",
    "for i in 1 2 3; do [ $i = 2 ] && break; vllm serve m --br $i; done",
    "for i in 1 2 3; do if [ $i = \"$X\" ]; then continue; fi; vllm serve m --co $i; done",
    "for i in 1 2; do for j in 1 2; do [ $j = \"$X\" ] && continue 2; vllm serve m --c2 $i$j; done; done",
    "for i in 1 2; do while true; do break 2; done; done; vllm serve m --b2 $i", "( exit 3 ); vllm serve m --sx $X",
    "for i in 1; do return; done", "vllm serve m --a $X; exit 0; vllm serve m --never",
    # the default idiom on a name the script does not set (nor the environment bash runs in)
    '[ -z "$D" ] && D=3', 'if [ -z "${D:-}" ]; then D=5; fi', 'test -z "$D" && D=6', "[[ -z $D ]] && D=7",
    '[ -n "$D" ] || D=8', 'if [ -z "$D" ]; then\n  D=4\n  vllm serve m --dd $D\nfi', "unset D", "D=",
    "vllm serve m --d ${D:-0}",
    "case $Y in big) exit 0 ;; *) vllm serve m --arm $Y ;; esac", "until false; do vllm serve m --u $X; break; done",
    "lp 2", "{ [ $X -ge 4 ] && exit 0; vllm serve m --gr $X; }", "[ $X -lt 0 ] || h 2", "df; vllm serve m --df $D",
    'if [ -n "$D" ]; then :; else D=2; fi', "Y=big; case $Y in big) X=3;; *) X=5;; esac; vllm serve m --pc $X",
    "for i in 1 2 3; do case $i in 2) continue;; 3) break;; esac; vllm serve m --ca $i; done",
    # a sourced file that exits (the whole script ends), returns, or exits in a branch
    ". ./ends.sh", "source ./returns.sh", ". ./ends_big.sh"])

#: the files the generated scripts source (none launches: a sourced file's launches are its own file's)
_SOURCED = {"ends.sh": "X=11\nexit 0\nX=12\n", "returns.sh": "X=13\nreturn 2\nX=14\n",
            "ends_big.sh": "if [ \"$X\" -gt 3 ]; then exit 0; fi\nY=small\n",
            "fails.sh": "false\nX=15\n", "strict.sh": "set -e\n"}

#: functions the generated scripts call (or never do): `f` sets X, `h` exits, `e`, `r` and `lp` return, `df` gives D
#: a default, `nc` is never called
_FUNCTIONS = ("f() { local Z=$1; X=$((X+Z)); vllm serve m --f $Z -tp $X; }\n"
              "h() { vllm serve m --h $1; exit 0; }\ne() { vllm serve m --e $1; return; vllm serve m --never; }\n"
              "r() { if [ $X -gt 2 ]; then return 3; fi; X=$((X+1)); }\nnc() { exit 1; }\n"
              "lp() { for k in 1 2 3; do [ $k = $1 ] && return; vllm serve m --lp $k -x $1; done; X=0; }\n"
              "df() { [ -z \"$D\" ] && D=9; }\n")


def _bash_runs(path) -> list[list[str]]:
    """The words of each ``vllm`` command bash runs executing the script at ``path`` (``vllm`` a function that
    prints them), in an environment of ``PATH`` alone."""
    probe = subprocess.run([BASH or "bash", "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n"
                            "bash " + shlex.quote(str(path)) + " 2>/dev/null"], capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "")}, cwd=str(path.parent))
    return [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(statements=st.lists(_STATEMENTS, min_size=1, max_size=7), joins=st.lists(st.booleans(), min_size=7,
                                                                                max_size=7))
def test_generated_scripts_agree_with_bash(tmp_path, statements, joins):
    """Each statement on its own line or joined to the one before with ``;``: the launches kvguard decides are
    the ones bash runs (every value is known, every condition decidable)."""
    script = "X=1\nY=none\nA=()\n" + _FUNCTIONS + _joined(statements, joins) + "\n"
    _assert_agrees_with_bash(tmp_path, script)


def _joined(statements: list[str], joins: list[bool]) -> str:
    """The statements, each on its own line or joined to the one before with ``;``."""
    body = statements[0]
    for statement, joined in zip(statements[1:], joins):
        body += ("; " if joined and not statement.startswith("case") and not body.endswith(("esac", "&")) else "\n") \
            + statement
    return body


def _assert_agrees_with_bash(tmp_path, script: str) -> None:
    """The launches kvguard decides for ``script`` (beside the files of :data:`_SOURCED`) are the ones bash runs."""
    for name, text in _SOURCED.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "serve.sh"
    path.write_text(script)
    # compared as sets: kvguard reports a launch a line makes twice alike once
    launches = find_launches([str(path)])[0]
    # a line whose values kvguard does not know (a name set by `printf -v`) is reported unresolved, never decided:
    # bash's runs of that line (told apart by its marker, ``m --XX``) are not compared (a line kvguard drops still
    # fails the comparison)
    open_lines = {tuple(launch.tokens[2:4]) for launch in launches if launch.unresolved}
    runs = sorted({tuple(words) for words in _bash_runs(path) if tuple(words[1:3]) not in open_lines})
    decided = sorted({tuple(launch.tokens[1:]) for launch in launches if not launch.unresolved})
    assert decided == runs, script


#: what `set -e` acts on: commands kvguard knows fail (tests, arithmetic worth 0, a subshell, a call, a sourced file
#: ending with a failing status, `shift` past the parameters, `return` at the top) where bash does not ignore it,
#: and the places it does (before `&&` / `||`, a function called there, after `!`); `set -e` set, cleared, set in
#: a function (it holds after the call) or in a subshell (it does not)
_ERREXIT_STATEMENTS = st.sampled_from([
    "set -e", "set -e", "set +e", "set -o errexit", "set -eo pipefail", "set +o errexit", "set -ex",
    "false", "true", ":", '[ "$X" -gt 3 ]', '[ "$Y" = big ]', "[[ $X == 2 ]]", "test $X -lt 4", '! [ "$X" = 2 ]',
    '[ "$X" -gt 2 ] && [ "$Y" = none ]', '[ "$Y" = big ] || [ $X -lt 3 ]', "false || true", "true && false",
    "[ $X -gt 9 ] && vllm serve m --gt $X", "fe 1", "fe 2 || true", "fe 3 && true", "r || true", "( [ $X -gt 2 ]; vllm serve m --sub2 $X )", "( exit 0 )",
    "( set -e; false; vllm serve m --sub3 )", "strict", "(( X - 1 )) || true", "let X=X-1", "(( X-- ))",
    "set -- 1; shift 2; X=$((X+1))", "for i in 1 2; do [ $i = 2 ]; vllm serve m --fl $i; done",
    "if [ $X -gt 2 ]; then false; fi", "case $Y in big) false ;; *) vllm serve m --cs $Y ;; esac",
    "while [ $X -gt 100 ]; do false; done", "return", ". ./fails.sh", "source ./strict.sh",
    "source ./returns.sh || true", "{ [ $X = 1 ] && X=5; }"])

#: `fe` fails at its test when X is 2 or less, `strict` sets `set -e` for the script
_ERREXIT_FUNCTIONS = "fe() { [ $X -gt 2 ]; vllm serve m --fe $1 $X; }\nstrict() { set -e; }\n"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(statements=st.lists(st.one_of(_ERREXIT_STATEMENTS, _ERREXIT_STATEMENTS,
                                     _STATEMENTS.filter(lambda statement: not statement.startswith("df"))),
                           min_size=1, max_size=8),
       joins=st.lists(st.booleans(), min_size=8, max_size=8))
def test_generated_scripts_under_set_e_agree_with_bash(tmp_path, statements, joins):
    """The generated scripts with ``set -e`` among their statements: a failure it acts on ends the script where
    bash ends it (``df``, whose status is its last command's, is left out: kvguard does not follow that status)."""
    script = "X=1\nY=none\nA=()\n" + _FUNCTIONS + _ERREXIT_FUNCTIONS + _joined(statements, joins) + "\n"
    _assert_agrees_with_bash(tmp_path, script)


@pytest.mark.parametrize("script, expected", [
    # the default idiom: the value, as ${TP:=8} is read
    ('[ -z "$TP" ] && TP=8\nvllm serve m -tp $TP', (["-tp", "8"], ())),
    ('[ -n "$TP" ] || TP=8\nvllm serve m -tp $TP', (["-tp", "8"], ())),
    # a command that may or may not run: what it sets is unknown after it
    ("PP=1\n[ -f /etc/big ] && PP=2\nvllm serve m -pp $PP", (["-pp", "$PP"], ("PP",))),
    # decided: only what runs
    ("PP=1\nX=a\n[ $X = a ] && PP=2 || PP=3\nvllm serve m -pp $PP", (["-pp", "2"], ())),
    ("PP=1\nX=b\n[ $X = a ] && PP=2 || PP=3\nvllm serve m -pp $PP", (["-pp", "3"], ())),
    ("X=7; [ \"$X\" -lt 5 ] && vllm serve m --small $X; vllm serve m -tp $X", (["-tp", "7"], ())),
    # a one-line case, the commands after it on its line
    ("X=1; case $X in 1) PP=2;; *) PP=3;; esac; vllm serve m -pp $PP", (["-pp", "2"], ())),
])
def test_lists_run_as_their_statuses_decide(tmp_path, script, expected):
    (launch,) = _launches(tmp_path, script + "\n")
    assert (launch.tokens[3:], launch.unresolved) == expected


@pytest.mark.parametrize("line, name", [
    ("read TP", "TP"), ("read -r -p 'size? ' TP", "TP"), ("read", None), ("read -a TP <<< '4 8'", "TP"),
    ("printf -v TP '%d' 5", "TP"), ("mapfile -t TP < sizes", "TP"), ("readarray TP", "TP"),
    ("getopts t: TP", "TP"), ("(( TP = TP > 2 ? 1 : 0 ))", "TP"), ("let TP=1 PP=2", "TP"),
    ('eval "$CMD"', None), ('eval "TP=$NOPE"', "TP"),
])
def test_a_command_that_sets_a_variable_kvguard_does_not_evaluate_leaves_it_unresolved(tmp_path, line, name):
    (launch,) = _launches(tmp_path, f"TP=2\n{line}\nvllm serve m -tp $TP\n")
    assert launch.unresolved == ((name,) if name else ())


def test_the_script_ends_at_an_exit_or_exec_it_surely_reaches(tmp_path):
    script = ("MODE=prod\nif [ \"$MODE\" = prod ]; then\n  vllm serve m --a 2\nelse\n  exit 3\nfi\n"
              "if [ -f /x ]; then exit 1; fi\nvllm serve m --b 3\nif [ \"$MODE\" = prod ]; then\n"
              "  exec vllm serve m --c 4\nfi\nvllm serve m --d 5\n")
    assert [(launch.line, launch.tokens[-2:]) for launch in _launches(tmp_path, script)] == [
        (3, ["--a", "2"]), (8, ["--b", "3"]), (10, ["--c", "4"])]


def test_an_exit_kvguard_cannot_be_sure_of_does_not_end_the_reading(tmp_path):
    script = "if [ -f /x ]; then\n  exit 1\nfi\n[ -z \"$HOME\" ] && exit 2\nexec >log 2>&1\nvllm serve m --e 1\n"
    assert [launch.tokens[-2:] for launch in _launches(tmp_path, script)] == [["--e", "1"]]


#: what `set -u` acts on: a reference to a name the script unset (`unset W`), a positional parameter past the ones
#: a call gave, an empty array's `$A`, where bash does not leave it to a subshell (a pipeline, `$( … )`, `( … )`) or
#: skip it (after `||`); `set -u` set, cleared, set in a function (it holds) or a subshell (it does not); the
#: expansions that do not trip it (`${W:-v}`, `${W-v}`, `${W+v}`, `"${A[@]}"`, `$@`).  A pipeline and a command
#: substitution are followed by `|| :` (under `set -e` / `-o pipefail` the subshell's failure fails the command,
#: which kvguard does not follow); `W` also set in a way kvguard does not follow (`printf -v`).  `W` is the
#: script's own name (a name it never sets may come from the environment, where kvguard reads on)
_NOUNSET_STATEMENTS = st.sampled_from([
    "set -u", "set -u", "set +u", "set -o nounset", "set -euo pipefail", "set +o nounset", "set -eu", "stu",
    "( set -u )", "unset W", "unset W", 'echo "$W" >/dev/null', '[ -z "$W" ] && W=3',
    "echo $W >&2; vllm serve m --nu", "vllm serve m --nd ${W:-d} ${W-e} ${W+p}", "pa", "echo ${#W} >&2",
    'if [ -z "$W" ]; then W=z; fi', '[ -n "$W" ] || W=4', "case $W in w) : ;; *) : ;; esac", "pu", "pu 3",
    "( unset X; echo $X >&2 ); vllm serve m --sx $X", "echo $W | cat >&2 || :", "true || echo $W",
    "Z=$(echo $W) || :", "vllm serve m --ea $A", 'vllm serve m --aa "${A[@]}"', "echo '$W' >&2",
    "echo ${W%e} >&2", "W=again", "printf -v W %s q"])

#: `pu` reads its first parameter, `pa` all of them, `stu` sets `set -u` for the script
_NOUNSET_FUNCTIONS = "pu() { vllm serve m --pu $1; }\npa() { vllm serve m --pa \"$@\" $# $*; }\nstu() { set -u; }\n"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(statements=st.lists(st.one_of(_NOUNSET_STATEMENTS, _NOUNSET_STATEMENTS, _NOUNSET_STATEMENTS,
                                     _ERREXIT_STATEMENTS,
                                     _STATEMENTS.filter(lambda statement: not statement.startswith("df")
                                                        and "$D" not in statement)),
                           min_size=1, max_size=8),
       joins=st.lists(st.booleans(), min_size=8, max_size=8),
       prelude=st.sampled_from(["", "set -u\n", "set -eu\n", "set -u\nunset W\n", "unset W\n"]))
def test_generated_scripts_under_set_u_agree_with_bash(tmp_path, statements, joins, prelude):
    """The generated scripts with ``set -u`` among their statements: a reference to a name kvguard knows is unset
    ends the script where bash ends it (names the script never sets, which the environment may give, are left out:
    kvguard reads on there, where bash in an empty environment ends)."""
    script = "X=1\nY=none\nA=()\nW=w\n" + _FUNCTIONS + _ERREXIT_FUNCTIONS + _NOUNSET_FUNCTIONS + prelude \
        + _joined(statements, joins) + "\n"
    _assert_agrees_with_bash(tmp_path, script)
