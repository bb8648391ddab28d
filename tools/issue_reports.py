"""Startup failures users reported in vLLM's issue tracker (and the recipes'), replayed against kvguard and, for the
release the user ran (or the nearest one kvguard knows), against that release's own code in the CPU oracle.

Each report names its issue, the launch as the user wrote it (the model's config.json from kvguard's catalog), the
releases to check and what the user saw. Two kinds:

- ``serve``: refused (or not) while ``vllm serve`` builds its engine configuration: the release's serve path
  (``tests/upstream/serve_runner.py``, as ``tests/upstream/test_speculative.py`` runs it);
- ``construct``: refused while the workers build the model: the release builds it on the meta device with the
  layout's per-rank sizes (``tests/upstream/quant_runner.py``, as ``tests/upstream/test_quant.py`` runs it);
- ``eplb-registration``: refused at the worker's first EPLB step when the model implements no ``MixtureOfExperts``:
  the release's own ``is_mixture_of_experts`` on the built model (``tests/upstream/test_dsv4_eplb.py``).

Usage: ``python tools/issue_reports.py [--oracle] [--only ISSUE …]``; without ``--oracle`` only kvguard's answers.
A user's report on a GPU can differ from the CPU oracle for host reasons (the kernel the GPU selects, an older
checkpoint revision, a nightly between releases): the table says which where it does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: each report: the issue, the kind, the model (a catalog id), the flags after it, the environment, the releases to
#: check (the user's, or the nearest kvguard knows), the layout (construct reports) and what the user reported
REPORTS = [
    {"issue": "https://github.com/vllm-project/vllm/issues/25292", "kind": "construct",
     "model": "Qwen/Qwen3-30B-A3B-FP8", "args": ["-tp", "4"], "layout": {"tp": 4},
     "releases": ["0.10.2", "0.11.0"],
     "reported": "crash at FusedMoE construction, -tp 4 on H100 (main, 2025-09-19)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/17569", "kind": "construct",
     "model": "Qwen/Qwen3-235B-A22B-FP8", "args": ["-tp", "8"], "layout": {"tp": 8},
     "releases": ["0.10.2"],
     "reported": "ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight "
                 "quantization block_n = 128. (0.8.5)"},
    {"issue": "https://github.com/snowflakedb/ArcticInference/issues/137", "kind": "construct",
     "model": "Qwen/Qwen3-30B-A3B-FP8", "args": ["-tp", "2", "-dp", "2"], "layout": {"tp": 2, "dp": 2},
     "releases": ["0.10.2"],
     "reported": "crashes when DP x TP > 2 (FusedMoE sizes; vLLM 0.9.x)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/25378", "kind": "construct",
     "model": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", "args": ["-tp", "4"], "layout": {"tp": 4},
     "releases": ["0.10.2", "0.11.0"],
     "reported": "ValueError raised in MergedColumnParallelLinear for linear_attn.in_proj (2025-09-22)"},
    {"issue": "https://github.com/sgl-project/sglang/issues/10852", "kind": "construct",
     "model": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", "args": ["-tp", "8"], "layout": {"tp": 8},
     "releases": ["0.11.0", "0.13.0", "0.33.0"],
     "reported": "(SGLang) ValueError: The output_size of gate's and up's weight = 64 is not divisible by weight "
                 "quantization block_n = 128."},
    {"issue": "https://github.com/EvolvingLMMs-Lab/LongVT/issues/9", "kind": "serve",
     "model": "Qwen/Qwen2.5-72B-Instruct",
     "args": ["--port", "1234", "--gpu-memory-utilization", "0.8", "--max-model-len", "131072",
              "--tensor-parallel-size", "8", "--served-model-name", "judge", "--trust-remote-code"],
     "releases": ["0.12.0", "0.13.0"],
     "reported": "Value error, User-specified max_model_len (131072) is greater than the derived max_model_len "
                 "(max_position_embeddings=32768.0 or model_max_length=None in model's config.json). …"},
    {"issue": "https://github.com/QwenLM/Qwen3/issues/1361", "kind": "serve",
     "model": "Qwen/Qwen3-235B-A22B-FP8", "args": ["-tp", "4", "--max-model-len", "131072"],
     "releases": ["0.10.2"],
     "reported": "max_model_len is greater than max_position=40960 (0.8.5.post1)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/36643", "kind": "serve",
     "model": "Qwen/Qwen3.5-35B-A3B",
     "args": ["--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "1", "--pipeline-parallel-size", "4",
              "--moe-backend", "marlin", "--max-model-len", "160000", "--max-num-batched-tokens", "4096",
              "--max-num-seqs", "32", "--enable-prefix-caching", "--reasoning-parser", "qwen3",
              "--speculative-config", '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'],
     "releases": ["0.17.1", "0.18.0"],
     "reported": "NotImplementedError: Pipeline parallelism is not supported for this model. … (the MTP draft; "
                 "2026-03-10)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/52069", "kind": "serve",
     "model": "Qwen/Qwen3.5-27B", "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"},
     "args": ["--pipeline-parallel-size", "4",
              "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}'],
     "releases": ["0.26.0", "0.27.0"],
     "reported": "NotImplementedError: Pipeline parallelism is not supported for this model. … (0.26.1rc1 nightly; "
                 "the report names no model: Qwen3.5-27B stands in)"},
    {"issue": "https://github.com/vllm-project/recipes/issues/875", "kind": "serve",
     "model": "zai-org/GLM-5.2-FP8",
     "args": ["-tp", "8", "-pp", "2", "--nnodes", "2",
              "--speculative-config", '{"method":"mtp","num_speculative_tokens":5}'],
     "releases": ["0.29.0", "0.30.0", "0.33.0"],
     "reported": "NotImplementedError: Pipeline parallelism is not supported for this model. … (\"on any vLLM "
                 "version\", 2026-08-28)"},
    {"issue": "https://github.com/vllm-project/recipes/pull/96", "kind": "construct",
     "model": "MiniMaxAI/MiniMax-M2.5", "args": ["-tp", "8", "--trust-remote-code"], "layout": {"tp": 8},
     "releases": ["0.11.1", "0.24.0", "0.28.0"],
     "reported": "\"TP8 is not supported\" (the MiniMax-M2 recipe, 2025-10-26; M2.5 has M2's expert sizes; the "
                 "oracle builds it from 0.24.0, whose Transformers reads minimax_m2 without remote code)"},
    {"issue": "https://github.com/vllm-project/recipes/pull/96", "kind": "construct",
     "model": "MiniMaxAI/MiniMax-M2.5", "args": ["-dp", "8", "--enable-expert-parallel", "--trust-remote-code"],
     "layout": {"tp": 1, "dp": 8, "ep": True}, "releases": ["0.11.1", "0.24.0", "0.28.0"],
     "reported": "the recipe's alternative, DP+EP: starts"},
    {"issue": "https://github.com/vllm-project/vllm/issues/16021", "kind": "construct",
     "model": "microsoft/phi-4", "args": ["--tensor-parallel-size", "4"], "layout": {"tp": 4},
     "releases": ["0.10.2"],
     "reported": "bare AssertionError: assert self.total_num_kv_heads % tp_size == 0 (LlamaAttention; 0.8.x)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/40740", "kind": "eplb-registration",
     "model": "deepseek-ai/DeepSeek-V4-Flash",
     "args": ["--tensor-parallel-size", "2", "--enable-expert-parallel", "--enable-eplb",
              "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}', "--kv-cache-dtype", "fp8",
              "--max-model-len", "65536", "--max-num-seqs", "16", "--max-num-batched-tokens", "8192"],
     "releases": ["0.21.0", "0.22.1", "0.23.0"],
     "reported": "bare AssertionError (assert is_mixture_of_experts) at the worker's dummy run, EPLB step (a fork "
                 "of 2026-05-27)"},
    {"issue": "https://github.com/vllm-project/recipes/pull/567", "kind": "construct",
     "model": "deepseek-ai/DeepSeek-V4-Pro",
     "args": ["-tp", "16", "--nnodes", "2", "--enable-expert-parallel", "--kv-cache-dtype", "fp8"],
     "layout": {"tp": 16, "ep": True}, "releases": ["0.23.0", "0.24.0", "0.28.0"],
     "reported": "\"3072 / 16 = 192, not a multiple of the FP8 block size (128), breaking block-quantized GEMMs at "
                 "runtime\" (the recipe's multi_node_tep capped to -tp 8, 2026-06-18)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/12256", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-R1",
     "args": ["--served-model-name", "deepseek-reasoner-1212", "--trust-remote-code", "--host", "0.0.0.0", "--port",
              "7860", "--max-model-len", "65536", "--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "32",
              "--enable-reasoning", "--reasoning-parser", "deepseek_r1", "--max_num_batched_tokens", "32768",
              "--enforce-eager", "--quantization", "fp8", "--max-num-seqs", "128", "--pipeline-parallel-size", "1",
              "--enable-prefix-caching", "--enable-chunked-prefill", "--num-speculative-tokens", "1"],
     "releases": ["0.10.2"],
     "reported": "\"deepseek v3 can not set tensor_parallel_size=32\" (vLLM 0.7.x, 2025-02; the flags "
                 "--enable-reasoning and --num-speculative-tokens are gone by 0.10.2)"},
    {"issue": "https://qwen.readthedocs.io (Qwen3 long-context serving)", "kind": "serve",
     "model": "Qwen/Qwen3-32B",
     "args": ["--rope-scaling", '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}',
              "--max-model-len", "131072"],
     "releases": ["0.10.2"],
     "reported": "the model card's YaRN launch (131072 tokens)"},
    {"issue": "https://qwen.readthedocs.io (Qwen3 long-context serving, --hf-overrides)", "kind": "serve",
     "model": "Qwen/Qwen3-32B",
     "args": ["--hf-overrides",
              '{"rope_scaling":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}}',
              "--max-model-len", "131072"],
     "releases": ["0.10.2", "0.20.0", "0.33.0"],
     "reported": "the model card's YaRN launch through --hf-overrides (131072 tokens)"},
    {"issue": "https://github.com/vllm-project/vllm/pull/30559", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V2-Lite",
     "args": ["-dp", "2", "--port", "9256", "--enable-expert-parallel", "--enable-eplb",
              "--eplb-config", '{"window_size":100,"step_interval":100}'],
     "releases": ["0.13.0"],
     "reported": "the PR's test launch (EPLB with the default all2all backend) serves (2025-12-12)"},
    {"issue": "https://github.com/ROCm/vllm/pull/770", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V3",
     "args": ["--tensor-parallel-size", "8", "--max-num-batched-tokens", "32768", "--trust-remote-code",
              "--no-enable-prefix-caching", "--compilation-config", '{"cudagraph_mode": "FULL_AND_PIECEWISE"}',
              "--gpu_memory_utilization", "0.9", "--block-size", "1", "--enable-expert-parallel", "--enable-eplb",
              "--num-redundant-experts", "8", "--eplb-log-balancedness", "--eplb-window-size", "3000",
              "--eplb-step-interval", "1000"],
     "releases": ["0.11.0"],
     "reported": "EPLB is the feature the ROCm fork adds (2025-10-28): upstream refuses it off CUDA (kvguard: "
                 "--platform rocm; the CPU oracle's platform refuses it the same way)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/54657", "kind": "serve",
     "model": "Qwen/Qwen3-8B", "args": ["--tensor-parallel-size", "0"],
     "releases": ["0.14.1", "0.15.0", "0.16.0"],
     "reported": "--tensor-parallel-size 0 reaches an uncaught ZeroDivisionError (torch 2.9.1, transformers "
                 "4.57.6)"},
]


def kvguard_answer(report: dict, version: str) -> str:
    from kvguard.errors import Undecidable
    from kvguard.front import examine
    from kvguard.versions import resolve

    launch = ["vllm", "serve", report["model"], *report["args"]]
    try:
        verdict = examine(resolve(version), launch, env=dict(report.get("env") or {})).verdict
    except Undecidable as exc:
        return f"undecidable: {exc}"
    if verdict.ok:
        return "accepted"
    return f"{verdict.stage}: {verdict.exc_type}: {verdict.message}"


def oracle_serve(report: dict, version: str) -> dict:
    from kvguard import catalog
    from tests.upstream.test_speculative import compare_launches

    root = tempfile.mkdtemp(prefix="kvg-issue-")
    try:
        case = {"id": "r", "target": report["model"], "config": catalog.lookup(report["model"]).config,
                "args": list(report["args"]), "model_dir": os.path.join(root, report["model"].split("/")[-1]),
                "files": {}, "env": dict(report.get("env") or {})}
        return compare_launches(version, 0, [case])
    finally:
        shutil.rmtree(root, ignore_errors=True)


def oracle_construct(report: dict, version: str) -> dict:
    from kvguard import catalog
    from tests.upstream._oracle import oracle_or_skip, run_runner
    from tests.upstream.test_quant import compare, cut

    python, python_env = oracle_or_skip(version)
    config = catalog.lookup(report["model"]).config
    if config.get("model_type") == "deepseek_v4":
        # four decoder layers of each kind, built with the fp8 KV cache the attention takes before 0.30.0 (as
        # tests/upstream/test_dsv4_model.py builds them)
        from tests.upstream.test_dsv4_model import cut as dsv4_cut

        cases = [{"config": dsv4_cut(config), "layouts": [dict(report["layout"])],
                  "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True}]
    else:
        cases = [{"config": cut(config), "layouts": [dict(report["layout"])]}]
    return compare(version, cases, run_runner("quant_runner.py", python, python_env, cases))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", action="store_true", help="also run each release's own code in its CPU oracle")
    ap.add_argument("--only", nargs="+", default=None, help="issue numbers (the URL's last part)")
    opts = ap.parse_args()
    for report in REPORTS:
        if opts.only and report["issue"].rsplit("/", 1)[-1] not in opts.only:
            continue
        print(f"{report['issue']}  ({report['kind']})\n  reported: {report['reported']}")
        for version in report["releases"]:
            print(f"  {version} kvguard: {kvguard_answer(report, version)}")
            if opts.oracle and report["kind"] == "eplb-registration":
                # the worker's EPLB step is past both runners: the release's own is_mixture_of_experts on the model
                from tests.upstream.test_dsv4_eplb import registers_for_eplb

                print(f"  {version} oracle: {json.dumps(registers_for_eplb(version))}")
            elif opts.oracle:
                run = oracle_serve if report["kind"] == "serve" else oracle_construct
                result = run(report, version)
                print(f"  {version} oracle: {json.dumps(result.get('counts'))}"
                      + (f" mismatches={json.dumps(result['mismatches'])}" if result.get("mismatches") else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
