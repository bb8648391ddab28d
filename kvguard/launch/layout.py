"""The launch inputs: vLLM's parallel-layout arguments and the host they run on.

:class:`Layout` holds the ``EngineArgs`` fields that ``vllm serve`` turns into
a ``ParallelConfig`` (the names are vLLM's own), with vLLM's defaults: a
field left unset behaves as if the flag was not given.  Short names
(``tp``, ``pp``, ``dp``, ``pcp``, ``dcp``, ``ep``, ``dpl``) are accepted as
aliases.  :class:`Host` holds the machine facts some checks depend on; a
``None`` there means "unknown", and the checks that need it are reported as
skipped.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError
from ..record import Record
from .pydantic_text import DEFAULT_PYDANTIC

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Optional

__all__ = ["ALIASES", "Host", "Layout", "join_list", "list_values", "make_layout"]

#: short CLI-style names -> EngineArgs field names
ALIASES: dict[str, str] = {
    "tp": "tensor_parallel_size",
    "pp": "pipeline_parallel_size",
    "dp": "data_parallel_size",
    "dpl": "data_parallel_size_local",
    "dpn": "data_parallel_rank",
    "dpr": "data_parallel_start_rank",
    "pcp": "prefill_context_parallel_size",
    "dcp": "decode_context_parallel_size",
    "ep": "enable_expert_parallel",
    "n": "nnodes",
    "r": "node_rank",
    "dpb": "data_parallel_backend",
    "dpa": "data_parallel_address",
    "dpe": "data_parallel_external_lb",
    "dph": "data_parallel_hybrid_lb",
}


#: a list option (``--collect-detailed-traces model worker``) is kept on the Layout as one string, its values joined
#: by a character no command-line word can hold, so that a Layout stays hashable and its fields plain
_LIST_SEPARATOR = "\0"


def join_list(values: Any) -> str:
    """A list option's values as the Layout keeps them (``None`` written as the word ``None``)."""
    return _LIST_SEPARATOR.join("None" if value is None else str(value) for value in values)


def list_values(value: Optional[str]) -> list[str]:
    """The values of a list option the Layout keeps (:func:`join_list`; ``None``: not given)."""
    return [] if value is None else value.split(_LIST_SEPARATOR)


class FieldInfo(Record):
    """What :attr:`Layout.model_fields` says of a field (the part of pydantic's ``FieldInfo`` used)."""

    annotation: Any
    default: Any


_strict: list = []


def _strict_model():
    """The same fields as a strict pydantic model (built on first need: pydantic costs ~40 ms to
    import, and a valid layout of plain values never needs it)."""
    if not _strict:
        from pydantic import ConfigDict, create_model
        _strict.append(create_model("Layout", __config__=ConfigDict(extra="forbid", frozen=True, strict=True),
                                    **{name: (tp, default) for name, tp, default in _FIELDS}))
    return _strict[0]


class Layout:
    """A parallel layout as ``vllm serve`` flags express it (EngineArgs fields).

    Integers are taken as given — including 0 and negatives, which some
    releases accept and others refuse; refusing them is vLLM's job, and
    kvguard reproduces it.  Types are strict (pydantic's strict mode: no
    ``True`` for an int, no ``"8"``), and a wrong type or an unknown field
    raises ``pydantic.ValidationError`` (:func:`make_layout` turns it into an
    :class:`~kvguard.InputError`).  The object is frozen and offers the
    pydantic-model surface kvguard uses (``model_fields``,
    ``model_fields_set``, ``model_dump``, ``model_copy``, ``model_validate``);
    pydantic itself is imported only to report a bad value.
    """

    # the EngineArgs fields, with vLLM's defaults (class attributes: what an unset field reads)
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    data_parallel_size_local: Optional[int] = None
    data_parallel_rank: Optional[int] = None
    data_parallel_start_rank: Optional[int] = None
    data_parallel_external_lb: bool = False
    data_parallel_hybrid_lb: bool = False
    data_parallel_backend: str = "mp"
    data_parallel_address: Optional[str] = None
    prefill_context_parallel_size: int = 1
    decode_context_parallel_size: int = 1
    #: None means "the release's default" ("ag_rs" in 0.18.0–0.28.0, None from 0.29.0)
    dcp_comm_backend: Optional[str] = None
    dcp_kv_cache_interleave_size: int = 1
    #: None means "the release's default" (1 up to 0.29.0, None from 0.30.0)
    cp_kv_cache_interleave_size: Optional[int] = None
    enable_expert_parallel: bool = False
    enable_eplb: bool = False
    num_redundant_experts: int = 0
    enable_elastic_ep: bool = False
    nnodes: int = 1
    node_rank: int = 0
    distributed_executor_backend: Optional[str] = None
    headless: bool = False
    async_scheduling: Optional[bool] = None
    #: SchedulerConfig's chunked prefill and CacheConfig's prefix caching (None: the release's default for
    #: the model), and CacheConfig's mamba_cache_mode (None: "none")
    enable_chunked_prefill: Optional[bool] = None
    enable_prefix_caching: Optional[bool] = None
    mamba_cache_mode: Optional[str] = None
    #: CacheConfig's --mamba-block-size (None: the Mamba cache set-up picks it); read only by kvguard.rules.cpu_amx
    mamba_block_size: Optional[int] = None
    #: ModelConfig's --runner and --convert (None: auto)
    runner: Optional[str] = None
    convert: Optional[str] = None
    enable_fault_tolerance: bool = False
    enable_return_routed_experts: bool = False
    #: the late options (kvguard.rules.late_options): --return-sampling-mask (0.28.0+), --enable-trace-replay and
    #: --enable-batch-sharded-sampling (0.29.0+), --per-request-spec-decode-metrics (0.29.0+; "none": off) and
    #: --use-replayssm (0.27.0+)
    return_sampling_mask: bool = False
    enable_trace_replay: bool = False
    enable_batch_sharded_sampling: bool = False
    per_request_spec_decode_metrics: str = "none"
    use_replayssm: bool = False
    #: 0.30.0+: a --watermark-config given (a JSON object kvguard vouches for) and HiSparse (--attention-config's
    #: hisparse_config, or a --kv-transfer-config naming the HiSparseConnector): both force Model Runner V2
    #: (kvguard.rules.late_options)
    watermark_config: bool = False
    hisparse: bool = False
    #: --replayssm-buffer-len (0.27.0+; None: the default), CacheConfig's Field(gt=0) (kvguard.rules.table CC_FIELD)
    replayssm_buffer_len: Optional[int] = None
    #: ModelConfig's --trust-remote-code: without it vLLM refuses configs that need repository code
    trust_remote_code: bool = False
    #: CacheConfig's --swap-space (GiB per GPU; the flag exists up to 0.17.1)
    swap_space: float = 4.0
    #: ModelConfig's --max-model-len (None: derived from the config; -1: auto-fit, 0.14.0+)
    max_model_len: Optional[int] = None
    #: ModelConfig's --disable-sliding-window (caps the length at the sliding window)
    disable_sliding_window: bool = False
    #: CacheConfig's --kv-cache-dtype (0.10.2's V1 engine checks the platform supports it)
    kv_cache_dtype: str = "auto"
    #: ModelConfig's --enforce-eager (0.10.2's DualChunkFlashAttention needs it)
    enforce_eager: bool = False
    #: --attention-backend (0.13.0+): the backend the workers use instead of the selector's choice
    attention_backend: Optional[str] = None
    #: --moe-backend (0.17.0+; KernelConfig.moe_backend): "auto" lets each MoE layer pick its kernel
    moe_backend: str = "auto"
    #: --all2all-backend (0.11.1+; ParallelConfig.all2all_backend): None means "the release's default"
    all2all_backend: Optional[str] = None
    #: --mm-encoder-tp-mode (MultiModalConfig.mm_encoder_tp_mode): "data" builds a vision encoder unsplit by tp
    #: (Kimi-K2.5's vision tower at model construction, kvguard.quant.kimi_k25)
    mm_encoder_tp_mode: str = "weights"
    #: --limit-mm-per-prompt (its JSON text, None: not given) and --language-model-only (0.17.0+): a multimodal wrapper
    #: builds no vision tower when every modality it takes is limited to 0 (kvguard.quant.qwen3_vl leaves them open)
    limit_mm_per_prompt: Optional[str] = None
    language_model_only: bool = False
    #: --enable-lora: vLLM builds a LoRAConfig, and some models build other layers with it (kvguard.quant.qwen3_vl)
    enable_lora: bool = False
    #: ModelConfig's --quantization (None: the checkpoint's method, which vLLM may convert to a faster kernel)
    quantization: Optional[str] = None
    #: ModelConfig's --allow-deprecated-quantization (0.14.0+): a deprecated method warns instead of refusing
    allow_deprecated_quantization: bool = False
    #: ModelConfig's --dtype ("auto": the checkpoint's); read only where a modelled check depends on it
    dtype: str = "auto"
    #: CacheConfig's --block-size (None: the platform's default) and whether --kv-transfer-config names a KV
    #: connector: inputs of the attention selector, read only there
    block_size: Optional[int] = None
    kv_transfer_config: bool = False
    #: the connector --kv-transfer-config names (None: none; kvguard.rules.kv_transfer.read_connector)
    kv_connector: Optional[str] = None
    #: whether that connector's class says it follows sleep mode (0.33.0's supports_sleep_mode)
    kv_connector_sleep_mode: bool = True
    #: SchedulerConfig's --disable-hybrid-kv-cache-manager (None: not given, VllmConfig decides)
    disable_hybrid_kv_cache_manager: Optional[bool] = None
    #: CacheConfig's --gpu-memory-utilization and --cpu-offload-gb (None: the release's defaults)
    gpu_memory_utilization: Optional[float] = None
    cpu_offload_gb: Optional[float] = None
    #: the backend --attention-config's JSON sets (None: not set): --attention-backend may not set it too
    attention_config_backend: Optional[str] = None
    #: SchedulerConfig's --max-num-batched-tokens and --max-num-seqs (None: EngineArgs' defaults, which depend on
    #: the host): read only by the scheduler's checks
    max_num_batched_tokens: Optional[int] = None
    max_num_seqs: Optional[int] = None
    #: SchedulerConfig's --max-num-active-seqs (0.31.0+) and --long-prefill-token-threshold (0: none)
    max_num_active_seqs: Optional[int] = None
    long_prefill_token_threshold: int = 0
    #: SchedulerConfig's --num-lookahead-slots (0.10.2 - 0.11.2; a speculative config replaces it)
    num_lookahead_slots: int = 0
    #: SchedulerConfig's options kvguard otherwise passes over, as argparse made them, kept only when given outside
    #: their field's pydantic bounds (None: not given, or within them, where no check kvguard models reads them):
    #: --max-num-scheduled-tokens (0.26.0+), --max-num-queued-reqs / -tokens (0.29.0+), --watermark and
    #: --prefill-schedule-interval (0.24.0+), --stream-interval (0.11.1+) (kvguard.rules.scheduler field_bounds)
    max_num_scheduled_tokens_out_of_bounds: Optional[int] = None
    max_num_queued_reqs_out_of_bounds: Optional[int] = None
    max_num_queued_tokens_out_of_bounds: Optional[int] = None
    watermark_out_of_bounds: Optional[float] = None
    prefill_schedule_interval_out_of_bounds: Optional[int] = None
    stream_interval_out_of_bounds: Optional[int] = None
    #: CacheConfig's and ParallelConfig's options kvguard otherwise passes over, kept the same way: --prefix-match-unit
    #: (0.26.0+), --prefix-cache-retention-interval (0.29.0+), --mamba-block-size's own bound (0.11.1+; the value is
    #: read as mamba_block_size too) (kvguard.rules.cache_config field_bounds); --data-parallel-rpc-port (0.28.0+),
    #: --dp-sync-interval and --elastic-ep-max-dp-size (0.30.0+), --max-parallel-loading-workers (0.23.0+)
    #: (kvguard.rules.table's ParallelConfig FIELD rows)
    prefix_match_unit_out_of_bounds: Optional[int] = None
    prefix_cache_retention_interval_out_of_bounds: Optional[int] = None
    mamba_block_size_out_of_bounds: Optional[int] = None
    data_parallel_rpc_port_out_of_bounds: Optional[int] = None
    dp_sync_interval_out_of_bounds: Optional[int] = None
    max_parallel_loading_workers_out_of_bounds: Optional[int] = None
    elastic_ep_max_dp_size_out_of_bounds: Optional[int] = None
    #: ObservabilityConfig's --kv-cache-metrics-sample (0.12.0+), kept the same way, and whether 0.33.0's
    #: --custom-histogram-buckets is given (kvguard.rules.observability metrics_sample_bound)
    kv_cache_metrics_sample_out_of_bounds: Optional[float] = None
    #: ModelConfig's --max-logprobs (at least -1, 0.25.0+; kvguard.rules.table's MC_FIELD), LoadConfig's
    #: --safetensors-prefetch-num-threads / --safetensors-prefetch-block-size (at least 1, 0.21.0+) and VllmConfig's
    #: --shutdown-timeout (at least 0, 0.18.0+) (kvguard.rules.late_bounds), kept the same way
    max_logprobs_out_of_bounds: Optional[int] = None
    safetensors_prefetch_num_threads_out_of_bounds: Optional[int] = None
    safetensors_prefetch_block_size_out_of_bounds: Optional[int] = None
    shutdown_timeout_out_of_bounds: Optional[int] = None
    custom_histogram_buckets_given: bool = False
    #: --max-num-scheduled-tokens given as 0 (within its bound on 0.26.0 - 0.31.0), which VllmConfig refuses with a
    #: speculative config, and given within its bound at all, which 0.26.0 - 0.27.x's VllmConfig checks against the
    #: batched tokens with one (kvguard.rules.scheduler scheduled_tokens_refusal)
    max_num_scheduled_tokens_zero: bool = False
    max_num_scheduled_tokens_given: bool = False
    #: options the V1 engine refuses (EngineArgs._check_feature_supported, 0.11.1+) or falls back to V0 for
    #: (0.10.2 / 0.11.0's V1 oracle), with vLLM's defaults: read only by kvguard.rules.feature_support
    logits_processor_pattern: Optional[str] = None
    max_num_partial_prefills: int = 1
    max_long_partial_prefills: int = 1
    load_format: str = "auto"
    preemption_mode: Optional[str] = None
    disable_async_output_proc: bool = False
    scheduler_delay_factor: float = 0.0
    enable_prompt_embeds: bool = False
    #: the front end's parsers (kvguard.rules.parsers): --enable-auto-tool-choice, --tool-call-parser (None: none),
    #: --reasoning-parser (None / "": none), the plugins that may register more names, whether --reasoning-config is
    #: given, and --skip-tokenizer-init (0.13.0 - 0.19.1's engine core looks the reasoning parser up only with one)
    enable_auto_tool_choice: bool = False
    tool_call_parser: Optional[str] = None
    reasoning_parser: Optional[str] = None
    tool_parser_plugin: Optional[str] = None
    reasoning_parser_plugin: Optional[str] = None
    reasoning_config: bool = False
    skip_tokenizer_init: bool = False
    #: ObservabilityConfig's options (kvguard.rules.observability): --show-hidden-metrics-for-version,
    #: --otlp-traces-endpoint and --collect-detailed-traces (its values joined by NUL; None: not given)
    show_hidden_metrics_for_version: Optional[str] = None
    otlp_traces_endpoint: Optional[str] = None
    collect_detailed_traces: Optional[str] = None
    #: ParallelConfig's --ray-workers-use-nsight and (0.20.0+) --numa-bind, --numa-bind-nodes and
    #: --numa-bind-cpus (their values joined by NUL; None: not given) (kvguard.rules.parallel_flags)
    ray_workers_use_nsight: bool = False
    numa_bind: bool = False
    numa_bind_nodes: Optional[str] = None
    numa_bind_cpus: Optional[str] = None
    #: --enable-mamba-cache-stochastic-rounding (0.20.0+) and CacheConfig's --mamba-ssm-cache-dtype
    #: (kvguard.rules.mamba_rounding)
    enable_mamba_cache_stochastic_rounding: bool = False
    mamba_ssm_cache_dtype: str = "auto"
    #: --mamba-backend (0.20.0+; None: MambaConfig's default) and --mamba-ssu-algorithm (0.27.0+; None: not given)
    #: (kvguard.rules.mamba_rounding)
    mamba_backend: Optional[str] = None
    mamba_ssu_algorithm: Optional[str] = None
    #: --api-server-count (None: the release's default; below 1 no API server starts, as with --headless), --grpc
    #: (0.20.0+: the gRPC server instead of the API server) and the reasoning parser a --structured-outputs-config
    #: JSON names (None: none), which the API server looks up (kvguard.rules.parsers)
    api_server_count: Optional[int] = None
    grpc: bool = False
    structured_reasoning_parser: Optional[str] = None
    #: --default-mm-loras as given (JSON; None: not given), which create_engine_config refuses for a text-only model
    #: (kvguard.rules.late_options)
    default_mm_loras: Optional[str] = None
    #: with --enable-lora, why LoRAConfig would refuse that value (pydantic's words: undecidable once reached)
    default_mm_loras_problem: Optional[str] = None
    #: with --enable-lora only, the last --max-loras / --max-cpu-loras / --max-lora-rank / --lora-extra-vocab-size
    #: argparse stored (None: not given, or "None"), which LoRAConfig checks (kvguard.rules.lora_config)
    lora_max_loras: Optional[int] = None
    lora_max_cpu_loras: Optional[int] = None
    lora_max_lora_rank: Optional[int] = None
    lora_extra_vocab_size: Optional[int] = None
    #: with --enable-lora only, a last --max-loras / --max-lora-cls-labels outside LoRAConfig's field bound (ge=1;
    #: 0.11.1+ / 0.31.0+), which the release refuses with a ValidationError (kvguard.rules.lora_config)
    lora_max_loras_out_of_bounds: Optional[int] = None
    lora_max_lora_cls_labels_out_of_bounds: Optional[int] = None
    #: 0.33.0's --reasoning-effort-map as given (JSON; None: not given), which validate_parsed_serve_args checks
    #: (kvguard.rules.late_options)
    reasoning_effort_map: Optional[str] = None
    #: a multimodal option's value outside its MultiModalConfig field's bounds (why the release would refuse it):
    #: refused only for a multimodal model, which alone gets that config (kvguard.rules.table mc_multimodal_values)
    multimodal_value_problem: Optional[str] = None
    #: --mm-shm-cache-max-object-size-mb and --mm-processor-cache-type as given (None: not given), which a multimodal
    #: model's MultiModalConfig compares (kvguard.rules.table MC_mm_shm_cache_size)
    mm_shm_cache_max_object_size_mb: Optional[str] = None
    mm_processor_cache_type: Optional[str] = None
    #: validate_parsed_serve_args's options (kvguard.rules.serve_args): --chat-template as given, the request / output
    #: logging and per-request metrics switches, --sse-keep-alive-interval (0.29.0+), --grpc-port (0.32.0+), the HTTP
    #: server's --port / --uds / TLS files, and the multi-port external load balancer (0.22.0+) with its supervisor port
    chat_template: Optional[str] = None
    #: --log-config-file as given, a file on the host that vllm serve reads right after argparse (0.31.0+)
    log_config_file: Optional[str] = None
    #: --logging-config's pylogging_config_file as given (0.31.0+; None: not given, "": given as null, which no
    #: longer falls back to VLLM_LOGGING_CONFIG_PATH), another name for the same file
    logging_config_file: Optional[str] = None
    #: --logging-config gives pylogging_config_file as null (logging_config_file then ""): LoggingConfig holds None,
    #: which the engine does not copy back, where an empty name is copied and validated (kvguard.rules.host_options)
    logging_config_file_null: bool = False
    #: --ec-transfer-config names an ec_connector with ec_role "ec_producer" (an encoder-cache producer and not a
    #: consumer): 0.29.0+ VllmConfig makes it an encoder-only instance, refused without a multimodal model
    ec_producer_only: bool = False
    #: --logging-config's configure_logging as pydantic reads it (0.31.0+; None: not given, VLLM_CONFIGURE_LOGGING
    #: decides), which refuses a logging config file when false (kvguard.rules.host_options)
    logging_configure: Optional[bool] = None
    #: --log-level given, or --logging-config naming log_level (0.31.0+): the log level LoggingConfig applies is the
    #: command line's, not VLLM_LOGGING_LEVEL's (kvguard.rules.host_options)
    logging_level_given: bool = False
    #: the host facts of ModelConfig (kvguard.rules.host_options): --enable-sleep-mode, and --enable-cumem-allocator
    #: (0.22.0+), which the platform's support decides
    enable_sleep_mode: bool = False
    enable_cumem_allocator: bool = False
    #: --device-ids (0.24.0+) as the release's argparse type splits it, the items NUL-joined (None: not given; an
    #: item of digits only is an integer id, any other a UUID)
    device_ids: Optional[str] = None
    #: --kda-prefill-backend (0.27.0+; None: not given), whose flashkda / fused kernels create_engine_config ties to
    #: CUDA / ROCm from 0.30.0
    kda_prefill_backend: Optional[str] = None
    enable_log_outputs: bool = False
    enable_log_requests: bool = False
    disable_log_stats: bool = False
    enable_per_request_metrics: bool = False
    #: --fail-on-environ-validation (0.17.0+): an unknown VLLM_* variable refuses the launch (kvguard.rules.environ)
    fail_on_environ_validation: bool = False
    sse_keep_alive_interval: int = 0
    grpc_port: Optional[int] = None
    port: int = 8000
    uds: Optional[str] = None
    ssl_keyfile: Optional[str] = None
    ssl_certfile: Optional[str] = None
    ssl_ca_certs: Optional[str] = None
    data_parallel_multi_port_external_lb: bool = False
    data_parallel_supervisor_port: int = 9256
    #: ModelConfig's --config-format (the config parser's name) and --hf-config-path (None: the model's own config)
    #: (kvguard.rules.engine_options)
    config_format: str = "auto"
    hf_config_path: Optional[str] = None
    #: ModelConfig's --model-impl (None: auto) (kvguard.rules.engine_options)
    model_impl: Optional[str] = None
    #: microbatching: --enable-dbo (0.11.0+), --ubatch-size (0.14.0+) and the DBO token thresholds (None: the
    #: release's defaults) (kvguard.rules.engine_options)
    enable_dbo: bool = False
    ubatch_size: int = 0
    dbo_decode_token_threshold: Optional[int] = None
    dbo_prefill_token_threshold: Optional[int] = None
    #: the deprecated structured-output switches (0.10.2 - 0.11.2; None: not given) and the backend they need:
    #: 0.10.2's --guided-decoding-backend, 0.11.x's --structured-outputs-config backend (None: auto)
    #: (kvguard.rules.engine_options)
    guided_decoding_backend: Optional[str] = None
    guided_decoding_disable_any_whitespace: Optional[bool] = None
    guided_decoding_disable_additional_properties: Optional[bool] = None
    structured_outputs_backend: Optional[str] = None
    #: OffloadConfig's --offload-backend and the prefetch group (0.17.0+; None: the defaults) and 0.11.1+'s
    #: --kv-offloading-backend / --kv-offloading-size (None: not given) (kvguard.rules.engine_options)
    offload_backend: str = "auto"
    offload_group_size: Optional[int] = None
    offload_num_in_group: Optional[int] = None
    offload_prefetch_step: Optional[int] = None
    kv_offloading_backend: Optional[str] = None
    kv_offloading_size: Optional[float] = None

    #: name -> FieldInfo, in declaration order (set below the class)
    model_fields: ClassVar[dict[str, FieldInfo]]
    #: the fields given explicitly (set per instance in __init__; not a field)
    model_fields_set: ClassVar[frozenset[str]]

    def __init__(self, **data: Any) -> None:
        fast = _FAST_TYPES
        for name, value in data.items():
            kinds = fast.get(name)
            if kinds is None or type(value) not in kinds:
                # unknown field or a value strict mode may refuse (or coerce): pydantic decides
                model = _strict_model()(**data)
                data = {name: getattr(model, name) for name in data}
                break
        values = self.__dict__  # unset fields read the class defaults
        values.update(data)
        values["model_fields_set"] = frozenset(data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Layout is frozen: cannot set {name!r}")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name, _, _ in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "Layout(" + ", ".join(f"{name}={getattr(self, name)!r}" for name, _, _ in _FIELDS) + ")"

    def __reduce__(self):
        return (_rebuild, (self.model_dump(exclude_unset=True),))

    @classmethod
    def model_validate(cls, obj: Any) -> "Layout":
        if isinstance(obj, cls):
            return obj
        if not isinstance(obj, Mapping):
            _strict_model().model_validate(obj)  # raises pydantic's ValidationError
        return cls(**obj)

    def model_dump(self, *, exclude_unset: bool = False, exclude_defaults: bool = False) -> dict[str, Any]:
        out = {}
        for name, _, default in _FIELDS:
            if exclude_unset and name not in self.model_fields_set:
                continue
            value = getattr(self, name)
            if exclude_defaults and value == default:
                continue
            out[name] = value
        return out

    def model_copy(self, *, update: Optional[Mapping[str, Any]] = None) -> "Layout":
        """A copy with ``update`` applied — like pydantic, the update is not validated."""
        update = dict(update or {})
        for name in update:
            if name not in self.model_fields:
                raise AttributeError(f"Layout has no field {name!r}")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(update)
        new.__dict__["model_fields_set"] = self.model_fields_set | frozenset(update)
        return new

    @property
    def tp(self) -> int:
        return self.tensor_parallel_size

    @property
    def pp(self) -> int:
        return self.pipeline_parallel_size

    @property
    def dp(self) -> int:
        return self.data_parallel_size

    @property
    def pcp(self) -> int:
        return self.prefill_context_parallel_size

    @property
    def dcp(self) -> int:
        return self.decode_context_parallel_size

    def flags(self) -> list[str]:
        """The shortest ``vllm serve`` flags that express this layout (defaults omitted)."""
        out: list[str] = []
        short = {v: k for k, v in ALIASES.items() if k in {"tp", "pp", "dp", "pcp", "dcp"}}
        for name, _, default in _FIELDS:
            value = getattr(self, name)
            if value == default:
                continue
            flag = f"-{short[name]}" if name in short else "--" + name.replace("_", "-")
            if isinstance(value, bool):
                out.append(flag if value else "--no-" + name.replace("_", "-"))
            else:
                out += [flag, str(value)]
        return out


#: the annotations the fields use, evaluated (``typing.get_type_hints`` evaluates each string
#: annotation anew: ~0.7 ms of a cold check, and typing's import ~4%; it decides any other annotation)
_TYPES: dict[str, Any] = {"int": int, "bool": bool, "str": str, "float": float, "Optional[int]": int | None,
                          "Optional[str]": str | None, "Optional[bool]": bool | None, "Optional[float]": float | None}


def _type_hints(cls: type) -> dict[str, Any]:
    annotations = cls.__dict__["__annotations__"]
    if all(isinstance(a, str) and a in _TYPES for a in annotations.values() if not str(a).startswith("ClassVar")):
        return {name: _TYPES[a] for name, a in annotations.items() if not str(a).startswith("ClassVar")}
    import typing  # the names the annotations use are imported for the type checker only

    return typing.get_type_hints(cls, localns={name: getattr(typing, name) for name in ("Any", "ClassVar", "Optional")})


#: (field, type, vLLM's default), in declaration order — read from the class body above
_FIELDS: tuple[tuple[str, Any, Any], ...] = tuple(
    (name, tp, getattr(Layout, name)) for name, tp in _type_hints(Layout).items()
    if name not in ("model_fields", "model_fields_set"))
Layout.model_fields = {name: FieldInfo(tp, default) for name, tp, default in _FIELDS}

#: the exact Python types a field of each type takes without a second look (pydantic strict mode accepts
#: exactly these; anything else is decided by the pydantic model, :func:`_strict_model`)
_EXACT_TYPES: dict[Any, tuple[type, ...]] = {
    int: (int,), bool: (bool,), str: (str,), float: (float,), int | None: (int, type(None)),
    str | None: (str, type(None)), bool | None: (bool, type(None)), float | None: (float, type(None))}
#: the same by field
_FAST_TYPES: dict[str, tuple[type, ...]] = {name: _EXACT_TYPES[tp] for name, tp, _ in _FIELDS}


def _rebuild(data: dict) -> Layout:
    return Layout(**data)


def make_layout(layout: Layout | Mapping[str, Any] | None = None, **fields: Any) -> Layout:
    """Merge a layout (object or mapping) with keyword fields; resolve aliases."""
    if layout is None:  # keyword fields only (the usual call): their names are strings
        items = fields.items()
    else:
        if isinstance(layout, Layout):
            data = layout.model_dump(exclude_unset=True)
        elif isinstance(layout, Mapping):
            data = dict(layout)
        else:
            raise InputError(f"layout must be a kvguard.Layout or a mapping, not {type(layout).__name__}",
                             source="<layout>")
        data.update(fields)
        for key in data:
            if not isinstance(key, str):
                raise InputError("field names must be strings", source="<layout>", key=repr(key))
        items = data.items()
    norm: dict[str, Any] = {}
    for key, value in items:
        name = ALIASES.get(key, key)
        if name in norm and norm[name] != value:
            raise InputError(f"given twice with different values ({norm[name]!r}, {value!r})",
                             source="<layout>", key=name)
        norm[name] = value
    try:
        return Layout(**norm)
    except Exception as exc:  # pydantic is imported only when a value needs it
        from pydantic import ValidationError
        if not isinstance(exc, ValidationError):
            raise
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ())) or None
        if err.get("type") == "extra_forbidden":
            raise InputError("unknown layout field", source="<layout>", key=loc) from None
        raise InputError(err.get("msg", "invalid value"), source="<layout>", key=loc) from None


#: the standard CUDA node the CLI assumes unless told otherwise (documented in the README): the
#: standard deployment, vLLM's official vllm/vllm-openai image on an 8-GPU node.  That image ships
#: Ray (vLLM's multi-node executor), so `--distributed-executor-backend ray` finds it.
STANDARD_NODE: dict[str, Any] = {"platform": "cuda", "gpus_per_node": 8, "ray": True, "triton": True, "nixl": False,
                                 # H100-class GPUs: compute capability 9.0 (sm_90), as vLLM's to_int() writes it
                                 "gpu_capability": 90,
                                 # the image ships no intel_extension_for_pytorch (read on the CPU platform only)
                                 "ipex": False,
                                 # a CPU without AMX tiles (read on the CPU platform only, where vLLM 0.22.0+
                                 # asks torch.cpu._is_amx_tile_supported(): kvguard.rules.cpu_amx)
                                 "amx": False,
                                 # what a fresh install of any release resolves (kvguard.launch.pydantic_text)
                                 "pydantic": DEFAULT_PYDANTIC}

_HOST_FACTS = ("platform", "gpus_per_node", "ray", "triton", "nixl", "cpu_memory_bytes", "gpu_capability",
               "arctic_inference", "ipex", "amx", "pydantic")


class Host(Record):
    """Machine facts that some launch checks read (``None`` = unknown → check skipped).

    ``platform``: vLLM's ``current_platform`` kind.  ``gpus_per_node``: what
    ``current_platform.device_count()`` returns.  ``ray``/``triton``/``nixl``:
    whether those packages import.  ``in_ray_placement_group``: vLLM runs
    inside a Ray placement group (selects the ray executor).  ``assumed``: the
    facts that are defaults rather than statements about the real host; a
    verdict lists the ones its checks read as assumptions.
    """

    platform: Optional[str] = None
    gpus_per_node: Optional[int] = None
    ray: Optional[bool] = None
    triton: Optional[bool] = None
    nixl: Optional[bool] = None
    #: psutil.virtual_memory().total — CacheConfig's swap-space check (0.10.2–0.17.1)
    cpu_memory_bytes: Optional[int] = None
    #: the GPUs' compute capability as ``DeviceCapability.to_int()`` (90: H100-class sm_90; 100: B200; 80:
    #: A100) — the kernels model construction selects, the attention backend the release selects (worker
    #: start), 0.10.2's --kv-cache-dtype support check
    gpu_capability: Optional[int] = None
    #: whether the arctic-inference package imports (suffix decoding needs it)
    arctic_inference: Optional[bool] = None
    #: whether intel_extension_for_pytorch imports (0.10.2's CPU platform allows other block sizes than 16 with it)
    ipex: Optional[bool] = None
    #: whether the CPU has AMX tiles (``torch.cpu._is_amx_tile_supported()``): the CPU platform of 0.22.0+ reads it
    #: (kvguard.rules.cpu_amx)
    amx: Optional[bool] = None
    #: the installed pydantic's major.minor ("2.14"): the documentation link its ValidationError prints names it
    pydantic: Optional[str] = None
    in_ray_placement_group: bool = False
    assumed: frozenset = frozenset()

    @classmethod
    def cuda_node(cls, gpus_per_node: int = 8) -> "Host":
        """A standard CUDA node (stated, not assumed): 8 H100-class GPUs (compute capability 9.0), Triton
        and Ray installed, no NIXL."""
        return cls(**dict(STANDARD_NODE, gpus_per_node=gpus_per_node))

    @classmethod
    def standard(cls, **known: Any) -> "Host":
        """The standard CUDA node, with ``known`` facts stated and the rest marked as assumed."""
        unknown = [k for k in known if k not in _HOST_FACTS and k != "in_ray_placement_group"]
        if unknown:
            raise InputError(f"unknown host fact {unknown[0]!r}", source="<host>")
        facts = dict(STANDARD_NODE)
        facts.update({k: v for k, v in known.items() if v is not None})
        assumed = frozenset(k for k in STANDARD_NODE if known.get(k) is None)
        return cls(**facts, assumed=assumed)

    def describe(self, name: str) -> str:
        return f"{name}={getattr(self, name)}"
