"""Model facts as a given vLLM release derives them from a config.json.

Mirrors ``ModelConfig`` (vllm/config/model.py) and, from 0.14.0,
``ModelArchConfigConvertorBase.convert`` (vllm/transformers_utils/
model_arch_config_convertor.py): text-config selection, total KV heads (the
alias chain and the per-model-type convertors), attention heads, MLA
detection, head size, layer count, expert count.  The attribute reads go
through the config object :mod:`kvguard.facts.loader` builds as the release
does (class defaults and attribute maps included), from the per-release fact
tables in ``kvguard/data/facts/``.  vLLM's own lists live in
:mod:`kvguard.facts.vllm`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InternalError, Undecidable
from ..record import Record, field
from ..verdict import ErrorEntry
from ..versions import Release
from . import vllm as vllm_facts
from .strict import StrictDataclassError

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["Crash", "ModelFacts", "derive"]


class Crash(Record):
    """An exception vLLM raises while deriving a fact (type name and ``str()``)."""

    exc_type: str
    message: str
    #: pydantic class that wraps it where it is raised (None: raw, or decided by the caller)
    wrapped_by: Optional[str] = None
    errors: tuple[ErrorEntry, ...] = ()

    @classmethod
    def of(cls, exc: BaseException, wrapped_by: Optional[str] = None) -> "Crash":
        from ..host_python import host_message

        return cls(type(exc).__name__, host_message(exc), wrapped_by)


class _Raise(Exception):
    """Internal carrier: a fact read raised ``crash`` in vLLM."""

    def __init__(self, crash: Crash):
        super().__init__(crash.message)
        self.crash = crash


class ModelFacts(Record):
    """What a vLLM release sees in a checkpoint config (frozen).

    ``total_num_kv_heads`` is ``ModelConfig.get_total_num_kv_heads()`` (128
    for DeepSeek-V3, although MLA caches one latent head); ``cache_kv_heads``
    is the H of the duplication rule (1 for MLA).
    """

    vllm_version: str
    model_type: Optional[str]
    text_model_type: Optional[str]
    architectures: tuple[str, ...]
    use_mla: Optional[bool]
    is_deepseek_mla: bool
    total_num_kv_heads: Optional[int]
    total_num_attention_heads: Optional[int]
    head_size: Optional[int]
    num_hidden_layers: Optional[int]
    num_experts: Any
    hidden_size: Any = None
    kv_lora_rank: Any = None
    qk_rope_head_dim: Any = None
    supports_pp: Optional[bool] = None
    transformers: Optional[str] = None
    emulation: str = "generic"
    notes: tuple[str, ...] = ()
    #: what kvguard assumed to read this config (e.g. a remote-code config read as its declared base type)
    assumptions: tuple[str, ...] = ()
    #: the text config's attributes as the release's config object holds them (class defaults and derivations
    #: included), for the names in RESOLVED_ATTRIBUTES that it has; ``hf_config`` for the top-level object
    resolved: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    resolved_top: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: facts whose read raises in vLLM (lazy in that release): name -> Crash
    deferred: Mapping[str, Crash] = field(default_factory=dict, compare=False, repr=False)
    #: a heterogeneous config (0.28.0+): per layer, the ModelArchitectureConfig fields whose value differs from the
    #: whole-model one above (vLLM's ``per_layer_overrides``; ``model_arch_config[i]``); empty when no field varies
    layer_overrides: tuple[Mapping[str, Any], ...] = field(default_factory=tuple, compare=False, repr=False)
    #: for a config that names no dtype (nor does its text / vision / encoder config): the dtype the release reads
    #: from the checkpoint's weights (kvguard.facts.weights_dtype), else None with the reason in
    #: ``weights_dtype_unknown``
    weights_dtype: Optional[str] = field(default=None, compare=False, repr=False)
    weights_dtype_unknown: Optional[str] = field(default=None, compare=False, repr=False)

    # -- derived -----------------------------------------------------------
    @property
    def is_moe(self) -> bool:
        """``ModelConfig.is_moe`` (``get_num_experts() > 0``)."""
        return self.num_experts > 0

    def _known_kv_heads(self) -> int:
        # callers ask only for models with an attention KV cache; an attention-free model (or one whose
        # KV heads vLLM does not derive) has no H, and saying so beats a TypeError deep in the arithmetic
        if self.total_num_kv_heads is None:
            raise Undecidable(f"{self.model_type or 'this model'} has no attention KV heads kvguard derives")
        return self.total_num_kv_heads

    @property
    def cache_kv_heads(self) -> int:
        """H of the duplication rule: 1 for MLA (one latent head), else the total KV heads."""
        if self.use_mla:
            return 1
        return self._known_kv_heads()

    def num_kv_heads(self, tp: int) -> int:
        """``ModelConfig.get_num_kv_heads``: KV heads per tensor-parallel rank."""
        if self.use_mla:
            return 1
        return max(1, self._known_kv_heads() // tp)

    def duplication_factor(self, tp: int) -> int:
        """How many TP ranks hold a copy of each KV head: ``max(1, tp // H)``."""
        h = self.cache_kv_heads
        if h <= 0:
            return 1
        return max(1, tp // h)

    def layer_kv(self) -> tuple[tuple[int, int], ...]:
        """``(total KV heads, head size)`` of every layer of a heterogeneous config, as ``model_arch_config[i]`` gives
        them to the layer's attention (``get_num_kv_heads(parallel_config, arch_config)``); empty otherwise."""
        if not self.layer_overrides:
            return ()
        kv, size = self._known_kv_heads(), self.head_size
        return tuple((layer.get("total_num_kv_heads", kv), layer.get("head_size", size))
                     for layer in self.layer_overrides)

    def kv_bytes_per_token(self, tp: int = 1, *, dcp: int = 1, dtype_bytes: int = 2,
                           layers: Optional[int] = None) -> Optional[int]:
        """Per-rank KV-cache bytes per token for standard KV dtypes.

        Full attention: ``layers * 2 * num_kv_heads(tp) * head_size * b``; MLA:
        ``layers * head_size * b`` (no factor 2, not divided by tp).  With DCP
        each rank stores ``1/dcp`` of the tokens.  ``None`` for attention-free
        models.
        """
        n_layers = self.num_hidden_layers if layers is None else layers
        if not self.head_size or not n_layers:
            return None
        if self.use_mla:
            per_layer = self.head_size * dtype_bytes
        else:
            per_layer = 2 * self.num_kv_heads(tp) * self.head_size * dtype_bytes
        total = n_layers * per_layer
        return total // dcp if dcp > 1 else total

    def to_dict(self) -> dict[str, Any]:
        out = {
            "model_type": self.model_type,
            "text_model_type": self.text_model_type,
            "architectures": list(self.architectures),
            "use_mla": self.use_mla,
            "is_deepseek_mla": self.is_deepseek_mla,
            "total_num_kv_heads": self.total_num_kv_heads,
            "total_num_attention_heads": self.total_num_attention_heads,
            "head_size": self.head_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_experts": self.num_experts,
            "supports_pp": self.supports_pp,
            "transformers": self.transformers,
            "emulation": self.emulation,
        }
        if self.assumptions:
            out["assumptions"] = list(self.assumptions)
        if self.use_mla is not None and self.total_num_kv_heads is not None:
            out["cache_kv_heads"] = self.cache_kv_heads
        return out


#: attributes of the text config whose resolved values ModelFacts keeps (KV-cache specs, lengths, quantization
#: geometry): what consumers read instead of raw config.json keys
RESOLVED_ATTRIBUTES: tuple[str, ...] = (
    "model_type", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "num_hidden_layers",
    "vocab_size", "intermediate_size", "moe_intermediate_size", "shared_expert_intermediate_size",
    "n_shared_experts", "n_routed_experts", "num_experts", "num_local_experts", "num_experts_per_tok",
    "first_k_dense_replace", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    "num_nextn_predict_layers", "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
    "max_sequence_length", "max_seq_length", "seq_len", "model_max_length", "rope_scaling", "rope_parameters",
    "rope_theta", "sliding_window", "use_sliding_window", "max_window_layers", "layer_types",
    "sliding_window_pattern", "attention_chunk_size", "layers_block_type", "hybrid_override_pattern",
    "full_attention_interval", "index_topk", "attn_type_list", "block_configs", "is_encoder_decoder",
    "tie_word_embeddings", "dtype", "quantization_config",
    # the maximum length (kvguard.length): the convertor's last key, LongRoPE's default
    "max_target_positions", "original_max_position_embeddings",
    # model construction (kvguard.quant, kvguard/data/quant_archs.json)
    "decoder_sparse_step", "mlp_only_layers", "moe_layer_freq", "hidden_act",
    # the attribute Gemma 3's MLP reads for its activation (kvguard/data/quant_archs.json family gemma3)
    "hidden_activation",
    # MiMo-V2-Flash's sliding-window layers (kvguard/data/quant_archs.json family mimo_v2_flash): which layers, their
    # heads and head sizes, and the fused-QKV checkpoint layout of 0.33.0
    "hybrid_layer_pattern", "swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim",
    "attention_projection_layout",
    # Nemotron-H's MoE block (kvguard.quant.nemotron_h): the shared experts' width, the latent MoE's size
    "moe_shared_expert_intermediate_size", "moe_latent_size",
    # DeepSeek-V4's attention output projections and experts (kvguard.quant.dsv4)
    "o_groups", "o_lora_rank", "expert_dtype", "index_head_dim", "compress_ratios",
    "compress_rates", "swiglu_limit",
    # DeepSeek-V4's MegaMoE routing checks (kvguard.quant.dsv4.mega_decided)
    "scoring_func", "norm_topk_prob",
    # Gemma 4's layers (kvguard/data/quant_archs.json family gemma4; vllm/model_executor/models/gemma4.py); the
    # layers that reuse another layer's KV cache (kvguard.kv.kvsize.KV_SHARED_TAIL)
    "enable_moe_block", "use_second_mlp_block", "expert_intermediate_size", "top_k_experts", "num_kv_shared_layers",
    "use_double_wide_mlp", "hidden_size_per_layer_input", "attention_k_eq_v",
    # DeepSeek-V3.2's / GLM-5's sparse-attention indexer (kvguard/data/quant_archs.json family deepseek_v32): its
    # projections' sizes and which layers build one (IndexCache, 0.24.0+)
    "index_n_heads", "index_head_dim", "index_topk_freq", "index_topk_pattern", "index_skip_topk_offset",
    # Llama 4's decoder layers (kvguard/data/quant_archs.json family llama4): which are MoE, the dense MLPs' width
    "interleave_moe_layer_step", "intermediate_size_mlp",
    # ERNIE-4.5's MoE block (kvguard/data/quant_archs.json family ernie4_5_moe): which layers, the shared experts
    "moe_num_experts", "moe_num_shared_experts", "moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval",
    "use_moe",
    # hybrid models' Mamba state shapes (kvguard.rules.mamba_state.STATE_KEYS)
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
    "linear_conv_kernel_dim", "mamba_expand", "mamba_d_state", "mamba_d_conv", "mamba_num_heads", "mamba_head_dim",
    "n_groups", "ssm_state_size", "conv_kernel", "mamba_n_groups", "mamba_n_heads", "mamba_d_head", "mamba_ngroups",
    "n_mamba_heads", "mamba_headdim", "mamba_d_ssm", "conv_dim", "conv_L_cache",
)
#: the same for the top-level config object
RESOLVED_TOP_ATTRIBUTES: tuple[str, ...] = ("model_type", "architectures", "quantization_config", "compression_config",
                                            "dtype",
                                            "max_position_embeddings", "tie_word_embeddings",
                                            # kvguard.length: a pooling model's tokenizer length
                                            "position_embedding_type",
                                            # ModelConfig.is_hybrid reads the top-level config's layer types
                                            "layer_types")


def _snapshot(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The attributes ``obj`` has among ``names``, as plain JSON-like values (a dtype as its name)."""
    out: dict[str, Any] = {}
    for name in names:
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - an attribute whose read raises is not kept
            continue
        plain = _plain_value(value)
        if plain is not _UNKEPT:
            out[name] = plain
    return out


_UNKEPT = object()


def _plain_value(value: Any, depth: int = 0) -> Any:
    if depth > 8:
        return _UNKEPT
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if type(value).__name__ in ("TorchDtype", "dtype"):
        return str(value).split(".")[-1]
    if isinstance(value, (list, tuple)):
        items = [_plain_value(v, depth + 1) for v in value]
        return _UNKEPT if any(v is _UNKEPT for v in items) else items
    if isinstance(value, dict):
        kept = {k: _plain_value(v, depth + 1) for k, v in value.items() if isinstance(k, str)}
        return _UNKEPT if any(v is _UNKEPT for v in kept.values()) else kept
    return _UNKEPT


# ---------------------------------------------------------------------------
# helpers mirroring vLLM's attribute access


def _getattr_iter(obj: Any, names, default: Any = None, default_factory=None) -> Any:
    """vllm.config.utils.getattr_iter (0.14.0+): first attribute that *exists*, even if None."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return default_factory() if default_factory is not None else default


def mla_disabled(env: Mapping[str, str]) -> bool:
    """``envs.VLLM_MLA_DISABLE``: ``bool(int(os.getenv("VLLM_MLA_DISABLE", "0")))``.

    Raises ValueError for non-integer strings ("true", "") exactly as vLLM does.
    """
    return bool(int(env.get("VLLM_MLA_DISABLE", "0")))


#: exceptions that are kvguard's own failure wherever they are met: vLLM's config code raises
#: none of them on purpose, so one of them is never the launch's verdict (kvguard.InternalError)
KVGUARD_FAILURES = (MemoryError, RecursionError, SystemError)
_KVGUARD_FAILURE_NAMES = frozenset(t.__name__ for t in KVGUARD_FAILURES)


def _modelled(crash: Crash) -> Crash:
    """``crash`` if it is what the modelled code raises; kvguard's own failure (a MemoryError
    the emulation reported as the config's exception) raises InternalError instead."""
    if crash.exc_type in _KVGUARD_FAILURE_NAMES:
        raise InternalError(crash.exc_type, crash.message)
    return crash


def _catch(fn, *args) -> Any:
    """Run ``fn``; turn an exception vLLM's code would raise into :class:`_Raise`."""
    try:
        return fn(*args)
    except (_Raise, Undecidable):
        raise
    except KVGUARD_FAILURES as exc:   # RecursionError is a RuntimeError: not vLLM's crash
        raise InternalError.of(exc) from exc
    except (ArithmeticError, AttributeError, KeyError, IndexError, TypeError, ValueError,
            AssertionError, RuntimeError, NotImplementedError) as exc:
        raise _Raise(Crash.of(exc)) from None


# ---------------------------------------------------------------------------
# per-release logic


class _Deriver:
    """One derivation: ``cfg`` is hf_config, ``text`` hf_text_config."""

    def __init__(self, cfg: Any, text: Any, release: Release, env: Mapping[str, str]):
        self.cfg = cfg
        self.text = text
        self.release = release
        self.env = env
        self.model_type = getattr(cfg, "model_type", None)
        self.kind = vllm_facts.lookup(vllm_facts.CONVERTORS, self.model_type, release) if release.within("0.14.0") \
            else None
        #: hf_config.architectures as the convertor's __init__ left them (None: as loaded)
        self.routed_architectures: Optional[list[str]] = None

    # -- the convertor's __init__ ---------------------------------------------
    def route_architectures(self, model_path: Optional[str]) -> Optional[str]:
        """The architecture re-routing some convertors do before converting (vLLM mutates hf_config, so
        the registry and every later reader see the routed name).  Returns what kvguard assumed, if any."""
        cfg, release = self.cfg, self.release
        if self.kind == "deepseek_v4":
            # evaluated in the convertor's order, so an odd vision_n_layers raises as it does there
            if (getattr(cfg, vllm_facts.DEEPSEEK_V4_VISION_LAYERS, 0) > 0
                    and getattr(cfg, "architectures", None) == vllm_facts.DEEPSEEK_V4_TEXT_ARCHITECTURES
                    and not getattr(cfg, vllm_facts.DEEPSEEK_V4_VL_INNER_MARK, False)):
                self.routed_architectures = [vllm_facts.DEEPSEEK_V4_VL_ARCHITECTURE]
            return None
        if self.kind != "checkpoint_file_routes":
            return None
        loaded = getattr(cfg, "architectures", None)
        for model_type, when, filename, routed, since, until in vllm_facts.CHECKPOINT_FILE_ROUTES:
            if model_type != self.model_type or not release.within(since, until) or loaded != when:
                continue
            present = _checkpoint_has_file(model_path, filename)
            if present is None:
                return (f"the checkpoint has no {filename} (vLLM {release.version} serves {when[0]} as {routed} "
                        "when it has one; pass the model directory to check)")
            if present:
                self.routed_architectures = [routed]
            return None
        return None

    def architectures(self) -> list[str]:
        """hf_config.architectures as the conversion reads them."""
        if self.routed_architectures is not None:
            return list(self.routed_architectures)
        return list(getattr(self.cfg, "architectures", None) or [])

    # -- MLA -------------------------------------------------------------
    def is_deepseek_mla(self) -> bool:
        """M1–M6 (is_deepseek_mla)."""
        text, release = self.text, self.release
        if not hasattr(text, "model_type"):
            return False
        mt = text.model_type
        if mt in vllm_facts.active(vllm_facts.MLA_MODEL_TYPES, release):
            if release.within("0.20.0"):
                if release.within("0.33.0"):
                    if _compress_ratios(text):
                        return getattr(text, "head_dim", None) is not None
                elif hasattr(text, "compress_ratios"):
                    return getattr(text, "head_dim", None) is not None
            if release.within("0.19.0"):
                return getattr(text, "kv_lora_rank", None) is not None
            return text.kv_lora_rank is not None
        if mt == "eagle":
            inner = text.model.model_type in vllm_facts.active(vllm_facts.MLA_EAGLE_INNER_TYPES, release)
            if release.within("0.19.0"):
                return inner and getattr(text, "kv_lora_rank", None) is not None
            return inner and text.kv_lora_rank is not None
        return False

    def use_mla(self, is_mla: bool) -> bool:
        """``ModelConfig.use_mla`` (a property: evaluated when first read)."""
        if self.release.within("0.28.0"):
            if mla_disabled(self.env):
                return False
            if self.release.within("0.29.0") and not getattr(self.text, "is_causal", True):
                return False
            return is_mla
        return is_mla and not mla_disabled(self.env)

    # -- heads -----------------------------------------------------------
    def total_num_attention_heads(self) -> Any:
        if self.kind == "cohere_asr":
            return self.text.transf_decoder["config_dict"]["num_attention_heads"]
        if self.kind == "moss_audio":
            return getattr(self.cfg.language_config, "num_attention_heads", 0)
        return getattr(self.text, "num_attention_heads", 0)

    def total_num_kv_heads(self) -> Any:
        release, text, cfg = self.release, self.text, self.cfg
        attrs = vllm_facts.active(vllm_facts.KV_HEAD_ATTRIBUTES, release)
        if not release.within("0.14.0"):
            return self._kv_heads_inline(attrs)
        kind = self.kind
        if kind == "falcon":
            if not getattr(text, "new_decoder_architecture", False) and getattr(text, "multi_query", False):
                return 1
        elif kind == "mpt":
            if "kv_n_heads" in text.attn_config:
                return text.attn_config["kv_n_heads"]
            return text.num_attention_heads
        elif kind == "dbrx":
            return getattr(text.attn_config, "kv_n_heads", text.num_attention_heads)
        elif kind == "nemotron_nas":
            return self._nemotron_nas(text)
        elif kind == "zero_kv":
            return 0
        elif kind == "cohere_asr":
            enc = text.encoder["n_heads"]
            dec = text.transf_decoder["config_dict"]["num_attention_heads"]
            if not enc == dec:
                raise AssertionError("Encoder and decoder must have the same number of kv heads")
            return enc
        elif kind == "moss_audio":
            lang = cfg.language_config
            return getattr(lang, "num_key_value_heads", getattr(lang, "num_attention_heads", 0))
        if release.within("0.18.0"):
            return _getattr_iter(text, attrs, default_factory=lambda: getattr(text, "num_attention_heads", 0))
        return _getattr_iter(text, attrs, default_factory=lambda: text.num_attention_heads)

    def _nemotron_nas(self, source: Any) -> Any:
        for block in source.block_configs:
            if not block.attention.no_op:
                return source.num_attention_heads // block.attention.n_heads_in_group
        arch = list(getattr(self.cfg, "architectures", None) or [])
        if self.release.within("0.14.0"):
            raise RuntimeError(
                "Could not determine the number of key-value attention heads from model "
                f"configuration. Architecture: {arch}. This usually indicates an unsupported "
                "model architecture or missing configuration. Please check if your model is "
                "supported at: https://docs.vllm.ai/en/latest/models/supported_models.html"
            )
        raise Undecidable("nemotron-nas config without an attention block (vLLM < 0.14 error text not modelled)")

    def _kv_heads_inline(self, attrs) -> Any:
        """KVH1 (0.10.2–0.13.0), inline in ModelConfig."""
        cfg, text = self.cfg, self.text
        falcon = getattr(cfg, "model_type", None) in vllm_facts.FALCON_MODEL_TYPES and getattr(
            cfg, "new_decoder_architecture", False)
        if not falcon and getattr(text, "multi_query", False):
            return 1
        mt = getattr(cfg, "model_type", None)
        if mt == "mpt":
            if "kv_n_heads" in cfg.attn_config:
                return cfg.attn_config["kv_n_heads"]
            return cfg.num_attention_heads
        if mt == "dbrx":
            return getattr(cfg.attn_config, "kv_n_heads", cfg.num_attention_heads)
        if mt == "nemotron-nas":
            return self._nemotron_nas(cfg)
        if self.attention_free():
            return 0
        for attr in attrs:
            value = getattr(text, attr, None)
            if value is not None:
                return value
        return text.num_attention_heads

    def attention_free(self) -> bool:
        """``ModelConfig.is_attention_free`` (0.10.2–0.13.0): the architecture's registry flag."""
        from ..archs import arch_flag

        return bool(arch_flag(getattr(self.cfg, "architectures", None) or [], "is_attention_free", self.release))

    # -- sizes -------------------------------------------------------------
    def hidden_size(self) -> Any:
        if self.kind == "moss_audio":
            return getattr(self.cfg.language_config, "hidden_size", 0)
        if self.kind == "gemma4_mtp":
            return getattr(self.cfg, "backbone_hidden_size", getattr(self.text, "hidden_size", 0))
        return getattr(self.text, "hidden_size", 0)

    def head_size(self, is_mla: bool) -> Any:
        """HS1–HS10 (get_head_size)."""
        release, text = self.release, self.text
        kind = self.kind
        if kind == "zero_kv":
            return 0
        if kind == "zamba2":
            return getattr(text, "attention_head_dim", 0)
        if kind == "cohere_asr":
            dec = text.transf_decoder["config_dict"]
            return dec["hidden_size"] // dec["num_attention_heads"]
        if kind == "moss_audio":
            lang = self.cfg.language_config
            head_dim = getattr(lang, "head_dim", None)
            if head_dim is not None:
                return head_dim
            heads = getattr(lang, "num_attention_heads", 0)
            if heads == 0:
                return 0
            return getattr(lang, "hidden_size", 0) // heads
        if not release.within("0.14.0"):
            return self._head_size_inline(is_mla)
        if is_mla:
            if release.within("0.33.0"):
                if _compress_ratios(text):
                    return text.head_dim
            elif release.within("0.20.0") and hasattr(text, "compress_ratios"):
                return text.head_dim
            rope = self._qk_rope_head_dim()
            if not mla_disabled(self.env):
                return text.kv_lora_rank + rope
            nope = getattr(text, "qk_nope_head_dim", 0)
            if rope and nope:
                return rope + nope
        if kind == "gemma4" and release.within("0.19.0", "0.27.1"):
            value = max(getattr(text, "head_dim", 0), getattr(text, "global_head_dim", 0))
            if value:
                return value
        head_dim = getattr(text, "head_dim", None)
        if release.within("0.25.0"):
            if head_dim is not None and head_dim > 0:
                return head_dim
        elif head_dim is not None:
            return head_dim
        if getattr(text, "hidden_size_per_head", None) is not None:
            return text.hidden_size_per_head
        if release.within("0.18.0"):
            heads = self.total_num_attention_heads()
            if heads == 0:
                return 0
            return self.hidden_size() // heads
        return text.hidden_size // text.num_attention_heads

    def _qk_rope_head_dim(self) -> Any:
        """HS6 (0.23.0+): the transformers-5.4 attribute_map bug workaround reads raw config.json."""
        text = self.text
        rope = getattr(text, "qk_rope_head_dim", 0)
        if not self.release.within("0.23.0"):
            return rope
        nope = getattr(text, "qk_nope_head_dim", 0)
        if rope == 0 or rope != nope:
            return rope
        raw = getattr(self.cfg, "kvg_raw", None) or {}
        if raw and "qk_rope_head_dim" in raw and raw["qk_rope_head_dim"] != rope:
            return raw["qk_rope_head_dim"]
        return rope

    def _head_size_inline(self, is_mla: bool) -> Any:
        """HS1 (0.10.2–0.13.0)."""
        text = self.text
        if is_mla:
            rope = getattr(text, "qk_rope_head_dim", 0)
            if self.use_mla(is_mla):
                return text.kv_lora_rank + rope
            nope = getattr(text, "qk_nope_head_dim", 0)
            if rope and nope:
                return rope + nope
        if hasattr(text, "model_type") and text.model_type == "zamba2":
            return text.attention_head_dim
        if self.attention_free():
            return 0
        if getattr(text, "head_dim", None) is not None:
            return text.head_dim
        if getattr(text, "hidden_size_per_head", None) is not None:
            return text.hidden_size_per_head
        return text.hidden_size // text.num_attention_heads

    def num_hidden_layers(self) -> Any:
        """NL1–NL4."""
        release, text, cfg = self.release, self.text, self.cfg
        if not release.within("0.14.0"):
            tmt = getattr(text, "model_type", None)
            mt = getattr(cfg, "model_type", None)
            if tmt == "deepseek_mtp" or mt in vllm_facts.active(vllm_facts.OLD_NEXTN_LAYER_TYPES, release):
                return getattr(text, "num_nextn_predict_layers", 0)
            if mt == "longcat_flash_mtp" and release.within("0.11.0"):
                return getattr(text, "num_nextn_predict_layers", 1)
            return getattr(text, "num_hidden_layers", 0)
        kind = self.kind or ""
        if kind.startswith("layers:"):
            _, attr, default = kind.split(":")
            if default == "":
                return getattr(text, attr)
            return getattr(text, attr, int(default))
        if kind == "mimo_v2_mtp":
            n = getattr(text, "num_nextn_predict_layers", None)
            if n is not None:
                return n
            n = getattr(text, "n_predict", None)
            return n if n is not None else 0
        if kind == "qwen4_exp_mtp":
            return getattr(text, "mtp_num_hidden_layers", getattr(text, "num_nextn_predict_layers", 0))
        if kind == "moss_audio":
            return getattr(cfg.language_config, "num_hidden_layers", 0)
        return getattr(text, "num_hidden_layers", 0)

    def num_experts(self) -> Any:
        """get_num_experts: 0.10.2–0.11.0 inline loop (``> 0`` stops it), 0.11.1–0.13.0
        ``getattr_iter(...) or 0``, 0.14.0+ the convertor (falls back to block_configs)."""
        text = self.text
        if not self.release.within("0.11.1"):
            value = 0
            for name in vllm_facts.OLD_EXPERT_ATTRIBUTES:
                value = getattr(text, name, 0)
                if value > 0:
                    break
            return value
        value = _getattr_iter(text, vllm_facts.EXPERT_ATTRIBUTES, 0)
        if isinstance(value, list):
            return value[0]
        if not self.release.within("0.14.0"):
            return value or 0
        if not value:
            value = 0
            blocks = getattr(text, "block_configs", None)
            if blocks:
                for block in blocks:
                    if isinstance(block, dict):
                        if block.get("block_type", "") == "moe":
                            value = max(value, block.get("n_routed_experts", 0))
                    elif getattr(block, "block_type", "") == "moe":
                        value = max(value, getattr(block, "n_routed_experts", 0))
        return value

    def num_experts_per_token(self) -> Any:
        value = _getattr_iter(self.text, vllm_facts.EXPERTS_PER_TOKEN_ATTRIBUTES, 0)
        if isinstance(value, list):
            return max(value, default=0)
        return value or 0

    def vocab_size(self) -> Any:
        if self.kind == "moss_audio":
            return getattr(self.cfg.language_config, "vocab_size", 0)
        return getattr(self.text, "vocab_size", 0)

    def max_model_len_and_key(self) -> tuple[Any, Any]:
        derived = float("inf")
        key = None
        text = self.text
        if self.kind == "moss_audio":
            mpe = getattr(self.cfg.language_config, "max_position_embeddings", None)
            if mpe is not None:
                return mpe, "language_config.max_position_embeddings"
        for name in vllm_facts.MAX_LEN_KEYS:
            value = getattr(text, name, None)
            if value is not None:
                if value < derived:
                    key = name
                derived = min(derived, value)
        tmp = getattr(text, "model_max_length", None)
        if tmp:
            key, derived = "model_max_length", tmp
        return derived, key


def _compress_ratios(c: Any) -> Any:
    """``get_compress_ratios`` (0.33.0)."""
    if getattr(c, "compress_ratios", None) is not None:
        return c.compress_ratios
    if getattr(c, "compress_rates", None) is not None:
        return [c.compress_rates.get(t, 0) for t in c.layer_types] + [0] * c.num_nextn_predict_layers
    return []


def _gemma4_per_layer(deriver: _Deriver, head_size: Any, kv_heads: Any) -> tuple[Any, Any]:
    """Gemma4 per-layer resolution (0.28.0–0.31.0): whole-model value = max over layers."""
    text = deriver.text
    layer_types = getattr(text, "layer_types", None)
    if getattr(text, "is_heterogeneous", False) or not layer_types:
        return head_size, kv_heads
    n = deriver.num_hidden_layers()
    best_hs, best_kv = None, None
    for i in range(n):
        hs, kv = head_size, kv_heads
        if layer_types[i] == "full_attention":
            hs = getattr(text, "global_head_dim", None) or getattr(text, "head_dim", None)
            if hs is None or hs <= 0:
                hs = head_size
            if getattr(text, "attention_k_eq_v", False):
                kv = getattr(text, "num_global_key_value_heads", None) or getattr(text, "num_key_value_heads", None)
        best_hs = hs if best_hs is None else max(best_hs, hs)
        best_kv = kv if best_kv is None else max(best_kv, kv)
    if best_hs is None:
        return head_size, kv_heads
    return best_hs, best_kv


# ---------------------------------------------------------------------------
# ModelArchitectureConfig (0.14.0+): a pydantic dataclass; its field types coerce
# and validate every fact ("8" -> 8, None -> int_type error) inside
# ModelConfig.__post_init__, which re-raises the entries as its own error.

_ARCH_FIELDS_014 = (
    ("architectures", "list[str]"), ("model_type", "str"), ("text_model_type", "str | None"),
    ("hidden_size", "int"), ("total_num_hidden_layers", "int"), ("total_num_attention_heads", "int"),
    ("head_size", "int"), ("vocab_size", "int"), ("total_num_kv_heads", "int"), ("num_experts", "int"),
)
_ARCH_FIELDS_TAIL = (
    ("quantization_config", "dict[str, Any] | None"), ("is_deepseek_mla", "bool"),
    ("is_mm_prefix_lm", "bool"),
)


def _arch_fields(release: Release) -> tuple[tuple[str, str], ...]:
    fields: tuple[tuple[str, str], ...] = _ARCH_FIELDS_014
    if release.within("0.28.0"):
        fields += (("num_experts_per_token", "int"),)
    fields += _ARCH_FIELDS_TAIL
    if release.within("0.28.0"):
        fields += (("rswa_window", "int | None"),)
    return fields + (("derived_max_model_len_and_key", "tuple[float, str | None]"),)


_ADAPTERS: dict[tuple, Any] = {}


def _arch_adapter(fields: tuple[tuple[str, str], ...]):
    adapter = _ADAPTERS.get(fields)
    if adapter is None:
        from typing import Any as _Any  # noqa: F401  (used by the annotations below)

        import pydantic

        ns: dict[str, Any] = {"Any": _Any}
        annotations = {name: eval(tp, ns) for name, tp in fields}  # noqa: S307 - fixed strings above
        cls = type("ModelArchitectureConfig", (), {"__annotations__": annotations})
        cls = pydantic.dataclasses.dataclass(config=pydantic.ConfigDict(arbitrary_types_allowed=True))(cls)
        adapter = cls
        _ADAPTERS[fields] = adapter
    return adapter


#: field type -> whether a value already is what pydantic's (lax) validation returns, so that
#: validating it can neither fail nor change it
_EXACT: dict[str, Any] = {
    "list[str]": lambda v: type(v) is list and all(type(x) is str for x in v),
    "str": lambda v: type(v) is str,
    "str | None": lambda v: v is None or type(v) is str,
    "int": lambda v: type(v) is int,
    "int | None": lambda v: v is None or type(v) is int,
    "bool": lambda v: type(v) is bool,
    "dict[str, Any] | None": lambda v: v is None or (type(v) is dict and all(type(k) is str for k in v)),
    "tuple[float, str | None]": lambda v: (type(v) is tuple and len(v) == 2
                                           and (type(v[0]) is float or (type(v[0]) is int and abs(v[0]) < 2**53))
                                           and (v[1] is None or type(v[1]) is str)),
}


def _validate_arch(values: dict[str, Any], release: Release) -> dict[str, Any]:
    fields = _arch_fields(release)
    if len(values) == len(fields) and all(name in values and _EXACT[tp](values[name]) for name, tp in fields):
        # what pydantic would return, without importing it (lax mode turns the int length into a float)
        out = {name: values[name] for name, _ in fields}
        length, key = out["derived_max_model_len_and_key"]
        out["derived_max_model_len_and_key"] = (float(length), key)
        return out
    import pydantic

    cls = _arch_adapter(fields)
    try:
        obj = cls(**values)
    except pydantic.ValidationError as exc:
        entries = tuple(ErrorEntry(e["type"], tuple(str(p) for p in e["loc"]), e["msg"], e.get("input"), e.get("ctx")) for e in exc.errors())
        raise _Raise(Crash("ValidationError", entries[0].msg, "ModelConfig", entries)) from None
    return {name: getattr(obj, name) for name, _ in _arch_fields(release)}


# ---------------------------------------------------------------------------


def derive(raw: Mapping[str, Any], release: Release, env: Mapping[str, str], *,
           trust_remote_code: bool = False, model_path: Optional[str] = None,
           hf_overrides: Optional[Any] = None) -> "ModelFacts | Crash":
    """Facts of ``raw`` under ``release``, or the :class:`Crash` vLLM hits building ModelConfig.

    ``trust_remote_code`` is vLLM's ``--trust-remote-code`` (default off, as in
    vLLM): without it a model type that needs repository code is refused, as
    vLLM refuses it; with it kvguard cannot run that code (Undecidable).
    ``hf_overrides``: ModelConfig's callable ``hf_overrides`` (applied to the loaded config object
    before anything reads it; the speculative draft's config override, kvguard.speculative.draft).
    Raises :class:`~kvguard.Undecidable` for inputs kvguard does not model.
    """
    from ..archs import arch_flag
    from . import loader

    try:
        cfg = loader.load_config(raw, release, path=model_path, trust_remote_code=trust_remote_code)
        if hf_overrides is not None:
            cfg = hf_overrides(cfg)
    except loader.LoadCrash as exc:
        return _modelled(Crash(exc.exc_type, exc.message, exc.wrapped_by))
    except Undecidable as exc:
        crash = getattr(exc, "load_crash", None)
        if crash is not None and not trust_remote_code:
            return _modelled(Crash(crash.exc_type, crash.message, crash.wrapped_by))
        raise
    except KVGUARD_FAILURES as exc:
        raise InternalError.of(exc) from exc
    try:
        text = getattr(cfg, "kvg_text_config", None)    # a draft's, kept when its hf_config was swapped
        if text is None:
            text = loader.hf_text_config(cfg, release)
    except loader.LoadCrash as exc:
        return _modelled(Crash(exc.exc_type, exc.message, exc.wrapped_by))
    except KVGUARD_FAILURES as exc:
        raise InternalError.of(exc) from exc
    deriver = _Deriver(cfg, text, release, env)
    raw_archs = getattr(cfg, "architectures", None)
    if raw_archs is not None and (not isinstance(raw_archs, (list, tuple))
                                  or not all(isinstance(a, str) for a in raw_archs)):
        # vLLM's answer depends on where the odd value first meets a list operation or
        # ModelArchitectureConfig's list[str] field; kvguard does not model that
        raise Undecidable(f"config.json 'architectures' is {raw_archs!r:.80}, not a list of names: what vLLM "
                          f"{release.version} does with that is not modelled")
    assumed: list[str] = list(getattr(cfg, "kvg_assumptions", ()) or ())
    try:
        routing_assumption = _catch(deriver.route_architectures, model_path)
    except _Raise as exc:
        return _as_model_config_raises(exc.crash)
    if routing_assumption is not None:
        assumed.append(routing_assumption)
    architectures = tuple(deriver.architectures())
    looked_up = getattr(cfg, "kvg_registry_architectures", None)    # a draft renamed after the lookup
    registry_crash = _registry_crash(architectures if looked_up is None else tuple(looked_up), cfg, release)
    if registry_crash is not None and not release.within(vllm_facts.ARCH_CONFIG_SINCE):
        return registry_crash
    notes: list[str] = []
    emulation = getattr(cfg, "kvg_emulation", "generic")
    deferred: dict[str, Crash] = {}
    layer_overrides: tuple[dict[str, Any], ...] = ()
    if release.within("0.14.0"):
        try:
            per_layer = (_catch(_per_layer_configs, deriver)
                         if release.within(vllm_facts.PER_LAYER_CONVERSION_SINCE) else None)
            if per_layer is None:
                values = _validate_arch(_catch(_convert, deriver), release)
            else:
                values, overrides = _catch(_convert_layers, deriver, per_layer)
                notes.extend(_per_layer_notes(overrides, len(per_layer)))
                layer_overrides = tuple(overrides or ())
            if getattr(text, "is_heterogeneous", False):
                # the whole-config reads of ModelConfig.__post_init__ (0.24.0-0.33.0) that can meet an
                # attribute that varies per layer: attention_chunk_size right after the conversion, and
                # get_sliding_window() after the dtype is verified (surfaced there: the mc_max_len step)
                _catch(getattr, text, "attention_chunk_size", None)
                try:
                    _catch(getattr, text, "sliding_window", None)
                except _Raise as exc:
                    deferred[SLIDING_WINDOW_READ] = _as_model_config_raises(exc.crash)
        except _Raise as exc:
            return _as_model_config_raises(exc.crash)
        if registry_crash is not None:
            return registry_crash
        is_mla = values["is_deepseek_mla"]
        heads = values["total_num_attention_heads"]
        kv_heads = values["total_num_kv_heads"]
        head_size = values["head_size"]
        layers = values["total_num_hidden_layers"]
        experts = values["num_experts"]
        hidden = values["hidden_size"]
    else:
        # 0.10.2–0.13.0: computed on demand; a failing read surfaces where it is made
        def lazy(name, fn, *args):
            try:
                return _catch(fn, *args)
            except _Raise as exc:
                deferred[name] = exc.crash
                return None

        is_mla = lazy("is_deepseek_mla", deriver.is_deepseek_mla)
        if is_mla is None and "is_deepseek_mla" in deferred:
            return deferred["is_deepseek_mla"]
        heads = lazy("total_num_attention_heads", deriver.total_num_attention_heads)
        kv_heads = lazy("total_num_kv_heads", deriver.total_num_kv_heads)
        head_size = lazy("head_size", deriver.head_size, is_mla)
        layers = lazy("num_hidden_layers", deriver.num_hidden_layers)
        experts = lazy("num_experts", deriver.num_experts)
        hidden = getattr(text, "hidden_size", None)
    try:
        use_mla = _catch(deriver.use_mla, is_mla)
    except _Raise as exc:
        deferred["use_mla"] = exc.crash
        use_mla = None
    supports_pp = arch_flag(architectures, "supports_pp", release)
    resolved = _snapshot(text, RESOLVED_ATTRIBUTES) | _layer_sizes(text)
    unset_crash = _sliding_window_unset(text)
    if unset_crash is not None:
        deferred[SLIDING_WINDOW_UNSET] = unset_crash
    if emulation != "exact":
        notes.append(f"model type {deriver.model_type!r}: its transformers {release.transformers} / vLLM config class "
                     "is emulated but not verified against the real class at scale")
    return ModelFacts(
        vllm_version=release.key,
        model_type=deriver.model_type,
        text_model_type=getattr(text, "model_type", None),
        architectures=architectures,
        use_mla=use_mla,
        is_deepseek_mla=bool(is_mla),
        total_num_kv_heads=kv_heads,
        total_num_attention_heads=heads,
        head_size=head_size,
        num_hidden_layers=layers,
        num_experts=experts,
        hidden_size=hidden,
        kv_lora_rank=getattr(text, "kv_lora_rank", None),
        qk_rope_head_dim=getattr(text, "qk_rope_head_dim", None),
        supports_pp=supports_pp,
        transformers=release.transformers,
        emulation=emulation,
        notes=tuple(notes),
        assumptions=tuple(assumed),
        resolved=resolved,
        resolved_top=_routed_snapshot(cfg, deriver),
        deferred=deferred,
        layer_overrides=layer_overrides,
        **_weights_dtype(raw, cfg, model_path, release),
    )


def _weights_dtype(raw: Mapping[str, Any], cfg: Any, model_path: Optional[str], release: Release) -> dict[str, Any]:
    """ModelFacts' ``weights_dtype`` / ``weights_dtype_unknown`` when the release's dtype read finds no dtype in the
    config objects (the top-level config, ``get_text_config()``, ``vision_config``, ``encoder_config``)."""
    from ..launch.load import WEIGHTS_DTYPES

    try:
        holders = [cfg, cfg.get_text_config()]
    except Exception:  # noqa: BLE001 - a config whose text config does not resolve: the read stays open
        return {"weights_dtype_unknown": "the config's text config for its dtype does not resolve: not modelled"}
    holders += [getattr(cfg, name) for name in ("vision_config", "encoder_config") if hasattr(cfg, name)]
    if any(getattr(obj, "dtype", None) is not None or getattr(obj, "torch_dtype", None) is not None
           for obj in holders):
        return {}
    from .weights_dtype import weights_dtype

    dtype, why = weights_dtype(raw.get(WEIGHTS_DTYPES), model_path, release)
    return {"weights_dtype": dtype, "weights_dtype_unknown": why}


def _as_model_config_raises(crash: Crash) -> Crash:
    """A statement of ModelConfig.__post_init__ that raised: pydantic wraps a ValueError or an
    AssertionError in ModelConfig's ValidationError; other exceptions pass through raw."""
    if crash.wrapped_by is None and crash.exc_type in ("ValueError", "AssertionError"):
        return Crash(crash.exc_type, crash.message, "ModelConfig")
    return crash


def _layer_sizes(text: Any) -> dict[str, Any]:
    """A heterogeneous text config's per-layer attention sizes (``per_layer_config[i].head_dim`` /
    ``.num_key_value_heads``, what Gemma 4's decoder layers read on 0.28.0+) as ``layer_head_dim`` /
    ``layer_num_key_value_heads``: the model-construction data indexes them by layer (kvguard.quant.expr)."""
    if not getattr(text, "is_heterogeneous", False):
        return {}
    try:
        layers = list(text.per_layer_config)
    except Exception:  # noqa: BLE001 - no per-layer list to read: the family's expressions then fail (unmodelled)
        return {}
    out: dict[str, Any] = {}
    for key, attr in (("layer_head_dim", "head_dim"), ("layer_num_key_value_heads", "num_key_value_heads")):
        values = [_plain_value(getattr(layer, attr, None)) for layer in layers]
        if not any(v is _UNKEPT for v in values):
            out[key] = values
    return out


#: the multimodal towers whose sizes decide whether Gemma 4's wrapper hands them the quantization config
#: (gemma4_mm.py: hidden and intermediate sizes multiples of 64); kept as ``{tower: [hidden, intermediate]}``
_TOWERS = ("vision_config", "audio_config")
#: the vision config's attributes Llama 4's vision model and projector read (kvguard.quant.llama4.TOWER_SIZES)
_LLAMA4_TOWER = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers", "num_channels",
                 "patch_size", "projector_input_dim", "projector_output_dim", "vision_output_dim")
#: the model types whose vision config is Qwen3-VL's (Qwen3.5's wrappers build the same tower), and the attributes
#: its vision transformer reads
_QWEN3_VL_TYPES = ("qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe")
_QWEN3_VL_TOWER = ("hidden_size", "num_heads", "intermediate_size", "depth", "out_hidden_size", "spatial_merge_size",
                   "deepstack_visual_indexes")

#: the attributes Qwen2-VL's and Qwen2.5-VL's vision transformers read (the union of the two configs')
_QWEN2_VL_TOWER = ("hidden_size", "num_heads", "intermediate_size", "depth", "out_hidden_size", "spatial_merge_size",
                   "hidden_act", "embed_dim", "mlp_ratio")

#: the attributes the first block of ERNIE-4.5-VL's vision transformer reads (ernie45_vl.py; kvguard.quant.ernie45_vl)
_ERNIE45_VL_TOWER = ("depth", "embed_dim", "num_heads")

#: the attributes the SigLIP vision tower of Gemma 3's wrapper reads (siglip.py)
_SIGLIP_TOWER = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers", "hidden_act",
                 "vision_use_head")


def _routed_snapshot(cfg: Any, deriver: _Deriver) -> dict[str, Any]:
    snapshot = _snapshot(cfg, RESOLVED_TOP_ATTRIBUTES)
    if getattr(cfg, "model_type", None) in ("gemma4", "gemma4_text"):
        snapshot["towers"] = {name: [_plain_value(getattr(tower, "hidden_size", None)),
                                     _plain_value(getattr(tower, "intermediate_size", None))]
                              for name in _TOWERS if (tower := getattr(cfg, name, None)) is not None}
    if getattr(cfg, "model_type", None) == "llama4" and (tower := getattr(cfg, "vision_config", None)) is not None:
        # Llama 4's vision model and projector sizes (kvguard.quant.llama4: built unquantized, before the language
        # model)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None)) for name in _LLAMA4_TOWER}
    if getattr(cfg, "model_type", None) in ("kimi_k25", "kimi_k3") and (
            tower := getattr(cfg, "vision_config", None)) is not None:
        # the MoonViT tower's sizes, as the config class names them (kvguard.quant.kimi_k25: its sharding; Kimi-K3's
        # wrapper builds the same tower, kvguard.quant.kimi_k3)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None))
                                    for name in ("num_attention_heads", "intermediate_size", "hidden_size",
                                                 "qkv_hidden_size")}
    if getattr(cfg, "model_type", None) in _QWEN3_VL_TYPES and (tower := getattr(cfg, "vision_config", None)) is not None:
        # the Qwen3-VL vision transformer's sizes (kvguard.quant.qwen3_vl: its layers, built before the language model)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None)) for name in _QWEN3_VL_TOWER}
    if getattr(cfg, "model_type", None) in ("qwen2_vl", "qwen2_5_vl") and (
            tower := getattr(cfg, "vision_config", None)) is not None:
        # Qwen2-VL's / Qwen2.5-VL's vision transformer (kvguard.quant.qwen2_vl: its layers, built before the language
        # model; Qwen2-VL's config names its width embed_dim and its output hidden_size)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None)) for name in _QWEN2_VL_TOWER}
    if getattr(cfg, "model_type", None) == "gemma3" and (tower := getattr(cfg, "vision_config", None)) is not None:
        # Gemma 3's SigLIP vision tower (kvguard.quant.gemma3_mm: its layers, built before the language model)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None)) for name in _SIGLIP_TOWER}
    if getattr(cfg, "model_type", None) == "ernie4_5_moe_vl" and (tower := getattr(cfg, "vision_config", None)) is not None:
        # ERNIE-4.5-VL's vision transformer (kvguard.quant.ernie45_vl: its first block's head split); read as a plain
        # configuration (kvguard does not run the repository's class) the vision config stays the JSON object
        snapshot["vision_tower"] = {name: _plain_value(tower.get(name) if isinstance(tower, dict)
                                                       else getattr(tower, name, None))
                                    for name in _ERNIE45_VL_TOWER}
    if getattr(cfg, "model_type", None) in ("internvl", "interns1") and (
            tower := getattr(cfg, "vision_config", None)) is not None:
        # the InternViT tower's sizes and the language model's class (kvguard.quant.interns1: the tower's layers,
        # built before the language model the wrapper builds from text_config.architectures[0])
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None))
                                    for name in ("hidden_size", "num_attention_heads", "intermediate_size",
                                                 "num_hidden_layers")}
        text_architectures = getattr(getattr(cfg, "text_config", None), "architectures", None)
        snapshot["text_architectures"] = list(text_architectures) if isinstance(text_architectures, (list, tuple)) \
            else None
    if getattr(cfg, "model_type", None) == "glm4v_moe" and (tower := getattr(cfg, "vision_config", None)) is not None:
        # GLM-4.5V's vision transformer (kvguard.quant.glm4v: its layers, built before the language model)
        snapshot["vision_tower"] = {name: _plain_value(getattr(tower, name, None))
                                    for name in ("hidden_size", "num_heads", "intermediate_size", "depth",
                                                 "out_hidden_size")}
    if deriver.routed_architectures is not None:
        snapshot["architectures"] = list(deriver.routed_architectures)
    # ModelConfig reads the quantization config of ``hf_config.text_config`` when the top level has none (every
    # release: "Check the text config as well for multi-modal models"): kept only where that sub-config holds one
    # (kvguard.quant.verify.checkpoint_method; Kimi-K2.5 in 0.29.0+, whose top-level config no longer copies it)
    text_config = getattr(cfg, "text_config", None)
    if text_config is not None and text_config is not cfg:
        quant = _snapshot(text_config, ("quantization_config", "compression_config"))
        if quant:
            snapshot["text_config"] = quant
    return snapshot


def _checkpoint_has_file(model_path: Optional[str], filename: str) -> Optional[bool]:
    """Whether the checkpoint directory has ``filename``, as vLLM's ``file_or_path_exists`` answers for a
    local checkpoint; None when kvguard cannot see the checkpoint (no path, or a Hub id vLLM would ask the
    Hub or its cache about)."""
    import os

    if not model_path or not os.path.exists(model_path):
        return None
    return os.path.isfile(os.path.join(model_path, filename))


def _registry_crash(architectures: tuple, cfg: Any, release: Release) -> "Crash | None":
    """What the model registry raises in ModelConfig.__post_init__ before any layout is seen:
    no architecture at all, or none it holds (kvguard.archs.registry_refusal)."""
    from ..archs import registry_refusal

    if not architectures:
        return Crash("ValueError", vllm_facts.NO_ARCHITECTURES, "ModelConfig")
    message = registry_refusal(list(architectures), release, auto_map=bool(getattr(cfg, "auto_map", None)))
    return Crash("ValueError", message, "ModelConfig") if message else None


def _convert(deriver: _Deriver, *, one_layer: bool = False) -> dict[str, Any]:
    """``ModelArchConfigConvertorBase.convert`` field by field, in its order (``one_layer``: ``convert_layer``
    on one layer's configs, which resolves nothing per layer)."""
    release = deriver.release
    values: dict[str, Any] = {
        "architectures": deriver.architectures(),
        "model_type": deriver.cfg.model_type,
        "text_model_type": getattr(deriver.text, "model_type", None),
        "hidden_size": deriver.hidden_size(),
        "total_num_hidden_layers": deriver.num_hidden_layers(),
        "total_num_attention_heads": deriver.total_num_attention_heads(),
    }
    is_mla = deriver.is_deepseek_mla()
    head_size = deriver.head_size(is_mla)
    values["head_size"] = head_size
    values["vocab_size"] = deriver.vocab_size()
    kv_heads = deriver.total_num_kv_heads()
    if deriver.kind == "gemma4" and release.within("0.28.0", "0.31.0") and not one_layer:
        head_size, kv_heads = _gemma4_per_layer(deriver, head_size, kv_heads)
        values["head_size"] = head_size
    values["total_num_kv_heads"] = kv_heads
    values["num_experts"] = deriver.num_experts()
    if release.within("0.28.0"):
        values["num_experts_per_token"] = deriver.num_experts_per_token()
    values["quantization_config"] = None  # not read by any launch check
    values["is_deepseek_mla"] = is_mla
    values["is_mm_prefix_lm"] = False
    if release.within("0.28.0"):
        values["rswa_window"] = None
    values["derived_max_model_len_and_key"] = deriver.max_model_len_and_key()
    return values


#: config attributes read by the ModelArchitectureConfig fields kvguard fills with a constant (no launch
#: check reads those fields): a config that varies one of them per layer would need the real values
_UNMODELLED_PER_LAYER = frozenset({"quantization_config", "use_bidirectional_attention", "rswa_window"})


def _per_layer_configs(deriver: _Deriver) -> Optional[list[tuple[Any, Any]]]:
    """``get_per_layer_hf_configs`` (0.28.0+): ``(hf_config, hf_text_config)`` of each layer, None for a
    homogeneous config.  The heterogeneous text config, else hf_config, decides the number of layers."""
    from . import hetero5

    cfg, text, release = deriver.cfg, deriver.text, deriver.release
    cfg_varies = bool(getattr(cfg, "is_heterogeneous", False))
    text_varies = bool(getattr(text, "is_heterogeneous", False))
    if not (cfg_varies or text_varies):
        return None
    for obj, varies in ((cfg, cfg_varies), (text, text_varies)):
        spec = hetero5.spec_of(obj) if varies else None
        unmodelled = sorted(set(spec.per_layer_attributes) & _UNMODELLED_PER_LAYER) if spec else []
        if unmodelled:
            raise Undecidable(f"a per-layer {', '.join(unmodelled)}: vLLM {release.version} converts each layer's "
                              "value, which kvguard does not model")
    source = text if text_varies else cfg
    pairs = [(cfg.per_layer_config[i] if cfg_varies else cfg, text.per_layer_config[i] if text_varies else text)
             for i in range(len(source.per_layer_config))]
    if deriver.model_type in vllm_facts.active(vllm_facts.PER_LAYER_BY_MTP_TYPE, release):
        layer_types = text.layer_types
        pairs = [pairs[layer_types.index(layer_type)] for layer_type in text.mtp_layer_types or []]
    return pairs


def _convert_layers(deriver: _Deriver, per_layer: list[tuple[Any, Any]]) -> tuple[dict[str, Any], Optional[list]]:
    """``convert`` of a heterogeneous config: each layer converted (and validated) on its own, then merged
    as ``ModelArchitectureConfig.from_layers`` does.  Returns the whole-model values and the per-layer
    overrides (None when no field vLLM reads varies)."""
    release = deriver.release
    if deriver.is_deepseek_mla():
        raise NotImplementedError(vllm_facts.PER_LAYER_MLA_REFUSAL)
    layers = []
    for layer_cfg, layer_text in per_layer:
        layer = _Deriver(layer_cfg, layer_text, release, deriver.env)
        layer.routed_architectures = deriver.routed_architectures
        layers.append(_validate_arch(_convert(layer, one_layer=True), release))
    if not layers:
        raise ValueError(vllm_facts.PER_LAYER_NO_LAYERS)
    merged: dict[str, Any] = {}
    overrides: list[dict[str, Any]] = [{} for _ in layers]
    for name, _ in _arch_fields(release):
        values = [layer[name] for layer in layers]
        if all(value == values[0] for value in values):
            merged[name] = values[0]
            continue
        # bool is an int subclass: a varying flag is refused, not collapsed
        if not all(type(value) in (int, float) for value in values):
            raise ValueError(vllm_facts.PER_LAYER_NOT_NUMERIC.format(
                name=name, values=sorted(set(map(repr, values)))))
        merged[name] = max(values)
        for override, value in zip(overrides, values):
            if value != merged[name]:
                override[name] = value
    if len(layers) != merged["total_num_hidden_layers"]:
        raise ValueError(vllm_facts.PER_LAYER_COUNT.format(count=len(layers),
                                                            layers=merged["total_num_hidden_layers"]))
    return merged, (overrides if any(overrides) else None)


#: the ``deferred`` key of ModelConfig's read of ``hf_text_config.sliding_window`` (get_sliding_window), which
#: raises when a heterogeneous config varies it per layer
SLIDING_WINDOW_READ = "sliding_window"
#: the ``deferred`` key of ModelConfig's ``hf_text_config.sliding_window = None`` (``--disable-sliding-window``, or
#: a window of 0 from 0.19.0), which transformers 5's strict classes refuse where the field is typed ``int``
SLIDING_WINDOW_UNSET = "sliding_window = None"


def _sliding_window_unset(text: Any) -> Optional[Crash]:
    """What assigning None to the text config's ``sliding_window`` raises, or None.  The assignment is tried on
    the object and undone: the loaded config may be shared by other checks of the same checkpoint."""
    attrs = getattr(text, "kvg_attrs", None)
    if not isinstance(attrs, dict):
        return None
    saved = dict(attrs)
    try:
        text.sliding_window = None
    except StrictDataclassError as exc:
        return Crash.of(exc)
    except TypeError as exc:
        # a property setter's own arithmetic on None (ModernBERT's ``sliding_window`` sets
        # ``local_attention = value * 2``): the same Python operation raises the same TypeError in the library
        return Crash.of(exc)
    finally:
        attrs.clear()
        attrs.update(saved)
    return None


def _per_layer_notes(overrides: Optional[list[dict[str, Any]]], count: int) -> list[str]:
    """What the whole-model facts hide of a heterogeneous config (vLLM keeps the largest value)."""
    if not overrides:
        return []
    smaller: dict[str, dict[Any, int]] = {}
    for override in overrides:
        for name, value in override.items():
            smaller.setdefault(name, {}).setdefault(value, 0)
            smaller[name][value] += 1
    parts = []
    for name, by_value in smaller.items():
        parts.append(f"{name} " + ", ".join(f"{value} on {n} of {count} layers" for value, n in by_value.items()))
    return ["per-layer config: vLLM sizes the model by its largest layer; smaller layers have " + "; ".join(parts)]
