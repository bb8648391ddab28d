"""Granite Speech Plus's encoder-layer checks.

``GraniteSpeechPlusConfig`` (``transformers/models/granite_speech_plus/configuration_granite_speech_plus.py``,
transformers 5.17.0 – 5.24.0, vLLM 0.24.0+): once its sub-configs are built, when the encoder config has
``cat_hidden_layers`` (not None), each index must lie in [0, the encoder's ``num_layers``), and the projector's
``encoder_hidden_size`` must equal the encoder's ``hidden_dim`` times one more than the number of indices (an
empty list: times one).  The range check comes first.

Expected values were read off the real classes (``get_config`` of vLLM 0.24.0, 0.31.0 and 0.33.0 in their oracle
environments); tools/hfconfig_oracle.py compares the same class on generated configs.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

#: one release per transformers line that has the class: 5.24.0, 5.17.0, 5.19.0, 5.20.2
RELEASES = ["0.26.0", "0.31.0", "0.32.0", "0.33.0"]


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


def granite_speech_plus(encoder: "dict | None" = None, projector: "dict | None" = None, **extra) -> dict:
    cfg = {"architectures": ["GraniteSpeechPlusForConditionalGeneration"], "model_type": "granite_speech_plus",
           **extra}
    if encoder is not None:
        cfg["encoder_config"] = encoder
    if projector is not None:
        cfg["projector_config"] = projector
    return cfg


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "layers", "encoder_hidden_size", "hidden_dim"), [
    (granite_speech_plus(), None, 1408, 1024),
    (granite_speech_plus({"cat_hidden_layers": None}), None, 1408, 1024),
    (granite_speech_plus({"cat_hidden_layers": [3]}, {"encoder_hidden_size": 2048}), [3], 2048, 1024),
    (granite_speech_plus({"cat_hidden_layers": []}, {"encoder_hidden_size": 1024}), [], 1024, 1024),
    (granite_speech_plus({"cat_hidden_layers": [0, 9], "hidden_dim": 512}, {"encoder_hidden_size": 1536}),
     [0, 9], 1536, 512),
    (granite_speech_plus({"hidden_size": 512, "cat_hidden_layers": [1]}, {"encoder_hidden_size": 1024}),
     [1], 1024, 512),                                                  # hidden_size: the encoder's hidden_dim
    (granite_speech_plus({"cat_hidden_layers": [1, 1, 1]}, {"encoder_hidden_size": 4096}), [1, 1, 1], 4096, 1024),
])
def test_granite_speech_plus_concatenated_layers_accepted(rel, cfg, layers, encoder_hidden_size, hidden_dim):
    config = load(rel, cfg)
    assert (config.encoder_config.cat_hidden_layers, config.projector_config.encoder_hidden_size,
            config.encoder_config.hidden_dim) == (layers, encoder_hidden_size, hidden_dim)


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "exc_type", "first_line"), [
    (granite_speech_plus({"cat_hidden_layers": [3]}), "ValueError",
     "projector encoder_hidden_size 1408 must equal encoder hidden_dim * 2 = 2048."),
    (granite_speech_plus({"cat_hidden_layers": []}), "ValueError",
     "projector encoder_hidden_size 1408 must equal encoder hidden_dim * 1 = 1024."),
    (granite_speech_plus({"cat_hidden_layers": [10]}), "ValueError",
     "cat_hidden_layers index 10 is out of range [0, 10)."),
    (granite_speech_plus({"cat_hidden_layers": [-1]}), "ValueError",
     "cat_hidden_layers index -1 is out of range [0, 10)."),
    (granite_speech_plus({"cat_hidden_layers": [2, 12], "num_layers": 12}, {"encoder_hidden_size": 3072}),
     "ValueError", "cat_hidden_layers index 12 is out of range [0, 12)."),
    (granite_speech_plus({"cat_hidden_layers": [5, 40]}), "ValueError",   # the range before the sizes
     "cat_hidden_layers index 40 is out of range [0, 10)."),
    (granite_speech_plus({"cat_hidden_layers": [3]}, {"model_type": "granite"}), "AttributeError",
     "'GraniteConfig' object has no attribute 'encoder_hidden_size'"),
    (granite_speech_plus({"cat_hidden_layers": [3]}, {"encoder_hidden_size": 2048.0}),
     "StrictDataclassFieldValidationError", "Validation error for field 'encoder_hidden_size':"),
])
def test_granite_speech_plus_concatenated_layers_refused(rel, cfg, exc_type, first_line):
    with pytest.raises(LoadCrash) as err:
        load(rel, cfg)
    assert (err.value.exc_type, err.value.message.splitlines()[0]) == (exc_type, first_line)
