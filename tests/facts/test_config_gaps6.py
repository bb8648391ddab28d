"""EXAONE 4, EXAONE-MoE, LFM2, SmolLM3, Ministral 3 and MiniCPM3 configs on the transformers 5 lines (vLLM 0.24.0+).

Mirrors the ``__post_init__`` of ``transformers/models/{exaone4,exaone_moe,lfm2,smollm3,ministral3,minicpm3}/
configuration_*.py`` in transformers 5.17.0 / 5.19.0 / 5.20.2 / 5.24.0: EXAONE's sliding attention except every
``sliding_window_pattern``-th layer (zero without a window, which divides by zero when the layer types are not
given), EXAONE-MoE's dense first layers, LFM2's attention layers at ``full_attn_idxs``, SmolLM3's RoPE-less layers
that slide, Ministral 3's YaRN defaults and MiniCPM3's depth scale and ``logits_scaling``.  Expected values are
written by hand from those sources (tools/hfconfig_oracle.py --all and tests/upstream/differential.py compare the
same classes with the real releases).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

# one release per transformers 5 line: 5.24.0 (0.28.0), 5.17.0 (0.31.0), 5.19.0 (0.32.0), 5.20.2 (0.33.0)
RELEASES = ["0.28.0", "0.31.0", "0.32.0", "0.33.0"]


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


def dense(model_type: str, arch: str, layers: int = 8, **extra) -> dict:
    cfg = {"architectures": [arch], "model_type": model_type, "hidden_size": 1024, "num_attention_heads": 8,
           "num_key_value_heads": 2, "num_hidden_layers": layers, "intermediate_size": 4096, "vocab_size": 32000,
           "max_position_embeddings": 32768}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_full_attention_every_fourth_layer(rel):
    obj = load(rel, dense("exaone4", "Exaone4ForCausalLM", sliding_window=4096, sliding_window_pattern=4))
    assert obj.layer_types == ["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 3 + [
        "full_attention"]


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_without_window_divides_by_zero(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, dense("exaone4", "Exaone4ForCausalLM", sliding_window=None))
    assert info.value.exc_type == "ZeroDivisionError"
    assert info.value.message == "integer modulo by zero"


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone4_given_layer_types_are_kept(rel):
    kinds = ["full_attention", "sliding_attention"] * 2
    obj = load(rel, dense("exaone4", "Exaone4ForCausalLM", layers=4, sliding_window=None, layer_types=kinds))
    assert obj.layer_types == kinds


@pytest.mark.parametrize("rel", RELEASES)
def test_exaone_moe_dense_first_layers(rel):
    obj = load(rel, dense("exaone_moe", "ExaoneMoEForCausalLM", layers=4, sliding_window=128,
                          sliding_window_pattern=2, first_k_dense_replace=2, num_experts=64))
    assert obj.mlp_layer_types == ["dense", "dense", "sparse", "sparse"]
    assert obj.layer_types == ["sliding_attention", "full_attention"] * 2


@pytest.mark.parametrize("rel", RELEASES)
def test_lfm2_attention_at_listed_layers(rel):
    obj = load(rel, dense("lfm2", "Lfm2ForCausalLM", layers=5, full_attn_idxs=[0, 3]))
    assert obj.layer_types == ["full_attention", "conv", "conv", "full_attention", "conv"]


@pytest.mark.parametrize("rel", RELEASES)
def test_lfm2_every_layer_attention_by_default(rel):
    cfg = dense("lfm2", "Lfm2ForCausalLM", layers=3)
    obj = load(rel, cfg)
    assert obj.full_attn_idxs == [0, 1, 2]
    assert obj.layer_types == ["full_attention"] * 3


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_sliding_on_the_layers_without_rope(rel):
    obj = load(rel, dense("smollm3", "SmolLM3ForCausalLM", no_rope_layer_interval=4, use_sliding_window=True,
                          sliding_window=4096))
    assert obj.no_rope_layers == [1, 1, 1, 0, 1, 1, 1, 0]
    assert [i for i, kind in enumerate(obj.layer_types) if kind == "sliding_attention"] == [3, 7]


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_no_window_means_full_attention(rel):
    obj = load(rel, dense("smollm3", "SmolLM3ForCausalLM", layers=4, no_rope_layer_interval=2,
                          use_sliding_window=False, sliding_window=4096))
    assert obj.no_rope_layers == [1, 0, 1, 0]
    assert obj.layer_types == ["full_attention"] * 4


@pytest.mark.parametrize("rel", RELEASES)
def test_smollm3_short_rope_flags_raise_index_error(rel):
    with pytest.raises(LoadCrash) as info:
        load(rel, dense("smollm3", "SmolLM3ForCausalLM", layers=4, no_rope_layers=[1, 0]))
    assert info.value.exc_type == "IndexError"
    assert info.value.message == "list index out of range"


@pytest.mark.parametrize("rel", RELEASES)
def test_ministral3_yarn_defaults(rel):
    obj = load(rel, dense("ministral3", "Ministral3ForCausalLM", max_position_embeddings=262144))
    rope = obj.rope_parameters
    assert rope["rope_type"] == "yarn"
    assert rope["factor"] == 16.0
    assert rope["original_max_position_embeddings"] == 16384
    assert rope["llama_4_scaling_beta"] == 0.1
    assert "partial_rotary_factor" not in rope
    assert obj.head_dim == 128


@pytest.mark.parametrize("rel", RELEASES)
def test_minicpm3_depth_scale_and_logits_scaling(rel):
    cfg = dense("minicpm3", "MiniCPM3ForCausalLM", layers=9, num_key_value_heads=8, scale_depth=None,
                dim_model_base=256, q_lora_rank=768, kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=32,
                v_head_dim=64)
    obj = load(rel, cfg)
    assert obj.scale_depth == 3.0
    assert obj.logits_scaling == 4.0
    assert obj.head_dim == 32
    assert obj.qk_head_dim == 96
