"""Llama 4 (Scout, Maverick) at model construction, vLLM 0.10.2 – 0.33.0: the vision tower and projector, and the
launches the ``llama4`` family of kvguard/data/quant_archs.json does not decide.

Mirrors vllm/model_executor/models/mllama4.py (``Llama4ForConditionalGeneration``, ``Llama4VisionModel``,
``Llama4UnfoldConvolution``, ``Llama4VisionAttention``, ``Llama4VisionMLP``, ``Llama4VisionPixelShuffleMLP``,
``Llama4MultiModalProjector``) and llama4.py (``Llama4MoE``, ``Llama4Attention``, ``Llama4DecoderLayer``), read in
0.10.2, 0.11.0, 0.11.1, 0.17.1, 0.24.0, 0.28.0, 0.31.0 and 0.33.0.

The wrapper builds the vision model first (prefix ``vision_model``), then the projector (``multi_modal_projector``),
then Llama 4's language model on ``text_config`` (``language_model``: the decoder at ``language_model.model``, the
family's layers).  In every release read, the wrapper hands the vision model and the projector ``quant_config=None``:
whatever the checkpoint's method, their linear layers are built unquantized, so only their sharding is checked
(:func:`tower_layers`, in construction order):

- ``vision_model.patch_embedding.linear``: column, ``num_channels * patch_size**2`` to ``hidden_size``;
- each of the ``num_hidden_layers`` encoder layers: the attention's bare ``assert num_heads % tp == 0``, then
  ``self_attn.qkv_proj`` (every head its own KV head, head size ``hidden_size // num_attention_heads``),
  ``self_attn.o_proj`` (row), ``mlp.fc1`` (column, to ``intermediate_size``), ``mlp.fc2`` (row);
- ``vision_model.vision_adapter.mlp.fc1`` (column, ``intermediate_size`` to ``projector_input_dim``) and ``fc2``
  (row, to ``projector_output_dim``);
- ``multi_modal_projector.linear_1``: column, ``vision_output_dim`` to the language model's ``hidden_size`` (split by
  tp even when the encoder runs data-parallel).

Decided (:data:`METHODS`): unquantized checkpoints and, for the wrapper, compressed-tensors FP8 and integer weights
(:data:`CT_SCHEMES`; llm-compressor's exports: the language model's layers and experts as
kvguard.quant.compressed_tensors decides them for the other families; the wrapper has no checkpoint-name mapper,
but the language model it builds is a ``LlamaForCausalLM``, whose mapper rewrites the ``ignore`` list's layer paths
from 0.25.0 as it does for Llama: those lists stay open there; the integer-weight experts, built with
``apply_router_weight_on_input``, take kvguard.quant.wna16_moe.compressed_tensors_experts with ``router_on_input``:
the fall-back method up to 0.26.x, read in compressed_tensors_moe.py ``get_moe_method`` and marlin_utils.py
``check_moe_marlin_supports_layer`` of 0.10.2, 0.11.1, 0.20.0, 0.24.0, 0.26.0, 0.27.0 and 0.33.0); tp, dp, expert
parallel and EPLB (the family).  ModelOpt FP8 / NVFP4 exports (NVIDIA's ``-FP8`` / ``-NVFP4``) are decided as
kvguard.quant.modelopt_shards decides the other families (read in modelopt.py, llama4.py and mllama4.py of 0.10.2,
0.11.1, 0.24.0, 0.26.0, 0.31.0 and 0.33.0): the router and the tower never take the config, the shared expert and the
dense MLPs take the linear method, the experts (``apply_router_weight_on_input``, which no ModelOpt MoE backend
choice reads on the default host) ``ModelOptFp8MoEMethod`` / ``ModelOptNvFp4FusedMoE``; the exclusion list matched
as written up to 0.24.x and, from 0.26.0, after the ``a*`` split of Llama's mapper (the Llama4ForCausalLM the
wrapper builds is a SupportsQuant LlamaForCausalLM); a tied LM head is left open.  Left
open (:func:`unmodelled`): other methods (``fbgemm_fp8``, ``Fp8Config``, AWQ / GPTQ, online
``--quantization``), compressed-tensors NVFP4 weights, the text-only ``Llama4ForCausalLM`` under any
method, ``--mm-encoder-tp-mode data`` (the tower's layers are then replicated and its attention's assert reads tp 1),
``--limit-mm-per-prompt`` / ``--language-model-only`` (the tower may not be built), and a vision config whose sizes
are not integers.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import LLAMA4_FAMILY
from .wrappers import tower_left_out

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "CT_SCHEMES", "FAMILY", "METHODS", "TOWER_SIZES", "tower_layers", "unmodelled"]

FAMILY = LLAMA4_FAMILY
#: the multimodal wrapper (Llama4ForCausalLM, the text-only class, builds no tower)
ARCH = "Llama4ForConditionalGeneration"
#: the checkpoint methods whose construction of the wrapper is proven (None: unquantized; ``modelopt`` /
#: ``modelopt_fp4``: ModelOpt FP8 / NVFP4 exports, decided by kvguard.quant.modelopt_shards as for the other families;
#: a tied LM head is left open there)
METHODS = (None, "compressed-tensors", "modelopt", "modelopt_fp4")
#: the compressed-tensors schemes (kvguard.quant.QuantScheme.ct) proven through it: FP8 weights, and integer weights
#: (W4A16 / W8A16: Llama 4's experts apply the router weight on the input, which check_moe_marlin_supports_layer
#: declines up to 0.26.x, so they take the fall-back method there: the family's experts item says router_on_input).
#: NVFP4 experts are not proven
CT_SCHEMES = ("fp8", "fp8_block", "wna16")
#: the vision config's attributes the tower and the projector read (kvguard/facts/model.py keeps them as
#: ``resolved_top["vision_tower"]``)
TOWER_SIZES = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers", "num_channels",
               "patch_size", "projector_input_dim", "projector_output_dim", "vision_output_dim")


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, int]]":
    sizes = resolved_top.get("vision_tower")
    if not isinstance(sizes, Mapping) or not all(type(sizes.get(k)) is int and sizes[k] > 0 for k in TOWER_SIZES):
        return None
    if sizes["hidden_size"] % sizes["num_attention_heads"] != 0:
        return None  # a head size vLLM floors: the QKV sizes then differ from the hidden size (not modelled)
    return {k: sizes[k] for k in TOWER_SIZES}


def unmodelled(resolved_top: Mapping[str, Any], architectures: "tuple[str, ...] | list[str]", method: "Optional[str]",
               launch, ct_scheme: "Optional[str]" = None) -> "Optional[str]":
    """Why the construction of this Llama 4 launch is not decided (``method``: the checkpoint's or
    ``--quantization``'s, None unquantized; ``ct_scheme``: a compressed-tensors checkpoint's scheme kind), or None."""
    archs = ", ".join(architectures)
    if ARCH not in architectures:
        return None if method is None else f"the {method} weight-shard checks of {archs} are not modelled"
    if method not in METHODS:
        return f"the {method} weight-shard checks of {archs} are not modelled"
    if method == "compressed-tensors" and ct_scheme not in CT_SCHEMES:
        return (f"the compressed-tensors {ct_scheme or 'unread'} weight-shard checks of {archs} (FP8 and integer "
                f"weights are proven) are not modelled")
    if _tower(resolved_top) is None:
        return f"the vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not modelled"
    if launch.mm_limits:
        return tower_left_out(ARCH)
    if launch.mm_encoder_tp_mode == "data":
        return (f"--mm-encoder-tp-mode data with {ARCH} (the vision tower's layers replicated, its attention's "
                f"assert on tp 1) is not modelled")
    return None


def tower_layers(resolved_top: Mapping[str, Any], text_hidden: Any) -> "list[Any]":
    """The vision model's and the projector's linear layers (and the vision attention's assert) in construction order,
    global sizes, each built without the quantization config; none when the sizes are not modelled."""
    from . import Layer

    sizes = _tower(resolved_top)
    if sizes is None:
        return []
    hidden, heads, inter = sizes["hidden_size"], sizes["num_attention_heads"], sizes["intermediate_size"]
    out = [Layer(-1, "vision_model.patch_embedding.linear", "column",
                 input_size=sizes["num_channels"] * sizes["patch_size"] ** 2, output_sizes=(hidden,), quantized=False)]
    for n in range(sizes["num_hidden_layers"]):
        layer = f"vision_model.model.layers.{n}"
        out += [Layer(-1, layer, "check", check=("MI_attn_assert", "vision_heads % tp != 0", ()),
                      names={"vision_heads": heads}),
                Layer(-1, f"{layer}.self_attn.qkv_proj", "qkv", input_size=hidden,
                      qkv=(hidden, hidden // heads, heads, heads), quantized=False),
                Layer(-1, f"{layer}.self_attn.o_proj", "row", input_size=hidden, output_sizes=(hidden,),
                      quantized=False),
                Layer(-1, f"{layer}.mlp.fc1", "column", input_size=hidden, output_sizes=(inter,), quantized=False),
                Layer(-1, f"{layer}.mlp.fc2", "row", input_size=inter, output_sizes=(hidden,), quantized=False)]
    out += [Layer(-1, "vision_model.vision_adapter.mlp.fc1", "column", input_size=inter,
                  output_sizes=(sizes["projector_input_dim"],), quantized=False),
            Layer(-1, "vision_model.vision_adapter.mlp.fc2", "row", input_size=sizes["projector_input_dim"],
                  output_sizes=(sizes["projector_output_dim"],), quantized=False),
            Layer(-1, "multi_modal_projector.linear_1", "column", input_size=sizes["vision_output_dim"],
                  output_sizes=(text_hidden,), quantized=False)]
    return out
