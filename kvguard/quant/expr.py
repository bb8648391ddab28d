"""The small expression language of kvguard/data/quant_archs.json (layer sizes and conditions).

Python expression syntax, restricted to what a layer template needs: names (resolved config
attributes and launch values), integer and None constants, ``+ - * // %``, comparisons (``in``,
``is None``), ``and``/``or``/``not``, conditional expressions, list literals and indexing a list by an integer
(``layer_head_dim[i]``: a per-layer value, Gemma 4's heterogeneous layers).

Each expression is checked token by token against that vocabulary, then made once into a function of the
names it reads.  A name the scope does not hold reads as None; a name that is indexed is always indexed, and its
value must be a list holding the item.  The check reads tokens, not a syntax tree: importing Python's ``ast``
types costs a cold check more than the whole evaluation.  For the same reason the function comes from ``eval`` of
a ``lambda``, not from ``compile``: the builtin ``compile`` asks whether its source is a syntax tree, which
creates the ``ast`` node types (~9M instructions, 3% of a first check), while ``eval`` of a string does not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ExpressionError", "evaluate", "names_in"]

_TOKEN = re.compile(r"\s*(?:([A-Za-z_]\w*)|(\d+)|(\*\*|<<|>>|//|==|!=|<=|>=|[-+*%<>()\[\],])|(\S))")
_KEYWORDS = frozenset({"and", "or", "not", "is", "in", "if", "else", "None", "True", "False"})
#: Python keywords outside the vocabulary (a name that is one of them is no name)
_OTHER_KEYWORDS = frozenset({"await", "async", "assert", "break", "class", "continue", "def", "del", "elif", "except",
                             "finally", "for", "from", "global", "import", "lambda", "nonlocal", "pass", "raise",
                             "return", "try", "while", "with", "yield"})


class ExpressionError(ValueError):
    """A template's arithmetic failed on the values it was given: a config value left unset (None) or of
    another type, where vLLM's own code fails in the same arithmetic."""


class _Items:
    """An indexed name's value: only a list (or tuple) holding the item gives it."""

    __slots__ = ("name", "seq")

    def __init__(self, name: str, seq: Any):
        self.name = name
        self.seq = seq

    def __getitem__(self, index: Any) -> Any:
        seq = self.seq
        if not isinstance(seq, (list, tuple)) or type(index) is not int or not -len(seq) <= index < len(seq):
            # a per-layer list the config does not hold (or shorter than the layers): vLLM's own read fails too
            raise TypeError(f"{self.name}[{index!r}]: no item {index!r} in {type(seq).__name__}")
        return seq[index]


def _unsupported(text: str) -> ValueError:
    return ValueError(f"unsupported expression: {text}")


def _vocabulary(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """(names read, names indexed) of ``text``; ValueError for anything outside the vocabulary."""
    names: list[str] = []
    indexed: set[str] = set()
    plain: set[str] = set()
    opened: list[str] = []
    previous = ""       # the previous token's kind: "name", "value" (a constant or a closing bracket), "op", ""
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:          # only trailing whitespace is left
            break
        pos = match.end()
        word, number, op, other = match.groups()
        if other is not None or op in ("**", "<<", ">>"):
            raise _unsupported(text)
        if word is not None:
            if word in _OTHER_KEYWORDS:
                raise _unsupported(text)
            if word in _KEYWORDS:
                previous = "value" if word in ("None", "True", "False") else "op"
                continue
            if word not in names:
                names.append(word)
            previous = "name:" + word
            continue
        if number is not None:
            previous = "value"
            continue
        if op == "(":
            if previous.startswith("name:") or previous == "value":
                raise _unsupported(text)      # a call
            opened.append("(")
        elif op == "[":
            if previous.startswith("name:"):
                indexed.add(previous[5:])
                opened.append("index")
            elif previous == "value":
                raise _unsupported(text)      # indexing anything but a name
            else:
                opened.append("[")
        elif op in (")", "]"):
            if not opened or (op == ")") != (opened.pop() == "("):
                raise _unsupported(text)
            previous = "value"
            continue
        elif op == "," and (not opened or opened[-1] != "["):
            raise _unsupported(text)          # a tuple, or an index with a comma
        if previous.startswith("name:") and op != "[":
            plain.add(previous[5:])
        previous = "op"
    if previous.startswith("name:"):
        plain.add(previous[5:])
    if indexed & plain:
        raise _unsupported(text)              # a name both indexed and read whole
    return tuple(names), frozenset(indexed)


_GLOBALS: dict[str, Any] = {"__builtins__": {}}


@lru_cache(maxsize=None)
def _compiled(text: str) -> tuple[Any, tuple[str, ...], frozenset[str]]:
    """(the expression as a function of its names in order, or None for a bare name; the names; those indexed)."""
    names, indexed = _vocabulary(text)
    if not text.strip():
        raise _unsupported(text)
    if len(names) == 1 and text.strip() == names[0]:
        return None, names, indexed   # a bare name: read, not compiled
    try:
        # the vocabulary admits no comma outside brackets and no unbalanced closing bracket, so the parentheses
        # hold exactly the expression
        function = eval(f"lambda {', '.join(names)}: ({text})", _GLOBALS)  # noqa: S307 - checked above
    except SyntaxError:
        raise _unsupported(text) from None
    return function, names, indexed


def names_in(expr: Any) -> tuple[str, ...]:
    """The names ``expr`` reads (none for a constant)."""
    return _compiled(expr)[1] if isinstance(expr, str) else ()


def evaluate(expr: Any, names: Mapping[str, Any]) -> Any:
    """The value of ``expr`` (a string, or a constant used as it is) over ``names``."""
    if not isinstance(expr, str):
        return expr
    function, used, indexed = _compiled(expr)
    if function is None:
        return names.get(expr.strip())
    try:
        if indexed:
            return function(*[_Items(name, names.get(name)) if name in indexed else names.get(name) for name in used])
        return function(*[names.get(name) for name in used])
    except (TypeError, ArithmeticError) as exc:
        raise ExpressionError(f"{expr}: {type(exc).__name__}: {exc}") from exc
