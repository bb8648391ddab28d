"""The rule reference (docs/rules.md), generated from the rule table itself."""

from __future__ import annotations

from collections import OrderedDict

from ..versions import KNOWN_RELEASES
from . import WRAPPER, Check, FieldRule, Step
from .table import NOT_MODELLED, RULES

__all__ = ["render_markdown"]

_STAGE_TITLES = {
    "frontend": "The `vllm serve` front end before any config: the CLI's validate_parsed_serve_args, then the API "
                "server's validate_api_server_args (raised as they are; kvguard.rules.parsers)",
    "model_config": "ModelConfig (pydantic dataclass: its field validation, then __post_init__; ValueError wrapped)",
    "engine_args": "EngineArgs.create_engine_config (raw exceptions)",
    "parallel_config": "ParallelConfig (pydantic dataclass: ValueError/AssertionError wrapped)",
    "speculative": "SpeculativeConfig (--speculative-config; pydantic dataclass: ValueError/AssertionError wrapped "
                   "by SpeculativeConfig) — see docs/speculative-decoding.md",
    "cache_config": "CacheConfig (--gpu-memory-utilization, --cpu-offload-gb; pydantic dataclass: ValueError wrapped "
                    "by CacheConfig)",
    "scheduler": "SchedulerConfig (--max-num-batched-tokens, --max-num-seqs; pydantic dataclass: ValueError wrapped "
                 "by SchedulerConfig)",
    "lora": "LoRAConfig (--enable-lora only: --max-loras, --max-cpu-loras, and to 0.11.0 --max-lora-rank, "
            "--lora-extra-vocab-size; pydantic dataclass: ValueError wrapped by LoRAConfig; kvguard.rules.lora_config)",
    "load": "LoadConfig (0.21.0+: the --safetensors-prefetch-* bounds; pydantic dataclass: a ValidationError for "
            "LoadConfig; kvguard.rules.late_bounds)",
    "decoding": "DecodingConfig (0.10.2: the --guided-decoding-* switches; its __post_init__'s ValueError wrapped by "
                "DecodingConfig; kvguard.rules.engine_options)",
    "observability": "ObservabilityConfig (--collect-detailed-traces, --show-hidden-metrics-for-version; pydantic "
                     "dataclass: wrapped by ObservabilityConfig; kvguard.rules.observability)",
    "offload": "OffloadConfig (0.17.0+: --offload-backend and the prefetch group; its model validator's ValueError "
               "wrapped by OffloadConfig; kvguard.rules.engine_options)",
    "verify": "VllmConfig.__post_init__: verify_with_parallel_config and later checks (wrapped by VllmConfig)",
    "model_init": "Model construction in the workers: layers, quantization methods, FusedMoE (raised unwrapped; "
                  "kvguard/data/quant_archs.json, docs/model-construction.md)",
    "worker": "Worker start: the attention backend's context-parallel check (raw AssertionError in a worker) — see "
              "docs/attention-backends.md",
}


def _releases(row) -> str:
    first = row.since or KNOWN_RELEASES[0]
    last = row.until or KNOWN_RELEASES[-1]
    span = first if first == last else f"{first} – {last}"
    if row.patch:
        span += f" with {row.patch}"
    if row.unless_patch:
        span += f" (not with {row.unless_patch})"
    return span


def _surfacing(row) -> str:
    if isinstance(row, FieldRule):
        return f"pydantic ValidationError for {WRAPPER[row.stage]} (one entry per failing field)"
    if row.exc in ("ValueError", "AssertionError") and WRAPPER.get(row.stage):
        prefix = "Assertion failed, " if row.exc == "AssertionError" else "Value error, "
        return f"ValidationError for {WRAPPER[row.stage]} (`{prefix}…`)"
    return "raw"


def _fence(text: str) -> str:
    return "```text\n" + text + "\n```"


def render_markdown() -> str:
    """Markdown listing every rule with its releases, exception, surfacing and exact template."""
    lines = [
        "# Launch checks by release",
        "",
        "Generated from `kvguard/rules/table.py` by `tools/gen_rules_doc.py` — do not edit; the test",
        "suite fails when this file is out of date. Each check lists the releases it applies to, the",
        "exception type vLLM's statement raises, how it reaches the user, and the message template",
        "exactly as upstream writes it (`{name}` marks a value filled in from the launch).",
        "Derivation steps (vLLM's own state changes between checks) are listed where they run.",
        "Rows carry ranges for every release 0.10.2 – 0.33.0; releases outside",
        "`kvguard.SUPPORTED_VERSIONS` are modelled but not yet verified against the real release.",
        "",
    ]
    by_stage: "OrderedDict[str, list]" = OrderedDict((s, []) for s in _STAGE_TITLES)
    for row in RULES:
        by_stage[row.stage].append(row)
    for stage, rows in by_stage.items():
        lines += [f"## {_STAGE_TITLES[stage]}", ""]
        for row in rows:
            if isinstance(row, Step):
                lines += [f"- *step* `{row.id}` ({_releases(row)}): {row.description}", ""]
                continue
            if isinstance(row, FieldRule):
                lines += [f"### `{row.id}` — {row.description}", "",
                          f"- releases: {_releases(row)}", "- raises: pydantic field validation",
                          f"- surfaces as: {_surfacing(row)}", f"- upstream: `{row.source}`", ""]
                for name, _attr, kind, bound in row.fields:
                    if kind in ("ge", "ge?"):
                        rule = f"`{name}` >= {bound}"
                    elif kind == "gt?":
                        rule = f"`{name}` > {bound}"
                    elif kind == "range?":
                        rule = f"{bound[0]} <= `{name}` <= {bound[1]}"
                    else:
                        rule = f"`{name}` in {list(bound)}"
                    if kind.endswith("?"):
                        rule += " or None (not given)"
                    lines.append(f"  - {rule}")
                lines.append("")
                continue
            assert isinstance(row, Check)
            lines += [f"### `{row.id}` — {row.description}", "",
                      f"- releases: {_releases(row)}",
                      f"- raises: `{row.exc}`; surfaces as: {_surfacing(row)}",
                      f"- scope: {row.scope}; upstream: `{row.source}`", "",
                      _fence(row.template), ""]
    lines += ["## Upstream checks kvguard does not evaluate", "",
              "Each needs an input kvguard does not take yet; with vLLM's defaults none of them fires.", "",
              "| check | releases | needs |", "| --- | --- | --- |"]
    for check_id, since, until, why in NOT_MODELLED:
        lines.append(f"| `{check_id}` | {since} – {until or KNOWN_RELEASES[-1]} | {why} |")
    return "\n".join(lines).rstrip() + "\n"
