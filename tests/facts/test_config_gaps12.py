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
0.24.0+ was undecidable); expected value from ``ModelConfig(..., disable_sliding_window=True)`` of vLLM 0.33.0.
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
