"""What a speculative draft allows, for ``audit`` and ``plan``: the draft constraints at a layout."""

from __future__ import annotations

from typing import Any

__all__ = ["draft_constraints"]


def draft_constraints(facts: Any, spec: Any, release: Any, tp: int, *, env: dict, host: Any,
                      pcp: int = 1, dcp: int = 1) -> list[str]:
    """Lines saying what the launch's speculative decoding refuses at ``-tp tp`` (and with a pipeline)."""
    from ..launch.layout import Layout
    from ..rules.engine import evaluate

    lines: list[str] = []
    base = dict(tensor_parallel_size=tp, prefill_context_parallel_size=pcp, decode_context_parallel_size=dcp)
    at = evaluate(release, facts, Layout(**base), env=env, host=host, spec=spec)
    draft = [n for n in at.notes if n.startswith("speculative draft: ")]
    lines += [n[len("speculative "):] for n in draft]
    if not at.ok and (at.stage == "speculative" or (at.check or "").startswith(("SC_", "EA_spec", "VC_async_spec"))):
        lines.append(f"speculative decoding refuses -tp {tp}: {at.exc_type}: {at.message}")
        return lines
    from ..record import replace

    roomy = replace(host, gpus_per_node=max(host.gpus_per_node or 0, 2 * tp * pcp)) \
        if host.gpus_per_node is not None else host   # the pipeline's GPUs must not be what refuses it
    piped = evaluate(release, facts, Layout(**base, pipeline_parallel_size=2), env=env, host=roomy, spec=spec)
    if not piped.ok and (piped.check or "").startswith("SC_draft_verify"):
        lines.append(f"pipeline parallelism with this draft is refused in vLLM {release.version} ({piped.check}): "
                     f"{piped.exc_type}: {piped.message}")
    elif piped.ok and release.within("0.30.0"):
        lines.append(f"the draft runs without pipeline parallelism in vLLM {release.version} (its ParallelConfig "
                     "has pipeline_parallel_size=1 from 0.30.0)")
    return lines
