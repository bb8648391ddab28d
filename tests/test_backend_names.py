"""``--attention-backend``'s name (kvguard.rules.backend_names): what the releases answered
(tests/upstream/test_backend_names.py and the golden cases be-*, serve path), written out literally."""

from __future__ import annotations

import pytest

NAMES_0130 = ("FLASH_ATTN, TRITON_ATTN, ROCM_ATTN, ROCM_AITER_MLA, ROCM_AITER_TRITON_MLA, ROCM_AITER_FA, "
              "ROCM_AITER_MLA_SPARSE, TORCH_SDPA, FLASHINFER, FLASHINFER_MLA, TRITON_MLA, CUTLASS_MLA, FLASHMLA, "
              "FLASHMLA_SPARSE, FLASH_ATTN_MLA, PALLAS, IPEX, NO_ATTENTION, FLEX_ATTENTION, TREE_ATTN, "
              "ROCM_AITER_UNIFIED_ATTN, CPU_ATTN, CUSTOM")


def test_an_unknown_name_is_refused_with_the_release_names(serve_json):
    status, data = serve_json("0.13.0", "--attention-backend", "xformers")
    assert (status, data["stage"], data["check"], data["exc_type"], data["wrapped_by"]) == (
        1, "engine_args", "EA_attention_backend_unknown", "ValueError", None)
    assert data["message"] == f"Unknown attention backend: 'XFORMERS'. Valid options are: {NAMES_0130}"


@pytest.mark.parametrize("version,accepted", [("0.13.0", False), ("0.17.1", False), ("0.18.0", True),
                                              ("0.33.0", True)])
def test_auto_is_a_name_from_0_18_0(serve_json, version, accepted):
    status, data = serve_json(version, "--attention-backend", "Auto")
    assert status == (0 if accepted else 1)
    if not accepted:
        assert data["message"].startswith("Unknown attention backend: 'AUTO'. Valid options are: FLASH_ATTN, ")


@pytest.mark.parametrize("name", ["flashinfer", "FLASH_ATTN", "triton_attn", "None", ""])
def test_the_release_names_in_any_case_and_none_are_accepted(serve_json, name):
    status, data = serve_json("0.20.0", "--attention-backend", name)
    assert (status, data["ok"]) == (0, True)


def test_a_name_the_release_added_later_is_refused():
    # TURBOQUANT is among 0.20.0's names, not 0.13.0's (the Python API reads the field as the flag)
    from kvguard import check

    verdict = check("Qwen/Qwen3-8B", vllm_version="0.13.0", attention_backend="TURBOQUANT")
    assert (verdict.ok, verdict.check) == (False, "EA_attention_backend_unknown")


def test_the_backend_given_twice_is_refused(serve_json):
    status, data = serve_json("0.20.0", "--attention-backend", "FLASH_ATTN", "-ac.backend", "TRITON_ATTN")
    assert (status, data["check"], data["message"]) == (
        1, "EA_attention_backend_twice", "attention_backend and attention_config.backend are mutually exclusive")


def test_the_option_starts_at_0_13_0(serve_json):
    status, data = serve_json("0.12.0", "--attention-backend", "FLASH_ATTN")
    assert (status, data["message"]) == (1, "vllm: error: unrecognized arguments: --attention-backend FLASH_ATTN")
