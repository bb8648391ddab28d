"""The model-construction families of kvguard/data/quant_archs.json, as the layer walk and the quantization methods
read them.

A family is kvguard's own description of what one or more model classes build (vllm/model_executor/models/<model>.py
of the releases each family names in its ``source``). This module reads the file once, resolves ``extends`` (a family
that takes another's keys and swaps some of its layer items), and answers the two questions the quantization methods
ask of a family's MoE block: which quantization methods' experts kvguard decides for it (``moe_methods``), and whether
the model hands the checkpoint's quantization to its router gate (``router_quantized``).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

__all__ = ["MOE_METHODS", "dense_only", "families", "moe_method_decided", "router_quantized"]

# os.path, not pathlib: pathlib (and the urllib it imports) costs a cold check a few milliseconds
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "quant_archs.json")

#: the keys a family that ``extends`` another does not take from it: what names the model classes and their modules
_OWN_KEYS = ("architectures", "source", "root", "head", "extends", "replace")

#: the values of a family's ``moe_methods``: AWQ / GPTQ experts (kvguard.quant.wna16_moe), compressed-tensors experts
#: of every scheme kvguard reads, of integer weights only, of NVFP4 weights (kvguard.quant.compressed_tensors), and
#: ModelOpt experts (kvguard.quant.modelopt_shards)
MOE_METHODS = ("awq", "gptq", "compressed-tensors", "compressed-tensors-wna16", "compressed-tensors-nvfp4", "modelopt")


@lru_cache(maxsize=1)
def families() -> dict[str, dict]:
    """Every family by name, each with the keys it takes from the family it ``extends``."""
    with open(_DATA, encoding="utf-8") as fh:
        written = json.load(fh)["families"]
    return {name: _inherited(name, written) for name in written}


def _inherited(name: str, written: dict[str, dict]) -> dict:
    """A family as the layer walk reads it: one that ``extends`` another (Qwen3.5's, Qwen3-Next's decoder layers)
    takes every key it does not write itself from that family, and its ``replace`` swaps the inherited layer items of
    a module name (each release's variants) for its own, at the place of the first."""
    fam = written[name]
    if "extends" not in fam:
        return fam
    base = _inherited(fam["extends"], written)
    out = {key: value for key, value in base.items() if key not in _OWN_KEYS}
    out.update(fam)
    replace = fam.get("replace") or {}
    items: list[dict] = []
    for item in out["layer"]:
        if item.get("name") not in replace:
            items.append(item)
        elif not any(i.get("name") == item["name"] for i in items):
            items.extend(replace[item["name"]])
    out["layer"] = items
    return out


def dense_only(family: str) -> bool:
    """Whether AWQ / GPTQ / compressed-tensors checkpoints of the family take the dense layers' path alone: the
    family's ``dense_only`` (it builds no MoE block: Llama's, Gemma 3's); any other family is held to its
    ``moe_methods`` first."""
    return bool(families()[family].get("dense_only"))


def moe_method_decided(family: str, method: str) -> bool:
    """Whether kvguard decides the MoE experts of ``family`` under ``method`` (one of :data:`MOE_METHODS`): the
    family's ``moe_methods``, each checked against the releases by tests/upstream/test_quant.py."""
    fam = families().get(family)
    return fam is not None and method in (fam.get("moe_methods") or ())


def router_quantized(family: str) -> bool:
    """Whether the model builds its MoE router gate with the checkpoint's quantization config (the family's
    ``router_quantized``, default true; Mixtral, DeepSeek-V2/V3, MiniMax-M2 and GLM-4.x build it without)."""
    fam = families().get(family)
    return fam is None or fam.get("router_quantized", True)
