"""systemd service units (``*.service``): the launch in ``ExecStart=``, in the environment the unit gives it.

Read from systemd.service(5) ("Command lines") and systemd.exec(5) ("Environment"):

- ``ExecStart=`` is one command line, not a shell script: its prefixes (``@``, ``-``, ``:``, ``+``, ``!``)
  are systemd's; a line ending in ``\\`` goes on on the next; words are split with single and double
  quotes; ``${NAME}`` and ``$NAME`` take the unit's environment, ``$$`` is one ``$``; ``%%`` is one ``%``;
- ``Environment=`` sets variables (several ``NAME=value`` words, quoted or not, per line; a later one wins);
  ``EnvironmentFile=`` names a file of ``NAME=value`` lines whose settings override ``Environment=``'s: read
  as docker's ``--env-file`` is (the path as written, else beside the unit), noted when it is not there (a
  leading ``-``: optional);
- a template unit's specifiers are what its instance name says: ``%i`` / ``%I`` (``vllm@8.service``) stand
  for ``$INSTANCE`` here (``--set INSTANCE=8``); the other specifiers (``%h``, ``%n``, …) for
  ``$SYSTEMD_h``, ``$SYSTEMD_n``, … — unresolved unless given.

A unit that runs a shell (``ExecStart=/bin/bash -c "vllm serve …"``) is read as that shell reads its script.
"""

from __future__ import annotations

import re
import shlex
from typing import Optional

from .beside import not_beside
from .compose import read_dotenv
from .result import Launch
from .shell import shell_launches
from .variables import Variables

__all__ = ["is_unit_name", "unit_launches"]

_EXEC_PREFIXES = "@-:+!"
_SPECIFIER = re.compile(r"%(.)")


def is_unit_name(low_name: str) -> bool:
    return low_name.endswith(".service")


def _directives(lines: list[tuple[int, str]]) -> list[tuple[int, str, str, str]]:
    """(line, section, key, value) of each ``Key=value`` line, continuation lines joined with a space."""
    out: list[tuple[int, str, str, str]] = []
    section = ""
    pending: Optional[tuple[int, str]] = None
    for number, raw in lines:
        text = raw.strip()
        if pending is not None:
            first, joined = pending
            if text.startswith(("#", ";")):
                continue        # a comment inside a continued line is skipped
            number, text = first, joined + " " + text
            pending = None
        if not text or text.startswith(("#", ";")):
            continue
        if text.endswith("\\"):
            pending = (number, text[:-1].rstrip())
            continue
        if text.startswith("[") and text.endswith("]"):
            section = text[1:-1]
            continue
        key, sep, value = text.partition("=")
        if sep:
            out.append((number, section, key.strip(), value.strip()))
    if pending is not None:
        key, sep, value = pending[1].partition("=")
        if sep:
            out.append((pending[0], section, key.strip(), value.strip()))
    return out


def _specifiers(text: str) -> str:
    """``%%`` one ``%``; ``%i`` / ``%I`` the instance, others a variable named after the specifier."""
    def sub(m: re.Match) -> str:
        letter = m.group(1)
        if letter == "%":
            return "%"
        return "${INSTANCE}" if letter in "iI" else "${SYSTEMD_" + letter + "}" if letter.isalpha() else m.group(0)

    return _SPECIFIER.sub(sub, text)


def unit_launches(path: str, lines: list[tuple[int, str]], variables: Variables, kind: str = "systemd") -> list[Launch]:
    environment: dict[str, Optional[str]] = {}
    env_files: list[str] = []
    starts: list[tuple[int, str]] = []
    for number, section, key, value in _directives(lines):
        if section != "Service":
            continue
        if key == "Environment":
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            for word in words:
                name, sep, val = word.partition("=")
                if sep and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
                    environment[name] = val
        elif key == "EnvironmentFile" and value:
            env_files.append(value.lstrip("-"))
        elif key == "ExecStart":
            if not value:
                starts = []     # an empty assignment resets the list
            else:
                starts.append((number, value.lstrip(_EXEC_PREFIXES)))
    missing_files = []
    for name in env_files:
        entries = read_dotenv(path, name)
        if entries is None:
            missing_files.append(name)
        else:
            environment.update(entries)
    out: list[Launch] = []
    for number, command in starts:
        scope = Variables(variables.overrides, variables).with_environment(environment)
        scope.set_unknown("INSTANCE")
        found = shell_launches(path, [(number, _specifiers(command).replace("$$", "\\$"))], scope, kind)
        notes = tuple(not_beside("EnvironmentFile", name) for name in missing_files)
        for launch in found:
            launch.notes = launch.notes + notes
        out += found
    return out
