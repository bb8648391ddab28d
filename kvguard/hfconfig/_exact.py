"""Which model types' emulation was verified against the real libraries ("exact"), per release range.

Measured with ``tools/hfconfig_oracle.py --n 40 --json`` for every release 0.10.2–0.33.0, each in its own
oracle environment (tools/oracle_env.py: the release's vLLM with the transformers line it runs with —
4.57.6 up to 0.23.0, 5.24.0 for 0.24.0–0.30.0, 5.17.0 / 5.19.0 / 5.20.2 for 0.31.0 / 0.32.0 / 0.33.0):
40 generated configs per model type and release (a realistic template and seeded mutations of it), compared
attribute by attribute and error by error with the real ``vllm.transformers_utils.config.get_config`` +
``get_hf_text_config``, each case in a fresh-process state.  ``tools/hfconfig_exact.py`` turns the runs into
the table below: a model type is "exact" for the releases whose run compared >= 30 of its configs with no
mismatch (and at most a fifth that kvguard declined as Undecidable).  Every other (model type, release) is
emulated by the same interpreter from the same extracted sources ("generic").

A model type absent from a range is either not loadable there without remote code (kvguard raises
Undecidable, as vLLM needs ``--trust-remote-code``: e.g. ``deepseek_mtp`` and ``nemotron-nas`` everywhere,
``kimi_k2`` before 0.11.1) or was not in the run.
"""

from __future__ import annotations

from functools import lru_cache

#: model_type -> ((first release, last release), ...) verified
# BEGIN VERIFIED
EXACT: dict[str, tuple[tuple[str, str], ...]] = {
    "afmoe": (("0.11.1", "0.33.0"),),
    "bloom": (("0.10.2", "0.33.0"),),
    "chatglm": (("0.10.2", "0.33.0"),),
    "cohere": (("0.10.2", "0.33.0"),),
    "cohere2": (("0.10.2", "0.33.0"),),
    "dbrx": (("0.10.2", "0.33.0"),),
    "deepseek_v2": (("0.10.2", "0.33.0"),),
    "deepseek_v3": (("0.10.2", "0.33.0"),),
    "deepseek_v32": (("0.11.0", "0.33.0"),),
    "deepseek_v4": (("0.20.0", "0.33.0"),),
    "deepseek_vl_v2": (("0.10.2", "0.33.0"),),
    "eagle": (("0.10.2", "0.33.0"),),
    "ernie4_5": (("0.10.2", "0.33.0"),),
    "ernie4_5_moe": (("0.10.2", "0.33.0"),),
    "falcon": (("0.10.2", "0.33.0"),),
    "falcon_mamba": (("0.10.2", "0.33.0"),),
    "flex_olmo": (("0.10.2", "0.33.0"),),
    "gemma": (("0.10.2", "0.33.0"),),
    "gemma2": (("0.10.2", "0.33.0"),),
    "gemma3": (("0.10.2", "0.33.0"),),
    "gemma3_text": (("0.10.2", "0.33.0"),),
    "gemma4": (("0.24.0", "0.33.0"),),
    "gemma4_text": (("0.24.0", "0.33.0"),),
    "glm4": (("0.10.2", "0.33.0"),),
    "glm4_moe": (("0.10.2", "0.33.0"),),
    "glm4_moe_lite": (("0.24.0", "0.33.0"),),
    "glm_moe_dsa": (("0.24.0", "0.33.0"),),
    "gpt2": (("0.10.2", "0.33.0"),),
    "gpt_bigcode": (("0.10.2", "0.33.0"),),
    "gpt_oss": (("0.10.2", "0.33.0"),),
    "granite": (("0.10.2", "0.33.0"),),
    "granitemoe": (("0.10.2", "0.33.0"),),
    "hy_v3": (("0.20.0", "0.33.0"),),
    "jamba": (("0.10.2", "0.33.0"),),
    "kimi_k2": (("0.18.0", "0.33.0"),),
    "kimi_k25": (("0.15.0", "0.33.0"),),
    "kimi_linear": (("0.11.1", "0.33.0"),),
    "kimi_vl": (("0.10.2", "0.33.0"),),
    "laguna": (("0.21.0", "0.33.0"),),
    "lfm2_moe": (("0.11.1", "0.33.0"),),
    "llama": (("0.10.2", "0.33.0"),),
    "llama4": (("0.10.2", "0.33.0"),),
    "llama4_text": (("0.10.2", "0.33.0"),),
    "longcat_flash": (("0.10.2", "0.33.0"),),
    "mamba": (("0.10.2", "0.33.0"),),
    "medusa": (("0.10.2", "0.32.0"),),
    "minimax_m2": (("0.24.0", "0.33.0"),),
    "mistral": (("0.10.2", "0.33.0"),),
    "mistral4": (("0.24.0", "0.33.0"),),
    "mixtral": (("0.10.2", "0.33.0"),),
    "mpt": (("0.10.2", "0.33.0"),),
    "nemotron": (("0.10.2", "0.33.0"),),
    "nemotron_h": (("0.24.0", "0.33.0"),),
    "olmo2": (("0.10.2", "0.33.0"),),
    "olmo_hybrid": (("0.18.0", "0.33.0"),),
    "phi3": (("0.10.2", "0.33.0"),),
    "phimoe": (("0.10.2", "0.33.0"),),
    "qwen2": (("0.10.2", "0.33.0"),),
    "qwen2_5_omni": (("0.10.2", "0.33.0"),),
    "qwen2_5_vl": (("0.10.2", "0.33.0"),),
    "qwen2_moe": (("0.10.2", "0.33.0"),),
    "qwen3": (("0.10.2", "0.33.0"),),
    "qwen3_5": (("0.17.0", "0.33.0"),),
    "qwen3_5_moe": (("0.17.0", "0.33.0"),),
    "qwen3_moe": (("0.10.2", "0.33.0"),),
    "qwen3_next": (("0.10.2", "0.33.0"),),
    "qwen3_omni_moe": (("0.10.2", "0.33.0"),),
    "qwen3_vl": (("0.10.2", "0.33.0"),),
    "qwen3_vl_moe": (("0.10.2", "0.33.0"),),
    "RefinedWeb": (("0.10.2", "0.33.0"),),
    "RefinedWebModel": (("0.10.2", "0.33.0"),),
    "sarvam_mla": (("0.24.0", "0.30.0"),),
    "seed_oss": (("0.10.2", "0.33.0"),),
    "starcoder2": (("0.10.2", "0.33.0"),),
    "step3_text": (("0.10.2", "0.33.0"),),
    "step3p5": (("0.15.1", "0.33.0"),),
    "zamba2": (("0.10.2", "0.33.0"),),
}
# END VERIFIED


def _ranges_contain(ranges, release) -> bool:
    return any(release.within(a, b) for a, b in ranges)


@lru_cache(maxsize=None)
def _known() -> frozenset:
    from ._load import vllm_releases
    return frozenset(vllm_releases())


def emulation_level(raw, release) -> str:
    """"exact" when ``raw``'s model type was verified for ``release``, else "generic"."""
    mt = raw.get("model_type") if hasattr(raw, "get") else None
    if mt is None and hasattr(raw, "get") and raw.get("speculators_config") is not None:
        mt = "speculators"
    if not isinstance(mt, str) or str(release.version) not in _known():
        return "generic"
    return "exact" if _ranges_contain(EXACT.get(mt, ()), release) else "generic"


#: model types verified for at least one release (kept for callers of the old interface)
EXACT_MODEL_TYPES = EXACT
