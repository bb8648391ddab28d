"""The vLLM recipes' launches of catalog checkpoints added for them in session 53 (MiniMax-M3's MXFP8 and NVIDIA
NVFP4 exports, Kimi-Linear-48B-A3B-Instruct, NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4, LFM2.5-VL-1.6B): each
command as the recipe writes it (the vLLM recipes corpus), the verdict written by hand.

A refusal's text was read in the release's own source: ``Unknown ModelOpt quant algo: MIXED_PRECISION`` is raised by
vllm/transformers_utils/model_arch_config_convertor.py (``_normalize_quantization_config``) up to 0.32.0, which maps
only FP8 / NVFP4 ModelOpt exports; 0.33.0 adds ``MIXED_PRECISION`` -> ``modelopt_mixed``.  The Lightning export keeps
its quantization config in hf_quant_config.json (producer modelopt, quant_algo MIXED_PRECISION), which vLLM reads as
the config's ``quantization_config`` when config.json has none.
"""

from __future__ import annotations

import pytest

from kvguard.front import examine

MINIMAX_M3_MXFP8 = ("VLLM_USE_BREAKABLE_CUDAGRAPH=0 vllm serve MiniMaxAI/MiniMax-M3-MXFP8 --tensor-parallel-size 8 "
                    "--block-size 128 --tool-call-parser minimax_m3 --reasoning-parser minimax_m3 "
                    "--enable-auto-tool-choice")
MINIMAX_M3_NVFP4 = ("VLLM_ENGINE_READY_TIMEOUT_S=3600 VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16=0 "
                    "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION=INT4 VLLM_ROCM_QUICK_REDUCE_QUANTIZATION_MIN_SIZE_KB=256 "
                    "VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT=0 VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS=1 "
                    "VLLM_ROCM_USE_AITER_MHA=0 VLLM_USE_BREAKABLE_CUDAGRAPH=0 VLLM_FLOAT32_MATMUL_PRECISION=high "
                    "vllm serve nvidia/MiniMax-M3-NVFP4 --tensor-parallel-size 8 --trust-remote-code --block-size 128 "
                    "--tool-call-parser minimax_m3 --reasoning-parser minimax_m3 --enable-auto-tool-choice")
MINIMAX_M3_NVFP4_PLAIN = "vllm serve nvidia/MiniMax-M3-NVFP4 --tensor-parallel-size 8"
KIMI_LINEAR_TP8 = ("vllm serve moonshotai/Kimi-Linear-48B-A3B-Instruct --port 8000 --tensor-parallel-size 8 "
                   "--max-model-len 1048576 --trust-remote-code")
KIMI_LINEAR_TP1 = "vllm serve moonshotai/Kimi-Linear-48B-A3B-Instruct --trust-remote-code --tensor-parallel-size 1"
LIGHTNING_NVFP4_EP = (
    "vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4 --mamba-backend flashinfer --mamba-cache-mode align "
    "--enable-prefix-caching --kv-cache-dtype fp8 --enable-expert-parallel --tensor-parallel-size 8 "
    "--quantization modelopt_fp4 --moe-backend humming --linear-backend humming --mamba-ssu-algorithm horizontal "
    "--async-scheduling --max-num-seqs 256 --max-num-batched-tokens 32768 --reasoning-parser nemotron_v3 "
    "--enable-auto-tool-choice --tool-call-parser qwen3_xml --mamba-ssm-cache-dtype float16 "
    "--enable-mamba-cache-stochastic-rounding --mamba-cache-philox-rounds 5")
LIGHTNING_NVFP4_PLAIN = "vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4 --tensor-parallel-size 8"
LFM25_VL = "vllm serve LiquidAI/LFM2.5-VL-1.6B"

UNKNOWN_MODELOPT_ALGO = ("ValueError", "Unknown ModelOpt quant algo: MIXED_PRECISION", "MC_quant_modelopt_algo")

#: (release, recipe command, None for accepted or (exception type, message, kvguard check))
CASES = [
    ("0.33.0", MINIMAX_M3_MXFP8, None),
    ("0.24.0", MINIMAX_M3_MXFP8, None),
    ("0.33.0", MINIMAX_M3_NVFP4, None),
    ("0.32.0", MINIMAX_M3_NVFP4, None),
    ("0.28.0", MINIMAX_M3_NVFP4, None),
    ("0.33.0", KIMI_LINEAR_TP8, None),
    ("0.33.0", KIMI_LINEAR_TP1, None),
    ("0.20.0", KIMI_LINEAR_TP8, None),
    ("0.33.0", LIGHTNING_NVFP4_EP, None),
    ("0.28.0", LIGHTNING_NVFP4_EP, UNKNOWN_MODELOPT_ALGO),
    ("0.32.0", LIGHTNING_NVFP4_PLAIN, UNKNOWN_MODELOPT_ALGO),
    ("0.33.0", LFM25_VL, None),
    ("0.20.0", LFM25_VL, None),
]


@pytest.mark.parametrize(("release", "command", "refusal"), CASES,
                         ids=[f"{r}-{c.split(' serve ')[1].split()[0]}-{i}" for i, (r, c, _) in enumerate(CASES)])
def test_recipe_launch_gets_the_measured_verdict(release, command, refusal):
    report = examine(release, command)
    assert report.source == "catalog"
    verdict = report.verdict.to_dict()
    if refusal is None:
        assert verdict["ok"] is True, verdict
    else:
        exc_type, message, check = refusal
        assert (verdict["ok"], verdict["exc_type"], verdict["message"], verdict["check"]) == (
            False, exc_type, message, check)
        assert verdict["wrapped_by"] == "ModelConfig"


#: what kvguard does not model of the NVIDIA export (config.json's MIXED_PRECISION table names MXFP8 layers beside the
#: NVFP4 experts): the checks it leaves open, with their reasons, where the release accepts
MINIMAX_M3_NVFP4_SKIPPED = [
    {"check": "VC_quant_act_dtype",
     "reason": "a MIXED_PRECISION layer of quant_algo 'MXFP8' (not FP8 / NVFP4 / W4A16_NVFP4) is not modelled"},
    {"check": "MI_model", "reason": "the weight-shard checks of MiniMaxM3SparseForConditionalGeneration are not modelled"},
]


@pytest.mark.parametrize("release", ["0.33.0", "0.28.0"])
def test_minimax_m3_nvfp4_reads_the_per_layer_table_of_its_compressed_entry(release):
    """The whole table is read: its MXFP8 layers leave the activation-dtype check open (an abridged copy that kept
    only NVFP4 layers would decide it)."""
    report = examine(release, MINIMAX_M3_NVFP4_PLAIN)
    verdict = report.verdict.to_dict()
    assert (report.source, verdict["ok"]) == ("catalog", True)
    assert verdict["skipped"] == MINIMAX_M3_NVFP4_SKIPPED


def test_minimax_m3_nvfp4_before_its_architecture_asks_for_remote_code():
    """0.20.0 registers no MiniMaxM3 class, and config.json's auto_map names repository code: the release asks for
    --trust-remote-code (transformers' message, wrapped by ModelConfig; golden case catalog-minimax-m3-nvfp4-tp8)."""
    verdict = examine("0.20.0", MINIMAX_M3_NVFP4_PLAIN).verdict.to_dict()
    assert (verdict["ok"], verdict["exc_type"], verdict["wrapped_by"]) == (False, "ValueError", "ModelConfig")
    assert verdict["message"].startswith("The repository nvidia/MiniMax-M3-NVFP4 contains custom code which must be "
                                         "executed to correctly load the model.")
