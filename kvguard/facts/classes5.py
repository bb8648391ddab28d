"""Derivations of single transformers 5 config classes that fit no step of the vocabulary, in kvguard's own code.

A class whose ``__post_init__`` or validator is a long program of its own (legacy checkpoint formats folded
into the modern fields, per-layer lists padded with MTP layers, …) is recorded by tools/facts_extract.py as a
named behaviour, chosen by the fingerprint of the method's source (tools/facts_transformers5.py
``KNOWN_POST_INITS5`` / ``KNOWN_METHODS5``): a changed method is not recognised and kvguard declines such
configs.  The facts the methods read from their module (layer-type tuples, tables) are measured into the
step's arguments; the class-level defaults are read from the class record as the method reads them.

Mirrors ``transformers/models/deepseek_v4/configuration_deepseek_v4.py`` (``DeepseekV4Config``, 5.20),
``transformers/models/step3p7/configuration_step3p7.py`` (``Step3p7TextConfig``, 5.20) and
``transformers/models/hunyuan_vl/configuration_hunyuan_vl.py`` (``HunYuanVLTextConfig``'s RoPE methods,
5.17-5.24), ``transformers/models/openai_privacy_filter/configuration_openai_privacy_filter.py``
(``OpenAIPrivacyFilterConfig``, 5.17-5.24),
``transformers/models/nemotron_h_omni/configuration_nemotron_h_omni.py`` (``NemotronH_Omni_Reasoning_V3_Config``,
5.19-5.24) with its vision tower's ``transformers/models/radio/configuration_radio.py`` (``RadioConfig``),
``transformers/models/qwen4_exp/configuration_qwen4_exp.py`` (``Qwen4ExpTextConfig.validate_architecture``,
5.19-5.24), ``transformers/models/cosmos3_edge/configuration_cosmos3_edge.py`` (``Cosmos3EdgeTextConfig``, 5.20) and
vLLM's ``vllm/transformers_utils/configs/dory.py`` (``DoryConfig``,
0.33.0: a ``@strict`` class of vLLM's own, read as transformers 5 classes are).
"""

from __future__ import annotations

from ..errors import Undecidable
from .frame import Frame, bounded_count, literal

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["STEPS5"]


def _n(count: Any) -> Any:
    """A layer count used to build a list: kvguard declines counts too large to build."""
    return bounded_count(count) if isinstance(count, int) else count


# -- DeepSeek-V4 -----------------------------------------------------------------------------------

def _deepseek_v4_post_init(f: Frame, a: dict) -> None:
    """Legacy V4 keywords (V3-style names) folded into the modern fields; default layer types (two HCA layers,
    then CSA/HCA alternating), MLP layer types (``hash_moe`` first), partial rotary factor, and the nested
    ``{"main", "compress"}`` RoPE parameters."""
    obj, lib = f.obj, f.lib
    kwargs = f.kwargs()
    legacy_ratios = kwargs.pop("compress_ratios", None)
    legacy_csa = kwargs.pop("compress_rate_csa", None)
    legacy_hca = kwargs.pop("compress_rate_hca", None)
    legacy_hash_layers = kwargs.pop("num_hash_layers", None)
    legacy_qk_rope_head_dim = kwargs.pop("qk_rope_head_dim", None)
    lib.base_post_init(obj, dict(kwargs))  # PreTrainedConfig.__post_init__(self, **kwargs)
    n = obj.num_hidden_layers
    if obj.compress_rates is None:
        obj.compress_rates = dict(obj.default_compress_rates)
    if legacy_csa is not None:
        obj.compress_rates["compressed_sparse_attention"] = legacy_csa
    if legacy_hca is not None:
        obj.compress_rates["heavily_compressed_attention"] = legacy_hca
    if obj.layer_types is None and legacy_ratios is not None:
        table = literal(a["ratio_to_layer_type"])
        obj.layer_types = [table[r] for r in legacy_ratios]
    if obj.layer_types is None:
        interleave = ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
                      for i in range(_n(max(n - 2, 0)))]
        obj.layer_types = ["heavily_compressed_attention"] * min(n, 2) + interleave
    obj.layer_types = list(obj.layer_types[:n])
    if obj.mlp_layer_types is None:
        n_hash = legacy_hash_layers if legacy_hash_layers is not None else obj.default_num_hash_layers
        obj.mlp_layer_types = ["hash_moe"] * min(n, n_hash) + ["moe"] * _n(max(0, n - n_hash))
    obj.mlp_layer_types = list(obj.mlp_layer_types[:n])
    if obj.partial_rotary_factor is None:
        obj.partial_rotary_factor = (legacy_qk_rope_head_dim / obj.head_dim if legacy_qk_rope_head_dim is not None
                                     else obj.default_partial_rotary_factor)
    obj.qk_rope_head_dim = int(obj.head_dim * obj.partial_rotary_factor)
    rp = obj.rope_parameters or {}
    if isinstance(rp.get("main"), dict) and isinstance(rp.get("compress"), dict):
        obj.rope_parameters = {"main": rp["main"], "compress": rp["compress"]}
    else:
        yarn = {k: v for k, v in rp.items() if k not in ("main", "compress")}
        main = {"rope_type": "default", "rope_theta": obj.rope_theta,
                "partial_rotary_factor": obj.partial_rotary_factor}
        compress = {**yarn, "rope_theta": obj.compress_rope_theta, "partial_rotary_factor": obj.partial_rotary_factor}
        compress.setdefault("rope_type", "default")
        if compress["rope_type"] == "yarn":
            compress.setdefault("attention_factor", 1.0)
        obj.rope_parameters = {"main": main, "compress": compress}


def _deepseek_v4_validate_rope(f: Frame, a: dict) -> None:
    """Each of the labelled RoPE parameter sets (``main``, ``compress``) checked by its type's validator, with
    ``rope_parameters`` set to that set while it runs."""
    obj, lib = f.obj, f.lib
    params_dict = getattr(obj, "rope_parameters", None) or {}
    ignore_keys = obj.ignore_keys_at_rope_validation
    for label in obj._rope_type_labels:
        params = params_dict.get(label)
        if not isinstance(params, dict):
            continue
        rope_type = params.get("rope_type", params.get("type", "default"))
        params["rope_type"] = rope_type
        name = f"_validate_{rope_type}_rope_parameters"
        if not lib.has_method(obj, name):
            continue
        obj.rope_parameters = params
        try:
            lib.call(obj, name, params, ignore_keys=ignore_keys)
        finally:
            obj.rope_parameters = params_dict


def _deepseek_v4_validate_layer_type(f: Frame, a: dict) -> None:
    """Attention and MLP layer types: one per layer, each from the class's own allowed tuple."""
    obj = f.obj
    if obj.num_hidden_layers is None:
        return
    checks = (("layer_types", obj.layer_types, literal(a["layer_types"])),
              ("mlp_layer_types", obj.mlp_layer_types, literal(a["mlp_layer_types"])))
    for name, types, allowed in checks:
        if types is None:
            continue
        if len(types) != obj.num_hidden_layers:
            raise ValueError(f"`num_hidden_layers` ({obj.num_hidden_layers}) must equal `len({name})` ({len(types)}).")
        bad = [t for t in types if t not in allowed]
        if bad:
            raise ValueError(f"`{name}` entries must be one of {allowed} for DeepSeek-V4; got {bad}.")


# -- Step 3.5 / 3.7 text ---------------------------------------------------------------------------

def _step3p7_text_post_init(f: Frame, a: dict) -> None:
    """Per-layer lists padded with the MTP layers split off; default layer and MLP layer types (legacy
    ``moe_layers_enum``), sliding-attention heads as per-layer overrides, legacy sparse-attention keys, and
    RoPE parameters per layer type (from a per-layer ``rope_theta`` list)."""
    obj, lib = f.obj, f.lib
    kwargs = f.kwargs()
    mtp = kwargs.pop("num_nextn_predict_layers", 0)
    obj.num_nextn_predict_layers = mtp
    n, padded = obj.num_hidden_layers, obj.num_hidden_layers + mtp
    if mtp:
        for field, mtp_field in (("layer_types", "mtp_layer_types"), ("mlp_layer_types", "mtp_mlp_layer_types")):
            value = getattr(obj, field)
            if isinstance(value, list) and len(value) == padded:
                setattr(obj, field, value[:n])
                setattr(obj, mtp_field, value[n:padded])
        for field in ("swiglu_limits", "swiglu_limits_shared"):
            value = getattr(obj, field)
            if isinstance(value, list) and len(value) == padded:
                setattr(obj, field, value[:n])
        for key in ("rope_theta", "partial_rotary_factors"):
            value = kwargs.get(key)
            if isinstance(value, list) and len(value) == padded:
                kwargs[key] = value[:n]
    if obj.layer_types is None:
        obj.layer_types = ["full_attention"] * _n(n)
        if mtp:
            obj.mtp_layer_types = ["full_attention"] * _n(mtp)
    if obj.mlp_layer_types is None:
        enum = kwargs.pop("moe_layers_enum", None)
        if enum is not None:
            items = enum.split(",") if isinstance(enum, str) else enum
            moe_set = {int(i) for i in items if str(i).strip()}
        else:
            moe_set = set(range(3, _n(n)))
        mlp_layer_types = ["sparse" if i in moe_set else "dense" for i in range(_n(padded))]
        obj.mlp_layer_types = mlp_layer_types[:n]
        if mtp:
            obj.mtp_mlp_layer_types = mlp_layer_types[n:padded]
    if obj.num_sliding_attention_heads is None:
        other = kwargs.pop("attention_other_setting", None)
        if other:
            obj.num_sliding_attention_heads = other.get("num_attention_heads", obj.num_attention_heads)
        else:
            obj.num_sliding_attention_heads = obj.num_attention_heads
    kwargs.setdefault("per_layer_config", {
        layer_idx: {"num_attention_heads": obj.num_sliding_attention_heads}
        for layer_idx, layer_type in enumerate(obj.layer_types) if layer_type == "sliding_attention"})
    if obj.query_pre_attn_scalar is None:
        obj.query_pre_attn_scalar = obj.head_dim
    rope_theta = kwargs.pop("rope_theta", obj.default_theta)
    partial_rotary_factors = kwargs.pop("partial_rotary_factors", None)
    rope_scaling = kwargs.pop("rope_scaling", None)
    sparse_cfg = kwargs.pop("sparse_attention_config", None) or {}
    moe_layer_freq = kwargs.pop("moe_layer_freq", None)
    lib.post_init(obj, f.cls.parent, dict(kwargs))  # super().__post_init__(**kwargs)
    obj.hidden_act = "silu"
    for flat, legacy in literal(a["sparse_keys"]):
        if legacy in sparse_cfg:
            setattr(obj, flat, sparse_cfg[legacy])
    if obj.layer_types is None and "sparse_attention_freq" in sparse_cfg:
        obj.layer_types = ["minimax_m3_sparse" if x else "full_attention" for x in sparse_cfg["sparse_attention_freq"]]
    if obj.layer_types is None:
        obj.layer_types = ["full_attention"] * _n(obj.num_hidden_layers)
    if obj.mlp_layer_types is None and moe_layer_freq is not None:
        obj.mlp_layer_types = ["sparse" if x else "dense" for x in moe_layer_freq]
    if obj.mlp_layer_types is None:
        obj.mlp_layer_types = ["sparse"] * _n(obj.num_hidden_layers)
    layer_type_set = set(obj.layer_types)
    rp = obj.rope_parameters or {}
    if all(isinstance(rp.get(layer_type), dict) for layer_type in layer_type_set):
        obj.rope_parameters = {layer_type: rp[layer_type] for layer_type in layer_type_set}
        return
    if not isinstance(rope_theta, list):
        rope_theta = [rope_theta] * len(obj.layer_types)
    obj.rope_parameters = {}
    try:
        for layer_type in layer_type_set:
            i = obj.layer_types.index(layer_type)
            params = {"rope_type": "default", "rope_theta": rope_theta[i]}
            if partial_rotary_factors:
                params["partial_rotary_factor"] = partial_rotary_factors[i]
            obj.rope_parameters[layer_type] = params
    except Exception as exc:
        if len(layer_type_set) > 1:  # which layer type fails first follows the set's (hash seed's) order
            exc._kvg_hash_order = True  # type: ignore[attr-defined]
        raise
    if rope_scaling and "full_attention" in obj.rope_parameters:
        obj.rope_parameters["full_attention"].update(rope_scaling)


# -- HunYuan-VL ------------------------------------------------------------------------------------

def _dict_or_decline(f: Frame, value: Any) -> dict:
    if not isinstance(value, dict):
        raise Undecidable(f"{f.cls.name}.{f.method}: rope_parameters that are no dict are not modelled")
    return value


def _hunyuan_vl_convert_rope_params(f: Frame, a: dict) -> None:
    """``convert_rope_params_to_dict``: PreTrainedConfig's conversion, then (for non-empty RoPE parameters) the
    legacy ``xdrope_section`` alias folded in by the class's own method, and the rope type (from ``rope_type``,
    else ``type``, else "default") written back with "xdrope" read as "dynamic" (``type`` too, when present)."""
    from .steps import Returned
    kwargs = f.lib.super_call(f, "convert_rope_params_to_dict", (), f.locals.get("kwargs", {}))
    params = getattr(f.obj, "rope_parameters", None)
    if params:
        params = _dict_or_decline(f, params)
        f.lib.call(f.obj, "_normalize_mrope_section_alias", params)
        kind = params["rope_type"] if "rope_type" in params else params.get("type", "default")
        kind = "dynamic" if kind == "xdrope" else kind
        params["rope_type"] = kind
        if "type" in params:
            params["type"] = kind
    raise Returned(kwargs)


def _hunyuan_vl_mrope_section_alias(f: Frame, a: dict) -> None:
    """``_normalize_mrope_section_alias(rope_parameters)``: ``xdrope_section`` is always removed; it becomes
    ``mrope_section`` unless that is given, in which case the two must hold the same numbers (as floats)."""
    params, = f.locals["$args"]
    if not params:
        return
    params = _dict_or_decline(f, params)
    legacy = params.pop("xdrope_section", None)
    if legacy is None:
        return
    current = params.get("mrope_section")
    if current is None:
        params["mrope_section"] = legacy
        return
    legacy_floats = [float(x) for x in legacy]
    if legacy_floats != [float(x) for x in current]:
        raise ValueError("`rope_parameters` contains both `mrope_section` and legacy `xdrope_section`, but they "
                         f"differ: mrope_section={current}, xdrope_section={legacy}.")


def _hunyuan_vl_mrope_section_check(f: Frame, a: dict) -> None:
    """``_validate_mrope_section(rope_parameters, head_dim)``: given sections must be whole numbers (every entry
    goes through float, then int, before the check) summing to ``head_dim // 2``; they are stored back as ints."""
    params, head_dim = f.locals["$args"]
    if not params:
        return
    params = _dict_or_decline(f, params)
    if params.get("mrope_section") is None:
        return
    floats = [float(x) for x in params["mrope_section"]]
    ints = [int(x) for x in floats]
    half = head_dim // 2
    if sum(ints) != half or not all(x.is_integer() for x in floats):
        raise ValueError(f"Illegal mrope partition: expected half-head sections summing to {half}, got {ints}")
    params["mrope_section"] = ints


# -- Dory (vLLM 0.33.0's own strict class) -----------------------------------------------------------

#: Dory's attention block kinds, in the order its default RoPE parameters list them
_DORY_ATTENTION = ("sliding_attention", "full_attention")


def _dory_post_init(f: Frame, a: dict) -> None:
    """Defaults of the recurrent layout: the layer kinds (odd layers MLP-only, among the even ones every eighth
    from the seventh full attention, the rest sliding), default RoPE parameters for each attention kind present,
    and the recurrent layers as what the input and output layers leave.  The parent's ``__post_init__`` follows
    (a step of its own)."""
    obj = f.obj
    if obj.layer_types is None:
        kinds = []
        for i in range(_n(obj.num_hidden_layers)):
            if i % 2:
                kinds.append("mlp")
            else:
                kinds.append("full_attention" if i % 8 == 6 else "sliding_attention")
        obj.layer_types = kinds
    if obj.rope_parameters is None:
        present = [kind for kind in _DORY_ATTENTION if kind in obj.layer_types]
        obj.rope_parameters = {kind: {"rope_type": "default", "partial_rotary_factor": 1.0} for kind in present}
    if obj.n_recurrent_layers is None:
        obj.n_recurrent_layers = obj.num_hidden_layers - obj.n_input_layers - obj.n_output_layers


def _dory_validate_layer_type(f: Frame, a: dict) -> None:
    """Every layer one of the three block kinds, one per layer."""
    obj = f.obj
    kinds = obj.layer_types
    allowed = {"mlp", *_DORY_ATTENTION}
    if kinds is None or any(kind not in allowed for kind in kinds):
        raise ValueError("layer_types must be a list of sliding_attention, full_attention, or mlp")
    if len(kinds) != obj.num_hidden_layers:
        raise ValueError("layer_types must have num_hidden_layers entries")


def _dory_validate_architecture(f: Frame, a: dict) -> None:
    """The layout's partition and the architecture's fixed choices, checked in the class's order (the first
    failing check raises; the comparisons run on whatever the fields hold)."""
    obj = f.obj
    if obj.layer_types is None or obj.n_recurrent_layers is None:
        raise ValueError("Dory layer layout must be initialized")
    parts = (obj.n_input_layers, obj.n_recurrent_layers, obj.n_output_layers)
    if any(part < 0 for part in parts) or sum(parts) != obj.num_hidden_layers:
        raise ValueError("Dory input, recurrent, and output layers must sum to num_hidden_layers")
    if obj.n_recurrent_loops < 1:
        raise ValueError("n_recurrent_loops must be a positive integer")
    if obj.recurrent_kv_cache_mode not in ("per_loop", "last_loop"):
        raise ValueError("recurrent_kv_cache_mode must be per_loop or last_loop")
    if any(size <= 0 for size in (obj.head_dim, obj.num_attention_heads, obj.num_key_value_heads)):
        raise ValueError("Attention dimensions must be positive integers")
    if obj.num_attention_heads % obj.num_key_value_heads:
        raise ValueError("num_attention_heads must be divisible by num_key_value_heads")
    if obj.initializer_range <= 0:
        raise ValueError("initializer_range must be positive")
    if "sliding_attention" in obj.layer_types and (obj.sliding_window is None or obj.sliding_window <= 0):
        raise ValueError("sliding_window must be a positive integer")
    if obj.attention_bias or obj.mlp_bias:
        raise ValueError("Dory requires bias-free projections")
    if obj.hidden_act != "silu" or obj.tie_word_embeddings:
        raise ValueError("Dory requires SiLU and untied embeddings")


def _dory_validate_rope(f: Frame, a: dict) -> None:
    """One RoPE parameter set per attention kind present (and no other key), each default RoPE with a positive
    ``rope_theta`` and a rotary dimension (``int(head_dim * partial_rotary_factor)``) positive and even."""
    obj = f.obj
    if obj.layer_types is None:
        raise ValueError("Dory layer layout must be initialized")
    needed = set(obj.layer_types) - {"mlp"}
    params = obj.rope_parameters
    if params is None or (set(params) - set(_DORY_ATTENTION) or needed - params.keys()):
        raise ValueError("rope_parameters must define each attention block type")
    for one in params.values():
        if not isinstance(one, dict) or one.get("rope_type") != "default" or one.get("rope_theta", 0) <= 0:
            raise ValueError("Dory requires default RoPE with a positive rope_theta")
        fraction = one.get("partial_rotary_factor", 1.0)
        if isinstance(fraction, (str, list, tuple, dict)) and not (
                isinstance(obj.head_dim, int) and len(fraction) * max(obj.head_dim, 0) <= 4000):
            # a sequence repeated head_dim times, then int() of it: only short ones are followed
            raise Undecidable(f"{f.cls.name}.validate_rope: a partial_rotary_factor of type "
                              f"{type(fraction).__name__} repeated {obj.head_dim!r} times is not modelled")
        rotary = int(obj.head_dim * fraction)
        if not 0 < fraction <= 1 or rotary <= 0 or rotary % 2:
            raise ValueError("Rotary dimensions must be positive, even, and <= head_dim")


# -- OpenAI Privacy Filter ------------------------------------------------------------------------

def _openai_privacy_filter_post_init(f: Frame, a: dict) -> None:
    """KV heads defaulting to the attention heads, the head size to hidden size // heads, default YaRN RoPE
    parameters; then the labels: a ``num_labels`` keyword (popped, so the parent never sees it) equal to the
    number of the class's NER labels, or none, gives those labels as ``id2label`` when none is given, any other
    count goes through the ``num_labels`` setter; ``label2id`` is the inverse of ``id2label`` when not given.
    The parent's ``__post_init__`` follows (a step of its own)."""
    obj = f.obj
    labels = list(literal(a["labels"]))
    if obj.num_key_value_heads is None:
        obj.num_key_value_heads = obj.num_attention_heads
    obj.head_dim = obj.head_dim if obj.head_dim is not None else obj.hidden_size // obj.num_attention_heads
    if obj.rope_parameters is None:
        obj.rope_parameters = dict(a["rope_default"])   # [key, value] pairs in the method's order
    requested = f.kwargs().pop("num_labels", len(labels))
    if obj.id2label is None and requested == len(labels):
        obj.id2label = dict(enumerate(labels))
    elif obj.id2label is None:
        obj.num_labels = requested
    if obj.label2id is None and obj.id2label is not None:
        obj.label2id = {label: idx for idx, label in obj.id2label.items()}


# -- RADIO (Nemotron-3-Nano-Omni's vision tower) ----------------------------------------------------------

def _radio_patch_dims(f: Frame, a: dict) -> None:
    """The flattened patch size (channels x patch side squared) and, with a temporal patch size, the video patch
    size that many times it; the arithmetic runs on whatever the fields hold, as Python's does."""
    obj = f.obj
    obj.patch_dim = obj.num_channels * obj.patch_size ** 2
    if obj.video_temporal_patch_size is not None:
        obj.video_patch_dim = obj.video_temporal_patch_size * obj.patch_dim


def _radio_validate_architecture(f: Frame, a: dict) -> None:
    """The parent's checks, then a temporal patch size, when given, of at least 2 frames."""
    f.lib.super_call(f, "validate_architecture", (), {})
    size = f.obj.video_temporal_patch_size
    if size is not None and size < 2:
        raise ValueError(f"`video_temporal_patch_size` must be at least 2 or `None`, got {size}.")


# -- Nemotron-3-Nano-Omni ----------------------------------------------------------------------------

def _class_level_value(f: Frame, name: str) -> Any:
    """``getattr(type(self), name, None)`` for a name the class or a parent sets at class level (a dataclass
    field's plain default is its class attribute); a value the tables could not write down is undecidable."""
    k = f.obj.kvg_facts
    while k is not None:
        spec = (k.record.get("class_attrs") or {}).get(name)
        if spec is None:
            spec = next((info.get("default") for field, info in k.record.get("fields", []) if field == name), None)
        if spec is not None:
            if "literal" not in spec:
                raise Undecidable(f"{f.cls.name}.{f.method}: the class-level value of {name!r} is not modelled")
            return literal(spec["literal"])
        k = k.parent
    raise Undecidable(f"{f.cls.name}.{f.method}: the class-level value of {name!r} is not in the tables")


def _legacy_fields_if_class_value(f: Frame, a: dict) -> None:
    """Checkpoints written before some fields were renamed (the class's table of old name -> field): each old
    keyword is popped; one that is not None is assigned to its field (checked as any assignment is) only while the
    field still holds the class-level value, so a config that gives both names keeps the new one."""
    obj = f.obj
    kwargs = f.kwargs()
    table = getattr(obj, a["table"])
    for old, name in table.items():
        value = kwargs.pop(old, None)
        if value is None:
            continue
        class_value = _class_level_value(f, name)
        if getattr(obj, name) == class_value:
            setattr(obj, name, value)


def _nemotron_h_omni_audio_config(f: Frame, a: dict) -> None:
    """An audio config given as a dict gets the Parakeet defaults the released checkpoints rely on (the method's
    literal pairs) unless it gives them itself.  transformers 5.20 / 5.24 keep the dict (its model type too: the
    copy the method strips it from is never used; the parent builds it), 5.19 builds the encoder config from a
    copy less its model type, the two defaults popped first and passed as keywords."""
    obj = f.obj
    value = obj.audio_config
    if not isinstance(value, dict):
        return
    defaults = [(k, literal(v)) for k, v in a["defaults"]]
    if "build" not in a:
        obj.audio_config = {**dict(defaults), **value}
        return
    rest = dict(value)
    rest.pop("model_type", None)
    keywords = {k: rest.pop(k, d) for k, d in defaults}
    obj.audio_config = f.lib.build_class_ref(f, {"mapping": a["build"]}, rest, keywords)


def _nemotron_h_omni_validate_architecture(f: Frame, a: dict) -> None:
    """The parent's checks, then the vision tower's temporal patch size must equal the top-level one."""
    f.lib.super_call(f, "validate_architecture", (), {})
    obj = f.obj
    vision, top = obj.vision_config.video_temporal_patch_size, obj.video_temporal_patch_size
    if vision != top:
        raise ValueError(f"`vision_config.video_temporal_patch_size` ({vision}) and `video_temporal_patch_size` "
                         f"({top}) must be equal.")


# -- Qwen4-Exp ---------------------------------------------------------------------------------------

def _qwen4_exp_validate_architecture(f: Frame, a: dict) -> None:
    """Qwen4-Exp's invariants, in the validator's order: only its two layer kinds (``a['layer_types']``,
    measured); a sigmoid or SiLU output gate (the hidden activation when none is named); more than one
    hyper-connection stream; a positive expert count and a routed count within it; positive MoE sizes; the QSA
    indexer either wholly absent or wholly given, positive, with one key head, a budget in whole blocks and a
    head wide enough for the attention's rotary part; PLE layers (when any) on linear layers inside the stack, the
    n-gram heads dividing the PLE width, an end-of-sequence token given.  The comparisons and the arithmetic run on
    whatever the fields hold, as Python's do (a string factor repeats the head size, ``int()`` then refuses it)."""
    obj = f.obj
    unsupported = sorted(set(obj.layer_types) - set(a["layer_types"]))
    if unsupported:
        raise ValueError(f"Unsupported Qwen4-Exp layer types: {unsupported}.")
    gate = obj.output_gate_type or obj.hidden_act
    if gate not in {"sigmoid", "silu"}:
        raise ValueError(f"Unsupported Qwen4-Exp output gate activation: {gate}.")
    if obj.hc_count <= 1:
        raise ValueError(f"Qwen4-Exp requires hc_count > 1, got {obj.hc_count}.")
    if obj.num_experts <= 0:
        raise ValueError(f"num_experts must be > 0, got {obj.num_experts}.")
    if not 0 < obj.num_experts_per_tok <= obj.num_experts:
        raise ValueError(f"num_experts_per_tok must be in [1, num_experts], got {obj.num_experts_per_tok} and "
                         f"{obj.num_experts}.")
    if obj.moe_intermediate_size <= 0 or obj.shared_expert_intermediate_size <= 0:
        raise ValueError("moe_intermediate_size and shared_expert_intermediate_size must be > 0.")
    indexer = {name: getattr(obj, name) for name in ("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim",
                                                     "indexer_budget", "indexer_compress_ratio")}
    if any(v is not None for v in indexer.values()):
        missing = [name for name, v in indexer.items() if v is None]
        if missing:
            raise ValueError(f"QSA config is missing required fields: {missing}.")
        if any(v <= 0 for v in indexer.values()):
            raise ValueError(f"QSA config values must be positive: {indexer}.")
        if obj.indexer_kv_heads != 1:
            raise ValueError("Qwen4-Exp QSA requires indexer_kv_heads=1.")
        if obj.indexer_budget % obj.indexer_compress_ratio != 0:
            raise ValueError("indexer_budget must be divisible by indexer_compress_ratio.")
        rotary = int(obj.head_dim * (obj.rope_parameters or {}).get("partial_rotary_factor", 1.0))
        if rotary > obj.indexer_head_dim:
            raise ValueError(f"Qwen4-Exp attention RoPE dimensions must fit the QSA index head: rotary_dim={rotary}, "
                             f"indexer_head_dim={obj.indexer_head_dim}.")
    if obj.ple_layer_ids:
        heads = (obj.ngram_size - 1) * obj.heads_per_ngram
        if heads <= 0 or obj.ple_embed_dim <= 0 or obj.ple_embed_dim % heads != 0:
            raise ValueError("ple_embed_dim and the total number of n-gram heads must be positive, and ple_embed_dim "
                             f"must be divisible by the number of heads: {obj.ple_embed_dim} % {heads} != 0.")
        outside = [i for i in obj.ple_layer_ids if i < 1 or i > obj.num_hidden_layers]
        if outside:
            raise ValueError(f"ple_layer_ids must contain one-indexed ids in [1, {obj.num_hidden_layers}], "
                             f"got {outside}.")
        not_linear = [i for i in obj.ple_layer_ids if obj.layer_types[i - 1] != "linear_attention"]
        if not_linear:
            raise ValueError(f"Qwen4-Exp PLE is only supported on linear_attention layers, got PLE on layers "
                             f"{not_linear}.")
        eos = obj.eos_token_id
        if eos is None or isinstance(eos, list) and not eos:
            raise ValueError("eos_token_id must be set when Qwen4-Exp PLE layers are enabled.")


# -- Cosmos3 Edge ------------------------------------------------------------------------------------

def _cosmos3_edge_text_rope_default(f: Frame, a: dict) -> None:
    """Without RoPE parameters, the default type at the class's ``default_theta`` with the method's multimodal
    sections (``a['mrope_section']``, measured), in the method's key order."""
    obj = f.obj
    if obj.rope_parameters is None:
        obj.rope_parameters = {"rope_type": "default", "rope_theta": _class_level_value(f, "default_theta"),
                               "mrope_section": list(a["mrope_section"])}


def _cosmos3_edge_text_validate_architecture(f: Frame, a: dict) -> None:
    """Heads dividing the hidden size, the default RoPE type only, and three multimodal sections that add up to
    half the head size; the RoPE keys are subscripted (a missing one is the ``KeyError``) and the sections' length
    and sum are Python's on whatever they hold."""
    obj = f.obj
    if obj.hidden_size % obj.num_attention_heads != 0:
        raise ValueError(f"The hidden size ({obj.hidden_size}) is not a multiple of the number of attention heads "
                         f"({obj.num_attention_heads}).")
    rope_type = obj.rope_parameters["rope_type"]
    if rope_type != "default":
        raise ValueError(f"Cosmos3 Edge requires `rope_type='default'`, got {rope_type!r}.")
    sections = obj.rope_parameters["mrope_section"]
    if len(sections) != 3 or sum(sections) != obj.head_dim // 2:
        raise ValueError("`rope_parameters.mrope_section` must contain three sections whose sum equals half of "
                         f"`head_dim`, got {sections} for head_dim={obj.head_dim}.")


STEPS5 = {
    "deepseek_v4_post_init": _deepseek_v4_post_init,
    "deepseek_v4_validate_rope": _deepseek_v4_validate_rope,
    "deepseek_v4_validate_layer_type": _deepseek_v4_validate_layer_type,
    "step3p7_text_post_init": _step3p7_text_post_init,
    "hunyuan_vl_convert_rope_params": _hunyuan_vl_convert_rope_params,
    "hunyuan_vl_mrope_section_alias": _hunyuan_vl_mrope_section_alias,
    "hunyuan_vl_mrope_section_check": _hunyuan_vl_mrope_section_check,
    "dory_post_init": _dory_post_init,
    "dory_validate_layer_type": _dory_validate_layer_type,
    "dory_validate_architecture": _dory_validate_architecture,
    "dory_validate_rope": _dory_validate_rope,
    "openai_privacy_filter_post_init": _openai_privacy_filter_post_init,
    "legacy_fields_if_class_value": _legacy_fields_if_class_value,
    "nemotron_h_omni_audio_config": _nemotron_h_omni_audio_config,
    "nemotron_h_omni_validate_architecture": _nemotron_h_omni_validate_architecture,
    "radio_patch_dims": _radio_patch_dims,
    "radio_validate_architecture": _radio_validate_architecture,
    "qwen4_exp_validate_architecture": _qwen4_exp_validate_architecture,
    "cosmos3_edge_text_rope_default": _cosmos3_edge_text_rope_default,
    "cosmos3_edge_text_validate_architecture": _cosmos3_edge_text_validate_architecture,
}
