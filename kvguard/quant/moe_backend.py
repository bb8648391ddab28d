"""The MoE backend a launch names, where a quantization method's experts are decided only for the default choice.

The experts' methods kvguard decides on the default host (ModelOpt FP8 / NVFP4: kvguard.quant.modelopt_shards; MXFP4:
kvguard.quant.gpt_oss) choose their MoE backend while they are built (vllm/model_executor/layers/fused_moe/oracle/ of
the releases that have it): with ``--moe-backend auto`` and the default all2all backend the choice refuses no layout;
a named backend, or another all2all backend (it changes the activation format the choice reads), is not modelled.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Optional


__all__ = ["named_backend_unmodelled"]


def named_backend_unmodelled(experts: str, moe_backend: Optional[str], all2all_backend: Optional[str]
                             ) -> Optional[str]:
    """Why the construction of ``experts`` (e.g. "MXFP4 experts") is not decided for the launch's backends, or None."""
    if moe_backend not in (None, "auto"):
        return f"--moe-backend {moe_backend} with {experts} (the MoE backend selection) is not modelled"
    if all2all_backend is not None:
        return (f"--all2all-backend {all2all_backend} with {experts} (the MoE backend selection reads the activation "
                f"format) is not modelled")
    return None
