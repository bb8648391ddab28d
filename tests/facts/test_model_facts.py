"""ModelFacts' KV-head arithmetic on facts that lack the heads (no attention KV cache kvguard derives)."""

from __future__ import annotations

import pytest

from kvguard import ModelFacts, Undecidable


def _facts(**overrides):
    values = dict(vllm_version="0.28.0", model_type="somemodel", text_model_type=None, architectures=(),
                  use_mla=False, is_deepseek_mla=False, total_num_kv_heads=8, total_num_attention_heads=32,
                  head_size=128, num_hidden_layers=2, num_experts=0)
    values.update(overrides)
    return ModelFacts(**values)


def test_kv_heads_per_rank_and_duplication_from_known_heads():
    facts = _facts()
    assert facts.cache_kv_heads == 8
    assert facts.num_kv_heads(4) == 2
    assert facts.num_kv_heads(16) == 1
    assert facts.duplication_factor(16) == 2


def test_mla_caches_one_latent_head_even_without_kv_heads():
    facts = _facts(use_mla=True, is_deepseek_mla=True, total_num_kv_heads=None)
    assert facts.cache_kv_heads == 1
    assert facts.num_kv_heads(8) == 1


@pytest.mark.parametrize("ask", [lambda f: f.cache_kv_heads, lambda f: f.num_kv_heads(2),
                                 lambda f: f.duplication_factor(2)])
def test_unknown_kv_heads_are_undecidable_not_a_type_error(ask):
    facts = _facts(total_num_kv_heads=None)
    with pytest.raises(Undecidable, match="somemodel has no attention KV heads kvguard derives"):
        ask(facts)
