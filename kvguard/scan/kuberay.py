"""KubeRay RayJob documents (``apiVersion: ray.io/v1`` or ``v1alpha1``, ``kind: RayJob``): ``spec.entrypoint``
is a shell command the Ray job runs on the cluster ``spec.rayClusterSpec`` describes (or on one that
``spec.clusterSelector`` names, which the file does not hold).

Read from KubeRay's RayJob reference (``ray-operator/apis/ray/v1/rayjob_types.go``) and Ray's job
submission docs: the entrypoint runs on the head node unless ``entrypointNumCpus`` / ``entrypointNumGpus`` /
``entrypointResources`` ask for resources, which may place it on a worker; a driver that asks no GPUs of Ray
sees all of its node's.  So the head group's Ray container (the first one) gives the launch its image, its
environment and — when no entrypoint resources are asked — its GPUs.  ``runtimeEnvYAML`` adds ``env_vars`` to
the driver's environment, and its ``pip`` packages are installed for the job: an exact ``vllm==X`` there pins
the release the entrypoint runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import ReleasePin, requirement_pin
from .containers import script_in_container
from .variables import Variables, env_text
from .yamlnodes import child, load_yaml

if TYPE_CHECKING:
    import yaml as yaml_types

    from .yamlfiles import YamlWalker

__all__ = ["is_ray_job", "ray_job_launches"]

#: the RayJob fields that ask Ray for the entrypoint's own resources (then it may run on a worker node)
_ENTRYPOINT_RESOURCES = ("entrypointNumCpus", "entrypointNumGpus", "entrypointResources")


def is_ray_job(plain: Any) -> bool:
    return isinstance(plain, dict) and plain.get("kind") == "RayJob" \
        and str(plain.get("apiVersion", "")).startswith("ray.io/")


def _runtime_env(text: Any) -> Optional[dict]:
    """``runtimeEnvYAML``: a YAML mapping in a string (None: absent or not readable)."""
    yaml = load_yaml()
    if not isinstance(text, str) or yaml is None:
        return None
    try:
        runtime = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return runtime if isinstance(runtime, dict) else None


def _runtime_pin(runtime: dict, where: str) -> Optional[ReleasePin]:
    """An exact vLLM requirement among the runtime environment's ``pip`` packages (a list, or ``packages:``)."""
    packages = runtime.get("pip")
    if isinstance(packages, dict):
        packages = packages.get("packages")
    for package in packages if isinstance(packages, list) else []:
        pin = requirement_pin(package, "runtimeEnvYAML pip:", where) if isinstance(package, str) else None
        if pin is not None:
            return pin
    return None


def _runtime_environment(runtime: dict) -> "dict[str, Optional[str]]":
    variables = runtime.get("env_vars")
    return {name: None if isinstance(value, (dict, list)) or value is None else env_text(value)
            for name, value in (variables.items() if isinstance(variables, dict) else ())
            if isinstance(name, str)}


def ray_job_launches(walker: "YamlWalker", root: "yaml_types.MappingNode", plain: dict) -> None:
    """The entrypoint's launches, run as the head node's container runs them."""
    entrypoint = child(root, "spec", "entrypoint")
    spec: dict = plain["spec"] if isinstance(plain.get("spec"), dict) else {}
    if entrypoint is None or not isinstance(spec.get("entrypoint"), str):
        return
    walker.handled.add(id(entrypoint))
    head = child(root, "spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "containers", 0)
    yaml = load_yaml()
    keys = {k.value: v for k, v in head.value if isinstance(k, yaml.ScalarNode)} \
        if isinstance(head, yaml.MappingNode) else {}
    runtime = _runtime_env(spec.get("runtimeEnvYAML")) or {}
    where = child(root, "spec", "runtimeEnvYAML") or root
    pin = _runtime_pin(runtime, f"{walker.path}:{walker.line(where)}")
    outer = walker.variables
    walker.variables = Variables(outer.overrides, outer)
    if pin is not None:
        walker.variables.pin = pin
    try:
        script_in_container(walker, entrypoint, keys, _runtime_environment(runtime),
                            with_gpus=not any(field in spec for field in _ENTRYPOINT_RESOURCES))
    finally:
        walker.variables = outer
