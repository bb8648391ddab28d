"""VibeVoice-ASR's positions (a property of ``VibeVoiceAsrConfig``), Mellum's MTP layers and vLLM's FunAudioChat.

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

vLLM's ``FunAudioChatConfig`` (``vllm/transformers_utils/configs/funaudiochat.py``, 0.16.0+; 0.16.0 - 0.17.1 keep the
text config's class in a local looked up in transformers' CONFIG_MAPPING, an unknown model type a KeyError): an audio
config given
as a dict gets the model type of vLLM's own audio encoder class unless it names one, and is built with that class
whatever it names; the top-level ``hidden_size`` is ``int()`` of the given one, else of the text config's.  Expected
values from ``get_config`` of vLLM 0.18.0, 0.23.0 (transformers 4.57.6), 0.28.0 and 0.33.0 (5.24.0 / 5.20.2, where the
text config's strict fields refuse what ``int()`` would take); the ``funaudiochat`` template.
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


FUN_RELEASES = ["0.16.0", "0.17.1", "0.18.0", "0.23.0", "0.28.0", "0.33.0"]


def funaudiochat(**extra) -> dict:
    return {"architectures": ["FunAudioChatForConditionalGeneration"], "model_type": "funaudiochat", **extra}


@pytest.mark.parametrize("rel", FUN_RELEASES)
@pytest.mark.parametrize(("cfg", "expected"), [
    # (top-level hidden size, audio model type, its attention implementation, its d_model, text model type,
    #  text hidden size, text KV heads)
    (funaudiochat(), (4096, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen2", 4096, 32)),
    (funaudiochat(audio_config={}), (4096, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen2", 4096, 32)),
    (funaudiochat(audio_config={"d_model": 640, "_attn_implementation": "eager"}),
     (4096, "funaudiochat_audio_encoder", "eager", 640, "qwen2", 4096, 32)),
    # another model type is kept, but the encoder class builds it all the same
    (funaudiochat(audio_config={"model_type": "whisper", "d_model": 512}), (4096, "whisper", "sdpa", 512, "qwen2", 4096, 32)),
    (funaudiochat(text_config={"model_type": "qwen3", "hidden_size": 2048, "num_key_value_heads": 4}),
     (2048, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen3", 2048, 4)),
    (funaudiochat(text_config={"hidden_size": 1024}), (1024, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen2", 1024, 32)),
    (funaudiochat(hidden_size="4096"), (4096, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen2", 4096, 32)),
    (funaudiochat(hidden_size=4096.7), (4096, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen2", 4096, 32)),
    (funaudiochat(hidden_size=2048, text_config={"model_type": "qwen3", "hidden_size": 4096}),
     (2048, "funaudiochat_audio_encoder", "sdpa", 1280, "qwen3", 4096, 32)),
])
def test_funaudiochat_builds(rel, cfg, expected):
    config = load(rel, cfg)
    audio, text = config.audio_config, config.text_config
    assert (config.hidden_size, audio.model_type, audio._attn_implementation, audio.d_model, text.model_type,
            text.hidden_size, text.num_key_value_heads) == expected


@pytest.mark.parametrize("rel", FUN_RELEASES)
@pytest.mark.parametrize(("cfg", "exc_type", "message"), [
    (funaudiochat(hidden_size="x"), "ValueError", "invalid literal for int() with base 10: 'x'"),
    (funaudiochat(hidden_size=[1]), "TypeError",
     "int() argument must be a string, a bytes-like object or a real number, not 'list'"),
])
def test_funaudiochat_hidden_size_refusals(rel, cfg, exc_type, message):
    with pytest.raises(LoadCrash) as err:
        load(rel, cfg)
    assert (err.value.exc_type, err.value.message) == (exc_type, message)


@pytest.mark.parametrize(("rel", "outcome"), [
    ("0.16.0", (12, "12")),
    ("0.18.0", (12, "12")),                  # transformers 4.57.6 keeps the string; int() of it is 12
    ("0.23.0", (12, "12")),
    ("0.28.0", ("StrictDataclassFieldValidationError", "Validation error for field 'hidden_size':")),
    ("0.33.0", ("StrictDataclassFieldValidationError", "Validation error for field 'hidden_size':")),
])
def test_funaudiochat_text_hidden_size_as_a_string(rel, outcome):
    cfg = funaudiochat(hidden_size=None, text_config={"model_type": "qwen3", "hidden_size": "12"})
    try:
        config = load(rel, cfg)
    except LoadCrash as err:
        got: tuple = (err.exc_type, err.message.splitlines()[0])
    else:
        got = (config.hidden_size, config.text_config.hidden_size)
    assert got == outcome


@pytest.mark.parametrize("rel", FUN_RELEASES)
def test_funaudiochat_text_config_of_another_or_an_unknown_type(rel):
    config = load(rel, funaudiochat(text_config={"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8}))
    assert (config.hidden_size, config.text_config.model_type, config.text_config.num_key_value_heads) == \
        (512, "llama", 8)
    with pytest.raises(LoadCrash) as err:
        load(rel, funaudiochat(text_config={"model_type": "nope"}))
    assert (err.value.exc_type, err.value.message) == ("KeyError", "'nope'")


@pytest.mark.parametrize("rel", FUN_RELEASES)
def test_funaudiochat_audio_config_neither_dict_nor_none_is_kept(rel):
    assert load(rel, funaudiochat(audio_config=[1])).audio_config == [1]
