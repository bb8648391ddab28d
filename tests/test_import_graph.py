"""kvguard's modules import each other without cycles (issue 11 item 9): every module imports, and
the graph of the imports a module runs when it is loaded (module level, not under
``TYPE_CHECKING``; imports inside functions run on first use and are left out) has no cycle."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kvguard"


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _load_time_imports(tree: ast.Module) -> list[ast.stmt]:
    """The import statements run when the module loads: module level, in if/try/with blocks, but
    not under ``if TYPE_CHECKING:`` nor inside a function or class body."""
    found: list[ast.stmt] = []

    def walk(body):
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                test = node.test
                if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
                        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
                    walk(node.orelse)
                    continue
                walk(node.body)
                walk(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                    walk(block)
            elif isinstance(node, ast.With):
                walk(node.body)

    walk(tree.body)
    return found


def edges(module: str, path: Path, source: str | None = None) -> set[str]:
    """The kvguard modules ``module`` imports when it loads."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in _load_time_imports(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in MODULES)
            continue
        if node.level:
            base = package.split(".")
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if not target.startswith("kvguard"):
            continue
        for alias in node.names:   # `from . import sub` imports the submodule; `from .m import f` imports m
            sub = f"{target}.{alias.name}"
            out.add(sub if sub in MODULES else target)
    out.discard(module)
    return {m for m in out if m in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


_IMPORT_EACH = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m == "kvguard" or m.startswith("kvguard.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(failed))
"""


def test_every_module_imports_first_in_a_fresh_interpreter():
    """Each module imported before any other kvguard module (as `python -c "import kvguard.x"` does),
    so an import that works only after another module has loaded shows."""
    names = sorted(n for n in MODULES if n != "kvguard.__main__")   # importing it runs the command line
    assert len(names) > 40
    out = subprocess.run([sys.executable, "-c", _IMPORT_EACH, json.dumps(names)], capture_output=True, text=True,
                         check=True)
    failed = json.loads(out.stdout)
    assert failed == {}, failed


def test_the_import_graph_has_no_cycles():
    graph = {name: edges(name, path) for name, path in MODULES.items()}
    assert sum(map(len, graph.values())) > 50     # the walk finds the imports
    assert cycles(graph) == []


def test_the_graph_sees_relative_imports_and_leaves_out_lazy_and_type_checking_ones():
    source = ("from typing import TYPE_CHECKING\n"
              "from ..kv import kvsize\n"
              "from ..errors import InputError\n"
              "from . import economics as e\n"
              "if TYPE_CHECKING:\n"
              "    from .plan import PlanReport\n"
              "def f():\n"
              "    from ..rules.check import check\n")
    assert edges("kvguard.kv.capacity", PACKAGE / "kv" / "capacity.py", source) == {
        "kvguard.kv.kvsize", "kvguard.errors", "kvguard.kv.economics"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
