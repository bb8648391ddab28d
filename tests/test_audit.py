"""kvguard.audit / `kvguard audit`: KV-cache economics.

The seed figures are derived by hand from the catalog configs (kvguard/catalog/):

- DeepSeek-R1: deepseek_v3, MLA, kv_lora_rank 512 + qk_rope_head_dim 64 = 576, 61 layers, bf16,
  num_key_value_heads 128.  One latent per layer: 576 * 2 B = 1,152 B/token/layer, x 61 =
  70,272 B per rank whatever tp is (H = 1 -> duplication = tp).  At -tp 8: 8 copies, 7 wasted:
  7 * 70,272 = 491,904 B.  -dcp 8 shards the tokens: 70,272 / 8 = 8,784 B, no waste.
- Kimi-K2: kimi_k2 (MLA) with the same latent shape and 61 layers, 64 KV heads: at -tp 16 the
  duplication is 16, 70,272 B per rank, 15 * 70,272 = 1,054,080 B wasted per token.
- Qwen3-235B-A22B: 4 KV heads, head_dim 128, 94 layers.  -tp 8: dup 8 // 4 = 2, one head per
  rank: 2 * 1 * 128 * 2 B = 512 B/layer, x 94 = 48,128 B per rank; one copy is
  2 * 4 * 128 * 2 * 94 = 192,512 B, the 8 ranks store 385,024 B: 192,512 B wasted.
  Legal -dcp: tp > H and dcp <= tp // H = 2, 64 / 4 = 16 query heads per KV head: {1, 2}.
- Qwen3-32B: 8 KV heads, head_dim 128, 64 layers.  -tp 8: dup 1, 512 B/layer x 64 = 32,768 B,
  legal -dcp {1} (tp must exceed H).  -tp 16: dup 2, still one head per rank, 32,768 B; the 16
  ranks store 524,288 B of which one copy (2 * 8 * 128 * 2 * 64) is 262,144 B; legal -dcp {1, 2}.
"""

from __future__ import annotations

import json

import pytest

import kvguard
from kvguard import Host
from kvguard.cli import EXIT_ACCEPT, EXIT_UNDECIDED, run
from kvguard.kv.kvsize import kv_bytes_per_token_per_layer, kv_cache_dtype_bytes, kv_token_shards
from kvguard.launch.resolve import resolve_model

NODE = Host.cuda_node(8)


def _one(model, tp, dcp=1, pcp=1, **kw):
    kw.setdefault("host", NODE)
    report = kvguard.audit(model, tp, pcp, dcp, **kw)
    assert isinstance(report, kvguard.AuditReport) and len(report.models) == 1
    return report.models[0]


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_deepseek_r1_tp8(version):
    m = _one("deepseek-ai/DeepSeek-R1", 8, vllm_version=version)
    assert (m.use_mla, m.total_num_kv_heads, m.cache_kv_heads) == (True, 128, 1)
    assert m.duplication_factor == 8 and m.residual_duplication == 8
    assert m.legal_dcp_sizes == (1, 2, 4, 8)
    assert m.kv_bytes_per_token_per_layer_per_rank == 1152
    assert m.kv_bytes_per_token_per_rank == 70272
    assert m.kv_bytes_per_token_unique == 70272
    assert m.duplication_waste_bytes_per_token == 491904


def test_deepseek_r1_tp8_dcp8_wins_the_copies_back():
    m = _one("deepseek-ai/DeepSeek-R1", 8, dcp=8, vllm_version="0.28.0")
    assert m.dcp_legal and m.residual_duplication == 1
    assert m.kv_bytes_per_token_per_rank == 8784
    assert m.duplication_waste_bytes_per_token == 0


def test_kimi_k2_tp16():
    m = _one("moonshotai/Kimi-K2-Instruct", 16, vllm_version="0.28.0")
    assert (m.use_mla, m.total_num_kv_heads, m.cache_kv_heads, m.duplication_factor) == (True, 64, 1, 16)
    assert m.legal_dcp_sizes == (1, 2, 4, 8, 16)
    assert m.kv_bytes_per_token_per_rank == 70272
    assert m.duplication_waste_bytes_per_token == 1054080


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_qwen3_235b_tp8(version):
    m = _one("Qwen/Qwen3-235B-A22B", 8, vllm_version=version)
    assert (m.use_mla, m.total_num_kv_heads, m.cache_kv_heads, m.num_kv_heads_per_rank) == (False, 4, 4, 1)
    assert m.duplication_factor == 2
    assert m.legal_dcp_sizes == (1, 2)
    assert m.kv_bytes_per_token_per_rank == 48128
    assert m.kv_bytes_per_token_unique == 192512
    assert m.kv_bytes_per_token_stored == 385024
    assert m.duplication_waste_bytes_per_token == 192512
    m2 = _one("Qwen/Qwen3-235B-A22B", 8, dcp=2, vllm_version=version)
    assert m2.kv_bytes_per_token_per_rank == 24064 and m2.residual_duplication == 1
    assert m2.duplication_waste_bytes_per_token == 0


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_qwen3_32b_tp8_and_tp16(version):
    m8 = _one("Qwen/Qwen3-32B", 8, vllm_version=version)
    assert (m8.cache_kv_heads, m8.duplication_factor, m8.legal_dcp_sizes) == (8, 1, (1,))
    assert m8.kv_bytes_per_token_per_rank == 32768 and m8.duplication_waste_bytes_per_token == 0
    m16 = _one("Qwen/Qwen3-32B", 16, vllm_version=version)
    assert (m16.duplication_factor, m16.legal_dcp_sizes) == (2, (1, 2))
    assert m16.kv_bytes_per_token_per_rank == 32768
    assert m16.kv_bytes_per_token_stored == 524288
    assert m16.duplication_waste_bytes_per_token == 262144


def test_several_models_and_fp8_halves_the_bytes():
    report = kvguard.audit(["deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-32B"], 8, kv_cache_dtype="fp8",
                           vllm_version="0.28.0")
    r1, q = report.models
    assert (r1.dtype_bytes, r1.kv_bytes_per_token_per_rank) == (1, 35136)
    assert q.kv_bytes_per_token_per_rank == 16384
    assert report.to_dict()["schema"] == 1


def test_inputs_path_mapping_and_facts(tmp_path):
    cfg = resolve_model("Qwen/Qwen3-32B").config
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    facts = kvguard.model_facts(cfg, vllm_version="0.28.0")
    for item in (str(tmp_path), str(tmp_path / "config.json"), cfg, facts):
        m = _one(item, 8, vllm_version="0.28.0")
        assert m.kv_bytes_per_token_per_rank == 32768


def test_dtype_sizes_and_errors():
    assert kv_cache_dtype_bytes("auto", model_dtype="float16") == ("float16", 2)
    assert kv_cache_dtype_bytes("auto", model_dtype="float32") == ("bfloat16", 2)
    assert kv_cache_dtype_bytes("fp8_e5m2") == ("fp8_e5m2", 1)
    assert kv_cache_dtype_bytes("fp8_inc") == ("fp8_inc", 1)
    with pytest.raises(kvguard.InputError, match="added in 0.18.0"):
        kv_cache_dtype_bytes("float16", vllm_version="0.17.1")
    with pytest.raises(kvguard.InputError, match="added in 0.11.0"):
        kv_cache_dtype_bytes("bfloat16", vllm_version="0.10.2")
    with pytest.raises(kvguard.InputError, match="packed"):
        kv_cache_dtype_bytes("fp8_ds_mla")
    with pytest.raises(kvguard.InputError, match="unknown"):
        kv_cache_dtype_bytes("float64")
    with pytest.raises(kvguard.InputError):
        kvguard.audit("Qwen/Qwen3-32B", 0)


def test_per_layer_formula():
    assert kv_bytes_per_token_per_layer(1, 576, 2, mla=True) == 1152
    assert kv_bytes_per_token_per_layer(2, 128, 1, mla=False) == 512


def test_pcp_shards_tokens_only_where_the_release_does():
    # FullAttentionSpec.max_memory_usage_bytes divides by dcp * pcp in 0.12.0-0.25.1, by dcp after
    assert kv_token_shards("0.20.0", dcp=2, pcp=2) == 4
    assert kv_token_shards("0.28.0", dcp=2, pcp=2) == 2
    assert kv_token_shards("0.11.1", dcp=1, pcp=1) == 1


def test_illegal_dcp_is_flagged():
    m = _one("Qwen/Qwen3-32B", 8, dcp=2, vllm_version="0.28.0")
    assert not m.dcp_legal


def _run(capsys, *argv):
    status = run(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_text_and_json(capsys):
    status, out, _ = _run(capsys, "audit", "deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-235B-A22B", "--tp", "8",
                          "--vllm-version", "0.28.0")
    assert status == EXIT_ACCEPT
    assert "duplication factor 8" in out and "duplication factor 2" in out
    assert "70,272 B" in out and "legal -dcp sizes: [1, 2]" in out
    status, out, _ = _run(capsys, "audit", "Qwen/Qwen3-32B", "--tp", "16", "--dcp", "2", "--format", "json",
                          "--vllm-version", "0.28.0")
    data = json.loads(out)
    assert data["schema"] == 1 and len(data["models"]) == 1
    m = data["models"][0]
    assert m["duplication_factor"] == 2 and m["residual_duplication"] == 1
    assert m["legal_dcp_sizes"] == [1, 2] and m["kv_bytes_per_token_per_rank"] == 16384


@pytest.mark.parametrize("argv", [
    ["audit", "no/such-model", "--tp", "8"],
    ["audit", "Qwen/Qwen3-32B", "--tp", "8", "--kv-cache-dtype", "nvfp4"],
    ["audit", "Qwen/Qwen3-32B", "--tp", "0"],
    ["audit", "Qwen/Qwen3-32B", "--tp", "8", "--vllm-version", "0.9.0"],
])
def test_cli_cannot_decide(capsys, argv):
    status, out, err = _run(capsys, *argv)
    assert status == EXIT_UNDECIDED and err.startswith("kvguard:") and "Traceback" not in err


def test_an_attention_free_model_reports_its_token_shards_in_their_field():
    """The audit of a model without attention KV facts fills kv_token_shards (it was shifted one
    field along, into kv_bytes_per_token_per_layer_per_rank)."""
    model = kvguard.audit("state-spaces/mamba-2.8b-hf", 1, vllm_version="0.28.0").models[0]
    assert model.kv_token_shards == 1
    assert model.kv_bytes_per_token_per_layer_per_rank is None and model.kv_bytes_per_token_per_rank is None
