"""Model construction of DeepSeek-V4 (kvguard.quant.dsv4) on the default host, vLLM 0.20.0 – 0.33.0.

Expected values are worked out by hand from the configs' sizes (quoted in each test) and the release source
(vllm/models/deepseek_v4/nvidia/model.py, attention.py, nvidia/flashmla.py): the vocabulary padded to 64 and divided
by tp; ``wo_a`` (column-parallel, o_groups x o_lora_rank outputs) and ``wo_b`` (row-parallel) checked against the
128 x 128 FP8 block; the shared experts rounded up to whole blocks per rank (never refused); 0.30.0's assert that tp
divides the routed + redundant experts; EPLB's even split over the EP ranks; FlashMLA's 128 heads per rank.  Before
0.30.0 (vllm/model_executor/models/deepseek_v4.py and layers/deepseek_v4_attention.py in 0.20.x - 0.21.0): the
KV-cache dtype the attention asserts (auto included), the bare experts-over-tp assert before 0.24.0, the shared
experts split plainly and the routed experts built without EPLB's arguments before 0.24.0, the heads checked after
the projections before 0.23.0 and in the model before the embedding on 0.27.0 - 0.28.0.
tests/upstream/test_dsv4_model.py and the golden cases mi-dsv4-* compare with the releases themselves.
"""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

import kvguard
from kvguard import catalog
from kvguard.errors import Undecidable

H100 = kvguard.Host.cuda_node()
BIG = kvguard.Host.cuda_node(gpus_per_node=64)
DECIDED = ["0.30.0", "0.31.0", "0.32.0", "0.33.0"]


def dsv4(name: str = "Flash", **patch) -> dict:
    c = copy.deepcopy(catalog.lookup(f"deepseek-ai/DeepSeek-V4-{name}").config)
    for key, value in patch.items():
        if value is None:
            c.pop(key, None)
        elif value == "NULL":
            c[key] = None
        else:
            c[key] = value
    return c


def _mi_reason(v) -> str:
    return {s.check: s.reason for s in v.skipped}.get("MI_model", "")


def _decided(v) -> bool:
    return "MI_model" not in [s.check for s in v.skipped]


@pytest.mark.parametrize("version", DECIDED)
@pytest.mark.parametrize(("name", "tp"), [("Flash", 1), ("Flash", 8), ("Pro", 8), ("Pro", 4)])
def test_released_checkpoints_build(version, name, tp):
    # Flash: 64 heads, vocab 129280 (= 2020 x 64), wo_a 8 x 1024 = 8192 outputs (1024 a rank at tp 8: 8 blocks),
    # 256 experts; Pro: 128 heads, 16 x 1024 = 16384, 384 experts (48 a rank at tp 8): nothing refuses
    v = kvguard.check(dsv4(name), vllm_version=version, tp=tp, host=H100)
    assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", DECIDED)
def test_wo_a_block_n(version):
    # o_lora_rank 1000: wo_a has 8 x 1000 = 8000 outputs, 1000 a rank at tp 8 (not a multiple of 128), 2000 at tp 4
    for tp, size in ((8, 1000), (4, 2000)):
        v = kvguard.check(dsv4(o_lora_rank=1000), vllm_version=version, tp=tp, host=H100)
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
            False, "model_init", "MI_fp8_block_n", "ValueError",
            f"Weight output_partition_size = {size} is not divisible by weight quantization block_n = 128.")


@pytest.mark.parametrize("version", DECIDED)
def test_wo_a_block_n_with_six_groups(version):
    # 48 heads, 6 groups of rank 768: 4608 outputs; 1152 a rank at tp 4 (9 blocks) builds, 576 at tp 8 does not
    cfg = dsv4(num_attention_heads=48, o_groups=6, o_lora_rank=768)
    assert kvguard.check(cfg, vllm_version=version, tp=4, host=H100).ok
    v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100)
    assert (v.check, v.message) == (
        "MI_fp8_block_n", "Weight output_partition_size = 576 is not divisible by weight quantization block_n = 128.")


@pytest.mark.parametrize("version", DECIDED)
def test_shared_experts_rounded_up_never_refuse(version):
    # n_shared_experts 2 x 2112 = 4224 = 33 blocks: at tp 8 the MLP keeps ceil(33 / 8) = 5 blocks a rank (640);
    # the routed experts' 2112 / 8 = 264 goes to Marlin, which pads: the launch builds
    v = kvguard.check(dsv4(moe_intermediate_size=2112, n_shared_experts=2), vllm_version=version, tp=8, host=H100)
    assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))


def test_physical_experts_divide_tp_on_0_30_0_only():
    # 256 routed + 2 redundant = 258 experts; tp 4: 0.30.0's fused-MoE path asserts (with a message) before the MoE
    # layer's own EPLB check; 0.31.0 dropped the assert: EPLB's even split over the 4 EP ranks refuses instead
    v = kvguard.check(dsv4(), vllm_version="0.30.0", tp=4, enable_expert_parallel=True, enable_eplb=True,
                      num_redundant_experts=2, host=H100)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_experts_tp", "AssertionError",
        "n_physical_experts=258 must be divisible by tp_size=4. Adjust num_redundant_experts.")
    for version in ("0.31.0", "0.32.0", "0.33.0"):
        v = kvguard.check(dsv4(), vllm_version=version, tp=4, enable_expert_parallel=True, enable_eplb=True,
                          num_redundant_experts=2, host=H100)
        assert (v.check, v.exc_type, v.message) == (
            "MI_eplb_even", "ValueError",
            "EPLB currently only supports even distribution of experts across ranks. Got 258 experts and 4 EP ranks.")


@pytest.mark.parametrize("version", DECIDED)
def test_eplb_with_even_split_builds(version):
    # 256 + 8 redundant = 264 = 8 x 33 experts over tp 8 (EP size 8): even; the MXFP4 method takes EPLB
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, enable_expert_parallel=True, enable_eplb=True,
                      num_redundant_experts=8, host=H100)
    assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", DECIDED)
def test_flashmla_heads_per_rank(version):
    # 256 heads: 256 a rank at tp 1 (FlashMLA's FP8 decode kernel takes 64 or 128), 128 at tp 2 builds
    v = kvguard.check(dsv4(num_attention_heads=256), vllm_version=version, tp=1, host=H100)
    assert (v.ok, v.check, v.exc_type, v.message) == (
        False, "MI_dsv4_flashmla_heads", "ValueError",
        "DeepseekV4 FlashMLA does not support 256 heads (FP8 decode kernel requires h_q in {64, 128}).")
    assert kvguard.check(dsv4(num_attention_heads=256), vllm_version=version, tp=2, host=H100).ok


@pytest.mark.parametrize("version", DECIDED)
def test_vocab_divides_tp_first(version):
    # 48 heads (6 groups of 1024: 6144 outputs, 2048 a rank at tp 3) admit tp 3; the vocabulary 129280 (a multiple
    # of 64 already) does not divide by 3: the embedding refuses before any layer.  Vocab 129281 pads to 129344 =
    # 2021 x 64, which tp 8 divides (16168 a rank)
    v = kvguard.check(dsv4(num_attention_heads=48, o_groups=6), vllm_version=version, tp=3, host=H100)
    assert (v.check, v.exc_type, v.message) == ("MI_divide", "AssertionError", "129280 is not divisible by 3")
    assert kvguard.check(dsv4(vocab_size=129281), vllm_version=version, tp=8, host=H100).ok


#: the KV-cache refusal of the sparse-MLA attention before 0.30.0 (``auto`` included), as each release words it
KV_BEFORE_0_30 = [("0.20.0", "DeepseekV4 only supports fp8 kv-cache format for now, got {}"),
                  ("0.21.0", "DeepseekV4 only supports fp8 kv-cache format for now, got {}"),
                  ("0.22.1", "DeepseekV4 only supports fp8 kv-cache format for now, got {}"),
                  ("0.23.0", "DeepseekV4 FlashMLA fp8 layout only supports fp8 kv-cache, got {}"),
                  ("0.24.0", "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got {}"),
                  ("0.28.0+pr55030", "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got {}"),
                  ("0.29.0", "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got {}")]


@pytest.mark.parametrize(("version", "text"), KV_BEFORE_0_30)
@pytest.mark.parametrize("kv", ["auto", "bfloat16"])
def test_kv_cache_dtype_refused_before_0_30(version, text, kv):
    # the attention's FP8 block layout asserts an fp8 cache name; before 0.30.0 auto is not read as fp8
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100, kv_cache_dtype=kv)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_kv_cache_dtype", "AssertionError", text.format(kv))
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", DECIDED)
def test_kv_cache_dtype_from_0_30(version):
    # auto reads as fp8; bfloat16 is refused with a ValueError that names the remedy
    assert kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100).ok
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="bfloat16")
    assert (v.check, v.exc_type, v.message) == (
        "MI_dsv4_kv_cache_dtype", "ValueError",
        "DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got bfloat16. Please set `--kv-cache-dtype fp8` or "
        "select a backend that supports bfloat16 KV cache.")


@pytest.mark.parametrize(("version", "check", "message"), [
    ("0.20.0", "MI_dsv4_attn_heads", "DeepseekV4 attention does not support 256 heads (must be <= 128)."),
    ("0.21.0", "MI_dsv4_attn_heads", "DeepseekV4 attention does not support 256 heads (must be <= 128)."),
    ("0.22.0", "MI_dsv4_flashmla_heads",
     "DeepseekV4 FlashMLA does not support 256 heads (FP8 decode kernel requires h_q in {64, 128})."),
    ("0.27.0", "MI_dsv4_flashmla_heads",
     "DeepseekV4 FlashMLA does not support 256 heads (FP8 decode kernel requires h_q in {64, 128})."),
])
def test_heads_per_rank_before_0_30(version, check, message):
    # 256 heads at tp 1; the check comes before the KV-cache one (auto would be refused too)
    v = kvguard.check(dsv4(num_attention_heads=256), vllm_version=version, tp=1, host=H100)
    assert (v.check, v.exc_type, v.message) == (check, "ValueError", message)


def test_heads_before_the_vocabulary_on_0_27_and_0_28():
    # 256 heads and vocab 129280 at tp 3: 0.27.0 / 0.28.0's model asks FlashMLA for 256 // 3 = 85 padded heads
    # first (fine), the embedding then refuses 129280 / 3; with 768 heads (256 a rank) the heads refuse first on
    # 0.28.0, the vocabulary first on 0.26.0 and 0.29.0
    cfg = dsv4(num_attention_heads=768, o_groups=6)
    heads = "DeepseekV4 FlashMLA does not support 256 heads (FP8 decode kernel requires h_q in {64, 128})."
    assert kvguard.check(cfg, vllm_version="0.28.0", tp=3, host=H100).message == heads
    for version in ("0.26.0", "0.29.0"):
        assert kvguard.check(cfg, vllm_version=version, tp=3, host=H100).message == "129280 is not divisible by 3"


def test_routed_experts_bare_assert_before_0_24():
    # 200 routed experts at tp 16: 0.20.0 - 0.23.0 assert bare (no message), 0.24.0 - 0.30.0 with the count
    cfg = dsv4(n_routed_experts=200)
    for version in ("0.20.0", "0.22.0", "0.23.0"):
        v = kvguard.check(cfg, vllm_version=version, tp=16, host=BIG, kv_cache_dtype="fp8")
        assert (v.check, v.exc_type, v.message) == ("MI_dsv4_experts_tp", "AssertionError", ""), version
    v = kvguard.check(cfg, vllm_version="0.24.0", tp=16, host=BIG, kv_cache_dtype="fp8")
    assert (v.check, v.exc_type, v.message) == (
        "MI_dsv4_experts_tp", "AssertionError",
        "n_physical_experts=200 must be divisible by tp_size=16. Adjust num_redundant_experts.")


def test_eplb_not_passed_before_0_24():
    # 256 + 2 redundant experts over 8 EP ranks: uneven; before 0.24.0 the routed experts are built without EPLB's
    # arguments (built), from 0.24.0 tp 8 does not divide 258 (the fused-MoE assert); 0.20.0 - 0.22.x's model then
    # implements no MixtureOfExperts, so the V1 worker's first EPLB step asserts (tests/test_eplb_model.py)
    kw = dict(tp=8, enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=2, host=H100,
              kv_cache_dtype="fp8")
    v = kvguard.check(dsv4(), vllm_version="0.20.0", **kw)
    assert (v.stage, v.check) == ("worker", "W_eplb_no_moe_model")
    assert kvguard.check(dsv4(), vllm_version="0.23.0", **kw).ok
    assert kvguard.check(dsv4(), vllm_version="0.24.0", **kw).check == "MI_dsv4_experts_tp"


def test_shared_experts_split_plainly_before_0_24():
    # shared experts 2048 at tp 32: 64 a rank, not a whole 128 block: the down projection's input refuses (shown by
    # 0.23.0 itself); 0.24.0 rounds up to one block a rank
    v = kvguard.check(dsv4(), vllm_version="0.23.0", tp=32, host=BIG, kv_cache_dtype="fp8")
    assert (v.check, v.message) == (
        "MI_fp8_block_k", "Weight input_size_per_partition = 64 is not divisible by weight quantization block_k = 128.")
    assert kvguard.check(dsv4(), vllm_version="0.24.0", tp=32, host=BIG, kv_cache_dtype="fp8").check is None


#: every release that decides DeepSeek-V4's construction, one per family of its code
FAMILIES = ["0.20.0", "0.22.0", "0.24.0", "0.27.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"]
ATTR = "'DeepseekV4Config' object has no attribute 'n_shared_experts'"
ZERO = "integer division or modulo by zero"


@pytest.mark.parametrize("version", FAMILIES)
def test_config_without_shared_experts_key(version):
    # the MoE block reads config.n_shared_experts with no default before 0.33.0 (shown by 0.20.0 - 0.32.0 themselves:
    # an AttributeError at the first MoE block, whatever the layout); 0.33.0's transformers config class defaults
    # it to 1, so the released Flash layout builds
    v = kvguard.check(dsv4(n_shared_experts=None), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    if version == "0.33.0":
        assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))
    else:
        assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
            False, "model_init", "MI_dsv4_shared_experts_attr", "AttributeError", ATTR)


@pytest.mark.parametrize("version", FAMILIES)
def test_zero_shared_experts(version):
    # n_shared_experts 0: 2048 x 0 = 0 rows.  Unsplit (tp 1) the empty gate/up projection passes the block checks;
    # split by tp 8 the block-FP8 check divides 0 outputs by 0 (ZeroDivisionError).  With expert parallel, tp 2 x
    # dp 4 the MoE runs sequence-parallel from 0.27.0 and the shared experts are replicated: unsplit again
    cfg = dsv4(n_shared_experts=0)
    assert kvguard.check(cfg, vllm_version=version, tp=1, host=H100, kv_cache_dtype="fp8").ok
    v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_shared_experts_empty", "ZeroDivisionError", ZERO)
    v = kvguard.check(cfg, vllm_version=version, tp=2, data_parallel_size=4, enable_expert_parallel=True, host=H100,
                      kv_cache_dtype="fp8")
    assert v.ok == (version >= "0.27.0"), (v.check, v.message)


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.30.0", "0.32.0"])
def test_null_shared_experts_build_none(version):
    # n_shared_experts null: the MoE block builds no shared experts, whatever tp (0.33.0's config class refuses the
    # null before any model: not a model_init verdict)
    for tp in (1, 8):
        v = kvguard.check(dsv4(n_shared_experts="NULL"), vllm_version=version, tp=tp, host=H100,
                          kv_cache_dtype="fp8")
        assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))
    assert kvguard.check(dsv4(n_shared_experts="NULL"), vllm_version="0.33.0", tp=8, host=H100).stage != "model_init"


def test_shared_experts_under_one_block():
    # moe_intermediate_size 96, one shared expert: 96 rows.  0.23.0 splits them plainly (12 a rank at tp 8: the
    # gate/up projection's outputs are not checked against the block, the down projection's 12 inputs are);
    # from 0.24.0 96 // 128 = 0 whole blocks: no rows, and split by tp 8 the block check divides by zero
    cfg = dsv4(moe_intermediate_size=96)
    v = kvguard.check(cfg, vllm_version="0.23.0", tp=8, host=H100, kv_cache_dtype="fp8")
    assert (v.check, v.message) == (
        "MI_fp8_block_k", "Weight input_size_per_partition = 12 is not divisible by weight quantization block_k = 128.")
    v = kvguard.check(cfg, vllm_version="0.24.0", tp=8, host=H100, kv_cache_dtype="fp8")
    assert (v.check, v.exc_type, v.message) == ("MI_dsv4_shared_experts_empty", "ZeroDivisionError", ZERO)


@pytest.mark.parametrize("version", ["0.20.1", "0.22.0", "0.24.0", "0.29.0", "0.30.0", "0.33.0"])
def test_fp8_experts_block_checks(version):
    # expert_dtype fp8: the routed experts take the block-FP8 MoE method.  moe_intermediate_size 2048 (16 blocks)
    # builds at tp 8 (256 a rank); 1000 is refused even unsplit (1000 % 128 = 104; gcd(128, 1000, 4096) = 8, too
    # small to refine the block) and at tp 8 (125 a rank); the shared experts (1000 rows) come first but their
    # linears are block-checked only where they are split (unsplit at tp 1; rounded up to whole blocks at tp 8
    # from 0.24.0)
    assert kvguard.check(dsv4(expert_dtype="fp8"), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8").ok
    cfg = dsv4(expert_dtype="fp8", moe_intermediate_size=1000)
    v = kvguard.check(cfg, vllm_version=version, tp=1, host=H100, kv_cache_dtype="fp8")
    assert (v.stage, v.check, v.exc_type, v.message) == (
        "model_init", "MI_fp8_moe_block_n", "ValueError",
        "The output_size of gate's and up's weight = 1000 is not divisible by weight quantization block_n = 128.")
    if version >= "0.24.0":
        v = kvguard.check(cfg, vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
        assert (v.check, v.message) == (
            "MI_fp8_moe_block_n",
            "The output_size of gate's and up's weight = 125 is not divisible by weight quantization block_n = 128.")


def test_fp8_experts_key_ignored_on_0_20_0():
    # 0.20.0's config never reads expert_dtype: MXFP4 experts (Marlin pads 1000), whatever the key says
    for value in ("fp8", "bf16"):
        cfg = dsv4(expert_dtype=value, moe_intermediate_size=1000)
        v = kvguard.check(cfg, vllm_version="0.20.0", tp=1, host=H100, kv_cache_dtype="fp8")
        assert v.ok and _decided(v), (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", ["0.20.1", "0.21.0", "0.24.0", "0.30.0", "0.33.0"])
@pytest.mark.parametrize(("value", "shown"), [("bf16", "'bf16'"), ("NULL", "None")])
def test_unsupported_expert_dtype(version, value, shown):
    # from 0.20.1 the config resolves expert_dtype when the first block-FP8 linear (the attention's fused q_a / kv
    # projection) asks for its scale dtype: a value other than fp4 / fp8 (a null too) is refused there
    v = kvguard.check(dsv4(expert_dtype=value), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8")
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_expert_dtype", "ValueError",
        f"Unsupported DeepSeek V4 expert_dtype={shown}; expected one of ('fp4', 'fp8').")


def test_before_0_20_not_registered():
    v = kvguard.check(dsv4(), vllm_version="0.19.1", tp=8, host=H100)
    assert "MI_dsv4_kv_cache_dtype" != v.check


@pytest.mark.parametrize(("patch", "launch", "needle"), [
    ({"expert_dtype": 8}, {}, "expert_dtype 8"),
    ({"head_dim": 448}, {}, "attention geometry"),
    ({"hidden_act": "gelu"}, {}, "hidden_act 'gelu'"),
    ({}, {"moe_backend": "triton"}, "--moe-backend triton is not modelled (whether the named MXFP4 kernel supports "
                                    "this deployment is asked of the GPU and the kernel packages installed"),
    ({"expert_dtype": "fp8"}, {"moe_backend": "cutlass"}, "FP8 experts' MoE backend"),
    ({"expert_dtype": "fp8"}, {"moe_backend": "marlin"}, "--moe-backend marlin"),
    ({}, {"all2all_backend": "deepep_low_latency"}, "--all2all-backend deepep_low_latency"),
    ({}, {"attention_backend": "FLASHINFER_MLA_SPARSE_DSV4"}, "--attention-backend FLASHINFER_MLA_SPARSE_DSV4"),
    ({"quantization_config": {"quant_method": "fp8", "weight_block_size": [32, 32]}}, {},
     "weight_block_size [32, 32] and FP4 experts"),
])
def test_left_open_with_the_reason(patch, launch, needle):
    v = kvguard.check(dsv4(**patch), vllm_version="0.33.0", tp=8, host=H100, **launch)
    assert needle in _mi_reason(v), (v.check, v.message, _mi_reason(v))


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.30.0", "0.33.0"])
def test_named_default_backends_decided(version):
    # --moe-backend marlin: the FP4 experts' method asks Marlin's kernel class, supported on compute capability 9.0
    # (what auto selects there); --all2all-backend allgather_reducescatter is every release's default: both are
    # decided like the defaults (256 + 6 redundant experts at tp 4 with EPLB: refused the same way)
    kw = dict(vllm_version=version, host=H100, kv_cache_dtype="fp8")
    for launch in ({"moe_backend": "marlin"}, {"all2all_backend": "allgather_reducescatter"}):
        v = kvguard.check(dsv4(), tp=8, **kw, **launch)
        assert v.ok and _decided(v), (launch, v.check, v.message, _mi_reason(v))
        eplb = dict(tp=4, enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=6)
        assert (kvguard.check(dsv4(), **kw, **eplb, **launch).message
                == kvguard.check(dsv4(), **kw, **eplb).message), launch


def test_other_hosts_left_open():
    v = kvguard.check(dsv4(), vllm_version="0.33.0", tp=8, host=kvguard.Host(platform="cuda", gpu_capability=100))
    assert "compute capability 90" in _mi_reason(v)
    v = kvguard.check(dsv4(), vllm_version="0.33.0", tp=8, host=H100, env={"VLLM_HUMMING_INPUT_QUANT_CONFIG": "{}"})
    assert "VLLM_HUMMING_INPUT_QUANT_CONFIG" in _mi_reason(v)
    # a value its getter (json.loads, measured in the release: kvguard/data/env_parsers.json) refuses: undecidable
    with pytest.raises(Undecidable, match="VLLM_HUMMING_INPUT_QUANT_CONFIG='x': JSONDecodeError"):
        kvguard.check(dsv4(), vllm_version="0.33.0", tp=8, host=H100, env={"VLLM_HUMMING_INPUT_QUANT_CONFIG": "x"})


def test_cli_refusal():
    proc = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.30.0", "--", "vllm", "serve",
                           "deepseek-ai/DeepSeek-V4-Flash", "-tp", "4", "--enable-expert-parallel", "--enable-eplb",
                           "--eplb-config", '{"num_redundant_experts": 2}'], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "MI_dsv4_experts_tp" in proc.stdout
    assert "n_physical_experts=258 must be divisible by tp_size=4. Adjust num_redundant_experts." in proc.stdout


REFUSED_ATTN = "{} is not a DeepSeek V4 attention backend. Use FLASHINFER_MLA_SPARSE_DSV4 for DeepSeek V4 FlashInfer " \
               "sparse MLA."


@pytest.mark.parametrize("version", ["0.24.0", "0.26.0", "0.29.0", "0.30.0", "0.31.0", "0.33.0"])
@pytest.mark.parametrize("name", ["FLASHINFER_MLA_SPARSE", "flashinfer_mla_sparse_sm120"])
def test_generic_flashinfer_sparse_backend_refused(version, name):
    # 0.24.0+: _select_dsv4_attn_cls refuses these two by their enum name, whatever the GPU, when layer 0 picks its
    # attention class (after the embedding: 129280 / 64 a rank passes at tp 8)
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8", attention_backend=name)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_attention_backend", "ValueError", REFUSED_ATTN.format(name.upper()))


def test_attention_backend_after_the_vocabulary_before_the_heads():
    # 768 heads in 6 groups at tp 3 (256 a rank, vocab 129280 not divisible by 3): 0.28.0 picks the class (refused)
    # before the heads and the embedding; 0.26.0 / 0.29.0 build the embedding first (refused there)
    cfg = dsv4(num_attention_heads=768, o_groups=6)
    kw = dict(tp=3, host=H100, kv_cache_dtype="fp8", attention_backend="FLASHINFER_MLA_SPARSE")
    assert kvguard.check(cfg, vllm_version="0.28.0", **kw).message == REFUSED_ATTN.format("FLASHINFER_MLA_SPARSE")
    for version in ("0.26.0", "0.29.0"):
        assert kvguard.check(cfg, vllm_version=version, **kw).message == "129280 is not divisible by 3"
    # 256 heads at tp 1 (vocab fine): the backend is refused before the heads from 0.24.0
    v = kvguard.check(dsv4(num_attention_heads=256), vllm_version="0.30.0", tp=1, host=H100,
                      attention_backend="FLASHINFER_MLA_SPARSE")
    assert v.check == "MI_dsv4_attention_backend"


@pytest.mark.parametrize(("version", "name"), [
    ("0.20.0", "FLASHINFER_MLA_SPARSE"), ("0.22.0", "FLASHINFER_MLA_SPARSE"), ("0.23.0", "FLASHINFER_MLA_SPARSE"),
    ("0.24.0", "FLASHMLA_SPARSE"), ("0.24.0", "FLASHMLA_SPARSE_DSV4"), ("0.30.0", "TRITON_MLA"),
    ("0.33.0", "FLASH_ATTN"), ("0.33.0", "auto"),
])
def test_other_attention_backends_build_flashmla(version, name):
    # before 0.23.0 the model does not read the flag; 0.23.0 takes FLASHINFER_MLA_SPARSE_DSV4 only; from 0.24.0
    # every other name builds FlashMLA's class on compute capability 9.0: decided as without the flag
    kw = dict(vllm_version=version, host=H100, kv_cache_dtype="fp8")
    v = kvguard.check(dsv4(), tp=8, **kw, attention_backend=name)
    assert _decided(v) and v.check != "MI_dsv4_attention_backend", (v.check, v.message, _mi_reason(v))
    heads = kvguard.check(dsv4(num_attention_heads=256), tp=1, **kw, attention_backend=name)
    assert heads.check in ("MI_dsv4_attn_heads", "MI_dsv4_flashmla_heads"), (heads.check, heads.message)


@pytest.mark.parametrize("version", ["0.20.1", "0.29.0"])
def test_block_32_decided_before_the_v41_config_class(version):
    # before 0.30.0 every host builds DeepSeek-V4's own FP8 config: a [32, 32] block is block-FP8 (decided)
    cfg = dsv4(quantization_config={"quant_method": "fp8", "weight_block_size": [32, 32]})
    assert _decided(kvguard.check(cfg, vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8"))


def test_block_32_with_fp8_experts_decided_from_0_30():
    # the V4.1 class takes ModelOpt MXFP8 only with e8m0 scales (FP4 experts); FP8 experts keep block-FP8
    cfg = dsv4(expert_dtype="fp8", quantization_config={"quant_method": "fp8", "weight_block_size": [32, 32]})
    assert _decided(kvguard.check(cfg, vllm_version="0.33.0", tp=8, host=H100))


def test_cli_attention_backend_refusal():
    proc = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.33.0", "--", "vllm", "serve",
                           "deepseek-ai/DeepSeek-V4-Flash", "-tp", "8", "--attention-backend",
                           "FLASHINFER_MLA_SPARSE_SM120"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "MI_dsv4_attention_backend" in proc.stdout
    assert REFUSED_ATTN.format("FLASHINFER_MLA_SPARSE_SM120") in proc.stdout


#: the MXFP4 map's names (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py::map_mxfp4_backend), copied from
#: 0.24.0's and 0.33.0's source
MAP_0_24 = ("['deep_gemm', 'flashinfer_trtllm', 'flashinfer_trtllm_afp8', 'flashinfer_cutlass', "
            "'flashinfer_cutlass_afp8', 'triton', 'triton_unfused', 'humming', 'marlin', 'aiter', 'aiter_mxfp4_fp8', "
            "'aiter_mxfp4_mxfp4', 'xpu', 'cpu', 'emulation']")
MAP_0_33 = ("['b12x', 'deep_gemm', 'flashinfer_trtllm', 'flashinfer_trtllm_afp8', 'flashinfer_cutlass', "
            "'flashinfer_cutlass_afp8', 'flashinfer_moe_ep_cutedsl', 'flashinfer_moe_ep_mega_deep_gemm', 'triton', "
            "'triton_unfused', 'humming', 'marlin', 'aiter', 'aiter_triton_mxfp4_bf16', 'aiter_mxfp4_fp8', "
            "'aiter_triton_mxfp4_mxfp4', 'aiter_mxfp4_mxfp4', 'xpu', 'cpu', 'emulation']")


@pytest.mark.parametrize(("version", "name", "names"), [
    ("0.24.0", "cutlass", MAP_0_24), ("0.24.0", "flydsl", MAP_0_24), ("0.28.0", "batched_triton", MAP_0_24),
    ("0.33.0", "flashinfer_cutedsl", MAP_0_33), ("0.33.0", "rdna3", MAP_0_33), ("0.33.0", "hpc", MAP_0_33),
])
def test_moe_backend_the_mxfp4_map_lacks(version, name, names):
    # the FP4 experts' Mxfp4MoEMethod maps the named backend to a kernel family: a name the release takes but its
    # map lacks is a ValueError listing the map, on every GPU
    v = kvguard.check(dsv4(), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8", moe_backend=name)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_moe_backend", "ValueError",
        f"moe_backend='{name}' is not supported for MXFP4 MoE. Expected one of {names}.")


def test_moe_backend_after_the_experts_tp_assert():
    # 256 + 6 redundant experts at tp 4 with EPLB on 0.30.0: the MoE block's assert on tp comes before the experts'
    # method; on 0.31.0 EPLB's even split (FusedMoE) does
    kw = dict(tp=4, host=BIG, kv_cache_dtype="fp8", moe_backend="cutlass", enable_expert_parallel=True,
              enable_eplb=True, num_redundant_experts=6)
    assert kvguard.check(dsv4(), vllm_version="0.30.0", **kw).check == "MI_dsv4_experts_tp"
    assert kvguard.check(dsv4(), vllm_version="0.31.0", **kw).check == "MI_eplb_even"


def test_moe_backend_the_fp8_map_has_left_open_at_the_experts():
    # block-FP8 experts take Fp8MoEMethod, which maps cutlass (VLLM_CUTLASS) and asks its kernel of the GPU: the
    # launch passes every layer before the experts (the released Flash config at tp 8), then is left open
    v = kvguard.check(dsv4(expert_dtype="fp8"), vllm_version="0.33.0", tp=8, host=H100, moe_backend="cutlass")
    assert v.ok and not _decided(v)
    assert "routed experts with --moe-backend cutlass" in _mi_reason(v)
    assert "the layers before the experts are decided" in _mi_reason(v)


#: oracle/fp8.py::map_fp8_backend's names, copied from 0.20.1's and 0.33.0's source (humming and hpc from 0.25.0)
FP8_MAP_0_20 = "['triton', 'deep_gemm', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'marlin', 'aiter']"
FP8_MAP_0_33 = ("['triton', 'deep_gemm', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'marlin', 'humming', "
                "'aiter', 'hpc']")


@pytest.mark.parametrize(("version", "name", "names"), [
    ("0.20.1", "emulation", FP8_MAP_0_20), ("0.23.0", "flashinfer_cutedsl", FP8_MAP_0_20),
    ("0.24.0", "humming", FP8_MAP_0_20), ("0.30.0", "batched_triton", FP8_MAP_0_33),
    ("0.33.0", "flashinfer_cutedsl", FP8_MAP_0_33), ("0.33.0", "rdna3", FP8_MAP_0_33),
])
def test_moe_backend_the_fp8_map_lacks(version, name, names):
    # FP8 experts (expert_dtype fp8, read from 0.20.1): Fp8MoEMethod maps the named backend when it is built,
    # after FusedMoE's own checks — a name the release takes but the FP8 map lacks is a ValueError on every GPU
    v = kvguard.check(dsv4(expert_dtype="fp8"), vllm_version=version, tp=8, host=H100, kv_cache_dtype="fp8",
                      moe_backend=name)
    assert (v.ok, v.stage, v.check, v.exc_type, v.message) == (
        False, "model_init", "MI_dsv4_moe_backend", "ValueError",
        f"moe_backend='{name}' is not supported for FP8 MoE. Expected one of {names}.")


def test_fp8_map_not_asked_on_0_20_0():
    # 0.20.0 ignores expert_dtype (MXFP4 experts), and its MXFP4 selection is left open for a named backend
    v = kvguard.check(dsv4(expert_dtype="fp8"), vllm_version="0.20.0", tp=8, host=H100, kv_cache_dtype="fp8",
                      moe_backend="emulation")
    assert v.ok and "routed experts with --moe-backend emulation" in _mi_reason(v)


@pytest.mark.parametrize(("version", "patch", "launch", "check", "message"), [
    # layer 0's attention class is picked before anything else in the layer (0.24.0+)
    ("0.24.0", {}, {"attention_backend": "FLASHINFER_MLA_SPARSE", "moe_backend": "triton"},
     "MI_dsv4_attention_backend", REFUSED_ATTN.format("FLASHINFER_MLA_SPARSE")),
    # FlashMLA's heads per rank: 256 at tp 1
    ("0.33.0", {"num_attention_heads": 256}, {"tp": 1, "moe_backend": "deep_gemm"}, "MI_dsv4_flashmla_heads",
     "DeepseekV4 FlashMLA does not support 256 heads (FP8 decode kernel requires h_q in {64, 128})."),
    # the auto KV cache before 0.30.0 (0.23.0's message)
    ("0.23.0", {}, {"moe_backend": "flashinfer_cutlass", "kv_cache_dtype": "auto"}, "MI_dsv4_kv_cache_dtype",
     "DeepseekV4 FlashMLA fp8 layout only supports fp8 kv-cache, got auto"),
    # wo_a: 8 groups x 1000 = 8000 outputs, 1000 a rank at tp 8: not whole 128-blocks
    ("0.33.0", {"o_lora_rank": 1000}, {"moe_backend": "triton"}, "MI_fp8_block_n",
     "Weight output_partition_size = 1000 is not divisible by weight quantization block_n = 128."),
    # 0.30.0's assert that tp divides the routed + redundant experts, before the experts' method
    ("0.30.0", {}, {"tp": 4, "moe_backend": "triton", "enable_expert_parallel": True, "enable_eplb": True,
                    "num_redundant_experts": 6}, "MI_dsv4_experts_tp",
     "n_physical_experts=262 must be divisible by tp_size=4. Adjust num_redundant_experts."),
])
def test_refusals_before_the_fp8_experts_with_a_named_backend(version, patch, launch, check, message):
    # FP8 experts with a --moe-backend whose kernel the GPU decides: every layer before the experts is decided
    kw = {"tp": 8, "kv_cache_dtype": "fp8", **launch}
    v = kvguard.check(dsv4(expert_dtype="fp8", **patch), vllm_version=version, host=BIG, **kw)
    assert (v.ok, v.check, v.message) == (False, check, message), _mi_reason(v)


def test_fusedmoe_checks_before_a_named_fp8_backend():
    # 256 + 6 redundant experts over 4 EP ranks on 0.31.0 (no tp assert): FusedMoE's even split comes before the
    # experts' method, with a backend it maps (triton) or not (emulation)
    kw = dict(tp=4, host=BIG, kv_cache_dtype="fp8", enable_expert_parallel=True, enable_eplb=True,
              num_redundant_experts=6)
    for name in ("triton", "emulation"):
        v = kvguard.check(dsv4(expert_dtype="fp8"), vllm_version="0.31.0", moe_backend=name, **kw)
        assert v.check == "MI_eplb_even", (name, v.check, v.message, _mi_reason(v))


def test_megamoe_backend_left_open_whole():
    # deep_gemm_mega_moe changes the MoE block and its sequence-parallel choice: nothing of the launch is decided
    v = kvguard.check(dsv4(expert_dtype="fp8"), vllm_version="0.33.0", tp=8, host=H100,
                      attention_backend="FLASHINFER_MLA_SPARSE", moe_backend="deep_gemm_mega_moe",
                      enable_expert_parallel=True)
    assert v.check != "MI_dsv4_attention_backend" and "MegaMoE" in _mi_reason(v), (v.check, _mi_reason(v))


def test_moe_backend_the_map_lacks_open_on_0_20():
    # 0.20.x's FP4 experts ask the generic MXFP4 selection (the oracle stands it in): left open there
    v = kvguard.check(dsv4(), vllm_version="0.20.2", tp=8, host=H100, kv_cache_dtype="fp8", moe_backend="cutlass")
    assert "--moe-backend cutlass" in _mi_reason(v)
