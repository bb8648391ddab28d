"""ObservabilityConfig's checks of the tracing and metrics options (vllm/config/observability.py; 0.10.2:
vllm/config/__init__.py), built by ``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) after SchedulerConfig
and the --attention-backend name, before VllmConfig; pydantic wraps what they raise in a ValidationError for
ObservabilityConfig.

- ``--collect-detailed-traces``: its values are validated as the literals ``model`` / ``worker`` / ``all`` first (a
  comma-joined pair such as ``model,worker``, which the parser's choices allow up to 0.30.0, and ``None``, which
  0.31.0+'s choices allow, are refused with pydantic's message, which names the host's pydantic version:
  undecidable).
- 0.11.1+: ``--show-hidden-metrics-for-version`` must parse as a version (packaging's InvalidVersion, its own type,
  still wrapped by ObservabilityConfig); ``--collect-detailed-traces`` without ``--otlp-traces-endpoint`` is a
  ValueError.  0.10.2 / 0.11.0 check neither (the version string is only compared, never parsed).
- 0.12.0+: ``--kv-cache-metrics-sample``'s field bound (``gt=0, le=1``), an option kvguard otherwise passes over
  (kvguard.launch.argv carries a value outside it): pydantic's ValidationError for ObservabilityConfig, after the
  field validators of the options declared before it (checked by the rows before); with 0.33.0's
  ``--custom-histogram-buckets`` (whose validators may add errors) or a non-finite value, undecidable.
- ``--otlp-traces-endpoint``: vLLM refuses it when OpenTelemetry does not import, quoting the host's import
  traceback.  OpenTelemetry is a dependency of the release from 0.17.0 (it imports wherever the release is installed:
  passes); before 0.17.0 it is an optional extra, so such a launch is undecidable.
"""

from __future__ import annotations

from ..launch.layout import list_values

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["TRACES_MESSAGE", "VERSION_MESSAGE", "hidden_metrics_version_invalid", "metrics_sample_bound",
           "otlp_endpoint", "trace_modules", "traces_without_endpoint"]

TRACES_MESSAGE = "collect_detailed_traces requires `--otlp-traces-endpoint` to be set."
VERSION_MESSAGE = "Invalid version: {value!r}"
#: the literals of DetailedTraceModules
_MODULES = ("model", "worker", "all")
#: the first release whose requirements include OpenTelemetry
_OTEL_REQUIRED = "0.17.0"


def trace_modules(state: Any) -> None:
    """pydantic's validation of the list against DetailedTraceModules (every release)."""
    bad = [word for word in list_values(state.layout.collect_detailed_traces) if word not in _MODULES]
    if bad:
        state.undecided(f"--collect-detailed-traces {bad[0]!r} is no module name ('model', 'worker' or 'all'): "
                        "ObservabilityConfig refuses it with pydantic's message, which names the host's pydantic "
                        "version: kvguard does not quote it")


def otlp_endpoint(state: Any) -> None:
    """The OpenTelemetry import check of ``--otlp-traces-endpoint``."""
    if state.layout.otlp_traces_endpoint is None or state.release.within(_OTEL_REQUIRED):
        return
    state.undecided(f"--otlp-traces-endpoint: OpenTelemetry is an optional extra of vLLM {state.release.version} "
                    "(a dependency from 0.17.0); whether it imports on the host is unknown, and vLLM's refusal "
                    "quotes the host's import traceback")


def hidden_metrics_version_invalid(state: Any) -> bool:
    """0.11.1+: packaging's ``parse`` of ``--show-hidden-metrics-for-version``; its InvalidVersion is raised here
    (a Refusal: the type is packaging's, the wrapping ObservabilityConfig's)."""
    value = state.layout.show_hidden_metrics_for_version
    if value is None:
        return False
    from packaging.version import InvalidVersion, Version

    try:
        Version(value)
    except InvalidVersion:
        pass
    else:
        return False
    if any(ch in value for ch in "'\"\\") or not value.isprintable():
        state.undecided(f"--show-hidden-metrics-for-version {value!r} is no version; packaging words its message "
                        "for such a string differently across its releases (quoted as given in older ones, by repr in "
                        "26.x): kvguard does not quote it")
    from .engine import Refusal

    message = VERSION_MESSAGE.format(value=value)
    # the OTLP endpoint's and the trace modules' validator errors join the same ValidationError (undecidable in
    # their rows, so here too)
    otlp_endpoint(state)
    trace_modules(state)
    _beside_sample_bound(state, value, message)
    raise Refusal("InvalidVersion", message, wrapped_by="ObservabilityConfig")


def _beside_sample_bound(state: Any, value: str, message: str) -> None:
    """0.12.0+: the version's field validator and ``--kv-cache-metrics-sample``'s bound fail in one validation: one
    ValidationError, the version's ``value_error`` first (declared first), then the bound's (the 0.20.0 oracle).
    Beside the options whose validators between them may add errors, undecidable."""
    lay = state.layout
    sample = lay.kv_cache_metrics_sample_out_of_bounds
    if sample is None or not state.release.within("0.12.0"):
        return
    from .cache_config import bound_error, broken_bound

    if lay.otlp_traces_endpoint or lay.collect_detailed_traces is not None or lay.custom_histogram_buckets_given \
            or sample != sample or sample in (float("inf"), float("-inf")):
        state.undecided(f"--show-hidden-metrics-for-version {value!r} and --kv-cache-metrics-sample {sample}: "
                        "ObservabilityConfig refuses both in one ValidationError, beside options whose validators may "
                        "add errors kvguard does not render")
    broken = broken_bound(sample, (("gt", 0), ("le", 1)))
    if broken is None:
        return
    from ..verdict import ErrorEntry
    from .engine import Refusal

    entries = (ErrorEntry("value_error", ("show_hidden_metrics_for_version",), "Value error, " + message, value,
                          {"error": ValueError(message)}),
               bound_error("kv_cache_metrics_sample", sample, *broken))
    raise Refusal("ValidationError", entries[0].msg, errors=entries, wrapped_by="ObservabilityConfig")


def traces_without_endpoint(state: Any) -> bool:
    return state.layout.collect_detailed_traces is not None and not state.layout.otlp_traces_endpoint


def metrics_sample_bound(state: Any) -> None:
    """0.12.0+: ``kv_cache_metrics_sample: float = Field(gt=0, le=1)``, for a value the launch gives outside it."""
    lay = state.layout
    value = lay.kv_cache_metrics_sample_out_of_bounds
    if value is None:
        return
    # the fields declared before it have passed the rows before this one (a refused version beside it is rendered
    # there; a module name or a missing OpenTelemetry decide there); 0.33.0's histogram buckets, declared after it,
    # are not followed
    if lay.custom_histogram_buckets_given or value != value or value in (float("inf"), float("-inf")):
        state.undecided(f"ObservabilityConfig refuses --kv-cache-metrics-sample {value} with pydantic's message; "
                        "kvguard does not render it for a non-finite value or beside --custom-histogram-buckets, "
                        "whose validators may add errors to the same ValidationError")
    from .cache_config import bound_error, broken_bound
    from .engine import Refusal

    broken = broken_bound(value, (("gt", 0), ("le", 1)))
    if broken is None:
        return
    entry = bound_error("kv_cache_metrics_sample", value, *broken)
    raise Refusal("ValidationError", entry.msg, errors=(entry,))
