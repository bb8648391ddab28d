"""Per-token KV-cache sizes: the figures the audit, the capacity prediction and the plan all use.

Sizes follow vLLM's KV cache spec classes (``vllm/v1/kv_cache_interface.py``):
a full-attention layer's page is ``block_size * num_kv_heads * (head_size +
head_size_v) * dtype_size`` (``2 * block_size * …`` before 0.20.0), an MLA
layer's ``block_size * 1 * head_size * dtype_size`` with ``head_size =
kv_lora_rank + qk_rope_head_dim`` (no separate V).  ``tests/upstream/
test_kvspec.py`` checks the per-layer per-token figures against the release's
own classes.  The dtype size is the one the release gives ``--kv-cache-dtype``
(``STR_DTYPE_TO_TORCH_DTYPE``: fp8 variants are stored as one byte; ``auto``
is the model dtype).  Packed / scaled cache formats (``fp8_ds_mla``,
``nvfp4``, ``turboquant_*``, ``*_per_token_head``) are not modelled: an
:class:`~kvguard.InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ..errors import InputError
from ..versions import resolve

__all__ = ["KV_CACHE_DTYPE_BYTES", "config_dtype", "kv_bytes_per_token_per_layer", "kv_cache_dtype_bytes",
           "kv_token_shards", "reported_number"]

#: ``--kv-cache-dtype`` values with a plain element layout -> bytes per element
#: (vLLM's STR_DTYPE_TO_TORCH_DTYPE: fp8/fp8_e4m3/fp8_e5m2 -> torch.uint8,
#: fp8_inc -> torch.float8_e4m3fn)
KV_CACHE_DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1}

#: first release whose CacheDType literal lists the value (the others: 0.10.2)
_KV_CACHE_DTYPE_SINCE = {"bfloat16": "0.11.0", "float16": "0.18.0"}

#: values the releases accept whose cache layout (scales, packing) kvguard does not model
_PACKED = ("fp8_ds_mla", "nvfp4", "turboquant_", "int4_per_token_head", "int8_per_token_head",
           "fp8_per_token_head", "octave_")

#: config ``torch_dtype`` / ``dtype`` -> what ``--dtype auto`` makes of it on a CUDA GPU with bf16
#: support (vLLM's _get_and_verify_dtype: a float32 or missing config dtype resolves to the
#: platform's preferred half type, bfloat16)
_AUTO_MODEL_DTYPE = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16",
                     "float32": "bfloat16", "float": "bfloat16", None: "bfloat16"}

_DTYPE_BYTES = {"float16": 2, "bfloat16": 2}


def config_dtype(raw: Optional[Mapping[str, Any]]) -> Optional[str]:
    if not isinstance(raw, Mapping):
        return None
    for key in ("torch_dtype", "dtype"):
        value = raw.get(key)
        if isinstance(value, str):
            return value.replace("torch.", "")
    text = raw.get("text_config")
    if isinstance(text, Mapping):
        return config_dtype(text)
    return None


def kv_cache_dtype_bytes(kv_cache_dtype: str = "auto", *, model_dtype: Optional[str] = None,
                         vllm_version: Optional[str] = None) -> tuple[str, int]:
    """``(resolved dtype, bytes per element)`` of the KV cache for ``--kv-cache-dtype``.

    ``auto`` is the model dtype (``model_dtype``: the config's ``torch_dtype``;
    float32 or unknown resolves as vLLM's ``--dtype auto`` does on a bf16-capable
    CUDA GPU, to bfloat16).  With ``vllm_version``, a value that release's
    ``--kv-cache-dtype`` does not accept is an :class:`InputError`.
    """
    if not isinstance(kv_cache_dtype, str):
        raise InputError("kv_cache_dtype must be a string", source="<audit>", key="kv_cache_dtype")
    name = kv_cache_dtype
    if vllm_version is not None and name in _KV_CACHE_DTYPE_SINCE:
        release = resolve(vllm_version)
        if not release.within(_KV_CACHE_DTYPE_SINCE[name]):
            raise InputError(f"--kv-cache-dtype {name} does not exist in vLLM {release.version} "
                             f"(added in {_KV_CACHE_DTYPE_SINCE[name]})", source="<audit>", key="kv_cache_dtype")
    if name == "auto":
        md = model_dtype.replace("torch.", "") if isinstance(model_dtype, str) else None
        resolved = _AUTO_MODEL_DTYPE.get(md)
        if resolved is None:
            raise InputError(f"model dtype {model_dtype!r} is not one kvguard sizes", source="<audit>",
                             key="torch_dtype")
        return resolved, _DTYPE_BYTES[resolved]
    if name in KV_CACHE_DTYPE_BYTES:
        return name, KV_CACHE_DTYPE_BYTES[name]
    if any(name.startswith(p) for p in _PACKED):
        raise InputError(f"--kv-cache-dtype {name} uses a packed/scaled cache layout kvguard does not size",
                         source="<audit>", key="kv_cache_dtype")
    raise InputError(f"unknown --kv-cache-dtype {name!r} (sized: auto, {', '.join(KV_CACHE_DTYPE_BYTES)})",
                     source="<audit>", key="kv_cache_dtype")


def kv_bytes_per_token_per_layer(heads_per_rank: int, head_size: int, dtype_bytes: int, *, mla: bool) -> int:
    """One layer's KV-cache bytes per token on one rank, as vLLM's spec classes size a page
    (``page_size_bytes / block_size``): full attention ``2 * heads * head_size * b`` (K and V),
    MLA ``head_size * b`` (one latent vector, ``head_size = kv_lora_rank + qk_rope_head_dim``)."""
    if mla:
        return head_size * dtype_bytes
    return 2 * heads_per_rank * head_size * dtype_bytes


#: releases whose KV cache spec divides a sequence's tokens over pcp * dcp ranks (FullAttentionSpec.
#: max_memory_usage_bytes: ``cdiv(max_model_len, dcp_world_size * pcp_world_size)``); the others
#: shard over dcp only (PCP ranks hold copies)
_PCP_SHARDS_KV = ("0.12.0", "0.25.1")


def kv_token_shards(vllm_version: str, dcp: int = 1, pcp: int = 1) -> int:
    """Over how many ranks one sequence's KV tokens are spread: dcp, times pcp in 0.12.0–0.25.1."""
    if pcp > 1 and resolve(vllm_version).within(*_PCP_SHARDS_KV):
        return dcp * pcp
    return dcp


def reported_number(value: float) -> "int | float":
    """A size or ratio as the reports carry it: an int when whole, else rounded to 4 decimals (a per-rank
    share of a token's bytes is fractional when -dcp splits tokens)."""
    return int(value) if float(value).is_integer() else round(value, 4)
