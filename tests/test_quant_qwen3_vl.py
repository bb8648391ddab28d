"""Qwen3-VL / Qwen3-VL-MoE construction (kvguard.quant.qwen3_vl): expected values worked out by hand from
vllm/model_executor/models/qwen3_vl.py, qwen2_5_vl.py and layers/quantization/utils/fp8_utils.py of the releases
(the differential in tests/upstream/test_quant.py checks them against the releases themselves)."""

from __future__ import annotations

import copy

import pytest

from kvguard import catalog
from kvguard.quant import Launch, outcome, qwen3_vl
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

BASE = catalog.lookup("Qwen/Qwen3-VL-235B-A22B-Instruct").config


def _fp8(names: list[str]) -> dict:
    cfg = copy.deepcopy(BASE)
    cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                  "weight_block_size": [128, 128], "modules_to_not_convert": names}
    return cfg


def _outcome(cfg: dict, version: str, **launch):
    return outcome(model_facts(cfg, vllm_version=version), resolve(version),
                   Launch(refined_fp8_moe_kernel=True, **launch))


#: every linear layer of the published tower (27 blocks, the merger and 3 deepstack mergers), in checkpoint names
TOWER = ([f"model.visual.blocks.{b}.{n}" for b in range(27)
          for n in ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2")]
         + [f"model.visual.{m}.linear_fc{k}" for m in ("merger", "deepstack_merger_list.0", "deepstack_merger_list.1",
                                                        "deepstack_merger_list.2") for k in (1, 2)])


@pytest.mark.parametrize("version", ["0.11.1", "0.24.0", "0.33.0"])
def test_sixteen_vision_heads_refuse_tp32_unless_the_encoder_runs_data_parallel(version):
    res = _outcome(BASE, version, tp=32)
    assert (res.check, dict(res.values), res.layer) == ("MI_divide", {"numerator": 16, "denominator": 32},
                                                        "visual.blocks.0.attn.qkv")
    res = _outcome(BASE, version, tp=32, mm_encoder_tp_mode="data")
    assert res.check is None and res.unmodelled is None


def test_the_mapper_renames_the_checkpoint_names():
    assert qwen3_vl.ignored_names(("model.visual.blocks.0.attn.qkv", "model.language_model.layers.3.mlp.gate",
                                   "lm_head", "lm_head.weight")) == (
        "visual.blocks.0.attn.qkv", "language_model.model.layers.3.mlp.gate", "lm_head",
        "language_model.lm_head.weight")


def test_block_fp8_with_the_tower_excluded_is_the_language_models_answer():
    cfg = _fp8(TOWER + ["lm_head"])
    # 1536 expert rows / 4 = 384, three blocks of 128
    assert _outcome(cfg, "0.24.0", tp=4).check is None
    # / 8 = 192: block_n up to 0.28.x (refined to 64 from 0.29.0)
    res = _outcome(cfg, "0.24.0", tp=8)
    assert (res.check, dict(res.values)) == ("MI_fp8_moe_block_n", {"size": 192, "block": 128})
    assert _outcome(cfg, "0.29.0", tp=8).check is None


def test_block_fp8_on_the_tower():
    cfg = _fp8(["lm_head"])
    # at tp 2 the mergers' 4608 / 2 = 2304 fit; the first block's proj takes 1152 / 2 = 576 inputs, 576 % 128 = 64
    res = _outcome(cfg, "0.24.0", tp=2)
    assert (res.check, dict(res.values), res.layer) == ("MI_fp8_block_k", {"size": 576, "block": 128},
                                                        "visual.blocks.0.attn.proj")
    # with the blocks excluded but not the mergers, tp 8 refuses on the merger's 4608 / 8 = 576 outputs
    res = _outcome(_fp8([n for n in TOWER if ".blocks." in n] + ["lm_head"]), "0.24.0", tp=8)
    assert (res.check, dict(res.values), res.layer) == ("MI_fp8_block_n", {"size": 576, "block": 128},
                                                        "visual.merger.linear_fc1")
    # data-parallel: the tower is not split, and an unsplit layer's blocks are not checked
    res = _outcome(cfg, "0.24.0", tp=2, mm_encoder_tp_mode="data")
    assert res.check is None and res.unmodelled is None


def _awq(names: list[str]) -> dict:
    return dict(BASE, quantization_config={"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm",
                                           "modules_to_not_convert": names, "quant_method": "awq"})


def test_awq_modules_to_not_convert_through_the_mapper():
    # "model.visual" has no trailing dot: the mapper's "model.visual." prefix leaves it, and no tower layer's name
    # (visual.*) contains it, so the tower is quantized: at tp 2 attn.proj takes 1152 / 2 = 576 inputs, 4.5 groups of
    # 128, which Marlin declines and the plain AWQ kernels refuse
    res = _outcome(_awq(["model.visual"]), "0.24.0", tp=2)
    assert (res.check, dict(res.values), res.layer) == ("MI_awq_input", {"size": 576, "group": 128, "input": 1152},
                                                        "visual.blocks.0.attn.proj")
    # "model.visual." becomes "visual.", a substring of every tower layer's name: the tower is left unquantized
    assert _outcome(_awq(["model.visual."]), "0.24.0", tp=2).check is None
    # 0.11.0's AWQ config maps nothing
    assert "not mapped" in (_outcome(_awq(["visual"]), "0.11.0", tp=2).unmodelled or "")


@pytest.mark.parametrize(("cfg", "version", "launch", "why"), [
    (BASE, "0.11.1", {"tp": 2, "dp": 2, "ep": True, "eplb": True}, "MixtureOfExperts"),
    (BASE, "0.24.0", {"tp": 4, "pp": 2}, "pipeline parallelism"),
    (BASE, "0.24.0", {"tp": 32, "mm_limits": True}, "--limit-mm-per-prompt"),
    (dict(BASE, quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True,
                                     "desc_act": False}), "0.24.0", {"tp": 4}, "gptq weight-shard checks"),
])
def test_left_open(cfg, version, launch, why):
    res = _outcome(cfg, version, **launch)
    assert res.check is None and why in (res.unmodelled or "")


def test_eplb_is_decided_once_the_wrapper_implements_mixture_of_experts():
    res = _outcome(BASE, "0.12.0", tp=1, dp=5, ep=True, eplb=True)
    assert res.check == "MI_eplb_even"


@pytest.mark.parametrize("given", [{"limit_mm_per_prompt": '{"image": 0, "video": 0}'}, {"language_model_only": True}])
def test_a_launch_that_may_build_no_tower_is_left_open(given):
    import kvguard

    v = kvguard.check(BASE, vllm_version="0.24.0", tensor_parallel_size=32, **given)
    assert v.ok and any(s.check == "MI_model" and "no vision tower" in s.reason for s in v.skipped)
    assert not kvguard.check(BASE, vllm_version="0.24.0", tensor_parallel_size=32).ok


def _ct(ignore: list[str], weights: "dict | None" = None, activations: "dict | None" = None,
        fmt: str = "float-quantized") -> dict:
    args = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "block_structure": None,
            "actorder": None, "observer": None, "observer_kwargs": {}}
    cfg = copy.deepcopy(BASE)
    cfg["torch_dtype"] = "bfloat16"
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"],
                                      "weights": weights or dict(args, strategy="channel", dynamic=False),
                                      "input_activations": activations, "output_activations": None, "format": fmt}},
        "ignore": ignore, "kv_cache_scheme": None, "sparsity_config": {}}
    return cfg


_FP8_TOKEN = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "strategy": "token",
              "block_structure": None, "dynamic": True, "actorder": None, "observer": None, "observer_kwargs": {}}


@pytest.mark.parametrize("version", ["0.11.0", "0.24.0", "0.33.0"])
def test_compressed_tensors_fp8_dynamic_in_llm_compressors_form(version):
    # FP8-dynamic (per-channel weights) checks no size; the tower, the router gates and the LM head ignored
    res = _outcome(_ct(["re:.*lm_head", "re:visual.*", "re:.*mlp.gate$"], activations=_FP8_TOKEN), version, tp=8)
    assert res.check is None and res.unmodelled is None


def test_compressed_tensors_ignore_names_the_mapper_would_rewrite_are_left_open():
    res = _outcome(_ct(["lm_head", "model.visual.merger.linear_fc1", "re:.*mlp.gate$"], activations=_FP8_TOKEN),
                   "0.24.0", tp=4)
    assert res.check is None and "names its checkpoint-name mapper rewrites" in (res.unmodelled or "")


def test_compressed_tensors_w4a16_on_the_tower():
    w4 = {"num_bits": 4, "type": "int", "symmetric": True, "group_size": 128, "strategy": "group",
          "block_structure": None, "dynamic": False, "actorder": None, "observer": "minmax", "observer_kwargs": {}}
    # the tower quantized: at tp 2 attn.proj takes 1152 / 2 = 576 inputs, which Marlin cannot run (a kernel choice)
    res = _outcome(_ct(["lm_head", "re:.*mlp.gate$"], weights=w4, fmt="pack-quantized"), "0.24.0", tp=2)
    assert (res.check, res.layer) == (None, "visual.blocks.0.attn.proj") and "Marlin cannot run" in res.unmodelled
