"""kvguard.record.Record behaves as the ``@dataclass(frozen=True)`` it replaces: the same reprs,
equality, hashing, ordering, immutability and constructor errors (checked against a real dataclass
of the same fields)."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from typing import Any, ClassVar, Optional

import pytest

from kvguard.record import FrozenInstanceError, Record, field, fields, replace


class Rec(Record):
    a: int
    b: str
    c: Optional[int] = None
    d: tuple = field(default_factory=tuple)
    hidden: Any = field(default=None, compare=False, repr=False)
    counter: ClassVar[int] = 0


@dataclasses.dataclass(frozen=True)
class Rec_:
    a: int
    b: str
    c: Optional[int] = None
    d: tuple = dataclasses.field(default_factory=tuple)
    hidden: Any = dataclasses.field(default=None, compare=False, repr=False)
    counter: ClassVar[int] = 0


class Sub(Rec):
    e: str = "e"
    c: Optional[int] = 7   # a redeclared field keeps its place


class Mutable(Record, frozen=False):
    x: int
    items: list = field(default_factory=list)


class Ordered(Record, order=True):
    v: int
    tag: str = field(default="", compare=False)


CALLS = [((1, "x"), {}), ((1,), {"b": "y", "c": 3}), ((), {"a": 1, "b": "x", "d": (1,), "hidden": object()}),
         ((1, "x", 2, (3,), None), {}), ((), {"c": 2, "b": "x", "a": 1})]
BAD_CALLS = [((), {}), ((1,), {}), ((1, "x"), {"z": 1}), ((1, "x"), {"a": 2}), ((1, "x", 2, (), None, 6), {}),
             ((1, "x"), {"c": 1, "z": 2, "a": 3}), ((1,), {"c": 1, "a": 2, "z": 3}), ((), {"b": "x", "c": 1})]


@pytest.mark.parametrize("args,kwargs", CALLS)
def test_like_a_frozen_dataclass(args, kwargs):
    mine, theirs = Rec(*args, **kwargs), Rec_(*args, **kwargs)
    assert repr(mine) == repr(theirs).replace("Rec_(", "Rec(")
    assert vars(mine) == vars(theirs) and list(vars(mine)) == list(vars(theirs))
    assert mine == Rec(*args, **kwargs) and hash(mine) == hash(Rec(*args, **kwargs))
    assert replace(mine, hidden=1) == mine and replace(mine, a=2) != mine
    assert mine != theirs and mine != (1, "x")
    with pytest.raises(FrozenInstanceError):
        mine.a = 2
    with pytest.raises(AttributeError):
        del mine.b
    assert pickle.loads(pickle.dumps(mine)) == mine


@pytest.mark.parametrize("args,kwargs", BAD_CALLS)
def test_constructor_errors_as_a_dataclass(args, kwargs):
    with pytest.raises(TypeError) as theirs:
        Rec_(*args, **kwargs)
    with pytest.raises(TypeError) as mine:
        Rec(*args, **kwargs)
    assert str(mine.value) == str(theirs.value).replace("Rec_", "Rec")


def test_fields_defaults_inheritance_order_mutability():
    assert [f.name for f in fields(Rec)] == [f.name for f in dataclasses.fields(Rec_)]
    assert [f.name for f in fields(Sub)] == ["a", "b", "c", "d", "hidden", "e"]
    assert Sub(1, "x").c == 7 and Rec(1, "x").d == () and Rec.c is None and not hasattr(Rec, "d")
    with pytest.raises(TypeError):
        replace(Rec(1, "x"), z=1)
    m = Mutable(1)
    m.x = 2
    m.items.append(1)
    assert m == Mutable(2, [1]) and Mutable(1).items is not Mutable(1).items
    with pytest.raises(TypeError):
        hash(m)
    assert sorted([Ordered(3), Ordered(1, "a"), Ordered(2)]) == [Ordered(1), Ordered(2), Ordered(3)]
    assert Ordered(1) <= Ordered(1, "b") < Ordered(2) and Ordered(2) >= Ordered(2) > Ordered(1)


def test_the_check_path_does_not_import_dataclasses():
    code = ("import sys, kvguard, kvguard.cli, kvguard.front, kvguard.launch.argv, kvguard.launch.pins; "
            "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
