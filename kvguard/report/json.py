"""``--format json``: one JSON document per run, for machines; every document has ``schema``
(:data:`~kvguard.report.JSON_SCHEMA_VERSION`).

``kvguard scan``'s document::

    {"schema": 1, "vllm_version": "0.28.0",
     "vllm_version_source": where the release of unpinned launches came from,
     "findings": [{"file", "line", "kind", "label", "command",
                   "status": "accepted" | "refused" | "undecidable",
                   "vllm_version", "vllm_version_source": the release this launch was checked
                   against and where it came from (kvguard.launch.pins), "notes": [...],
                   "result": <the check JSON object, when checked>,
                   "reason_kind", "reason", "unresolved": [...]   (when undecidable)}, ...],
     "skipped": [{"file", "reason"}, ...],
     "summary": {"files", "found", "checked", "accepted", "refused", "undecidable",
                 "undecidable_by_reason": {reason_kind: count}, "skipped_files"}}
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from . import JSON_SCHEMA_VERSION, Reporter

if TYPE_CHECKING:
    from ..diff import LaunchDiff
    from ..front import LaunchReport
    from ..kv.economics import AuditReport
    from ..kv.plan import PlanReport
    from ..scan import ScanResult

__all__ = ["JsonReporter"]


class JsonReporter(Reporter):
    format = "json"

    def check(self, report: "LaunchReport") -> str:
        return json.dumps(report.to_dict(), indent=2, default=str)

    def scan(self, result: "ScanResult") -> str:
        from ..scan import summarize

        doc = {"schema": JSON_SCHEMA_VERSION, "vllm_version": result.vllm_version,
               "vllm_version_source": result.vllm_version_source,
               "findings": [f.to_dict() for f in result.findings],
               "skipped": [{"file": s.path, "reason": s.reason} for s in result.skipped],
               "summary": summarize(result)}
        return json.dumps(doc, indent=2, default=str)

    def audit(self, report: "AuditReport") -> str:
        return json.dumps(report.to_dict(), indent=2)

    def plan(self, report: "PlanReport", top: Optional[int] = None) -> str:
        return json.dumps(report.to_dict(top), indent=2)

    def diff(self, diff: "LaunchDiff") -> str:
        return json.dumps(diff.to_dict(), indent=2, default=str)

    def undecided(self, reason: str, kind: str, *, command: Optional[str] = None) -> str:
        """``ok: null`` for every command; scan's document also has empty ``findings``."""
        doc: dict[str, Any] = {"schema": JSON_SCHEMA_VERSION, "command": command, "ok": None,
                               "reason_kind": kind, "reason": reason}
        if command == "scan":
            doc.update(findings=[], skipped=[])
        return json.dumps(doc, indent=2)
