"""The small expression language of kvguard/data/quant_archs.json (layer sizes and conditions).

Python expression syntax, restricted to what a layer template needs: names (resolved config
attributes and launch values), integer and None constants, ``+ - * // %``, comparisons (``in``,
``is None``), ``and``/``or``/``not``, conditional expressions, list literals and indexing a list by an integer
(``layer_head_dim[i]``: a per-layer value, Gemma 4's heterogeneous layers).  Parsed once
with :mod:`ast`; nothing else is evaluated.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

__all__ = ["ExpressionError", "evaluate"]

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
        ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


@lru_cache(maxsize=None)
def _parse(expr: str) -> ast.expr:
    return ast.parse(expr, mode="eval").body


class ExpressionError(ValueError):
    """A template's arithmetic failed on the values it was given: a config value left unset (None) or of
    another type, where vLLM's own code fails in the same arithmetic."""


def evaluate(expr: Any, names: Mapping[str, Any]) -> Any:
    """The value of ``expr`` (a string, or a constant used as it is) over ``names``."""
    if not isinstance(expr, str):
        return expr
    try:
        return _eval(_parse(expr), names)
    except (TypeError, ArithmeticError) as exc:
        raise ExpressionError(f"{expr}: {type(exc).__name__}: {exc}") from exc


def _eval(node: ast.expr, names: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _BIN[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            value: Any = True
            for item in node.values:
                value = _eval(item, names)
                if not value:
                    return value
            return value
        value = False
        for item in node.values:
            value = _eval(item, names)
            if value:
                return value
        return value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, names)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, names) if _eval(node.test, names) else _eval(node.orelse, names)
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        seq, index = _eval(node.value, names), _eval(node.slice, names)
        if not isinstance(seq, (list, tuple)) or type(index) is not int or not -len(seq) <= index < len(seq):
            # a per-layer list the config does not hold (or shorter than the layers): vLLM's own read fails too
            raise TypeError(f"{ast.unparse(node)}: no item {index!r} in {type(seq).__name__}")
        return seq[index]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e, names) for e in node.elts]
    raise ValueError(f"unsupported expression: {ast.unparse(node)}")
