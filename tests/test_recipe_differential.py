"""The recipe differential's own handling of a launch (tools/recipe_differential.py): the environment prefix it
splits off for the oracle's process environment, the checkpoint files it writes beside config.json, the Hugging Face
cache copy of a speculative draft named by its Hub id, and the oracle answers it counts apart (a documentation
placeholder the scan kept, a CUDA kernel the CPU oracle's build lacks).  Expected values are written by hand."""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path

import pytest

from kvguard.launch.resolve import resolve_model

_TOOL = Path(__file__).resolve().parents[1] / "tools" / "recipe_differential.py"


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("kvguard_recipe_differential", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_environment_prefix_is_split_off(tool):
    words = ["VLLM_USE_DEEP_GEMM=0", "VLLM_ROCM_USE_AITER=1", "vllm", "serve", "M", "--port=8000"]
    assert tool.environment_prefix(words) == (
        ["VLLM_USE_DEEP_GEMM=0", "VLLM_ROCM_USE_AITER=1"], {"VLLM_USE_DEEP_GEMM": "0", "VLLM_ROCM_USE_AITER": "1"},
        ["vllm", "serve", "M", "--port=8000"])


def test_environment_prefix_after_env_keeps_equals_in_values(tool):
    words = ["env", "A_1=x=y", "_B=", "vllm", "serve", "M"]
    assert tool.environment_prefix(words) == (["env", "A_1=x=y", "_B="], {"A_1": "x=y", "_B": ""},
                                              ["vllm", "serve", "M"])
    assert tool.environment_prefix(["env", "vllm", "serve", "M"]) == (["env"], {}, ["vllm", "serve", "M"])


def test_no_prefix_leaves_the_words(tool):
    words = ["vllm", "serve", "M", "--hf-overrides=x"]
    assert tool.environment_prefix(words) == ([], {}, words)
    # a word with '=' that is no assignment (a name led by a digit) ends the prefix
    assert tool.environment_prefix(["1A=2", "vllm"]) == ([], {}, ["1A=2", "vllm"])


def test_speculative_models_in_either_spelling(tool):
    args = ["-tp", "8", "--speculative-config", '{"method": "ernie_mtp", "model": "baidu/X", "num_speculative_tokens": 1}',
            '--speculative_config={"model": "org/draft"}', "--speculative-config", '{"method": "ngram"}',
            "--speculative-config", "not json"]
    assert tool.speculative_models(args) == ["baidu/X", "org/draft"]


def test_checkpoint_files_of_a_modelopt_export(tool, tmp_path):
    tool.write_checkpoint_files(str(tmp_path), "nvidia/Llama-3.1-70B-Instruct-FP8")
    written = json.loads((tmp_path / "hf_quant_config.json").read_text())
    assert written["quantization"] == {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
                                       "exclude_modules": ["lm_head"]}
    assert not (tmp_path / "model.safetensors").exists()


def test_checkpoint_files_with_weights_dtypes(tool, tmp_path):
    tool.write_checkpoint_files(str(tmp_path), "openai/gpt-oss-20b")
    data = (tmp_path / "model.safetensors").read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    assert sorted(tensor["dtype"] for tensor in header.values()) == ["BF16", "U8"]
    assert not (tmp_path / "hf_quant_config.json").exists()


def test_hub_copy_is_found_as_the_cache(tool, tmp_path):
    assert tool.cache_hub_copy(str(tmp_path), "nvidia/Llama-3.1-70B-Instruct-FP8")
    assert not tool.cache_hub_copy(str(tmp_path), "nobody/not-in-the-catalog")
    found = resolve_model("nvidia/Llama-3.1-70B-Instruct-FP8", env={"HF_HUB_CACHE": str(tmp_path)})
    assert found.source == "hf-cache"
    assert found.location.endswith("models--nvidia--Llama-3.1-70B-Instruct-FP8/snapshots/" + "0" * 40 + "/config.json")
    assert found.config["kvguard:hf_quant_config.json"]["quantization"]["quant_algo"] == "FP8"


def test_placeholders_are_harness_artefacts(tool):
    ok = {"ok": True}
    assert tool._artefact({"oracle": {"argparse": "argument --port: invalid int value: '<decode_http_port>'"},
                           "kvguard": ok})
    assert tool._artefact({"oracle": {"argparse": "argument --data-parallel-rpc-port/-dpp: invalid int value: "
                                                  "'$PORT'"}, "kvguard": ok})
    assert not tool._artefact({"oracle": {"argparse": "argument --port: invalid int value: 'abc'"}, "kvguard": ok})
    assert not tool._artefact({"oracle": {"ok": False, "exc_type": "ValueError", "message": "<x>"}, "kvguard": ok})


def test_missing_cuda_kernel_is_a_host_failure(tool):
    missing = {"ok": False, "exc_type": "AttributeError", "wrapped_by": None,
               "message": "'_OpNamespace' '_C' object has no attribute 'rotary_embedding'"}
    assert tool._host_failure({"oracle": missing, "kvguard": {"ok": True}})
    other = dict(missing, message="'NoneType' object has no attribute 'x'")
    assert not tool._host_failure({"oracle": other, "kvguard": {"ok": True}})
    no_flashinfer = {"ok": False, "exc_type": "ValueError", "wrapped_by": "ModelConfig",
                     "message": "VLLM_ATTENTION_BACKEND is set to FLASHINFER, but flashinfer module was not found. See "
                                "https://github.com/vllm-project/vllm/blob/main/docker/Dockerfile for instructions on "
                                "how to install it."}
    assert tool._host_failure({"oracle": no_flashinfer, "kvguard": {"ok": True}})
