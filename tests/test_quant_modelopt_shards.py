"""Model construction of ModelOpt FP8 / NVFP4 exports (kvguard.quant.modelopt_shards).

Expected values are worked out by hand from the configs' sizes (quoted in each test), the message of
ModelOptNvFp4LinearMethod.create_weights (vllm/model_executor/layers/quantization/modelopt.py, the same text in
0.10.2 – 0.33.0) and FusedMoE's EPLB refusal (vllm/model_executor/layers/fused_moe/layer.py, 0.24.0+
routed_experts.py; ModelOptNvFp4FusedMoE.supports_eplb from 0.13.0), and the LM head's construction
(vllm/model_executor/layers/vocab_parallel_embedding.py::ParallelLMHead, 0.24.0's bare NotImplementedError of
QuantizeMethodBase.tie_weights, the model classes' tying); tests/upstream/test_quant.py
(modelopt_variants) and the golden cases mi-modelopt-* compare with the releases themselves.
"""

from __future__ import annotations

import copy

import pytest

import kvguard
from kvguard import catalog

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
NVFP4_INPUT = "Unsupported model when in features size is not multiple of 16"
VERSIONS = ["0.10.2", "0.14.1", "0.16.0", "0.20.0", "0.24.0", "0.28.0", "0.33.0"]


def llama(intermediate: int, algo: str = "NVFP4", **quant) -> dict:
    """Llama-3.1-8B (hidden 4096, 32 heads of 128, 8 KV heads) as a flat ModelOpt export."""
    c = copy.deepcopy(catalog.lookup("meta-llama/Llama-3.1-8B-Instruct").config)
    c["torch_dtype"] = "bfloat16"
    c["intermediate_size"] = intermediate
    q = {"quant_method": "modelopt", "quant_algo": algo, "producer": {"name": "modelopt", "version": "0.29.0"},
         "ignore": ["lm_head"], "kv_cache_scheme": None}
    if algo == "NVFP4":
        q["group_size"] = 16
    q.update(quant)
    c["quantization_config"] = q
    return c


@pytest.mark.parametrize("version", VERSIONS)
def test_nvfp4_down_proj_shard_not_a_multiple_of_16(version):
    # intermediate 13696: tp 16 gives down_proj 856 input features per rank (856 = 53 x 16 + 8): refused;
    # tp 8 gives 1712 = 107 x 16: built
    v = kvguard.check(llama(13696), vllm_version=version, tp=16, host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_nvfp4_input", "ValueError", NVFP4_INPUT, None)
    ok = kvguard.check(llama(13696), vllm_version=version, tp=8, host=H100)
    assert ok.ok and "MI_model" not in [s.check for s in ok.skipped]


def test_nvfp4_refuses_at_tp_1_when_the_whole_input_is_not_a_multiple_of_16():
    # intermediate 11000 = 687 x 16 + 8: the unsplit down_proj already
    v = kvguard.check(llama(11000), vllm_version="0.33.0", tp=1, host=H100)
    assert (v.check, v.message) == ("MI_nvfp4_input", NVFP4_INPUT)


@pytest.mark.parametrize("version", ["0.11.0", "0.20.0", "0.28.0", "0.33.0"])
def test_flat_config_without_quant_method_is_built_unquantized(version):
    # Qwen/Qwen3-32B-FP8-Static-PerTensor's layout: the flat NVFP4 fields but no quant_method.  No normalization
    # (no nested "quantization") and no ModelOpt override (each asks for a quant_method starting with "modelopt")
    # names a method: ModelConfig's quantization is None and the layers are built unquantized, so the 856-feature
    # down_proj shard (intermediate 13696 at tp 16) that NVFP4 refuses is built
    cfg = llama(13696)
    del cfg["quantization_config"]["quant_method"]
    v = kvguard.check(cfg, vllm_version=version, tp=16, host=BIG)
    assert v.ok and "MI_model" not in [s.check for s in v.skipped]


def test_modelopt_fp8_per_tensor_checks_no_size():
    # the same 13696 at tp 16 (856 per rank): per-tensor FP8 takes any shard
    v = kvguard.check(llama(13696, "FP8"), vllm_version="0.28.0", tp=16, host=BIG)
    assert v.ok and "MI_model" not in [s.check for s in v.skipped]


def test_nested_layout_is_read_too():
    c = llama(13696)
    c["quantization_config"] = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
                                "quantization": {"quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": None,
                                                 "exclude_modules": ["lm_head"]}}
    v = kvguard.check(c, vllm_version="0.20.0", tp=16, host=BIG)
    assert (v.check, v.message) == ("MI_nvfp4_input", NVFP4_INPUT)


def _mi_reason(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def test_excluding_the_refusing_mlp_builds_the_rest():
    # intermediate 13696 at tp 16: every down_proj takes 856 features per rank.  0.33.0: the Llama mapper turns
    # "model.layers.0.mlp*" into "model.layers.0.mlp" (a substring of layer 0's MLP names only, not of layer 10's)
    # and "model.layers.0.mlp.*": layer 0's down_proj is unquantized, layer 1's refuses
    v = kvguard.check(llama(13696, ignore=["lm_head", "model.layers.0.mlp*"]), vllm_version="0.33.0", tp=16, host=BIG)
    assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input", NVFP4_INPUT)
    # every MLP excluded by a wildcard (fnmatch, 0.12.0+): the attention layers (4096 in, 4096 / 16 per rank for
    # o_proj = 256) are multiples of 16: built
    ok = kvguard.check(llama(13696, ignore=["lm_head", "model.layers.*.mlp.down_proj"]), vllm_version="0.33.0",
                       tp=16, host=BIG)
    assert ok.ok and "MI_model" not in [s.check for s in ok.skipped]


@pytest.mark.parametrize("version,built", [("0.10.2", True), ("0.11.0", True), ("0.11.1", False), ("0.12.0", False),
                                           ("0.20.0", False), ("0.33.0", True)])
def test_the_exclusion_key_by_release(version, built):
    # a flat config naming "exclude_modules" (no "ignore"): read up to 0.11.0 and again from 0.33.0 (its fallback
    # when "ignore" is absent); 0.11.1 - 0.32.x read "ignore" only, so nothing is excluded and every down_proj
    # (856 features per rank at tp 16) refuses.  "*mlp.down_proj" matches every down_proj as a regular expression
    # (0.10.2 - 0.11.0 NVFP4) and as a wildcard (0.33.0; no trailing "*", so the mapper leaves it whole)
    cfg = llama(13696)
    q = cfg["quantization_config"]
    del q["ignore"]
    q["exclude_modules"] = ["lm_head", "*mlp.down_proj"]
    v = kvguard.check(cfg, vllm_version=version, tp=16, host=BIG)
    if built:
        assert v.ok and "MI_model" not in [s.check for s in v.skipped]
    else:
        assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input", NVFP4_INPUT)


@pytest.mark.parametrize("version,method,state", [
    ("0.10.2", "modelopt", "skipped"),       # FP8: a listed name contained in the prefix (no equality exception)
    ("0.10.2", "modelopt_fp4", "skipped"),   # NVFP4: every entry fully matched as a regular expression
    ("0.11.0", "modelopt", "quantized"),     # FP8 0.11.x: the substring stage skips a name equal to the prefix
    ("0.11.1", "modelopt", "quantized"),
    ("0.11.1", "modelopt_fp4", "skipped"),   # NVFP4 0.11.x: entries with a "." as regular expressions
    ("0.12.0", "modelopt", "skipped"),       # fnmatch of the name itself
    ("0.24.0", "modelopt_fp4", "skipped"),   # is_layer_skipped: the fused name first
])
def test_fused_name_listed_by_release(version, method, state):
    from kvguard.quant import modelopt_shards as ms
    from kvguard.versions import resolve

    prefix = "model.layers.1.mlp.gate_up_proj"
    assert ms.layer_state(prefix, ("gate_proj", "up_proj"), "linear", (prefix,), method, resolve(version)) == state


def test_split_of_a_trailing_star_by_release():
    # "*mlp.gate*" matches gate_up_proj as a wildcard; from 0.26.0 the Llama model has a checkpoint-name mapper and
    # 0.13.0+ then split the entry into "*mlp.gate" and "*mlp.gate.*", neither of which matches gate_up_proj
    from kvguard.quant import modelopt_shards as ms
    from kvguard.versions import resolve

    cfg = {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": ["lm_head", "*mlp.gate*"]}
    prefix = "model.layers.3.mlp.gate_up_proj"
    for version, state in (("0.24.0", "skipped"), ("0.26.0", "quantized"), ("0.33.0", "quantized")):
        names, why = ms.exclusions(cfg, "llama", "modelopt", resolve(version))
        assert why is None
        assert ms.layer_state(prefix, ("gate_proj", "up_proj"), "linear", names, "modelopt", resolve(version)) == state
    # DeepSeek-V2/V3 have no mapper: the entry stays whole
    names, _ = ms.exclusions(cfg, "deepseek_v2", "modelopt", resolve("0.33.0"))
    assert names == ("lm_head", "*mlp.gate*")


@pytest.mark.parametrize("version,method,state", [("0.11.0", "modelopt_fp4", "quantized"),
                                                  ("0.11.1", "modelopt_fp4", "skipped"),
                                                  ("0.11.1", "modelopt", "quantized"),
                                                  ("0.12.0", "modelopt", "skipped")])
def test_experts_consult_the_list_by_release(version, method, state):
    from kvguard.quant import modelopt_shards as ms
    from kvguard.versions import resolve

    assert ms.layer_state("model.layers.1.mlp.experts", (), "moe", ("lm_head", "*experts*"), method,
                          resolve(version)) == state


def test_fp8_partial_fused_layer_is_the_shards_value_error():
    # q_proj listed, k_proj / v_proj not: is_layer_skipped raises (every release), at layer 1's qkv_proj
    v = kvguard.check(llama(14336, "FP8", ignore=["lm_head", "model.layers.1.self_attn.q_proj"]),
                      vllm_version="0.28.0", tp=2, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_fused_shards", "ValueError", "Detected some but not all shards of model.layers.1.self_attn.qkv_proj "
        "are quantized. All shards of fused layers to have the same precision.")


def _head(base: str = "meta-llama/Llama-3.1-8B-Instruct", algo: str = "NVFP4", ignore=(), tied: bool = False,
          hidden: "int | None" = None, arch: "str | None" = None) -> dict:
    """A two-layer ModelOpt export of ``base`` (flat layout); ``hidden`` 2072 takes 28 heads of 74 (4 KV heads) in
    the Llama config (2072 = 129 x 16 + 8), the Qwen3 configs keep head_dim 128."""
    c = copy.deepcopy(catalog.lookup(base).config)
    c.pop("quantization_config", None)
    c.update(torch_dtype="bfloat16", num_hidden_layers=2, tie_word_embeddings=tied)
    if hidden is not None:
        c["hidden_size"] = hidden
        if "head_dim" not in c:
            c["num_attention_heads"], c["num_key_value_heads"] = 28, 4
    if arch:
        c["architectures"] = [arch]
    c["quantization_config"] = {"quant_method": "modelopt", "quant_algo": algo, "ignore": list(ignore),
                                "producer": {"name": "modelopt", "version": "0.29.0"}, "kv_cache_scheme": None,
                                **({"group_size": 16} if algo == "NVFP4" else {})}
    return c


def _built(v) -> bool:
    return v.ok and "MI_model" not in [s.check for s in v.skipped]


@pytest.mark.parametrize("version,refused", [("0.20.0", False), ("0.22.1", False), ("0.23.0", True),
                                             ("0.24.0", True), ("0.28.0", True), ("0.33.0", True)])
def test_quantized_nvfp4_lm_head_checks_the_hidden_size(version, refused):
    # every decoder layer excluded ("model.layers.*"), hidden 2072 (not a multiple of 16): from 0.23.0 the LM head
    # takes the NVFP4 linear method and its create_weights sees the unsplit hidden size 2072 — refused at any tp;
    # up to 0.22.x the head is unquantized and nothing reads 2072 quantized
    for tp in (1, 4):
        v = kvguard.check(_head(ignore=["model.layers.*"], hidden=2072), vllm_version=version, tp=tp, host=H100)
        if refused:
            assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
                False, "model_init", "MI_nvfp4_input", "ValueError", NVFP4_INPUT)
        else:
            assert _built(v)


@pytest.mark.parametrize("version", ["0.23.0", "0.24.0", "0.33.0"])
def test_excluded_or_aligned_lm_head_builds(version):
    # "lm_*" matches lm_head (fnmatch; 0.26.0+ the Llama mapper also splits it into "lm_" — a substring — and
    # "lm_.*"): the head is unquantized, and with hidden 4096 nothing else refuses.  Nothing excluded, hidden 4096
    # (256 x 16) and a vocabulary of 128257 (padded to 128320 = 2005 x 64, 32080 per rank at tp 4): built
    assert _built(kvguard.check(_head(ignore=["lm_*", "model.layers.*"], hidden=2072), vllm_version=version, tp=4,
                                host=H100))
    c = _head()
    c["vocab_size"] = 128257
    assert _built(kvguard.check(c, vllm_version=version, tp=4, host=H100))


@pytest.mark.parametrize("version,tie_refused", [("0.23.0", False), ("0.24.0", True), ("0.25.0", False),
                                                 ("0.25.1", False), ("0.26.0", False), ("0.33.0", False)])
@pytest.mark.parametrize("algo,ignore", [("NVFP4", ["lm_head"]), ("NVFP4", []), ("FP8", ["lm_head"])])
def test_tied_llama_head_in_0_24_0(version, tie_refused, algo, ignore):
    # LlamaForCausalLM ties its built head through ParallelLMHead.tie_weights -> quant_method.tie_weights; in 0.24.0
    # the base class's is a bare NotImplementedError and the ModelOpt methods and UnquantizedLinearMethod (the
    # excluded head) keep it; 0.23.0 set the weight itself, 0.25.0+ the base shares the weight
    v = kvguard.check(_head(algo=algo, ignore=ignore, tied=True), vllm_version=version, tp=2, host=H100)
    if tie_refused:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
            False, "model_init", "MI_lm_head_tie", "NotImplementedError", "")
    else:
        assert _built(v)


def test_the_head_create_weights_comes_before_the_tie():
    # MistralForCausalLM (LlamaForCausalLM's __init__), tied, every decoder layer excluded, hidden 2072: the head's
    # NVFP4 create_weights refuses before tie_weights runs
    v = kvguard.check(_head(ignore=["model.layers.*"], hidden=2072, tied=True, arch="MistralForCausalLM"),
                      vllm_version="0.24.0", tp=1, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_nvfp4_input", "ValueError", NVFP4_INPUT)


@pytest.mark.parametrize("version,refused", [("0.23.0", False), ("0.27.0", False), ("0.28.0", True),
                                             ("0.33.0", True)])
def test_tied_qwen3_builds_its_head_from_0_28_0(version, refused):
    # Qwen3ForCausalLM with tied embeddings: up to 0.27.x the embedding is the head (no ParallelLMHead); 0.28.0+
    # build a head and tie it.  Hidden 5128 (320 x 16 + 8), every decoder layer excluded
    v = kvguard.check(_head("Qwen/Qwen3-32B-FP8", ignore=["model.layers.*"], tied=True, hidden=5128),
                      vllm_version=version, tp=1, host=H100)
    if refused:
        assert (v.check, v.message) == ("MI_nvfp4_input", NVFP4_INPUT)
    else:
        assert _built(v)
    untied = kvguard.check(_head("Qwen/Qwen3-32B-FP8", ignore=["model.layers.*"], hidden=5128),
                           vllm_version=version, tp=1, host=H100)
    assert (untied.check, untied.message) == ("MI_nvfp4_input", NVFP4_INPUT)


def test_qwen3_moe_router_gate_takes_nvfp4():
    # Qwen3-MoE hands its router gate (ReplicatedLinear, input hidden) the quantization config in every release:
    # the attention excluded, hidden 2056 (128 x 16 + 8) is refused by the gate already in 0.20.0 (before the LM
    # head is quantized at all)
    c = _head("Qwen/Qwen3-30B-A3B", ignore=["*self_attn*"], hidden=2056)
    for version in ("0.20.0", "0.33.0"):
        v = kvguard.check(c, vllm_version=version, tp=1, host=H100)
        assert (v.check, v.message) == ("MI_nvfp4_input", NVFP4_INPUT)


def test_audit_names_the_lm_head_refusals():
    from kvguard.quant import quant_audit
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    # 28 heads: tp 1, 2, 4, 7, 14, 28 are checked; the vocabulary 128256 (a multiple of 64) does not divide by 7,
    # so the embedding refuses tp 7, 14, 28 first; the head reads the unsplit 2072 at tp 1, 2, 4
    audit = quant_audit(model_facts(_head(ignore=["model.layers.*"], hidden=2072), vllm_version="0.28.0"),
                        resolve("0.28.0"))
    assert [f["tp"] for f in audit["forbidden_tp"]] == [1, 2, 4, 7, 14, 28]
    assert audit["rules"] == ["ModelOpt NVFP4: lm_head takes 2072 input features per rank at tp 1, not a multiple "
                              "of 16: refused at tp 1, 2, 4",
                              "model.embed_tokens: AssertionError: 128256 is not divisible by 7: refused at tp 7, 14, "
                              "28"]
    tied = quant_audit(model_facts(_head(tied=True, ignore=["lm_head"]), vllm_version="0.24.0"), resolve("0.24.0"))
    assert [f["tp"] for f in tied["forbidden_tp"]] == [1, 2, 4, 8, 16, 32]
    assert tied["rules"] == ["tied word embeddings: the LM head is tied through its ModelOpt / unquantized linear "
                             "method, whose tie_weights raises NotImplementedError in vLLM 0.24.0: refused at tp 1, 2, "
                             "4, 8, 16, 32"]


def test_unwritten_tie_takes_the_config_class_default():
    # config.json without tie_word_embeddings: LlamaConfig's default (False) — no tie, built in 0.24.0
    c = _head(tied=True)
    del c["tie_word_embeddings"]
    assert _built(kvguard.check(c, vllm_version="0.24.0", tp=1, host=H100))


def test_regex_reading_of_nvfp4_entries_before_0_12_0_is_open():
    v = kvguard.check(llama(14336, ignore=["lm_head", "model.layers.[0-3].mlp*"]), vllm_version="0.11.1", tp=8,
                      host=H100)
    assert v.ok and "regular expression" in _mi_reason(v)


def test_other_algorithms_and_other_moe_families_stay_open():
    w4a16 = kvguard.check(llama(14336, "W4A16_NVFP4"), vllm_version="0.28.0", tp=8, host=H100)
    assert w4a16.ok and "not modelled" in _mi_reason(w4a16)
    moe = copy.deepcopy(catalog.lookup("openai/gpt-oss-20b").config)
    moe["torch_dtype"] = "bfloat16"
    moe["quantization_config"] = llama(1)["quantization_config"]
    v = kvguard.check(moe, vllm_version="0.28.0", tp=4, host=H100)
    assert v.ok and _mi_reason(v) == ("the weight-shard checks of GptOssForCausalLM with the modelopt quantization "
                                      "method are not modelled")


def _minimax_m2(head_dim: int) -> dict:
    """MiniMax-M2.5 (48 heads, 62 layers, 256 experts of 1536) exported by ModelOpt as NVFP4 with only the LM head
    excluded: the attention is quantized too."""
    moe = copy.deepcopy(catalog.lookup("MiniMaxAI/MiniMax-M2.5").config)
    moe["torch_dtype"] = "bfloat16"
    moe["head_dim"] = head_dim
    moe["quantization_config"] = llama(1)["quantization_config"]
    return moe


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.33.0"])
def test_minimax_m2_experts_are_decided(version):
    # the experts take 1536 / 8 = 192 features per rank (no check); o_proj 48 x 128 / 8 = 768, a multiple of 16
    assert _built(kvguard.check(_minimax_m2(128), vllm_version=version, tp=8, host=H100))
    # head size 100: o_proj takes 600 input features per rank at tp 8 (600 = 37 x 16 + 8), 1200 at tp 4
    refused = kvguard.check(_minimax_m2(100), vllm_version=version, tp=8, host=H100)
    assert (refused.ok, refused.check, refused.exc_type, refused.message) == (
        False, "MI_nvfp4_input", "ValueError", "Unsupported model when in features size is not multiple of 16")
    assert _built(kvguard.check(_minimax_m2(100), vllm_version=version, tp=4, host=H100))


def _deepseek_v2_lite(algo: str) -> dict:
    """DeepSeek-V2-Lite (MLA, hidden 2048, 16 heads, a dense first layer, 64 routed experts of 1408 + 2 shared)."""
    c = copy.deepcopy(catalog.lookup("deepseek-ai/DeepSeek-V2-Lite").config)
    c["torch_dtype"] = "bfloat16"
    c["quantization_config"] = llama(1, algo)["quantization_config"]
    return c


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_deepseek_fp8_experts_decided(version):
    # per-tensor FP8 checks no size in any layer: tp 16 (1408 / 16 = 88 expert features per rank) builds, and the FP8
    # experts refuse EPLB as Qwen3-MoE's do
    v = kvguard.check(_deepseek_v2_lite("FP8"), vllm_version=version, tp=16, host=BIG)
    assert v.ok and "MI_model" not in [s.check for s in v.skipped]
    e = kvguard.check(_deepseek_v2_lite("FP8"), vllm_version=version, host=H100, dp=8, enable_expert_parallel=True,
                      enable_eplb=True)
    assert (e.check, e.exc_type) == ("MI_eplb_unsupported", "NotImplementedError")


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.20.0", "0.33.0"])
def test_deepseek_nvfp4(version):
    # DeepSeek-V2-Lite NVFP4: the dense first layer's down_proj takes 10944 / 8 = 1368 = 85.5 x 16 input features at
    # tp 8: refused; tp 4 gives 2736 = 171 x 16 (o_proj 16 x 128 / 4 = 512, shared experts' down_proj 2816 / 4 = 704,
    # q_proj / kv_a_proj_with_mqa 2048, kv_b_proj 512): built
    v = kvguard.check(_deepseek_v2_lite("NVFP4"), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_nvfp4_input", "ValueError", NVFP4_INPUT)
    ok = kvguard.check(_deepseek_v2_lite("NVFP4"), vllm_version=version, tp=4, host=H100)
    assert ok.ok and "MI_model" not in [s.check for s in ok.skipped]
    # layer 0's MLP excluded (no mapper on DeepSeek: "model.layers.0.mlp*" matches as a wildcard from 0.12.0, as a
    # regular expression before): the shared experts' 2816 / 8 = 352 = 22 x 16 per rank: built.  The flat "ignore"
    # is read from 0.11.1; 0.10.2 reads "exclude_modules"
    c = _deepseek_v2_lite("NVFP4")
    q = c["quantization_config"]
    q["exclude_modules" if version == "0.10.2" else "ignore"] = ["lm_head", "model.layers.0.mlp*"]
    ex = kvguard.check(c, vllm_version=version, tp=8, host=H100)
    assert ex.ok and "MI_model" not in [s.check for s in ex.skipped]


def test_deepseek_nvfp4_replicated_kv_a_proj_input():
    # 20 heads, hidden 2060 (128.75 x 16) with every q_proj excluded: the next quantized layer reading the hidden size
    # is the replicated kv_a_proj_with_mqa (tp does not split it): refused on its whole input
    c = _deepseek_v2_lite("NVFP4")
    c["num_attention_heads"], c["hidden_size"] = 20, 2060
    c["quantization_config"]["ignore"] = ["lm_head", "model.layers.*.self_attn.q_proj"]
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input", NVFP4_INPUT)
    # the MLPs excluded too: kv_a_proj_with_mqa is the only quantized layer reading 2060; excluded as well: built
    c["quantization_config"]["ignore"] = ["lm_head", "model.layers.*.self_attn.q_proj", "model.layers.*.mlp.*"]
    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    res = outcome(model_facts(c, vllm_version="0.20.0"), resolve("0.20.0"), Launch(tp=4))
    assert (res.check, res.layer, dict(res.values)) == ("MI_nvfp4_input", "model.layers.0.self_attn.kv_a_proj_with_mqa",
                                                        {"size": 2060})
    c["quantization_config"]["ignore"].append("*kv_a_proj_with_mqa")
    assert kvguard.check(c, vllm_version="0.20.0", tp=4, host=H100).ok
    # the attention excluded as a whole: the dense MLP's gate_up_proj (input 2060) refuses instead
    c["quantization_config"]["ignore"] = ["lm_head", "model.layers.*.self_attn*"]
    v2 = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100)
    assert (v2.ok, v2.check) == (False, "MI_nvfp4_input")


def test_host_facts_the_kernel_choice_reads():
    # another GPU, or an environment variable that steers the NVFP4 kernel choice: left open, not decided
    a100 = kvguard.Host(**{**BIG.__dict__, "gpu_capability": 100})
    v = kvguard.check(llama(13696), vllm_version="0.33.0", tp=16, host=a100)
    assert "MI_model" in [s.check for s in v.skipped] and "compute capability 90" in _mi_reason(v)
    env = kvguard.check(llama(13696), vllm_version="0.24.0", tp=16, host=BIG, env={"VLLM_DISABLED_KERNELS": "x"})
    assert "VLLM_DISABLED_KERNELS" in _mi_reason(env)


@pytest.mark.parametrize("version", ["0.14.1", "0.24.0", "0.33.0"])
def test_modelopt_fp8_per_channel_checks_no_size(version):
    # FP8_PER_CHANNEL_PER_TOKEN (0.14.0+): ModelOptFp8PcPtLinearMethod / KFp8StaticChannel check no size; 856 per rank
    v = kvguard.check(llama(13696, "FP8_PER_CHANNEL_PER_TOKEN"), vllm_version=version, tp=16, host=BIG)
    assert v.ok and "MI_model" not in [s.check for s in v.skipped]


def test_fp8_pb_wo_stays_open():
    # 128 x 128 blocks: refusals and padding that change by release (not modelled)
    v = kvguard.check(llama(14336, "FP8_PB_WO"), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "FP8_PB_WO" in _mi_reason(v)


def test_audit_names_the_nvfp4_refusals():
    # intermediate 12000 over 32 heads: tp 1 and 2 build (12000, 6000 = 375 x 16), tp 4 gives 3000 = 187 x 16 + 8
    from kvguard.quant import quant_audit
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    audit = quant_audit(model_facts(llama(12000), vllm_version="0.33.0"), resolve("0.33.0"))
    assert [f["tp"] for f in audit["forbidden_tp"]] == [4, 8, 16, 32]
    assert audit["rules"] == ["ModelOpt NVFP4: mlp.down_proj takes 3000 input features per rank at tp 4, not a "
                              "multiple of 16: refused at tp 4, 8, 16, 32"]
    assert any("FP4 Marlin" in a for a in audit["assumptions"])


# ---------------------------------------------------------------------------
# MoE experts (Qwen3-MoE, Mixtral): ModelOptFp8MoEMethod / ModelOptNvFp4FusedMoE on the default host


def qwen3_moe(algo: str = "NVFP4", moe_intermediate: int = 768, **quant) -> dict:
    """Qwen3-30B-A3B (hidden 2048, 32 heads of 128, 4 KV heads, 128 experts of intermediate 768) as a flat ModelOpt
    export."""
    c = copy.deepcopy(catalog.lookup("Qwen/Qwen3-30B-A3B").config)
    c["torch_dtype"] = "bfloat16"
    c["moe_intermediate_size"] = moe_intermediate
    c["quantization_config"] = llama(1, algo, **quant)["quantization_config"]
    return c


def _decided(v) -> bool:
    return "MI_model" not in [s.check for s in v.skipped]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("algo", ["NVFP4", "FP8"])
def test_experts_take_shares_that_are_not_multiples_of_16(version, algo):
    # tp 32: the experts take 768 / 32 = 24 intermediate features per rank (24 = 16 + 8); o_proj 4096 / 32 = 128 input
    # features, qkv_proj the whole 2048: nothing refuses on the default host (FP4 Marlin / per-tensor FP8 experts)
    v = kvguard.check(qwen3_moe(algo), vllm_version=version, tp=32, host=BIG)
    assert v.ok and _decided(v)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_experts_intermediate_not_divisible_by_the_moe_tp_size(version):
    # moe_intermediate 720 = 2^4 x 45: tp 8 x dp 4 without expert parallel is a MoE TP size of 32 (720 / 32 = 22.5):
    # FusedMoE's bare assert; tp 8 x dp 2 (16: 45 per rank) builds
    v = kvguard.check(qwen3_moe("NVFP4", 720), vllm_version=version, tp=8, dp=4, host=BIG)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_moe_intermediate", "AssertionError", "")
    ok = kvguard.check(qwen3_moe("NVFP4", 720), vllm_version=version, tp=8, dp=2, host=BIG)
    assert ok.ok and _decided(ok)


def test_mixtral_experts():
    # Mixtral-8x7B (hidden 4096, 8 experts of intermediate 14336): tp 8 -> 1792 per rank; with expert parallel
    # (tp 2 x dp 4) each rank holds whole experts
    c = copy.deepcopy(catalog.lookup("mistralai/Mixtral-8x7B-v0.1").config)
    c["torch_dtype"] = "bfloat16"
    c["quantization_config"] = llama(1, "FP8")["quantization_config"]
    for kw in ({"tp": 8}, {"tp": 2, "dp": 4, "enable_expert_parallel": True}):
        v = kvguard.check(c, vllm_version="0.28.0", host=BIG, **kw)
        assert v.ok and _decided(v), kw


EPLB = {"dp": 8, "enable_expert_parallel": True, "enable_eplb": True}


@pytest.mark.parametrize(("version", "message"), [
    ("0.10.2", "EPLB is only supported for FP8 quantization for now."),
    ("0.12.0", "EPLB is not supported ModelOptFp8MoEMethod. EPLB is only supported for FP8 quantization for now."),
    ("0.14.1", "EPLB is not supported ModelOptFp8MoEMethod. EPLB is only supported for FP8 quantization for now."),
    ("0.24.0", "EPLB is not supported ModelOptFp8MoEMethod."),
    ("0.33.0", "EPLB is not supported ModelOptFp8MoEMethod.")])
def test_fp8_experts_never_take_eplb(version, message):
    v = kvguard.check(qwen3_moe("FP8"), vllm_version=version, host=H100, **EPLB)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_eplb_unsupported",
                                                               "NotImplementedError", message)


@pytest.mark.parametrize(("version", "message"), [
    ("0.10.2", "EPLB is only supported for FP8 quantization for now."),
    ("0.12.0", "EPLB is not supported ModelOptNvFp4FusedMoE. EPLB is only supported for FP8 quantization for now."),
    ("0.13.0", None), ("0.24.0", None), ("0.33.0", None)])
def test_nvfp4_experts_take_eplb_from_0_13(version, message):
    v = kvguard.check(qwen3_moe("NVFP4"), vllm_version=version, host=H100, **EPLB)
    if message is None:
        assert v.ok and _decided(v)
    else:
        assert (v.check, v.exc_type, v.message) == ("MI_eplb_unsupported", "NotImplementedError", message)


def test_moe_selection_inputs_leave_the_experts_open():
    # what steers the experts' MoE backend choice: an explicit --moe-backend / --all2all-backend, an environment
    # variable, another GPU, the NVFP4 MoE activation override
    c = qwen3_moe("NVFP4", 720)  # (refused at tp 8 x dp 4 when decided)
    v = kvguard.check(c, vllm_version="0.33.0", tp=4, host=H100, moe_backend="marlin")
    assert "--moe-backend marlin" in _mi_reason(v)
    v = kvguard.check(c, vllm_version="0.33.0", tp=1, host=H100, dp=8, enable_expert_parallel=True,
                      all2all_backend="deepep_low_latency")
    assert "--all2all-backend deepep_low_latency" in _mi_reason(v)
    v = kvguard.check(c, vllm_version="0.20.0", tp=8, host=H100, env={"VLLM_USE_FLASHINFER_MOE_FP4": "1"})
    assert "VLLM_USE_FLASHINFER_MOE_FP4" in _mi_reason(v)
    b200 = kvguard.Host(**{**H100.__dict__, "gpu_capability": 100})
    v = kvguard.check(c, vllm_version="0.33.0", tp=8, host=b200)
    assert "compute capability 90" in _mi_reason(v)
    override = qwen3_moe("NVFP4", moe={"activation": "nvfp4_per_token"})
    v = kvguard.check(override, vllm_version="0.33.0", tp=8, host=H100)
    assert "MoE section" in _mi_reason(v)


def test_audit_states_the_moe_assumption():
    from kvguard.quant import quant_audit
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    audit = quant_audit(model_facts(qwen3_moe("NVFP4"), vllm_version="0.28.0"), resolve("0.28.0"))
    assert audit["forbidden_tp"] == [] and audit["modelled"]
    assert any("ModelOpt MoE backend" in a for a in audit["assumptions"])
