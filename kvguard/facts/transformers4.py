"""transformers 4.x config objects (the line vLLM 0.10.2–0.23.0 runs with: 4.57.6).

What every configuration class shares in this line — how ``PretrainedConfig.__init__`` treats the
keyword arguments it receives, how attribute aliases, ``get_text_config()``, RoPE and layer-type
validation behave — written here in kvguard's own code; what differs per class comes from the
class tables (``kvguard/data/facts/transformers-4.57.6.json``, made by tools/facts_extract.py).
Exception types and messages are the library's, character for character.
"""

from __future__ import annotations

import copy
import math

from ..errors import Undecidable
from .frame import Frame, bind_init_parameters, literal, super_call_kwargs
from .library import ConfigLibrary
from .objects import ClassFacts, ConfigObject, torch_attribute
from .steps import format_message, run_steps

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Transformers4"]

_MISSING = object()

#: PretrainedConfig.__init__ parameters that are not kept as attributes of the same name
_NOT_STORED = frozenset({"num_labels"})
_PROBLEM_TYPES = ("regression", "single_label_classification", "multi_label_classification")

#: PretrainedConfig's class-level values every class inherits
BASE_CLASS_ATTRS: dict[str, Any] = {
    "model_type": "", "base_config_key": "", "sub_configs": {}, "has_no_defaults_at_init": False,
    "attribute_map": {}, "base_model_tp_plan": None, "base_model_pp_plan": None, "base_model_ep_plan": None,
    "_auto_class": None, "is_composition": False,
}


class Transformers4(ConfigLibrary):
    """The shared behaviour of transformers 4.x config classes, over one line's class tables."""

    major = 4

    def __init__(self, tables: dict, vllm_tables: "dict | None" = None):
        self.line = tables["line"]
        self.tables = tables
        self.vllm = vllm_tables or {"classes": {}}
        #: the vLLM release this load is for (set by the loader)
        self.release: Any = None
        self.base = tables["base"]
        self.base_class_attrs = dict(BASE_CLASS_ATTRS)
        self.config_mapping: dict[str, str] = tables["config_mapping"]
        #: model types registered for this load (vLLM's AutoConfig.register of its own classes)
        self.registered: dict[str, ClassFacts] = {}
        #: class-level values changed for this load (``config_class.model_type = model_type``)
        self.class_overrides: dict[tuple[str, str], Any] = {}
        #: layer types vLLM adds to ALLOWED_LAYER_TYPES for this load
        self.extra_layer_types: tuple = ()
        #: what this load did that the verdict should say (e.g. a class built by the real transformers)
        self.notes: list[str] = []
        self._classes: dict[str, ClassFacts] = {}

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
        # class-level values the class's own steps read (a table of default keywords, ...)
        for key, spec in (record.get("class_attrs") or {}).items():
            if "literal" in spec:
                found.class_attrs[key] = literal(spec["literal"])
        self._classes[name] = found
        return found

    def sub_config_name(self, cls: ClassFacts, key: str) -> Any:
        """The 4.x line records ``sub_configs`` (key -> class name) on the class itself."""
        subs = cls.record.get("sub_configs") or {}
        return subs.get(key) if isinstance(subs, dict) else None

    def plain_class(self, model_type: Any) -> ClassFacts:
        """The base PretrainedConfig as a class of its own, with ``model_type`` as its class attribute (a
        remote-code config read without its repository code)."""
        record = {"model_type": model_type if isinstance(model_type, str) else "", "module": "transformers"}
        return ClassFacts("PretrainedConfig", record, self, None)

    # -- building -----------------------------------------------------------------------------
    def _init(self, obj: ConfigObject, cls: ClassFacts, kwargs: dict) -> None:
        owner: ClassFacts | None = cls
        while owner is not None and "init" not in owner.record:
            owner = owner.parent
        if owner is None:
            self.base_init(obj, kwargs)
            return
        record = owner.record
        frame = Frame(obj, bind_init_parameters(owner, kwargs), owner, self, "__init__")
        run_steps(frame, record["init"], lambda f, call: self._super_init(f, call, owner))

    def _super_init(self, frame: Frame, call: dict, owner: ClassFacts) -> None:
        kwargs = super_call_kwargs(frame, call, f"{owner.name}.__init__", _init_reached(owner.parent))
        parent = owner.parent
        if parent is None:
            self.base_init(frame.obj, kwargs)
        else:
            self._init(frame.obj, parent, kwargs)

    def base_init(self, obj: ConfigObject, kwargs: dict) -> None:
        """What ``PretrainedConfig.__init__(**kwargs)`` does in this line."""
        base = self.base
        params = {}
        for name, default in base["params"]:
            params[name] = kwargs.pop(name) if name in kwargs else literal(default)
        label2id, id2label = params["label2id"], params["id2label"]
        if label2id is not None and not isinstance(label2id, dict):
            raise ValueError("Argument label2id should be a dictionary.")
        if id2label is not None and not isinstance(id2label, dict):
            raise ValueError("Argument id2label should be a dictionary.")
        num_labels = params["num_labels"]
        if num_labels is not None and id2label is not None:
            len(id2label)  # the warning's length check
        problem_type = params["problem_type"]
        if problem_type is not None and problem_type not in _PROBLEM_TYPES:
            raise ValueError(
                f"The config parameter `problem_type` was not understood: received {problem_type} but only "
                "'regression', 'single_label_classification' and 'multi_label_classification' are valid.")
        torch_dtype = kwargs.pop("torch_dtype", None)
        dtype = params["dtype"]
        if torch_dtype is not None:
            dtype = dtype if dtype is not None else torch_dtype
        if dtype is not None and isinstance(dtype, str):
            dtype = torch_attribute(dtype)
        params["dtype"] = dtype
        for name, _ in base["params"]:
            if name in _NOT_STORED:
                continue
            if name == "output_attentions":
                obj.kvg_attrs["_output_attentions"] = params[name]
            elif name == "pruned_heads":
                obj.pruned_heads = params[name] if params[name] is not None else {}
            else:
                setattr(obj, name, params[name])
        if obj.id2label is None:
            count = num_labels if num_labels is not None else 2
            obj.id2label = {i: f"LABEL_{i}" for i in _label_range(count)}
            obj.label2id = dict(zip(obj.id2label.values(), obj.id2label.keys()))
        else:
            obj.id2label = {int(key): value for key, value in obj.id2label.items()}
        for name, default in base["generation_defaults"].items():
            setattr(obj, name, kwargs.pop(name, literal(default)))
        obj._name_or_path = str(kwargs.pop("name_or_path", ""))
        obj._commit_hash = kwargs.pop("_commit_hash", None)
        self.set_attn_implementation(obj, kwargs.pop("attn_implementation", None))
        obj.transformers_version = kwargs.pop("transformers_version", None)
        if kwargs.get("gradient_checkpointing", False):
            pass  # a deprecation warning only
        for key, value in kwargs.items():
            setattr(obj, key, value)
        obj.tf_legacy_loss = kwargs.pop("tf_legacy_loss", False)
        obj.use_bfloat16 = kwargs.pop("use_bfloat16", False)

    def set_attn_implementation(self, obj: ConfigObject, value: Any) -> None:
        """The ``_attn_implementation`` setter: the value, then the same on every sub-config present."""
        current = getattr(obj, "_attn_implementation", None)
        attrs = obj.kvg_attrs
        attrs["_attn_implementation_internal"] = value if not isinstance(value, dict) else value.get("", current)
        subs = obj.kvg_facts.class_attrs.get("sub_configs") or {}
        for key in subs:
            sub = getattr(obj, key, None)
            if sub is not None:
                current_sub = getattr(sub, "_attn_implementation", None)
                sub_value = value if not isinstance(value, dict) else value.get(key, current_sub)
                if isinstance(sub, ConfigObject):
                    sub.kvg_facts.library.set_attn_implementation(sub, sub_value)
                else:
                    sub._attn_implementation = sub_value  # raises as on the real plain value

    def mapping_keys(self) -> list:
        """``CONFIG_MAPPING.keys()`` in order (vLLM's registrations of this load come last)."""
        return list(self.config_mapping) + [k for k in self.registered if k not in self.config_mapping]

    def to_dict(self, obj: ConfigObject) -> dict:
        """``PretrainedConfig.to_dict()`` of this line."""
        import copy as _copy
        out = _copy.deepcopy(dict(obj.kvg_attrs))
        out["model_type"] = self.get_attribute_class_level(obj, "model_type")
        out["transformers_version"] = self.line
        for key, value in list(out.items()):
            if isinstance(value, ConfigObject):
                value = self.to_dict(value)
                del value["transformers_version"]
            out[key] = value
        _remove_unserialised(obj, out)
        if hasattr(obj, "quantization_config"):
            quant = obj.quantization_config
            if isinstance(quant, ConfigObject):
                raise Undecidable("a quantization config object is not modelled")
            if not isinstance(quant, dict):
                raise AttributeError(f"'{type(quant).__name__}' object has no attribute 'to_dict'")
            out["quantization_config"] = quant
        _dict_dtype_to_str(out)
        return out

    def get_attribute_class_level(self, obj: ConfigObject, name: str) -> Any:
        """``type(obj).name`` (a class attribute, after this load's changes)."""
        cls = obj.kvg_facts
        for owner in cls.mro_names():
            if (owner, name) in self.class_overrides:
                return self.class_overrides[owner, name]
        return cls.class_attrs.get(name)

    # -- the attribute protocol ---------------------------------------------------------------
    def get_attribute(self, obj: ConfigObject, name: str) -> Any:
        cls = obj.kvg_facts
        if cls.hooks:
            hook = cls.hooks.get("__getattribute__")
            if hook is not None:
                found = _forwarded(obj, name, hook)
                if found is not _MISSING:
                    return found
        if name != "attribute_map":
            name = cls.attribute_map.get(name, name)
        if name in cls.properties:
            return class_property(obj, name, cls.properties[name])
        attrs = obj.kvg_attrs
        if name in attrs:
            return attrs[name]
        prop = _BASE_PROPERTIES.get(name)
        if prop is not None:
            return prop(obj)
        if self.class_overrides:
            for owner in cls.mro_names():
                if (owner, name) in self.class_overrides:
                    return self.class_overrides[owner, name]
        if name in cls.class_attrs:
            return cls.class_attrs[name]
        raise AttributeError(f"'{cls.display}' object has no attribute '{name}'")

    def set_attribute(self, obj: ConfigObject, name: str, value: Any) -> None:
        cls = obj.kvg_facts
        if cls.hooks:
            hook = cls.hooks.get("__setattr__")
            if hook is not None and _forward_set(obj, name, value, hook):
                return
        name = cls.attribute_map.get(name, name)
        if name in cls.properties:
            prop = cls.properties[name]
            if not prop.get("setter"):
                raise AttributeError(f"property '{name}' of '{cls.display}' object has no setter")
            class_property_set(obj, name, prop, value)
            return
        setter = _BASE_SETTERS.get(name)
        if setter is not None:
            setter(self, obj, value)
            return
        obj.kvg_attrs[name] = value

    def contains(self, obj: ConfigObject, item: Any) -> bool:
        return any(key == item for key in obj.kvg_attrs)

    def iterate(self, obj: ConfigObject):
        return iter(list(obj.kvg_attrs))

    def text_config_of(self, obj: ConfigObject) -> Any:
        """``config.get_text_config()`` with no arguments."""
        override = _text_override(obj.kvg_facts)
        if override is not None:
            return override(obj)
        valid = []
        for name in ("text_encoder", "decoder", "generator", "text_config"):
            if hasattr(obj, name) and getattr(obj, name, None) is not None:
                valid.append(name)
        if len(valid) > 1:
            raise ValueError(
                f"Multiple valid text configs were found in the model config: {valid}. In this case, using "
                "`get_text_config()` would be ambiguous. Please specify the desired text config directly, e.g. "
                "`text_config = config.sub_config_name`")
        if len(valid) == 1:
            return getattr(obj, valid[0])
        return obj

    def allowed_layer_types(self) -> tuple:
        """transformers' ``ALLOWED_LAYER_TYPES`` (vLLM may extend it for a load)."""
        return tuple(self.tables["allowed_layer_types"]) + tuple(self.extra_layer_types)

    def attention_layer_types(self) -> tuple:
        """What vLLM imports as ``ALLOWED_ATTENTION_LAYER_TYPES`` (transformers' own, else ALLOWED_LAYER_TYPES)."""
        own = self.tables.get("allowed_attention_layer_types")
        return tuple(own) if own is not None else self.allowed_layer_types()

    # -- validations the classes call ---------------------------------------------------------
    def rope_validation(self, obj: ConfigObject, ignore_keys: Any) -> None:
        from .rope import validate_rope_4
        validate_rope_4(obj, ignore_keys, self.tables["rope"])

    def layer_types_validation(self, layer_types: Any, num_hidden_layers: Any) -> None:
        allowed = self.allowed_layer_types()
        if not all(layer_type in allowed for layer_type in layer_types):
            raise ValueError(f"The `layer_types` entries must be in {allowed}")
        if num_hidden_layers is not None and num_hidden_layers != len(layer_types):
            raise ValueError(f"`num_hidden_layers` ({num_hidden_layers}) must be equal to the number of layer "
                             f"types ({len(layer_types)})")


#: the qualified name of ``PretrainedConfig.__init__`` in this line, as CPython prints it
BASE_INIT = "transformers.configuration_utils.PretrainedConfig.__init__"


def _init_reached(start: "ClassFacts | None") -> str:
    """The ``module.qualname`` of the ``__init__`` a call on ``start`` runs (the first class up the chain
    that defines one, else PretrainedConfig's)."""
    k = start
    while k is not None and "init" not in k.record:
        k = k.parent
    if k is None:
        return BASE_INIT
    return f"{k.record.get('module', '')}.{k.display}.__init__"


def _remove_unserialised(obj: ConfigObject, values: dict) -> None:
    """``_remove_keys_not_serialized``: private keys go, ``_output_attentions`` is written as
    ``output_attentions``; in nested dicts too."""
    if hasattr(obj, "quantization_config"):
        values.pop("_pre_quantization_dtype", None)
    for key in ("_auto_class", "_commit_hash", "_attn_implementation_internal", "base_model_tp_plan",
                "base_model_pp_plan"):
        values.pop(key, None)
    if "_output_attentions" in values:
        values["output_attentions"] = values.pop("_output_attentions")
    for value in values.values():
        if isinstance(value, dict):
            _remove_unserialised(obj, value)


def _dict_dtype_to_str(values: dict) -> None:
    dtype = values.get("dtype")
    if dtype is not None:
        if isinstance(dtype, dict):
            values["dtype"] = {k: str(v).split(".")[-1] for k, v in dtype.items()}
        elif not isinstance(dtype, (str, int)):
            values["dtype"] = str(dtype).split(".")[1]
    for value in values.values():
        if isinstance(value, dict):
            _dict_dtype_to_str(value)


def _short(name: str) -> str:
    return name.removeprefix("vllm:")


def _plain_dict(value: Any) -> Any:
    """``value.__dict__`` as Python answers it (a config object's attributes; AttributeError otherwise)."""
    if isinstance(value, ConfigObject):
        return value.kvg_attrs
    return value.__dict__


#: what forwarded_read answers for a name the text config does not hold
FORWARD_MISSING = _MISSING


def _forwarded(obj: ConfigObject, name: str, hook: dict) -> Any:
    """A class that forwards reads to its text config (Qwen2-VL in transformers 4.x)."""
    if hook["kind"] != "forward_to_text_config":
        raise Undecidable(f"{_short(obj.kvg_class_name)} overrides attribute access in a way kvguard does not model")
    attrs = obj.kvg_attrs
    if "text_config" in attrs and name not in hook["except"]:
        text = attrs["text_config"]
        if name in _plain_dict(text):
            return getattr(text, name)
    return _MISSING


def _forward_set(obj: ConfigObject, name: str, value: Any, hook: dict) -> bool:
    if hook["kind"] != "forward_to_text_config":
        raise Undecidable(f"{_short(obj.kvg_class_name)} overrides attribute assignment in a way kvguard does not "
                          "model")
    text = obj.kvg_attrs.get("text_config")
    if text is not None and name not in hook["except"] and name in _plain_dict(text):
        setattr(text, name, value)
        return True
    return False


def class_property(obj: ConfigObject, name: str, prop: dict) -> Any:
    """A property a class defines, computed from the object as its getter does."""
    kind = prop["kind"]
    if kind == "floordiv":
        return getattr(obj, prop["a"]) // getattr(obj, prop["b"])
    if kind == "negation":
        return not getattr(obj, prop["a"])
    if kind == "constant":
        return prop["value"]
    if kind == "not_none":
        return getattr(obj, prop["a"]) is not None
    if kind == "sub_attribute":
        return getattr(getattr(obj, prop["sub"]), prop["a"])
    if kind == "kimi_is_mla":
        return (obj.q_lora_rank is not None or obj.kv_lora_rank is not None or obj.qk_nope_head_dim is not None
                or obj.qk_rope_head_dim is not None or obj.v_head_dim is not None or obj.mla_use_nope is True)
    if kind == "kimi_is_linear_attn":
        linear = obj.linear_attn_config
        return not (linear is None or (isinstance(linear, dict) and linear["kda_layers"] is not None
                                       and len(linear["kda_layers"]) == 0))
    if kind == "alias":
        return getattr(obj, prop["a"])
    if kind == "sum":
        return getattr(obj, prop["a"]) + getattr(obj, prop["b"])
    if kind == "round_up_mul":
        value, multiple = getattr(obj, prop["a"]) * getattr(obj, prop["f"]), prop["multiple"]
        return int(((value + multiple - 1) // multiple) * multiple)
    if kind == "layers_by_period":
        period, offset = getattr(obj, prop["period"]), getattr(obj, prop["offset"])
        return [prop["hit"] if i % period == offset else prop["miss"]
                for i in _layers(obj.num_hidden_layers)]
    if kind == "experts_by_period":
        period, offset = getattr(obj, prop["period"]), getattr(obj, prop["offset"])
        return [obj.num_experts if i % period == offset else 1 for i in _layers(obj.num_hidden_layers)]
    if kind == "layers_at_indices":
        indices = getattr(obj, prop["indices"])
        return [prop["hit"] if indices and i in indices else prop["miss"] for i in _layers(obj.num_hidden_layers)]
    if kind == "same_per_layer":
        return [prop["value"] for _ in _layers(obj.num_hidden_layers)]
    if kind == "layer_types_or_same":
        return obj.layer_types if obj.layer_types else [prop["value"]] * _count(obj.num_hidden_layers)
    if kind == "int_product_of":
        # VibeVoice's acoustic tokenizer: the hop length is the product of its downsampling ratios
        return int(math.prod(getattr(obj, prop["a"])))
    if kind == "product":
        return getattr(obj, prop["a"]) * getattr(obj, prop["b"])
    if kind == "mul_by_items":
        # MiniCPM-V 4.6 / 4.7's vision window sizes: a size times items of a list, read left to right
        value = getattr(obj, prop["a"])
        for index in prop["items"]:
            value = value * getattr(obj, prop["l"])[index]
        return value
    if kind == "ceil_quotient_by_sub_attribute":
        # VibeVoice-ASR: the positions are the audio chunk counted in hops of its acoustic tokenizer
        return math.ceil(getattr(obj, prop["a"]) / getattr(getattr(obj, prop["sub"]), prop["b"]))
    raise Undecidable(f"{_short(obj.kvg_class_name)}.{name} is a property kvguard does not model")


#: the exceptions a setter that only raises may raise (tables: ``setter_kind`` "raise")
_SETTER_ERRORS: dict[str, type] = {"NotImplementedError": NotImplementedError, "ValueError": ValueError,
                                   "TypeError": TypeError, "AttributeError": AttributeError}


def class_property_set(obj: ConfigObject, name: str, prop: dict, value: Any) -> None:
    """Assigning a property a class defines, as its setter does (both lines)."""
    kind = prop.get("setter_kind")
    args = prop.get("setter_args") or {}
    if kind == "set_alias":
        setattr(obj, args["a"], value)
        return
    if kind == "floordiv_into":
        setattr(obj, args["a"], value // args["d"])
        return
    if kind == "mul_into":
        setattr(obj, args["a"], value * args["k"])
        return
    if kind == "ignore":
        return
    if kind == "positive_times_sub_attribute_into":
        # VibeVoice-ASR's max_position_embeddings: a count of hops, stored as the chunk length in samples; the
        # comparison, the sub-config's read and int() fail as Python does, in that order
        if value <= 0:
            frame = Frame(obj, {"value": value}, obj.kvg_facts, obj.kvg_facts.library, name)
            raise ValueError(format_message(frame, args["msg"]["template"]))
        per_unit = getattr(getattr(obj, args["sub"]), args["b"])
        setattr(obj, args["a"], int(value) * per_unit)
        return
    if kind == "refuse_flash_if_truthy":
        # HRM-Text's _attn_implementation (transformers 5): a flash implementation ("flash" in the value, after
        # a "paged|" prefix where the line strips one with str methods) refused while the attribute is truthy,
        # then PreTrainedConfig's own setter; a JSON value's ``in`` / missing str methods fail as Python's do
        if value is not None and getattr(obj, args["when"]):
            if not isinstance(value, (str, dict, list, int, float)):
                raise Undecidable(f"{_short(obj.kvg_class_name)}.{name}: a {type(value).__name__} value is not "
                                  "modelled")
            checked = value
            if args.get("paged_prefix"):
                checked = value.removeprefix("paged|") if value.startswith("paged|") else value  # type: ignore[union-attr]
            if "flash" in checked:  # type: ignore[operator]
                frame = Frame(obj, {"value": value}, obj.kvg_facts, obj.kvg_facts.library, name)
                raise ValueError(format_message(frame, args["msg"]["template"]))
        obj.kvg_facts.library.set_attn_implementation(obj, value)
        return
    if kind == "raise_unless_product":
        # Gemma 4 unified vision's model_patch_size: only the product of the two attributes may be assigned
        if value != getattr(obj, args["a"]) * getattr(obj, args["b"]):
            frame = Frame(obj, {"value": value}, obj.kvg_facts, obj.kvg_facts.library, name)
            raise ValueError(format_message(frame, args["msg"]["template"]))
        return
    if kind == "raise" and args["type"] in _SETTER_ERRORS:
        frame = Frame(obj, {"value": value}, obj.kvg_facts, obj.kvg_facts.library, name)
        raise _SETTER_ERRORS[args["type"]](format_message(frame, args["msg"]["template"]))
    raise Undecidable(f"{_short(obj.kvg_class_name)}.{name}: a property setter kvguard does not model")


def _layers(n: Any) -> range:
    return range(_count(n))


def _count(n: Any) -> Any:
    from .frame import bounded_count
    return bounded_count(n)


def _label_range(count: Any) -> range:
    if isinstance(count, int) and count > 1_000_000:
        raise Undecidable(f"num_labels={count}: kvguard does not build a label map that large")
    return range(count)


def _text_override(cls: ClassFacts):
    k: ClassFacts | None = cls
    while k is not None:
        if "text_config_rule" in k.record:
            rule = k.record["text_config_rule"]
            return lambda obj: _apply_text_rule(obj, rule)
        if "get_text_config" in k.record:
            return lambda obj: _undecidable_text(obj)
        k = k.parent
    return None


def _apply_text_rule(obj: ConfigObject, rule: dict) -> Any:
    value = getattr(obj, rule["attribute"])
    if rule.get("self_if_none") and value is None:
        return obj
    if rule.get("then_text_config"):
        return value.get_text_config()
    return value


def _undecidable_text(obj: ConfigObject) -> Any:
    raise Undecidable(f"{obj.kvg_class_name}.get_text_config() is overridden in a way kvguard does not model")


# -- PretrainedConfig's properties ------------------------------------------------------------

def _name_or_path(obj: ConfigObject) -> Any:
    return getattr(obj, "_name_or_path", None)


def _set_name_or_path(lib: Transformers4, obj: ConfigObject, value: Any) -> None:
    obj.kvg_attrs["_name_or_path"] = str(value)


def _output_attentions(obj: ConfigObject) -> Any:
    return obj._output_attentions


def _set_output_attentions(lib: Transformers4, obj: ConfigObject, value: Any) -> None:
    if value and obj._attn_implementation is None:
        lib.set_attn_implementation(obj, "eager")
    if value and obj._attn_implementation != "eager":
        raise ValueError(
            "The `output_attentions` attribute is not supported when using the `attn_implementation` set to "
            f"{obj._attn_implementation}. Please set it to 'eager' instead.")
    obj.kvg_attrs["_output_attentions"] = value


def _use_return_dict(obj: ConfigObject) -> Any:
    return obj.return_dict and not obj.torchscript


def _num_labels(obj: ConfigObject) -> Any:
    return len(obj.id2label)


def _set_num_labels(lib: Transformers4, obj: ConfigObject, value: Any) -> None:
    if obj.id2label is None or _num_labels(obj) != value:
        obj.id2label = {i: f"LABEL_{i}" for i in _label_range(value)}
        obj.label2id = dict(zip(obj.id2label.values(), obj.id2label.keys()))


def _attn_implementation(obj: ConfigObject) -> Any:
    return obj._attn_implementation_internal


def _set_attn_implementation(lib: Transformers4, obj: ConfigObject, value: Any) -> None:
    lib.set_attn_implementation(obj, value)


def _torch_dtype(obj: ConfigObject) -> Any:
    return obj.dtype


def _set_torch_dtype(lib: Transformers4, obj: ConfigObject, value: Any) -> None:
    obj.dtype = value


_BASE_PROPERTIES = {
    "name_or_path": _name_or_path, "output_attentions": _output_attentions, "use_return_dict": _use_return_dict,
    "num_labels": _num_labels, "_attn_implementation": _attn_implementation, "torch_dtype": _torch_dtype,
}
_BASE_SETTERS = {
    "name_or_path": _set_name_or_path, "output_attentions": _set_output_attentions, "num_labels": _set_num_labels,
    "_attn_implementation": _set_attn_implementation, "torch_dtype": _set_torch_dtype,
}

_ = copy  # deep copies of literals happen in steps.literal


# the same hooks on the transformers 5 lines (vLLM's own classes keep them there)
forwarded_read = _forwarded
forwarded_write = _forward_set
