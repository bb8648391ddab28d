"""The command-line options a Python launch script defines with :mod:`argparse`, and their defaults: what
``args.tp`` holds when the script is run without arguments.

Read from the script's syntax tree (never run), as :mod:`argparse` (Python's standard library) fills its
namespace: an option's ``dest`` is its ``dest=`` keyword, else its first long option string (``--tensor-parallel
-size`` -> ``tensor_parallel_size``), else its first short one; its default is ``default=``, ``False`` for
``store_true`` and ``True`` for ``store_false``, replaced by a ``set_defaults(name=...)`` of the parser.  An
option without a default, a required one, a positional one, and a name two definitions disagree on have no
default here: ``args.x`` stays unresolved.

A namespace is a name assigned the result of ``parse_args()`` / ``parse_known_args()`` (directly, through a
module-level function that calls one, or unpacked as the first of ``args, rest = ...``), or a parameter of a
module-level function that a call in the script gives such a name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

__all__ = ["ScriptOption", "script_options", "namespace_names"]

_PARSE_CALLS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"})


@dataclass(frozen=True)
class ScriptOption:
    """One option of the script's own command line."""

    flag: str                       # as the script's user writes it: ``--tp``
    default: Optional[ast.AST]      # None: no default kvguard takes (required, none given, ambiguous)


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def _same(one: Optional[ast.AST], other: Optional[ast.AST]) -> bool:
    if one is None or other is None:
        return one is other
    return ast.dump(one) == ast.dump(other)


def _option(call: ast.Call) -> Optional[tuple[str, str, Optional[ast.AST]]]:
    """``(dest, flag, default)`` of one ``add_argument`` call, or None when it is not one kvguard reads."""
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not flags or len(flags) != len(call.args):
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if any(k.arg is None for k in call.keywords):
        return None                 # **kwargs: anything could be in it
    if not flags[0].startswith("-"):
        return None                 # a positional argument: the script's user gives it
    dest_node = keywords.get("dest")
    if dest_node is not None:
        if not (isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str)):
            return None
        dest = dest_node.value
    else:
        long = [f for f in flags if f.startswith("--")]
        dest = (long[0] if long else flags[0]).lstrip("-").replace("-", "_")
    flag = next((f for f in flags if f.startswith("--")), flags[0])
    action = keywords.get("action")
    action_name = action.value if isinstance(action, ast.Constant) else None
    required = keywords.get("required")
    if required is not None and not (isinstance(required, ast.Constant) and required.value is False):
        return dest, flag, None
    if "default" in keywords:
        default: Optional[ast.AST] = keywords["default"]
        kind = keywords.get("type")
        # argparse converts a string default with ``type``; only ``int`` of digits reads back as written
        if isinstance(default, ast.Constant) and isinstance(default.value, str) and kind is not None \
                and not (isinstance(kind, ast.Name) and kind.id == "int" and default.value.strip().isdigit()):
            default = None
    elif action_name == "store_true":
        default = ast.Constant(False)
    elif action_name == "store_false":
        default = ast.Constant(True)
    else:
        default = None
    if default is not None and _constant(default) and getattr(default, "value", None) is None:
        default = None
    return dest, flag, default


def script_options(tree: ast.Module) -> dict[str, ScriptOption]:
    """The options the script's parsers define, by ``dest``; empty when the script does not import argparse."""
    if not any(isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names)
               or isinstance(node, ast.ImportFrom) and node.module == "argparse" for node in ast.walk(tree)):
        return {}
    found: dict[str, list[tuple[str, Optional[ast.AST]]]] = {}
    overridden: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr == "add_argument":
            option = _option(node)
            if option is not None:
                found.setdefault(option[0], []).append(option[1:])
        elif node.func.attr == "set_defaults":
            for keyword in node.keywords:
                if keyword.arg is not None:
                    overridden.setdefault(keyword.arg, []).append(keyword.value)
    out: dict[str, ScriptOption] = {}
    for dest, definitions in found.items():
        flag, default = definitions[0]
        if any(not _same(other, default) for _, other in definitions[1:]):
            default = None          # defined twice (sub-commands, parent parsers) with different defaults
        if dest in overridden:
            default = overridden[dest][0] if len(overridden[dest]) == 1 else None
        out[dest] = ScriptOption(flag, default)
    return out


def _calls_parse(node: ast.AST) -> bool:
    """Whether ``node`` is ``….parse_args(...)`` (or another parse call), possibly indexed (``[0]``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PARSE_CALLS


def namespace_names(tree: ast.Module) -> set[str]:
    """The names that hold the script's parsed options (see the module's docstring)."""
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    parsing = {name for name, function in functions.items()
               if any(_calls_parse(node) for node in ast.walk(function))}
    names: set[str] = set()

    def gives_namespace(value: ast.AST) -> bool:
        if isinstance(value, ast.Subscript):
            value = value.value
        return _calls_parse(value) or isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in parsing

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and gives_namespace(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, (ast.Tuple, ast.List)) and target.elts \
                        and isinstance(target.elts[0], ast.Name):
                    names.add(target.elts[0].id)
    for _ in range(3):              # a namespace handed down through up to three calls
        more = set()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions):
                continue
            params = functions[node.func.id].args
            positional = [a.arg for a in params.posonlyargs + params.args]
            given = list(zip(positional, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg]
            for param, value in given:
                if isinstance(value, ast.Name) and value.id in names or gives_namespace(value):
                    more.add(param)
        if more <= names:
            break
        names |= more
    return names
