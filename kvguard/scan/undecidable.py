"""Why a launch found by a scan gets no verdict: one exception type per reason, each with the
``reason_kind`` its finding carries (``kvguard scan --format json``, the summary's
``undecidable_by_reason``).

A finding's kind follows from the type of the exception that left the launch undecided, never
from its message: :func:`reason_kind_of`.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from ..errors import InputError, KvguardError, ModelNotFound, Undecidable

__all__ = ["AS_WRITTEN", "BadArguments", "mentions", "NoRelease", "NotStarted", "Placeholder", "UndecidableLaunch",
           "UnresolvedVariable", "reason_kind_of", "variable_label"]

#: how an unresolved piece a reader records whole begins (``${TP,,}``, ```nproc```, ``<MODEL>``, ``...``,
#: ``{2,4}``); any other is a variable's name
AS_WRITTEN = ("$", "`", "<", ".", "…", "{")


class UndecidableLaunch(Undecidable):
    """A launch kvguard found but cannot decide; ``kind`` is its finding's ``reason_kind`` and
    ``reason`` the finding's reason, as given."""

    kind = "undecidable"

    def __init__(self, reason: Optional[str]):
        self.reason = reason
        super().__init__(reason or "")


class UnresolvedVariable(UndecidableLaunch):
    """A shell variable reaches something kvguard reads (the model, a parallel flag, a ``VLLM_*``
    variable) and nothing gives its value; ``names`` are the variables as written."""

    kind = "unresolved-variable"

    def __init__(self, names: "list[str]"):
        self.names = tuple(names)
        many = len(self.names) > 1
        super().__init__(f"unresolved variable{'s' if many else ''} {variable_label(names)} "
                         f"(give {'them' if many else 'it'} with --set NAME=VALUE)")


class Placeholder(UndecidableLaunch):
    """A documentation placeholder (``<MODEL>``, ``...``) stands where kvguard reads a value."""

    kind = "placeholder"

    def __init__(self, placeholders: "list[str]"):
        self.placeholders = tuple(placeholders)
        super().__init__(f"placeholder {', '.join(placeholders)} in the launch")


class BadArguments(UndecidableLaunch):
    """kvguard cannot read the launch's arguments (an unreadable ``--config``, input nested too
    deeply); a refusal by vLLM's own parser is a verdict, not this."""

    kind = "bad-arguments"


class NoRelease(UndecidableLaunch):
    """No release to check the launch against: its deployment pins one kvguard has no rules for."""

    kind = "unknown-version"


class NotStarted(UndecidableLaunch):
    """The file never starts the launch as written (:attr:`~kvguard.scan.result.Launch.not_started`): its own
    tool refuses it first, so vLLM's verdict does not apply."""

    kind = "not-started"


def mentions(text: str, unresolved: Iterable[str]) -> list[str]:
    """The unresolved pieces ``text`` holds: a piece recorded whole (:data:`AS_WRITTEN`) as written, a variable's
    name as a reference to it (``$TP``, ``${TP}``, ``$(TP)``)."""
    hits = []
    for name in unresolved:
        if name.startswith(AS_WRITTEN):
            if name in text:
                hits.append(name)
        elif re.search(r"\$[{(]?" + re.escape(name) + r"\b", text):
            hits.append(name)
    return hits


def variable_label(names: "list[str]") -> str:
    """``$TP, <MODEL>``: the variables as a reader finds them in the launch."""
    return ", ".join(n if n.startswith(AS_WRITTEN) else "$" + n for n in names)


def reason_kind_of(exc: KvguardError) -> str:
    """The ``reason_kind`` of a finding left undecided by ``exc``: the kind of an
    :class:`UndecidableLaunch`, ``unknown-model`` (:class:`~kvguard.errors.ModelNotFound`),
    ``bad-arguments`` (:class:`~kvguard.errors.InputError`), ``undecidable`` (any other
    :class:`~kvguard.errors.Undecidable`), else the exception's type name."""
    if isinstance(exc, UndecidableLaunch):
        return exc.kind
    if isinstance(exc, ModelNotFound):
        return "unknown-model"
    if isinstance(exc, InputError):
        return BadArguments.kind
    if isinstance(exc, Undecidable):
        return UndecidableLaunch.kind
    return type(exc).__name__
