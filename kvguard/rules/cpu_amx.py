"""The CPU platform's AMX branches: what ``CpuPlatform`` (vllm/platforms/cpu.py) does when
``torch.cpu._is_amx_tile_supported()`` answers True, a host fact (``amx``; assumed False, a CPU without AMX tiles).

The fact is read only where the answer can depend on it, on ``--platform cpu``:

- 0.22.0 – 0.24.x, ``check_and_update_config``: a model whose ``ModelConfig.get_num_layers_by_block_type(…,
  "linear_attention")`` is positive (every attention-free model; a hybrid one by ``layers_block_type``,
  ``attn_type_list`` or ``layer_types``; the blocks of ``DeciLMForCausalLM`` that are not no-ops, whatever the block
  type) gets prefix caching and chunked prefill turned off, after the Mamba cache set-up
  (``MambaModelConfig.verify_and_update_config``, which hybrid models run too) gave ``mamba_block_size`` the block
  size where prefix caching was on, else the maximum length.  ``VllmConfig.validate_mamba_block_size``, a model
  validator after ``__post_init__``, then refuses a Mamba block size other than the maximum length without prefix
  caching (kvguard.rules.mamba_block_size reads :func:`linear_attention_layers` there).  Nothing between reads the
  two switches.  Undecidable on an AMX CPU: DeciLM's block count, a hybrid
  model without those lists, one with linear-attention layers split by the pipeline.  A plain transformer counts
  no linear-attention layer, and where the set-up took the maximum length the branch changes nothing: the fact is
  not read.
- 0.26.0 – 0.28.x reset the Mamba SSM cache dtype to float32 on an AMX CPU, after every check that reads it (the
  stochastic-rounding check runs earlier in ``__post_init__``): no verdict depends on it, the fact is not read.
  From 0.29.0 that reset asks for AVX-512 BF16 instead.
- 0.29.0+: an MLA model uses the AMX MLA backend unless ``--attention-backend CPU_MLA`` (and, from 0.30.0,
  DeepSeek-V4 takes its AMX kernels whatever the backend): the platform then neither forces the block size to 16 nor
  turns chunked prefill and prefix caching off, and the backend the workers select differs.  kvguard does not follow
  those consequences: such a launch on an AMX CPU is undecidable.

The oracles stand in for either CPU (tests/upstream/oracle_runner.py ``cpu_amx_answer``, ``KVG_ORACLE_CPU_AMX``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["amx_cpu", "amx_mla_kernels", "linear_attention_count", "linear_attention_layers", "mla_branch"]

#: the one model class with no-op blocks (``HasNoOps``, vllm/model_executor/models/nemotron_nas.py, 0.22.0 – 0.24.x)
_NO_OP_BLOCK_ARCHITECTURES = ("DeciLMForCausalLM",)


def amx_cpu(state: Any) -> bool:
    """The launch runs on the CPU platform of an AMX CPU (read in this order: the platform, then the fact)."""
    return state.need("platform") == "cpu" and bool(state.need("amx"))


def linear_attention_layers(state: Any) -> bool:
    """``ModelConfig.get_num_layers_by_block_type(parallel_config, "linear_attention") > 0`` (0.22.0 – 0.24.x) for
    a model that is not a plain transformer; undecidable where kvguard cannot count."""
    from ..archs import arch_flag, registered_arch

    if arch_flag(state.facts.architectures, "is_attention_free", state.release):
        return True                  # every layer counts
    if registered_arch(state.facts.architectures, state.release) in _NO_OP_BLOCK_ARCHITECTURES:
        state.undecided("on an AMX CPU vLLM's CPU platform counts this model's attention blocks that are not no-ops "
                        "as linear-attention layers, which kvguard does not follow")
    text, top = state.facts.resolved, state.facts.resolved_top
    block_types, attn_types, layer_types = (text.get("layers_block_type"), top.get("attn_type_list"),
                                            text.get("layer_types"))
    if isinstance(block_types, (list, tuple)):
        if state.facts.text_model_type == "zamba2":
            return True              # zamba2: every layer counts for a block type other than attention
        kinds = [kind == "linear_attention" for kind in block_types]
    elif isinstance(attn_types, (list, tuple)) and attn_types:
        kinds = [kind == 1 for kind in attn_types]
    elif isinstance(layer_types, (list, tuple)):
        kinds = [kind == "linear_attention" for kind in layer_types]
    else:
        state.undecided("on an AMX CPU vLLM's CPU platform counts a hybrid model's linear-attention layers from "
                        "layers_block_type, attn_type_list or layer_types, and kvguard reads none of them here")
    if any(kinds) and state.pp > 1:
        state.undecided("on an AMX CPU vLLM's CPU platform counts the linear-attention layers of the first "
                        "pipeline stage, whose layers kvguard does not follow")
    return any(kinds)


def linear_attention_count(state: Any) -> bool:
    """0.22.0 – 0.24.x, at the platform's hook: on an AMX CPU vLLM counts the linear-attention layers of every model,
    whatever the prefix-caching switch, and refuses a hybrid model without ``layers_block_type``, ``attn_type_list``
    or ``layer_types`` there (undecidable: kvguard does not render that refusal).  The fact is read only for such a
    model; the count's consequence is kvguard.rules.mamba_block_size's."""
    if not state.release.within(None, "0.24.0"):
        return False                 # 0.25.x share 0.24.0's rule rows (launch-check group V16) without the branch
    from ..archs import arch_flag
    from .mamba_cache import has_mamba_layers

    if arch_flag(state.facts.architectures, "is_attention_free", state.release) or not has_mamba_layers(state):
        return False
    text, top = state.facts.resolved, state.facts.resolved_top
    attn_types = top.get("attn_type_list")
    if (isinstance(text.get("layers_block_type"), (list, tuple)) or isinstance(text.get("layer_types"), (list, tuple))
            or (isinstance(attn_types, (list, tuple)) and attn_types)):
        return False                 # countable (an empty attn_type_list is passed over, as the count does)
    if amx_cpu(state):
        state.undecided("on an AMX CPU vLLM's CPU platform counts a hybrid model's linear-attention layers from "
                        "layers_block_type, attn_type_list or layer_types, and refuses a model with none of them, "
                        "which kvguard does not render")
    return False


def amx_mla_kernels(state: Any) -> bool:
    """0.29.0+, an MLA model on the CPU platform: whether the AMX kernels take it (the AMX MLA backend unless
    ``--attention-backend CPU_MLA``; DeepSeek-V4's whatever the backend from 0.30.0), which keeps prefix caching on.
    The platform and the fact are read only after the backend."""
    if not state.release.within("0.29.0"):
        return False
    lay = state.layout
    chosen = (lay.attention_backend or lay.attention_config_backend or "").upper()
    deepseek_v4 = state.release.within("0.30.0") and state.facts.model_type == "deepseek_v4"
    if chosen == "CPU_MLA" and not deepseek_v4:
        return False
    return amx_cpu(state)


def mla_branch(state: Any) -> bool:
    """0.29.0+, at the platform's hook: an MLA model on an AMX CPU (the AMX MLA backend, or DeepSeek-V4's AMX kernels
    from 0.30.0) is undecidable; ``--attention-backend CPU_MLA`` keeps the reference backend (the fact is not read)."""
    if not state.use_mla or not amx_mla_kernels(state):
        return False
    state.undecided(f"on an AMX CPU (host fact amx=1) vLLM {state.release.version}'s CPU platform runs an MLA model "
                    "on its AMX kernels: it keeps the block size and leaves chunked prefill and prefix caching on, "
                    "which kvguard does not model there")
    return False
