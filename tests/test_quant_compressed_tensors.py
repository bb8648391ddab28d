"""compressed-tensors checkpoints at model construction (kvguard.quant.compressed_tensors).

Expected values are worked out by hand from the catalog configs (sizes quoted in each test) and the
messages of vLLM's validate_fp8_block_shape; the differential tier (tests/upstream/test_quant.py,
ct_variants) compares with the releases building the model.
"""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvguard
from kvguard import catalog
from kvguard.quant import compressed_tensors as ct
from kvguard.quant import scheme_of

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)


def _args(**k) -> dict:
    out = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "strategy": "channel",
           "block_structure": None, "dynamic": False, "actorder": None, "observer": "minmax", "observer_kwargs": {}}
    out.update(k)
    return out


def quant(weights: dict, acts, fmt: str, ignore=("lm_head",), **extra) -> dict:
    """A quantization_config in the form llm-compressor writes it."""
    q = {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
         "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": acts,
                                       "output_activations": None, "format": fmt}},
         "ignore": list(ignore), "kv_cache_scheme": None, "sparsity_config": {}, "global_compression_ratio": None}
    q.update(extra)
    return q


FP8_DYNAMIC = quant(_args(), _args(strategy="token", dynamic=True, observer=None), "float-quantized")
FP8_STATIC = quant(_args(strategy="tensor"), _args(strategy="tensor"), "float-quantized")
FP8_BLOCK = quant(_args(strategy="block", block_structure=[128, 128]),
                  _args(strategy="group", group_size=128, dynamic=True, observer=None), "float-quantized")
W4A16 = quant(_args(num_bits=4, type="int", strategy="group", group_size=128), None, "pack-quantized")
W8A16 = quant(_args(num_bits=8, type="int", strategy="group", group_size=128), None, "pack-quantized")
#: llm-compressor's W8A8 preset (RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8 and the like)
W8A8_INT8 = quant(_args(type="int"), _args(type="int", strategy="token", dynamic=True, observer=None), "int-quantized")


def model(name: str, q: dict, **sizes) -> dict:
    c = copy.deepcopy(catalog.lookup(name).config)
    c["quantization_config"] = copy.deepcopy(q)
    c.setdefault("torch_dtype", "bfloat16")
    c.update(sizes)
    return c


def llama(q: dict, **sizes) -> dict:
    return model("meta-llama/Llama-3.1-8B-Instruct", q, **sizes)


def skipped(v) -> dict:
    return {s.check: s.reason for s in v.skipped}


@pytest.mark.parametrize("version", ["0.11.0", "0.14.1", "0.20.0", "0.28.0", "0.33.0"])
def test_fp8_block_merged_layer_has_no_mismatch_allowance(version):
    # Llama-3.1-8B: intermediate 14336 / tp 32 = 448 per rank on gate_up_proj; 448 % 128 = 64.  The
    # compressed-tensors config has no weight_block_size, so ColumnParallelLinear's allowance (0.14.0+) never
    # applies and the merged layer itself refuses
    v = kvguard.check(llama(FP8_BLOCK), vllm_version=version, tp=32, host=BIG)
    assert (v.ok, v.stage, v.check, v.exc_type, v.wrapped_by) == (False, "model_init", "MI_fp8_block_n", "ValueError",
                                                                  None)
    assert v.message == "Weight output_partition_size = 448 is not divisible by weight quantization block_n = 128."
    # tp 16: 896 = 7 blocks on gate_up_proj and down_proj's input: builds
    assert kvguard.check(llama(FP8_BLOCK), vllm_version=version, tp=16, host=BIG).ok


def test_fp8_block_contrasts_with_the_fp8_method_from_0_14():
    # the same block with quant_method fp8: 0.14.0+ exempts the merged layer, down_proj's input refuses
    c = llama({"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})
    v = kvguard.check(c, vllm_version="0.20.0", tp=32, host=BIG)
    assert v.message == "Weight input_size_per_partition = 448 is not divisible by weight quantization block_k = 128."


def test_fp8_block_in_0_10_2_has_no_scheme():
    # 0.10.2 has no block strategy (_is_fp8_w8a8): no scheme takes the first quantized layer, at any tp
    for tp in (1, 8):
        v = kvguard.check(llama(FP8_BLOCK), vllm_version="0.10.2", tp=tp, host=H100)
        assert (v.ok, v.check, v.exc_type, v.message, v.wrapped_by) == (
            False, "MI_ct_no_scheme", "NotImplementedError", "No compressed-tensors compatible scheme was found.", None)


@pytest.mark.parametrize("q", [FP8_DYNAMIC, FP8_STATIC], ids=["dynamic", "static"])
@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_fp8_per_channel_and_per_tensor_have_no_shape_checks(q, version):
    # intermediate 13824 / tp 32 = 432 per rank (not whole blocks of 128): the per-channel / per-tensor schemes
    # do not check it
    v = kvguard.check(llama(q, intermediate_size=13824), vllm_version=version, tp=32, host=BIG)
    assert v.ok and "MI_model" not in skipped(v)


def test_the_scheme_choice_is_read_for_compute_capability_90():
    other = kvguard.check(llama(FP8_DYNAMIC), vllm_version="0.20.0", tp=8,
                          host=kvguard.Host(**{**H100.__dict__, "gpu_capability": 80}))
    assert other.ok and "compressed-tensors" in skipped(other)["MI_model"]
    assumed = kvguard.check(llama(FP8_DYNAMIC), vllm_version="0.20.0", tp=8, host=kvguard.Host.standard())
    assert assumed.ok and "gpu_capability=90" in assumed.assumptions


@pytest.mark.parametrize("activations", [
    {"strategy": "token", "dynamic": True, "observer": None},               # the W8A8 preset
    {"strategy": "token", "dynamic": True, "observer": None, "symmetric": False},
    {"strategy": "tensor"},                                                 # static per-tensor (SmoothQuant exports)
], ids=["dynamic", "dynamic-asymmetric", "static"])
@pytest.mark.parametrize("weights", ["channel", "tensor"])
@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.20.0", "0.33.0"])
def test_int8_w8a8_has_no_shape_check(version, weights, activations):
    # CompressedTensorsW8A8Int8 on compute capability 9.0: intermediate 13824 / tp 32 = 432 per rank, not a whole
    # multiple of any tile: its create_weights and the CUTLASS INT8 kernel check no size
    q = quant(_args(type="int", strategy=weights), _args(type="int", **activations), "int-quantized")
    v = kvguard.check(llama(q, intermediate_size=13824), vllm_version=version, tp=32, host=BIG)
    assert v.ok and "MI_model" not in skipped(v)
    # the sharding checks still run first: 13824 / tp 64 = 216, but 32 heads / tp 64 is refused before
    assert not kvguard.check(llama(q), vllm_version=version, tp=64, host=BIG).ok


@pytest.mark.parametrize("change, words", [
    (lambda w, a: w.update(symmetric=False), "symmetric=False"),   # no W8A8 test takes asymmetric weights
    (lambda w, a: a.update(strategy="group", group_size=128), "'group'"),
    (lambda w, a: a.update(type="float"), "'float'"),
    (lambda w, a: w.update(strategy="group", group_size=128), "'group'"),
])
def test_int8_w8a8_forms_kvguard_does_not_read_are_skipped(change, words):
    q = copy.deepcopy(W8A8_INT8)
    group = q["config_groups"]["group_0"]
    change(group["weights"], group["input_activations"])
    v = kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and words in skipped(v)["MI_model"]


def test_int8_w8a8_experts_are_skipped():
    v = kvguard.check(qwen3_moe(W8A8_INT8), vllm_version="0.28.0", tp=4, host=H100)
    assert v.ok and skipped(v)["MI_model"] == "compressed-tensors INT8 W8A8 weights on MoE experts are not modelled"


def test_int8_w8a8_needs_compute_capability_75_which_the_host_states():
    other = kvguard.check(llama(W8A8_INT8), vllm_version="0.20.0", tp=8,
                          host=kvguard.Host(**{**H100.__dict__, "gpu_capability": 80}))
    assert other.ok and "compressed-tensors" in skipped(other)["MI_model"]


def qwen72(q: dict) -> dict:
    return model("Qwen/Qwen2.5-72B-Instruct-AWQ", q)


def test_w4a16_marlin_takes_whole_groups_else_undecided():
    # Qwen2.5-72B: intermediate 29696; tp 8 -> 3712 = 29 groups of 128 on down_proj: Marlin takes every shard
    assert kvguard.check(qwen72(W4A16), vllm_version="0.20.0", tp=8, host=H100).ok
    # tp 16 -> 1856 = 14.5 groups: Marlin refuses; the other kernels' answer is the host's
    v = kvguard.check(qwen72(W4A16), vllm_version="0.20.0", tp=16, host=BIG)
    assert v.ok and "kernel choice" in skipped(v)["MI_model"]


def test_w8a16_channelwise_needs_aligned_tiles_up_to_0_23_only():
    # channelwise (group -1): tp 16 -> down_proj input 1856; 1856 % 128 = 64: Marlin's strict shape (0.23.0-)
    # refuses, tile padding (0.24.0+) takes it
    q = quant(_args(num_bits=8, type="int", strategy="channel"), None, "pack-quantized")
    old = kvguard.check(qwen72(q), vllm_version="0.20.0", tp=16, host=BIG)
    assert old.ok and "kernel choice" in skipped(old)["MI_model"]
    new = kvguard.check(qwen72(q), vllm_version="0.24.0", tp=16, host=BIG)
    assert new.ok and "MI_model" not in skipped(new)


def test_actorder_weight_has_no_group_index():
    # actorder "weight" (weights reordered, no g_idx): the same Marlin path as none with groups; channelwise
    # weights with any actorder are left undecided (the compressed-tensors package may refuse the config)
    q = copy.deepcopy(W4A16)
    q["config_groups"]["group_0"]["weights"]["actorder"] = "weight"
    assert kvguard.check(qwen72(q), vllm_version="0.20.0", tp=8, host=H100).ok
    assert "MI_model" not in skipped(kvguard.check(qwen72(q), vllm_version="0.20.0", tp=8, host=H100))
    q["config_groups"]["group_0"]["weights"].update(strategy="channel", group_size=None)
    v = kvguard.check(qwen72(q), vllm_version="0.20.0", tp=8, host=H100)
    assert v.ok and "actorder" in skipped(v)["MI_model"]


@pytest.mark.parametrize("change, words", [
    (lambda q: q["config_groups"].update(group_1=q["config_groups"]["group_0"]), "config_groups"),
    (lambda q: q["config_groups"]["group_0"].update(targets=["re:.*proj$"]), "targets"),
    (lambda q: q.update(kv_cache_scheme={"num_bits": 8, "type": "float", "strategy": "tensor"}), "kv_cache"),
    (lambda q: q["config_groups"]["group_0"]["weights"].update(symmetric=False), "scheme"),
    (lambda q: q["config_groups"]["group_0"]["weights"].update(actorder="group"), "actorder"),
    (lambda q: q["config_groups"]["group_0"]["weights"].update(group_size=16), "group_size"),
    (lambda q: q["config_groups"]["group_0"]["weights"].update(num_bits=2), "scheme"),
    # 0.25.0+: LlamaForCausalLM's checkpoint-name mapper rewrites the list's layer paths (q_proj -> qkv_proj)
    (lambda q: q.update(ignore=["model.layers.0.self_attn.k_proj"]), "ignore"),
])
def test_forms_kvguard_does_not_read_are_skipped_not_accepted(change, words):
    q = copy.deepcopy(W4A16)
    change(q)
    v = kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and words in skipped(v)["MI_model"]


# --- MoE models (Qwen3-30B-A3B: hidden 2048, 32 heads / 4 KV heads of 128, 128 experts, moe_intermediate 768;
# Mixtral-8x7B: hidden 4096, 32 / 8 heads, 8 experts, intermediate 14336).  The experts' method is
# CompressedTensorsW8A8Fp8MoEMethod; the real checkpoints (RedHatAI/Qwen3-30B-A3B-FP8-dynamic) ignore lm_head and the
# router gates

REDHAT_IGNORE = ("lm_head", "re:.*mlp.gate$")


def qwen3_moe(q: dict, ignore=REDHAT_IGNORE, **sizes) -> dict:
    q = copy.deepcopy(q)
    q["ignore"] = list(ignore)
    return model("Qwen/Qwen3-30B-A3B", q, **sizes)


MOE_BLOCK_N = "The output_size of gate's and up's weight = {} is not divisible by weight quantization block_n = {}."
MOE_BLOCK_K = "The input_size of down's weight = {} is not divisible by weight quantization block_k = {}."


@pytest.mark.parametrize("version", ["0.11.0", "0.14.1", "0.20.0", "0.28.0", "0.29.0", "0.33.0"])
def test_fp8_block_experts_refuse_ragged_per_rank_blocks_in_every_release(version):
    # 768 / tp 4 = 192 per rank: 1.5 blocks of 128.  Unlike the fp8 method (0.29.0+ refines its block scales),
    # the compressed-tensors MoE method checks the block shape as written in every release
    v = kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.wrapped_by) == (False, "model_init", "MI_fp8_moe_block_n",
                                                                  "ValueError", None)
    assert v.message == MOE_BLOCK_N.format(192, 128)
    # tp 2: 384 = 3 blocks
    assert kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version=version, tp=2, host=H100).ok


def test_fp8_block_experts_contrast_with_the_fp8_method_from_0_29():
    fp8 = kvguard.check(model("Qwen/Qwen3-30B-A3B-FP8", {"quant_method": "fp8", "weight_block_size": [128, 128]}),
                        vllm_version="0.29.0", tp=4, host=H100)
    assert fp8.ok
    assert kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.29.0", tp=4, host=H100).check == "MI_fp8_moe_block_n"


def test_fp8_block_experts_are_split_over_tp_x_dp_without_expert_parallel():
    # -dp 8: the MoE TP size is 8 (96 per rank) without EP; with EP the experts keep 768
    v = kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.28.0", dp=8, host=H100)
    assert (v.check, v.message) == ("MI_fp8_moe_block_n", MOE_BLOCK_N.format(96, 128))
    assert kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.28.0", dp=8, ep=True, host=H100).ok


def test_fp8_block_experts_check_block_k_only_with_attention_tp():
    # block [64, 128]: 192 per rank is 3 blocks of 64 but 1.5 of 128; the down projection's check reads the
    # attention TP size: tp 4 refuses, dp 4 (MoE TP 4, attention TP 1) builds
    q = copy.deepcopy(FP8_BLOCK)
    q["config_groups"]["group_0"]["weights"]["block_structure"] = [64, 128]
    v = kvguard.check(qwen3_moe(q), vllm_version="0.20.0", tp=4, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_fp8_moe_block_k", "ValueError", MOE_BLOCK_K.format(192, 128))
    assert kvguard.check(qwen3_moe(q), vllm_version="0.20.0", dp=4, host=H100).ok


def test_fp8_block_experts_of_mixtral():
    # 14336 / tp 32 = 448 per rank (3.5 blocks); the attention's shards are whole blocks (q 128, o_proj input 128)
    c = model("mistralai/Mixtral-8x7B-v0.1", dict(FP8_BLOCK, ignore=["lm_head", "re:.*block_sparse_moe.gate"]))
    v = kvguard.check(c, vllm_version="0.24.0", tp=32, host=BIG)
    assert (v.check, v.message) == ("MI_fp8_moe_block_n", MOE_BLOCK_N.format(448, 128))
    assert kvguard.check(c, vllm_version="0.24.0", tp=16, host=BIG).ok


def test_fp8_block_moe_in_0_10_2_has_no_scheme():
    v = kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.10.2", tp=4, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_ct_no_scheme", "NotImplementedError",
                                               "No compressed-tensors compatible scheme was found.")


@pytest.mark.parametrize("q", [FP8_DYNAMIC, FP8_STATIC], ids=["dynamic", "static"])
@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.24.0", "0.33.0"])
def test_fp8_per_channel_and_per_tensor_experts_have_no_shape_checks(q, version):
    # 768 / tp 8 = 96 per rank: no block to fit
    v = kvguard.check(qwen3_moe(q), vllm_version=version, tp=8, host=H100)
    assert v.ok and "MI_model" not in skipped(v)


def test_eplb_with_compressed_tensors_experts_up_to_0_11_0():
    # FusedMoE takes EPLB only with the fp8 method's or unquantized experts up to 0.11.0; 128 experts over 8 EP ranks
    # split evenly, so the support check is the refusal
    v = kvguard.check(qwen3_moe(FP8_DYNAMIC), vllm_version="0.11.0", dp=8, ep=True, enable_eplb=True, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "MI_eplb_unsupported", "NotImplementedError", "EPLB is only supported for FP8 quantization for now.",
        None)
    new = kvguard.check(qwen3_moe(FP8_DYNAMIC), vllm_version="0.11.1", dp=8, ep=True, enable_eplb=True, host=H100)
    assert new.ok and "MI_model" not in skipped(new)


@pytest.mark.parametrize("q, words", [
    (quant(_args(num_bits=4, type="int"), None, "pack-quantized"), "channelwise integer weights on MoE experts"),
    # per-tensor weights with dynamic per-token activations: a dense layer takes them, the MoE method asserts
    (quant(_args(strategy="tensor"), _args(strategy="token", dynamic=True, observer=None), "float-quantized"),
     "FP8 MoE experts"),
])
def test_moe_forms_kvguard_does_not_read_are_skipped(q, words):
    v = kvguard.check(qwen3_moe(q), vllm_version="0.28.0", tp=4, host=H100)
    assert v.ok and words in skipped(v)["MI_model"]


def test_an_ignore_entry_that_may_name_the_experts_is_skipped():
    v = kvguard.check(qwen3_moe(FP8_BLOCK, ignore=("lm_head", "re:.*experts.*")), vllm_version="0.28.0", tp=4,
                      host=H100)
    assert v.ok and "ignore list" in skipped(v)["MI_model"]
    # the router gate's entry does not name the experts: decided
    assert kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.28.0", tp=4, host=H100).check == "MI_fp8_moe_block_n"


@pytest.mark.parametrize("entry, hit", [
    ("re:.*mlp.gate$", False), ("re:.*block_sparse_moe.gate", False), ("lm_head", False),
    ("re:.*experts.*", True), ("model.layers.3.mlp.experts", True), ("re:.*gate_proj", True),
    ("re:.*\\.w2$", True), ("model.layers.3.mlp.experts.0.up_proj", True),
])
def test_may_ignore_experts(entry, hit):
    assert ct.may_ignore_experts("model.layers.3.mlp.experts", ("lm_head", entry)) is hit


def test_moe_architectures_kvguard_has_no_layers_for_are_skipped():
    c = model("MiniMaxAI/MiniMax-M2.5", FP8_DYNAMIC)
    v = kvguard.check(c, vllm_version="0.28.0", tp=4, host=H100)
    assert v.ok and "MoE" in skipped(v)["MI_model"]


def test_an_ignore_list_that_names_no_decoder_linear_is_read():
    q = copy.deepcopy(FP8_BLOCK)
    q["ignore"] = ["lm_head", "re:.*gate$", "model.embed_tokens"]
    v = kvguard.check(llama(q), vllm_version="0.28.0", tp=32, host=BIG)
    assert v.check == "MI_fp8_block_n"


def test_scheme_reading():
    s = scheme_of({"quantization_config": FP8_BLOCK}, {})
    assert (s.method, s.modelled, s.ct, s.block) == ("compressed-tensors", True, "fp8_block", (128, 128))
    s = scheme_of({"quantization_config": W4A16}, {})
    assert (s.ct, s.bits, s.group_size) == ("wna16", 4, 128)
    s = scheme_of({"quantization_config": quant(_args(num_bits=4, type="int"), None, "pack-quantized")}, {})
    assert (s.ct, s.group_size) == ("wna16", -1)
    # INT8 W8A8: the dense scheme is read, the experts are not
    s = scheme_of({"quantization_config": W8A8_INT8}, {})
    assert (s.modelled, s.ct, s.ct_moe) == (True, "int8", "compressed-tensors INT8 W8A8 weights on MoE experts are "
                                                          "not modelled")
    # NVFP4 (tensor_group, 4-bit float): the dense scheme and the experts are read (the experts by release)
    nvfp4 = quant(_args(num_bits=4, strategy="tensor_group", group_size=16),
                  _args(num_bits=4, strategy="tensor_group", group_size=16, dynamic="local"), "nvfp4-pack-quantized")
    s = scheme_of({"quantization_config": nvfp4}, {})
    assert (s.modelled, s.ct, s.block, s.ct_moe) == (True, "nvfp4", None, None)
    # NVFP4 under another format, INT8 with asymmetric weights are not modelled
    other = quant(_args(num_bits=4, strategy="tensor_group", group_size=16), None, "pack-quantized")
    int8 = quant(_args(type="int", symmetric=False), _args(type="int", strategy="token", dynamic=True),
                 "int-quantized")
    for q in (other, int8):
        assert not scheme_of({"quantization_config": q}, {}).modelled


_NAME = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)


@given(layer=st.integers(0, 80), proj=st.sampled_from(["qkv_proj", "gate_up_proj", "o_proj", "down_proj"]),
       form=st.sampled_from(["exact", "regex", "suffix", "glob"]), pick=st.integers(0, 2))
def test_may_ignore_catches_every_entry_naming_the_layer_or_a_shard(layer, proj, form, pick):
    shards = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}.get(proj, ())
    prefix = f"model.layers.{layer}.{'self_attn' if proj in ('qkv_proj', 'o_proj') else 'mlp'}.{proj}"
    names = [prefix] + [prefix.rsplit(".", 1)[0] + "." + s for s in shards]
    name = names[pick % len(names)]
    entry = {"exact": name, "regex": "re:" + re.escape(name), "suffix": "re:.*" + re.escape(name.rsplit(".", 1)[1]),
             "glob": "*" + name.rsplit(".", 1)[1]}[form]
    assert ct.may_ignore(prefix, shards, ("lm_head", entry))


@given(layer=st.integers(0, 80), other=_NAME)
def test_may_ignore_clears_entries_of_other_modules(layer, other):
    prefix = f"model.layers.{layer}.mlp.down_proj"
    entries = ("lm_head", "re:.*lm_head", "model.embed_tokens", "re:.*gate$", f"{other}.weight_only_x")
    assert not ct.may_ignore(prefix, (), entries)


def test_audit_of_fp8_block_experts_names_no_refinement():
    # Qwen3-30B-A3B (32 heads: tp 1..32), MoE intermediate 768 = 6 blocks of 128: tp 4, 8, 16, 32 refused on 0.33.0,
    # with no "refines the block scales" clause (that is the fp8 method's)
    q = kvguard.audit(qwen3_moe(FP8_BLOCK), tp=2, vllm_version="0.33.0").models[0].quantization
    assert [f["tp"] for f in q["forbidden_tp"]] == [4, 8, 16, 32]
    assert q["rules"] == ["MoE intermediate size 768 / 128 = 6 blocks: tp must divide 6 (first refusal at tp 4, 8, 16, "
                          "32)"]


def test_moe_experts_are_read_for_compute_capability_90():
    assumed = kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.28.0", tp=4, host=kvguard.Host.standard())
    assert assumed.check == "MI_fp8_moe_block_n" and "gpu_capability=90" in assumed.assumptions
    other = kvguard.check(qwen3_moe(FP8_BLOCK), vllm_version="0.28.0", tp=4,
                          host=kvguard.Host(**{**H100.__dict__, "gpu_capability": 80}))
    assert other.ok and "compressed-tensors" in skipped(other)["MI_model"]


def test_dynamic_per_tensor_activations_on_experts_are_skipped():
    # a dense layer takes them; the MoE method's kernel choice by quantization keys (0.20.0+) is not modelled
    q = quant(_args(strategy="tensor"), _args(strategy="tensor", dynamic=True, observer=None), "float-quantized")
    assert kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100).ok
    v = kvguard.check(qwen3_moe(q), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "FP8 MoE experts" in skipped(v)["MI_model"]


# ---------------------------------------------------------------------------
# integer-weight (W4A16) experts: Qwen3-30B-A3B, hidden 2048, moe_intermediate_size 768, 128 experts

CT_MOE_GROUP = ("CompressedTensors WNA16 MoE with static group scales requires the MoE intermediate size per "
                "tensor-parallel partition ({}) to be divisible by group_size ({}). Scale groups would otherwise cross "
                "TP shard boundaries; use a compatible TP size or enable expert parallelism.")


def w4a16(group: int) -> dict:
    q = copy.deepcopy(W4A16)
    q["config_groups"]["group_0"]["weights"]["group_size"] = group
    return q


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.22.0", "0.23.0"])
def test_w4a16_experts_start_before_the_fall_back_checks_sizes(version):
    # 768 / tp 4 = 192 per rank: 192 % 128 = 64, so the fused Marlin MoE check (strict tile) fails and the
    # CompressedTensorsWNA16MoEMethod fall-back sizes its scales by floor division, without a check
    v = kvguard.check(qwen3_moe(W4A16), vllm_version=version, tp=4, host=H100)
    assert v.ok and "MI_model" not in skipped(v)


@pytest.mark.parametrize("version", ["0.24.0", "0.25.0", "0.26.0", "0.28.0", "0.33.0"])
def test_w4a16_experts_refuse_a_group_straddling_two_ranks_from_0_24(version):
    # 192 per rank at tp 4 is a group and a half of 128
    v = kvguard.check(qwen3_moe(W4A16), vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.wrapped_by) == (False, "model_init", "MI_ct_wna16_moe_group",
                                                                  "ValueError", None)
    assert v.message == CT_MOE_GROUP.format(192, 128)
    # tp 2: 384 per rank, three whole groups (and a Marlin tile)
    ok = kvguard.check(qwen3_moe(W4A16), vllm_version=version, tp=2, host=H100)
    assert ok.ok and "MI_model" not in skipped(ok)


def test_w4a16_experts_split_over_tp_x_dp_without_expert_parallel():
    # group 64: 192 per rank at tp 4 is three groups; -dp 8 without EP splits the experts 8 ways: 96 per rank,
    # a group and a half; with EP every rank keeps 768
    assert kvguard.check(qwen3_moe(w4a16(64)), vllm_version="0.28.0", tp=4, host=H100).ok
    v = kvguard.check(qwen3_moe(w4a16(64)), vllm_version="0.28.0", dp=8, host=H100)
    assert (v.check, v.message) == ("MI_ct_wna16_moe_group", CT_MOE_GROUP.format(96, 64))
    assert kvguard.check(qwen3_moe(w4a16(64)), vllm_version="0.28.0", dp=8, ep=True, host=H100).ok


def test_w4a16_moe_backend_names_are_checked_before_the_group_sizes():
    # 0.33.0, tp 4 (192 per rank, group 128): Marlin refuses the layer by name; Triton takes it, then create_weights
    # refuses the straddling group
    v = kvguard.check(qwen3_moe(W4A16), vllm_version="0.33.0", tp=4, host=H100, moe_backend="marlin")
    assert (v.check, v.exc_type, v.message) == (
        "MI_wna16_moe_backend_unsupported", "ValueError",
        "WNA16 MoE backend 'MARLIN' does not support the deployment configuration since Marlin not supported for this "
        "layer.")
    v = kvguard.check(qwen3_moe(W4A16), vllm_version="0.33.0", tp=4, host=H100, moe_backend="triton")
    assert (v.check, v.message) == ("MI_ct_wna16_moe_group", CT_MOE_GROUP.format(192, 128))
    # RDNA3 takes compressed-tensors checkpoints, but its kernel runs on ROCm gfx1100 only
    v = kvguard.check(qwen3_moe(W4A16), vllm_version="0.30.0", tp=2, host=H100, moe_backend="rdna3")
    assert (v.check, v.message) == (
        "MI_wna16_moe_backend_unsupported",
        "WNA16 MoE backend 'RDNA3' does not support the deployment configuration since kernel does not support "
        "current device cuda.")


def test_w4a16_experts_of_mixtral():
    # Mixtral-8x7B: 14336 / tp 32 = 448 per rank, 3.5 groups of 128; tp 16: 896, 7 groups
    c = model("mistralai/Mixtral-8x7B-v0.1", dict(W4A16, ignore=["lm_head", "re:.*block_sparse_moe.gate"]))
    v = kvguard.check(c, vllm_version="0.28.0", tp=32, host=BIG)
    assert (v.check, v.message) == ("MI_ct_wna16_moe_group", CT_MOE_GROUP.format(448, 128))
    assert kvguard.check(c, vllm_version="0.28.0", tp=16, host=BIG).ok
    assert kvguard.check(c, vllm_version="0.22.0", tp=32, host=BIG).ok


_FP8_ONLY = "EPLB is only supported for FP8 quantization for now."


@pytest.mark.parametrize("version,message", [
    ("0.11.0", _FP8_ONLY),
    ("0.11.1", "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod. " + _FP8_ONLY),
    ("0.14.1", "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod. " + _FP8_ONLY),
    ("0.20.0", "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod."),
    ("0.26.0", "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod."),
    # 0.27.0+: one method, whose supports_eplb holds only on TRITON; MARLIN takes 768 (HUMMING, ahead of it from
    # 0.32.0, is not TRITON either)
    ("0.27.0", "EPLB is not supported CompressedTensorsWNA16MoEMethod."),
    ("0.33.0", "EPLB is not supported CompressedTensorsWNA16MoEMethod."),
])
def test_w4a16_marlin_experts_with_eplb(version, message):
    # dp 8 with expert parallel: 128 experts over 8 ranks, every rank keeps 768 (a Marlin MoE tile); FusedMoE
    # refuses the method's missing EPLB support once it is built
    v = kvguard.check(qwen3_moe(W4A16), vllm_version=version, dp=8, ep=True, enable_eplb=True, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_eplb_unsupported", "NotImplementedError", message)


def test_w4a16_fall_back_experts_with_eplb():
    # MoE intermediate 800, group 32: 800 % 64 leaves the strict Marlin MoE tile (up to 0.24.0) ->
    # CompressedTensorsWNA16MoEMethod, which says it supports EPLB from 0.12.0 (not in 0.11.x)
    c = qwen3_moe(w4a16(32), moe_intermediate_size=800)
    v = kvguard.check(c, vllm_version="0.11.1", dp=8, ep=True, enable_eplb=True, host=H100)
    assert (v.check, v.message) == ("MI_eplb_unsupported",
                                    "EPLB is not supported CompressedTensorsWNA16MoEMethod. " + _FP8_ONLY)
    for version in ("0.12.0", "0.20.0", "0.24.0"):
        v = kvguard.check(c, vllm_version=version, dp=8, ep=True, enable_eplb=True, host=H100)
        assert v.ok and "MI_model" not in skipped(v), (version, v.skipped)


def test_w4a16_experts_with_eplb_on_the_triton_backend():
    # 0.28.0: --moe-backend triton -> the method supports EPLB; marlin does not
    v = kvguard.check(qwen3_moe(W4A16), vllm_version="0.28.0", dp=8, ep=True, enable_eplb=True, host=H100,
                      moe_backend="triton")
    assert v.ok and "MI_model" not in skipped(v)
    v = kvguard.check(qwen3_moe(W4A16), vllm_version="0.28.0", dp=8, ep=True, enable_eplb=True, host=H100,
                      moe_backend="marlin")
    assert (v.check, v.message) == ("MI_eplb_unsupported", "EPLB is not supported CompressedTensorsWNA16MoEMethod.")
    # MoE intermediate 800, group 128: 800 % 128 = 32, so even the padded Marlin tile refuses the layer. 0.28.0's
    # default order takes TRITON (EPLB supported), then create_weights refuses the straddling group
    c = qwen3_moe(W4A16, moe_intermediate_size=800)
    v = kvguard.check(c, vllm_version="0.28.0", dp=8, ep=True, enable_eplb=True, host=H100)
    assert (v.check, v.message) == ("MI_ct_wna16_moe_group", CT_MOE_GROUP.format(800, 128))
    # 0.33.0: HUMMING comes ahead of MARLIN and TRITON, and whether it takes the layer (no EPLB support) is not
    # modelled
    v = kvguard.check(c, vllm_version="0.33.0", dp=8, ep=True, enable_eplb=True, host=H100)
    assert v.check is None and "ahead of TRITON" in skipped(v)["MI_model"]


# DeepSeek-V3 / R1 (deepseek_v2.py): hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512 (+64 rope), three
# dense layers (intermediate 18432), 256 routed experts of 2048 and one shared expert (2048); the router gate is a
# ReplicatedLinear / GateLinear built with quant_config=None, the MLA projections, dense MLPs and shared experts take
# CompressedTensorsWNA16 (Marlin), the routed experts get_moe_method's WNA16 method.  MiniMax-M2.5 (minimax_m2.py,
# registered from 0.11.1; its config is read without repository code from Transformers 5, 0.24.0 here): hidden 3072,
# 48 / 8 heads of 128, 256 experts of 1536, no dense or shared layers, the gate built with quant_config=None.

def deepseek(q: dict, name: str = "deepseek-ai/DeepSeek-V3", **sizes) -> dict:
    return model(name, dict(q, ignore=["lm_head", "re:.*mlp.gate$"]), **sizes)


def minimax(q: dict, **sizes) -> dict:
    return model("MiniMaxAI/MiniMax-M2.5", dict(q, ignore=["lm_head", "re:.*block_sparse_moe.gate$"]), **sizes)


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.22.0", "0.24.0", "0.28.0", "0.33.0"])
def test_w4a16_on_deepseek_fits_at_tp16(version):
    # tp 16: o_proj 16384 / 16 = 1024 inputs, kv_b_proj 128 x 256 / 16 = 2048 outputs, the dense down_proj 1152
    # inputs (9 groups), the shared expert's 128, the routed experts 2048 / 16 = 128 per rank (a Marlin MoE tile)
    v = kvguard.check(deepseek(W4A16), vllm_version=version, tp=16, host=BIG)
    assert v.ok and "MI_model" not in skipped(v), (version, v.skipped)


@pytest.mark.parametrize("version, want", [("0.10.2", "ok"), ("0.22.0", "ok"), ("0.24.0", "MI_ct_wna16_moe_group"),
                                           ("0.28.0", "MI_ct_wna16_moe_group"), ("0.33.0", "MI_ct_wna16_moe_group")])
def test_w4a16_deepseek_experts_split_over_tp_x_dp(version, want):
    # tp 16 x dp 2 without expert parallel: the attention, dense and shared layers are split 16 ways (as at tp 16),
    # the routed experts 32 ways: 64 per rank, half a group of 128.  Up to 0.23.x the fall-back method checks no
    # size; from 0.24.0 its create_weights refuses (from 0.27.0 after TRITON takes the layer Marlin declines)
    v = kvguard.check(deepseek(W4A16), vllm_version=version, tp=16, dp=2, host=BIG)
    assert "MI_model" not in skipped(v)
    assert (v.check or "ok") == want
    if want != "ok":
        assert (v.stage, v.exc_type, v.message) == ("model_init", "ValueError", CT_MOE_GROUP.format(64, 128))


def test_deepseek_router_gate_is_not_quantized():
    # 72 routed experts: a gate output Marlin's 64-wide tile does not take; DeepSeek builds the gate unquantized,
    # so neither the ignore list nor the width matters (a quantized Qwen3-MoE gate would meet the kernel choice)
    c = deepseek(W4A16, n_routed_experts=72, n_group=1, topk_group=1)
    c["quantization_config"]["ignore"] = ["lm_head"]
    v = kvguard.check(c, vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "MI_model" not in skipped(v), v.skipped


@pytest.mark.parametrize("version, want", [
    # tp 8: 2048 / 8 = 256 per rank, a Marlin MoE tile
    ("0.22.0", "ok"),                              # no assert
    ("0.23.0", "MI_ct_wna16_moe_int8_group"),      # the Marlin MoE method asserts group_size -1 for 8 bits
    ("0.24.0", "skipped"),                         # the same assert, but 0.24.0 shares rule rows with 0.25.x
    ("0.26.0", "ok"),
    ("0.28.0", "MI_ct_wna16_moe_int8_group"),      # the one method asserts first
    ("0.33.0", "ok"),
])
def test_w8a16_on_deepseek_by_release(version, want):
    v = kvguard.check(deepseek(W8A16), vllm_version=version, tp=8, host=H100)
    if want == "skipped":
        assert v.ok and "8-bit group-size assert" in skipped(v)["MI_model"]
        return
    assert "MI_model" not in skipped(v)
    assert (v.check or "ok") == want
    if want != "ok":
        assert (v.exc_type, v.message) == ("AssertionError", "")


@pytest.mark.parametrize("version, message", [
    ("0.20.0", "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod."),
    ("0.28.0", "EPLB is not supported CompressedTensorsWNA16MoEMethod."),
])
def test_w4a16_on_deepseek_with_eplb(version, message):
    # tp 8 with expert parallel: 2048 per rank, the Marlin MoE method (0.27.0+: the one method on MARLIN)
    v = kvguard.check(deepseek(W4A16, name="deepseek-ai/DeepSeek-R1"), vllm_version=version, tp=8, ep=True,
                      enable_eplb=True, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_eplb_unsupported", "NotImplementedError", message)


def test_an_ignored_kv_a_proj_of_deepseek_v2_lite_is_decided():
    # DeepSeek-V2-Lite has no q LoRA: kv_a_proj_with_mqa is a ReplicatedLinear the model quantizes, looked up in the
    # ignore list as any layer (DeepSeek has no checkpoint-name mapper); the router gate's entry changes nothing (the
    # model never quantizes the gate).  tp 1, groups of 64: the dense intermediate 10944 is 171 groups (Marlin pads
    # its tile from 0.24.0)
    q = w4a16(64)
    c = model("deepseek-ai/DeepSeek-V2-Lite", dict(q, ignore=["lm_head", "re:.*kv_a_proj_with_mqa"]))
    v = kvguard.check(c, vllm_version="0.28.0", tp=1, host=H100)
    assert v.ok and "MI_model" not in skipped(v), v.skipped
    # a pattern vLLM's re.match cannot compile is left open
    c = model("deepseek-ai/DeepSeek-V2-Lite", dict(q, ignore=["lm_head", "re:.*kv_a_proj_with_mqa("]))
    v = kvguard.check(c, vllm_version="0.28.0", tp=1, host=H100)
    assert v.ok and "kv_a_proj_with_mqa" in skipped(v)["MI_model"]
    c = model("deepseek-ai/DeepSeek-V2-Lite", dict(q, ignore=["lm_head", "re:.*mlp.gate$"]))
    v = kvguard.check(c, vllm_version="0.28.0", tp=1, host=H100)
    assert v.ok and "MI_model" not in skipped(v), v.skipped


@pytest.mark.parametrize("version, tp8", [("0.24.0", "MI_ct_wna16_moe_group"), ("0.28.0", "MI_ct_wna16_moe_group"),
                                          ("0.33.0", "MI_ct_wna16_moe_group")])
def test_w4a16_on_minimax_m2(version, tp8):
    # tp 8: 1536 / 8 = 192 per rank, a group and a half of 128 (qkv 1024 outputs, o_proj 768 inputs: Marlin takes
    # them); tp 4: 384, three groups
    v = kvguard.check(minimax(W4A16), vllm_version=version, tp=8, host=H100)
    assert (v.check, v.exc_type, v.message) == (tp8, "ValueError", CT_MOE_GROUP.format(192, 128))
    v = kvguard.check(minimax(W4A16), vllm_version=version, tp=4, host=H100)
    assert v.ok and "MI_model" not in skipped(v), v.skipped


NO_TARGET = "Unable to find matching target for model.layers.0.self_attn.fused_qkv_a_proj in the compressed-tensors config."


@pytest.mark.parametrize("q", [W4A16, W8A16, FP8_DYNAMIC, FP8_BLOCK])
@pytest.mark.parametrize("version, refused", [("0.16.0", False), ("0.17.0", True), ("0.17.1", True),
                                              ("0.18.0", False)])
def test_deepseek_fused_qkv_a_proj_matches_no_target_in_0_17(q, version, refused):
    # 0.17.x builds fused_qkv_a_proj as DeepSeekV2FusedQkvAProj: "Linear" is not in the class name and matches neither
    # shard name (q_a_proj, kv_a_proj_with_mqa), so find_matched_target raises for the first layer's projection,
    # whatever the scheme; 0.16.0 builds a MergedColumnParallelLinear, 0.18.0 DeepSeekV2FusedQkvAProjLinear
    v = kvguard.check(deepseek(q), vllm_version=version, tp=8, host=H100)
    if refused:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (False, "model_init", "MI_ct_no_target",
                                                                   "ValueError", NO_TARGET)
    else:
        assert v.check != "MI_ct_no_target"


def test_deepseek_without_q_lora_has_no_fused_qkv_a_proj_in_0_17():
    # DeepSeek-V2-Lite (q_lora_rank null): q_proj and the replicated kv_a_proj_with_mqa, both matched by "Linear"
    c = model("deepseek-ai/DeepSeek-V2-Lite", dict(w4a16(64), ignore=["lm_head", "re:.*mlp.gate$"]))
    v = kvguard.check(c, vllm_version="0.17.1", tp=1, host=H100)
    assert v.check != "MI_ct_no_target"


def test_fp8_on_minimax_m2_stays_skipped():
    v = kvguard.check(minimax(FP8_DYNAMIC), vllm_version="0.28.0", tp=4, host=H100)
    assert v.ok and "compressed-tensors with MoE layers (MiniMaxM2ForCausalLM)" in skipped(v)["MI_model"]


def test_audit_of_w4a16_experts_counts_groups():
    # 768 = 6 groups of 128: tp 1 and 2 leave whole groups, tp 4 / 8 / 16 / 32 do not (tp 3 and 6 do not divide
    # the 32 heads)
    q = kvguard.audit(qwen3_moe(W4A16), tp=2, vllm_version="0.28.0").models[0].quantization
    assert [f["tp"] for f in q["forbidden_tp"]] == [4, 8, 16, 32]
    assert q["rules"] == ["compressed-tensors integer-weight MoE: MoE intermediate size 768 (6 groups of 128) split "
                          "over the MoE TP size must leave whole groups per rank: refused at tp 4, 8, 16, 32"]


@pytest.mark.parametrize("version, tp2, tp4", [
    # W8A16 group 128; tp 2: 384 per rank (Marlin takes it), tp 4: 192 (only the fall-back up to 0.26.x)
    ("0.22.0", "ok", "ok"),                                   # no assert, no size check
    ("0.23.0", "MI_ct_wna16_moe_int8_group", "ok"),           # the Marlin method asserts; the fall-back checks nothing
    ("0.24.0", "skipped", "MI_ct_wna16_moe_group"),            # (its assert shares rule rows with 0.25.x: skipped)
    ("0.26.0", "ok", "MI_ct_wna16_moe_group"),                # the assert is gone in 0.25.0-0.26.x
    ("0.28.0", "MI_ct_wna16_moe_int8_group", "MI_ct_wna16_moe_int8_group"),  # one method, assert first
    ("0.33.0", "ok", "MI_ct_wna16_moe_group"),
])
def test_w8a16_experts_by_release(version, tp2, tp4):
    for tp, want in ((2, tp2), (4, tp4)):
        v = kvguard.check(qwen3_moe(W8A16), vllm_version=version, tp=tp, host=H100)
        if want == "skipped":
            assert v.ok and "8-bit group-size assert" in skipped(v)["MI_model"]
            continue
        assert "MI_model" not in skipped(v)
        assert (v.check or "ok") == want
        if want == "MI_ct_wna16_moe_int8_group":
            assert (v.exc_type, v.message) == ("AssertionError", "")


#: llm-compressor's NVFP4 preset (RedHatAI/Qwen3-8B-NVFP4, RedHatAI/Llama-3.3-70B-Instruct-NVFP4: FP4 weights and
#: activations in groups of 16 with a global scale, activations dynamic "local") and its weight-only NVFP4A16 form
_FP4 = {"num_bits": 4, "strategy": "tensor_group", "group_size": 16}
NVFP4 = quant(_args(**_FP4), _args(**_FP4, dynamic="local"), "nvfp4-pack-quantized")
NVFP4A16 = quant(_args(**_FP4), None, "nvfp4-pack-quantized")


@pytest.mark.parametrize("q", [NVFP4, NVFP4A16], ids=["w4a4", "w4a16"])
@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.16.0", "0.20.0", "0.23.0", "0.28.0", "0.33.0"])
def test_nvfp4_has_no_shape_check_on_compute_capability_90(q, version):
    # Qwen2.5-72B: intermediate 29568 / tp 16 = 1848 input features per rank in down_proj (115.5 groups of 16); no FP4
    # CUTLASS on 9.0, the FP4 Marlin path (the W4A16 FP4 scheme up to 0.15.x) checks no size while it is built
    v = kvguard.check(model("Qwen/Qwen2.5-72B-Instruct", q), vllm_version=version, tp=16, host=BIG)
    assert v.ok and "MI_model" not in skipped(v)


def test_nvfp4_audit_states_the_host_kernel_choice():
    q = kvguard.audit(model("Qwen/Qwen2.5-72B-Instruct", NVFP4), tp=8, vllm_version="0.28.0").models[0].quantization
    assert q["forbidden_tp"] == []
    assert any(a.startswith("compressed-tensors NVFP4 on an H100-class GPU") for a in q["assumptions"])


def test_nvfp4_contrasts_with_modelopt_nvfp4():
    # the same layout with ModelOpt's NVFP4 export: its linear method refuses 1848 input features per rank
    c = model("Qwen/Qwen2.5-72B-Instruct", {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
                                            "ignore": ["lm_head"], "kv_cache_scheme": None,
                                            "producer": {"name": "modelopt", "version": "0.29.0"}})
    v = kvguard.check(c, vllm_version="0.20.0", tp=16, host=BIG)
    assert (v.ok, v.check, v.message) == (False, "MI_nvfp4_input",
                                          "Unsupported model when in features size is not multiple of 16")


def test_nvfp4_reads_the_scheme_for_compute_capability_90_only():
    other = kvguard.check(llama(NVFP4), vllm_version="0.28.0", tp=8,
                          host=kvguard.Host(**{**H100.__dict__, "gpu_capability": 100}))
    assert other.ok and "compressed-tensors" in skipped(other)["MI_model"]


def mixtral(q: dict, **sizes) -> dict:
    return model("mistralai/Mixtral-8x7B-v0.1", dict(q, ignore=["lm_head", "re:.*block_sparse_moe.gate"]), **sizes)


@pytest.mark.parametrize("q", [NVFP4, NVFP4A16], ids=["w4a4", "w4a16"])
@pytest.mark.parametrize("version", ["0.14.0", "0.14.1", "0.15.0", "0.15.1", "0.16.0", "0.17.0", "0.17.1", "0.18.1",
                                     "0.19.1", "0.20.0", "0.23.0", "0.24.0", "0.25.1", "0.28.0", "0.32.0", "0.33.0"])
@pytest.mark.parametrize("tp", [4, 8])
def test_nvfp4_experts_are_accepted(q, version, tp):
    # compressed_tensors_moe.py 0.14.x-0.19.x, compressed_tensors_moe_w4a4_nvfp4.py 0.20.0-0.33.0:
    # CompressedTensorsW4A4Nvfp4MoEMethod picks FP4 Marlin on compute capability 9.0 (0.14.x: select_nvfp4_moe_backend()
    # or, weight-only, its own Marlin probe; 0.15.0+: the priority list of select_nvfp4_moe_backend, whose FlashInfer
    # TRT-LLM entry 0.17.0-0.19.x import with flashinfer) and its create_weights floor-divides 768 / tp (192, 96 per
    # rank) by 2 and 16 without a check
    for cfg in (qwen3_moe(q), mixtral(q, intermediate_size=1000)):
        v = kvguard.check(cfg, vllm_version=version, tp=tp, host=H100)
        assert v.ok and "MI_model" not in skipped(v), (version, skipped(v))


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0"])
@pytest.mark.parametrize("tp", [1, 4, 8])
def test_nvfp4_w4a4_experts_before_0_14_are_accepted(version, tp):
    # CompressedTensorsW4A4MoeMethod (0.12.0+: CompressedTensorsW4A4Nvfp4MoEMethod): detect_nvfp4_moe_support answers
    # Marlin on 9.0 (no FP4 CUTLASS), create_weights floor-divides 768 / tp and 1000 / tp without a check
    for cfg in (qwen3_moe(NVFP4), mixtral(NVFP4, intermediate_size=1000)):
        v = kvguard.check(cfg, vllm_version=version, tp=tp, host=H100)
        assert v.ok and "MI_model" not in skipped(v), (version, skipped(v))


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0"])
@pytest.mark.parametrize("tp", [1, 4, 8])
def test_nvfp4a16_experts_before_0_14_are_refused(version, tp):
    # get_moe_method: no wNa16 (tensor_group weights), no W4A4 (no activations), no FP8 W8A8 (no activations), then
    # _is_dynamic_token_w8a8 reads None.num_bits
    for cfg in (qwen3_moe(NVFP4A16), mixtral(NVFP4A16)):
        v = kvguard.check(cfg, vllm_version=version, tp=tp, host=H100)
        assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
            False, "model_init", "MI_ct_nvfp4a16_moe", "AttributeError", "'NoneType' object has no attribute 'num_bits'",
            None)


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0"])
def test_nvfp4a16_experts_refusal_comes_after_the_intermediate_assert_and_before_eplb(version):
    # Mixtral's intermediate 1000 over tp 16: 1000 % 16 = 8, FusedMoE asserts before it asks for the method
    v = kvguard.check(mixtral(NVFP4A16, intermediate_size=1000), vllm_version=version, tp=16, host=BIG)
    assert (v.check, v.exc_type, v.message) == ("MI_moe_intermediate", "AssertionError", "")
    # with EPLB the method is looked up (and fails) before FusedMoE's EPLB check
    v = kvguard.check(qwen3_moe(NVFP4A16), vllm_version=version, tp=1, dp=8, enable_expert_parallel=True,
                      enable_eplb=True, host=H100)
    assert (v.check, v.exc_type) == ("MI_ct_nvfp4a16_moe", "AttributeError")


@pytest.mark.parametrize("q", [NVFP4, NVFP4A16], ids=["w4a4", "w4a16"])
@pytest.mark.parametrize("version, message", [
    ("0.10.2", "EPLB is only supported for FP8 quantization for now."),
    ("0.11.0", "EPLB is only supported for FP8 quantization for now."),
    ("0.11.1", "EPLB is not supported CompressedTensorsW4A4MoeMethod. EPLB is only supported for FP8 quantization for "
               "now."),
    ("0.11.2", "EPLB is not supported CompressedTensorsW4A4MoeMethod. EPLB is only supported for FP8 quantization for "
               "now."),
    ("0.12.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod. EPLB is only supported for FP8 quantization "
               "for now."),
    ("0.14.1", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod. EPLB is only supported for FP8 quantization "
               "for now."),
    ("0.15.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.17.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.19.1", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.20.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.24.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.27.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.28.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
    ("0.33.0", "EPLB is not supported CompressedTensorsW4A4Nvfp4MoEMethod."),
])
def test_nvfp4_experts_refuse_eplb(q, version, message):
    # up to 0.11.0 FusedMoE takes EPLB with the FP8 method only; from 0.11.1 supports_eplb (the base's False up to
    # 0.27.x, then only the FlashInfer backends, _EPLB_SUPPORTED_NVFP4_BACKENDS); FusedMoE (0.24.0+ RoutedExperts)
    # raises after the method is built.  The weight-only form up to 0.13.x fails earlier (the test above)
    if q is NVFP4A16 and version < "0.14":
        return
    v = kvguard.check(qwen3_moe(q), vllm_version=version, tp=1, dp=8, enable_expert_parallel=True, enable_eplb=True,
                      host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (False, "MI_eplb_unsupported", "NotImplementedError", message)


@given(version=st.sampled_from(["0.10.2", "0.11.1", "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.17.0", "0.19.1",
                                "0.33.0"]),
       tp=st.sampled_from([1, 2, 4, 8, 16]), inter=st.integers(16, 20000), weight_only=st.booleans())
def test_nvfp4_experts_refuse_only_an_indivisible_intermediate_or_the_early_weight_only_form(version, tp, inter,
                                                                                            weight_only):
    # Mixtral (32 heads, 8 KV heads): no NVFP4 expert size check in any release; FusedMoE's assert on the MoE TP size
    # first, then (up to 0.13.x) the weight-only form's AttributeError
    v = kvguard.check(mixtral(NVFP4A16 if weight_only else NVFP4, intermediate_size=inter), vllm_version=version, tp=tp,
                      host=BIG)
    if inter % tp != 0:
        assert v.check == "MI_moe_intermediate"
    elif weight_only and version < "0.14":
        assert v.check == "MI_ct_nvfp4a16_moe"
    else:
        assert v.ok and "MI_model" not in skipped(v), skipped(v)


def test_nvfp4_experts_on_deepseek_are_skipped():
    v = kvguard.check(model("deepseek-ai/DeepSeek-V3", dict(NVFP4, ignore=["lm_head", "re:.*mlp.gate$"])),
                      vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and skipped(v)["MI_model"] == ("compressed-tensors NVFP4 weights on the MoE experts of the deepseek_v2 "
                                               "family are not modelled")


@pytest.mark.parametrize("extra, env, reason", [
    ({"moe_backend": "marlin"}, {}, "--moe-backend marlin with compressed-tensors NVFP4 experts"),
    ({"all2all_backend": "deepep_low_latency"}, {}, "--all2all-backend deepep_low_latency with compressed-tensors"),
    ({}, {"VLLM_MARLIN_INPUT_DTYPE": "fp8"}, "VLLM_MARLIN_INPUT_DTYPE changes the NVFP4 MoE backend selection"),
    ({}, {"VLLM_TEST_FORCE_FP8_MARLIN": "1"}, "VLLM_TEST_FORCE_FP8_MARLIN changes the NVFP4 MoE backend selection"),
])
def test_nvfp4_experts_with_a_named_backend_or_env_are_skipped(extra, env, reason):
    v = kvguard.check(qwen3_moe(NVFP4), vllm_version="0.28.0", tp=4, host=H100, env=env, **extra)
    assert v.ok and reason in skipped(v)["MI_model"], skipped(v)


@pytest.mark.parametrize("change", [
    lambda w, a: a.update(num_bits=8, strategy="group", group_size=128, dynamic=True),  # group-wise FP8
    lambda w, a: a.update(num_bits=8, type="int", strategy="token", dynamic=True, group_size=None),  # INT8
    lambda w, a: a.update(dynamic=True),
    lambda w, a: w.update(group_size=32),
])
def test_nvfp4_forms_kvguard_does_not_read_are_skipped(change):
    q = copy.deepcopy(NVFP4)
    group = q["config_groups"]["group_0"]
    change(group["weights"], group["input_activations"])
    v = kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "not modelled" in skipped(v)["MI_model"]


@pytest.mark.parametrize("version, decided", [("0.10.2", False), ("0.13.0", False), ("0.14.1", True),
                                              ("0.33.0", True)])
def test_scale_dtype_fields_are_read_from_0_14(version, decided):
    # compressed-tensors 0.11.0 / 0.12.2 (pinned by 0.10.2-0.13.x) forbid QuantizationArgs' scale_dtype / zp_dtype:
    # vLLM refuses with a pydantic message that names the host's pydantic version (undecidable, never accepted)
    q = copy.deepcopy(NVFP4)
    for args in (q["config_groups"]["group_0"]["weights"], q["config_groups"]["group_0"]["input_activations"]):
        args.update(scale_dtype="torch.float8_e4m3fn", zp_dtype=None)
    if not decided:
        with pytest.raises(kvguard.Undecidable, match=r"refuses this compressed-tensors checkpoint: .* field\(s\) "
                                                       r"scale_dtype / zp_dtype"):
            kvguard.check(llama(q), vllm_version=version, tp=8, host=H100)
        return
    v = kvguard.check(llama(q), vllm_version=version, tp=8, host=H100)
    assert v.ok and "MI_model" not in skipped(v)


@pytest.mark.parametrize("where", ["weights", "input_activations"])
def test_one_forbidden_field_in_any_group_is_enough(where):
    # a second config group (a form kvguard's construction does not read) still meets the pinned package first
    q = copy.deepcopy(NVFP4)
    q["config_groups"]["group_1"] = copy.deepcopy(q["config_groups"]["group_0"])
    q["config_groups"]["group_1"]["targets"] = ["re:.*down_proj"]
    q["config_groups"]["group_1"][where]["zp_dtype"] = None
    with pytest.raises(kvguard.Undecidable, match=r"field\(s\) zp_dtype \("):
        kvguard.check(llama(q), vllm_version="0.12.0", tp=8, host=H100)
    v = kvguard.check(llama(q), vllm_version="0.14.1", tp=8, host=H100)
    assert v.ok  # read from 0.14.0 (the two groups themselves are not modelled: skipped, not refused)


def test_the_cli_exits_2_on_a_forbidden_field(tmp_path):
    import json
    import subprocess
    import sys

    q = copy.deepcopy(NVFP4)
    q["config_groups"]["group_0"]["weights"]["scale_dtype"] = "torch.float8_e4m3fn"
    (tmp_path / "config.json").write_text(json.dumps(llama(q)))
    run = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.11.0", "--", "vllm", "serve",
                          str(tmp_path), "-tp", "4"], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert "cannot decide: vLLM 0.11.0 refuses this compressed-tensors checkpoint" in run.stderr


def test_nvfp4_experts_audit_states_the_moe_backend():
    q = kvguard.audit(qwen3_moe(NVFP4), tp=4, vllm_version="0.28.0").models[0].quantization
    assert q["forbidden_tp"] == []
    assert any(a.startswith("the NVFP4 MoE backend of an H100-class GPU for compressed-tensors experts")
               for a in q["assumptions"])


#: NVFP4 weights with FP8 input activations: llm-compressor's FP8_DYNAMIC activations (dynamic per-token) and its FP8
#: ones (static per-tensor) beside the NVFP4 preset's weights
NVFP4_FP8_DYNAMIC = quant(_args(**_FP4), _args(strategy="token", dynamic=True, observer=None), "nvfp4-pack-quantized")
NVFP4_FP8_STATIC = quant(_args(**_FP4), _args(strategy="tensor"), "nvfp4-pack-quantized")
#: the releases' messages, copied from compressed_tensors.py (_get_scheme_from_parts): the bare NotImplementedError
#: up to 0.22.x; 0.23.0-0.28.0 a ValueError of two arguments (str() is the tuple's repr); 0.29.0+ one argument
NO_SCHEME = "No compressed-tensors compatible scheme was found."
NVFP4_ACT_TUPLE = "('For NVFP4 weights, input quantization must also be NVFP4 format, ', 'None for NVFP4A16')"
NVFP4_ACT = "For NVFP4 weights, input quantization must also be NVFP4 format, None for NVFP4A16"


@pytest.mark.parametrize("q", [NVFP4_FP8_DYNAMIC, NVFP4_FP8_STATIC], ids=["fp8-dynamic", "fp8-static"])
@pytest.mark.parametrize("version, exc, message", [
    ("0.10.2", "NotImplementedError", NO_SCHEME), ("0.11.1", "NotImplementedError", NO_SCHEME),
    ("0.12.0", "NotImplementedError", NO_SCHEME), ("0.14.1", "NotImplementedError", NO_SCHEME),
    ("0.17.1", "NotImplementedError", NO_SCHEME), ("0.22.1", "NotImplementedError", NO_SCHEME),
    ("0.23.0", "ValueError", NVFP4_ACT_TUPLE), ("0.24.0", "ValueError", NVFP4_ACT_TUPLE),
    ("0.27.0", "ValueError", NVFP4_ACT_TUPLE), ("0.28.0", "ValueError", NVFP4_ACT_TUPLE),
    ("0.29.0", "ValueError", NVFP4_ACT), ("0.31.0", "ValueError", NVFP4_ACT), ("0.33.0", "ValueError", NVFP4_ACT),
])
def test_nvfp4_weights_with_fp8_activations_are_refused_at_the_first_linear(q, version, exc, message):
    # no scheme takes tensor_group FP4 weights beside FP8 activations; from 0.23.0 the NVFP4 branch refuses them
    # itself.  Llama-3.1-8B at tp 8: the attention's qkv_proj (layer 0) is the first layer get_quant_method sees
    v = kvguard.check(llama(q), vllm_version=version, tp=8, host=H100)
    check = "MI_ct_no_scheme" if exc == "NotImplementedError" else "MI_ct_nvfp4_activations"
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (False, "model_init", check, exc,
                                                                            message, None)


@pytest.mark.parametrize("activations", [
    {"strategy": "tensor", "dynamic": True, "observer": None},
    {"strategy": "tensor", "symmetric": False},
    {"strategy": "token", "dynamic": True, "observer": None, "symmetric": False},
])
@pytest.mark.parametrize("version, exc", [("0.11.0", "NotImplementedError"), ("0.20.0", "NotImplementedError"),
                                          ("0.28.0", "ValueError"), ("0.30.0", "ValueError")])
def test_nvfp4_weights_with_other_fp8_activation_forms_are_refused_alike(activations, version, exc):
    v = kvguard.check(llama(quant(_args(**_FP4), _args(**activations), "nvfp4-pack-quantized")),
                      vllm_version=version, tp=4, host=H100)
    assert (v.ok, v.exc_type) == (False, exc)
    assert v.message == {"0.11.0": NO_SCHEME, "0.20.0": NO_SCHEME, "0.28.0": NVFP4_ACT_TUPLE,
                         "0.30.0": NVFP4_ACT}[version]


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_nvfp4_fp8_refusal_comes_before_the_experts(version):
    # Qwen3-30B-A3B and Mixtral build layer 0's attention before its experts: the experts' method (and its EPLB
    # support check) is never reached
    for c in (qwen3_moe(NVFP4_FP8_DYNAMIC), mixtral(NVFP4_FP8_STATIC)):
        v = kvguard.check(c, vllm_version=version, dp=8, ep=True, enable_eplb=True, host=H100)
        assert (v.check, v.exc_type) == ("MI_ct_nvfp4_activations", "ValueError")


@pytest.mark.parametrize("weights, fmt", [(_args(**_FP4), "nvfp4-pack-quantized"), (_args(), "float-quantized"),
                                          (_args(type="int"), "int-quantized")], ids=["nvfp4", "fp8", "int8"])
@pytest.mark.parametrize("version", ["0.14.1", "0.24.0", "0.33.0"])
def test_static_per_token_activations_make_the_launch_undecidable_from_0_14(weights, fmt, version):
    # the compressed-tensors package of 0.14.0+ refuses static per-token quantization while VllmConfig is built
    # ("Cannot perform static token quantization, please use `dynamic=True`", a pydantic message naming the host's
    # pydantic version): never accepted, never a made-up message
    act = _args(type=weights["type"] if weights["num_bits"] == 8 else "float", strategy="token")
    with pytest.raises(kvguard.Undecidable, match="refuses static per-token quantization"):
        kvguard.check(llama(quant(weights, act, fmt)), vllm_version=version, tp=4, host=H100)


def test_static_per_token_fp8_activations_beside_nvfp4_weights_up_to_0_13():
    # the packages of 0.10.2-0.13.x take them: no scheme takes the NVFP4 weights, as with the other FP8 forms
    q = quant(_args(**_FP4), _args(strategy="token"), "nvfp4-pack-quantized")
    for version in ("0.10.2", "0.13.0"):
        v = kvguard.check(llama(q), vllm_version=version, tp=4, host=H100)
        assert (v.check, v.exc_type, v.message) == ("MI_ct_no_scheme", "NotImplementedError", NO_SCHEME)


def test_nvfp4_fp8_cases_kvguard_leaves_open():
    # an ignore list whose layer paths the model's mapper rewrites (0.25.0+): the first quantized layer is not decided
    q = dict(NVFP4_FP8_DYNAMIC, ignore=["lm_head", "model.layers.0.self_attn.k_proj"])
    v = kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "ignore list" in skipped(v)["MI_model"]
    # a pattern the mapper leaves alone that clears the attention: the first quantized layer is gate_up_proj
    q = dict(NVFP4_FP8_DYNAMIC, ignore=["lm_head", "re:.*self_attn.*"])
    assert kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100).check == "MI_ct_nvfp4_activations"
    # DeepSeek's first quantized layers are the MLA projections: not walked for this refusal
    v = kvguard.check(model("deepseek-ai/DeepSeek-V3", dict(NVFP4_FP8_DYNAMIC, ignore=["lm_head", "re:.*mlp.gate$"])),
                      vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and "FP8 activations on DeepSeek" in skipped(v)["MI_model"]
    # an ignore list that clears the attention still reaches layer 0's qkv_proj
    q = dict(NVFP4_FP8_STATIC, ignore=["lm_head", "re:.*down_proj"])
    assert kvguard.check(llama(q), vllm_version="0.28.0", tp=8, host=H100).check == "MI_ct_nvfp4_activations"


@given(tp=st.sampled_from([1, 2, 4, 8, 16, 32]), inter=st.integers(1, 60000),
       version=st.sampled_from(["0.23.0", "0.26.0", "0.28.0", "0.29.0", "0.33.0"]))
def test_nvfp4_fp8_refusal_ignores_the_mlp_sizes(tp, inter, version):
    # the refusal is at qkv_proj, before gate_up_proj's sharding assert: any intermediate size gives the same verdict
    v = kvguard.check(llama(NVFP4_FP8_STATIC, intermediate_size=inter), vllm_version=version, tp=tp, host=BIG)
    want = NVFP4_ACT_TUPLE if version in ("0.23.0", "0.26.0", "0.28.0") else NVFP4_ACT
    assert (v.check, v.exc_type, v.message) == ("MI_ct_nvfp4_activations", "ValueError", want)


# --- the ignore list (compressed_tensors/utils.py should_ignore_layer; 0.30.0+ utils/config_utils.py
# find_matching_patterns): an entry is a name compared whole or an `re:` pattern matched at the start; a fused layer
# (qkv_proj, gate_up_proj) is matched through its shards, which must agree (ValueError), unless its own name is listed
# verbatim (up to 0.29.x) or matches any entry (0.30.0+).  Messages as each release words them.
FUSED_OLD = ("Found a different quantization schemes for ['q_proj', 'k_proj', 'v_proj'] in "
             "model.layers.0.self_attn.qkv_proj. vLLM requires all to use the same scheme.")
FUSED_NEW = ("Found different quantization schemes for the shards of model.layers.0.self_attn.qkv_proj. vLLM "
             "requires all to use the same scheme.")


@pytest.mark.parametrize(("version", "ignore", "want"), [
    ("0.20.0", ["lm_head", "model.layers.0.self_attn.q_proj"], FUSED_OLD),   # no mapper before 0.25.0
    ("0.11.0", ["lm_head", "re:.*self_attn.q_proj"], FUSED_OLD),
    ("0.29.0", ["lm_head", "re:.*qkv_proj", "re:.*self_attn.q_proj"], FUSED_OLD),  # the fused name: verbatim only
    ("0.30.0", ["lm_head", "re:.*self_attn.q_proj"], FUSED_NEW),
    ("0.33.0", ["re:model[.]layers[.]0[.]self_attn[.][qk]_proj$"], FUSED_NEW),
])
def test_an_ignore_list_naming_some_shards_of_a_fused_layer_is_a_value_error(version, ignore, want):
    v = kvguard.check(llama(dict(W4A16, ignore=ignore)), vllm_version=version, tp=8, host=H100)
    assert (v.check, v.exc_type, v.stage, v.message) == ("MI_ct_fused_ignore", "ValueError", "model_init", want)


@pytest.mark.parametrize(("version", "ignore"), [
    ("0.30.0", ["lm_head", "re:.*qkv_proj", "re:.*self_attn.q_proj"]),     # 0.30.0+: the fused name matches first
    ("0.20.0", ["lm_head", "model.layers.0.self_attn.qkv_proj", "model.layers.0.self_attn.q_proj"]),
    ("0.20.0", ["lm_head", "re:.*self_attn.*", "re:.*mlp.*"]),              # every linear layer left unquantized
    ("0.33.0", ["lm_head", "re:.*proj"]),
    ("0.24.0", ["lm_head", "re:.*self_attn.[qkv]_proj", "re:.*down_proj"]),
])
def test_an_ignore_list_that_names_whole_layers_is_decided(version, ignore):
    v = kvguard.check(llama(dict(W4A16, ignore=ignore)), vllm_version=version, tp=8, host=H100)
    assert v.ok and "MI_model" not in skipped(v)


def test_a_pattern_is_matched_at_the_start_of_the_layer_name():
    # FP8_BLOCK Qwen2.5-72B at -tp 8: gate_up_proj's 3696 outputs per rank refuse when it is quantized
    # (tests/cases/*/mi-ct-qwen25-72b-fp8-block-tp8.json); re.match anchors at the start, so `re:mlp` names no layer
    # (every name starts with model.layers.) and `re:.*mlp.*` names the MLP, which is then built unquantized
    base = "Qwen/Qwen2.5-72B-Instruct"      # intermediate 29568 (the AWQ export's is 29696)
    refused = kvguard.check(model(base, dict(FP8_BLOCK, ignore=["lm_head", "re:mlp"])), vllm_version="0.33.0", tp=8,
                            host=H100)
    assert (refused.check, refused.message) == (
        "MI_fp8_block_n", "Weight output_partition_size = 3696 is not divisible by weight quantization block_n = 128.")
    accepted = kvguard.check(model(base, dict(FP8_BLOCK, ignore=["lm_head", "re:.*mlp.*"])), vllm_version="0.33.0",
                             tp=8, host=H100)
    assert accepted.ok and "MI_model" not in skipped(accepted)


def test_block_fp8_reaching_the_experts_first_on_0_10_2_is_skipped():
    # 0.10.2 finds no scheme for block weights; with the attention ignored, Qwen3-MoE's first quantized layer is
    # layer 0's experts (qwen3_moe.py builds FusedMoE before the router gate), whose MoE method raises a RuntimeError
    # printing the scheme's fields: skipped, not an internal error nor the FP8 MoE method's refusal
    cfg = model("Qwen/Qwen3-30B-A3B", dict(FP8_BLOCK, ignore=["lm_head", "re:.*self_attn.*"]))
    verdict = kvguard.check(cfg, vllm_version="0.10.2", tp=1, host=H100)
    assert verdict.ok and "MI_model" in skipped(verdict)
    assert any("the experts model.layers.0.mlp.experts, which no linear layer met first" in s.reason
               for s in verdict.skipped)
