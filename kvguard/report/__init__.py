"""Reporters: what kvguard prints, one module per ``--format``.

The layers, in order: :mod:`kvguard.launch` reads a launch, :mod:`kvguard.front` checks it (and
:mod:`kvguard.scan`, :mod:`kvguard.kv`, :mod:`kvguard.diff` build the other results), and a
:class:`Reporter` turns a result into text.  Every format has one reporter class, in its own
module — :mod:`~kvguard.report.text`, :mod:`~kvguard.report.json`, :mod:`~kvguard.report.github`,
:mod:`~kvguard.report.sarif` (and :mod:`~kvguard.report.svg`, ``kvguard plan --plot``) — with one
method per subcommand: ``check``, ``scan``, ``audit``, ``plan``, ``diff``, and ``undecided`` for a
run that gives no verdict.  A format that has nothing to say for a subcommand raises
:class:`FormatNotOffered`.  Every JSON document has ``schema`` (:data:`JSON_SCHEMA_VERSION`).
"""

from __future__ import annotations

from importlib import import_module

from ..front import JSON_SCHEMA_VERSION

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)

if TYPE_CHECKING:
    from typing import Any, Optional

    from ..diff import LaunchDiff
    from ..front import LaunchReport
    from ..kv.economics import AuditReport
    from ..kv.plan import PlanReport
    from ..scan import ScanResult

__all__ = ["COMMANDS", "FORMATS", "FormatNotOffered", "JSON_SCHEMA_VERSION", "Reporter", "byte_count", "reporter"]

#: the formats, each the module (and the ``--format`` value) of one reporter
FORMATS = ("text", "json", "github", "sarif", "svg")
#: the subcommands, each a method of :class:`Reporter`
COMMANDS = ("check", "scan", "audit", "plan", "diff")


def byte_count(value: Optional[float], unit: str = "") -> str:
    """A byte count as every format prints it: thousands separated, decimals only when fractional (a
    per-rank share under -dcp), "n/a" when the model has no such size."""
    if value is None:
        return "n/a"
    text = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return f"{text} {unit}" if unit else text


class FormatNotOffered(ValueError):
    """A format that has nothing to say for a subcommand (``kvguard audit --format sarif``)."""

    def __init__(self, fmt: str, command: str):
        self.format = fmt
        self.command = command
        super().__init__(f"--format {fmt} is not offered for `kvguard {command}`")


class Reporter:
    """One output format for every subcommand.  ``color``: ANSI colours (text); ``quiet``: only
    refused and undecidable launches, no summary (scan, in text and github)."""

    format = ""

    def __init__(self, *, color: bool = False, quiet: bool = False):
        self.color = color
        self.quiet = quiet

    def check(self, report: "LaunchReport") -> str:
        """``kvguard check``: one launch's verdict, facts and suggestions."""
        raise FormatNotOffered(self.format, "check")

    def scan(self, result: "ScanResult") -> str:
        """``kvguard scan``: every launch found, and the files skipped."""
        raise FormatNotOffered(self.format, "scan")

    def audit(self, report: "AuditReport") -> str:
        """``kvguard audit``: the KV-cache economics of each model at a layout."""
        raise FormatNotOffered(self.format, "audit")

    def plan(self, report: "PlanReport", top: Optional[int] = None) -> str:
        """``kvguard plan``: the accepted layouts of N GPUs, best first (``top``: how many)."""
        raise FormatNotOffered(self.format, "plan")

    def diff(self, diff: "LaunchDiff") -> str:
        """``kvguard diff``: one launch under two releases."""
        raise FormatNotOffered(self.format, "diff")

    def undecided(self, reason: str, kind: str, *, command: Optional[str] = None) -> Optional[str]:
        """kvguard gives no verdict (``kind``: usage_error, input_error, unsupported_version,
        model_config_refused, undecidable, internal_error): the document that says so, or None
        when the line on stderr says it all."""
        return None


def reporter(fmt: str, **options: Any) -> Reporter:
    """The reporter of ``fmt`` (one of :data:`FORMATS`), its module loaded on first use."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    module = import_module(f".{fmt}", __name__)
    cls: type[Reporter] = getattr(module, f"{fmt.capitalize()}Reporter")
    return cls(**options)
