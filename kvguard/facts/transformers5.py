"""transformers 5.x config objects (the lines vLLM 0.24.0–0.33.0 run with: 5.24.0, 5.17.0, 5.19.0, 5.20.2).

transformers 5 made every configuration class a ``@strict`` dataclass (transformers
``configuration_utils.py``, huggingface_hub ``dataclasses.py``): the generated ``__init__`` assigns
every field (its value or its default) and hands the remaining keyword arguments to
``__post_init__``; each assignment is checked against the field's declared type and validators; the
class's ``__post_init__`` derives attributes and ends in ``PreTrainedConfig.__post_init__`` (dtype,
labels, the RoPE conversion of ``rope_scaling`` / ``rope_theta``, extra keys stored as attributes);
then the class validators (``validate_*``) run.  Classes with their own ``__init__`` (vLLM's) keep the
transformers-4 shape and end in ``PreTrainedConfig.__init__``.

What every class shares is written here in kvguard's own code; which variant of each shared
behaviour a line has, and everything per class (fields, steps, validators, class values), comes from
the class tables (``kvguard/data/facts/transformers-<line>.json``, tools/facts_extract.py).
Exception types and messages are the library's, character for character.
"""

from __future__ import annotations

from ..errors import Undecidable
from . import hetero5, rope5
from .frame import Frame, bind_init_parameters, literal, super_call_kwargs
from .library import ConfigLibrary
from .objects import ClassFacts, ConfigObject, torch_attribute
from .steps import Returned, run_steps
from .strict import StrictDataclassClassValidationError, check_field, parse_type
from .transformers4 import FORWARD_MISSING, class_property_set, forwarded_read, forwarded_write

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Transformers5"]

#: the classes PreTrainedConfig's own methods are defined in (as ``@strict`` names them in its snapshots)
_BASE_OWNERS = frozenset({"PreTrainedConfig", "PretrainedConfig", "RotaryEmbeddingConfigMixin",
                          "HeterogeneousConfigMixin"})
_GETTER_ONLY = frozenset({"use_return_dict", "is_heterogeneous", "per_layer_attributes", "sub_configs"})
_BASE_PROPERTIES = frozenset({"name_or_path", "num_labels", "output_attentions", "_attn_implementation",
                              "_experts_implementation", "torch_dtype", "rope_scaling", "per_layer_config",
                              "allow_global_per_layer_attribute_access", "serialize_explicit_per_layer_config"}
                             | _GETTER_ONLY)


class _OpaqueValue:
    """A class-level value the tables could not write down (read -> Undecidable)."""

    __slots__ = ("what",)

    def __init__(self, what: str):
        self.what = what


def _class_value(spec: dict) -> Any:
    if "literal" in spec:
        return literal(spec["literal"])
    if "class" in spec:
        return _OpaqueValue(f"the class {spec['class']}")
    return _OpaqueValue(spec.get("opaque_default", "a value"))


class Transformers5(ConfigLibrary):
    """The shared behaviour of transformers 5.x config classes, over one line's class tables."""

    major = 5
    #: the vLLM release this load is for (set by the loader)
    release: Any

    def __init__(self, tables: dict, vllm_tables: "dict | None" = None):
        self.line = tables["line"]
        self.tables = tables
        self.vllm = vllm_tables or {"classes": {}}
        self.base: dict = tables["base5"]
        self.config_mapping: dict[str, str] = tables["config_mapping"]
        self.type_classes: dict = {**tables.get("type_classes", {}), **self.vllm.get("type_classes", {})}
        self.base_class_attrs = {name: _class_value(spec) for name, spec in self.base["class_attrs"].items()}
        #: model types registered for this load (vLLM's AutoConfig.register of its own classes)
        self.registered: dict[str, ClassFacts] = {}
        #: class-level values changed for this load (``config_class.model_type = model_type``)
        self.class_overrides: dict[tuple[str, str], Any] = {}
        #: layer types vLLM adds to ALLOWED_LAYER_TYPES for this load
        self.extra_layer_types: tuple = ()
        #: vLLM's wrappers around PreTrainedConfig.validate_rope for this load, innermost first
        #: ("ignore_keys": _patch_hf_transformers_validate_rope, "nested": ..._nested_rope_validation)
        self.validate_rope_wrappers: list[str] = []
        #: what this load did that the verdict should say (e.g. a class built by the real transformers)
        self.notes: list[str] = []
        self._classes: dict[str, ClassFacts] = {}
        self._base_fields = [(n, i) for n, i in self.base["fields"]]
        self._field_checks: dict[str, dict] = {}
        self._fields: dict[str, list] = {}
        self._shadowed: dict[str, frozenset] = {}

    # -- facts ----------------------------------------------------------------------------------
    def variant(self, behaviour: str) -> str:
        """Which variant of a shared behaviour this line has (Undecidable for one kvguard does not know)."""
        if behaviour.startswith("rope:"):
            found = self.base["rope"].get(behaviour[5:], {}).get("check")
        else:
            found = self.base["behaviours"].get(behaviour)
        if not isinstance(found, str):
            raise Undecidable(f"transformers {self.line}: {behaviour} changed in a way kvguard does not model "
                              f"({found})")
        return found

    def has_variant(self, behaviour: str) -> bool:
        return behaviour in self.base["behaviours"]

    # -- classes ------------------------------------------------------------------------------
    def class_facts(self, name: str) -> ClassFacts:
        found = self._classes.get(name)
        if found is not None:
            return found
        if name.startswith("vllm:"):
            record = self.vllm["classes"].get(name)
            where = f"vLLM {self.vllm.get('release')}"
        else:
            record = self.tables["classes"].get(name)
            where = f"transformers {self.line}"
        if record is None:
            raise Undecidable(f"config class {name.removeprefix('vllm:')} is not in kvguard's {where} tables")
        parent = self.class_facts(record["parent"]) if record.get("parent") else None
        found = ClassFacts(name, record, self, parent)
        shadowed = set(self._shadowed.get(parent.name, frozenset())) if parent is not None else set()
        own_values = {n: _class_value(i["default"]) for n, i in record.get("fields", []) if "default" in i}
        own_values.update({n: _class_value(v) for n, v in (record.get("class_attrs") or {}).items()})
        for key, value in own_values.items():
            found.class_attrs[key] = value
            found.properties.pop(key, None)
            shadowed.add(key)
        for key in record.get("properties") or {}:
            found.class_attrs.pop(key, None)
            shadowed.discard(key)
        self._shadowed[name] = frozenset(shadowed)
        self._classes[name] = found
        return found

    def mapping_keys(self) -> list:
        """``CONFIG_MAPPING.keys()``: transformers' model types, then the ones registered for this load."""
        order = self.tables.get("config_mapping_order") or list(self.config_mapping)
        return list(order) + [k for k in self.registered if k not in self.config_mapping]

    def base_init(self, obj: ConfigObject, kwargs: dict) -> None:
        """``PreTrainedConfig.__init__(self, **kwargs)`` (the generated dataclass ``__init__``)."""
        self._init(obj, None, kwargs)

    def to_dict(self, obj: ConfigObject) -> dict:
        """``obj.to_dict()``."""
        from .repr5 import to_dict
        return to_dict(self, obj)

    def sub_config_name(self, cls: ClassFacts, key: str) -> Any:
        return self.sub_configs(cls).get(key)

    def sub_configs(self, cls: ClassFacts) -> dict:
        """``cls.sub_configs``: key -> config class name (None for AutoConfig: resolved from the value)."""
        k: "ClassFacts | None" = cls
        while k is not None:
            rec = k.record
            specs = rec.get("sub_configs_defaults")
            if isinstance(specs, dict):
                return {key: specs[key]["class"] for key in _ordered(rec, specs)}
            subs = rec.get("sub_configs")
            if isinstance(subs, dict) and "opaque_property" not in subs:
                return {key: (subs[key] if isinstance(subs[key], str) else None) for key in _ordered(rec, subs)}
            k = k.parent
        return {}

    def sub_config_spec(self, cls: ClassFacts, key: str) -> dict:
        """``cls.sub_configs_defaults[key]`` (transformers >= 5.20): which class builds the sub-config."""
        spec = self._sub_config_specs(cls).get(key)
        if spec is None or spec.get("class") is None:
            raise Undecidable(f"{cls.display}: sub-config {key!r} is not modelled")
        return spec

    def sub_config_init_kwargs(self, cls: ClassFacts, key: str) -> dict:
        """``cls.sub_configs_defaults[key].init_kwargs`` (a fresh copy), KeyError for a key the class lacks."""
        specs = self._sub_config_specs(cls)
        if not specs:
            raise Undecidable(f"{cls.display}: sub_configs_defaults is not modelled")
        init = specs[key]["init_kwargs"]
        if not isinstance(init, dict) or "literal" not in init:
            raise Undecidable(f"{cls.display}: the default keyword arguments of sub-config {key!r} are not modelled")
        return dict(literal(init["literal"]))

    def _sub_config_specs(self, cls: ClassFacts) -> dict:
        k: "ClassFacts | None" = cls
        while k is not None:
            specs = k.record.get("sub_configs_defaults")
            if isinstance(specs, dict):
                return {key: specs[key] for key in _ordered(k.record, specs)}
            k = k.parent
        return {}

    # -- fields -------------------------------------------------------------------------------
    def fields_of(self, cls: "ClassFacts | None") -> list:
        """``dataclasses.fields(cls)``: [name, info] in order."""
        if cls is None:
            return self._base_fields
        found = self._fields.get(cls.name)
        if found is not None:
            return found
        rec = cls.record
        if rec.get("fields_complete"):
            out = [(n, i) for n, i in rec["fields"]]
        else:
            merged = dict(self.fields_of(cls.parent))
            for n, i in rec.get("fields", []):
                merged[n] = i
            out = list(merged.items())
        self._fields[cls.name] = out
        return out

    def field_checks(self, cls: ClassFacts) -> dict:
        """What ``__strict_setattr__`` checks per field name: the fields of the nearest ``@strict`` class."""
        found = self._field_checks.get(cls.name)
        if found is not None:
            return found
        k: "ClassFacts | None" = cls
        while k is not None and not k.record.get("strict"):
            k = k.parent
        fields = self.fields_of(k)
        out = {}
        for name, info in fields:
            out[name] = (parse_type(info["type"]), [tuple(v) for v in info.get("validators", [])])
        self._field_checks[cls.name] = out
        return out

    # -- building -----------------------------------------------------------------------------
    def _init(self, obj: ConfigObject, owner: "ClassFacts | None", kwargs: dict) -> None:
        """``owner.__init__(obj, **kwargs)``."""
        if owner is None:
            self._dataclass_init(obj, None, kwargs)
            self.validate(obj, None)
            return
        kind = owner.record.get("init_kind")
        if kind == "custom":
            self._custom_init(obj, owner, kwargs)
        elif kind == "dataclass":
            self._dataclass_init(obj, owner, kwargs)
        elif kind == "inherited":
            self._init(obj, owner.parent, kwargs)
            return
        else:
            raise Undecidable(f"{owner.display}.__init__ is not in kvguard's tables")
        if owner.record.get("validates"):
            self.validate(obj, owner)

    def _custom_init(self, obj: ConfigObject, owner: ClassFacts, kwargs: dict) -> None:
        """A class's own ``__init__`` (vLLM's classes): its parameters and steps, as in transformers 4."""
        record = owner.record
        frame = Frame(obj, bind_init_parameters(owner, kwargs), owner, self, "__init__")
        _run(frame, record.get("init", []), lambda f, call: self._super(f, call, owner))

    def _dataclass_init(self, obj: ConfigObject, owner: "ClassFacts | None", kwargs: dict) -> None:
        """The generated ``__init__`` wrapped to accept extra keywords (configuration_utils
        ``wrap_init_to_accept_kwargs``): every field set, the rest passed to ``__post_init__``."""
        fields = self.fields_of(owner)
        names = {n for n, _ in fields}
        for name, info in fields:
            if name in kwargs:
                value = kwargs[name]
            elif "default" in info:
                value = _class_value(info["default"])
                if isinstance(value, _OpaqueValue):
                    raise Undecidable(f"the default of {name!r} ({value.what}) is not modelled")
            elif "factory" in info:
                made = info["factory"]
                if "raises" in made:
                    raise Undecidable(f"the default factory of {name!r} raises {made['raises'][0]}")
                value = _class_value(made)
                if isinstance(value, _OpaqueValue):
                    raise Undecidable(f"the default factory of {name!r} ({value.what}) is not modelled")
            else:
                raise TypeError(f"Missing required field - '{name}'")
            setattr(obj, name, value)
        extra = {k: v for k, v in kwargs.items() if k not in names}
        self.post_init(obj, obj.kvg_facts, extra)

    def post_init(self, obj: ConfigObject, start: "ClassFacts | None", kwargs: dict) -> None:
        """``obj.__post_init__(**kwargs)`` resolved from ``start`` up (``super().__post_init__`` starts higher)."""
        k = start
        while k is not None and "post_init" not in k.record:
            k = k.parent
        if k is None:
            self.base_post_init(obj, kwargs)
            return
        owner = k
        locals_ = {"kwargs": kwargs}
        for name, default in owner.record.get("post_init_params", []):
            if name in kwargs:
                locals_[name] = kwargs.pop(name)
            elif "literal" in default:
                locals_[name] = literal(default["literal"])
            else:
                raise Undecidable(f"{owner.name}.__post_init__: parameter {name!r} is not modelled")
        frame = Frame(obj, locals_, owner, self, "__post_init__")
        _run(frame, owner.record["post_init"], lambda f, call: self._super(f, call, owner))

    def _super(self, frame: Frame, call: dict, owner: ClassFacts) -> None:
        method = "__post_init__" if call.get("method") == "__post_init__" else "__init__"
        kwargs = super_call_kwargs(frame, call, owner.name, _method_reached(owner.parent, method))
        if method == "__post_init__":
            self.post_init(frame.obj, owner.parent, kwargs)
        else:
            self._init(frame.obj, owner.parent, kwargs)

    # -- PreTrainedConfig.__post_init__ ---------------------------------------------------------
    def base_post_init(self, obj: ConfigObject, kwargs: dict) -> None:
        """What ``PreTrainedConfig.__post_init__(**kwargs)`` does in this line."""
        variant = self.variant("__post_init__")
        if variant in ("5.20", "5.24"):
            for key, spec in self._sub_config_specs(obj.kvg_facts).items():
                sub = getattr(obj, key)
                if sub is None and spec["optional"]:
                    continue
                sub, kwargs = self._create_subconfig(spec, key, sub, kwargs)
                setattr(obj, key, sub)
        torch_dtype = kwargs.pop("torch_dtype", None)
        if torch_dtype is not None:
            obj.dtype = obj.dtype if obj.dtype is not None else torch_dtype
        if obj.dtype is not None and isinstance(obj.dtype, str):
            obj.dtype = torch_attribute(obj.dtype)
        if obj.id2label is None:
            obj.num_labels = kwargs.get("num_labels", obj.num_labels if obj.num_labels is not None else 2)
        else:
            if kwargs.get("num_labels") is not None and len(obj.id2label) != kwargs.get("num_labels"):
                pass  # a warning
            obj.id2label = {int(key): value for key, value in obj.id2label.items()}
        if obj.problem_type == "single_label_classification" and obj.num_labels == 1:
            raise ValueError(
                '`problem_type="single_label_classification"` requires `num_labels > 1`. For binary '
                'classification use `num_labels=2`, or use `problem_type="regression"` for a '
                "single-output regression head.")
        if hasattr(obj, "rope_parameters"):
            kwargs = self.call(obj, "convert_rope_params_to_dict", **kwargs)
        elif kwargs.get("rope_scaling") and kwargs.get("rope_theta"):
            kwargs = self.call(obj, "convert_rope_params_to_dict", **kwargs)
        for name in self.base["generation_params"]:
            kwargs.pop(name, None)
        obj._name_or_path = str(kwargs.pop("name_or_path", ""))
        if variant == "5.17":
            obj._commit_hash = kwargs.pop("_commit_hash", None)
        else:
            kwargs.pop("_commit_hash", None)
        obj._output_attentions = kwargs.pop("output_attentions", False)
        obj._attn_implementation = kwargs.pop("attn_implementation", None)
        obj._experts_implementation = kwargs.pop("experts_implementation", None)
        per_layer_config = kwargs.pop("per_layer_config", None)
        for key, value in kwargs.items():
            if key not in ("_attn_implementation_internal", "_experts_implementation_internal"):
                try:
                    setattr(obj, key, value)
                except AttributeError:
                    # logged first with f"Can't set {key} with value {value} for {self}": the config's repr runs
                    self.repr_check(obj)
                    raise
        if per_layer_config is not None:
            obj.per_layer_config = per_layer_config
        if variant in ("5.17", "5.19", "5.20"):
            if getattr(obj, "tie_word_embeddings", False) and obj.base_model_tp_plan is not None:
                obj.base_model_tp_plan = {**obj.base_model_tp_plan, "embed_tokens": "embedding_rowwise"}
        if variant != "5.17":
            self.remap_legacy_layer_types(obj)
        if variant == "5.24":
            obj._post_init_done = True

    def _create_subconfig(self, spec: dict, key: str, subconfig: Any, kwargs: dict) -> tuple:
        """``SubConfigSpec.create_subconfig(key, subconfig, **kwargs)`` (transformers >= 5.20)."""
        self.variant("SubConfigSpec.create_subconfig")
        if isinstance(subconfig, ConfigObject):
            return subconfig, kwargs
        if key == "backbone_config":
            raise Undecidable("backbone sub-configs (consolidate_backbone_kwargs_to_config) are not modelled")
        if spec["class"] is None:
            default_type = spec["model_type"]
            model_type = subconfig.get("model_type", default_type) if subconfig is not None else default_type
            if not model_type:
                raise ValueError(f"Cannot resolve `{key}`: no `model_type` found inputs or in `sub_configs_defaults`.")
            if not self.knows_model_type(model_type):
                raise ValueError(f"Unrecognized model type for subconfig: {model_type}. Should contain one of "
                                 f"{', '.join(self.mapping_keys())}")
            cls = self.class_for_model_type(model_type)
        else:
            cls = self.class_facts(spec["class"])
        if isinstance(subconfig, dict):
            pass
        elif subconfig is None:
            subconfig = literal(spec["init_kwargs"]["literal"]) if "literal" in spec["init_kwargs"] else None
            if subconfig is None:
                raise Undecidable(f"the default keyword arguments of sub-config {key!r} are not modelled")
        else:
            raise TypeError(f"`{key}` must be a `dict`, `PreTrainedConfig`, or `None`, got `{_type_repr(subconfig)}`")
        return self.build(cls, dict(subconfig)), kwargs

    def remap_legacy_layer_types(self, obj: ConfigObject) -> None:
        """``remap_legacy_layer_types(config=obj)``: legacy names in ``layer_types`` / ``mtp_layer_types``."""
        self.variant("module:remap_legacy_layer_types")
        table = self.base["legacy_layer_type_remap"]
        for attr in ("layer_types", "mtp_layer_types"):
            if getattr(obj, attr, None) is not None:
                current = getattr(obj, attr)
                remapped = [table.get(t, t) for t in current]
                if remapped != current:
                    setattr(obj, attr, remapped)

    # -- methods --------------------------------------------------------------------------------
    def has_method(self, obj: ConfigObject, name: str) -> bool:
        """``getattr(obj, name, None) is not None`` for a method name."""
        k: "ClassFacts | None" = obj.kvg_facts
        while k is not None:
            if name in (k.record.get("methods") or {}):
                return True
            k = k.parent
        if name.startswith("_validate_") and name.endswith("_rope_parameters"):
            return name[len("_validate_"):-len("_rope_parameters")] in self.base["rope"]
        return name in _BASE_METHODS

    def call(self, obj: ConfigObject, name: str, *args: Any, **kwargs: Any) -> Any:
        """``obj.<name>(*args, **kwargs)``: the class's own method, else PreTrainedConfig's."""
        return self.call_from(obj, obj.kvg_facts, name, args, kwargs)

    def call_from(self, obj: ConfigObject, start: "ClassFacts | None", name: str, args: tuple, kwargs: dict) -> Any:
        k = start
        while k is not None:
            method = (k.record.get("methods") or {}).get(name)
            if method is not None:
                return self._run_method(obj, k, name, method, args, kwargs)
            k = k.parent
        return self._base_method(obj, name, args, kwargs)

    def _run_method(self, obj: ConfigObject, owner: ClassFacts, name: str, method: dict, args: tuple,
                    kwargs: dict) -> Any:
        if "known" in method and (not args and not kwargs or method["known"] in KNOWN_WITH_ARGUMENTS):
            # a named behaviour that takes arguments reads them from its frame: ``$args`` and ``kwargs``
            frame = Frame(obj, {"$args": tuple(args), "kwargs": dict(kwargs)} if args or kwargs else {}, owner,
                          self, name)
            return _run(frame, [[method["known"], {k: v for k, v in method.items() if k != "known"}]],
                        lambda f, call: None)
        if "steps" not in method:
            raise Undecidable(f"{owner.display}.{name} does something kvguard does not model")
        locals_: dict = {}
        params = method.get("params", [])
        if method.get("static") and params and params[0][0] == "self" and not args:
            args = (obj,)  # a static ``validate_*(self)``: @strict calls it with the object
        if len(args) > len(params):
            raise Undecidable(f"{owner.display}.{name}: positional arguments kvguard does not model")
        kwargs = dict(kwargs)
        for (pname, _default), value in zip(params, args):
            locals_[pname] = value
        for pname, default in params[len(args):]:
            if pname in kwargs:
                locals_[pname] = kwargs.pop(pname)
            elif "literal" in default:
                locals_[pname] = literal(default["literal"])
            else:
                raise Undecidable(f"{owner.display}.{name}: parameter {pname!r} is not modelled")
        if method.get("kwargs"):
            locals_["kwargs"] = kwargs
        elif kwargs:
            raise TypeError(f"{owner.display}.{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        frame = Frame(obj, locals_, owner, self, name)
        frame_owner = owner

        def on_super(f: Frame, call: dict) -> None:
            raise Undecidable(f"{frame_owner.display}.{name} calls super().{call.get('method')}")

        return _run(frame, method["steps"], on_super)

    def super_call(self, frame: Frame, method: str, args: tuple, kwargs: dict) -> Any:
        """``super().<method>(...)`` inside a method of ``frame.cls``."""
        if method == "__post_init__" and not args:
            self.post_init(frame.obj, frame.cls.parent, dict(kwargs))
            return None
        if method == "__init__" and not args:
            self._init(frame.obj, frame.cls.parent, dict(kwargs))
            return None
        return self.call_from(frame.obj, frame.cls.parent, method, args, kwargs)

    def _base_method(self, obj: ConfigObject, name: str, args: tuple, kwargs: dict) -> Any:
        if name == "convert_rope_params_to_dict":
            return rope5.convert_rope_params_to_dict(self, obj, dict(kwargs))
        if name == "standardize_rope_params":
            return rope5.standardize_rope_params(self, obj)
        if name == "nested_rope_parameter_keys":
            return rope5.nested_rope_parameter_keys(self, obj, *args)
        if name == "validate_rope":
            return self._validate_rope(obj, list(self.validate_rope_wrappers), kwargs)
        if name.startswith("_validate_") and name.endswith("_rope_parameters"):
            rope_type = name[len("_validate_"):-len("_rope_parameters")]
            params = args[0] if args else kwargs.pop("rope_parameters")
            return rope5.run_type_check(self, obj, rope_type, params, kwargs.get("ignore_keys"))
        if name == "to_dict" and not args and not kwargs:
            from .repr5 import base_to_dict
            return base_to_dict(self, obj)
        fn = _BASE_METHODS.get(name)
        if fn is None:
            raise Undecidable(f"PreTrainedConfig.{name} is not modelled")
        return fn(self, obj, *args, **kwargs)

    def _validate_rope(self, obj: ConfigObject, wrappers: list, kwargs: dict) -> None:
        """``validate_rope``, through vLLM's wrappers for this load (outermost = last installed)."""
        if not wrappers:
            if kwargs:
                raise TypeError(f"RotaryEmbeddingConfigMixin.validate_rope() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            rope5.validate_rope(self, obj)
            return
        kind = wrappers[-1]
        kwargs = dict(kwargs)
        if kind == "ignore_keys":
            ignore_keys_param = kwargs.pop("ignore_keys", None)
            original = obj.ignore_keys_at_rope_validation
            obj.ignore_keys_at_rope_validation = original or ignore_keys_param
        elif kind == "nested":
            params = getattr(obj, "rope_parameters", None)
            if isinstance(params, dict):
                layer_types = set(params) & set(self.allowed_layer_types())
                shared = set(params) - layer_types
                if layer_types and shared:
                    for key in shared:
                        del params[key]
        else:
            raise Undecidable(f"vLLM's validate_rope patch {kind!r} is not modelled")
        self._validate_rope(obj, wrappers[:-1], kwargs)

    # -- @strict class validation ---------------------------------------------------------------
    def validate(self, obj: ConfigObject, owner: "ClassFacts | None") -> None:
        """``owner.validate(obj)``: the class validators ``@strict`` snapshotted for ``owner``."""
        snapshot = (owner.record if owner is not None else self.base).get("class_validators")
        if snapshot is None:
            raise Undecidable(f"the class validators of {owner.display if owner else 'PreTrainedConfig'} "
                              "are not in kvguard's tables")
        for name, defining in snapshot:
            try:
                self._run_validator(obj, name, defining)
            except Undecidable:
                raise
            except (ValueError, TypeError) as exc:
                raise StrictDataclassClassValidationError(validator=name, cause=exc) from exc

    def _run_validator(self, obj: ConfigObject, name: str, defining: str) -> None:
        if defining in _BASE_OWNERS:
            if name == "validate_rope":
                self._validate_rope(obj, list(self.validate_rope_wrappers), {})
                return
            fn = _BASE_METHODS.get(name)
            if fn is None:
                raise Undecidable(f"PreTrainedConfig.{name} is not modelled")
            fn(self, obj)
            return
        k: "ClassFacts | None" = obj.kvg_facts
        while k is not None and k.display != defining:
            k = k.parent
        if k is None or name not in (k.record.get("methods") or {}):
            raise Undecidable(f"the validator {defining}.{name} is not in kvguard's tables")
        self._run_method(obj, k, name, k.record["methods"][name], (), {})

    # -- the attribute protocol ---------------------------------------------------------------
    def get_attribute(self, obj: ConfigObject, name: str, per_layer_check: bool = True) -> Any:
        """``getattr(obj, name)`` (``per_layer_check=False``: ``_getattr_without_heterogeneous_validation``)."""
        cls = obj.kvg_facts
        if cls.hooks:
            hook = cls.hooks.get("__getattribute__")
            if hook is not None and hook.get("kind") == "forward_to_text_config":
                # the class's own __getattribute__ runs before PreTrainedConfig's (names unmapped)
                found = forwarded_read(obj, name, hook)
                if found is not FORWARD_MISSING:
                    return found
            else:
                _check_hooks(cls, "__getattribute__")
        attrs = obj.kvg_attrs
        if name != "attribute_map":
            name = cls.attribute_map.get(name, name)
        if per_layer_check and "_heterogeneity_spec" in attrs:
            hetero5.ambiguous(obj, name)
        if name in cls.properties:
            return _class_property(obj, name, cls.properties[name])
        if name in _BASE_PROPERTIES and name not in self._shadowed.get(cls.name, ()):
            return _BASE_GETTERS[name](self, obj)
        if name in attrs:
            return attrs[name]
        if self.class_overrides:
            for owner in cls.mro_names():
                if (owner, name) in self.class_overrides:
                    return self.class_overrides[owner, name]
        if name in cls.class_attrs:
            value = cls.class_attrs[name]
            if isinstance(value, _OpaqueValue):
                raise Undecidable(f"{cls.display}.{name} ({value.what}) is not modelled")
            return value
        raise AttributeError(f"'{cls.display}' object has no attribute '{name}'")

    def is_class_property(self, obj: ConfigObject, name: str) -> bool:
        """``isinstance(getattr(type(obj), name, None), property)``: the class's own properties and the base
        class's, unless a class value shadows them (the attribute map plays no part at class level)."""
        cls = obj.kvg_facts
        return name in cls.properties or (name in _BASE_PROPERTIES and name not in self._shadowed.get(cls.name, ()))

    def set_attribute(self, obj: ConfigObject, name: str, value: Any) -> None:
        cls = obj.kvg_facts
        if cls.hooks:
            hook = cls.hooks.get("__setattr__")
            if hook is not None and hook.get("kind") == "forward_to_text_config":
                # a name the text config holds is set there (its own checks); PreTrainedConfig's otherwise
                if forwarded_write(obj, name, value, hook):
                    return
            else:
                _check_hooks(cls, "__setattr__")
        check = self.field_checks(cls).get(name)
        if check is not None:
            check_field(name, value, check, self.type_classes)
        name = cls.attribute_map.get(name, name)
        if name in cls.properties:
            if not cls.properties[name].get("setter"):
                raise AttributeError(f"property '{name}' of '{cls.display}' object has no setter")
            class_property_set(obj, name, cls.properties[name], value)
            return
        if name in _BASE_PROPERTIES and name not in self._shadowed.get(cls.name, ()):
            setter = _BASE_SETTERS.get(name)
            if setter is None:
                raise AttributeError(f"property '{name}' of '{cls.display}' object has no setter")
            setter(self, obj, value)
            return
        obj.kvg_attrs[name] = value

    def contains(self, obj: ConfigObject, item: Any) -> bool:
        return any(key == item for key in self.iterate(obj))

    def iterate(self, obj: ConfigObject):
        self.variant("__iter__")
        self.variant("_iter_config_keys_with_heterogeneous_adjustment")
        return iter(hetero5.iter_keys(obj, list(obj.kvg_attrs)))

    def text_config_of(self, obj: ConfigObject, decoder: Any = None, encoder: Any = None) -> Any:
        """``config.get_text_config(decoder=, encoder=)``."""
        k: "ClassFacts | None" = obj.kvg_facts
        while k is not None:
            if "text_config_rule" in k.record:
                rule = k.record["text_config_rule"]
                value = getattr(obj, rule["attribute"])
                if rule.get("self_if_none") and value is None:
                    return obj
                if rule.get("then_text_config"):
                    return value.get_text_config() if decoder is None and encoder is None else \
                        self.text_config_of(value, decoder, encoder)
                return value
            if "get_text_config" in k.record:
                raise Undecidable(f"{obj.kvg_class_name}.get_text_config() is overridden in a way kvguard does not "
                                  "model")
            k = k.parent
        self.variant("get_text_config")
        return_both = decoder == encoder
        decoder_names = ("decoder", "generator", "text_config")
        encoder_names: tuple[str, ...] = ("text_encoder",)
        if return_both:
            names = encoder_names + decoder_names
        elif decoder:
            names = decoder_names
        else:
            names = encoder_names
        valid = []
        for name in names:
            if hasattr(obj, name):
                if getattr(obj, name, None) is not None:
                    valid.append(name)
        if len(valid) > 1:
            raise ValueError(
                f"Multiple valid text configs were found in the model config: {valid}. In this case, using "
                "`get_text_config()` would be ambiguous. Please specify the desired text config directly, e.g. "
                "`text_config = config.sub_config_name`")
        if len(valid) == 1:
            found = getattr(obj, valid[0])
        else:
            found = obj
        if not return_both and not valid and found.is_encoder_decoder:
            return self._flat_side(found, "decoder" if decoder else "encoder")
        return found

    def _flat_side(self, obj: ConfigObject, side: str) -> ConfigObject:
        """One side of an encoder-decoder config written flat (Whisper, BART, Cohere-ASR's start token id), as
        ``get_text_config(decoder=True)`` / ``(encoder=True)`` makes it on every 5.x line: a deep copy whose
        ``<side>_*`` keys (in ``to_dict()`` order) move to the unprefixed name (``<side>_layers`` and
        ``<side>_attention_heads`` to the layer and head counts), through the attribute map, each a delete then
        a checked assignment.  The only caller at load time is ``validate_token_ids``, which just warns; what can
        surface is an assignment the copy's field checks or setters refuse, so each step is taken as the class
        takes it (kvguard's own ``set_attribute``)."""
        twin = _deep_copy(obj, {})
        amap = twin.kvg_facts.attribute_map
        for key in list(self.to_dict(twin)):
            if not (isinstance(key, str) and key.startswith(side)):
                continue
            if key == side + "_layers":
                target = "num_hidden_layers"
            elif key == side + "_attention_heads":
                target = "num_attention_heads"
            else:
                target = key[len(side) + 1:]
            target = amap.get(target, target)
            value = getattr(twin, key)
            if key not in twin.kvg_attrs:
                # a key to_dict() prints that the instance does not hold: object.__delattr__'s AttributeError,
                # whose wording kvguard has not measured
                raise Undecidable(f"get_text_config({side}=True) of {obj.kvg_class_name}: deleting {key!r}, which "
                                  "the instance does not hold, is not modelled")
            del twin.kvg_attrs[key]
            setattr(twin, target, value)
        return twin

    def allowed_layer_types(self) -> tuple:
        """transformers' ``ALLOWED_LAYER_TYPES`` as it is now (vLLM may extend it for a load)."""
        return tuple(self.base["allowed_attn_layer_types"]) + tuple(self.base["allowed_mlp_layer_types"]) + \
            tuple(self.extra_layer_types)

    def attention_layer_types(self) -> tuple:
        """``ALLOWED_LAYER_TYPES`` as vLLM imported it (before any extension)."""
        return tuple(self.base["allowed_attn_layer_types"]) + tuple(self.base["allowed_mlp_layer_types"])

    def set_attn_implementation(self, obj: ConfigObject, value: Any) -> None:
        _set_implementation(self, obj, value, "_attn_implementation")

    # -- transformers 4 vocabulary steps, in classes written for 4.x (vLLM's own) ----------------------
    def rope_validation(self, obj: ConfigObject, ignore_keys: Any) -> None:
        """``rope_config_validation(config, ignore_keys)``, kept in 5.x for code written against 4.x: the config's
        ``standardize_rope_params()`` then its ``validate_rope()`` (``ignore_keys`` is not passed on)."""
        self.call(obj, "standardize_rope_params")
        self.call(obj, "validate_rope")

    def layer_types_validation(self, layer_types: Any, num_hidden_layers: Any) -> None:
        """``layer_type_validation(layer_types, num_hidden_layers)`` (deprecated in 5.x; same checks)."""
        allowed = self.allowed_layer_types()
        if not all(layer_type in allowed for layer_type in layer_types):
            raise ValueError(f"The `layer_types` entries must be in {allowed}")
        if num_hidden_layers is not None and num_hidden_layers != len(layer_types):
            raise ValueError(f"`num_hidden_layers` ({num_hidden_layers}) must be equal to the number of layer "
                             f"types ({len(layer_types)})")

    # -- from_dict and the repr it logs ---------------------------------------------------------
    def from_dict(self, cls: ClassFacts, config_dict: dict, kwargs: dict) -> ConfigObject:
        """``cls.from_dict(config_dict, **kwargs)``."""
        self.variant("from_dict")
        kwargs = dict(kwargs)
        kwargs.pop("return_unused_kwargs", False)
        for key, value in kwargs.items():
            if key in ("num_labels", "attn_implementation", "experts_implementation", "output_attentions",
                       "torch_dtype", "dtype", "name_or_path"):
                if key not in ("torch_dtype", "dtype"):
                    config_dict[key] = value
                elif value != "auto":
                    config_dict[key] = value
        config = self.build(cls, dict(config_dict))
        for key, value in kwargs.items():
            if key in ("_from_auto", "_from_pipeline"):
                continue
            if hasattr(config, key):
                current = getattr(config, key)
                if isinstance(current, ConfigObject) and isinstance(value, dict):
                    raise Undecidable("a sub-config passed as a from_dict keyword is not modelled")
                setattr(config, key, value)
        self.repr_check(config)
        return config

    def repr_check(self, obj: ConfigObject) -> None:
        """Raise what ``repr(obj)`` raises (``from_dict`` logs ``f"Model config {config}"``)."""
        from .repr5 import check_repr
        check_repr(self, obj)


# ---------------------------------------------------------------------------------------------


def _method_reached(start: "ClassFacts | None", method: str) -> str:
    """The ``module.qualname`` of the ``__init__`` / ``__post_init__`` a call on ``start`` runs (the first
    class up the chain that defines one, else PreTrainedConfig's), as CPython names it in a call error."""
    k = start
    if method == "__post_init__":
        while k is not None and "post_init" not in k.record:
            k = k.parent
    else:
        while k is not None and k.record.get("init_kind") not in ("custom", "dataclass"):
            k = k.parent
    if k is None:
        return f"transformers.configuration_utils.PreTrainedConfig.{method}"
    return f"{k.record.get('module', '')}.{k.display}.{method}"


def _ordered(record: dict, table: dict) -> list:
    """The keys of a class-level dict in the class's own order (the tables are written with sorted keys)."""
    order = record.get("sub_configs_order")
    return [key for key in order if key in table] if order else list(table)


#: the named method behaviours (kvguard/facts/classes5.py) written for the arguments they are called with
KNOWN_WITH_ARGUMENTS = frozenset({"hunyuan_vl_convert_rope_params", "hunyuan_vl_mrope_section_alias",
                                  "hunyuan_vl_mrope_section_check"})


def _run(frame: Frame, steps: list, on_super) -> Any:
    """Run a method's steps; what a ``return`` step returns (None when it ends without one)."""
    try:
        run_steps(frame, steps, on_super)
    except Returned as ret:
        return ret.value
    return None


def _type_repr(value: Any) -> str:
    if isinstance(value, ConfigObject):
        raise Undecidable("the type of a config object in a message is not modelled")
    return repr(type(value))


def _check_hooks(cls: ClassFacts, which: str) -> None:
    hook = cls.hooks.get(which)
    if hook is not None:
        raise Undecidable(f"{cls.display} overrides {which} in a way kvguard does not model")


def _class_property(obj: ConfigObject, name: str, prop: dict) -> Any:
    """A property a class defines, computed from the object as its getter does."""
    from .frame import bounded_count
    kind = prop["kind"]
    if kind == "floordiv":
        return getattr(obj, prop["a"]) // getattr(obj, prop["b"])
    if kind == "negation":
        return not getattr(obj, prop["a"])
    if kind == "constant":
        return prop["value"]
    if kind == "alias":
        return getattr(obj, prop["a"])
    if kind == "repeat_per_layer":
        return [prop["value"]] * bounded_count(obj.num_hidden_layers)
    if kind == "same_per_layer":
        return [prop["value"] for _ in range(bounded_count(obj.num_hidden_layers))]
    if kind == "mapped_from":
        return [prop["hit"] if x == prop["when"] else prop["miss"] for x in getattr(obj, prop["source"])]
    if kind == "const_mul":
        return prop["k"] * getattr(obj, prop["a"])
    if kind == "truediv":
        return getattr(obj, prop["a"]) / getattr(obj, prop["b"])
    if kind == "floordiv_const":
        return getattr(obj, prop["a"]) // prop["d"]
    if kind == "length_of":
        return len(getattr(obj, prop["a"]))
    if kind == "method_of":
        return obj.kvg_facts.library.call(obj, prop["m"], getattr(obj, prop["a"]))
    if kind == "layers_by_period":
        period, offset = getattr(obj, prop["period"]), getattr(obj, prop["offset"])
        return [prop["hit"] if i % period == offset else prop["miss"]
                for i in range(bounded_count(obj.num_hidden_layers))]
    if kind == "experts_by_period":
        period, offset = getattr(obj, prop["period"]), getattr(obj, prop["offset"])
        return [obj.num_experts if i % period == offset else 1 for i in range(bounded_count(obj.num_hidden_layers))]
    # the kinds both lines share (xLSTM's sizes, vLLM's own classes: sub-config attributes, Kimi's MLA /
    # linear-attention tests, ...)
    from .transformers4 import class_property as shared
    return shared(obj, name, prop)


def _label_range(count: Any) -> range:
    if isinstance(count, int) and count > 1_000_000:
        raise Undecidable(f"num_labels={count}: kvguard does not build a label map that large")
    return range(count)


def _set_implementation(lib: Transformers5, obj: ConfigObject, value: Any, which: str) -> None:
    """The ``_attn_implementation`` / ``_experts_implementation`` setter: the value, then the same on every
    sub-config present."""
    lib.variant(which + ".setter")
    current = getattr(obj, which, None)
    chosen = value if not isinstance(value, dict) else value.get("", current)
    setattr(obj, which + "_internal", chosen)
    for key in lib.sub_configs(obj.kvg_facts):
        sub = getattr(obj, key, None)
        if sub is not None:
            current_sub = getattr(sub, which, None)
            sub_value = value if not isinstance(value, dict) else value.get(key, current_sub)
            setattr(sub, which, sub_value)


# -- PreTrainedConfig's properties (getters and setters) ------------------------------------------

def _get_name_or_path(lib: Transformers5, obj: ConfigObject) -> Any:
    return getattr(obj, "_name_or_path", None)


def _set_name_or_path(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    lib.variant("name_or_path.setter")
    obj._name_or_path = str(value)


def _get_num_labels(lib: Transformers5, obj: ConfigObject) -> Any:
    lib.variant("num_labels")
    return len(obj.id2label) if obj.id2label is not None else None


def _set_num_labels(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    lib.variant("num_labels.setter")
    if obj.id2label is None or obj.num_labels != value:
        obj.id2label = {i: f"LABEL_{i}" for i in _label_range(value)}
        obj.label2id = dict(zip(obj.id2label.values(), obj.id2label.keys()))


def _get_output_attentions(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj._output_attentions


def _set_output_attentions(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    lib.variant("output_attentions.setter")
    if value and obj._attn_implementation is None:
        obj._attn_implementation = "eager"
    if value and obj._attn_implementation != "eager":
        raise ValueError(
            "The `output_attentions` attribute is not supported when using the `attn_implementation` set to "
            f"{obj._attn_implementation}. Please set it to 'eager' instead.")
    obj._output_attentions = value


def _get_attn(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj._attn_implementation_internal


def _set_attn(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    _set_implementation(lib, obj, value, "_attn_implementation")


def _get_experts(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj._experts_implementation_internal


def _set_experts(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    _set_implementation(lib, obj, value, "_experts_implementation")


def _get_torch_dtype(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj.dtype


def _set_torch_dtype(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    obj.dtype = value


def _get_use_return_dict(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj.return_dict


def _get_rope_scaling(lib: Transformers5, obj: ConfigObject) -> Any:
    return obj.rope_parameters


def _set_rope_scaling(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    variant = lib.variant("rope_scaling.setter")
    obj.rope_parameters = value
    if variant == "store_and_standardize" and value is not None and getattr(obj, "_post_init_done", False):
        lib.call(obj, "standardize_rope_params")


def _get_sub_configs(lib: Transformers5, obj: ConfigObject) -> Any:
    return dict(lib.sub_configs(obj.kvg_facts))


def _get_is_heterogeneous(lib: Transformers5, obj: ConfigObject) -> Any:
    lib.variant("is_heterogeneous")
    return "_heterogeneity_spec" in obj.kvg_attrs


def _get_per_layer_config(lib: Transformers5, obj: ConfigObject) -> Any:
    lib.variant("heterogeneity")
    return hetero5.PerLayerConfigView(lib, obj)


def _set_per_layer_config(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
    lib.variant("per_layer_config.setter")
    lib.variant("heterogeneity")
    hetero5.apply(lib, obj, value)


def _get_per_layer_attributes(lib: Transformers5, obj: ConfigObject) -> Any:
    spec = hetero5.spec_of(obj)
    return None if spec is None else spec.per_layer_attributes


def _dict_getter(name: str):
    def get(lib: Transformers5, obj: ConfigObject) -> Any:
        return obj.kvg_attrs.get(name, False)
    return get


def _dict_setter(name: str):
    def set_(lib: Transformers5, obj: ConfigObject, value: Any) -> None:
        obj.kvg_attrs[name] = value
    return set_


_BASE_GETTERS = {
    "name_or_path": _get_name_or_path, "num_labels": _get_num_labels, "output_attentions": _get_output_attentions,
    "_attn_implementation": _get_attn, "_experts_implementation": _get_experts, "torch_dtype": _get_torch_dtype,
    "use_return_dict": _get_use_return_dict, "rope_scaling": _get_rope_scaling, "sub_configs": _get_sub_configs,
    "is_heterogeneous": _get_is_heterogeneous, "per_layer_config": _get_per_layer_config,
    "per_layer_attributes": _get_per_layer_attributes,
    "allow_global_per_layer_attribute_access": _dict_getter("allow_global_per_layer_attribute_access"),
    "serialize_explicit_per_layer_config": _dict_getter("serialize_explicit_per_layer_config"),
}
_BASE_SETTERS = {
    "name_or_path": _set_name_or_path, "num_labels": _set_num_labels, "output_attentions": _set_output_attentions,
    "_attn_implementation": _set_attn, "_experts_implementation": _set_experts, "torch_dtype": _set_torch_dtype,
    "rope_scaling": _set_rope_scaling, "per_layer_config": _set_per_layer_config,
    "allow_global_per_layer_attribute_access": _dict_setter("allow_global_per_layer_attribute_access"),
    "serialize_explicit_per_layer_config": _dict_setter("serialize_explicit_per_layer_config"),
}


# -- PreTrainedConfig's validators and methods -----------------------------------------------------

def _validate_architecture(lib: Transformers5, obj: ConfigObject) -> None:
    lib.variant("validate_architecture")
    if obj.is_heterogeneous:
        for config in obj.per_layer_config:
            lib.call(config, "validate_architecture")
        return
    if hasattr(obj, "head_dim") and hasattr(obj, "num_heads") and hasattr(obj, "embed_dim") \
            and obj.head_dim * obj.num_heads != obj.embed_dim:
        raise ValueError(f"The embed_dim ({obj.embed_dim}) is not a multiple of the number of attention "
                         f"heads ({obj.num_heads}).")


def _validate_layer_type(lib: Transformers5, obj: ConfigObject) -> None:
    variant = lib.variant("validate_layer_type")
    tables = ((tuple(lib.base["allowed_attn_layer_types"]), "layer_types"),
              (tuple(lib.base["allowed_mlp_layer_types"]), "mlp_layer_types"))
    for allowed, attr in tables:
        layers = getattr(obj, attr, None)
        if not (layers is not None and hasattr(obj, "num_hidden_layers")):
            return
        if variant == "remap_custom_code" and _is_custom_code(obj):
            remap = lib.base["legacy_layer_type_remap"]
            remapped = [remap.get(t, t) for t in layers]
            if remapped != layers:
                setattr(obj, attr, remapped)
            layers = remapped
        if not all(layer_type in allowed for layer_type in layers):
            raise ValueError(f"The `{attr}` entries must be in {allowed} but got {layers}")
        elif obj.num_hidden_layers is not None and obj.num_hidden_layers != len(layers):
            raise ValueError(f"`num_hidden_layers` ({obj.num_hidden_layers}) must be equal to the number of "
                             f"`{attr}` ({len(layers)})")


def _deep_copy(obj: ConfigObject, memo: dict) -> ConfigObject:
    """``copy.deepcopy(config)``: a new instance of the same class holding copies of the attributes (nested
    config objects copied too, each once), so that what is assigned to the copy never reaches the original."""
    import copy
    done = memo.get(id(obj))
    if done is not None:
        return done
    twin = ConfigObject(obj.kvg_facts)
    memo[id(obj)] = twin
    for slot in ("kvg_raw", "kvg_emulation", "kvg_assumptions", "kvg_registry_architectures", "kvg_text_config"):
        object.__setattr__(twin, slot, getattr(obj, slot))
    for key, value in obj.kvg_attrs.items():
        twin.kvg_attrs[key] = _deep_copy(value, memo) if isinstance(value, ConfigObject) else \
            copy.deepcopy(value, memo)
    return twin


def _is_custom_code(obj: ConfigObject) -> bool:
    """``cls.is_custom_code()``: a class from outside transformers (vLLM's own)."""
    return not str(obj.kvg_facts.record.get("module", "")).startswith("transformers.")


def _validate_output_attentions(lib: Transformers5, obj: ConfigObject) -> None:
    lib.variant("validate_output_attentions")
    if obj.output_attentions and obj._attn_implementation not in ["eager", None]:
        raise ValueError(
            "The `output_attentions` attribute is not supported when using the `attn_implementation` set to "
            f"{obj._attn_implementation}. Please set it to 'eager' instead.")


def _validate_token_ids(lib: Transformers5, obj: ConfigObject) -> None:
    lib.variant("validate_token_ids")
    text_config = lib.text_config_of(obj, decoder=True) if isinstance(obj, ConfigObject) else obj
    vocab_size = getattr(text_config, "vocab_size", None)
    if vocab_size is not None:
        for name in text_config:
            value = getattr(text_config, name)
            if isinstance(name, str) and name.endswith("_token_id") and isinstance(value, int) \
                    and not 0 <= value < vocab_size:
                vocab_size - 1  # noqa: B018 - the warning's message computes it


_BASE_METHODS = {
    "validate_architecture": _validate_architecture, "validate_layer_type": _validate_layer_type,
    "validate_output_attentions": _validate_output_attentions, "validate_token_ids": _validate_token_ids,
}
