"""Phi-3 / Phi-4 construction (the phi3 family of kvguard/data/quant_archs.json): expected values worked out by hand
from vllm/model_executor/models/phi3.py and llama.py, layers/linear.py and the compressed-tensors ignore matching of
the releases (the differential in tests/upstream/test_quant.py, run_phi3, checks them against the releases
themselves)."""

from __future__ import annotations

import copy

import pytest

from kvguard import catalog
from kvguard.quant import Launch, family_of, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

PHI4 = catalog.lookup("microsoft/phi-4").config


def _outcome(cfg: dict, version: str, **launch):
    return outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(**launch))


def _ct_fp8_dynamic(ignore: list[str]) -> dict:
    cfg = copy.deepcopy(PHI4)
    args = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "block_structure": None,
            "actorder": None, "observer": None, "observer_kwargs": {}}
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": dict(args, strategy="channel", dynamic=False),
                                      "input_activations": dict(args, strategy="token", dynamic=True),
                                      "output_activations": None, "format": "float-quantized"}},
        "ignore": ignore, "kv_cache_scheme": None, "sparsity_config": {}}
    return cfg


def test_phi3_is_its_own_family():
    assert family_of(["Phi3ForCausalLM"]) == "phi3"


@pytest.mark.parametrize("version", ["0.10.2", "0.24.0", "0.33.0"])
def test_phi4s_ten_kv_heads(version):
    # 40 query heads pass VllmConfig at -tp 4; LlamaAttention then asserts 10 KV heads % 4 == 0
    res = _outcome(PHI4, version, tp=4)
    assert (res.check, res.layer) == ("MI_attn_assert", "model.layers.0")
    res = _outcome(PHI4, version, tp=2)
    assert res.check is None and res.unmodelled is None


def test_the_merged_layers_are_their_own_shards():
    # "re:.*q_proj" names Llama's q_proj shard (a fused layer ignored in part); Phi-3's only shard of qkv_proj is
    # qkv_proj itself, which the pattern does not match: the layer is quantized, nothing refuses
    res = _outcome(_ct_fp8_dynamic(["lm_head", "re:.*q_proj"]), "0.24.0", tp=2)
    assert res.check is None and res.unmodelled is None
    # the merged name itself: ignored whole
    res = _outcome(_ct_fp8_dynamic(["lm_head", "re:.*qkv_proj"]), "0.24.0", tp=2)
    assert res.check is None and res.unmodelled is None


def test_awq_at_a_tp_whose_shards_are_not_whole_groups():
    cfg = copy.deepcopy(PHI4)
    cfg["quantization_config"] = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm",
                                  "modules_to_not_convert": None, "quant_method": "awq"}
    # -tp 2: down_proj takes 17920 / 2 = 8960 inputs, 70 groups of 128: accepted
    res = _outcome(cfg, "0.24.0", tp=2)
    assert res.check is None and res.unmodelled is None
