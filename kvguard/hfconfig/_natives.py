"""Hand-written stand-ins for what the translated config modules import.

The translated modules import from the standard library (``typing``,
``dataclasses``, ``copy``, ``math`` …), from ``huggingface_hub`` (the
``@strict`` dataclass decorator and its type validation), from transformers
utilities (logging, ``is_torch_available``, ``CONFIG_MAPPING``,
``AutoConfig``) and from torch (dtypes).  This module provides those, with
the behaviour the config classes depend on: ``@strict`` reproduces
huggingface_hub's field type validation and ``validate_*`` class validators
with their exact messages; ``dataclass`` reproduces field collection.
"""

from __future__ import annotations

import collections
import collections.abc
import functools
import math
import operator
import types
import typing
from dataclasses import MISSING as _MISSING

from ._interp import (
    TYPED_DICT_BASE, NativeObj, BoundMethod, Field, Func, Inst, Klass, NativeFunc, NativeModule, Opaque,
    StrictDataclassClassValidationError, StrictDataclassDefinitionError,
    StrictDataclassFieldValidationError, StrictDataclassError, TorchDtype, UnionT, Unsupported,
)


def _nf(name, bind=False):
    def deco(fn):
        return NativeFunc(fn, name, bind=bind)
    return deco


def _identity_deco(i, a, k):
    """A decorator that may be used with or without arguments."""
    if len(a) == 1 and not k and isinstance(a[0], (Func, Klass, NativeFunc)):
        return a[0]
    return NativeFunc(lambda i2, a2, k2: a2[0] if a2 else None, "identity", bind=False)


# ---------------------------------------------------------------------------
# dataclasses


def _is_classvar(ann) -> bool:
    if ann is typing.ClassVar or typing.get_origin(ann) is typing.ClassVar:
        return True
    if isinstance(ann, str):
        s = ann.strip()
        return s.startswith(("ClassVar", "typing.ClassVar"))
    return False


def _dc_fields(i, k: Klass) -> dict:
    fd = k.ns.get("__dataclass_fields__")
    return fd if isinstance(fd, dict) else {}


def _process_dataclass(i, k: Klass, init=True, eq=True, kw_only=False):
    fields: dict[str, Field] = {}
    for b in reversed(k.mro[1:]):
        bf = b.ns.get("__dataclass_fields__")
        if isinstance(bf, dict):
            for f in bf.values():
                fields[f.name] = f
    for name, ann in k.annotations.items():
        if _is_classvar(ann):
            continue
        default, _ = k.lookup(name)
        if isinstance(default, Field):
            f = default
        else:
            f = Field(default=default)
        f.name = name
        f.type = ann
        f.kw_only = kw_only or f.kw_only
        if isinstance(default, Field):
            if f.default is _MISSING:
                k.ns.pop(name, None)
            else:
                k.ns[name] = f.default
        if f.default is not _MISSING and isinstance(f.default, (list, dict, set)):
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             "use default_factory")
        fields[name] = f
    k.ns["__dataclass_fields__"] = fields
    if init and "__init__" not in k.ns:
        k.ns["__init__"] = NativeFunc(functools.partial(_dataclass_init, k), f"{k.name}.__init__", klass=k)
    if eq and "__eq__" not in k.ns:
        k.ns["__eq__"] = NativeFunc(functools.partial(_dataclass_eq, k), f"{k.name}.__eq__")
    return k


def _dataclass_init(k, i, a, kw):
    self = a[0]
    if len(a) > 1:
        raise TypeError(f"{k.name}.__init__() takes 1 positional argument but {len(a)} were given")
    flds = [f for f in _dc_fields(i, k).values() if f.init]
    names = {f.name for f in flds}
    for key in kw:
        if key not in names:
            raise TypeError(f"{k.name}.__init__() got an unexpected keyword argument '{key}'")
    missing = [f.name for f in flds if f.name not in kw and f.default is _MISSING and f.default_factory is _MISSING]
    if missing:
        raise TypeError(f"{k.name}.__init__() missing {len(missing)} required keyword-only argument"
                        f"{'s' if len(missing) > 1 else ''}: " + " and ".join(f"'{m}'" for m in missing))
    for f in flds:
        if f.name in kw:
            v = kw[f.name]
        elif f.default is not _MISSING:
            v = f.default
        else:
            v = i.call(f.default_factory, [], {})
        i.setattr(self, f.name, v)
    if k.lookup("__post_init__")[0] is not _MISSING:
        i.call(i.getattr(self, "__post_init__"), [], {})


def _dataclass_eq(k, i, a, kw):
    self, other = a
    if not isinstance(other, Inst) or other._k is not self._k:
        return NotImplemented
    names = [f.name for f in _dc_fields(i, k).values()]
    return all(i.eq(i.getattr(self, n), i.getattr(other, n)) for n in names)


def n_dataclass(i, a, kw):
    opts = {key: kw.get(key, d) for key, d in (("init", True), ("eq", True), ("kw_only", False))}
    if a and isinstance(a[0], Klass):
        return _process_dataclass(i, a[0], **opts)
    if a:
        raise Unsupported("dataclass() on a non-class")
    return NativeFunc(lambda i2, a2, k2: _process_dataclass(i2, a2[0], **opts), "dataclass", bind=False)


def n_field(i, a, kw):
    return Field(default=kw.get("default", _MISSING), default_factory=kw.get("default_factory", _MISSING),
                 metadata=kw.get("metadata"), init=kw.get("init", True))


def n_fields(i, a, kw):
    obj = a[0]
    k = obj._k if isinstance(obj, Inst) else obj
    if not isinstance(k, Klass) or "__dataclass_fields__" not in _all_ns_names(k):
        raise TypeError("must be called with a dataclass type or instance")
    fd = k.lookup("__dataclass_fields__")[0]
    return tuple(fd.values())


def _all_ns_names(k):
    out = set()
    for kk in k.mro:
        out.update(kk.ns)
    return out


def n_is_dataclass(i, a, kw):
    obj = a[0]
    k = obj._k if isinstance(obj, Inst) else obj
    return isinstance(k, Klass) and k.lookup("__dataclass_fields__")[0] is not _MISSING


def n_asdict(i, a, kw):
    obj = a[0]
    out = {}
    for f in n_fields(i, [obj], {}):
        out[f.name] = deepcopy_value(i, i.getattr(obj, f.name), {})
    return out


# ---------------------------------------------------------------------------
# huggingface_hub.dataclasses.strict


def type_validator(i, name, value, expected):
    origin = typing.get_origin(expected)
    args = typing.get_args(expected)
    if expected is typing.Any:
        return
    if expected is None:
        if value is not None:
            raise TypeError(f"Field '{name}' expected None, got {_tn(value)}")
        return
    if isinstance(expected, UnionT):
        _validate_union(i, name, value, expected.args)
        return
    if origin in (typing.Union, types.UnionType):
        _validate_union(i, name, value, args)
        return
    if origin is typing.Literal:
        _validate_literal(name, value, args)
        return
    if origin is list:
        if not isinstance(value, list):
            raise TypeError(f"Field '{name}' expected a list, got {_tn(value)}")
        if args:
            for idx, item in enumerate(value):
                try:
                    type_validator(i, f"{name}[{idx}]", item, args[0])
                except TypeError as e:
                    raise TypeError(f"Invalid item at index {idx} in list '{name}'") from e
        return
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError(f"Field '{name}' expected a dict, got {_tn(value)}")
        if args:
            kt, vt = args
            for kk, vv in value.items():
                try:
                    type_validator(i, f"{name}.key", kk, kt)
                    type_validator(i, f"{name}[{kk!r}]", vv, vt)
                except TypeError as e:
                    raise TypeError(f"Invalid key or value in dict '{name}'") from e
        return
    if origin is tuple:
        if not isinstance(value, tuple):
            raise TypeError(f"Field '{name}' expected a tuple, got {_tn(value)}")
        if len(args) == 2 and args[1] is Ellipsis:
            for idx, item in enumerate(value):
                try:
                    type_validator(i, f"{name}[{idx}]", item, args[0])
                except TypeError as e:
                    raise TypeError(f"Invalid item at index {idx} in tuple '{name}'") from e
        elif len(args) != len(value):
            raise TypeError(f"Field '{name}' expected a tuple of length {len(args)}, got {len(value)}")
        else:
            for idx, (item, exp) in enumerate(zip(value, args)):
                try:
                    type_validator(i, f"{name}[{idx}]", item, exp)
                except TypeError as e:
                    raise TypeError(f"Invalid item at index {idx} in tuple '{name}'") from e
        return
    if origin is set:
        if not isinstance(value, set):
            raise TypeError(f"Field '{name}' expected a set, got {_tn(value)}")
        if args:
            for item in value:
                try:
                    type_validator(i, f"{name} item", item, args[0])
                except TypeError as e:
                    raise TypeError(f"Invalid item in set '{name}'") from e
        return
    if origin is collections.abc.Sequence:
        if not isinstance(value, collections.abc.Sequence) or isinstance(value, Inst):
            raise TypeError(f"Field '{name}' expected a Sequence, got {_tn(value)}")
        if args:
            for idx, item in enumerate(value):
                try:
                    type_validator(i, f"{name}[{idx}]", item, args[0])
                except TypeError as e:
                    raise TypeError(f"Invalid item at index {idx} in sequence '{name}'") from e
        return
    if isinstance(expected, Klass):
        if expected.typeddict:
            raise TypeError("TypedDict does not support instance and class checks")
        if not (isinstance(value, Inst) and value._k.is_sub(expected)):
            raise TypeError(f"Field '{name}' expected {expected.name}, got {_tn(value)} (value: {_repr(i, value)})")
        return
    if expected is TorchDtype:
        if not isinstance(value, TorchDtype):
            raise TypeError(f"Field '{name}' expected dtype, got {_tn(value)} (value: {_repr(i, value)})")
        return
    if isinstance(expected, type):
        if expected is int and isinstance(value, bool):
            raise TypeError(f"Field '{name}' expected {expected.__name__}, got {_tn(value)} (value: {value!r})")
        ok = i.isinstance(value, expected)
        if not ok:
            raise TypeError(f"Field '{name}' expected {expected.__name__}, got {_tn(value)} (value: {_repr(i, value)})")
        return
    if isinstance(expected, str) or isinstance(expected, typing.ForwardRef):
        return
    if isinstance(expected, Opaque):
        if isinstance(value, (Inst,)):
            raise Unsupported(f"type check against {expected.what}")
        what = expected.what.split(":")[0].rsplit(".", 1)[-1]
        raise TypeError(f"Field '{name}' expected {what}, got {_tn(value)} (value: {_repr(i, value)})")
    raise TypeError(f"Unsupported type for field '{name}': {expected}")


def _tn(v) -> str:
    if isinstance(v, Inst):
        return v._k.name
    return type(v).__name__


def _repr(i, v) -> str:
    return i.repr(v)


def _validate_union(i, name, value, args):
    errors = []
    for t in args:
        try:
            type_validator(i, name, value, t)
            return
        except TypeError as e:
            errors.append(str(e))
    raise TypeError(f"Field '{name}' with value {_repr(i, value)} doesn't match any type in {args!r}. "
                    f"Errors: {'; '.join(errors)}")


def _validate_literal(name, value, args):
    if isinstance(value, bool):
        if value not in [a for a in args if isinstance(a, bool)]:
            raise TypeError(f"Field '{name}' expected one of {args}, got {value}")
    elif isinstance(value, int):
        if value not in [a for a in args if isinstance(a, int) and not isinstance(a, bool)]:
            raise TypeError(f"Field '{name}' expected one of {args}, got {value}")
    elif value not in args:
        raise TypeError(f"Field '{name}' expected one of {args}, got {value}")


def _dir_names(k: Klass) -> list[str]:
    names = set()
    for kk in k.mro:
        names.update(n for n in kk.ns if isinstance(n, str))
    return sorted(names)


def _nparams(fn) -> int | None:
    if isinstance(fn, Func):
        s = fn.spec
        return len(s["args"]) + len(s["kwonly"])
    return None


def _apply_strict(i, k: Klass, accept_kwargs: bool):
    if "__dataclass_fields__" not in _all_ns_names(k):
        raise StrictDataclassDefinitionError(f"Class '{k.name}' must be a dataclass before applying @strict.")
    fd = k.lookup("__dataclass_fields__")[0]
    validators: dict[str, list] = {}
    for f in fd.values():
        vals = [("type", f)]
        custom = f.metadata.get("validator") if isinstance(f.metadata, dict) else None
        if custom is not None:
            if not isinstance(custom, list):
                custom = [custom]
            vals.extend(("custom", c) for c in custom)
        validators[f.name] = vals
    k.ns["__validators__"] = validators
    original_setattr, _ = k.lookup("__setattr__")
    if original_setattr is _MISSING:
        original_setattr = i._object_methods["__setattr__"]

    def strict_setattr(i2, a, kw):
        self, name, value = a
        vals = i2.getattr(self._k, "__validators__")
        for kind, v in vals.get(name, []):
            try:
                if kind == "type":
                    type_validator(i2, v.name, value, v.type)
                else:
                    i2.call(v, [value], {})
            except (ValueError, TypeError) as e:
                raise StrictDataclassFieldValidationError(field=name, cause=e) from e
        i2.call(original_setattr, [self, name, value], {})

    k.ns["__setattr__"] = NativeFunc(strict_setattr, f"{k.name}.__strict_setattr__")

    if accept_kwargs:
        k.ns["__init__"] = NativeFunc(functools.partial(_accept_kwargs_init, k), f"{k.name}.__init__", klass=k)
        if k.lookup("__post_init__")[0] is _MISSING:
            def default_post_init(i2, a, kw):
                for name, value in kw.items():
                    i2.setattr(a[0], name, value)
            k.ns["__post_init__"] = NativeFunc(default_post_init, f"{k.name}.__post_init__")

    class_validators = []
    for name in _dir_names(k):
        if not name.startswith("validate_"):
            continue
        method = i.klass_getattr(k, name)
        if not isinstance(method, (Func, NativeFunc, BoundMethod)):
            continue
        n = _nparams(method)
        if n is not None and n != 1:
            raise StrictDataclassDefinitionError(f"Class '{k.name}' has a class validator '{name}' that takes more "
                                                 "than one argument.")
        class_validators.append((name, method))
    k.ns["__class_validators__"] = class_validators

    def validate(i2, a, kw, cls=k):
        self = a[0]
        for vname, validator in cls.ns["__class_validators__"]:
            try:
                i2.call(validator, [self], {})
            except (ValueError, TypeError) as e:
                raise StrictDataclassClassValidationError(validator=vname, cause=e) from e

    existing, _ = k.lookup("validate")
    if existing is not _MISSING and not (isinstance(existing, NativeFunc) and existing.name == "strict.validate"):
        raise StrictDataclassDefinitionError(f"Class '{k.name}' already implements a method called 'validate'.")
    k.ns["validate"] = NativeFunc(validate, "strict.validate")
    initial_init, _ = k.lookup("__init__")

    def init_with_validate(i2, a, kw, cls=k, init=initial_init):
        i2.call(init, list(a), kw)
        i2.call(cls.ns["validate"], [a[0]], {})

    sig_klass = getattr(initial_init, "klass", None)
    if isinstance(initial_init, Func) and "wrap_init_to_accept_kwargs" in initial_init.qualname:
        sig_klass = k  # @wraps(dataclass __init__): the signature lists k's fields
    k.ns["__init__"] = NativeFunc(init_with_validate, f"{k.name}.__init__", klass=sig_klass)
    k.ns["__kvg_strict__"] = True
    return k


def _accept_kwargs_init(k, i, a, kw):
    self = a[0]
    fd = k.lookup("__dataclass_fields__")[0]
    names = set(fd)
    if len(a) > 1:
        raise ValueError(f"When `accept_kwargs=True`, {k.name} accepts only keyword arguments, "
                         f"but found `{len(a) - 1}` positional args.")
    for f in fd.values():
        if f.name in kw:
            i.setattr(self, f.name, kw[f.name])
        elif f.default is not _MISSING:
            i.setattr(self, f.name, f.default)
        elif f.default_factory is not _MISSING:
            i.setattr(self, f.name, i.call(f.default_factory, [], {}))
        else:
            raise TypeError(f"Missing required field - '{f.name}'")
    extra = {key: v for key, v in kw.items() if key not in names}
    i.call(i.getattr(self, "__post_init__"), [], extra)


def n_strict(i, a, kw):
    accept = kw.get("accept_kwargs", False)
    if a and isinstance(a[0], Klass):
        return _apply_strict(i, a[0], accept)
    return NativeFunc(lambda i2, a2, k2: _apply_strict(i2, a2[0], accept), "strict", bind=False)


def n_as_validated_field(i, a, kw):
    validator = a[0]

    def inner(i2, a2, k2):
        default = k2.get("default", a2[0] if a2 else _MISSING)
        return Field(default=default, default_factory=k2.get("default_factory", _MISSING),
                     metadata={**(k2.get("metadata") or {}), "validator": [validator]}, init=k2.get("init", True))
    return NativeFunc(inner, "validated_field", bind=False)


def n_validated_field(i, a, kw):
    validator = a[0] if a else kw.pop("validator")
    if not isinstance(validator, list):
        validator = [validator]
    return Field(default=kw.get("default", _MISSING), default_factory=kw.get("default_factory", _MISSING),
                 metadata={**(kw.get("metadata") or {}), "validator": validator}, init=kw.get("init", True))


# ---------------------------------------------------------------------------
# copy


def deepcopy_value(i, v, memo):
    if id(v) in memo:
        return memo[id(v)]
    if isinstance(v, Inst):
        new = Inst(v._k)
        memo[id(v)] = new
        for key, val in v._d.items():
            new._d[key] = deepcopy_value(i, val, memo)
        return new
    if isinstance(v, dict):
        out = type(v)() if type(v) in (dict, collections.OrderedDict) else {}
        memo[id(v)] = out
        for key, val in v.items():
            out[deepcopy_value(i, key, memo)] = deepcopy_value(i, val, memo)
        return out
    if isinstance(v, list):
        out = []
        memo[id(v)] = out
        out.extend(deepcopy_value(i, x, memo) for x in v)
        return out
    if isinstance(v, tuple):
        return tuple(deepcopy_value(i, x, memo) for x in v)
    if isinstance(v, set):
        return {deepcopy_value(i, x, memo) for x in v}
    if isinstance(v, (Opaque,)):
        raise Unsupported("deepcopy of opaque")
    return v


def n_deepcopy(i, a, kw):
    return deepcopy_value(i, a[0], {})


def n_copy(i, a, kw):
    v = a[0]
    if isinstance(v, Inst):
        new = Inst(v._k)
        new._d.update(v._d)
        return new
    if isinstance(v, (dict, list, set)):
        return v.copy()
    return v


# ---------------------------------------------------------------------------
# transformers auto classes


class ConfigMapping(NativeObj):
    """transformers' ``CONFIG_MAPPING`` (``_LazyConfigMapping``)."""

    def __init__(self, i):
        self.i = i
        self.names = i.tables.get("config_mapping_names", {})
        self.special = i.tables.get("special_model_type_to_module", {})

    def keys(self):
        return list(self.names) + list(self.i.config_extra)

    def n_contains(self, i, item):
        return item in self.names or item in i.config_extra

    def n_iter(self, i):
        return self.keys()

    def resolve(self, key):
        i = self.i
        if key in i.config_extra:
            return i.config_extra[key]
        if key not in self.names:
            raise KeyError(key)
        cls_name = self.names[key]
        mod = self.special.get(key, key.replace("-", "_"))
        prefix = f"transformers.models.{mod}."
        cands = [m for m in i._name_index().get(cls_name, []) if m.startswith(prefix)]
        if not cands:
            cands = [m for m in i._name_index().get(cls_name, []) if m.startswith("transformers.")]
        for m in sorted(cands, key=len):
            v = i.find_module(m).ns.get(cls_name)
            if isinstance(v, Klass):
                return v
        raise Unsupported(f"config class {cls_name} for {key} not extracted")

    def n_getitem(self, i, idx):
        return self.resolve(idx)

    def n_getattr(self, i, name):
        if name == "keys":
            return NativeFunc(lambda i2, a, k: self.keys(), "keys", bind=False)
        if name == "get":
            return NativeFunc(lambda i2, a, k: a[1] if len(a) > 1 else None, "get", bind=False)
        if name == "register":
            def reg(i2, a, k):
                key, value = a[0], a[1]
                if key in self.names and not k.get("exist_ok", a[2] if len(a) > 2 else False):
                    raise ValueError(f"'{key}' is already used by a Transformers config, pick another name.")
                i2.config_extra[key] = value
            return NativeFunc(reg, "register", bind=False)
        if name in ("values", "items"):
            raise Unsupported("CONFIG_MAPPING.values()")
        raise AttributeError(f"'_LazyConfigMapping' object has no attribute '{name}'")


class AutoConfigNative(NativeObj):
    def __init__(self, i, mapping):
        self.i = i
        self.mapping = mapping

    def for_model(self, i, a, kw):
        kw = dict(kw)
        if a:
            model_type, *rest = a
        elif "model_type" in kw:
            model_type, rest = kw.pop("model_type"), []
        else:
            raise TypeError("AutoConfig.for_model() missing 1 required positional argument: 'model_type'")
        if i.contains_native(self.mapping, model_type):
            cls = self.mapping.resolve(model_type)
            return i.call(cls, rest, kw)
        raise ValueError(f"Unrecognized model identifier: {model_type}. Should contain one of "
                         f"{', '.join(self.mapping.keys())}")

    def register(self, i, a, kw):
        model_type, config = a[0], a[1]
        exist_ok = kw.get("exist_ok", a[2] if len(a) > 2 else False)
        if isinstance(config, Klass):
            mt = i.klass_getattr(config, "model_type")
            if mt != model_type:
                raise ValueError(
                    "The config you are passing has a `model_type` attribute that is not consistent with the model "
                    f"type you passed (config has {mt} and you passed {model_type}. Fix one of those so they match!")
        if model_type in self.mapping.names and not exist_ok:
            raise ValueError(f"'{model_type}' is already used by a Transformers config, pick another name.")
        i.config_extra[model_type] = config

    def n_getattr(self, i, name):
        if name == "for_model":
            return NativeFunc(self.for_model, "AutoConfig.for_model", bind=False)
        if name == "register":
            return NativeFunc(self.register, "AutoConfig.register", bind=False)
        raise Unsupported(f"AutoConfig.{name}")


# ---------------------------------------------------------------------------


def build(i) -> dict:
    mapping = ConfigMapping(i)
    auto = AutoConfigNative(i, mapping)
    logging_mod = NativeModule("logging", {
        "get_logger": NativeFunc(lambda i2, a, k: i2._logger, "get_logger", bind=False),
        "getLogger": NativeFunc(lambda i2, a, k: i2._logger, "getLogger", bind=False),
    })
    false_fn = NativeFunc(lambda i2, a, k: False, "false", bind=False)
    ident = NativeFunc(_identity_deco, "identity_decorator", bind=False)
    typing_attrs = {name: getattr(typing, name) for name in (
        "Any", "Optional", "Union", "Literal", "ClassVar", "TypeVar", "Callable", "Sequence", "Iterable",
        "Mapping", "Generic", "Protocol", "Dict", "List", "Tuple", "Set", "Type", "Iterator", "NamedTuple",
        "Final", "get_args", "get_origin")}
    typing_attrs.update({
        "TYPE_CHECKING": False,
        "cast": NativeFunc(lambda i2, a, k: a[1], "cast", bind=False),
        "overload": ident,
        "TypedDict": TYPED_DICT_BASE,
        "NotRequired": typing.Any,
        "Required": typing.Any,
        "Unpack": typing.Any,
        "Self": typing.Any,
        "dataclass_transform": NativeFunc(lambda i2, a, k: ident, "dataclass_transform", bind=False),
    })
    is_torch = NativeFunc(lambda i2, a, k: True, "is_torch_available", bind=False)
    utils_attrs = {
        "logging": logging_mod,
        "is_torch_available": is_torch,
        "is_vision_available": false_fn,
        "is_timm_available": false_fn,
        "is_detectron2_available": false_fn,
        "is_xlstm_available": false_fn,
        "auto_docstring": ident,
        "add_start_docstrings": ident,
        "CONFIG_NAME": "config.json",
    }
    dataclasses_mod = NativeModule("dataclasses", {
        "dataclass": NativeFunc(n_dataclass, "dataclass", bind=False),
        "field": NativeFunc(n_field, "field", bind=False),
        "fields": NativeFunc(n_fields, "fields", bind=False),
        "is_dataclass": NativeFunc(n_is_dataclass, "is_dataclass", bind=False),
        "asdict": NativeFunc(n_asdict, "asdict", bind=False),
        "MISSING": _MISSING,
    })
    act = {name: None for name in i.tables.get("act2fn", [])}
    tf_version = i.tf_version
    hub_dc = NativeModule("huggingface_hub.dataclasses", {
        "strict": NativeFunc(n_strict, "strict", bind=False),
        "as_validated_field": NativeFunc(n_as_validated_field, "as_validated_field", bind=False),
        "validated_field": NativeFunc(n_validated_field, "validated_field", bind=False),
    })
    hub_err = NativeModule("huggingface_hub.errors", {
        "StrictDataclassError": StrictDataclassError,
        "StrictDataclassDefinitionError": StrictDataclassDefinitionError,
        "StrictDataclassFieldValidationError": StrictDataclassFieldValidationError,
        "StrictDataclassClassValidationError": StrictDataclassClassValidationError,
    })
    auto_attrs = {"AutoConfig": auto, "CONFIG_MAPPING": mapping}
    mods = {
        "typing": NativeModule("typing", typing_attrs),
        "typing_extensions": NativeModule("typing_extensions", typing_attrs),
        "collections": NativeModule("collections", {"OrderedDict": collections.OrderedDict,
                                                    "defaultdict": collections.defaultdict}),
        "collections.abc": NativeModule("collections.abc", {n: getattr(collections.abc, n) for n in (
            "Callable", "Iterable", "Iterator", "KeysView", "ValuesView", "Sequence", "Mapping",
            "MutableMapping")}),
        "dataclasses": dataclasses_mod,
        "functools": NativeModule("functools", {
            "wraps": NativeFunc(lambda i2, a, k: ident, "wraps", bind=False),
            "partial": NativeFunc(_partial, "partial", bind=False),
            "lru_cache": ident, "cache": ident, "cached_property": NativeFunc(
                lambda i2, a, k: _cached_property(a[0]), "cached_property", bind=False),
        }),
        "math": NativeModule("math", {n: getattr(math, n) for n in (
            "ceil", "floor", "sqrt", "log", "log2", "log10", "isfinite", "isinf", "isnan", "prod", "gcd", "exp",
            "pow", "inf", "pi", "e", "nan", "fsum", "isclose", "trunc")}),
        "operator": NativeModule("operator", {"itemgetter": operator.itemgetter}),
        "copy": NativeModule("copy", {"deepcopy": NativeFunc(n_deepcopy, "deepcopy", bind=False),
                                      "copy": NativeFunc(n_copy, "copy", bind=False)}),
        "huggingface_hub.dataclasses": hub_dc,
        "huggingface_hub.errors": hub_err,
        "transformers": NativeModule("transformers", {**auto_attrs, "__version__": tf_version,
                                                      "is_torch_available": is_torch},
                                     fallback=lambda name: i.import_from("transformers", name)),
        "transformers.utils": NativeModule("transformers.utils", utils_attrs),
        "transformers.file_utils": NativeModule("transformers.file_utils", utils_attrs),
        "transformers.utils.import_utils": NativeModule("transformers.utils.import_utils", utils_attrs),
        "transformers.utils.logging": logging_mod,
        "transformers.activations": NativeModule("transformers.activations", {"ACT2FN": act}),
        "transformers.models.auto": NativeModule("transformers.models.auto", auto_attrs),
        "transformers.models.auto.configuration_auto": NativeModule(
            "transformers.models.auto.configuration_auto", auto_attrs),
        "transformers.models.auto.modeling_auto": NativeModule("transformers.models.auto.modeling_auto", {
            "MODEL_MAPPING_NAMES": _tuples(i.tables.get("model_mapping_names", {})),
            "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES": _tuples(i.tables.get("causal_lm_mapping_names", {}))}),
        "torch": i._torch,
        "vllm.logger": NativeModule("vllm.logger", {
            "init_logger": NativeFunc(lambda i2, a, k: i2._logger, "init_logger", bind=False)}),
        "logging": logging_mod,
        "re": NativeModule("re", {n: getattr(__import__("re"), n) for n in (
            "match", "search", "sub", "fullmatch", "findall", "split", "compile", "IGNORECASE", "escape")}),
        "regex": NativeModule("regex", {n: getattr(__import__("re"), n) for n in (
            "match", "search", "sub", "fullmatch", "findall", "split", "compile", "IGNORECASE", "escape")}),
        "numpy": NativeModule("numpy", {"prod": NativeFunc(lambda i2, a, k: math.prod(a[0]), "prod", bind=False)}),
        "inspect": NativeModule("inspect", {"signature": NativeFunc(_signature, "signature", bind=False)}),
        "json": NativeModule("json", {"dumps": NativeFunc(_json_dumps, "json.dumps", bind=False)}),
        "warnings": NativeModule("warnings", {"warn": NativeFunc(lambda i2, a, k: None, "warn", bind=False)}),
        # what vLLM's loader helpers import (transformers_utils/config.py)
        "packaging.version": NativeModule("packaging.version", {
            "Version": NativeFunc(lambda i2, a, k: _Version(*a, **k), "Version", bind=False)}),
        "importlib.metadata": NativeModule("importlib.metadata", {
            "version": NativeFunc(_dist_version, "version", bind=False)}),
    }
    i.contains_native = lambda obj, item: obj.n_contains(i, item)
    return mods


def _Version(text):
    from packaging.version import Version
    return Version(text)


def _dist_version(i, a, kw):
    """``importlib.metadata.version``: the modelled transformers line (the only distribution asked for)."""
    name = a[0] if a else kw.get("distribution_name")
    if name == "transformers":
        return i.tf_version
    raise Unsupported(f"version of {name!r}")


class _Signature(NativeObj):
    def __init__(self, params):
        self.params = params

    def n_getattr(self, i, name):
        if name == "parameters":
            return {p: None for p in self.params}
        raise Unsupported(f"Signature.{name}")


def _signature(i, a, kw):
    fn = a[0]
    if isinstance(fn, BoundMethod):
        params = _signature(i, [fn.func], {}).params[1:]
        return _Signature(params)
    if isinstance(fn, NativeFunc) and fn.klass is not None:
        fd = fn.klass.lookup("__dataclass_fields__")[0]
        return _Signature(["self"] + [f.name for f in fd.values() if f.init])
    if isinstance(fn, Func) and "wrap_init_to_accept_kwargs" in fn.qualname:
        raise Unsupported("signature of an accept-kwargs wrapper without its class")
    if isinstance(fn, Func):
        s = fn.spec
        params = list(s["args"])
        if s["vararg"]:
            params.append(s["vararg"])
        params += [k for k, _ in s["kwonly"]]
        if s["kwarg"]:
            params.append(s["kwarg"])
        return _Signature(params)
    raise Unsupported("inspect.signature of this object")


def _json_dumps(i, a, kw):
    import json

    def default(o):
        if isinstance(o, Inst):
            name = o._k.name
        elif isinstance(o, TorchDtype):
            name = "dtype"
        elif isinstance(o, (Opaque, Klass, Func, NativeFunc, BoundMethod)):
            raise Unsupported("json.dumps of an emulated object")
        else:
            name = type(o).__name__
        raise TypeError(f"Object of type {name} is not JSON serializable")
    kw = {k: v for k, v in kw.items() if k in ("indent", "sort_keys", "ensure_ascii", "separators", "allow_nan")}
    return json.dumps(a[0], default=default, **kw)


def _tuples(d):
    return collections.OrderedDict((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items())


def _partial(i, a, kw):
    fn, *args = a

    def call(i2, a2, k2):
        return i2.call(fn, [*args, *a2], {**kw, **k2})
    return NativeFunc(call, "partial", bind=False)


def _cached_property(fn):
    from ._interp import Property
    return Property(fn)


__all__ = ["build", "type_validator", "ConfigMapping", "AutoConfigNative"]
