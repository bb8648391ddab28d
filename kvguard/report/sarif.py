"""``--format sarif``: SARIF 2.1.0 for ``kvguard check`` and ``kvguard scan`` (code scanning).

One run, tool ``kvguard``.  Rule ids are the verdict's ``check`` (the stable id
of the refusing rule, e.g. ``EA_dcp_div``, ``PC_gpu_count``, ``FIELD``) — the
same ids as docs/rules.md.  Each rule carries its help inline (``help.text`` /
``help.markdown``: the rule's section of docs/rules.md, generated from the rule
table), so it reads the same from an installed package as from a clone.  A
launch kvguard cannot decide is a ``warning`` under the rule
``kvguard-undecidable``; an accepted launch produces no result.  Scan results
carry a ``physicalLocation`` (file, line).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Optional

from . import Reporter

if TYPE_CHECKING:
    from ..front import LaunchReport
    from ..scan import ScanResult

__all__ = ["SARIF_SCHEMA", "UNDECIDABLE_RULE", "SarifReporter", "render_sarif", "rule_help"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
UNDECIDABLE_RULE = "kvguard-undecidable"

_UNDECIDABLE_HELP = (
    "kvguard gives no verdict for this launch, so it cannot say whether vLLM starts it. The result's "
    "`reason_kind` says why: `unresolved-variable` / `placeholder` (a shell variable or placeholder in a "
    "value kvguard reads: give it with `--set NAME=VALUE`), `unknown-model` (no config.json found: "
    "`--model-config PATH`), `bad-arguments` / `input_error` (an unreadable config or arguments "
    "kvguard cannot read), `unsupported_version` (a vLLM release kvguard has no rules for: "
    "`--vllm-version`, `--nearest`), `undecidable` (something kvguard does not model) or "
    "`internal_error` (kvguard itself failed; please report it). Exit status 2.")


class SarifReporter(Reporter):
    format = "sarif"

    def check(self, report: "LaunchReport") -> str:
        from ..__about__ import __version__

        return render_sarif([{"verdict": report.verdict}], __version__)

    def scan(self, result: "ScanResult") -> str:
        from ..__about__ import __version__

        items = [{"verdict": f.report.verdict if f.report is not None else None, "path": f.launch.path,
                  "line": f.launch.line, "command": f.launch.command, "reason": f.reason,
                  "reason_kind": f.reason_kind} for f in result.findings]
        return render_sarif(items, __version__, [(s.path, s.reason, s.fatal) for s in result.skipped])

    def undecided(self, reason: str, kind: str, *, command: Optional[str] = None) -> str:
        """A run with one result under the ``kvguard-undecidable`` rule (an internal error also
        marks the invocation unsuccessful)."""
        from ..__about__ import __version__

        return render_sarif([{"verdict": None, "reason": reason, "reason_kind": kind}], __version__,
                            failure=reason if kind == "internal_error" else None)


@lru_cache(maxsize=1)
def _sections() -> dict[str, tuple[str, str]]:
    """check id -> (short description, its section(s) of docs/rules.md as Markdown)."""
    try:
        from ..rules.reference import render_markdown
        text = render_markdown()
    except Exception:  # noqa: BLE001 - the help is a convenience, never a failure
        return {}
    out: dict[str, tuple[str, list[str]]] = {}
    current: Optional[list[str]] = None
    for line in text.splitlines():
        if line.startswith("#"):
            current = None
            h = re.match(r"^#{1,6} `([^`]+)` — (.*)$", line)
            if h:
                entry = out.setdefault(h.group(1), (h.group(2), []))
                current = entry[1]
                if current:
                    current.append("")
                current.append(line.lstrip("#").strip())
            continue
        if current is not None:
            current.append(line)
    return {check: (desc, "\n".join(body).strip()) for check, (desc, body) in out.items()}


def rule_help(check: Optional[str]) -> Optional[str]:
    """The Markdown help of a check (its section of docs/rules.md), or None when it has none."""
    entry = _sections().get(check or "")
    return entry[1] if entry else None


def _plain(markdown: str) -> str:
    """The Markdown help as plain text: no code fences, no backquotes."""
    return re.sub(r"^```\w*\n", "", markdown, flags=re.M).replace("`", "").strip()


def _rule(check: str) -> dict[str, Any]:
    if check == UNDECIDABLE_RULE:
        return {"id": UNDECIDABLE_RULE, "name": "Undecidable",
                "shortDescription": {"text": "kvguard cannot decide this launch (unresolved variable, unknown "
                                             "model, bad arguments)"},
                "help": {"text": _plain(_UNDECIDABLE_HELP), "markdown": _UNDECIDABLE_HELP},
                "defaultConfiguration": {"level": "warning"}}
    entry = _sections().get(check)
    text = entry[0] if entry else f"vLLM launch check {check}"
    markdown = entry[1] if entry else f"vLLM refuses the launch at its check `{check}`."
    return {"id": check, "name": check, "shortDescription": {"text": text},
            "help": {"text": _plain(markdown), "markdown": markdown}, "defaultConfiguration": {"level": "error"}}


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
                 skipped: Iterable[tuple] = (), failure: Optional[str] = None) -> str:
    """``items``: dicts with ``verdict`` (or None), ``path``, ``line``, ``command``, ``reason``;
    ``skipped``: (path, reason[, fatal]) of files not read (tool execution notifications; a fatal
    one — a named file that cannot be read, exit status 2 — at level ``warning``, others ``note``);
    ``failure``: kvguard itself failed (an internal error): the invocation is marked unsuccessful."""
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
    notes = [{"level": "warning" if fatal and fatal[0] else "note", "message": {"text": f"skipped: {reason}"},
              "locations": _location(path, None)}
             for path, reason, *fatal in skipped]
    if failure is not None:
        notes.append({"level": "error", "message": {"text": failure}})
    if notes:
        doc["runs"][0]["invocations"] = [{"executionSuccessful": failure is None,
                                          "toolExecutionNotifications": notes}]
    return json.dumps(doc, indent=2)
