"""A multimodal checkpoint whose quantization config sits in ``text_config`` only (kvguard.quant.verify).

ModelConfig reads ``hf_config.quantization_config`` (else ``compression_config``), and when there is none the same
keys of ``hf_config.text_config`` (every release: vllm/config/__init__.py of 0.10.2, ModelArchConfigConvertor
.get_quantization_config from 0.15.0).  moonshotai/Kimi-K2.5 publishes compressed-tensors W4A16 in text_config; its
top-level config class copies it up to 0.28.x (vLLM's KimiK25Config), not from 0.29.0 (transformers' Kimi_K25Config),
where kvguard used to leave the checks open.  Expected messages from vllm/config/model.py (0.33.0: "Quantization method
specified in the model config (...) does not match ..."); tests/upstream/test_quant_verify.py
(``KVG_QVERIFY_PART=text_config``) compares with the releases.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node()


def k25(quant=None) -> dict:
    c = copy.deepcopy(catalog.lookup("moonshotai/Kimi-K2.5").config)
    if quant is not None:
        c["text_config"]["quantization_config"] = quant
    return c


def quant_skips(v) -> list[str]:
    return [s.check for s in v.skipped if s.check.startswith(("MC_quant", "VC_quant"))]


@pytest.mark.parametrize("version", ["0.20.0", "0.28.0", "0.29.0", "0.33.0"])
def test_text_config_method_against_the_flag(version):
    v = kvguard.check(k25(), vllm_version=version, tp=8, host=H100, quantization="fp8")
    assert (v.ok, v.stage, v.check, v.exc_type, v.wrapped_by, v.message) == (
        False, "model_config", "MC_quant_mismatch", "ValueError", "ModelConfig",
        "Quantization method specified in the model config (compressed-tensors) does not match the quantization "
        "method specified in the `quantization` argument (fp8).")


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_text_config_method_is_read(version):
    # the published checkpoint: compressed-tensors, a method every release knows: the checks decided, none refuses
    v = kvguard.check("moonshotai/Kimi-K2.5", vllm_version=version, tp=8, host=H100)
    assert v.ok and quant_skips(v) == []
    # an unknown method in text_config: refused as the top level's would be
    bad = kvguard.check(k25({"quant_method": "bogus"}), vllm_version=version, tp=8, host=H100)
    assert (bad.ok, bad.check) == (False, "MC_quant_unknown")
