"""ModelOpt checkpoints in ModelConfig's quantization checks, vLLM 0.10.2 – 0.33.0.

Mirrors two pieces of upstream code that decide which method a ModelOpt (NVIDIA TensorRT Model Optimizer)
checkpoint ends with:

- the normalization of the checkpoint's ``quantization_config``: ``ModelConfig._parse_quant_hf_config``
  (vllm/config/__init__.py 0.10.2, vllm/config/model.py 0.11.0 – 0.13.0, called at the start of
  ``_verify_quantization``) and, from 0.14.0, ``_normalize_quantization_config`` of
  vllm/transformers_utils/model_arch_config_convertor.py, run when ``ModelConfig.__post_init__`` builds its
  ``model_arch_config`` (before the dtype and the maximum length).  A config whose ``producer.name`` is
  ``modelopt`` (0.26.0+: or whose ``quantization`` mapping has a ``modelopt_quant_config`` key, the legacy export)
  has its ``quant_method`` rewritten from ``quantization.quant_algo``; an algorithm it does not list raises
  ``ValueError("Unknown ModelOpt quant algo: …")``;
- the ``override_quantization_method`` of ModelOptFp8Config / ModelOptNvFp4Config (every release),
  ModelOptMxFp8Config (0.16.0+) and ModelOptMixedPrecisionConfig (0.17.0+), in that order
  (vllm/model_executor/layers/quantization/modelopt.py).  They read the ``quant_algo`` of the nested
  (``quantization``) or the flat layout and ignore ``--quantization``: the method they name replaces it.

The overrides asked before them (AWQ / GPTQ, their Marlin / BitBLAS forms, ipex, inc, moe_wna16) read other
``quant_method`` values; ``petit_nvfp4``'s (up to 0.19.1) claims ModelOpt checkpoints on ROCm only, and humming's
(0.20.0+) is asked first when named: kvguard.quant.verify handles those.  What kvguard does not read (a
``producer`` or ``quantization`` that is not a mapping, a ``quant_algo`` that is not a string: vLLM raises an
AttributeError / TypeError or formats the value) raises :class:`NotRead`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["NotRead", "UnknownAlgo", "normalize", "claim", "EARLY"]

#: from this release the normalization runs when ModelConfig builds its model_arch_config (before the dtype and
#: the maximum length); before, at the start of _verify_quantization (after them)
EARLY = "0.14.0"


class NotRead(Exception):
    """kvguard does not read this ModelOpt config (the reason is the message)."""


class UnknownAlgo(Exception):
    """The normalization's ``ValueError``: ``args[0]`` is the text after ``Unknown ModelOpt quant algo: ``."""


def _algo_text(value: Any) -> str:
    if not isinstance(value, str):
        raise NotRead(f"a ModelOpt quant_algo that is not a string ({value!r}) is not modelled")
    return value


def _normalized_method(algo: str, release) -> Optional[str]:
    """The quant_method the normalization writes for a nested ``quant_algo`` (None: it refuses the algorithm)."""
    if not release.within(EARLY):
        # compared as written
        return {"FP8": "modelopt", "NVFP4": "modelopt_fp4"}.get(algo)
    upper = algo.upper()
    if upper in ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO"):
        return "modelopt"
    if upper == "NVFP4":
        return "modelopt_fp4"
    if upper == "MIXED_PRECISION" and release.within("0.33.0"):
        return "modelopt_mixed"
    return None


#: from this release a ``quantization`` mapping with a ``modelopt_quant_config`` key is normalized whatever the
#: producer (the legacy ModelOpt export)
LEGACY = "0.26.0"


def normalize(cfg: Mapping[str, Any], release) -> Optional[str]:
    """The ``quant_method`` the normalization of a ``quantization_config`` writes, or None when it leaves the
    config's own; raises :class:`UnknownAlgo` for its refusal, :class:`NotRead` for what kvguard does not read."""
    producer = cfg.get("producer", {})
    if not isinstance(producer, Mapping):
        raise NotRead(f"a quantization_config producer that is not a mapping ({type(producer).__name__}) is not "
                      f"modelled")
    nested = cfg.get("quantization", {})
    legacy = release.within(LEGACY) and isinstance(nested, Mapping) and "modelopt_quant_config" in nested
    if producer.get("name") != "modelopt" and not legacy:
        return None
    if not isinstance(nested, Mapping):
        raise NotRead("a ModelOpt quantization_config whose quantization key is not a mapping is not modelled")
    raw = nested.get("quant_algo")
    if raw is None:
        return None
    algo = _algo_text(raw)
    method = _normalized_method(algo, release)
    if method is None:
        raise UnknownAlgo(algo)
    return method


def _algo_of(cfg: Mapping[str, Any], default: Any = "") -> Optional[str]:
    """The ``quant_algo`` an override reads: the nested layout's when the config has a ``quantization`` key (None
    when that is not a mapping), else the top level's."""
    if "quantization" in cfg:
        nested = cfg["quantization"]
        if not isinstance(nested, Mapping):
            return None
        return _algo_text(nested.get("quant_algo", default))
    raw = cfg.get("quant_algo", default)
    return raw if isinstance(raw, str) else None


def claim(cfg: Mapping[str, Any], method: str, release) -> Optional[str]:
    """The method a ModelOpt override names for the (normalized) checkpoint config whose ``quant_method`` reads
    ``method``, or None when none claims it; raises :class:`NotRead`."""
    if release.within("0.17.0"):
        return _claim_shared(cfg, method, release)
    if method != "modelopt":
        return None
    nested = "quantization" in cfg
    if nested and not isinstance(cfg["quantization"], Mapping):
        return None
    # the flat layout reads a non-string quant_algo as no algorithm up to 0.13.0, as its str() from 0.14.0 (FP8);
    # kvguard reads strings only
    raw = cfg["quantization"].get("quant_algo", "") if nested else cfg.get("quant_algo", "")
    if not isinstance(raw, str):
        if nested or release.within(EARLY):
            raise NotRead(f"a ModelOpt quant_algo that is not a string ({raw!r}) is not modelled")
        return None
    # ModelOptFp8Config
    if release.within("0.16.0"):
        if raw.upper() == "FP8":
            return "modelopt"
    elif release.within(EARLY):
        if "FP8" in raw.upper():
            return "modelopt"
    elif "FP8" in raw:
        return "modelopt"
    # ModelOptNvFp4Config: the nested layout as written, the flat one upper-cased
    if ("NVFP4" in raw) if nested else ("FP4" in raw.upper()):
        return "modelopt_fp4"
    # ModelOptMxFp8Config (0.16.0)
    if release.within("0.16.0") and "MXFP8" in raw.upper():
        return "modelopt_mxfp8"
    return None


def _claim_shared(cfg: Mapping[str, Any], method: str, release) -> Optional[str]:
    """0.17.0+: the four overrides read ``_extract_modelopt_quant_algo`` (the method ``modelopt``; from 0.20.0 any
    method starting with ``modelopt``)."""
    if not (method.startswith("modelopt") if release.within(_ANY_MODELOPT) else method == "modelopt"):
        return None
    algo = _algo_of(cfg)
    if algo is None:
        if "quantization" not in cfg:
            raw = cfg.get("quant_algo", "")
            raise NotRead(f"a ModelOpt quant_algo that is not a string ({raw!r}) is not modelled")
        return None
    algo = algo.upper()
    if algo == "FP8":
        return "modelopt"
    if "NVFP4" in algo or "FP4" in algo:
        return "modelopt_fp4"
    if "MXFP8" in algo:
        return "modelopt_mxfp8"
    if algo == "MIXED_PRECISION":
        return "modelopt_mixed"
    return None


#: from this release _extract_modelopt_quant_algo takes every quant_method starting with ``modelopt``
_ANY_MODELOPT = "0.22.0"

#: the check id of the override loop's refusal of a method whose override claims the checkpoint but which is not in
#: its ``overrides`` list: 0.24.0 registers ``mxfp8`` (the MiniMax-style checkpoints' method) as ModelOptMxFp8Config
#: without listing it (0.25.0 lists it), and the loop asks the unlisted methods first
UNLISTED = "MC_quant_override_unlisted"


def unlisted_claim(cfg: Mapping[str, Any], method: str, release) -> Optional[str]:
    """The unlisted method whose override claims the checkpoint first of all (its name), else None."""
    if release.within("0.24.0", "0.24.0") and _claim_shared(cfg, method, release) == "modelopt_mxfp8":
        return "mxfp8"
    return None


# ---------------------------------------------------------------------------
# VllmConfig._get_quantization_config: the ModelOpt config built from the checkpoint's quantization config
# (``from_config``: ModelOptQuantConfigBase's from 0.12.0, each class's own before), then its minimum capability and
# activation dtypes

#: get_supported_act_dtypes() of the ModelOpt methods kvguard builds (the same in every release)
ACT_DTYPES = {"modelopt": ("bfloat16", "float16"), "modelopt_fp4": ("bfloat16", "float16", "float8_e4m3fn")}

#: the quant_algo each method's config is decided for (from_config and __init__ take it in every release)
_CANONICAL = {"modelopt": "FP8", "modelopt_fp4": "NVFP4"}


def min_capability(method: str, release) -> int:
    """get_min_capability() of a ModelOpt method kvguard builds: ModelOptFp8Config's is 89 up to 0.26.0, 80 from
    0.27.0; ModelOptNvFp4Config's 80 up to 0.13.0, 75 from 0.14.0."""
    if method == "modelopt":
        return 80 if release.within("0.27.0") else 89
    return 75 if release.within(EARLY) else 80


def config_unread(cfg: Mapping[str, Any], method: str) -> Optional[str]:
    """Why building the config of ``method`` from the (normalized) checkpoint config may refuse it, or None: kvguard
    decides the plain exports only — quant_algo exactly FP8 (modelopt) / NVFP4 (modelopt_fp4), a string or no
    kv_cache_quant_algo, list exclusions, an integer group size; NVFP4's nested layout with all of group_size,
    kv_cache_quant_algo and exclude_modules (its from_config requires them from 0.12.0)."""
    want = _CANONICAL.get(method)
    if want is None:
        return f"building the {method} config (and its activation dtypes) is not modelled"
    nested = "quantization" in cfg
    src = cfg["quantization"] if nested else cfg
    if not isinstance(src, Mapping):
        return "a ModelOpt quantization_config whose quantization key is not a mapping is not modelled"
    algo = src.get("quant_algo")
    if algo != want:
        return f"building the {method} config of a checkpoint with quant_algo {algo!r} is not modelled"
    if src.get("kv_cache_quant_algo") not in (None, "FP8"):
        return f"a ModelOpt kv_cache_quant_algo of {src.get('kv_cache_quant_algo')!r} is not modelled"
    for key in ("exclude_modules",) if nested else ("ignore", "exclude_modules"):
        if not isinstance(src.get(key, []), list):
            return f"a ModelOpt {key} that is not a list is not modelled"
    if src.get("group_size") is not None and type(src.get("group_size")) is not int:
        return "a ModelOpt group_size that is not an integer is not modelled"
    if method == "modelopt_fp4" and nested and not all(
            key in src for key in ("group_size", "kv_cache_quant_algo", "exclude_modules")):
        return "an NVFP4 quantization mapping without group_size, kv_cache_quant_algo and exclude_modules is not modelled"
    return None


def quant_algos(release) -> list[str]:
    """QUANT_ALGOS of the release's modelopt.py (the list from_config prints when it refuses an algorithm)."""
    algos = ["FP8", "NVFP4"]
    if release.within(EARLY):
        algos = ["FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO", "NVFP4"]
    if release.within("0.21.0"):
        algos.append("W4A16_NVFP4")
    if release.within("0.16.0"):
        algos.append("MXFP8")
    if release.within("0.17.0"):
        algos.append("MIXED_PRECISION")
    return algos


def from_config_refusal(cfg: Mapping[str, Any], method: str, release) -> tuple[Optional[list], Optional[str]]:
    """(QUANT_ALGOS when ``from_config`` of the ModelOpt FP8 / NVFP4 config refuses the checkpoint's algorithm,
    why kvguard cannot tell): the refusal that follows the checks of a missing algorithm and of the
    kv_cache_quant_algo / exclusion / group-size types (kvguard decides well-formed configs only); the algorithm is
    compared upper-cased from 0.14.0."""
    if method not in _CANONICAL:
        return None, None  # other configs: VC_quant_act_dtype stays open with its own reason
    nested = "quantization" in cfg
    src = cfg["quantization"] if nested else cfg
    if not isinstance(src, Mapping):
        return None, "a ModelOpt quantization_config whose quantization key is not a mapping is not modelled"
    algo = src.get("quant_algo")
    if not isinstance(algo, str) or not algo:
        return None, "a ModelOpt quantization_config without a quant_algo string (from_config) is not modelled"
    if src.get("kv_cache_quant_algo") is not None and not isinstance(src.get("kv_cache_quant_algo"), str):
        return None, "a ModelOpt kv_cache_quant_algo that is not a string is not modelled"
    for key in ("exclude_modules",) if nested else ("ignore", "exclude_modules"):
        if not isinstance(src.get(key, []), list):
            return None, f"a ModelOpt {key} that is not a list is not modelled"
    if src.get("group_size") is not None and type(src.get("group_size")) is not int:
        return None, "a ModelOpt group_size that is not an integer is not modelled"
    read = algo.upper() if release.within(EARLY) else algo
    algos = quant_algos(release)
    return (algos if read not in algos else None), None
