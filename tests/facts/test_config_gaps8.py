"""HunYuan-VL (HunyuanOCR) and OpenVLA.

Mirrors ``HunYuanVLConfig`` and ``HunYuanVLTextConfig`` (``transformers/models/hunyuan_vl/configuration_hunyuan_vl.py``,
transformers 5.17.0 / 5.19.0 for vLLM 0.31.0 / 0.32.0, 5.24.0 for 0.29.0 / 0.30.0, 5.20.2 for 0.33.0): a flat
checkpoint's text keys (the text class's dataclass names, its aliases, ``rope_scaling`` / ``rope_theta``) folded into the
text config -- on 5.20+ only when no text config is given, on 5.17 / 5.19 always (over a given one), with the top-level
``tie_word_embeddings`` then taken from the text config; the legacy ``xdrope_section`` read as ``mrope_section`` and the
``xdrope`` rope type as ``dynamic``; the sections checked against half the head size.  vLLM's own ``HunYuanVLConfig``
(``vllm/transformers_utils/configs/hunyuan_vl.py``, 0.12.0-0.28.0, on transformers 4.57.6 and 5.24.0) forwards
attribute reads and writes to its text config.
Also vLLM's ``OpenVLAConfig`` (``vllm/transformers_utils/configs/openvla.py``, 0.22.0+): its Llama text config built
from a copy of the given dict with default architectures, or from LlamaConfig's defaults when none is given.
Expected values were read off the real classes in the releases' oracle environments (``get_config``);
tools/hfconfig_oracle.py compares the same classes on generated configs (the ``hunyuan_vl`` and ``openvla`` templates).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard import model_facts
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

DECIDED = ["0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"]

# shaped like tencent/HunyuanOCR's flat config.json: text keys at the top level, with their aliases
FLAT = {
    "architectures": ["HunYuanVLForConditionalGeneration"], "model_type": "hunyuan_vl", "attention_head_dim": 128,
    "head_dim": 128, "hidden_size": 1024, "intermediate_size": 3584, "max_position_embeddings": 32768,
    "num_attention_heads": 16, "num_hidden_layers": 24, "num_key_value_heads": 8, "org_vocab_size": 120818,
    "vocab_size": 120818, "pad_id": 120002, "rope_theta": 10000.0, "tie_word_embeddings": True,
    "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
                     "mscale_all_dim": 1.0, "type": "xdrope", "xdrope_section": [16, 16, 16, 16]},
    "torch_dtype": "bfloat16",
    "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "num_attention_heads": 16,
                      "num_hidden_layers": 27, "out_hidden_size": 1024, "patch_size": 16, "spatial_merge_size": 2},
}


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


def nested(rope_parameters: dict, **text) -> dict:
    return {"architectures": ["HunYuanVLForConditionalGeneration"], "model_type": "hunyuan_vl",
            "text_config": {"hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                            "num_hidden_layers": 24, "rope_parameters": rope_parameters, **text}}


ALIAS = {"rope_type": "xdrope", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0,
         "xdrope_section": [16, 16, 16, 16]}


@pytest.mark.parametrize("rel", DECIDED)
def test_flat_checkpoint_folds_its_text_keys(rel):
    obj = load(rel, dict(FLAT))
    text = obj.text_config
    # model_type is one of the text class's dataclass names (a class-level annotation): it is folded too
    assert text.model_type == "hunyuan_vl"
    assert (text.max_position_embeddings, text.head_dim, text.num_key_value_heads) == (32768, 128, 8)
    assert text.rope_parameters == {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
                                    "mscale_all_dim": 1.0, "type": "dynamic", "rope_theta": 10000.0,
                                    "rope_type": "dynamic", "mrope_section": [16, 16, 16, 16]}
    assert obj.vision_config.text_hidden_size == 1024
    assert obj.tie_word_embeddings is True


@pytest.mark.parametrize(("rel", "model_type"), [
    ("0.29.0", "hunyuan_vl_text"), ("0.30.0", "hunyuan_vl_text"), ("0.33.0", "hunyuan_vl_text"),
    # 5.17 / 5.19 fold the top level's text keys over the given text config: model_type among them
    ("0.31.0", "hunyuan_vl"), ("0.32.0", "hunyuan_vl"),
])
def test_nested_text_config_keeps_the_class_defaults(rel, model_type):
    text = load(rel, nested(dict(ALIAS, mrope_section=[16.0, 16, 16, 16]))).text_config
    assert text.model_type == model_type
    assert text.max_position_embeddings == 2048
    assert text.rope_parameters == {"rope_type": "dynamic", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0,
                                    "mrope_section": [16, 16, 16, 16]}


@pytest.mark.parametrize(("rel", "tied"), [("0.29.0", True), ("0.33.0", True), ("0.31.0", False), ("0.32.0", False)])
def test_tie_word_embeddings_from_the_text_config_on_5_17_and_5_19(rel, tied):
    """5.17 / 5.19 pass the text config's ``tie_word_embeddings`` to PreTrainedConfig unless a keyword gives one;
    5.20+ only turn it on from the text config."""
    obj = load(rel, nested(dict(ALIAS), tie_word_embeddings=False))
    assert obj.tie_word_embeddings is tied
    assert obj.text_config.tie_word_embeddings is False


def test_whole_float_sections_become_ints():
    text = load("0.33.0", nested({"rope_type": "default", "rope_theta": 10000.0,
                                  "mrope_section": [16.0, 16.0, 16, 16]})).text_config
    assert text.rope_parameters == {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [16, 16, 16, 16]}


@pytest.mark.parametrize(("rel", "cfg", "message"), [
    ("0.33.0", nested({"rope_type": "xdrope", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0,
                       "xdrope_section": [16, 16, 16, 16], "mrope_section": [8, 24, 16, 16]}),
     "`rope_parameters` contains both `mrope_section` and legacy `xdrope_section`, but they differ: "
     "mrope_section=[8, 24, 16, 16], xdrope_section=[16, 16, 16, 16]."),
    ("0.29.0", nested(dict(ALIAS, xdrope_section=[16, 16, 16])),
     "Illegal mrope partition: expected half-head sections summing to 64, got [16, 16, 16]"),
    ("0.32.0", nested({"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [16.5, 15.5, 16, 16]}),
     "Illegal mrope partition: expected half-head sections summing to 64, got [16, 15, 16, 16]"),
    # without head_dim the sections are checked against hidden_size // num_attention_heads // 2 = 32
    ("0.30.0", {k: v for k, v in FLAT.items() if k not in ("head_dim", "attention_head_dim")},
     "Illegal mrope partition: expected half-head sections summing to 32, got [16, 16, 16, 16]"),
])
def test_mrope_section_errors(rel, cfg, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, cfg)
    assert (info.value.exc_type, info.value.message) == ("ValueError", message)


@pytest.mark.parametrize(("rel", "sections", "message"), [
    ("0.33.0", 64, "'int' object is not iterable"),
    ("0.31.0", [16, None, 16, 16], "float() argument must be a string or a real number, not 'NoneType'"),
])
def test_sections_python_cannot_read_raise_its_type_error(rel, sections, message):
    with pytest.raises(LoadCrash) as info:
        load(rel, nested(dict(ALIAS, xdrope_section=sections)))
    assert (info.value.exc_type, info.value.message) == ("TypeError", message)


def test_launch_facts_come_from_the_folded_text_config():
    facts = model_facts(dict(FLAT), vllm_version="0.33.0")
    assert (facts.total_num_attention_heads, facts.total_num_kv_heads, facts.head_size) == (16, 8, 128)


@pytest.mark.parametrize("rel", ["0.12.0", "0.20.0", "0.23.0", "0.24.0", "0.28.0"])
def test_vllms_class_reads_through_to_the_text_config(rel):
    """Every name the text config holds is read from it (``architectures`` too), apart from a few of the class's
    own; a flat checkpoint gives all its keys to the text config."""
    obj = load(rel, dict(FLAT))
    assert (obj.hidden_size, obj.num_key_value_heads, obj.max_position_embeddings) == (1024, 8, 32768)
    assert obj.architectures == ["HunYuanVLForConditionalGeneration"]
    assert obj.model_type == "hunyuan_vl"
    assert obj.tie_word_embeddings is True


@pytest.mark.parametrize(("rel", "architectures"), [
    # the text config was built without architectures: the top level reads its value
    ("0.20.0", None),
    ("0.24.0", ["HunYuanVLModel"]), ("0.28.0", ["HunYuanVLModel"]),
])
def test_vllms_class_with_a_nested_text_config(rel, architectures):
    obj = load(rel, nested(dict(ALIAS), tie_word_embeddings=False))
    assert obj.architectures == architectures
    assert (obj.hidden_size, obj.num_key_value_heads, obj.max_position_embeddings) == (1024, 8, 2048)
    assert obj.tie_word_embeddings is False


def openvla(**extra) -> dict:
    cfg = {"architectures": ["OpenVLAForActionPrediction"], "model_type": "openvla", "n_action_bins": 256}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize("rel", ["0.22.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize(("text", "architectures", "kv_heads", "vocab"), [
    # openvla/openvla-7b's text config: LlamaForCausalLM by default
    ({"model_type": "llama", "pad_token_id": 32000, "vocab_size": 32064}, ["LlamaForCausalLM"], 32, 32064),
    (None, ["LlamaForCausalLM"], 32, 32000),        # no text config: LlamaConfig's defaults
    ({}, ["LlamaForCausalLM"], 32, 32000),
    ({"architectures": ["MistralForCausalLM"], "num_key_value_heads": 4}, ["MistralForCausalLM"], 4, 32000),
    ({"architectures": None, "num_key_value_heads": 8}, None, 8, 32000),   # an explicit None is kept
])
def test_openvla_text_config(rel, text, architectures, kv_heads, vocab):
    cfg = openvla() if text is None else openvla(text_config=text)
    obj = load(rel, cfg)
    assert obj.architectures == ["OpenVLAForActionPrediction"]
    assert obj.text_config.architectures == architectures
    assert (obj.text_config.num_key_value_heads, obj.text_config.vocab_size) == (kv_heads, vocab)
    assert obj.text_config.model_type == "llama"


def test_openvla_keeps_a_text_config_that_is_no_dict():
    assert load("0.33.0", openvla(text_config=5)).text_config == 5
    assert load("0.22.0", openvla(text_config=[])).text_config == []


def test_openvla_dict_given_is_not_changed():
    text = {"num_key_value_heads": 4}
    load("0.28.0", openvla(text_config=text))
    assert text == {"num_key_value_heads": 4}
