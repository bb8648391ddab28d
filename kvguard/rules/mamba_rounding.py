"""The Mamba SSU backend's name and stochastic rounding of the Mamba cache (0.20.0+).

``--mamba-backend`` (vllm/engine/arg_utils.py): ``EngineArgs.create_engine_config`` looks the upper-cased name up in
``MambaBackendEnum`` (vllm/config/mamba.py) after the --attention-backend name and before ObservabilityConfig; a name
the enum lacks is its metaclass's ValueError (raised as it is) listing the members: TRITON, FLASHINFER (0.20.0 -
0.26.0), then CPU too (0.27.0+).

``--mamba-ssu-algorithm`` (0.27.0+): right after that look-up, ``EngineArgs.create_engine_config`` calls
``MambaConfig.validate_ssu_algorithm`` on its copy of the Mamba config: an algorithm with a backend other than
FlashInfer is a raw ValueError.  (MambaConfig's own ``__post_init__`` checks of stochastic rounding against the
platform run only when a MambaConfig is built with it on — ``--mamba-config`` JSON, which kvguard does not vouch for —
not for the command-line flag, which is set on the copy after construction.)

Stochastic rounding of the Mamba cache (``--enable-mamba-cache-stochastic-rounding``, 0.20.0+): VllmConfig.__post_init__
(vllm/config/vllm.py) refuses it unless the SSM cache dtype is float16, right after
``ModelConfig.verify_with_parallel_config`` (0.28.0-0.30.0: and the --enable-return-routed-experts checks) and the
LoRA config's checks; a ValueError wrapped by VllmConfig.

The dtype compared is ``--mamba-ssm-cache-dtype`` (default ``auto``) as ``VllmConfig.try_verify_and_update_config``
left it: only the model config handlers of Nemotron-H (NemotronHForCausalLMConfig and the models built on it) and
Qwen3.5 (Qwen3_5ForConditionalGenerationConfig, Qwen3_5ForCausalLMConfig, ColQwen3_5) replace ``auto``, with a value
their checkpoint's config may set (vllm/model_executor/models/config.py): for those architectures an ``auto`` dtype is
undecidable; every other ``auto`` stays ``auto`` and is refused.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BACKEND_MESSAGE", "ROUNDING_MESSAGE", "SSU_ALGORITHM_MESSAGE", "backend_bind", "rounding_without_float16",
           "ssu_algorithm_without_flashinfer", "unknown_backend"]

BACKEND_MESSAGE = "Unknown Mamba SSU backend: '{name}'. Valid options are: {names}"
#: MambaBackendEnum's members in declaration order: (first release, names)
_BACKENDS = (("0.27.0", ("TRITON", "FLASHINFER", "CPU")), ("0.20.0", ("TRITON", "FLASHINFER")))

SSU_ALGORITHM_MESSAGE = ("Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set "
                         "`--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.")

ROUNDING_MESSAGE = ("Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it "
                    "explicitly, by specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding by "
                    "not specifying `--enable-mamba-cache-stochastic-rounding`.")
#: the architectures whose model config handler replaces an ``auto`` SSM cache dtype (by name part)
_DTYPE_UPDATERS = ("NemotronH", "Qwen3_5")


def rounding_without_float16(state: Any) -> bool:
    lay = state.layout
    if not lay.enable_mamba_cache_stochastic_rounding:
        return False
    dtype = lay.mamba_ssm_cache_dtype
    if dtype == "auto":
        updater = next((arch for arch in state.facts.architectures if any(part in arch for part in _DTYPE_UPDATERS)),
                       None)
        if updater is not None:
            state.undecided(f"--enable-mamba-cache-stochastic-rounding with --mamba-ssm-cache-dtype auto: {updater}'s "
                            "config handler replaces 'auto' with the dtype its checkpoint's config names (not "
                            "modelled), which decides whether the SSM cache is float16")
    return dtype != "float16"


def _backend_names(state: Any) -> tuple[str, ...]:
    return next(names for since, names in _BACKENDS if state.release.within(since))


def unknown_backend(state: Any) -> bool:
    name = state.layout.mamba_backend
    return name is not None and name.upper() not in _backend_names(state)


def ssu_algorithm_without_flashinfer(state: Any) -> bool:
    """An algorithm given (argparse's choices admit only the four MambaSSUAlgorithm names) with the backend left at
    Triton or named other than FlashInfer."""
    lay = state.layout
    return lay.mamba_ssu_algorithm is not None and (lay.mamba_backend or "triton").upper() != "FLASHINFER"


def backend_bind(state: Any) -> dict:
    return {"name": state.layout.mamba_backend.upper(), "names": ", ".join(_backend_names(state))}
