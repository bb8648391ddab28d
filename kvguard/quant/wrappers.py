"""What the multimodal wrappers (Qwen3-VL, Qwen2-VL, Gemma 3, Intern-S1, GLM-4.5V, Kimi-K2.5, Gemma 4) share at model
construction.

Mirrors two pieces of vLLM every wrapper uses: ``WeightsMapper``'s ``orig_to_new_prefix`` (vllm/model_executor/
models/utils.py), through which a quantization config's ignore or exclusion list reaches the wrapper's own module
names, and the tower a wrapper leaves out when ``--limit-mm-per-prompt`` (or ``--language-model-only``, 0.17.0+) limits
its modalities to 0 (``SupportsMultiModal._mark_tower_model`` in vllm/model_executor/models/interfaces.py from 0.15.0;
before, the wrapper's own test of the limits).

The wrappers that build their vision tower first, then the language model (kvguard.quant.names.TOWER_WRAPPERS, in
the order kvguard.quant asks them), each have a module with the same interface, which kvguard.quant reads for every
one of them alike:

- ``unmodelled(facts, architecture, method, ignored, launch, release)``: why the construction is not decided
  (``method``: the checkpoint's or ``--quantization``'s, None unquantized; ``ignored``: the exclusion list as the
  checkpoint writes it), or None; each ends with :func:`past_the_tower`, the steps they share;
- ``ignored_names(names)``: the exclusion list after the wrapper's checkpoint-name mapper;
- ``tower_layers(resolved_top, architecture, method, release)``: the tower's linear layers in construction order;
- optionally ``refused(resolved_top, architecture, launch)``: a refusal of the tower's own before its layers are
  built (``(check, values, layer)``), or None (Qwen2-VL's head split);
- optionally ``READS_MODELOPT_METHOD`` (True): ``method`` is, for a ModelOpt export, the method the release's
  override names, not the checkpoint's (Qwen3-VL / Qwen3.5).
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = ["MAPPED_SINCE", "TOWER_TAKES_CONFIG", "exclusion_mapper", "past_the_tower", "renamed", "tower_left_out",
           "tower_sizes", "unmapped_exclusions"]

#: the checkpoint methods whose exclusion list a wrapper's checkpoint-name mapper rewrites before any layer is built,
#: from the release each names (``apply_vllm_mapper``, called for every model with a mapper: model_loader/utils.py or
#: ``SupportsQuant``): ``Fp8Config`` in every release, AWQ from 0.11.1; the others' lists are decided only where the
#: mapper would leave them as written
MAPPED_SINCE = {"fp8": "0.10.2", "awq": "0.11.1"}
#: why a wrapper's method list decides: its tower is built with the quantization config
TOWER_TAKES_CONFIG = " (its vision tower takes the quantization config)"


def renamed(names: "Iterable[str]", prefixes: "tuple[tuple[str, str], ...]") -> list[str]:
    """``names`` through a checkpoint-name mapper's prefix renames, applied in order (a renamed name may be renamed
    again by a later pair, as WeightsMapper does)."""
    out = []
    for name in names:
        for old, new in prefixes:
            if name.startswith(old):
                name = new + name[len(old):]
        out.append(name)
    return out


def exclusion_mapper(prefixes: "tuple[tuple[str, str], ...]") -> "Callable[[tuple[str, ...]], tuple[str, ...]]":
    """A wrapper's ``ignored_names``: an exclusion list through its checkpoint-name mapper's ``prefixes`` renames
    (``WeightsMapper.apply_list``)."""

    def ignored_names(names: "tuple[str, ...]") -> "tuple[str, ...]":
        """An exclusion list after the wrapper's checkpoint-name mapper (``WeightsMapper.apply_list``)."""
        return tuple(renamed(names, prefixes))

    return ignored_names


def tower_sizes(resolved_top: "Mapping[str, Any]", keys: "Iterable[str]",
                width_and_heads: "tuple[str, str] | None" = None) -> "dict[str, Any] | None":
    """The vision tower's sizes as kvguard.facts snapshots them (``vision_tower``) when each of ``keys`` is a positive
    integer and the width is a multiple of the head count (``width_and_heads``: their keys; else the head size's own
    divide() refuses at any tp, which is not modelled); else None."""
    sizes = resolved_top.get("vision_tower")
    if not isinstance(sizes, Mapping) or not all(type(sizes.get(k)) is int and sizes[k] > 0 for k in keys):
        return None
    if width_and_heads is not None and sizes[width_and_heads[0]] % sizes[width_and_heads[1]] != 0:
        return None
    return dict(sizes)


def tower_left_out(architecture: str) -> str:
    """Why a launch limiting the multimodal inputs leaves the construction of ``architecture`` open: which towers the
    wrapper then builds depends on the modalities limited to 0, which kvguard does not read."""
    return (f"--limit-mm-per-prompt / --language-model-only with {architecture} (the wrapper builds no vision tower "
            f"when every modality is limited to 0) is not modelled")


def unmapped_exclusions(method: "str | None", ignored: "tuple[str, ...]", prefixes: "tuple[tuple[str, str], ...]",
                        architecture: str, release,
                        mapped_since: "Mapping[str, str] | Mapping[str | None, str]" = MAPPED_SINCE) -> "str | None":
    """Why the exclusion list ``ignored`` (as the checkpoint writes it) of ``method`` is not decided on the wrapper
    whose mapper renames ``prefixes``: the mapper would rewrite an entry, and the method's config does not take the
    mapper in ``release`` (``mapped_since``: the methods proven to take it, from the release each names); else
    None."""
    mapped = method is not None and method in mapped_since and release.within(mapped_since[method])
    if not mapped and tuple(renamed(ignored, prefixes)) != tuple(ignored):
        return (f"the {method} exclusion list {list(ignored)!r} of {architecture} (names its checkpoint-name mapper "
                f"rewrites) is not modelled")
    return None


def past_the_tower(architecture: str, method: "str | None", methods: "tuple[str | None, ...]",
                   exclusions: "str | None", launch, pipeline_why: str,
                   method_why: str = TOWER_TAKES_CONFIG) -> "str | None":
    """The steps every tower wrapper's ``unmodelled`` ends with, in this order: ``method`` not among the ``methods``
    proven through the wrapper; ``exclusions`` (the wrapper's own reason its exclusion list is not decided, or None);
    a launch limiting the multimodal inputs; pipeline parallelism (``pipeline_why``: what of it is not read).  The
    first reason, or None."""
    if method not in methods:
        return f"the {method} weight-shard checks of {architecture}{method_why} are not modelled"
    if exclusions is not None:
        return exclusions
    if launch.mm_limits:
        return tower_left_out(architecture)
    if launch.pp > 1:
        return f"pipeline parallelism with {architecture} ({pipeline_why}) is not modelled"
    return None
