"""MiniMax-M2 / M2.5: an ``attn_type_list`` that vLLM's minimax_m2.py never reads does not stop KV sizing.

vLLM's ``vllm/model_executor/models/minimax_m2.py`` (0.11.1–0.33.0, read in each release) builds one ``Attention``
per hidden layer with ``num_key_value_heads`` KV heads of ``head_dim`` and no per-layer window, whatever
``attn_type_list`` says; ``minimax_text_01.py`` (MiniMax-Text-01 / M1, 0.10.2–0.23.0) reads it (0 = linear
"lightning" attention) and stays refused.  The figures are worked out by hand from the MiniMax-M2.5 config
(8 KV heads, head_dim 128, 62 layers), not by calling kvguard:

- per layer per rank = 2 (K and V) x KV heads per rank x 128 x dtype bytes; per rank = that x 62 layers.
- tp 1: 8 heads per rank -> bf16 2*8*128*2 = 4,096 B/layer, x62 = 253,952 B; fp8 2,048 B/layer, 126,976 B.
- tp 4: 2 heads per rank -> bf16 2*2*128*2 = 1,024 B/layer, 63,488 B; fp8 512 B/layer, 31,744 B.
- tp 8: 1 head per rank  -> bf16 2*1*128*2 = 512 B/layer, 31,744 B; fp8 256 B/layer, 15,872 B.
- capacity, nvidia/MiniMax-M2.5-NVFP4 (its ModelOpt kv_cache_scheme makes ``auto`` fp8_e4m3 from 0.14.0) at tp 8,
  40 GiB, block 16, max_model_len 196,608: page 16 x 256 = 4,096 B; 42,949,672,960 // 4,096 = 10,485,760;
  // 62 layers = 169,125 blocks; 196,608 / 16 = 12,288 blocks per request -> 169,125 / 12,288 = 13.763...x;
  int(13.763... x 196,608) = 169,125 x 16 = 2,706,000 tokens.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.errors import CapacityNotModelled
from kvguard.kv.capacity import predict_capacity
from kvguard.kv.kvsize import UNREAD_LAYER_KEYS, kv_cache_groups_reason
from kvguard.versions import resolve

GIB = 1 << 30


def _m25() -> dict:
    cfg = copy.deepcopy(catalog.lookup("MiniMaxAI/MiniMax-M2.5").config)
    cfg["attn_type_list"] = [1] * 62  # as the checkpoints ship it
    return cfg


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("tp,dtype,per_layer,per_rank", [
    (1, "auto", 4096, 253952), (4, "auto", 1024, 63488), (8, "auto", 512, 31744),
    (1, "fp8", 2048, 126976), (4, "fp8", 512, 31744), (8, "fp8", 256, 15872),
])
def test_minimax_m25_kv_bytes_per_token_per_rank(version, tp, dtype, per_layer, per_rank):
    report = kvguard.audit(_m25(), tp, 1, 1, vllm_version=version, kv_cache_dtype=dtype)
    m = report.models[0]
    assert (m.total_num_kv_heads, m.head_size, m.num_layers) == (8, 128, 62)
    assert m.kv_bytes_per_token_per_layer_per_rank == per_layer
    assert m.kv_bytes_per_token_per_rank == per_rank


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.33.0"])
def test_minimax_m25_nvfp4_capacity_is_modelled(version):
    cap = predict_capacity("nvidia/MiniMax-M2.5-NVFP4", tp=8, max_model_len=196608, kv_memory_gib=40,
                           block_size=16, vllm_version=version)
    assert cap.num_blocks == 169125
    assert cap.num_tokens == 2706000


def test_minimax_m25_check_reports_kv_bytes(capsys):
    run(["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve", "nvidia/MiniMax-M2.5-NVFP4",
         "-tp", "8"])
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["kv_bytes_per_token_per_rank"] == 15872  # fp8_e4m3 (the checkpoint's), 1 head per rank
    assert "kv_bytes_not_modelled" not in facts


def test_minimax_m25_plan_ranks_by_exact_kv_sizes():
    report = kvguard.plan("nvidia/MiniMax-M2.5-NVFP4", 8, vllm_version="0.28.0")
    assert report.entries
    assert not [n for n in report.notes if "KV sizes count every layer as full attention" in n]


def test_unread_key_rows_are_registered_ranges():
    # the row's range starts where kvguard/data/archs.json registers the architecture
    assert [(k, a, f, t) for k, a, f, t, _ in UNREAD_LAYER_KEYS] == [
        ("attn_type_list", "MiniMaxM2ForCausalLM", "0.11.1", "0.33.0")]


def test_attn_type_list_still_refused_elsewhere():
    raw = _m25()
    assert kv_cache_groups_reason(raw, release=resolve("0.28.0")) is None
    # no release: nothing says which model class reads the config
    assert kv_cache_groups_reason(raw) == "attn_type_list in the config: layers with different KV-cache specs"
    # before vLLM registers MiniMaxM2ForCausalLM (0.11.0) the exemption does not apply
    assert kv_cache_groups_reason(raw, release=resolve("0.11.0")) is not None
    # MiniMax-Text-01 / M1 read it (0 = linear attention): refused by model type, and by the key under another one
    text01 = {**raw, "architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax_text_01",
              "attn_type_list": [0, 1] * 31}
    assert kv_cache_groups_reason(text01, release=resolve("0.23.0")) == "model type minimax_text_01: linear-attention layers"
    other = {**text01, "model_type": "mixtral"}
    assert kv_cache_groups_reason(other, release=resolve("0.23.0")) == (
        "attn_type_list in the config: layers with different KV-cache specs")
    # an architecture listed after a registered one that reads the key does not borrow the exemption
    both = {**other, "architectures": ["MiniMaxText01ForCausalLM", "MiniMaxM2ForCausalLM"]}
    assert kv_cache_groups_reason(both, release=resolve("0.23.0")) is not None


def test_minimax_text01_capacity_stays_not_modelled():
    cfg = {**_m25(), "architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax_text_01",
           "attn_type_list": [0, 1] * 31}
    with pytest.raises(CapacityNotModelled):
        predict_capacity(cfg, tp=8, max_model_len=4096, kv_memory_gib=40, vllm_version="0.23.0")
