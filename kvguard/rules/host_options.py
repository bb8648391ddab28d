"""Options whose verdict is a fact of the host: sleep mode and the cumem allocator, --device-ids, the logging config file.

Mirrors, per release:

- ``vllm/config/model.py::ModelConfig.__post_init__`` (0.10.2: ``vllm/config/__init__.py``), 0.10.2 - 0.33.0: the
  sleep-mode check (``current_platform.is_sleep_mode_available()``, ``vllm/platforms/interface.py``: CUDA only to
  0.11.0, CUDA and ROCm 0.11.1 - 0.22.1, CUDA, ROCm and XPU from 0.23.0) and, from 0.22.0, the cumem allocator's
  (``is_cumem_allocator_available``: whether ``vllm.device_allocator.cumem`` finds the compiled ``cumem_allocator``
  extension, built for CUDA and ROCm only), both before the model's config is read;
- ``vllm/engine/arg_utils.py::EngineArgs._resolve_device_ids`` (0.24.0 - 0.33.0), evaluated as ParallelConfig's
  ``assigned_physical_gpu_ids`` argument, with ``Platform.device_control_id_to_physical_device_id``
  (``vllm/platforms/interface.py``; CUDA's NVML subclass in ``vllm/platforms/cuda.py`` looks a UUID up);
- ``vllm/engine/arg_utils.py::EngineArgs.create_engine_config`` (0.30.0 - 0.33.0), after OffloadConfig: the KDA
  prefill kernels ``--kda-prefill-backend`` names that only one platform has (flashkda CUDA, fused ROCm);
- ``vllm/logger.py::_configure_vllm_root_logger``: the logging config file, read when vLLM is imported
  (``VLLM_LOGGING_CONFIG_PATH``, 0.10.2 - 0.30.0) or when ``vllm serve`` applies its LoggingConfig right after argparse
  (0.31.0 - 0.33.0: ``--logging-config``'s ``pylogging_config_file``, whose default is that variable;
  ``--log-config-file`` overrides both and is kvguard.rules.serve_args's); before the file is looked for, the same
  function refuses one while logging configuration is off (``VLLM_CONFIGURE_LOGGING``, 0.31.0+ LoggingConfig's
  ``configure_logging``), which to 0.30.0 happens at import, before the argument parser (kvguard.front); with
  configuration on and no file, ``logging.config.dictConfig`` then refuses a log level Python's logging does not name
  (``VLLM_LOGGING_LEVEL`` upper-cased, ``vllm/envs.py``; 0.31.0+ LoggingConfig's ``log_level``, whose default is that
  variable): ValueError "Unable to configure handler 'vllm'" (FE_logging_level);
- ``vllm/logger.py::configure_logging_from_args`` and ``vllm/engine/arg_utils.py::EngineArgs.create_logging_config``
  (0.31.0 - 0.33.0): LoggingConfig's ``log_level`` default (VLLM_LOGGING_LEVEL) is not validated when LoggingConfig is
  built, but ``dataclasses.replace`` validates every field: replacing the file (``--log-config-file``, right after
  argparse; the engine's copy of ``pylogging_config_file`` first thing in ``create_engine_config``) with a level
  ``LogLevel`` (``vllm/config/logging.py``) lacks is a ValidationError for LoggingConfig (fe_ / ea_logging_level_field).

The platform is :class:`~kvguard.launch.layout.Host`'s ``platform`` (assumed CUDA unless stated); whether a file
exists on the host, or which GPU a UUID names, is not known to kvguard: those checks are skipped with the reason.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, Optional

__all__ = ["CUMEM_MESSAGE", "DEVICE_IDS_DUPLICATES", "DEVICE_IDS_MIXED", "DEVICE_IDS_RANGE", "DEVICE_ID_NOT_INT",
           "KDA_PREFILL_MESSAGE", "LOGGING_DISABLED_CONFIG", "LOGGING_DISABLED_ENV", "LOGGING_LEVEL_CHOICES",
           "LOGGING_LEVEL_MESSAGE",
           "SLEEP_MESSAGE",
           "cumem_unavailable", "device_id_bind", "device_ids_duplicates", "device_ids_mixed", "device_ids_not_int",
           "device_ids_range", "device_ids_values", "device_ids_visible_not_int", "device_range_bind",
           "import_refusal", "import_refusal_verdict", "kda_prefill_bind", "kda_prefill_off_platform", "logging_disabled_with_file", "logging_file_unknown",
           "logging_level_field", "logging_level_field_engine",
           "logging_level_field_frontend", "logging_level_refused", "logging_level_unknown", "logging_off_with_file", "logging_refusal_verdict",
           "sleep_unavailable"]

SLEEP_MESSAGE = "Sleep mode is not supported on current platform."
CUMEM_MESSAGE = "cumem allocator is not supported on current platform."
DEVICE_IDS_DUPLICATES = "--device-ids must not contain duplicates: {ids}"
DEVICE_IDS_MIXED = "--device-ids must not mix integer IDs and UUIDs"
DEVICE_ID_NOT_INT = "Non-integer device ID {device_id!r} is not supported by {device_name}."
DEVICE_IDS_RANGE = "--device-ids index {index} is out of range for {var}={cvd} ({count} devices visible)"

#: the platforms whose is_sleep_mode_available() is true, by the first release of each answer
_SLEEP_PLATFORMS = (("0.23.0", ("cuda", "rocm", "xpu")), ("0.11.1", ("cuda", "rocm")), ("0.10.2", ("cuda",)))
#: the platforms whose vLLM build has the cumem_allocator extension (vllm/device_allocator/cumem.py: "only cuda and
#: rocm platforms support cumem allocator")
_CUMEM_PLATFORMS = ("cuda", "rocm")
#: the device-control variable and the name each platform's error quotes (Platform.device_control_env_var /
#: device_name in vllm/platforms/{cuda,rocm,xpu,cpu}.py)
_DEVICE_CONTROL = {"cuda": ("CUDA_VISIBLE_DEVICES", "cuda"), "rocm": ("CUDA_VISIBLE_DEVICES", "rocm"),
                   "xpu": ("ZE_AFFINITY_MASK", "xpu"), "cpu": ("CPU_VISIBLE_MEMORY_NODES", "cpu")}


def _platform(state: Any, what: str) -> str:
    """The host's platform; from 0.11.1 vLLM's TPU platform is the tpu_inference package's class
    (vllm/platforms/tpu.py imports it), which kvguard does not model."""
    platform = state.need("platform")
    if platform == "tpu" and state.release.within("0.11.1"):
        state.unmodelled(f"on TPU, vLLM {state.release.version}'s platform is the tpu_inference package's, whose "
                         f"answer for {what} kvguard does not model")
    return platform


def _sleep_available(state: Any, platform: str) -> bool:
    for since, platforms in _SLEEP_PLATFORMS:
        if state.release.within(since):
            return platform in platforms
    return False


def sleep_unavailable(state: Any) -> bool:
    if not state.layout.enable_sleep_mode:
        return False
    return not _sleep_available(state, _platform(state, "sleep mode"))


def cumem_unavailable(state: Any) -> bool:
    """--enable-cumem-allocator, or sleep mode, which turns it on (0.22.x wherever sleep mode is available; from
    0.23.0 on CUDA and ROCm only), on a platform whose build lacks the allocator."""
    lay = state.layout
    if not (lay.enable_cumem_allocator or lay.enable_sleep_mode):
        return False
    platform = _platform(state, "the cumem allocator")
    wanted = lay.enable_cumem_allocator or (
        platform in _CUMEM_PLATFORMS if state.release.within("0.23.0") else True)
    return wanted and platform not in _CUMEM_PLATFORMS


def device_ids_values(state: Any) -> Optional[list]:
    """--device-ids as the release holds them: integers for items of digits only, else strings (None: not given or
    no item, which _resolve_device_ids passes over)."""
    text = state.layout.device_ids
    if text is None:
        return None
    return [int(item) if item.isdigit() else item for item in text.split("\0")]


def device_ids_duplicates(state: Any) -> bool:
    ids = device_ids_values(state)
    return ids is not None and len(set(ids)) != len(ids)


def _as_int(text: str) -> Optional[int]:
    try:
        return int(text)        # what the platform's conversion tries first: "-1", "+2", "1_0" are integers too
    except ValueError:
        return None


def _first_not_int(state: Any, items: list) -> Optional[str]:
    """The first item int() refuses: on CUDA, NVML looks it up as a UUID (which GPUs the host has is not known:
    skipped); on ROCm, XPU and CPU the platform refuses it."""
    for item in items:
        if _as_int(item) is None:
            if _platform(state, "a device UUID") == "cuda":
                state.skip(f"--device-ids names {item!r}, which vLLM {state.release.version} looks up among the "
                           "host's GPUs by UUID (NVML): which GPUs the host has is not known to kvguard")
            return item
    return None


def device_ids_not_int(state: Any) -> bool:
    """Only UUIDs (strings): each is converted in turn, the first that is no integer refused off CUDA."""
    ids = device_ids_values(state)
    if not ids or not all(isinstance(item, str) for item in ids):
        return False
    bad = _first_not_int(state, ids)
    if bad is None:
        return False
    state._device_id_bad = bad
    return True


def device_id_bind(state: Any) -> dict:
    return {"device_id": state._device_id_bad, "device_name": _DEVICE_CONTROL[state.host.platform][1]}


def device_ids_mixed(state: Any) -> bool:
    ids = device_ids_values(state) or []
    return any(isinstance(item, str) for item in ids) and not all(isinstance(item, str) for item in ids)


def _visible(state: Any) -> Optional[tuple[str, str]]:
    """Integer ids index the devices the platform's device-control variable lists when the launch's environment sets
    it (kvguard reads the variables given with --env; unset is vLLM's default): the variable and its value."""
    ids = device_ids_values(state)
    if not ids or not all(isinstance(item, int) for item in ids):
        return None
    platform = _platform(state, "the device-control variable")
    if platform not in _DEVICE_CONTROL:
        state.unmodelled("kvguard does not model this platform's device-control variable")
    var = _DEVICE_CONTROL[platform][0]
    cvd = state.env.get(var)
    if var not in state.env:
        # set, it would make the ids indices into its list (range-checked, each entry converted): its absence decided
        state.assumed_unset.add(var)
    return (var, cvd) if cvd else None


def device_ids_visible_not_int(state: Any) -> bool:
    """An entry of the device-control variable int() refuses (each is converted before the ids index them)."""
    visible = _visible(state)
    if visible is None:
        return False
    bad = _first_not_int(state, visible[1].split(","))
    if bad is None:
        return False
    state._device_id_bad = bad
    return True


def device_ids_range(state: Any) -> bool:
    visible = _visible(state)
    if visible is None:
        return False
    var, cvd = visible
    count = len(cvd.split(","))
    for index in device_ids_values(state) or []:
        if index >= count:
            state._device_range = {"index": index, "var": var, "cvd": cvd, "count": count}
            return True
    return False


def device_range_bind(state: Any) -> dict:
    return state._device_range


#: the refusal of a logging config file while logging configuration is off, before the file is looked for:
#: worded for the variables at import (to 0.30.0), for LoggingConfig's fields from 0.31.0
LOGGING_DISABLED_ENV = ("VLLM_CONFIGURE_LOGGING evaluated to false, but VLLM_LOGGING_CONFIG_PATH was given. "
                        "VLLM_LOGGING_CONFIG_PATH implies VLLM_CONFIGURE_LOGGING. Please enable "
                        "VLLM_CONFIGURE_LOGGING or unset VLLM_LOGGING_CONFIG_PATH.")
LOGGING_DISABLED_CONFIG = ("Logging configuration is disabled, but a Python logging config file was given. "
                           "pylogging_config_file requires configure_logging to be enabled.")


#: what logging.config.dictConfig raises (Python's wording, every supported Python) when the handler vLLM names
#: "vllm" is given a level name Python's logging lacks
LOGGING_LEVEL_MESSAGE = "Unable to configure handler 'vllm'"
#: the level names Python's logging knows (logging._nameToLevel); a name outside them is refused by dictConfig
_PYTHON_LEVELS = frozenset(("CRITICAL", "FATAL", "ERROR", "WARN", "WARNING", "INFO", "DEBUG", "NOTSET"))
#: LoggingConfig's log_level choices (0.31.0+, vllm/config/logging.py), which --log-level takes
_CONFIG_LEVELS = frozenset(("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET"))


#: the variables the logging rows read (vllm.envs): all unset, with none of LOGGING_OPTIONS given, logging is
#: configured with INFO and no file, which no release refuses (the rows' Row.env / Row.options tags)
LOGGING_ENV = ("VLLM_CONFIGURE_LOGGING", "VLLM_LOGGING_LEVEL", "VLLM_LOGGING_CONFIG_PATH")
#: the Layout fields the logging rows read (0.31.0+: --log-config-file, --logging-config, --log-level)
LOGGING_OPTIONS = ("log_config_file", "logging_config_file", "logging_config_file_null", "logging_configure",
                   "logging_level_given")
_LOGGING_ENV = frozenset(LOGGING_ENV)
_LOGGING_OPTIONS = frozenset(LOGGING_OPTIONS)


def logging_inputs_given(lay: Any, env: Mapping[str, str]) -> bool:
    """Whether the launch sets a logging variable or gives a logging option; without, none of the logging refusals
    can be raised (nor is anything undecidable), on any release."""
    return not (_LOGGING_ENV.isdisjoint(env) and _LOGGING_OPTIONS.isdisjoint(lay.model_fields_set))


def _env_level(env: Mapping[str, str]) -> str:
    """VLLM_LOGGING_LEVEL as vllm.envs reads it (upper-cased, default INFO; an empty value stays empty)."""
    return env.get("VLLM_LOGGING_LEVEL", "INFO").upper()


def logging_level_refused(release: Any, lay: Any, env: Mapping[str, str]) -> bool:
    """FE_logging_level: with logging configuration on and no logging config file (which replaces vLLM's own
    dictConfig, level included), a VLLM_LOGGING_LEVEL Python's logging does not name.  0.31.0+: only where the level
    is the variable's (no --log-level, no log_level in --logging-config); a level LoggingConfig lacks is refused
    elsewhere where a file is named (:func:`logging_level_field`), and passes with configuration off and no file.
    Call after FE_logging_disabled (VLLM_CONFIGURE_LOGGING is known to be an integer)."""
    level = _env_level(env)
    if level in (_CONFIG_LEVELS if release.within("0.31.0") else _PYTHON_LEVELS):
        return False
    if release.within("0.31.0"):
        if lay.logging_level_given:
            return False
        configure = lay.logging_configure if lay.logging_configure is not None else bool(
            _as_int(env.get("VLLM_CONFIGURE_LOGGING", "1")))
        # WARN and FATAL pass dictConfig; the engine validates the level only where a file is named
        return configure and not _logging_file_of(release, lay, env)[0] and level not in _PYTHON_LEVELS
    configure = bool(_as_int(env.get("VLLM_CONFIGURE_LOGGING", "1")))
    return configure and not env.get("VLLM_LOGGING_CONFIG_PATH")


#: pydantic's literal_error for LoggingConfig's log_level (0.31.0+, ``LogLevel`` of vllm/config/logging.py)
LOGGING_LEVEL_CHOICES = "Input should be 'CRITICAL', 'ERROR', 'WARNING', 'INFO', 'DEBUG' or 'NOTSET'"


def logging_level_field(release: Any, lay: Any, env: Mapping[str, str]) -> Optional[str]:
    """Where vLLM (0.31.0+) validates a VLLM_LOGGING_LEVEL that LoggingConfig's ``LogLevel`` lacks, the level being
    the variable's (LoggingConfig's default, which building it does not validate; dataclasses.replace does):

    - ``"frontend"``: ``--log-config-file`` given (any value): configure_logging_from_args replaces the file right
      after argparse, before the configuration is applied (logging off or a missing file come later);
    - ``"engine_args"``: otherwise, a file in LoggingConfig (``--logging-config``'s pylogging_config_file, else
      VLLM_LOGGING_CONFIG_PATH, an empty value too), which vllm serve hands to EngineArgs as ``log_config_file``:
      create_engine_config's first statement replaces it;
    - None: the level is the command line's or one LogLevel has, or no file is named.

    Undecidable where the variable VLLM_CONFIGURE_LOGGING, read first, is no integer."""
    if not release.within("0.31.0") or lay.logging_level_given or _env_level(env) in _CONFIG_LEVELS:
        return None
    from ..errors import Undecidable

    if lay.logging_configure is None and _as_int(env.get("VLLM_CONFIGURE_LOGGING", "1")) is None:
        raise Undecidable(_configure_logging_not_int(release, env))
    if lay.log_config_file is not None:
        return "frontend"
    if lay.logging_config_file_null:     # LoggingConfig holds None: nothing for the engine to replace
        return None
    named = lay.logging_config_file if lay.logging_config_file is not None else env.get("VLLM_LOGGING_CONFIG_PATH")
    return None if named is None else "engine_args"


def _logging_level_error(env: Mapping[str, str]) -> Any:
    from ..verdict import ErrorEntry

    return ErrorEntry("literal_error", ("log_level",), LOGGING_LEVEL_CHOICES, _env_level(env),
                      {"expected": LOGGING_LEVEL_CHOICES.partition("Input should be ")[2]})


def _logging_level_field_at(state: Any, stage: str) -> None:
    # absolute: answered from sys.modules (a relative import runs importlib's Python code each call)
    from kvguard.errors import Undecidable
    from kvguard.rules.engine import Refusal

    try:
        where = logging_level_field(state.release, state.layout, state.env)
    except Undecidable as exc:
        state.undecided(str(exc))
        return
    if where == stage:
        entry = _logging_level_error(state.env)
        raise Refusal("ValidationError", entry.msg, errors=(entry,), wrapped_by="LoggingConfig")


def logging_level_field_frontend(state: Any) -> None:
    """fe_logging_level_field's step (:func:`logging_level_field`, ``"frontend"``)."""
    _logging_level_field_at(state, "frontend")


def logging_level_field_engine(state: Any) -> None:
    """ea_logging_level_field's step (:func:`logging_level_field`, ``"engine_args"``)."""
    _logging_level_field_at(state, "engine_args")


def logging_level_unknown(state: Any) -> bool:
    """FE_logging_level's condition in the rules (:func:`logging_level_refused`)."""
    from kvguard.errors import Undecidable

    try:
        return logging_level_refused(state.release, state.layout, state.env)
    except Undecidable as exc:
        state.undecided(str(exc))
        return False


def _logging_file_of(release: Any, lay: Any, env: Mapping[str, str]) -> tuple[Optional[str], str]:
    """The logging config file vLLM reads at start and where it was named (see logging_file_unknown)."""
    if release.within("0.31.0"):
        if lay.log_config_file is not None:
            return lay.log_config_file, "--log-config-file"
        if lay.logging_config_file is not None:        # "" (null): no file, the variable's default replaced
            return lay.logging_config_file, "--logging-config's pylogging_config_file"
    return env.get("VLLM_LOGGING_CONFIG_PATH"), "VLLM_LOGGING_CONFIG_PATH"


def _logging_file(state: Any) -> tuple[Optional[str], str]:
    return _logging_file_of(state.release, state.layout, state.env)


def logging_off_with_file(release: Any, lay: Any, env: Mapping[str, str]) -> Optional[bool]:
    """Whether logging configuration is turned off while a logging config file is named (refused before the file is
    looked for, so decided whatever the host holds); None when VLLM_CONFIGURE_LOGGING, read, is no integer.
    0.31.0+: LoggingConfig's configure_logging (--logging-config's, else VLLM_CONFIGURE_LOGGING as vllm.envs reads
    it: int() of the text, default 1) and pylogging_config_file (--log-config-file, else --logging-config's, else
    VLLM_LOGGING_CONFIG_PATH); before: the two variables, when vLLM is imported."""
    if release.within("0.31.0") and lay.logging_configure is not None:
        configure = lay.logging_configure
    else:
        value = _as_int(env.get("VLLM_CONFIGURE_LOGGING", "1"))   # read whether or not a file is named
        if value is None:
            return None
        configure = bool(value)
    return not configure and bool(_logging_file_of(release, lay, env)[0])


def logging_disabled_with_file(state: Any) -> bool:
    """FE_logging_disabled's condition (:func:`logging_off_with_file`)."""
    refused = logging_off_with_file(state.release, state.layout, state.env)
    if refused is None:
        state.undecided(_configure_logging_not_int(state.release, state.env))
    return bool(refused)


def _configure_logging_not_int(release: Any, env: Mapping[str, str]) -> str:
    return (f"VLLM_CONFIGURE_LOGGING={env.get('VLLM_CONFIGURE_LOGGING')!r} is no integer: vLLM {release.version}'s "
            "int() of it raises while the logging configuration is read, which kvguard does not model")


def import_refusal(release: Any, env: Mapping[str, str]) -> Optional[str]:
    """To 0.30.0 the logging configuration is read when vLLM is imported, before its argument parser runs: the
    refusal of FE_logging_disabled then outranks an argparse error, the model's resolution and every config
    (kvguard.front, kvguard.rules.check), from the variables alone."""
    if release.within("0.31.0"):
        return None
    text = env.get("VLLM_CONFIGURE_LOGGING", "1")
    value = _as_int(text)
    if value is None:
        from ..errors import Undecidable

        raise Undecidable(f"VLLM_CONFIGURE_LOGGING={text!r} is no integer: vLLM {release.version}'s int() of it "
                          "raises when vLLM is imported, which kvguard does not model")
    if value == 0 and env.get("VLLM_LOGGING_CONFIG_PATH"):
        return LOGGING_DISABLED_ENV
    return LOGGING_LEVEL_MESSAGE if logging_level_refused(release, None, env) else None


def import_refusal_verdict(release: Any, env: Mapping[str, str]) -> Any:
    """The verdict of :func:`import_refusal` (a :class:`~kvguard.verdict.Verdict`), or None."""
    message = import_refusal(release, env)
    if message == LOGGING_LEVEL_MESSAGE:
        return _logging_verdict(release, message, "FE_logging_level", "ValueError")
    return None if message is None else _logging_verdict(release, message)


def logging_refusal_verdict(release: Any, lay: Any, env: Mapping[str, str]) -> Any:
    """FE_logging_disabled's verdict where vLLM gives it before any config is built (to 0.30.0 when it is imported,
    0.31.0+ right after its parser, where --log-config-file's LoggingConfig ValidationError comes first), or None; Undecidable where VLLM_CONFIGURE_LOGGING, read, is no integer."""
    if not release.within("0.31.0"):
        return import_refusal_verdict(release, env)
    refused = logging_off_with_file(release, lay, env)
    if refused is None:
        from ..errors import Undecidable

        raise Undecidable(_configure_logging_not_int(release, env))
    if logging_level_field(release, lay, env) == "frontend":     # --log-config-file's replace, before it is applied
        from ..verdict import Verdict

        entry = _logging_level_error(env)
        return Verdict(ok=False, vllm_version=release.key, stage="frontend", check="fe_logging_level_field",
                       exc_type="ValidationError", message=entry.msg, wrapped_by="LoggingConfig", loc=entry.loc,
                       errors=(entry,))
    if refused:
        return _logging_verdict(release, LOGGING_DISABLED_CONFIG)
    if logging_level_refused(release, lay, env):
        return _logging_verdict(release, LOGGING_LEVEL_MESSAGE, "FE_logging_level", "ValueError")
    return None


def _logging_verdict(release: Any, message: str, check: str = "FE_logging_disabled",
                     exc_type: str = "RuntimeError") -> Any:
    from ..verdict import Verdict

    return Verdict(ok=False, vllm_version=release.key, stage="frontend", check=check, exc_type=exc_type,
                   message=message)


def logging_file_unknown(state: Any) -> bool:
    """A logging config file vLLM reads at start: refused unless it exists on the host, which kvguard does not know
    (skipped).  0.31.0+: --logging-config's pylogging_config_file, else VLLM_LOGGING_CONFIG_PATH (LoggingConfig's
    default), unless --log-config-file names the file (kvguard.rules.serve_args's row); before: the variable, read
    when vLLM is imported."""
    path, where = _logging_file(state)
    if where == "--log-config-file":
        return False
    if path:
        state.skip(f"{where} {path!r} names a logging config file that vLLM {state.release.version} reads at start "
                   "and refuses unless it exists on the host: whether it does is not known to kvguard")
    return False


KDA_PREFILL_MESSAGE = "--kda-prefill-backend={backend} is only available on {platform}."
#: the KDA prefill kernels tied to one platform (current_platform.is_cuda() / is_rocm())
_KDA_PLATFORM = {"flashkda": ("cuda", "CUDA"), "fused": ("rocm", "ROCm")}


def kda_prefill_off_platform(state: Any) -> bool:
    needed = _KDA_PLATFORM.get(state.layout.kda_prefill_backend or "")
    return needed is not None and state.need("platform") != needed[0]


def kda_prefill_bind(state: Any) -> dict:
    backend = state.layout.kda_prefill_backend
    return {"backend": backend, "platform": _KDA_PLATFORM[backend][1]}
