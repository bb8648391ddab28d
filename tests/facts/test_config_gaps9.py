"""Qwen3-ASR's flat layout, Isaac's vision config, Molmo2's legacy vision key and ModernBERT's sliding window.

Mirrors vLLM's ``Qwen3ASRConfig`` (``vllm/transformers_utils/configs/qwen3_asr.py``, 0.26.0+): without a
``thinker_config`` the thinker is built from whichever of ``audio_config``, ``text_config`` and ``audio_token_id``
are given and not None.  And vLLM's ``IsaacConfig`` (``vllm/transformers_utils/configs/isaac.py``, 0.14.0+): the
vision config's ``pixel_shuffle_scale_factor`` / ``num_patches`` kept when it has them, else taken from the top level;
a vision config that is no config (a JSON scalar or list) cannot take them.  And ``Molmo2Config``
(``transformers/models/molmo2/configuration_molmo2.py``, transformers 5.24.0 for vLLM 0.24.0-0.30.0, 5.20.2 for 0.33.0):
a vision config under the legacy key ``vit_config`` stands in for a missing ``vision_config`` and, when given, the
adapter's feature layers are wrapped into the ViT's depth and the ViT cut after the deepest; the validators' checks.
And ``ModernBertConfig`` (``transformers/models/modernbert/configuration_modernbert.py``, transformers 5.x, vLLM 0.24.0+):
``sliding_window`` a property over ``local_attention`` (half of it; assigning it sets twice the value), the layer types
global on every ``global_attn_every_n_layers``-th layer, a legacy ``rope_scaling`` merged into both attention kinds.
Expected values were read off the real classes in the releases' oracle environments (``get_config``);
tools/hfconfig_oracle.py compares the same classes on generated configs (the ``qwen3_asr``, ``isaac``, ``molmo2`` and
``modernbert`` templates).
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


MOLMO2_RELEASES = ["0.24.0", "0.28.0", "0.30.0", "0.33.0"]

# shaped like allenai/Molmo2-8B's config.json: the vision config under its legacy key, the checkpoint's own key names
MOLMO2_VIT = {"model_type": "molmo2_vision", "hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
              "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 72,
              "image_default_input_size": [378, 378], "image_patch_size": 14}
MOLMO2_TEXT = {"model_type": "molmo2_text", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
               "head_dim": 128, "num_hidden_layers": 36, "rope_theta": 1000000.0}


def molmo2(**extra) -> dict:
    return {"architectures": ["Molmo2ForConditionalGeneration"], "model_type": "molmo2", "text_config": MOLMO2_TEXT,
            **extra}


def adapter(layers) -> dict:
    return {"model_type": "molmo2_adapter", "vit_layers": layers}


@pytest.mark.parametrize("rel", MOLMO2_RELEASES)
@pytest.mark.parametrize(("cfg", "depth", "layers"), [
    # the legacy key: -3 and -9 of 27 layers are 24 and 18, and the ViT keeps 25 layers
    (molmo2(vit_config=MOLMO2_VIT, adapter_config=adapter([-3, -9])), 25, [24, 18]),
    (molmo2(vision_config=MOLMO2_VIT, adapter_config=adapter([-3, -9])), 27, [-3, -9]),   # the new key: kept
    # both keys: the new one is used, and still cut
    (molmo2(vision_config={**MOLMO2_VIT, "num_hidden_layers": 30}, vit_config=MOLMO2_VIT,
            adapter_config=adapter([-3, -9])), 28, [27, 21]),
    (molmo2(vit_config=MOLMO2_VIT), 25, [24, 18]),                          # the adapter's default layers
    (molmo2(vit_config=MOLMO2_VIT, adapter_config=adapter([5, 2])), 6, [5, 2]),
    (molmo2(vit_config=MOLMO2_VIT, adapter_config=adapter([30, -40])), 15, [3, 14]),
    (molmo2(vit_config={}), 25, [24, 18]),                                   # the vision class's 25 layers
    (molmo2(vit_config=None), 25, [24, 18]),
    (molmo2(vision_config=MOLMO2_VIT, adapter_config=adapter([-27, 26])), 27, [-27, 26]),
])
def test_molmo2_legacy_vision_key(rel, cfg, depth, layers):
    obj = load(rel, cfg)
    assert (obj.vision_config.num_hidden_layers, obj.adapter_config.vision_feature_layer) == (depth, layers)
    assert obj.text_config.num_key_value_heads == 8


@pytest.mark.parametrize("rel", MOLMO2_RELEASES)
@pytest.mark.parametrize(("cfg", "exc_type", "message"), [
    (molmo2(vit_config=MOLMO2_VIT, adapter_config=adapter([])), "ValueError", "max() arg is an empty sequence"),
    (molmo2(vit_config={**MOLMO2_VIT, "num_hidden_layers": 0}, adapter_config=adapter([-3])),
     "ZeroDivisionError", "integer modulo by zero"),
])
def test_molmo2_legacy_vision_key_errors(rel, cfg, exc_type, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, cfg)
    assert (info.value.exc_type, info.value.message) == (exc_type, message)


@pytest.mark.parametrize("rel", MOLMO2_RELEASES)
@pytest.mark.parametrize(("cfg", "cause"), [
    (molmo2(vision_config=MOLMO2_VIT, adapter_config=adapter([30])),
     "`adapter_config.vision_feature_layer` [30] must index the 27 layers of `vision_config`."),
    (molmo2(vision_config=MOLMO2_VIT, adapter_config=adapter([-28])),
     "`adapter_config.vision_feature_layer` [-28] must index the 27 layers of `vision_config`."),
    (molmo2(vision_config=MOLMO2_VIT, text_config={**MOLMO2_TEXT, "additional_vocab_size": -1}),
     "`additional_vocab_size` must be >= 0, got -1"),
])
def test_molmo2_validators(rel, cfg, cause):
    with pytest.raises(LoadCrash) as info:
        load(rel, cfg)
    assert (info.value.exc_type, info.value.message) == (
        "StrictDataclassClassValidationError",
        f"Class validation error for validator 'validate_architecture':\n    ValueError: {cause}")


@pytest.mark.parametrize("rel", MOLMO2_RELEASES)
@pytest.mark.parametrize(("vision", "positions"), [
    (dict(MOLMO2_VIT), 729),                                                 # (378 // 14) ** 2
    ({**MOLMO2_VIT, "image_default_input_size": [224, 336]}, 384),           # 16 * 24
    ({**MOLMO2_VIT, "image_num_pos": 100}, 100),
])
def test_molmo2_vision_positions(rel, vision, positions):
    assert load(rel, molmo2(vision_config=vision)).vision_config.num_position_embeddings == positions


@pytest.mark.parametrize("rel", MOLMO2_RELEASES)
@pytest.mark.parametrize(("text", "rope_layers"), [
    ({"num_hidden_layers": 3}, [0, 1, 2]),                                   # every layer by default
    ({"rope_scaling_layers": [0, 1]}, [0, 1]),
])
def test_molmo2_text_rope_scaling_layers(rel, text, rope_layers):
    obj = load(rel, molmo2(vision_config=MOLMO2_VIT, text_config={**MOLMO2_TEXT, **text}))
    assert obj.text_config.rope_scaling_layers == rope_layers


MODERNBERT_RELEASES = ["0.24.0", "0.28.0", "0.31.0", "0.32.0", "0.33.0"]
MODERNBERT = {"architectures": ["ModernBertModel"], "model_type": "modernbert", "hidden_size": 768,
              "num_attention_heads": 12, "num_hidden_layers": 7, "intermediate_size": 1152}
F, S = "full_attention", "sliding_attention"


@pytest.mark.parametrize("rel", MODERNBERT_RELEASES)
@pytest.mark.parametrize(("extra", "window", "local", "layer_types"), [
    ({}, 64, 128, [F, S, S, F, S, S, F]),
    ({"global_attn_every_n_layers": 2, "local_attention": 100}, 50, 100, [F, S, F, S, F, S, F]),
    ({"sliding_window": 100}, 100, 200, [F, S, S, F, S, S, F]),                  # through the setter
    ({"sliding_window": 100, "local_attention": 64}, 100, 200, [F, S, S, F, S, S, F]),
    ({"num_hidden_layers": 2, "layer_types": [F, F]}, 64, 128, [F, F]),
])
def test_modernbert_sliding_window_and_layer_types(rel, extra, window, local, layer_types):
    obj = load(rel, {**MODERNBERT, **extra})
    assert (obj.sliding_window, obj.local_attention, obj.layer_types) == (window, local, layer_types)


@pytest.mark.parametrize("rel", MODERNBERT_RELEASES)
def test_modernbert_legacy_rope_scaling(rel):
    obj = load(rel, {**MODERNBERT, "rope_scaling": {"rope_type": "linear", "factor": 2.0}})
    assert obj.rope_parameters == {
        "sliding_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0},
        "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 160000.0}}


@pytest.mark.parametrize("rel", MODERNBERT_RELEASES)
@pytest.mark.parametrize(("extra", "exc_type", "message"), [
    ({"rope_scaling": 8.0}, "TypeError", "'float' object is not iterable"),
    ({"global_attn_every_n_layers": 0}, "ZeroDivisionError", "integer modulo by zero"),
])
def test_modernbert_errors(rel, extra, exc_type, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, {**MODERNBERT, **extra})
    assert (info.value.exc_type, info.value.message) == (exc_type, message)
