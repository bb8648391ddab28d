"""The exception kvguard.hfconfig reports for a config that vLLM cannot load."""

from __future__ import annotations

__all__ = ["LoadCrash"]


class LoadCrash(Exception):
    """What transformers / vLLM raise while building the config object.

    ``exc_type`` is the exception class name, ``message`` is ``str(exc)``;
    ``wrapped_by`` names the pydantic dataclass that turns it into a
    ``pydantic_core.ValidationError`` on the way to the user ("ModelConfig")
    or is None when it surfaces raw.  ``exc_module`` is the defining module
    of the exception class (``builtins``, ``huggingface_hub.errors``).
    ``hash_order`` is True when the exception escaped a loop over a set of
    strings: Python iterates those in a hash-seed dependent order, so the real
    process raises the same exception type with a message naming whichever
    element failed first (e.g. ``KeyError('bogus')`` or
    ``KeyError('linear_attention')``); the message is then one of those.
    """

    def __init__(self, exc_type: str, message: str, *, wrapped_by: str | None = None,
                 exc_module: str = "builtins", cause: tuple[str, str] | None = None, hash_order: bool = False):
        super().__init__(message)
        self.exc_type = exc_type
        self.message = message
        self.wrapped_by = wrapped_by
        self.exc_module = exc_module
        #: (type, message) of ``__cause__`` when the exception was chained
        self.cause = cause
        self.hash_order = hash_order

    def __repr__(self) -> str:
        return f"LoadCrash({self.exc_type!r}, {self.message!r}, wrapped_by={self.wrapped_by!r})"
