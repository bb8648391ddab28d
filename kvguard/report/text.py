"""``--format text``: what a person reads in a terminal (ANSI colours with ``color``)."""

from __future__ import annotations

from . import Reporter, byte_count

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)

if TYPE_CHECKING:
    from typing import Any, Optional

    from ..diff import LaunchDiff
    from ..front import LaunchReport
    from ..kv.capacity import CapacityNotModelledResult, CapacityPrediction
    from ..kv.economics import AuditReport, ModelAudit
    from ..kv.plan import PlanReport
    from ..scan import ScanResult
    from ..verdict import Verdict

__all__ = ["TextReporter", "capacity_lines", "describe_side", "summary_line"]


class TextReporter(Reporter):
    format = "text"

    def check(self, report: "LaunchReport") -> str:
        return _check(report, self.color)

    def scan(self, result: "ScanResult") -> str:
        return _scan(result, self.color, self.quiet)

    def audit(self, report: "AuditReport") -> str:
        return _audit(report)

    def plan(self, report: "PlanReport", top: Optional[int] = 10) -> str:
        return _plan(report, top)

    def diff(self, diff: "LaunchDiff") -> str:
        return _diff(diff)



def _check(report: "LaunchReport", color: bool) -> str:
    v = report.verdict
    red, green, dim, reset = ("\033[31m", "\033[32m", "\033[2m", "\033[0m") if color else ("",) * 4
    lines = []
    if v.ok:
        lines.append(f"{green}ACCEPT{reset}  vLLM {v.vllm_version} accepts this launch")
    else:
        lines.append(f"{red}REFUSE{reset}  vLLM {v.vllm_version} refuses this launch at {v.stage} ({v.check})")
        how = f"{v.exc_type}"
        if v.stage == "argparse" and v.exc_type == "SystemExit":
            how += "(2): argparse prints usage and this error"
        if v.wrapped_by:
            how += f", surfacing as pydantic ValidationError for {v.wrapped_by}"
        lines.append(f"  raises:  {how}")
        if v.loc:
            lines.append(f"  field:   {'.'.join(v.loc)}")
        lines.append(f"  message: {v.message}")
    if report.release_source is not None and report.release_source != "--vllm-version":
        lines.append(f"release: vLLM {v.vllm_version} ({report.release_source})")
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
            residual = kv.get("residual_duplication")
            after = f"; left after -dcp {report.layout.get('decode_context_parallel_size')}: {residual}" \
                if residual is not None else ""
            lines.append(f"  KV cache: H={kv['cache_kv_heads']} governs the cache; at tp={kv['tp']} each rank "
                         f"holds {kv['num_kv_heads_per_rank']} KV head(s), duplication factor "
                         f"{kv['duplication_factor']}{after}")
            if kv.get("kv_bytes_per_token_per_rank") is not None:
                lines.append(f"  KV bytes per token per rank: {kv['kv_bytes_per_token_per_rank']:,} "
                             f"({kv['kv_cache_dtype']})")
            elif kv.get("kv_bytes_per_token_per_rank_all_full") is not None:
                lines.append(f"  KV bytes per token per rank: {kv['kv_bytes_per_token_per_rank_all_full']:,} "
                             f"({kv['kv_cache_dtype']}) with every layer counted as full attention; "
                             f"{kv['sliding_window_layers']} of {kv.get('num_hidden_layers')} layers slide (window "
                             f"{', '.join(f'{w:,}' for w in kv['sliding_windows'])}): the full-attention layers "
                             f"{kv['kv_bytes_per_token_per_rank_full_layers']:,} for every token, the sliding-window "
                             f"layers {kv['kv_bytes_per_token_per_rank_sliding_layers']:,} for at most their window "
                             "plus the tokens in flight and a block (audit --kv-memory-gib sizes it)")
            elif kv.get("kv_bytes_not_modelled"):
                lines.append(f"  KV bytes per token per rank: not modelled ({kv['kv_bytes_not_modelled']})")
        if report.length is not None:
            lines.append("  " + _length_text(report.length))
        legal = kv.get("legal_dcp_sizes")
        if legal:
            lines.append(f"  legal -dcp sizes at this layout: {legal}")
        elif legal is not None:
            # an empty list reads as "-dcp is the problem"; say which refusal stands whatever -dcp is
            why = _no_dcp_text(v, kv.get("legal_dcp_sizes_reason"))
            lines.append(f"  legal -dcp sizes at this layout: none — {why}")
    for s in v.skipped:
        lines.append(f"{dim}  skipped {s.check}: {s.reason}{reset}")
    for assumption in (report.facts.assumptions if report.facts is not None else ()):
        lines.append(f"{dim}  assumed: {assumption}{reset}")
    host_assumed = [a for a in v.assumptions if not a.startswith("VLLM_") and "=" in a]
    if host_assumed:
        # facts read only on the CPU platform (a stated --platform cpu) are not a CUDA node's
        cpu_only = all(a.startswith(("amx=", "ipex=")) for a in host_assumed)
        what = "of the CPU host" if cpu_only else "a standard CUDA node"
        lines.append(f"{dim}  assumed {what}: {', '.join(host_assumed)} (state yours with "
                     f"--platform/--gpus-per-node/--host, or --unknown-host to skip host checks){reset}")
    for a in v.assumptions:
        if a.endswith(" unset") and not a.startswith("VLLM_"):   # a host variable whose absence decided
            name = a.split(" ", 1)[0]
            lines.append(f"{dim}  assumed: {a} (state yours with --env {name}=…){reset}")
        elif "=" not in a and not a.startswith("VLLM_"):
            lines.append(f"{dim}  assumed: {a}{reset}")
    for a in report.env_assumptions:
        lines.append(f"{dim}  assumed: {a.describe()} (state yours with --env {a.name}=…){reset}")
    for note in v.notes:
        lines.append(f"{dim}  note: {note}{reset}")
    if report.suggestions is not None:
        lines += _suggestion_lines(report, dim, reset)
    return "\n".join(lines)


def _length_text(length: dict) -> str:
    derived = f"{length['key']}={length['derived']}" if length.get("key") else f"{length['derived']}"
    effective = length.get("effective")
    if length.get("given") is None:
        text = f"max model len: {effective:,} (derived: {derived})" if effective is not None else \
            f"max model len: derived {derived}"
    elif length["given"] == -1:
        text = f"max model len: -1 (auto-fit at start-up, from the derived {derived})"
    elif effective is not None:
        text = f"max model len: {effective:,} (--max-model-len; derived maximum {derived})"
    else:
        text = f"max model len: --max-model-len {length['given']:,} (derived maximum {derived})"
    if length.get("unread"):
        text += f"; not read: {length['unread']}"
    return text


def _suggestion_lines(report: "LaunchReport", dim: str, reset: str) -> list[str]:
    from ..kv.suggestions import EDITABLE, MAX_CHANGES, describe_host

    v = report.verdict
    host = describe_host(report.suggestion_host) if report.suggestion_host is not None else "host unknown"
    if not report.suggestions:
        if v.stage == "model_config" and (v.check or "").startswith("MC_"):
            # ModelConfig's checks (length, dtype, quantization) read no parallel flag
            return [f"no nearby launch among the parallel flags: ModelConfig refuses this launch ({v.check}) "
                    "whatever they are"]
        if v.stage == "model_config":
            return ["no nearby launch: vLLM refuses the model's config itself, whatever the parallel flags"]
        flags = ", ".join(f.replace("_", "-") for f in EDITABLE)
        return [f"no launch within {MAX_CHANGES} changes of the parallel flags ({flags}) is accepted by "
                f"vLLM {v.vllm_version} on this host ({host})"]
    lines = [f"nearest launches vLLM {v.vllm_version} accepts (only parallel flags changed, each one checked; "
             f"host: {host}):"]
    for i, s in enumerate(report.suggestions, 1):
        lines.append(f"  {i}. {s.describe()} — {s.gpus} GPU{'s' if s.gpus != 1 else ''}, "
                     f"{s.nodes} node{'s' if s.nodes != 1 else ''}")
        lines.append(f"     {s.command}")
        for note in s.notes:
            lines.append(f"{dim}     {note}{reset}")
        if s.verdict.skipped:
            lines.append(f"{dim}     not decided here: {', '.join(x.check for x in s.verdict.skipped)}{reset}")
    return lines



def _no_dcp_text(verdict: "Verdict", reason: Optional[dict[str, Any]]) -> str:
    if not reason:
        return f"vLLM {verdict.vllm_version} refuses every -dcp size at this layout"
    if not verdict.ok and reason.get("check") == verdict.check:
        return f"the refusal above ({verdict.check}) stands whatever -dcp is"
    return (f"even with -dcp 1 vLLM {verdict.vllm_version} refuses this layout ({reason.get('check')}, "
            f"{reason.get('exc_type')}: {reason.get('message')})")



def summary_line(summary: dict[str, Any]) -> str:
    reasons = ", ".join(f"{k} {v}" for k, v in summary["undecidable_by_reason"].items())
    return (f"{summary['found']} launch(es) found in {summary['files']} file(s): {summary['checked']} checked "
            f"({summary['accepted']} accepted, {summary['refused']} refused), {summary['undecidable']} "
            f"undecidable" + (f" ({reasons})" if reasons else "")
            + (f"; {summary['skipped_files']} file(s) skipped" if summary["skipped_files"] else ""))



def _scan(result: "ScanResult", color: bool, quiet: bool) -> str:
    """One entry per launch; ``quiet``: only refused and undecidable launches (and files named on the
    command line that could not be read), no summary."""
    from ..scan import summarize
    red, green, yellow, dim, reset = (("\033[31m", "\033[32m", "\033[33m", "\033[2m", "\033[0m") if color
                                      else ("",) * 5)
    lines = []
    for f in result.findings:
        if quiet and f.status == "accepted":
            continue
        label = f" [{f.launch.label}]" if f.launch.label else ""
        if f.status == "accepted":
            lines.append(f"{f.launch.where}: {green}ACCEPT{reset}{label}  {f.launch.command}")
        elif f.status == "refused":
            v = f.report.verdict
            lines.append(f"{f.launch.where}: {red}REFUSE{reset}{label}  {f.launch.command}")
            how = v.exc_type + (f" (pydantic ValidationError for {v.wrapped_by})" if v.wrapped_by else "")
            lines.append(f"    vLLM {v.vllm_version} {v.check}: {how}: {v.message}")
            if f.report.suggestions:
                nearest = f.report.suggestions[0]
                lines.append(f"    nearest accepted: {nearest.describe()}: {nearest.command}")
        else:
            lines.append(f"{f.launch.where}: {yellow}UNDECIDABLE{reset}{label}  {f.launch.command}")
            lines.append(f"    {f.reason}")
        # the run's release is named once, in the summary; a launch's own pin on the launch
        if f.vllm_version is not None and (f.release_pinned or f.vllm_version != result.vllm_version):
            lines.append(f"{dim}    release: vLLM {f.vllm_version} ({f.vllm_version_source}){reset}")
        for note in f.launch.notes:
            lines.append(f"{dim}    note: {note}{reset}")
    for s in result.skipped:
        if not quiet or s.fatal:
            lines.append(f"{dim}{s.path}: skipped: {s.reason}{reset}")
    if quiet:
        return "\n".join(lines)
    release = ""
    if result.vllm_version:
        release = f" (vLLM {result.vllm_version}" + (f": {result.vllm_version_source}"
                                                     if result.vllm_version_source else "") + ")"
    lines.append(summary_line(summarize(result)) + release)
    return "\n".join(lines)




def _audit(report: "AuditReport") -> str:
    lines = []
    for m in report.models:
        lines.append(f"{m.model}  (vLLM {m.vllm_version}, -tp {m.tp} -pcp {m.pcp} -dcp {m.dcp}, "
                     f"kv-cache-dtype {m.kv_cache_dtype} = {m.kv_cache_dtype_resolved}, {m.dtype_bytes} B)")
        if m.duplication_factor is None:
            lines.append("  no KV cache facts")
        else:
            kind = "MLA (one latent head)" if m.use_mla else "GQA/MHA"
            lines.append(f"  {kind}: total KV heads {m.total_num_kv_heads}, H governing the cache {m.cache_kv_heads}, "
                         f"{m.num_kv_heads_per_rank} per rank, head size {m.head_size}, layers {m.num_layers}")
            lines.append(f"  duplication factor {m.duplication_factor}, after -dcp {m.dcp}: {m.residual_duplication:g}"
                         + ("" if m.dcp_legal else "  (vLLM refuses this layout at every -dcp)" if not m.legal_dcp_sizes
                            else f"  (vLLM refuses -dcp {m.dcp} at this layout)"))
            lines.append(f"  legal -dcp sizes: {list(m.legal_dcp_sizes)}")
            lines.append(f"  KV bytes/token/rank: {byte_count(m.kv_bytes_per_token_per_rank, 'B')} "
                         f"({byte_count(m.kv_bytes_per_token_per_layer_per_rank, 'B')} per layer)")
            lines.append(f"  per token across the {m.tp * m.pcp} ranks of a replica: stored {byte_count(m.kv_bytes_per_token_stored, 'B')}, "
                         f"one copy {byte_count(m.kv_bytes_per_token_unique, 'B')}, duplication wastes "
                         f"{byte_count(m.duplication_waste_bytes_per_token, 'B')}")
        if m.max_model_len is not None:
            lines.append(f"  max model len (derived): {m.max_model_len:,} ({m.max_model_len_key}="
                         f"{m.max_model_len_derived})")
        for n in m.notes:
            lines.append(f"  note: {n}")
        if m.quantization is not None:
            lines.extend(_quantization_lines(m))
        if m.capacity is not None:
            lines.extend(capacity_lines(m.capacity))
    return "\n".join(lines)


def _quantization_lines(m: "ModelAudit") -> list[str]:
    """The model-construction section of ``kvguard audit``: the tensor-parallel sizes the checkpoint's
    quantization forbids, and why."""
    q = m.quantization
    assert q is not None  # the caller tests it
    head = f"  model construction ({q['method'] or 'unquantized'}"
    if q.get("weight_block_size"):
        head += f", weight blocks {q['weight_block_size'][0]}x{q['weight_block_size'][1]}"
    lines = [head + "):"]
    if q.get("not_modelled"):
        lines.append(f"    not checked: {q.get('not_modelled')}")
        return lines
    forbidden = [f["tp"] for f in q["forbidden_tp"]]
    undecided = q.get("undecided_tp") or []
    lines.append(f"    tp sizes vLLM {m.vllm_version} refuses while building the model: "
                 f"{forbidden if forbidden else 'none'} (of the sizes dividing the attention heads"
                 f"{', among those kvguard decides' if undecided else ''})")
    for reason in dict.fromkeys(u["reason"] for u in undecided):
        tps = ", ".join(str(u["tp"]) for u in undecided if u["reason"] == reason)
        lines.append(f"    not decided at tp {tps}: {reason}")
    for rule in q["rules"]:
        lines.append(f"    why: {rule}")
    if m.tp in forbidden:
        f = next(f for f in q["forbidden_tp"] if f["tp"] == m.tp)
        lines.append(f"    -tp {m.tp}: {f['exc_type']}: {f['message']}")
    for a in q.get("assumptions", ()):
        lines.append(f"    assumed: {a}")
    return lines



def capacity_lines(cap: "CapacityPrediction | CapacityNotModelledResult", indent: str = "  ") -> list[str]:
    """The capacity section of ``kvguard audit``'s text report."""
    from ..kv.capacity import CapacityNotModelledResult

    if isinstance(cap, CapacityNotModelledResult):
        return [f"{indent}capacity: not modelled — {cap.reason}"]
    stages = "/".join(str(n) for n in cap.layers_per_stage)
    lines = [f"{indent}capacity (vLLM {cap.vllm_version}, {cap.available_kv_bytes / (1 << 30):.2f} GiB KV memory per GPU, "
             f"max-model-len {cap.max_model_len:,}, -pp {cap.pp}, block size {cap.block_size}):",
             f"{indent}  page {cap.page_size_bytes:,} B per layer, layers per stage {stages}, "
             f"{cap.num_blocks:,} blocks, {cap.blocks_per_request:,} blocks per request "
             f"(scheduler block {cap.scheduler_block_size} tokens)"]
    if cap.fits:
        lines.append(f"{indent}  vLLM will log:")
        lines.extend(f"{indent}    {line}" for line in cap.log_lines)
    else:
        assert cap.error is not None  # kvguard.kv.capacity sets error with every fits=False
        lines.append(f"{indent}  vLLM refuses to start: {cap.error[0]}: {cap.error[1]}")
    if cap.by_dcp:
        lines.append(f"{indent}  by -dcp (legal sizes): "
                     + "; ".join(f"-dcp {d.dcp}: {d.num_tokens:,} tokens, {d.max_concurrency:.2f}x"
                                 + ("" if d.fits else " (does not fit)") for d in cap.by_dcp))
    for a in cap.assumptions:
        lines.append(f"{indent}  assumption: {a}")
    for n in cap.notes:
        lines.append(f"{indent}  note: {n}")
    return lines



def _plan(report: "PlanReport", top: Optional[int]) -> str:
    lines = [f"{report.model}: {report.gpus} GPUs ({report.gpus_per_node} per node), vLLM {report.vllm_version}, "
             f"KV cache {report.kv_cache_dtype_resolved}",
             f"{report.candidates} candidate layouts, {report.accepted} accepted"
             + (" (refused: " + ", ".join(f"{k} {v}" for k, v in report.refused_by_check.items()) + ")"
                if report.refused_by_check else ""),
             "ranked by KV tokens per GPU per GiB of KV memory per GPU (weights not modelled)"]
    hdr = (f"{'#':>3} {'tp':>4} {'pp':>3} {'dp':>5} {'pcp':>3} {'dcp':>4} {'ep':>2} {'dup':>4} {'resid':>5} "
           f"{'B/tok/rank':>11} {'tok/GPU/GiB':>12} {'tok/replica/GiB':>15}"
           + (f" {'GiB/GPU@len':>11}" if report.max_model_len or report.max_model_len_derived else "")
           + "  cross-node")
    lines.append(hdr)
    for i, e in enumerate(report.entries[:top], 1):
        # sliding-window layers counted as full attention: every figure of the row approximate
        approx = "~" if e.kv_sizing == "all_full_attention" else ""
        cross = ",".join(n for n, f in (("tp", e.tp_cross_node), ("dcp", e.dcp_cross_node), ("pcp", e.pcp_cross_node),
                                        ("pp", e.pp_cross_node), ("ep", e.ep_cross_node)) if f) or "-"
        lines.append(f"{i:>3} {e.tp:>4} {e.pp:>3} {e.dp:>5} {e.pcp:>3} {e.dcp:>4} {'y' if e.expert_parallel else '-':>2} "
                     f"{e.duplication_factor:>4} {e.residual_duplication:>5g} "
                     f"{approx + format(e.kv_bytes_per_token_per_rank, ',.0f'):>11} "
                     f"{approx + format(e.kv_tokens_per_gpu_per_gib, ',.0f'):>12} "
                     f"{approx + format(e.kv_tokens_per_replica_per_gib, ',.0f'):>15}"
                     + (f" {approx + format(e.kv_gib_per_gpu_for_max_len, '.3f'):>11}"
                        if e.kv_gib_per_gpu_for_max_len is not None else "")
                     + f"  {cross}")
    lines.append("")
    for i, e in enumerate(report.entries[:top], 1):
        lines.append(f"{i:>3} {e.command}")
    for n in report.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)



def describe_side(view: dict[str, Any]) -> str:
    if view.get("ok") is None:
        return f"cannot be checked: {view.get('error')}"
    if view["ok"]:
        return "accepted"
    wrap = f" (ValidationError for {view['wrapped_by']})" if view.get("wrapped_by") else ""
    return f"refused by {view['check']}: {view['exc_type']}{wrap}: {view['message']}"



def _diff(diff: "LaunchDiff") -> str:
    lines = [f"vLLM {diff.before}: {describe_side(diff.before_view)}",
             f"vLLM {diff.after}: {describe_side(diff.after_view)}"]
    if not diff.changes:
        lines.append("no change for this launch")
    else:
        lines.append("verdict changes" if diff.verdict_changed else "same verdict")
        for change in diff.changes:
            if change["what"].startswith("facts."):
                lines.append(f"  {change['what'][6:]}: {change['from']} -> {change['to']}")
    return "\n".join(lines)
