"""Option values whose config the release builds only for some launches (kvguard.launch.argv, kvguard.rules.table
``mc_multimodal_values``): what the releases answered (tests/upstream/test_gated_configs.py, the serve path on the
oracle host), written out.

0.11.1, 0.20.0, 0.33.0 start ``Qwen/Qwen3-8B --max-loras 0`` (LoRAConfig is built only with ``--enable-lora``) and
``--mm-processor-cache-gb -1`` / ``--video-pruning-rate 1.5`` / ``--mm-shm-cache-max-object-size-mb -1`` on that text
model (MultiModalConfig only for a multimodal model); with ``--enable-lora`` they refuse ``--max-loras 0``
(ValidationError "Input should be greater than or equal to 1", LoRAConfig: kvguard.rules.lora_config renders it), and
on a Qwen2.5-VL checkpoint ``--mm-processor-cache-gb -1`` (ValidationError "Input should be greater than or equal to
0", ModelConfig): pydantic's message names the host's pydantic version, so kvguard declines that one.
"""

from __future__ import annotations

import json
import random

import pytest

from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.front import examine
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

VERSIONS = ("0.11.1", "0.20.0", "0.33.0")


def _vl_dir(tmp_path):
    from tests.upstream.differential import gen_qwen2_5_vl

    path = tmp_path / "vl"
    path.mkdir()
    (path / "config.json").write_text(json.dumps(gen_qwen2_5_vl(random.Random(1))))
    return str(path)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("args", [
    ["--max-loras", "0"],
    ["--max-loras", "-1", "--no-enable-lora"],
    ["--enable-lora", "--no-enable-lora", "--max-loras", "0"],
    ["--mm-processor-cache-gb", "-1"],
    ["--video-pruning-rate", "1.5"],
    ["--mm-shm-cache-max-object-size-mb", "-1"],
])
def test_a_config_the_release_does_not_build_takes_any_value(version, args):
    report = examine(resolve(version), ["vllm", "serve", "Qwen/Qwen3-8B", *args])
    assert report.verdict.ok


GE_1 = "Input should be greater than or equal to 1"


@pytest.mark.parametrize("version", VERSIONS)
def test_lora_bounds_apply_with_enable_lora(version):
    verdict = examine(resolve(version), ["vllm", "serve", "Qwen/Qwen3-8B", "--max-loras", "0", "--enable-lora"]).verdict
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
        False, "lora", "ValidationError", "LoRAConfig", GE_1)


def test_lora_cls_labels_bounds_apply_with_enable_lora():
    assert examine(resolve("0.33.0"), ["vllm", "serve", "Qwen/Qwen3-8B", "--max-lora-cls-labels", "0"]).verdict.ok
    verdict = examine(resolve("0.33.0"), ["vllm", "serve", "Qwen/Qwen3-8B", "--enable-lora", "--max-lora-cls-labels",
                                          "0"]).verdict
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
        False, "lora", "ValidationError", "LoRAConfig", GE_1)


@pytest.mark.parametrize("version", VERSIONS)
def test_multimodal_bounds_apply_to_a_multimodal_model(version, tmp_path):
    with pytest.raises(Undecidable, match=r"--mm-processor-cache-gb='-1'.*the field is a float >= 0"):
        examine(resolve(version), ["vllm", "serve", _vl_dir(tmp_path), "--mm-processor-cache-gb", "-1"])


def test_a_later_argparse_error_comes_first():
    # argparse refuses the launch before any config is built: its error, not the field's bounds
    with pytest.raises(ArgparseRefusal, match="unrecognized arguments: --nope"):
        parse_serve(["vllm", "serve", "M", "--stream-interval", "0", "--nope"], resolve("0.20.0"))
    with pytest.raises(ArgparseRefusal, match="invalid int value"):
        parse_serve(["vllm", "serve", "M", "--enable-lora", "--max-loras", "0", "-tp", "x"], resolve("0.20.0"))


SHM_MESSAGE = "'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' is 'shm'."


@pytest.mark.parametrize("version", VERSIONS)
def test_a_multimodal_model_s_shm_object_size_needs_the_shm_cache(version, tmp_path):
    # MultiModalConfig's model validator (0.11.1+); 0.20.0's answers, also seen on 0.11.1, 0.25.0 and 0.33.0
    vl = _vl_dir(tmp_path)
    verdict = examine(resolve(version), ["vllm", "serve", vl, "--mm-shm-cache-max-object-size-mb", "0"]).verdict
    assert (verdict.ok, verdict.stage, verdict.exc_type, verdict.wrapped_by, verdict.message) == (
        False, "model_config", "ValueError", "ModelConfig", SHM_MESSAGE)
    for args in (["--mm-shm-cache-max-object-size-mb", "0", "--mm-processor-cache-type", "shm"],
                 ["--mm-shm-cache-max-object-size-mb", "128"]):
        assert examine(resolve(version), ["vllm", "serve", vl, *args]).verdict.ok
    assert examine(resolve(version), ["vllm", "serve", "Qwen/Qwen3-8B", "--mm-shm-cache-max-object-size-mb",
                                      "0"]).verdict.ok


def test_0_11_1_mm_encoder_attention_backend_names_are_not_known(tmp_path):
    # 0.11.1 refuses an unknown name for a multimodal model (ValueError: Unknown attention backend: 'X'. …) and
    # takes it for a text model; kvguard has no measured names for 0.11.x
    with pytest.raises(Undecidable, match="AttentionBackendEnum"):
        examine(resolve("0.11.1"), ["vllm", "serve", _vl_dir(tmp_path), "--mm-encoder-attn-backend", "x"])
    assert examine(resolve("0.11.1"), ["vllm", "serve", "Qwen/Qwen3-8B", "--mm-encoder-attn-backend", "x"]).verdict.ok
