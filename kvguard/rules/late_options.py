"""Late options kvguard reads only to refuse them: the model-runner-bound sampling options, speculative-decoding
metrics, ReplaySSM, modality LoRAs on a text-only model and 0.33.0's reasoning-effort map.

Mirrors (release source, vLLM 0.10.2 - 0.33.0):

- ``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py, every release): right after SchedulerConfig, any
  ``--default-mm-loras`` value JSON reads as true is a raw ValueError for a model whose class takes no multimodal input
  (``ModelConfig.is_multimodal_model``: the registry's ``supports_multimodal``), with or without ``--enable-lora``.
- ``validate_reasoning_effort_map`` (vllm/entrypoints/common/cli_args.py, 0.33.0), called by
  ``validate_parsed_serve_args`` after the gRPC port: the JSON must be an object of strings whose keys are
  ReasoningEffort's literals (vllm/renderers/params.py).
- ``VllmConfig`` (vllm/config/vllm.py, wrapped by VllmConfig):

  * ``_verify_sampling_replay_config`` (``--return-sampling-mask``, 0.28.0+) and ``_verify_trace_replay_config``
    (``--enable-trace-replay``, 0.29.0+), after ``verify_with_parallel_config``: both need the V2 model runner
    (``use_v2_model_runner``: kvguard.rules.table ``_runner``; its default reads the host's Triton).  On the V2 runner
    the sampling replay also reads ``--logprobs-mode``, ``--logits-processors`` and the draft's adaptive
    verification, which kvguard does not read: undecidable there.
  * ``--per-request-spec-decode-metrics`` other than ``none`` without speculative decoding (0.29.0+), after the
    async-scheduling checks.
  * ``--enable-batch-sharded-sampling`` (0.29.0+): on the V1 runner an entry of its unsupported list (kvguard.rules.
    table ``MRV1_UNSUPPORTED``); on the V2 runner ``_validate_batch_sharded_sampling``'s blockers read
    ``--max-logprobs`` and the host's ``--max-num-seqs`` default: undecidable.
  * ``_verify_aux_output_compatibility`` (``--enable-return-routed-experts``, 0.31.0+), last in ``__post_init__``:
    the V2 runner (in-tree platforms), a generate runner, an MoE model, prefix caching -- before the PP / CP checks
    kvguard already had.
  * the ``validate_mamba_cached_kernel`` model validator (``--use-replayssm``, 0.27.0+), after ``__post_init__``: a
    model class without ``SupportsReplaySSM`` is refused, naming ``ModelConfig.architecture``.  Every class that
    declares it (Nemotron-H, and from 0.29.0 Kimi Linear / Kimi K3's NVIDIA build) also declares HasInnerState, so a
    model without inner state is refused; for one with inner state the class's support and the validator's later
    checks (Mamba backend, buffer length, prefix caching, KV connectors) are not modelled: undecidable.
  * 0.30.0+ ``use_v2_model_runner``'s overrides, before VLLM_USE_V2_MODEL_RUNNER and the host's Triton are read:
    HiSparse (``--attention-config``'s ``hisparse_config``, or the HiSparseConnector, which ``__post_init__`` turns
    into one) forces V2 and refuses VLLM_USE_V2_MODEL_RUNNER=0; its own checks (CUDA, PP, DCP, a DSA model) are not
    modelled: undecidable.  A ``--watermark-config`` forces V2 whatever the variable says (kvguard.rules.table
    ``_runner``); with speculative decoding ``_check_supports_watermarking`` reads the draft's sampling and method
    options, which kvguard does not: undecidable.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Optional

__all__ = ["AUX_GENERATE", "AUX_MOE", "AUX_MRV2", "AUX_PREFIX", "DEFAULT_MM_LORAS_MESSAGE", "EFFORTS",
           "PER_REQUEST_SPEC_MESSAGE", "REPLAYSSM_NEMOTRON_MESSAGE", "REPLAYSSM_MESSAGE", "SAMPLING_MASK_MESSAGE",
           "TRACE_REPLAY_MESSAGE", "aux_not_generate", "aux_not_moe", "aux_without_mrv2", "aux_without_prefix_caching",
           "batch_sharded_on_v2", "default_mm_loras_text_only", "effort_map_bind", "effort_map_check",
           "effort_map_problem", "hisparse_unmodelled", "lora_value_problem", "per_request_spec_without_spec",
           "replayssm_bind", "watermark_with_speculative",
           "replayssm_unsupported", "sampling_mask_without_mrv2", "text_only_model", "trace_replay_without_mrv2"]

DEFAULT_MM_LORAS_MESSAGE = "Default modality-specific LoRA(s) were provided for a non multimodal model"
SAMPLING_MASK_MESSAGE = "sampling distribution replay requires Model Runner V2"
TRACE_REPLAY_MESSAGE = "trace replay requires Model Runner V2"
PER_REQUEST_SPEC_MESSAGE = ("--per-request-spec-decode-metrics requires speculative decoding to be enabled (via "
                            "--speculative-config).")
AUX_MRV2 = "AuxOutput Connector requires Model Runner V2; set VLLM_USE_V2_MODEL_RUNNER=1."
AUX_GENERATE = "AuxOutput Connector only supports generate runners."
AUX_MOE = "AuxOutput Connector only supports MoE models."
AUX_PREFIX = "AuxOutput Connector requires prefix caching."
#: 0.27.0 - 0.28.0
REPLAYSSM_NEMOTRON_MESSAGE = "--use-replayssm is only supported for Nemotron-H models (got architecture {arch!r})"
#: 0.29.0+
REPLAYSSM_MESSAGE = "--use-replayssm is not supported for architecture {arch!r}"
#: ReasoningEffort's literals in declaration order (vllm/renderers/params.py, 0.33.0)
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_EFFORT_TYPE = "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings."
_EFFORT_KEYS = "Error: --reasoning-effort-map has unknown efforts {unknown}; keys must be one of {efforts}."


def _json(text: Optional[str]) -> Any:
    """The value argparse stored (the parse stage already refused text JSON cannot read)."""
    return json.loads(text) if text is not None else None


# -- --default-mm-loras -----------------------------------------------------------------------------------------

def default_mm_loras_text_only(state: Any) -> bool:
    text = state.layout.default_mm_loras
    if text is None or text in ("", "None"):   # optional_type's None
        return False
    if not _json(text):
        return False
    return text_only_model(state, "--default-mm-loras is refused")


def text_only_model(state: Any, refusal: str) -> bool:
    """Whether the model's class takes no multimodal input (the registry's ``supports_multimodal``); undecidable,
    naming ``refusal`` (what such a model meets), where the release does not register the architecture."""
    from ..archs import arch_flag

    multimodal = arch_flag(state.facts.architectures, "supports_multimodal", state.release)
    if multimodal is None:
        state.undecided(f"{refusal} for a model without multimodal input, and vLLM {state.release.version} does not "
                        f"register the model's architecture {state.facts.architectures}")
    return multimodal is False


def lora_value_problem(state: Any) -> None:
    """LoRAConfig (built with --enable-lora right after that check) validates the value with pydantic."""
    problem = state.layout.default_mm_loras_problem
    if problem is not None:
        state.undecided(problem)


# -- --reasoning-effort-map (0.33.0) ----------------------------------------------------------------------------

def effort_map_problem(state: Any) -> Optional[str]:
    text = state.layout.reasoning_effort_map
    if text is None:
        return None
    value = _json(text)
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return _EFFORT_TYPE
    unknown = sorted(set(value) - set(EFFORTS))
    if unknown:
        return _EFFORT_KEYS.format(unknown=unknown, efforts=list(EFFORTS))
    return None


def effort_map_check(state: Any) -> bool:
    return effort_map_problem(state) is not None


def effort_map_bind(state: Any) -> dict:
    return {"text": effort_map_problem(state)}


# -- the model runner -------------------------------------------------------------------------------------------

# ``runner``: kvguard.rules.table's reading of VllmConfig.use_v2_model_runner ("v2", "v1", ...), given by the rows
# (the table imports this module), called only where the option is given: its default reads the host's Triton


def sampling_mask_without_mrv2(state: Any, runner: Callable[[Any], Any]) -> bool:
    if not state.layout.return_sampling_mask:
        return False
    if runner(state) != "v2":
        return True
    state.undecided("--return-sampling-mask on the V2 model runner: vLLM then checks --logprobs-mode "
                    "(processed_logprobs), --logits-processors, a diffusion model and the draft's adaptive "
                    "verification, which kvguard does not read")
    return False


def trace_replay_without_mrv2(state: Any, runner: Callable[[Any], Any]) -> bool:
    return state.layout.enable_trace_replay and runner(state) != "v2"


def per_request_spec_without_spec(state: Any) -> bool:
    if state.layout.per_request_spec_decode_metrics == "none":
        return False
    if state.spec is None:
        return True
    if state.sc is None:
        state.undecided("--per-request-spec-decode-metrics needs a speculative config, and whether this launch's "
                        "speculative options build one is not known to kvguard")
    return False


def batch_sharded_on_v2(state: Any, runner: Callable[[Any], Any]) -> None:
    """On the V2 runner (the V1 runner refused it already) the blockers read options kvguard does not."""
    if state.layout.enable_batch_sharded_sampling and runner(state) == "v2":
        state.undecided("--enable-batch-sharded-sampling on the V2 model runner: vLLM refuses it for -tp 1, "
                        "--max-num-seqs below -tp (its default is the host's), --max-logprobs -1 or "
                        "--return-sampling-mask, in one message kvguard does not assemble")


# -- --enable-return-routed-experts (0.31.0+) ---------------------------------------------------------------------

def aux_without_mrv2(state: Any, runner: Callable[[Any], Any]) -> bool:
    return state.routed_experts and runner(state) != "v2"


def aux_not_generate(state: Any) -> bool:
    if not state.routed_experts:
        return False
    lay = state.layout
    if lay.runner == "generate":
        return False
    if lay.runner == "pooling":
        return True
    if lay.runner not in (None, "auto") or lay.convert not in (None, "auto", "none"):
        state.undecided(f"--enable-return-routed-experts needs a generate runner; which runner --runner "
                        f"{lay.runner} / --convert {lay.convert} leads to is not modelled here")
    from ..length import runner_is_pooling

    return bool(runner_is_pooling(state.facts, state.release, state.sidecar))


def aux_not_moe(state: Any) -> bool:
    return state.routed_experts and not state.is_moe


def aux_without_prefix_caching(state: Any) -> bool:
    if not state.routed_experts:
        return False
    given = state.layout.enable_prefix_caching
    if given is not None:
        return not given
    from ..archs import registered_arch
    from .mamba_cache import PURE_MAMBA_ARCHITECTURES

    if registered_arch(state.facts.architectures, state.release) in PURE_MAMBA_ARCHITECTURES:
        state.undecided("--enable-return-routed-experts needs prefix caching, whose default for an attention-free "
                        "model kvguard does not model")
    return False   # a generative model's default from 0.28.0 (hybrid ones included) is on


# -- --use-replayssm (0.27.0+) ------------------------------------------------------------------------------------

def replayssm_unsupported(state: Any) -> bool:
    lay = state.layout
    if not lay.use_replayssm:
        return False
    if lay.runner not in (None, "auto", "generate") or lay.convert not in (None, "auto", "none"):
        state.undecided("--use-replayssm with a pooling runner or --convert: the architecture vLLM names is not "
                        "modelled")
    from ..archs import arch_flag

    inner = arch_flag(state.facts.architectures, "has_inner_state", state.release)
    if inner is False:
        return True
    state.undecided("--use-replayssm on a model with inner state (or one the release does not register): whether "
                    "its class supports ReplaySSM, and the validator's backend, buffer-length, prefix-caching and "
                    "KV-connector checks, are not modelled")
    return False


def replayssm_bind(state: Any) -> dict:
    from ..archs import registered_arch

    return {"arch": registered_arch(state.facts.architectures, state.release)}


# -- 0.30.0+: HiSparse and watermarking force Model Runner V2 ------------------------------------------------------

def hisparse_unmodelled(state: Any) -> None:
    if state.layout.hisparse:
        state.undecided("HiSparse (--attention-config hisparse_config, or the HiSparseConnector): VllmConfig forces "
                        "Model Runner V2 (refusing VLLM_USE_V2_MODEL_RUNNER=0) and checks the platform (CUDA), "
                        "pipeline and decode context parallelism and a DSA model's index_topk, which kvguard does "
                        "not model")


def watermark_with_speculative(state: Any) -> None:
    if state.layout.watermark_config and state.spec is not None:
        state.undecided("--watermark-config with speculative decoding: VllmConfig checks the draft's sample and "
                        "rejection methods, parallel drafting, the method and the algorithm's support, which kvguard "
                        "does not model")
