"""kvguard.memo.PerFacts: answers kept per facts object."""

from __future__ import annotations

import pytest

from kvguard.memo import PerFacts


class Facts:
    pass


def test_an_answer_is_kept_per_object_and_key():
    store, calls = PerFacts(limit=8), []

    def compute(value):
        calls.append(value)
        return value

    one, two = Facts(), Facts()
    assert store.get(one, ("a",), lambda: compute(1)) == 1
    assert store.get(one, ("a",), lambda: compute(99)) == 1      # kept
    assert store.get(one, ("b",), lambda: compute(2)) == 2       # another key
    assert store.get(two, ("a",), lambda: compute(3)) == 3       # another object
    assert calls == [1, 2, 3]


def test_an_id_reused_by_another_object_is_no_hit():
    store = PerFacts(limit=8)
    first = Facts()
    store.get(first, (), lambda: "first")
    stale_id = id(first)
    store._answers[(stale_id,)] = (object(), "another object's answer")   # as if first were gone and its id reused
    assert store.get(first, (), lambda: "again") == "again"


def test_a_failed_answer_and_an_unhashable_key_are_not_kept():
    store, calls = PerFacts(limit=8), []
    facts = Facts()

    def fail():
        calls.append("fail")
        raise ValueError("no answer")

    for _ in range(2):
        with pytest.raises(ValueError):
            store.get(facts, ("x",), fail)
    assert calls == ["fail", "fail"]
    assert store.get(facts, ([1, 2],), lambda: "unhashable") == "unhashable"
    assert store.get(facts, ([1, 2],), lambda: "again") == "again"


def test_a_full_store_starts_again():
    store = PerFacts(limit=2)
    facts = Facts()
    for key in "abc":
        store.get(facts, (key,), lambda key=key: key)
    assert store.get(facts, ("a",), lambda: "recomputed") == "recomputed"
    assert store.get(facts, ("c",), lambda: "recomputed") == "c"
