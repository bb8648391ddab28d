"""Full differential runs of model construction (kvguard.quant) against the releases.

usage: python tools/quant_differential.py [--vllm X ...] [--configs 24] [--layouts 24] [--seed 7]
                                          [--ct-configs N] [--ct-int8 N] [--ct-nvfp4 N] [--ct-nvfp4-moe N] [--ct-nvfp4-moe-only N]
                                          [--ct-nvfp4-fp8-only N] [--ct-moe N] [--ct-mla N] [--online-fp8 N]
                                          [--wna16-mla N] [--modelopt N] [--modelopt-exclusions N]
                                          [--hf-quant-config N] [--gpt-oss N] [--modelopt-lm-head N] [--gemma4 N] [--gemma3 N] [--gemma3-mm N] [--qwen3-next N] [--dsa N] [--kimi N] [--kimi-k3 N] [--glm4-moe N] [--ernie45-moe N] [--ernie45-dense N] [--ernie45-vl N] [--mimo-v2-flash N]
                                          [--modelopt-minimax N] [--qwen3-vl N] [--qwen2-vl N] [--phi3 N] [--qwen3-6-mixed N] [--qwen3-5 N [--qwen3-5-quantized N] [--qwen3-5-wna16 N]]
                                          [--fused-shards]
                                          [--report FILE.json]

For each release (default: every built oracle), tests/upstream/test_quant.py's generated cases
(configs from real checkpoints and their one-size variants, layouts with tp/dp/pcp/EP/EPLB) are
built by the release on the meta device and compared with kvguard; the layer lists of the base
configs at tp 1 are compared too.  Prints one line per release (agreement by family) and writes
the report.  Exit 1 on any disagreement.  The oracles run with KVG_ORACLE_INSPECT=inprocess and
KVG_ORACLE_TORCHVISION=stub unless the caller's environment sets them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


ORACLE_SHORTCUTS = {"KVG_ORACLE_INSPECT": "inprocess", "KVG_ORACLE_TORCHVISION": "stub"}
#: the first release that builds Gemma 4 (Gemma4ForConditionalGeneration / Gemma4ForCausalLM): 0.28.0 brings
#: vllm/transformers_utils/configs/gemma4.py, which reads the per-layer config; 0.19.0-0.27.1 register the classes but
#: their ModelConfig refuses the config (transformers' AmbiguousGlobalPerLayerAttributeError on 0.27.1), and earlier
#: releases do not register them (tests/upstream/test_quant.py GEMMA4_SAMPLE starts there too)
GEMMA4_BUILT_SINCE = "0.28.0"


def main() -> int:
    # The oracles need both shortcuts here (the CPU oracles ship no torchvision; the subprocess inspection is ~10x
    # slower); an explicit setting from the caller (.ci/run exports both) wins.
    for name, value in ORACLE_SHORTCUTS.items():
        os.environ.setdefault(name, value)
    import pytest  # noqa: F401  (the test module's imports)

    from kvguard.versions import resolve
    from tests.upstream import test_quant as quant_tests
    from tests.upstream.differential import oracle_command

    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="environment: " + ", ".join(f"{name}={value}" for name, value in ORACLE_SHORTCUTS.items())
        + " unless the caller sets them (tests/upstream/oracle_runner.py reads them)")
    ap.add_argument("--vllm", nargs="*")
    ap.add_argument("--configs", type=int, default=24)
    ap.add_argument("--layouts", type=int, default=24)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--report", default=None)
    ap.add_argument("--wna16-moe", type=int, default=None, help="AWQ / GPTQ MoE configs (default: configs // 2)")
    ap.add_argument("--wna16-mla", type=int, default=None, help="AWQ / GPTQ configs of DeepSeek-V2/V3, Kimi-K2 and "
                    "MiniMax-M2 per release (default: half of --configs)")
    ap.add_argument("--fused-shards", action="store_true", help="add the AWQ modules_to_not_convert cases that name "
                    "part of a fused layer (FUSED_SHARD_CASES, tp 1 and 8)")
    ap.add_argument("--bases", nargs="*", help="the catalog checkpoints the configs derive from (default: all of "
                    "tests/upstream/test_quant.py's; each distinct architecture costs the oracle ~10 s)")
    ap.add_argument("--ct-configs", type=int, default=None, help="compressed-tensors configs per release (default: "
                    "half of --configs)")
    ap.add_argument("--ct-int8", type=int, default=None, help="compressed-tensors INT8 W8A8 dense configs per release "
                    "(default: one)")
    ap.add_argument("--ct-nvfp4", type=int, default=None, help="compressed-tensors NVFP4 / NVFP4A16 configs per release "
                    "(dense bases, one in ten Qwen3-MoE; default: one)")
    ap.add_argument("--ct-nvfp4-moe", type=int, default=None, help="compressed-tensors NVFP4 / NVFP4A16 MoE configs "
                    "per release (default: one where kvguard decides them)")
    ap.add_argument("--ct-nvfp4-moe-only", type=int, default=None, help="run only this many compressed-tensors NVFP4 "
                    "MoE configs (run_ct_nvfp4_moe)")
    ap.add_argument("--ct-nvfp4-fp8-only", type=int, default=None, help="run only this many compressed-tensors "
                    "configs of NVFP4 weights with FP8 activations (run_ct_nvfp4_fp8)")
    ap.add_argument("--ct-moe", type=int, default=None, help="compressed-tensors configs on MoE bases per release "
                    "(default: half of --configs)")
    ap.add_argument("--ct-mla", type=int, default=None, help="compressed-tensors W4A16 / W8A16 configs of "
                    "DeepSeek-V2/V3, Kimi-K2 and MiniMax-M2 per release (default: one)")
    ap.add_argument("--online-fp8", type=int, default=None, help="unquantized configs built with --quantization fp8 "
                    "per release (default: a quarter of --configs)")
    ap.add_argument("--modelopt", type=int, default=None, help="ModelOpt FP8 / NVFP4 dense configs per release "
                    "(default: half of --configs)")
    ap.add_argument("--hf-quant-config", type=int, default=None, help="ModelOpt checkpoints with hf_quant_config.json "
                    "beside config.json per release (default: one)")
    ap.add_argument("--gpt-oss", type=int, default=None, help="gpt-oss configs (MXFP4 experts, BF16 form) per release "
                    "(default: 1)")
    ap.add_argument("--modelopt-exclusions", type=int, default=None, help="ModelOpt exports with exclusion lists "
                    "(MODELOPT_EXCLUSIONS) per release (default: a quarter of --configs)")
    ap.add_argument("--gemma3", type=int, default=None, help="run only the Gemma 3 text configs (run_gemma3), this "
                    "many per release")
    ap.add_argument("--interns1", type=int, default=None, help="run only the Intern-S1 / InternVL wrapper configs "
                    "(run_interns1: InternS1ForConditionalGeneration, the InternViT tower first), this many per release")
    ap.add_argument("--gemma3-mm", type=int, default=None, help="run only the Gemma 3 multimodal configs "
                    "(run_gemma3_mm: Gemma3ForConditionalGeneration, the SigLIP tower first), this many per release")
    ap.add_argument("--gemma4", type=int, default=None, help="run only the Gemma 4 configs (run_gemma4), this many "
                    f"per release (releases before {GEMMA4_BUILT_SINCE}, whose ModelConfig cannot read the config, are "
                    "skipped, saying so)")
    ap.add_argument("--llama4", type=int, default=None, help="run only the Llama 4 configs (run_llama4), this many "
                    "per release")
    ap.add_argument("--llama4-ct", type=int, default=0, help="with --llama4: this many compressed-tensors exports of "
                    "Llama 4 per release too (llama4_ct_variants)")
    ap.add_argument("--llama4-wna16", type=int, default=0, help="with --llama4: this many compressed-tensors W4A16 / "
                    "W8A16 exports of Llama 4 per release too (llama4_ct_variants, integer weights only)")
    ap.add_argument("--llama4-modelopt", type=int, default=0, help="run the Llama 4 runner with this many ModelOpt FP8 "
                    "/ NVFP4 exports of Llama 4 per release (llama4_modelopt_variants; with --llama4 N, beside its "
                    "configs; alone, only these)")
    ap.add_argument("--qwen3-next", type=int, default=None, help="run only the Qwen3-Next configs (run_qwen3_next), "
                    "this many per release")
    ap.add_argument("--dsa-nvfp4", type=int, default=0, help="with --dsa: this many ModelOpt NVFP4 exports of "
                    "DeepSeek-V3.2 / GLM-5 per release too (dsa_nvfp4_variants)")
    ap.add_argument("--dsa-nvfp4-flat", type=int, default=0, help="with --dsa: this many ModelOpt NVFP4 exports in "
                    "config.json's flat layout (nvidia/GLM-5.1-NVFP4) per release too")
    ap.add_argument("--dsa-modelopt-fp8", type=int, default=0, help="with --dsa: this many ModelOpt FP8 exports of "
                    "DeepSeek-V3.2 / GLM-5 per release too (dsa_modelopt_fp8_variants)")
    ap.add_argument("--dsa-wna16", type=int, default=0, help="with --dsa: this many AWQ / GPTQ checkpoints of "
                    "DeepSeek-V3.2 / GLM-5 per release too (dsa_wna16_variants)")
    ap.add_argument("--dsa", type=int, default=None, help="run only the DeepSeek-V3.2 / GLM-5 configs (run_dsa), this "
                    "many per release (releases before 0.11.0, which do not register them, are skipped)")
    ap.add_argument("--glm4-moe", type=int, default=None, help="run only the GLM-4.x MoE configs (run_glm4_moe), this "
                    "many per release")
    ap.add_argument("--ernie45-moe", type=int, default=None, help="run only the ERNIE-4.5 MoE configs "
                    "(run_ernie45_moe), this many per release")
    ap.add_argument("--ernie45-dense", type=int, default=None, help="run only the ERNIE-4.5-0.3B configs "
                    "(run_ernie45_dense), this many per release")
    ap.add_argument("--ernie45-vl", type=int, default=None, help="run only the ERNIE-4.5-VL configs "
                    "(tests/upstream/test_quant_ernie45_vl.py run_ernie45_vl), this many per release")
    ap.add_argument("--glm4-moe-lite", type=int, default=None, help="run only the GLM-4.7-Flash configs "
                    "(run_glm4_moe_lite), this many per release (from 0.24.0)")
    ap.add_argument("--glm4-moe-in-run", type=int, default=None, help="GLM-4.x MoE configs in the main run per release "
                    "(default: two on the releases of GLM4_MOE_SAMPLE, none elsewhere)")
    ap.add_argument("--mimo-v2-flash", type=int, default=None, help="run only the MiMo-V2-Flash configs "
                    "(run_mimo_v2_flash), this many per release (releases before 0.24.0, whose transformers does not "
                    "read its config, are skipped)")
    ap.add_argument("--kimi", type=int, default=None, help="run only the Kimi-K2.5 configs (run_kimi), this many per "
                    "release (releases before 0.15.0, which do not register it, are skipped)")
    ap.add_argument("--kimi-k3", type=int, default=None, help="run only the Kimi-K3 configs (run_kimi_k3), this many "
                    "per release (releases before 0.27.0, which do not register it, are skipped)")
    ap.add_argument("--qwen3-vl", type=int, default=None, help="run only the Qwen3-VL / Qwen3-VL-MoE configs "
                    "(run_qwen3_vl), this many per release (releases before 0.11.0, which do not register them, are "
                    "skipped)")
    ap.add_argument("--glm4v", type=int, default=None, help="run only the GLM-4.5V / GLM-4.6V configs (run_glm4v), "
                    "this many per release")
    ap.add_argument("--glm4v-wna16", type=int, default=0, help="with --glm4v: this many AWQ / GPTQ exports of GLM-4.5V "
                    "per release too (glm4v_wna16_variants)")
    ap.add_argument("--qwen3-5", type=int, default=None, help="run only the Qwen3.5 / Qwen3.6 configs (run_qwen3_5), "
                    "this many per release (releases before 0.17.0, which do not register them, are skipped)")
    ap.add_argument("--qwen3-5-quantized", type=int, default=0, help="with --qwen3-5: this many compressed-tensors "
                    "/ ModelOpt FP8 exports of Qwen3.5 per release too (qwen3_5_quantized_variants)")
    ap.add_argument("--qwen3-5-wna16", type=int, default=0, help="with --qwen3-5: this many AWQ / GPTQ checkpoints of "
                    "Qwen3.5 per release too (qwen3_5_wna16_variants)")
    ap.add_argument("--phi3", type=int, default=None, help="run only the Phi3ForCausalLM configs (run_phi3), this "
                    "many per release")
    ap.add_argument("--qwen2-vl", type=int, default=None, help="run only the Qwen2-VL / Qwen2.5-VL configs "
                    "(run_qwen2_vl), this many per release")
    ap.add_argument("--qwen3-vl-quantized", type=int, default=0, help="with --qwen3-vl: this many GPTQ / "
                    "compressed-tensors checkpoints of Qwen3-VL / Qwen3-VL-MoE per release too "
                    "(qwen3_vl_quantized_variants)")
    ap.add_argument("--qwen3-vl-awq", type=int, default=0, help="with --qwen3-vl: this many AWQ checkpoints of "
                    "Qwen3-VL / Qwen3-VL-MoE per release too (qwen3_vl_awq_variants)")
    ap.add_argument("--modelopt-minimax", type=int, default=None, help="run only the MiniMax-M2 ModelOpt exports "
                    "(run_modelopt_minimax), this many per release (releases before 0.11.1, which do not register "
                    "the model, are skipped)")
    ap.add_argument("--qwen3-6-mixed", type=int, default=None, help="run only the Qwen3.6 ModelOpt MIXED_PRECISION "
                    "exports (run_qwen3_6_mixed), this many per release (releases before 0.17.0 are skipped)")
    ap.add_argument("--modelopt-lm-head", type=int, default=None, help="ModelOpt exports whose LM head decides "
                    "(MODELOPT_LM_HEAD_CASES) per release (default: one)")
    args = ap.parse_args()
    # each of these runs one family's generator in place of the main mix: one per invocation
    only = [f"--{name.replace('_', '-')}" for name in ("ct_nvfp4_fp8_only", "ct_nvfp4_moe_only", "dsa", "glm4_moe_lite", "ernie45_moe", "ernie45_dense",
                                                      "ernie45_vl",
                                                      "glm4_moe", "glm4v", "mimo_v2_flash", "kimi", "kimi_k3", "qwen3_vl", "qwen2_vl", "phi3", "qwen3_5",
                                                      "modelopt_minimax", "gemma4", "gemma3", "gemma3_mm", "qwen3_next",
                                                      "qwen3_6_mixed", "llama4")
            if getattr(args, name) not in (None, 0)]
    if len(only) > 1:
        ap.error(f"{', '.join(only)}: each runs one family on its own; give one per run")
    from kvguard import SUPPORTED_VERSIONS

    if args.hf_quant_config is not None:
        quant_tests.HF_QUANT_CONFIGS = args.hf_quant_config
    if args.gpt_oss is not None:
        quant_tests.GPT_OSS_CONFIGS = args.gpt_oss

    if args.modelopt is not None:
        quant_tests.MODELOPT_CONFIGS = args.modelopt
    if args.modelopt_lm_head is not None:
        quant_tests.MODELOPT_LM_HEAD_CONFIGS = args.modelopt_lm_head
    if args.modelopt_exclusions is not None:
        quant_tests.MODELOPT_EXCL_CONFIGS = args.modelopt_exclusions
    if args.ct_configs is not None:
        quant_tests.CT_CONFIGS = args.ct_configs
    if args.ct_int8 is not None:
        quant_tests.CT_INT8_CONFIGS = args.ct_int8
    if args.ct_nvfp4 is not None:
        quant_tests.CT_NVFP4_CONFIGS = args.ct_nvfp4
    if args.ct_nvfp4_moe is not None:
        quant_tests.CT_NVFP4_MOE_CONFIGS = args.ct_nvfp4_moe
    if args.ct_moe is not None:
        quant_tests.CT_MOE_CONFIGS = args.ct_moe
    if args.ct_mla is not None:
        quant_tests.CT_MLA_CONFIGS = args.ct_mla
    quant_tests.FUSED_SHARDS = args.fused_shards
    if args.wna16_mla is not None:
        quant_tests.WNA16_MLA_CONFIGS = args.wna16_mla
    if args.online_fp8 is not None:
        quant_tests.ONLINE_FP8_CONFIGS = args.online_fp8
    if args.glm4_moe_in_run is not None:
        quant_tests.GLM4_MOE_CONFIGS = args.glm4_moe_in_run
    if args.bases:
        quant_tests.BASES = tuple(args.bases)
    versions = args.vllm or [v for v in SUPPORTED_VERSIONS if "+" not in v and oracle_command(v) is not None]
    reports, bad = [], 0
    for version in versions:
        t0 = time.time()
        try:
            if args.ct_nvfp4_fp8_only:
                rep = quant_tests.run_ct_nvfp4_fp8(version, args.ct_nvfp4_fp8_only, args.seed, args.layouts)
            elif args.ct_nvfp4_moe_only:
                rep = quant_tests.run_ct_nvfp4_moe(version, args.ct_nvfp4_moe_only, args.seed, args.layouts)
            elif args.dsa is not None:
                if not quant_tests.dsa_release(version):
                    continue
                rep = quant_tests.run_dsa(version, args.dsa, args.seed, args.layouts, nvfp4=args.dsa_nvfp4,
                                          nvfp4_flat=args.dsa_nvfp4_flat,
                                          modelopt_fp8=args.dsa_modelopt_fp8, wna16=args.dsa_wna16)
            elif args.glm4_moe_lite:
                if not resolve(version).within("0.24.0"):
                    continue
                rep = quant_tests.run_glm4_moe_lite(version, args.glm4_moe_lite, args.seed, args.layouts)
            elif args.ernie45_vl:
                from tests.upstream.test_quant_ernie45_vl import run_ernie45_vl

                rep = run_ernie45_vl(version, args.ernie45_vl, args.seed)
            elif args.ernie45_dense:
                rep = quant_tests.run_ernie45_dense(version, args.ernie45_dense, args.seed, args.layouts)
            elif args.ernie45_moe:
                rep = quant_tests.run_ernie45_moe(version, args.ernie45_moe, args.seed, args.layouts)
            elif args.glm4_moe:
                rep = quant_tests.run_glm4_moe(version, args.glm4_moe, args.seed, args.layouts)
            elif args.mimo_v2_flash:
                if not resolve(version).within(quant_tests.MIMO_V2_FLASH_SINCE):
                    continue
                rep = quant_tests.run_mimo_v2_flash(version, args.mimo_v2_flash, args.seed, args.layouts)
            elif args.kimi:
                if not quant_tests.kimi_release(version):
                    continue
                rep = quant_tests.run_kimi(version, args.kimi, args.seed, args.layouts)
            elif args.kimi_k3:
                if not resolve(version).within(quant_tests.KIMI_K3_SINCE):
                    continue
                rep = quant_tests.run_kimi_k3(version, args.kimi_k3, args.seed, args.layouts)
            elif args.qwen3_vl:
                if not resolve(version).within("0.11.0"):
                    continue
                rep = quant_tests.run_qwen3_vl(version, args.qwen3_vl, args.seed, args.layouts, awq=args.qwen3_vl_awq,
                                               quantized=args.qwen3_vl_quantized)
            elif args.phi3:
                rep = quant_tests.run_phi3(version, args.phi3, args.seed, args.layouts)
            elif args.qwen2_vl:
                rep = quant_tests.run_qwen2_vl(version, args.qwen2_vl, args.seed, args.layouts)
            elif args.glm4v:
                rep = quant_tests.run_glm4v(version, args.glm4v, args.seed, args.layouts, wna16=args.glm4v_wna16)
            elif args.qwen3_5:
                if not resolve(version).within(quant_tests.QWEN3_5_SINCE):
                    continue
                rep = quant_tests.run_qwen3_5(version, args.qwen3_5, args.seed, args.layouts,
                                              quantized=args.qwen3_5_quantized, wna16=args.qwen3_5_wna16)
            elif args.modelopt_minimax:
                if not resolve(version).within(quant_tests.MINIMAX_M2_SINCE):
                    continue
                rep = quant_tests.run_modelopt_minimax(version, args.modelopt_minimax, args.seed, args.layouts)
            elif args.qwen3_6_mixed:
                if not resolve(version).within(quant_tests.QWEN3_5_SINCE):
                    continue
                rep = quant_tests.run_qwen3_6_mixed(version, args.qwen3_6_mixed, args.seed, args.layouts)
            elif args.gemma4:
                if not resolve(version).within(GEMMA4_BUILT_SINCE):
                    print(f"vLLM {version}: skipped: Gemma 4 is built from {GEMMA4_BUILT_SINCE} (its "
                          "vllm/transformers_utils/configs/gemma4.py); before, ModelConfig refuses the config "
                          "(0.19.0-0.27.1 register the class, earlier releases do not)", flush=True)
                    continue
                rep = quant_tests.run_gemma4(version, args.gemma4, args.seed, args.layouts)
            elif args.gemma3_mm:
                rep = quant_tests.run_gemma3_mm(version, args.gemma3_mm, args.seed, args.layouts)
            elif args.interns1:
                rep = quant_tests.run_interns1(version, args.interns1, args.seed, args.layouts)
            elif args.gemma3:
                rep = quant_tests.run_gemma3(version, args.gemma3, args.seed, args.layouts)
            elif args.llama4 or args.llama4_modelopt:
                rep = quant_tests.run_llama4(version, args.llama4 or 0, args.seed, args.layouts, ct=args.llama4_ct,
                                             wna16=args.llama4_wna16, modelopt=args.llama4_modelopt)
            elif args.qwen3_next:
                rep = quant_tests.run_qwen3_next(version, args.qwen3_next, args.seed, args.layouts)
            else:
                rep = quant_tests.run(version, args.configs, args.layouts, args.seed, n_lists=len(quant_tests.BASES),
                                      n_moe=args.wna16_moe)
        except Exception as exc:  # noqa: BLE001 - one release's failure is reported, the others still run
            print(f"vLLM {version}: the run failed: {type(exc).__name__}: {exc}", flush=True)
            bad += 1
            continue
        by_family: Counter = Counter()
        for m in rep["mismatches"]:
            by_family[str(m.get("arch") or m.get("config"))] += 1
        rep["disagree_by_arch"] = dict(by_family)
        rep["agree_by_family"] = rep.get("agree_by_family", {})
        rep["seconds"] = round(time.time() - t0)
        c = rep["counts"]
        bad += c["disagree"] + c["oracle_setup_failures"]
        print(f"vLLM {version}: agree {c['agree']}, disagree {c['disagree']}, undecided {c['undecided']}, "
              f"config refused by both {c['config_refused_both']}, oracle setup failures "
              f"{c['oracle_setup_failures']}; by family {rep['by_family']} ({rep['seconds']} s)", flush=True)
        if "layer_lists" in rep:  # (run_dsa / run_gemma4: the bases' layer lists at tp 1)
            bad += rep["layer_lists"]["disagree"]
            print(f"    layer lists: agree {rep['layer_lists']['agree']}, disagree {rep['layer_lists']['disagree']}")
        for arch, tally in sorted(rep.get("by_arch", {}).items()):
            print(f"    {arch}: agree {tally['agree']}, disagree {tally['disagree']}, undecided {tally['undecided']}")
        reports.append(rep)
    if args.report:
        Path(args.report).write_text(json.dumps(reports, indent=1, default=str))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
