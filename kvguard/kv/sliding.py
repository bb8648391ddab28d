"""Which attention layers vLLM builds with a sliding window, and how wide: the per-layer input of the
sliding-window capacity (:func:`kvguard.kv.capacity.kv_capacity_sliding`).

An attention layer's window is the one its model class passes (``per_layer_sliding_window``), else
the model-wide ``CacheConfig.sliding_window`` (``Attention.__init__``, vllm/attention/layer.py and
vllm/model_executor/layers/attention/attention.py); the layer gets a ``SlidingWindowSpec`` when that
is not None (``get_kv_cache_spec``).  The model-wide window is ``ModelConfig.get_sliding_window()``
(the text config's ``sliding_window``; None after ``--disable-sliding-window``, and from 0.19.0 a
window of 0 means none), set only when the text config's ``layer_types`` allows it
(``EngineArgs.create_engine_config``, vllm/engine/arg_utils.py):

* 0.10.2–0.11.0: unless ``layer_types`` holds both ``full_attention`` and ``sliding_attention``
  (``is_interleaved``, vllm/transformers_utils/config.py);
* 0.11.1–0.26.0: unless ``layer_types`` holds more than one kind (``is_interleaved``);
* 0.27.0–0.33.0: only when ``layer_types`` is missing or every entry is ``sliding_attention``.

The model classes read (each release 0.10.2–0.33.0, vllm/model_executor/models/):

* ``gpt_oss.py``: layer i gets ``config.sliding_window`` when i is even, else none;
* ``gemma2.py``, ``gemma3.py`` (also the language model of ``gemma3_mm.py``), ``llama.py`` (Llama and,
  through ``mistral.py``'s ``MistralAttention(LlamaAttention)`` from 0.15.0, Mistral): layer i gets
  ``config.sliding_window`` when ``layer_types[i] == "sliding_attention"``, else none;
* ``commandr.py`` (Cohere2): the same, ``config.sliding_window + 1`` from 0.29.0 (a sliding layer without
  a window then fails to build: not modelled);
* ``qwen2.py``, ``qwen3.py``: no per-layer window, every layer has the model-wide one (``Qwen2Model``
  asserts when ``layer_types`` mixes kinds: not modelled here).

Everything else stays :class:`~kvguard.errors.CapacityNotModelled`: other architectures, MLA,
layers of different shapes or shared caches, chunked local attention, hybrid (Mamba / linear)
models, encoder-decoder models, Eagle-3 drafts (``target_layer_count``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, NamedTuple, Optional

__all__ = ["SLIDING_ARCHITECTURES", "SlidingSplit", "model_wide_sliding_window", "sliding_layer_windows",
           "sliding_split"]

_SLIDING, _FULL = "sliding_attention", "full_attention"


def _by_parity(index: int, window: Optional[int], layer_types: Optional[Sequence[Any]]) -> Optional[int]:
    return window if index % 2 == 0 else None


def _by_layer_type(index: int, window: Optional[int], layer_types: Optional[Sequence[Any]]) -> Optional[int]:
    if not layer_types:  # llama.py reads layer_types only when present (the others need it: see below)
        return None
    return window if layer_types[index] == _SLIDING else None


class _NotBuilt(Exception):
    """The model class raises while it builds this layer (no KV cache to size)."""


def _by_layer_type_plus_one(index: int, window: Optional[int], layer_types: Optional[Sequence[Any]]) -> Optional[int]:
    if not layer_types or layer_types[index] != _SLIDING:
        return None
    if window is None:  # commandr.py adds 1 to config.sliding_window: None + 1 raises TypeError
        raise _NotBuilt("a sliding_attention layer without a window (None + 1 raises TypeError while vLLM builds "
                        "Cohere2; --disable-sliding-window does it too)")
    return window + 1


def _model_wide_only(index: int, window: Optional[int], layer_types: Optional[Sequence[Any]]) -> Optional[int]:
    return None


_PerLayer = Callable[[int, Optional[int], Optional[Sequence[Any]]], Optional[int]]

#: registered architecture -> ((first release, last release, the window the model class passes layer i), …)
SLIDING_ARCHITECTURES: dict[str, tuple[tuple[str, str, _PerLayer], ...]] = {
    "GptOssForCausalLM": (("0.10.2", "0.33.0", _by_parity),),
    "Gemma2ForCausalLM": (("0.10.2", "0.33.0", _by_layer_type),),
    "Gemma3ForCausalLM": (("0.10.2", "0.33.0", _by_layer_type),),
    "Gemma3ForConditionalGeneration": (("0.10.2", "0.33.0", _by_layer_type),),
    "Cohere2ForCausalLM": (("0.10.2", "0.28.0", _by_layer_type), ("0.29.0", "0.33.0", _by_layer_type_plus_one)),
    "LlamaForCausalLM": (("0.10.2", "0.33.0", _by_layer_type),),
    "MistralForCausalLM": (("0.10.2", "0.33.0", _by_layer_type),),
    "Qwen2ForCausalLM": (("0.10.2", "0.33.0", _model_wide_only),),
    "Qwen3ForCausalLM": (("0.10.2", "0.33.0", _model_wide_only),),
}
#: the architectures whose model class asserts against layer_types that mix kinds (Qwen2Model)
_MIXED_TYPES_ASSERT = ("Qwen2ForCausalLM", "Qwen3ForCausalLM")
#: the architectures whose model class indexes ``config.layer_types`` unconditionally (without it the
#: model fails to build: not a capacity question)
_NEEDS_LAYER_TYPES = ("Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration",
                      "Cohere2ForCausalLM")

#: config keys that mark layers other than full / sliding-window attention of one shape
_OTHER_LAYER_KEYS = ("layers_block_type", "hybrid_override_pattern", "attention_chunk_size",
                     "full_attention_interval", "block_configs", "index_topk", "attn_type_list",
                     "num_kv_shared_layers")


def model_wide_sliding_window(release: Any, window: Optional[int], layer_types: Optional[Sequence[Any]]) -> Optional[int]:
    """``CacheConfig.sliding_window`` as ``create_engine_config`` sets it (see the module docstring)."""
    if window is None:
        return None
    kinds = set(layer_types) if layer_types else set()
    if release.within(None, "0.11.0"):
        interleaved = {_FULL, _SLIDING} <= kinds
        return None if interleaved else window
    if release.within(None, "0.26.0"):
        return None if len(kinds) > 1 else window
    if not layer_types or all(kind == _SLIDING for kind in layer_types):
        return window
    return None


def sliding_layer_windows(facts: Any, release: Any, raw: Optional[Mapping[str, Any]] = None, *,
                          disable_sliding_window: bool = False) -> tuple[Optional[list[Optional[int]]], str]:
    """``(windows, "")``: one entry per attention layer, None full attention, an int the window vLLM
    gives that layer; ``(None, reason)`` when kvguard does not know the layers' windows."""
    from ..archs import registered_arch

    arch = registered_arch(facts.architectures, release)
    rules = SLIDING_ARCHITECTURES.get(arch or "")
    rule = next((per_layer for first, last, per_layer in rules or () if release.within(first, last)), None)
    if rule is None:
        return None, (f"{arch or 'this architecture'}: which of its layers vLLM {release.version} builds with a sliding "
                      "window was not read")
    if facts.use_mla:
        return None, "MLA with sliding-window layers is not modelled"
    layers = facts.num_hidden_layers
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 1 or not facts.head_size:
        return None, "no attention KV cache facts"
    if facts.layer_kv():
        return None, "layers of different KV heads or head sizes (different page sizes) are not modelled"
    configs = [c for c in (facts.resolved, facts.resolved_top, raw,
                           raw.get("text_config") if isinstance(raw, Mapping) else None) if isinstance(c, Mapping)]
    for cfg in configs:
        for key in _OTHER_LAYER_KEYS:
            if cfg.get(key) is not None:
                return None, f"{key} in the config: layers other than full and sliding-window attention"
        if cfg.get("is_encoder_decoder"):
            return None, "encoder-decoder model: cross-attention KV cache"
        if "target_layer_count" in cfg:
            return None, "an Eagle-3 draft config (target_layer_count)"
    text = facts.resolved
    layer_types = text.get("layer_types")
    if layer_types is None and arch in _NEEDS_LAYER_TYPES:
        return None, f"{arch} without layer_types (the model class reads config.layer_types)"
    if layer_types is not None:
        if not isinstance(layer_types, (list, tuple)) or len(layer_types) < layers \
                or any(kind not in (_FULL, _SLIDING) for kind in layer_types):
            return None, f"layer_types {str(layer_types)[:80]}: kinds other than full and sliding attention"
        if arch in _MIXED_TYPES_ASSERT and len(set(layer_types)) > 1:
            return None, f"{arch} with layer_types mixing attention kinds (the model class asserts on it)"
    window = text.get("sliding_window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool) or window < 0):
        return None, f"sliding_window {window!r} is not a window kvguard sizes"
    if window == 0:
        if not release.within("0.19.0"):
            return None, f"sliding_window 0 (a window of no tokens) in vLLM {release.version}"
        window = None  # ModelConfig: 0 means no sliding window
    if disable_sliding_window:
        window = None
    fallback = model_wide_sliding_window(release, window, layer_types)
    windows = []
    for index in range(layers):
        try:
            own = rule(index, window, layer_types)
        except _NotBuilt as exc:
            return None, str(exc)
        windows.append(own if own is not None else fallback)
    return windows, ""


class SlidingSplit(NamedTuple):
    """How many attention layers slide and with which windows (:func:`sliding_split`)."""

    layers: int
    sliding: int
    windows: tuple[int, ...]

    @property
    def full(self) -> int:
        return self.layers - self.sliding

    def describe(self, bytes_per_token_per_layer: Optional[int] = None) -> str:
        """"12 of 24 layers slide (window 128) ...": the per-token bytes of each kind when given one layer's bytes."""
        if not self.sliding:
            return f"none of the {self.layers} layers slides"
        windows = ", ".join(f"{w:,}" for w in self.windows)
        text = f"{self.sliding} of {self.layers} layers slide (window {windows})"
        if bytes_per_token_per_layer is None:
            return text
        return (f"{text}: the {self.full} full-attention layers {self.full * bytes_per_token_per_layer:,} B per token "
                f"per rank for every token; the {self.sliding} sliding-window layers "
                f"{self.sliding * bytes_per_token_per_layer:,} B per token per rank for at most their window plus the "
                "tokens in flight (a block more)")


def sliding_split(facts: Any, release: Any, raw: Optional[Mapping[str, Any]] = None, *,
                  disable_sliding_window: bool = False) -> Optional[SlidingSplit]:
    """The sliding-window layers of ``facts`` as :func:`sliding_layer_windows` finds them (``sliding`` 0: every
    layer full attention, e.g. under ``--disable-sliding-window``); None when kvguard does not know the layers'
    windows."""
    windows, _why = sliding_layer_windows(facts, release, raw, disable_sliding_window=disable_sliding_window)
    if not windows:
        return None
    slide = [w for w in windows if w is not None]
    return SlidingSplit(len(windows), len(slide), tuple(sorted(set(slide))))
