"""AWQ / GPTQ checkpoints on MoE architectures while the model is built (CUDA, compute capability 9.0).

The linear layers (attention, dense MLPs, the router gate where the model quantizes it) take the
dense AWQ / GPTQ path of :mod:`kvguard.quant`.  The MoE experts (``FusedMoE``) get their
quantization method from the checkpoint's config class (``get_quant_method``), per release:

- a layer the AWQ checkpoint's ``modules_to_not_convert`` names (substring of the prefix) is left
  unquantized;
- the fused MoE Marlin kernel takes the layer when ``check_moe_marlin_supports_layer`` holds (hidden
  size a multiple of 128, the per-rank intermediate size a multiple of max(64, group_size); from
  0.25.0 AWQ and GPTQ without ``desc_act`` pad the intermediate size to the tile, so only a group
  straddling two ranks is refused; group size -1/32/64/128): ``AWQMoEMethod`` /
  ``AWQMarlinMoEMethod`` / ``AutoAWQMoEMethod``, ``GPTQMarlinMoEMethod`` / ``AutoGPTQMoEMethod``;
- otherwise the release falls back to ``MoeWNA16Method``, whose ``create_weights`` halves the group
  size until it divides both the per-rank intermediate size and the hidden size, asserting that it
  stays at least 32 (a bare ``AssertionError``).

The kernel backend selection (vllm/model_executor/layers/fused_moe/oracle/int_wna16.py,
``select_wna16_moe_backend``): from 0.20.0 (GPTQ) / 0.22.0 (AWQ) the Marlin MoE methods, and from 0.27.0
``MoeWNA16Method`` too, pick a backend when constructed.  It is decided for the default host, CUDA compute
capability 9.0 (an assumption, as the host's other facts; another or unknown capability leaves it skipped):

- ``--moe-backend`` (0.26.0+; ignored before 0.25.0; 0.25.x left skipped, its rows would split 0.24.0's
  launch-check group): a name outside ``map_wna16_backend``'s list is a ValueError;
  from 0.27.0 ``_backend_incompatibility_reason`` (the AWQ / GPTQ methods declare possible expert bias, AWQ its
  zero points; Marlin's layer check with the method's tile padding; MoeWNA16's layout) and then the kernel's
  ``is_supported_config`` refuse it with "WNA16 MoE backend 'X' does not support the deployment configuration
  since ...";
- otherwise the priority list of CUDA 9.0 per release (FLASHINFER_TRTLLM 0.23.0+, which needs the SM100 family;
  MARLIN; BATCHED_MARLIN, the batched activation format only; TRITON 0.27.0+, which takes no expert bias;
  HUMMING 0.25.0+, ahead of MARLIN from 0.32.0 (``prioritize_humming``); EMULATION 0.26.0+; RDNA3 0.30.0+,
  compressed-tensors only): the first backend that takes the layer.  MARLIN takes the Marlin methods' 4- and
  8-bit weights, TRITON MoeWNA16's; "No WNA16 MoE backend supports the deployment configuration." when none does.
- 0.27.0-0.28.0 ``MoeWNA16Method.__init__`` asserts ``group_size == -1`` for 8-bit weights first.

compressed-tensors integer-weight experts (``CompressedTensorsWNA16MarlinMoEMethod`` /
``CompressedTensorsWNA16MoEMethod``, vllm/model_executor/layers/quantization/compressed_tensors/
compressed_tensors_moe*.py) reuse the Marlin check and the selection through
:func:`compressed_tensors_experts` (``kind`` ``compressed_tensors``: the selection's QuantizationArgs, which RDNA3
takes from 0.30.0 but whose kernel needs ROCm gfx1100), for the families whose ``moe_methods`` name
``compressed-tensors`` or ``compressed-tensors-wna16``.  Experts that apply the router weight on the input (Llama 4:
the family's experts item ``router_on_input``) fail ``check_moe_marlin_supports_layer`` up to 0.26.x whatever their
shape, so they take the fall-back method there; 0.27.0's ``check_moe_marlin_supports_config`` no longer reads it.

HUMMING's support check (the humming-kernels package) is not modelled: from 0.32.0 it comes before MARLIN /
TRITON, which take the layer when it does not — the backend is read only after the weights are loaded, so
model construction goes on either way.  Left skipped: ``--moe-backend humming`` / ``emulation`` (Marlin
methods), a layer only HUMMING or EMULATION could take; an
explicit ``--all2all-backend`` with expert parallelism (the batched activation format of the DeepEP low-latency
/ NIXL kernels, FlashInfer's NVLink kernels); ``MoeWNA16`` with ``group_size: -1`` (without EPLB); the
plain-AWQ route (``--quantization awq``) with ignored expert modules; AWQ with
``group_size: -1`` on the experts (the AWQ MoE methods size their scales ``hidden_size // group_size``, a
negative dimension torch refuses); architectures other than Qwen3-MoE, Mixtral, DeepSeek-V2/V3 and MiniMax-M2.

``--enable-eplb`` (vllm/model_executor/layers/fused_moe/layer.py ``FusedMoE.__init__``, from 0.24.0
routed_experts.py): once the quant method is built (its backend selection included) and before its
``create_weights``, FusedMoE refuses a method without EPLB support with a NotImplementedError — up to 0.11.0
any method but the FP8 and unquantized ones ("EPLB is only supported for FP8 quantization for now."), from
0.11.1 a method whose ``supports_eplb`` is False, naming its class.  No AWQ / GPTQ / MoeWNA16 method of any
release supports it; ``CompressedTensorsWNA16MarlinMoEMethod`` never, ``CompressedTensorsWNA16MoEMethod`` from
0.12.0 and, from 0.27.0 (the one method), only when its backend is TRITON.  Up to 0.23.x the check reads the
``enable_eplb`` the model passes the layer; from 0.24.0 the MoE parallel config's (``--enable-eplb`` itself, so
MiniMax-M2, whose model passes none, is refused too).  Left skipped: the compressed-tensors method from 0.32.0
when TRITON takes the layer (HUMMING, ahead of it, may take it instead).

DeepSeek-V2/V3 (vllm/model_executor/models/deepseek_v2.py; DeepSeek-V3.2 / GLM-5 there up to 0.28.x, from 0.29.0 the
CUDA host's vllm/models/deepseek_v32, the same layers with the sparse-attention indexer's replicated projections) and
MiniMax-M2 (minimax_m2.py, registered from 0.11.1), every release: the router gate is built without the checkpoint's
quantization (``ReplicatedLinear`` with ``quant_config=None``; ``GateLinear``, which passes None itself, from 0.17.0
/ 0.23.0); DeepSeek's MLA projections (``fused_qkv_a_proj`` / ``kv_a_proj_with_mqa``, ``q_b_proj`` / ``q_proj``,
``kv_b_proj``, ``o_proj``), its dense MLPs (the first ``first_k_dense_replace`` layers) and its shared experts take
the dense AWQ / GPTQ path, the routed experts this module's; with a compressed-tensors checkpoint the same layers
take ``CompressedTensorsWNA16`` (the GPTQ Marlin check) and the routed experts :func:`compressed_tensors_experts`.
Left skipped there: ``--all2all-backend`` with a layout where the sequence-parallel MoE could apply (expert parallel,
tp > 1, dp > 1: whether the shared experts are split by tp depends on the backend's name).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import families as _families

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["Selection", "ct_experts_decided", "audit_rule", "compressed_tensors_experts", "eplb_applies",
           "experts", "gate_quantized", "unmodelled_reason"]

#: The MoE families whose AWQ / GPTQ experts kvguard decides name the method in their ``moe_methods``
#: (kvguard/data/quant_archs.json; checked by tests/upstream/test_quant.py: DeepSeek-V3.2 by dsa_wna16_variants, GLM-4.x
#: by glm4_moe_variants); those whose compressed-tensors integer-weight experts it decides (compressed_tensors_experts)
#: name ``compressed-tensors`` or ``compressed-tensors-wna16`` (ct_moe_variants and ct_mla_variants: DeepSeek-V2/V3 /
#: Kimi-K2 with MLA, shared experts and dense first layers on the dense WNA16 scheme, MiniMax-M2 from 0.11.1;
#: glm4_moe_variants, qwen3_next_variants). The router gates of the families with ``router_quantized`` false are built
#: with ``quant_config=None`` in every release (GLM-4.x's a float32 nn.Linear, from 0.31.0 a GateLinear).

#: vllm marlin_utils.check_moe_marlin_supports_layer: the hidden size's tile and the smallest intermediate tile
_MOE_MARLIN_HIDDEN, _MOE_MARLIN_MIN_INTERMEDIATE = 128, 64
_MARLIN_GROUP_SIZES = (-1, 32, 64, 128)
#: MoeWNA16Method.create_weights: the smallest group size its halving loop accepts
_WNA16_MIN_GROUP = 32


def ct_experts_decided(family: str) -> bool:
    """Whether kvguard decides the compressed-tensors integer-weight experts of ``family``."""
    return (_families.moe_method_decided(family, "compressed-tensors")
            or _families.moe_method_decided(family, "compressed-tensors-wna16"))


def unmodelled_reason(family: str, scheme, facts, release) -> Optional[str]:
    """Why kvguard does not decide an AWQ / GPTQ checkpoint, or the compressed-tensors integer-weight experts, of this
    MoE architecture (None: it does)."""
    archs = ", ".join(facts.architectures)
    if not (ct_experts_decided(family) if scheme.method == "compressed-tensors"
            else _families.moe_method_decided(family, scheme.method)):
        return f"{scheme.method} with MoE layers ({archs}) is not modelled"
    hidden_act = facts.resolved.get("hidden_act", "silu")
    if hidden_act != "silu":
        return f"{scheme.method} MoE layers with hidden_act {hidden_act!r} are not modelled"
    if scheme.method == "gptq" and family == "qwen3_moe" and not release.within("0.15.0"):
        q = facts.resolved_top.get("quantization_config") or facts.resolved.get("quantization_config") or {}
        if isinstance(q, Mapping) and q.get("autoround_version"):
            return "the router gate of an AutoRound GPTQ checkpoint is not modelled"
    return None


def gate_quantized(family: str, scheme, release) -> bool:
    """Whether the model hands the checkpoint's quantization to its router gate (a ReplicatedLinear).

    Mixtral, DeepSeek-V2/V3 and MiniMax-M2 build the gate without a quantization config (every release);
    Qwen3-MoE with the checkpoint's, except GPTQ up to 0.14.1 (``_maybe_ignore_quant_config``: AutoGPTQ leaves the gate
    unquantized).  An AWQ ``modules_to_not_convert`` entry that is part of its prefix leaves it unquantized too
    (the walk's skip state)."""
    if not _families.router_quantized(family):
        return False
    if scheme.method == "gptq":
        return release.within("0.15.0")
    return True


def _moe_marlin_takes(hidden: int, ispp: int, group: int, padded: bool, router_on_input: bool = False) -> bool:
    """check_moe_marlin_supports_layer on CUDA (the activation is SiLU); ``router_on_input``: the experts apply the
    router weight on the input, which the check declines up to 0.26.x (0.27.0's check_moe_marlin_supports_config no
    longer reads it: the caller passes it only for the releases before)."""
    if router_on_input or group not in _MARLIN_GROUP_SIZES or hidden % _MOE_MARLIN_HIDDEN != 0:
        return False
    if padded:
        return group <= 0 or ispp % group == 0
    return ispp % max(_MOE_MARLIN_MIN_INTERMEDIATE, group) == 0


#: the class names FusedMoE's EPLB refusal names (``quant_method.__class__.__name__``), by the release they
#: first appear in: the AWQ Marlin MoE method (renamed 0.12.0, unified 0.24.0), the GPTQ one (unified 0.22.0)
_METHOD_CLASSES = {
    "awq": (("0.10.2", "AWQMoEMethod"), ("0.12.0", "AWQMarlinMoEMethod"), ("0.24.0", "AutoAWQMoEMethod")),
    "gptq": (("0.10.2", "GPTQMarlinMoEMethod"), ("0.22.0", "AutoGPTQMoEMethod")),
    "moe_wna16": (("0.10.2", "MoeWNA16Method"),),
    "ct_marlin": (("0.10.2", "CompressedTensorsWNA16MarlinMoEMethod"),),
    "ct": (("0.10.2", "CompressedTensorsWNA16MoEMethod"),),
}


def eplb_applies(launch_eplb: bool, passes_eplb: bool, release) -> bool:
    """Whether FusedMoE's EPLB support check of the quant method runs: up to 0.23.x it reads the ``enable_eplb``
    the model hands the layer; from 0.24.0 the MoE parallel config's, i.e. ``--enable-eplb`` itself, whether or
    not the model passes it (MiniMax-M2 does not)."""
    return launch_eplb and (passes_eplb or release.within("0.24.0"))


def _refuse_eplb(kind: str, release, refused: Any) -> None:
    """FusedMoE's EPLB check for a method without EPLB support (NotImplementedError, after the method is built
    and before its ``create_weights``): up to 0.11.0 every method but the FP8 and unquantized ones, from 0.11.1
    ``supports_eplb`` with the method's class name in the message."""
    raise refused("MI_eplb_unsupported", method=_by_release(_METHOD_CLASSES[kind], release))


def experts(prefix: str, hidden: int, ispp: int, scheme, path: str, release, skip: str,
            refused: Any, unmodelled: Any, eplb: bool = False, selection: Optional[Selection] = None) -> None:
    """The experts' quantization method and its ``create_weights`` for per-rank intermediate size ``ispp``.

    ``refused(check, **values)`` / ``unmodelled(reason)`` build the exceptions kvguard.quant's walk
    catches; ``eplb``: whether FusedMoE checks the method's EPLB support (:func:`eplb_applies`), which no AWQ /
    GPTQ / MoeWNA16 method of any release has (the unquantized method of an ignored layer has it);
    ``selection``: what the kernel backend selection reads of the launch (None: the defaults)."""
    selection = selection or Selection()
    plain = path == "plain"
    if skip == "skipped":
        if selection.moe_backend != "auto" and release.within("0.25.0"):
            raise unmodelled(f"--moe-backend {selection.moe_backend} with the unquantized experts of {prefix} "
                             "(modules_to_not_convert) is not modelled")
        if plain:
            raise unmodelled(f"the plain AWQ kernels' method for {prefix}, which modules_to_not_convert names, is "
                             "not modelled")
        return  # UnquantizedFusedMoEMethod (it supports EPLB)
    if plain and not (scheme.zero_point and scheme.group_size in _MARLIN_GROUP_SIZES):
        raise unmodelled(f"the MoE method of {prefix} for an AWQ checkpoint without Marlin's form (zero point, group "
                         f"size -1/32/64/128) is not modelled")
    group = scheme.group_size
    if scheme.method == "awq":
        padded = release.within("0.25.0")
        selects = release.within("0.22.0")
    else:
        padded = release.within("0.25.0") and not scheme.desc_act
        selects = release.within("0.20.0")
    if _moe_marlin_takes(hidden, ispp, group, padded):
        kind = "awq" if scheme.method == "awq" else "gptq"
        if selects:
            _select_backend(prefix, kind, scheme, hidden, ispp, release, selection, refused, unmodelled)
        if eplb:
            _refuse_eplb(kind, release, refused)
        if kind == "awq" and group == -1:
            # the AWQ MoE methods size their scales hidden_size // group_size in create_weights: torch refuses the
            # negative dimension
            raise unmodelled(f"the AWQ MoE method of {prefix} with group_size -1 (a negative scale dimension) is "
                             "not modelled")
        return  # the Marlin MoE method
    # MoeWNA16Method
    if release.within("0.27.0"):
        if scheme.bits == 8 and group != -1 and not release.within("0.29.0"):
            # 0.27.0-0.28.0: MoeWNA16Method.__init__ asserts that 8-bit weights have one group per row, before
            # the selection
            raise refused("MI_moe_wna16_int8_group")
        _select_backend(prefix, "moe_wna16", scheme, hidden, ispp, release, selection, refused, unmodelled)
    if eplb:
        _refuse_eplb("moe_wna16", release, refused)
    if group == -1:
        raise unmodelled(f"MoeWNA16Method with group_size -1 ({prefix}) is not modelled")
    if ispp % _WNA16_MIN_GROUP != 0 or hidden % _WNA16_MIN_GROUP != 0:
        raise refused("MI_moe_wna16_group", size=ispp, hidden=hidden, group=group)


def compressed_tensors_experts(prefix: str, hidden: int, ispp: int, scheme, release, refused: Any, unmodelled: Any,
                               eplb: bool = False, selection: Optional[Selection] = None,
                               router_on_input: bool = False) -> None:
    """The integer-weight experts of a compressed-tensors checkpoint (symmetric group scales, actorder none or
    ``weight``: no activation order, so Marlin may pad the tile from 0.25.0) at per-rank intermediate size
    ``ispp``: the scheme adapter of this module's Marlin check and backend selection (``kind``
    ``compressed_tensors``: QuantizationArgs, no zero points, no expert bias).

    - up to 0.26.x ``get_moe_method`` builds ``CompressedTensorsWNA16MarlinMoEMethod`` where the fused Marlin MoE
      check holds (strict up to 0.24.0, tile padding from 0.25.0), which selects a kernel backend from 0.23.0
      (8-bit weights assert a group size of -1 first in 0.23.0-0.24.0), else ``CompressedTensorsWNA16MoEMethod``,
      whose
      ``create_weights`` checks from 0.24.0 that the group size divides the hidden size and the per-rank
      intermediate size (a ValueError each);
    - from 0.27.0 ``CompressedTensorsWNA16MoEMethod`` serves both: the 8-bit assert (0.27.0-0.28.0), the backend
      selection,
      then the same ``create_weights`` checks whichever backend took the layer.

    ``eplb`` (0.11.1+, :func:`eplb_applies`; up to 0.11.0 kvguard.quant refuses before this point): FusedMoE
    checks ``supports_eplb`` once the method is built, before ``create_weights``.  The Marlin method never
    supports EPLB; ``CompressedTensorsWNA16MoEMethod`` from 0.12.0, and from 0.27.0 only when the selection
    chose TRITON.

    ``router_on_input`` (Llama 4's experts): up to 0.26.x the Marlin check declines the layer whatever its shape, so
    ``get_moe_method`` builds the fall-back; from 0.27.0 the backend selection's Marlin check no longer reads it."""
    selection = selection or Selection()
    group = scheme.group_size
    if not release.within("0.27.0"):
        marlin = _moe_marlin_takes(hidden, ispp, group, padded=release.within("0.25.0"),
                                   router_on_input=router_on_input)
        if eplb and not release.within("0.23.0") and (marlin or not release.within("0.12.0")):
            # the Marlin method (or, in 0.11.x, either method): nothing is checked while it is built
            _refuse_eplb("ct_marlin" if marlin else "ct", release, refused)
    if not release.within("0.23.0"):
        # the Marlin method or the fall-back; neither checks a size while it is built (the fall-back sizes its
        # group scales by floor division)
        return
    # 0.23.0-0.24.0 (the Marlin method) and 0.27.0-0.28.0 (the one method) assert, before the selection, that
    # 8-bit weights have one group per row
    int8_assert = scheme.bits == 8 and group != -1 and (
        release.within("0.23.0") and not release.within("0.25.0")
        or release.within("0.27.0") and not release.within("0.29.0"))
    if release.within("0.27.0"):
        if int8_assert:
            raise refused("MI_ct_wna16_moe_int8_group")
        backend, ahead = _select_backend(prefix, "compressed_tensors", scheme, hidden, ispp, release, selection,
                                         refused, unmodelled)
        if eplb and backend != "TRITON":
            # a backend whose support kvguard does not model (HUMMING) may come first, but it is not TRITON
            # either: the refusal names the method's class, whichever backend it chose
            _refuse_eplb("ct", release, refused)
        if eplb and ahead:
            raise unmodelled(f"whether the {' / '.join(ahead)} WNA16 MoE kernel takes {prefix} ahead of TRITON "
                             "(the only backend of the compressed-tensors WNA16 MoE method with EPLB support) is "
                             "not modelled")
    elif marlin:
        if int8_assert and release.within("0.24.0"):
            # 0.24.0 shares its launch-check group (and so its rule rows) with 0.25.x, which has no such assert
            raise unmodelled(f"the 8-bit group-size assert of the compressed-tensors WNA16 Marlin MoE method of "
                             f"{prefix} in vLLM {release.key} is not modelled")
        if int8_assert:
            raise refused("MI_ct_wna16_moe_int8_group")
        _select_backend(prefix, "compressed_tensors", scheme, hidden, ispp, release, selection, refused, unmodelled)
        if eplb:
            _refuse_eplb("ct_marlin", release, refused)
        return  # CompressedTensorsWNA16MarlinMoEMethod
    elif not release.within("0.24.0"):
        return  # CompressedTensorsWNA16MoEMethod without size checks (0.23.x)
    if hidden % group != 0:
        raise refused("MI_ct_wna16_moe_hidden", hidden=hidden, group=group)
    if ispp % group != 0:
        raise refused("MI_ct_wna16_moe_group", size=ispp, group=group)


def audit_rule(values: Mapping[str, Any], moe_tp: int, label: str) -> str:
    """audit's "why" line for the MoE WNA16 fall-back's refusal (``values`` of the first refused size)."""
    size, hidden, group = values["size"], values["hidden"], values["group"]
    return (f"AWQ / GPTQ MoE: MoE intermediate size {size * moe_tp} split over the MoE TP size; a per-rank size the "
            f"fused MoE Marlin kernel does not take falls back to the MoE WNA16 kernels, whose group size ({group}, "
            f"halved to no less than 32) must divide it and the hidden size {hidden}: refused at tp {label}")


class Selection:
    """What ``select_wna16_moe_backend`` reads of the launch: ``--moe-backend`` (KernelConfig.moe_backend),
    ``--all2all-backend`` and whether the experts are split by expert parallelism (the activation format)."""

    __slots__ = ("moe_backend", "all2all_backend", "use_ep")

    def __init__(self, moe_backend: str = "auto", all2all_backend: Optional[str] = None, use_ep: bool = False):
        self.moe_backend, self.all2all_backend, self.use_ep = moe_backend, all2all_backend, use_ep


#: int_wna16._get_priority_backends on CUDA compute capability 9.0, by the release it first appears in
_PRIORITY_SM90 = (
    ("0.20.0", ("MARLIN", "BATCHED_MARLIN")),
    ("0.23.0", ("FLASHINFER_TRTLLM", "MARLIN", "BATCHED_MARLIN")),
    ("0.25.0", ("FLASHINFER_TRTLLM", "MARLIN", "BATCHED_MARLIN", "HUMMING")),
    ("0.26.0", ("FLASHINFER_TRTLLM", "MARLIN", "BATCHED_MARLIN", "HUMMING", "EMULATION")),
    ("0.27.0", ("FLASHINFER_TRTLLM", "MARLIN", "BATCHED_MARLIN", "TRITON", "HUMMING", "EMULATION")),
    ("0.30.0", ("RDNA3", "FLASHINFER_TRTLLM", "MARLIN", "BATCHED_MARLIN", "TRITON", "HUMMING", "EMULATION")),
    # prioritize_humming: Humming outranks Marlin on compute capability 9.0
    ("0.32.0", ("RDNA3", "FLASHINFER_TRTLLM", "HUMMING", "MARLIN", "BATCHED_MARLIN", "TRITON", "EMULATION")),
)
#: int_wna16.map_wna16_backend: the --moe-backend names the selection takes (0.25.0+), in the order it lists them
_MOE_BACKEND_NAMES = (
    ("0.25.0", ("marlin", "humming", "flashinfer_trtllm")),
    ("0.26.0", ("marlin", "humming", "flashinfer_trtllm", "emulation")),
    ("0.27.0", ("triton", "marlin", "humming", "flashinfer_trtllm", "emulation")),
    ("0.30.0", ("triton", "marlin", "humming", "flashinfer_trtllm", "emulation", "rdna3")),
)
#: the all2all backend every release defaults to (standard activation format)
_DEFAULT_ALL2ALL = "allgather_reducescatter"


def _by_release(table: tuple, release) -> tuple:
    found: tuple = ()
    for since, value in table:
        if release.within(since):
            found = value
    return found


def _incompatibility(backend: str, kind: str, scheme, hidden: int, ispp: int, release) -> Optional[str]:
    """int_wna16._backend_incompatibility_reason (0.27.0+) for an AWQ / GPTQ Marlin MoE method (``kind`` awq /
    gptq: they declare possible expert bias; AWQ zero points as the checkpoint says) or MoeWNA16Method."""
    if not release.within("0.27.0"):
        return None
    if kind == "compressed_tensors":
        # QuantizationArgs of symmetric group scales without activation order: no zero points nor bias, group-wise
        # scales (RDNA3's conditions), only Marlin's layer check (with tile padding) can refuse
        if backend in ("MARLIN", "BATCHED_MARLIN") and not _moe_marlin_takes(hidden, ispp, scheme.group_size, True):
            return "Marlin not supported for this layer"
        return None
    wna16 = kind == "moe_wna16"
    zero_points = scheme.zero_point if scheme.method == "awq" else False
    if backend == "FLASHINFER_TRTLLM" and (zero_points or not wna16):
        return "zero points and bias are not supported"
    if backend == "RDNA3":
        return "only compressed-tensors checkpoints are supported"
    if backend == "TRITON" and not wna16:
        return "expert bias is not supported"
    if backend in ("MARLIN", "BATCHED_MARLIN") and not wna16:
        # the method's own padding flag: GPTQ pads without activation order only, until 0.30.0 pads always
        padding = kind == "awq" or release.within("0.30.0") or not scheme.desc_act
        if not _moe_marlin_takes(hidden, ispp, scheme.group_size, padding):
            return "Marlin not supported for this layer"
    if wna16 and backend in ("MARLIN", "BATCHED_MARLIN", "EMULATION"):
        return "the MoeWNA16 checkpoint layout is not supported"
    return None


#: _kernel_supported's answer for a kernel whose checks kvguard does not model
_UNKNOWN = "unknown"


def _kernel_supported(backend: str) -> Optional[str]:
    """The backend's experts ``is_supported_config`` on CUDA compute capability 9.0 with the standard activation
    format, SiLU and the checkpoint's weight key: None (supported), the reason it gives, or ``_UNKNOWN``."""
    if backend == "FLASHINFER_TRTLLM":
        return "kernel does not support current device cuda"  # the SM100 family only
    if backend == "RDNA3":
        return "kernel does not support current device cuda"  # ROCm gfx1100 only
    if backend == "BATCHED_MARLIN":
        return "kernel does not support Standard activation format"
    if backend in ("MARLIN", "TRITON"):
        # the weight keys of 4-bit (group 32 or other) and 8-bit weights are all in both kernels' lists
        return None
    # HUMMING (the humming-kernels package's checks) and EMULATION are not modelled
    return _UNKNOWN


def _select_backend(prefix: str, kind: str, scheme, hidden: int, ispp: int, release, selection: Selection,
                    refused: Any, unmodelled: Any) -> tuple[str, tuple[str, ...]]:
    """select_wna16_moe_backend on the default host (CUDA compute capability 9.0).  ``kind``: ``awq`` / ``gptq``
    (the Marlin MoE methods), ``moe_wna16`` (MoeWNA16Method) or ``compressed_tensors``.

    Returns the backend kvguard knows takes the layer and the backends ahead of it whose support it does not
    model (one of them may be the one chosen)."""
    if selection.use_ep and (selection.all2all_backend or _DEFAULT_ALL2ALL) != _DEFAULT_ALL2ALL:
        raise unmodelled(f"the WNA16 MoE backend selection for {prefix} with --all2all-backend "
                         f"{selection.all2all_backend} (the experts' activation format) is not modelled")
    requested = selection.moe_backend
    if requested != "auto" and release.within("0.25.0") and not release.within("0.26.0"):
        # 0.25.x reads --moe-backend here (map_wna16_backend, then the kernel's check) while sharing 0.24.0's
        # launch-check group, whose rule rows do not have these refusals
        raise unmodelled(f"--moe-backend {requested} in the WNA16 MoE backend selection of vLLM {release.key} "
                         f"({prefix}) is not modelled")
    if requested != "auto" and release.within("0.26.0"):
        names = _by_release(_MOE_BACKEND_NAMES, release)
        if requested not in names:
            raise refused("MI_wna16_moe_backend_name", moe_backend=requested, names=list(names))
        backend = requested.upper()
        reason = _incompatibility(backend, kind, scheme, hidden, ispp, release)
        if reason is None:
            reason = _kernel_supported(backend)
            if reason == _UNKNOWN:
                raise unmodelled(f"the {backend} WNA16 MoE kernel's support for {prefix} (--moe-backend "
                                 f"{requested}) is not modelled")
        if reason is not None:
            raise refused("MI_wna16_moe_backend_unsupported", backend=backend, reason=reason)
        return backend, ()
    # the first backend that takes the layer: one whose support kvguard does not model (HUMMING, ahead of MARLIN
    # from 0.32.0) may take it instead of a later one kvguard knows takes it, but which of the two serves the layer
    # is read only after the weights are loaded (get_fused_moe_quant_config, process_weights_after_loading):
    # model construction goes on either way (except where FusedMoE's EPLB check reads which backend was chosen: the
    # caller gets the unknown ones ahead)
    unknown: list[str] = []
    for backend in _by_release(_PRIORITY_SM90, release):
        if _incompatibility(backend, kind, scheme, hidden, ispp, release) is not None:
            continue
        answer = _kernel_supported(backend)
        if answer is None:
            return backend, tuple(unknown)
        if answer == _UNKNOWN:
            unknown.append(backend)
    if unknown:
        raise unmodelled(f"whether the {' / '.join(unknown)} WNA16 MoE kernel takes {prefix}, which no other "
                         "backend takes, is not modelled")
    raise refused("MI_wna16_moe_none")
