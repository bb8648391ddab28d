"""Recipe launches of the catalog's Google / Qwen / Meta checkpoints added in session 53 (issue 12, item 8).

Each case is a launch line of the vLLM recipes (vllm-project/recipes; the recipe file and line named)
checked by model name: the built-in catalog must resolve it, and the verdict and the KV facts are the ones
measured with kvguard and, for the releases with a CPU oracle, agreed by the catalog differential
(tests/upstream/differential.py --catalog; tests/data/catalog_sources.md, "Added in session 53").  Expected
values are written by hand from the checkpoints' config.json (heads, head size = hidden / heads or head_dim,
layers, max_position_embeddings) and from the release source's message text.
"""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

#: transformers 4.x of 0.10.2 has no Qwen3.5 / Gemma 4 config class: vLLM's ModelConfig refuses the model type
_UNKNOWN_TYPE = "The checkpoint you are trying to load has model type `{}` but Transformers does not recognize this architecture."

# (recipe line, release, model, launch arguments after the model,
#  expected: ok, exception type, message start, total KV heads, head size, layers, max_model_len)
CASES = [
    ("models/Qwen/Qwen2.5-VL-7B-Instruct.yaml:128", "0.33.0", "Qwen/Qwen2.5-VL-7B-Instruct",
     ["--host", "0.0.0.0", "--port", "8000", "--data-parallel-size", "4", "--limit-mm-per-prompt",
      '{"image":2,"video":0}'],
     True, None, None, 4, 128, 28, 128000),
    ("models/Qwen/Qwen2.5-VL-7B-Instruct.yaml:43", "0.10.2", "Qwen/Qwen2.5-VL-7B-Instruct",
     ["--tensor-parallel-size", "1"],
     True, None, None, 4, 128, 28, 128000),
    ("models/Qwen/Qwen3.5-9B.yaml:94", "0.33.0", "Qwen/Qwen3.5-9B",
     ["--max-model-len", "262144", "--reasoning-parser", "qwen3"],
     True, None, None, 4, 256, 32, 262144),
    ("models/Qwen/Qwen3.5-9B.yaml:94", "0.10.2", "Qwen/Qwen3.5-9B",
     ["--max-model-len", "262144"],
     False, "ValueError", _UNKNOWN_TYPE.format("qwen3_5"), None, None, None, None),
    ("models/Qwen/Qwen3.6-27B.yaml:176", "0.33.0", "Qwen/Qwen3.6-27B",
     ["--tensor-parallel-size", "2", "--max-model-len", "262144", "--reasoning-parser", "qwen3"],
     True, None, None, 4, 256, 64, 262144),
    ("models/Qwen/Qwen3.6-27B.yaml:176", "0.20.0", "Qwen/Qwen3.6-27B",
     ["--tensor-parallel-size", "2", "--max-model-len", "262144"],
     True, None, None, 4, 256, 64, 262144),
    ("models/Qwen/Qwen3-235B-A22B-Instruct-2507.yaml:41", "0.33.0", "Qwen/Qwen3-235B-A22B-Instruct-2507",
     ["--trust-remote-code", "--enable-expert-parallel", "--tensor-parallel-size", "8"],
     True, None, None, 4, 128, 94, 262144),
    ("models/Qwen/Qwen3-235B-A22B-Instruct-2507.yaml:41", "0.10.2", "Qwen/Qwen3-235B-A22B-Instruct-2507",
     ["--trust-remote-code", "--enable-expert-parallel", "--data-parallel-size", "8"],
     True, None, None, 4, 128, 94, 262144),
    ("models/meta-llama/Llama-3.2-3B-Instruct.yaml:107", "0.33.0", "meta-llama/Llama-3.2-3B-Instruct",
     [],
     True, None, None, 8, 128, 28, 131072),
    ("models/meta-llama/Llama-3.2-3B-Instruct.yaml:107", "0.10.2", "meta-llama/Llama-3.2-3B-Instruct",
     [],
     True, None, None, 8, 128, 28, 131072),
    ("models/meta-llama/Llama-3.2-1B-Instruct.yaml:33", "0.33.0", "meta-llama/Llama-3.2-1B-Instruct",
     ["--tensor-parallel-size", "1"],
     True, None, None, 8, 64, 16, 131072),
    # Gemma 4: transformers 5's per-layer config (0.28.0+ keeps the largest head size, 512 of the full-attention
    # layers, and the most KV heads, 16 of the sliding ones)
    ("models/Google/gemma-4-31B-it.yaml:166", "0.33.0", "google/gemma-4-31B-it",
     ["--tensor-parallel-size", "2", "--max-model-len", "32768", "--gpu-memory-utilization", "0.90"],
     True, None, None, 16, 512, 60, 32768),
    ("models/Google/gemma-4-31B-it.yaml:166", "0.24.0", "google/gemma-4-31B-it",
     ["--tensor-parallel-size", "2", "--max-model-len", "32768"],
     False, "AmbiguousGlobalPerLayerAttributeError", "'head_dim' is a per-layer attribute and may vary across layers.",
     None, None, None, None),
    ("models/Google/gemma-4-31B-it.yaml:166", "0.10.2", "google/gemma-4-31B-it",
     ["--tensor-parallel-size", "2", "--max-model-len", "32768"],
     False, "ValueError", _UNKNOWN_TYPE.format("gemma4"), None, None, None, None),
]


@pytest.mark.parametrize("where, release, model, args, ok, exc_type, message, kv_heads, head_size, layers, mml",
                         CASES, ids=[f"{c[2].split('/')[1]}-{c[1]}" for c in CASES])
def test_recipe_launch_verdict(where, release, model, args, ok, exc_type, message, kv_heads, head_size, layers, mml,
                               tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))  # the catalog, whatever is cached
    rc = run(["check", "--vllm-version", release, "--format", "json", "--", "vllm", "serve", model, *args])
    shown = json.loads(capsys.readouterr().out)
    assert (shown["model"], shown["source"]) == (model, "catalog"), where
    assert (rc == 0, shown["ok"], shown["exc_type"]) == (ok, ok, exc_type), (where, shown["message"])
    if message is not None:
        assert shown["message"].startswith(message), (where, shown["message"])
        assert shown["stage"] == "model_config", where
        return
    facts = shown["facts"]
    assert (facts["total_num_kv_heads"], facts["head_size"], facts["num_hidden_layers"], facts["max_model_len"]) == (
        kv_heads, head_size, layers, mml), where
