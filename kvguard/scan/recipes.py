"""vLLM recipe YAMLs (``model.model_id`` + ``model.base_args``): the commands the recipes site
(github.com/vllm-project/recipes, ``src/lib/command-synthesis.js``) renders from them, one launch
per variant × offered strategy, for one hardware profile (:mod:`kvguard.scan.recipe_hardware`).

The hardware profile is ``--set HARDWARE=ID``, else the one the site opens the variant on: the
recipe's ``meta.default_hardware`` when the variant can run there, B200 (then GB200) for a variant
whose precision needs Blackwell (NVFP4 / FP4), else H200.  For that profile a launch is, in the
site's order: ``base_args``; the variant's ``extra_args`` (and its block for the exact profile id);
the strategy's ``vllm_args`` and parallel flag; the recipe's ``strategy_overrides`` for the
strategy (``extra_args``, ``vllm_args``); the ``hardware_overrides`` (the strategy's block for the
profile's generation or the ``nvidia`` brand replaces the recipe's and the variant's, then the
strategy's block for the exact id); the features that are on by default (every feature not in
``opt_in_features`` nor the profile's ``hardware_opt_in_features``, and one a variant's
``default_modes`` turns on), each with its default mode
and hardware block.  A flag given twice keeps its last occurrence (the site's "last wins"
de-duplication), and an item the site prints as it is (a flag, or a word that is not a flag's
value) is split as the shell splits it: ``"--max-model-len auto"`` is two words.

Single-node TP is the variant's ``tp``, else the strategy override's ``tp`` (a number or a map
keyed by profile id / generation / brand / ``default``; at most the GPU count), else 1 when the
variant's ``vram_minimum_gb`` fits one GPU of the profile, else the profile's GPU count.  The
other single-node strategies use the GPU count; ``--set GPUS=N`` replaces the profile's.
Multi-node strategies use ``$TOTAL_GPUS`` (default ``$NODES`` × ``$GPUS_PER_NODE``, the latter
the profile's GPU count) with the head node's rendezvous flags.  Strategies come from a
``strategies/`` directory next to (or above) the recipe; ``pd_cluster`` (prefill / decode roles)
is not rendered; strategies and variants the site does not offer on the profile
(``strategy_hardware``, ``strategy_min_gpus``, ``meta.hardware: unsupported``,
``supported_hardware``, a precision the profile cannot run) are left out.  vllm-omni recipes
(``meta.tasks`` with ``omni``) render one ``vllm serve MODEL … --omni`` per variant.
"""

from __future__ import annotations

import os
import shlex
from typing import Any, Optional

from . import yamlnodes
from .recipe_hardware import PROFILES, HardwareProfile, keyed_value
from .result import Launch
from .variables import Variables

__all__ = ["recipe_launches"]

#: precisions the site offers only on NVIDIA Blackwell unless the variant says otherwise
_BLACKWELL_PRECISIONS = ("nvfp4", "fp4")


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


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _total_gpus(variables: Variables) -> str:
    """A multi-node launch's GPU count: $TOTAL_GPUS, else $NODES × $GPUS_PER_NODE when both are known."""
    if variables.get("TOTAL_GPUS") is not None:
        return "$TOTAL_GPUS"
    nodes, per_node = variables.get("NODES"), variables.get("GPUS_PER_NODE")
    if nodes and per_node and nodes.isdigit() and per_node.isdigit():
        return str(int(nodes) * int(per_node))
    return "$TOTAL_GPUS"


# --------------------------------------------------------------------------- which hardware


def _precision_constraint(variant: dict) -> dict:
    """The brand / generation the variant's precision needs (``precision_hardware`` overrides it)."""
    given = variant.get("precision_hardware")
    if isinstance(given, dict):
        return given
    return {"brand": "NVIDIA", "generation": "blackwell"} if variant.get("precision") in _BLACKWELL_PRECISIONS else {}


def _precision_fits(profile: HardwareProfile, variant: dict) -> bool:
    constraint = _precision_constraint(variant)
    if constraint.get("brand") and profile.brand != constraint["brand"]:
        return False
    return not constraint.get("generation") or profile.generation == constraint["generation"]


def _offered(recipe: dict, variant: dict, profile: HardwareProfile) -> bool:
    """Whether the site offers the variant on the profile."""
    if _dict(_dict(recipe.get("meta")).get("hardware")).get(profile.id) == "unsupported":
        return False
    supported = variant.get("supported_hardware")
    if isinstance(supported, list) and supported and profile.id not in supported:
        return False
    return _precision_fits(profile, variant)


def _default_profile(recipe: dict, variant: dict) -> HardwareProfile:
    """The profile the site opens the variant on."""
    declared = _dict(_dict(recipe.get("meta")).get("hardware"))
    candidates = [p for p in PROFILES.values()
                  if _offered(recipe, variant, p) and (not p.restricted or p.id in declared)]
    ids = [p.id for p in candidates]
    authored = _dict(recipe.get("meta")).get("default_hardware")
    if authored in ids:
        return PROFILES[authored]
    if _precision_constraint(variant).get("generation") == "blackwell":
        for wanted in ("b200", "gb200"):
            if wanted in ids:
                return PROFILES[wanted]
    if "h200" in ids:
        return PROFILES["h200"]
    brand_order = {"NVIDIA": 0, "AMD": 1}
    candidates.sort(key=lambda p: (brand_order.get(p.brand, 9), p.id))
    return candidates[0] if candidates else PROFILES["h200"]


def _strategies(recipe: dict, profile: HardwareProfile, gpu_count: int) -> list[str]:
    """The strategies the site offers on the profile, in its order."""
    listed = _strs(recipe.get("compatible_strategies"))
    gates = _dict(recipe.get("strategy_hardware"))
    opt_ins = [s for s, table in gates.items() if s not in listed and isinstance(table, dict)
               and "supported" in table.values()]
    offered = []
    for name in listed + opt_ins:
        gate = keyed_value(gates.get(name), profile)
        if (gate != "unsupported") if gate is not None else name in listed:
            if name.startswith("single_node_") and _min_gpus(recipe, name, profile) > gpu_count:
                continue
            offered.append(name)
    return offered


def _min_gpus(recipe: dict, strategy: str, profile: HardwareProfile) -> int:
    floors = recipe.get("strategy_min_gpus")
    key = strategy.split("_")[-1]

    def floor(block: Any) -> int:
        if isinstance(block, (int, float)) and not isinstance(block, bool):
            return int(block)
        if isinstance(block, dict):
            for name in (key, f"multi_node_{key}", f"single_node_{key}"):
                if isinstance(block.get(name), (int, float)):
                    return int(block[name])
        return 0

    if isinstance(floors, dict):
        return max(floor(floors), floor(floors.get(profile.id)))
    return floor(floors)


def _declared_tp(raw: Any, profile: HardwareProfile) -> Optional[int]:
    value = raw if isinstance(raw, int) and not isinstance(raw, bool) else keyed_value(raw, profile)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _single_node_tp(recipe: dict, variant: dict, profile: HardwareProfile, gpu_count: int) -> int:
    declared = _declared_tp(variant.get("tp"), profile)
    if declared is None:
        declared = _declared_tp(_dict(_dict(recipe.get("strategy_overrides")).get("single_node_tp")).get("tp"),
                                profile)
    if declared is not None:
        return declared if profile.generation == "cpu" else min(declared, gpu_count)
    need = variant.get("vram_minimum_gb")
    if isinstance(need, (int, float)) and need > 0:
        return 1 if need <= profile.gpu_memory_gb else gpu_count
    return gpu_count


# --------------------------------------------------------------------------- the command


def _generation_block(table: Any, profile: HardwareProfile) -> dict:
    table = _dict(table)
    block = table.get(profile.generation) or (table.get("nvidia") if profile.brand == "NVIDIA" else None)
    return _dict(block)


def _hardware_blocks(recipe: dict, variant: dict, override: dict, profile: HardwareProfile) -> list[dict]:
    """The hardware-override blocks that apply, in order (each with extra_args / extra_env)."""
    strategy_block = _generation_block(override.get("hardware_overrides"), profile)
    if strategy_block:
        blocks = [strategy_block]
    else:
        blocks = [_generation_block(recipe.get("hardware_overrides"), profile),
                  _generation_block(variant.get("hardware_overrides"), profile)]
    return blocks + [_dict(_dict(override.get("hardware_overrides")).get(profile.id))]


def _features(recipe: dict, variant: dict, vname: str, strategy: str, profile: HardwareProfile) -> list[dict]:
    """The parts (args / env) of the features on by default."""
    features = _dict(recipe.get("features"))
    opt_in = set(_strs(recipe.get("opt_in_features")))
    opt_in.update(_strs(_dict(recipe.get("hardware_opt_in_features")).get(profile.id)))
    modes_wanted = _dict(variant.get("default_modes"))
    parts = []
    for key, feature in features.items():
        if not isinstance(feature, dict) or (key in opt_in and key not in modes_wanted):
            continue
        allow = feature.get("strategies")
        if isinstance(allow, list) and allow and strategy not in allow:
            continue
        modes = feature.get("modes")
        if isinstance(modes, dict):
            mode = _mode(modes, feature, modes_wanted.get(key), vname, profile)
            if mode is None:
                continue
            block = _dict(keyed_value(mode.get("hardware_overrides"), profile))
            parts.append({"args": block["args"] if "args" in block else mode.get("args"),
                          "env": block["env"] if "env" in block else mode.get("env")})
            continue
        block = _dict(keyed_value(feature.get("hardware_overrides"), profile))
        parts.append({"args": block["args"] if "args" in block else feature.get("args"),
                      "env": block["env"] if "env" in block else feature.get("env")})
    return parts


def _mode(modes: dict, feature: dict, wanted: Any, vname: str, profile: HardwareProfile) -> Optional[dict]:
    def allowed(mode: Any) -> bool:
        if not isinstance(mode, dict):
            return False
        variants = mode.get("variants")
        if isinstance(variants, list) and variants and vname not in variants:
            return False
        gates = _dict(mode.get("hardware"))
        return gates.get(profile.generation) != "unsupported" and gates.get(profile.id) != "unsupported"

    keys = [k for k, m in modes.items() if allowed(m)]
    for candidate in (wanted, feature.get("default_mode")):
        if candidate in keys:
            return modes[candidate]
    return modes[keys[0]] if keys else None


def _dedupe(args: list[str]) -> list[str]:
    """The site's last-wins de-duplication: a flag and the value after it (a word not starting
    with ``-``) are one unit; of the units of one flag only the last stays."""
    units: list[tuple[str, Optional[str], bool]] = []      # (flag or word, value, is a flag)
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("-"):
            following = args[i + 1] if i + 1 < len(args) else None
            if following is not None and not following.startswith("-"):
                units.append((word, following, True))
                i += 2
                continue
            units.append((word, None, True))
        else:
            units.append((word, None, False))
        i += 1
    seen: set[str] = set()
    kept = []
    for head, value, is_flag in reversed(units):
        if is_flag and head in seen:
            continue
        if is_flag:
            seen.add(head)
        kept.append((head, value))
    out: list[str] = []
    for head, value in reversed(kept):
        out += [head] if value is None else [head, value]
    return out


def _shell_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return [text]


def _command_words(args: list[str]) -> list[str]:
    """The words of the command the site prints: a flag's value is quoted (one word), every other
    item is printed as it is, so the shell splits it."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        following = args[i + 1] if i + 1 < len(args) else None
        out += _shell_words(word) if any(c.isspace() or c in "'\"" for c in word) else [word]
        if word.startswith("-") and following is not None and not following.startswith("-"):
            out.append(following)
            i += 1
        i += 1
    return out


def _parallel(strategy: dict, name: str, recipe: dict, variant: dict, profile: HardwareProfile,
              gpu_count: int, variables: Variables) -> list[str]:
    flag = str(strategy.get("parallel_flag") or "--tensor-parallel-size")
    if strategy.get("deploy_type") != "multi_node":
        size = _single_node_tp(recipe, variant, profile, gpu_count) if name == "single_node_tp" else gpu_count
        return [flag, str(size)]
    parallelism = strategy.get("parallelism")
    rendezvous = ["--nnodes", "$NODES", "--node-rank", "0"]
    total = _total_gpus(variables)
    if parallelism == "tp_pp":
        return ["--tensor-parallel-size", "$GPUS_PER_NODE", "--pipeline-parallel-size", "$NODES"] + rendezvous
    if parallelism == "tp_dp":      # one replica per node: DP rendezvous, one local rank
        return ["--tensor-parallel-size", "$GPUS_PER_NODE", "--data-parallel-size", "$NODES",
                "--data-parallel-size-local", "1"]
    if flag in ("--data-parallel-size", "-dp"):
        return [flag, total, "--data-parallel-size-local", "$GPUS_PER_NODE"]
    return [flag, total] + rendezvous


def recipe_launches(path: str, root, recipe: dict, variables: Variables, offset: int,
                    strategies_from: Optional[str]) -> list[Launch]:
    model = recipe["model"]
    base = _strs(model.get("base_args"))
    raw_variants = recipe.get("variants")
    variants = raw_variants if isinstance(raw_variants, dict) else {"default": {}}
    overrides = _dict(recipe.get("strategy_overrides"))
    asked = variables.get("HARDWARE")
    omni = "omni" in _strs(_dict(recipe.get("meta")).get("tasks"))
    out: list[Launch] = []
    for vname, variant in variants.items():
        variant = _dict(variant)
        model_id = str(variant.get("model_id") or model.get("model_id"))
        line = (_key_line(root, "variants", str(vname)) or _key_line(root, "model", "model_id") or 1) + offset
        stated = PROFILES.get(asked) if asked is not None else None
        profile = stated or _default_profile(recipe, variant)
        if stated is not None and not _offered(recipe, variant, profile):
            continue
        note = (f"rendered as the recipes site renders it for {profile.id}"
                + ("" if stated is not None else " (the site's default for this variant; --set HARDWARE=ID for "
                                                "another)"))
        given_gpus = variables.get("GPUS")
        gpu_count = int(given_gpus) if given_gpus and given_gpus.isdigit() else profile.gpu_count
        scope = Variables({**variables.overrides, "GPUS": str(gpu_count),
                           "GPUS_PER_NODE": variables.get("GPUS_PER_NODE") or str(profile.gpu_count)},
                          parent=variables)
        exact = _dict(_dict(variant.get("hardware_overrides")).get(profile.id))
        if omni:
            launches = [("omni", base + (_strs(variant.get("extra_args")) if vname != "default" else [])
                         + _strs(_generation_block(recipe.get("hardware_overrides"), profile).get("extra_args"))
                         + _strs(_generation_block(variant.get("hardware_overrides"), profile).get("extra_args"))
                         + _strs(exact.get("extra_args")) + ["--omni"],
                         [_dict(model.get("base_env")), _dict(variant.get("extra_env")) if vname != "default" else {},
                          _dict(_generation_block(recipe.get("hardware_overrides"), profile).get("extra_env")),
                          _dict(_generation_block(variant.get("hardware_overrides"), profile).get("extra_env")),
                          _dict(exact.get("extra_env"))], f"variant {vname}")]
        else:
            launches = []
            for sname in _strategies(recipe, profile, gpu_count):
                strategy = _find_strategy(strategies_from or path, sname)
                if strategy is None or strategy.get("deploy_type") == "pd_cluster" or "prefill" in strategy:
                    continue
                override = _dict(overrides.get(sname))
                blocks = _hardware_blocks(recipe, variant, override, profile)
                features = _features(recipe, variant, str(vname), sname, profile)
                args = (base + _strs(variant.get("extra_args")) + _strs(exact.get("extra_args"))
                        + _strs(strategy.get("vllm_args"))
                        + _parallel(strategy, sname, recipe, variant, profile, gpu_count, scope)
                        + _strs(override.get("extra_args")) + _strs(override.get("vllm_args")))
                for block in blocks:
                    args += _strs(block.get("extra_args"))
                for part in features:
                    args += _strs(part["args"])
                envs = [_dict(model.get("base_env")), _dict(variant.get("extra_env")), _dict(exact.get("extra_env")),
                        _dict(strategy.get("env")), _dict(override.get("env")), _dict(override.get("extra_env"))]
                envs += [_dict(block.get("extra_env")) for block in blocks] + [_dict(p["env"]) for p in features]
                launches.append((sname, args, envs, f"variant {vname} × strategy {sname}"))
        for _, args, envs, label in launches:
            env: dict = {}
            for layer in envs:
                env.update(layer)
            env_tokens = [f"{k}={v}" for k, v in env.items() if str(k).startswith("VLLM_")]
            raw = env_tokens + ["vllm", "serve", model_id] + _command_words(_dedupe([a for a in args if a]))
            tokens, missing = [], []
            for word in raw:
                expanded, miss = scope.expand(word)
                tokens.append(expanded)
                missing += miss
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in tokens)))
            out.append(Launch(path, line, tokens, "recipe", unresolved, label=label, notes=(note,)))
    return out
