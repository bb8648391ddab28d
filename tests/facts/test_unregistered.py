"""Model types vLLM does not register, loaded the way transformers loads them.

Every expected value below was written by hand from what the real library answered for the same config
(``AutoConfig.from_pretrained`` on a directory holding it, in the oracle environments base-tf4.57.6 /
base-tf5.19.0 of tools/oracle_env.py, the line vLLM 0.10.2 / 0.32.0 runs with), not computed by kvguard.
"""

from __future__ import annotations

import pytest

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
