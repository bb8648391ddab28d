"""Encoder-decoder configs written flat (Whisper, Marian, BART, Cohere-ASR's start token), on the transformers 5 lines.

``PreTrainedConfig.validate_token_ids`` (transformers ``configuration_utils.py``, 5.17.0 - 5.24.0; vLLM 0.24.0+) reads
``get_text_config(decoder=True)``: for a config without a nested decoder / text config that says it is an
encoder-decoder, a deep copy whose ``decoder_*`` keys move to the unprefixed names (``decoder_layers`` to the layer
count, ``decoder_attention_heads`` to the head count, through the class's attribute map: Whisper's land on
``encoder_layers`` / ``encoder_attention_heads`` / ``d_model``), each assignment checked as the class checks it.
The validator only warns, so what surfaces is an assignment the copy refuses (a ``decoder_hidden_size`` string into
``d_model``, a ``decoder_vocab_size`` None into ``vocab_size``, a ``decoder_num_labels`` string in the
``num_labels`` setter).

``data/flat_encoder_decoder_cases.json``: hand-written configs reaching those assignments;
``data/flat_encoder_decoder_cases_oracle_<release>.json.gz``: what the real ``get_config`` + ``get_hf_text_config``
answered in each release's oracle environment (one release per transformers 5 line), recorded with
``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/flat_encoder_decoder_cases.json --record
tests/hfconfig/data``.  kvguard must answer every one of them as the release did (no undecidable).
"""

from __future__ import annotations

import pytest

from ._util import assert_agrees, case_ids, recorded

#: one release per transformers 5 line: 5.24.0, 5.17.0, 5.19.0, 5.20.2
RELEASES = ("0.24.0", "0.31.0", "0.32.0", "0.33.0")
STEM = "flat_encoder_decoder_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_flat_encoder_decoder_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", RELEASES)
def test_recordings_reach_the_copy_s_refusals(rel):
    """The recordings hold refusals raised only by the flat copy (so a kvguard that skipped it would fail)."""
    refused = {i: rec["error"]["message"].splitlines()[0] for i, (_, rec) in recorded(STEM, rel).items()
               if rec["outcome"] == "error"}
    assert refused["whisper_decoder_hidden_size_str"] == "Validation error for field 'd_model':"
    assert refused["whisper_decoder_vocab_size_none"] == "Validation error for field 'vocab_size':"
    assert refused["cohere_asr_decoder_hidden_size_str"] == "Validation error for field 'hidden_size':"
    assert "whisper_large_v3" not in refused and "marian_decoder_vocab_size_none" not in refused
