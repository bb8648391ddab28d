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
- 0.11.1 - 0.33.0: the pydantic field bounds, checked before the model validator: ``max_loras`` ``Field(ge=1)``, and
  from 0.31.0 ``max_lora_cls_labels`` ``Field(default=None, ge=1)``, in that (declaration) order: one ValidationError
  for LoRAConfig with an error per field out of bounds (:func:`field_bounds`).  No other field of LoRAConfig is bounded
  (the rank, the 0.11.x extra vocabulary size and ``lora_dtype`` are argparse choices).
- ``create_engine_config`` hands LoRAConfig ``max_cpu_loras`` only when it is above 0 (else None: it becomes
  ``max_loras``), in every release.

- 0.20.0+, in the model validator right after the ``max_cpu_loras`` check: ``VLLM_LORA_ENABLE_DUAL_STREAM`` (vllm/envs.py:
  ``bool(int(...))``, read from the environment then) on a platform that is not CUDA-like (``is_cuda_alike``: CUDA,
  ROCm; the host fact ``platform``).  A value ``int()`` refuses raises inside the validator: undecidable, as is a TPU
  host from 0.11.1 (the tpu_inference package's platform class).

VllmConfig.__post_init__ (vllm/config/vllm.py) verifies LoRAConfig against the other configs: 0.10.2 right after
``CacheConfig.verify_with_parallel_config``, 0.11.1+ right after the sampling / trace replay checks, before the
stochastic-rounding one.  kvguard's steps there (stage verify) leave undecidable what it does not render, so that the
refusals vLLM gives before them are rendered:

- 0.10.2, ``verify_with_cache_config``: ``--cpu-offload-gb`` above 0 while the engine config is built for V0
  (VLLM_USE_V1=0, or the V1 oracle's fallback) is refused (:func:`v0_cpu_offload`, rendered).
- 0.33.0, ``verify_with_kernel_config``: a megakernel MoE backend (vllm/config/kernel.py ``MEGA_MOE_BACKENDS``, or
  ``aiter_mega_moe``; KernelConfig's field validator lower-cases the name and turns "-" into "_") is refused, the
  normalised name quoted (:func:`mega_moe_refused`, rendered: the model's own MoE checks come later, in
  ``KernelConfig.set_platform_defaults``).
- 0.33.0, then ``verify_with_model_config``: a model class without the ``SupportsLoRA`` interface
  (kvguard/data/archs.json's ``supports_lora``: ``isinstance(cls, _SupportsLoRAType)``,
  vllm/model_executor/models/interfaces.py) is refused ("LoRA is not supported for …"); undecidable there, as is a
  class kvguard cannot name (an architecture the registry does not hold, e.g. the Transformers backend's).
- 0.26.0+, in ``verify_with_model_config`` too: a model whose architectures name "Inkling" is refused unless
  INKLING_MULTIMEM_AR is "0": undecidable there.

0.10.2 - 0.32.0 refuse a class without ``SupportsLoRA`` only when the worker wraps the model it has built
(vllm/v1/worker/lora_model_runner_mixin.py ``load_lora_model``, "… does not support LoRA yet.", right after the
model's construction and before the speculative draft's): kvguard's step there (stage worker, after the model_init
rows) leaves such a launch undecidable.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["CPU_LORAS_MESSAGE", "CPU_LORAS_MESSAGE_0_10", "DUAL_STREAM_MESSAGE", "EXTRA_VOCAB_MESSAGE",
           "EXTRA_VOCAB_SIZES", "FIELD_BOUNDS", "MAX_LORAS_MESSAGE", "MEGA_MOE_MESSAGE", "RANKS", "RANK_MESSAGE", "V0_CPU_OFFLOAD_MESSAGE",
           "cpu_loras_below", "cpu_loras_bind", "dual_stream_off_cuda", "extra_vocab_bind", "extra_vocab_refused",
           "field_bounds", "inkling_unmodelled", "lora_class_unmodelled", "max_loras_below_one", "max_loras_bind",
           "mega_moe_bind", "mega_moe_refused", "rank_bind", "rank_refused", "v0_cpu_offload"]

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


#: LoRAConfig's bounded fields in declaration order: (field, layout carrier, first release, bounds)
FIELD_BOUNDS = (("max_loras", "lora_max_loras_out_of_bounds", "0.11.1", (("ge", 1),)),
                ("max_lora_cls_labels", "lora_max_lora_cls_labels_out_of_bounds", "0.31.0", (("ge", 1),)))


def field_bounds(state: Any) -> None:
    """0.11.1+: --max-loras / --max-lora-cls-labels below 1 (kvguard.launch.argv carries a last value given outside
    the bound, with --enable-lora only): one ValidationError for LoRAConfig, an error per field, before the model
    validator's checks."""
    from .cache_config import bound_error, broken_bound
    from .engine import Refusal

    errors = []
    for name, carrier, since, bounds in FIELD_BOUNDS:
        value = getattr(state.layout, carrier)
        if value is None or not state.release.within(since):
            continue
        broken = broken_bound(value, bounds)
        if broken is not None:
            errors.append(bound_error(name, value, *broken))
    if errors:
        raise Refusal("ValidationError", errors[0].msg, errors=tuple(errors))


V0_CPU_OFFLOAD_MESSAGE = "V0 LoRA does not support CPU offload, please use V1."


def v0_cpu_offload(state: Any) -> bool:
    """0.10.2: --enable-lora with --cpu-offload-gb above 0 on an engine config built for V0."""
    from .v1_features import runs_v0_engine

    offload = state.layout.cpu_offload_gb
    return state.layout.enable_lora and offload is not None and offload > 0 and runs_v0_engine(state)


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


MEGA_MOE_MESSAGE = ("LoRA is not supported with moe_backend={backend}. Disable LoRA or select a MoE backend that "
                    "supports LoRA.")


def _kernel_moe_backend(state: Any) -> str:
    """KernelConfig's moe_backend: the option as its field validator normalises it."""
    return (state.layout.moe_backend or "auto").lower().replace("-", "_")


def mega_moe_refused(state: Any) -> bool:
    """0.33.0: --enable-lora with a megakernel --moe-backend (see the module docstring)."""
    return state.layout.enable_lora and _kernel_moe_backend(state) in _MEGA_MOE


def mega_moe_bind(state: Any) -> dict:
    return {"backend": repr(_kernel_moe_backend(state))}


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
