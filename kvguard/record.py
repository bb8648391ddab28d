"""Value types without ``dataclasses``: :class:`Record`, a base whose methods are written once.

Why it exists: the first ``kvguard check`` of a model is a process, and its target is <= 3x a
bare ``python -c pass`` in CPU time (benchmarks/run.py).  ``@dataclass`` generates each class's
``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` as
source text and ``exec``s it, ~0.3-0.5 ms per frozen class, and about 18 of them were created on
the check path; ``import dataclasses`` itself loads ``inspect`` (with ``ast``, ``dis``,
``tokenize``: ~4 ms).  Replacing them with this base took a cold check from 368.9M to 273.3M
instructions (valgrind; a bare ``python -c pass`` is 89.1M), i.e. from 3.1x to ~2.5x the bare start
in CPU time (docs/performance.md).  A :class:`Record` subclass costs one ``__init_subclass__``
call that reads the class annotations.

What a subclass gets, as ``@dataclass(frozen=True)`` gave it:

* fields from the class annotations (base classes' first, in definition order; ``ClassVar``
  annotations are not fields), defaults from the class attributes or :func:`field`;
* ``__init__`` taking the fields positionally or by keyword, with the TypeErrors a generated
  ``__init__`` raises for a missing, unexpected, repeated or surplus argument;
* ``__repr__`` (``Name(a=1, b='x')``, without ``repr=False`` fields), ``__eq__`` (same class,
  equal ``compare`` fields) and ``__hash__`` over the compared fields; ``order=True`` adds
  ``<``, ``<=``, ``>``, ``>=``;
* immutability: assigning or deleting an attribute raises :class:`FrozenInstanceError`
  (an ``AttributeError``), unless the class says ``frozen=False`` (then it is unhashable, as a
  mutable dataclass with ``eq`` is).

:func:`replace` and :func:`fields` stand for ``dataclasses.replace`` / ``dataclasses.fields``.
No ``__post_init__``, ``init=False`` fields or slots: kvguard's value types need none.  The
modules off the check path (``kv/``, ``scan/``, ``diff``) keep their dataclasses: they use
``asdict``, and nothing there is paid for by a check.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Optional


__all__ = ["MISSING", "Field", "FrozenInstanceError", "Record", "field", "fields", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: no default given
MISSING: Any = _Missing()


#: sets a frozen record's ``__dict__`` while it is built
_set_attribute = object.__setattr__


class FrozenInstanceError(AttributeError):
    """Assigning to or deleting a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class Field:
    """A field's declaration: its name, default or default factory, and whether it is compared / printed."""

    __slots__ = ("name", "default", "default_factory", "compare", "repr")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, compare: bool = True,
                 repr: bool = True):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r}, "
                f"compare={self.compare!r}, repr={self.repr!r})")


def field(*, default: Any = MISSING, default_factory: Optional[Callable[[], Any]] = MISSING,
          compare: bool = True, repr: bool = True) -> Any:
    """A field with options, as ``dataclasses.field`` (the subset kvguard uses)."""
    return Field(default, default_factory, compare, repr)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return text.startswith(("ClassVar", "typing.ClassVar"))


class Record:
    """Base of kvguard's value types (see the module docstring)."""

    #: the fields, in order (set per subclass)
    __record_fields__: tuple[Field, ...] = ()
    _names: tuple[str, ...] = ()
    _index: dict[str, int] = {}
    _defaults: dict[str, Any] = {}
    _factories: dict[str, Callable[[], Any]] = {}
    _compared: tuple[str, ...] = ()
    _printed: tuple[str, ...] = ()
    _required: tuple[str, ...] = ()
    _template: dict[str, Any] = {}

    def __init_subclass__(cls, frozen: bool = True, order: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Field] = {f.name: f for f in cls.__record_fields__}
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if _is_classvar(annotation):
                continue
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, Field):
                spec = value
                if spec.default is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
            else:
                spec = Field(default=value)
            spec.name = name
            found[name] = spec   # a redeclared field keeps its place, as in a dataclass
        specs = tuple(found.values())
        cls.__record_fields__ = specs
        cls._names = tuple(f.name for f in specs)
        cls._index = {name: i for i, name in enumerate(cls._names)}
        cls._defaults = {f.name: f.default for f in specs if f.default is not MISSING}
        cls._factories = {f.name: f.default_factory for f in specs if f.default_factory is not MISSING}
        cls._compared = tuple(f.name for f in specs if f.compare)
        cls._printed = tuple(f.name for f in specs if f.repr)
        cls._required = tuple(f.name for f in specs if f.default is MISSING and f.default_factory is MISSING)
        # every field in order, holding its default (MISSING where it has none): a call that leaves fields
        # out starts from a copy of it, so the instance's attributes keep the field order
        cls._template = {f.name: f.default for f in specs}
        if not frozen:
            cls.__setattr__ = object.__setattr__  # type: ignore[method-assign,assignment]
            cls.__delattr__ = object.__delattr__  # type: ignore[method-assign,assignment]
            cls.__hash__ = None  # type: ignore[assignment]
        if order:
            cls.__lt__ = Record._lt  # type: ignore[method-assign,operator]
            cls.__le__ = Record._le  # type: ignore[method-assign,operator]
            cls.__gt__ = Record._gt  # type: ignore[method-assign,operator]
            cls.__ge__ = Record._ge  # type: ignore[method-assign,operator]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the arguments are checked with set operations on the keys (C code), not a Python loop over them: the
        # rule table alone builds ~400 records while a first check imports it (kvguard.rules.table)
        names = self._names
        if len(args) > len(names):
            required = sum(1 for n in names if n not in self._defaults and n not in self._factories)
            takes = f"{len(names) + 1}" if required == len(names) else f"from {required + 1} to {len(names) + 1}"
            raise TypeError(f"{type(self).__qualname__}.__init__() takes {takes} positional arguments "
                            f"but {len(args) + 1} were given")
        values = self._template.copy()   # every field in order, MISSING where it has no default
        if args:
            values.update(zip(names, args))
        if kwargs:
            if not kwargs.keys() <= self._index.keys() or args and not kwargs.keys().isdisjoint(names[:len(args)]):
                self._refuse_keywords(len(args), kwargs)
            values.update(kwargs)
        if len(args) + len(kwargs) < len(names):
            missing = [name for name in self._required if values[name] is MISSING]
            if missing:
                listed = (repr(missing[0]) if len(missing) == 1
                          else ", ".join(repr(m) for m in missing[:-1]) + f" and {missing[-1]!r}")
                raise TypeError(f"{type(self).__qualname__}.__init__() missing {len(missing)} required positional "
                                f"argument{'s' if len(missing) > 1 else ''}: {listed}")
            for name, factory in self._factories.items():
                if values[name] is MISSING:
                    values[name] = factory()
        _set_attribute(self, "__dict__", values)   # the dict becomes the instance's: no copy into another

    def _refuse_keywords(self, positional: int, kwargs: dict[str, Any]) -> None:
        """The TypeError a generated ``__init__`` raises for the first keyword it cannot take."""
        given = self._names[:positional]
        for key in kwargs:
            if key not in self._index:
                raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {key!r}")
            if key in given:
                raise TypeError(f"{type(self).__qualname__}.__init__() got multiple values for argument {key!r}")

    def __repr__(self) -> str:
        d = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{n}={d[n]!r}' for n in self._printed)})"

    def _key(self) -> tuple:
        d = self.__dict__
        return tuple([d[n] for n in self._compared])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def _lt(self, other: Any) -> bool:
        return self._key() < other._key() if other.__class__ is self.__class__ else NotImplemented

    def _le(self, other: Any) -> bool:
        return self._key() <= other._key() if other.__class__ is self.__class__ else NotImplemented

    def _gt(self, other: Any) -> bool:
        return self._key() > other._key() if other.__class__ is self.__class__ else NotImplemented

    def _ge(self, other: Any) -> bool:
        return self._key() >= other._key() if other.__class__ is self.__class__ else NotImplemented

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


def fields(obj: Any) -> tuple[Field, ...]:
    """A record's (or record class's) fields, in order (``dataclasses.fields``)."""
    try:
        return obj.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a Record type or instance") from None


def replace(obj: Record, /, **changes: Any) -> Any:
    """A copy of ``obj`` with ``changes`` (``dataclasses.replace``: unknown names raise TypeError)."""
    index = obj._index
    for name in changes:
        if name not in index:
            raise TypeError(f"{type(obj).__qualname__}.__init__() got an unexpected keyword argument {name!r}")
    new = object.__new__(type(obj))
    values = obj.__dict__.copy()
    values.update(changes)
    _set_attribute(new, "__dict__", values)
    return new
