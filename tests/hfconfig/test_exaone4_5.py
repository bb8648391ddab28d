"""EXAONE 4.5's text config on transformers 5.17 / 5.19 (vLLM 0.31.0, 0.32.0) and the lines around them.

``Exaone4_5_Config.__post_init__`` (``transformers/models/exaone4_5/configuration_exaone4_5.py``, 5.17.0 / 5.19.0):
a text config given as a dict takes the model type ``exaone4`` when it has none, and the first release's
``exaone4_5_text`` is renamed to ``exaone4`` (the test subscripts the key) before the class is looked up; None builds
the default ``exaone4`` config.  kvguard declined every EXAONE 4.5 config on those two lines (the block's rename did
not fit the sub-config vocabulary); the op ``model_type_rename`` now records a subscripted test.  5.20.2 / 5.24.0
write the rename as a statement of its own, and a text config without a model type fails there.

``data/exaone4_5_cases.json``: hand-written configs; ``data/exaone4_5_cases_oracle_<release>.json.gz``: the real
``get_config`` + ``get_hf_text_config`` answers (``tools/hfconfig_oracle.py --unit --unit-cases
tests/hfconfig/data/exaone4_5_cases.json --record tests/hfconfig/data``), one release per transformers 5 line.
"""

from __future__ import annotations

import pytest

from ._util import assert_agrees, case_ids, recorded

RELEASES = ("0.24.0", "0.31.0", "0.32.0", "0.33.0")
STEM = "exaone4_5_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", ("0.31.0", "0.32.0"))
def test_old_text_model_type_is_renamed(rel):
    """The recordings hold the renamed text config's class, and a text config without a model type is built as
    EXAONE 4 on these lines (so a kvguard that declined, or skipped the rename, would fail)."""
    answers = {i: rec for i, (_, rec) in recorded(STEM, rel).items()}
    for case_id in ("ex45_text_old_type", "ex45_text_no_type", "ex45_text_empty"):
        assert answers[case_id]["hf_config"]["text_config"]["v"]["__class__"] == "Exaone4Config"
    assert answers["ex45_text_unknown_type"]["error"] == {"type": "KeyError", "module": "builtins",
                                                          "message": "'bogus_type'"}
