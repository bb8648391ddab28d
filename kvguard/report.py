"""Reporters for a checked launch: text, json, github (chosen by ``--format``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from .facts import ModelFacts
from .verdict import Verdict

__all__ = ["JSON_SCHEMA_VERSION", "LaunchReport", "REPORTERS", "render"]

JSON_SCHEMA_VERSION = 1

_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 2, "float": 2, "auto": 2,
                "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1}


@dataclass
class LaunchReport:
    """Everything the CLI says about one launch."""

    verdict: Verdict
    model: Optional[str] = None
    source: Optional[str] = None
    location: Optional[str] = None
    layout: dict[str, Any] = field(default_factory=dict)
    legal_dcp_sizes: Optional[list[int]] = None
    kv_cache_dtype: str = "auto"

    @property
    def facts(self) -> Optional[ModelFacts]:
        return self.verdict.facts if isinstance(self.verdict.facts, ModelFacts) else None

    def kv_facts(self) -> dict[str, Any]:
        f = self.facts
        if f is None:
            return {}
        tp = self.layout.get("tensor_parallel_size", 1)
        dcp = self.layout.get("decode_context_parallel_size", 1)
        out = f.to_dict()
        if f.use_mla is None or f.total_num_kv_heads is None or not isinstance(tp, int) or tp < 1:
            return out
        b = _DTYPE_BYTES.get(self.kv_cache_dtype, 2)
        out.update(
            tp=tp,
            cache_kv_heads=f.cache_kv_heads,
            num_kv_heads_per_rank=f.num_kv_heads(tp),
            duplication_factor=f.duplication_factor(tp),
            residual_duplication=max(1, f.duplication_factor(tp) // max(1, dcp)) if isinstance(dcp, int) else None,
            kv_cache_dtype=self.kv_cache_dtype,
            kv_bytes_per_token_per_rank=f.kv_bytes_per_token(tp, dcp=max(1, dcp) if isinstance(dcp, int) else 1,
                                                              dtype_bytes=b),
        )
        if self.legal_dcp_sizes is not None:
            out["legal_dcp_sizes"] = self.legal_dcp_sizes
        return out

    def to_dict(self) -> dict[str, Any]:
        out = {"schema": JSON_SCHEMA_VERSION}
        out.update(self.verdict.to_dict())
        out.update(model=self.model, source=self.source, location=self.location, layout=self.layout,
                   facts=self.kv_facts())
        return out


def render_json(report: LaunchReport) -> str:
    return json.dumps(report.to_dict(), indent=2, default=str)


def render_text(report: LaunchReport, color: bool = False) -> str:
    v = report.verdict
    red, green, dim, reset = ("\033[31m", "\033[32m", "\033[2m", "\033[0m") if color else ("",) * 4
    lines = []
    if v.ok:
        lines.append(f"{green}ACCEPT{reset}  vLLM {v.vllm_version} accepts this launch")
    else:
        lines.append(f"{red}REFUSE{reset}  vLLM {v.vllm_version} refuses this launch at {v.stage} ({v.check})")
        how = f"{v.exc_type}"
        if v.wrapped_by:
            how += f", surfacing as pydantic ValidationError for {v.wrapped_by}"
        lines.append(f"  raises:  {how}")
        if v.loc:
            lines.append(f"  field:   {'.'.join(v.loc)}")
        lines.append(f"  message: {v.message}")
    if report.model:
        src = f" ({report.source}: {report.location})" if report.source else ""
        lines.append(f"model: {report.model}{src}")
    kv = report.kv_facts()
    if kv:
        mla = "MLA" if kv.get("use_mla") else "GQA/MHA"
        lines.append(f"  {kv.get('model_type')}  {mla}  attention heads {kv.get('total_num_attention_heads')}, "
                     f"KV heads {kv.get('total_num_kv_heads')}, head size {kv.get('head_size')}, "
                     f"layers {kv.get('num_hidden_layers')}")
        if "duplication_factor" in kv:
            lines.append(f"  KV cache: H={kv['cache_kv_heads']} governs the cache; at tp={kv['tp']} each rank "
                         f"holds {kv['num_kv_heads_per_rank']} KV head(s), duplication factor "
                         f"{kv['duplication_factor']}")
            if kv.get("kv_bytes_per_token_per_rank") is not None:
                lines.append(f"  KV bytes per token per rank: {kv['kv_bytes_per_token_per_rank']:,} "
                             f"({kv['kv_cache_dtype']})")
        if kv.get("legal_dcp_sizes") is not None:
            lines.append(f"  legal -dcp sizes at this layout: {kv['legal_dcp_sizes']}")
    for s in v.skipped:
        lines.append(f"{dim}  skipped {s.check}: {s.reason}{reset}")
    if v.assumptions:
        lines.append(f"{dim}  assumed a standard CUDA node: {', '.join(v.assumptions)} (state yours with "
                     f"--platform/--gpus-per-node/--host, or --unknown-host to skip host checks){reset}")
    for note in v.notes:
        lines.append(f"{dim}  note: {note}{reset}")
    return "\n".join(lines)


def _gh_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(report: LaunchReport) -> str:
    v = report.verdict
    if v.ok:
        return f"::notice title=kvguard::vLLM {v.vllm_version} accepts this launch"
    title = _gh_escape(f"kvguard {v.check} (vLLM {v.vllm_version})").replace(",", "%2C").replace("::", ": :")
    return f"::error title={title}::{_gh_escape(f'{v.exc_type}: {v.message}')}"


REPORTERS = {"text": render_text, "json": render_json, "github": render_github}


def render(report: LaunchReport, fmt: str, *, color: bool = False) -> str:
    if fmt == "text":
        return render_text(report, color=color)
    return REPORTERS[fmt](report)
