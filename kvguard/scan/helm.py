"""Helm values: an argument list (``args``, ``extraArgs``, ``vllmArgs``…) with a parallel flag, the
model from ``--model`` or a sibling ``model``/``modelName`` key (the chart renders them into
``vllm serve MODEL ARGS``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .result import Launch
from .yamlnodes import scalar_text

if TYPE_CHECKING:
    from .yamlfiles import YamlWalker

__all__ = ["helm_launches"]

_HELM_ARG_KEYS = ("args", "extraArgs", "extra_args", "vllmArgs", "vllm_args", "serverArgs", "server_args",
                  "engineArgs", "engine_args")

_HELM_MODEL_KEYS = ("model", "modelName", "model_name", "modelId", "model_id", "modelURL", "modelUrl")

_PARALLEL_HINT = re.compile(r"^(--tensor[-_]parallel[-_]size|-tp|--pipeline[-_]parallel[-_]size|-pp|"
                            r"--data[-_]parallel[-_]size|-dp|--decode[-_]context[-_]parallel[-_]size|-dcp|"
                            r"--prefill[-_]context[-_]parallel[-_]size|-pcp|--enable[-_]expert[-_]parallel|-ep)"
                            r"(=.*)?$")


def helm_launches(walker: "YamlWalker", node, keys: dict) -> bool:
    import yaml
    for key in _HELM_ARG_KEYS:
        n = keys.get(key)
        if not isinstance(n, yaml.SequenceNode):
            continue
        tokens = [scalar_text(v) for v in n.value]
        flat = [t for tok in tokens for t in tok.split()] if any(" " in t for t in tokens) else tokens
        if not any(_PARALLEL_HINT.match(t) for t in flat):
            continue
        model = None
        if not any(t == "--model" or t.startswith("--model=") for t in flat):
            for scope in reversed(walker.stack):      # this mapping, then its ancestors
                for mk in _HELM_MODEL_KEYS:
                    if isinstance(scope.get(mk), yaml.ScalarNode) and scalar_text(scope[mk]):
                        model = scalar_text(scope[mk])
                        break
                if model:
                    break
            else:
                continue        # no model anywhere: a flag list, not a launch
        expanded, missing = [], []
        for t in flat:
            e, miss = walker.variables.expand(t)
            expanded.append(e)
            missing += miss
        launch = ["vllm", "serve"] + ([model] if model else []) + expanded
        unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
        key_line = next((walker.line(k) for k, v in node.value if v is n), walker.line(n))
        walker.out.append(Launch(walker.path, key_line, launch, walker.kind, unresolved))   # the `extraArgs:` line
        return True
    return False
