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
#: check (the user's, or the nearest kvguard knows), the layout and the engine options the runner sets besides
#: (construct reports: ``layout``, ``engine_args``) and what the user reported
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
    {"issue": "https://github.com/vllm-project/vllm/issues/54665", "kind": "serve",
     "model": "Qwen/Qwen3-8B", "args": ["--decode-context-parallel-size", "0"],
     "releases": ["0.14.1", "0.16.0", "0.28.0"],
     "reported": "--decode-context-parallel-size 0 reaches an uncaught ZeroDivisionError (torch 2.9.1); the field's "
                 "bound refuses it from a later release"},
    {"issue": "https://github.com/vllm-project/vllm/issues/47846", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V4-Pro", "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"},
     "args": ["--prefill-context-parallel-size", "8", "--kv-cache-dtype", "fp8"],
     "releases": ["0.24.0", "0.28.0", "0.33.0"],
     "reported": "Value error, Model Runner V2 does not yet support: prefill context parallelism (vLLM 0.24.0, "
                 "DeepSeek-V4-Pro-DSpark; the report runs Model Runner V2: VLLM_USE_V2_MODEL_RUNNER=1 stands in)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/47846", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V4-Pro",
     "args": ["-tp", "8", "--prefill-context-parallel-size", "8", "--kv-cache-dtype", "fp8"],
     "releases": ["0.24.0", "0.28.0", "0.33.0"],
     "reported": "Value error, World size (64) is larger than the number of available GPUs (8) in this node. … "
                 "(tp8 x cp8 on one 8-GPU H20 node, vLLM 0.24.0; the CPU oracle has no GPU count of its own)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/52435", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V4-Flash",
     "args": ["--gpu-memory-utilization", "0.875", "--kv-cache-dtype", "fp8", "--block-size", "256",
              "--pipeline-parallel-size", "3", "--moe-backend", "deep_gemm_mega_moe",
              "--attention-config", '{"use_fp4_indexer_cache": true}',
              "--speculative-config", '{"method":"dspark","num_speculative_tokens":7,"draft_sample_method":"greedy"}',
              "--reasoning-parser", "deepseek_v4", "--tool-call-parser", "deepseek_v4", "--enable-auto-tool-choice"],
     "releases": ["0.29.0", "0.30.0", "0.33.0"],
     "reported": "the reporter's -pp 3 attempt after \"AssertionError: n_physical_experts=256 must be divisible by "
                 "ep_size=3\" (DeepSeek-V4-Flash-0731, 2026-08-16; its error is cut; the catalog's V4-Flash "
                 "stands in)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/52435", "kind": "construct",
     "model": "deepseek-ai/DeepSeek-V4-Flash",
     "args": ["-dp", "3", "--enable-expert-parallel", "--moe-backend", "deep_gemm_mega_moe", "--kv-cache-dtype",
              "fp8"],
     "layout": {"tp": 1, "dp": 3, "ep": True}, "engine_args": {"moe_backend": "deep_gemm_mega_moe"},
     "releases": ["0.28.0", "0.30.0", "0.33.0"],
     "reported": "AssertionError: n_physical_experts=256 must be divisible by ep_size=3. Adjust "
                 "num_redundant_experts. (DeepSeek-V4-Flash-0731 over three data-parallel ranks with expert "
                 "parallel and the MegaMoE backend, 2026-08-16; the catalog's V4-Flash stands in)"},
    {"issue": "https://github.com/vllm-project/vllm/pull/55914", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V4-Pro",
     "args": ["--trust-remote-code", "--kv-cache-dtype", "fp8", "--block-size", "256", "--enable-expert-parallel",
              "--tensor-parallel-size", "8", "--compilation-config",
              '{"cudagraph_mode":"FULL_AND_PIECEWISE", "custom_ops":["all"]}',
              "--attention_config.use_fp4_indexer_cache=True", "--moe-backend", "deep_gemm_mega_moe",
              "--tokenizer-mode", "deepseek_v4", "--tool-call-parser", "deepseek_v4", "--enable-auto-tool-choice",
              "--reasoning-parser", "deepseek_v4", "--speculative-config",
              '{"method":"dspark","num_speculative_tokens":7,"draft_sample_method":"probabilistic"}'],
     "releases": ["0.29.0", "0.30.0", "0.33.0"],
     "reported": "NotImplementedError: DeepSeek V4 MegaMoE currently requires expert parallel (the DSpark draft, "
                 "main of 2026-09-08, DeepSeek-V4-Pro-0813); use_fp4_indexer_cache is gone from AttentionConfig "
                 "in the releases from 0.30.0"},
    {"issue": "https://github.com/vllm-project/vllm-ascend/issues/13717", "kind": "serve",
     "model": "deepseek-ai/DeepSeek-V4-Flash",
     "args": ["--kv-cache-dtype", "fp8", "--max-num-batched-tokens", "120", "--max-num-seqs", "60",
              "--speculative-config", '{"num_speculative_tokens":7,"method":"dspark","enforce_eager":true}'],
     "releases": ["0.27.0", "0.28.0", "0.30.0", "0.32.0", "0.33.0"],
     "reported": "max_num_scheduled_tokens = -240 (120 - 60 x 6) with DSpark (the vllm-ascend DeepSeek-V4-Flash "
                 "image, decode node; upstream's reckoning differs by release)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/40585", "kind": "serve",
     "model": "Qwen/Qwen3.5-35B-A3B",
     "args": ["--max-num-batched-tokens=8K", "--max-num-seqs", "128", "--enable-prefix-caching",
              "--mamba-cache-mode", "align", "--enable-expert-parallel", "--tensor-parallel-size", "8", "-dcp", "4"],
     "releases": ["0.18.0", "0.28.0", "0.33.0"],
     "reported": "Qwen3.5 cannot use -dcp with --enable-prefix-caching (vLLM 0.18.0 on 8 x 910B: the Ascend "
                 "plugin's own refusal). The report's --reasoning-parser qwen3 --enable-auto-tool-choice "
                 "--tool-call-parser qwen3_xml are left out: from 0.28.0 the parsers read the tokenizer's vocabulary "
                 "at startup, which the CPU oracle has not (a host artefact)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/39809", "kind": "serve",
     "model": "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
     "args": ["--enable-prefix-caching", "--mamba-cache-mode", "align", "--enable-chunked-prefill",
              "--speculative-config", '{"method": "nemotron_h_mtp", "num_speculative_tokens": 5}',
              "--kv-cache-dtype", "fp8", "--dtype", "bfloat16",
              "--gpu-memory-utilization", "0.90", "--tensor-parallel-size", "4"],
     "releases": ["0.28.0", "0.33.0"],
     "reported": "the working launch (mamba prefix caching align + nemotron_h_mtp, nightly after 0.19.0). Its "
                 "--trust-remote-code is left out (the CPU oracle has no checkpoint code file: "
                 "configuration_nemotron_h.py), so the releases checked are those whose Transformers reads "
                 "nemotron_h itself"},
    {"issue": "https://github.com/vllm-project/vllm/issues/46679", "kind": "serve",
     "model": "zai-org/GLM-5.2-FP8",
     "args": ["--enable-expert-parallel", "-cc.pass_config.fuse_allreduce_rms=False", "--tensor-parallel-size", "16",
              "--nnodes", "2", "--node-rank", "0", "--master-addr", "172.16.1.248", "--kv-cache-dtype", "fp8",
              "--max-num-seqs", "8", "--max-model-len", "auto", "--max-num-batched-tokens", "8192",
              "--gpu-memory-utilization", "0.95", "--enable-ep-weight-filter", "--speculative-config.method", "mtp",
              "--speculative-config.num_speculative_tokens", "3"],
     "releases": ["0.24.0", "0.28.0", "0.33.0"],
     "reported": "starts; RuntimeError (expanded tensor size 10210 vs 16384) at serving time, fixed on main "
                 "(2026-06-26). The report's --tool-call-parser glm47 --enable-auto-tool-choice --reasoning-parser "
                 "glm45 are left out: the glm45 parser reads the tokenizer's vocabulary, which the CPU oracle has "
                 "not ('NoneType' object has no attribute 'get_vocab': a host artefact)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/45531", "kind": "serve",
     "model": "MiniMaxAI/MiniMax-M3-MXFP8",
     "args": ["--block-size", "128", "--enable-expert-parallel", "--tensor-parallel-size", "8",
              "--tool-call-parser", "minimax_m3", "--enable-auto-tool-choice", "--reasoning-parser", "minimax_m3",
              "--speculative-config", '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", '
              '"num_speculative_tokens": 3, "attention_backend": "FLASH_ATTN"}',
              "--mm-encoder-attn-backend", "FLASHINFER", "--mm-processor-cache-type", "shm",
              "--mm-encoder-tp-mode", "data"],
     "releases": ["0.28.0", "0.33.0"],
     "reported": "cannot start: the recipe's EAGLE3 draft Inferact/MiniMax-M3-EAGLE3 has no published files "
                 "(the minimax-m3 image, 2026-06-13)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/23832", "kind": "serve",
     "model": "openai/gpt-oss-120b", "env": {"VLLM_FLASH_ATTN_VERSION": "3"},
     "args": ["--max_model_len", "50000", "--tensor-parallel-size", "1", "--max-num-seqs", "1",
              "--kv-cache-dtype", "fp8"],
     "releases": ["0.10.2", "0.28.0", "0.33.0"],
     "reported": "the server starts with the fp8 KV cache; the first request fails in FlashAttention (0.10.x, "
                 "2025-08-28)"},
    {"issue": "https://github.com/vllm-project/vllm/issues/37974", "kind": "serve",
     "model": "moonshotai/Kimi-K2.5",
     "args": ["--port", "8087", "--distributed-executor-backend", "ray", "--trust-remote-code",
              "--tensor-parallel-size", "8", "--pipeline-parallel-size", "8", "--tool-call-parser", "kimi_k2",
              "--reasoning-parser", "kimi_k2"],
     "releases": ["0.18.0", "0.28.0"],
     "reported": "KeyError: 'language_model.model.layers.30.self_attn.attn' in the workers' initialize_from_config "
                 "(64 H100 over Ray, vLLM 0.18.0): past the engine configuration both runners follow"},
    {"issue": "https://github.com/vllm-project/vllm/issues/42426", "kind": "serve",
     "model": "nvidia/Kimi-K2.6-NVFP4", "args": ["--tensor-parallel-size", "8", "--decode-context-parallel-size", "8"],
     "releases": ["0.22.1", "0.28.0", "0.33.0"],
     "reported": "the suggested DCP launch for Kimi-K2.6 (MLA: -tp 8 -dcp 8), 2026-05-27"},
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
                  "engine_args": {"kv_cache_dtype": "fp8", **report.get("engine_args", {})},
                  "kv_after_config": True}]
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
                      + (f" mismatches={json.dumps(result['mismatches'])}" if result.get("mismatches") else "")
                      # kvguard undecided on the oracle's host (the runner's own answer is not compared then)
                      + "".join(f" undecidable: {u['reason']}" for u in result.get("undecidable") or ()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
