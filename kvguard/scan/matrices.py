"""A CI job run once per combination of a matrix (GitHub Actions ``strategy.matrix``, GitLab CI
``parallel:matrix``), or a script's call run once per value of the loops around it: the launches each
combination makes, reported once each, labelled with a combination that makes them when the combinations
change what a line launches."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Optional

    from .result import Launch

__all__ = ["Collector"]


class Collector:
    """The launches of every combination, keyed by what they launch."""

    def __init__(self, kind: str = "matrix") -> None:
        self._found: dict[tuple, tuple[dict, "Launch"]] = {}
        self._kind = kind      # what a label names the combination as (a CI "matrix", a script's "loop")

    def add(self, combo: dict, launch: "Launch") -> None:
        key = (launch.line, tuple(launch.tokens), launch.unresolved, launch.pin)
        self._found.setdefault(key, (combo, launch))

    def launches(self) -> "list[Launch]":
        per_line: dict[int, int] = {}
        for line, *_ in self._found:
            per_line[line] = per_line.get(line, 0) + 1
        out = []
        for (line, *_), (combo, launch) in self._found.items():
            own = _label(self._kind, combo) if per_line[line] > 1 else None
            inner = launch.label        # an inner loop's (or a called function's) own label
            if own and inner:
                kind, _, values = inner.partition(" ")
                own += ", " + values if kind == self._kind else "; " + inner
            launch.label = own or inner
            out.append(launch)
        return out


def _label(kind: str, combo: dict) -> "Optional[str]":
    return f"{kind} " + ", ".join(f"{k}={v}" for k, v in combo.items()) if combo else None
