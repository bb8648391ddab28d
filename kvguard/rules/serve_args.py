"""The rest of ``validate_parsed_serve_args``: the CLI's checks right after argparse, before any config.

``vllm serve`` (vllm/entrypoints/cli/serve.py's ``validate``) and ``python -m vllm.entrypoints.openai.api_server``
(its ``__main__``; 0.29.0+ vllm/entrypoints/launchers/api_server/entry.py) both call it: the function lives in
vllm/entrypoints/openai/cli_args.py (0.10.2 - 0.28.0), vllm/entrypoints/launchers/cli_args.py (0.29.0 - 0.32.0) and
vllm/entrypoints/common/cli_args.py (0.33.0).  In the release's order:

- ``validate_chat_template(args.chat_template)`` (vllm/entrypoints/chat_utils.py; 0.32.0+ vllm/renderers/chat_utils):
  a ``--chat-template`` with none of ``{``, ``}``, newline is taken for a path and refused when no such file exists
  (ValueError; 0.13.0+ it also tries the release's built-in templates directory and names its absolute install path;
  0.30.0+ VLLMValidationError).  Whether the file exists on the deployment host is a host fact: kvguard decides only
  a built-in template name (0.13.0+) or a path that exists on any POSIX host (``.``, ``/``, ``..``); any other
  path-like template makes the check skipped, with the reason.
- ``validate_grpc_port_arg`` (0.32.0+): ``--grpc-port`` (the Rust frontend's gRPC listener) with ``--grpc``, without
  ``VLLM_USE_RUST_FRONTEND=1``, without an API server, with the multi-port external load balancer, out of range, or
  equal to ``--port`` without ``--uds``.
- ``--enable-auto-tool-choice`` without ``--tool-call-parser`` (kvguard.rules.parsers), then ``--enable-log-outputs``
  without ``--enable-log-requests`` (0.11.0+, TypeError), a negative ``--sse-keep-alive-interval`` (0.29.0+),
  ``--enable-per-request-metrics`` with ``--disable-log-stats`` (0.25.0+).
- ``validate_multi_port_external_lb_args`` (vllm/entrypoints/openai/dp_supervisor.py, 0.29.0+ launchers/) with
  ``--data-parallel-multi-port-external-lb`` (0.22.0+); 0.22.x refuses any HTTPS option, 0.23.0+ only a key file
  without a certificate or the reverse.

Then ``vllm serve``'s own checks (vllm/entrypoints/cli/serve.py ``ServeSubcommand.cmd``, after ``--grpc``'s server,
before the API server or the headless engine starts; raw ValueError):

- 0.10.2 - 0.14.1: ``--headless`` runs ``run_headless``, which refuses an ``--api-server-count`` above 1 (the
  option's default there is 1).  0.15.0+: ``--headless`` with any positive ``--api-server-count`` (the default is
  None there; ``run_headless``'s own check is then out of reach).
- the data-parallel load-balancing modes: external (``--data-parallel-external-lb`` or ``--data-parallel-rank``) and
  hybrid (``--data-parallel-hybrid-lb`` or ``--data-parallel-start-rank``) together (0.15.0 - 0.21.0); from 0.22.0
  with the multi-port mode, where ``--data-parallel-start-rank`` counts as hybrid only when neither the hybrid nor the
  multi-port switch is given, more than one of the three.  These come before create_engine_config's own checks of the
  same switches.

0.33.0's ``validate_reasoning_effort_map`` (after the gRPC port) is kvguard.rules.late_options's.  Not modelled: the
api_server entry's ``--grpc-port`` (its namespace has no ``subparser``: always refused).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["CHAT_TEMPLATE_MESSAGE", "HEADLESS_COUNT_MESSAGE", "HEADLESS_RUN_MESSAGE", "LB_BOTH_MESSAGE",
           "LB_MODES_MESSAGE", "builtin_templates", "chat_template_missing", "grpc_port_problem",
           "headless_with_api_servers", "headless_run_api_servers", "lb_modes_both", "lb_modes_many",
           "log_config_file_unknown", "log_outputs_without_requests", "multi_port_problem", "per_request_metrics_without_stats",
           "sse_keep_alive_negative"]

#: 0.10.2 - 0.12.0; 0.13.0+ adds " Tried: {chat_template} and {builtin}" (``builtin``: the install's directory)
CHAT_TEMPLATE_MESSAGE = "The supplied chat template string ({chat_template}) appears path-like, but doesn't exist!"
LOG_OUTPUTS_MESSAGE = "Error: --enable-log-outputs requires --enable-log-requests"
SSE_MESSAGE = "Error: --sse-keep-alive-interval must be a non-negative integer (0 disables keep-alive comments)."
PER_REQUEST_MESSAGE = ("Error: --enable-per-request-metrics requires engine statistics logging; remove "
                       "--disable-log-stats to enable per-request metrics.")

#: the files of vllm/transformers_utils/chat_templates/ in the wheel (measured from each release's source)
_TEMPLATES_BASE = ("__init__.py", "registry.py", "template_basic.jinja", "template_blip2.jinja",
                   "template_chatml.jinja", "template_deepseek_ocr.jinja", "template_deepseek_vl2.jinja",
                   "template_minicpmv45.jinja")


def builtin_templates(state: Any) -> frozenset:
    """The names ``validate_chat_template`` finds in the release's built-in directory (0.13.0+; none before)."""
    release = state.release
    if not release.within("0.13.0"):
        return frozenset()
    names = set(_TEMPLATES_BASE)
    if release.within("0.18.0"):
        names.add("template_kimi_audio.jinja")
    if release.within(None, "0.25.1"):
        names.add("template_fuyu.jinja")
    return frozenset(names)


def _parts(path: str) -> list:
    """The path's components as pathlib reads them (``.`` and empty components dropped; a leading ``/`` kept)."""
    return (["/"] if path.startswith("/") else []) + [p for p in path.split("/") if p not in ("", ".")]


def chat_template_missing(state: Any) -> bool:
    """A path-like ``--chat-template``: never refused from what kvguard knows (the file is the host's); the check
    is skipped unless the path certainly exists (the working directory, the root, their parents, or -- 0.13.0+ -- a
    built-in template name)."""
    template = state.layout.chat_template
    if template is None or any(c in template for c in "{}\n"):
        return False
    parts = _parts(template)
    if all(part in ("/", "..") for part in parts):
        return False
    if len(parts) == 1 and parts[0] in builtin_templates(state):
        return False
    state.skip(f"--chat-template {template!r} has none of '{{', '}}', newline, so vLLM {state.release.version} "
               "takes it for a file and refuses it unless it exists on the host (relative to the working directory"
               + (", or among the release's built-in templates" if state.release.within("0.13.0") else "")
               + "): whether it does is not known to kvguard")
    return False


def log_config_file_unknown(state: Any) -> bool:
    """A non-empty ``--log-config-file``: vllm serve applies the logging config right after argparse (0.31.0+), and a
    file missing from the host is refused; whether it exists is not known to kvguard, so the check is skipped."""
    path = state.layout.log_config_file
    if path:
        state.skip(f"--log-config-file {path!r} names a logging config file that vLLM {state.release.version} reads "
                   "before any other check and refuses unless it exists on the host: whether it does is not known to "
                   "kvguard")
    return False


def log_outputs_without_requests(state: Any) -> bool:
    return state.layout.enable_log_outputs and not state.layout.enable_log_requests


def sse_keep_alive_negative(state: Any) -> bool:
    return state.layout.sse_keep_alive_interval < 0


def per_request_metrics_without_stats(state: Any) -> bool:
    return state.layout.enable_per_request_metrics and state.layout.disable_log_stats


# -- --grpc-port (0.32.0+) ---------------------------------------------------------------------------------------

_GRPC_BOTH = ("--grpc and --grpc-port are mutually exclusive. Use --grpc --port for the Python gRPC server, or "
              "VLLM_USE_RUST_FRONTEND=1 with --grpc-port for the Rust frontend.")


def _rust_frontend_problem(state: Any) -> "Optional[str]":
    """``envs.VLLM_USE_RUST_FRONTEND`` is ``bool(int(value))``: the ValueError int() raises for a value it refuses,
    "off" when it reads 0, or None (on)."""
    value = state.env.get("VLLM_USE_RUST_FRONTEND", "0")
    try:
        on = bool(int(value))
    except ValueError as exc:
        return str(exc)
    return None if on else "--grpc-port requires VLLM_USE_RUST_FRONTEND=1 vllm serve"


def grpc_port_problem(state: Any) -> "Optional[str]":
    """The message of the first of validate_grpc_port_arg's refusals (all ValueError), or None."""
    lay = state.layout
    port = lay.grpc_port
    if port is None:
        return None
    if lay.grpc:
        return _GRPC_BOTH
    off = _rust_frontend_problem(state)
    if off is not None:
        return off
    if state.headless:
        return "--grpc-port requires a Rust frontend; remove --headless and non-positive --api-server-count"
    if lay.data_parallel_multi_port_external_lb:
        return ("--grpc-port is incompatible with --data-parallel-multi-port-external-lb: its frontends would share "
                "the same gRPC port")
    if not 0 <= port <= 65535:
        return "--grpc-port must be between 0 and 65535"
    if port != 0 and port == lay.port and not lay.uds:
        return "--grpc-port must differ from --port when HTTP uses TCP"
    return None


def grpc_port_check(state: Any) -> bool:
    return grpc_port_problem(state) is not None


def grpc_port_bind(state: Any) -> dict:
    return {"text": grpc_port_problem(state)}


# -- --data-parallel-multi-port-external-lb (0.22.0+) ------------------------------------------------------------

_LB = "Error: --data-parallel-multi-port-external-lb "


def multi_port_problem(state: Any) -> "Optional[str]":
    """The message of the first of validate_multi_port_external_lb_args's refusals (ValueError), or None."""
    lay = state.layout
    if not lay.data_parallel_multi_port_external_lb:
        return None
    if lay.grpc:
        return _LB + "does not support --grpc"
    if lay.uds is not None:
        return _LB + "does not support --uds"
    if state.release.within(None, "0.22.1"):
        if any((lay.ssl_keyfile, lay.ssl_certfile, lay.ssl_ca_certs)):
            return _LB + "does not support HTTPS yet"
    elif bool(lay.ssl_keyfile) != bool(lay.ssl_certfile):
        return "Error: --ssl-keyfile and --ssl-certfile must be provided together"
    if lay.api_server_count not in (None, 1):
        return _LB + "currently requires --api-server-count=1"
    if lay.data_parallel_rank is not None:
        return _LB + "manages child --data-parallel-rank values internally"
    if lay.data_parallel_external_lb or lay.data_parallel_hybrid_lb:
        return _LB + "cannot be combined with --data-parallel-external-lb or --data-parallel-hybrid-lb"
    size = lay.data_parallel_size
    if size < 2:
        return _LB + "requires --data-parallel-size > 1"
    local = lay.data_parallel_size_local
    if local is None or local < 2:
        return _LB + "requires --data-parallel-size-local >= 2"
    if local > size:
        return "Error: --data-parallel-size-local cannot exceed --data-parallel-size"
    if size % local:
        return "Error: --data-parallel-size must be divisible by --data-parallel-size-local"
    start = lay.data_parallel_start_rank
    if start is None:
        start = (lay.node_rank or 0) * local
    if start + local > size:
        return "Error: multi-port supervised ranks would exceed --data-parallel-size"
    supervisor, low, high = lay.data_parallel_supervisor_port, lay.port, lay.port + local - 1
    if low <= supervisor <= high:
        return f"Error: --data-parallel-supervisor-port {supervisor} overlaps with child rank ports {low}-{high}"
    return None


def multi_port_check(state: Any) -> bool:
    return multi_port_problem(state) is not None


def multi_port_bind(state: Any) -> dict:
    return {"text": multi_port_problem(state)}


# -- vllm serve's own checks (cli/serve.py ServeSubcommand.cmd) ----------------------------------------------------

#: run_headless's first statement (0.10.2 - 0.14.1 reachable)
HEADLESS_RUN_MESSAGE = "api_server_count can't be set in headless mode"
#: 0.15.0+
HEADLESS_COUNT_MESSAGE = ("--api-server-count={count} cannot be used with --headless (no API servers are started in "
                          "headless mode).")
#: 0.15.0 - 0.21.0
LB_BOTH_MESSAGE = ("Cannot use both external and hybrid data parallel load balancing modes. External LB is enabled "
                   "via --data-parallel-external-lb or --data-parallel-rank. Hybrid LB is enabled via "
                   "--data-parallel-hybrid-lb or --data-parallel-start-rank. Use one mode or the other.")
#: 0.22.0+
LB_MODES_MESSAGE = ("Cannot use more than one data parallel load balancing mode. Choose one of: "
                    "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
                    "--data-parallel-hybrid-lb (or --data-parallel-start-rank).")


def headless_run_api_servers(state: Any) -> bool:
    """0.10.2 - 0.14.1: ``--headless`` with more than one API server (the option defaults to 1 there; a count below 1
    runs headless as well, but is never above 1)."""
    lay = state.layout
    return lay.headless and (1 if lay.api_server_count is None else lay.api_server_count) > 1


def headless_with_api_servers(state: Any) -> bool:
    """0.15.0+: ``--headless`` with a positive ``--api-server-count``."""
    lay = state.layout
    return lay.headless and lay.api_server_count is not None and lay.api_server_count > 0


def _external(lay: Any) -> bool:
    return bool(lay.data_parallel_external_lb) or lay.data_parallel_rank is not None


def lb_modes_both(state: Any) -> bool:
    """0.15.0 - 0.21.0: the external and the hybrid mode together."""
    lay = state.layout
    return _external(lay) and (lay.data_parallel_hybrid_lb or lay.data_parallel_start_rank is not None)


def lb_modes_many(state: Any) -> bool:
    """0.22.0+: more than one of the multi-port, external and hybrid modes; a start rank means hybrid only when
    neither the hybrid nor the multi-port switch is given."""
    lay = state.layout
    if lay.data_parallel_hybrid_lb or lay.data_parallel_multi_port_external_lb:
        hybrid, multi = bool(lay.data_parallel_hybrid_lb), bool(lay.data_parallel_multi_port_external_lb)
    else:
        hybrid, multi = lay.data_parallel_start_rank is not None, False
    return hybrid + multi + _external(lay) > 1
