"""Step5 (``step5`` / ``step5_vl``) on vLLM 0.33.0, which serves them with its own classes
(``vllm/transformers_utils/configs/step5.py``: ``Step5Config``, ``Step5VLConfig``).

``Step5Config.__init__`` refuses some of its own keys before it stores anything: a ``max_position_embedding`` key, a
negative MTP layer count, a maximum length that is not positive (``max_position_embeddings`` when given, else
``max_seq_len``), MTP-inclusive layer types shorter than the dense stack plus the MTP layers, and a serialised
``layer_types_with_mtp`` whose dense prefix differs from the given ``layer_types``.  Those are the vocabulary's
conditional raises (``raise_if``: a condition of named predicates and the exact message), the serialised list's
block ``steps_if_not_none``, and the two lists it keeps ``prefix_if_truthy``.  ``Step5VLConfig`` passes its text
config's quantization config on unless one is given (``kwargs_set_attr_of_if_missing``) and defaults the
architectures to its class's (``kwargs_set_if_none``, the class attribute measured).  kvguard declined every Step5
config before.

``data/step5_cases.json``: hand-written configs; ``data/step5_cases_oracle_0.33.0.json.gz``: the real ``get_config``
+ ``get_hf_text_config`` answers (``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/step5_cases.json
--record tests/hfconfig/data --versions 0.33.0``).
"""

from __future__ import annotations

import pytest

from ._util import answers, assert_agrees, case_ids

STEM = "step5_cases"


@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(case_id):
    assert_agrees(STEM, "0.33.0", case_id)


def _message(found: dict, case_id: str) -> str:
    return found[case_id]["error"]["message"]


def test_the_recorded_answers_reach_each_check():
    """Each refusal is reached with the class's own message, and the kept lists are the class's (a kvguard that
    accepted or refused every config, or kept the whole list as the dense layers, would fail)."""
    found = answers(STEM, "0.33.0")
    assert _message(found, "s5_max_position_embedding_typo") == (
        "Found 'max_position_embedding' in config.json. Please use 'max_position_embeddings' (with 's') instead.")
    assert _message(found, "s5_nextn_negative") == "num_nextn_predict_layers must be non-negative, got -1."
    assert _message(found, "s5_mpe_zero") == "max_position_embeddings must be positive, got 0."
    assert _message(found, "s5_mpe_none_seq_len_zero") == (
        "max_seq_len must be positive when max_position_embeddings is omitted, got 0.")
    assert found["s5_mpe_string"]["error"]["type"] == "TypeError"
    assert _message(found, "s5_layer_types_short") == (
        "Step5 layer_types must include the dense stack and every MTP layer: expected at least 6 entries, got 5.")
    assert _message(found, "s5_serialized_mismatch") == (
        "layer_types must match the dense prefix of layer_types_with_mtp.")
    assert found["s5_seq_len_zero_with_mpe"]["attrs"]["max_position_embeddings"]["v"] == 8192
    full, sliding = "full_attention", "sliding_attention"
    long = found["s5_layer_types_long"]["attrs"]
    assert long["layer_types_with_mtp"]["v"] == [full, sliding, sliding, full, sliding, sliding]
    assert long["layer_types"]["v"] == [full, sliding, sliding, full]
    assert found["s5_layer_types_empty"]["attrs"]["layer_types"]["v"] is None
    assert found["s5_vl_min"]["attrs"]["architectures"]["v"] == ["Step5ForConditionalGeneration"]
    assert found["s5_vl_text_quant"]["attrs"]["quantization_config"]["v"]["__dict__"] == [
        ["quant_method", "fp8"], ["weight_block_size", [128, 128]]]
    assert found["s5_vl_both_quant"]["attrs"]["quantization_config"]["v"]["__dict__"] == [["quant_method", "fp8"]]
