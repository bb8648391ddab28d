"""DeepSeek-V4 exported by ModelOpt with NVFP4 experts (nvidia/DeepSeek-V4-Flash-NVFP4, -Pro-NVFP4) at model
construction on the default host (kvguard.quant.dsv4), vLLM 0.20.0 – 0.33.0.

Expected values are worked out by hand from the release source: the export keeps ``quant_method: fp8`` (block FP8
linears, claimed by DeepSeek-V4's FP8 override) and adds ``moe_quant_algo: NVFP4``, which
vllm/models/deepseek_v4/quant_config.py reads from 0.22.0 (upper-cased) to build the FP4 experts with
``ModelOptNvFp4FusedMoE``; 0.20.x – 0.21.0 do not read it (MXFP4 experts, as for DeepSeek-V4-Flash).  The NVFP4
experts' method runs select_nvfp4_moe_backend (vllm/model_executor/layers/fused_moe/oracle/nvfp4.py): with the
experts' ``swiglu_limit`` set, 0.22.0 – 0.23.0 keep only FlashInfer TRT-LLM (``NVFP4_BACKENDS_WITH_CLAMP``), which
compute capability 9.0 lacks, and raise NotImplementedError; 0.24.0 adds Marlin to that set.  The method sizes its
weights by floor divisions and supports EPLB.  tests/upstream/test_dsv4_model.py (KVG_DSV4_NVFP4) and the golden
cases mi-dsv4-nvfp4-* compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node(gpus_per_node=64)
NO_BACKEND = "No NvFp4 MoE backend supports the deployment configuration."


def export(name: str = "Flash", quant: "dict | None" = None, **patch) -> dict:
    c = copy.deepcopy(catalog.lookup(f"nvidia/DeepSeek-V4-{name}-NVFP4").config)
    c.update(patch)
    c["quantization_config"].update(quant or {})
    return c


def _mi_reason(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


@pytest.mark.parametrize("version", ["0.22.0", "0.22.1", "0.23.0"])
@pytest.mark.parametrize(("name", "tp"), [("Flash", 8), ("Pro", 8), ("Flash", 1)])
def test_clamped_nvfp4_experts_find_no_backend_before_0_24(version, name, tp):
    # swiglu_limit 10.0 in both exports: FlashInfer TRT-LLM only, which needs the SM100 family
    v = kvguard.check(export(name), vllm_version=version, tp=tp, host=H100, kv_cache_dtype="fp8")
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_nvfp4_moe_backend", "NotImplementedError", NO_BACKEND)


@pytest.mark.parametrize("version", ["0.24.0", "0.27.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"])
@pytest.mark.parametrize(("name", "tp"), [("Flash", 8), ("Pro", 8), ("Flash", 4), ("Pro", 16)])
def test_published_exports_build_from_0_24(version, name, tp):
    # Marlin applies the clamp; Flash's 2048 and Pro's 3072 experts' intermediate sizes divide by tp (128 / 192 a
    # rank at tp 16 / 16), the rest is DeepSeek-V4-Flash's / -Pro's FP8 construction
    v = kvguard.check(export(name), vllm_version=version, tp=tp, host=H100, kv_cache_dtype="fp8")
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", ["0.20.0", "0.20.2", "0.21.0"])
def test_moe_quant_algo_not_read_before_0_22(version):
    # MXFP4 experts (Marlin on compute capability 9.0): accepted like DeepSeek-V4-Flash
    v = kvguard.check(export(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", ["0.22.1", "0.23.0"])
def test_no_clamp_takes_marlin_before_0_24(version):
    v = kvguard.check(export(swiglu_limit=None), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


def test_lower_case_algorithm_and_others():
    # the config upper-cases moe_quant_algo; another algorithm leaves the experts MXFP4 (accepted on 0.23.0)
    kw = dict(vllm_version="0.23.0", tp=8, host=H100, kv_cache_dtype="fp8")
    assert kvguard.check(export(quant={"moe_quant_algo": "nvfp4"}), **kw).message == NO_BACKEND
    v = kvguard.check(export(quant={"moe_quant_algo": "FP8"}), **kw)
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


def test_fp8_experts_ignore_the_algorithm():
    # expert_dtype fp8: the block-FP8 MoE method, whatever moe_quant_algo says (2048 / 8 = 256 a rank: 2 blocks)
    v = kvguard.check(export(expert_dtype="fp8"), vllm_version="0.23.0", tp=8, host=H100, kv_cache_dtype="fp8")
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


def test_experts_intermediate_assert_before_the_selection():
    # 1000 / 16 experts' intermediate size, no shared experts: FusedMoE's bare assert precedes the method
    v = kvguard.check(export(moe_intermediate_size=1000, n_shared_experts=None), vllm_version="0.23.0", tp=16,
                      host=H100, kv_cache_dtype="fp8")
    assert (v.check, v.exc_type, v.message) == ("MI_moe_intermediate", "AssertionError", "")


def test_kv_cache_refusal_comes_first():
    v = kvguard.check(export(), vllm_version="0.23.0", tp=8, host=H100)
    assert v.check == "MI_dsv4_kv_cache_dtype", (v.check, v.message)


@pytest.mark.parametrize(("quant", "patch", "launch", "version", "needle"), [
    ({}, {}, {"moe_backend": "marlin"}, "0.33.0", "routed experts with --moe-backend marlin is not modelled (the "
                                                  "named NVFP4 kernel's support is asked of the GPU"),
    ({"ignore": ["layers.0.ffn.experts"]}, {}, {}, "0.32.0", "ignore list names layers.0.ffn.experts"),
    ({"ignore": ["*.ffn.experts"]}, {}, {}, "0.33.0", "ignore list names layers.0.ffn.experts"),
    ({"moe_quant_algo": 4}, {}, {}, "0.24.0", "moe_quant_algo 4"),
    ({"ignored_layers": ["head"]}, {}, {}, "0.33.0", "layers left unquantized"),
    ({}, {"swiglu_limit": "10"}, {}, "0.23.0", "swiglu_limit '10'"),
])
def test_left_open_with_the_reason(quant, patch, launch, version, needle):
    v = kvguard.check(export(quant=quant, **patch), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8",
                      **launch)
    assert needle in _mi_reason(v), (v.check, v.message, _mi_reason(v))


def test_ignore_naming_experts_decided_before_0_32():
    # 0.22.0 - 0.31.x read no ignore list for the experts: every layer's are NVFP4
    v = kvguard.check(export(quant={"ignore": ["*.ffn.experts"]}), vllm_version="0.31.0", tp=8, host=H100,
                      kv_cache_dtype="fp8")
    assert v.ok and "MI_model" not in [s.check for s in v.skipped], (v.check, v.message, _mi_reason(v))


#: oracle/nvfp4.py::map_nvfp4_backend's names, copied from 0.22.0's and 0.33.0's source
NVFP4_MAP_0_22 = ("['cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_b12x', "
                  "'marlin', 'emulation']")
NVFP4_MAP_0_33 = ("['b12x', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', "
                  "'flashinfer_moe_ep_cutedsl', 'flashinfer_b12x', 'marlin', 'humming', 'emulation']")


@pytest.mark.parametrize(("version", "name", "names"), [
    ("0.22.0", "triton", NVFP4_MAP_0_22), ("0.23.0", "deep_gemm", NVFP4_MAP_0_22),
    ("0.33.0", "triton", NVFP4_MAP_0_33), ("0.33.0", "aiter", NVFP4_MAP_0_33),
])
def test_moe_backend_the_nvfp4_map_lacks(version, name, names):
    # ModelOptNvFp4FusedMoE maps the named backend first thing in its selection (before the SwiGLU clamp's
    # filter): a name the NVFP4 map lacks is a ValueError on every GPU, after FusedMoE's own checks
    v = kvguard.check(export(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8", moe_backend=name)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_moe_backend", "ValueError",
        f"moe_backend='{name}' is not supported for NvFP4 MoE. Expected one of {names}.")


#: the alternatives select_nvfp4_moe_backend's refusal prints, copied from 0.22.0's, 0.28.0's and 0.33.0's source
CLAMP_USE_0_22 = "'flashinfer_trtllm' or 'flashinfer_cutlass'"
CLAMP_USE_0_28 = "'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'cutlass', 'marlin', or 'humming'"
CLAMP_USE_0_33 = ("'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_moe_ep_cutedsl', "
                  "'cutlass', 'b12x', 'marlin', or 'humming'")


@pytest.mark.parametrize(("version", "name", "use"), [
    ("0.22.0", "marlin", CLAMP_USE_0_22), ("0.23.0", "flashinfer_cutlass", CLAMP_USE_0_22),
    ("0.24.0", "cutlass", CLAMP_USE_0_22), ("0.27.0", "emulation", CLAMP_USE_0_22),
    ("0.28.0", "flashinfer_b12x", CLAMP_USE_0_28), ("0.33.0", "flashinfer_b12x", CLAMP_USE_0_33),
])
def test_named_backend_without_the_swiglu_clamp(version, name, use):
    # swiglu_limit 10.0 in the export: a named NVFP4 backend outside NVFP4_BACKENDS_WITH_CLAMP is refused right after
    # the name is mapped, whatever the GPU
    v = kvguard.check(export(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8", moe_backend=name)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_nvfp4_clamp_backend", "ValueError",
        f"Model sets swiglu_limit=10.0, but the explicitly requested moe_backend='{name}' does not apply the SwiGLU "
        f"clamp. Use {use} instead.")


@pytest.mark.parametrize(("version", "name", "patch"), [
    ("0.24.0", "marlin", {}), ("0.28.0", "cutlass", {}), ("0.33.0", "flashinfer_cutedsl", {}),
    ("0.23.0", "marlin", {"swiglu_limit": None}),
])
def test_clamping_or_unclamped_named_backend_left_open(version, name, patch):
    # a backend that applies the clamp (or experts without one; flashinfer_cutedsl from 0.28.0 clamps in the standard
    # activation format only): its kernel's support is the GPU's, the experts are left open
    v = kvguard.check(export(**patch), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8", moe_backend=name)
    assert v.ok and f"routed experts with --moe-backend {name}" in _mi_reason(v), (v.check, v.message, _mi_reason(v))


def test_refusal_before_nvfp4_experts_with_a_named_backend():
    # the KV cache (auto before 0.30.0) is refused by layer 0's attention, before the experts ask their backend
    v = kvguard.check(export(), vllm_version="0.24.0", tp=8, host=H100, moe_backend="flashinfer_trtllm")
    assert (v.check, v.message) == ("MI_dsv4_kv_cache_dtype",
                                    "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got auto")


def test_nvfp4_environment_left_open():
    v = kvguard.check(export(), vllm_version="0.33.0", tp=8, host=H100, kv_cache_dtype="fp8",
                      env={"VLLM_MARLIN_INPUT_DTYPE": "fp8"})
    assert "VLLM_MARLIN_INPUT_DTYPE" in _mi_reason(v)
    # DeepSeek-V4-Flash's MXFP4 experts do not read it
    flash = catalog.lookup("deepseek-ai/DeepSeek-V4-Flash").config
    v = kvguard.check(flash, vllm_version="0.33.0", tp=8, host=H100, kv_cache_dtype="fp8",
                      env={"VLLM_MARLIN_INPUT_DTYPE": "fp8"})
    assert "MI_model" not in [s.check for s in v.skipped], _mi_reason(v)


def test_a_variable_the_release_dropped_leaves_nothing_open():
    # vllm/envs.py lists VLLM_USE_FLASHINFER_MOE_FP4 up to 0.23.0; 0.33.0's source never names it
    v = kvguard.check(export(), vllm_version="0.33.0", tp=8, host=H100, kv_cache_dtype="fp8",
                      env={"VLLM_USE_FLASHINFER_MOE_FP4": "1"})
    assert "MI_model" not in [s.check for s in v.skipped], _mi_reason(v)
