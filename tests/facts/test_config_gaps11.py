"""Granite Speech Plus's encoder-layer checks, HRM-Text's layer count, embedding scale and attention setter, vLLM's
Beam, MiniCPM-V 4.6 / 4.7's vision config and Gemma 4 unified's model patch size.

``GraniteSpeechPlusConfig`` (``transformers/models/granite_speech_plus/configuration_granite_speech_plus.py``,
transformers 5.17.0 – 5.24.0, vLLM 0.24.0+): once its sub-configs are built, when the encoder config has
``cat_hidden_layers`` (not None), each index must lie in [0, the encoder's ``num_layers``), and the projector's
``encoder_hidden_size`` must equal the encoder's ``hidden_dim`` times one more than the number of indices (an
empty list: times one).  The range check comes first.

Expected values were read off the real classes (``get_config`` of vLLM 0.24.0, 0.31.0 and 0.33.0 in their oracle
environments); tools/hfconfig_oracle.py compares the same class on generated configs.

``HrmTextConfig`` (``transformers/models/hrm_text/configuration_hrm_text.py``, transformers 5.17.0 – 5.24.0, vLLM
0.24.0+): without ``num_layers_per_stack`` the given ``num_hidden_layers`` is the per-stack count, kept there, and
``num_hidden_layers`` becomes per-stack x ``H_cycles`` x (``L_cycles`` + 1); with it both stay as given.
``embedding_scale`` defaults to 1 / ``initializer_range``.  Its ``_attn_implementation`` setter refuses a flash
implementation ("flash" in the value) while ``prefix_lm`` is true, then is PreTrainedConfig's; transformers 5.17
first strips a ``paged|`` prefix with str methods (a dict or list value: AttributeError), the later lines test
``"flash" in`` the value itself (a dict: its keys).  The fields are checked before any of this.  Expected values
from ``get_config`` of vLLM 0.26.0, 0.31.0, 0.32.0 and 0.33.0.

vLLM's ``BeamConfig`` (``vllm/transformers_utils/configs/beam.py``, 0.33.0): ``layer_types`` (default every layer
sliding) and ``mlp_layer_types`` (default every layer sparse) must have one allowed entry per layer; RoPE parameters
(default ``{"rope_type": "default", "rope_theta": 10000.0}``) keyed by attention kinds only must hold exactly one
entry that is not None, which replaces them; the token ids and ``tie_word_embeddings`` go to PreTrainedConfig.
Expected values from ``get_config`` of vLLM 0.33.0.

``MiniCPMV4_6Config`` / ``MiniCPMV4_7Config`` (``transformers/models/minicpmv4_6``, ``minicpmv4_7``; 4.6 on vLLM
0.24.0+, 4.7 on 0.32.0+): on transformers 5.17 / 5.19 a vision config given as a dict is built from it less its
``model_type`` (popped), so the vision class's own model type stands whatever the checkpoint names (5.20 / 5.24's
sub_configs_defaults keep the one given); the vision
config's ``window_hidden_size`` / ``window_intermediate_size`` are properties: the size times both window kernel
sides (a one-item kernel: IndexError when read).  Expected values from ``get_config`` of vLLM 0.26.0, 0.31.0,
0.32.0 and 0.33.0.

``Gemma4UnifiedVisionConfig`` (``transformers/models/gemma4_unified``, served through transformers on vLLM 0.31.0
and 0.32.0): ``model_patch_size`` is a property, ``patch_size`` x ``pooling_kernel_size``; assigning it (a
``model_patch_size`` key in the vision config) refuses any other value (``!=``: 48.0 passes, "48" does not) and
stores nothing.  Expected values from ``get_config`` of vLLM 0.31.0 and 0.32.0.
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


def hrm_text(**extra) -> dict:
    return {"architectures": ["HrmTextForCausalLM"], "model_type": "hrm_text", **extra}


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "layers", "per_stack", "scale"), [
    (hrm_text(), 128, 16, 50.0),                                          # 16 x 2 x (3 + 1)
    (hrm_text(num_hidden_layers=24, H_cycles=1, L_cycles=1), 48, 24, 50.0),
    (hrm_text(num_layers_per_stack=16, num_hidden_layers=128), 128, 16, 50.0),   # a round trip
    (hrm_text(num_layers_per_stack=4, num_hidden_layers=7), 7, 4, 50.0),   # both given: kept, not checked
    (hrm_text(num_layers_per_stack=None, num_hidden_layers=3, H_cycles=2, L_cycles=0), 6, 3, 50.0),
    (hrm_text(num_hidden_layers=0), 0, 0, 50.0),
    (hrm_text(H_cycles=0), 0, 16, 50.0),
    (hrm_text(embedding_scale=12.0), 128, 16, 12.0),
    (hrm_text(embedding_scale=None), 128, 16, 50.0),
    (hrm_text(initializer_range=0.5), 128, 16, 2.0),
])
def test_hrm_text_layers_per_stack_and_embedding_scale(rel, cfg, layers, per_stack, scale):
    config = load(rel, cfg)
    assert (config.num_hidden_layers, config.num_layers_per_stack, config.embedding_scale, config.L_bp_cycles) == \
        (layers, per_stack, scale, [2])


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "implementation"), [
    (hrm_text(), None),
    (hrm_text(attn_implementation="sdpa"), "sdpa"),
    (hrm_text(attn_implementation="paged|sdpa"), "paged|sdpa"),
    (hrm_text(attn_implementation="eager", prefix_lm=True), "eager"),
    (hrm_text(attn_implementation="FLASH"), "FLASH"),                    # "flash" in it, case-sensitively
    (hrm_text(attn_implementation="flash_attention_2", prefix_lm=False), "flash_attention_2"),
    (hrm_text(attn_implementation=5, prefix_lm=False), 5),
])
def test_hrm_text_attention_implementation_accepted(rel, cfg, implementation):
    assert load(rel, cfg)._attn_implementation == implementation


REFUSED_FLASH = ("is not supported when `config.prefix_lm=True`: FlashAttention cannot represent the PrefixLM 4-D "
                 "mask overlay. Use `'sdpa'` (default) or `'flex_attention'`, or set `config.prefix_lm=False`.")


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "exc_type", "first_line"), [
    (hrm_text(attn_implementation="flash_attention_2"), "ValueError",
     "`attn_implementation='flash_attention_2'` " + REFUSED_FLASH),
    (hrm_text(attn_implementation="paged|flash_attention_2"), "ValueError",
     "`attn_implementation='paged|flash_attention_2'` " + REFUSED_FLASH),
    (hrm_text(attn_implementation="kernels-community/vllm-flash-attn3"), "ValueError",
     "`attn_implementation='kernels-community/vllm-flash-attn3'` " + REFUSED_FLASH),
    (hrm_text(initializer_range=0), "StrictDataclassFieldValidationError",
     "Validation error for field 'initializer_range':"),
    (hrm_text(num_hidden_layers=None), "StrictDataclassFieldValidationError",
     "Validation error for field 'num_hidden_layers':"),
    (hrm_text(H_cycles="2"), "StrictDataclassFieldValidationError", "Validation error for field 'H_cycles':"),
    (hrm_text(prefix_lm=None, attn_implementation="flash_attention_2"), "StrictDataclassFieldValidationError",
     "Validation error for field 'prefix_lm':"),
    (hrm_text(hidden_size=1000), "StrictDataclassClassValidationError",
     "Class validation error for validator 'validate_architecture':"),
])
def test_hrm_text_refusals(rel, cfg, exc_type, first_line):
    with pytest.raises(LoadCrash) as err:
        load(rel, cfg)
    assert (err.value.exc_type, err.value.message.splitlines()[0]) == (exc_type, first_line)


@pytest.mark.parametrize(("rel", "cfg", "outcome"), [
    # transformers 5.17 (vLLM 0.31.0) strips the paged prefix with str methods first
    ("0.31.0", hrm_text(attn_implementation={"": "sdpa"}), ("AttributeError", "'dict' object has no attribute 'startswith'")),
    ("0.31.0", hrm_text(attn_implementation=["flash"]), ("AttributeError", "'list' object has no attribute 'startswith'")),
    ("0.31.0", hrm_text(attn_implementation=5), ("AttributeError", "'int' object has no attribute 'startswith'")),
    ("0.26.0", hrm_text(attn_implementation={"": "sdpa"}), "sdpa"),      # a dict's keys: no "flash" key
    ("0.33.0", hrm_text(attn_implementation={"": "sdpa"}), "sdpa"),
    ("0.33.0", hrm_text(attn_implementation={"flash": "x"}),
     ("ValueError", "`attn_implementation={'flash': 'x'}` " + REFUSED_FLASH)),
    ("0.32.0", hrm_text(attn_implementation=["flash"]), ("ValueError", "`attn_implementation=['flash']` " + REFUSED_FLASH)),
    ("0.33.0", hrm_text(attn_implementation=5), ("TypeError", "argument of type 'int' is not iterable")),
])
def test_hrm_text_attention_implementation_values_by_line(rel, cfg, outcome):
    if isinstance(outcome, tuple):
        with pytest.raises(LoadCrash) as err:
            load(rel, cfg)
        assert (err.value.exc_type, err.value.message.splitlines()[0]) == outcome
    else:
        assert load(rel, cfg)._attn_implementation == outcome


@pytest.mark.parametrize(("rel", "outcome"), [
    ("0.31.0", -10.0),          # transformers 5.17's interval has no lower bound: a negative scale
    ("0.26.0", "Validation error for field 'initializer_range':"),
    ("0.32.0", "Validation error for field 'initializer_range':"),
    ("0.33.0", "Validation error for field 'initializer_range':"),
])
def test_hrm_text_negative_initializer_range(rel, outcome):
    cfg = hrm_text(initializer_range=-0.1)
    if isinstance(outcome, float):
        assert load(rel, cfg).embedding_scale == outcome
        return
    with pytest.raises(LoadCrash) as err:
        load(rel, cfg)
    assert (err.value.exc_type, err.value.message.splitlines()[0]) == ("StrictDataclassFieldValidationError", outcome)


def beam(**extra) -> dict:
    return {"architectures": ["BeamForCausalLM"], "model_type": "beam", **extra}


SLIDING = {"rope_type": "default", "rope_theta": 10000.0}
FOUR = ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]


@pytest.mark.parametrize(("cfg", "layers", "layer_types", "mlp_layer_types", "rope"), [
    (beam(), 24, ["sliding_attention"] * 24, ["sparse"] * 24, SLIDING),
    (beam(num_hidden_layers=4, layer_types=FOUR), 4, FOUR, ["sparse"] * 4, SLIDING),
    (beam(num_hidden_layers=0), 0, [], [], SLIDING),
    (beam(layer_types=[], num_hidden_layers=0, mlp_layer_types=[]), 0, [], [], SLIDING),
    (beam(rope_parameters={"sliding_attention": SLIDING, "full_attention": None}), 24, ["sliding_attention"] * 24,
     ["sparse"] * 24, SLIDING),                                                # NoPE full attention: one entry
    (beam(rope_parameters={"rope_type": "default", "rope_theta": 500000.0}), 24, ["sliding_attention"] * 24,
     ["sparse"] * 24, {"rope_type": "default", "rope_theta": 500000.0}),
    (beam(rope_parameters={"full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}}), 24,
     ["sliding_attention"] * 24, ["sparse"] * 24, {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}),
    (beam(rope_parameters={"sliding_attention": SLIDING, "full_attention": None, "x": None}), 24,
     ["sliding_attention"] * 24, ["sparse"] * 24,
     {"sliding_attention": SLIDING, "full_attention": None, "x": None}),        # another key: kept as given
    (beam(rope_parameters={"sliding_attention": {"rope_type": "default"}}), 24, ["sliding_attention"] * 24,
     ["sparse"] * 24, {"rope_type": "default", "rope_theta": None}),
])
def test_beam_layer_types_and_rope_parameters(cfg, layers, layer_types, mlp_layer_types, rope):
    config = load("0.33.0", cfg)
    assert (config.num_hidden_layers, config.layer_types, config.mlp_layer_types, config.rope_parameters) == \
        (layers, layer_types, mlp_layer_types, rope)


def test_beam_token_ids_and_architectures():
    config = load("0.33.0", beam(bos_token_id=1, eos_token_id=[2, 3], pad_token_id=0, tie_word_embeddings=True))
    assert (config.bos_token_id, config.eos_token_id, config.pad_token_id, config.tie_word_embeddings,
            config.architectures) == (1, [2, 3], 0, True, ["BeamForCausalLM"])
    assert load("0.33.0", {"model_type": "beam"}).architectures == ["BeamForCausalLM"]
    assert load("0.33.0", beam(architectures=["Other"])).architectures == ["Other"]


@pytest.mark.parametrize(("cfg", "exc_type", "first_line"), [
    (beam(num_hidden_layers=4), None, None),
    (beam(num_hidden_layers=4, layer_types=FOUR[:3]), "ValueError",
     "layer_types must contain one valid attention type per layer."),
    (beam(num_hidden_layers=2, layer_types=["sliding_attention", "mamba"]), "ValueError",
     "layer_types must contain one valid attention type per layer."),
    (beam(num_hidden_layers=2, layer_types=[None, "full_attention"]), "ValueError",
     "layer_types must contain one valid attention type per layer."),
    (beam(layer_types="sliding_attention", num_hidden_layers=17), "ValueError",   # a string of 17 letters
     "layer_types must contain one valid attention type per layer."),
    (beam(num_hidden_layers=-1), "ValueError",                                    # an empty default, not -1 long
     "layer_types must contain one valid attention type per layer."),
    (beam(num_hidden_layers=2, mlp_layer_types=["dense", "moe"]), "ValueError",
     "mlp_layer_types must contain one 'dense' or 'sparse' entry per layer."),
    (beam(num_hidden_layers=2, mlp_layer_types=["dense"]), "ValueError",
     "mlp_layer_types must contain one 'dense' or 'sparse' entry per layer."),
    (beam(rope_parameters={"sliding_attention": SLIDING, "full_attention": {"rope_type": "default",
                                                                              "rope_theta": 1e6}}),
     "ValueError", "Beam expects RoPE parameters for exactly one type."),
    (beam(rope_parameters={"sliding_attention": None, "full_attention": None}), "ValueError",
     "Beam expects RoPE parameters for exactly one type."),
    (beam(rope_parameters={}), "ValueError", "Beam expects RoPE parameters for exactly one type."),
    (beam(rope_parameters=None), "TypeError", "'NoneType' object is not iterable"),
    (beam(rope_parameters=[]), "AttributeError", "'list' object has no attribute 'values'"),
    (beam(num_hidden_layers=None), "TypeError", "can't multiply sequence by non-int of type 'NoneType'"),
    (beam(num_hidden_layers="4"), "TypeError", "can't multiply sequence by non-int of type 'str'"),
])
def test_beam_refusals(cfg, exc_type, first_line):
    if exc_type is None:
        assert load("0.33.0", cfg).num_hidden_layers == 4
        return
    with pytest.raises(LoadCrash) as err:
        load("0.33.0", cfg)
    assert (err.value.exc_type, err.value.message.splitlines()[0]) == (exc_type, first_line)


def minicpmv(model_type: str = "minicpmv4_6", **extra) -> dict:
    return {"architectures": ["MiniCPMV4_6ForConditionalGeneration"], "model_type": model_type, **extra}


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize(("cfg", "expected"), [
    # (window hidden size, window intermediate size, insert layer, patch size, vision hidden size)
    (minicpmv(), (3072, 12288, 6, 16, 768)),
    (minicpmv(vision_config={}), (3072, 12288, 6, 16, 768)),
    (minicpmv(vision_config=None), (3072, 12288, 6, 16, 768)),
    (minicpmv(vision_config={"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                             "patch_size": 14}), (4608, 17216, 6, 14, 1152)),
    (minicpmv(vision_config={"model_type": "bogus"}), (3072, 12288, 6, 16, 768)),
    (minicpmv(vision_config={"window_kernel_size": [3, 1]}), (2304, 9216, 6, 16, 768)),
    (minicpmv(vision_config={"window_kernel_size": [2, 2, 5]}), (3072, 12288, 6, 16, 768)),
    (minicpmv(insert_layer_id=3, vision_config={"insert_layer_id": 9}), (3072, 12288, 3, 16, 768)),
    (minicpmv(vision_config={"hidden_size": 100, "window_kernel_size": [0, 4]}),
     (0, 0, 6, 16, 100)),
])
def test_minicpmv4_6_vision_config(rel, cfg, expected):
    config = load(rel, cfg)
    vision = config.vision_config
    assert (vision.window_hidden_size, vision.window_intermediate_size, vision.insert_layer_id,
            config.patch_size, vision.hidden_size) == expected


@pytest.mark.parametrize("rel", RELEASES)
def test_minicpmv4_6_one_sided_window_kernel(rel):
    vision = load(rel, minicpmv(vision_config={"window_kernel_size": [2]})).vision_config
    with pytest.raises(IndexError):
        _ = vision.window_hidden_size


@pytest.mark.parametrize(("rel", "given", "model_type"), [
    ("0.26.0", {}, "minicpmv4_6_vision"),
    ("0.31.0", {"model_type": "bogus"}, "minicpmv4_6_vision"),      # popped before the build (5.17 / 5.19)
    ("0.32.0", {"model_type": "siglip_vision_model"}, "minicpmv4_6_vision"),
    ("0.26.0", {"model_type": "bogus"}, "bogus"),                  # kept (5.20 / 5.24)
    ("0.33.0", {"model_type": "siglip_vision_model"}, "siglip_vision_model"),
])
def test_minicpmv4_6_vision_model_type_by_line(rel, given, model_type):
    assert load(rel, minicpmv(vision_config=given)).vision_config.model_type == model_type


@pytest.mark.parametrize(("rel", "model_type"), [("0.32.0", "minicpmv4_7_vision"), ("0.33.0", "x")])
def test_minicpmv4_7_vision_config(rel, model_type):
    config = load(rel, minicpmv("minicpmv4_7", vision_config={"model_type": "x", "window_kernel_size": [1, 3],
                                                              "hidden_size": 64, "intermediate_size": 128}))
    vision = config.vision_config
    assert (vision.model_type, vision.window_hidden_size, vision.window_intermediate_size) == (model_type, 192, 384)


def gemma4_unified(**vision) -> dict:
    return {"architectures": ["Gemma4UnifiedForConditionalGeneration"], "model_type": "gemma4_unified",
            "vision_config": vision}


PATCH_REFUSED = "`model_patch_size` needs to be equal to self.patch_size = 16 * self.pooling_kernel_size = 3"


@pytest.mark.parametrize("rel", ["0.31.0", "0.32.0"])
@pytest.mark.parametrize(("vision", "outcome"), [
    ({}, (48, 16, 3)),
    ({"model_patch_size": 48}, (48, 16, 3)),
    ({"model_patch_size": 48.0}, (48, 16, 3)),
    ({"patch_size": 14}, (42, 14, 3)),
    ({"patch_size": 14, "model_patch_size": 42}, (42, 14, 3)),
    ({"patch_size": 14, "pooling_kernel_size": 2, "model_patch_size": 28}, (28, 14, 2)),
    ({"model_patch_size": 47}, PATCH_REFUSED),
    ({"model_patch_size": None}, PATCH_REFUSED),
    ({"model_patch_size": "48"}, PATCH_REFUSED),
    ({"model_patch_size": [48]}, PATCH_REFUSED),
])
def test_gemma4_unified_model_patch_size(rel, vision, outcome):
    if isinstance(outcome, str):
        with pytest.raises(LoadCrash) as err:
            load(rel, gemma4_unified(**vision))
        assert (err.value.exc_type, err.value.message.splitlines()[0]) == ("ValueError", outcome)
        return
    config = load(rel, gemma4_unified(**vision)).vision_config
    assert (config.model_patch_size, config.patch_size, config.pooling_kernel_size) == outcome
