"""vLLM 0.33.0's ``DoryConfig`` and ModernBERT's ``sliding_window`` setter under ``--disable-sliding-window``.

vLLM's ``DoryConfig`` (``vllm/transformers_utils/configs/dory.py``, 0.33.0) is a ``@strict`` class of vLLM's own:
``__post_init__`` fills the default layout (odd layers MLP-only; among the even ones every eighth from the seventh
full attention, the rest sliding), default RoPE parameters per attention kind present, and the recurrent layers as
what the input and output layers leave; its ``validate_layer_type`` / ``validate_architecture`` / ``validate_rope``
replace PreTrainedConfig's.  kvguard follows them as named behaviours (kvguard/facts/classes5.py, recognised by
the fingerprints of the methods' sources) where it used to decline every Dory checkpoint.  Expected values were
read off ``get_config`` of vLLM 0.33.0 in its oracle environment; tools/hfconfig_oracle.py compares the class on
generated configs (400 of 400 agree or are declined, seed ``dory12b``).

ModernBERT (transformers 5.x): its ``sliding_window`` is a property whose setter stores twice the value in
``local_attention``; vLLM's ``hf_text_config.sliding_window = None`` (``--disable-sliding-window``) raises the
setter's TypeError.  kvguard used to fail on it itself (an internal error, so every ModernBERT launch on
0.24.0+ was undecidable); expected value from ``ModelConfig(..., disable_sliding_window=True)`` of vLLM 0.26.0 and
0.33.0.

vLLM's ``OvisConfig`` (``vllm/transformers_utils/configs/ovis.py``): ``if x is not None:`` it asserts that the LLM /
visual-tokenizer config is a config object or a dict (the message names ``type(x)``), and builds a dict with
``AutoConfig.for_model`` after reading and popping its ``model_type``.  tools/facts_subconfigs.py names those
statements (``assert_kind``, ``read_item``, ``pop_item``, ``for_model`` ops; measured for every release).  A model
type the transformers mapping lacks is declined: vLLM's config modules register more with AutoConfig when imported
(``aimv2_visual_tokenizer``, ``siglip_visual_tokenizer``: real Ovis checkpoints), which kvguard does not measure,
and they decide both the class built and the list the refusal prints.  Expected values from ``get_config`` of vLLM
0.10.2, 0.23.0, 0.26.0 and 0.31.0 – 0.33.0 (the hfconfig oracle: 0 mismatches on 1,100 generated configs over
0.10.2, 0.20.0, 0.23.0, 0.26.0, 0.30.0 – 0.33.0, the rest declined).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

import kvguard
from kvguard.facts.loader import LoadCrash, load_config
from kvguard.versions import Release

DORY = {"architectures": ["DoryForCausalLM"], "model_type": "dory", "num_hidden_layers": 10}
S, F, M = "sliding_attention", "full_attention", "mlp"
DEFAULT_ROPE = {"rope_type": "default", "partial_rotary_factor": 1.0, "rope_theta": 10000.0}
VALIDATION = "Class validation error for validator '{}':\n    ValueError: {}"


def load(cfg: dict):
    return load_config(cfg, Release(Version("0.33.0")))


def test_dory_default_layout():
    cfg = load(DORY)
    assert cfg.layer_types == [S, M, S, M, S, M, F, M, S, M]
    assert cfg.rope_parameters == {S: DEFAULT_ROPE, F: DEFAULT_ROPE}
    assert cfg.n_recurrent_layers == 10


def test_dory_given_layout():
    cfg = load(dict(DORY, n_input_layers=2, n_output_layers=1, layer_types=[F] * 10))
    assert cfg.rope_parameters == {F: DEFAULT_ROPE}       # only the kinds present
    assert cfg.n_recurrent_layers == 7


def test_dory_partial_rotary_factor_kept():
    rope = {S: {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.3},
            F: {"rope_type": "default", "rope_theta": 1e4}}
    cfg = load(dict(DORY, rope_parameters=rope))            # int(256 * 0.3) = 76: even
    assert cfg.rope_parameters == {S: {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.3},
                                   F: {"rope_type": "default", "rope_theta": 10000.0}}


@pytest.mark.parametrize("extra, validator, message", [
    ({"n_input_layers": 6, "n_output_layers": 6}, "validate_architecture",
     "Dory input, recurrent, and output layers must sum to num_hidden_layers"),
    ({"num_hidden_layers": 3, "n_recurrent_layers": 1}, "validate_architecture",
     "Dory input, recurrent, and output layers must sum to num_hidden_layers"),
    ({"n_recurrent_loops": 0}, "validate_architecture", "n_recurrent_loops must be a positive integer"),
    ({"recurrent_kv_cache_mode": "shared"}, "validate_architecture",
     "recurrent_kv_cache_mode must be per_loop or last_loop"),
    ({"num_key_value_heads": 3}, "validate_architecture",
     "num_attention_heads must be divisible by num_key_value_heads"),
    ({"attention_bias": True}, "validate_architecture", "Dory requires bias-free projections"),
    ({"sliding_window": None}, "validate_architecture", "sliding_window must be a positive integer"),
    ({"layer_types": [F, M] * 5, "sliding_window": None, "hidden_act": "gelu"}, "validate_architecture",
     "Dory requires SiLU and untied embeddings"),
    ({"tie_word_embeddings": True}, "validate_architecture", "Dory requires SiLU and untied embeddings"),
    ({"layer_types": [M] * 9 + ["linear_attention"]}, "validate_layer_type",
     "layer_types must be a list of sliding_attention, full_attention, or mlp"),
    ({"layer_types": [M] * 9}, "validate_layer_type", "layer_types must have num_hidden_layers entries"),
    ({"rope_parameters": {S: {"rope_type": "default", "rope_theta": 10000.0}}}, "validate_rope",
     "rope_parameters must define each attention block type"),
    ({"rope_parameters": {S: {"rope_type": "yarn", "rope_theta": 1e4, "factor": 2.0},
                          F: {"rope_type": "default", "rope_theta": 1e4}}}, "validate_rope",
     "Dory requires default RoPE with a positive rope_theta"),
])
def test_dory_validators(extra, validator, message):
    with pytest.raises(LoadCrash) as err:
        load(dict(DORY, **extra))
    assert err.value.exc_type == "StrictDataclassClassValidationError"
    assert err.value.message == VALIDATION.format(validator, message)


def test_dory_facts():
    cfg = dict(DORY, num_hidden_layers=24, n_input_layers=2, n_output_layers=2, n_recurrent_loops=4,
               max_position_embeddings=8192)
    facts = kvguard.model_facts(cfg, vllm_version="0.33.0")
    # ModelConfig of vLLM 0.33.0: 4 KV heads, 16 heads, head size 256, 24 layers, max_model_len 8192
    assert (facts.total_num_kv_heads, facts.total_num_attention_heads, facts.head_size, facts.num_hidden_layers,
            facts.use_mla) == (4, 16, 256, 24, False)
    assert kvguard.check(cfg, vllm_version="0.33.0", tp=2).ok


MODERNBERT = {"architectures": ["ModernBertModel"], "model_type": "modernbert", "hidden_size": 768,
              "num_attention_heads": 12, "num_hidden_layers": 22, "intermediate_size": 1152,
              "max_position_embeddings": 8192, "local_attention": 128, "vocab_size": 50368}


@pytest.mark.parametrize("release", ["0.26.0", "0.33.0"])
def test_modernbert_sliding_window_unset(release):
    assert kvguard.check(MODERNBERT, vllm_version=release, tp=2).ok
    v = kvguard.check(MODERNBERT, vllm_version=release, tp=2, disable_sliding_window=True)
    assert (v.exc_type, v.message) == ("TypeError", "unsupported operand type(s) for *: 'NoneType' and 'int'")


QWEN2 = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 1536, "intermediate_size": 8960,
         "num_attention_heads": 12, "num_hidden_layers": 28, "num_key_value_heads": 2,
         "max_position_embeddings": 32768, "rope_theta": 1000000.0, "vocab_size": 151936}
OVIS = {"architectures": ["Ovis"], "model_type": "ovis", "llm_config": QWEN2, "multimodal_max_length": 8192,
        "hidden_size": 1536, "conversation_formatter_class": "QwenConversationFormatter"}
OVIS_RELEASES = ["0.10.2", "0.23.0", "0.26.0", "0.31.0", "0.32.0", "0.33.0"]


def ovis(**extra) -> dict:
    import copy
    return {**copy.deepcopy(OVIS), **extra}


@pytest.mark.parametrize("release", OVIS_RELEASES)
def test_ovis_llm_config_built_by_its_model_type(release):
    cfg = load_config(ovis(), Release(Version(release)))
    assert cfg.text_config.kvg_class_name == "Qwen2Config"
    assert cfg.visual_tokenizer_config is None
    facts = kvguard.model_facts(ovis(), vllm_version=release)
    assert (facts.total_num_kv_heads, facts.total_num_attention_heads, facts.num_hidden_layers) == (2, 12, 28)


#: the class the assertion names: vLLM's source spelled it PretrainedConfig up to 0.30.0
BASE_NAME = {"0.10.2": "PretrainedConfig", "0.23.0": "PretrainedConfig", "0.26.0": "PretrainedConfig",
             "0.31.0": "PreTrainedConfig", "0.32.0": "PreTrainedConfig", "0.33.0": "PreTrainedConfig"}


@pytest.mark.parametrize("release", OVIS_RELEASES)
@pytest.mark.parametrize("extra, exc_type, message", [
    ({"llm_config": [1, 2]}, "AssertionError",
     "expect `llm_config` to be instance of {} or dict, but got <class 'list'> type"),
    ({"llm_config": False}, "AssertionError",
     "expect `llm_config` to be instance of {} or dict, but got <class 'bool'> type"),
    ({"visual_tokenizer_config": []}, "AssertionError",
     "expect `visual_tokenizer_config` to be instance of {} or dict, but got <class 'list'> type"),
    ({"llm_config": {}}, "KeyError", "'model_type'"),
    ({"llm_config": {"hidden_size": 8}}, "KeyError", "'model_type'"),
])
def test_ovis_sub_config_refusals(release, extra, exc_type, message):
    with pytest.raises(LoadCrash) as err:
        load_config(ovis(**extra), Release(Version(release)))
    assert (err.value.exc_type, err.value.message) == (exc_type, message.format(BASE_NAME[release]))


@pytest.mark.parametrize("release", ["0.26.0", "0.31.0", "0.32.0", "0.33.0"])
def test_ovis_llm_config_checked_by_its_class(release):
    # transformers 5's strict LlamaConfig refuses 4096 / 6; transformers 4 (0.10.2, 0.23.0) builds it
    with pytest.raises(LoadCrash) as err:
        load_config(ovis(llm_config={"model_type": "llama", "num_attention_heads": 6}), Release(Version(release)))
    assert (err.value.exc_type, err.value.message) == (
        "StrictDataclassClassValidationError", "Class validation error for validator 'validate_architecture':\n"
        "    ValueError: The hidden size (4096) is not a multiple of the number of attention heads (6).")


@pytest.mark.parametrize("release", ["0.10.2", "0.23.0"])
def test_ovis_llm_config_unchecked_on_transformers_4(release):
    cfg = load_config(ovis(llm_config={"model_type": "llama", "num_attention_heads": 6}), Release(Version(release)))
    assert cfg.text_config.num_attention_heads == 6
    assert cfg.visual_tokenizer_config is None


@pytest.mark.parametrize("model_type", ["aimv2_visual_tokenizer", "siglip_visual_tokenizer", "nonesuch"])
def test_ovis_model_types_registered_by_vllms_modules_are_declined(model_type):
    # get_config builds Aimv2VisualTokenizerConfig / SiglipVisualTokenizerConfig (registered when ovis.py is
    # imported) and refuses "nonesuch" with a list that ends with those registrations
    with pytest.raises(kvguard.Undecidable, match="AutoConfig registrations are not modelled"):
        load_config(ovis(visual_tokenizer_config={"model_type": model_type}), Release(Version("0.33.0")))
