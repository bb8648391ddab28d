"""KV-cache economics: what TP duplication costs.

:func:`audit` reports, per model and layout, the KV heads that govern the
cache, the duplication factor ``max(1, tp // H)`` and what is left of it after
decode context parallelism, the legal ``-dcp`` sizes, the per-rank KV bytes per
token (sized by :mod:`kvguard.kv.kvsize`, as vLLM's KV cache spec classes size
them) and the bytes the duplication wastes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence, cast

from ..errors import InputError, reports_internal_errors
from ..facts import ModelFacts
from ..launch.layout import Host
from .kvsize import (
    cache_layers,
    config_dtype,
    kv_bytes_per_token_per_layer,
    kv_cache_dtype_bytes,
    kv_token_shards,
    reported_number,
)

__all__ = ["AuditReport", "ModelAudit", "audit"]

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
    #: vLLM's "GPU KV cache size" / "Maximum concurrency" (kvguard.kv.capacity.CapacityPrediction), or
    #: CapacityNotModelledResult; None when no KV memory was given
    capacity: Any = None
    #: the maximum length ModelConfig derives without --max-model-len (kvguard.length), the derived value as
    #: vLLM holds and prints it (``40960.0``) and the config key it comes from; None when kvguard cannot tell
    max_model_len: Optional[int] = None
    max_model_len_derived: Any = None
    max_model_len_key: Optional[str] = None
    #: the tensor-parallel sizes the checkpoint's layers forbid at model construction, and why
    #: (kvguard.quant.quant_audit); None for an unquantized model without such refusals
    quantization: Optional[dict] = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["legal_dcp_sizes"] = list(self.legal_dcp_sizes)
        out["notes"] = list(self.notes)
        if self.capacity is None:
            out.pop("capacity")
        else:
            out["capacity"] = self.capacity.to_dict()
        if self.quantization is None:
            out.pop("quantization")
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


@reports_internal_errors
def audit_one(config: Any, tp: int, pcp: int = 1, dcp: int = 1, *, vllm_version: Optional[str] = None,
              kv_cache_dtype: str = "auto", env: Optional[Mapping[str, str]] = None,
              host: Optional[Host] = None, name: Optional[str] = None,
              trust_remote_code: bool = False, capacity: Optional[Mapping[str, Any]] = None,
              disable_sliding_window: bool = False) -> ModelAudit:
    """One model's audit; ``capacity``: keyword arguments of :func:`kvguard.kv.capacity.predict_capacity`
    (``max_model_len``, a KV memory figure, ``block_size``, ``pp``) to add the capacity section;
    ``disable_sliding_window``: ``--disable-sliding-window`` (the derived length is capped at the window)."""
    from dataclasses import replace

    result = _audit_one(config, tp, pcp, dcp, vllm_version=vllm_version, kv_cache_dtype=kv_cache_dtype, env=env,
                        host=host, name=name, trust_remote_code=trust_remote_code)
    result = replace(result, **_derived_length(config, result.vllm_version, env, trust_remote_code,
                                               disable_sliding_window))
    quant = _quant_section(config, result.vllm_version, env, host, trust_remote_code)
    if quant is not None:
        result = replace(result, quantization=quant)
    if capacity is None:
        return result
    from ..errors import CapacityNotModelled
    from .capacity import CapacityNotModelledResult, predict_capacity

    capacity = dict(capacity)
    length_notes: tuple[str, ...] = ()
    if capacity.get("max_model_len") is None:
        # as vLLM does: without --max-model-len, the derived maximum
        if result.max_model_len is None:
            return replace(result, capacity=CapacityNotModelledResult(
                f"{result.model}: kvguard cannot tell the maximum length vLLM derives for it: pass --max-model-len"))
        capacity["max_model_len"] = result.max_model_len
        length_notes = (f"max model len {result.max_model_len:,}: the derived maximum "
                        f"({result.max_model_len_key}={result.max_model_len_derived}), as vLLM uses it without "
                        "--max-model-len",)
    else:
        length_notes = _length_refusal(config, result.vllm_version, env, trust_remote_code, capacity["max_model_len"])
    try:
        cap = predict_capacity(config, tp=tp, pcp=pcp, dcp=dcp, vllm_version=result.vllm_version,
                               kv_cache_dtype=kv_cache_dtype, env=env, trust_remote_code=trust_remote_code,
                               dcp_sizes=result.legal_dcp_sizes, disable_sliding_window=disable_sliding_window,
                               **capacity)
        if not result.dcp_legal:
            cap = replace(cap, notes=cap.notes + (f"vLLM refuses -dcp {dcp} at this layout: the figures are what "
                                                  "its accounting would give",))
        if length_notes:
            cap = replace(cap, notes=cap.notes + length_notes)
    except CapacityNotModelled as exc:
        cap = CapacityNotModelledResult(str(exc))
    return replace(result, capacity=cap)


def _derived_length(config: Any, vllm_version: str, env: Optional[Mapping[str, str]],
                    trust_remote_code: bool, disable_sliding_window: bool = False) -> dict[str, Any]:
    """ModelAudit's maximum-length fields: the length ModelConfig derives (kvguard.length)."""
    from ..errors import KvguardError
    from ..length import default_length, find_sidecar
    from ..rules.check import model_facts, resolve_config
    from ..versions import resolve

    _label, cfg, _raw, _path = resolve_config(config)
    try:
        facts = cfg if isinstance(cfg, ModelFacts) else model_facts(cfg, vllm_version=vllm_version, env=env,
                                                                            trust_remote_code=trust_remote_code)
    except KvguardError:
        return {}
    derived = default_length(facts, resolve(vllm_version), env=env, disable_sliding_window=disable_sliding_window,
                             sidecar=find_sidecar(config if isinstance(config, str) else None, None, None))
    if derived is None:
        return {}
    return {"max_model_len": derived.default, "max_model_len_derived": derived.value,
            "max_model_len_key": derived.key}


def _length_refusal(config: Any, vllm_version: str, env: Optional[Mapping[str, str]], trust_remote_code: bool,
                    max_model_len: int) -> tuple[str, ...]:
    """A note when ModelConfig refuses ``max_model_len`` for this model (the capacity is then what vLLM's
    accounting would give, not what it starts with)."""
    from ..errors import KvguardError
    from ..rules.check import check, resolve_config

    _label, cfg, _raw, _path = resolve_config(config)
    try:
        verdict = check(cfg, vllm_version=vllm_version, env=env, max_model_len=max_model_len,
                        trust_remote_code=trust_remote_code)
    except KvguardError:
        return ()
    if verdict.ok or verdict.stage != "model_config":
        return ()
    return (f"vLLM {vllm_version} refuses --max-model-len {max_model_len} for this model ({verdict.check}: "
            f"{verdict.exc_type}): the figures are what its accounting would give",)


def _quant_section(config: Any, vllm_version: str, env, host: Optional[Host], trust_remote_code: bool) -> Optional[dict]:
    """kvguard.quant.quant_audit for the model; the FP8 MoE kernel host fact from ``host`` (None: the
    default host, H100-class with Triton, reported as an assumption)."""
    from ..quant import quant_audit
    from ..rules.check import model_facts, resolve_config
    from ..versions import resolve

    release = resolve(vllm_version)
    _, cfg, _, _ = resolve_config(config)
    facts = cfg if isinstance(cfg, ModelFacts) else model_facts(cfg, vllm_version=release.key, env=env,
                                                                trust_remote_code=trust_remote_code)
    refined: Optional[bool] = True
    if host is not None and host.gpu_capability is not None and "gpu_capability" not in host.assumed:
        refined = host.gpu_capability == 90 and bool(host.triton)
    return quant_audit(facts, release, refined_fp8_moe_kernel=refined)


def _audit_one(config: Any, tp: int, pcp: int = 1, dcp: int = 1, *, vllm_version: Optional[str] = None,
               kv_cache_dtype: str = "auto", env: Optional[Mapping[str, str]] = None,
               host: Optional[Host] = None, name: Optional[str] = None,
               trust_remote_code: bool = False) -> ModelAudit:
    from ..rules.check import legal_dcp_sizes, model_facts, resolve_config
    from ..versions import resolve

    for key, value in (("tp", tp), ("pcp", pcp), ("dcp", dcp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError("must be a positive integer", source="<audit>", key=key)
    release = resolve(vllm_version)
    label, cfg, raw, model_path = resolve_config(config)
    if isinstance(cfg, ModelFacts):
        facts = cfg
    else:
        facts = model_facts(cfg, vllm_version=release.key, env=env, trust_remote_code=trust_remote_code,
                            model_path=model_path)
    from ..quant.kv_cache import effective

    sized, named = effective(kv_cache_dtype, facts.resolved_top or {}, release)
    dtype_name, b = kv_cache_dtype_bytes(sized, model_dtype=config_dtype(raw), vllm_version=release.key)
    notes = [named] if named else []
    if sized == "auto" and config_dtype(raw) in (None, "float32", "float"):
        notes.append("config dtype float32/unknown: --dtype auto sized as bfloat16 (a bf16-capable CUDA GPU)")
    from .sliding import sliding_split

    # the layers vLLM builds with a sliding window (known for the architectures of kvguard.kv.sliding)
    split = sliding_split(facts, release, raw) if facts.total_num_kv_heads and facts.head_size else None
    if split is not None and split.sliding and not facts.use_mla:
        layer_bytes = kv_bytes_per_token_per_layer(facts.num_kv_heads(tp), cast(int, facts.head_size), b, mla=False)
        notes.append("sliding-window layers: every layer is sized as full attention (approximate: vLLM reserves less for "
                     "long sequences); "
                     + split.describe(layer_bytes if kv_token_shards(release.key, dcp, pcp) == 1 else None))
    elif split is None and raw is not None and any(k in raw or k in (raw.get("text_config") or {})
                                                   for k in _HYBRID_HINTS):
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
        return ModelAudit(
            model=name or label, vllm_version=release.key, tp=tp, pcp=pcp, dcp=dcp, use_mla=mla,
            total_num_kv_heads=facts.total_num_kv_heads, cache_kv_heads=None, num_kv_heads_per_rank=None,
            head_size=facts.head_size, num_layers=facts.num_hidden_layers, duplication_factor=None,
            residual_duplication=None, legal_dcp_sizes=legal, dcp_legal=dcp in legal, kv_cache_dtype=kv_cache_dtype,
            kv_cache_dtype_resolved=dtype_name, dtype_bytes=b, kv_bytes_per_token_per_layer_per_rank=None,
            kv_token_shards=kv_token_shards(release.key, dcp, pcp), kv_bytes_per_token_per_rank=None,
            kv_bytes_per_token_unique=None, kv_bytes_per_token_stored=None, duplication_waste_bytes_per_token=None,
            notes=tuple(notes))
    dup = facts.duplication_factor(tp)
    heads = facts.num_kv_heads(tp)
    per_layer: Optional[int] = kv_bytes_per_token_per_layer(heads, facts.head_size, b, mla=bool(mla))
    # numbers here: a model without them returned above
    full = cast(int, facts.kv_bytes_per_token(tp, dtype_bytes=b))          # all layers, one rank, no DCP
    shards = kv_token_shards(release.key, dcp, pcp)
    layers = facts.num_hidden_layers
    if mla:
        unique = full
    else:
        unique = kv_bytes_per_token_per_layer(facts.total_num_kv_heads, facts.head_size, b, mla=False) * layers
    layer_kv, unmodelled = cache_layers(facts, release)
    if layer_kv is not None:
        # each layer's own KV heads and head size (vLLM sizes every attention layer from model_arch_config[i]);
        # layers sharing another's cache hold none
        full = sum(kv_bytes_per_token_per_layer(max(1, kv // tp), size, b, mla=False) for kv, size in layer_kv)
        unique = sum(kv_bytes_per_token_per_layer(kv, size, b, mla=False) for kv, size in layer_kv)
        per_layer = None
        notes.append(_layer_groups_note(layer_kv, layers, tp, b, shards))
    elif unmodelled:
        notes.append(unmodelled)
    per_rank = full / shards
    stored = per_rank * tp * pcp
    return ModelAudit(
        model=name or label, vllm_version=release.key, tp=tp, pcp=pcp, dcp=dcp, use_mla=mla,
        total_num_kv_heads=facts.total_num_kv_heads, cache_kv_heads=facts.cache_kv_heads,
        num_kv_heads_per_rank=heads, head_size=facts.head_size, num_layers=layers,
        duplication_factor=dup, residual_duplication=reported_number(stored / unique), legal_dcp_sizes=legal,
        dcp_legal=dcp in legal, kv_cache_dtype=kv_cache_dtype, kv_cache_dtype_resolved=dtype_name,
        dtype_bytes=b, kv_token_shards=shards,
        kv_bytes_per_token_per_layer_per_rank=None if per_layer is None else reported_number(per_layer / shards),
        kv_bytes_per_token_per_rank=reported_number(per_rank), kv_bytes_per_token_unique=unique,
        kv_bytes_per_token_stored=reported_number(stored), duplication_waste_bytes_per_token=reported_number(max(0.0, stored - unique)),
        notes=tuple(notes))


@reports_internal_errors
def audit(configs: "Any | Sequence[Any]", tp: int, pcp: int = 1, dcp: int = 1, *,
          vllm_version: Optional[str] = None, kv_cache_dtype: str = "auto",
          env: Optional[Mapping[str, str]] = None, host: Optional[Host] = None,
          trust_remote_code: bool = False, max_model_len: Optional[int] = None,
          kv_memory_gib: Optional[float] = None, available_kv_bytes: Optional[int] = None,
          block_size: Optional[int] = None, pp: Optional[int] = None, speculative_config: Any = None,
          draft_config: Any = None, max_num_batched_tokens: Optional[int] = None,
          async_scheduling: Optional[bool] = None, disable_sliding_window: bool = False,
          disable_hybrid_kv_cache_manager: bool = False) -> AuditReport:
    """KV-cache economics of one or more models at ``-tp tp -pcp pcp -dcp dcp``.

    ``configs``: a path to config.json or its directory, a catalog model id, a
    parsed mapping or :class:`ModelFacts` — or a list of them.  ``dcp`` need not
    be legal (``dcp_legal`` says whether vLLM accepts it; ``legal_dcp_sizes``
    lists the sizes it does, with ``host`` deciding host-dependent checks as in
    :func:`kvguard.legal_dcp_sizes`).

    Each model carries the maximum length vLLM derives for it (``max_model_len``).  With the KV
    memory of one GPU (``kv_memory_gib``, the "Available KV cache memory" vLLM logs, or
    ``available_kv_bytes``) and ``max_model_len`` (default: each model's derived maximum, as vLLM)
    each model also gets ``capacity``: vLLM's "GPU KV cache size" / "Maximum concurrency"
    (:func:`kvguard.kv.capacity.predict_capacity`, at ``pp`` and ``block_size``) and
    the same at every legal ``-dcp`` size — or why kvguard does not model it.  Models with
    sliding-window layers also read ``max_num_batched_tokens``, ``async_scheduling`` and
    ``disable_sliding_window`` (``--disable-sliding-window``; it also caps the derived length) and
    ``disable_hybrid_kv_cache_manager`` (``--disable-hybrid-kv-cache-manager``: sliding-window layers beside
    full-attention layers are then sized as full attention).

    With ``speculative_config`` (``--speculative-config`` as a mapping; the draft found as
    :func:`kvguard.check` finds it, or read from ``draft_config``) each model's notes also say what the
    draft refuses: at this ``-tp``, and with pipeline parallelism.
    """
    from ..versions import resolve

    items = list(configs) if isinstance(configs, (list, tuple)) else [configs]
    release = resolve(vllm_version)
    capacity = _capacity_args(max_model_len, kv_memory_gib, available_kv_bytes, block_size, pp)
    if capacity is not None:
        capacity.update(max_num_batched_tokens=max_num_batched_tokens, async_scheduling=async_scheduling,
                        disable_hybrid_kv_cache_manager=disable_hybrid_kv_cache_manager)
    models = tuple(audit_one(c, tp, pcp, dcp, vllm_version=release.key, kv_cache_dtype=kv_cache_dtype, env=env,
                             host=host, trust_remote_code=trust_remote_code, capacity=capacity,
                             disable_sliding_window=disable_sliding_window) for c in items)
    if speculative_config is not None:
        models = tuple(_with_draft_notes(m, c, speculative_config, draft_config, release, tp, pcp, dcp, env, host,
                                         trust_remote_code) for m, c in zip(models, items))
    return AuditReport(models, vllm_version=release.key)


def _with_draft_notes(model: "ModelAudit", config: Any, speculative_config: Any, draft_config: Any, release,
                      tp: int, pcp: int, dcp: int, env, host, trust_remote_code: bool) -> "ModelAudit":
    from dataclasses import replace

    from ..rules.check import env_as_strings, model_facts, resolve_config, speculative_input
    from ..speculative.report import draft_constraints

    label, cfg, raw, model_path = resolve_config(config)
    facts = cfg if isinstance(cfg, ModelFacts) else model_facts(cfg, vllm_version=release.key, env=env,
                                                                trust_remote_code=trust_remote_code,
                                                                model_path=model_path)
    spec = speculative_input(speculative_config, raw if raw is not None else cfg, model_path=model_path or label,
                             draft_config=draft_config, trust_remote_code=trust_remote_code)
    lines = draft_constraints(facts, spec, release, tp, env=env_as_strings(env), host=host or Host(), pcp=pcp,
                              dcp=dcp)
    return replace(model, notes=model.notes + tuple(lines))


def _capacity_args(max_model_len, kv_memory_gib, available_kv_bytes, block_size, pp) -> Optional[dict]:
    memory = kv_memory_gib is not None or available_kv_bytes is not None
    if not memory and max_model_len is None:
        if block_size is not None or pp is not None:
            raise InputError("block size and -pp apply to the capacity prediction: also give the KV memory "
                             "(--kv-memory-gib)", source="<audit>", key="kv_memory_gib")
        return None
    if not memory:
        raise InputError("the capacity prediction needs the KV memory per GPU (--kv-memory-gib); without "
                         "--max-model-len it uses the derived maximum length, as vLLM does",
                         source="<audit>", key="kv_memory_gib")
    out: dict[str, Any] = {"max_model_len": max_model_len, "block_size": block_size, "pp": 1 if pp is None else pp}
    if kv_memory_gib is not None:
        out["kv_memory_gib"] = kv_memory_gib
    if available_kv_bytes is not None:
        out["available_kv_bytes"] = available_kv_bytes
    return out


def _layer_groups_note(layer_kv: Sequence[tuple[int, int]], layers: int, tp: int, dtype_bytes: int, shards: int) -> str:
    """The layers of a heterogeneous config grouped by (KV heads, head size): their bytes per token per rank and
    the duplication factor each group has at this tp."""
    groups: dict[tuple[int, int], int] = {}
    for kv, size in layer_kv:
        groups[(kv, size)] = groups.get((kv, size), 0) + 1
    parts = []
    for (kv, size), count in groups.items():
        per_rank = kv_bytes_per_token_per_layer(max(1, kv // tp), size, dtype_bytes, mla=False) / shards
        shown = f"{per_rank:,.0f}" if float(per_rank).is_integer() else f"{per_rank:,.2f}"
        parts.append(f"{count} of {layers} layers with {kv} KV heads of size {size}: {shown} B per layer, "
                     f"duplication factor {max(1, tp // kv)}")
    shared = layers - len(layer_kv)
    return ("KV bytes summed layer by layer: " + "; ".join(parts)
            + (f"; {shared} of {layers} layers reuse another layer's KV cache (none of their own)" if shared else ""))
