"""SkyPilot task YAMLs (``sky launch`` / ``sky serve up``): a mapping with a ``run`` script and the
task's ``resources``, ``envs``, ``setup``, ``num_nodes``.

Read from SkyPilot's task YAML reference (docs "YAML Configuration", ``sky/task.py``,
``sky/resources.py``): ``setup`` then ``run`` execute in separate shells on each node, both with the
task's ``envs`` (a ``null`` one — and every ``secrets`` entry — is given at launch, so it is not in
the file) and with the variables SkyPilot sets: ``SKYPILOT_NUM_GPUS_PER_NODE`` (the accelerator
count), ``SKYPILOT_NUM_NODES`` (``num_nodes``, default 1), ``SKYPILOT_NODE_RANK`` and
``SKYPILOT_NODE_IPS`` (the node's own, not in the file).  ``resources.accelerators`` is ``NAME``
(one), ``NAME:N``, a mapping ``{NAME: N}``, or a set / list of alternatives (``{H100:8, H200:8}``);
``resources.any_of`` / ``ordered`` list alternative resources.  When every alternative gives the
same count, that count is each node's GPUs (the device count vLLM reads, noted); otherwise it is
unknown.  ``resources.image_id: docker:IMAGE`` runs the task in IMAGE (its tag pins the release), and
a ``pip install vllm==X`` in ``setup`` pins what ``run`` runs.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import image_pin
from .shell import shell_launches
from .variables import env_text
from .yamlnodes import child

if TYPE_CHECKING:
    from .yamlfiles import YamlWalker

__all__ = ["accelerator_count", "is_skypilot_task", "skypilot_launches"]

#: keys of a task besides ``run``; one of them marks a mapping as a task
_TASK_KEYS = frozenset({"resources", "envs", "secrets", "setup", "num_nodes", "workdir", "file_mounts", "service"})

_ACCELERATOR = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(?::\s*(\S+))?\s*$")


def is_skypilot_task(plain: Any) -> bool:
    return isinstance(plain, dict) and isinstance(plain.get("run"), str) and any(k in plain for k in _TASK_KEYS)


def _counts(accelerators: Any) -> Optional[set[Optional[int]]]:
    """The GPU counts the ``accelerators`` alternatives give (None within: a count that is not whole)."""
    if accelerators is None:
        return set()
    items: list[tuple[str, Any]] = []
    if isinstance(accelerators, str):
        text = accelerators.strip()
        if text.startswith("{") and text.endswith("}"):
            items = [(part, None) for part in text[1:-1].split(",") if part.strip()]
        else:
            items = [(text, None)]
    elif isinstance(accelerators, dict):
        items = [(str(k), v) for k, v in accelerators.items()]
    elif isinstance(accelerators, list):
        items = [(str(k), None) for k in accelerators]
    else:
        return None
    out: set[Optional[int]] = set()
    for name, value in items:
        m = _ACCELERATOR.match(name)
        if m is None:
            return None
        given = value if value is not None else m.group(2)
        if given is None:
            out.add(1)
        elif isinstance(given, bool):
            out.add(None)
        elif isinstance(given, int):
            out.add(given)
        elif isinstance(given, float):
            out.add(int(given) if given.is_integer() and given >= 1 else None)
        else:
            try:
                number = float(str(given))
            except ValueError:
                return None
            out.add(int(number) if number.is_integer() and number >= 1 else None)
    return out


def accelerator_count(resources: Any) -> Optional[int]:
    """Each node's GPU count, when every alternative the task's ``resources`` allows gives the same one."""
    if not isinstance(resources, dict):
        return None
    alternatives = [resources]
    for key in ("any_of", "ordered"):
        if isinstance(resources.get(key), list):
            base = {k: v for k, v in resources.items() if k not in ("any_of", "ordered")}
            alternatives = [{**base, **alt} for alt in resources[key] if isinstance(alt, dict)] or alternatives
    counts: set[Optional[int]] = set()
    for alternative in alternatives:
        found = _counts(alternative.get("accelerators"))
        if found is None or not found:
            return None       # an unreadable alternative, or one without accelerators (CPU only)
        counts |= found
    return counts.pop() if len(counts) == 1 and None not in counts else None


def _accelerators_text(resources: dict) -> str:
    """Where the count comes from, as the file writes it (``resources.accelerators: {H100:8, H200:8}``)."""
    value = resources.get("accelerators")
    if value is None:
        return "resources.any_of / ordered"
    if isinstance(value, dict):
        value = "{" + ", ".join(str(k) if v is None else f"{k}:{v}" for k, v in value.items()) + "}"
    elif isinstance(value, list):
        value = "[" + ", ".join(str(k) for k in value) + "]"
    return f"resources.accelerators: {value}"


def _lines(walker: "YamlWalker", root, key: str, value: Any) -> list[tuple[int, str]]:
    node = child(root, key)
    if not isinstance(value, str) or node is None:
        return []
    walker.handled.add(id(node))
    first = walker.line(node) + (1 if node.style in ("|", ">") else 0)
    return [(first + i, t) for i, t in enumerate(value.split("\n"))]


def skypilot_launches(walker: "YamlWalker", root, plain: dict) -> None:
    """The task's ``setup`` and ``run`` launches, with its environment, release pin and GPUs."""
    env: dict[str, Optional[str]] = {}
    envs, secrets = plain.get("envs"), plain.get("secrets")
    for name, value in (envs.items() if isinstance(envs, dict) else ()):
        if isinstance(name, str):
            env[name] = None if value is None or isinstance(value, (dict, list)) else env_text(value)
    for name in (secrets if isinstance(secrets, dict) else ()):
        if isinstance(name, str):
            env[name] = None
    resources = plain.get("resources")
    gpus = accelerator_count(resources)
    nodes = plain.get("num_nodes", 1)
    env["SKYPILOT_NUM_NODES"] = str(nodes) if isinstance(nodes, int) and not isinstance(nodes, bool) else None
    env["SKYPILOT_NUM_GPUS_PER_NODE"] = str(gpus) if gpus is not None else None
    env["SKYPILOT_NODE_RANK"] = env["SKYPILOT_NODE_IPS"] = None
    image = resources.get("image_id") if isinstance(resources, dict) else None
    pin = None
    if isinstance(image, str) and image.startswith("docker:"):
        where = child(root, "resources", "image_id") or root
        pin = image_pin(image[len("docker:"):], f"{walker.path}:{walker.line(where)}")
    setup = walker.variables.with_environment(env)
    setup.pin = pin
    launches = shell_launches(walker.path, _lines(walker, root, "setup", plain.get("setup")), setup, walker.kind)
    run = walker.variables.with_environment(env)
    run.pin = setup.pin       # what setup installed is what run runs; its shell variables are gone
    launches += shell_launches(walker.path, _lines(walker, root, "run", plain.get("run")), run, walker.kind)
    if gpus is not None and isinstance(resources, dict):
        source = _accelerators_text(resources)
        for launch in launches:
            if launch.gpus is None:
                launch.give_gpus(gpus, source, "each node of the SkyPilot task")
    walker.out += launches
