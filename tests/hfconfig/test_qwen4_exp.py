"""Qwen4-Exp (``qwen4_exp`` / ``qwen4_exp_text``) on the transformers lines vLLM serves it with: 5.19 and 5.20
(vLLM 0.32.0, 0.33.0; 0.29.0 - 0.31.0 serve vLLM's own classes, which kvguard still declines).

``Qwen4ExpTextConfig.validate_architecture`` (``transformers/models/qwen4_exp/configuration_qwen4_exp.py``), the
first validator ``@strict`` runs, is a named behaviour recognised by the fingerprint of its source
(``qwen4_exp_validate_architecture``): the layer kinds, the output gate, the hyper-connection streams, the expert
counts and MoE sizes, the QSA indexer's fields and the rotary part against the index head, the PLE layers, their
n-gram heads and the end-of-sequence token.  kvguard declined every Qwen4-Exp config there before.

``data/qwen4_exp_cases.json``: hand-written configs, each check on both sides of its bound;
``data/qwen4_exp_cases_oracle_<release>.json.gz``: the real ``get_config`` + ``get_hf_text_config`` answers
(``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/qwen4_exp_cases.json --record tests/hfconfig/data
--versions 0.32.0,0.33.0``).
"""

from __future__ import annotations

import pytest

from ._util import answers, assert_agrees, case_ids

RELEASES = ("0.32.0", "0.33.0")
STEM = "qwen4_exp_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", RELEASES)
def test_the_recorded_answers_cover_both_sides_of_the_bounds(rel):
    """The cases reach each check and its edge (so a kvguard that accepted or refused them all would fail)."""
    found = answers(STEM, rel)
    for ok in ("q4_ckpt", "q4_topk_equal", "q4_qsa_ok", "q4_qsa_rotary_fits_exactly", "q4_ple_ok",
               "q4_hidden_gelu_gate_sigmoid", "q4_gate_empty_string", "q4_full_attention_renamed"):
        assert found[ok]["outcome"] == "ok", ok
    assert "['alpha', 'zeta']" in found["q4_two_unknown_sorted"]["error"]["message"]
    assert "rotary_dim=64, indexer_head_dim=63" in found["q4_qsa_rotary_one_over"]["error"]["message"]
    assert "invalid literal for int()" in found["q4_qsa_rotary_string_factor"]["error"]["message"]
    assert found["q4_ple_short_layer_types"]["error"]["type"] == "IndexError"
    assert "got [0, 9]" in found["q4_ple_outside"]["error"]["message"]
    assert "'indexer_head_dim': -128" in found["q4_qsa_negative"]["error"]["message"]
