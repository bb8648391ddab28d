"""Command line: ``kvguard check [options] -- vllm serve MODEL ARGS…``.

``run(argv) -> int`` does the work and returns the exit status; only
:func:`main` exits.  Exit status: 0 vLLM accepts the launch, 1 vLLM refuses
it, 2 kvguard cannot decide (bad input, unknown version, unknown model) —
with a one-line reason on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from . import __version__
from .errors import KvguardError
from .layout import Host

__all__ = ["EXIT_ACCEPT", "EXIT_REFUSE", "EXIT_UNDECIDED", "main", "run"]

EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED = 0, 1, 2


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # never exit from inside run()
        raise _ArgError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kvguard", description="Will this `vllm serve` parallel layout start, and what does "
                "it do to the KV cache? Exit 0: accepted, 1: refused, 2: cannot decide.")
    p.add_argument("--version", action="version", version=f"kvguard {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    c = sub.add_parser("check", help="check one `vllm serve` command line",
                       description="Check a `vllm serve` launch: kvguard check [options] -- vllm serve MODEL ARGS…")
    c.add_argument("--vllm-version", help="vLLM release whose rules apply (default: the installed vLLM, "
                   "else the newest supported)")
    _common(c)
    c.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")
    d = sub.add_parser("diff", help="what changes for one launch between two vLLM releases",
                       description="Compare the verdict and the KV facts of one `vllm serve` launch under two "
                       "releases: kvguard diff --from V1 --to V2 -- vllm serve MODEL ARGS…  Exit status is "
                       "the --to release's verdict (0 accepted, 1 refused, 2 cannot decide).")
    d.add_argument("--from", dest="from_version", required=True, metavar="V1")
    d.add_argument("--to", dest="to_version", required=True, metavar="V2")
    _common(d)
    d.add_argument("launch", nargs=argparse.REMAINDER, help="-- vllm serve MODEL [vLLM args…]")
    return p


def _common(c: argparse.ArgumentParser) -> None:
    c.add_argument("--nearest", action="store_true", help="use the closest older ruleset for an unknown version")
    c.add_argument("--model-config", metavar="PATH", help="config.json (or its directory) to use for the model")
    c.add_argument("--env", action="append", default=[], metavar="K=V",
                   help="an environment variable vLLM would see (repeatable)")
    c.add_argument("--env-from-os", action="store_true", help="also pass this process's VLLM_* variables")
    c.add_argument("--platform", choices=("cuda", "rocm", "xpu", "tpu", "cpu"),
                   help="host platform for platform-dependent checks (default: assumed cuda)")
    c.add_argument("--gpus-per-node", type=int, metavar="N", help="GPUs per node for the GPU-count check")
    c.add_argument("--host", action="append", default=[], metavar="K=V",
                   help="a host fact: platform=cuda, gpus_per_node=8, ray=0|1, triton=0|1, nixl=0|1 "
                   "(unstated facts are assumed to be a standard CUDA node: cuda, 8 GPUs, Triton, no Ray, "
                   "no NIXL; the output lists the assumptions a check relied on)")
    c.add_argument("--unknown-host", action="store_true",
                   help="assume nothing about the host: checks that depend on it are skipped and listed")
    c.add_argument("--format", choices=("text", "json", "github"), default="text")


def _env_pairs(items: Sequence[str], what: str = "--env") -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise _ArgError(f"{what} expects K=V, got {item!r}")
        key, value = item.split("=", 1)
        out[key] = value
    return out


_HOST_KEYS = {"platform": str, "gpus_per_node": int, "ray": bool, "triton": bool, "nixl": bool,
              "cpu_memory_bytes": int}


def _host(args) -> Host:
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


def _launch_report(args, release, launch: list[str]):
    """Parse ``launch`` as ``release`` does, resolve the model, check it: a LaunchReport."""
    from .api import check, legal_dcp_sizes
    from .argv import parse_serve
    from .report import LaunchReport
    from .resolve import resolve_model

    cmd = parse_serve(launch, release)
    env = {}
    if args.env_from_os:
        env.update({k: v for k, v in os.environ.items() if k.startswith("VLLM_")})
    env.update(cmd.env)
    env.update(_env_pairs(args.env))
    lookup_env = dict(os.environ)
    lookup_env.update(cmd.env)
    model = resolve_model(cmd.model, model_config=args.model_config, revision=cmd.revision, env=lookup_env)
    host = _host(args)
    verdict = check(model.config, vllm_version=release, env=env, host=host, model_path=model.name,
                    **cmd.fields)
    layout = verdict.layout.model_dump() if verdict.layout is not None else dict(cmd.fields)
    legal = None
    if verdict.facts is not None:
        fields = {k: v for k, v in cmd.fields.items()
                  if k not in ("tensor_parallel_size", "prefill_context_parallel_size",
                               "decode_context_parallel_size")}
        legal = legal_dcp_sizes(verdict.facts, layout["tensor_parallel_size"],
                                layout["prefill_context_parallel_size"], vllm_version=release, env=env,
                                host=host, **fields)
    return LaunchReport(verdict, model=model.name, source=model.source, location=model.location,
                        layout=layout, legal_dcp_sizes=legal)


def _color(args) -> bool:
    return args.format == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _cmd_check(args) -> int:
    from .report import render
    from .versions import resolve

    launch = _launch(args)
    release = resolve(args.vllm_version, nearest=args.nearest)
    report = _launch_report(args, release, launch)
    print(render(report, args.format, color=_color(args)))
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
        except KvguardError as exc:  # e.g. a flag this release does not have
            sides.append((release, None, str(exc)))
    result = compare_reports(sides[0], sides[1])
    print(render_diff(result, args.format))
    after = sides[1][1]
    if after is None:
        return EXIT_UNDECIDED
    return EXIT_ACCEPT if after.verdict.ok else EXIT_REFUSE


def run(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI; return the exit status (0 accept, 1 refuse, 2 undecided)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_UNDECIDED
        if args.command == "check":
            return _cmd_check(args)
        if args.command == "diff":
            return _cmd_diff(args)
        raise _ArgError(f"unknown command {args.command!r}")
    except _ArgError as exc:
        print(f"kvguard: error: {exc}", file=sys.stderr)
        return EXIT_UNDECIDED
    except KvguardError as exc:
        print(f"kvguard: cannot decide: {exc}", file=sys.stderr)
        return EXIT_UNDECIDED
    except RecursionError:
        print("kvguard: cannot decide: input nested too deeply", file=sys.stderr)
        return EXIT_UNDECIDED


def main() -> None:
    try:
        status = run()
        sys.stdout.flush()
    except BrokenPipeError:  # `kvguard … | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = EXIT_ACCEPT
    except KeyboardInterrupt:
        status = 130
    sys.exit(status)


if __name__ == "__main__":
    main()
