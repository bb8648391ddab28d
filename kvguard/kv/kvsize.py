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

Only models with one full-attention / MLA KV-cache group are sized (:func:`kv_cache_groups_reason`); a config key
that marks other layers is passed over where the release's model class never reads it (:data:`UNREAD_LAYER_KEYS`:
``attn_type_list`` in ``vllm/model_executor/models/minimax_m2.py``, 0.11.1–0.33.0, read in each release;
``tests/upstream/test_kvspec_model.py`` checks the layers the model builds).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError
from ..versions import resolve

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["KV_CACHE_DTYPE_BYTES", "config_dtype", "kv_bytes_per_token_per_layer", "kv_cache_dtype_bytes",
           "kv_cache_groups_reason", "kv_token_shards", "reported_number", "UNREAD_LAYER_KEYS",
           "unread_layer_key", "KV_SHARED_TAIL", "cache_layers"]

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


#: model types whose layers do not share one full-attention / MLA KV-cache spec in vLLM
_MULTI_GROUP_TYPES = {
    "gemma2": "sliding-window and full-attention layers", "gemma3": "sliding-window and full-attention layers",
    "gemma3_text": "sliding-window and full-attention layers", "gemma3n": "sliding-window and shared-KV layers",
    "cohere2": "sliding-window and full-attention layers", "gpt_oss": "sliding-window and full-attention layers",
    "llama4": "chunked-local and full-attention layers", "mllama": "cross-attention layers",
    "jamba": "Mamba and attention layers", "mamba": "Mamba state, no attention KV cache",
    "mamba2": "Mamba state, no attention KV cache", "falcon_mamba": "Mamba state, no attention KV cache",
    "nemotron_h": "Mamba and attention layers", "falcon_h1": "Mamba and attention layers",
    "bamba": "Mamba and attention layers", "zamba2": "Mamba and attention layers",
    "granitemoehybrid": "Mamba and attention layers", "plamo2": "Mamba and attention layers",
    "lfm2": "short-convolution and attention layers", "lfm2_moe": "short-convolution and attention layers",
    "qwen3_next": "linear-attention and full-attention layers", "minimax": "linear-attention layers",
    "minimax_text_01": "linear-attention layers", "minimax_m1": "linear-attention layers",
    "deepseek_v32": "an indexer KV cache beside the MLA cache", "deepseek_v4": "several MLA KV-cache groups",
    "glm_moe_dsa": "an indexer KV cache beside the MLA cache", "nemotron-nas": "layers of different shapes",
    "phi4flash": "Mamba and attention layers", "whisper": "encoder-decoder cross attention",
    "kimi_linear": "linear-attention and MLA layers", "hunyuan_v1_moe_hybrid": "Mamba and attention layers",
}


#: Config keys that mark layers of different KV-cache specs in general, but that the model class of an
#: architecture never reads: (key, architecture as registered, first release, last release, why).  For these
#: architectures the key's presence says nothing about the KV cache; every other config holding it stays refused.
#: The range starts where the release registers the architecture (kvguard/data/archs.json) and ends at the last
#: release whose model file was read: a later release is refused until its file is read again.
UNREAD_LAYER_KEYS: tuple[tuple[str, str, str, str, str], ...] = (
    ("attn_type_list", "MiniMaxM2ForCausalLM", "0.11.1", "0.33.0",
     # MiniMax-M2 / M2.5 / M2.7 checkpoints ship attn_type_list = [1] * num_hidden_layers (a MiniMax-Text-01
     # leftover); minimax_text_01.py reads it (0 = lightning linear attention), minimax_m2.py does not
     "vllm/model_executor/models/minimax_m2.py builds one Attention per hidden layer (num_key_value_heads, "
     "head_dim, no per-layer sliding window: the decoder layer never passes attn_window_size) and never reads "
     "attn_type_list"),
)


def unread_layer_key(key: str, architectures, release) -> Optional[str]:
    """Why ``key`` is not read by the model class ``release`` picks for ``architectures`` (None: it may be)."""
    if release is None or not architectures:
        return None
    from ..archs import registered_arch

    rel = resolve(release) if isinstance(release, str) else release
    arch = registered_arch(architectures, rel)
    for row_key, row_arch, first, last, why in UNREAD_LAYER_KEYS:
        if row_key == key and row_arch == arch and rel.within(first, last):
            return why
    return None


def kv_cache_groups_reason(raw: Optional[Mapping[str, Any]], facts=None, release=None) -> Optional[str]:
    """Why this config would not have one full-attention / MLA KV-cache group (None: it has).

    Read from the config objects the release builds (``facts.resolved`` / ``resolved_top``: class
    defaults included — a Mistral config.json without ``sliding_window`` gets 4096 from its class);
    before the facts are derived, from ``raw`` (config.json), for the model types whose configs need
    remote code.  A key of :data:`UNREAD_LAYER_KEYS` is passed over when the release (``release``, else
    the facts' release) builds an architecture that never reads it; without a release it refuses."""
    if facts is not None:
        configs = [facts.resolved_top, facts.resolved]
        types = {facts.model_type, facts.text_model_type}
        architectures = facts.architectures
        if release is None:
            release = facts.vllm_version
    else:
        text = raw.get("text_config") if isinstance(raw, Mapping) else None
        configs = [c for c in (raw, text) if isinstance(c, Mapping)]
        types = {c.get("model_type") for c in configs}
        arch_list = raw.get("architectures") if isinstance(raw, Mapping) else None
        architectures = tuple(arch_list) if isinstance(arch_list, (list, tuple)) else ()
    for t in sorted(t for t in types if isinstance(t, str)):
        if t in _MULTI_GROUP_TYPES:
            return f"model type {t}: {_MULTI_GROUP_TYPES[t]}"
    if facts is not None and (facts.use_mla is None or not facts.head_size or not facts.num_hidden_layers):
        return "no attention KV cache facts (attention-free model, or facts vLLM does not derive)"
    for cfg in configs:
        layer_types = cfg.get("layer_types")
        if isinstance(layer_types, (list, tuple)) and any(t != "full_attention" for t in layer_types):
            return "layer_types mixes attention kinds: " + ", ".join(sorted({str(t) for t in layer_types}))
        if cfg.get("sliding_window") is not None and cfg.get("use_sliding_window") is not False:
            return f"sliding window {cfg.get('sliding_window')}: sliding-window KV-cache spec"
        for key in ("sliding_window_pattern", "layers_block_type", "hybrid_override_pattern", "attention_chunk_size",
                    "full_attention_interval", "block_configs", "index_topk", "attn_type_list"):
            if cfg.get(key) is not None and unread_layer_key(key, architectures, release) is None:
                return f"{key} in the config: layers with different KV-cache specs"
        if cfg.get("is_encoder_decoder"):
            return "encoder-decoder model: cross-attention KV cache"
    return None


#: architectures whose last ``num_kv_shared_layers`` layers read the KV cache of the last earlier layer of their
#: type instead of holding their own (``Attention(kv_sharing_target_layer_name=…)``; the GPU model runner's
#: ``get_kv_cache_spec`` gives them no spec): architecture, first release, last release read
KV_SHARED_TAIL: tuple[tuple[str, str, str], ...] = (
    ("Gemma4ForCausalLM", "0.28.0", "0.33.0"),
    ("Gemma4ForConditionalGeneration", "0.28.0", "0.33.0"),
)


def cache_layers(facts: Any, release: Any) -> "tuple[Optional[tuple[tuple[int, int], ...]], Optional[str]]":
    """``(KV heads, head size)`` of every layer that holds its own KV cache, when they are not all the whole model's
    (a heterogeneous config, or a tail of layers sharing another's cache): ``(layers, None)``; ``(None, None)`` for
    the plain path (every layer the whole model's size); ``(None, reason)`` when kvguard does not know which layers
    hold a cache (an upper bound is then all of them at the largest size)."""
    if facts.use_mla:
        return None, None
    layers = facts.layer_kv()
    shared = facts.resolved.get("num_kv_shared_layers")
    if not isinstance(shared, int) or isinstance(shared, bool) or shared <= 0:
        return (layers or None), None
    count = facts.num_hidden_layers
    arch = facts.architectures[0] if len(facts.architectures) == 1 else None
    known = any(arch == name and release.within(since, until) for name, since, until in KV_SHARED_TAIL)
    if not known or not isinstance(count, int) or shared >= count:
        return None, (f"layers that reuse another layer's KV cache (num_kv_shared_layers {shared}) are not modelled "
                      f"for {arch or 'this model'} in vLLM {release.version}: every layer is sized with the largest "
                      "layer's KV heads and head size, an upper bound")
    types = facts.resolved.get("layer_types")
    first_shared = count - shared
    if not isinstance(types, list) or len(types) < count \
            or any(kind not in types[:first_shared] for kind in types[first_shared:count]):
        # Gemma4Attention looks the target up by type: without an earlier layer of that type the model raises
        return None, ("a layer that reuses another layer's KV cache with no earlier layer of its type (layer_types "
                      f"{str(types)[:80]}): not modelled")
    if not layers:
        layers = ((facts.total_num_kv_heads, facts.head_size),) * count
    return layers[:first_shared], None
