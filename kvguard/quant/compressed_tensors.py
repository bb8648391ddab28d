"""compressed-tensors checkpoints (``quant_method: compressed-tensors``) at model construction.

What vLLM does with such a checkpoint while it builds a dense ``llama``-family model or the MoE models
below, as read in
vllm/model_executor/layers/quantization/compressed_tensors/ of every release 0.10.2-0.33.0:

- ``compressed_tensors.py``: ``CompressedTensorsConfig.from_config`` (``config_groups`` with
  ``targets`` / ``weights`` / ``input_activations`` / ``format``, ``ignore``, the global ``format``,
  ``sparsity_config``, ``transform_config``, ``kv_cache_scheme``), ``get_scheme`` and
  ``_get_scheme_from_parts`` (which scheme class takes a layer on a GPU of compute capability 9.0);
- ``utils.py``: ``should_ignore_layer`` / ``find_matched_target`` (names, ``re:`` regexes, module
  class names such as ``Linear``, fused layers through their shards);
- ``schemes/compressed_tensors_w8a8_fp8.py``: FP8 weights with per-tensor, per-channel or (0.11.0+)
  block scales; the block strategy calls ``validate_fp8_block_shape`` (utils/fp8_utils.py), the same
  check as ``Fp8Config``'s block-FP8 layers, without the merged-layer allowance of 0.14.0+
  (``ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch`` reads a ``weight_block_size`` the
  compressed-tensors config does not have); 0.10.2 has no block strategy (``NotImplementedError``);
- ``schemes/compressed_tensors_w8a8_int8.py``: INT8 weights (per-channel / per-tensor, symmetric) with INT8
  activations (dynamic per-token or static per-tensor): no size check at construction; the INT8 GEMM kernel
  (``choose_scaled_mm_linear_kernel``, 0.16.0+ ``init_int8_linear_kernel``: CUTLASS first on CUDA) takes every layer;
- ``schemes/compressed_tensors_wNa16.py``: integer weights with 16-bit activations through the
  mixed-precision kernel choice (``choose_mp_linear_kernel``; Marlin's ``can_implement``: the strict
  tile shape up to 0.23.0, tile padding from 0.24.0), the same path kvguard models for GPTQ;
- ``schemes/compressed_tensors_w4a16_nvfp4.py`` (up to 0.22.x) and ``schemes/compressed_tensors_w4a4_nvfp4.py``:
  NVFP4 (``nvfp4-pack-quantized``, W4A4 and weight-only) on a GPU without FP4 CUTLASS - the W4A16 FP4 fallback up to
  0.15.x, then ``CompressedTensorsW4A4Fp4`` with FP4 Marlin (``select_nvfp4_linear_backend`` 0.16.0-0.19.x,
  kernels/linear ``init_nvfp4_linear_kernel`` 0.20.0+): no size check while the layer is built (:func:`_nvfp4`);
  NVFP4 weights with FP8 activations find no scheme (0.10.2-0.22.x) or meet the NVFP4 branch's refusal (0.23.0+) at the
  first quantized linear layer (:data:`NVFP4_FP8_REFUSED`).

- ``compressed_tensors_moe.py`` (``compressed_tensors_moe/`` from 0.20.0):
  ``CompressedTensorsMoEMethod.get_moe_method`` for the experts of Qwen3-MoE, Mixtral, DeepSeek-V2/V3, GLM-4.x and
  (integer weights) MiniMax-M2 (the ``Linear`` group; from 0.12.0 looked up, ``ignore`` included, by expert 0's projection names) and
  ``CompressedTensorsW8A8Fp8MoEMethod``: per-tensor / per-tensor and per-channel / dynamic per-token FP8
  without a shape check, block FP8 (0.11.0+) through the MoE block-shape check on the per-rank
  intermediate size (never refined, unlike ``Fp8MoEMethod`` from 0.29.0); FusedMoE's EPLB support
  check refuses this method up to 0.11.0.
- ``compressed_tensors_moe.py`` (``compressed_tensors_moe/compressed_tensors_moe_w4a4_nvfp4.py`` from 0.20.0): the
  NVFP4 method (``CompressedTensorsW4A4MoeMethod`` up to 0.11.x, then ``CompressedTensorsW4A4Nvfp4MoEMethod``) for the
  NVFP4 / NVFP4A16 experts of Qwen3-MoE and Mixtral in every release: FP4 Marlin on compute capability 9.0 (0.10.2 -
  0.13.x ``detect_nvfp4_moe_support``, 0.14.x ``select_nvfp4_moe_backend()`` or the weight-only ``use_marlin``, from
  0.15.0 the priority list of ``select_nvfp4_moe_backend``, fused_moe/oracle/nvfp4.py), no size check, no EPLB
  support; NVFP4A16 experts refused by ``get_moe_method`` up to 0.13.x (:func:`nvfp4_moe_unmodelled`,
  :data:`NVFP4A16_MOE_READ`; DeepSeek's NVFP4 experts are left skipped).

Only the forms every release reads the same way are modelled: one config group targeting
``Linear``, weights and activations spelled out as llm-compressor writes them, an ``ignore`` list
that names no decoder-layer linear nor the experts (``lm_head``, the router gates and the like), no
sparsity, transform or KV-cache scheme.  Everything else (several groups, layer-name targets, NVFP4 weights with
activations other than NVFP4, FP8 per-token / per-tensor or none, NVFP4 experts on DeepSeek, MXFP4 / W4A8, other INT8 W8A8 forms and INT8 experts, asymmetric or
activation-ordered integer weights, other MoE architectures, FP8 on MiniMax-M2) is reported as not modelled, and so
are the QuantizationArgs fields newer llm-compressor exports carry (``scale_dtype``, ``zp_dtype``) up to 0.13.x: the
compressed-tensors package those releases pin forbids them (VllmConfig's validation refuses the config with a pydantic
message that names the host's pydantic version): :func:`forbidden_args`, which makes the whole launch undecidable
(kvguard.rules.table, step ``vc_quant_ct_forbidden_args``), not only this stage.

Integer-weight experts (W4A16 / W8A16 group scales, actorder none or ``weight``) on Qwen3-MoE, Mixtral,
DeepSeek-V2/V3 (models/deepseek_v2.py: Kimi-K2 included) and MiniMax-M2 (models/minimax_m2.py, registered from
0.11.1) go through :func:`kvguard.quant.wna16_moe.compressed_tensors_experts` (the fused Marlin MoE check,
``CompressedTensorsWNA16MarlinMoEMethod`` or the ``CompressedTensorsWNA16MoEMethod`` fall-back, the WNA16 MoE
kernel backend selection from 0.23.0, the fall-back's group-size checks from 0.24.0, one method from 0.27.0);
8-bit group scales meet a bare assert in 0.23.0-0.24.0 (where Marlin takes the layer) and 0.27.0-0.28.0;
channelwise integer experts stay skipped (the fall-back asserts group scales).  DeepSeek and MiniMax-M2 build
their router gate with ``quant_config=None`` in every release (never quantized, whatever ``ignore`` says); the
``Linear`` target reaches every other linear, so DeepSeek's MLA projections (``fused_qkv_a_proj`` or the replicated
``kv_a_proj_with_mqa``, ``q_b_proj`` / ``q_proj``, ``kv_b_proj``, ``o_proj``), its dense first layers and shared
experts, and MiniMax-M2's attention take ``CompressedTensorsWNA16`` (the Marlin check above).  MiniMax-M2's FP8
forms are not modelled.  0.17.0-0.17.1 build DeepSeek's ``fused_qkv_a_proj`` as ``DeepSeekV2FusedQkvAProj`` (models/
deepseek_v2.py), whose class name the ``Linear`` target does not match (``find_matched_target``, utils.py, nor do its
shards' names): every scheme is refused there, ``MI_ct_no_target`` (kvguard.quant._linear).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping

from . import families as _families
from .names import CT_METHOD

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["METHOD", "NVFP4_MOE_CLASS", "forbidden_args", "scheme_from_config",
           "path", "ignore_state", "may_ignore", "may_ignore_experts", "nvfp4_moe_class", "nvfp4_moe_unmodelled",
           "nvfp4a16_moe_refused", "static_token_args", "fp8_activations"]

METHOD = CT_METHOD

#: compressed_tensors utils.is_activation_quantization_format (the FP8 schemes' formats; NVFP4's left out)
_ACTIVATION_FORMATS = ("naive-quantized", "int-quantized", "float-quantized")
#: vllm marlin_utils.MARLIN_SUPPORTED_GROUP_SIZES
_MARLIN_GROUP_SIZES = (32, 64, 128)
#: The MoE families whose compressed-tensors experts kvguard decides are those whose ``moe_methods``
#: (kvguard/data/quant_archs.json) name ``compressed-tensors`` (every scheme: Qwen3-MoE, Mixtral, DeepSeek-V2/V3, whose
#: first quantized layer is the attention's QKVParallelLinear as in the dense models; GLM-4.x, whose router no release
#: quantizes and whose checkpoint-name mapper (0.26.0+) sits on the inner model class, which the quantization config
#: never sees; Qwen3-Next, whose gated-delta-net layers come first, quantized unless the ignore list names them) or
#: ``compressed-tensors-wna16`` (integer weights only: MiniMax-M2, whose FP8 forms are not checked against the
#: releases).
#: the names get_moe_method matches the ignore list and the targets with (0.12.0+): expert 0's projections, by the
#: fixed names (up to 0.31.0) or the model's checkpoint names (0.32.0+: Mixtral's w1 / w3 / w2)
_EXPERT_PROJECTIONS = ("gate_proj", "up_proj", "down_proj", "w1", "w2", "w3")


#: QuantizationArgs fields llm-compressor writes since compressed-tensors 0.13 (``scale_dtype``, ``zp_dtype``): the
#: package vLLM pins up to 0.13.x (==0.11.0 for 0.10.2-0.11.0, ==0.12.2 for 0.11.1-0.13.x) forbids extra fields, so
#: VllmConfig's validation refuses them before any layer is built (a pydantic ValidationError, not modelled); from
#: 0.14.0 (==0.13.0) they are read
_NEW_ARGS = ("scale_dtype", "zp_dtype")
_NEW_ARGS_READ = "0.14.0"


def forbidden_args(quant_cfg: Mapping[str, Any], release) -> tuple[str, ...]:
    """The QuantizationArgs fields of ``quant_cfg``'s config groups that the compressed-tensors package ``release``
    pins forbids (empty from 0.14.0).  ``CompressedTensorsConfig.from_config`` validates each group's weights, and
    its input activations when written, with ``QuantizationArgs.model_validate`` while VllmConfig is built."""
    if release.within(_NEW_ARGS_READ):
        return ()
    groups = quant_cfg.get("config_groups")
    found: list[str] = []
    for group in (groups.values() if isinstance(groups, Mapping) else ()):
        if not isinstance(group, Mapping):
            continue
        for args in (group.get("weights"), group.get("input_activations")):
            if isinstance(args, Mapping):
                found.extend(key for key in _NEW_ARGS if key in args and key not in found)
    return tuple(found)


#: from 0.14.0 the pinned compressed-tensors package (0.13.0+) refuses QuantizationArgs of strategy ``token`` that are
#: not dynamic ("Cannot perform static token quantization, please use `dynamic=True`"), seen on the oracles of
#: 0.14.1 - 0.33.0; the packages of 0.10.2 - 0.13.x take them (those releases then look for a scheme)
_STATIC_TOKEN_REFUSED = "0.14.0"


def static_token_args(quant_cfg: Mapping[str, Any], release) -> tuple[str, ...]:
    """The config groups' QuantizationArgs (``group.weights`` / ``group.input_activations``) of static per-token
    strategy that the compressed-tensors package ``release`` pins refuses while VllmConfig builds the quantization
    config (a pydantic ValidationError naming the host's pydantic version); empty before 0.14.0."""
    if not release.within(_STATIC_TOKEN_REFUSED):
        return ()
    groups = quant_cfg.get("config_groups")
    found: list[str] = []
    for name, group in (groups.items() if isinstance(groups, Mapping) else ()):
        if not isinstance(group, Mapping):
            continue
        for key in ("weights", "input_activations"):
            args = group.get(key)
            if isinstance(args, Mapping) and args.get("strategy") == "token" and not args.get("dynamic"):
                found.append(f"{name}.{key}")
    return tuple(found)


def _bool(value: Any, default: bool) -> Optional[bool]:
    if value is None:
        return default
    return value if type(value) is bool else None


def scheme_from_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """What kvguard reads from a compressed-tensors ``quantization_config``: ``{"kind": "fp8" | "fp8_block" |
    "int8" | "nvfp4" | "wna16", "ignore": (...), "block": (n, k), "bits": b, "group_size": g}``, or
    ``{"unmodelled": reason}``."""

    def no(why: str) -> dict[str, Any]:
        return {"unmodelled": f"the compressed-tensors checkpoint's {why} is not modelled"}

    for key, what in (("sparsity_config", "sparsity_config"), ("transform_config", "transform_config"),
                      ("kv_cache_scheme", "kv_cache_scheme (quantized KV cache)")):
        if cfg.get(key):
            return no(what)
    ignore = cfg.get("ignore") or []
    if not (isinstance(ignore, list) and all(isinstance(x, str) for x in ignore)):
        return no(f"ignore list {ignore!r}")
    groups = cfg.get("config_groups")
    if not isinstance(groups, Mapping) or len(groups) != 1:
        return no(f"config_groups ({len(groups) if isinstance(groups, Mapping) else groups!r} groups; one group "
                  f"is modelled)")
    group = next(iter(groups.values()))
    if not isinstance(group, Mapping) or group.get("targets") != ["Linear"]:
        return no(f"targets {group.get('targets') if isinstance(group, Mapping) else group!r} (['Linear'] is "
                  f"modelled)")
    if group.get("output_activations"):
        return no("output_activations")
    fmt = group.get("format") or cfg.get("format")
    w, a = group.get("weights"), group.get("input_activations")
    if not isinstance(w, Mapping) or not (a is None or isinstance(a, Mapping)):
        return no("weights / input_activations")
    wtype, bits, strategy = w.get("type"), w.get("num_bits"), w.get("strategy")
    sym, dyn = _bool(w.get("symmetric"), True), _bool(w.get("dynamic"), False)
    desc = (f"scheme (weights {bits!r}-bit {wtype!r} {strategy!r}, symmetric={w.get('symmetric')!r}; "
            f"activations {None if a is None else (a.get('num_bits'), a.get('type'), a.get('strategy'))}; "
            f"format {fmt!r})")
    if sym is not True or dyn is not False:
        return no(desc)
    out: dict[str, Any] = {"ignore": tuple(ignore)}
    if wtype == "float" and bits == 8 and a is not None and fmt in _ACTIVATION_FORMATS:
        if a.get("type") != "float" or a.get("num_bits") != 8:
            return no(desc)
        a_dyn, a_sym = _bool(a.get("dynamic"), False), _bool(a.get("symmetric"), True)
        if a_dyn is None or a_sym is None:
            return no(desc)
        if strategy in ("tensor", "channel") and w.get("block_structure") is None:
            # _is_fp8_w8a8: dynamic activations, or static per-tensor symmetric ones
            if a_dyn or (a_sym and a.get("strategy") == "tensor"):
                return dict(out, kind="fp8", moe=_fp8_moe_form(strategy, a.get("strategy"), a_dyn, desc))
            return no(desc)
        block = w.get("block_structure")
        if strategy == "block" and a_dyn and isinstance(block, list) and len(block) == 2 and all(
                type(b) is int and b > 0 for b in block):
            moe = None if a.get("strategy") == "group" else (
                f"compressed-tensors FP8 block weights on MoE experts with {a.get('strategy')!r} activations are "
                f"not modelled")
            return dict(out, kind="fp8_block", block=(block[0], block[1]), moe=moe)
        return no(desc)
    if wtype == "int" and bits == 8 and a is not None and fmt in _ACTIVATION_FORMATS:
        return _int8_w8a8(out, strategy, w, a, desc)
    if wtype == "float" and bits == 4 and strategy == "tensor_group":
        return _nvfp4(out, w, a, fmt, desc)
    if wtype == "int" and bits in (4, 8) and a is None and fmt == "pack-quantized":
        # actorder "weight" reorders the weights only: no group index (has_g_idx is "group" only), the same
        # kernel path as none; "group" / "dynamic" carry a group index ("static" is left out: the compressed-tensors
        # package pinned by older releases may not know it)
        # (with channelwise weights the compressed-tensors package refuses any actorder, or not, by its version)
        if w.get("actorder") not in (None, False, "weight") or (w.get("actorder") and strategy != "group"):
            return no(f"actorder {w.get('actorder')!r}")
        group_size = w.get("group_size")
        if strategy == "channel" and group_size in (None, -1):
            # where the fused Marlin MoE kernel does not take the layer, the fall-back method asserts group
            # scales: left skipped
            return dict(out, kind="wna16", bits=bits, group_size=-1,
                        moe="compressed-tensors channelwise integer weights on MoE experts are not modelled")
        if strategy == "group" and group_size in _MARLIN_GROUP_SIZES:
            return dict(out, kind="wna16", bits=bits, group_size=group_size, moe=None)
        return no(desc + f" with group_size {group_size!r}")
    return no(desc)


def _int8_w8a8(out: dict[str, Any], strategy: Any, weights: Mapping[str, Any], activations: Mapping[str, Any],
               desc: str) -> dict[str, Any]:
    """INT8 weights with INT8 activations (llm-compressor's W8A8 preset, SmoothQuant / GPTQ exports): the releases'
    ``_is_dynamic_token_w8a8`` (per-tensor or per-channel symmetric weights, dynamic per-token activations) and
    ``_is_static_tensor_w8a8`` (static per-tensor activations) pick ``CompressedTensorsW8A8Int8``, activations
    symmetric or not.  Its ``create_weights`` checks no size; the INT8 GEMM kernel it chooses on CUDA (CUTLASS,
    first in every release's list) takes every layer (``can_implement`` reads no shape) — a host fact."""
    if strategy not in ("tensor", "channel") or weights.get("block_structure") is not None:
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    if activations.get("type") != "int" or activations.get("num_bits") != 8:
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    a_dyn, a_sym = _bool(activations.get("dynamic"), False), _bool(activations.get("symmetric"), True)
    if a_dyn is None or a_sym is None:
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    if not ((a_dyn and activations.get("strategy") == "token") or (not a_dyn and activations.get("strategy") == "tensor")):
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    # the experts' CompressedTensorsW8A8Int8MoEMethod (its form checks, and from 0.20.0 the INT8 MoE backend choice)
    # is not checked against the releases
    return dict(out, kind="int8", moe="compressed-tensors INT8 W8A8 weights on MoE experts are not modelled")


#: the format llm-compressor writes for NVFP4 (compressed-tensors CompressionFormat.nvfp4_pack_quantized); every
#: release's is_activation_quantization_format (compressed_tensors/utils.py) lists it
NVFP4_FORMAT = "nvfp4-pack-quantized"


def _nvfp4(out: dict[str, Any], weights: Mapping[str, Any], activations: Optional[Mapping[str, Any]], fmt: Any,
           desc: str) -> dict[str, Any]:
    """NVFP4 (llm-compressor's NVFP4 preset, W4A4, and NVFP4A16, weight-only): FP4 weights in groups of 16 with a
    per-tensor global scale (``tensor_group``), activations the same with dynamic ``local`` scales or none.

    Every release reads these two forms by ``_is_fp4a4_nvfp4`` / ``_is_fp4a16_nvfp4`` (0.10.2-0.13.x) or
    ``_is_nvfp4_format`` (0.14.0+): tensor_group strategy, float type, 4 bits, group size 16, symmetric.  On a GPU of
    compute capability 9.0 (no FP4 CUTLASS kernels, which need the SM100 family) the layer is built by

    - weight-only: ``CompressedTensorsW4A16Fp4`` up to 0.22.x, ``CompressedTensorsW4A4Fp4(use_a16=True)`` from 0.23.0;
    - W4A4: up to 0.15.x ``cutlass_fp4_supported()`` is False, so ``_get_scheme_from_parts`` falls back to
      ``CompressedTensorsW4A16Fp4(has_input_global_scale=True)`` (FP4 Marlin); from 0.16.0
      ``CompressedTensorsW4A4Fp4``, whose kernel choice (``select_nvfp4_linear_backend`` 0.16.0-0.19.x,
      ``init_nvfp4_linear_kernel`` 0.20.0+) falls to FP4 Marlin and is made before any layer size is known.

    None of these ``create_weights`` checks a size (the packed weight and the group scales take the per-rank input
    size floor-divided by 2 and 16), and the minimum capabilities (80, then 75) pass on 9.0: every layer is
    accepted at construction (a host fact: the default host, default environment - no emulation, FBGEMM or
    forced GEMM backend).  The experts: :func:`nvfp4_moe_unmodelled`."""
    if fmt != NVFP4_FORMAT:
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    if weights.get("group_size") != 16 or weights.get("actorder") or weights.get("block_structure") is not None:
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    # the experts are decided by release and launch (nvfp4_moe_unmodelled)
    if activations is None:
        return dict(out, kind="nvfp4", moe=None, weight_only=True)
    if fp8_activations(activations):
        # refused at the first quantized linear layer, by release (:func:`path`); the experts are never reached
        return dict(out, kind="nvfp4_fp8", moe=None)
    a_sym = _bool(activations.get("symmetric"), True)
    if (activations.get("type") != "float" or activations.get("num_bits") != 4
            or activations.get("strategy") != "tensor_group" or activations.get("group_size") != 16
            or a_sym is not True or activations.get("dynamic") != "local"):
        # other activations beside NVFP4 weights (INT8, static NVFP4, group-wise FP8) are not checked against the
        # releases
        return {"unmodelled": f"the compressed-tensors checkpoint's {desc} is not modelled"}
    return dict(out, kind="nvfp4", moe=None)


def fp8_activations(activations: Mapping[str, Any]) -> bool:
    """Whether ``activations`` are FP8 per-token or per-tensor, dynamic or static, symmetric or not (llm-compressor's
    FP8_DYNAMIC activations are dynamic per-token, its FP8 ones static per-tensor): the forms checked against the
    releases beside NVFP4 weights (:data:`NVFP4_FP8_REFUSED`; static per-token ones are refused earlier from 0.14.0,
    :func:`static_token_args`).  Group-wise ones are left out."""
    if activations.get("type") != "float" or activations.get("num_bits") != 8:
        return False
    if activations.get("group_size") is not None or activations.get("actorder") or (
            activations.get("block_structure") is not None):
        return False
    if _bool(activations.get("symmetric"), True) is None or _bool(activations.get("dynamic"), False) is None:
        return False
    return activations.get("strategy") in ("token", "tensor")


#: NVFP4 weights with FP8 input activations (:func:`fp8_activations`), as each release's
#: ``CompressedTensorsConfig._get_scheme_from_parts`` (compressed_tensors.py) meets them at the first quantized linear
#: layer (``get_quant_method`` from ``LinearBase.__init__``, after the layer's own sharding divisions and before its
#: ``create_weights``); read in every group release 0.10.2 - 0.33.0:
#:
#: - 0.10.2 - 0.22.x (``_is_fp4a4_nvfp4`` / ``_is_fp4a16_nvfp4``, from 0.14.0 ``_is_nvfp4_format``): neither NVFP4 test
#:   takes FP8 activations and no other test takes ``tensor_group`` weights (the FP8 tests want tensor / channel /
#:   block weights, W4A8 / INT8 / MXFP4 / MXFP8 group, channel or tensor ones): the closing ``NotImplementedError``,
#:   its message the bare sentence in all of them (``MI_ct_no_scheme``);
#: - 0.23.0+: the NVFP4 branch comes first and refuses any input activations that are not NVFP4 with a ValueError
#:   (``MI_ct_nvfp4_activations``; given two arguments up to 0.28.0, so its message is the tuple's repr, one from
#:   0.29.0: the two rows of kvguard/rules/table.py).
NVFP4_FP8_REFUSED = "0.23.0"


#: the NVFP4 experts' method, by release (compressed_tensors_moe.py up to 0.19.x, then
#: compressed_tensors_moe/compressed_tensors_moe_w4a4_nvfp4.py; read in every group release 0.10.2 - 0.33.0 and in 0.11.2,
#: 0.14.0, 0.17.0; 0.15.1, 0.18.1, 0.19.0, 0.25.x and 0.27.1 lie between identical readings):
#:
#: - 0.10.2 - 0.13.x: ``get_moe_method`` takes only the W4A4 form (``_is_fp4a4_nvfp4``) to the NVFP4 method, whose
#:   ``detect_nvfp4_moe_support`` (utils/nvfp4_moe_support.py) answers FP4 Marlin on compute capability 9.0 (no FP4
#:   CUTLASS; ``is_fp4_marlin_supported``: 7.5+); the weight-only form falls through the FP8 tests to
#:   ``_is_dynamic_token_w8a8``, which reads the absent activations' ``num_bits`` (:data:`NVFP4A16_MOE_READ`);
#: - 0.14.x: ``_is_nvfp4_format`` takes both forms, the weight-only one with ``use_marlin`` (its own
#:   ``is_fp4_marlin_supported`` probe), the W4A4 one through ``select_nvfp4_moe_backend()`` (MARLIN on 9.0);
#: - 0.15.0+: both through ``select_nvfp4_moe_backend(config, ...)``, its priority list's MARLIN entry on 9.0.
#:   0.17.0 - 0.19.x import the FlashInfer TRT-LLM NVFP4 experts module first, whose top-level ``import flashinfer``
#:   succeeds on the default host (flashinfer-python is a dependency of those releases' CUDA wheels: 0.6.4 / 0.6.6)
#:   and whose experts decline compute capability 9.0 (the SM100 family only), as do the FlashInfer CuteDSL, FlashInfer
#:   CUTLASS (NVFP4 from capability 10.0) and CUTLASS FP4 entries.
#:
#: The class FusedMoE's EPLB refusal names (0.11.1+): CompressedTensorsW4A4MoeMethod up to 0.11.x,
#: CompressedTensorsW4A4Nvfp4MoEMethod from 0.12.0 (:func:`nvfp4_moe_class`)
NVFP4_MOE_RENAMED = "0.12.0"
#: The MoE families whose NVFP4 experts are decided name ``compressed-tensors-nvfp4`` in their ``moe_methods``
#: (Qwen3-MoE, Mixtral: a FusedMoE / RoutedExperts of SiLU-and-mul experts, the router gate a plain linear layer).
#: the experts' method from 0.12.0, as FusedMoE's EPLB refusal names it (both forms: ``use_a16`` / ``use_marlin`` only
#: change the activation key)
NVFP4_MOE_CLASS = "CompressedTensorsW4A4Nvfp4MoEMethod"
#: from this release ``get_moe_method`` takes NVFP4A16 (weight-only) experts; 0.10.2 - 0.13.x refuse them with an
#: AttributeError while the MoE layer picks its method (``MI_ct_nvfp4a16_moe``: ``_is_dynamic_token_w8a8`` compares the
#: weights' ``num_bits`` with the activations', which are None) - after FusedMoE's intermediate-size assert, before
#: its EPLB check
NVFP4A16_MOE_READ = "0.14.0"


def nvfp4_moe_class(release) -> str:
    """The NVFP4 experts' method class name in ``release`` (FusedMoE's EPLB refusal names it from 0.11.1)."""
    return NVFP4_MOE_CLASS if release.within(NVFP4_MOE_RENAMED) else "CompressedTensorsW4A4MoeMethod"


def nvfp4a16_moe_refused(release) -> bool:
    """Whether ``release``'s ``get_moe_method`` refuses NVFP4A16 experts (:data:`NVFP4A16_MOE_READ`)."""
    return not release.within(NVFP4A16_MOE_READ)


def nvfp4_moe_unmodelled(family: str, release, moe_backend: Optional[str],
                         all2all_backend: Optional[str]) -> Optional[str]:
    """Why the NVFP4 / NVFP4A16 experts of ``family`` are not decided for this launch (None: they are).

    Every release 0.10.2 - 0.33.0 (:data:`NVFP4_MOE_RENAMED` lists the readings): the W4A4 form, and from 0.14.0 the
    weight-only form, take the one NVFP4 MoE method, which picks its backend while it is built (0.10.2 - 0.13.x
    ``detect_nvfp4_moe_support``, 0.14.x ``select_nvfp4_moe_backend()`` or the weight-only form's Marlin probe, from
    0.15.0 ``select_nvfp4_moe_backend`` in fused_moe/oracle/nvfp4.py, the function ModelOpt's NVFP4 experts call:
    kvguard.quant.modelopt_shards, with the weight key ``kNvfp4Static`` and the activation key ``kNvfp4Dynamic`` or
    None).  On the default host (compute capability 9.0, default environment, ``--moe-backend auto``, the default
    all2all backend) FP4 CUTLASS and the FlashInfer FP4 kernels need the SM100 family and FP4 Marlin takes the layer
    (``MarlinExperts`` from 0.15.0: CUDA 7.5+, reads the weight key only; the last entry up to 0.19.x, EMULATION
    after it from 0.20.0; 0.32.0+ HUMMING before it takes it or not - no size check either way).
    ``create_weights`` sizes the packed weights and group scales by floor division of the hidden and per-rank
    intermediate sizes (``// 2``, ``// 16``): no check, no padding.  ``supports_eplb``: the base's False up to
    0.27.x, then true only for FlashInfer backends the host does not pick: ``--enable-eplb`` is refused
    (:func:`nvfp4_moe_class`; up to 0.11.0 FusedMoE's own FP8-only test).  NVFP4A16 experts up to 0.13.x:
    :data:`NVFP4A16_MOE_READ`.  DeepSeek-V2/V3's NVFP4 experts are not read."""
    if not _families.moe_method_decided(family, "compressed-tensors-nvfp4"):
        return f"compressed-tensors NVFP4 weights on the MoE experts of the {family} family are not modelled"
    from .moe_backend import named_backend_unmodelled

    return named_backend_unmodelled("compressed-tensors NVFP4 experts", moe_backend, all2all_backend)


def _fp8_moe_form(weights: Any, activations: Any, dynamic: bool, desc: str) -> Optional[str]:
    """Why the experts' FP8 method (CompressedTensorsW8A8Fp8MoEMethod) is not modelled for this form, or None.

    Every release's method takes per-tensor weights with static per-tensor activations (FP8 static), or
    per-channel weights with dynamic per-token activations (FP8_DYNAMIC); the other forms reach an assert, a
    refusal whose message prints the compressed-tensors package's argument objects, or (dynamic per-tensor
    activations, 0.20.0+) a kernel choice by quantization keys no real checkpoint exercises."""
    if ((weights, activations) == ("tensor", "tensor") and not dynamic) or (
            (weights, activations) == ("channel", "token") and dynamic):
        return None
    return f"the FP8 MoE experts' {desc} is not modelled (per-tensor / per-tensor or per-channel / dynamic per-token)"


def path(kind: str, family: str, release, quantization: Optional[str], dtype: str, top: Mapping[str, Any],
         architectures, moe_unmodelled: Optional[str] = None, forbidden: tuple[str, ...] = (),
         static_token: tuple[str, ...] = ()) -> str:
    """How the release builds the layers of a modelled scheme (``fp8`` / ``fp8_block``: the FP8 checks;
    ``gptq_marlin`` / ``gptq_marlin_padded``: the Marlin layer check; ``no_scheme``: the first quantized layer
    refuses, ``MI_ct_no_scheme``), or ``unmodelled:<reason>``."""
    if forbidden:
        # :func:`forbidden_args`: VllmConfig refuses the config before any layer is built (the rules make the launch
        # undecidable; here the stage is left open)
        return (f"unmodelled:the compressed-tensors QuantizationArgs field(s) {' / '.join(forbidden)} (written by "
                f"compressed-tensors 0.13+) under the compressed-tensors package vLLM {release.key} pins (it forbids "
                f"extra fields: VllmConfig's validation refuses them) are not modelled")
    if static_token:
        # :func:`static_token_args`: VllmConfig refuses the config first (the rules make the launch undecidable)
        return (f"unmodelled:static per-token QuantizationArgs ({' / '.join(static_token)}) under the compressed-"
                f"tensors package vLLM {release.key} pins (VllmConfig's validation refuses them) are not modelled")
    if not _families.dense_only(family) and not _families.moe_method_decided(family, METHOD) and not (
            kind == "wna16" and _families.moe_method_decided(family, "compressed-tensors-wna16")):
        return (f"unmodelled:compressed-tensors with MoE layers ({', '.join(architectures)}) is not modelled")
    if not _families.dense_only(family) and moe_unmodelled:
        return f"unmodelled:{moe_unmodelled}"
    if quantization not in (None, METHOD):
        return f"unmodelled:--quantization {quantization} with a compressed-tensors checkpoint is not modelled"
    if dtype != "auto":
        return f"unmodelled:--dtype {dtype} with compressed-tensors weights is not modelled"
    if kind in ("fp8", "int8", "nvfp4"):
        return kind
    if kind == "nvfp4_fp8":
        if family == "deepseek_v2":
            # its first quantized layers are ReplicatedLinear / the MLA projections, whose order per config kvguard
            # does not walk for this refusal
            return "unmodelled:compressed-tensors NVFP4 weights with FP8 activations on DeepSeek are not modelled"
        return "nvfp4_fp8_refused" if release.within(NVFP4_FP8_REFUSED) else "no_scheme"
    if kind == "fp8_block":
        # 0.10.2's _is_fp8_w8a8 takes no block strategy, nor does any later test: no scheme is found for the layer
        if release.within("0.11.0"):
            return "fp8_block"
        if family == "deepseek_v2":
            # its first quantized layers are ReplicatedLinear / the MLA projections, whose order per config kvguard
            # does not walk for this refusal
            return "unmodelled:compressed-tensors FP8 block weights on DeepSeek in vLLM 0.10.2 are not modelled"
        return "no_scheme"
    model_dtype = top.get("torch_dtype") or top.get("dtype")
    if model_dtype not in ("bfloat16", "float16"):
        return (f"unmodelled:compressed-tensors integer weights with the model dtype {model_dtype!r} (the kernels' "
                f"activation types) are not modelled")
    return "gptq_marlin_padded" if release.within("0.24.0") else "gptq_marlin"


#: ``find_matching_patterns`` (utils/config_utils.py) matches a fused layer's own name before its shards' from this
#: release; before, ``should_ignore_layer`` reads the own name first only when the list holds it verbatim
FUSED_NAME_FIRST_SINCE = "0.30.0"
#: the families whose model class hands the config a checkpoint-name mapper (``hf_to_vllm_mapper``, with the stacked
#: renames ``.q_proj`` → ``.qkv_proj``, …; Qwen3.5's wrappers the Qwen3-VL prefix renames, whose layer paths the
#: differential does not draw) from this release: ``apply_vllm_mapper`` rewrites the layer paths of
#: ``ignore`` (0.13.0+: only entries with a dot that are no ``re:`` pattern), which kvguard does not model
_PATH_MAPPER_SINCE = {"llama": "0.25.0", "qwen3_moe": "0.25.0", "minimax_m2": "0.25.0", "mixtral": "0.25.0",
                      "qwen3_5_moe": "0.17.0", "qwen3_5": "0.17.0",
                      # Llama 4's wrapper has none, but the language model it builds is a LlamaForCausalLM
                      "llama4": "0.25.0",
                      # Gemma3ForCausalLM's stacked-shard mapper comes with Llama's (0.25.0)
                      "gemma3": "0.25.0"}
#: the families whose mapper rewrites ``ignore`` in every release kvguard knows (the superset :func:`may_ignore`)
_ALWAYS_MAPPED = ("gpt_oss", "gemma4")


def _matches(name: str, entry: str) -> bool:
    """is_equal_or_regex_match as ``should_ignore_layer`` calls it: ``re:`` patterns matched at the start, any
    other entry compared whole."""
    return re.match(entry[3:], name) is not None if entry.startswith("re:") else entry == name


def ignore_state(prefix: str, shards: tuple[str, ...], ignore: tuple[str, ...], family: str, release) -> str:
    """How ``get_scheme`` treats a linear layer under the config's ``ignore`` list: ``"skipped"`` (built
    unquantized), ``"quantized"``, ``"ct_fused_error"`` (a fused layer whose shards the list names only in part:
    ``should_ignore_layer``'s ValueError) or ``"ct_unmodelled"`` (the list may name it through a rewriting kvguard
    does not model).  ``shards``: the layer's entries in the model's packed-modules mapping."""
    if not may_ignore(prefix, shards, ignore):
        return "quantized"
    if family in _ALWAYS_MAPPED:
        return "ct_unmodelled"
    if family in _PATH_MAPPER_SINCE and release.within(_PATH_MAPPER_SINCE[family]) \
            and any("." in entry and not entry.startswith("re:") for entry in ignore):
        return "ct_unmodelled"
    try:
        own = any(_matches(prefix, entry) for entry in ignore)
        proj = prefix.split(".")[-1]
        if not shards or own and (release.within(FUSED_NAME_FIRST_SINCE) or prefix in ignore):
            return "skipped" if own else "quantized"
        hits = [any(_matches(prefix.replace(proj, shard), entry) for entry in ignore) for shard in shards]
    except re.error:
        return "ct_unmodelled"      # vLLM's re.match raises on the pattern while it builds the layer
    if all(hits):
        return "skipped"
    return "ct_fused_error" if any(hits) else "quantized"


def may_ignore_experts(prefix: str, ignore: tuple[str, ...]) -> bool:
    """Whether an ``ignore`` entry could name the MoE layer (``...mlp.experts``) or expert 0's projections, the
    names ``get_moe_method`` looks up (a superset, as :func:`may_ignore`)."""
    return may_ignore(prefix, (), ignore) or any(
        may_ignore(f"{prefix}.0.{proj}", (), ignore) for proj in _EXPERT_PROJECTIONS)


def may_ignore(prefix: str, shards: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """Whether an ``ignore`` entry could name the layer or one of its shards.  A superset of what every
    release's ``should_ignore_layer`` matches (exact names, ``re:`` regexes matched or searched, names
    contained in the layer's, glob patterns): a layer it clears is quantized in every release; one it does not is left
    to the caller as not modelled (a fused layer ignored in part refuses, in release-specific ways)."""
    if not ignore:
        return False
    parent, proj = prefix.rsplit(".", 1) if "." in prefix else ("", prefix)
    names = [prefix] + [f"{parent}.{shard}" if parent else shard for shard in shards]
    for entry in ignore:
        if entry.startswith("re:"):
            try:
                pattern = re.compile(entry[3:])
            except re.error:
                return True
            if any(pattern.search(name) for name in names):
                return True
        elif any(entry in name or name in entry or fnmatch.fnmatchcase(name, entry) for name in names):
            return True
    return False
