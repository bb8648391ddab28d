"""RoPE settings of transformers 5.x config objects: ``rope_parameters`` filled in and checked.

Mirrors transformers ``modeling_rope_utils.RotaryEmbeddingConfigMixin`` (5.17.0, 5.19.0, 5.20.2,
5.24.0): ``convert_rope_params_to_dict`` (called from ``PreTrainedConfig.__post_init__``: the legacy
``rope_scaling`` / ``rope_theta`` / ``partial_rotary_factor`` move into ``rope_parameters``),
``standardize_rope_params``, ``validate_rope`` (a ``@strict`` class validator: a KeyError for a
missing required key, a ValueError for an odd rotary dimension) and the per-type checks
``_validate_<type>_rope_parameters`` — which only log warnings, but whose comparisons run on whatever
the config holds, so a value of the wrong type raises there as Python does.  The same Python
operations run here on the same values, so the exceptions are the same.

Which variant a line has is a fact of its tables (``base5.behaviours``); the key sets per RoPE type
are facts too (``base5.rope``).  Class overrides (Gemma 3's per-layer-type defaults …) are steps of
the class tables, run through :meth:`Transformers5.call`.
"""

from __future__ import annotations

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["check_received_keys", "convert_rope_params_to_dict", "nested_rope_parameter_keys",
           "standardize_rope_params", "validate_rope", "validate_rope_type"]

_SCALED_TYPES = ["llama3", "yarn", "longrope"]


def nested_rope_parameter_keys(lib: Any, obj: Any, rope_parameters: Any) -> list:
    """The keys ``rope_parameters`` is nested under: the declared layer types (or ``_rope_type_labels``)."""
    lib.variant("nested_rope_parameter_keys")
    labels = getattr(obj, "_rope_type_labels", None) or getattr(obj, "layer_types", None) or ()
    return [key for key in rope_parameters if key in labels]


def convert_rope_params_to_dict(lib: Any, obj: Any, kwargs: dict) -> dict:
    variant = lib.variant("convert_rope_params_to_dict")
    rope_scaling = kwargs.pop("rope_scaling", None)
    obj.rope_parameters = rope_scaling or obj.rope_parameters
    obj.rope_parameters = obj.rope_parameters if obj.rope_parameters is not None else {}
    rope_theta = kwargs.pop("rope_theta", getattr(obj, "rope_theta", obj.default_theta))
    if variant == "5.17":
        obj.rope_parameters.setdefault("rope_theta", rope_theta)
        partial = kwargs.get("partial_rotary_factor", getattr(obj, "partial_rotary_factor", None))
        if partial is not None:
            obj.rope_parameters.setdefault("partial_rotary_factor", partial)
            obj.ignore_keys_at_rope_validation = set(obj.ignore_keys_at_rope_validation or []) | {
                "partial_rotary_factor"}
        lib.call(obj, "standardize_rope_params")
        return kwargs
    if variant == "5.19":
        partial = kwargs.get("partial_rotary_factor", getattr(obj, "partial_rotary_factor", None))
    else:
        partial = kwargs.pop("partial_rotary_factor", getattr(obj, "partial_rotary_factor", None))
    nested = lib.call(obj, "nested_rope_parameter_keys", obj.rope_parameters)
    targets = [obj.rope_parameters[key] for key in nested] or [obj.rope_parameters]
    for params in targets:
        if params is None:
            continue
        params.setdefault("rope_theta", rope_theta)
        if partial is not None:
            params.setdefault("partial_rotary_factor", partial)
    if partial is not None:
        obj.ignore_keys_at_rope_validation = set(obj.ignore_keys_at_rope_validation or []) | {"partial_rotary_factor"}
    lib.call(obj, "standardize_rope_params")
    return kwargs


def standardize_rope_params(lib: Any, obj: Any) -> None:
    variant = lib.variant("standardize_rope_params")
    rope_theta = getattr(obj, "rope_theta", None)
    partial = getattr(obj, "partial_rotary_factor", None)
    params = getattr(obj, "rope_parameters", None) or {}
    if variant == "5.17":
        layer_types = getattr(obj, "_rope_type_labels", getattr(obj, "layer_types", None))
        if not (params or rope_theta):
            return
        if layer_types is None or params == {} or set(params.keys()).isdisjoint(layer_types):
            _standardize_flat(obj, params, rope_theta, partial)
        else:
            kinds = set(layer_types)
            if len([k for k in kinds if k not in params]) > 1:
                # which missing layer type raises first follows the string hash order of the process
                _hash_ordered_key_error(kinds, params)
            for layer_type in _set_order(kinds):
                _standardize_layer(obj, params, layer_type, rope_theta, partial, order="5.17")
        obj.rope_parameters = params
        return
    nested = lib.call(obj, "nested_rope_parameter_keys", params)
    if not (params or rope_theta):
        return
    if not nested:
        _standardize_flat(obj, params, rope_theta, partial)
    else:
        for layer_type in nested:
            _standardize_layer(obj, params, layer_type, rope_theta, partial, order="5.19")
    obj.rope_parameters = params


def _set_order(kinds: set) -> list:
    """A set's iteration order where it cannot matter (no two members behave differently)."""
    return list(kinds)


def _hash_ordered_key_error(kinds: set, params: dict) -> None:
    missing = [k for k in kinds if k not in params]
    exc = KeyError(missing[0])
    exc._kvg_hash_order = True  # type: ignore[attr-defined]
    raise exc


def _standardize_flat(obj: Any, params: Any, rope_theta: Any, partial: Any) -> None:
    params.setdefault("rope_type", params.get("type", "default"))
    params.setdefault("rope_theta", rope_theta)
    if partial is not None:
        params.setdefault("partial_rotary_factor", partial)
    if obj.default_rope_type != "default" and params["rope_type"] == "default":
        params["rope_type"] = obj.default_rope_type
    if params["rope_type"] in _SCALED_TYPES:
        if hasattr(obj, "original_max_position_embeddings"):
            obj.rope_parameters["original_max_position_embeddings"] = obj.original_max_position_embeddings
        else:
            obj.rope_parameters.setdefault("original_max_position_embeddings", obj.max_position_embeddings)


def _standardize_layer(obj: Any, params: Any, layer_type: Any, rope_theta: Any, partial: Any, order: str) -> None:
    if params[layer_type] is None:
        return
    own = params[layer_type]
    own.setdefault("rope_type", own.get("type", "default"))
    own.setdefault("rope_theta", rope_theta)
    if partial is not None:
        own.setdefault("partial_rotary_factor", partial)
    if own["rope_type"] in _SCALED_TYPES:
        obj.rope_parameters[layer_type].setdefault("original_max_position_embeddings", obj.max_position_embeddings)
    if obj.default_rope_type != "default" and own["rope_type"] == "default":
        own["rope_type"] = obj.default_rope_type


def validate_rope(lib: Any, obj: Any) -> None:
    variant = lib.variant("validate_rope")
    params = getattr(obj, "rope_parameters", None)
    if not params:
        return
    if variant == "5.17":
        if getattr(obj, "layer_types", None) is not None and not set(params.keys()).isdisjoint(obj.layer_types):
            pass
        else:
            params = {"full_attention": params}
        for per_layer in params.values():
            if per_layer is None:
                continue
            validate_rope_type(lib, obj, per_layer)
        return
    nested = lib.call(obj, "nested_rope_parameter_keys", params)
    if nested:
        params = {key: params[key] for key in nested}
    else:
        params = {"full_attention": params}
    head_dim = None if obj.is_heterogeneous else getattr(obj, "head_dim", None)
    for layer_type, per_layer in params.items():
        if per_layer is None:
            continue
        validate_rope_type(lib, obj, per_layer)
        partial = per_layer.get("partial_rotary_factor", 1.0)
        if head_dim is not None and head_dim > 4 and head_dim % 2 and int(head_dim * partial) == head_dim:
            raise ValueError(f"RoPE requires an even rotary dimension, but got `head_dim`={head_dim} with "
                             f"`partial_rotary_factor`={partial} for `{layer_type}`.")


def validate_rope_type(lib: Any, obj: Any, params: Any) -> None:
    """One RoPE settings dict: its type normalised, then ``_validate_<type>_rope_parameters`` when defined."""
    rope_type = params.get("rope_type", params.get("type", "default"))
    method = f"_validate_{rope_type}_rope_parameters"
    found = lib.has_method(obj, method)
    params["rope_type"] = rope_type
    if found:
        lib.call(obj, method, params, ignore_keys=obj.ignore_keys_at_rope_validation)


# -- the per-type checks (warnings only; what can raise is the key check and Python's operators) -------

def check_received_keys(rope_type: Any, received: set, required: set, optional: "set | None",
                        ignore_keys: Any) -> None:
    if "type" in received:
        received -= {"type"}
        required.add("rope_type")
    optional = optional or set()
    if "partial_rotary_factor" not in optional:
        optional.add("partial_rotary_factor")
    if ignore_keys is not None:
        received -= set(ignore_keys)
    missing = required - received
    if missing:
        exc = KeyError(f"Missing required keys in `rope_parameters` for 'rope_type'='{rope_type}': {missing}")
        if len(missing) > 1:
            exc._kvg_hash_order = True  # type: ignore[attr-defined]
        raise exc


def _keys(spec: dict, which: str) -> "set | None":
    value = spec.get(which)
    if isinstance(value, dict):
        raise Undecidable("a RoPE key set kvguard could not read")
    return set(value) if value is not None else None


def _factor(factor: Any) -> None:
    if factor is None or not isinstance(factor, (float, int)) or factor < 1.0:
        pass  # a warning


def _check_keys(spec: dict, params: Any, ignore_keys: Any, rope_type_first: bool) -> None:
    if rope_type_first:
        rope_type = params["rope_type"]
        received = set(params.keys())
    else:
        received = set(params.keys())
        rope_type = params["rope_type"]
    check_received_keys(rope_type, received, _keys(spec, "required") or set(), _keys(spec, "optional"), ignore_keys)


def _keys_only(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=False)


def _factor_check(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=False)
    _factor(params["factor"])


def _yarn(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=False)
    _factor(params["factor"])
    attention_factor = params.get("attention_factor")
    if attention_factor is not None and (not isinstance(attention_factor, float) or attention_factor < 0):
        pass
    beta_fast = params.get("beta_fast")
    if beta_fast is not None and not isinstance(beta_fast, (float, int)):
        pass
    beta_slow = params.get("beta_slow")
    if beta_slow is not None and not isinstance(beta_slow, (float, int)):
        pass
    if (beta_fast or 32) < (beta_slow or 1):
        pass
    original = params["original_max_position_embeddings"]
    implicit = obj.max_position_embeddings / original
    if implicit != params["factor"] and implicit != 1:
        pass


def _longrope(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=False)
    partial = params.get("partial_rotary_factor", 1.0)
    fallback = obj.hidden_size // obj.num_attention_heads  # getattr's default is computed first
    head_dim = getattr(obj, "head_dim", fallback)
    dim = int(head_dim * partial)
    for key in ("short_factor", "long_factor"):
        value = params.get(key)
        if not (isinstance(value, list) and all(isinstance(x, (int, float)) for x in value)):
            pass
        if len(value) != dim // 2:
            pass
    factor = params.get("factor")
    original = params["original_max_position_embeddings"]
    if factor is None and original is not None:
        pass
    elif factor is None and original is None:
        pass
    elif not isinstance(factor, (float, int)) or factor < 1.0:
        pass
    attention_factor = params.get("attention_factor")
    if attention_factor is not None and (not isinstance(attention_factor, (float, int)) or attention_factor < 0.0):
        pass


def _llama3(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=True)
    _factor(params["factor"])
    low = params["low_freq_factor"]
    high = params["high_freq_factor"]
    if low is None or not isinstance(low, (float, int)):
        pass
    if high is None or not isinstance(high, (float, int)):
        pass
    if high <= low:
        pass
    original = params["original_max_position_embeddings"]
    if original is None or not isinstance(original, int):
        pass
    if original >= obj.max_position_embeddings:
        pass


def _proportional(obj: Any, spec: dict, params: Any, ignore_keys: Any) -> None:
    _check_keys(spec, params, ignore_keys, rope_type_first=True)
    params.get("partial_rotary_factor")


#: check variant (``base5.behaviours["rope:<type>"]``) -> kvguard's implementation
TYPE_CHECKS = {"keys": _keys_only, "as_default": None, "factor": _factor_check, "yarn": _yarn,
               "longrope": _longrope, "llama3": _llama3, "proportional": _proportional}


def run_type_check(lib: Any, obj: Any, rope_type: str, params: Any, ignore_keys: Any) -> None:
    """``_validate_<rope_type>_rope_parameters`` as PreTrainedConfig defines it."""
    table = lib.base["rope"]
    variant = lib.variant("rope:" + rope_type)
    if variant == "as_default":
        rope_type, variant = "default", lib.variant("rope:default")
    fn = TYPE_CHECKS.get(variant)
    if fn is None:
        raise Undecidable(f"the RoPE check for {rope_type!r} is not modelled")
    fn(obj, table[rope_type], params, ignore_keys)
