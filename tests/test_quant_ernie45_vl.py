"""ERNIE-4.5-VL (Ernie4_5_VLMoeForConditionalGeneration) at model construction: the first vision block's head split
(kvguard.quant.ernie45_vl).

Expected values are worked out by hand from vLLM's vllm/model_executor/models/ernie45_vl.py (the vision transformer
built first; its first block's attention divides the width by the heads, then the heads by tp) and a config with the
28B's sizes as public test fixtures state them (20 heads, 4 KV heads; vision width 1280, 16 heads);
tests/upstream/test_quant_ernie45_vl.py compares with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard.quant import Launch, outcome
from kvguard.quant.ernie45_vl import PAST_HEAD_SPLIT
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

#: releases whose transformers (4.x) reads the remote-code config as a plain configuration
VERSIONS = ["0.10.2", "0.11.1", "0.20.0"]
H100 = kvguard.Host.cuda_node()
#: a node wide enough that the GPU count is not the first refusal at tp 10 / 20
WIDE = kvguard.Host.cuda_node(gpus_per_node=32)
ERNIE_VL = {
    "architectures": ["Ernie4_5_VLMoeForConditionalGeneration"],
    "auto_map": {"AutoConfig": "configuration_probe.ProbeConfig"},
    "model_type": "ernie4_5_moe_vl",
    "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 28, "num_attention_heads": 20,
    "num_key_value_heads": 4, "vocab_size": 103424, "max_position_embeddings": 131072, "hidden_act": "silu",
    "moe_num_experts": [64, 64], "moe_intermediate_size": [1536, 512], "moe_k": 6, "moe_num_shared_experts": 2,
    "moe_layer_start_index": [1, 1], "moe_layer_end_index": [29, 28], "moe_layer_interval": 1,
    "pixel_hidden_size": 1280, "spatial_conv_size": 2, "temporal_conv_size": 2,
    "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 1280, "num_heads": 16, "mlp_ratio": 4},
    "torch_dtype": "bfloat16",
}


def _with_tower(**sizes) -> dict:
    out = copy.deepcopy(ERNIE_VL)
    out["vision_config"].update(sizes)
    return out


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("tp", [5, 10, 20])
def test_text_heads_divide_but_the_towers_16_heads_do_not(version, tp):
    # 20 text heads pass the configuration's check at tp 5 / 10 / 20; the tower's 16 heads are divided first
    v = kvguard.check(ERNIE_VL, vllm_version=version, tp=tp, trust_remote_code=True, host=WIDE)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_divide", "AssertionError",
                                                                f"16 is not divisible by {tp}")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_split_that_passes_leaves_the_rest_undecided(version):
    v = kvguard.check(ERNIE_VL, vllm_version=version, tp=4, trust_remote_code=True, host=H100)
    assert v.ok
    assert mi_skip(v) == PAST_HEAD_SPLIT


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0"])
def test_the_width_is_divided_by_the_heads_before_tp(version):
    v = kvguard.check(_with_tower(embed_dim=1000, hidden_size=1000), vllm_version=version, tp=5,
                      trust_remote_code=True, host=H100)
    assert (v.check, v.message) == ("MI_divide", "1000 is not divisible by 16")


def test_the_refusal_names_the_first_vision_attention():
    res = outcome(model_facts(ERNIE_VL, vllm_version="0.11.1", trust_remote_code=True), resolve("0.11.1"),
                  Launch(tp=10))
    assert (res.check, res.values, res.layer) == ("MI_divide", {"numerator": 16, "denominator": 10},
                                                  "vision_model.blocks.0.attn")


def test_data_parallel_encoder_falls_back_to_the_split_tower():
    # no supports_encoder_tp_data: ModelConfig falls back to weights, the tower is split by tp all the same
    res = outcome(model_facts(ERNIE_VL, vllm_version="0.10.2", trust_remote_code=True), resolve("0.10.2"),
                  Launch(tp=5, mm_encoder_tp_mode="data"))
    assert (res.check, res.values) == ("MI_divide", {"numerator": 16, "denominator": 5})


def test_online_fp8_does_not_change_the_first_split():
    v = kvguard.check(ERNIE_VL, vllm_version="0.11.1", tp=10, quantization="fp8", trust_remote_code=True, host=WIDE)
    assert (v.check, v.message) == ("MI_divide", "16 is not divisible by 10")


def test_limited_modalities_leave_the_tower_open():
    res = outcome(model_facts(ERNIE_VL, vllm_version="0.20.0", trust_remote_code=True), resolve("0.20.0"),
                  Launch(tp=5, mm_limits=True))
    assert res.check is None
    assert res.unmodelled.startswith("--limit-mm-per-prompt / --language-model-only with "
                                     "Ernie4_5_VLMoeForConditionalGeneration")


def test_a_tower_without_its_head_count_is_not_modelled():
    cfg = copy.deepcopy(ERNIE_VL)
    del cfg["vision_config"]["num_heads"]  # the repository's class would default it; kvguard does not run it
    v = kvguard.check(cfg, vllm_version="0.10.2", tp=5, trust_remote_code=True, host=H100)
    assert v.ok
    assert mi_skip(v).startswith("the vision tower of Ernie4_5_VLMoeForConditionalGeneration with sizes ")
