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

The second half mirrors what ``VllmConfig._get_quantization_config`` (vllm/config/vllm.py; 0.10.2:
vllm/config/__init__.py) does with the ModelOpt config it builds through ``get_quant_config``
(vllm/model_executor/model_loader/weight_utils.py): ``from_config`` of ModelOptFp8Config / ModelOptNvFp4Config
(every release), ModelOptMxFp8Config (0.16.0+) and ModelOptMixedPrecisionConfig (0.17.0+) — the algorithm list,
the nested layout's required fields (asked for the class's own algorithm only), the ``__init__`` refusal of another
class's algorithm (ModelOptFp8Config 0.14.0+, ModelOptNvFp4Config 0.21.0+ with W4A16_NVFP4 its second form,
ModelOptMxFp8Config) — then each class's ``get_min_capability`` and ``get_supported_act_dtypes`` (modelopt.py of each
release; up to 0.11.x ModelOptFp8Config's and ModelOptNvFp4Config's own ``from_config``).
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ACT_DTYPES", "EARLY", "INIT_CHECKS", "LEGACY", "NotRead", "REQUIRED_FIELDS", "SHARED_FROM_CONFIG",
           "UNLISTED", "UnknownAlgo", "algo_missing", "claim", "config_unread", "from_config_refusal",
           "init_refusal", "min_capability", "missing_fields", "mixed_layers_empty", "normalize", "quant_algos",
           "unlisted_claim"]

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

#: get_supported_act_dtypes() of the ModelOpt methods kvguard builds (the same in every release that has the
#: method: modelopt_mxfp8 0.16.0+, modelopt_mixed 0.17.0+)
ACT_DTYPES = {"modelopt": ("bfloat16", "float16"), "modelopt_fp4": ("bfloat16", "float16", "float8_e4m3fn"),
              "modelopt_mxfp8": ("bfloat16",), "modelopt_mixed": ("bfloat16", "float16")}

#: the quant_algo each method's config is decided for (from_config and __init__ take it in every release)
_CANONICAL = {"modelopt": "FP8", "modelopt_fp4": "NVFP4", "modelopt_mxfp8": "MXFP8",
              "modelopt_mixed": "MIXED_PRECISION"}

#: the per-layer algorithms of a MIXED_PRECISION checkpoint kvguard decides: the FP8 / NVFP4 sub-configs every
#: release builds take them without a check, and W4A16_NVFP4 too (0.17.0 - 0.21.x read no such layer: it stays
#: unquantized; 0.22.0+ build a W4A16_NVFP4 sub-config, whose __init__ takes the algorithm); the block-FP8 ones
#: (0.30.0+) and the b12x codecs (0.32.0+) have checks of their own
_MIXED_LAYER_ALGOS = ("FP8", "NVFP4", "W4A16_NVFP4")


def min_capability(method: str, release) -> int:
    """get_min_capability() of a ModelOpt method kvguard builds: ModelOptFp8Config's is 89 up to 0.26.0, 80 from
    0.27.0; ModelOptNvFp4Config's 80 up to 0.13.0, 75 from 0.14.0; ModelOptMxFp8Config's 100 up to 0.19.x, 80 from
    0.20.0; ModelOptMixedPrecisionConfig's 89 up to 0.23.0, 75 from 0.24.0."""
    if method == "modelopt":
        return 80 if release.within("0.27.0") else 89
    if method == "modelopt_mxfp8":
        return 80 if release.within("0.20.0") else 100
    if method == "modelopt_mixed":
        return 75 if release.within("0.24.0") else 89
    return 75 if release.within(EARLY) else 80


def _mixed_unread(cfg: Mapping[str, Any]) -> Optional[str]:
    """Why building ModelOptMixedPrecisionConfig from the checkpoint config may refuse it or read more than the
    config, or None: kvguard decides the flat export with a non-empty top-level quantized_layers mapping whose
    layers are FP8 / NVFP4 (get_quant_config reads hf_quant_config.json among the checkpoint's files when
    quantized_layers is not a top-level key: the nested export)."""
    if "quantization" in cfg or "quantized_layers" not in cfg:
        return ("a MIXED_PRECISION checkpoint without a top-level quantized_layers mapping (get_quant_config reads "
                "hf_quant_config.json among the checkpoint's files) is not modelled")
    layers = cfg["quantized_layers"]
    if not isinstance(layers, Mapping) or not layers:
        return "a MIXED_PRECISION quantized_layers that is not a non-empty mapping is not modelled"
    for info in layers.values():
        algo = info.get("quant_algo") if isinstance(info, Mapping) else None
        if not isinstance(algo, str) or algo.upper() not in _MIXED_LAYER_ALGOS:
            return f"a MIXED_PRECISION layer of quant_algo {algo!r} (not FP8 / NVFP4 / W4A16_NVFP4) is not modelled"
        if algo.upper() != "FP8" and type(info.get("group_size", 16)) is not int:
            return f"a MIXED_PRECISION {algo.upper()} layer whose group_size is not an integer is not modelled"
    return None


def _config_algo(algo: Any, release) -> Any:
    """The quant_algo as the config's from_config passes it on: upper-cased from 0.14.0."""
    return algo.upper() if isinstance(algo, str) and release.within(EARLY) else algo


#: the algorithms each config's ``__init__`` takes, and from which release it refuses the others of QUANT_ALGOS
#: (before, it builds the config whatever the algorithm: the weights are not "serialized" and the linear methods
#: refuse them at load time): ModelOptFp8Config from 0.14.0, ModelOptNvFp4Config from 0.21.0 (W4A16_NVFP4 its
#: second form), ModelOptMxFp8Config always (from 0.16.0, the release that adds it); ModelOptMixedPrecisionConfig
#: reads its quantized_layers whatever the algorithm
_INIT_ALGOS = {"modelopt": (("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO"), EARLY),
               "modelopt_fp4": (("NVFP4", "W4A16_NVFP4"), "0.21.0"),
               "modelopt_mxfp8": (("MXFP8",), "0.16.0")}

#: the check id of each __init__ refusal (VllmConfig, after from_config's checks and _from_config's fields)
INIT_CHECKS = {"modelopt": "VC_quant_modelopt_fp8_algo", "modelopt_fp4": "VC_quant_modelopt_nvfp4_algo",
               "modelopt_mxfp8": "VC_quant_modelopt_mxfp8_serialized"}


def _init_refuses(method: str, read: str, release) -> bool:
    """Whether the config's ``__init__`` refuses the algorithm from_config passes on (``read``, in QUANT_ALGOS)."""
    entry = _INIT_ALGOS.get(method)
    return entry is not None and release.within(entry[1]) and read not in entry[0]


def _serialized(method: str, read: str) -> bool:
    """``is_checkpoint_*_serialized`` as each _from_config sets it (what its required-fields check depends on)."""
    if method == "modelopt_fp4":
        return "NVFP4" in read
    if method == "modelopt_mxfp8":
        return "MXFP8" in read.upper()
    return method == "modelopt" and "FP8" in read


#: the nested-layout fields each config's _from_config requires (in this order), and from which release
REQUIRED_FIELDS = {"modelopt_fp4": ("NVFP4", ("group_size", "kv_cache_quant_algo", "exclude_modules"), "0.10.2"),
                   "modelopt_mxfp8": ("MXFP8", ("kv_cache_quant_algo", "exclude_modules"), "0.16.0")}


def missing_fields(cfg: Mapping[str, Any], method: str, release) -> Optional[tuple[str, list[str]]]:
    """(the algorithm named in the message, the missing fields) when the NVFP4 / MXFP8 config's _from_config refuses
    the nested layout for lack of its required fields, else None.  Only for a config config_unread otherwise
    decides (a well-formed nested mapping of quant_algo NVFP4 / MXFP8) and from_config_refusal let through."""
    entry = REQUIRED_FIELDS.get(method)
    if entry is None or not release.within(entry[2]) or not isinstance(cfg.get("quantization"), Mapping):
        return None
    src = cfg["quantization"]
    algo = src.get("quant_algo")
    if not isinstance(algo, str) or not _serialized(method, _config_algo(algo, release)):
        return None  # the check is asked for the config's own algorithm only (is_checkpoint_*_serialized)
    missing = [key for key in entry[1] if key not in src]
    if not missing:
        return None
    complete = {**src, **{key: ([] if key == "exclude_modules" else None) for key in missing}}
    if config_unread({**cfg, "quantization": complete}, method, release) is not None:
        return None
    return entry[0], missing


def config_unread(cfg: Mapping[str, Any], method: str, release, check_init: bool = True) -> Optional[str]:
    """Why building the config of ``method`` from the (normalized) checkpoint config may refuse it, or None: kvguard
    decides a quant_algo string the release's QUANT_ALGOS lists (compared upper-cased from 0.14.0, as from_config
    does) which the config's __init__ takes (``check_init``: else the reason names the refusal, init_refusal decides
    it), MIXED_PRECISION's flat export (see _mixed_unread), a string or no kv_cache_quant_algo, list exclusions, an
    integer group size; for the class's own algorithm, NVFP4's nested layout with all of group_size,
    kv_cache_quant_algo and exclude_modules, MXFP8's with kv_cache_quant_algo and exclude_modules (missing_fields
    decides their refusals: REQUIRED_FIELDS)."""
    if method not in _CANONICAL:
        return f"building the {method} config (and its activation dtypes) is not modelled"
    nested = "quantization" in cfg
    src = cfg["quantization"] if nested else cfg
    if not isinstance(src, Mapping):
        return "a ModelOpt quantization_config whose quantization key is not a mapping is not modelled"
    algo = src.get("quant_algo")
    read = _config_algo(algo, release)
    if not isinstance(algo, str) or read not in quant_algos(release):
        # a missing algorithm or one QUANT_ALGOS does not list: refused by from_config (algo_missing /
        # from_config_refusal decide which, when they can)
        return f"building the {method} config of a checkpoint with quant_algo {algo!r} is not modelled"
    if check_init and _init_refuses(method, read, release):
        return f"the {method} config refuses quant_algo {read!r} ({INIT_CHECKS[method]})"
    if method == "modelopt_mixed":
        why = _mixed_unread(cfg)
        if why is not None:
            return why
    if src.get("kv_cache_quant_algo") not in (None, "FP8"):
        return f"a ModelOpt kv_cache_quant_algo of {src.get('kv_cache_quant_algo')!r} is not modelled"
    for key in ("exclude_modules",) if nested else ("ignore", "exclude_modules"):
        if not isinstance(src.get(key, []), list):
            return f"a ModelOpt {key} that is not a list is not modelled"
    if src.get("group_size") is not None and type(src.get("group_size")) is not int:
        return "a ModelOpt group_size that is not an integer is not modelled"
    serialized = _serialized(method, read)
    if method == "modelopt_fp4" and nested and serialized and not all(
            key in src for key in ("group_size", "kv_cache_quant_algo", "exclude_modules")):
        return "an NVFP4 quantization mapping without group_size, kv_cache_quant_algo and exclude_modules is not modelled"
    if method == "modelopt_mxfp8" and nested and serialized and not all(key in src for key in ("kv_cache_quant_algo",
                                                                                               "exclude_modules")):
        return "an MXFP8 quantization mapping without kv_cache_quant_algo and exclude_modules is not modelled"
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


#: from this release the ModelOpt configs share ModelOptQuantConfigBase.from_config, whose first check after the
#: nested mapping's type is a missing (falsy) quant_algo, in both layouts; before, ModelOptFp8Config's and
#: ModelOptNvFp4Config's own from_config ask it of the nested layout only (the flat one reads a missing algorithm
#: as "", which their QUANT_ALGOS check refuses)
SHARED_FROM_CONFIG = "0.12.0"


def algo_missing(cfg: Mapping[str, Any], method: str, release) -> bool:
    """Whether from_config refuses the (normalized) checkpoint config for lack of a quant_algo ("Missing
    'quant_algo' in quantization config"): the nested mapping's (every release) or, from 0.12.0, the flat config's
    is absent or falsy.  MIXED_PRECISION without a top-level quantized_layers is read from the checkpoint's files
    (left open)."""
    if method not in _CANONICAL:
        return False
    if not release.within(SHARED_FROM_CONFIG) and "quantization" not in cfg:
        return False
    if method == "modelopt_mixed" and "quantized_layers" not in cfg:
        return False
    src = cfg["quantization"] if "quantization" in cfg else cfg
    return isinstance(src, Mapping) and not src.get("quant_algo")


def mixed_layers_empty(cfg: Mapping[str, Any], method: str, release) -> bool:
    """Whether ModelOptMixedPrecisionConfig._from_config refuses an empty top-level quantized_layers (after
    from_config's checks, which kvguard must otherwise decide: config_unread of the same config with one layer)."""
    if method != "modelopt_mixed" or "quantization" in cfg or "quantized_layers" not in cfg:
        return False
    layers = cfg["quantized_layers"]
    if not (layers is None or (isinstance(layers, Mapping) and not layers)):
        return False
    one = {**cfg, "quantized_layers": {"layer": {"quant_algo": "FP8"}}}
    return config_unread(one, method, release) is None


def from_config_refusal(cfg: Mapping[str, Any], method: str, release) -> tuple[Optional[list], Optional[str]]:
    """(QUANT_ALGOS when ``from_config`` of the ModelOpt FP8 / NVFP4 / MXFP8 / MIXED_PRECISION config refuses the
    checkpoint's algorithm, why kvguard cannot tell): the refusal that follows the checks of a missing algorithm and
    of the kv_cache_quant_algo / exclusion / group-size types (kvguard decides well-formed configs only); the
    algorithm is compared upper-cased from 0.14.0.  MIXED_PRECISION: get_quant_config reads hf_quant_config.json
    among the checkpoint's files, not config.json, without a top-level quantized_layers (left open)."""
    if method not in _CANONICAL:
        return None, None  # other configs: VC_quant_act_dtype stays open with its own reason
    if method == "modelopt_mixed" and "quantized_layers" not in cfg:
        return None, ("a MIXED_PRECISION checkpoint without a top-level quantized_layers mapping (get_quant_config "
                      "reads hf_quant_config.json among the checkpoint's files) is not modelled")
    nested = "quantization" in cfg
    src = cfg["quantization"] if nested else cfg
    if not isinstance(src, Mapping):
        return None, "a ModelOpt quantization_config whose quantization key is not a mapping is not modelled"
    algo = src.get("quant_algo")
    if not algo and (nested or release.within(SHARED_FROM_CONFIG)):
        return None, None  # algo_missing: refused first
    if algo is None and not nested:
        algo = ""  # 0.10.2 - 0.11.x, the flat layout: an absent or null algorithm is not in QUANT_ALGOS
    if not isinstance(algo, str):
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


def init_refusal(cfg: Mapping[str, Any], method: str, release) -> Optional[tuple[str, str]]:
    """(the check id, the algorithm as from_config passed it on) when the config's ``__init__`` refuses the
    (normalized) checkpoint config's algorithm — a method of one class for an algorithm of another, which QUANT_ALGOS
    lists (:data:`INIT_CHECKS`) — else None.  Only for a config kvguard otherwise decides: from_config's checks
    pass and _from_config's required fields are not asked (the algorithm is not the class's own)."""
    if method not in _INIT_ALGOS or config_unread(cfg, method, release, check_init=False) is not None:
        return None
    src = cfg["quantization"] if "quantization" in cfg else cfg
    read = _config_algo(src.get("quant_algo"), release)
    if not _init_refuses(method, read, release):
        return None
    return INIT_CHECKS[method], read
