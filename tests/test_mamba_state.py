"""A hybrid model's Mamba state sizing in VllmConfig (kvguard.rules.mamba_state, 0.10.2 – 0.19.x).

Expected values are the releases' own answers (tests/upstream/test_mamba_state.py runs the differential).
"""

from __future__ import annotations

import copy
import json

import pytest

from kvguard import catalog
from kvguard.errors import Undecidable
from kvguard.front import examine
from kvguard.launch.layout import Host
from kvguard.rules.mamba_state import STATE_FAMILIES, STATE_KEYS

HOST = Host(platform="cpu", gpus_per_node=0, ray=False, triton=False, nixl=False, cpu_memory_bytes=256 << 30,
            arctic_inference=False)


def _verdict(tmp_path, version: str, config: dict, *args: str, env: "dict | None" = None):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return examine(version, ["vllm", "serve", str(tmp_path), *args], host=HOST, env=env or {}).verdict


def _qwen3_next(**changes) -> dict:
    entry = catalog.lookup("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert entry is not None
    config = copy.deepcopy(entry.config)
    config.pop("auto_map", None)
    config.update(changes)
    return config


def _jamba(**changes) -> dict:
    config = {"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096,
              "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 8, "intermediate_size": 14336,
              "num_experts": 16, "num_experts_per_tok": 2, "attn_layer_period": 8, "attn_layer_offset": 4,
              "expert_layer_period": 2, "expert_layer_offset": 1, "vocab_size": 65536,
              "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    config.update(changes)
    return config


def _granite_hybrid(**changes) -> dict:
    config = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
              "hidden_size": 1536, "num_attention_heads": 12, "num_key_value_heads": 4, "num_hidden_layers": 4,
              "intermediate_size": 8192, "shared_intermediate_size": 8192, "num_local_experts": 0,
              "layer_types": ["mamba", "attention", "mamba", "mamba"], "mamba_n_heads": 48, "mamba_d_head": 64,
              "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2,
              "max_position_embeddings": 4096, "vocab_size": 49160, "torch_dtype": "bfloat16"}
    config.update(changes)
    return config


def _refusal(verdict) -> tuple:
    return verdict.ok, verdict.exc_type, verdict.message, verdict.wrapped_by


def test_every_family_key_is_resolved():
    from kvguard.facts.model import RESOLVED_ATTRIBUTES

    assert set(STATE_KEYS) <= set(RESOLVED_ATTRIBUTES)
    assert {"Qwen3NextForCausalLM", "JambaForCausalLM", "GraniteMoeHybridForCausalLM"} <= set(STATE_FAMILIES)


@pytest.mark.parametrize("version", ["0.11.0", "0.15.0", "0.18.0", "0.19.1"])
def test_qwen3_next_convolution_width_must_divide(tmp_path, version):
    # 2 * 128 * 16 + 128 * 32 = 8192 before the attention heads (16) are checked against tp
    assert _refusal(_verdict(tmp_path, version, _qwen3_next(), "-tp", "3")) == (
        False, "AssertionError", "8192 is not divisible by 3", "VllmConfig")


def test_from_0_20_the_sizing_runs_later(tmp_path):
    assert _refusal(_verdict(tmp_path, "0.20.0", _qwen3_next(), "-tp", "3")) == (
        False, "ValueError", "Total number of attention heads (16) must be divisible by tensor parallel size (3).",
        "VllmConfig")


def test_qwen3_next_value_heads_divided_second(tmp_path):
    # 2 * 128 * 16 + 128 * 20 = 6656 divides by 8; the 20 value heads do not
    config = _qwen3_next(linear_num_value_heads=20)
    assert _refusal(_verdict(tmp_path, "0.15.0", config, "-tp", "8")) == (
        False, "AssertionError", "20 is not divisible by 8", "VllmConfig")


def test_qwen3_next_dividing_sizes_pass(tmp_path):
    assert _verdict(tmp_path, "0.18.0", _qwen3_next(), "-tp", "2").ok


def test_jamba_mamba1_intermediate_size(tmp_path):
    # mamba_expand (2) * hidden_size (4096)
    assert _refusal(_verdict(tmp_path, "0.14.1", _jamba(), "-tp", "6")) == (
        False, "AssertionError", "8192 is not divisible by 6", "VllmConfig")


def test_granite_hybrid_groups_replicated_up_to_tp(tmp_path):
    # one group, tp 7: replicated to 7 groups, 2 * 1536 + 2 * 7 * 128 = 4864 does not divide by 7
    assert _refusal(_verdict(tmp_path, "0.17.1", _granite_hybrid(), "-tp", "7")) == (
        False, "AssertionError", "4864 is not divisible by 7", "VllmConfig")


def test_attention_only_layer_types_stop_being_hybrid_from_0_11_1(tmp_path):
    # granite-4.0-micro's shape: ModelConfig.is_hybrid reads layer_types from 0.11.1
    config = _granite_hybrid(layer_types=["attention"] * 4)
    assert _refusal(_verdict(tmp_path, "0.11.0", config, "-tp", "7"))[2] == "4864 is not divisible by 7"
    assert _refusal(_verdict(tmp_path, "0.11.1", config, "-tp", "7"))[2] == (
        "Total number of attention heads (12) must be divisible by tensor parallel size (7).")


def test_unmodelled_hybrid_at_tp_above_one_is_undecidable(tmp_path, monkeypatch):
    monkeypatch.delitem(STATE_FAMILIES, "JambaForCausalLM")
    with pytest.raises(Undecidable, match="Mamba state shapes of JambaForCausalLM"):
        _verdict(tmp_path, "0.15.0", _jamba(), "-tp", "2")
    assert _verdict(tmp_path, "0.15.0", _jamba(), "-tp", "1").ok


def test_jamba_dividing_sizes_pass(tmp_path):
    assert _verdict(tmp_path, "0.15.0", _jamba(), "-tp", "2").ok


def test_linear_attention_heads_are_floored(tmp_path):
    config = {"architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax", "hidden_size": 512,
              "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 4,
              "attn_type_list": [0, 1, 0, 1], "intermediate_size": 256, "num_local_experts": 4,
              "num_experts_per_tok": 2, "vocab_size": 1000, "max_position_embeddings": 4096, "rotary_dim": 64,
              "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6, "postnorm": True}
    assert _verdict(tmp_path, "0.15.0", config, "-tp", "8").ok


def test_a_missing_key_is_undecidable(tmp_path):
    config = {"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 2048,
              "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 4,
              "intermediate_size": 8192, "vocab_size": 65536, "max_position_embeddings": 4096,
              "torch_dtype": "bfloat16", "conv_L_cache": 3, "full_attn_idxs": [1]}
    with pytest.raises(Undecidable, match="conv_dim"):
        _verdict(tmp_path, "0.15.0", config, "-tp", "2")


def test_0_10_2_sizes_for_the_v1_engine_only(tmp_path):
    assert _refusal(_verdict(tmp_path, "0.10.2", _jamba(), "-tp", "6"))[2] == "8192 is not divisible by 6"
    v0 = _verdict(tmp_path, "0.10.2", _jamba(), "-tp", "6", env={"VLLM_USE_V1": "0"})
    assert v0.message != "8192 is not divisible by 6"


def test_tp_zero_reaching_the_state_shapes_is_undecidable(tmp_path):
    # 0.19.1's own arithmetic: ZeroDivisionError('integer division or modulo by zero') on a hybrid model, a floor
    # division where kvguard's reckoning would take a modulo first
    with pytest.raises(Undecidable, match="first division by zero"):
        _verdict(tmp_path, "0.19.1", _granite_hybrid(), "-tp", "0")
