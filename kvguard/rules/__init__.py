"""Launch checks as data.

:data:`RULES` (in :mod:`kvguard.rules.table`) is one ordered list of rows for
every release 0.10.2 – 0.33.0.  A row applies to a release when it lies in the
row's ``[since, until]`` range (and its patch condition holds); the rows that
apply, in list order, are exactly the checks that release runs, in the order
``vllm serve`` runs them.  A :class:`Check` raises; a :class:`Step` updates the
state the later checks read (vLLM's own derivations between checks).

Conditions are small functions of the evaluation state ``s`` (see
:mod:`kvguard.rules.engine`), written to read like the upstream condition they
mirror.  Messages are ``str.format`` templates over the state and the row's
``bind`` values; they are upstream text, character for character.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..record import Record, field
from ..versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["Check", "FieldRule", "Row", "Step", "WRAPPER"]

#: the pydantic dataclass that wraps ValueError/AssertionError raised in each stage
WRAPPER: dict[str, Optional[str]] = {
    # ``vllm serve``'s front end before any config is built: the CLI's validate_parsed_serve_args right after
    # argparse, then the API server's validate_api_server_args (setup_server; not in headless mode): raised as they
    # are (kvguard.rules.parsers)
    "frontend": None,
    "model_config": "ModelConfig",
    "engine_args": None,
    "parallel_config": "ParallelConfig",
    "verify": "VllmConfig",
    # the worker building the model (layers' constructors, quantization methods' create_weights): raised as it is
    "model_init": None,
    # SpeculativeConfig(**--speculative-config), built between ParallelConfig and VllmConfig
    "speculative": "SpeculativeConfig",
    # SchedulerConfig, built after SpeculativeConfig and before VllmConfig
    "scheduler": "SchedulerConfig",
    # CacheConfig, built in EngineArgs.create_engine_config before the data-parallel checks and ParallelConfig
    "cache_config": "CacheConfig",
    # LoRAConfig, built with --enable-lora in EngineArgs.create_engine_config right after SchedulerConfig
    # (kvguard.rules.lora_config)
    "lora": "LoRAConfig",
    # LoadConfig (create_load_config), built in EngineArgs.create_engine_config after the Mamba and kernel configs'
    # checks, before DecodingConfig / ObservabilityConfig (kvguard.rules.late_bounds)
    "load": "LoadConfig",
    # 0.10.2's DecodingConfig (the --guided-decoding-* switches), built in EngineArgs.create_engine_config after the
    # load config, before ObservabilityConfig (kvguard.rules.engine_options)
    "decoding": "DecodingConfig",
    # ObservabilityConfig, built in EngineArgs.create_engine_config after SchedulerConfig and the attention
    # backend's name, before VllmConfig (kvguard.rules.observability)
    "observability": "ObservabilityConfig",
    # OffloadConfig, built in EngineArgs.create_engine_config (0.17.0+) after ObservabilityConfig, before VllmConfig
    # (kvguard.rules.engine_options)
    "offload": "OffloadConfig",
    # the workers' start (attention backend selection and its checks): nothing wraps these
    "worker": None,
}


class _Row(Record):
    id: str
    since: str = "0.10.2"
    until: Optional[str] = None
    #: apply only when this patch is part of the release key
    patch: Optional[str] = None
    #: do not apply when this patch is part of the release key
    unless_patch: Optional[str] = None
    #: the launch's options (Layout fields) this row reads alone: at their defaults it cannot fire, so a launch that
    #: gives none of them runs a program without it (kvguard.rules.engine; the cached checks of plan and scans)
    options: tuple[str, ...] = ()
    #: the environment variables this row reads besides its options: unset, with none of its options given, it
    #: cannot fire, skip or be undecided, so a launch that sets none of them runs a program without it
    env: tuple[str, ...] = ()
    #: the row reads only a speculative-decoding launch's input (rows of stage ``speculative`` are so by their
    #: stage): a launch without one runs a program without it
    speculative: bool = False

    @property
    def needs_draft(self) -> bool:
        return self.speculative or getattr(self, "stage", None) == "speculative"

    def applies(self, release: Release) -> bool:
        if not release.within(self.since, self.until):
            return False
        if self.patch is not None and self.patch not in release.patches:
            return False
        if self.unless_patch is not None and self.unless_patch in release.patches:
            return False
        return True


class Check(_Row):
    """A statement that raises in vLLM when ``when(s)`` is true.

    ``exc`` is the exception type vLLM's statement raises; ``stage`` decides
    the pydantic wrapping of ValueError / AssertionError (:data:`WRAPPER`).
    ``bind(s)`` computes extra template values (evaluated only on failure).
    ``scope``: ``geo`` (launch geometry), ``feature`` (needs a non-default
    flag), ``env`` (depends on the host or environment), ``other``.
    """

    stage: str = "parallel_config"
    exc: str = "ValueError"
    template: str = ""
    when: Callable[[Any], bool] = field(default=lambda state: False, repr=False)
    bind: Optional[Callable[[Any], dict[str, Any]]] = field(default=None, repr=False)
    scope: str = "geo"
    source: str = ""
    description: str = ""

    def message(self, state: Any) -> str:
        bound = self.bind(state) if self.bind is not None else None
        names = _plain_fields(self.template)
        if names is None:
            return self.template.format_map(_Values(state, bound or ()))
        if bound:
            return self.template.format_map({n: bound[n] if n in bound else getattr(state, n) for n in names})
        return self.template.format_map({n: getattr(state, n) for n in names})


@lru_cache(maxsize=None)
def _plain_fields(template: str) -> Optional[tuple[str, ...]]:
    """The names a template's fields use when every field is a plain name (``{tp}``, ``{x!r}``,
    ``{x:,}``), else None (``{a.b}``, ``{a[0]}``: looked up through :class:`_Values`)."""
    from _string import formatter_parser  # what string.Formatter().parse reads, without importing string

    names = []
    for _literal, field_name, _spec, _conv in formatter_parser(template):
        if field_name is None:
            continue
        if not field_name.isidentifier():
            return None
        names.append(field_name)
    return tuple(dict.fromkeys(names))


class _Values(dict):
    """Template values: the row's ``bind`` values, else the state's attribute of that name
    (looked up only for the names a template uses)."""

    __slots__ = ("_state",)

    def __init__(self, state: Any, bound: Any):
        super().__init__(bound)
        self._state = state

    def __missing__(self, key: str) -> Any:
        try:
            return getattr(self._state, key)
        except AttributeError:
            raise KeyError(key) from None


class FieldRule(_Row):
    """pydantic ``Field`` constraints / types on a config's fields (all errors at once): ParallelConfig's,
    and ModelConfig's ``max_model_len`` (stage ``model_config``).

    ``fields`` is ``(field_name, state_attr, kind, bound)`` in declaration
    order; ``kind`` is ``"ge"`` (constraint) or ``"literal"`` (allowed values); ``"ge?"``, ``"gt?"``
    and ``"literal?"`` also allow None (ModelConfig skips validating a None ``max_model_len``).
    """

    stage: str = "parallel_config"
    fields: tuple[tuple[str, str, str, Any], ...] = ()
    source: str = ""
    description: str = ""
    scope: str = "geo"


class Step(_Row):
    """A derivation vLLM performs between checks (updates the state)."""

    stage: str = "parallel_config"
    apply: Callable[[Any], None] = field(default=lambda state: None, repr=False)
    description: str = ""


Row = Check | FieldRule | Step
