"""VLLM_ATTENTION_BACKEND as 0.11.0 - 0.12.0's ModelConfig reads it (kvguard.rules.attention_env): a value outside the
release's attention backend enum is refused before the model's config is read.  The expected messages are written
by hand from the releases' error text (vllm/envs.py env_with_choices: "Invalid value '{value}' for {name}. Valid
options: {choices}."; the oracles' answers are the golden cases env-attention-backend-*)."""

from __future__ import annotations

import pytest

from kvguard.front import examine
from kvguard.launch.layout import Host
from kvguard.versions import resolve

NAMES_0_11_0 = ("['FLASH_ATTN', 'TRITON_ATTN', 'XFORMERS', 'ROCM_FLASH', 'ROCM_AITER_MLA', 'ROCM_AITER_FA', "
                "'TORCH_SDPA', 'FLASHINFER', 'FLASHINFER_MLA', 'TRITON_MLA', 'CUTLASS_MLA', 'FLASHMLA', "
                "'FLASH_ATTN_MLA', 'PALLAS', 'IPEX', 'DUAL_CHUNK_FLASH_ATTN', 'DIFFERENTIAL_FLASH_ATTN', "
                "'NO_ATTENTION', 'FLEX_ATTENTION', 'TREE_ATTN', 'ROCM_ATTN']")


def _verdict(version: str, *words: str):
    return examine(resolve(version), [*words, "vllm", "serve", "Qwen/Qwen3-8B"], host=Host.standard()).verdict


def test_an_unknown_name_is_refused_by_model_config_on_0_11_0():
    v = _verdict("0.11.0", "VLLM_ATTENTION_BACKEND=NOT_A_BACKEND")
    assert (v.ok, v.exc_type, v.stage) == (False, "ValueError", "model_config")
    assert v.message == f"Invalid value 'NOT_A_BACKEND' for VLLM_ATTENTION_BACKEND. Valid options: {NAMES_0_11_0}."


@pytest.mark.parametrize("version", ["0.11.1", "0.11.2", "0.12.0"])
@pytest.mark.parametrize("value", ["flash_attn", "", "ROCM_FLASH"])
def test_lower_case_empty_and_retired_names_are_refused(version, value):
    # ROCM_FLASH is 0.11.0's name; 0.11.1 renamed it ROCM_ATTN
    v = _verdict(version, "env", f"VLLM_ATTENTION_BACKEND={value}")
    assert v.ok is False
    assert v.message.startswith(f"Invalid value '{value}' for VLLM_ATTENTION_BACKEND. Valid options: ['FLASH_ATTN', ")


def test_names_differ_per_release():
    v = _verdict("0.12.0", "VLLM_ATTENTION_BACKEND=XFORMERS")   # 0.12.0 dropped XFORMERS
    options = v.message.split("Valid options: ", 1)[1]
    assert v.ok is False and "'ROCM_AITER_TRITON_MLA'" in options and "'XFORMERS'" not in options
    assert _verdict("0.11.1", "VLLM_ATTENTION_BACKEND=XFORMERS").ok is True
    assert _verdict("0.11.0", "VLLM_ATTENTION_BACKEND=CPU_ATTN").ok is False
    assert _verdict("0.11.1", "VLLM_ATTENTION_BACKEND=CPU_ATTN").ok is True


# 0.13.0 - 0.14.1 refuse it building vllm serve's parser instead (tests/test_logging_level_env.py): undecidable
@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.30.0"])
def test_outside_0_11_0_to_0_12_0_model_config_does_not_validate_it(version):
    assert _verdict(version, "VLLM_ATTENTION_BACKEND=NOT_A_BACKEND").ok is True


def test_it_comes_before_the_sleep_mode_check():
    # the sleep-mode check (the platform's, CUDA only on 0.11.0) follows the variable's read in __post_init__
    v = examine(resolve("0.11.0"), ["VLLM_ATTENTION_BACKEND=nope", "vllm", "serve", "Qwen/Qwen3-8B",
                                    "--enable-sleep-mode"], host=Host(platform="rocm")).verdict
    assert v.message.startswith("Invalid value 'nope' for VLLM_ATTENTION_BACKEND.")
