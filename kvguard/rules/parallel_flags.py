"""ParallelConfig's checks of its profiling and NUMA options (vllm/config/parallel.py; 0.10.2: the same file), raised
inside ParallelConfig and wrapped by it:

- ``--ray-workers-use-nsight`` when the workers do not run on the Ray executor (``ParallelConfig._verify_args``, every
  release, after the Ray import check): a ValueError.
- 0.20.0+: ``--numa-bind-cpus`` entries are validated as numactl CPU lists while the fields are validated (an
  entry out of the syntax, then a descending range; ``--numa-bind-nodes`` refuses negative nodes there too), and
  ``_validate_parallel_config`` refuses ``--numa-bind-nodes`` / ``--numa-bind-cpus`` without ``--numa-bind`` (after
  the data-parallel external LB check).  An empty or ``None`` entry is refused by pydantic's type validation, whose
  message names the host's pydantic version: undecidable.  A field validator's ValueError is the ValidationError's
  entry at its field (the verdict's ``loc``), the list its input.  Beside a field out of its bound (``-tp 0``,
  ``--dp-sync-interval 0``, 0.23.0+), one ValidationError with every error in declaration order: the bounded fields
  up to ``nnodes``, ``numa_bind_nodes``, ``numa_bind_cpus``, then ``decode_context_parallel_size`` and after.
"""

from __future__ import annotations

import re

from ..launch.layout import list_values

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CPUS_DESCENDING_MESSAGE", "CPUS_SYNTAX_MESSAGE", "NODES_NEGATIVE_MESSAGE", "NSIGHT_MESSAGE",
           "REQUIRES_BIND_MESSAGE", "cpus_descending", "cpus_syntax", "nodes_negative", "numa_beside_bounds",
           "numa_without_bind", "numa_entries", "nsight_without_ray"]

NSIGHT_MESSAGE = "Unable to use nsight profiling unless workers run with Ray."
REQUIRES_BIND_MESSAGE = "numa_bind_nodes and numa_bind_cpus require numa_bind=True."
NODES_NEGATIVE_MESSAGE = "numa_bind_nodes must contain non-negative integers."
CPUS_SYNTAX_MESSAGE = "numa_bind_cpus entries must use numactl CPU list syntax, for example '0-3' or '0,2,4-7'."
CPUS_DESCENDING_MESSAGE = "numa_bind_cpus ranges must be ascending, but got '{cpuset}'."

#: a numactl CPU list: numbers or ascending-or-not ranges, comma separated (``\\d`` as Python's re reads it)
_CPU_LIST = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")


def nsight_without_ray(state: Any) -> bool:
    return state.layout.ray_workers_use_nsight and state.backend != "ray"


def numa_entries(state: Any) -> None:
    """pydantic's type validation of the NUMA lists (a None entry: undecidable)."""
    for option, value in (("--numa-bind-nodes", state.layout.numa_bind_nodes),
                          ("--numa-bind-cpus", state.layout.numa_bind_cpus)):
        if "None" in list_values(value):
            state.undecided(f"{option} has an empty or 'None' entry: ParallelConfig refuses it with pydantic's "
                            "message, which names the host's pydantic version: kvguard does not quote it")


#: ParallelConfig's fields declared after the NUMA lists that a FieldRule bounds (vllm/config/parallel.py,
#: 0.20.0 - 0.33.0: the lists follow ``nnodes``)
_DECLARED_AFTER_NUMA = ("decode_context_parallel_size", "dcp_comm_backend")


def numa_beside_bounds(state: Any) -> None:
    """0.20.0+: the NUMA lists' field validators report their errors in the same ValidationError as the sizes' and
    other fields' bounds, in declaration order (the lists are declared between ``nnodes`` and
    ``decode_context_parallel_size``)."""
    lay = state.layout
    if lay.numa_bind_nodes is None and lay.numa_bind_cpus is None:
        return
    from . import FieldRule
    from .engine import Refusal, field_rule_errors
    from .table import rows_for

    bounds: tuple = ()
    for row in rows_for(state.release):
        if isinstance(row, FieldRule) and row.stage == "parallel_config":
            bounds = field_rule_errors(row, state)
            if bounds:
                break
    numa_entries(state)
    numa = numa_errors(state)
    if not numa or not bounds and len(numa) == 1:
        return  # none, or one of them alone: the FIELD_numa_* rows
    place = sum(1 for entry in bounds if entry.loc[0] not in _DECLARED_AFTER_NUMA)
    entries = (*bounds[:place], *numa, *bounds[place:])
    raise Refusal("ValidationError", entries[0].msg, errors=entries)


def numa_errors(state: Any) -> tuple:
    """The ``value_error`` entries of the NUMA lists' field validators (nodes, then CPUs), each at its field with the
    list as input: the first failing check of each list."""
    from ..verdict import ErrorEntry

    out = []
    nodes = [int(node) for node in list_values(state.layout.numa_bind_nodes)]
    if any(node < 0 for node in nodes):
        out.append(ErrorEntry("value_error", ("numa_bind_nodes",), "Value error, " + NODES_NEGATIVE_MESSAGE, nodes,
                              {"error": ValueError(NODES_NEGATIVE_MESSAGE)}))
    bad = _first_bad_cpuset(state)
    if bad is not None:
        message = CPUS_SYNTAX_MESSAGE if bad[0] == "syntax" else CPUS_DESCENDING_MESSAGE.format(cpuset=bad[1])
        out.append(ErrorEntry("value_error", ("numa_bind_cpus",), "Value error, " + message,
                              list_values(state.layout.numa_bind_cpus), {"error": ValueError(message)}))
    return tuple(out)


def _refuse_alone(state: Any, field: str) -> bool:
    """A NUMA list's validator error alone in the validation: a ValueError wrapped for ParallelConfig, placed at
    ``field`` with the list as input (the verdict's ``loc`` and ``errors``)."""
    for entry in numa_errors(state):
        if entry.loc == (field,):
            from .engine import Refusal

            raise Refusal("ValueError", entry.ctx["error"].args[0], errors=(entry,))
    return False


def nodes_negative(state: Any) -> bool:
    return _refuse_alone(state, "numa_bind_nodes")


def _first_bad_cpuset(state: Any) -> Any:
    """(why, entry) of the first --numa-bind-cpus entry the field validator refuses (entry by entry: the syntax,
    then its ranges), or None."""
    for cpuset in list_values(state.layout.numa_bind_cpus):
        if _CPU_LIST.fullmatch(cpuset) is None:
            return "syntax", cpuset
        for part in cpuset.split(","):
            if "-" in part:
                first, last = part.split("-", 1)
                if int(first) > int(last):
                    return "descending", cpuset
    return None


def cpus_syntax(state: Any) -> bool:
    bad = _first_bad_cpuset(state)
    return bad is not None and bad[0] == "syntax" and _refuse_alone(state, "numa_bind_cpus")


def cpus_descending(state: Any) -> bool:
    bad = _first_bad_cpuset(state)
    return bad is not None and bad[0] == "descending" and _refuse_alone(state, "numa_bind_cpus")


def descending_bind(state: Any) -> dict:
    return {"cpuset": _first_bad_cpuset(state)[1]}


def numa_without_bind(state: Any) -> bool:
    lay = state.layout
    return not lay.numa_bind and (lay.numa_bind_nodes is not None or lay.numa_bind_cpus is not None)
