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
