"""Heterogeneous (per-layer) configs: vLLM 0.28.0+ converts them one layer at a time.

What is expected is read from ``vllm/transformers_utils/model_arch_config_convertor.py`` (``convert``,
``get_per_layer_hf_configs``) and ``vllm/config/model_arch.py`` (``ModelArchitectureConfig.from_layers``) of
0.28.0 and 0.33.0, and the golden cases ``facts-gemma4-*`` / ``facts-per-layer-*`` recorded from the releases:

- google/gemma-4-26B-A4B: 30 layers, 16 attention heads, sliding layers head_dim 256 with 8 KV heads, every sixth
  (full attention, 5 of 30) head_dim 512 with ``num_global_key_value_heads`` 2 (``attention_k_eq_v``).  The
  whole model takes the largest of each: head size 512, 8 KV heads.  0.24.0–0.27.x read ``head_dim`` off the
  whole (heterogeneous) text config and transformers raises.
- a varying field that is not a number (the (length, key) pair a per-layer ``max_position_embeddings`` gives)
  is refused with from_layers' ValueError, which ModelConfig's validation wraps.
- MLA models are refused before any layer is converted (NotImplementedError, raw).
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.cli import run

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 8, "intermediate_size": 14336,
         "vocab_size": 128256, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}


def _llama(per_layer: dict) -> dict:
    return dict(copy.deepcopy(LLAMA), per_layer_config=per_layer)


def _gemma4() -> dict:
    return copy.deepcopy(catalog.lookup("google/gemma-4-26B-A4B").config)


@pytest.mark.parametrize("version", ["0.28.0", "0.31.0", "0.32.0", "0.33.0", "0.28.0+pr55030"])
def test_gemma4_whole_model_takes_the_largest_layer(version):
    facts = kvguard.model_facts(_gemma4(), vllm_version=version)
    assert (facts.total_num_attention_heads, facts.total_num_kv_heads, facts.head_size, facts.num_hidden_layers) \
        == (16, 8, 512, 30)
    assert ("per-layer config: vLLM sizes the model by its largest layer; smaller layers have head_size 256 on 25 "
            "of 30 layers; total_num_kv_heads 2 on 5 of 30 layers") in facts.notes


@pytest.mark.parametrize("version", ["0.24.0", "0.27.0"])
def test_gemma4_before_the_per_layer_conversion_is_refused(version):
    with pytest.raises(kvguard.ModelConfigRefused) as info:
        kvguard.model_facts(_gemma4(), vllm_version=version)
    verdict = info.value.verdict
    assert verdict.exc_type == "AmbiguousGlobalPerLayerAttributeError"
    assert verdict.message.startswith("'head_dim' is a per-layer attribute and may vary across layers.")


def test_gemma4_layout_checks_use_the_merged_heads():
    assert kvguard.check(_gemma4(), {"tensor_parallel_size": 8}, vllm_version="0.33.0").ok
    refused = kvguard.check(_gemma4(), {"tensor_parallel_size": 3}, vllm_version="0.33.0")
    assert not refused.ok
    assert refused.message == "Total number of attention heads (16) must be divisible by tensor parallel size (3)."


def test_per_layer_kv_heads_keep_the_largest():
    config = _llama({"3": {"num_key_value_heads": 2}, "7": {"num_key_value_heads": 2}})
    facts = kvguard.model_facts(config, vllm_version="0.33.0")
    assert (facts.total_num_kv_heads, facts.head_size) == (8, 128)
    assert facts.num_kv_heads(8) == 1
    # transformers 4 (0.20.0) keeps per_layer_config as one more attribute: nothing varies
    assert kvguard.model_facts(config, vllm_version="0.20.0").notes == ()


def test_a_varying_length_has_no_whole_model_value():
    with pytest.raises(kvguard.ModelConfigRefused) as info:
        kvguard.model_facts(_llama({"5": {"max_position_embeddings": 8192}}), vllm_version="0.33.0")
    verdict = info.value.verdict
    assert verdict.exc_type == "ValueError"
    assert verdict.message == (
        "'derived_max_model_len_and_key' varies across layers and has no whole-model value: "
        "[\"(131072.0, 'max_position_embeddings')\", \"(8192.0, 'max_position_embeddings')\"]. Only numeric "
        "fields collapse (with `max`, to size buffers for the largest layer); give this one an explicit rule in "
        "ModelArchitectureConfig.from_layers.")


def test_heterogeneous_mla_is_refused_raw():
    config = copy.deepcopy(catalog.lookup("deepseek-ai/DeepSeek-V2-Lite").config)
    config["per_layer_config"] = {"0": {"intermediate_size": 1024}}
    with pytest.raises(kvguard.ModelConfigRefused) as info:
        kvguard.model_facts(config, vllm_version="0.33.0")
    verdict = info.value.verdict
    assert (verdict.exc_type, verdict.message) == (
        "NotImplementedError",
        "Heterogeneous MLA models are not supported: `get_head_size` patches the config in place for them, which "
        "a per-layer conversion would apply to a throwaway copy.")


def test_check_cli_decides_gemma4(capsys):
    code = run(["check", "--vllm-version", "0.33.0", "--", "vllm", "serve", "google/gemma-4-26B-A4B", "-tp", "8"])
    out = capsys.readouterr().out
    assert code == 0
    assert "head size 512, layers 30" in out


QWEN3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 8, "intermediate_size": 12288,
         "vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16",
         "per_layer_config": {"3": {"sliding_window": 1024}}}


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.33.0"])
def test_a_per_layer_sliding_window_fails_modelconfigs_read(version):
    """Qwen3Config has a global sliding_window, so one layer's own makes it vary; the conversion never reads it,
    ModelConfig.get_sliding_window() does (after the dtype check), and transformers raises, unwrapped."""
    with pytest.raises(kvguard.ModelConfigRefused) as info:
        kvguard.model_facts(copy.deepcopy(QWEN3), vllm_version=version)
    assert info.value.verdict.exc_type == "AmbiguousGlobalPerLayerAttributeError"
    assert info.value.verdict.message.startswith("'sliding_window' is a per-layer attribute")
    verdict = kvguard.check(copy.deepcopy(QWEN3), {"tensor_parallel_size": 4}, vllm_version=version)
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by) == (
        False, "model_config", "AmbiguousGlobalPerLayerAttributeError", None)


def test_audit_sums_gemma4_layer_by_layer():
    """google/gemma-4-26B-A4B at -tp 8, bf16: 25 sliding layers with 8 KV heads of 256 (1 per rank: 2*1*256*2 =
    1,024 B) and 5 full-attention layers with 2 KV heads of 512 (still 1 per rank, replicated 4 times: 2*1*512*2 =
    2,048 B) -> 25*1,024 + 5*2,048 = 35,840 B per rank; one copy 25*(2*8*256*2) + 5*(2*2*512*2) = 204,800 + 20,480
    = 225,280 B; stored on 8 ranks 286,720 B, duplication wastes 61,440 B."""
    model = kvguard.audit("google/gemma-4-26B-A4B", tp=8, vllm_version="0.33.0").models[0]
    assert (model.kv_bytes_per_token_per_rank, model.kv_bytes_per_token_unique, model.kv_bytes_per_token_stored,
            model.duplication_waste_bytes_per_token) == (35840, 225280, 286720, 61440)
    assert model.kv_bytes_per_token_per_layer_per_rank is None
    assert ("KV bytes summed layer by layer: 25 of 30 layers with 8 KV heads of size 256: 1,024 B per layer, "
            "duplication factor 1; 5 of 30 layers with 2 KV heads of size 512: 2,048 B per layer, duplication "
            "factor 4") in model.notes


def test_plan_sums_each_pipeline_stage_layer_by_layer():
    """google/gemma-4-26B-A4B, bf16, -tp 2: a sliding layer holds 4 of 8 KV heads of 256 (2*4*256*2 = 4,096 B), a
    full-attention layer 1 of 2 heads of 512 (2*1*512*2 = 2,048 B).  -pp 2 splits the 30 layers 15 / 15: the first
    stage has the full layers 5 and 11 (13*4,096 + 2*2,048 = 57,344 B), the second 17, 23 and 29 (55,296 B): the
    first governs.  -tp 4: every layer 2,048 B per rank; stored 30*2,048*4 = 245,760 B for one copy of 225,280 B."""
    report = kvguard.plan("google/gemma-4-26B-A4B", 8, vllm_version="0.33.0")
    rows = {(row.tp, row.pp, row.expert_parallel): row for row in report.entries}
    assert rows[(2, 2, False)].kv_bytes_per_token_per_rank == 57344
    assert rows[(2, 1, False)].kv_bytes_per_token_per_rank == 112640
    assert rows[(4, 2, False)].kv_bytes_per_token_per_rank == 30720
    assert rows[(4, 2, False)].residual_duplication == pytest.approx(245760 / 225280, abs=1e-4)


def test_audit_leaves_out_layers_that_reuse_another_layers_cache():
    """Gemma 4 with num_kv_shared_layers 10 of 30 (as E2B / E4B share theirs): layers 20-29 read the cache of the last
    earlier layer of their type and hold none.  Layers 0-19 at -tp 1, bf16: 17 sliding (2*8*256*2 = 8,192 B) and the
    full-attention layers 5, 11, 17 (2*2*512*2 = 4,096 B): 139,264 + 12,288 = 151,552 B per token."""
    config = _gemma4()
    config["text_config"]["num_kv_shared_layers"] = 10
    model = kvguard.audit(config, tp=1, vllm_version="0.33.0").models[0]
    assert model.kv_bytes_per_token_per_rank == 151552
    assert any(note.endswith("10 of 30 layers reuse another layer's KV cache (none of their own)")
               for note in model.notes)


def test_a_sharing_layer_without_an_earlier_layer_of_its_type_is_not_sized():
    """26 of 30 shared: the first four layers are all sliding, so the full-attention layers 5, 11, … have no layer
    to read from (vLLM's Gemma4Attention raises while the model is built): no exact figure, the upper bound of
    30 layers of the largest size (2*8*512*2 = 16,384 B each at -tp 1) with the reason."""
    config = _gemma4()
    config["text_config"]["num_kv_shared_layers"] = 26
    model = kvguard.audit(config, tp=1, vllm_version="0.33.0").models[0]
    assert model.kv_bytes_per_token_per_rank == 30 * 16384
    assert any("no earlier layer of its type" in note for note in model.notes)
