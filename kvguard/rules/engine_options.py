"""Engine options whose values vLLM refuses while it builds the configs (vllm/engine/arg_utils.py
``EngineArgs.create_engine_config`` and the configs it builds; each statement named per row below, as of the
releases 0.10.2 - 0.33.0):

- ``--config-format`` / ``--hf-config-path`` (every release): ModelConfig reads the checkpoint config with
  vllm/transformers_utils/config.py ``get_config``.  A format other than ``auto`` is looked up in the registered
  config parsers first (``get_config_parser``): a name neither ``hf`` nor ``mistral`` is ValueError ``Unknown config
  format `NAME`.`` (wrapped by ModelConfig), whatever the path.  ``mistral`` reads ``params.json`` (not read by
  kvguard: undecidable).  ``--hf-config-path`` sends the read to another repository or directory, which kvguard
  never sees: undecidable (the release's "Invalid repository ID or local directory" refusal depends on the host's
  files and the Hub).
- ``--model-impl terratorch`` (every release): the model registry (vllm/model_executor/models/registry.py
  ``_ModelRegistry.inspect_model_cls``) takes its TerraTorch class whatever the checkpoint names; that module imports
  the host's ``terratorch`` package, without which the inspection gives None and ModelConfig fails on it.  Whether
  the package is there is a host fact: undecidable.
- ``--distributed-executor-backend`` (0.19.0+: VllmConfig.__post_init__ asks ``Executor.get_class``
  (vllm/v1/executor/abstract.py)): a name other than ray / mp / uni / external_launcher is a qualified class name for
  ``resolve_obj_by_qualname`` (vllm/utils/import_utils.py), which splits it at its last dot; without a dot the
  unpacking fails: ValueError ``not enough values to unpack (expected 2, got 1)`` (wrapped by VllmConfig).  With a dot
  the module is imported from the host (undecidable).  Without the option, a world size below 1 (0.19.0 - 0.22.1:
  ``-tp -1``, ``-pp 0``, ``-pcp 0``) leaves ParallelConfig's backend None: ValueError ``Unknown distributed executor
  backend: None``.  Before 0.19.0 the engine resolves it only after the config
  (not modelled: undecidable).
- microbatching (``--enable-dbo`` 0.11.0+, ``--ubatch-size`` 0.14.0+): ParallelConfig.use_ubatching is
  ``enable_dbo or ubatch_size > 1``.  0.30.0+: ParallelConfig._verify_args refuses DBO thresholds below the number of
  microbatches (2 with --enable-dbo, else --ubatch-size).  VllmConfig.__post_init__ then asserts the all2all backend
  supports microbatching, after the platform's config hook (the CPU platform's turns --enable-dbo off, 0.11.0+); the
  message names the backends, worded per release
  (0.11.1 - 0.23.0 the two DeepEP ones; 0.24.0+ with nixl_ep; 0.33.0 per platform, ROCm also allowing
  allgather_reducescatter).
- OffloadConfig (vllm/config/offload.py, 0.17.0+; built after ObservabilityConfig): with ``--offload-backend prefetch``
  or a positive ``--offload-group-size`` the group must hold ``--offload-num-in-group`` layers and the prefetch step
  be at least 1 (ValueError wrapped by OffloadConfig).  Before, PrefetchOffloadConfig, built as OffloadConfig's
  argument, bounds its fields (``offload_group_size`` at least 0, ``offload_num_in_group`` at least 1,
  ``offload_prefetch_step`` at least 0, declared in that order): one ValidationError for PrefetchOffloadConfig, an
  error per field out of bounds.
- ``--kv-offloading-backend`` without ``--kv-offloading-size`` (0.11.1 - 0.13.0): the last statement of
  VllmConfig.__post_init__ (``_post_init_kv_transfer_config``): ValueError.  0.14.0+ offloads only with a size.
- the deprecated structured-output switches ``--guided-decoding-disable-any-whitespace`` (only with the xgrammar or
  guidance backend) and ``--guided-decoding-disable-additional-properties`` (only with guidance), validated together
  in that order:

  * 0.10.2: ``DecodingConfig.__post_init__`` (vllm/config/__init__.py), built by create_engine_config right after
    the load config, before ObservabilityConfig, with ``--guided-decoding-backend`` (default auto): ValueError
    wrapped by DecodingConfig.  The switches are BooleanOptionalAction there.
  * 0.11.0: create_engine_config assigns the switches to attributes StructuredOutputsConfig does not read: no effect.
  * 0.11.1 - 0.11.2: they are assigned to the StructuredOutputsConfig fields after the config is built (argparse's
    ``type=bool``: any word but an empty one is True), and VllmConfig's field validation re-runs the config's model
    validator (vllm/config/structured_outputs.py ``_validate_structured_output_config``, after its reasoning-parser
    check: kvguard.rules.table VC_reasoning_parser): ValueError wrapped by VllmConfig, before __post_init__.  The
    backend is ``--structured-outputs-config``'s; ``--guided-decoding-backend`` goes to an attribute nobody reads.
  * 0.12.0+: only the JSON of ``--structured-outputs-config`` sets them, validated while parsing (an argparse error
    with pydantic's message: kvguard.launch.argv declines what it cannot vouch for).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ADDITIONAL_PROPERTIES_MESSAGE", "CONFIG_FORMAT_MESSAGE", "DBO_THRESHOLD_MESSAGE", "EXECUTOR_MESSAGE",
           "EXECUTOR_NONE_MESSAGE", "KV_OFFLOADING_MESSAGE", "OFFLOAD_GROUP_MESSAGE", "OFFLOAD_STEP_MESSAGE", "PREFETCH_BOUNDS",
           "UBATCH_MESSAGE_0_11", "UBATCH_MESSAGE_0_24", "UBATCH_MESSAGE_0_33", "WHITESPACE_MESSAGE",
           "additional_properties_unsupported", "config_format_unknown", "config_read", "dbo_threshold_bind",
           "dbo_thresholds_low", "executor_none", "executor_resolved_late", "executor_unresolvable",
           "kv_offloading_without_size", "offload_group_invalid", "offload_step_invalid", "terratorch_impl",
           "ubatch_all2all_bind", "ubatch_all2all_unsupported", "whitespace_unsupported"]

CONFIG_FORMAT_MESSAGE = "Unknown config format `{config_format}`."
#: str() of the ValueError an unpacking of a one-element list raises (CPython 3.10 - 3.13 alike)
EXECUTOR_MESSAGE = "not enough values to unpack (expected 2, got 1)"
#: Executor.get_class's own refusal of a backend ParallelConfig left unset (0.19.0 - 0.22.1: a world size below 1)
EXECUTOR_NONE_MESSAGE = "Unknown distributed executor backend: None"
DBO_THRESHOLD_MESSAGE = ("dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the number of "
                         "microbatches ({ubatches}).")
UBATCH_MESSAGE_0_11 = ("Microbatching currently only supports the deepep_low_latency and deepep_high_throughput "
                       "all2all backend. {a2a} is not supported. To fix use --all2all-backend=deepep_low_latency or "
                       "--all2all-backend=deepep_high_throughput and install the DeepEP kernels.")
UBATCH_MESSAGE_0_24 = ("Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and "
                       "nixl_ep all2all backends. {a2a} is not supported. To fix use "
                       "--all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, or "
                       "--all2all-backend=nixl_ep and install the matching kernels.")
UBATCH_MESSAGE_0_33 = ("Microbatching currently only supports the {names} all2all backends on this platform. {a2a} is "
                       "not supported. To fix use one of {flags} and install the matching kernels.")
OFFLOAD_GROUP_MESSAGE = "offload_num_in_group ({in_group}) must be <= offload_group_size ({group})"
OFFLOAD_STEP_MESSAGE = ("offload_prefetch_step ({step}) must be >= 1 when prefetch offloading is enabled "
                        "(offload_group_size > 0)")
KV_OFFLOADING_MESSAGE = "You must set kv_offloading_size when kv_offloading_backend is set."
WHITESPACE_MESSAGE = "disable_any_whitespace is only supported for xgrammar and guidance backends."
ADDITIONAL_PROPERTIES_MESSAGE = "disable_additional_properties is only supported for the guidance backend."

#: the config parsers every release registers (vllm/transformers_utils/config.py _CONFIG_FORMAT_TO_CONFIG_PARSER)
_PARSERS = ("hf", "mistral")
#: the executor names Executor.get_class takes as they are
_EXECUTORS = ("ray", "mp", "uni", "external_launcher")
_DEEPEP = ("deepep_low_latency", "deepep_high_throughput")
#: ParallelConfig's DBO thresholds when not given (0.11.0+: decode 32, prefill 512)
_DBO_DEFAULTS = (32, 512)


# ----- ModelConfig: the checkpoint config's parser and path -----

def config_format_unknown(state: Any) -> bool:
    return state.layout.config_format not in ("auto", *_PARSERS)


def config_read(state: Any) -> None:
    """What get_config reads when the launch moves it: another format's file or another path (host facts)."""
    lay = state.layout
    if lay.config_format == "mistral":
        state.undecided("--config-format mistral: vLLM reads the checkpoint's params.json with its Mistral parser, "
                        "which kvguard does not read")
    if lay.hf_config_path is not None:
        state.undecided(f"--hf-config-path {lay.hf_config_path!r}: vLLM reads the model's config from that Hub "
                        "repository or host directory instead, which kvguard does not see (a path it cannot find is "
                        "refused: 'Invalid repository ID or local directory specified')")


def terratorch_impl(state: Any) -> None:
    """--model-impl terratorch: the registry inspects its TerraTorch class whatever the checkpoint names, a module
    that imports the host's terratorch package first.  Without that package the inspection gives nothing and
    ModelConfig stops on it (an AttributeError on None, an AssertionError from 0.33.0); with it, the TerraTorch
    model's own requirements apply.  Neither is a launch fact kvguard knows."""
    if state.layout.model_impl == "terratorch":
        state.undecided("--model-impl terratorch: vLLM resolves the model with the TerraTorch implementation, which "
                        "needs the host's terratorch package (without it ModelConfig fails on the missing model "
                        "class); whether it is installed, and what that model then requires, kvguard does not know")


# ----- VllmConfig: Executor.get_class (0.19.0+) -----

def executor_unresolvable(state: Any) -> bool:
    name = state.layout.distributed_executor_backend
    if name is None or name in _EXECUTORS:
        return False
    if "." in name:
        state.undecided(f"--distributed-executor-backend {name!r}: vLLM imports that qualified class name on the "
                        "host (whether its module imports and holds an Executor subclass is a fact of the host)")
    return True


def executor_none(state: Any) -> bool:
    """ParallelConfig picks a backend only for a world (across DP) above 1 or exactly 1: a size below 1 (possible up to
    0.22.1, before the sizes' Field(ge=1)) leaves it None, which Executor.get_class does not know."""
    return state.backend is None


def executor_resolved_late(state: Any) -> None:
    """0.10.2 - 0.18.1: the engine (AsyncLLM / run_headless) asks Executor.get_class only after the config, a statement
    kvguard does not evaluate (its refusal would come after every config check passed)."""
    name = state.layout.distributed_executor_backend
    if name is not None and name not in _EXECUTORS:
        state.undecided(f"--distributed-executor-backend {name!r}: vLLM {state.release.version} resolves it as a "
                        "qualified class name only when the engine starts, after the configuration (not modelled; a "
                        "name without a dot fails to unpack there, a dotted one is imported on the host)")


# ----- microbatching -----

def _ubatches(state: Any) -> int:
    """ParallelConfig.num_ubatches."""
    return 2 if state.layout.enable_dbo else state.layout.ubatch_size


def _ubatching(state: Any) -> bool:
    return state.layout.enable_dbo or state.layout.ubatch_size > 1


def dbo_thresholds_low(state: Any) -> bool:
    if not _ubatching(state):
        return False
    lay = state.layout
    decode = _DBO_DEFAULTS[0] if lay.dbo_decode_token_threshold is None else lay.dbo_decode_token_threshold
    prefill = _DBO_DEFAULTS[1] if lay.dbo_prefill_token_threshold is None else lay.dbo_prefill_token_threshold
    return min(decode, prefill) < _ubatches(state)


def dbo_threshold_bind(state: Any) -> dict:
    return {"ubatches": _ubatches(state)}


def _all2all(state: Any) -> str:
    """ParallelConfig.all2all_backend as VllmConfig reads it: the flag, else VLLM_ALL2ALL_BACKEND (0.11.1 - 0.13.0:
    the flag's None default; 0.14.0+ a set variable overrides the flag until it was dropped), else
    allgather_reducescatter."""
    given = state.layout.all2all_backend
    if "VLLM_ALL2ALL_BACKEND" in state.env:
        state.undecided("VLLM_ALL2ALL_BACKEND is set: which all2all backend microbatching meets depends on the "
                        "release's handling of the deprecated variable (not modelled)")
    if given in ("pplx", "naive"):
        state.undecided(f"--all2all-backend {given}: a removed backend some releases replace by "
                        "allgather_reducescatter before microbatching is checked (not modelled)")
    return "allgather_reducescatter" if given is None else given


def _ubatch_backends(state: Any) -> tuple[str, ...]:
    if not state.release.within("0.24.0"):
        return _DEEPEP
    if state.release.within("0.33.0") and state.need("platform") == "rocm":
        return (*_DEEPEP, "nixl_ep", "allgather_reducescatter")
    return (*_DEEPEP, "nixl_ep")


def ubatch_all2all_unsupported(state: Any) -> bool:
    lay = state.layout
    if not (lay.enable_dbo or lay.ubatch_size > 1):
        return False
    # the CPU platform's config hook (which runs first) turns --enable-dbo off; --ubatch-size it leaves
    if lay.ubatch_size <= 1 and state.need("platform") == "cpu":
        return False
    return _all2all(state) not in _ubatch_backends(state)


def ubatch_all2all_bind(state: Any) -> dict:
    names = _ubatch_backends(state)
    return {"a2a": _all2all(state), "names": ", ".join(names),
            "flags": ", ".join("--all2all-backend=" + name for name in names)}


# ----- OffloadConfig's model validator (0.17.0+) -----

def _prefetch_values(state: Any) -> tuple[int, int, int]:
    lay = state.layout
    group = 0 if lay.offload_group_size is None else lay.offload_group_size
    in_group = 1 if lay.offload_num_in_group is None else lay.offload_num_in_group
    step = 1 if lay.offload_prefetch_step is None else lay.offload_prefetch_step
    return group, in_group, step


#: PrefetchOffloadConfig's bounded fields in declaration order (vllm/config/offload.py, 0.17.0 - 0.33.0)
PREFETCH_BOUNDS = (("offload_group_size", 0), ("offload_num_in_group", 1), ("offload_prefetch_step", 0))


def _prefetch_checked(state: Any) -> bool:
    """Whether OffloadConfig's validator checks the prefetch group; first, PrefetchOffloadConfig's field bounds."""
    from .cache_config import bound_error

    values = _prefetch_values(state)
    entries = tuple(bound_error(name, value, "ge", least)
                    for (name, least), value in zip(PREFETCH_BOUNDS, values) if value < least)
    if entries:
        from .engine import Refusal

        raise Refusal("ValidationError", entries[0].msg, errors=entries, wrapped_by="PrefetchOffloadConfig")
    return state.layout.offload_backend == "prefetch" or values[0] > 0


def offload_group_invalid(state: Any) -> bool:
    group, in_group, _step = _prefetch_values(state)
    return _prefetch_checked(state) and in_group > group


def offload_group_bind(state: Any) -> dict:
    group, in_group, _step = _prefetch_values(state)
    return {"group": group, "in_group": in_group}


def offload_step_invalid(state: Any) -> bool:
    return _prefetch_checked(state) and _prefetch_values(state)[2] < 1


def offload_step_bind(state: Any) -> dict:
    return {"step": _prefetch_values(state)[2]}


# ----- 0.11.1 - 0.13.0: VllmConfig._post_init_kv_transfer_config -----

def kv_offloading_without_size(state: Any) -> bool:
    return state.layout.kv_offloading_backend is not None and state.layout.kv_offloading_size is None


# ----- the deprecated --guided-decoding-* switches (0.10.2; 0.11.1 - 0.11.2) -----

def _decoding_backend(state: Any) -> str:
    """The backend the validator compares: 0.10.2's --guided-decoding-backend, 0.11.x's --structured-outputs-config
    backend (the deprecated flag lands on an attribute the config does not read); auto when not given."""
    lay = state.layout
    given = lay.guided_decoding_backend if not state.release.within("0.11.0") else lay.structured_outputs_backend
    return given or "auto"


def whitespace_unsupported(state: Any) -> bool:
    return bool(state.layout.guided_decoding_disable_any_whitespace) and \
        _decoding_backend(state) not in ("xgrammar", "guidance")


def additional_properties_unsupported(state: Any) -> bool:
    return bool(state.layout.guided_decoding_disable_additional_properties) and _decoding_backend(state) != "guidance"
