"""vLLM recipe YAMLs (``model.model_id`` + ``model.base_args``): one launch per variant × compatible
strategy, the strategies read from a ``strategies/`` directory next to (or above) the recipe.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from . import yamlnodes
from .result import Launch
from .variables import Variables

__all__ = ["recipe_launches"]


def _find_strategy(start: Optional[str], name: str) -> Optional[dict]:
    yaml = yamlnodes.load_yaml()
    if yaml is None or not start:
        return None
    d = os.path.dirname(os.path.abspath(start))
    for _ in range(6):
        candidate = os.path.join(d, "strategies", name + ".yaml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, encoding="utf-8") as fh:
                    data = yaml.safe_load(fh)
            except (OSError, yaml.YAMLError, UnicodeDecodeError):
                return None
            return data if isinstance(data, dict) else None
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def _key_line(node, *path: str) -> Optional[int]:
    import yaml
    for key in path:
        if not isinstance(node, yaml.MappingNode):
            return None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                found_key, node = k, v
                break
        else:
            return None
    return found_key.start_mark.line + 1


def _strs(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _total_gpus(variables: Variables) -> str:
    """A multi-node launch's GPU count: $TOTAL_GPUS, else $NODES × $GPUS_PER_NODE when both are known."""
    if variables.get("TOTAL_GPUS") is not None:
        return "$TOTAL_GPUS"
    nodes, per_node = variables.get("NODES"), variables.get("GPUS_PER_NODE")
    if nodes and per_node and nodes.isdigit() and per_node.isdigit():
        return str(int(nodes) * int(per_node))
    return "$TOTAL_GPUS"


def recipe_launches(path: str, root, recipe: dict, variables: Variables, offset: int,
                    strategies_from: Optional[str]) -> list[Launch]:
    model = recipe["model"]
    base = _strs(model.get("base_args"))
    base_env = model.get("base_env") if isinstance(model.get("base_env"), dict) else {}
    raw_variants = recipe.get("variants")
    variants = raw_variants if isinstance(raw_variants, dict) else {"default": {}}
    strategies = _strs(recipe.get("compatible_strategies"))
    raw_overrides = recipe.get("strategy_overrides")
    overrides = raw_overrides if isinstance(raw_overrides, dict) else {}
    out: list[Launch] = []
    for vname, variant in variants.items():
        variant = variant if isinstance(variant, dict) else {}
        model_id = str(variant.get("model_id") or model.get("model_id"))
        extra = _strs(variant.get("extra_args"))
        env = dict(base_env)
        if isinstance(variant.get("extra_env"), dict):
            env.update(variant["extra_env"])
        line = (_key_line(root, "variants", str(vname)) or _key_line(root, "model", "model_id") or 1) + offset
        for sname in strategies:
            strategy = _find_strategy(strategies_from or path, sname)
            if strategy is None or strategy.get("deploy_type") == "pd_cluster" or "prefill" in strategy:
                continue
            s_args = _strs(strategy.get("vllm_args"))
            o = overrides.get(sname)
            o_args = _strs(o.get("vllm_args")) if isinstance(o, dict) else []
            flag = str(strategy.get("parallel_flag") or "--tensor-parallel-size")
            multi = strategy.get("deploy_type") == "multi_node"
            parallelism = strategy.get("parallelism")
            rendezvous = ["--nnodes", "$NODES", "--node-rank", "0"] if multi else []
            total = _total_gpus(variables) if multi else "$GPUS"
            if parallelism == "tp_pp":
                par = ["--tensor-parallel-size", "$GPUS_PER_NODE", "--pipeline-parallel-size", "$NODES"] + rendezvous
            elif parallelism == "tp_dp":     # one replica per node: DP rendezvous, one local rank
                par = ["--tensor-parallel-size", "$GPUS_PER_NODE", "--data-parallel-size", "$NODES",
                       "--data-parallel-size-local", "1"]
            elif flag in ("--data-parallel-size", "-dp"):
                par = [flag, total] + (["--data-parallel-size-local", "$GPUS_PER_NODE"] if multi else [])
            else:
                par = [flag, total] + rendezvous
            env_tokens = [f"{k}={v}" for k, v in env.items() if str(k).startswith("VLLM_")]
            raw = env_tokens + ["vllm", "serve", model_id] + base + extra + s_args + o_args + par
            tokens, missing = [], []
            for t in raw:
                e, miss = variables.expand(t)
                tokens.append(e)
                missing += miss
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in tokens)))
            out.append(Launch(path, line, tokens, "recipe", unresolved,
                              label=f"variant {vname} × strategy {sname}"))
    return out
