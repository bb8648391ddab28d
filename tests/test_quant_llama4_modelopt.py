"""Llama 4 ModelOpt FP8 / NVFP4 exports at model construction (kvguard.quant.llama4 with
kvguard.quant.modelopt_shards): expected values worked out by hand from vllm/model_executor/models/llama4.py and
mllama4.py (the router built with ``quant_config=None``, the shared expert and the experts with it; the vision model
and projector without it), quantization/modelopt.py (``ModelOptNvFp4LinearMethod.create_weights``' input check, the
MoE methods' ``supports_eplb``) and fused_moe/layer.py / routed_experts.py (FusedMoE's EPLB refusal) of the releases
named in each test.  The differential in tests/upstream/test_quant.py (run_llama4, llama4_modelopt_variants) checks
them against the releases themselves.  Configs are generated in NVIDIA's published form (hf_quant_config.json's
nested layout, ModelOpt's Llama 4 exclusion patterns); the host is the default H100 node."""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import Launch, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
#: the exclusion patterns of ModelOpt's Llama 4 export
EXCLUDE = ["multi_modal_projector*", "*feed_forward.router", "vision_model*", "*lm_head"]
NVFP4_INPUT = "Unsupported model when in features size is not multiple of 16"


def _modelopt(algo: str, exclude: "list[str] | None" = None, **text) -> dict:
    cfg = copy.deepcopy(catalog.lookup(SCOUT).config)
    cfg["text_config"].update(text)
    cfg["quantization_config"] = {
        "quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
        "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None,
                         "exclude_modules": EXCLUDE if exclude is None else exclude,
                         **({"group_size": 16} if algo == "NVFP4" else {})}}
    return cfg


def _outcome(cfg: dict, version: str, **launch):
    return outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(**launch))


@pytest.mark.parametrize("version", ["0.10.2", "0.11.1", "0.24.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("algo", ["FP8", "NVFP4"])
def test_nvidias_scout_exports_build_at_tp8(version, algo):
    # NVFP4: every quantized layer's per-rank input a multiple of 16 (5120 hidden, 640 = 40 x 128 / 8 attention
    # output, 8192 / 8 = 1024 shared-expert rows); FP8 checks no size; the experts' backends take every layout on 9.0
    res = _outcome(_modelopt(algo), version, tp=8)
    assert (res.check, res.unmodelled) == (None, None)
    assert kvguard.check(_modelopt(algo), vllm_version=version, tp=8, host=H100).ok


@pytest.mark.parametrize("version", ["0.10.2", "0.12.0", "0.24.0", "0.33.0"])
def test_nvfp4_shared_expert_rows_not_a_multiple_of_16(version):
    # intermediate 8200 at tp 8: the shared expert's down_proj (row) has 1025 inputs per rank, the first quantized
    # layer of layer 0 (a MoE layer in Scout) that refuses; the router before it is built unquantized
    res = _outcome(_modelopt("NVFP4", intermediate_size=8200), version, tp=8)
    assert (res.check, res.layer) == ("MI_nvfp4_input", "language_model.model.layers.0.feed_forward.shared_expert.down_proj")
    v = kvguard.check(_modelopt("NVFP4", intermediate_size=8200), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_nvfp4_input", "ValueError",
                                                                NVFP4_INPUT)


def test_fp8_takes_rows_nvfp4_refuses():
    # the same 1025 rows under per-tensor FP8: ModelOptFp8LinearMethod checks no size
    assert kvguard.check(_modelopt("FP8", intermediate_size=8200), vllm_version="0.24.0", tp=8, host=H100).ok


@pytest.mark.parametrize(("version", "algo", "message"), [
    # 0.11.x: FusedMoE asks supports_eplb; ModelOptFp8MoEMethod never sets it, ModelOptNvFp4FusedMoE from 0.13.0
    ("0.11.1", "FP8", "EPLB is not supported ModelOptFp8MoEMethod. EPLB is only supported for FP8 quantization for now."),
    ("0.12.0", "NVFP4",
     "EPLB is not supported ModelOptNvFp4FusedMoE. EPLB is only supported for FP8 quantization for now."),
    ("0.24.0", "FP8", "EPLB is not supported ModelOptFp8MoEMethod."),
    ("0.24.0", "NVFP4", None),
    ("0.33.0", "NVFP4", None),
])
def test_eplb_on_the_experts(version, algo, message):
    # -dp 8 with expert parallel: 16 experts, 2 per rank
    v = kvguard.check(_modelopt(algo), vllm_version=version, dp=8, ep=True, enable_eplb=True, host=H100)
    if message is None:
        assert v.ok, v.message
    else:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
            False, "model_init", "MI_eplb_unsupported", "NotImplementedError", message)


def test_experts_excluded_take_the_unquantized_method_with_eplb():
    # 0.24.0: listing every layer's experts leaves them on UnquantizedFusedMoEMethod (supports EPLB): accepted
    exclude = EXCLUDE + ["language_model.model.layers.*.feed_forward.experts*"]
    assert kvguard.check(_modelopt("FP8", exclude), vllm_version="0.24.0", dp=8, ep=True, enable_eplb=True,
                         host=H100).ok


@pytest.mark.parametrize("cfg", [
    # a tied LM head (LlamaForCausalLM ties through the head's method), per-channel FP8 experts, the text-only class
    pytest.param(_modelopt("FP8", tie_word_embeddings=True), id="tied"),
    pytest.param(_modelopt("FP8_PER_CHANNEL_PER_TOKEN"), id="fp8-pc-pt"),
    pytest.param(dict(_modelopt("NVFP4")["text_config"], architectures=["Llama4ForCausalLM"],
                      quantization_config=_modelopt("NVFP4")["quantization_config"]), id="text-only"),
])
def test_forms_left_open(cfg):
    res = _outcome(cfg, "0.28.0", tp=8)
    assert res.check is None and res.unmodelled


@pytest.mark.parametrize("algo", ["FP8", "NVFP4"])
def test_another_compute_capability_leaves_the_construction_open(algo):
    # the experts' (and NVFP4's linear) kernel choice is the host's: decided for capability 9.0 only; on 10.0 the
    # 1025-row refusal above is not asserted
    b200 = kvguard.Host(**{**H100.__dict__, "gpu_capability": 100})
    v = kvguard.check(_modelopt(algo, intermediate_size=8200), vllm_version="0.28.0", tp=8, host=b200)
    assert v.check != "MI_nvfp4_input"
    assert any("MI_model" in str(s) for s in v.skipped)
