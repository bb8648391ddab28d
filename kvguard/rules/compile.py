"""A release's rows as one Python function: the rule conditions inlined, no per-row call.

:mod:`kvguard.rules.engine` runs a release's rows in order; the first row whose
callable returns something truthy refuses the launch.  Calling ~50 small
functions per check is most of a check's cost, so for each (release, entry)
this module writes one function whose body is, per row, ``if <condition>:
return <index>`` — the condition being the body of the row's ``when=lambda s:
…`` as written in :mod:`kvguard.rules.table` (read with :mod:`ast` from that
file, never from input), or a call of the row's callable when it is not such a
lambda (steps, named functions, closures).  It runs with the table module's
globals, so every name means what it means in the lambda.

An exception leaves the function at the row that raised it; :func:`row_of`
finds that row from the traceback's line number.  ``tests/test_compiled.py``
checks the compiled program against the plain loop for every release.
"""

from __future__ import annotations

from functools import lru_cache
from types import CodeType, TracebackType
from typing import Any, Callable, Optional, Sequence

__all__ = ["compile_rows", "row_of"]


@lru_cache(maxsize=1)
def _inlinable() -> dict[int, Optional[str]]:
    """First line of each ``when=lambda s: EXPR`` in table.py -> EXPR's source (None when a line
    holds more than one such lambda: ambiguous, not inlined)."""
    import ast
    import inspect

    from . import table

    tree = ast.parse(inspect.getsource(table))
    out: dict[int, Optional[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            lam = kw.value
            if kw.arg != "when" or not isinstance(lam, ast.Lambda):
                continue
            a = lam.args
            plain = (len(a.args) == 1 and a.args[0].arg == "s" and not (a.posonlyargs or a.kwonlyargs
                     or a.vararg or a.kwarg or a.defaults))
            out[lam.lineno] = ast.unparse(lam.body) if plain and lam.lineno not in out else None
    return out


def _lambda_source(fn: Callable) -> Optional[str]:
    """The body of ``fn`` when it is one of table.py's plain ``when=lambda s: EXPR`` conditions."""
    from . import table

    code = getattr(fn, "__code__", None)
    if (code is None or getattr(fn, "__name__", "") != "<lambda>" or code.co_filename != table.__file__
            or code.co_freevars or code.co_argcount != 1 or code.co_varnames[:1] != ("s",)
            or getattr(fn, "__defaults__", None)):
        return None
    return _inlinable().get(code.co_firstlineno)


def _plainly_valid(row: Any) -> Optional[str]:
    """For a FieldRule: an expression true when every field is a value pydantic certainly accepts
    (engine._plainly_valid, written out), so its validation can be skipped."""
    terms = []
    for _name, attr, kind, bound in getattr(row, "fields", ()):
        if not attr.isidentifier():
            return None
        v = f"s.{attr}"
        allowed = bound if isinstance(bound, tuple) else (bound,)
        if kind == "ge" and type(bound) is int:
            terms.append(f"(type({v}) is int and {v} >= {bound!r})")
        elif kind in ("ge?", "gt?") and type(bound) is int:
            op = ">=" if kind == "ge?" else ">"
            terms.append(f"({v} is None or (type({v}) is int and {v} {op} {bound!r}))")
        elif kind in ("literal", "literal?") and all(type(a) is str for a in allowed):
            term = f"(type({v}) is str and {v} in {allowed!r})"
            terms.append(f"({v} is None or {term})" if kind == "literal?" else term)
        else:
            return None
    return " and ".join(terms) or None


def compile_rows(calls: Sequence[Callable], rows: Sequence[Any],
                 name: str) -> tuple[Callable[[Any, Sequence], int], dict[int, int]]:
    """``(run, lines)``: ``run(s, calls)`` returns the index of the first row whose callable (or
    inlined condition) is truthy, or -1; ``lines`` maps a line of ``run`` to its row index."""
    from . import FieldRule, table

    body = ["def run(s, c):"]
    lines: dict[int, int] = {}
    for i, (fn, row) in enumerate(zip(calls, rows)):
        expr = _lambda_source(fn)
        valid = _plainly_valid(row) if isinstance(row, FieldRule) else None
        if expr is not None:
            cond = f"({expr})"
        elif valid is not None:
            cond = f"not ({valid}) and c[{i}](s)"
        else:
            cond = f"c[{i}](s)"
        body.append(f"    if {cond}: return {i}")
        lines[len(body)] = i
    body.append("    return -1")
    namespace = dict(vars(table))
    code = compile("\n".join(body) + "\n", f"<kvguard rules {name}>", "exec")
    exec(code, namespace)  # noqa: S102 - our own table's conditions, rewritten; no input reaches it
    return namespace["run"], lines


def row_of(tb: Optional[TracebackType], code: CodeType, lines: dict[int, int]) -> int:
    """The row index at which ``code`` (a compiled ``run``) was left by the exception of ``tb``."""
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return lines[tb.tb_lineno]
        tb = tb.tb_next
    raise LookupError("the exception did not pass through the compiled rows")
