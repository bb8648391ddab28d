"""What a transformers 5.x configuration class is, read from the real class (tools/facts_extract.py).

transformers 5 turned the configuration classes into ``@strict`` dataclasses: a class declares its
fields (type annotations with defaults), ``__post_init__`` derives the rest, and huggingface_hub's
``@strict`` checks every field assignment against its annotation and runs the class's ``validate_*``
methods after ``__init__``.  ``PreTrainedConfig`` itself is one of them.  This module reads, per class:

* ``fields`` — the dataclass fields the class adds or changes (name, declared type as a small type
  expression, default or default-factory value, field validators such as ``interval(min, max)``);
* ``init`` — whether ``__init__`` is the generated dataclass one (``"dataclass"``) or the class's own
  (``"custom"``, read as in transformers 4 by tools/facts_extract.py), and whether ``@strict`` runs the
  class validators after it;
* ``class_validators`` — the ``validate_*`` methods ``@strict`` snapshotted for the class, in order,
  with the class that defines each;
* ``methods`` — the methods transformers' own code calls on the object (``convert_rope_params_to_dict``,
  ``validate_*``, ``_validate_<rope type>_rope_parameters`` …) that the class defines itself, each as
  steps from the vocabulary or a named behaviour recognised by the fingerprint of its source;
* ``class_attrs`` — class-level values the object falls back to (``default_theta``, plans, …) and,
  from 5.20, ``sub_configs_defaults`` (which class builds which sub-config).

and per line (``base5``): PreTrainedConfig's own fields, class values and validators, which variant
of each shared behaviour the line has (named by fingerprint: :data:`BASE_BEHAVIOURS`), the layer-type
tables, the generation parameters ``__post_init__`` drops and the RoPE key sets per RoPE type.

Types are written as text the runtime parses (kvguard/facts/types5.py): ``int | None``,
``list[int]``, ``dict[str, Any]``, ``Literal['a', 'b']``, ``TypedDict[module.Name]``, a dotted class
name (its kind in ``type_classes``), a quoted string for an annotation Python keeps as a string
(which ``@strict`` does not check).
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import hashlib
import inspect
import json
import textwrap
import types
import typing

_BUILTINS = {int: "int", float: "float", str: "str", bool: "bool", bytes: "bytes", list: "list", dict: "dict",
             tuple: "tuple", set: "set", frozenset: "frozenset", object: "object", complex: "complex",
             type(None): "NoneType"}
_GENERICS = {list: "list", dict: "dict", tuple: "tuple", set: "set", frozenset: "frozenset",
             collections.abc.Sequence: "Sequence", type: "type"}

#: dotted class name -> what it is ({"kind": "config", "name": ...} / "typeddict" / "dtype" / "other"),
#: filled while types are written
TYPE_CLASSES: dict[str, dict] = {}


def _base():
    import transformers
    return transformers.PreTrainedConfig


def is_v5_config(cls) -> bool:
    """A configuration class of transformers 5 (a dataclass below PreTrainedConfig)."""
    try:
        import transformers
    except ImportError:
        return False
    base = getattr(transformers, "PreTrainedConfig", None)
    return base is not None and dataclasses.is_dataclass(base) and isinstance(cls, type) and issubclass(cls, base)


# ---------------------------------------------------------------------------------------------
# types


def _dotted(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def type_expr(t) -> str:
    """A field annotation as the runtime's type text."""
    if t is None:
        return "None"
    if t is type(None):
        return "NoneType"
    if t is typing.Any:
        return "Any"
    if isinstance(t, str):
        return repr(t)
    if isinstance(t, typing.ForwardRef):
        return "ForwardRef[" + repr(t.__forward_arg__) + "]"
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is types.UnionType:
        return " | ".join(type_expr(a) for a in args)
    if origin is typing.Union:
        return "Union[" + ", ".join(type_expr(a) for a in args) + "]"
    if origin is typing.Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin in _GENERICS:
        name = _GENERICS[origin]
        if not args:
            return name + "[]"
        return name + "[" + ", ".join("..." if a is Ellipsis else type_expr(a) for a in args) + "]"
    if t in _BUILTINS:
        return _BUILTINS[t]
    if typing.is_typeddict(t):
        name = _dotted(t)
        TYPE_CLASSES[name] = {"kind": "typeddict"}
        return f"TypedDict[{name}]"
    if isinstance(t, type):
        name = _dotted(t)
        if name not in TYPE_CLASSES:
            TYPE_CLASSES[name] = _class_kind(t)
        return name
    return "?" + repr(repr(t))


def _class_kind(t) -> dict:
    if t.__module__ == "torch" and t.__name__ == "dtype":
        return {"kind": "dtype"}
    try:
        if issubclass(t, _base()):
            return {"kind": "config", "name": t.__name__}
    except TypeError:
        pass
    return {"kind": "other", "mro": [_dotted(k) for k in t.__mro__]}


# ---------------------------------------------------------------------------------------------
# field validators


def _field_validator(fn) -> list:
    """A field validator (``metadata["validator"]`` entry) -> a named check."""
    qual = getattr(fn, "__qualname__", "")
    try:
        closure = inspect.getclosurevars(fn).nonlocals
    except TypeError:
        closure = {}
    if qual == "interval.<locals>._inner":
        lo, hi = closure.get("min"), closure.get("max")
        return ["interval", {"min": None if lo == float("-inf") else lo, "max": None if hi == float("inf") else hi,
                             "exclude_min": closure.get("exclude_min"), "exclude_max": closure.get("exclude_max"),
                             "message": closure.get("error_message")}]
    if qual == "probability":
        return ["probability", {}]
    if qual == "is_divisible_by.<locals>._inner":
        return ["divisible_by", {"divisor": closure.get("divisor")}]
    if qual == "activation_fn_key":
        from transformers.activations import ACT2FN
        return ["activation_fn_key", {"keys": list(ACT2FN.keys())}]
    return ["opaque", {"qualname": qual}]


# ---------------------------------------------------------------------------------------------
# fields


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(_jsonable(v) for v in value)}
    if isinstance(value, tuple):
        return {"tuple": [_jsonable(v) for v in value]}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        # the tables are written with sorted keys: a dict whose order is not sorted keeps it as a list of pairs
        if all(isinstance(k, str) for k in value) and list(value) == sorted(value):
            return {"dict": {k: _jsonable(v) for k, v in value.items()}}
        return {"dict_items": [[_jsonable(k), _jsonable(v)] for k, v in value.items()]}
    if isinstance(value, float) and value != value:
        raise TypeError("nan")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(type(value).__name__)


def _value(value) -> dict:
    # infinities are written as Python's json writes them (``Infinity``), as tools/facts_extract.py writes the
    # transformers 4 defaults: the Mamba-family ``time_step_limit`` default is ``(0.0, inf)``
    try:
        return {"literal": json.loads(json.dumps(_jsonable(value)))}
    except (TypeError, ValueError):
        return {"opaque_default": type(value).__name__}


def _field_info(f) -> dict:
    info: dict = {"type": type_expr(f.type)}
    if f.default is not dataclasses.MISSING:
        info["default"] = _value(f.default)
    elif f.default_factory is not dataclasses.MISSING:
        try:
            info["factory"] = _value(f.default_factory())
        except Exception as exc:  # noqa: BLE001 - measured: what the factory raises
            info["factory"] = {"raises": [type(exc).__name__, str(exc)]}
    else:
        info["required"] = True
    validators = f.metadata.get("validator") if f.metadata else None
    if validators is not None:
        if not isinstance(validators, list):
            validators = [validators]
        info["validators"] = [_field_validator(v) for v in validators]
    if not f.init:
        info["init"] = False
    return info


def _all_fields(cls) -> list:
    return [[f.name, _field_info(f)] for f in dataclasses.fields(cls)]


def fields_record(cls, parent) -> dict:
    """The fields ``cls`` adds or changes relative to ``parent`` (the nearest config class above it, or
    PreTrainedConfig); the full list when the order is not parent's order + the new ones."""
    mine = _all_fields(cls)
    theirs = _all_fields(parent)
    known = dict(theirs)
    changed = [[n, i] for n, i in mine if known.get(n) != i]
    merged = dict(theirs)
    for n, i in changed:
        merged[n] = i
    if list(merged) != [n for n, _ in mine]:
        return {"fields": mine, "fields_complete": True}
    return {"fields": changed} if changed else {}


# ---------------------------------------------------------------------------------------------
# __init__, validators, methods


def _unwrapped_init(cls):
    init = cls.__dict__.get("__init__")
    if init is None:
        return None
    return inspect.unwrap(init)


def init_kind(cls) -> str:
    """``"dataclass"`` when the class's ``__init__`` is generated (fields + ``__post_init__``), ``"custom"``
    when the class wrote its own."""
    fn = _unwrapped_init(cls)
    if fn is None:
        return "inherited"
    code = getattr(fn, "__code__", None)
    if code is None or code.co_filename == "<string>":
        return "dataclass"
    return "custom"


def custom_init(cls):
    return _unwrapped_init(cls) if init_kind(cls) == "custom" else None


def validates_after_init(cls) -> bool:
    """``@strict`` wrapped this class's ``__init__`` so that it runs the class validators afterwards."""
    validate = cls.__dict__.get("validate")
    return bool(validate is not None and getattr(validate, "__is_defined_by_strict_decorator__", False))


def class_validators(cls) -> "list | None":
    """The ``validate_*`` snapshot ``@strict`` took for ``cls``: [name, defining class] in order."""
    snap = cls.__dict__.get("__class_validators__")
    if not isinstance(snap, list):
        return None
    out = []
    for fn in snap:
        qual = getattr(fn, "__qualname__", "?")
        owner = qual.rsplit(".", 1)[0] if "." in qual else "?"
        out.append([fn.__name__, owner])
    return out


#: methods transformers' shared code calls on a config object (so a class overriding one changes what it does)
DISPATCHED = ("convert_rope_params_to_dict", "standardize_rope_params", "validate_rope", "nested_rope_parameter_keys",
              "_check_received_keys", "to_dict", "to_diff_dict", "__iter__", "default_config_fields")


def own_methods(cls) -> list[str]:
    """The methods a class defines itself (not dunder ones, not ``@strict``'s ``validate``): what the shared code,
    the class's steps and its properties may call on the object."""
    out = []
    for name, value in cls.__dict__.items():
        fn = getattr(value, "__func__", value)
        if not callable(fn) or isinstance(value, (type, property)) or not isinstance(fn, types.FunctionType):
            continue
        if name.startswith("__") and name not in DISPATCHED:
            continue
        if name == "validate" and getattr(fn, "__is_defined_by_strict_decorator__", False):
            continue
        if name in ("get_text_config",):  # written as ``text_config_rule`` by tools/facts_extract.py
            continue
        out.append(name)
    return out


def fingerprint(fn) -> "str | None":
    """sha256 (12 hex) of a function's source with docstrings blanked, its name, decorators, annotations removed."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            node.value.value = ""
        if isinstance(node, ast.arg):
            node.annotation = None
    func = tree.body[0]
    func.name = "_"
    func.decorator_list = []
    func.returns = None
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:12]


def _method(cls, name: str, method_step) -> dict:
    """A method's record; a ``@staticmethod`` binds every parameter (``validate_*`` static methods get the object)."""
    value = cls.__dict__[name]
    out = method_step(cls, name, value)
    if isinstance(value, staticmethod) and "params" in out:
        out["params"] = [[p.name, {"required": True} if p.default is p.empty else _value(p.default)]
                         for p in inspect.signature(value.__func__).parameters.values()
                         if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        out["static"] = True
    return out


def _called_methods(steps: list) -> list:
    """Methods the steps call on the object (``call_method`` steps and steps that name one in ``m``)."""
    out = []
    for step in steps:
        if isinstance(step, list) and len(step) == 2 and isinstance(step[0], str) and isinstance(step[1], dict):
            if isinstance(step[1].get("m"), str):
                out.append(step[1]["m"])
        elif isinstance(step, list):
            out += _called_methods([s for s in step if isinstance(s, list)])
    return out


def _plain_params(fn) -> list:
    """A method's named parameters after ``self`` (not ``*args`` / ``**kwargs``): [name, default]."""
    out = []
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        out.append([p.name, {"required": True} if p.default is p.empty else _value(p.default)])
    return out


def _class_attr_value(value):
    if isinstance(value, type):
        return {"class": value.__name__}
    return _value(value)


#: class-level names not worth keeping (methods, descriptors, dataclass machinery)
_SKIP_ATTRS = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__",
               "__dataclass_fields__", "__dataclass_params__", "__match_args__", "__validators__",
               "__class_validators__", "__hash__", "__parameters__", "__orig_bases__", "__firstlineno__",
               "__static_attributes__", "__abstractmethods__", "_abc_impl", "__signature__"}


def class_attrs(cls, field_names: set) -> dict:
    """Class-level values ``cls`` defines (not fields, not methods): what an attribute read falls back to."""
    out = {}
    for name, value in cls.__dict__.items():
        if name in _SKIP_ATTRS or name in field_names or name == "sub_configs_defaults":
            continue
        if callable(value) and not isinstance(value, type) or isinstance(
                value, (property, classmethod, staticmethod, types.FunctionType)):
            continue
        if name.startswith("__") and name.endswith("__"):
            continue
        out[name] = _class_attr_value(value)
    return out


def sub_configs_defaults(cls) -> "dict | None":
    specs = cls.__dict__.get("sub_configs_defaults")
    if not isinstance(specs, dict):
        return None
    out = {}
    for key, spec in specs.items():
        klass = getattr(spec, "config_class", None)
        try:
            is_config = isinstance(klass, type) and issubclass(klass, _base())
        except TypeError:
            is_config = False
        out[key] = {"class": klass.__name__ if is_config else None,
                    "auto": None if is_config else getattr(klass, "__name__", repr(klass)),
                    "model_type": getattr(spec, "model_type", None),
                    "init_kwargs": _value(getattr(spec, "init_kwargs", {})),
                    "optional": bool(getattr(spec, "optional", False))}
    return out


def describe(cls, rec: dict, parent, method_step) -> None:
    """Add the 5.x facts of ``cls`` to its record (tools/facts_extract.py describe_class)."""
    base = _base()
    parent = parent if parent is not None else base
    rec["init_kind"] = init_kind(cls)
    rec.update(fields_record(cls, parent))
    field_names = {f.name for f in dataclasses.fields(cls)}
    if validates_after_init(cls):
        rec["validates"] = True
    if "__validators__" in cls.__dict__:
        rec["strict"] = True
    snap = class_validators(cls)
    if snap is not None:
        rec["class_validators"] = snap
    methods = {}
    for name in own_methods(cls):
        methods[name] = _method(cls, name, method_step)
    # methods the class's own steps call on the object (``self.<m>(...)``) that it defines itself
    pending = True
    while pending:
        pending = False
        steps = rec.get("init", []) + rec.get("post_init", []) + [
            s for m in methods.values() for s in m.get("steps", [])]
        for name in _called_methods(steps):
            value = cls.__dict__.get(name)
            if name not in methods and value is not None and callable(getattr(value, "__func__", value)):
                methods[name] = _method(cls, name, method_step)
                pending = True
    if methods:
        rec["methods"] = methods
    post_init = cls.__dict__.get("__post_init__")
    if post_init is not None:
        params = _plain_params(post_init)
        if params:
            rec["post_init_params"] = params
    attrs = class_attrs(cls, field_names)
    for key in ("model_type", "attribute_map", "base_config_key", "has_no_defaults_at_init", "is_composition",
                "sub_configs"):
        attrs.pop(key, None)
    if attrs:
        rec["class_attrs"] = attrs
    subs = sub_configs_defaults(cls)
    if subs is not None:
        rec["sub_configs_defaults"] = subs
        rec["sub_configs_order"] = list(subs)
    elif isinstance(cls.__dict__.get("sub_configs"), dict):
        rec["sub_configs_order"] = list(cls.__dict__["sub_configs"])


# ---------------------------------------------------------------------------------------------
# PreTrainedConfig and the line's shared facts

#: fingerprints of the shared code, per behaviour: the variant kvguard implements for it
#: (kvguard/facts/transformers5.py, rope5.py); an unknown fingerprint is written as {"unknown": fp}
BASE_BEHAVIOURS: dict[str, dict[str, str]] = {
    # what differs between the lines
    "__post_init__": {"23dec0993abe": "5.17", "bd4db624c59b": "5.19", "1d69586b7650": "5.20", "1845b7242446": "5.24"},
    "convert_rope_params_to_dict": {"24ccbcaf5928": "5.17", "4ca4c87d7832": "5.19", "fc1f2592520b": "5.20"},
    "standardize_rope_params": {"d9df97058050": "5.17", "2ad29833c5a1": "5.19"},
    "validate_rope": {"292654f5b22b": "5.17", "f4890a44bd2a": "5.19"},
    "nested_rope_parameter_keys": {"a28a3ad72b4a": "declared_layer_types"},
    "validate_layer_type": {"492a505bf2b7": "remap_custom_code", "d0331ab37fc6": "plain"},
    "rope_scaling.setter": {"60e5b86eda51": "store", "51f92b8d5cc4": "store_and_standardize"},
    "to_diff_dict": {"5ed810fdaf04": "default_instance", "e55fb957fb2c": "field_defaults"},
    "module:remap_legacy_layer_types": {"7eac09536078": "list", "6405293281f2": "list_or_config"},
    "_remove_keys_not_serialized": {"e40b1468e673": "5.17", "66b4569ed7c8": "5.24"},
    "SubConfigSpec.create_subconfig": {"cf77c0f60427": "5.20"},
    "SubConfigSpec.get_config_class": {"5bb19817c68e": "5.20"},
    "from_dict": {"f4fe4c63a404": "5.17", "add5e5868dc3": "5.19"},
    "_get_config_dict": {"d9c43430ffd7": "commit_hash", "832959ee202d": "plain", "2fc0063f27f5": "plain"},
    # the same in every 5.x line so far
    "__getattribute__": {"4cf931c7dd9a": "attribute_map"},
    "__setattr__": {"6391966f2641": "attribute_map"},
    "__iter__": {"42071f6ae455": "instance_keys"},
    "__repr__": {"62b296024371": "json_diff"},
    "to_dict": {"8e227246ad44": "5.17"},
    "to_json_string": {"e362fe42e550": "5.17"},
    "dict_dtype_to_str": {"5a8583e31db7": "5.17"},
    "module:recursive_diff_dict": {"81fb8bb41d58": "5.17"},
    "get_text_config": {"0fb1034f3451": "5.17"},
    "validate_architecture": {"28dfe74b79f7": "embed_dim"},
    "validate_token_ids": {"9f7529d3e74a": "warn_only"},
    "validate_output_attentions": {"aaab565a930f": "eager_only"},
    "_check_received_keys": {"6f46bda0fab5": "5.17"},
    "_attn_implementation.setter": {"c96a23f438f0": "recursive"},
    "_experts_implementation.setter": {"c4c62231c713": "recursive"},
    "num_labels": {"9f4ec712852f": "len_id2label"},
    "num_labels.setter": {"114cb9bf6c53": "labels"},
    "output_attentions.setter": {"b9d2f2527c15": "eager"},
    "name_or_path.setter": {"c17c22fb1e30": "str"},
    "is_heterogeneous": {"94738256056e": "spec"},
    "per_layer_config.setter": {"29427d2fc744": "apply"},
    "_iter_config_keys_with_heterogeneous_adjustment": {"4469f13f2741": "5.17"},
    # transformers/integrations/heterogeneity/configuration_utils.py as a whole (kvguard/facts/hetero5.py)
    "heterogeneity": {"17b0219fd306": "5.17"},
    # the RoPE checks per type (_validate_<type>_rope_parameters)
    "rope:default": {"7b4f315460e0": "keys"},
    "rope:axial": {"e79b0f575d93": "as_default"},
    "rope:linear": {"f047d9acda86": "factor"},
    "rope:dynamic": {"f047d9acda86": "factor"},
    "rope:yarn": {"a20655328008": "yarn"},
    "rope:longrope": {"41002b0aafbb": "longrope"},
    "rope:llama3": {"fe1c51f3eff4": "llama3"},
    "rope:proportional": {"b3899e700138": "proportional"},
}


def _behaviour(name: str, fn) -> "str | dict":
    fp = fingerprint(fn)
    known = BASE_BEHAVIOURS.get(name, {}).get(fp)
    return known if known is not None else {"unknown": fp}


def _module_behaviour(name: str, module_name: str) -> "str | dict":
    """A whole module's behaviour (its source with docstrings blanked), e.g. the per-layer config mixin."""
    import importlib
    try:
        module = importlib.import_module(module_name)
        tree = ast.parse(inspect.getsource(module))
    except (ImportError, OSError, TypeError, SyntaxError):
        return {"unknown": None}
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            node.value.value = ""
    fp = hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:12]
    known = BASE_BEHAVIOURS.get(name, {}).get(fp)
    return known if known is not None else {"unknown": fp}


def _base_methods() -> dict:
    import transformers.configuration_utils as cu
    base = _base()
    out = {}
    for klass in base.__mro__:
        for name, value in klass.__dict__.items():
            fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if not callable(fn) or isinstance(value, type) or name in out:
                continue
            if isinstance(value, property) and value.fset is not None:
                out[name + ".setter"] = value.fset
            if klass is object or (name.startswith("__") and name not in (
                    "__post_init__", "__iter__", "__setattr__", "__getattribute__", "__init_subclass__",
                    "__repr__", "__eq__")):
                continue
            out[name] = fn
    for name in ("remap_legacy_layer_types", "recursive_diff_dict"):
        if hasattr(cu, name):
            out["module:" + name] = getattr(cu, name)
    spec = getattr(cu, "SubConfigSpec", None)
    if spec is not None:
        for name in ("create_subconfig", "get_config_class", "default_config_fields", "__init__"):
            if name in spec.__dict__:
                out["SubConfigSpec." + name] = spec.__dict__[name]
    return out


def _rope_key_sets(base) -> dict:
    """Per RoPE type (``_validate_<type>_rope_parameters``): its required / optional key sets and its check."""
    out = {}
    for name in dir(base):
        if not (name.startswith("_validate_") and name.endswith("_rope_parameters")):
            continue
        rope_type = name[len("_validate_"):-len("_rope_parameters")]
        fn = getattr(base, name)
        entry = {"check": _behaviour("rope:" + rope_type, fn), "required": None, "optional": None}
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id in ("required_keys", "optional_keys"):
                try:
                    entry[node.targets[0].id.split("_")[0]] = sorted(ast.literal_eval(node.value))
                except ValueError:
                    entry[node.targets[0].id.split("_")[0]] = {"opaque": True}
        out[rope_type] = entry
    return out


def base_facts() -> dict:
    import transformers.configuration_utils as cu
    from transformers.generation.configuration_utils import GenerationConfig
    base = _base()
    field_names = {f.name for f in dataclasses.fields(base)}
    attrs = {}
    for klass in reversed(base.__mro__):
        if klass is object:
            continue
        attrs.update(class_attrs(klass, field_names))
    attrs.pop("sub_configs", None)
    behaviours = {name: _behaviour(name, fn) for name, fn in sorted(_base_methods().items())}
    behaviours["heterogeneity"] = _module_behaviour("heterogeneity", "transformers.integrations.heterogeneity."
                                                    "configuration_utils")
    gen = GenerationConfig._get_default_generation_params() if hasattr(
        GenerationConfig, "_get_default_generation_params") else {}
    out = {"fields": _all_fields(base),
           "class_attrs": attrs,
           "class_validators": class_validators(base),
           "behaviours": behaviours,
           "generation_params": sorted(gen),
           "legacy_layer_type_remap": dict(getattr(cu, "_LEGACY_LAYER_TYPE_REMAP", {})),
           "allowed_attn_layer_types": list(getattr(cu, "ALLOWED_ATTN_LAYER_TYPES", ())),
           "allowed_mlp_layer_types": list(getattr(cu, "ALLOWED_MLP_LAYER_TYPES", ())),
           "rope": _rope_key_sets(base)}
    return out


def type_classes() -> dict:
    return dict(sorted(TYPE_CLASSES.items()))


def is_strict_hook(cls, name: str) -> bool:
    """``__setattr__`` that ``@strict`` installed (its field validation is part of the tables, not a hook)."""
    fn = cls.__dict__.get(name)
    return name == "__setattr__" and getattr(fn, "__name__", "") == "__strict_setattr__"


#: methods a class defines, by fingerprint (tools/facts_extract.py _method_facts): the named behaviour they have
#: ``__post_init__`` methods that are programs of their own, by fingerprint: the steps recorded for them (a named
#: derivation in kvguard/facts/classes5.py, then the parent's ``__post_init__`` where the method calls it last);
#: ``{"$global": NAME}`` arguments are read from the class's module
#: the audio defaults NemotronH_Omni_Reasoning_V3_Config's __post_init__ supplies (its literal, in its order)
_OMNI_AUDIO_DEFAULTS = [["attention_bias", False], ["scale_input", False]]


def _omni_build_5_19(var: str, model_type: str, none_kw_vars: "dict | None") -> dict:
    """The sub_config step facts_subconfigs writes for ``if isinstance(v, dict): v = CONFIG_MAPPING[t](**v)`` /
    ``elif v is None: v = CONFIG_MAPPING[t](...)`` (transformers 5.19's Nemotron-3-Nano-Omni vision / text)."""
    none_op = {"class": {"mapping": model_type}, "op": "build", "target": var}
    if none_kw_vars:
        none_op["kw_vars"] = none_kw_vars
    return {"cases": [[["none"], [none_op]],
                      [["empty_dict", "dict", "dict_mt"], [{"class": {"mapping": model_type}, "from": var,
                                                            "op": "build", "target": var}]],
                      [["config", "falsy", "truthy"], []]], "var": var}


KNOWN_POST_INITS5: dict[str, list] = {
    "26b529c2c2e5": [["deepseek_v4_post_init",                          # DeepseekV4Config (5.19, 5.20)
                      {"ratio_to_layer_type": {"$global": "_COMPRESS_RATIO_TO_LAYER_TYPE"}}]],
    "0e47b47677fc": [["step3p7_text_post_init",                         # Step3p7TextConfig (5.19-5.24)
                      {"sparse_keys": [["index_n_heads", "sparse_num_index_heads"],
                                       ["index_head_dim", "sparse_index_dim"],
                                       ["index_block_size", "sparse_block_size"],
                                       ["index_topk_blocks", "sparse_topk_blocks"],
                                       ["index_local_blocks", "sparse_local_block"]]}]],
    # Cosmos3EdgeTextConfig (5.20): RoPE parameters defaulted (the method's mRoPE sections), then head size and KV heads
    "a875d15017b7": [["cosmos3_edge_text_rope_default", {"mrope_section": [24, 20, 20]}],
                     ["floordiv_if_none", {"a": "self.hidden_size", "b": "self.num_attention_heads",
                                           "t": "self.head_dim"}],
                     ["default_if_none", {"a": "self.num_key_value_heads", "b": "self.num_attention_heads"}],
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}]],
    "30cc96ad73d4": [["dory_post_init", {}],                             # vLLM's DoryConfig (0.33.0)
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}]],
    # OpenAIPrivacyFilterConfig (5.17-5.24): its NER labels (a module tuple) as the default id2label, the YaRN
    # RoPE parameters it defaults to (the method's literal)
    "dba2a5e2891b": [["openai_privacy_filter_post_init",
                      {"labels": {"$global": "OPENAI_PRIVACY_FILTER_NER_LABELS"},
                       # pairs, in the method's order (the tables are written with sorted keys; the dict's order
                       # is what a message printing it shows)
                       "rope_default": [["rope_type", "yarn"], ["factor", 32.0], ["beta_fast", 32.0],
                                        ["beta_slow", 1.0], ["truncate", False],
                                        ["original_max_position_embeddings", 4096]]}],
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}]],
    # NemotronH_Omni_Reasoning_V3_Config: the legacy field names of released checkpoints (the class's table) and
    # the Parakeet audio defaults (the method's literal, in its order); 5.20 / 5.24 leave the audio dict to the
    # parent's sub-config build, 5.19 builds it (parakeet_encoder) between its own vision / text builds and the
    # parent, then gives the text config the top level's attention implementation
    "58eddfa6615b": [["legacy_fields_if_class_value", {"table": "_legacy_field_names"}],
                     ["nemotron_h_omni_audio_config", {"defaults": _OMNI_AUDIO_DEFAULTS}],
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}]],
    # RadioConfig (5.19-5.24): the patch sizes (a statement each, one named derivation), then the steps the
    # extractor names on its own (summary indices defaulted, the normalisation constants made lists)
    "1db3f758fad2": [["radio_patch_dims", {}],
                     ["const_if_none", {"a": "self.summary_idxs", "v": {"literal": [0, 1]}}],
                     ["to_list", {"a": "self.norm_mean", "t": "self.norm_mean"}],
                     ["to_list", {"a": "self.norm_std", "t": "self.norm_std"}],
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}]],
    "764ab14d5f38": [["legacy_fields_if_class_value", {"table": "_legacy_field_names"}],
                     ["sub_config", _omni_build_5_19("self.vision_config", "radio", {
                         "video_temporal_patch_size": "self.video_temporal_patch_size"})],
                     ["sub_config", _omni_build_5_19("self.text_config", "nemotron_h", None)],
                     ["nemotron_h_omni_audio_config", {"defaults": _OMNI_AUDIO_DEFAULTS, "build": "parakeet_encoder"}],
                     ["super", {"keywords": [["**", "kwargs"]], "method": "__post_init__", "positional": 0}],
                     ["set_nested_attr", {"attr": "_attn_implementation", "name": "_attn_implementation",
                                          "o": "self.text_config", "s": "self"}]],
}


def known_post_init(cls, fn) -> "list | None":
    """The steps of a ``__post_init__`` recognised by fingerprint (KNOWN_POST_INITS5), else None."""
    known = KNOWN_POST_INITS5.get(fingerprint(fn))
    if known is None:
        return None
    return [[name, resolve_args(cls, args)] for name, args in known]


def resolve_args(cls, args: dict) -> dict:
    """A named behaviour's arguments: ``{"$global": NAME}`` replaced by the value of the class module's NAME."""
    import sys
    module = sys.modules.get(cls.__module__)
    out = {}
    for key, value in args.items():
        if isinstance(value, dict) and set(value) == {"$global"}:
            value = _value(getattr(module, value["$global"]))["literal"]
        out[key] = value
    return out


def _fold_names(cls, args: dict, table: str = "sub_configs_defaults") -> dict:
    """``fold_kwargs_into_sub_config_if_none`` / ``fold_kwargs_for_sub_config``: the names of the sub-config class
    the statement reads (from ``table``), measured (``__dataclass_fields__`` holds the class-level annotated names
    too, e.g. ``model_type``), plus its aliases."""
    key = args["key"]["literal"]
    spec = getattr(cls, table)[key]
    target = getattr(spec, "config_class", spec)
    names = set(target.__dataclass_fields__) | set(getattr(target, "attribute_map", {}) or {})
    return {"names": {"literal": sorted(names)}, "class": target.__name__}


def _class_attr_list(cls, args: dict) -> dict:
    """``list(type(self).<attr>)``: the class attribute's items, as a literal (Step5VLConfig's architectures)."""
    return {"v": {"literal": list(getattr(cls, args.pop("attr")))}}


#: steps whose statement reads something of a class (not of the object): the extractor measures it into the
#: step's arguments (step name -> function(class, arguments) -> arguments to add)
MEASURED_STEPS = {"kwargs_set_if_none": _class_attr_list,
                  "fold_kwargs_into_sub_config_if_none": _fold_names,
                  "fold_kwargs_for_sub_config": lambda cls, args: _fold_names(cls, args, "sub_configs")}


KNOWN_METHODS5: dict[str, list] = {
    "52aeb012b59b": ["deepseek_v4_validate_rope", {}],                        # DeepseekV4Config
    "777e2c86ec2e": ["deepseek_v4_validate_layer_type",
                     {"layer_types": {"$global": "DEEPSEEK_V4_LAYER_TYPES"},
                      "mlp_layer_types": {"$global": "DEEPSEEK_V4_MLP_LAYER_TYPES"}}],
    "6fa08c3d1c66": ["phi3_rope_validation_5", {}],      # Phi3Config.validate_rope (also Phi4Multimodal)
    "9b53edd48787": ["phimoe_rope_validation_5", {}],    # PhimoeConfig.validate_rope
    # HunYuanVLTextConfig (5.17-5.24): the legacy xdrope alias and rope type folded after the RoPE conversion,
    # the multimodal RoPE sections checked against half the head size
    "c9e7a5094c80": ["hunyuan_vl_convert_rope_params", {}],
    "8682074bd23b": ["hunyuan_vl_mrope_section_alias", {}],
    "902f25687038": ["hunyuan_vl_mrope_section_check", {}],
    # vLLM's DoryConfig (0.33.0): its layout, architecture and RoPE checks
    "34bc8304cab2": ["dory_validate_layer_type", {}],
    "8bb52c91cdc3": ["dory_validate_architecture", {}],
    "2089d45f7e4a": ["dory_validate_rope", {}],
    # NemotronH_Omni_Reasoning_V3_Config (5.19-5.24): the parent's checks, then the vision tower's temporal patch size
    "6a1067c656bf": ["nemotron_h_omni_validate_architecture", {}],
    "cca9edfc4ee1": ["radio_validate_architecture", {}],                     # RadioConfig (5.19-5.24)
    # Qwen4ExpTextConfig (5.19-5.24; 5.17's names another sparse layer kind and stays declined): its invariants
    "28f0ba3640e8": ["qwen4_exp_validate_architecture", {"layer_types": ["indexed_attention", "linear_attention"]}],
    "091250f9a632": ["cosmos3_edge_text_validate_architecture", {}],         # Cosmos3EdgeTextConfig (5.20)
    "22ae004c836f": ["nemotron_h_layer_types_validation", {"valid": ["full_attention", "linear_attention", "moe",
                                                                      "mlp"]}],  # NemotronHConfig
}


def _joined_log(stmt) -> bool:
    """``logger.warning*(f"... {', '.join(names)} ...")``: a log call whose message joins a list of strings the class
    built itself (nothing in it can raise)."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id == "logger" and len(stmt.value.args) == 1 and not stmt.value.keywords):
        return False
    arg = stmt.value.args[0]
    if not isinstance(arg, ast.JoinedStr):
        return False
    for part in arg.values:
        if isinstance(part, ast.Constant):
            continue
        value = part.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join"
                and isinstance(value.func.value, ast.Constant) and len(value.args) == 1
                and isinstance(value.args[0], ast.Name)):
            return False
    return True


def _log_of_test(stmt, tests: list) -> bool:
    """A log call whose message only formats names, attributes and expressions an enclosing ``if`` test already
    computed (so formatting it cannot raise anything the test did not)."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id == "logger" and not stmt.value.keywords):
        return False
    computed = {ast.dump(sub) for test in tests for sub in ast.walk(test)}
    for arg in stmt.value.args:
        parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
        for part in parts:
            if isinstance(part, ast.Constant):
                continue
            value = part.value if isinstance(part, ast.FormattedValue) else part
            if isinstance(part, ast.FormattedValue) and part.format_spec is not None:
                return False
            if isinstance(value, (ast.Name, ast.Constant)) or (
                    isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
                continue
            if ast.dump(value) not in computed:
                return False
    return True


def strip_logs(stmt, is_noise):
    """``stmt`` without the log calls inside its branches that cannot raise (a branch left empty becomes
    ``pass``); an ``if`` over a plain name that only logs a joined list becomes ``pass``."""
    import copy

    if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and not stmt.orelse \
            and all(_joined_log(s) or is_noise(s) for s in stmt.body):
        return ast.Pass()

    def clean(body: list, tests: list) -> list:
        kept = [s for s in body if not (is_noise(s) or _log_of_test(s, tests))]
        return kept if kept else [ast.Pass()]

    def visit(node, tests: list):
        if isinstance(node, ast.If):
            inner = tests + [node.test]
            node.body = clean(node.body, inner)
            node.orelse = clean(node.orelse, inner) if node.orelse else node.orelse
            for child in node.body + node.orelse:
                visit(child, inner)
        return node

    if not isinstance(stmt, ast.If):
        return stmt
    return visit(copy.deepcopy(stmt), [])


#: property getters of transformers 5 classes, by fingerprint (tools/facts_extract.py ``_fingerprint_source``):
#: the derivation they compute (kvguard/facts/transformers5.py ``_class_property``)
KNOWN_PROPERTIES5: dict[str, list] = {
    "d980d6df1b62": ["repeat_per_layer", {"value": "linear_attention"}],        # Mamba, FalconMamba layer_types
    "f29eaa106012": ["mapped_from", {"source": "layers_block_type", "when": "mamba", "hit": "linear_attention",
                                     "miss": "full_attention"}],               # Jamba layer_types
    "6f2e96c8a479": ["const_mul", {"k": 2, "a": "num_layers"}],                  # LongcatFlash num_hidden_layers
    "7e5969a67f6f": ["length_of", {"a": "layers_block_type"}],                   # NemotronH num_hidden_layers
    "b2b9b06da7df": ["method_of", {"m": "_list_to_pattern", "a": "layers_block_type"}],      # NemotronH
    "6743b76b7a50": ["method_of", {"m": "_list_to_pattern", "a": "mtp_layers_block_type"}],  # NemotronH
    "8b4624553682": ["alias", {"a": "audio_embed_dim"}],          # Gemma4UnifiedAudio hidden_size and friends
    "314dfc03712b": ["truediv", {"a": "hidden_size", "b": "dim_model_base"}],   # MiniCPM3 logits_scaling
    "ed824781109f": ["alias", {"a": "_pad_token_id"}],
    "5e60e07b533b": ["sum", {"a": "num_cls_tokens", "b": "num_registers"}],    # RadioConfig num_summary_tokens    # Idefics3, SmolVLM pad_token_id (a deprecation log)
}


def known_properties(cls, props: dict) -> dict:
    """The class's own properties with the 5.x getter derivations recognised (setters: tools/facts_extract.py
    ``_properties``)."""
    out = {}
    for name, entry in props.items():
        entry = dict(entry)
        if entry.get("kind") == "opaque":
            known = KNOWN_PROPERTIES5.get(entry.get("fingerprint"))
            if known is not None:
                setter = {k: v for k, v in entry.items() if k.startswith("setter")}
                entry = {"kind": known[0], **known[1], **setter}
        out[name] = entry
    return out
