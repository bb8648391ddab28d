"""kvguard.plan / `kvguard plan`: layouts of N GPUs that vLLM accepts, ranked by KV capacity per GPU.

Hand-derived figures (catalog configs, bf16): one copy of Qwen3-32B's cache is
2 * 8 heads * 128 * 2 B * 64 layers = 262,144 B per token, so a layout without duplication
stores 2**30 / 262,144 = 4,096 tokens per GPU per GiB; at -tp 16 without DCP every head is held
twice: 2,048.  DeepSeek-R1 (MLA, 70,272 B per token per copy): 2**30 / 70,272 = 15,279.8 tokens
per GPU per GiB at best (no copies: tp 1, or dcp = tp).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import kvguard
from kvguard import Host
from kvguard.cli import EXIT_ACCEPT, EXIT_UNDECIDED, run
from kvguard.launch.resolve import resolve_model

GIB = 1 << 30


def _key(e):
    return (e.tp, e.pp, e.dp, e.pcp, e.dcp, e.expert_parallel)


def test_qwen3_32b_on_8_gpus():
    r = kvguard.plan("Qwen/Qwen3-32B", 8, vllm_version="0.28.0")
    assert r.accepted == len(r.entries) > 0
    for e in r.entries:
        assert e.tp * e.pp * e.dp * e.pcp == 8
        assert not e.expert_parallel        # dense model: no EP variants
    best = r.entries[0]
    assert best.kv_tokens_per_gpu_per_gib == GIB / 262144 == 4096
    by = {_key(e): e for e in r.entries}
    tp8 = by[(8, 1, 1, 1, 1, False)]
    assert tp8.kv_bytes_per_token_per_rank == 32768 and tp8.duplication_factor == 1
    assert tp8.kv_tokens_per_gpu_per_gib == 4096 and tp8.kv_tokens_per_replica_per_gib == GIB / 32768
    assert (8, 1, 1, 1, 2, False) not in by            # tp must exceed H for dcp > 1
    pp2 = by[(4, 2, 1, 1, 1, False)]
    assert pp2.stage_layers == 32 and pp2.kv_bytes_per_token_per_rank == 2 * 2 * 128 * 2 * 32


def test_qwen3_32b_tp16_duplication_and_dcp():
    r = kvguard.plan("Qwen/Qwen3-32B", 16, vllm_version="0.28.0", gpus_per_node=8)
    by = {_key(e): e for e in r.entries}
    dup = by[(16, 1, 1, 1, 1, False)]
    assert dup.duplication_factor == 2 and dup.residual_duplication == 2
    assert dup.kv_tokens_per_gpu_per_gib == 2048
    assert dup.tp_cross_node and dup.nnodes == 2
    fixed = by[(16, 1, 1, 1, 2, False)]
    assert fixed.residual_duplication == 1 and fixed.kv_tokens_per_gpu_per_gib == 4096
    assert r.entries.index(fixed) < r.entries.index(dup)
    assert "--nnodes" in fixed.flags and fixed.command.startswith("vllm serve Qwen/Qwen3-32B -tp 16")


def test_deepseek_r1_best_capacity_and_ranking_order():
    r = kvguard.plan("deepseek-ai/DeepSeek-R1", 16, vllm_version="0.28.0", max_model_len=32768)
    best = r.entries[0].kv_tokens_per_gpu_per_gib
    assert best == pytest.approx(GIB / 70272)
    values = [e.kv_tokens_per_gpu_per_gib for e in r.entries]
    assert values == sorted(values, reverse=True)
    by = {_key(e): e for e in r.entries}
    tp8 = by[(8, 1, 2, 1, 1, False)]
    assert tp8.duplication_factor == 8 and tp8.kv_tokens_per_gpu_per_gib == pytest.approx(GIB / 70272 / 8)
    tp8dcp8 = by[(8, 1, 2, 1, 8, False)]
    assert tp8dcp8.kv_bytes_per_token_per_rank == 8784
    assert tp8dcp8.kv_gib_per_gpu_for_max_len == pytest.approx(32768 * 8784 / GIB)
    assert any(e.expert_parallel for e in r.entries)    # MoE: EP variants are enumerated
    assert "--max-model-len" in r.entries[0].flags


def test_min_replica_gpus_filters_small_replicas():
    r = kvguard.plan("deepseek-ai/DeepSeek-R1", 16, vllm_version="0.28.0", min_replica_gpus=8)
    assert r.entries and all(e.replica_gpus >= 8 for e in r.entries)


@pytest.mark.parametrize("model, version, gpus", [
    ("Qwen/Qwen3-32B", "0.28.0", 16),
    ("Qwen/Qwen3-235B-A22B", "0.33.0", 32),
    ("deepseek-ai/DeepSeek-R1", "0.20.0", 16),
    ("meta-llama/Llama-3.1-70B-Instruct", "0.26.0", 24),
])
def test_pruning_changes_no_answer(model, version, gpus):
    pruned = kvguard.plan(model, gpus, vllm_version=version)
    full = kvguard.plan(model, gpus, vllm_version=version, _prune=False)
    assert [_key(e) for e in pruned.entries] == [_key(e) for e in full.entries]
    assert full.candidates >= pruned.candidates


@pytest.mark.parametrize("model", ["Qwen/Qwen3-235B-A22B", "deepseek-ai/DeepSeek-R1"])
def test_every_entry_is_accepted_by_check(model):
    r = kvguard.plan(model, 16, vllm_version="0.28.0")
    host = Host.cuda_node(8)
    facts = kvguard.model_facts(resolve_model(model).config, vllm_version="0.28.0")
    for e in r.entries[:40]:
        v = kvguard.check(facts, vllm_version="0.28.0", host=host, tp=e.tp, pp=e.pp, dp=e.dp, pcp=e.pcp, dcp=e.dcp,
            ep=e.expert_parallel, nnodes=e.nnodes)
        assert v.ok, (e, v.message)


def test_printed_flags_express_the_layout():
    r = kvguard.plan("Qwen/Qwen3-235B-A22B", 16, vllm_version="0.28.0", kv_cache_dtype="fp8")
    short = {"-tp": "tp", "-pp": "pp", "-dp": "dp", "-pcp": "pcp", "-dcp": "dcp", "--nnodes": "nnodes"}
    for e in r.entries:
        flags, got = list(e.flags), {"tp": 1, "pp": 1, "dp": 1, "pcp": 1, "dcp": 1, "nnodes": 1, "ep": False}
        while flags:
            f = flags.pop(0)
            if f == "--enable-expert-parallel":
                got["ep"] = True
            elif f == "--kv-cache-dtype":
                assert flags.pop(0) == "fp8"
            else:
                got[short[f]] = int(flags.pop(0))
        assert got == {"tp": e.tp, "pp": e.pp, "dp": e.dp, "pcp": e.pcp, "dcp": e.dcp, "nnodes": e.nnodes,
                       "ep": e.expert_parallel}


@pytest.mark.skipif(not (Path(kvguard.__file__).parent / "data" / "serve_options.json").exists(),
                    reason="the release option tables (kvguard/data/serve_options.json) are not built")
def test_printed_commands_pass_kvguard_check(capsys):
    r = kvguard.plan("Qwen/Qwen3-235B-A22B", 16, vllm_version="0.28.0")
    for e in r.entries[:5]:
        status = run(["check", "--vllm-version", "0.28.0", "--gpus-per-node", "8", "--", *e.command.split()])
        assert status == EXIT_ACCEPT, e.command
    capsys.readouterr()


def test_1024_gpus_is_fast():
    t0 = time.process_time()  # CPU time: a busy CI machine must not turn noise into a failure
    r = kvguard.plan("deepseek-ai/DeepSeek-R1", 1024, vllm_version="0.28.0")
    elapsed = time.process_time() - t0
    # block-FP8 DeepSeek-R1: the model builds only where tp divides its 144 dense-MLP blocks (tp <= 16 here)
    assert r.accepted > 200 and r.refused_by_check.get("MI_fp8_block_k", 0) > 0
    assert all(e.tp <= 16 for e in r.entries)
    assert elapsed < 3.0     # ~0.3 s on one shared core; generous for CI noise


def test_errors():
    with pytest.raises(kvguard.InputError, match="do not fill"):
        kvguard.plan("Qwen/Qwen3-32B", 12, gpus_per_node=8)
    with pytest.raises(kvguard.InputError, match="--nnodes"):
        kvguard.plan("Qwen/Qwen3-32B", 16, vllm_version="0.10.2")
    with pytest.raises(kvguard.InputError, match="no attention KV cache"):
        kvguard.plan("state-spaces/mamba-2.8b-hf", 8)


def _run(capsys, *argv):
    status = run(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_text_and_json(capsys):
    status, out, _ = _run(capsys, "plan", "deepseek-ai/DeepSeek-R1", "--gpus", "16", "--top", "3",
                          "--vllm-version", "0.28.0")
    assert status == EXIT_ACCEPT
    assert "vllm serve deepseek-ai/DeepSeek-R1" in out and "tok/GPU/GiB" in out
    status, out, _ = _run(capsys, "plan", "Qwen/Qwen3-32B", "--gpus", "8", "--top", "2", "--format", "json",
                          "--max-model-len", "4096", "--vllm-version", "0.28.0")
    data = json.loads(out)
    assert data["schema"] == 1 and len(data["layouts"]) == 2
    assert data["layouts"][0]["kv_tokens_per_gpu_per_gib"] == 4096
    assert data["accepted"] >= 2 and data["max_model_len"] == 4096


@pytest.mark.parametrize("argv", [
    ["plan", "Qwen/Qwen3-32B", "--gpus", "12"],
    ["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--top", "-1"],
    ["plan", "no/such", "--gpus", "8"],
])
def test_cli_cannot_decide(capsys, argv):
    status, _, err = _run(capsys, *argv)
    assert status == EXIT_UNDECIDED and err.startswith("kvguard:")


def test_plot_writes_wellformed_svg(capsys, tmp_path):
    import xml.dom.minidom

    path = tmp_path / "plan.svg"
    status, _, _ = _run(capsys, "plan", "Qwen/Qwen3-235B-A22B", "--gpus", "16", "--top", "3",
                        "--vllm-version", "0.28.0", "--plot", str(path))
    assert status == EXIT_ACCEPT
    doc = xml.dom.minidom.parse(str(path))
    circles = doc.getElementsByTagName("circle")
    report = kvguard.plan("Qwen/Qwen3-235B-A22B", 16, vllm_version="0.28.0")
    assert len(circles) == report.accepted
    assert sum(c.getAttribute("fill") == "#d62728" for c in circles) == 3
    status, _, err = _run(capsys, "plan", "Qwen/Qwen3-32B", "--gpus", "8", "--plot", str(tmp_path / "no" / "x.svg"))
    assert status == EXIT_UNDECIDED and "--plot" in err


def test_plan_says_what_it_did_not_check_and_when_kv_sizes_are_an_upper_bound():
    report = kvguard.plan("deepseek-ai/DeepSeek-V4-Flash", gpus=16, vllm_version="0.33.0")
    notes = report.notes
    assert ("KV sizes count every layer as full attention (model type deepseek_v4: several MLA KV-cache groups): "
            "an upper bound, so the ranking by KV tokens is approximate") in notes
    # PCP layouts of an MLA model: the V2 runner's other PCP checks are listed, with how many layouts they concern
    pcp_layouts = sum(1 for e in report.entries if e.pcp > 1)
    assert any(n.startswith(f"W_mrv2_pcp not checked on {pcp_layouts} of the {report.accepted} accepted layouts: ")
               for n in notes)
    plain = kvguard.plan("Qwen/Qwen3-32B", gpus=8, vllm_version="0.33.0")
    assert not any("upper bound" in n or "not checked" in n for n in plain.notes)


def test_sliding_window_model_sized_as_vllm_at_pp1_and_bounded_elsewhere(capsys):
    # gpt-oss-20b (24 layers, even ones sliding window 128, 8 KV heads of 64, bf16), 8 GPUs, vLLM 0.28.0, the derived
    # 131,072 tokens.  -tp 8: 1 KV head per rank, 256 B per token per layer, page 16 x 256 = 4,096 B; 2 groups of 12;
    # one request: full cdiv(131,072, 16) = 8,192 blocks + sliding cdiv(127 + 2 x 8,192, 16) + 1 = 1,033 = 9,225
    # blocks of 12 layers x 4,096 B = 453,427,200 B (0.4223 GiB), 3,459.4 B per token.  -tp 4 -dp 2: twice the bytes.
    # Every layer as full attention at -tp 1 -pp 8: 3 layers x 2,048 B = 6,144 B per token (approximate).
    report = kvguard.plan("openai/gpt-oss-20b", gpus=8, vllm_version="0.28.0")
    by_layout = {(e.tp, e.pp, e.dp, e.expert_parallel): e for e in report.entries}
    tp8 = by_layout[(8, 1, 1, False)]
    assert tp8.kv_sizing == "sliding"
    assert tp8.kv_bytes_per_token_per_rank == pytest.approx(453427200 / 131072)
    assert tp8.kv_gib_per_gpu_for_max_len == pytest.approx(453427200 / 2**30)
    assert by_layout[(4, 1, 2, False)].kv_bytes_per_token_per_rank == pytest.approx(2 * 453427200 / 131072)
    # -tp 1 -pp 8 from 0.26.0 (3 layers a stage, 2 pools of 32,768 B on stage 0): 0.28.0 runs gpt-oss (MoE) on the
    # V1 runner, pp = 8 batches in flight: 8,192 + cdiv(127 + 65,536, 16) + 1 = 12,297 blocks x 2 x 32,768 B / 131,072
    # = 6,148.5 B per token (the "every layer full attention" figure, 6,144, does not bound it: 2 pools a stage)
    pp8 = by_layout[(1, 8, 1, False)]
    assert (pp8.kv_sizing, pp8.kv_bytes_per_token_per_rank) == ("sliding", pytest.approx(12297 * 2 * 32768 / 131072))
    # 0.29.0 runs it on V2 with async scheduling: 9 batches, cdiv(127 + 73,728, 16) + 1 = 4,617 -> 12,809 blocks
    newer = {(e.tp, e.pp, e.dp, e.expert_parallel): e for e in kvguard.plan("openai/gpt-oss-20b", gpus=8,
                                                                             vllm_version="0.29.0").entries}
    assert newer[(1, 8, 1, False)].kv_bytes_per_token_per_rank == pytest.approx(12809 * 2 * 32768 / 131072)
    # VLLM_USE_V2_MODEL_RUNNER=0 in 0.29.0: V1, 8 batches again
    v1 = {(e.tp, e.pp, e.dp, e.expert_parallel): e for e in kvguard.plan(
        "openai/gpt-oss-20b", gpus=8, vllm_version="0.29.0", env={"VLLM_USE_V2_MODEL_RUNNER": "0"}).entries}
    assert v1[(1, 8, 1, False)].kv_bytes_per_token_per_rank == pytest.approx(12297 * 2 * 32768 / 131072)
    # the sized layouts rank first (fewer bytes per token than every layer as full attention)
    assert [e.kv_sizing for e in report.entries[:8]] == ["sliding"] * 8
    assert any(n.startswith("12 of 24 layers slide (window 128): the layouts without -dcp/-pcp (and, from 0.26.0, "
                            "with -pp stages within one node) are sized as vLLM sizes one 131,072-token sequence")
               and "marked ~" not in n for n in report.notes)
    # 16 GPUs: -tp 2 -pp 8 spans two nodes, where the executor decides async scheduling: still approximate
    wide = kvguard.plan("openai/gpt-oss-20b", gpus=16, vllm_version="0.28.0")
    assert {(e.tp, e.pp, e.dp): e for e in wide.entries}[(2, 8, 1)].kv_sizing == "all_full_attention"
    assert {(e.tp, e.pp, e.dp): e for e in wide.entries}[(1, 8, 2)].kv_sizing == "sliding"
    assert any("marked ~" in n and "at -pp above 1 across nodes" in n and "approximate" in n for n in wide.notes)
    assert not any(n.startswith("KV sizes count every layer as full attention") for n in report.notes)
    # 0.24.0 sizes -pp too: -tp 1 -pp 8 (3 layers a stage, 2 of the 12-layer sliding group on stage 0: 2 pools of
    # 32,768 B): 8,713 blocks (to 0.24.0 one batch in flight: 8,192 + 521) x 2 x 32,768 B / 131,072 = 4,356.5 B
    older = {(e.tp, e.pp, e.dp, e.expert_parallel): e for e in kvguard.plan("openai/gpt-oss-20b", gpus=8,
                                                                             vllm_version="0.24.0").entries}
    assert (older[(1, 8, 1, False)].kv_sizing, older[(1, 8, 1, False)].kv_bytes_per_token_per_rank) == \
        ("sliding", pytest.approx(8713 * 2 * 32768 / 131072))
    # 0.25.x read as 0.24.0 (the same SlidingWindowSpec bound and grouping): the same figure
    point = {(e.tp, e.pp, e.dp, e.expert_parallel): e for e in kvguard.plan("openai/gpt-oss-20b", gpus=8,
                                                                             vllm_version="0.25.0").entries}
    assert (point[(1, 8, 1, False)].kv_sizing, point[(1, 8, 1, False)].kv_bytes_per_token_per_rank) == \
        ("sliding", pytest.approx(8713 * 2 * 32768 / 131072))
    # the text marks the approximate figures (-tp 8 -pp 2 across nodes, every layer as full attention: 12 layers
    # x 2,048 B / 8 ranks = 3,072 B; 2**30 / 3,072 / 16 GPUs = 21,845; 131,072 x 3,072 B = 0.375 GiB); JSON carries
    # kv_sizing
    assert run(["plan", "openai/gpt-oss-20b", "--gpus", "16", "--vllm-version", "0.28.0", "--top", "0"]) == EXIT_ACCEPT
    out = capsys.readouterr().out
    assert "~3,072" in out and "~21,845" in out and "~0.375" in out
    assert run(["plan", "openai/gpt-oss-20b", "--gpus", "8", "--vllm-version", "0.28.0", "--top", "0"]) == EXIT_ACCEPT
    out = capsys.readouterr().out
    assert " 3,459 " in out and " 0.422 " in out and "~" not in out
    assert run(["plan", "openai/gpt-oss-20b", "--gpus", "8", "--vllm-version", "0.28.0", "--format", "json"]) == \
        EXIT_ACCEPT
    assert json.loads(capsys.readouterr().out)["layouts"][0]["kv_sizing"] == "sliding"
