"""YAML files (``*.yaml``, ``*.yml``): each document is walked once, and each mapping is offered to
the kinds of YAML kvguard reads — Kubernetes containers and compose services
(:mod:`~kvguard.scan.containers`), Helm values (:mod:`~kvguard.scan.helm`), the deployers' charts
(:mod:`~kvguard.scan.charts`), vLLM recipes (:mod:`~kvguard.scan.recipes`), GitHub Actions workflows
(:mod:`~kvguard.scan.workflows`), GitLab CI pipelines (:mod:`~kvguard.scan.gitlab`), SkyPilot tasks
(:mod:`~kvguard.scan.skypilot`), dstack runs (:mod:`~kvguard.scan.dstack`), KubeRay jobs
(:mod:`~kvguard.scan.kuberay`) — and any string
holding a launch (a script, a Markdown guide).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

from ..launch.pins import image_pin
from . import yamlnodes
from .configmaps import ConfigMaps, config_maps_of
from .containers import container_launches
from .dstack import dstack_launches, is_dstack_run
from .gitlab import gitlab_launches, is_gitlab_ci, plain_value
from .kuberay import is_ray_job, ray_job_launches
from .markdown import markdown_launches
from .recipes import recipe_launches
from .result import Launch
from .shell import LAUNCH_HINT, shell_launches
from .skypilot import is_skypilot_task, skypilot_launches
from .variables import Variables
from .workflows import is_workflow, workflow_launches
from .yamlnodes import child, to_python

__all__ = ["YamlWalker", "yaml_text_launches"]


def yaml_text_launches(path: str, lines: list[tuple[int, str]], variables: Variables,
                       kind: str = "yaml", strategies_from: Optional[str] = None) -> list[Launch]:
    yaml = yamlnodes.load_yaml()
    if yaml is None:
        return []
    text = "\n".join(t for _, t in lines)
    offset = lines[0][0] - 1 if lines else 0
    out: list[Launch] = []
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        maps = config_maps_of([to_python(doc) for doc in docs if doc is not None])
        for doc in docs:
            if doc is not None:
                out += YamlWalker(path, offset, variables, kind, strategies_from, maps).walk_root(doc)
    except yaml.YAMLError:
        return []
    except RecursionError:  # nested too deeply, or an alias that contains itself (`a: &a [*a]`)
        return []
    return out


#: keys whose one-line values are labels for people, never commands
_PROSE_KEYS = frozenset({"name", "description", "title", "summary", "displayName", "display_name"})


#: a LeaderWorkerSet's worker pods walked one by one up to this many (a larger group: once, the index unresolved)
_MAX_LWS_WORKERS = 16


class LeaderWorkerSet(NamedTuple):
    """What a LeaderWorkerSet's pods are given: its group size (``spec.leaderWorkerTemplate.size``; None when not
    a whole number), and whether a leader template makes index 0 (else the worker template does)."""

    size: Optional[int]
    has_leader_template: bool


class YamlWalker:
    def __init__(self, path: str, offset: int, variables: Variables, kind: str, strategies_from: Optional[str],
                 config_maps: Optional[ConfigMaps] = None):
        self.path, self.offset, self.variables, self.kind = path, offset, variables, kind
        #: the file's ConfigMaps, which its containers' `envFrom` / `configMapKeyRef` read; and the namespace
        #: the document being walked names (None: not written)
        self.config_maps = config_maps or ConfigMaps([])
        self.namespace: Optional[str] = None
        #: the document is an object for Kubernetes' API (``apiVersion`` and ``kind``), which refuses one whose
        #: containers' fields have the wrong types (:func:`~kvguard.scan.kubernetes.refused_by_the_api`)
        self.api_object = False
        self.strategies_from = strategies_from
        self.recipe = False
        self.stack: list[dict] = []      # the enclosing mappings' keys, innermost last
        self.keys: list[str] = []        # the key path to the node being walked ("[]": a list item)
        self.out: list[Launch] = []
        self.handled: set[int] = set()   # nodes read already (a workflow's `run:` steps, a pipeline's scripts)
        #: the LeaderWorkerSet this document is (None: not one), and the worker index of the worker template's
        #: pod being walked (None: not known)
        self.lws: Optional[LeaderWorkerSet] = None
        self.lws_worker_index: Optional[int] = None

    def line(self, node) -> int:
        return node.start_mark.line + 1 + self.offset

    def walk_root(self, node) -> list[Launch]:
        import yaml
        if isinstance(node, yaml.MappingNode):
            plain = to_python(node)
            self._leader_worker_set(plain)
            meta = plain.get("metadata") if isinstance(plain, dict) else None
            self.api_object = isinstance(plain, dict) and isinstance(plain.get("apiVersion"), str) and \
                isinstance(plain.get("kind"), str)
            if isinstance(meta, dict) and isinstance(meta.get("namespace"), str):
                self.namespace = meta["namespace"]
            if isinstance(plain, dict) and isinstance(plain.get("model"), dict) and \
                    "model_id" in plain["model"] and "base_args" in plain["model"]:
                self.recipe = True
                self.out += recipe_launches(self.path, node, plain, self.variables, self.offset,
                                            self.strategies_from)
            if isinstance(plain, dict) and self.kserve(node, plain):
                return self.out
            if isinstance(plain, dict) and self.kubeai(node, plain):
                return self.out
            if is_workflow(plain):
                workflow_launches(self, node, plain)     # its `run:` steps; the rest is walked below
            elif is_gitlab_ci(self.path, plain if plain is not None else plain_value(node)):
                gitlab_launches(self, node)              # its jobs' scripts; the rest is walked below
            elif is_skypilot_task(plain):
                skypilot_launches(self, node, plain)     # its setup and run; the rest is walked below
            elif is_dstack_run(plain):
                dstack_launches(self, node, plain)       # its commands; the rest is walked below
            elif is_ray_job(plain):
                ray_job_launches(self, node, plain)      # its entrypoint; the rest is walked below
            if isinstance(plain, dict) and isinstance(plain.get("services"), dict):
                # a compose file's `x-…` extension fields run nothing: a service takes them in by `<<: *alias`
                self.handled.update(id(v) for k, v in node.value
                                    if isinstance(k, yaml.ScalarNode) and str(k.value).startswith("x-"))
        self.walk(node)
        return self.out

    def _leader_worker_set(self, plain) -> None:
        """A LeaderWorkerSet (leaderworkerset.x-k8s.io): its pod webhook puts LWS_LEADER_ADDRESS, LWS_GROUP_SIZE
        (``spec.leaderWorkerTemplate.size``, default 1) and LWS_WORKER_INDEX (0 on the leader) before every
        container's own environment (kubernetes-sigs/lws, pkg/webhooks/pod_webhook.go)."""
        if not (isinstance(plain, dict) and plain.get("kind") == "LeaderWorkerSet"
                and str(plain.get("apiVersion", "")).startswith("leaderworkerset.x-k8s.io/")):
            return
        spec = plain.get("spec")
        template = spec.get("leaderWorkerTemplate") if isinstance(spec, dict) else None
        size = template.get("size", 1) if isinstance(template, dict) else 1
        self.lws = LeaderWorkerSet(size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None,
                                   bool(isinstance(template, dict) and template.get("leaderTemplate")))

    def injected_environment(self) -> "dict[str, Optional[str]]":
        """What a controller puts in the environment of the container being walked, before its own."""
        if self.lws is None:
            return {}
        # the leader template's pod is index 0; without one, the worker template makes the leader too
        leader = "leaderTemplate" in self.keys
        index = "0" if leader else None if self.lws_worker_index is None else str(self.lws_worker_index)
        size = None if self.lws.size is None else str(self.lws.size)
        return {"LWS_LEADER_ADDRESS": None, "LWS_GROUP_SIZE": size, "LWS_WORKER_INDEX": index}

    def _walk_workers(self, template) -> None:
        """A LeaderWorkerSet's worker template makes the pods of indices 1 … size − 1 (0 … size − 1 without a
        leader template): walked once per index; a launch that differs by index (``--node-rank
        $(LWS_WORKER_INDEX)``) is one launch per pod, labelled ``worker N``, any other is one launch."""
        indices = range(1 if self.lws.has_leader_template else 0, self.lws.size or 0) if self.lws else range(0)
        if not 1 <= len(indices) <= _MAX_LWS_WORKERS:
            self.walk(template)
            return
        walks: list[list[Launch]] = []
        for index in indices:
            before = len(self.out)
            self.lws_worker_index = index
            try:
                self.walk(template)
            finally:
                self.lws_worker_index = None
            walks.append(self.out[before:])
            del self.out[before:]
        if any(len(walk) != len(walks[0]) for walk in walks):
            same = [False] * max(len(walk) for walk in walks)
        else:       # a launch the index does not reach is one launch
            same = [all(walk[i].tokens == walks[0][i].tokens for walk in walks) for i in range(len(walks[0]))]
        for i, alike in enumerate(same):
            if alike:
                self.out.append(walks[0][i])
                continue
            for index, walk in zip(indices, walks):
                if i < len(walk):
                    launch = walk[i]
                    launch.label = f"worker {index}" + (f", {launch.label}" if launch.label else "")
                    self.out.append(launch)

    def walk(self, node) -> None:
        import yaml
        if id(node) in self.handled:
            return
        if isinstance(node, yaml.MappingNode):
            self.stack.append({k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)})
            try:
                if not self.recipe and container_launches(self, node):
                    return
                for k, v in node.value:
                    key = k.value if isinstance(k, yaml.ScalarNode) else "?"
                    if key == "servingEngineSpec" and self.production_stack(node):
                        continue
                    if key in _PROSE_KEYS and isinstance(v, yaml.ScalarNode) and "\n" not in str(v.value):
                        continue        # `name: Run vllm serve smoke test` names a step, it runs nothing
                    self.keys.append(str(key))
                    try:
                        if key == "workerTemplate" and self.lws is not None and "leaderWorkerTemplate" in self.keys:
                            self._walk_workers(v)
                        else:
                            self.walk(v)
                    finally:
                        self.keys.pop()
            finally:
                self.stack.pop()
        elif isinstance(node, yaml.SequenceNode):
            self.keys.append("[]")
            try:
                for v in node.value:
                    self.walk(v)
            finally:
                self.keys.pop()
        elif isinstance(node, yaml.ScalarNode) and isinstance(node.value, str) and "\n" in node.value \
                or isinstance(node, yaml.ScalarNode) and LAUNCH_HINT.search(str(node.value)):
            self.text(node)

    def text(self, node, value: Optional[str] = None) -> None:
        """The launches of a script (``node``'s text, or ``value`` read at ``node``'s lines)."""
        value = str(node.value) if value is None else value
        if not LAUNCH_HINT.search(value):
            return
        first = self.line(node) + (1 if node.style in ("|", ">") else 0)
        lines = [(first + i, t) for i, t in enumerate(value.split("\n"))]
        sub = Variables(self.variables.overrides, self.variables)
        if "```" in value or "~~~" in value:
            self.out += markdown_launches(self.path, lines, sub)
        else:
            self.out += shell_launches(self.path, lines, sub, self.kind)

    # ----------------------------------------------------------------- rendered by a deployer

    def emit(self, line_node, tokens: list[str], image: Optional[str], label: Optional[str] = None,
             notes: tuple[str, ...] = (), image_node=None) -> None:
        expanded, missing = [], []
        for t in tokens:
            e, miss = self.variables.expand(t)
            expanded.append(e)
            missing += miss
        unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in expanded)))
        pin = image_pin(image, f"{self.path}:{self.line(image_node or line_node)}") if image else None
        self.out.append(Launch(self.path, self.line(line_node), expanded, self.kind, unresolved, label=label,
                               pin=pin, notes=notes))

    def production_stack(self, node) -> bool:
        """``servingEngineSpec.modelSpec[]`` of the production-stack chart (kvguard.scan.charts)."""
        from .charts import production_stack_launches

        engine = child(node, "servingEngineSpec")
        plain = to_python(engine)
        if not isinstance(plain, dict) or not isinstance(plain.get("modelSpec"), list):
            return False
        for index, launch in production_stack_launches({"servingEngineSpec": plain}):
            item = child(engine, "modelSpec", index)
            anchor = next((n for n in (child(item, *a, key=True) for a in launch.anchors) if n is not None), item)
            self.emit(anchor, launch.tokens, launch.image, launch.label, tuple(launch.notes),
                      child(item, *launch.image_anchor, key=True))
            if launch.gpus is not None:
                self.out[-1].give_gpus(launch.gpus, launch.gpus_source)
        return True

    def kserve(self, node, plain: dict) -> bool:
        """A KServe LLMInferenceService document (kvguard.scan.charts)."""
        from .charts import kserve_launches

        return self._rendered(node, kserve_launches(plain))

    def kubeai(self, node, plain: dict) -> bool:
        """A KubeAI Model document (kvguard.scan.charts)."""
        from .charts import kubeai_launches

        return self._rendered(node, kubeai_launches(plain))

    def _rendered(self, node, launches) -> bool:
        """The launches a deployer renders from the document ``node``, reported at their anchors."""
        for launch in launches:
            anchor = next((n for n in (child(node, *a, key=True) for a in launch.anchors) if n is not None), node)
            self.emit(anchor, launch.tokens, launch.image, launch.label, tuple(launch.notes),
                      child(node, *launch.image_anchor, key=True))
            if launch.gpus is not None:
                self.out[-1].give_gpus(launch.gpus, launch.gpus_source)
        return bool(launches)

