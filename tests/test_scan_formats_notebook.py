"""Notebook shell escapes (``!cmd``) read as IPython expands them before a shell runs them (kvguard.scan.notebook).

Expected shell lines are written by hand from IPython's ``InteractiveShell.var_expand``: its ``DollarFormatter``
evaluates ``{expression}`` and ``$name`` fields in the user's namespace, leaves a ``$name`` that an odd number of
single quotes follows (in the text up to the next ``{…}``), turns ``$$name`` into ``$name``, and when any field
cannot be evaluated (``NameError``, ``SyntaxError``) runs the whole line as written.  When IPython is installed,
each expected line is also checked against its formatter."""

from __future__ import annotations

import json

import pytest

from kvguard.scan import find_launches

NAMESPACE = {"model": "Qwen/Qwen3-8B", "tp": 2}
SETUP = 'model = "Qwen/Qwen3-8B"\ntp = 2\n'

CASES = [
    # $TP is the shell's, not a Python name: IPython's expansion fails and {model} stays as written too
    ("vllm serve {model} -tp $TP", "vllm serve {model} -tp $TP", ["vllm", "serve", "{model}", "-tp", "$TP"], ("TP",)),
    ("vllm serve $model -tp {tp}", "vllm serve Qwen/Qwen3-8B -tp 2", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"],
     ()),
    # in single quotes IPython leaves $model, and so does the shell
    ("vllm serve '$model' -tp 2", "vllm serve '$model' -tp 2", ["vllm", "serve", "$model", "-tp", "2"], ()),
    # $1 is evaluated as the expression 1
    ("vllm serve $model -tp $1", "vllm serve Qwen/Qwen3-8B -tp 1", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "1"], ()),
    # $$model is the shell's $model (not set in the notebook's environment)
    ("vllm serve $$model -tp {tp}", "vllm serve $model -tp 2", ["vllm", "serve", "$model", "-tp", "2"], ("model",)),
    # a JSON value is no expression: the whole line as written, $model included
    ("""vllm serve $model -tp 2 --hf-overrides '{"a": 1}'""", """vllm serve $model -tp 2 --hf-overrides '{"a": 1}'""",
     ["vllm", "serve", "$model", "-tp", "2", "--hf-overrides", '{"a": 1}'], ("model",)),
]


def _notebook(tmp_path, line: str) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "source": SETUP, "outputs": [], "execution_count": None},
             {"cell_type": "code", "metadata": {}, "source": "!" + line, "outputs": [], "execution_count": None}]
    path = tmp_path / "serve.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
                    encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("line", "shell_line", "tokens", "unresolved"), CASES)
def test_a_shell_escape_as_ipython_expands_it(tmp_path, line, shell_line, tokens, unresolved):
    launches, skipped, _ = find_launches([_notebook(tmp_path, line)])
    assert skipped == [] and len(launches) == 1
    assert (launches[0].tokens, launches[0].unresolved) == (tokens, unresolved)


@pytest.mark.parametrize(("line", "shell_line", "tokens", "unresolved"), CASES)
def test_the_expected_shell_line_is_what_ipython_runs(line, shell_line, tokens, unresolved):
    text = pytest.importorskip("IPython.utils.text")
    try:
        expanded = text.DollarFormatter().vformat(line, args=[], kwargs=dict(NAMESPACE))
    except Exception:       # noqa: BLE001 - IPython's var_expand runs the line as written on any error
        expanded = line
    assert expanded == shell_line


def test_a_loop_variable_is_in_the_namespace_ipython_expands_from(tmp_path):
    launches, _, _ = find_launches([_notebook(tmp_path, "echo\nfor n in [2, 4]:\n    !vllm serve {model} -tp {n}")])
    assert [launch.tokens for launch in launches] == [["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"],
                                                     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"]]
