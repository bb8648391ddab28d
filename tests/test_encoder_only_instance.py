"""Encoder-only instances (0.29.0+), through kvguard.examine: an EC producer-only ``--ec-transfer-config`` for a
text-only model refused by VllmConfig._resolve_mm_encoder_only (VC_ec_producer_text_model), ``--mm-encoder-only``
for a text-only model a no-op, the rest undecidable.

Expected answers were recorded from the CPU oracles' serve path (tests/upstream/test_encoder_only.py's launches) on
0.28.0, 0.29.0 and 0.33.0: Qwen/Qwen3-8B with an EC producer-only config refused with ValueError (wrapped by
VllmConfig) "An EC producer-only instance requires a multimodal model." on 0.29.0 / 0.33.0 (at -tp 3 too, before the
head count; after ModelConfig's --max-model-len 0), accepted on 0.28.0; --mm-encoder-only on Qwen3-8B accepted (at
-tp 3 the head count refuses it).
"""

from __future__ import annotations

import pytest

import kvguard
from kvguard.errors import Undecidable

TEXT, VISION = "Qwen/Qwen3-8B", "Qwen/Qwen2.5-VL-7B-Instruct"
PRODUCER = """'{"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"}'"""
REFUSAL = "An EC producer-only instance requires a multimodal model."
HEADS = "Total number of attention heads (32) must be divisible by tensor parallel size (3)."


def _verdict(version: str, model: str, args: str):
    return kvguard.examine(version, f"vllm serve {model} {args}").verdict


def _refusal(verdict) -> tuple:
    return (verdict.ok, verdict.stage, verdict.check, verdict.exc_type, verdict.message, verdict.wrapped_by)


@pytest.mark.parametrize("version", ["0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"])
@pytest.mark.parametrize("args", [f"--ec-transfer-config {PRODUCER}", f"--ec-transfer-config {PRODUCER} -tp 3",
                                  "--ec-transfer-config.ec_connector ECExampleConnector "
                                  "--ec-transfer-config.ec_role ec_producer"])
def test_an_ec_producer_only_text_model_is_refused_first_in_vllm_config(version, args):
    assert _refusal(_verdict(version, TEXT, args)) == (
        False, "verify", "VC_ec_producer_text_model", "ValueError", REFUSAL, "VllmConfig")


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_model_config_refuses_before_the_ec_producer(version):
    verdict = _verdict(version, TEXT, f"--ec-transfer-config {PRODUCER} --max-model-len 0")
    assert (verdict.exc_type, verdict.message, verdict.wrapped_by) == (
        "ValueError", "max_model_len must be a positive integer, got int: 0. Example: max_model_len=2048", "ModelConfig")


def test_0_28_accepts_an_ec_producer_only_text_model():
    assert _verdict("0.28.0", TEXT, f"--ec-transfer-config {PRODUCER}").ok
    assert _refusal(_verdict("0.28.0", TEXT, f"--ec-transfer-config {PRODUCER} -tp 3"))[4] == HEADS


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_mm_encoder_only_does_nothing_for_a_text_model(version):
    assert _verdict(version, TEXT, "--mm-encoder-only").ok
    assert _refusal(_verdict(version, TEXT, "--mm-encoder-only -tp 3"))[3:6] == ("ValueError", HEADS, "VllmConfig")


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
@pytest.mark.parametrize("model, args, reason", [
    (VISION, f"--ec-transfer-config {PRODUCER}", "resolves an encoder-only instance"),
    (VISION, "--mm-encoder-only", "resolves an encoder-only instance"),
    (TEXT, """--ec-transfer-config '{"ec_connector": "ECExampleConnector", "ec_role": "ec_both"}'""",
     "encoder-cache consumer"),
    (TEXT, """--ec-transfer-config '{"ec_role": "ec_producer"}'""", "encoder-cache consumer"),
])
def test_multimodal_encoder_only_and_consumer_roles_stay_undecidable(version, model, args, reason):
    with pytest.raises(Undecidable, match=reason):
        _verdict(version, model, args)
