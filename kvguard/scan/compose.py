"""docker-compose services: ``entrypoint`` + ``command``, each a list or a string (split as compose
splits it: no shell runs it).  An ``entrypoint`` replaces the image's ENTRYPOINT and drops its CMD;
a ``command`` alone replaces CMD and follows the image's entrypoint (:mod:`kvguard.launch.images`).
The container around them (image, ``environment``, ``sh -c`` scripts) is read by
:mod:`~kvguard.scan.containers`.  Compose interpolates ``$X`` / ``${X:-default}`` in the whole file from
the shell's environment and, below it, the project's ``.env`` file (the compose file's directory):
:func:`project_env_file`.  It does so before a string ``command`` is split into words (a ``$ARGS`` of ``-tp 2``
is two words); ``$$`` is a ``$`` it leaves as it is, and any other ``$`` that starts neither a name nor ``{``
(``$(nproc)``) makes compose refuse the file (:func:`~kvguard.scan.variables.compose_invalid`: unresolved).
Top-level ``x-…`` extension fields run nothing themselves; a service that merges one (``<<: *alias``) runs it.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from .beside import read_beside

__all__ = ["compose_command", "is_compose_file", "is_compose_service", "project_env_file", "read_dotenv"]

#: the names ``docker compose`` looks for (compose.yaml first), and ``-f`` files named like them
_COMPOSE_FILE = re.compile(r"^(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml$", re.IGNORECASE)

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$")


def is_compose_file(path: str) -> bool:
    return bool(_COMPOSE_FILE.match(os.path.basename(path)))


def project_env_file(compose_path: str) -> "dict[str, str]":
    """The ``.env`` file beside a compose file, as compose reads it for interpolation (:func:`read_dotenv`);
    empty when there is none."""
    return read_dotenv(compose_path, ".env") or {}


def read_dotenv(scanned: str, name: str) -> "Optional[dict[str, str]]":
    """A compose ``.env`` / ``env_file`` file named beside the scanned file: ``NAME=value`` lines (``export``
    allowed, ``#`` comments, quotes removed, an unquoted value's `` #…`` comment dropped); None when it cannot
    be read there.  A value that itself interpolates (``$``) or escapes (a double-quoted ``\\``) is left out:
    unresolved."""
    text = read_beside(scanned, name)
    if text is None:
        return None
    values: dict[str, str] = {}
    for line in text.splitlines():
        m = _ENV_LINE.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        name, raw = m.group(1), m.group(2).strip()
        if raw[:1] in ("'", '"'):
            end = raw.find(raw[0], 1)
            if end < 0:
                continue        # a quoted value over several lines: not read
            value = raw[1:end]
            if raw[0] == '"' and ("\\" in value or "$" in value):
                continue
        else:
            value = re.split(r"\s+#", raw, maxsplit=1)[0].strip()
            if "$" in value:
                continue
        values[name] = value
    return values


def is_compose_service(keys: dict, path: "list[str]") -> bool:
    """A mapping with an ``entrypoint``, or one under ``services:`` (``path``: the keys above it)."""
    return "entrypoint" in keys or len(path) >= 2 and path[-2] == "services"


def compose_command(entrypoint: Optional[list[str]], command: Optional[list[str]],
                    vllm_image: bool) -> tuple[list[str], bool]:
    """The command a service runs, and whether the image's own entrypoint (``vllm serve``)
    starts it."""
    if entrypoint is not None:
        return entrypoint + (command or []), False
    return command or [], vllm_image
