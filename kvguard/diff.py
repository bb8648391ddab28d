"""One launch under two releases: what changes (verdict, message, facts) — for upgrade reviews."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["LaunchDiff", "compare_reports"]

#: facts worth a line in an upgrade review
_FACT_KEYS = ("model_type", "use_mla", "total_num_kv_heads", "total_num_attention_heads", "head_size",
              "num_hidden_layers", "num_experts", "supports_pp", "cache_kv_heads", "duplication_factor",
              "num_kv_heads_per_rank", "kv_bytes_per_token_per_rank", "legal_dcp_sizes", "transformers",
              "max_model_len")


@dataclass
class LaunchDiff:
    before: str
    after: str
    before_view: dict[str, Any]
    after_view: dict[str, Any]
    verdict_changed: bool
    changes: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        from .front import JSON_SCHEMA_VERSION

        return {"schema": JSON_SCHEMA_VERSION, "from": self.before, "to": self.after,
                "verdict_changed": self.verdict_changed, "changes": self.changes, "before": self.before_view,
                "after": self.after_view}


def _view(report, error: "Optional[str | BaseException]") -> dict[str, Any]:
    if report is None:
        if isinstance(error, BaseException):   # why this side has no verdict, for machines too
            from .errors import reason_kind

            return {"ok": None, "error": str(error), "reason_kind": reason_kind(error)}
        return {"ok": None, "error": error}
    data = report.to_dict()
    return {k: data.get(k) for k in ("ok", "exc_type", "message", "wrapped_by", "stage", "check",
                                      "vllm_version", "facts")}


def compare_reports(before, after) -> LaunchDiff:
    """``before``/``after`` are ``(release, LaunchReport | None, error | None)``; the error is the
    exception (or its text) that left the side without a verdict."""
    (r1, rep1, err1), (r2, rep2, err2) = before, after
    v1, v2 = _view(rep1, err1), _view(rep2, err2)
    changes = []
    for key in ("ok", "error", "check", "exc_type", "wrapped_by", "message"):
        if v1.get(key) != v2.get(key):
            changes.append({"what": key, "from": v1.get(key), "to": v2.get(key)})
    f1, f2 = v1.get("facts") or {}, v2.get("facts") or {}
    for key in _FACT_KEYS:
        if f1.get(key) != f2.get(key):
            changes.append({"what": f"facts.{key}", "from": f1.get(key), "to": f2.get(key)})
    verdict_changed = any(c["what"] in ("ok", "error", "check", "exc_type", "message") for c in changes)
    return LaunchDiff(r1.key, r2.key, v1, v2, verdict_changed, changes)
