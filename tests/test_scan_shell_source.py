"""``source FILE`` / ``. FILE`` in a shell script: the file is read in the script's shell, for what it sets."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from kvguard.scan import find_launches

BASH = shutil.which("bash")

_SETTINGS = "TP=4\nexport MODEL=Qwen/Qwen3-8B\nif [ \"$TP\" -gt 2 ]; then PP=1; fi\n"
_SCRIPT = ("#!/bin/bash\nTP=8\nsource ./settings.sh\nvllm serve $MODEL -tp $TP -pp $PP\n"
           "TP=2; . settings.sh && vllm serve $MODEL -tp $TP -dcp 2\n")


def _write(tmp_path, script: str, settings: "str | None" = _SETTINGS):
    if settings is not None:
        (tmp_path / "settings.sh").write_text(settings)
    path = tmp_path / "run.sh"
    path.write_text(script)
    return path


def test_a_sourced_file_sets_the_variables_below_it(tmp_path):
    path = _write(tmp_path, _SCRIPT)
    launches = find_launches([str(path)])[0]
    assert [(launch.line, launch.tokens[1:], launch.notes) for launch in launches] == [
        (4, ["serve", "Qwen/Qwen3-8B", "-tp", "4", "-pp", "1"], ()),
        (5, ["serve", "Qwen/Qwen3-8B", "-tp", "4", "-dcp", "2"], ())]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_sourced_launches_are_the_ones_bash_runs(tmp_path):
    path = _write(tmp_path, _SCRIPT)
    probe = subprocess.run([BASH, "-c", "vllm() { printf '%s\\0' \"$@\"; printf '\\n'; }\ncd " +
                            shlex.quote(str(tmp_path)) + "\n. ./run.sh"], capture_output=True, text=True)
    runs = [line.split("\0")[:-1] for line in probe.stdout.split("\n")[:-1]]
    assert [launch.tokens[1:] for launch in find_launches([str(path)])[0]] == runs


def test_a_file_kvguard_cannot_read_is_noted_and_sets_nothing_it_knows(tmp_path):
    path = _write(tmp_path, "TP=8\nsource ./missing.sh\nvllm serve m -tp $TP\nsource $CONFIG\nvllm serve m\n",
                  settings=None)
    launches = find_launches([str(path)])[0]
    assert [launch.notes for launch in launches] == [
        ("source ./missing.sh: not read (not found beside this file), so what it sets is not known",),
        ("source ./missing.sh: not read (not found beside this file), so what it sets is not known",
         "source $CONFIG: not read (its name is not known), so what it sets is not known")]


def test_an_activation_script_and_a_file_that_sources_itself(tmp_path):
    (tmp_path / "loop.sh").write_text("TP=3\nsource ./loop.sh\n")
    path = _write(tmp_path, "source .venv/bin/activate\nsource ./loop.sh\nvllm serve m -tp $TP\n", settings=None)
    (launch,) = find_launches([str(path)])[0]
    assert launch.tokens[1:] == ["serve", "m", "-tp", "3"]
    assert launch.notes == ("source ./loop.sh: not read (sourced within itself), so what it sets is not known",)
