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
    from collections.abc import Iterable

__all__ = ["renamed", "tower_left_out"]


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
