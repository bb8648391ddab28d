"""Shell-like variables while reading a file: assignments, ``export``, ``--set`` values, and their
expansion (``$X``, ``${X}``, ``${X:-default}``, Kubernetes' ``$(X)``).
"""

from __future__ import annotations

import re
import shlex
from typing import Mapping, Optional

from ..launch.pins import ReleasePin

__all__ = ["ENV_TOKEN", "VARIABLE", "Variables", "env_text", "launch_reads"]

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)|"
                      r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$\(\([^)]*\)\)|"
                      r"\$\([^)]*\)|`[^`]*`")

ENV_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

#: environment variables besides VLLM_* that change a verdict (the GPUs vLLM counts: kvguard.launch.devices)
_READ_BY_CHECKS = frozenset({"CUDA_VISIBLE_DEVICES"})


def env_text(value: object) -> str:
    """A YAML scalar as an environment variable holds it (``true`` for YAML's boolean, ``""`` for null)."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def launch_reads(name: str) -> bool:
    """Whether a launch's environment variable ``name`` can change kvguard's verdict (``VLLM_*``,
    ``CUDA_VISIBLE_DEVICES``): the ones carried from a file's environment to its launches."""
    return name.startswith("VLLM_") or name in _READ_BY_CHECKS


class Variables:
    def __init__(self, overrides: Mapping[str, str], parent: Optional["Variables"] = None):
        self.overrides = dict(overrides)
        self.local: dict[str, str] = dict(parent.local) if parent else {}
        self.exported: set[str] = set(parent.exported) if parent else set()
        #: names set to a value kvguard cannot know (``X=$(cat f)``, a Kubernetes ``valueFrom``)
        self.unknown: set[str] = set(parent.unknown) if parent else set()
        #: the latest `pip install vllm==X` (or Dockerfile base image) above this point
        self.pin: Optional[ReleasePin] = parent.pin if parent else None

    def get(self, name: str) -> Optional[str]:
        if name in self.overrides:
            return self.overrides[name]
        return self.local.get(name)

    def vllm_env(self) -> list[str]:
        """``NAME=value`` for the exported variables a check reads (:func:`launch_reads`: what of its
        environment matters to a launch below them); one whose value is unknown as ``NAME=$NAME`` (one of
        :meth:`unknown_env`)."""
        out = []
        for name in sorted(self.exported):
            value = self.get(name)
            if launch_reads(name) and value is not None:
                out.append(f"{name}={value}")
            elif launch_reads(name) and name in self.unknown:
                out.append(f"{name}=${name}")
        return out

    def unknown_env(self) -> list[str]:
        """The exported variables a check reads set to values kvguard cannot know (unresolved for a launch)."""
        return [name for name in sorted(self.exported)
                if launch_reads(name) and name in self.unknown and self.get(name) is None]

    def set_known(self, name: str, value: str) -> None:
        """``name`` holds ``value`` (an environment entry: no expansion, no word splitting)."""
        self.local[name] = value
        self.unknown.discard(name)

    def with_environment(self, entries: Mapping[str, Optional[str]]) -> "Variables":
        """A scope below this one in which ``entries`` are the process's environment: exported, each set to
        its value, or to one kvguard cannot know (None); ``--set`` values still win."""
        scope = Variables(self.overrides, self)
        for name, value in entries.items():
            scope.exported.add(name)
            if value is None:
                scope.set_unknown(name)
            else:
                scope.set_known(name, value)
        return scope

    def unset(self, name: str) -> None:
        """``unset name``: neither set nor exported any more (a ``--set`` value still wins)."""
        self.local.pop(name, None)
        self.exported.discard(name)
        self.unknown.discard(name)

    def set_unknown(self, name: str) -> None:
        """``name`` is set, to a value kvguard cannot know."""
        self.local.pop(name, None)
        self.unknown.add(name)

    def assign(self, name: str, raw: str, export: bool = False) -> None:
        if export:
            self.exported.add(name)
        value, missing = self.expand(raw)
        if missing:
            self.set_unknown(name)
            return
        try:
            parts = shlex.split(value)
        except ValueError:
            self.set_unknown(name)
            return
        self.set_known(name, parts[0] if len(parts) == 1 else " ".join(parts))

    def expand(self, text: str) -> tuple[str, list[str]]:
        missing: list[str] = []

        def sub(m: re.Match) -> str:
            name = m.group(1) or m.group(3) or m.group(4)   # ${X}, $X, $(X) (Kubernetes' syntax)
            if name is None:        # $(…), $((…)), `…`
                missing.append(m.group(0))
                return m.group(0)
            value = self.get(name)
            if value is None and m.group(1) and m.group(2) is not None:
                value = m.group(2)
            if value is None:
                missing.append(name)
                return m.group(0)
            return value

        return VARIABLE.sub(sub, text), missing
