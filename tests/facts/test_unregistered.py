"""Model types vLLM does not register, loaded the way transformers loads them.

Every expected value below was written by hand from what the real library answered for the same config
(``AutoConfig.from_pretrained`` on a directory holding it, in the oracle environments base-tf4.57.6 /
base-tf5.19.0 of tools/oracle_env.py, the line vLLM 0.10.2 / 0.32.0 runs with), not computed by kvguard.
"""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import resolve

V4 = resolve("0.10.2")
V5_19 = resolve("0.32.0")


def crash(config: dict, rel) -> str:
    with pytest.raises(LoadCrash) as info:
        load_config(config, rel)
    return str(info.value)


# -- a keyword given twice: CPython names the function the call reaches by module and qualified name ------

def test_a_keyword_given_twice_to_the_parents_init_names_pretrainedconfig():
    # TimesFmConfig.__init__ calls super().__init__(is_encoder_decoder=self.is_encoder_decoder, **kwargs)
    assert crash({"model_type": "timesfm", "is_encoder_decoder": False}, V4) == (
        "TypeError: transformers.configuration_utils.PretrainedConfig.__init__() got multiple values for "
        "keyword argument 'is_encoder_decoder'")


def test_a_keyword_given_twice_to_a_class_call_names_the_class():
    # LightGlueConfig builds CONFIG_MAPPING[...](**keypoint_detector_config, attn_implementation="eager")
    config = {"model_type": "lightglue",
              "keypoint_detector_config": {"model_type": "superpoint", "attn_implementation": "sdpa"}}
    assert crash(config, V5_19) == (
        "TypeError: transformers.models.superpoint.configuration_superpoint.SuperPointConfig() got multiple "
        "values for keyword argument 'attn_implementation'")


# -- a type check on a plain value, and T5's activation spec --------------------------------------------

def test_udop_relative_bias_args_must_be_a_list():
    cfg = load_config({"model_type": "udop", "relative_bias_args": [{"type": "1d"}]}, V4)
    assert cfg.relative_bias_args == [{"type": "1d"}]
    assert (cfg.dense_act_fn, cfg.is_gated_act) == ("relu", False)
    assert crash({"model_type": "udop", "relative_bias_args": {"type": "1d"}}, V4) == (
        "TypeError: `relative_bias_args` should be a list of dictionaries.")


@pytest.mark.parametrize("model_type,spec,act,gated", [
    ("t5", "gated-gelu", "gelu_new", True),      # T5Config renames gated-gelu's activation afterwards
    ("umt5", "gated-silu", "silu", True),
    ("udop", "relu", "relu", False),
])
def test_feed_forward_proj_names_the_activation(model_type, spec, act, gated):
    cfg = load_config({"model_type": model_type, "feed_forward_proj": spec}, V4)
    assert (cfg.dense_act_fn, cfg.is_gated_act) == (act, gated)


@pytest.mark.parametrize("model_type,spec,message", [
    ("t5", "gated-a-b",
     "ValueError: `feed_forward_proj`: gated-a-b is not a valid activation function of the dense layer. Please "
     "make sure `feed_forward_proj` is of the format `gated-{ACT_FN}` or `{ACT_FN}`, e.g. 'gated-gelu' or 'relu'"),
    # UdopConfig's message has no space between its two sentences
    ("udop", "new-gelu",
     "ValueError: `feed_forward_proj`: new-gelu is not a valid activation function of the dense layer.Please "
     "make sure `feed_forward_proj` is of the format `gated-{ACT_FN}` or `{ACT_FN}`, e.g. 'gated-gelu' or 'relu'"),
    ("udop", None, "AttributeError: 'NoneType' object has no attribute 'split'"),
])
def test_feed_forward_proj_of_another_shape_raises(model_type, spec, message):
    assert crash({"model_type": model_type, "feed_forward_proj": spec}, V4) == message


# -- properties: getters computed from other attributes, setters that refuse ----------------------------

def test_prophetnet_num_hidden_layers_is_the_encoders():
    cfg = load_config({"model_type": "prophetnet", "num_encoder_layers": 5, "num_decoder_layers": 7}, V4)
    assert cfg.num_hidden_layers == 5


def test_xlm_prophetnet_num_hidden_layers_counts_both_stacks():
    cfg = load_config({"model_type": "xlm-prophetnet", "num_encoder_layers": 5, "num_decoder_layers": 7}, V4)
    assert cfg.num_hidden_layers == 12
    cfg = load_config({"model_type": "xlm-prophetnet", "num_encoder_layers": None}, V4)
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \+: 'NoneType' and 'int'$"):
        cfg.num_hidden_layers  # noqa: B018


@pytest.mark.parametrize("model_type", ["prophetnet", "xlm-prophetnet"])
def test_setting_prophetnet_num_hidden_layers_raises(model_type):
    assert crash({"model_type": model_type, "num_hidden_layers": 3}, V4) == (
        "NotImplementedError: This model does not support the setting of `num_hidden_layers`. Please set "
        "`num_encoder_layers` and `num_decoder_layers`.")


@pytest.mark.parametrize("config,sizes", [
    ({"hidden_size": 2048, "num_heads": 8}, (256, 128, 2048, 1024)),
    # 1000 and 500 rounded up to multiples of 64
    ({"hidden_size": 1000, "num_heads": 4, "qk_dim_factor": 0.5}, (256, 128, 1024, 512)),
])
def test_xlstm_head_sizes(config, sizes):
    cfg = load_config({"model_type": "xlstm", **config}, V4)
    assert (cfg.v_head_dim, cfg.qk_head_dim, cfg.v_dim, cfg.qk_dim) == sizes


def test_xlstm_head_size_of_an_unset_factor_raises():
    cfg = load_config({"model_type": "xlstm", "v_dim_factor": None}, V4)
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \*: 'int' and 'NoneType'$"):
        cfg.v_head_dim  # noqa: B018


# -- a class's own from_dict: timm's label keys -----------------------------------------------------------

def test_timm_label_names_become_the_label_maps():
    cfg = load_config({"model_type": "timm_wrapper", "num_classes": 3, "label_names": ["a", "b", "c"],
                       "pretrained_cfg": {"num_classes": 3, "x": 1}}, V4)
    assert not hasattr(cfg, "num_classes")
    assert (cfg.num_labels, cfg.id2label, cfg.label2id) == (3, {0: "a", 1: "b", 2: "c"}, {"a": 0, "b": 1, "c": 2})
    assert cfg.pretrained_cfg == {"x": 1}


def test_repeated_timm_label_names_have_no_reverse_map():
    cfg = load_config({"model_type": "gemma3n_vision", "num_classes": 2, "label_names": ["a", "a"]}, V4)
    assert not hasattr(cfg, "num_classes")
    assert (cfg.num_labels, cfg.id2label, cfg.label2id) == (2, {0: "a", 1: "a"}, None)


@pytest.mark.parametrize("extra,num_labels", [({"num_classes": 5}, "5"), ({}, "None")])
def test_timm_class_count_must_match_the_label_names(extra, num_labels):
    assert crash({"model_type": "timm_wrapper", "label_names": ["a", "b"], **extra}, V4) == (
        f"ValueError: You passed along `num_labels={num_labels}` with an incompatible id to label map: "
        "{0: 'a', 1: 'b'}. Since those arguments are inconsistent with each other, you should remove one of them.")


def test_timm_without_label_names_depends_on_the_timm_package():
    # the oracle environment has no timm: ImportError; with timm installed, ImageNet's labels
    with pytest.raises(Undecidable, match="timm"):
        load_config({"model_type": "timm_wrapper", "num_classes": 2}, V4)



# transformers 5: TimmWrapperConfig / Gemma3nVisionConfig.from_dict copy the dict first, then the same (their
# to_dict, which the logged repr calls, is not followed: a config that loads is Undecidable there)

def test_timm_label_keys_on_transformers_5():
    # label names without a class count: PreTrainedConfig's num_labels setter gets None
    assert crash({"model_type": "timm_wrapper", "label_names": ["a", "b"]}, V5_19) == (
        "TypeError: 'NoneType' object cannot be interpreted as an integer")
    with pytest.raises(Undecidable, match="timm"):
        load_config({"model_type": "timm_wrapper", "num_classes": 2}, V5_19)


def test_dorys_own_from_dict_is_followed():
    # DoryConfig.from_dict (transformers 5.24) only moves an n_recurrent_loops keyword into the dict; get_config
    # passes none, so the field checks of the dict decide
    assert crash({"model_type": "dory", "n_recurrent_loops": "x"}, resolve("0.30.0")) == (
        "StrictDataclassFieldValidationError: Validation error for field 'n_recurrent_loops':\n"
        "    TypeError: Field 'n_recurrent_loops' expected int, got str (value: 'x')")


# -- an attribute of a sub-config copied from the object itself -------------------------------------------

def test_dbrx_copies_its_model_width_into_the_ffn_config():
    # DbrxConfig.__post_init__ (transformers 5): self.ffn_config.hidden_size = self.d_model
    cfg = load_config({"model_type": "dbrx", "d_model": 512, "ffn_config": {"ffn_hidden_size": 100}}, resolve("0.24.0"))
    assert (cfg.ffn_config.hidden_size, cfg.ffn_config.ffn_hidden_size) == (512, 100)
