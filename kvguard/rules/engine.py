"""Evaluates a release's ordered rows (kvguard.rules) against a launch → Verdict.

Conditions run as ordinary Python on the same values vLLM sees, so an
arithmetic crash in vLLM (``tp % 0``) is the same crash here, with the same
type and text; it is reported as the verdict, with pydantic's wrapping
decided by the stage it happens in.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache, partial

from ..errors import KvguardError
from ..facts import Crash, ModelFacts
from ..host_python import host_message
from ..launch.layout import Host, Layout
from ..record import MISSING, fields, replace
from ..verdict import ErrorEntry, Skipped, Verdict
from ..versions import Release
from . import WRAPPER, Check, FieldRule, Step
from .table import RULES, rows_for

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["Refusal", "State", "evaluate", "verdict_from_crash"]

#: exceptions a condition may raise because vLLM's own statement would raise them
_VLLM_CRASHES = (ArithmeticError, TypeError, KeyError, ValueError, AttributeError, IndexError)


class _Skip(Exception):
    def __init__(self, need: str):
        super().__init__(need)
        self.need = need


class Undecided(Exception):
    """A row found that the answer depends on what kvguard does not model (not a vLLM exception:
    :func:`evaluate` raises :class:`~kvguard.Undecidable` with the reason)."""


#: public names of the row-level signals, for code that evaluates rows on a state of its own (the speculative
#: draft's verify_with_parallel_config): a check skipped for an unknown fact, a fact whose read crashes
SkipCheck = _Skip


class _FactCrash(Exception):
    def __init__(self, crash: Crash):
        super().__init__(crash.message)
        self.crash = crash


FactCrash = _FactCrash


class Refusal(Exception):
    """What vLLM raises, computed by a row rather than templated by it: a step that runs another
    statement on other values (the speculative draft's ``verify_with_parallel_config``, pydantic's
    field validation of ``--speculative-config``, the draft's ModelConfig).  ``check`` names the
    refusing statement (default: the row's id); ``wrapped_by`` ``"stage"`` takes the wrapping of the
    row's stage for ValueError / AssertionError / ValidationError entries, else it is given."""

    def __init__(self, exc_type: str, message: str, *, check: Optional[str] = None,
                 errors: tuple = (), wrapped_by: Optional[str] = "stage"):
        super().__init__(message)
        self.exc_type = exc_type
        self.message = message
        self.check = check
        self.errors = errors
        self.wrapped_by = wrapped_by


class State:
    """The values the checks read: launch fields, derived sizes, facts, env, host."""

    def __init__(self, release: Release, layout: Layout, facts: ModelFacts,
                 env: Mapping[str, str], host: Host, *, entry: str = "serve", sidecar: Any = None,
                 spec: Any = None):
        self.release = release
        self.env = env
        self.host = host
        self.assumed_read: set[str] = set()
        #: variables whose absence a check read as vLLM's default (listed with the verdict as "NAME unset")
        self.assumed_unset: set[str] = set()
        #: (row id, reason): a row found that vLLM raises that row's refusal at the latest there, and may raise it
        #: at an earlier point kvguard does not resolve; any other refusal before it is then undecidable
        self.refusal_pending: Optional[tuple[str, str]] = None
        self._facts = facts
        #: the model directory's files beyond config.json (kvguard.length.Sidecar; None: not read)
        self.sidecar = sidecar
        self.layout = layout
        #: the launch's speculative decoding input (kvguard.speculative.SpeculativeInput) and the
        #: SpeculativeConfig state its rows build (None without --speculative-config)
        self.spec = spec
        self.sc = None
        lay = layout
        self.max_model_len = lay.max_model_len
        self.max_logprobs_out_of_bounds = lay.max_logprobs_out_of_bounds  # ModelConfig's MC_FIELD (0.25.0+)
        self.disable_sliding_window = lay.disable_sliding_window
        self.kv_cache_dtype = lay.kv_cache_dtype
        self.enforce_eager = lay.enforce_eager
        self.tp = lay.tensor_parallel_size
        self.pp = lay.pipeline_parallel_size
        self.dp = lay.data_parallel_size
        self.pcp = lay.prefill_context_parallel_size
        self.dcp = lay.decode_context_parallel_size
        self.ep = lay.enable_expert_parallel
        self.eplb = lay.enable_eplb
        self.redundant = lay.num_redundant_experts
        self.elastic_ep = lay.enable_elastic_ep
        kept = _RELEASES.get(id(release))
        if kept is None or kept.release is not release:
            kept = per_release(release)
        #: the release's answers to ``within(bound)`` (``within(*bounds)`` for a pair), kept per release: the rows
        #: read ``state.since["0.17.0"]`` without a call
        self.per_release = kept
        self.since = since = kept.since
        self.eplb_async = since["0.24.0"]  # EPLBConfig.use_async default True
        self.nnodes = lay.nnodes
        self.node_rank = lay.node_rank
        self.backend = lay.distributed_executor_backend
        self.dp_backend = lay.data_parallel_backend
        self.dp_address = lay.data_parallel_address
        # create_engine_config(headless=True): --headless, or fewer than one API server (cli/serve.py's run_headless)
        self.headless = lay.headless or (lay.api_server_count is not None and lay.api_server_count < 1)
        self.hybrid_lb = lay.data_parallel_hybrid_lb
        self.external_lb_flag = lay.data_parallel_external_lb
        self.start_rank = lay.data_parallel_start_rank
        self.async_scheduling = lay.async_scheduling
        self.fault_tolerance = lay.enable_fault_tolerance
        self.routed_experts = lay.enable_return_routed_experts
        self.swap_space = lay.swap_space
        # the config fields the FieldRule rows read besides the sizes: ParallelConfig's microbatching (0.23.0+),
        # CacheConfig's ReplaySSM buffer (0.27.0+)
        self.ubatch_size = lay.ubatch_size
        self.dbo_decode_token_threshold = lay.dbo_decode_token_threshold
        self.dbo_prefill_token_threshold = lay.dbo_prefill_token_threshold
        self.replayssm_buffer_len = lay.replayssm_buffer_len
        # ParallelConfig's options kvguard otherwise passes over, set only when given outside their bounds
        self.data_parallel_rpc_port_out_of_bounds = lay.data_parallel_rpc_port_out_of_bounds
        self.dp_sync_interval_out_of_bounds = lay.dp_sync_interval_out_of_bounds
        self.max_parallel_loading_workers_out_of_bounds = lay.max_parallel_loading_workers_out_of_bounds
        self.elastic_ep_max_dp_size_out_of_bounds = lay.elastic_ep_max_dp_size_out_of_bounds
        self.api_process_count = 1
        self.dcp_comm_backend = lay.dcp_comm_backend
        if self.dcp_comm_backend is None and since[_DCP_AG_RS]:
            self.dcp_comm_backend = "ag_rs"
        self.inferred_rank = 0
        self.dp_branch = False
        self.world_size = None
        if entry == "serve":
            self.dpl = lay.data_parallel_size_local
            self.dp_rank = lay.data_parallel_rank
            self.external_lb = lay.data_parallel_external_lb
            self.is_moe_model: Optional[bool] = None  # set when ParallelConfig is built
        else:  # ParallelConfig(**fields) directly: its own defaults
            self.dpl = 1 if lay.data_parallel_size_local is None else lay.data_parallel_size_local
            self.dp_rank = 0 if lay.data_parallel_rank is None else lay.data_parallel_rank
            self.external_lb = lay.data_parallel_external_lb
            self.is_moe_model = None
        self.pc_dpl = self.dpl

    # -- facts (a deferred crash surfaces where the fact is first read) -----
    def _fact(self, name: str, value: Any) -> Any:
        crash = self._facts.deferred.get(name)
        if crash is not None:
            raise _FactCrash(crash)
        return value

    @property
    def heads(self):
        return self._fact("total_num_attention_heads", self._facts.total_num_attention_heads)

    @property
    def kv_heads(self):
        return self._fact("total_num_kv_heads", self._facts.total_num_kv_heads)

    @property
    def use_mla(self):
        return self._fact("use_mla", self._facts.use_mla)

    @property
    def num_experts(self):
        return self._fact("num_experts", self._facts.num_experts)

    @property
    def is_moe(self):
        return self.num_experts > 0

    @property
    def supports_pp(self):
        value = self._facts.supports_pp
        if value is None:
            raise _Skip("architecture")
        return value

    @property
    def has_inner_state(self):
        from kvguard.archs import arch_flag

        value = arch_flag(self._facts.architectures, "has_inner_state", self.release)
        if value is None:
            raise _Skip("architecture")
        return value

    @property
    def facts(self) -> ModelFacts:
        return self._facts

    @property
    def cache_dtype(self) -> str:
        """``CacheConfig.cache_dtype``: ``--kv-cache-dtype``, its ``auto`` resolved from a ModelOpt checkpoint's
        KV-cache quantization by the engine arguments (0.14.0+, kvguard.quant.kv_cache)."""
        if self.kv_cache_dtype != "auto":
            return self.kv_cache_dtype
        from kvguard.quant.kv_cache import checkpoint_cache_dtype  # absolute: answered from sys.modules

        return checkpoint_cache_dtype(self._facts.resolved_top or {}, self.release) or "auto"

    def unmodelled(self, reason: str) -> None:
        """The reading check depends on something kvguard does not model: it is skipped with ``reason``."""
        raise _Skip(reason)

    def need(self, name: str) -> Any:
        """A host fact; unknown (None) makes the reading check 'skipped'; assumed ones are recorded."""
        value = getattr(self.host, name, None)
        if value is None:
            raise _Skip(name)
        if name in self.host.assumed:
            self.assumed_read.add(name)
        return value

    def skip(self, reason: str) -> None:
        """The reading check cannot be decided from the inputs: it is 'skipped' with ``reason``."""
        raise _Skip(reason)

    def undecided(self, reason: str) -> None:
        """vLLM's answer depends on what kvguard does not model: the check raises Undecidable."""
        raise Undecided(reason)

class _EagerFacts(State):
    """A State for facts without deferred crashes (the usual case): the facts are plain attributes,
    read without a property call (the rule conditions read them on every check)."""

    heads = kv_heads = use_mla = num_experts = None  # shadow State's properties; set per instance
    facts = None  # type: ignore[assignment]  # shadows State.facts too: the rows read it ~10 times a check

    def __init__(self, release: Release, layout: Layout, facts: ModelFacts,
                 env: Mapping[str, str], host: Host, *, entry: str = "serve", sidecar: Any = None,
                 spec: Any = None):
        super().__init__(release, layout, facts, env, host, entry=entry, sidecar=sidecar, spec=spec)
        self.heads = facts.total_num_attention_heads
        self.kv_heads = facts.total_num_kv_heads
        self.use_mla = facts.use_mla
        self.num_experts = facts.num_experts
        self.facts = facts


#: the releases whose DCP communication backend defaults to "ag_rs" (ParallelConfig.dcp_comm_backend)
_DCP_AG_RS = ("0.18.0", "0.28.0")


class _Since(dict):
    """bound -> ``release.within(bound)`` (a pair of bounds -> ``release.within(*pair)``), answered on first ask."""

    __slots__ = ("release",)

    def __init__(self, release: Release):
        super().__init__()
        self.release = release

    def __missing__(self, bound: Any) -> bool:
        answer = self.release.within(*bound) if type(bound) is tuple else self.release.within(bound)
        if len(self) < 1024:  # the tables' bounds; a caller's own bounds do not grow it without end
            self[bound] = answer
        return answer


class _PerRelease:
    """What a check of one release reads on every launch, answered once per release: its ``within`` answers, its
    programs by variant, its key, the model registry's answer by architectures (kvguard.rules.check)."""

    __slots__ = ("release", "since", "programs", "key", "registered")

    def __init__(self, release: Release):
        self.release = release
        self.since = _Since(release)
        self.programs: dict[str, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
        self.key = release_key(release)
        self.registered: dict[Any, bool] = {}


#: id(release) -> its _PerRelease (the Release objects are kept per version string by kvguard.rules.check, so the
#: id finds them without hashing the Release; the entry holds the release, so its id is not reused meanwhile)
_RELEASES: dict[int, _PerRelease] = {}


def per_release(release: Release) -> _PerRelease:
    kept = _RELEASES.get(id(release))
    if kept is not None and kept.release is release:
        return kept
    if len(_RELEASES) >= 4096:  # Release objects built per call (not the memoised ones) must not grow it
        _RELEASES.clear()
    kept = _RELEASES[id(release)] = _PerRelease(release)
    return kept


_SKIP_REASONS = {
    "platform": "depends on the platform (CUDA/ROCm/…); pass a Host with platform=…",
    "gpus_per_node": "depends on the GPUs per node; pass a Host with gpus_per_node=…",
    "ray": "depends on whether Ray is installed; pass a Host with ray=…",
    "triton": "depends on whether Triton is installed; pass a Host with triton=…",
    "nixl": "depends on whether NIXL is installed; pass a Host with nixl=…",
    "cpu_memory_bytes": "depends on the host's CPU memory; pass a Host with cpu_memory_bytes=…",
    "architecture": "depends on the model registry entry of an architecture kvguard does not know",
    "rocm_default_v1_architectures": "on ROCm vLLM picks the V1 model runner for some architectures "
                                     "(not modelled)",
    "arctic_inference": "suffix decoding needs the arctic-inference package; kvguard does not know whether "
                        "the host has it",
    "ipex": "depends on whether intel_extension_for_pytorch is installed; pass a Host with ipex=…",
    "amx": "depends on whether the CPU has AMX tiles; pass a Host with amx=…",
    "kv_block_size": "depends on the KV-cache block size the platform fills in (not modelled)",
    "gpu_capability": "depends on the GPUs' compute capability; pass a Host with gpu_capability=…",
    "attention_backend": "the attention backend the workers select for this model, host or flag is not modelled "
                         "(kvguard.attention: CUDA sm_90, non-MLA FlashAttention / --attention-backend, MLA -dcp)",
}


def field_verdict(release: Release, layout: Layout, stage: str = "model_config", **extra) -> Optional[Verdict]:
    """The refusal of ``stage``'s pydantic field validation alone, or None.

    ModelConfig validates its fields (``max_model_len``) before ``__post_init__`` reads any config:
    that refusal stands even when building the model facts fails (kvguard.rules.check.check asks this first)."""
    for row in rows_for(release):
        if isinstance(row, FieldRule) and row.stage == stage:
            values = type("_Fields", (), {attr: getattr(layout, attr) for _name, attr, _kind, _bound in row.fields})
            errors = _field_errors(row, values)
            if errors:
                return _refusal(release, row, None, errors, [], {"layout": layout, **extra})
    return None


def _crash_verdict(release: Release, row, exc: BaseException, **extra) -> Verdict:
    wrapped = WRAPPER[row.stage] if isinstance(exc, (ValueError, AssertionError)) else None
    return Verdict(ok=False, vllm_version=release_key(release), stage=row.stage, check=row.id,
                   exc_type=type(exc).__name__, message=host_message(exc), wrapped_by=wrapped, **extra)


def verdict_from_crash(release: Release, crash: Crash, *, stage: str, check: str, **extra) -> Verdict:
    """A Verdict for a crash while building a config object (model_config stage)."""
    loc = crash.errors[0].loc if crash.errors else None
    return Verdict(ok=False, vllm_version=release_key(release), stage=stage, check=check,
                   exc_type=crash.exc_type, message=crash.message, wrapped_by=crash.wrapped_by,
                   loc=loc, errors=crash.errors, **extra)


@lru_cache(maxsize=None)
def _field_model(rule: FieldRule):
    """A pydantic dataclass with the rule's field types/constraints, in declaration order."""
    from typing import Annotated, Literal
    from typing import Optional as Opt

    import pydantic

    annotations: dict[str, Any] = {}
    for name, _attr, kind, bound in rule.fields:
        if kind == "ge":
            annotations[name] = Annotated[int, pydantic.Field(ge=bound)]
        elif kind in ("ge?", "gt?"):   # skipped when None (ModelConfig's _skip_none_validation)
            constraint = pydantic.Field(ge=bound) if kind == "ge?" else pydantic.Field(gt=bound)
            annotations[name] = Opt[Annotated[int, constraint]]
        elif kind == "range?":         # ge=low, le=high; None: the option is not given (or within its bounds)
            annotations[name] = Opt[Annotated[int, pydantic.Field(ge=bound[0], le=bound[1])]]
        elif kind == "literal":
            annotations[name] = Literal[bound]  # type: ignore[valid-type]
        elif kind == "literal?":
            annotations[name] = Opt[Literal[bound]]  # type: ignore[valid-type]
        else:  # pragma: no cover - table error
            raise ValueError(kind)
    cls = type("ParallelConfig", (), {"__annotations__": annotations})
    return pydantic.dataclasses.dataclass(cls)


def _plainly_valid(kind: str, bound: Any, value: Any) -> bool:
    """True when pydantic certainly accepts ``value`` for this field (an exact int
    meeting a ``ge`` bound, an exact str among the literals, None where optional);
    anything else goes through pydantic itself."""
    if kind == "ge":
        return type(value) is int and value >= bound
    if kind in ("ge?", "gt?"):
        return value is None or (type(value) is int and (value >= bound if kind == "ge?" else value > bound))
    if kind == "range?":
        return value is None or (type(value) is int and bound[0] <= value <= bound[1])
    if kind == "literal?" and value is None:
        return True
    if kind in ("literal", "literal?") and type(value) is str:
        return value in (bound if isinstance(bound, tuple) else (bound,))
    return False


def field_rule_errors(rule: FieldRule, state: object) -> tuple[ErrorEntry, ...]:
    """The errors pydantic reports for ``rule``'s fields of ``state`` (empty: none)."""
    return _field_errors(rule, state)


#: id(rule) -> (rule, a callable reading its state attributes as a tuple in declaration order, its (kind, bound)
#: pairs): ParallelConfig's 17 fields are read on every check (keyed by id: hashing a row hashes all its fields)
_FIELD_READERS: dict[int, tuple[Any, Any, tuple[tuple[str, Any], ...]]] = {}


def _field_reader(rule: FieldRule) -> tuple[Any, tuple[tuple[str, Any], ...]]:
    kept = _FIELD_READERS.get(id(rule))
    if kept is not None and kept[0] is rule:
        return kept[1], kept[2]
    from operator import attrgetter

    attrs = [attr for _name, attr, _kind, _bound in rule.fields]
    getter = attrgetter(*attrs) if len(attrs) > 1 else (lambda state: (getattr(state, attrs[0]),))
    checks = tuple((kind, bound) for _name, _attr, kind, bound in rule.fields)
    if len(_FIELD_READERS) >= 1024:
        _FIELD_READERS.clear()
    _FIELD_READERS[id(rule)] = (rule, getter, checks)
    return getter, checks


#: the field kinds that accept None (the option not given): _plainly_valid answers True for None
_OPTIONAL_KINDS = frozenset(("ge?", "gt?", "range?", "literal?"))


def _field_errors(rule: FieldRule, state: object) -> tuple[ErrorEntry, ...]:
    # s: a State, or (field_verdict) a class holding the layout's field values; only getattr reads it (every
    # field in order, as the validation below does: the same first error of a read)
    getter, checks = _field_reader(rule)
    for value, (kind, bound) in zip(getter(state), checks):
        if kind == "ge" and type(value) is int and value >= bound:
            continue  # ParallelConfig's sizes, each check: _plainly_valid's first case without its call
        if value is None and kind in _OPTIONAL_KINDS:
            continue  # an optional field not given (most of them, each check): _plainly_valid's None cases
        if not _plainly_valid(kind, bound, value):
            break
    else:
        return ()
    import pydantic

    model = _field_model(rule)
    values = {name: getattr(state, attr) for name, attr, _kind, _bound in rule.fields}
    try:
        model(**values)
    except pydantic.ValidationError as exc:
        return tuple(ErrorEntry(e["type"], tuple(str(p) for p in e["loc"]), e["msg"], e.get("input"), e.get("ctx"))
                     for e in exc.errors())
    return ()


def evaluate(release: Release, facts: ModelFacts, layout: Layout, *,
             env: Mapping[str, str], host: Host, entry: str = "serve",
             notes: tuple[str, ...] = (), sidecar: Any = None, spec: Any = None) -> Verdict:
    """Run ``release``'s rows over the launch; the first refusal is the verdict (see _evaluate).

    ``notes`` are attached to the verdict as they are; ``sidecar``: the model directory's files
    (:class:`kvguard.length.Sidecar`, None: not read); ``spec`` is the launch's speculative decoding
    input (:class:`kvguard.speculative.SpeculativeInput`, None without one).  Raises
    :class:`~kvguard.Undecidable` when a row finds that vLLM's answer depends on what kvguard does not
    model."""
    state = (State if facts.deferred else _EagerFacts)(release, layout, facts, env, host, entry=entry, sidecar=sidecar,
                                                   spec=spec)
    try:
        # without speculative decoding its rows cannot fire: a program without them (the hot path of plan / scans);
        # the same for the rows of options the launch does not give
        program = entry + _WITH_SPEC if spec is not None else entry
        if not _OPTION_FIELDS.isdisjoint(layout.model_fields_set):
            program += _WITH_OPTIONS
        if not _ENV_VARIABLES.isdisjoint(env):
            program += _WITH_ENV
        verdict = _evaluate(state, release, facts, layout, program, notes)
    except Undecided as exc:
        from ..errors import Undecidable

        raise Undecidable(str(exc)) from None
    if state.sc is not None and state.sc.notes:
        verdict = verdict.with_notes(*state.sc.notes)
    if state.assumed_read or state.assumed_unset:
        verdict = replace(verdict, assumptions=tuple(
            f"{name}={getattr(host, name)!r}" for name in sorted(state.assumed_read)) + tuple(
            f"{name} unset" for name in sorted(state.assumed_unset)))
    return verdict


def _evaluate(state: "State", release: Release, facts: ModelFacts, layout: Layout, entry: str,
              notes: tuple[str, ...] = ()) -> Verdict:
    """``entry="serve"`` follows ``vllm serve`` (EngineArgs checks and
    derivations, then ParallelConfig, then VllmConfig); ``entry="config"``
    constructs ``ParallelConfig(**layout)`` directly and calls
    ``verify_with_parallel_config`` (no EngineArgs stage), as a Python caller
    of vLLM's config classes would.

    The rows run as one tight loop over :func:`_program`'s callables (a step
    returns None, a check its condition, the field row its pydantic errors);
    the first truthy result is the refusal.
    """
    skipped: list[Skipped] = []
    extra = {"facts": facts, "layout": layout}
    if notes:
        extra["notes"] = notes
    per = getattr(state, "per_release", None)
    if per is None or per.release is not release:
        per = per_release(release)
    kept = per.programs.get(entry)
    if kept is None:
        kept = per.programs[entry] = _program(release, entry)
    calls, rows = kept
    n = len(calls)
    start = 0
    while start < n:
        i = start
        try:
            for i in range(start, n):
                fired = calls[i](state)
                if fired:
                    _pending_first(state, rows[i])
                    return _refusal(release, rows[i], state, fired, skipped, extra)
            start = n
        except _STOPS as exc:
            verdict = _stopped(release, rows[i], exc, skipped, extra)
            if verdict is not None:
                _pending_first(state, rows[i])
                return verdict
            start = i + 1
    return _verdict(ok=True, vllm_version=per.key, skipped=tuple(skipped), **extra)


#: what ends a row early: a host fact that is unknown (the check is skipped), a fact whose read
#: crashes in vLLM, or the crash of vLLM's own statement
_STOPS = (_Skip, _FactCrash, Refusal) + _VLLM_CRASHES


def _pending_first(state: "State", row) -> None:
    """A refusal of ``row`` while another row's refusal is pending (State.refusal_pending): which comes first in
    vLLM is what kvguard does not resolve."""
    pending = getattr(state, "refusal_pending", None)
    if pending is not None and row.id != pending[0]:
        raise Undecided(pending[1])


def _stopped(release: Release, row, exc: BaseException, skipped: list, extra: dict) -> Optional[Verdict]:
    """The verdict when ``row`` raised ``exc``, or None when the row is a skipped check (recorded)."""
    if isinstance(exc, KvguardError):
        raise exc  # kvguard cannot decide (a step that needs what it does not model): never vLLM's verdict
    if isinstance(exc, _Skip):
        if not isinstance(row, Check):
            raise exc
        skipped.append(Skipped(row.id, _SKIP_REASONS.get(exc.need, exc.need)))
        return None
    if isinstance(exc, _FactCrash):
        return verdict_from_crash(release, _rewrap(exc.crash, row.stage), stage=row.stage,
                                  check=row.id, skipped=tuple(skipped), **extra)
    if isinstance(exc, Refusal):
        wrapped = exc.wrapped_by
        if wrapped == "stage":
            wrapped = WRAPPER[row.stage] if exc.exc_type in ("ValueError", "AssertionError", "ValidationError") \
                else None
        loc = exc.errors[0].loc if exc.errors else None
        return Verdict(ok=False, vllm_version=release_key(release), stage=row.stage, check=exc.check or row.id,
                       exc_type=exc.exc_type, message=exc.message, wrapped_by=wrapped, loc=loc,
                       errors=tuple(exc.errors), skipped=tuple(skipped), **extra)
    return _crash_verdict(release, row, exc, skipped=tuple(skipped), **extra)


def _refusal(release: Release, row, state: Optional["State"], fired: Any, skipped: list, extra: dict) -> Verdict:
    if isinstance(row, FieldRule):
        errors = fired
        return Verdict(ok=False, vllm_version=release_key(release), stage=row.stage, check=row.id,
                       exc_type="ValidationError", message=errors[0].msg,
                       wrapped_by=WRAPPER[row.stage], loc=errors[0].loc, errors=errors,
                       skipped=tuple(skipped), **extra)
    head = _refusal_head(release_key(release), row)
    return _verdict(head, message=row.message(state), skipped=tuple(skipped), **extra)


_VERDICT_DEFAULTS = {f.name: (f.default_factory() if f.default_factory is not MISSING else f.default)
                     for f in fields(Verdict) if f.default is not MISSING or f.default_factory is not MISSING}


def _verdict(base: Mapping[str, Any] = _VERDICT_DEFAULTS, /, **values: Any) -> Verdict:
    """``Verdict(**base, **values)`` (``base``: every defaulted field) without the generic
    ``Record.__init__``'s argument checks — the hot path of a check."""
    v = object.__new__(Verdict)
    d = v.__dict__
    d.update(base)
    d.update(values)
    return v


#: (release key, id(row)) -> (row, its refusal head): the head depends on the release and the row alone
_HEADS: dict[tuple[str, int], tuple[Any, dict[str, Any]]] = {}


def _refusal_head(key: str, row) -> dict[str, Any]:
    """The fields of a refusal by ``row`` that do not depend on the launch (kept: _verdict copies them)."""
    kept = _HEADS.get((key, id(row)))
    if kept is not None and kept[0] is row:
        return kept[1]
    head = _build_refusal_head(key, row)
    if len(_HEADS) >= 4096:  # rows built on the fly (none in the table) must not grow it without bound
        _HEADS.clear()
    _HEADS[(key, id(row))] = (row, head)
    return head


def _build_refusal_head(key: str, row) -> dict[str, Any]:
    return {**_VERDICT_DEFAULTS, "ok": False, "vllm_version": key, "stage": row.stage, "check": row.id,
            "exc_type": row.exc,
            "wrapped_by": WRAPPER[row.stage] if row.exc in ("ValueError", "AssertionError") else None}


def _program(release: Release, entry: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(callables, rows): what _evaluate runs for ``release`` and ``entry``, in order."""
    return _build_program(release.version, release.patches, entry)


@lru_cache(maxsize=None)
def _build_program(version, patches: frozenset, entry: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    release = Release(version, patches)
    calls, rows = [], []
    for row in rows_for(release):  # the table is static: filtering once per release and entry is exact
        if not _runs(row, entry):
            continue
        if isinstance(row, Step):
            if row.id == "ea_to_parallel_config" and release.within("0.14.0"):
                calls.append(_then_moe_flag(row.apply))
            else:
                calls.append(row.apply)
        elif isinstance(row, FieldRule):
            calls.append(partial(_field_errors, row))
        else:
            calls.append(row.when)
        rows.append(row)
    return tuple(calls), tuple(rows)


def _then_moe_flag(apply):
    """EngineArgs → ParallelConfig (0.14.0+): the step also hands ParallelConfig the model's is_moe."""
    def step(state: "State") -> None:
        apply(state)
        state.is_moe_model = state._facts.is_moe
    return step


def release_key(release: Release) -> str:
    """``release.key``, formatted once per release."""
    kept = _RELEASES.get(id(release))
    if kept is not None and kept.release is release:
        return kept.key
    return _release_key(release.version, release.patches)


@lru_cache(maxsize=None)
def _release_key(version, patches: frozenset) -> str:
    return Release(version, patches).key


#: the program variant for a launch with speculative decoding (a launch without one — the hot path of plan / scans —
#: runs the entry's program without the rows that need a draft: Row.needs_draft)
_WITH_SPEC = ":speculative"


#: the program variant for a launch that gives one of the option-only rows' options (Row.options); without, the
#: entry's program leaves those rows out
_WITH_OPTIONS = ":options"
_OPTION_FIELDS = frozenset(field for row in RULES for field in row.options)

#: the program variant for a launch whose environment sets one of the environment-tagged rows' variables (Row.env);
#: without, the entry's program leaves out the rows tagged with variables whose options the launch does not give
_WITH_ENV = ":env"
_ENV_VARIABLES = frozenset(name for row in RULES for name in row.env)


def _runs(row, entry: str) -> bool:
    entry, *variants = entry.split(":")
    if row.options or row.env:
        # a tagged row runs where the launch gives one of the options of a row, or sets one of the variables of a row
        if not ((row.options and _WITH_OPTIONS[1:] in variants) or (row.env and _WITH_ENV[1:] in variants)):
            return False
    if row.needs_draft and _WITH_SPEC[1:] not in variants:
        return False
    if entry == "serve":
        return True
    if row.stage in ("frontend", "engine_args", "cache_config", "model_init", "speculative", "scheduler", "worker",
                     "decoding", "load", "lora", "observability", "offload"):
        return False
    if row.stage == "verify" and row.id.startswith(("VC_", "PLAT_")):
        return False
    if isinstance(row, Step) and row.id == "ea_to_parallel_config":
        return False
    return True


def _rewrap(crash: Crash, stage: str) -> Crash:
    """A raw fact crash takes the wrapping of the stage where it is read."""
    if crash.exc_type in ("ValueError", "AssertionError") and crash.wrapped_by is None:
        return Crash(crash.exc_type, crash.message, WRAPPER[stage], crash.errors)
    return crash
