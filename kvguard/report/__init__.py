"""Reporters for a checked launch: text, json, github (chosen by ``--format``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from ..facts import ModelFacts
from ..verdict import Verdict

__all__ = ["JSON_SCHEMA_VERSION", "LaunchReport", "REPORTERS", "SCAN_REPORTERS", "argparse_verdict", "render",
           "render_scan", "render_undecided"]

JSON_SCHEMA_VERSION = 1

@dataclass
class LaunchReport:
    """Everything the CLI says about one launch."""

    verdict: Verdict
    model: Optional[str] = None
    source: Optional[str] = None
    location: Optional[str] = None
    layout: dict[str, Any] = field(default_factory=dict)
    legal_dcp_sizes: Optional[list[int]] = None
    #: why ``legal_dcp_sizes`` is empty: the refusal that stands at this layout even with -dcp 1
    #: (``{"check", "exc_type", "message"}``)
    legal_dcp_reason: Optional[dict[str, Any]] = None
    kv_cache_dtype: str = "auto"
    #: for a refused launch, the nearest launches the release accepts (kvguard.suggest); None when
    #: not searched (an accepted launch, ``scan``, ``diff``)
    suggestions: Optional[list] = None
    #: the host the suggestions were searched for (set when ``check`` searches)
    suggestion_host: Optional[Any] = None
    #: where the release came from when not the default (e.g. the image tag of `docker run …`)
    release_source: Optional[str] = None
    #: unset VLLM_* variables whose default decided the verdict (kvguard.envdefaults.EnvAssumption)
    env_assumptions: list = field(default_factory=list)
    #: the maximum length: derived, its key, the default, the given --max-model-len and what ModelConfig
    #: ends with (cli._length_facts); None when kvguard cannot tell
    length: Optional[dict] = None

    @property
    def facts(self) -> Optional[ModelFacts]:
        return self.verdict.facts if isinstance(self.verdict.facts, ModelFacts) else None

    def kv_facts(self) -> dict[str, Any]:
        f = self.facts
        if f is None:
            return {}
        tp = self.layout.get("tensor_parallel_size", 1)
        dcp = self.layout.get("decode_context_parallel_size", 1)
        out = f.to_dict()
        if self.length is not None:
            out["max_model_len"] = self.length["effective"]
            out["max_model_len_derived"] = {"value": self.length["derived"], "key": self.length["key"],
                                            "default": self.length["default"]}
        if f.use_mla is None or f.total_num_kv_heads is None or not isinstance(tp, int) or tp < 1:
            return out
        from ..kv.kvsize import kv_cache_dtype_bytes

        _, b = kv_cache_dtype_bytes(self.kv_cache_dtype)   # "auto": bfloat16 on a CUDA node
        out.update(
            tp=tp,
            cache_kv_heads=f.cache_kv_heads,
            num_kv_heads_per_rank=f.num_kv_heads(tp),
            duplication_factor=f.duplication_factor(tp),
            residual_duplication=max(1, f.duplication_factor(tp) // max(1, dcp)) if isinstance(dcp, int) else None,
            kv_cache_dtype=self.kv_cache_dtype,
            kv_bytes_per_token_per_rank=f.kv_bytes_per_token(tp, dcp=max(1, dcp) if isinstance(dcp, int) else 1,
                                                              dtype_bytes=b),
        )
        if self.legal_dcp_sizes is not None:
            out["legal_dcp_sizes"] = self.legal_dcp_sizes
            if not self.legal_dcp_sizes and self.legal_dcp_reason:
                out["legal_dcp_sizes_reason"] = self.legal_dcp_reason
        return out

    def to_dict(self) -> dict[str, Any]:
        out = {"schema": JSON_SCHEMA_VERSION}
        out.update(self.verdict.to_dict())
        out.update(model=self.model, source=self.source, location=self.location, layout=self.layout,
                   facts=self.kv_facts())
        if self.suggestion_host is not None:  # `check`: a list for a refused launch, null for an accepted one
            out["suggestions"] = None if self.suggestions is None else [s.to_dict() for s in self.suggestions]
            if self.suggestions is not None:
                h = self.suggestion_host
                out["suggestions_host"] = {"platform": h.platform, "gpus_per_node": h.gpus_per_node, "ray": h.ray,
                                           "assumed": sorted(k for k in ("platform", "gpus_per_node", "ray")
                                                             if k in h.assumed)}
        if self.release_source is not None:
            out["vllm_version_source"] = self.release_source
        if self.env_assumptions:
            out["env_assumptions"] = [a.to_dict() for a in self.env_assumptions]
        return out


def argparse_verdict(release, refusal) -> Verdict:
    """The verdict when vLLM's own argument parser refuses the command line
    (:class:`~kvguard.errors.ArgparseRefusal`): stage ``argparse``, vLLM's printed error as the
    message, kvguard's hints as notes."""
    return Verdict(ok=False, vllm_version=release.key, stage="argparse", check=refusal.check,
                   exc_type=refusal.exc_type, message=refusal.message, notes=refusal.hints)


def render_json(report: LaunchReport) -> str:
    return json.dumps(report.to_dict(), indent=2, default=str)


def render_text(report: LaunchReport, color: bool = False) -> str:
    v = report.verdict
    red, green, dim, reset = ("\033[31m", "\033[32m", "\033[2m", "\033[0m") if color else ("",) * 4
    lines = []
    if v.ok:
        lines.append(f"{green}ACCEPT{reset}  vLLM {v.vllm_version} accepts this launch")
    else:
        lines.append(f"{red}REFUSE{reset}  vLLM {v.vllm_version} refuses this launch at {v.stage} ({v.check})")
        how = f"{v.exc_type}"
        if v.stage == "argparse" and v.exc_type == "SystemExit":
            how += "(2): argparse prints usage and this error"
        if v.wrapped_by:
            how += f", surfacing as pydantic ValidationError for {v.wrapped_by}"
        lines.append(f"  raises:  {how}")
        if v.loc:
            lines.append(f"  field:   {'.'.join(v.loc)}")
        lines.append(f"  message: {v.message}")
    if report.release_source is not None and report.release_source != "--vllm-version":
        lines.append(f"release: vLLM {v.vllm_version} ({report.release_source})")
    if report.model:
        src = f" ({report.source}: {report.location})" if report.source else ""
        lines.append(f"model: {report.model}{src}")
    kv = report.kv_facts()
    if kv:
        mla = "MLA" if kv.get("use_mla") else "GQA/MHA"
        lines.append(f"  {kv.get('model_type')}  {mla}  attention heads {kv.get('total_num_attention_heads')}, "
                     f"KV heads {kv.get('total_num_kv_heads')}, head size {kv.get('head_size')}, "
                     f"layers {kv.get('num_hidden_layers')}")
        if "duplication_factor" in kv:
            residual = kv.get("residual_duplication")
            after = f"; left after -dcp {report.layout.get('decode_context_parallel_size')}: {residual}" \
                if residual is not None else ""
            lines.append(f"  KV cache: H={kv['cache_kv_heads']} governs the cache; at tp={kv['tp']} each rank "
                         f"holds {kv['num_kv_heads_per_rank']} KV head(s), duplication factor "
                         f"{kv['duplication_factor']}{after}")
            if kv.get("kv_bytes_per_token_per_rank") is not None:
                lines.append(f"  KV bytes per token per rank: {kv['kv_bytes_per_token_per_rank']:,} "
                             f"({kv['kv_cache_dtype']})")
        if report.length is not None:
            lines.append("  " + _length_text(report.length))
        legal = kv.get("legal_dcp_sizes")
        if legal:
            lines.append(f"  legal -dcp sizes at this layout: {legal}")
        elif legal is not None:
            # an empty list reads as "-dcp is the problem"; say which refusal stands whatever -dcp is
            why = _no_dcp_text(v, kv.get("legal_dcp_sizes_reason"))
            lines.append(f"  legal -dcp sizes at this layout: none — {why}")
    for s in v.skipped:
        lines.append(f"{dim}  skipped {s.check}: {s.reason}{reset}")
    for assumption in (report.facts.assumptions if report.facts is not None else ()):
        lines.append(f"{dim}  assumed: {assumption}{reset}")
    host_assumed = [a for a in v.assumptions if not a.startswith("VLLM_")]
    if host_assumed:
        lines.append(f"{dim}  assumed a standard CUDA node: {', '.join(host_assumed)} (state yours with "
                     f"--platform/--gpus-per-node/--host, or --unknown-host to skip host checks){reset}")
    for a in report.env_assumptions:
        lines.append(f"{dim}  assumed: {a.describe()} (state yours with --env {a.name}=…){reset}")
    for note in v.notes:
        lines.append(f"{dim}  note: {note}{reset}")
    if report.suggestions is not None:
        lines += _suggestion_lines(report, dim, reset)
    return "\n".join(lines)


def _length_text(length: dict) -> str:
    derived = f"{length['key']}={length['derived']}" if length.get("key") else f"{length['derived']}"
    effective = length.get("effective")
    if length.get("given") is None:
        text = f"max model len: {effective:,} (derived: {derived})" if effective is not None else \
            f"max model len: derived {derived}"
    elif length["given"] == -1:
        text = f"max model len: -1 (auto-fit at start-up, from the derived {derived})"
    elif effective is not None:
        text = f"max model len: {effective:,} (--max-model-len; derived maximum {derived})"
    else:
        text = f"max model len: --max-model-len {length['given']:,} (derived maximum {derived})"
    if length.get("unread"):
        text += f"; not read: {length['unread']}"
    return text


def _suggestion_lines(report: LaunchReport, dim: str, reset: str) -> list[str]:
    from ..kv.suggestions import EDITABLE, MAX_CHANGES, describe_host

    v = report.verdict
    host = describe_host(report.suggestion_host) if report.suggestion_host is not None else "host unknown"
    if not report.suggestions:
        if v.stage == "model_config" and (v.check or "").startswith("MC_"):
            return [f"no nearby launch among the parallel flags: {v.check} refuses the maximum length whatever they are"]
        if v.stage == "model_config":
            return ["no nearby launch: vLLM refuses the model's config itself, whatever the parallel flags"]
        flags = ", ".join(f.replace("_", "-") for f in EDITABLE)
        return [f"no launch within {MAX_CHANGES} changes of the parallel flags ({flags}) is accepted by "
                f"vLLM {v.vllm_version} on this host ({host})"]
    lines = [f"nearest launches vLLM {v.vllm_version} accepts (only parallel flags changed, each one checked; "
             f"host: {host}):"]
    for i, s in enumerate(report.suggestions, 1):
        lines.append(f"  {i}. {s.describe()} — {s.gpus} GPU{'s' if s.gpus != 1 else ''}, "
                     f"{s.nodes} node{'s' if s.nodes != 1 else ''}")
        lines.append(f"     {s.command}")
        for note in s.notes:
            lines.append(f"{dim}     {note}{reset}")
        if s.verdict.skipped:
            lines.append(f"{dim}     not decided here: {', '.join(x.check for x in s.verdict.skipped)}{reset}")
    return lines


def _no_dcp_text(verdict: Verdict, reason: Optional[dict[str, Any]]) -> str:
    if not reason:
        return f"vLLM {verdict.vllm_version} refuses every -dcp size at this layout"
    if not verdict.ok and reason.get("check") == verdict.check:
        return f"the refusal above ({verdict.check}) stands whatever -dcp is"
    return (f"even with -dcp 1 vLLM {verdict.vllm_version} refuses this layout ({reason.get('check')}, "
            f"{reason.get('exc_type')}: {reason.get('message')})")


def _gh_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(report: LaunchReport) -> str:
    v = report.verdict
    if v.ok:
        return f"::notice title=kvguard::vLLM {v.vllm_version} accepts this launch"
    title = _gh_escape(f"kvguard {v.check} (vLLM {v.vllm_version})").replace(",", "%2C").replace("::", ": :")
    return f"::error title={title}::{_gh_escape(f'{v.exc_type}: {v.message}')}"


def render_sarif(report: LaunchReport) -> str:
    from ..__about__ import __version__
    from .sarif import render_sarif as _sarif
    return _sarif([{"verdict": report.verdict}], __version__)


REPORTERS = {"text": render_text, "json": render_json, "github": render_github, "sarif": render_sarif}


def render(report: LaunchReport, fmt: str, *, color: bool = False) -> str:
    if fmt == "text":
        return render_text(report, color=color)
    return REPORTERS[fmt](report)


def render_undecided(fmt: str, reason: str, kind: str, *, command: Optional[str] = None) -> str:
    """No verdict: kvguard cannot decide (``kind``: usage_error, input_error, unsupported_version,
    model_config_refused, undecidable, internal_error) — as a JSON document (``ok: null``, for
    every command; scan's also has empty ``findings``), a SARIF run with one result under the
    ``kvguard-undecidable`` rule, or a workflow annotation."""
    if fmt == "json":
        doc: dict[str, Any] = {"schema": JSON_SCHEMA_VERSION, "command": command, "ok": None,
                               "reason_kind": kind, "reason": reason}
        if command == "scan":
            doc.update(findings=[], skipped=[])
        return json.dumps(doc, indent=2)
    if fmt == "sarif":
        from ..__about__ import __version__
        from .sarif import render_sarif as _sarif
        return _sarif([{"verdict": None, "reason": reason, "reason_kind": kind}], __version__,
                      failure=reason if kind == "internal_error" else None)
    title = "kvguard internal error" if kind == "internal_error" else "kvguard cannot decide"
    level = "error" if kind == "internal_error" else "warning"
    return f"::{level} title={title}::{_gh_escape(f'{reason} ({kind})')}"


# ------------------------------------------------------------------ scan reports
#
# ``--format json`` for ``kvguard scan`` prints one object (schema 1):
#   {"schema": 1, "vllm_version": "0.28.0",
#    "vllm_version_source": where the release of unpinned launches came from,
#    "findings": [{"file", "line", "kind", "label", "command",
#                  "status": "accepted" | "refused" | "undecidable",
#                  "vllm_version", "vllm_version_source": the release this launch was checked
#                  against and where it came from (kvguard.launch.pins), "notes": [...],
#                  "result": <the check JSON object, when checked>,
#                  "reason_kind", "reason", "unresolved": [...]   (when undecidable)}, ...],
#    "skipped": [{"file", "reason"}, ...],
#    "summary": {"files", "found", "checked", "accepted", "refused", "undecidable",
#                "undecidable_by_reason": {reason_kind: count}, "skipped_files"}}


def _summary_line(summary: dict[str, Any]) -> str:
    reasons = ", ".join(f"{k} {v}" for k, v in summary["undecidable_by_reason"].items())
    return (f"{summary['found']} launch(es) found in {summary['files']} file(s): {summary['checked']} checked "
            f"({summary['accepted']} accepted, {summary['refused']} refused), {summary['undecidable']} "
            f"undecidable" + (f" ({reasons})" if reasons else "")
            + (f"; {summary['skipped_files']} file(s) skipped" if summary["skipped_files"] else ""))


def render_scan_text(result, color: bool = False, quiet: bool = False) -> str:
    """One entry per launch; ``quiet``: only refused and undecidable launches (and files named on the
    command line that could not be read), no summary."""
    from ..scan import summarize
    red, green, yellow, dim, reset = (("\033[31m", "\033[32m", "\033[33m", "\033[2m", "\033[0m") if color
                                      else ("",) * 5)
    lines = []
    for f in result.findings:
        if quiet and f.status == "accepted":
            continue
        label = f" [{f.launch.label}]" if f.launch.label else ""
        if f.status == "accepted":
            lines.append(f"{f.launch.where}: {green}ACCEPT{reset}{label}  {f.launch.command}")
        elif f.status == "refused":
            v = f.report.verdict
            lines.append(f"{f.launch.where}: {red}REFUSE{reset}{label}  {f.launch.command}")
            how = v.exc_type + (f" (pydantic ValidationError for {v.wrapped_by})" if v.wrapped_by else "")
            lines.append(f"    vLLM {v.vllm_version} {v.check}: {how}: {v.message}")
        else:
            lines.append(f"{f.launch.where}: {yellow}UNDECIDABLE{reset}{label}  {f.launch.command}")
            lines.append(f"    {f.reason}")
        # the run's release is named once, in the summary; a launch's own pin on the launch
        if f.vllm_version is not None and (f.release_pinned or f.vllm_version != result.vllm_version):
            lines.append(f"{dim}    release: vLLM {f.vllm_version} ({f.vllm_version_source}){reset}")
        for note in f.launch.notes:
            lines.append(f"{dim}    note: {note}{reset}")
    for s in result.skipped:
        if not quiet or s.fatal:
            lines.append(f"{dim}{s.path}: skipped: {s.reason}{reset}")
    if quiet:
        return "\n".join(lines)
    release = ""
    if result.vllm_version:
        release = f" (vLLM {result.vllm_version}" + (f": {result.vllm_version_source}"
                                                     if result.vllm_version_source else "") + ")"
    lines.append(_summary_line(summarize(result)) + release)
    return "\n".join(lines)


def render_scan_json(result) -> str:
    from ..scan import summarize
    doc = {"schema": JSON_SCHEMA_VERSION, "vllm_version": result.vllm_version,
           "vllm_version_source": result.vllm_version_source,
           "findings": [f.to_dict() for f in result.findings],
           "skipped": [{"file": s.path, "reason": s.reason} for s in result.skipped],
           "summary": summarize(result)}
    return json.dumps(doc, indent=2, default=str)


def _gh_prop(text: str) -> str:
    return _gh_escape(text).replace(",", "%2C").replace(":", "%3A")


def render_scan_github(result, quiet: bool = False) -> str:
    from ..scan import summarize
    lines = []
    for f in result.findings:
        loc = f"file={_gh_prop(f.launch.path)},line={f.launch.line}"
        if f.status == "refused":
            v = f.report.verdict
            title = _gh_prop(f"kvguard {v.check} (vLLM {v.vllm_version})")
            lines.append(f"::error {loc},title={title}::{_gh_escape(f'{v.exc_type}: {v.message}')}")
        elif f.status == "undecidable":
            lines.append(f"::warning {loc},title=kvguard cannot decide::{_gh_escape(f.reason or '')}")
    for s in result.skipped:
        if s.fatal:     # a named file kvguard cannot read: the run's exit status 2 rests on it
            lines.append(f"::warning file={_gh_prop(s.path)},title=kvguard cannot read::{_gh_escape(s.reason)}")
    if not quiet:
        lines.append(_summary_line(summarize(result)))
    return "\n".join(lines)


def render_scan_sarif(result) -> str:
    from ..__about__ import __version__
    from .sarif import render_sarif as _sarif
    items = [{"verdict": f.report.verdict if f.report is not None else None, "path": f.launch.path,
              "line": f.launch.line, "command": f.launch.command, "reason": f.reason,
              "reason_kind": f.reason_kind} for f in result.findings]
    return _sarif(items, __version__, [(s.path, s.reason, s.fatal) for s in result.skipped])


SCAN_REPORTERS = {"text": render_scan_text, "json": render_scan_json, "github": render_scan_github,
                  "sarif": render_scan_sarif}


def render_scan(result, fmt: str, *, color: bool = False, quiet: bool = False) -> str:
    """``quiet`` leaves out accepted launches and the summary (text, github); json and sarif are whole."""
    if fmt == "text":
        return render_scan_text(result, color=color, quiet=quiet)
    if fmt == "github":
        return render_scan_github(result, quiet=quiet)
    return SCAN_REPORTERS[fmt](result)
