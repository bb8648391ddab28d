"""Model construction of DeepSeek-V3.2 and GLM-5 (kvguard/data/quant_archs.json family ``deepseek_v32``).

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/model_executor/models/deepseek_v2.py of 0.11.0 – 0.28.0: DeepseekV32ForCausalLM is DeepseekV3ForCausalLM,
GlmMoeDsaForCausalLM a subclass of DeepseekV2ForCausalLM; DeepseekV2MLAAttention builds the sparse-attention
Indexer after its MLA projections: ``wq_b`` a ReplicatedLinear with the checkpoint's quantization, up to 0.19.x ``wk``
(replicated, quantized) and ``weights_proj`` (replicated, unquantized), from 0.20.0 one ``wk_weights_proj``
(MergedColumnParallelLinear, unquantized, not TP-split); from 0.24.0 only the layers IndexCache does not skip:
``max(i - index_skip_topk_offset + 1, 0) % index_topk_freq == 0``, defaults 2 and 1, or, with an index_topk_pattern,
the layers whose letter is not "S" and those past the pattern's end; fp8_utils.validate_fp8_block_shape for the
block-FP8 messages).  From 0.29.0 the CUDA host builds both architectures from vllm/models/deepseek_v32
(nvidia/model.py, attention.py): the same projections, the attention's kv_b_proj and indexer first, then
fused_qkv_a_proj, q_b_proj and o_proj, and the dense MLP replicated when the MoE runs sequence-parallel with one
pipeline stage.  tests/upstream/test_quant.py (run_dsa) and the golden cases mi-fp8-dsv32-* compare with
the releases themselves.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog
from kvguard.quant import layers
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()
VERSIONS = ["0.11.0", "0.12.0", "0.20.0", "0.24.0", "0.28.0", "0.29.0", "0.33.0"]


def v32(**sizes) -> dict:
    """deepseek-ai/DeepSeek-V3.2 (hidden 7168, 128 heads, q LoRA 1536, intermediate 18432, 256 experts of 2048, one
    shared expert, 3 dense layers of 61; indexer 64 heads of 128; block FP8 [128, 128]) with other sizes."""
    c = copy.deepcopy(catalog.lookup("deepseek-ai/DeepSeek-V3.2").config)
    c.update(sizes)
    return c


def mi_skip(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def indexer_layers(cfg: dict, version: str) -> list[str]:
    facts = model_facts(cfg, vllm_version=version)
    return [layer.prefix for layer in layers(facts.resolved, "deepseek_v32", resolve(version), facts.architectures)
            if ".indexer." in layer.prefix]


@pytest.mark.parametrize("version", VERSIONS)
def test_published_v32_is_decided(version):
    # tp 8: q_b_proj 128 x 192 / 8 = 3072, kv_b_proj 128 x 256 / 8 = 4096, o_proj input 128 x 128 / 8 = 2048, dense
    # MLP 18432 / 8 = 2304 (18 blocks), experts 2048 / 8 = 256: every shard whole 128-blocks; the indexer replicated
    v = kvguard.check("deepseek-ai/DeepSeek-V3.2", vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


# GLM-5's config (glm_moe_dsa) is read from 0.24.0, the first release on transformers 5
@pytest.mark.parametrize("version", [version for version in VERSIONS if resolve(version).within("0.24.0")])
def test_published_glm5_fp8_is_decided(version):
    # GLM-5-FP8: 64 heads, q LoRA 2048, intermediate 12288, experts of 2048: at tp 8 q_b_proj 64 x 256 / 8 = 2048,
    # o_proj input 64 x 256 / 8 = 2048, down_proj 12288 / 8 = 1536, experts 256
    v = kvguard.check("zai-org/GLM-5-FP8", vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_dense_down_proj_block_k(version):
    # intermediate 18560 = 145 x 128 at tp 8: layer 0's gate_up_proj is TP-split into shards of 2320 (2320 % 128 =
    # 16): 0.11.0 / 0.12.0 refuse its first shard (block_n); 0.14.0+ allows a merged layer's mismatch, and down_proj's input
    # per rank, 2320, is not whole 128-blocks (block_k)
    v = kvguard.check(v32(intermediate_size=18560), vllm_version=version, tp=8, host=H100)
    size_n = "Weight output_partition_size = 2320 is not divisible by weight quantization block_n = 128."
    size_k = "Weight input_size_per_partition = 2320 is not divisible by weight quantization block_k = 128."
    expected = ("MI_fp8_block_n", size_n) if version in ("0.11.0", "0.12.0") else ("MI_fp8_block_k", size_k)
    assert (v.ok, v.stage, v.exc_type, (v.check, v.message)) == (False, "model_init", "ValueError", expected)


@pytest.mark.parametrize("version", [version for version in VERSIONS if resolve(version).within("0.14.0")])
def test_shared_expert_before_routed_experts(version):
    # moe_intermediate 2112 at tp 8: the dense layers pass (2304 per rank); layer 3's shared expert (one of 2112) is
    # built before the routed experts: its down_proj takes 2112 / 8 = 264 inputs per rank (264 % 128 = 8)
    v = kvguard.check(v32(moe_intermediate_size=2112), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.message) == (
        False, "MI_fp8_block_k", "Weight input_size_per_partition = 264 is not divisible by weight quantization "
                                 "block_k = 128.")


@pytest.mark.parametrize("version", VERSIONS)
def test_indexer_is_replicated(version):
    # 33 indexer heads: 33 x 128 = 4224 outputs of wq_b, replicated (no TP split) under block FP8: nothing refuses
    v = kvguard.check(v32(index_n_heads=33), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_indexer_projections_by_release():
    cfg = v32(num_hidden_layers=2, first_k_dense_replace=1)
    assert indexer_layers(cfg, "0.19.1") == [
        "model.layers.0.self_attn.indexer.wq_b", "model.layers.0.self_attn.indexer.wk",
        "model.layers.0.self_attn.indexer.weights_proj", "model.layers.1.self_attn.indexer.wq_b",
        "model.layers.1.self_attn.indexer.wk", "model.layers.1.self_attn.indexer.weights_proj"]
    assert indexer_layers(cfg, "0.20.0") == [
        "model.layers.0.self_attn.indexer.wq_b", "model.layers.0.self_attn.indexer.wk_weights_proj",
        "model.layers.1.self_attn.indexer.wq_b", "model.layers.1.self_attn.indexer.wk_weights_proj"]


@pytest.mark.parametrize("freq, offset, built", [
    (None, None, [0, 1, 2, 3, 4, 5]),      # frequency 1: every layer
    (2, 1, [0, 2, 4]),                     # max(i, 0) % 2 == 0
    (2, None, [0, 1, 3, 5]),               # offset 2: max(i - 1, 0) % 2 == 0 -> i = 0, 1, 3, 5
    (3, 0, [2, 5]),                        # max(i + 1, 0) % 3 == 0 -> i = 2, 5
])
def test_index_cache_layers(freq, offset, built):
    cfg = v32(num_hidden_layers=6, first_k_dense_replace=1)
    for key, value in (("index_topk_freq", freq), ("index_skip_topk_offset", offset)):
        if value is not None:
            cfg[key] = value
    got = sorted({int(p.split(".")[2]) for p in indexer_layers(cfg, "0.24.0")})
    assert got == built
    # up to 0.23.0 every layer builds its indexer, whatever IndexCache says
    assert sorted({int(p.split(".")[2]) for p in indexer_layers(cfg, "0.23.0")}) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("version, sizes, reason", [
    ("0.24.0", {"index_topk_pattern": 5}, "under an index_topk_pattern that is neither a string nor a list"),
    ("0.33.0", {"index_topk_pattern": {"0": "S"}}, "under an index_topk_pattern that is neither a string nor a list"),
    ("0.29.0", {"index_topk_freq": 0}, "under an index_topk_freq below 1"),
    ("0.20.0", {"q_lora_rank": None}, "without q_lora_rank"),
    ("0.29.0", {"q_lora_rank": None}, "without q_lora_rank"),
])
def test_left_open(version, sizes, reason):
    v = kvguard.check(v32(**sizes), vllm_version=version, tp=8, host=H100)
    assert reason in mi_skip(v)


def test_pattern_decided_before_index_cache():
    # 0.20.0 - 0.23.0 build every layer's indexer: a pattern changes nothing there
    v = kvguard.check(v32(index_topk_pattern="FSFSFS"), vllm_version="0.23.0", tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}
AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
             "parallel size.")


@pytest.mark.parametrize("version", ["0.12.0", "0.20.0", "0.24.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("quant", [AWQ, GPTQ], ids=["awq", "gptq"])
def test_wna16_published_sizes_decided(version, quant):
    # 4-bit groups of 128 at tp 8: fused_qkv_a_proj 7168 -> 1536 + 576 (not split), q_b_proj 1536 -> 3072 per rank,
    # kv_b_proj 512 -> 4096, o_proj 2048 -> 7168, dense MLP 2304 per rank, shared expert 256, the indexer's wq_b
    # 1536 -> 8192 and wk 7168 -> 128 replicated: every input whole groups, the router gate unquantized: accepted
    v = kvguard.check(v32(quantization_config=quant), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


@pytest.mark.parametrize("version", ["0.12.0", "0.20.0", "0.24.0", "0.28.0", "0.29.0", "0.33.0"])
def test_awq_q_lora_rank_off_groups(version):
    # q LoRA rank 1000 (1000 % 128 = 104): q_b_proj (up to 0.28.0, after the fused a-projection, whose input is the
    # hidden size) or, from 0.29.0, the indexer's wq_b (built before it) takes 1000 inputs: Marlin does not take the
    # shape, the plain AWQ method refuses the input
    v = kvguard.check(v32(q_lora_rank=1000, quantization_config=AWQ), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_awq_input", "ValueError", AWQ_INPUT)
    # the layer that refuses (kvguard.quant's outcome names it)
    from kvguard.quant import Launch, outcome

    cfg = v32(q_lora_rank=1000, quantization_config=AWQ)
    layer = outcome(model_facts(cfg, vllm_version=version), resolve(version), Launch(tp=8)).layer
    assert layer == ("model.layers.0.self_attn.indexer.wq_b" if resolve(version).within("0.29.0")
                     else "model.layers.0.self_attn.q_b_proj")


def modelopt_fp8(nested: bool = True) -> dict:
    """A ModelOpt FP8 (per-tensor) quantization_config: hf_quant_config.json's nested layout or config.json's flat
    one."""
    if nested:
        return {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
                "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}}
    fp8 = {"dynamic": False, "num_bits": 8, "type": "float"}
    return {"config_groups": {"group_0": {"input_activations": fp8, "weights": fp8, "targets": ["Linear"]}},
            "ignore": ["lm_head"], "quant_algo": "FP8", "producer": {"name": "modelopt", "version": "0.45.0"},
            "quant_method": "modelopt"}


@pytest.mark.parametrize("version", ["0.12.0", "0.24.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("nested", [True, False])
def test_modelopt_fp8_decided(version, nested):
    # per-tensor FP8 checks no size: the published sizes at tp 32 (dense MLP 576, experts 64 per rank) build
    v = kvguard.check(v32(torch_dtype="bfloat16", quantization_config=modelopt_fp8(nested)), vllm_version=version,
                      tp=32, host=H100)
    assert mi_skip(v) == "" and not any(s.check == "MI_model" for s in v.skipped)
    assert v.check is None or not v.check.startswith("MI_")


def test_modelopt_fp8_experts_refuse_eplb():
    # ModelOptFp8MoEMethod never supports EPLB (0.11.1+: FusedMoE names the class)
    v = kvguard.check(v32(torch_dtype="bfloat16", quantization_config=modelopt_fp8()), vllm_version="0.24.0", tp=1,
                      dp=8, enable_expert_parallel=True, enable_eplb=True, host=H100)
    assert (v.ok, v.check, v.message) == (False, "MI_eplb_unsupported", "EPLB is not supported ModelOptFp8MoEMethod.")


def nvfp4(ignore: list[str]) -> dict:
    """A ModelOpt NVFP4 quantization_config (the nested layout of nvidia/DeepSeek-V3.2-NVFP4's hf_quant_config.json,
    group size 16)."""
    return {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
            "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                             "exclude_modules": ignore}}


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.29.0", "0.33.0"])
def test_nvfp4_exports_decided(version):
    # NVIDIA's exports exclude every layer's MLA projections and indexer; the rest is DeepSeek-V3's NVFP4 geometry
    # (o_proj input 128 x 128 / 8 = 2048, down_proj 18432 / 8 = 2304, experts on FP4 Marlin: multiples of 16)
    for model in ("nvidia/DeepSeek-V3.2-NVFP4", "nvidia/GLM-5-NVFP4"):
        v = kvguard.check(model, vllm_version=version, tp=8, host=H100)
        assert v.ok and mi_skip(v) == "", model


@pytest.mark.parametrize("version", ["0.24.0", "0.29.0"])
def test_nvfp4_q_lora_rank_not_multiple_of_16(version):
    # q LoRA rank 1000 (1000 % 16 = 8): q_b_proj and the indexer's replicated wq_b take it as their input (0.28.0 builds
    # q_b_proj first, 0.29.0+ wq_b; both quantized unless excluded): refused; excluding every layer's q_b_proj and
    # indexer (as NVIDIA's exports do) leaves no quantized layer reading it
    layers = 61
    v = kvguard.check(v32(q_lora_rank=1000, quantization_config=nvfp4(["lm_head"])), vllm_version=version, tp=8,
                      host=H100)
    assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input",
                                          "Unsupported model when in features size is not multiple of 16")
    ignore = ["lm_head"] + [f"model.layers.{i}.self_attn.{m}" for i in range(layers)
                            for m in ("indexer*", "q_b_proj")]
    v = kvguard.check(v32(q_lora_rank=1000, quantization_config=nvfp4(ignore)), vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


def flat_nvfp4(ignore: list[str], weight_only: bool = False, algo: str = "NVFP4") -> dict:
    """config.json's flat ModelOpt layout (nvidia/GLM-5.1-NVFP4: quant_method modelopt beside quant_algo, config groups,
    the exclusion list under ``ignore``); ``weight_only``: a config group without input activations."""
    fp4 = {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}
    return {"config_groups": {"group_0": {"input_activations": None if weight_only else dict(fp4), "weights": fp4,
                                          "targets": ["Linear"]}},
            "ignore": ignore, "quant_algo": algo, "kv_cache_scheme": {"dynamic": False, "num_bits": 8, "type": "float"},
            "producer": {"name": "modelopt", "version": "0.45.0"}, "quant_method": "modelopt"}


@pytest.mark.parametrize("version", ["0.24.0", "0.29.0", "0.33.0"])
def test_flat_nvfp4_exports_decided(version):
    # the flat layout names modelopt; ModelOpt's NVFP4 override builds it as modelopt_fp4 (every release). NVIDIA's
    # GLM-5.1 / 5.2 exports leave the first layers, every attention and shared expert unquantized: the experts
    # (2048 / 8 = 256 per rank) and the dense layers left take NVFP4 at tp 8
    for model in ("nvidia/GLM-5.1-NVFP4", "nvidia/GLM-5.2-NVFP4"):
        v = kvguard.check(model, vllm_version=version, tp=8, host=H100)
        assert v.ok and mi_skip(v) == "", model


W4A4_INPUT = "Unsupported model when in features size is not multiple of 16"
W4A16_INPUT = "Unsupported model: input feature size is not a multiple of 16."


@pytest.mark.parametrize("version, weight_only, check, message", [
    ("0.24.0", False, "MI_nvfp4_input", W4A4_INPUT),
    ("0.24.0", True, "MI_nvfp4_input", W4A4_INPUT),       # config groups not read before 0.29.0
    ("0.29.0", False, "MI_nvfp4_input", W4A4_INPUT),
    ("0.29.0", True, "MI_nvfp4a16_input", W4A16_INPUT),   # read as W4A16_NVFP4: its own linear method
    ("0.30.0", True, "MI_nvfp4_input", W4A4_INPUT),       # one weight scheme for both forms
    ("0.33.0", True, "MI_nvfp4_input", W4A4_INPUT),
])
def test_flat_nvfp4_q_lora_rank_not_multiple_of_16(version, weight_only, check, message):
    # q LoRA rank 1000 (1000 % 16 = 8) is the input of q_b_proj and the indexer's wq_b, quantized with only the LM head
    # excluded
    v = kvguard.check(v32(q_lora_rank=1000, quantization_config=flat_nvfp4(["lm_head"], weight_only)),
                      vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, check, "ValueError", message)


def test_flat_modelopt_left_open():
    # a lower-case algorithm: the release upper-cases it; kvguard reads ModelOpt's own spelling only
    v = kvguard.check(v32(quantization_config=flat_nvfp4(["lm_head"], algo="nvfp4")), vllm_version="0.29.0", tp=8,
                      host=H100)
    assert "with quant_algo 'nvfp4' are not modelled" in mi_skip(v)


def test_cli_flat_nvfp4_weight_only(serve_json, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(v32(q_lora_rank=1000,
                                                         quantization_config=flat_nvfp4(["lm_head"], True))))
    status, report = serve_json("0.29.0", "-tp", "8", model=str(tmp_path))
    assert status != 0
    assert (report["ok"], report["stage"], report["check"], report["message"]) == (
        False, "model_init", "MI_nvfp4a16_input", W4A16_INPUT)


def test_cli_refusal_of_a_directory(serve_json, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(v32(intermediate_size=18560)))
    status, report = serve_json("0.24.0", "-tp", "8", model=str(tmp_path))
    assert status != 0
    assert (report["ok"], report["stage"], report["check"], report["exc_type"], report["message"]) == (
        False, "model_init", "MI_fp8_block_k", "ValueError",
        "Weight input_size_per_partition = 2320 is not divisible by weight quantization block_k = 128.")
    status, report = serve_json("0.24.0", "-tp", "8", model="deepseek-ai/DeepSeek-V3.2")
    assert status == 0 and report["ok"] and not any(s["check"] == "MI_model" for s in report["skipped"])


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("pattern, built", [
    ("FSSF", [0, 3, 4, 5]),               # "S" at 1 and 2; 4 and 5 lie past the pattern's end
    (["S", "F"], [1, 2, 3, 4, 5]),        # a list of letters reads the same way
    ("ssSSFF", [0, 1, 4, 5]),             # only a capital S skips
    ("SSSSSSSS", []),                     # longer than the layers: every layer skipped
])
def test_index_topk_pattern_layers(version, pattern, built):
    # the pattern replaces IndexCache's frequency (here 2, offset 1, which alone would build 0, 2, 4)
    cfg = v32(num_hidden_layers=6, first_k_dense_replace=1, index_topk_freq=2, index_skip_topk_offset=1,
              index_topk_pattern=pattern)
    assert sorted({int(p.split(".")[2]) for p in indexer_layers(cfg, version)}) == built
    v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_pattern_with_frequency_zero_is_decided():
    # with a pattern vLLM never reads index_topk_freq (no modulo by zero)
    v = kvguard.check(v32(index_topk_freq=0, index_topk_pattern="FS"), vllm_version="0.29.0", tp=8, host=H100)
    assert v.ok and mi_skip(v) == ""


def test_cuda_module_attention_order():
    # 0.29.0+: DeepseekV32Attention builds kv_b_proj and the indexer before fused_qkv_a_proj / q_b_proj / o_proj
    cfg = v32(num_hidden_layers=1, first_k_dense_replace=1)
    facts = model_facts(cfg, vllm_version="0.29.0")
    names = [layer.prefix.split("layers.0.")[1] for layer in layers(facts.resolved, "deepseek_v32", resolve("0.29.0"),
                                                                   facts.architectures)
             if ".layers.0.self_attn" in layer.prefix]
    assert names == ["self_attn.kv_b_proj", "self_attn.indexer.wq_b", "self_attn.indexer.wk_weights_proj",
                     "self_attn.fused_qkv_a_proj", "self_attn.q_b_proj", "self_attn.o_proj"]
    facts = model_facts(cfg, vllm_version="0.28.0")
    names = [layer.prefix.split("layers.0.")[1] for layer in layers(facts.resolved, "deepseek_v32", resolve("0.28.0"),
                                                                   facts.architectures)
             if ".layers.0.self_attn" in layer.prefix]
    assert names == ["self_attn.fused_qkv_a_proj", "self_attn.q_b_proj", "self_attn.kv_b_proj", "self_attn.o_proj",
                     "self_attn.indexer.wq_b", "self_attn.indexer.wk_weights_proj"]


@pytest.mark.parametrize("version, size", [("0.28.0", 2624), ("0.29.0", 3040), ("0.33.0", 3040)])
def test_kv_b_proj_refuses_before_q_b_proj_from_0_29(version, size):
    # qk_nope_head_dim 100, v_head_dim 90 at tp 8 (128 heads: 16 per rank): q_b_proj 16 x (100 + 64) = 2624 per rank
    # (2624 % 128 = 64), kv_b_proj 16 x (100 + 90) = 3040 (3040 % 128 = 96): both refuse; 0.28.0 builds q_b_proj
    # first, 0.29.0+ kv_b_proj
    v = kvguard.check(v32(qk_nope_head_dim=100, v_head_dim=90), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.message) == (
        False, "MI_fp8_block_n", f"Weight output_partition_size = {size} is not divisible by weight quantization "
                                 "block_n = 128.")


@pytest.mark.parametrize("version, tp, pp, refused", [("0.28.0", 4, 1, 4640), ("0.29.0", 4, 1, None),
                                                      ("0.33.0", 4, 1, None), ("0.29.0", 2, 2, 9280)])
def test_dense_mlp_replicated_with_sequence_parallel_moe(version, tp, pp, refused):
    # intermediate 18560 = 145 x 128, tp x dp 2 with expert parallelism (the default all2all backend runs the MoE
    # sequence-parallel): split over tp 4 the dense down_proj takes 4640 inputs per rank (4640 % 128 = 32), over tp 2
    # 9280 (% 128 = 64); the 0.29.0+ CUDA decoder layer builds the dense MLP replicated when there is one pipeline
    # stage (18560: whole blocks)
    layout = {"tensor_parallel_size": tp, "data_parallel_size": 2, "enable_expert_parallel": True,
              "pipeline_parallel_size": pp}
    v = kvguard.check(v32(intermediate_size=18560), layout, vllm_version=version, host=H100)
    if refused:
        assert (v.ok, v.check, v.message) == (
            False, "MI_fp8_block_k", f"Weight input_size_per_partition = {refused} is not divisible by weight "
                                     "quantization block_k = 128.")
    else:
        assert v.ok and mi_skip(v) == ""
