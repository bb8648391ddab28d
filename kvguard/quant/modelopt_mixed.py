"""ModelOpt MIXED_PRECISION exports at model construction: which layer gets which method, vLLM 0.17.0 – 0.33.0.

Mirrors ``ModelOptMixedPrecisionConfig`` of vllm/model_executor/layers/quantization/modelopt.py (read in 0.17.1,
0.20.0, 0.21.0, 0.22.1, 0.23.0, 0.24.0, 0.26.0, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0 and 0.33.0): its
``get_quant_method`` leaves a layer the exclusion list names unquantized, then looks the layer's ``quant_algo`` up in
the export's ``quantized_layers`` (``_resolve_quant_algo``, after the model's checkpoint-name mapper renamed the
keys: ``apply_vllm_mapper``), in this order:

1. the layer's own name (0.22.0+ also ``lm_head`` for a name ending ``.lm_head`` and the ``language_model.model.`` /
   ``model.language_model.`` spellings of a multimodal wrapper's text model);
2. a fused layer named in the model's ``packed_modules_mapping``: its shards' names, one algorithm for all (several:
   ``ValueError`` "Mixed quant_algo within fused layer …", not modelled here);
3. the first key under the layer's name (``name.``: the MoE experts listed per expert);
4. 0.23.0+, for a name ending ``.experts``: the first key under its parent (the MoE block's other projections);
5. 0.26.0+, ``qkv_proj`` / ``gate_up_proj`` whatever the packed mapping: their shards' names, as in 2.

A linear layer (and from 0.22.0 the LM head) then takes the method of its algorithm: FP8 ``ModelOptFp8LinearMethod``
(no size check), NVFP4 the NVFP4 method (its per-rank input a multiple of 16: ``MI_nvfp4_input``), W4A16_NVFP4
(0.22.0+) ``ModelOptNvFp4W4A16LinearMethod`` (the same condition, its own message up to 0.29.0:
``MI_nvfp4a16_input``; 0.30.0+ the shared NVFP4 weight scheme: ``MI_nvfp4_input``); no algorithm (or, before
0.22.0, W4A16_NVFP4): unquantized.  Other algorithms (FP8_PB_WO, MXFP8, the block-FP8 and b12x codecs) have checks
or kernel choices of their own: not modelled.

Used by Nemotron-H's walk (kvguard.quant.nemotron_h) and by the general walk of kvguard.quant for the families whose
``methods`` (kvguard/data/quant_archs.json) name ``modelopt_mixed``: Qwen3.5's wrappers (NVIDIA's Qwen3.6 exports),
each layer's skip state carrying its algorithm, the fused layers looked up by their shards, the experts' method
(:func:`experts_method`) asked for EPLB; experts left unquantized are decided only where their MoE backend selection
cannot refuse the hidden size (:data:`UNQUANTIZED_EXPERTS_HIDDEN`).
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import MIXED_METHOD

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

METHOD = MIXED_METHOD
#: the per-layer algorithms whose linear method this module decides (upper case, as _resolve_quant_algo returns them)
DECIDED = ("FP8", "NVFP4", "W4A16_NVFP4")
#: from this release the config builds a W4A16_NVFP4 sub-config and its layers take the weight-only NVFP4 method
W4A16_SINCE = "0.22.0"
#: from this release the weight-only NVFP4 layers take the shared NVFP4 weight scheme (MI_nvfp4_input); before, the
#: weight-only method's own message (MI_nvfp4a16_input)
W4A16_SHARED_SCHEME_SINCE = "0.30.0"
#: the lookup's wrapper spellings and lm_head (step 1) and the experts' parent fallback (step 4) start here
_CANDIDATES_SINCE = "0.22.0"
_EXPERTS_PARENT_SINCE = "0.23.0"
#: step 5: the fused projections looked up by their shards whatever the model's packed mapping
_FUSED_FALLBACK_SINCE = "0.26.0"
_FUSED_FALLBACK = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}
#: unquantized experts: from this release their MoE backend selection may refuse the hidden size (not modelled), so
#: they are decided only where the hidden size is a multiple of UNQUANTIZED_EXPERTS_HIDDEN
UNQUANTIZED_EXPERTS_BACKEND = "0.20.0"
UNQUANTIZED_EXPERTS_HIDDEN = 128


class ShardsDisagree(Exception):
    """The fused layer's shards name different algorithms (vLLM raises a ValueError kvguard does not model)."""


def layer_table(cfg: Mapping[str, Any], rename: Callable[[str], Optional[str]]) -> "dict[str, str] | str":
    """The export's top-level ``quantized_layers`` as the release looks layers up in it: each key through the
    model's checkpoint-name mapper (``rename``: the new name, None when the mapper drops it; a later key mapped to
    the same name replaces the value in the first one's place, as a dict comprehension does), each value its
    upper-cased ``quant_algo``.  A reason string when kvguard does not read it."""
    layers = cfg.get("quantized_layers")
    if not isinstance(layers, Mapping) or not layers:
        return "a MIXED_PRECISION export without a non-empty top-level quantized_layers mapping"
    table: dict[str, str] = {}
    for key, info in layers.items():
        algo = info.get("quant_algo") if isinstance(info, Mapping) else None
        if not isinstance(key, str) or not isinstance(algo, str):
            return f"a MIXED_PRECISION quantized_layers entry {key!r}: {info!r}"
        name = rename(key)
        if name is not None:
            table[name] = algo.upper()
    return table


def _candidates(prefix: str, release) -> tuple[str, ...]:
    if not release.within(_CANDIDATES_SINCE):
        return (prefix,)
    names = [prefix]
    if prefix.endswith(".lm_head"):
        names.append("lm_head")
    for old, new in (("language_model.model.", "model.language_model."),
                     ("model.language_model.", "language_model.model.")):
        if prefix.startswith(old):
            names.append(new + prefix[len(old):])
            break
    return tuple(dict.fromkeys(names))


def _shards_algo(bases: tuple[str, ...], shards: tuple[str, ...], table: Mapping[str, str]) -> Optional[str]:
    found = {table[f"{base}.{shard}"] for base in bases for shard in shards if f"{base}.{shard}" in table}
    if len(found) > 1:
        raise ShardsDisagree(sorted(found))
    return found.pop() if found else None


def resolve(prefix: str, table: Mapping[str, str], packed: Mapping[str, tuple[str, ...]], release) -> Optional[str]:
    """``_resolve_quant_algo`` of the layer ``prefix`` (the algorithm, None when the table names none); raises
    :class:`ShardsDisagree`."""
    candidates = _candidates(prefix, release)
    for name in candidates:
        if name in table:
            return table[name]
    base, _, proj = prefix.rpartition(".")
    if proj in packed:
        algo = _shards_algo(_candidates(base, release), tuple(packed[proj]), table)
        if algo is not None:
            return algo
    for name in candidates:
        hit = next((algo for key, algo in table.items() if key.startswith(name + ".")), None)
        if hit is not None:
            return hit
    if release.within(_EXPERTS_PARENT_SINCE) and prefix.endswith(".experts"):
        parent = prefix.rsplit(".experts", 1)[0] + "."
        hit = next((algo for key, algo in table.items() if key.startswith(parent)), None)
        if hit is not None:
            return hit
    if release.within(_FUSED_FALLBACK_SINCE) and proj in _FUSED_FALLBACK:
        for name in candidates:
            algo = _shards_algo((name.rsplit(".", 1)[0],), _FUSED_FALLBACK[proj], table)
            if algo is not None:
                return algo
    return None


def linear_check(algo: Optional[str], release) -> "tuple[Optional[str], Optional[str]]":
    """``(check id, None)`` of the per-rank input check the layer's method makes (``(None, None)``: none, or the
    layer stays unquantized), ``(None, reason)`` when kvguard does not decide the algorithm's method."""
    if algo is None or algo == "FP8":
        return None, None
    if algo == "NVFP4":
        return "MI_nvfp4_input", None
    if algo == "W4A16_NVFP4":
        if not release.within(W4A16_SINCE):
            return None, None  # no branch takes it: UnquantizedLinearMethod
        return ("MI_nvfp4_input" if release.within(W4A16_SHARED_SCHEME_SINCE) else "MI_nvfp4a16_input"), None
    return None, f"a MIXED_PRECISION layer of quant_algo {algo!r} (its own method's checks) is not modelled"


def experts_unmodelled(algo: Optional[str]) -> Optional[str]:
    """Why the MoE experts of the algorithm are not decided, or None: unquantized (no algorithm; W4A16_NVFP4 before
    0.22.0), FP8 (``ModelOptFp8MoEMethod``), NVFP4 / W4A16_NVFP4 (``ModelOptNvFp4FusedMoE``) take a backend that
    checks no size while built on the default host (the caller's family decides which: Triton, FP4 Marlin)."""
    if algo in (None, "FP8", "NVFP4", "W4A16_NVFP4"):
        return None
    return f"the MIXED_PRECISION MoE experts of quant_algo {algo!r} are not modelled"


def experts_method(algo: Optional[str], release) -> Optional[str]:
    """The ModelOpt method whose MoE class builds experts of the algorithm (``modelopt``: ``ModelOptFp8MoEMethod``,
    ``modelopt_fp4``: ``ModelOptNvFp4FusedMoE``; kvguard.quant.modelopt_shards.eplb_refusal names them), None when
    they stay unquantized (no algorithm; W4A16_NVFP4 before 0.22.0)."""
    if algo == "FP8":
        return "modelopt"
    if algo == "NVFP4" or algo == "W4A16_NVFP4" and release.within(W4A16_SINCE):
        return "modelopt_fp4"
    return None
