"""CohereCompass (``cohere_compass`` / ``cohere_compass_text``) on the transformers 5 lines (vLLM 0.24.0 - 0.33.0;
vLLM registers its architecture from 0.30.0).

``CohereCompassTextConfig.convert_rope_params_to_dict`` (``transformers/models/cohere_compass/
configuration_cohere_compass.py``, 5.17 - 5.24) starts from empty RoPE parameters when none are given and, when the
layer types are set and a key of the RoPE parameters names one of them, drops the top-level ``rope_theta`` /
``rope_type`` (checkpoints such as CohereLabs/North-Micro-Vision-Instruct saved both) before standardising: the
vocabulary's ``steps_if`` (the condition ``self.layer_types is not None and not
set(self.rope_parameters.keys()).isdisjoint(self.layer_types)``, the two ``dict_pop_key`` steps).  kvguard declined
every CohereCompass config before.

``data/cohere_compass_cases.json``: hand-written configs; ``data/cohere_compass_cases_oracle_<release>.json.gz``: the
real ``get_config`` + ``get_hf_text_config`` answers (``tools/hfconfig_oracle.py --unit --unit-cases
tests/hfconfig/data/cohere_compass_cases.json --record tests/hfconfig/data --versions
0.24.0,0.30.0,0.31.0,0.32.0,0.33.0``: the four transformers 5 lines).
"""

from __future__ import annotations

import pytest

from ._util import answers, assert_agrees, case_ids

STEM = "cohere_compass_cases"
RECORDED = ("0.24.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")


@pytest.mark.parametrize("rel", RECORDED)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(case_id, rel):
    assert_agrees(STEM, rel, case_id)


def _rope(found: dict, case_id: str) -> dict:
    return dict(found[case_id]["attrs"]["rope_parameters"]["v"]["__dict__"])


@pytest.mark.parametrize("rel", RECORDED)
def test_the_dangling_keys_go_only_beside_a_layer_type_key(rel):
    """The top-level keys are dropped when a key names a layer type the config has, kept otherwise (a kvguard that
    always or never dropped them would fail)."""
    found = answers(STEM, rel)
    assert set(_rope(found, "cc_per_layer_dangling")) == {"sliding_attention", "full_attention"}
    assert set(_rope(found, "cc_per_layer_theta_only")) == {"sliding_attention", "full_attention"}
    assert "rope_theta" in _rope(found, "cc_full_key_all_sliding")
    assert _rope(found, "cc_flat")["rope_theta"] == 10000.0
