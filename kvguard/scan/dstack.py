"""dstack run configurations (``*.dstack.yml``): a ``type: task`` or ``type: service`` mapping whose
``commands`` run, in order, in one shell on each node.

Read from dstack's configuration reference (``type``, ``image``, ``env``, ``commands``, ``nodes``,
``resources.gpu``) and its runner (``runner/internal/executor/executor.go``, which sets the job's
``DSTACK_*`` variables): ``env`` is a list of ``NAME=value`` (a bare ``NAME`` takes its value from
where ``dstack apply`` runs: not in the file) or a mapping; the runner adds ``DSTACK_GPUS_PER_NODE``
(the GPU count ``resources.gpu`` asks for), ``DSTACK_NODES_NUM`` (``nodes``, default 1),
``DSTACK_GPUS_NUM`` (their product) and per-node values (``DSTACK_NODE_RANK``,
``DSTACK_MASTER_NODE_IP``, …) that the file does not hold.  ``resources.gpu`` is a spec such as
``24GB`` (one GPU), ``A100:2``, ``24GB..80GB:8``, ``H100,H200:8``, a count (``8``), or a mapping
with ``count``; a count range (``1..2``) is not a count.  The count is each node's GPUs, the device
count vLLM reads (noted).  ``image`` (else a ``pip install vllm==X`` among the commands) pins the
release.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import image_pin
from .gpus import gpu_count as whole_gpus
from .shell import shell_launches
from .variables import env_text
from .yamlnodes import child

if TYPE_CHECKING:
    from .yamlfiles import YamlWalker

__all__ = ["gpu_count", "is_dstack_run", "dstack_launches"]

#: a memory size or range (``24GB``, ``24GB..80GB``, ``..80GB``): it names a unit
_MEMORY = re.compile(r"^[\d.]*(?:MB|GB|TB)[\d.]*(?:MB|GB|TB)?$", re.IGNORECASE)
_COUNT = re.compile(r"^\d+$")
_COUNT_RANGE = re.compile(r"^(\d*)\.\.(\d*)$")


def is_dstack_run(plain: Any) -> bool:
    return isinstance(plain, dict) and plain.get("type") in ("task", "service") \
        and isinstance(plain.get("commands"), list)


def _count_value(value: Any) -> Optional[int]:
    """A ``count``: a whole number, or a range whose bounds are equal; None for anything else."""
    if isinstance(value, dict):
        low, high = value.get("min"), value.get("max")
        return _count_value(low) if low is not None and low == high else None
    whole = whole_gpus(value)
    if whole is not None or not isinstance(value, str):
        return whole
    m = _COUNT_RANGE.match(value.strip())
    return int(m.group(1)) if m and m.group(1) and m.group(1) == m.group(2) else None


def gpu_count(spec: Any) -> Optional[int]:
    """The GPUs per node a ``resources.gpu`` spec asks for; None when it leaves the count open."""
    if spec is None:
        return None
    if isinstance(spec, dict):
        return _count_value(spec["count"]) if "count" in spec else 1
    if not isinstance(spec, str):
        return whole_gpus(spec)
    count: Optional[int] = 1
    for part in spec.strip().split(":"):
        part = part.strip()
        if _MEMORY.match(part):
            continue
        if _COUNT.match(part) or _COUNT_RANGE.match(part):
            count = _count_value(part)
    return count


def _env(entries: Any) -> "dict[str, Optional[str]]":
    env: dict[str, Optional[str]] = {}
    if isinstance(entries, dict):
        for name, value in entries.items():
            if isinstance(name, str):
                env[name] = None if value is None or isinstance(value, (dict, list)) else env_text(value)
    elif isinstance(entries, list):
        for entry in entries:
            if not isinstance(entry, str):
                continue
            name, sep, value = entry.partition("=")
            env[name.strip()] = value if sep else None
    return env


def _command_lines(walker: "YamlWalker", root, commands: list) -> list[tuple[int, str]]:
    node = child(root, "commands")
    if node is None:
        return []
    walker.handled.add(id(node))
    lines: list[tuple[int, str]] = []
    for index, item in enumerate(commands):
        item_node = child(root, "commands", index)
        if not isinstance(item, str) or item_node is None:
            continue
        first = walker.line(item_node) + (1 if item_node.style in ("|", ">") else 0)
        lines += [(first + i, t) for i, t in enumerate(item.split("\n"))]
    return lines


def dstack_launches(walker: "YamlWalker", root, plain: dict) -> None:
    """The launches of the run's ``commands``, with its environment, release pin and GPUs."""
    env = _env(plain.get("env"))
    resources = plain.get("resources")
    spec = resources.get("gpu") if isinstance(resources, dict) else None
    gpus = gpu_count(spec)
    nodes = plain.get("nodes", 1)
    nodes = _count_value(nodes) if plain.get("type") == "task" else 1
    env["DSTACK_GPUS_PER_NODE"] = str(gpus) if gpus is not None else None
    env["DSTACK_NODES_NUM"] = str(nodes) if nodes is not None else None
    env["DSTACK_GPUS_NUM"] = str(gpus * nodes) if gpus is not None and nodes is not None else None
    for name in ("DSTACK_NODE_RANK", "DSTACK_MASTER_NODE_IP", "DSTACK_NODES_IPS", "DSTACK_MPI_HOSTFILE"):
        env[name] = None
    scope = walker.variables.with_environment(env)
    image = plain.get("image")
    if isinstance(image, str):
        where = child(root, "image") or root
        scope.pin = image_pin(image, f"{walker.path}:{walker.line(where)}")
    launches = shell_launches(walker.path, _command_lines(walker, root, plain["commands"]), scope, walker.kind)
    if gpus:
        for launch in launches:
            if launch.gpus is None:
                launch.give_gpus(gpus, f"resources.gpu: {spec}", "each node of the dstack run")
    walker.out += launches
