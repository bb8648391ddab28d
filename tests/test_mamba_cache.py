"""A Mamba / hybrid model's cache set-up in VllmConfig (kvguard.rules.mamba_cache).

Expected outcomes are what the real releases answered (tests/upstream/serve_runner.py on each release's
oracle); the golden cases tests/cases/*/mamba-qwen3-next-*.json cover the catalog's Qwen3-Next.
"""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run
from kvguard.front import examine

MAMBA = {"architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 2560,
         "num_hidden_layers": 64, "vocab_size": 50280, "state_size": 16, "torch_dtype": "bfloat16"}
#: a GraniteMoeHybrid checkpoint whose layers are all attention (granite-4.0-micro's shape): transformers 5
#: reads its layer types as "full_attention", which vLLM counts as attention only from 0.29.0
GRANITE_ATTENTION_ONLY = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 2048,
    "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 8, "intermediate_size": 8192,
    "shared_intermediate_size": 8192, "num_local_experts": 0, "layer_types": ["attention"] * 8,
    "max_position_embeddings": 4096, "vocab_size": 49160, "torch_dtype": "bfloat16"}

ALIGN = "Chunked prefill is required for mamba cache mode 'align'."


@pytest.mark.parametrize("release,config,flags,message", [
    # Mamba supports Mamba prefix caching: mode 'all' before 0.28.0, 'align' (which needs chunked prefill) after
    ("0.27.0", MAMBA, "--enable-prefix-caching --no-enable-chunked-prefill", None),
    ("0.28.0", MAMBA, "--enable-prefix-caching --no-enable-chunked-prefill", ALIGN),
    ("0.33.0", MAMBA, "--enable-prefix-caching --no-enable-chunked-prefill",
     "Chunked prefill is required for Mamba prefix caching."),
    # an attention-free model keeps prefix caching off by default
    ("0.28.0", MAMBA, "--no-enable-chunked-prefill", None),
    ("0.33.0", MAMBA, "--no-enable-chunked-prefill", None),
    # prefix caching is opt-in for hybrid models before 0.28.0
    ("0.27.0", GRANITE_ATTENTION_ONLY, "--no-enable-chunked-prefill", None),
    ("0.28.0", GRANITE_ATTENTION_ONLY, "--no-enable-chunked-prefill", ALIGN),
    ("0.33.0", GRANITE_ATTENTION_ONLY, "--no-enable-chunked-prefill", None),
])
def test_cache_setup(tmp_path, release, config, flags, message):
    (tmp_path / "config.json").write_text(json.dumps(config))
    verdict = examine(release, f"vllm serve {tmp_path} {flags}").verdict
    if message is None:
        assert verdict.ok, verdict.message
    else:
        assert (verdict.ok, verdict.exc_type, verdict.message, verdict.wrapped_by) == (
            False, "AssertionError", message, "VllmConfig")


def test_cli_exit_status_is_the_verdict(capsys):
    launch = ["vllm", "serve", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--no-enable-chunked-prefill"]
    assert run(["check", "--vllm", "0.33.0", "--", *launch]) == 1
    assert "Chunked prefill is required for Mamba prefix caching." in capsys.readouterr().out
    assert run(["check", "--vllm", "0.27.0", "--", *launch]) == 0
    assert run(["check", "--vllm", "0.33.0", "--", *launch, "--no-enable-prefix-caching"]) == 0


def test_a_pooling_runner_is_decided_where_the_launch_sets_prefix_caching(capsys):
    """The Mamba cache set-up runs for pooling runners too (0.28.0 and 0.33.0 refuse this launch); only their
    prefix-caching default is not modelled (the launch below without --enable-prefix-caching is refused too)."""
    launch = ["vllm", "serve", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--runner", "pooling", "--no-enable-chunked-prefill"]
    assert run(["check", "--vllm-version", "0.33.0", "--", *launch, "--enable-prefix-caching"]) == 1
    assert "Chunked prefill is required for Mamba prefix caching." in capsys.readouterr().out
    assert run(["check", "--vllm-version", "0.33.0", "--", *launch]) == 2
    assert "pooling runner's prefix-caching default" in capsys.readouterr().err
