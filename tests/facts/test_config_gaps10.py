"""VibeVoice-ASR's positions (a property of ``VibeVoiceAsrConfig``) and Mellum's MTP layers.

``transformers/models/vibevoice_asr/configuration_vibevoice_asr.py`` (transformers 5.17.0 – 5.24.0, vLLM 0.24.0+):
reading it counts the audio chunk (``acoustic_tokenizer_chunk_size``, samples) in hops of the acoustic tokenizer,
rounding up; the hop length is itself a property of the tokenizer's config, the product of its downsampling ratios.
Assigning it (a ``max_position_embeddings`` key in config.json) refuses a value that is not positive and otherwise
sets the chunk to that many hops.  ``validate_architecture`` then wants the chunk to be a multiple of the hop.

Expected values were read off the real classes (``get_config`` of vLLM 0.26.0, 0.31.0, 0.32.0 and 0.33.0 in their
oracle environments, one per transformers line); tools/hfconfig_oracle.py compares the same class on generated
configs (the ``vibevoice_asr`` template).

``MellumConfig`` (``transformers/models/mellum/configuration_mellum.py``, transformers 5.20.2, vLLM 0.33.0; 0.22.1 -
0.30.0 serve Mellum with vLLM's own class, and transformers 5.17 / 5.19's has no MTP layers): only when there are MTP
layers (``num_mtp_layers``, spelled ``num_nextn_predict_layers`` in a checkpoint) are their attention and MLP types
defaulted, one per MTP layer; ``validate_architecture`` refuses more than one.  Expected values from vLLM 0.33.0's
``get_config``; the ``mellum`` template in tools/hfconfig_oracle.py.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

#: one release per transformers line that has the class: 5.24.0, 5.17.0, 5.19.0, 5.20.2
RELEASES = ["0.26.0", "0.31.0", "0.32.0", "0.33.0"]


def vibevoice(**extra) -> dict:
    return {"architectures": ["VibeVoiceAsrForConditionalGeneration"], "model_type": "vibevoice_asr", **extra}


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "positions", "chunk"), [
    (vibevoice(), 450, 1440000),                                          # 1,440,000 samples in hops of 3,200
    (vibevoice(max_position_embeddings=100), 100, 320000),                # the setter: 100 hops
    (vibevoice(max_position_embeddings=2.7), 2, 6400),                    # int() of a float
    (vibevoice(max_position_embeddings=True), 1, 3200),
    (vibevoice(acoustic_tokenizer_encoder_config={"downsampling_ratios": [2, 3]},
               acoustic_tokenizer_chunk_size=600), 100, 600),
    (vibevoice(acoustic_tokenizer_encoder_config={"downsampling_ratios": []},
               acoustic_tokenizer_chunk_size=7), 7, 7),                    # no ratios: a hop of one sample
    (vibevoice(acoustic_tokenizer_encoder_config={"downsampling_ratios": [2, 3]},
               max_position_embeddings=7), 7, 42),                        # the hop of the given encoder
])
def test_vibevoice_positions_count_hops_of_the_chunk(rel, cfg, positions, chunk):
    config = load(rel, cfg)
    assert (config.max_position_embeddings, config.acoustic_tokenizer_chunk_size) == (positions, chunk)


@pytest.mark.parametrize("rel", RELEASES)
def test_vibevoice_text_config_keeps_its_own_positions(rel):
    config = load(rel, vibevoice(text_config={"model_type": "qwen2", "num_key_value_heads": 4,
                                              "max_position_embeddings": 65536}))
    assert (config.max_position_embeddings, config.text_config.max_position_embeddings,
            config.text_config.num_key_value_heads) == (450, 65536, 4)


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "exc_type", "first_line"), [
    (vibevoice(max_position_embeddings=0), "ValueError",
     "Attempted to set `max_position_embeddings` to 0; you need a positive value!"),
    (vibevoice(max_position_embeddings="x"), "TypeError", "'<=' not supported between instances of 'str' and 'int'"),
    (vibevoice(max_position_embeddings=None), "TypeError",
     "'<=' not supported between instances of 'NoneType' and 'int'"),
    (vibevoice(max_position_embeddings=[3]), "TypeError", "'<=' not supported between instances of 'list' and 'int'"),
    (vibevoice(max_position_embeddings=float("inf")), "OverflowError", "cannot convert float infinity to integer"),
    (vibevoice(acoustic_tokenizer_chunk_size=6500), "StrictDataclassClassValidationError",
     "Class validation error for validator 'validate_architecture':"),
    (vibevoice(acoustic_tokenizer_encoder_config={"downsampling_ratios": [2, 0]}), "ZeroDivisionError",
     "integer modulo by zero"),
])
def test_vibevoice_refusals(rel, cfg, exc_type, first_line):
    with pytest.raises(LoadCrash) as err:
        load(rel, cfg)
    assert (err.value.exc_type, err.value.message.splitlines()[0]) == (exc_type, first_line)


@pytest.mark.parametrize("rel", RELEASES)
def test_vibevoice_chunk_must_be_a_multiple_of_the_hop(rel):
    with pytest.raises(LoadCrash) as err:
        load(rel, vibevoice(acoustic_tokenizer_chunk_size=1000))
    assert err.value.message.splitlines()[1] == \
        "    ValueError: `acoustic_tokenizer_chunk_size` must be a multiple of hop length (3200), got 1000."


def mellum(**extra) -> dict:
    return {"architectures": ["MellumForCausalLM"], "model_type": "mellum", **extra}


@pytest.mark.parametrize(("cfg", "mtp_layers", "mtp_layer_types", "mtp_mlp_layer_types"), [
    (mellum(), None, None, None),
    (mellum(num_nextn_predict_layers=0), 0, None, None),                  # no MTP layer: nothing defaulted
    (mellum(num_nextn_predict_layers=1), 1, ["sliding_attention"], ["sparse"]),
    (mellum(num_mtp_layers=1), 1, ["sliding_attention"], ["sparse"]),
    (mellum(num_nextn_predict_layers=1, mtp_layer_types=["full_attention"]), 1, ["full_attention"], ["sparse"]),
    (mellum(num_nextn_predict_layers=1, mtp_mlp_layer_types=["dense"]), 1, ["sliding_attention"], ["dense"]),
    (mellum(num_nextn_predict_layers=-1), -1, [], []),                    # truthy: lists of length zero
    (mellum(num_nextn_predict_layers=True), True, ["sliding_attention"], ["sparse"]),
    (mellum(num_mtp_layers=3, num_nextn_predict_layers=1), 1, ["sliding_attention"], ["sparse"]),
    (mellum(mtp_layer_types=["sliding_attention"]), None, ["sliding_attention"], None),
])
def test_mellum_mtp_layer_types_default_only_with_mtp_layers(cfg, mtp_layers, mtp_layer_types, mtp_mlp_layer_types):
    config = load("0.33.0", cfg)
    assert (config.num_mtp_layers, config.mtp_layer_types, config.mtp_mlp_layer_types) == \
        (mtp_layers, mtp_layer_types, mtp_mlp_layer_types)


@pytest.mark.parametrize(("cfg", "exc_type", "message"), [
    (mellum(num_nextn_predict_layers=2), "StrictDataclassClassValidationError",
     "Class validation error for validator 'validate_architecture':\n"
     "    ValueError: Mellum supports a single MTP layer, but got num_mtp_layers=2."),
    (mellum(num_nextn_predict_layers="2"), "TypeError", "can't multiply sequence by non-int of type 'str'"),
    (mellum(num_nextn_predict_layers=1.0), "TypeError", "can't multiply sequence by non-int of type 'float'"),
])
def test_mellum_refusals(cfg, exc_type, message):
    with pytest.raises(LoadCrash) as err:
        load("0.33.0", cfg)
    assert (err.value.exc_type, "\n".join(err.value.message.splitlines()[:2])) == (exc_type, message)
