"""Nemotron-H's first Mamba-2 mixer at model construction (kvguard.quant.nemotron_h) against the releases.

The oracle (tests/upstream/quant_runner.py) builds ``NemotronHForCausalLM`` on the meta device for configs derived
from nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B (Mamba heads, groups, the first layer's letter, a ModelOpt NVFP4
hf_quant_config.json beside config.json or none) at tp 1 – 32, and the outcome is compared with kvguard's.  kvguard
decides the embedding and layer 0's mixer asserts; where they hold, a quantized checkpoint stays undecided (counted
as such) and an unquantized one is accepted by the general rule, which the CPU oracle cannot check past a MoE layer:
its ``relu2`` experts are refused by the CPU platform only (``is_act_and_mul=False is supported only for CUDA, XPU and
ROCm for now``), counted apart as ``oracle_cpu_only`` (a CUDA host passes that check).

Past the first mixer (:func:`nvfp4_variants`): ModelOpt NVFP4 exports with drawn sizes (hidden, Mamba head width,
attention heads / head size, MLP and shared-expert widths) and drawn exclusion lists in the export's ``backbone.``
names, built by the oracle with the non-gated experts' config check seeing the default CUDA host (quant_runner's
``_non_gated_moe_on_cuda``), compared with kvguard's verdict; where both accept, the layers the oracle built with the
NVFP4 linear method's input check (every linear layer but the Mamba conv1d and the MoE router) are compared, by
name and per-rank input, with kvguard.quant.nemotron_h.nvfp4_layers.  An unquantized config's experts then reach
the CPU platform's unquantized MoE backend selection, which has no backend for them (``No Unquantized MoE backend
supports the deployment configuration.``; on the default host Triton takes relu2 without a gate, 0.24.0+): counted
as ``oracle_cpu_only`` too.

The latent MoE (:func:`nvfp4_variants` with ``latent``): the same drawn NVFP4 exports of Nemotron-3-Super's config.json
(``moe_latent_size`` drawn), their layer lists including the replicated ``fc1_latent_proj`` / ``fc2_latent_proj``.

ModelOpt FP8 (``fp8``): the latent exports as per-tensor FP8, built with the release's FP8 linear method and the
Triton FP8 experts (quant_runner's default-host choice, whose activation check sees relu2 without a gate).

ModelOpt MIXED_PRECISION (:func:`mixed_variants`, ``mixed``): the latent exports as Nemotron-3-Super's published
MIXED_PRECISION form (config.json's flat quantization config) with a drawn per-layer ``quantized_layers`` table
(FP8 / NVFP4 / W4A16_NVFP4 / unlisted) and the drawn exclusions as its ``ignore`` list.

Run: ``python -m tests.upstream.test_nemotron_h V... [--configs N] [--nvfp4 N] [--latent N] [--fp8 N] [--mixed N]
[--seed S]``.
"""

from __future__ import annotations

import copy
import json
import os
import random

import pytest

from kvguard import catalog

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner
from .test_quant import _kvguard_source, keep_report, kvguard_outcome

pytestmark = pytest.mark.upstream

BF16 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
#: the latent-MoE base: Nemotron-3-Super's config.json (the catalog's copy; its abridged hf_quant_config.json unused)
SUPER = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8"
NVFP4 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
#: the MIXED_PRECISION base: Nemotron-3-Super's NVFP4 export (its config.json's quantization_config)
MIXED = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
#: the CPU platform's refusals of non-gated MoE activations (Nemotron-H's relu2 experts), which a CUDA host passes:
#: FusedMoEConfig's platform check (without quant_runner's stand-in) and the unquantized MoE backend selection
CPU_ONLY = ("is_act_and_mul=False is supported only for CUDA, XPU and ROCm for now",
            "No Unquantized MoE backend supports the deployment configuration.")
TPS = (1, 2, 4, 8, 16, 32)


def _entry(model: str):
    return catalog.lookup(model)


def variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` cases: the Nano config with drawn Mamba heads / groups / first layer, a short pattern (the oracle builds
    every layer), quantized (ModelOpt NVFP4, the checkpoint's own hf_quant_config.json) or not."""
    bf16 = _entry(BF16)
    nvfp4 = _entry(NVFP4)
    cases = []
    for k in range(n):
        cfg = copy.deepcopy(dict(bf16.config))
        cfg.pop("auto_map", None)  # the release's own NemotronHConfig, not the checkpoint's remote code
        cfg["mamba_num_heads"] = rng.choice((64, 64, 48, 24, 40, 128, 8))
        cfg["n_groups"] = rng.choice((8, 8, 1, 2, 4, 16, 3, 6, 32))
        first = rng.choice("MMMMMM*E-")
        pattern = first + "".join(rng.choice("MEM*") for _ in range(3))
        cfg["hybrid_override_pattern"] = pattern
        cfg["num_hidden_layers"] = len(pattern)
        case = {"config": cfg}
        if k % 2:
            case["files"] = {"hf_quant_config.json": copy.deepcopy(dict(nvfp4.hf_quant_config))}
        case["layouts"] = [{"tp": tp} for tp in TPS]
        cases.append(case)
    return cases


def _exclusions(rng: random.Random, pattern: str) -> list[str]:
    """An exclusion list in the export's names (``backbone.layers.i.mixer.*``, ``lm_head``): whole layers' projections
    as the released exports list them, now and then one shard of the fused qkv_proj or a wildcard."""
    names = ["lm_head"] if rng.random() < 0.7 else []
    projections = {"M": ("in_proj", "out_proj", "conv1d"), "*": ("q_proj", "k_proj", "v_proj", "o_proj"),
                   "E": ("shared_experts.up_proj", "shared_experts.down_proj", "fc1_latent_proj",
                         "fc2_latent_proj"), "-": ("up_proj", "down_proj")}
    for i, letter in enumerate(pattern):
        if rng.random() < 0.35:
            names += [f"backbone.layers.{i}.mixer.{p}" for p in projections[letter]]
        elif letter == "*" and rng.random() < 0.1:
            names.append(f"backbone.layers.{i}.mixer.k_proj")
    if rng.random() < 0.15:
        names.append(rng.choice(("backbone.layers.*.mixer.out_proj", "backbone.layers.*.mixer.o_proj",
                                 "*down_proj", "*latent_proj")))
    return names


def nvfp4_variants(rng: random.Random, n: int, latent: bool = False, fp8: bool = False) -> list[dict]:
    """``n`` ModelOpt NVFP4 exports of the Nano config past its first mixer: drawn sizes (some not a multiple of 16 per
    rank at some tp), a short pattern starting with a Mamba layer, a drawn exclusion list in ``backbone.`` names.
    ``latent``: Nemotron-3-Super's config instead, its latent MoE's width drawn (1024, the checkpoint's, or others,
    some not a multiple of 16).  ``fp8``: the same exports as ModelOpt FP8 (per-tensor, ``quant_algo`` FP8, the
    hf_quant_config.json's other keys kept), the Super config with its latent MoE."""
    base = _entry(SUPER if latent or fp8 else BF16)
    nvfp4 = _entry(NVFP4)
    cases = []
    for _ in range(n):
        cfg = copy.deepcopy(dict(base.config))
        cfg.pop("auto_map", None)
        cfg["mamba_num_heads"] = rng.choice((64, 64, 32, 48))
        cfg["mamba_head_dim"] = rng.choice((64, 64, 24, 40, 8))
        cfg["n_groups"] = rng.choice((8, 8, 1, 4))
        cfg["hidden_size"] = rng.choice((2688, 2688, 2048, 1000))
        cfg["num_attention_heads"] = rng.choice((32, 32, 24, 8))
        cfg["num_key_value_heads"] = rng.choice((2, 2, 4, 8))
        cfg["head_dim"] = rng.choice((128, 128, 72, 40, 64))
        cfg["intermediate_size"] = rng.choice((1856, 1856, 1000, 1800))
        cfg["moe_shared_expert_intermediate_size"] = rng.choice((3712, 3712, 1000, 1856))
        cfg["n_shared_experts"] = rng.choice((1, 1, 2))
        pattern = "M" + "".join(rng.choice("ME*-") for _ in range(4))
        cfg["hybrid_override_pattern"] = pattern
        cfg["num_hidden_layers"] = len(pattern)
        if latent or fp8:
            cfg["moe_latent_size"] = rng.choice((1024, 1024, 512, 1000, 264))
        quant = copy.deepcopy(dict(nvfp4.hf_quant_config))
        if fp8:
            quant["quantization"]["quant_algo"] = "FP8"
            quant["quantization"].pop("group_size", None)
        quant["quantization"]["exclude_modules"] = _exclusions(rng, pattern)
        cases.append({"config": cfg, "files": {"hf_quant_config.json": quant}, "record": True,
                      "layouts": [{"tp": tp} for tp in TPS]})
    return cases


#: the per-layer algorithms a MIXED_PRECISION export draws (None: the layer not listed, left unquantized)
_MIXED_ALGOS = ("FP8", "NVFP4", "W4A16_NVFP4", None)


def _mixed_layers(rng: random.Random, pattern: str) -> dict:
    """A quantized_layers table in the export's names (``backbone.layers.i.mixer.*``, ``lm_head``), as the Super
    NVFP4 export writes it (the experts listed per expert, ``experts.0.*``): each projection's algorithm drawn, the
    experts now and then unlisted (the lookup falls back to the MoE block's first listed projection, 0.23.0+), now
    and then the attention's q / k / v of different algorithms (a fused layer vLLM refuses)."""
    projections = {"M": ("in_proj", "out_proj"), "*": ("q_proj", "k_proj", "v_proj", "o_proj"),
                   "E": ("shared_experts.up_proj", "shared_experts.down_proj", "fc1_latent_proj",
                         "fc2_latent_proj", "experts.0.up_proj", "experts.0.down_proj"),
                   "-": ("up_proj", "down_proj")}
    table: dict = {}
    for i, letter in enumerate(pattern):
        unlisted_experts = rng.random() < 0.2
        qkv = rng.choice(_MIXED_ALGOS)
        for proj in projections[letter]:
            algo = qkv if proj in ("q_proj", "k_proj", "v_proj") and rng.random() < 0.85 else rng.choice(_MIXED_ALGOS)
            if proj.startswith("experts."):
                algo = None if unlisted_experts else rng.choice(("FP8", "NVFP4", "W4A16_NVFP4"))
            if algo is not None:
                table[f"backbone.layers.{i}.mixer.{proj}"] = {"quant_algo": algo, **(
                    {"group_size": 16} if algo != "FP8" else {})}
    head = rng.choice(_MIXED_ALGOS)
    if head is not None:
        table["lm_head"] = {"quant_algo": head, **({"group_size": 16} if head != "FP8" else {})}
    return table


def mixed_variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` MIXED_PRECISION exports of Nemotron-3-Super's config (the catalog's NVFP4 export: config.json's flat
    quantization_config with its per-layer quantized_layers table and ignore list), sizes drawn as for
    :func:`nvfp4_variants` with the latent MoE, the table and the ignore list drawn per layer."""
    real = _entry(MIXED)
    cases = []
    for case in nvfp4_variants(rng, n, latent=True):
        cfg = case["config"]
        quant = copy.deepcopy(dict(real.config["quantization_config"]))
        quant.pop("config_groups", None)  # what ModelOpt records of the export, which the config does not read
        quant["quantized_layers"] = _mixed_layers(rng, cfg["hybrid_override_pattern"])
        quant["ignore"] = case["files"]["hf_quant_config.json"]["quantization"]["exclude_modules"]
        cfg["quantization_config"] = quant
        cases.append({"config": cfg, "record": True, "mixed": True, "layouts": case["layouts"]})
    return cases


#: the layers the oracle records that the NVFP4 linear method's input check does not read (the Mamba conv1d is built
#: without the quantization config, the MoE router is a GateLinear)
_NOT_CHECKED = (".mixer.conv1d", ".mixer.gate")


def _layer_list_mismatch(rec: dict, cfg: dict, tp: int) -> "str | None":
    """Where the oracle's recorded linear layers (less conv1d and the router, before the LM head) differ from
    kvguard.quant.nemotron_h.nvfp4_layers in name or per-rank input (None: they agree)."""
    from kvguard.quant.nemotron_h import nvfp4_layers

    theirs = [(lay["prefix"], lay["input_size"] // tp if lay["class"] == "RowParallelLinear" else lay["input_size"])
              for lay in rec.get("layers", []) if not lay["prefix"].endswith(_NOT_CHECKED)
              and lay["prefix"].startswith("model.layers.")]
    built = nvfp4_layers(cfg, tp)
    if isinstance(built, str):
        return f"kvguard does not follow the config: {built}"
    mine = [(prefix, size) for prefix, _shards, size, check in built if check is None]
    return None if mine == theirs else json.dumps({"kvguard": mine, "oracle": theirs})


def run(version: str, n: int, seed: int = 5, n_nvfp4: int = 0, n_latent: int = 0, n_fp8: int = 0,
        n_mixed: int = 0) -> dict:
    python, python_env = _python(version)
    cases = variants(random.Random(seed * 1000 + 45), n) + nvfp4_variants(random.Random(seed * 1000 + 46), n_nvfp4) \
        + nvfp4_variants(random.Random(seed * 1000 + 47), n_latent, latent=True) \
        + nvfp4_variants(random.Random(seed * 1000 + 48), n_fp8, fp8=True) \
        + mixed_variants(random.Random(seed * 1000 + 49), n_mixed)
    out = run_runner("quant_runner.py", python, python_env,
                     [{k: v for k, v in c.items() if k != "_dir"} for c in cases])
    counts = {"agree": 0, "agree_refused": 0, "disagree": 0, "undecided": 0, "oracle_cpu_only": 0,
              "oracle_setup_failures": 0, "layer_lists_agree": 0}
    mismatches: list = []
    for case, res in zip(cases, out["results"]):
        if "setup_error" in res:
            counts["oracle_setup_failures"] += 1
            mismatches.append({"setup_error": res["setup_error"][:300],
                               "pattern": case["config"]["hybrid_override_pattern"]})
            continue
        for lay, rec in zip(case["layouts"], res["outcomes"]):
            mine = kvguard_outcome(_kvguard_source(case), {"tp": lay["tp"]}, version)
            theirs = (rec["ok"], rec.get("exc_type"), rec.get("message"))
            if mine is None:
                counts["undecided"] += 1
            elif mine == theirs:
                counts["agree"] += 1
                counts["agree_refused"] += not rec["ok"]
                if rec["ok"] and case.get("record"):
                    wrong = _layer_list_mismatch(rec, case["config"], lay["tp"])
                    if wrong is not None:
                        counts["disagree"] += 1
                        mismatches.append({"tp": lay["tp"], "layer_list": wrong})
                    else:
                        counts["layer_lists_agree"] += 1
            elif mine == (True, None, None) and rec.get("message") in CPU_ONLY and not case.get("files"):
                counts["oracle_cpu_only"] += 1
            else:
                counts["disagree"] += 1
                mismatches.append({"tp": lay["tp"], "kvguard": mine, "oracle": theirs, "where": rec.get("where"),
                                   "quantized": bool(case.get("files") or case.get("mixed")),
                                   "sizes": {k: case["config"].get(k) for k in (
                                       "mamba_num_heads", "n_groups", "hybrid_override_pattern", "mamba_head_dim",
                                       "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                       "intermediate_size", "moe_shared_expert_intermediate_size",
                                       "n_shared_experts", "moe_latent_size")},
                                   "exclude": (case.get("files") or {}).get("hf_quant_config.json", {}).get(
                                       "quantization", {}).get("exclude_modules")})
    return {"version": version, "counts": counts, "mismatches": mismatches}


def check_report(report: dict) -> None:
    counts = report["counts"]
    keep_report(report, report["version"], "nemotron-h-construction")
    print(f"\nvLLM {report['version']}: Nemotron-H first mixer {json.dumps(counts)}")
    assert not report["mismatches"], json.dumps(report["mismatches"][:4], indent=1, default=str)
    assert counts["agree_refused"] > 0


def _sample() -> list[str]:
    from kvguard import SUPPORTED_VERSIONS

    # the first release decided, the releases around the 0.29.0 model change, and the last
    return [v for v in ("0.24.0", "0.28.0", "0.29.0", "0.33.0") if v in SUPPORTED_VERSIONS]


@pytest.mark.parametrize("version", _sample())
def test_nemotron_h_first_mixer_agrees(version):
    check_report(run(version, int(os.environ.get("KVG_NEMOTRON_H_CONFIGS", "4")),
                     int(os.environ.get("KVG_DIFF_SEED", "5")),
                     int(os.environ.get("KVG_NEMOTRON_H_NVFP4", "3")),
                     int(os.environ.get("KVG_NEMOTRON_H_LATENT", "2")),
                     int(os.environ.get("KVG_NEMOTRON_H_FP8", "2")),
                     int(os.environ.get("KVG_NEMOTRON_H_MIXED", "2"))))


if __name__ == "__main__":
    import argparse

    cli = argparse.ArgumentParser(prog="python -m tests.upstream.test_nemotron_h")
    cli.add_argument("versions", nargs="+")
    cli.add_argument("--configs", type=int, default=8)
    cli.add_argument("--seed", type=int, default=5)
    cli.add_argument("--nvfp4", type=int, default=0)
    cli.add_argument("--latent", type=int, default=0)
    cli.add_argument("--fp8", type=int, default=0)
    cli.add_argument("--mixed", type=int, default=0)
    options = cli.parse_args()
    for v in options.versions:
        rep = run(v, options.configs, options.seed, options.nvfp4, options.latent, options.fp8, options.mixed)
        print(v, json.dumps(rep["counts"]), json.dumps(rep["mismatches"][:6], default=str))
