"""Python launcher scripts: a name holds the value the statements before the read leave it, in the order Python
runs them (kvguard.scan.python), as the differential against Python (tests/test_scan_python_differential.py)
checks.  Each case lists the launches kvguard reports as ``(line, words after "vllm serve", unresolved?)``, the
words written by hand from what Python runs.
"""

from __future__ import annotations

import textwrap

import pytest

from kvguard.scan import find_launches


def _read(tmp_path, script: str) -> list[tuple[int, list[str], bool]]:
    path = tmp_path / "launcher.py"
    path.write_text("import os\nimport subprocess\n" + textwrap.dedent(script))
    return [(launch.line, launch.tokens[2:], bool(launch.unresolved)) for launch in find_launches([str(path)])[0]]


def _reasons(tmp_path, script: str) -> list[tuple[str, ...]]:
    path = tmp_path / "launcher.py"
    path.write_text("import os\nimport subprocess\n" + textwrap.dedent(script))
    return [launch.unresolved for launch in find_launches([str(path)])[0]]


@pytest.mark.parametrize("script, expected", [
    # the later assignment holds at the call (the name was unresolved)
    ("tp = 2\ntp = 4\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(tp)])\n", [(5, ["m", "-tp", "4"], False)]),
    ("MODEL = 'a'\nMODEL = 'b'\nos.system(f'vllm serve {MODEL}')\n", [(5, ["b"], False)]),
    ("MODEL = 'a'\nMODEL = MODEL + '-v2'\nMODEL += '-x'\nsubprocess.run(['vllm', 'serve', MODEL])\n",
     [(6, ["a-v2-x"], False)]),
    ("TP = 2\nTP *= 3\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(5, ["m", "-tp", "6"], False)]),
    ("TP = 2\nTP = TP * 2\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(5, ["m", "-tp", "4"], False)]),
    # in a function, on its own names
    ("def main():\n    tp = 1\n    tp = 8\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(tp)])\nmain()\n",
     [(6, ["m", "-tp", "8"], False)]),
    # each call reads the value its own line sees
    ("M = 'a'\nsubprocess.run(['vllm', 'serve', M])\nM = 'b'\nsubprocess.run(['vllm', 'serve', M])\n",
     [(4, ["a"], False), (6, ["b"], False)]),
])
def test_a_name_assigned_again_holds_its_value_at_the_call(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a change after the call does not change what the call ran (the list ended in an unresolved word)
    ("cmd = ['vllm', 'serve', 'a']\nsubprocess.run(cmd)\ncmd.append('--later')\n", [(4, ["a"], False)]),
    # a decided if / else changes the list on its branch only (the list ended in an unresolved word)
    ("GPU = 'H100'\ncmd = ['vllm', 'serve', 'm']\nif GPU == 'H100':\n    cmd.append('--h')\nelse:\n"
     "    cmd.append('--o')\nsubprocess.run(cmd)\n", [(9, ["m", "--h"], False)]),
    ("GPU = 'L4'\nTP = 1\nif GPU == 'H100':\n    TP = 8\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(7, ["m", "-tp", "1"], False)]),
    # a for loop over literals builds the list, pass by pass
    ("cmd = ['vllm', 'serve', 'm']\nfor flag in ['--a', '--b']:\n    cmd.append(flag)\nsubprocess.run(cmd)\n",
     [(6, ["m", "--a", "--b"], False)]),
    ("TP = 1\nfor tp in [3, 5]:\n    TP = tp\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(6, ["m", "-tp", "5"], False)]),
    # a list made afresh in each pass of a loop: what this pass builds
    ("for tp in [1, 2]:\n    cmd = ['vllm', 'serve', 'm']\n    cmd.append(str(tp))\n    subprocess.run(cmd)\n",
     [(6, ["m", "1"], False), (6, ["m", "2"], False)]),
    # pop at a literal place (the list ended in an unresolved word)
    ("cmd = ['vllm', 'serve', 'm', '--x']\ncmd.insert(0, 'env')\ncmd.pop(0)\ncmd.pop()\ncmd.append('--y')\n"
     "subprocess.run(cmd)\n", [(8, ["m", "--y"], False)]),
    # insert at a literal place
    ("cmd = ['vllm', 'serve', 'm']\ncmd.insert(3, '--first')\ncmd.insert(2, 'x')\nsubprocess.run(cmd)\n",
     [(6, ["x", "m", "--first"], False)]),
])
def test_a_list_is_built_in_the_order_python_runs_it(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # an undecided test whose branches give different values: the name is unresolved after it, as in the shell
    # reader (the earlier reassignment left `tp` unresolved too)
    ("tp = 2\ntp = 4\nmodel = 'Qwen/Qwen3-8B'\ncmd = ['vllm', 'serve', model, '--tensor-parallel-size', str(tp)]\n"
     "if os.environ.get('BIG'):\n    cmd += ['--max-model-len', '65536']\nsubprocess.run(cmd, check=True)\n",
     [(9, ["Qwen/Qwen3-8B", "--tensor-parallel-size", "4", "${cmd}"], True)]),
    ("TP = 2\nif os.environ.get('BIG'):\n    TP = 4\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(6, ["m", "-tp", "${TP}"], True)]),
    # the same value on every way: known
    ("TP = 2\nif os.environ.get('BIG'):\n    TP = 4\nelse:\n    TP = 4\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(8, ["m", "-tp", "4"], False)]),
    ("cmd = ['vllm', 'serve', 'm']\nif os.environ.get('BIG'):\n    cmd.append('--x')\nelse:\n    cmd.append('--x')\n"
     "subprocess.run(cmd)\n", [(8, ["m", "--x"], False)]),
])
def test_an_undecided_test_leaves_what_its_branches_change_unresolved(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


def test_the_reason_names_the_variable_an_undecided_test_changes(tmp_path):
    script = ("cmd = ['vllm', 'serve', 'm']\nif os.environ.get('BIG'):\n    cmd += ['--max-model-len', '65536']\n"
              "subprocess.run(cmd)\n")
    assert _reasons(tmp_path, script) == [("cmd",)]


@pytest.mark.parametrize("script, expected", [
    # a function that changes a global where kvguard does not follow it (called from another function, handed
    # on): never taken as the module's last value
    ("TP = 2\nTP = 4\ndef set_tp():\n    global TP\n    TP = 16\ndef main():\n    set_tp()\nmain()\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(11, ["m", "-tp", "${TP}"], True)]),
    ("import atexit\nTP = 2\ndef set_tp():\n    global TP\n    TP = 16\natexit.register(set_tp)\nset_tp()\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(10, ["m", "-tp", "${TP}"], True)]),
    ("TP = 2\ndef set_tp():\n    global TP\n    TP = 16\nfor _ in range(2):\n    set_tp()\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(9, ["m", "-tp", "${TP}"], True)]),
    # a while loop, its else: the passes may have changed the name (the else read the value before the loop)
    ("TP = 1\nwhile TP < 3:\n    TP += 1\nelse:\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(7, ["m", "-tp", "${TP}"], True)]),
    ("TP = 1\nfor i in [1, 2]:\n    TP = 3\nelse:\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(7, ["m", "-tp", "${TP}"], True)]),
    ("TP = 1\nn = 0\nwhile n < 2:\n    TP = 4\n    n += 1\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(8, ["m", "-tp", "${TP}"], True)]),
    # a try whose body may raise before or after the change: either value
    ("TP = 1\ntry:\n    TP = int(os.environ['TP'])\nexcept KeyError:\n    pass\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(8, ["m", "-tp", "${TP}"], True)]),
    # a loop whose passes change the name: unknown in the loop
    ("TP = 1\nfor i in range(2):\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n    TP = 2\n",
     [(5, ["m", "-tp", "${TP}"], True)]),
    # part of a try may have run before its handler
    ("TP = 1\ntry:\n    TP = 2\n    import missing_module\nexcept ImportError:\n"
     "    subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(8, ["m", "-tp", "${TP}"], True)]),
])
def test_what_may_change_a_name_unseen_leaves_it_unresolved(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a function reads a global when it runs: the value at each call (it was unresolved)
    ("def serve():\n    subprocess.run(['vllm', 'serve', MODEL])\nMODEL = 'a'\nserve()\nMODEL = 'b'\nserve()\n",
     [(4, ["a"], False), (4, ["b"], False)]),
    ("def serve(tp):\n    subprocess.run(['vllm', 'serve', MODEL, '-tp', str(tp)])\nMODEL = 'a'\nMODEL = 'b'\n"
     "serve(2)\n", [(4, ["b", "-tp", "2"], False)]),
    # assigned once, after the definition: as before
    ("def serve():\n    subprocess.run(['vllm', 'serve', LATE])\nLATE = 'late'\nserve()\n", [(4, ["late"], False)]),
])
def test_a_function_reads_a_global_as_it_is_where_the_function_is_called(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # a module-level function's `global`: its body runs at each call statement of it (it was unresolved)
    ("TP = 2\nTP = 4\ndef set_tp():\n    global TP\n    TP = 16\nset_tp()\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(9, ["m", "-tp", "16"], False)]),
    ("MODEL = 'a'\ndef use(name, suffix='-v2'):\n    global MODEL\n    if name == 'big':\n        MODEL = name + '-x'\n"
     "    else:\n        MODEL = name + suffix\nuse('small')\nsubprocess.run(['vllm', 'serve', MODEL])\n"
     "use('big')\nsubprocess.run(['vllm', 'serve', MODEL])\n", [(11, ["small-v2"], False), (13, ["big-x"], False)]),
    # read in a function called before and after the change
    ("DP = 1\ndef set_dp():\n    global DP\n    DP = 3\ndef serve():\n    subprocess.run(['vllm', 'serve', 'm', '-dp', str(DP)])\n"
     "serve()\nset_dp()\nserve()\n", [(8, ["m", "-dp", "1"], False), (8, ["m", "-dp", "3"], False)]),
    # a list the function changes in place, called under the main guard
    ("cmd = ['vllm', 'serve', 'm']\ndef add_flags():\n    cmd.append('--enforce-eager')\n"
     "if __name__ == '__main__':\n    add_flags()\n    subprocess.run(cmd)\n", [(8, ["m", "--enforce-eager"], False)]),
])
def test_a_global_a_called_function_sets_holds_at_the_call(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    # try … finally: the finally runs on the way to the call (it was unresolved)
    ("TP = 1\ntry:\n    TP = 2\nfinally:\n    TP = 3\nsubprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n",
     [(8, ["m", "-tp", "3"], False)]),
    # every way through the body and handlers leaves one value
    ("TP = 1\ntry:\n    import missing_module\n    TP = 2\nexcept ImportError:\n    TP = 2\n"
     "subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\n", [(9, ["m", "-tp", "2"], False)]),
    ("cmd = ['vllm', 'serve', 'm']\ntry:\n    import missing_module\nexcept ImportError:\n    pass\nelse:\n"
     "    cmd = ['vllm', 'serve', 'm']\ncmd.append('--x')\nsubprocess.run(cmd)\n", [(11, ["m", "--x"], False)]),
    # a change in the try body the read is in: what ran before it
    ("TP = 1\ntry:\n    TP = 5\n    subprocess.run(['vllm', 'serve', 'm', '-tp', str(TP)])\nexcept OSError:\n    pass\n",
     [(6, ["m", "-tp", "5"], False)]),
])
def test_a_try_is_followed_along_each_way_it_may_run(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected


@pytest.mark.parametrize("script, expected", [
    ("cmd = ['vllm', 'serve', 'm', '--enforce-eager', '-tp', '2']\ncmd.remove('--enforce-eager')\nsubprocess.run(cmd)\n",
     [(5, ["m", "-tp", "2"], False)]),
    ("cmd = ['vllm', 'serve', 'm', '-x', '-x']\ncmd.remove('-x')\nsubprocess.run(cmd)\n", [(5, ["m", "-x"], False)]),
    # which item goes is not known: the items before the first that may be it, then the name unresolved
    ("cmd = ['vllm', 'serve', 'm', os.environ.get('A', '-y'), '-y']\ncmd.remove('-y')\nsubprocess.run(cmd)\n",
     [(5, ["m", "${cmd}"], True)]),
    ("cmd = ['vllm', 'serve', 'm', 8, '-z']\ncmd.remove('8')\nsubprocess.run(cmd)\n", [(5, ["m", "8", "-z", "${cmd}"], True)]),
])
def test_a_list_remove_takes_out_the_first_item_equal_to_it(tmp_path, script, expected):
    assert _read(tmp_path, script) == expected
