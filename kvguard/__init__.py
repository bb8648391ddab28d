"""kvguard: will this ``vllm serve`` layout start, and what does it do to the KV cache?

Pure functions keyed by vLLM release: the launch checks of vLLM's
``EngineArgs``, ``ParallelConfig`` and ``ModelConfig.verify_with_parallel_config``
with vLLM's exact exceptions, and the model facts (KV heads, MLA, head size)
as that release derives them from a config.json.  No torch, transformers or
vLLM import; no network.
"""

from __future__ import annotations

from .__about__ import __version__ as __version__
from .errors import (
    CapacityNotModelled,
    InputError,
    InternalError,
    KvguardError,
    ModelConfigRefused,
    ModelNotFound,
    Undecidable,
    UnsupportedVersion,
)
from .facts import ModelFacts
from .launch.layout import Host, Layout
from .rules.check import check, legal_dcp_sizes, model_facts, to_exception, validate
from .verdict import ErrorEntry, Skipped, Verdict
from .versions import KNOWN_RELEASES, SUPPORTED_VERSIONS, Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)

#: names imported on first use (PEP 562): a launch script's check does not pay for the economics
_LAZY = {
    "AuditReport": "kv.economics", "ModelAudit": "kv.economics", "audit": "kv.economics",
    "CapacityPrediction": "kv.capacity", "predict_capacity": "kv.capacity",
    "PlanEntry": "kv.plan", "PlanReport": "kv.plan", "plan": "kv.plan",
    "Suggestion": "kv.suggestions", "suggest": "kv.suggestions",
    "LaunchReport": "front", "examine": "front",
}

if TYPE_CHECKING:
    from typing import Any

    from .front import LaunchReport, examine
    from .kv.capacity import CapacityPrediction, predict_capacity
    from .kv.economics import AuditReport, ModelAudit, audit
    from .kv.plan import PlanEntry, PlanReport, plan
    from .kv.suggestions import Suggestion, suggest


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kvguard' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "AuditReport",
    "CapacityNotModelled",
    "CapacityPrediction",
    "ErrorEntry",
    "Host",
    "InputError",
    "InternalError",
    "KNOWN_RELEASES",
    "KvguardError",
    "LaunchReport",
    "Layout",
    "ModelConfigRefused",
    "ModelAudit",
    "ModelNotFound",
    "ModelFacts",
    "PlanEntry",
    "PlanReport",
    "Release",
    "SUPPORTED_VERSIONS",
    "Skipped",
    "Suggestion",
    "Undecidable",
    "UnsupportedVersion",
    "Verdict",
    "audit",
    "check",
    "examine",
    "legal_dcp_sizes",
    "model_facts",
    "plan",
    "predict_capacity",
    "suggest",
    "to_exception",
    "validate",
]
