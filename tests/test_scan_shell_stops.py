"""What ends what runs in a shell script — ``exit``, ``exec``, ``return``, ``break``, ``continue`` — wherever it
surely runs (a function's body, a loop's), and the default idiom (``[ -z "$X" ] && X=8``) in each of its forms.  The
expected launches are what bash runs (checked against bash itself below when it is installed)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest

from kvguard.scan import find_launches

BASH = shutil.which("bash")

#: (script, the words of each launch bash runs, after `vllm`)
_STOPS = [
    # an exit in a function that is called, in a loop's run that surely happens
    ('die() { echo "$1"; exit 1; }\ndie oops\nvllm serve m -tp 3\n', []),
    ("for i in 1; do exit 0; done; vllm serve m -tp 3\n", []),
    ("run() {\n  vllm serve m --a $1\n  exit 0\n}\nrun 1\nvllm serve m --b\n", [["serve", "m", "--a", "1"]]),
    ("MODE=x\ncheck() { if [ \"$MODE\" = x ]; then exit 2; fi; }\ncheck\nvllm serve m --b\n", []),
    ("while true; do vllm serve m --w; exit 0; done\nvllm serve m --never\n", [["serve", "m", "--w"]]),
    ("vllm serve m --a; exit 0; vllm serve m --b\n", [["serve", "m", "--a"]]),
    ("{ vllm serve m --a; exit 0; }\nvllm serve m --b\n", [["serve", "m", "--a"]]),
    # an exit that may not run, in a function never called, in a subshell: the reading goes on
    ("q() { exit 1; }\nvllm serve m -tp 2\n", [["serve", "m", "-tp", "2"]]),
    ("( exit 3 ); vllm serve m --after\n", [["serve", "m", "--after"]]),
    ("f() { exit 1; }\nf | cat\nvllm serve m --after\n", [["serve", "m", "--after"]]),
    # a branch that ends in an exit leaves nothing to the code after its block
    ("TP=2\nif [ -f /no/such/file ]; then TP=4; exit 1; fi\nvllm serve m -tp $TP\n", [["serve", "m", "-tp", "2"]]),
    ("TP=2\nif [ -f /no/such/file ]; then\n  exit 1\n  vllm serve m --dead\nfi\nvllm serve m -tp $TP\n",
     [["serve", "m", "-tp", "2"]]),
    # return ends the function, not the script; at an executed script's top bash refuses it and goes on
    ("f() { vllm serve m --a $1; return; vllm serve m --b; }\nf 1\nvllm serve m --c\n",
     [["serve", "m", "--a", "1"], ["serve", "m", "--c"]]),
    ("X=1\nr() { if [ $X -gt 0 ]; then return 3; fi; X=9; }\nr\nvllm serve m -tp $X\n", [["serve", "m", "-tp", "1"]]),
    ("return\nvllm serve m --c\n", [["serve", "m", "--c"]]),
    # break and continue
    ("for i in 1 2 3; do [ $i = 2 ] && break; vllm serve m --br $i; done\n", [["serve", "m", "--br", "1"]]),
    ("for i in 1 2 3; do if [ $i = 2 ]; then continue; fi; vllm serve m --co $i; done\n",
     [["serve", "m", "--co", "1"], ["serve", "m", "--co", "3"]]),
    ("for i in 1 2; do for j in 1 2; do [ $j = 2 ] && continue 2; vllm serve m --c $i$j; done; done\n",
     [["serve", "m", "--c", "11"], ["serve", "m", "--c", "21"]]),
    ("for i in 1 2; do for j in 1 2; do break 2; done; done; vllm serve m --i $i\n", [["serve", "m", "--i", "1"]]),
    ("for i in 1 2; do X=$i; break; done; vllm serve m --x $X\n", [["serve", "m", "--x", "1"]]),
    ("for i in a b; do case $i in a) continue;; esac; vllm serve m --$i; done\n", [["serve", "m", "--b"]]),
    ("N=0; for i in 1 2 3; do case $i in 2) continue;; 3) break;; esac; vllm serve m --c $i; done\n",
     [["serve", "m", "--c", "1"]]),
    # bash refuses break outside a loop's body (in a function a loop calls too) and goes on
    ("b() { break; }\nfor i in 1 2; do b; vllm serve m --i $i; done\n",
     [["serve", "m", "--i", "1"], ["serve", "m", "--i", "2"]]),
]


@pytest.mark.parametrize("script, runs", _STOPS)
def test_what_ends_what_runs(tmp_path, script, runs):
    launches = _launches(tmp_path, script)
    assert [launch.tokens[1:] for launch in launches] == runs
    assert all(not launch.unresolved for launch in launches)


#: the default idiom in its forms: the same fact as `${TP:=8}`, read as kvguard reads that one
_DEFAULTS = [
    '[ -z "$TP" ] && TP=8', '[ -n "$TP" ] || TP=8', 'if [ -z "$TP" ]; then TP=8; fi',
    'if [ -z "${TP:-}" ]; then\n  TP=8\nfi', 'test -z "$TP" && TP=8', "[[ -z $TP ]] && TP=8",
    'if ! [ -n "$TP" ]; then\n  export TP=8\nfi', '[ "$TP" = "" ] && TP=8', ": ${TP:=8}",
    'if [ -n "$TP" ]; then\n  echo "TP=$TP"\nelse\n  TP=8\nfi',
]


@pytest.mark.parametrize("idiom", _DEFAULTS)
def test_the_default_idiom_in_each_form_is_read_as_its_parameter_operator(tmp_path, idiom):
    (launch,) = _launches(tmp_path, idiom + "\nvllm serve m -tp $TP\n")
    assert (launch.tokens[1:], launch.unresolved) == (["serve", "m", "-tp", "8"], ())


@pytest.mark.parametrize("idiom", _DEFAULTS)
def test_a_default_for_a_value_kvguard_cannot_know_leaves_it_unresolved(tmp_path, idiom):
    (launch,) = _launches(tmp_path, "TP=$(nproc)\n" + idiom + "\nvllm serve m -tp $TP\n")
    assert launch.unresolved == ("TP",)


@pytest.mark.parametrize("script", [
    # the guarded code sets more than the name, or the test asks something else: not the idiom
    'if [ -z "$TP" ]; then TP=8; PP=2; fi\nvllm serve m -tp $TP',
    '[ -z "$OTHER" ] && TP=8\nvllm serve m -tp $TP',
    'TP=1\nif [ -z "$TP2" ]; then TP=8; fi\nvllm serve m -tp $TP',
    '[ -n $TP ] || TP=8\nvllm serve m -tp $TP',          # `[ -n ]` holds: bash never sets TP here
])
def test_what_is_not_the_default_idiom_leaves_the_name_unresolved(tmp_path, script):
    (launch,) = _launches(tmp_path, script + "\n")
    assert "TP" in launch.unresolved


def _launches(tmp_path, script: str) -> list:
    path = tmp_path / "serve.sh"
    path.write_text(script)
    return find_launches([str(path)])[0]


def bash_runs(path: str) -> list[list[str]]:
    """The words each ``vllm`` command bash runs for the script at ``path`` is given (``vllm`` a function that
    prints them), the script executed as a file in an environment without the script's names."""
    probe = subprocess.run([BASH or "bash", "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\nexport -f vllm\n"
                            "bash " + shlex.quote(path) + " 2>/dev/null"], capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "")}, cwd=os.path.dirname(path))
    return [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1] if "\0" in line]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("script, runs", _STOPS + [(idiom + "\nvllm serve m -tp $TP\n", [["serve", "m", "-tp", "8"]])
                                                   for idiom in _DEFAULTS])
def test_the_expected_launches_are_the_ones_bash_runs(tmp_path, script, runs):
    path = tmp_path / "serve.sh"
    path.write_text(script)
    assert bash_runs(str(path)) == runs
