"""Which model types' emulation was verified against the real libraries ("exact").

Measured with ``tools/hfconfig_oracle.py --n 100`` (100 generated configs per
model type and release, compared attribute by attribute and error by error
with the real ``vllm.transformers_utils.config.get_config`` +
``get_hf_text_config``): vLLM 0.20.0 + transformers 4.57.6 ("4") and vLLM
0.28.0 + transformers 5.24.0 ("5"), 0 mismatches.  Every other model type is
emulated by the same interpreter from the same extracted sources
("generic": checked only by the smaller ``--all`` smoke run).

Not loadable without remote code (kvguard raises Undecidable, as vLLM needs
``--trust-remote-code``): ``deepseek_mtp`` and ``nemotron-nas`` on both lines;
``glm4_moe_lite``, ``minimax_m2`` and ``nemotron_h`` on the 4.x line.
"""

from __future__ import annotations

#: model_type -> transformers majors verified (vLLM 0.20.0 for 4, 0.28.0 for 5)
EXACT_MODEL_TYPES: dict[str, tuple[int, ...]] = {
    "bloom": (4, 5),
    "chatglm": (4, 5),
    "cohere": (4, 5),
    "cohere2": (4, 5),
    "dbrx": (4, 5),
    "deepseek_v2": (4, 5),
    "deepseek_v3": (4, 5),
    "deepseek_v32": (4, 5),
    "deepseek_vl_v2": (4, 5),
    "eagle": (4, 5),
    "ernie4_5": (4, 5),
    "ernie4_5_moe": (4, 5),
    "falcon": (4, 5),
    "falcon_mamba": (4, 5),
    "gemma": (4, 5),
    "gemma2": (4, 5),
    "gemma3": (4, 5),
    "gemma3_text": (4, 5),
    "glm4": (4, 5),
    "glm4_moe": (4, 5),
    "glm4_moe_lite": (5,),
    "gpt2": (4, 5),
    "gpt_bigcode": (4, 5),
    "gpt_oss": (4, 5),
    "granite": (4, 5),
    "granitemoe": (4, 5),
    "jamba": (4, 5),
    "kimi_k2": (4, 5),
    "kimi_linear": (4, 5),
    "kimi_vl": (4, 5),
    "llama": (4, 5),
    "llama4": (4, 5),
    "llama4_text": (4, 5),
    "longcat_flash": (4, 5),
    "mamba": (4, 5),
    "medusa": (4, 5),
    "minimax_m2": (5,),
    "mistral": (4, 5),
    "mixtral": (4, 5),
    "mpt": (4, 5),
    "nemotron": (4, 5),
    "nemotron_h": (5,),
    "olmo2": (4, 5),
    "phi3": (4, 5),
    "phimoe": (4, 5),
    "qwen2": (4, 5),
    "qwen2_5_omni": (4, 5),
    "qwen2_5_vl": (4, 5),
    "qwen2_moe": (4, 5),
    "qwen3": (4, 5),
    "qwen3_moe": (4, 5),
    "qwen3_next": (4, 5),
    "qwen3_omni_moe": (4, 5),
    "qwen3_vl": (4, 5),
    "qwen3_vl_moe": (4, 5),
    "RefinedWeb": (4, 5),
    "RefinedWebModel": (4, 5),
    "seed_oss": (4, 5),
    "starcoder2": (4, 5),
    "step3_text": (4, 5),
    "zamba2": (4, 5),
}

#: the releases the differential runs used; other releases read the same data but their own vLLM code may differ
VERIFIED_RELEASES = {"0.20.0": 4, "0.28.0": 5}


def emulation_level(raw, release) -> str:
    """"exact" when ``raw``'s model type was verified for ``release``, else "generic"."""
    mt = raw.get("model_type") if hasattr(raw, "get") else None
    if mt is None and hasattr(raw, "get") and raw.get("speculators_config") is not None:
        mt = "speculators"
    if VERIFIED_RELEASES.get(str(release.version)) != release.transformers_major:
        return "generic"
    return "exact" if release.transformers_major in EXACT_MODEL_TYPES.get(mt, ()) else "generic"
