"""Gemma 4 at model construction, vLLM 0.28.0 – 0.33.0 (what kvguard/data/quant_archs.json's ``gemma4`` family
cannot say by itself).

Mirrors vllm/model_executor/models/gemma4.py and gemma4_mm.py (read in 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0,
0.33.0) and vllm/transformers_utils/configs/gemma4.py (0.28.0 – 0.31.0).  The layer geometry is data (the
``gemma4`` family): each decoder layer's attention reads the layer's own config (``gemma4_layer_config``, 0.32.0+
``per_layer_config[i]`` directly), so full-attention layers build ``qkv_proj`` / ``o_proj`` with head size
``global_head_dim`` and, with ``attention_k_eq_v``, ``num_global_key_value_heads`` KV heads.  ``attention_k_eq_v``
changes no module: the layer still builds a full ``QKVParallelLinear`` and the checkpoint's K weights are loaded
into both the K and V slots.  The dense MLP is built in every layer; with the MoE block (0.28.0 – 0.31.x:
``enable_moe_block`` or ``use_second_mlp_block``; 0.32.0+: ``num_experts`` set) a router projection (``GateLinear``,
built without the quantization config) and the experts follow it (``<layer>.moe.experts`` up to 0.30.x,
``<layer>.experts`` from 0.31.0).

What this module adds:

- :func:`unmodelled`: why a launch is not decided — the E2B / E4B layers (per-layer embeddings,
  ``hidden_size_per_layer_input``; KV-shared layers, ``num_kv_shared_layers``, which build only ``q_proj`` from
  0.30.0 and a double-wide MLP with ``use_double_wide_mlp``), quantization methods other than FP8 (``Fp8Config``,
  online ``--quantization fp8``) and ModelOpt FP8 / NVFP4, and a multimodal tower the wrapper hands the
  quantization config (it does when the tower's hidden and intermediate sizes are multiples of 64 — the released
  checkpoints' vision tower, 1152 / 4304, is built unquantized and checks nothing; the audio tower is not modelled
  under quantization);
- the quantized experts are decided (the block is FusedMoE's geometry as for the other families, plus the method's
  own construction): their method picks its MoE backend while it is built, for the experts' ``gelu_tanh``
  activation (``FusedMoEFactory(..., activation="gelu_tanh")``).  Read in 0.28.0 – 0.33.0
  (vllm/model_executor/layers/fused_moe/oracle/nvfp4.py and fp8.py, experts/marlin_moe.py, experts/triton_moe.py,
  activation.py, modular_kernel.py): on the default host (CUDA, compute capability 9.0, default environment,
  ``--moe-backend auto``, the default all2all backend) the NVFP4 priority list's FlashInfer and CUTLASS FP4 entries
  need the SM100 family, and its MARLIN entry (``MarlinExperts``: CUDA 7.5+, any activation
  ``apply_moe_activation`` implements, ``gelu_tanh`` among them in every one of these releases) takes the layer
  (0.32.0+ HUMMING may come first, taking it or not); the FP8 list (ModelOpt FP8, ``Fp8Config`` block FP8, online
  FP8) ends, at the latest, with TRITON (``TritonExperts``: the same activation set), while DeepGEMM and the
  TRT-LLM kernels decline ``gelu_tanh``.  So no selection refuses the activation, and ``create_weights`` reads no
  backend: the experts' checks are those kvguard.quant.modelopt_shards (NVFP4: floor divisions, no check) and the
  block-FP8 checks of kvguard.quant (block N / K, 0.29.0+ the refined block scales, a host fact) apply to Qwen3-MoE;
- :func:`exclusion_names`: a ModelOpt exclusion list as the release matches it — the model class's checkpoint-name
  mapper (``Gemma4ForConditionalGeneration``: ``model.language_model.`` → ``language_model.model.``,
  ``model.embed_vision`` → ``embed_vision``, ``lm_head.`` → ``language_model.lm_head.``, ``model`` →
  ``language_model.model``, applied in turn; ``Gemma4ForCausalLM``: ``model.language_model.`` → ``model.``; up to
  0.30.x both first rename a name ending in ``.experts`` to ``.moe.experts``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .names import GEMMA4_FAMILY
from .wrappers import renamed

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["FAMILY", "exclusion_names", "unmodelled"]

FAMILY = GEMMA4_FAMILY
#: the methods whose Gemma 4 construction kvguard decides (Fp8Config, online FP8, ModelOpt FP8 / NVFP4)
METHODS = ("fp8", "modelopt", "modelopt_fp4")
#: gemma4_mm.py: a tower whose hidden (and intermediate, where it has one) size is a multiple of this is handed the
#: quantization config (bitsandbytes / torchao / compressed-tensors always: not decided here)
TOWER_MULTIPLE = 64
#: _GEMMA4_EXPERT_PARENT_MAPPER (0.28.0 – 0.30.x): ``…experts`` at the end of a name becomes ``…moe.experts``
_EXPERT_PARENT = re.compile(r"(?<!\.moe)\.experts$")
_EXPERT_PARENT_UNTIL = "0.30.0"
_MM_PREFIXES = (("model.vision_tower", "vision_tower"), ("model.embed_vision", "embed_vision"),
                ("model.audio_tower.", "audio_tower."), ("model.embed_audio.", "embed_audio."),
                ("model.language_model.", "language_model.model."), ("lm_head.", "language_model.lm_head."),
                ("model", "language_model.model"))
_TEXT_PREFIXES = (("model.language_model.", "model."),)


def unmodelled(resolved: Mapping[str, Any], resolved_top: Mapping[str, Any], method: Optional[str]) -> Optional[str]:
    """Why the construction of this Gemma 4 config with quantization ``method`` (None: unquantized; the
    checkpoint's, else ``--quantization``'s) is not decided, or None."""
    ple = resolved.get("hidden_size_per_layer_input")
    shared = resolved.get("num_kv_shared_layers")
    if ple or shared:
        return (f"the model construction of Gemma 4's per-layer embeddings / KV-shared layers "
                f"(hidden_size_per_layer_input={ple!r}, num_kv_shared_layers={shared!r}: E2B / E4B) is not modelled")
    if method is None:
        return None
    if method not in METHODS:
        return f"the {method} weight-shard checks of Gemma 4 are not modelled"
    towers = resolved_top.get("towers")
    if not isinstance(towers, Mapping):
        return "the multimodal towers of this Gemma 4 config are not modelled"
    for name, sizes in towers.items():
        if name == "audio_config":
            return "the audio tower of Gemma 4 under a quantization method is not modelled"
        hidden, intermediate = (list(sizes) + [None, None])[:2] if isinstance(sizes, list) else (None, None)
        if type(hidden) is not int or intermediate is not None and type(intermediate) is not int:
            return f"the {name.split('_')[0]} tower of Gemma 4 with sizes {sizes!r} is not modelled"
        if hidden % TOWER_MULTIPLE == 0 and (intermediate is None or intermediate % TOWER_MULTIPLE == 0):
            return (f"the quantized {name.split('_')[0]} tower of Gemma 4 (hidden {hidden}, intermediate "
                    f"{intermediate}: multiples of {TOWER_MULTIPLE}, so the wrapper hands it the quantization "
                    f"config) is not modelled")
    return None


def exclusion_names(names: list[str], architectures: "tuple[str, ...] | list[str]", release) -> list[str]:
    """The ModelOpt exclusion list after the model class's checkpoint-name mapper (the caller has split ``a*``)."""
    prefixes = _MM_PREFIXES if "Gemma4ForConditionalGeneration" in (architectures or ()) else _TEXT_PREFIXES
    if release.within(None, _EXPERT_PARENT_UNTIL):
        names = [_EXPERT_PARENT.sub(".moe.experts", name) for name in names]
    return renamed(names, prefixes)
