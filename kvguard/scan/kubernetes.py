"""Kubernetes containers: ``command`` replaces the image's ENTRYPOINT (and its CMD), ``args``
replace CMD and follow — the image's entrypoint, ``vllm serve`` for ``vllm/vllm-openai``, when
there is no ``command``.  The container around them (image, ``env``, ``sh -c`` scripts, multi-line
commands) is read by :mod:`~kvguard.scan.containers`."""

from __future__ import annotations

from typing import Optional

__all__ = ["is_kubernetes_container", "kubernetes_command"]


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
