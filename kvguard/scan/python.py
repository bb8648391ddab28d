"""Python launch scripts (``*.py``): the ``vllm serve`` a script starts through ``subprocess``, ``os`` or
``asyncio``.

The script is parsed with the standard library's :mod:`ast`, never run.  What is read:

- an argument list (``subprocess.run / Popen / call / check_call / check_output([...])``, ``os.execvp(file,
  [...])`` and the other ``os.exec*`` / ``os.spawn*`` forms, ``asyncio.create_subprocess_exec(*words)``): each item
  is one word, no shell runs it;
- command text (``os.system``, ``os.popen``, ``asyncio.create_subprocess_shell``, any of the above with
  ``shell=True``, ``shlex.split(text)``): read as shell text; ``text.split()``: the words blanks part;
- a word's value: a string or number literal, a name holding one (``TP = 8``; see below), an
  f-string (format specs of literals too), ``"...".format(...)``, ``"... %s" % (...)`` or ``+`` of such, ``str(...)``, ``sys.executable`` (``python``),
  ``os.environ["X"]`` / ``os.environ.get("X", default)`` / ``os.getenv`` (the shell's ``${X}`` /
  ``${X:-default}``); ``+`` adds numbers (``8000 + i``; ``-`` and ``*`` of numbers too) and joins strings, as Python does, and is unresolved
  when a side's type is not known; a name assigned an environment read holds what it read there (the value
  the script had written, or unresolved when the script writes that variable and it may differ where used);
- an argument list: a list or tuple literal, ``+`` of lists, ``*items``, ``list(...)``, a name as the statements
  of its function that run before the call build it (assignments, ``+=``, ``.append``, ``.extend``, ``.insert``,
  ``.pop``, ``.remove``), else as the script assigns it once; a change the replay cannot follow ends the list in
  an unresolved word;
- a name holds what the statements of its function (or the module) that run before the read leave it, in the
  order Python runs them: a later assignment replaces an earlier one, one after the read does not count; an ``if``
  kvguard decides is followed through the branch taken, one it does not decide through each branch (a name the
  branches leave different is unresolved after it, as the shell reader leaves a variable; a list keeps the items
  every branch starts it with); a ``with`` body runs, a ``for`` over literals runs its body once per value; a
  ``try`` runs its body whole then its ``else``, or up to any statement of it that may raise then any handler,
  then its ``finally``; a module-level function that declares the name ``global`` (or changes its list) runs its
  body at each call statement of it, when it is called nowhere else (:meth:`_Script.followed_changers`); a change
  in a ``while`` or another loop (its ``else`` too), or of another kind leaves the name unresolved, as does a
  ``global`` for it kvguard does not follow; a function reads a module's name as it is where a module-level call
  of it runs;
- ``" ".join(words)`` (text the shell splits again) and ``shlex.join(words)`` (each word quoted) as command text;
  with ``shell=True`` a list's first item is the command;
- ``a if test else b`` (a word or a list) when kvguard decides the test (as for ``if`` below);
- an argument list kvguard cannot read that is made from one naming vLLM (``cmd[:3]``, ``build_cmd()`` of a
  module-level function returning a list, a comprehension over ``cmd``): that list's words, then an
  unresolved item, at the call;
- a list literal that starts a launch but that no call above reads (returned by a helper, handed to a wrapper
  kvguard does not know): a launch on the line it is written;
- a call inside ``for`` loops over literals (a list or tuple of literals or of tuples of them, ``range`` of
  integers): one launch per combination of the loops' values, labelled with it (:mod:`kvguard.scan.matrices`);
- a call inside a module-level function the script calls by name: one launch per call of it, each parameter as
  that call gives it (read where the call is, in its own loops) or as the definition defaults it;
- ``if`` / ``elif`` / ``else`` tests kvguard decides (``==``, ``!=``, ``<`` …, ``in``, ``is None``, ``not``,
  ``and`` / ``or`` and the truth of values it knows, per call of a function and per loop value): a call in a
  branch not taken starts nothing, nor does one after a ``continue`` / ``break`` / ``return`` / ``raise``, or a
  call that ends the script (``sys.exit``, ``os._exit``, ``os.exec*``), that surely runs, nor a loop's pass after
  one whose ``break`` surely ran, nor a function's launch for a call of it that does not run; a test kvguard
  does not decide reads every branch (each launch one the script may start);
- the modules as the script imports them (``import subprocess as sp``, ``from subprocess import Popen``);
- ``env={...}`` (a dict literal; ``**os.environ`` keeps the inherited environment) and the script's changes to
  ``os.environ`` before the call (``os.environ["X"] = value``, ``del``, ``.pop``, ``.setdefault``, ``.update``,
  ``.clear``), in the order they run: the launch's environment (a change in a branch not taken is not made; one
  that may or may not have run, in a loop, another function or an undecided branch, leaves ``X`` unknown; one
  kvguard cannot follow (``os.environ.update(loaded)``, ``os.putenv``, ``env=`` it cannot read) leaves what the
  launch reads from the environment unknown); the script's own ``os.environ`` reads read the script's
  environment, so one the launch's ``env=`` changes is unknown;
- a list handed on where it may change under another name (``alias = cmd``, ``add_flags(cmd)``, put in a
  container, returned): what it holds, then unresolved items;
- the script's own options, ``args.tp`` of an argparse parser (:mod:`kvguard.scan.pyoptions`): the shell's
  ``${args_tp:-8}`` for the option's default, noted on the launch.

Anything else is an unresolved word, named after its expression (``args.tp`` -> ``$args_tp``), so that the
launch is undecidable rather than guessed; ``--set args_tp=8`` gives it a value (an environment variable of that
name in the launch's environment does not).
"""

from __future__ import annotations

import ast
import re
import string
import sys
from typing import Callable, Optional, TypeGuard, TypeVar

from .matrices import Collector
from .pyoptions import ScriptOption, namespace_names, script_options
from .result import Launch
from .shell import one_word, shell_launches
from .variables import Variables

__all__ = ["PythonUnreadable", "is_python_script", "python_launches"]


_T = TypeVar("_T")


class PythonUnreadable(ValueError):
    """A script that names vLLM but is not valid Python (its launches cannot be read)."""


#: calls whose first argument (or ``args=``) is the program's argument list
_ARGV_CALLS = frozenset({"subprocess.run", "subprocess.Popen", "subprocess.call", "subprocess.check_call",
                         "subprocess.check_output"})
#: ``os.exec*`` / ``os.spawn*`` with an argument list: the position of that list among the call's arguments
_OS_ARGV_CALLS = {"os.execv": 1, "os.execve": 1, "os.execvp": 1, "os.execvpe": 1,
                  "os.spawnv": 2, "os.spawnve": 2, "os.spawnvp": 2, "os.spawnvpe": 2}
#: calls whose first argument is shell text
_TEXT_CALLS = frozenset({"os.system", "os.popen", "asyncio.create_subprocess_shell"})
#: calls whose positional arguments are the words
_VARARG_CALLS = frozenset({"asyncio.create_subprocess_exec", "os.execl", "os.execlp", "os.execle", "os.execlpe"})

_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_]+")
#: which parser read the script (named in the reason a script is skipped)
_PARSER = f" (parsed by Python {sys.version_info[0]}.{sys.version_info[1]})"
#: a literal ``$`` while a value is built (``${NAME}`` in it is a reference this module wrote)
_DOLLAR = "\x00"
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")


def is_python_script(low_name: str, head: str) -> bool:
    if low_name.endswith(".py"):
        return True
    first = head.splitlines()[0] if head else ""
    return first.startswith("#!") and re.search(r"\bpython[0-9.]*\b", first) is not None


def _dotted(node: ast.AST, imports: Optional[dict[str, str]] = None) -> Optional[str]:
    """``a.b.c`` for a name or attribute chain, its first name read through the script's imports."""
    if isinstance(node, ast.Name):
        return (imports or {}).get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, imports)
        return f"{owner}.{node.attr}" if owner else None
    return None


#: the modules whose functions start programs or name them
_MODULES = frozenset({"subprocess", "os", "asyncio", "shlex", "sys", "os.path"})


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local names the script binds to those modules and their functions (``sp`` -> ``subprocess``, ``Popen`` ->
    ``subprocess.Popen``)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _MODULES and alias.asname:
                    out[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module in _MODULES and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


class _Given(ast.expr):
    """A value already read where it was given (a call site's argument, in :meth:`_Script.frames`): ``text`` as
    :meth:`_Script.text` writes it, ``kind`` what Python type it has (``"text"``, ``"number"`` with ``number`` its
    value, or None: not known), so that ``+`` on it adds or joins as Python would."""

    def __init__(self, text: str, kind: Optional[str] = None, number: "Optional[int | float]" = None,
                 literal: object = None, known: bool = False):
        super().__init__()
        self.text = text
        self.kind = kind
        self.number = number
        #: the argument's own value, when ``known`` (a literal, or a name the script assigns one)
        self.literal = literal
        self.known = known


class _Script:
    """What the script assigns: names given one literal value (or one list) and never changed, the lists it
    changes, and ``os.environ`` entries by line."""

    def __init__(self, tree: ast.Module):
        self.imports = _imports(tree)
        assigned: dict[str, list[ast.AST]] = {}
        self.changed: set[str] = set()
        #: a name's first list (or tuple) value, kept when the script changes the list later
        self.first_list: dict[str, ast.AST] = {}
        #: the script's changes to ``os.environ``: (line, how, name, value, the node that makes it), ``how`` one
        #: of ``set``, ``unset``, ``setdefault``, ``unknown`` (the name's value kvguard cannot know), ``clear``
        #: and ``any`` (a change kvguard cannot follow: any variable may be changed)
        self.environ: list[tuple[int, str, str, Optional[ast.AST], ast.AST]] = []
        #: how often each name is bound anywhere (loop targets, `with … as`, `:=`, parameters, imports, …)
        bound: dict[str, int] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    self._target(target, node, assigned)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) \
                    and node.func.attr in _LIST_CHANGES:
                self.changed.add(node.func.value.id)
            self._environment_change(node)
            names: list[str] = []
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names = [node.id]
            elif isinstance(node, ast.arg):
                names = [node.arg]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names = list(node.names) * 2
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names = [node.name]
            for name in names:
                bound[name] = bound.get(name, 0) + 1
        self.escaped = self._escaped(tree)
        self.values = {name: nodes[0] for name, nodes in assigned.items()
                       if len(nodes) == 1 and bound.get(name, 0) == 1 and name not in self.changed}
        self._tree = tree
        self._bound = bound
        self._callers: Optional[tuple[dict[str, int], list[ast.Call]]] = None
        self._places: Optional[tuple[dict[int, tuple[list[ast.stmt], ast.AST]], dict[int, ast.stmt]]] = None
        self._options: Optional[tuple[dict[str, ScriptOption], set[str]]] = None
        #: the reads whose value is being worked out (a name read in its own way there is not followed)
        self._replaying: set[tuple[str, int]] = set()
        #: names made to read a global where a call runs (:meth:`_globals_at`)
        self._synthetic: list[ast.Name] = []
        self._worked_out: dict[tuple[str, int, tuple[tuple[str, int], ...]], tuple[object, list[ast.AST]]] = {}
        #: the environment variables the script's own code reads (``os.environ.get("PP")``)
        self.environment_reads: set[str] = set()
        #: the names unresolved expressions are written as (``args.tp`` -> ``args_tp``)
        self.unknowns: set[str] = set()
        #: the list (and tuple) literals an argument list was read from
        self.read: set[int] = set()
        #: the script's own options read at their defaults: the reference written for each -> (flag, default)
        self.defaults_taken: dict[str, tuple[str, str]] = {}
        self._changers: dict[str, Optional[dict[str, ast.FunctionDef]]] = {}

    def _target(self, target: ast.AST, node: ast.AST, assigned: dict[str, list[ast.AST]]) -> None:
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append(value if value is not None else node)
            if isinstance(value, (ast.List, ast.Tuple)):
                self.first_list.setdefault(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                if isinstance(item, ast.Name):
                    assigned.setdefault(item.id, []).extend([node, node])   # unpacked: not followed
        elif isinstance(target, ast.Subscript) and self.dotted(target.value) == "os.environ" and value is not None:
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self.environ.append((getattr(node, "lineno", 0), "set", key.value, value, node))
            else:
                self.environ.append((getattr(node, "lineno", 0), "any", "", None, node))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.changed.add(target.value.id)

    def dotted(self, node: ast.AST) -> Optional[str]:
        return _dotted(node, self.imports)

    def _escaped(self, tree: ast.Module) -> set[str]:
        """The names whose value the script hands on where it may be changed under another name: assigned to
        another name (``alias = cmd``), put in a container, returned, or passed to a call that is not one that
        only reads it (``add_flags(cmd)``).  A list held by such a name may change without the name's own
        statements saying so."""
        out: set[str] = set()
        for node in ast.walk(tree):
            handed: list[ast.AST] = []
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return, ast.Yield, ast.YieldFrom)):
                handed = [node.value] if node.value is not None else []
            elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                handed = list(node.elts)
            elif isinstance(node, ast.Dict):
                handed = list(node.values)
            elif isinstance(node, ast.Call) and not self._only_reads(node):
                handed = [*node.args, *(keyword.value for keyword in node.keywords)]
            out.update(item.id for item in handed if isinstance(item, ast.Name))
        return out

    def _only_reads(self, call: ast.Call) -> bool:
        """Whether ``call`` reads its arguments without keeping or changing them (a launch, ``len``, ``" ".join``,
        ``print``, a logger's ``info``, a list's own ``extend`` / ``+`` copy …)."""
        function = self.dotted(call.func)
        if function in _ARGV_CALLS or function in _OS_ARGV_CALLS or function in _TEXT_CALLS \
                or function in _VARARG_CALLS or function in _READERS:
            return True
        return isinstance(call.func, ast.Attribute) and call.func.attr in _READING_METHODS

    def _environment_change(self, node: ast.AST) -> None:
        """Note ``node`` in :attr:`environ` when it changes ``os.environ`` other than by ``os.environ[X] = v``
        (read by :meth:`_target`): ``del``, ``.pop``, ``.setdefault``, ``.update``, ``.clear``, ``|=``, and
        ``os.putenv`` / ``os.unsetenv`` (which change the environment programs are started with)."""
        line = getattr(node, "lineno", 0)

        def key(item: Optional[ast.AST]) -> Optional[str]:
            return item.value if isinstance(item, ast.Constant) and isinstance(item.value, str) else None

        if isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and self.dotted(target.value) == "os.environ":
                    name = key(target.slice)
                    self.environ.append((line, "unset", name, None, node) if name else (line, "any", "", None, node))
        elif isinstance(node, ast.AugAssign) and self.dotted(node.target) == "os.environ":
            self.environ.append((line, "any", "", None, node))
        elif isinstance(node, ast.Call):
            function = self.dotted(node.func)
            first = key(node.args[0]) if node.args else None
            if function in ("os.putenv", "os.unsetenv"):
                self.environ.append((line, "unknown", first, None, node) if first else (line, "any", "", None, node))
            elif function == "os.environ.pop" and first:
                self.environ.append((line, "unset", first, None, node))
            elif function == "os.environ.setdefault" and first and len(node.args) == 2:
                self.environ.append((line, "setdefault", first, node.args[1], node))
            elif function == "os.environ.clear" and not node.args:
                self.environ.append((line, "clear", "", None, node))
            elif function == "os.environ.update" and len(node.args) <= 1 and all(k.arg for k in node.keywords) and (
                    not node.args or isinstance(node.args[0], ast.Dict)
                    and all(key(entry) for entry in node.args[0].keys)):
                entries = list(zip(node.args[0].keys, node.args[0].values)) if node.args \
                    and isinstance(node.args[0], ast.Dict) else []
                for entry_key, entry_value in entries:
                    self.environ.append((line, "set", key(entry_key) or "", entry_value, node))
                for keyword in node.keywords:
                    self.environ.append((line, "set", keyword.arg or "", keyword.value, node))
            elif function is not None and function.startswith("os.environ.") and function.split(".")[-1] in (
                    "pop", "setdefault", "update", "clear", "popitem", "__setitem__", "__delitem__", "__ior__"):
                self.environ.append((line, "any", "", None, node))

    def _where(self) -> tuple[dict[int, tuple[list[ast.stmt], ast.AST]], dict[int, ast.stmt]]:
        """Each statement's body (the statement list holding it) with that body's owner, and each node's
        innermost statement; worked out once, when a list is first replayed."""
        if self._places is None:
            body_of: dict[int, tuple[list[ast.stmt], ast.AST]] = {}
            statement_of: dict[int, ast.stmt] = {}
            stack: list[tuple[ast.AST, Optional[ast.stmt]]] = [(self._tree, None)]
            while stack:
                node, statement = stack.pop()
                if isinstance(node, ast.stmt):
                    statement = node
                if statement is not None:
                    statement_of[id(node)] = statement
                for field in ("body", "orelse", "finalbody"):
                    statements = getattr(node, field, None)
                    if isinstance(statements, list):
                        for child in statements:
                            body_of[id(child)] = (statements, node)
                stack.extend((child, statement) for child in ast.iter_child_nodes(node))
            self._places = body_of, statement_of
        return self._places

    def followed_changers(self, name: str) -> Optional[dict[str, ast.FunctionDef]]:
        """The module-level functions that change the module's ``name`` (``global name`` and a binding, or a change
        of the list it holds) by their names, when kvguard can follow each where it runs: defined once, not
        decorated, no ``return`` / ``yield`` / ``await`` in it, and named nowhere but as the callee of a call
        statement of the module (directly, or in an ``if`` / ``with`` there; no ``*args`` / ``**kwargs``), so
        that its body runs at each such call and nowhere else.  None when another function (nested, a lambda, a
        method) may change the name, or one of these is named otherwise (handed on as a callback, called in a
        loop, another function, an expression)."""
        if name not in self._changers:
            self._changers[name] = self._find_changers(name)
        return self._changers[name]

    def _find_changers(self, name: str) -> Optional[dict[str, ast.FunctionDef]]:
        changers: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(self._tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if not _declared_elsewhere(node, self._tree, name, only=node):
                continue
            if not isinstance(node, ast.FunctionDef) or node not in self._tree.body or node.decorator_list \
                    or any(isinstance(inner, (ast.Nonlocal, ast.Return, ast.Yield, ast.YieldFrom, ast.Await))
                           for inner in _own_nodes(node)) or self._functions()[0].get(node.name) != 1:
                return None
            changers[node.name] = node
        if not changers:
            return changers
        placed = {id(statement.value.func) for statement in _module_statements(self._tree.body)
                  if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                  and isinstance(statement.value.func, ast.Name) and statement.value.func.id in changers
                  and not any(isinstance(arg, ast.Starred) for arg in statement.value.args)
                  and all(keyword.arg is not None for keyword in statement.value.keywords)}
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Name) and node.id in changers and id(node) not in placed:
                return None
        return changers

    def changer_call(self, statement: ast.stmt,
                     changers: dict[str, ast.FunctionDef]) -> Optional[tuple[ast.FunctionDef, dict[str, ast.AST]]]:
        """The function of ``changers`` a call statement runs, with its parameters as the call gives them (a
        default from the definition; one neither gives is left unbound), or None."""
        if not (changers and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Name) and statement.value.func.id in changers):
            return None
        call, function = statement.value, changers[statement.value.func.id]
        params = function.args
        positional = [a.arg for a in params.posonlyargs + params.args]
        given: dict[str, ast.AST] = dict(zip(positional[len(positional) - len(params.defaults):], params.defaults))
        given.update({a.arg: d for a, d in zip(params.kwonlyargs, params.kw_defaults) if d is not None})
        given.update(zip(positional, call.args))
        given.update({k.arg: k.value for k in call.keywords if k.arg is not None})
        return function, {parameter: self._given(value) for parameter, value in given.items()}

    # -- values ------------------------------------------------------------------------------------
    def text(self, node: ast.AST, depth: int = 0) -> Optional[str]:
        """The string a value holds, written for the shell reader (``${X}`` for the environment), or None."""
        if depth > 20:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
            return str(node.value).replace("$", _DOLLAR)
        if isinstance(node, _Given):
            return node.text
        if isinstance(node, ast.Name):
            bound = self.value_of(node)
            return self._environment_then(self.text(bound, depth + 1), bound) if bound is not None else None
        if isinstance(node, ast.IfExp):     # `a if test else b`, when kvguard decides the test
            holds = self.condition(node.test)
            return None if holds is None else self.text(node.body if holds else node.orelse, depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    if part.format_spec is not None or part.conversion not in (-1, ord("s")):
                        piece = self._formatted_value(part, depth)
                        if piece is None:
                            return None
                        parts.append(piece)
                        continue
                    part = part.value
                piece = self.text(part, depth + 1)
                if piece is None:
                    return None
                parts.append(piece)
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            number = self.number(node)
            if number is not None:                  # numbers add (`8000 + i`), they are not joined
                return str(number)
            if not (self.is_text(node.left) and self.is_text(node.right)):
                return None                         # a number and text raise; a value of unknown type: unknown
            left, right = self.text(node.left, depth + 1), self.text(node.right, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Mult)):
            number = self.number(node)              # `TP * 2` of numbers; `"a" * 2` is not followed
            return str(number) if number is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if not self.is_text(node.left):
                return None                         # `a % b` of numbers is their remainder
            return self._percent_formatted(node, lambda value: self.text(value, depth + 1), depth)
        if isinstance(node, ast.Call) and _dotted(node.func) == "str" and len(node.args) == 1 and not node.keywords:
            return self.text(node.args[0], depth + 1)
        if _is_format(node):
            return self._formatted(node, lambda value: self.text(value, depth + 1), depth)
        if self.dotted(node) == "sys.executable":
            return "python"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self._option_default(node, depth)
        return self._environment_reference(node)

    def _unknown(self, node: ast.AST) -> str:
        """The variable name an expression kvguard cannot evaluate is written as (:func:`_placeholder`), kept in
        :attr:`unknowns` so that a launch's environment holding that name does not give it a value."""
        name = _placeholder(node)
        self.unknowns.add(name)
        return name

    def _environment_then(self, text: Optional[str], bound: ast.AST) -> Optional[str]:
        """A name's value as it was read where the script assigned it: ``X = os.environ.get("PP", "1")`` reads
        the environment there, not where ``X`` is used.  A variable the script writes into ``os.environ`` is
        replaced by the value it had at the assignment; one it may or may not have written there (or not yet:
        the launch's environment then differs from the one read) is written ``${PP_as_read}``, unresolved."""
        if text is None or isinstance(bound, _Given) or not self.environ:
            return text
        written = {name for _line, _how, name, _value, _node in self.environ}
        anything = any(how in ("clear", "any") for _line, how, _name, _value, _node in self.environ)
        then: Optional[dict[str, Optional[str]]] = None
        parts: list[str] = []
        last = 0
        for reference in _REFERENCE.finditer(text):
            name = reference.group(0)[2:-1].split(":-", 1)[0]
            if name not in written and not anything:
                continue
            if then is None:
                then = self.environment_at(bound)
            value = then.get(name)
            if value is None:   # a reference no environment holds: the launch is still found, undecidable
                unknown = name + "_as_read"
                self.unknowns.add(unknown)
                parts += [text[last:reference.start()], "${" + unknown + "}"]
            else:
                parts += [text[last:reference.start()], value.replace("$", _DOLLAR)]
            last = reference.end()
        return "".join(parts) + text[last:]

    def number(self, node: ast.AST, depth: int = 0) -> "Optional[int | float]":
        """The number a value surely holds (a numeric literal, a name the script assigns one, ``+`` / ``-`` /
        ``*`` of such), or None."""
        if depth > 20:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):   # True + 1 is 2, but str(True) is "True": not followed
            return node.value
        if isinstance(node, _Given):
            return node.number if node.kind == "number" else None
        if isinstance(node, ast.Name):
            bound = self.value_of(node)
            return self.number(bound, depth + 1) if bound is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = self.number(node.left, depth + 1), self.number(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Mult) and abs(left * right) > 10 ** 12:
                return None
            return left + right if isinstance(node.op, ast.Add) else \
                left - right if isinstance(node.op, ast.Sub) else left * right
        return None

    def is_text(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether a value is surely a string (so that ``+`` joins it)."""
        if depth > 20:
            return False
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, _Given):
            return node.kind == "text"
        if isinstance(node, ast.Name):
            bound = self.value_of(node)
            return bound is not None and self.is_text(bound, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self.is_text(node.left, depth + 1)
        if isinstance(node, ast.Call) and _dotted(node.func) == "str":
            return True
        if isinstance(node, ast.JoinedStr) or _is_format(node) or self.dotted(node) == "sys.executable":
            return True
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "os.environ":
            return True
        if isinstance(node, ast.Call) and self.dotted(node.func) in ("os.environ.get", "os.getenv") \
                and len(node.args) == 2:
            return self.is_text(node.args[1], depth + 1)
        return False

    def _option_default(self, node: ast.Attribute, depth: int) -> Optional[str]:
        """``args.tp`` of the script's parsed options: a reference to a variable named after it that defaults to
        the option's default (``${args_tp:-8}``: ``--set args_tp=4`` gives another), or None."""
        if self._options is None:
            self._options = script_options(self._tree), namespace_names(self._tree)
        options, namespaces = self._options
        option = options.get(node.attr)
        if option is None or option.default is None or not isinstance(node.value, ast.Name) \
                or node.value.id not in namespaces:
            return None
        value = self.text(option.default, depth + 1)
        if value is None or any(c in value for c in '}"\\$`' + _DOLLAR):
            return None             # written into a reference's default, which only plain text can be
        name = self._unknown(node)
        self.defaults_taken[name] = (option.flag, value)
        return "${" + name + ":-" + value + "}"

    def _formatted(self, call: ast.Call, piece: "Callable[[ast.AST], Optional[str]]", depth: int,
                   lenient: bool = False) -> Optional[str]:
        """``template.format(...)`` with each replacement field's argument as ``piece`` gives it; None for a
        field with a format spec, conversion, index or attribute, or an argument ``piece`` cannot give — or,
        ``lenient``, that field as a reference to a variable named after its argument."""
        assert isinstance(call.func, ast.Attribute)
        template = self.text(call.func.value, depth + 1)
        if template is None or any(isinstance(arg, ast.Starred) for arg in call.args) \
                or any(keyword.arg is None for keyword in call.keywords):
            return None
        named = {keyword.arg: keyword.value for keyword in call.keywords}
        parts: list[str] = []
        automatic = 0
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError:   # an unmatched brace: str.format raises too
            return None
        for literal, field, spec, conversion in fields:
            parts.append(literal)
            if field is None:
                continue
            if field == "":
                field, automatic = str(automatic), automatic + 1
            value = call.args[int(field)] if field.isdigit() and int(field) < len(call.args) else named.get(field)
            if value is None:
                text = None
            elif not spec and conversion in (None, "s"):
                text = piece(value)
            else:
                text = self._literal_formatted(value, spec or "", conversion)
            if text is None and lenient:
                text = "${" + (self._unknown(value) if value is not None and not isinstance(value, ast.Constant)
                               else "format_field") + "}"
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)

    def _formatted_value(self, part: ast.FormattedValue, depth: int) -> Optional[str]:
        """An f-string's ``{value!conversion:spec}`` of a literal, or None (a spec that holds fields too)."""
        spec = self.text(part.format_spec, depth + 1) if part.format_spec is not None else ""
        if spec is None or "$" in spec or _DOLLAR in spec:
            return None
        conversion = chr(part.conversion) if part.conversion != -1 else None
        return self._literal_formatted(part.value, spec, conversion)

    def _percent_formatted(self, node: ast.BinOp, piece: "Callable[[ast.AST], Optional[str]]", depth: int,
                           lenient: bool = False) -> Optional[str]:
        """``template % values`` as Python's printf-style formatting makes it: ``%s`` with each value as ``piece``
        gives it, any other conversion (``%d``, ``%05.1f``) of a literal; None for a mapping key, a ``*`` width,
        a value missing or left over — or, ``lenient``, a value kvguard cannot read as a reference to a variable
        named after it."""
        template = self.text(node.left, depth + 1)
        if template is None:
            return None
        right: ast.AST = node.right
        for _ in range(20):
            held = self.value_of(right) if isinstance(right, ast.Name) else None
            if held is None:
                break
            right = held
        values = list(right.elts) if isinstance(right, ast.Tuple) else [node.right]
        if any(isinstance(value, ast.Starred) for value in values) or isinstance(right, ast.Dict):
            return None
        parts: list[str] = []
        last = used = 0
        for m in _PERCENT.finditer(template):
            parts.append(template[last:m.start()])
            last = m.end()
            if m.group(0) == "%%":
                parts.append("%")
                continue
            if m.group(1) or "*" in m.group(2) or used >= len(values):
                return None
            value = values[used]
            used += 1
            text: Optional[str]
            if m.group(2) == "" and m.group(3) == "s":
                text = piece(value)
            else:
                literal = _constant_of(value, self.value_of)
                try:
                    text = None if literal is None else \
                        ("%" + m.group(2) + m.group(3)) % (literal,)
                except (TypeError, ValueError, OverflowError):
                    return None         # Python raises: no command is run
                text = text.replace("$", _DOLLAR) if text is not None else None
            if text is None and lenient and m.group(3) == "s":
                text = "${" + self._unknown(value) + "}"
            if text is None:
                return None
            parts.append(text)
        if used != len(values):
            return None                 # "not all arguments converted": Python raises
        parts.append(template[last:])
        return "".join(parts)

    def _literal_formatted(self, node: ast.AST, spec: str, conversion: Optional[str]) -> Optional[str]:
        """A literal (or a name the script assigns one) formatted as ``{!conversion:spec}`` formats it."""
        for _ in range(20):
            held = self.value_of(node) if isinstance(node, ast.Name) else None
            if held is None:
                break
            node = held
        if not (isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool))):
            return None
        if re.search(r"\d{4,}", spec):   # a width kvguard will not build
            return None
        value: object = node.value
        if conversion:
            value = {"r": repr, "a": ascii}.get(conversion, str)(value)
        try:
            return format(value, spec).replace("$", _DOLLAR)
        except (ValueError, TypeError):
            return None

    def _environment_reference(self, node: ast.AST) -> Optional[str]:
        """``os.environ`` read by the script, as a reference to the variable (noted in :attr:`environment_reads`:
        the script reads its own environment, which a launch given ``env=`` does not share)."""
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "os.environ":
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and _is_identifier(key.value):
                self.environment_reads.add(key.value)
                return "${" + key.value + "}"
        if isinstance(node, ast.Call) and self.dotted(node.func) in ("os.environ.get", "os.getenv") and node.args \
                and not node.keywords:
            key = node.args[0]
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and _is_identifier(key.value)):
                return None
            self.environment_reads.add(key.value)
            if len(node.args) == 1:
                return "${" + key.value + "}"
            default = self.text(node.args[1])
            if default is not None and "}" not in default:
                return "${" + key.value + ":-" + default + "}"
        return None

    def word(self, node: ast.AST) -> str:
        """One word of an argument list, quoted for the shell reader; an unresolved one as a reference to a
        variable named after the expression."""
        value = self.text(node)
        if value is None:
            return "${" + self._unknown(node) + "}"
        return _word(value)

    def words(self, node: ast.AST) -> Optional[list[str]]:
        """The words of an argument list, quoted for the shell reader, or None when ``node`` is no list kvguard
        can read (see :meth:`items`)."""
        items = self.items(node)
        if items is None:
            return None
        return [text if spread else _word(text) for text, spread in items]

    def items(self, node: ast.AST, depth: int = 0) -> Optional[list[tuple[str, bool]]]:
        """The items of an argument list as ``(text, spread)``: each item's text as :meth:`text` writes it (an
        unresolved one a reference to a variable named after its expression), ``spread`` for a reference that
        stands for any number of items.

        A list or tuple literal, ``+`` of lists, ``*items`` and ``list(...)`` are read; a name as the statements
        before ``node`` build it (:meth:`_built`), else as the script assigns it once; a name the script
        changes elsewhere: its first list, then the name as a spread reference."""
        if depth > 20:   # names bound to each other
            return None
        if isinstance(node, ast.Name) and node.id in self.escaped:
            self.escaped.discard(node.id)
            try:
                held = self.items(node, depth)
            finally:
                self.escaped.add(node.id)
            # changed through another name kvguard does not follow: what it holds there, then anything
            return None if held is None else held + [("${" + self._unknown(node) + "}", True)]
        if isinstance(node, ast.Name):
            if node.id in self.values:
                return self.items(self.values[node.id], depth + 1)
            built = self._built(node, depth)
            if built is not None:
                return built
            first_list = self.first_list.get(node.id)
            if first_list is not None and self._module_level(first_list):   # not another function's local
                first = self.items(first_list, depth + 1)
                return None if first is None else first + [("${" + self._unknown(node) + "}", True)]
            return None
        if isinstance(node, (ast.List, ast.Tuple)):
            self.read.add(id(node))
            out: list[tuple[str, bool]] = []
            for item in node.elts:
                if isinstance(item, ast.Starred):
                    out += self._part(item.value, depth)
                else:
                    text = self.text(item)
                    out.append((text, False) if text is not None else ("${" + self._unknown(item) + "}", False))
            return out
        if isinstance(node, ast.IfExp):
            holds = self.condition(node.test)
            return None if holds is None else self.items(node.body if holds else node.orelse, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.items(node.left, depth + 1), self.items(node.right, depth + 1)
            if left is None and right is None:
                return None
            return self._part(node.left, depth, left) + self._part(node.right, depth, right)
        if isinstance(node, ast.Call) and _dotted(node.func) in ("list", "tuple") and len(node.args) == 1 \
                and not node.keywords:
            return self.items(node.args[0], depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
                and not node.args and not node.keywords:   # str.split(): blanks part the words, quotes stay
            text = self._shell_text(node.func.value, depth + 1)
            return None if text is None else [(word, False) for word in text.split()]
        return None

    def launch_inside(self, given: ast.AST) -> Optional[list[str]]:
        """An argument list kvguard cannot read (``cmd[:3]``, ``build_cmd()``, a comprehension) that is made from
        one naming vLLM (a list it reads, or one a module-level function returns): that list's words, then the
        argument itself unresolved, so that the launch is found where it is made and is undecidable."""
        for node in ast.walk(given):
            candidates: list[ast.AST] = []
            if isinstance(node, (ast.Name, ast.List, ast.Tuple)):
                candidates = [node]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                functions = [f for f in self._tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                             and f.name == node.func.id]
                if len(functions) == 1:
                    candidates = [r.value for r in ast.walk(functions[0])
                                  if isinstance(r, ast.Return) and r.value is not None]
            for candidate in candidates:
                items = self.items(candidate)
                if items and "vllm" in " ".join(text for text, _spread in items).lower():
                    return [text if spread else _word(text) for text, spread in items] \
                        + ["${" + self._unknown(given) + "}"]
        return None

    def frames(self, call: ast.Call) -> tuple[str, Optional[list[dict[str, ast.AST]]]]:
        """What the names around ``call`` hold, one dict per run of it: its function's parameters as each call
        site in the script gives them (``"call"``), times the values of the literal loops around it in that
        function (:meth:`loop_values`); ``(kind, None)`` when there is nothing to bind, or too many runs."""
        loops = self.loop_values(call)
        sites = self._call_sites(call)
        if sites is None or len(sites) * len(loops or [{}]) > _MAX_LOOP_COMBINATIONS:
            return "loop", loops
        return "call", [dict(site, **loop) for site in sites for loop in (loops or [{}])]

    def _functions(self) -> tuple[dict[str, int], list[ast.Call]]:
        """How often each name is bound by a ``def`` / ``class`` or otherwise (a call by a name bound once, by a
        ``def``, reaches that function), and every call in the script; worked out once, when first needed."""
        if self._callers is None:
            definitions, calls = dict(self._bound), []
            for node in ast.walk(self._tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    definitions[node.name] = definitions.get(node.name, 0) + 1
                elif isinstance(node, ast.Call):
                    calls.append(node)
            self._callers = definitions, calls
        return self._callers

    def _call_sites(self, call: ast.Call) -> Optional[list[dict[str, ast.AST]]]:
        """The parameters of the module-level function around ``call`` as each call of it by name in the script
        gives them (an argument read in the caller, a default from the definition); a parameter the function
        binds again, or a call it cannot read (``*args``, ``**kwargs``), leaves the name unbound.  None when
        ``call`` is in no such function or the script never calls it."""
        body_of, statement_of = self._where()
        function = statement_of.get(id(call))
        while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = body_of.get(id(function), (None, None))[1]
            function = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner)) if owner else None
        definitions, calls = self._functions()
        if function is None or not isinstance(body_of.get(id(function), (None, None))[1], ast.Module) \
                or definitions.get(function.name, 0) != 1:
            return None
        params = function.args
        positional = [a.arg for a in params.posonlyargs + params.args]
        defaults = dict(zip(positional[len(positional) - len(params.defaults):], params.defaults))
        defaults.update({a.arg: d for a, d in zip(params.kwonlyargs, params.kw_defaults) if d is not None})
        rebound = {node.id for statement in function.body for node in ast.walk(statement)
                   if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))}
        sites = [node for node in calls if isinstance(node.func, ast.Name) and node.func.id == function.name]
        if not sites:
            return None
        out: list[dict[str, ast.AST]] = []
        for site in sites:
            given: dict[str, ast.AST] = dict(defaults)
            if any(isinstance(a, ast.Starred) for a in site.args) or any(k.arg is None for k in site.keywords):
                given = {}
            else:
                given.update(zip(positional, site.args))
                given.update({k.arg: k.value for k in site.keywords if k.arg is not None})
            # in the definition's order; a None (a default left to the body) is not a value a command reads
            given = {name: given[name] for name in positional + [a.arg for a in params.kwonlyargs]
                     if name in given and name not in rebound
                     and not _is_none(given[name])}
            for combination in self.loop_values(site) or [{}]:   # the caller's own literal loops
                self.values.update(combination)
                if self.runs(site):     # not a call in a branch not taken, or after the script ends
                    out.append(dict({name: self._given(value) for name, value in given.items()},
                                    **self._globals_at(function, site)))
                for name in combination:
                    del self.values[name]
        return out

    def _globals_at(self, function: "ast.FunctionDef | ast.AsyncFunctionDef", site: ast.Call) -> dict[str, ast.AST]:
        """The module's names the function reads (not its own, nor ones the script assigns once) as they are
        where a module-level call of it runs: Python reads a global when the function runs, not where it is
        defined.  A name whose value kvguard knows there and that no function changes (``global``, a list changed
        in place) but ones it follows at their calls (:meth:`followed_changers`), the function itself not one of
        them; a call inside another function: none."""
        body_of, statement_of = self._where()
        if not isinstance(self._scope(site), ast.Module) or id(site) not in statement_of:
            return {}
        module_names = {node.id for statement in self._tree.body for node in ast.walk(statement)
                        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        read = {node.id for node in _own_nodes(function) if isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)}
        out: dict[str, ast.AST] = {}
        for name in sorted(read & module_names):
            if name in self.values or _local_to(function, name):
                continue
            # a name a function changes is followed only through the calls of that function (its own reads of it
            # see its own changes, not the value where it is called)
            changers = self.followed_changers(name)
            if changers is None or changers.get(function.name) is function:
                continue
            at_call = ast.Name(id=name, ctx=ast.Load())
            self._synthetic.append(at_call)     # kept, so that its id names no other node
            statement_of[id(at_call)] = statement_of[id(site)]
            value = self.value_of(at_call)
            if isinstance(value, (ast.List, ast.Tuple)):
                out[name] = value
            elif value is not None:
                held = self._held(value)
                if held is not None:
                    out[name] = held
        return out

    def _given(self, node: ast.AST) -> _Given:
        text = self.text(node)
        number = self.number(node)
        kind = "number" if number is not None else "text" if self.is_text(node) else None
        known, literal = self.literal(node)
        return _Given(text if text is not None else "${" + self._unknown(node) + "}", kind, number, literal, known)

    def literal(self, node: ast.AST, depth: int = 0) -> tuple[bool, object]:
        """``(True, value)`` for a value kvguard knows as Python holds it (a literal, a name the script assigns
        one, a call site's literal argument, a tuple or list of such, a number or text it builds from them);
        ``(False, None)`` otherwise."""
        if depth > 20:
            return False, None
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
            return True, node.value
        if isinstance(node, _Given):
            return node.known, node.literal
        if isinstance(node, ast.Name):
            bound = self.value_of(node)
            return self.literal(bound, depth + 1) if bound is not None else (False, None)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.literal(item, depth + 1) for item in node.elts]
            if all(known for known, _value in items) and not any(isinstance(e, ast.Starred) for e in node.elts):
                return True, tuple(value for _known, value in items)
            return False, None
        number = self.number(node)
        if number is not None:
            return True, number
        if self.is_text(node):
            text = self.text(node)
            if text is not None and not _REFERENCE.search(text):
                return True, text.replace(_DOLLAR, "$")
        return False, None

    def condition(self, node: ast.AST, depth: int = 0) -> Optional[bool]:
        """Whether an ``if`` test holds, when kvguard knows every value it compares (``MODE == "tp"``, ``TP > 3``,
        ``not eager``, ``and`` / ``or`` of such); None when it does not know."""
        if depth > 20:
            return None
        if isinstance(node, ast.BoolOp):
            stop = isinstance(node.op, ast.Or)     # the value that ends `or` (True) or `and` (False)
            for operand in node.values:
                value = self.condition(operand, depth + 1)
                if value is None:
                    return None
                if value is stop:
                    return stop
            return not stop
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            value = self.condition(node.operand, depth + 1)
            return None if value is None else not value
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            (left_known, left), (right_known, right) = self.literal(node.left), self.literal(node.comparators[0])
            compare = _COMPARISONS.get(type(node.ops[0]))
            if not (left_known and right_known) or compare is None:
                return None
            try:
                return bool(compare(left, right))
            except TypeError:                       # Python raises: no branch runs; kvguard reads them all
                return None
        known, held = self.literal(node)
        if known:
            return bool(held)
        if isinstance(node, ast.Name) and node.id not in self.values:   # a list the script builds: empty or not
            items = self.items(node)
            if items is not None and (items == [] or not all(spread for _text, spread in items)):
                return bool(items)
        return None

    def runs(self, call: ast.Call) -> bool:
        """False when kvguard knows ``call`` does not run with the values the names around it hold now: it is in
        a branch of an ``if`` (in its function) that is not taken, a ``continue`` / ``break`` / ``return`` /
        ``raise`` before it surely runs, or a ``break`` surely ran in an earlier pass of a loop around it."""
        if self.surely_runs(call) is False:
            return False
        body_of, statement_of = self._where()
        statement = statement_of.get(id(call))
        while statement is not None and id(statement) in body_of:
            body, owner = body_of[id(statement)]
            index = next(i for i, candidate in enumerate(body) if candidate is statement)
            for jump in _jumps(body[:index]):
                if self.surely_runs(jump, owner) is True:
                    return False
            if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                return True
            if isinstance(owner, (ast.For, ast.AsyncFor)) and body is owner.body and self._broken_before(owner):
                return False
            statement = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner))
        return True

    def _broken_before(self, loop: "ast.For | ast.AsyncFor") -> bool:
        """Whether a ``break`` of ``loop`` surely ran in a pass before the one its names hold now."""
        passes = self._loop_items(loop)
        breaks = [jump for jump in _jumps(loop.body) if isinstance(jump, ast.Break)]
        if not passes or not breaks or not all(name in self.values for name in passes[0]):
            return False
        now = {name: self.literal(self.values[name]) for name in passes[0]}
        current = [i for i, values in enumerate(passes)
                   if all(self.literal(value) == now[name] for name, value in values.items())]
        if not current:
            return False
        held = {name: self.values[name] for name in passes[0]}
        try:
            for earlier in passes[:current[0]]:
                self.values.update(earlier)
                if any(self.surely_runs(jump, loop) is True for jump in breaks):
                    return True
        finally:
            self.values.update(held)
        return False

    def surely_runs(self, node: ast.AST, within: Optional[ast.AST] = None) -> Optional[bool]:
        """Whether ``node`` runs each time its function (or the module, or the statement ``within``) does: True
        when every statement around it there is an ``if`` branch kvguard knows is taken (or a ``with``), False
        when one is a branch kvguard knows is not taken, None otherwise (a loop, a ``try``, a test kvguard does
        not decide)."""
        body_of, statement_of = self._where()
        statement = node if isinstance(node, ast.stmt) else statement_of.get(id(node))
        sure: Optional[bool] = True
        while statement is not None and id(statement) in body_of:
            body, owner = body_of[id(statement)]
            if owner is within or isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                return sure
            if isinstance(owner, ast.If):
                holds = self.condition(owner.test)
                if holds is not None and holds != (body is owner.body):
                    return False
                if holds is None:
                    sure = None
            elif not isinstance(owner, (ast.With, ast.AsyncWith)):
                sure = None
            statement = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner))
        return sure

    def _scope(self, node: ast.AST) -> Optional[ast.AST]:
        """The function (or the module) whose body holds ``node``."""
        body_of, statement_of = self._where()
        statement = statement_of.get(id(node))
        while statement is not None and id(statement) in body_of:
            owner = body_of[id(statement)][1]
            if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module, ast.ClassDef, ast.Lambda)):
                return owner
            statement = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner))
        return None

    def loop_values(self, call: ast.Call) -> Optional[list[dict[str, ast.AST]]]:
        """Each combination of values the ``for`` loops around ``call`` (in its function) give their names, when
        every such loop runs over literals (``for tp in [2, 4]``, ``for model, tp in [("a", 2)]``, ``range(8)``)
        and its body does not bind its names again; None when there is no such loop, one of another kind, or more
        than :data:`_MAX_LOOP_COMBINATIONS` combinations."""
        body_of, statement_of = self._where()
        statement = statement_of.get(id(call))
        combinations: list[dict[str, ast.AST]] = [{}]
        while statement is not None and id(statement) in body_of:
            body, owner = body_of[id(statement)]
            if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                break
            if isinstance(owner, (ast.For, ast.AsyncFor)) and body is owner.body:
                per_value = self._loop_items(owner)
                if per_value is None or len(combinations) * len(per_value) > _MAX_LOOP_COMBINATIONS:
                    return None
                # this loop is outside the ones already read: its names come first, its values vary slowest
                combinations = [dict(outer, **inner) for outer in per_value for inner in combinations]
            statement = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner))
        return combinations if combinations != [{}] else None

    def _loop_items(self, loop: "ast.For | ast.AsyncFor") -> Optional[list[dict[str, ast.AST]]]:
        """The names ``loop`` binds, per item of the literal list it runs over, or None."""
        if isinstance(loop.target, ast.Name):
            names = [loop.target.id]
        elif isinstance(loop.target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in loop.target.elts):
            names = [t.id for t in loop.target.elts if isinstance(t, ast.Name)]
        else:
            return None
        if any(isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, (ast.Store, ast.Del))
               for statement in loop.body for node in ast.walk(statement)):
            return None                      # bound again in the loop: not the loop's value where it is read
        iterated: Optional[ast.AST] = loop.iter
        if isinstance(iterated, ast.Name):
            iterated = self.value_of(iterated)
        items = _literal_range(iterated) if isinstance(iterated, ast.Call) else getattr(iterated, "elts", None)
        if not isinstance(iterated, (ast.List, ast.Tuple, ast.Call)) or not items:
            return None
        out = []
        for item in items:
            values = [item] if len(names) == 1 else getattr(item, "elts", None)
            if not isinstance(values, list) or len(values) != len(names) \
                    or not all(isinstance(v, ast.Constant) for v in values):
                return None
            out.append(dict(zip(names, values)))
        return out

    def _module_level(self, node: ast.AST) -> bool:
        """Whether ``node`` is part of a statement of the module's own body."""
        body_of, statement_of = self._where()
        statement = statement_of.get(id(node))
        return statement is not None and isinstance(body_of.get(id(statement), (None, None))[1], ast.Module)

    def _part(self, node: ast.AST, depth: int, items: Optional[list[tuple[str, bool]]] = None,
              ) -> list[tuple[str, bool]]:
        """The items of one part of a list (``*part``, ``a + part``); one it cannot read is a spread reference."""
        if items is None:
            items = self.items(node, depth + 1)
        return items if items is not None else [("${" + self._unknown(node) + "}", True)]

    def _built(self, name: ast.Name, depth: int) -> Optional[list[tuple[str, bool]]]:
        """The list ``name`` holds where it is read, replayed along each way the statements before that point
        may run (:meth:`_paths_to`): assignments, ``+=``, ``.append``, ``.extend`` and ``.insert``.  A change
        the replay cannot follow ends the list in the name as a spread reference; where the ways give different
        lists, the items they share at the start are kept, then the name as a spread reference.  None when no
        statement of the function binds the name before the read (the name is then read as the script assigns
        it, or not at all)."""
        return self._remembered("list", name, lambda: self._replayed_lists(name, depth))

    def _replayed_lists(self, name: ast.Name, depth: int) -> Optional[list[tuple[str, bool]]]:
        found = self._paths_to(name)
        if found is None:
            return None
        held_before, paths = found
        spread = ("${" + self._unknown(name) + "}", True)
        lists = []
        for path in paths:
            replayed = self._replayed_list(name.id, path, [spread] if held_before else None, spread, depth)
            if replayed is not None:     # a way on which the name is never bound raises: it launches nothing
                lists.append(replayed)
        if not lists:
            return None
        shared = lists[0]
        for other in lists[1:]:
            if other != shared:
                common = 0
                while common < min(len(shared), len(other)) and shared[common] == other[common]:
                    common += 1
                shared = shared[:common] + [spread]
        if shared == [spread]:
            return None
        return shared

    def _replayed_list(self, name: str, path: "list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]",
                       out: Optional[list[tuple[str, bool]]], spread: tuple[str, bool],
                       depth: int) -> Optional[list[tuple[str, bool]]]:
        """The list ``name`` holds after the changes of one way through the statements (None: never bound)."""
        for statement, frame in path:
            step = _step(statement, name) if frame is not None else None
            if step is None or (out is None and step[0] != "assign"):
                out = (out or []) + [spread]
                continue
            how, value, index = step
            if out is not None and isinstance(statement, ast.AugAssign) and not isinstance(statement.op, ast.Add):
                out = out + [spread]
                continue
            with self._binding(frame):
                if how == "assign":
                    assigned = self.items(value, depth + 1)
                    out = assigned if assigned is not None else [spread]
                elif out is None:
                    continue
                elif how == "append":
                    text = self.text(value)
                    out = out + [(text, False) if text is not None else ("${" + self._unknown(value) + "}", False)]
                elif how in ("extend", "augment"):
                    out = out + self._part(value, depth)
                elif how == "insert" and index is not None:
                    out = self._inserted(out, value, index, spread)
                elif how == "pop" and index is not None:
                    out = self._popped(out, index, spread)
                elif how == "remove":
                    removed = self._removed(out, value, spread)
                    if removed is None:
                        return None     # no item is the value: `remove` raises, nothing after it runs
                    out = removed
        return out

    def _removed(self, out: list[tuple[str, bool]], value: ast.AST,
                 spread: tuple[str, bool]) -> Optional[list[tuple[str, bool]]]:
        """``out.remove(value)``: the first item equal to the value goes.  Where kvguard cannot tell which item
        that is — a value it does not know or that may be no string (``"8"`` may equal no item that is the number
        8), an item before it it does not know — the items before the first that may be it, then the name as a
        spread reference.  None when no item is the value (Python raises ``ValueError``)."""
        text = self.text(value) if self.is_text(value) else None
        if text is None or "${" in text or _NOT_ONLY_TEXT.fullmatch(text):
            return [spread]
        for index, (item, is_spread) in enumerate(out):
            if is_spread or "${" in item:
                return out[:index] + [spread]
            if item == text:
                return out[:index] + out[index + 1:]
        return None

    def _popped(self, out: list[tuple[str, bool]], index: ast.AST,
                spread: tuple[str, bool]) -> list[tuple[str, bool]]:
        """``out.pop(index)`` where the item's place is known (no spread reference between it and the end it is
        counted from); else ``out`` then the name as a spread reference."""
        known, position = self.literal(index)
        if known and type(position) is int and -len(out) <= position < len(out):
            counted = out[:position + 1] if position >= 0 else out[position:]
            if not any(is_spread for _text, is_spread in counted):
                return out[:position] + out[position + 1:] if position != -1 else out[:-1]
        return out + [spread]

    def _inserted(self, out: list[tuple[str, bool]], value: ast.AST, index: ast.AST,
                  spread: tuple[str, bool]) -> list[tuple[str, bool]]:
        """``out.insert(index, value)``; where the place is not known (a spread reference before it, an index
        that is no literal), the items before the first unknown place, then the name as a spread reference."""
        known, position = self.literal(index)
        spreads = [i for i, (_text, is_spread) in enumerate(out) if is_spread]
        if not known or type(position) is not int or position < 0 \
                or any(i < position for i in spreads) or (position > len(out) and spreads):
            first_unknown = min(spreads + [len(out)] if type(position) is not int or position < 0
                                else spreads + [min(position, len(out))])
            return out[:first_unknown] + [spread]
        text = self.text(value)
        item = (text, False) if text is not None else ("${" + self._unknown(value) + "}", False)
        return out[:position] + [item] + out[position:]

    def _binding(self, frame: Optional[dict[str, ast.AST]]) -> "_Binding":
        return _Binding(self.values, frame or {})

    def value_of(self, name: ast.Name) -> Optional[ast.AST]:
        """The value a name holds where it is read: as the call or loop being read binds it, as the script
        assigns it once, or as the statements before the read leave it (:meth:`_reaching`); None when kvguard
        does not know it."""
        held = self.values.get(name.id)
        if held is not None:
            return held
        return self._remembered("value", name, lambda: self._reaching(name))

    def _remembered(self, kind: str, name: ast.Name, work: "Callable[[], _T]") -> "_T":
        """``work()`` for this read with the names bound as they are now, worked out once (a name assigned from
        itself again and again is otherwise worked out once per way to each earlier assignment)."""
        key = (kind, id(name), tuple(sorted((bound, id(value)) for bound, value in self.values.items())))
        if key not in self._worked_out:
            # the bound values are kept with the answer, so that their ids name no other value while it is kept
            self._worked_out[key] = (work(), list(self.values.values()))
        return self._worked_out[key][0]  # type: ignore[return-value]

    def _reaching(self, name: ast.Name) -> Optional[ast.AST]:
        """The value the statements before ``name`` in its function (or the module) leave it, along each way
        they may run: the value they all give, or None (ways that give different values, a change kvguard
        cannot follow, a name the function does not bind)."""
        found = self._paths_to(name)
        if found is None:
            return None
        held_before, paths = found
        finals: list[ast.AST] = []
        for path in paths:
            final = self._replayed_value(name.id, path, _UNKNOWN if held_before else None)
            if final is _UNKNOWN:
                return None
            if final is not None:   # a way on which the name is never bound raises: it launches nothing
                finals.append(final)
        if not finals:
            return None
        if name.id in self.escaped and not all(isinstance(final, (ast.Constant, ast.JoinedStr, _Given))
                                               for final in finals):
            return None     # a list handed on may change under another name
        if all(final is finals[0] for final in finals):
            return finals[0]
        held = [self._held(final) for final in finals]
        first = held[0]
        if first is None or any(other is None or _fields(other) != _fields(first) for other in held[1:]):
            return None
        return first

    def _replayed_value(self, name: str, path: "list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]",
                        value: Optional[ast.AST]) -> Optional[ast.AST]:
        """The value ``name`` holds after the changes of one way through the statements: the assigned
        expression itself where it can be read where it stands, else what it gave (a :class:`_Given`),
        :data:`_UNKNOWN`, or None (never bound)."""
        for statement, frame in path:
            step = _step(statement, name) if frame is not None else None
            if step is None or step[0] not in ("assign", "augment"):
                value = _UNKNOWN
                continue
            how, given, _index = step
            with self._binding(frame):
                if how == "assign":
                    value = given if not frame else self._held(given) or _UNKNOWN
                elif value is None or value is _UNKNOWN:
                    value = _UNKNOWN
                else:
                    assert isinstance(statement, ast.AugAssign)
                    left, right = self._held(value), self._held(given)
                    value = _UNKNOWN if left is None or right is None else \
                        self._held(ast.BinOp(left=left, op=statement.op, right=right)) or _UNKNOWN
        return value

    def _held(self, node: ast.AST) -> Optional[_Given]:
        """What a value gives, read now (with the names bound as they are now), or None when its text is not
        known."""
        if isinstance(node, _Given):
            return node
        text = self.text(node)
        if text is not None and hasattr(node, "lineno"):
            text = self._environment_then(text, node)
        if text is None:
            return None
        number = self.number(node)
        kind = "number" if number is not None else "text" if self.is_text(node) else None
        known, literal = self.literal(node)
        return _Given(text, kind, number, literal, known)

    def _paths_to(self, name: ast.Name) -> "Optional[tuple[bool, list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]]]]":
        """The ways the statements of ``name``'s function (or the module) that run before it may run, each as
        the statements on it that change the name, in order, with the loop values bound when each runs (None
        for a change kvguard cannot follow); and whether the name holds a value before the first of them (a
        parameter).  None when the read is not the function's own name (a global, a name a comprehension or a
        class binds), or when the name is being worked out already."""
        key = (name.id, id(name))
        if key in self._replaying or len(self._replaying) > 40:
            return None
        self._replaying.add(key)
        try:
            return self._ways(name)
        finally:
            self._replaying.discard(key)

    def _ways(self, name: ast.Name) -> "Optional[tuple[bool, list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]]]]":
        body_of, statement_of = self._where()
        statement = statement_of.get(id(name))
        if statement is None or _bound_inside(statement, name):
            return None
        # the statements before the read, level by level from the read outwards; a level that starts with a change
        # kvguard does not follow (an earlier pass of a loop, a header's own binding, part of a `try` body) starts
        # with _UNSEEN_CHANGE
        before: list[list[ast.stmt]] = []
        scope: Optional[ast.AST] = None
        while statement is not None and id(statement) in body_of:
            body, owner = body_of[id(statement)]
            index = next(i for i, candidate in enumerate(body) if candidate is statement)
            level: list[ast.stmt] = list(body[:index])
            if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                before.append(level)
                scope = owner
                break
            if isinstance(owner, ast.ClassDef):
                return None
            unseen = isinstance(owner, ast.stmt) and _changes(owner, name.id) \
                or isinstance(owner, ast.ExceptHandler) and owner.name == name.id
            if isinstance(owner, (ast.For, ast.AsyncFor, ast.While)):
                # a later pass of the body may have run before this one; every pass before the `else`
                unseen = unseen or any(_changes_within(part, name.id) for part in owner.body)
            if isinstance(owner, ast.ExceptHandler) or isinstance(owner, ast.Try) and body is not owner.body:
                tried = statement_of.get(id(owner)) if isinstance(owner, ast.ExceptHandler) else owner
                if isinstance(tried, ast.Try):
                    unseen = unseen or any(_changes_within(part, name.id) for part in tried.body) \
                        or any(_changes_within(part, name.id) for handler in tried.handlers for part in handler.body)
            before.append([_UNSEEN_CHANGE] + level if unseen else level)
            statement = owner if isinstance(owner, ast.stmt) else statement_of.get(id(owner))
        if scope is None:
            return None
        held_before = False
        changers: Optional[dict[str, ast.FunctionDef]] = {}
        if isinstance(scope, ast.Module):
            # a function that changes the name is followed at each call statement of it (its body runs there)
            changers = self.followed_changers(name.id)
            if changers is None:
                return None
        else:
            assert isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            if not _local_to(scope, name.id):
                return None     # a global: read when the function is called
            held_before = name.id in _parameters(scope)
            if _declared_elsewhere(scope, scope, name.id):
                return None
        preceding = [candidate for body in reversed(before) for candidate in body]
        read_in = statement_of.get(id(name))
        if isinstance(read_in, ast.While) and any(_changes_within(part, name.id) for part in read_in.body):
            preceding.append(_UNSEEN_CHANGE)     # a `while` test reads the name after each pass too
        paths = self._expanded(name.id, preceding, {}, changers or {})
        return held_before, paths

    def _expanded(self, name: str, statements: list[ast.stmt], frame: dict[str, ast.AST],
                  changers: "dict[str, ast.FunctionDef]",
                  ) -> list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]]:
        """The ways ``statements`` may run, each as the changes of ``name`` on it (see :meth:`_paths_to`): an
        ``if`` kvguard decides runs its branch, one it does not decide each; a ``with`` its body; a ``for`` over
        literals (no ``break`` / ``continue``) its body once per value; a ``try`` its body whole then its
        ``else``, or its body up to each statement that may raise then each handler (:meth:`_tried`), then its
        ``finally``; a call of one of ``changers`` (:meth:`followed_changers`) its body, the call's arguments bound
        to its parameters; any other statement that changes the name inside it is a change kvguard cannot
        follow."""
        paths: list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]] = [[]]
        for statement in statements:
            if statement is _UNSEEN_CHANGE:
                paths = [way + [(statement, None)] for way in paths]
                continue
            if isinstance(statement, ast.FunctionDef) and changers.get(statement.name) is statement:
                continue        # defined here, it changes the name where it is called
            called = self.changer_call(statement, changers)
            if not _changes_within(statement, name) and called is None and \
                    not any(self.changer_call(inner, changers) for inner in _module_statements([statement])[1:]):
                continue
            steps: list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]]
            nested = [child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.stmt)]
            if called is not None:
                function, parameters = called
                steps = self._expanded(name, [inner for inner in function.body if not isinstance(inner, ast.Global)],
                                       parameters, {})
            elif not nested:
                steps = [[(statement, frame)]]
            elif isinstance(statement, ast.Try) and not any(handler.name == name for handler in statement.handlers):
                # (its handlers' statements are no statements of its own, but its changes are theirs)
                steps = self._tried(name, statement, frame, changers)
            elif _changes(statement, name):
                steps = [[(statement, None)]]
            elif isinstance(statement, ast.If):
                with self._binding(frame):
                    holds = self.condition(statement.test)
                branches = [statement.body, statement.orelse] if holds is None else \
                    [statement.body if holds else statement.orelse]
                steps = [way for branch in branches for way in self._expanded(name, branch, frame, changers)]
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                steps = self._expanded(name, statement.body, frame, changers)
            elif isinstance(statement, (ast.For, ast.AsyncFor)) and self._unrolled(statement) is not None:
                steps = [[]]
                for values in self._unrolled(statement) or []:
                    with self._binding(frame):
                        passes = self._expanded(name, statement.body, dict(frame, **values), changers)
                    steps = [way + more for way in steps for more in passes]
                    if len(steps) > _MAX_WAYS:
                        break
                steps = [way + more for way in steps
                         for more in self._expanded(name, statement.orelse, frame, changers)]
            else:
                steps = [[(statement, None)]]
            paths = [way + more for way in paths for more in steps]
            if len(paths) > _MAX_WAYS:      # too many ways to follow: what the name holds is not known
                return [[(statement, None)]]
        return paths

    def _tried(self, name: str, statement: ast.Try, frame: dict[str, ast.AST],
               changers: "dict[str, ast.FunctionDef]") -> list[list[tuple[ast.stmt, Optional[dict[str, ast.AST]]]]]:
        """The ways a ``try`` may run up to the statement after it: its body whole, then its ``else``; or, when it
        has handlers, its body up to any statement that raises (kvguard does not know which may), then any one of
        its handlers (one that does not match lets the exception on, and the statement after is not reached);
        then, on every way, its ``finally``.  A statement that raises partway through its change of the name (a
        block, a call of a function that changes it, a list extended from an iterable) leaves the name unknown on
        that way."""
        ways = self._expanded(name, statement.body + statement.orelse, frame, changers)
        if statement.handlers:
            handled = [way for handler in statement.handlers
                       for way in self._expanded(name, handler.body, frame, changers)]
            for index, raising in enumerate(statement.body):
                changes = self._touches(raising, name, changers)
                if index and not changes and not self._touches(statement.body[index - 1], name, changers):
                    continue        # raising here leaves the name as raising at the statement before does
                before = self._expanded(name, statement.body[:index], frame, changers)
                if changes and _may_stop_partway(raising, name):
                    before = [way + [(_UNSEEN_CHANGE, None)] for way in before]
                ways += [way + more for way in before for more in handled]
                if len(ways) > _MAX_WAYS:
                    return [[(statement, None)]]
        finals = self._expanded(name, statement.finalbody, frame, changers)
        return [way + more for way in ways for more in finals]

    def _touches(self, statement: ast.stmt, name: str, changers: "dict[str, ast.FunctionDef]") -> bool:
        """Whether ``statement`` changes ``name``, itself, in a statement nested in it or by calling one of
        ``changers``."""
        return _changes_within(statement, name) or any(self.changer_call(inner, changers) is not None
                                                        for inner in _module_statements([statement]))

    def _unrolled(self, loop: "ast.For | ast.AsyncFor") -> Optional[list[dict[str, ast.AST]]]:
        """The values of a ``for`` over literals whose body has no ``break`` / ``continue`` (each pass runs it
        whole), or None."""
        if any(isinstance(jump, (ast.Break, ast.Continue)) for jump in _jumps(loop.body)):
            return None
        return self._loop_items(loop)

    def shell_text(self, node: ast.AST) -> Optional[str]:
        """Command text for a shell: a resolved string, its unresolved names as ``${NAME}``."""
        found = self._shell_text(node, 0)
        return found.replace(_DOLLAR, "$") if found is not None else None

    def _shell_text(self, node: ast.AST, depth: int) -> Optional[str]:
        if depth > 20:   # a name bound to itself, or names bound to each other
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    piece = self.text(part.value) if part.format_spec is None else None
                    parts.append(piece if piece is not None else "${" + self._unknown(part.value) + "}")
                else:
                    parts.append(self.text(part) or "")
            return "".join(parts)
        bound = self.value_of(node) if isinstance(node, ast.Name) else None
        if bound is not None:
            return self._environment_then(self._shell_text(bound, depth + 1), bound)
        if _is_format(node):
            return self._formatted(node, self.text, depth, lenient=True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self._percent_formatted(node, self.text, depth, lenient=True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and any(
                isinstance(side, (ast.JoinedStr, ast.BinOp)) or isinstance(side, ast.Constant) and
                isinstance(side.value, str) for side in (node.left, node.right)):
            # text joined with what kvguard cannot read (`"vllm serve " + model_of(cfg)`): that part unresolved
            sides = [self._shell_text(side, depth + 1) for side in (node.left, node.right)]
            if all(side is None for side in sides):
                return None
            return "".join(side if side is not None else "${" + self._unknown(part) + "}"
                           for side, part in zip(sides, (node.left, node.right)))
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and (
                self.dotted(node.func) == "shlex.join" or (
                    isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                    and isinstance(node.func.value, ast.Constant) and node.func.value.value == " ")):
            items = self.items(node.args[0])
            if items is None:
                return None
            if self.dotted(node.func) == "shlex.join":   # each item quoted: one word each
                return " ".join(text if spread else _word(text) for text, spread in items)
            return " ".join(text for text, _spread in items)   # the shell splits the joined text again
        return self.text(node)

    def environment_at(self, where: ast.AST) -> dict[str, Optional[str]]:
        """The ``os.environ`` entries the script has set where ``where`` runs: a write before it in its own
        function (or both at module level) that surely runs, with its value; one in a branch kvguard knows the
        script does not take, none; one that may or may not have run (in a branch kvguard does not decide, a
        loop, another function, or the module after a function's line), set to a value kvguard cannot know."""
        out: dict[str, Optional[str]] = {}
        scope = self._scope(where)
        #: changed in another function (or the module, after a function's line): at any time, so unknown
        elsewhere: list[str] = []
        for number, how, name, value, statement in sorted(self.environ, key=lambda change: change[0]):   # as run
            sure = self.surely_runs(statement)
            if sure is False:
                continue
            write_scope = self._scope(statement)
            if write_scope is scope:
                if number > where.lineno:   # type: ignore[attr-defined]
                    continue
            elif not (isinstance(write_scope, ast.Module) and number <= where.lineno):   # type: ignore[attr-defined]
                elsewhere.append(name if how not in ("clear", "any") else _ANY_VARIABLE)
                continue
            if how in ("clear", "any"):
                if sure and how == "clear":
                    out.clear()
                else:
                    out[_ANY_VARIABLE] = None
            elif not sure or how == "unknown":
                out[name] = None
            elif how == "set":
                out[name] = _environment_value(self.text(value)) if value is not None else None
            elif how == "unset":
                out.pop(name, None)
            elif name not in out:           # setdefault: kept when set, unknown when anything may have set it
                out[name] = None if _ANY_VARIABLE in out or value is None else _environment_value(self.text(value))
        out.update((name, None) for name in elsewhere)
        return out

    def known_environment(self, where: ast.AST, line: str) -> dict[str, Optional[str]]:
        """The launch's environment (:meth:`environment`), an entry named as an unresolved expression is
        written (a Python variable ``PP`` kvguard cannot read is ``${PP}``, not the environment's ``PP``)
        unknown."""
        out = self.environment(where) if isinstance(where, ast.Call) else self.environment_at(where)
        if out.pop(_ANY_VARIABLE, "") is None:   # a change kvguard cannot follow: whatever the line reads
            out.update((name, None) for name in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", line))
        if isinstance(where, ast.Call) and _keyword(where, "env") is not None:
            # the script read its own environment, the launch is given another: where they differ, unknown
            own = self.environment_at(where)
            for name in self.environment_reads:
                if own.get(name, _ANY_VARIABLE) != out.get(name, _ANY_VARIABLE) or _ANY_VARIABLE in own:
                    out[name] = None
        return {name: None if name in self.unknowns else value for name, value in out.items()}

    def environment(self, call: ast.Call) -> dict[str, Optional[str]]:
        out = self.environment_at(call)
        for keyword in call.keywords:
            if keyword.arg != "env":
                continue
            given: Optional[ast.AST] = keyword.value
            if isinstance(given, ast.Name):
                given = self.value_of(given)
            if isinstance(given, ast.Dict):
                if not any(key is None and self.dotted(value) == "os.environ" for key, value in zip(given.keys,
                                                                                              given.values)):
                    out.clear()   # env= replaces the inherited environment unless it spreads os.environ
                for entry_key, entry_value in zip(given.keys, given.values):
                    if isinstance(entry_key, ast.Constant) and isinstance(entry_key.value, str):
                        out[entry_key.value] = _environment_value(self.text(entry_value))
                    elif entry_key is not None or self.dotted(entry_value) != "os.environ":
                        out[_ANY_VARIABLE] = None      # `**other`, a computed key: any variable may be set
            elif not _is_none(keyword.value):
                out[_ANY_VARIABLE] = None              # an environment kvguard cannot read
        return out


#: functions that read their arguments and keep none of them
_READERS = frozenset({"len", "list", "tuple", "str", "repr", "print", "sorted", "enumerate", "zip", "set", "any",
                      "all", "min", "max", "sum", "shlex.join", "shlex.quote", "isinstance", "bool", "hash", "id",
                      "json.dumps"})
#: methods that read their arguments and keep none of them (``" ".join(words)``, ``cmd.extend(extra)`` copies the
#: items, a logger's ``info(cmd)``)
_READING_METHODS = frozenset({"join", "extend", "index", "count", "format", "startswith", "endswith", "info", "debug",
                              "warning", "error", "exception", "critical", "log", "write", "print", "get"})

#: the key of an environment in which a change kvguard cannot follow may have set any variable
_ANY_VARIABLE = "*"


def _environment_value(value: Optional[str]) -> Optional[str]:
    """An environment entry's value (taken as it is, no expansion); one that reads another variable is unknown."""
    if value is None or _REFERENCE.search(value):
        return None
    return value.replace(_DOLLAR, "$")


def _word(value: str) -> str:
    """One word for the shell reader: its literal characters quoted, the references this module wrote expanded."""
    return one_word(value, literal_dollar=_DOLLAR)


def _is_identifier(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


def _placeholder(node: ast.AST) -> str:
    """A variable name for an expression kvguard cannot evaluate (``args.tp`` and ``str(args.tp)`` ->
    ``args_tp``)."""
    while isinstance(node, ast.Call) and _dotted(node.func) in ("str", "int") and len(node.args) == 1:
        node = node.args[0]
    try:
        source = ast.unparse(node)
    except (ValueError, TypeError, AttributeError, RecursionError):
        source = "expression"
    name = _NOT_A_NAME.sub("_", source).strip("_")[:60] or "expression"
    return name if not name[0].isdigit() else "_" + name


#: a printf-style conversion: ``%%``, or ``%`` with a mapping key, flags, width and precision, and a type
_PERCENT = re.compile(r"%%|%(\([^)]*\))?([-#0 +]*(?:\*|[0-9]*)(?:\.(?:\*|[0-9]*))?)[hlL]?([diouxXeEfFgGcrsa])")


def _constant_of(node: ast.AST, value_of: "Callable[[ast.Name], Optional[ast.AST]]",
                 ) -> "Optional[str | int | float | bool]":
    """The literal ``node`` is, or that a name holds where it is read (``value_of``); None otherwise."""
    for _ in range(20):
        held = value_of(node) if isinstance(node, ast.Name) else None
        if held is None:
            break
        node = held
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    return None


def _keyword(call: ast.Call, name: str) -> Optional[ast.AST]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


#: the most combinations of loop values a call is read under (a larger sweep is read once, its names unresolved)
_MAX_LOOP_COMBINATIONS = 64


def _changes(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` itself (not a statement nested in it) binds ``name`` or changes the list it holds."""
    nested = {id(node) for child in ast.iter_child_nodes(statement) if isinstance(child, ast.stmt)
              for node in ast.walk(child)}
    for node in ast.walk(statement):
        if id(node) in nested:
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name \
                and node.attr in _LIST_CHANGES:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
    return False


#: the methods that change a list in place
_LIST_CHANGES = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "__setitem__"})


def _change(statement: ast.stmt, name: str) -> Optional[tuple[str, ast.AST]]:
    """How a statement that changes ``name`` does it, when it is a change :meth:`_Script._built` replays:
    ``("assign", value)``, ``("extend", value)`` (``+=``, ``.extend``) or ``("append", value)``."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name):
        return "assign", statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
        return "assign", statement.value
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
            and isinstance(statement.op, ast.Add):
        return "extend", statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == name and len(call.args) == 1 and not call.keywords \
                and call.func.attr in ("append", "extend") and not isinstance(call.args[0], ast.Starred):
            return call.func.attr, call.args[0]
    return None



class _Unknown(ast.expr):
    """A value kvguard does not know (one way through the statements left it so)."""


_UNKNOWN = _Unknown()
#: where a change kvguard does not follow may have run, among the statements before a read
_UNSEEN_CHANGE = ast.Pass()
#: the most ways through the statements before a read that are followed
_MAX_WAYS = 32


class _Binding:
    """``with``: names bound to the values of one pass of a loop, the values they held before put back after."""

    def __init__(self, values: dict[str, ast.AST], frame: dict[str, ast.AST]):
        self.values, self.frame = values, frame
        self.hidden: dict[str, ast.AST] = {}

    def __enter__(self) -> None:
        self.hidden = {name: self.values[name] for name in self.frame if name in self.values}
        self.values.update(self.frame)

    def __exit__(self, *_exc: object) -> None:
        for name in self.frame:
            self.values.pop(name, None)
        self.values.update(self.hidden)


def _fields(given: _Given) -> tuple[object, ...]:
    return given.text, given.kind, given.number, given.known, repr(given.literal)


def _step(statement: ast.stmt, name: str) -> "Optional[tuple[str, ast.AST, Optional[ast.AST]]]":
    """How a statement that changes ``name`` does it, when it is a change the replay follows: ``assign``
    (``name = value``, ``a = name = value``), ``augment`` (``name op= value``), ``append`` / ``extend`` (the
    list methods), ``insert`` or ``pop`` (with its index), ``remove`` (with its value); None for any other change."""
    if isinstance(statement, ast.Assign) and all(isinstance(target, ast.Name) for target in statement.targets) \
            and any(isinstance(target, ast.Name) and target.id == name for target in statement.targets):
        return "assign", statement.value, None
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
            and statement.target.id == name and statement.value is not None:
        return "assign", statement.value, None
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
            and statement.target.id == name:
        return "augment", statement.value, None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == name and not call.keywords \
                and not any(isinstance(arg, ast.Starred) for arg in call.args):
            if call.func.attr in ("append", "extend") and len(call.args) == 1:
                return call.func.attr, call.args[0], None
            if call.func.attr == "insert" and len(call.args) == 2:
                return "insert", call.args[1], call.args[0]
            if call.func.attr == "remove" and len(call.args) == 1:
                return "remove", call.args[0], None
            if call.func.attr == "pop" and len(call.args) <= 1:
                return "pop", call.func.value, call.args[0] if call.args else ast.Constant(-1)
    return None


def _changes_within(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` or a statement nested in it binds ``name`` or changes the list it holds (a nested
    function or class binds its own names: only its own name and a ``global`` / ``nonlocal`` there count)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name or any(isinstance(inner, (ast.Global, ast.Nonlocal)) and name in inner.names
                                        for inner in ast.walk(node)):
                return True
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name).split(".")[0] == name for alias in node.names):
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
        if isinstance(node, ast.stmt) and _changes(node, name):
            return True
        stack.extend(child for child in ast.iter_child_nodes(node))
    return False


def _bound_inside(statement: ast.stmt, name: ast.Name) -> bool:
    """Whether ``name`` is read inside a comprehension or ``lambda`` of ``statement`` that binds it itself."""
    for node in ast.walk(statement):
        bound: set[str] = set()
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            bound = {target.id for generator in node.generators for target in ast.walk(generator.target)
                     if isinstance(target, ast.Name)}
        elif isinstance(node, ast.Lambda):
            bound = set(_parameters(node))
        if name.id in bound and any(inner is name for inner in ast.walk(node)):
            return True
    return False


def _parameters(function: "ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda") -> list[str]:
    arguments = function.args
    names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return names


def _own_nodes(function: ast.AST) -> "list[ast.AST]":
    """The nodes of a function's body, not those of the functions, classes and lambdas nested in it."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def _local_to(function: "ast.FunctionDef | ast.AsyncFunctionDef", name: str) -> bool:
    """Whether ``name`` is a local name of ``function`` (a parameter, or bound in its own body and not declared
    ``global`` / ``nonlocal`` there)."""
    own = _own_nodes(function)
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names for node in own):
        return False
    return name in _parameters(function) or any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
        or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name
        or isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (alias.asname or alias.name).split(".")[0] == name for alias in node.names)
        for node in own)


def _declared_elsewhere(within: ast.AST, scope: ast.AST, name: str, only: Optional[ast.AST] = None) -> bool:
    """Whether a function nested in ``within`` (other than ``scope``; ``only``: that one function) may change
    ``scope``'s ``name``: it declares it ``global`` / ``nonlocal``, or changes the list it holds without binding
    the name itself."""
    for node in ast.walk(within) if only is None else [only]:
        if node is scope or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        own = _own_nodes(node)
        if any(isinstance(inner, (ast.Global, ast.Nonlocal)) and name in inner.names for inner in own):
            return True
        if isinstance(node, ast.Lambda):
            local = name in _parameters(node)
        else:
            local = _local_to(node, name)
        if not local and any(isinstance(inner, ast.stmt) and _changes(inner, name) for inner in own) or not local \
                and any(isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                        and inner.value.id == name and inner.attr in _LIST_CHANGES for inner in own):
            return True
    return False


#: a word that may be the text of a value that is no string (a number, ``True``, ``None``): an item written so may be
#: one, which ``list.remove`` of the string does not match
_NOT_ONLY_TEXT = re.compile(r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+|inf|nan)|True|False|None",
                            re.IGNORECASE)


def _may_stop_partway(statement: ast.stmt, name: str) -> bool:
    """Whether an exception may stop ``statement`` after it changed ``name`` and before it is done: a statement
    holding others, a call (of a function that changes it), a list extended from what may be an iterator."""
    if any(isinstance(child, ast.stmt) for child in ast.iter_child_nodes(statement)):
        return True
    step = _step(statement, name)
    if step is None:
        return True
    how, value, _index = step
    return how in ("extend", "augment") and not isinstance(value, (ast.List, ast.Tuple, ast.Constant, ast.JoinedStr))


def _module_statements(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of the module's body, and of the ``if`` / ``with`` blocks in it (which run at most once,
    in the module's order), nested."""
    out: list[ast.stmt] = []
    for statement in statements:
        out.append(statement)
        if isinstance(statement, ast.If):
            out += _module_statements(statement.body) + _module_statements(statement.orelse)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            out += _module_statements(statement.body)
    return out


def _is_format(node: ast.AST) -> "TypeGuard[ast.Call]":
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"


def _names_a_launch(item: ast.AST) -> bool:
    """Whether a list item is a literal word of a launch (``"vllm"``, ``"serve"``, ``"vllm.entrypoints…"``):
    the lists worth reading when no call reads them."""
    return isinstance(item, ast.Constant) and isinstance(item.value, str) and (
        "vllm" in item.value.lower() or item.value == "serve")


def _shell_true(call: ast.Call) -> bool:
    value = _keyword(call, "shell")
    return isinstance(value, ast.Constant) and value.value is True


def _command_line(script: _Script, call: ast.Call) -> Optional[str]:
    """The call's command as one line of shell text, or None when the call starts no program kvguard reads."""
    name = script.dotted(call.func)
    if name is None:
        return None
    if name in _ARGV_CALLS:
        given = call.args[0] if call.args else _keyword(call, "args")
        if given is None:
            return None
        if _shell_true(call):
            if isinstance(given, (ast.List, ast.Tuple)):   # the shell runs the first item; the rest are $0, $1, …
                script.read.add(id(given))
                return script.shell_text(given.elts[0]) if given.elts else None
            return script.shell_text(given)
        if isinstance(given, ast.Call) and script.dotted(given.func) == "shlex.split" and given.args:
            return script.shell_text(given.args[0])
        words = script.words(given)
        if words is None:
            words = script.launch_inside(given)
        return " ".join(words) if words else None
    if name in _OS_ARGV_CALLS:
        index = _OS_ARGV_CALLS[name]
        if len(call.args) <= index:
            return None
        words = script.words(call.args[index])
        if words is None:
            words = script.launch_inside(call.args[index])
        return " ".join(words) if words else None
    if name in _TEXT_CALLS:
        return script.shell_text(call.args[0]) if call.args else None
    if name in _VARARG_CALLS:
        first = 1 if name.startswith("os.exec") else 0   # os.execl(path, arg0, ...): arg0 onwards are the words
        words = [script.word(arg) for arg in call.args[first:] if not isinstance(arg, ast.Starred)]
        if name in ("os.execle", "os.execlpe") and words:
            words = words[:-1]   # the last argument is the environment
        return " ".join(words) if words else None
    return None


#: the comparisons an ``if`` test kvguard decides may make
_COMPARISONS: "dict[type, Callable[[object, object], object]]" = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,   # type: ignore[operator]
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,   # type: ignore[operator]
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,   # type: ignore[operator]
    ast.Is: lambda a, b: _identical(a, b), ast.IsNot: lambda a, b: not _identical(a, b),
}


def _jumps(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The ``continue`` / ``break`` (of the loop these statements are in), ``return`` / ``raise`` and the calls
    that end the script (:func:`_ends_the_script`) among ``statements``, at any depth but not in a nested function
    or class (nor, for ``continue`` / ``break``, in a nested loop)."""
    out: list[ast.stmt] = []
    stack: list[tuple[ast.AST, bool]] = [(statement, False) for statement in statements]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Continue, ast.Break)) and not in_loop or isinstance(node, (ast.Return, ast.Raise)) \
                or isinstance(node, ast.Expr) and _ends_the_script(node.value):
            out.append(node)  # type: ignore[arg-type]
        nested = in_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((child, nested) for child in ast.iter_child_nodes(node))
    return out


def _ends_the_script(node: ast.AST) -> bool:
    """``sys.exit(...)``, ``exit()`` / ``quit()``, ``os._exit`` / ``os.abort`` and the ``os.exec*`` calls (the
    script is replaced by the program): nothing after one that runs is run."""
    name = _dotted(node.func) if isinstance(node, ast.Call) else None
    return name is not None and (name in ("sys.exit", "exit", "quit", "os._exit", "os.abort")
                                 or name.startswith("os.exec"))


def _identical(one: object, other: object) -> bool:
    """``is`` where Python's answer does not depend on how it stores the values: against None (or True/False)."""
    if not any(value is None or isinstance(value, bool) for value in (one, other)):
        raise TypeError("identity of values kvguard does not hold as Python does")
    return one is other


def _call_launches(script: _Script, call: ast.Call, path: str, variables: Variables, kind: str) -> list[Launch]:
    if not script.runs(call):
        return []                   # in a branch the script does not take
    script.environment_reads.clear()
    line = _command_line(script, call)
    if not line or "vllm" not in line.lower():
        return []
    scope = Variables(variables.overrides, variables).with_environment(script.known_environment(call, line))
    launches = shell_launches(path, [(call.lineno, line)], scope, kind)
    notes = tuple(f"the script's option {flag} is taken at its default, {value} (`--set {name}=…` checks another)"
                  for name, (flag, value) in script.defaults_taken.items()
                  if "${" + name + ":-" in line and name not in variables.overrides)
    for launch in launches:
        launch.notes += notes
    return launches


def _literal_range(call: ast.Call) -> Optional[list[ast.AST]]:
    """``range(...)`` of integer literals, as literals (None for anything else or a range longer than a sweep)."""
    if _dotted(call.func) != "range" or call.keywords or not 1 <= len(call.args) <= 3 \
            or not all(isinstance(a, ast.Constant) and type(a.value) is int for a in call.args):
        return None
    bounds = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
    if len(bounds) == 3 and bounds[2] == 0:
        return None                          # range() refuses a zero step
    values = range(*bounds)
    if len(values) > _MAX_LOOP_COMBINATIONS:
        return None
    return [ast.Constant(value) for value in values]


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _label_value(value: ast.AST) -> str:
    if isinstance(value, _Given):
        return value.text.replace(_DOLLAR, "$")
    return str(value.value) if isinstance(value, ast.Constant) else "?"


def python_launches(path: str, text: str, variables: Variables, kind: str = "python") -> list[Launch]:
    """The launches a Python script starts (one that names no vLLM starts none without being parsed).

    Raises :class:`PythonUnreadable` for a script that names vLLM but does not parse."""
    if "vllm" not in text.lower():
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        # the parser is this interpreter's: newer syntax reads as invalid on an older Python
        raise PythonUnreadable(f"invalid Python{_PARSER}: {exc.msg} (line {exc.lineno})") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise PythonUnreadable(f"invalid Python{_PARSER}: {type(exc).__name__}") from None
    script = _Script(tree)
    out: list[Launch] = []
    calls: list[ast.Call] = []
    lists: list[ast.List | ast.Tuple] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, (ast.List, ast.Tuple)) and any(_names_a_launch(item) for item in node.elts):
            lists.append(node)
    for call in sorted(calls, key=lambda n: n.lineno):
        if _command_line(script, call) is None:
            continue
        frame_kind, frames = script.frames(call)
        if frames is None:
            out += _call_launches(script, call, path, variables, kind)
            continue
        collector = Collector(frame_kind)
        for frame in frames:     # the call once per run: per call site of its function, per loop value
            hidden = {name: script.values[name] for name in frame if name in script.values}
            script.values.update(frame)
            for launch in _call_launches(script, call, path, variables, kind):
                collector.add({name: _label_value(value) for name, value in frame.items()}, launch)
            for name in frame:
                del script.values[name]
            script.values.update(hidden)
        out += collector.launches()
    # an argument list no call above reads (built by a helper, handed to a wrapper): a launch where it is written
    for node in lists:
        if id(node) in script.read or script.text(node.elts[0]) is None:
            continue
        words = script.words(node)
        if not words or "vllm" not in " ".join(words).lower():
            continue
        scope = Variables(variables.overrides, variables).with_environment(script.known_environment(node, " ".join(words)))
        out += shell_launches(path, [(node.lineno, " ".join(words))], scope, kind)
    return sorted(out, key=lambda launch: launch.line)
