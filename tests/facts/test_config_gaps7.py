"""vLLM's own configuration classes kvguard follows from stop 36 on.

Mirrors ``BagelConfig`` (``vllm/transformers_utils/configs/bagel.py``, vLLM 0.13.0+: the ``hidden_size``
property reads the language model's config), ``MiDashengLMConfig`` (``midashenglm.py``: the text config's
``rope_parameters`` set to None), ``Qwen3ASRConfig`` (``qwen3_asr.py``: its text config's transformers 4 RoPE validation
on transformers 5; the flat-key fallback is in test_config_gaps9.py) and ``FlintConfig`` (``vllm/models/flint/configs.py``,
vLLM 0.33.0: the RoPE parameters given, else default RoPE at ``rope_theta``; the layer-type count check); a statement
kvguard cannot read declines only the configs that reach it (transformers 5.20.2's ``BailingHybridConfig``).  Expected
values were read off the real classes in the releases' oracle environments; tests/upstream/differential.py and
tools/hfconfig_oracle.py compare the same classes with the releases on generated configs.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from kvguard import model_facts
from kvguard.errors import Undecidable
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release


def load(rel: str, cfg: dict):
    return load_config(cfg, Release(Version(rel)))


BAGEL_LLM = {"hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,
             "intermediate_size": 18944, "vocab_size": 152064, "max_position_embeddings": 32768}


@pytest.mark.parametrize("rel", ["0.13.0", "0.23.0", "0.28.0", "0.33.0"])
def test_bagel_hidden_size_is_its_language_models(rel):
    obj = load(rel, {"model_type": "bagel", "architectures": ["BagelForConditionalGeneration"],
                     "llm_config": dict(BAGEL_LLM)})
    assert obj.hidden_size == 3584
    assert obj.llm_config.num_key_value_heads == 4


@pytest.mark.parametrize("rel", ["0.13.0", "0.33.0"])
def test_bagel_without_llm_config_takes_qwen2_defaults(rel):
    obj = load(rel, {"model_type": "bagel", "architectures": ["BagelForConditionalGeneration"]})
    assert obj.hidden_size == 4096
    assert obj.llm_config.num_key_value_heads == 32


def test_bagel_launch_facts_come_from_the_language_model():
    facts = model_facts({"model_type": "bagel", "architectures": ["BagelForConditionalGeneration"],
                         "llm_config": dict(BAGEL_LLM)}, vllm_version="0.33.0")
    assert (facts.total_num_attention_heads, facts.total_num_kv_heads, facts.head_size) == (28, 4, 128)


def flint(**extra) -> dict:
    cfg = {"model_type": "flint", "architectures": ["FlintForCausalLM"], "num_hidden_layers": 4}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize(("given", "expected"), [
    ({}, {"rope_type": "default", "rope_theta": 10000.0}),
    ({"rope_theta": 50000.0}, {"rope_type": "default", "rope_theta": 50000.0}),
    ({"rope_parameters": {}}, {"rope_type": "default", "rope_theta": 10000.0}),     # empty: the default
    ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}, {"rope_type": "default", "rope_theta": 1e6}),
])
def test_flint_rope_parameters(given, expected):
    obj = load("0.33.0", flint(**given))
    assert obj.rope_parameters == expected
    assert obj.layer_types == ["full_attention"] * 4
    assert obj.sliding_window == 513


def test_flint_layer_types_must_count_the_layers():
    with pytest.raises(LoadCrash) as info:
        load("0.33.0", flint(num_hidden_layers=3, layer_types=["full_attention"] * 2))
    assert info.value.exc_type == "ValueError"
    assert info.value.message == "layer_types has 2 entries but num_hidden_layers is 3"


MIDASHENG_TEXT = {"model_type": "qwen2_5_omni_text", "hidden_size": 3584, "num_attention_heads": 28,
                  "num_key_value_heads": 4, "num_hidden_layers": 28, "intermediate_size": 18944,
                  "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}}


@pytest.mark.parametrize("rel", ["0.28.0", "0.31.0", "0.33.0"])
def test_midashenglm_clears_its_text_configs_rope_parameters(rel):
    obj = load(rel, {"model_type": "midashenglm", "architectures": ["MiDashengLMModel"],
                     "text_config": dict(MIDASHENG_TEXT)})
    assert obj.text_config.rope_parameters is None
    assert (obj.text_config.hidden_size, obj.text_config.num_key_value_heads) == (3584, 4)


@pytest.mark.parametrize("rel", ["0.13.0", "0.23.0"])
def test_midashenglm_on_transformers_4_keeps_rope_scaling(rel):
    """transformers 4 keeps the text config's ``rope_scaling`` (the class clears only ``rope_parameters``, which
    vLLM's loader then derives from it again)."""
    obj = load(rel, {"model_type": "midashenglm", "architectures": ["MiDashengLMModel"],
                     "text_config": dict(MIDASHENG_TEXT)})
    assert obj.text_config.rope_scaling["mrope_section"] == [16, 24, 24]


ASR_TEXT = {"model_type": "qwen3_asr_text", "hidden_size": 2048, "num_hidden_layers": 28, "num_attention_heads": 16,
            "num_key_value_heads": 8, "head_dim": 128, "rope_theta": 1000000,
            "rope_scaling": {"mrope_section": [24, 20, 20], "rope_type": "default", "type": "default"}}


def asr(**thinker) -> dict:
    return {"model_type": "qwen3_asr", "architectures": ["Qwen3ASRForConditionalGeneration"],
            "thinker_config": {"model_type": "qwen3_asr_thinker", "text_config": dict(ASR_TEXT), **thinker}}


@pytest.mark.parametrize("rel", ["0.28.0", "0.31.0", "0.32.0", "0.33.0"])
def test_qwen3_asr_text_rope_standardised_and_validated(rel):
    """vLLM's Qwen3ASRTextConfig calls transformers 4's ``rope_config_validation``; on transformers 5 that is the
    config's ``standardize_rope_params()`` then ``validate_rope()``."""
    text = load(rel, asr()).thinker_config.text_config
    assert text.rope_parameters == {"mrope_section": [24, 20, 20], "rope_type": "default", "type": "default",
                                    "rope_theta": 1000000}
    assert text.num_key_value_heads == 8


@pytest.mark.parametrize("rel", ["0.28.0", "0.33.0"])
def test_qwen3_asr_yarn_without_factor_is_validate_ropes_key_error(rel):
    cfg = asr()
    cfg["thinker_config"]["text_config"]["rope_scaling"] = {"rope_type": "yarn"}
    with pytest.raises(LoadCrash) as info:
        load(rel, cfg)
    assert info.value.exc_type == "KeyError"
    assert info.value.message == "\"Missing required keys in `rope_parameters` for 'rope_type'='yarn': {'factor'}\""


@pytest.mark.parametrize("rel", ["0.16.0", "0.20.0", "0.23.0"])
def test_qwen3_asr_on_transformers_4(rel):
    """The transformers 4 lines run the same class with 4.x's own RoPE validation (a ``rope_scaling`` message)."""
    assert load(rel, asr()).thinker_config.text_config.num_key_value_heads == 8
    with pytest.raises(LoadCrash) as info:
        load(rel, {"model_type": "qwen3_asr", "architectures": ["Qwen3ASRForConditionalGeneration"],
                   "thinker_config": {"text_config": {"rope_scaling": {"rope_type": "yarn"}}}})
    assert (info.value.exc_type, info.value.message) == (
        "KeyError", "\"Missing required keys in `rope_scaling` for 'rope_type'='yarn': {'factor'}\"")


def test_a_statement_kvguard_cannot_read_declines_only_the_configs_that_reach_it():
    """BailingHybridConfig (transformers 5.20.2) derives its layer types only when ``layer_types`` is None: a config
    that gives them is decided, one without them is declined (``if self.layer_types is None: …`` is not followed)."""
    hybrid = {"model_type": "bailing_hybrid", "architectures": ["BailingMoeV2_5ForCausalLM"], "num_hidden_layers": 4}
    given = load("0.33.0", {**hybrid, "layer_types": ["full_attention"] * 4, "mlp_layer_types": ["dense"] * 4})
    assert (given.layer_types, given.mlp_layer_types) == (["full_attention"] * 4, ["dense"] * 4)
    with pytest.raises(Undecidable, match="BailingHybridConfig.__post_init__ does something kvguard does not model"):
        load("0.33.0", hybrid)
