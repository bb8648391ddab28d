"""The GPUs a launch sees: ``CUDA_VISIBLE_DEVICES`` as vLLM counts it.

vLLM counts a CUDA node's GPUs with ``cuda_device_count_stateless()`` (``vllm/utils/__init__.py`` up to
0.11.x, ``vllm/platforms/cuda.py`` after; the same in every release 0.10.2 – 0.33.0), which takes
``torch.cuda._device_count_nvml()``: the variable's comma-separated entries, each read as the leading
digits of the entry (``1gpu`` is 1); an entry with none, or a negative one, ends the list; a repeated
ordinal empties it; the list ends at the first ordinal the node does not have.  A list of ``GPU-`` / ``MIG-``
UUIDs is matched against the node's own UUIDs (not known here: the count is unknown), a repeated one
empties it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["visible_gpu_count"]


def _leading_number(entry: str) -> int:
    """The integer an entry starts with (an optional sign, then digits), or -1 when it starts with none;
    ValueError for a sign with no digit after it (torch's own parser fails there too)."""
    end = 0
    for index, char in enumerate(entry):
        if char.isdigit() or (index == 0 and char in "+-"):
            end = index + 1
        else:
            break
    return int(entry[:end]) if end else -1


def visible_gpu_count(value: str, node_gpus: int) -> "Optional[int]":
    """How many of a node's ``node_gpus`` GPUs vLLM counts with ``CUDA_VISIBLE_DEVICES=value``; None when
    the value names GPUs by UUID (the node's UUIDs decide).  ValueError where torch's parser raises one (an
    entry that is a sign alone: vLLM's launch fails with it)."""
    for prefix in ("GPU-", "MIG-"):
        if value.startswith(prefix):
            named: list[str] = []
            for entry in value.split(","):
                if entry in named:
                    return 0            # a repeated name empties the list
                if not entry.startswith(prefix):
                    break
                named.append(entry)
            return None
    ordinals: list[int] = []
    for entry in value.split(","):
        number = _leading_number(entry.strip())
        if number in ordinals:
            return 0
        if number < 0:
            break
        ordinals.append(number)
    for index, ordinal in enumerate(ordinals):
        if ordinal >= node_gpus:
            return index
    return len(ordinals)
