"""Command line: ``kvguard check [options] -- vllm serve MODEL ARGS…``.

``run(argv) -> int`` does the work and returns the exit status; only
:func:`main` exits.  Exit status: 0 vLLM accepts the launch, 1 vLLM refuses
it, 2 kvguard cannot decide (bad input, unknown version, unknown model) —
with a one-line reason on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import Optional, Sequence

from . import factcache
from .__about__ import __version__
from .errors import InternalError, KvguardError, Undecidable, reason_kind
from .launch.layout import Host

__all__ = ["EXIT_ACCEPT", "EXIT_REFUSE", "EXIT_UNDECIDED", "build_report", "main", "run"]

EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED = 0, 1, 2


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # never exit from inside run()
        raise _ArgError(message)


_UNDECIDED_CAUSES = ("bad kvguard arguments, unknown vLLM version or model, unreadable config, a launch kvguard "
                     "does not model, or an internal error; one line on stderr, and with --format json/sarif/github "
                     "also a document on stdout")
_CHECK_EXIT = ("Exit status: 0 vLLM accepts the launch; 1 vLLM refuses it (including its argument parser's refusals: "
               "an unknown option, a bad value); 2 kvguard cannot decide (" + _UNDECIDED_CAUSES + ").")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kvguard", description="Will this `vllm serve` parallel layout start, and what does "
                "it do to the KV cache? Exit 0: accepted, 1: refused, 2: cannot decide.")
    p.add_argument("--version", action="version", version=f"kvguard {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    c = sub.add_parser("check", help="check one `vllm serve` command line",
                       description="Check a `vllm serve` launch: kvguard check [options] -- vllm serve MODEL ARGS…",
                       epilog=_CHECK_EXIT)
    c.add_argument("--vllm-version", help="vLLM release whose rules apply (default: the installed vLLM, "
                   "else the newest supported)")
    _common(c, formats=("text", "json", "github", "sarif"))
    c.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")
    d = sub.add_parser("diff", help="what changes for one launch between two vLLM releases",
                       description="Compare the verdict and the KV facts of one `vllm serve` launch under two "
                       "releases: kvguard diff --from V1 --to V2 -- vllm serve MODEL ARGS…  Exit status is "
                       "the --to release's verdict (0 accepted, 1 refused, 2 cannot decide).",
                       epilog="Exit status: the --to release's verdict: 0 vLLM accepts the launch; 1 vLLM refuses it; "
                       "2 kvguard cannot decide (" + _UNDECIDED_CAUSES + ").")
    d.add_argument("--from", dest="from_version", required=True, metavar="V1")
    d.add_argument("--to", dest="to_version", required=True, metavar="V2")
    _common(d)
    d.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")
    s = sub.add_parser(
        "scan", help="find and check `vllm serve` launches in scripts, Markdown, Dockerfiles, YAML",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_SCAN_HELP)
    s.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to scan; - reads standard input")
    s.add_argument("--vllm-version", help="vLLM release whose rules apply to every launch (default: the release "
                   "each deployment pins — image tag, pip pin, requirements/pyproject beside the file — else the "
                   "installed vLLM, else the newest supported)")
    s.add_argument("--set", dest="variables", action="append", default=[], metavar="NAME=VALUE",
                   help="a shell variable's value (repeatable); wins over assignments found in the files")
    s.add_argument("-q", "--quiet", action="store_true",
                   help="print only refused and undecidable launches (text and github formats)")
    s.add_argument("--exit-zero", action="store_true",
                   help="exit 0 whatever the launches' verdicts (2 still means kvguard was misused)")
    s.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    s.add_argument("--stdin-kind", choices=("shell", "markdown", "dockerfile", "yaml"),
                   help="what `-` (standard input) holds (default: from --stdin-filename, else its content)")
    s.add_argument("--stdin-filename", metavar="NAME",
                   help="the file name standard input stands for: names its findings, gives its kind, and where "
                   "settings and release pins beside it are looked up")
    s.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="do not read matching files or directories (repeatable; adds to [tool.kvguard] exclude)")
    s.add_argument("--no-config", action="store_true", help="ignore [tool.kvguard] settings in pyproject.toml")
    _common(s, formats=("text", "json", "github", "sarif"))
    _economics_parsers(sub)
    for command in sub.choices.values():
        command.add_argument("--no-cache", action="store_true",
                             help="do not read or write the facts cache (~/.cache/kvguard, $KVGUARD_CACHE_DIR; "
                             "KVGUARD_NO_CACHE=1 does the same)")
    return p


def _economics_parsers(sub) -> None:
    a = sub.add_parser("audit", help="KV-cache economics of models at a layout: duplication, legal -dcp, bytes",
                       description="Per model: the KV heads that govern the cache, the duplication factor "
                       "max(1, tp // H) and what -dcp leaves of it, the legal -dcp sizes, the KV bytes per token "
                       "per rank and the bytes duplication wastes.",
                       epilog="Exit status: 0 the audit is printed (whatever vLLM would do with the layout); 2 kvguard "
                       "cannot answer (" + _UNDECIDED_CAUSES + ").")
    a.add_argument("configs", nargs="+", metavar="CONFIG",
                   help="config.json, its directory, or a model id (Hugging Face cache, then the built-in catalog)")
    a.add_argument("--tp", type=int, required=True, metavar="N")
    a.add_argument("--pcp", type=int, default=1, metavar="P")
    a.add_argument("--dcp", type=int, default=1, metavar="D")
    a.add_argument("--vllm-version", help="vLLM release (default: the installed vLLM, else the newest supported)")
    a.add_argument("--nearest", action="store_true", help="use the closest older ruleset for an unknown version")
    a.add_argument("--kv-cache-dtype", default="auto", metavar="DTYPE",
                   help="auto (the model dtype), float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc")
    a.add_argument("--env", action="append", default=[], metavar="K=V",
                   help="an environment variable vLLM would see (repeatable)")
    a.add_argument("--gpus-per-node", type=int, metavar="N", help="GPUs per node for the legal -dcp sizes "
                   "(default: a standard 8-GPU CUDA node)")
    a.add_argument("--trust-remote-code", action="store_true", help="as vLLM's flag (configs needing repo code)")
    a.add_argument("--kv-memory-gib", type=float, metavar="G",
                   help="KV-cache memory of one GPU, the 'Available KV cache memory' vLLM logs: predict vLLM's "
                   "'GPU KV cache size' and 'Maximum concurrency' lines (and at every legal -dcp)")
    a.add_argument("--max-model-len", type=_length_arg, metavar="L",
                   help="max_model_len for the capacity prediction (default: each model's derived maximum, as vLLM; "
                   "'128k', '1M' as vLLM reads them)")
    a.add_argument("--block-size", type=int, metavar="B",
                   help="tokens per KV-cache block (default: 16, MLA 64 — reported as an assumption)")
    a.add_argument("--pp", type=int, metavar="N", help="pipeline-parallel size for the capacity prediction "
                   "(the stage with the most layers governs)")
    _speculative_options(a)
    a.add_argument("--format", choices=("text", "json"), default="text")
    pl = sub.add_parser("plan", help="rank every layout of N GPUs that vLLM accepts by KV capacity per GPU",
                        description="Enumerate tp*pp*dp*pcp == GPUs (with every -dcp that can pass and expert "
                        "parallelism for MoE models), keep the layouts the release accepts, rank them by KV tokens "
                        "per GPU per GiB of KV memory per GPU, and print the `vllm serve` flags of the top K.",
                        epilog="Exit status: 0 at least one layout is accepted; 1 the release refuses every layout of "
                        "N GPUs; 2 kvguard cannot answer (" + _UNDECIDED_CAUSES + ").")
    pl.add_argument("config", metavar="CONFIG", help="config.json, its directory, or a model id")
    pl.add_argument("--gpus", type=int, required=True, metavar="N")
    pl.add_argument("--gpus-per-node", type=int, default=8, metavar="G")
    pl.add_argument("--vllm-version", help="vLLM release (default: the installed vLLM, else the newest supported)")
    pl.add_argument("--nearest", action="store_true", help="use the closest older ruleset for an unknown version")
    pl.add_argument("--max-model-len", type=_length_arg, metavar="L",
                    help="the KV GiB per GPU one L-token sequence needs (default: the derived maximum, as vLLM), and "
                    "the flag in the commands; a length vLLM refuses for the model refuses every layout")
    pl.add_argument("--kv-cache-dtype", default="auto", metavar="DTYPE")
    pl.add_argument("--min-replica-gpus", type=int, default=1, metavar="M",
                    help="skip layouts whose replica (tp*pp*pcp) has fewer GPUs (e.g. too small for the weights)")
    pl.add_argument("--no-expert-parallel", action="store_true", help="do not try --enable-expert-parallel")
    pl.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="an environment variable vLLM would see (repeatable)")
    pl.add_argument("--trust-remote-code", action="store_true", help="as vLLM's flag (configs needing repo code)")
    pl.add_argument("--top", type=int, default=10, metavar="K", help="layouts to print (default 10; 0: all)")
    pl.add_argument("--format", choices=("text", "json"), default="text")
    pl.add_argument("--plot", metavar="FILE.svg", help="also write an SVG scatter of the accepted layouts")
    _speculative_options(pl)


def _speculative_options(p) -> None:
    p.add_argument("--speculative-config", metavar="JSON", type=_json_object,
                   help="the launch's --speculative-config: its draft's constraints count (plan ranks only layouts "
                   "it passes; audit says what it refuses)")
    p.add_argument("--draft-config", metavar="PATH", help="the draft's config.json (or its directory), when the "
                   "draft is neither a local directory, in the Hugging Face cache nor in the catalog")


def _json_object(text: str):
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object")
    return value


def _length_arg(value: str) -> int:
    """``--max-model-len`` of audit/plan: an integer or vLLM's human-readable form ("128k", "1M")."""
    from .length import parse_length
    from .versions import KNOWN_RELEASES, resolve

    try:
        return parse_length(value, resolve(KNOWN_RELEASES[-1]))
    except argparse.ArgumentTypeError:
        raise
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"invalid length {value!r}") from exc


def _cmd_audit(args) -> int:
    from .kv.economics import audit, render_audit_json, render_audit_text
    from .versions import resolve

    release = resolve(args.vllm_version, nearest=args.nearest)
    host = Host.standard(gpus_per_node=args.gpus_per_node)
    report = audit(args.configs, args.tp, args.pcp, args.dcp, vllm_version=release.key,
                   kv_cache_dtype=args.kv_cache_dtype, env=_env_pairs(args.env), host=host,
                   trust_remote_code=args.trust_remote_code, max_model_len=args.max_model_len,
                   kv_memory_gib=args.kv_memory_gib, block_size=args.block_size, pp=args.pp,
                   speculative_config=args.speculative_config, draft_config=args.draft_config)
    _write(render_audit_json(report) if args.format == "json" else render_audit_text(report))
    return EXIT_ACCEPT


def _cmd_plan(args) -> int:
    from .kv.plan import plan, render_plan_json, render_plan_text
    from .versions import resolve

    if args.top < 0:
        raise _ArgError("--top must be >= 0")
    release = resolve(args.vllm_version, nearest=args.nearest)
    report = plan(args.config, args.gpus, gpus_per_node=args.gpus_per_node, vllm_version=release.key,
                  max_model_len=args.max_model_len, kv_cache_dtype=args.kv_cache_dtype, env=_env_pairs(args.env),
                  min_replica_gpus=args.min_replica_gpus, expert_parallel=not args.no_expert_parallel,
                  trust_remote_code=args.trust_remote_code, speculative_config=args.speculative_config,
                  draft_config=args.draft_config)
    top = args.top or None   # --top 0: every accepted layout
    if args.plot:
        from .kv.plan import render_plan_svg
        try:
            with open(args.plot, "w", encoding="utf-8") as fh:
                fh.write(render_plan_svg(report, top))
        except OSError as exc:
            raise _ArgError(f"--plot: cannot write {args.plot}: {exc.strerror}") from None
    _write(render_plan_json(report, top) if args.format == "json" else render_plan_text(report, top))
    return EXIT_ACCEPT if report.entries else EXIT_REFUSE


_SCAN_HELP = "\n\n".join(textwrap.fill(p, 79) for p in (
    "Find every `vllm serve` / `python -m vllm.entrypoints.openai.api_server` launch in the given files and "
    "directories (shell scripts, Markdown code blocks, Dockerfiles, Kubernetes / docker-compose / Helm-values "
    "YAML, vLLM recipe YAMLs) and check each one; findings are reported as FILE:LINE. Directories are walked "
    "(skipping .git, node_modules, virtualenvs); files over 5 MB are skipped. YAML needs PyYAML "
    "(pip install 'kvguard[yaml]'); without it YAML files are skipped.",
    "A shell variable kvguard cannot resolve (-tp $TP, ${TP}) in something it reads (the model, a parallel "
    "flag, a VLLM_* variable) makes that launch undecidable; --set TP=8 supplies it. Recipe YAMLs yield one "
    "launch per variant and strategy, with the GPU count as $GPUS (multi-node strategies: $NODES and "
    "$GPUS_PER_NODE). Go templates (Helm chart templates/) are listed as skipped; scan the rendered chart "
    "(helm template CHART | kvguard scan --stdin-kind yaml -).",
    "Each launch is checked against the vLLM release its deployment pins: the image tag "
    "(vllm/vllm-openai:v0.20.0; latest = the newest known), an earlier pip install vllm==X, a vllm==X pin in "
    "requirements*.txt or pyproject.toml beside the file; else the installed vLLM, else the newest supported. "
    "--vllm-version overrides them all. Settings: [tool.kvguard] in the nearest pyproject.toml above the first "
    "path (vllm-version, nearest, exclude, variables, host); command-line options win.",
    "Exit status: 1 if any launch is refused; else 2 if any launch is undecidable or a file named on the "
    "command line is unreadable; else 0 (every launch found is accepted, or none was found). Files met while "
    "walking a directory that cannot be read are listed as skipped and do not change the status.",
))


def _common(c: argparse.ArgumentParser, formats: Sequence[str] = ("text", "json", "github")) -> None:
    c.add_argument("--nearest", action="store_true", help="use the closest older ruleset for an unknown version")
    c.add_argument("--model-config", metavar="PATH", help="config.json (or its directory) to use for the model")
    c.add_argument("--allow-download", action="store_true",
                   help="fetch a model's config.json from the Hugging Face Hub when it is not local or cached "
                   "(needs huggingface_hub: pip install 'kvguard[hub]'); without it kvguard never uses the network")
    c.add_argument("--env", action="append", default=[], metavar="K=V",
                   help="an environment variable vLLM would see (repeatable)")
    c.add_argument("--env-from-os", action="store_true", help="also pass this process's VLLM_* variables")
    c.add_argument("--platform", choices=("cuda", "rocm", "xpu", "tpu", "cpu"),
                   help="host platform for platform-dependent checks (default: assumed cuda)")
    c.add_argument("--gpus-per-node", type=int, metavar="N", help="GPUs per node for the GPU-count check")
    c.add_argument("--host", action="append", default=[], metavar="K=V",
                   help="a host fact: platform=cuda, gpus_per_node=8, ray=0|1, triton=0|1, nixl=0|1, "
                   "gpu_capability=90 (unstated facts are assumed to be the official vllm-openai image on a "
                   "CUDA node: cuda, 8 H100-class GPUs (capability 90), Triton, Ray, no NIXL; the output lists "
                   "the assumptions a check relied on)")
    c.add_argument("--unknown-host", action="store_true",
                   help="assume nothing about the host: checks that depend on it are skipped and listed")
    c.add_argument("--format", choices=tuple(formats), default="text")


def _env_pairs(items: Sequence[str], what: str = "--env") -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise _ArgError(f"{what} expects K=V, got {item!r}")
        key, value = item.split("=", 1)
        out[key] = value
    return out


def _capability(value: str) -> int:
    """``--host gpu_capability=9.0`` or ``=90`` (vLLM's ``DeviceCapability.to_int()``: 9.0 -> 90)."""
    if "." in value:
        major, minor = value.split(".", 1)
        if not (major.isdigit() and minor.isdigit() and len(minor) == 1):
            raise ValueError(value)
        return int(major) * 10 + int(minor)
    number = int(value)
    if number < 0:
        raise ValueError(value)
    return number


_HOST_KEYS = {"platform": str, "gpus_per_node": int, "ray": bool, "triton": bool, "nixl": bool,
              "cpu_memory_bytes": int, "gpu_capability": _capability, "arctic_inference": bool}


def _host(args, base: Optional[dict] = None) -> Host:
    """The host the command line describes; ``base``: facts stated in [tool.kvguard] (flags win)."""
    facts: dict = dict(base or {})
    for key, value in _env_pairs(args.host, what="--host").items():
        kind = _HOST_KEYS.get(key)
        if kind is None:
            raise _ArgError(f"--host: unknown fact {key!r} (known: {', '.join(_HOST_KEYS)})")
        try:
            facts[key] = (value.lower() in ("1", "true", "yes")) if kind is bool else kind(value)
        except ValueError:
            raise _ArgError(f"--host {key}: invalid value {value!r}") from None
        if kind is bool and value.lower() not in ("0", "1", "true", "false", "yes", "no"):
            raise _ArgError(f"--host {key}: expected 0 or 1, got {value!r}")
    if args.platform is not None:
        facts["platform"] = args.platform
    if args.gpus_per_node is not None:
        facts["gpus_per_node"] = args.gpus_per_node
    if args.unknown_host:
        return Host(**facts)
    return Host.standard(**facts)


def _launch(args) -> list[str]:
    launch = list(args.launch)
    if launch and launch[0] == "--":
        launch = launch[1:]
    if not launch and not args.model_config:
        raise _ArgError("nothing to check: give `-- vllm serve MODEL …`")
    return launch


def build_report(release, launch: "list[str] | str", *, host: Optional[Host] = None,
                 env: Optional[dict] = None, model_config: Optional[str] = None, env_from_os: bool = False,
                 allow_download: bool = False, suggest: bool = False):
    """Parse ``launch`` as ``release`` does, resolve the model, check it: a LaunchReport.

    ``host`` defaults to :meth:`Host.standard` (the command line's assumption);
    ``env`` holds extra variables vLLM would see (the launch's own ``VAR=value``
    prefixes are read from it).  ``suggest``: for a refused launch, also find the
    nearest launches the release accepts (:func:`kvguard.suggest`)."""
    from .rules.check import check, legal_dcp_sizes
    from .launch.argv import parse_serve
    from .errors import ArgparseRefusal, Undecidable
    from .report import LaunchReport, argparse_verdict
    from .launch.resolve import resolve_model

    try:
        cmd = parse_serve(launch, release)
    except ArgparseRefusal as refusal:  # vLLM's own parser refuses the command line: that is the verdict
        return LaunchReport(argparse_verdict(release, refusal))
    vllm_env = {}
    if env_from_os:
        vllm_env.update({k: v for k, v in os.environ.items() if k.startswith("VLLM_")})
    vllm_env.update(cmd.env)
    vllm_env.update(env or {})
    lookup_env = dict(os.environ)
    lookup_env.update(cmd.env)
    model = resolve_model(cmd.model, model_config=model_config, revision=cmd.revision, env=lookup_env,
                          allow_download=allow_download)
    from .speculative.launch import speculative_for_launch

    model, spec, refusal = speculative_for_launch(cmd, model, release, lookup_env=lookup_env,
                                                  allow_download=allow_download, model_config=model_config)
    if refusal is not None:
        return LaunchReport(refusal, model=model.name, source=model.source, location=model.location,
                            layout=dict(cmd.fields))
    host = Host.standard() if host is None else host
    model_dir = _model_dir(model)
    verdict = check(model.config, vllm_version=release, env=vllm_env, host=host, model_path=model.name,
                    model_dir=model_dir, speculative_config=spec, **cmd.fields)
    verdict, env_assumed = _env_assumptions(verdict, release, vllm_env, host, model, model_dir, cmd.fields,
                                            spec)
    layout = verdict.layout.model_dump() if verdict.layout is not None else dict(cmd.fields)
    legal = legal_reason = None
    if verdict.facts is not None:
        fields = {k: v for k, v in cmd.fields.items()
                  if k not in ("tensor_parallel_size", "prefill_context_parallel_size",
                               "decode_context_parallel_size")}
        try:
            legal = legal_dcp_sizes(verdict.facts, layout["tensor_parallel_size"],
                                    layout["prefill_context_parallel_size"], vllm_version=release, env=vllm_env,
                                    host=host, **fields)
        except Undecidable as exc:   # a layout too large to enumerate: the verdict stands without them
            verdict = verdict.with_notes(f"legal -dcp sizes not listed: {exc}")
        if legal is not None and not legal:
            legal_reason = _no_dcp_reason(verdict, release, vllm_env, host, model.name, cmd.fields)
    length = _length_facts(verdict, release, vllm_env, model_dir)
    if not verdict.ok and verdict.check == "MC_max_len" and length is not None:
        verdict = verdict.with_notes(*_shorter_length_note(verdict, release, length, vllm_env, host, model,
                                                           model_dir, cmd.fields))
    if not env_from_os:
        verdict = verdict.with_notes(*_unapplied_env_notes(vllm_env))
    report = LaunchReport(verdict, model=model.name, source=model.source, location=model.location,
                          layout=layout, legal_dcp_sizes=legal, legal_dcp_reason=legal_reason,
                          env_assumptions=env_assumed, length=length,
                          kv_cache_dtype=_sized_kv_cache_dtype(layout.get("kv_cache_dtype", "auto")))
    if suggest:
        report.suggestion_host = host
        if not verdict.ok:
            from .kv.suggestions import suggest as nearest_accepted

            report.suggestions = [] if verdict.facts is None else nearest_accepted(
                verdict.facts, argv=launch, vllm_version=release, env=vllm_env, host=host, model_path=model.name,
                speculative_config=spec)
    return report


def _model_dir(model) -> Optional[str]:
    """The local directory of the checkpoint (its files beside config.json), if there is one."""
    if model.source in ("directory", "file", "hf-cache", "hf-hub") and model.location:
        directory = model.location if os.path.isdir(model.location) else os.path.dirname(model.location)
        return directory or None
    return None


def _env_assumptions(verdict, release, env: dict, host, model, model_dir, fields: dict, spec=None):
    """The unset VLLM_* variables whose default decided ``verdict`` (kvguard.envdefaults), added to its
    assumptions as ``NAME unset``; each is checked by checking the launch again with the other value."""
    from .rules.check import check
    from .envdefaults import deciding_defaults

    if verdict.facts is None:
        return verdict, []

    def recheck(other_env: dict):
        # the facts depend on the environment only through VLLM_MLA_DISABLE
        config = model.config if "VLLM_MLA_DISABLE" in other_env and "VLLM_MLA_DISABLE" not in env \
            else verdict.facts
        return check(config, vllm_version=release, env=other_env, host=host, model_path=model.name,
                     model_dir=model_dir, speculative_config=spec, **fields)

    found = deciding_defaults(verdict, release, env, host, recheck)
    if not found:
        return verdict, []
    from dataclasses import replace

    return replace(verdict, assumptions=verdict.assumptions + tuple(f"{a.name} unset" for a in found)), found


def _length_facts(verdict, release, env: dict, model_dir) -> Optional[dict]:
    """The maximum length of the launch for the report (kvguard.length), or None."""
    if verdict.facts is None or verdict.layout is None:
        return None
    from .length import NotModelled, find_sidecar, resolve

    lay = verdict.layout
    try:
        out = resolve(verdict.facts, release, max_model_len=lay.max_model_len,
                      disable_sliding_window=lay.disable_sliding_window, env=env,
                      sidecar=find_sidecar(None, model_dir, None))
    except (NotModelled, ArithmeticError, AttributeError, KeyError, TypeError, ValueError, NotImplementedError):
        return None
    d = out.derived
    if d.error is not None or d.default_error is not None:
        return None
    return {"derived": d.value, "key": d.key, "model_max_length": d.model_max_length, "default": d.default,
            "given": lay.max_model_len, "effective": out.final,
            "unread": d.unread}


def _shorter_length_note(verdict, release, length: dict, env: dict, host, model, model_dir, fields: dict) -> list[str]:
    """For a --max-model-len above the derived maximum: the longest length this release accepts, once
    checked (the launch as given, that length in its place)."""
    from .rules.check import check

    longest = length.get("default")
    if not isinstance(longest, int) or longest < 1:
        return []
    again = check(verdict.facts, vllm_version=release, env=env, host=host, model_path=model.name,
                  model_dir=model_dir, **dict(fields, max_model_len=longest))
    if again.stage == "model_config" and not again.ok:
        return []
    then = "the launch with it is accepted" if again.ok else f"with it the launch passes ModelConfig, then {again.check} " \
        "refuses it"
    return [f"the longest --max-model-len vLLM {verdict.vllm_version} takes for this model is {longest}, the derived "
            f"maximum ({then}); VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets a longer one through at your own risk"]


def _sized_kv_cache_dtype(value: str) -> str:
    """The launch's --kv-cache-dtype when kvguard sizes it (kvguard.kv.kvsize), else "auto"."""
    from .kv.kvsize import KV_CACHE_DTYPE_BYTES

    return value if value in KV_CACHE_DTYPE_BYTES else "auto"


def _unapplied_env_notes(applied: dict) -> "list[str]":
    """kvguard's own environment is not the launch's: a VLLM_* variable set here but not given to
    the check may be what the real launch sees (it inherits the shell's), so say it was left out."""
    missing = sorted(k for k in os.environ if k.startswith("VLLM_") and k not in applied)
    if not missing:
        return []
    shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
    return [f"{shown} {'is' if len(missing) == 1 else 'are'} set in kvguard's environment but not applied to "
            "this launch; to apply them pass --env-from-os (all VLLM_* variables), --env K=V, or put "
            "K=V before `vllm serve`"]


def _no_dcp_reason(verdict, release, env, host, model_path, fields) -> Optional[dict]:
    """Why no -dcp size passes at this layout: the refusal that stands with -dcp 1 (its first
    sentence: the GPU-count message goes on over several lines)."""
    from .rules.check import check

    at_one = check(verdict.facts, vllm_version=release, env=env, host=host, model_path=model_path,
                   **dict(fields, decode_context_parallel_size=1))
    if at_one.ok:
        return None
    message = (at_one.message or "").split("\n")[0]
    if message.endswith(":") and ". " in message:
        message = message[:message.rindex(". ") + 1]
    return {"check": at_one.check, "exc_type": at_one.exc_type, "message": message}


def _launch_report(args, release, launch: list[str], suggest: bool = False):
    """Parse ``launch`` as ``release`` does, resolve the model, check it: a LaunchReport."""
    return build_report(release, launch, host=_host(args), env=_env_pairs(args.env),
                        model_config=args.model_config, env_from_os=args.env_from_os,
                        allow_download=args.allow_download, suggest=suggest)


def _color(args) -> bool:
    return args.format == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _docker_launch(launch: list[str], args):
    """`docker run … vllm/vllm-openai:TAG ARGS` as kvguard scan reads it: (the launch, the release
    its image tag names — None when --vllm-version decides)."""
    from .launch.pins import choose_release, default_release, image_pin
    from .scan import launch_and_image

    tokens, image = launch_and_image(launch)
    if tokens is None:
        raise _ArgError("`docker run` is checked only with a vllm/vllm-openai image followed by the server's "
                        "arguments (or `--entrypoint vllm … serve …`)")
    if args.vllm_version is not None:
        return tokens, None
    choice = choose_release(image_pin(image, "the command line"), None, default_release(args.nearest), args.nearest)
    if choice.release is None:
        raise Undecidable(choice.reason or f"no vLLM release for {image}")
    return tokens, choice


def _cmd_check(args) -> int:
    from .report import render
    from .versions import resolve

    launch = _launch(args)
    release, source = None, "--vllm-version" if args.vllm_version is not None else None
    if launch and launch[0].rsplit("/", 1)[-1] in ("docker", "podman"):
        launch, choice = _docker_launch(launch, args)
        if choice is not None:          # the image tag names the release, unless --vllm-version did
            release, source = choice.release, choice.source
    if release is None:
        release = resolve(args.vllm_version, nearest=args.nearest)
    report = _launch_report(args, release, launch, suggest=True)
    report.release_source = source
    _write(render(report, args.format, color=_color(args)))
    return EXIT_ACCEPT if report.verdict.ok else EXIT_REFUSE


def _cmd_diff(args) -> int:
    from .diff import compare_reports, render_diff
    from .versions import resolve

    launch = _launch(args)
    sides = []
    for version in (args.from_version, args.to_version):
        release = resolve(version, nearest=args.nearest)
        try:
            sides.append((release, _launch_report(args, release, launch), None))
        except KvguardError as exc:  # e.g. a model kvguard cannot find
            sides.append((release, None, exc))
    result = compare_reports(sides[0], sides[1])
    _write(render_diff(result, args.format))
    after = sides[1][1]
    if after is None:
        return EXIT_UNDECIDED
    return EXIT_ACCEPT if after.verdict.ok else EXIT_REFUSE


def _cmd_scan(args) -> int:
    from .report import render_scan
    from .scan import STDIN, Skip, scan
    from .scan.settings import Settings, find_settings

    stdin_named = STDIN in args.paths
    if stdin_named and args.paths.count(STDIN) > 1:
        raise _ArgError("`-` (standard input) can be given once")
    if (args.stdin_kind or args.stdin_filename) and not stdin_named:
        raise _ArgError("--stdin-kind / --stdin-filename apply to `-` (standard input), which is not among the paths")
    first = args.paths[0] if args.paths[0] != STDIN else (args.stdin_filename or ".")
    settings = Settings() if args.no_config else find_settings(first)
    variables = dict(settings.variables)
    variables.update(_env_pairs(args.variables, what="--set"))
    nearest = args.nearest or settings.nearest
    version, source = args.vllm_version, "--vllm-version"
    if version is None and settings.vllm_version is not None:
        version, source = settings.vllm_version, f"[tool.kvguard] vllm-version in {settings.path}"
    host = _host(args, settings.host)
    env = _env_pairs(args.env)

    def build(release, tokens):
        return build_report(release, tokens, host=host, env=env, model_config=args.model_config,
                            env_from_os=args.env_from_os, allow_download=args.allow_download)

    result = scan(args.paths, version, build, variables, nearest=nearest, release_source=source,
                  exclude=tuple(settings.exclude) + tuple(args.exclude), stdin_kind=args.stdin_kind,
                  stdin_filename=args.stdin_filename)
    if settings.problem is not None:
        result.skipped.insert(0, Skip(*settings.problem))
    text = render_scan(result, args.format, color=_color(args) and not args.output_file, quiet=args.quiet)
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            raise _ArgError(f"--output-file: cannot write {args.output_file}: {exc.strerror or exc}") from None
    elif text:
        _write(text)
    return EXIT_ACCEPT if args.exit_zero else result.exit_status


def run(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI; return the exit status (0 accept, 1 refuse, 2 undecided)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = None
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_UNDECIDED
        # repeat launches answer from the facts cache (kvguard.factcache); off for this call only
        factcache.enable(None if args.no_cache else factcache.cache_dir())
        if args.command == "check":
            return _cmd_check(args)
        if args.command == "diff":
            return _cmd_diff(args)
        if args.command == "scan":
            return _cmd_scan(args)
        if args.command == "audit":
            return _cmd_audit(args)
        if args.command == "plan":
            return _cmd_plan(args)
        raise _ArgError(f"unknown command {args.command!r}")
    except _ArgError as exc:
        return _undecided(args, argv, f"error: {exc}", "usage_error")
    except KvguardError as exc:
        return _undecided(args, argv, f"cannot decide: {exc}", reason_kind(exc))
    except Exception as exc:  # noqa: BLE001 - MemoryError, RecursionError, a bug: kvguard's own failure
        return _undecided(args, argv, f"cannot decide: {InternalError.of(exc)}", "internal_error")
    finally:
        factcache.enable(None)


def _undecided(args, argv: list[str], line: str, kind: str) -> int:
    """kvguard gives no verdict: one line on stderr and, in a machine format, the same reason as
    a document on stdout (JSON with ``ok: null``, a SARIF run, a workflow annotation)."""
    _say(f"kvguard: {line}")
    fmt = getattr(args, "format", None) if args is not None else _format_in(argv)
    if fmt in ("json", "sarif", "github"):
        from .report import render_undecided

        command = getattr(args, "command", None) or next((a for a in argv if not a.startswith("-")), None)
        _write(render_undecided(fmt, line.split(": ", 1)[1], kind, command=command))
    return EXIT_UNDECIDED


def _format_in(argv: list[str]) -> Optional[str]:
    """The ``--format`` a command line asks for when kvguard's own parser refused it."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--format" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return None


def _write(text: str) -> None:
    """Print a report.  A reader that left (``kvguard check … | head``) is no failure and does not
    change the exit status, which stays the verdict's; what is left to write goes nowhere."""
    try:
        try:
            print(text, flush=True)
        except UnicodeEncodeError:  # undecodable command-line bytes (PEP 383) in a text report
            encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
            print(text.encode(encoding, "backslashreplace").decode(encoding, "replace"), flush=True)
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # no file descriptor (a test's captured stream)
            pass


def _say(line: str) -> None:
    """One line on stderr, whatever it holds: undecodable command-line bytes arrive as lone
    surrogates (PEP 383) and would make print() raise; newlines would make it several lines."""
    line = line.replace("\r", "\\r").replace("\n", "\\n")
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    try:
        line.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        line = line.encode(encoding if encoding else "utf-8", "backslashreplace").decode(encoding, "replace")
    try:
        print(line, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):  # stderr closed: the exit status still says it
        pass


def main() -> None:
    try:
        status = run()
    except KeyboardInterrupt:
        status = 130
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or a stream was closed
        pass
    # Leave without the interpreter's teardown: freeing every object the emulated config classes
    # created costs ~30 ms, a quarter of a cold check, and kvguard has nothing left to clean up.
    os._exit(status)


if __name__ == "__main__":
    main()
