"""kvguard's exceptions: one per concept, all ``ValueError`` subclasses.

They describe *kvguard's* trouble with its input.  What vLLM would raise is
never one of these: it is a :class:`~kvguard.Verdict` (``check``) or the
reproduced vLLM exception itself (``validate``).
"""

from __future__ import annotations

__all__ = [
    "CapacityNotModelled",
    "InputError",
    "KvguardError",
    "ModelConfigRefused",
    "Undecidable",
    "UnsupportedVersion",
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


class UnsupportedVersion(KvguardError):
    """The vLLM version is not one kvguard has rules for."""


class Undecidable(KvguardError):
    """The input is valid but kvguard cannot tell what vLLM would do with it.

    For example an architecture the release's model registry does not know
    (vLLM would try remote code or the Transformers backend), or a config
    feature kvguard does not model.
    """


class CapacityNotModelled(Undecidable):
    """kvguard does not predict the KV-cache capacity of this model or release.

    Raised by :func:`kvguard.capacity.predict_capacity` for models whose layers vLLM
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
