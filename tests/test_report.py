"""The text report's KV-cache lines: what -dcp leaves of the duplication, and why no -dcp size is
listed when none passes (issue 10, item 14)."""

from __future__ import annotations

import json

from kvguard.cli import run

#: host facts stated, so the answers do not move with the command line's default host
CUDA_NODE = ["--platform", "cuda", "--gpus-per-node", "8", "--host", "triton=1", "--host", "ray=0"]


def _check(capsys, version, *launch, fmt="text"):
    status = run(["check", "--vllm-version", version, "--format", fmt, *CUDA_NODE,
                  "--", "vllm", "serve", *launch])
    return status, capsys.readouterr().out


def test_text_shows_the_duplication_left_after_dcp(capsys):
    status, out = _check(capsys, "0.28.0", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "4")
    assert status == 0
    assert ("  KV cache: H=1 governs the cache; at tp=8 each rank holds 1 KV head(s), duplication factor 8; "
            "left after -dcp 4: 2\n") in out
    _, out = _check(capsys, "0.28.0", "deepseek-ai/DeepSeek-R1", "-tp", "8")
    assert "duplication factor 8; left after -dcp 1: 8\n" in out
    _, out = _check(capsys, "0.28.0", "Qwen/Qwen3-235B-A22B", "-tp", "8", "-dcp", "2")
    assert "duplication factor 2; left after -dcp 2: 1\n" in out


def test_text_says_why_no_dcp_size_is_listed_when_the_refusal_is_not_about_dcp(capsys):
    status, out = _check(capsys, "0.28.0", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16")
    assert status == 1
    assert ("  legal -dcp sizes at this layout: none — the refusal above (PC_gpu_count) stands whatever "
            "-dcp is\n") in out
    assert "[]" not in out


def test_text_names_the_refusal_that_stands_with_dcp_1(capsys):
    status, out = _check(capsys, "0.28.0", "Qwen/Qwen3-32B", "-tp", "4", "-pcp", "2", "-dcp", "2")
    assert status == 1
    assert ("  legal -dcp sizes at this layout: none — even with -dcp 1 vLLM 0.28.0 refuses this layout "
            "(VC_mrv2_unsupported, ValueError: Model Runner V2 does not yet support: prefill context "
            "parallelism)\n") in out
    assert "[]" not in out
    _, out = _check(capsys, "0.28.0", "Qwen/Qwen3-32B", "-tp", "4", "-pcp", "2", "-dcp", "2", fmt="json")
    facts = json.loads(out)["facts"]
    assert facts["legal_dcp_sizes"] == []
    assert facts["legal_dcp_sizes_reason"] == {
        "check": "VC_mrv2_unsupported", "exc_type": "ValueError",
        "message": "Model Runner V2 does not yet support: prefill context parallelism"}


def test_a_listed_dcp_size_keeps_the_list(capsys):
    _, out = _check(capsys, "0.28.0", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2")
    assert "  legal -dcp sizes at this layout: [1]\n" in out


def test_kv_bytes_are_not_modelled_for_several_kv_cache_groups(capsys):
    # Qwen3-Next keeps linear-attention layers beside its full-attention ones: one per-token KV size
    # for every layer would be a made-up figure
    status, out = _check(capsys, "0.28.0", "Qwen/Qwen3-Next-80B-A3B-Instruct", "-tp", "4")
    assert status == 0
    assert "  KV bytes per token per rank: not modelled (model type qwen3_next: linear-attention and " \
           "full-attention layers)\n" in out
    status, out = _check(capsys, "0.28.0", "Qwen/Qwen3-Next-80B-A3B-Instruct", "-tp", "4", fmt="json")
    facts = json.loads(out)["facts"]
    assert facts["kv_bytes_per_token_per_rank"] is None
    assert facts["kv_bytes_not_modelled"] == "model type qwen3_next: linear-attention and full-attention layers"


def test_kv_bytes_of_sliding_window_models_are_all_layers_as_full_attention_and_a_split(capsys):
    # gpt-oss-20b at -tp 2: 24 layers x 2 (K and V) x 4 KV heads per rank x head size 64 x 2 bytes = 24,576 B with
    # every layer counted as full attention (audit prints the same figure, approximate); the even layers
    # slide (window 128): 12 full-attention layers 12 x 1,024 = 12,288 B, 12 sliding layers 12,288 B
    status, out = _check(capsys, "0.28.0", "openai/gpt-oss-20b", "-tp", "2")
    assert status == 0
    assert "  KV bytes per token per rank: 24,576 (auto) with every layer counted as full attention; 12 of 24 " \
           "layers slide (window 128): the full-attention layers 12,288 for every token, the sliding-window layers " \
           "12,288 for at most their window plus the tokens in flight and a block (audit --kv-memory-gib sizes it)\n" in out
    status, out = _check(capsys, "0.28.0", "openai/gpt-oss-20b", "-tp", "2", fmt="json")
    facts = json.loads(out)["facts"]
    assert facts["kv_bytes_per_token_per_rank"] is None
    assert (facts["kv_bytes_per_token_per_rank_all_full"], facts["kv_bytes_per_token_per_rank_full_layers"],
            facts["kv_bytes_per_token_per_rank_sliding_layers"], facts["sliding_window_layers"],
            facts["sliding_windows"]) == (24576, 12288, 12288, 12, [128])
    # --disable-sliding-window: every layer full attention, one group, the figure is exact
    status, out = _check(capsys, "0.28.0", "openai/gpt-oss-20b", "-tp", "2", "--disable-sliding-window")
    assert "  KV bytes per token per rank: 24,576 (auto)\n" in out
    # audit gives the same figure and split
    from kvguard.kv.economics import audit

    notes = audit("openai/gpt-oss-20b", 2, vllm_version="0.28.0").models[0].notes
    assert audit("openai/gpt-oss-20b", 2, vllm_version="0.28.0").models[0].kv_bytes_per_token_per_rank == 24576
    assert any("12 of 24 layers slide (window 128): the 12 full-attention layers 12,288 B per token per rank" in n
               for n in notes)


def test_kv_bytes_of_one_full_attention_group_are_shown(capsys):
    # Qwen3-32B: 64 layers x 2 (K and V) x 8 KV heads / tp 4 x head size 128 x 2 bytes (bfloat16)
    status, out = _check(capsys, "0.28.0", "Qwen/Qwen3-32B", "-tp", "4")
    assert status == 0
    assert "  KV bytes per token per rank: 65,536 (auto)\n" in out
