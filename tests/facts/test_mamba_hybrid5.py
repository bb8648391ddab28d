"""Mamba-hybrid configs on the transformers 5 lines (vLLM 0.24.0+): GraniteMoeHybrid, FalconH1, Bamba, Mamba2.

Mirrors ``transformers/models/{granitemoehybrid,falcon_h1,bamba,mamba2}/configuration_*.py`` of transformers
5.17.0 / 5.19.0 / 5.20.2 / 5.24.0: ``__post_init__`` keeps ``time_step_limit`` as a tuple (None stays None),
derives ``mamba_d_head`` from the Mamba inner width when it is ``"auto"``, and ``validate_architecture`` refuses
head counts that do not split that width.  Expected values are written by hand from those classes (the
generated-config differential of tools/hfconfig_oracle.py compares the same classes with the real library).
"""

from __future__ import annotations

import json
import math
import os

import pytest
from packaging.version import Version

import kvguard
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.path.dirname(HERE), "hfconfig", "data", "templates.json"), encoding="utf-8") as _fh:
    TEMPLATES = json.load(_fh)

# one release per transformers 5 line: 5.24.0, 5.17.0, 5.19.0, 5.20.2
RELEASES = ["0.24.0", "0.31.0", "0.32.0", "0.33.0"]


def release(v: str) -> Release:
    return Release(Version(v))


def tpl(model_type: str, **changes) -> dict:
    cfg = dict(TEMPLATES[model_type])
    cfg.update(changes)
    return cfg


@pytest.mark.parametrize("rel", RELEASES)
def test_granite_4_h_small_kv_facts(rel):
    """ibm-granite/granite-4.0-h-small: 32 query heads, 8 KV heads of 4096 / 32 = 128, 40 layers of which 4
    (5, 15, 25, 35) are attention; the Mamba head size 64 = 2 * 4096 / 128."""
    facts = kvguard.model_facts(tpl("granitemoehybrid"), vllm_version=rel)
    assert (facts.total_num_attention_heads, facts.total_num_kv_heads, facts.head_size) == (32, 8, 128)
    assert facts.num_hidden_layers == 40
    obj = load_config(tpl("granitemoehybrid"), release(rel))
    assert obj.time_step_limit == (0.0, math.inf) and isinstance(obj.time_step_limit, tuple)
    assert obj.mamba_d_head == 64
    kinds = obj.layer_types
    assert [i for i, k in enumerate(kinds) if k == "full_attention"] == [5, 15, 25, 35]
    assert kinds.count("linear_attention") == 36


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("model_type", ["granitemoehybrid", "falcon_h1", "bamba"])
def test_time_step_limit_list_becomes_tuple(rel, model_type):
    obj = load_config(tpl(model_type, time_step_limit=[0.0, 8.0]), release(rel))
    assert obj.time_step_limit == (0.0, 8.0) and isinstance(obj.time_step_limit, tuple)
    assert load_config(tpl(model_type, time_step_limit=None), release(rel)).time_step_limit is None


@pytest.mark.parametrize("rel", RELEASES)
def test_auto_mamba_head_size(rel):
    # Bamba: expand * hidden // heads = 2 * 4096 // 128
    assert load_config(tpl("bamba", mamba_d_head="auto"), release(rel)).mamba_d_head == 64
    # FalconH1: mamba_d_ssm (6144) when set, // 48 heads
    assert load_config(tpl("falcon_h1", mamba_d_head="auto"), release(rel)).mamba_d_head == 128
    # GraniteMoeHybrid: 2 * 4096 // 128
    assert load_config(tpl("granitemoehybrid", mamba_d_head="auto"), release(rel)).mamba_d_head == 64


@pytest.mark.parametrize("rel", RELEASES)
def test_mamba_heads_that_do_not_split_the_inner_width(rel):
    with pytest.raises(LoadCrash) as info:
        load_config(tpl("bamba", mamba_n_heads=100, mamba_d_head="auto"), release(rel))
    assert "mamba_n_heads must divide mamba_expand * hidden_size" in str(info.value)
    with pytest.raises(LoadCrash) as info:
        load_config(tpl("granitemoehybrid", mamba_d_head=32), release(rel))
    assert "The dimensions for the Mamba head state do not match the model intermediate_size" in str(info.value)


@pytest.mark.parametrize("rel", RELEASES)
def test_mamba2_head_check(rel):
    obj = load_config(tpl("mamba2"), release(rel))
    assert obj.time_step_limit == (0.0, math.inf)
    with pytest.raises(LoadCrash) as info:
        load_config(tpl("mamba2", num_heads=100), release(rel))
    assert ("Inconsistent configuration: hidden_size * expand (8192) must equal num_heads * head_dim (6400)."
            in str(info.value))
