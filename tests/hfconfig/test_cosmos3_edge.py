"""Cosmos3 Edge (``cosmos3_edge`` / ``cosmos3_edge_text``) on transformers 5.20 (vLLM 0.33.0; 0.26.0 - 0.32.0 serve
vLLM's own Cosmos3 Edge classes, which kvguard still declines).

``Cosmos3EdgeTextConfig`` (``transformers/models/cosmos3_edge/configuration_cosmos3_edge.py``): its ``__post_init__``
defaults the RoPE parameters (the default type at the class's ``default_theta``, mRoPE sections 24 / 20 / 20) before
the head size and the KV heads (named behaviour ``cosmos3_edge_text_rope_default`` and two vocabulary steps, by the
method's fingerprint), and its ``validate_architecture`` (``cosmos3_edge_text_validate_architecture``) requires heads
dividing the hidden size, the default RoPE type and three sections adding up to half the head size.  kvguard
declined every Cosmos3 Edge config on 0.33.0 before.

``data/cosmos3_edge_cases.json``: hand-written configs; ``data/cosmos3_edge_cases_oracle_0.33.0.json.gz``: the real
``get_config`` + ``get_hf_text_config`` answers (``tools/hfconfig_oracle.py --unit --unit-cases
tests/hfconfig/data/cosmos3_edge_cases.json --record tests/hfconfig/data --versions 0.33.0``).
"""

from __future__ import annotations

import pytest

from ._util import answers, assert_agrees, case_ids

STEM = "cosmos3_edge_cases"


@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(case_id):
    assert_agrees(STEM, "0.33.0", case_id)


def test_the_recorded_answers_reach_each_check():
    """The RoPE default is the class's, and each check is reached (a kvguard that accepted or refused every
    config, or defaulted other sections, would fail)."""
    found = answers(STEM, "0.33.0")
    rope = found["c3e_ckpt"]["attrs"]["text_config.rope_parameters"]["v"]["__dict__"]
    assert rope == [["rope_type", "default"], ["rope_theta", 100000000.0], ["mrope_section", [24, 20, 20]]]
    assert found["c3e_rope_other_split"]["outcome"] == "ok"
    assert "got 'yarn'" in found["c3e_rope_yarn"]["error"]["message"]
    assert "(2050)" in found["c3e_hidden_not_multiple"]["error"]["message"]
    assert found["c3e_rope_no_sections"]["error"]["type"] == "KeyError"
    assert "for head_dim=64" in found["c3e_head_dim_64_default_sections"]["error"]["message"]
