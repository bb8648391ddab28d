"""kvguard.scan is a package with one module per kind of file, and the reasons a launch is
undecidable are exception types, not matches on message text (issue 11 item 11)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import kvguard
from kvguard.errors import InputError, ModelNotFound, Undecidable, UnsupportedVersion
from kvguard.launch.resolve import resolve_model
from kvguard.scan import Launch, check_launch, find_launches
from kvguard.scan.undecidable import (
    BadArguments,
    NoRelease,
    Placeholder,
    UndecidableLaunch,
    UnresolvedVariable,
    reason_kind_of,
)
from kvguard.versions import resolve

SCAN = Path(kvguard.__file__).resolve().parent / "scan"

#: kind of file -> (module, the function that reads it)
KINDS = {
    "shell": ("shell", "shell_launches"),
    "markdown": ("markdown", "markdown_launches"),
    "dockerfile": ("dockerfile", "dockerfile_launches"),
    "yaml": ("yamlfiles", "yaml_text_launches"),
    "containers (kubernetes, compose)": ("containers", "container_launches"),
    "kubernetes": ("kubernetes", "kubernetes_command"),
    "compose": ("compose", "compose_command"),
    "helm values": ("helm", "helm_launches"),
    "deployers' charts": ("charts", "production_stack_launches"),
    "vllm recipes": ("recipes", "recipe_launches"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_one_module_per_kind_of_file(kind):
    module_name, reader = KINDS[kind]
    module = importlib.import_module(f"kvguard.scan.{module_name}")
    assert reader in module.__all__ and callable(getattr(module, reader))


def test_the_package_entry_is_small():
    """The package's __init__ documents and re-exports; the code lives in the modules."""
    source = (SCAN / "__init__.py").read_text(encoding="utf-8")
    assert "def " not in source and "class " not in source


def test_an_unknown_model_is_its_own_exception_type():
    with pytest.raises(ModelNotFound) as info:
        resolve_model("no-such-org/no-such-model", env={"HF_HUB_CACHE": "/nonexistent"})
    assert isinstance(info.value, Undecidable) and info.value.model == "no-such-org/no-such-model"


@pytest.mark.parametrize("exc, kind", [
    (ModelNotFound("whatever the words", model="m"), "unknown-model"),
    # the words of the unknown-model message on another exception do not make it one
    (Undecidable("cannot find a config.json for 'm'"), "undecidable"),
    (InputError("unreadable --config", source="x.yaml"), "bad-arguments"),
    (UnsupportedVersion("9.9"), "UnsupportedVersion"),
    (UnresolvedVariable(["TP"]), "unresolved-variable"),
    (Placeholder(["<MODEL>"]), "placeholder"),
    (BadArguments("input nested too deeply"), "bad-arguments"),
    (NoRelease("vllm/vllm-openai:v9.9 names no release kvguard knows"), "unknown-version"),
])
def test_the_reason_kind_follows_the_exception_type(exc, kind):
    assert reason_kind_of(exc) == kind
    launch = Launch("deploy.sh", 3, ["vllm", "serve", "m", "-tp", "8"], "shell")

    def build(release, tokens):
        raise exc

    finding = check_launch(launch, resolve("0.28.0"), build)
    assert (finding.status, finding.reason_kind) == ("undecidable", kind)
    assert finding.reason == (exc.reason if isinstance(exc, UndecidableLaunch) else str(exc))


def test_undecidable_launches_carry_their_kind_and_names(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3-32B -tp $TP\nvllm serve <MODEL> -tp 8\n", encoding="utf-8")
    launches, _, _ = find_launches([str(script)])
    findings = [check_launch(launch, resolve("0.28.0"), lambda r, t: pytest.fail("not checked")) for launch in launches]
    assert [(f.reason_kind, f.reason) for f in findings] == [
        ("unresolved-variable", "unresolved variable $TP (give it with --set NAME=VALUE)"),
        ("placeholder", "placeholder <MODEL> in the launch"),
    ]


def test_no_scan_module_matches_an_exception_message():
    for path in sorted(SCAN.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert "cannot find a config.json" not in source, path.name
        assert "in str(exc)" not in source, path.name
    # the refusal of vLLM's parser is read by what it refused (ArgparseRefusal.words), not its text
    check = (SCAN / "check.py").read_text(encoding="utf-8")
    assert "str(exc)" not in check and ".message" not in check


@pytest.mark.parametrize("argv, words", [
    ("vllm serve m -tp eight", ("eight",)),                                      # a bad int value
    ("vllm serve m --kv-cache-dtype fp9", ("fp9",)),                             # a bad choice
    ("vllm serve m --no-such-flag 3 extra", ("--no-such-flag", "3", "extra")),  # unrecognized arguments
    ("vllm serve m --enable", ("--enable",)),                                    # an ambiguous prefix
    ("vllm serve m -tp", ()),                                                    # a missing value: no word
    ("vllm serve m --config cfg.json", ("json",)),                               # FlexibleArgumentParser
])
def test_an_argparse_refusal_carries_what_it_refused(argv, words):
    from kvguard.errors import ArgparseRefusal
    from kvguard.launch.argv import parse_serve

    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(argv, resolve("0.28.0"))
    assert info.value.words == words


def _refusing(monkeypatch, words, message):
    from kvguard.errors import ArgparseRefusal
    from kvguard.launch import argv

    def refuse(tokens, release):
        raise ArgparseRefusal("SystemExit", message, vllm_version="0.28.0", check="argparse", words=words)

    monkeypatch.setattr(argv, "parse_serve", refuse)
    launch = Launch("deploy.sh", 3, ["vllm", "serve", "m", "$TP"], "shell", unresolved=("TP",))
    return check_launch(launch, resolve("0.28.0"), lambda r, t: pytest.fail("not checked"))


def test_a_refusal_is_about_a_variable_by_its_words_not_its_message(monkeypatch):
    """scan tells "unresolved-variable" from "bad-arguments" by what the refusal refused."""
    finding = _refusing(monkeypatch, ("$TP",), "vllm serve: error: argument -tp: invalid int value")
    assert (finding.reason_kind, finding.reason) == (
        "unresolved-variable", "unresolved variable $TP (give it with --set NAME=VALUE)")
    finding = _refusing(monkeypatch, ("eight",), "vllm serve: error: a message that quotes '$TP'")
    assert finding.reason_kind == "bad-arguments"
