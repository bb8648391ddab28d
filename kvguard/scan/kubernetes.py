"""Kubernetes containers: ``command`` replaces the image's ENTRYPOINT (and its CMD), ``args``
replace CMD and follow — the image's entrypoint, ``vllm serve`` for ``vllm/vllm-openai``, when
there is no ``command``.  The container around them (image, ``env``, ``sh -c`` scripts, multi-line
commands) is read by :mod:`~kvguard.scan.containers`.

The API server decodes a container into typed fields (core/v1 ``Container``: ``command`` and ``args`` lists of
strings, ``EnvVar.value`` a string) and refuses an object whose YAML gives another type: such a container never
starts, whatever its launch would do (:func:`refused_by_the_api`)."""

from __future__ import annotations

from typing import Optional

__all__ = ["is_kubernetes_container", "kubernetes_command", "refused_by_the_api"]


def is_kubernetes_container(keys: dict, path: "list[str]") -> bool:
    """A mapping with ``args``, or an item of ``containers:`` / ``initContainers:`` (``path``: the
    keys above it, ``[]`` for a list item)."""
    return "args" in keys or len(path) >= 2 and path[-2] in ("containers", "initContainers") and path[-1] == "[]"


def kubernetes_command(command: Optional[list[str]], args: Optional[list[str]],
                       vllm_image: bool) -> tuple[list[str], bool]:
    """The command a container runs, and whether the image's own entrypoint (``vllm serve``)
    starts it."""
    if command is not None:
        return command + (args or []), False
    return args or [], vllm_image


def _type_name(value: object) -> "Optional[str]":
    """What a YAML value is when it is not the string the API wants (None: a string, or absent)."""
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else "not a string"


def refused_by_the_api(command: object, args: object, env: object, ports: object = None) -> "Optional[str]":
    """Why Kubernetes' API refuses a container of an object it is given (its ``command``, ``args``, ``env`` and
    ``ports`` as plain values), or None: a ``command`` / ``args`` that is not a list, or holds an item that is not a
    string (``- 8000``); an ``env`` entry whose ``value`` is not a string (``value: 1``, ``value: true``); a
    ``containerPort`` that is not a whole number (``"8000"``: ContainerPort.containerPort is an int32)."""
    refusal = "Kubernetes' API refuses the object, so the container never starts: "
    for name, words in (("command", command), ("args", args)):
        if words is None:
            continue
        if not isinstance(words, list):
            return refusal + f"`{name}` is {_type_name(words) or 'a string'}, not a list of strings"
        for word in words:
            kind = _type_name(word)
            if kind is not None:
                return refusal + f"an item of `{name}` ({word!r}) is {kind}, not a string (quote it)"
    if env is not None and not isinstance(env, list):
        return refusal + f"`env` is {_type_name(env) or 'a string'}, not a list of `name` / `value` entries"
    for entry in env if isinstance(env, list) else []:
        kind = _type_name(entry.get("value")) if isinstance(entry, dict) else None
        if kind is not None:
            name = entry.get("name")
            return refusal + f"`env` {name}'s `value` ({entry['value']!r}) is {kind}, not a string (quote it)"
    for port in ports if isinstance(ports, list) else []:
        number = port.get("containerPort") if isinstance(port, dict) else None
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
            return refusal + f"a `containerPort` ({number!r}) is not a whole number (write it unquoted)"
    return None
