"""No kvguard module uses another module's private names (house rule: a module's `_names` are its
own; what another module needs is a public function named for what it does)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kvguard"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported_module(path: Path, node: ast.ImportFrom) -> list[str]:
    if node.level == 0:
        return (node.module or "").split(".")
    here = _module_of(path)
    package = here if path.name == "__init__.py" else here[:-1]
    base = package[:len(package) - (node.level - 1)]
    return base + (node.module.split(".") if node.module else [])


def private_uses(path: Path, source: str | None = None) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _imported_module(path, node)
            if module[:1] != ["kvguard"]:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: from "
                                 f"{'.'.join(module)} import {alias.name}")
                else:
                    aliases[alias.asname or alias.name] = module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kvguard":
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and _private(node.attr)):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 20
    found = [use for path in modules for use in private_uses(path)]
    assert found == [], "\n".join(found)


def test_the_rule_reports_private_imports_and_attributes_and_allows_own_submodules():
    source = ("from ..launch.argv import _classify, parse_serve\n"
              "from ..launch import argv\n"
              "from ..hfconfig import _interp\n"
              "argv._split('x')\n"
              "argv.split_command('x')\n")
    assert private_uses(PACKAGE / "kv" / "suggestions.py", source) == [
        "kvguard/kv/suggestions.py:1: from kvguard.launch.argv import _classify",
        "kvguard/kv/suggestions.py:3: from kvguard.hfconfig import _interp",
        "kvguard/kv/suggestions.py:4: argv._split",
    ]
    # relative imports are resolved against the importing module's package
    assert private_uses(PACKAGE / "facts" / "steps.py", "from .transformers4 import _class_property\n") == [
        "kvguard/facts/steps.py:1: from kvguard.facts.transformers4 import _class_property"]
