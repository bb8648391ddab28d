"""Results: what vLLM would do with a launch, as frozen values.

A :class:`Verdict` names the first check that refuses the launch, with the
exception type and text that check raises in vLLM, character for character,
and how pydantic wraps it on the way to the user.
"""

from __future__ import annotations

from .record import Record, field, replace

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ErrorEntry", "Skipped", "Stage", "Verdict"]

#: The stages of ``vllm serve``'s configuration path, in order (``argparse``: the command line
#: itself, refused by vLLM's argument parser before any config is built).
Stage = str
STAGES: tuple[str, ...] = ("argparse", "frontend", "model_config", "engine_args", "cache_config", "parallel_config",
                           "speculative", "scheduler", "load", "decoding", "observability", "offload", "verify",
                           "worker")


class ErrorEntry(Record):
    """One entry of a pydantic ``ValidationError`` (``e.errors()[i]``)."""

    type: str
    loc: tuple[str, ...]
    msg: str
    #: the failing value and pydantic's error context (to rebuild the real error)
    input: Any = field(default=None, compare=False, repr=False)
    ctx: Optional[dict] = field(default=None, compare=False, repr=False)


class Skipped(Record):
    """A check kvguard could not decide from the inputs (pip-audit style)."""

    check: str
    reason: str


class Verdict(Record):
    """What vLLM's configuration stage does with a launch.

    ``ok`` — vLLM accepts it (as far as the decided checks go; see ``skipped``).
    ``exc_type``/``message`` — the exception vLLM's check statement raises and
    ``str()`` of it.  For a pydantic field-constraint failure there is no inner
    exception: ``exc_type`` is ``"ValidationError"``, ``message`` the first
    entry's ``msg`` and ``loc`` its field; ``errors`` lists every entry.
    ``wrapped_by`` — the pydantic dataclass (``"ParallelConfig"``,
    ``"VllmConfig"``, ``"ModelConfig"``) that turns it into a
    ``pydantic_core.ValidationError`` on the way to the user, or None when it
    surfaces raw.  ``check`` — the stable id of the refusing rule.
    """

    ok: bool
    vllm_version: str
    stage: Optional[str] = None
    check: Optional[str] = None
    exc_type: Optional[str] = None
    message: Optional[str] = None
    wrapped_by: Optional[str] = None
    loc: Optional[tuple[str, ...]] = None
    errors: tuple[ErrorEntry, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    #: host facts the decided checks read that were defaults, not statements about the host
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    facts: Any = field(default=None, compare=False, repr=False)
    layout: Any = field(default=None, compare=False, repr=False)

    @property
    def refused(self) -> bool:
        return not self.ok

    @property
    def user_message(self) -> Optional[str]:
        """The error line as the user sees it after pydantic's wrapping."""
        if self.ok or self.message is None:
            return None
        if self.exc_type == "ValidationError":
            return self.message
        if self.wrapped_by:
            prefix = "Assertion failed, " if self.exc_type == "AssertionError" else "Value error, "
            return prefix + self.message
        return self.message

    def with_notes(self, *notes: str) -> "Verdict":
        new = tuple(n for n in notes if n not in self.notes)
        if not new:
            return self
        return replace(self, notes=self.notes + new)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the CLI's ``--format json`` uses it)."""
        out: dict[str, Any] = {
            "ok": self.ok,
            "exc_type": self.exc_type,
            "message": self.message,
            "wrapped_by": self.wrapped_by,
            "stage": self.stage,
            "check": self.check,
            "vllm_version": self.vllm_version,
        }
        if self.loc is not None:
            out["loc"] = list(self.loc)
        if self.errors:
            out["errors"] = [{"type": e.type, "loc": list(e.loc), "msg": e.msg} for e in self.errors]
        out["skipped"] = [{"check": s.check, "reason": s.reason} for s in self.skipped]
        out["assumptions"] = list(self.assumptions)
        out["notes"] = list(self.notes)
        return out
