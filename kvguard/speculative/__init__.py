"""Speculative decoding: ``--speculative-config`` as each release reads it, and the draft it builds.

``vllm serve`` turns ``--speculative-config`` (a JSON object, or dotted keys ``--speculative-config.method
mtp`` folded into one, ``-sc`` from 0.19.0, ``--spec-method`` / ``--spec-model`` / ``--spec-tokens`` from
0.22.0) into ``SpeculativeConfig(**dict, target_model_config=…, target_parallel_config=…)`` between the
``ParallelConfig`` and the ``VllmConfig``.  That class picks the method (ngram, MTP from the target's
own checkpoint, EAGLE / EAGLE-3 / DFlash / DSpark heads, draft models, …), builds the draft's
``ModelConfig`` — the draft is a checkpoint resolved like the target, run through the same model facts
— and checks the draft against its own parallel layout (``verify_with_parallel_config``: head counts,
expert parallelism, pipeline-parallel support from the release's model registry).

The checks are rows of the rule table (``SC_*`` in :mod:`kvguard.rules.table`, stage ``speculative``);
the values they read are built here:

* :class:`SpeculativeInput` — the launch's input (what the command line gave, the target's config, how a
  draft named by path or Hub id is found);
* :mod:`.fields` — pydantic's validation of the given keys against the release's field table
  (``kvguard/data/speculative.json``, from ``tools/spec_extract.py``);
* :mod:`.draft` — the draft's config override, EAGLE wrapping and facts; :mod:`.speculators` — vLLM's
  "speculators" checkpoint format (``SpeculatorsConfig``);
* :mod:`.flow` — the state the rows build (:class:`flow.SpecState`) and the helpers they call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..record import Record, field

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["SpeculativeInput", "SPEC_FLAGS"]

#: the separate launch flags of 0.22.0+ (dest, option string, speculative-config key), in the order
#: EngineArgs.create_speculative_config merges them
SPEC_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("spec_method", "--spec-method", "method"),
    ("spec_model", "--spec-model", "model"),
    ("spec_tokens", "--spec-tokens", "num_speculative_tokens"),
)


class SpeculativeInput(Record):
    """A launch's speculative decoding input.

    ``config``: the ``--speculative-config`` dict as the parser produced it (None: not given);
    ``flags``: the ``--spec-*`` values given (dest -> value, 0.22.0+); ``target_model``: the model as vLLM
    is given it (an MTP draft loads it again); ``target_raw``: the target's config.json (MTP drafts read
    it); ``resolve(name, revision)`` -> ``(config.json mapping, location)`` finds a draft named by path or
    Hub id (raises :class:`~kvguard.Undecidable` when it cannot); ``origin`` says where the input came
    from (a speculators checkpoint served directly fills it in); ``notes`` are reported with the verdict.
    """

    config: Optional[Mapping[str, Any]] = None
    flags: Mapping[str, Any] = field(default_factory=dict)
    target_model: str = "/model"
    target_raw: Optional[Mapping[str, Any]] = None
    resolve: Optional[Callable[[str, Optional[str]], tuple[Mapping[str, Any], str]]] = None
    trust_remote_code: bool = False
    origin: str = "--speculative-config"
    notes: tuple[str, ...] = ()
    #: derived draft facts, per release and environment (the same draft is evaluated for many layouts)
    memo: dict = field(default_factory=dict, repr=False)

    # one launch's input, compared and hashed by identity (its dicts are not hashable)
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @property
    def given(self) -> bool:
        """Whether the launch enables speculative decoding at all (a config or a ``--spec-*`` flag)."""
        return self.config is not None or any(v is not None for v in self.flags.values())
