"""Kimi-K3 model construction (kvguard.quant.kimi_k3), through the CLI's JSON report and kvguard.quant.outcome.

The expected values are read in the releases, not computed by kvguard: vllm/models/kimi_k3/nvidia/model.py builds
Kimi-K2.5's MoonViT tower first (the checkpoint's 12 vision heads, intermediate size 4096: kimi_k25_vit.py divides
them by tp, vision.py runs the encoder data-parallel when tp does not divide the heads), then ``KimiLinearModel``,
whose vocabulary embedding divides the 163840 tokens (a multiple of 64) by tp.  The oracle builds of
moonshotai/Kimi-K3 (four decoder layers) in 0.27.0 - 0.33.0 refuse -tp 3 / 6 / 12 with ``4096 is not divisible by N``
and -tp 24 / 48 / 96 with ``163840 is not divisible by N``, quantized or not; the oracle differential is
tests/upstream/test_quant.py's run_kimi_k3.
"""

from __future__ import annotations

import copy

import pytest

K3 = "moonshotai/Kimi-K3"
RELEASES = ["0.27.0", "0.30.0", "0.33.0"]


def _skipped_mi(report: dict) -> list:
    return [s for s in report.get("skipped") or [] if "MI_model" in str(s)]


def _refusal(report: dict) -> tuple:
    return report["ok"], report["stage"], report["check"], report["exc_type"], report["message"], report["wrapped_by"]


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tp, nodes", [("3", ()), ("6", ()), ("12", ("--nnodes", "2"))])
def test_vision_tower_refuses_its_intermediate_size(serve_json, version, tp, nodes):
    status, report = serve_json(version, "-tp", tp, *nodes, model=K3)
    assert _refusal(report) == (False, "model_init", "MI_divide", "AssertionError", f"4096 is not divisible by {tp}",
                                None)


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tp, nodes", [("24", "3"), ("48", "6")])
def test_embedding_refuses_the_vocabulary(serve_json, version, tp, nodes):
    # 12 heads tp does not divide: the tower runs data-parallel and the embedding refuses next
    status, report = serve_json(version, "-tp", tp, "--nnodes", nodes, model=K3)
    assert _refusal(report) == (False, "model_init", "MI_divide", "AssertionError",
                                f"163840 is not divisible by {tp}", None)


@pytest.mark.parametrize("version", RELEASES)
def test_data_parallel_encoder_leaves_the_embedding_first(serve_json, version):
    status, report = serve_json(version, "-tp", "12", "--nnodes", "2", "--mm-encoder-tp-mode", "data", model=K3)
    assert _refusal(report) == (False, "model_init", "MI_divide", "AssertionError", "163840 is not divisible by 12",
                                None)


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("args", [("-tp", "8"), ("-tp", "16", "--nnodes", "2"), ("-tp", "8", "-dp", "2", "--nnodes",
                                                                                   "2", "--enable-expert-parallel")])
def test_launches_past_the_embedding_stay_open(serve_json, version, args):
    status, report = serve_json(version, *args, model=K3)
    assert report["ok"] is True
    assert [s["reason"] for s in _skipped_mi(report)] == [
        "the decoder layers of KimiK3ForConditionalGeneration (Kimi Delta Attention, MLA, the latent MoE whose "
        "experts' backend the GPU host chooses) are not modelled"]


def _outcome(version: str, config: dict, **launch):
    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    return outcome(model_facts(config, vllm_version=version), resolve(version), Launch(**launch))


def _config(**text) -> dict:
    from kvguard import catalog

    cfg = copy.deepcopy(catalog.lookup(K3).config)
    cfg["text_config"].update(text)
    return cfg


def test_the_unquantized_model_refuses_alike():
    cfg = _config()
    cfg["text_config"].pop("quantization_config")
    res = _outcome("0.28.0", cfg, tp=6)
    assert (res.check, dict(res.values), res.layer) == (
        "MI_divide", {"numerator": 4096, "denominator": 6}, "vision_tower.encoder.blocks.0.mlp.fc0")


@pytest.mark.parametrize("tp", [3, 6, 12])
def test_the_tower_attention_is_its_qkv_width(tp):
    # 6 heads, 3072 MLP features: the blocks split; wo's input is qkv_hidden_size (1536), not the 1024 hidden size,
    # so the tower builds and the embedding refuses (the 0.33.0 oracle: "163840 is not divisible by 12")
    cfg = _config()
    cfg["vision_config"].update(vt_num_attention_heads=6, vt_intermediate_size=3072)
    res = _outcome("0.33.0", cfg, tp=tp)
    assert (res.check, dict(res.values), res.layer) == (
        "MI_divide", {"numerator": 163840, "denominator": tp}, "language_model.model.embed_tokens")


def test_a_vocabulary_is_padded_to_64_before_the_split():
    # 163841 tokens (odd) pad to 163904 = 64 x 2561: -tp 2 divides it; -tp 3 (the tower data-parallel) does not
    res = _outcome("0.33.0", _config(vocab_size=163841), tp=2)
    assert res.check is None and "decoder layers" in (res.unmodelled or "")
    res = _outcome("0.33.0", _config(vocab_size=163841), tp=3, mm_encoder_tp_mode="data")
    assert (res.check, dict(res.values), res.layer) == (
        "MI_divide", {"numerator": 163904, "denominator": 3}, "language_model.model.embed_tokens")


@pytest.mark.parametrize("launch, reason", [
    ({"tp": 24, "pp": 2}, "with 2 pipeline stages"),
    ({"tp": 6, "mm_limits": True}, "--limit-mm-per-prompt / --language-model-only"),
    ({"tp": 6, "quantization": "fp8"}, "--quantization fp8 with KimiK3ForConditionalGeneration"),
])
def test_launches_it_does_not_follow_stay_open(launch, reason):
    res = _outcome("0.33.0", _config(), **launch)
    assert res.check is None and reason in (res.unmodelled or "")


def test_another_checkpoint_format_stays_open():
    cfg = _config()
    cfg["text_config"]["quantization_config"] = dict(cfg["text_config"]["quantization_config"],
                                                     format="nvfp4-pack-quantized")
    res = _outcome("0.33.0", cfg, tp=24)
    assert res.check is None and "nvfp4-pack-quantized" in (res.unmodelled or "")


# The configuration checks: KimiK3ForConditionalGenerationConfig (vllm/model_executor/models/config.py, 0.27.0+)
# rewrites the checkpoint's compressed-tensors mxfp4-pack-quantized config to mxfp4 before ModelConfig checks it; the
# oracle's create_engine_config on 0.27.0, 0.30.0 and 0.33.0 gave these.
@pytest.mark.parametrize("version", RELEASES)
def test_float16_is_refused_for_the_mxfp4_method(serve_json, version):
    status, report = serve_json(version, "-tp", "8", "--dtype", "float16", model=K3)
    assert _refusal(report) == (False, "verify", "VC_quant_act_dtype", "ValueError",
                                "torch.float16 is not supported for quantization method mxfp4. Supported dtypes: "
                                "[torch.bfloat16]", "VllmConfig")


@pytest.mark.parametrize("version", RELEASES)
def test_another_quantization_mismatches_mxfp4(serve_json, version):
    status, report = serve_json(version, "-tp", "8", "--quantization", "fp8", model=K3)
    assert _refusal(report) == (False, "model_config", "MC_quant_mismatch", "ValueError",
                                "Quantization method specified in the model config (mxfp4) does not match the "
                                "quantization method specified in the `quantization` argument (fp8).", "ModelConfig")


@pytest.mark.parametrize("version", RELEASES)
def test_quantization_mxfp4_names_the_rewritten_method(serve_json, version):
    status, report = serve_json(version, "-tp", "8", "--quantization", "mxfp4", model=K3)
    assert report["ok"] is True
    assert [s["check"] for s in report.get("skipped") or []] == ["MI_model"]
