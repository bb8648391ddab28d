"""The construction families' MoE keys (kvguard/data/quant_archs.json, kvguard.quant.families).

Expected values are written by hand from the families each key was proven for (docs/model-construction.md).
"""

from __future__ import annotations

import pytest

from kvguard.quant import families


@pytest.mark.parametrize(("family", "method", "decided"), [
    ("qwen3_moe", "gptq", True),
    ("qwen3_moe", "compressed-tensors-nvfp4", True),
    ("mixtral", "modelopt", True),
    ("deepseek_v2", "compressed-tensors", True),
    ("deepseek_v2", "compressed-tensors-nvfp4", False),
    # MiniMax-M2: compressed-tensors integer weights only
    ("minimax_m2", "compressed-tensors", False),
    ("minimax_m2", "compressed-tensors-wna16", True),
    ("deepseek_v32", "awq", True),
    ("deepseek_v32", "compressed-tensors", False),
    ("glm4_moe", "awq", True),
    ("glm4_moe", "modelopt", False),
    ("qwen3_next", "compressed-tensors", True),
    ("qwen3_next", "awq", False),
    ("gemma4", "modelopt", True),
    # Qwen3.5's MoE family extends Qwen3-Next's and writes its own list: ModelOpt, compressed-tensors with NVFP4
    # experts, AWQ / GPTQ; its dense family takes the same list
    ("qwen3_5_moe", "modelopt", True),
    ("qwen3_5_moe", "compressed-tensors", True),
    ("qwen3_5_moe", "compressed-tensors-nvfp4", True),
    ("qwen3_5_moe", "awq", True),
    ("qwen3_5", "gptq", True),
    ("qwen3_5_moe", "compressed-tensors-wna16", False),
    ("llama", "awq", False),
    ("no_such_family", "awq", False),
])
def test_moe_method_decided(family, method, decided):
    assert families.moe_method_decided(family, method) is decided


@pytest.mark.parametrize(("family", "quantized"), [
    ("qwen3_moe", True), ("qwen3_next", True), ("mixtral", False), ("deepseek_v2", False), ("minimax_m2", False),
    ("deepseek_v32", False), ("glm4_moe", False),
])
def test_router_quantized(family, quantized):
    assert families.router_quantized(family) is quantized


def test_moe_methods_name_known_methods():
    unknown = {(name, method) for name, fam in families.families().items()
               for method in fam.get("moe_methods") or () if method not in families.MOE_METHODS}
    assert unknown == set()


@pytest.mark.parametrize(("family", "dense"), [
    # Llama's family and Phi-3's (which extends it and takes its dense_only), Gemma 3's text model: no MoE block
    ("llama", True), ("phi3", True), ("gemma3", True),
    ("qwen3_moe", False), ("mixtral", False), ("llama4", False), ("qwen3_5", False),
])
def test_dense_only(family, dense):
    assert families.dense_only(family) is dense


def test_dense_only_families_build_no_moe_block():
    moe = {name for name, fam in families.families().items()
           if fam.get("dense_only") and any(item.get("kind") == "moe" for item in fam["layer"])}
    assert moe == set()
