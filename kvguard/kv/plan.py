"""Layout planning: every parallel layout of N GPUs that vLLM accepts, ranked by KV capacity.

:func:`plan` enumerates ``tp * pp * dp * pcp == gpus`` (all GPUs used: a
plan for fewer GPUs is ``plan(..., gpus=M)``), every ``-dcp`` that can pass
(divisors of tp, and pcp / tp*pcp with PCP — the only sizes vLLM's checks can
accept) and, for MoE models, expert parallelism on and off.  Each candidate is
checked with the release's launch checks on a host of ``gpus_per_node`` CUDA
GPUs (multi-node layouts launch with ``--nnodes gpus // gpus_per_node``, one
command per node with its ``--node-rank``; ``--nnodes`` exists from 0.11.1).

Ranking: **KV tokens per GPU per GiB** — with 1 GiB of KV-cache memory on
every GPU, how many tokens the deployment stores, divided by the GPU count:
``2**30 / (kv_bytes_per_token_per_rank * tp * pp * pcp)``.  The per-rank bytes
are those of the pipeline stage with the most layers (``ceil(layers / pp)``;
vLLM sizes every worker's cache to the smallest block count), tokens divided
over the ranks that shard them (dcp; times pcp in 0.12.0–0.25.1).

Sliding-window models (the layers :mod:`kvguard.kv.sliding` finds, gpt-oss, Gemma 2/3, …): at ``-pp 1``
without ``-dcp``/``-pcp`` and with a length (given or derived), the per-rank bytes are those of one
max-length sequence as :func:`kvguard.kv.capacity.kv_capacity_sliding` sizes it (audit's accounting with
the ``vllm serve`` defaults: block size 16, ``max_num_batched_tokens`` 8192, async scheduling, the hybrid
KV-cache manager on) divided by its length — ``kv_sizing`` "sliding"; elsewhere (``-pp``/``-dcp``/``-pcp``
above 1, no length, a release whose sliding rules were not read) every layer counts as full attention —
``kv_sizing`` "all_full_attention", printed with ``~``: approximate, not a bound (more than vLLM reserves for
sequences longer than a window plus the tokens in flight; less for shorter ones, where a sliding-window layer
holds a block more, or where pipeline stages pad their KV-cache groups); such rows may rank differently than
vLLM would size them.  Weight
memory is not modelled: layouts whose replicas are too small to hold the
weights rank high; ``min_replica_gpus`` filters them.  Ties: fewer
cross-node groups first, then more tokens per replica (the longest sequence
a replica can hold), then expert parallelism off, then smaller tp, pcp, dcp, pp.

Cross-node flags assume vLLM's rank order (tp innermost, then pcp, then pp,
dp outermost) and nodes of ``gpus_per_node`` consecutive ranks: a group whose
rank block is larger than a node, or does not tile it, spans nodes.  Blocks:
TP ``tp``; DCP ``dcp`` (a sub-group of TP), or ``tp * pcp`` when it spans the
PCP axis; PCP ``tp * pcp``; PP ``tp * pcp * pp``; the expert-parallel group
(TP x PCP x DP of one stage) every rank when ``dp > 1``, else ``tp * pcp``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence, cast

from ..errors import InputError, reports_internal_errors
from ..launch.layout import Host
from ..rules.check import divisors
from .capacity import pp_partitions
from .kvsize import cache_layers, reported_number

__all__ = ["PlanEntry", "PlanReport", "plan"]

GIB = 1 << 30

#: the largest GPU count :func:`plan` enumerates: the work grows with the number of divisor
#: triples of the count (65,520 GPUs: ~30,000 layouts, half a second); far past any deployment
MAX_PLAN_GPUS = 1 << 16



def _spans(block: int, total: int, g: int) -> bool:
    """Does some group occupying ``block`` consecutive ranks cross a node boundary?"""
    if block <= 1 or total <= g:
        return False
    return block > g or g % block != 0


@dataclass(frozen=True)
class PlanEntry:
    tp: int
    pp: int
    dp: int
    pcp: int
    dcp: int
    expert_parallel: bool
    nnodes: int
    replica_gpus: int
    duplication_factor: int
    #: copies of each cached byte within a replica after DCP (and PCP where it shards)
    residual_duplication: float
    kv_token_shards: int
    stage_layers: int
    kv_bytes_per_token_per_rank: float
    #: the ranking key: tokens stored per GPU per GiB of KV memory per GPU
    kv_tokens_per_gpu_per_gib: float
    #: tokens one replica stores per GiB of KV memory on each of its GPUs
    kv_tokens_per_replica_per_gib: float
    #: with max_model_len: GiB of KV memory each GPU needs for one full-length sequence
    kv_gib_per_gpu_for_max_len: Optional[float]
    tp_cross_node: bool
    dcp_cross_node: bool
    pcp_cross_node: bool
    pp_cross_node: bool
    ep_cross_node: bool
    flags: tuple[str, ...]
    command: str
    #: how the KV bytes were sized: "full" (one full-attention / MLA group, or each layer's own size),
    #: "sliding" (vLLM's sliding-window accounting for one max-length sequence: the bytes per token are that
    #: sequence's bytes divided by its length), "all_full_attention" (sliding-window layers counted as full attention
    #: where kvguard does not model them: -pp, -dcp or -pcp above 1, or no length)
    kv_sizing: str = "full"

    @property
    def cross_node_groups(self) -> int:
        return sum((self.tp_cross_node, self.dcp_cross_node, self.pcp_cross_node, self.pp_cross_node,
                    self.ep_cross_node))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["flags"] = list(self.flags)
        out["cross_node_groups"] = self.cross_node_groups
        return out


@dataclass(frozen=True)
class PlanReport:
    model: str
    vllm_version: str
    gpus: int
    gpus_per_node: int
    kv_cache_dtype: str
    kv_cache_dtype_resolved: str
    max_model_len: Optional[int]
    #: layouts run through the release's checks (after pruning by necessary conditions)
    candidates: int
    accepted: int
    #: refused candidates per check name
    refused_by_check: Mapping[str, int]
    entries: tuple[PlanEntry, ...]
    notes: tuple[str, ...] = ()
    schema: int = 1
    #: the maximum length vLLM derives for the model (kvguard.length; None: kvguard cannot tell) — the
    #: length ``GiB/GPU@len`` uses when no max_model_len is given, as vLLM does
    max_model_len_derived: Optional[int] = None

    def to_dict(self, top: Optional[int] = None) -> dict[str, Any]:
        rows = self.entries if top is None else self.entries[:top]
        return {"schema": self.schema, "model": self.model, "vllm_version": self.vllm_version,
                "gpus": self.gpus, "gpus_per_node": self.gpus_per_node, "kv_cache_dtype": self.kv_cache_dtype,
                "kv_cache_dtype_resolved": self.kv_cache_dtype_resolved, "max_model_len": self.max_model_len,
                "max_model_len_derived": self.max_model_len_derived,
                "candidates": self.candidates, "accepted": self.accepted,
                "refused_by_check": dict(self.refused_by_check), "notes": list(self.notes),
                "layouts": [e.to_dict() for e in rows]}


def _pos_int(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError("must be a positive integer", source="<plan>", key=key)
    return value


def _sliding_request_bytes(release, per_layer: int, windows: list, length: Optional[int],
                           unread: list, pp: int = 1, *, architectures: Sequence[str] = (), is_moe: bool = False,
                           env: Optional[Mapping[str, str]] = None, one_node: bool = True) -> Optional[int]:
    """Bytes one sequence of ``length`` tokens takes on a rank as audit's capacity sizes it
    (:func:`kvguard.kv.capacity.kv_capacity_sliding` with the `vllm serve` defaults: block size 16,
    ``max_num_batched_tokens`` 8192 clamped to 1024 sequences, async scheduling, the hybrid KV-cache manager on):
    the blocks of every group times the group size times the page; at -pp > 1 from 0.26.0 with the model runner and
    async scheduling :func:`kvguard.kv.capacity.serve_pp_runner` resolves (``architectures``, ``is_moe``, ``env``).
    None without a length, where the release's sliding-window rules were not read (``unread`` gets the reason
    once), or at -pp > 1 from 0.26.0 when the replica spans nodes (not ``one_node``: the executor decides async
    scheduling)."""
    from ..errors import CapacityNotModelled
    from .capacity import (
        default_block_size,
        kv_capacity_sliding,
        kv_capacity_sliding_pp,
        serve_max_num_batched_tokens,
        serve_pp_runner,
    )

    if length is None or unread:
        return None
    runner: dict[str, Any] = {}
    if pp > 1 and release.within("0.26.0"):
        if not one_node:
            return None     # across nodes the executor decides async scheduling (predict_capacity says why)
        try:
            v2, async_on, _ = serve_pp_runner(release.key, architectures=architectures, is_moe=is_moe, pp=pp, env=env)
        except CapacityNotModelled as exc:
            unread.append(str(exc))
            return None
        runner = {"v2_model_runner": v2, "async_scheduling": async_on}
    args: dict[str, Any] = {"bytes_per_token_per_layer": per_layer, "layer_windows": windows,
            "block_size": default_block_size(False),
            "available_kv_bytes": 1 << 40, "max_model_len": length,
            "max_num_batched_tokens": serve_max_num_batched_tokens(length)}
    try:
        if pp == 1:
            out = kv_capacity_sliding(release.key, **args)
            return out["blocks_per_request"] * out["group_size"] * out["page_size_bytes"]
        out = kv_capacity_sliding_pp(release.key, pp=pp, **args, **runner)
    except CapacityNotModelled as exc:
        unread.append(str(exc))
        return None
    if not out["fits"]:
        return None     # 0.10.2's assert on stages grouped differently
    # the stage with the most pools governs (its blocks are the fewest)
    return out["blocks_per_request"] * max(out["pools_per_stage"]) * out["page_size_bytes"]


def _sliding_note(windows: list, length: Optional[int], unread: list, sized: bool, bounded: bool) -> str:
    from .sliding import SlidingSplit

    slide = [w for w in windows if w is not None]
    text = SlidingSplit(len(windows), len(slide), tuple(sorted(set(slide)))).describe() + ": "
    if sized:
        text += (f"the layouts without -dcp/-pcp (and, from 0.26.0, with -pp stages within one node) are sized as "
                 f"vLLM sizes one {length:,}-token sequence on the stage that governs "
                 "(audit's accounting: block size 16, max_num_batched_tokens 8192, async scheduling, the hybrid "
                 "KV-cache manager on; from 0.26.0 at -pp > 1 the model runner and async scheduling a plain "
                 "`vllm serve` resolves, see kvguard.kv.capacity.serve_pp_runner), B/tok/rank being that "
                 "sequence's bytes per token")
    if bounded:
        why = (unread[0] if unread else "no maximum length to size the windows against" if length is None
               else "kvguard does not size sliding-window layers at -dcp or -pcp above 1, nor from 0.26.0 at -pp "
               "above 1 across nodes (the executor decides async scheduling, hence the tokens in flight), nor where "
               "vLLM 0.10.2 asserts on differently grouped stages")
        text += ("; " if sized else "") + (
            f"layouts marked ~ (kv_sizing all_full_attention) count every layer as full attention ({why}): approximate "
            "- more than vLLM reserves for long sequences, less where a sequence is shorter than a window plus the "
            "tokens in flight or pipeline stages pad their KV-cache groups - so they may rank differently than vLLM "
            "would size them")
    return text


@reports_internal_errors
def plan(config: Any, gpus: int, *, gpus_per_node: int = 8, vllm_version: Optional[str] = None,
         max_model_len: Optional[int] = None, kv_cache_dtype: str = "auto",
         env: Optional[Mapping[str, str]] = None, host: Optional[Host] = None,
         min_replica_gpus: int = 1, expert_parallel: bool = True,
         trust_remote_code: bool = False, speculative_config: Any = None, draft_config: Any = None,
         _prune: bool = True) -> PlanReport:
    """Every layout of ``gpus`` GPUs that ``vllm serve`` of ``vllm_version`` accepts for this model,
    best KV capacity per GPU first (see the module docstring for the ranking).

    ``config``: a path, catalog model id, mapping or ModelFacts (as :func:`kvguard.audit`).
    ``host``: defaults to a stated CUDA node of ``gpus_per_node`` GPUs.  ``expert_parallel``:
    also try ``--enable-expert-parallel`` (MoE models only).  ``speculative_config`` (``--speculative-config``
    as a mapping; its draft found as :func:`kvguard.check` finds it, or read from ``draft_config``): only
    layouts the launch's speculative decoding passes too are ranked.
    """
    from .. import archs
    from ..facts import ModelFacts
    from ..launch.layout import Layout
    from ..rules.check import env_as_strings, model_facts, resolve_config
    from ..rules.engine import evaluate
    from ..versions import resolve
    from .kvsize import config_dtype, kv_cache_dtype_bytes, kv_token_shards

    gpus = _pos_int(gpus, "gpus")
    if gpus > MAX_PLAN_GPUS:
        raise InputError(f"{gpus:,} GPUs: kvguard plans layouts of up to {MAX_PLAN_GPUS:,} GPUs", source="<plan>",
                         key="gpus")
    g = _pos_int(gpus_per_node, "gpus_per_node")
    min_replica_gpus = _pos_int(min_replica_gpus, "min_replica_gpus")
    if max_model_len is not None:
        max_model_len = _pos_int(max_model_len, "max_model_len")
    release = resolve(vllm_version)
    label, cfg, raw, model_path = resolve_config(config)
    env_d = env_as_strings(env)
    facts = cfg if isinstance(cfg, ModelFacts) else model_facts(cfg, vllm_version=release.key, env=env_d,
                                                                trust_remote_code=trust_remote_code,
                                                                model_path=model_path)
    if archs.registry_loaded() and archs.registered_arch(facts.architectures, release) is None:
        from ..errors import Undecidable
        raise Undecidable(f"architectures {list(facts.architectures)} are not in vLLM {release.version}'s "
                          "model registry")
    from ..quant.kv_cache import effective

    sized, named = effective(kv_cache_dtype, facts.resolved_top or {}, release)
    dtype_name, b = kv_cache_dtype_bytes(sized, model_dtype=config_dtype(raw),
                                         vllm_version=release.key)
    layers = facts.num_hidden_layers
    if facts.use_mla is None or not facts.head_size or not layers or facts.total_num_kv_heads is None:
        raise InputError("the model has no attention KV cache kvguard can size", source="<plan>")
    nnodes = 1
    notes = [named] if named else []
    if gpus > g:
        if gpus % g:
            raise InputError(f"{gpus} GPUs do not fill nodes of {g}", source="<plan>", key="gpus")
        nnodes = gpus // g
        if not release.within("0.11.1"):
            raise InputError(f"a {nnodes}-node plan needs --nnodes, which vLLM {release.version} lacks (0.11.1+)",
                             source="<plan>", key="gpus")
        notes.append(f"multi-node: run the command on each of the {nnodes} nodes with --node-rank 0…{nnodes - 1}")
    host = host or Host.cuda_node(g)
    from ..length import default_length

    derived = default_length(facts, release, env=env_d)
    derived_len = derived.default if derived is not None else None
    # the length one sequence may reach: the given one (refused below if vLLM refuses it), else vLLM's own
    length = max_model_len if max_model_len is not None else derived_len
    if derived is not None and derived_len is not None and max_model_len is None:
        notes.append(f"max model len {derived_len:,}: the derived maximum ({derived.key}={derived.value}), as vLLM "
                     "uses it without --max-model-len")
    spec = None
    if speculative_config is not None:
        from ..rules.check import speculative_input

        if isinstance(raw, Mapping) and not isinstance(cfg, ModelFacts):
            spec = speculative_input(speculative_config, raw, model_path=model_path or (label if isinstance(label, str) else None),
                                     draft_config=draft_config, trust_remote_code=trust_remote_code)
        else:
            spec = speculative_input(speculative_config, cfg, draft_config=draft_config,
                                     trust_remote_code=trust_remote_code)
        notes.append("every layout is checked with --speculative-config " + json.dumps(dict(speculative_config)))
    has_pcp = release.within("0.12.0")
    pcp_shards = kv_token_shards(release.key, 2, 2) == 4   # does this release spread tokens over pcp?
    eps = (False, True) if (expert_parallel and facts.is_moe) else (False,)
    rows: list[PlanEntry] = []
    refused: dict[str, int] = {}
    unchecked: list[str] = []  # why model construction (kvguard.quant) was not checked
    #: other checks listed as skipped on accepted layouts: (check, reason) -> how many layouts
    other_skips: dict[tuple[str, str], int] = {}
    candidates = 0
    per_layer_cache: dict[int, int] = {}
    # a heterogeneous config: each layer's own KV heads and head size (vLLM's model_arch_config[i]); a tail of layers
    # sharing another's cache holds none
    own_cache, unmodelled = cache_layers(facts, release)
    own_cache = own_cache or ()
    if own_cache:
        notes.append("the KV bytes of each pipeline stage are summed layer by layer (layers differ, or reuse "
                     "another layer's cache)")
        unique_model = sum(2 * kv * size * b for kv, size in own_cache)
    elif unmodelled:
        notes.append(unmodelled)
    # sliding-window layers (kvguard.kv.sliding): sized as vLLM sizes them where kvguard models it (-pp 1, no context
    # parallelism, a length), else every layer as full attention (approximate)
    windows: Optional[list[Optional[int]]] = None
    sliding_unread: list[str] = []   # why the sliding accounting is not modelled for this release (one reason)
    if not own_cache and not facts.use_mla:
        from .sliding import sliding_layer_windows

        found, _why = sliding_layer_windows(facts, release, raw if isinstance(raw, Mapping) else None)
        if found is not None and any(w is not None for w in found):
            windows = found
    base: dict[str, Any] = {"nnodes": nnodes} if nnodes > 1 else {}
    if trust_remote_code:
        base["trust_remote_code"] = True
    if max_model_len is not None:
        base["max_model_len"] = max_model_len   # a length ModelConfig refuses refuses every layout
    heads = facts.total_num_attention_heads
    span_rule = release.within("0.26.0")
    for tp in divisors(gpus):
        # necessary conditions, pruned before the checks run (tests/test_plan.py proves pruning
        # changes no answer): every release refuses heads % tp != 0 (ModelConfig.
        # verify_with_parallel_config); from 0.26.0, with PCP, dcp must be 1, pcp or tp*pcp
        if _prune and isinstance(heads, int) and heads > 0 and heads % tp:
            continue
        dup = facts.duplication_factor(tp)
        # the facts carry attention KV sizes here (checked above), so the sizes are numbers
        per_layer = per_layer_cache.setdefault(tp, cast(int, facts.kv_bytes_per_token(tp, dtype_bytes=b, layers=1)))
        unique_layer = (per_layer if facts.use_mla else 2 * facts.total_num_kv_heads * facts.head_size * b)
        # the sharing tail (after the layers with a cache of their own) holds no bytes
        layer_bytes = ([2 * max(1, kv // tp) * size * b for kv, size in own_cache] + [0] * (layers - len(own_cache))
                       if own_cache else [])
        for pcp in (divisors(gpus // tp) if has_pcp else [1]):
            dcps = sorted(set(d for d in divisors(tp)) | ({pcp, tp * pcp} if pcp > 1 else set()))
            if _prune and span_rule and pcp > 1:
                dcps = [d for d in dcps if d in (1, pcp, tp * pcp)]
            for pp in divisors(gpus // (tp * pcp)):
                dp = gpus // (tp * pcp * pp)
                replica = tp * pp * pcp
                if replica < min_replica_gpus:
                    continue
                stage_layers = math.ceil(layers / pp)
                if layer_bytes:
                    stage_sums, start = [], 0
                    for count in pp_partitions(layers, pp):
                        stage_sums.append(sum(layer_bytes[start:start + count]))
                        start += count
                for dcp in dcps:
                    for ep in eps:
                        candidates += 1
                        fields = dict(base, tensor_parallel_size=tp, pipeline_parallel_size=pp,
                                      data_parallel_size=dp)
                        if pcp > 1:
                            fields["prefill_context_parallel_size"] = pcp
                        if dcp > 1:
                            fields["decode_context_parallel_size"] = dcp
                        if ep:
                            fields["enable_expert_parallel"] = True
                        lay = Layout(**fields)
                        v = evaluate(release, facts, lay, env=env_d, host=host, spec=spec)
                        if not v.ok:
                            refused[v.check or "?"] = refused.get(v.check or "?", 0) + 1
                            continue
                        for skip in v.skipped:
                            if skip.check == "MI_model":
                                if skip.reason not in unchecked:
                                    unchecked.append(skip.reason)
                            else:
                                key = (skip.check, skip.reason)
                                other_skips[key] = other_skips.get(key, 0) + 1
                        shards = dcp * pcp if (pcp > 1 and pcp_shards) else dcp
                        sizing = "full"
                        if layer_bytes:
                            # the stage with the most bytes governs; stored / unique compares whole models
                            per_rank = max(stage_sums) / shards
                            stored, unique = sum(layer_bytes) * tp * pcp / shards, unique_model
                        else:
                            per_rank = per_layer * stage_layers / shards
                            stored, unique = per_layer * tp * pcp / shards, unique_layer
                        if windows is not None:
                            sequence_bytes = (_sliding_request_bytes(
                                release, per_layer, windows, length, sliding_unread, pp,
                                architectures=tuple(facts.architectures or ()), is_moe=facts.is_moe, env=env,
                                one_node=not _spans(tp * pcp * pp, gpus, g))
                                              if dcp == 1 and pcp == 1 else None)
                            if sequence_bytes is not None:
                                # one max-length sequence as vLLM sizes it, spread over its tokens
                                per_rank, sizing = sequence_bytes / cast(int, length), "sliding"
                            else:
                                sizing = "all_full_attention"
                        per_replica = GIB / per_rank
                        flags = lay.flags()
                        if kv_cache_dtype != "auto":
                            flags += ["--kv-cache-dtype", kv_cache_dtype]
                        if max_model_len is not None:
                            flags += ["--max-model-len", str(max_model_len)]
                        rows.append(PlanEntry(
                            tp=tp, pp=pp, dp=dp, pcp=pcp, dcp=dcp, expert_parallel=ep, nnodes=nnodes,
                            replica_gpus=replica, duplication_factor=dup,
                            residual_duplication=reported_number(stored / unique), kv_token_shards=shards,
                            stage_layers=stage_layers, kv_bytes_per_token_per_rank=reported_number(per_rank),
                            kv_tokens_per_gpu_per_gib=per_replica / replica,
                            kv_tokens_per_replica_per_gib=per_replica,
                            kv_gib_per_gpu_for_max_len=(length * per_rank / GIB
                                                        if length is not None else None),
                            tp_cross_node=_spans(tp, gpus, g),
                            dcp_cross_node=dcp > 1 and _spans(dcp if pcp == 1 else tp * pcp, gpus, g),
                            pcp_cross_node=pcp > 1 and _spans(tp * pcp, gpus, g),
                            pp_cross_node=pp > 1 and _spans(tp * pcp * pp, gpus, g),
                            ep_cross_node=ep and _spans(gpus if dp > 1 else tp * pcp, gpus, g),
                            flags=tuple(flags),
                            command=" ".join(["vllm", "serve", label, *flags]),
                            kv_sizing=sizing,
                        ))
    notes.extend(f"model construction not checked: {reason}" for reason in unchecked)
    notes.extend(f"{check} not checked on {count} of the {len(rows)} accepted layouts: {reason}"
                 for (check, reason), count in other_skips.items())
    from .kvsize import kv_cache_groups_reason

    groups = kv_cache_groups_reason(None, facts)
    if windows is not None:
        notes.append(_sliding_note(windows, length, sliding_unread, any(e.kv_sizing == "sliding" for e in rows),
                                   any(e.kv_sizing == "all_full_attention" for e in rows)))
    elif groups is not None:
        # the ranking reads one KV size per token; for several KV-cache groups it is the full-attention size
        notes.append(f"KV sizes count every layer as full attention ({groups}): an upper bound, so the "
                     "ranking by KV tokens is approximate")
    rows.sort(key=lambda e: (-e.kv_tokens_per_gpu_per_gib, e.cross_node_groups, -e.kv_tokens_per_replica_per_gib,
                             e.expert_parallel, e.tp, e.pcp, e.dcp, e.pp))
    if not rows and refused and all(k.startswith("MC_max_len") or k == "MC_FIELD" for k in refused):
        notes.append(f"vLLM {release.version} refuses --max-model-len {max_model_len} for this model, whatever the "
                     "layout" + (f" (derived maximum {derived_len:,})" if derived_len is not None else ""))
    return PlanReport(model=label, vllm_version=release.key, gpus=gpus, gpus_per_node=g,
                      kv_cache_dtype=kv_cache_dtype, kv_cache_dtype_resolved=dtype_name,
                      max_model_len=max_model_len, candidates=candidates, accepted=len(rows),
                      refused_by_check=dict(sorted(refused.items(), key=lambda kv: -kv[1])),
                      entries=tuple(rows), notes=tuple(notes), max_model_len_derived=derived_len)


