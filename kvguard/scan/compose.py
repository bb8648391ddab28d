"""docker-compose services: ``entrypoint`` + ``command``, each a list or a string (split as compose
splits it: no shell runs it).  An ``entrypoint`` replaces the image's ENTRYPOINT and drops its CMD;
a ``command`` alone replaces CMD and follows the image's entrypoint — ``vllm serve`` for
``vllm/vllm-openai``.  The container around them (image, ``environment``, ``sh -c`` scripts) is
read by :mod:`~kvguard.scan.containers`."""

from __future__ import annotations

from typing import Optional

__all__ = ["compose_command", "is_compose_service"]


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
