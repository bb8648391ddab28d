"""Features the V1 engine lacks: ``EngineArgs._check_feature_supported`` (vllm/engine/arg_utils.py, 0.11.1+) and, on
0.10.2 / 0.11.0, the V1 oracle ``EngineArgs._is_v1_supported_oracle`` that came before it.  Both run in
``create_engine_config`` right after ModelConfig is built.

- 0.11.1+ raise NotImplementedError for ``--logits-processor-pattern`` (to 0.16.0), for concurrent partial prefills
  (``--max-num-partial-prefills`` / ``--max-long-partial-prefills`` other than 1; the options are gone from 0.27.0)
  and for pipeline parallelism on an executor other than ray / mp / external_launcher.
- 0.10.2 / 0.11.0 walk a list of features in a fixed order.  With ``VLLM_USE_V1=1`` set, the first one present
  raises NotImplementedError; with the variable unset, the first one present sends the engine back to V0 and the
  rest of the list is not looked at; ``VLLM_USE_V1=0`` skips the list.  0.10.2 then runs its V0 engine (whose
  SchedulerConfig checks concurrent partial prefills against V0's own chunked-prefill default, not modelled);
  0.11.0 has no V0 engine left: its config is built with V1's defaults and the API server stops at a bare
  ``assert envs.VLLM_USE_V1`` (not modelled either: such a launch is undecidable after the config checks).

Which features a release lists, and in which order, is :data:`ORACLE_FEATURES`; the checks kvguard cannot follow
(0.10.2's platform hooks ``supports_v1`` / ``default_v1``) are not in it.
"""

from __future__ import annotations

from ..record import Record

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

__all__ = ["BACKEND_NAMES_0110", "ORACLE_FEATURES", "ORACLE_MESSAGE", "OracleFeature", "UNSUPPORTED_MESSAGE",
           "V0_ONLY_ARCHITECTURES", "V1_BACKENDS", "attention_backend_not_v1", "cpu_sliding_window", "draft_model_reached", "env_flag_set",
           "falls_back_to_v0", "first_oracle_feature", "kv_cache_dtype_unsupported", "logits_processor_pattern_set",
           "oracle_refuses", "partial_prefill_set", "api_server_without_v1", "pp_without_supported_executor", "runs_v0_engine"]

#: ``_raise_or_fallback`` with VLLM_USE_V1=1 set (0.10.2 / 0.11.0)
ORACLE_MESSAGE = "VLLM_USE_V1=1 is not supported with {feature}."
#: ``_raise_unsupported_error`` (0.11.1+)
UNSUPPORTED_MESSAGE = "{feature} is not supported. We recommend to remove {feature} from your config."

#: 0.10.2's ``_is_v1_supported_oracle``: the attention backends VLLM_ATTENTION_BACKEND may name
V1_BACKENDS = {
    "0.10.2": ("FLASH_ATTN_VLLM_V1", "FLASH_ATTN", "PALLAS", "PALLAS_VLLM_V1", "TRITON_ATTN_VLLM_V1", "TRITON_MLA",
               "CUTLASS_MLA", "FLASHMLA", "FLASHMLA_VLLM_V1", "FLASH_ATTN_MLA", "FLASHINFER", "FLASHINFER_VLLM_V1",
               "FLASHINFER_MLA", "ROCM_AITER_MLA", "TORCH_SDPA_VLLM_V1", "FLEX_ATTENTION", "TREE_ATTN",
               "XFORMERS_VLLM_V1"),
    "0.11.0": ("FLASH_ATTN", "PALLAS", "TRITON_ATTN", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA", "FLASH_ATTN_MLA",
               "FLASHINFER", "FLASHINFER_MLA", "ROCM_AITER_MLA", "TORCH_SDPA", "FLEX_ATTENTION", "TREE_ATTN",
               "XFORMERS", "ROCM_ATTN"),
}
#: 0.11.0: VLLM_ATTENTION_BACKEND is read through env_with_choices (the _Backend names)
BACKEND_NAMES_0110 = ("FLASH_ATTN", "TRITON_ATTN", "XFORMERS", "ROCM_FLASH", "ROCM_AITER_MLA", "ROCM_AITER_FA",
                      "TORCH_SDPA", "FLASHINFER", "FLASHINFER_MLA", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA",
                      "FLASH_ATTN_MLA", "PALLAS", "IPEX", "DUAL_CHUNK_FLASH_ATTN", "DIFFERENTIAL_FLASH_ATTN",
                      "NO_ATTENTION", "FLEX_ATTENTION", "TREE_ATTN", "ROCM_ATTN")
#: the registered architectures whose model class is ``SupportsV0Only`` (vllm/model_executor/models/registry.py and
#: the classes it names): the oracle names ``model_config.architectures`` for them
V0_ONLY_ARCHITECTURES = {
    "0.10.2": frozenset({"MotifForCausalLM", "Phi4FlashForCausalLM", "BartModel", "BartForConditionalGeneration",
                         "MBartForConditionalGeneration"}),
    "0.11.0": frozenset({"MotifForCausalLM"}),
}


def env_flag_set(state: Any, name: str) -> bool:
    """An ``int``-valued switch of vllm/envs.py that is set and not 0."""
    value = state.env.get(name)
    return value is not None and bool(int(value))


def logits_processor_pattern_set(state: Any) -> bool:
    return state.layout.logits_processor_pattern is not None


def partial_prefill_set(state: Any) -> bool:
    """Either concurrent-partial-prefill option other than SchedulerConfig's default, 1."""
    return state.layout.max_num_partial_prefills != 1 or state.layout.max_long_partial_prefills != 1


def pp_without_supported_executor(state: Any) -> bool:
    return state.pp > 1 and state.backend not in (None, "ray", "mp", "external_launcher")


def attention_backend_not_v1(state: Any) -> bool:
    backend = state.env.get("VLLM_ATTENTION_BACKEND")
    if backend is None:
        return False
    if state.release.within("0.11.0") and backend not in BACKEND_NAMES_0110:
        state.skip("VLLM_ATTENTION_BACKEND outside the release's backend names (its validation is not modelled)")
    return backend not in V1_BACKENDS["0.11.0" if state.release.within("0.11.0") else "0.10.2"]


def _fa3_fp8(state: Any, capability: int) -> bool:
    """``flash_attn_supports_fp8`` (0.10.2): FlashAttention 3 on a compute-capability-9 GPU.  The
    official image's vllm-flash-attn builds FA3 for sm_90; VLLM_FLASH_ATTN_VERSION overrides
    (``maybe_convert_int``: a non-integer raises ValueError; a value other than 2/3 fails an assert
    that the function catches: no FA version, no FP8)."""
    if capability // 10 != 9:
        return False
    forced = state.env.get("VLLM_FLASH_ATTN_VERSION")
    return forced is None or int(forced) == 3


def kv_cache_dtype_unsupported(state: Any) -> bool:
    """``current_platform.is_kv_cache_dtype_supported`` (0.10.2) is False for ``--kv-cache-dtype``."""
    if state.kv_cache_dtype == "auto":
        return False
    platform = state.need("platform")
    dtype = state.kv_cache_dtype
    backend = state.env.get("VLLM_ATTENTION_BACKEND")
    if platform in ("rocm", "tpu"):
        return False
    if platform == "xpu":
        return not (backend == "TRITON_ATTN_VLLM_V1" and dtype in ("fp8_e4m3", "fp8_e5m2", "fp8"))
    if platform != "cuda":
        return True   # the CPU platform keeps the interface's answer: no FP8 KV cache backend
    fp8 = dtype.startswith("fp8")
    if state.use_mla:
        if backend is None:
            backend = "CUTLASS_MLA" if state.need("gpu_capability") == 100 else "FLASHMLA"
        return not (backend in ("FLASHMLA", "CUTLASS_MLA") or not fp8)
    if backend is None:
        backend = "FLASH_ATTN_VLLM_V1"
    capability = state.need("gpu_capability")
    if capability == 100:
        return False
    if backend == "FLASH_ATTN_VLLM_V1":
        return fp8 and not _fa3_fp8(state, capability)
    if backend == "FLASHINFER":
        return False
    if backend == "TRITON_ATTN_VLLM_V1":
        return not capability >= 89
    return True


def cpu_sliding_window(state: Any) -> bool:
    """The V1 oracle's CPU check: the model keeps a sliding window (None after --disable-sliding-window)."""
    if state.need("platform") != "cpu":
        return False
    derived = getattr(state, "len_derived", None)
    if derived is not None and derived.disable_sliding_window:
        return False
    return state._facts.resolved.get("sliding_window") is not None


def _v0_only_architecture(state: Any) -> bool:
    return not V0_ONLY_ARCHITECTURES[str(state.release.version)].isdisjoint(state.facts.architectures or ())


class OracleFeature(Record):
    """One entry of the V1 oracle's list: the feature the oracle names (``{feature}`` of :data:`ORACLE_MESSAGE`; the
    table's rows quote it), the releases whose list has it, and whether the launch has it."""

    key: str
    feature: str
    since: str
    until: str
    present: Callable[[Any], bool]


#: 0.10.2 / 0.11.0's oracle list, in its order (the draft-model refusal sits between ``partial_prefill`` and
#: ``attention_backend``: it raises whatever VLLM_USE_V1 says, so it is a row of its own)
ORACLE_FEATURES: tuple[OracleFeature, ...] = (
    OracleFeature("sharded_state", "--load_format sharded_state", "0.10.2", "0.10.2",
                  lambda state: state.layout.load_format == "sharded_state"),
    OracleFeature("logits_processor_pattern", "--logits-processor-pattern", "0.10.2", "0.11.0",
                  logits_processor_pattern_set),
    OracleFeature("preemption_mode", "--preemption-mode", "0.10.2", "0.10.2",
                  lambda state: state.layout.preemption_mode is not None),
    OracleFeature("async_output_proc", "--disable-async-output-proc", "0.10.2", "0.10.2",
                  lambda state: state.layout.disable_async_output_proc),
    OracleFeature("scheduler_delay_factor", "--scheduler-delay-factor", "0.10.2", "0.10.2",
                  lambda state: state.layout.scheduler_delay_factor != 0.0),
    OracleFeature("kv_cache_dtype", "--kv-cache-dtype", "0.10.2", "0.10.2", kv_cache_dtype_unsupported),
    OracleFeature("prompt_embeds", "--enable-prompt-embeds", "0.10.2", "0.10.2",
                  lambda state: state.layout.enable_prompt_embeds),
    OracleFeature("v0_only_architecture", "{architectures}", "0.10.2", "0.11.0", _v0_only_architecture),
    OracleFeature("partial_prefill", "Concurrent Partial Prefill", "0.10.2", "0.11.0", partial_prefill_set),
    OracleFeature("attention_backend", "VLLM_ATTENTION_BACKEND={backend}", "0.10.2", "0.11.0",
                  attention_backend_not_v1),
    OracleFeature("pipeline_parallel", "Pipeline Parallelism without Ray distributed executor or multiprocessing "
                  "executor or external launcher", "0.10.2", "0.11.0", pp_without_supported_executor),
    OracleFeature("cpu_sliding_window", "sliding window (CPU backend)", "0.10.2", "0.11.0", cpu_sliding_window),
)
_DRAFT_MODEL_AFTER = "partial_prefill"


def _consults_oracle(state: Any) -> bool:
    """``envs.VLLM_USE_V1 or not envs.is_set("VLLM_USE_V1")``."""
    return state.env.get("VLLM_USE_V1") is None or env_flag_set(state, "VLLM_USE_V1")


def first_oracle_feature(state: Any, until: Optional[str] = None) -> Optional[OracleFeature]:
    """The first feature of the release's oracle list the launch has (up to and including the entry ``until``);
    None when it has none, or the release has no oracle, or VLLM_USE_V1=0 skips it."""
    release = state.release
    if not release.within("0.10.2", "0.11.0") or not _consults_oracle(state):
        return None
    for entry in ORACLE_FEATURES:
        if release.within(entry.since, entry.until) and entry.present(state):
            return entry
        if entry.key == until:
            break
    return None


def oracle_refuses(state: Any, key: str) -> bool:
    """VLLM_USE_V1=1 is set and ``key`` is the first feature of the list the launch has: the oracle raises."""
    if not env_flag_set(state, "VLLM_USE_V1"):
        return False
    first = first_oracle_feature(state, until=key)
    if first is None or first.key != key:
        return False
    if first.key == "v0_only_architecture":
        state.undecided("vLLM's V1 support check refuses this launch naming the model's architectures as ModelConfig "
                        "lists them, which kvguard does not quote")
    return True


def falls_back_to_v0(state: Any, until: Optional[str] = None) -> bool:
    """VLLM_USE_V1 is unset and the oracle finds a feature (up to ``until``): the engine goes back to V0."""
    return state.env.get("VLLM_USE_V1") is None and first_oracle_feature(state, until) is not None


def draft_model_reached(state: Any) -> bool:
    """The oracle reaches its draft-model refusal: VLLM_USE_V1 is not 0 and no earlier feature sent it back."""
    return _consults_oracle(state) and not falls_back_to_v0(state, until=_DRAFT_MODEL_AFTER)


def runs_v0_engine(state: Any) -> bool:
    """0.10.2 builds its engine config for V0: VLLM_USE_V1=0, or the oracle falls back."""
    if not state.release.within("0.10.2", "0.10.2"):
        return False
    return state.env.get("VLLM_USE_V1") == "0" or falls_back_to_v0(state)


def api_server_without_v1(state: Any) -> bool:
    """0.11.0: an engine config built without V1 (VLLM_USE_V1=0, or the oracle's fallback) meets the API server's
    ``assert envs.VLLM_USE_V1``."""
    if not _consults_oracle(state) or falls_back_to_v0(state):
        state.undecided("vLLM 0.11.0 builds this launch's engine config without the V1 engine (VLLM_USE_V1=0, or "
                        "its V1 support check falls back), and its API server then asserts VLLM_USE_V1, which "
                        "kvguard does not model")
    return False
