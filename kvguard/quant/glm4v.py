"""GLM-4.5V / GLM-4.6V (``Glm4vMoeForConditionalGeneration``) at model construction, vLLM 0.10.2 – 0.33.0: the
vision tower, built before the ``glm4_moe`` family's language model (kvguard/data/quant_archs.json).

Mirrors vllm/model_executor/models/glm4_1v.py (``Glm4vVisionTransformer``, ``Glm4vVisionBlock``,
``Glm4vVisionAttention``, ``Glm4vVisionMLP``, ``Glm4vPatchMerger``, ``Glm4vForConditionalGeneration`` and its MoE
subclass), read in 0.10.2, 0.11.0, 0.11.1, 0.12.0, 0.14.1, 0.17.1, 0.18.0, 0.20.0, 0.24.0, 0.28.0, 0.31.0, 0.32.0 and
0.33.0.  The wrapper builds the vision transformer (prefix ``visual``) with the checkpoint's quantization config,
then Glm4MoeForCausalLM on ``text_config`` (prefix ``language_model``: the decoder at ``language_model.model``).
The tower's linear layers, in construction order (:func:`tower_layers`):

- each of the ``depth`` blocks: the attention divides ``hidden_size`` by its heads (the head size) and the heads by
  tp, then ``attn.qkv`` (QKV, every head its own KV head) and ``attn.proj`` (row); the MLP ``mlp.gate_up_proj``
  (merged, two halves of ``out_hidden_size``) and ``mlp.down_proj`` (row);
- the patch merger: ``merger.proj`` (column, ``out_hidden_size`` to itself), ``merger.gate_up_proj`` (merged, two
  halves of ``intermediate_size``) and ``merger.down_proj`` (row).

Every one is built unsplit with ``--mm-encoder-tp-mode data`` (0.10.2 – 0.13.x the wrapper passes the mode down,
later ``is_vit_use_data_parallel()`` without the head count: no fall-back of its own).  The attention's QKV layer is
named ``attn.qkv_proj`` (its shards ``q_proj`` / ``k_proj`` / ``v_proj`` in the wrapper's packed-modules mapping)
whenever the wrapper holds a quantization config up to 0.17.x, and from 0.18.0 only under compressed-tensors; else
``attn.qkv`` (no packed mapping: matched as a whole).  ``Fp8Config`` and ``CompressedTensorsConfig`` map their
ignore lists through the wrapper's checkpoint-name mapper first (``model.visual.`` → ``visual.``,
``model.language_model.`` → ``language_model.model.``, ``lm_head.`` → ``language_model.lm_head.``, every release
read; compressed-tensors from 0.13.0 leaves entries without a dot and ``re:`` patterns as written, which these
prefixes, each ending in a dot, never rewrite anyway).

The wrapper implements no ``MixtureOfExperts``: with ``--enable-eplb`` the V1 worker (vllm/v1/worker/
gpu_model_runner.py) asserts on it up to 0.21.x and registers its language model instead from 0.22.0
(:data:`EPLB_LANGUAGE_MODEL_SINCE`).

Decided: unquantized, ``Fp8Config`` (block or per-tensor, the tower listed or not), online ``--quantization fp8``,
compressed-tensors (zai-org/GLM-4.5V-FP8's form: the tower's QKV layers in ``ignore`` as ``visual.blocks.N.attn.qkv_proj``;
the language model's experts and router as the ``glm4_moe`` family decides them) and AWQ / GPTQ on the default host
(the tower's layers on the dense AWQ / GPTQ path, the experts the family's; AWQ's ``modules_to_not_convert`` through
the same mapper from 0.11.1 — awq.py / awq_marlin.py / auto_awq.py ``apply_vllm_mapper`` of 0.11.0, 0.11.1, 0.24.0 and
0.33.0 —, before that decided only where the mapper would leave the list as written).  Left open
(:func:`unmodelled`): other methods, an AWQ list the mapper rewrites in 0.10.2 / 0.11.0, pipeline parallelism,
``--limit-mm-per-prompt`` / ``--language-model-only``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .names import GLM4V_ARCH
from .names import TOWER_DATA_PARALLEL as DATA_PARALLEL
from .wrappers import exclusion_mapper, past_the_tower, tower_sizes

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ARCH", "EPLB_LANGUAGE_MODEL_SINCE", "ignored_names", "tower_layers", "unmodelled"]

ARCH = GLM4V_ARCH
#: the checkpoint methods whose construction is proven through the tower (None: unquantized)
METHODS = (None, "fp8", "compressed-tensors", "awq", "gptq")
#: the first release whose AWQ config maps ``modules_to_not_convert`` through the wrapper's checkpoint-name mapper
#: (``apply_vllm_mapper``); before, a list the mapper would rewrite is matched as written (left open)
AWQ_MAPPED_SINCE = "0.11.1"
#: the first release that names the tower's QKV layer ``attn.qkv_proj`` only under compressed-tensors (before: under
#: any quantization config)
QKV_PROJ_CT_ONLY_SINCE = "0.18.0"
#: the wrapper's hf_to_vllm_mapper prefix renames (every release read)
#: the first release whose V1 worker, finding that the model implements no ``MixtureOfExperts`` (the wrapper never
#: does), registers the wrapper's language model for EPLB instead (``get_language_model()``; before, ``eplb_step``
#: asserts on the wrapper: W_eplb_no_moe_model, whatever the language model implements)
EPLB_LANGUAGE_MODEL_SINCE = "0.22.0"
_PREFIXES = (("lm_head.", "language_model.lm_head."), ("model.language_model.", "language_model.model."),
             ("model.visual.", "visual."))
_SIZES = ("hidden_size", "num_heads", "intermediate_size", "depth", "out_hidden_size")


#: an exclusion list (Fp8Config's ignore list, AWQ's modules_to_not_convert) after the wrapper's mapper
ignored_names = exclusion_mapper(_PREFIXES)


def _tower(resolved_top: Mapping[str, Any]) -> "Optional[dict[str, Any]]":
    return tower_sizes(resolved_top, _SIZES, ("hidden_size", "num_heads"))


def unmodelled(facts, architecture: str, method: "Optional[str]", ignored: "tuple[str, ...]", launch,
               release) -> "Optional[str]":
    """Why the construction of this GLM-4.5V launch is not decided, or None (kvguard.quant.wrappers)."""
    resolved_top = facts.resolved_top
    if _tower(resolved_top) is None:
        return f"the vision tower of {ARCH} with sizes {resolved_top.get('vision_tower')!r} is not modelled"
    unmapped = None
    if method == "awq" and not release.within(AWQ_MAPPED_SINCE) and ignored_names(tuple(ignored)) != tuple(ignored):
        unmapped = (f"the awq modules_to_not_convert {list(ignored)!r} of {ARCH} in vLLM {release.key} (names the "
                    f"wrapper's checkpoint-name mapper rewrites from {AWQ_MAPPED_SINCE}, matched as written before) "
                    f"is not modelled")
    return past_the_tower(ARCH, method, METHODS, unmapped, launch, "which layers each stage builds")


def tower_layers(resolved_top: Mapping[str, Any], architecture: "Optional[str]", method: "Optional[str]",
                 release) -> "list[Any]":
    """The vision transformer's linear layers in construction order (global sizes; none when the sizes are not
    modelled); ``method``: the quantization method the wrapper holds (None: none), which names the QKV layer."""
    from . import Layer

    sizes = _tower(resolved_top)
    if sizes is None:
        return []
    hidden, heads, out_hidden, inter = (sizes["hidden_size"], sizes["num_heads"], sizes["out_hidden_size"],
                                        sizes["intermediate_size"])
    qkv_proj = method == "compressed-tensors" or method is not None and not release.within(QKV_PROJ_CT_ONLY_SINCE)
    qkv_name, qkv_shards = ("attn.qkv_proj", ("q_proj", "k_proj", "v_proj")) if qkv_proj else ("attn.qkv", ())
    out = []
    for n in range(sizes["depth"]):
        block = f"visual.blocks.{n}"
        out += [Layer(-1, f"{block}.{qkv_name}", "qkv", input_size=hidden, shards=qkv_shards,
                      disable_tp=DATA_PARALLEL, qkv=(hidden, hidden // heads, heads, heads)),
                Layer(-1, f"{block}.attn.proj", "row", input_size=hidden, output_sizes=(hidden,),
                      disable_tp=DATA_PARALLEL),
                Layer(-1, f"{block}.mlp.gate_up_proj", "merged", input_size=hidden, output_sizes=(out_hidden, out_hidden),
                      shards=("gate_proj", "up_proj"), disable_tp=DATA_PARALLEL),
                Layer(-1, f"{block}.mlp.down_proj", "row", input_size=out_hidden, output_sizes=(hidden,),
                      disable_tp=DATA_PARALLEL)]
    out += [Layer(-1, "visual.merger.proj", "column", input_size=out_hidden, output_sizes=(out_hidden,),
                  disable_tp=DATA_PARALLEL),
            Layer(-1, "visual.merger.gate_up_proj", "merged", input_size=out_hidden, output_sizes=(inter, inter),
                  shards=("gate_proj", "up_proj"), disable_tp=DATA_PARALLEL),
            Layer(-1, "visual.merger.down_proj", "row", input_size=inter, output_sizes=(out_hidden,),
                  disable_tp=DATA_PARALLEL)]
    return out
