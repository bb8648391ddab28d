"""OpenAI Privacy Filter's labels and CLIP without its legacy dicts, on the transformers 5 lines (vLLM 0.24.0+).

``OpenAIPrivacyFilterConfig.__post_init__`` (``transformers/models/openai_privacy_filter/
configuration_openai_privacy_filter.py``, 5.17.0 - 5.24.0; vLLM 0.25.0+ registers the model type): KV heads and head
size defaults, YaRN RoPE parameters when none are given, then a ``num_labels`` keyword (popped) equal to the count
of the module's NER labels, or none, makes those labels ``id2label`` when none is given, any other count goes
through the ``num_labels`` setter, and ``label2id`` inverts ``id2label`` when not given (kvguard.facts.classes5,
recognised by the method's fingerprint).

``CLIPConfig.__post_init__`` (``transformers/models/clip/configuration_clip.py``): ``if (d := kwargs.pop(
"text_config_dict", None)) is not None: …`` declines only a config that gives the legacy dict a value; the key leaves
the keyword arguments either way.  On 5.17.0 / 5.19.0 (vLLM 0.31.0, 0.32.0) the class does more kvguard does not
follow, so every CLIP config stays undecidable there.

``data/declined5_cases.json``: hand-written configs; ``data/declined5_cases_oracle_<release>.json.gz``: the real
``get_config`` + ``get_hf_text_config`` answers (``tools/hfconfig_oracle.py --unit --unit-cases
tests/hfconfig/data/declined5_cases.json --record tests/hfconfig/data``), one release per transformers 5 line.
"""

from __future__ import annotations

import pytest

from ._util import case_ids, oracle, recorded, release

#: one release per transformers 5 line: 5.24.0, 5.17.0, 5.19.0, 5.20.2
RELEASES = ("0.24.0", "0.31.0", "0.32.0", "0.33.0")
#: the lines whose CLIPConfig kvguard does not follow (the allow-list says why)
CLIP_DECLINED = ("0.31.0", "0.32.0")
STEM = "declined5_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    case, rec = recorded(STEM, rel)[case_id]
    k = oracle.run_kvguard(case, release(rel))
    if case_id.startswith("clip") and rel in CLIP_DECLINED:
        assert k["outcome"] == "undecidable", k
        return
    verdict, detail = oracle.compare(rec, k)
    assert verdict == "agree", detail


@pytest.mark.parametrize("rel", RELEASES)
def test_privacy_filter_labels_as_recorded(rel):
    """The recordings hold the refusals the label defaults raise (so a kvguard that skipped them would fail)."""
    answers = {i: rec for i, (_, rec) in recorded(STEM, rel).items()}
    assert answers["privacy_min"]["outcome"] == "ok"
    assert answers["privacy_num_labels_str"]["error"]["message"] == "'str' object cannot be interpreted as an integer"
    # 5.17's strict id2label field refuses a list before the method reads it
    assert answers["privacy_id2label_list"]["error"]["message"].startswith(
        "Validation error for field 'id2label':" if rel == "0.31.0" else "'list' object has no attribute 'items'")
