"""``--format github``: GitHub Actions workflow commands (``::error file=…,line=…::…``), which the
runner shows as annotations on the lines of a pull request.

One command per line, for every subcommand: ``check`` and ``scan`` an ``::error`` per refusal
(``::warning`` when kvguard cannot decide); ``audit`` a ``::notice`` per model (``::warning`` when
vLLM refuses the layout's ``-dcp`` or the capacity asked for does not fit); ``plan`` a ``::notice``
with the count of layouts and one per layout printed (an ``::error`` when the release refuses every
layout); ``diff`` a ``::notice`` (same verdict) or ``::warning`` (the verdict changes).  The message
is escaped as the runner requires (``%``, CR, LF), a property (``title``, ``file``) also ``:``
and ``,``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import Reporter, byte_count

if TYPE_CHECKING:
    from ..diff import LaunchDiff
    from ..front import LaunchReport
    from ..kv.economics import AuditReport, ModelAudit
    from ..kv.plan import PlanReport
    from ..scan import ScanResult

__all__ = ["GithubReporter"]


class GithubReporter(Reporter):
    format = "github"

    def check(self, report: "LaunchReport") -> str:
        v = report.verdict
        if v.ok:
            return f"::notice title=kvguard::vLLM {v.vllm_version} accepts this launch"
        title = _gh_escape(f"kvguard {v.check} (vLLM {v.vllm_version})").replace(",", "%2C").replace("::", ": :")
        return f"::error title={title}::{_gh_escape(f'{v.exc_type}: {v.message}')}"

    def scan(self, result: "ScanResult") -> str:
        from ..scan import summarize
        from .text import summary_line

        lines = []
        for f in result.findings:
            loc = f"file={_gh_prop(f.launch.path)},line={f.launch.line}"
            if f.status == "refused":
                v = f.report.verdict
                title = _gh_prop(f"kvguard {v.check} (vLLM {v.vllm_version})")
                text = f"{v.exc_type}: {v.message}"
                if f.report.suggestions:
                    text += f"\nnearest accepted: {f.report.suggestions[0].command}"
                lines.append(f"::error {loc},title={title}::{_gh_escape(text)}")
            elif f.status == "undecidable":
                lines.append(f"::warning {loc},title=kvguard cannot decide::{_gh_escape(f.reason or '')}")
        for s in result.skipped:
            if s.fatal:     # a named file kvguard cannot read: the run's exit status 2 rests on it
                lines.append(f"::warning file={_gh_prop(s.path)},title=kvguard cannot read::{_gh_escape(s.reason)}")
        if not self.quiet:
            lines.append(summary_line(summarize(result)))
        return "\n".join(lines)

    def diff(self, diff: "LaunchDiff") -> str:
        from .text import describe_side

        if not diff.verdict_changed:
            return f"::notice title=kvguard diff::same verdict under vLLM {diff.before} and {diff.after}"
        text = f"{diff.before}: {describe_side(diff.before_view)} -> {diff.after}: {describe_side(diff.after_view)}"
        return "::warning title=kvguard diff::" + _gh_escape(text)

    def audit(self, report: "AuditReport") -> str:
        """One annotation per model: its cache facts at the layout, and the capacity when asked for."""
        return "\n".join(_audit_line(m) for m in report.models)

    def plan(self, report: "PlanReport", top: Optional[int] = None) -> str:
        """The count of layouts (an ``::error`` when none is accepted), then one ``::notice`` per
        layout printed, best first, with its ``vllm serve`` flags."""
        head = (f"{report.model}: {report.gpus} GPUs ({report.gpus_per_node} per node), vLLM "
                f"{report.vllm_version}: {report.candidates} candidate layouts, {report.accepted} accepted")
        if report.refused_by_check:
            head += " (refused: " + ", ".join(f"{k} {v}" for k, v in report.refused_by_check.items()) + ")"
        text = "\n".join([head, *(f"note: {n}" for n in report.notes)])
        if not report.entries:
            refused = f"vLLM {report.vllm_version} refuses every layout of {report.gpus} GPUs. "
            return f"::error title={_gh_prop(f'kvguard plan (vLLM {report.vllm_version})')}::{_gh_escape(refused + text)}"
        lines = [f"::notice title=kvguard plan::{_gh_escape(text)}"]
        for i, e in enumerate(report.entries[:top], 1):
            cross = ", ".join(n for n, f in (("tp", e.tp_cross_node), ("dcp", e.dcp_cross_node),
                                             ("pcp", e.pcp_cross_node), ("pp", e.pp_cross_node),
                                             ("ep", e.ep_cross_node)) if f)
            what = (f"{e.command}\nduplication {e.duplication_factor}, after -dcp {e.residual_duplication:g}; "
                    f"{e.kv_bytes_per_token_per_rank:,.0f} KV bytes per token per rank; "
                    f"{e.kv_tokens_per_gpu_per_gib:,.0f} KV tokens per GPU per GiB")
            if e.kv_gib_per_gpu_for_max_len is not None:
                length = report.max_model_len or report.max_model_len_derived
                what += f"; {e.kv_gib_per_gpu_for_max_len:.3f} GiB per GPU for one {length}-token sequence"
            if e.kv_sizing == "all_full_attention":
                what += "; KV bytes approximate (sliding-window layers counted as full attention)"
            if cross:
                what += f"; groups across nodes: {cross}"
            lines.append(f"::notice title={_gh_prop(f'kvguard plan #{i}')}::{_gh_escape(what)}")
        return "\n".join(lines)

    def undecided(self, reason: str, kind: str, *, command: Optional[str] = None) -> str:
        title = "kvguard internal error" if kind == "internal_error" else "kvguard cannot decide"
        level = "error" if kind == "internal_error" else "warning"
        return f"::{level} title={title}::{_gh_escape(f'{reason} ({kind})')}"


def _audit_line(m: "ModelAudit") -> str:
    """``::notice`` with one model's audit; ``::warning`` when vLLM refuses the layout's ``-dcp``, the
    capacity asked for does not fit, or there are no KV-cache facts."""
    from ..kv.capacity import CapacityNotModelledResult

    title = _gh_prop(f"kvguard audit {m.model} (vLLM {m.vllm_version}, -tp {m.tp} -pcp {m.pcp} -dcp {m.dcp})")
    warn = False
    if m.duplication_factor is None:
        parts = ["no KV cache facts"]
        warn = True
    else:
        kind = "MLA" if m.use_mla else "GQA/MHA"
        parts = [f"{kind}: H governing the cache {m.cache_kv_heads}, {m.num_kv_heads_per_rank} KV head(s) per rank; "
                 f"duplication factor {m.duplication_factor}, after -dcp {m.dcp}: {m.residual_duplication:g}; "
                 f"legal -dcp sizes {list(m.legal_dcp_sizes)}; KV bytes per token per rank "
                 f"{byte_count(m.kv_bytes_per_token_per_rank)} ({m.kv_cache_dtype_resolved})"]
        if not m.dcp_legal:
            warn = True
            parts.append(f"vLLM {m.vllm_version} refuses -dcp {m.dcp} at this layout"
                         if m.legal_dcp_sizes else f"vLLM {m.vllm_version} refuses this layout at every -dcp")
    cap = m.capacity
    if isinstance(cap, CapacityNotModelledResult):
        parts.append(f"capacity: not modelled — {cap.reason}")
    elif cap is not None:
        if cap.fits:
            parts.append("capacity: vLLM will log: " + " / ".join(cap.log_lines))
        else:
            warn = True
            parts.append(f"capacity: vLLM refuses to start: {cap.error[0]}: {cap.error[1]}")
    parts += [f"note: {n}" for n in m.notes]
    return f"::{'warning' if warn else 'notice'} title={title}::{_gh_escape(chr(10).join(parts))}"


def _gh_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_escape(text).replace(",", "%2C").replace(":", "%3A")
