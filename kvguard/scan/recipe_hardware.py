"""The hardware profiles the vLLM recipes site renders commands for.

Facts from the site's ``taxonomy.yaml`` (github.com/vllm-project/recipes, commit 02ebfc5):
profile id, brand, generation, GPUs per node and the node's memory in GB.  The recipes reader
(:mod:`kvguard.scan.recipes`) uses them to render a recipe for one profile: which
``hardware_overrides`` apply (exact id, then generation, then the ``nvidia`` brand block), the
GPU count of single-node strategies, and the per-GPU memory single-node TP is fitted to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

__all__ = ["HardwareProfile", "PROFILES", "keyed_value"]


@dataclass(frozen=True)
class HardwareProfile:
    id: str
    brand: str
    generation: str
    gpu_count: int
    vram_gb: int                 # the whole node's
    restricted: bool = False     # offered only where the recipe's meta.hardware names it

    @property
    def gpu_memory_gb(self) -> float:
        return self.vram_gb / self.gpu_count


def _profiles(*rows: tuple) -> dict[str, HardwareProfile]:
    return {row[0]: HardwareProfile(*row) for row in rows}


PROFILES: Mapping[str, HardwareProfile] = _profiles(
    ("h100", "NVIDIA", "hopper", 8, 640),
    ("h200", "NVIDIA", "hopper", 8, 1128),
    ("b200", "NVIDIA", "blackwell", 8, 1440),
    ("gb200", "NVIDIA", "blackwell", 4, 768),
    ("b300", "NVIDIA", "blackwell", 8, 2144),
    ("gb300", "NVIDIA", "blackwell", 4, 1152),
    ("dgx_station_gb300", "NVIDIA", "blackwell", 1, 252, True),
    ("dgx_spark_gb10", "NVIDIA", "blackwell", 1, 128, True),
    ("rtx_pro_6000", "NVIDIA", "blackwell", 1, 96, True),
    ("rtx_pro_6000_2x", "NVIDIA", "blackwell", 2, 192, True),
    ("rtx_pro_6000_4x", "NVIDIA", "blackwell", 4, 384, True),
    ("rtx_pro_5000", "NVIDIA", "blackwell", 1, 72, True),
    ("rtx_pro_5000_4x", "NVIDIA", "blackwell", 4, 288, True),
    ("rtx_pro_6000_8x", "NVIDIA", "blackwell", 8, 768, True),
    ("rtx_5090", "NVIDIA", "blackwell", 1, 32, True),
    ("rtx_4090_2x", "NVIDIA", "ada", 2, 48, True),
    ("rtx_5090_2x", "NVIDIA", "blackwell", 2, 64, True),
    ("mi300x", "AMD", "amd", 8, 1536),
    ("mi325x", "AMD", "amd", 8, 2048),
    ("mi355x", "AMD", "amd", 8, 2304),
    ("trillium", "Google", "tpu", 8, 256, True),
    ("ironwood", "Google", "tpu", 1, 192, True),
    ("xeon6", "Intel", "cpu", 4, 1024, True),
    ("xeon5", "Intel", "cpu", 4, 1024, True),
    ("arc_pro_b60", "Intel", "xpu", 4, 96, True),
    ("arc_pro_b70", "Intel", "xpu", 4, 128, True),
    ("ascend_950pr", "Huawei", "npu", 1, 128, True),
    ("ascend_950dt", "Huawei", "npu", 8, 768, True),
    ("ascend_910c", "Huawei", "npu", 16, 1024, True),
)


def keyed_value(table: Any, profile: HardwareProfile) -> Optional[Any]:
    """A hardware-keyed map's entry for ``profile``: its exact id, else its generation, else its
    brand (lower case), else ``default`` (the site's precedence for variant ``tp`` and
    ``strategy_hardware``)."""
    if not isinstance(table, Mapping):
        return None
    for key in (profile.id, profile.generation, profile.brand.lower(), "default"):
        if key in table:
            return table[key]
    return None
