"""The KV-cache dtype a ModelOpt checkpoint gives ``--kv-cache-dtype auto`` (kvguard.quant.kv_cache).

Expected values are read from vllm/utils/torch_utils.py (``get_kv_cache_quant_algo_string``: 0.14.0+, NVFP4 from
0.20.0) and vllm/engine/arg_utils.py (``create_engine_config`` resolves ``auto`` before CacheConfig); the
differential (tests/upstream/test_quant_verify.py, ``generate_cache_dtype``) runs the releases' own function.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant.kv_cache import checkpoint_cache_dtype, effective
from kvguard.versions import resolve

FP8_SCHEME = {"dynamic": False, "num_bits": 8, "type": "float"}


def flat(kv_key: str, kv_value, algo: str = "FP8") -> dict:
    return {"quantization_config": {"quant_method": "modelopt", "quant_algo": algo, "ignore": ["lm_head"],
                                    "producer": {"name": "modelopt", "version": "0.31.0"}, kv_key: kv_value,
                                    **({"group_size": 16} if algo == "NVFP4" else {})}}


def nested(**inner) -> dict:
    return {"quantization_config": {"producer": {"name": "modelopt", "version": "0.23.0"},
                                    "quantization": {"quant_algo": "FP8", "exclude_modules": ["lm_head"], **inner}}}


@pytest.mark.parametrize("config, version, expected", [
    (flat("kv_cache_quant_algo", "FP8"), "0.13.0", None),            # no resolution before 0.14.0
    (flat("kv_cache_quant_algo", "FP8"), "0.14.0", "fp8_e4m3"),
    (flat("kv_cache_quant_algo", "fp8"), "0.33.0", "fp8_e4m3"),       # compared lower-cased
    (flat("kv_cache_quant_algo", "NVFP4"), "0.19.1", "auto"),         # not among the names before 0.20.0
    (flat("kv_cache_quant_algo", "NVFP4"), "0.20.0", "nvfp4"),
    (flat("kv_cache_quant_algo", "INT8"), "0.33.0", "auto"),          # a name vLLM does not map: auto, warned
    (flat("kv_cache_quant_algo", None), "0.33.0", None),
    (flat("kv_cache_scheme", FP8_SCHEME), "0.14.1", "fp8_e4m3"),
    (flat("kv_cache_scheme", dict(FP8_SCHEME, dynamic=True)), "0.33.0", "auto"),
    (flat("kv_cache_scheme", {"dynamic": False, "num_bits": 4, "type": "float"}), "0.16.0", "auto"),
    (flat("kv_cache_scheme", {"dynamic": False, "num_bits": 4, "type": "float"}), "0.20.0", "nvfp4"),
    # the nested layout without quant_method: ModelConfig's normalization names modelopt first
    (nested(kv_cache_quant_algo="FP8"), "0.20.0", "fp8_e4m3"),
    # the scheme is read before the algorithm, the nested level before the top level
    (nested(kv_cache_scheme={"num_bits": 8, "type": "int", "dynamic": False}, kv_cache_quant_algo="FP8"), "0.20.0",
     "auto"),
    (nested(kv_cache_scheme=None, kv_cache_quant_algo="FP8"), "0.20.0", "fp8_e4m3"),
    # other methods' KV-cache schemes leave auto as it is
    ({"quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": FP8_SCHEME}}, "0.33.0", None),
    ({"quantization_config": {"quant_method": "fp8", "kv_cache_quant_algo": "FP8"}}, "0.33.0", None),
    ({}, "0.33.0", None),
])
def test_checkpoint_cache_dtype(config, version, expected):
    assert checkpoint_cache_dtype(config, resolve(version)) == expected


def test_an_explicit_kv_cache_dtype_is_kept():
    assert effective("fp8_e5m2", flat("kv_cache_quant_algo", "FP8"), resolve("0.33.0")) == ("fp8_e5m2", None)


def test_an_nvfp4_cache_is_not_sized():
    with pytest.raises(kvguard.Undecidable, match="NVFP4 KV cache"):
        effective("auto", flat("kv_cache_quant_algo", "NVFP4"), resolve("0.33.0"))


def llama_fp8_kv() -> dict:
    cfg = copy.deepcopy(catalog.lookup("meta-llama/Llama-3.1-8B-Instruct").config)
    cfg.update(flat("kv_cache_quant_algo", "FP8"))
    return cfg


@pytest.mark.parametrize("version, per_token", [("0.13.0", 2 * 32 * 8 * 128 * 2 // 8),
                                                 ("0.20.0", 2 * 32 * 8 * 128 * 1 // 8)])
def test_audit_sizes_the_checkpoint_s_kv_cache(version, per_token):
    # Llama-3.1-8B at tp 8: 1 KV head of 128 per rank, 32 layers, K and V: 2 bytes (bfloat16) up to 0.13.x, 1 byte
    # (fp8_e4m3) from 0.14.0
    report = kvguard.audit([llama_fp8_kv()], tp=8, vllm_version=version)
    model = report.models[0]
    assert model.kv_bytes_per_token_per_rank == per_token
    assert (model.kv_cache_dtype_resolved == "fp8_e4m3") == (version == "0.20.0")


def test_check_reports_the_checkpoint_s_kv_cache_dtype(tmp_path, capsys):
    import json

    from kvguard.cli import run

    (tmp_path / "config.json").write_text(json.dumps(llama_fp8_kv()))
    assert run(["check", "--vllm-version", "0.20.0", "--format", "json", "--", "vllm", "serve", str(tmp_path),
                "-tp", "8"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["facts"]["kv_cache_dtype"] == "fp8_e4m3"
    assert doc["facts"]["kv_bytes_per_token_per_rank"] == 2 * 32 * 1 * 128 * 1
    assert any("--kv-cache-dtype auto is fp8_e4m3" in note for note in doc["notes"])
