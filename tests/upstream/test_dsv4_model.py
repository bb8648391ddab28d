"""DeepSeek-V4's model construction (kvguard.quant.dsv4): kvguard vs the release building its CUDA model.

The configs start from the real DeepSeek-V4-Flash / -Pro configs (kvguard/catalog, each with its source), cut to
four decoder layers (a hash-routed MoE layer, a sliding-window one, one with the indexer and compressor, one
with the compressor only), with one or more of the sizes the construction reads changed: attention heads,
output groups and their LoRA rank, query LoRA rank, hidden size, vocabulary, routed and shared experts (also 0, null
or the key left out), MoE intermediate size (also under one block), the experts' dtype (fp8, an unknown one, null,
left out) (the attention geometry stays the released one: kvguard.quant.dsv4 leaves another open).  Layouts: tp (also sizes ModelConfig refuses: the runner sets the layout after the config is
built, so the attention module's own assert is reached), tp x dp, expert parallel, EPLB with redundant experts.

The oracle (tests/upstream/quant_runner.py) builds ``vllm.models.deepseek_v4.nvidia.model.DeepseekV4ForCausalLM``
(0.20.x - 0.21.0: ``vllm.model_executor.models.deepseek_v4``) — the class a CUDA host's registry loads — on the meta
device, with the DeepSeek-V4 modules and the MoE /
MXFP4 backend selection seeing the default host (CUDA compute capability 9.0): the release's own
``select_deepseek_v4_mxfp4_moe_backend`` picks the FP4 experts' backend, recorded per case (Marlin on that
host).  Compared: accepted or not, exception type and message (tests/upstream/test_quant.py's ``compare``).

Each config draws a --kv-cache-dtype (the attention asserts an fp8 one; before 0.30.0 auto too); the runner sets it
after the engine config (the CPU platform refuses an FP8 cache with chunked prefill, or resets it to auto), as a
CUDA host keeps it; and may name --moe-backend marlin, or for FP4 experts a name the release's MXFP4 map lacks
(cutlass, batched_triton, ...: refused on every GPU; from 0.21.0), or for FP8 experts one the FP8 map lacks
(flashinfer_cutedsl, emulation: refused from 0.20.1), or a name whose kernel the GPU decides (triton, deep_gemm,
flashinfer_*, ...: every layer before the routed experts and FusedMoE's own checks decided, the experts left open —
the runner's FP8 MoE stand-in keeps the release's own name map), --all2all-backend allgather_reducescatter and an
--attention-backend the release has (FLASHINFER_MLA_SPARSE / _SM120 refused from 0.24.0, FlashMLA's and others
building the default class) (the launch facts kvguard decides).  Pinned configs follow the drawn ones: 256 heads
(tp 1 / 2), 768 heads in 6 groups (tp 3 / 6: 0.27.0 - 0.28.0 ask FlashMLA before the embedding), 200 routed experts
(tp 16 / 8: the bare assert before 0.24.0), no shared experts (0 at tp 1 / 8, the key left out at tp 4), FP8 experts
of 1536 (tp 8 / 16), expert dtype bf16 (tp 8, marlin named), --moe-backend cutlass (tp 8, and tp 4 with EPLB and two
redundant experts; marlin on 0.20.x), FP8 experts with 256 heads, the auto KV cache and --moe-backend triton
(tp 1 / 4) and with --moe-backend emulation (tp 8, and tp 4 with EPLB and two redundant experts),
--attention-backend FLASHINFER_MLA_SPARSE with 256 heads (tp 1 / 4).

NVIDIA's ModelOpt NVFP4 exports (nvidia/DeepSeek-V4-Flash-NVFP4 / -Pro-NVFP4: block-FP8 linears, ``moe_quant_algo:
NVFP4``, an ``ignore`` list) are drawn too (KVG_DSV4_NVFP4 configs, default 2, plus two pinned): the same sizes, and the
algorithm as written (NVFP4 / nvfp4 / FP8 / empty), the experts' ``swiglu_limit`` (10.0, 7, null before 0.24.0) and an
``ignore`` list naming no experts; --moe-backend auto mostly, else a name the NVFP4 map lacks (triton, deep_gemm:
refused on every GPU; one pinned), one whose backend does not apply the SwiGLU clamp (flashinfer_b12x, cutlass
before 0.28.0, marlin before 0.24.0: refused on every GPU; one pinned) or one whose kernel the GPU decides (left open
at the experts); the runner runs the release's own NVFP4 MoE selection on the CUDA 9.0 stand-in (``_dsv4_nvfp4_selection``)
and records the backend.

Releases: KVG_ORACLE_VERSIONS from 0.20.0 (CI: 0.20.0, 0.23.0, 0.30.0, 0.31.0 and the last); size: KVG_DSV4_CONFIGS
configs x 6 of the layouts below, plus the pinned ones (default 4 x 6 + 20 and 2 x 6 + 6 NVFP4, 62 cases a release);
``KVG_DIFF_REPORT_DIR`` keeps ``dsv4-model-<release>.json``.  Full runs:
``python -m tests.upstream.test_dsv4_model V [configs] [seed] [nvfp4 configs]``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys

import pytest

from kvguard import catalog

from ._oracle import check_launch_report, release_sample, run_runner
from ._oracle import oracle_or_skip as _python
from .test_quant import compare

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.30.0 0.33.0").split()
#: kvguard decides DeepSeek-V4's construction from 0.20.0 (kvguard.quant.dsv4.SINCE); CI: 0.20.0 (the first
#: layout), 0.23.0 (NVFP4 experts with a SwiGLU clamp find no backend on compute capability 9.0), 0.30.0 and 0.31.0
#: (auto KV cache read as fp8; the experts-over-tp assert dropped) and the last
SAMPLE = release_sample(VERSIONS, "0.20.0", also=("0.23.0", "0.30.0", "0.31.0"))

BASES = ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro")
#: ModelOpt's NVFP4 exports (FP8 block linears, NVFP4 routed experts: moe_quant_algo NVFP4, ignore list, group 16)
NVFP4_BASES = ("nvidia/DeepSeek-V4-Flash-NVFP4", "nvidia/DeepSeek-V4-Pro-NVFP4")
#: what an NVFP4 variant may change besides CHOICES: the algorithm as written (case, another one: MXFP4 experts), the
#: SwiGLU clamp (null: every NVFP4 backend is a candidate; drawn only before 0.24.0, whose config classes take null)
#: and an ignore list naming no main layer's experts (one that does, from 0.32.0, stays open: KVG_DSV4_OPEN=1)
NVFP4_CHOICES = {
    "moe_quant_algo": ["NVFP4", "nvfp4", "NVFP4", "FP8", ""],
    "swiglu_limit": [10.0, 10.0, 7, "NULL"],
    "ignore": [["*.attn.*", "*.ffn.shared_experts.*", "head", "mtp.*"], ["mtp.*"], None, "NULL"],
}

#: the sizes a variant may change, with values that divide (or not) by the layouts' tp and the 128 blocks
CHOICES = {
    "num_attention_heads": [64, 128, 48, 96, 256],
    "o_groups": [8, 16, 4, 6, 12],
    "o_lora_rank": [1024, 512, 1000, 768],
    "q_lora_rank": [1024, 1536, 1000],
    "hidden_size": [4096, 7168, 3072],
    "vocab_size": [129280, 129281, 100000],
    "n_routed_experts": [256, 384, 96, 200, 72],
    # 0: empty shared experts; None: the key removed (no default before 0.33.0); NULL: null (none built)
    "n_shared_experts": [1, 2, 0, None, "NULL"],
    # 96: under one weight block (0.24.0+ rounds the shared experts to none)
    "moe_intermediate_size": [2048, 3072, 1536, 1000, 768, 2112, 96],
    # fp8: block-FP8 experts (0.20.1+; 0.20.0 ignores the key); another value (or null) refused from 0.20.1
    "expert_dtype": ["fp4", "fp8", "fp8", "bf16", None, "NULL"],
}

#: tp (powers of two, and 3 / 6 / 12), tp x dp without expert parallel, expert parallel, EPLB with redundant experts
LAYOUTS = [{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 8}, {"tp": 16}, {"tp": 32}, {"tp": 3}, {"tp": 6}, {"tp": 12},
           {"tp": 2, "dp": 4}, {"tp": 8, "dp": 2}, {"tp": 4, "dp": 3}, {"tp": 1, "dp": 8, "ep": True},
           {"tp": 2, "dp": 4, "ep": True}, {"tp": 4, "dp": 2, "ep": True, "eplb": True, "redundant": 8},
           {"tp": 8, "ep": True, "eplb": True, "redundant": 2}, {"tp": 4, "ep": True, "eplb": True, "redundant": 6},
           {"tp": 1, "dp": 6, "ep": True, "eplb": True, "redundant": 0}]


#: --moe-backend / --all2all-backend drawn per config (None: not given)
MOE_BACKENDS = [None, None, "marlin"]
#: --moe-backend names the release takes but its MXFP4 map lacks (refused by the FP4 experts' method on every GPU),
#: by the first release that has them: drawn for FP4 experts only (with FP8 experts a named backend stays open)
UNMAPPED_MOE_BACKENDS = {"cutlass": "0.20.0", "flashinfer_cutedsl": "0.20.0", "flashinfer_b12x": "0.22.0",
                         "flydsl": "0.24.0", "hpc": "0.25.0", "batched_triton": "0.27.0", "rdna3": "0.30.0"}


#: --moe-backend names every release from 0.20.0 takes whose kernel's support is a question of the GPU: the layers
#: before the experts are decided, the experts left open (kvguard.quant.dsv4.experts_backend_open)
GPU_MOE_BACKENDS = ["triton", "deep_gemm", "cutlass", "flashinfer_cutlass", "flashinfer_trtllm"]
#: names every release from 0.20.0 takes that the FP8 experts' map lacks (refused on every GPU from 0.20.1)
FP8_UNMAPPED_MOE_BACKENDS = ["flashinfer_cutedsl", "emulation"]
#: the draw for the NVFP4 variants (None: --moe-backend auto, decided; triton / deep_gemm: names the NVFP4 map
#: lacks, refused on every GPU; with a SwiGLU clamp, a backend that does not apply it (flashinfer_b12x everywhere,
#: cutlass before 0.28.0, marlin before 0.24.0) refused on every GPU too; the rest left open at the experts)
NVFP4_MOE_BACKENDS = [None, None, None, "marlin", "triton", "deep_gemm", "flashinfer_cutlass", "flashinfer_trtllm",
                      "cutlass", "flashinfer_b12x"]


def moe_backends(version: str, cfg: dict) -> list:
    from kvguard.versions import resolve

    if cfg.get("expert_dtype", "fp4") != "fp4" and resolve(version).within("0.20.1"):
        return MOE_BACKENDS + GPU_MOE_BACKENDS + FP8_UNMAPPED_MOE_BACKENDS
    release = resolve(version)
    if not release.within("0.21.0"):
        # 0.20.x's FP4 experts ask the generic MXFP4 selection, which the runner stands in for gpt-oss: not shown
        return MOE_BACKENDS + ["triton", "flashinfer_cutlass"]
    unmapped = [name for name, since in UNMAPPED_MOE_BACKENDS.items() if release.within(since)][-2:]
    return MOE_BACKENDS + unmapped + ["triton", "deep_gemm", "flashinfer_trtllm"]
ALL2ALL_BACKENDS = [None, None, "allgather_reducescatter"]

#: --attention-backend drawn per config, only from the names the release has (None: not given): before 0.23.0 the
#: model does not read it; the generic FlashInfer sparse-MLA names are refused from 0.24.0, the rest build FlashMLA's
#: class on compute capability 9.0 (FLASHINFER_MLA_SPARSE_DSV4, DeepSeek-V4's FlashInfer class from 0.23.0, stays
#: open: drawn only with KVG_DSV4_OPEN=1, where the run counts it undecided)
_OPEN = ["FLASHINFER_MLA_SPARSE_DSV4"] if os.environ.get("KVG_DSV4_OPEN") else []
ATTENTION_BACKENDS = {"0.20.0": [None, None, None, "FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE", "TRITON_MLA"],
                      "0.23.0": [None, None, None, "FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE_DSV4", "FLASH_ATTN"]
                      + _OPEN,
                      "0.24.0": [None, None, None, "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120",
                                 "FLASHMLA_SPARSE", "FLASHMLA_SPARSE_DSV4", "TRITON_MLA"] + _OPEN}


def attention_backends(version: str) -> list:
    from kvguard.versions import resolve

    release = resolve(version)
    return next(v for since, v in reversed(ATTENTION_BACKENDS.items()) if release.within(since))


#: --kv-cache-dtype: the sparse-MLA attention's FP8 block layout takes fp8 only (before 0.30.0 not even auto)
KV_CACHE_DTYPES = ["fp8", "fp8", "auto", "fp8_e4m3", "bfloat16"]
#: the NVFP4 variants mostly reach their experts
NVFP4_KV_CACHE_DTYPES = ["fp8", "fp8", "fp8_e4m3", "auto"]


def cut(config: dict) -> dict:
    """Four decoder layers: two hash-routed MoE layers with sliding-window attention, one with the indexer and
    compressor (ratio 4), one with the compressor only (ratio 128)."""
    out = copy.deepcopy(config)
    out["num_hidden_layers"] = 4
    out["compress_ratios"] = [0, 0, 4, 128, 0]
    out["num_hash_layers"] = min(out.get("num_hash_layers", 3), 2)
    return out


def _vary(rng: random.Random, cfg: dict) -> None:
    """One to three of CHOICES' sizes drawn into ``cfg`` (None: the key dropped, "NULL": set to null)."""
    for key in rng.sample(sorted(CHOICES), rng.choice([1, 2, 3])):
        value = rng.choice(CHOICES[key])
        if value is None:
            cfg.pop(key, None)
        elif value == "NULL":
            cfg[key] = None
        else:
            cfg[key] = value


def variants(rng: random.Random, n: int) -> list[dict]:
    configs = [cut(catalog.lookup(base).config) for base in BASES]
    out = list(configs)
    while len(out) < n:
        cfg = copy.deepcopy(rng.choice(configs))
        _vary(rng, cfg)
        out.append(cfg)
    return out[:n]


def nvfp4_variants(rng: random.Random, n: int, version: str) -> list[dict]:
    """The NVFP4 exports cut to four layers, then variants: one to three of CHOICES' sizes and one or two of
    NVFP4_CHOICES (in the checkpoint's quantization_config)."""
    from kvguard.versions import resolve

    release = resolve(version)
    configs = [cut(catalog.lookup(base).config) for base in NVFP4_BASES]
    out = list(configs)
    open_ignore = [["layers.0.ffn.experts"], ["*.ffn.experts"]] if _OPEN else []
    while len(out) < n:
        cfg = copy.deepcopy(rng.choice(configs))
        q = cfg["quantization_config"]
        _vary(rng, cfg)
        for key in rng.sample(sorted(NVFP4_CHOICES), rng.choice([1, 2])):
            values = NVFP4_CHOICES[key] + (open_ignore if key == "ignore" else [])
            value = rng.choice(values)
            if key == "swiglu_limit":
                if value == "NULL" and not release.within("0.24.0"):
                    cfg[key] = None
                elif value != "NULL":
                    cfg[key] = value
            elif value is None:
                q.pop(key, None)
            elif value == "NULL":
                q[key] = None
            else:
                q[key] = value
        out.append(cfg)
    return out[:n]


def run(version: str, n_configs: int, n_layouts: int = 6, seed: int = 7, n_nvfp4: int = 0) -> dict:
    from kvguard.versions import resolve

    python, python_env = _python(version)
    rng = random.Random(seed)
    cases = []
    for cfg in variants(rng, n_configs):
        engine = {"kv_cache_dtype": rng.choice(KV_CACHE_DTYPES)}
        # the launch-fact backends: marlin named (what auto selects for the FP4 experts on sm_90; FP8 experts
        # with it stay open) and the default all2all backend named (every release from 0.20.0 has both flags)
        for key, values in (("moe_backend", moe_backends(version, cfg)), ("all2all_backend", ALL2ALL_BACKENDS)):
            value = rng.choice(values)
            if value is not None:
                engine[key] = value
        attention = rng.choice(attention_backends(version))
        if attention is not None:
            engine["attention_backend"] = attention
        cases.append({"config": cfg, "layouts": rng.sample(LAYOUTS, n_layouts), "engine_args": engine,
                      "kv_after_config": True})
    flash = cut(catalog.lookup(BASES[0]).config)
    # pinned: more heads a rank than FlashMLA takes (256 at tp 1 / 3, and where 0.27.0 - 0.28.0 ask before the
    # embedding's vocabulary check: 768 heads at tp 3), and routed experts tp does not divide (the bare assert
    # before 0.24.0)
    cases += [{"config": dict(flash, num_attention_heads=256), "layouts": [{"tp": 1}, {"tp": 2}],
               "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
              {"config": dict(flash, num_attention_heads=768, o_groups=6), "layouts": [{"tp": 3}, {"tp": 6}],
               "engine_args": {"kv_cache_dtype": "auto"}, "kv_after_config": True},
              {"config": dict(flash, n_routed_experts=200), "layouts": [{"tp": 16}, {"tp": 8}],
               "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
              # no shared experts: empty ones (split by tp: a ZeroDivisionError), the key missing (an
              # AttributeError before 0.33.0)
              {"config": dict(flash, n_shared_experts=0), "layouts": [{"tp": 1}, {"tp": 8}],
               "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
              {"config": {k: v for k, v in flash.items() if k != "n_shared_experts"}, "layouts": [{"tp": 4}],
               "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
              # FP8 experts (0.20.1+; 0.20.0 builds MXFP4 ones): 1536 / 8 = 192 and / 16 = 96 a rank, not whole
              # blocks (refined for Triton from 0.29.0), and an expert dtype no release takes (a ValueError from 0.20.1)
              {"config": dict(flash, expert_dtype="fp8", moe_intermediate_size=1536),
               "layouts": [{"tp": 8}, {"tp": 16}], "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
              {"config": dict(flash, expert_dtype="bf16"), "layouts": [{"tp": 8}],
               "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "marlin"}, "kv_after_config": True},
              # a --moe-backend the MXFP4 map lacks (the FP4 experts' method refuses it after FusedMoE's checks:
              # 256 + 2 redundant experts at tp 4 with EP: 0.24.0 - 0.30.0's tp assert or EPLB's even split first;
              # before 0.24.0 EPLB's arguments are not passed and the name is refused)
              {"config": flash, "layouts": [{"tp": 8}, {"tp": 4, "ep": True, "eplb": True, "redundant": 2}],
               "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "cutlass" if resolve(version).within("0.21.0")
                               else "marlin"}, "kv_after_config": True},
              # FP8 experts (0.20.1+) with a named backend: the layers before them decided (here the auto KV cache
              # before 0.30.0, FlashMLA's heads at tp 1 / 4), the experts left open; a name the FP8 map lacks
              # refused after FusedMoE's checks (EPLB's even split of 256 + 2 experts at tp 4 from 0.24.0 first)
              {"config": dict(flash, expert_dtype="fp8", num_attention_heads=256), "layouts": [{"tp": 1}, {"tp": 4}],
               "engine_args": {"kv_cache_dtype": "auto", "moe_backend": "triton"}, "kv_after_config": True},
              {"config": dict(flash, expert_dtype="fp8"),
               "layouts": [{"tp": 8}, {"tp": 4, "ep": True, "eplb": True, "redundant": 2}],
               "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "emulation"}, "kv_after_config": True},
              # a generic FlashInfer sparse-MLA backend (refused by name from 0.24.0; 0.27.0 - 0.28.0 before the
              # head count; not read before 0.23.0)
              {"config": dict(flash, num_attention_heads=256), "layouts": [{"tp": 1}, {"tp": 4}],
               "engine_args": {"kv_cache_dtype": "fp8", "attention_backend": "FLASHINFER_MLA_SPARSE"},
               "kv_after_config": True}]
    # NVFP4 experts (0.22.0+; earlier releases build MXFP4 ones): the release's own NVFP4 MoE selection on
    # compute capability 9.0 with --moe-backend auto (the runner's _dsv4_nvfp4_selection)
    nvfp4_rng = random.Random(seed + 1)
    for cfg in nvfp4_variants(nvfp4_rng, n_nvfp4, version) if n_nvfp4 else ():
        engine = {"kv_cache_dtype": nvfp4_rng.choice(NVFP4_KV_CACHE_DTYPES)}
        backend = nvfp4_rng.choice(NVFP4_MOE_BACKENDS)
        if backend is not None and (backend != "flashinfer_b12x" or resolve(version).within("0.22.0")):
            engine["moe_backend"] = backend  # (flashinfer_b12x: a --moe-backend name from 0.22.0)
        cases.append({"config": cfg, "layouts": nvfp4_rng.sample(LAYOUTS, n_layouts), "engine_args": engine,
                      "kv_after_config": True})
    if n_nvfp4:
        flash4 = cut(catalog.lookup(NVFP4_BASES[0]).config)
        # pinned: a name the NVFP4 map lacks (refused on every GPU, before the SwiGLU clamp's test), and one whose
        # backend does not apply the clamp (swiglu_limit 10.0: refused on every GPU)
        cases += [{"config": flash4, "layouts": [{"tp": 8}], "engine_args": {"kv_cache_dtype": "fp8",
                                                                           "moe_backend": name},
                   "kv_after_config": True} for name in ("triton", "flashinfer_b12x")
                  if name == "triton" or resolve(version).within("0.22.0")]
        # pinned: the published export (0.22.0 - 0.23.x: no backend clamps on 9.0), with EPLB; the experts'
        # intermediate size tp does not divide with no shared experts (FusedMoE's assert before the selection)
        cases += [{"config": flash4, "layouts": [{"tp": 8}, {"tp": 4, "dp": 2, "ep": True, "eplb": True,
                                                            "redundant": 8}],
                   "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True},
                  {"config": dict(flash4, moe_intermediate_size=1000, n_shared_experts=None),
                   "layouts": [{"tp": 16}, {"tp": 8}], "engine_args": {"kv_cache_dtype": "fp8"},
                   "kv_after_config": True}]
    out = run_runner("quant_runner.py", python, python_env, cases)
    report = compare(version, cases, out)
    backends: dict = {}
    for res in out["results"]:
        for rec in res.get("outcomes", ()):
            for name in rec.get("mxfp4_backend") or ["(not reached)"]:
                backends[name] = backends.get(name, 0) + 1
    report["mxfp4_backends"] = backends
    return report


@pytest.mark.parametrize("version", SAMPLE)
def test_dsv4_construction_agrees(version):
    report = run(version, int(os.environ.get("KVG_DSV4_CONFIGS", "4")), seed=int(os.environ.get("KVG_DIFF_SEED", "7")),
                 n_nvfp4=int(os.environ.get("KVG_DSV4_NVFP4", "2")))
    c = report["counts"]
    c["undecidable"] = c["undecided"]  # the CI summary's name (.ci/run)
    print(f"\nMXFP4 backends {report['mxfp4_backends']}; by family {report['by_family']}")
    check_launch_report(report, "dsv4-model", "DeepSeek-V4 model construction")
    assert c["oracle_setup_failures"] == 0
    assert not unexpected_undecided(report["undecided"]), json.dumps(report["undecided"], indent=1)


#: the undecided forms the generator draws on purpose: the routed experts with a named --moe-backend whose kernel's
#: support is a question of the GPU (every layer before them decided), and with KVG_DSV4_OPEN DeepSeek-V4's
#: FlashInfer attention class
DRAWN_OPEN = ("DeepseekV4ForCausalLM's routed experts with --moe-backend ",) + tuple(
    f"--attention-backend {name} (" for name in _OPEN)


def unexpected_undecided(undecided: dict) -> dict:
    """The undecided launches (reason -> oracle outcome: count) that are not a form drawn open on purpose."""
    return {key: n for key, n in undecided.items() if not any(form in key for form in DRAWN_OPEN)}


if __name__ == "__main__":
    version = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    rep = run(version, n, n_layouts=int(os.environ.get("KVG_DSV4_LAYOUTS", "8")), seed=seed,
              n_nvfp4=int(sys.argv[4]) if len(sys.argv) > 4 else int(os.environ.get("KVG_DSV4_NVFP4", "2")))
    print(json.dumps({k: rep[k] for k in ("counts", "by_family", "mxfp4_backends", "undecided")}, indent=1))
    for m in rep["mismatches"][:int(os.environ.get("KVG_DSV4_SHOW", "12"))]:
        print(json.dumps(m, default=str))
