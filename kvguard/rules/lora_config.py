"""LoRAConfig's own refusals, built with ``--enable-lora`` only, in ``EngineArgs.create_engine_config``
(vllm/engine/arg_utils.py) right after SchedulerConfig and the text-only ``--default-mm-loras`` refusal.

Mirrors vllm/config/lora.py, 0.10.2 - 0.33.0 (a pydantic dataclass in every release: its ValueErrors come wrapped in a
ValidationError for LoRAConfig):

- 0.10.2 - 0.11.0, ``LoRAConfig.__post_init__``, in this order: ``max_lora_rank`` one of (8, 16, 32, 64, 128, 256,
  320, 512); ``lora_extra_vocab_size`` one of (256, 512); ``max_loras`` at least 1; then ``max_cpu_loras`` at least
  ``max_loras``.  The option table gives these int types, no choices.
- 0.11.1 - 0.33.0: the rank and the extra vocabulary size are Literal fields (argparse's choices) and ``max_loras``
  is ``Field(ge=1)`` (``max_lora_cls_labels`` too from 0.31.0): kvguard.launch.argv leaves a value outside them
  undecidable.  ``_validate_lora_config`` (the model validator, after the fields) keeps the ``max_cpu_loras`` check,
  whose message gains a final period in 0.14.0.
- ``create_engine_config`` hands LoRAConfig ``max_cpu_loras`` only when it is above 0 (else None: it becomes
  ``max_loras``), in every release.

- 0.20.0+, in the model validator right after the ``max_cpu_loras`` check: ``VLLM_LORA_ENABLE_DUAL_STREAM`` (vllm/envs.py:
  ``bool(int(...))``, read from the environment then) on a platform that is not CUDA-like (``is_cuda_alike``: CUDA,
  ROCm; the host fact ``platform``).  A value ``int()`` refuses raises inside the validator: undecidable, as is a TPU
  host from 0.11.1 (the tpu_inference package's platform class).

- 0.26.0+, ``verify_with_model_config`` (run later, in VllmConfig.__post_init__): a model whose architectures name
  "Inkling" is refused unless INKLING_MULTIMEM_AR is "0".  kvguard does not place that check among VllmConfig's:
  such a launch is undecidable here, before the checks it would come after.

- 0.33.0, ``verify_with_kernel_config`` (VllmConfig, just before ``verify_with_model_config``): a megakernel MoE
  backend (vllm/config/kernel.py ``MEGA_MOE_BACKENDS``, or ``aiter_mega_moe``; KernelConfig lower-cases the name and
  turns "-" into "_") is refused (kvguard.rules.table LC_lora_mega_moe, not placed): undecidable here.

- Every release: a model class without the ``SupportsLoRA`` interface (kvguard/data/archs.json's ``supports_lora``:
  ``isinstance(cls, _SupportsLoRAType)``, vllm/model_executor/models/interfaces.py) is refused.  0.33.0 refuses it in
  ``verify_with_model_config`` (VllmConfig, after ``verify_with_kernel_config``; "LoRA is not supported for …");
  0.10.2 - 0.32.0 refuse it when the worker loads the LoRA model (vllm/v1/worker/lora_model_runner_mixin.py, "… does
  not support LoRA yet.").  kvguard places neither: such a launch is undecidable here, as is one whose class kvguard
  cannot name (an architecture the registry does not hold, e.g. the Transformers backend's).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["CPU_LORAS_MESSAGE", "CPU_LORAS_MESSAGE_0_10", "DUAL_STREAM_MESSAGE", "EXTRA_VOCAB_MESSAGE",
           "EXTRA_VOCAB_SIZES", "MAX_LORAS_MESSAGE", "RANKS", "RANK_MESSAGE", "cpu_loras_below", "cpu_loras_bind",
           "dual_stream_off_cuda", "extra_vocab_bind", "extra_vocab_refused", "inkling_unmodelled",
           "lora_class_unmodelled", "max_loras_below_one", "max_loras_bind", "mega_moe_unmodelled", "rank_bind",
           "rank_refused"]

#: 0.10.2 - 0.11.0's accepted ranks and extra vocabulary sizes
RANKS = (8, 16, 32, 64, 128, 256, 320, 512)
EXTRA_VOCAB_SIZES = (256, 512)
RANK_MESSAGE = "max_lora_rank ({rank}) must be one of {ranks}."
EXTRA_VOCAB_MESSAGE = "lora_extra_vocab_size ({size}) must be one of {sizes}."
MAX_LORAS_MESSAGE = "max_loras ({max_loras}) must be >= 1."
#: 0.10.2 - 0.13.0 (no final period)
CPU_LORAS_MESSAGE_0_10 = "max_cpu_loras ({max_cpu_loras}) must be >= max_loras ({max_loras})"
#: 0.14.0+
CPU_LORAS_MESSAGE = CPU_LORAS_MESSAGE_0_10 + "."

#: EngineArgs' defaults when the option is not given (every release: max_loras 1, max_lora_rank 16, extra vocab 256)
_DEFAULT_MAX_LORAS = 1


def _max_loras(state: Any) -> int:
    value = state.layout.lora_max_loras
    return _DEFAULT_MAX_LORAS if value is None else value


def rank_refused(state: Any) -> bool:
    rank = state.layout.lora_max_lora_rank
    return state.layout.enable_lora and rank is not None and rank not in RANKS


def rank_bind(state: Any) -> dict:
    return {"rank": state.layout.lora_max_lora_rank, "ranks": RANKS}


def extra_vocab_refused(state: Any) -> bool:
    size = state.layout.lora_extra_vocab_size
    return state.layout.enable_lora and size is not None and size not in EXTRA_VOCAB_SIZES


def extra_vocab_bind(state: Any) -> dict:
    return {"size": state.layout.lora_extra_vocab_size, "sizes": EXTRA_VOCAB_SIZES}


def max_loras_below_one(state: Any) -> bool:
    return state.layout.enable_lora and _max_loras(state) < 1


def max_loras_bind(state: Any) -> dict:
    return {"max_loras": _max_loras(state)}


def _cpu_loras(state: Any) -> Optional[int]:
    """What create_engine_config hands LoRAConfig: the value when above 0, else None."""
    value = state.layout.lora_max_cpu_loras
    return value if value is not None and value > 0 else None


def cpu_loras_below(state: Any) -> bool:
    cpu = _cpu_loras(state)
    return state.layout.enable_lora and cpu is not None and cpu < _max_loras(state)


def cpu_loras_bind(state: Any) -> dict:
    return {"max_cpu_loras": _cpu_loras(state), "max_loras": _max_loras(state)}


DUAL_STREAM_MESSAGE = "Dual CUDA streams are only supported on CUDA platforms."
_DUAL_STREAM = "VLLM_LORA_ENABLE_DUAL_STREAM"


def dual_stream_off_cuda(state: Any) -> bool:
    """0.20.0+: the dual-stream switch on a platform that is not CUDA-like."""
    if not state.layout.enable_lora:
        return False
    value = state.env.get("VLLM_LORA_ENABLE_DUAL_STREAM")
    if value is None:
        return False
    try:
        on = bool(int(value))
    except ValueError:
        state.undecided(f"LoRAConfig reads {_DUAL_STREAM}={value!r} with int(), whose ValueError it raises inside "
                        "its validation: kvguard does not render that error")
    if not on:
        return False
    platform = state.need("platform")
    if platform == "tpu":
        state.undecided(f"{_DUAL_STREAM} on TPU: vLLM {state.release.version}'s TPU platform is the tpu_inference "
                        "package's, whose is_cuda_alike answer kvguard does not model")
    return platform not in ("cuda", "rocm")


def inkling_unmodelled(state: Any) -> None:
    """0.26.0+: an Inkling model with --enable-lora (see the module docstring)."""
    if not state.layout.enable_lora:
        return
    if any("Inkling" in arch for arch in state.facts.architectures or ()):
        state.undecided("vLLM refuses --enable-lora for an Inkling model unless INKLING_MULTIMEM_AR=0 "
                        "(LoRAConfig.verify_with_model_config, in VllmConfig), a check kvguard does not place")


#: 0.33.0's MEGA_MOE_BACKENDS (vllm/config/kernel.py) and the AITER one verify_with_kernel_config adds
_MEGA_MOE = frozenset({"deep_gemm_mega_moe", "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm",
                       "aiter_mega_moe"})


def mega_moe_unmodelled(state: Any) -> None:
    """0.33.0: --enable-lora with a megakernel --moe-backend (see the module docstring)."""
    if not state.layout.enable_lora:
        return
    backend = (state.layout.moe_backend or "auto").lower().replace("-", "_")
    if backend in _MEGA_MOE:
        state.undecided(f"vLLM 0.33.0 refuses --enable-lora with moe_backend={backend!r} "
                        "(LoRAConfig.verify_with_kernel_config, in VllmConfig), a check kvguard does not place")


def lora_class_unmodelled(state: Any) -> None:
    """Every release: --enable-lora for a model class without SupportsLoRA, or one kvguard cannot name (see the
    module docstring)."""
    if not state.layout.enable_lora:
        return
    from kvguard.archs import arch_flag  # the registry data loads on first use only

    architectures = state.facts.architectures or ()
    supported = arch_flag(architectures, "supports_lora", state.release)
    if supported is None:
        state.undecided(f"whether vLLM {state.release.version} resolves architectures {list(architectures)} to a "
                        "model class with the SupportsLoRA interface is not recorded, and vLLM refuses "
                        "--enable-lora for a class without it")
    if not supported:
        where = ("LoRAConfig.verify_with_model_config, in VllmConfig" if state.release.within("0.33.0")
                 else "when the worker loads the LoRA model")
        state.undecided(f"vLLM {state.release.version} refuses --enable-lora for a model class without the "
                        f"SupportsLoRA interface ({list(architectures)}; {where}), a check kvguard does not place")
