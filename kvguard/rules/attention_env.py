"""``VLLM_ATTENTION_BACKEND`` as ModelConfig reads it, 0.11.0 - 0.12.0.

Mirrors ``vllm/config/model.py::ModelConfig.__post_init__`` (0.11.0 - 0.12.0), whose first read of the variable
(the FLASHINFER-without-flashinfer check) comes before the sleep-mode check and before the model's config is read,
and ``vllm/envs.py``, where the variable is an ``env_with_choices`` entry: a value that is not one of the attention
backend enum's member names (case-sensitive; the enum is ``_Backend`` of ``vllm/platforms/interface.py`` in 0.11.0,
``AttentionBackendEnum`` of ``vllm/attention/backends/registry.py`` in 0.11.1 - 0.12.0) raises ValueError there,
inside ModelConfig.  0.10.2 reads the variable unvalidated; from 0.13.0 AttentionConfig takes it over (its
``backend``, kvguard.rules.backend_names for the names).  In 0.13.0 - 0.14.1 ``vllm/config/attention.py``'s
``AttentionConfig.__post_init__`` reads it (``_set_from_env_if_set``, the same ``env_with_choices`` check over
``AttentionBackendEnum``'s member names) when ``EngineArgs.add_cli_args`` builds the config's defaults, so ``vllm
serve`` fails while building its argument parser, before argparse: kvguard has no such stage and answers Undecidable
for a name outside the release's measured enum names (:func:`parser_refusal_undecidable`).

The names are the release's own, in the enum's order, as each release's error message lists them (recorded from the
CPU oracles' answers to ``VLLM_ATTENTION_BACKEND=NOT_A_BACKEND vllm serve Qwen/Qwen3-8B``).  The FLASHINFER check
itself reads whether the host has the flashinfer package, which the official image has: not a refusal there.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MESSAGE", "backend_names", "parser_refusal_undecidable", "unknown_backend", "unknown_bind"]

MESSAGE = "Invalid value '{value}' for VLLM_ATTENTION_BACKEND. Valid options: {names}."

_NAMES_0_11_0 = ("FLASH_ATTN", "TRITON_ATTN", "XFORMERS", "ROCM_FLASH", "ROCM_AITER_MLA", "ROCM_AITER_FA", "TORCH_SDPA",
                 "FLASHINFER", "FLASHINFER_MLA", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA", "FLASH_ATTN_MLA", "PALLAS",
                 "IPEX", "DUAL_CHUNK_FLASH_ATTN", "DIFFERENTIAL_FLASH_ATTN", "NO_ATTENTION", "FLEX_ATTENTION",
                 "TREE_ATTN", "ROCM_ATTN")
_NAMES_0_11_1 = ("FLASH_ATTN", "TRITON_ATTN", "XFORMERS", "ROCM_ATTN", "ROCM_AITER_MLA", "ROCM_AITER_FA", "TORCH_SDPA",
                 "FLASHINFER", "FLASHINFER_MLA", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA", "FLASHMLA_SPARSE",
                 "FLASH_ATTN_MLA", "PALLAS", "IPEX", "NO_ATTENTION", "FLEX_ATTENTION", "TREE_ATTN",
                 "ROCM_AITER_UNIFIED_ATTN", "CPU_ATTN", "CUSTOM")
_NAMES_0_12_0 = ("FLASH_ATTN", "TRITON_ATTN", "ROCM_ATTN", "ROCM_AITER_MLA", "ROCM_AITER_TRITON_MLA", "ROCM_AITER_FA",
                 "ROCM_AITER_MLA_SPARSE", "TORCH_SDPA", "FLASHINFER", "FLASHINFER_MLA", "TRITON_MLA", "CUTLASS_MLA",
                 "FLASHMLA", "FLASHMLA_SPARSE", "FLASH_ATTN_MLA", "PALLAS", "IPEX", "NO_ATTENTION", "FLEX_ATTENTION",
                 "TREE_ATTN", "ROCM_AITER_UNIFIED_ATTN", "CPU_ATTN", "CUSTOM")


def backend_names(release: Any) -> tuple[str, ...]:
    """The names the release's ``env_with_choices`` accepts (0.11.0 - 0.12.0)."""
    if release.within("0.12.0"):
        return _NAMES_0_12_0
    if release.within("0.11.1"):
        return _NAMES_0_11_1
    return _NAMES_0_11_0


def unknown_backend(state: Any) -> bool:
    """VLLM_ATTENTION_BACKEND is set (an empty value too: ``os.getenv`` gives it) to a name the release lacks."""
    value = state.env.get("VLLM_ATTENTION_BACKEND")
    return value is not None and value not in backend_names(state.release)


def unknown_bind(state: Any) -> dict:
    # the message shows the names as Python prints the list of them
    return {"value": state.env["VLLM_ATTENTION_BACKEND"], "names": repr(list(backend_names(state.release)))}


def parser_refusal_undecidable(release: Any, env: Any) -> None:
    """Raise Undecidable where 0.13.0 - 0.14.1 refuse VLLM_ATTENTION_BACKEND while building vllm serve's parser: set
    (an empty value too) to a name outside the release's AttentionBackendEnum names (the measured ones of
    kvguard/data/backend_names.json; case-sensitive)."""
    value = env.get("VLLM_ATTENTION_BACKEND")
    if value is None:  # the usual launch, asked first: a cached check calls this on every release
        return
    if not release.within("0.13.0") or release.within("0.15.0"):
        return
    from .backend_names import measured_names

    names = measured_names(str(release.version))
    if names is not None and value in names:
        return
    from ..errors import Undecidable

    raise Undecidable(f"VLLM_ATTENTION_BACKEND={value!r} is not a member of vLLM {release.version}'s "
                      "AttentionBackendEnum: AttentionConfig refuses it (ValueError) while `vllm serve` builds its "
                      "argument parser, before argparse, a stage kvguard does not model")
