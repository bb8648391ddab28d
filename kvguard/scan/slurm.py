"""Slurm batch scripts: the GPUs of a node that ``#SBATCH`` options give the job.

``sbatch`` reads ``#SBATCH`` lines from the top of the script until the first line that is
neither a comment nor blank (sbatch(1), "DESCRIPTION"); the job then runs with the node's
allocated GPUs visible (Slurm sets ``CUDA_VISIBLE_DEVICES`` to them, and with cgroup device
confinement the node shows no others), so their count is the device count vLLM's GPU check
reads.  The options that say how many a node gets:

- ``--gres=gpu:N`` / ``--gres=gpu:TYPE:N`` (``gpu`` alone: 1; a comma list may name other
  resources), per node;
- ``--gpus-per-node=N`` / ``=TYPE:N``;
- ``--gpus=N`` / ``-G N`` (per job): a node's count only for a one-node job (``-N 1``).

Slurm also gives the job ``SLURM_GPUS_ON_NODE`` (the node's GPUs) and ``SLURM_JOB_NUM_NODES`` /
``SLURM_NNODES`` (a fixed ``--nodes``); a script's launch that reads them sees those values.
Options on the ``sbatch`` command line are not in the file and are not known.
"""

from __future__ import annotations

import re
import shlex
from typing import Optional

__all__ = ["BatchJob", "batch_job"]

_DIRECTIVE = re.compile(r"^#SBATCH\s+(.*)$")
_COUNT = re.compile(r"^(?:[A-Za-z0-9_.-]+:)?(\d+)$")


class BatchJob:
    """What a batch script's ``#SBATCH`` header says of each node: its GPUs, and the job's node count."""

    def __init__(self, gpus: Optional[int], gpus_source: str, nodes: Optional[int]):
        self.gpus, self.gpus_source, self.nodes = gpus, gpus_source, nodes

    def environment(self) -> "dict[str, Optional[str]]":
        """The variables Slurm gives the job that kvguard can know from the header."""
        env: dict[str, Optional[str]] = {}
        if self.gpus is not None:
            env["SLURM_GPUS_ON_NODE"] = str(self.gpus)
        if self.nodes is not None:
            env["SLURM_JOB_NUM_NODES"] = env["SLURM_NNODES"] = str(self.nodes)
        return env


def _options(lines: "list[tuple[int, str]]") -> list[tuple[str, str]]:
    """(option, value) of the header's ``#SBATCH`` lines, long and short forms alike (``--gres gpu:4``)."""
    words: list[str] = []
    for _, text in lines:
        stripped = text.strip()
        if not stripped or (stripped.startswith("#") and not stripped.startswith("#SBATCH")):
            continue
        m = _DIRECTIVE.match(stripped)
        if m is None:
            break               # the first command ends the header
        try:
            # a directive's own comment (`#SBATCH -N 1  # one node`) is not an option
            words += shlex.split(m.group(1), comments=True)
        except ValueError:
            continue
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and "=" in word:
            name, value = word.split("=", 1)
            out.append((name, value))
        elif word in ("--gres", "--gpus-per-node", "--gpus", "--nodes", "-G", "-N") and i + 1 < len(words):
            out.append((word, words[i + 1]))
            i += 1
        elif word[:2] in ("-G", "-N") and len(word) > 2:
            out.append((word[:2], word[2:]))
        i += 1
    return out


def _gres_gpus(value: str) -> Optional[int]:
    """The GPUs of a ``--gres`` list (``gpu:4``, ``gpu:a100:4``, ``gpu``, ``shard:2,gpu:2``); None without."""
    total = None
    for entry in value.split(","):
        parts = entry.split(":")
        if parts[0] != "gpu":
            continue
        if len(parts) == 1:
            count = 1
        elif parts[-1].isdigit():
            count = int(parts[-1])
        elif len(parts) == 2:
            count = 1           # `gpu:a100`: one GPU of that type
        else:
            return None
        total = (total or 0) + count
    return total


def batch_job(lines: "list[tuple[int, str]]") -> Optional[BatchJob]:
    """The job a batch script's header asks for; None for a script without ``#SBATCH`` lines."""
    options = _options(lines)
    if not options:
        return None
    gpus: Optional[int] = None
    source = ""
    per_job: Optional[tuple[int, str]] = None
    nodes: Optional[int] = None
    for name, value in options:       # a later directive overrides an earlier one, as sbatch reads them
        if name == "--gres":
            found = _gres_gpus(value)
            if found is not None:
                gpus, source = found, f"#SBATCH --gres={value}"
        elif name == "--gpus-per-node":
            m = _COUNT.match(value)
            gpus, source = (int(m.group(1)), f"#SBATCH --gpus-per-node={value}") if m else (None, "")
        elif name in ("--gpus", "-G"):
            m = _COUNT.match(value)
            per_job = (int(m.group(1)), f"#SBATCH --gpus={value}") if m else None
        elif name in ("--nodes", "-N"):
            nodes = int(value) if value.isdigit() else None
    if gpus is None and per_job is not None and nodes == 1:
        gpus, source = per_job
    return BatchJob(gpus, source, nodes)
