"""The whole ``vllm serve`` configuration path of a real release; runs INSIDE an oracle venv.

usage: VLLM_TARGET_DEVICE=cpu python serve_runner.py CASES.json OUT.json

CASES: {"env": {...}, "cases": [{"id", "config": {...}, "args": [flags after the model],
         "env": optional {name: value} this case adds to the run's environment,
         "model_dir": optional fixed directory to write config.json to,
         "files": optional {directory: config.json contents} written first (speculative drafts),
         "hf_cache": optional {"org/name": config.json contents} written as an offline Hugging Face cache
                     (HF_HUB_CACHE) so that Hub ids resolve},
         "frontend": optional true: also the front end's own checks (below),
         "logging": optional true: the logging configuration vllm serve applies (below)]}

Per case: the release's own ``make_arg_parser`` under the ``vllm`` parser's ``serve`` sub-command (the model
given positionally, as ``vllm serve MODEL …``), ``EngineArgs.from_cli_args`` and ``create_engine_config()`` in the API
server's usage context (so the CPU platform's serving defaults fill an unset ``--max-num-batched-tokens`` /
``--max-num-seqs``) on the CPU platform
(installed by hand for releases that only find it in a "+cpu" build).  Records
the parsed fields and the exception the failing statement raised (pydantic's
ValidationError unwrapped to its inner error, with the wrapping class).

With ``"frontend": true`` a case also runs, as ``vllm serve`` does, the release's own
``validate_parsed_serve_args`` right after argparse, then (not with ``--grpc``) the checks of
``ServeSubcommand.cmd`` before it dispatches (its servers and engine start replaced), and (not with ``--headless``
nor ``--api-server-count`` below 1) the API server's ``validate_api_server_args`` before ``create_engine_config`` (stage "frontend"), and
after it the engine core's ``ReasoningParserManager.get_reasoning_parser`` of the config's
reasoning parser (stage "engine_core"; StructuredOutputManager asks it only with a tokenizer,
which this runner never loads).  From 0.20.0 VllmConfig builds a registered reasoning parser
with that missing tokenizer: such a failure is marked ``"harness": "no_tokenizer"``.  The API server's module imports server packages the oracle
lacks: parser_names_runner.stub_server_modules stands in for them.

With ``"logging": true`` a case also applies the logging configuration as ``vllm serve`` does: to 0.30.0 when
vLLM is imported (a new interpreter imports ``vllm.logger`` under the case's environment, before the parser runs),
from 0.31.0 the release's ``configure_logging_from_args`` right after argparse (stage "frontend" either way).

A case whose environment makes the release fail while it builds its parser (a config class's default reading an
invalid variable, 0.13.0-0.14.1's AttentionConfig and VLLM_ATTENTION_BACKEND) is recorded at stage "parser".

Outcomes that belong to the CPU platform or this host (not to the launch) are
for the caller to recognise; see tests/upstream/test_serve_path.py.
This file must not import kvguard.
"""

import contextlib
import copy
import io
import json
import logging
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

FIELDS = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "data_parallel_size_local",
          "data_parallel_rank", "data_parallel_start_rank", "prefill_context_parallel_size",
          "decode_context_parallel_size", "enable_expert_parallel", "dcp_comm_backend", "nnodes", "node_rank",
          "data_parallel_external_lb", "data_parallel_hybrid_lb", "data_parallel_backend",
          "distributed_executor_backend", "enable_eplb", "async_scheduling")


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    for key, value in (spec.get("env") or {}).items():
        os.environ[key] = str(value)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from argv_runner import _imports, _parsers  # the CPU platform, EngineArgs and the release's parser builder
    from oracle_runner import (
        describe,  # the failing statement's exception, pydantic unwrapped
        torch_compat,
    )

    torch_compat()
    if os.environ.get("KVG_ORACLE_TORCHVISION") == "stub":  # before vLLM's imports, as oracle_runner
        from oracle_runner import stub_torchvision
        stub_torchvision()
    EngineArgs, FlexibleArgumentParser, make_arg_parser = _imports()
    if os.environ.get("KVG_ORACLE_INSPECT") == "inprocess":  # the same answer, ~10x faster (test_differential)
        from oracle_runner import inspect_in_process
        inspect_in_process()
    out = []
    environ = dict(os.environ)
    frontend = None
    for case in spec["cases"]:
        # each case sees the run's environment only: 0.10.2/0.11.0's create_engine_config writes
        # VLLM_USE_V1 into os.environ (envs.set_vllm_use_v1), which a later case would read as set
        os.environ.clear()
        os.environ.update(environ)
        os.environ.update({key: str(value) for key, value in (case.get("env") or {}).items()})
        if any(os.environ.get(name) for name in ("VLLM_USE_RUST_FRONTEND", "VLLM_USE_RUST_BENCH")):
            # the oracle leaves out the wheel's vllm-rs binary, which VLLM_RUST_FRONTEND_PATH=auto (the default)
            # finds beside the package; a path given explicitly is taken as it is, as the installed binary would be
            # (set only then: --fail-on-environ-validation refuses a variable the release does not know)
            os.environ.setdefault("VLLM_RUST_FRONTEND_PATH", os.path.join(os.path.dirname(sys.executable), "vllm-rs"))
        for directory, config in (case.get("files") or {}).items():
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, "config.json"), "w") as fh:
                json.dump(config, fh)
        work = case.get("model_dir") or tempfile.mkdtemp(prefix="kvg-serve-")
        os.makedirs(work, exist_ok=True)
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        rec = {"id": case["id"]}
        if case.get("logging") and not _logging_from_args():
            # to 0.30.0 vllm.logger configures logging when vLLM is imported, before any parser: a fresh import
            # under the case's environment (this process imported vLLM once, under the run's)
            failure = _import_logger()
            if failure is not None:
                rec.update(stage="frontend", **failure)
                out.append(rec)
                continue
        # the `vllm` console script's parser with its serve sub-command, the model positional as `vllm serve` takes
        # it: the api server's own parser would give a stray value after an option the release lacks to model_tag
        if case.get("env"):
            # the parser's option defaults are config instances (get_kwargs, lru-cached), whose default
            # factories read vllm.envs: under this case's variables they are built anew, as `vllm serve` builds them
            _forget_config_kwargs()
        try:
            parser = _parsers(FlexibleArgumentParser, make_arg_parser, "serve")[0]
        except Exception as exc:  # noqa: BLE001 - `vllm serve` fails building its parser: a traceback, no argparse
            rec["stage"] = "parser"
            rec.update(describe(exc))
            out.append(rec)
            continue
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                ns = parser.parse_args(["serve", work, *case["args"]])
            ns.model = ns.model_tag   # ServeSubcommand.cmd's first step
        except SystemExit as exc:
            text = err.getvalue()
            # the error as printed, from "PROG: error:" on: several lines for a config option's pydantic error
            printed = text[text.rfind("vllm serve: error: "):].rstrip("\n") if "vllm serve: error: " in text else ""
            rec.update(stage="argparse", exit=exc.code,
                       stderr=[printed] if "\n" in printed else text.strip().splitlines()[-1:])
            out.append(rec)
            continue
        except Exception as exc:  # noqa: BLE001 - the release's parser itself crashing is its answer
            rec["stage"] = "engine"
            rec.update(describe(exc))
            out.append(rec)
            continue
        # vllm/entrypoints/cli/serve.py: --headless or fewer than one API server runs run_headless (no API server,
        # create_engine_config(headless=True))
        count = getattr(ns, "api_server_count", None)
        headless = bool(getattr(ns, "headless", False)) or (count is not None and count < 1)
        if case.get("logging") and _logging_from_args():
            # 0.31.0+: vllm/entrypoints/cli/main.py applies the logging config right after argparse
            try:
                _logging_from_args()(ns)
            except Exception as exc:  # noqa: BLE001
                rec["stage"] = "frontend"
                rec.update(describe(exc))
                out.append(rec)
                continue
        if case.get("frontend"):
            if frontend is None:
                frontend = _frontend()
            try:
                frontend[0](ns)
                if not getattr(ns, "grpc", False):
                    # vllm serve's own checks after validate: ServeSubcommand.cmd up to what it dispatches to
                    frontend[2](copy.copy(ns))
                if not headless:
                    frontend[1](ns)
            except Exception as exc:  # noqa: BLE001
                rec["stage"] = "frontend"
                rec.update(describe(exc))
                out.append(rec)
                continue
        try:
            ea = EngineArgs.from_cli_args(ns)
            ea.skip_tokenizer_init = True
            ea.tokenizer = work
            rec["parsed"] = {k: getattr(ea, k, None) for k in FIELDS}
            config = ea.create_engine_config(usage_context=_usage_context(ea), headless=headless)
            rec["stage"] = "ok"
        except BaseException as exc:  # noqa: BLE001
            rec["stage"] = "engine"
            rec.update(describe(exc))
            if case.get("frontend") and rec["exc_type"] != "KeyError" and _raised_in(exc, "initialize_token_ids"):
                rec["harness"] = "no_tokenizer"   # the reasoning parser, built with the tokenizer this runner skips
            out.append(rec)
            continue
        try:
            reasoning = getattr(getattr(config, "structured_outputs_config", None), "reasoning_parser", None)
            if case.get("frontend") and reasoning and not getattr(ns, "skip_tokenizer_init", False):
                from vllm.reasoning import ReasoningParserManager
                ReasoningParserManager.get_reasoning_parser(reasoning)
        except BaseException as exc:  # noqa: BLE001
            rec["stage"] = "engine_core"
            rec.update(describe(exc))
        out.append(rec)
    with open(out_path, "w") as fh:
        json.dump(out, fh, default=str)


def _forget_config_kwargs():
    """Empty the release's cache of the config classes' CLI keyword arguments (vllm/engine/arg_utils.py
    ``_compute_kwargs``, an lru_cache, behind ``get_kwargs``)."""
    from vllm.engine import arg_utils

    for name in ("get_kwargs", "_compute_kwargs"):
        clear = getattr(getattr(arg_utils, name, None), "cache_clear", None)
        if clear is not None:
            clear()


def _logging_from_args():
    """The release's configure_logging_from_args (0.31.0+), else None."""
    import vllm.logger

    return getattr(vllm.logger, "configure_logging_from_args", None)


_IMPORT_LOGGER = """
import json
try:
    import vllm.logger
except BaseException as exc:
    print(json.dumps({"exc_type": type(exc).__name__, "message": str(exc)}))
"""


def _import_logger():
    """vllm.logger imported in a new interpreter under this case's environment: the exception it raised, or None."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", _IMPORT_LOGGER], capture_output=True, text=True, env=dict(os.environ))
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None


def _usage_context(engine_args):
    """Every serve path (API server, headless, gRPC) builds the config in the API server's usage context, which gives
    an unset max_num_batched_tokens / max_num_seqs the platform's serving defaults.  The CPU platform scales those by
    tp x pp, so a world size below 1 makes them 0 or negative and SchedulerConfig refuses before ParallelConfig sees the
    layout; a GPU host's defaults do not depend on the layout.  For such a layout the defaults stay unset (no usage
    context) and the layout checks answer, as they do on the host kvguard models."""
    from vllm.usage.usage_lib import UsageContext

    world = (engine_args.tensor_parallel_size or 0) * (engine_args.pipeline_parallel_size or 0)
    return UsageContext.OPENAI_API_SERVER if isinstance(world, int) and world >= 1 else None


def _raised_in(exc, function):
    """Whether ``exc`` (its causes, or the error pydantic wraps) passed through a frame of ``function``."""
    stack, seen = [exc], set()
    while stack:
        err = stack.pop()
        if err is None or id(err) in seen:
            continue
        seen.add(id(err))
        tb = err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == function:
                return True
            tb = tb.tb_next
        stack += [err.__cause__, err.__context__]
        errors = getattr(err, "errors", None)
        if type(err).__name__ == "ValidationError" and callable(errors):
            stack += [(entry.get("ctx") or {}).get("error") for entry in err.errors()]
    return False


class _Dispatched(Exception):
    """ServeSubcommand.cmd reached what it dispatches to (a server, the headless engine): its checks passed."""


#: the vllm.entrypoints modules loaded before _serve_cmd's import attempts (kept when a failed attempt is undone)
_LOADED: set = set()


def _serve_cmd():
    """The release's ``ServeSubcommand.cmd`` (vllm/entrypoints/cli/serve.py) with what it dispatches to replaced, so
    that its own checks run (--headless with --api-server-count, the load-balancing modes) and nothing starts;
    ``run_headless`` keeps its own first check (api_server_count above 1, up to 0.14.1 reachable) and stops where it
    builds the engine arguments (the runner's own create_engine_config follows)."""
    import importlib
    import types

    from parser_names_runner import _module_attr

    # the module imports the API server's stack; a server package the oracle lacks (orjson, ...) is stood in for:
    # cmd's checks read only the namespace and vllm.envs
    _LOADED.update(key for key in sys.modules if key.startswith("vllm.entrypoints"))
    for _ in range(20):
        try:
            serve = importlib.import_module("vllm.entrypoints.cli.serve")
            break
        except ModuleNotFoundError as exc:
            name = exc.name or ""
            if not name or name.split(".")[0] == "vllm" or name in sys.modules:
                raise
            module = types.ModuleType(name)
            module.__getattr__ = _module_attr  # type: ignore[method-assign]
            module.__path__ = []
            sys.modules[name] = module
            for key in [key for key in sys.modules if key.startswith("vllm.entrypoints")]:
                if key not in _LOADED:
                    sys.modules.pop(key, None)
    else:
        raise RuntimeError("vllm.entrypoints.cli.serve does not import")

    def stop(*args, **kwargs):
        raise _Dispatched

    for name in ("run_multi_api_server", "run_server", "run_dp_supervisor"):
        if hasattr(serve, name):
            setattr(serve, name, stop)
    serve.vllm = types.SimpleNamespace(AsyncEngineArgs=types.SimpleNamespace(from_cli_args=stop))
    command = serve.ServeSubcommand.cmd

    def run(ns):
        try:
            command(ns)
        except _Dispatched:
            pass

    return run


def _frontend():
    """The release's validate_parsed_serve_args and validate_api_server_args."""
    import importlib

    from parser_names_runner import stub_server_modules, validate_api_server_args

    stub_server_modules()
    for name in ("vllm.entrypoints.common.cli_args", "vllm.entrypoints.launchers.cli_args",
                 "vllm.entrypoints.openai.cli_args"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(module, "validate_parsed_serve_args"):
            return module.validate_parsed_serve_args, validate_api_server_args(), _serve_cmd()
    raise RuntimeError("no validate_parsed_serve_args")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
