#!/usr/bin/env python3
"""Build tests/hfconfig/data/templates.json: one realistic config.json per model type.

Transformers model types: ``AutoConfig.for_model(mt).to_dict()`` from the
4.57.6 oracle venv (5.x venv when 4.x lacks the type).  vLLM-only / remote
model types: hand-written below (shaped like the real checkpoints).

usage: python tools/hfconfig_templates.py [--env-root DIR] [--rebuild]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from hfconfig_oracle import SCOPE, TEMPLATES  # noqa: E402

_DSV3 = {
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "vocab_size": 129280,
    "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
    "num_nextn_predict_layers": 1, "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 1,
    "n_routed_experts": 256, "routed_scaling_factor": 2.5, "kv_lora_rank": 512, "q_lora_rank": 1536,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128, "topk_method": "noaux_tc", "n_group": 8,
    "topk_group": 4, "num_experts_per_tok": 8, "moe_layer_freq": 1, "first_k_dense_replace": 3,
    "norm_topk_prob": True, "scoring_func": "sigmoid", "hidden_act": "silu", "max_position_embeddings": 163840,
    "initializer_range": 0.02, "rms_norm_eps": 1e-06, "use_cache": True, "bos_token_id": 0, "eos_token_id": 1,
    "tie_word_embeddings": False, "rope_theta": 10000, "rope_scaling": {
        "beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096, "type": "yarn"},
    "attention_bias": False, "attention_dropout": 0.0, "torch_dtype": "bfloat16",
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                            "weight_block_size": [128, 128]},
}
_LLAMA = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16",
    "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "tie_word_embeddings": False,
}

HAND = {
    "kimi_k2": {**_DSV3, "model_type": "kimi_k2", "num_attention_heads": 64, "n_routed_experts": 384},
    "deepseek_v32": {**_DSV3, "architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
                     "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048},
    "deepseek_mtp": {**_DSV3, "model_type": "deepseek_mtp", "architectures": ["DeepSeekMTPModel"]},
    "kimi_linear": {
        "architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "vocab_size": 163840,
        "hidden_size": 2304, "intermediate_size": 9216, "moe_intermediate_size": 1024, "num_hidden_layers": 27,
        "num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 72, "kv_lora_rank": 512,
        "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "mla_use_nope": True, "num_experts": 256, "num_experts_per_token": 8, "num_shared_experts": 1,
        "first_k_dense_replace": 1, "moe_layer_freq": 1, "max_position_embeddings": 1048576,
        "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 27],
                               "kda_layers": [1, 2, 3, 5, 6, 7], "num_heads": 32, "head_dim": 128,
                               "short_conv_kernel_size": 4},
        "torch_dtype": "bfloat16", "rope_theta": 10000.0, "tie_word_embeddings": False,
    },
    "RefinedWebModel": {
        "architectures": ["RWForCausalLM"], "model_type": "RefinedWebModel", "hidden_size": 4544, "n_head": 71,
        "n_layer": 32, "multi_query": True, "parallel_attn": True, "alibi": False, "bias": False,
        "vocab_size": 65024, "layer_norm_epsilon": 1e-05, "bos_token_id": 11, "eos_token_id": 11,
        "hidden_dropout": 0.0, "attention_dropout": 0.0, "torch_dtype": "bfloat16", "use_cache": True,
    },
    "RefinedWeb": {
        "architectures": ["RWForCausalLM"], "model_type": "RefinedWeb", "hidden_size": 8192, "n_head": 128,
        "n_head_kv": 8, "n_layer": 60, "parallel_attn": True, "alibi": False, "bias": False,
        "vocab_size": 65024, "layer_norm_epsilon": 1e-05, "bos_token_id": 11, "eos_token_id": 11,
        "torch_dtype": "bfloat16",
    },
    "chatglm": {
        "architectures": ["ChatGLMModel"], "model_type": "chatglm", "add_bias_linear": False,
        "add_qkv_bias": True, "apply_query_key_layer_scaling": True, "apply_residual_connection_post_layernorm":
            False, "attention_dropout": 0.0, "attention_softmax_in_fp32": True, "bias_dropout_fusion": True,
        "ffn_hidden_size": 13696, "fp32_residual_connection": False, "hidden_dropout": 0.0, "hidden_size": 4096,
        "kv_channels": 128, "layernorm_epsilon": 1e-05, "multi_query_attention": True,
        "multi_query_group_num": 2, "num_attention_heads": 32, "num_layers": 28, "original_rope": True,
        "padded_vocab_size": 65024, "post_layer_norm": True, "rmsnorm": True, "seq_length": 32768,
        "use_cache": True, "torch_dtype": "bfloat16", "tie_word_embeddings": False, "eos_token_id": 2,
        "pad_token_id": 0,
        "auto_map": {"AutoConfig": "configuration_chatglm.ChatGLMConfig",
                     "AutoModel": "modeling_chatglm.ChatGLMForConditionalGeneration"},
    },
    "nemotron-nas": {
        "architectures": ["DeciLMForCausalLM"], "model_type": "nemotron-nas", "hidden_size": 8192,
        "num_attention_heads": 64, "num_hidden_layers": 4, "vocab_size": 128256, "max_position_embeddings": 131072,
        "block_configs": [
            {"attention": {"n_heads_in_group": 8, "no_op": False, "replace_with_linear": False},
             "ffn": {"ffn_mult": 2.625, "no_op": False}},
            {"attention": {"n_heads_in_group": None, "no_op": True, "replace_with_linear": False},
             "ffn": {"ffn_mult": 2.625, "no_op": False}}],
        "auto_map": {"AutoConfig": "configuration_decilm.DeciLMConfig"},
        "torch_dtype": "bfloat16",
    },
    "step3_text": {
        "architectures": ["Step3TextForCausalLM"], "model_type": "step3_text", "hidden_size": 7168,
        "intermediate_size": 18432, "num_attention_heads": 64, "num_attention_groups": 1, "num_hidden_layers": 61,
        "max_seq_len": 65536, "vocab_size": 128815, "rms_norm_eps": 1e-05, "moe_intermediate_size": 5120,
        "moe_num_experts": 48, "moe_top_k": 3, "rope_theta": 500000, "head_dim": 256, "share_expert_dim": 5120,
        "torch_dtype": "bfloat16",
    },
    "eagle": {
        "architectures": ["EAGLEModel"], "model_type": "eagle", "model": {**_LLAMA, "num_hidden_layers": 1},
        "truncated_vocab_size": None, "torch_dtype": "bfloat16",
    },
    "medusa": {
        "architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": 4096, "vocab_size": 32001,
        "num_heads": 5, "num_hidden_layers": 1, "max_paths": 64, "topk": 10, "truncated_vocab_size": None,
    },
    "deepseek_vl_v2": {
        "architectures": ["DeepseekVLV2ForCausalLM"], "model_type": "deepseek_vl_v2",
        "language_config": {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2",
                            "hidden_size": 2560, "intermediate_size": 12288, "kv_lora_rank": 512,
                            "moe_intermediate_size": 1536, "n_routed_experts": 72, "n_shared_experts": 2,
                            "num_attention_heads": 32, "num_experts_per_tok": 6, "num_hidden_layers": 30,
                            "num_key_value_heads": 32, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
                            "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280,
                            "torch_dtype": "bfloat16", "use_mla": True},
        "vision_config": {"layers": 27, "width": 1152, "model_name": "siglip_so400m_patch14_384",
                          "image_size": 384, "patch_size": 14},
        "projector_config": {"model_type": "mlp_projector", "input_dim": 1152, "n_embed": 2560},
        "tile_tag": "2D", "global_view_pos": "head", "candidate_resolutions": [[384, 384]],
        "torch_dtype": "bfloat16",
    },
    "kimi_vl": {
        "architectures": ["KimiVLForConditionalGeneration"], "model_type": "kimi_vl",
        "text_config": {**_DSV3, "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16,
                        "num_hidden_layers": 27, "n_routed_experts": 64},
        "vision_config": {"model_type": "moonvit", "hidden_size": 1152, "num_attention_heads": 16,
                          "num_hidden_layers": 27, "patch_size": 14},
        "media_placeholder_token_id": 163605, "torch_dtype": "bfloat16",
    },
}

# Mamba-hybrid checkpoints (shaped like ibm-granite/granite-4.0-h-small, tiiuae/Falcon-H1-7B-Instruct,
# ibm-ai-platform/Bamba-9B, mistralai/Mamba-Codestral-7B-v0.1)
_GRANITE_H_LAYERS = ["attention" if i in (5, 15, 25, 35) else "mamba" for i in range(40)]
HAND.update({
    "granitemoehybrid": {
        "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "attention_bias": False,
        "attention_dropout": 0.0, "attention_multiplier": 0.0078125, "bos_token_id": 100257, "eos_token_id": 100257,
        "pad_token_id": 100256, "embedding_multiplier": 12, "hidden_act": "silu", "hidden_size": 4096,
        "init_method": "mup", "initializer_range": 0.1, "intermediate_size": 512, "layer_types": _GRANITE_H_LAYERS,
        "logits_scaling": 16, "mamba_chunk_size": 256, "mamba_conv_bias": True, "mamba_d_conv": 4,
        "mamba_d_head": 64, "mamba_d_state": 128, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 128,
        "mamba_proj_bias": False, "max_position_embeddings": 131072, "normalization_function": "rmsnorm",
        "num_attention_heads": 32, "num_experts_per_tok": 10, "num_hidden_layers": 40, "num_key_value_heads": 8,
        "num_local_experts": 72, "output_router_logits": False, "position_embedding_type": "nope",
        "residual_multiplier": 0.22, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000,
        "router_aux_loss_coef": 0.0, "shared_intermediate_size": 8192, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 100352},
    "falcon_h1": {
        "architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "attention_bias": False,
        "attention_dropout": 0.0, "attention_in_multiplier": 1.0, "attention_out_multiplier": 0.9375,
        "attn_layer_indices": None, "bos_token_id": 1, "eos_token_id": 11, "pad_token_id": 0,
        "embedding_multiplier": 5.656854249492381, "head_dim": 128, "hidden_act": "silu", "hidden_size": 3072,
        "initializer_range": 0.02, "intermediate_size": 12288, "key_multiplier": 0.390625,
        "lm_head_multiplier": 0.0390625, "mamba_chunk_size": 128, "mamba_conv_bias": True, "mamba_d_conv": 4,
        "mamba_d_head": 128, "mamba_d_ssm": 6144, "mamba_d_state": 256, "mamba_expand": 2, "mamba_n_groups": 1,
        "mamba_n_heads": 48, "mamba_norm_before_gate": False, "mamba_proj_bias": False, "mamba_rms_norm": False,
        "mamba_use_mlp": True, "max_position_embeddings": 262144, "mlp_bias": False, "mlp_expansion_factor": 8,
        "mlp_multipliers": [0.8838834764831844, 0.5859375], "num_attention_heads": 12, "num_hidden_layers": 44,
        "num_key_value_heads": 2, "num_logits_to_keep": 1, "projectors_bias": False, "rms_norm_eps": 1e-05,
        "rope_scaling": None, "rope_theta": 100000000000.0, "ssm_in_multiplier": 1.25,
        "ssm_multipliers": [0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738],
        "ssm_out_multiplier": 0.23570226039551587, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "use_cache": True, "vocab_size": 130049},
    "bamba": {
        "architectures": ["BambaForCausalLM"], "model_type": "bamba", "attention_dropout": 0.0,
        "attn_layer_indices": [9, 18, 27], "attn_rotary_emb": 64, "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": 0, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
        "intermediate_size": 14336, "mamba_chunk_size": 256, "mamba_conv_bias": True, "mamba_d_conv": 4,
        "mamba_d_head": 64, "mamba_d_state": 128, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 128,
        "mamba_proj_bias": False, "max_position_embeddings": 262144, "num_attention_heads": 32,
        "num_hidden_layers": 32, "num_key_value_heads": 8, "num_logits_to_keep": 1, "rms_norm_eps": 1e-05,
        "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
        "use_mamba_kernels": True, "vocab_size": 128256},
    "mamba2": {
        "architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "bos_token_id": 0, "eos_token_id": 2,
        "pad_token_id": 0, "chunk_size": 256, "conv_kernel": 4, "expand": 2, "head_dim": 64, "hidden_act": "silu",
        "hidden_size": 4096, "initializer_range": 0.1, "layer_norm_epsilon": 1e-05, "n_groups": 8,
        "norm_before_gate": False, "num_heads": 128, "num_hidden_layers": 64, "rescale_prenorm_residual": False,
        "residual_in_fp32": True, "rms_norm": True, "state_size": 128, "tie_word_embeddings": False,
        "time_step_floor": 0.0001, "time_step_init_scheme": "random", "time_step_max": 0.1, "time_step_min": 0.001,
        "time_step_rank": 256, "torch_dtype": "bfloat16", "use_bias": False, "use_cache": True,
        "use_conv_bias": True, "vocab_size": 32768},
})

# checkpoints of aiconfigurator-core 0.12.0"s model_configs (XiaomiMiMo/MiMo-V2-Flash; moonshotai/Kimi-K3 with
# the text config"s printed PretrainedConfig defaults and its quantization config left out; nvidia/MiniMax-M3-NVFP4
# without its per-layer ModelOpt quantization config)
_MIMO_HYBRID = [0 if i == 0 or (i + 1) % 6 == 0 else 1 for i in range(48)]
_M3_PER_LAYER = [0] * 3 + [1] * 57
HAND.update({
    "mimo_v2_flash": {
        "architectures": ["MiMoV2FlashForCausalLM"], "model_type": "mimo_v2_flash", "num_hidden_layers": 48,
        "hidden_size": 4096, "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 192, "v_head_dim": 128,
        "intermediate_size": 16384, "vocab_size": 152576, "max_position_embeddings": 262144, "rope_theta": 5000000,
        "swa_rope_theta": 10000, "partial_rotary_factor": 0.334, "sliding_window": 128, "sliding_window_size": 128,
        "attention_chunk_size": 128, "swa_num_attention_heads": 64, "swa_num_key_value_heads": 8,
        "swa_head_dim": 192, "swa_v_head_dim": 128, "hybrid_layer_pattern": _MIMO_HYBRID,
        "moe_layer_freq": [0] + [1] * 47, "moe_intermediate_size": 2048, "n_routed_experts": 256,
        "n_shared_experts": None, "num_experts_per_tok": 8, "norm_topk_prob": True, "scoring_func": "sigmoid",
        "n_group": 1, "topk_group": 1, "topk_method": "noaux_tc", "routed_scaling_factor": None,
        "hidden_act": "silu", "layernorm_epsilon": 1e-05, "attention_dropout": 0.0, "attention_bias": False,
        "attention_value_scale": 0.707, "add_swa_attention_sink_bias": True, "add_full_attention_sink_bias": False,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
        "quantization_config": {
            "activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}},
    "kimi_k3": {
        "architectures": ["KimiK3ForConditionalGeneration"],
        "auto_map": {
            "AutoConfig": "configuration_kimi_k3.KimiK3Config",
            "AutoModel": "modeling_kimi_k3.KimiK3ForConditionalGeneration",
            "AutoModelForCausalLM": "modeling_kimi_k3.KimiK3ForConditionalGeneration"},
        "bos_token_id": 163584, "dtype": "bfloat16", "eos_token_id": 163586, "ignore_index": -100,
        "image_placeholder": "<|kimi_image_placeholder|>", "media_placeholder_token_id": 163605,
        "model_type": "kimi_k3", "pad_token_id": 163839,
        "text_config": {
            "activation_situ_beta": 4.0, "activation_situ_linear_beta": 25.0,
            "architectures": ["KimiLinearForCausalLM"], "attn_res_block_size": 12,
            "auto_map": {"AutoConfig": "configuration_kimi_k3.KimiLinearConfig", "AutoModel": "modeling_kimi_linear.KimiLinearModel", "AutoModelForCausalLM": "modeling_kimi_linear.KimiLinearForCausalLM"},
            "bos_token_id": 163584, "dtype": "bfloat16", "eos_token_id": 163586, "first_k_dense_replace": 1,
            "hidden_act": "situ", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 33792,
            "kv_lora_rank": 512, "latent_moe_use_norm": True,
            "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 93], "gate_lower_bound": -5.0, "head_dim": 128, "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30, 31, 33, 34, 35, 37, 38, 39, 41, 42, 43, 45, 46, 47, 49, 50, 51, 53, 54, 55, 57, 58, 59, 61, 62, 63, 65, 66, 67, 69, 70, 71, 73, 74, 75, 77, 78, 79, 81, 82, 83, 85, 86, 87, 89, 90, 91], "num_heads": 96, "short_conv_kernel_size": 4, "use_full_rank_gate": True},
            "max_position_embeddings": 1048576, "mla_use_nope": True, "mla_use_output_gate": True,
            "model_type": "kimi_linear", "moe_intermediate_size": 3072, "moe_layer_freq": 1, "moe_renormalize": True,
            "moe_router_activation_func": "sigmoid", "num_attention_heads": 96, "num_expert_group": 1,
            "num_experts": 896, "num_experts_per_token": 16, "num_hidden_layers": 93, "num_key_value_heads": 96,
            "num_nextn_predict_layers": 0, "num_shared_experts": 2, "pad_token_id": 163839, "q_lora_rank": 1536,
            "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-05,
            "routed_expert_hidden_size": 3584, "routed_scaling_factor": 1.0, "tie_word_embeddings": False,
            "topk_group": 1, "topk_method": "noaux_tc", "use_cache": True, "use_grouped_topk": True,
            "v_head_dim": 128, "vocab_size": 163840},
        "tie_word_embeddings": False,
        "vision_config": {
            "_attn_implementation": "flash_attention_2", "activation_func": "gelu_pytorch_tanh", "attn_bias": False,
            "init_pos_emb_height": 64, "init_pos_emb_time": 4, "init_pos_emb_width": 64, "linear_bias": False,
            "merge_kernel_size": [2, 2], "merge_type": "sd2_tpool", "mlp_type": "mlp2", "mm_hidden_size": 1024,
            "mm_projector_type": "patchmergerv2", "norm_type": "rmsnorm", "patch_embed_proj_bias": False,
            "patch_size": 14, "pos_emb_interpolation_mode": "bilinear", "pos_emb_type": "divided_fixed",
            "projector_hidden_act": "gelu", "projector_ln_eps": 1e-05, "qkv_hidden_size": 1536,
            "text_hidden_size": 7168, "vt_hidden_size": 1024, "vt_intermediate_size": 4096,
            "vt_num_attention_heads": 12, "vt_num_hidden_layers": 27}},
    "minimax_m3_vl": {
        "architectures": ["MiniMaxM3SparseForConditionalGeneration"],
        "auto_map": {"AutoConfig": "configuration_minimax_m3_vl.MiniMaxM3VLConfig"}, "model_type": "minimax_m3_vl",
        "text_config": {
            "dtype": "bfloat16", "hidden_size": 6144, "intermediate_size": 3072, "num_hidden_layers": 60,
            "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 200064,
            "max_position_embeddings": 1048576, "rms_norm_eps": 1e-06, "use_gemma_norm": True,
            "attention_output_gate": False, "rope_theta": 5000000, "rotary_dim": 64, "partial_rotary_factor": 0.5,
            "hidden_act": "swigluoai", "use_qk_norm": True, "tie_word_embeddings": False,
            "dense_intermediate_size": 12288, "shared_intermediate_size": 3072, "num_local_experts": 128,
            "num_experts_per_tok": 4, "n_shared_experts": 1, "scoring_func": "sigmoid", "use_routing_bias": True,
            "moe_layer_freq": _M3_PER_LAYER, "qk_norm_type": "per_head", "num_mtp_modules": 1, "swiglu_alpha": 1.702,
            "swiglu_limit": 7.0, "routed_scaling_factor": 2.0,
            "sparse_attention_config": {"use_sparse_attention": True, "sparse_index_dim": 128, "sparse_num_index_heads": 4, "sparse_topk_blocks": 16, "sparse_block_size": 128, "sparse_disable_index_value": _M3_PER_LAYER, "sparse_score_type": "max", "sparse_init_block": 0, "sparse_local_block": 1, "sparse_attention_freq": _M3_PER_LAYER},
            "architectures": ["MiniMaxM3SparseForCausalLM"]},
        "vision_config": {
            "hidden_size": 1280, "num_attention_heads": 16, "num_hidden_layers": 32, "intermediate_size": 5120,
            "patch_size": 14, "image_size": 2016, "projection_dim": 6144, "position_embedding_type": "rope",
            "rope_mode": "3d", "rope_theta": 10000.0, "attention_dropout": 0.0, "hidden_act": "gelu",
            "initializer_factor": 1.0, "initializer_range": 0.02, "layer_norm_eps": 1e-05,
            "model_type": "clip_vision_model", "num_channels": 3, "vocab_size": 32000,
            "img_token_compression_config": {"image_token_compression_method": "patch_merge", "spatial_merge_size": 2, "temporal_patch_size": 2},
            "vision_segment_max_frames": 4},
        "img_token_compression_config": {"image_token_compression_method": "patch_merge", "spatial_merge_size": 2, "temporal_patch_size": 2},
        "image_grid_pinpoints": "[(336, 336), (336, 672), (336, 1008), (336, 1344), (336, 1680), (336, 2016), (672, 336), (672, 672), (672, 1008), (672, 1344), (672, 1680), (672, 2016), (1008, 336), (1008, 672), (1008, 1008), (1008, 1344), (1008, 1680), (1008, 2016), (1344, 336), (1344, 672), (1344, 1008), (1344, 1344), (1344, 1680), (1344, 2016), (1680, 336), (1680, 672), (1680, 1008), (1680, 1344), (1680, 1680), (1680, 2016), (2016, 336), (2016, 672), (2016, 1008), (2016, 1344), (2016, 1680), (2016, 2016)]",
        "image_seq_length": 576, "image_token_index": 200025, "video_token_index": 200026,
        "multimodal_projector_bias": True, "num_reward_heads": 0, "process_image_mode": "dynamic_res",
        "projector_hidden_act": "gelu", "vision_feature_layer": -1, "vision_feature_select_strategy": "full",
        "torch_dtype": "bfloat16", "projector_hidden_size": 6144},
})


# ByteDance-Seed/BAGEL-7B-MoT (vLLM's BagelConfig: the language model's config under llm_config), MiDashengLM,
# Qwen3-ASR and a checkpoint shaped like vLLM's FlintConfig defaults (sliding layers with RoPE, every fourth layer full attention)
HAND.update({
    "bagel": {
        "architectures": ["BagelForConditionalGeneration"], "model_type": "bagel", "visual_gen": True,
        "visual_und": True, "latent_patch_size": 2, "max_latent_size": 64, "vit_max_num_patch_per_side": 70,
        "connector_act": "gelu_pytorch_tanh", "interpolate_pos": False, "timestep_shift": 1.0,
        "vae_config": {"z_channels": 16, "downsample": 8},
        "llm_config": {
            "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
            "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
            "max_position_embeddings": 32768, "vocab_size": 152064, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06,
            "hidden_act": "silu", "tie_word_embeddings": False, "use_sliding_window": False, "sliding_window": 131072,
            "max_window_layers": 28, "qk_norm": True, "layer_module": "Qwen2MoTDecoderLayer",
            "torch_dtype": "bfloat16"},
        "vit_config": {
            "model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 980, "intermediate_size": 4304,
            "num_attention_heads": 16, "num_hidden_layers": 26, "patch_size": 14, "num_channels": 3}},
    "midashenglm": {   # mispeech/midashenglm-7b: a Dasheng audio encoder before Qwen2.5-Omni's text model
        "architectures": ["MiDashengLMModel"], "model_type": "midashenglm", "subsample_factor": 5,
        "audio_token_id": 151646, "torch_dtype": "bfloat16",
        "audio_encoder_config": {"model_type": "midashenglm_dasheng_encoder", "embed_dim": 1280, "depth": 32,
                                 "num_heads": 16, "patch_size": [64, 4], "patch_stride": [64, 4],
                                 "target_length": 1008},
        "text_config": {
            "model_type": "qwen2_5_omni_text", "hidden_size": 3584, "intermediate_size": 18944,
            "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
            "max_position_embeddings": 32768, "vocab_size": 151936, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06,
            "hidden_act": "silu", "sliding_window": 32768, "use_sliding_window": False, "max_window_layers": 28,
            "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}}},
    "qwen3_asr": {   # Qwen/Qwen3-ASR-1.7B: the thinker's audio encoder and Qwen3 text model
        "architectures": ["Qwen3ASRForConditionalGeneration"], "model_type": "qwen3_asr", "torch_dtype": "bfloat16",
        "support_languages": ["Chinese", "English"],
        "thinker_config": {
            "model_type": "qwen3_asr_thinker", "audio_token_id": 151676, "audio_start_token_id": 151669,
            "audio_config": {"model_type": "qwen3_asr_audio_encoder", "d_model": 1024, "encoder_layers": 24,
                             "encoder_attention_heads": 16, "encoder_ffn_dim": 4096, "num_mel_bins": 128,
                             "output_dim": 2048, "n_window": 50, "n_window_infer": 800},
            "text_config": {"model_type": "qwen3_asr_text", "hidden_size": 2048, "intermediate_size": 6144,
                            "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
                            "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 65536,
                            "rope_theta": 1000000, "rms_norm_eps": 1e-06, "tie_word_embeddings": True,
                            "rope_scaling": {"interleaved": True, "mrope_interleaved": True,
                                             "mrope_section": [24, 20, 20], "rope_type": "default",
                                             "type": "default"}}}},
    "flint": {
        "architectures": ["FlintForCausalLM"], "model_type": "flint", "vocab_size": 150144, "hidden_size": 2048,
        "intermediate_size": 6144, "num_hidden_layers": 12, "num_attention_heads": 32, "num_key_value_heads": 4,
        "head_dim": 128, "hidden_act": "silu", "max_position_embeddings": 262144, "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0, "use_sliding_window": True, "sliding_window": 513,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 3
        + ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention"],
        "no_rope_layer_indices": [3, 7, 11], "moe_intermediate_size": 512, "shared_expert_intermediate_size": 1024,
        "num_experts_per_tok": 6, "num_experts": 256, "norm_topk_prob": True, "router_score_function": "sigmoid",
        "mlp_only_layers": [0], "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
})


# HunYuan-VL: shaped like tencent/HunyuanOCR's flat (legacy) config.json, the text model's keys at the top level with
# their aliases (attention_head_dim, pad_id, org_vocab_size) and the xdrope rope_scaling block, a nested vision config
HAND.update({
    "hunyuan_vl": {
        "architectures": ["HunYuanVLForConditionalGeneration"], "model_type": "hunyuan_vl",
        "attention_bias": False, "attention_dropout": 0.0, "attention_head_dim": 128, "head_dim": 128,
        "bos_token_id": 120000, "eod_token_id": 120020, "eos_token_id": 120020, "pad_token_id": 120002,
        "pad_id": 120002, "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3584,
        "initializer_range": 0.02, "max_position_embeddings": 32768, "mlp_bias": False, "norm_type": "rms",
        "num_attention_heads": 16, "num_hidden_layers": 24, "num_key_value_heads": 8, "org_vocab_size": 120818,
        "vocab_size": 120818, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
        "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "type": "xdrope", "xdrope_section": [16, 16, 16, 16]},
        "image_start_token_id": 120118, "image_end_token_id": 120119, "image_token_id": 120120,
        "image_newline_token_id": 120121, "tie_word_embeddings": True, "use_cache": True, "use_qk_norm": True,
        "torch_dtype": "bfloat16",
        "vision_config": {"hidden_act": "gelu", "hidden_size": 1152, "intermediate_size": 4304,
                          "num_attention_heads": 16, "num_hidden_layers": 27, "num_channels": 3, "patch_size": 16,
                          "spatial_merge_size": 2, "out_hidden_size": 1024, "max_image_size": 2048,
                          "min_image_size": 512, "img_max_token_num": 4096, "max_vit_seq_len": 16384,
                          "rms_norm_eps": 1e-05, "text_hidden_size": 1024}},
})


# OpenVLA: shaped like openvla/openvla-7b's config.json (vLLM's OpenVLAConfig: the Llama-2 text config under text_config,
# the Prismatic vision backbone's timm ids; norm_stats left empty)
HAND.update({
    "openvla": {
        "architectures": ["OpenVLAForActionPrediction"], "model_type": "openvla",
        "arch_specifier": "no-align+fused-gelu-mlp", "hf_llm_id": "meta-llama/Llama-2-7b-hf",
        "image_resize_strategy": "resize-naive", "image_sizes": [224, 224], "llm_backbone_id": "llama2-7b-pure",
        "llm_max_length": 2048, "n_action_bins": 256, "norm_stats": {}, "output_projector_states": False,
        "pad_to_multiple_of": 64, "pad_token_id": 32000,
        "text_config": {"model_type": "llama", "pad_token_id": 32000, "torch_dtype": "bfloat16", "vocab_size": 32064},
        "timm_model_ids": ["vit_large_patch14_reg4_dinov2.lvd142m", "vit_so400m_patch14_siglip_224"],
        "timm_override_act_layers": [None, None], "torch_dtype": "bfloat16", "use_fused_vision_backbone": True,
        "vision_backbone_id": "dinosiglip-vit-so-224px"},
})


# Isaac: shaped like PerceptronAI/Isaac-0.1's config.json (vLLM's IsaacConfig: the Qwen3 text model's keys at the top
# level, the pixel-shuffle SigLIP2 vision config nested)
HAND.update({
    "isaac": {
        "architectures": ["IsaacForConditionalGeneration"], "model_type": "isaac",
        "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
        "intermediate_size": 6144, "max_position_embeddings": 40960, "max_sequence_length": 16384,
        "max_window_layers": 28, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
        "pixel_shuffle_scale": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": None,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False,
        "vision_max_num_patches": 6144, "vision_min_num_patches": 256, "vision_patch_size": 16,
        "vision_token": "<image>", "vocab_size": 151936,
        "vision_config": {
            "model_type": "pixel_shuffle_siglip2", "attention_dropout": 0.0, "hidden_act": "gelu_pytorch_tanh",
            "hidden_size": 1152, "image_size": 256, "intermediate_size": 4304, "layer_norm_eps": 1e-06,
            "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 27, "num_patches": 256,
            "patch_size": 16, "pixel_shuffle_scale_factor": 2}},
})


# Molmo2: shaped like allenai/Molmo2-8B's config.json (the vision config under its legacy key vit_config, a 27-layer
# ViT of which the adapter reads layers -3 and -9, the checkpoint's own key names for image size, patch and layers)
HAND.update({
    "molmo2": {
        "architectures": ["Molmo2ForConditionalGeneration"], "model_type": "molmo2", "torch_dtype": "bfloat16",
        "image_start_token_id": 151936, "low_res_image_start_token_id": 151940, "image_end_token_id": 151937,
        "image_patch_id": 151938, "frame_start_token_id": 151943, "frame_end_token_id": 151944,
        "tie_word_embeddings": False,
        "vit_config": {
            "model_type": "molmo2_vision", "hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
            "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 72, "hidden_act": "gelu_pytorch_tanh",
            "layer_norm_eps": 1e-06, "image_default_input_size": [378, 378], "image_patch_size": 14,
            "image_num_pos": 729, "attention_dropout": 0.0},
        "adapter_config": {
            "model_type": "molmo2_adapter", "vit_layers": [-3, -9], "hidden_size": 1152, "num_attention_heads": 16,
            "num_key_value_heads": 16, "head_dim": 72, "hidden_act": "silu", "intermediate_size": 12288,
            "text_hidden_size": 4096},
        "text_config": {
            "model_type": "molmo2_text", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
            "head_dim": 128, "vocab_size": 151936, "additional_vocab_size": 128, "qk_norm_type": "qwen3",
            "num_hidden_layers": 36, "intermediate_size": 12288, "hidden_act": "silu",
            "max_position_embeddings": 36864, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06,
            "tie_word_embeddings": False}},
})


# VibeVoice-ASR (transformers 5.x): a Qwen2.5-7B-shaped text config behind two acoustic-tokenizer encoders whose
# downsampling ratios make the hop length (3200 samples) that the audio chunk must be a multiple of and that turns
# the chunk into the config's max_position_embeddings (a property, ceil(chunk / hop))
_VIBEVOICE_ENCODER = {
    "model_type": "vibevoice_acoustic_tokenizer_encoder", "channels": 1, "kernel_size": 7, "rms_norm_eps": 1e-05,
    "layer_scale_init_value": 1e-06, "initializer_range": 0.01, "num_filters": 32,
    "downsampling_ratios": [2, 2, 4, 5, 5, 8], "depths": [3, 3, 3, 3, 3, 3, 8], "hidden_act": "gelu",
    "ffn_expansion": 4, "vae_std": 0.625}
HAND.update({
    "vibevoice_asr": {
        "architectures": ["VibeVoiceAsrForConditionalGeneration"], "model_type": "vibevoice_asr",
        "torch_dtype": "bfloat16", "audio_token_id": 151648, "audio_bos_token_id": 151646,
        "audio_eos_token_id": 151647, "acoustic_tokenizer_chunk_size": 1440000,
        "acoustic_tokenizer_encoder_config": {**_VIBEVOICE_ENCODER, "hidden_size": 64},
        "semantic_tokenizer_encoder_config": {**_VIBEVOICE_ENCODER, "hidden_size": 128},
        "text_config": {
            "model_type": "qwen2", "vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944,
            "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "hidden_act": "silu",
            "max_position_embeddings": 32768, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "use_sliding_window": False, "sliding_window": None, "max_window_layers": 28,
            "tie_word_embeddings": False}},
})


# Mellum (transformers 5): transformers' default MellumConfig with one MTP layer (num_nextn_predict_layers, the
# checkpoint's spelling of num_mtp_layers) and sliding-window layers, so that the MTP layer types are defaulted and
# the validator's one-MTP-layer limit is reached by the mutations
HAND.update({
    "mellum": {
        "architectures": ["MellumForCausalLM"], "model_type": "mellum", "torch_dtype": "bfloat16",
        "vocab_size": 98304, "hidden_size": 2304, "intermediate_size": 7168, "num_hidden_layers": 28,
        "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "hidden_act": "silu",
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-06, "tie_word_embeddings": False,
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
        "sliding_window": 1024, "moe_intermediate_size": 896, "num_experts_per_tok": 8, "num_local_experts": 64,
        "norm_topk_prob": True, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
                                                "full_attention"] * 7,
        "num_nextn_predict_layers": 1},
})


# vLLM's FunAudioChatConfig (0.16.0+): shaped like a Fun-Audio-Chat-8B checkpoint, a Qwen3-8B text config and the
# Whisper-like audio encoder whose model type the class defaults from its own encoder class; the hidden size given
# at the top level as well (else the text config's)
HAND.update({
    "funaudiochat": {
        "architectures": ["FunAudioChatForConditionalGeneration"], "model_type": "funaudiochat",
        "torch_dtype": "bfloat16", "audio_token_index": 151646, "ignore_index": -100, "hidden_size": 4096,
        "audio_config": {
            "model_type": "funaudiochat_audio_encoder", "num_mel_bins": 128, "encoder_layers": 32,
            "encoder_attention_heads": 20, "encoder_ffn_dim": 5120, "d_model": 1280, "activation_function": "gelu",
            "max_source_positions": 1500, "n_window": 100, "output_dim": 4096, "codebook_size": 6565,
            "continuous_features_mode": "replace", "group_size": 5, "enable_audio_invert_tower": True},
        "text_config": {
            "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 12288,
            "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "hidden_act": "silu", "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
            "tie_word_embeddings": False, "attention_bias": False}},
})


# vLLM's own HyperCLOVAXConfig (0.22.1-0.31.0): shaped like a HyperCLOVAX-SEED-Think-14B checkpoint (muP multipliers,
# peri-layer norm) but without attention_multiplier and rope_parameters, so that the class derives both (the
# multiplier from head_dim ** -0.5, the RoPE parameters from rope_scaling, which the mutations give legacy 'type' keys)
HAND.update({
    "hyperclovax": {
        "architectures": ["HyperCLOVAXForCausalLM"], "model_type": "hyperclovax", "torch_dtype": "bfloat16",
        "vocab_size": 110592, "hidden_size": 6144, "intermediate_size": 14336, "num_hidden_layers": 38,
        "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 50000000, "rope_scaling": None,
        "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False, "embedding_multiplier": 10.0,
        "logits_scaling": 0.125, "residual_multiplier": 1.0, "use_post_norm": True, "bos_token_id": 100257,
        "eos_token_id": 100257, "pad_token_id": 100257},
})


# vLLM's own Step5Config / Step5VLConfig (0.33.0): shaped like a Step-3.5-Flash-sized MoE with three MTP layers; the text
# checkpoint gives the MTP-inclusive layer_types (one entry per dense and MTP layer) and no max_position_embeddings (the
# class takes max_seq_len); the VL one gives its text config as the class serialises it (layer_types_with_mtp beside the
# dense prefix), so both branches of the class's layer-type reading are drawn
_STEP5_LAYERS = (["full_attention"] + ["sliding_attention"] * 3) * 12
HAND.update({
    "step5": {
        "architectures": ["Step5ForCausalLM"], "model_type": "step5", "torch_dtype": "bfloat16",
        "hidden_size": 4096, "intermediate_size": 11264, "num_attention_heads": 64, "num_attention_groups": 8,
        "num_hidden_layers": 45, "num_nextn_predict_layers": 3, "max_seq_len": 262144, "vocab_size": 128896,
        "rms_norm_eps": 1e-05, "use_moe": True, "moe_intermediate_size": 1280, "moe_num_experts": 288,
        "moe_top_k": 8, "rope_theta": 5000000.0, "head_dim": 128, "share_expert_dim": 1280,
        "moe_router_activation": "sigmoid", "moe_router_scaling_factor": 3.0, "use_moe_router_bias": True,
        "need_fp32_gate": True, "use_head_wise_attn_gate": True, "layer_types": _STEP5_LAYERS,
        "partial_rotary_factors": [0.5, 1.0], "swa_num_attention_heads": 96, "bos_token_id": 0,
        "eos_token_id": [1, 128007], "tie_word_embeddings": False},
    "step5_vl": {
        "architectures": ["Step5ForConditionalGeneration"], "model_type": "step5_vl", "torch_dtype": "bfloat16",
        "understand_projector_stride": 2, "projector_bias": False, "image_token_id": 128001,
        "vision_config": {"model_type": "perception_encoder", "width": 1536, "layers": 47, "heads": 16,
                          "patch_size": 14, "image_size": 728},
        "text_config": {
            "model_type": "step5", "hidden_size": 4096, "intermediate_size": 11264, "num_attention_heads": 64,
            "num_attention_groups": 8, "num_hidden_layers": 45, "num_nextn_predict_layers": 3,
            "max_seq_len": 262144, "max_position_embeddings": 262144, "vocab_size": 128896, "use_moe": True,
            "moe_intermediate_size": 1280, "moe_num_experts": 288, "moe_top_k": 8, "head_dim": 128,
            "layer_types_with_mtp": _STEP5_LAYERS, "layer_types": _STEP5_LAYERS[:45],
            "eos_token_id": [1, 128007]}},
})


# CohereCompass (transformers 5.17+; vLLM 0.30.0+): shaped like CohereLabs/North-Micro-Vision-Instruct, whose RoPE
# parameters are keyed by layer type with dangling top-level rope_theta / rope_type entries (the class drops them
# before standardising when a key names a layer type), sliding layers with one full layer in four
HAND.update({
    "cohere_compass": {
        "architectures": ["CohereCompassForConditionalGeneration"], "model_type": "cohere_compass",
        "torch_dtype": "bfloat16", "image_token_id": 255036,
        "vision_config": {"model_type": "cohere_compass_vision", "depth": 27, "hidden_size": 1152, "num_heads": 16,
                          "intermediate_size": 4304, "patch_size": 16, "spatial_merge_size": 2,
                          "out_hidden_size": 4096, "deepstack_visual_indexes": [8, 16, 24]},
        "text_config": {
            "model_type": "cohere_compass_text", "vocab_size": 256000, "hidden_size": 4096,
            "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
            "max_position_embeddings": 131072, "sliding_window": 4096,
            "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
            "rope_parameters": {"rope_theta": 50000.0, "rope_type": "default",
                                "sliding_attention": {"rope_type": "default", "rope_theta": 50000.0},
                                "full_attention": {"rope_type": "default", "rope_theta": 500000.0}}}},
})


def main(argv=None) -> int:
    from hfconfig_oracle import default_env_root, find_oracle
    ap = argparse.ArgumentParser()
    ap.add_argument("--env-root", default=default_env_root())
    ap.add_argument("--oracle-root", default=os.environ.get("KVG_ORACLE_ROOT", default_env_root()))
    ap.add_argument("--rebuild", action="store_true", help="rebuild every template (default: add missing ones)")
    args = ap.parse_args(argv)
    old = {}
    if os.path.exists(TEMPLATES) and not args.rebuild:
        with open(TEMPLATES) as f:
            old = json.load(f)
    auto = [mt for mt in SCOPE if mt not in HAND and mt not in old]
    got = {}
    # transformers 4.57.6 (vLLM 0.20.0) first, else 5.24.0 (vLLM 0.28.0)
    for ver in ("0.20.0", "0.28.0"):
        found = find_oracle(ver, args.env_root, args.oracle_root)
        if found is None:
            raise SystemExit(f"no oracle environment for {ver}")
        py, env = found
        with tempfile.TemporaryDirectory() as d:
            ip = os.path.join(d, "in.json")
            op = os.path.join(d, "out.json")
            with open(ip, "w") as f:
                json.dump(auto, f)
            subprocess.run([py, os.path.join(HERE, "hfconfig_oracle_worker.py"), "--templates", ip, op], check=True,
                           env=dict({k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **env))
            with open(op) as f:
                got[ver] = json.load(f)
    out = dict(old)
    for mt in auto:
        a, b = got["0.20.0"].get(mt, {}), got["0.28.0"].get(mt, {})
        tpl = a if "__error__" not in a else b
        if "__error__" in tpl:
            print(f"no template for {mt}: {tpl['__error__'][:80]}")
            continue
        tpl = {k: v for k, v in tpl.items() if not k.startswith("_") and k != "transformers_version"}
        tpl.setdefault("architectures", None)
        out[mt] = tpl
    out.update(HAND)
    os.makedirs(os.path.dirname(TEMPLATES), exist_ok=True)
    with open(TEMPLATES, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"{len(out)} templates -> {TEMPLATES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
