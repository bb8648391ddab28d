"""Shell expansion while a script is read (kvguard.scan.variables, kvguard.scan.shell): parameter
operators, arrays, ``+=``, arithmetic and one-line sequences, as bash expands them.

The table's expectations were worked out by hand from the bash manual ("Shell Parameter Expansion",
"Arrays", "Shell Arithmetic"); the property runs bash itself on generated expressions.  A form kvguard
does not expand stays unresolved (the launch is undecidable): never passed to vLLM as written.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvguard.scan import find_launches
from kvguard.scan.variables import Variables

BASH = shutil.which("bash")


def _launches(tmp_path, text: str, name: str = "serve.sh") -> list:
    """The launches kvguard finds in ``text`` written to a script ``name``."""
    path = tmp_path / name
    path.write_text(text)
    return find_launches([str(path)])[0]


def _variables() -> Variables:
    v = Variables({})
    v.assign("TP", "8")
    v.assign("EMPTY", "''")
    v.assign_array("A", "-tp 8 '-dcp' 3")
    return v


@pytest.mark.parametrize("text, expanded, missing", [
    ("${TP:-4}", "8", []), ("${NOPE:-4}", "4", []), ("${EMPTY:-5}", "5", []), ("${EMPTY-5}", "", []),
    ("${TP:+-dcp 2}", "-dcp 2", []), ("${NOPE:+x}", "", []), ("${NOPE:=3}", "3", []),
    ("${#TP}", "1", []), ('"${A[@]}"', "-tp 8 -dcp 3", []), ("${A[@]}", "-tp 8 -dcp 3", []),
    ("${A[2]}", "-dcp", []), ("${A[9]}", "", []), ("${#A[@]}", "4", []), ("$A", "-tp", []),
    ('"${A[*]}"', "'-tp 8 -dcp 3'", []),
    ("$((TP*2))", "16", []), ("$(($TP/3))", "2", []), ("$((-7/2))", "-3", []), ("$((-7%3))", "-1", []),
    ("$(( (TP+1) % 3 ))", "0", []),
    # not expanded: unresolved, never guessed
    ("${TP%%0}", "${TP%%0}", ["${TP%%0}"]), ("${NOPE:?unset}", "${NOPE:?unset}", ["NOPE"]),
    ("$((N*2))", "$((N*2))", ["$((N*2))"]), ("$((2**3))", "$((2**3))", ["$((2**3))"]),
    ("$((1/0))", "$((1/0))", ["$((1/0))"]), ("$(nproc)", "$(nproc)", ["nproc"]), ("$(nproc --all)", "$(nproc --all)", ["$(nproc --all)"]),
    ("${NOPE[@]}", "${NOPE[@]}", ["NOPE"]),
    # an expansion inside another's word, ended at the brace that balances it
    ("${NOPE:-${TP:-4}}", "8", []), ("${NOPE:-${NONE:-4}}", "4", []), ("${TP:-${NOPE}}", "8", []),
    ("-tp ${NOPE:-${NONE:-${TP}}} -pp ${PP:-${NONE:-1}}", "-tp 8 -pp 1", []),
    ("${NOPE:-${NONE}}", "${NONE}", ["NONE"]),
    ("${NOPE:-${NONE:-4}", "${NOPE:-${NONE:-4}", ["${NOPE:-${NONE:-4}"]),
])
def test_expansion(text, expanded, missing):
    assert _variables().expand(text) == (expanded, missing)


@pytest.mark.parametrize("text, expanded, missing", [
    # what quotes and escapes keep from expanding stays as written, for vLLM to be given
    ("-tp '$TP'", "-tp '$TP'", []), ("-tp \\$TP", "-tp $TP", []), ('-tp "\\$TP"', '-tp "$TP"', []),
    ("-tp \"'$TP'\"", "-tp \"'8'\"", []), ("-tp $'4'", "-tp '4'", []), ("-tp $[TP/2]", "-tp 4", []),
    # brace expansion makes several words: unresolved, never one word
    ("-tp {2,4}", "-tp {2,4}", ["{2,4}"]), ("-tp {1..8}", "-tp {1..8}", ["{1..8}"]),
    ("-tp '{2,4}' --name a{b}c", "-tp '{2,4}' --name a{b}c", []),
])
def test_shell_quoting(text, expanded, missing):
    assert _variables().expand(text, quoting=True) == (expanded, missing)


@pytest.mark.parametrize("script, argv, unresolved", [
    ("ARGS=(-tp 8 -dcp 3)\nvllm serve m \"${ARGS[@]}\"", ["vllm", "serve", "m", "-tp", "8", "-dcp", "3"], ()),
    ("A=(\n  -tp 8   # tensor\n  --decode-context-parallel-size 2\n)\nvllm serve m ${A[@]}",
     ["vllm", "serve", "m", "-tp", "8", "--decode-context-parallel-size", "2"], ()),
    ("A=(-tp 8)\nA+=(-dcp 2)\nvllm serve m \"${A[@]}\"", ["vllm", "serve", "m", "-tp", "8", "-dcp", "2"], ()),
    ("ARGS='-tp 8'\nARGS+=' -dcp 2'\nvllm serve m $ARGS", ["vllm", "serve", "m", "-tp", "8", "-dcp", "2"], ()),
    ("TP=4; vllm serve m -tp $TP", ["vllm", "serve", "m", "-tp", "4"], ()),
    ("export TP=4 && vllm serve m -tp $TP", ["vllm", "serve", "m", "-tp", "4"], ()),
    ("G=8; TP=$((G/2)); vllm serve m -tp $TP -dp $((G/TP))", ["vllm", "serve", "m", "-tp", "4", "-dp", "2"], ()),
    ("vllm serve m -tp ${TP:=2} -pp ${PP:-1}", ["vllm", "serve", "m", "-tp", "2", "-pp", "1"], ()),
    ("TP=4\nvllm serve m -tp '$TP'", ["vllm", "serve", "m", "-tp", "$TP"], ()),
    ("TP=4\nX='$TP'\nvllm serve m -tp $X", ["vllm", "serve", "m", "-tp", "$TP"], ()),
    ("vllm serve m -tp {2,4}", ["vllm", "serve", "m", "-tp", "{2,4}"], ("{2,4}",)),
    # a value's quotes are characters, not quoting, and unquoted it is split at blanks only
    ("SPEC='{\"method\":\"mtp\"}'\nvllm serve m --speculative-config $SPEC",
     ["vllm", "serve", "m", "--speculative-config", '{"method":"mtp"}'], ()),
    ("SPEC='{\"method\": \"mtp\"}'\nvllm serve m --speculative-config \"$SPEC\"",
     ["vllm", "serve", "m", "--speculative-config", '{"method": "mtp"}'], ()),
    ("SPEC='{\"method\": \"mtp\"}'\nvllm serve m --speculative-config $SPEC",
     ["vllm", "serve", "m", "--speculative-config", '{"method":', '"mtp"}'], ()),
    ("EXTRA=\"--served-model-name 'my model'\"\nvllm serve m $EXTRA",
     ["vllm", "serve", "m", "--served-model-name", "'my", "model'"], ()),
    ("vllm serve m -tp 2 --max-model-len ${LEN:-${MAX_LEN:-4096}}",
     ["vllm", "serve", "m", "-tp", "2", "--max-model-len", "4096"], ()),
    (': "${TP:=2}"\nvllm serve m -tp $TP', ["vllm", "serve", "m", "-tp", "2"], ()),
    ("TP=4\n[ -z \"$TP\" ] && TP=8\nvllm serve m -tp $TP", ["vllm", "serve", "m", "-tp", "4"], ()),
    ("A=(-dcp \"$(nproc)\")\nvllm serve m \"${A[@]}\"", ["vllm", "serve", "m", "${A[@]}"], ("A",)),
    ("vllm serve m -tp ${TP%%x}", ["vllm", "serve", "m", "-tp", "${TP%%x}"], ("${TP%%x}",)),
    # the script's arguments are the caller's: unresolved (a default in the file is taken, as for a name)
    ("vllm serve m -tp $2", ["vllm", "serve", "m", "-tp", "$2"], ("$2",)),
    ("vllm serve m -tp 8 \"$@\"", ["vllm", "serve", "m", "-tp", "8", "$@"], ("$@",)),
    ("MODEL=$1\nvllm serve $MODEL -tp ${2:-4}", ["vllm", "serve", "$MODEL", "-tp", "4"], ("MODEL",)),
])
def test_scripts(tmp_path, script, argv, unresolved):
    launches = _launches(tmp_path, "#!/bin/bash\n" + script + "\n")
    assert [(launch.tokens, launch.unresolved) for launch in launches] == [(argv, unresolved)]


@pytest.mark.parametrize("script, argv", [
    # a comment line ends a continued command: the flags below it are another command, not vLLM's
    ("vllm serve m \\\n  -tp 3 \\\n  # --enforce-eager \\\n  -tp 2", ["vllm", "serve", "m", "-tp", "3"]),
    ("vllm serve m --served-model-name a#b -tp 2 # -tp 3", ["vllm", "serve", "m", "--served-model-name", "a#b",
                                                            "-tp", "2"]),
    ("vllm serve m -tp 2;# -tp 3", ["vllm", "serve", "m", "-tp", "2"]),
    ("vllm serve m --name '# not a comment' -tp 2", ["vllm", "serve", "m", "--name", "# not a comment", "-tp", "2"]),
    # `\ ` escapes the blank: the line is not continued
    ("vllm serve m -tp 2 \\  \n  -tp 3", ["vllm", "serve", "m", "-tp", "2", " "]),
])
def test_comments_and_continuations(tmp_path, script, argv):
    launches = _launches(tmp_path, script + "\n")
    assert [launch.tokens for launch in launches] == [argv]


def test_a_dockerfile_drops_comment_lines_inside_a_continued_instruction(tmp_path):
    path = tmp_path / "Dockerfile"
    path.write_text("FROM vllm/vllm-openai:v0.11.1\nCMD [\"Qwen/Qwen3-8B\", \\\n# \"-tp\", \"3\",\\\n"
                    "     \"-tp\", \"2\"]\n")
    launches, _, _ = find_launches([str(path)])
    assert [launch.tokens[-3:] for launch in launches] == [["Qwen/Qwen3-8B", "-tp", "2"]]


_FLOW_SCRIPTS = [
    # a function is read at each call, its words as $1 …; `local` stays in the call
    ("serve() {\n  local model=$1\n  local tp=${2:-1}\n  vllm serve \"$model\" -tp \"$tp\"\n}\n"
     "serve Qwen/Qwen3-8B 3\nserve Qwen/Qwen3-8B\ntp=5\nvllm serve m -tp $tp",
     [(4, "call $1=Qwen/Qwen3-8B, $2=3", ["serve", "Qwen/Qwen3-8B", "-tp", "3"]),
      (4, "call $1=Qwen/Qwen3-8B", ["serve", "Qwen/Qwen3-8B", "-tp", "1"]),
      (9, None, ["serve", "m", "-tp", "5"])]),
    # a loop is read once per word; after it the name holds the last one
    ("for tp in 2 4 6; do\n  vllm serve m -tp $tp\ndone\nvllm serve m -pp $tp",
     [(2, "loop tp=2", ["serve", "m", "-tp", "2"]), (2, "loop tp=4", ["serve", "m", "-tp", "4"]),
      (2, "loop tp=6", ["serve", "m", "-tp", "6"]), (4, None, ["serve", "m", "-pp", "6"])]),
    ("SIZES=\"1 2\"\nfor tp in $SIZES\ndo\n  for pp in 1 2; do vllm serve m -tp $tp -pp $pp; done\ndone",
     [(4, "loop tp=1, pp=1", ["serve", "m", "-tp", "1", "-pp", "1"]),
      (4, "loop tp=1, pp=2", ["serve", "m", "-tp", "1", "-pp", "2"]),
      (4, "loop tp=2, pp=1", ["serve", "m", "-tp", "2", "-pp", "1"]),
      (4, "loop tp=2, pp=2", ["serve", "m", "-tp", "2", "-pp", "2"])]),
    ("function start { vllm serve \"$@\" --port 8000; }\nstart m -tp 2 && start m --served-model-name 'a b'",
     [(1, "call $1=m, $2=-tp, $3=2", ["serve", "m", "-tp", "2", "--port", "8000"]),
      (1, "call $1=m, $2=--served-model-name, $3=a b",
       ["serve", "m", "--served-model-name", "a b", "--port", "8000"])]),
    ("set -- m -tp 4\nshift\nvllm serve x \"$@\"", [(3, None, ["serve", "x", "-tp", "4"])]),
    ("for i in {0..1}; do vllm serve m --port $((8000 + i)); done\nfor i in {4..0..3}; do vllm serve m -tp $i; done",
     [(1, "loop i=0", ["serve", "m", "--port", "8000"]), (1, "loop i=1", ["serve", "m", "--port", "8001"]),
      (2, "loop i=4", ["serve", "m", "-tp", "4"]), (2, "loop i=1", ["serve", "m", "-tp", "1"])]),
    # what a called function sets holds after the call, its `local` names and parameters excepted
    ("TP=2\nPP=1\nsetup() {\n  TP=3\n  local PP=4\n  export DCP=2\n  declare EP=5\n}\nsetup\n"
     "vllm serve m -tp $TP -pp $PP -dcp $DCP\nfunction tune { local X; X=9; TP=$1; }\nX=1\ntune 6\n"
     "vllm serve m -tp $TP --x $X",
     [(10, None, ["serve", "m", "-tp", "3", "-pp", "1", "-dcp", "2"]), (14, None, ["serve", "m", "-tp", "6", "--x", "1"])]),
    # compound commands after other commands on one line are read as their own lines
    ("TP=8; for tp in 2 4; do vllm serve m -tp $tp; done; vllm serve m -tp $TP",
     [(1, "loop tp=2", ["serve", "m", "-tp", "2"]), (1, "loop tp=4", ["serve", "m", "-tp", "4"]),
      (1, None, ["serve", "m", "-tp", "8"])]),
    ("TP=8; if [ $TP -gt 4 ]; then PP=2; else PP=1; fi; vllm serve m -tp $TP -pp $PP\n"
     "GPU=A100; if [ \"$GPU\" = H100 ]; then TP=2; fi; vllm serve m -tp $TP",
     [(1, None, ["serve", "m", "-tp", "8", "-pp", "2"]), (2, None, ["serve", "m", "-tp", "8"])]),
    # a subshell's assignments stay in it; a group's hold after it
    ("X=1\n( X=5; vllm serve m --a $X )\nvllm serve m --b $X\n{ X=6; vllm serve m --c $X; }\nvllm serve m --d $X\n"
     "(\n  X=7\n  vllm serve m --e $X\n); vllm serve m --f $X\n(cd /tmp && vllm serve m --g $X) 2> /dev/null",
     [(2, None, ["serve", "m", "--a", "5"]), (3, None, ["serve", "m", "--b", "1"]),
      (4, None, ["serve", "m", "--c", "6"]), (5, None, ["serve", "m", "--d", "6"]),
      (8, None, ["serve", "m", "--e", "7"]), (9, None, ["serve", "m", "--f", "6"]),
      (10, None, ["serve", "m", "--g", "6"])]),
    # each run of a loop starts where the one before ended; what the body set holds after the loop
    ("ARGS=-x\nfor tp in 2 4; do\n  ARGS=\"$ARGS -tp$tp\"\n  vllm serve m $ARGS\ndone\nvllm serve m $ARGS --last $tp",
     [(4, "loop tp=2", ["serve", "m", "-x", "-tp2"]), (4, "loop tp=4", ["serve", "m", "-x", "-tp2", "-tp4"]),
      (6, None, ["serve", "m", "-x", "-tp2", "-tp4", "--last", "4"])]),
]


@pytest.mark.parametrize("script, expected", _FLOW_SCRIPTS)
def test_functions_and_loops(tmp_path, script, expected):
    launches = _launches(tmp_path, script + "\n")
    assert [(launch.line, launch.label, launch.tokens[1:]) for launch in launches] == expected


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, expected", _FLOW_SCRIPTS)
def test_functions_and_loops_as_bash_runs_them(tmp_path, script, expected):
    """The same scripts run by bash, ``vllm`` a function that prints its words: the same launches."""
    path = tmp_path / "serve.sh"
    path.write_text(script + "\n")
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\n. " +
                            shlex.quote(str(path))], capture_output=True, text=True)
    runs = [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]
    assert sorted(runs) == sorted(argv for _, _, argv in expected)


def test_each_branch_starts_from_the_variables_before_it_and_what_one_sets_is_unknown_after():
    """``if`` / ``elif`` / ``else`` and ``case`` arms: kvguard does not evaluate the conditions, so each branch is
    read from the same variables and a name any branch sets is unresolved after the block."""
    path = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "branches.sh")
    launches, _, _ = find_launches([path])
    assert [(launch.line, launch.tokens[3:], launch.unresolved) for launch in launches] == [
        (4, ["-tp", "8"], ()), (6, ["-tp", "4"], ()), (8, ["-tp", "2"], ()), (10, ["-tp", "$TP"], ("TP",)),
        (13, ["-pp", "8"], ()), (14, ["-pp", "1"], ()), (19, ["-pp", "$PP"], ("PP",)), (20, ["-dp", "2"], ())]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_each_branch_s_launch_is_one_bash_runs_for_some_condition():
    path = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "branches.sh")
    runs = set()
    for gpu in ("H100", "A100", "L4"):
        for size in ("big", "small", "tiny"):
            probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\n. " +
                                    shlex.quote(path)], capture_output=True, text=True,
                                   env={"GPU": gpu, "SIZE": size, "PATH": os.environ.get("PATH", "")})
            runs |= {tuple(line.split("\0")[:-1]) for line in probe.stdout.split("\n")[:-1]}
    launches, _, _ = find_launches([path])
    decided = {tuple(launch.tokens[1:]) for launch in launches if not launch.unresolved}
    assert decided <= runs


def test_a_function_never_called_is_read_with_its_parameters_unresolved(tmp_path):
    launches = _launches(tmp_path, "serve() {\n  vllm serve m -tp ${1:-2}\n}\n")
    assert [(launch.tokens, launch.unresolved) for launch in launches] == [
        (["vllm", "serve", "m", "-tp", "${1:-2}"], ("1",))]


@pytest.mark.parametrize("script, expected", [
    # a call after an assignment on the same line sees it
    ("serve() { vllm serve m -tp \"$1\"; }\nX=1; serve $X", [(["vllm", "serve", "m", "-tp", "1"], ())]),
    # a call's word kvguard cannot know is an unresolved parameter, "$@" too
    ("serve() { vllm serve m -tp \"$1\"; }\nserve $(nproc)", [(["vllm", "serve", "m", "-tp", "$1"], ("$1",))]),
    ("serve() { vllm serve m \"$@\"; }\nserve -tp $TP", [(["vllm", "serve", "m", "$@"], ("$@",))]),
    # a line that looks like a header but opens no block is read as it is, and so are the lines below it
    ("function broken\nvllm serve m -tp 3\nvllm serve m -tp 5",
     [(["vllm", "serve", "m", "-tp", "3"], ()), (["vllm", "serve", "m", "-tp", "5"], ())]),
])
def test_calls_and_headers(tmp_path, script, expected):
    launches = _launches(tmp_path, script + "\n")
    assert [(launch.tokens, launch.unresolved) for launch in launches] == expected


_CHILD_SHELL_SCRIPT = ("TP=3\nbash -c 'vllm serve m -tp $TP'\nexport PP=2\nbash -c 'vllm serve m -pp $PP'\n"
                       "DP=2 bash -c 'vllm serve m -dp $DP'\nbash -c \"vllm serve m -tp $TP\"\n")


def test_a_child_shell_sees_the_exported_variables_only(tmp_path):
    launches = _launches(tmp_path, _CHILD_SHELL_SCRIPT + "ssh host 'vllm serve m -pp $PP'\n")
    assert [(launch.tokens[3:], launch.unresolved) for launch in launches] == [
        (["-tp", "$TP"], ("TP",)),          # not exported: the child shell does not have it
        (["-pp", "2"], ()), (["-dp", "2"], ()),
        (["-tp", "3"], ()),                 # in double quotes: expanded by the script's own shell
        (["-pp", "$PP"], ("PP",))]          # ssh: the other machine's environment


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_child_shell_launches_kvguard_decides_are_the_ones_bash_runs(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(_CHILD_SHELL_SCRIPT)
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n. " +
                            shlex.quote(str(path))], capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    runs = [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]
    launches, _, _ = find_launches([str(path)])
    decided = [launch.tokens[1:] for launch in launches if not launch.unresolved]
    assert decided == [argv for argv in runs if argv != ["serve", "m", "-tp"]]


def test_here_documents_are_read_as_what_their_command_does_with_them():
    """An unquoted body is expanded by the script's shell first (``\\$PP`` is left for the shell that runs it);
    a quoted one is taken as written, for a new process that has the exported variables only (``$TP`` is not
    exported); ``ssh`` runs it elsewhere; ``python -`` runs it as Python; a here-string (``<<<``) is no body."""
    path = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "heredocs.sh")
    launches, _, _ = find_launches([path])
    assert [(launch.line, launch.tokens[3:], launch.unresolved) for launch in launches] == [
        (4, ["-tp", "3", "-pp", "2"], ()),
        (7, ["-tp", "$TP", "-pp", "2"], ("TP",)),
        (10, ["-pp", "$PP"], ("PP",)),
        (14, ["-tp", "3"], ()),
        (17, ["--served-model-name", "3"], ()),
        (19, ["-dp", "2"], ()),
    ]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_here_document_launches_bash_runs_here_are_the_ones_kvguard_reads(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("TP=3\nexport PP=2\nbash <<EOF\nvllm serve m -tp $TP -pp \\$PP\nEOF\n"
                    "bash <<'EOF'\nvllm serve m -tp $TP -pp $PP\nEOF\n")
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n. " +
                            shlex.quote(str(path))], capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    runs = [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]
    launches, _, _ = find_launches([str(path)])
    assert runs[0] == launches[0].tokens[1:] == ["serve", "m", "-tp", "3", "-pp", "2"]
    assert runs[1] == ["serve", "m", "-tp", "-pp", "2"] and launches[1].unresolved == ("TP",)


def test_a_manifest_applied_from_a_here_document_is_read_as_yaml(tmp_path):
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: a\n"
                "    image: vllm/vllm-openai:v0.12.0\n    args: [\"Qwen/Qwen3-8B\", \"-tp\", \"$TP\", \"-pp\", \"$PP\"]\n")
    launches = _launches(tmp_path, "TP=3\nkubectl apply -f - <<EOF\n" + manifest + "EOF\n", name="deploy.sh")
    assert [(launch.line, launch.tokens, launch.unresolved) for launch in launches] == [
        (10, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3", "-pp", "$PP"], ("PP",))]


def test_a_variable_a_branch_exports_may_be_in_the_environment_after_the_block(tmp_path):
    """Exported in one branch only: after ``fi`` it may or may not reach vLLM, so a check that reads it cannot
    be decided (before, the export was dropped and the launch checked without it)."""
    launches = _launches(tmp_path, 'if [ "$LONG" ]; then\n  export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\nfi\n'
                                   'vllm serve m -tp 2\n')
    assert [(launch.tokens, launch.unresolved) for launch in launches] == [
        (["VLLM_ALLOW_LONG_MAX_MODEL_LEN=$VLLM_ALLOW_LONG_MAX_MODEL_LEN", "vllm", "serve", "m", "-tp", "2"],
         ("VLLM_ALLOW_LONG_MAX_MODEL_LEN",))]


def test_a_here_document_in_a_function_is_read_at_each_call_and_the_next_one_keeps_its_own_body(tmp_path):
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: a\n"
                "    image: vllm/vllm-openai:v0.12.0\n    args: [\"Qwen/Qwen3-8B\", \"-tp\", \"$TP\"]\n")
    launches = _launches(tmp_path, "f() {\n  bash <<EOF\nvllm serve a -tp $1\nEOF\n}\nf 2\nf 3\nTP=3\n"
                                   "kubectl apply -f - <<EOF\n" + manifest + "EOF\n", name="deploy.sh")
    assert [(launch.line, launch.label, launch.tokens[2:]) for launch in launches] == [
        (3, "call $1=2", ["a", "-tp", "2"]), (3, "call $1=3", ["a", "-tp", "3"]),
        (17, None, ["Qwen/Qwen3-8B", "-tp", "3"])]


def test_a_loop_over_words_kvguard_cannot_know_leaves_its_name_unresolved(tmp_path):
    launches = _launches(tmp_path, "for tp in $(seq 1 4); do\n  vllm serve m -tp $tp\ndone\n")
    assert [(launch.tokens, launch.unresolved) for launch in launches] == [
        (["vllm", "serve", "m", "-tp", "$tp"], ("tp",))]


_PIECES = st.sampled_from(["-tp 2", "--name a#b", "# -tp 3", "-pp 1 # x", "'a b'", '"c#d"', "--x=#", "e\\#f",
                           "'# q'", "-dcp 4", "';'", "\\&", '"|"', "x\\;y"])
_ENDS = st.sampled_from(["\\", "\\ ", "", " \\", " \\  ", "\t"])


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(_PIECES, _ENDS), min_size=1, max_size=5), first_end=_ENDS)
def test_continuations_and_comments_agree_with_bash(tmp_path, lines, first_end):
    """The words bash gives ``vllm`` for generated continued lines with comments and trailing blanks."""
    script = "vllm serve m" + first_end + "\n" + "".join(f"  {piece}{end}\n" for piece, end in lines)
    path = tmp_path / "serve.sh"
    path.write_text(script)
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; }\n. " + shlex.quote(str(path))],
                           capture_output=True, text=True)
    launches, _, _ = find_launches([str(path)])
    assert launches, script
    assert launches[0].tokens[1:] == probe.stdout.split("\0")[:-1], script


# ---- bash itself, on generated expansions
_VALUES = st.one_of(st.none(), st.sampled_from(["", "4", "8", "-tp 8", "0", "12", '{"method":"mtp"}',
                                                 '{"a": 1, "b": "c d"}', "--name 'my model'", "a\\b", "x;y",
                                                 "a#b", "a&&b", "(8)", "$HOME", "*"]))
_FORMS = st.sampled_from(["${X}", '"$X"', "$X", "-x=$X", '"-x $X"', "${X:-7}", "${X-7}", "${X:+y}", "${X+y}", "${X:=5}", "${#X}", "$((X*2))",
                          "$((X/3))", "$((X%5))", "$(( (X+1) * 2 ))", '"${A[@]}"', "${A[1]}", "${#A[@]}",
                          "${NOPE:-${X:-7}}", "${X:-${NOPE:-6}}", "${X:+a${X}b}", "${NOPE-${X+y}}",
                          "${NOPE:-${NONE:-${X:-3}}}", "${X:=${NOPE:-5}}",
                          "'$X'", "\\$X", '"\\$X"', "\"a'$X'b\"", "'a\"$X\"b'", "$'8'", "$'$X'", "$[X*2]",
                          "'${X:-7}'", "\"${X:-'7'}\""])


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(x=_VALUES, elements=st.lists(st.sampled_from(["-tp", "8", "-dcp", "2"]), min_size=1, max_size=4),
       form=_FORMS)
def test_expansion_agrees_with_bash(x, elements, form):
    v = Variables({})
    setup = ""
    if x is not None:
        v.assign("X", shlex.quote(x))
        setup += f"X={shlex.quote(x)}\n"
    v.assign_array("A", " ".join(elements))
    setup += "A=(" + " ".join(elements) + ")\n"
    expanded, missing = v.expand(form, quoting=True)
    if missing:
        return          # kvguard leaves it unresolved (a non-integer in arithmetic, an unset name)
    probe = subprocess.run([BASH, "-c", "set -f\n" + setup + f"printf '%s\\n' {form}"], capture_output=True,
                           text=True, cwd=os.path.dirname(__file__))
    assert probe.returncode == 0, probe.stderr
    assert shlex.split(expanded) == probe.stdout.splitlines() or \
        (expanded == "" and probe.stdout in ("\n", "")), (form, x, expanded, probe.stdout)


def test_a_line_of_thousands_of_expansions_is_unresolved_and_quick(tmp_path):
    import time

    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nvllm serve m " + "$(( " * 30000 + "\n")
    started = time.perf_counter()
    launches, _, _ = find_launches([str(path)])
    assert time.perf_counter() - started < 5
    assert [launch.unresolved for launch in launches] == [("$",)]


@pytest.mark.parametrize("line, tokens", [
    # the vllm CLI as a module
    ("python -m vllm.entrypoints.cli.main serve m -tp 2", ["python", "-m", "vllm.entrypoints.cli.main", "serve", "m",
                                                          "-tp", "2"]),
    # another program's NAME=value argument is not the launch's environment
    ("uvx --from vllm==0.28.0 vllm serve m -tp 2", ["vllm", "serve", "m", "-tp", "2"]),
    # the command line's own leading assignments are the environment vllm runs in
    ("CUDA_VISIBLE_DEVICES=0,1 numactl --cpunodebind=0 vllm serve m -tp 4",
     ["CUDA_VISIBLE_DEVICES=0,1", "vllm", "serve", "m", "-tp", "4"]),
    ("CUDA_VISIBLE_DEVICES=0 docker exec c vllm serve m -tp 4", ["vllm", "serve", "m", "-tp", "4"]),
])
def test_launchers_and_their_environment(tmp_path, line, tokens):
    launches = _launches(tmp_path, "#!/bin/bash\n" + line + "\n")
    assert [launch.tokens for launch in launches] == [tokens]


@pytest.mark.parametrize("line, tokens", [
    ("sudo -E VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m", ["VLLM_USE_V2_MODEL_RUNNER=1", "vllm", "serve", "m"]),
    ("env -u X VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m", ["VLLM_USE_V2_MODEL_RUNNER=1", "vllm", "serve", "m"]),
    ("CUDA_VISIBLE_DEVICES=0 sudo -E vllm serve m", ["CUDA_VISIBLE_DEVICES=0", "vllm", "serve", "m"]),
])
def test_wrappers_pass_their_assignments_on(tmp_path, line, tokens):
    launches = _launches(tmp_path, "#!/bin/bash\n" + line + "\n")
    assert [launch.tokens for launch in launches] == [tokens]


@pytest.mark.parametrize("guide, lines", [("tabs-mkdocs.md", (7, 13, 19)), ("tabs-docusaurus.md", (8, 15, 22))])
def test_a_guide_s_tabs_are_alternatives(guide, lines):
    # a variable a tab exports reaches that tab's launch only: not the next tab's, not the launch after the group
    path = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "guides", guide)
    launches, _, _ = find_launches([path])
    assert [(launch.line, launch.tokens[0]) for launch in launches] == [
        (lines[0], "VLLM_USE_V2_MODEL_RUNNER=1"), (lines[1], "vllm"), (lines[2], "vllm")]


@pytest.mark.parametrize("line, release, source", [
    ("uvx vllm@0.20.0 serve Qwen/Qwen3-32B -tp 8", "0.20.0", "vllm@0.20.0"),
    ("uvx --from vllm==0.28.0 vllm serve Qwen/Qwen3-32B -tp 8", "0.28.0", "--from vllm==0.28.0"),
    ("uv run --with 'vllm==0.26.0' vllm serve Qwen/Qwen3-32B -tp 8", "0.26.0", "--with vllm==0.26.0"),
    ("pipx run --spec=vllm==0.28.0 vllm serve Qwen/Qwen3-32B -tp 8", "0.28.0", "--spec vllm==0.28.0"),
])
def test_tool_runners_pin_the_release_they_run(tmp_path, line, release, source):
    launches = _launches(tmp_path, "#!/bin/bash\npip install vllm==0.10.2\n" + line + "\n")
    assert [(launch.tokens[:2], launch.pin.version, launch.pin.source) for launch in launches] == [
        (["vllm", "serve"], release, source)]


@pytest.mark.parametrize("script", [
    "TP=2\nf() { TP=3; }\nf | tee log\nvllm serve m -tp $TP",             # a subshell in bash: not run here
    "TP=2\nf() { TP=3; }\n[ -f x ] && f\nvllm serve m -tp $TP",            # run or not, as the list goes
    "TP=2\nfor x in $(seq 2); do TP=4; done\nvllm serve m -tp $TP",       # a loop run an unknown number of times
])
def test_what_code_that_may_not_run_here_sets_is_unresolved_after_it(tmp_path, script):
    (launch,) = _launches(tmp_path, script + "\n")
    assert launch.unresolved == ("TP",)


@pytest.mark.parametrize("script, expected", [
    # bash runs `-tp 3`: the body ran three times, which kvguard does not count
    ("i=0\nwhile [ $i -lt 3 ]; do\n  i=$((i+1))\ndone\nvllm serve m -tp $i", [(["-tp", "$i"], ("i",))]),
    # bash runs `-pp 2` then `-pp 1`: each run sees what the one before set
    ("n=4\nuntil [ $n -le 1 ]; do n=$((n/2)); vllm serve m -pp $n; done", [(["-pp", "$n"], ("n",))]),
    ("while read -r tp pp; do\n  vllm serve m -tp $tp -pp $pp -dcp 2\ndone < sizes.txt",
     [(["-tp", "$tp", "-pp", "$pp", "-dcp", "2"], ("tp", "pp"))]),
    ("TP=2\nwhile IFS= read -r TP; do vllm serve m -tp $TP; done < sizes.txt", [(["-tp", "$TP"], ("TP",))]),
    # what the body does not change is known: a restart loop's launch is read
    ("TP=3\nwhile true; do\n  vllm serve m -tp $TP -dcp 2\n  sleep 5\ndone", [(["-tp", "3", "-dcp", "2"], ())]),
    ("for ((i=0; i<2; i++)); do vllm serve m -tp 2 --port $((8000+i)); done",
     [(["-tp", "2", "--port", "$((8000+i))"], ("$((8000+i))",))]),
])
def test_a_loop_on_a_condition_is_read_once_with_what_it_sets_unresolved(tmp_path, script, expected):
    launches = _launches(tmp_path, script + "\n")
    assert [(launch.tokens[3:], launch.unresolved) for launch in launches] == expected
