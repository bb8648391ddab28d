"""``--format sarif``: SARIF 2.1.0 for every subcommand (code scanning).

One run, tool ``kvguard``.  Rule ids are the verdict's ``check`` (the stable id
of the refusing rule, e.g. ``EA_dcp_div``, ``PC_gpu_count``, ``FIELD``) — the
same ids as docs/rules.md.  Each rule carries its help inline (``help.text`` /
``help.markdown``: the rule's section of docs/rules.md, generated from the rule
table), so it reads the same from an installed package as from a clone.  A
launch kvguard cannot decide is a ``warning`` under the rule
``kvguard-undecidable``; an accepted launch produces no result.  Scan results
carry a ``physicalLocation`` (file, line).

``audit``, ``plan`` and ``diff`` follow the same structure: a result per refusal — ``audit``: a
model whose layout vLLM refuses at the ``-dcp`` asked for (rule ``kvguard-dcp-refused``) or whose
capacity asked for does not fit (``kvguard-capacity-refused``); ``plan``: when the release refuses
every layout, one result per check that refused them (the check's rule); ``diff``: the ``--to``
release's refusal (its check's rule), or ``kvguard-undecidable`` when that side cannot be checked.
The facts, the plan and the diff travel in the run's invocation: ``toolExecutionNotifications``
say them in words (level ``note``), and its ``properties`` are the ``--format json`` document
itself, ``schema`` included.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Optional

from . import Reporter, byte_count

if TYPE_CHECKING:
    from ..diff import LaunchDiff
    from ..front import LaunchReport
    from ..kv.economics import AuditReport
    from ..kv.plan import PlanReport
    from ..scan import ScanResult

__all__ = ["CAPACITY_RULE", "DCP_RULE", "SARIF_SCHEMA", "UNDECIDABLE_RULE", "SarifReporter", "render_sarif",
           "rule_help"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
UNDECIDABLE_RULE = "kvguard-undecidable"
#: ``kvguard audit``: vLLM refuses the ``-dcp`` asked for at the layout
DCP_RULE = "kvguard-dcp-refused"
#: ``kvguard audit``: the KV-cache memory asked for cannot hold one sequence of max-model-len
CAPACITY_RULE = "kvguard-capacity-refused"

_OWN_RULES = {
    DCP_RULE: ("DcpRefused", "vLLM refuses the -dcp size at this layout",
               "vLLM refuses the decode-context-parallel size (`-dcp`) asked for at this layout. The result "
               "names the legal `-dcp` sizes (none: the layout is refused whatever `-dcp` is); "
               "`kvguard check` names the refusing check and its message."),
    CAPACITY_RULE: ("CapacityRefused", "vLLM refuses to start: the KV cache cannot hold one request",
                    "With the KV-cache memory given (`--kv-memory-gib`), vLLM refuses to start: one sequence "
                    "of `--max-model-len` tokens does not fit. The message is vLLM's; lower "
                    "`--max-model-len`, give the cache more memory, or shard the tokens with `-dcp`."),
}

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
                  "reason_kind": f.reason_kind,
                  "nearest": f.report.suggestions[0].command if f.report is not None and f.report.suggestions
                  else None} for f in result.findings]
        return render_sarif(items, __version__, [(s.path, s.reason, s.fatal) for s in result.skipped])

    def audit(self, report: "AuditReport") -> str:
        from ..__about__ import __version__
        from ..kv.capacity import CapacityNotModelledResult

        results, notes = [], []
        for m in report.models:
            where = f"{m.model} (vLLM {m.vllm_version}, -tp {m.tp} -pcp {m.pcp} -dcp {m.dcp})"
            props = {"model": m.model, "vllm_version": m.vllm_version, "tp": m.tp, "pcp": m.pcp, "dcp": m.dcp}
            if m.duplication_factor is None:
                notes.append(_note(f"{where}: no KV cache facts"))
            else:
                notes.append(_note(
                    f"{where}: {'MLA' if m.use_mla else 'GQA/MHA'}, H governing the cache {m.cache_kv_heads}, "
                    f"duplication factor {m.duplication_factor}, after -dcp {m.dcp}: {m.residual_duplication:g}, "
                    f"legal -dcp sizes {list(m.legal_dcp_sizes)}, KV bytes per token per rank "
                    f"{byte_count(m.kv_bytes_per_token_per_rank)} ({m.kv_cache_dtype_resolved})"))
                if not m.dcp_legal:
                    text = (f"vLLM {m.vllm_version} refuses -dcp {m.dcp} for {m.model} at -tp {m.tp} -pcp {m.pcp}: "
                            + (f"the legal -dcp sizes are {list(m.legal_dcp_sizes)}" if m.legal_dcp_sizes
                               else "it refuses this layout at every -dcp"))
                    results.append((DCP_RULE, "error", text,
                                    dict(props, legal_dcp_sizes=list(m.legal_dcp_sizes))))
            cap = m.capacity
            if isinstance(cap, CapacityNotModelledResult):
                notes.append(_note(f"{where}: capacity not modelled — {cap.reason}"))
            elif cap is not None and not cap.fits:
                results.append((CAPACITY_RULE, "error",
                                f"vLLM {m.vllm_version} refuses to start {m.model} at -tp {m.tp} -pcp {m.pcp} "
                                f"-dcp {m.dcp} with {cap.available_kv_bytes / (1 << 30):.2f} GiB KV memory per GPU "
                                f"and max-model-len {cap.max_model_len}: {cap.error[0]}: {cap.error[1]}",
                                dict(props, exc_type=cap.error[0], max_model_len=cap.max_model_len)))
            elif cap is not None:
                notes.append(_note(f"{where}: vLLM will log: " + " / ".join(cap.log_lines)))
            notes += [_note(f"{where}: {n}") for n in m.notes]
        return _document(results, __version__, notes, report.to_dict())

    def plan(self, report: "PlanReport", top: Optional[int] = None) -> str:
        from ..__about__ import __version__

        where = f"{report.model} on {report.gpus} GPUs ({report.gpus_per_node} per node)"
        results = []
        if not report.entries:
            for check, count in report.refused_by_check.items():
                results.append((check, "error", f"vLLM {report.vllm_version} refuses every layout of {where}: "
                                f"{count} of the {report.candidates} candidate layouts at {check}",
                                {"vllm_version": report.vllm_version, "refused_layouts": count}))
        notes = [_note(f"{where}, vLLM {report.vllm_version}: {report.candidates} candidate layouts, "
                       f"{report.accepted} accepted")]
        notes += [_note(f"#{i}: {e.command} ({e.kv_tokens_per_gpu_per_gib:,.0f} KV tokens per GPU per GiB)")
                  for i, e in enumerate(report.entries[:top], 1)]
        notes += [_note(n) for n in report.notes]
        return _document(results, __version__, notes, report.to_dict(top))

    def diff(self, diff: "LaunchDiff") -> str:
        from ..__about__ import __version__
        from .text import describe_side

        after = diff.after_view
        results = []
        before = f"vLLM {diff.before}: {describe_side(diff.before_view)}"
        if after.get("ok") is None:
            results.append((UNDECIDABLE_RULE, "warning", f"kvguard cannot decide: {after.get('error')} ({before})",
                            {"reason_kind": after.get("reason_kind") or "undecidable"}))
        elif not after["ok"]:
            how = after.get("exc_type") or "error"
            text = f"vLLM {diff.after} refuses this launch: {how}: {after.get('message')}"
            if after.get("wrapped_by"):
                text += f" (surfaces as pydantic ValidationError for {after['wrapped_by']})"
            results.append((after.get("check") or "unknown", "error", f"{text}\n{before}",
                            {"vllm_version": diff.after, "exc_type": after.get("exc_type"),
                             "wrapped_by": after.get("wrapped_by"), "stage": after.get("stage"),
                             "verdict_changed": diff.verdict_changed}))
        change = "verdict changes" if diff.verdict_changed else "same verdict"
        notes = [_note(f"{change}: {before} -> vLLM {diff.after}: {describe_side(after)}")]
        notes += [_note(f"{c['what'][6:]}: {c['from']} -> {c['to']}") for c in diff.changes
                  if c["what"].startswith("facts.")]
        return _document(results, __version__, notes, diff.to_dict())

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
    if check in _OWN_RULES:
        name, text, markdown = _OWN_RULES[check]
        return {"id": check, "name": name, "shortDescription": {"text": text},
                "help": {"text": _plain(markdown), "markdown": markdown}, "defaultConfiguration": {"level": "error"}}
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


def _note(text: str) -> dict[str, Any]:
    return {"level": "note", "message": {"text": text}}


def _document(results: Iterable[tuple[str, str, str, dict[str, Any]]], version: str,
              notes: list[dict[str, Any]], properties: dict[str, Any]) -> str:
    """A SARIF log of one run for ``audit``, ``plan`` and ``diff``: ``results`` are (rule id, level,
    message, properties); the invocation carries ``notes`` and, as its properties, the JSON document."""
    rules: dict[str, dict[str, Any]] = {}
    out = []
    for rule_id, level, text, props in results:
        if rule_id not in rules:
            rules[rule_id] = _rule(rule_id)
        out.append({"ruleId": rule_id, "ruleIndex": list(rules).index(rule_id), "level": level,
                    "message": {"text": text}, "properties": props})
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kvguard", "version": version, "rules": list(rules.values())}},
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes,
                             "properties": properties}],
            "results": out,
        }],
    }
    return json.dumps(doc, indent=2, default=str)


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
        if item.get("nearest"):
            text += f"\nnearest accepted: {item['nearest']}"
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
    doc: dict[str, Any] = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kvguard", "version": version,
                                "rules": list(rules.values())}},
            "results": results,
        }],
    }
    notes: list[dict[str, Any]] = [{"level": "warning" if fatal and fatal[0] else "note", "message": {"text": f"skipped: {reason}"},
              "locations": _location(path, None)}
             for path, reason, *fatal in skipped]
    if failure is not None:
        notes.append({"level": "error", "message": {"text": failure}})
    if notes:
        doc["runs"][0]["invocations"] = [{"executionSuccessful": failure is None,
                                          "toolExecutionNotifications": notes}]
    return json.dumps(doc, indent=2)
