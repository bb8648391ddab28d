"""The kernel-selection options (--moe-backend, --all2all-backend): their argparse handling and the
checks vLLM runs on them.  Expected messages are copied from the releases' source (vllm/config/kernel.py,
vllm/models/deepseek_v4/nvidia/model.py), not computed by kvguard."""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog
from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.launch.argv import parse_serve
from kvguard.launch.layout import Host
from kvguard.versions import resolve

QWEN3_MOE = copy.deepcopy(catalog.lookup("Qwen/Qwen3-30B-A3B").config)
DSV4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
        "num_hidden_layers": 43, "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512,
        "vocab_size": 129280, "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1,
        "moe_intermediate_size": 2048, "index_topk": 512, "torch_dtype": "bfloat16"}


def test_moe_backend_is_normalised_then_checked_against_the_choices():
    cmd = parse_serve("vllm serve m --moe-backend FlashInfer-MoE-EP-Mega-Deep-Gemm", resolve("0.33.0"))
    assert cmd.fields["moe_backend"] == "flashinfer_moe_ep_mega_deep_gemm"
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve("vllm serve m --moe-backend Bogus-Name", resolve("0.33.0"))
    assert "argument --moe-backend: invalid choice: 'bogus_name' (choose from 'aiter', " in info.value.message


def test_linear_backend_value_is_checked_though_not_read():
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve("vllm serve m --linear-backend nope", resolve("0.33.0"))
    assert "argument --linear-backend: invalid choice: 'nope'" in info.value.message


@pytest.mark.parametrize("version, supported", [
    ("0.29.0", "['DeepSeekV4MTPModel', 'DeepseekV4ForCausalLM']"),
    ("0.30.0", "['DeepSeekV4MTPModel', 'DeepseekV41ForCausalLM', 'DeepseekV4ForCausalLM']"),
    ("0.33.0", "['DeepSeekV4MTPModel', 'DeepseekV41ForCausalLM', 'DeepseekV4ForCausalLM']"),
])
def test_deepseek_v4_only_backend_on_another_model_is_refused(version, supported):
    v = kvguard.check(QWEN3_MOE, vllm_version=version, moe_backend="flashinfer_moe_ep_mega_deep_gemm")
    assert not v.ok
    assert (v.exc_type, v.wrapped_by, v.check) == ("ValueError", "VllmConfig", "VC_moe_backend_model")
    assert v.message == (f"moe_backend='flashinfer_moe_ep_mega_deep_gemm' is only supported for DeepSeek-V4 "
                         f"models ({supported}), but the model is ['Qwen3MoeForCausalLM'].")


def test_cutedsl_moe_ep_is_model_specific_only_before_0_32():
    name = {"0.31.0": "flashinfer_moe_ep_mega_cutedsl", "0.32.0": "flashinfer_moe_ep_cutedsl"}
    assert kvguard.check(QWEN3_MOE, vllm_version="0.31.0", moe_backend=name["0.31.0"]).check == \
        "VC_moe_backend_model"
    assert kvguard.check(QWEN3_MOE, vllm_version="0.32.0", moe_backend=name["0.32.0"]).ok


def test_moe_ep_backend_refuses_an_explicit_all2all_backend():
    v = kvguard.check(QWEN3_MOE, vllm_version="0.33.0", moe_backend="flashinfer_moe_ep_cutedsl",
                      all2all_backend="deepep_low_latency")
    assert v.message == ("moe_backend='flashinfer_moe_ep_cutedsl' dispatches and combines itself and cannot be "
                         "paired with all2all_backend='deepep_low_latency'; leave --all2all-backend unset.")
    # the removed pplx / naive fall back to the default first, which the MoE-EP backend takes
    assert kvguard.check(QWEN3_MOE, vllm_version="0.33.0", moe_backend="flashinfer_moe_ep_cutedsl",
                         all2all_backend="naive").ok
    # before 0.32.0 the pairing is not checked
    assert kvguard.check(QWEN3_MOE, vllm_version="0.31.0", moe_backend="flashinfer_moe_ep_mega_cutedsl",
                         all2all_backend="deepep_low_latency").check == "VC_moe_backend_model"


def test_passthrough_needs_a_moe_ep_backend():
    v = kvguard.check(QWEN3_MOE, vllm_version="0.32.0", all2all_backend="passthrough")
    assert v.message == ("all2all_backend='passthrough' is only valid with a moe_backend that dispatches and "
                         "combines itself (['flashinfer_moe_ep_cutedsl', 'flashinfer_moe_ep_mega_deep_gemm']), "
                         "got moe_backend='auto'.")
    with pytest.raises(ArgparseRefusal):   # the CLI does not offer it
        parse_serve("vllm serve m --all2all-backend passthrough", resolve("0.33.0"))


def test_moonep_is_undecidable_not_accepted():
    with pytest.raises(Undecidable):
        kvguard.check(QWEN3_MOE, vllm_version="0.33.0", all2all_backend="moonep")


_MEGA_EP = ("DeepSeek V4 MegaMoE currently requires expert parallel. Enable it with --enable-expert-parallel, "
            "or pick a different moe backend.")


@pytest.mark.parametrize("version, backend", [("0.22.0", "deep_gemm_mega_moe"), ("0.30.0", "deep_gemm_mega_moe"),
                                              ("0.30.0", "flashinfer_moe_ep_mega_deep_gemm"),
                                              ("0.33.0", "deep_gemm_mega_moe")])
def test_deepseek_v4_mega_moe_needs_expert_parallel(version, backend):
    host = Host.cuda_node()
    v = kvguard.check(DSV4, vllm_version=version, host=host, tp=8, moe_backend=backend)
    assert (v.exc_type, v.stage, v.wrapped_by, v.check) == ("NotImplementedError", "model_init", None,
                                                            "MI_dsv4_mega_moe_ep")
    assert v.message == _MEGA_EP
    assert "MI_dsv4_mega_moe_ep" not in {s.check for s in kvguard.check(
        DSV4, vllm_version=version, host=host, tp=8, ep=True, moe_backend=backend).skipped}


def test_deepseek_v4_flashinfer_deep_gemm_is_not_mega_moe_from_0_32():
    v = kvguard.check(DSV4, vllm_version="0.33.0", host=Host.cuda_node(), tp=8,
                      moe_backend="flashinfer_moe_ep_mega_deep_gemm")
    assert v.check != "MI_dsv4_mega_moe_ep"


def test_deepseek_v4_mega_moe_is_skipped_off_cuda():
    v = kvguard.check(DSV4, vllm_version="0.33.0", host=Host(platform="rocm", gpus_per_node=8), tp=8,
                      moe_backend="deep_gemm_mega_moe")
    assert "MI_dsv4_mega_moe_ep" in {s.check for s in v.skipped}


def test_a_kernel_config_that_may_set_the_moe_backend_is_undecidable():
    # the JSON's moe_backend is the one vLLM checks unless --moe-backend overrides it; kvguard reads the option
    with pytest.raises(Undecidable, match="^--kernel-config sets moe_backend, which kvguard reads only from "
                                          "--moe-backend$"):
        parse_serve(["vllm", "serve", "m", "--kernel-config", '{"moe_backend": "flashinfer_moe_ep_mega_deep_gemm"}'],
                    resolve("0.33.0"))
    # a value that is no JSON object: the release refuses it while parsing (pydantic's json_invalid)
    with pytest.raises(Undecidable, match="cannot read 'not json' as a JSON object"):
        parse_serve(["vllm", "serve", "m", "--kernel-config", "not json"], resolve("0.33.0"))


def test_moe_backend_option_overrides_the_kernel_config():
    cmd = parse_serve(["vllm", "serve", "m", "--kernel-config", '{"moe_backend": "triton"}', "--moe-backend",
                       "triton"], resolve("0.33.0"))
    assert cmd.fields["moe_backend"] == "triton"
    cmd = parse_serve(["vllm", "serve", "m", "--kernel-config", '{"linear_backend": "auto"}'], resolve("0.33.0"))
    assert "moe_backend" not in cmd.fields
