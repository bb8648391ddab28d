"""A Python launcher's own command-line options (kvguard.scan.pyoptions): ``args.tp`` read at the default its
argparse parser gives it, noted, and ``--set args_tp=…`` for another value.

Expected values are written from argparse's documented behaviour (``dest`` from the first long option string,
``store_true`` defaults to False, ``set_defaults`` wins over ``default=``) and from vLLM's own refusal for the
checkpoint (Qwen3-32B: 64 attention heads).
"""

from __future__ import annotations

import ast
import json
import os

import pytest

from kvguard.cli import EXIT_REFUSE, EXIT_UNDECIDED, run
from kvguard.scan.pyoptions import namespace_names, script_options

DEPLOY = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy")


def _defaults(source: str) -> dict[str, object]:
    options = script_options(ast.parse(source))
    return {dest: (option.flag, None if option.default is None else ast.literal_eval(option.default))
            for dest, option in options.items()}


@pytest.mark.parametrize("lines, expected", [
    (['p.add_argument("--tensor-parallel-size", "-tp", type=int, default=8)'],
     {"tensor_parallel_size": ("--tensor-parallel-size", 8)}),
    (['p.add_argument("-t", "--tp", default="4", type=int)'], {"tp": ("--tp", "4")}),
    (['p.add_argument("--tp", dest="tensor", default=2)'], {"tensor": ("--tp", 2)}),
    (['p.add_argument("-m", default="Qwen/Qwen3-8B")'], {"m": ("-m", "Qwen/Qwen3-8B")}),
    (['p.add_argument("--eager", action="store_true")', 'p.add_argument("--no-log", action="store_false")'],
     {"eager": ("--eager", False), "no_log": ("--no-log", True)}),
    # no default kvguard takes: none given, None, required, a float made from a string, two that disagree
    (['p.add_argument("--tp", type=int)'], {"tp": ("--tp", None)}),
    (['p.add_argument("--tp", default=None)'], {"tp": ("--tp", None)}),
    (['p.add_argument("--tp", default=8, required=True)'], {"tp": ("--tp", None)}),
    (['p.add_argument("--util", type=float, default="0.9")'], {"util": ("--util", None)}),
    (['a.add_argument("--tp", default=2)', 'b.add_argument("--tp", default=4)'], {"tp": ("--tp", None)}),
    (['a.add_argument("--tp", default=2)', 'b.add_argument("--tp", default=2)'], {"tp": ("--tp", 2)}),
    # set_defaults wins; a positional argument and **kwargs are not read
    (['p.add_argument("--tp", default=2)', 'p.set_defaults(tp=4)'], {"tp": ("--tp", 4)}),
    (['p.add_argument("model", default="m")', 'p.add_argument(*FLAGS, default=1)',
      'p.add_argument("--x", **EXTRA)'], {}),
])
def test_options_and_their_defaults(lines, expected):
    assert _defaults("import argparse\np = argparse.ArgumentParser()\n" + "\n".join(lines)) == expected


def test_a_script_that_does_not_import_argparse_defines_no_options():
    assert _defaults('p.add_argument("--tp", default=8)') == {}


def test_the_names_that_hold_parsed_options():
    source = """
import argparse
def parse():
    parser = argparse.ArgumentParser()
    return parser.parse_args()
def launch(config, other):
    pass
def deeper(ns):
    launch(ns, None)
args = parse()
known, rest = argparse.ArgumentParser().parse_known_args()
first = argparse.ArgumentParser().parse_known_args()[0]
deeper(args)
plain = dict()
"""
    assert namespace_names(ast.parse(source)) == {"args", "known", "first", "ns", "config"}


def _findings(capsys, *extra: str) -> tuple[int, list[tuple]]:
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", *extra,
                  os.path.join(DEPLOY, "python/options.py")])
    return status, [(f["line"], f["status"], f["command"].split(" serve ")[-1], f["notes"])
                    for f in json.loads(capsys.readouterr().out)["findings"]]


def test_a_launch_made_of_the_script_s_options_is_checked_at_their_defaults(capsys):
    status, found = _findings(capsys)
    assert status == EXIT_REFUSE
    assert found == [
        (19, "refused", "Qwen/Qwen3-32B -tp 3 -pp 1", [
            "the script's option --model is taken at its default, Qwen/Qwen3-32B (`--set args_model=…` checks another)",
            "the script's option --tensor-parallel-size is taken at its default, 3 "
            "(`--set args_tensor_parallel_size=…` checks another)",
            "the script's option --pp is taken at its default, 1 (`--set args_pipeline=…` checks another)"]),
        (23, "accepted", "Qwen/Qwen3-32B --port '${opts_port}'", [
            "the script's option --model is taken at its default, Qwen/Qwen3-32B (`--set opts_model=…` checks another)"]),
        (27, "undecidable", "Qwen/Qwen3-32B -tp 4 --max-model-len '${args_max_len}'", [
            "the script's option --model is taken at its default, Qwen/Qwen3-32B (`--set args_model=…` checks another)"]),
    ]


def test_set_gives_an_option_another_value(capsys):
    status, found = _findings(capsys, "--set", "args_tensor_parallel_size=8", "--set", "args_max_len=1000000")
    assert status == EXIT_REFUSE
    assert [(line, state, command) for line, state, command, _ in found] == [
        (19, "accepted", "Qwen/Qwen3-32B -tp 8 -pp 1"),
        (23, "accepted", "Qwen/Qwen3-32B --port '${opts_port}'"),
        (27, "refused", "Qwen/Qwen3-32B -tp 4 --max-model-len 1000000")]
    assert not any("--tensor-parallel-size" in note for note in found[0][3])


def test_an_option_without_a_default_keeps_the_launch_undecidable(capsys):
    status, found = _findings(capsys, "--set", "args_tensor_parallel_size=8")
    assert status == EXIT_UNDECIDED
    assert [state for _, state, _, _ in found] == ["accepted", "accepted", "undecidable"]
