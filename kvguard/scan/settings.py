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

:func:`settings_for` finds the settings of a scan's paths and :func:`resolve_settings` puts the
command line's flags over them: the :class:`ScanSettings` a scan runs with
(:meth:`ScanSettings.scan`).  The command line only parses its flags and prints.

TOML is read with the standard library's ``tomllib`` (Python 3.11+), else ``tomli`` when
installed; on Python 3.10 without ``tomli`` the settings are not read and the scan says so.
An unknown key or a value of the wrong type is an error (exit 2); a file that is not valid
TOML is reported as not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional

from ..errors import InputError
from ..launch.pins import read_toml
from .recipe_hardware import PROFILES

__all__ = ["ScanSettings", "Settings", "find_settings", "resolve_settings", "settings_for"]

_HOST_FACTS = {"platform": str, "gpus_per_node": int, "ray": bool, "triton": bool, "nixl": bool,
               "cpu_memory_bytes": int, "gpu_capability": int, "arctic_inference": bool, "ipex": bool,
               "amx": bool, "pydantic": str}
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
            if fact == "pydantic":
                from ..launch.pydantic_text import pydantic_version

                try:
                    value = pydantic_version(value)
                except ValueError:
                    raise _error(path, f"host.{key} must be a pydantic 2 version such as \"2.14\"") from None
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


def settings_for(paths: "list[str]", *, stdin_filename: Optional[str] = None, no_config: bool = False) -> Settings:
    """The ``[tool.kvguard]`` settings of a scan of ``paths``: searched from the first path (for
    ``-``, standard input: from ``stdin_filename``, else the working directory); none with
    ``no_config``."""
    from .files import STDIN

    if no_config:
        return Settings()
    first = paths[0] if paths[0] != STDIN else (stdin_filename or ".")
    return find_settings(first)


@dataclass(frozen=True)
class ScanSettings:
    """What a scan runs with: the settings found under the command line's flags."""

    vllm_version: Optional[str]                 # the release every launch is checked against, or None
    release_source: str                         # where vllm_version came from
    nearest: bool
    variables: dict[str, str]
    exclude: tuple[str, ...]
    #: host facts (kvguard.launch.layout.Host's fields), the flags' over the settings'
    host: dict[str, Any]
    #: (file, why) when a settings file was found but not read: the scan lists it as skipped
    problem: Optional[tuple[str, str]] = None

    def scan(self, paths: Iterable[str], build_report: Optional[Callable[[Any, "list[str]"], Any]] = None,
             **find_options: Any):
        """:func:`kvguard.scan.scan` of ``paths`` with these settings (``find_options``:
        ``stdin_kind``, ``stdin_filename``, …); a settings file not read is the first skipped file."""
        from .check import scan
        from .result import Skip

        result = scan(paths, self.vllm_version, build_report, self.variables, nearest=self.nearest,
                      release_source=self.release_source, exclude=self.exclude, **find_options)
        if self.problem is not None:
            result.skipped.insert(0, Skip(*self.problem))
        return result


def resolve_settings(found: Settings, *, vllm_version: Optional[str] = None, nearest: bool = False,
                     variables: Optional[Mapping[str, str]] = None, exclude: Iterable[str] = (),
                     host: Optional[Mapping[str, Any]] = None) -> ScanSettings:
    """The command line's flags over the settings ``found``: ``vllm_version`` (``--vllm-version``)
    over ``vllm-version``, ``variables`` (``--set``) over ``variables`` per name, ``host`` facts
    (``--host``/``--platform``/``--gpus-per-node``) over ``host`` per fact; ``nearest`` if either
    says so; ``exclude`` adds to the settings' globs."""
    merged = dict(found.variables)
    merged.update(variables or {})
    profile = merged.get("HARDWARE")
    if profile is not None and profile not in PROFILES:
        raise InputError(f"HARDWARE={profile} is not a hardware profile of the vLLM recipes site (one of "
                         f"{', '.join(PROFILES)})")
    version, source = vllm_version, "--vllm-version"
    if version is None and found.vllm_version is not None:
        version, source = found.vllm_version, f"[tool.kvguard] vllm-version in {found.path}"
    return ScanSettings(vllm_version=version, release_source=source, nearest=nearest or found.nearest,
                        variables=merged, exclude=tuple(found.exclude) + tuple(exclude),
                        host={**found.host, **(host or {})}, problem=found.problem)
