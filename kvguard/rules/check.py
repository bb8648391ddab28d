"""One model config and one layout → the release's :class:`~kvguard.Verdict`.

The library's answers: :func:`check`, :func:`validate`, :func:`model_facts`,
:func:`legal_dcp_sizes` (re-exported by :mod:`kvguard`).  A config is read as
:func:`kvguard.launch.resolve.resolve_config` finds it (a model id as the command line finds
``vllm serve MODEL``), its facts derived by :mod:`kvguard.facts`, and the release's rows run by
:mod:`kvguard.rules.engine`.  :mod:`kvguard.kv` asks these functions whether a layout starts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .. import archs
from ..errors import InputError, InternalError, KvguardError, ModelConfigRefused, Undecidable, reports_internal_errors
from ..facts import Crash, ModelFacts, derive
from ..facts.model import SLIDING_WINDOW_READ
from ..launch.layout import Host, Layout, make_layout
from ..launch.resolve import resolve_config as find_config
from ..verdict import Verdict
from ..versions import Release, resolve
from .attention_env import parser_refusal_undecidable
from .engine import evaluate, field_verdict, per_release, release_key, verdict_from_crash
from .env_values import accepted_undecidable as env_value_accepted_undecidable
from .env_values import refusal_undecidable as env_value_undecidable
from .host_options import logging_inputs_given, logging_refusal_verdict

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["check", "legal_dcp_sizes", "model_facts", "resolve_config", "validate"]

#: launch fields that exist only from a given release (EngineArgs / CLI flags)
_FIELD_SINCE = {
    "prefill_context_parallel_size": "0.12.0",
    "cp_kv_cache_interleave_size": "0.12.0",
    "dcp_kv_cache_interleave_size": "0.11.1",
    "dcp_comm_backend": "0.18.0",
    "nnodes": "0.11.1",
    "node_rank": "0.11.1",
    "data_parallel_external_lb": "0.11.1",
    "enable_elastic_ep": "0.17.0",
    "enable_fault_tolerance": "0.27.0",
    "enable_return_routed_experts": "0.14.0",
    "attention_backend": "0.13.0",
    "moe_backend": "0.17.0",
    "all2all_backend": "0.11.1",
    "language_model_only": "0.17.0",
    "mamba_cache_mode": "0.15.0",
    "allow_deprecated_quantization": "0.14.0",
    "max_num_active_seqs": "0.31.0",
    "reasoning_parser_plugin": "0.11.1",
    "numa_bind": "0.20.0",
    "numa_bind_nodes": "0.20.0",
    "numa_bind_cpus": "0.20.0",
    "grpc": "0.20.0",
    "enable_mamba_cache_stochastic_rounding": "0.20.0",
    "mamba_backend": "0.20.0",
    "mamba_ssu_algorithm": "0.27.0",
    "enable_per_request_metrics": "0.25.0",
    "fail_on_environ_validation": "0.17.0",
    "sse_keep_alive_interval": "0.29.0",
    "grpc_port": "0.32.0",
    "data_parallel_multi_port_external_lb": "0.22.0",
    "data_parallel_supervisor_port": "0.22.0",
    "enable_dbo": "0.11.0",
    "ubatch_size": "0.14.0",
    "dbo_decode_token_threshold": "0.11.0",
    "dbo_prefill_token_threshold": "0.11.0",
    "offload_backend": "0.17.0",
    "offload_group_size": "0.17.0",
    "offload_num_in_group": "0.17.0",
    "offload_prefetch_step": "0.17.0",
    "kv_offloading_backend": "0.11.1",
    "kv_offloading_size": "0.11.1",
    "return_sampling_mask": "0.28.0",
    "enable_trace_replay": "0.29.0",
    "enable_batch_sharded_sampling": "0.29.0",
    "per_request_spec_decode_metrics": "0.29.0",
    "use_replayssm": "0.27.0",
    "replayssm_buffer_len": "0.27.0",
    "enable_cumem_allocator": "0.22.0",
    "device_ids": "0.24.0",
    "kda_prefill_backend": "0.27.0",
}

#: launch fields that exist only up to a given release (both tables agree with the flags' releases,
#: kvguard.launch.argv.FLAGS: tests/test_api.py)
_FIELD_UNTIL = {"swap_space": "0.17.1", "logits_processor_pattern": "0.16.0", "max_num_partial_prefills": "0.26.0",
                "max_long_partial_prefills": "0.26.0", "preemption_mode": "0.10.2", "disable_async_output_proc": "0.10.2",
                "scheduler_delay_factor": "0.10.2", "guided_decoding_backend": "0.11.2",
                "guided_decoding_disable_any_whitespace": "0.11.2",
                "guided_decoding_disable_additional_properties": "0.11.2", "num_lookahead_slots": "0.11.2"}


def env_as_strings(env: Optional[Mapping[str, Any]]) -> dict[str, str]:
    if env is None:
        return {}
    if not isinstance(env, Mapping):
        raise InputError(f"env must be a mapping of strings, not {type(env).__name__}", source="<env>")
    out = {}
    for key, value in env.items():
        if not isinstance(key, str):
            raise InputError("environment variable names must be strings", source="<env>", key=repr(key))
        # os.environ only holds strings: what vLLM would read is str(value)
        out[key] = value if isinstance(value, str) else str(value)
    return out


def _facts_or_crash(config: Any, release: Release, env: dict[str, str], *,
                    trust_remote_code: bool = False, model_path: Optional[str] = None) -> "ModelFacts | Crash":
    if isinstance(config, ModelFacts):
        if config.vllm_version != release_key(release):
            raise InputError(f"these ModelFacts were derived for vLLM {config.vllm_version}, not "
                             f"{release.key}; pass the config itself", source="<facts>")
        return config
    model = find_config(config)
    raw = model.config
    if model_path is None:
        model_path = model.model_path
    return derive(raw, release, env, trust_remote_code=trust_remote_code, model_path=model_path)


def resolve_config(config: Any) -> tuple[str, "ModelFacts | dict[str, Any]", Optional[dict[str, Any]], Optional[str]]:
    """``(label, what check takes, the raw config or None, the model path)`` for a path, a model id
    (:func:`kvguard.launch.resolve.resolve_config`), a mapping or :class:`ModelFacts` — what
    ``audit``, ``plan`` and ``predict_capacity`` read, as :func:`check` reads it."""
    if isinstance(config, ModelFacts):
        return (config.architectures[0] if config.architectures else "<facts>"), config, None, None
    model = find_config(config)
    return model.name, model.config, model.config, model.model_path


_VERSIONED_FIELDS = frozenset(_FIELD_SINCE) | frozenset(_FIELD_UNTIL)


def field_exists(name: str, release: Release) -> bool:
    """Whether the launch field ``name`` (EngineArgs / a CLI flag) exists in ``release``."""
    return release.within(_FIELD_SINCE.get(name), _FIELD_UNTIL.get(name))


def _check_fields(layout: Layout, release: Release) -> None:
    if _VERSIONED_FIELDS.isdisjoint(layout.model_fields_set):
        return
    for name, since in _FIELD_SINCE.items():
        if name in layout.model_fields_set and not release.within(since):
            field = type(layout).model_fields[name]
            if getattr(layout, name) != field.default:
                raise InputError(f"does not exist in vLLM {release.version} (added in {since})",
                                 source="<layout>", key=name)
    for name, until in _FIELD_UNTIL.items():
        if name in layout.model_fields_set and not release.within(None, until):
            field = type(layout).model_fields[name]
            if getattr(layout, name) != field.default:
                raise InputError(f"does not exist in vLLM {release.version} (removed after {until})",
                                 source="<layout>", key=name)


#: (version string, nearest) -> Release; parsing and range lookup cost more than a check
_RELEASES: dict[tuple[str, bool], Release] = {}


def resolve_release(vllm_version: Any, nearest: bool = False) -> Release:
    """:func:`kvguard.versions.resolve`, memoised for version strings (``None`` is not
    memoised: it reads the installed vLLM's metadata)."""
    if type(vllm_version) is not str:
        return resolve(vllm_version, nearest=nearest)
    key = (vllm_version, bool(nearest))
    release = _RELEASES.get(key)
    if release is None:
        release = resolve(vllm_version, nearest=nearest)
        if len(_RELEASES) < 4096:
            _RELEASES[key] = release
    return release


def prepare_check(config: Any, layout: Layout | Mapping[str, Any] | None, vllm_version: Any,
                  env: Optional[Mapping[str, Any]], fields: Mapping[str, Any], nearest: bool,
                  model_path: Optional[str] = None) -> tuple[Release, dict[str, str], Layout, "ModelFacts | Crash"]:
    """What :func:`check` evaluates: (the release, the environment vLLM sees, the layout, the model
    facts — or the Crash of vLLM building its ModelConfig); raises what check raises for bad input."""
    release = resolve_release(vllm_version, nearest)
    env_d = env_as_strings(env)
    lay = make_layout(layout, **fields)
    _check_fields(lay, release)
    facts = _facts_or_crash(config, release, env_d, trust_remote_code=lay.trust_remote_code,
                            model_path=model_path)
    return release, env_d, lay, facts


def _is_registered(architectures, release: Release) -> bool:
    return not archs.registry_loaded() or archs.registered_arch(architectures, release) is not None


def require_registered_architecture(facts: ModelFacts, release: Release) -> None:
    """Raise Undecidable unless the release's model registry knows the model's architectures."""
    architectures = facts.architectures
    # kept per release (engine.per_release: found by the Release's id, not by hashing it) and architectures
    answers = per_release(release).registered
    try:
        known = answers.get(architectures)
        if known is None:
            known = _is_registered(architectures, release)
            if len(answers) < 1024:
                answers[architectures] = known
    except TypeError:  # architectures given as an unhashable list
        known = _is_registered(architectures, release)
    if not known:
        names = ", ".join(map(str, facts.architectures)) or "(none)"
        raise Undecidable(
            f"architectures [{names}] are not in vLLM {release.version}'s model registry; vLLM would "
            "try the Transformers backend or remote code, which kvguard does not model"
        )


def speculative_input(speculative_config: Any, config: Any, *, model_path: Optional[str] = None,
                      draft_config: Any = None, trust_remote_code: bool = False) -> Any:
    """The :class:`kvguard.speculative.SpeculativeInput` for ``check(..., speculative_config=…)``: a mapping
    (``--speculative-config``'s JSON), or a prepared input (returned as it is), or None.

    A draft named in it (``"model"``) is found as ``vllm serve`` would find a model — a local directory,
    the Hugging Face cache (offline), kvguard's catalog — or taken from ``draft_config`` (a path to its
    config.json or directory, or the parsed mapping) when given."""
    from ..speculative import SpeculativeInput

    if speculative_config is None or isinstance(speculative_config, SpeculativeInput):
        return speculative_config
    if not isinstance(speculative_config, Mapping):
        raise InputError(f"speculative_config must be a mapping, not {type(speculative_config).__name__}",
                         source="<speculative_config>")
    target_raw = None
    if not isinstance(config, ModelFacts):
        target = find_config(config)   # a mapping, a path, or a model id (as check reads it)
        target_raw = target.config
        if model_path is None and target.source in ("file", "directory"):
            model_path = os.path.dirname(target.location)

    def resolve(name: str, revision: Optional[str]):
        if draft_config is not None:
            from ..launch.load import load_checkpoint_config

            raw, label = load_checkpoint_config(draft_config)
            return raw, label
        from ..launch.resolve import resolve_model

        found = resolve_model(name, revision=revision, env={})
        return found.config, f"{found.source}: {found.location}"

    return SpeculativeInput(config=dict(speculative_config), target_model=model_path or "/model",
                            target_raw=target_raw, resolve=resolve, trust_remote_code=trust_remote_code)


def check(config: Any, layout: Layout | Mapping[str, Any] | None = None, *,
          vllm_version: "str | Release | None" = None, env: Optional[Mapping[str, str]] = None,
          host: Optional[Host] = None, nearest: bool = False, entry: str = "serve",
          model_path: Optional[str] = None, model_dir: Optional[str] = None, speculative_config: Any = None,
          draft_config: Any = None, **fields: Any) -> Verdict:
    """What ``vllm serve`` of ``vllm_version`` does with this model and layout.

    ``config``: path to a config.json or its directory, a parsed mapping, or
    :class:`ModelFacts`.  ``layout``/``fields``: vLLM's EngineArgs field names
    or the short ones (``tp``, ``pp``, ``dp``, ``pcp``, ``dcp``).  ``env``: the
    environment variables vLLM sees (``None`` = none set; the process
    environment is never read).  ``host``: machine facts for the checks that
    depend on them; unknown facts make those checks ``skipped``.
    ``entry="config"`` models ``ParallelConfig(**fields)`` +
    ``verify_with_parallel_config`` called directly instead of ``vllm serve``.
    ``model_path``: the model as vLLM is given it (``vllm serve MODEL``); a few
    upstream messages quote it (default: the config's directory, else "/model").
    ``model_dir``: a local directory holding the checkpoint's other files vLLM reads for the
    maximum length (sentence-transformers configs, tokenizer_config.json; default: ``model_path``
    or the config's directory when it is one — none is read otherwise).
    ``speculative_config``: ``--speculative-config`` as a mapping (``{"method": "mtp",
    "num_speculative_tokens": 1}``, ``{"model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", …}``); a draft it
    names is found like a model (local directory, Hugging Face cache, catalog) or read from
    ``draft_config``.

    Returns a :class:`Verdict`; raises :class:`InputError`,
    :class:`UnsupportedVersion` or :class:`Undecidable` when kvguard cannot answer.
    """
    if entry not in ("serve", "config"):
        raise InputError("entry must be 'serve' or 'config'", source="<check>", key="entry")
    # reports_internal_errors inline: check is the hot path (plan, scans), a wrapper call costs ~5%
    try:
        release, env_d, lay, facts = prepare_check(config, layout, vllm_version, env, fields, nearest, model_path)
        notes = _release_notes(release)
        if entry == "serve":
            # when vLLM is imported (to 0.30.0) or right after its parser (0.31.0+): before any config is built
            logging_off = logging_refusal_verdict(release, lay, env_d) if logging_inputs_given(lay, env_d) else None
            if logging_off is not None:
                return logging_off.with_notes(*notes) if notes else logging_off
            parser_refusal_undecidable(release, env_d)      # 0.13.0 - 0.14.1: building the parser, before argparse
            # a value a vllm.envs getter refuses, read where not modelled
            env_value_undecidable(release, env_d, lay.grpc_port, getattr(host, "platform", None))
        if lay.max_model_len is not None:
            # ModelConfig's field validation (--max-model-len) comes before any config is read
            refused = field_verdict(release, lay)
            if refused is not None:
                return refused.with_notes(*notes) if notes else refused
        if isinstance(facts, Crash):
            return verdict_from_crash(release, facts, stage="model_config", check="model_config",
                                      layout=lay, notes=notes)
        require_registered_architecture(facts, release)
        spec = None
        if speculative_config is not None:
            spec = speculative_input(speculative_config, config, model_path=model_path, draft_config=draft_config,
                                     trust_remote_code=lay.trust_remote_code)
            notes = notes + tuple(spec.notes)
        all_notes = notes + tuple(facts.notes) if notes or facts.notes else ()
        sidecar = None
        if model_dir is not None or model_path is not None or isinstance(config, (str, os.PathLike)):
            from ..length import find_sidecar

            sidecar = find_sidecar(config, model_dir, model_path)
        verdict = evaluate(release, facts, lay, env=env_d, host=host or Host(), entry=entry, notes=all_notes,
                           sidecar=sidecar, spec=spec)
        if verdict.ok and entry == "serve":
            # a refused value the rules did not reach: the release reads it once the engine has started
            env_value_accepted_undecidable(release, env_d, lay.grpc_port, getattr(host, "platform", None))
        return verdict.with_notes(*all_notes) if all_notes else verdict
    except KvguardError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever else escapes is kvguard's own failure
        raise InternalError.of(exc) from exc


def _release_notes(release: Release) -> tuple[str, ...]:
    if not release.requested and not release.patches:
        return ()
    notes = []
    if release.requested:
        notes.append(f"vLLM {release.requested} is not a known release: using the rules of "
                     f"{release.version}, the closest older one")
    if release.patches:
        notes.append("includes unreleased patch(es): " + ", ".join(sorted(release.patches)))
    return tuple(notes)


@reports_internal_errors
def model_facts(config: Any, *, vllm_version: Optional[str] = None,
                env: Optional[Mapping[str, str]] = None, nearest: bool = False,
                trust_remote_code: bool = False, model_path: Optional[str] = None) -> ModelFacts:
    """The model facts ``vllm_version`` derives from ``config``.

    Raises :class:`ModelConfigRefused` when vLLM itself fails building its
    ModelConfig from this config (the verdict is attached).
    """
    release = resolve_release(vllm_version, nearest)
    env_d = env_as_strings(env)
    facts = _facts_or_crash(config, release, env_d, trust_remote_code=trust_remote_code,
                            model_path=model_path)
    if isinstance(facts, Crash):
        raise ModelConfigRefused(verdict_from_crash(release, facts, stage="model_config",
                                                    check="model_config"))
    # ModelConfig built with its defaults reaches get_sliding_window(), whatever the launch
    read_crash = facts.deferred.get(SLIDING_WINDOW_READ)
    if read_crash is not None:
        raise ModelConfigRefused(verdict_from_crash(release, read_crash, stage="model_config",
                                                    check="model_config"))
    return facts


#: the largest ``tp * pcp`` whose ``-dcp`` sizes :func:`legal_dcp_sizes` lists (and the largest
#: pipeline kvguard sizes): a million GPUs is past any deployment, and above it the enumeration
#: (the divisors of an arbitrary number, each one checked) would cost minutes or years
MAX_ENUMERATED_GPUS = 1 << 20


def divisors(n: int) -> list[int]:
    small, large = [], []
    i = 1
    while i * i <= n:
        if n % i == 0:
            small.append(i)
            if i * i != n:
                large.append(n // i)
        i += 1
    return small + large[::-1]


@reports_internal_errors
def legal_dcp_sizes(config: Any, tp: int, pcp: int = 1, *, vllm_version: Optional[str] = None,
                    env: Optional[Mapping[str, str]] = None, host: Optional[Host] = None,
                    nearest: bool = False, **fields: Any) -> list[int]:
    """Every ``-dcp`` size that ``vllm serve`` accepts with this tp/pcp (and other fields).

    Only divisors of ``tp * pcp`` can pass (in every release tp must be a
    multiple of dcp, or with PCP dcp is 1, pcp or tp*pcp), so only those are
    tried; each listed size passes :func:`check`, every other size fails it.
    """
    base = dict(fields)
    base.update(tensor_parallel_size=tp, prefill_context_parallel_size=pcp)
    release, env_d, lay, facts = prepare_check(config, None, vllm_version, env, base, nearest)
    if isinstance(facts, Crash):
        return []
    require_registered_architecture(facts, release)
    limit = max(1, tp * pcp) if isinstance(tp, int) and isinstance(pcp, int) else 1
    if limit > MAX_ENUMERATED_GPUS:
        raise Undecidable(f"-tp {tp} -pcp {pcp} is {limit:,} GPUs: kvguard lists the legal -dcp sizes of "
                          f"layouts of up to {MAX_ENUMERATED_GPUS:,} GPUs")
    out = []
    for dcp in divisors(limit):
        lay_d = lay.model_copy(update={"decode_context_parallel_size": dcp})
        if evaluate(release, facts, lay_d, env=env_d, host=host or Host()).ok:
            out.append(dcp)
    return out


# ---------------------------------------------------------------------------


def validate(config: Any, layout: Layout | Mapping[str, Any] | None = None, *,
             vllm_version: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
             host: Optional[Host] = None, nearest: bool = False, entry: str = "serve",
             model_path: Optional[str] = None, **fields: Any) -> Verdict:
    """Like :func:`check`, but raise what ``vllm serve`` would raise.

    Where vLLM's pydantic wrapping applies, a real ``pydantic.ValidationError``
    titled with the wrapping class and carrying vLLM's error entry; otherwise
    the raw exception (``NotImplementedError``, ``ZeroDivisionError``, …).
    Returns the (ok) :class:`Verdict` when vLLM accepts the launch.
    """
    verdict = check(config, layout, vllm_version=vllm_version, env=env, host=host,
                    nearest=nearest, entry=entry, model_path=model_path, **fields)
    if verdict.ok:
        return verdict
    raise to_exception(verdict)


_BUILTIN = {
    name: getattr(__import__("builtins"), name)
    for name in ("ValueError", "AssertionError", "NotImplementedError", "ZeroDivisionError",
                 "TypeError", "KeyError", "AttributeError", "RuntimeError", "IndexError")
}
_FOREIGN: dict[str, type] = {}


def _raw_exception(verdict: Verdict) -> BaseException:
    name = verdict.exc_type or "RuntimeError"
    message = verdict.message or ""
    if verdict.check == "EA_dp_backend" and verdict.layout is not None:
        return AssertionError(("data_parallel_backend can only be ray or mp, got %s",
                               verdict.layout.data_parallel_backend))
    cls = _BUILTIN.get(name)
    if cls is KeyError:
        try:
            import ast

            return KeyError(ast.literal_eval(message))
        except (ValueError, SyntaxError):
            return KeyError(message)
    if cls is None:
        cls = _FOREIGN.get(name)
        if cls is None:  # e.g. huggingface_hub's StrictDataclassFieldValidationError
            cls = type(name, (Exception,), {"__module__": "kvguard.foreign"})
            _FOREIGN[name] = cls
    if not message and cls is AssertionError:
        return AssertionError()
    return cls(message)


def to_exception(verdict: Verdict) -> BaseException:
    """The exception ``vllm serve`` would raise for a refusing verdict."""
    if verdict.ok:
        raise ValueError("verdict is ok: nothing to raise")
    if verdict.wrapped_by is None:
        return _raw_exception(verdict)
    from pydantic_core import ArgsKwargs, ValidationError

    if verdict.exc_type == "ValidationError":
        line_errors: list[Any] = []  # pydantic's InitErrorDetails, a TypedDict the items build key by key
        for e in verdict.errors:
            item: dict[str, Any] = {"type": e.type, "loc": e.loc, "input": e.input}
            if e.ctx:
                item["ctx"] = e.ctx
            line_errors.append(item)
        return ValidationError.from_exception_data(verdict.wrapped_by, line_errors)
    inner = _raw_exception(verdict)
    kind = "assertion_error" if isinstance(inner, AssertionError) else "value_error"
    if len(verdict.errors) == 1 and verdict.errors[0].loc:
        # a field validator's error: pydantic places it at its field, the field's value its input
        placed = verdict.errors[0]
        return ValidationError.from_exception_data(
            verdict.wrapped_by, [{"type": kind, "loc": placed.loc, "input": placed.input, "ctx": {"error": inner}}])
    kwargs = verdict.layout.model_dump(exclude_defaults=True) if verdict.layout is not None else {}
    return ValidationError.from_exception_data(
        verdict.wrapped_by,
        [{"type": kind, "loc": (), "input": ArgsKwargs((), kwargs), "ctx": {"error": inner}}],
    )
