"""kvguard's exceptions: one per concept, all ``ValueError`` subclasses.

They describe *kvguard's* trouble with its input.  What vLLM would raise is
never one of these: it is a :class:`~kvguard.Verdict` (``check``) or the
reproduced vLLM exception itself (``validate``).
"""

from __future__ import annotations

import functools

__all__ = [
    "ArgparseRefusal",
    "CapacityNotModelled",
    "InputError",
    "InternalError",
    "KvguardError",
    "ModelConfigRefused",
    "ModelNotFound",
    "Undecidable",
    "UnsupportedVersion",
    "reason_kind",
]


class KvguardError(ValueError):
    """Base class of every exception kvguard raises on purpose."""


class InputError(KvguardError):
    """The input is broken: unreadable or malformed file, wrong type, unknown field.

    ``source`` names the file (or "<mapping>", "<argv>"), ``key`` the
    offending key or field when there is one.
    """

    def __init__(self, reason: str, *, source: str | None = None, key: str | None = None):
        self.reason = reason
        self.source = source
        self.key = key
        where = ""
        if source:
            where = source
        if key:
            where = f"{where}: {key}" if where else key
        super().__init__(f"{where}: {reason}" if where else reason)


class ArgparseRefusal(InputError):
    """vLLM's own command-line parsing refuses the launch: an argparse error (an option the release
    does not know, a bad value, a missing argument: argparse prints usage and the error and exits
    with status 2) or an exception FlexibleArgumentParser raises before argparse runs.

    A refusal, not broken input: the command line reports it as vLLM's verdict (stage
    ``argparse``, exit 1).  ``exc_type`` is ``"SystemExit"`` for an argparse error, else the
    exception's type; ``message`` is the error as vLLM prints it (``vllm: error: unrecognized
    arguments: --foo``); ``check`` is ``"argparse"`` or ``"FlexibleArgumentParser"``; ``hints``
    are kvguard's own words (which release has the option, the nearest option the release
    defines), never part of vLLM's message; ``words`` is what the refusal refused, as data: the
    command-line words its message quotes (``unrecognized arguments``: every extra word; a bad
    value: the value as written; an ambiguous option: the word), never the release's own option
    strings.
    """

    def __init__(self, exc_type: str, message: str, *, vllm_version: str, check: str,
                 key: str | None = None, hints: tuple[str, ...] = (), words: tuple[str, ...] = ()):
        self.exc_type = exc_type
        self.message = message
        self.vllm_version = vllm_version
        self.check = check
        self.hints = tuple(hints)
        self.words = tuple(words)
        #: the host's pydantic version (major.minor) the message names (a config option's pydantic refusal), else None
        self.pydantic: str | None = None
        shown = message if exc_type == "SystemExit" else f"{exc_type}: {message}"
        super().__init__(f"{shown} (vLLM {vllm_version} refuses this command line)", source="<argv>", key=key)


class UnsupportedVersion(KvguardError):
    """The vLLM version is not one kvguard has rules for."""


class Undecidable(KvguardError):
    """The input is valid but kvguard cannot tell what vLLM would do with it.

    For example an architecture the release's model registry does not know
    (vLLM would try remote code or the Transformers backend), or a config
    feature kvguard does not model.
    """


class ModelNotFound(Undecidable):
    """No config.json for the model a launch names: not a local path, not in the Hugging Face
    cache, not in kvguard's catalog (and not fetched: the Hub is read only when asked).  ``model``
    is the name as given."""

    def __init__(self, message: str, *, model: str):
        self.model = model
        super().__init__(message)


class InternalError(Undecidable):
    """kvguard itself failed: memory or recursion exhausted, or a bug in its own code.

    Never what vLLM would do: the launch is undecided.  ``failure`` is the type name of the
    exception kvguard met (``"MemoryError"``); the original exception is ``__cause__`` when
    there is one.
    """

    def __init__(self, failure: str, detail: str = ""):
        self.failure = failure
        super().__init__(f"internal error: {failure}: {detail}" if detail else f"internal error: {failure}")

    @classmethod
    def of(cls, exc: BaseException) -> "InternalError":
        try:
            detail = str(exc)
        except Exception:  # noqa: BLE001 - a str() that fails is one more failure, not a new one
            detail = ""
        return cls(type(exc).__name__, detail[:500])


class CapacityNotModelled(Undecidable):
    """kvguard does not predict the KV-cache capacity of this model or release.

    Raised by :func:`kvguard.kv.capacity.predict_capacity` for models whose layers vLLM
    puts in several KV-cache groups or spec classes kvguard does not size (sliding
    window, hybrid Mamba / linear attention, DeepSeek-V3.2/V4 indexer and compressed
    caches, …) and for releases outside the capacity rules.
    """


class ModelConfigRefused(KvguardError):
    """vLLM fails while building its ModelConfig from this config.json.

    Raised by :func:`kvguard.model_facts`; ``verdict`` is the full
    :class:`~kvguard.Verdict` (stage ``"model_config"``) that
    :func:`kvguard.check` would return.
    """

    def __init__(self, verdict):
        self.verdict = verdict
        super().__init__(f"vLLM {verdict.vllm_version} refuses this config: "
                         f"{verdict.exc_type}: {verdict.message}")


def reason_kind(exc: BaseException) -> str:
    """Why kvguard gives no verdict, as one word for machines (``reason_kind`` in JSON):
    ``input_error``, ``unsupported_version``, ``model_config_refused`` (vLLM refuses the config
    itself; ``model_facts``, audit, plan), ``internal_error`` or ``undecidable``."""
    if isinstance(exc, InternalError):
        return "internal_error"
    if isinstance(exc, UnsupportedVersion):
        return "unsupported_version"
    if isinstance(exc, InputError):
        return "input_error"
    if isinstance(exc, ModelConfigRefused):
        return "model_config_refused"
    return "undecidable"


def reports_internal_errors(fn):
    """Decorate a public function: an exception kvguard did not raise on purpose (MemoryError,
    RecursionError, a bug in its own code) leaves it as :class:`InternalError`, chained to the
    original, so a caller never mistakes kvguard's failure for an answer."""

    @functools.wraps(fn)
    def public(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KvguardError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever else escapes is kvguard's own failure
            raise InternalError.of(exc) from exc

    return public
