"""Nemotron-3-Nano-Omni (``nemotron_h_omni``) on the transformers 5 lines that have it (5.19, 5.20, 5.24: vLLM
0.29.0, 0.30.0, 0.32.0, 0.33.0).

``NemotronH_Omni_Reasoning_V3_Config.__post_init__`` (``transformers/models/nemotron_h_omni/
configuration_nemotron_h_omni.py``): the released checkpoints' legacy field names (``llm_config``, ``sound_config``,
``img_context_token_id``, ``vit_hidden_size``, …) fill a field only while it holds the class-level value (step
``legacy_fields_if_class_value``); a dict audio config gets the Parakeet defaults unless it gives them (5.20 / 5.24 keep
its model type, so a checkpoint's ``parakeet`` is refused by the parent's sub-config build; 5.19 builds the encoder
from a copy less its model type). ``validate_architecture`` requires the vision tower's temporal patch size to equal
the top level's; the vision tower (``RadioConfig``) derives its patch sizes and refuses a temporal patch size below 2.
kvguard declined every such config before.

``data/nemotron_h_omni_cases.json``: hand-written configs (checkpoint-shaped, and edge cases of each of the above),
each comparing its ``attrs`` (dotted: a sub-config's attribute) beside the summary;
``data/nemotron_h_omni_cases_oracle_<release>.json.gz``: the real ``get_config`` + ``get_hf_text_config`` answers
(``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/nemotron_h_omni_cases.json --record
tests/hfconfig/data``), one release per transformers line.
"""

from __future__ import annotations

import pytest

from ._util import answers, assert_agrees, case_ids

RELEASES = ("0.29.0", "0.32.0", "0.33.0")
STEM = "nemotron_h_omni_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", RELEASES)
def test_legacy_names_fill_only_fields_at_their_class_value(rel):
    """A legacy name fills its field at the class default (even when the config spells that default out), not
    a field given another value (so a kvguard that always or never took the legacy name would fail)."""
    found = answers(STEM, rel)
    assert found["omni_checkpoint"]["attrs"]["image_token_id"] == {"v": 18}
    assert found["omni_vit_default_given"]["attrs"]["vision_hidden_size"] == {"v": 1152}
    assert found["omni_vit_other_given"]["attrs"]["vision_hidden_size"] == {"v": 1024}
    assert found["omni_sound_bias_true"]["attrs"]["audio_config.attention_bias"] == {"v": True}
    assert found["omni_checkpoint"]["attrs"]["audio_config.attention_bias"] == {"v": False}


def test_parakeet_model_type_split_by_line():
    """transformers 5.20 / 5.24 keep the checkpoint's ``parakeet`` model type (refused), 5.19 drops it; without a
    vision config 5.19 builds the tower with the top level's temporal patch size, 5.20 / 5.24 with 2."""
    assert answers(STEM, "0.33.0")["omni_checkpoint_parakeet_type"]["error"]["type"] == "ValueError"
    assert answers(STEM, "0.29.0")["omni_checkpoint_parakeet_type"]["error"]["type"] == "ValueError"
    assert "error" not in answers(STEM, "0.32.0")["omni_checkpoint_parakeet_type"]
    assert answers(STEM, "0.32.0")["omni_no_vision_temporal3"]["attrs"]["vision_config.video_temporal_patch_size"] == \
        {"v": 3}
    assert "must be equal" in answers(STEM, "0.33.0")["omni_no_vision_temporal3"]["error"]["message"]
