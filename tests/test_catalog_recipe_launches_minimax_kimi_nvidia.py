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
