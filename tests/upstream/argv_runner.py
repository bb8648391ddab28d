"""A release's own ``vllm serve`` argument parsing; runs INSIDE an oracle venv.

usage: VLLM_TARGET_DEVICE=cpu python argv_runner.py CASES.json OUT.json
       VLLM_TARGET_DEVICE=cpu python argv_runner.py --dump-options OUT.json

CASES: {"cases": [{"id", "mode": "serve" | "api", "args": [...], "files": {name: text}}]}
``files`` are written to a fresh directory that becomes the working directory
(``--config cfg.yaml`` names one of them).

mode "serve" builds the parser as ``vllm`` (vllm/entrypoints/cli/main.py) does:
a top-level ``FlexibleArgumentParser`` with ``-v/--version`` and a ``serve``
sub-parser filled by ``make_arg_parser``, and parses ``["serve", *args]``;
mode "api" is ``python -m vllm.entrypoints.openai.api_server``:
``make_arg_parser(FlexibleArgumentParser())`` parsing ``args``.  Then
``EngineArgs.from_cli_args``.  Per case: the parallel fields kvguard reads, or
the argparse error (SystemExit code, last stderr line, and ``error``: the error as
printed, from ``PROG: error:`` to the end), or the exception
FlexibleArgumentParser itself raised (ValueError for ``--model`` with
``vllm serve`` in 0.10.2/0.11.0, ...).  The parsers carry the programme names a
real launch has (``vllm``, its sub-parser ``vllm serve``, ``api_server.py``):
argparse prints them in every error.

``--dump-options`` writes the serve parser's option table (every option
string with its nargs/type/choices and its action's option strings, in the
parser's order) for kvguard/data/serve_options.json, with, per option, the X
of vLLM's ``optional_type(X)`` / ``parse_type(X)`` as its error names it
(``inner``: ``<class 'int'>``, ``<function loads at 0x…>``) and the declared
constraints of the config field a plain option's value is validated into
(``bounds``: ``int>=1``, ``float>0<=1``, a literal list; _option_bounds).
This file must not import kvguard.
"""

import contextlib
import importlib
import io
import json
import logging
import os
import re
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

FIELDS = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "data_parallel_size_local",
          "data_parallel_rank", "data_parallel_start_rank", "prefill_context_parallel_size",
          "decode_context_parallel_size", "dcp_comm_backend", "dcp_kv_cache_interleave_size",
          "cp_kv_cache_interleave_size", "enable_expert_parallel", "nnodes", "node_rank",
          "data_parallel_external_lb", "data_parallel_hybrid_lb", "data_parallel_backend", "data_parallel_address",
          "distributed_executor_backend", "enable_eplb", "enable_elastic_ep", "enable_fault_tolerance",
          "enable_return_routed_experts", "async_scheduling", "trust_remote_code", "swap_space", "max_model_len",
          "disable_sliding_window", "kv_cache_dtype", "enforce_eager", "attention_backend", "dtype", "quantization",
          "moe_backend", "all2all_backend", "mm_encoder_tp_mode", "block_size", "allow_deprecated_quantization", "enable_chunked_prefill",
          "enable_prefix_caching", "mamba_cache_mode", "runner", "convert", "max_num_batched_tokens", "max_num_seqs",
          "max_num_active_seqs", "long_prefill_token_threshold", "num_lookahead_slots",
          "gpu_memory_utilization", "cpu_offload_gb", "logits_processor_pattern", "max_num_partial_prefills",
          "max_long_partial_prefills", "load_format", "preemption_mode", "disable_async_output_proc",
          "scheduler_delay_factor", "enable_prompt_embeds", "enable_auto_tool_choice", "tool_call_parser",
          "tool_parser_plugin", "reasoning_parser", "reasoning_parser_plugin", "skip_tokenizer_init",
          "api_server_count", "grpc", "collect_detailed_traces", "otlp_traces_endpoint",
          "show_hidden_metrics_for_version", "ray_workers_use_nsight", "numa_bind", "numa_bind_cpus",
          "numa_bind_nodes", "enable_mamba_cache_stochastic_rounding", "mamba_backend", "mamba_ssu_algorithm",
          "mamba_ssm_cache_dtype",
          "chat_template", "log_config_file", "enable_sleep_mode", "enable_cumem_allocator", "device_ids", "kda_prefill_backend", "enable_log_outputs", "enable_log_requests", "disable_log_stats",
          "enable_per_request_metrics", "fail_on_environ_validation", "sse_keep_alive_interval", "grpc_port", "uds", "ssl_keyfile",
          "ssl_certfile", "ssl_ca_certs", "data_parallel_multi_port_external_lb", "data_parallel_supervisor_port",
          "config_format", "hf_config_path", "model_impl", "enable_dbo", "ubatch_size", "dbo_decode_token_threshold",
          "dbo_prefill_token_threshold", "offload_backend", "offload_group_size", "offload_num_in_group",
          "offload_prefetch_step", "kv_offloading_backend", "kv_offloading_size")
MISSING = "<absent>"


#: the late options (kvguard.rules.late_options)
FIELDS += ("return_sampling_mask", "enable_trace_replay", "enable_batch_sharded_sampling",
           "per_request_spec_decode_metrics", "use_replayssm")
#: the option sweep's remainder: ReplaySSM's buffer length and the deprecated structured-output switches
#: (kvguard.rules.engine_options)
FIELDS += ("replayssm_buffer_len", "guided_decoding_backend", "guided_decoding_disable_any_whitespace",
           "guided_decoding_disable_additional_properties")
#: whether a multimodal wrapper builds its tower (kvguard.quant.wrappers): --language-model-only (0.17.0+)
FIELDS += ("language_model_only",)
#: whether a LoRAConfig is built (kvguard.quant.qwen3_vl: Qwen3.5's projections with LoRA)
FIELDS += ("enable_lora",)
#: whether VllmConfig looks the KV connector up for the hybrid KV cache manager (kvguard.rules.kv_transfer)
FIELDS += ("disable_hybrid_kv_cache_manager",)


def _redundant_experts(ea):
    """The redundant experts the engine config ends with: the separate flag (to 0.11.2) when given, else
    the EPLB config's field (as create_engine_config copies one into the other)."""
    flag = getattr(ea, "num_redundant_experts", None)
    if flag is not None:
        return flag
    eplb = getattr(ea, "eplb_config", None)
    return getattr(eplb, "num_redundant_experts", MISSING) if eplb is not None else MISSING


def _imports():
    import vllm.platforms as platforms
    from vllm.platforms.cpu import CpuPlatform

    platforms._current_platform = CpuPlatform()
    from vllm.engine.arg_utils import EngineArgs

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    make_arg_parser = None
    for mod in ("vllm.entrypoints.openai.cli_args", "vllm.entrypoints.launchers.cli_args",
                "vllm.entrypoints.common.cli_args"):
        try:
            make_arg_parser = importlib.import_module(mod).make_arg_parser
            break
        except (ModuleNotFoundError, AttributeError) as exc:
            if isinstance(exc, ModuleNotFoundError) and not (exc.name or "").startswith("vllm"):
                raise
    return EngineArgs, FlexibleArgumentParser, make_arg_parser


def _parsers(FlexibleArgumentParser, make_arg_parser, mode):
    if mode == "api":   # python -m vllm.entrypoints.openai.api_server: sys.argv[0] is .../api_server.py
        parser = make_arg_parser(FlexibleArgumentParser(prog="api_server.py", description="api_server"))
        return parser, parser
    top = FlexibleArgumentParser(prog="vllm", description="vLLM CLI")   # the `vllm` console script
    top.add_argument("-v", "--version", action="version", version="oracle")
    subparsers = top.add_subparsers(required=False, dest="subparser")
    serve = subparsers.add_parser("serve", usage="vllm serve [model_tag] [options]")
    serve = make_arg_parser(serve)
    return top, serve


def _spec(action):
    nargs = 1 if action.nargs is None else action.nargs
    entry = {"nargs": nargs, "action": type(action).__name__, "dest": action.dest,
             "option_strings": list(action.option_strings)}
    tname = getattr(action.type, "__name__", None) if action.type is not None else None
    if tname:
        entry["type"] = tname
    if action.choices is not None and not isinstance(action.choices, dict):
        try:
            entry["choices"] = [c if c is None or isinstance(c, (str, int, float)) else str(c)
                                for c in action.choices]
        except TypeError:
            pass
    fields = _config_fields(action)
    if fields is not None:
        entry["fields"] = fields
    inner = _inner_type(action.type)
    if inner is not None:
        entry["inner"] = inner
    bounds = _option_bounds(action)
    if bounds is not None:
        entry["bounds"] = bounds
    return entry


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def _inner_type(parse):
    """What vLLM's ``optional_type(X)`` / ``parse_type(X)`` converts with: X as the ArgumentTypeError names it
    (``<class 'int'>``, ``<function loads at 0x…>``: the address is the process's, written ``0x…``), X unwrapped
    through nested parse_type closures (their message is X's); None for other types."""
    if getattr(parse, "__name__", None) not in ("_optional_type", "_parse_type"):
        return None
    seen = 0
    while getattr(parse, "__name__", None) in ("_optional_type", "_parse_type") and seen < 4:
        cells = [cell.cell_contents for cell in (getattr(parse, "__closure__", None) or ())
                 if callable(cell.cell_contents)]
        if len(cells) != 1:
            return None
        parse, seen = cells[0], seen + 1
    return _ADDRESS.sub(" at 0x…>", repr(parse))


def _config_classes():
    """{field name: [(config class, dataclasses.Field), ...]} over vLLM's config dataclasses (vllm.config's and
    those their fields nest), the classes EngineArgs.add_cli_args builds its options from."""
    import dataclasses
    import typing

    import vllm.config as config_module

    todo = [value for value in vars(config_module).values()
            if isinstance(value, type) and dataclasses.is_dataclass(value)]
    found, seen = {}, set()
    while todo:
        cls = todo.pop()
        if cls in seen or cls.__name__ == "EngineArgs":
            continue
        seen.add(cls)
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # noqa: BLE001 - an annotation the host cannot resolve
            hints = {}
        for field in dataclasses.fields(cls):
            found.setdefault(field.name, []).append((cls, field))
            annotation = hints.get(field.name, field.type)
            for arg in (annotation, *typing.get_args(annotation)):
                if isinstance(arg, type) and dataclasses.is_dataclass(arg):
                    todo.append(arg)
    return found


_CLASSES = None


def _field_parse(cls, field):
    """A parse function validating ``{name: value}`` JSON into the one field with the class's own validator of it
    (the field's schema in the class's pydantic core schema: its annotation, constraints and field validators);
    None when the class is no pydantic dataclass or the field's schema is not found."""
    schema = getattr(cls, "__pydantic_core_schema__", None)
    if not isinstance(schema, dict):
        return None
    definitions = []
    found = _field_schema(schema, field.name, definitions)
    if found is None:
        return None
    from pydantic_core import SchemaValidator

    try:
        validator = SchemaValidator({"type": "definitions", "schema": found, "definitions": definitions}
                                    if definitions else found)
    except Exception:  # noqa: BLE001 - a schema that needs more than its definitions
        return None

    def parse(text):
        return validator.validate_python(json.loads(text)[field.name])

    return parse


def _field_schema(schema, name, definitions):
    """The core schema of field ``name`` in a pydantic dataclass's schema (collecting the definitions it may
    refer to)."""
    kind = schema.get("type")
    if kind == "definitions":
        definitions.extend(schema.get("definitions", ()))
    if kind == "dataclass-args":
        for field in schema.get("fields", ()):
            if field.get("name") == name:
                return field.get("schema")
        return None
    inner = schema.get("schema")
    return _field_schema(inner, name, definitions) if isinstance(inner, dict) else None


def _option_bounds(action):
    """The declared constraints of the config field a plain option's value is validated into (the option's dest
    is the field's name), in _config_fields' notation: "int>=1", "float?>0<=1" (bounds measured by _plain_kind),
    or the list of the values argparse makes that the field accepts (a Literal or enum field: each candidate's
    text through the option's type); None for an option without such a field, one whose classes disagree, or a
    field without constraints."""
    import enum
    import typing

    global _CLASSES
    if not action.option_strings or action.nargs not in (None, "?", "*", "+"):
        return None
    convert = action.type
    name = getattr(convert, "__name__", None)
    # (``optional_type(human_readable_int)``: --max-num-scheduled-tokens, --kv-cache-memory-bytes, … whose fields
    # are bounded too)
    if convert is not None and convert not in (int, float, str) and name != "human_readable_int" and not (
            name == "_optional_type" and _inner_type(convert) in (
                "<class 'int'>", "<class 'float'>", "<class 'str'>", "<function human_readable_int at 0x…>")):
        return None
    if _CLASSES is None:
        _CLASSES = _config_classes()
    kinds = set()
    for cls, field in _CLASSES.get(action.dest, ()):
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # noqa: BLE001
            hints = {}
        annotation = hints.get(field.name, field.type)
        args = typing.get_args(annotation)
        inner = [a for a in args if a is not type(None)]
        target = inner[0] if type(None) in args and len(inner) == 1 else annotation
        literal = typing.get_origin(target) is typing.Literal or (
            isinstance(target, type) and issubclass(target, enum.Enum))
        parse = _field_parse(cls, field) if literal or (target in (int, float) and _metadata(cls, field)) else None
        kind = None
        if parse is None:
            pass
        elif target in (int, float):
            kind = _plain_kind(parse, [], cls, field, target.__name__)
            kind = None if kind == "any" else kind
        else:
            kind = _option_literals(action, parse, field.name, target)
        kinds.add(json.dumps(kind))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    return None if kind is None else json.loads(kind)


def _option_literals(action, parse, name, target):
    """The values argparse makes (the option's type applied to each candidate's text: literals, member names and
    values) that the field accepts, when it refuses a word no member has; else None."""
    import enum
    import typing

    def converted(text):
        try:
            return action.type(text) if action.type is not None else text
        except Exception:  # noqa: BLE001
            return _PROBE_WORD

    if isinstance(target, type) and issubclass(target, enum.Enum):
        candidates = [text for member in target for text in (member.name, member.name.lower(), str(member.value))]
    else:
        candidates = [str(value) for value in typing.get_args(target)]
    if _accepts(parse, [], name, converted(_PROBE_WORD)):
        return None
    accepted = []
    for text in candidates:
        value = converted(text)
        if value not in accepted and value is not None and _accepts(parse, [], name, value):
            accepted.append(value)
    if action.choices is not None:
        accepted = [value for value in accepted if value in action.choices]
        if all(choice in accepted for choice in action.choices if choice is not None):
            return None     # argparse's choices check says as much
    if accepted and _accepts(parse, [], name, None):
        accepted.append(None)   # optional_type's None ("None", "")
    return accepted or None


#: a key no config class has: a value naming it shows whether the option's type refuses unknown keys
_PROBE_KEY = "kvguard_probe_key"
#: a string no enum, literal or numeric field accepts
_PROBE_WORD = "kvguard_probe_value"
#: per plain kind: values the release must accept (those inside the field's bounds), and values it must refuse,
#: for kvguard to check the field by the kind's own rules (kvguard.launch.config_values); a field whose probes
#: disagree is recorded as "any"
_KIND_PROBES = {
    "bool": ([True, False, 0, 1, "True", "FALSE", "0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y",
              "yes"], [_PROBE_WORD, 2, "2"]),
    "int": ([1, 2, "3", 8, 512], [_PROBE_WORD, 1.5, "1.5"]),
    "float": ([0.5, 1, 2.0, 0, -1], [_PROBE_WORD]),
    "str": ([_PROBE_WORD], [7]),
}
#: annotated_types' bound classes as kvguard writes them after the kind ("int>=0", "float>0<=1")
_BOUNDS = {"Ge": (">=", "ge"), "Gt": (">", "gt"), "Le": ("<=", "le"), "Lt": ("<", "lt")}


def _config_fields(action):
    """The field schema of the config class an option's value is validated into (EngineArgs' parse_dataclass
    keeps the class as its parameter's default); None for other options.

    The schema maps each field to its kind, measured by validating probe values with the release's own
    parse function: a nested schema for a nested config class; "bool", "int", "float" or "str" (then "?" when
    None is accepted, then the field's bounds, declared or probed at -2, -1 and 0 for an int) when the field
    accepts and refuses the kind's probes; for an enum or literal field, the list of the candidate values it
    accepts (its literals, member names in both cases, member values); for a ``list[bool|int|float|str]`` field,
    "list[E]" (E the element's plain kind, probed inside a one-item list, then the list's own probes: empty,
    unsorted, repeated lists accepted, a bare item or an object refused), or "list[op]" for a custom-ops list whose
    syntax the class checks (_OP_PROBES), then "?" when None is accepted; "dict" for a plain object field taking any
    keys and values; "any" otherwise.  A class that lets unknown keys pass has the key "*" (kind "any"); the pairs
    of its fields it checks together while parsing are under the key "&" (_pairs)."""
    import dataclasses

    parse = action.type
    if getattr(parse, "__name__", None) == "_optional_type":     # optional_type(parse_dataclass): "" and "None" pass
        cells = [cell.cell_contents for cell in (getattr(parse, "__closure__", None) or ())
                 if callable(cell.cell_contents)]
        parse = cells[0] if len(cells) == 1 else None
    defaults = getattr(parse, "__defaults__", None) or ()
    classes = [value for value in defaults if isinstance(value, type) and dataclasses.is_dataclass(value)]
    if getattr(parse, "__name__", None) != "parse_dataclass" or len(classes) != 1:
        return None
    return _schema(parse, [], classes[0], set())


def _accepts(parse, path, key, value):
    return _accepts_data(parse, path, {key: value})


def _schema(parse, path, cls, seen):
    import dataclasses
    import enum
    import typing

    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation the host cannot resolve
        hints = {}
    out = {}
    for field in dataclasses.fields(cls):
        annotation = hints.get(field.name, field.type)
        args = typing.get_args(annotation)
        nullable = type(None) in args
        inner = [a for a in args if a is not type(None)]
        target = inner[0] if nullable and len(inner) == 1 else annotation
        origin = typing.get_origin(target)
        kind = "any"
        if isinstance(target, type) and dataclasses.is_dataclass(target) and target not in seen:
            kind = _schema(parse, [*path, field.name], target, seen | {target})
        elif origin is typing.Literal or (isinstance(target, type) and issubclass(target, enum.Enum)):
            kind = _enum_kind(parse, path, field.name, target)
        elif target in (bool, int, float, str):
            kind = _plain_kind(parse, path, cls, field, target.__name__)
        elif _widened_to_str(target):
            # ``Literal["auto", "fp8"] | str`` (0.33.0's AttentionConfig.indexer_kv_dtype, WeightTransferConfig.
            # backend): parsing takes any word, and what a word outside the literal does is checked later (a
            # registry, a platform) -- kvguard vouches for the literal's words alone, each probed here
            kind = _literal_words_kind(parse, path, field.name, target)
        elif origin is list and len(typing.get_args(target)) == 1:
            kind = _list_kind(parse, path, cls, field, typing.get_args(target)[0])
        elif target is dict or (origin is dict and typing.get_args(target)[1:] == (typing.Any,)):
            kind = _dict_kind(parse, path, field.name)
        out[field.name] = kind
    pairs = _pairs(parse, path, out)
    if _accepts(parse, path, _PROBE_KEY, 1):
        out["*"] = "any"
    if pairs:
        out["&"] = pairs
    return out


def _widened_to_str(target):
    """Whether ``target`` is a union of ``str`` with string literals only (None aside), which pydantic reads as any
    string: the literal members name no value the str member would refuse."""
    import types
    import typing

    if typing.get_origin(target) not in (typing.Union, types.UnionType):
        return False
    members = [a for a in typing.get_args(target) if a is not type(None)]
    literal_words = all(isinstance(word, str) for member in members if typing.get_origin(member) is typing.Literal
                        for word in typing.get_args(member))
    return str in members and literal_words and all(
        member is str or typing.get_origin(member) is typing.Literal for member in members)


def _literal_words_kind(parse, path, name, target):
    """The words of a ``Literal[...] | str`` field's literal members the release accepts (None too when it is
    accepted), as an enum kind; "any" when it accepts none of them."""
    import typing

    accepted = []
    for member in typing.get_args(target):
        if typing.get_origin(member) is typing.Literal:
            accepted += [word for word in typing.get_args(member)
                         if word not in accepted and _accepts(parse, path, name, word)]
    if not accepted:
        return "any"
    if _accepts(parse, path, name, None):
        accepted.append(None)
    return accepted


#: per plain base, values tried for a field in _pairs (those the field accepts alone)
_PAIR_VALUES = {"bool": [True, False], "int": [-2, -1, 0, 1, 2, 512, 65536], "float": [-1.0, 0, 0.5, 1, 2.0, 1e6],
                "str": [_PROBE_WORD, "", "auto"]}


def _samples(kind):
    """Values kvguard may vouch for in a field of ``kind`` (a plain kind, an enum list, list[E], dict), to probe
    pairs of fields with; none for "any" and nested classes."""
    if isinstance(kind, list):
        return kind[:16]
    if not isinstance(kind, str) or kind == "any":
        return []
    nullable = [None] if kind.endswith("?") else []
    if kind.startswith("dict"):
        return [{}, {"a": 1}, *nullable]
    listed = re.match(r"list\[(.+)\]\??$", kind)
    if listed:
        element = listed.group(1)
        if element == "op":
            items = [["all"], ["none"], ["+rms_norm"], ["-quant_fp8"]]
        else:
            items = [[value] for value in _samples(element) if value is not None]
        return [[], *items[:5], *nullable]
    plain = re.match(r"(bool|int|float|str)(\??)", kind)
    if plain is None:
        return []
    return [*_PAIR_VALUES[plain.group(1)], *([None] if plain.group(2) else [])]


def _pairs(parse, path, out):
    """The pairs of a class's fields the class checks together while parsing (a __post_init__ or validator raising
    on ``mode: 3`` with ``backend: "x"``): two values each accepted alone but refused together, tried over
    _samples; sorted [[field, field], ...].  Pairs across nesting levels are not probed."""
    samples = {}
    for name, kind in out.items():
        values = [value for value in _samples(kind) if _accepts(parse, path, name, value)]
        if values:
            samples[name] = values
    names = sorted(samples)
    found = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if any(not _accepts_data(parse, path, {first: a, second: b})
                   for a in samples[first] for b in samples[second]):
                found.append([first, second])
    return found


def _accepts_data(parse, path, data):
    for name in reversed(path):
        data = {name: data}
    try:
        parse(json.dumps(data))
    except Exception:  # noqa: BLE001 - refused
        return False
    return True


def _metadata(cls, field):
    info = getattr(cls, "__pydantic_fields__", {}).get(field.name)
    return list(getattr(info, "metadata", None) or getattr(field.default, "metadata", None) or ())


def _plain_kind(parse, path, cls, field, base, wrap=None):
    """``base`` with "?" when None is accepted and the field's bounds, when every probe agrees; else "any".

    ``wrap``: a list field's element is probed, each probe value given as ``[value]`` (the field's own metadata,
    which would bound the list rather than its elements, then makes the kind "any")."""
    metadata = _metadata(cls, field)
    if wrap is not None and metadata:
        return "any"
    name = field.name

    def accepts(value):
        return _accepts(parse, path, name, value if wrap is None else wrap(value))

    bounds = []
    for item in metadata:
        symbol, attribute = _BOUNDS.get(type(item).__name__, (None, None))
        limit = getattr(item, attribute, None) if attribute else None
        if symbol is None or base not in ("int", "float") or isinstance(limit, bool) \
                or not isinstance(limit, (int, float)):
            return "any"
        bounds.append((symbol, limit))

    def inside(value):
        number = float(value)   # (an int's __lt__ with a float bound is NotImplemented, which is truthy)
        checks = {">=": number.__ge__, ">": number.__gt__, "<=": number.__le__, "<": number.__lt__}
        return all(checks[symbol](limit) for symbol, limit in bounds)

    good, bad = (list(values) for values in _KIND_PROBES[base])
    if bounds:
        good = [v for v in good if inside(v)]
        step = 1 if base == "int" else 0.5
        for symbol, limit in bounds:   # just inside and just outside each bound
            edge = limit if "=" in symbol else (limit + step if ">" in symbol else limit - step)
            outside = edge - step if ">" in symbol else edge + step
            if base == "int" and not float(edge).is_integer():
                return "any"
            (good if inside(edge) else bad).append(int(edge) if base == "int" else edge)
            bad.append(int(outside) if base == "int" else outside)
        if not good:
            return "any"
    if not (all(accepts(v) for v in good) and not any(accepts(v) for v in bad)):
        return "any"
    if base == "int" and not bounds:
        # a lower bound the class checks after validation (no declared bound): probed at -2, -1 and 0
        below = tuple(accepts(v) for v in (-2, -1, 0))
        found = {(True, True, True): [], (False, False, True): [(">=", 0)], (False, False, False): [(">", 0)]}
        if below not in found:
            return "any"
        bounds = found[below]
    kind = base + ("?" if accepts(None) else "")
    return kind + "".join(f"{symbol}{limit}" for symbol, limit in bounds)


#: per list element kind: lists the release must accept besides one probe each, and values it must refuse (a bare
#: element, an object), for kvguard to check each element by the element kind's rules: any length, order and
#: repetition
_LIST_PROBES = {
    "bool": ([[], [True, "false", 0, True]], [True, {"a": True}]),
    "int": ([[], [8, 1, "3", 8, 512]], [1, "3", {"a": 1}]),
    "float": ([[], [2.0, 0.5, 1, 0.5]], [0.5, {"a": 0.5}]),
    "str": ([[], ["b", "a", "b"]], ["a", {"a": "b"}]),
}
#: a custom-ops list (CompilationConfig.custom_ops, kind "list[op]"): "all", "none", "+NAME" or "-NAME", at most one
#: of "all" and "none" -- the syntax the class checks after validation, probed where the release refuses a plain
#: word (kvguard also declines a list enabling and disabling one op, which 0.33.0 refuses)
_OP_PROBES = ([[], ["all"], ["none"], ["+rms_norm", "-quant_fp8"], ["all", "-" + _PROBE_WORD, "+rms_norm"],
               ["none", "+rms_norm", "+rms_norm"], ["-all", "+none"]],
              [[_PROBE_WORD], ["all", "none"], ["all", "all"], ["none", "none"], [""], ["All"], ["+rms_norm", 7],
               "all", "+rms_norm", {"a": "all"}])


def _list_kind(parse, path, cls, field, element):
    """``list[ELEMENT]`` (ELEMENT a plain kind with its bounds, or "op"), then "?" when None is accepted; "any"
    when a probe disagrees."""
    name = field.name
    kind = "any"
    if element in (bool, int, float, str):
        kind = _plain_kind(parse, path, cls, field, element.__name__, wrap=lambda value: [value])
        if kind != "any":
            good, bad = _LIST_PROBES[element.__name__]
            if not (all(_accepts(parse, path, name, v) for v in good)
                    and not any(_accepts(parse, path, name, v) for v in bad)):
                kind = "any"
            kind = kind if kind == "any" else f"list[{kind}]"
    if kind == "any" and element is str and not _metadata(cls, field):
        good, bad = _OP_PROBES
        if all(_accepts(parse, path, name, v) for v in good) and not any(_accepts(parse, path, name, v) for v in bad):
            kind = "list[op]"
    if kind == "any":
        return kind
    return kind + ("?" if _accepts(parse, path, name, None) else "")


def _dict_kind(parse, path, name):
    """``dict`` (any object, with any values), then "?" when None is accepted, when the probes agree; else "any"."""
    good = [{}, {_PROBE_KEY: 1, "b": _PROBE_WORD, "c": [1, {"d": None}], "e": False}]
    bad = [_PROBE_WORD, [1], 1, [{"a": 1}]]
    if not (all(_accepts(parse, path, name, v) for v in good) and not any(_accepts(parse, path, name, v) for v in bad)):
        return "any"
    return "dict" + ("?" if _accepts(parse, path, name, None) else "")


def _enum_kind(parse, path, name, target):
    import enum
    import typing

    if isinstance(target, type) and issubclass(target, enum.Enum):
        candidates = []
        for member in target:
            candidates += [member.name, member.name.lower(), member.value]
            if not isinstance(member.value, str):
                candidates.append(str(member.value))
    else:
        candidates = list(typing.get_args(target))
    if _accepts(parse, path, name, _PROBE_WORD):
        return "any"
    accepted = []
    for value in candidates:
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value not in accepted:
            if _accepts(parse, path, name, value):
                accepted.append(value)
    if not accepted:
        return "any"
    if _accepts(parse, path, name, None):
        accepted.append(None)
    return accepted


def dump_options(out_path):
    _, FlexibleArgumentParser, make_arg_parser = _imports()
    top, serve = _parsers(FlexibleArgumentParser, make_arg_parser, "serve")
    options = {}
    positionals = []
    for action in serve._actions:
        if not action.option_strings:
            positionals.append(_spec(action))
    for opt, action in serve._option_string_actions.items():   # hidden aliases too (0.33 --no-enable-x)
        entry = _spec(action)
        if entry["nargs"] == 0 and type(action).__name__ not in ("_HelpAction", "_VersionAction"):
            import argparse

            ns = argparse.Namespace()
            try:
                action(serve, ns, [], opt)
                entry["value"] = _value(getattr(ns, action.dest, None))
            except Exception as exc:  # noqa: BLE001
                entry["value"] = f"<{type(exc).__name__}>"
        options[opt] = entry
    top_opts = sorted(o for a in top._actions for o in a.option_strings)
    with open(out_path, "w") as fh:
        json.dump({"options": options, "order": list(serve._option_string_actions), "positionals": positionals,
                   "top": top_opts}, fh, sort_keys=True)


def _value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):     # a list flag's words, as kvguard keeps them (NUL-joined)
        return "\0".join("None" if item is None else str(item) for item in v)
    return str(v)


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    EngineArgs, FlexibleArgumentParser, make_arg_parser = _imports()
    out = []
    home = os.getcwd()
    parsers = {}
    for case in spec["cases"]:
        rec = {"id": case["id"]}
        work = tempfile.mkdtemp(prefix="kvg-argv-")
        for name, text in (case.get("files") or {}).items():
            with open(os.path.join(work, name), "w") as fh:
                fh.write(text)
        os.chdir(work)
        try:
            mode = case.get("mode", "serve")
            if mode not in parsers:  # one parser per mode: argparse parsers are reusable
                parsers[mode] = _parsers(FlexibleArgumentParser, make_arg_parser, mode)[0]
            top = parsers[mode]
            argv = (["serve"] if mode == "serve" else []) + list(case["args"])
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    ns = top.parse_args(argv)
            except SystemExit as exc:
                text = err.getvalue()
                lines = text.strip().splitlines()
                printed = re.search(r"(?m)^(vllm|vllm serve|api_server\.py): error: ", text)
                rec.update(stage="argparse", exit=exc.code, stderr=lines[-1:] if lines else [],
                           error=text[printed.start():].rstrip("\n") if printed else None)
                out.append(rec)
                continue
            except BaseException as exc:  # noqa: BLE001  (FlexibleArgumentParser's own ValueError, ...)
                rec.update(stage="flexible", exc_type=type(exc).__name__, message=str(exc)[:500])
                out.append(rec)
                continue
            model = getattr(ns, "model", None)
            if mode == "serve" and getattr(ns, "model_tag", None) is not None:
                model = ns.model_tag
            rec["model"] = model
            rec["model_is_default"] = model == getattr(EngineArgs, "model", None)
            # EngineArgs.__post_init__ resolves the model id offline (0.10.2): give it a local directory
            ns.model = work
            if getattr(ns, "tokenizer", None):
                ns.tokenizer = work
            if hasattr(ns, "model_tag"):
                ns.model_tag = None
            try:
                ea = EngineArgs.from_cli_args(ns)
            except BaseException as exc:  # noqa: BLE001
                rec.update(stage="engine", exc_type=type(exc).__name__, message=str(exc)[:500])
                out.append(rec)
                continue
            rec["stage"] = "ok"
            # the front end's options (the tool-call parser, auto tool choice) are the namespace's, not EngineArgs'
            rec["parsed"] = {k: _value(getattr(ea, k, getattr(ns, k, MISSING))) for k in FIELDS}
            rec["parsed"]["num_redundant_experts"] = _value(_redundant_experts(ea))
            # kvguard reads only whether a KV connector is configured
            rec["parsed"]["kv_transfer_config"] = getattr(ea, "kv_transfer_config", None) is not None
            rec["headless"] = bool(getattr(ns, "headless", False))
            out.append(rec)
        finally:
            os.chdir(home)
    with open(out_path, "w") as fh:
        json.dump(out, fh, default=str)


def table_text(table: dict) -> str:
    """The text of kvguard/data/serve_options.json: the versions and options first, then one spec and one
    order per line (kvguard.launch.argv decodes only the specs and the order of the release it parses for)."""
    def compact(value) -> str:
        return json.dumps(value, separators=(",", ":"))

    head = {key: value for key, value in table.items() if key not in ("specs", "orders")}
    return (compact(head)[:-1] + ',\n"specs":[\n' + ",\n".join(compact(spec) for spec in table["specs"])
            + '\n],\n"orders":[\n' + ",\n".join(compact(order) for order in table.get("orders", ())) + "\n]}\n")


def merge_tables(dumps: dict) -> dict:
    """{version: dump_options output} -> the compact table of kvguard/data/serve_options.json:
    ``versions`` (ascending), ``specs`` (distinct option specs; ``o``: the action's option strings
    when it has more than one; ``i``: optional_type's / parse_type's X; ``b``: the config field's
    bounds), ``options``: option string -> [[spec index, first version index,
    last version index], ...], and ``orders``: the parser's order of its option strings (argparse
    lists an ambiguous prefix's candidates in it) as [[indexes into the sorted option strings,
    first version index, last version index], ...]."""
    def key(v):
        return tuple(int(p) for p in v.split("."))

    versions = sorted(dumps, key=key)
    specs, spec_ids, options = [], {}, {}
    for idx, version in enumerate(versions):
        for opt, entry in dumps[version]["options"].items():
            spec = {"n": entry["nargs"], "a": entry["action"], "d": entry["dest"]}
            if entry.get("option_strings") not in (None, [opt]):
                spec["o"] = entry["option_strings"]
            if entry.get("type"):
                spec["t"] = entry["type"]
            if entry.get("choices") is not None:
                spec["c"] = entry["choices"]
            if "value" in entry:
                spec["v"] = entry["value"]
            if entry.get("fields") is not None:
                spec["f"] = entry["fields"]
            if entry.get("inner") is not None:
                spec["i"] = entry["inner"]
            if entry.get("bounds") is not None:
                spec["b"] = entry["bounds"]
            sk = json.dumps(spec, sort_keys=True)
            if sk not in spec_ids:
                spec_ids[sk] = len(specs)
                specs.append(spec)
            sid = spec_ids[sk]
            runs = options.setdefault(opt, [])
            if runs and runs[-1][0] == sid and runs[-1][2] == idx - 1:
                runs[-1][2] = idx
            else:
                runs.append([sid, idx, idx])
    names = sorted(options)
    position = {name: i for i, name in enumerate(names)}
    orders: list = []   # [indexes into the sorted option names, first version index, last version index]
    for idx, version in enumerate(versions):
        order = [position[o] for o in dumps[version].get("order", ())]
        if orders and orders[-1][0] == order and orders[-1][2] == idx - 1:
            orders[-1][2] = idx
        elif order:
            orders.append([order, idx, idx])
    return {"comment": "generated by tests/upstream/test_argv_differential.py --regenerate-table from the "
                       "real releases' serve parsers (tests/upstream/argv_runner.py --dump-options); "
                       "orders: the parser's own order of the option strings",
            "versions": versions, "specs": specs, "options": {name: options[name] for name in names},
            "orders": orders}


#: the compact table's spec keys -> the dump's entry keys (merge_tables)
_SPEC_KEYS = {"n": "nargs", "a": "action", "d": "dest", "o": "option_strings", "t": "type", "c": "choices",
              "v": "value", "f": "fields", "i": "inner", "b": "bounds"}


def split_table(table: dict) -> dict:
    """The inverse of merge_tables: {version: the dump_options output it was merged from}, as far as the table keeps
    it (``merge_tables(split_table(table)) == table``), so that some releases' dumps can be replaced without an
    oracle for every release (test_argv_differential --refresh-table)."""
    versions = table["versions"]
    names = sorted(table["options"])
    dumps: dict = {version: {"options": {}} for version in versions}
    for name in names:
        for spec_id, first, last in table["options"][name]:
            entry = {_SPEC_KEYS[key]: value for key, value in table["specs"][spec_id].items()}
            for version in versions[first:last + 1]:
                dumps[version]["options"][name] = dict(entry)
    for order, first, last in table.get("orders", ()):
        for version in versions[first:last + 1]:
            dumps[version]["order"] = [names[i] for i in order]
    return dumps


def dump_titles(out_path):
    """{dest: the config class's name} for every option whose value is validated into a config class
    (parse_dataclass): the title of the ValidationError its refusal prints."""
    import dataclasses

    _, FlexibleArgumentParser, make_arg_parser = _imports()
    _, serve = _parsers(FlexibleArgumentParser, make_arg_parser, "serve")
    titles = {}
    for action in serve._actions:
        parse = action.type
        if getattr(parse, "__name__", None) == "_optional_type":
            cells = [cell.cell_contents for cell in (getattr(parse, "__closure__", None) or ())
                     if callable(cell.cell_contents)]
            parse = cells[0] if len(cells) == 1 else None
        classes = [value for value in (getattr(parse, "__defaults__", None) or ())
                   if isinstance(value, type) and dataclasses.is_dataclass(value)]
        if getattr(parse, "__name__", None) == "parse_dataclass" and len(classes) == 1:
            titles[action.dest] = classes[0].__name__
    with open(out_path, "w") as fh:
        json.dump(titles, fh, sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1] == "--dump-options":
        sys.exit(dump_options(sys.argv[2]))
    if sys.argv[1] == "--dump-titles":
        sys.exit(dump_titles(sys.argv[2]))
    sys.exit(main(sys.argv[1], sys.argv[2]))

