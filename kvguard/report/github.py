"""``--format github``: GitHub Actions workflow commands (``::error file=…,line=…::…``), which the
runner shows as annotations on the lines of a pull request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import Reporter

if TYPE_CHECKING:
    from ..diff import LaunchDiff
    from ..front import LaunchReport
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
                lines.append(f"::error {loc},title={title}::{_gh_escape(f'{v.exc_type}: {v.message}')}")
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
        return "::warning title=kvguard diff::" + text.replace("%", "%25").replace("\n", "%0A")

    def undecided(self, reason: str, kind: str, *, command: Optional[str] = None) -> str:
        title = "kvguard internal error" if kind == "internal_error" else "kvguard cannot decide"
        level = "error" if kind == "internal_error" else "warning"
        return f"::{level} title={title}::{_gh_escape(f'{reason} ({kind})')}"


def _gh_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_escape(text).replace(",", "%2C").replace(":", "%3A")
