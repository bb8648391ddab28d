"""Qwen3-ASR's flat layout and Isaac's vision config.

Mirrors vLLM's ``Qwen3ASRConfig`` (``vllm/transformers_utils/configs/qwen3_asr.py``, 0.26.0+): without a
``thinker_config`` the thinker is built from whichever of ``audio_config``, ``text_config`` and ``audio_token_id``
are given and not None.  And vLLM's ``IsaacConfig`` (``vllm/transformers_utils/configs/isaac.py``, 0.14.0+): the
vision config's ``pixel_shuffle_scale_factor`` / ``num_patches`` kept when it has them, else taken from the top level;
a vision config that is no config (a JSON scalar or list) cannot take them.
Expected values were read off the real classes in the releases' oracle environments (``get_config``);
tools/hfconfig_oracle.py compares the same classes on generated configs (the ``qwen3_asr`` and ``isaac`` templates).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

ASR_RELEASES = ["0.26.0", "0.30.0", "0.33.0"]
ISAAC_RELEASES = ["0.14.0", "0.18.1", "0.19.0", "0.24.0", "0.33.0"]

ASR_TEXT = {"model_type": "qwen3_asr_text", "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 28,
            "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
            "max_position_embeddings": 65536, "rope_theta": 1000000}


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


def asr(**extra) -> dict:
    return {"architectures": ["Qwen3ASRForConditionalGeneration"], "model_type": "qwen3_asr", **extra}


@pytest.mark.parametrize("rel", ASR_RELEASES)
@pytest.mark.parametrize(("cfg", "kv_heads", "layers"), [
    (asr(text_config=ASR_TEXT, audio_token_id=151676), 8, 28),            # a flat checkpoint: the thinker from it
    (asr(text_config={**ASR_TEXT, "num_key_value_heads": 4}), 4, 28),
    (asr(thinker_config=None, text_config={"num_key_value_heads": 2}, audio_token_id=None), 2, 32),
    (asr(text_config={}, audio_config={}), 32, 32),                      # the text class's defaults
    (asr(), 32, 32),
    # a thinker_config given (even empty) wins: the top-level text_config is dropped
    (asr(thinker_config={"text_config": ASR_TEXT}, text_config={"num_key_value_heads": 1}), 8, 28),
    (asr(thinker_config={}, text_config={"num_key_value_heads": 1}), 32, 32),
])
def test_qwen3_asr_thinker_from_the_top_level_keys(rel, cfg, kv_heads, layers):
    text = load(rel, cfg).thinker_config.text_config
    assert (text.num_key_value_heads, text.num_hidden_layers) == (kv_heads, layers)


@pytest.mark.parametrize("rel", ASR_RELEASES)
def test_qwen3_asr_audio_token_id_from_the_top_level(rel):
    assert load(rel, asr(audio_token_id=7)).thinker_config.audio_token_id == 7


@pytest.mark.parametrize(("text", "kind"), [(5, "int"), ([], "list")])
def test_qwen3_asr_top_level_text_config_that_is_no_dict(text, kind):
    # [] is given (not None), so it reaches the thinker, which keeps it and then fails reading it as a config
    with pytest.raises(LoadCrash) as info:
        load("0.33.0", asr(text_config=text))
    assert (info.value.exc_type, info.value.message) == (
        "AttributeError", f"'{kind}' object has no attribute '_attn_implementation'")


ISAAC = {"architectures": ["IsaacForConditionalGeneration"], "model_type": "isaac", "hidden_size": 2048,
         "intermediate_size": 6144, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
         "head_dim": 128, "max_position_embeddings": 40960, "vocab_size": 151936, "pixel_shuffle_scale": 4,
         "vision_max_num_patches": 1024}


def isaac(**extra) -> dict:
    return {**ISAAC, **extra}


@pytest.mark.parametrize("rel", ISAAC_RELEASES)
@pytest.mark.parametrize(("cfg", "scale", "patches"), [
    # the vision class always sets both (its defaults 1 and 256): the top-level values never reach it
    (isaac(), 1, 256),
    (isaac(vision_config={}), 1, 256),
    (isaac(vision_config={"pixel_shuffle_scale_factor": 2, "num_patches": 64}), 2, 64),
    (isaac(vision_config={"pixel_shuffle_scale_factor": None}), None, 256),
])
def test_isaac_vision_pixel_shuffle_attributes(rel, cfg, scale, patches):
    obj = load(rel, cfg)
    assert (obj.vision_config.pixel_shuffle_scale_factor, obj.vision_config.num_patches) == (scale, patches)
    assert (obj.pixel_shuffle_scale, obj.vision_max_num_patches) == (4, 1024)
    assert obj.text_config.num_key_value_heads == 8


@pytest.mark.parametrize("rel", ISAAC_RELEASES)
@pytest.mark.parametrize(("vision", "kind"), [
    (5, "int"), (0, "int"), ([], "list"), ([1], "list"), ("x", "str"), (True, "bool"), (False, "bool"),
    (0.5, "float"),
])
def test_isaac_vision_config_that_is_no_config(rel, vision, kind):
    with pytest.raises(LoadCrash) as info:
        load(rel, isaac(vision_config=vision))
    assert (info.value.exc_type, info.value.message) == (
        "AttributeError", f"'{kind}' object has no attribute 'pixel_shuffle_scale_factor'")


@pytest.mark.parametrize("rel", ["0.14.0", "0.33.0"])
def test_isaac_nested_text_config(rel):
    obj = load(rel, isaac(text_config={"hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 2}))
    assert (obj.text_config.hidden_size, obj.text_config.num_key_value_heads) == (1024, 2)
