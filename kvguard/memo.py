"""Answers kept per model-facts object: a plan or a scan asks about the same model many times.

kvguard keeps no facts cache between processes (every check derives the facts); within one process a
:class:`PerFacts` store keeps what was worked out from a facts object, keyed by the object's ``id`` and the
caller's key.  The facts object is kept beside each answer, so an ``id`` Python hands to another object
after the first is gone is no hit.  A store past its limit starts again.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    T = TypeVar("T")


__all__ = ["PerFacts"]


class PerFacts:
    """A bounded store of answers per facts object and key."""

    __slots__ = ("_answers", "_limit")

    def __init__(self, limit: int):
        self._answers: dict[tuple, tuple[Any, Any]] = {}
        self._limit = limit

    def get(self, facts: Any, key: tuple, compute: Callable[[], T]) -> T:
        """The answer kept for ``facts`` and ``key``, else ``compute()``, kept.  An answer ``compute`` fails
        to give is not kept, nor one whose key cannot be hashed (a config value of an odd type)."""
        full = (id(facts), *key)
        try:
            hit = self._answers.get(full)
        except TypeError:
            return compute()
        if hit is not None and hit[0] is facts:
            return hit[1]
        value = compute()
        if len(self._answers) >= self._limit:
            self._answers.clear()
        self._answers[full] = (facts, value)
        return value

    def clear(self) -> None:
        self._answers.clear()
