"""The KV-cache dtype a quantized checkpoint gives ``--kv-cache-dtype auto``, vLLM 0.14.0 – 0.33.0.

Mirrors ``resolve_kv_cache_dtype_string`` and ``get_kv_cache_quant_algo_string`` of vllm/utils/torch_utils.py
(read in 0.14.0, 0.14.1, 0.16.0, 0.19.1, 0.20.0, 0.28.0, 0.33.0), which ``EngineArgs.create_engine_config``
(vllm/engine/arg_utils.py) calls before it builds ``CacheConfig``: with ``--kv-cache-dtype auto`` the cache takes
the dtype a ModelOpt checkpoint names for its KV cache.  The releases read the model config's own
``quantization_config`` (not a sub-config's), after ModelConfig has normalized its ``quant_method`` in place
(ModelOpt's nested ``producer`` / ``quantization`` layout gets ``modelopt`` or ``modelopt_fp4``); only a
``quant_method`` starting with ``modelopt`` is read.  The first of ``kv_cache_scheme`` / ``kv_cache_quant_algo``
that is set (the nested ``quantization`` mapping's before the top level's, the scheme before the algorithm)
decides: ``"fp8"`` (any case) is ``fp8_e4m3``, from 0.20.0 ``"nvfp4"`` is ``nvfp4``; a scheme mapping of 8-bit
static floats is FP8 (from 0.20.0 one of 4-bit floats is NVFP4); anything else falls back to ``auto`` (vLLM logs a
warning).  Up to 0.13.x the cache dtype stays ``auto`` (the model's dtype) whatever the checkpoint says.
Other methods (compressed-tensors' ``kv_cache_scheme``, fp8's ``kv_cache_quant_method``) leave ``auto`` as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import modelopt as _modelopt

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["FIRST_RELEASE", "checkpoint_cache_dtype", "effective"]

#: the first release whose engine arguments resolve ``auto`` from the checkpoint
FIRST_RELEASE = "0.14.0"
#: the release from which NVFP4 is among the names (and 4-bit float schemes are read as NVFP4)
_NVFP4_SINCE = "0.20.0"


def _normalized_method(cfg: Mapping[str, Any], release) -> str:
    """The ``quant_method`` ModelConfig leaves in the checkpoint's config (the ModelOpt normalization first)."""
    try:
        written = _modelopt.normalize(cfg, release)
    except (_modelopt.NotRead, _modelopt.UnknownAlgo):
        written = None   # ModelConfig refuses (or kvguard does not read) such a config before the cache is sized
    method = written or cfg.get("quant_method", "")
    return method.lower() if isinstance(method, str) else ""


def _named(value: Any, release) -> str:
    """The cache dtype a ModelOpt KV-cache entry names (``auto`` for one vLLM does not map)."""
    nvfp4 = release.within(_NVFP4_SINCE)
    if isinstance(value, Mapping):
        if value.get("dynamic") is False and value.get("num_bits") == 8 and value.get("type") == "float":
            value = "fp8"
        elif nvfp4 and value.get("num_bits") == 4 and value.get("type") == "float":
            value = "nvfp4"
        else:
            return "auto"
    if not isinstance(value, str):
        return "auto"
    names = {"fp8": "fp8_e4m3", **({"nvfp4": "nvfp4"} if nvfp4 else {})}
    return names.get(value.lower(), "auto")


def checkpoint_cache_dtype(config: Mapping[str, Any], release) -> Optional[str]:
    """``CacheConfig.cache_dtype`` for ``--kv-cache-dtype auto`` when the checkpoint's ``quantization_config``
    names one (``fp8_e4m3``, ``nvfp4``, or ``auto`` for a name vLLM does not map), None when the release leaves
    ``auto`` to the model's dtype.  ``config``: the model's config.json (its top level)."""
    if not release.within(FIRST_RELEASE):
        return None
    cfg = config.get("quantization_config")
    if not isinstance(cfg, Mapping) or not _normalized_method(cfg, release).startswith("modelopt"):
        return None
    inner = cfg.get("quantization", cfg)
    if not isinstance(inner, Mapping):
        return None
    for value in (inner.get("kv_cache_scheme"), cfg.get("kv_cache_scheme"), inner.get("kv_cache_quant_algo"),
                  cfg.get("kv_cache_quant_algo")):
        if value:
            return _named(value, release)
    return None


def effective(kv_cache_dtype: str, config: Mapping[str, Any], release) -> tuple[str, Optional[str]]:
    """(the KV-cache dtype the release sizes the cache with, a note when the checkpoint chose it) for
    ``--kv-cache-dtype kv_cache_dtype``; raises :class:`~kvguard.Undecidable` for a packed cache the checkpoint
    names (NVFP4), whose bytes kvguard does not model."""
    if kv_cache_dtype != "auto":
        return kv_cache_dtype, None
    named = checkpoint_cache_dtype(config, release)
    if named in (None, "auto"):
        return kv_cache_dtype, None
    if named == "nvfp4":
        from ..errors import Undecidable

        raise Undecidable(f"the checkpoint's NVFP4 KV cache (vLLM {release.key} resolves --kv-cache-dtype auto to "
                          f"nvfp4): its packed layout's bytes are not modelled")
    return named, (f"--kv-cache-dtype auto is {named} for this checkpoint (vLLM {release.key} takes the KV-cache "
                   f"quantization its quantization_config names)")
