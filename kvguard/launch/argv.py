"""``vllm serve`` command lines as a release's argument parser reads them.

vLLM parses ``vllm serve`` with ``FlexibleArgumentParser`` (a subclass of
``argparse.ArgumentParser``; vllm/utils/argparse_utils.py, before 0.12.0
vllm/utils/__init__.py) filled by ``make_arg_parser`` /
``EngineArgs.add_cli_args``.  This module reproduces that, per release:

1. FlexibleArgumentParser's pre-processing: ``--model`` with ``vllm serve``
   (a ValueError before 0.11.1, moved to the positional model from 0.11.1),
   ``--served-model-name`` without a positional model (ValueError from 0.17.0),
   ``--config FILE.yaml`` (its keys inserted after the model, so command line >
   file > defaults; ``key: false`` becomes ``--no-key`` from 0.28.0 and is
   dropped before), underscores to dashes in ``--long_names`` (up to the first
   dot), ``-O3`` / ``-O 3``, and dotted / JSON arguments (``-cc.mode 3``,
   ``--compilation-config.pass_config.x true``) folded into one JSON argument.
2. argparse (Python 3.11 semantics; vLLM never sets ``allow_abbrev=False``):
   exact option strings, ``--opt=value``, **unambiguous prefixes**
   (``--tensor-par 8``; an ambiguous one is an error), single-dash prefixes
   (``-dc 2`` is ``-dcp``) and attached values of one-letter options
   (``-n2``), the option's arity (a flag takes no value, an option exactly
   one), one positional model, last occurrence wins.

The option table of every release (every option string the serve parser
defines, with its arity, type and choices) is generated from the real
releases into ``kvguard/data/serve_options.json`` (with each action's option
strings and the parser's order of them: argparse's messages name both).
Wherever the release's parser refuses the command line — an option string it
does not define (``unrecognized arguments``), a bad value, a missing argument,
or FlexibleArgumentParser's own exception — :func:`parse_serve` raises
:class:`~kvguard.errors.ArgparseRefusal` carrying the error exactly as vLLM
prints it (``vllm: error: …`` from the top-level parser, ``vllm serve:
error: …`` from its sub-parser, ``api_server.py: error: …``; CPython
3.10–3.13 word argparse's errors alike, and neither they nor any release
print a "did you mean").  Options the release defines but kvguard does not
model are passed over with their values (values of plain types and of vLLM's
``optional_type(X)`` / ``parse_type(X)`` are checked, and a value outside the
declared bounds of its config field is declined — see ``_check_value``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from functools import lru_cache

from ..errors import ArgparseRefusal, InputError, Undecidable
from ..record import Record, field
from ..rules import kv_transfer as _kv_transfer
from ..versions import Release, parse_version
from .layout import join_list

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

__all__ = ["DEFAULT_MODEL", "FLAGS", "PydanticRefusal", "ServeCommand", "parse_serve", "option_table"]


class Flag(Record):
    field: str
    names: tuple[str, ...]          # option strings; the first is the long one
    kind: str                       # "int" | "str" | "float" | "length" (human_readable_int[_or_auto]) |
                                    # "bool" (BooleanOptionalAction) | "store_true"
    since: str = "0.10.2"
    until: Optional[str] = None
    alias_since: Optional[str] = None  # release that added the short alias (names[1:])
    choices: Optional[tuple[str, ...]] = None


#: The launch flags kvguard reads (the parallel-layout options and their short aliases).  Which
#: option strings a release defines, their arity, type and choices come from the generated
#: option table (kvguard/data/serve_options.json); this table names the fields kvguard reads
#: and is checked against it (tests/test_argv.py).
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
    Flag("num_redundant_experts", ("--num-redundant-experts",), "int", until="0.11.2"),
    Flag("enable_elastic_ep", ("--enable-elastic-ep",), "bool", "0.17.0"),
    Flag("enable_fault_tolerance", ("--enable-fault-tolerance",), "bool", "0.27.0"),
    Flag("enable_return_routed_experts", ("--enable-return-routed-experts",), "bool", "0.14.0"),
    # the late options VllmConfig checks against the model runner, speculative decoding and the model's class
    # (kvguard.rules.late_options)
    Flag("return_sampling_mask", ("--return-sampling-mask",), "bool", "0.28.0"),
    Flag("enable_trace_replay", ("--enable-trace-replay",), "bool", "0.29.0"),
    Flag("enable_batch_sharded_sampling", ("--enable-batch-sharded-sampling",), "bool", "0.29.0"),
    Flag("per_request_spec_decode_metrics", ("--per-request-spec-decode-metrics",), "str", "0.29.0"),
    Flag("use_replayssm", ("--use-replayssm",), "bool", "0.27.0"),
    Flag("replayssm_buffer_len", ("--replayssm-buffer-len",), "int", "0.27.0"),
    Flag("async_scheduling", ("--async-scheduling",), "bool"),
    # the scheduler's and cache's switches a hybrid (Mamba) model's cache setup reads (issue 12)
    Flag("enable_chunked_prefill", ("--enable-chunked-prefill",), "bool"),
    Flag("enable_prefix_caching", ("--enable-prefix-caching",), "bool"),
    Flag("mamba_cache_mode", ("--mamba-cache-mode",), "str", "0.15.0"),
    Flag("runner", ("--runner",), "str"),
    Flag("convert", ("--convert",), "str"),
    Flag("headless", ("--headless",), "store_true"),
    # the API server count (fewer than 1: no API server, as --headless) and the gRPC server (0.20.0+), which run no
    # API-server checks (kvguard.rules.parsers)
    Flag("api_server_count", ("--api-server-count", "-asc"), "int"),
    Flag("grpc", ("--grpc",), "store_true", "0.20.0"),
    Flag("trust_remote_code", ("--trust-remote-code",), "bool"),
    Flag("swap_space", ("--swap-space",), "float", until="0.17.1"),
    # ModelConfig's maximum length and the KV-cache dtype (issue 12): types and choices from the option table
    Flag("max_model_len", ("--max-model-len",), "length"),
    Flag("disable_sliding_window", ("--disable-sliding-window",), "bool"),
    Flag("kv_cache_dtype", ("--kv-cache-dtype",), "str"),
    Flag("enforce_eager", ("--enforce-eager",), "bool"),
    Flag("attention_backend", ("--attention-backend",), "str", "0.13.0"),
    # kernel selection (issue 12): KernelConfig's MoE backend and ParallelConfig's all2all backend
    Flag("moe_backend", ("--moe-backend",), "str", "0.17.0"),
    Flag("all2all_backend", ("--all2all-backend",), "str", "0.11.1"),
    # whether a vision encoder is split by tp (Kimi-K2.5's vision tower at model construction, kvguard.quant.kimi_k25)
    Flag("mm_encoder_tp_mode", ("--mm-encoder-tp-mode",), "str"),
    # whether a multimodal wrapper may build no vision tower (Qwen3-VL's, kvguard.quant.qwen3_vl: left open when given)
    Flag("limit_mm_per_prompt", ("--limit-mm-per-prompt",), "str"),
    Flag("language_model_only", ("--language-model-only",), "bool", "0.17.0"),
    # whether a LoRAConfig is built (Qwen3.5's wrappers build other projections with one: kvguard.quant.qwen3_vl)
    Flag("enable_lora", ("--enable-lora",), "bool"),
    # whether VllmConfig looks the KV connector up for the hybrid KV cache manager (kvguard.rules.kv_transfer)
    Flag("disable_hybrid_kv_cache_manager", ("--disable-hybrid-kv-cache-manager",), "bool"),
    # ModelConfig's --quantization: which method builds the layers (issue 12: AWQ / GPTQ keep their plain kernels)
    Flag("quantization", ("--quantization", "-q"), "str"),
    Flag("dtype", ("--dtype",), "str"),
    Flag("allow_deprecated_quantization", ("--allow-deprecated-quantization",), "bool", "0.14.0"),
    # CacheConfig's --block-size: an input of the attention selector (0.26.0+), shown in its refusal
    Flag("block_size", ("--block-size",), "int"),
    # SchedulerConfig's batch: checked against the maximum length and each other (kvguard.rules.scheduler)
    Flag("max_num_batched_tokens", ("--max-num-batched-tokens",), "length"),
    Flag("max_num_seqs", ("--max-num-seqs",), "int"),
    Flag("max_num_active_seqs", ("--max-num-active-seqs",), "int", "0.31.0"),
    Flag("long_prefill_token_threshold", ("--long-prefill-token-threshold",), "int"),
    # SchedulerConfig's lookahead slots: checked by _verify_args (0.10.2 / 0.11.0), then by the field's bound
    Flag("num_lookahead_slots", ("--num-lookahead-slots",), "int", until="0.11.2"),
    # CacheConfig's memory options (kvguard.rules.cache_config)
    Flag("gpu_memory_utilization", ("--gpu-memory-utilization",), "float"),
    Flag("cpu_offload_gb", ("--cpu-offload-gb",), "float"),
    # features the V1 engine refuses or (0.10.2 / 0.11.0, VLLM_USE_V1 unset) falls back to V0 for
    # (kvguard.rules.v1_features)
    Flag("logits_processor_pattern", ("--logits-processor-pattern",), "str", until="0.16.0"),
    Flag("max_num_partial_prefills", ("--max-num-partial-prefills",), "int", until="0.26.0"),
    Flag("max_long_partial_prefills", ("--max-long-partial-prefills",), "int", until="0.26.0"),
    Flag("load_format", ("--load-format",), "str"),
    Flag("preemption_mode", ("--preemption-mode",), "str", until="0.10.2"),
    Flag("disable_async_output_proc", ("--disable-async-output-proc",), "store_true", until="0.10.2"),
    Flag("scheduler_delay_factor", ("--scheduler-delay-factor",), "float", until="0.10.2"),
    Flag("enable_prompt_embeds", ("--enable-prompt-embeds",), "bool"),
    # the front end's parsers: a name the release does not register is refused (kvguard.rules.parsers)
    Flag("enable_auto_tool_choice", ("--enable-auto-tool-choice",), "bool"),
    Flag("tool_call_parser", ("--tool-call-parser",), "str"),
    Flag("tool_parser_plugin", ("--tool-parser-plugin",), "str"),
    Flag("reasoning_parser", ("--reasoning-parser",), "str"),
    Flag("reasoning_parser_plugin", ("--reasoning-parser-plugin",), "str", "0.11.1"),
    Flag("skip_tokenizer_init", ("--skip-tokenizer-init",), "bool"),
    # ObservabilityConfig's tracing and metrics options (kvguard.rules.observability); "words": a list option
    # kept as its values joined by NUL (None for an empty or "None" value)
    Flag("show_hidden_metrics_for_version", ("--show-hidden-metrics-for-version",), "str"),
    Flag("otlp_traces_endpoint", ("--otlp-traces-endpoint",), "str"),
    Flag("collect_detailed_traces", ("--collect-detailed-traces",), "words"),
    # ParallelConfig's profiling and NUMA options (kvguard.rules.parallel_flags)
    Flag("ray_workers_use_nsight", ("--ray-workers-use-nsight",), "bool"),
    Flag("numa_bind", ("--numa-bind",), "bool", "0.20.0"),
    Flag("numa_bind_nodes", ("--numa-bind-nodes",), "int_words", "0.20.0"),
    Flag("numa_bind_cpus", ("--numa-bind-cpus",), "words", "0.20.0"),
    # the Mamba cache's stochastic rounding and SSM cache dtype (kvguard.rules.mamba_rounding)
    Flag("enable_mamba_cache_stochastic_rounding", ("--enable-mamba-cache-stochastic-rounding",), "bool", "0.20.0"),
    Flag("mamba_ssm_cache_dtype", ("--mamba-ssm-cache-dtype",), "str"),
    Flag("mamba_backend", ("--mamba-backend",), "str", "0.20.0"),
    Flag("mamba_ssu_algorithm", ("--mamba-ssu-algorithm",), "str", "0.27.0"),
    # validate_parsed_serve_args's options (kvguard.rules.serve_args)
    Flag("chat_template", ("--chat-template",), "str"),
    Flag("log_config_file", ("--log-config-file",), "str"),
    # the host facts of ModelConfig and --device-ids (kvguard.rules.host_options)
    Flag("enable_sleep_mode", ("--enable-sleep-mode",), "bool"),
    Flag("enable_cumem_allocator", ("--enable-cumem-allocator",), "bool", "0.22.0"),
    Flag("device_ids", ("--device-ids",), "str", "0.24.0"),
    Flag("kda_prefill_backend", ("--kda-prefill-backend",), "str", "0.27.0"),
    Flag("enable_log_outputs", ("--enable-log-outputs",), "bool"),
    Flag("enable_log_requests", ("--enable-log-requests",), "bool"),
    Flag("disable_log_stats", ("--disable-log-stats",), "store_true"),
    Flag("enable_per_request_metrics", ("--enable-per-request-metrics",), "bool", "0.25.0"),
    Flag("fail_on_environ_validation", ("--fail-on-environ-validation",), "bool", "0.17.0"),
    Flag("sse_keep_alive_interval", ("--sse-keep-alive-interval",), "int", "0.29.0"),
    Flag("grpc_port", ("--grpc-port",), "int", "0.32.0"),
    Flag("uds", ("--uds",), "str"),
    Flag("ssl_keyfile", ("--ssl-keyfile",), "str"),
    Flag("ssl_certfile", ("--ssl-certfile",), "str"),
    Flag("ssl_ca_certs", ("--ssl-ca-certs",), "str"),
    Flag("data_parallel_multi_port_external_lb", ("--data-parallel-multi-port-external-lb", "-dpm"), "store_true",
         "0.22.0"),
    Flag("data_parallel_supervisor_port", ("--data-parallel-supervisor-port",), "int", "0.22.0"),
    # the checkpoint config's parser and path, microbatching, and the offloading options (kvguard.rules.engine_options)
    Flag("config_format", ("--config-format",), "str"),
    Flag("hf_config_path", ("--hf-config-path",), "str"),
    # --model-impl terratorch: resolved by the host's terratorch package (kvguard.rules.engine_options)
    Flag("model_impl", ("--model-impl",), "str"),
    Flag("enable_dbo", ("--enable-dbo",), "bool", "0.11.0"),
    Flag("ubatch_size", ("--ubatch-size",), "int", "0.14.0"),
    Flag("dbo_decode_token_threshold", ("--dbo-decode-token-threshold",), "int", "0.11.0"),
    Flag("dbo_prefill_token_threshold", ("--dbo-prefill-token-threshold",), "int", "0.11.0"),
    # the deprecated structured-output switches DecodingConfig (0.10.2) / StructuredOutputsConfig (0.11.1 - 0.11.2)
    # validate against the backend (kvguard.rules.engine_options); 0.11.x parse the two switches with type=bool
    Flag("guided_decoding_backend", ("--guided-decoding-backend",), "str", until="0.11.2"),
    Flag("guided_decoding_disable_any_whitespace", ("--guided-decoding-disable-any-whitespace",), "bool",
         until="0.11.2"),
    Flag("guided_decoding_disable_additional_properties", ("--guided-decoding-disable-additional-properties",),
         "bool", until="0.11.2"),
    Flag("offload_backend", ("--offload-backend",), "str", "0.17.0"),
    Flag("offload_group_size", ("--offload-group-size",), "int", "0.17.0"),
    Flag("offload_num_in_group", ("--offload-num-in-group",), "int", "0.17.0"),
    Flag("offload_prefetch_step", ("--offload-prefetch-step",), "int", "0.17.0"),
    Flag("kv_offloading_backend", ("--kv-offloading-backend",), "str", "0.11.1"),
    Flag("kv_offloading_size", ("--kv-offloading-size",), "float", "0.11.1"),
)

_FIELDS = {f.field: f for f in FLAGS}
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "serve_options.json")


class ServeCommand(Record, frozen=False):
    """A parsed launch: the model, the fields kvguard reads, and the rest."""

    model: Optional[str]
    fields: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    passed_over: list[str] = field(default_factory=list)
    revision: Optional[str] = None
    #: speculative decoding: ``speculative_config`` (the --speculative-config / -sc value as its parser type
    #: made it, dotted keys folded in) and the --spec-method / --spec-model / --spec-tokens values given
    speculative: dict[str, Any] = field(default_factory=dict)
    #: the positional model of an api_server launch, which that server parses and does not read: it serves
    #: ``--model`` (by default :data:`DEFAULT_MODEL`)
    ignored_model: Optional[str] = None


#: the model vLLM serves when none is given (``ModelConfig.model``'s default in every supported release)
DEFAULT_MODEL = "Qwen/Qwen3-0.6B"


class _Opt:
    """One option of the release's ``vllm serve`` parser (a plain class: a cold check builds some 600)."""

    __slots__ = ("nargs", "action", "dest", "type", "choices", "value", "names", "fields", "inner", "bounds")

    def __init__(self, nargs: Any, action: str, dest: str, type: Optional[str] = None,  # noqa: A002 - argparse's word
                 choices: Optional[tuple] = None, value: Any = None, names: tuple[str, ...] = (),
                 fields: Optional[dict[str, Any]] = None, inner: Optional[str] = None, bounds: Any = None):
        self.nargs = nargs          # 0, 1, "?", "*", "+"
        self.action = action
        self.dest = dest
        self.type = type
        self.choices = choices
        #: what a flag (nargs 0) stores: True/False for --x / --no-x / --disable-x
        self.value = value
        #: the action's option strings in declaration order: argparse names the argument by all of them
        #: (``argument --tensor-parallel-size/-tp: invalid int value: 'x'``)
        self.names = names
        #: the field schema of the config class the value is validated into (kvguard.launch.config_values)
        self.fields = fields
        #: the X of vLLM's optional_type(X) / parse_type(X) as its error names it ("<class 'int'>")
        self.inner = inner
        #: the declared constraints of the config field the value is validated into ("int>=1", a literal list)
        self.bounds = bounds

    def __repr__(self) -> str:
        return (f"_Opt(nargs={self.nargs!r}, action={self.action!r}, dest={self.dest!r}, type={self.type!r}, "
                f"choices={self.choices!r}, value={self.value!r}, names={self.names!r})")

    def label(self, opt: str) -> str:
        return "/".join(self.names) if self.names else opt


# ---------------------------------------------------------------------------
# the option table


#: where the one-per-line parts of serve_options.json start and end (tests/upstream/argv_runner.py::table_text)
_SPECS_OPEN = '\n"specs":[\n'
_ORDERS_OPEN = '\n],\n"orders":[\n'
_TABLE_CLOSE = "\n]}"


@lru_cache(maxsize=1)
def _table_data() -> dict:
    """serve_options.json with ``specs`` and ``orders`` left as their lines of text.

    A check parses for one release: it needs about a third of the 700 specs and one of the orders, and
    decoding the whole table was ~6% of a cold check.  A file laid out otherwise is decoded whole."""
    with open(_DATA, encoding="utf-8") as fh:
        text = fh.read()
    specs_at = text.find(_SPECS_OPEN)
    orders_at = text.find(_ORDERS_OPEN, specs_at + 1)
    end = text.rfind(_TABLE_CLOSE)
    if not 0 < specs_at < orders_at < end:
        data = json.loads(text)
        data["specs"] = [json.dumps(spec) for spec in data["specs"]]
        data["orders"] = [json.dumps(order) for order in data.get("orders", ())]
        return data
    data = json.loads(text[:specs_at].rstrip().rstrip(",") + "}")
    data["specs"] = text[specs_at + len(_SPECS_OPEN):orders_at].split(",\n")
    data["orders"] = text[orders_at + len(_ORDERS_OPEN):end].split(",\n") if end > orders_at + len(_ORDERS_OPEN) \
        else []
    return data


@lru_cache(maxsize=None)
def _options_for(version: str) -> dict[str, _Opt]:
    data = _table_data()
    versions = data["versions"]
    want = parse_version(version)
    idx = 0
    for i, v in enumerate(versions):
        if parse_version(v) <= want:
            idx = i
    chosen: dict[str, int] = {}  # option string -> its spec in this release
    for opt, entries in data["options"].items():
        for spec, lo, hi in entries:
            if lo <= idx <= hi:
                chosen[opt] = spec
                break
    ids = sorted(set(chosen.values()))
    raw_specs = data["specs"]
    # one decode for the release's specs: a json.loads call costs more than the text it reads here
    specs = {spec: _Opt(s["n"], s["a"], s["d"], s.get("t"), tuple(s["c"]) if s.get("c") is not None else None,
                        s.get("v"), tuple(s.get("o", ())), s.get("f"), s.get("i"), s.get("b"))
             for spec, s in zip(ids, json.loads("[" + ",".join(raw_specs[spec] for spec in ids) + "]"))}
    table = {opt: specs[spec] for opt, spec in chosen.items()}
    # the parser's own order (argparse lists the candidates of an ambiguous prefix in it); an order's
    # line ends with its first and last version index: only the release's own line is decoded
    names = list(data["options"])
    for line in data["orders"]:
        order, lo, hi = line[:-1].rsplit(",", 2)
        if int(lo) <= idx <= int(hi):
            return {names[i]: table[names[i]] for i in json.loads(order[1:])}
    return table


def option_table(release: Release) -> dict[str, _Opt]:
    """Every option string the release's ``vllm serve`` parser defines."""
    return _options_for(str(release.version))


def _releases_with(opt: str) -> tuple[Optional[str], Optional[str]]:
    """(first, last) release whose parser defines ``opt``; (None, None) when none does."""
    data = _table_data()
    entries = data["options"].get(opt)
    if not entries:
        return None, None
    return (data["versions"][min(lo for _, lo, _ in entries)],
            data["versions"][max(hi for _, _, hi in entries)])


# ---------------------------------------------------------------------------


def split_command(command: "str | list[str]") -> list[str]:
    """A command line as its words: a string split as a POSIX shell splits it, a list as given."""
    if isinstance(command, str):
        try:
            return shlex.split(command, comments=False)
        except ValueError as exc:
            raise InputError(f"cannot split command line: {exc}", source="<argv>") from None
    return [str(t) for t in command]


def _strip_launcher(tokens: list[str]) -> tuple[list[str], dict[str, str], str, str]:
    """Remove env assignments and the launcher words; return (args, env, mode, launcher).

    mode: "serve" (``vllm serve``), "api" (``python -m vllm.entrypoints.openai.api_server``)
    or "bare" (arguments only, as given to the ``vllm/vllm-openai`` image); launcher names the
    program argparse reports errors as (see _prog)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(tokens) and (tokens[i] in ("env", "exec", "sudo", "nohup") or _ENV_ASSIGN.match(tokens[i])):
        if _ENV_ASSIGN.match(tokens[i]):
            key, value = tokens[i].split("=", 1)
            env[key] = value
        i += 1
    rest = tokens[i:]
    if len(rest) >= 2 and rest[0].rsplit("/", 1)[-1] == "vllm" and rest[1] == "serve":
        return rest[2:], env, "serve", "vllm"
    if len(rest) >= 3 and rest[0].rsplit("/", 1)[-1].startswith("python") and rest[1] == "-m":
        if rest[2] in ("vllm.entrypoints.cli.main", "vllm") and len(rest) >= 4 and rest[3] == "serve":
            return rest[4:], env, "serve", "cli-main" if rest[2] != "vllm" else "vllm"
        return rest[3:], env, "api", "api"
    return rest, env, "bare", "vllm"


def launcher_and_arguments(tokens: list[str]) -> tuple[list[str], list[str]]:
    """(the words that start the server — ``VAR=value`` assignments, ``env``, ``vllm serve``, ``python
    -m vllm.entrypoints.openai.api_server`` —, the server's arguments after them)."""
    args = _strip_launcher(list(tokens))[0]
    return list(tokens[:len(tokens) - len(args)]), list(args)


def _err(reason: str, release: Release, key: Optional[str] = None) -> InputError:
    """Something kvguard does not model about this command line: it cannot decide."""
    return InputError(f"{reason} (vLLM {release.version})", source="<argv>", key=key)


def _raises(exc_type: str, message: str, release: Release, key: Optional[str] = None,
            words: tuple[str, ...] = ()) -> ArgparseRefusal:
    """An exception FlexibleArgumentParser raises before argparse runs (a traceback in vLLM);
    ``words``: what of the command line its message quotes."""
    return ArgparseRefusal(exc_type, message, vllm_version=str(release.version), check="FlexibleArgumentParser",
                           key=key, words=words)


class _ArgparseError(Exception):
    """argparse's ``error(message)``; ``top``: raised by the top-level ``vllm`` parser (unrecognized
    arguments of ``vllm serve`` are reported there), else by the parser that parses the options;
    ``words``: the command-line words (tokens, values) the message quotes — option strings of the
    release's own table are not among them."""

    def __init__(self, message: str, key: Optional[str] = None, *, top: bool = False,
                 hints: tuple[str, ...] = (), words: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.key = key
        self.top = top
        self.hints = hints
        self.words = tuple(words)


# ---------------------------------------------------------------------------
# FlexibleArgumentParser.parse_args: the pre-processing before argparse


def _load_config(path: str, table: dict[str, _Opt], release: Release, mode: str) -> list[str]:
    extension = path.split(".")[-1]
    if extension not in ("yaml", "yml"):
        message = f"Config file must be of a yaml/yml type. {extension} supplied"
        if not release.within("0.11.1"):
            # to 0.11.0 the ValueError gets a %-template (its continued literal keeps the next line's 30 spaces) and
            # the extension as two arguments: str() of the exception is the tuple's
            message = str(("Config file must be of a yaml/yml type." + " " * 30 + "%s supplied", extension))
        raise _raises("ValueError", message, release, "--config", words=(extension,))
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a test dependency
        raise InputError("reading --config needs PyYAML (pip install 'kvguard[yaml]')", source=path) from None
    try:
        with open(path, encoding="utf-8") as fh:
            config = yaml.safe_load(fh)
    except OSError as exc:
        raise InputError(f"cannot read the --config file: {exc.strerror or exc}", source=path) from None
    except yaml.YAMLError as exc:
        raise InputError(f"the --config file is not valid YAML: {exc}", source=path) from None
    if not isinstance(config, dict):
        raise InputError("the --config file must hold a mapping of option names to values", source=path)
    out: list[str] = []
    for key, value in config.items():
        key = str(key)
        if isinstance(value, bool):
            if value:
                out.append("--" + key)
            elif release.within("0.28.0") and mode != "serve" and f"--no-{key}" in table:
                # vLLM looks the --no- form up in the parser parse_args was called on: for
                # `vllm serve` that is the top-level parser, which has none, so false is dropped
                out.append(f"--no-{key}")
        elif isinstance(value, list):
            if value:
                out.append("--" + key)
                out.extend(_yaml_str(item) for item in value)
        elif isinstance(value, dict) and release.within("0.16.0"):
            out += ["--" + key, json.dumps(value)]
        else:
            out += ["--" + key, _yaml_str(value)]
    return out


def _yaml_str(value: Any) -> str:
    return str(value)  # what vLLM does: str() of the loaded YAML value


def _flexible(args: list[str], mode: str, table: dict[str, _Opt], release: Release) -> list[str]:
    """FlexibleArgumentParser.parse_args up to ``super().parse_args`` (without the leading "serve")."""
    serve = mode == "serve"
    if serve:
        if not release.within("0.11.1"):
            if "--model" in args:
                raise _raises("ValueError", "With `vllm serve`, you should provide the model as a positional "
                              "argument or in a config file instead of via the `--model` option.", release, "--model")
        else:
            idx = next((i for i, a in enumerate(args) if re.match(r"^--model(=.+|$)", a)), None)
            if idx is not None:
                if args[idx] == "--model":
                    if idx + 1 >= len(args):
                        raise _raises("IndexError", "list index out of range", release, "--model")
                    args = [args[idx + 1], *args[:idx], *args[idx + 2:]]
                else:
                    args = [args[idx][len("--model="):], *args[:idx], *args[idx + 1:]]
        if (release.within("0.17.0") and args and args[0].startswith("-")
                and not any(re.match(r"^--config(=.+|$)", a) for a in args)
                and any(re.match(r"^--served[-_]model[-_]name(=.+|$)", a) for a in args)):
            raise _raises("ValueError", "`model` should be provided as the first positional argument when using "
                          "`vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.", release, "--served-model-name")
    if "--config" in args:
        if args.count("--config") > 1:
            raise _raises("AssertionError", "More than one config file specified!", release, "--config")
        index = args.index("--config")
        if index == len(args) - 1:
            raise _raises("ValueError", "No config file specified! Please check your command-line arguments.",
                          release, "--config")
        config_args = _load_config(args[index + 1], table, release, mode)
        full = (["serve"] if serve else []) + args
        index += 1 if serve else 0
        if full[0].startswith("-"):
            full = config_args + full[0:index] + full[index + 2:]
        elif full[0] == "serve":
            model_in_cli = len(full) > 1 and not full[1].startswith("-")
            model_in_config = "--model" in config_args
            if not model_in_cli and not model_in_config:
                raise _raises("ValueError", "No model specified! Please specify model either as a positional "
                              "argument or in a config file.", release, "--config")
            if model_in_cli:
                full = full[:2] + config_args + full[2:index] + full[index + 2:]
            else:
                full = full[:1] + config_args + full[1:index] + full[index + 2:]
        else:
            full = full[:1] + config_args + full[1:index] + full[index + 2:]
        args = full[1:] if serve else full

    def dashes(key: str) -> str:
        # everything between the first "--" and the first "." (the regex (?<=--)[^\.]*)
        head, dot, tail = key[2:].partition(".")
        return "--" + head.replace("_", "-") + dot + tail

    if release.within("0.12.0"):
        o_style = "level"
    elif release.within("0.11.1"):
        o_style = "mode"
    else:
        o_style = "level0"
    processed: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--help=") and release.within("0.11.0"):
            processed.append("--help")
        elif arg.startswith("--"):
            if "=" in arg:
                key, text = arg.split("=", 1)
                processed.append(f"{dashes(key)}={text}")
            else:
                processed.append(dashes(arg))
        elif arg.startswith("-O") and arg != "-O" and (o_style == "level" or arg[2] != "."):
            level = arg[3:] if arg[2] == "=" else arg[2:]
            if o_style == "level":
                processed += ["--optimization-level", level]
            else:
                processed.append(f"-O.{'mode' if o_style == 'mode' else 'level'}={level}")
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            processed.append("--optimization-level" if o_style == "level" else
                             ("-O.mode" if o_style == "mode" else "-O.level"))
        else:
            processed.append(arg)

    # dotted arguments: -cc.mode 3, --compilation-config.pass_config.x=true, -O.level=3
    delete: set[int] = set()
    dict_args: dict[str, dict] = {}
    for i, arg in enumerate(processed):
        if i in delete:
            continue
        if arg.startswith("--") and "." not in arg:
            continue
        if arg.startswith("-") and "." in arg:
            if "=" in arg:
                arg, value_str = arg.split("=", 1)
                if "." not in arg:
                    continue            # the '.' was in the value
            else:
                if i + 1 >= len(processed):
                    raise _raises("IndexError", "list index out of range", release, arg)
                value_str = processed[i + 1]
                delete.add(i + 1)
            if arg.endswith("+"):
                arg = arg[:-1]
                value: Any = value_str.split(",")
            else:
                try:
                    value = json.loads(value_str)
                except ValueError:
                    value = value_str
            key, *keys = arg.split(".")
            nested: Any = value
            for k in reversed(keys):
                nested = {k: nested}
            _merge(dict_args.setdefault(key, {}), nested)
            delete.add(i)
    processed = [a for i, a in enumerate(processed) if i not in delete]
    for key, value in dict_args.items():
        processed += [key, json.dumps(value)]
    return processed


def _merge(original: dict, update: dict) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            original[k] = v


# ---------------------------------------------------------------------------
# argparse (CPython 3.11 ArgumentParser._parse_known_args for one parser)


def _classify(tok: str, table: dict[str, _Opt], release: Release):
    """None for a positional, else (option string or None if unknown, explicit value or None)."""
    if not tok or tok[0] != "-":
        return None
    if tok in table:
        return tok, None
    if len(tok) == 1:
        return None
    explicit: Optional[str]
    if "=" in tok:
        name, explicit = tok.split("=", 1)
        if name in table:
            return name, explicit
    matches: list[tuple[str, Optional[str]]] = []
    if tok[1] == "-":
        if "=" in tok:
            prefix, explicit = tok.split("=", 1)
        else:
            prefix, explicit = tok, None
        matches = [(o, explicit) for o in table if o.startswith(prefix)]
    else:
        short, attached = tok[:2], tok[2:]
        for o in table:
            if o == short:
                matches.append((o, attached))
            elif o.startswith(tok):
                matches.append((o, None))
    if len(matches) > 1:
        raise _ArgparseError(f"ambiguous option: {tok} could match {', '.join(o for o, _ in matches)}", tok,
                             words=(tok,))
    if matches:
        return matches[0]
    if _NEGATIVE_NUMBER.match(tok) or " " in tok:
        return None
    return None, None


def _dashes(token: str) -> str:
    """FlexibleArgumentParser's underscore-to-dash rewrite of a ``--long_option`` (before any '=' or '.')."""
    head, eq, value = token.partition("=")
    name, dot, rest = head[2:].partition(".")
    return "--" + name.replace("_", "-") + dot + rest + eq + value


def option_spans(args: list[str], release: Release) -> tuple[dict[str, list[tuple[int, int, str]]], int]:
    """Where the release's options are set in ``args`` (a launch's arguments, as written):
    ``{dest: [(start, end, option string), …]}`` in order, ``args[start:end]`` being the option and
    its values, and the index of a ``--`` that ends the options (``len(args)`` if none).

    A word that names no option of the release, or names one ambiguously, is passed over; a dotted
    argument without ``=`` (``-cc.mode 3``) takes the next word as its value, as
    FlexibleArgumentParser reads it."""
    table = option_table(release)
    spans: dict[str, list[tuple[int, int, str]]] = {}
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--":
            return spans, i
        if not tok.startswith("-") or len(tok) < 2 or _NEGATIVE_NUMBER.match(tok):
            i += 1
            continue
        if "." in tok and "=" not in tok:
            i += 2                       # a dotted argument and its value (a JSON edit of a config option)
            continue
        try:
            found = _classify(_dashes(tok) if tok.startswith("--") else tok, table, release)
        except _ArgparseError:           # ambiguous: the parser would refuse it, no option is set here
            found = None
        if not found or found[0] is None:
            i += 1
            continue
        opt, explicit = found
        spec = table[opt]
        end = i + 1
        if explicit is None and spec.nargs != 0:
            if spec.nargs == 1:
                end = i + 2
            elif spec.nargs == "?":
                end = i + 2 if i + 1 < len(args) and not args[i + 1].startswith("-") else i + 1
            elif isinstance(spec.nargs, int):
                end = i + 1 + spec.nargs
            else:  # "*" / "+": the values up to the next option
                while end < len(args) and not args[end].startswith("-"):
                    end += 1
        spans.setdefault(spec.dest, []).append((i, min(end, len(args)), opt))
        i = max(end, i + 1)
    return spans, len(args)


#: FlexibleArgumentParser.error (0.29.0+) appends this to "unrecognized arguments" naming --task
#: on ``vllm serve`` (the option was removed; its uses moved to --runner / --convert)
_TASK_HINT_SINCE = "0.29.0"
_TASK_HINT = ("\n\nHint: --task is not a vllm serve option. For embedding, reranking, or reward models, use "
              "--runner pooling. To adapt a generative model for pooling, also use --convert embed, "
              "--convert classify, or --convert reward.")
_TASK_OPTION = re.compile(r"^--task(=.+|$)")
_TASK_IN_MESSAGE = re.compile(r"(^|\s)--task(=|\s|$)")


#: options that vLLM plugin packages add to ``vllm serve`` (name -> the package): plain vLLM refuses them as
#: unrecognized, the plugin serves them, and kvguard cannot tell which is installed
PLUGIN_OPTIONS = {"--omni": "vllm-omni"}


def _plugin_option(words: tuple, table: dict) -> "tuple[str, str] | None":
    for word in words or ():
        name = str(word).split("=", 1)[0]
        if name in PLUGIN_OPTIONS and name not in table:
            return name, PLUGIN_OPTIONS[name]
    return None


def _unrecognized(extras: list[str], release: Release) -> _ArgparseError:
    """argparse's "unrecognized arguments", every extra token in order as vLLM prints them, with
    kvguard's hints about the first unknown option (kept apart from vLLM's text)."""
    options = [t.split("=", 1)[0] for t in extras if t.startswith("-") and len(t) > 1]
    name = options[0] if options else extras[0]
    return _ArgparseError("unrecognized arguments: " + " ".join(extras), name, top=True,
                          hints=_hints(name, bool(options), release), words=tuple(extras))


def _hints(name: str, is_option: bool, release: Release) -> tuple[str, ...]:
    first, last = _releases_with(name)
    if first is not None and release.version < parse_version(first):
        return (f"vLLM {release.version} has no {name}: it appeared in {first}",)
    if last is not None and release.version > parse_version(last):
        return (f"vLLM {release.version} has no {name}: it was removed after {last}",)
    if not is_option:
        return (f"vLLM {release.version} takes one positional model: {name[:200]!r} is extra",)
    import difflib

    spelled = "--" + name.lstrip("-").replace("_", "-") if name.startswith("--") else name
    candidates = [o for o in option_table(release) if not o.startswith("--no-")]
    close = difflib.get_close_matches(spelled[:200], candidates, n=1, cutoff=0.75)
    if close:
        return (f"did you mean {close[0]}? (kvguard's suggestion from vLLM {release.version}'s options; "
                "vLLM itself prints none)",)
    return ()


def _argparse(args: list[str], table: dict[str, _Opt], release: Release) -> tuple[list, list[str]]:
    """The actions ``(option, values, token, converted value)`` in order and the positional model,
    as argparse takes them: arity, type and choices checked option by option in command-line order,
    unknown tokens reported last (all of them) — the order of argparse's own errors."""
    kinds: list = []            # per token: "A" | "-" | ("O", option, explicit)
    after_dashes = False
    for tok in args:
        if after_dashes:
            kinds.append("A")
        elif tok == "--":
            kinds.append("-")
            after_dashes = True
        else:
            found = _classify(tok, table, release)
            kinds.append("A" if found is None else ("O",) + found)
    actions: list[tuple[str, list[str], str, Any]] = []
    positionals: list[str] = []
    extras: list[str] = []
    i = 0
    while i < len(args):
        kind = kinds[i]
        if kind == "-":
            i += 1
            continue
        if kind == "A":
            # the first one is the model; argparse reports any other in place among the extras
            (extras if positionals else positionals).append(args[i])
            i += 1
            continue
        _, opt, explicit = kind
        if opt is None:
            extras.append(args[i])
            i += 1
            continue
        spec = table[opt]
        nargs = spec.nargs
        if spec.action in ("_HelpAction", "_VersionAction"):
            raise _err(f"{opt} prints {'help' if spec.action == '_HelpAction' else 'the version'} and exits "
                       "(no launch)", release, opt)
        if explicit is not None:
            if nargs == 0:
                raise _ArgparseError(f"argument {spec.label(opt)}: ignored explicit argument {explicit!r}", opt,
                                     words=(explicit,))
            actions.append((opt, [explicit], args[i], _converted(spec, opt, [explicit], release)))
            i += 1
            continue
        j = i + 1
        values: list[str] = []
        if nargs == 1 or nargs == "?":
            if j < len(args) and kinds[j] == "A":
                values.append(args[j])
                j += 1
            elif nargs == 1:
                raise _ArgparseError(f"argument {spec.label(opt)}: expected one argument", opt)
        elif nargs in ("*", "+"):
            while j < len(args) and kinds[j] == "A":
                values.append(args[j])
                j += 1
            if nargs == "+" and not values:
                raise _ArgparseError(f"argument {spec.label(opt)}: expected at least one argument", opt)
        elif isinstance(nargs, int) and nargs > 1:
            while j < len(args) and kinds[j] == "A" and len(values) < nargs:
                values.append(args[j])
                j += 1
            if len(values) < nargs:
                raise _ArgparseError(f"argument {spec.label(opt)}: expected {nargs} arguments", opt)
        actions.append((opt, values, args[i], _converted(spec, opt, values, release)))
        i = j
    if extras:
        raise _unrecognized(extras, release)
    return actions, positionals


#: the speculative decoding options kvguard reads (kvguard.speculative)
_SPECULATIVE_DESTS = ("speculative_config", "spec_method", "spec_model", "spec_tokens")
#: ``optional_type(json.loads)``'s error names the function object it was given, at the address it has
#: in the vLLM process: kvguard cannot know that address and prints ``0x…`` in its place
_LOADS_REPR = "<function loads at 0x…>"


def _speculative_value(spec: _Opt, opt: str, values: list[str]) -> Any:
    """The value argparse stores for a speculative option (``type`` and ``choices`` applied)."""
    value = values[0]   # nargs == 1 (the caller's test): the parse loop took exactly one word or raised
    if spec.dest == "speculative_config":
        if value in ("", "None"):
            return None
        try:
            return json.loads(value)
        except ValueError:
            raise _ArgparseError(f"argument {spec.label(opt)}: Value {value} cannot be converted to {_LOADS_REPR}.",
                                 opt, words=(value,)) from None
    if spec.type == "int":
        try:
            out: Any = int(value)
        except (TypeError, ValueError):
            raise _ArgparseError(f"argument {spec.label(opt)}: invalid int value: {value!r}", opt,
                                 words=(value,)) from None
    else:  # optional_type(str)
        out = None if value in ("", "None") else value
    if spec.choices is not None and out not in spec.choices:
        raise _invalid_choice(spec, opt, out, value)
    return out


def _converted(spec: _Opt, opt: str, values: list[str], release: Release) -> Any:
    """argparse's ``type`` and ``choices`` checks of one option's values: the converted value of
    a launch flag kvguard reads, None for the others (passed over, their values checked where
    kvguard knows the ``type``)."""
    if spec.dest in _SPECULATIVE_DESTS and spec.nargs == 1:
        return _speculative_value(spec, opt, values)
    if spec.fields is not None and values:
        _decline_unvouched_config(values[0], spec, opt, release)
    flag = _FIELDS.get(spec.dest)
    if flag is None or spec.dest in ("model", "revision"):
        try:
            _check_value(spec, opt, values, release)
        except _OutOfBounds as exc:     # pydantic's refusal comes after argparse, if at all: parse_serve decides
            return _OutOfBounds(exc.reason, exc.value)
        return None
    if spec.action in _STORING_ACTIONS and spec.nargs == 1:
        return _convert(flag, spec, opt, values[0], release)
    if spec.action in _STORING_ACTIONS and spec.nargs == "+" and flag.kind in _WORDS_KINDS:
        return join_list(_convert(flag, spec, opt, value, release) for value in values)
    return None


#: argparse actions that store the value as given: argparse's own, and 0.33.0's --log-config-file action (a
#: deprecation warning, then the same store)
_STORING_ACTIONS = frozenset({"_StoreAction", "DeprecatedLogConfigFileAction"})


def _invalid_choice(spec: _Opt, opt: str, value: Any, word: str) -> _ArgparseError:
    """``value``: the converted value argparse quotes; ``word``: the command-line word it came from."""
    return _ArgparseError(f"argument {spec.label(opt)}: invalid choice: {value!r} (choose from "
                          f"{', '.join(repr(c) for c in spec.choices or ())})", opt, words=(word,))


def _convert(flag: Flag, spec: _Opt, opt: str, value: str, release: Release) -> Any:
    """argparse's ``type`` then ``choices`` check for a modeled option."""
    kind = spec.type or "str"
    base: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "str": str}
    convert: Callable[[str], Any]
    if kind in base:
        convert = base[kind]
    elif kind == "_optional_type":          # vllm.engine.arg_utils.optional_type(<the field's type>)
        def optional(text: str) -> Any:
            return None if text in ("", "None") else base.get(_WORDS_KINDS.get(flag.kind, flag.kind), str)(text)
        convert = optional
    elif kind in _LENGTH_TYPES:
        return _length_value(spec, opt, value, release)
    elif kind == "bool":                    # argparse's type=bool (0.11.x's --guided-decoding-*): any word but "" is True
        return bool(value)
    elif kind == "parse_reasoning_parser":  # 0.33.0: "none" (any case) is no parser
        def reasoning(text: str) -> str:
            return "" if text.lower() == "none" else text
        convert = reasoning
    elif kind == "<lambda>" and spec.dest in _BACKEND_NAME_DESTS:
        convert = _backend_name
    elif kind == "<lambda>" and spec.dest == "device_ids":
        convert = _device_ids
    elif kind in _WRAPPERS and flag.field == "limit_mm_per_prompt":
        # checked as for an option kvguard passes over, kept as given: only whether it is set is read
        _check_wrapped(spec, opt, [value], release)
        return value
    else:
        raise _err(f"argument {opt}: kvguard does not model the type {kind!r} of this option", release, opt)
    try:
        out = convert(value)
    except ValueError:
        if kind == "_optional_type":   # optional_type's own ArgumentTypeError names the field's type
            raise _ArgparseError(f"argument {spec.label(opt)}: Value {value} cannot be converted to "
                                 f"<class '{_WORDS_KINDS.get(flag.kind, flag.kind) if _WORDS_KINDS.get(flag.kind, flag.kind) in base else 'str'}'>.", opt,
                                 words=(value,)) from None
        raise _ArgparseError(f"argument {spec.label(opt)}: invalid {kind} value: {value!r}", opt,
                             words=(value,)) from None
    if spec.choices is not None and out not in spec.choices:
        raise _invalid_choice(spec, opt, out, value)
    return out


def _device_ids(text: str) -> str:
    """--device-ids as the release's argparse type reads it (0.24.0+): the comma-separated items stripped, an item of
    digits only an integer (int() may still refuse a digit that is no decimal one: argparse's error), kept NUL-joined
    as the items' text, from which the integers are known again (their text is digits only, a UUID's never is)."""
    items = [part.strip() for part in text.split(",")]
    return "\0".join(str(int(item)) if item.isdigit() else item for item in items)


#: the list flags kvguard reads (nargs "+"), by the type of their items
_WORDS_KINDS = {"words": "str", "int_words": "int"}


#: vLLM's ``human_readable_int`` (to 0.13.0) / ``human_readable_int_or_auto`` (0.14.0+): "128k", "1M", -1
_LENGTH_TYPES = ("human_readable_int", "human_readable_int_or_auto")


def _length_value(spec: _Opt, opt: str, value: str, release: Release) -> int:
    """argparse's ``type`` call of a human-readable integer: a ValueError is argparse's "invalid
    <type> value", an ArgumentTypeError its own message (kvguard.length.parse_length)."""
    import argparse

    from ..length import parse_length

    try:
        return parse_length(value, release, or_auto=spec.type == "human_readable_int_or_auto")
    except argparse.ArgumentTypeError as exc:
        raise _ArgparseError(f"argument {spec.label(opt)}: {exc}", opt, words=(value,)) from None
    except (TypeError, ValueError):
        raise _ArgparseError(f"argument {spec.label(opt)}: invalid {spec.type} value: {value!r}", opt,
                             words=(value,)) from None


#: argparse ``type`` callables of options kvguard does not model whose failures it reproduces
#: (vLLM's optional_type / parse_type: _check_wrapped; parse_dataclass: _decline_unvouched_config)
_PLAIN_TYPES: dict[str, Callable[[str], Any]] = {"str": str, "int": int, "float": float, "loads": json.loads}


#: the kernel-backend options whose argparse ``type`` is vLLM's name normaliser (0.17.0+: lower case,
#: dashes to underscores, then the choices check) — other ``<lambda>`` types are not this one
_BACKEND_NAME_DESTS = frozenset({"moe_backend", "linear_backend", "sparse_indexer_topk_backend"})


def _backend_name(text: str) -> str:
    """What the release's parser makes of a kernel-backend name before checking its choices."""
    return text.lower().replace("-", "_")


def _check_value(spec: _Opt, opt: str, values: list[str], release: Release) -> None:
    """argparse's ``type`` and ``choices`` check for an option kvguard passes over: a value the
    release's parser cannot convert is an argparse error there, so it is one here."""
    if spec.action == "LoRAParserAction":
        _check_lora_modules(opt, values, release)
        return
    if spec.type in _WRAPPERS:
        _check_wrapped(spec, opt, values, release)
        return
    convert = _PLAIN_TYPES.get(spec.type or "str")
    if spec.type == "<lambda>" and spec.dest in _BACKEND_NAME_DESTS:
        convert = _backend_name
    if convert is None and spec.type not in _LENGTH_TYPES:
        return
    beyond: list[_OutOfBounds] = []
    for value in values:
        if "$" in value or (value.startswith("<") and value.endswith(">")):
            continue  # unexpanded shell text or a documentation placeholder (`--port $PORT`, `<PORT>`)
        if convert is None:   # --max-num-batched-tokens 8k and the other human-readable integers
            _check_bounds(spec, opt, _length_value(spec, opt, value, release), value, release, beyond)
            continue
        try:
            out = convert(value)
        except ValueError:
            raise _ArgparseError(f"argument {spec.label(opt)}: invalid {spec.type or 'str'} value: {value!r}",
                                 opt, words=(value,)) from None
        if spec.choices is not None and out not in spec.choices:
            raise _invalid_choice(spec, opt, out, value)
        _check_bounds(spec, opt, out, value, release, beyond)
    if beyond:       # argparse converts every word first: a later word's type error comes before the bound's
        raise beyond[0]


#: the keys every release's LoRAModulePath takes (a dataclass: a missing or unknown key is Python's TypeError)
_LORA_MODULE_KEYS = frozenset({"name", "path", "base_model_name"})


def _check_lora_modules(opt: str, values: list[str], release: Release) -> None:
    """``--lora-modules``' action (vllm/entrypoints/openai/cli_args.py, from 0.30.0 entrypoints/common): each word
    is ``name=path`` or a JSON object of LoRAModulePath's fields.  A word that is no JSON is the parser's error; a
    ``name=path`` word with another ``=`` before 0.30.0 (which split on every ``=``) and JSON that is not an object
    of the dataclass's fields stop with Python's own message (unpacking, ``**``, the dataclass's ``__init__``),
    whose words differ between Python versions, so kvguard declines them."""
    splits_once = release.within("0.30.0")
    for word in values:
        if word in ("", "None") or "$" in word or (word.startswith("<") and word.endswith(">")):
            continue
        if "=" in word and "," not in word:
            if splits_once or word.count("=") == 1:
                continue
            raise Undecidable(f"vLLM {release.version} splits {opt} {word!r} at every '=' and stops with Python's "
                              "unpacking ValueError, whose message depends on the Python version")
        try:
            data = json.loads(word)
        except ValueError:
            raise _ArgparseError(f"Invalid JSON format for --lora-modules: {word}", opt, words=(word,)) from None
        if not (isinstance(data, dict) and {"name", "path"} <= data.keys() <= _LORA_MODULE_KEYS):
            raise Undecidable(f"vLLM {release.version} builds a LoRAModulePath from {opt} {word!r}, and Python "
                              "refuses it (TypeError, \"Invalid fields for --lora-modules\") in words that depend "
                              "on the Python version and the release's fields, which kvguard does not quote")


#: vLLM's wrappers of an argparse type X (vllm/engine/arg_utils.py): ``optional_type(X)`` ("" and "None" are None)
#: and ``parse_type(X)``; X's ValueError is their ArgumentTypeError "Value V cannot be converted to X."
_WRAPPERS = ("_optional_type", "_parse_type")
#: the X (the spec's ``inner``, as the error names it) kvguard converts with; other X are passed over unchecked
_INNER_TYPES: dict[str, Callable[[str], Any]] = {"<class 'int'>": int, "<class 'float'>": float, "<class 'str'>": str,
                                                 _LOADS_REPR: json.loads}
_HUMAN_INT_REPR = "<function human_readable_int at 0x…>"


def _check_wrapped(spec: _Opt, opt: str, values: list[str], release: Release) -> None:
    """argparse's ``type`` (optional_type(X) / parse_type(X)) and ``choices`` check for an option kvguard passes
    over, then the field's declared constraints.  A JSON value (X json.loads) that is no object is declined: the
    config field refuses it later with pydantic's message."""
    if spec.inner == _DICT_OR_STR_REPR:
        _check_dict_or_str(spec, opt, values, release)
        return
    if spec.inner not in _INNER_TYPES and spec.inner != _HUMAN_INT_REPR:
        return
    beyond: list[_OutOfBounds] = []
    for value in values:
        if "$" in value or (value.startswith("<") and value.endswith(">")):
            continue  # unexpanded shell text or a documentation placeholder
        if spec.type == "_optional_type" and value in ("", "None"):
            out: Any = None
        else:
            out = _wrapped_value(spec, opt, value, release)
            if spec.dest == "default_mm_loras" and out is not None and not (
                    isinstance(out, dict) and all(isinstance(v, str) for v in out.values())):
                # LoRAConfig (dict[str, str]) validates it only with --enable-lora, after create_engine_config's
                # refusal of any such value for a text-only model (kvguard.rules.late_options): parse_serve decides
                raise _OutOfBounds(f"vLLM {release.version} validates {spec.label(opt)}={value!r} into LoRAConfig "
                                   "(a mapping of modality names to paths), whose refusal names the host's pydantic "
                                   "version, which kvguard does not quote")
            if spec.inner == _LOADS_REPR and not isinstance(out, dict) and spec.dest != "default_mm_loras":
                raise Undecidable(
                    f"vLLM {release.version} reads {spec.label(opt)}={value!r} as JSON and validates it into a config "
                    "field that takes an object: a value of another JSON type is refused there with pydantic's "
                    "message (naming the host's pydantic version), which kvguard does not quote")
        if spec.choices is not None and out not in spec.choices:
            raise _invalid_choice(spec, opt, out, value)
        _check_bounds(spec, opt, out, value, release, beyond)
    if beyond:       # argparse converts every word first: a later word's type error comes before the bound's
        raise beyond[0]


#: 0.10.2's --override-pooler-config: optional_type(union_dict_and_str)
_DICT_OR_STR_REPR = "<function union_dict_and_str at 0x…>"


def _check_dict_or_str(spec: _Opt, opt: str, values: list[str], release: Release) -> None:
    """``union_dict_and_str`` keeps a value not wrapped in braces as the string itself, which the config field (a
    mapping or a config object) refuses when ModelConfig is built, with pydantic's message naming the host's
    pydantic version: declined.  A braced value is JSON, passed over here."""
    for value in values:
        if value in ("", "None") or "$" in value or (value.startswith("<") and value.endswith(">")):
            continue
        if re.match(r"(?s)^\s*{.*}\s*$", value) is None:
            raise _OutOfBounds(
                f"vLLM {release.version} keeps {spec.label(opt)}={value!r} (no JSON object) as a string, which "
                "ModelConfig's field, a mapping, refuses with pydantic's ValidationError naming the host's pydantic "
                "version, which kvguard does not quote")


def _wrapped_value(spec: _Opt, opt: str, value: str, release: Release) -> Any:
    import argparse

    try:
        if spec.inner == _HUMAN_INT_REPR:
            from ..length import parse_length

            return parse_length(value, release, or_auto=False)
        return _INNER_TYPES[spec.inner or ""](value)
    except argparse.ArgumentTypeError as exc:     # human_readable_int's own message, passed through as is
        raise _ArgparseError(f"argument {spec.label(opt)}: {exc}", opt, words=(value,)) from None
    except ValueError:
        raise _ArgparseError(f"argument {spec.label(opt)}: Value {value} cannot be converted to {spec.inner}.", opt,
                             words=(value,)) from None


def _check_bounds(spec: _Opt, opt: str, out: Any, word: str, release: Release, beyond: list) -> None:
    """A converted value outside the declared constraints of its config field (``--stream-interval 0``), added to
    ``beyond``: the release refuses it with pydantic's ValidationError when it builds that config, after argparse
    (kvguard renders it for the fields of _BOUNDED_CARRIERS, declines the others)."""
    if spec.bounds is None:
        return
    from .config_values import option_value_problem

    expected = option_value_problem(spec.bounds, out)
    if expected is not None and not beyond:
        beyond.append(_OutOfBounds(
            f"vLLM {release.version} validates {spec.label(opt)}={word!r} into its config class, whose field refuses "
            f"it ({expected}) with pydantic's ValidationError naming the host's pydantic version, which kvguard does "
            "not quote", out))


class _OutOfBounds(Exception):
    """A passed-over option's value outside its config field's declared bounds: the release refuses it only when
    it builds that config, after argparse (kvguard.launch.argv.parse_serve decides).  ``value``: the value as
    argparse made it (None where the refusal is not a bound's)."""

    def __init__(self, reason: str, value: Any = None):
        super().__init__(reason)
        self.reason = reason
        self.value = value


#: the config fields kvguard otherwise passes over whose pydantic bounds it renders, with the layout field that
#: carries a value given outside the field's bounds: SchedulerConfig's (kvguard.rules.scheduler field_bounds),
#: CacheConfig's (kvguard.rules.cache_config field_bounds), ParallelConfig's (kvguard.rules.table's FIELD rows) and
#: ObservabilityConfig's (kvguard.rules.observability metrics_sample_bound)
_BOUNDED_CARRIERS = {"max_num_scheduled_tokens": "max_num_scheduled_tokens_out_of_bounds",
                     "max_num_queued_reqs": "max_num_queued_reqs_out_of_bounds",
                     "max_num_queued_tokens": "max_num_queued_tokens_out_of_bounds",
                     "watermark": "watermark_out_of_bounds",
                     "prefill_schedule_interval": "prefill_schedule_interval_out_of_bounds",
                     "stream_interval": "stream_interval_out_of_bounds",
                     "prefix_match_unit": "prefix_match_unit_out_of_bounds",
                     "prefix_cache_retention_interval": "prefix_cache_retention_interval_out_of_bounds",
                     "mamba_block_size": "mamba_block_size_out_of_bounds",
                     "data_parallel_rpc_port": "data_parallel_rpc_port_out_of_bounds",
                     "dp_sync_interval": "dp_sync_interval_out_of_bounds",
                     "max_parallel_loading_workers": "max_parallel_loading_workers_out_of_bounds",
                     "elastic_ep_max_dp_size": "elastic_ep_max_dp_size_out_of_bounds",
                     "kv_cache_metrics_sample": "kv_cache_metrics_sample_out_of_bounds",
                     # ModelConfig's (the MC_FIELD rows), LoadConfig's and VllmConfig's (kvguard.rules.late_bounds)
                     "max_logprobs": "max_logprobs_out_of_bounds",
                     "safetensors_prefetch_num_threads": "safetensors_prefetch_num_threads_out_of_bounds",
                     "safetensors_prefetch_block_size": "safetensors_prefetch_block_size_out_of_bounds",
                     "shutdown_timeout": "shutdown_timeout_out_of_bounds",
                     # LoRAConfig's (kvguard.rules.lora_config field_bounds), kept with --enable-lora only
                     "max_loras": "lora_max_loras_out_of_bounds",
                     "max_lora_cls_labels": "lora_max_lora_cls_labels_out_of_bounds"}
#: the carriers of LoRAConfig's bounds: LoRAConfig is built with --enable-lora only
_LORA_CARRIERS = ("lora_max_loras_out_of_bounds", "lora_max_lora_cls_labels_out_of_bounds")


def _human_readable_zero(values: list[str], release: Release) -> bool:
    """Whether an optional human-readable integer argparse has accepted is 0 ("0", "0k", …; "None" is not)."""
    from ..length import parse_length

    if not values or values[0] in ("", "None"):
        return False
    try:
        return parse_length(values[0], release, or_auto=False) == 0
    except (TypeError, ValueError):      # unexpanded shell text or a placeholder, passed over unchecked
        return False


#: the options whose config the release builds only for some launches, by the config field (``d``) they name:
#: LoRAConfig only with --enable-lora (EngineArgs.create_engine_config, 0.10.2-0.33.0), MultiModalConfig only for a
#: model whose class supports multimodal input (ModelConfig.__post_init__, 0.11.0-0.33.0; kvguard.rules.table's
#: mc_multimodal_values decides with the model's facts)
_LORA_DESTS = frozenset({"max_loras", "max_lora_cls_labels", "max_lora_rank", "max_cpu_loras", "lora_dtype",
                         "default_mm_loras", "fully_sharded_loras", "lora_target_modules"})
#: the LoRAConfig numbers kvguard.rules.lora_config checks, by option dest: the layout field carrying each
_LORA_NUMBERS = {"max_loras": "lora_max_loras", "max_cpu_loras": "lora_max_cpu_loras",
                 "max_lora_rank": "lora_max_lora_rank", "lora_extra_vocab_size": "lora_extra_vocab_size"}
_MULTIMODAL_DESTS = frozenset({"limit_mm_per_prompt", "enable_mm_embeds", "media_io_kwargs", "mm_processor_kwargs",
                               "mm_processor_cache_gb", "mm_processor_cache_type", "mm_hasher_algorithm",
                               "mm_shm_cache_max_object_size_mb", "mm_encoder_only", "mm_encoder_tp_mode",
                               "mm_encoder_attn_backend", "mm_encoder_attn_dtype", "mm_encoder_fp8_scale_path",
                               "mm_encoder_fp8_scale_save_path", "mm_encoder_fp8_scale_save_margin",
                               "interleave_mm_strings", "skip_mm_profiling", "video_pruning_rate",
                               "video_pruning_method", "mm_tensor_ipc", "mm_ipc_gpu_memory_gb",
                               "mm_device_do_normalize", "language_model_only"})


def _eplb_redundant(value: str, release: Release, opt: str) -> Optional[int]:
    """``num_redundant_experts`` of an ``--eplb-config`` JSON value (None: not given).  A value
    kvguard cannot read as vLLM's EPLBConfig would (its pydantic validation) is not guessed at."""
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise _err(f"argument {opt}: kvguard reads only a JSON object here", release, opt)
    if "num_redundant_experts" not in data:
        return None
    redundant = data["num_redundant_experts"]
    if isinstance(redundant, str) and redundant.isdigit():
        redundant = int(redundant)      # pydantic reads a string of digits as the int (lax mode)
    if type(redundant) is not int or redundant < 0:
        raise Undecidable(f"vLLM {release.version} takes num_redundant_experts={redundant!r} from {opt}, and "
                          "kvguard does not model what the engine does with it")
    return redundant


def _sets_moe_backend(value: str) -> bool:
    """Whether a ``--kernel-config`` value may set ``moe_backend`` (a value that is not a JSON object is
    vLLM's to refuse or read; kvguard cannot tell which, so it counts as setting it)."""
    try:
        data = json.loads(value)
    except ValueError:
        return True
    return not isinstance(data, dict) or "moe_backend" in data


def _json_key(value: str, key: str) -> Any:
    """What a config option's JSON object gives ``key`` (None: not given, null, or the text is no JSON object, which
    the parser has already declined where the option's config class refuses it)."""
    try:
        data = json.loads(value)
    except ValueError:
        return None
    return data.get(key) if isinstance(data, dict) else None


def _json_has(value: str, key: str) -> bool:
    """Whether a config option's JSON object names ``key`` at all (null included)."""
    try:
        data = json.loads(value)
    except ValueError:
        return False
    return isinstance(data, dict) and key in data


#: the values pydantic's lax mode reads as a bool (strings compared lower-case)
_PYDANTIC_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_PYDANTIC_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def _lax_bool(value: Any, release: Release, option: str) -> bool:
    """A bool field of a config option's JSON object as pydantic reads it; the parser has already vouched for the
    value, so anything else is a value kvguard cannot read (Undecidable rather than a guess)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _PYDANTIC_TRUE | _PYDANTIC_FALSE:
        return value.lower() in _PYDANTIC_TRUE
    raise Undecidable(f"vLLM {release.version} reads {option}'s configure_logging={value!r} as a bool, and kvguard "
                      "does not know which")


def _json_name(value: str, key: str) -> Optional[str]:
    """A name a config option's JSON object gives ``key`` (``--attention-config``'s and
    ``--structured-outputs-config``'s backend, the latter's reasoning parser), as text; None when not given."""
    name = _json_key(value, key)
    return None if name is None else str(name)


def _checked_part(data: dict, schema: dict) -> dict:
    """``data`` without the connector names kvguard does not check here (``kv_connector`` / ``ec_connector``, kind
    "any": ``str | None``, a string or null always fits; the connector is read later), at every depth; keys the
    class lacks stay, and so does any other value of a field of kind "any" (not vouched for: pydantic may refuse
    ``"ec_connector": true`` or a string where the field wants an object)."""
    kept = {}
    for key, value in data.items():
        kind = schema.get(key)
        if kind == "any" and key.endswith("_connector") and (value is None or isinstance(value, str)):
            continue
        kept[key] = _checked_part(value, kind) if isinstance(kind, dict) and isinstance(value, dict) else value
    return kept


#: the MultiModalConfig options kvguard keeps as given (a multimodal model's config compares them)
_MULTIMODAL_READ = frozenset({"mm_shm_cache_max_object_size_mb", "mm_processor_cache_type"})
#: the encoder-attention FP8 options MultiModalConfig's model validator compares (0.21.0+)
_MM_FP8_DESTS = ("mm_encoder_attn_dtype", "mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path")
#: --mm-tensor-ipc torch_shm on a multimodal model (0.19.0+): ModelConfig.verify_with_parallel_config refuses it with
#: a world size above 1 and VllmConfig.__post_init__ without VLLM_WORKER_MULTIPROC_METHOD=spawn; kvguard renders
#: neither (undecidable for a multimodal model: the only one whose MultiModalConfig carries it)
#: --enable-hc-sp with -tp above 1 (0.32.0+): ModelConfig.verify_with_parallel_config, first thing, refuses it off
#: CUDA (0.33.0: CUDA and ROCm), for a model class without SupportsHCSP (0.32.0 and 0.33.0 register none but the
#: qwen4_exp models) and with -pp above 1; kvguard renders none of these
_HC_SP_SINCE = "0.32.0"
_HC_SP_PROBLEM = ("--enable-hc-sp with -tp {tp}: vLLM {version}'s ModelConfig.verify_with_parallel_config refuses it "
                  "off CUDA, for a model class without SupportsHCSP or with -pp above 1 "
                  "(ValueErrors kvguard does not render)")
#: 0.19.0-0.26.x: ModelConfig.__post_init__, right after building MultiModalConfig, refuses --renderer-num-workers
#: above 1 while the processor cache is on (--mm-processor-cache-gb above 0, 4 by default); 0.27.0+ only for pooling
#: runners (not modelled here)
_RENDERER_WORKERS_RANGE = ("0.19.0", "0.26.0")
_RENDERER_WORKERS_PROBLEM = ("--renderer-num-workers {workers} with the multimodal processor cache on: vLLM {version}'s "
                             "ModelConfig refuses it for a multimodal model (a ValueError kvguard does not render)")
_TORCH_SHM_PROBLEM = ("--mm-tensor-ipc torch_shm: ModelConfig refuses it with more than one GPU (data, tensor or "
                      "pipeline parallel) and VllmConfig without VLLM_WORKER_MULTIPROC_METHOD=spawn (ValueErrors "
                      "kvguard does not render)")


def _mm_fp8_problem(given: dict[str, Optional[str]]) -> Optional[str]:
    """MultiModalConfig's model validator (vllm/config/multimodal.py ``_validate_multimodal_config``, 0.21.0-0.33.0)
    refuses a scale file or a save path without ``--mm-encoder-attn-dtype fp8``, and both together, right after the
    shared-memory size check; kvguard renders neither (undecidable for a multimodal model, the only one that builds
    the config).  ``given``: the last value of each option, None when unset ('' and 'None' read as unset, as
    ``optional_type`` does)."""
    scale, save = given.get("mm_encoder_fp8_scale_path"), given.get("mm_encoder_fp8_scale_save_path")
    if scale is None and save is None:
        return None
    if given.get("mm_encoder_attn_dtype") != "fp8":
        return ("MultiModalConfig refuses --mm-encoder-fp8-scale-path / --mm-encoder-fp8-scale-save-path without "
                "--mm-encoder-attn-dtype fp8 (a ValueError kvguard does not render)")
    if scale is not None and save is not None:
        return ("MultiModalConfig refuses --mm-encoder-fp8-scale-save-path with --mm-encoder-fp8-scale-path (a "
                "ValueError kvguard does not render)")
    return None


def _vouch_watermark(value: str, release: Release) -> None:
    """WatermarkConfig validates the object with pydantic (``key``, a non-negative int, is required; the algorithm's
    and PRF's names and the bounds of the rest are the release's): kvguard vouches only for ``{"key": N}``, N >= 0."""
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if isinstance(data, dict) and set(data) == {"key"} and type(data["key"]) is int and data["key"] >= 0:
        return
    raise Undecidable(
        f"vLLM {release.version} builds WatermarkConfig from --watermark-config={value!r}: kvguard vouches only for "
        "an object holding a non-negative integer key and nothing else (the config refuses a missing key or a value "
        "outside its fields' types and bounds with pydantic's message, naming the host's pydantic version)")


#: the config class each config option's value is validated into, per release (tests/upstream/argv_runner.py
#: --dump-titles): the title of pydantic's ValidationError
_TITLES = os.path.join(os.path.dirname(_DATA), "config_titles.json")


@lru_cache(maxsize=1)
def _config_titles() -> dict[str, list[list[str]]]:
    with open(_TITLES, encoding="utf-8") as fh:
        return json.load(fh)["titles"]


def _config_title(dest: str, release: Release) -> Optional[str]:
    for title, first, last in _config_titles().get(dest, ()):
        if release.within(first, last):
            return title
    return None


class PydanticRefusal(Undecidable):
    """A config option's value the release's parser certainly refuses with pydantic's ValidationError (argparse's
    error ``argument LABEL: <the error's repr>``), whose text names the host's pydantic version: what
    :func:`parse_serve` raises unless told that version.  ``words``: the option's value as the parser gets it."""

    def __init__(self, reason: str, label: str, title: str, errors: list[tuple[tuple[str, ...], str, Any]],
                 key: str, words: tuple[str, ...]):
        super().__init__(reason)
        self.label = label
        self.title = title
        self.errors = errors
        self.key = key
        self.words = words

    def argparse_error(self, pydantic: str) -> _ArgparseError:
        from .pydantic_text import validation_error_text

        return _ArgparseError(f"argument {self.label}: {validation_error_text(self.title, self.errors, pydantic)}",
                              self.key, words=self.words)


class _NotStrictJson(ValueError):
    pass


def _strict_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _NotStrictJson("a repeated key")
    return out


def _no_constant(name: str) -> Any:
    raise _NotStrictJson(name)


def _unknown_key_errors(value: str, schema: dict[str, Any]) -> Optional[list[tuple[tuple[str, ...], str, Any]]]:
    """pydantic's errors for a config option's JSON when they are all unexpected keys (kvguard.launch.config_values.
    unknown_keys), None when kvguard cannot list them: JSON that Python reads otherwise than pydantic's parser may
    (NaN / Infinity, which it refuses; a repeated key)."""
    from .config_values import unknown_keys

    try:
        data = json.loads(value, object_pairs_hook=_strict_pairs, parse_constant=_no_constant)
    except ValueError:
        return None
    found = unknown_keys(data, schema) if isinstance(data, dict) else None
    if not found:
        return None
    return [(loc, "unexpected_keyword_argument", item) for loc, item in found]


def _decline_unvouched_config(value: str, spec: _Opt, opt: str, release: Release) -> None:
    """A config option's JSON naming a key its config class lacks, or a value kvguard cannot vouch for: the
    release's parser refuses the one (pydantic's ``unexpected_keyword_argument``, raised as argparse's error)
    and may refuse the other, with pydantic's own message, which names the host's pydantic version.  When the
    class's missing keys are all pydantic reports, the refusal is rendered (:class:`PydanticRefusal`, for
    :func:`parse_serve` to word with the host's version); otherwise kvguard declines to quote it.  A value kvguard
    cannot read as a JSON object is declined too: the release refuses it (pydantic's ``json_invalid`` or
    ``dataclass_type``) unless its parser's expansion of numbers such as ``8k`` makes it one.

    An optional config (``optional_type(parse_dataclass)``: ``--kv-transfer-config``, ``--pooler-config`` …) is
    held to its keys and to the fields kvguard checks; its other fields' values are passed over unchecked, as the
    rest of such an option is (a connector's name, a pooling type): kvguard does not model what they do."""
    if spec.fields is None or (spec.type == "_optional_type" and value in ("", "None")):
        return      # optional_type(parse_dataclass) reads "" and "None" as no config
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise Undecidable(
            f"vLLM {release.version} validates {spec.label(opt)} while parsing, and kvguard cannot read {value!r} as "
            "a JSON object: the release refuses a value that is not one (pydantic's json_invalid or dataclass_type, "
            "an argparse error naming the host's pydantic version), after expanding numbers such as 8k")
    from .config_values import config_value_problem

    if spec.type == "_optional_type":
        data = _checked_part(data, spec.fields)
    problem = config_value_problem(data, spec.fields)
    if problem is None:
        return
    what, where = problem
    if what == "key":
        reason = (f"vLLM {release.version} refuses {spec.label(opt)}: its config class has no field {where!r} "
                  "(pydantic's unexpected_keyword_argument, an argparse error)")
        title = _config_title(spec.dest, release)
        errors = None if title is None else _unknown_key_errors(value, spec.fields)
        if title is None or errors is None:
            raise Undecidable(f"{reason}; kvguard does not quote the message: other keys or values it cannot "
                              "vouch for may join the error")
        raise PydanticRefusal(f"{reason}; its message names the host's pydantic version, which the host "
                                     "does not state (--host pydantic=2.N)", spec.label(opt), title, errors,
                                     opt, (value,))
    raise Undecidable(
        f"vLLM {release.version} validates {spec.label(opt)} while parsing, and kvguard cannot vouch for {where}: "
        "a value the release refuses is an argparse error with pydantic's message (naming the host's pydantic "
        "version) or its own exception, which kvguard does not quote")


def _prog(launcher: str) -> str:
    """argparse's ``prog``: the basename of ``sys.argv[0]`` of the process vLLM runs in."""
    return {"api": "api_server.py", "cli-main": "main.py"}.get(launcher, "vllm")


def parse_serve(command: "str | list[str]", release: Release, *, pydantic: Optional[str] = None) -> ServeCommand:
    """Parse a ``vllm serve`` / api_server invocation (or bare arguments) for ``release``.

    Raises :class:`~kvguard.errors.ArgparseRefusal` (an :class:`InputError`) wherever the
    release's own parser refuses the command line — an argparse error, with the message as vLLM
    prints it, or FlexibleArgumentParser's ValueError/AssertionError/IndexError — and
    :class:`InputError` for what kvguard cannot read (``--help``, an unreadable ``--config``).

    ``pydantic``: the host's pydantic version (major.minor), which the text of a config option's pydantic refusal
    names; None: such a refusal is :class:`~kvguard.errors.Undecidable`, as it is when the launch sets a variable
    that drops pydantic's documentation link.  A refusal whose text names it has ``pydantic`` set to it."""
    tokens = split_command(command)
    args, env, mode, launcher = _strip_launcher(tokens)
    if pydantic is not None:
        from .pydantic_text import URL_VARIABLES

        if any(name in env for name in URL_VARIABLES):
            pydantic = None
    table = option_table(release)
    if mode == "bare":
        # the vllm/vllm-openai image runs `vllm serve` on its arguments; a bare `--model M` (the
        # api_server image of old releases) is read as api_server would
        mode = "api" if "--model" in args and not release.within("0.11.1") else "serve"
        launcher = "api" if mode == "api" else "vllm"
    named_pydantic = None
    try:
        try:
            processed = _flexible(list(args), mode, table, release)
            actions, positional = _argparse(processed, table, release)
        except PydanticRefusal as refused:
            if pydantic is None:
                raise
            named_pydantic = pydantic
            raise refused.argparse_error(pydantic) from None
    except _ArgparseError as exc:
        plugin = _plugin_option(exc.words, table)
        if plugin is not None:
            raise Undecidable(f"{plugin[0]} is an option of the {plugin[1]} plugin, which kvguard does not model "
                              "(plain vLLM refuses it as an unrecognized argument)") from None
        top = _prog(launcher)
        prog = top if exc.top or mode != "serve" else f"{top} serve"
        message = exc.message
        if (exc.top and mode == "serve" and release.within(_TASK_HINT_SINCE) and message.startswith(
                "unrecognized arguments:") and any(_TASK_OPTION.match(a) for a in args)
                and _TASK_IN_MESSAGE.search(message)):
            message += _TASK_HINT
        refusal = ArgparseRefusal("SystemExit", f"{prog}: error: {message}", vllm_version=str(release.version),
                                  check="argparse", key=exc.key, hints=exc.hints, words=exc.words)
        refusal.pydantic = named_pydantic
        raise refusal from None
    cmd = ServeCommand(model=None, env=env)
    option_model = None
    eplb_redundant: Optional[int] = None
    kernel_config_moe_backend = False
    #: the passed-over options whose last occurrence is outside their field's bounds, with the reason (argparse
    #: keeps the last occurrence; an earlier one, which passed argparse's type check, is never validated)
    out_of_bounds: dict[str, str] = {}
    enable_lora = False
    #: the last value of each encoder-attention FP8 option (_mm_fp8_problem)
    mm_fp8: dict[str, Optional[str]] = {}
    mm_torch_shm = False
    hc_sp = False
    renderer_workers: Optional[str] = None
    mm_cache_gb: Optional[str] = None
    #: LoRAConfig's numbers as argparse stored them (kvguard.rules.lora_config), kept only with --enable-lora
    lora_numbers: dict[str, Any] = {}
    for opt, values, original, converted in actions:
        spec = table[opt]
        dest = spec.dest
        flag = _FIELDS.get(dest)
        carrier = _BOUNDED_CARRIERS.get(dest)
        if carrier is not None:
            # the config validates the last value given: the rules render its bound's refusal
            if isinstance(converted, _OutOfBounds):
                cmd.fields[carrier] = converted.value
            else:
                cmd.fields.pop(carrier, None)
            if dest == "max_num_scheduled_tokens":
                # 0 is within the bound to 0.31.x, and VllmConfig refuses it with a speculative config
                cmd.fields["max_num_scheduled_tokens_zero"] = (
                    not isinstance(converted, _OutOfBounds) and _human_readable_zero(values, release))
                cmd.fields["max_num_scheduled_tokens_given"] = (
                    not isinstance(converted, _OutOfBounds) and bool(values) and values[0] not in ("", "None"))
        elif isinstance(converted, _OutOfBounds):
            out_of_bounds[dest] = converted.reason
        else:
            out_of_bounds.pop(dest, None)
        if dest in _LORA_NUMBERS:
            # argparse has checked int() of it (max_cpu_loras: optional_type's "" and "None" are None)
            lora_numbers[_LORA_NUMBERS[dest]] = (None if not values or values[0] in ("", "None")
                                                 or isinstance(converted, _OutOfBounds) else int(values[0]))
        if dest == "enable_lora" and spec.nargs == 0:
            enable_lora = spec.value if isinstance(spec.value, bool) else not opt.startswith(("--no-", "--disable-"))
        if dest == "model":
            option_model = values[0] if values else None
            continue
        if dest == "revision":
            cmd.revision = values[0] if values else None
            continue
        if dest == "eplb_config" and values:
            # EPLBConfig (0.12.0+ the only place of num_redundant_experts): read the field kvguard models
            eplb_redundant = _eplb_redundant(values[0], release, opt)
            continue
        if dest == "kv_transfer_config":
            # a KV connector is an input of the attention selector (0.26.0+) and of VllmConfig's KV transfer
            # checks; what kvguard reads of the JSON is kvguard.rules.kv_transfer ("None" and "" are
            # optional_type's None)
            cmd.fields["kv_transfer_config"] = bool(values) and values[0] not in ("", "None")
            if cmd.fields["kv_transfer_config"]:
                connector, follows_sleep_mode = _kv_transfer.read_connector(values[0], release, opt)
                cmd.fields["kv_connector"] = connector
                cmd.fields["kv_connector_sleep_mode"] = follows_sleep_mode
                if connector == "HiSparseConnector":
                    cmd.fields["hisparse"] = True   # 0.30.0+: VllmConfig turns HiSparse on for that connector
            cmd.passed_over.append(original)
            cmd.passed_over.extend(values)
            continue
        if dest == "custom_histogram_buckets":
            # 0.33.0: its field validators run in the same ObservabilityConfig validation (kvguard.rules.observability)
            cmd.fields["custom_histogram_buckets_given"] = bool(values) and values[0] not in ("", "None")
        if dest == "kernel_config" and values:
            kernel_config_moe_backend = kernel_config_moe_backend or _sets_moe_backend(values[0])
        if dest == "mamba_block_size":
            # passed over (its bound included), and read where an AMX CPU turns prefix caching off after the Mamba
            # cache set-up (kvguard.rules.cpu_amx); the last value given counts ("None": unset)
            try:
                cmd.fields["mamba_block_size"] = int(values[0]) if values else None
            except ValueError:
                cmd.fields["mamba_block_size"] = None
        if dest in _MULTIMODAL_READ and values:
            # MultiModalConfig's model validator compares the two (kvguard.rules.table MC_mm_shm_cache_size)
            cmd.fields[dest] = values[0]
        if dest in _MM_FP8_DESTS:
            mm_fp8[dest] = values[0] if values and values[0] not in ("", "None") else None
        if dest == "renderer_num_workers" and values:
            renderer_workers = values[0]
        if dest == "mm_processor_cache_gb" and values:
            mm_cache_gb = values[0]
        if dest == "enable_hc_sp":
            hc_sp = opt == "--enable-hc-sp"
        if dest == "mm_tensor_ipc":
            mm_torch_shm = bool(values) and values[0] == "torch_shm"
        if dest == "mm_encoder_attn_backend" and spec.bounds is None and values and values[0] not in ("", "None"):
            # 0.11.1 - 0.11.2 (no measured names): MultiModalConfig refuses a name AttentionBackendEnum lacks
            cmd.fields.setdefault("multimodal_value_problem", (
                f"vLLM {release.version} reads {spec.label(opt)}={values[0]!r} into AttentionBackendEnum for a "
                "multimodal model (ValueError for a name it lacks), and kvguard does not know that release's names"))
        if dest == "structured_outputs_config" and values:
            # the reasoning parser its JSON names: the API server looks it up (kvguard.rules.parsers)
            cmd.fields["structured_reasoning_parser"] = _json_name(values[0], "reasoning_parser") or None
            # and its backend, which 0.11.x's deprecated --guided-decoding-* switches need (kvguard.rules.engine_options)
            cmd.fields["structured_outputs_backend"] = _json_name(values[0], "backend")
        if dest == "logging_config" and values:
            # LoggingConfig's file (0.31.0+), which vllm serve reads right after argparse unless --log-config-file
            # names another (kvguard.rules.host_options)
            cmd.fields["logging_config_file"] = _json_name(values[0], "pylogging_config_file")
            null_file = cmd.fields["logging_config_file"] is None and _json_has(values[0], "pylogging_config_file")
            cmd.fields["logging_config_file_null"] = null_file
            if null_file:
                cmd.fields["logging_config_file"] = ""    # null: no file, the variable's default replaced
            configure = _json_key(values[0], "configure_logging")
            if configure is not None:
                cmd.fields["logging_configure"] = _lax_bool(configure, release, "--logging-config")
        if dest == "ec_transfer_config" and values:
            # ECTransferConfig.is_encode_only (0.29.0+: kvguard.rules.table VC_ec_producer_text_model)
            cmd.fields["ec_producer_only"] = (_json_key(values[0], "ec_connector") is not None
                                              and _json_key(values[0], "ec_role") == "ec_producer")
        if dest == "log_level" or (dest == "logging_config" and values and _json_has(values[0], "log_level")):
            # LoggingConfig's log_level comes from the command line instead of VLLM_LOGGING_LEVEL (0.31.0+; argparse
            # has checked it against LogLevel): kvguard.rules.host_options
            cmd.fields["logging_level_given"] = True
        if dest in ("default_mm_loras", "reasoning_effort_map") and values:
            # JSON as given: create_engine_config refuses any --default-mm-loras for a text-only model, and 0.33.0's
            # validate_parsed_serve_args checks the effort map (kvguard.rules.late_options)
            cmd.fields[dest] = values[0]
        if dest == "port" and values:
            # the HTTP port validate_parsed_serve_args compares (kvguard.rules.serve_args): argparse's int() of it;
            # passed over as well, so that an unexpanded placeholder stays what it was (then vLLM's default, 8000)
            try:
                cmd.fields["port"] = int(values[0])
            except ValueError:
                pass
        if dest == "reasoning_config":
            # read as given or not: its start / end strings may spare --reasoning-parser's lookup (0.20.0+)
            cmd.fields["reasoning_config"] = bool(values) and values[0] not in ("", "None")
        if dest == "attention_config" and values:
            # create_engine_config refuses --attention-backend with a backend here (kvguard.rules.backend_names)
            cmd.fields["attention_config_backend"] = _json_name(values[0], "backend")
            if _json_key(values[0], "hisparse_config") is not None:
                cmd.fields["hisparse"] = True   # 0.30.0+: forces Model Runner V2 (kvguard.rules.late_options)
        if dest == "watermark_config" and values and values[0] not in ("", "None"):
            # 0.30.0+: WatermarkConfig(**JSON) after SpeculativeConfig, and Model Runner V2 whatever
            # VLLM_USE_V2_MODEL_RUNNER says (kvguard.rules.late_options)
            _vouch_watermark(values[0], release)
            cmd.fields["watermark_config"] = True
        if dest in _SPECULATIVE_DESTS:
            cmd.speculative[dest] = converted
            cmd.passed_over.append(original)
            cmd.passed_over.extend(values)
            continue
        if flag is None:
            cmd.passed_over.append(original)
            cmd.passed_over.extend(values)
            continue
        if spec.nargs == 0 and isinstance(spec.value, bool):
            cmd.fields[flag.field] = spec.value
        elif spec.nargs == 0 and spec.action in ("BooleanOptionalAction", "_StoreTrueAction"):
            cmd.fields[flag.field] = not opt.startswith("--no-")
        elif spec.action in _STORING_ACTIONS and (spec.nargs == 1 or flag.kind in _WORDS_KINDS):
            cmd.fields[flag.field] = converted
        else:
            raise _err(f"argument {opt}: kvguard does not model the action {spec.action}", release, opt)
    if enable_lora:
        cmd.fields.update(lora_numbers)
    else:
        for carrier in _LORA_CARRIERS:
            cmd.fields.pop(carrier, None)
    for dest, reason in out_of_bounds.items():
        if dest in _LORA_DESTS and not enable_lora:
            continue    # LoRAConfig is built only with --enable-lora: the value is never validated
        if dest == "default_mm_loras":
            # LoRAConfig comes after create_engine_config's refusal of it for a text-only model: the rules decide
            cmd.fields["default_mm_loras_problem"] = reason
            continue
        if dest in _MULTIMODAL_DESTS:
            # MultiModalConfig is built only for a multimodal model: the rules decide with the model's facts
            cmd.fields.setdefault("multimodal_value_problem", reason)
            continue
        raise Undecidable(reason)
    mm_fp8_problem = _mm_fp8_problem(mm_fp8)
    if mm_fp8_problem is not None:
        # after the fields' bounds, which pydantic checks before the model validator
        cmd.fields.setdefault("multimodal_value_problem", mm_fp8_problem)
    if mm_torch_shm:
        cmd.fields.setdefault("multimodal_value_problem", _TORCH_SHM_PROBLEM)
    if renderer_workers is not None and release.within(*_RENDERER_WORKERS_RANGE):
        try:
            workers, cache_on = int(renderer_workers), mm_cache_gb is None or float(mm_cache_gb) > 0
        except ValueError:
            workers, cache_on = 1, False    # argparse or the field's bounds answer such a value
        if workers > 1 and cache_on:
            cmd.fields.setdefault("multimodal_value_problem", _RENDERER_WORKERS_PROBLEM.format(
                workers=workers, version=release.version))
    tp = cmd.fields.get("tensor_parallel_size")
    if hc_sp and isinstance(tp, int) and tp > 1 and release.within(_HC_SP_SINCE):
        raise Undecidable(_HC_SP_PROBLEM.format(tp=tp, version=release.version))
    if kernel_config_moe_backend and cmd.fields.get("moe_backend", "auto") == "auto":
        # --moe-backend, when given, overrides the kernel config's; otherwise the JSON's value is the one
        # vLLM validates and checks, and kvguard reads only the option
        raise Undecidable("--kernel-config sets moe_backend, which kvguard reads only from --moe-backend")
    if eplb_redundant is not None and "num_redundant_experts" not in cmd.fields:
        # up to 0.11.2 the deprecated --num-redundant-experts, when given, overrides the EPLB config's
        cmd.fields["num_redundant_experts"] = eplb_redundant
    if mode == "serve":
        cmd.model = positional[0] if positional else option_model
    elif mode == "api":
        # the api_server's parser takes a positional model_tag and only `vllm serve` copies it to --model
        cmd.model = option_model
        if option_model is None and positional:
            cmd.ignored_model = positional[0]
    else:
        cmd.model = option_model if option_model is not None else (positional[0] if positional else None)
    return cmd
