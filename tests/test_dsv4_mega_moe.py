"""DeepSeek-V4's MegaMoE experts (``--moe-backend deep_gemm_mega_moe`` with expert parallel): the EP-size assert of
``DeepseekV4MoE._init_mega_moe_experts`` (vllm/models/deepseek_v4/nvidia/model.py), vllm-project/vllm#52435.

Facts of the releases' lines, written here by hand: the EP group has dp x pcp x tp ranks
(vllm/distributed/parallel_state.py, ``initialize_model_parallel``); 0.20.0 - 0.22.x assert
``config.n_routed_experts % self.ep_size == 0`` with no message; from 0.23.0 ``n_physical_experts`` counts
``eplb_config.num_redundant_experts`` and the assert says ``n_physical_experts={n} must be divisible by
ep_size={ep}. Adjust num_redundant_experts.``; in 0.29.0 - 0.31.0 the FlashInfer MoE-EP backends take the same path
(``moe_backend in MEGA_MOE_BACKENDS``); 0.20.x takes the path only with expert parallel (vllm/model_executor/models/
deepseek_v4.py: ``use_mega_moe`` is False without it), 0.21.0+ refuses the backend without it ("DeepSeek V4 MegaMoE
currently requires expert parallel. …").  DeepSeek-V4-Flash has 256 routed experts, -Pro 384.  The answers are shown
by the releases in tests/upstream/test_dsv4_mega_moe.py.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.errors import Undecidable

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
MESSAGE_SINCE = ["0.23.0", "0.28.0", "0.30.0", "0.33.0"]


def model(name: str = "deepseek-ai/DeepSeek-V4-Flash", **patch) -> dict:
    c = copy.deepcopy(catalog.lookup(name).config)
    c.update(patch)
    return c


def mega(config, version, host=H100, **layout):
    layout.setdefault("kv_cache_dtype", "fp8")
    return kvguard.check(config, vllm_version=version, host=host, moe_backend="deep_gemm_mega_moe", **layout)


def _mi_reason(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", MESSAGE_SINCE)
def test_issue_52435_dp3_with_expert_parallel_is_refused(version):
    v = mega(model(), version, dp=3, ep=True)
    assert (v.ok, v.stage, v.exc_type, v.check, v.wrapped_by) == (False, "model_init", "AssertionError",
                                                                  "MI_dsv4_mega_moe_experts", None)
    assert v.message == "n_physical_experts=256 must be divisible by ep_size=3. Adjust num_redundant_experts."


@pytest.mark.parametrize("version", ["0.20.0", "0.20.2", "0.21.0", "0.22.0", "0.22.1"])
def test_to_0_22_the_assert_is_bare_on_the_routed_experts(version):
    v = mega(model(), version, dp=3, ep=True)
    assert (v.ok, v.exc_type, v.check, v.message) == (False, "AssertionError", "MI_dsv4_mega_moe_experts", "")


def test_0_21_refuses_the_backend_without_expert_parallel_and_0_20_does_not():
    v = mega(model(), "0.21.0", tp=8)
    assert (v.exc_type, v.check, v.message) == ("NotImplementedError", "MI_dsv4_mega_moe_ep", (
        "DeepSeek V4 MegaMoE currently requires expert parallel. Enable it with --enable-expert-parallel, or pick a "
        "different moe backend."))
    v = mega(model(), "0.20.0", tp=8)
    assert v.ok and "without expert parallel is not modelled" in _mi_reason(v)


@pytest.mark.parametrize("version", MESSAGE_SINCE)
def test_the_ep_group_counts_tp_and_redundant_experts(version):
    # Pro: 384 routed; tp 2 x dp 3 = 6 ranks divide 384, tp 8 x dp 3 = 24 ranks divide 384 too; Flash: 256 over 24
    assert mega(model(), version, host=BIG, tp=8, dp=3, ep=True).message == (
        "n_physical_experts=256 must be divisible by ep_size=24. Adjust num_redundant_experts.")
    v = mega(model("deepseek-ai/DeepSeek-V4-Pro"), version, tp=2, dp=3, ep=True)
    assert v.ok and "DeepGEMM MegaMoE experts" in _mi_reason(v), (v.check, v.message, _mi_reason(v))
    # 256 + 3 redundant over 5 ranks; 256 + 2 over 6 = 43 each (accepted up to the GPU-built experts)
    v = mega(model(), version, dp=5, ep=True, enable_eplb=True, num_redundant_experts=3)
    assert v.message == "n_physical_experts=259 must be divisible by ep_size=5. Adjust num_redundant_experts."
    v = mega(model(), version, dp=6, ep=True, enable_eplb=True, num_redundant_experts=2)
    assert v.ok and "DeepGEMM MegaMoE experts" in _mi_reason(v), (v.check, v.message)


def test_0_22_does_not_count_redundant_experts():
    # 256 + 2 over 6 would divide; 0.22.x asserts on 256 over 6
    v = mega(model(), "0.22.0", dp=6, ep=True, enable_eplb=True, num_redundant_experts=2)
    assert (v.exc_type, v.check, v.message) == ("AssertionError", "MI_dsv4_mega_moe_experts", "")


@pytest.mark.parametrize("version", MESSAGE_SINCE)
def test_a_divisible_ep_size_stays_accepted_with_the_experts_skipped(version):
    v = mega(model(), version, dp=4, ep=True)
    assert v.ok and "DeepGEMM MegaMoE experts" in _mi_reason(v)


@pytest.mark.parametrize(("version", "message"), [
    ("0.23.0", "DeepseekV4 FlashMLA fp8 layout only supports fp8 kv-cache, got auto"),
    ("0.28.0", "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got auto")])
def test_layer_0_attention_refuses_first(version, message):
    # before 0.30.0 the attention takes fp8 names only, auto included: raised before the MoE block
    v = mega(model(), version, dp=3, ep=True, kv_cache_dtype="auto")
    assert (v.exc_type, v.check, v.message) == ("AssertionError", "MI_dsv4_kv_cache_dtype", message)


def test_nvfp4_export_takes_the_same_assert():
    v = mega(model("nvidia/DeepSeek-V4-Flash-NVFP4"), "0.33.0", dp=3, ep=True)
    assert v.message == "n_physical_experts=256 must be divisible by ep_size=3. Adjust num_redundant_experts."


def test_without_expert_parallel_the_model_refuses_first():
    v = mega(model(), "0.33.0", dp=3)
    assert (v.exc_type, v.check) == ("NotImplementedError", "MI_dsv4_mega_moe_ep")


@pytest.mark.parametrize("host", [kvguard.Host.standard(gpu_capability=100), kvguard.Host()])
def test_another_host_is_undecidable_not_accepted(host):
    # the attention class and kernels of a Blackwell GPU are not modelled; the assert still fails there
    with pytest.raises(Undecidable, match="256 routed \\+ 0 redundant experts do not divide by ep_size=3"):
        mega(model(), "0.33.0", host=host, dp=3, ep=True)
    # divisible: skipped as before
    v = mega(model(), "0.33.0", host=kvguard.Host.standard(gpu_capability=100), dp=4, ep=True)
    assert v.ok and _mi_reason(v)


@pytest.mark.parametrize("patch", [{"scoring_func": "softmax"}, {"norm_topk_prob": False},
                                   {"expert_dtype": "fp8"}])
def test_routing_kvguard_does_not_decide_is_undecidable_when_the_assert_fails(patch):
    with pytest.raises(Undecidable, match="ep_size=3"):
        mega(model(**patch), "0.33.0", dp=3, ep=True)
    v = mega(model(**patch), "0.33.0", dp=4, ep=True)
    assert v.ok and "MegaMoE experts' path" in _mi_reason(v)


@pytest.mark.parametrize("version", ["0.29.0", "0.31.0"])
def test_flashinfer_moe_ep_backends_take_the_path_on_0_29_to_0_31(version):
    with pytest.raises(Undecidable, match="flashinfer_moe_ep_mega_deep_gemm.*ep_size=3"):
        kvguard.check(model(), vllm_version=version, host=H100, dp=3, ep=True, kv_cache_dtype="fp8",
                      moe_backend="flashinfer_moe_ep_mega_deep_gemm")
