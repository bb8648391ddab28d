"""The state a measured ``__init__`` / ``__post_init__`` runs on, the tables' literal values, and the bound on
per-layer lists: what every derivation (steps, classes5) works with."""

from __future__ import annotations

import copy

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_LAYERS", "Frame", "TooLarge", "bind_init_parameters", "bounded_count", "literal", "merge_keywords",
           "super_call_kwargs"]


class Frame:
    """The state one ``__init__`` / ``__post_init__`` works on: the object and the local names."""

    __slots__ = ("obj", "locals", "cls", "lib", "method")

    def __init__(self, obj: Any, locals_: dict, cls: Any, lib: Any, method: str):
        self.obj = obj
        self.locals = locals_
        self.cls = cls
        self.lib = lib
        self.method = method

    def get(self, var: Any) -> Any:
        if isinstance(var, dict):
            if "literal" in var:
                return literal(var["literal"])
            raise Undecidable(f"{self.cls.name}.{self.method}: a value kvguard does not model ({var})")
        if var.startswith("self."):
            return getattr(self.obj, var[5:])
        try:
            return self.locals[var]
        except KeyError:
            raise Undecidable(f"{self.cls.name}.{self.method}: local name {var!r} is not modelled") from None

    def set(self, var: str, value: Any) -> None:
        if var.startswith("self."):
            setattr(self.obj, var[5:], value)
        else:
            self.locals[var] = value

    def kwargs(self) -> dict:
        kw = self.locals.get("kwargs")
        if not isinstance(kw, dict):
            raise Undecidable(f"{self.cls.name}.{self.method}: no **kwargs")
        return kw


def literal(value: Any) -> Any:
    """A literal value as the tables write it (JSON, with tuples / sets / non-string-keyed dicts tagged)."""
    if isinstance(value, dict):
        if len(value) == 1:
            (tag, inner), = value.items()
            if tag == "tuple":
                return tuple(literal(v) for v in inner)
            if tag == "set":
                return set(literal(v) for v in inner)
            if tag == "dict":
                return {k: literal(v) for k, v in inner.items()}
            if tag == "dict_items":
                return {literal(k): literal(v) for k, v in inner}
        raise Undecidable(f"literal value {value!r:.60} is not in the tables' vocabulary")
    if isinstance(value, list):
        return [literal(v) for v in value]
    return copy.deepcopy(value)


#: a per-layer list longer than this is not built (a config with 10**9 layers is not a model)
MAX_LAYERS = 1_000_000


class TooLarge(Undecidable):
    """A per-layer list the config would have kvguard build is larger than any model (10**9 layers)."""


def bounded_count(n: Any) -> Any:
    """``n`` when a per-layer list of that length is one a model can have; else TooLarge."""
    if isinstance(n, int) and not isinstance(n, bool) and n > MAX_LAYERS:
        raise TooLarge(f"num_hidden_layers={n} would build a per-layer list of {n} entries; kvguard stops at "
                       f"{MAX_LAYERS}")
    return n


def super_call_kwargs(frame: Frame, call: dict, who: str, callee: str) -> dict:
    """The keyword arguments a measured ``super().__init__(...)`` call passes (``who`` names the caller in
    the reasons kvguard gives when it cannot follow the call; ``callee`` is the ``module.qualname`` of the
    method the call reaches, which CPython names when a keyword is given twice)."""
    if call.get("positional"):
        raise Undecidable(f"{who} passes positional arguments to its parent")
    kwargs: dict = {}
    for name, var in call["keywords"]:
        if name == "**":
            value = frame.get(var) if isinstance(var, str) else None
            if not isinstance(value, dict):
                raise Undecidable(f"{who}: **{var} is not modelled")
            for key, item in value.items():
                if key in kwargs:
                    raise TypeError(f"{callee}() got multiple values for keyword argument '{key}'")
                kwargs[key] = item
            continue
        if var is None:
            raise Undecidable(f"{who} passes a computed {name!r} to its parent")
        kwargs[name] = frame.get(var)
    return kwargs


def merge_keywords(callee: str, keywords: dict, mapping: Any) -> dict:
    """The keyword arguments of ``callee(**keywords, **mapping)``; a key given twice raises as CPython does,
    naming ``callee`` by its ``module.qualname``."""
    merged = dict(keywords)
    for key, value in mapping.items():
        if key in merged:
            raise TypeError(f"{callee}() got multiple values for keyword argument '{key}'")
        merged[key] = value
    return merged


def bind_init_parameters(owner: Any, kwargs: dict) -> dict:
    """The local names a measured ``__init__`` starts with: each parameter from ``kwargs`` (taken out of it)
    or its literal default, and ``kwargs`` itself when the method takes ``**kwargs``; raises the TypeError
    Python raises for a missing required argument or an unexpected keyword."""
    record = owner.record
    bound: dict = {}
    for name, default in record.get("params", []):
        if name in kwargs:
            bound[name] = kwargs.pop(name)
        elif "literal" in default:
            bound[name] = literal(default["literal"])
        elif default.get("required"):
            raise TypeError(f"{owner.display}.__init__() missing 1 required positional argument: '{name}'")
        else:
            raise Undecidable(f"{owner.name}.__init__: the default of {name!r} is not a plain value")
    if record.get("kwargs"):
        bound["kwargs"] = kwargs
    elif kwargs:
        raise TypeError(f"{owner.display}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return bound
