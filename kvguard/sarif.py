"""SARIF 2.1.0 output for ``kvguard check`` and ``kvguard scan`` (``--format sarif``).

One run, tool ``kvguard``.  Rule ids are the verdict's ``check`` (the stable id
of the refusing rule, e.g. ``EA_dcp_div``, ``PC_gpu_count``, ``FIELD``) — the
same ids as docs/rules.md, whose heading anchors the ``helpUri`` points to
(relative to the repository root).  A launch kvguard cannot decide is a
``warning`` under the rule ``kvguard-undecidable``; an accepted launch produces
no result.  Scan results carry a ``physicalLocation`` (file, line).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Iterable, Optional

__all__ = ["SARIF_SCHEMA", "UNDECIDABLE_RULE", "render_sarif", "rule_help_uri"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
UNDECIDABLE_RULE = "kvguard-undecidable"
RULES_DOC = "docs/rules.md"


def _github_slug(heading: str) -> str:
    slug = heading.strip().lower()
    slug = re.sub(r"[^\w\- ]", "", slug)   # GitHub keeps letters, digits, '_', '-', spaces
    return slug.replace(" ", "-")


@lru_cache(maxsize=1)
def _anchors() -> dict[str, tuple[str, str]]:
    """check id -> (anchor of its first heading in docs/rules.md, description)."""
    try:
        from .rules.reference import render_markdown
        text = render_markdown()
    except Exception:  # noqa: BLE001 - the help link is a convenience, never a failure
        return {}
    seen: dict[str, int] = {}
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = re.match(r"^#{1,6} (.*)$", line)
        if not m:
            continue
        slug = _github_slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchor = slug if n == 0 else f"{slug}-{n}"
        h = re.match(r"^`([^`]+)` — (.*)$", m.group(1))
        if h and h.group(1) not in out:
            out[h.group(1)] = (anchor, h.group(2))
    return out


def rule_help_uri(check: Optional[str]) -> str:
    entry = _anchors().get(check or "")
    return f"{RULES_DOC}#{entry[0]}" if entry else RULES_DOC


def _rule(check: str) -> dict[str, Any]:
    if check == UNDECIDABLE_RULE:
        return {"id": UNDECIDABLE_RULE, "name": "Undecidable",
                "shortDescription": {"text": "kvguard cannot decide this launch (unresolved variable, unknown "
                                             "model, bad arguments)"},
                "helpUri": "README.md#command-line",
                "defaultConfiguration": {"level": "warning"}}
    entry = _anchors().get(check)
    text = entry[1] if entry else f"vLLM launch check {check}"
    return {"id": check, "name": check, "shortDescription": {"text": text},
            "helpUri": rule_help_uri(check), "defaultConfiguration": {"level": "error"}}


def _message(verdict) -> str:
    how = verdict.exc_type or "error"
    text = f"vLLM {verdict.vllm_version} refuses this launch: {how}: {verdict.message}"
    if verdict.wrapped_by:
        text += f" (surfaces as pydantic ValidationError for {verdict.wrapped_by}: {verdict.user_message})"
    return text


def _location(path: Optional[str], line: Optional[int]) -> list[dict[str, Any]]:
    if not path:
        return []
    uri = path.replace("\\", "/")
    while uri.startswith("./"):
        uri = uri[2:]
    if uri.startswith("/"):
        uri = "file://" + uri
    phys: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if line:
        phys["region"] = {"startLine": int(line)}
    return [{"physicalLocation": phys}]


def render_sarif(items: Iterable[dict[str, Any]], version: str,
                 skipped: Iterable[tuple[str, str]] = ()) -> str:
    """``items``: dicts with ``verdict`` (or None), ``path``, ``line``, ``command``, ``reason``;
    ``skipped``: (path, reason) of files not read (tool execution notifications)."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for item in items:
        verdict = item.get("verdict")
        if verdict is not None and verdict.ok:
            continue
        if verdict is None:
            rule_id = UNDECIDABLE_RULE
            level = "warning"
            text = f"kvguard cannot decide: {item.get('reason')}"
        else:
            rule_id = verdict.check or "unknown"
            level = "error"
            text = _message(verdict)
        if rule_id not in rules:
            rules[rule_id] = _rule(rule_id)
        if item.get("command"):
            text += f"\nlaunch: {item['command']}"
        result: dict[str, Any] = {"ruleId": rule_id, "ruleIndex": list(rules).index(rule_id), "level": level,
                                  "message": {"text": text}}
        loc = _location(item.get("path"), item.get("line"))
        if loc:
            result["locations"] = loc
        props = {}
        if verdict is not None:
            props = {"vllm_version": verdict.vllm_version, "exc_type": verdict.exc_type,
                     "wrapped_by": verdict.wrapped_by, "stage": verdict.stage}
        elif item.get("reason_kind"):
            props = {"reason_kind": item["reason_kind"]}
        if props:
            result["properties"] = props
        results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kvguard", "version": version,
                                "rules": list(rules.values())}},
            "results": results,
        }],
    }
    notes = [{"level": "note", "message": {"text": f"skipped: {reason}"}, "locations": _location(path, None)}
             for path, reason in skipped]
    if notes:
        doc["runs"][0]["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": notes}]
    return json.dumps(doc, indent=2)
