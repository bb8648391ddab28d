"""Python launcher scripts read as Python runs them (kvguard.scan.python): the wrong readings the differential
against Python (tests/test_scan_python_differential.py) found, each with its launches written by hand.

Each case lists the launches kvguard reports as ``(line, words after "vllm serve", unresolved?)``.
"""

from __future__ import annotations

import textwrap

import pytest

from kvguard.scan import find_launches


def _read(tmp_path, script: str) -> list[tuple[int, list[str], bool]]:
    path = tmp_path / "launcher.py"
    path.write_text("import os\nimport subprocess\n" + textwrap.dedent(script))
    return [(launch.line, launch.tokens[2:], bool(launch.unresolved)) for launch in find_launches([str(path)])[0]]


@pytest.mark.parametrize("script, expected", [
    # numbers add; they were joined as text ("80000", "80001")
    ("for i in range(2):\n    subprocess.run(['vllm', 'serve', 'm', '--port', str(8000 + i)])\n",
     [(4, ["m", "--port", "8000"], False), (4, ["m", "--port", "8001"], False)]),
    ("BASE = 8000\nsubprocess.run(['vllm', 'serve', 'm', '--port', str(BASE + 2 * 3)])\n",
     [(4, ["m", "--port", "8006"], False)]),
    # a string doubled by + is joined
    ("TP = '2'\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP + TP)])\n", [(4, ["m", "-tp", "22"], False)]),
    # a function's number parameter adds too
    ("def serve(port):\n    subprocess.run(['vllm', 'serve', 'm', '--port', str(port + 1)])\nserve(8000)\n",
     [(4, ["m", "--port", "8001"], False)]),
    # a number and text, or a value of unknown type: unresolved (it was joined)
    ("import sys\nsubprocess.run(['vllm', 'serve', 'm', '--port', str(len(sys.argv) + 1)])\n",
     [(4, ["m", "--port", "${len_sys_argv_1}"], True)]),
])
def test_numbers_add_as_python_adds_them(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # only the branch Python takes (both were read)
    ("MODE = 'tp'\nif MODE == 'tp':\n    subprocess.run(['vllm', 'serve', 'a'])\n"
     "else:\n    subprocess.run(['vllm', 'serve', 'b'])\n", [(5, ["a"], False)]),
    ("GPU = 'L4'\nif GPU in ('H100', 'A100'):\n    subprocess.run(['vllm', 'serve', 'a'])\n"
     "elif GPU == 'L4' and not False:\n    subprocess.run(['vllm', 'serve', 'b'])\n"
     "else:\n    subprocess.run(['vllm', 'serve', 'c'])\n", [(7, ["b"], False)]),
    # per call of a function, and per loop value
    ("def serve(model, eager=False):\n    if eager:\n        subprocess.run(['vllm', 'serve', model, '--enforce-eager'])\n"
     "serve('a')\nserve('b', eager=True)\n", [(5, ["b", "--enforce-eager"], False)]),
    ("for tp in [1, 2, 4]:\n    if tp > 1:\n        subprocess.run(['vllm', 'serve', 'm', '-tp', str(tp)])\n",
     [(5, ["m", "-tp", "2"], False), (5, ["m", "-tp", "4"], False)]),
    # a test kvguard does not decide: every branch read, as before
    ("import sys\nif len(sys.argv) > 1:\n    subprocess.run(['vllm', 'serve', 'a'])\n"
     "else:\n    subprocess.run(['vllm', 'serve', 'b'])\n", [(5, ["a"], False), (7, ["b"], False)]),
    # a comparison Python refuses (str > int): not decided
    ("TP = '2'\nif TP > 1:\n    subprocess.run(['vllm', 'serve', 'a'])\n", [(5, ["a"], False)]),
])
def test_only_the_branch_python_takes_launches(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a continue that runs skips the launch for that value (it was read for every value)
    ("for tp in [1, 2, 4]:\n    if tp == 2:\n        continue\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(tp)])\n",
     [(6, ["m", "-tp", "1"], False), (6, ["m", "-tp", "4"], False)]),
    # a break ends the loop: the values after it are never launched
    ("for tp in [1, 2, 4]:\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(tp)])\n    if tp >= 2:\n        break\n",
     [(4, ["m", "-tp", "1"], False), (4, ["m", "-tp", "2"], False)]),
    # a return before the launch in a function
    ("def serve(model):\n    if model == 'skip':\n        return\n    subprocess.run(['vllm', 'serve', model])\n"
     "serve('skip')\nserve('a')\n", [(6, ["a"], False)]),
])
def test_a_jump_that_runs_skips_what_follows(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a write in a branch not taken is not made (it was, by its line)
    ("GPU = 'H100'\nif GPU != 'H100':\n    os.environ['PP'] = '9'\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(6, ["m", "-pp", "1"], False)]),
    ("GPU = 'A100'\nif GPU != 'H100':\n    os.environ['PP'] = '9'\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(6, ["m", "-pp", "9"], False)]),
    # writes take effect in the order they run (a nested write was applied after a later top-level one)
    ("GPU = 'A100'\nif GPU != 'H100':\n    os.environ['PP'] = '9'\nos.environ['PP'] = '6'\n"
     "os.system('vllm serve m -pp ${PP:-1}')\n", [(7, ["m", "-pp", "6"], False)]),
    # a write that may or may not have run (a loop, a function, a test kvguard does not decide): unknown
    ("for i in range(2):\n    os.environ['PP'] = str(i)\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "${PP:-1}"], True)]),
    ("def setup():\n    os.environ['PP'] = '8'\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "${PP:-1}"], True)]),
    # a function's own write before its launch is made
    ("def main():\n    os.environ['PP'] = '8'\n    os.system('vllm serve m -pp ${PP:-1}')\nmain()\n",
     [(5, ["m", "-pp", "8"], False)]),
])
def test_environment_writes_hold_where_they_surely_ran(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # read where it is assigned, before the script writes the variable (it was read as the later write)
    ("PP = os.environ.get('PP', '1')\nos.environ['PP'] = '3'\nsubprocess.run(['vllm', 'serve', 'm', '-pp', PP])\n",
     [(5, ["m", "-pp", "${PP_as_read}"], True)]),
    ("os.environ['PP'] = '3'\nPP = os.environ.get('PP', '1')\nos.environ['PP'] = '5'\n"
     "subprocess.run(['vllm', 'serve', 'm', '-pp', PP])\n", [(6, ["m", "-pp", "3"], False)]),
    ("CMD = f\"vllm serve m -pp {os.environ.get('PP', '1')}\"\nos.environ['PP'] = '3'\nos.system(CMD)\n",
     [(5, ["m", "-pp", "${PP_as_read}"], True)]),
    # never written: the launch's environment is the one read, as before
    ("PP = os.environ.get('PP', '1')\nsubprocess.run(['vllm', 'serve', 'm', '-pp', PP])\n",
     [(4, ["m", "-pp", "1"], False)]),
])
def test_an_environment_read_holds_what_it_read_where_it_was_assigned(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # an unresolved Python name is not the environment variable of the same name (it was read as its value)
    ("import sys\nMODEL = sys.argv[1]\nsubprocess.run(['vllm', 'serve', MODEL], env={'MODEL': 'x'})\n",
     [(5, ["${MODEL}"], True)]),
    ("import sys\nTP = sys.argv[1]\nos.environ['TP'] = '8'\nsubprocess.run(['vllm', 'serve', 'm', '-tp', TP])\n",
     [(6, ["m", "-tp", "${TP}"], True)]),
])
def test_an_unresolved_name_is_not_read_from_the_launch_environment(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # the script ends there: what follows is never launched (it was read)
    ("import sys\nGPU = 'L4'\nif GPU == 'L4':\n    sys.exit(0)\nsubprocess.run(['vllm', 'serve', 'a'])\n", []),
    ("os.execvp('vllm', ['vllm', 'serve', 'a'])\nsubprocess.run(['vllm', 'serve', 'b'])\n", [(3, ["a"], False)]),
    # nor is a function's launch for a call of it that never runs
    ("import sys\ndef serve(model):\n    subprocess.run(['vllm', 'serve', model])\nserve('a')\nsys.exit(1)\n"
     "serve('b')\n", [(5, ["a"], False)]),
    # an exit kvguard does not know runs: what follows is read, as before
    ("import sys\nif len(sys.argv) > 2:\n    sys.exit(0)\nsubprocess.run(['vllm', 'serve', 'a'])\n",
     [(6, ["a"], False)]),
])
def test_nothing_after_the_script_ends_is_launched(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # del / pop remove what the script set (both were ignored: the variable read as still set)
    ("os.environ['PP'] = '2'\ndel os.environ['PP']\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "1"], False)]),
    ("os.environ['PP'] = '2'\nos.environ.pop('PP', None)\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "1"], False)]),
    # setdefault sets an unset variable and keeps a set one; update sets each entry (all were ignored)
    ("os.environ.setdefault('PP', '4')\nos.system('vllm serve m -pp ${PP:-1}')\n", [(4, ["m", "-pp", "4"], False)]),
    ("os.environ['PP'] = '2'\nos.environ.setdefault('PP', '4')\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "2"], False)]),
    ("os.environ.update({'PP': '5'}, )\nos.environ.update(TP='3')\nos.system('vllm serve m -pp $PP -tp $TP')\n",
     [(5, ["m", "-pp", "5", "-tp", "3"], False)]),
    ("os.environ['PP'] = '2'\nos.environ.clear()\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "1"], False)]),
    # a change kvguard cannot follow: whatever the launch reads from the environment is unknown
    ("import json\nos.environ.update(json.load(open('env.json')))\nos.system('vllm serve m -pp ${PP:-1}')\n",
     [(5, ["m", "-pp", "${PP:-1}"], True)]),
    ("import sys\nenv = dict(os.environ)\nenv['PP'] = sys.argv[1]\n"
     "subprocess.run(['vllm', 'serve', 'm', '-pp', os.environ.get('PP', '1')], env=env)\n",
     [(6, ["m", "-pp", "${PP:-1}"], True)]),
    # the script reads its own environment, not the one it gives the launch (the launch's was read)
    ("subprocess.run(['vllm', 'serve', 'm', '-pp', os.environ.get('PP', '1')], env={'PP': '9'})\n",
     [(3, ["m", "-pp", "${PP:-1}"], True)]),
    ("subprocess.run('vllm serve m -pp ${PP:-1}', shell=True, env={'PP': '9'})\n", [(3, ["m", "-pp", "9"], False)]),
    ("os.putenv('PP', '3')\nos.system('vllm serve m -pp ${PP:-1}')\n", [(4, ["m", "-pp", "${PP:-1}"], True)]),
])
def test_every_change_to_the_environment_is_followed(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a list changed under another name (it was read as its own statements build it)
    ("cmd = ['vllm', 'serve', 'm']\nalias = cmd\nalias.append('--x')\nsubprocess.run(cmd)\n",
     [(6, ["m", "${cmd}"], True)]),
    ("def add_flag(words):\n    words.append('--x')\ncmd = ['vllm', 'serve', 'm']\nadd_flag(cmd)\n"
     "subprocess.run(cmd)\n", [(7, ["m", "${cmd}"], True)]),
    # handed only to calls that read it: read as before
    ("import logging\ncmd = ['vllm', 'serve', 'm']\nlogging.info('running %s', cmd)\nprint(' '.join(cmd))\n"
     "subprocess.run(cmd)\n", [(7, ["m"], False)]),
])
def test_a_list_changed_under_another_name_is_unresolved(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # an argument list made from a vLLM list kvguard cannot read: found at the call, undecidable (it was read
    # as the whole list, decided, where the list is written)
    ("cmd = ['vllm', 'serve', 'm', '-tp', '2']\nsubprocess.run(cmd[:3])\n",
     [(4, ["m", "-tp", "2", "${cmd_3}"], True)]),
    ("def build_cmd(tp=1):\n    return ['vllm', 'serve', 'built', '-tp', str(tp)]\nsubprocess.run(build_cmd(4))\n",
     [(5, ["built", "-tp", "${tp}", "${build_cmd_4}"], True)]),
    # a conditional expression whose test kvguard decides (it was unresolved)
    ("GPU = 'H100'\nsubprocess.run(['vllm', 'serve', 'a' if GPU == 'H100' else 'b'])\n", [(4, ["a"], False)]),
    ("GPU = 'L4'\ncmd = ['vllm', 'serve', 'm']\nsubprocess.run(cmd if GPU == 'H100' else cmd + ['-tp', '1'])\n",
     [(5, ["m", "-tp", "1"], False)]),
    ("import sys\nsubprocess.run(['vllm', 'serve', 'a' if sys.argv[1:] else 'b'])\n",
     [(4, ["${a_if_sys_argv_1_else_b}"], True)]),
])
def test_argument_lists_kvguard_cannot_read_are_found_where_they_are_made(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


def test_a_write_in_another_function_is_unknown_after_a_later_one(tmp_path):
    """The function may be called after the later write (it was applied in line order, before it)."""
    script = ("def setup():\n    os.environ['PP'] = '8'\nos.environ['PP'] = '6'\nsetup()\n"
              "os.system('vllm serve m -pp ${PP:-1}')\n")
    assert _read(tmp_path, script) == [(7, ["m", "-pp", "${PP:-1}"], True)]
