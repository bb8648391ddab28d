"""Model construction (kvguard.quant): block-FP8 weight shards, sharding, EP/EPLB, host facts, audit, plan.

Expected values are worked out by hand from the catalog configs (sizes quoted in each test) and
vLLM's messages; the differential tier (tests/upstream/test_quant.py) and the golden cases
(tests/cases/*/mi-*.json) compare with the releases themselves.
"""

from __future__ import annotations

import copy
import json

import pytest

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

H100 = kvguard.Host.cuda_node()          # stated: capability 90, Triton
BIG = kvguard.Host.cuda_node(gpus_per_node=64)


def cfg(name: str) -> dict:
    return copy.deepcopy(catalog.lookup(name).config)


def test_dsv3_tp32_merged_exemption_boundary():
    # DeepSeek-V3: intermediate_size 18432, tp 32 -> 576 per rank; 576 % 128 = 64
    old = kvguard.check(cfg("deepseek-ai/DeepSeek-V3"), vllm_version="0.13.0", tp=32, host=BIG)
    assert (old.ok, old.stage, old.exc_type, old.wrapped_by) == (False, "model_init", "ValueError", None)
    assert old.message == "Weight output_partition_size = 576 is not divisible by weight quantization block_n = 128."
    new = kvguard.check(cfg("deepseek-ai/DeepSeek-V3"), vllm_version="0.14.0", tp=32, host=BIG)
    assert new.message == "Weight input_size_per_partition = 576 is not divisible by weight quantization block_k = 128."
    assert new.check == "MI_fp8_block_k"


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.28.0", "0.28.0+pr55030"])
def test_qwen3_235b_fp8_tp8_refused_up_to_0_28(version):
    # moe_intermediate_size 1536 / tp 8 = 192; 192 % 128 = 64
    v = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=8, host=H100)
    assert (v.ok, v.check, v.exc_type) == (False, "MI_fp8_moe_block_n", "ValueError")
    assert v.message == ("The output_size of gate's and up's weight = 192 is not divisible by weight quantization "
                         "block_n = 128.")


@pytest.mark.parametrize("version", ["0.29.0", "0.30.0", "0.33.0", "0.33.0+pr55030"])
def test_qwen3_235b_fp8_tp8_refined_from_0_29_on_h100(version):
    # gcd(128, 128, 192, hidden 4096) = 64 >= 32: refined, Triton serves it on sm_90
    v = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=8, host=H100)
    assert v.ok and v.skipped == () and v.assumptions == ()
    assumed = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=8,
                            host=kvguard.Host.standard())
    assert assumed.ok and "gpu_capability=90" in assumed.assumptions
    unknown = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=8,
                            host=kvguard.Host(platform="cuda", gpus_per_node=8, ray=True, triton=True))
    # without the compute capability VllmConfig's quantization checks (minimum capability, the dtype --dtype auto
    # ends with) are not decided either
    assert unknown.ok and [s.check for s in unknown.skipped] == ["VC_quant_act_dtype", "MI_model"]
    other = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=8,
                          host=kvguard.Host(**{**H100.__dict__, "gpu_capability": 100}))
    assert other.ok and [s.check for s in other.skipped] == ["MI_model"]


def test_tp4_divides_the_twelve_blocks():
    for version in ("0.10.2", "0.28.0", "0.33.0"):
        assert kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version=version, tp=4, host=H100).ok


def test_data_parallel_splits_experts_without_expert_parallel():
    # Qwen3-30B-A3B-FP8: moe_intermediate_size 768; -dp 8 without EP: 768 / 8 = 96
    v = kvguard.check(cfg("Qwen/Qwen3-30B-A3B-FP8"), vllm_version="0.28.0", dp=8, host=H100)
    assert v.message == ("The output_size of gate's and up's weight = 96 is not divisible by weight quantization "
                         "block_n = 128.")
    assert kvguard.check(cfg("Qwen/Qwen3-30B-A3B-FP8"), vllm_version="0.28.0", dp=8, ep=True, host=H100).ok
    # 0.29.0+: gcd(128, 128, 96, 2048) = 32: refined
    assert kvguard.check(cfg("Qwen/Qwen3-30B-A3B-FP8"), vllm_version="0.33.0", dp=8, host=H100).ok


def test_moe_block_k_needs_a_tp_group():
    # block [128, 64]: per-partition 192 is a multiple of block_n? no -> use [64, 128]: 192 % 64 == 0 (block_n
    # passes), 192 % 128 != 0 (block_k) refuses only when the TP group itself is larger than 1
    c = cfg("Qwen/Qwen3-235B-A22B-FP8")
    c["quantization_config"] = dict(c["quantization_config"], weight_block_size=[64, 128])
    tp8 = kvguard.check(c, vllm_version="0.28.0", tp=8, host=H100)
    assert tp8.message == ("The input_size of down's weight = 192 is not divisible by weight quantization "
                           "block_k = 128.")
    dp8 = kvguard.check(c, vllm_version="0.28.0", dp=8, host=H100)   # TP group of 1: block_k not checked
    assert dp8.ok


@pytest.mark.parametrize(("version", "exc", "message"), [
    ("0.21.0", "AssertionError", "EPLB currently only supports even distribution of experts across ranks."),
    ("0.22.0", "ValueError", "EPLB currently only supports even distribution of experts across ranks. Got 256 experts "
                             "and 5 EP ranks."),
])
def test_eplb_even_distribution(version, exc, message):
    v = kvguard.check(cfg("deepseek-ai/DeepSeek-V3"), vllm_version=version, dp=5, ep=True, enable_eplb=True,
                      host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (False, "model_init", "MI_eplb_even", exc,
                                                                             message, None)


def test_eplb_counts_redundant_experts_from_the_eplb_config():
    release = resolve("0.28.0")
    argv = ["vllm", "serve", "m", "-dp", "8", "--enable-expert-parallel", "--enable-eplb",
            "--eplb-config", '{"num_redundant_experts": 4}']
    fields = parse_serve(argv, release).fields
    assert fields["num_redundant_experts"] == 4
    v = kvguard.check(cfg("deepseek-ai/DeepSeek-V3"), vllm_version="0.28.0", host=H100, **fields)
    assert v.message.endswith("Got 260 experts and 8 EP ranks.")      # 256 + 4 over 8
    dotted = parse_serve(["vllm", "serve", "m", "--eplb-config.num_redundant_experts", "32"], release).fields
    assert dotted["num_redundant_experts"] == 32
    fields32 = dict(fields, num_redundant_experts=32)                  # 288 / 8 = 36
    assert kvguard.check(cfg("deepseek-ai/DeepSeek-V3"), vllm_version="0.28.0", host=H100, **fields32).ok


def test_deprecated_redundant_flag_wins_up_to_0_11_2():
    argv = ["vllm", "serve", "m", "--eplb-config", '{"num_redundant_experts": 4}', "--num-redundant-experts", "8"]
    assert parse_serve(argv, resolve("0.11.0")).fields["num_redundant_experts"] == 8
    with pytest.raises(kvguard.InputError):
        parse_serve(["vllm", "serve", "m", "--num-redundant-experts", "8"], resolve("0.12.0"))


def test_eplb_config_kvguard_cannot_read_is_undecidable():
    # a value that is no JSON object: the release refuses it while parsing (pydantic's dataclass_type)
    with pytest.raises(kvguard.Undecidable, match="cannot read '\\[1, 2\\]' as a JSON object"):
        parse_serve(["vllm", "serve", "m", "--eplb-config", "[1, 2]"], resolve("0.28.0"))
    # a value EPLBConfig refuses (ge=0): pydantic's message, which kvguard does not quote
    with pytest.raises(kvguard.Undecidable, match="cannot vouch for num_redundant_experts=-1"):
        parse_serve(["vllm", "serve", "m", "--eplb-config", '{"num_redundant_experts": -1}'], resolve("0.28.0"))


def test_minimax_has_no_eplb_and_checks_tp_against_experts():
    c = cfg("MiniMaxAI/MiniMax-M2.5")
    c.pop("auto_map")
    # MiniMax passes no enable_eplb: 256 experts over 5 EP ranks builds; the model implements no MixtureOfExperts,
    # so the V1 runner (0.28.0's default) fails its first EPLB step, the V2 runner accepts
    v = kvguard.check(c, vllm_version="0.28.0", dp=5, ep=True, enable_eplb=True, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type) == (False, "worker", "W_eplb_no_moe_model", "AssertionError")
    v = kvguard.check(c, vllm_version="0.28.0", dp=5, ep=True, enable_eplb=True, host=H100,
                      env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert v.ok and not v.skipped
    small = dict(c, num_local_experts=4, num_attention_heads=48, num_key_value_heads=8)
    v = kvguard.check(small, vllm_version="0.28.0", tp=8, host=H100)
    assert (v.check, v.message) == ("MI_tp_gt_experts", "Tensor parallel size 8 is greater than the number of experts 4.")


def test_partly_ignored_fused_layer():
    c = cfg("Qwen/Qwen3-32B-FP8")
    c["quantization_config"] = dict(c["quantization_config"], modules_to_not_convert=["model.layers.0.mlp.gate_proj"])
    v = kvguard.check(c, vllm_version="0.28.0", tp=2, host=H100)
    assert v.message == ("Detected some but not all shards of model.layers.0.mlp.gate_up_proj are quantized. All "
                         "shards of fused layers to have the same precision.")


def test_ignored_layers_are_not_checked():
    # Qwen3-32B-FP8: intermediate 25600 / 8 = 3200 = 25 x 128 passes; at -tp 16, 1600 = 12.5 blocks: down_proj refuses
    c = cfg("Qwen/Qwen3-32B-FP8")
    v = kvguard.check(c, vllm_version="0.28.0", tp=16, host=BIG)
    assert v.message == "Weight input_size_per_partition = 1600 is not divisible by weight quantization block_k = 128."
    names = [f"model.layers.{i}.mlp.down_proj" for i in range(64)]
    c["quantization_config"] = dict(c["quantization_config"], modules_to_not_convert=names)
    assert kvguard.check(c, vllm_version="0.28.0", tp=16, host=BIG).ok


def test_attention_assert_and_vocab_padding():
    # MiniMax-M2.5: 48 heads, 8 KV heads; tp 3 divides the heads but neither divides nor is a multiple of 8
    c = cfg("MiniMaxAI/MiniMax-M2.5")
    c.pop("auto_map")
    v = kvguard.check(c, vllm_version="0.28.0", tp=3, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_attn_assert", "AssertionError", "")
    # Qwen3-32B has 64 heads, 8 KV heads; a vocabulary of 151936 (= 64 x 2374) pads to itself; tp 3 would be
    # refused by the heads check first, so use a 48-head variant: 151936 % 3 = 1 -> the embedding's divide
    q = dict(cfg("Qwen/Qwen3-32B"), num_attention_heads=48, num_key_value_heads=24)
    v = kvguard.check(q, vllm_version="0.28.0", tp=3, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_divide", "AssertionError", "151936 is not divisible by 3")


def test_unmodelled_quantization_is_skipped_not_accepted():
    c = cfg("Qwen/Qwen3-32B")
    # asymmetric GPTQ has no Marlin kernel: the plain kernels (0.21.0-) / the config's refusal (0.22.0+)
    c["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": False,
                                "desc_act": False}
    v = kvguard.check(c, vllm_version="0.28.0", tp=8, host=H100)
    # the quantization config built from it in VllmConfig is not modelled either
    assert v.ok and [s.check for s in v.skipped] == ["VC_quant_act_dtype", "MI_model"]
    assert "gptq" in v.skipped[0].reason and "gptq" in v.skipped[1].reason


AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
             "parallel size.")


def awq72(**quant) -> dict:
    c = cfg("Qwen/Qwen2.5-72B-Instruct-AWQ")
    c["torch_dtype"] = "float16"          # the checkpoint's config.json value (the catalog copy is partial)
    c["quantization_config"].update(quant)
    return c


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.20.0", "0.28.0", "0.33.0"])
def test_awq_72b_tp16_down_proj_shard_is_not_whole_groups(version):
    # intermediate 29696 / 16 = 1856 per rank = 14.5 groups of 128: Marlin does not take it (1856 % 128 = 64),
    # the plain AWQ kernels refuse it; tp 8: 3712 = 29 groups, Marlin takes it
    big = kvguard.Host.cuda_node(gpus_per_node=16)
    v = kvguard.check(awq72(), vllm_version=version, tp=16, host=big)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message, v.wrapped_by) == (
        False, "model_init", "MI_awq_input", "ValueError", AWQ_INPUT, None)
    assert kvguard.check(awq72(), vllm_version=version, tp=8, host=H100).ok


def test_awq_group_64_takes_tp16_and_refuses_tp32():
    # 1856 = 29 groups of 64 (tp 16); 928 = 14.5 groups (tp 32)
    assert kvguard.check(awq72(group_size=64), vllm_version="0.20.0", tp=16, host=BIG).ok
    v = kvguard.check(awq72(group_size=64), vllm_version="0.20.0", tp=32, host=BIG)
    assert (v.check, v.message) == ("MI_awq_input", AWQ_INPUT)


def test_awq_channelwise_groups_refuse_row_parallel_only_before_0_24():
    # group_size -1: one group of the whole input. Up to 0.23.0 Marlin needs 128-aligned shards, so at tp 16
    # (1856) the plain kernels take the layer and refuse any split input; from 0.24.0 Marlin pads the shard
    old = kvguard.check(awq72(group_size=-1), vllm_version="0.20.0", tp=16, host=BIG)
    assert (old.check, old.message) == ("MI_awq_input", AWQ_INPUT)
    assert kvguard.check(awq72(group_size=-1), vllm_version="0.33.0", tp=64, host=BIG).ok


def test_awq_explicit_plain_kernels_and_host():
    # --quantization awq keeps the plain kernels (0.23.0-): the same refusal at tp 16; the kernel path is read
    # for compute capability 90 only, so another capability or an unknown host skips the stage
    v = kvguard.check(awq72(), vllm_version="0.10.2", tp=16, host=BIG, quantization="awq")
    assert v.check == "MI_awq_input"
    other = kvguard.check(awq72(), vllm_version="0.10.2", tp=16,
                          host=kvguard.Host(**{**BIG.__dict__, "gpu_capability": 80}))
    assert other.ok and "MI_model" in [s.check for s in other.skipped]
    unknown = kvguard.check(awq72(), vllm_version="0.10.2", tp=16,
                            host=kvguard.Host(platform="cuda", gpus_per_node=16, ray=True, triton=True))
    assert unknown.ok and "MI_model" in [s.check for s in unknown.skipped]


def test_gptq_marlin_accepts_or_leaves_the_kernel_choice_undecided():
    c = awq72()
    c["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
    assert kvguard.check(c, vllm_version="0.20.0", tp=8, host=H100).ok
    # tp 16: 1856 is not whole groups of 128: Marlin cannot run it; the other kernels' answer is the host's
    v = kvguard.check(c, vllm_version="0.20.0", tp=16, host=BIG)
    skipped = {s.check: s.reason for s in v.skipped}
    assert v.ok and "kernel choice" in skipped["MI_model"]


def test_audit_names_awq_forbidden_tp():
    report = kvguard.audit(awq72(), tp=8, vllm_version="0.28.0")
    q = report.models[0].quantization
    assert [f["tp"] for f in q["forbidden_tp"]] == [16, 32, 64]
    assert q["rules"] == ["AWQ: mlp.down_proj input size 29696 = 232 groups of 128; a shard that is not whole groups "
                          "is not taken by Marlin and the plain AWQ kernels refuse it: refused at tp 16, 32, 64"]
    assert any("compute capability 90" in a for a in q["assumptions"])


def test_unmodelled_architecture_with_quantization_is_skipped():
    c = cfg("deepseek-ai/DeepSeek-V3")
    c["architectures"] = ["Qwen2MoeForCausalLM"]      # registered, no construction family
    c["model_type"] = "qwen2_moe"
    v = kvguard.check(c, vllm_version="0.28.0", tp=8, host=H100)
    if v.ok:
        assert [s.check for s in v.skipped] == ["MI_model"]


def test_unquantized_known_model_has_no_new_skips():
    v = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", tp=8, host=H100)
    assert v.ok and v.skipped == ()


def test_a_bug_in_the_walk_is_an_internal_error(monkeypatch):
    import kvguard.quant as quant

    def broken(*a, **k):
        raise TypeError("boom")

    monkeypatch.setattr(quant, "_outcome", broken)
    with pytest.raises(kvguard.InternalError):
        kvguard.check(cfg("Qwen/Qwen3-32B-FP8"), vllm_version="0.28.0", tp=8, host=H100)


def test_config_entry_has_no_model_construction():
    v = kvguard.check(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version="0.28.0", tp=8, host=H100, entry="config")
    assert v.ok


def test_validate_raises_unwrapped():
    with pytest.raises(ValueError) as info:
        kvguard.validate(cfg("Qwen/Qwen3-235B-A22B-FP8"), vllm_version="0.28.0", tp=8, host=H100)
    assert type(info.value) is ValueError
    assert str(info.value).startswith("The output_size of gate's and up's weight = 192")


def test_cli_host_fact_and_exit_status(capsys):
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve",
                  "Qwen/Qwen3-235B-A22B-FP8", "-tp", "8"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["stage"] == "model_init" and out["wrapped_by"] is None
    status = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--", "vllm", "serve",
                  "Qwen/Qwen3-235B-A22B-FP8", "-tp", "8"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and "gpu_capability=90" in out["assumptions"]
    status = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--host", "gpu_capability=90", "--",
                  "vllm", "serve", "Qwen/Qwen3-235B-A22B-FP8", "-tp", "8"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and "gpu_capability=90" not in out["assumptions"]
    status = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--unknown-host", "--", "vllm", "serve",
                  "Qwen/Qwen3-235B-A22B-FP8", "-tp", "8"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and "MI_model" in [s["check"] for s in out["skipped"]]


def test_audit_names_forbidden_tp_sizes_and_why():
    report = kvguard.audit("Qwen/Qwen3-235B-A22B-FP8", tp=8, vllm_version="0.28.0")
    q = report.models[0].quantization
    assert [f["tp"] for f in q["forbidden_tp"]] == [8, 16, 32, 64]        # 64 heads: divisors 1..64
    assert q["rules"] == ["MoE intermediate size 1536 / 128 = 12 blocks: tp must divide 12 (first refusal at tp 8, "
                          "16, 32, 64)"]
    newer = kvguard.audit("Qwen/Qwen3-235B-A22B-FP8", tp=8, vllm_version="0.33.0").models[0].quantization
    assert [f["tp"] for f in newer["forbidden_tp"]] == [32, 64]   # 1536/32 = 48: gcd 16 < 32; /64 = 24: 8
    assert newer["assumptions"]
    assert kvguard.audit("Qwen/Qwen3-32B", tp=8).models[0].quantization is None


def test_plan_ranks_only_layouts_whose_model_builds():
    report = kvguard.plan("Qwen/Qwen3-235B-A22B-FP8", 8, vllm_version="0.28.0")
    for e in report.entries:
        moe_tp = 1 if e.expert_parallel else e.tp * e.dp * e.pcp
        assert (1536 // moe_tp) % 128 == 0 if not e.expert_parallel else True
    assert report.refused_by_check.get("MI_fp8_moe_block_n", 0) > 0
    assert any(e.tp == 8 and not e.expert_parallel for e in kvguard.plan("Qwen/Qwen3-235B-A22B-FP8", 8,
                                                                        vllm_version="0.33.0").entries)


def test_a_size_the_config_leaves_unset_skips_model_construction_instead_of_failing():
    # found by tests/test_hostile.py's fuzzer: hidden_size None reached the layer arithmetic
    import json
    from pathlib import Path

    config = dict(json.loads((Path(kvguard.__file__).parent / "catalog" / "Qwen--Qwen3-32B.json").read_text())["config"])
    config["hidden_size"] = None
    facts = kvguard.model_facts(config, vllm_version="0.10.2")
    assert kvguard.legal_dcp_sizes(facts, 1, vllm_version="0.10.2") == [1]
    verdict = kvguard.check(config, vllm_version="0.10.2", tp=1)
    skipped = {s.check: s.reason for s in verdict.skipped}
    assert verdict.ok is True
    assert skipped["MI_model"].startswith("model construction of model.layers.0.self_attn.qkv_proj with sizes "
                                          "(None, 128, 64, 8)")


@pytest.mark.parametrize("key", ["num_experts", "decoder_sparse_step", "num_key_value_heads", "moe_intermediate_size"])
def test_a_moe_size_the_config_leaves_unset_is_never_an_internal_error(key):
    import json
    from pathlib import Path

    path = Path(kvguard.__file__).parent / "catalog" / "Qwen--Qwen3-30B-A3B.json"
    config = dict(json.loads(path.read_text())["config"], **{key: None})
    for version in ("0.10.2", "0.28.0", "0.33.0"):
        verdict = kvguard.check(config, vllm_version=version, tp=8)   # raises InternalError on a kvguard bug
        assert verdict.ok is not None


@pytest.mark.parametrize("dtype", ["bfloat16"])
def test_a_given_dtype_with_an_awq_checkpoint_is_skipped_not_decided(dtype):
    # --dtype changes the model's dtype, which the AWQ kernels' choice reads: kvguard does not model it, so the
    # model-construction check is skipped, never accepted on the config's dtype (awq_marlin takes bfloat16)
    v = kvguard.check(awq72(), vllm_version="0.20.0", tp=16, dtype=dtype, host=BIG)
    assert v.ok
    assert [s.check for s in v.skipped] == ["MI_model"]
    assert v.skipped[0].reason == f"--dtype {dtype} with awq weights is not modelled"
    # "auto" keeps the checkpoint's float16: decided (and refused at tp 16)
    assert kvguard.check(awq72(), vllm_version="0.20.0", tp=16, dtype="auto", host=BIG).check == "MI_awq_input"


def test_float32_with_an_awq_checkpoint_is_refused_before_the_model():
    # the Marlin conversion's AWQMarlinConfig takes float16 and bfloat16 activations: VllmConfig refuses float32
    v = kvguard.check(awq72(), vllm_version="0.20.0", tp=16, dtype="float32", host=BIG)
    assert (v.check, v.stage, v.wrapped_by) == ("VC_quant_act_dtype", "verify", "VllmConfig")
    assert v.message == ("torch.float32 is not supported for quantization method awq_marlin. Supported dtypes: "
                         "[torch.float16, torch.bfloat16]")


# --------------------------------------------------------------------------- online FP8 (kvguard.quant.online)
# --quantization fp8 of an unquantized checkpoint: per-tensor FP8 linear and MoE methods (Fp8Config() up to 0.30.x,
# the fp8_per_tensor online config from 0.31.0), no block and nothing ignored; the MoE methods take EPLB


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.14.1", "0.20.0", "0.24.0", "0.25.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("model", ["Qwen/Qwen3-30B-A3B", "meta-llama/Llama-3.1-70B-Instruct",
                                   "mistralai/Mixtral-8x7B-v0.1", "deepseek-ai/DeepSeek-V2-Lite"])
def test_online_fp8_accepted_without_skips(version, model):
    tp = 8 if model.startswith("meta-llama") else 4
    v = kvguard.check(cfg(model), vllm_version=version, tp=tp, quantization="fp8", host=H100)
    assert v.ok, (v.check, v.message)
    assert not [s.check for s in v.skipped if s.check in ("MI_model", "VC_quant_act_dtype")]


def test_online_fp8_experts_keep_the_eplb_distribution_check():
    # Qwen3-30B-A3B: 128 experts over 3 EP ranks; the online FP8 MoE methods take EPLB
    old = kvguard.check(cfg("Qwen/Qwen3-30B-A3B"), vllm_version="0.20.0", dp=3, enable_expert_parallel=True,
                        enable_eplb=True, quantization="fp8", host=H100)
    assert (old.check, old.exc_type, old.message) == (
        "MI_eplb_even", "AssertionError", "EPLB currently only supports even distribution of experts across ranks.")
    new = kvguard.check(cfg("Qwen/Qwen3-30B-A3B"), vllm_version="0.33.0", dp=3, enable_expert_parallel=True,
                        enable_eplb=True, quantization="fp8", host=H100)
    assert (new.check, new.exc_type, new.message) == (
        "MI_eplb_even", "ValueError", "EPLB currently only supports even distribution of experts across ranks. Got "
                                      "128 experts and 3 EP ranks.")


def test_online_fp8_left_open_where_the_moe_backend_selection_is_steered():
    v = kvguard.check(cfg("Qwen/Qwen3-30B-A3B"), vllm_version="0.28.0", tp=4, quantization="fp8",
                      moe_backend="triton", host=H100)
    assert [s.reason for s in v.skipped if s.check == "MI_model"] == [
        "--moe-backend triton with online FP8 experts (the FP8 MoE backend selection) is not modelled"]
    v = kvguard.check(cfg("Qwen/Qwen3-30B-A3B"), vllm_version="0.13.0", tp=4, quantization="fp8",
                      env={"VLLM_USE_FLASHINFER_MOE_FP8": "1"}, host=H100)
    assert [s.reason for s in v.skipped if s.check == "MI_model"] == [
        "VLLM_USE_FLASHINFER_MOE_FP8 changes the FP8 MoE backend selection of online FP8 experts (not modelled)"]
    # a dense model has no MoE layer to select for: decided
    v = kvguard.check(cfg("meta-llama/Llama-3.1-8B-Instruct"), vllm_version="0.28.0", tp=4, quantization="fp8",
                      moe_backend="triton", env={"VLLM_USE_DEEP_GEMM": "1"}, host=H100)
    assert "MI_model" not in [s.check for s in v.skipped]

