"""The nearest launches a release accepts, for a launch it refuses.

A suggestion edits only the launch's parallel flags — ``-tp``, ``-pp``, ``-dp``, ``-pcp``,
``-dcp``, ``--enable-expert-parallel``, ``--enable-eplb`` (dropped only), ``--nnodes`` and
``--distributed-executor-backend`` —
never the model, the release or any other flag; its command line is the launch as given with
those edits applied.  The search is bounded (at most :data:`MAX_CHANGES` flags changed, a GPU
count at most twice the launch's or one node's), deterministic, and honest: a suggestion is
returned only when the release's own parser reads its command line back as the intended layout
and the engine accepts it — for a multi-node launch, on every node.

Order: fewest changed flags first; among those, the same GPU count on the same nodes, then the
same GPU count on other nodes, then other GPU counts; then the smallest change.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any, Optional, Sequence

from ..errors import InputError, Undecidable, reports_internal_errors
from ..launch.layout import Host, Layout
from ..verdict import Verdict

__all__ = ["Change", "EDITABLE", "MAX_CHANGES", "Suggestion", "describe_host", "suggest"]

#: the flags a suggestion may change, in the order changes are listed
EDITABLE: tuple[str, ...] = (
    "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "prefill_context_parallel_size",
    "decode_context_parallel_size", "enable_expert_parallel", "enable_eplb", "nnodes", "distributed_executor_backend",
)
_SIZES = EDITABLE[:5]
#: the spelling a new flag gets: the short alias where the release defines it (as vLLM's docs write them)
_SHORT = {"tensor_parallel_size": "-tp", "pipeline_parallel_size": "-pp", "data_parallel_size": "-dp",
          "prefill_context_parallel_size": "-pcp", "decode_context_parallel_size": "-dcp"}

#: the most flags one suggestion changes (a fourth change is no longer a "nearby" launch)
MAX_CHANGES = 3
#: the largest GPU count a suggestion may use, whatever the launch (keeps the search bounded)
_MAX_GPUS = 4096
#: the most suggestions one call returns
_MAX_LIMIT = 20


@dataclass(frozen=True)
class Change:
    """One edited flag: ``before`` → ``after`` (vLLM's default when the flag is absent)."""

    field: str
    flag: str
    before: Any
    after: Any
    default: Any

    def describe(self) -> str:
        if isinstance(self.after, bool) or self.after is None or isinstance(self.before, bool):
            if self.after == self.default:
                return f"without {self.flag}" + ("" if isinstance(self.before, bool) else f" {self.before}")
            if isinstance(self.after, bool):
                return f"with {self.flag}"
        if self.before == self.default:
            return f"with {self.flag} {self.after}"
        if self.after == self.default:
            return f"without {self.flag} {self.before}"
        return f"{self.flag} {self.before} → {self.after}"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "flag": self.flag, "from": self.before, "to": self.after}


@dataclass(frozen=True)
class Suggestion:
    """A launch the release accepts, near a refused one."""

    #: the full command line: the launch as given, with the changes applied
    argv: tuple[str, ...]
    changes: tuple[Change, ...]
    layout: Layout
    #: GPUs the launch uses in all (tp × pp × pcp × dp) and the nodes they span
    gpus: int
    nodes: int
    #: the engine's verdict for it (``ok``; its ``skipped`` checks and ``assumptions`` stand)
    verdict: Verdict
    #: how to run it where one command line is not the whole story (several nodes, Ray)
    notes: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def describe(self) -> str:
        return ", ".join(c.describe() for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "command": self.command, "changes": [c.to_dict() for c in self.changes],
                "gpus": self.gpus, "nodes": self.nodes, "notes": list(self.notes),
                "skipped": [s.check for s in self.verdict.skipped], "assumptions": list(self.verdict.assumptions)}


def describe_host(host: Host) -> str:
    """The host facts suggestions depend on, as the operator should read them."""
    parts = []
    if host.platform is not None:
        parts.append(f"platform {host.platform}")
    parts.append(f"{host.gpus_per_node} GPUs per node" if host.gpus_per_node is not None
                 else "GPUs per node unknown")
    parts.append("Ray unknown" if host.ray is None else ("Ray installed" if host.ray else "Ray not installed"))
    assumed = sorted(k for k in ("platform", "gpus_per_node", "ray") if k in host.assumed)
    text = ", ".join(parts)
    if assumed:
        text += f" (assumed: {', '.join(assumed)})"
    return text


# --------------------------------------------------------------------------- the search


def _size(value: Any) -> int:
    """A parallel size as a GPU multiplier (vLLM refuses sizes below 1; here they count as 1)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else 1


_GPU_FACTORS = ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size",
                "data_parallel_size")


def _gpus(lay: Layout) -> int:
    return math.prod(_size(getattr(lay, name)) for name in _GPU_FACTORS)


def _nodes(lay: Layout, gpus: int, host: Host) -> int:
    """The nodes a launch spans: ``--nnodes``; with Ray, as many nodes as its GPUs fill; else one."""
    if _size(lay.nnodes) > 1:
        return lay.nnodes
    if lay.distributed_executor_backend == "ray" and host.gpus_per_node:
        return max(1, -(-gpus // host.gpus_per_node))
    return 1


def _fits(lay: Layout, gpus: int, nodes: int, host: Host) -> bool:
    """No node gets more ranks than it has GPUs (the engine's own GPU-count check does not look at
    an explicit ``mp`` backend or at data parallelism before 0.17.0)."""
    if not host.gpus_per_node:
        return True
    return nodes <= gpus and -(-gpus // nodes) <= host.gpus_per_node


def _sizes(original: Any, cap: int) -> list[int]:
    """The values tried for a parallel size: powers of two, the original's double and half."""
    values = {1}
    v = 2
    while v <= cap:
        values.add(v)
        v *= 2
    if isinstance(original, int) and not isinstance(original, bool) and original >= 1:
        values.update(x for x in (original * 2, original // 2) if 1 <= x <= cap)
    values.discard(original)
    return sorted(values)


def _values(name: str, original: Any, cap: int, host: Host) -> list[Any]:
    if name in _SIZES:
        return _sizes(original, cap)
    if name == "enable_expert_parallel":
        return [not original]
    if name == "enable_eplb":
        # dropped, never added: balancing the experts is what a refusal may ask to give up, not a way to start
        return [False] if original else []
    if name == "nnodes":
        per_node = host.gpus_per_node or 1
        return [n for n in _sizes(original, max(1, -(-cap // per_node)))]
    # the executor backend: unset (vLLM picks) or Ray; an explicit "mp" only differs from unset by
    # skipping the GPU-count check, which never makes a launch that fits start
    return [v for v in (None, "ray") if v != original]


def _log_distance(before: Any, after: Any) -> float:
    """How far a size moved, in doublings (math.log2 takes ints of any size; a ratio would not)."""
    if isinstance(after, bool) or not isinstance(after, int):
        return 0.0
    return abs(math.log2(after) - math.log2(_size(before)))


_ABSENT = object()


@dataclass(frozen=True)
class _Candidate:
    update: tuple[tuple[str, Any], ...]
    layout: Layout
    gpus: int
    nodes: int
    rank: tuple


def _search(evaluate_ok, base: Layout, fields: Sequence[str], host: Host, want: int) -> list[_Candidate]:
    """Every accepted layout within MAX_CHANGES edits of ``base``, level by level (an edit that
    contains a smaller accepted edit is left out: it changes a flag for nothing); stops after the
    level where ``want`` were found."""
    gpus0 = _gpus(base)
    nodes0 = _nodes(base, gpus0, host)
    cap = min(_MAX_GPUS, max(2 * gpus0, host.gpus_per_node or 8))
    values = {name: _values(name, getattr(base, name), cap, host) for name in fields}
    found: list[_Candidate] = []
    for count in range(1, MAX_CHANGES + 1):
        level = []
        for names in combinations(fields, count):
            # the GPU count before the edited layout is built: most edits are ruled out by it alone
            unedited = math.prod(_size(getattr(base, n)) for n in _GPU_FACTORS if n not in names)
            edited = [i for i, n in enumerate(names) if n in _GPU_FACTORS]
            for vals in product(*(values[n] for n in names)):
                gpus = unedited
                for i in edited:
                    gpus *= _size(vals[i])
                if gpus > cap:
                    continue
                update = dict(zip(names, vals))
                if any(all(update.get(k, _ABSENT) == v for k, v in c.update) for c in found):
                    continue
                lay = base.model_copy(update=update)
                tp_pcp = _size(lay.tensor_parallel_size) * _size(lay.prefill_context_parallel_size)
                if isinstance(lay.decode_context_parallel_size, int) and lay.decode_context_parallel_size >= 1 \
                        and tp_pcp % lay.decode_context_parallel_size:
                    continue  # no release accepts a -dcp that does not divide tp × pcp
                nodes = _nodes(lay, gpus, host)
                if not _fits(lay, gpus, nodes, host):
                    continue
                if "nnodes" in update and update["nnodes"] > 1 and host.gpus_per_node \
                        and update["nnodes"] != -(-gpus // host.gpus_per_node):
                    continue  # a new --nnodes is the fewest nodes that hold the launch, not more
                if not evaluate_ok(lay):
                    continue
                klass = 0 if (gpus, nodes) == (gpus0, nodes0) else (1 if gpus == gpus0 else 2)
                # a Ray cluster is infrastructure beyond the command line: after the mp launches
                ray = lay.distributed_executor_backend == "ray" and nodes > 1
                moved = sum(_log_distance(getattr(base, n), v) for n, v in update.items())
                # `names` follow EDITABLE's order, so the last key orders ties the same way every time
                rank = (count, klass, _log_distance(gpus0, gpus), ray, moved, nodes,
                        tuple((EDITABLE.index(n), str(v)) for n, v in update.items()))
                level.append(_Candidate(tuple(update.items()), lay, gpus, nodes, rank))
        found += level
        if len(found) >= want:
            break
    return sorted(found, key=lambda c: c.rank)


# --------------------------------------------------------------------------- command lines


def _flag_tokens(name: str, value: Any, default: Any, table: dict, used: Optional[str]) -> list[str]:
    if isinstance(value, bool):
        long = "--" + name.replace("_", "-")
        if value:
            if used and not used.startswith("--no-"):
                return [used]
            return [long]
        return ["--no-" + name.replace("_", "-")] if f"--no-{name.replace('_', '-')}" in table else []
    if value is None:
        return []
    if used is None:
        short = _SHORT.get(name)
        used = short if short is not None and short in table else "--" + name.replace("_", "-")
    return [used, str(value)]


def edit_argv(tokens: Sequence[str], release, update: Mapping[str, Any],
              parsed_fields: Mapping[str, Any]) -> Optional[list[str]]:
    """``tokens`` (a whole ``vllm serve`` command line) with ``update`` (field -> value) applied:
    each edited flag replaced where the launch sets it (the last time), removed when it goes back
    to vLLM's default, a new one placed after the launch's other parallel flags.  None when the
    launcher words cannot be told apart from the arguments."""
    from ..launch.argv import launcher_and_arguments, option_spans, option_table

    tokens = list(tokens)
    prefix, args = launcher_and_arguments(tokens)
    if prefix + args != tokens:
        return None
    table = option_table(release)
    spans, stop = option_spans(args, release)
    defaults = Layout.model_fields
    drop: set[int] = set()
    insert_at: dict[int, list[str]] = {}
    anchor = max((end for f in EDITABLE for _, end, _ in spans.get(f, ())), default=stop)
    for name in EDITABLE:
        if name not in update:
            continue
        value, default = update[name], defaults[name].default
        mine = spans.get(name, [])
        for start, end, _ in mine:
            drop.update(range(start, end))
        used = mine[-1][2] if mine and not isinstance(value, bool) else None
        # a value the launch takes from a --config file has no span: only a flag overrides it
        needed = value != default or (not mine and name in parsed_fields)
        new = _flag_tokens(name, value, default, table, used) if needed else []
        at = mine[-1][0] if mine else anchor
        insert_at.setdefault(at, []).extend(new)
    out = list(prefix)
    for i, tok in enumerate(args):
        out += insert_at.pop(i, [])
        if i not in drop:
            out.append(tok)
    for rest in insert_at.values():
        out += rest
    return out


# --------------------------------------------------------------------------- the entry point


@reports_internal_errors
def suggest(config: Any, layout: Layout | Mapping[str, Any] | None = None, *, argv: "Sequence[str] | str | None" = None,
            vllm_version: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
            host: Optional[Host] = None, nearest: bool = False, entry: str = "serve",
            model_path: Optional[str] = None, limit: int = 3, speculative_config: Any = None,
            **fields: Any) -> list[Suggestion]:
    """The launches nearest to a refused one that ``vllm_version`` accepts (``[]`` when it accepts
    the launch itself, or when no launch within :data:`MAX_CHANGES` parallel-flag edits starts).

    The launch is ``argv`` (a ``vllm serve`` command line, read as the release's parser reads it)
    or, as for :func:`kvguard.check`, ``layout``/``fields``.  Only the parallel flags
    (:data:`EDITABLE`) change; every other flag is kept as given.  ``host`` decides what fits a
    node and whether Ray is there (``None``: nothing is known — the checks that need the host are
    skipped and listed in each suggestion's verdict).  Each suggestion's command line is read
    back by the release's parser and checked by :func:`kvguard.check` before it is returned.
    ``speculative_config`` (as for :func:`kvguard.check`): the launch's speculative decoding, whose draft
    every suggestion must pass too (the launch's own when ``argv`` gives one and this is None).
    """
    from ..facts import Crash
    from ..launch.argv import parse_serve, split_command
    from ..rules.check import check, field_exists, prepare_check, require_registered_architecture, resolve_release
    from ..rules.engine import evaluate

    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError("limit must be an integer >= 0", source="<suggest>", key="limit")
    limit = min(limit, _MAX_LIMIT)
    if entry not in ("serve", "config"):
        raise InputError("entry must be 'serve' or 'config'", source="<suggest>", key="entry")
    host = host or Host()
    release = resolve_release(vllm_version, nearest)
    if argv is not None:
        if layout is not None or fields:
            raise InputError("give the launch as argv or as layout fields, not both", source="<suggest>")
        launch = argv if isinstance(argv, str) else list(argv)
        cmd = parse_serve(launch, release)
        tokens = split_command(launch)
        launch_fields: Optional[dict[str, Any]] = dict(cmd.fields)
        launch_env = dict(cmd.env)
        launch_env.update(env or {})
        model_path = model_path or cmd.model
    else:
        launch_env = dict(env or {})
        launch_fields = None
    release, env_d, base, facts = prepare_check(config, layout, release, launch_env,
                                                launch_fields if launch_fields is not None else fields, nearest,
                                                model_path)
    if isinstance(facts, Crash) or limit == 0:
        return []  # vLLM refuses the model config itself: no parallel flag changes that
    require_registered_architecture(facts, release)
    from ..rules.check import speculative_input

    if speculative_config is None and argv is not None and cmd.speculative:
        from ..speculative.launch import input_from_command

        speculative_config = input_from_command(cmd, config, model_path=model_path)
    spec = speculative_input(speculative_config, config, model_path=model_path) \
        if speculative_config is not None else None
    if evaluate(release, facts, base, env=env_d, host=host, entry=entry, spec=spec).ok:
        return []
    if argv is None:
        tokens = ["vllm", "serve", model_path or "MODEL", *base.flags()]
        launch_fields = base.model_dump(exclude_defaults=True)
    editable = [n for n in EDITABLE if field_exists(n, release)]

    def accepted(lay: Layout) -> bool:
        try:
            return evaluate(release, facts, lay, env=env_d, host=host, entry=entry, spec=spec).ok
        except Undecidable:
            return False        # a launch kvguard cannot vouch for is no suggestion

    others = {k: v for k, v in base.model_dump(exclude_unset=True).items() if k not in EDITABLE}
    out: list[Suggestion] = []
    for cand in _search(accepted, base, editable, host, limit):
        if len(out) >= limit:
            break
        new_argv = edit_argv(tokens, release, dict(cand.update), launch_fields or {})
        if new_argv is None:
            break  # no command line to edit: nothing can be printed honestly
        try:
            reread = parse_serve(new_argv, release)
        except InputError:
            continue
        # the fields the command line sets now, over the launch's fields no flag expresses (API)
        reread_fields = {**others, **reread.fields}
        if Layout(**reread_fields) != cand.layout:
            continue  # the command line does not say what was meant (e.g. a value from a --config file)
        try:
            verdict = check(facts, vllm_version=release, env=env_d, host=host, entry=entry, model_path=model_path,
                            speculative_config=spec, **reread_fields)
        except Undecidable:
            continue
        if not verdict.ok or not _every_node_accepted(check, facts, release, env_d, host, entry, model_path,
                                                      cand.layout, spec):
            continue
        changes = tuple(Change(n, _long(n), getattr(base, n), v, Layout.model_fields[n].default)
                        for n, v in cand.update)
        out.append(Suggestion(tuple(new_argv), changes, cand.layout, cand.gpus, cand.nodes, verdict,
                              _run_notes(cand.layout, cand.nodes, host)))
    return out


def _long(name: str) -> str:
    return _SHORT.get(name) or "--" + name.replace("_", "-")


def _every_node_accepted(check, facts, release, env, host, entry, model_path, lay: Layout, spec=None) -> bool:
    """A multi-node launch runs on every node: node r > 0 with ``--node-rank r --headless``."""
    if _size(lay.nnodes) <= 1 or entry != "serve":
        return True
    for rank in range(1, lay.nnodes):
        worker = lay.model_copy(update={"node_rank": rank, "headless": True})
        try:
            if not check(facts, worker, vllm_version=release, env=env, host=host, model_path=model_path,
                         speculative_config=spec).ok:
                return False
        except Undecidable:
            return False
    return True


def _run_notes(lay: Layout, nodes: int, host: Host) -> tuple[str, ...]:
    if _size(lay.nnodes) > 1:
        last = lay.nnodes - 1
        others = "node 1 add --node-rank 1" if last == 1 else f"nodes R = 1–{last} add --node-rank R"
        return (f"runs on {lay.nnodes} nodes: this command on node 0, plus --master-addr <node 0's address>; on "
                f"{others} --master-addr <node 0's address> --headless",)
    if lay.distributed_executor_backend == "ray" and nodes > 1:
        return (f"needs a Ray cluster of {nodes} nodes (ray start --head on one, ray start --address=<head> on "
                "the others); run this command on the head node",)
    return ()
