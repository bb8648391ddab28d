"""The GPUs a container is given — the device count vLLM reads in it: a Kubernetes container's
``resources`` (``nvidia.com/gpu`` of ``limits``, else of ``requests``: an extended resource's request
defaults to its limit), as the NVIDIA device plugin allocates them; ``NVIDIA_VISIBLE_DEVICES`` in the
container's environment, as the NVIDIA container runtime reads it when no ``--gpus`` / device request
is made (a list of indices or UUIDs; ``all``, ``none``, ``void`` or empty name no count).
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["gpu_count", "resources_gpus", "visible_devices_gpus"]


def gpu_count(value: Any) -> Optional[int]:
    """A whole number of GPUs as a manifest writes it (``2``, ``"2"``); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def resources_gpus(resources: Any, where: str = "resources") -> tuple[Optional[int], Optional[str]]:
    """(the GPU count, the setting that gives it — ``where.limits nvidia.com/gpu: 2``) of a ``resources``
    mapping; (None, None) without a whole count."""
    for part in ("limits", "requests"):
        given = resources.get(part) if isinstance(resources, dict) else None
        if isinstance(given, dict) and "nvidia.com/gpu" in given:
            n = gpu_count(given["nvidia.com/gpu"])
            return (n, f"{where}.{part} nvidia.com/gpu: {given['nvidia.com/gpu']}") if n is not None else (None, None)
    return None, None


def visible_devices_gpus(value: Any) -> Optional[int]:
    """The GPUs ``NVIDIA_VISIBLE_DEVICES=value`` exposes (``0,1`` and ``GPU-8a1f…,GPU-77c2…`` → 2); None for
    ``all`` (the node's), ``none`` / ``void`` / empty (no GPU: vLLM finds no CUDA platform, which kvguard does
    not model) and anything that is not a plain string."""
    if not isinstance(value, str):
        return None
    entries = [entry.strip() for entry in value.strip().strip("'\"").split(",")]
    if not all(entries) or any(entry.lower() in ("all", "none", "void") for entry in entries):
        return None
    return len(entries)
