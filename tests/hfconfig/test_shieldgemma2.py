"""ShieldGemma 2's tie_word_embeddings on transformers 5.17 / 5.19 (vLLM 0.31.0, 0.32.0) and the lines around them.

``ShieldGemma2Config.__post_init__`` (``transformers/models/shieldgemma2/configuration_shieldgemma2.py``, 5.17.0 /
5.19.0): after the sub-configs are built, ``tie_word_embeddings`` is read off the text config (``True`` when it has
none) unless a keyword argument gives it (step ``getattr_of_if_kwarg_none``).  kvguard declined every ShieldGemma 2
config on those two lines.

``data/shieldgemma2_cases.json``: hand-written configs, each comparing ``tie_word_embeddings`` beside the summary;
``data/shieldgemma2_cases_oracle_<release>.json.gz``: the real ``get_config`` + ``get_hf_text_config`` answers
(``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/shieldgemma2_cases.json --record
tests/hfconfig/data``), one release per transformers line.
"""

from __future__ import annotations

import pytest

from ._util import assert_agrees, case_ids, recorded

RELEASES = ("0.23.0", "0.24.0", "0.31.0", "0.32.0", "0.33.0")
STEM = "shieldgemma2_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", ("0.31.0", "0.32.0"))
def test_tie_follows_the_text_config(rel):
    """The recordings hold the text config's value where no keyword gives one (so a kvguard that declined, or kept
    the class default, would fail)."""
    answers = {i: rec for i, (_, rec) in recorded(STEM, rel).items()}
    assert answers["sg2_text_tie_false"]["attrs"]["tie_word_embeddings"] == {"v": False}
    assert answers["sg2_text_tie_true"]["attrs"]["tie_word_embeddings"] == {"v": True}
