"""``kvguard scan`` settings from ``[tool.kvguard]`` in the scanned repository's ``pyproject.toml``.

The settings file is the nearest ``pyproject.toml`` holding a ``[tool.kvguard]`` table,
searched from the first scanned path upward (for ``-``: from ``--stdin-filename``'s
directory, else the working directory), as ruff finds its settings.  Files without the
table are passed over.  Command-line options win: ``--vllm-version`` over
``vllm-version``, ``--set`` over ``variables`` (per name), ``--host``/``--platform``/
``--gpus-per-node`` over ``host`` (per fact); ``exclude`` adds to ``--exclude``.

::

    [tool.kvguard]
    vllm-version = "0.28.0"          # checked release unless --vllm-version (overrides pins)
    nearest = false                  # closest older ruleset for unknown versions
    exclude = ["charts/**", "docs/archive"]   # globs relative to this file; a bare name
                                              # (`*.gotmpl`, `vendor`) matches anywhere
    [tool.kvguard.variables]         # as --set NAME=VALUE
    GPUS = 8
    [tool.kvguard.host]              # as --host / --platform / --gpus-per-node
    platform = "cuda"
    gpus-per-node = 8
    ray = true

TOML is read with the standard library's ``tomllib`` (Python 3.11+), else ``tomli`` when
installed; on Python 3.10 without ``tomli`` the settings are not read and the scan says so.
An unknown key or a value of the wrong type is an error (exit 2); a file that is not valid
TOML is reported as not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import InputError
from ..launch.pins import read_toml

__all__ = ["Settings", "find_settings"]

_HOST_FACTS = {"platform": str, "gpus_per_node": int, "ray": bool, "triton": bool, "nixl": bool,
               "cpu_memory_bytes": int, "gpu_capability": int, "arctic_inference": bool}
_KEYS = ("vllm-version", "nearest", "exclude", "variables", "host")


@dataclass
class Settings:
    path: Optional[str] = None                  # the pyproject.toml the settings came from
    vllm_version: Optional[str] = None
    nearest: bool = False
    exclude: tuple[str, ...] = ()               # absolute for patterns with a "/" (see kvguard.scan)
    variables: dict[str, str] = field(default_factory=dict)
    host: dict[str, Any] = field(default_factory=dict)
    #: (file, why) when a settings file was found but not read
    problem: Optional[tuple[str, str]] = None


def _error(path: str, what: str) -> InputError:
    return InputError(f"[tool.kvguard] {what}", source=path)


def _parse(path: str, table: Any) -> Settings:
    if not isinstance(table, dict):
        raise _error(path, "must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise _error(path, f"unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
    out = Settings(path=path)
    if "vllm-version" in table:
        if not isinstance(table["vllm-version"], str):
            raise _error(path, "vllm-version must be a string")
        out.vllm_version = table["vllm-version"]
    if "nearest" in table:
        if not isinstance(table["nearest"], bool):
            raise _error(path, "nearest must be true or false")
        out.nearest = table["nearest"]
    if "exclude" in table:
        globs = table["exclude"]
        if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
            raise _error(path, "exclude must be a list of strings")
        root = os.path.dirname(os.path.abspath(path))
        out.exclude = tuple(os.path.join(root, g) if "/" in g.rstrip("/") and not os.path.isabs(g) else g
                            for g in globs)
    if "variables" in table:
        variables = table["variables"]
        if not isinstance(variables, dict):
            raise _error(path, "variables must be a table of NAME = value")
        for name, value in variables.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise _error(path, f"variables.{name} must be a string or a number")
            out.variables[name] = str(value)
    if "host" in table:
        host = table["host"]
        if not isinstance(host, dict):
            raise _error(path, "host must be a table")
        for key, value in host.items():
            fact = key.replace("-", "_")
            kind = _HOST_FACTS.get(fact)
            if kind is None:
                raise _error(path, f"host: unknown fact {key!r} (known: "
                                   f"{', '.join(k.replace('_', '-') for k in _HOST_FACTS)})")
            if kind is bool and not isinstance(value, bool) or kind is int and (
                    isinstance(value, bool) or not isinstance(value, int)) or kind is str and not isinstance(value, str):
                raise _error(path, f"host.{key} must be {'true or false' if kind is bool else kind.__name__}")
            out.host[fact] = value
    return out


def find_settings(start: str) -> Settings:
    """The ``[tool.kvguard]`` settings that apply to ``start`` (a file or directory)."""
    here = os.path.abspath(start)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            doc, why = read_toml(candidate)
            if doc is None:
                try:
                    with open(candidate, encoding="utf-8", errors="replace") as fh:
                        mentions = "tool.kvguard" in fh.read(5 * 1024 * 1024)
                except OSError:
                    mentions = False
                if mentions:        # our settings are in a file we cannot read: say so, use none
                    return Settings(problem=(candidate, f"[tool.kvguard] settings {why}"))
            else:
                tool = doc.get("tool")
                if isinstance(tool, dict) and "kvguard" in tool:
                    return _parse(candidate, tool["kvguard"])
        parent = os.path.dirname(here)
        if parent == here:
            return Settings()
        here = parent
