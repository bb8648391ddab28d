"""Command line: ``kvguard check [options] -- vllm serve MODEL ARGS…``.

``run(argv) -> int`` does the work and returns the exit status; only
:func:`main` exits.  Exit status: 0 vLLM accepts the launch, 1 vLLM refuses
it, 2 kvguard cannot decide (bad input, unknown version, unknown model) —
with a one-line reason on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from .__about__ import __version__
from .errors import InternalError, KvguardError, reason_kind
from .launch.layout import Host
from .launch.pydantic_text import pydantic_version

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)

if TYPE_CHECKING:
    from typing import Any, Callable, Optional, Sequence

    from .front import LaunchReport
    from .versions import Release

__all__ = ["EXIT_ACCEPT", "EXIT_REFUSE", "EXIT_UNDECIDED", "main", "run"]

EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED = 0, 1, 2

#: the ``--format`` choices of every subcommand (kvguard.report: one reporter per format)
_FORMATS = ("text", "json", "github", "sarif")


class _ArgError(Exception):
    pass


def _help_width() -> int:
    """The width argparse would wrap help at: $COLUMNS, else the terminal's, else 80, less 2 (as
    shutil.get_terminal_size finds it, without importing shutil and its compressors, which a check never uses)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # never exit from inside run()
        raise _ArgError(message)

    def _get_formatter(self):
        return self.formatter_class(prog=self.prog, width=_help_width())


_UNDECIDED_CAUSES = ("bad kvguard arguments, unknown vLLM version or model, unreadable config, a launch kvguard "
                     "does not model, or an internal error; one line on stderr, and with --format json/sarif/github "
                     "also a document on stdout")
_CHECK_EXIT = ("Exit status: 0 vLLM accepts the launch; 1 vLLM refuses it (including its argument parser's refusals: "
               "an unknown option, a bad value); 2 kvguard cannot decide (" + _UNDECIDED_CAUSES + ").")


#: the subcommands, in the order ``kvguard --help`` lists them, with their one-line help
_COMMANDS = {
    "check": "check one `vllm serve` command line",
    "diff": "what changes for one launch between two vLLM releases",
    "scan": "find and check `vllm serve` launches in scripts, Markdown, Dockerfiles, YAML",
    "audit": "KV-cache economics of models at a layout: duplication, legal -dcp, bytes",
    "plan": "rank every layout of N GPUs that vLLM accepts by KV capacity per GPU",
}


def _parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """kvguard's argument parser.  With ``command`` (the subcommand a command line names), only that
    subcommand is built: a cold check does not pay for the other four (nor for argparse's message catalogue
    look-ups as each parser is made)."""
    p = _Parser(prog="kvguard", description="Will this `vllm serve` parallel layout start, and what does "
                "it do to the KV cache? Exit 0: accepted, 1: refused, 2: cannot decide.")
    p.add_argument("--version", action="version", version=f"kvguard {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    builders = {"check": _check_parser, "diff": _diff_parser, "scan": _scan_parser, "audit": _audit_parser,
                "plan": _plan_parser}
    for name in _COMMANDS:
        if command is None or command == name:
            builders[name](sub)
    for parser in sub.choices.values():
        # the facts cache is gone: --no-cache is accepted and does nothing
        parser.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    return p


def _check_parser(sub) -> None:
    c = sub.add_parser("check", help=_COMMANDS["check"],
                       description="Check a `vllm serve` launch: kvguard check [options] -- vllm serve MODEL ARGS…",
                       epilog=_CHECK_EXIT)
    c.add_argument("--vllm-version", help="vLLM release whose rules apply (default: the installed vLLM, "
                   "else the newest supported)")
    _common(c)
    c.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")


def _diff_parser(sub) -> None:
    d = sub.add_parser("diff", help=_COMMANDS["diff"],
                       description="Compare the verdict and the KV facts of one `vllm serve` launch under two "
                       "releases: kvguard diff --from V1 --to V2 -- vllm serve MODEL ARGS…  Exit status is "
                       "the --to release's verdict (0 accepted, 1 refused, 2 cannot decide).",
                       epilog="Exit status: the --to release's verdict: 0 vLLM accepts the launch; 1 vLLM refuses it; "
                       "2 kvguard cannot decide (" + _UNDECIDED_CAUSES + ").")
    d.add_argument("--from", dest="from_version", required=True, metavar="V1")
    d.add_argument("--to", dest="to_version", required=True, metavar="V2")
    _common(d)
    d.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")


def _scan_parser(sub) -> None:
    s = sub.add_parser(
        "scan", help=_COMMANDS["scan"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_scan_help())
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
    # kvguard.scan.files.KINDS, written out: the scanner is imported only when a scan runs
    s.add_argument("--stdin-kind", choices=("shell", "markdown", "dockerfile", "yaml", "makefile", "systemd",
                                            "supervisord", "python", "notebook"),
                   help="what `-` (standard input) holds (default: from --stdin-filename, else its content)")
    s.add_argument("--stdin-filename", metavar="NAME",
                   help="the file name standard input stands for: names its findings, gives its kind, and where "
                   "settings and release pins beside it are looked up")
    s.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="do not read matching files or directories (repeatable; adds to [tool.kvguard] exclude)")
    s.add_argument("--no-config", action="store_true", help="ignore [tool.kvguard] settings in pyproject.toml")
    _common(s)


def _audit_parser(sub) -> None:
    a = sub.add_parser("audit", help=_COMMANDS["audit"],
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
    a.add_argument("--max-num-batched-tokens", type=int, metavar="N",
                   help="vLLM's flag, for the capacity of models with sliding-window layers (a window layer reserves "
                   "its window plus these tokens; default: 8192, `vllm serve` on an H100-class 80 GB GPU)")
    a.add_argument("--no-async-scheduling", action="store_true",
                   help="vLLM's flag (0.26.0+: a sliding-window layer then reserves one batch in flight, not two)")
    a.add_argument("--disable-sliding-window", action="store_true",
                   help="vLLM's flag: every layer full attention, the derived length capped at the window")
    a.add_argument("--disable-hybrid-kv-cache-manager", action="store_true",
                   help="vLLM's flag (also what --kv-transfer-config / --kv-events-config imply in some releases): "
                   "sliding-window layers beside full-attention layers are sized as full attention")
    _speculative_options(a)
    a.add_argument("--format", choices=_FORMATS, default="text")


def _plan_parser(sub) -> None:
    pl = sub.add_parser("plan", help=_COMMANDS["plan"],
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
    pl.add_argument("--format", choices=_FORMATS, default="text")
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
    from .kv.economics import audit
    from .versions import resolve

    release = resolve(args.vllm_version, nearest=args.nearest)
    host = Host.standard(gpus_per_node=args.gpus_per_node)
    report = audit(args.configs, args.tp, args.pcp, args.dcp, vllm_version=release.key,
                   kv_cache_dtype=args.kv_cache_dtype, env=_env_pairs(args.env), host=host,
                   trust_remote_code=args.trust_remote_code, max_model_len=args.max_model_len,
                   kv_memory_gib=args.kv_memory_gib, block_size=args.block_size, pp=args.pp,
                   speculative_config=args.speculative_config, draft_config=args.draft_config,
                   max_num_batched_tokens=args.max_num_batched_tokens,
                   async_scheduling=False if args.no_async_scheduling else None,
                   disable_sliding_window=args.disable_sliding_window,
                   disable_hybrid_kv_cache_manager=args.disable_hybrid_kv_cache_manager)
    _write(_reporter(args).audit(report))
    return EXIT_ACCEPT


def _cmd_plan(args) -> int:
    from .kv.plan import plan
    from .report import reporter
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
        try:
            with open(args.plot, "w", encoding="utf-8") as fh:
                fh.write(reporter("svg").plan(report, top))
        except OSError as exc:
            raise _ArgError(f"--plot: cannot write {args.plot}: {exc.strerror}") from None
    _write(_reporter(args).plan(report, top))
    return EXIT_ACCEPT if report.entries else EXIT_REFUSE


_SCAN_PARAGRAPHS = (
    "Find every `vllm serve` / `python -m vllm.entrypoints.openai.api_server` launch in the given files and "
    "directories (shell scripts, Markdown code blocks, Dockerfiles, Kubernetes / docker-compose / Helm-values "
    "YAML, GitHub Actions workflows, GitLab CI pipelines, SkyPilot tasks, dstack runs, KubeRay jobs, KubeAI "
    "models, Slurm batch scripts, Makefiles, systemd units, supervisord programs, vLLM recipe YAMLs) and check each "
    "one; findings are "
    "reported as FILE:LINE. Directories are walked "
    "(skipping .git, node_modules, virtualenvs); files over 5 MB are skipped. YAML needs PyYAML "
    "(pip install 'kvguard[yaml]'); without it YAML files are skipped.",
    "A shell variable kvguard cannot resolve (-tp $TP, ${TP}) in something it reads (the model, a parallel "
    "flag, a VLLM_* variable the release defines) makes that launch undecidable; --set TP=8 supplies it. Recipe YAMLs yield one "
    "launch per variant and strategy, with the GPU count as $GPUS (multi-node strategies: $NODES and "
    "$GPUS_PER_NODE). Go templates (Helm chart templates/) are listed as skipped; scan the rendered chart "
    "(helm template CHART | kvguard scan --stdin-kind yaml -).",
    "Each launch is checked against the vLLM release its deployment pins: the image tag "
    "(vllm/vllm-openai:v0.20.0; latest = the newest known), an earlier pip install vllm==X, a vllm==X pin in "
    "requirements*.txt or pyproject.toml beside the file; else the installed vLLM, else the newest supported. "
    "--vllm-version overrides them all; that release's image also decides the command a vLLM image starts "
    "(python3 -m vllm.entrypoints.openai.api_server up to 0.11.0, vllm serve from 0.11.1). A compose file's "
    "${X} comes from --set, else the .env file beside it. A refused launch shows the nearest launch its "
    "release accepts. Settings: [tool.kvguard] in the nearest pyproject.toml above the first "
    "path (vllm-version, nearest, exclude, variables, host); command-line options win.",
    "Exit status: 1 if any launch is refused; else 2 if any launch is undecidable or a file named on the "
    "command line is unreadable; else 0 (every launch found is accepted, or none was found). Files met while "
    "walking a directory that cannot be read are listed as skipped and do not change the status.",
)


def _scan_help() -> str:
    import textwrap  # only for `kvguard scan --help`'s parser: a check does not pay for it

    return "\n\n".join(textwrap.fill(paragraph, 79) for paragraph in _SCAN_PARAGRAPHS)


def _common(c: argparse.ArgumentParser) -> None:
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
                   "gpu_capability=90, amx=0|1, pydantic=2.14 (unstated facts are assumed to be the official vllm-openai "
                   "image on a CUDA node: cuda, 8 H100-class GPUs (capability 90), Triton, Ray, no NIXL, a CPU without "
                   "AMX, pydantic 2.14; the output lists the assumptions a check relied on)")
    c.add_argument("--unknown-host", action="store_true",
                   help="assume nothing about the host: checks that depend on it are skipped and listed")
    c.add_argument("--format", choices=_FORMATS, default="text")


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


_HOST_KEYS: dict[str, Callable[[str], Any]] = {
    "platform": str, "gpus_per_node": int, "ray": bool, "triton": bool, "nixl": bool,
    "cpu_memory_bytes": int, "gpu_capability": _capability, "arctic_inference": bool, "ipex": bool,
    "amx": bool, "pydantic": pydantic_version}


def _host(args, facts: Optional[dict] = None) -> Host:
    """The host the command line describes (``facts``: its host facts, already merged with
    [tool.kvguard]'s by kvguard.scan.settings; default: :func:`_host_facts`)."""
    facts = _host_facts(args) if facts is None else facts
    if args.unknown_host:
        return Host(**facts)
    return Host.standard(**facts)


def _host_facts(args) -> dict:
    """The host facts ``--host``, ``--platform`` and ``--gpus-per-node`` state."""
    facts: dict = {}
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
    return facts


def _launch(args) -> list[str]:
    launch = list(args.launch)
    if launch and launch[0] == "--":
        launch = launch[1:]
    if not launch and not args.model_config:
        raise _ArgError("nothing to check: give `-- vllm serve MODEL …`")
    return launch


def _examine_options(args, host: Optional[Host] = None) -> dict:
    """:func:`kvguard.front.examine`'s options as kvguard's own flags give them."""
    return dict(host=_host(args) if host is None else host, env=_env_pairs(args.env), model_config=args.model_config,
                env_from_os=args.env_from_os, allow_download=args.allow_download)


def _reporter(args, color: Optional[bool] = None):
    """The reporter of ``--format`` (:mod:`kvguard.report`), with colour on a terminal (text)."""
    from .report import reporter

    return reporter(args.format, color=_color(args) if color is None else color,
                    quiet=getattr(args, "quiet", False))


def _color(args) -> bool:
    return args.format == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _cmd_check(args) -> int:
    from .front import NotAnImageLaunch, command_release, examine, launch_gpus

    try:
        launch, release, source = command_release(_launch(args), args.vllm_version, nearest=args.nearest)
    except NotAnImageLaunch as exc:
        raise _ArgError(str(exc)) from None
    report = examine(release, launch, suggest=True, gpus=launch_gpus(_launch(args)), **_examine_options(args))
    report.release_source = source
    _write(_reporter(args).check(report))
    return EXIT_ACCEPT if report.verdict.ok else EXIT_REFUSE


def _cmd_diff(args) -> int:
    from .diff import compare_reports
    from .front import examine
    from .versions import resolve

    launch = _launch(args)
    sides: list[tuple[Release, Optional[LaunchReport], Optional[KvguardError]]] = []
    for version in (args.from_version, args.to_version):
        release = resolve(version, nearest=args.nearest)
        try:
            sides.append((release, examine(release, launch, **_examine_options(args)), None))
        except KvguardError as exc:  # e.g. a model kvguard cannot find
            sides.append((release, None, exc))
    result = compare_reports(sides[0], sides[1])
    _write(_reporter(args).diff(result))
    after = sides[1][1]
    if after is None:
        return EXIT_UNDECIDED
    return EXIT_ACCEPT if after.verdict.ok else EXIT_REFUSE


def _cmd_scan(args) -> int:
    from .front import examine
    from .scan import STDIN
    from .scan.settings import resolve_settings, settings_for

    stdin_named = STDIN in args.paths
    if stdin_named and args.paths.count(STDIN) > 1:
        raise _ArgError("`-` (standard input) can be given once")
    if (args.stdin_kind or args.stdin_filename) and not stdin_named:
        raise _ArgError("--stdin-kind / --stdin-filename apply to `-` (standard input), which is not among the paths")
    found = settings_for(args.paths, stdin_filename=args.stdin_filename, no_config=args.no_config)
    settings = resolve_settings(found, vllm_version=args.vllm_version, nearest=args.nearest,
                                variables=_env_pairs(args.variables, what="--set"), exclude=args.exclude,
                                host=_host_facts(args))
    options = _examine_options(args, _host(args, settings.host))

    def build(release, tokens, **launch_facts):
        # a refused launch carries the nearest launches its release accepts: the fix a CI log shows
        return examine(release, tokens, suggest=True, **options, **launch_facts)

    result = settings.scan(args.paths, build, stdin_kind=args.stdin_kind, stdin_filename=args.stdin_filename)
    text = _reporter(args, color=_color(args) and not args.output_file).scan(result)
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
    parser = _parser(next((a for a in argv[:1] if a in _COMMANDS), None))
    args = None
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_UNDECIDED
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


def _undecided(args, argv: list[str], line: str, kind: str) -> int:
    """kvguard gives no verdict: one line on stderr and, in a machine format, the same reason as
    a document on stdout (JSON with ``ok: null``, a SARIF run, a workflow annotation)."""
    _say(f"kvguard: {line}")
    fmt = getattr(args, "format", None) if args is not None else _format_in(argv)
    if fmt in ("json", "sarif", "github"):
        from .report import reporter

        command = getattr(args, "command", None) or next((a for a in argv if not a.startswith("-")), None)
        document = reporter(fmt).undecided(line.split(": ", 1)[1], kind, command=command)
        assert document is not None  # the json, sarif and github reporters always write one
        _write(document)
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
    # one short-lived process: collecting cyclic garbage would only cost time before os._exit
    gc.disable()
    try:
        status = run()
    except KeyboardInterrupt:
        status = 130
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or a stream was closed
        pass
    # Leave without the interpreter's teardown: it costs about a quarter of a check process's CPU
    # time (docs/performance.md), and kvguard has nothing left to clean up.
    os._exit(status)


if __name__ == "__main__":
    main()
