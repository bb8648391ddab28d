"""Record the model-construction golden cases from the real vLLM releases (tests/cases/<release>/mi-*.json).

usage: python tools/record_golden_quant.py [--vllm 0.28.0 ...] [--only ID ...]

Each case below is a launch whose config checks pass on the stated host (an 8-GPU H100-class
CUDA node, the official image) and which then reaches model construction.  The release itself
builds the whole model (every layer of the catalog checkpoint's config) at the launch's sizes on
the meta device (tests/upstream/quant_runner.py: the release's layers, quantization methods and
FusedMoE; the host's kernel choices are those of the default host, Triton for FP8 MoE), and the
case file records what it raised.  kvguard is not consulted for the expected values.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvguard import catalog  # noqa: E402  (only to read the built-in configs)

#: the host the cases state (the model-construction outcome is the default host's)
HOST = {"platform": "cuda", "gpus_per_node": 8, "ray": True, "triton": True, "nixl": False, "gpu_capability": 90,
        "cpu_memory_bytes": 1 << 40}

#: the boundary releases the cases are recorded for (the AWQ cases were recorded for 0.10.2, 0.11.0, 0.14.1,
#: 0.20.0, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-qwen25-72b-awq-tp16 ...``)
RELEASES = ("0.10.2", "0.11.0", "0.13.0", "0.14.0", "0.21.0", "0.22.0", "0.28.0", "0.29.0", "0.30.0", "0.33.0")

#: the quantization_config AutoGPTQ / AutoAWQ write (Qwen/Qwen3-30B-A3B-GPTQ-Int4, Qwen/Qwen3-30B-A3B-AWQ-style)
GPTQ_INT4 = {"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": False, "sym": True,
             "true_sequential": True, "quant_method": "gptq"}
AWQ_INT4 = {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm", "modules_to_not_convert": None,
            "quant_method": "awq"}

#: the quantization_config a ModelOpt NVFP4 export writes into config.json (flat layout)
MODELOPT_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"],
                  "kv_cache_scheme": None, "producer": {"name": "modelopt", "version": "0.29.0"}}

#: the quantization_config a ModelOpt FP8 (per-tensor) export writes into config.json (flat layout)
MODELOPT_FP8 = {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": ["lm_head"], "kv_cache_scheme": None,
                "producer": {"name": "modelopt", "version": "0.29.0"}}

#: block FP8 in Fp8Config's form (weight_block_size [128, 128], as DeepSeek-V3 / GLM-5-FP8 write it) on GLM-4.5-Air's
#: sizes, its dense first layer's MLP left unquantized (10944 is 85.5 blocks of 128)
GLM45_AIR_FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128],
                       "modules_to_not_convert": ["lm_head", "model.layers.0.mlp.gate_proj", "model.layers.0.mlp.up_proj",
                                                  "model.layers.0.mlp.down_proj"]}

#: block FP8 in Fp8Config's form on ERNIE-4.5's sizes (kvguard has no published block-FP8 ERNIE-4.5 config.json for
#: vLLM: Baidu's FP8 exports are PaddlePaddle's)
ERNIE45_FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}

#: the ignore list of llm-compressor's GLM-4.6 FP8_BLOCK example (examples/model_free_ptq/glm_4.6_fp8_block.py), for
#: the ignore list of llm-compressor's Qwen3-Next example (examples/quantization_w8a8_fp8/qwen3_next_example.py)
QWEN3_NEXT_CT_IGNORE = ["lm_head", "re:.*mlp.gate$", "re:.*mlp.shared_expert_gate$", "re:.*linear_attn.*"]
#: the ignore list of llm-compressor's Llama 4 recipes (examples/quantization_w4a16/llama4_example.py,
#: examples/quantization_w8a8_fp8/llama4_fp8_block_example.py)
LLAMA4_CT_IGNORE = ["re:.*lm_head", "re:.*self_attn", "re:.*router", "re:.*vision_model.*",
                    "re:.*multi_modal_projector.*", "Llama4TextAttention"]
#: Llama 4 ModelOpt exports in NVIDIA's form: hf_quant_config.json's nested layout (its producer block), ModelOpt's
#: Llama 4 exclusion patterns (projector, routers, vision model, LM head); no FP8 KV cache (the CPU oracle's platform
#: refuses its engine config)
_LLAMA4_MODELOPT_EXCLUDE = ["multi_modal_projector*", "*feed_forward.router", "vision_model*", "*lm_head"]
_LLAMA4_MODELOPT_FP8 = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
                        "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None,
                                         "exclude_modules": _LLAMA4_MODELOPT_EXCLUDE}}
_LLAMA4_MODELOPT_NVFP4 = {"quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.29.0"},
                          "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                                           "exclude_modules": _LLAMA4_MODELOPT_EXCLUDE}}
#: the GLM-4.5-Air compressed-tensors cases (the presets of CT_PRESETS)
GLM_CT_IGNORE = ["re:.*gate$", "lm_head", "model.embed_tokens"]

#: the multimodal wrappers' cases on the CPU oracle up to 0.17.1: no CPU swap space (the wrapper validates a copy of the
#: VllmConfig for its text config at the layout's tp, whose 4 GiB of swap per rank the oracle host's memory refuses;
#: construction does not read it, and a CUDA launch's argv never names it)
ORACLE_WRAPPER_HOST = {"engine_args": {"swap_space": 0}, "engine_args_until": "0.17.1"}

CASES = [
    {"id": "mi-glm45-air-ct-w4a16-tp2", "model": "zai-org/GLM-4.5-Air", "config_patch": {"torch_dtype": "bfloat16"},
     "quantization_config": "W4A16_G32", "ignore": GLM_CT_IGNORE, "argv": ["-tp", "2"],
     "since": "0.24.0",
     "why": "GLM-4.5-Air, compressed-tensors W4A16 (groups of 32), -tp 2: Marlin (tiles padded from 0.24.0) takes "
            "every linear layer, the Marlin MoE method the experts (704 per rank), the router gates stay unquantized: "
            "accepted"},
    {"id": "mi-glm45-air-ct-fp8-block-tp4", "model": "zai-org/GLM-4.5-Air",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "FP8_BLOCK", "ignore": GLM_CT_IGNORE,
     "argv": ["-tp", "4"],
     "why": "GLM-4.5-Air, compressed-tensors FP8_BLOCK [128, 128], -tp 4: the dense first layer's merged gate_up_proj "
            "(10944 / 4 = 2736 per rank) refuses its block_n from 0.11.0 (no merged-layer allowance for this "
            "scheme); 0.10.2 finds no scheme for block weights"},
    {"id": "mi-glm45-air-ct-fp8-dynamic-tp4", "model": "zai-org/GLM-4.5-Air",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "FP8_DYNAMIC", "ignore": GLM_CT_IGNORE,
     "argv": ["-tp", "4"],
     "why": "GLM-4.5-Air, compressed-tensors FP8_DYNAMIC (per-channel weights, dynamic per-token activations), -tp 4: "
            "no size check on the linear layers nor the experts: accepted"},
    {"id": "mi-glm45-air-fp8-tp4", "model": "zai-org/GLM-4.5-Air",
     "config_patch": {"quantization_config": GLM45_AIR_FP8_BLOCK}, "argv": ["-tp", "4"],
     "why": "GLM-4.5-Air, block FP8 [128, 128], -tp 4: 1408 / 4 = 352 per rank (2.75 blocks). 0.10.2 builds the routed "
            "experts first (the MoE method's block_n refusal); from 0.11.0 the shared experts come first and refuse as "
            "dense layers: the merged gate_up_proj up to 0.13.x, its row-parallel down_proj from 0.14.0 (ragged merged "
            "shards exempt), also after 0.29.0's MoE block refinement"},
    {"id": "mi-glm45-air-fp8-dp8-ep", "model": "zai-org/GLM-4.5-Air",
     "config_patch": {"quantization_config": GLM45_AIR_FP8_BLOCK}, "argv": ["-dp", "8", "--enable-expert-parallel"],
     "why": "GLM-4.5-Air, block FP8 [128, 128], -dp 8 with expert parallel: nothing is split by tp, 1408 is 11 blocks: "
            "accepted"},
    {"id": "mi-glm45-air-fp8-dp5-eplb", "model": "zai-org/GLM-4.5-Air",
     "config_patch": {"quantization_config": GLM45_AIR_FP8_BLOCK},
     "argv": ["-dp", "5", "--enable-expert-parallel", "--enable-eplb"],
     "why": "GLM-4.5-Air, block FP8, EPLB over 5 EP ranks: 128 experts do not split evenly (FusedMoE refuses while the "
            "first MoE layer is built, before any EPLB step)"},
    # --enable-eplb with redundant experts: GLM-4.7-Flash's MoE block takes --eplb-config's redundant experts but not
    # enable_eplb, which FusedMoE asserts on; GLM-4.5-Air's takes both (136 physical experts over 8 EP ranks)
    {"id": "mi-glm47-flash-eplb-redundant", "model": "zai-org/GLM-4.7-Flash", "config_from": "GLM4_MOE_LITE",
     "argv": ["-tp", "2", "-dp", "4", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
              '{"num_redundant_experts": 8}'],
     "since": "0.24.0",
     "why": "GLM-4.7-Flash (its sizes as tests/upstream/test_quant.py GLM4_MOE_LITE states them, one dense and one MoE "
            "layer), EPLB with 8 redundant experts: the model hands FusedMoE the redundant experts without "
            "enable_eplb, and FusedMoE asserts that none came without EPLB"},
    {"id": "mi-glm45-air-eplb-redundant", "model": "zai-org/GLM-4.5-Air",
     "argv": ["-tp", "2", "-dp", "4", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
              '{"num_redundant_experts": 8}'],
     "since": "0.24.0",
     "why": "GLM-4.5-Air, EPLB with 8 redundant experts: its MoE block takes enable_eplb and the redundant experts, "
            "128 + 8 = 136 split evenly over 8 EP ranks: accepted"},
    # ERNIE-4.5 MoE (Ernie4_5_MoeForCausalLM): the vLLM recipes' launches and the MoE block's refusals
    {"id": "mi-ernie45-300b-tp8-online-fp8", "model": "baidu/ERNIE-4.5-300B-A47B-PT",
     "argv": ["-tp", "8", "--quantization", "fp8"], "engine_args": {"quantization": "fp8"},
     "why": "ERNIE-4.5-300B-A47B as the vLLM recipe serves it on 8 GPUs (online FP8, per-tensor: no size check): "
            "accepted"},
    {"id": "mi-ernie45-300b-tp16", "model": "baidu/ERNIE-4.5-300B-A47B-PT", "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1",
     "why": "ERNIE-4.5-300B-A47B in BF16 on 16 GPUs (the recipe's multi-node launch): 4 heads and one replicated KV "
            "head per rank, 3584 / 16 = 224 expert rows per rank: accepted"},
    {"id": "mi-ernie45-300b-fp8-block-tp16", "model": "baidu/ERNIE-4.5-300B-A47B-PT",
     "config_patch": {"quantization_config": ERNIE45_FP8_BLOCK}, "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1",
     "why": "ERNIE-4.5-300B-A47B in block FP8 [128, 128], -tp 16: the three dense layers build (28672 / 16 = 1792 rows "
            "per rank), the first MoE layer's experts take 3584 / 16 = 224 rows per rank (1.75 blocks): the MoE "
            "method's block_n refusal up to 0.28.x; from 0.29.0 the block scales are refined (gcd 32) and Triton runs "
            "them"},
    {"id": "mi-ernie45-300b-tp2-dp3", "model": "baidu/ERNIE-4.5-300B-A47B-PT", "argv": ["-tp", "2", "-dp", "3"],
     "why": "ERNIE-4.5-300B-A47B in BF16, -tp 2 -dp 3 without expert parallel: the experts are split over tp x dp = 6, "
            "and 3584 is not a multiple of 6 (FusedMoE's bare assert on the per-partition intermediate size)"},
    {"id": "mi-ernie45-300b-dp6-eplb", "model": "baidu/ERNIE-4.5-300B-A47B-PT",
     "argv": ["-dp", "6", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     "why": "ERNIE-4.5-300B-A47B, EPLB over 6 EP ranks: the MoE block hands FusedMoE enable_eplb from 0.11.1, and 64 "
            "experts do not split evenly over 6 ranks"},
    {"id": "mi-ernie45-21b-fp8-block-tp2-dp4", "model": "baidu/ERNIE-4.5-21B-A3B-PT",
     "config_patch": {"quantization_config": ERNIE45_FP8_BLOCK}, "argv": ["-tp", "2", "-dp", "4"],
     "why": "ERNIE-4.5-21B-A3B in block FP8 [128, 128], -tp 2 -dp 4 without expert parallel: the shared experts (2 x "
            "1536 = 3072, split by tp: 1536 rows per rank) build, the routed experts take 1536 / 8 = 192 rows per "
            "rank (1.5 blocks): refused up to 0.28.x, refined (gcd 64) and accepted from 0.29.0"},
    # ERNIE-4.5-0.3B (Ernie4_5ForCausalLM, a LlamaForCausalLM subclass): the llama family's rows
    {"id": "mi-ernie45-0.3b-fp8-block-tp16", "model": "baidu/ERNIE-4.5-0.3B-PT",
     "config_patch": {"quantization_config": ERNIE45_FP8_BLOCK}, "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1",
     "why": "ERNIE-4.5-0.3B in block FP8 [128, 128], -tp 16: the MLP's 3072 / 16 = 192 rows per rank (1.5 blocks): "
            "the merged gate_up_proj refuses its block_n up to 0.13.x, its row-parallel down_proj its block_k from "
            "0.14.0 (ragged merged shards exempt)"},
    {"id": "mi-ernie45-0.3b-awq-tp16", "model": "baidu/ERNIE-4.5-0.3B-PT",
     "config_patch": {"torch_dtype": "float16", "quantization_config": AWQ_INT4},
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.11.1",
     "why": "ERNIE-4.5-0.3B as AutoAWQ writes it (4-bit, groups of 128), -tp 16: down_proj's 192 inputs per rank are not "
            "whole groups, so Marlin declines the layer and the plain AWQ kernels refuse it"},
    {"id": "mi-mimo-v2-flash-tp32", "model": "XiaomiMiMo/MiMo-V2-Flash", "argv": ["-tp", "32", "--nnodes", "4"],
     "since": "0.24.0",
     "why": "MiMo-V2-Flash, its block FP8 [128, 128], -tp 32: the attention and dense layers split into whole blocks "
            "(64 heads of 128-wide values: 256 per rank), the experts' 2048 into 64 per rank (half a block): the first "
            "MoE layer's experts refuse their block_n up to 0.28.x; from 0.29.0 the MoE method refines its block to "
            "64 and the Triton kernel of the default host takes it: accepted"},
    {"id": "mi-mimo-v2-flash-dp8-ep", "model": "XiaomiMiMo/MiMo-V2-Flash",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.24.0",
     "why": "MiMo-V2-Flash, block FP8, -dp 8 with expert parallel: nothing is split by tp, the experts are whole (256 "
            "over 8 EP ranks, 2048 is 16 blocks): accepted"},
    {"id": "mi-mimo-v2-flash-tp8", "model": "XiaomiMiMo/MiMo-V2-Flash", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "MiMo-V2-Flash, block FP8, -tp 8 (the launch of its model card): 2048 / 8 = 256 per expert rank: accepted"},
    {"id": "mi-dsv3-tp32", "model": "deepseek-ai/DeepSeek-V3",
     "argv": ["-tp", "32", "--nnodes", "4"],
     "since": "0.11.1",
     "why": "block-FP8 dense MLP at -tp 32 (576 per rank): the merged gate_up_proj refuses up to 0.13.0, from 0.14.0 "
            "it is exempt (ragged merged shards) and the row-parallel down_proj refuses"},
    {"id": "mi-dsv3-tp32-ray", "model": "deepseek-ai/DeepSeek-V3", "argv": ["-tp", "32"],
     "until": "0.11.0",
     "why": "block-FP8 dense MLP at -tp 32 (576 per rank; the official image's Ray spans the nodes before --nnodes "
            "exists): the merged gate_up_proj refuses"},
    {"id": "mi-qwen3-235b-fp8-tp8", "model": "Qwen/Qwen3-235B-A22B-FP8", "argv": ["-tp", "8"],
     "why": "MoE intermediate 1536 / 128 = 12 blocks: tp 8 refused up to 0.28.0; 0.29.0+ refines the block scales "
            "(Triton on an H100)"},
    {"id": "mi-qwen3-235b-fp8-tp4", "model": "Qwen/Qwen3-235B-A22B-FP8", "argv": ["-tp", "4"],
     "why": "tp 4 divides the 12 MoE blocks: accepted everywhere"},
    {"id": "mi-qwen3-30b-fp8-tp4", "model": "Qwen/Qwen3-30B-A3B-FP8", "argv": ["-tp", "4"],
     "why": "MoE intermediate 768 / 128 = 6 blocks: tp 4 refused up to 0.28.0, refined from 0.29.0"},
    {"id": "mi-qwen3-30b-fp8-dp8", "model": "Qwen/Qwen3-30B-A3B-FP8", "argv": ["-dp", "8"],
     "why": "without expert parallel the experts are split over tp x dp = 8: refused like -tp 8 up to 0.28.0"},
    {"id": "mi-qwen3-30b-fp8-dp8-ep", "model": "Qwen/Qwen3-30B-A3B-FP8", "argv": ["-dp", "8", "--enable-expert-parallel"],
     "why": "with expert parallel the experts are not sharded: accepted"},
    {"id": "mi-minimax-m25-tp8", "model": "MiniMaxAI/MiniMax-M2.5", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "MiniMax-M2.5 MoE intermediate 1536 at -tp 8 (192 per rank): refused up to 0.28.0, refined from 0.29.0"},
    {"id": "mi-dsv3-eplb-dp5", "model": "deepseek-ai/DeepSeek-V3",
     "argv": ["-dp", "5", "--enable-expert-parallel", "--enable-eplb"],
     "why": "EPLB needs the 256 experts to split evenly over the 5 EP ranks: a bare assert up to 0.21.0, a ValueError "
            "with the counts from 0.22.0"},
    {"id": "mi-dsv3-eplb-redundant", "model": "deepseek-ai/DeepSeek-V3",
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
              '{"num_redundant_experts": 4}'],
     "why": "256 + 4 redundant experts over 8 EP ranks"},
    {"id": "mi-dsv3-eplb-redundant-32", "model": "deepseek-ai/DeepSeek-V3",
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
              '{"num_redundant_experts": 32}'],
     "why": "256 + 32 redundant experts over 8 EP ranks: 36 per rank, accepted"},
    # AWQ (MI_awq_input / MI_awq_output): the plain AWQ kernels' per-rank alignment checks
    {"id": "mi-qwen25-72b-awq-tp16", "model": "Qwen/Qwen2.5-72B-Instruct-AWQ", "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1",
     "why": "AWQ down_proj input 29696 = 232 groups of 128: 1856 per rank at -tp 16 is not whole groups, Marlin "
            "declines the layer and the plain AWQ kernel refuses it (MI_awq_input)"},
    {"id": "mi-qwen25-72b-awq-tp16-ray", "model": "Qwen/Qwen2.5-72B-Instruct-AWQ", "argv": ["-tp", "16"],
     "until": "0.11.0",
     "why": "AWQ down_proj input 1856 per rank at -tp 16 (the official image's Ray spans the nodes before --nnodes "
            "exists): refused by the plain AWQ kernel (MI_awq_input)"},
    {"id": "mi-qwen25-72b-awq-tp8", "model": "Qwen/Qwen2.5-72B-Instruct-AWQ", "argv": ["-tp", "8"],
     "why": "AWQ down_proj input 3712 per rank at -tp 8 = 29 whole groups: accepted"},
    {"id": "mi-qwen25-72b-awq-tp8-quant-awq", "model": "Qwen/Qwen2.5-72B-Instruct-AWQ",
     "config_patch": {"torch_dtype": "float16"},
     "argv": ["-tp", "8", "--quantization", "awq"], "engine_args": {"quantization": "awq"},
     "why": "--quantization awq at -tp 8 (the checkpoint's float16, which the catalog's partial config omits; the "
            "plain AWQ kernels take float16 only): every layer whole groups and packed words, accepted"},
    {"id": "mi-awq-i29568-tp64", "model": "Qwen/Qwen2.5-72B-Instruct-AWQ",
     "config_patch": {"intermediate_size": 29568}, "argv": ["-tp", "64", "--nnodes", "8"],
     "since": "0.11.1",
     "why": "Qwen2.5-72B-Instruct-AWQ with intermediate size 29568 (231 groups of 128) at -tp 64, 462 per rank: up "
            "to 0.23.0 Marlin declines gate_up_proj and the plain AWQ kernel refuses its outputs, not whole packed "
            "words of 8 (MI_awq_output); from 0.24.0 Marlin pads that tile, and down_proj's inputs, a group "
            "straddling two ranks, fall back and are refused (MI_awq_input)"},
    # AWQ / GPTQ on MoE experts (Qwen3-30B-A3B with the quantization_config AutoGPTQ / AutoAWQ write, as in
    # Qwen/Qwen3-30B-A3B-GPTQ-Int4 / -AWQ): the WNA16 MoE backend selection of 0.20.0+ (recorded for 0.20.0,
    # 0.22.0, 0.26.0, 0.27.0, 0.28.0, 0.29.0, 0.32.0, 0.33.0: ``--vllm ... --only mi-qwen3-30b-gptq-tp2 ...``)
    {"id": "mi-qwen3-30b-gptq-tp2", "model": "Qwen/Qwen3-30B-A3B", "config_patch": {"quantization_config": GPTQ_INT4},
     "argv": ["-tp", "2"], "since": "0.20.0",
     "why": "GPTQ int4 experts at -tp 2 (384 per rank): the fused MoE Marlin kernel takes them and the backend "
            "selection on CUDA 9.0 picks MARLIN (after FLASHINFER_TRTLLM, SM100 only, from 0.23.0): accepted"},
    {"id": "mi-qwen3-30b-gptq-tp16", "model": "Qwen/Qwen3-30B-A3B", "config_patch": {"quantization_config": GPTQ_INT4},
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.11.1",
     "why": "GPTQ int4 experts at -tp 16 (768 / 16 = 48 per rank): Marlin declines them, the MoE WNA16 kernels halve "
            "the group of 128 to 32, which does not divide 48: bare AssertionError (MI_moe_wna16_group)"},
    {"id": "mi-qwen3-30b-gptq8-tp4", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": dict(GPTQ_INT4, bits=8)}, "argv": ["-tp", "4"],
     "why": "GPTQ int8 experts at -tp 4 (192 per rank: a group of 128 straddles two ranks): the MoE WNA16 fall-back, "
            "whose 0.27.0-0.28.0 constructor asserts group_size -1 for 8-bit weights; later releases select TRITON"},
    {"id": "mi-qwen3-30b-awq-tp2-moe-backend-triton", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": ["-tp", "2", "--moe-backend", "triton"],
     "engine_args": {"moe_backend": "triton"}, "since": "0.26.0",
     "why": "--moe-backend triton with AWQ experts: not a WNA16 MoE backend name in 0.26.0; from 0.27.0 "
            "the AWQ MoE method declares expert bias, which Triton does not take (ValueError)"},
    # --enable-eplb with AWQ / GPTQ experts: FusedMoE refuses a method without EPLB support once it is built
    # (recorded for 0.10.2, 0.11.1, 0.14.1, 0.15.0, 0.22.1, 0.24.0 and 0.33.0: ``--vllm ... --only
    # mi-qwen3-30b-gptq-tp4-eplb mi-dsr1-awq-tp8-eplb``)
    {"id": "mi-qwen3-30b-gptq-tp4-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": GPTQ_INT4},
     "argv": ["-tp", "4", "--enable-expert-parallel", "--enable-eplb"],
     "why": "GPTQ int4 experts with EPLB (128 experts over 4 EP ranks, 768 each: the Marlin MoE method): no GPTQ MoE "
            "method supports EPLB; NotImplementedError, 'only FP8' up to 0.11.0, then naming GPTQMarlinMoEMethod "
            "(AutoGPTQMoEMethod from 0.22.0), without the 'only FP8' sentence from 0.15.0"},
    {"id": "mi-dsr1-awq-tp8-eplb", "model": "deepseek-ai/DeepSeek-R1",
     "config_patch": {"quantization_config": dict(AWQ_INT4, group_size=64)},
     "argv": ["-tp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "why": "DeepSeek-R1-AWQ with EPLB: the MLA, dense and shared-expert layers fit Marlin at tp 8, then the routed "
            "experts' AWQ MoE method (AWQMoEMethod, AWQMarlinMoEMethod from 0.12.0, AutoAWQMoEMethod from 0.24.0) "
            "has no EPLB support: NotImplementedError"},
    # a Qwen3-MoE config with dense layers by decoder_sparse_step only (recorded for 0.11.1, 0.14.1 and 0.23.0:
    # ``--vllm ... --only mi-qwen3-30b-awq-gate-sparse-step2``): from 0.11.1 the model adds gate_up_proj to its
    # packed-modules mapping only when mlp_only_layers is set
    {"id": "mi-qwen3-30b-awq-gate-sparse-step2", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["gate"]),
                      "torch_dtype": "float16", "decoder_sparse_step": 2},
     "argv": ["-tp", "2"],
     "why": "AWQ modules_to_not_convert [gate] with every other layer dense (decoder_sparse_step 2, no mlp_only_layers): "
            "no gate_up_proj in the packed-modules mapping, so the dense gate_up_proj is matched by its own name "
            "('gate' is part of it) and left unquantized: accepted"},
    # --quantization awq named with EPLB (recorded for 0.10.2, 0.11.0, 0.11.1 and 0.12.0: ``--vllm ... --only
    # mi-qwen3-30b-awq-explicit-tp4-eplb``): AWQConfig itself builds the experts (the Marlin override declines a
    # named plain awq); the recorder must not let the CPU oracle's ipex override claim it
    {"id": "mi-qwen3-30b-awq-explicit-tp4-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": AWQ_INT4, "torch_dtype": "float16"},
     "argv": ["-tp", "4", "--enable-expert-parallel", "--enable-eplb", "--quantization", "awq"],
     "engine_args": {"quantization": "awq"},
     "why": "AWQ int4 experts named with --quantization awq and EPLB (128 experts over 4 EP ranks, 768 each: the "
            "AWQ MoE method): no EPLB support; NotImplementedError, 'only FP8' up to 0.11.0, then naming "
            "AWQMoEMethod (AWQMarlinMoEMethod from 0.12.0)"},
    # AWQ on DeepSeek-V3/R1 and MiniMax-M2 (the quantization_config form of cognitivecomputations/DeepSeek-R1-AWQ,
    # AutoAWQ GEMM with zero points and groups of 64, and of QuantTrio/MiniMax-M2.5-AWQ-style groups of 128; recorded
    # for 0.10.2, 0.14.1, 0.20.0, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-dsr1-awq-tp64 ...``)
    {"id": "mi-dsr1-awq-tp64", "model": "deepseek-ai/DeepSeek-R1",
     "config_patch": {"quantization_config": dict(AWQ_INT4, group_size=64)},
     "argv": ["-tp", "64", "--nnodes", "8"], "since": "0.11.1",
     "why": "AWQ groups of 64 at -tp 64: the dense MLP's down_proj gets 18432 / 64 = 288 inputs per rank, where a "
            "group straddles two ranks; Marlin declines it and the plain AWQ kernels refuse (ValueError)"},
    {"id": "mi-dsr1-awq-tp16", "model": "deepseek-ai/DeepSeek-R1",
     "config_patch": {"quantization_config": dict(AWQ_INT4, group_size=64)},
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.11.1",
     "why": "AWQ groups of 64 at -tp 16: MLA projections, the dense MLP (1152 per rank) and the experts (2048 / 16 = "
            "128 per rank, the fused MoE Marlin kernel) all fit; the router gate is not quantized: accepted"},
    {"id": "mi-dsr1-awq-gate-tp8", "model": "deepseek-ai/DeepSeek-R1",
     "config_patch": {"quantization_config": dict(AWQ_INT4, group_size=64, modules_to_not_convert=["gate"])},
     "argv": ["-tp", "8"],
     "why": "AWQ modules_to_not_convert [\"gate\"] (meant for the router): part of the dense gate_up_proj's name and of "
            "its gate_proj shard; up to 0.11.0 the fused name leaves it unquantized, 0.11.1-0.23.x match shard by "
            "shard and refuse the mixed layer (ValueError), 0.24.0+ match the fused name first: accepted"},
    {"id": "mi-minimax-m25-awq-tp16", "model": "MiniMaxAI/MiniMax-M2.5",
     "config_patch": {"quantization_config": AWQ_INT4, "torch_dtype": "bfloat16"},
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "AWQ experts at -tp 16 (1536 / 16 = 96 per rank: a group of 128 straddles two ranks): Marlin declines "
            "them, the MoE WNA16 kernels halve the group to 32, which divides 96: accepted"},
    # (recorded for 0.24.0 and 0.33.0: ``--vllm ... --only mi-minimax-m25-awq-qproj-tp4``; the releases before 0.24.0
    # need the checkpoint's config code, which the oracle environment does not have)
    {"id": "mi-minimax-m25-awq-qproj-tp4", "model": "MiniMaxAI/MiniMax-M2.5",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["q_proj"]),
                      "torch_dtype": "bfloat16"},
     "argv": ["-tp", "4"], "since": "0.24.0",
     "why": "AWQ modules_to_not_convert [q_proj]: MiniMax-M2's packed-modules mapping (from 0.15.0) makes qkv_proj's "
            "shards disagree (q_proj unquantized, k_proj / v_proj quantized): ValueError"},
    # online FP8: --quantization fp8 of an unquantized checkpoint (the release quantizes the weights while loading
    # them: Fp8Config() built without a checkpoint config, or the online config of fp8_per_tensor; recorded for
    # 0.10.2, 0.13.0, 0.14.1, 0.20.0, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-qwen3-30b-online-fp8-tp4 ...``)
    {"id": "mi-qwen3-30b-online-fp8-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4", "--quantization", "fp8"],
     "engine_args": {"quantization": "fp8"},
     "why": "online FP8 of Qwen3-30B-A3B at -tp 4: per-tensor FP8 linear and MoE methods (no block, nothing "
            "ignored), no shard check beyond the unquantized model's: accepted"},
    {"id": "mi-qwen3-30b-online-fp8-eplb-dp3", "model": "Qwen/Qwen3-30B-A3B",
     "argv": ["-dp", "3", "--enable-expert-parallel", "--enable-eplb", "--quantization", "fp8"],
     "engine_args": {"quantization": "fp8"},
     "why": "online FP8 experts take EPLB (an Fp8MoEMethod, or supports_eplb), whose even-distribution check refuses "
            "the 128 experts over 3 EP ranks: a bare assert up to 0.21.0, a ValueError with the counts from 0.22.0"},
    {"id": "vc-qwen3-8b-online-fp8-float32", "model": "Qwen/Qwen3-8B", "argv": ["--quantization", "fp8", "--dtype",
                                                                               "float32"],
     "vllm_config": {"quantization": "fp8", "dtype": "float32"},
     "why": "online FP8 with --dtype float32: VllmConfig refuses the model dtype, which the FP8 config "
            "(Fp8Config() / the online config) does not take (bfloat16 / float16 activations only)"},
    {"id": "vc-qwen3-8b-online-fp8-half", "model": "Qwen/Qwen3-8B", "argv": ["--quantization", "fp8", "--dtype", "half"],
     "vllm_config": {"quantization": "fp8", "dtype": "half"},
     "why": "online FP8 with --dtype half: float16 is among the FP8 config's activation dtypes, accepted"},
    # compressed-tensors: the catalog checkpoint with the quantization_config llm-compressor writes for its presets
    # (the case file carries the config inline)
    {"id": "mi-ct-qwen25-72b-fp8-block-tp8", "model": "Qwen/Qwen2.5-72B-Instruct", "argv": ["-tp", "8"],
     "since": "0.11.0", "quantization_config": "FP8_BLOCK",
     "why": "compressed-tensors FP8_BLOCK: intermediate 29568 / 8 = 3696 per rank (28.875 blocks of 128); the merged "
            "gate_up_proj refuses in every release (no merged-layer allowance: the config has no weight_block_size)"},
    {"id": "mi-ct-qwen25-72b-fp8-dynamic-tp8", "model": "Qwen/Qwen2.5-72B-Instruct", "argv": ["-tp", "8"],
     "quantization_config": "FP8_DYNAMIC",
     "why": "compressed-tensors FP8_DYNAMIC (per-channel weights, per-token activations): no shape check, accepted"},
    # the ignore list: should_ignore_layer (0.30.0+ find_matching_patterns) matches names whole and re: patterns at
    # the start; a fused layer goes through its shards
    {"id": "mi-ct-qwen25-72b-fp8-block-ignore-mlp-tp8", "model": "Qwen/Qwen2.5-72B-Instruct", "argv": ["-tp", "8"],
     "since": "0.11.0", "quantization_config": "FP8_BLOCK", "ignore": ["lm_head", "re:.*mlp.*"],
     "why": "compressed-tensors FP8_BLOCK with the MLP ignored: gate_up_proj and down_proj are built unquantized, so "
            "the 3696 features per rank that refuse in mi-ct-qwen25-72b-fp8-block-tp8 are not checked: accepted"},
    {"id": "mi-ct-llama31-8b-w4a16-ignore-q-proj", "model": "meta-llama/Llama-3.1-8B-Instruct", "argv": ["-tp", "8"],
     "quantization_config": "W4A16", "ignore": ["lm_head", "re:.*self_attn.q_proj"],
     "why": "compressed-tensors W4A16 whose ignore list names q_proj but not k_proj / v_proj: layer 0's fused "
            "qkv_proj refuses after its sharding (the message changes in 0.30.0)"},
    {"id": "mi-ct-qwen25-72b-w8a8-tp8", "model": "Qwen/Qwen2.5-72B-Instruct", "argv": ["-tp", "8"],
     "quantization_config": "W8A8",
     "why": "compressed-tensors INT8 W8A8 (per-channel INT8 weights, dynamic per-token INT8 activations): "
            "CompressedTensorsW8A8Int8 checks no size (intermediate 29568 / 8 = 3696 per rank), accepted"},
    # compressed-tensors NVFP4 (llm-compressor's NVFP4 / NVFP4A16 presets): on the default host no FP4 CUTLASS, FP4
    # Marlin, no size check - the sizes ModelOpt NVFP4 refuses (mi-modelopt-nvfp4-*) are accepted
    {"id": "mi-ct-qwen25-72b-nvfp4-tp16", "model": "Qwen/Qwen2.5-72B-Instruct", "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1", "quantization_config": "NVFP4",
     "why": "compressed-tensors NVFP4 (W4A4) Qwen2.5-72B at -tp 16: down_proj takes 29568 / 16 = 1848 input features "
            "per rank, not a multiple of 16; no FP4 CUTLASS on compute capability 9.0, the FP4 Marlin path checks no "
            "size while the layer is built: accepted"},
    {"id": "mi-ct-llama31-8b-nvfp4a16-i12000-tp4", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"intermediate_size": 12000, "torch_dtype": "bfloat16"}, "argv": ["-tp", "4"],
     "quantization_config": "NVFP4A16",
     "why": "compressed-tensors NVFP4A16 (weight-only), intermediate 12000 at -tp 4: down_proj takes 3000 input "
            "features per rank, not a multiple of 16: no size check (CompressedTensorsW4A16Fp4 up to 0.22.x, "
            "CompressedTensorsW4A4Fp4(use_a16=True) from 0.23.0), accepted"},
    # compressed-tensors NVFP4 weights with FP8 activations: no scheme takes them up to 0.22.x (NotImplementedError;
    # its message prints the QuantizationArgs objects from a release kvguard leaves undecided), the NVFP4 branch refuses
    # them from 0.23.0 (ValueError of two arguments up to 0.28.0, one from 0.29.0); recorded for 0.10.2, 0.16.0,
    # 0.23.0, 0.28.0, 0.29.0 and 0.33.0: ``--vllm ... --only mi-ct-llama31-8b-nvfp4-fp8-dynamic-tp8
    # mi-ct-qwen3-30b-nvfp4-fp8-static-tp4``
    {"id": "mi-ct-llama31-8b-nvfp4-fp8-dynamic-tp8", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"torch_dtype": "bfloat16"}, "argv": ["-tp", "8"],
     "quantization_config": "NVFP4_FP8_DYNAMIC",
     "why": "compressed-tensors NVFP4 weights with dynamic per-token FP8 activations: the first quantized layer "
            "(layer 0's qkv_proj) finds no scheme (NotImplementedError) or, from 0.23.0, the NVFP4 branch refuses "
            "the activations (ValueError)"},
    {"id": "mi-ct-qwen3-30b-nvfp4-fp8-static-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4"],
     "quantization_config": "NVFP4_FP8_STATIC", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors NVFP4 weights with static per-tensor FP8 activations on Qwen3-30B-A3B: layer 0's "
            "attention is built before its experts, so its qkv_proj refuses first, as in the dense models"},
    # compressed-tensors on MoE models: the forms of RedHatAI/Qwen3-30B-A3B-FP8-dynamic and FP8-block MoE checkpoints
    # (ignore: lm_head and the router gates)
    {"id": "mi-ct-qwen3-30b-fp8-block-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4"],
     "since": "0.11.0", "quantization_config": "FP8_BLOCK", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors FP8_BLOCK experts: MoE intermediate 768 / 4 = 192 per rank (1.5 blocks of 128); "
            "CompressedTensorsW8A8Fp8MoEMethod checks the block shape as written in every release (no refinement, "
            "unlike quant_method fp8 from 0.29.0)"},
    {"id": "mi-ct-qwen3-30b-fp8-dynamic-tp8", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "8"],
     "quantization_config": "FP8_DYNAMIC", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors FP8_DYNAMIC experts (per-channel weights, dynamic per-token activations): 96 per "
            "rank, no shape check, accepted"},
    {"id": "mi-ct-qwen3-30b-fp8-dynamic-dp8-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "quantization_config": "FP8_DYNAMIC",
     "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "EPLB with compressed-tensors FP8 experts: FusedMoE takes EPLB only with the fp8 method's or unquantized "
            "experts up to 0.11.0 (NotImplementedError); from 0.11.1 the compressed-tensors FP8 MoE method supports "
            "it"},
    # compressed-tensors NVFP4 experts: the form of RedHatAI/Qwen3-30B-A3B-NVFP4 (CompressedTensorsW4A4MoeMethod up to
    # 0.11.x, then CompressedTensorsW4A4Nvfp4MoEMethod, its backend FP4 Marlin on the default host; recorded for 0.10.2,
    # 0.11.1, 0.13.0, 0.14.1, 0.16.0, 0.17.1, 0.18.0, 0.19.1, 0.20.0, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only
    # mi-ct-qwen3-30b-nvfp4-tp4 mi-ct-qwen3-30b-nvfp4a16-tp4 mi-ct-qwen3-30b-nvfp4-dp8-eplb``)
    {"id": "mi-ct-qwen3-30b-nvfp4-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4"],
     "quantization_config": "NVFP4", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors NVFP4 experts: MoE intermediate 768 / 4 = 192 per rank; the NVFP4 MoE backend "
            "detection / selection falls to FP4 Marlin on compute capability 9.0 (0.17.0-0.19.x after importing the "
            "FlashInfer TRT-LLM experts module, flashinfer being installed) and create_weights checks no size: "
            "accepted"},
    {"id": "mi-ct-qwen3-30b-nvfp4a16-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4"],
     "quantization_config": "NVFP4A16",
     "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors NVFP4A16 experts: up to 0.13.x get_moe_method has no test for weight-only NVFP4 and "
            "its INT8 W8A8 test reads the absent activations' num_bits (AttributeError at the first MoE layer); from "
            "0.14.0 the NVFP4 method takes them (use_marlin / use_a16: the same method and backend): accepted"},
    {"id": "mi-ct-qwen3-30b-nvfp4-dp8-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "quantization_config": "NVFP4",
     "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "EPLB with compressed-tensors NVFP4 experts: up to 0.11.0 FusedMoE takes EPLB with the FP8 method only; "
            "from 0.11.1 the NVFP4 method's supports_eplb is False (true on FlashInfer backends from 0.28.0), not "
            "on FP4 Marlin: NotImplementedError"},
    # (recorded for 0.10.2, 0.13.0, 0.14.1, 0.18.0 and 0.33.0: ``--vllm ... --only mi-ct-mixtral-8x7b-nvfp4a16-tp8``)
    {"id": "mi-ct-mixtral-8x7b-nvfp4a16-tp8", "model": "mistralai/Mixtral-8x7B-v0.1", "argv": ["-tp", "8"],
     "quantization_config": "NVFP4A16", "ignore": ["lm_head", "re:.*block_sparse_moe.gate"],
     "why": "compressed-tensors NVFP4A16 experts of Mixtral (14336 / 8 = 1792 per rank): refused by get_moe_method up "
            "to 0.13.x (AttributeError), from 0.14.0 the NVFP4 method on FP4 Marlin: accepted"},
    # compressed-tensors integer-weight experts: the form of RedHatAI/Qwen3-30B-A3B-quantized.w4a16
    {"id": "mi-ct-qwen3-30b-w4a16-tp4", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "4"],
     "quantization_config": "W4A16", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors W4A16 experts (group 128): 768 / 4 = 192 per rank; the fused Marlin MoE check fails "
            "up to 0.24.0 (192 is not a multiple of 128) and the CompressedTensorsWNA16MoEMethod fall-back takes the "
            "layer, which checks no size up to 0.23.0 and refuses the straddling group from 0.24.0 (from 0.27.0 "
            "whichever backend is chosen)"},
    {"id": "mi-ct-qwen3-30b-w4a16-tp2", "model": "Qwen/Qwen3-30B-A3B", "argv": ["-tp", "2"],
     "quantization_config": "W4A16", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors W4A16 experts (group 128): 384 per rank, three whole groups and a Marlin tile: "
            "accepted"},
    # compressed-tensors integer-weight experts on DeepSeek-V3/R1 and MiniMax-M2 (llm-compressor's W4A16 preset, its
    # ignore list: lm_head and the router gates; recorded for 0.10.2, 0.24.0, 0.28.0 and 0.33.0:
    # ``--vllm ... --only mi-ct-dsr1-w4a16-tp8-eplb mi-ct-minimax-m25-w4a16-tp8``)
    {"id": "mi-ct-dsr1-w4a16-tp8-eplb", "model": "deepseek-ai/DeepSeek-R1",
     "argv": ["-tp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "quantization_config": "W4A16", "ignore": ["lm_head", "re:.*mlp.gate$"],
     "why": "compressed-tensors W4A16 on DeepSeek-R1 with EPLB: the MLA projections, the dense MLP (2304 per rank) and "
            "the shared experts (256 per rank) take the WNA16 linear scheme (Marlin), the router gate is built "
            "unquantized; the routed experts (2048 per EP rank) take the fused Marlin MoE method, which has no EPLB "
            "support: NotImplementedError ('only FP8' up to 0.11.0, naming CompressedTensorsWNA16MarlinMoEMethod, "
            "from 0.27.0 CompressedTensorsWNA16MoEMethod on a backend other than TRITON)"},
    {"id": "mi-ct-minimax-m25-w4a16-tp8", "model": "MiniMaxAI/MiniMax-M2.5", "argv": ["-tp", "8"],
     "since": "0.24.0", "config_patch": {"torch_dtype": "bfloat16"},
     "quantization_config": "W4A16", "ignore": ["lm_head", "re:.*block_sparse_moe.gate$"],
     "why": "compressed-tensors W4A16 experts on MiniMax-M2.5 (group 128): 1536 / 8 = 192 per rank, a group and a "
            "half; Marlin declines the straddling group and the compressed-tensors WNA16 MoE method refuses it "
            "(ValueError, from 0.24.0)"},
]

# DeepSeek-V4 (kvguard.quant.dsv4, 0.20.0+): the CUDA model (vllm/models/deepseek_v4/nvidia; 0.20.x - 0.21.0
# vllm/model_executor/models/deepseek_v4.py), its FP4 experts' MXFP4 backend chosen by the release's own selection on
# CUDA 9.0 (Marlin); the whole released config is built (recorded for 0.30.0 - 0.33.0, and 0.20.0, 0.22.0, 0.24.0,
# 0.29.0: ``--vllm ... --only mi-dsv4-flash-tp8 mi-dsv4-flash-tp8-kvfp8``)
CASES += [
    {"id": "mi-dsv4-flash-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash", "argv": ["-tp", "8"],
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash at -tp 8: wo_a 8 x 1024 outputs (1024 a rank), wo_b 1024 inputs a rank, the shared "
            "experts rounded up to whole blocks, 256 MXFP4 experts (Marlin): accepted from 0.30.0 (auto KV cache read "
            "as fp8); before, the attention's FP8 block layout asserts an fp8 --kv-cache-dtype (auto refused)"},
    {"id": "mi-dsv4-flash-tp8-kvfp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0", "until": "0.29.0",
     "why": "DeepSeek-V4-Flash at -tp 8 with the fp8 KV cache the attention's block layout takes before 0.30.0: "
            "accepted"},
    {"id": "mi-dsv4-flash-tp4-eplb-r2", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "4", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", '{"num_redundant_experts": 2}'],
     "since": "0.30.0",
     "why": "256 + 2 redundant experts at -tp 4 with expert parallel: 0.30.0's fused-MoE path asserts that tp divides "
            "them (AssertionError with a message); 0.31.0 dropped it and EPLB's even split refuses (ValueError)"},
    {"id": "mi-dsv4-flash-olora1000-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "config_patch": {"o_lora_rank": 1000}, "argv": ["-tp", "8"], "since": "0.30.0",
     "why": "DeepSeek-V4-Flash with an output LoRA rank of 1000: wo_a's 8 x 1000 outputs are 1000 a rank at -tp 8, not "
            "whole 128-blocks: validate_fp8_block_shape refuses (block_n)"},
    # forms decided later: no shared experts, FP8 / unknown experts' dtype, --moe-backend marlin (recorded for 0.20.0,
    # 0.24.0, 0.30.0 and 0.33.0: ``--vllm ... --only mi-dsv4-flash-noshared-tp8 mi-dsv4-flash-shared0-tp8
    # mi-dsv4-flash-shared0-tp1 mi-dsv4-flash-fp8experts-tp8 mi-dsv4-flash-fp8experts-i1000-tp8
    # mi-dsv4-flash-expertbf16-tp8 mi-dsv4-flash-marlin-tp8``)
    {"id": "mi-dsv4-flash-noshared-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash", "config_drop": ["n_shared_experts"],
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash without n_shared_experts: the config class has no default before 0.33.0, so the first "
            "MoE block's read of it is an AttributeError; 0.33.0's class defaults it to 1 and the launch builds"},
    {"id": "mi-dsv4-flash-shared0-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash", "config_patch": {"n_shared_experts": 0},
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash with n_shared_experts 0 at -tp 8: the shared experts' gate/up projection has no rows and "
            "its block-FP8 check divides by the empty per-rank output (ZeroDivisionError)"},
    {"id": "mi-dsv4-flash-shared0-tp1", "model": "deepseek-ai/DeepSeek-V4-Flash", "config_patch": {"n_shared_experts": 0},
     "argv": ["--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash with n_shared_experts 0 on one GPU: the empty shared experts are not split, every block "
            "check passes: accepted"},
    {"id": "mi-dsv4-flash-fp8experts-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash", "config_patch": {"expert_dtype": "fp8"},
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash with block-FP8 experts (expert_dtype fp8, 0.20.1+; 0.20.0 ignores the key) at -tp 8: "
            "2048 / 8 = 256 a rank, whole blocks: accepted"},
    {"id": "mi-dsv4-flash-fp8experts-i1000-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "config_patch": {"expert_dtype": "fp8", "moe_intermediate_size": 1000},
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.24.0",
     "why": "DeepSeek-V4-Flash with block-FP8 experts of intermediate size 1000 at -tp 8: the shared experts round up "
            "to whole blocks, the routed experts' 125 a rank are refused by the block-FP8 MoE method (block_n)"},
    {"id": "mi-dsv4-flash-expertbf16-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash", "config_patch": {"expert_dtype": "bf16"},
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash with expert_dtype bf16: from 0.20.1 the FP8 config refuses it when the first block-FP8 "
            "linear asks for its scale dtype (ValueError); 0.20.0 ignores the key and builds MXFP4 experts"},
    {"id": "mi-dsv4-flash-marlin-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "marlin"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "marlin"}, "since": "0.20.0",
     "why": "DeepSeek-V4-Flash at -tp 8 with --moe-backend marlin: the FP4 experts' method asks Marlin's kernel class, "
            "supported on compute capability 9.0 (what auto selects there): accepted"},
    # --attention-backend (recorded for 0.20.0, 0.24.0, 0.28.0, 0.30.0 and 0.33.0: ``--vllm ... --only
    # mi-dsv4-flash-attn-flashinfer-sparse-tp8 mi-dsv4-flash-attn-flashmla-sparse-tp8 mi-dsv4-flash-moe-cutlass-tp8``)
    {"id": "mi-dsv4-flash-attn-flashinfer-sparse-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--attention-backend", "FLASHINFER_MLA_SPARSE"],
     "engine_args": {"kv_cache_dtype": "fp8", "attention_backend": "FLASHINFER_MLA_SPARSE"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash at -tp 8 with --attention-backend FLASHINFER_MLA_SPARSE: from 0.24.0 the CUDA model "
            "refuses the generic FlashInfer sparse-MLA backend when layer 0 picks its attention class (ValueError); "
            "before 0.23.0 the flag is not read while the model is built and 0.23.0 builds FlashMLA's class: accepted"},
    {"id": "mi-dsv4-flash-attn-flashmla-sparse-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--attention-backend", "FLASHMLA_SPARSE"],
     "engine_args": {"kv_cache_dtype": "fp8", "attention_backend": "FLASHMLA_SPARSE"},
     "since": "0.20.0",
     "why": "DeepSeek-V4-Flash at -tp 8 with --attention-backend FLASHMLA_SPARSE: FlashMLA's sparse-MLA class, the "
            "default on compute capability 9.0: accepted"},
    # a --moe-backend the MXFP4 map lacks (recorded with the two above from 0.21.0; mi-dsv4-flash-marlin-tp8 is the
    # accepted one)
    {"id": "mi-dsv4-flash-moe-cutlass-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "cutlass"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "cutlass"}, "since": "0.21.0",
     "why": "DeepSeek-V4-Flash at -tp 8 with --moe-backend cutlass: the FP4 experts' Mxfp4MoEMethod maps the name to "
            "an MXFP4 kernel family and its map has none for it: ValueError listing the release's names, on every GPU "
            "(from 0.21.0: DeepSeek-V4's own MXFP4 selection; 0.20.x's generic one is stood in by the runner)"},
    # FP8 / NVFP4 experts with a named --moe-backend: the refusals before the experts, and a name the experts' map
    # lacks (recorded for 0.20.1, 0.23.0, 0.24.0, 0.30.0 and 0.33.0: ``--vllm ... --only
    # mi-dsv4-flash-fp8experts-moe-emulation-tp8 mi-dsv4-flash-fp8experts-triton-kvauto-tp8
    # mi-dsv4-flash-fp8experts-triton-attn-flashinfer-tp8 mi-dsv4-nvfp4-flash-moe-triton-tp8``)
    {"id": "mi-dsv4-flash-fp8experts-moe-emulation-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "config_patch": {"expert_dtype": "fp8"}, "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "emulation"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "emulation"}, "since": "0.20.1",
     "why": "DeepSeek-V4-Flash with block-FP8 experts at -tp 8 with --moe-backend emulation: every layer before the "
            "experts builds, then the experts' Fp8MoEMethod maps the name and its FP8 map has none for it: ValueError "
            "listing the map's names, on every GPU"},
    {"id": "mi-dsv4-flash-fp8experts-triton-kvauto-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "config_patch": {"expert_dtype": "fp8"}, "argv": ["-tp", "8", "--moe-backend", "triton"],
     "engine_args": {"moe_backend": "triton"}, "since": "0.20.1", "until": "0.29.0",
     "why": "DeepSeek-V4-Flash with block-FP8 experts at -tp 8 with --moe-backend triton and the auto KV cache: layer "
            "0's attention refuses the auto KV cache before the experts ask their backend (before 0.30.0)"},
    {"id": "mi-dsv4-flash-fp8experts-triton-attn-flashinfer-tp8", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "config_patch": {"expert_dtype": "fp8"},
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "triton", "--attention-backend",
              "FLASHINFER_MLA_SPARSE"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "triton", "attention_backend": "FLASHINFER_MLA_SPARSE"},
     "since": "0.24.0",
     "why": "DeepSeek-V4-Flash with block-FP8 experts at -tp 8 with --moe-backend triton and --attention-backend "
            "FLASHINFER_MLA_SPARSE: layer 0 refuses the attention backend when it picks its class, before the experts"},
    {"id": "mi-dsv4-nvfp4-flash-moe-triton-tp8", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "triton"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "triton"}, "since": "0.22.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 at -tp 8 with --moe-backend triton: the NVFP4 experts' selection maps the "
            "name first and its NVFP4 map has none for it: ValueError listing the map's names, on every GPU"},
    # a named NVFP4 backend that does not apply the exports' SwiGLU clamp (recorded for 0.22.0, 0.23.0, 0.24.0, 0.28.0,
    # 0.30.0 and 0.33.0: ``--vllm ... --only mi-dsv4-nvfp4-flash-moe-b12x-tp8 mi-dsv4-nvfp4-flash-moe-marlin-tp8``)
    {"id": "mi-dsv4-nvfp4-flash-moe-b12x-tp8", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "flashinfer_b12x"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "flashinfer_b12x"}, "since": "0.22.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 (swiglu_limit 10.0) at -tp 8 with --moe-backend flashinfer_b12x: the NVFP4 "
            "selection maps the name, then refuses a backend that does not apply the SwiGLU clamp (ValueError naming "
            "the release's clamping backends), on every GPU"},
    {"id": "mi-dsv4-nvfp4-flash-moe-marlin-tp8", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8", "--moe-backend", "marlin"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "marlin"}, "since": "0.22.0", "until": "0.23.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 (swiglu_limit 10.0) at -tp 8 with --moe-backend marlin: before 0.24.0 Marlin "
            "does not apply the SwiGLU clamp: ValueError, on every GPU"},
    # NVIDIA's ModelOpt NVFP4 exports (block-FP8 linears, moe_quant_algo NVFP4: the routed experts' ModelOptNvFp4FusedMoE
    # and the release's own NVFP4 MoE selection on CUDA 9.0, from 0.22.0; recorded for 0.21.0, 0.22.1, 0.23.0, 0.24.0,
    # 0.30.0 and 0.33.0: ``--vllm ... --only mi-dsv4-nvfp4-flash-tp8 mi-dsv4-nvfp4-pro-tp8 mi-dsv4-nvfp4-flash-tp4-eplb``)
    {"id": "mi-dsv4-nvfp4-flash-tp8", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.21.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 at -tp 8: 0.22.0 - 0.23.0 build NVFP4 experts whose SwiGLU clamp "
            "(swiglu_limit 10.0) only FlashInfer TRT-LLM applies, which compute capability 9.0 lacks "
            "(NotImplementedError); 0.24.0+ Marlin applies it: accepted; 0.21.0 does not read moe_quant_algo (MXFP4 "
            "experts): accepted"},
    {"id": "mi-dsv4-nvfp4-pro-tp8", "model": "nvidia/DeepSeek-V4-Pro-NVFP4",
     "argv": ["-tp", "8", "--kv-cache-dtype", "fp8"], "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.21.0",
     "why": "nvidia/DeepSeek-V4-Pro-NVFP4 at -tp 8: as the Flash export (384 NVFP4 experts, 3072 / 8 = 384 a rank)"},
    {"id": "mi-dsv4-nvfp4-flash-tp4-eplb", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "4", "-dp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
              '{"num_redundant_experts": 8}', "--kv-cache-dtype", "fp8"],
     "engine_args": {"kv_cache_dtype": "fp8"},
     "since": "0.24.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 at -tp 4 -dp 2 with expert parallel and EPLB (264 physical experts over 8 "
            "EP ranks): the NVFP4 experts' method takes EPLB, Marlin applies the clamp: accepted"},
    # the MegaMoE path (--moe-backend deep_gemm_mega_moe with expert parallel, 0.22.0+): the experts' assert that the
    # EP group (dp x pcp x tp) divides them (vllm-project/vllm#52435; recorded for 0.20.0, 0.21.0, 0.22.0, 0.23.0,
    # 0.28.0, 0.30.0 and 0.33.0: ``--vllm ... --only mi-dsv4-flash-mega-dp3 mi-dsv4-flash-mega-dp5-eplb-r3 mi-dsv4-nvfp4-flash-mega-tp2-dp3``)
    {"id": "mi-dsv4-flash-mega-dp3", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-dp", "3", "--enable-expert-parallel", "--kv-cache-dtype", "fp8", "--moe-backend", "deep_gemm_mega_moe"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "deep_gemm_mega_moe"}, "since": "0.20.0",
     "why": "DeepSeek-V4-Flash over 3 data-parallel ranks with expert parallel and the MegaMoE backend: 256 routed "
            "experts over an EP group of 3 (AssertionError: bare to 0.22.x, with the message from 0.23.0)"},
    {"id": "mi-dsv4-flash-mega-dp5-eplb-r3", "model": "deepseek-ai/DeepSeek-V4-Flash",
     "argv": ["-dp", "5", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", '{"num_redundant_experts": 3}',
              "--kv-cache-dtype", "fp8", "--moe-backend", "deep_gemm_mega_moe"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "deep_gemm_mega_moe"}, "since": "0.20.0",
     "why": "the MegaMoE assert counts --eplb-config's redundant experts from 0.23.0: 256 + 3 over 5 EP ranks "
            "(to 0.22.x: 256 over 5, bare)"},
    {"id": "mi-dsv4-nvfp4-flash-mega-tp2-dp3", "model": "nvidia/DeepSeek-V4-Flash-NVFP4",
     "argv": ["-tp", "2", "-dp", "3", "--enable-expert-parallel", "--kv-cache-dtype", "fp8", "--moe-backend",
              "deep_gemm_mega_moe"],
     "engine_args": {"kv_cache_dtype": "fp8", "moe_backend": "deep_gemm_mega_moe"}, "since": "0.20.0",
     "why": "nvidia/DeepSeek-V4-Flash-NVFP4 at -tp 2 -dp 3 with the MegaMoE backend: the shared experts replicated "
            "from 0.27.0 (the MoE runs sequence-parallel), then 256 routed experts over an EP group of 6 (the NVFP4 "
            "experts are not read before the assert)"},
]

#: Gemma 4 26B-A4B as block FP8 (Fp8Config), the dense MLP narrowed to 2048 (a multiple of 128 per rank at tp 1 – 16)
#: so that the experts (moe_intermediate_size 704, gelu_tanh) are the first layer whose block shape the method checks
_GEMMA4_BLOCK_FP8 = {"text_config": dict(catalog.lookup("google/gemma-4-26B-A4B").config["text_config"],
                                         intermediate_size=2048),
                     "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic",
                                             "weight_block_size": [128, 128]}}

# ModelOpt NVFP4 (kvguard.quant.modelopt_shards): Llama-3.1-8B as the flat export ModelOpt writes into config.json
# (nvidia/Llama-3.1-8B-Instruct-FP4-style), with an intermediate size of 12000 (750 groups of 16)
CASES += [
    {"id": "mi-modelopt-nvfp4-i12000-tp4", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"intermediate_size": 12000, "torch_dtype": "bfloat16", "quantization_config": MODELOPT_NVFP4},
     "argv": ["-tp", "4"],
     "why": "ModelOpt NVFP4, intermediate 12000 at -tp 4: down_proj takes 3000 input features per rank, not a "
            "multiple of 16: refused in every release"},
    {"id": "mi-modelopt-nvfp4-i12000-tp2", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"intermediate_size": 12000, "torch_dtype": "bfloat16", "quantization_config": MODELOPT_NVFP4},
     "argv": ["-tp", "2"],
     "why": "ModelOpt NVFP4, intermediate 12000 at -tp 2: 6000 input features per rank (375 x 16): accepted"},
    # Qwen2.5-72B-Instruct exported by ModelOpt as NVFP4 (the README's row)
    {"id": "mi-modelopt-nvfp4-qwen25-72b-tp16", "model": "Qwen/Qwen2.5-72B-Instruct",
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.11.1",
     "why": "ModelOpt NVFP4 Qwen2.5-72B at -tp 16: down_proj takes 29568 / 16 = 1848 input features per rank, "
            "not a multiple of 16: refused in every release"},
    {"id": "mi-modelopt-nvfp4-qwen25-72b-tp16-ray", "model": "Qwen/Qwen2.5-72B-Instruct",
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "16"],
     "until": "0.11.0",
     "why": "ModelOpt NVFP4 Qwen2.5-72B at -tp 16 (Ray spans the nodes before --nnodes exists): 1848 input "
            "features per rank in down_proj, not a multiple of 16: refused"},
    {"id": "mi-modelopt-nvfp4-qwen25-72b-tp8", "model": "Qwen/Qwen2.5-72B-Instruct",
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "why": "ModelOpt NVFP4 Qwen2.5-72B at -tp 8: 3696 input features per rank (231 x 16): accepted"},
    # Qwen3-30B-A3B exported by ModelOpt (nvidia/Qwen3-30B-A3B-FP4-style flat config): the experts' methods
    # (ModelOptNvFp4FusedMoE / ModelOptFp8MoEMethod) on the default host
    {"id": "mi-modelopt-nvfp4-qwen3-30b-a3b-tp8", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "why": "ModelOpt NVFP4 Qwen3-30B-A3B at -tp 8: the experts take 768 / 8 = 96 intermediate features per rank "
            "(FP4 Marlin on compute capability 9.0, no size check): accepted"},
    {"id": "mi-modelopt-nvfp4-qwen3-30b-a3b-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": MODELOPT_NVFP4},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "why": "ModelOpt NVFP4 experts with EPLB: FusedMoE refuses ModelOptNvFp4FusedMoE up to 0.12.x (0.13.0 sets "
            "supports_eplb)"},
    {"id": "mi-modelopt-fp8-qwen3-30b-a3b-eplb", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": MODELOPT_FP8},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "why": "ModelOpt FP8 experts with EPLB: ModelOptFp8MoEMethod never takes EPLB: refused in every release"},
    # gpt-oss-120b as published (MXFP4 experts; kvguard.quant.gpt_oss), recorded for 0.10.2, 0.16.0, 0.20.0, 0.24.0,
    # 0.33.0 (``--only mi-gptoss-120b-tp8 mi-gptoss-120b-dp7-ep mi-gptoss-120b-eplb``)
    {"id": "mi-gptoss-120b-tp8", "model": "openai/gpt-oss-120b", "argv": ["-tp", "8"],
     "why": "gpt-oss-120b at -tp 8: world 8 divides the intermediate size 2880; the MXFP4 experts (Triton on the "
            "default host) pad 360 per rank and check nothing: accepted"},
    {"id": "mi-gptoss-120b-dp7-ep", "model": "openai/gpt-oss-120b", "argv": ["-dp", "7", "--enable-expert-parallel"],
     "why": "gpt-oss-120b at -dp 7 with expert parallel: the MLP block asserts that torch.distributed's world size "
            "(7) divides the intermediate size 2880: a bare AssertionError in every release"},
    {"id": "mi-gptoss-120b-eplb", "model": "openai/gpt-oss-120b",
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.24.0",
     "why": "gpt-oss-120b with EPLB: from 0.24.0 the MoE layer reads --enable-eplb and refuses GptOssMxfp4MoEMethod "
            "(no supports_eplb)"},
    # NVIDIA's ModelOpt exports as published (catalog: config.json and hf_quant_config.json, with their exclusion lists
    # and FP8 KV cache), recorded for 0.10.2, 0.13.0, 0.33.0 (0.14.0 - 0.2x: the CPU oracle refuses an FP8 KV cache with
    # chunked prefill, a refusal of the CPU platform)
    {"id": "mi-modelopt-nvfp4-qwen3-235b-a22b-tp8", "model": "nvidia/Qwen3-235B-A22B-NVFP4", "argv": ["-tp", "8"],
     "why": "nvidia/Qwen3-235B-A22B-NVFP4 at -tp 8 (hf_quant_config.json: NVFP4, every router gate excluded): the "
            "attention and the experts' inputs per rank are multiples of 16: accepted"},
    {"id": "mi-modelopt-nvfp4-deepseek-v31-tp8", "model": "nvidia/DeepSeek-V3.1-NVFP4", "argv": ["-tp", "8"],
     "why": "nvidia/DeepSeek-V3.1-NVFP4 at -tp 8 (hf_quant_config.json: NVFP4, every MLA projection and the last "
            "layer excluded): the dense and expert inputs per rank are multiples of 16: accepted"},
    # more of NVIDIA's published exports (catalog, aiconfigurator-core 0.12.0's copies); the NVFP4 ones name an FP8 KV
    # cache, so they are recorded where the CPU oracle builds one (not 0.14.0 - 0.2x, see above)
    {"id": "mi-modelopt-fp8-static-qwen3-32b-tp4", "model": "Qwen/Qwen3-32B-FP8-Static-PerTensor",
     "argv": ["-tp", "4"],
     "why": "Qwen/Qwen3-32B-FP8-Static-PerTensor at -tp 4: its config.json's quantization_config (ModelOpt's flat "
            "FP8 layout) has no quant_method, so no override claims it: ModelConfig's quantization is None from "
            "0.11.0 and the model is built unquantized (0.10.2 refuses the empty method name)"},
    {"id": "vc-modelopt-fp8-static-qwen3-32b", "model": "Qwen/Qwen3-32B-FP8-Static-PerTensor", "argv": [],
     "vllm_config": {}, "until": "0.11.0",
     "why": "Qwen/Qwen3-32B-FP8-Static-PerTensor: the quantization_config without quant_method: 0.10.2 takes the empty "
            "method as a name and refuses it as unknown; from 0.11.0 it reads as no quantization"},
    {"id": "mi-modelopt-nvfp4-dsv32-tp8", "model": "nvidia/DeepSeek-V3.2-NVFP4", "argv": ["-tp", "8"],
     "since": "0.11.0",
     "why": "nvidia/DeepSeek-V3.2-NVFP4 at -tp 8 (hf_quant_config.json: NVFP4, the MLA projections and indexers "
            "excluded): accepted"},
    {"id": "mi-modelopt-nvfp4-glm5-tp8", "model": "nvidia/GLM-5-NVFP4", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/GLM-5-NVFP4 at -tp 8 (hf_quant_config.json: NVFP4, the attention excluded): accepted (before "
            "0.24.0 the release's Transformers does not know glm_moe_dsa)"},
    {"id": "mi-modelopt-nvfp4-kimi-k26-tp8", "model": "nvidia/Kimi-K2.6-NVFP4", "argv": ["-tp", "8"],
     "since": "0.15.0",
     "why": "nvidia/Kimi-K2.6-NVFP4 at -tp 8 (quantization_config in config.json: flat NVFP4, the attention and "
            "shared experts excluded): accepted"},
    {"id": "mi-modelopt-nvfp4-minimax-m25-tp8", "model": "nvidia/MiniMax-M2.5-NVFP4", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/MiniMax-M2.5-NVFP4 at -tp 8 (quantization_config in config.json: flat NVFP4, the attention "
            "and router gates excluded): accepted (before 0.24.0 minimax_m2 needs the checkpoint's custom code)"},
    # exclusion lists (kvguard.quant.modelopt_shards.layer_state): the flat "ignore" is read from 0.11.1
    {"id": "mi-modelopt-nvfp4-i12000-tp4-mlp-excluded", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"intermediate_size": 12000, "torch_dtype": "bfloat16",
                      "quantization_config": dict(MODELOPT_NVFP4, ignore=["lm_head", "model.layers.*.mlp*"])},
     "argv": ["-tp", "4"],
     "why": "ModelOpt NVFP4, intermediate 12000 at -tp 4 (down_proj: 3000 input features per rank) with ignore "
            "[lm_head, model.layers.*.mlp*]: 0.10.2 - 0.11.0 read the flat exclude_modules only, so down_proj is "
            "quantized and refused; from 0.11.1 ignore is read and every MLP matches (regular expression, then "
            "fnmatch; 0.26.0+ as model.layers.*.mlp / model.layers.*.mlp.* after the Llama mapper): accepted"},
    # the same exports with the experts split by expert parallel over 8 data-parallel ranks
    {"id": "mi-modelopt-nvfp4-dsv32-dp8-ep", "model": "nvidia/DeepSeek-V3.2-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.11.0",
     "why": "nvidia/DeepSeek-V3.2-NVFP4 at -dp 8 --enable-expert-parallel (NVFP4 experts whole on each rank, 8 ranks): accepted"},
    {"id": "mi-modelopt-nvfp4-glm5-dp8-ep", "model": "nvidia/GLM-5-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.24.0",
     "why": "nvidia/GLM-5-NVFP4 at -dp 8 --enable-expert-parallel (NVFP4 experts whole on each rank, 8 ranks): accepted"},
    {"id": "mi-modelopt-nvfp4-kimi-k26-dp8-ep", "model": "nvidia/Kimi-K2.6-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.15.0",
     "why": "nvidia/Kimi-K2.6-NVFP4 at -dp 8 --enable-expert-parallel (NVFP4 experts whole on each rank, 8 ranks): accepted"},
    {"id": "mi-modelopt-nvfp4-minimax-m25-dp8-ep", "model": "nvidia/MiniMax-M2.5-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.24.0",
     "why": "nvidia/MiniMax-M2.5-NVFP4 at -dp 8 --enable-expert-parallel (NVFP4 experts whole on each rank, 8 ranks): accepted"},
    {"id": "mi-modelopt-flat-no-method-i12000-tp4", "model": "meta-llama/Llama-3.1-8B-Instruct", "since": "0.11.0",
     "config_patch": {"intermediate_size": 12000, "torch_dtype": "bfloat16",
                      "quantization_config": {k: v for k, v in MODELOPT_NVFP4.items() if k != "quant_method"}},
     "argv": ["-tp", "4"],
     "why": "the flat ModelOpt NVFP4 fields without quant_method (Qwen/Qwen3-32B-FP8-Static-PerTensor's layout), "
            "intermediate 12000 at -tp 4 (down_proj: 3000 input features per rank, which NVFP4 refuses): no "
            "normalization or override names a method, ModelConfig's quantization is None from 0.11.0 and the "
            "model is built unquantized: accepted"},
    {"id": "mi-modelopt-fp8-qwen3-30b-a3b-eplb-experts-excluded", "model": "Qwen/Qwen3-30B-A3B",
     "config_patch": {"quantization_config": dict(MODELOPT_FP8, ignore=["lm_head", "model.layers.*.mlp.experts*"])},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "why": "ModelOpt FP8 with the experts excluded, EPLB: up to 0.11.x FusedMoE takes ModelOptFp8MoEMethod anyway "
            "(refused: no EPLB); from 0.12.0 the excluded experts are unquantized, which take EPLB: accepted"},
    # the LM head (kvguard.quant.modelopt_shards.lm_head): 0.23.0+ ParallelLMHead takes the ModelOpt linear method
    {"id": "mi-modelopt-nvfp4-qwen3-32b-h5128-lm-head", "model": "Qwen/Qwen3-32B-FP8",
     "config_patch": {"hidden_size": 5128, "torch_dtype": "bfloat16",
                      "quantization_config": dict(MODELOPT_NVFP4, ignore=["model.layers.*"])},
     "argv": ["-tp", "4"],
     "why": "ModelOpt NVFP4 with every decoder layer excluded and the LM head not, hidden 5128 (not a multiple of "
            "16; head_dim 128): up to 0.22.x the head is unquantized and nothing quantized reads 5128: accepted; from "
            "0.23.0 ParallelLMHead takes the NVFP4 linear method, whose create_weights sees the unsplit hidden size: "
            "refused"},
    {"id": "mi-modelopt-nvfp4-llama-tied-lm-head", "model": "meta-llama/Llama-3.1-8B-Instruct",
     "config_patch": {"tie_word_embeddings": True, "torch_dtype": "bfloat16", "quantization_config": MODELOPT_NVFP4},
     "argv": ["-tp", "1"],
     "why": "ModelOpt NVFP4 (lm_head excluded) with tied word embeddings: LlamaForCausalLM ties its head through "
            "ParallelLMHead.tie_weights, which 0.24.0 hands to the head's method (UnquantizedLinearMethod here), "
            "whose tie_weights is the base class's bare NotImplementedError: refused in 0.24.0 only (0.23.0 sets the "
            "weight itself, 0.25.0+ the base shares it)"},
    # NVFP4 on DeepSeek-V2/V3 (kvguard.quant.modelopt_shards): every quantized linear's input, the replicated too
    # MiniMax-M2 (0.24.0+: earlier releases read its config only with the repository's code): NVIDIA's NVFP4 export
    # as published (attention and router gate excluded: only the experts are quantized), and with the attention left
    # quantized
    {"id": "mi-modelopt-nvfp4-minimax-m25-tp4-dp2-ep", "model": "nvidia/MiniMax-M2.5-NVFP4",
     "argv": ["-tp", "4", "-dp", "2", "--enable-expert-parallel"],
     "since": "0.24.0",
     "why": "nvidia/MiniMax-M2.5-NVFP4 with expert parallel over 8 ranks (32 whole experts each): accepted"},
    {"id": "mi-modelopt-nvfp4-minimax-m25-head-dim-100-tp8", "model": "nvidia/MiniMax-M2.5-NVFP4",
     "config_patch": {"head_dim": 100, "quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "MiniMax-M2.5 exported with its attention quantized too and a head size of 100: o_proj takes "
            "48 x 100 / 8 = 600 input features per rank, not a multiple of 16: refused by the NVFP4 linear method"},
    # Gemma 4 (kvguard.quant.gemma4, 0.28.0+: earlier releases do not build it): NVIDIA's exports as published
    # (flat NVFP4 quantization_config in config.json, the exclusion list naming each layer's attention — and, on
    # the MoE model, its dense MLP and router — through the multimodal wrapper's names)
    {"id": "mi-modelopt-nvfp4-gemma4-31b-tp4", "model": "nvidia/Gemma-4-31B-IT-NVFP4", "argv": ["-tp", "4"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-31B-IT-NVFP4 at -tp 4 (attention excluded; the dense MLP quantized: down_proj takes "
            "21504 / 4 = 5376 input features per rank, a multiple of 16): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-31b-tp8", "model": "nvidia/Gemma-4-31B-IT-NVFP4", "argv": ["-tp", "8"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-31B-IT-NVFP4 at -tp 8 (down_proj: 2688 input features per rank; the full-attention "
            "layers' 4 KV heads replicated over 8 ranks): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-31b-tp2", "model": "nvidia/Gemma-4-31B-IT-NVFP4", "argv": ["-tp", "2"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-31B-IT-NVFP4 at -tp 2 (down_proj: 10752 = 672 x 16 input features per rank): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-26b-a4b-tp4", "model": "nvidia/Gemma-4-26B-A4B-NVFP4", "argv": ["-tp", "4"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-26B-A4B-NVFP4 at -tp 4 (attention, dense MLP and router excluded; NVFP4 experts, "
            "704 / 4 = 176 intermediate features per rank, on FP4 Marlin, which takes gelu_tanh): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-26b-a4b-tp8", "model": "nvidia/Gemma-4-26B-A4B-NVFP4", "argv": ["-tp", "8"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-26B-A4B-NVFP4 at -tp 8 (NVFP4 experts: 88 intermediate features per rank, not a "
            "multiple of the 16-wide scale group — create_weights floors, checks nothing): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-26b-a4b-tp2-dp4-ep", "model": "nvidia/Gemma-4-26B-A4B-NVFP4",
     "argv": ["-tp", "2", "-dp", "4", "--enable-expert-parallel"],
     "since": "0.28.0",
     "why": "nvidia/Gemma-4-26B-A4B-NVFP4 at -tp 2 -dp 4 --enable-expert-parallel (16 NVFP4 experts per rank of the "
            "8-wide expert-parallel group, each whole): accepted"},
    {"id": "mi-modelopt-nvfp4-gemma4-26b-a4b-dp8-ep", "model": "nvidia/Gemma-4-26B-A4B-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.28.0",
     "why": "nvidia/Gemma-4-26B-A4B-NVFP4 at -dp 8 --enable-expert-parallel (16 NVFP4 experts per rank, on FP4 "
            "Marlin): accepted"},
    # Llama 4 (family llama4, kvguard.quant.llama4): the checkpoints as published (the catalog's config with the
    # shipped vision_config): the vision model (hidden 1408, 16 heads) and projector, built unquantized, before the
    # language model (40 heads, 8 KV heads; Scout 16 experts in every layer, Maverick 128 in every second one)
    {"id": "mi-llama4-scout-tp5", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct", "argv": ["-tp", "5"],
     "why": "Llama-4-Scout at -tp 5 (40 heads divide by 5: the config checks pass): the vision model's patch "
            "embedding, the first layer built, splits its 1408 output features over 5 ranks: refused"},
    {"id": "mi-llama4-scout-tp8", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct", "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout at -tp 8: 2 vision heads, 5 query heads and 1 KV head per rank, the 16 experts' 8192 "
            "intermediate features 1024 per rank: accepted"},
    {"id": "mi-llama4-scout-dp6-ep-eplb", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "argv": ["-dp", "6", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     "why": "Llama-4-Scout over 6 expert-parallel ranks with EPLB (the model hands FusedMoE enable_eplb from 0.11.1): "
            "16 experts do not spread evenly over 6 ranks: refused"},
    {"id": "mi-llama4-maverick-dp5-ep-eplb", "model": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
     "argv": ["-dp", "5", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     "why": "Llama-4-Maverick over 5 expert-parallel ranks with EPLB: its first MoE layer (layer 1; layer 0 is "
            "dense) holds 128 experts, which 5 ranks do not share evenly: refused"},
    {"id": "mi-llama4-maverick-tp4-dp2-ep", "model": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
     "argv": ["-tp", "4", "-dp", "2", "--enable-expert-parallel"],
     "why": "Llama-4-Maverick at -tp 4 -dp 2 with expert parallel: 16 whole experts per rank of the 8-wide "
            "expert-parallel group (the shared expert split by tp, or from 0.11.0 replicated: the MoE runs "
            "sequence-parallel): accepted"},
    # Llama 4's compressed-tensors exports in llm-compressor's form (RedHatAI/Llama-4-*-FP8-dynamic: FP8 weights per
    # channel, dynamic per-token activations; the ignore list of llm-compressor's Llama 4 recipes)
    {"id": "mi-llama4-scout-ct-fp8-dynamic-tp8", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "quantization_config": "FP8_DYNAMIC", "ignore": LLAMA4_CT_IGNORE, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout, compressed-tensors FP8_DYNAMIC, -tp 8: the attention, routers, vision model and projector "
            "unquantized; the shared experts, dense MLPs and experts per channel, no size check: accepted"},
    {"id": "mi-llama4-maverick-ct-fp8-block-tp8", "model": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
     "quantization_config": "FP8_BLOCK", "ignore": LLAMA4_CT_IGNORE, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Maverick, compressed-tensors FP8_BLOCK [128, 128], -tp 8: 0.10.2 finds no scheme for block "
            "weights at the first quantized layer (layer 0's dense gate_up_proj: the attention is ignored); from "
            "0.11.0 the dense MLP's 16384 / 8 = 2048 and the experts' 8192 / 8 = 1024 features per rank are whole "
            "blocks: accepted"},
    # Llama 4 W4A16 in RedHatAI/Llama-4-Scout-17B-16E-Instruct-quantized.w4a16's form (llm-compressor's W4A16 preset,
    # groups of 128, the recipe's ignore list): the experts apply the router weight on the input, which the fused
    # Marlin MoE check declines up to 0.26.x (the fall-back method), not from 0.27.0 (recorded for 0.10.2, 0.11.1,
    # 0.12.0, 0.22.0, 0.24.0, 0.26.0, 0.27.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-llama4-scout-ct-w4a16-tp8 ...``)
    {"id": "mi-llama4-scout-ct-w4a16-tp8", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "quantization_config": "W4A16", "ignore": LLAMA4_CT_IGNORE, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout, compressed-tensors W4A16 (groups of 128), -tp 8: the shared expert's 8192 / 8 = 1024 "
            "input features and the experts' 1024 rows per rank are whole groups: accepted"},
    {"id": "mi-llama4-scout-ct-w4a16-dp8-ep-eplb", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "quantization_config": "W4A16", "ignore": LLAMA4_CT_IGNORE,
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout W4A16 over 8 expert-parallel ranks with EPLB: up to 0.26.x the experts take the fall-back "
            "CompressedTensorsWNA16MoEMethod (Marlin declines the router weight on the input), which refuses EPLB in "
            "0.11.x and supports it from 0.12.0 (accepted); from 0.27.0 MARLIN takes them and the one method supports "
            "EPLB only on TRITON: refused"},
    # Llama 4 ModelOpt exports in NVIDIA's form (nvidia/Llama-4-Scout-17B-16E-Instruct-FP8 / -NVFP4: the nested
    # hf_quant_config layout, ModelOpt's Llama 4 exclusion patterns; the catalog holds no copy of the published files);
    # recorded for 0.10.2, 0.11.1, 0.12.0, 0.24.0, 0.28.0 and 0.33.0
    {"id": "mi-llama4-scout-modelopt-fp8-tp8", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "config_patch": {"quantization_config": _LLAMA4_MODELOPT_FP8}, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout, ModelOpt FP8 (per-tensor), -tp 8: the router, vision model and projector unquantized; no "
            "size check in the linear or MoE methods, whose backend on 9.0 takes the layer: accepted"},
    {"id": "mi-llama4-scout-modelopt-nvfp4-tp8", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "config_patch": {"quantization_config": _LLAMA4_MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout, ModelOpt NVFP4, -tp 8: every quantized layer's per-rank input a multiple of 16 (5120, "
            "640, 1024); the experts on FP4 Marlin (9.0): accepted"},
    {"id": "mi-llama4-scout-modelopt-fp8-dp8-ep-eplb", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "config_patch": {"quantization_config": _LLAMA4_MODELOPT_FP8},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout ModelOpt FP8 over 8 expert-parallel ranks with EPLB: ModelOptFp8MoEMethod never supports "
            "EPLB: refused"},
    {"id": "mi-llama4-scout-modelopt-nvfp4-dp8-ep-eplb", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
     "config_patch": {"quantization_config": _LLAMA4_MODELOPT_NVFP4},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.11.1",
     **ORACLE_WRAPPER_HOST,
     "why": "Llama-4-Scout ModelOpt NVFP4 over 8 expert-parallel ranks with EPLB: ModelOptNvFp4FusedMoE supports EPLB "
            "from 0.13.0 (refused in 0.11.x - 0.12.x, accepted after)"},
    # Qwen3-Next (family qwen3_next): the block-FP8 release, whose ignore list leaves each gated-delta-net layer's
    # in_proj_ba and conv1d and every router / shared-expert gate unquantized
    {"id": "mi-fp8-qwen3-next-80b-tp8", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8",
     "argv": ["-tp", "8"],
     "why": "Qwen3-Next-80B-A3B-Instruct-FP8 at -tp 8: the expert and shared-expert intermediate size 512 / 8 = 64 "
            "per rank is half a block of 128. 0.10.2 builds in_proj_qkvz and in_proj_ba as one merged in_proj, of "
            "which the ignore list names one shard (refused first); 0.11.0 builds the routed experts before the shared "
            "expert (their block_n refusal); 0.11.1-0.13.x the shared expert's gate_up_proj (block_n); from 0.14.0 the "
            "merged layer's ragged shard is allowed and its down_proj refuses (block_k)"},
    {"id": "mi-fp8-qwen3-next-80b-tp4", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8",
     "argv": ["-tp", "4"],
     "why": "Qwen3-Next-80B-A3B-Instruct-FP8 at -tp 4: 128 expert features per rank, one block: accepted from 0.11.0 "
            "(0.10.2: the merged in_proj named in part by the ignore list)"},
    {"id": "mi-fp8-qwen3-next-80b-dense-first-tp8", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8",
     "config_patch": {"mlp_only_layers": [0]}, "argv": ["-tp", "8"], "since": "0.11.1",
     "until": "0.12.0",
     "why": "Qwen3-Next-80B-A3B-Instruct-FP8 with a dense first layer (mlp_only_layers [0]) at -tp 8: layer 1's shared "
            "expert refuses its block_n (64 per rank) while the layers are built, before 0.11.1 - 0.11.2's MoE "
            "bookkeeping, which refuses a first layer without experts once every layer is built"},
    {"id": "mi-qwen3-next-80b-bf16-tp16", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.11.1",
     "why": "Qwen3-Next-80B-A3B-Instruct (BF16) at -tp 16 over two nodes: 32 value heads and 16 key heads split two "
            "and one per rank, the 2 KV heads of the full-attention layers replicated: accepted"},
    # Qwen3-Next's compressed-tensors exports, with the ignore list of llm-compressor's Qwen3-Next example (every
    # gated-delta-net layer, the routers and the shared-expert gates unquantized)
    {"id": "mi-qwen3-next-80b-ct-fp8-block-tp8", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "FP8_BLOCK", "ignore": QWEN3_NEXT_CT_IGNORE,
     "argv": ["-tp", "8"], "since": "0.11.0",
     "why": "Qwen3-Next-80B-A3B, compressed-tensors FP8_BLOCK [128, 128], -tp 8: 512 / 8 = 64 expert and shared-expert "
            "features per rank (0.10.2 finds no MoE scheme for block weights at the first layer's experts: a "
            "RuntimeError kvguard leaves undecided); 0.11.0 builds the routed experts first (their block_n refusal); from "
            "0.11.1 the shared expert's merged gate_up_proj comes first and refuses its block_n"},
    {"id": "mi-qwen3-next-80b-ct-fp8-dynamic-tp8", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "FP8_DYNAMIC", "ignore": QWEN3_NEXT_CT_IGNORE,
     "argv": ["-tp", "8"],
     "why": "Qwen3-Next-80B-A3B, compressed-tensors FP8_DYNAMIC (per-channel weights), -tp 8: no size check on the "
            "attention, the shared expert or the experts: accepted"},
    {"id": "mi-qwen3-next-80b-ct-w4a16-tp4", "model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "W4A16", "ignore": QWEN3_NEXT_CT_IGNORE,
     "argv": ["-tp", "4"], "since": "0.24.0",
     "why": "Qwen3-Next-80B-A3B, compressed-tensors W4A16 (groups of 128), -tp 4: the shared expert's down_proj takes "
            "512 / 4 = 128 inputs per rank, one group; Marlin takes the linear layers and the Marlin MoE method the "
            "experts (128 per rank): accepted"},
    # Gemma 4's block-FP8 experts (Fp8Config; kvguard.quant.gemma4): _GEMMA4_BLOCK_FP8
    {"id": "mi-fp8-block-gemma4-26b-a4b-tp8", "model": "google/gemma-4-26B-A4B",
     "config_patch": _GEMMA4_BLOCK_FP8,
     "argv": ["-tp", "8"], "since": "0.28.0",
     "why": "block-FP8 Gemma 4 26B-A4B at -tp 8: the experts' per-rank intermediate 704 / 8 = 88 is not a multiple "
            "of block_n 128 (and gcd(128, 88, 2816) = 8 is too small to refine the scales from 0.29.0): refused"},
    {"id": "mi-fp8-block-gemma4-26b-a4b-tp1", "model": "google/gemma-4-26B-A4B",
     "config_patch": _GEMMA4_BLOCK_FP8,
     "argv": [], "since": "0.28.0",
     "why": "block-FP8 Gemma 4 26B-A4B at tp 1: the experts' intermediate 704 is not a multiple of block_n 128: "
            "refused in 0.28.0; from 0.29.0 the block scales are refined to gcd(128, 704, 2816) = 64, which the "
            "default host's Triton MoE kernel takes (with gelu_tanh): accepted"},
    {"id": "mi-modelopt-nvfp4-dsv2-lite-tp8", "model": "deepseek-ai/DeepSeek-V2-Lite",
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "why": "ModelOpt NVFP4 DeepSeek-V2-Lite at -tp 8: the dense first layer's down_proj takes 10944 / 8 = 1368 "
            "input features per rank, not a multiple of 16: refused in every release"},
    {"id": "mi-modelopt-nvfp4-dsv2-lite-kv-a-proj", "model": "deepseek-ai/DeepSeek-V2-Lite",
     "config_patch": {"num_attention_heads": 20, "hidden_size": 2060,
                      "quantization_config": dict(MODELOPT_NVFP4, ignore=[
                          "lm_head", "model.layers.*.self_attn.q_proj", "model.layers.*.mlp.*"])},
     "argv": ["-tp", "4"], "since": "0.11.1",
     "why": "ModelOpt NVFP4 DeepSeek-V2-Lite variant (20 heads, hidden 2060) with every q_proj and MLP excluded: the "
            "only quantized layer reading the hidden size is the replicated kv_a_proj_with_mqa, whose whole input, "
            "2060, is not a multiple of 16: refused"},
    {"id": "mi-modelopt-nvfp4-dsv2-lite-kv-a-proj-excluded", "model": "deepseek-ai/DeepSeek-V2-Lite",
     "config_patch": {"num_attention_heads": 20, "hidden_size": 2060,
                      "quantization_config": dict(MODELOPT_NVFP4, ignore=[
                          "lm_head", "model.layers.*.self_attn.q_proj", "model.layers.0.mlp.*",
                          "model.layers.*.mlp.shared_experts.*", "*kv_a_proj_with_mqa"])},
     "argv": ["-tp", "4"], "since": "0.11.1",
     "why": "the same with kv_a_proj_with_mqa excluded too and the routed experts left quantized (NVFP4 experts "
            "check no size; unquantized experts would go through the release's unquantized MoE backend choice, "
            "which the CPU oracle answers with its own CPU kernels' hidden-size alignment, not the GPU's): no "
            "quantized linear layer reads the hidden size: accepted"},
    # DeepSeek-V3.2 / GLM-5 (kvguard/data/quant_archs.json family deepseek_v32, 0.11.0 - 0.28.0: the generic
    # deepseek_v2.py model with the sparse-attention indexer; from 0.29.0 a CUDA host builds vllm/models/deepseek_v32's
    # own implementation, which quant_runner builds as that host does) as published, block FP8 [128, 128] (recorded
    # for 0.11.0, 0.12.0, 0.13.0, 0.14.0, 0.20.0, 0.24.0, 0.28.0, 0.29.0, 0.30.0 and 0.33.0: ``--vllm ... --only
    # mi-fp8-dsv32-tp8 ...``).  0.11.0's runner case asks for a bfloat16 KV cache: 0.11.0 turns the default one into
    # fp8_ds_mla, which the CPU oracle's platform refuses (the CUDA host does not); no layer reads it, and the case
    # file keeps the launch's own argv
    {"id": "mi-fp8-dsv32-tp8", "model": "deepseek-ai/DeepSeek-V3.2", "argv": ["-tp", "8"],
     "since": "0.11.0", "engine_args": {"kv_cache_dtype": "bfloat16"},
     "engine_args_until": "0.11.0",
     "why": "deepseek-ai/DeepSeek-V3.2 at -tp 8: every TP-split shard whole 128-blocks (dense MLP 2304, experts 256 "
            "per rank); the indexer's wq_b replicated, its wk / weights_proj (wk_weights_proj from 0.20.0) replicated "
            "or unquantized: accepted"},
    {"id": "mi-fp8-dsv32-i18560-tp8", "model": "deepseek-ai/DeepSeek-V3.2", "config_patch": {"intermediate_size": 18560},
     "argv": ["-tp", "8"], "since": "0.11.0", "engine_args": {"kv_cache_dtype": "bfloat16"},
     "engine_args_until": "0.11.0",
     "why": "DeepSeek-V3.2 with a dense intermediate size of 18560 = 145 x 128 at -tp 8: 2320 per rank; up to 0.13.x "
            "the TP-split gate_up_proj refuses its first shard (block_n), from 0.14.0 the merged layer's mismatch is "
            "allowed and down_proj refuses its input shard (block_k)"},
    {"id": "mi-fp8-dsv32-moe2112-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"moe_intermediate_size": 2112},
     "argv": ["-tp", "8"], "since": "0.14.0",
     "why": "DeepSeek-V3.2 with experts of 2112 at -tp 8: the first MoE layer's shared expert, built before the routed "
            "experts, takes 264 inputs per rank in its down_proj (264 % 128 = 8): refused (block_k)"},
    {"id": "mi-fp8-glm5-tp8", "model": "zai-org/GLM-5-FP8", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "zai-org/GLM-5-FP8 at -tp 8 (64 heads, q LoRA 2048, dense MLP 12288 / 8 = 1536, experts 256 per rank; its "
            "modules_to_not_convert names norms and indexer parts, no linear layer kvguard builds): accepted"},
    # 0.29.0+: DeepseekV32Attention builds kv_b_proj (and the indexer) before q_b_proj; the CUDA decoder layer builds
    # the dense MLP replicated under the sequence-parallel MoE (recorded for 0.28.0, 0.29.0 and 0.33.0)
    {"id": "mi-fp8-dsv32-kvb-first-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"qk_nope_head_dim": 100, "v_head_dim": 90}, "argv": ["-tp", "8"],
     "since": "0.28.0",
     "why": "DeepSeek-V3.2 with qk_nope_head_dim 100 and v_head_dim 90 at -tp 8 (16 heads per rank): q_b_proj 16 x 164 "
            "= 2624 per rank, kv_b_proj 16 x 190 = 3040, neither whole 128-blocks: 0.28.0 builds q_b_proj first "
            "(2624), 0.29.0+ kv_b_proj (3040); refused (block_n)"},
    {"id": "mi-fp8-dsv32-i18560-tp4-dp2-ep", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"intermediate_size": 18560}, "argv": ["-tp", "4", "-dp", "2", "--enable-expert-parallel"],
     "since": "0.28.0",
     "why": "DeepSeek-V3.2 with a dense intermediate size of 18560 at -tp 4 -dp 2 with expert parallelism (the "
            "default all2all backend runs the MoE sequence-parallel): 0.28.0 splits the dense MLP over tp (down_proj "
            "4640 inputs per rank: refused, block_k); 0.29.0+ builds it replicated with one pipeline stage: accepted"},
    # index_topk_pattern (IndexCache, 0.24.0+): only the layers not marked "S" (and those past the pattern's end) build
    # an indexer; the indexer's projections are replicated or unquantized, so the launch is accepted either way
    {"id": "mi-fp8-dsv32-pattern-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"index_topk_pattern": "FSSF" * 15}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "DeepSeek-V3.2 with an index_topk_pattern of 60 letters (61 layers: the last past its end) at -tp 8: "
            "every TP-split shard whole 128-blocks, the indexers of the F layers replicated: accepted"},
    # ModelOpt NVFP4 (the nested layout of NVIDIA's hf_quant_config.json) with only the LM head excluded and a q LoRA
    # rank of 1000 (recorded for 0.24.0, 0.28.0, 0.29.0 and 0.33.0)
    {"id": "mi-modelopt-nvfp4-dsv32-qlora1000-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"q_lora_rank": 1000, "torch_dtype": "bfloat16", "quantization_config": {
         "quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
         "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                          "exclude_modules": ["lm_head"]}}},
     "argv": ["-tp", "8"], "since": "0.24.0",
     "why": "DeepSeek-V3.2 as a ModelOpt NVFP4 export excluding only the LM head, q LoRA rank 1000 (1000 % 16 = 8) at "
            "-tp 8: q_b_proj (up to 0.28.0 the first quantized layer reading it) or the indexer's replicated wq_b "
            "(0.29.0+) takes 1000 input features: refused (MI_nvfp4_input)"},
    # config.json's flat ModelOpt layout (quant_method modelopt, quant_algo beside it: ModelOpt's NVFP4 override builds
    # it as modelopt_fp4) on GLM-5.1 and DeepSeek-V3.2 (recorded for 0.24.0, 0.28.0, 0.29.0, 0.30.0 and 0.33.0)
    {"id": "mi-modelopt-nvfp4-glm51-tp8", "model": "nvidia/GLM-5.1-NVFP4", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/GLM-5.1-NVFP4 at -tp 8 (config.json's flat ModelOpt NVFP4 layout: the first three layers, every "
            "attention and shared expert excluded): accepted"},
    {"id": "mi-modelopt-nvfp4-glm51-dp8-ep", "model": "nvidia/GLM-5.1-NVFP4",
     "argv": ["-dp", "8", "--enable-expert-parallel"], "since": "0.24.0",
     "why": "nvidia/GLM-5.1-NVFP4 at -dp 8 --enable-expert-parallel (NVFP4 experts whole on each rank): accepted"},
    {"id": "mi-modelopt-nvfp4a16-dsv32-flat-qlora1000-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"q_lora_rank": 1000, "torch_dtype": "bfloat16", "quantization_config": {
         "config_groups": {"group_0": {"input_activations": None, "targets": ["Linear"],
                                       "weights": {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}}},
         "ignore": ["lm_head"], "quant_algo": "NVFP4", "producer": {"name": "modelopt", "version": "0.45.0"},
         "quant_method": "modelopt"}},
     "argv": ["-tp", "8"], "since": "0.24.0",
     "why": "DeepSeek-V3.2 as a flat ModelOpt NVFP4 export whose config group quantizes no input activations, only "
            "the LM head excluded, q LoRA rank 1000 (1000 % 16 = 8) at -tp 8: refused by the first quantized layer "
            "reading it; 0.29.0 reads the config group as W4A16_NVFP4, whose linear method has its own message "
            "(MI_nvfp4a16_input), other releases MI_nvfp4_input"},
    # ModelOpt FP8 (hf_quant_config's nested layout) and AWQ / GPTQ (the quantization_config AutoAWQ / AutoGPTQ write)
    # of DeepSeek-V3.2 / GLM-5 (recorded for 0.12.0, 0.20.0, 0.24.0, 0.29.0 and 0.33.0; GLM-5 from 0.24.0)
    {"id": "mi-modelopt-fp8-dsv32-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"torch_dtype": "bfloat16", "quantization_config": {
         "quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
         "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}}},
     "argv": ["-tp", "8"], "since": "0.12.0",
     "why": "DeepSeek-V3.2 as a ModelOpt FP8 (per-tensor) export at -tp 8: per-tensor FP8 checks no size, every "
            "split divides: accepted"},
    {"id": "mi-modelopt-fp8-dsv32-dp8-ep-eplb", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"torch_dtype": "bfloat16", "quantization_config": {
         "quant_method": "modelopt", "producer": {"name": "modelopt", "version": "0.39.0"},
         "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}}},
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.12.0",
     "why": "the same at -dp 8 with expert parallelism and EPLB: the experts' ModelOptFp8MoEMethod does not support "
            "EPLB: refused by the first MoE layer (MI_eplb_unsupported)"},
    {"id": "mi-awq-dsv32-qlora1000-tp8", "model": "deepseek-ai/DeepSeek-V3.2",
     "config_patch": {"q_lora_rank": 1000, "quantization_config": AWQ_INT4},
     "argv": ["-tp", "8"], "since": "0.12.0",
     "why": "DeepSeek-V3.2 as a 4-bit AWQ checkpoint (groups of 128) with a q LoRA rank of 1000 at -tp 8: the first "
            "quantized layer reading it as its input (q_b_proj up to 0.28.0, the indexer's replicated wq_b from "
            "0.29.0) takes 1000 features, not whole groups: refused (MI_awq_input)"},
    {"id": "mi-gptq-dsv32-tp8", "model": "deepseek-ai/DeepSeek-V3.2", "config_patch": {"quantization_config": GPTQ_INT4},
     "argv": ["-tp", "8"], "since": "0.12.0",
     "why": "DeepSeek-V3.2 as a 4-bit GPTQ checkpoint (groups of 128) at -tp 8: the router gate unquantized, every "
            "other layer's per-rank sizes whole groups on Marlin: accepted"},
    {"id": "mi-awq-glm5-tp32", "model": "zai-org/GLM-5", "config_patch": {"quantization_config": AWQ_INT4},
     "argv": ["-tp", "32", "--nnodes", "4"], "since": "0.24.0",
     "why": "GLM-5 as a 4-bit AWQ checkpoint at -tp 32 over 4 nodes: the first MoE layer's shared expert takes "
            "2048 / 32 = 64 inputs per rank in its down_proj, not a whole group of 128: refused (MI_awq_input)"},
]

# Kimi-K2.5 / K2.6 (kvguard.quant.kimi_k25, 0.15.0+: the MoonViT vision tower, then DeepSeek-V3's layers under
# language_model) as published (recorded for 0.15.0, 0.15.1, 0.20.0, 0.25.0, 0.26.0 and 0.33.0: ``--vllm ... --only
# mi-ct-kimi-k25-tp8 ...``; the NVFP4 one from 0.25.0: the CPU oracle of 0.15.0 - 0.24.x refuses its FP8 KV cache
# beside chunked prefill).  The K2.6
# NVFP4 cases above (mi-modelopt-nvfp4-kimi-k26-*) are now decided by kvguard too
CASES += [
    {"id": "mi-ct-kimi-k25-tp8", "model": "moonshotai/Kimi-K2.5", "argv": ["-tp", "8"],
     "since": "0.15.0",
     "why": "moonshotai/Kimi-K2.5 (compressed-tensors W4A16 experts) at -tp 8: the vision tower's 16 heads and 4304 "
            "MLP features split in 8, the experts' 2048 / 8 = 256 per rank whole 32-groups: accepted"},
    {"id": "mi-ct-kimi-k25-tp32", "model": "moonshotai/Kimi-K2.5", "argv": ["-tp", "32", "--nnodes", "4"],
     "since": "0.15.0",
     "why": "moonshotai/Kimi-K2.5 at -tp 32 over 4 nodes: up to 0.25.x each vision encoder block divides its 16 heads "
            "by 32 (refused); from 0.26.0 the encoder falls back to data parallelism and the language model builds "
            "(experts 64 per rank, whole 32-groups): accepted"},
    {"id": "mi-modelopt-nvfp4-kimi-k25-tp8", "model": "nvidia/Kimi-K2.5-NVFP4", "argv": ["-tp", "8"],
     "since": "0.16.0",
     "why": "nvidia/Kimi-K2.5-NVFP4 at -tp 8 (vision tower, projector, attention and LM head excluded; NVFP4 dense "
            "MLP, shared and routed experts): accepted"},
]


# Kimi-K3 (kvguard.quant.kimi_k3, 0.27.0+: Kimi-K2.5's MoonViT tower, then the language model's vocabulary embedding,
# refusing before any decoder layer; recorded for 0.27.0, 0.28.0, 0.30.0 and 0.33.0: ``--vllm ... --only
# mi-kimi-k3-tp12 mi-kimi-k3-tp24``).  The oracle builds with prefix caching off: its CPU platform turns it off for an
# MLA model after the hybrid model's hook sized the Mamba block for it, which 0.28.0+ then refuses; construction does
# not read it
CASES += [
    {"id": "mi-kimi-k3-tp12", "model": "moonshotai/Kimi-K3", "argv": ["-tp", "12", "--nnodes", "2"],
     "engine_args": {"enable_prefix_caching": False}, "since": "0.27.0",
     "why": "moonshotai/Kimi-K3 at -tp 12 over 2 nodes: the vision encoder's 12 heads split in 12, then its MLP's "
            "4096 features do not: refused (MI_divide, vision_tower.encoder.blocks.0.mlp.fc0)"},
    {"id": "mi-kimi-k3-tp24", "model": "moonshotai/Kimi-K3", "argv": ["-tp", "24", "--nnodes", "3"],
     "engine_args": {"enable_prefix_caching": False}, "since": "0.27.0",
     "why": "moonshotai/Kimi-K3 at -tp 24 over 3 nodes: 24 does not divide the vision encoder's 12 heads (it runs "
            "data-parallel), then the embedding's 163840 tokens do not split in 24: refused (MI_divide)"},
]

# Qwen3-VL-MoE (kvguard.quant.qwen3_vl: the vision tower, then Qwen3-MoE's language model; recorded for 0.11.1, 0.12.0,
# 0.14.1, 0.24.0, 0.28.0, 0.29.0, 0.31.0 and 0.33.0: ``--vllm ... --only mi-qwen3-vl-235b-tp32 ...``).  The FP8 cases give the catalog checkpoint
# the quantization_config in the form of Qwen's FP8 exports: blocks of 128, modules_to_not_convert in the checkpoint's
# names (every vision-tower linear, each layer's router gate, the LM head) or, for the "tower" case, without the tower
_QWEN3_VL = catalog.lookup("Qwen/Qwen3-VL-235B-A22B-Instruct").config
_QWEN3_VL_MERGERS = ["model.visual.merger"] + [f"model.visual.deepstack_merger_list.{m}" for m in range(3)]
_QWEN3_VL_TOWER = ([f"model.visual.blocks.{b}.{n}" for b in range(_QWEN3_VL["vision_config"]["depth"])
                    for n in ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2")]
                   + [f"{m}.linear_fc{k}" for m in _QWEN3_VL_MERGERS for k in (1, 2)])
_QWEN3_VL_GATES = [f"model.language_model.layers.{i}.mlp.gate"
                   for i in range(_QWEN3_VL["text_config"]["num_hidden_layers"])]
QWEN3_VL_FP8 = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128],
                "modules_to_not_convert": _QWEN3_VL_TOWER + _QWEN3_VL_GATES + ["lm_head"]}
CASES += [
    {"id": "mi-qwen3-vl-235b-tp32", "model": "Qwen/Qwen3-VL-235B-A22B-Instruct",
     "argv": ["-tp", "32", "--nnodes", "4"], "since": "0.11.1",
     "why": "Qwen3-VL-235B-A22B at -tp 32 over 4 nodes: the vision merger builds, then the first vision block's "
            "attention divides its 16 heads by 32 (Qwen3-VL's tower never falls back to data parallelism)"},
    {"id": "mi-qwen3-vl-235b-tp32-mm-data", "model": "Qwen/Qwen3-VL-235B-A22B-Instruct",
     "argv": ["-tp", "32", "--nnodes", "4", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"}, "since": "0.11.1",
     "why": "the same with --mm-encoder-tp-mode data: the tower is not split, the language model builds (48 expert rows "
            "per rank): accepted"},
    {"id": "mi-fp8-block-qwen3-vl-235b-tp4", "model": "Qwen/Qwen3-VL-235B-A22B-Instruct",
     "config_patch": {"quantization_config": QWEN3_VL_FP8}, "argv": ["-tp", "4"],
     "since": "0.11.1",
     "why": "block FP8 in the form of Qwen's export (tower, router gates and LM head in modules_to_not_convert, mapped "
            "to visual.* / language_model.model.* by the wrapper) at -tp 4: experts 384 per rank (3 blocks): accepted"},
    {"id": "mi-fp8-block-qwen3-vl-235b-tp8", "model": "Qwen/Qwen3-VL-235B-A22B-Instruct",
     "config_patch": {"quantization_config": QWEN3_VL_FP8}, "argv": ["-tp", "8"],
     "since": "0.11.1",
     "why": "the same at -tp 8: experts 192 per rank, refused on block_n up to 0.28.x; from 0.29.0 the scales are "
            "refined to 64 (Triton, the default host): accepted"},
    {"id": "mi-fp8-block-qwen3-vl-235b-tp4-tower", "model": "Qwen/Qwen3-VL-235B-A22B-Instruct",
     "config_patch": {"quantization_config": dict(QWEN3_VL_FP8, modules_to_not_convert=_QWEN3_VL_GATES + ["lm_head"])},
     "argv": ["-tp", "4"], "since": "0.11.1",
     "why": "block FP8 with the vision tower quantized too (not in modules_to_not_convert) at -tp 4: the mergers' 1152 "
            "per rank fit; the first block's 288-wide attention shards do not (qkv's block_n up to 0.13.0, proj's "
            "block_k from 0.14.0)"},
]

# GLM-4.5V (kvguard.quant.glm4v: the vision tower, then GLM-4.x's language model; GLM4V_CONFIG of
# tests/upstream/test_quant.py, the checkpoint's sizes; recorded for 0.10.2, 0.11.0, 0.14.1, 0.17.1, 0.18.0, 0.24.0,
# 0.29.0 and 0.33.0: ``--vllm ... --only mi-glm45v-tp8 ...``).  The FP8 cases give it block FP8 in Fp8Config's form
# (blocks of 128; modules_to_not_convert in checkpoint names: the tower's layers, the dense first layer's MLP, the LM
# head) — zai-org/GLM-4.5V-FP8 itself is a compressed-tensors export, not decided
_GLM4V_TOWER = ([f"model.visual.blocks.{b}.{n}" for b in range(24)
                 for n in ("attn.qkv", "attn.proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")]
                + [f"model.visual.merger.{n}" for n in ("proj", "gate_proj", "up_proj", "down_proj")])
_GLM4V_DENSE = [f"model.language_model.layers.0.mlp.{n}" for n in ("gate_proj", "up_proj", "down_proj")]
GLM4V_CT_QKV = [f"visual.blocks.{b}.attn.qkv_proj" for b in range(24)]
GLM4V_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128],
             "modules_to_not_convert": _GLM4V_TOWER + _GLM4V_DENSE + ["lm_head"]}
CASES += [
    {"id": "mi-glm45v-tp8", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG", "argv": ["-tp", "8"],
     "why": "GLM-4.5V at -tp 8: the first vision block's attention divides its 12 heads by 8 (the tower is built "
            "before the language model and never falls back to data parallelism by itself): refused (MI_divide)"},
    {"id": "mi-glm45v-tp8-mm-data", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "argv": ["-tp", "8", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"}, "since": "0.18.0",
     "why": "the same with --mm-encoder-tp-mode data (the recipes' flag): the tower is not split, the language model "
            "builds: accepted (from 0.18.0: up to 0.17.x the oracle host's memory refuses the wrapper's VllmConfig copy "
            "for the text config at the default swap space, which the stated host does not)"},
    {"id": "mi-fp8-block-glm45v-tp2-tower", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": dict(GLM4V_FP8, modules_to_not_convert=_GLM4V_DENSE + ["lm_head"])},
     "argv": ["-tp", "2"],
     "why": "block FP8 with the vision tower quantized (not in modules_to_not_convert) at -tp 2: the blocks fit, the "
            "patch merger's 10944-wide MLP (5472 per rank, 42.75 blocks of 128) does not"},
    {"id": "mi-fp8-block-glm45v-tp4-ep", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": GLM4V_FP8},
     "argv": ["-tp", "4", "--enable-expert-parallel", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"},
     "why": "block FP8 (the tower, the dense MLP and the LM head unquantized) at the recipes' -tp 4 with expert "
            "parallel and a data-parallel encoder: the routed experts are not split by tp, but the shared experts are "
            "(1408 / 4 = 352 per rank, 2.75 blocks): refused on their block_n / block_k"},
    {"id": "mi-fp8-block-glm45v-16heads-tp8", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_16_HEADS",
     "config_patch": {"quantization_config": GLM4V_FP8},
     "argv": ["-tp", "8"], **ORACLE_WRAPPER_HOST,
     "why": "block FP8 with every tower layer listed in checkpoint names, on a 16-head tower (head size 96) at -tp 8: "
            "up to 0.17.x the wrapper names the quantized QKV layer attn.qkv_proj, whose q/k/v shards the list does "
            "not name, so it is quantized and its 192 rows per rank refuse block_n; from 0.18.0 it is attn.qkv (listed, "
            "unquantized) and the shared experts refuse next (176 rows per rank)"},
    # compressed-tensors in the form of zai-org/GLM-4.5V-FP8 (each vision block's QKV layer in ignore as vLLM names it
    # under compressed-tensors, visual.blocks.N.attn.qkv_proj), with GLM-4.x's list (GLM_CT_IGNORE)
    {"id": "mi-ct-glm45v-fp8-dynamic-tp4-ep", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "quantization_config": "FP8_DYNAMIC", "ignore": GLM_CT_IGNORE + GLM4V_CT_QKV,
     "argv": ["-tp", "4", "--enable-expert-parallel", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"}, "since": "0.18.0",
     "why": "compressed-tensors FP8_DYNAMIC (per-channel weights, dynamic per-token activations) at the recipes' -tp 4 "
            "with expert parallel and a data-parallel encoder: no layer checks its per-rank size: accepted (from "
            "0.18.0: before, the oracle host's memory refuses the wrapper's VllmConfig copy at the default swap space)"},
    {"id": "mi-ct-glm45v-fp8-block-tp2", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "quantization_config": "FP8_BLOCK", "ignore": GLM_CT_IGNORE + GLM4V_CT_QKV, "argv": ["-tp", "2"],
     "since": "0.11.0",
     "why": "compressed-tensors FP8_BLOCK [128, 128], the QKV layers ignored, the rest of the tower quantized, -tp 2: the "
            "patch merger's merged gate_up_proj (two halves of 10944, 5472 per rank) refuses its block_n (the "
            "compressed-tensors block scheme has no merged-layer allowance); 0.10.2 finds no scheme for block weights"},
    # AWQ in AutoAWQ's form (4-bit GEMM, zero points, groups of 128), the tower and the dense first layer unconverted or
    # not (recorded for 0.10.2, 0.11.1, 0.18.0, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-awq-glm45v-tp1 ...``)
    {"id": "mi-awq-glm45v-tower-tp1", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": ["-tp", "1"],
     "why": "AWQ with nothing unconverted, one GPU: the tower is quantized, and its patch merger's down_proj takes "
            "10944 inputs (85.5 groups of 128): Marlin declines it, the plain AWQ kernels refuse (ValueError)"},
    {"id": "mi-awq-glm45v-tp1", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["visual"])},
     "argv": ["-tp", "1"],
     "why": "AWQ with the tower unconverted, one GPU: the dense first layer's down_proj takes 10944 inputs (85.5 groups "
            "of 128): refused as the tower's merger is"},
    {"id": "mi-awq-glm45v-tp4-ep", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["visual",
                                                                                  "model.language_model.layers.0."])},
     "argv": ["-tp", "4", "--enable-expert-parallel", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"}, "since": "0.18.0",
     "why": "AWQ with the tower and the dense first layer unconverted (in checkpoint names: the wrapper's mapper maps the "
            "list from 0.11.1) at the recipes' -tp 4 with expert parallel: the shared experts are split by tp, their "
            "down_proj gets 1408 / 4 = 352 inputs (2.75 groups of 128): Marlin declines, the plain AWQ kernels refuse "
            "(from 0.18.0: before, the oracle host's memory refuses the wrapper's VllmConfig copy at the default swap "
            "space)"},
    {"id": "mi-awq-glm45v-dp4-ep", "model": "zai-org/GLM-4.5V", "config_from": "GLM4V_CONFIG",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["visual",
                                                                                  "model.language_model.layers.0."])},
     "argv": ["-dp", "4", "--enable-expert-parallel"],
     "since": "0.11.1",
     "why": "the same at -dp 4 with expert parallel: nothing is split by tp (the shared experts' 1408 inputs are 11 "
            "groups), 32 whole experts per rank on the fused Marlin MoE kernel: accepted"},
]

# Qwen3.5 (kvguard/data/quant_archs.json families qwen3_5_moe / qwen3_5, 0.17.0+: Qwen3-VL's tower, then Qwen3-Next's
# layers with the split gated-delta-net projections; recorded for 0.17.0, 0.20.0, 0.24.0, 0.28.0 and 0.33.0:
# ``--vllm ... --only mi-qwen3-5-397b-tp32 ...``).  The FP8 case gives the catalog checkpoint a quantization_config in
# the form of Qwen's FP8 exports (the tower, each gated-delta-net layer's conv1d / in_proj_a / in_proj_b, the router
# and shared-expert gates, the LM head in modules_to_not_convert) but layer 0's in_proj_b; the NVFP4 tower case
# NVIDIA's export without "model.visual*" in its exclusion list.  The NVFP4 cases from 0.24.0: the export's FP8 KV cache
# (kv_cache_quant_algo) meets the oracle's CPU platform, which refuses it with chunked prefill and prefix caching up to
# 0.23.x (a limit of the CPU host, not of the CUDA launch; tools/quant_differential.py --qwen3-5 covers 0.17.0+)
_QWEN3_5 = catalog.lookup("Qwen/Qwen3.5-397B-A17B").config
_QWEN3_5_TEXT = _QWEN3_5["text_config"]
_QWEN3_5_FP8_NAMES = ([f"model.visual.blocks.{b}.{n}" for b in range(_QWEN3_5["vision_config"]["depth"])
                       for n in ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2")]
                      + [f"model.visual.merger.linear_fc{k}" for k in (1, 2)]
                      + [f"model.language_model.layers.{i}.linear_attn.{n}"
                         for i, kind in enumerate(_QWEN3_5_TEXT["layer_types"]) if kind == "linear_attention"
                         for n in ("conv1d", "in_proj_a", "in_proj_b")]
                      + [f"model.language_model.layers.{i}.mlp.{n}" for i in range(_QWEN3_5_TEXT["num_hidden_layers"])
                         for n in ("gate", "shared_expert_gate")] + ["lm_head"])
_QWEN3_5_NVFP4 = catalog.lookup("nvidia/Qwen3.5-397B-A17B-NVFP4").config["quantization_config"]
CASES += [
    {"id": "mi-qwen3-5-397b-tp32", "model": "Qwen/Qwen3.5-397B-A17B", "argv": ["-tp", "32", "--nnodes", "4"],
     "since": "0.17.0",
     "why": "Qwen3.5-397B-A17B at -tp 32 over 4 nodes: the vision tower, built first, divides its 16 heads by 32 (the "
            "language model's 32 heads, 2 KV heads and 64 value heads would take it)"},
    {"id": "mi-modelopt-nvfp4-qwen3-5-397b-tp8", "model": "nvidia/Qwen3.5-397B-A17B-NVFP4", "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/Qwen3.5-397B-A17B-NVFP4 at -tp 8 (the tower, each layer's attention or gated delta net, the shared "
            "experts and the LM head excluded; NVFP4 routed experts, 128 features per rank, on FP4 Marlin): accepted"},
    {"id": "mi-modelopt-nvfp4-qwen3-5-397b-tp2-tower", "model": "nvidia/Qwen3.5-397B-A17B-NVFP4",
     "config_patch": {"quantization_config": dict(_QWEN3_5_NVFP4, ignore=[n for n in _QWEN3_5_NVFP4["ignore"]
                                                                          if n != "model.visual*"])},
     "argv": ["-tp", "2"], "since": "0.24.0",
     "why": "the NVFP4 export with the vision tower quantized too, at -tp 2: the first block's mlp.linear_fc2 takes "
            "4304 / 2 = 2152 input features per rank, not a multiple of 16"},
    {"id": "mi-fp8-block-qwen3-5-397b-tp4-in-proj-b", "model": "Qwen/Qwen3.5-397B-A17B",
     "config_patch": {"quantization_config": {
         "activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128],
         "modules_to_not_convert": [n for n in _QWEN3_5_FP8_NAMES
                                    if n != "model.language_model.layers.0.linear_attn.in_proj_b"]}},
     "argv": ["-tp", "4"], "since": "0.17.0",
     "why": "block FP8 in the form of Qwen's export with layer 0's in_proj_b left out of modules_to_not_convert at -tp "
            "4: in_proj_a listed, in_proj_b not, so the fused in_proj_ba's shards disagree"},
    {"id": "mi-fp8-block-qwen3-5-397b-tp4", "model": "Qwen/Qwen3.5-397B-A17B",
     "config_patch": {"quantization_config": {
         "activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128],
         "modules_to_not_convert": _QWEN3_5_FP8_NAMES}},
     "argv": ["-tp", "4"], "since": "0.17.0",
     "why": "block FP8 in the form of Qwen's export at -tp 4: in_proj_qkvz [512, 512, 2048, 2048] and the experts' "
            "and shared expert's 1024 / 4 = 256 per rank are whole blocks: accepted"},
]

# Qwen3.5 compressed-tensors and ModelOpt FP8 exports (recorded for 0.17.0, 0.20.0, 0.24.0, 0.28.0 and 0.33.0:
# ``--vllm ... --only mi-ct-fp8-dynamic-qwen3-5-397b-tp8 ...``).  The compressed-tensors cases take the ignore list of
# llm-compressor's Qwen3.5 recipes (examples/quantization_w8a8_fp8/qwen3_5_moe.py and its NVFP4 counterpart: the LM
# head, the tower, the router and shared-expert gates and every gated-delta-net layer), so the first quantized layer
# is layer 0's shared expert; the W4A16 case writes the model dtype at the top level (the integer-weight kernels' dtype
# is read there; the catalog config names it only in text_config).  The ModelOpt FP8 case is NVIDIA's NVFP4 export
# with quant_algo FP8 (per-tensor weights and activations; the same exclusion list); its FP8 KV cache meets the CPU
# oracle's refusal up to 0.23.x, as the NVFP4 cases' does, so it is recorded from 0.24.0.
QWEN3_5_CT_IGNORE = ["re:.*lm_head", "re:visual.*", "re:model.visual.*", "re:.*mlp.gate$", "re:.*embed_tokens$",
                     "re:.*shared_expert_gate$", "re:.*mlp\\.shared_expert$", "re:.*linear_attn.*"]
_QWEN3_5_MODELOPT_FP8 = dict(
    _QWEN3_5_NVFP4, quant_algo="FP8",
    config_groups={"group_0": {"input_activations": {"dynamic": False, "num_bits": 8, "type": "float"},
                               "weights": {"dynamic": False, "num_bits": 8, "type": "float"}, "targets": ["Linear"]}})
CASES += [
    {"id": "mi-ct-fp8-dynamic-qwen3-5-397b-tp8", "model": "Qwen/Qwen3.5-397B-A17B",
     "quantization_config": "FP8_DYNAMIC", "ignore": QWEN3_5_CT_IGNORE, "argv": ["-tp", "8"],
     "since": "0.17.0",
     "why": "compressed-tensors FP8_DYNAMIC with the recipe's ignore list at -tp 8: per-channel FP8 weights check no "
            "size (the shared expert's and the experts' 1024 / 8 = 128 per rank): accepted"},
    {"id": "mi-ct-fp8-block-qwen3-5-397b-tp16", "model": "Qwen/Qwen3.5-397B-A17B",
     "quantization_config": "FP8_BLOCK", "ignore": QWEN3_5_CT_IGNORE, "argv": ["-tp", "16", "--nnodes", "2"],
     "since": "0.17.0",
     "why": "compressed-tensors FP8_BLOCK with the recipe's ignore list at -tp 16: layer 0's shared-expert gate_up_proj "
            "(the first quantized layer) takes 1024 / 16 = 64 rows per rank, not a whole 128-block (no merged-layer "
            "allowance for compressed-tensors)"},
    {"id": "mi-ct-fp8-block-qwen3-5-397b-tp1-gdn", "model": "Qwen/Qwen3.5-397B-A17B",
     "quantization_config": "FP8_BLOCK", "ignore": [n for n in QWEN3_5_CT_IGNORE if "linear_attn" not in n],
     "argv": [], "since": "0.17.0",
     "why": "compressed-tensors FP8_BLOCK with the gated delta net left quantized, at tp 1: layer 0's in_proj_ba is a "
            "merged [64, 64] layer whose first shard is checked even unsplit (in_proj_qkvz's 2048 / 8192 are whole "
            "blocks)"},
    {"id": "mi-ct-w4a16-qwen3-5-397b-tp8", "model": "Qwen/Qwen3.5-397B-A17B",
     "config_patch": {"torch_dtype": "bfloat16"}, "quantization_config": "W4A16", "ignore": QWEN3_5_CT_IGNORE,
     "argv": ["-tp", "8"], "since": "0.17.0",
     "why": "compressed-tensors W4A16 (groups of 128) with the recipe's ignore list at -tp 8: the shared expert's "
            "down_proj 128 input features per rank (one group) and the experts' 128 on Marlin: accepted"},
    {"id": "mi-ct-nvfp4-qwen3-5-397b-tp8", "model": "Qwen/Qwen3.5-397B-A17B",
     "quantization_config": "NVFP4", "ignore": QWEN3_5_CT_IGNORE, "argv": ["-tp", "8"],
     "since": "0.17.0",
     "why": "compressed-tensors NVFP4 with the recipe's ignore list at -tp 8 (FP4 Marlin for the linear layers and the "
            "experts on the default host, no size check): accepted"},
    {"id": "mi-ct-nvfp4-qwen3-5-397b-dp8-eplb", "model": "Qwen/Qwen3.5-397B-A17B",
     "quantization_config": "NVFP4", "ignore": QWEN3_5_CT_IGNORE,
     "argv": ["-dp", "8", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.17.0",
     "why": "the NVFP4 export with EPLB: the NVFP4 experts' method (FP4 Marlin on the default host) takes no EPLB"},
    {"id": "mi-modelopt-fp8-qwen3-5-397b-tp8", "model": "nvidia/Qwen3.5-397B-A17B-NVFP4",
     "config_patch": {"quantization_config": _QWEN3_5_MODELOPT_FP8}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "a ModelOpt FP8 export with NVIDIA's Qwen3.5 exclusion list at -tp 8 (per-tensor FP8 experts and layers "
            "check no size): accepted"},
]

# Qwen3.5 AWQ checkpoints (recorded for 0.18.0, 0.21.0, 0.22.1, 0.23.0, 0.24.0 and 0.33.0: ``--vllm ... --only
# mi-awq-qwen3-5-27b-tp8 ...``): AutoAWQ's 4-bit form with groups of 128, the tower ("visual", part of every tower
# prefix) and the LM head unconverted, the model dtype at the config's top level (the integer-weight kernels read it
# there; the catalog configs name it only in text_config).  From 0.22.0 the gated delta net replicates in_proj_ba under the Marlin-capable
# AWQ configs on CUDA (quant_runner's CUDA 9.0 stand-in answers that platform question as the default host does)
_QWEN3_5_AWQ = dict(AWQ_INT4, modules_to_not_convert=["visual", "lm_head"])
CASES += [
    {"id": "mi-awq-qwen3-5-27b-tp8", "model": "Qwen/Qwen3.5-27B", "config_patch": {"quantization_config": _QWEN3_5_AWQ, "torch_dtype": "bfloat16"},
     "argv": ["-tp", "8"], "since": "0.17.0",
     "why": "Qwen3.5-27B as AWQ at -tp 8: layer 0's in_proj_ba [48, 48] split by tp gives 12 outputs per rank, which "
            "Marlin cannot run and the plain AWQ kernel refuses (not whole packed words) up to 0.21.x; from 0.22.0 "
            "the layer is replicated (96 outputs) under AWQ-Marlin: accepted"},
    {"id": "mi-awq-qwen3-5-27b-tp8-quant-awq", "model": "Qwen/Qwen3.5-27B",
     "config_patch": {"quantization_config": _QWEN3_5_AWQ, "torch_dtype": "float16"},
     "argv": ["-tp", "8", "--quantization", "awq"], "engine_args": {"quantization": "awq"},
     "since": "0.22.0",
     "why": "--quantization awq (float16) at -tp 8: the plain AWQConfig of 0.22.x-0.23.x is not one the gated delta "
            "net replicates in_proj_ba for (12 outputs per rank refused); 0.24.0's AutoAWQConfig is: accepted"},
    {"id": "mi-awq-qwen3-5-397b-tp8", "model": "Qwen/Qwen3.5-397B-A17B",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=[
         "visual", "linear_attn.in_proj_a", "linear_attn.in_proj_b", "mlp.gate", "mlp.shared_expert_gate",
         "lm_head"]), "torch_dtype": "bfloat16"},
     "argv": ["-tp", "8"], "since": "0.17.0",
     "why": "Qwen3.5-397B-A17B as AWQ with in_proj_a / in_proj_b and the gates unconverted at -tp 8: the experts' "
            "1024 / 8 = 128 features per rank on the Marlin MoE method, the shared expert's and the gated delta "
            "net's per-rank shapes on Marlin: accepted"},
]

# Nemotron-H (kvguard.quant.nemotron_h, 0.24.0+): the first Mamba-2 mixer's asserts, before any quantized weight
# (recorded for 0.24.0, 0.28.0, 0.29.0 and 0.33.0: ``--vllm ... --only mi-nemotron3-nano-bf16-tp16
# mi-modelopt-nvfp4-nemotron3-nano-tp16``)
CASES += [
    {"id": "mi-nemotron3-nano-bf16-tp16", "model": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "Nemotron-3-Nano (8 Mamba groups, layer 0 a Mamba layer) at -tp 16 over 2 nodes: the first MambaMixer2 "
            "asserts that tp divides n_groups or n_groups is 1"},
    {"id": "mi-modelopt-nvfp4-nemotron3-nano-tp16", "model": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "the NVFP4 export (ModelOpt hf_quant_config.json) at -tp 16: the same mixer assert, before any quantized "
            "weight is built"},
]

# Nemotron-H's ModelOpt NVFP4 export past the first mixer (kvguard.quant.nemotron_h.past_first_mixer; recorded for
# 0.24.0, 0.28.0, 0.29.0 and 0.33.0: ``--vllm ... --only mi-modelopt-nvfp4-nemotron3-nano-tp8
# mi-modelopt-nvfp4-nemotron3-nano-m48x8-tp16``)
_NANO_NVFP4 = catalog.lookup("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4").hf_quant_config
CASES += [
    {"id": "mi-modelopt-nvfp4-nemotron3-nano-tp8", "model": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
     "argv": ["-tp", "8"], "since": "0.24.0",
     "why": "the NVFP4 export at -tp 8: every quantized layer's per-rank input a multiple of 16 (Mamba out_proj 512, "
            "shared experts' down_proj 464; the attention layers and the LM head excluded by their backbone.* names), "
            "the relu2 experts on FP4 Marlin: accepted"},
    {"id": "mi-modelopt-nvfp4-nemotron3-nano-m48x8-tp16", "model": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
     "config_patch": {"mamba_num_heads": 48, "mamba_head_dim": 8, "n_groups": 1,
                      "quantization_config": dict(_NANO_NVFP4, quant_method="modelopt")},
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "the NVFP4 export with 48 Mamba heads of width 8 and one group (the mixer asserts hold at -tp 16) as "
            "config.json's quantization_config: layer 0's out_proj takes 48 x 8 / 16 = 24 input features per rank: "
            "refused (MI_nvfp4_input)"},
]

# Nemotron-3 Super / Ultra (kvguard.quant.nemotron_h; recorded for 0.24.0, 0.26.0 - 0.29.0, 0.31.0 - 0.33.0:
# ``--vllm ... --only mi-modelopt-mixed-nemotron3-super-tp16 mi-nemotron3-ultra-bf16-tp16
# mi-modelopt-nvfp4-nemotron3-super-latent-tp8 mi-modelopt-nvfp4-nemotron3-super-latent1000-tp8
# mi-modelopt-fp8-nemotron3-super-tp8``): the catalog's
# Super NVFP4 (a MIXED_PRECISION export) up to its first mixer; the latent MoE past it on the NVFP4 form
_SUPER_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
CASES += [
    {"id": "mi-modelopt-mixed-nemotron3-super-tp16", "model": _SUPER_NVFP4,
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "Nemotron-3-Super's MIXED_PRECISION export (config.json's quantization_config) at -tp 16 over 2 nodes: "
            "layer 0's MambaMixer2 asserts that tp divides its 8 groups, before any quantized weight"},
    {"id": "mi-nemotron3-ultra-bf16-tp16", "model": "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16",
     "argv": ["-tp", "16", "--nnodes", "2"], "since": "0.24.0",
     "why": "Nemotron-3-Ultra (layers_block_type, 8 Mamba groups) at -tp 16 over 2 nodes: the first mixer's groups "
            "assert"},
    {"id": "mi-modelopt-nvfp4-nemotron3-super-latent-tp8", "model": _SUPER_NVFP4,
     "config_patch": {"quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "Nemotron-3-Super's config as a plain ModelOpt NVFP4 export (LM head excluded) at -tp 8: every quantized "
            "layer's per-rank input a multiple of 16, the latent projections (fc1_latent_proj on 4096, "
            "fc2_latent_proj on 1024, replicated) included: accepted"},
    {"id": "mi-modelopt-nvfp4-nemotron3-super-latent1000-tp8", "model": _SUPER_NVFP4,
     "config_patch": {"moe_latent_size": 1000, "quantization_config": MODELOPT_NVFP4}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "the same with a latent width of 1000: layer 1's fc2_latent_proj (replicated) takes 1000 input features, "
            "not a multiple of 16: refused (MI_nvfp4_input)"},
    {"id": "mi-modelopt-fp8-nemotron3-super-tp8", "model": _SUPER_NVFP4,
     "config_patch": {"quantization_config": MODELOPT_FP8}, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "Nemotron-3-Super's config as a ModelOpt FP8 (per-tensor) export at -tp 8: the FP8 linear method checks no "
            "size, the relu2 experts on Triton: accepted"},
]

# Nemotron-3-Super's MIXED_PRECISION export past the first mixer (kvguard.quant.modelopt_mixed; recorded for 0.24.0,
# 0.29.0, 0.30.0 and 0.33.0: ``--vllm ... --only mi-modelopt-mixed-nemotron3-super-tp8
# mi-modelopt-mixed-nemotron3-super-latent1000-tp8 mi-modelopt-mixed-nemotron3-super-w4a16-latent1000-tp8``)
_SUPER_MIXED = catalog.lookup(_SUPER_NVFP4).config["quantization_config"]
_SUPER_W4A16_FC2 = {"backbone.layers.3.mixer.fc2_latent_proj": {"quant_algo": "W4A16_NVFP4", "group_size": 16}}
CASES += [
    {"id": "mi-modelopt-mixed-nemotron3-super-tp8", "model": _SUPER_NVFP4, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "Nemotron-3-Super's MIXED_PRECISION export at -tp 8: FP8 Mamba projections, shared experts and latent "
            "projections (no size check), NVFP4 shared experts' down_proj (672 per rank) and routed experts (FP4 "
            "Marlin), the attention's qkv_proj and most latent projections unlisted (unquantized): accepted"},
    {"id": "mi-modelopt-mixed-nemotron3-super-latent1000-tp8", "model": _SUPER_NVFP4,
     "config_patch": {"moe_latent_size": 1000}, "argv": ["-tp", "8"], "since": "0.24.0",
     "why": "the same export with a latent width of 1000: the only listed fc2_latent_proj (layer 3) is FP8, which "
            "checks no size, the others unquantized: accepted (the plain NVFP4 form refuses it)"},
    {"id": "mi-modelopt-mixed-nemotron3-super-w4a16-latent1000-tp8", "model": _SUPER_NVFP4,
     "config_patch": {"moe_latent_size": 1000, "quantization_config": dict(_SUPER_MIXED, quantized_layers={
         **_SUPER_MIXED["quantized_layers"], **_SUPER_W4A16_FC2})},
     "argv": ["-tp", "8"], "since": "0.24.0",
     "why": "the same with layer 3's fc2_latent_proj listed as W4A16_NVFP4: its 1000 input features are not a "
            "multiple of 16 (the weight-only NVFP4 method's message up to 0.29.0, the shared NVFP4 scheme's from "
            "0.30.0)"},
]

# NVIDIA's Qwen3.6 MIXED_PRECISION exports in the general walk (kvguard.quant.modelopt_mixed, families qwen3_5 /
# qwen3_5_moe; recorded for 0.24.0, 0.28.0, 0.29.0, 0.30.0 and 0.33.0: ``--vllm ... --only mi-modelopt-mixed-qwen3-6-27b-tp8
# mi-modelopt-mixed-qwen3-6-35b-a3b-tp8 mi-modelopt-mixed-qwen3-6-27b-mlp17400-tp2
# mi-modelopt-mixed-qwen3-6-35b-a3b-fp8-experts-eplb``).  From 0.24.0: the exports' FP8 KV cache meets the oracle's CPU
# platform, which refuses it with chunked prefill and prefix caching up to 0.23.x (as the Qwen3.5 NVFP4 cases;
# tools/quant_differential.py --qwen3-6-mixed covers 0.17.0+)
_Q36_DENSE, _Q36_MOE = "nvidia/Qwen3.6-27B-NVFP4", "nvidia/Qwen3.6-35B-A3B-NVFP4"
_Q36_MOE_MIXED = catalog.lookup(_Q36_MOE).config["quantization_config"]
CASES += [
    {"id": "mi-modelopt-mixed-qwen3-6-27b-tp8", "model": _Q36_DENSE, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/Qwen3.6-27B-NVFP4 (MIXED_PRECISION: FP8 attention and gated delta net, W4A16_NVFP4 MLP and LM "
            "head) at -tp 8: down_proj's 17408 / 8 = 2176 inputs per rank and the head's 5120 are whole 16-groups: "
            "accepted"},
    {"id": "mi-modelopt-mixed-qwen3-6-35b-a3b-tp8", "model": _Q36_MOE, "argv": ["-tp", "8"],
     "since": "0.24.0",
     "why": "nvidia/Qwen3.6-35B-A3B-NVFP4 (MIXED_PRECISION: FP8 attention and gated delta net, W4A16_NVFP4 experts, "
            "shared expert and LM head) at -tp 8: the shared expert's 512 / 8 = 64 inputs per rank, the experts on FP4 "
            "Marlin: accepted"},
    {"id": "mi-modelopt-mixed-qwen3-6-27b-mlp17400-tp2", "model": _Q36_DENSE,
     "config_patch": {"text_config": dict(catalog.lookup(_Q36_DENSE).config["text_config"], intermediate_size=17400)},
     "argv": ["-tp", "2"], "since": "0.24.0",
     "why": "the 27B export with an MLP of 17400 at -tp 2: layer 0's W4A16_NVFP4 down_proj takes 8700 input features "
            "per rank, not a multiple of 16 (the weight-only NVFP4 method's message up to 0.29.0, the shared NVFP4 "
            "scheme's from 0.30.0)"},
    {"id": "mi-modelopt-mixed-qwen3-6-35b-a3b-fp8-experts-eplb", "model": _Q36_MOE,
     "config_patch": {"quantization_config": dict(_Q36_MOE_MIXED, quantized_layers={
         k: ({"quant_algo": "FP8"} if k.endswith(".mlp.experts") else v)
         for k, v in _Q36_MOE_MIXED["quantized_layers"].items()})},
     "argv": ["-tp", "2", "-dp", "4", "--enable-expert-parallel", "--enable-eplb"],
     "since": "0.24.0",
     "why": "the 35B-A3B export with FP8 routed experts, EPLB on: FusedMoE asks ModelOptFp8MoEMethod, which takes no "
            "EPLB"},
]


# Qwen2.5-VL / Qwen2-VL (kvguard.quant.qwen2_vl: the vision tower, then Qwen2's language model; recorded for 0.10.2,
# 0.11.0, 0.17.1, 0.24.0, 0.28.0 and 0.33.0: ``--vllm ... --only mi-qwen25-vl-72b-tp8 ...``): the configs
# tests/upstream/test_quant.py states (QWEN2_5_VL_7B / QWEN2_5_VL_72B, Qwen's config.json); the AWQ form is Qwen's
# exports' (modules_to_not_convert ["visual"]), the compressed-tensors ones RedHatAI's llm-compressor exports'
QWEN2_5_VL_AWQ = dict(AWQ_INT4, modules_to_not_convert=["visual"])
QWEN2_5_VL_CT_IGNORE = ["re:.*lm_head", "re:visual.*"]
CASES += [
    {"id": "mi-qwen25-vl-72b-tp8", "model": "Qwen/Qwen2.5-VL-72B-Instruct", "config_from": "QWEN2_5_VL_72B",
     "argv": ["-tp", "8"],
     "why": "Qwen2.5-VL-72B at -tp 8: the vision tower is built first and split by tp; the first block's gate_up_proj "
            "(twice the tower's 3420-wide MLP) asserts that tp divides each output"},
    {"id": "mi-qwen25-vl-72b-tp8-mm-data", "model": "Qwen/Qwen2.5-VL-72B-Instruct", "config_from": "QWEN2_5_VL_72B",
     "argv": ["-tp", "8", "--mm-encoder-tp-mode", "data"],
     "engine_args": {"mm_encoder_tp_mode": "data"}, "since": "0.18.0",
     "why": "the same with --mm-encoder-tp-mode data: the tower is replicated, the language model splits: accepted "
            "(from 0.18.0: up to 0.17.x the wrapper's VllmConfig copy meets the CPU oracle's swap-space limit, a "
            "host artefact; the differential covers those releases)"},
    {"id": "mi-awq-qwen25-vl-7b-tp4", "model": "Qwen/Qwen2.5-VL-7B-Instruct-AWQ", "config_from": "QWEN2_5_VL_7B",
     "config_patch": {"quantization_config": QWEN2_5_VL_AWQ}, "argv": ["-tp", "4"],
     "why": "Qwen's AWQ export (the tower in modules_to_not_convert) at -tp 4: the tower unquantized (855-wide MLP "
            "shards), the decoder's 4-bit layers fit: accepted"},
    {"id": "mi-awq-qwen25-vl-7b-tower-tp1", "model": "Qwen/Qwen2.5-VL-7B-Instruct-AWQ", "config_from": "QWEN2_5_VL_7B",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": [],
     "why": "an AWQ checkpoint of Qwen2.5-VL-7B that leaves nothing unconverted: the vision tower takes AWQ too, and "
            "its 3420-wide MLP is no whole number of AWQ's packs / groups"},
    {"id": "mi-ct-fp8-dynamic-qwen25-vl-7b-tp2", "model": "RedHatAI/Qwen2.5-VL-7B-Instruct-FP8-Dynamic",
     "config_from": "QWEN2_5_VL_7B", "quantization_config": "FP8_DYNAMIC", "ignore": QWEN2_5_VL_CT_IGNORE,
     "argv": ["-tp", "2"],
     "why": "llm-compressor's FP8-dynamic export (the tower and the LM head ignored) at -tp 2: accepted"},
]

# Gemma 3's text model (kvguard/data/quant_archs.json family gemma3): google/gemma-3-1b-it's config.json (hidden 1152,
# intermediate 6912, 4 heads, 1 KV head; tests/upstream/test_quant.py GEMMA3_1B_IT) in the quantized forms the published
# Gemma 3 exports write: AutoAWQ 4-bit in groups of 128, Fp8Config block FP8, llm-compressor's W4A16 / FP8_DYNAMIC with
# RedHatAI's ignore entry for the head ("re:.*lm_head", RedHatAI/gemma-3-27b-it-FP8-dynamic's recipe)
CASES += [
    {"id": "mi-awq-gemma3-1b-tp4", "model": "google/gemma-3-1b-it", "config_from": "GEMMA3_1B_IT",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": ["-tp", "4"],
     "why": "Gemma 3 1B as AWQ (groups of 128) at -tp 4: down_proj takes 6912 / 4 = 1728 input features per rank, "
            "13.5 groups: refused"},
    {"id": "mi-awq-gemma3-1b-tp2", "model": "google/gemma-3-1b-it", "config_from": "GEMMA3_1B_IT",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": ["-tp", "2"],
     "why": "the same at -tp 2: 3456 = 27 x 128 input features per rank for down_proj, 512 for o_proj: accepted"},
    {"id": "mi-fp8-block-gemma3-1b-tp4", "model": "google/gemma-3-1b-it", "config_from": "GEMMA3_1B_IT",
     "config_patch": {"quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                              "weight_block_size": [128, 128]}},
     "argv": ["-tp", "4"],
     "why": "block FP8 at -tp 4: gate_up_proj's 1728 outputs per rank (block_n) or, where the release lets the merged "
            "layer through, down_proj's 1728 inputs (block_k) are no whole number of 128-blocks"},
    {"id": "mi-ct-gemma3-1b-w4a16-tp2", "model": "google/gemma-3-1b-it", "config_from": "GEMMA3_1B_IT",
     "quantization_config": "W4A16", "ignore": ["re:.*lm_head"], "argv": ["-tp", "2"],
     "why": "compressed-tensors W4A16 (groups of 128) at -tp 2: down_proj's 3456 input features per rank, 27 groups, "
            "on Marlin: accepted (at -tp 4 its 1728, 13.5 groups, leave the kernel choice open)"},
    {"id": "mi-ct-gemma3-1b-fp8-dynamic-tp4", "model": "google/gemma-3-1b-it", "config_from": "GEMMA3_1B_IT",
     "quantization_config": "FP8_DYNAMIC", "ignore": ["re:.*lm_head"], "argv": ["-tp", "4"],
     "why": "compressed-tensors FP8_DYNAMIC (per-channel weights) at -tp 4: no shape check: accepted"},
]

# Gemma 3's multimodal wrapper (kvguard.quant.gemma3_mm: the SigLIP tower, then the gemma3 family under
# language_model): the catalog's google/gemma-3-27b-it; the compressed-tensors forms llm-compressor writes with
# RedHatAI's ignore list (RedHatAI/gemma-3-27b-it-FP8-dynamic, -quantized.w4a16); recorded from 0.12.0 (up to 0.11.x
# the CPU oracle runs a sliding-window model on V0, whose CPU attention lookup refuses the tower's MultiHeadAttention;
# a CUDA host runs V1: the differential covers those releases without the window); recorded for 0.12.0, 0.14.1,
# 0.24.0, 0.28.0 and 0.33.0 with KVG_ORACLE_INSPECT=inprocess KVG_ORACLE_TORCHVISION=stub (from 0.24.0 the oracle's
# own model inspection of a multimodal wrapper needs them): ``--vllm ... --only mi-awq-gemma3-27b-tower-tp2 ...``
GEMMA3_MM_CT_IGNORE = ["re:.*lm_head", "re:vision_tower.*", "re:multi_modal_projector.*"]
CASES += [
    {"id": "mi-awq-gemma3-27b-tower-tp2", "model": "google/gemma-3-27b-it", "since": "0.12.0",
     "config_patch": {"quantization_config": AWQ_INT4}, "argv": ["-tp", "2"],
     "why": "an AWQ checkpoint of Gemma 3 27B that leaves nothing unconverted at -tp 2: the SigLIP tower takes AWQ "
            "too; its out_proj (row parallel) gets 1152 / 2 = 576 input features per rank, 4.5 groups of 128"},
    {"id": "mi-awq-gemma3-27b-tp4", "model": "google/gemma-3-27b-it", "since": "0.12.0",
     "config_patch": {"quantization_config": dict(AWQ_INT4, modules_to_not_convert=["vision_tower",
                                                                                   "multi_modal_projector"])},
     "argv": ["-tp", "4"],
     "why": "the same with the tower and projector left unconverted at -tp 4: the text layers' inputs per rank are "
            "whole groups (down_proj 5376, o_proj 1024): accepted"},
    {"id": "mi-ct-fp8-dynamic-gemma3-27b-tp4", "model": "RedHatAI/gemma-3-27b-it-FP8-dynamic",
     "config_from_catalog": "google/gemma-3-27b-it", "since": "0.12.0", "quantization_config": "FP8_DYNAMIC",
     "ignore": GEMMA3_MM_CT_IGNORE, "argv": ["-tp", "4"],
     "why": "llm-compressor's FP8-dynamic export (the tower, the projector and the LM head ignored) at -tp 4: "
            "accepted"},
    {"id": "mi-ct-w4a16-gemma3-27b-tp2", "model": "RedHatAI/gemma-3-27b-it-quantized.w4a16",
     "config_from_catalog": "google/gemma-3-27b-it", "since": "0.12.0", "quantization_config": "W4A16",
     "ignore": GEMMA3_MM_CT_IGNORE, "argv": ["-tp", "2"],
     "why": "llm-compressor's W4A16 export (groups of 128, the tower ignored) at -tp 2: the text layers' inputs per "
            "rank are whole groups: accepted"},
]

# Intern-S1's wrapper (kvguard.quant.interns1: the InternViT tower, never quantized, then the qwen3_moe family under
# language_model): tests/upstream/test_quant.py's INTERNS1_CONFIG, transformers' InternVL form at Intern-S1's sizes
# (Qwen/Qwen3-235B-A22B's text config, an InternViT-6B tower; Intern-S1's own config.json names remote code);
# recorded for 0.10.2, 0.14.1, 0.24.0, 0.28.0 and 0.33.0 with KVG_ORACLE_INSPECT=inprocess
# KVG_ORACLE_TORCHVISION=stub: ``--vllm ... --only mi-internvl-s1-fp8-block-tp8 mi-internvl-s1-tower-tp4``
INTERNS1_BLOCK_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                      "weight_block_size": [128, 128]}
CASES += [
    {"id": "mi-internvl-s1-fp8-block-tp8", "model": "internlm/Intern-S1-FP8", "config_from": "INTERNS1_CONFIG",
     "config_patch": {"quantization_config": INTERNS1_BLOCK_FP8}, "argv": ["-tp", "8"],
     **ORACLE_WRAPPER_HOST,
     "why": "Intern-S1's sizes with block FP8 (128 x 128) at -tp 8: the tower is built unquantized; the experts' "
            "1536 / 8 = 192 outputs per rank are not whole blocks of 128: refused up to 0.28.x, accepted from 0.29.0 "
            "(the refined blocks run on Triton, the default host's)"},
    {"id": "mi-internvl-s1-tower-tp4", "model": "internlm/Intern-S1", "config_from": "INTERNS1_CONFIG",
     "config_patch": {"vision_config": {"model_type": "internvl_vision", "hidden_size": 3200,
                                        "num_attention_heads": 25, "intermediate_size": 12802, "num_hidden_layers": 45,
                                        "use_qk_norm": True, "norm_type": "rms_norm", "image_size": [448, 448],
                                        "patch_size": [14, 14]}},
     "argv": ["-tp", "4"], **ORACLE_WRAPPER_HOST,
     "why": "Intern-S1's sizes with a 12802-wide tower MLP at -tp 4: the language model's checks pass (64 heads, 4 KV "
            "heads, experts of 1536), but the tower is built first and layer 0's fc1 splits 12802 by 4 (MI_divide)"},
]


from tests.upstream.test_quant import ct_scheme_args as _ct_args  # noqa: E402  (one definition of the schemes)

#: llm-compressor's presets as it writes them into config.json (quant_method compressed-tensors)
CT_PRESETS = {
    "FP8_BLOCK": (_ct_args(strategy="block", block_structure=[128, 128]),
                  _ct_args(strategy="group", group_size=128, dynamic=True, observer=None)),
    "FP8_DYNAMIC": (_ct_args(), _ct_args(strategy="token", dynamic=True, observer=None)),
    "W4A16": (_ct_args(num_bits=4, type="int", strategy="group", group_size=128), None),
    # W4A16 in groups of 32 (the smallest group Marlin takes)
    "W4A16_G32": (_ct_args(num_bits=4, type="int", strategy="group", group_size=32), None),
    "W8A8": (_ct_args(type="int"), _ct_args(type="int", strategy="token", dynamic=True, observer=None)),
    # NVFP4 (W4A4) as RedHatAI's NVFP4 checkpoints are made (the recipe of RedHatAI/Meta-Llama-3.1-8B-Instruct-NVFP4's
    # model card, https://huggingface.co/RedHatAI/Meta-Llama-3.1-8B-Instruct-NVFP4, llm-compressor's
    # examples/quantization_w4a4_fp4/llama3_example.py: tensor_group weights and activations in groups of 16,
    # activations dynamic "local"), and its weight-only NVFP4A16 form
    "NVFP4": (_ct_args(num_bits=4, strategy="tensor_group", group_size=16),
              _ct_args(num_bits=4, strategy="tensor_group", group_size=16, dynamic="local")),
    "NVFP4A16": (_ct_args(num_bits=4, strategy="tensor_group", group_size=16), None),
    # NVFP4 weights with the activations of the FP8_DYNAMIC preset (dynamic per-token) or of the FP8 one (static
    # per-tensor)
    "NVFP4_FP8_DYNAMIC": (_ct_args(num_bits=4, strategy="tensor_group", group_size=16),
                          _ct_args(strategy="token", dynamic=True, observer=None)),
    "NVFP4_FP8_STATIC": (_ct_args(num_bits=4, strategy="tensor_group", group_size=16), _ct_args(strategy="tensor")),
}
#: the presets' compression format (the FP8 ones: float-quantized)
CT_FORMATS = {"W4A16": "pack-quantized", "W4A16_G32": "pack-quantized", "W8A8": "int-quantized",
              "NVFP4": "nvfp4-pack-quantized", "NVFP4A16": "nvfp4-pack-quantized", "NVFP4_FP8_DYNAMIC": "nvfp4-pack-quantized",
              "NVFP4_FP8_STATIC": "nvfp4-pack-quantized"}


def _config(c: dict) -> dict:
    """The case's config: the catalog checkpoint's, with the case's ``config_patch`` and compressed-tensors
    ``quantization_config`` preset (the case file then carries the config inline)."""
    if "config_from" in c:
        # a config tests/upstream/test_quant.py states (a checkpoint the catalog does not hold)
        from tests.upstream import test_quant

        cfg = dict(getattr(test_quant, c["config_from"]), **c.get("config_patch", {}))
    else:
        # ``config_from_catalog``: a published export of a catalog checkpoint the catalog does not hold itself
        cfg = dict(catalog.lookup(c.get("config_from_catalog", c["model"])).config, **c.get("config_patch", {}))
    cfg.pop("auto_map", None)
    for key in c.get("config_drop", ()):  # a key the checkpoint's config leaves out
        cfg.pop(key, None)
    preset = c.get("quantization_config")
    if preset:
        weights, acts = CT_PRESETS[preset]
        fmt = CT_FORMATS.get(preset, "float-quantized")
        cfg["quantization_config"] = {
            "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": acts,
                                          "output_activations": None, "format": fmt}},
            "ignore": list(c.get("ignore", ["lm_head"])), "kv_cache_scheme": None, "sparsity_config": {}, "global_compression_ratio": None}
    return cfg


def launch_layout(argv: list[str]) -> dict:
    """The parallel layout a case's launch states, as tests/upstream/quant_runner.py builds it: tp (1 unless given),
    dp, expert parallel, EPLB and its redundant experts (``--eplb-config``); the other arguments (``--nnodes``,
    ``--quantization``, ...) leave it as it is."""
    layout: dict = {"tp": 1}
    args = iter(argv)
    for arg in args:
        if arg == "-tp":
            layout["tp"] = int(next(args))
        elif arg == "-dp":
            layout["dp"] = int(next(args))
        elif arg == "--enable-expert-parallel":
            layout["ep"] = True
        elif arg == "--enable-eplb":
            layout["eplb"] = True
        elif arg == "--eplb-config":
            layout["redundant"] = json.loads(next(args))["num_redundant_experts"]
    return layout


def _within(version: str, since: str | None, until: str | None = None) -> bool:
    from packaging.version import Version

    return ((since is None or Version(version) >= Version(since))
            and (until is None or Version(version) <= Version(until)))


def _oracle(version: str) -> tuple[str, dict]:
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "oracle_env.py"), "python", version, "--json"],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    return data["python"], data["env"]


def _record_vllm_config(version: str, chosen: list[dict], python: str, env_over: dict) -> int:
    """The cases VllmConfig decides (``vllm_config``: the whole create_engine_config, quantization modules on
    CUDA 9.0; tests/upstream/quant_verify_runner.py), recorded with the pydantic wrapping it reports."""
    cases = [{"id": c["id"], "config": _config(c), "quantization": c["vllm_config"].get("quantization"),
              "dtype": c["vllm_config"].get("dtype"), "vllm_config": True} for c in chosen]
    with tempfile.TemporaryDirectory(prefix="kvg-golden-vc-") as tmp:
        inp, outp = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        Path(inp).write_text(json.dumps({"cases": cases}))
        env = dict(os.environ, **env_over, VLLM_CACHE_ROOT=os.path.join(tmp, "cache"), HF_HUB_OFFLINE="1")
        proc = subprocess.run([python, str(ROOT / "tests" / "upstream" / "quant_verify_runner.py"), inp, outp],
                              env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        results = json.loads(Path(outp).read_text())
    for c, rec in zip(chosen, results):
        expect = {"ok": True} if rec["stage"] == "ok" else {
            "ok": False, "exc_type": rec["exc_type"], "message": rec["message"], "wrapped_by": rec.get("wrapped_by")}
        case = {"id": c["id"], "why": c["why"], "model": c["model"], "argv": c["argv"], "env": {}, "host": HOST,
                "expect": expect,
                "recorded_from": f"vLLM {version}: EngineArgs.create_engine_config (tests/upstream/quant_verify_runner.py "
                                 f"via tools/record_golden_quant.py; the CPU platform apart from the quantization "
                                 f"modules, which see CUDA compute capability 9.0)"}
        path = ROOT / "tests" / "cases" / version / f"{c['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=1) + "\n")
        print(f"{version} {c['id']}: {'accepted' if expect['ok'] else expect['exc_type'] + ': ' + expect['message'][:90]}")
    return len(chosen)


def record(version: str, only: list[str]) -> int:
    python, env_over = _oracle(version)
    chosen = [c for c in CASES if (not only or c["id"] in only) and _within(version, c.get("since"), c.get("until"))]
    verify_cases = [c for c in chosen if "vllm_config" in c]
    chosen = [c for c in chosen if "vllm_config" not in c]
    written = _record_vllm_config(version, verify_cases, python, env_over) if verify_cases else 0
    if not chosen:
        return written
    runner_cases = []
    for c in chosen:
        entry = None if "config_from" in c else catalog.lookup(c.get("config_from_catalog", c["model"]))
        # a ModelOpt export's hf_quant_config.json beside config.json, as the checkpoint's directory holds it
        files = ({"hf_quant_config.json": entry.hf_quant_config}
                 if entry is not None and entry.hf_quant_config and "config_patch" not in c else {})
        # ``engine_args_until``: the runner's engine arguments apply up to that release only (an oracle-host artefact
        # of the older releases, never part of the case's argv)
        engine = (c.get("engine_args") or {}) if _within(version, None, c.get("engine_args_until")) else {}
        # DeepSeek-V4: the KV-cache dtype is set after the engine config (the CPU platform refuses or resets an fp8
        # one; a CUDA host keeps it), as tests/upstream/test_dsv4_model.py does
        runner_cases.append({"config": _config(c), "layouts": [launch_layout(c["argv"])], "engine_args": engine,
                             "files": files,
                             **({"kv_after_config": True} if c["id"].startswith("mi-dsv4-") else {})})
    with tempfile.TemporaryDirectory(prefix="kvg-golden-quant-") as tmp:
        inp, outp = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        Path(inp).write_text(json.dumps({"cases": runner_cases}))
        env = dict(os.environ, **env_over, VLLM_CACHE_ROOT=os.path.join(tmp, "cache"), HF_HUB_OFFLINE="1")
        proc = subprocess.run([python, str(ROOT / "tests" / "upstream" / "quant_runner.py"), inp, outp], env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        results = json.loads(Path(outp).read_text())["results"]
    for c, res in zip(chosen, results):
        if "setup_error" in res:
            print(f"{version} {c['id']}: oracle setup failed: {res['setup_error'][:200]}", file=sys.stderr)
            continue
        rec = res["outcomes"][0]
        expect = {"ok": True} if rec["ok"] else {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"],
                                                 "wrapped_by": None}
        case = {"id": c["id"], "why": c["why"], "model": c["model"], "argv": c["argv"], "env": {}, "host": HOST,
                **({"config": _config(c)} if c.get("config_patch") or c.get("config_drop")
                   or c.get("quantization_config") or c.get("config_from") else {}),
                "expect": expect,
                "recorded_from": f"vLLM {version}: the model built on the meta device at the launch's sizes "
                                 f"(tests/upstream/quant_runner.py via tools/record_golden_quant.py; FP8 MoE kernel: "
                                 f"Triton, the default host's"
                                 + ("; AWQ / GPTQ kernel choice: CUDA compute capability 9.0, the default host's)"
                                    if _config(c).get("quantization_config", {}).get("quant_method") in ("awq", "gptq")
                                    else "; ModelOpt kernels: FP4 Marlin for NVFP4 linear layers and experts, the "
                                         "default host's)"
                                    if _config(c).get("quantization_config", {}).get("quant_method") == "modelopt"
                                    else "; MXFP4 MoE backend: Triton, the default host's; torch.distributed's world "
                                         "size: tp x dp)"
                                    if _config(c).get("quantization_config", {}).get("quant_method") == "mxfp4"
                                    else "; DeepSeek-V4: the CUDA model, its MXFP4 experts' backend chosen by the "
                                         "release's selection on CUDA 9.0, Marlin)"
                                    if c["id"].startswith("mi-dsv4-")
                                    else ")")}
        path = ROOT / "tests" / "cases" / version / f"{c['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=1) + "\n")
        written += 1
        print(f"{version} {c['id']}: {'accepted' if rec['ok'] else rec['exc_type'] + ': ' + rec['message'][:90]}")
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vllm", nargs="*", default=list(RELEASES))
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    for version in args.vllm:
        record(version, args.only)


if __name__ == "__main__":
    main()
