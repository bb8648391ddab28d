"""KV-cache economics: per-token cache sizes and what TP duplication costs.

:func:`audit` reports, per model and layout, the KV heads that govern the
cache, the duplication factor ``max(1, tp // H)`` and what is left of it after
decode context parallelism, the legal ``-dcp`` sizes, the per-rank KV bytes per
token and the bytes the duplication wastes.

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
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence

from .errors import InputError, reports_internal_errors
from .facts import ModelFacts
from .layout import Host

__all__ = ["AuditReport", "ModelAudit", "KV_CACHE_DTYPE_BYTES", "audit", "kv_cache_dtype_bytes",
           "kv_bytes_per_token_per_layer"]

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
        from .versions import resolve
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
    from .versions import resolve
    if pcp > 1 and resolve(vllm_version).within(*_PCP_SHARDS_KV):
        return dcp * pcp
    return dcp


def _num(x: float) -> "int | float":
    return int(x) if float(x).is_integer() else round(x, 4)


@dataclass(frozen=True)
class ModelAudit:
    """The KV-cache economics of one model at one layout (all sizes in bytes)."""

    model: str
    vllm_version: str
    tp: int
    pcp: int
    dcp: int
    use_mla: Optional[bool]
    total_num_kv_heads: Optional[int]
    cache_kv_heads: Optional[int]
    num_kv_heads_per_rank: Optional[int]
    head_size: Optional[int]
    num_layers: Optional[int]
    duplication_factor: Optional[int]
    #: copies of each cached byte left after DCP (and, in 0.12.0–0.25.1, PCP) shard the tokens:
    #: stored / unique — max(1, duplication_factor // dcp) for a legal dcp at pcp=1
    residual_duplication: Optional[float]
    legal_dcp_sizes: tuple[int, ...]
    dcp_legal: bool
    kv_cache_dtype: str
    kv_cache_dtype_resolved: str
    dtype_bytes: int
    kv_bytes_per_token_per_layer_per_rank: Optional[float]
    #: how many ranks share one sequence's tokens: dcp (times pcp in 0.12.0–0.25.1)
    kv_token_shards: int
    #: all layers, one rank (pp=1), tokens divided over the kv_token_shards ranks
    kv_bytes_per_token_per_rank: Optional[float]
    #: what one copy of the cache costs per token (every KV head / the latent once, all layers)
    kv_bytes_per_token_unique: Optional[int]
    #: what the tp * pcp ranks of one replica store per token together (= per rank * tp * pcp)
    kv_bytes_per_token_stored: Optional[float]
    #: stored - unique: the bytes per token that duplication costs across the TP group
    duplication_waste_bytes_per_token: Optional[float]
    notes: tuple[str, ...] = ()
    #: vLLM's "GPU KV cache size" / "Maximum concurrency" (kvguard.capacity.CapacityPrediction), or
    #: CapacityNotModelledResult; None when no KV memory and max_model_len were given
    capacity: Any = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["legal_dcp_sizes"] = list(self.legal_dcp_sizes)
        out["notes"] = list(self.notes)
        if self.capacity is None:
            out.pop("capacity")
        else:
            out["capacity"] = self.capacity.to_dict()
        return out


@dataclass(frozen=True)
class AuditReport:
    models: tuple[ModelAudit, ...]
    schema: int = 1
    vllm_version: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.schema, "vllm_version": self.vllm_version,
                "models": [m.to_dict() for m in self.models]}


_HYBRID_HINTS = ("layer_types", "sliding_window_pattern", "layers_block_type", "hybrid_override_pattern",
                 "attention_chunk_size", "full_attention_interval")


def resolve_config(config: Any) -> tuple[str, Any, Optional[dict]]:
    """(label, config for the API, raw mapping or None) — a path, a catalog id, a mapping or ModelFacts."""
    if isinstance(config, ModelFacts):
        return (config.architectures[0] if config.architectures else "<facts>"), config, None
    if isinstance(config, Mapping):
        return str(config.get("_name_or_path") or config.get("model_type") or "<mapping>"), dict(config), dict(config)
    if isinstance(config, str):
        from .resolve import resolve_model
        r = resolve_model(config)  # path, Hugging Face cache (offline), or catalog — as `check` does
        return r.name, r.config, r.config
    raise InputError(f"config must be a path, a model id, a mapping or ModelFacts, not {type(config).__name__}",
                     source="<audit>")


@reports_internal_errors
def audit_one(config: Any, tp: int, pcp: int = 1, dcp: int = 1, *, vllm_version: Optional[str] = None,
              kv_cache_dtype: str = "auto", env: Optional[Mapping[str, str]] = None,
              host: Optional[Host] = None, name: Optional[str] = None,
              trust_remote_code: bool = False, capacity: Optional[Mapping[str, Any]] = None) -> ModelAudit:
    """One model's audit; ``capacity``: keyword arguments of :func:`kvguard.capacity.predict_capacity`
    (``max_model_len``, a KV memory figure, ``block_size``, ``pp``) to add the capacity section."""
    result = _audit_one(config, tp, pcp, dcp, vllm_version=vllm_version, kv_cache_dtype=kv_cache_dtype, env=env,
                        host=host, name=name, trust_remote_code=trust_remote_code)
    if capacity is None:
        return result
    from dataclasses import replace

    from .capacity import CapacityNotModelledResult, predict_capacity
    from .errors import CapacityNotModelled
    try:
        cap = predict_capacity(config, tp=tp, pcp=pcp, dcp=dcp, vllm_version=result.vllm_version,
                               kv_cache_dtype=kv_cache_dtype, env=env, trust_remote_code=trust_remote_code,
                               dcp_sizes=result.legal_dcp_sizes, **capacity)
        if not result.dcp_legal:
            cap = replace(cap, notes=cap.notes + (f"vLLM refuses -dcp {dcp} at this layout: the figures are what "
                                                  "its accounting would give",))
    except CapacityNotModelled as exc:
        cap = CapacityNotModelledResult(str(exc))
    return replace(result, capacity=cap)


def _audit_one(config: Any, tp: int, pcp: int = 1, dcp: int = 1, *, vllm_version: Optional[str] = None,
               kv_cache_dtype: str = "auto", env: Optional[Mapping[str, str]] = None,
               host: Optional[Host] = None, name: Optional[str] = None,
               trust_remote_code: bool = False) -> ModelAudit:
    from .api import legal_dcp_sizes, model_facts
    from .versions import resolve

    for key, value in (("tp", tp), ("pcp", pcp), ("dcp", dcp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError("must be a positive integer", source="<audit>", key=key)
    release = resolve(vllm_version)
    label, cfg, raw = resolve_config(config)
    if isinstance(cfg, ModelFacts):
        facts = cfg
    else:
        facts = model_facts(cfg, vllm_version=release.key, env=env, trust_remote_code=trust_remote_code)
    dtype_name, b = kv_cache_dtype_bytes(kv_cache_dtype, model_dtype=config_dtype(raw), vllm_version=release.key)
    notes = []
    if kv_cache_dtype == "auto" and config_dtype(raw) in (None, "float32", "float"):
        notes.append("config dtype float32/unknown: --dtype auto sized as bfloat16 (a bf16-capable CUDA GPU)")
    if raw is not None and any(k in raw or k in (raw.get("text_config") or {}) for k in _HYBRID_HINTS):
        notes.append("layers differ (sliding window / chunked / hybrid): every layer is sized as full attention, "
                     "an upper bound")
    extra: dict[str, Any] = {}
    g = host.gpus_per_node if host is not None else None
    if g and tp * pcp > g and (tp * pcp) % g == 0 and release.within("0.11.1"):
        # a replica wider than a node launches over several nodes (mp backend, --nnodes)
        extra["nnodes"] = tp * pcp // g
        notes.append(f"-tp {tp} -pcp {pcp} spans {extra['nnodes']} nodes of {g} GPUs: legal -dcp sizes checked "
                     f"with --nnodes {extra['nnodes']}")
    if trust_remote_code:
        extra["trust_remote_code"] = True
    legal = tuple(legal_dcp_sizes(facts, tp, pcp, vllm_version=release.key, env=env, host=host, **extra))
    mla = facts.use_mla
    if mla is None or facts.total_num_kv_heads is None or not facts.head_size or not facts.num_hidden_layers:
        notes.append("no attention KV cache facts (attention-free model, or facts vLLM does not derive)")
        return ModelAudit(name or label, release.key, tp, pcp, dcp, mla, facts.total_num_kv_heads, None, None,
                          facts.head_size, facts.num_hidden_layers, None, None, legal, dcp in legal,
                          kv_cache_dtype, dtype_name, b, kv_token_shards(release.key, dcp, pcp), None, None, None,
                          None, None, tuple(notes))
    dup = facts.duplication_factor(tp)
    heads = facts.num_kv_heads(tp)
    per_layer = kv_bytes_per_token_per_layer(heads, facts.head_size, b, mla=bool(mla))
    full = facts.kv_bytes_per_token(tp, dtype_bytes=b)          # all layers, one rank, no DCP
    shards = kv_token_shards(release.key, dcp, pcp)
    per_rank = full / shards
    layers = facts.num_hidden_layers
    if mla:
        unique = full
    else:
        unique = kv_bytes_per_token_per_layer(facts.total_num_kv_heads, facts.head_size, b, mla=False) * layers
    stored = per_rank * tp * pcp
    return ModelAudit(
        model=name or label, vllm_version=release.key, tp=tp, pcp=pcp, dcp=dcp, use_mla=mla,
        total_num_kv_heads=facts.total_num_kv_heads, cache_kv_heads=facts.cache_kv_heads,
        num_kv_heads_per_rank=heads, head_size=facts.head_size, num_layers=layers,
        duplication_factor=dup, residual_duplication=_num(stored / unique), legal_dcp_sizes=legal,
        dcp_legal=dcp in legal, kv_cache_dtype=kv_cache_dtype, kv_cache_dtype_resolved=dtype_name,
        dtype_bytes=b, kv_token_shards=shards, kv_bytes_per_token_per_layer_per_rank=_num(per_layer / shards),
        kv_bytes_per_token_per_rank=_num(per_rank), kv_bytes_per_token_unique=unique,
        kv_bytes_per_token_stored=_num(stored), duplication_waste_bytes_per_token=_num(max(0.0, stored - unique)),
        notes=tuple(notes))


@reports_internal_errors
def audit(configs: "Any | Sequence[Any]", tp: int, pcp: int = 1, dcp: int = 1, *,
          vllm_version: Optional[str] = None, kv_cache_dtype: str = "auto",
          env: Optional[Mapping[str, str]] = None, host: Optional[Host] = None,
          trust_remote_code: bool = False, max_model_len: Optional[int] = None,
          kv_memory_gib: Optional[float] = None, available_kv_bytes: Optional[int] = None,
          block_size: Optional[int] = None, pp: Optional[int] = None, speculative_config: Any = None,
          draft_config: Any = None) -> AuditReport:
    """KV-cache economics of one or more models at ``-tp tp -pcp pcp -dcp dcp``.

    ``configs``: a path to config.json or its directory, a catalog model id, a
    parsed mapping or :class:`ModelFacts` — or a list of them.  ``dcp`` need not
    be legal (``dcp_legal`` says whether vLLM accepts it; ``legal_dcp_sizes``
    lists the sizes it does, with ``host`` deciding host-dependent checks as in
    :func:`kvguard.legal_dcp_sizes`).

    With ``max_model_len`` and the KV memory of one GPU (``kv_memory_gib``, the
    "Available KV cache memory" vLLM logs, or ``available_kv_bytes``) each model
    also gets ``capacity``: vLLM's "GPU KV cache size" / "Maximum concurrency"
    (:func:`kvguard.capacity.predict_capacity`, at ``pp`` and ``block_size``) and
    the same at every legal ``-dcp`` size — or why kvguard does not model it.

    With ``speculative_config`` (``--speculative-config`` as a mapping; the draft found as
    :func:`kvguard.check` finds it, or read from ``draft_config``) each model's notes also say what the
    draft refuses: at this ``-tp``, and with pipeline parallelism.
    """
    from .versions import resolve

    items = list(configs) if isinstance(configs, (list, tuple)) else [configs]
    release = resolve(vllm_version)
    capacity = _capacity_args(max_model_len, kv_memory_gib, available_kv_bytes, block_size, pp)
    models = tuple(audit_one(c, tp, pcp, dcp, vllm_version=release.key, kv_cache_dtype=kv_cache_dtype, env=env,
                             host=host, trust_remote_code=trust_remote_code, capacity=capacity) for c in items)
    if speculative_config is not None:
        models = tuple(_with_draft_notes(m, c, speculative_config, draft_config, release, tp, pcp, dcp, env, host,
                                         trust_remote_code) for m, c in zip(models, items))
    return AuditReport(models, vllm_version=release.key)


def _with_draft_notes(model: "ModelAudit", config: Any, speculative_config: Any, draft_config: Any, release,
                      tp: int, pcp: int, dcp: int, env, host, trust_remote_code: bool) -> "ModelAudit":
    from dataclasses import replace

    from .api import env_as_strings, model_facts, speculative_input
    from .speculative.report import draft_constraints

    label, cfg, raw = resolve_config(config)
    facts = cfg if isinstance(cfg, ModelFacts) else model_facts(cfg, vllm_version=release.key, env=env,
                                                                trust_remote_code=trust_remote_code)
    spec = speculative_input(speculative_config, raw if raw is not None else cfg, model_path=label,
                             draft_config=draft_config, trust_remote_code=trust_remote_code)
    lines = draft_constraints(facts, spec, release, tp, env=env_as_strings(env), host=host or Host(), pcp=pcp,
                              dcp=dcp)
    return replace(model, notes=model.notes + tuple(lines))


def _capacity_args(max_model_len, kv_memory_gib, available_kv_bytes, block_size, pp) -> Optional[dict]:
    memory = kv_memory_gib is not None or available_kv_bytes is not None
    if not memory and max_model_len is None:
        if block_size is not None or pp is not None:
            raise InputError("block size and -pp apply to the capacity prediction: also give the KV memory "
                             "(--kv-memory-gib) and --max-model-len", source="<audit>", key="kv_memory_gib")
        return None
    if not memory or max_model_len is None:
        raise InputError("the capacity prediction needs both the KV memory per GPU (--kv-memory-gib) and "
                         "--max-model-len", source="<audit>", key="kv_memory_gib" if not memory else "max_model_len")
    out: dict[str, Any] = {"max_model_len": max_model_len, "block_size": block_size, "pp": 1 if pp is None else pp}
    if kv_memory_gib is not None:
        out["kv_memory_gib"] = kv_memory_gib
    if available_kv_bytes is not None:
        out["available_kv_bytes"] = available_kv_bytes
    return out


def _fmt_bytes(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    if float(x).is_integer():
        return f"{int(x):,} B"
    return f"{x:,.2f} B"


def render_audit_text(report: AuditReport) -> str:
    lines = []
    for m in report.models:
        lines.append(f"{m.model}  (vLLM {m.vllm_version}, -tp {m.tp} -pcp {m.pcp} -dcp {m.dcp}, "
                     f"kv-cache-dtype {m.kv_cache_dtype} = {m.kv_cache_dtype_resolved}, {m.dtype_bytes} B)")
        if m.duplication_factor is None:
            lines.append("  no KV cache facts")
        else:
            kind = "MLA (one latent head)" if m.use_mla else "GQA/MHA"
            lines.append(f"  {kind}: total KV heads {m.total_num_kv_heads}, H governing the cache {m.cache_kv_heads}, "
                         f"{m.num_kv_heads_per_rank} per rank, head size {m.head_size}, layers {m.num_layers}")
            lines.append(f"  duplication factor {m.duplication_factor}, after -dcp {m.dcp}: {m.residual_duplication:g}"
                         + ("" if m.dcp_legal else "  (vLLM refuses this layout at every -dcp)" if not m.legal_dcp_sizes
                            else f"  (vLLM refuses -dcp {m.dcp} at this layout)"))
            lines.append(f"  legal -dcp sizes: {list(m.legal_dcp_sizes)}")
            lines.append(f"  KV bytes/token/rank: {_fmt_bytes(m.kv_bytes_per_token_per_rank)} "
                         f"({_fmt_bytes(m.kv_bytes_per_token_per_layer_per_rank)} per layer)")
            lines.append(f"  per token across the {m.tp * m.pcp} ranks of a replica: stored {_fmt_bytes(m.kv_bytes_per_token_stored)}, "
                         f"one copy {_fmt_bytes(m.kv_bytes_per_token_unique)}, duplication wastes "
                         f"{_fmt_bytes(m.duplication_waste_bytes_per_token)}")
        for n in m.notes:
            lines.append(f"  note: {n}")
        if m.capacity is not None:
            from .capacity import render_capacity_text
            lines.extend(render_capacity_text(m.capacity))
    return "\n".join(lines)


def render_audit_json(report: AuditReport) -> str:
    import json
    return json.dumps(report.to_dict(), indent=2)
