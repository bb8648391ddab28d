"""ModelOpt's hf_quant_config.json beside config.json (kvguard.launch.load.load_checkpoint_config).

vLLM's get_config (vllm/transformers_utils/config.py, every release 0.10.2–0.33.0) reads the file as the model's
quantization_config when config.json has none (absent or null).  The expected verdicts are worked out by hand: the
ModelOpt NVFP4 linear method refuses a per-rank input that is not a multiple of 16 ("Unsupported model when in
features size is not multiple of 16"), which a bfloat16 checkpoint never meets.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.launch.load import SIDE_QUANT_CONFIG, load_checkpoint_config

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)

#: the layout ModelOpt up to 0.29 writes (nvidia/Llama-3.1-70B-Instruct-FP8's hf_quant_config.json, with NVFP4)
NVFP4_SIDE = {"producer": {"name": "modelopt", "version": "0.23.0"},
              "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                               "exclude_modules": ["lm_head"]}}


def checkpoint(tmp_path, side, **config_keys):
    cfg = copy.deepcopy(catalog.lookup("meta-llama/Llama-3.1-8B-Instruct").config)
    cfg.pop("quantization_config", None)
    # 13696 / tp 16 = 856 per rank on down_proj: not a multiple of 16 (tp 8: 1712 = 107 x 16)
    cfg.update(intermediate_size=13696, **config_keys)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    if side is not None:
        (tmp_path / "hf_quant_config.json").write_text(json.dumps(side))
    return tmp_path


def quant_of(directory, version: str):
    return kvguard.model_facts(str(directory), vllm_version=version).resolved_top.get("quantization_config")


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_the_file_is_read_when_config_json_has_no_quantization_config(tmp_path, version):
    directory = checkpoint(tmp_path, NVFP4_SIDE)
    raw, _ = load_checkpoint_config(directory)
    assert "quantization_config" not in raw           # config.json as written; the file rides along
    assert raw[SIDE_QUANT_CONFIG] == NVFP4_SIDE
    assert quant_of(directory, version)["quantization"] == NVFP4_SIDE["quantization"]


def test_a_null_quantization_config_is_the_release_s_transformers_answer(tmp_path):
    # a null quantization_config: transformers 4.x (up to vLLM 0.2x) fails on it while vLLM parses config.json
    # (AttributeError, the same with or without the file); where the release takes it, the file is read
    directory = checkpoint(tmp_path, NVFP4_SIDE, quantization_config=None)
    old = kvguard.check(str(directory), vllm_version="0.20.0", tp=8, host=H100)
    assert (old.ok, old.exc_type, old.message) == (False, "AttributeError", "'NoneType' object has no attribute "
                                                                            "'to_dict'")
    assert quant_of(directory, "0.33.0")["quantization"] == NVFP4_SIDE["quantization"]


def test_config_json_s_own_quantization_config_wins(tmp_path):
    own = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    directory = checkpoint(tmp_path, NVFP4_SIDE, quantization_config=own)
    raw, _ = load_checkpoint_config(directory)
    assert raw["quantization_config"] == own and SIDE_QUANT_CONFIG not in raw
    assert quant_of(directory, "0.33.0")["quant_method"] == "fp8"


def test_without_the_file_nothing_changes(tmp_path):
    raw, _ = load_checkpoint_config(checkpoint(tmp_path, None))
    assert "quantization_config" not in raw and SIDE_QUANT_CONFIG not in raw


def test_a_mapping_has_no_directory(tmp_path):
    raw, label = load_checkpoint_config({"model_type": "llama"})
    assert (raw, label) == ({"model_type": "llama"}, "<mapping>")


def test_a_bad_file_is_an_input_error(tmp_path):
    directory = checkpoint(tmp_path, None)
    (directory / "hf_quant_config.json").write_text("{not json")
    with pytest.raises(kvguard.InputError, match="hf_quant_config.json"):
        load_checkpoint_config(directory)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_the_nvfp4_checkpoint_is_checked_through_the_api(tmp_path, version):
    directory = checkpoint(tmp_path, NVFP4_SIDE)
    refused = kvguard.check(str(directory), vllm_version=version, tp=16, host=BIG)
    assert (refused.ok, refused.check, refused.exc_type) == (False, "MI_nvfp4_input", "ValueError")
    assert refused.message == "Unsupported model when in features size is not multiple of 16"
    accepted = kvguard.check(str(directory), vllm_version=version, tp=8, host=H100)
    assert accepted.ok and "MI_model" not in {s.check for s in accepted.skipped}


def test_the_nvfp4_checkpoint_is_checked_through_the_cli(tmp_path, capsys):
    directory = checkpoint(tmp_path, NVFP4_SIDE)
    code = run(["check", "--vllm-version", "0.33.0", "--gpus-per-node", "16", "--", "vllm", "serve",
                str(directory), "-tp", "16"])
    assert code == 1 and "MI_nvfp4_input" in capsys.readouterr().out
    # the same config.json without its hf_quant_config.json is an unquantized model: accepted
    (directory / "hf_quant_config.json").unlink()
    assert run(["check", "--vllm-version", "0.33.0", "--gpus-per-node", "16", "--", "vllm", "serve",
                str(directory), "-tp", "16"]) == 0


@pytest.mark.parametrize("name, algo", [("nvidia/Llama-3.1-70B-Instruct-FP8", "FP8"),
                                        ("nvidia/DeepSeek-V3.1-NVFP4", "NVFP4"),
                                        ("nvidia/Qwen3-235B-A22B-NVFP4", "NVFP4"),
                                        ("nvidia/DeepSeek-V3.2-NVFP4", "NVFP4"),
                                        ("nvidia/GLM-5-NVFP4", "NVFP4")])
def test_catalog_modelopt_exports_carry_their_hf_quant_config(name, algo):
    entry = catalog.lookup(name)
    assert entry.config.get("quantization_config") is None            # config.json as published
    assert entry.hf_quant_config["quantization"]["quant_algo"] == algo
    facts = kvguard.model_facts(name, vllm_version="0.33.0")
    assert facts.resolved_top["quantization_config"]["quantization"]["quant_algo"] == algo


def test_catalog_modelopt_fp8_kv_cache_is_sized_in_fp8():
    # nvidia/Llama-3.1-70B-Instruct-FP8 (kv_cache_quant_algo FP8) at tp 8: 80 layers x K and V x 1 KV head x 128 x
    # 1 byte from 0.14.0; 2 bytes (the model's bfloat16) up to 0.13.x
    new = kvguard.audit(["nvidia/Llama-3.1-70B-Instruct-FP8"], tp=8, vllm_version="0.20.0").models[0]
    old = kvguard.audit(["nvidia/Llama-3.1-70B-Instruct-FP8"], tp=8, vllm_version="0.13.0").models[0]
    assert (new.kv_cache_dtype_resolved, new.kv_bytes_per_token_per_rank) == ("fp8_e4m3", 80 * 2 * 128)
    assert (old.kv_cache_dtype_resolved, old.kv_bytes_per_token_per_rank) == ("bfloat16", 80 * 2 * 128 * 2)


#: the legacy ModelOpt export: no producer, a ``modelopt_quant_config`` key in ``quantization``
LEGACY_SIDE = {"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                                "exclude_modules": ["lm_head"], "modelopt_quant_config": {}}}


@pytest.mark.parametrize("version", ["0.26.0", "0.33.0"])
def test_the_legacy_export_is_modelopt_from_0_26_0(tmp_path, version):
    # _normalize_quantization_config rewrites quant_method from quant_algo for such a config from 0.26.0: NVFP4,
    # whose down_proj shard at tp 16 (856 inputs) is refused
    v = kvguard.check(str(checkpoint(tmp_path, LEGACY_SIDE)), vllm_version=version, tp=16, host=BIG)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_nvfp4_input", "ValueError", "Unsupported model when in features size is not multiple of 16")


def test_the_legacy_export_is_no_modelopt_config_before_0_26_0(tmp_path):
    # 0.24.0 normalizes only a producer-modelopt config and no override claims a config without quant_method:
    # ModelConfig's quantization stays None and the model is built unquantized (the 856-input shard is fine)
    v = kvguard.check(str(checkpoint(tmp_path, LEGACY_SIDE)), vllm_version="0.24.0", tp=16, host=BIG)
    assert v.ok is True and "MI_model" not in [s.check for s in v.skipped]


# the exports whose config.json carries its own (flat) quantization_config: vLLM reads it and never the
# hf_quant_config.json beside it (get_config reads that file only when config.json has none)
@pytest.mark.parametrize("name, method, algo", [("nvidia/MiniMax-M2.5-NVFP4", "modelopt", "NVFP4"),
                                                ("nvidia/Kimi-K2.6-NVFP4", "modelopt", "NVFP4"),
                                                ("Qwen/Qwen3-32B-FP8-Static-PerTensor", None, "FP8")])
def test_catalog_exports_with_their_own_quantization_config(name, method, algo):
    entry = catalog.lookup(name)
    assert entry.hf_quant_config["quantization"]["quant_algo"] == algo   # the file beside, as published
    assert entry.checkpoint_config() is entry.config
    assert entry.config["quantization_config"].get("quant_method") == method
    assert entry.config["quantization_config"]["quant_algo"] == algo


# facts worked out by hand from the published config.json (tests/data/catalog_sources.md)
@pytest.mark.parametrize("name, model_type, heads, head_size, layers", [
    ("nvidia/DeepSeek-V3.2-NVFP4", "deepseek_v32", 128, 512 + 64, 61),    # MLA: kv_lora_rank + qk_rope_head_dim
    ("nvidia/GLM-5-NVFP4", "glm_moe_dsa", 64, 512 + 64, 78),
    ("nvidia/Kimi-K2.6-NVFP4", "kimi_k25", 64, 512 + 64, 61),             # text_config (deepseek_v3)
    ("nvidia/MiniMax-M2.5-NVFP4", "minimax_m2", 48, 128, 62),
    ("Qwen/Qwen3-32B-FP8-Static-PerTensor", "qwen3", 64, 128, 64),
])
def test_new_catalog_exports_facts(name, model_type, heads, head_size, layers):
    facts = kvguard.model_facts(name, vllm_version="0.33.0")
    assert (facts.model_type, facts.total_num_attention_heads, facts.head_size, facts.num_hidden_layers) == (
        model_type, heads, head_size, layers)


def test_kimi_k26_nvfp4_kv_cache_is_fp8_mla():
    # MLA caches one latent of 512 + 64 per layer on every rank: 61 layers x 576 x 1 byte (fp8_e4m3, the
    # checkpoint's kv_cache_scheme of 8-bit static floats), whatever -tp
    for tp in (4, 8):
        row = kvguard.audit(["nvidia/Kimi-K2.6-NVFP4"], tp=tp, vllm_version="0.33.0").models[0]
        assert (row.kv_cache_dtype_resolved, row.kv_bytes_per_token_per_rank) == ("fp8_e4m3", 61 * 576)


def test_qwen3_32b_fp8_static_without_quant_method_is_built_unquantized():
    # quantization_config without quant_method and without the nested "quantization" mapping: the normalization
    # names nothing, no override claims it (each asks for a quant_method starting with "modelopt"), so
    # ModelConfig's quantization is None from 0.11.0: a bfloat16 KV cache (64 layers x K and V x 1 KV head at tp 8
    # x 128 x 2 bytes) and the model built unquantized; 0.10.2 refuses the empty name as an unknown method
    row = kvguard.audit(["Qwen/Qwen3-32B-FP8-Static-PerTensor"], tp=8, vllm_version="0.33.0").models[0]
    assert (row.kv_cache_dtype_resolved, row.kv_bytes_per_token_per_rank) == ("bfloat16", 64 * 2 * 128 * 2)
    for version in ("0.11.0", "0.20.0", "0.33.0"):
        verdict = kvguard.check("Qwen/Qwen3-32B-FP8-Static-PerTensor", tp=4, vllm_version=version, host=H100)
        assert verdict.ok and "MI_model" not in {s.check for s in verdict.skipped}, version
    old = kvguard.check("Qwen/Qwen3-32B-FP8-Static-PerTensor", tp=4, vllm_version="0.10.2", host=H100)
    assert (old.ok, old.message.split(" Must be")[0]) == (False, "Unknown quantization method: .")


ABRIDGED = ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4")
SUPER_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"


@pytest.mark.parametrize("model", ABRIDGED)
@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_an_abridged_catalog_quantization_config_is_undecidable(serve_json, model, version):
    # the catalog's copies of these hf_quant_config.json files have no producer: read as written, every release
    # would build the checkpoint unquantized, which the real export is not
    status, report = serve_json(version, "-tp", "8", model=model)
    assert status == 2
    assert report["ok"] is None and report["reason_kind"] == "undecidable"
    assert report["reason"].startswith(f"kvguard's catalog copy of {model} cannot be read as vLLM reads the checkpoint:")
    assert "no producer" in report["reason"] and report["reason"].endswith(
        "pass --model-config with the checkpoint's own files")


def test_an_abridged_catalog_entry_still_answers_argparse_first(serve_json):
    status, report = serve_json("0.33.0", "-tp", "x", model=ABRIDGED[0])
    assert status == 1
    assert report["stage"] == "argparse"


def test_a_complete_catalog_quantization_config_is_read():
    entry = catalog.lookup("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4")
    assert entry.quantization_unknown is None
    assert entry.checkpoint_config()[SIDE_QUANT_CONFIG]["producer"]["name"] == "modelopt"


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_the_super_nvfp4_mixed_precision_export_is_read(version):
    # config.json's quantization_config (quant_method modelopt, quant_algo MIXED_PRECISION): vLLM builds it with
    # ModelOptMixedPrecisionConfig ("modelopt_mixed"); layer 0's Mamba-2 mixer asserts on tp first (8 groups), and past
    # it each layer takes its algorithm's method (kvguard.quant.modelopt_mixed): at -tp 8 every NVFP4 layer's per-rank
    # input is a multiple of 16 (the shared experts' down_proj 5376 / 8 = 672), nothing left skipped
    entry = catalog.lookup(SUPER_NVFP4)
    assert entry.quantization_unknown is None
    assert entry.config["quantization_config"]["quant_algo"] == "MIXED_PRECISION"
    refused = kvguard.check(SUPER_NVFP4, vllm_version=version, tp=16, host=BIG)
    assert (refused.ok, refused.check, refused.exc_type, refused.message) == (
        False, "MI_mamba2_groups", "AssertionError",
        "If tensor parallel world size does not divide num_groups, then num_groups must equal 1.")
    accepted = kvguard.check(SUPER_NVFP4, vllm_version=version, tp=8, host=H100)
    assert accepted.ok
    assert not any(s.check == "MI_model" for s in accepted.skipped), accepted.skipped
