"""The Python launcher reader (kvguard.scan.python) checked against Python itself: hypothesis writes small launcher
scripts from building blocks, the script is RUN with the functions that start programs replaced by stand-ins that
record the argument list they are given (shell text is run by real bash, ``vllm`` a shell function printing its
words), and the launches kvguard decides must be exactly the launches the script makes.

A launch kvguard leaves unresolved is allowed (it is then Undecidable, not guessed); a decided launch the script
does not make, or a launch the script makes that kvguard neither decides nor leaves unresolved on that line, is a
wrong reading.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvguard.scan import find_launches

BASH = shutil.which("bash")

#: run before the script: the program starters replaced by recorders, each recording (script line, argv)
_STAND_INS = r'''
import json, os, subprocess, sys

_SCRIPT, _RECORD = sys.argv[1], sys.argv[2]
_BASH = os.environ.pop("KVG_BASH")
_real_popen = subprocess.Popen


def _line():
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != _SCRIPT:
        frame = frame.f_back
    return frame.f_lineno if frame is not None else 0


def _record(line, argv):
    with open(_RECORD, "a") as out:
        out.write(json.dumps([line, [str(word) for word in argv]]) + "\n")


def _shell(line, text, env=None):
    # the shell's own reading of the text, `vllm` a function that prints its words
    probe = _real_popen([_BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\n" + text],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                        env=dict(os.environ if env is None else env, PATH=os.environ.get("PATH", "")))
    printed_lines, _ = probe.communicate()
    for printed in printed_lines.split("\n")[:-1]:
        _record(line, ["vllm"] + printed.split("\0")[:-1])


def _argv_call(args=None, *rest, shell=False, env=None, **options):
    line = _line()
    if shell:
        _shell(line, args if isinstance(args, str) else args[0], env)
    elif isinstance(args, str):
        _record(line, [args])
    else:
        _record(line, list(args))
    return subprocess.CompletedProcess(args, 0, "", "")


def _system(text):
    _shell(_line(), text)
    return 0


def _execvp(file, argv):
    _record(_line(), list(argv))
    sys.stdout.flush()
    os._exit(0)


for _name in ("run", "Popen", "call", "check_call", "check_output"):
    setattr(subprocess, _name, _argv_call)
os.system = _system
os.execvp = _execvp
sys.argv = [_SCRIPT]
import runpy
runpy.run_path(_SCRIPT, run_name="__main__")
'''

_PRELUDE = '''\
import argparse
import os
import shlex
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--tp", type=int, default={arg_tp})
parser.add_argument("--served-model", default="{arg_model}")
args = parser.parse_args()

MODEL = "{model}"
TP = {tp}
MODE = "{mode}"
GPU = "{gpu}"
PP = os.environ.get("PP", "1")
cmd = ["vllm", "serve", MODEL]
extra = []


def launch(model, tp=2, *, eager=False):
    words = ["vllm", "serve", model, "-tp", str(tp)]
    if eager:
        words.append("--enforce-eager")
    subprocess.run(words)


def launch_text(model, pp=1):
    os.system(f"vllm serve {{model}} -pp {{pp}}")


def add_flag(words):
    words.append("--from-helper")


def build_cmd(tp=1):
    return ["vllm", "serve", "built", "-tp", str(tp)]


def setup():
    os.environ["PP"] = "8"


def launch_global():
    subprocess.run(["vllm", "serve", MODEL, "-tp", str(TP), "-pp", PP])


def launch_late():
    subprocess.run(["vllm", "serve", LATE])


def set_tp():
    global TP
    TP = 16


def set_model(name, suffix="-g"):
    global MODEL
    if name == "h":
        MODEL = name + "100" + suffix
    else:
        MODEL = name + suffix


def reset_cmd():
    global cmd
    cmd = ["vllm", "serve", "reset"]
    cmd.append("--from-reset")


LATE = "late-1"

'''

#: statements that set values or build lists
_SETTERS = [
    "TP = 4", 'TP = "8"', "TP = TP * 2", 'MODEL = f"{MODEL}-v2"', 'MODEL = "{}-{}".format(MODEL, TP)',
    'MODEL = "%s/%s" % ("org", MODEL)', 'MODEL = MODEL + "-x"', 'MODE = "tp"', 'MODE = "dp"',
    'cmd += ["-tp", str(TP)]', 'cmd.append("--enforce-eager")', 'cmd.extend(["-pp", "2"])',
    'cmd = cmd + extra', 'cmd = ["vllm", "serve", MODEL, *extra]', 'extra.append("--max-model-len")',
    'extra += ["--seed", "3"]', 'extra = ["-dp", str(TP)]',
    'os.environ["PP"] = "3"', 'os.environ["PP"] = str(TP)', 'PP = os.environ.get("PP", "1")',
    'PP = os.getenv("PP", "5")', 'os.environ["PP"] = "6"',
    "for i in range(1, 3):\n    os.environ['PP'] = str(i)",
    "setup()", "alias = cmd\nalias.append('--via-alias')", "add_flag(cmd)", "add_flag(extra)",
    'os.environ.setdefault("PP", "4")', 'os.environ.update({"PP": "5"})', 'os.environ.update(PP="7")',
    'os.environ["PP"] = "2"\ndel os.environ["PP"]', 'os.environ.pop("PP", None)', 'os.environ.clear()',
    'if GPU == "L4":\n    sys.exit(0)', 'MODEL = "h" if GPU == "H100" else "o"',
    "cmd[2] = 'replaced'", "cmd.insert(2, '--first')", 'cmd = list(cmd)', "extra = extra * 2",
    "for i in range(2):\n    cmd.append(str(i))",
    "for flag in ['--a', '--b']:\n    extra.append(flag)",
    'if GPU == "H100":\n    MODEL = "big"\nelse:\n    MODEL = "small"',
    'if GPU in ("A100", "L4"):\n    cmd += ["-tp", "2"]',
    'if not GPU.startswith("H"):\n    TP = 6',
    'if GPU != "H100":\n    os.environ["PP"] = "9"',
    # flow: values as the statements before the read leave them
    'MODEL = "again"', 'MODEL += "-y"', "TP *= 2", 'cmd = cmd + ["--seed", "1"]', 'cmd.insert(3, "--first")',
    'cmd.insert(-1, "--neg")', 'cmd.insert(2, MODEL)', "for flag in ['--c', '--d']:\n    cmd.append(flag)",
    "for tp in [3, 5]:\n    TP = tp", 'LATE = "late-2"', "set_tp()",
    'if os.environ.get("BIG"):\n    cmd += ["--max-model-len", "65536"]',
    'if os.environ.get("BIG"):\n    MODEL = "big"',
    'if os.environ.get("BIG"):\n    TP = 4\nelse:\n    TP = 4',
    'if os.environ.get("BIG"):\n    cmd.append("--big")\nelse:\n    cmd.append("--small")',
    'if os.environ.get("BIG"):\n    extra = ["--big"]\nelse:\n    extra = ["--big"]',
    "n = 0\nwhile n < 2:\n    cmd.append('-w')\n    n += 1",
    "try:\n    TP = 5\nexcept Exception:\n    pass",
    'with open(os.devnull) as handle:\n    MODEL = "in-with"',
    'if GPU == "H100":\n    TP = 2\n    cmd.append("--h100")\nelse:\n    TP = 1',
    "words = list(cmd)\nwords.append('--copy')\ncmd = words",
    'if os.environ.get("BIG"):\n    if GPU == "H100":\n        TP = 8\n        cmd.append("--nested")',
    'if GPU == "H100":\n    if os.environ.get("BIG"):\n        MODEL = "nested"\n    else:\n        MODEL = "flat"',
    "cmd.insert(0, 'env')\ncmd.pop(0)", "N = 8\nN = N - 3\nTP = N", 'extra.insert(0, "--pre")',
    # a module-level function's `global` followed at its calls; `try` blocks; `while` (and its `else`); remove
    'set_model("q")', 'set_model(MODEL, suffix="-s")', "reset_cmd()", 'if GPU == "H100":\n    set_model("h")',
    'if os.environ.get("BIG"):\n    set_tp()', "try:\n    set_tp()\nexcept Exception:\n    pass",
    "try:\n    TP = 3\n    cmd.append('--tried')\nexcept Exception:\n    TP = 1",
    "try:\n    cmd.remove('--enforce-eager')\nexcept ValueError:\n    pass",
    "try:\n    MODEL = MODEL + '-t'\nfinally:\n    TP = 7", "try:\n    pass\nexcept Exception:\n    TP = 2\nelse:\n    TP = 5",
    'extra.append("--z")\nextra.remove("--z")', "cmd.remove('serve')\ncmd.insert(1, 'serve')",
    "n = 0\nwhile n < 2:\n    n += 1\nelse:\n    TP = n", "for flag in ['--e']:\n    pass\nelse:\n    extra.append(flag)",
    "while False:\n    TP = 99",
]

#: statements that start programs
_LAUNCHES = [
    "subprocess.run(cmd)", "subprocess.Popen(cmd + extra)",
    'subprocess.run(["vllm", "serve", MODEL, "-tp", str(TP), *extra])',
    'subprocess.call(["vllm", "serve", MODEL, "--mode", MODE])',
    'os.system(f"vllm serve {MODEL} -tp {TP}")',
    'os.system("vllm serve m -pp " + os.environ.get("PP", "1"))',
    'os.system("vllm serve m -pp ${PP:-7}")',
    'subprocess.run(" ".join(cmd), shell=True)',
    'subprocess.run(f"vllm serve {MODEL} --x {TP}", shell=True)',
    'subprocess.check_call(shlex.split("vllm serve {} -tp {}".format(MODEL, TP)))',
    'subprocess.check_output(["vllm", "serve", "%s" % MODEL, "--max-model-len", "%d" % 4096])',
    'subprocess.run(["vllm", "serve", args.served_model, "-tp", str(args.tp)])',
    "for tp in [1, 2]:\n    subprocess.run(['vllm', 'serve', MODEL, '-tp', str(tp)])",
    "for i in range(3):\n    subprocess.Popen(['vllm', 'serve', MODEL, '--port', str(8000 + i)])",
    "for m, tp in [('a', 1), ('b', 2)]:\n    subprocess.run(['vllm', 'serve', m, '-tp', str(tp)])",
    'launch(MODEL)', 'launch("a", 4)', 'launch(tp=8, model="b")', 'launch("c", eager=True)',
    'launch_text("d")', "launch_global()", 'subprocess.run(["vllm", "serve", MODEL, "-pp", PP])',
    "for tp in [1, 2]:\n    launch('loop', tp)",
    "for tp in [1, 2, 4]:\n    if tp == 2:\n        continue\n    subprocess.run(['vllm', 'serve', 'c', '-tp', str(tp)])",
    "for tp in [1, 2, 4]:\n    subprocess.run(['vllm', 'serve', 'b', '-tp', str(tp)])\n    if tp >= 2:\n        break",
    "for tp in (1, 2, 4):\n    if tp > 1:\n        subprocess.run(['vllm', 'serve', 'g', '-tp', str(tp)])",
    'subprocess.run(shlex.split(" ".join(cmd)))', 'os.system(shlex.join(cmd))',
    'subprocess.run(["vllm", "serve", f"{MODEL!r}", f"{TP:>3}", "%r" % MODEL])',
    'os.system(f"PP=4 vllm serve {MODEL} -pp $PP && vllm serve again")',
    'subprocess.run(["vllm", "serve", MODEL, "-pp", os.environ["PP"] if "PP" in os.environ else "0"])',
    "try:\n    subprocess.run(cmd)\nexcept OSError:\n    pass",
    "subprocess.run(cmd[:3])", "subprocess.run(build_cmd())", "subprocess.run(build_cmd(4))",
    "subprocess.run([word for word in cmd])", "subprocess.run(cmd if GPU == 'H100' else cmd + ['--not-h100'])",
    'subprocess.run(["vllm", "serve", "a" if GPU == "H100" else "b", MODEL.upper(), ",".join(["x", "y"])])',
    "n = 0\nwhile n < 2:\n    subprocess.run(['vllm', 'serve', 'w', str(n)])\n    n += 1",
    'subprocess.run(["vllm", "serve", MODEL, "-pp", os.environ.get("PP", "1")], env={"PP": "9"})',
    'subprocess.run("vllm serve m -pp ${PP:-1}", shell=True, env={**os.environ, "TP": "9"})',
    'subprocess.run(f"vllm serve m -pp ${{PP:-1}} -x {PP}", shell=True, env={"PP": "2"})',
    'subprocess.Popen(" ".join(["vllm", "serve", MODEL, *extra]), shell=True)',
    'subprocess.run(["vllm", "serve", MODEL, "--port", str(TP + TP)])', 'launch_text(MODEL, pp=2)',
    'if GPU == "H100":\n    subprocess.run(["vllm", "serve", MODEL, "--tp-mode"])\n'
    'else:\n    subprocess.run(["vllm", "serve", MODEL, "--other-mode"])',
    'if GPU in ("H100", "A100") or GPU == "B200":\n    os.system("vllm serve big")',
    "launch_late()", 'subprocess.run(cmd, check=True)', 'subprocess.run(["vllm", "serve", f"{MODEL}:{TP}"])',
    "if cmd:\n    subprocess.run(['vllm', 'serve', 'nonempty', str(len(cmd))])",
    "def local_flow():\n    tp = 1\n    tp = 2\n    subprocess.run(['vllm', 'serve', 'local', '-tp', str(tp)])\n\n"
    "local_flow()",
    "k = 0\nwhile k < 1:\n    k += 1\nelse:\n    subprocess.run(['vllm', 'serve', MODEL, '-tp', str(TP)])",
    "try:\n    subprocess.run(['vllm', 'serve', MODEL, '-tp', str(TP)])\nfinally:\n    TP = 3",
]


_STARTS = re.compile(r"subprocess\.|os\.system|os\.exec")


#: the values main() starts from when the statements run in it (its own locals)
_LOCALS = '''\
MODEL = "{model}"
TP = {tp}
MODE = "{mode}"
PP = os.environ.get("PP", "1")
cmd = ["vllm", "serve", MODEL]
extra = []
'''


def _script(prelude: dict, statements: list[str], exec_last: bool, in_main: bool = False) -> str:
    body = "\n".join(statements)
    if exec_last:
        body += '\nos.execvp("vllm", cmd)'
    if in_main:   # the statements in a function, on its own local names
        body = "def main():\n" + textwrap.indent(_LOCALS.format(**prelude) + body, "    ") + "\n\n\nmain()"
    return _PRELUDE.format(**prelude) + body + "\n"


def _runs(tmp_path, script_path) -> set[tuple[int, tuple[str, ...]]]:
    stand_ins = tmp_path / "stand_ins.py"
    stand_ins.write_text(_STAND_INS)
    record = tmp_path / "record.jsonl"
    record.write_text("")
    env = {"PATH": os.environ.get("PATH", ""), "KVG_BASH": BASH or "bash"}
    done = subprocess.run([sys.executable, str(stand_ins), str(script_path), str(record)], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    return {(line, tuple(argv)) for line, argv in map(json.loads, record.read_text().splitlines())}


def _without_assignments(tokens: list[str]) -> list[str]:
    while tokens and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
        tokens = tokens[1:]
    return tokens


def _compare(tmp_path, script: str) -> None:
    path = tmp_path / "launcher.py"
    path.write_text(script)
    runs = _runs(tmp_path, path)
    launches = find_launches([str(path)])[0]
    # kvguard keeps a shell command's `NAME=value` prefix in its words; the program is given the rest
    decided = {(launch.line, tuple(_without_assignments(launch.tokens))) for launch in launches
               if not launch.unresolved}
    undecided_lines = {launch.line for launch in launches if launch.unresolved}
    # a vllm list literal no call reads is reported where it is written (it may be handed to a wrapper
    # kvguard does not know): a launch the script may make, not one this harness can see
    lines = script.splitlines()
    # so is a launch in a function the script never calls (another module may import and call it)
    uncalled = {line for node in ast.walk(ast.parse(script)) if isinstance(node, ast.FunctionDef)
                and script.count(node.name + "(") == 1 for line in range(node.lineno, node.end_lineno + 1)}
    wrong = sorted(launch for launch in decided - runs
                   if _STARTS.search(lines[launch[0] - 1]) and launch[0] not in uncalled)
    missing = sorted(run for run in runs - decided if run[0] not in undecided_lines)
    assert not wrong and not missing, f"decided but not run: {wrong}\nrun but not read: {missing}\n{script}"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=int(os.environ.get("KVG_FUZZ_EXAMPLES", "150")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(model=st.sampled_from(["m", "Qwen/Qwen3-8B", "a b"]), tp=st.sampled_from(["1", "4", '"2"']),
       mode=st.sampled_from(["tp", "dp", "ep"]), gpu=st.sampled_from(["H100", "A100", "L4"]), arg_tp=st.sampled_from(["2", "8"]),
       arg_model=st.sampled_from(["x", "org/y"]),
       statements=st.lists(st.sampled_from(_SETTERS + _LAUNCHES), min_size=1, max_size=8),
       exec_last=st.booleans(), in_main=st.booleans())
def test_generated_scripts_agree_with_python(tmp_path, model, tp, mode, gpu, arg_tp, arg_model, statements, exec_last,
                                             in_main):
    prelude = {"model": model, "tp": tp, "mode": mode, "gpu": gpu, "arg_tp": arg_tp, "arg_model": arg_model}
    _compare(tmp_path, _script(prelude, statements, exec_last, in_main))


def test_the_stand_ins_record_what_the_script_runs(tmp_path):
    """The harness itself: a script's launches as Python makes them (written by hand)."""
    script = textwrap.dedent('''\
        import os, subprocess
        X = "a b"
        subprocess.run(["vllm", "serve", X])
        os.system("vllm serve " + X)
        for tp in range(2):
            subprocess.Popen(["vllm", "serve", "m", "-tp", str(tp)])
        ''')
    path = tmp_path / "launcher.py"
    path.write_text(script)
    assert _runs(tmp_path, path) == {(3, ("vllm", "serve", "a b")), (4, ("vllm", "serve", "a", "b")),
                                     (6, ("vllm", "serve", "m", "-tp", "0")),
                                     (6, ("vllm", "serve", "m", "-tp", "1"))}
