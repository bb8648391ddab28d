"""Model construction (weight-shard geometry, block-FP8, EP/EPLB): kvguard vs the release building the model.

Generated inputs derived from real checkpoints' configs (the catalog's block-FP8 checkpoints:
DeepSeek-V3, Kimi-K2, Qwen3-30B-A3B-FP8, Qwen3-235B-A22B-FP8, Qwen3-32B-FP8, MiniMax-M2.5, and
their unquantized siblings; variants that change one size the checks read: the MoE or dense
intermediate size, the FP8 block, the ignored layers) and layouts (tp, dp, pcp, expert
parallel, EPLB with redundant experts).  Each config is cut to the layers that differ (the first
MoE layer and the dense ones before it), the same config for both sides.  The oracle
(tests/upstream/quant_runner.py) builds the model with the release's own classes on the meta
device at the layout's sizes; kvguard walks its architecture data (kvguard.quant).  Compared:
accepted or not, exception type and message (the model-init stage raises unwrapped).

AWQ / GPTQ and compressed-tensors configs (in the forms AutoAWQ / AutoGPTQ / llm-compressor write them) on
dense bases are built at tp 1-64 (wna16_variants, ct_variants); AWQ / GPTQ and compressed-tensors configs on
MoE bases at MoE layouts (tp, tp x dp, EP, EPLB: wna16_moe_variants, ct_moe_variants).

The same runner call also builds the first two configs unquantized at tp=1 and compares the
layers the release constructs (prefix, class, sizes, in order) with kvguard's architecture data
(kvguard/data/quant_archs.json).

AWQ / GPTQ: dense checkpoints (WNA16_BASES) at tp 1-64 and, from the MoE bases (WNA16_MOE_BASES:
Qwen3-30B-A3B, Mixtral-8x7B), KVG_QUANT_CONFIGS // 2 MoE checkpoints at tp / dp / EP layouts (the
experts' Marlin MoE method or its MoeWNA16 fall-back; kvguard.quant.wna16_moe), and as many of DeepSeek-V2/V3,
Kimi-K2 and MiniMax-M2 (WNA16_MLA_BASES: MLA projections, shared experts, dense first layers, an unquantized
router gate).

Releases: KVG_ORACLE_VERSIONS; size: KVG_QUANT_CONFIGS configs x KVG_QUANT_LAYOUTS layouts per
release (default 2 x 10, a sample: the configs start at a different base checkpoint per release so
that the group releases of .ci/run cover all of them; each distinct architecture costs the oracle
~10 s).  The full runs: tools/quant_differential.py.  Skipped without the oracle unless
KVG_REQUIRE_ORACLE=1; KVG_DIFF_REPORT_DIR keeps the per-release reports (quant-X.json).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
from importlib import import_module

import pytest

from kvguard import catalog
from kvguard.quant import Launch, family_of, implements_moe, layers, llama4, outcome, qwen3_vl, render
from kvguard.quant.names import TOWER_WRAPPERS
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

from ._oracle import oracle_or_skip as _python
from ._oracle import release_sample, run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()

#: real checkpoints (kvguard/catalog, each with its source) the generated configs start from
BASES = ("deepseek-ai/DeepSeek-V3", "moonshotai/Kimi-K2-Instruct", "Qwen/Qwen3-30B-A3B-FP8",
         "Qwen/Qwen3-235B-A22B-FP8", "Qwen/Qwen3-32B-FP8", "MiniMaxAI/MiniMax-M2.5", "Qwen/Qwen3-30B-A3B",
         "deepseek-ai/DeepSeek-V2-Lite", "meta-llama/Llama-3.1-8B-Instruct", "mistralai/Mixtral-8x7B-v0.1")


def cut(config: dict) -> dict:
    """The config with only the layers that differ: the dense ones before the first MoE layer, and one MoE."""
    cfg = copy.deepcopy(config)
    cfg.pop("auto_map", None)  # read as the model type the release registers (no repository code here)
    first_moe = cfg.get("first_k_dense_replace") or 0
    cfg["num_hidden_layers"] = min(cfg.get("num_hidden_layers", 2), max(2, first_moe + 1))
    return cfg


def draw_layouts(rng: random.Random, candidates: "tuple[dict, ...]", heads: int, n_layouts: int, one_of_last: int = 0,
                 experts: bool = True) -> list[dict]:
    """Up to ``n_layouts`` of ``candidates`` (copies) whose tp divides ``heads`` (VllmConfig refuses the others before
    the model is built; expert parallel ones too without ``experts``), drawn with ``rng``.  ``one_of_last``: the last
    that many candidates are a kind every case gets one of (expert parallel, EPLB): a sample of the others (at least
    one) and one of those (the only one taken without a draw), the order of draws the recorded seeds' cases depend
    on."""
    lays = [dict(lay) for lay in candidates if heads % lay["tp"] == 0 and (experts or not lay.get("ep"))]
    if not one_of_last:
        return rng.sample(lays, min(n_layouts, len(lays)))
    drawn = rng.sample(lays[:-one_of_last], min(max(1, n_layouts - 1), len(lays) - one_of_last))
    return drawn + (lays[-1:] if one_of_last == 1 else [rng.choice(lays[-one_of_last:])])


#: the last release whose multimodal wrappers validate a copy of the VllmConfig for their text config at the layout's
#: tp, whose CPU swap space (4 GiB per rank) the oracle host's memory refuses (construction does not read it)
WRAPPER_SWAP_UNTIL = "0.17.1"


def wrapper_host(version: str, cases: list[dict]) -> list[dict]:
    """The multimodal wrappers' ``cases`` on the oracle host: no CPU swap space up to WRAPPER_SWAP_UNTIL."""
    if resolve(version).within(None, WRAPPER_SWAP_UNTIL):
        for case in cases:
            case["engine_args"]["swap_space"] = 0
    return cases


def with_extra_variants(generated: list[dict], seed_base: int, *extras) -> list[dict]:
    """``generated`` and, for each ``(offset, count, make)`` of ``extras`` with a count, ``make(rng, count)``'s cases,
    each drawn from a generator of its own (seeded ``seed_base + offset``) so that the others stay those of earlier
    runs."""
    for offset, count, make in extras:
        if count:
            generated += make(random.Random(seed_base + offset), count)
    return generated


def variants(rng: random.Random, n: int, offset: int = 0) -> list[dict]:
    """``n`` configs: the bases once each (starting at ``offset``, so that sampled runs of successive
    releases cover all of them), then one-size variants of random bases."""
    bases = BASES[offset % len(BASES):] + BASES[:offset % len(BASES)]
    out = [cut(catalog.lookup(b).config) for b in bases]
    while len(out) < n:
        cfg = cut(catalog.lookup(rng.choice(BASES)).config)
        q = cfg.get("quantization_config")
        roll = rng.random()
        experts_key = next((k for k in ("num_experts", "n_routed_experts", "num_local_experts") if cfg.get(k)), None)
        if experts_key and roll < 0.12:
            cfg[experts_key] = rng.choice([4, 6, 8, 12, 20, 60])
            if cfg.get("num_experts_per_tok", 0) > cfg[experts_key]:
                cfg["num_experts_per_tok"] = 2
            if cfg.get("n_group") and cfg[experts_key] % cfg["n_group"]:
                cfg["n_group"], cfg["topk_group"] = 1, 1
        elif "moe_intermediate_size" in cfg and roll < 0.4:
            cfg["moe_intermediate_size"] = rng.choice([256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072])
        elif roll < 0.6:
            cfg["intermediate_size"] = rng.choice([1536, 2048, 3072, 6144, 8960, 11008, 12288, 14336, 18432, 25600])
        elif q is not None and roll < 0.8:
            q = cfg["quantization_config"] = dict(q)
            q["weight_block_size"] = rng.choice([[128, 128], [64, 64], [256, 128], [128, 64], [64, 128]])
        elif q is not None:
            q = cfg["quantization_config"] = dict(q)
            prefix = "model.layers.0."
            q["modules_to_not_convert"] = rng.choice([
                [prefix + "mlp.down_proj"], [prefix + "self_attn.q_proj"], [prefix + "mlp.gate_proj", prefix + "mlp.up_proj"],
                [prefix + "mlp.experts"], ["lm_head"]])
            q.pop("ignored_layers", None)
        else:
            cfg.pop("quantization_config", None)
        out.append(cfg)
    return out[:n]


#: AWQ / GPTQ: real dense checkpoints (the catalog's Qwen2.5-72B-Instruct-AWQ, whose config.json says
#: torch_dtype float16, and Llama-3.1-8B) with quantization configs in the form AutoAWQ / AutoGPTQ write
#: them (AWQ: bits, group_size, zero_point, version, modules_to_not_convert; GPTQ: bits, group_size,
#: damp_percent, desc_act, sym, true_sequential), varied over the values real checkpoints use
WNA16_BASES = ("Qwen/Qwen2.5-72B-Instruct-AWQ", "meta-llama/Llama-3.1-8B-Instruct")


def wna16_variants(rng: random.Random, n: int) -> list[tuple[dict, dict]]:
    """``n`` (config, engine args) pairs: AWQ and GPTQ checkpoints, sometimes with --quantization."""
    out = []
    while len(out) < n:
        cfg = cut(catalog.lookup(rng.choice(WNA16_BASES)).config)
        cfg["torch_dtype"] = "float16"
        cfg["num_hidden_layers"] = 1
        if rng.random() < 0.35:
            cfg["intermediate_size"] = rng.choice([11008, 13824, 14336, 18944, 27392, 29568, 29696])
        group = rng.choice([128, 128, -1, 32, 64])
        cfg["quantization_config"], engine = awq_or_gptq(
            rng, group, [None, None, ["lm_head"], ["mlp.down_proj"], ["self_attn"]], desc_act_share=0.3,
            awq_quantization_share=0.3)
        out.append((cfg, engine))
    return out


#: AWQ / GPTQ on MoE architectures (kvguard.quant.wna16_moe): the catalog's Qwen3-30B-A3B (the base of
#: Qwen3-30B-A3B-GPTQ-Int4 / -AWQ) and Mixtral-8x7B, cut to their first (MoE) layer, with quantization configs
#: in the form AutoAWQ / AutoGPTQ write them; the MoE intermediate size and the expert count are varied over
#: sizes that reach the Marlin MoE kernel, its MoE WNA16 fall-back and the fall-back's refusal
WNA16_MOE_BASES = ("Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-v0.1")


def wna16_moe_variants(rng: random.Random, n: int, version: "str | None" = None) -> list[tuple[dict, dict]]:
    """``n`` (config, engine args) pairs: AWQ and GPTQ checkpoints of MoE models, sometimes with --quantization and
    (``version`` 0.25.0+, where the WNA16 MoE selection reads it) --moe-backend."""
    out = []
    while len(out) < n:
        base = WNA16_MOE_BASES[len(out) % len(WNA16_MOE_BASES)]
        cfg = cut(catalog.lookup(base).config)
        cfg["num_hidden_layers"] = 1
        key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
        if rng.random() < 0.6:
            cfg[key] = rng.choice([704, 768, 896, 1408, 1536, 2560, 3072, 14336])
        if "num_experts" in cfg and rng.random() < 0.25:
            cfg["num_experts"] = rng.choice([60, 64, 128])
            cfg["num_experts_per_tok"] = min(cfg.get("num_experts_per_tok", 8), 8)
        group = rng.choice([128, 128, -1, 32, 64])
        cfg["quantization_config"], engine = awq_or_gptq(
            rng, group, [None, None, ["gate"], ["mlp.gate"], ["experts"]], desc_act_share=0.25, awq_dtype_into=cfg)
        # --moe-backend (a stream of its own, so that the cases above stay those of earlier runs): the WNA16 MoE
        # selection's names (and others the selection does not take), read from 0.25.0; earlier releases ignore it
        # there (and up to 0.16.x have no such argument)
        backend_rng = random.Random(f"moe-backend-{len(out)}")
        if version is not None and resolve(version).within("0.25.0") and backend_rng.random() < MOE_BACKEND_SHARE:
            engine["moe_backend"] = backend_rng.choice(MOE_BACKENDS)
        out.append((cfg, engine))
    return out


#: AWQ / GPTQ on the MLA / MiniMax MoE families (kvguard.quant.wna16_moe): the catalog's DeepSeek-V2-Lite (MLA
#: without a q LoRA: a quantized replicated kv_a_proj_with_mqa), DeepSeek-V3 (the base of DeepSeek-R1-AWQ /
#: DeepSeek-V3-AWQ), Kimi-K2 (384 experts) and MiniMax-M2.5 (the base of MiniMax-M2.5-AWQ; registered from 0.11.1),
#: cut to one dense layer and the first MoE layer, with AWQ / GPTQ configs in the form AutoAWQ / AutoGPTQ /
#: GPTQModel write them and the unquantized modules real releases name (the router gate, attention, the shared
#: experts, the dense first layers); how many run() builds per release (None: half of the configs);
#: tools/quant_differential.py --wna16-mla
WNA16_MLA_CONFIGS: "int | None" = None
WNA16_MLA_BASES = ("deepseek-ai/DeepSeek-V3", "MiniMaxAI/MiniMax-M2.5", "deepseek-ai/DeepSeek-V2-Lite",
                   "moonshotai/Kimi-K2-Instruct")


def _mla_base(base: str, version: str) -> dict:
    """The catalog config of a WNA16_MLA_BASES checkpoint as the release reads it, cut to one dense layer (where the
    model has them) and the first MoE layer, without its quantization_config."""
    cfg = cut(catalog.lookup(base).config)
    cfg.pop("quantization_config", None)
    if cfg.get("model_type") == "kimi_k2":
        cfg["model_type"] = "deepseek_v3"  # its config class is DeepSeek-V3's (without its repository code)
    if cfg.get("model_type") == "minimax_m2" and _kvguard_refuses_config(cfg, version):
        # Transformers before 5.x has no minimax_m2 config class (the repository code's): Mixtral's reads the
        # same sizes and keeps the other keys as attributes; the architecture picks vLLM's MiniMax-M2 model
        cfg["model_type"] = "mixtral"
    if "first_k_dense_replace" in cfg:
        cfg["first_k_dense_replace"] = min(cfg["first_k_dense_replace"] or 0, 1)
        cfg["num_hidden_layers"] = cfg["first_k_dense_replace"] + 1
        cfg.pop("num_nextn_predict_layers", None)
    else:
        cfg["num_hidden_layers"] = 1
    return cfg


def awq_or_gptq(rng: random.Random, group: int, unconverted: list, desc_act_share: float,
                awq_quantization_share: float = 0.15, awq_dtype_into: "dict | None" = None) -> tuple[dict, dict]:
    """A quantization_config as AutoAWQ (4-bit, zero points mostly, one of ``unconverted`` left unquantized) or
    AutoGPTQ / GPTQModel (4- or 8-bit, ``desc_act`` in ``desc_act_share`` of them) write it with ``group``, and the
    engine arguments (now and then ``--quantization`` naming the Marlin or the plain method: in
    ``awq_quantization_share`` of the AWQ draws).  ``awq_dtype_into``: a config whose torch_dtype an AWQ draw picks
    first (float16 or bfloat16; the MoE generator's draws, which its recorded seeds depend on)."""
    engine: dict = {}
    if rng.random() < 0.55:
        if awq_dtype_into is not None:
            awq_dtype_into["torch_dtype"] = rng.choice(["float16", "bfloat16"])
        q = {"bits": 4, "group_size": group, "zero_point": rng.random() < 0.85, "version": "gemm",
             "modules_to_not_convert": rng.choice(unconverted), "quant_method": "awq"}
        if rng.random() < awq_quantization_share:
            engine["quantization"] = rng.choice(["awq", "awq_marlin"])
    else:
        q = {"bits": rng.choice([4, 4, 8]), "group_size": group, "damp_percent": 0.01,
             "desc_act": rng.random() < desc_act_share, "sym": True, "true_sequential": True, "quant_method": "gptq"}
        if rng.random() < 0.2:
            engine["quantization"] = "gptq_marlin"
    return q, engine


def wna16_mla_variants(rng: random.Random, n: int, version: str, offset: int = 0) -> list[tuple[dict, dict]]:
    """``n`` (config, engine args) pairs: AWQ and GPTQ checkpoints of DeepSeek-V2/V3, Kimi-K2 and MiniMax-M2 (the
    latter from 0.11.1, where the release registers it), bases in turn from ``offset``."""
    # MiniMax-M2: registered from 0.11.1
    bases = [b for b in WNA16_MLA_BASES if "MiniMax" not in b or resolve(version).within("0.11.1")]
    out = []
    while len(out) < n:
        base = bases[(offset + len(out)) % len(bases)]
        cfg = _mla_base(base, version)
        key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
        if rng.random() < 0.6:
            cfg[key] = rng.choice([704, 768, 1408, 1536, 2048, 2560, 3072])
        if rng.random() < 0.2:
            # a router width the Marlin layer check does not take (a quantized gate would be refused)
            experts = "n_routed_experts" if "n_routed_experts" in cfg else "num_local_experts"
            cfg[experts] = rng.choice([60, 72, 160])
            cfg["num_experts_per_tok"] = min(cfg.get("num_experts_per_tok", 8), 8)
            if cfg.get("n_group"):
                cfg["n_group"], cfg["topk_group"] = 1, 1
        if "first_k_dense_replace" in cfg and rng.random() < 0.3:
            cfg["intermediate_size"] = rng.choice([10944, 12288, 18432, 14336])
        if "kv_lora_rank" in cfg and rng.random() < 0.1:
            # a latent width whose kv_a_proj output (kv_lora_rank + rope dims) Marlin does not take: the replicated
            # projection is quantized (the plain kernels' packing check), unlike the router gate
            cfg["kv_lora_rank"] = 500
        group = rng.choice([128, 128, 64, -1, 32])
        cfg["torch_dtype"] = rng.choice(["float16", "bfloat16"])
        unconverted = [None, None, ["gate"], ["mlp.gate"], ["self_attn"], ["shared_experts"], ["model.layers.0."],
                       ["experts"], ["kv_a_proj_with_mqa"], ["lm_head"], ["q_proj"], ["up_proj"]]
        cfg["quantization_config"], engine = awq_or_gptq(rng, group, unconverted, desc_act_share=0.25)
        backend_rng = random.Random(f"mla-moe-backend-{len(out)}")
        if resolve(version).within("0.25.0") and backend_rng.random() < MOE_BACKEND_SHARE / 2:
            engine["moe_backend"] = backend_rng.choice(MOE_BACKENDS)
        out.append((cfg, engine))
    return out


#: AWQ modules_to_not_convert entries that name part of a fused layer (its own name, one shard): the fixed cases
#: tools/quant_differential.py --fused-shards adds (not in the CI sample); (base, entries)
FUSED_SHARD_CASES = (
    ("meta-llama/Llama-3.1-8B-Instruct", ["q_proj"]), ("meta-llama/Llama-3.1-8B-Instruct", ["gate"]),
    ("Qwen/Qwen3-30B-A3B", ["k_proj"]), ("deepseek-ai/DeepSeek-V3", ["gate"]),
    ("deepseek-ai/DeepSeek-V3", ["kv_a_proj_with_mqa"]), ("deepseek-ai/DeepSeek-V3", ["up_proj"]),
    ("deepseek-ai/DeepSeek-V2-Lite", ["gate"]), ("deepseek-ai/DeepSeek-V3", ["mlp.gate"]),
    ("MiniMaxAI/MiniMax-M2.5", ["q_proj"]), ("MiniMaxAI/MiniMax-M2.5", ["qkv_proj"]))
FUSED_SHARDS = False


def fused_shard_configs(version: str) -> list[dict]:
    """FUSED_SHARD_CASES as AWQ checkpoints (4-bit, zero points, groups of 64), cut to one dense and the first MoE
    layer; MiniMax-M2 where the release reads its config without repository code."""
    out = []
    for base, entries in FUSED_SHARD_CASES:
        cfg = cut(catalog.lookup(base).config)
        cfg.pop("quantization_config", None)
        if "first_k_dense_replace" in cfg:
            cfg["first_k_dense_replace"], cfg["num_hidden_layers"] = 1, 2
        else:
            cfg["num_hidden_layers"] = 1
        cfg["torch_dtype"] = "bfloat16"
        cfg["quantization_config"] = {"bits": 4, "group_size": 64, "zero_point": True, "version": "gemm",
                                      "modules_to_not_convert": entries, "quant_method": "awq"}
        if "MiniMax" in base and _kvguard_refuses_config(cfg, version):
            continue
        out.append(cfg)
    return out


#: the share of the AWQ / GPTQ MoE cases with --moe-backend, and the names they take (KernelConfig.moe_backend's
#: literals of 0.25.0+)
MOE_BACKEND_SHARE = 0.5
MOE_BACKENDS = ("marlin", "triton", "humming", "flashinfer_trtllm", "emulation", "cutlass", "deep_gemm")


#: compressed-tensors: real dense checkpoints with quantization configs in the form llm-compressor writes them
#: (quant_method, format, quantization_status, config_groups {group_0: targets ["Linear"], weights,
#: input_activations, output_activations, format}, ignore, kv_cache_scheme, sparsity_config), the weights and
#: activations of its presets (FP8_DYNAMIC, FP8 static, FP8_BLOCK, W4A16, W8A16) varied over the values real
#: checkpoints use, and a few forms kvguard leaves undecided (asymmetric, activation order, a layer ignored)
#: how many compressed-tensors configs run() builds (None: half the configs); tools/quant_differential.py --ct-configs
CT_CONFIGS: "int | None" = None
CT_BASES = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen2.5-72B-Instruct-AWQ")


def ct_scheme_args(**k) -> dict:
    """One weights / activations scheme of a compressed-tensors config group, as llm-compressor writes it (its
    defaults: 8-bit symmetric float per channel, static, minmax observer), with ``k`` changed."""
    args = {"num_bits": 8, "type": "float", "symmetric": True, "group_size": None, "strategy": "channel",
            "block_structure": None, "dynamic": False, "actorder": None, "observer": "minmax", "observer_kwargs": {}}
    args.update(k)
    return args


def _ct_config(weights: dict, activations: "dict | None", fmt: str, ignore: list[str]) -> dict:
    """A compressed-tensors quantization_config of one ``Linear`` group, as llm-compressor writes it."""
    return {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": activations,
                                          "output_activations": None, "format": fmt}},
            "ignore": ignore, "kv_cache_scheme": None, "sparsity_config": {}, "transform_config": {},
            "global_compression_ratio": None}


def ct_quantization_config(rng: random.Random) -> dict:
    """One compressed-tensors quantization_config, as llm-compressor writes it."""
    roll = rng.random()
    fmt = "float-quantized"
    if roll < 0.2:      # FP8_DYNAMIC
        w, a = ct_scheme_args(), ct_scheme_args(strategy="token", dynamic=True, observer=None)
    elif roll < 0.3:    # FP8 (static per-tensor)
        w, a = ct_scheme_args(strategy="tensor"), ct_scheme_args(strategy="tensor")
    elif roll < 0.55:   # FP8_BLOCK
        block = rng.choice([[128, 128], [128, 128], [64, 64], [128, 64], [64, 128]])
        w = ct_scheme_args(strategy="block", block_structure=block)
        a = ct_scheme_args(strategy="group", group_size=block[1], dynamic=True, observer=None)
    else:               # W4A16 / W8A16 (pack-quantized)
        fmt = "pack-quantized"
        bits = rng.choice([4, 4, 4, 8])
        group = rng.choice([128, 128, 64, 32, None])
        w = ct_scheme_args(num_bits=bits, type="int", strategy="group" if group else "channel", group_size=group)
        a = None
        if rng.random() < 0.1:
            w["symmetric"] = False
        elif rng.random() < 0.1:
            w["actorder"] = "group"
        elif rng.random() < 0.15:
            w["actorder"] = "weight"
    ignore = ["lm_head"]
    if rng.random() < 0.25:
        # whole layers, some shards of a fused layer (should_ignore_layer's ValueError), the fused name itself
        # (read first from 0.30.0, verbatim only before), patterns matched at the start only
        ignore += rng.choice([["re:.*down_proj"], ["re:.*self_attn.*"], ["model.layers.0.mlp.gate_proj"], ["re:.*gate$"],
                              ["re:.*self_attn.q_proj"], ["re:.*qkv_proj", "re:.*self_attn.q_proj"],
                              ["model.layers.0.self_attn.qkv_proj", "model.layers.0.self_attn.k_proj"],
                              ["re:.*[qkv]_proj$", "re:.*o_proj"], ["re:self_attn.*"], ["re:.*mlp.*"],
                              ["re:model.layers.0.mlp.up_proj"]])
    return _ct_config(w, a, fmt, ignore)


#: the dense bases' MLP widths the compressed-tensors generators draw (per-rank shares whole and not whole blocks /
#: groups at tp 1-64)
CT_DENSE_INTERMEDIATE = (11008, 13824, 14336, 18944, 25600, 27392, 29568, 29696)


def ct_dense_config(rng: random.Random, dtypes: "str | tuple[str, ...]", resized_share: float,
                    widths: "tuple[int, ...]" = CT_DENSE_INTERMEDIATE) -> dict:
    """A one-layer config of a CT_BASES checkpoint (its quantization_config still to be set): ``dtypes`` the
    torch_dtype (drawn when a tuple), the MLP width one of ``widths`` in ``resized_share`` of the draws.  The draws are
    made in that order, which the recorded seeds' configs depend on."""
    cfg = cut(catalog.lookup(rng.choice(CT_BASES)).config)
    cfg["num_hidden_layers"] = 1
    cfg["torch_dtype"] = dtypes if isinstance(dtypes, str) else rng.choice(dtypes)
    if rng.random() < resized_share:
        cfg["intermediate_size"] = rng.choice(widths)
    return cfg


def ct_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` one-layer dense configs with compressed-tensors quantization."""
    out = []
    while len(out) < n:
        cfg = ct_dense_config(rng, "bfloat16", 0.4)
        cfg["quantization_config"] = ct_quantization_config(rng)
        out.append(cfg)
    return out


#: compressed-tensors INT8 W8A8 on the dense bases: llm-compressor's W8A8 preset (per-channel symmetric INT8 weights,
#: dynamic per-token INT8 activations, format int-quantized, e.g. RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8),
#: varied over the forms the releases read apart (per-tensor weights, static per-tensor activations as SmoothQuant
#: exports write them, asymmetric activations) and a few kvguard leaves undecided (group activations, pack-quantized,
#: asymmetric weights, an ignored layer); how many run() builds per release (None: one, the CI's share);
#: tools/quant_differential.py --ct-int8
CT_INT8_CONFIGS: "int | None" = None


def ct_int8_quantization_config(rng: random.Random) -> dict:
    """One compressed-tensors INT8 W8A8 quantization_config."""
    w = ct_scheme_args(type="int", strategy=rng.choice(["channel", "channel", "channel", "tensor"]))
    a = ct_scheme_args(type="int", strategy="token", dynamic=True, observer=None)
    roll = rng.random()
    if roll < 0.25:     # static per-tensor activations (SmoothQuant-style exports)
        a.update(strategy="tensor", dynamic=False, observer="minmax")
    elif roll < 0.35:
        a["symmetric"] = False
    elif roll < 0.42:   # forms kvguard leaves undecided
        a.update(strategy="group", group_size=128)
    elif roll < 0.47:
        w["symmetric"] = False
    fmt = "pack-quantized" if rng.random() < 0.05 else "int-quantized"
    ignore = ["lm_head"]
    if rng.random() < 0.1:
        ignore.append(rng.choice(["re:.*down_proj", "model.layers.0.self_attn.q_proj"]))
    return _ct_config(w, a, fmt, ignore)


def ct_int8_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` one-layer dense configs with compressed-tensors INT8 W8A8 quantization."""
    out = []
    while len(out) < n:
        cfg = ct_dense_config(rng, ("bfloat16", "bfloat16", "float16"), 0.4)
        cfg["quantization_config"] = ct_int8_quantization_config(rng)
        out.append(cfg)
    return out


#: compressed-tensors NVFP4 on the dense bases: llm-compressor's NVFP4 preset (FP4 weights and activations in groups of
#: 16 with a global scale, activations dynamic "local", format nvfp4-pack-quantized, e.g. RedHatAI/Qwen3-8B-NVFP4,
#: RedHatAI/Llama-3.3-70B-Instruct-NVFP4) and its weight-only NVFP4A16 form, on intermediate sizes whose per-rank share
#: is and is not a multiple of 16 (29568 / 16 = 1848); a few forms kvguard leaves undecided (FP8 activations beside
#: NVFP4 weights, an ignored layer, a Qwen3-MoE base: the NVFP4 experts, the scale_dtype / zp_dtype fields of newer
#: exports up to 0.13.x); how many run() builds per release (None: one,
#: the CI's share); tools/quant_differential.py --ct-nvfp4
CT_NVFP4_CONFIGS: "int | None" = None


def ct_nvfp4_quantization_config(rng: random.Random) -> dict:
    """One compressed-tensors NVFP4 quantization_config, as llm-compressor writes it."""
    w = ct_scheme_args(num_bits=4, strategy="tensor_group", group_size=16)
    a = ct_scheme_args(num_bits=4, strategy="tensor_group", group_size=16, dynamic="local")
    if rng.random() < 0.5:
        # the fields llm-compressor writes with compressed-tensors 0.13+ (0.10.2-0.13.x pin packages that refuse them)
        for args in (w, a):
            args.update(scale_dtype="torch.float8_e4m3fn", zp_dtype=None)
    roll = rng.random()
    if roll < 0.35:     # NVFP4A16 (weight-only)
        a = None
    elif roll < 0.42:   # FP8 activations beside NVFP4 weights: ct_nvfp4_fp8_activations
        a = ct_nvfp4_fp8_activations(rng)
    fmt = "nvfp4-pack-quantized"
    ignore = ["lm_head"]
    if rng.random() < 0.08:
        ignore.append(rng.choice(["re:.*down_proj", "model.layers.0.self_attn.q_proj"]))
    return _ct_config(w, a, fmt, ignore)


def ct_nvfp4_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` one-layer configs with compressed-tensors NVFP4 quantization (dense bases; one in ten Qwen3-MoE)."""
    out = []
    while len(out) < n:
        if rng.random() < 0.1:
            cfg = cut(catalog.lookup("Qwen/Qwen3-30B-A3B").config)
            cfg["num_hidden_layers"] = 1
            cfg["quantization_config"] = ct_nvfp4_quantization_config(rng)
            cfg["quantization_config"]["ignore"] = ["lm_head", "re:.*mlp.gate$"]
            out.append(cfg)
            continue
        cfg = ct_dense_config(rng, "bfloat16", 0.5, CT_DENSE_INTERMEDIATE + (12296,))
        cfg["quantization_config"] = ct_nvfp4_quantization_config(rng)
        out.append(cfg)
    return out


def ct_nvfp4_fp8_activations(rng: random.Random) -> dict:
    """FP8 input activations beside NVFP4 weights: llm-compressor's FP8_DYNAMIC (dynamic per-token) and FP8 (static
    per-tensor) activation forms, the other per-token / per-tensor FP8 forms (dynamic per-tensor, asymmetric), now and
    then one kvguard leaves undecided (static per-token, which the compressed-tensors package refuses while VllmConfig
    is built; group-wise FP8; INT8 per-token)."""
    roll = rng.random()
    if roll < 0.45:
        return ct_scheme_args(strategy="token", dynamic=True, observer=None)
    if roll < 0.75:
        return ct_scheme_args(strategy="tensor")
    if roll < 0.9:
        return rng.choice([ct_scheme_args(strategy="tensor", dynamic=True, observer=None), ct_scheme_args(strategy="token"),
                           ct_scheme_args(strategy="token", dynamic=True, observer=None, symmetric=False),
                           ct_scheme_args(strategy="tensor", symmetric=False)])
    return rng.choice([ct_scheme_args(strategy="group", group_size=128, dynamic=True, observer=None),
                       ct_scheme_args(type="int", strategy="token", dynamic=True, observer=None)])


#: compressed-tensors NVFP4 weights with FP8 input activations (ct_nvfp4_fp8_variants): refused at the first
#: quantized linear layer, by release (a NotImplementedError up to 0.22.x, a ValueError from 0.23.0); the dense bases,
#: Qwen3-MoE, Mixtral and now and then DeepSeek-V3 (left undecided); tools/quant_differential.py --ct-nvfp4-fp8-only
CT_NVFP4_FP8_BASES = CT_BASES + ("Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-v0.1")


def ct_nvfp4_fp8_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` one-layer configs with NVFP4 weights and FP8 (sometimes other) input activations."""
    out = []
    while len(out) < n:
        base = "deepseek-ai/DeepSeek-V3" if rng.random() < 0.05 else rng.choice(CT_NVFP4_FP8_BASES)
        cfg = cut(catalog.lookup(base).config)
        cfg["num_hidden_layers"] = 1
        cfg["torch_dtype"] = "bfloat16"
        if base in CT_BASES and rng.random() < 0.4:
            cfg["intermediate_size"] = rng.choice([11008, 13824, 14336, 29568, 12296])
        w = ct_scheme_args(num_bits=4, strategy="tensor_group", group_size=16)
        a = ct_nvfp4_fp8_activations(rng)
        if rng.random() < 0.3:
            # the fields of compressed-tensors 0.13+ exports (0.10.2-0.13.x pin packages that refuse them)
            for args in (w, a):
                args.update(scale_dtype="torch.float8_e4m3fn", zp_dtype=None)
        ignore = list(CT_MOE_BASES.get(base, ["lm_head"]))
        if rng.random() < 0.15:
            ignore.append(rng.choice(["re:.*down_proj", "re:.*self_attn.*", "model.layers.0.self_attn.q_proj"]))
        cfg["quantization_config"] = _ct_config(w, a, "nvfp4-pack-quantized", ignore)
        out.append(cfg)
    return out


#: compressed-tensors NVFP4 / NVFP4A16 experts (RedHatAI/Qwen3-30B-A3B-NVFP4, RedHatAI/Qwen3-235B-A22B-NVFP4; Mixtral
#: the same method): the MoE bases with the ignore lists those checkpoints carry, other MoE intermediate sizes (per-rank
#: shares that are not multiples of 16 or 2), the MoE layouts and EPLB; how many run() builds per release (None: one;
#: kvguard decides them in every release, the weight-only form refused up to 0.13.x); tools/quant_differential.py
#: --ct-nvfp4-moe
CT_NVFP4_MOE_CONFIGS: "int | None" = None
CT_NVFP4_MOE_BASES = ("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B", "mistralai/Mixtral-8x7B-v0.1")


def ct_nvfp4_moe_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` MoE configs (one MoE layer) with compressed-tensors NVFP4 or NVFP4A16 quantization."""
    out = []
    while len(out) < n:
        base = CT_NVFP4_MOE_BASES[len(out) % len(CT_NVFP4_MOE_BASES)]
        cfg = cut(catalog.lookup(base).config)
        cfg["num_hidden_layers"] = 1
        cfg["torch_dtype"] = "bfloat16"
        key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
        if rng.random() < 0.5:
            cfg[key] = rng.choice([200, 384, 520, 768, 1000, 1536, 3000, 14336])
        q = ct_nvfp4_quantization_config(rng)
        for args in (q["config_groups"]["group_0"]["weights"], q["config_groups"]["group_0"]["input_activations"]):
            if isinstance(args, dict) and args.get("num_bits") == 8:
                # the FP8-activation form is refused (0.23.0+) before any MoE method: not this family's subject
                q["config_groups"]["group_0"]["input_activations"] = None
        q["ignore"] = list(CT_MOE_BASES[base])
        cfg["quantization_config"] = q
        out.append(cfg)
    return out


#: compressed-tensors on MoE models: the bases of llm-compressor's MoE checkpoints (RedHatAI/Qwen3-30B-A3B-FP8-dynamic,
#: Qwen3-235B-A22B-FP8-dynamic, Qwen3-30B-A3B-quantized.w4a16, Mixtral-8x7B FP8, DeepSeek-V3 style FP8 block), with
#: the ignore lists those checkpoints carry (lm_head and the router gates, as re: patterns)
CT_MOE_BASES = {"Qwen/Qwen3-30B-A3B": ["lm_head", "re:.*mlp.gate$"],
                "Qwen/Qwen3-235B-A22B": ["lm_head", "re:.*mlp.gate$"],
                "mistralai/Mixtral-8x7B-v0.1": ["lm_head", "re:.*block_sparse_moe.gate"],
                "deepseek-ai/DeepSeek-V3": ["lm_head", "re:.*mlp.gate$"]}
#: how many compressed-tensors MoE configs run() builds (None: half the configs); tools/quant_differential.py --ct-moe
CT_MOE_CONFIGS: "int | None" = None


def ct_moe_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` MoE configs (the dense layers before the first MoE layer, and one MoE layer) with compressed-tensors
    quantization, the real checkpoints' ignore lists and, sometimes, another MoE intermediate size."""
    out = []
    while len(out) < n:
        base = rng.choice(list(CT_MOE_BASES))
        cfg = cut(catalog.lookup(base).config)
        cfg["torch_dtype"] = "bfloat16"
        if "moe_intermediate_size" in cfg and rng.random() < 0.4:
            cfg["moe_intermediate_size"] = rng.choice([256, 384, 512, 640, 768, 1024, 1280, 1536, 2048])
        elif "moe_intermediate_size" not in cfg and rng.random() < 0.4:
            cfg["intermediate_size"] = rng.choice([6144, 11008, 14336, 16384])
        q = ct_quantization_config(rng)
        if q["format"] == "pack-quantized" and rng.random() < 0.6:
            q = ct_quantization_config(rng)  # more of the FP8 presets, the llm-compressor MoE checkpoints' usual form
        roll = rng.random()
        q["ignore"] = list(CT_MOE_BASES[base]) if roll < 0.8 else (
            ["lm_head"] if roll < 0.9 else ["lm_head", rng.choice(["re:.*experts.*", "re:.*mlp.gate$"])])
        w = q["config_groups"]["group_0"]["weights"]
        a = q["config_groups"]["group_0"]["input_activations"]
        if a is not None and rng.random() < 0.15:
            # forms the FP8 MoE method treats apart: per-tensor weights with dynamic per-token activations,
            # per-channel weights with static per-token ones
            if w["strategy"] == "channel":
                a["dynamic"] = False
            elif w["strategy"] == "tensor":
                a.update(strategy="token", dynamic=True)
        cfg["quantization_config"] = q
        out.append(cfg)
    return out


#: compressed-tensors W4A16 / W8A16 (llm-compressor's pack-quantized presets) on the MLA / MiniMax MoE families: the
#: WNA16_MLA_BASES cut as wna16_mla_variants cuts them, with the ignore lists llm-compressor's DeepSeek / MiniMax
#: recipes write (lm_head and the router gate, as a re: pattern) and, sometimes, another MoE / dense / latent size;
#: how many run() builds per release (None: one, the CI's share); tools/quant_differential.py --ct-mla
CT_MLA_CONFIGS: "int | None" = None
#: the layouts of those configs: tp 1-64 with and without expert parallel, tp x dp, EPLB
CT_MLA_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 64},
                  {"tp": 4, "ep": True}, {"tp": 16, "ep": True}, {"tp": 64, "ep": True}, {"tp": 1, "dp": 8, "ep": True},
                  {"tp": 2, "dp": 4}, {"tp": 8, "dp": 2}, {"tp": 8, "dp": 16}, {"tp": 2, "dp": 4, "ep": True})


def ct_mla_variants(rng: random.Random, n: int, version: str, offset: int = 0) -> list[dict]:
    """``n`` compressed-tensors integer-weight configs of DeepSeek-V2/V3, Kimi-K2 and MiniMax-M2 (from 0.11.1),
    bases in turn from ``offset``."""
    bases = [b for b in WNA16_MLA_BASES if "MiniMax" not in b or resolve(version).within("0.11.1")]
    out = []
    while len(out) < n:
        base = bases[(offset + len(out)) % len(bases)]
        cfg = _mla_base(base, version)
        cfg["torch_dtype"] = "bfloat16"
        key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
        if rng.random() < 0.6:
            cfg[key] = rng.choice([256, 384, 704, 768, 1408, 1536, 2048, 2560, 3072])
        if "first_k_dense_replace" in cfg and rng.random() < 0.3:
            cfg["intermediate_size"] = rng.choice([10944, 12288, 18432, 14336])
        if "kv_lora_rank" in cfg and rng.random() < 0.1:
            cfg["kv_lora_rank"] = 500  # a kv_a_proj output (with the rope dims) off Marlin's tile
        bits = rng.choice([4, 4, 8])
        group = rng.choice([128, 128, 64, 32, None])
        w = ct_scheme_args(num_bits=bits, type="int", strategy="group" if group else "channel", group_size=group)
        if group and rng.random() < 0.15:
            w["actorder"] = "weight"
        gate = "re:.*block_sparse_moe.gate$" if "MiniMax" in base else "re:.*mlp.gate$"
        roll = rng.random()
        ignore = ["lm_head", gate] if roll < 0.8 else ["lm_head"] if roll < 0.9 else ["lm_head", rng.choice(
            ["re:.*self_attn.*", "re:.*shared_experts.*", "re:.*experts.*", "re:.*kv_a_proj_with_mqa",
             "re:.*self_attn.q_a_proj", "model.layers.0.self_attn.kv_b_proj", "re:.*fused_qkv_a_proj"])]
        cfg["quantization_config"] = _ct_config(w, None, "pack-quantized", ignore)
        out.append(cfg)
    return out


#: online FP8 (``--quantization fp8`` of an unquantized checkpoint): the unquantized bases of the families
#: kvguard models (the FP8 checkpoints' quantization_config removed: their unquantized siblings' sizes), cut as the
#: others; how many run() builds per release (None: a quarter of the configs); tools/quant_differential.py
#: --online-fp8
ONLINE_FP8_CONFIGS: "int | None" = None
ONLINE_FP8_BASES = ("Qwen/Qwen3-30B-A3B", "meta-llama/Llama-3.1-8B-Instruct", "mistralai/Mixtral-8x7B-v0.1",
                    "deepseek-ai/DeepSeek-V2-Lite", "MiniMaxAI/MiniMax-M2.5", "Qwen/Qwen3-32B-FP8",
                    "deepseek-ai/DeepSeek-V3")


def online_fp8_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` unquantized configs of the modelled families (one per base first, then random bases with, sometimes,
    another MoE / dense intermediate size), for ``--quantization fp8``."""
    out = []
    while len(out) < n:
        base = ONLINE_FP8_BASES[len(out)] if len(out) < len(ONLINE_FP8_BASES) else rng.choice(ONLINE_FP8_BASES)
        cfg = cut(catalog.lookup(base).config)
        cfg.pop("quantization_config", None)
        cfg["torch_dtype"] = "bfloat16"
        if len(out) >= len(ONLINE_FP8_BASES):
            if "moe_intermediate_size" in cfg and rng.random() < 0.5:
                cfg["moe_intermediate_size"] = rng.choice([256, 384, 640, 768, 1408, 1536, 2048])
            elif rng.random() < 0.5:
                cfg["intermediate_size"] = rng.choice([6144, 11008, 14336, 18432, 25600])
        out.append(cfg)
    return out


#: ModelOpt exports (kvguard.quant.modelopt_shards); how many run() builds per release (None: half of the configs);
#: tools/quant_differential.py --modelopt
MODELOPT_CONFIGS: "int | None" = None
#: dense intermediate sizes whose per-rank share stops being a multiple of 16 at some tp (11008: tp 32; 13696: tp
#: 16; 12000: tp 4; 11000: tp 1) and some that never do
MODELOPT_INTERMEDIATE = (14336, 11008, 13696, 12000, 11000, 18944, 4864, 8192)


#: MoE bases of the ModelOpt exports (kvguard.quant.modelopt_shards: the experts of Qwen3-MoE and Mixtral), and the
#: expert intermediate sizes they take: a MoE TP size (tp x dp without expert parallel) that does not divide one is
#: FusedMoE's bare assert (720: 32, 1000: 16, 1400: 16, 1416: 16); per-rank shares that are not multiples of 16 /
#: 128 (768 at 16: 48, 1408 at 8: 176, 1416 at 8: 177) are taken by the experts' methods on the default host
MODELOPT_MOE_BASES = ("Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-v0.1")
#: DeepSeek-V2-Lite (MLA, a dense first layer, 64 routed + 2 shared experts) and DeepSeek-V3 (q_lora_rank, three dense
#: layers, 256 routed experts): FP8 and NVFP4 exports
MODELOPT_MLA_BASES = ("deepseek-ai/DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V3")
MODELOPT_MOE_INTERMEDIATE = (768, 1408, 640, 1536, 14336, 720, 1000, 1400, 1416)
#: the MoE layouts of those configs: tp 1-32 (the heads allow no more), tp x dp up to 64 without expert parallel,
#: expert parallel, and one EPLB layout (left undecided)
MODELOPT_MOE_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
                        {"tp": 8, "dp": 8}, {"tp": 32, "dp": 2}, {"tp": 1, "dp": 8, "ep": True},
                        {"tp": 4, "dp": 4, "ep": True}, {"tp": 16, "dp": 4, "ep": True},
                        {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def modelopt_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` ModelOpt FP8 (per-tensor, per-channel) / NVFP4 exports of Llama-style configs (the flat layout of
    config.json, some with the nested hf_quant_config layout), with varied intermediate / hidden sizes, and (one in
    two) of Qwen3-MoE / Mixtral / DeepSeek-V2/V3 configs with varied expert intermediate sizes (FP8 / NVFP4); one in
    six after the first names a decoder layer in its exclusions (kvguard.quant.modelopt_shards.layer_state)."""
    bases = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B-FP8")
    out = []
    while len(out) < n:
        if rng.random() < 0.5:
            base = rng.choice(MODELOPT_MOE_BASES + MODELOPT_MLA_BASES)
            cfg = cut(catalog.lookup(base).config)
            key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
            cfg[key] = rng.choice(MODELOPT_MOE_INTERMEDIATE)
            moe = True
        else:
            cfg = cut(catalog.lookup(rng.choice(bases)).config)
            moe = False
        cfg.pop("quantization_config", None)
        cfg["torch_dtype"] = "bfloat16"
        if not moe:
            cfg["intermediate_size"] = rng.choice(MODELOPT_INTERMEDIATE)
        if rng.random() < 0.3 and "head_dim" not in cfg and not moe:
            # another hidden size (head_dim follows it): the column layers' unsplit input
            cfg["hidden_size"] = rng.choice([3072, 4032, 5120])
        if moe:
            algo = "NVFP4" if rng.random() < 0.6 else "FP8"
        else:
            algo = "NVFP4" if rng.random() < 0.7 else "FP8" if rng.random() < 0.6 else "FP8_PER_CHANNEL_PER_TOKEN"
        # (the first config names none: the one config CI builds per release is decided)
        excluded = rng.random() < 1 / 6 and len(out) > 0
        ignore = ["lm_head"] + (["model.layers.0.mlp*"] if excluded else [])
        if rng.random() < 0.3:
            q = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
                 "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": ignore,
                                  **({"group_size": 16} if algo == "NVFP4" else {})}}
        else:
            q = {"quant_method": "modelopt", "quant_algo": algo, "producer": {"name": "modelopt", "version": "0.29.0"},
                 "ignore": ignore, "kv_cache_scheme": None, **({"group_size": 16} if algo == "NVFP4" else {})}
        cfg["quantization_config"] = q
        out.append(cfg)
    return out


#: ModelOpt exports up to ModelOpt 0.29 keep their quantization config in hf_quant_config.json beside config.json
#: (the nested layout, no quant_method), which every release reads when config.json has no quantization_config;
#: how many such checkpoints run() builds per release (None: one, the CI's share); tools/quant_differential.py
#: --hf-quant-config
HF_QUANT_CONFIGS: "int | None" = None
HF_QUANT_BASES = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-30B-A3B")


def hf_quant_config_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` ModelOpt FP8 / NVFP4 checkpoints as (config.json, {"hf_quant_config.json": …}) cases: config.json
    without a quantization_config (or with a null one), or with one of its own that the file must not replace; some
    files in the legacy export's form (no producer, a ``modelopt_quant_config`` key)."""
    out = []
    while len(out) < n:
        base = rng.choice(HF_QUANT_BASES)
        cfg = cut(catalog.lookup(base).config)
        cfg.pop("quantization_config", None)
        cfg["torch_dtype"] = "bfloat16"
        key = "moe_intermediate_size" if "moe_intermediate_size" in cfg else "intermediate_size"
        cfg[key] = rng.choice(MODELOPT_MOE_INTERMEDIATE if key.startswith("moe") else MODELOPT_INTERMEDIATE)
        algo = rng.choice(["NVFP4", "NVFP4", "FP8"])
        side = {"producer": {"name": "modelopt", "version": rng.choice(["0.23.0", "0.29.0"])},
                # (kv_cache_quant_algo None: an FP8 KV cache makes the CPU oracle's platform refuse the engine config)
                "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None,
                                 "exclude_modules": ["lm_head"], **({"group_size": 16} if algo == "NVFP4" else {})}}
        roll = rng.random()
        if roll < 0.2:
            cfg["quantization_config"] = None
        elif roll < 0.35:
            # config.json's own (flat ModelOpt form, the other algorithm) wins over the file
            other = "FP8" if algo == "NVFP4" else "NVFP4"
            cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": other,
                                          "producer": {"name": "modelopt", "version": "0.31.0"}, "ignore": ["lm_head"],
                                          "kv_cache_scheme": None, **({"group_size": 16} if other == "NVFP4" else {})}
        elif roll < 0.5:
            # the legacy export: no producer, a modelopt_quant_config key (normalized from 0.26.0 only)
            del side["producer"]
            side["quantization"]["modelopt_quant_config"] = {}
        out.append({"config": cfg, "files": {"hf_quant_config.json": side}})
    return out


GPT_OSS_CONFIGS: "int | None" = None
#: gpt-oss (kvguard.quant.gpt_oss): the catalog's MXFP4 checkpoints and their BF16 form, with varied sizes the
#: construction reads: the intermediate size (the MLP block's assert on torch.distributed's world size: 2880 = 2^6 x
#: 45 refuses a world of 128; 2048, 1536, 3000, 2112 others), the hidden size, the expert count, the heads
GPT_OSS_BASES = ("openai/gpt-oss-120b", "openai/gpt-oss-20b")
GPT_OSS_INTERMEDIATE = (2880, 2048, 1536, 3000, 2112, 1440, 720)
#: tp x dp x pcp worlds that divide 2880 or not (128, 7, 14, 24 x 3 ...), with and without expert parallel, and EPLB
GPT_OSS_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 64}, {"tp": 8, "dp": 16},
                   {"tp": 8, "dp": 16, "ep": True}, {"tp": 1, "dp": 7}, {"tp": 2, "dp": 7, "ep": True},
                   {"tp": 4, "dp": 3}, {"tp": 8, "dp": 4, "ep": True}, {"tp": 1, "dp": 5, "ep": True, "eplb": True},
                   {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def gpt_oss_layouts(version: str) -> list[dict]:
    """GPT_OSS_LAYOUTS, with two PCP layouts from 0.12.0 (the world counts pcp), the EPLB one last."""
    extra = [{"tp": 4, "pcp": 2}, {"tp": 8, "pcp": 16}] if resolve(version).within("0.12.0") else []
    return list(GPT_OSS_LAYOUTS[:-1]) + extra + list(GPT_OSS_LAYOUTS[-1:])


def gpt_oss_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` gpt-oss configs (two decoder layers: one sliding-window, one full attention): the first the catalog's
    checkpoint as it is, then variants of one or two sizes; one in four in the BF16 form (no quantization_config)."""
    out = []
    while len(out) < n:
        cfg = copy.deepcopy(catalog.lookup(GPT_OSS_BASES[len(out) % 2] if len(out) < 2 else
                                           rng.choice(GPT_OSS_BASES)).config)
        cfg["num_hidden_layers"] = 2
        cfg["layer_types"] = list(cfg.get("layer_types") or ["sliding_attention", "full_attention"])[:2]
        if out:
            roll = rng.random()
            if roll < 0.5:
                cfg["intermediate_size"] = rng.choice(GPT_OSS_INTERMEDIATE)
            elif roll < 0.65:
                cfg["hidden_size"] = rng.choice([2048, 3072, 2880])
            elif roll < 0.8:
                cfg["num_local_experts"] = rng.choice([8, 16, 32, 60, 128])
            else:
                cfg["num_attention_heads"], cfg["num_key_value_heads"] = rng.choice([(64, 8), (32, 4), (48, 8)])
            if rng.random() < 0.25:
                cfg.pop("quantization_config", None)
        out.append(cfg)
    return out


#: ModelOpt exclusion lists (kvguard.quant.modelopt_shards.layer_state); how many exports run() builds per release
#: (None: a quarter of the configs, at least one); tools/quant_differential.py --modelopt-exclusions
MODELOPT_EXCL_CONFIGS: "int | None" = None
#: exclusion lists derived from real ModelOpt exports (docs/model-construction.md quotes the sources:
#: nvidia/DeepSeek-R1-FP4's "model.layers.61*" (vllm-project/vllm#25987), its new-style list naming every layer
#: and "*qkv_a_proj*" patterns (sgl-project/sglang#9712), the router "*.mlp.gate" (NVIDIA/TensorRT-LLM#11324)), in
#: every form the matching reads: exact names, fused and shard names, substrings, wildcards (with and without a dot
#: before the ``*``), the MoE router and experts, the attention of layer 0; "{moe}" is the MoE block's name
MODELOPT_EXCLUSIONS = (
    ["lm_head", "model.layers.0.self_attn*"], ["lm_head", "model.layers.*.{moe}.gate"], ["lm_head", "*.{moe}.gate"],
    ["lm_head", "model.layers.1*"], ["lm_head", "model.layers.0.mlp*"], ["lm_head", "*mlp.gate*"],
    ["lm_head", "model.layers.1.self_attn.q_proj", "model.layers.1.self_attn.k_proj",
     "model.layers.1.self_attn.v_proj"],
    ["lm_head", "model.layers.1.self_attn.q_proj"], ["lm_head", "model.layers.1.self_attn.qkv_proj"],
    ["lm_head", "model.layers.1.mlp.down_proj"], ["lm_head", "model.layers.1.mlp.gate_up_proj"],
    ["lm_head", "model.layers.0.mlp.gate_proj", "model.layers.0.mlp.up_proj"], ["lm_head", "down_proj"],
    ["lm_head", "model.layers.1.{moe}.experts*"], ["lm_head", "*experts*"], ["lm_head", "*.experts.*"],
    ["lm_head", "model.layers.1.{moe}.experts.0.down_proj"], ["lm_head", "model.layers.1.{moe}.experts"],
    ["*self_attn*", "lm_head"], ["lm_head", "*.mlp.*"], ["lm_head", "model.layers.*.mlp.down_proj"],
    ["lm_head", "model.layers.0.self_attn.kv_a_proj_with_mqa"], ["lm_head", "*qkv_a_proj*"],
    ["lm_head", "*kv_a_proj_with_mqa*", "*q_a_proj*"], ["lm_head", "model.layers.1.mlp.shared_experts.down_proj"],
    ["model.layers.1.mlp"], [], ["lm_*"], ["lm_head", "model.layers.*.self_attn.q_proj"],
    ["lm_head", "model.layers.*.self_attn*", "model.layers.*.mlp.gate", "model.layers.*.mlp.shared_experts*"],
    ["model.layers.*"],
)


def modelopt_exclusion_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` ModelOpt exports (modelopt_variants' configs) whose exclusion list is one of MODELOPT_EXCLUSIONS, under
    the key a release may read (nested ``exclude_modules``, flat ``ignore`` or flat ``exclude_modules``); some lists
    leave ``lm_head`` quantized (0.23.0+ the LM head takes the method), and about a third of the configs have a
    vocabulary that is not a multiple of 64."""
    out = []
    for cfg in modelopt_variants(rng, n):
        moe = "block_sparse_moe" if "num_local_experts" in cfg else "mlp"
        names = [x.format(moe=moe) for x in rng.choice(MODELOPT_EXCLUSIONS)]
        if "kv_lora_rank" in cfg and rng.random() < 0.3:
            # a hidden size that is not a multiple of 16 (20 heads: the config checks take it): the NVFP4 check of
            # the first quantized layer reading it (q_proj / fused_qkv_a_proj, kv_a_proj_with_mqa when the list
            # leaves it quantized, the dense MLP).  The routed experts stay quantized: unquantized ones go through
            # the release's unquantized MoE backend choice, which the CPU oracle answers with its CPU kernels'
            # hidden-size alignment (not the GPU's Triton, which takes any)
            cfg["num_attention_heads"], cfg["hidden_size"] = 20, 2060
            names = rng.choice((["lm_head", "model.layers.*.self_attn.q_proj"],
                                ["lm_head", "model.layers.*.self_attn.q_proj", "model.layers.0.mlp.*",
                                 "model.layers.*.mlp.shared_experts.*"]))
        if rng.random() < 0.3:
            # a vocabulary that is not a multiple of 64 (the LM head pads it to one and divides it over tp; its
            # quantized create_weights reads only the hidden size)
            cfg["vocab_size"] = cfg["vocab_size"] + rng.choice([1, 3, 37])
        q = cfg["quantization_config"]
        if "quantization" in q:
            q["quantization"]["exclude_modules"] = names
        else:
            q.pop("ignore", None)
            q["ignore" if rng.random() < 0.6 else "exclude_modules"] = names
        out.append(cfg)
    return out


#: ModelOpt exports whose LM head decides (kvguard.quant.modelopt_shards.lm_head); how many run() builds per release
#: (None: one, the CI's share; they are taken in turn from MODELOPT_LM_HEAD_CASES, starting at a per-release offset);
#: tools/quant_differential.py --modelopt-lm-head
MODELOPT_LM_HEAD_CONFIGS: "int | None" = None
#: (base, algo, exclusion list, tie_word_embeddings, hidden size, vocab size, architecture override): lists that
#: leave ``lm_head`` quantized (every decoder layer excluded, so the LM head is the first quantized layer reading
#: the hidden size; or nothing excluded), hidden sizes that are and are not multiples of 16 (2072, 5128, 2056),
#: vocab sizes that are and are not multiples of 64 (128256 / 128257, 151936 / 151669, 32000 / 32003), tied
#: embeddings (LlamaForCausalLM ties through the head's method, Qwen3 builds a tied head from 0.28.0, Qwen3-MoE
#: and Mixtral assign the weight), FP8 and NVFP4
MODELOPT_LM_HEAD_CASES = (
    ("meta-llama/Llama-3.1-8B-Instruct", "NVFP4", ["model.layers.*"], False, 2072, 128257, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "NVFP4", [], False, 4096, 128257, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "NVFP4", ["lm_head"], True, 4096, 128256, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "FP8", [], True, 4096, 128257, None),
    ("Qwen/Qwen3-32B-FP8", "NVFP4", ["model.layers.*"], True, 5128, 151669, None),
    ("Qwen/Qwen3-32B-FP8", "NVFP4", ["model.layers.*"], False, 5128, 151936, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "NVFP4", ["model.layers.*"], True, 2072, 128256, "MistralForCausalLM"),
    ("Qwen/Qwen3-30B-A3B", "NVFP4", ["*self_attn*"], True, 2056, 151669, None),
    ("mistralai/Mixtral-8x7B-v0.1", "NVFP4", [], True, 4096, 32003, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "NVFP4", ["lm_*"], False, 2072, 128256, None),
)


def modelopt_lm_head_variants(n: int, offset: int = 0) -> list[dict]:
    """``n`` ModelOpt exports from MODELOPT_LM_HEAD_CASES (in turn from ``offset``), flat layout, two decoder
    layers.  Hidden 2072 takes 28 heads of 74 (4 KV heads) in the Llama configs; the Qwen3 ones keep head_dim 128."""
    out = []
    for k in range(n):
        base, algo, names, tied, hidden, vocab, arch = MODELOPT_LM_HEAD_CASES[(offset + k) % len(MODELOPT_LM_HEAD_CASES)]
        cfg = cut(catalog.lookup(base).config)
        cfg.pop("quantization_config", None)
        cfg["torch_dtype"] = "bfloat16"
        cfg["num_hidden_layers"] = 2
        cfg["tie_word_embeddings"] = tied
        cfg["vocab_size"] = vocab
        if hidden != cfg["hidden_size"]:
            cfg["hidden_size"] = hidden
            if "head_dim" not in cfg:
                cfg["num_attention_heads"], cfg["num_key_value_heads"] = 28, 4
        if arch:
            cfg["architectures"] = [arch]
        if "moe_intermediate_size" in cfg:
            cfg["moe_intermediate_size"] = 768
        cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": algo,
                                      "producer": {"name": "modelopt", "version": "0.29.0"}, "ignore": list(names),
                                      "kv_cache_scheme": None, **({"group_size": 16} if algo == "NVFP4" else {})}
        out.append(cfg)
    return out


#: MiniMax-M2 ModelOpt exports (kvguard.quant.modelopt_shards, family minimax_m2: nvidia/MiniMax-M2.5-NVFP4 and its
#: kin): how many run_modelopt_minimax builds per release (tools/quant_differential.py --modelopt-minimax)
MODELOPT_MINIMAX_CONFIGS = 12
#: the first release that registers MiniMaxM2ForCausalLM
MINIMAX_M2_SINCE = "0.11.1"
#: the exclusion lists: the published checkpoint's (the router gate under the checkpoint's module name
#: ``block_sparse_moe``, the attention by wildcard), none, the experts of the layer (under vLLM's name ``mlp`` and the
#: checkpoint's), one attention projection (a shard of the fused qkv_proj), the whole decoder layer
MODELOPT_MINIMAX_EXCLUSIONS = (
    ["lm_head", "model.layers.0.block_sparse_moe.gate", "model.layers.0.self_attn*"], ["lm_head"], [],
    ["lm_head", "model.layers.0.mlp*"], ["lm_head", "model.layers.0.block_sparse_moe*"],
    ["lm_head", "model.layers.0.self_attn.q_proj"], ["lm_head", "model.layers.0.self_attn.o_proj"],
    ["lm_head", "model.layers.0*"], ["lm_head", "*self_attn*"],
)


def modelopt_minimax_variants(rng: random.Random, n: int, version: str) -> list[dict]:
    """``n`` ModelOpt NVFP4 / FP8 exports of MiniMax-M2.5 (cut to its first layer), with varied expert intermediate
    sizes (MODELOPT_MOE_INTERMEDIATE), head sizes (an attention output whose per-rank share is not a multiple of 16
    at some tp), exclusion lists (MODELOPT_MINIMAX_EXCLUSIONS) in the flat and nested layouts."""
    out = []
    while len(out) < n:
        cfg = _mla_base("MiniMaxAI/MiniMax-M2.5", version)
        cfg["torch_dtype"] = "bfloat16"
        cfg["intermediate_size"] = rng.choice(MODELOPT_MOE_INTERMEDIATE)
        if rng.random() < 0.5:
            cfg["head_dim"] = rng.choice([100, 72, 136])
        algo = "NVFP4" if rng.random() < 0.7 else "FP8"
        names = list(rng.choice(MODELOPT_MINIMAX_EXCLUSIONS))
        if rng.random() < 0.3:
            q = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
                 "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": names,
                                  **({"group_size": 16} if algo == "NVFP4" else {})}}
        else:
            q = {"quant_method": "modelopt", "quant_algo": algo, "producer": {"name": "modelopt", "version": "0.29.0"},
                 "ignore": names, "kv_cache_scheme": None, **({"group_size": 16} if algo == "NVFP4" else {})}
        cfg["quantization_config"] = q
        out.append(cfg)
    return out


def run_modelopt_minimax(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` MiniMax-M2 ModelOpt exports (modelopt_minimax_variants) at ``n_layouts`` of MODELOPT_MOE_LAYOUTS
    each (the EPLB one last) in the release and compare (the releases register the model from
    MINIMAX_M2_SINCE)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9500 + 1)
    cases = []
    for cfg in modelopt_minimax_variants(rng, n, version):
        heads = cfg["num_attention_heads"]
        lays = [dict(lay) for lay in MODELOPT_MOE_LAYOUTS if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": rng.sample(lays[:-1], min(max(1, n_layouts - 1), len(lays) - 1))
                      + lays[-1:]})
    out = run_runner("quant_runner.py", python, python_env, cases)
    return compare(version, cases, out)


#: Gemma 4 (kvguard/data/quant_archs.json family gemma4, kvguard.quant.gemma4): how many generated configs
#: run_gemma4 builds per release (tools/quant_differential.py --gemma4)
GEMMA4_CONFIGS = 12
GEMMA4_BASES = ("nvidia/Gemma-4-31B-IT-NVFP4", "nvidia/Gemma-4-26B-A4B-NVFP4", "google/gemma-4-26B-A4B")
#: tp 1-16 with and without data / expert parallel (no EPLB: the multimodal wrapper validates a copy of the
#: VllmConfig while it is built, which refuses EPLB on the CPU oracle's platform — a GPU accepts it)
GEMMA4_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 2, "dp": 4}, {"tp": 4, "dp": 2},
                  {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 4, "ep": True}, {"tp": 16, "dp": 2, "ep": True},
                  {"tp": 2, "dp": 4, "ep": True, "eplb": True}, {"tp": 1, "dp": 5, "ep": True, "eplb": True},
                  {"tp": 2, "dp": 4, "ep": True})


def gemma4_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Gemma 4 configs from the catalog's checkpoints (Gemma-4-31B-IT-NVFP4: dense, 26B-A4B: MoE block beside
    the dense MLP; the multimodal wrapper, one in four the text-only Gemma4ForCausalLM), cut to six layers (five
    sliding, one full attention: the per-layer head size and KV heads), with varied sizes (intermediate, expert
    intermediate, KV heads of either kind, head sizes) and quantization: ModelOpt NVFP4 / FP8 (the flat config.json
    layout with an ignore list that names the attention and MLP of some layers, sometimes their experts, the vision
    embedder, lm_head; the quantized experts on the default host's MoE backend),
    block FP8 (Fp8Config), online FP8 (``--quantization fp8``), unquantized."""
    out = []
    while len(out) < n:
        base = GEMMA4_BASES[len(out) % len(GEMMA4_BASES)]
        cfg = copy.deepcopy(catalog.lookup(base).config)
        cfg.pop("quantization_config", None)
        text = cfg["text_config"]
        text["num_hidden_layers"] = 6
        text["layer_types"] = text["layer_types"][:6]
        moe = bool(text.get("enable_moe_block"))
        if moe:
            text["moe_intermediate_size"] = rng.choice([704, 704, 712, 720, 696, 1408, 736])
        text["intermediate_size"] = rng.choice([21504, 2112, 2120, 13696, 5376, 2048, 2104])
        if rng.random() < 0.5:
            text["num_key_value_heads"] = rng.choice([4, 6, 8, 16])
            text["num_global_key_value_heads"] = rng.choice([1, 2, 3, 4, 8])
        if rng.random() < 0.3:
            text["head_dim"], text["global_head_dim"] = rng.choice([(256, 512), (128, 256), (200, 400), (256, 264)])
        kind = rng.choice(["nvfp4", "nvfp4", "fp8", "fp8_block", "online", "none"])
        engine = {}
        layers_named = [i for i in range(6) if rng.random() < 0.5]
        parts = rng.choice([("self_attn",), ("mlp", "router"), ("self_attn", "mlp", "router")])
        if moe and rng.random() < 0.3:
            # some layers' experts excluded too (the checkpoint's name ``…layers.<i>.experts``; up to 0.30.x the
            # model's mapper renames it to ``…moe.experts``)
            parts = parts + ("experts",)
        ignore = ["lm_head", "model.embed_vision*"] + [f"model.language_model.layers.{i}.{p}*" for i in layers_named
                                                      for p in parts]
        if kind in ("nvfp4", "fp8"):
            algo = "NVFP4" if kind == "nvfp4" else "FP8"
            cfg["quantization_config"] = {
                "quant_method": "modelopt", "quant_algo": algo, "producer": {"name": "modelopt", "version": "0.43.0"},
                "ignore": ignore, "kv_cache_scheme": None, **({"group_size": 16} if algo == "NVFP4" else {})}
        elif kind == "fp8_block":
            cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic",
                                          "weight_block_size": [128, 128]}
        elif kind == "online":
            engine = {"quantization": "fp8"}
        if rng.random() < 0.25:
            # the text-only form (model type gemma4_text: Gemma4ForCausalLM), its names without the wrapper's
            q = cfg.get("quantization_config")
            cfg = dict(text, architectures=["Gemma4ForCausalLM"])
            if q is not None:
                if "ignore" in q:
                    q = dict(q, ignore=[x.replace("model.language_model.", "model.") for x in q["ignore"]
                                        if "vision" not in x])
                cfg["quantization_config"] = q
        out.append({"config": cfg, "engine_args": engine})
    return out


#: Llama 4 (kvguard/data/quant_archs.json family llama4, kvguard.quant.llama4: the wrapper's vision model and projector,
#: built unquantized, then the language model): the catalog checkpoints (Scout: 16 experts in every layer; Maverick:
#: 128 experts in every second layer, dense MLPs between), the vision config both checkpoints ship (their config.json's
#: vision_config; the catalog's copies are abridged to the text config), and the layouts (tp 1-40 where 40 heads allow
#: it, data / expert parallel, EPLB with and without redundant experts)
LLAMA4_BASES = ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct")
LLAMA4_VISION = {"attention_dropout": 0.0, "hidden_act": "gelu", "hidden_size": 1408, "image_size": 336,
                 "initializer_range": 0.02, "intermediate_size": 5632, "model_type": "llama4_vision_model",
                 "multi_modal_projector_bias": False, "norm_eps": 1e-05, "num_attention_heads": 16, "num_channels": 3,
                 "num_hidden_layers": 34, "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_dropout": 0.0,
                 "projector_input_dim": 4096, "projector_output_dim": 4096, "rope_theta": 10000,
                 "vision_feature_layer": -1, "vision_feature_select_strategy": "default", "vision_output_dim": 4096}
#: the wrapper's token ids (config.json of both checkpoints)
LLAMA4_TOKENS = {"boi_token_index": 200080, "eoi_token_index": 200081, "image_token_index": 200092}
LLAMA4_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 5}, {"tp": 8}, {"tp": 10}, {"tp": 16}, {"tp": 20},
                  {"tp": 32}, {"tp": 40}, {"tp": 2, "dp": 4}, {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True},
                  {"tp": 4, "dp": 2, "ep": True}, {"tp": 1, "dp": 5, "ep": True}, {"tp": 8, "dp": 4, "ep": True},
                  {"tp": 1, "dp": 6, "ep": True, "eplb": True}, {"tp": 2, "dp": 4, "ep": True, "eplb": True},
                  {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def llama4_base(base: str, layers: int, depth: int) -> dict:
    """A Llama 4 checkpoint's config (the catalog's text config, the shipped vision config) cut to ``layers`` decoder
    layers (no_rope_layers: every fourth layer without RoPE, as shipped) and ``depth`` vision layers."""
    cfg = copy.deepcopy(catalog.lookup(base).config)
    cfg.update(LLAMA4_TOKENS, vision_config=dict(LLAMA4_VISION, num_hidden_layers=depth))
    text = cfg["text_config"]
    text["num_hidden_layers"] = layers
    text["no_rope_layers"] = [int((i + 1) % 4 != 0) for i in range(layers)]
    return cfg


def llama4_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` unquantized Llama 4 configs (LLAMA4_BASES alternately) cut to 4 decoder layers and 1-2 vision layers, with
    varied sizes: the expert and dense intermediate sizes, the expert count (Scout's 16 or fewer, Maverick's 128 or
    a divisor-poor count), the KV heads, the vision tower's hidden size / heads / intermediate size and projector
    sizes (some that tp 8 or 16 does not divide), now and then another query-head count; one in eight the text-only
    Llama4ForCausalLM."""
    out = []
    while len(out) < n:
        base = LLAMA4_BASES[len(out) % len(LLAMA4_BASES)]
        cfg = llama4_base(base, 4, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        maverick = text["interleave_moe_layer_step"] == 2
        text["num_local_experts"] = rng.choice([128, 128, 96, 60] if maverick else [16, 16, 8, 12, 6])
        text["intermediate_size"] = rng.choice([8192, 8192, 8000, 8256, 6144, 8200])
        text["intermediate_size_mlp"] = rng.choice([16384, 16384, 16000, 16392])
        if rng.random() < 0.3:
            text["num_key_value_heads"] = rng.choice([8, 4, 2, 10, 20])
        if rng.random() < 0.25:
            # other query-head counts, so that tp 16 / 32 pass the config checks and reach the layers
            text["num_attention_heads"] = rng.choice([32, 48, 64, 80])
        if rng.random() < 0.5:
            vision["hidden_size"], vision["num_attention_heads"] = rng.choice(
                [(1408, 16), (1280, 16), (1408, 8), (1536, 12), (1600, 20), (1440, 10)])
            vision["intermediate_size"] = rng.choice([5632, 5120, 5600, 6144])
        if rng.random() < 0.3:
            vision["projector_input_dim"] = vision["projector_output_dim"] = vision["vision_output_dim"] = rng.choice(
                [4096, 4000, 3072])
        if rng.random() < 0.125:
            cfg = dict(text, architectures=["Llama4ForCausalLM"])
        out.append({"config": cfg, "engine_args": {}})
    return out


#: the ignore list of llm-compressor's Llama 4 recipes (examples/quantization_w4a16/llama4_example.py,
#: quantization_w8a8_fp8/llama4_fp8_block_example.py: the attention, the router, the vision model and projector, the
#: LM head; a class name that matches no layer path)
LLAMA4_CT_RECIPE_IGNORE = ("re:.*lm_head", "re:.*self_attn", "re:.*router", "re:.*vision_model.*",
                           "re:.*multi_modal_projector.*", "Llama4TextAttention")


def _llama4_ignored_names(cfg: dict) -> list[str]:
    """The module names the recipe's ignore list leaves unquantized, as llm-compressor writes them into the exported
    config: every layer's attention projections and (MoE layers) router, the vision model's and the projector's
    linear layers, the LM head."""
    text, vision = cfg["text_config"], cfg["vision_config"]
    names = ["vision_model.patch_embedding.linear"]
    names += [f"vision_model.model.layers.{n}.{m}" for n in range(vision["num_hidden_layers"])
              for m in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.fc1",
                        "mlp.fc2")]
    names += ["vision_model.vision_adapter.mlp.fc1", "vision_model.vision_adapter.mlp.fc2"]
    step = text["interleave_moe_layer_step"]
    for i in range(text["num_hidden_layers"]):
        names += [f"language_model.model.layers.{i}.self_attn.{p}" for p in ("q_proj", "k_proj", "v_proj", "o_proj")]
        if (i + 1) % step == 0:
            names.append(f"language_model.model.layers.{i}.feed_forward.router")
    return names + ["multi_modal_projector.linear_1", "language_model.lm_head"]


def llama4_ct_variants(rng: random.Random, n: int, integer: bool = False) -> list[dict]:
    """``n`` Llama 4 wrapper configs as llama4_variants cuts them, with a compressed-tensors quantization_config
    (ct_quantization_config's presets: FP8 dynamic — RedHatAI's -FP8-dynamic —, static FP8, block FP8, W4A16 / W8A16 —
    RedHatAI's -quantized.w4a16 —; one in eight NVFP4; ``integer``: W4A16 / W8A16 only) whose ignore list is the
    recipe's patterns, the names they select as llm-compressor writes them, those names with one layer's k_proj left
    out (a fused layer ignored in part), or only the LM head."""
    out = []
    for case in llama4_variants(rng, 4 * n):
        cfg = case["config"]
        if "text_config" not in cfg:
            continue
        q = ct_nvfp4_quantization_config(rng) if rng.random() < 0.125 else ct_quantization_config(rng)
        while integer and q["format"] != "pack-quantized":
            q = ct_quantization_config(rng)
        if not integer and q["format"] == "pack-quantized" and rng.random() < 0.8:
            q = ct_quantization_config(rng)  # mostly the FP8 presets
        names = _llama4_ignored_names(cfg)
        q["ignore"] = rng.choice([list(LLAMA4_CT_RECIPE_IGNORE), names, names,
                                  [x for x in names if x != "language_model.model.layers.1.self_attn.k_proj"],
                                  ["re:.*lm_head"]])
        cfg["quantization_config"] = q
        out.append(case)
        if len(out) == n:
            break
    return out


#: the exclusion patterns ModelOpt's Llama 4 export writes (its llama4 entry: the projector, the routers, the vision
#: model, the LM head; modelopt's hf_ptq example and the AMD Quark / ModelOpt model maps carry the same four)
LLAMA4_MODELOPT_EXCLUDE = ("multi_modal_projector*", "*feed_forward.router", "vision_model*", "*lm_head")


def llama4_modelopt_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Llama 4 wrapper configs as llama4_variants cuts them, as ModelOpt FP8 / NVFP4 exports (NVIDIA's
    -FP8 / -NVFP4 form): the quantization config in hf_quant_config.json beside config.json (the nested layout, one in
    two), in config.json's nested layout or its flat one (``ignore``); the exclusion list ModelOpt's patterns, the
    names they select (routers, vision model, projector, LM head), only the LM head, or one of those with a MoE
    layer's experts, its shared expert or one attention shard (a fused layer excluded in part) added; now and then
    FP8_PER_CHANNEL_PER_TOKEN (its experts are not decided)."""
    out = []
    for case in llama4_variants(rng, 4 * n):
        cfg = case["config"]
        if "text_config" not in cfg:
            continue
        text = cfg["text_config"]
        roll = rng.random()
        algo = "NVFP4" if roll < 0.5 else "FP8" if roll < 0.92 else "FP8_PER_CHANNEL_PER_TOKEN"
        names = [x for x in _llama4_ignored_names(cfg) if ".self_attn." not in x or x.startswith("vision_model.")]
        exclude = list(rng.choice([LLAMA4_MODELOPT_EXCLUDE, LLAMA4_MODELOPT_EXCLUDE, names, ["lm_head"]]))
        moe_layer = text["interleave_moe_layer_step"] - 1
        extra = rng.random()
        if extra < 0.15:
            exclude.append(f"language_model.model.layers.{moe_layer}.feed_forward.experts*")
        elif extra < 0.25:
            exclude.append(f"language_model.model.layers.{moe_layer}.feed_forward.shared_expert*")
        elif extra < 0.32:
            exclude.append("language_model.model.layers.0.self_attn.k_proj")
        group = {"group_size": 16} if algo == "NVFP4" else {}
        producer = {"name": "modelopt", "version": rng.choice(["0.27.0", "0.29.0", "0.33.0"])}
        where = rng.random()
        if where < 0.5:
            # (kv_cache_quant_algo None: an FP8 KV cache makes the CPU oracle's platform refuse the engine config)
            case["files"] = {"hf_quant_config.json": {
                "producer": producer,
                "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": exclude,
                                 **group}}}
        elif where < 0.7:
            cfg["quantization_config"] = {"quant_method": "modelopt", "producer": producer,
                                          "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None,
                                                           "exclude_modules": exclude, **group}}
        else:
            cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": algo, "producer": producer,
                                          "ignore": exclude, "kv_cache_scheme": None, **group}
        out.append(case)
        if len(out) == n:
            break
    return out


def run_llama4(version: str, n: int, seed: int = 7, n_layouts: int = 6, ct: int = 0, wna16: int = 0,
               modelopt: int = 0) -> dict:
    """Build ``n`` Llama 4 configs (llama4_variants), ``ct`` compressed-tensors ones (llama4_ct_variants), ``wna16``
    integer-weight ones (the same, W4A16 / W8A16 only) and ``modelopt`` ModelOpt FP8 / NVFP4 exports
    (llama4_modelopt_variants) at ``n_layouts`` of LLAMA4_LAYOUTS each in the release and compare; the layer lists of
    both bases (2 decoder layers, 1 vision layer, tp 1) too (tools/quant_differential.py --llama4, --llama4-ct,
    --llama4-wna16, --llama4-modelopt)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9400 + 1)
    cases = []
    generated = with_extra_variants(llama4_variants(rng, n), seed * 9400, (2, ct, llama4_ct_variants),
                                    (3, wna16, functools.partial(llama4_ct_variants, integer=True)),
                                    (4, modelopt, llama4_modelopt_variants))
    for case in wrapper_host(version, generated):
        text = case["config"].get("text_config") or case["config"]
        case["layouts"] = draw_layouts(rng, LLAMA4_LAYOUTS, text["num_attention_heads"], n_layouts, one_of_last=3)
        cases.append(case)
    lists = [{"config": llama4_base(base, 2, 1), "layouts": [{"tp": 1}], "record": True} for base in LLAMA4_BASES]
    return _with_layer_lists(version, python, python_env, cases, lists)


#: CI: the first release (no EPLB handed to the experts, no block-FP8 scheme in compressed-tensors), the first that
#: hands the experts EPLB (0.11.1) and the last; the full runs: tools/quant_differential.py --llama4 N --llama4-ct M
#: (--llama4-modelopt K: ModelOpt FP8 / NVFP4 exports, KVG_LLAMA4_MODELOPT in CI)
LLAMA4_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.11.1",))


@pytest.mark.parametrize("version", LLAMA4_SAMPLE)
def test_llama4_construction_agrees(version):
    report = run_llama4(version, int(os.environ.get("KVG_LLAMA4_CONFIGS", "2")),
                        int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3,
                        ct=int(os.environ.get("KVG_LLAMA4_CT", "2")),
                        wna16=int(os.environ.get("KVG_LLAMA4_WNA16", "1")),
                        modelopt=int(os.environ.get("KVG_LLAMA4_MODELOPT", "2")))
    _check_family_report(report, version, "Llama 4", "llama4-construction")
    assert report["layer_lists"]["agree"] == len(LLAMA4_BASES)


def run_ct_nvfp4_moe(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build only ``n`` compressed-tensors NVFP4 MoE configs (ct_nvfp4_moe_variants) at ``n_layouts`` MoE layouts each,
    EPLB last, in the release and compare (tools/quant_differential.py --ct-nvfp4-moe-only)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9100 + 1)
    layouts = [{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
               {"tp": 4, "dp": 4}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 8, "dp": 2}, {"tp": 2, "dp": 4, "ep": True},
               {"tp": 4, "ep": True}]
    cases = []
    for cfg in ct_nvfp4_moe_variants(rng, n):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in layouts if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": rng.sample(lays, min(max(1, n_layouts - 1), len(lays)))
                      + [{"tp": 2, "dp": 4, "ep": True, "eplb": True}]})
    out = run_runner("quant_runner.py", python, python_env, cases)
    return compare(version, cases, out)


def run_ct_nvfp4_fp8(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build only ``n`` configs of NVFP4 weights with FP8 activations (ct_nvfp4_fp8_variants) at up to ``n_layouts``
    layouts each (tp 1-64, and the MoE layouts on the MoE bases) in the release and compare
    (tools/quant_differential.py --ct-nvfp4-fp8-only)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9300 + 1)
    moe_layouts = [{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 2, "dp": 4}, {"tp": 8, "dp": 2},
                   {"tp": 1, "dp": 8, "ep": True}, {"tp": 2, "dp": 4, "ep": True, "eplb": True}]
    cases = []
    for cfg in ct_nvfp4_fp8_variants(rng, n):
        heads = cfg["num_attention_heads"]
        moe = any(k in cfg for k in ("num_experts", "num_local_experts", "n_routed_experts"))
        lays = [lay for lay in (moe_layouts if moe else [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64)])
                if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": rng.sample(lays, min(n_layouts, len(lays)))})
    out = run_runner("quant_runner.py", python, python_env, cases)
    return compare(version, cases, out)


def run_gemma4(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Gemma 4 configs (gemma4_variants) at ``n_layouts`` of GEMMA4_LAYOUTS each in the release and
    compare; the layer lists of the three catalog bases (cut, unquantized, tp 1) are compared too."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9000 + 1)
    cases = []
    for case in gemma4_variants(rng, n):
        text = case["config"].get("text_config") or case["config"]
        heads = text["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, GEMMA4_LAYOUTS, heads, n_layouts, one_of_last=1,
                                       experts=bool(text.get("num_experts")))
        cases.append(case)
    lists = []
    for base in GEMMA4_BASES:
        plain = copy.deepcopy(catalog.lookup(base).config)
        plain.pop("quantization_config", None)
        plain["text_config"]["num_hidden_layers"] = 6
        plain["text_config"]["layer_types"] = plain["text_config"]["layer_types"][:6]
        lists.append({"config": plain, "layouts": [{"tp": 1}], "record": True})
    return _with_layer_lists(version, python, python_env, cases, lists)


#: Gemma 3's text model (kvguard/data/quant_archs.json family gemma3, Gemma3ForCausalLM): the configs run_gemma3 builds
#: start from google/gemma-3-1b-it's config.json (tools/golden_inputs.json "gemma-3-1b-it") with the text sizes of
#: google/gemma-3-{1b,4b,12b,27b}-it (hidden, intermediate, heads / KV heads, head size: their config.json /
#: text_config), cut to two layers; the quantization forms are those the published exports write: AutoAWQ / GPTQ
#: (gaunernst/gemma-3-27b-it-int4-awq, ...-GPTQ), llm-compressor's compressed-tensors presets (RedHatAI/gemma-3-27b-it-
#: FP8-dynamic, -quantized.w4a16 / w8a8, ignore "re:.*lm_head"), block FP8 (Fp8Config), online FP8, unquantized
GEMMA3_TEXT_SIZES = ((1152, 6912, 4, 1, 256), (2560, 10240, 8, 4, 256), (3840, 15360, 16, 8, 256),
                     (5376, 21504, 32, 16, 128))
GEMMA3_INTERMEDIATE = (6912, 10240, 15360, 21504, 6920, 10248, 13824, 5376, 21520)
#: tp 1-16 and data parallel (Gemma 3 is dense: no expert parallel)
GEMMA3_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 2, "dp": 4}, {"tp": 4, "dp": 2},
                  {"tp": 1, "dp": 8}, {"tp": 8, "dp": 2})


with open(os.path.join(os.path.dirname(__file__), "..", "..", "tools", "golden_inputs.json")) as _fh:
    #: google/gemma-3-1b-it's config.json (its hidden_activation written out, as the checkpoint writes it)
    GEMMA3_1B_IT = dict(json.load(_fh)["configs"]["gemma-3-1b-it"], hidden_activation="gelu_pytorch_tanh")


def _gemma3_base() -> dict:
    return copy.deepcopy(GEMMA3_1B_IT)


def gemma3_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Gemma 3 text configs (Gemma3ForCausalLM, two layers) with varied sizes and quantization: AWQ / GPTQ
    (:func:`awq_or_gptq`, groups of 128 / 64 / 32), compressed-tensors (:func:`ct_quantization_config`,
    :func:`ct_int8_quantization_config`), block FP8 (blocks of 128 or 64, sometimes an ignore list), online FP8,
    unquantized; now and then an untied head (0.10.2-0.13.x assert a tied one)."""
    out = []
    while len(out) < n:
        cfg = _gemma3_base()
        cfg["num_hidden_layers"] = 2
        hidden, inter, heads, kv, head = rng.choice(GEMMA3_TEXT_SIZES)
        cfg.update(hidden_size=hidden, intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv,
                   head_dim=head)
        if rng.random() < 0.4:
            cfg["intermediate_size"] = rng.choice(GEMMA3_INTERMEDIATE)
        if rng.random() < 0.1:
            cfg["tie_word_embeddings"] = False
        kind = rng.choice(["wna16", "wna16", "wna16", "ct", "ct", "ct_int8", "fp8_block", "online", "none"])
        engine: dict = {}
        if kind == "wna16":
            q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]),
                                    [None, None, ["lm_head"], ["self_attn"], ["mlp.down_proj"]], 0.2)
            cfg["torch_dtype"] = "float16" if q["quant_method"] == "gptq" or rng.random() < 0.5 else "bfloat16"
            cfg["quantization_config"] = q
        elif kind in ("ct", "ct_int8"):
            cfg["quantization_config"] = (ct_quantization_config if kind == "ct" else ct_int8_quantization_config)(rng)
        elif kind == "fp8_block":
            block = rng.choice([[128, 128], [128, 128], [64, 64]])
            cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                          "weight_block_size": block}
            if rng.random() < 0.3:
                cfg["quantization_config"]["modules_to_not_convert"] = rng.choice(
                    [["lm_head"], ["model.layers.0.mlp.down_proj"], ["model.layers.1.self_attn.q_proj"]])
        elif kind == "online":
            engine = {"quantization": "fp8"}
        out.append({"config": cfg, "engine_args": engine})
    return out


def run_gemma3(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Gemma 3 text configs (gemma3_variants) at ``n_layouts`` of GEMMA3_LAYOUTS each in the release and
    compare; the layer list of the base (two layers, unquantized, tp 1) is compared too."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9600 + 1)
    cases = []
    # 0.11.0 on the oracle's CPU platform runs the V0 engine, whose CacheConfig refuses prefix caching with a sliding
    # window (a CUDA host runs V1, which takes it); model construction does not read prefix caching
    host = {"enable_prefix_caching": False} if resolve(version).within("0.11.0", "0.11.0") else {}
    for case in gemma3_variants(rng, n):
        case["layouts"] = rng.sample(list(GEMMA3_LAYOUTS), min(n_layouts, len(GEMMA3_LAYOUTS)))
        case["engine_args"] = dict(case["engine_args"], **host)
        cases.append(case)
    plain = dict(_gemma3_base(), num_hidden_layers=2)
    return _with_layer_lists(version, python, python_env, cases, [{"config": plain, "layouts": [{"tp": 1}],
                                                                   "record": True, "engine_args": host}])


#: Qwen3-Next (kvguard/data/quant_archs.json family qwen3_next): the catalog checkpoints the generated configs start
#: from (the BF16 and the block-FP8 release, whose ignore list names each layer's in_proj_ba, conv1d, router gate and
#: shared-expert gate), and the layouts (tp 1-16, data / expert parallel, the sequence-parallel MoE, EPLB)
QWEN3_NEXT_BASES = ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8")
QWEN3_NEXT_SINCE = "0.10.2"
QWEN3_NEXT_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 2, "dp": 4}, {"tp": 4, "dp": 2},
                      {"tp": 1, "dp": 8, "ep": True}, {"tp": 2, "dp": 4, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                      {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def _qwen3_next_ignore(layers: int, interval: int) -> list[str]:
    """The FP8 release's modules_to_not_convert for ``layers`` decoder layers, in its form: every layer's router and
    shared-expert gates, each gated-delta-net layer's in_proj_ba and conv1d (and norms, which are no linear layer)."""
    out = ["lm_head"]
    for i in range(layers):
        if (i + 1) % interval:
            out += [f"model.layers.{i}.linear_attn.{n}" for n in ("A_log", "conv1d", "dt_bias", "in_proj_ba", "norm")]
        out += [f"model.layers.{i}.mlp.gate", f"model.layers.{i}.mlp.shared_expert_gate"]
    return out


#: the ignore list of llm-compressor's Qwen3-Next example (the routers, the shared-expert gates and every gated-delta-net
#: layer left unquantized)
QWEN3_NEXT_CT_IGNORE = ("lm_head", "re:.*mlp.gate$", "re:.*mlp.shared_expert_gate$", "re:.*linear_attn.*")


def qwen3_next_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3-Next configs from the catalog's checkpoints, cut to four layers (gated delta net every layer but
    each ``full_attention_interval``-th), with varied sizes (linear-attention key / value heads and head sizes,
    attention heads and KV heads, expert and shared-expert intermediate sizes, no shared expert, a dense layer by
    ``mlp_only_layers`` / ``decoder_sparse_step``) and quantization: block FP8 with the release's ignore list (some
    layers' in_proj_ba quantized, or no list), compressed-tensors (llm-compressor's presets, ct_quantization_config),
    unquantized."""
    out = []
    while len(out) < n:
        base = QWEN3_NEXT_BASES[len(out) % len(QWEN3_NEXT_BASES)]
        cfg = copy.deepcopy(catalog.lookup(base).config)
        q = cfg.pop("quantization_config", None)
        cfg["num_hidden_layers"] = 4
        cfg["full_attention_interval"] = interval = rng.choice([4, 4, 2])
        cfg.pop("layer_types", None)
        if rng.random() < 0.6:
            cfg["linear_num_key_heads"], cfg["linear_num_value_heads"] = rng.choice(
                [(16, 32), (8, 16), (16, 64), (4, 8), (12, 24), (16, 16), (32, 64), (6, 12)])
            cfg["linear_key_head_dim"] = rng.choice([128, 128, 64, 96, 192])
            cfg["linear_value_head_dim"] = rng.choice([128, 128, 64, 96, 80])
        if rng.random() < 0.4:
            cfg["num_attention_heads"], cfg["num_key_value_heads"] = rng.choice([(16, 2), (32, 4), (8, 1), (16, 4),
                                                                                 (24, 2), (16, 8)])
        cfg["moe_intermediate_size"] = rng.choice([512, 512, 768, 384, 1024, 640, 256, 1536])
        cfg["shared_expert_intermediate_size"] = rng.choice([512, 512, 0, 384, 1024, 640, 2048])
        cfg["num_experts"] = rng.choice([512, 64, 128, 32])
        cfg["num_experts_per_tok"] = min(cfg["num_experts_per_tok"], 8)
        roll = rng.random()
        if roll < 0.15:
            cfg["mlp_only_layers"] = [0]
            cfg["intermediate_size"] = rng.choice([5120, 3072, 4160])
        elif roll < 0.25:
            cfg["decoder_sparse_step"] = 2
        kind = rng.choice(["fp8", "fp8", "fp8_bare", "none", "ct", "ct"]) if q is None else rng.choice(
            ["fp8", "fp8", "none", "ct"])
        if kind == "ct":
            # llm-compressor's presets with the ignore list of its Qwen3-Next example
            # (vllm-project/llm-compressor examples/quantization_w8a8_fp8/qwen3_next_example.py), sometimes another one
            cfg["torch_dtype"] = "bfloat16"
            q = ct_quantization_config(rng)
            roll = rng.random()
            q["ignore"] = list(QWEN3_NEXT_CT_IGNORE) if roll < 0.7 else ["lm_head"] if roll < 0.8 else [
                "lm_head", "re:.*linear_attn.*", rng.choice(["re:.*mlp.gate$", "re:.*shared_expert.*", "re:.*experts.*",
                                                             "re:.*self_attn.*", "re:.*in_proj_ba$"])]
            cfg["quantization_config"] = q
        elif kind.startswith("fp8"):
            ignore = _qwen3_next_ignore(4, interval) if kind == "fp8" else []
            if ignore and rng.random() < 0.25:
                ignore = [x for x in ignore if not x.endswith(f"layers.{rng.randrange(4)}.linear_attn.in_proj_ba")]
            cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                          "weight_block_size": [128, 128],
                                          **({"modules_to_not_convert": ignore} if ignore else {})}
        out.append({"config": cfg})
    return out


def run_qwen3_next(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Qwen3-Next configs (qwen3_next_variants) at ``n_layouts`` of QWEN3_NEXT_LAYOUTS each (EPLB last) in
    the release and compare; the layer list of the catalog's BF16 checkpoint (cut, tp 1) is compared too, from 0.11.0
    (0.10.2 builds the shared expert without a module name, which its layer records do not carry)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9400 + 1)
    cases = []
    for case in qwen3_next_variants(rng, n):
        cfg = case["config"]
        case["layouts"] = draw_layouts(rng, QWEN3_NEXT_LAYOUTS, cfg["num_attention_heads"], n_layouts, one_of_last=1)
        cases.append(case)
    lists = []
    if resolve(version).within("0.11.0"):
        plain = copy.deepcopy(catalog.lookup(QWEN3_NEXT_BASES[0]).config)
        plain["num_hidden_layers"] = 4
        lists.append({"config": plain, "layouts": [{"tp": 1}], "record": True})
    return _with_layer_lists(version, python, python_env, cases, lists)


def layouts(rng: random.Random, n: int, version: str) -> list[dict]:
    fixed = [{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 1, "dp": 8},
             {"tp": 1, "dp": 8, "ep": True}, {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 32},
             {"tp": 1, "dp": 5, "ep": True, "eplb": True}]
    out = list(fixed)
    while len(out) < n:
        lay = {"tp": rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32]), "dp": rng.choice([1, 1, 2, 3, 4, 8])}
        if resolve(version).within("0.13.0") and rng.random() < 0.15:
            lay["pcp"] = 2
        if rng.random() < 0.4:
            lay["ep"] = True
            if rng.random() < 0.5:
                lay.update(eplb=True, redundant=rng.choice([0, 0, 1, 8, 16, 32]))
        out.append(lay)
    rng.shuffle(out)
    return out[:n]


def kvguard_outcome(cfg: dict, lay: dict, version: str, quantization=None, moe_backend: str = "auto",
                    kv_cache_dtype: str = "auto", mm_encoder_tp_mode: str = "weights", all2all_backend=None,
                    attention_backend=None):
    """(ok, exc_type, message) from kvguard.quant, or None when kvguard does not decide it."""
    release = resolve(version)
    facts = model_facts(cfg, vllm_version=version)
    res = outcome(facts, release, Launch(tp=lay["tp"], dp=lay.get("dp", 1), pcp=lay.get("pcp", 1),
                                         ep=bool(lay.get("ep")), eplb=bool(lay.get("eplb")),
                                         redundant=lay.get("redundant", 0), refined_fp8_moe_kernel=True,
                                         quantization=quantization, moe_backend=moe_backend,
                                         kv_cache_dtype=kv_cache_dtype, mm_encoder_tp_mode=mm_encoder_tp_mode,
                                         all2all_backend=all2all_backend, attention_backend=attention_backend))
    if res.unmodelled:
        return None
    if res.check is None:
        return (True, None, None)
    exc, message = render(res, release)
    return (False, exc, message)


#: the checks grouped into the families the report counts agreement by
FAMILIES = {"MI_fp8_block_k": "block-fp8-dense", "MI_fp8_block_n": "block-fp8-dense",
            "MI_fp8_moe_block_n": "block-fp8-moe", "MI_fp8_moe_block_k": "block-fp8-moe",
            "MI_fused_shards": "ignored-layers", "MI_eplb_even": "ep-eplb", "MI_divide": "sharding",
            "MI_redundant_without_eplb": "ep-eplb-redundant",
            "MI_merged_assert": "sharding", "MI_attn_assert": "sharding", "MI_moe_intermediate": "sharding",
            "MI_tp_gt_experts": "sharding", "MI_awq_input": "awq-gptq", "MI_awq_output": "awq-gptq",
            "MI_moe_wna16_group": "awq-gptq-moe", "MI_ct_no_scheme": "no-scheme", "MI_ct_no_target": "no-scheme",
            "MI_ct_nvfp4_activations": "no-scheme", "MI_ct_nvfp4a16_moe": "ct-nvfp4a16-moe",
            "MI_ct_fused_ignore": "ct-fused-ignore",
            "MI_eplb_unsupported": "ep-eplb", "MI_ct_wna16_moe_group": "ct-wna16-moe",
            "MI_ct_wna16_moe_hidden": "ct-wna16-moe", "MI_ct_wna16_moe_int8_group": "ct-wna16-moe",
            "MI_nvfp4_input": "modelopt-nvfp4", "MI_nvfp4a16_input": "modelopt-nvfp4", "MI_gptoss_world": "sharding",
            "MI_dsv4_experts_tp": "dsv4-experts-tp", "MI_dsv4_flashmla_heads": "dsv4-flashmla-heads",
            "MI_dsv4_attn_heads": "dsv4-flashmla-heads", "MI_dsv4_kv_cache_dtype": "dsv4-kv-cache-dtype",
            "MI_dsv4_shared_experts_attr": "dsv4-shared-experts", "MI_dsv4_shared_experts_empty": "dsv4-shared-experts",
            "MI_dsv4_expert_dtype": "dsv4-expert-dtype", "MI_dsv4_attention_backend": "dsv4-attention-backend",
            "MI_dsv4_moe_backend": "dsv4-moe-backend", "MI_dsv4_nvfp4_moe_backend": "dsv4-nvfp4-moe-backend",
            "MI_dsv4_nvfp4_clamp_backend": "dsv4-nvfp4-clamp-backend"}


def _family(cfg: dict, lay: dict, version: str, ok: bool, message) -> str:
    """The family a compared case counts for: the refusal's check family, else what the accepted case
    exercised (block-FP8 / EP / unquantized)."""
    q = cfg.get("quantization_config") or {}
    moe = " moe" if any(k in cfg for k in ("num_experts", "num_local_experts", "n_routed_experts")) else ""
    if not ok and message == "" and moe and q.get("quant_method") in ("awq", "gptq"):
        return "awq-gptq-moe (bare assert)"
    if not ok:
        import re
        import string

        from kvguard.rules import Check
        from kvguard.rules.table import rows_for

        best, best_len = "sharding", -1
        for row in rows_for(resolve(version)):
            if not (isinstance(row, Check) and row.id in FAMILIES and message is not None):
                continue
            parts = list(string.Formatter().parse(row.template))
            pattern = "".join(re.escape(lit) + ("(.+?)" if f is not None else "") for lit, f, _, _ in parts)
            literal = sum(len(lit) for lit, _, _, _ in parts)
            if re.fullmatch(pattern, message) and literal > best_len:   # the most specific template
                best, best_len = FAMILIES[row.id], literal
        return best
    if lay.get("eplb") or lay.get("ep"):
        return "ep-eplb (accepted)"
    q = cfg.get("quantization_config")
    if q and q.get("quant_method") == "modelopt":
        algo = q.get("quant_algo") or (q.get("quantization") or {}).get("quant_algo")
        return f"modelopt {algo}{moe} (accepted)"
    if q and q.get("quant_method") in ("awq", "gptq", "compressed-tensors"):
        moe = " moe" if any(k in cfg for k in ("num_experts", "num_local_experts", "n_routed_experts")) else ""
        return f"{q['quant_method']}{moe} (accepted)"
    return "block-fp8 (accepted)" if q and q.get("weight_block_size") else "unquantized (accepted)"


def _online_label(case: dict, label: str, quant_config: "str | None") -> str:
    """The family of an online-FP8 case (``--quantization fp8`` of an unquantized config) is counted apart, with
    the quantization config class the release built (Fp8Config, OnlineQuantizationConfig)."""
    if (case.get("engine_args") or {}).get("quantization") == "fp8" and not case["config"].get("quantization_config"):
        return f"online-fp8 [{quant_config}] {label.replace('unquantized ', '')}"
    return label



def _kvguard_refuses_config(cfg, version: str) -> bool:
    from kvguard.errors import ModelConfigRefused

    try:
        model_facts(cfg, vllm_version=version)
    except ModelConfigRefused:
        return True
    return False


def _kvguard_refuses_engine_config(cfg, version: str, setup_error: str) -> bool:
    """Whether kvguard refuses the launch before model construction with the message the release's engine config
    raised (VllmConfig's quantization checks: e.g. FP8_PER_CHANNEL_PER_TOKEN before 0.14.0, which ModelOpt's config
    does not list yet): then no model is built on either side."""
    import kvguard

    try:
        verdict = kvguard.check(cfg, vllm_version=version, tp=1, host=kvguard.Host.cuda_node())
    except Exception:  # noqa: BLE001 - kvguard refuses the input itself: not this case
        return False
    return (not verdict.ok and verdict.stage not in ("model_init", None) and bool(verdict.message)
            and verdict.message in setup_error)


def _kvguard_source(case: dict):
    """What kvguard reads for a case: its config, or (a case with ``files`` beside config.json) the checkpoint
    directory, written once, as the release reads it."""
    if not case.get("files"):
        return case["config"]
    if "_dir" not in case:
        import tempfile

        directory = tempfile.mkdtemp(prefix="kvg-quant-kvguard-")
        for name, content in {"config.json": case["config"], **case["files"]}.items():
            with open(os.path.join(directory, name), "w") as fh:
                json.dump(content, fh)
        case["_dir"] = directory
    return case["_dir"]


def _label_config(case: dict) -> dict:
    """The case's config as the reports label it: with the hf_quant_config.json it carries as its
    quantization_config when config.json has none (the ModelOpt method its normalization names)."""
    side = (case.get("files") or {}).get("hf_quant_config.json")
    if side is None or case["config"].get("quantization_config") is not None:
        return case["config"]
    algo = (side.get("quantization") or {}).get("quant_algo")
    return dict(case["config"], quantization_config=dict(side, quant_method="modelopt_fp4" if algo == "NVFP4"
                                                         else "modelopt"))


def compare(version: str, cases: list[dict], out: dict) -> dict:
    counts = {"agree": 0, "disagree": 0, "undecided": 0, "oracle_setup_failures": 0, "config_refused_both": 0}
    by_family: dict = {}
    by_arch: dict = {}
    mismatches: list = []
    undecided: dict = {}
    for case, res in zip(cases, out["results"]):
        if "setup_error" in res:
            if _kvguard_refuses_config(_kvguard_source(case), version) or _kvguard_refuses_engine_config(
                    _kvguard_source(case), version, res["setup_error"]):
                counts["config_refused_both"] += 1  # vLLM's ModelConfig refuses it: no model is built
                continue
            quantization = (case.get("engine_args") or {}).get("quantization")
            backend = (case.get("engine_args") or {}).get("moe_backend", "auto")
            if all(kvguard_outcome(_kvguard_source(case), lay, version, quantization, backend) is None
                   for lay in case["layouts"]):
                # the engine config refuses it (GPTQ desc_act on 0.30.0+): kvguard leaves the stage undecided
                counts["undecided"] += len(case["layouts"])
                continue
            counts["oracle_setup_failures"] += 1
            mismatches.append({"config": case["config"].get("architectures"), "setup_error": res["setup_error"]})
            continue
        for lay, rec in zip(case["layouts"], res["outcomes"]):
            engine = case.get("engine_args") or {}
            mine = kvguard_outcome(_kvguard_source(case), lay, version, engine.get("quantization"),
                                   engine.get("moe_backend", "auto"), engine.get("kv_cache_dtype", "auto"),
                                   engine.get("mm_encoder_tp_mode", "weights"), engine.get("all2all_backend"),
                                   engine.get("attention_backend"))
            # (architecture, quantization method): agree / disagree / undecided, for the per-family figures
            arch_key = f"{(case['config'].get('architectures') or ['?'])[0]} " \
                       f"{(_label_config(case).get('quantization_config') or {}).get('quant_method')}"
            tally = by_arch.setdefault(arch_key, {"agree": 0, "disagree": 0, "undecided": 0})
            tally["undecided" if mine is None else "agree" if mine == (rec["ok"], rec.get("exc_type"),
                                                                       rec.get("message")) else "disagree"] += 1
            if mine is None:
                counts["undecided"] += 1
                _note_undecided(undecided, case, lay, version, rec)
                q = case["config"].get("quantization_config") or {}
                moe = " moe" if any(k in case["config"] for k in ("num_experts", "num_local_experts",
                                                                  "n_routed_experts")) else ""
                nvfp4 = " NVFP4" if q.get("format") == "nvfp4-pack-quantized" else ""
                key = (f"{q.get('quant_method')}{nvfp4}{moe} (undecided)"
                       if q.get("quant_method") in ("awq", "gptq", "compressed-tensors") else None)
                if key:
                    by_family.setdefault(key, {"agree": 0, "disagree": 0})["agree"] += 0
                    by_family[key]["count"] = by_family[key].get("count", 0) + 1
                continue
            theirs = (rec["ok"], rec.get("exc_type"), rec.get("message"))
            label = _online_label(case, _family(_label_config(case), lay, version, rec["ok"], rec.get("message")),
                                  res.get("quant_config"))
            if (case["config"].get("quantization_config") or {}).get("quant_method") == "compressed-tensors" \
                    and not rec["ok"]:
                label = f"compressed-tensors {label}"
            if (case["config"].get("quantization_config") or {}).get("format") == "nvfp4-pack-quantized":
                label = f"NVFP4 {label}"
            fam = by_family.setdefault(label, {"agree": 0, "disagree": 0})
            fam["agree" if mine == theirs else "disagree"] += 1
            if mine == theirs:
                counts["agree"] += 1
            else:
                counts["disagree"] += 1
                mismatches.append({"arch": case["config"].get("architectures"), "layout": lay, "kvguard": mine,
                                   "engine_args": case.get("engine_args"),
                                   "oracle": theirs, "where": rec.get("where"),
                                   "sizes": {k: case["config"].get(k) for k in (
                                       "intermediate_size", "moe_intermediate_size", "quantization_config")}})
    return {"version": version, "counts": counts, "by_family": by_family, "mismatches": mismatches,
            "undecided": undecided, "by_arch": by_arch}


def _note_undecided(undecided: dict, case: dict, lay: dict, version: str, rec: dict) -> None:
    """Count an undecided case by kvguard's reason and the release's outcome (what kvguard leaves open)."""
    release = resolve(version)
    facts = model_facts(case["config"], vllm_version=version)
    res = outcome(facts, release, Launch(tp=lay["tp"], dp=lay.get("dp", 1), pcp=lay.get("pcp", 1),
                                         ep=bool(lay.get("ep")), eplb=bool(lay.get("eplb")),
                                         redundant=lay.get("redundant", 0), refined_fp8_moe_kernel=True,
                                         quantization=(case.get("engine_args") or {}).get("quantization"),
                                         moe_backend=(case.get("engine_args") or {}).get("moe_backend", "auto"),
                                         attention_backend=(case.get("engine_args") or {}).get("attention_backend"),
                                         kv_cache_dtype=(case.get("engine_args") or {}).get("kv_cache_dtype", "auto")))
    reason = (res.unmodelled or "host fact").split(" (per-rank")[0].split(" (it may name")[0]
    theirs = "accepted" if rec.get("ok") else f"{rec.get('exc_type')}: {(rec.get('message') or '')[:80]}"
    key = f"{reason} -> {theirs}"
    undecided[key] = undecided.get(key, 0) + 1


def run(version: str, n_configs: int, n_layouts: int, seed: int = 7, n_lists: int = 2,
        n_moe: "int | None" = None) -> dict:
    """Build ``n_configs`` configs x ``n_layouts`` layouts in the release and compare; the first ``n_lists``
    configs are also built unquantized at tp 1 and their layer lists compared with kvguard's data."""
    from kvguard import SUPPORTED_VERSIONS

    python, python_env = _python(version)
    rng = random.Random(seed)
    configs = variants(rng, n_configs, offset=SUPPORTED_VERSIONS.index(version) * max(1, n_configs))
    cases = []
    for cfg in configs:
        # layouts the verify stage refuses (attention heads not divisible by tp) never reach model construction
        heads = cfg.get("num_attention_heads") or 1
        lays = [lay for lay in layouts(rng, n_layouts, version) if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": lays})
    # AWQ / GPTQ (dense): tp sizes up to 64 reach every per-rank refusal of the 1-layer configs
    for cfg, engine in wna16_variants(rng, max(1, n_configs // 2)):
        heads = cfg["num_attention_heads"]
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:], "engine_args": engine})
    # AWQ / GPTQ on MoE models: the MoE TP size is tp x dp without expert parallel
    moe_layouts = [{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
                   {"tp": 4, "dp": 4}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 8, "dp": 2}]
    # one EPLB layout per quantized MoE config (FusedMoE's EPLB support check of the experts' method, after the
    # method's backend selection and before its create_weights), in place of the last sampled layout
    eplb_layout = {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8}
    for cfg, engine in wna16_moe_variants(random.Random(seed + 1), max(1, n_configs // 2) if n_moe is None
                                          else n_moe, version):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in moe_layouts if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": lays[:max(0, n_layouts - 1)] + [eplb_layout],
                      "engine_args": engine})
    # AWQ / GPTQ on DeepSeek-V2/V3, Kimi-K2, MiniMax-M2: the MoE layouts (their own stream, bases in turn per
    # release so that the sampled .ci/run releases see all of them)
    mla_rng = random.Random(seed * 4000 + SUPPORTED_VERSIONS.index(version))
    mla_layouts = moe_layouts + [{"tp": 2, "dp": 4, "ep": True}, {"tp": 8, "dp": 16}, {"tp": 64}]
    for cfg, engine in wna16_mla_variants(mla_rng, max(1, n_configs // 2) if WNA16_MLA_CONFIGS is None
                                          else WNA16_MLA_CONFIGS, version, SUPPORTED_VERSIONS.index(version)):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in mla_layouts if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": mla_rng.sample(lays, min(max(0, n_layouts - 1), len(lays)))
                      + [eplb_layout], "engine_args": engine})
    if FUSED_SHARDS:
        for cfg in fused_shard_configs(version):
            cases.append({"config": cfg, "layouts": [{"tp": 1}, {"tp": 8}]})
    # compressed-tensors (dense): the same tp sizes
    # (a stream of their own per release, so that the sampled .ci/run releases see different presets)
    ct_rng = random.Random(seed * 1000 + SUPPORTED_VERSIONS.index(version))
    for cfg in ct_variants(ct_rng, CT_CONFIGS or max(1, n_configs // 2)):
        heads = cfg["num_attention_heads"]
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:]})
    # compressed-tensors INT8 W8A8 (dense): the same tp sizes (a stream of its own per release)
    ct_int8_rng = random.Random(seed * 7000 + SUPPORTED_VERSIONS.index(version))
    for cfg in ct_int8_variants(ct_int8_rng, 1 if CT_INT8_CONFIGS is None else CT_INT8_CONFIGS):
        heads = cfg["num_attention_heads"]
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:]})
    # compressed-tensors NVFP4 (dense; a Qwen3-MoE base now and then): the same tp sizes (a stream of its own)
    ct_nvfp4_rng = random.Random(seed * 8000 + SUPPORTED_VERSIONS.index(version))
    for cfg in ct_nvfp4_variants(ct_nvfp4_rng, 1 if CT_NVFP4_CONFIGS is None else CT_NVFP4_CONFIGS):
        heads = cfg["num_attention_heads"]
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:]})
    # compressed-tensors NVFP4 experts: the MoE layouts, EPLB last (a stream of its own per release)
    ct_nvfp4_moe_rng = random.Random(seed * 9000 + SUPPORTED_VERSIONS.index(version))
    n_nvfp4_moe = 1 if CT_NVFP4_MOE_CONFIGS is None else CT_NVFP4_MOE_CONFIGS
    for cfg in ct_nvfp4_moe_variants(ct_nvfp4_moe_rng, n_nvfp4_moe):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in moe_layouts + [{"tp": 2, "dp": 4, "ep": True}] if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": ct_nvfp4_moe_rng.sample(lays, min(max(0, n_layouts - 1), len(lays)))
                      + [{"tp": 2, "dp": 4, "ep": True, "eplb": True}]})
    # compressed-tensors on MoE models: the MoE layouts (tp x dp without expert parallel, EP, EPLB)
    ct_moe_rng = random.Random(seed * 2000 + SUPPORTED_VERSIONS.index(version))
    for cfg in ct_moe_variants(ct_moe_rng, max(1, n_configs // 2) if CT_MOE_CONFIGS is None else CT_MOE_CONFIGS):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in moe_layouts if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": ct_moe_rng.sample(lays, min(max(0, n_layouts - 1), len(lays)))
                      + [{"tp": 2, "dp": 4, "ep": True, "eplb": True}]})
    # compressed-tensors integer weights on DeepSeek-V2/V3, Kimi-K2, MiniMax-M2: tp 1-64 with and without expert
    # parallel (a stream of their own, bases in turn per release)
    ct_mla_rng = random.Random(seed * 6000 + SUPPORTED_VERSIONS.index(version))
    for cfg in ct_mla_variants(ct_mla_rng, 1 if CT_MLA_CONFIGS is None else CT_MLA_CONFIGS, version,
                               SUPPORTED_VERSIONS.index(version)):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in CT_MLA_LAYOUTS if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": ct_mla_rng.sample(lays, min(max(0, n_layouts - 1), len(lays)))
                      + [{"tp": 2, "dp": 4, "ep": True, "eplb": True}]})
    # online FP8 of unquantized checkpoints: the MoE layouts and EPLB (the online MoE method's EPLB support)
    online_rng = random.Random(seed * 3000 + SUPPORTED_VERSIONS.index(version))
    online_layouts = moe_layouts + [{"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8},
                                    {"tp": 1, "dp": 8, "ep": True, "eplb": True}, {"tp": 3}, {"tp": 64}]
    for cfg in online_fp8_variants(online_rng, max(1, n_configs // 4) if ONLINE_FP8_CONFIGS is None
                                   else ONLINE_FP8_CONFIGS):
        heads = cfg["num_attention_heads"]
        lays = [lay for lay in online_layouts if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": online_rng.sample(lays, min(n_layouts, len(lays))),
                      "engine_args": {"quantization": "fp8"}})
    # ModelOpt FP8 / NVFP4 (dense): tp sizes up to 64 (a stream of its own per release)
    mo_rng = random.Random(seed * 5000 + SUPPORTED_VERSIONS.index(version))
    for cfg in modelopt_variants(mo_rng, max(1, n_configs // 2) if MODELOPT_CONFIGS is None else MODELOPT_CONFIGS):
        heads = cfg["num_attention_heads"]
        if any(k in cfg for k in ("num_experts", "num_local_experts", "n_routed_experts")):
            # the MoE exports: the MoE layouts (a sample, the EPLB one last)
            lays = [dict(lay) for lay in MODELOPT_MOE_LAYOUTS if heads % lay["tp"] == 0]
            cases.append({"config": cfg, "layouts": mo_rng.sample(lays[:-1], min(max(0, n_layouts - 1),
                                                                                len(lays) - 1)) + lays[-1:]})
            continue
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:]})
    # ModelOpt checkpoints with hf_quant_config.json beside config.json (a stream of their own per release)
    hfq_rng = random.Random(seed * 8000 + SUPPORTED_VERSIONS.index(version))
    for case in hf_quant_config_variants(hfq_rng, 1 if HF_QUANT_CONFIGS is None else HF_QUANT_CONFIGS):
        heads = case["config"]["num_attention_heads"]
        lays = [dict(lay) for lay in MODELOPT_MOE_LAYOUTS[:-1] if heads % lay["tp"] == 0]
        if "moe_intermediate_size" not in case["config"]:
            lays = [lay for lay in lays if set(lay) == {"tp"}] + [{"tp": 64}] * (heads % 64 == 0)
        case["layouts"] = hfq_rng.sample(lays, min(n_layouts, len(lays)))
        cases.append(case)
    # gpt-oss (MXFP4 experts, BF16 form): the world-size layouts (a stream of its own per release, the EPLB one last)
    go_rng = random.Random(seed * 7000 + SUPPORTED_VERSIONS.index(version))
    for cfg in gpt_oss_variants(go_rng, 1 if GPT_OSS_CONFIGS is None else GPT_OSS_CONFIGS):
        heads = cfg["num_attention_heads"]
        lays = [dict(lay) for lay in gpt_oss_layouts(version) if heads % lay["tp"] == 0]
        cases.append({"config": cfg, "layouts": go_rng.sample(lays[:-1], min(max(0, n_layouts - 1), len(lays) - 1))
                      + lays[-1:]})
    # ModelOpt exclusion lists (a stream of its own per release): the same layouts
    mx_rng = random.Random(seed * 7000 + SUPPORTED_VERSIONS.index(version))
    for cfg in modelopt_exclusion_variants(mx_rng, max(1, n_configs // 4) if MODELOPT_EXCL_CONFIGS is None
                                           else MODELOPT_EXCL_CONFIGS):
        heads = cfg["num_attention_heads"]
        if any(k in cfg for k in ("num_experts", "num_local_experts", "n_routed_experts")):
            lays = [dict(lay) for lay in MODELOPT_MOE_LAYOUTS if heads % lay["tp"] == 0]
            cases.append({"config": cfg, "layouts": mx_rng.sample(lays[:-1], min(max(0, n_layouts - 1),
                                                                                len(lays) - 1)) + lays[-1:]})
            continue
        lays = [{"tp": tp} for tp in (1, 2, 4, 8, 16, 32, 64) if heads % tp == 0]
        cases.append({"config": cfg, "layouts": lays[-n_layouts:]})
    # ModelOpt LM heads (a fixed table taken in turn, one per release by default): tp 1 and 4
    for cfg in modelopt_lm_head_variants(1 if MODELOPT_LM_HEAD_CONFIGS is None else MODELOPT_LM_HEAD_CONFIGS,
                                         SUPPORTED_VERSIONS.index(version)):
        cases.append({"config": cfg, "layouts": [{"tp": 1}, {"tp": 4}]})
    # GLM-4.x MoE on the releases of GLM4_MOE_SAMPLE (a stream of its own per release; GLM4_MOE_CONFIGS elsewhere too),
    # with the layer list of one base
    glm = GLM4_MOE_CONFIGS if GLM4_MOE_CONFIGS is not None else 2 if version in GLM4_MOE_SAMPLE else 0
    glm_rng = random.Random(seed * 9450 + SUPPORTED_VERSIONS.index(version))
    cases += _with_glm4_moe_layouts(glm_rng, glm4_moe_variants(glm_rng, glm), n_layouts)
    # and one GLM-4.7-Flash config where the release reads its config (0.24.0+)
    lite = 1 if glm and resolve(version).within("0.24.0") else 0
    cases += _with_glm4_moe_layouts(glm_rng, glm4_moe_lite_variants(glm_rng, lite), n_layouts)
    lists = [{"config": _glm4_moe_base(4, 3, large=True), "layouts": [{"tp": 1}], "record": True}] if glm else []
    for cfg in configs[:n_lists]:
        plain = copy.deepcopy(cfg)
        plain.pop("quantization_config", None)
        lists.append({"config": plain, "layouts": [{"tp": 1}], "record": True})
    return _with_layer_lists(version, python, python_env, cases, lists,
                             refused_both=lambda config: _kvguard_refuses_config(config, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_model_construction_agrees(version):
    report = run(version, int(os.environ.get("KVG_QUANT_CONFIGS", "2")), int(os.environ.get("KVG_QUANT_LAYOUTS", "10")),
                 int(os.environ.get("KVG_DIFF_SEED", "7")))
    c, lists = report["counts"], report["layer_lists"]
    print(f"\nvLLM {version}: model construction agree {c['agree']}, disagree {c['disagree']}, "
          f"undecided {c['undecided']}, config refused by both {c['config_refused_both']}, oracle setup failures "
          f"{c['oracle_setup_failures']}; layer lists agree {lists['agree']}, disagree {lists['disagree']}; "
          f"by family {report['by_family']}")
    out_dir = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"quant-{version}.json"), "w") as fh:
            json.dump(report, fh, indent=1, default=str)
    assert not report["mismatches"], json.dumps(report["mismatches"][:4], indent=1, default=str)
    assert c["agree"] > 0 and lists["agree"] + lists["config_refused_both"] > 0


#: Gemma 4 is built from 0.28.0 (before, ModelConfig refuses its per-layer config): CI samples the first and the
#: last such release (the full runs: tools/quant_differential.py --gemma4 N)
GEMMA4_SAMPLE = release_sample(VERSIONS, "0.28.0")


def keep_report(report: dict, version: str, kind: str) -> None:
    """Keep a construction differential's report as ``KVG_DIFF_REPORT_DIR/<kind>-<release>.json`` (the CI summary in
    .ci/run reads it, and its ``undecidable``)."""
    out_dir = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"{kind}-{version}.json"), "w") as fh:
            json.dump(dict(report, counts=dict(report["counts"], undecidable=report["counts"]["undecided"])), fh,
                      indent=1, default=str)


def _check_family_report(report: dict, version: str, family: str, kind: str, *,
                         lists_agree: "int | str | None" = "some", decided: bool = False) -> None:
    """A construction family's differential: the report kept (:func:`keep_report`), its counts printed, no
    mismatch, some agreement on the refusals (``decided``: none left undecided) and on the layer lists, none of which
    disagrees (``lists_agree``: "some", exactly that many, or None: no layer list compared, none printed)."""
    counts = report["counts"]
    keep_report(report, version, kind)
    line = (f"\nvLLM {version}: {family} construction agree {counts['agree']}, disagree {counts['disagree']}, "
            f"undecided {counts['undecided']}")
    if lists_agree is not None:
        lists = report["layer_lists"]
        line += f"; layer lists agree {lists['agree']}, disagree {lists['disagree']}"
    print(line)
    assert not report["mismatches"], json.dumps(report["mismatches"][:4], indent=1, default=str)
    assert counts["agree"] > 0
    assert not (decided and counts["undecided"]), counts
    if lists_agree is not None:
        assert not lists["disagree"], lists
        assert lists["agree"] > 0 if lists_agree == "some" else lists["agree"] == lists_agree, lists


@pytest.mark.parametrize("version", GEMMA4_SAMPLE)
def test_gemma4_construction_agrees(version):
    report = run_gemma4(version, int(os.environ.get("KVG_GEMMA4_CONFIGS", "4")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                        n_layouts=3)
    _check_family_report(report, version, "Gemma 4", "gemma4-construction")
    assert report["layer_lists"]["agree"] == len(GEMMA4_BASES)


#: Gemma 3's text model in CI: the first release, 0.26.0 (the tied ParallelLMHead of 0.14.0+, the stacked-shard mapper
#: on the ignore list) and the last (the full runs: tools/quant_differential.py --gemma3 N)
GEMMA3_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.26.0",))


@pytest.mark.parametrize("version", GEMMA3_SAMPLE)
def test_gemma3_construction_agrees(version):
    report = run_gemma3(version, int(os.environ.get("KVG_GEMMA3_CONFIGS", "4")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                        n_layouts=3)
    _check_family_report(report, version, "Gemma 3", "gemma3-construction")
    assert report["layer_lists"]["agree"] == 1


#: Gemma 3's multimodal wrapper (Gemma3ForConditionalGeneration: kvguard.quant.gemma3_mm's SigLIP tower, then the
#: gemma3 family under language_model): the catalog's google/gemma-3-27b-it config.json with the text sizes of
#: google/gemma-3-{4b,12b,27b}-it (GEMMA3_TEXT_SIZES), two decoder layers and one or two encoder layers, the tower now
#: and then resized (a width its heads do not divide, an MLP width that is a multiple of 64, so quantized, a head count
#: tp does not divide); the quantized forms the published exports write: llm-compressor's presets (RedHatAI/gemma-3-27b-
#: it-FP8-dynamic, -quantized.w4a16 / w8a8: ignore "re:.*lm_head", "re:vision_tower.*", "re:multi_modal_projector.*"),
#: the same with the tower left in, AutoAWQ / GPTQ, block FP8 with the tower listed in checkpoint names, online FP8
GEMMA3_MM_TOWERS = ((1152, 16, 4304), (1152, 16, 4352), (1152, 12, 4304), (1024, 16, 4096), (1152, 18, 4304),
                    (1280, 20, 5120), (1152, 16, 4300))
GEMMA3_MM_CT_IGNORE = (["re:.*lm_head", "re:vision_tower.*", "re:multi_modal_projector.*"],
                       ["re:.*lm_head", "re:vision_tower.*", "re:multi_modal_projector.*"], ["re:.*lm_head"],
                       ["lm_head"], ["re:.*lm_head", "re:vision_tower.*self_attn.*"],
                       ["re:.*lm_head", "model.vision_tower.vision_model.encoder.layers.0.self_attn.q_proj"],
                       ["re:.*lm_head"] + [f"model.vision_tower.vision_model.encoder.layers.0.self_attn.{name}"
                                           for name in ("q_proj", "k_proj", "v_proj", "out_proj")])
GEMMA3_MM_UNCONVERTED = (None, ["vision_tower", "multi_modal_projector"], ["vision_tower"], ["model.vision_tower"],
                         ["lm_head"])
GEMMA3_MM_LAYOUTS = GEMMA3_LAYOUTS + ({"tp": 32}, {"tp": 3}, {"tp": 12})


def _block_fp8(rng: random.Random, exclusions: dict) -> dict:
    """A block-FP8 ``quantization_config`` in Fp8Config's form (blocks of 128, now and then 64), ``exclusions`` its
    exclusion list under the key the export writes (the wrapper families' generators)."""
    return {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
            "weight_block_size": rng.choice([[128, 128], [128, 128], [64, 64]]), **exclusions}


def _wrapper_case(rng: random.Random, cfg: dict, engine: dict, data_parallel: float = 0.2) -> dict:
    """A multimodal wrapper's generated case: ``--mm-encoder-tp-mode data`` in ``data_parallel`` of the draws."""
    if rng.random() < data_parallel:
        engine["mm_encoder_tp_mode"] = "data"
    return {"config": cfg, "engine_args": engine}


def gemma3_mm_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Gemma 3 multimodal configs (see GEMMA3_MM_TOWERS) with varied sizes and quantization; one in five with
    ``--mm-encoder-tp-mode data`` (the wrapper does not support it: vLLM falls back to splitting the tower)."""
    out = []
    while len(out) < n:
        cfg = copy.deepcopy(catalog.lookup("google/gemma-3-27b-it").config)
        text, vision = cfg["text_config"], cfg["vision_config"]
        hidden, inter, heads, kv, head = rng.choice(GEMMA3_TEXT_SIZES[1:])
        text.update(hidden_size=hidden, intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv,
                    head_dim=head, num_hidden_layers=2)
        vision["num_hidden_layers"] = rng.choice([1, 2])
        if rng.random() < 0.45:
            vision["hidden_size"], vision["num_attention_heads"], vision["intermediate_size"] = rng.choice(
                GEMMA3_MM_TOWERS)
        if rng.random() < 0.08:
            del vision["vision_use_head"]   # the pooling head up to 0.14.x: left open
        kind = rng.choice(["none", "none", "ct", "ct", "ct", "ct_int8", "wna16", "wna16", "fp8", "online"])
        engine: dict = {}
        ignore = list(rng.choice(GEMMA3_MM_CT_IGNORE))
        if kind == "ct":
            cfg["quantization_config"] = dict(ct_quantization_config(rng), ignore=ignore)
        elif kind == "ct_int8":
            cfg["quantization_config"] = dict(ct_int8_quantization_config(rng), ignore=ignore)
        elif kind == "wna16":
            q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64]), list(GEMMA3_MM_UNCONVERTED), 0.1)
            cfg["torch_dtype"] = "float16" if q["quant_method"] == "gptq" or rng.random() < 0.5 else "bfloat16"
            if q["quant_method"] == "awq" and not q["zero_point"]:
                # no Marlin conversion without zero points: VllmConfig then checks the plain AWQ kernels' float16
                # (a config-stage question kvguard leaves open, VC_quant_act_dtype): drawn in float16, so that the
                # model is built
                cfg["torch_dtype"] = "float16"
            cfg["quantization_config"] = q
        elif kind == "fp8":
            names = [f"model.vision_tower.vision_model.encoder.layers.{n}.{m}" for n in range(vision["num_hidden_layers"])
                     for m in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj")
                     ] if rng.random() < 0.6 else []
            cfg["quantization_config"] = _block_fp8(rng, {"modules_to_not_convert": names + ["lm_head"]})
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append(_wrapper_case(rng, cfg, engine))
    return out


def run_gemma3_mm(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Gemma 3 multimodal configs (gemma3_mm_variants) at ``n_layouts`` of GEMMA3_MM_LAYOUTS (those tp
    the text heads allow: VllmConfig refuses the others first) in the release and compare; the layer list of the base
    (two decoder layers, one encoder layer, unquantized, tp 1) too (tools/quant_differential.py --gemma3-mm)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9700 + 1)
    host: dict = {"enable_prefix_caching": False} if resolve(version).within("0.11.0", "0.11.0") else {}
    if resolve(version).within(None, "0.17.1"):
        host["swap_space"] = 0  # (as run_qwen3_vl: the oracle host's memory)
    # 0.10.2 / 0.11.x on the oracle's CPU platform run a sliding-window model on the V0 engine, whose CPU attention
    # lookup refuses the tower's MultiHeadAttention ("CPU backend only supports V1."); a CUDA host runs V1.  No layer
    # reads the window's size: the oracle builds these releases' cases without one
    windowless = resolve(version).within(None, "0.11.2")
    cases = []
    for case in gemma3_mm_variants(rng, n):
        if windowless:
            case["config"]["text_config"]["sliding_window"] = None
        heads = case["config"]["text_config"]["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, GEMMA3_MM_LAYOUTS, heads, n_layouts)
        case["engine_args"] = dict(case["engine_args"], **host)
        cases.append(case)
    plain = copy.deepcopy(catalog.lookup("google/gemma-3-27b-it").config)
    plain["text_config"]["num_hidden_layers"], plain["vision_config"]["num_hidden_layers"] = 2, 1
    if windowless:
        plain["text_config"]["sliding_window"] = None
    return _with_layer_lists(version, python, python_env, cases, [{"config": plain, "layouts": [{"tp": 1}],
                                                                   "record": True, "engine_args": host}])


#: Gemma 3's multimodal wrapper in CI: the first release (the oracle without the sliding window; the pooling head
#: built when the config does not turn it off), 0.15.0 (the first that never builds the head), 0.28.0 and the last
#: (the full runs: tools/quant_differential.py --gemma3-mm N)
GEMMA3_MM_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.15.0", "0.28.0"))


@pytest.mark.parametrize("version", GEMMA3_MM_SAMPLE)
def test_gemma3_mm_construction_agrees(version):
    report = run_gemma3_mm(version, int(os.environ.get("KVG_GEMMA3_MM_CONFIGS", "4")),
                           int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "Gemma 3 multimodal", "gemma3-mm-construction")
    assert report["layer_lists"]["agree"] == 1


#: the CI sample of Qwen3-Next: its first release, one of each later form of its gated-delta-net projections
#: (0.11.0 column layers, 0.17.1 the two-output in_proj_ba) and the last
QWEN3_NEXT_SAMPLE = release_sample(VERSIONS, QWEN3_NEXT_SINCE, also=("0.11.0", "0.17.1"))


@pytest.mark.parametrize("version", QWEN3_NEXT_SAMPLE)
def test_qwen3_next_construction_agrees(version):
    report = run_qwen3_next(version, int(os.environ.get("KVG_QWEN3_NEXT_CONFIGS", "3")),
                            int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "Qwen3-Next", "qwen3-next-construction", decided=True,
                         lists_agree=1 if resolve(version).within("0.11.0") else 0)


MINIMAX_SAMPLE = release_sample(VERSIONS, MINIMAX_M2_SINCE, also=("0.20.0",))


@pytest.mark.parametrize("version", MINIMAX_SAMPLE)
def test_modelopt_minimax_construction_agrees(version):
    report = run_modelopt_minimax(version, int(os.environ.get("KVG_MINIMAX_CONFIGS", "4")),
                                  int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "MiniMax-M2 ModelOpt", "modelopt-minimax-construction", lists_agree=None,
                         decided=True)


#: DeepSeek-V3.2 / GLM-5 (kvguard/data/quant_archs.json family deepseek_v32: the DeepSeek-V3 layers and the sparse
#: attention indexer, modelled 0.12.0 - 0.28.0; GLM-5's config is read from 0.24.0, transformers 5): the catalog
#: checkpoints the generated configs start from, and the layouts (tp 1-32, data / expert parallel, EPLB)
DSA_BASES = ("deepseek-ai/DeepSeek-V3.2", "zai-org/GLM-5-FP8")
DSA_CONFIGS = 12
DSA_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
               {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
               {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8}, {"tp": 1, "dp": 5, "ep": True, "eplb": True})


def _dsa_base(base: str, layers: int, first_dense: int) -> dict:
    cfg = copy.deepcopy(catalog.lookup(base).config)
    cfg.pop("auto_map", None)
    cfg.pop("quantization_config", None)
    cfg["num_hidden_layers"], cfg["first_k_dense_replace"] = layers, first_dense
    return cfg


def dsa_variants(rng: random.Random, n: int, version: str) -> list[dict]:
    """``n`` DeepSeek-V3.2 / GLM-5 configs (GLM-5 from 0.24.0, where the release's transformers reads its config), cut
    to 4-7 layers (1-3 dense), with varied sizes (q LoRA rank, the indexer's heads and head size, the dense and MoE
    intermediate sizes, the expert count), IndexCache settings (index_topk_freq, index_skip_topk_offset; one in four an
    index_topk_pattern) and quantization: block FP8 (DeepSeek's [128, 128], sometimes
    with modules_to_not_convert naming a layer's attention or indexer as GLM-5-FP8 does), online FP8 (``--quantization
    fp8``), unquantized."""
    bases = [b for b in DSA_BASES if "GLM" not in b or resolve(version).within("0.24.0")]
    out = []
    while len(out) < n:
        layers = rng.choice([4, 5, 6, 7])
        cfg = _dsa_base(bases[len(out) % len(bases)], layers, rng.choice([1, 2, 3]))
        cfg["q_lora_rank"] = rng.choice([cfg["q_lora_rank"], 1536, 2048, 1600, 1000, 1088])
        cfg["index_n_heads"] = rng.choice([cfg["index_n_heads"], 64, 32, 48, 40])
        cfg["index_head_dim"] = rng.choice([cfg["index_head_dim"], 128, 96, 136])
        cfg["moe_intermediate_size"] = rng.choice([2048, 1536, 1792, 2112, 1000, 2176])
        cfg["intermediate_size"] = rng.choice([cfg["intermediate_size"], 12288, 12000, 18560])
        cfg["n_routed_experts"] = rng.choice([256, 64, 160, 72])
        if rng.random() < 0.5:
            cfg["index_topk_freq"] = rng.choice([1, 2, 3])
        if rng.random() < 0.4:
            cfg["index_skip_topk_offset"] = rng.choice([0, 1, 2, 3])
        if rng.random() < 0.25:
            # IndexCache's explicit pattern: a layer marked "S" builds no indexer; it may be shorter or longer than
            # the layers (a layer past its end builds one), or a list of letters
            pattern = "".join(rng.choice("SF") for _ in range(layers + rng.choice([-2, -1, 0, 0, 1])))
            cfg["index_topk_pattern"] = list(pattern) if rng.random() < 0.2 else pattern
        kind = rng.choice(["fp8_block", "fp8_block", "fp8_block_ignore", "online", "none"])
        engine = {}
        if kind.startswith("fp8_block"):
            q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}
            if kind == "fp8_block_ignore":
                i = rng.randrange(layers)
                q["modules_to_not_convert"] = ["lm_head", f"model.layers.{i}.self_attn.indexer.wq_b",
                                               f"model.layers.{i}.self_attn.kv_b_proj",
                                               f"model.layers.{rng.randrange(layers)}.self_attn.o_proj"]
            cfg["quantization_config"] = q
        elif kind == "online":
            engine = {"quantization": "fp8"}
        out.append({"config": cfg, "engine_args": engine})
    return out


def _dsa_modelopt_config(rng: random.Random, base: str, moe_widths: "tuple[int, ...]",
                         kinds: "tuple[str, ...]") -> "tuple[dict, list[str]]":
    """A ModelOpt export's DSA config (``base`` cut to 4-6 layers, 1-2 dense, with varied q LoRA rank, indexer heads,
    dense and expert widths (``moe_widths``), expert count; bfloat16) and its exclusion list of a kind drawn from
    ``kinds``: NVIDIA's (every layer's MLA projections and ``indexer*``), the indexers only, nothing but the LM head, or
    one layer's ``q_a_proj`` alone (a fused layer with one shard excluded).  The draws are made in that order, which the
    recorded seeds' configs depend on."""
    layers = rng.choice([4, 5, 6])
    cfg = _dsa_base(base, layers, rng.choice([1, 2]))
    cfg["q_lora_rank"] = rng.choice([cfg["q_lora_rank"], 1000, 1544, 2048])
    cfg["index_n_heads"] = rng.choice([cfg["index_n_heads"], 32, 40])
    cfg["moe_intermediate_size"] = rng.choice(moe_widths)
    cfg["intermediate_size"] = rng.choice([cfg["intermediate_size"], 12288, 12008])
    cfg["n_routed_experts"] = rng.choice([256, 64, 72])
    cfg["torch_dtype"] = "bfloat16"
    kind = rng.choice(kinds)
    ignore = ["lm_head"]
    if kind == "nvidia":
        for i in range(layers):
            ignore += [f"model.layers.{i}.self_attn.{m}" for m in ("indexer*", "kv_a_proj_with_mqa", "kv_b_proj",
                                                                   "q_a_proj", "q_b_proj")]
    elif kind == "indexer":
        ignore += [f"model.layers.{i}.self_attn.indexer*" for i in range(layers)]
    elif kind == "half":
        ignore += [f"model.layers.{rng.randrange(layers)}.self_attn.q_a_proj"]
    return cfg, ignore


def dsa_nvfp4_variants(rng: random.Random, n: int, version: str, flat: bool = False) -> list[dict]:
    """``n`` ModelOpt NVFP4 exports of DeepSeek-V3.2 / GLM-5 (as nvidia/DeepSeek-V3.2-NVFP4 and nvidia/GLM-5-NVFP4:
    quant_algo NVFP4, group 16), cut to 4-6 layers with varied q LoRA rank (some not a multiple of 16: the indexer's
    wq_b and q_b_proj read it as their input), indexer and intermediate sizes, and exclusion lists: NVIDIA's (every
    layer's MLA projections and ``indexer*``), the indexers only, nothing but the LM head, or one layer's
    ``q_a_proj`` alone (a fused layer with one shard excluded).  ``flat``: config.json's flat layout instead (as
    nvidia/GLM-5.1-NVFP4: quant_method modelopt beside quant_algo, config_groups, the list under ``ignore``; now and
    then under ``exclude_modules``, a lower-case algorithm, no input activations, no KV-cache scheme)."""
    bases = [b for b in DSA_BASES if "GLM" not in b or resolve(version).within("0.24.0")]
    out = []
    while len(out) < n:
        cfg, ignore = _dsa_modelopt_config(rng, bases[len(out) % len(bases)], (2048, 1536, 1000, 2056),
                                           ("nvidia", "nvidia", "indexer", "none", "half"))
        if flat:
            cfg["quantization_config"] = _dsa_flat_modelopt(rng, ignore, version)
            out.append({"config": cfg, "engine_args": {}})
            continue
        # the nested layout of NVIDIA's hf_quant_config.json
        cfg["quantization_config"] = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
                                      "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None,
                                                       "group_size": 16, "exclude_modules": ignore}}
        out.append({"config": cfg, "engine_args": {}})
    return out


def _dsa_flat_modelopt(rng: random.Random, ignore: list, version: str) -> dict:
    """config.json's flat ModelOpt NVFP4 layout (nvidia/GLM-5.1-NVFP4, GLM-5.2-NVFP4), with some variation in the keys
    the releases read differently (the list's key, the algorithm's case, weight-only config groups).  Up to 0.20.x no
    FP8 KV-cache scheme: the oracle's CPU platform refuses an FP8 KV cache with chunked prefill there (the CUDA host
    does not; the cache dtype builds no layer)."""
    fp4 = {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}
    acts = None if rng.random() < 0.2 else dict(fp4)
    q = {"config_groups": {"group_0": {"input_activations": acts, "weights": dict(fp4), "targets": ["Linear"]}},
         "quant_algo": "nvfp4" if rng.random() < 0.15 else "NVFP4",
         "producer": {"name": "modelopt", "version": "0.45.0"}, "quant_method": "modelopt"}
    q["exclude_modules" if rng.random() < 0.2 else "ignore"] = ignore
    if rng.random() < 0.7 and resolve(version).within("0.21.0"):
        q["kv_cache_scheme"] = {"dynamic": False, "num_bits": 8, "type": "float"}
    return q


def dsa_modelopt_fp8_variants(rng: random.Random, n: int, version: str) -> list[dict]:
    """``n`` ModelOpt FP8 exports of DeepSeek-V3.2 / GLM-5 (per-tensor FP8; from 0.14.0 one in four per channel and
    token, which the engine config refuses before), cut to 4-6 layers with varied q LoRA rank, indexer and
    intermediate sizes and expert counts; half in hf_quant_config's nested layout, half in config.json's flat one
    (config_groups of 8-bit floats, the list under ``ignore``, one in five under ``exclude_modules``); exclusion lists
    as dsa_nvfp4_variants draws them (NVIDIA's MLA projections and indexers, the indexers, the LM head only, one
    layer's ``q_a_proj``).  Per-tensor FP8 checks no size: what decides is the sharding and EPLB (the experts'
    ModelOptFp8MoEMethod takes none)."""
    bases = [b for b in DSA_BASES if "GLM" not in b or resolve(version).within("0.24.0")]
    out = []
    while len(out) < n:
        cfg, ignore = _dsa_modelopt_config(rng, bases[len(out) % len(bases)], (2048, 1536, 1000, 2056, 2112),
                                           ("nvidia", "indexer", "none", "half"))
        algo = "FP8_PER_CHANNEL_PER_TOKEN" if rng.random() < 0.25 and resolve(version).within("0.14.0") else "FP8"
        if rng.random() < 0.5:
            cfg["quantization_config"] = {
                "quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
                "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": ignore}}
        else:
            fp8 = {"dynamic": False, "num_bits": 8, "type": "float"}
            q = {"config_groups": {"group_0": {"input_activations": dict(fp8), "weights": dict(fp8),
                                               "targets": ["Linear"]}},
                 "quant_algo": algo, "producer": {"name": "modelopt", "version": "0.45.0"}, "quant_method": "modelopt"}
            q["exclude_modules" if rng.random() < 0.2 else "ignore"] = ignore
            cfg["quantization_config"] = q
        out.append({"config": cfg, "engine_args": {}})
    return out


def dsa_wna16_variants(rng: random.Random, n: int, version: str) -> list[dict]:
    """``n`` AWQ / GPTQ checkpoints of DeepSeek-V3.2 / GLM-5 (4-bit AWQ with zero points, 4- / 8-bit GPTQ), cut to 3-4
    layers (one dense), with varied q LoRA rank (the indexer's wq_b and q_b_proj read it as their input; 1000 and
    1544 off the groups), indexer heads / head size, dense and expert intermediate sizes, expert counts (a router
    width off Marlin's tile: the gate is built unquantized), group sizes, modules_to_not_convert naming the indexer,
    the attention, the gate or a layer, and now and then ``--quantization`` naming the Marlin / plain method; the
    model's dtype float16 or bfloat16."""
    bases = [b for b in DSA_BASES if "GLM" not in b or resolve(version).within("0.24.0")]
    out = []
    while len(out) < n:
        cfg = _dsa_base(bases[len(out) % len(bases)], rng.choice([3, 4]), 1)
        cfg["q_lora_rank"] = rng.choice([cfg["q_lora_rank"], 1000, 1544, 2048])
        cfg["index_n_heads"] = rng.choice([cfg["index_n_heads"], 32, 40])
        cfg["index_head_dim"] = rng.choice([cfg["index_head_dim"], 96, 136])
        cfg["moe_intermediate_size"] = rng.choice([2048, 1536, 704, 1408, 2112, 1000])
        cfg["intermediate_size"] = rng.choice([cfg["intermediate_size"], 12288, 10944, 18560])
        experts = rng.choice([256, 64, 72, 160])
        cfg["n_routed_experts"] = experts
        if experts % 8:
            cfg["n_group"], cfg["topk_group"] = 1, 1
        cfg["num_experts_per_tok"] = min(cfg.get("num_experts_per_tok", 8), 8)
        cfg["torch_dtype"] = rng.choice(["float16", "bfloat16"])
        group = rng.choice([128, 128, 64, -1, 32])
        unconverted = [None, None, ["gate"], ["indexer"], ["self_attn"], ["shared_experts"], ["model.layers.0."],
                       ["lm_head"], ["wq_b"], ["q_a_proj"]]
        cfg["quantization_config"], engine = awq_or_gptq(rng, group, unconverted, desc_act_share=0.2)
        out.append({"config": cfg, "engine_args": engine})
    return out


def dsa_release(version: str) -> bool:
    """Whether kvguard models DeepSeek-V3.2 / GLM-5 construction in the release (family deepseek_v32's range; from
    0.29.0 the oracle builds the CUDA host's vllm/models/deepseek_v32 class, quant_runner's _DsaHost)."""
    return resolve(version).within("0.11.0")


def _with_dsa_layouts(rng: random.Random, cases: list[dict], n_layouts: int) -> list[dict]:
    """``cases`` each given up to ``n_layouts`` of DSA_LAYOUTS its heads divide, drawn with ``rng``: a sample of the
    plain ones and one of the last two (expert parallel with and without EPLB)."""
    for case in cases:
        heads = case["config"]["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, DSA_LAYOUTS, heads, n_layouts, one_of_last=2)
    return cases


def run_dsa(version: str, n: int, seed: int = 7, n_layouts: int = 6, nvfp4: int = 0, nvfp4_flat: int = 0,
            modelopt_fp8: int = 0, wna16: int = 0) -> dict:
    """Build ``n`` DeepSeek-V3.2 / GLM-5 configs (dsa_variants) at ``n_layouts`` of DSA_LAYOUTS each (EPLB last) in the
    release and compare; the layer lists of the bases (unquantized, tp 1: 6 layers, one dense, IndexCache's default
    and a frequency of 2 with offset 1) are compared too (tools/quant_differential.py --dsa)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9500 + 1)
    cases = _with_dsa_layouts(rng, dsa_variants(rng, n, version), n_layouts)
    # ModelOpt NVFP4 exports (``nvfp4`` of them: dsa_nvfp4_variants), a stream of their own
    nv_rng = random.Random(seed * 9600 + 1)
    cases += _with_dsa_layouts(nv_rng, dsa_nvfp4_variants(nv_rng, nvfp4, version), n_layouts)
    # config.json's flat ModelOpt layout (``nvfp4_flat`` of them), a stream of its own
    flat_rng = random.Random(seed * 9700 + 1)
    cases += _with_dsa_layouts(flat_rng, dsa_nvfp4_variants(flat_rng, nvfp4_flat, version, flat=True), n_layouts)
    # ModelOpt FP8 exports (``modelopt_fp8`` of them: dsa_modelopt_fp8_variants), a stream of their own
    fp8_rng = random.Random(seed * 9800 + 1)
    cases += _with_dsa_layouts(fp8_rng, dsa_modelopt_fp8_variants(fp8_rng, modelopt_fp8, version), n_layouts)
    # AWQ / GPTQ checkpoints (``wna16`` of them: dsa_wna16_variants), a stream of their own
    wna_rng = random.Random(seed * 9900 + 1)
    cases += _with_dsa_layouts(wna_rng, dsa_wna16_variants(wna_rng, wna16, version), n_layouts)
    lists = []
    for base in DSA_BASES:
        if "GLM" in base and not resolve(version).within("0.24.0"):
            continue
        for extra in ({}, {"index_topk_freq": 2, "index_skip_topk_offset": 1}, {"index_topk_pattern": "FSSF"}):
            lists.append({"config": dict(_dsa_base(base, 6, 1), **extra), "layouts": [{"tp": 1}], "record": True})
    if resolve(version).within(None, "0.11.0"):
        # the oracle's host artefact: 0.11.0 turns DeepSeek-V3.2's default KV cache to fp8_ds_mla, which the CPU
        # platform refuses (chunked prefill / prefix caching with an FP8 cache; the CUDA host has no such check);
        # the oracle asks for a bfloat16 cache, which 0.11.0 maps back to "auto".  The cache dtype changes no layer
        # (the attention and the indexer's cache are stand-ins), and kvguard reads only --quantization of a case's
        # engine_args
        for case in cases + lists:
            case["engine_args"] = dict(case.get("engine_args") or {}, kv_cache_dtype="bfloat16")
    return _with_layer_lists(version, python, python_env, cases, lists)


#: CI: the first release of the family, the indexer's fused projection (0.20.0), IndexCache's layer choice (0.24.0,
#: GLM-5's first), the CUDA host's vllm/models/deepseek_v32 (0.29.0) and the last release
DSA_SAMPLE = [v for v in release_sample(VERSIONS, "0.12.0", also=("0.20.0", "0.24.0", "0.29.0"))
              if dsa_release(v)]


@pytest.mark.parametrize("version", DSA_SAMPLE)
def test_dsa_construction_agrees(version):
    report = run_dsa(version, int(os.environ.get("KVG_DSA_CONFIGS", "4")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                     n_layouts=3, nvfp4=int(os.environ.get("KVG_DSA_NVFP4", "2")),
                     nvfp4_flat=int(os.environ.get("KVG_DSA_NVFP4_FLAT", "2")),
                     modelopt_fp8=int(os.environ.get("KVG_DSA_MODELOPT_FP8", "1")),
                     wna16=int(os.environ.get("KVG_DSA_WNA16", "2")))
    _check_family_report(report, version, "DeepSeek-V3.2 / GLM-5", "dsa-construction")


#: GLM-4.x MoE (Glm4MoeForCausalLM, the glm4_moe family): the catalog's GLM-4.5-Air and the sizes GLM-4.5 / GLM-4.6
#: build with (NVIDIA Megatron-Bridge's GLM 4.5 page: hidden 5120, FFN 12288, MoE FFN 1536, 160 experts, the first 3
#: layers dense, QK norm; the attention heads of GLM-4.5-Air), and the layouts (tp 1-32, tp x dp, EP, EPLB last)
GLM4_MOE_BASE = "zai-org/GLM-4.5-Air"
GLM4_MOE_355B = {"hidden_size": 5120, "intermediate_size": 12288, "moe_intermediate_size": 1536, "n_routed_experts": 160,
                 "first_k_dense_replace": 3, "use_qk_norm": True, "routed_scaling_factor": 2.5}
#: how many GLM-4.x configs run() builds per release (None: two on the releases of GLM4_MOE_SAMPLE, none elsewhere);
#: tools/quant_differential.py --glm4-moe runs them alone (run_glm4_moe)
GLM4_MOE_CONFIGS: "int | None" = None
#: the ignore list of llm-compressor's GLM-4.6 FP8_BLOCK example (examples/model_free_ptq/glm_4.6_fp8_block.py): the router
#: gates, the LM head, the embedding
GLM4_MOE_CT_IGNORE = ("re:.*gate$", "lm_head", "model.embed_tokens")
#: CI: the first release, the shared experts built before the routed ones (0.11.0), MixtureOfExperts (0.11.1), the
#: router as a GateLinear (0.31.0) and the last
GLM4_MOE_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.11.0", "0.11.1", "0.31.0"))
GLM4_MOE_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 3}, {"tp": 2, "dp": 4},
                    {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                    {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8}, {"tp": 1, "dp": 5, "ep": True, "eplb": True})


def _glm4_moe_base(layers: int, first_dense: int, large: bool) -> dict:
    cfg = copy.deepcopy(catalog.lookup(GLM4_MOE_BASE).config)
    if large:
        cfg.update(GLM4_MOE_355B)
    cfg["num_hidden_layers"], cfg["first_k_dense_replace"] = layers, first_dense
    cfg.pop("num_nextn_predict_layers", None)  # (the MTP layers are the draft model's)
    return cfg


def moe_ct_config(rng: random.Random, cfg: dict, ignore: "tuple[str, ...]") -> dict:
    """A compressed-tensors config (ct_quantization_config) for a GLM-4.x / ERNIE-4.5 MoE ``cfg`` (made bfloat16):
    ignoring ``ignore`` (the checkpoints' list) in 70% of the draws, else the LM head alone or with the shared
    experts, the experts, the attention or one dense projection."""
    cfg["torch_dtype"] = "bfloat16"
    q = ct_quantization_config(rng)
    roll = rng.random()
    q["ignore"] = list(ignore) if roll < 0.7 else ["lm_head"] if roll < 0.8 else ["lm_head", rng.choice(
        ["re:.*shared_experts.*", "re:.*experts.*", "re:.*self_attn.*", "model.layers.0.mlp.gate_proj"])]
    return q


def moe_awq_or_gptq(rng: random.Random, cfg: dict) -> tuple[dict, dict]:
    """An AWQ / GPTQ config and engine arguments (awq_or_gptq) for a GLM-4.x / ERNIE-4.5 MoE ``cfg`` (float16 or
    bfloat16), leaving the router gate, the attention, the shared experts, the first layer, the LM head or a projection
    unconverted now and then."""
    cfg["torch_dtype"] = rng.choice(["float16", "bfloat16"])
    unconverted = [None, None, ["gate"], ["mlp.gate"], ["self_attn"], ["shared_experts"], ["model.layers.0."],
                   ["lm_head"], ["q_proj"]]
    return awq_or_gptq(rng, rng.choice([128, 128, 64, 32]), unconverted, desc_act_share=0.2)


def glm4_moe_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` GLM-4.x configs (GLM-4.5-Air, or GLM-4.5 / 4.6's sizes, in turn) cut to their dense layers (1-3) and one
    MoE layer, with varied sizes (the dense and expert intermediate sizes: 10944 and 1408 are 85.5 and 11 blocks of
    128; the expert count, the KV heads) and quantization: block FP8 ([128, 128]; sometimes the dense layers' MLP left
    unquantized, sometimes a layer's attention), online FP8 (``--quantization fp8``), AWQ / GPTQ in AutoAWQ's /
    AutoGPTQ's form, compressed-tensors (llm-compressor's presets, ct_quantization_config), unquantized."""
    out = []
    while len(out) < n:
        first = rng.choice([1, 1, 2, 3])
        cfg = _glm4_moe_base(first + 1, first, large=len(out) % 2 == 1)
        cfg["moe_intermediate_size"] = rng.choice([cfg["moe_intermediate_size"], 1408, 1536, 768, 704, 1280, 2048])
        cfg["intermediate_size"] = rng.choice([cfg["intermediate_size"], 10944, 12288, 10240, 11008])
        if rng.random() < 0.3:
            cfg["n_routed_experts"] = rng.choice([128, 160, 64, 96])
        if rng.random() < 0.2:
            cfg["num_key_value_heads"] = rng.choice([4, 16, 8])
        kind = rng.choice(["fp8_block", "fp8_block", "fp8_block_ignore", "online", "none", "wna16", "wna16", "ct", "ct"])
        engine: dict = {}
        if kind == "ct":
            # llm-compressor's presets with the ignore list of its GLM-4.6 FP8_BLOCK example
            # (vllm-project/llm-compressor examples/model_free_ptq/glm_4.6_fp8_block.py), sometimes another one
            cfg["quantization_config"] = moe_ct_config(rng, cfg, GLM4_MOE_CT_IGNORE)
        elif kind.startswith("fp8_block"):
            q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}
            if kind == "fp8_block_ignore":
                # the dense layers' MLP (10944 is not whole blocks) or one layer's attention left unquantized
                names = [f"model.layers.{i}.mlp.{m}" for i in range(first) for m in ("gate_proj", "up_proj", "down_proj")]
                if rng.random() < 0.4:
                    names = [f"model.layers.{rng.randrange(first + 1)}.self_attn.{m}" for m in ("q_proj", "k_proj",
                                                                                              "v_proj", "o_proj")]
                q["modules_to_not_convert"] = ["lm_head"] + names
            cfg["quantization_config"] = q
        elif kind == "online":
            engine = {"quantization": "fp8"}
        elif kind == "wna16":
            cfg["quantization_config"], engine = moe_awq_or_gptq(rng, cfg)
        out.append({"config": cfg, "engine_args": engine})
    return out


#: GLM-4.7-Flash (Glm4MoeLiteForCausalLM: DeepSeek's MLA with GLM-4.x's MoE block), its sizes as slime's
#: scripts/models/glm4.7-30B-A3B.sh (yitianlian/slime) states them: hidden 2048, FFN 10240, MoE FFN 1536, 64 experts
#: (top 4) and one shared, the first layer dense, 20 heads, q LoRA 768, KV LoRA 512, QK head 192 (rope 64), V head 256,
#: vocabulary 154880; the rest Glm4MoeLiteConfig's defaults
GLM4_MOE_LITE = {"architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "glm4_moe_lite", "hidden_size": 2048,
                 "intermediate_size": 10240, "moe_intermediate_size": 1536, "num_hidden_layers": 2,
                 "num_attention_heads": 20, "num_key_value_heads": 20, "q_lora_rank": 768, "kv_lora_rank": 512,
                 "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 256, "n_routed_experts": 64,
                 "n_shared_experts": 1, "num_experts_per_tok": 4, "first_k_dense_replace": 1, "n_group": 1,
                 "topk_group": 1, "norm_topk_prob": True, "routed_scaling_factor": 1.8, "hidden_act": "silu",
                 "vocab_size": 154880, "max_position_embeddings": 202752, "rms_norm_eps": 1e-05,
                 "tie_word_embeddings": False, "torch_dtype": "bfloat16"}


def glm4_moe_lite_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` GLM-4.7-Flash configs (GLM4_MOE_LITE) with 1-2 dense layers and one MoE layer, varied q LoRA rank, dense /
    expert intermediate sizes and expert counts; block FP8 ([128, 128]), online FP8 or unquantized."""
    out = []
    while len(out) < n:
        first = rng.choice([1, 2])
        cfg = dict(GLM4_MOE_LITE, num_hidden_layers=first + 1, first_k_dense_replace=first)
        cfg["q_lora_rank"] = rng.choice([768, 768, 1536, 1000])
        cfg["moe_intermediate_size"] = rng.choice([1536, 1536, 768, 1408, 704])
        cfg["intermediate_size"] = rng.choice([10240, 10240, 10944, 12288])
        if rng.random() < 0.3:
            cfg["n_routed_experts"] = rng.choice([64, 128, 40])
        kind = rng.choice(["fp8_block", "fp8_block", "online", "none"])
        engine: dict = {}
        if kind == "fp8_block":
            cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                          "weight_block_size": [128, 128]}
        elif kind == "online":
            engine = {"quantization": "fp8"}
        out.append({"config": cfg, "engine_args": engine})
    return out


def run_glm4_moe_lite(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` GLM-4.7-Flash configs (glm4_moe_lite_variants) at ``n_layouts`` of GLM4_MOE_LAYOUTS each in the release
    and compare, with the base's layer list (tools/quant_differential.py --glm4-moe-lite)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9420 + 1)
    cases = _with_glm4_moe_layouts(rng, glm4_moe_lite_variants(rng, n), n_layouts)
    lists = [{"config": dict(GLM4_MOE_LITE), "layouts": [{"tp": 1}], "record": True}]
    return _with_layer_lists(version, python, python_env, cases, lists)


def _with_glm4_moe_layouts(rng: random.Random, cases: list[dict], n_layouts: int) -> list[dict]:
    """``cases`` each given up to ``n_layouts`` of GLM4_MOE_LAYOUTS its (text) heads divide: a sample of the others and one of
    the last two (expert parallel with EPLB), drawn with ``rng``."""
    for case in cases:
        heads = case["config"].get("text_config", case["config"])["num_attention_heads"]  # (GLM-4.5V: its text config)
        case["layouts"] = draw_layouts(rng, GLM4_MOE_LAYOUTS, heads, n_layouts, one_of_last=2)
    return cases


def run_glm4_moe(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` GLM-4.x configs (glm4_moe_variants) at ``n_layouts`` of GLM4_MOE_LAYOUTS each (one of the last two,
    expert parallel with EPLB, last) in the release and compare; the layer lists of both bases (unquantized, tp 1, one
    or three dense layers and one MoE layer) are compared too (tools/quant_differential.py --glm4-moe)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9400 + 1)
    cases = _with_glm4_moe_layouts(rng, glm4_moe_variants(rng, n), n_layouts)
    lists = [{"config": _glm4_moe_base(2, 1, large=False), "layouts": [{"tp": 1}], "record": True},
             {"config": _glm4_moe_base(4, 3, large=True), "layouts": [{"tp": 1}], "record": True}]
    return _with_layer_lists(version, python, python_env, cases, lists)


#: ERNIE-4.5's MoE models (kvguard/data/quant_archs.json family ernie4_5_moe, every release): the catalog checkpoints
#: the generated configs start from (the 21B: 2 shared experts, MoE from layer 1; the 300B: none, MoE from layer 3),
#: the CI sample (the first release, the shared experts built first and EPLB handed over from 0.11.1, the router a
#: GateLinear from 0.31.0, the last); the layouts are GLM4_MOE_LAYOUTS'
ERNIE45_MOE_BASES = ("baidu/ERNIE-4.5-21B-A3B-PT", "baidu/ERNIE-4.5-300B-A47B-PT")
ERNIE45_MOE_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.11.1", "0.31.0"))
#: whether the generated ERNIE-4.5 configs include AWQ / GPTQ and compressed-tensors checkpoints
ERNIE45_MOE_WNA16_CT = True


def _ernie45_moe_base(large: bool, dense: int, moe: int, interval: int = 1) -> dict:
    """A catalog ERNIE-4.5 MoE config cut to ``dense`` layers before the MoE range and ``moe`` layers in it (every
    ``interval``-th layer a MoE layer there); the range's end as -1 (the config class makes it the last layer) or
    the last index, in turn."""
    cfg = copy.deepcopy(catalog.lookup(ERNIE45_MOE_BASES[large]).config)
    layers = dense + moe
    cfg["num_hidden_layers"], cfg["moe_layer_start_index"], cfg["moe_layer_interval"] = layers, dense, interval
    cfg["moe_layer_end_index"] = -1 if (dense + moe) % 2 else layers - 1
    return cfg


def ernie45_moe_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` ERNIE-4.5 MoE configs (the 21B's and the 300B's sizes in turn) with 1-3 dense layers and 1-2 MoE layers,
    varied sizes (the expert intermediate size: 1536 and 3584 are 12 and 28 blocks of 128, 1408 is 11, 704 is 5.5;
    1000 and 1320 split unevenly; the dense intermediate, the expert count, the heads and KV heads, the shared
    experts, the MoE interval) and quantization:
    block FP8 ([128, 128]; sometimes the dense MLP or a layer's attention, or one shard of it, left unquantized),
    online FP8 (``--quantization fp8``, the recipe's form for the 300B), unquantized."""
    out = []
    while len(out) < n:
        dense, moe = rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])
        interval = 2 if rng.random() < 0.15 else 1
        cfg = _ernie45_moe_base(len(out) % 2 == 1, dense, moe, interval)
        cfg["moe_intermediate_size"] = rng.choice([cfg["moe_intermediate_size"], 1536, 3584, 1408, 768, 704, 2048,
                                                   1000, 1320])
        cfg["intermediate_size"] = rng.choice([cfg["intermediate_size"], 12288, 28672, 10944, 11008])
        if rng.random() < 0.3:
            cfg["moe_num_experts"] = rng.choice([64, 32, 16, 6])
        if rng.random() < 0.3:
            cfg["moe_num_shared_experts"] = rng.choice([0, 1, 2])
        if rng.random() < 0.25:
            # heads that admit tp 3 / 8 / 16, with KV heads that split over some of them and not others
            cfg["num_attention_heads"] = rng.choice([24, 48])
            cfg["num_key_value_heads"] = rng.choice([3, 6, 4, 8, 1])
        elif rng.random() < 0.2:
            cfg["num_key_value_heads"] = rng.choice([4, 8, 2, 1])
        kinds = ["fp8_block", "fp8_block", "fp8_block_ignore", "online", "online", "none"]
        kind = rng.choice(kinds + ["wna16", "wna16", "ct", "ct"] if ERNIE45_MOE_WNA16_CT else kinds)
        engine: dict = {}
        if kind == "ct":
            # llm-compressor's presets, the router gates and the LM head ignored (its MoE examples' list), sometimes
            # another ignore list
            cfg["quantization_config"] = moe_ct_config(rng, cfg, ("lm_head", "re:.*mlp.gate$"))
        elif kind == "wna16":
            cfg["quantization_config"], engine = moe_awq_or_gptq(rng, cfg)
        elif kind.startswith("fp8_block"):
            q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}
            if kind == "fp8_block_ignore":
                names = [f"model.layers.0.mlp.{m}" for m in ("gate_proj", "up_proj", "down_proj")]
                if rng.random() < 0.4:
                    layer = rng.randrange(dense + moe)
                    names = [f"model.layers.{layer}.self_attn.{m}" for m in ("q_proj", "k_proj", "v_proj", "o_proj")]
                if rng.random() < 0.3:
                    names = names[:1]  # one shard of a fused layer
                q["modules_to_not_convert"] = ["lm_head"] + names
            cfg["quantization_config"] = q
        elif kind == "online":
            engine = {"quantization": "fp8"}
        out.append({"config": cfg, "engine_args": engine})
    return out


def run_ernie45_moe(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` ERNIE-4.5 MoE configs (ernie45_moe_variants) at ``n_layouts`` of GLM4_MOE_LAYOUTS each (one of the last
    two, expert parallel with EPLB, last) in the release and compare; the layer lists of both bases (unquantized, tp 1,
    one dense layer and two MoE layers; the 300B's without shared experts) are compared too
    (tools/quant_differential.py --ernie45-moe)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9450 + 1)
    cases = _with_glm4_moe_layouts(rng, ernie45_moe_variants(rng, n), n_layouts)
    lists = [{"config": _ernie45_moe_base(large, 1, 2), "layouts": [{"tp": 1}], "record": True} for large in (False, True)]
    return _with_layer_lists(version, python, python_env, cases, lists)


@pytest.mark.parametrize("version", ERNIE45_MOE_SAMPLE)
def test_ernie45_moe_construction_agrees(version):
    report = run_ernie45_moe(version, int(os.environ.get("KVG_ERNIE45_MOE_CONFIGS", "3")),
                             int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "ERNIE-4.5 MoE", "ernie45-moe-construction")
    assert report["layer_lists"]["agree"] == len(ERNIE45_MOE_BASES)


#: ERNIE-4.5-0.3B (Ernie4_5ForCausalLM, a LlamaForCausalLM subclass in every release: the llama family's rows): the
#: catalog config the generated configs start from and their layouts
ERNIE45_DENSE_BASE = "baidu/ERNIE-4.5-0.3B-PT"
ERNIE45_DENSE_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 3}, {"tp": 6}, {"tp": 2, "dp": 4},
                         {"tp": 4, "dp": 2})


def ernie45_dense_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` ERNIE-4.5-0.3B configs cut to two layers, with varied sizes (intermediate 3072 / 2816 / 3000 / 4096, heads
    16 / 12 / 24, KV heads 2 / 4 / 1 / 3, head size 128 / 64, now and then an untied head) and quantization: block FP8
    ([128, 128]; sometimes the MLP or the attention, or one shard of them, left unquantized), online FP8, AWQ / GPTQ in
    AutoAWQ's / AutoGPTQ's form, compressed-tensors (llm-compressor's presets), unquantized."""
    out = []
    while len(out) < n:
        cfg = copy.deepcopy(catalog.lookup(ERNIE45_DENSE_BASE).config)
        cfg["num_hidden_layers"] = 2
        cfg["intermediate_size"] = rng.choice([3072, 3072, 2816, 3000, 4096])
        if rng.random() < 0.3:
            cfg["num_attention_heads"] = rng.choice([12, 24])
        if rng.random() < 0.3:
            cfg["num_key_value_heads"] = rng.choice([4, 1, 3])
        if rng.random() < 0.2:
            cfg["head_dim"] = 64
        if rng.random() < 0.1:
            cfg["tie_word_embeddings"] = False
        kind = rng.choice(["fp8_block", "fp8_block_ignore", "online", "online", "none", "wna16", "wna16", "ct", "ct"])
        engine: dict = {}
        if kind == "ct":
            cfg["torch_dtype"] = "bfloat16"
            q = ct_quantization_config(rng)
            q["ignore"] = ["lm_head"] if rng.random() < 0.8 else ["lm_head", rng.choice(
                ["re:.*self_attn.*", "re:.*mlp.*", "model.layers.0.mlp.gate_proj"])]
            cfg["quantization_config"] = q
        elif kind == "wna16":
            cfg["torch_dtype"] = rng.choice(["float16", "bfloat16"])
            cfg["quantization_config"], engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]),
                                                            [None, None, ["lm_head"], ["self_attn"], ["q_proj"]],
                                                            desc_act_share=0.2)
        elif kind.startswith("fp8_block"):
            q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}
            if kind == "fp8_block_ignore":
                block = rng.choice([("mlp", ("gate_proj", "up_proj", "down_proj")),
                                    ("self_attn", ("q_proj", "k_proj", "v_proj", "o_proj"))])
                names = [f"model.layers.{rng.randrange(2)}.{block[0]}.{m}" for m in block[1]]
                q["modules_to_not_convert"] = ["lm_head"] + (names[:1] if rng.random() < 0.3 else names)
            cfg["quantization_config"] = q
        elif kind == "online":
            engine = {"quantization": "fp8"}
        heads = cfg["num_attention_heads"]
        lays = [dict(lay) for lay in ERNIE45_DENSE_LAYOUTS if heads % lay["tp"] == 0]
        out.append({"config": cfg, "engine_args": engine, "layouts": lays})
    return out


def run_ernie45_dense(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` ERNIE-4.5-0.3B configs (ernie45_dense_variants) at up to ``n_layouts`` of their layouts in the release
    and compare, with the base's layer list (tools/quant_differential.py --ernie45-dense)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9460 + 1)
    cases = ernie45_dense_variants(rng, n)
    for case in cases:
        case["layouts"] = rng.sample(case["layouts"], min(n_layouts, len(case["layouts"])))
    base = copy.deepcopy(catalog.lookup(ERNIE45_DENSE_BASE).config)
    base["num_hidden_layers"] = 2
    return _with_layer_lists(version, python, python_env, cases, [{"config": base, "layouts": [{"tp": 1}], "record": True}])


@pytest.mark.parametrize("version", ERNIE45_MOE_SAMPLE[:1] + ERNIE45_MOE_SAMPLE[-1:])
def test_ernie45_dense_construction_agrees(version):
    report = run_ernie45_dense(version, int(os.environ.get("KVG_ERNIE45_DENSE_CONFIGS", "2")),
                               int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "ERNIE-4.5 dense", "ernie45-dense-construction")


#: MiMo-V2-Flash (kvguard/data/quant_archs.json family mimo_v2_flash, 0.24.0+: the first release whose transformers
#: reads its config): the catalog checkpoint the generated configs start from, the CI sample (the first release, the
#: router a GateLinear from 0.31.0, the last) and the layouts (tp 1-64, data / expert parallel, EPLB)
MIMO_V2_FLASH_BASE = "XiaomiMiMo/MiMo-V2-Flash"
MIMO_V2_FLASH_SINCE = "0.24.0"
MIMO_V2_FLASH_SAMPLE = release_sample(VERSIONS, MIMO_V2_FLASH_SINCE, also=("0.31.0",))
MIMO_V2_FLASH_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 64}, {"tp": 3},
                         {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                         {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8},
                         {"tp": 1, "dp": 5, "ep": True, "eplb": True})


def _mimo_v2_flash_base(pattern: list[int], moe: list[int]) -> dict:
    """The catalog's MiMo-V2-Flash config cut to ``len(pattern)`` layers: ``pattern`` its hybrid_layer_pattern (1: a
    sliding-window layer), ``moe`` its moe_layer_freq."""
    cfg = copy.deepcopy(catalog.lookup(MIMO_V2_FLASH_BASE).config)
    cfg["num_hidden_layers"], cfg["hybrid_layer_pattern"], cfg["moe_layer_freq"] = len(pattern), pattern, moe
    return cfg


def mimo_v2_flash_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` MiMo-V2-Flash configs of 2-3 layers (a full-attention dense layer first, then sliding-window or full
    layers with experts), with varied sizes (the expert and dense intermediate sizes: 1408 and 10944 are 11 and 85.5
    blocks of 128; the expert count, down to 8; the KV heads and value head sizes of both attention kinds) and
    quantization: block FP8 ([128, 128], the checkpoint's; sometimes a layer's attention or the dense MLP, or one shard
    of them, in ignored_layers), online FP8 (``--quantization fp8``), unquantized."""
    out = []
    while len(out) < n:
        pattern = rng.choice([[0, 1], [0, 1, 1], [0, 1, 0], [0, 0]])
        cfg = _mimo_v2_flash_base(pattern, [0] + [1] * (len(pattern) - 1))
        cfg["moe_intermediate_size"] = rng.choice([2048, 2048, 1536, 1408, 768, 704, 512, 2000])
        cfg["intermediate_size"] = rng.choice([16384, 16384, 10944, 12288, 11008])
        if rng.random() < 0.3:
            cfg["n_routed_experts"] = rng.choice([128, 64, 16, 8])
        if rng.random() < 0.3:
            cfg["swa_num_key_value_heads"] = rng.choice([4, 16, 2])
        if rng.random() < 0.3:
            cfg["num_key_value_heads"] = rng.choice([8, 2, 1])
        if rng.random() < 0.3:
            cfg["swa_v_head_dim"] = rng.choice([192, 96, 64])
        if rng.random() < 0.2:
            cfg["v_head_dim"] = rng.choice([192, 96])
        kind = rng.choice(["fp8_block", "fp8_block", "fp8_block", "fp8_block_ignore", "online", "none"])
        engine: dict = {}
        if kind.startswith("fp8_block"):
            q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}
            if kind == "fp8_block_ignore":
                layer = rng.randrange(len(pattern))
                names = [f"model.layers.0.mlp.{m}" for m in ("gate_proj", "up_proj", "down_proj")]
                if rng.random() < 0.5:
                    names = [f"model.layers.{layer}.self_attn.{m}" for m in ("q_proj", "k_proj", "v_proj", "o_proj")]
                if rng.random() < 0.3:
                    names = names[:1]  # one shard of a fused layer
                q["ignored_layers"] = names
            cfg["quantization_config"] = q
        elif kind == "online":
            cfg.pop("quantization_config")
            engine = {"quantization": "fp8"}
        else:
            cfg.pop("quantization_config")
        out.append({"config": cfg, "engine_args": engine})
    return out


def run_mimo_v2_flash(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` MiMo-V2-Flash configs (mimo_v2_flash_variants) at ``n_layouts`` of MIMO_V2_FLASH_LAYOUTS each (one of
    the last two, expert parallel with EPLB, last) in the release and compare; the layer list of the base (unquantized,
    tp 1, a dense full-attention layer, a sliding-window and a full MoE layer) is compared too
    (tools/quant_differential.py --mimo-v2-flash)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9800 + 1)
    cases = []
    for case in mimo_v2_flash_variants(rng, n):
        heads = case["config"]["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, MIMO_V2_FLASH_LAYOUTS, heads, n_layouts, one_of_last=2)
        cases.append(case)
    plain = _mimo_v2_flash_base([0, 1, 0], [0, 1, 1])
    plain.pop("quantization_config")
    lists = [{"config": plain, "layouts": [{"tp": 1}], "record": True}]
    return _with_layer_lists(version, python, python_env, cases, lists)


@pytest.mark.parametrize("version", MIMO_V2_FLASH_SAMPLE)
def test_mimo_v2_flash_construction_agrees(version):
    report = run_mimo_v2_flash(version, int(os.environ.get("KVG_MIMO_V2_FLASH_CONFIGS", "4")),
                               int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "MiMo-V2-Flash", "mimo-v2-flash-construction")


#: Kimi-K2.5 / K2.6 (kvguard.quant.kimi_k25: the vision tower, then the deepseek_v2 family's layers under
#: language_model, 0.16.0+): the catalog checkpoints the generated configs start from, and the layouts (tp 1-32,
#: data / expert parallel, the vision encoder data-parallel)
KIMI_BASES = ("moonshotai/Kimi-K2.5", "nvidia/Kimi-K2.5-NVFP4")
KIMI_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
                {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                {"tp": 16, "dp": 2, "ep": True}, {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8},
                {"tp": 1, "dp": 5, "ep": True, "eplb": True})


def _kimi_base(base: str, layers: int, first_dense: int) -> dict:
    cfg = copy.deepcopy(catalog.lookup(base).config)
    cfg.pop("auto_map", None)
    text = cfg["text_config"]
    text.pop("auto_map", None)
    text["num_hidden_layers"], text["first_k_dense_replace"] = layers, first_dense
    # the vision config class reads these names (not the checkpoint's vt_* keys): one encoder block
    cfg["vision_config"]["num_hidden_layers"] = 1
    return cfg


def kimi_variants(rng: random.Random, n: int, swap: bool = False) -> list[dict]:
    """``n`` Kimi-K2.5 configs (the catalog's moonshotai / nvidia checkpoints) cut to 3-4 language-model layers (1-2
    dense) and one vision block, with varied sizes (the vision tower's heads / intermediate size, the dense and expert
    intermediate sizes, the expert count) and quantization: the checkpoint's compressed-tensors W4A16 (in text_config,
    its regex ignore list), ModelOpt NVFP4 (nvidia's exclusion list: the head, some layers' attention in either
    spelling of the decoder's path, the vision tower and projector — one in four without the tower's entries, which kvguard leaves open from 0.17.0), online FP8
    (``--quantization fp8``), unquantized; one in five with ``--mm-encoder-tp-mode data``."""
    out = []
    while len(out) < n:
        layers = rng.choice([3, 4])
        kind = rng.choice(["ct", "nvfp4", "nvfp4", "online", "none"])
        base = KIMI_BASES[1] if kind == "nvfp4" else KIMI_BASES[0]
        cfg = _kimi_base(base, layers, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        text["moe_intermediate_size"] = rng.choice([2048, 1536, 2112, 1000, 2176, 704])
        text["intermediate_size"] = rng.choice([18432, 12288, 12000, 18560])
        text["n_routed_experts"] = rng.choice([384, 256, 64, 72])
        if rng.random() < 0.5:
            vision["num_attention_heads"] = rng.choice([16, 12, 8, 24])
        if rng.random() < 0.4:
            vision["intermediate_size"] = rng.choice([4304, 4320, 4096, 4200])
        engine: dict = {}
        if kind == "nvfp4":
            q = cfg["quantization_config"]
            # the FP8 KV cache is no part of construction, and the CPU oracle of 0.16.x / 0.17.x refuses it beside
            # chunked prefill before any model is built
            q["kv_cache_scheme"] = None
            keep = [x for x in q["ignore"] if ".layers." not in x]
            named = [i for i in range(layers) if rng.random() < 0.6]
            # nvidia's exports spell the decoder language_model.model.layers; older ones language_model.layers (0.15.x
            # matches the names as written, 0.16.0+ renames the older spelling through the wrapper's mapper)
            spelling = rng.choice(["language_model.model.layers", "language_model.layers"])
            q["ignore"] = keep + [f"{spelling}.{i}.self_attn*" for i in named]
            if rng.random() < 0.25:
                q["ignore"] = [x for x in q["ignore"] if not x.startswith(("vision_tower", "mm_projector"))]
        elif kind in ("online", "none"):
            text.pop("quantization_config", None)
            cfg.pop("quantization_config", None)
            if kind == "online":
                engine = {"quantization": "fp8"}
        if rng.random() < 0.2:
            engine["mm_encoder_tp_mode"] = "data"
        if swap:
            # (up to 0.17.x) the wrapper validates a copy of the VllmConfig at the layout's tp, whose CPU swap space
            # (4 GiB per rank) the oracle's host memory refuses; construction does not read it
            engine["swap_space"] = 0
        out.append({"config": cfg, "engine_args": engine})
    return out


def kimi_release(version: str) -> bool:
    """Whether the release registers Kimi-K2.5 (0.15.0+)."""
    return resolve(version).within("0.15.0")


def run_kimi(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Kimi-K2.5 configs (kimi_variants) at ``n_layouts`` of KIMI_LAYOUTS each in the release and compare;
    the layer lists of the two bases (unquantized, tp 1, 4 layers, one dense) are compared too
    (tools/quant_differential.py --kimi)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9700 + 1)
    cases = []
    for case in kimi_variants(rng, n, swap=resolve(version).within(None, "0.17.1")):
        heads = case["config"]["text_config"]["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, KIMI_LAYOUTS, heads, n_layouts)
        cases.append(case)
    lists = []
    for base in KIMI_BASES:
        plain = _kimi_base(base, 4, 1)
        plain.pop("quantization_config", None)
        plain["text_config"].pop("quantization_config", None)
        lists.append({"config": plain, "layouts": [{"tp": 1}], "record": True})
    return _with_layer_lists(version, python, python_env, cases, lists)


#: CI: the first release (0.15.0: a bare DeepseekV2Model, no checkpoint-name mapper), the wrapper's DeepseekV2ForCausalLM
#: (0.16.0), the quantized tower's first (0.17.0), the vision encoder's data-parallel fall-back (0.26.0), the
#: text_config quantization config read by ModelConfig (0.29.0) and the last
KIMI_SAMPLE = [v for v in release_sample(VERSIONS, "0.15.0", also=("0.16.0", "0.17.0", "0.26.0", "0.29.0"))
               if kimi_release(v)]


@pytest.mark.parametrize("version", KIMI_SAMPLE)
def test_kimi_construction_agrees(version):
    report = run_kimi(version, int(os.environ.get("KVG_KIMI_CONFIGS", "4")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                      n_layouts=3)
    _check_family_report(report, version, "Kimi-K2.5", "kimi-construction")


#: Kimi-K3 (kvguard.quant.kimi_k3, 0.27.0+: the vision tower and the vocabulary embedding, built before the decoder
#: layers): the catalog checkpoint the generated configs start from, and the layouts (every tp its 96 attention
#: heads allow up to 48, data / expert parallel)
KIMI_K3_BASE = "moonshotai/Kimi-K3"
KIMI_K3_SINCE = "0.27.0"
KIMI_K3_LAYOUTS = tuple({"tp": tp} for tp in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48)) + (
    {"tp": 8, "dp": 2, "ep": True}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 3, "dp": 2, "ep": True},
    {"tp": 24, "dp": 2, "ep": True})


def _kimi_k3_base() -> dict:
    """The catalog checkpoint cut to four decoder layers (one dense, three KDA then one MLA) and one vision block."""
    cfg = copy.deepcopy(catalog.lookup(KIMI_K3_BASE).config)
    cfg.pop("auto_map", None)
    text = cfg["text_config"]
    text.pop("auto_map", None)
    text["num_hidden_layers"] = 4
    text["linear_attn_config"].update(kda_layers=[1, 2, 3], full_attn_layers=[4])
    cfg["vision_config"]["vt_num_hidden_layers"] = 1
    return cfg


def kimi_k3_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Kimi-K3 configs (_kimi_k3_base) with varied vision tower sizes (the checkpoint's vt_* keys: heads,
    intermediate and hidden size), vocabulary sizes (one not a multiple of 64) and quantization: the checkpoint's
    compressed-tensors mxfp4-pack-quantized experts, or none; one in five with ``--mm-encoder-tp-mode data``.  Every
    case builds with prefix caching off: the CPU oracle turns it off for an MLA model after the hybrid model's hook
    has sized the Mamba block for it (0.28.0+ then refuses the engine config); construction does not read it."""
    out = []
    while len(out) < n:
        cfg = _kimi_k3_base()
        vision, text = cfg["vision_config"], cfg["text_config"]
        if rng.random() < 0.6:
            vision["vt_num_attention_heads"] = rng.choice([12, 16, 8, 24, 6])
        if rng.random() < 0.5:
            vision["vt_intermediate_size"] = rng.choice([4096, 4304, 4200, 3072, 4608])
        if rng.random() < 0.3:
            vision["vt_hidden_size"] = rng.choice([1024, 1152, 1200])
        text["vocab_size"] = rng.choice([163840, 163840, 163842, 160000, 152064, 129280])
        if rng.random() < 0.4:
            text.pop("quantization_config", None)
        out.append(_wrapper_case(rng, cfg, {"enable_prefix_caching": False}))
    return out


def run_kimi_k3(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Kimi-K3 configs (kimi_k3_variants) at ``n_layouts`` of KIMI_K3_LAYOUTS each in the release and
    compare (tools/quant_differential.py --kimi-k3).  kvguard decides the refusals of the vision tower and the
    embedding; a launch that passes them is undecided (the decoder layers are not modelled)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9800 + 3)
    cases = []
    for case in kimi_k3_variants(rng, n):
        case["layouts"] = rng.sample([dict(lay) for lay in KIMI_K3_LAYOUTS], min(n_layouts, len(KIMI_K3_LAYOUTS)))
        cases.append(case)
    return compare(version, cases, run_runner("quant_runner.py", python, python_env, cases))


#: CI: the first release that registers Kimi-K3, the first of its 0.30.0 package layout, and the last
KIMI_K3_SAMPLE = release_sample(VERSIONS, KIMI_K3_SINCE, also=("0.30.0",))


@pytest.mark.parametrize("version", KIMI_K3_SAMPLE)
def test_kimi_k3_construction_agrees(version):
    report = run_kimi_k3(version, int(os.environ.get("KVG_KIMI_K3_CONFIGS", "3")),
                         int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=5)
    _check_family_report(report, version, "Kimi-K3", "kimi-k3-construction", lists_agree=None)


#: Qwen3-VL / Qwen3-VL-MoE (kvguard.quant.qwen3_vl: the vision tower, then the llama / qwen3_moe family's layers under
#: language_model, 0.11.0+): the catalog checkpoints the generated configs start from (the dense model: Qwen3-VL's
#: vision config on Qwen3-8B's text sizes, as Qwen3-VL-8B pairs them), and the layouts (tp 1-64, data / expert
#: parallel, EPLB)
QWEN3_VL_BASES = ("Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen/Qwen3-8B")
QWEN3_VL_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 64}, {"tp": 2, "dp": 4},
                    {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                    {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8}, {"tp": 1, "dp": 5, "ep": True,
                                                                                  "eplb": True})
#: the checkpoint names of the tower's linear layers, as Qwen's FP8 exports list them in modules_to_not_convert
_QWEN3_VL_TOWER_NAMES = ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2")


def _qwen3_vl_base(moe: bool, layers: int, depth: int) -> dict:
    vl = copy.deepcopy(catalog.lookup(QWEN3_VL_BASES[0]).config)
    if moe:
        cfg = vl
    else:
        text = copy.deepcopy(catalog.lookup(QWEN3_VL_BASES[1]).config)
        for key in ("architectures", "torch_dtype", "transformers_version", "use_sliding_window", "sliding_window",
                    "max_window_layers", "rope_scaling"):
            text.pop(key, None)
        text["model_type"] = "qwen3_vl_text"
        vision = dict(vl["vision_config"], model_type="qwen3_vl", out_hidden_size=text["hidden_size"])
        cfg = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
               "image_token_id": vl["image_token_id"], "video_token_id": vl["video_token_id"],
               "tie_word_embeddings": False, "text_config": text, "vision_config": vision}
    cfg["text_config"]["num_hidden_layers"] = layers
    cfg["vision_config"]["depth"] = depth
    return cfg


def _qwen3_vl_fp8(rng: random.Random, cfg: dict, tower: str) -> dict:
    """An Fp8Config in the form of Qwen's FP8 exports (blocks of 128, dynamic activations; modules_to_not_convert in
    the checkpoint's names: the vision tower's linear layers, the MoE router gates, the LM head): ``tower`` "ignored"
    (every tower layer listed), "quantized" (none) or "blocks" (the blocks listed, the mergers not)."""
    vision, text = cfg["vision_config"], cfg["text_config"]
    names = []
    if tower in ("ignored", "blocks"):
        names += [f"model.visual.blocks.{b}.{n}" for b in range(vision["depth"]) for n in _QWEN3_VL_TOWER_NAMES]
    if tower == "ignored":
        mergers = ["model.visual.merger"] + [f"model.visual.deepstack_merger_list.{m}"
                                             for m in range(len(vision.get("deepstack_visual_indexes") or ()))]
        names += [f"{m}.linear_fc{k}" for m in mergers for k in (1, 2)]
    if "num_experts" in text:
        names += [f"model.language_model.layers.{i}.mlp.gate" for i in range(text["num_hidden_layers"])]
    names.append("lm_head")
    block = rng.choice([[128, 128], [128, 128], [64, 64]])
    return {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": block,
            "modules_to_not_convert": names}


def qwen3_vl_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3-VL / Qwen3-VL-MoE configs (QWEN3_VL_BASES) cut to 2 language-model layers and 1-2 vision blocks,
    with varied sizes (the tower's heads, hidden and intermediate sizes, the dense and expert intermediate sizes, the
    expert count) and quantization: block FP8 in Qwen's form with the vision tower in modules_to_not_convert, without
    it or with its blocks only, online FP8 (``--quantization fp8``), unquantized; one in five with
    ``--mm-encoder-tp-mode data``."""
    out = []
    while len(out) < n:
        moe = rng.random() < 0.6
        cfg = _qwen3_vl_base(moe, 2, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        if moe:
            text["moe_intermediate_size"] = rng.choice([1536, 768, 1024, 640, 1408])
            text["num_experts"] = rng.choice([128, 64, 96])
            text["num_experts_per_tok"] = 8
        else:
            text["intermediate_size"] = rng.choice([12288, 25600, 9728, 11008])
        if rng.random() < 0.5:
            vision["hidden_size"], vision["num_heads"] = rng.choice([(1152, 16), (1152, 12), (1024, 16), (1536, 24),
                                                                     (1152, 8)])
        if rng.random() < 0.4:
            vision["intermediate_size"] = rng.choice([4304, 4096, 4352, 4608])
        kind = rng.choice(["ignored", "ignored", "quantized", "blocks", "online", "none"])
        engine: dict = {}
        if kind in ("ignored", "quantized", "blocks"):
            cfg["quantization_config"] = _qwen3_vl_fp8(rng, cfg, kind)
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append(_wrapper_case(rng, cfg, engine))
    return out


#: AWQ's modules_to_not_convert on Qwen3-VL: the tower in checkpoint names or as a bare substring, the tower and the
#: router gates (AutoAWQ's usual MoE entry, a substring of gate_up_proj too), nothing
QWEN3_VL_AWQ_UNCONVERTED = (["model.visual"], ["visual"], ["model.visual", "mlp.gate"], ["visual", "gate"], None)


def qwen3_vl_awq_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3-VL / Qwen3-VL-MoE configs as qwen3_vl_variants cuts them, with an AWQ quantization_config in the
    form AutoAWQ writes (4-bit, zero points mostly, groups of 128 / 64 / 32, QWEN3_VL_AWQ_UNCONVERTED), now and then
    ``--quantization awq_marlin``."""
    out = []
    for case in qwen3_vl_variants(rng, n):
        case["config"].pop("quantization_config", None)
        case["engine_args"].pop("quantization", None)
        q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]), list(QWEN3_VL_AWQ_UNCONVERTED), 0.0)
        if q["quant_method"] != "awq":
            q = {"bits": 4, "group_size": q["group_size"], "zero_point": True, "version": "gemm",
                 "modules_to_not_convert": rng.choice(QWEN3_VL_AWQ_UNCONVERTED), "quant_method": "awq"}
            engine = {}
        case["config"]["quantization_config"] = q
        case["engine_args"].update(engine)
        out.append(case)
    return out


#: compressed-tensors' ignore on Qwen3-VL, as llm-compressor's Qwen3-VL examples write it (the tower, the router
#: gates, the LM head), without the tower, and with the tower as a checkpoint-name pattern (never the built name)
QWEN3_VL_CT_IGNORE = (["re:.*lm_head", "re:visual.*", "re:.*mlp.gate$"], ["re:.*lm_head", "re:visual.*", "re:.*mlp.gate$"],
                      ["lm_head", "re:.*mlp.gate$"], ["re:.*lm_head", "re:model.visual.*", "re:.*mlp.gate$"])


def qwen3_vl_quantized_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3-VL / Qwen3-VL-MoE configs as qwen3_vl_variants cuts them, with a GPTQ quantization_config as
    AutoGPTQ / GPTQModel write it (4 / 8 bits, groups of 128 / 64 / 32, desc_act false) or a compressed-tensors one
    as llm-compressor writes it (FP8-dynamic, W4A16, W8A8; QWEN3_VL_CT_IGNORE)."""
    out = []
    for case in qwen3_vl_variants(rng, n):
        case["config"].pop("quantization_config", None)
        case["engine_args"].pop("quantization", None)
        if rng.random() < 0.45:
            q = {"bits": rng.choice([4, 4, 8]), "group_size": rng.choice([128, 128, 64, 32]), "damp_percent": 0.01,
                 "desc_act": False, "sym": True, "true_sequential": True, "quant_method": "gptq"}
        else:
            ignore = list(rng.choice(QWEN3_VL_CT_IGNORE))
            roll = rng.random()
            if roll < 0.4:
                q = _ct_config(ct_scheme_args(), ct_scheme_args(strategy="token", dynamic=True, observer=None), "float-quantized",
                               ignore)
            elif roll < 0.75:
                q = _ct_config(ct_scheme_args(num_bits=4, type="int", strategy="group", group_size=128), None,
                               "pack-quantized", ignore)
            else:
                q = _ct_config(ct_scheme_args(type="int"), ct_scheme_args(type="int", strategy="token", dynamic=True,
                                                              observer=None), "int-quantized", ignore)
            case["config"]["torch_dtype"] = "bfloat16"
        case["config"]["quantization_config"] = q
        out.append(case)
    return out


def run_qwen3_vl(version: str, n: int, seed: int = 7, n_layouts: int = 6, awq: int = 0, quantized: int = 0) -> dict:
    """Build ``n`` Qwen3-VL configs (qwen3_vl_variants), ``awq`` AWQ ones (qwen3_vl_awq_variants) and ``quantized``
    GPTQ / compressed-tensors ones (qwen3_vl_quantized_variants) at ``n_layouts`` of QWEN3_VL_LAYOUTS each in the
    release and compare; the layer lists of the two bases (unquantized, tp 1: the tower's layers and the decoder's)
    too (tools/quant_differential.py --qwen3-vl, --qwen3-vl-awq, --qwen3-vl-quantized)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9800 + 1)
    cases = []
    generated = with_extra_variants(qwen3_vl_variants(rng, n), seed * 9800, (2, awq, qwen3_vl_awq_variants),
                                    (3, quantized, qwen3_vl_quantized_variants))
    for case in wrapper_host(version, generated):
        text = case["config"]["text_config"]
        case["layouts"] = draw_layouts(rng, QWEN3_VL_LAYOUTS, text["num_attention_heads"], n_layouts,
                                       experts="num_experts" in text)
        cases.append(case)
    lists = [{"config": _qwen3_vl_base(moe, 2, 1), "layouts": [{"tp": 1}], "record": True} for moe in (True, False)
             if moe or resolve(version).within(qwen3_vl.DENSE_SINCE)]
    return _with_layer_lists(version, python, python_env, cases, lists)


#: CI: the first release that builds the wrappers, the first whose MoE wrapper implements MixtureOfExperts (0.12.0),
#: one of the middle group (0.24.0) and the last
QWEN3_VL_SAMPLE = release_sample(VERSIONS, "0.11.0", also=("0.12.0", "0.24.0"))


@pytest.mark.parametrize("version", QWEN3_VL_SAMPLE)
def test_qwen3_vl_construction_agrees(version):
    report = run_qwen3_vl(version, int(os.environ.get("KVG_QWEN3_VL_CONFIGS", "4")),
                          int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3,
                          awq=int(os.environ.get("KVG_QWEN3_VL_AWQ", "2")),
                          quantized=int(os.environ.get("KVG_QWEN3_VL_QUANTIZED", "1")))
    _check_family_report(report, version, "Qwen3-VL", "qwen3-vl-construction")


#: GLM-4.5V / GLM-4.6V (Glm4vMoeForConditionalGeneration: kvguard.quant.glm4v's vision tower, then the glm4_moe
#: family's language model): zai-org/GLM-4.5V's config.json as a model-info report of the checkpoint prints it
#: (Glm4vMoeConfig: text hidden 4096, 46 layers, the first dense, 128 experts of 1408, dense 10944, 96 heads, 8 KV
#: heads; vision depth 24, hidden 1536, 12 heads, out 4096, merger 10944, spatial merge 2); GLM-4.6V has the same sizes
GLM4V_CONFIG = {
    "architectures": ["Glm4vMoeForConditionalGeneration"], "model_type": "glm4v_moe", "image_start_token_id": 151339,
    "image_end_token_id": 151340, "video_start_token_id": 151341, "video_end_token_id": 151342,
    "image_token_id": 151363, "video_token_id": 151364, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "text_config": {
        "model_type": "glm4v_moe_text", "pad_token_id": 151329, "vocab_size": 151552,
        "eos_token_id": [151329, 151336, 151338], "head_dim": 128, "attention_bias": True, "attention_dropout": 0.0,
        "first_k_dense_replace": 1, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
        "intermediate_size": 10944, "max_position_embeddings": 65536, "moe_intermediate_size": 1408, "n_group": 1,
        "n_routed_experts": 128, "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 96,
        "num_experts_per_tok": 8, "num_hidden_layers": 46, "num_key_value_heads": 8, "partial_rotary_factor": 0.5,
        "rms_norm_eps": 1e-05, "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]},
        "rope_theta": 10000.0, "routed_scaling_factor": 1.0, "topk_group": 1, "use_cache": True,
        "use_qk_norm": False, "torch_dtype": "bfloat16"},
    "vision_config": {
        "model_type": "glm4v_moe", "attention_bias": False, "attention_dropout": 0.0, "depth": 24,
        "hidden_act": "silu", "hidden_size": 1536, "image_size": 336, "in_channels": 3, "initializer_range": 0.02,
        "intermediate_size": 10944, "num_heads": 12, "out_hidden_size": 4096, "patch_size": 14,
        "rms_norm_eps": 1e-05, "spatial_merge_size": 2, "temporal_patch_size": 2}}
#: the same with a 16-head tower (head size 96: the QKV layer's shards split below a block of 128 at tp 8), for the
#: golden case of the tower QKV layer's name (tools/record_golden_quant.py mi-fp8-block-glm45v-16heads-tp8)
GLM4V_16_HEADS = dict(GLM4V_CONFIG, vision_config=dict(GLM4V_CONFIG["vision_config"], num_heads=16))
#: the checkpoint names of the tower's linear layers (the block's, then the merger's)
_GLM4V_BLOCK_NAMES = ("attn.qkv", "attn.proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
_GLM4V_MERGER_NAMES = ("proj", "gate_proj", "up_proj", "down_proj")
#: CI: the first release, the QKV layer named by the method from 0.18.0, and the last
GLM4V_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.18.0",))


def _glm4v_base(layers: int, depth: int) -> dict:
    cfg = copy.deepcopy(GLM4V_CONFIG)
    cfg["text_config"]["num_hidden_layers"] = layers
    cfg["vision_config"]["depth"] = depth
    return cfg


def glm4v_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` GLM-4.5V configs (GLM4V_CONFIG) cut to the dense first layer and one MoE layer and 1-2 vision blocks, with
    varied sizes (the tower's hidden size and heads, its merger's intermediate size, the expert and dense intermediate
    sizes, the expert count) and quantization: block FP8 ([128, 128], sometimes [64, 64]) with
    modules_to_not_convert in checkpoint names naming the whole tower, its merger only, its blocks only or nothing
    (sometimes the dense MLP of the first layer too), online FP8 (``--quantization fp8``), unquantized; one in four
    with ``--mm-encoder-tp-mode data``."""
    out = []
    while len(out) < n:
        cfg = _glm4v_base(2, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        text["moe_intermediate_size"] = rng.choice([1408, 1408, 1536, 704, 2048])
        text["intermediate_size"] = rng.choice([10944, 10944, 12288, 11008])
        if rng.random() < 0.3:
            text["n_routed_experts"] = rng.choice([128, 64, 160])
        if rng.random() < 0.4:
            vision["hidden_size"], vision["num_heads"] = rng.choice([(1536, 16), (1280, 16), (1536, 8), (1536, 24)])
        if rng.random() < 0.4:
            vision["intermediate_size"] = rng.choice([13696, 11264, 12288])
        kind = rng.choice(["tower", "tower", "merger", "blocks", "quantized", "online", "none", "ct", "ct", "ct"])
        engine: dict = {}
        if kind == "ct":
            # llm-compressor's presets; the ignore list of GLM-4.x's (GLM4_MOE_CT_IGNORE) with the tower in the form of
            # zai-org/GLM-4.5V-FP8's (each block's QKV layer as vLLM names it under compressed-tensors, not in
            # checkpoint names), as patterns, in checkpoint names (mapped by the wrapper), or not at all
            cfg["torch_dtype"] = "bfloat16"
            q = ct_quantization_config(rng)
            tower = rng.choice([[f"visual.blocks.{b}.attn.qkv_proj" for b in range(vision["depth"])],
                                ["re:visual.*"], ["re:model.visual.*"], ["re:.*visual.*"],
                                [f"model.visual.blocks.{b}.{m}" for b in range(vision["depth"])
                                 for m in ("attn.qkv_proj", "attn.proj")] + ["model.visual.merger.proj"], []])
            q["ignore"] = list(GLM4_MOE_CT_IGNORE) + tower
            cfg["quantization_config"] = q
        elif kind in ("tower", "merger", "blocks", "quantized"):
            names = []
            if kind in ("tower", "blocks"):
                names += [f"model.visual.blocks.{b}.{m}" for b in range(vision["depth"]) for m in _GLM4V_BLOCK_NAMES]
            if kind in ("tower", "merger"):
                names += [f"model.visual.merger.{m}" for m in _GLM4V_MERGER_NAMES]
            if rng.random() < 0.4:
                names += [f"model.language_model.layers.0.mlp.{m}" for m in ("gate_proj", "up_proj", "down_proj")]
            cfg["quantization_config"] = _block_fp8(rng, {"modules_to_not_convert": names + ["lm_head"]})
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append(_wrapper_case(rng, cfg, engine, 0.25))
    return out


#: AWQ's modules_to_not_convert on GLM-4.5V: the tower in checkpoint names with and without the mapper's trailing dot,
#: as vLLM names it, with the router gates ("mlp.gate" is part of the dense and shared experts' gate_up_proj too), the
#: dense first layer, the LM head, nothing
GLM4V_AWQ_UNCONVERTED = (["visual"], ["model.visual."], ["model.visual"], ["visual", "mlp.gate"],
                         ["model.language_model.layers.0.", "visual"], ["lm_head"], None)


def glm4v_wna16_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` GLM-4.5V configs as glm4v_variants cuts them, with an AWQ (AutoAWQ's form, GLM4V_AWQ_UNCONVERTED) or GPTQ
    (AutoGPTQ / GPTQModel's form, no desc_act) quantization_config, groups of 128 / 64 / 32; now and then
    ``--quantization`` naming the Marlin or the plain method."""
    out = []
    for case in glm4v_variants(rng, n):
        case["config"].pop("quantization_config", None)
        case["engine_args"].pop("quantization", None)
        q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]), list(GLM4V_AWQ_UNCONVERTED), 0.0)
        case["config"]["quantization_config"] = q
        case["config"]["torch_dtype"] = rng.choice(["bfloat16", "bfloat16", "float16"])
        case["engine_args"].update(engine)
        out.append(case)
    return out


def run_glm4v(version: str, n: int, seed: int = 7, n_layouts: int = 6, wna16: int = 0) -> dict:
    """Build ``n`` GLM-4.5V configs (glm4v_variants) and ``wna16`` AWQ / GPTQ ones (glm4v_wna16_variants) at
    ``n_layouts`` of GLM4_MOE_LAYOUTS each (one of the last two, expert parallel with EPLB, last) in the release and
    compare; the base's layer list (unquantized, tp 1: the tower's layers and the decoder's) too
    (tools/quant_differential.py --glm4v, --glm4v-wna16)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9900 + 1)
    generated = with_extra_variants(glm4v_variants(rng, n), seed * 9900, (2, wna16, glm4v_wna16_variants))
    cases = wrapper_host(version, _with_glm4_moe_layouts(rng, generated, n_layouts))
    lists = [{"config": _glm4v_base(2, 1), "layouts": [{"tp": 1}], "record": True}]
    return _with_layer_lists(version, python, python_env, cases, lists)


@pytest.mark.parametrize("version", GLM4V_SAMPLE)
def test_glm4v_construction_agrees(version):
    report = run_glm4v(version, int(os.environ.get("KVG_GLM4V_CONFIGS", "2")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                       n_layouts=3, wna16=int(os.environ.get("KVG_GLM4V_WNA16", "1")))
    _check_family_report(report, version, "GLM-4.5V", "glm4v-construction")


#: Qwen2-VL / Qwen2.5-VL (kvguard.quant.qwen2_vl: the vision tower, then the llama family's layers under
#: language_model, 0.10.2+): the config.json of Qwen/Qwen2.5-VL-7B-Instruct and Qwen/Qwen2-VL-7B-Instruct (flat: the
#: text sizes at the top level, as Qwen published them), with the text sizes of their 2B / 3B / 32B / 72B siblings
#: (hidden, intermediate, heads, KV heads, vocabulary: their config.json) and the published quantized forms: Qwen's
#: AWQ exports (modules_to_not_convert ["visual"], as AutoAWQ's Qwen2-VL / Qwen2.5-VL classes write it), Qwen's GPTQ
#: exports (Qwen2-VL-7B-Instruct-GPTQ-Int4 / Int8: 4 / 8 bits, groups of 128, desc_act false), RedHatAI's
#: llm-compressor exports (FP8-dynamic, quantized.w4a16 / w8a8: ignore "re:.*lm_head", "re:visual.*")
QWEN2_5_VL_7B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "vision_start_token_id": 151652, "vision_end_token_id": 151653,
    "vision_token_id": 151654, "image_token_id": 151655, "video_token_id": 151656, "hidden_act": "silu",
    "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 128000,
    "max_window_layers": 28, "model_type": "qwen2_5_vl", "num_attention_heads": 28, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True,
    "use_sliding_window": False,
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2},
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "vocab_size": 152064}
#: Qwen/Qwen2.5-VL-72B-Instruct's config.json: 7B's with the 72B text sizes and the vision tower's out_hidden_size
QWEN2_5_VL_72B = dict(copy.deepcopy(QWEN2_5_VL_7B), hidden_size=8192, intermediate_size=29568,
                      num_attention_heads=64, num_key_value_heads=8, num_hidden_layers=80, max_window_layers=80,
                      vision_config=dict(QWEN2_5_VL_7B["vision_config"], out_hidden_size=8192))
QWEN2_VL_7B_VISION = {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16, "in_chans": 3,
                      "hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14,
                      "temporal_patch_size": 2}
#: (hidden, intermediate, heads, KV heads, vocabulary, tied): Qwen2.5-VL-3B / 7B / 32B / 72B, Qwen2-VL-2B
QWEN2_VL_TEXT_SIZES = ((2048, 11008, 16, 2, 151936, True), (3584, 18944, 28, 4, 152064, False),
                       (5120, 27648, 40, 8, 152064, False), (8192, 29568, 64, 8, 152064, False),
                       (1536, 8960, 12, 2, 151936, True))
QWEN2_VL_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
                    {"tp": 8, "dp": 2}, {"tp": 3}, {"tp": 6})
#: AWQ's modules_to_not_convert on the wrappers: Qwen's, nothing, the blocks only, the checkpoint name (rewritten by
#: the wrapper's mapper: left open)
QWEN2_VL_AWQ_UNCONVERTED = (["visual"], ["visual"], None, ["visual.blocks"], ["model.visual"], ["model.visual."])
#: the checkpoint names of each tower's linear layers (an Fp8Config's modules_to_not_convert)
QWEN2_VL_TOWER_NAMES = {False: ("attn.qkv", "attn.proj", "mlp.gate_up_proj", "mlp.down_proj"),
                        True: ("attn.qkv", "attn.proj", "mlp.fc1", "mlp.fc2")}
QWEN2_VL_CT_IGNORE = (["re:.*lm_head", "re:visual.*"], ["re:.*lm_head", "re:visual.*"], ["lm_head"],
                      ["re:.*lm_head", "re:visual.blocks.*"])


def qwen2_vl_base(qwen2: bool, layers: int, depth: int) -> dict:
    """Qwen2.5-VL-7B's config (or Qwen2-VL-7B's: its vision config), cut to ``layers`` decoder layers and ``depth``
    vision blocks."""
    cfg = copy.deepcopy(QWEN2_5_VL_7B)
    if qwen2:
        cfg.update(architectures=["Qwen2VLForConditionalGeneration"], model_type="qwen2_vl",
                   max_position_embeddings=32768, vision_config=copy.deepcopy(QWEN2_VL_7B_VISION))
    cfg["num_hidden_layers"] = cfg["max_window_layers"] = layers
    cfg["vision_config"]["depth"] = depth
    if not qwen2:
        cfg["vision_config"]["fullatt_block_indexes"] = [depth - 1]
    return cfg


def qwen2_vl_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen2-VL / Qwen2.5-VL configs (qwen2_vl_base, 2 decoder layers, 1-2 vision blocks) with varied sizes
    (QWEN2_VL_TEXT_SIZES, the tower's heads, width, MLP size) and quantization (unquantized, AWQ, GPTQ,
    compressed-tensors FP8-dynamic / W4A16 / W8A8 as the published exports write them, block FP8 with the tower
    listed in checkpoint names or not, online FP8); one in five with
    ``--mm-encoder-tp-mode data``."""
    out = []
    while len(out) < n:
        qwen2 = rng.random() < 0.35
        cfg = qwen2_vl_base(qwen2, 2, rng.choice([1, 2]))
        hidden, inter, heads, kv, vocab, tied = rng.choice(QWEN2_VL_TEXT_SIZES)
        cfg.update(hidden_size=hidden, intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv,
                   vocab_size=vocab, tie_word_embeddings=tied)
        vision = cfg["vision_config"]
        vision["hidden_size" if qwen2 else "out_hidden_size"] = hidden
        if rng.random() < 0.5:
            width, vheads = rng.choice([(1280, 16), (1280, 20), (1152, 16), (1536, 12), (1280, 10), (1024, 8)])
            vision["embed_dim" if qwen2 else "hidden_size"], vision["num_heads"] = width, vheads
        if rng.random() < 0.5:
            if qwen2:
                vision["mlp_ratio"] = rng.choice([4, 2.5, 3.5, 2.6875])
            else:
                vision["intermediate_size"] = rng.choice([3420, 3456, 5120, 4096, 3424])
        kind = rng.choice(["none", "awq", "awq", "gptq", "ct", "ct", "fp8", "online"])
        engine: dict = {}
        if kind == "fp8":
            # block FP8 in Fp8Config's form, the tower (or its blocks, or nothing) listed in checkpoint names
            tower = rng.choice(["all", "all", "blocks", "none"])
            names = [f"model.visual.blocks.{b}.{n}" for b in range(vision["depth"]) for n in QWEN2_VL_TOWER_NAMES[qwen2]
                     ] if tower != "none" else []
            names += [f"model.visual.merger.mlp.{k}" for k in (0, 2)] if tower == "all" else []
            cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                          "weight_block_size": rng.choice([[128, 128], [128, 128], [64, 64]]),
                                          "modules_to_not_convert": names + ["lm_head"]}
        elif kind == "online":
            engine["quantization"] = "fp8"
        elif kind == "awq":
            cfg["quantization_config"] = {"bits": 4, "group_size": rng.choice([128, 128, 64]),
                                          "modules_to_not_convert": rng.choice(QWEN2_VL_AWQ_UNCONVERTED),
                                          "quant_method": "awq", "version": "gemm", "zero_point": True}
            if rng.random() < 0.15:
                engine["quantization"] = rng.choice(["awq", "awq_marlin"])
        elif kind == "gptq":
            cfg["quantization_config"] = {"bits": rng.choice([4, 8]), "group_size": 128, "damp_percent": 0.01,
                                          "desc_act": False, "static_groups": False, "sym": True,
                                          "true_sequential": True, "model_name_or_path": None,
                                          "model_file_base_name": "model", "quant_method": "gptq"}
        elif kind == "ct":
            ignore = list(rng.choice(QWEN2_VL_CT_IGNORE))
            roll = rng.random()
            if roll < 0.4:      # FP8_DYNAMIC
                cfg["quantization_config"] = _ct_config(ct_scheme_args(), ct_scheme_args(strategy="token", dynamic=True,
                                                                             observer=None),
                                                        "float-quantized", ignore)
            elif roll < 0.75:   # W4A16
                cfg["quantization_config"] = _ct_config(ct_scheme_args(num_bits=4, type="int", strategy="group",
                                                                 group_size=128), None, "pack-quantized", ignore)
            else:               # W8A8 (INT8, dynamic per-token activations)
                cfg["quantization_config"] = _ct_config(ct_scheme_args(type="int"), ct_scheme_args(type="int", strategy="token",
                                                                                       dynamic=True, observer=None),
                                                        "int-quantized", ignore)
        out.append(_wrapper_case(rng, cfg, engine))
    return out


def run_qwen2_vl(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Qwen2-VL / Qwen2.5-VL configs (qwen2_vl_variants) at ``n_layouts`` of QWEN2_VL_LAYOUTS each in the
    release and compare; the layer lists of the two bases (unquantized, tp 1: the tower's layers and the decoder's)
    too (tools/quant_differential.py --qwen2-vl)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9900 + 1)
    cases = []
    for case in wrapper_host(version, qwen2_vl_variants(rng, n)):
        # (VllmConfig refuses a head count tp does not divide before the model is built)
        case["layouts"] = draw_layouts(rng, QWEN2_VL_LAYOUTS, case["config"]["num_attention_heads"], n_layouts)
        cases.append(case)
    lists = [{"config": qwen2_vl_base(qwen2, 2, 1), "layouts": [{"tp": 1}], "record": True} for qwen2 in (False, True)]
    return _with_layer_lists(version, python, python_env, cases, lists)


#: CI: the first group release (its wrappers hand GPTQ no tower), one that builds the processor's input normalisation
#: (0.28.0) and the last
QWEN2_VL_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.28.0",))


@pytest.mark.parametrize("version", QWEN2_VL_SAMPLE)
def test_qwen2_vl_construction_agrees(version):
    report = run_qwen2_vl(version, int(os.environ.get("KVG_QWEN2_VL_CONFIGS", "4")),
                          int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "Qwen2-VL", "qwen2-vl-construction")


#: Phi-3 / Phi-4 (Phi3ForCausalLM: the phi3 family of kvguard/data/quant_archs.json, Llama's layers whose packed-modules
#: mapping names the merged qkv_proj / gate_up_proj as their own shards): the catalog's microsoft/phi-4 config.json with
#: the text sizes of Phi-3.5-mini-instruct and Phi-3-medium (hidden, intermediate, heads, KV heads, vocabulary: their
#: config.json), cut to two layers; the quantized forms the published exports write: AutoAWQ / GPTQ, llm-compressor's
#: compressed-tensors presets (ignore "lm_head", now and then a merged layer or a name it does not build), block FP8
#: (Fp8Config), online FP8
PHI3_SIZES = ((5120, 17920, 40, 10, 100352), (3072, 8192, 32, 32, 32064), (5120, 17920, 40, 10, 32064))
PHI3_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 5}, {"tp": 10}, {"tp": 2, "dp": 4})
PHI3_CT_IGNORE = (["lm_head"], ["lm_head"], ["lm_head", "re:.*qkv_proj"], ["lm_head", "model.layers.0.mlp.gate_up_proj"],
                  ["lm_head", "re:.*q_proj"], ["lm_head", "re:.*down_proj"])


def phi3_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Phi3ForCausalLM configs (PHI3_SIZES, two layers) unquantized or in the exports' quantized forms."""
    out = []
    while len(out) < n:
        cfg = copy.deepcopy(catalog.lookup("microsoft/phi-4").config)
        hidden, inter, heads, kv, vocab = rng.choice(PHI3_SIZES)
        cfg.update(hidden_size=hidden, intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv,
                   vocab_size=vocab, num_hidden_layers=2)
        if rng.random() < 0.3:
            cfg["intermediate_size"] = rng.choice([8192, 17920, 17936, 8200, 14336])
        kind = rng.choice(["none", "wna16", "wna16", "ct", "ct", "fp8", "online"])
        engine: dict = {}
        if kind == "wna16":
            q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]), [None, ["lm_head"], ["qkv_proj"]], 0.0)
            cfg["quantization_config"] = q
        elif kind == "ct":
            q = ct_quantization_config(rng)
            q["ignore"] = list(rng.choice(PHI3_CT_IGNORE))
            cfg["quantization_config"] = q
        elif kind == "fp8":
            names = rng.choice([[], ["model.layers.0.self_attn.qkv_proj"], ["model.layers.1.mlp.gate_up_proj",
                                                                            "model.layers.1.mlp.down_proj"]])
            cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                          "weight_block_size": rng.choice([[128, 128], [128, 128], [64, 64]]),
                                          "modules_to_not_convert": names + ["lm_head"]}
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append({"config": cfg, "engine_args": engine})
    return out


def run_phi3(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` Phi3ForCausalLM configs (phi3_variants) at ``n_layouts`` of PHI3_LAYOUTS each in the release and
    compare; the layer list of phi-4 (two layers, tp 1) too (tools/quant_differential.py --phi3)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9950 + 1)
    cases = []
    for case in phi3_variants(rng, n):
        # (VllmConfig refuses a head count tp does not divide before the model is built)
        case["layouts"] = draw_layouts(rng, PHI3_LAYOUTS, case["config"]["num_attention_heads"], n_layouts)
        cases.append(case)
    base = dict(copy.deepcopy(catalog.lookup("microsoft/phi-4").config), num_hidden_layers=2)
    return _with_layer_lists(version, python, python_env, cases, [{"config": base, "layouts": [{"tp": 1}],
                                                                   "record": True}])


#: CI: the first and the last group release
PHI3_SAMPLE = release_sample(VERSIONS, "0.10.2")


@pytest.mark.parametrize("version", PHI3_SAMPLE)
def test_phi3_construction_agrees(version):
    report = run_phi3(version, int(os.environ.get("KVG_PHI3_CONFIGS", "4")), int(os.environ.get("KVG_DIFF_SEED", "7")),
                      n_layouts=3)
    _check_family_report(report, version, "Phi3", "phi3-construction")


#: Qwen3.5 / Qwen3.6 (kvguard/data/quant_archs.json families qwen3_5_moe and qwen3_5, 0.17.0+: Qwen3-VL's vision
#: tower, kvguard.quant.qwen3_vl, then Qwen3-Next's decoder layers with the split gated-delta-net projections): the
#: catalog checkpoints the generated configs start from (the MoE and dense releases, NVIDIA's NVFP4 export), the CI
#: sample (the first release, 0.20.0 where the gated delta net moves to its own module, the last) and the layouts
#: (tp 1-32, data / expert parallel, EPLB)
QWEN3_5_BASES = ("Qwen/Qwen3.5-397B-A17B", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.5-35B-A3B", "nvidia/Qwen3.5-397B-A17B-NVFP4")
QWEN3_5_SINCE = "0.17.0"
QWEN3_5_SAMPLE = release_sample(VERSIONS, QWEN3_5_SINCE, also=("0.20.0",))
QWEN3_5_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 2, "dp": 4},
                   {"tp": 8, "dp": 2}, {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                   {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def _qwen3_5_base(base: str, layers: int, depth: int) -> dict:
    """A catalog Qwen3.5 config cut to ``layers`` decoder layers (the checkpoint's pattern: three gated-delta-net
    layers, then full attention) and ``depth`` vision blocks, without its quantization config."""
    cfg = copy.deepcopy(catalog.lookup(base).config)
    cfg.pop("quantization_config", None)
    text = cfg["text_config"]
    text["num_hidden_layers"] = layers
    text["layer_types"] = text["layer_types"][:layers]
    cfg["vision_config"]["depth"] = depth
    return cfg


def _qwen3_5_fp8(rng: random.Random, cfg: dict, tower: str) -> dict:
    """An Fp8Config in the form of Qwen's FP8 exports (blocks of 128, dynamic activations; modules_to_not_convert in
    the checkpoint's names: each gated-delta-net layer's conv1d, in_proj_a and in_proj_b, the router and shared-expert
    gates, the LM head; the vision tower as _qwen3_vl_fp8 lists it), now and then one layer's in_proj_a / in_proj_b
    pair left quantized (block FP8 on the [value heads, value heads] projection) or half of it (the fused shards
    disagree)."""
    text = cfg["text_config"]
    names = [n for n in _qwen3_vl_fp8(rng, cfg, tower)["modules_to_not_convert"] if "visual" in n]
    for i, kind in enumerate(text["layer_types"]):
        layer = f"model.language_model.layers.{i}"
        if kind == "linear_attention":
            names += [f"{layer}.linear_attn.{n}" for n in ("conv1d", "in_proj_a", "in_proj_b")]
        if "num_experts" in text:
            names += [f"{layer}.mlp.gate", f"{layer}.mlp.shared_expert_gate"]
    roll = rng.random()
    if roll < 0.25:
        names = [n for n in names if not n.startswith("model.language_model.layers.0.linear_attn.in_proj_")]
    elif roll < 0.35:
        names = [n for n in names if n != "model.language_model.layers.0.linear_attn.in_proj_a"]
    names.append("lm_head")
    return {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
            "weight_block_size": rng.choice([[128, 128], [128, 128], [64, 64]]), "modules_to_not_convert": names}


def _qwen3_5_nvfp4(rng: random.Random, cfg: dict) -> dict:
    """A ModelOpt NVFP4 config in config.json's flat layout, as nvidia/Qwen3.5-397B-A17B-NVFP4 writes it (ignore:
    the LM head, the vision tower, each layer's attention or gated delta net and shared expert, the MTP layer; the
    experts quantized), now and then one layer's attention / gated delta net, the shared experts or the tower
    quantized too."""
    text = cfg["text_config"]
    names = ["lm_head", "*.mlp.shared_expert.*", "model.visual*", "mtp.layers.0*"]
    quantized = rng.choice([None, None, 0, len(text["layer_types"]) - 1])
    for i, kind in enumerate(text["layer_types"]):
        layer = f"model.language_model.layers.{i}"
        if i != quantized:
            names.append(f"{layer}.{'linear_attn' if kind == 'linear_attention' else 'self_attn'}*")
        if "num_experts" in text:
            names += [f"{layer}.mlp.shared_expert*", f"{layer}.mlp.shared_expert_gate"]
    roll = rng.random()
    if roll < 0.35:
        names = [n for n in names if "visual" not in n]
    elif roll < 0.5:
        names = [n for n in names if "shared_expert" not in n or n.endswith("_gate")]
    group = {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}
    return {"config_groups": {"group_0": {"input_activations": dict(group), "weights": dict(group),
                                          "targets": ["Linear"]}},
            "ignore": names, "quant_algo": "NVFP4", "producer": {"name": "modelopt", "version": "0.0.1"},
            "quant_method": "modelopt"}


#: the ignore list of llm-compressor's Qwen3.5 recipes (vllm-project/llm-compressor examples/quantization_w8a8_fp8/
#: qwen3_5_moe.py, FP8_DYNAMIC, and its NVFP4 counterpart): the LM head, the vision tower in both spellings, the router
#: and shared-expert gates, the embedding, the shared-expert module (a pattern no linear layer's name ends with) and
#: every gated-delta-net layer
QWEN3_5_CT_IGNORE = ("re:.*lm_head", "re:visual.*", "re:model.visual.*", "re:.*mlp.gate$", "re:.*embed_tokens$",
                     "re:.*shared_expert_gate$", "re:.*mlp\\.shared_expert$", "re:.*linear_attn.*")


def _qwen3_5_ct(rng: random.Random) -> dict:
    """A compressed-tensors config as llm-compressor's Qwen3.5 recipes write it: FP8_DYNAMIC, W4A16 (group 128 mostly),
    NVFP4 / NVFP4A16 or FP8_BLOCK (ct_quantization_config / ct_nvfp4_quantization_config), with the recipes' ignore
    list (QWEN3_5_CT_IGNORE); now and then the gated delta net or the vision tower left quantized, or the LM head the
    only entry."""
    roll = rng.random()
    if roll < 0.35:
        q = _ct_config(ct_scheme_args(), ct_scheme_args(strategy="token", dynamic=True, observer=None), "float-quantized", [])
    elif roll < 0.6:
        group = rng.choice([128, 128, 128, 64, 32])
        q = _ct_config(ct_scheme_args(num_bits=4, type="int", strategy="group", group_size=group), None, "pack-quantized",
                       [])
    elif roll < 0.85:
        q = ct_nvfp4_quantization_config(rng)
    else:
        block = rng.choice([[128, 128], [128, 128], [64, 64]])
        q = _ct_config(ct_scheme_args(strategy="block", block_structure=block),
                       ct_scheme_args(strategy="group", group_size=block[1], dynamic=True, observer=None), "float-quantized",
                       [])
    roll = rng.random()
    ignore = list(QWEN3_5_CT_IGNORE)
    if roll < 0.12:
        ignore.remove("re:.*linear_attn.*")
    elif roll < 0.24:
        ignore = [x for x in ignore if "visual" not in x]
    elif roll < 0.3:
        ignore = ["lm_head"]
    q["ignore"] = ignore
    return q


def _qwen3_5_modelopt_fp8(rng: random.Random, cfg: dict) -> dict:
    """A ModelOpt FP8 (per-tensor) export in config.json's flat layout, with the exclusion list of NVIDIA's Qwen3.5
    exports (_qwen3_5_nvfp4's)."""
    q = _qwen3_5_nvfp4(rng, cfg)
    group = {"dynamic": False, "num_bits": 8, "type": "float"}
    q["config_groups"] = {"group_0": {"input_activations": dict(group), "weights": dict(group), "targets": ["Linear"]}}
    q["quant_algo"] = "FP8"
    return q


def qwen3_5_quantized_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3.5 configs as qwen3_5_variants draws them, quantized as compressed-tensors (_qwen3_5_ct, four in
    five) or ModelOpt FP8 (_qwen3_5_modelopt_fp8) exports (the model dtype bfloat16, as the exports write it)."""
    out = []
    for case in qwen3_5_variants(rng, n):
        cfg = case["config"]
        cfg["torch_dtype"] = "bfloat16"
        cfg["quantization_config"] = _qwen3_5_ct(rng) if rng.random() < 0.8 else _qwen3_5_modelopt_fp8(rng, cfg)
        case["engine_args"].pop("quantization", None)
        out.append(case)
    return out


def _qwen3_5_awq_unconverted(rng: random.Random, cfg: dict) -> "list[str] | None":
    """An AWQ modules_to_not_convert list in the forms the community's Qwen3.5 / Qwen3.6 AWQ exports write (checkpoint
    names: the vision tower, the gated delta net's in_proj_a / in_proj_b, whose per-rank outputs Marlin does not
    take, the router and shared-expert gates, the LM head, the MTP layer; bare or under ``model.``, or per layer),
    now and then in_proj_a / in_proj_b left quantized, one of the two listed (the fused shards disagree), "mlp.gate"
    (which also names the dense MLP's gate_proj shard) or no list at all."""
    text = cfg["text_config"]
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.2:
        return ["model.visual"]
    if roll < 0.3:
        return ["model.visual", rng.choice(["linear_attn.in_proj_b", "linear_attn.in_proj_a"]), "lm_head"]
    if roll < 0.4:
        names = [f"model.language_model.layers.{i}.linear_attn.{proj}"
                 for i, kind in enumerate(text["layer_types"]) if kind == "linear_attention"
                 for proj in ("in_proj_a", "in_proj_b")]
        return ["model.visual", *names, "lm_head"]
    names = [rng.choice(["model.visual", "visual"]), "linear_attn.in_proj_a", "linear_attn.in_proj_b"]
    if "num_experts" in text or rng.random() < 0.3:
        names.append("mlp.gate")
    if "num_experts" in text:
        names.append("mlp.shared_expert_gate")
    if rng.random() < 0.3:
        names.append("shared_expert")
    return names + rng.choice([["lm_head", "mtp"], ["lm_head"], []])


def qwen3_5_wna16_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3.5 configs as qwen3_5_variants draws them, with an AWQ (_qwen3_5_awq_unconverted's lists) or a
    plain GPTQ quantization_config (awq_or_gptq: 4-bit AWQ, zero points mostly; GPTQ 4- or 8-bit, desc_act now and
    then; groups of 128 mostly), now and then --quantization naming the Marlin or the plain method (the model dtype
    bfloat16 mostly, as the exports write it); three in five GPTQ configs with a tower Marlin takes, not split."""
    out = []
    for case in qwen3_5_variants(rng, n):
        cfg = case["config"]
        cfg["torch_dtype"] = rng.choice(["bfloat16", "bfloat16", "float16"])
        case["engine_args"].pop("quantization", None)
        q, engine = awq_or_gptq(rng, rng.choice([128, 128, 64, 32]), [None], 0.15)
        if q["quant_method"] == "awq":
            q["modules_to_not_convert"] = _qwen3_5_awq_unconverted(rng, cfg)
        elif rng.random() < 0.6:
            # GPTQ quantizes the tower too: a tower Marlin takes whole (an intermediate size of whole 128-row tiles,
            # not split), so the launch reaches the language model
            cfg["vision_config"]["intermediate_size"] = rng.choice([4096, 4608])
            engine["mm_encoder_tp_mode"] = "data"
        cfg["quantization_config"] = q
        case["engine_args"].update(engine)
        out.append(case)
    return out


def qwen3_5_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3.5 configs (QWEN3_5_BASES) cut to 4 language-model layers and 1-2 vision blocks, with varied sizes
    (the gated delta net's key / value heads and head sizes, the attention heads, the expert, shared-expert and dense
    intermediate sizes, the expert count, the tower's heads and sizes) and quantization: block FP8 in Qwen's form
    (_qwen3_5_fp8), ModelOpt NVFP4 in NVIDIA's (_qwen3_5_nvfp4; the NVIDIA base and the dense one), online FP8,
    unquantized; one in five with
    ``--mm-encoder-tp-mode data``."""
    out = []
    while len(out) < n:
        base = QWEN3_5_BASES[len(out) % len(QWEN3_5_BASES)]
        cfg = _qwen3_5_base(base, 4, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        if rng.random() < 0.3:
            text["layer_types"] = ["full_attention", "linear_attention", "linear_attention", "full_attention"]
        if rng.random() < 0.6:
            text["linear_num_key_heads"], text["linear_num_value_heads"] = rng.choice(
                [(16, 64), (16, 32), (16, 48), (8, 16), (4, 8), (12, 24), (16, 16), (6, 12)])
            text["linear_key_head_dim"] = rng.choice([128, 128, 64, 96])
            text["linear_value_head_dim"] = rng.choice([128, 128, 64, 96, 80])
        if rng.random() < 0.4:
            text["num_attention_heads"], text["num_key_value_heads"] = rng.choice([(32, 2), (16, 2), (24, 4), (8, 1),
                                                                                   (16, 4), (24, 2)])
        if "num_experts" in text:
            text["moe_intermediate_size"] = rng.choice([1024, 512, 768, 384, 640, 256, 1536])
            text["shared_expert_intermediate_size"] = rng.choice([1024, 512, 0, 384, 640, 2048])
            text["num_experts"] = rng.choice([512, 256, 64, 32])
            text["num_experts_per_tok"] = min(text["num_experts_per_tok"], 8)
        else:
            text["intermediate_size"] = rng.choice([17408, 12288, 9216, 17152, 3584])
        if rng.random() < 0.5:
            vision["hidden_size"], vision["num_heads"] = rng.choice([(1152, 16), (1152, 12), (1024, 16), (1536, 24),
                                                                     (1152, 8)])
        if rng.random() < 0.4:
            vision["intermediate_size"] = rng.choice([4304, 4096, 4352, 4608])
        nvidia = base.startswith("nvidia/")
        kind = rng.choice(["nvfp4", "nvfp4", "nvfp4", "fp8"] if nvidia else
                          ["ignored", "ignored", "quantized", "blocks", "online", "none"]
                          + (["nvfp4", "nvfp4"] if "num_experts" not in text else []))
        engine: dict = {}
        if kind == "nvfp4":
            cfg["quantization_config"] = _qwen3_5_nvfp4(rng, cfg)
        elif kind in ("ignored", "quantized", "blocks", "fp8"):
            cfg["quantization_config"] = _qwen3_5_fp8(rng, cfg, "ignored" if kind == "fp8" else kind)
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append(_wrapper_case(rng, cfg, engine))
    return out


def run_qwen3_5(version: str, n: int, seed: int = 7, n_layouts: int = 6, quantized: int = 0, wna16: int = 0) -> dict:
    """Build ``n`` Qwen3.5 configs (qwen3_5_variants), ``quantized`` compressed-tensors / ModelOpt FP8 ones
    (qwen3_5_quantized_variants) and ``wna16`` AWQ / GPTQ ones (qwen3_5_wna16_variants; each set drawn from a generator
    of its own so the first ``n`` stay the same) at
    ``n_layouts`` of QWEN3_5_LAYOUTS each in the release and compare; the layer lists of the MoE and dense bases
    (unquantized, tp 1: the tower's layers and the decoder's) too (tools/quant_differential.py --qwen3-5)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9900 + 1)
    cases = []
    drawn = with_extra_variants(qwen3_5_variants(rng, n), seed * 9900, (2, quantized, qwen3_5_quantized_variants),
                                (4, wna16, qwen3_5_wna16_variants))
    for case in wrapper_host(version, drawn):
        text = case["config"]["text_config"]
        case["layouts"] = draw_layouts(rng, QWEN3_5_LAYOUTS, text["num_attention_heads"], n_layouts,
                                       experts="num_experts" in text)
        cases.append(case)
    lists = [{"config": _qwen3_5_base(base, 4, 1), "layouts": [{"tp": 1}], "record": True}
             for base in QWEN3_5_BASES[:2]]
    return _with_layer_lists(version, python, python_env, cases, lists)


@pytest.mark.parametrize("version", QWEN3_5_SAMPLE)
def test_qwen3_5_construction_agrees(version):
    report = run_qwen3_5(version, int(os.environ.get("KVG_QWEN3_5_CONFIGS", "4")),
                         int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3,
                         quantized=int(os.environ.get("KVG_QWEN3_5_QUANTIZED", "3")),
                         wna16=int(os.environ.get("KVG_QWEN3_5_WNA16", "2")))
    _check_family_report(report, version, "Qwen3.5", "qwen3-5-construction")
    assert report["layer_lists"]["agree"] == 2


#: NVIDIA's Qwen3.6 ModelOpt MIXED_PRECISION exports (kvguard.quant.modelopt_mixed): the dense and the MoE checkpoint
#: whose quantized_layers _qwen3_6_mixed follows; the CI sample (the family's first release, 0.22.0 where W4A16_NVFP4
#: layers are first quantized, the last)
QWEN3_6_MIXED = ("nvidia/Qwen3.6-27B-NVFP4", "nvidia/Qwen3.6-35B-A3B-NVFP4")
QWEN3_6_MIXED_SAMPLE = release_sample(VERSIONS, QWEN3_5_SINCE, also=("0.22.0",))
_MIXED_ALGOS = ("FP8", "NVFP4", "W4A16_NVFP4")


def _qwen3_6_export_layers(base: str) -> dict:
    """The catalog export's quantized_layers of its first gated-delta-net layer and its first full-attention layer
    (their modules' entries, by module name) and of the LM head."""
    cfg = catalog.lookup(base).config
    table = cfg["quantization_config"]["quantized_layers"]
    kinds = cfg["text_config"]["layer_types"]
    out: dict = {"lm_head": table.get("lm_head")}
    for kind in ("linear_attention", "full_attention"):
        pre = f"model.language_model.layers.{kinds.index(kind)}."
        out[kind] = {k[len(pre):]: v for k, v in table.items() if k.startswith(pre)}
    return out


def _mixed_entry(algo: str) -> dict:
    return {"quant_algo": algo, "group_size": 16} if "NVFP4" in algo else {"quant_algo": algo}


def _qwen3_6_mixed(rng: random.Random, cfg: dict) -> dict:
    """A MIXED_PRECISION export in config.json's flat layout, as NVIDIA's Qwen3.6 exports write it (QWEN3_6_MIXED: the
    MoE one for a MoE config, else the dense one; each layer's modules listed by their checkpoint names, FP8 attention
    and gated delta net, W4A16_NVFP4 MLP, experts, shared expert and LM head; the MTP layers excluded), now and then
    one module group (attention, gated delta net, MLP / experts, shared expert, LM head) of another algorithm or left
    out, the experts listed per expert, one fused layer's shards of two algorithms, a layer or the LM head excluded."""
    text = cfg["text_config"]
    moe = "num_experts" in text
    export = _qwen3_6_export_layers(QWEN3_6_MIXED[moe])
    if rng.random() < 0.4:
        # sizes whose per-rank inputs are not whole 16-element groups at some tp (the NVFP4 methods' check)
        size = rng.choice(["mlp", "value", "hidden"])
        if size == "mlp" and moe:
            text["shared_expert_intermediate_size"] = rng.choice([520, 392, 648, 1544])
            text["moe_intermediate_size"] = rng.choice([520, 392, 512])
        elif size == "mlp":
            text["intermediate_size"] = rng.choice([17400, 12296, 3592, 9224])
        elif size == "value":
            text["linear_value_head_dim"] = rng.choice([72, 88, 120])
        else:
            text["hidden_size"] = rng.choice([2056, 5128, 4104])

    def group(module: str) -> str:
        return module.split(".")[0] if not module.startswith("mlp.shared_expert.") else "shared"

    swapped = {g: rng.choice([*_MIXED_ALGOS, None]) for g in ("self_attn", "linear_attn", "mlp", "shared", "head")
               if rng.random() < 0.3}
    layers: dict = {}
    for i, kind in enumerate(text["layer_types"]):
        for module, info in export[kind].items():
            algo = swapped.get(group(module), info["quant_algo"])
            if algo is None:
                continue
            if module == "mlp.experts" and rng.random() < 0.2:
                for expert in range(2):
                    for proj in ("gate_proj", "up_proj", "down_proj"):
                        layers[f"model.language_model.layers.{i}.mlp.experts.{expert}.{proj}"] = _mixed_entry(algo)
                continue
            layers[f"model.language_model.layers.{i}.{module}"] = _mixed_entry(algo)
    head = swapped.get("head", export["lm_head"]["quant_algo"])
    if head is not None:
        layers["lm_head"] = _mixed_entry(head)
    if rng.random() < 0.1:
        # one fused layer's shards of two algorithms (vLLM's ValueError, which kvguard leaves open)
        shard = rng.choice([k for k in layers if k.endswith((".in_proj_z", ".k_proj", ".up_proj"))] or [None])
        if shard is not None:
            layers[shard] = _mixed_entry(rng.choice([a for a in _MIXED_ALGOS if a != layers[shard]["quant_algo"]]))
    ignore = ["mtp*", "mtp.layers.0*"]
    roll = rng.random()
    if roll < 0.1:
        ignore.append("lm_head")
    elif roll < 0.2:
        ignore.append(f"model.language_model.layers.{rng.randrange(len(text['layer_types']))}.*")
    q: dict = {"quantized_layers": layers, "ignore": ignore, "quant_algo": "MIXED_PRECISION",
               "producer": {"name": "modelopt", "version": "0.45.0"}, "quant_method": "modelopt"}
    if rng.random() < 0.3:
        q["kv_cache_scheme"] = {"dynamic": False, "num_bits": 8, "type": "float"}
    return q


def qwen3_6_mixed_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` Qwen3.5 configs as qwen3_5_variants draws them, quantized as NVIDIA's Qwen3.6 MIXED_PRECISION exports
    (_qwen3_6_mixed; the model dtype bfloat16, as the exports write it)."""
    out = []
    for case in qwen3_5_variants(rng, n):
        cfg = case["config"]
        cfg["torch_dtype"] = "bfloat16"
        cfg["quantization_config"] = _qwen3_6_mixed(rng, cfg)
        case["engine_args"].pop("quantization", None)
        out.append(case)
    return out


def run_qwen3_6_mixed(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` MIXED_PRECISION Qwen3.5 / Qwen3.6 configs (qwen3_6_mixed_variants) at ``n_layouts`` of
    QWEN3_5_LAYOUTS each in the release and compare (tools/quant_differential.py --qwen3-6-mixed)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9900 + 3)
    cases = []
    for case in wrapper_host(version, qwen3_6_mixed_variants(rng, n)):
        if not resolve(version).within("0.24.0"):
            # the oracle's CPU platform refuses an FP8 KV cache with chunked prefill and prefix caching up to 0.23.x
            # (a limit of the CPU host, not of the CUDA launch): the drawn KV-cache scheme is left out there
            case["config"]["quantization_config"].pop("kv_cache_scheme", None)
        text = case["config"]["text_config"]
        case["layouts"] = draw_layouts(rng, QWEN3_5_LAYOUTS, text["num_attention_heads"], n_layouts,
                                       experts="num_experts" in text)
        cases.append(case)
    return _with_layer_lists(version, python, python_env, cases, [])


@pytest.mark.parametrize("version", QWEN3_6_MIXED_SAMPLE)
def test_qwen3_6_mixed_construction_agrees(version):
    report = run_qwen3_6_mixed(version, int(os.environ.get("KVG_QWEN3_6_MIXED_CONFIGS", "4")),
                               int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "Qwen3.6 MIXED_PRECISION", "qwen3-6-mixed-construction", lists_agree=None)


def _with_layer_lists(version: str, python: str, python_env: dict, cases: list[dict], lists: list[dict], *,
                      refused_both=None) -> dict:
    """The oracle builds ``cases`` (their refusals compared by :func:`compare`) and ``lists`` (configs recorded at
    tp 1, whose layer lists are compared with kvguard's).  ``refused_both(config)``: a listed config the oracle could
    not set up and kvguard refuses too is counted apart (``config_refused_both``)."""
    out = run_runner("quant_runner.py", python, python_env, cases + lists)
    report = compare(version, cases, {"results": out["results"][:len(cases)]})
    counts = report["layer_lists"] = {"agree": 0, "disagree": 0}
    if refused_both is not None:
        counts["config_refused_both"] = 0
    for case, res in zip(lists, out["results"][len(cases):]):
        config = case["config"]
        if refused_both is not None and "setup_error" in res and refused_both(config):
            counts["config_refused_both"] += 1
            continue
        rec = res.get("outcomes", [{}])[0]
        mine = layer_list(config, version)
        theirs = oracle_list(rec.get("layers", [])) if rec.get("ok") else res.get("setup_error") or rec
        if mine == theirs:
            counts["agree"] += 1
            continue
        counts["disagree"] += 1
        listed = theirs if isinstance(theirs, list) else []
        report["mismatches"].append({
            "arch": config.get("architectures"),
            "first_differences": [(a, b) for a, b in zip(mine, listed) if a != b][:4],
            "lengths": [len(mine), len(listed) if isinstance(theirs, list) else theirs],
            "layer_list_kvguard": mine[:12], "layer_list_oracle": listed[:12] if listed else theirs})
    return report


def layer_list(cfg: dict, version: str) -> list[tuple]:
    """kvguard's layers of a config at tp=1, as (prefix, class, input, outputs) for comparison."""
    facts = model_facts(cfg, vllm_version=version)
    fam = family_of(facts.architectures)
    out = []
    release = resolve(version)
    built = layers(facts.resolved, fam, release, facts.architectures)
    for module, names in TOWER_WRAPPERS:
        # the vision tower of each wrapper kvguard.quant asks (kvguard.quant.wrappers), before the language model;
        # unquantized (the lists are the configs' at tp 1 without a method)
        architecture = next((a for a in facts.architectures if a in names), None)
        if architecture is not None:
            wrapper = import_module(f"kvguard.quant.{module}")
            built = wrapper.tower_layers(facts.resolved_top, architecture, None, release) + built
    if fam == "llama4":
        # the vision model and the projector (kvguard.quant.llama4), before the language model
        built = llama4.tower_layers(facts.resolved_top, facts.resolved.get("hidden_size")) + built
    for layer in built:
        if layer.kind in ("check", "vocab"):
            continue
        if layer.kind == "moe":
            experts, hidden, inter, _ = layer.moe
            out.append((layer.prefix, "FusedMoE", experts, hidden, inter))
        elif layer.kind == "qkv":
            hidden, head, heads, kv = layer.qkv
            out.append((layer.prefix, "QKVParallelLinear", hidden,
                        (heads * head, kv * head, kv * (layer.v_head_size or head))))
        else:
            cls = {"merged": "MergedColumnParallelLinear", "column": "ColumnParallelLinear", "row": "RowParallelLinear",
                   "replicated": "ReplicatedLinear"}[layer.kind]
            out.append((layer.prefix, cls, layer.input_size, tuple(layer.output_sizes)))
    return out


def oracle_list(records: list[dict]) -> list[tuple]:
    """The oracle's recorded layers kvguard's lists hold: the decoders' and the vision towers kvguard builds
    (Gemma 3's SigLIP under ``vision_tower.vision_model.``, Intern-S1's InternViT under ``vision_tower.encoder.layer.``;
    Gemma 4's and Kimi-K2.5's towers, also under ``vision_tower.``, are not in kvguard's lists)."""
    out = []
    for r in records:
        if not (r.get("prefix") or "").startswith(("model.layers.", "language_model.model.layers.", "language_model.layers.",
                                                     "visual.", "vision_model.", "multi_modal_projector.",
                                                     "vision_tower.vision_model.", "vision_tower.encoder.layer.")):
            continue
        if r["class"] == "FusedMoE":
            out.append((r["prefix"], "FusedMoE", r["experts"], r["hidden"], r["intermediate_per_partition"]))
        elif r["class"] == "QKVParallelLinear":
            out.append((r["prefix"], r["class"], r["input_size"], tuple(r["output_sizes"])))
        elif r["class"] == "MergedColumnParallelLinear":
            out.append((r["prefix"], r["class"], r["input_size"], tuple(r["output_sizes"])))
        else:
            out.append((r["prefix"], r["class"], r["input_size"], (r["output_size"],)))
    return out


#: MoE checkpoints of every family kvguard builds (kvguard/catalog), and the first release each is built in
EPLB_MODEL_BASES = (("Qwen/Qwen3-30B-A3B", "0.10.2"), ("deepseek-ai/DeepSeek-V2-Lite", "0.10.2"),
                    ("mistralai/Mixtral-8x7B-v0.1", "0.10.2"), ("MiniMaxAI/MiniMax-M2.5", "0.24.0"),
                    ("openai/gpt-oss-20b", "0.10.2"), ("google/gemma-4-26B-A4B", "0.28.0"),
                    ("zai-org/GLM-4.5-Air", "0.10.2"), ("Qwen/Qwen3.5-35B-A3B", "0.17.0"),
                    ("XiaomiMiMo/MiMo-V2-Flash", "0.24.0"), ("baidu/ERNIE-4.5-21B-A3B-PT", "0.10.2"))
#: the releases whose worker code was read for --enable-eplb with a model that implements no MixtureOfExperts
#: (W_eplb_no_moe_model): CI builds the models in a sample, the oracle run of each release by hand
EPLB_MODEL_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.11.0", "0.24.0", "0.28.0"))


def eplb_model_cases(version: str) -> list[dict]:
    """One small build (tp 1) of each MoE family the release builds."""
    from packaging.version import Version

    cases = []
    for base, since in EPLB_MODEL_BASES:
        if Version(version.split("+")[0]) < Version(since):
            continue
        cfg = copy.deepcopy(catalog.lookup(base).config)
        cfg.pop("auto_map", None)
        text = cfg.get("text_config") or cfg
        text["num_hidden_layers"] = min(text.get("num_hidden_layers", 2), max(2, (text.get("first_k_dense_replace")
                                                                                   or 0) + 1))
        if "layer_types" in text:
            text["layer_types"] = text["layer_types"][:text["num_hidden_layers"]]
        cases.append({"config": cfg, "layouts": [{"tp": 1}]})
    return cases


@pytest.mark.parametrize("version", EPLB_MODEL_SAMPLE)
def test_eplb_registration_of_the_model_agrees(version):
    """kvguard's fact behind W_eplb_no_moe_model — whether the model, or a multimodal model's language model,
    implements MixtureOfExperts (the family's ``mixture_of_experts``) — against the release's own
    ``is_mixture_of_experts`` on the built model."""
    python, python_env = _python(version)
    cases = eplb_model_cases(version)
    out = run_runner("quant_runner.py", python, python_env, cases)
    release = resolve(version)
    seen = []
    for case, res in zip(cases, out["results"]):
        rec = (res.get("outcomes") or [{}])[0]
        arch = case["config"]["architectures"][0]
        assert rec.get("ok"), (arch, res.get("setup_error"), rec.get("message"))
        facts = model_facts(case["config"], vllm_version=version)
        family = family_of(facts.architectures)
        assert family is not None, arch
        kvguard_registers = implements_moe(family, release)
        oracle_registers = rec["moe_model"]["model"] or bool(rec["moe_model"]["language_model"])
        seen.append((arch, oracle_registers))
        assert kvguard_registers == oracle_registers, (arch, rec["moe_model"])
    print(f"\nvLLM {version}: the models EPLB registers agree: {seen}")
    assert len(seen) == len(cases) >= 4


#: Intern-S1's wrapper (InternS1ForConditionalGeneration, registered for transformers' InternVLForConditionalGeneration
#: too: kvguard.quant.interns1's InternViT tower, then the qwen3_moe family's language model).  The configs are
#: transformers' InternVL form (model type internvl, which every release's transformers reads; Intern-S1's own
#: config.json names remote code), with Qwen/Qwen3-235B-A22B's text config (Intern-S1's language model) and towers of
#: InternViT sizes: (hidden, heads, intermediate) of InternViT-6B (Intern-S1's, per InternLM's xtuner config), of
#: InternViT-300M, and widths tp splits unevenly
INTERNS1_TOWERS = ((3200, 25, 12800), (1024, 16, 4096), (3200, 25, 12802), (1024, 16, 4100), (1536, 24, 6144))
#: the layouts drawn (tp up to 16, data / expert parallel, EPLB with redundant experts)
INTERNS1_LAYOUTS = ({"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 2, "dp": 4}, {"tp": 8, "dp": 2},
                    {"tp": 1, "dp": 8, "ep": True}, {"tp": 4, "dp": 2, "ep": True},
                    {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 8})


def _interns1_base(layers: int, depth: int) -> dict:
    text = copy.deepcopy(catalog.lookup("Qwen/Qwen3-235B-A22B").config)
    for key in ("torch_dtype", "transformers_version"):
        text.pop(key, None)
    text["num_hidden_layers"] = layers
    vision = {"model_type": "internvl_vision", "hidden_size": 3200, "num_attention_heads": 25,
              "intermediate_size": 12800, "num_hidden_layers": depth, "use_qk_norm": True, "norm_type": "rms_norm",
              "image_size": [448, 448], "patch_size": [14, 14]}
    return {"architectures": ["InternVLForConditionalGeneration"], "model_type": "internvl", "downsample_ratio": 0.5,
            "projector_hidden_act": "gelu", "image_token_id": 151671, "text_config": text, "vision_config": vision}


def interns1_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` InternVL-form configs (see INTERNS1_TOWERS) cut to 2 language-model layers and 1-2 tower layers, with
    varied sizes (the tower, the experts' intermediate size and count, a dense layer through mlp_only_layers) and
    quantization: block FP8 (blocks of 128 or 64; ignored_layers naming the tower, the first layer's attention, or
    nothing), online FP8 (``--quantization fp8``), unquantized; one in five with ``--mm-encoder-tp-mode data``; one
    in ten with a Qwen3 dense language model (not walked: undecided)."""
    out = []
    while len(out) < n:
        cfg = _interns1_base(2, rng.choice([1, 2]))
        text, vision = cfg["text_config"], cfg["vision_config"]
        if rng.random() < 0.6:
            vision["hidden_size"], vision["num_attention_heads"], vision["intermediate_size"] = rng.choice(
                INTERNS1_TOWERS)
        text["moe_intermediate_size"] = rng.choice([1536, 768, 1024, 640, 1408])
        text["num_experts"] = rng.choice([128, 64, 96])
        if rng.random() < 0.2:
            text["mlp_only_layers"] = [0]
        if rng.random() < 0.1:
            text["architectures"], text["model_type"] = ["Qwen3ForCausalLM"], "qwen3"
        kind = rng.choice(["fp8", "fp8", "online", "none"])
        engine: dict = {}
        if kind == "fp8":
            names = rng.choice([[f"model.vision_tower.encoder.layer.{n}.mlp.{fc}" for n in range(
                vision["num_hidden_layers"]) for fc in ("fc1", "fc2")],
                ["model.language_model.layers.0.self_attn.q_proj", "model.language_model.layers.0.self_attn.k_proj",
                 "model.language_model.layers.0.self_attn.v_proj"], []])
            cfg["quantization_config"] = _block_fp8(rng, {"ignored_layers": names})
        elif kind == "online":
            engine["quantization"] = "fp8"
        out.append(_wrapper_case(rng, cfg, engine))
    return out


def run_interns1(version: str, n: int, seed: int = 7, n_layouts: int = 6) -> dict:
    """Build ``n`` InternVL-form configs (interns1_variants) at ``n_layouts`` of INTERNS1_LAYOUTS (those tp the text
    heads allow) in the release and compare; the layer list of the base (two decoder layers, one tower layer,
    unquantized, tp 1) too (tools/quant_differential.py --interns1)."""
    python, python_env = _python(version)
    rng = random.Random(seed * 9900 + 1)
    cases = []
    for case in wrapper_host(version, interns1_variants(rng, n)):
        heads = case["config"]["text_config"]["num_attention_heads"]
        case["layouts"] = draw_layouts(rng, INTERNS1_LAYOUTS, heads, n_layouts)
        cases.append(case)
    host = {"swap_space": 0} if resolve(version).within(None, WRAPPER_SWAP_UNTIL) else {}
    return _with_layer_lists(version, python, python_env, cases, [{"config": _interns1_base(2, 1),
                                                                   "layouts": [{"tp": 1}], "record": True,
                                                                   "engine_args": host}])


#: Intern-S1's / InternVL's wrapper in CI: the first release, 0.24.0 (the first reading the InternVL config with
#: transformers 5) and the last (the full runs: tools/quant_differential.py --interns1 N)
INTERNS1_SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.24.0",))


@pytest.mark.parametrize("version", INTERNS1_SAMPLE)
def test_interns1_construction_agrees(version):
    report = run_interns1(version, int(os.environ.get("KVG_INTERNS1_CONFIGS", "3")),
                          int(os.environ.get("KVG_DIFF_SEED", "7")), n_layouts=3)
    _check_family_report(report, version, "Intern-S1 / InternVL", "interns1-construction")


#: the golden cases' config (tools/record_golden_quant.py mi-internvl-s1-*): the InternVL form at Intern-S1's full
#: sizes (94 Qwen3-MoE layers, 45 InternViT-6B layers)
INTERNS1_CONFIG = _interns1_base(94, 45)
