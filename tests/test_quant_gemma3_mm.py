"""Gemma 3's multimodal wrapper at model construction (kvguard.quant.gemma3_mm: Gemma3ForConditionalGeneration).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/gemma3_mm.py and siglip.py of 0.10.2 – 0.33.0: the SigLIP tower first, each encoder
layer's qkv_proj / out_proj / fc1 / fc2, SiglipMLP's multiple-of-64 rule; layers/linear.py's divide asserts;
quantization/awq.py's input alignment; config/model.py's fallback of --mm-encoder-tp-mode data for a wrapper that
does not support it); tests/upstream/test_quant.py (run_gemma3_mm) and the golden cases mi-*gemma3-27b-* compare
with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import Launch, gemma3_mm, outcome
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
#: four nodes' worth of GPUs on one host, so that -tp 32 passes the host's GPU count
WIDE = kvguard.Host.cuda_node(gpus_per_node=32)
VERSIONS = ["0.10.2", "0.14.1", "0.28.0", "0.33.0"]
#: google/gemma-3-27b-it (text: hidden 5376, 32 heads, 16 KV heads, head 128, intermediate 21504; SigLIP tower:
#: hidden 1152, 16 heads, intermediate 4304, 27 layers, vision_use_head false)
GEMMA3_27B = catalog.lookup("google/gemma-3-27b-it").config
AWQ = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm", "quant_method": "awq"}
AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
             "parallel size.")
#: llm-compressor's FP8_DYNAMIC preset as RedHatAI/gemma-3-27b-it-FP8-dynamic writes it
CT_FP8_DYNAMIC = {
    "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
    "config_groups": {"group_0": {"targets": ["Linear"], "output_activations": None,
                                  "weights": {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel",
                                              "dynamic": False, "observer": "minmax"},
                                  "input_activations": {"num_bits": 8, "type": "float", "symmetric": True,
                                                        "strategy": "token", "dynamic": True}}},
    "ignore": ["re:.*lm_head", "re:vision_tower.*", "re:multi_modal_projector.*"]}


#: layer 0's query projection in the checkpoint's names (transformers >= 4.52 writes the tower under model.)
CHECKPOINT_Q_PROJ = "model.vision_tower.vision_model.encoder.layers.0.self_attn.q_proj"


def _with(cfg: dict, quant: "dict | None" = None, **vision) -> dict:
    out = copy.deepcopy(cfg)
    out["vision_config"].update(vision)
    if quant is not None:
        out["quantization_config"] = quant
    return out


def _twelve_b(**vision) -> dict:
    """google/gemma-3-12b-it's text sizes (hidden 3840, 16 heads, 8 KV heads, head 256, intermediate 15360) on the
    27B's tower."""
    out = _with(GEMMA3_27B, **vision)
    out["text_config"].update(hidden_size=3840, intermediate_size=15360, num_attention_heads=16,
                              num_key_value_heads=8, head_dim=256, num_hidden_layers=48)
    return out


def _headless() -> dict:
    """The 27B's config without vision_use_head (hasattr fails: up to 0.14.x the transformer builds the head)."""
    out = copy.deepcopy(GEMMA3_27B)
    del out["vision_config"]["vision_use_head"]
    return out


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_towers_heads_refuse_tp32(version):
    # -tp 32: the text model's checks pass (32 heads; 16 KV heads replicated twice), but the tower is built first and
    # layer 0's qkv_proj divides its 16 heads by 32
    v = kvguard.check(GEMMA3_27B, vllm_version=version, tp=32, host=WIDE)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_divide", "AssertionError",
                                                                "16 is not divisible by 32")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_data_parallel_encoder_falls_back_to_the_split_tower(version):
    # Gemma3ForConditionalGeneration does not declare supports_encoder_tp_data: --mm-encoder-tp-mode data falls back
    # to weights, and the same head divide refuses
    res = outcome(model_facts(GEMMA3_27B, vllm_version=version), resolve(version),
                  Launch(tp=32, mm_encoder_tp_mode="data"))
    assert (res.check, res.layer) == ("MI_divide", "vision_tower.vision_model.encoder.layers.0.self_attn.qkv_proj")


@pytest.mark.parametrize("version", ["0.10.2", "0.33.0"])
def test_an_mlp_width_tp_does_not_divide(version):
    # 12B text sizes pass at -tp 8 (16 heads, 8 KV heads); a 4300-wide tower MLP: fc1's outputs 4300 / 8
    v = kvguard.check(_twelve_b(intermediate_size=4300), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_divide", "AssertionError", "4300 is not divisible by 8")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_published_sizes_are_accepted_and_decided(version):
    for tp in (1, 2, 4, 8, 16):
        v = kvguard.check(GEMMA3_27B, vllm_version=version, tp=tp, host=WIDE)
        assert v.ok and mi_skip(v) == "", tp


@pytest.mark.parametrize("version", VERSIONS)
def test_awq_with_the_tower_quantized_refuses_tp2(version):
    # nothing left unconverted: the tower's out_proj (row parallel) takes 1152 / 2 = 576 inputs per rank, 4.5 groups
    # of 128 (its MLP is built unquantized: 4304 is no multiple of 64)
    v = kvguard.check(_with(GEMMA3_27B, dict(AWQ, modules_to_not_convert=None)), vllm_version=version, tp=2,
                      host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_awq_input", "ValueError", AWQ_INPUT)
    # the tower left unconverted: every text layer's inputs are whole groups at -tp 2 and -tp 4
    for tp in (2, 4):
        v = kvguard.check(_with(GEMMA3_27B, dict(AWQ, modules_to_not_convert=["vision_tower", "multi_modal_projector"])),
                          vllm_version=version, tp=tp, host=H100)
        assert v.ok and mi_skip(v) == "", tp


@pytest.mark.parametrize("version", VERSIONS)
def test_redhats_fp8_dynamic_export_is_decided(version):
    v = kvguard.check(_with(GEMMA3_27B, CT_FP8_DYNAMIC), vllm_version=version, tp=4, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_the_towers_layers():
    layers = gemma3_mm.tower_layers(model_facts(GEMMA3_27B, vllm_version="0.33.0").resolved_top)
    assert len(layers) == 27 * 4
    qkv, out, fc1, fc2 = layers[:4]
    assert (qkv.prefix, qkv.kind, qkv.qkv) == ("vision_tower.vision_model.encoder.layers.0.self_attn.qkv_proj", "qkv",
                                               (1152, 72, 16, 16))
    assert (out.kind, out.input_size, out.output_sizes, out.quantized) == ("row", 1152, (1152,), True)
    # 4304 % 64 = 16: SiglipMLP builds fc1 / fc2 without the quantization config
    assert (fc1.kind, fc1.output_sizes, fc1.quantized) == ("column", (4304,), False)
    assert (fc2.kind, fc2.input_size, fc2.quantized) == ("row", 4304, False)
    wide = gemma3_mm.tower_layers(model_facts(_with(GEMMA3_27B, intermediate_size=4352), vllm_version="0.33.0")
                                  .resolved_top)
    assert wide[2].quantized and wide[3].quantized


def test_the_mapper_renames_the_checkpoint_names():
    assert gemma3_mm.ignored_names(("model.vision_tower.vision_model.encoder.layers.0.self_attn.q_proj",
                                    "model.language_model.layers.3.mlp.down_proj", "model.multi_modal_projector",
                                    "lm_head", "re:vision_tower.*", "vision_tower")) == (
        "vision_tower.vision_model.encoder.layers.0.self_attn.q_proj", "language_model.model.layers.3.mlp.down_proj",
        "model.multi_modal_projector", "lm_head", "re:vision_tower.*", "vision_tower")


@pytest.mark.parametrize(("cfg", "version", "launch", "why"), [
    (GEMMA3_27B, "0.24.0", {"tp": 4, "pp": 2}, "pipeline parallelism"),
    (GEMMA3_27B, "0.24.0", {"tp": 4, "mm_limits": True}, "--limit-mm-per-prompt"),
    # the pooling head: built up to 0.14.x when the vision config does not set vision_use_head false
    (_headless(), "0.14.1", {"tp": 4}, "attention-pooling head"),
    (_with(GEMMA3_27B, hidden_act="gelu"), "0.24.0", {"tp": 4}, "SigLIP vision tower"),
    (_with(GEMMA3_27B, num_attention_heads=10), "0.24.0", {"tp": 2}, "SigLIP vision tower"),
    # a checkpoint name from 0.25.0 (where the gemma3 family leaves dotted compressed-tensors entries open)
    (_with(GEMMA3_27B, dict(CT_FP8_DYNAMIC, ignore=["lm_head", CHECKPOINT_Q_PROJ])), "0.25.0", {"tp": 2},
     "compressed-tensors checkpoint's ignore list"),
    # AWQ's list is matched as written before 0.11.1: a checkpoint name there is not decided
    (_with(GEMMA3_27B, dict(AWQ, modules_to_not_convert=["model.vision_tower."])), "0.11.0", {"tp": 2},
     "names its checkpoint-name mapper rewrites"),
    (_with(GEMMA3_27B, {"quant_method": "bitsandbytes", "load_in_4bit": True}), "0.24.0", {"tp": 2}, "bitsandbytes"),
])
def test_left_open(cfg, version, launch, why):
    res = outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(**launch))
    assert res.check is None and why in (res.unmodelled or "")


def test_the_head_is_never_built_from_0_15_0():
    res = outcome(model_facts(_headless(), vllm_version="0.15.0"), resolve("0.15.0"),
                  Launch(tp=4))
    assert res.check is None and res.unmodelled is None


@pytest.mark.parametrize("version", ["0.10.2", "0.24.0"])
def test_compressed_tensors_maps_checkpoint_names_onto_the_tower(version):
    # CompressedTensorsConfig.apply_vllm_mapper renames model.vision_tower. to vision_tower.: the mapped entry names
    # q_proj alone, so the fused qkv_proj's shards disagree (should_ignore_layer's ValueError) at the tower's first
    # layer, before any text layer
    v = kvguard.check(_with(GEMMA3_27B, dict(CT_FP8_DYNAMIC, ignore=["re:.*lm_head", CHECKPOINT_Q_PROJ])),
                      vllm_version=version, tp=2, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_ct_fused_ignore", "ValueError",
        "Found a different quantization schemes for ['q_proj', 'k_proj', 'v_proj'] in "
        "vision_tower.vision_model.encoder.layers.0.self_attn.qkv_proj. vLLM requires all to use the same scheme.")
    # all three shards (and out_proj) named: the layer is left unquantized, the launch builds
    names = [CHECKPOINT_Q_PROJ.replace("q_proj", n) for n in ("q_proj", "k_proj", "v_proj", "out_proj")]
    v = kvguard.check(_with(GEMMA3_27B, dict(CT_FP8_DYNAMIC, ignore=["re:.*lm_head", *names])), vllm_version=version,
                      tp=2, host=H100)
    assert v.ok and mi_skip(v) == ""
