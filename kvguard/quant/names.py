"""The names kvguard.quant's dispatch compares a model and its checkpoint with before it hands them to a module of
their own (``_ON_FIRST_USE`` in kvguard/quant/__init__.py).

Each of those modules is imported when a check first reads one of its names; were the names the dispatch compares
with kept in the modules, every check would import them all (a first check of DeepSeek-R1 imported seven of them for
a name each, ~6M instructions).  They live here, and each module takes its own from here.
"""

from __future__ import annotations

__all__ = ["CT_METHOD", "DSV4_ARCH", "ERNIE45_VL_ARCH", "GEMMA3_MM_ARCH", "GEMMA4_FAMILY", "GLM4V_ARCH", "GPT_OSS_FAMILY",
           "INTERNS1_ARCHS", "KIMI_K25_ARCH", "KIMI_K3_ARCH", "LLAMA4_FAMILY", "MIXED_METHOD", "MODELOPT_SHARD_METHODS", "NEMOTRON_H_ARCH",
           "QWEN2_VL_ARCHS", "QWEN3_VL_ARCHS", "TOWER_DATA_PARALLEL", "TOWER_WRAPPERS"]

#: kvguard.quant.dsv4: the registry's name of DeepSeek-V4's CUDA text model
DSV4_ARCH = "DeepseekV4ForCausalLM"
#: kvguard.quant.kimi_k25: the Kimi-K2.5 wrapper
KIMI_K25_ARCH = "KimiK25ForConditionalGeneration"
#: kvguard.quant.kimi_k3
KIMI_K3_ARCH = "KimiK3ForConditionalGeneration"
#: kvguard.quant.nemotron_h
NEMOTRON_H_ARCH = "NemotronHForCausalLM"
#: kvguard.quant.glm4v: the GLM-4.5V wrapper
GLM4V_ARCH = "Glm4vMoeForConditionalGeneration"
#: kvguard.quant.gemma3_mm: Gemma 3's multimodal wrapper
GEMMA3_MM_ARCH = "Gemma3ForConditionalGeneration"
#: kvguard.quant.ernie45_vl: the ERNIE-4.5-VL wrapper
ERNIE45_VL_ARCH = "Ernie4_5_VLMoeForConditionalGeneration"
#: kvguard.quant.gemma4, kvguard.quant.gpt_oss and kvguard.quant.llama4: their kvguard/data/quant_archs.json families
GEMMA4_FAMILY = "gemma4"
GPT_OSS_FAMILY = "gpt_oss"
LLAMA4_FAMILY = "llama4"
#: kvguard.quant.qwen2_vl: the Qwen2.5-VL and Qwen2-VL wrappers
QWEN2_VL_ARCHS = ("Qwen2_5_VLForConditionalGeneration", "Qwen2VLForConditionalGeneration")
#: kvguard.quant.qwen3_vl: the Qwen3-VL wrappers (dense, MoE), then Qwen3.5's (dense, MoE), which build the same tower
QWEN3_VL_ARCHS = ("Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
                  "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration")
#: the vision towers' layers' ``disable_tp`` (kvguard.quant.qwen2_vl, qwen3_vl, glm4v): not split by tp when the
#: encoder runs data-parallel (``--mm-encoder-tp-mode data``)
TOWER_DATA_PARALLEL = "mm_encoder_data"
#: kvguard.quant.compressed_tensors: the checkpoint method
CT_METHOD = "compressed-tensors"
#: kvguard.quant.modelopt_mixed: ModelOpt MIXED_PRECISION's method
MIXED_METHOD = "modelopt_mixed"
#: kvguard.quant.modelopt_shards: the ModelOpt FP8 / NVFP4 methods whose construction it decides
MODELOPT_SHARD_METHODS = ("modelopt", "modelopt_fp4")
#: kvguard.quant.interns1: the registry's names of Intern-S1's wrapper (InternS1ForConditionalGeneration, also
#: registered for transformers' InternVL checkpoints)
INTERNS1_ARCHS = ("InternS1ForConditionalGeneration", "InternVLForConditionalGeneration")
#: kvguard.quant.wrappers: the multimodal wrappers that build their vision tower first, before the language model, as
#: (the module of kvguard.quant that models them, the registry's names it models), in the order kvguard.quant asks
#: them (the first reason one gives is the answer)
TOWER_WRAPPERS = (("qwen3_vl", QWEN3_VL_ARCHS), ("qwen2_vl", QWEN2_VL_ARCHS), ("gemma3_mm", (GEMMA3_MM_ARCH,)),
                  ("interns1", INTERNS1_ARCHS), ("glm4v", (GLM4V_ARCH,)))
