"""The GPUs a Kubernetes container's ``resources`` give it: ``nvidia.com/gpu`` of ``limits``, else of
``requests`` (an extended resource's request defaults to its limit), as the NVIDIA device plugin
allocates them — the device count vLLM reads in that container.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["gpu_count", "resources_gpus"]


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
