"""huggingface_hub's ``@strict`` dataclass checks, as transformers 5 config classes run them.

Every field assignment of a ``@strict`` class is checked against the field's declared type and its
field validators (huggingface_hub ``dataclasses.py``: ``type_validator`` and friends; transformers
``utils/type_validators.py``: ``interval``, ``probability``, …); a failure is re-raised as
``StrictDataclassFieldValidationError``.  After ``__init__`` the class validators (``validate_*``)
run, a failure re-raised as ``StrictDataclassClassValidationError``.  Both exception types and every
message are huggingface_hub's, character for character.

Declared types come from the class tables as text (tools/facts_transformers5.py ``type_expr``):
``int | None``, ``list[int]``, ``dict[str, Any]``, ``Literal['a', 'b']``, ``TypedDict[module.Name]``,
dotted class names (what each is: the line's ``type_classes`` table), quoted text for an annotation
Python keeps as a string (not checked).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["StrictDataclassClassValidationError", "StrictDataclassError", "StrictDataclassFieldValidationError", "TypeNode",
           "check_field", "parse_type"]


class StrictDataclassError(Exception):
    _kvg_module = "huggingface_hub.errors"


class StrictDataclassFieldValidationError(StrictDataclassError):
    def __init__(self, field: str, cause: BaseException):
        super().__init__(f"Validation error for field '{field}':\n    {cause.__class__.__name__}: {cause}")


class StrictDataclassClassValidationError(StrictDataclassError):
    def __init__(self, validator: str, cause: BaseException):
        super().__init__(f"Class validation error for validator '{validator}':\n    {cause.__class__.__name__}: {cause}")


# ---------------------------------------------------------------------------------------------
# type text -> tree


class TypeNode:
    """One node of a declared type: ``kind`` is ``union`` / ``typing_union`` / ``literal`` / ``generic`` /
    ``builtin`` / ``none`` / ``any`` / ``class`` / ``typeddict`` / ``string`` / ``forward`` / ``unknown``."""

    __slots__ = ("kind", "name", "args")

    def __init__(self, kind: str, name: str = "", args: tuple = ()):
        self.kind = kind
        self.name = name
        self.args = args

    def __repr__(self) -> str:
        return f"TypeNode({self.kind}, {self.name!r}, {self.args!r})"


_TOKEN = re.compile(r"\s*(?:('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(-?\d+(?:\.\d+)?(?:e-?\d+)?)|"
                    r"([A-Za-z_][\w.]*)|(\.\.\.)|([\[\],|?]))")

_BUILTIN_NAMES = frozenset({"int", "float", "str", "bool", "bytes", "list", "dict", "tuple", "set", "frozenset",
                            "object", "complex", "NoneType"})


@lru_cache(maxsize=None)
def parse_type(text: str) -> TypeNode:
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise Undecidable(f"declared type {text!r} is not in kvguard's type vocabulary")
        tokens.append(m.group(1) or m.group(2) or m.group(3) or m.group(4) or m.group(5))
        pos = m.end()
    parser = _Parser(tokens, text)
    node = parser.union()
    if parser.pos != len(tokens):
        raise Undecidable(f"declared type {text!r} is not in kvguard's type vocabulary")
    return node


class _Parser:
    def __init__(self, tokens: list, text: str):
        self.tokens = tokens
        self.pos = 0
        self.text = text

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: "str | None" = None):
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise Undecidable(f"declared type {self.text!r} is not in kvguard's type vocabulary")
        self.pos += 1
        return tok

    def union(self) -> TypeNode:
        members = [self.atom()]
        while self.peek() == "|":
            self.take("|")
            members.append(self.atom())
        if len(members) == 1:
            return members[0]
        flat: list = []
        for m in members:  # ``a | b`` of a union flattens as types.UnionType does
            flat.extend(m.args if m.kind == "union" else (m,))
        return TypeNode("union", "", tuple(_dedupe(flat)))

    def args(self) -> tuple:
        self.take("[")
        out = []
        if self.peek() == "]":
            self.take("]")
            return ()
        while True:
            if self.peek() == "...":
                self.take()
                out.append(TypeNode("ellipsis"))
            else:
                out.append(self.union())
            if self.peek() == ",":
                self.take(",")
                continue
            self.take("]")
            return tuple(out)

    def atom(self) -> TypeNode:
        tok = self.take()
        if tok == "?":
            return TypeNode("unknown", self.take())
        if tok[0] in "'\"":
            return TypeNode("string", _unquote(tok))
        if tok == "None":
            return TypeNode("none")
        if tok == "Any":
            return TypeNode("any")
        if tok == "Literal":
            self.take("[")
            values = []
            while True:
                values.append(_literal_token(self.take()))
                if self.peek() == ",":
                    self.take(",")
                    continue
                self.take("]")
                return TypeNode("literal", "", tuple(values))
        if tok == "Union":
            return TypeNode("typing_union", "", tuple(_dedupe(self.args())))
        if tok == "TypedDict":
            self.take("[")
            name = self.take()
            self.take("]")
            return TypeNode("typeddict", name)
        if tok == "ForwardRef":
            self.take("[")
            name = _unquote(self.take())
            self.take("]")
            return TypeNode("forward", name)
        if tok in ("list", "dict", "tuple", "set", "frozenset", "Sequence", "type") and self.peek() == "[":
            return TypeNode("generic", tok, self.args())
        if tok in _BUILTIN_NAMES:
            return TypeNode("builtin", tok)
        return TypeNode("class", tok)


def _dedupe(nodes) -> list:
    out, seen = [], set()
    for n in nodes:
        key = _repr_in_generic(n)
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out


def _unquote(tok: str) -> str:
    if "\\" not in tok:   # a quoted token without escapes is its text (no ``ast`` import: a cold check)
        return tok[1:-1]
    import ast
    return ast.literal_eval(tok)


def _literal_token(tok: str) -> Any:
    if tok in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[tok]
    if tok[0] in "'\"":
        return _unquote(tok)
    digits = tok[1:] if tok[0] == "-" else tok
    if digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0"):  # a Python int literal
        return int(tok)
    import ast
    try:
        return ast.literal_eval(tok)
    except (ValueError, SyntaxError):
        raise Undecidable(f"Literal value {tok!r} is not in kvguard's type vocabulary") from None


# ---------------------------------------------------------------------------------------------
# how Python prints a type (the union message prints its members)


def type_repr(node: TypeNode) -> str:
    """``repr(t)`` of the type object."""
    if node.kind == "builtin":
        return f"<class '{node.name}'>"
    if node.kind == "none":
        return "<class 'NoneType'>"
    if node.kind in ("class", "typeddict"):
        return f"<class '{node.name}'>"
    return _repr_in_generic(node)


def _repr_in_generic(node: TypeNode) -> str:
    """How the type prints as an argument of a generic alias (``list[int]``, ``dict[str, typing.Any]``)."""
    kind = node.kind
    if kind == "builtin" and node.name == "NoneType" or kind == "none":
        return "None"
    if kind == "builtin" or kind in ("class", "typeddict"):
        return node.name
    if kind == "any":
        return "typing.Any"
    if kind == "literal":
        return "typing.Literal[" + ", ".join(repr(v) for v in node.args) + "]"
    if kind == "union":
        return " | ".join(_repr_in_generic(a) for a in node.args)
    if kind == "typing_union":
        names = ["NoneType" if _is_none_type(a) else _repr_in_generic(a) for a in node.args]
        if len(node.args) == 2 and any(_is_none_type(a) for a in node.args):
            other = next(a for a in node.args if not _is_none_type(a))
            return f"typing.Optional[{_repr_in_generic(other)}]"
        return "typing.Union[" + ", ".join(names) + "]"
    if kind == "generic":
        name = "collections.abc.Sequence" if node.name == "Sequence" else node.name
        return name + "[" + ", ".join("..." if a.kind == "ellipsis" else _repr_in_generic(a) for a in node.args) + "]"
    if kind == "forward":
        return f"ForwardRef({node.name!r})"
    if kind == "string":
        return repr(node.name)
    raise Undecidable(f"kvguard cannot print the type {node}")


# ---------------------------------------------------------------------------------------------
# type_validator


def _is_none_type(node: TypeNode) -> bool:
    return node.kind == "none" or (node.kind == "builtin" and node.name == "NoneType")


def _type_name(value: Any) -> str:
    from .objects import ConfigObject, TorchDtype
    if isinstance(value, ConfigObject):
        return value.kvg_class_name
    if isinstance(value, TorchDtype):
        return "dtype"
    return type(value).__name__


class _Unprintable(TypeError):
    """A check failed on a config object: huggingface_hub printed ``repr(value)`` into the message, which kvguard
    does not reproduce — harmless while another member of a union accepts the value."""


def _value_repr(value: Any) -> str:
    from .objects import ConfigObject, TorchDtype
    if isinstance(value, ConfigObject):
        # the message is built eagerly: repr(config) runs (and raises what it raises) even when it is discarded
        value.kvg_facts.library.repr_check(value)
        raise _Unprintable(value.kvg_class_name)
    if isinstance(value, TorchDtype):
        return repr(value)
    _check_printable(value)
    return repr(value)


def _check_printable(value: Any) -> None:
    from .objects import ConfigObject
    if isinstance(value, (list, tuple, set)):
        for v in value:
            _check_printable(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_printable(k)
            _check_printable(v)
    elif isinstance(value, ConfigObject):
        value.kvg_facts.library.repr_check(value)
        raise _Unprintable(value.kvg_class_name)


def type_check(name: str, value: Any, node: TypeNode, type_classes: dict) -> None:
    """``type_validator(name, value, expected_type)``: TypeError as huggingface_hub raises it."""
    kind = node.kind
    if kind == "any" or kind in ("string", "forward"):
        return
    if kind == "none":
        if value is not None:
            raise TypeError(f"Field '{name}' expected None, got {_type_name(value)}")
        return
    if kind in ("union", "typing_union"):
        errors: list[str | _Unprintable] = []
        for member in node.args:
            try:
                type_check(name, value, member, type_classes)
                return
            except _Unprintable as exc:
                errors.append(exc)
            except TypeError as exc:
                errors.append(str(exc))
        if any(isinstance(e, _Unprintable) for e in errors):
            raise Undecidable(f"the printed form of a {_type_name(value)} in a validation message is not modelled")
        args = "(" + ", ".join(type_repr(a) for a in node.args) + ("," if len(node.args) == 1 else "") + ")"
        raise TypeError(f"Field '{name}' with value {_value_repr(value)} doesn't match any type in {args}. "
                        f"Errors: {'; '.join(str(e) for e in errors)}")  # all str here
    if kind == "literal":
        choices = node.args
        shown = "(" + ", ".join(repr(a) for a in choices) + ("," if len(choices) == 1 else "") + ")"
        if isinstance(value, bool):
            ok = value in [a for a in choices if isinstance(a, bool)]
        elif isinstance(value, int):
            ok = value in [a for a in choices if isinstance(a, int) and not isinstance(a, bool)]
        else:
            _hashable_compare(value)
            ok = value in choices
        if not ok:
            raise TypeError(f"Field '{name}' expected one of {shown}, got {_plain_str(value)}")
        return
    if kind == "generic":
        _generic_check(name, value, node, type_classes)
        return
    if kind == "builtin":
        _simple_check(name, value, node.name)
        return
    if kind == "typeddict":
        raise TypeError("TypedDict does not support instance and class checks")
    if kind == "class":
        _class_check(name, value, node.name, type_classes)
        return
    raise Undecidable(f"field {name!r}: declared type {node} is not modelled")


def _hashable_compare(value: Any) -> None:
    from .objects import ConfigObject
    if isinstance(value, ConfigObject):
        raise Undecidable("comparing a config object with Literal values is not modelled")


def _plain_str(value: Any) -> str:
    _check_printable(value)
    return str(value)


_PY_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "bytes": bytes, "list": list, "dict": dict,
             "tuple": tuple, "set": set, "frozenset": frozenset, "object": object, "complex": complex,
             "NoneType": type(None)}


def _simple_check(name: str, value: Any, type_name: str) -> None:
    from .objects import ConfigObject, TorchDtype
    expected = _PY_TYPES[type_name]
    if expected is int and isinstance(value, bool):
        raise TypeError(f"Field '{name}' expected {type_name}, got {_type_name(value)} (value: {_value_repr(value)})")
    if isinstance(value, (ConfigObject, TorchDtype)):
        ok = expected is object
    else:
        ok = isinstance(value, expected)
    if not ok:
        raise TypeError(f"Field '{name}' expected {type_name}, got {_type_name(value)} (value: {_value_repr(value)})")


def _class_check(name: str, value: Any, dotted: str, type_classes: dict) -> None:
    from .objects import ConfigObject, TorchDtype
    info = type_classes.get(dotted)
    if info is None:
        raise Undecidable(f"field {name!r}: the class {dotted} is not in kvguard's tables")
    kind = info["kind"]
    if kind == "config":
        ok = isinstance(value, ConfigObject) and (info["name"] in ("PreTrainedConfig", "PretrainedConfig")
                                                  or value.kvg_facts.is_sub(info["name"]))
    elif kind == "dtype":
        ok = isinstance(value, TorchDtype)
    elif kind == "typeddict":
        raise TypeError("TypedDict does not support instance and class checks")
    else:
        mro = info.get("mro") or []
        if isinstance(value, (ConfigObject, TorchDtype)):
            raise Undecidable(f"field {name!r}: a check against {dotted} is not modelled")
        ok = any(f"{c.__module__}.{c.__qualname__}" in mro for c in type(value).__mro__)
    if not ok:
        short = dotted.rsplit(".", 1)[-1]
        raise TypeError(f"Field '{name}' expected {short}, got {_type_name(value)} (value: {_value_repr(value)})")


_CONTAINERS = {"list": (list, "a list"), "dict": (dict, "a dict"), "tuple": (tuple, "a tuple"), "set": (set, "a set")}


def _check_each(checks: Iterable[tuple[str, Any, TypeNode, str]], type_classes: dict) -> None:
    """Type-check the items of a container in order; an item's failure is re-raised as the container's
    own TypeError (``refusal``), chained to the item's, which is how the validator reports it."""
    for item_name, item, node, refusal in checks:
        try:
            type_check(item_name, item, node, type_classes)
        except TypeError as exc:
            raise TypeError(refusal) from exc


def _generic_check(name: str, value: Any, node: TypeNode, type_classes: dict) -> None:
    from .objects import ConfigObject
    origin, args = node.name, node.args
    if origin in _CONTAINERS:
        container, article = _CONTAINERS[origin]
        if not isinstance(value, container):
            raise TypeError(f"Field '{name}' expected {article}, got {_type_name(value)}")
    if origin == "list":
        if args:
            _check_each(((f"{name}[{i}]", item, args[0], f"Invalid item at index {i} in list '{name}'")
                         for i, item in enumerate(value)), type_classes)
        return
    if origin == "dict":
        if args:
            key_type, value_type = args
            _check_each((check for k, v in value.items() for check in (
                (f"{name}.key", k, key_type, f"Invalid key or value in dict '{name}'"),
                (f"{name}[{_value_repr(k)}]", v, value_type, f"Invalid key or value in dict '{name}'"))),
                type_classes)
        return
    if origin == "tuple":
        if len(args) == 2 and args[1].kind == "ellipsis":
            expected_types = [args[0]] * len(value)
        elif len(args) != len(value):
            raise TypeError(f"Field '{name}' expected a tuple of length {len(args)}, got {len(value)}")
        else:
            expected_types = list(args)
        _check_each(((f"{name}[{i}]", item, expected, f"Invalid item at index {i} in tuple '{name}'")
                     for i, (item, expected) in enumerate(zip(value, expected_types))), type_classes)
        return
    if origin == "set":
        if args:
            _check_each(((f"{name} item", item, args[0], f"Invalid item in set '{name}'") for item in value),
                        type_classes)
        return
    if origin == "Sequence":
        import collections.abc
        if isinstance(value, ConfigObject) or not isinstance(value, collections.abc.Sequence):
            raise TypeError(f"Field '{name}' expected a Sequence, got {_type_name(value)}")
        if args:
            _check_each(((f"{name}[{i}]", item, args[0], f"Invalid item at index {i} in sequence '{name}'")
                         for i, item in enumerate(value)), type_classes)
        return
    raise TypeError(f"Unsupported type for field '{name}': {_repr_in_generic(node)}")


# ---------------------------------------------------------------------------------------------
# field validators (transformers utils/type_validators.py)


def _interval(value: Any, spec: dict) -> None:
    lo = spec["min"] if spec["min"] is not None else float("-inf")
    hi = spec["max"] if spec["max"] is not None else float("inf")
    min_valid = lo <= value if not spec["exclude_min"] else lo < value
    max_valid = value <= hi if not spec["exclude_max"] else value < hi
    if not (min_valid and max_valid):
        raise ValueError(spec["message"].format(value=_formatted(value)))


def _formatted(value: Any) -> Any:
    from .objects import ConfigObject
    if isinstance(value, ConfigObject):
        raise Undecidable("a config object in a validation message is not modelled")
    return value


def _probability(value: Any, spec: dict) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"Value must be a probability between 0.0 and 1.0, got {_formatted(value)}.")


def _divisible_by(value: Any, spec: dict) -> None:
    divisor = spec["divisor"]
    if value % divisor != 0:
        raise ValueError(f"Value has to be divisible by {divisor} but got value={_formatted(value)}")


def _activation_fn_key(value: Any, spec: dict) -> None:
    keys = spec["keys"]
    if len(keys) > 0 and value not in keys:
        raise ValueError(f"Value must be one of {list(keys)}, got {_formatted(value)}. "
                         "Make sure to use a string that corresponds to an activation function.")


FIELD_VALIDATORS = {"interval": _interval, "probability": _probability, "divisible_by": _divisible_by,
                    "activation_fn_key": _activation_fn_key}


def check_field(field: str, value: Any, spec: "tuple[TypeNode, list]", type_classes: dict) -> None:
    """What ``__strict_setattr__`` checks before ``setattr(obj, field, value)``."""
    node, validators = spec
    try:
        type_check(field, value, node, type_classes)
        for name, args in validators:
            fn = FIELD_VALIDATORS.get(name)
            if fn is None:
                raise Undecidable(f"field {field!r}: validator {args.get('qualname', name)} is not modelled")
            fn(value, args)
    except Undecidable:
        raise
    except _Unprintable:
        raise Undecidable(f"the printed form of a {_type_name(value)} in a validation message is not modelled") \
            from None
    except (ValueError, TypeError) as exc:
        raise StrictDataclassFieldValidationError(field=field, cause=exc) from exc
