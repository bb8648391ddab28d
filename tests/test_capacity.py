"""kvguard.kv.capacity / `kvguard audit --kv-memory-gib`: vLLM's "GPU KV cache size" and "Maximum concurrency".

The figures below are worked out by hand from vLLM's formulas (kv_cache_utils.py), not by calling
kvguard:

- DeepSeek-R1 (MLA, kv_lora_rank 512 + qk_rope_head_dim 64 = 576, 61 layers, bf16) at -tp 8 with
  block size 64: page = 64 * 576 * 2 = 73,728 B per layer.  40 GiB = 42,949,672,960 B:
  42,949,672,960 // 73,728 = 582,542; // 61 = 9,549 blocks.  max_model_len 163,840 at -dcp 8:
  cdiv(163,840, 8) = 20,480 tokens per rank = 320 blocks per request -> 9,549 / 320 = 29.840625x;
  0.21.0 on: int(29.840625 * 163,840) = 4,889,088 tokens (= 9,549 * 64 * 8, what 0.12.0–0.20.0
  log).  At -dcp 1: 2,560 blocks per request -> 3.730078125x, 611,136 tokens.
- Qwen3-32B (8 KV heads, head_dim 128, 64 layers, bf16) at -tp 8, block size 16: one head per rank,
  2 * 1 * 128 * 2 = 512 B/token/layer, page 8,192 B.  40 GiB // 8,192 // 64 = 81,920 blocks;
  max_model_len 40,960 -> 2,560 blocks per request -> 32.00x, 1,310,720 tokens.  With -pp 3 the
  64 layers split 21/22/21 (vLLM's get_pp_indices: the remainder goes to the stages before the
  last): 5,242,880 // 22 = 238,312 blocks.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.cli import EXIT_ACCEPT, EXIT_UNDECIDED, run
from kvguard.errors import CapacityNotModelled, InputError, Undecidable, UnsupportedVersion
from kvguard.kv.capacity import (
    CAPACITY_RELEASES,
    CapacityNotModelledResult,
    kv_capacity,
    pp_partitions,
    predict_capacity,
)
from kvguard.launch.resolve import resolve_model
from kvguard.versions import SUPPORTED_VERSIONS

GIB = 1 << 30
R1 = "deepseek-ai/DeepSeek-R1"
QWEN = "Qwen/Qwen3-32B"


def _r1(version, dcp=8, **kw):
    kw.setdefault("kv_memory_gib", 40)
    kw.setdefault("max_model_len", 163840)
    return predict_capacity(R1, tp=8, dcp=dcp, block_size=64, vllm_version=version, **kw)


# -- hand-computed figures ---------------------------------------------------------------------


def test_deepseek_r1_tp8_dcp8_0_28_0_one_line():
    cap = _r1("0.28.0")
    assert cap.page_size_bytes == 73728 and cap.bytes_per_token_per_layer == 1152
    assert cap.num_blocks == 9549 and cap.blocks_per_request == 320
    assert cap.max_concurrency == 29.840625 and cap.num_tokens == 4889088
    assert cap.scheduler_block_size == 512 and cap.kv_token_shards == 8 and cap.fits
    assert cap.log_lines == ("GPU KV cache size: 4,889,088 tokens, Maximum concurrency for 163,840 tokens per "
                             "request: 29.84x",)
    assert not cap.assumptions  # block size given


def test_deepseek_r1_dcp1_and_sweep():
    cap = _r1("0.28.0", dcp=1, dcp_sizes=[1, 2, 4, 8])
    assert cap.blocks_per_request == 2560 and cap.max_concurrency == 9549 / 2560
    assert cap.num_tokens == 611136
    assert cap.log_lines == ("GPU KV cache size: 611,136 tokens, Maximum concurrency for 163,840 tokens per "
                             "request: 3.73x",)
    sweep = {d.dcp: (d.num_tokens, d.num_blocks) for d in cap.by_dcp}
    assert sweep == {1: (611136, 9549), 2: (1222272, 9549), 4: (2444544, 9549), 8: (4889088, 9549)}


def test_log_lines_per_release_family():
    # 0.12.0–0.20.0: num_blocks * block_size * pcp * dcp, a "Multiplying" line, two lines
    assert _r1("0.20.0").log_lines == (
        "Multiplying the GPU KV cache size by the cp_world_size 8 (pcp_world_size 1 * dcp_world_size 8).",
        "GPU KV cache size: 4,889,088 tokens",
        "Maximum concurrency for 163,840 tokens per request: 29.84x")
    # 0.10.2–0.11.2: the dcp_world_size wording
    assert _r1("0.11.1").log_lines[0] == "Multiplying the GPU KV cache size by the dcp_world_size 8."
    # 0.20.1–0.27.1: two lines, tokens from the concurrency
    assert _r1("0.21.0").log_lines == ("GPU KV cache size: 4,889,088 tokens",
                                       "Maximum concurrency for 163,840 tokens per request: 29.84x")
    # 0.33.0: "%s KV cache size" with GPU on CUDA: the 0.28.0 text
    assert _r1("0.33.0").log_lines == _r1("0.28.0").log_lines


def test_formulas_differ_when_max_model_len_is_not_a_block_multiple():
    # 100,000 tokens at -dcp 1: cdiv(100000, 64) = 1,563 blocks per request
    old = _r1("0.20.0", dcp=1, max_model_len=100000)
    new = _r1("0.21.0", dcp=1, max_model_len=100000)
    assert old.num_tokens == 9549 * 64 == 611136
    assert new.num_tokens == int(9549 / 1563 * 100000) == 610940
    assert new.log_lines[0] == "GPU KV cache size: 610,940 tokens"
    assert old.max_concurrency == new.max_concurrency == 9549 / 1563


def test_pcp_shards_tokens_only_in_0_12_to_0_25():
    q = dict(tp=8, pcp=2, max_model_len=40960, kv_memory_gib=40, block_size=16)
    # Qwen3-235B-A22B: 4 KV heads, 94 layers: page 16 * 512 = 8,192; 40 GiB // 8,192 // 94 = 55,775
    mid = predict_capacity("Qwen/Qwen3-235B-A22B", vllm_version="0.20.0", **q)
    late = predict_capacity("Qwen/Qwen3-235B-A22B", vllm_version="0.28.0", **q)
    assert mid.num_blocks == late.num_blocks == 42949672960 // 8192 // 94 == 55775
    assert mid.blocks_per_request == 40960 // 2 // 16 and late.blocks_per_request == 40960 // 16
    assert mid.num_tokens == 55775 * 16 * 2 and mid.scheduler_block_size == 32
    assert late.num_tokens == int(55775 / 2560 * 40960) and late.scheduler_block_size == 16


def test_qwen3_32b_and_pipeline_parallel():
    cap = predict_capacity(QWEN, tp=8, max_model_len=40960, kv_memory_gib=40, vllm_version="0.28.0")
    assert cap.block_size == 16 and cap.assumptions  # the default block size is stated
    assert (cap.page_size_bytes, cap.num_blocks, cap.blocks_per_request) == (8192, 81920, 2560)
    assert cap.max_concurrency == 32.0 and cap.num_tokens == 1310720
    pp = predict_capacity(QWEN, tp=8, pp=3, max_model_len=40960, kv_memory_gib=40, vllm_version="0.28.0")
    assert pp.layers_per_stage == (21, 22, 21) and pp.num_blocks == 5242880 // 22 == 238312


def test_refusal_message_and_estimate():
    # 1 GiB at 0.28.0: one request needs 64 * 2,560 * 8,192 B = 1.25 GiB
    cap = predict_capacity(QWEN, tp=8, max_model_len=40960, kv_memory_gib=1, vllm_version="0.28.0")
    assert not cap.fits and cap.log_lines == () and cap.needed_bytes_per_request == 64 * 2560 * 8192
    # the largest L with 64 * cdiv(L, 16) * 8,192 <= 2**30: 2,048 blocks = 32,768 tokens
    assert cap.estimated_max_model_len == 32768
    assert cap.error == ("ValueError", "To serve at least one request with the model's max seq len (40960), "
                         "(1.25 GiB KV cache is needed, which is larger than the available KV cache memory (1.0 GiB). "
                         "Based on the available memory, the estimated maximum model length is 32768. Try increasing "
                         "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
                         "`max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/"
                         "configuration/conserving_memory/ for more details.")
    # 0.29.0 on hold one block per worker back for the null block: 2**30 - 64 * 8,192 B
    late = predict_capacity(QWEN, tp=8, max_model_len=40960, kv_memory_gib=1, vllm_version="0.29.0")
    assert late.estimated_max_model_len == 32752
    old = predict_capacity(QWEN, tp=8, max_model_len=40960, kv_memory_gib=1, vllm_version="0.12.0")
    assert "(1.25 GiB KV cache is needed" in old.error[1] and "models's max seq len" in old.error[1]
    assert "(1.00 GiB)" in old.error[1] and "32768. Try" in old.error[1]


def test_memory_inputs():
    by_bytes = predict_capacity(QWEN, tp=8, max_model_len=4096, available_kv_bytes=40 * GIB, vllm_version="0.28.0")
    by_gib = predict_capacity(QWEN, tp=8, max_model_len=4096, kv_memory_gib=40.0, vllm_version="0.28.0")
    assert by_bytes.num_blocks == by_gib.num_blocks
    est = predict_capacity(QWEN, tp=8, max_model_len=4096, gpu_memory_gib=80, gpu_memory_utilization=0.9,
                           weights_gib=8, other_gib=4, vllm_version="0.28.0")
    assert est.available_kv_bytes == math.ceil(80 * GIB * 0.9) - 8 * GIB - 4 * GIB
    assert any("activation" in n for n in est.notes)
    for bad in ({}, {"kv_memory_gib": 1, "available_kv_bytes": 5}, {"kv_memory_gib": -1},
                {"kv_memory_gib": float("nan")}, {"gpu_memory_gib": 80}, {"available_kv_bytes": 1.5},
                {"gpu_memory_gib": 80, "gpu_memory_utilization": 1.5, "weights_gib": 1}):
        with pytest.raises(InputError):
            predict_capacity(QWEN, tp=8, max_model_len=4096, vllm_version="0.28.0", **bad)
    for key, value in (("tp", 0), ("max_model_len", 0), ("block_size", 0), ("pp", True), ("dcp", -1)):
        kw = {"tp": 8, "max_model_len": 4096, "kv_memory_gib": 1, key: value}
        with pytest.raises(InputError):
            predict_capacity(QWEN, vllm_version="0.28.0", **kw)
    with pytest.raises(InputError):  # a stage without layers
        predict_capacity(QWEN, tp=8, pp=65, max_model_len=4096, kv_memory_gib=1, vllm_version="0.28.0")


def test_every_supported_release_is_covered():
    assert CAPACITY_RELEASES == (SUPPORTED_VERSIONS[0], "0.33.0")
    for version in SUPPORTED_VERSIONS:
        assert _r1(version).num_blocks == 9549, version
    with pytest.raises(UnsupportedVersion):
        _r1("0.9.0")


# -- not modelled --------------------------------------------------------------------------------


def _llama(**extra):
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
           "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 131072,
           "torch_dtype": "bfloat16"}
    cfg.update(extra)
    return cfg


@pytest.mark.parametrize("config", [
    "Qwen/Qwen3-Next-80B-A3B-Instruct",                      # linear + full attention
    "meta-llama/Llama-4-Scout-17B-16E-Instruct",             # chunked local attention
    "state-spaces/mamba-2.8b-hf",                            # Mamba, no attention KV cache
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1",                # heterogeneous layers
    "google/gemma-4-26B-A4B",                                # sliding + full layers of another head size
    "deepseek-ai/DeepSeek-V4-Flash",                         # MLA with sliding-window MLA layers
    # sliding window on an architecture whose layer windows were not read
    {**_llama(sliding_window=4096), "architectures": ["GraniteForCausalLM"], "model_type": "granite"},
])
def test_multi_group_models_are_not_modelled(config):
    with pytest.raises(CapacityNotModelled) as info:
        predict_capacity(config, tp=8, max_model_len=4096, kv_memory_gib=40, vllm_version="0.28.0")
    assert isinstance(info.value, Undecidable) and "kvguard predicts capacity only" in str(info.value)


def test_uniform_layer_types_and_disabled_sliding_window_are_modelled():
    cfg = _llama(layer_types=["full_attention"] * 32, sliding_window=4096, use_sliding_window=False)
    cap = predict_capacity(cfg, tp=8, max_model_len=4096, kv_memory_gib=40, vllm_version="0.28.0")
    assert cap.fits and cap.num_blocks == 40 * GIB // (16 * 2 * 1 * 128 * 2) // 32
    assert predict_capacity("Qwen/Qwen2.5-72B-Instruct", tp=8, max_model_len=4096, kv_memory_gib=40,
                            vllm_version="0.28.0").fits  # sliding_window set, use_sliding_window false


# -- properties ------------------------------------------------------------------------------------

_versions = st.sampled_from(["0.10.2", "0.11.1", "0.12.0", "0.14.1", "0.20.0", "0.20.1", "0.24.0", "0.26.0",
                             "0.28.0", "0.29.0", "0.33.0"])
_case = st.fixed_dictionaries({
    "bytes_per_token_per_layer": st.sampled_from([64, 128, 256, 512, 1024, 1152, 4096]),
    "num_layers": st.integers(1, 128), "block_size": st.sampled_from([1, 8, 16, 32, 64, 128]),
    "available_kv_bytes": st.integers(0, 200 * GIB), "max_model_len": st.integers(1, 1 << 20),
    "pp": st.sampled_from([1, 2, 3, 4, 8]), "pcp": st.sampled_from([1, 2, 4])})


def _cdiv(a, b):
    return -(a // -b)


@settings(max_examples=150, deadline=None)
@given(_versions, _case, st.sampled_from([2, 4, 8, 16]))
def test_concurrency_scales_with_dcp(version, case, d):
    if case["pp"] > case["num_layers"]:
        case["pp"] = 1
    one = kv_capacity(version, dcp=1, **case)
    more = kv_capacity(version, dcp=d, **case)
    assert more["num_blocks"] == one["num_blocks"]          # DCP shards tokens, not the block pool
    # c(1) <= c(d) <= d * c(1): blocks per request fall by at most the factor d
    assert one["max_concurrency"] <= more["max_concurrency"] <= d * one["max_concurrency"] * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(_versions, _case, st.sampled_from([1, 2, 4, 8]))
def test_accounting_invariants(version, case, dcp):
    if case["pp"] > case["num_layers"]:
        case["pp"] = 1
    out = kv_capacity(version, dcp=dcp, **case)
    from kvguard.versions import resolve
    rel = resolve(version)
    shards = dcp * case["pcp"] if rel.within("0.12.0", "0.25.1") else dcp
    bs, page = case["block_size"], case["block_size"] * case["bytes_per_token_per_layer"]
    worst = max(out["layers_per_stage"])
    assert sum(out["layers_per_stage"]) == case["num_layers"] and worst == _cdiv(case["num_layers"], case["pp"])
    assert out["num_blocks"] == case["available_kv_bytes"] // (page * worst)
    assert out["blocks_per_request"] == _cdiv(_cdiv(case["max_model_len"], shards), bs)
    tokens = out["num_tokens"]
    if rel.within(None, "0.20.0"):
        # the "GPU KV cache size" is block slots: a multiple of the block size (times the shards)
        tp_shards = dcp if rel.within(None, "0.11.2") else dcp * case["pcp"]
        assert tokens == out["num_blocks"] * bs * tp_shards and tokens % bs == 0
    else:
        assert tokens == int(out["max_concurrency"] * case["max_model_len"])
        assert tokens <= out["num_blocks"] * bs * shards
    if out["fits"]:
        # 0.10.2–0.11.0 log per worker (each distinct line once): up to three lines per stage
        most = 3 * case["pp"] if rel.within(None, "0.11.0") else 3
        assert 1 <= len(out["log_lines"]) <= most and out["error"] is None
        wanted = f"{case['max_model_len']:,} tokens per request: {out['max_concurrency']:.2f}x"
        assert any(wanted in line for line in out["log_lines"])
    else:
        assert out["log_lines"] == () and out["error"][0] == "ValueError"
    # it fits exactly when one request's blocks fit the checked worker(s)
    checked = [case["num_layers"]] if rel.within("0.14.0", "0.16.0") else out["layers_per_stage"]
    reserve = rel.within("0.29.0")
    fits = all(case["available_kv_bytes"] - (page * n if reserve else 0) > 0
               and n * out["blocks_per_request"] * page <= case["available_kv_bytes"] - (page * n if reserve else 0)
               for n in checked)
    assert out["fits"] == fits


@given(st.integers(1, 200), st.integers(1, 16))
def test_pp_partitions_like_get_pp_indices(layers, pp):
    parts = pp_partitions(layers, pp)
    assert len(parts) == pp and sum(parts) == layers
    assert max(parts) - min(parts) <= 1 and parts[-1] == layers // pp   # the last stage never gets extra
    if layers % pp:
        assert parts[-2] == layers // pp + 1


def test_pp_partition_env():
    assert pp_partitions(10, 2, "3,7") == [3, 7]
    for bad in ("3,8", "1,2,7", "a,b"):
        with pytest.raises(InputError):
            pp_partitions(10, 2, bad)


# -- command line ----------------------------------------------------------------------------------


def test_cli_text(capsys):
    rc = run(["audit", R1, "--tp", "8", "--dcp", "8", "--kv-memory-gib", "40", "--max-model-len", "163840",
              "--block-size", "64", "--vllm-version", "0.28.0"])
    out = capsys.readouterr().out
    assert rc == EXIT_ACCEPT
    assert "GPU KV cache size: 4,889,088 tokens, Maximum concurrency for 163,840 tokens per request: 29.84x" in out
    assert "-dcp 1: 611,136 tokens, 3.73x" in out and "-dcp 8: 4,889,088 tokens, 29.84x" in out


def test_cli_json_shape(capsys):
    rc = run(["audit", QWEN, "openai/gpt-oss-20b", "--tp", "8", "--kv-memory-gib", "40", "--max-model-len",
              "40960", "--pp", "2", "--vllm-version", "0.20.0", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == EXIT_ACCEPT
    cap = data["models"][0]["capacity"]
    assert cap["modelled"] is True and cap["num_blocks"] == 40 * GIB // 8192 // 32
    assert cap["layers_per_stage"] == [32, 32] and cap["error"] is None and cap["fits"] is True
    assert cap["log_lines"] == ["GPU KV cache size: 2,621,440 tokens",
                                "Maximum concurrency for 40,960 tokens per request: 64.00x"]
    assert [d["dcp"] for d in cap["by_dcp"]] == data["models"][0]["legal_dcp_sizes"]
    assert {"block_size", "scheduler_block_size", "page_size_bytes", "num_tokens", "max_concurrency",
            "assumptions"} <= set(cap)
    # gpt-oss over 2 stages (0.20.0): 256 B per token per layer at -tp 8, page 4,096; each stage 6 layers of each of
    # the 2 groups: 40 GiB // 4,096 // 6 = 1,747,626 blocks; per request 2,560 + cdiv(127 + 8,192, 16) + 1 = 3,081;
    # 1,747,626 // 2 * 16 = 13,981,008 tokens
    gpt = data["models"][1]["capacity"]
    assert (gpt["modelled"], gpt["num_blocks"], gpt["blocks_per_request"], gpt["num_tokens"]) == \
        (True, 1747626, 3081, 13981008)


def test_cli_sliding_window_model(capsys):
    rc = run(["audit", "openai/gpt-oss-20b", "--tp", "1", "--kv-memory-gib", "40", "--max-model-len", "131072",
              "--vllm-version", "0.26.0", "--no-async-scheduling", "--max-num-batched-tokens", "2048"])
    out = capsys.readouterr().out
    # one batch of 2,048 in flight: cdiv(127 + 2,048, 16) + 1 = 137 -> 8,329 blocks; 109,226 / 8,329
    assert rc == EXIT_ACCEPT and "8,329 blocks per request" in out
    assert "Maximum concurrency for 131,072 tokens per request: 13.11x" in out


def test_cli_without_capacity_has_no_capacity_key(capsys):
    assert run(["audit", QWEN, "--tp", "8", "--format", "json"]) == EXIT_ACCEPT
    assert "capacity" not in json.loads(capsys.readouterr().out)["models"][0]


@pytest.mark.parametrize("argv", [
    # (--kv-memory-gib alone is valid: the derived maximum length, as vLLM — tests/test_length.py)
    ["--max-model-len", "4096"],
    ["--block-size", "16"],
    ["--pp", "2"],
    ["--kv-memory-gib", "-1", "--max-model-len", "4096"],
    ["--kv-memory-gib", "nan", "--max-model-len", "4096"],
    ["--kv-memory-gib", "40", "--max-model-len", "0"],
    ["--kv-memory-gib", "40", "--max-model-len", "4096", "--block-size", "0"],
    ["--kv-memory-gib", "40", "--max-model-len", "4096", "--pp", "100"],
    ["--kv-memory-gib", "x", "--max-model-len", "4096"],
])
def test_cli_bad_capacity_input_exits_2(capsys, argv):
    assert run(["audit", QWEN, "--tp", "8", *argv]) == EXIT_UNDECIDED
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kvguard:")


def test_not_modelled_result_type():
    from kvguard.kv.economics import audit
    report = audit(["Qwen/Qwen3-Next-80B-A3B-Instruct"], 8, max_model_len=4096, kv_memory_gib=10,
                   vllm_version="0.28.0")
    assert isinstance(report.models[0].capacity, CapacityNotModelledResult)


def test_catalog_config_resolves():
    assert resolve_model(R1).config["kv_lora_rank"] == 512


def test_registry_flags_catch_a_hybrid_whatever_its_config_says():
    """Qwen3-Next is hybrid in vLLM's registry: with a plain qwen3 model_type the config alone looks like
    one attention group, the registry flag still says no."""
    from kvguard import catalog

    cfg = dict(catalog.lookup("Qwen/Qwen3-32B").config, architectures=["Qwen3NextForCausalLM"])
    with pytest.raises(CapacityNotModelled, match="is_hybrid"):
        predict_capacity(cfg, tp=8, max_model_len=4096, kv_memory_gib=40.0, vllm_version="0.28.0")


# -- sliding-window layers -------------------------------------------------------------------------
#
# Worked out by hand from vLLM's rules (kv_cache_utils.py, kv_cache_interface.py SlidingWindowSpec), not by calling
# kvguard:
#
# - gpt-oss-20b (24 layers, even ones sliding window 128, 8 KV heads of 64, bf16) at -tp 1, block size 16:
#   2 * 8 * 64 * 2 = 2,048 B/token/layer, page 32,768 B.  12 sliding + 12 full -> 2 groups of 12 layers.
#   40 GiB // 32,768 // 12 = 109,226 blocks.  max_model_len 131,072: full 8,192 blocks per request; sliding
#   cdiv(min(127 + 8,192, 131,072), 16) + 1 = 521 (to 0.24.0: max_num_batched_tokens 8,192) -> 8,713 blocks,
#   12.535980718466659x; from 0.26.0 two batches in flight: cdiv(127 + 16,384, 16) + 1 = 1,033 -> 9,225 blocks,
#   11.840216802168023x.  Tokens: 109,226 // 2 groups * 16 = 873,808 (to 0.20.0); int(x * 131,072) = 1,643,116
#   (0.20.1-0.24.0) and 1,551,920 (0.26.0 on).
# - gemma-3-27b (62 layers, every 6th full, the rest sliding window 1,024; 16 KV heads of 128, bf16) at -tp 2:
#   8 heads per rank, 4,096 B/token/layer, page 65,536 B.  52 sliding + 10 full: group size 10 (52 is not under
#   1.5 * 10), 6 sliding groups + 1 full group.  20 GiB // 65,536 // 10 = 32,768 blocks.  max_model_len 131,072:
#   8,192 + 6 * (cdiv(1,023 + 8,192, 16) + 1 = 577) = 11,654 blocks -> 2.8117384588982324x, 32,768 // 7 * 16 =
#   74,896 tokens (to 0.20.0); from 0.26.0 6 * (cdiv(1,023 + 16,384, 16) + 1 = 1,089) + 8,192 = 14,726 blocks,
#   int(32,768 / 14,726 * 131,072) = 291,658 tokens.

_GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "torch_dtype": "bfloat16",
    "boi_token_index": 255999, "eoi_token_index": 256000, "image_token_index": 262144, "mm_tokens_per_image": 256,
    "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
                    "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16,
                    "query_pre_attn_scalar": 168, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "sliding_window": 1024},
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": False}}


@pytest.mark.parametrize("version, blocks_per_request, concurrency, tokens, lines", [
    ("0.10.2", 8713, 12.535980718466659, 873808, ("GPU KV cache size: 873,808 tokens",
                                                  "Maximum concurrency for 131,072 tokens per request: 12.54x")),
    ("0.20.0", 8713, 12.535980718466659, 873808, ("GPU KV cache size: 873,808 tokens",
                                                  "Maximum concurrency for 131,072 tokens per request: 12.54x")),
    ("0.24.0", 8713, 12.535980718466659, 1643116, ("GPU KV cache size: 1,643,116 tokens",
                                                   "Maximum concurrency for 131,072 tokens per request: 12.54x")),
    ("0.26.0", 9225, 11.840216802168023, 1551920, ("GPU KV cache size: 1,551,920 tokens",
                                                   "Maximum concurrency for 131,072 tokens per request: 11.84x")),
    ("0.33.0", 9225, 11.840216802168023, 1551920, ("GPU KV cache size: 1,551,920 tokens, Maximum concurrency for "
                                                   "131,072 tokens per request: 11.84x",)),
])
def test_gpt_oss_20b_sliding_and_full_groups(version, blocks_per_request, concurrency, tokens, lines):
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, max_model_len=131072, kv_memory_gib=40, vllm_version=version)
    assert (cap.num_blocks, cap.blocks_per_request, cap.max_concurrency, cap.num_tokens, cap.log_lines) == \
        (109226, blocks_per_request, concurrency, tokens, lines)
    assert any("max_num_batched_tokens 8192" in a for a in cap.assumptions)
    assert any("2 KV-cache groups of 12 layers" in n for n in cap.notes)


@pytest.mark.parametrize("version, blocks_per_request, concurrency, tokens", [
    ("0.10.2", 11654, 2.8117384588982324, 74896), ("0.18.0", 11654, 2.8117384588982324, 74896),
    ("0.20.0", 11654, 2.8117384588982324, 74896), ("0.26.0", 14726, 2.22517995382317, 291658),
    ("0.33.0", 14726, 2.22517995382317, 291658),
])
def test_gemma3_27b_five_sliding_one_full(version, blocks_per_request, concurrency, tokens):
    cap = predict_capacity(_GEMMA3_27B, tp=2, max_model_len=131072, available_kv_bytes=20 * GIB, vllm_version=version)
    assert (cap.num_blocks, cap.blocks_per_request, cap.max_concurrency, cap.num_tokens) == \
        (32768, blocks_per_request, concurrency, tokens)


def test_sliding_window_knobs():
    # --max-num-batched-tokens 2048 at 0.20.0: sliding cdiv(127 + 2,048, 16) + 1 = 137 -> 8,329 blocks
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, max_model_len=131072, kv_memory_gib=40, vllm_version="0.20.0",
                           max_num_batched_tokens=2048)
    assert cap.blocks_per_request == 8192 + 137
    # --no-async-scheduling at 0.26.0: one batch in flight, as 0.24.0
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, max_model_len=131072, kv_memory_gib=40, vllm_version="0.26.0",
                           async_scheduling=False)
    assert cap.blocks_per_request == 8713
    # --disable-sliding-window: every layer full attention, one group of 24: 40 GiB // 32,768 // 24 = 54,613 blocks
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, max_model_len=4096, kv_memory_gib=40, vllm_version="0.26.0",
                           disable_sliding_window=True)
    assert (cap.num_blocks, cap.blocks_per_request) == (54613, 256)


def test_cohere2_sliding_layer_without_a_window_is_not_modelled_from_0_29_0():
    # commandr.py 0.29.0+ gives a sliding_attention layer config.sliding_window + 1: with --disable-sliding-window
    # (the window None) the model raises TypeError while it is built (tests/upstream/test_sliding_layers.py saw it)
    cohere2 = {"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "hidden_size": 512,
               "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 8, "intermediate_size": 1024,
               "vocab_size": 1000, "max_position_embeddings": 8192, "sliding_window": 4096,
               "sliding_window_pattern": 4, "torch_dtype": "bfloat16"}
    # 2 * 2 * 128 * 2 = 1,024 B/token/layer, page 16,384; 6 sliding (window 4,097) + 2 full: group size 2, 3 + 1 groups
    cap = predict_capacity(cohere2, tp=1, max_model_len=8192, kv_memory_gib=1, vllm_version="0.29.0")
    assert cap.num_blocks == GIB // 16384 // 2
    assert cap.blocks_per_request == 512 + 3 * (_cdiv(min(4096 + 16384, 8192), 16) + 1)
    with pytest.raises(CapacityNotModelled, match="TypeError"):
        predict_capacity(cohere2, tp=1, max_model_len=4096, kv_memory_gib=1, vllm_version="0.29.0",
                         disable_sliding_window=True)
    # 0.28.0 uses the window as it is and --disable-sliding-window leaves every layer full attention
    cap = predict_capacity(cohere2, tp=1, max_model_len=4096, kv_memory_gib=1, vllm_version="0.28.0",
                           disable_sliding_window=True)
    assert (cap.num_blocks, cap.blocks_per_request) == (GIB // 16384 // 8, 256)


@pytest.mark.parametrize("kwargs, why", [
    ({"pp": 2, "tp": 8}, "span more than one 8-GPU node"),
    ({"pp": 2, "env": {"VLLM_USE_V2_MODEL_RUNNER": "yes"}}, "is not an integer"),
    ({"pp": 2, "vllm_version": "0.24.0", "disable_hybrid_kv_cache_manager": True}, "was not checked"),
    ({"pp": 2, "vllm_version": "0.24.0", "env": {"VLLM_PP_LAYER_PARTITION": "10,14"}}, "was not checked"),
    ({"dcp": 2, "tp": 2}, "-pcp/-dcp above 1"),
])
def test_sliding_window_layouts_not_modelled(kwargs, why):
    args = {"tp": 1, "max_model_len": 4096, "kv_memory_gib": 40, "vllm_version": "0.28.0", **kwargs}
    with pytest.raises(CapacityNotModelled, match=why):
        predict_capacity("openai/gpt-oss-20b", **args)


def test_layer_types_all_full_with_a_window_slides_every_layer_in_0_11_1_to_0_26_0():
    # CacheConfig.sliding_window is the config's window unless layer_types mixes kinds (to 0.26.0) / is not all
    # sliding (0.27.0 on); Llama's layers take it when their own type gives none.  -tp 8: 1 KV head per rank,
    # 512 B/token/layer, page 8,192: 40 GiB // 8,192 // 32 = 163,840 blocks; max_model_len 4,096: full 256 blocks,
    # sliding cdiv(min(4,095 + 8,192, 4,096), 16) + 1 = 257
    cfg = _llama(layer_types=["full_attention"] * 32, sliding_window=4096, use_sliding_window=False)
    for version, blocks in (("0.11.1", 257), ("0.20.0", 257), ("0.26.0", 257), ("0.27.0", 256), ("0.28.0", 256)):
        cap = predict_capacity(cfg, tp=8, max_model_len=4096, kv_memory_gib=40, vllm_version=version)
        assert (cap.num_blocks, cap.blocks_per_request) == (163840, blocks), version


def test_sliding_mistral_every_layer_and_qwen2_mixed_layers():
    # Mistral-7B-v0.1: no layer_types, sliding_window 4096 -> CacheConfig.sliding_window on every layer, one group
    mistral = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
               "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
               "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
               "sliding_window": 4096, "torch_dtype": "bfloat16"}
    cap = predict_capacity(mistral, tp=1, max_model_len=32768, kv_memory_gib=40, vllm_version="0.20.0")
    # 2 * 8 * 128 * 2 = 4,096 B/token/layer, page 65,536: 40 GiB // 65,536 // 32 = 20,480 blocks; per request
    # cdiv(min(4,095 + 8,192, 32,768), 16) + 1 = 769 -> 26.63x, 20,480 // 1 * 16 = 327,680 tokens
    assert (cap.num_blocks, cap.blocks_per_request, cap.num_tokens) == (20480, 769, 327680)
    qwen = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 1024,
            "num_attention_heads": 8, "num_key_value_heads": 2, "num_hidden_layers": 12, "intermediate_size": 2048,
            "vocab_size": 1000, "max_position_embeddings": 32768, "use_sliding_window": True, "sliding_window": 4096,
            "max_window_layers": 6, "torch_dtype": "bfloat16"}
    with pytest.raises(CapacityNotModelled, match="asserts"):
        predict_capacity(qwen, tp=1, max_model_len=4096, kv_memory_gib=40, vllm_version="0.20.0")


_sliding_versions = st.sampled_from(["0.10.2", "0.11.1", "0.12.0", "0.14.1", "0.18.0", "0.20.0", "0.20.1", "0.24.0",
                                     "0.26.0", "0.28.0", "0.29.0", "0.33.0"])


@settings(max_examples=150, deadline=None)
@given(_sliding_versions, st.lists(st.sampled_from([None, 128, 1024]), min_size=1, max_size=40),
       st.sampled_from([1, 16, 64]), st.integers(1, 1 << 18), st.integers(1, 40000), st.integers(0, 4 * GIB))
def test_sliding_accounting_invariants(version, windows, block_size, max_model_len, batched, available):
    from kvguard.kv.capacity import kv_capacity_sliding

    out = kv_capacity_sliding(version, bytes_per_token_per_layer=1024, layer_windows=windows, block_size=block_size,
                              available_kv_bytes=available, max_model_len=max_model_len,
                              max_num_batched_tokens=batched)
    # every layer full attention: the one-group accounting, exactly
    if all(w is None for w in windows):
        plain = kv_capacity(version, bytes_per_token_per_layer=1024, num_layers=len(windows), block_size=block_size,
                            available_kv_bytes=available, max_model_len=max_model_len)
        assert (out["num_blocks"], out["max_concurrency"], out["fits"]) == \
            (plain["num_blocks"], plain["max_concurrency"], plain["fits"])
        assert out["log_lines"] == plain["log_lines"]
    # a sliding-window group never needs more blocks per request than a full-attention one (+1 for the window edge)
    full_blocks = _cdiv(max_model_len, block_size)
    assert out["blocks_per_request"] <= len(out["kv_cache_groups"]) * (full_blocks + 1)
    assert out["num_blocks"] == max(available // (block_size * 1024) // out["group_size"], 0)


def test_cli_disable_sliding_window_caps_the_derived_length(capsys):
    # ModelConfig caps the derived length at the window under --disable-sliding-window (gpt-oss: 128), with or
    # without a capacity section
    assert run(["audit", "openai/gpt-oss-120b", "--tp", "2", "--vllm-version", "0.33.0",
                "--disable-sliding-window"]) == EXIT_ACCEPT
    assert "max model len (derived): 128 (sliding_window=128.0)" in capsys.readouterr().out


def test_cli_disable_sliding_window_sizes_every_layer_as_full_attention(capsys):
    # gpt-oss-20b, --disable-sliding-window: one group of 24 full-attention layers, page 32,768 B:
    # 40 GiB // 32,768 // 24 = 54,613 blocks; the derived 131,072 tokens (yarn from the window key) need 8,192 blocks
    assert run(["audit", "openai/gpt-oss-20b", "--tp", "1", "--kv-memory-gib", "40", "--vllm-version", "0.26.0",
                "--disable-sliding-window"]) == EXIT_ACCEPT
    assert "54,613 blocks, 8,192 blocks per request" in capsys.readouterr().out


# -- --disable-hybrid-kv-cache-manager -------------------------------------------------------------
#
# Worked out by hand from unify_hybrid_kv_cache_specs / _promote_local_kv_cache_specs (kv_cache_utils.py): full and
# sliding layers together become one full-attention group.  gpt-oss-20b at -tp 1, block size 16, page 32,768 B,
# 24 layers: 40 GiB // 32,768 // 24 = 54,613 blocks; 131,072 tokens need 8,192 blocks -> 54,613 / 8,192 =
# 6.6666259765625x; tokens 54,613 * 16 = 873,808 (to 0.20.0; from 0.20.1 int(x * 131,072), the same number).

@pytest.mark.parametrize("version, lines", [
    ("0.10.2", ("GPU KV cache size: 873,808 tokens", "Maximum concurrency for 131,072 tokens per request: 6.67x")),
    ("0.20.0", ("GPU KV cache size: 873,808 tokens", "Maximum concurrency for 131,072 tokens per request: 6.67x")),
    ("0.28.0", ("GPU KV cache size: 873,808 tokens, Maximum concurrency for 131,072 tokens per request: 6.67x",)),
    ("0.33.0", ("GPU KV cache size: 873,808 tokens, Maximum concurrency for 131,072 tokens per request: 6.67x",)),
])
def test_disable_hybrid_kv_cache_manager_sizes_sliding_layers_as_full(version, lines):
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, max_model_len=131072, kv_memory_gib=40, vllm_version=version,
                           disable_hybrid_kv_cache_manager=True)
    assert (cap.num_blocks, cap.blocks_per_request, cap.max_concurrency, cap.num_tokens, cap.log_lines) == \
        (54613, 8192, 6.6666259765625, 873808, lines)
    assert any("one KV-cache group of 24 layers" in n and "Hybrid KV cache manager is disabled for this hybrid "
               "model" in n for n in cap.notes)
    assert not any(a.startswith("hybrid KV-cache manager on") for a in cap.assumptions)


def test_disable_hybrid_kv_cache_manager_fit_check_before_unifying_to_0_13_0():
    # 4 GiB: the sliding layers' own bounds need 12 * 8,192 + 12 * 521 = 104,556 blocks * 32,768 B = 3.19 GiB (fits);
    # as full attention 24 * 8,192 * 32,768 B = 6 GiB (does not).  To 0.13.0 the check runs on the workers' own
    # specs, so vLLM starts with 4 GiB // 32,768 // 24 = 5,461 blocks, 5,461 / 8,192 = 0.6666259765625x, 87,376
    # tokens; from 0.14.1 the check runs on the unified group and refuses, estimating cdiv(L, 16) <= 5,461 -> 87,376.
    args = {"tp": 1, "max_model_len": 131072, "available_kv_bytes": 4 * GIB, "disable_hybrid_kv_cache_manager": True}
    cap = predict_capacity("openai/gpt-oss-20b", vllm_version="0.13.0", **args)
    assert (cap.fits, cap.num_blocks, cap.max_concurrency, cap.num_tokens) == (True, 5461, 0.6666259765625, 87376)
    assert cap.log_lines == ("GPU KV cache size: 87,376 tokens",
                             "Maximum concurrency for 131,072 tokens per request: 0.67x")
    cap = predict_capacity("openai/gpt-oss-20b", vllm_version="0.14.1", **args)
    assert (cap.fits, cap.estimated_max_model_len, cap.log_lines) == (False, 87376, ())
    assert cap.error == ("ValueError", "To serve at least one request with the models's max seq len (131072), (6.0 GiB "
                         "KV cache is needed, which is larger than the available KV cache memory (4.0 GiB). Based on "
                         "the available memory, the estimated maximum model length is 87376. Try increasing "
                         "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See "
                         "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
    # the hybrid manager on at 0.14.1: the check reads the first group (12 sliding layers), it starts
    assert predict_capacity("openai/gpt-oss-20b", vllm_version="0.14.1", **{**args,
                            "disable_hybrid_kv_cache_manager": False}).fits


def test_disable_hybrid_kv_cache_manager_one_spec_and_refusals():
    from kvguard.kv.capacity import kv_capacity_sliding

    # Mistral-7B-v0.1 slides on every layer (one spec): nothing to unify, the figures of the hybrid accounting
    mistral = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
               "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
               "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
               "sliding_window": 4096, "torch_dtype": "bfloat16"}
    cap = predict_capacity(mistral, tp=1, max_model_len=32768, kv_memory_gib=40, vllm_version="0.20.0",
                           disable_hybrid_kv_cache_manager=True)
    assert (cap.num_blocks, cap.blocks_per_request, cap.num_tokens) == (20480, 769, 327680)
    plenty = {"bytes_per_token_per_layer": 1024, "block_size": 16, "available_kv_bytes": 4 * GIB,
              "max_model_len": 4096, "max_num_batched_tokens": 8192, "disable_hybrid_kv_cache_manager": True}
    # full layers and two windows: merge_window_sizes refuses the one group
    for version in ("0.10.2", "0.13.0", "0.20.0", "0.33.0"):
        out = kv_capacity_sliding(version, layer_windows=[None, 128, 256], **plenty)
        assert out["error"] == ("ValueError", "All attention layers in the same KV cache group must have the same "
                                "window size."), version
    # two windows, no full layer: nothing is converted, the specs stay of two kinds
    assert kv_capacity_sliding("0.26.0", layer_windows=[128, 256], **plenty)["error"] == (
        "ValueError", "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified "
        "type.")
    assert kv_capacity_sliding("0.27.0", layer_windows=[128, 256], **plenty)["error"] == (
        "ValueError", "Failed to promote local KV cache specs to one unified type.")
    # to 0.13.0 the memory check comes first: with no memory its refusal is the one raised
    out = kv_capacity_sliding("0.13.0", layer_windows=[None, 128, 256], **{**plenty, "available_kv_bytes": 0})
    assert out["error"][1].startswith("No available memory for the cache blocks.")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["0.14.1", "0.18.0", "0.20.0", "0.20.1", "0.24.0", "0.26.0", "0.29.0", "0.33.0"]),
       st.lists(st.sampled_from([None, 512]), min_size=2, max_size=40).filter(lambda w: len(set(w)) == 2),
       st.sampled_from([1, 16, 64]), st.integers(1, 1 << 18), st.integers(0, 4 * GIB))
def test_disable_hybrid_kv_cache_manager_is_the_one_group_accounting(version, windows, block_size, max_model_len,
                                                                     available):
    from kvguard.kv.capacity import kv_capacity_sliding

    out = kv_capacity_sliding(version, bytes_per_token_per_layer=1024, layer_windows=windows, block_size=block_size,
                              available_kv_bytes=available, max_model_len=max_model_len, max_num_batched_tokens=8192,
                              disable_hybrid_kv_cache_manager=True)
    plain = kv_capacity(version, bytes_per_token_per_layer=1024, num_layers=len(windows), block_size=block_size,
                        available_kv_bytes=available, max_model_len=max_model_len)
    for key in ("num_blocks", "max_concurrency", "num_tokens", "fits", "error", "log_lines"):
        assert out[key] == plain[key], key


def test_cli_disable_hybrid_kv_cache_manager(capsys):
    assert run(["audit", "openai/gpt-oss-20b", "--tp", "1", "--kv-memory-gib", "40", "--vllm-version", "0.28.0",
                "--disable-hybrid-kv-cache-manager"]) == EXIT_ACCEPT
    out = capsys.readouterr().out
    assert "54,613 blocks, 8,192 blocks per request" in out
    assert "GPU KV cache size: 873,808 tokens, Maximum concurrency for 131,072 tokens per request: 6.67x" in out


# -- sliding-window layers over pipeline stages ----------------------------------------------------------
#
# By hand from get_kv_cache_configs / get_kv_cache_config_from_groups (0.11.0 on: the groups of the whole model, group
# i of a bucket taking layers[i::num_groups]; each worker as many pools as the most layers of one group it holds).
# gpt-oss-20b, -tp 1, 40 GiB, 131,072 tokens, page 32,768 B: 2 groups of 12 (sliding 0, 2, …, 22; full 1, 3, …, 23).
# -pp 2: each stage holds 6 of each group -> 40 GiB // 32,768 // 6 = 218,453 blocks; per request 8,192 + 521 = 8,713
# blocks -> 25.07x; 218,453 // 2 groups * 16 = 1,747,616 tokens (to 0.20.0), int(218,453 / 8,713 * 131,072) =
# 3,286,247 (0.20.1-0.24.0).  -pp 3 (8 layers each): 4 of each group per stage -> 327,680 blocks.

@pytest.mark.parametrize("version, pp, blocks, tokens", [
    ("0.10.2", 2, 218453, 1747616), ("0.13.0", 2, 218453, 1747616), ("0.20.0", 2, 218453, 1747616),
    ("0.24.0", 2, 218453, 3286247), ("0.20.0", 3, 327680, 2621440),
])
def test_gpt_oss_20b_over_pipeline_stages(version, pp, blocks, tokens):
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, pp=pp, max_model_len=131072, kv_memory_gib=40,
                           vllm_version=version)
    assert (cap.num_blocks, cap.blocks_per_request, cap.num_tokens) == (blocks, 8713, tokens)
    assert cap.max_concurrency == blocks / 8713


def test_sliding_layers_over_stages_group_across_the_stages_and_0_10_2_asserts():
    from kvguard.kv.capacity import kv_capacity_sliding_pp

    # 6 layers: 4 sliding (0, 1, 3, 4) and 2 full (2, 5); 0.18.0 on group size 2 (4 < 1.5 x 2? no: smallest, 2):
    # sliding groups (0, 3) and (1, 4) (layers[i::2]), full (2, 5).  -pp 2 (layers 0-2 | 3-5): each stage one layer
    # of each group -> 1 pool: num_blocks = 1 MiB // (16 x 1,024) // 1 = 64.  Consecutive runs would give stage 0
    # two layers of the first sliding group (32 blocks).
    windows = [128, 128, None, 128, 128, None]
    args = {"bytes_per_token_per_layer": 1024, "layer_windows": windows, "block_size": 16,
            "available_kv_bytes": 1 << 20, "max_model_len": 256, "max_num_batched_tokens": 64, "pp": 2}
    out = kv_capacity_sliding_pp("0.20.0", **args)
    assert (out["num_blocks"], out["kv_cache_groups"], out["group_size"]) == (64, (128, 128, None), 2)
    # per request: 2 x (cdiv(127 + 64, 16) + 1 = 13) + 16 = 42 blocks
    assert out["blocks_per_request"] == 42
    # 0.10.2 groups each stage alone: stage 0 (128, 128, None) -> group size 1, 3 groups, and so does stage 1; the
    # sorted specs agree, so it starts; -pp 3 (0-1 | 2-3 | 4-5) gives stage 0 only sliding layers (1 group) and
    # stage 1 full + sliding: the sorted specs differ, a bare AssertionError
    assert kv_capacity_sliding_pp("0.10.2", **args)["fits"]
    assert kv_capacity_sliding_pp("0.10.2", **{**args, "pp": 3})["error"] == ("AssertionError", "")


@pytest.mark.parametrize("version", ["0.14.0", "0.14.1", "0.16.0"])
def test_stages_fit_check_0_14_to_0_16_sizes_by_the_largest_group(version):
    from kvguard.kv.capacity import kv_capacity_sliding_pp

    # 9 sliding layers (first seen) and 4 full: group size 4, the sliding bucket split layers[i::3] into 3 groups of
    # 3; the global check counts the largest group's 4 layers: 4 x 16,384 B x (cdiv(min(127 + 64, 256), 16) + 1 =
    # 13) = 851,968 B > 700,000 (3 layers would fit: 638,976); 4 x 16,384 x b <= 700,000 -> b <= 10 -> 144 tokens
    out = kv_capacity_sliding_pp(version, bytes_per_token_per_layer=1024, layer_windows=[128, 128, None] * 4 + [128],
                                 block_size=16, available_kv_bytes=700_000, max_model_len=256,
                                 max_num_batched_tokens=64, pp=2)
    assert (out["group_size"], out["needed_bytes_per_request"], out["estimated_max_model_len"]) == (4, 851968, 144)
    assert out["error"][0] == "ValueError" and "the estimated maximum model length is 144." in out["error"][1]


def test_in_flight_tokens_over_pipeline_stages():
    from kvguard.kv.capacity import in_flight_tokens

    # VllmConfig.max_concurrent_batches (0.26.0 on): async + V2 runner pp + 1; async + V1 runner 2 at -pp 1, else pp
    assert in_flight_tokens("0.28.0", 8192, True, pp=1) == 16384
    assert in_flight_tokens("0.28.0", 8192, True, pp=4) == 4 * 8192
    assert in_flight_tokens("0.28.0", 8192, True, pp=4, v2_model_runner=True) == 5 * 8192
    assert in_flight_tokens("0.28.0", 8192, False, pp=4, v2_model_runner=True) == 4 * 8192
    assert in_flight_tokens("0.24.0", 8192, True, pp=4) == 8192


@pytest.mark.parametrize("version, needed", [
    # one sliding layer (window 128) then one full layer: two groups of one, page 16 x 1,024 = 16,384 B; per request
    # the sliding group min(127 + 64, 256) -> cdiv(191, 16) + 1 = 13 blocks, the full one 256 / 16 = 16.
    # To 0.13.0 (0.11.2 as 0.11.1) every layer's own bound: (13 + 16) x 16,384
    ("0.11.1", 475136), ("0.11.2", 475136), ("0.13.0", 475136),
    # 0.14.0-0.18.1 the first group's spec for every group (0.14.0 as 0.14.1, 0.18.1 as 0.18.0): 13 x 16,384
    ("0.14.0", 212992), ("0.14.1", 212992), ("0.18.0", 212992), ("0.18.1", 212992),
    # 0.19.0 on every group (0.19.0 as 0.19.1; 0.25.x's window as 0.24.0's, max_num_batched_tokens)
    ("0.19.0", 475136), ("0.19.1", 475136), ("0.24.0", 475136), ("0.25.0", 475136), ("0.25.1", 475136),
])
def test_point_releases_size_sliding_layers_as_their_neighbours(version, needed):
    from kvguard.kv.capacity import kv_capacity_sliding

    out = kv_capacity_sliding(version, bytes_per_token_per_layer=1024, layer_windows=[128, None], block_size=16,
                              available_kv_bytes=1 << 20, max_model_len=256, max_num_batched_tokens=64)
    assert (out["kv_cache_groups"], out["blocks_per_request"], out["needed_bytes_per_request"]) == \
        ((128, None), 29, needed)


@pytest.mark.parametrize("version, env, async_scheduling, batches, runner", [
    # 0.26.0-0.28.0: gpt-oss is a MoE model outside DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES -> V1, which at -pp > 1
    # keeps pp batches even with async scheduling on
    ("0.28.0", None, None, 2, "model runner V1"),
    ("0.26.0", None, None, 2, "model runner V1"),
    ("0.28.0", {"VLLM_USE_V2_MODEL_RUNNER": "1"}, None, 3, "model runner V2 (VLLM_USE_V2_MODEL_RUNNER=1)"),
    # 0.29.0 on: V2 by default, async on -> pp + 1
    ("0.29.0", None, None, 3, "model runner V2"),
    ("0.33.0", None, None, 3, "model runner V2"),
    ("0.29.0", None, False, 2, "async scheduling off (--no-async-scheduling)"),
    # 0.31.0 on: the V1 runner at -pp > 1 turns async scheduling off (pp batches either way)
    ("0.33.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, None, 2, "the default turns it off for the V1 runner"),
])
def test_sliding_window_pp_from_0_26_0_reserves_the_resolved_batches(version, env, async_scheduling, batches,
                                                                      runner):
    # gpt-oss-20b at -tp 1 -pp 2: 8 KV heads of 64, bf16 -> 2,048 B/token/layer, page 32,768 B; 24 layers, even ones
    # sliding (window 128): stage 0 holds layers 0-11, 6 of each 12-layer group -> 6 pools: 40 GiB // (6 x 32,768)
    # = 218,453 blocks.  One 131,072-token request: full 8,192 blocks + sliding cdiv(127 + batches x 8,192, 16) + 1:
    # 2 batches 1,033 -> 9,225; 3 batches 1,545 -> 9,737
    cap = predict_capacity("openai/gpt-oss-20b", tp=1, pp=2, max_model_len=131072, kv_memory_gib=40,
                           vllm_version=version, env=env, async_scheduling=async_scheduling)
    assert cap.num_blocks == 218453
    assert cap.blocks_per_request == {2: 9225, 3: 9737}[batches]
    decided = [a for a in cap.assumptions if a.startswith("model runner")]
    assert len(decided) == 1 and runner in decided[0]
    assert f"max_concurrent_batches = {batches} batches" in decided[0]


def test_serve_pp_runner_dense_models_take_v2_from_0_26_0():
    from kvguard.kv.capacity import serve_pp_runner

    # a dense model: V2 in 0.26.0 too; a MoE one V1 unless its architecture is a default-V2 one (Qwen2Moe from
    # 0.26.0, DeepseekV4 only from 0.28.0)
    assert serve_pp_runner("0.26.0", architectures=["Gemma2ForCausalLM"], is_moe=False, pp=2)[:2] == (True, True)
    assert serve_pp_runner("0.26.0", architectures=["Qwen2MoeForCausalLM"], is_moe=True, pp=2)[:2] == (True, True)
    assert serve_pp_runner("0.27.0", architectures=["DeepseekV4ForCausalLM"], is_moe=True, pp=2)[:2] == (False, True)
    assert serve_pp_runner("0.28.0", architectures=["DeepseekV4ForCausalLM"], is_moe=True, pp=2)[:2] == (True, True)
    # 0.30.0 keeps async scheduling on for the V1 runner at -pp > 1; 0.31.0 turns it off
    env = {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    assert serve_pp_runner("0.30.0", architectures=["GptOssForCausalLM"], is_moe=True, pp=2, env=env)[:2] == \
        (False, True)
    assert serve_pp_runner("0.31.0", architectures=["GptOssForCausalLM"], is_moe=True, pp=2, env=env)[:2] == \
        (False, False)
    with pytest.raises(ValueError):
        serve_pp_runner("0.24.0", architectures=["Gemma2ForCausalLM"], is_moe=False, pp=2)


@given(version=st.sampled_from(["0.26.0", "0.27.0", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"]),
       pp=st.integers(2, 8), is_moe=st.booleans(), env=st.sampled_from([None, "0", "1"]),
       no_async=st.booleans(), batched=st.integers(1, 1 << 16))
def test_serve_pp_runner_batches_are_pp_or_pp_plus_one(version, pp, is_moe, env, no_async, batched):
    from kvguard.kv.capacity import in_flight_tokens, serve_pp_runner

    v2, async_on, why = serve_pp_runner(version, architectures=["GptOssForCausalLM"], is_moe=is_moe, pp=pp,
                                        env=None if env is None else {"VLLM_USE_V2_MODEL_RUNNER": env},
                                        async_scheduling=False if no_async else None)
    if env is not None:
        assert v2 is (env == "1")
    if no_async:
        assert async_on is False
    tokens = in_flight_tokens(version, batched, async_on, pp, v2)
    # VllmConfig.max_concurrent_batches: pp + 1 only with the V2 runner and async scheduling
    assert tokens == batched * (pp + 1 if (v2 and async_on) else pp)
    assert f"max_concurrent_batches = {tokens // batched} batches" in why
