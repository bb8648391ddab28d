"""--mm-encoder-fp8-scale-path / --mm-encoder-fp8-scale-save-path (kvguard.launch.argv _mm_fp8_problem): vLLM
0.21.0-0.33.0's MultiModalConfig model validator (vllm/config/multimodal.py) refuses either without
--mm-encoder-attn-dtype fp8, and both together, for a multimodal model only.  kvguard does not render those
ValueErrors: undecidable for a multimodal model, accepted for a text-only one (no MultiModalConfig is built).
What the releases answered (tools/option_sweep.py --pairs, Qwen2.5-VL on 0.28.0 / 0.33.0), written out by hand."""

from __future__ import annotations

import pytest

VL = "Qwen/Qwen2.5-VL-7B-Instruct"
NO_DTYPE = ("MultiModalConfig refuses --mm-encoder-fp8-scale-path / --mm-encoder-fp8-scale-save-path without "
            "--mm-encoder-attn-dtype fp8 (a ValueError kvguard does not render)")
BOTH = ("MultiModalConfig refuses --mm-encoder-fp8-scale-save-path with --mm-encoder-fp8-scale-path (a ValueError "
        "kvguard does not render)")


@pytest.mark.parametrize("version", ["0.21.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize(("args", "reason"), [
    (("--mm-encoder-fp8-scale-save-path", "x"), NO_DTYPE),
    (("--mm-encoder-fp8-scale-path", "x"), NO_DTYPE),
    (("--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path", "x", "--mm-encoder-fp8-scale-path", "y"),
     BOTH),
])
def test_a_multimodal_model_is_undecidable(serve_json, version, args, reason):
    status, data = serve_json(version, *args, model=VL)
    assert (status, data["ok"], data["reason_kind"], data["reason"]) == (2, None, "undecidable", reason)


def test_attn_dtype_none_unsets_it_on_0_33_0_only(serve_json):
    """0.33.0's choices hold None itself; 0.21.0-0.32.0 list the string 'None', which optional_type has already
    turned into None, so argparse refuses it."""
    args = ("--mm-encoder-fp8-scale-save-path", "x", "--mm-encoder-attn-dtype", "None")
    status, data = serve_json("0.33.0", *args, model=VL)
    assert (status, data["reason_kind"], data["reason"]) == (2, "undecidable", NO_DTYPE)
    status, data = serve_json("0.28.0", *args, model=VL)
    assert (status, data["exc_type"], data["message"]) == (
        1, "SystemExit", "vllm serve: error: argument --mm-encoder-attn-dtype: invalid choice: None (choose from "
                         "'fp8', 'None')")


@pytest.mark.parametrize("args", [
    ("--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path", "x"),
    # the last value counts, and '' / 'None' unset it (optional_type)
    ("--mm-encoder-fp8-scale-path", "x", "--mm-encoder-fp8-scale-path", "None"),
    ("--mm-encoder-fp8-scale-path", "None", "--mm-encoder-fp8-scale-save-path", ""),
])
def test_what_the_validator_lets_through_on_a_multimodal_model(serve_json, args):
    status, data = serve_json("0.33.0", *args, model=VL)
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.21.0", "0.33.0"])
def test_a_text_only_model_builds_no_multimodal_config(serve_json, version):
    status, data = serve_json(version, "--mm-encoder-fp8-scale-save-path", "x", model="Qwen/Qwen3-8B")
    assert (status, data["ok"]) == (0, True)


def test_the_options_are_unknown_before_0_21_0(serve_json):
    status, data = serve_json("0.20.0", "--mm-encoder-fp8-scale-save-path", "x", model=VL)
    assert status == 1 and "unrecognized arguments: --mm-encoder-fp8-scale-save-path x" in data["message"]
