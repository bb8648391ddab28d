"""What the multimodal wrappers (Qwen3-VL, Kimi-K2.5, Gemma 4) share at model construction.

Mirrors two pieces of vLLM every wrapper uses: ``WeightsMapper``'s ``orig_to_new_prefix`` (vllm/model_executor/
models/utils.py), through which a quantization config's ignore or exclusion list reaches the wrapper's own module
names, and the tower a wrapper leaves out when ``--limit-mm-per-prompt`` (or ``--language-model-only``, 0.17.0+) limits
its modalities to 0 (``SupportsMultiModal._mark_tower_model`` in vllm/model_executor/models/interfaces.py from 0.15.0;
before, the wrapper's own test of the limits).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["MAPPED_SINCE", "renamed", "tower_left_out", "unmapped_exclusions"]

#: the checkpoint methods whose exclusion list a wrapper's checkpoint-name mapper rewrites before any layer is built,
#: from the release each names (``apply_vllm_mapper``, called for every model with a mapper: model_loader/utils.py or
#: ``SupportsQuant``): ``Fp8Config`` in every release, AWQ from 0.11.1; the others' lists are decided only where the
#: mapper would leave them as written
MAPPED_SINCE = {"fp8": "0.10.2", "awq": "0.11.1"}


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


def tower_left_out(architecture: str) -> str:
    """Why a launch limiting the multimodal inputs leaves the construction of ``architecture`` open: which towers the
    wrapper then builds depends on the modalities limited to 0, which kvguard does not read."""
    return (f"--limit-mm-per-prompt / --language-model-only with {architecture} (the wrapper builds no vision tower "
            f"when every modality is limited to 0) is not modelled")


def unmapped_exclusions(method: "str | None", ignored: "tuple[str, ...]", prefixes: "tuple[tuple[str, str], ...]",
                        architecture: str, release, mapped_since: "Mapping[str, str]" = MAPPED_SINCE) -> "str | None":
    """Why the exclusion list ``ignored`` (as the checkpoint writes it) of ``method`` is not decided on the wrapper
    whose mapper renames ``prefixes``: the mapper would rewrite an entry, and the method's config does not take the
    mapper in ``release`` (``mapped_since``: the methods proven to take it, from the release each names); else
    None."""
    mapped = method is not None and method in mapped_since and release.within(mapped_since[method])
    if not mapped and tuple(renamed(ignored, prefixes)) != tuple(ignored):
        return (f"the {method} exclusion list {list(ignored)!r} of {architecture} (names its checkpoint-name mapper "
                f"rewrites) is not modelled")
    return None
