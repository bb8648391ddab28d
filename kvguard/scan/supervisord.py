"""supervisord configuration files (``supervisord.conf``, ``*.conf`` / ``*.ini`` with ``[program:NAME]``
sections): the launch in each program's ``command``.

Read from supervisord's documentation ("Configuration File", ``[program:x]`` section values):

- ``command`` is split into words like a POSIX shell would (``shlex``), but no shell runs it; a line that starts
  with blanks continues the value above (INI continuation);
- ``%(…)s`` expressions are replaced before the command is split, so a value's blanks separate words:
  ``%(ENV_NAME)s`` is the value of NAME in supervisord's own environment (not in the file, and not the program's
  ``environment=``: unresolved unless ``--set NAME=value``), ``%(program_name)s`` the section's name,
  ``%(here)s`` the file's directory, ``%%`` one ``%``; other expressions are unresolved;
- ``environment=KEY="value",KEY2="value2"`` is the program's environment, added to supervisord's.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Optional

from .result import Launch
from .shell import one_word, shell_launches
from .variables import Variables

__all__ = ["is_supervisord_name", "supervisord_launches"]

_SECTION = re.compile(r"^\[program:([^\]]+)\]\s*$")
_EXPRESSION = re.compile(r"%\(([A-Za-z0-9_]+)\)[sd]|%%")
#: a ``$`` of the file, which nothing expands (no shell runs the command), apart from the ``${NAME}`` kvguard writes
_DOLLAR = "\ue007"
_ENV_ENTRY = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,]*)\s*(?:,|$)')


def is_supervisord_name(low_name: str) -> bool:
    return low_name in ("supervisord.conf", "supervisor.conf") or low_name.endswith((".conf", ".ini"))


def _sections(lines: list[tuple[int, str]]) -> list[tuple[str, dict[str, tuple[int, str]]]]:
    """Each ``[program:NAME]`` section's options (name -> (line, value)), continuation lines joined."""
    out: list[tuple[str, dict[str, tuple[int, str]]]] = []
    current: Optional[dict[str, tuple[int, str]]] = None
    last: Optional[str] = None
    for number, text in lines:
        stripped = text.strip()
        if text[:1] in (" ", "\t") and current is not None and last is not None and stripped \
                and not stripped.startswith((";", "#")):
            first, value = current[last]
            current[last] = (first, value + " " + stripped)
            continue
        if not stripped or stripped.startswith((";", "#")):
            continue
        if stripped.startswith("["):
            m = _SECTION.match(stripped)
            current = None
            if m:
                current = {}
                out.append((m.group(1).strip(), current))
            last = None
            continue
        if current is None:
            continue
        key, sep, value = stripped.partition("=")
        if sep:
            last = key.strip().lower()
            current[last] = (number, value.strip())
    return out


def _environment(value: str) -> "dict[str, Optional[str]]":
    out: dict[str, Optional[str]] = {}
    for m in _ENV_ENTRY.finditer(value):
        raw = m.group(2).strip()
        if raw[:1] in ('"', "'") and raw[-1:] == raw[:1] and len(raw) >= 2:
            raw = raw[1:-1]
        out[m.group(1)] = raw
    return out


def _expand(text: str, program: str, path: str, known: Variables) -> tuple[str, list[str]]:
    """supervisord's ``%(…)s`` expressions of a program's option replaced as supervisord replaces them (as text,
    before the command is split), and the names whose values kvguard does not know, written ``${NAME}``; every
    other ``$`` is written :data:`_DOLLAR` (supervisord expands no ``$NAME``):
    ``%(ENV_X)s`` (supervisord's environment: ``known``, the ``--set`` values), ``%(program_name)s``, ``%(here)s``,
    ``%%``."""
    unknown: list[str] = []

    def expression(m: re.Match) -> str:
        if m.group(0) == "%%":
            return "%"
        key = m.group(1)
        if key == "program_name":
            return program
        if key == "here":
            return os.path.dirname(os.path.abspath(path))
        name = key[4:] if key.startswith("ENV_") else key
        value = known.get(name) if key.startswith("ENV_") else None
        if value is not None:
            return value.replace("$", _DOLLAR)
        unknown.append(name)
        return "${" + name + "}"

    return _EXPRESSION.sub(expression, text.replace("$", _DOLLAR)), unknown


def supervisord_launches(path: str, lines: list[tuple[int, str]], variables: Variables,
                         kind: str = "supervisord") -> list[Launch]:
    out: list[Launch] = []
    for name, options in _sections(lines):
        if "command" not in options:
            continue
        number, command = options["command"]

        expanded, unknown = _expand(command, name, path, variables)
        try:
            words = shlex.split(expanded)
        except ValueError:
            continue
        environment: dict[str, Optional[str]] = {}
        if "environment" in options:
            text, unknown_in_environment = _expand(options["environment"][1], name, path, variables)
            environment = {key: None if value is None or any("${" + u + "}" in value for u in unknown_in_environment)
                           else value.replace(_DOLLAR, "$") for key, value in _environment(text).items()}
        scope = Variables(variables.overrides, variables).with_environment(environment)
        for reference in unknown:
            scope.set_unknown(reference)    # supervisord's environment, not the program's
        # no shell runs the command: its words are passed as they are, each one word
        out += shell_launches(path, [(number, " ".join(one_word(word, _DOLLAR) for word in words))], scope, kind)
    return out
