"""MiMo-V2-Flash, Kimi-K3 and MiniMax-M3 configs on the transformers 5 lines (vLLM 0.24.0+).

Mirrors ``transformers/models/mimo_v2_flash/configuration_mimo_v2_flash.py`` of transformers 5.17.0 / 5.19.0 /
5.20.2 / 5.24.0 (``__post_init__``: full attention on layer 0 and on every 6th layer, sliding attention elsewhere;
from 5.20 on the window is the ``sliding_window_size`` keyword plus one) and vLLM's own
``vllm/transformers_utils/configs/kimi_k3.py`` (0.27.0-0.33.0: ``merge_kernel_size`` kept as a tuple, the vision
``text_hidden_size`` made to follow the text model, ``hidden_size`` / ``vocab_size`` read from the text config) and
``minimax_m3.py`` (0.24.0-0.33.0: ``sparse_attention_config`` defaults to 60-layer lists).  Expected values are
written by hand from those sources (tools/hfconfig_oracle.py compares the same classes with the real releases).
"""

from __future__ import annotations

import json
import os

import pytest
from packaging.version import Version

import kvguard
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.path.dirname(HERE), "hfconfig", "data", "templates.json"), encoding="utf-8") as _fh:
    TEMPLATES = json.load(_fh)

# one release per transformers 5 line: 5.24.0 (0.28.0), 5.17.0 (0.31.0), 5.19.0 (0.32.0), 5.20.2 (0.33.0)
RELEASES = ["0.28.0", "0.31.0", "0.32.0", "0.33.0"]
# MiMoV2FlashConfig adds one to sliding_window_size from transformers 5.20 on: in 5.20.2 and 5.24.0
WINDOW_PLUS_ONE = {"0.28.0": True, "0.31.0": False, "0.32.0": False, "0.33.0": True}


def release(v: str) -> Release:
    return Release(Version(v))


def tpl(model_type: str, **changes) -> dict:
    cfg = json.loads(json.dumps(TEMPLATES[model_type]))
    cfg.update(changes)
    return cfg


FULL_48 = [0, 5, 11, 17, 23, 29, 35, 41, 47]   # layer 0 and every 6th: (i + 1) % 6 == 0


@pytest.mark.parametrize("rel", RELEASES)
def test_mimo_v2_flash_layer_types_and_window(rel):
    obj = load_config(tpl("mimo_v2_flash"), release(rel))
    assert [i for i, k in enumerate(obj.layer_types) if k == "full_attention"] == FULL_48
    assert obj.layer_types.count("sliding_attention") == 48 - len(FULL_48)
    assert obj.mlp_layer_types == ["dense"] + ["sparse"] * 47
    assert obj.routed_scaling_factor == 1.0
    assert obj.sliding_window == (129 if WINDOW_PLUS_ONE[rel] else 128)


@pytest.mark.parametrize("rel", RELEASES)
def test_mimo_v2_flash_without_window_size_keeps_sliding_window(rel):
    cfg = tpl("mimo_v2_flash", sliding_window=512)
    del cfg["sliding_window_size"]
    assert load_config(cfg, release(rel)).sliding_window == 512


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])
def test_mimo_v2_flash_window_size_not_a_number(rel):
    # "128" + 1: the str + int TypeError the class raises
    with pytest.raises(LoadCrash) as info:
        load_config(tpl("mimo_v2_flash", sliding_window_size="128"), release(rel))
    assert "TypeError" in repr(info.value) or "can only concatenate str" in str(info.value)


@pytest.mark.parametrize("rel", RELEASES)
def test_mimo_v2_flash_given_layer_types_are_kept(rel):
    kinds = ["full_attention"] * 2 + ["sliding_attention"] * 6
    obj = load_config(tpl("mimo_v2_flash", num_hidden_layers=8, layer_types=kinds), release(rel))
    assert obj.layer_types == kinds


@pytest.mark.parametrize("rel", RELEASES)
def test_mimo_v2_flash_short_model(rel):
    # 7 layers: 0 and 5 are full attention
    obj = load_config(tpl("mimo_v2_flash", num_hidden_layers=7), release(rel))
    assert obj.layer_types == ["full_attention"] + ["sliding_attention"] * 4 + ["full_attention",
                                                                                "sliding_attention"]


@pytest.mark.parametrize("rel", ["0.27.1", "0.28.0", "0.31.0", "0.33.0"])
def test_kimi_k3(rel):
    obj = load_config(tpl("kimi_k3"), release(rel))
    assert obj.vision_config.merge_kernel_size == (2, 2)
    assert isinstance(obj.vision_config.merge_kernel_size, tuple)
    assert obj.hidden_size == 7168 and obj.vocab_size == obj.text_config.vocab_size
    # a vision config naming another text width follows the text model's
    cfg = tpl("kimi_k3")
    cfg["vision_config"]["text_hidden_size"] = 4096
    assert load_config(cfg, release(rel)).vision_config.text_hidden_size == 7168
    facts = kvguard.model_facts(tpl("kimi_k3"), vllm_version=rel)
    assert facts.num_hidden_layers == 93


@pytest.mark.parametrize("rel", ["0.27.1", "0.28.0", "0.33.0"])
def test_kimi_k3_merge_kernel_size_not_iterable(rel):
    cfg = tpl("kimi_k3")
    cfg["vision_config"]["merge_kernel_size"] = 2
    with pytest.raises(LoadCrash) as info:
        load_config(cfg, release(rel))
    assert "'int' object is not iterable" in str(info.value)


@pytest.mark.parametrize("rel", ["0.24.0", "0.28.0", "0.31.0", "0.33.0"])
def test_minimax_m3_sparse_attention_default(rel):
    cfg = tpl("minimax_m3_vl")
    del cfg["text_config"]["sparse_attention_config"]
    text = load_config(cfg, release(rel)).text_config
    sac = text.sparse_attention_config
    assert sac["sparse_attention_freq"] == [0, 0, 0] + [1] * 57
    assert sac["sparse_disable_index_value"] == [0, 0, 0] + [1] * 57
    assert (sac["use_sparse_attention"], sac["sparse_index_dim"], sac["sparse_num_index_heads"],
            sac["sparse_topk_blocks"], sac["sparse_block_size"], sac["sparse_score_type"], sac["sparse_init_block"],
            sac["sparse_local_block"]) == (True, 128, 4, 16, 128, "max", 0, 1)
    # the checkpoint's own dict is kept as given
    given = tpl("minimax_m3_vl")["text_config"]["sparse_attention_config"]
    assert load_config(tpl("minimax_m3_vl"), release(rel)).text_config.sparse_attention_config == given


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])
def test_kimi_k3_on_the_cpu_platform_is_refused_without_prefix_caching(rel):
    """Recorded with tools/record_golden.py (CPU platform, no AMX tiles): vLLM 0.28.0 / 0.33.0 refuse Kimi-K3 at -tp 8
    with ValueError("--mamba-block-size can only be set with --enable-prefix-caching") from VllmConfig — the CPU
    platform turns prefix caching off for MLA models after the hybrid cache setup gave the Mamba blocks the block
    size (kvguard.rules.mamba_block_size); a GPU host keeps prefix caching and is accepted."""
    from kvguard.launch.layout import Host

    verdict = kvguard.check(tpl("kimi_k3"), {"tp": 8}, vllm_version=rel,
                            host=Host(platform="cpu", gpus_per_node=0, amx=False))
    assert (verdict.ok, verdict.exc_type, verdict.message) == (
        False, "ValueError", "--mamba-block-size can only be set with --enable-prefix-caching")
    assert kvguard.check(tpl("kimi_k3"), {"tp": 8}, vllm_version=rel).ok


# Step-3.7 (transformers' step3p7 on 5.17.0 / 5.19.0: ``__post_init__`` builds each sub-config from its dict less
# ``model_type``; 5.20+ pops the key and lets the sub-config specs build it)
STEP37 = {"architectures": ["Step3p7FlashForCausalLM"], "model_type": "step3p7",
          "text_config": {"model_type": "step3p7_text", "hidden_size": 4096, "num_hidden_layers": 3,
                          "num_attention_heads": 64, "vocab_size": 1000},
          "vision_config": {"model_type": "not_a_vision_type", "hidden_size": 1536}}


@pytest.mark.parametrize("rel", ["0.31.0", "0.32.0"])
def test_step3p7_sub_configs_are_built_without_their_model_type(rel):
    obj = load_config(json.loads(json.dumps(STEP37)), release(rel))
    assert type(obj.vision_config).__name__ != "dict" and obj.vision_config.hidden_size == 1536
    assert obj.text_config.hidden_size == 4096 and obj.text_config.num_hidden_layers == 3
    # the class's own model type, not the dict's (transformers 5.19.0 builds the same config: step3p5_vision)
    assert obj.vision_config.model_type == "step3p5_vision"
