"""Runs inside a vLLM release's oracle environment: the release builds the model, on the meta device.

Usage: ``python quant_runner.py IN.json OUT.json`` with IN = ``{"cases": [{"config": {...},
"layouts": [{"tp", "dp", "pcp", "ep", "eplb", "redundant"}, ...], "record": bool}, ...]}``.

For each config the release's own ``EngineArgs(...).create_engine_config()`` builds the
VllmConfig (CPU platform, one rank); for each layout the parallel sizes are then set as the
workers of that layout see them — the tensor-parallel, data-parallel, PCP and expert-parallel
groups report the layout's sizes (their getters return stand-in groups of that size; rank 0)
and ``ParallelConfig`` holds the layout's fields — and the model class the release's registry
picks is constructed under ``set_current_vllm_config`` on ``torch.device("meta")``: every
linear layer shards its weight and calls the checkpoint's quantization method's
``create_weights``, every MoE layer runs FusedMoE's construction.  The first exception is the
outcome (type and ``str()``), else ``ok``.

What is replaced, because it belongs to the GPU host rather than to the layer geometry (and
runs after the geometry checks): the attention layers and rotary embeddings (stand-in modules:
their kernels do not exist on CPU), the FP8 linear kernel choice (``init_fp8_linear_kernel``)
and the FP8 MoE backend choice (``select_fp8_moe_backend`` returns Triton, the choice of the
default host, an H100-class GPU with Triton), the ModelOpt NVFP4 linear kernel choice (FP4 Marlin, the
default host's: ``_modelopt_nvfp4_kernel_on_h100``) and the Marlin workspace (``marlin_make_workspace_new``,
sized from the GPU's multiprocessor count: an H100's 132).  The platform's quantization support check is
bypassed (the CPU platform supports no FP8).  The AWQ / GPTQ path (the Marlin conversion, the
Marlin layer check, the mixed-precision kernel selection) asks the platform what GPU it runs on:
the quantization modules and the linear-kernel modules (``vllm.model_executor.layers.quantization.*``,
``vllm.model_executor.kernels.*``, their ``current_platform`` name only; the CPU AWQ/GPTQ method of
0.12.0+, ``cpu_wna16``, too, so that it does not claim the checkpoint, and up to 0.11.x ``ipex_quant``, whose
override claims every AWQ / GPTQ checkpoint on a CPU platform (with ``--quantization awq`` it comes before any
other; on the CUDA host it declines); ``moe_wna16``, the MoE fall-back, which
checks the GPU's capability for AWQ) see a stand-in that
answers as CUDA with compute capability 9.0 (the default host); the compressed-tensors
modules (``...quantization.compressed_tensors.*``: the scheme choice reads the capability) see it too, as
do the WNA16 MoE backend selection (``fused_moe.oracle.int_wna16``, 0.20.0+) and the experts modules whose
``is_supported_config`` it asks (Marlin, Triton, FlashInfer TRT-LLM, Humming, emulation, RDNA3; and
``fused_moe.modular_kernel``, whose shared check names the device in its refusal: "cuda"), with
``prioritize_humming`` given capability 90 (0.32.0+: it would ask the CPU platform; this environment has no
humming-kernels, so Humming declines and the next backend takes the layer, which construction does not read), as
does Qwen3.5's gated delta net while it decides whether to replicate ``in_proj_ba`` (``maybe_disable_tp``, 0.22.0+:
:func:`_gdn_ba_replication_on_cuda_90`; its kernel and forward choices keep the CPU platform), and
their FP8 scheme's kernel choices (``init_fp8_linear_kernel``, ``Fp8LinearOp``, ``W8A8BlockFp8LinearOp``)
are stood in as the FP8 method's are (they run after ``validate_fp8_block_shape``); everything else keeps
the CPU platform.  The one package stand-in: while the compressed-tensors NVFP4 MoE method of 0.17.0-0.19.x runs its
backend selection, ``flashinfer`` is an importable module that answers nothing (``_ct_nvfp4_moe_on_h100``: the
selection imports a module doing ``import flashinfer``, which the default host has; any use of the stand-in raises).  As ``initialize_model`` does, ``configure_quant_config`` hands the model class's packed-modules
mapping and checkpoint-name mapper to the quantization config before the model is built.  A case's ``engine_args`` (``quantization``) are passed to ``EngineArgs``.  With ``record`` the constructed layers are
listed (prefix, class, sizes) for comparison with kvguard's architecture data.  DeepSeek-V4
(``DeepseekV4ForCausalLM``) is built as a CUDA host builds it (:func:`_dsv4_cuda_class`, :class:`_Dsv4Host`): the
NVIDIA implementation, its modules and the MoE / MXFP4 backend selection seeing CUDA compute capability 9.0, inert
CUDA streams / events, no kernel warm-up registration; the MXFP4 backend the release selects is recorded.  A built model's outcome says
whether it (and a multimodal model's language model) implements ``MixtureOfExperts`` (``moe_model``).
Kimi-K3 is built with inert CUDA streams / events and stand-in MLA attention backends
(:class:`_KimiK3Host`).  DeepSeek-V3.2 / GLM-5 from 0.29.0 are built from the CUDA host's ``vllm.models.deepseek_v32`` class
(:func:`_dsa_cuda_class`, :class:`_DsaHost`: its MLA attention base and the indexer's cache stood in, every projection
real); on 0.11.0 the indexer's top-k buffer, which that release allocates on "cuda", goes to the meta device, as does
the device 0.15.x's Kimi-K2.5 moves its vision tower to (:class:`_CudaBuffersOnMeta`).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback
import types


def _setup():
    import vllm.platforms as platforms
    from vllm.platforms.cpu import CpuPlatform

    CpuPlatform.verify_quantization = classmethod(lambda cls, quant: None)
    platforms._current_platform = CpuPlatform()
    _quant_modules_see_cuda_90()


#: the modules whose platform queries decide the AWQ / GPTQ kernel path (imported eagerly so that the
#: stand-in is in place before the engine config asks for the Marlin conversion)
_QUANT_MODULES = ("vllm.model_executor.layers.quantization.awq", "vllm.model_executor.layers.quantization.awq_marlin",
                  "vllm.model_executor.layers.quantization.auto_awq", "vllm.model_executor.layers.quantization.gptq",
                  "vllm.model_executor.layers.quantization.gptq_marlin",
                  "vllm.model_executor.layers.quantization.auto_gptq",
                  "vllm.model_executor.layers.quantization.cpu_wna16",
                  "vllm.model_executor.layers.quantization.ipex_quant",
                  "vllm.model_executor.layers.quantization.moe_wna16",
                  "vllm.model_executor.layers.quantization.utils.marlin_utils",
                  "vllm.model_executor.layers.quantization.utils.machete_utils",
                  "vllm.model_executor.layers.quantization.kernels.mixed_precision",
                  "vllm.model_executor.kernels.linear", "vllm.model_executor.kernels.linear.mixed_precision",
                  "vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors",
                  "vllm.model_executor.layers.quantization.compressed_tensors.schemes.compressed_tensors_wNa16",
                  "vllm.model_executor.layers.quantization.compressed_tensors.schemes.compressed_tensors_w8a8_fp8",
                  # the WNA16 MoE backend selection (0.20.0+) and the experts classes whose support checks it asks
                  "vllm.model_executor.layers.fused_moe.oracle.int_wna16",
                  "vllm.model_executor.layers.fused_moe.fused_marlin_moe",
                  "vllm.model_executor.layers.fused_moe.experts.marlin_moe",
                  "vllm.model_executor.layers.fused_moe.experts.triton_moe",
                  "vllm.model_executor.layers.fused_moe.experts.trtllm_mxint4_moe",
                  "vllm.model_executor.layers.fused_moe.experts.fused_humming_moe",
                  "vllm.model_executor.layers.fused_moe.experts.int4_emulation_moe",
                  "vllm.model_executor.layers.fused_moe.experts.rdna3_moe",
                  # the experts' shared is_supported_config (its refusal names the device)
                  "vllm.model_executor.layers.fused_moe.modular_kernel")
#: the modules of the WNA16 MoE backend selection that see the CUDA 9.0 stand-in
_WNA16_MOE_MODULES = (".oracle.int_wna16", ".fused_marlin_moe", ".experts.marlin_moe", ".experts.triton_moe",
                      ".experts.trtllm_mxint4_moe", ".experts.fused_humming_moe", ".experts.int4_emulation_moe",
                      ".experts.rdna3_moe", ".modular_kernel")
_STAND_IN: list = []

#: each model class's packed-modules mapping as first seen (id of the class-level dict -> a copy)
_PACKED_ORIGINAL: dict = {}


def _fresh_packed_mapping(cls) -> None:
    """Give the model class back the packed-modules mapping it was imported with.  Some models add entries to
    the class-level dict in ``__init__`` (Qwen3-MoE's gate_up_proj with mlp_only_layers, DeepSeek-V2's
    fused_qkv_a_proj / qkv_proj), which a real launch sees once; here many configs are built in one process, and a
    later case would otherwise inherit an earlier case's shards."""
    import copy

    mapping = getattr(cls, "packed_modules_mapping", None)
    if not isinstance(mapping, dict):
        return
    original = _PACKED_ORIGINAL.setdefault(id(mapping), copy.deepcopy(mapping))
    mapping.clear()
    mapping.update(copy.deepcopy(original))


def _cuda_90_stand_in():
    """The CPU platform answering the GPU questions as the default host would: CUDA, capability 9.0."""
    if not _STAND_IN:
        import vllm.platforms as platforms
        from vllm.platforms.interface import DeviceCapability, PlatformEnum

        base = type(platforms._current_platform)

        class Cuda90(base):
            _enum = PlatformEnum.CUDA
            # the name the experts' support check reports ("kernel does not support current device cuda")
            device_name = "cuda"

            @classmethod
            def get_device_capability(cls, device_id=0):
                return DeviceCapability(9, 0)

        _STAND_IN.append(Cuda90())
    return _STAND_IN[0]


def _sees_cuda_90(mname: str) -> bool:
    """Only the AWQ / GPTQ / Marlin / mixed-precision-kernel modules: the FP8 and other methods keep the CPU
    platform (their GPU choices are stood in elsewhere or not exercised)."""
    return (mname.endswith((".awq", ".awq_marlin", ".auto_awq", ".gptq", ".gptq_marlin", ".auto_gptq",
                            ".cpu_wna16", ".ipex_quant", ".moe_wna16", ".utils.marlin_utils", ".utils.machete_utils"))
            or ".mixed_precision" in mname or ".compressed_tensors." in mname
            or mname.startswith("vllm.model_executor.layers.fused_moe") and mname.endswith(_WNA16_MOE_MODULES)) \
        and mname.startswith("vllm.model_executor.")


def _quant_modules_see_cuda_90():
    import importlib

    for name in _QUANT_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the module does not exist in this release
            pass
    stand_in = _cuda_90_stand_in()
    for mname, mod in list(sys.modules.items()):
        if mod is None or not _sees_cuda_90(mname):
            continue
        if "current_platform" in getattr(mod, "__dict__", {}) and mod.current_platform is not stand_in:
            mod.current_platform = stand_in
    # 0.32.0+: the WNA16 MoE priority list moves Humming ahead of Marlin on compute capability 9.0; the check
    # asks vllm.platforms.current_platform (the CPU platform here) unless given the capability: given 90
    wna16 = sys.modules.get("vllm.model_executor.layers.fused_moe.oracle.int_wna16")
    prioritize = getattr(wna16, "prioritize_humming", None)
    if prioritize is not None and not getattr(prioritize, "_kvg", False):
        def prioritize_on_cuda_90(kernels, compute_capability=None):
            return prioritize(kernels, 90 if compute_capability is None else compute_capability)
        prioritize_on_cuda_90._kvg = True
        wna16.prioritize_humming = prioritize_on_cuda_90
    # from 0.17.0 the kernel choice lives in vllm.model_executor.kernels.linear, next to the FP8 kernel choices:
    # only the mixed-precision choice sees the stand-in, for the duration of the call
    linear = sys.modules.get("vllm.model_executor.kernels.linear")
    choose = getattr(linear, "choose_mp_linear_kernel", None)
    if choose is not None and not getattr(choose, "_kvg", False):
        def choose_on_cuda_90(*a, **k):
            real = linear.current_platform
            linear.current_platform = stand_in
            try:
                return choose(*a, **k)
            finally:
                linear.current_platform = real
        choose_on_cuda_90._kvg = True
        linear.choose_mp_linear_kernel = choose_on_cuda_90
        for mname, mod in list(sys.modules.items()):
            if mod is not None and mname.startswith("vllm.") and getattr(mod, "choose_mp_linear_kernel", None) is choose:
                mod.choose_mp_linear_kernel = choose_on_cuda_90
    _gdn_ba_replication_on_cuda_90(stand_in)


#: the gated-delta-net module whose ``maybe_disable_tp`` (0.22.0+) replicates Qwen3.5's in_proj_ba for the AWQ-Marlin
#: / AutoAWQ / AutoGPTQ / INC configs on CUDA only
_GDN_MODULE = "vllm.model_executor.layers.mamba.gdn.qwen_gdn_linear_attn"


def _gdn_ba_replication_on_cuda_90(stand_in):
    """Qwen3.5's gated delta net asks the platform whether to replicate in_proj_ba (``maybe_disable_tp``): that one
    question sees the CUDA 9.0 stand-in, for the duration of the call; the layer's kernel and forward choices keep the
    CPU platform (they run no geometry check)."""
    import importlib

    try:
        gdn = importlib.import_module(_GDN_MODULE)
    except Exception:  # noqa: BLE001 - the release has no such module (before 0.22.0)
        return
    cls = getattr(gdn, "QwenGatedDeltaNetAttention", None)
    ask = getattr(cls, "maybe_disable_tp", None)
    if ask is None or getattr(ask, "_kvg", False):
        return

    def maybe_disable_tp_on_cuda_90(self, quant_config):
        real = gdn.current_platform
        gdn.current_platform = stand_in
        try:
            return ask(self, quant_config)
        finally:
            gdn.current_platform = real
    maybe_disable_tp_on_cuda_90._kvg = True
    cls.maybe_disable_tp = maybe_disable_tp_on_cuda_90


class _DeviceGroup:
    def __init__(self, n):
        self.n = n

    def size(self):
        return self.n

    def rank(self):
        return 0


class _Group:
    def __init__(self, n, first_last=True):
        self.world_size = n
        self.rank_in_group = 0
        self.rank = 0
        self.local_rank = 0
        self.ranks = list(range(n))
        self.device_group = _DeviceGroup(n)
        self.cpu_group = _DeviceGroup(n)
        self.is_first_rank = first_last
        self.is_last_rank = first_last


SIZES = {"tp": 1, "dp": 1, "pcp": 1}


def _fakes():
    tp, dp, pcp = SIZES["tp"], SIZES["dp"], SIZES["pcp"]
    return {
        "get_tensor_model_parallel_world_size": lambda: tp,
        "get_tensor_model_parallel_rank": lambda: 0,
        "get_tp_group": lambda: _Group(tp),
        "get_dp_group": lambda: _Group(dp),
        "get_pcp_group": lambda: _Group(pcp),
        "get_ep_group": lambda: _Group(tp * dp * pcp),
        "get_pp_group": lambda: _Group(1),
        "get_dcp_group": lambda: _Group(1),
        "get_pipeline_model_parallel_world_size": lambda: 1,
    }


_ORIGINALS: dict = {}


def _patch():
    """Point every loaded module's reference to a parallel-state getter at the stand-in."""
    import vllm.distributed.parallel_state as ps

    if not _ORIGINALS:
        for name in _fakes():
            if hasattr(ps, name):
                _ORIGINALS[name] = getattr(ps, name)
    fakes = _fakes()
    # dispatchers that read SIZES at call time: patched once, valid for every later layout
    for mod in list(sys.modules.values()):
        if mod is None or not getattr(mod, "__name__", "").startswith("vllm"):
            continue
        for name, orig in _ORIGINALS.items():
            try:
                if getattr(mod, name, None) is orig or getattr(getattr(mod, name, None), "_kvg", False):
                    setattr(mod, name, _dispatch(name))
            except Exception:  # noqa: BLE001
                pass
    return fakes


def _dispatch(name):
    def fn(*a, **k):
        return _fakes()[name](*a, **k)
    fn._kvg = True
    return fn


class _KernelStandIn:
    """What a GEMM kernel selector returns in the oracle: an object that answers every attribute with None.  The
    quantization methods only keep it (the kernels are never run on the meta device); from 0.24.0 they also ask
    ``input_quant_key`` (expose_input_quant_key), which is None for a kernel that quantizes its own input."""

    def __getattr__(self, name):
        return None

    def input_quant_key(self):
        return None


#: the wrappers that pass their language model's architecture to the registry themselves (glm4_1v.py:
#: ``init_vllm_registered_model(..., architectures=["Glm4MoeForCausalLM"])`` for GLM-4.5V's ``glm4v_moe``)
_WRAPPER_LANGUAGE_MODELS = {"Gemma3ForConditionalGeneration": "Gemma3ForCausalLM",
                            "Glm4vMoeForConditionalGeneration": "Glm4MoeForCausalLM",
                            "Qwen2VLForConditionalGeneration": "Qwen2ForCausalLM",
                            "Qwen2_5_VLForConditionalGeneration": "Qwen2ForCausalLM"}


def _load_text_model_class(model_config) -> None:
    """Import the text config's own architecture (a multimodal wrapper such as Kimi-K2.5 builds its language
    model through the registry while it is built): its module then gets the parallel-state stand-ins and stubs."""
    text = getattr(model_config, "hf_text_config", None)
    if text is None or text is model_config.hf_config:
        return
    from vllm.model_executor.models import ModelRegistry

    # a wrapper that names its language model's class itself (the text config names none)
    named = _WRAPPER_LANGUAGE_MODELS.get(next(iter(getattr(model_config.hf_config, "architectures", None) or ()), ""))
    for arch in getattr(text, "architectures", None) or ([named] if named else ()):
        try:
            ModelRegistry._try_load_model_cls(arch)
        except Exception:  # noqa: BLE001 - a release without it: the wrapper's own import decides
            pass


def _meta_modules_stay():
    """The model is built on the meta device: a module that moves itself while it is built (Kimi-K2.5's vision
    tower, ``.to(device)``) stays there instead of failing to copy meta tensors (a GPU build moves real ones)."""
    import torch.nn as nn

    original = nn.Module.to

    def to(self, *a, **k):
        if any(p.is_meta for p in self.parameters()):
            return self
        return original(self, *a, **k)

    nn.Module.to = to


def _quick_gelu_without_kernel():
    """Qwen2-VL's vision MLP builds QuickGELU (its class default, so not reachable by a module attribute), whose
    CustomOp binds the CUDA kernel while it is built: no geometry, built as a bare module instead."""
    import torch.nn as nn

    try:
        from vllm.model_executor.layers.activation import QuickGELU
    except Exception:  # noqa: BLE001
        return
    if not getattr(QuickGELU.__init__, "_kvg", False):
        def init(self, *a, **k):
            nn.Module.__init__(self)

        init._kvg = True  # type: ignore[attr-defined]
        QuickGELU.__init__ = init


def _mm_input_norm_without_processor():
    """0.28.0 - 0.31.x's Qwen2-VL / Qwen2.5-VL towers build an input normalisation from the checkpoint's image
    processor (0.28.0 - 0.30.x ``FusedInputNorm.from_model_config``, 0.31.x ``build_mm_input_norm``, which loads the
    whole processor, video processor and torchvision included): no linear layer, and a processor the oracle host
    cannot load, so it is built as the identity."""
    try:
        from vllm.model_executor.models import vision
    except Exception:  # noqa: BLE001
        vision = None
    fused = getattr(vision, "FusedInputNorm", None)
    if fused is not None and hasattr(fused, "identity") and not getattr(fused.from_model_config, "_kvg", False):
        def from_model_config(cls, model_config):
            return cls.identity()

        from_model_config._kvg = True  # type: ignore[attr-defined]
        fused.from_model_config = classmethod(from_model_config)
    try:
        from vllm.model_executor.layers.fusion import mm_input_norm
    except Exception:  # noqa: BLE001
        return

    def build_mm_input_norm(model_config):
        return mm_input_norm.IdentityInputNorm()

    for mname, mod in list(sys.modules.items()):
        if (mod is not None and (mname.startswith("vllm.model_executor.models.") or mod is mm_input_norm)
                and callable(getattr(mod, "build_mm_input_norm", None))):
            mod.build_mm_input_norm = build_mm_input_norm


def _stubs():
    import torch.nn as nn

    class Stub(nn.Module):
        def __init__(self, *a, **k):
            super().__init__()

        @staticmethod
        def enabled():
            # DeepSeek-V3.2's indexer asks its rotary embedding (a stub here) whether its custom op is enabled
            return False

    def stub_fn(*a, **k):
        return Stub()

    classes = ("Attention", "MLAAttention", "MultiHeadLatentAttentionWrapper", "MultiHeadLatentAttention",
               "EncoderOnlyAttention", "ChunkedLocalAttention", "DeepseekV32IndexerCache", "Indexer",
               "SiluAndMul", "GeluAndMul", "MulAndSilu", "SwigluOAIAndMul", "SwigluStepAndMul")
    for mname, mod in list(sys.modules.items()):
        if mod is None or not mname.startswith("vllm.model_executor.models."):
            continue
        for n in classes:
            if n == "Indexer" and mname.endswith(".deepseek_v2"):
                # DeepSeek-V3.2's / GLM-5's indexer is built for real: its projections (wq_b, wk / weights_proj,
                # wk_weights_proj) are linear layers with geometry; only its cache (DeepseekV32IndexerCache) is stood in
                continue
            if isinstance(getattr(mod, n, None), type):
                setattr(mod, n, Stub)
        if callable(getattr(mod, "get_rope", None)):
            mod.get_rope = stub_fn
        if callable(getattr(mod, "get_act_and_mul_fn", None)):
            # Gemma 4's MLP (0.28.0 – 0.30.x) builds its gelu_tanh activation through the factory, whose CustomOp
            # binds the CUDA kernel while it is built: no geometry, stood in like the activation classes
            mod.get_act_and_mul_fn = stub_fn
    _quick_gelu_without_kernel()
    _mm_input_norm_without_processor()
    _meta_modules_stay()
    _expert_maps_on_cpu()
    _marlin_workspace_on_h100()
    _modelopt_nvfp4_kernel_on_h100()
    _ct_nvfp4_kernel_on_h100()
    _ct_nvfp4_moe_on_h100()
    _modelopt_moe_backend_on_h100()
    _mxfp4_moe_backend_on_h100()
    _non_gated_moe_on_cuda()
    _gpt_oss_world_size()
    try:
        import vllm.model_executor.layers.quantization.fp8 as f8
    except Exception:  # noqa: BLE001
        return

    if hasattr(f8, "init_fp8_linear_kernel"):
        f8.init_fp8_linear_kernel = lambda *a, **k: _KernelStandIn()
    if hasattr(f8, "select_fp8_moe_backend"):
        from vllm.model_executor.layers.fused_moe.oracle import fp8 as oracle_fp8

        class TritonExpertsStandIn:
            """The experts class the Triton choice names: modular, not monolithic (DeepSeek-V2's MoE block of
            0.17.0-0.20.x asks, after building its experts, to pick the router's output dtype)."""

            @staticmethod
            def is_monolithic():
                return False

        try:  # the Triton experts class itself: its activation check (_experts_take_activation)
            triton_cls = oracle_fp8.backend_to_kernel_cls(oracle_fp8.Fp8MoeBackend.TRITON)
            triton_cls = triton_cls[0] if isinstance(triton_cls, (list, tuple)) else triton_cls
        except Exception:  # noqa: BLE001 - no such mapping in this release
            triton_cls = None

        def select_triton(*a, **k):
            # a named --moe-backend is first mapped by the release's own map, which refuses a name it lacks on
            # every GPU (DeepSeek-V4's FP8 experts); which kernel a mapped name gets is the GPU's, not shown here
            named = getattr(k.get("config", a[0] if a else None), "moe_backend", "auto")
            if named not in (None, "auto") and hasattr(oracle_fp8, "map_fp8_backend"):
                oracle_fp8.map_fp8_backend(named)
            if triton_cls is not None:
                _experts_take_activation(triton_cls, a, k)
            return oracle_fp8.Fp8MoeBackend.TRITON, TritonExpertsStandIn

        f8.select_fp8_moe_backend = select_triton
        # the compressed-tensors FP8 MoE method imports the choice into its own module: the same stand-in, in the
        # form the release's function returns (the backend alone up to 0.19.x, with the experts class later)
        import importlib
        import inspect

        for ct_moe_name in ("compressed_tensors_moe", "compressed_tensors_moe.compressed_tensors_moe_w8a8_fp8"):
            try:
                ct_moe = importlib.import_module(
                    f"vllm.model_executor.layers.quantization.compressed_tensors.{ct_moe_name}")
            except Exception:  # noqa: BLE001 - not in this release
                continue
            if not hasattr(ct_moe, "select_fp8_moe_backend"):
                continue
            # (read from the oracle module's own function: the method module's may be a stand-in already)
            if "tuple" in str(inspect.signature(oracle_fp8.select_fp8_moe_backend).return_annotation):
                ct_moe.select_fp8_moe_backend = lambda *a, **k: (oracle_fp8.Fp8MoeBackend.TRITON,
                                                                 TritonExpertsStandIn)
            else:
                ct_moe.select_fp8_moe_backend = lambda *a, **k: oracle_fp8.Fp8MoeBackend.TRITON
        # the ModelOpt FP8 MoE method imports the choice into its own module too: the same stand-in
        try:
            import vllm.model_executor.layers.quantization.modelopt as mo
        except Exception:  # noqa: BLE001
            mo = None
        if mo is not None and hasattr(mo, "select_fp8_moe_backend"):
            if "tuple" in str(inspect.signature(oracle_fp8.select_fp8_moe_backend).return_annotation):
                mo.select_fp8_moe_backend = select_triton
            else:
                mo.select_fp8_moe_backend = lambda *a, **k: oracle_fp8.Fp8MoeBackend.TRITON
    # online FP8 (0.3x+: the online methods' module imports both choices into its own namespace): the same stand-ins
    try:
        import vllm.model_executor.layers.quantization.online.fp8 as online_fp8
    except Exception:  # noqa: BLE001 - not in this release
        online_fp8 = None
    if online_fp8 is not None:
        if hasattr(online_fp8, "init_fp8_linear_kernel"):
            online_fp8.init_fp8_linear_kernel = lambda *a, **k: _KernelStandIn()
        if hasattr(online_fp8, "select_fp8_moe_backend") and hasattr(f8, "select_fp8_moe_backend"):
            online_fp8.select_fp8_moe_backend = f8.select_fp8_moe_backend
    try:  # compressed-tensors INT8 W8A8: the INT8 GEMM kernel choice (CUTLASS on CUDA takes every layer), stood in
        import vllm.model_executor.layers.quantization.compressed_tensors.schemes.compressed_tensors_w8a8_int8 as ct_int8
    except Exception:  # noqa: BLE001
        ct_int8 = None
    if ct_int8 is not None:
        if hasattr(ct_int8, "init_int8_linear_kernel"):  # 0.16.0+: the kernel object
            ct_int8.init_int8_linear_kernel = lambda *a, **k: _KernelStandIn()
        if hasattr(ct_int8, "choose_scaled_mm_linear_kernel"):  # up to 0.15.x: the kernel class
            ct_int8.choose_scaled_mm_linear_kernel = lambda *a, **k: (lambda *a2, **k2: _KernelStandIn())
    try:  # compressed-tensors FP8: the same kernel choices, stood in (they run after the geometry checks)
        import vllm.model_executor.layers.quantization.compressed_tensors.schemes.compressed_tensors_w8a8_fp8 as ct8
    except Exception:  # noqa: BLE001
        return
    for name in ("init_fp8_linear_kernel", "Fp8LinearOp", "W8A8BlockFp8LinearOp"):
        if hasattr(ct8, name):
            setattr(ct8, name, lambda *a, **k: _KernelStandIn())
    for name, value in (("cutlass_block_fp8_supported", True), ("cutlass_fp8_supported", True),
                        ("maybe_create_device_identity", None)):
        if hasattr(ct8, name):
            setattr(ct8, name, lambda *a, _value=value, **k: _value)


def _modelopt_nvfp4_kernel_on_h100():
    """The ModelOpt NVFP4 linear method picks its GEMM kernel while it is built (before ``create_weights``): on the
    default host (compute capability 9.0, no FP4 tensor cores, no FlashInfer) the FP4 Marlin kernel.  The
    selection reads the GPU (0.10.2-0.14.x inline: ``has_flashinfer`` / ``cutlass_fp4_supported`` /
    ``is_fp4_marlin_supported``; 0.16.0-0.18.x ``select_nvfp4_linear_backend``; 0.20.0+ ``init_nvfp4_linear_kernel``)
    and checks no layer size; the stand-ins answer as that host would."""
    try:
        import vllm.model_executor.layers.quantization.modelopt as mo
    except Exception:  # noqa: BLE001
        return

    for name, value in (("has_flashinfer", False), ("cutlass_fp4_supported", False),
                        ("is_fp4_marlin_supported", True)):
        if callable(getattr(mo, name, None)):
            setattr(mo, name, lambda *a, _value=value, **k: _value)
    select = getattr(mo, "select_nvfp4_linear_backend", None)
    if callable(select) and not getattr(select, "_kvg", False):  # (stood in once: _stubs runs per config)
        import importlib

        marlin = importlib.import_module(select.__module__).NvFp4LinearBackend.MARLIN

        def select_marlin(*a, **k):
            return marlin
        select_marlin._kvg = True
        mo.select_nvfp4_linear_backend = select_marlin
    if callable(getattr(mo, "init_nvfp4_linear_kernel", None)):
        mo.init_nvfp4_linear_kernel = lambda *a, **k: _KernelStandIn()
    # 0.22.0 - 0.27.x: the weight-only NVFP4 method (a MIXED_PRECISION export's W4A16_NVFP4 layers) builds the FP4
    # Marlin kernel itself, whose constructor asserts is_fp4_marlin_supported (compute capability 7.5+: the host's)
    try:
        import vllm.model_executor.kernels.linear.nvfp4.marlin as marlin_kernel
    except Exception:  # noqa: BLE001 - not in this release
        return
    if callable(getattr(marlin_kernel, "is_fp4_marlin_supported", None)):
        marlin_kernel.is_fp4_marlin_supported = lambda *a, **k: True


def _ct_nvfp4_kernel_on_h100():
    """compressed-tensors NVFP4 (W4A4) on the default host (compute capability 9.0, no FP4 CUTLASS, no FlashInfer FP4
    GEMM): up to 0.15.x ``_get_scheme_from_parts`` asks ``cutlass_fp4_supported()`` and falls back to the W4A16
    FP4 scheme; from 0.16.0 ``CompressedTensorsW4A4Fp4`` picks its GEMM while it is built (0.16.0-0.19.x
    ``select_nvfp4_linear_backend``: MARLIN; 0.20.0+ ``init_nvfp4_linear_kernel``, weight-only too from 0.23.0: the
    FP4 Marlin kernel), before any layer size is known.  The stand-ins answer as that host would."""
    import importlib

    base = "vllm.model_executor.layers.quantization.compressed_tensors"
    for mname in (f"{base}.compressed_tensors", f"{base}.schemes.compressed_tensors_w4a4_nvfp4"):
        try:
            mod = importlib.import_module(mname)
        except Exception:  # noqa: BLE001 - the module does not exist in this release
            continue
        for name, value in (("has_flashinfer", False), ("cutlass_fp4_supported", False)):
            if callable(getattr(mod, name, None)):
                setattr(mod, name, lambda *a, _value=value, **k: _value)
        select = getattr(mod, "select_nvfp4_linear_backend", None)
        if callable(select) and not getattr(select, "_kvg", False):
            marlin = importlib.import_module(select.__module__).NvFp4LinearBackend.MARLIN

            def select_marlin(*a, _m=marlin, **k):
                return _m
            select_marlin._kvg = True
            mod.select_nvfp4_linear_backend = select_marlin
        if callable(getattr(mod, "init_nvfp4_linear_kernel", None)):
            mod.init_nvfp4_linear_kernel = lambda *a, **k: _KernelStandIn()


#: the FlashInfer TRT-LLM NVFP4 experts module, which 0.17.0-0.19.x import inside select_nvfp4_moe_backend (its
#: priority list's first entry) and which does ``import flashinfer`` at module level
_TRTLLM_NVFP4_EXPERTS = "vllm.model_executor.layers.fused_moe.experts.trtllm_nvfp4_moe"


class _FlashinferForTheImportOnly(types.ModuleType):
    """``flashinfer`` as the oracle sees it while a release's NVFP4 MoE backend selection imports a module that does
    ``import flashinfer`` unguarded (0.17.0-0.19.x): present, so that the import succeeds as on the default host (the
    release's CUDA wheel requires flashinfer-python), and nothing else.  Every attribute raises AttributeError (any
    use of it fails loudly), it is no package (``import flashinfer.x`` raises ModuleNotFoundError) and its
    ``__spec__`` is None, so ``importlib.util.find_spec("flashinfer")`` - what ``has_flashinfer`` asks - raises
    ValueError instead of answering: the stand-in can make an import succeed, never change an answer."""

    def __getattr__(self, name):
        raise AttributeError(f"kvguard oracle: flashinfer is present for the import only (asked for {name!r})")


def _imports_flashinfer_at_module_level(mname: str) -> bool:
    """Whether the module's source does ``import flashinfer`` at its top level (read, not imported)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(mname)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return False
    with open(spec.origin, encoding="utf-8") as fh:
        return any(line.rstrip() == "import flashinfer" for line in fh)


def _ct_nvfp4_moe_on_h100():
    """compressed-tensors NVFP4 experts on the default host (compute capability 9.0, vLLM's CUDA wheel installed with
    its dependencies):

    - 0.14.x: the weight-only form (``use_marlin``) asks ``is_fp4_marlin_supported`` itself (capability 7.5+: True on
      9.0; the CPU platform would answer no): answered as that host;
    - 0.17.0-0.19.x: ``select_nvfp4_moe_backend`` (run as it is) first imports the FlashInfer TRT-LLM NVFP4 experts
      module, whose ``import flashinfer`` succeeds on that host (flashinfer-python is a requirement of those
      releases' CUDA wheels) and fails here (no flashinfer): for the duration of the selection only, ``flashinfer``
      is :class:`_FlashinferForTheImportOnly`.  The experts classes then answer ``is_supported_config`` as the
      release's code does (the FlashInfer and CUTLASS FP4 entries decline, here on the CPU platform, on the host for
      compute capability 9.0; MARLIN takes the layer on the CUDA 9.0 stand-in).

    0.10.2-0.13.x (``detect_nvfp4_moe_support``), 0.14.x W4A4 (``select_nvfp4_moe_backend()``) read the probes
    :func:`_modelopt_moe_backend_on_h100` answers."""
    import importlib

    base = "vllm.model_executor.layers.quantization.compressed_tensors"
    for mname in (f"{base}.compressed_tensors_moe", f"{base}.compressed_tensors_moe.compressed_tensors_moe_w4a4_nvfp4"):
        try:
            mod = importlib.import_module(mname)
        except Exception:  # noqa: BLE001 - the module does not exist in this release
            continue
        if callable(getattr(mod, "is_fp4_marlin_supported", None)):
            mod.is_fp4_marlin_supported = lambda *a, **k: True
        select = getattr(mod, "select_nvfp4_moe_backend", None)
        if (not callable(select) or getattr(select, "_kvg", False)
                or not _imports_flashinfer_at_module_level(_TRTLLM_NVFP4_EXPERTS)):
            continue

        def select_with_flashinfer_importable(*a, _select=select, **k):
            ours = "flashinfer" not in sys.modules
            if ours:
                sys.modules["flashinfer"] = _FlashinferForTheImportOnly("flashinfer")
            try:
                return _select(*a, **k)
            finally:
                if ours and isinstance(sys.modules.get("flashinfer"), _FlashinferForTheImportOnly):
                    del sys.modules["flashinfer"]
        select_with_flashinfer_importable._kvg = True
        mod.select_nvfp4_moe_backend = select_with_flashinfer_importable


def _modelopt_moe_backend_on_h100():
    """The ModelOpt MoE methods pick their MoE backend while they are built (before ``create_weights``), reading the
    GPU; on the default host (compute capability 9.0: no FP4 tensor cores, so neither FP4 CUTLASS nor FlashInfer's
    FP4 kernels, which need the SM100 family) NVFP4 experts get FP4 Marlin:

    - 0.10.2-0.13.x ``detect_nvfp4_moe_support`` (run as it is, its capability probes answered as that host:
      ``cutlass_fp4_supported`` False, ``is_fp4_marlin_supported`` True, no FlashInfer FP4 MoE);
    - 0.14.x ``select_nvfp4_moe_backend()`` (run as it is, with the same probes): MARLIN;
    - 0.15.0+ ``select_nvfp4_moe_backend(config, ...)``: the priority list's first backend whose experts class takes
      the configuration on 9.0 is MARLIN (``MarlinExperts``: CUDA 7.5+, standard activation format); stood in as
      (MARLIN, the release's Marlin experts class).

    FP8 per-tensor experts (0.14.0+ ``select_fp8_moe_backend``; before, FlashInfer only with
    VLLM_USE_FLASHINFER_MOE_FP8): the same Triton stand-in as the FP8 method's (on 9.0 the selection ends with a
    backend that takes per-tensor FP8; ``create_weights`` reads no backend).  No selection reads a layer size."""
    import importlib

    for mname in ("vllm.model_executor.layers.quantization.utils.nvfp4_moe_support",
                  "vllm.model_executor.layers.fused_moe.oracle.nvfp4"):
        try:
            mod = importlib.import_module(mname)
        except Exception:  # noqa: BLE001 - not in this release
            continue
        for name, value in (("cutlass_fp4_supported", False), ("is_fp4_marlin_supported", True),
                            ("is_flashinfer_fp4_cutlass_moe_available", False),
                            ("is_flashinfer_fp4_cutedsl_moe_available", False)):
            if callable(getattr(mod, name, None)):
                setattr(mod, name, lambda *a, _value=value, **k: _value)
    try:
        import vllm.model_executor.layers.quantization.modelopt as mo
        from vllm.model_executor.layers.fused_moe.oracle import nvfp4 as oracle_nvfp4
    except Exception:  # noqa: BLE001 - up to 0.13.x: no selection module
        return
    select = getattr(mo, "select_nvfp4_moe_backend", None)
    if callable(select) and not getattr(select, "_kvg", False):
        import inspect

        marlin = oracle_nvfp4.NvFp4MoeBackend.MARLIN
        if "tuple" in str(inspect.signature(oracle_nvfp4.select_nvfp4_moe_backend).return_annotation):
            experts = oracle_nvfp4.backend_to_kernel_cls(marlin)
            experts = experts[0] if isinstance(experts, (list, tuple)) else experts

            def select_marlin(*a, **k):
                _experts_take_activation(experts, a, k)
                return marlin, experts
        else:
            select_marlin = select  # 0.14.x: the release's own choice, with the probes above
        select_marlin._kvg = True
        mo.select_nvfp4_moe_backend = select_marlin


def _non_gated_moe_on_cuda():
    """Nemotron-H's ``relu2`` experts are non-gated (``is_act_and_mul`` False), which ``FusedMoEConfig`` refuses on
    any platform but CUDA, ROCm and XPU; the default host is CUDA, so while the config of a non-gated MoE layer is
    checked its module sees the CUDA 9.0 stand-in (gated layers keep the CPU platform: nothing of theirs changes)."""
    try:
        import vllm.model_executor.layers.fused_moe.config as moe_config
    except Exception:  # noqa: BLE001 - not in this release
        return
    cls = getattr(moe_config, "FusedMoEConfig", None)
    post_init = getattr(cls, "__post_init__", None)
    if post_init is None or getattr(post_init, "_kvg", False):
        return

    def post_init_on_cuda(self, *a, **k):
        if getattr(self, "is_act_and_mul", True) or "current_platform" not in moe_config.__dict__:
            return post_init(self, *a, **k)
        real = moe_config.current_platform
        moe_config.current_platform = _cuda_90_stand_in()
        try:
            return post_init(self, *a, **k)
        finally:
            moe_config.current_platform = real
    post_init_on_cuda._kvg = True
    cls.__post_init__ = post_init_on_cuda


def _experts_take_activation(experts, args, kwargs) -> None:
    """A MoE backend stand-in names the experts class the default host's selection ends with; that class must also
    take the layer's activation (``_supports_activation``, part of the ``is_supported_config`` the selection asks:
    Gemma 4's experts are ``gelu_tanh``), else the stand-in refuses (never the release's message: a mismatch)."""
    config = kwargs.get("config", args[0] if args else None)
    activation = getattr(config, "activation", None)
    takes = getattr(experts, "_supports_activation", None)
    if activation is not None and callable(takes) and not takes(activation):
        raise NotImplementedError(f"kvguard stand-in: {experts.__name__} does not take the {activation} activation")


#: the MXFP4 MoE backend the stand-in names (KVG_MXFP4_BACKEND): TRITON (the default host with the triton_kernels
#: package) or MARLIN (without it)
MXFP4_BACKEND = os.environ.get("KVG_MXFP4_BACKEND", "TRITON")


def _mxfp4_moe_backend_on_h100():
    """gpt-oss's MXFP4 experts' method picks its MoE backend while it is built (before ``create_weights``, which pads
    the per-rank sizes for that backend).  On the default host (compute capability 9.0, default environment, no
    FlashInfer MXFP4 switch) the releases' selectors (0.10.2-0.18.x ``get_mxfp4_backend``, 0.19.1+ the priority list
    of ``select_mxfp4_moe_backend`` / ``select_gpt_oss_mxfp4_moe_backend``, whose FlashInfer TRT-LLM and CK entries
    need SM100 / ROCm) name Triton with the triton_kernels package, else Marlin; the CPU platform answers NONE (the
    method's assert).  Stood in as that host's answer, ``MXFP4_BACKEND`` (the experts class as the release maps
    it)."""
    try:
        import vllm.model_executor.layers.quantization.mxfp4 as mx
    except Exception:  # noqa: BLE001 - not in this release
        return
    if callable(getattr(mx, "get_mxfp4_backend", None)) and not getattr(mx.get_mxfp4_backend, "_kvg", False):
        backend = mx.Mxfp4Backend[MXFP4_BACKEND]

        def get_backend(*a, **k):
            return backend
        get_backend._kvg = True
        mx.get_mxfp4_backend = get_backend
    for name in ("select_mxfp4_moe_backend", "select_gpt_oss_mxfp4_moe_backend"):
        select = getattr(mx, name, None)
        if not callable(select) or getattr(select, "_kvg", False):
            continue
        import importlib

        oracle = importlib.import_module(select.__module__)
        backend = oracle.Mxfp4MoeBackend[MXFP4_BACKEND]
        experts = oracle.backend_to_kernel_cls(backend)
        experts = experts[0] if isinstance(experts, (list, tuple)) else experts

        def select_on_h100(*a, _b=backend, _e=experts, **k):
            return _b, _e
        select_on_h100._kvg = True
        setattr(mx, name, select_on_h100)


class _World:
    """``torch.distributed`` as gpt-oss's MLP block reads it on a worker: initialized, with the world
    ``init_distributed_environment`` sets up (tp x pp x pcp, times dp with more than one DP rank; pp is 1 here)."""

    @staticmethod
    def is_initialized():
        return True

    @staticmethod
    def get_world_size(group=None):
        return SIZES["tp"] * SIZES["dp"] * SIZES["pcp"]

    def __getattr__(self, name):
        import torch.distributed

        return getattr(torch.distributed, name)


def _gpt_oss_world_size():
    """gpt-oss's MLP block asserts that the intermediate size divides ``torch.distributed``'s world size (not the TP
    size): the one rank here has no process group, so the module sees the layout's world (:class:`_World`)."""
    mod = sys.modules.get("vllm.model_executor.models.gpt_oss")
    if mod is not None and not isinstance(getattr(mod, "dist", None), _World):
        mod.dist = _World()


def _marlin_workspace_on_h100():
    """The Marlin MoE methods allocate their workspace from the GPU's multiprocessor count while building the
    layer (``marlin_make_workspace_new``): the stand-in sizes it for an H100 (132 SMs), on the meta device.  No
    check reads it."""
    import torch

    def workspace(device, max_blocks_per_sm=1):
        return torch.zeros(132 * max_blocks_per_sm, dtype=torch.int, device="meta", requires_grad=False)

    for mname, mod in list(sys.modules.items()):
        if mod is not None and mname.startswith("vllm.model_executor.") and callable(
                getattr(mod, "marlin_make_workspace_new", None)):
            mod.marlin_make_workspace_new = workspace


def _expert_maps_on_cpu():
    """Expert placement (expert maps and their log line) runs on the CPU: it reads tensor values,
    which the meta device does not have (the values are what every device computes)."""
    import torch

    def on_cpu(fn):
        if getattr(fn, "_kvg_cpu", False):
            return fn

        def wrapper(*a, **k):
            with torch.device("cpu"):
                return fn(*a, **k)
        wrapper._kvg_cpu = True
        return wrapper

    for mname, mod in list(sys.modules.items()):
        if mod is None or not mname.startswith("vllm.model_executor.layers.fused_moe"):
            continue
        for name in ("determine_expert_map", "get_compressed_expert_map", "determine_expert_placement_strategy"):
            if callable(getattr(mod, name, None)):
                setattr(mod, name, on_cpu(getattr(mod, name)))
        cls = getattr(mod, "ExpertMapManager", None)
        if isinstance(cls, type) and not getattr(cls.__init__, "_kvg_cpu", False):
            cls.__init__ = on_cpu(cls.__init__)


def _moe_models(model) -> dict:
    """Whether the built model, and the language model of a multimodal one, implement ``MixtureOfExperts`` as the
    release's ``is_mixture_of_experts`` sees them (what the worker registers with EPLB)."""
    from vllm.model_executor.models import interfaces

    language = None
    if hasattr(model, "get_language_model"):
        try:
            language = bool(interfaces.is_mixture_of_experts(model.get_language_model()))
        except Exception:  # noqa: BLE001 - a model without one
            language = None
    return {"model": bool(interfaces.is_mixture_of_experts(model)), "language_model": language}


def _set(obj, name, value):
    try:
        object.__setattr__(obj, name, value)
    except Exception:  # noqa: BLE001
        pass


class _NoStream:
    """A CUDA stream / event that does nothing: DeepSeek-V4's CUDA model creates them for overlapping its GEMMs
    (no check reads them); the CPU torch of the oracle refuses to create one."""

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        return lambda *a, **k: None


def _dsv4_cuda_class(vc, cls):
    """DeepSeek-V4 (``DeepseekV4ForCausalLM``): the class a CUDA host builds.  From 0.30.0 the registry loads a CPU
    implementation on the CPU platform; the CUDA one is ``vllm.models.deepseek_v4.nvidia.model`` (0.22.0+;
    before, ``vllm.model_executor.models.deepseek_v4``).  Its kernel warm-up registration (``enable_jit_warmup``)
    needs the tilelang package and registers kernels only: turned off.  Returns (class, whether it is DSv4)."""
    archs = list(getattr(vc.model_config.hf_config, "architectures", None) or [])
    if not archs or archs[0] != "DeepseekV4ForCausalLM":
        return cls, False
    import importlib

    try:
        mod = importlib.import_module("vllm.models.deepseek_v4.nvidia.model")
    except ImportError:
        mod = importlib.import_module("vllm.model_executor.models.deepseek_v4")
    kernel = getattr(vc, "kernel_config", None)
    if kernel is not None and getattr(kernel, "enable_jit_warmup", False):
        _set(kernel, "enable_jit_warmup", False)
    return mod.DeepseekV4ForCausalLM, True


def _dsa_arch(vc) -> bool:
    archs = list(getattr(vc.model_config.hf_config, "architectures", None) or [])
    return bool(archs) and archs[0] in ("DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM")


def _dsa_cuda_class(vc, cls):
    """DeepSeek-V3.2 / GLM-5 (``DeepseekV32ForCausalLM`` / ``GlmMoeDsaForCausalLM``): the class a CUDA host builds.
    From 0.29.0 the registry names ``vllm.models.deepseek_v32``, whose package entry picks the NVIDIA implementation
    (``vllm.models.deepseek_v32.nvidia.model``) only on a CUDA platform and DeepSeek-V3's generic class otherwise;
    the default host is CUDA, so that implementation is imported directly here.  Up to 0.28.x the registry maps both
    architectures to deepseek_v2 (0.28.0 ships the package unused) and its class stands.  Returns (class, whether
    the CUDA DSA module builds it)."""
    if not _dsa_arch(vc):
        return cls, False
    import importlib

    from vllm.model_executor.models import registry

    archs = list(vc.model_config.hf_config.architectures)
    # the registry decides: 0.28.0 ships the package but still maps both architectures to deepseek_v2
    if (getattr(registry, "_VLLM_MODELS", {}).get(archs[0]) or ("",))[0] != "vllm.models.deepseek_v32":
        return cls, False
    mod = importlib.import_module("vllm.models.deepseek_v32.nvidia.model")
    return mod.DeepseekV32ForCausalLM, True


class _DsaHost:
    """While the CUDA DSA model (0.29.0+) is built: what belongs to the GPU host rather than to the layer geometry is
    stood in, as the attention layers of every other model are.  ``MLAAttention.__init__`` (the base class of
    ``DeepseekV32Attention``: the attention backend selection and KV-cache registration) only sets the attributes the
    subclass reads after it (runtime flags: PCP off, no dense-MHA prefill, an unquantized KV cache); the indexer's
    cache class and the rotary embeddings of the DSA attention module are stand-in modules.  The subclass's own
    projections (kv_b_proj, the indexer's wq_b / wk_weights_proj, fused_qkv_a_proj, q_b_proj, o_proj) are real.
    Everything is put back afterwards."""

    def __enter__(self):
        import importlib
        import types as _types

        import torch.nn as nn

        att = importlib.import_module("vllm.models.deepseek_v32.attention")
        base = att.MLAAttention

        def mla_init(self, *a, **k):
            nn.Module.__init__(self)
            self.layer_name = k.get("prefix", "")
            self.use_pcp = False
            self.supports_dense_mha_prefill = False
            self.kv_cache_dtype = "auto"
            self.impl = _types.SimpleNamespace(supports_quant_query_input=False)

        class CacheStandIn(nn.Module):
            def __init__(self, *a, **k):
                super().__init__()

        class RopeStandIn(nn.Module):
            cos_sin_cache = None

            def __init__(self, *a, **k):
                super().__init__()

        self._saved = [(base, "__init__", base.__dict__["__init__"]),
                       (att.DeepseekV32Indexer, "indexer_cache_cls", att.DeepseekV32Indexer.indexer_cache_cls),
                       (att, "get_rope", att.get_rope)]
        base.__init__ = mla_init
        att.DeepseekV32Indexer.indexer_cache_cls = CacheStandIn
        att.get_rope = lambda *a, **k: RopeStandIn()
        return self

    def __exit__(self, *exc):
        for obj, name, value in reversed(self._saved):
            setattr(obj, name, value)
        return False


class _CudaBuffersOnMeta:
    """While DeepSeek-V3.2 is built by 0.11.0's deepseek_v2 module, or Kimi-K2.5 by 0.15.x's kimi_k25 module: the
    first allocates the indexer's shared top-k buffer with ``device="cuda"`` (from 0.11.1 on the platform's device),
    the second asks ``torch.cuda.current_device()`` for the device it moves its vision tower to (from 0.16.0 the
    platform's), which the CPU torch of the oracle cannot answer; the module's ``torch`` is a view of torch whose
    ``empty`` puts such a buffer on the meta device and whose ``cuda.current_device()`` is the meta device (a buffer
    or a move reads no layer size).  Put back afterwards."""

    def __init__(self, cls):
        self.mod = sys.modules.get(getattr(cls, "__module__", ""))

    def __enter__(self):
        import torch

        mod = self.mod
        if mod is None or getattr(mod, "torch", None) is not torch:
            self.mod = None
            return self

        class TorchView(types.ModuleType):
            def __getattr__(self, name):
                return getattr(torch, name)

        def empty(*a, **k):
            if str(k.get("device", "")).startswith("cuda"):
                k["device"] = "meta"
            return torch.empty(*a, **k)

        class CudaView(types.ModuleType):
            def __getattr__(self, name):
                return getattr(torch.cuda, name)

        cuda = CudaView("torch.cuda")
        cuda.current_device = lambda: torch.device("meta")  # type: ignore[attr-defined]
        view = TorchView("torch")
        view.empty = empty
        view.cuda = cuda
        mod.torch = view
        return self

    def __exit__(self, *exc):
        if self.mod is not None:
            import torch

            self.mod.torch = torch
        return False


class _Anything:
    """Accepts any attribute, call, subscript: a decorator given a function returns it unchanged."""

    def __getattr__(self, name):
        return _Anything()

    def __getitem__(self, key):
        return _Anything()

    def __call__(self, *a, **k):
        return a[0] if len(a) == 1 and callable(a[0]) and not k else _Anything()


def _tilelang_stand_in() -> None:
    """``tilelang`` and ``tilelang.language`` as modules of :class:`_Anything` (findable by importlib)."""
    import importlib.machinery
    import types

    if "tilelang" in sys.modules:
        return
    for name in ("tilelang", "tilelang.language"):
        mod = types.ModuleType(name)
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
        mod.__getattr__ = lambda attr: _Anything()
        sys.modules[name] = mod
    sys.modules["tilelang"].language = sys.modules["tilelang.language"]


class _MetaDevice:
    """A platform that reports the meta device as its device type (everything else: the platform's)."""

    device_type = "meta"

    def __init__(self, platform):
        self._platform = platform

    def __getattr__(self, name):
        return getattr(self._platform, name)


class _TextCopyOnCudaHost:
    """Qwen3-VL's wrappers build their language model on a copy of the VllmConfig for the text config
    (``VllmConfig.with_hf_config``), which re-runs the platform's ``check_and_update_config``.  Up to 0.29.x the copy's
    architectures stay empty; the CPU platform's check (0.28.0+) reads ``model_config.use_mla``, which indexes them
    (IndexError), where the CUDA host's check reads no ``use_mla``.  While the copy is made, the CPU platform's check
    is left out: it changes nothing that construction reads."""

    def __enter__(self):
        import vllm.platforms as platforms
        from vllm.config import VllmConfig

        self.config_cls, self.made = VllmConfig, VllmConfig.with_hf_config
        platform_cls, made = type(platforms.current_platform), self.made

        def with_hf_config(config, *args, **kwargs):
            checked = platform_cls.__dict__.get("check_and_update_config")
            platform_cls.check_and_update_config = classmethod(lambda cls, vllm_config: None)
            try:
                return made(config, *args, **kwargs)
            finally:
                if checked is None:
                    del platform_cls.check_and_update_config
                else:
                    platform_cls.check_and_update_config = checked

        VllmConfig.with_hf_config = with_hf_config
        return self

    def __exit__(self, *exc):
        self.config_cls.with_hf_config = self.made
        return False


def _qwen3_vl_arch(vc) -> bool:
    archs = list(getattr(vc.model_config.hf_config, "architectures", None) or [])
    return bool(archs) and archs[0] in ("Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration")


class _NoHost:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _kimi_k25_arch(vc) -> bool:
    archs = list(getattr(vc.model_config.hf_config, "architectures", None) or [])
    return bool(archs) and archs[0] == "KimiK25ForConditionalGeneration"


def _kimi_k3_arch(vc) -> bool:
    archs = list(getattr(vc.model_config.hf_config, "architectures", None) or [])
    return bool(archs) and archs[0] == "KimiK3ForConditionalGeneration"


class _KimiK3Host:
    """While Kimi-K3 (``KimiK3ForConditionalGeneration``, 0.27.0+: vllm.models.kimi_k3, whose NVIDIA implementation
    the CPU platform imports too) is built: torch's CUDA streams / events, which the model creates for overlapping
    its GEMMs, are :class:`_NoStream`; its MLA layer's attention backend and MLA prefill backend (asked of the
    platform after every projection is built; the CPU platform has no MLA backend) are stand-ins whose
    implementation class accepts anything; the SM100 GEMM-AR set-up answers as the default host does (off).
    Everything is put back afterwards."""

    def __enter__(self):
        import importlib

        import torch

        self._saved = [(torch.cuda, name, getattr(torch.cuda, name)) for name in ("Stream", "Event")]
        for name in ("Stream", "Event"):
            setattr(torch.cuda, name, _NoStream)
        mla = importlib.import_module("vllm.models.kimi_k3.nvidia.mla")

        class ImplStandIn:
            def __init__(self, *a, **k):
                pass

        class BackendStandIn:
            @staticmethod
            def get_impl_cls():
                return ImplStandIn

            def __getattr__(self, name):
                return lambda *a, **k: None

        for name, value in (("get_attn_backend", lambda *a, **k: BackendStandIn()),
                            ("get_mla_prefill_backend", lambda *a, **k: ImplStandIn)):
            self._saved.append((mla, name, getattr(mla, name)))
            setattr(mla, name, value)
        model = importlib.import_module("vllm.models.kimi_k3.nvidia.model")
        if hasattr(model, "maybe_init_gemm_rs_ar"):
            # (0.30.0+, before the embedding) the SM100 GEMM-AR / GEMM-RS set-up, on by default: the default host (an
            # H100) answers False ("the device is not SM100-family"); 0.31.0+ first imports its CUTLASS DSL kernels
            # (nvidia-cutlass-dsl, a dependency of the CUDA wheel, absent here)
            self._saved.append((model, "maybe_init_gemm_rs_ar", model.maybe_init_gemm_rs_ar))
            model.maybe_init_gemm_rs_ar = lambda *a, **k: False
        return self

    def __exit__(self, *exc):
        for obj, name, value in reversed(self._saved):
            setattr(obj, name, value)
        return False


def _dsv4_nvfp4_selection():
    """DeepSeek-V4's NVFP4 experts (a ModelOpt export's ``moe_quant_algo: NVFP4``, 0.22.0+): the release's own
    ``select_nvfp4_moe_backend`` (not the Marlin stand-in of :func:`_modelopt_moe_backend_on_h100`), because the
    experts' SwiGLU clamp (``swiglu_limit``) narrows its priority list by release.  The selection module and every
    experts module it names are imported here, before :class:`_Dsv4Host` points their platform at the CUDA 9.0
    stand-in.  Returns (the ModelOpt module, the release's selection) or None (no such selection)."""
    try:
        import vllm.model_executor.layers.quantization.modelopt as mo
        from vllm.model_executor.layers.fused_moe.oracle import nvfp4 as oracle_nvfp4
    except Exception:  # noqa: BLE001 - not in this release
        return None
    real = getattr(oracle_nvfp4, "select_nvfp4_moe_backend", None)
    if not callable(real) or not hasattr(mo, "select_nvfp4_moe_backend"):
        return None
    for backend in oracle_nvfp4.NvFp4MoeBackend:
        try:
            oracle_nvfp4.backend_to_kernel_cls(backend)
        except Exception:  # noqa: BLE001 - a kernel package this environment lacks: the class declines there too
            pass
    return mo, real


class _Dsv4Host:
    """While DeepSeek-V4's CUDA model is built: its modules (``vllm.models.deepseek_v4.*``) and the MoE / MXFP4
    modules whose backend selection runs (``vllm.model_executor.layers.fused_moe.*``, ``...quantization.mxfp4``,
    the MXFP4 / Marlin utilities) see the default host, CUDA compute capability 9.0 — the release's own
    ``select_deepseek_v4_mxfp4_moe_backend`` then picks the FP4 experts' backend as that host would — and torch's
    CUDA streams / events are :class:`_NoStream`.  Everything is put back afterwards (other cases keep the CPU
    platform).  The backend chosen is kept in ``SELECTED``."""

    SELECTED: list = []

    def __enter__(self):
        import torch

        stand_in = _cuda_90_stand_in()
        self._saved = []
        nvfp4_select = _dsv4_nvfp4_selection()
        for mname, mod in list(sys.modules.items()):
            if mod is None or "current_platform" not in getattr(mod, "__dict__", {}):
                continue
            if mname.endswith(".rotary_embedding.deepseek_scaling_rope"):
                # 0.22.x's DeepSeek-V4 rotary cache is made on the platform's device type while its frequencies
                # are on the default (meta) device: a sizing detail, answered on the meta device
                self._saved.append((mod, "current_platform", mod.current_platform))
                mod.current_platform = _MetaDevice(mod.current_platform)
                continue
            if (mname.startswith(("vllm.models.deepseek_v4", "vllm.model_executor.models.deepseek_v4",
                                  "vllm.model_executor.layers.deepseek_v4_attention",
                                  "vllm.model_executor.layers.fused_moe"))
                    or mname.endswith((".quantization.mxfp4", ".utils.mxfp4_utils", ".utils.marlin_utils_fp4",
                                       ".utils.marlin_utils"))):
                self._saved.append((mod, "current_platform", mod.current_platform))
                # the DeepSeek-V4 modules also place buffers on the platform's device type (up to 0.23.0 the
                # model's MTP buffer, sized by the batched tokens): the meta device here
                mod.current_platform = (_MetaDevice(stand_in) if mname.startswith(("vllm.models.deepseek_v4",
                                        "vllm.model_executor.models.deepseek_v4")) else stand_in)
        for name in ("Stream", "Event"):
            self._saved.append((torch.cuda, name, getattr(torch.cuda, name)))
            setattr(torch.cuda, name, _NoStream)
        if "vllm.model_executor.layers.deepseek_v4_attention" in sys.modules:
            # 0.20.x - 0.21.0: the MLA module asks ``vllm.platforms`` for the capability inside its __init__
            import vllm.platforms as platforms

            # on a CUDA platform the hyper-connection kernels' module needs the tilelang package (a CUDA host's
            # dependency, absent here): it defines kernels only, so a stand-in that accepts everything serves
            _tilelang_stand_in()
            self._saved.append((platforms, "_current_platform", platforms._current_platform))
            platforms._current_platform = stand_in
        try:
            import vllm.model_executor.layers.quantization.mxfp4 as mx
        except ImportError:
            mx = None
        select = getattr(mx, "select_deepseek_v4_mxfp4_moe_backend", None)
        if callable(select):
            def recorded(*a, _select=select, **k):
                out = _select(*a, **k)
                _Dsv4Host.SELECTED.append(str(out[0]))
                return out
            self._saved.append((mx, "select_deepseek_v4_mxfp4_moe_backend", select))
            mx.select_deepseek_v4_mxfp4_moe_backend = recorded
        if nvfp4_select is not None:
            mo, real = nvfp4_select

            def recorded_nvfp4(*a, _select=real, **k):
                out = _select(*a, **k)
                _Dsv4Host.SELECTED.append(f"nvfp4:{out[0]}")
                return out
            self._saved.append((mo, "select_nvfp4_moe_backend", mo.select_nvfp4_moe_backend))
            mo.select_nvfp4_moe_backend = recorded_nvfp4
        return self

    def __exit__(self, *exc):
        for obj, name, value in reversed(self._saved):
            setattr(obj, name, value)
        return False


def _vllm_config(cfg: dict, engine_args: dict, files: "dict | None" = None):
    from vllm.engine.arg_utils import EngineArgs

    d = tempfile.mkdtemp(prefix="kvg-quant-")
    with open(os.path.join(d, "config.json"), "w") as fh:
        json.dump(cfg, fh)
    for name, content in (files or {}).items():  # e.g. ModelOpt's hf_quant_config.json beside config.json
        with open(os.path.join(d, name), "w") as fh:
            if isinstance(content, str):  # a module config.json's auto_map names (a remote-code config class)
                fh.write(content)
            else:
                json.dump(content, fh)
    return EngineArgs(model=d, skip_tokenizer_init=True, **engine_args).create_engine_config()


def _record_hooks(records):
    """Record each constructed linear / MoE layer (after its quantization method's create_weights)."""
    from vllm.model_executor.layers import linear

    wrapped: list = []

    def wrap(cls):
        real = cls.__init__
        wrapped.append(cls)

        def __init__(self, *a, **k):
            real(self, *a, **k)
            if next(c for c in type(self).__mro__ if c in wrapped) is cls:
                records.append({"prefix": getattr(self, "prefix", None) or k.get("prefix"), "class": cls.__name__,
                                "input_size": getattr(self, "input_size", None),
                                "output_size": getattr(self, "output_size", None),
                                "output_sizes": list(getattr(self, "output_sizes", []) or []),
                                "tp_size": getattr(self, "tp_size", None)})
        cls.__init__ = __init__

    for name in ("ReplicatedLinear", "ColumnParallelLinear", "MergedColumnParallelLinear", "QKVParallelLinear",
                 "RowParallelLinear"):
        wrap(getattr(linear, name))
    try:
        from vllm.model_executor.layers.fused_moe.layer import UnquantizedFusedMoEMethod as um
    except ImportError:
        from vllm.model_executor.layers.fused_moe import UnquantizedFusedMoEMethod as um
    real_cw = um.create_weights

    def cw(self, layer, num_experts, hidden_size, intermediate_size_per_partition, params_dtype, **kw):
        records.append({"prefix": getattr(layer, "layer_name", None), "class": "FusedMoE", "experts": num_experts,
                        "hidden": hidden_size, "intermediate_per_partition": intermediate_size_per_partition})
        return real_cw(self, layer, num_experts, hidden_size, intermediate_size_per_partition, params_dtype, **kw)

    um.create_weights = cw


def _triton_language_names() -> None:
    """The CPU oracle has no Triton: vLLM stands in ``triton.language`` with a placeholder that names a few dtypes.
    Qwen3-Next's gated-delta-net kernels (vllm/model_executor/layers/fla/ops, imported with the model from 0.10.2)
    read other names of it at import time (``exp = tl.exp``); a GPU host has them.  Any name the placeholder lacks
    answers None, so the model module imports and its layers are built; no kernel runs while building."""
    try:
        from vllm.triton_utils import importing
    except ImportError:
        return
    placeholder = getattr(importing, "TritonLanguagePlaceholder", None)
    if placeholder is not None and "__getattr__" not in vars(placeholder):
        placeholder.__getattr__ = lambda self, name: None


def _hybrid_block_size_on_cpu() -> None:
    """Up to 0.11.0 the CPU platform refuses any block size but 16 without intel_extension_for_pytorch, and a hybrid
    model's (Qwen3-Next) block size has been raised to fit its Mamba page before the platform is asked: a limit of
    the CPU oracle (a GPU host takes the size).  The platform's check sees 16 and the raised size is put back; the
    model's layers do not read it."""
    try:
        from vllm.platforms.cpu import CpuPlatform
    except ImportError:
        return
    import inspect

    real = CpuPlatform.__dict__.get("check_and_update_config")
    if real is None or "intel_extension_for_pytorch" not in inspect.getsource(real.__func__):
        return

    def check_and_update_config(cls, vllm_config):
        cache = vllm_config.cache_config
        size = getattr(cache, "block_size", None)
        if size not in (None, 16):
            cache.block_size = 16
        try:
            real.__func__(cls, vllm_config)
        finally:
            if size not in (None, 16):
                cache.block_size = size

    CpuPlatform.check_and_update_config = classmethod(check_and_update_config)


def _qwen3_next_norm_device() -> None:
    """0.10.2's Qwen3-Next gated-delta-net layer puts its gated RMSNorm on ``torch.cuda.current_device()``, which a
    CPU build of torch refuses; on a GPU host it is the rank's device.  Here the model module sees a ``torch`` whose
    ``cuda.current_device()`` answers the meta device the runner builds on (later releases ask the platform)."""
    import importlib.util

    spec = importlib.util.find_spec("vllm.model_executor.models.qwen3_next")
    if spec is None or spec.origin is None:
        return
    with open(spec.origin, encoding="utf-8") as fh:
        if "torch.cuda.current_device()" not in fh.read():
            return  # (read, not imported: the module's kernels cost an import every run would pay)
    try:
        import vllm.model_executor.models.qwen3_next as qwen3_next
    except Exception:  # noqa: BLE001 - its module does not import here: the build reports it
        return
    import torch

    class _Cuda(types.SimpleNamespace):
        def __getattr__(self, name):
            return getattr(torch.cuda, name)

    class _Torch(types.ModuleType):
        cuda = _Cuda(current_device=lambda: torch.device("meta"))

        def __getattr__(self, name):
            return getattr(torch, name)

    qwen3_next.torch = _Torch("torch")


def main(inp: str, out: str) -> None:
    with open(inp) as fh:
        cases = json.load(fh)["cases"]
    from oracle_runner import shortcuts_from_env, torch_compat  # this directory is the script's: first on sys.path

    torch_compat()
    _setup()
    _triton_language_names()
    _hybrid_block_size_on_cpu()
    _qwen3_next_norm_device()
    shortcuts_from_env()  # the registry's class inspection here, not a subprocess per architecture (~10 s each)
    import torch

    try:  # FusedMoE's expert map uses nonzero(): its meta-device value (all non-zero) is what a GPU computes here
        torch.fx.experimental._config.meta_nonzero_assume_all_nonzero = True
    except Exception:  # noqa: BLE001
        pass

    try:
        from vllm.config import set_current_vllm_config
    except ImportError:
        from vllm.config.vllm import set_current_vllm_config
    from vllm.model_executor.model_loader.utils import get_model_architecture

    try:
        from vllm.model_executor.model_loader.utils import configure_quant_config
    except ImportError:  # not in this release
        configure_quant_config = None

    _patch()
    records: list = []
    _record_hooks(records)
    results = []
    environ = dict(os.environ)
    for case in cases:
        # each case sees the run's environment only: 0.10.2/0.11.0's create_engine_config writes VLLM_USE_V1 into
        # os.environ (envs.set_vllm_use_v1), and a later case would read it as set (then the CPU platform's V1
        # refusal of sliding-window models raises instead of falling back to V0)
        os.environ.clear()
        os.environ.update(environ)
        t0 = time.time()
        try:
            _quant_modules_see_cuda_90()
            engine_args = dict(case.get("engine_args") or {})
            # DeepSeek-V4's --kv-cache-dtype is read by its attention while it is built: a CUDA host keeps the
            # value, the CPU platform refuses an FP8 cache with chunked prefill or resets it to auto (0.20.x):
            # the engine config is made with auto and the value set afterwards
            kv_cache_dtype = engine_args.pop("kv_cache_dtype", None) if case.get("kv_after_config") else None
            vc = _vllm_config(case["config"], engine_args, case.get("files"))
            if kv_cache_dtype is not None:
                _set(vc.cache_config, "cache_dtype", kv_cache_dtype)
            cls = get_model_architecture(vc.model_config)[0]
            cls, dsv4 = _dsv4_cuda_class(vc, cls)
            cls, dsa = _dsa_cuda_class(vc, cls)
            _fresh_packed_mapping(cls)
            _load_text_model_class(vc.model_config)
            if vc.quant_config is not None and configure_quant_config is not None:
                # initialize_model hands the model class's packed-modules mapping (the fused layers' shards) and
                # its checkpoint-name mapper to the quantization config before building the model
                configure_quant_config(vc.quant_config, cls)
        except Exception as exc:  # noqa: BLE001
            results.append({"setup_error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-1500:]})
            continue
        _patch()
        _stubs()
        _quant_modules_see_cuda_90()
        outs = []
        for lay in case["layouts"]:
            SIZES.update(tp=lay["tp"], dp=lay.get("dp", 1), pcp=lay.get("pcp", 1))
            pc = vc.parallel_config
            _set(pc, "tensor_parallel_size", lay["tp"])
            _set(pc, "data_parallel_size", lay.get("dp", 1))
            _set(pc, "prefill_context_parallel_size", lay.get("pcp", 1))
            _set(pc, "enable_expert_parallel", bool(lay.get("ep")))
            _set(pc, "enable_eplb", bool(lay.get("eplb")))
            eplb_config = getattr(pc, "eplb_config", None)
            if eplb_config is not None:
                _set(eplb_config, "num_redundant_experts", lay.get("redundant", 0))
            if hasattr(pc, "num_redundant_experts"):
                _set(pc, "num_redundant_experts", lay.get("redundant", 0))
            vc.compilation_config.static_forward_context.clear()
            for attr in ("static_all_moe_layers",):
                if isinstance(getattr(vc.compilation_config, attr, None), list):
                    getattr(vc.compilation_config, attr).clear()
            del records[:]
            rec = {}
            parallel = sys.modules.get("vllm.config.parallel")
            cpu = getattr(parallel, "current_platform", None)
            if lay.get("eplb") and cpu is not None:
                # a model that re-validates a copy of the config (Gemma 4's multimodal wrapper) meets
                # ParallelConfig's EPLB platform check: the platform is the host's question (PV_eplb_platform),
                # answered here as the default host's, CUDA
                parallel.current_platform = _cuda_90_stand_in()
            try:
                del _Dsv4Host.SELECTED[:]
                with set_current_vllm_config(vc), torch.device("meta"), (_Dsv4Host() if dsv4 else _NoHost()), \
                        (_DsaHost() if dsa else _CudaBuffersOnMeta(cls) if _dsa_arch(vc) or _kimi_k25_arch(vc)
                         else _NoHost()):
                    with _TextCopyOnCudaHost() if _qwen3_vl_arch(vc) else _KimiK3Host() if _kimi_k3_arch(vc) \
                            else _NoHost():
                        model = cls(vllm_config=vc, prefix="")
                rec["ok"] = True
            except Exception as exc:  # noqa: BLE001 - the outcome under test
                rec.update(ok=False, exc_type=type(exc).__name__, message=str(exc),
                           where=traceback.format_exc().strip().splitlines()[-3][:300], trace=traceback.format_exc()[-3000:])
            finally:
                if cpu is not None:
                    parallel.current_platform = cpu
            if dsv4:
                rec["mxfp4_backend"] = sorted(set(_Dsv4Host.SELECTED))
            if rec["ok"]:
                try:  # a fact about the built model, not the construction's outcome
                    rec["moe_model"] = _moe_models(model)
                except Exception as exc:  # noqa: BLE001
                    rec["moe_model"] = {"error": f"{type(exc).__name__}: {exc}"}
            if case.get("record"):
                rec["layers"] = list(records)
            outs.append(rec)
        results.append({"outcomes": outs, "seconds": round(time.time() - t0, 2),
                        "quant_config": type(vc.quant_config).__name__ if vc.quant_config is not None else None})
    with open(out, "w") as fh:
        json.dump({"results": results}, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
