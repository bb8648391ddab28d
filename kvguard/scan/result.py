"""What a scan finds and says: a :class:`Launch` found in a file, a :class:`Skip` (a file not read),
a :class:`Finding` (a launch and its verdict), the :class:`ScanResult` of a run and its :func:`summarize`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import ReleasePin

if TYPE_CHECKING:
    from ..errors import KvguardError

__all__ = ["Finding", "Launch", "ScanResult", "Skip", "summarize"]


@dataclass
class Launch:
    """One launch found in a file."""

    path: str
    line: int
    tokens: list[str]
    kind: str                                   # shell | markdown | dockerfile | yaml | recipe
    unresolved: tuple[str, ...] = ()            # variables left unexpanded in ``tokens``
    label: Optional[str] = None                 # e.g. "variant nvfp4 × strategy single_node_tp"
    pin: Optional[ReleasePin] = None            # the vLLM release its deployment pins (kvguard.launch.pins)
    notes: tuple[str, ...] = ()                 # how the file was read, where it matters
    gpus: Optional[int] = None                  # the GPUs its container is given (vLLM's device count there)
    #: its launcher (written ``vllm serve``) is a vLLM image's own entrypoint, which the release decides
    #: (:mod:`kvguard.launch.images`)
    image_entrypoint: bool = False
    #: the release whose image entrypoint that is, when not the release the launch runs (a Dockerfile that
    #: reinstalls vLLM over a vLLM image keeps the base image's ENTRYPOINT); None: the release checked
    entrypoint_release: Optional[str] = None
    #: why the launch never starts as written, whatever vLLM would say of it (the file's own tool refuses
    #: it: Kubernetes' API a container whose ``env`` value is a number, compose's words handed to ``sh -c``);
    #: None: it starts.  Such a launch is undecidable (:class:`~kvguard.scan.undecidable.NotStarted`)
    not_started: Optional[str] = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def give_gpus(self, gpus: int, source: str, holder: str = "the container") -> None:
        """The launch's container (``holder``) is given ``gpus`` GPUs (``source``: what in the file says so),
        noted."""
        self.gpus = gpus
        self.notes = self.notes + (f"{holder} is given {gpus} GPU{'s' if gpus != 1 else ''} ({source}): "
                                   "vLLM counts those",)

    @property
    def command(self) -> str:
        return shlex.join(self.tokens)


@dataclass
class Skip:
    path: str
    reason: str
    #: a file named on the command line that cannot be read: counts toward exit status 2
    #: (files met while walking a directory are only reported)
    fatal: bool = False


@dataclass
class Finding:
    """A launch and what kvguard says about it."""

    launch: Launch
    status: str                                 # accepted | refused | undecidable
    report: Any = None                          # LaunchReport when checked
    reason: Optional[str] = None                # why undecidable
    reason_kind: Optional[str] = None           # unresolved-variable | unknown-model | bad-arguments | …
    vllm_version: Optional[str] = None          # the release checked against (None: no ruleset fits)
    vllm_version_source: Optional[str] = None   # where that release came from (kvguard.launch.pins)
    release_pinned: bool = False                # the launch's own deployment chose the release

    @classmethod
    def undecided(cls, launch: Launch, exc: "KvguardError") -> "Finding":
        """The finding of a launch ``exc`` leaves undecided: its reason, and the kind the
        exception's type names (:func:`kvguard.scan.undecidable.reason_kind_of`)."""
        from .undecidable import UndecidableLaunch, reason_kind_of

        reason = exc.reason if isinstance(exc, UndecidableLaunch) else str(exc)
        return cls(launch, "undecidable", reason=reason, reason_kind=reason_kind_of(exc))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.launch.path, "line": self.launch.line, "kind": self.launch.kind,
                               "label": self.launch.label, "command": self.launch.command,
                               "status": self.status, "vllm_version": self.vllm_version,
                               "vllm_version_source": self.vllm_version_source,
                               "notes": list(self.launch.notes)}
        if self.status == "undecidable":
            out.update(reason_kind=self.reason_kind, reason=self.reason,
                       unresolved=list(self.launch.unresolved))
        if self.report is not None:
            out["result"] = self.report.to_dict()
        return out


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    files: int = 0
    vllm_version: Optional[str] = None          # the release of launches nothing pins
    vllm_version_source: Optional[str] = None   # where that release came from

    @property
    def exit_status(self) -> int:
        """1 if any launch is refused, else 2 if any is undecidable or a file unreadable, else 0."""
        if any(f.status == "refused" for f in self.findings):
            return 1
        if any(f.status == "undecidable" for f in self.findings) or any(s.fatal for s in self.skipped):
            return 2
        return 0


def summarize(result: ScanResult) -> dict[str, Any]:
    by_reason: dict[str, int] = {}
    for f in result.findings:
        if f.status == "undecidable":
            by_reason[f.reason_kind or "undecidable"] = by_reason.get(f.reason_kind or "undecidable", 0) + 1
    checked = [f for f in result.findings if f.status != "undecidable"]
    return {
        "files": result.files,
        "found": len(result.findings),
        "checked": len(checked),
        "accepted": sum(f.status == "accepted" for f in result.findings),
        "refused": sum(f.status == "refused" for f in result.findings),
        "undecidable": len(result.findings) - len(checked),
        "undecidable_by_reason": dict(sorted(by_reason.items())),
        "skipped_files": len(result.skipped),
    }
