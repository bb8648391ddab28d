"""What printing a transformers 5.x config raises (``from_dict`` logs ``f"Model config {config}"``).

transformers 5 ``PreTrainedConfig.__repr__`` is ``f"{cls} {self.to_json_string()}"``: ``to_diff_dict``
(``to_dict`` of the object and of its sub-configs, a default instance of the class — 5.17/5.19 — or of
each sub-config's class to diff against, ``quantization_config.to_dict()``, ``dict_dtype_to_str``), then
``json.dumps(..., sort_keys=True)``.  For a config built from JSON these can fail in a few ways: a
``quantization_config`` that is not a dict, a ``dtype`` printed as ``str(v).split(".")[1]``, keys that do
not sort, a default instance that cannot be built (its failure is measured per class by
tools/facts_extract.py).  This module raises what that raises, in the same order.
"""

from __future__ import annotations

from ..errors import Undecidable
from .objects import ClassFacts, ConfigObject, TorchDtype
from .strict import StrictDataclassClassValidationError, StrictDataclassFieldValidationError

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["base_to_dict", "check_repr", "measured_exception", "to_dict"]

_NOT_SERIALIZED = ("_is_quantized", "_auto_class", "_commit_hash", "_attn_implementation_internal",
                   "_experts_implementation_internal", "ignore_keys_at_rope_validation", "base_model_tp_plan",
                   "base_model_pp_plan", "base_model_fsdp_plan", "distributed_config")


def check_repr(lib: Any, obj: ConfigObject) -> None:
    variant = lib.variant("to_diff_dict")
    lib.variant("to_dict")
    lib.variant("dict_dtype_to_str")
    lib.variant("to_json_string")
    lib.variant("module:recursive_diff_dict")
    out = to_dict(lib, obj)
    k: ClassFacts | None = obj.kvg_facts
    while k is not None:
        if k.record.get("json_without_diff"):  # to_json_string(use_diff=False): to_dict() printed as is
            _json_check(out)
            return
        k = k.parent
    if variant == "default_instance" and not getattr(obj, "has_no_defaults_at_init", False):
        _default_instance(obj)
        defaults = _sub_config_keys_of_default(lib, obj)
    else:
        defaults = {key for key in lib.sub_configs(obj.kvg_facts) if key != "backbone_config"} \
            if variant == "field_defaults" else set()
    for key in out:
        attr = obj.kvg_attrs.get(key)
        if isinstance(attr, ConfigObject) and key in defaults:
            _default_instance(attr)
    _quantization(obj)
    _json_check(out)


def _sub_config_keys_of_default(lib: Any, obj: ConfigObject) -> set:
    """The keys a default instance of the class holds sub-configs under (5.17/5.19 diff against it)."""
    return set(lib.sub_configs(obj.kvg_facts))


def measured_exception(exc_type: str, message: str) -> BaseException:
    """An exception of a measured type whose ``str()`` is the measured message."""
    bases = {"AssertionError": AssertionError, "ValueError": ValueError, "TypeError": TypeError, "KeyError": KeyError, "AttributeError": AttributeError,
             "IndexError": IndexError, "ZeroDivisionError": ZeroDivisionError,
             "StrictDataclassClassValidationError": StrictDataclassClassValidationError,
             "StrictDataclassFieldValidationError": StrictDataclassFieldValidationError}
    base = bases.get(exc_type)
    if base is None:
        raise Undecidable(f"building the default instance raises {exc_type}, which kvguard does not model")
    namespace = {"__str__": lambda self: message, "__module__": base.__module__,
                 "_kvg_module": getattr(base, "_kvg_module", base.__module__)}
    # type() makes a subclass of base, one of the exception classes above
    klass: type[BaseException] = type(exc_type, (base,), namespace)
    exc = klass.__new__(klass)
    Exception.__init__(exc, message)
    return exc


def _default_instance(obj: ConfigObject) -> None:
    """``obj.__class__()`` (measured: what building the class with no arguments raises)."""
    record = obj.kvg_facts.record
    if "default_error" in record:
        raise measured_exception(*record["default_error"])


def to_dict(lib: Any, obj: ConfigObject) -> dict:
    """``obj.to_dict()`` (a class may override it)."""
    out = lib.call(obj, "to_dict")
    if not isinstance(out, dict):
        raise Undecidable(f"{obj.kvg_class_name}.to_dict() returns something kvguard does not model")
    return out


def base_to_dict(lib: Any, obj: ConfigObject) -> dict:
    """``PreTrainedConfig.to_dict()`` as far as what it raises and the keys it prints."""
    out = {key: _plain_copy(value) for key, value in obj.kvg_attrs.items()}
    out["model_type"] = obj.model_type
    out["transformers_version"] = lib.line
    out.pop("kwargs", None)
    for key, value in list(out.items()):
        if isinstance(value, ConfigObject):
            value = to_dict(lib, value)
            del value["transformers_version"]
        elif isinstance(value, tuple):
            value = _to_list(value)
        out[key] = value
    _remove_keys_not_serialized(lib, out)
    if hasattr(obj, "quantization_config"):
        _quantization(obj)
    _dict_dtype_to_str(out)
    from .hetero5 import update_to_dict_output
    update_to_dict_output(lib, obj, out)
    return out


def _plain_copy(value: Any) -> Any:
    """``copy.deepcopy`` of the containers (what is printed is a copy; config objects are converted later)."""
    if isinstance(value, dict):
        return {k: _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain_copy(v) for v in value)
    return value


def _to_list(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_list(item) for item in value]
    return value


def _remove_keys_not_serialized(lib: Any, d: dict) -> None:
    variant = lib.variant("_remove_keys_not_serialized")
    keys = _NOT_SERIALIZED + (("_post_init_done",) if variant == "5.24" else ())
    for key in keys:
        d.pop(key, None)
    if "_output_attentions" in d:
        d["output_attentions"] = d.pop("_output_attentions")
    for value in d.values():
        if isinstance(value, dict):
            _remove_keys_not_serialized(lib, value)


def _quantization(obj: ConfigObject) -> None:
    if not hasattr(obj, "quantization_config"):
        return
    quant = obj.quantization_config
    if not isinstance(quant, dict) and quant is not None:
        if isinstance(quant, ConfigObject):
            raise Undecidable("a config object as quantization_config is not modelled")
        raise AttributeError(f"'{type(quant).__name__}' object has no attribute 'to_dict'")


def _dict_dtype_to_str(d: dict) -> None:
    dtype = d.get("dtype")
    if dtype is not None:
        if isinstance(dtype, dict):
            d["dtype"] = {k: _str(v).split(".")[-1] for k, v in dtype.items()}
        elif not isinstance(dtype, (str, int)):
            d["dtype"] = _str(dtype).split(".")[1]
    for value in d.values():
        if isinstance(value, dict):
            _dict_dtype_to_str(value)


def _str(value: Any) -> str:
    if isinstance(value, ConfigObject):
        raise Undecidable("a config object as dtype is not modelled")
    return str(value)


def _json_check(value: Any) -> None:
    """``json.dumps(value, indent=2, sort_keys=True)`` after ``_encode_special_floats``: what it raises."""
    if isinstance(value, dict):
        items = sorted(value.items())
        for key, item in items:
            if not (isinstance(key, (str, int, float)) or key is None):
                raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")
            _json_check(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _json_check(item)
    elif value is None or isinstance(value, (str, int, float)):
        return
    elif isinstance(value, TorchDtype):
        raise TypeError("Object of type dtype is not JSON serializable")
    elif isinstance(value, ConfigObject):
        raise TypeError(f"Object of type {value.kvg_class_name} is not JSON serializable")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
