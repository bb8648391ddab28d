"""``vllm serve`` command lines as a release's argument parser reads them.

Only the flags kvguard models are interpreted; every other flag is passed
over (with its value).  Flags and short aliases carry the release range in
which ``EngineArgs.add_cli_args`` / the serve parser define them
(vllm/engine/arg_utils.py, vllm/entrypoints/openai/cli_args.py): an alias the
release does not define is an argparse error in vLLM, and an
:class:`~kvguard.InputError` here.  Long options follow
``FlexibleArgumentParser``: ``--flag value``, ``--flag=value`` and underscore
spellings (``--tensor_parallel_size``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Optional

from .errors import InputError
from .versions import Release

__all__ = ["FLAGS", "ServeCommand", "parse_serve"]


@dataclass(frozen=True)
class Flag:
    field: str
    names: tuple[str, ...]          # option strings; the first is the long one
    kind: str                       # "int" | "str" | "bool" (BooleanOptionalAction) | "store_true"
    since: str = "0.10.2"
    until: Optional[str] = None
    alias_since: Optional[str] = None  # release that added the short alias (names[1:])
    choices: Optional[tuple[str, ...]] = None


#: The launch flags kvguard reads (variants.md §2 "CLI flags and short aliases").
FLAGS: tuple[Flag, ...] = (
    Flag("pipeline_parallel_size", ("--pipeline-parallel-size", "-pp"), "int"),
    Flag("tensor_parallel_size", ("--tensor-parallel-size", "-tp"), "int"),
    Flag("prefill_context_parallel_size", ("--prefill-context-parallel-size", "-pcp"), "int", "0.12.0"),
    Flag("data_parallel_size", ("--data-parallel-size", "-dp"), "int"),
    Flag("data_parallel_size_local", ("--data-parallel-size-local", "-dpl"), "int"),
    Flag("data_parallel_rank", ("--data-parallel-rank", "-dpn"), "int"),
    Flag("data_parallel_start_rank", ("--data-parallel-start-rank", "-dpr"), "int"),
    Flag("decode_context_parallel_size", ("--decode-context-parallel-size", "-dcp"), "int"),
    Flag("dcp_comm_backend", ("--dcp-comm-backend",), "str", "0.18.0", choices=("a2a", "ag_rs")),
    Flag("dcp_kv_cache_interleave_size", ("--dcp-kv-cache-interleave-size",), "int", "0.11.1"),
    Flag("cp_kv_cache_interleave_size", ("--cp-kv-cache-interleave-size",), "int", "0.12.0"),
    Flag("enable_expert_parallel", ("--enable-expert-parallel", "-ep"), "bool", alias_since="0.14.0"),
    Flag("nnodes", ("--nnodes", "-n"), "int", "0.11.1"),
    Flag("node_rank", ("--node-rank", "-r"), "int", "0.11.1"),
    Flag("data_parallel_external_lb", ("--data-parallel-external-lb", "-dpe"), "bool", "0.11.1"),
    Flag("data_parallel_hybrid_lb", ("--data-parallel-hybrid-lb", "-dph"), "bool", alias_since="0.11.1"),
    Flag("data_parallel_backend", ("--data-parallel-backend", "-dpb"), "str"),
    Flag("data_parallel_address", ("--data-parallel-address", "-dpa"), "str"),
    Flag("distributed_executor_backend", ("--distributed-executor-backend",), "str",
         choices=("external_launcher", "mp", "ray", "uni")),
    Flag("enable_eplb", ("--enable-eplb",), "bool"),
    Flag("enable_elastic_ep", ("--enable-elastic-ep",), "bool", "0.17.0"),
    Flag("enable_fault_tolerance", ("--enable-fault-tolerance",), "bool", "0.27.0"),
    Flag("enable_return_routed_experts", ("--enable-return-routed-experts",), "bool", "0.22.0"),
    Flag("async_scheduling", ("--async-scheduling",), "bool"),
    Flag("headless", ("--headless",), "store_true"),
    Flag("trust_remote_code", ("--trust-remote-code",), "bool"),
    Flag("swap_space", ("--swap-space",), "float", until="0.17.1"),
)

_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class ServeCommand:
    """A parsed launch: the model, the fields kvguard reads, and the rest."""

    model: Optional[str]
    fields: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    passed_over: list[str] = field(default_factory=list)
    revision: Optional[str] = None


def _split(command: "str | list[str]") -> list[str]:
    if isinstance(command, str):
        try:
            return shlex.split(command, comments=False)
        except ValueError as exc:
            raise InputError(f"cannot split command line: {exc}", source="<argv>") from None
    return [str(t) for t in command]


def _strip_launcher(tokens: list[str]) -> tuple[list[str], dict[str, str], Optional[str], bool]:
    """Remove env assignments and the launcher words; return (args, env, positional model, is_serve)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(tokens) and tokens[i] in ("env", "exec", "sudo", "nohup"):
        i += 1
    while i < len(tokens) and _ENV_ASSIGN.match(tokens[i]):
        key, value = tokens[i].split("=", 1)
        env[key] = value
        i += 1
    rest = tokens[i:]
    if len(rest) >= 2 and rest[0].rsplit("/", 1)[-1] == "vllm" and rest[1] == "serve":
        args = rest[2:]
        if args and not args[0].startswith("-"):
            return args[1:], env, args[0], True
        return args, env, None, True
    if len(rest) >= 3 and rest[0].rsplit("/", 1)[-1].startswith("python") and rest[1] == "-m":
        return rest[3:], env, None, False
    return rest, env, None, False


def _lookup(release: Release) -> dict[str, Flag]:
    table: dict[str, Flag] = {}
    for flag in FLAGS:
        if not release.within(flag.since, flag.until):
            continue
        table[flag.names[0]] = flag
        if flag.alias_since is None or release.within(flag.alias_since):
            for alias in flag.names[1:]:
                table[alias] = flag
    return table


def _all_aliases() -> dict[str, Flag]:
    return {alias: flag for flag in FLAGS for alias in flag.names}


def parse_serve(command: "str | list[str]", release: Release) -> ServeCommand:
    """Parse a ``vllm serve`` / api_server invocation (or bare arguments) for ``release``."""
    tokens = _split(command)
    args, env, model, _is_serve = _strip_launcher(tokens)
    known = _lookup(release)
    everywhere = _all_aliases()
    cmd = ServeCommand(model=model, env=env)
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if not tok.startswith("-") or tok == "-" or _is_number(tok):
            if cmd.model is None:
                cmd.model = tok
            else:
                cmd.passed_over.append(tok)
            continue
        name, value = tok, None
        if "=" in tok:
            name, value = tok.split("=", 1)
        if name.startswith("--"):
            key = name[2:].split(".", 1)
            name = "--" + key[0].replace("_", "-") + ("." + key[1] if len(key) > 1 else "")
        if name in ("--model",):
            if value is None:
                if i >= len(args):
                    raise InputError("expected one argument", source="<argv>", key="--model")
                value = args[i]
                i += 1
            cmd.model = value
            continue
        if name == "--revision":
            if value is None and i < len(args):
                value = args[i]
                i += 1
            cmd.revision = value
            continue
        flag = known.get(name)
        negated = False
        if flag is None and name.startswith("--no-"):
            flag = known.get("--" + name[5:])
            negated = flag is not None and flag.kind == "bool"
            if not negated:
                flag = None
        if flag is None:
            if name in everywhere:
                f = everywhere[name]
                first = f.alias_since if name != f.names[0] and f.alias_since else f.since
                raise InputError(f"unrecognized arguments: {name} (vLLM {release.version} has no such "
                                 f"option; it appeared in {first})", source="<argv>", key=name)
            cmd.passed_over.append(tok)
            if value is None and i < len(args) and not args[i].startswith("-"):
                cmd.passed_over.append(args[i])
                i += 1
            continue
        if flag.kind in ("bool", "store_true"):
            if value is not None:
                raise InputError(f"ignored explicit argument {value!r}", source="<argv>", key=name)
            cmd.fields[flag.field] = not negated
            continue
        if value is None:
            if i >= len(args) or (args[i].startswith("-") and not _is_number(args[i])):
                raise InputError("expected one argument", source="<argv>", key=name)
            value = args[i]
            i += 1
        if flag.kind in ("int", "float"):
            convert = int if flag.kind == "int" else float
            try:
                cmd.fields[flag.field] = convert(value)
            except ValueError:
                raise InputError(f"invalid {flag.kind} value: {value!r}", source="<argv>", key=name) from None
        else:
            if flag.choices and value not in flag.choices:
                raise InputError(f"invalid choice: {value!r} (choose from "
                                 f"{', '.join(repr(c) for c in flag.choices)})", source="<argv>", key=name)
            cmd.fields[flag.field] = value
    return cmd


def _is_number(tok: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", tok))
