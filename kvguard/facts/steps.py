"""The derivation vocabulary: what a config class does to its attributes while it is built.

The class tables (``kvguard/data/facts/``) list, per configuration class, the steps its
``__init__`` / ``__post_init__`` takes, in order, each named from this vocabulary with names and
literal values as arguments (tools/facts_extract.py recognises them in the real library; see
tools/facts_patterns.py).  Each step is implemented here, in kvguard's own code, so that it has
the effect the class has — including the exception Python raises when a value has the wrong type
(``None // 8`` raises the same TypeError here as there).

A step the extractor could not name is ``opaque``: kvguard cannot follow it, so it answers only
when the step cannot matter (see :func:`_opaque`).
"""

from __future__ import annotations

import copy
import math

from ..errors import Undecidable
from .classes5 import STEPS5
from .frame import Frame, bounded_count, literal

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["Returned", "STEPS", "format_message", "run_steps"]


# ---------------------------------------------------------------------------------------------
# the vocabulary

def _set(f: Frame, a: dict) -> None:
    f.set(a["a"], f.get(a["b"]))


def _set_const(f: Frame, a: dict) -> None:
    f.set(a["a"], f.get(a["v"]))


def _default_if_none(f: Frame, a: dict) -> None:
    if f.get(a["a"]) is None:
        f.set(a["a"], f.get(a["b"]))


def _set_default_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], value if value is not None else f.get(a["b"]))


def _const_if_none(f: Frame, a: dict) -> None:
    if f.get(a["a"]) is None:
        f.set(a["a"], f.get(a["v"]))


def _set_const_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], value if value is not None else f.get(a["v"]))


def _set_or(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) or f.get(a["b"]))


def _set_or_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) or f.get(a["v"]))


def _set_if_else(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) else f.get(a["b"]))


def _set_if_else_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) else f.get(a["v"]))


def _set_b_if_none_else_a(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) is None else f.get(a["b"]))


_NO_DEFAULT = object()


def _kwargs_pop(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    key = f.get(a["k"])
    if "v" in a:
        f.set(a["t"], kw.pop(key, f.get(a["v"])))
    else:
        f.set(a["t"], kw.pop(key))


def _kwargs_get(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    default = f.get(a["v"]) if "v" in a else f.get(a["d"])
    f.set(a["t"], kw.get(f.get(a["k"]), default))


def _kwargs_setdefault(f: Frame, a: dict) -> None:
    f.kwargs().setdefault(f.get(a["k"]), f.get(a["v"]))


def _kwargs_drop(f: Frame, a: dict) -> None:
    f.kwargs().pop(f.get(a["k"]), None)


def _kwargs_set(f: Frame, a: dict) -> None:
    f.kwargs()[f.get(a["k"])] = f.get(a["v"])


def _floordiv(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) // f.get(a["b"]))


def _floordiv_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["t"])
    f.set(a["t"], value if value is not None else f.get(a["a"]) // f.get(a["b"]))


def _floordiv_if_none_from(f: Frame, a: dict) -> None:
    value = f.get(a["s"])
    f.set(a["t"], value if value is not None else f.get(a["a"]) // f.get(a["b"]))


def _floordiv_or(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a.get("s", a["t"])) or f.get(a["a"]) // f.get(a["b"]))


def _add(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) + f.get(a["b"]))


def _mul(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) * f.get(a["b"]))


def _mul_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) * f.get(a["k"]))


def _rope_type_from_type(f: Frame, a: dict) -> None:
    scaling = f.obj.rope_scaling
    if scaling is not None and "type" in scaling:
        scaling["rope_type"] = scaling["type"]


def _rope_validation(f: Frame, a: dict) -> None:
    ignore = f.get(a["ignore"]) if "ignore" in a else None
    f.lib.rope_validation(f.obj, ignore)


def _layer_types_validation(f: Frame, a: dict) -> None:
    f.lib.layer_types_validation(f.obj.layer_types, f.obj.num_hidden_layers)


def _layer_types_validation_any_length(f: Frame, a: dict) -> None:
    f.lib.layer_types_validation(f.obj.layer_types, None)


def _layer_types_sliding_after(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        obj.layer_types = ["sliding_attention" if obj.sliding_window is not None and i >= obj.max_window_layers
                           else "full_attention" for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_sliding_every(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        every = f.get(a["n"])
        obj.layer_types = ["sliding_attention" if bool((i + 1) % every) else "full_attention"
                           for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_all_full(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        obj.layer_types = ["full_attention"] * bounded_count(obj.num_hidden_layers)


def _layer_range(n: Any) -> range:
    return range(bounded_count(n))


# -- sub-configs ------------------------------------------------------------------------------
# One step says what a class does with a sub-config argument for each kind of value it may hold
# (tools/facts_subconfigs.py): ``{"var": name, "cases": {kind: [op, ...]}}`` or ``{"ops": [op]}``.

def _kind(value: Any) -> str:
    from .objects import ConfigObject
    if value is None:
        return "none"
    if isinstance(value, dict):
        if not value:
            return "empty_dict"
        return "dict_mt" if "model_type" in value else "dict"
    if isinstance(value, ConfigObject):
        return "config"
    return "truthy" if value else "falsy"


def _sub_config(f: Frame, a: dict) -> None:
    if "ops" in a:
        ops = a["ops"]
    else:
        kind = _kind(f.get(a["var"]))
        if not any(kind in kinds for kinds, _ in a["cases"]) and kind == "dict_mt":
            kind = "dict"   # tables written before dicts with a model type were told apart
        ops = next(ops for kinds, ops in a["cases"] if kind in kinds)
    for op in ops:
        _SUB_OPS[op["op"]](f, op)


def _build_op(f: Frame, op: dict) -> Any:
    if "from" in op:
        source = f.get(op["from"])
        if op.get("or_empty"):
            source = source or {}
    elif "from_kwargs_pop" in op:
        key, default = op["from_kwargs_pop"]
        source = f.kwargs().pop(key, literal(default))
    else:
        source = {}
    if "under_class_value" in op:
        defaults = getattr(f.obj, op["under_class_value"])
        source = {**defaults, **source}
    if "without" in op:
        if not hasattr(source, "items"):
            raise Undecidable(f"{f.cls.name}: a sub-config built from the items of a non-mapping")
        source = {k: v for k, v in source.items() if k not in op["without"]}
    if "kw" in op or "kw_vars" in op:
        if not hasattr(source, "keys"):
            raise Undecidable(f"{f.cls.name}: keyword and ** arguments together on a non-mapping")
        keywords = {k: literal(v) for k, v in op.get("kw", {}).items()}
        keywords.update({k: f.get(v) for k, v in op.get("kw_vars", {}).items()})
        value = f.lib.build_class_ref(f, _resolve_ref(f, op["class"]), source, keywords)
    else:
        value = f.lib.build_class_ref(f, _resolve_ref(f, op["class"]), source)
    f.set(op["target"], value)
    return value


#: the key of a local that holds a class (``cls = self.sub_configs["text_config"]``): its class reference
CLASS_REF = "$class_ref"


def _resolve_ref(f: Frame, ref: dict) -> dict:
    if "class" in ref and isinstance(f.locals.get(ref["class"]), dict) and CLASS_REF in f.locals[ref["class"]]:
        return dict(f.locals[ref["class"]][CLASS_REF])
    if "mapping_key" in ref:
        var, key = ref["mapping_key"]
        return {"mapping_value": f.get(var)[key]}
    if "mapping_get" in ref:
        var, key, default = ref["mapping_get"]
        return {"mapping_value": f.get(var).get(key, default)}
    if "mapping_var" in ref:
        return {"mapping_value": f.get(ref["mapping_var"])}
    return ref


def _op_model_type_default(f: Frame, op: dict) -> None:
    target = f.get(op["var"])
    default = f.get(op["value_from"]) if "value_from" in op else op["value"]
    target["model_type"] = target.get("model_type", default)


def _op_model_type(f: Frame, op: dict) -> None:
    f.get(op["var"])["model_type"] = op["value"]


def _op_empty(f: Frame, op: dict) -> None:
    f.set(op["target"], {})


def _op_assign(f: Frame, op: dict) -> None:
    f.set(op["target"], f.get(op["from"]))


def _op_read_model_type(f: Frame, op: dict) -> None:
    f.set(op["target"], f.get(op["from"]).get("model_type", op["default"]))


def _op_empty_if_none(f: Frame, op: dict) -> None:
    value = f.get(op["from"])
    f.set(op["target"], {} if value is None else value)


def _op_build_discard(f: Frame, op: dict) -> None:
    """A class built and thrown away (its refusals still count)."""
    op = dict(op, target="_discarded")
    _build_op(f, op)


def _op_or_build(f: Frame, op: dict) -> None:
    value = f.get(op["from"])
    if value:
        f.set(op["target"], value)
    else:
        _build_op(f, op["build"])


def _op_if_truthy_build(f: Frame, op: dict) -> None:
    _build_op(f, op["then"] if f.get(op["test"]) else op["else"])


_RAISABLE = {"ValueError": ValueError, "TypeError": TypeError, "KeyError": KeyError}


def _op_raise(f: Frame, op: dict) -> None:
    exc = _RAISABLE.get(op["type"])
    if exc is None:
        raise Undecidable(f"{f.cls.name}: raises {op['type']}, which kvguard does not model")
    raise exc(op["message"])


def _op_branch(f: Frame, op: dict) -> None:
    _sub_config(f, op["step"])


def _op_model_type_rename(f: Frame, op: dict) -> None:
    value = f.get(op["var"])
    # a subscripted test reads the key as the class does (a KeyError without one)
    current = value["model_type"] if op.get("subscript") else value.get("model_type")
    if current == op["old"]:
        value["model_type"] = op["new"]


def _op_local_rename(f: Frame, op: dict) -> None:
    """``if v == old: v = new``."""
    if f.get(op["var"]) == op["old"]:
        f.set(op["var"], op["new"])


def _op_class_local(f: Frame, op: dict) -> None:
    """A local set to a class (looked up where the statement stands), for a later build with it."""
    f.set(op["target"], {CLASS_REF: _resolve_ref(f, op["class"])})


def _op_read_attr(f: Frame, op: dict) -> None:
    """``t = v.attr``."""
    f.set(op["target"], getattr(f.get(op["from"]), op["attr"]))


def _op_attr_set_if_eq(f: Frame, op: dict) -> None:
    """``if test == old: v.attr = new``."""
    if f.get(op["test"]) == op["old"]:
        setattr(f.get(op["var"]), op["attr"], op["new"])


def _op_unmodelled(f: Frame, op: dict) -> None:
    """A guarded block kvguard does not model, reached (``if x is not None: …`` with ``x`` set)."""
    raise Undecidable(f"{f.cls.name}.{f.method} does something kvguard does not model "
                      f"(reads {', '.join(op.get('reads', [])) or 'nothing'})")


def _op_item_kwargs_get(f: Frame, op: dict) -> None:
    """``d[key] = kwargs.get(k1, kwargs.get(k2, ...))``."""
    kw = f.kwargs()
    value = None
    for key in reversed(op["chain"]):
        value = kw.get(key, value)
    f.get(op["var"])[op["key"]] = value


def _op_assert_kind(f: Frame, op: dict) -> None:
    """``assert isinstance(x, (SomeConfig, dict)), msg``: values of other kinds raise AssertionError (the message's
    ``{type(x)}`` is the builtin type a config.json value has)."""
    value = f.get(op["var"])
    if _kind(value) in op["kinds"]:
        return
    raise AssertionError("".join(part if isinstance(part, str) else str(type(f.get(part["type_of"])))
                                 for part in op["message"]))


def _plain_dict(f: Frame, op: dict, value: Any) -> dict:
    if not isinstance(value, dict):
        raise Undecidable(f"{f.cls.name}.{f.method}: {op['op']} on a {type(value).__name__} is not modelled")
    return value


def _op_read_item(f: Frame, op: dict) -> None:
    """``t = x[key]`` on a dict (KeyError when absent)."""
    f.set(op["target"], _plain_dict(f, op, f.get(op["from"]))[op["key"]])


def _op_pop_item(f: Frame, op: dict) -> None:
    """``x.pop(key)`` on a dict (KeyError when absent)."""
    _plain_dict(f, op, f.get(op["var"])).pop(op["key"])


def _op_for_model(f: Frame, op: dict) -> None:
    """``t = AutoConfig.for_model(model_type, **x)``: the class CONFIG_MAPPING names, built from ``x``."""
    kwargs = _plain_dict(f, op, f.get(op["from"]))
    if "model_type" in kwargs:
        raise Undecidable(f"{f.cls.name}.{f.method}: AutoConfig.for_model with model_type given twice is not modelled")
    model_type = f.get(op["model_type"])
    if not f.lib.knows_model_type(model_type):   # an unhashable one raises TypeError, as the mapping's test does
        # vLLM's config modules register more model types with AutoConfig when they are imported (Ovis's visual
        # tokenizers): kvguard does not measure those, and they decide both the class and the refusal's list
        raise Undecidable(f"{f.cls.name}.{f.method}: AutoConfig.for_model({model_type!r}): a model type the "
                          "transformers mapping lacks (vLLM's config modules' own AutoConfig registrations are not "
                          "modelled)")
    f.set(op["target"], f.lib.for_model({"model_type": model_type, **kwargs}))


_SUB_OPS: dict[str, Callable[[Frame, dict], Any]] = {
    "build": _build_op, "model_type_default": _op_model_type_default, "model_type": _op_model_type,
    "empty": _op_empty, "assign": _op_assign, "read_model_type": _op_read_model_type, "or_build": _op_or_build,
    "if_truthy_build": _op_if_truthy_build, "raise": _op_raise, "branch": _op_branch,
    "empty_if_none": _op_empty_if_none, "build_discard": _op_build_discard,
    "model_type_rename": _op_model_type_rename, "item_kwargs_get": _op_item_kwargs_get,
    "local_rename": _op_local_rename, "read_attr": _op_read_attr, "class_local": _op_class_local, "attr_set_if_eq": _op_attr_set_if_eq,
    "unmodelled": _op_unmodelled, "assert_kind": _op_assert_kind, "read_item": _op_read_item,
    "pop_item": _op_pop_item, "for_model": _op_for_model,
}


# -- more derivations ---------------------------------------------------------------------------

def _set_attr_of(f: Frame, a: dict) -> None:
    f.set(a["t"], getattr(f.get(a["s"]), a["attr"]))


def _set_if_else_const_first(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) else f.get(a["b"]))


def _minus_one_is_last_layer(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], f.obj.num_hidden_layers - 1 if value == -1 else value)


def _mul_const_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], f.get(a["b"]) * f.get(a["k"]) if value is None else value)


def _const_mul_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], f.get(a["k"]) * f.get(a["b"]) if value is None else value)


def _int_mul(f: Frame, a: dict) -> None:
    f.set(a["t"], int(f.get(a["a"]) * f.get(a["b"])))


def _int_mul_if_kwarg_none(f: Frame, a: dict) -> None:
    given = f.kwargs().get(f.get(a["k"]))
    f.set(a["t"], int(f.get(a["a"]) * f.get(a["b"])) if given is None else given)


def _int_mul_floordiv(f: Frame, a: dict) -> None:
    f.set(a["t"], int(f.get(a["a"]) * f.get(a["b"])) // f.get(a["c"]))


def _const_mul_floordiv(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["k"]) * f.get(a["a"]) // f.get(a["b"]))


def _ceil_div_if_auto(f: Frame, a: dict) -> None:
    import math
    value = f.get(a["s"])
    f.set(a["t"], math.ceil(f.get(a["a"]) / f.get(a["d"])) if value == f.get(a["auto"]) else value)


def _floordiv_add_if(f: Frame, a: dict) -> None:
    if f.get(a["c"]):
        f.set(a["t"], f.get(a["t"]) // f.get(a["d"]) + f.get(a["p"]))


def _none_if_empty_list(f: Frame, a: dict) -> None:
    if f.get(a["a"]) == []:
        f.set(a["a"], None)


def _add_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["a"]) + f.get(a["b"]))


def _const_if(f: Frame, a: dict) -> None:
    if f.get(a["c"]):
        f.set(a["t"], f.get(a["v"]))


def format_message(f: Frame, template: str) -> str:
    """A message template of the tables (``{name}`` / ``{self__name}`` / ``{self__sub__name}`` / ``{name!r}``)
    filled like the f-string."""
    from _string import formatter_parser  # string.Formatter().parse, without importing string

    values = {}
    for _, field, _, _ in formatter_parser(template):
        if field:
            if field.startswith("mul__"):
                left, right = field[5:].split("__by__", 1)
                values[field] = _message_value(f, left) * _message_value(f, right)
            elif field.startswith("len__"):
                values[field] = len(_message_value(f, field[5:]))
            else:
                values[field] = _message_value(f, field)
    return template.format(**values)


def _message_value(f: Frame, name: str) -> Any:
    """A name of a message template: a local, ``self__name`` or ``self__sub__name``."""
    if not name.startswith("self__"):
        return f.get(name)
    first, *rest = name[6:].split("__")
    value = f.get("self." + first)
    for attr in rest:
        value = getattr(value, attr)
    return value


def _one_of(f: Frame, a: dict) -> None:
    if f.get(a["a"]) not in f.get(a["allowed"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_truthy(f: Frame, a: dict) -> None:
    if f.get(a["c"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _drop_kwargs(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    for key in f.get(a["keys"]):
        if key in kw:
            kw.pop(key)


def _no_extra_kwargs(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    if len(kw) != 0:
        raise ValueError(f"Found unknown kwargs={kw!r}")


def _indices_of(f: Frame, a: dict) -> None:
    wanted = f.get(a["v"])
    f.set(a["t"], [index for index, kind in enumerate(f.get(a["s"])) if kind == wanted])


def _const_if_none_else_set(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], f.get(a["v"]) if value is None else value)


def _rope_floats(f: Frame, a: dict) -> None:
    scaling = f.obj.rope_scaling
    if scaling is not None:
        for key in f.get(a["keys"]):
            if key in scaling:
                scaling[key] = float(scaling[key])


def _rope_mrope_type(f: Frame, a: dict) -> None:
    scaling = f.obj.rope_scaling
    if scaling is not None and "type" in scaling:
        if scaling["type"] == "mrope":
            scaling["type"] = "default"
        scaling["rope_type"] = scaling["type"]


def _layer_types_sliding_every_attr(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        obj._sliding_window_pattern = getattr(obj, f.get(a["attr"]), f.get(a["default"]))
        every = obj._sliding_window_pattern
        obj.layer_types = ["sliding_attention" if bool((i + 1) % every) else "full_attention"
                           for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_linear_every(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        every = f.kwargs().get(f.get(a["k"]), f.get(a["default"])) if "k" in a else f.get(a["n"])
        obj.layer_types = ["linear_attention" if bool((i + 1) % every) else "full_attention"
                           for i in _layer_range(obj.num_hidden_layers)]


def _no_rope_layers_default(f: Frame, a: dict) -> None:
    every = f.get(a["n"])
    f.set(a["t"], [int((i + 1) % every != 0) for i in _layer_range(f.obj.num_hidden_layers)])


def _moe_layers_default(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None:
        f.set(a["t"], value)
        return
    step, count = f.get(a["s"]), f.get(a["n"])
    bounded_count(count)
    f.set(a["t"], list(range(step - 1, count, step)))


def _layer_types_chunked_from_no_rope(f: Frame, a: dict) -> None:
    if f.get(a["l"]) is None:
        f.obj.layer_types = ["chunked_attention" if no_rope else "full_attention" for no_rope in f.obj.no_rope_layers]


def _phimoe_rope_scaling(f: Frame, a: dict) -> None:
    """PhiMoE: a dict ``rope_scaling`` gets ``rope_type`` from ``type``, lends its
    ``original_max_position_embeddings`` to the config, and must carry numeric short/long mscales."""
    obj = f.obj
    scaling = obj.rope_scaling
    if not isinstance(scaling, dict):
        return
    if "rope_type" not in scaling:
        scaling["rope_type"] = scaling.get("type", None)
    if "original_max_position_embeddings" in scaling:
        obj.original_max_position_embeddings = scaling["original_max_position_embeddings"]
    short = scaling.get("short_mscale", None)
    long_ = scaling.get("long_mscale", None)
    if not isinstance(short, (int, float)):
        raise TypeError(f"`rope_scaling`'s short_mscale field must be a number, got {short}")
    if not isinstance(long_, (int, float)):
        raise TypeError(f"`rope_scaling`'s long_mscale field must be a number, got {long_}")


def _zamba2_long_context_rope_theta(f: Frame, a: dict) -> None:
    """Zamba2 with memory RoPE and long context: the RoPE base grows with the attention head size."""
    if f.get("use_mem_rope") and f.get("use_long_context"):
        head = f.obj.attention_head_dim
        f.set("rope_theta", f.get("rope_theta") * 8 ** (head / (head - 2)))


def _const_if_eq(f: Frame, a: dict) -> None:
    if f.get(a["a"]) == f.get(a["v"]):
        f.set(a["t"], f.get(a["w"]))


def _to_float(f: Frame, a: dict) -> None:
    f.set(a["t"], float(f.get(a["a"])))


def _dict_set_if_missing(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    key = f.get(a["k"])
    if key not in target:
        target[key] = f.get(a["v"])


def _kwargs_set_if_missing(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    key = f.get(a["k"])
    if key not in kw:
        kw[key] = f.get(a["v"])


def _first_truthy(f: Frame, a: dict) -> None:
    """``t = a or kwargs.get("k") or 0.5``."""
    value: Any = None
    for item in a["chain"]:
        if isinstance(item, dict) and "kwarg" in item:
            value = f.kwargs().get(item["kwarg"], literal(item["default"]) if "default" in item else None)
        else:
            value = f.get(item)
        if value:
            break
    f.set(a["t"], value)


def _assert_in(f: Frame, a: dict) -> None:
    if f.get(a["a"]) not in f.get(a["allowed"]):
        raise AssertionError()


def _assert_not_none(f: Frame, a: dict) -> None:
    if f.get(a["a"]) is None:
        raise AssertionError()


def _assert_keys_not_none(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None:
        for key in ("k1", "k2"):
            if value[f.get(a[key])] is None:
                raise AssertionError()


def _copy_attr_if_set(f: Frame, a: dict) -> None:
    source = f.get(a["s"])
    if getattr(source, f.get(a["attr"]), None) is not None:
        f.set(a["t"], getattr(source, a["name"]))


def _mul_if_none_else(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], f.get(a["b"]) * f.get(a["c"]) if value is None else value)


def _truncate_to_layers(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None:
        f.set(a["a"], value[:f.obj.num_hidden_layers])


def _raise_if_value_missing(f: Frame, a: dict) -> None:
    if f.get(a["v"]) not in f.get(a["a"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_all_equal(f: Frame, a: dict) -> None:
    wanted = f.get(a["v"])
    if all(t == wanted for t in f.get(a["a"])):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _int_scaled_div_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], int(f.get(a["k"]) * f.get(a["a"]) / f.get(a["b"])))


def _const_mul_if_none_here(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["k"]) * f.get(a["a"]))


def _kwargs_setdefault_to(f: Frame, a: dict) -> None:
    f.set(a["t"], f.kwargs().setdefault(f.get(a["k"]), f.get(a["v"])))


def _tuple_unless_none(f: Frame, a: dict) -> None:
    # tuple() of a value that is not iterable raises the same TypeError here as in the class
    value = f.get(a["a"])
    f.set(a["t"], tuple(value) if value is not None else None)


def _set_tuple(f: Frame, a: dict) -> None:
    # vLLM's KimiK3VisionConfig keeps merge_kernel_size as a tuple; tuple() of None or of a number raises the
    # TypeError the class raises
    f.set(a["t"], tuple(f.get(a["a"])))


def _mul_floordiv_if_eq_const(f: Frame, a: dict) -> None:
    if f.get(a["t"]) == f.get(a["v"]):
        f.set(a["t"], f.get(a["a"]) * f.get(a["b"]) // f.get(a["c"]))


def _list_if_int(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None and isinstance(value, int):
        f.set(a["a"], [value])


def _deepseek_ocr_model_type(f: Frame, archs: Any, on_kwargs: bool, second: bool = True) -> None:
    """vLLM's DeepseekVLV2Config: the OCR checkpoints take their own model type (in the keyword arguments or
    on the config itself, depending on the release)."""
    def put(value: str) -> None:
        if on_kwargs:
            f.kwargs()["model_type"] = value
        else:
            f.obj.model_type = value
    if "DeepseekOCRForCausalLM" in archs:
        put("deepseek_ocr")
    elif second and "DeepseekOCR2ForCausalLM" in archs:
        put("deepseek_ocr2")


def _kimi_k25_mm_hidden_size(f: Frame, a: dict) -> None:
    """vLLM's KimiK25Config: a vision projection as wide as the vision tower is widened to the text model."""
    vision, text = f.obj.vision_config, f.obj.text_config
    if vision.mm_hidden_size == vision.hidden_size:
        vision.mm_hidden_size = text.hidden_size


def _olmo_hybrid_layer_types(f: Frame, a: dict) -> None:
    """vLLM's OlmoHybridConfig: by default every fourth layer is full attention (and at least the last one)."""
    target = a.get("t", "layer_types")  # (transformers' class: self.layer_types / self.num_hidden_layers)
    if f.get(target) is None:
        count = int(f.get(a.get("n", "num_hidden_layers")))
        bounded_count(count)
        kinds = ["linear_attention"] * count
        for i in range(count):
            if i % 4 == 3:
                kinds[i] = "full_attention"
        if "full_attention" not in kinds:
            kinds[-1] = "full_attention"
        f.set(target, kinds)


def _laguna_rope_parameters(f: Frame, a: dict) -> None:
    """vLLM's LagunaConfig: v5-style ``rope_parameters`` translated to ``rope_theta`` + ``rope_scaling``."""
    params = f.get("rope_parameters")
    if params is None:
        return
    rest = dict(params)
    f.set("rope_theta", float(rest.pop("rope_theta", f.get("rope_theta"))))
    rope_type = rest.pop("rope_type", None)
    if rope_type is not None and rope_type != "default":
        f.set("rope_scaling", {"rope_type": rope_type, **rest})
    elif rest and f.get("rope_scaling") is None:
        f.set("rope_scaling", {"rope_type": "default", **rest})


def _validate_layer_types_either(f: Frame, a: dict, counted: bool, local: bool = False) -> None:
    """``validate_layer_type()`` where the line has it (transformers 5), else the module-level check."""
    if hasattr(f.obj, "validate_layer_type"):
        raise Undecidable(f"{f.cls.display}: validate_layer_type of this line is not modelled here")
    if local:
        f.lib.layer_types_validation(f.get("layer_types"), f.get("num_hidden_layers"))
    else:
        f.lib.layer_types_validation(f.obj.layer_types, f.obj.num_hidden_layers if counted else None)


def _raise_if_not_divisible(f: Frame, a: dict) -> None:
    if f.get(a["a"]) % f.get(a["b"]) != 0:
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_not_multiple_of(f: Frame, a: dict) -> None:
    """``a`` not a multiple of a literal: ValueError with the literal message."""
    if f.get(a["a"]) % f.get(a["k"]) != 0:
        raise ValueError(f.get(a["msg"]))


def _halve_log2_times(f: Frame, a: dict) -> None:
    """``t`` taken through ``int(log2(n))`` stride-2 reductions, each ``floor((t - 1) / 2 + 1)``."""
    for _ in range(bounded_count(int(math.log2(f.get(a["n"]))))):
        f.set(a["t"], math.floor((f.get(a["t"]) - 1) / 2 + 1))


def _mllama_aspect_ratios(f: Frame, a: dict) -> None:
    """Mllama vision: the default aspect ratios exist only for 4 tiles."""
    if f.get("supported_aspect_ratios") is None:
        if f.get("max_num_tiles") != 4:
            raise ValueError("max_num_tiles must be 4 for default supported aspect ratios")
        f.set("supported_aspect_ratios", f.get(a["default"]))


def _layer_types_all_sliding_or_full(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        kind = "sliding_attention" if obj.sliding_window is not None else "full_attention"
        obj.layer_types = [kind] * bounded_count(f.get(a["n"]))


def _rope_parameters_default_theta(f: Frame, a: dict) -> None:
    if f.get(a["p"]) is None:
        f.set(a["p"], {"rope_type": "default", "rope_theta": f.get(a["t"])})


def _rope_parameters_or_default_theta(f: Frame, a: dict) -> None:
    """The RoPE parameters given, else (any falsy value) default RoPE at the class's ``rope_theta``."""
    f.set(a["p"], f.get(a["a"]) or {"rope_type": "default", "rope_theta": f.get(a["t"])})


def _rope_params_type_from_type(f: Frame, a: dict) -> None:
    params = f.obj.rope_parameters
    if params is not None and "type" in params:
        params["rope_type"] = params["type"]


# -- validation methods a class calls on itself --------------------------------------------------

def _rope_scaling_type_factor(f: Frame, a: dict) -> None:
    """Olmo / Olmo2 / Fuyu / Chameleon: ``rope_scaling`` is None or exactly ``{type, factor}``."""
    scaling = f.obj.rope_scaling
    if scaling is None:
        return
    if not isinstance(scaling, dict) or len(scaling) != 2:
        with_ = "with with" if a.get("typo") else "with"
        raise ValueError(f"`rope_scaling` must be a dictionary {with_} two fields, `type` and `factor`, got {scaling}")
    kind = scaling.get("type", None)
    factor = scaling.get("factor", None)
    if kind is None or kind not in ["linear", "dynamic"]:
        raise ValueError(f"`rope_scaling`'s type field must be one of ['linear', 'dynamic'], got {kind}")
    if factor is None or not isinstance(factor, float) or factor <= 1.0:
        raise ValueError(f"`rope_scaling`'s factor field must be a float > 1, got {factor}")


def _phi3_rope_type_adjustment(f: Frame, a: dict) -> None:
    scaling = f.obj.rope_scaling
    if scaling is None:
        return
    kind = scaling.get("type", None)
    if kind is not None and kind in ["su", "yarn"]:
        scaling["type"] = "longrope"


def _phi3_rope_validation(f: Frame, a: dict) -> None:
    obj = f.obj
    scaling = obj.rope_scaling
    if scaling is None:
        return
    if not isinstance(scaling, dict) or len(scaling) != 3:
        raise ValueError("`rope_scaling` must be a dictionary with three fields, `type`, `short_factor` and "
                         f"`long_factor`, got {scaling}")
    kind = scaling.get("type", None)
    short = scaling.get("short_factor", None)
    long_ = scaling.get("long_factor", None)
    if kind is None or kind != "longrope":
        raise ValueError(f"`rope_scaling`'s type field must be one of ['longrope'], got {kind}")
    if not (isinstance(short, list) and all(isinstance(x, (int, float)) for x in short)):
        raise ValueError(f"`rope_scaling`'s short_factor field must be a list of numbers, got {short}")
    ndims = int(obj.hidden_size // obj.num_attention_heads * obj.partial_rotary_factor)
    if not len(short) == ndims // 2:
        raise ValueError(f"`rope_scaling`'s short_factor field must have length {ndims // 2}, got {len(short)}")
    if not (isinstance(long_, list) and all(isinstance(x, (int, float)) for x in long_)):
        raise ValueError(f"`rope_scaling`'s long_factor field must be a list of numbers, got {long_}")
    if not len(long_) == ndims // 2:
        raise ValueError(f"`rope_scaling`'s long_factor field must have length {ndims // 2}, got {len(long_)}")


def _rope_parameters_type_factor(f: Frame, a: dict) -> None:
    """vLLM's NemotronConfig (0.21.0+): ``rope_parameters`` of type default/linear/dynamic, a factor > 1 unless
    default."""
    params = f.obj.rope_parameters
    if params is None:
        return
    rope_type = params.get("rope_type", None)
    factor = params.get("factor", None)
    if rope_type not in {"default", "linear", "dynamic"}:
        raise ValueError(f"`rope_type` must be one of ['default', 'linear', 'dynamic'], got {rope_type}")
    if rope_type != "default":
        if factor is None:
            raise ValueError("If `rope_type` is not 'default', `rope_parameters` must include a `factor` field. "
                             "Got `None`.")
        if not isinstance(factor, float) or factor <= 1.0:
            raise ValueError(f"`rope_parameters`'s factor field must be a float > 1, got {factor}")


# -- classes whose behaviour fits no vocabulary step: written here ---------------------------------

def _eagle_config(f: Frame, a: dict) -> None:
    """vLLM's EAGLEConfig: the draft wraps its target's config (``model``), takes its architectures renamed for
    the method (Eagle…, Eagle3…, DFlash…) and copies the target's attributes onto itself."""
    obj, lib = f.obj, f.lib
    model = f.get("model")
    kwargs = f.kwargs()
    if isinstance(model, dict):
        archs = model.get("architectures", [])
        targets = a.get("deepseek_targets")
        if targets and any(target in archs for target in targets):
            model_config = lib.build(lib.class_facts("vllm:DeepseekV2Config"), dict(model))
        else:
            model_config = lib.for_model(dict(model))
    else:
        model_config = model
    for key, value in kwargs.items():
        if key != "architectures" and key != "model_type" and hasattr(model_config, key):
            setattr(model_config, key, value)
    obj.model = model_config
    truncated = f.get("truncated_vocab_size")
    if obj.model is None:
        obj.truncated_vocab_size = None
    else:
        obj.truncated_vocab_size = obj.model.vocab_size if truncated is None else truncated
    method = f.get("method")
    if method in a["methods"]:
        if obj.model is None:
            raise AssertionError(f"model should not be None when method is {method}")
        archs = obj.model.architectures
        if method == "eagle":
            kwargs["architectures"] = [f"Eagle{arch}" if not arch.startswith("Eagle") else arch for arch in archs]
        elif method == "eagle3":
            kwargs["architectures"] = [arch if arch.startswith("Eagle3") or arch.endswith("Eagle3")
                                       else f"Eagle3{arch}" for arch in archs]
        else:
            kept = a.get("dflash_names", ())
            kwargs["architectures"] = [arch if arch.startswith("DFlash") or arch.endswith("DFlash") or arch in kept
                                       else f"DFlash{arch}" for arch in archs]
    else:
        raise ValueError(f"Invalid method {method}. Supported methods are {a['supported']}.")
    lib.base_init(obj, dict(kwargs))
    if obj.model is not None:
        for key, value in lib.to_dict(obj.model).items():
            if key not in kwargs:
                setattr(obj, key, value)


def _layer_offset_below_period(f: Frame, a: dict) -> None:
    """Jamba: ``offset >= period`` is refused."""
    what, period, offset = (f.get(x) for x in a["args"])
    if offset >= period:
        raise ValueError(f"{what} layer offset ({offset}) must be smaller than {what} layer period ({period})")


# -- served model types of transformers 4.x -----------------------------------------------------

def _get_if_not_none(f: Frame, a: dict) -> None:
    mapping = f.get(a["m"])
    f.set(a["t"], mapping.get(f.get(a["k"])) if mapping is not None else None)


def _set_const_if_none_other(f: Frame, a: dict) -> None:
    if f.get(a["a"]) is None:
        f.set(a["t"], f.get(a["v"]))


def _const_if_contains(f: Frame, a: dict) -> None:
    if f.get(a["v"]) in f.get(a["a"]):
        f.set(a["t"], f.get(a["w"]))


def _list_default_or_replace(f: Frame, a: dict) -> None:
    """A mapping's list entry: set to a default when absent, else one name in it replaced by another
    (moved to the end) — e.g. vLLM's Olmo3Config renaming its architecture."""
    mapping, key = f.get(a["d"]), f.get(a["k"])
    if key not in mapping:
        mapping[key] = copy.deepcopy(f.get(a["v"]))
    elif f.get(a["o"]) in mapping[key]:
        mapping[key].remove(f.get(a["o"]))
        mapping[key].append(f.get(a["n"]))


def _floordiv_if_eq_const(f: Frame, a: dict) -> None:
    if f.get(a["t"]) == f.get(a["v"]):
        f.set(a["t"], f.get(a["a"]) // f.get(a["b"]))


def _raise_if_product_differs(f: Frame, a: dict) -> None:
    if f.get(a["a"]) * f.get(a["b"]) != f.get(a["c"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _rope_validation_if_eq(f: Frame, a: dict) -> None:
    if f.get(a["a"]) == f.get(a["v"]):
        f.lib.rope_validation(f.obj, None)


def _pair_unless_sequence(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    f.set(a["t"], value if isinstance(value, (list, tuple)) else (value, value))


def _to_list(f: Frame, a: dict) -> None:
    f.set(a["t"], list(f.get(a["a"])))


def _dict_of_locals_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], {key: f.get(var) for key, var in a["items"]})


def _dict_of_given_locals_if_none(f: Frame, a: dict) -> None:
    """As ``dict_of_locals_if_none``, leaving out the names that are None."""
    if f.get(a["t"]) is None:
        values = ((key, f.get(var)) for key, var in a["items"])
        f.set(a["t"], {key: value for key, value in values if value is not None})


def _layer_types_by_remainder_if_none(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        every, on_remainder, otherwise = f.get(a["n"]), f.get(a["a"]), f.get(a["b"])
        obj.layer_types = [on_remainder if bool(i % every) else otherwise for i in _layer_range(obj.num_hidden_layers)]


def _dict_items_update_if_given(f: Frame, a: dict) -> None:
    """When ``r`` is not None, the items ``a`` and ``b`` of ``d`` each updated with it (as ``dict.update``)."""
    update = f.get(a["r"])
    if update is not None:
        target = f.get(a["d"])
        target[f.get(a["a"])].update(update)
        target[f.get(a["b"])].update(update)


def _exaone4_layer_types(f: Frame, a: dict) -> None:
    """Exaone4: sliding attention except every ``sliding_window_pattern``-th layer."""
    obj = f.obj
    if obj.layer_types is None:
        every = f.get("sliding_window_pattern")
        n = obj.num_hidden_layers
        obj.layer_types = ["sliding_attention" if (i + 1) % every != 0 and i < n else "full_attention"
                           for i in _layer_range(n)]


def _layer_types_alternating(f: Frame, a: dict, hit: str, miss: str, hit_when_remainder: bool,
                             local: bool = False) -> None:
    obj = f.obj
    source = f.get("layer_types") if local else obj.layer_types
    if source is not None:
        if local:
            obj.layer_types = source
        return
    every = f.get(a["n"])
    if hit_when_remainder:
        obj.layer_types = [hit if bool((i + 1) % every) else miss for i in _layer_range(obj.num_hidden_layers)]
    else:
        obj.layer_types = [miss if (i + 1) % every != 0 else hit for i in _layer_range(obj.num_hidden_layers)]


def _lfm2_layer_types(f: Frame, a: dict) -> None:
    """LFM2: full attention at ``full_attn_idxs`` (default: every layer), short convolutions elsewhere."""
    obj = f.obj
    if obj.layer_types is None:
        n = f.get("num_hidden_layers")
        idxs = f.get("full_attn_idxs")
        idxs = idxs if idxs is not None else list(_layer_range(n))
        f.set("full_attn_idxs", idxs)
        obj.layer_types = ["full_attention" if i in idxs else "conv" for i in _layer_range(n)]


def _smollm3_no_rope_layers(f: Frame, a: dict) -> None:
    given = f.get("no_rope_layers")
    if given is None:
        every = f.get("no_rope_layer_interval")
        f.obj.no_rope_layers = [int((i + 1) % every != 0) for i in _layer_range(f.get("num_hidden_layers"))]
    else:
        f.obj.no_rope_layers = given


def _smollm3_layer_types(f: Frame, a: dict) -> None:
    """SmolLM3: sliding attention on the layers without RoPE when a sliding window is used."""
    if f.get("layer_types") is None:
        kinds = []
        sliding = f.get("use_sliding_window") and f.get("sliding_window") is not None
        for i in _layer_range(f.get("num_hidden_layers")):
            has_rope = f.obj.no_rope_layers[i]
            kinds.append("sliding_attention" if sliding and not has_rope else "full_attention")
        f.set("layer_types", kinds)


# Gemma 3n: transformers 4 checks the __init__ parameters, transformers 5 (on_self) the object's fields

def _gemma3n_intermediate_sizes(f: Frame, a: dict) -> None:
    from collections.abc import Sequence
    at = "self." if a.get("on_self") else ""
    size, n = f.get(at + "intermediate_size"), f.get(at + "num_hidden_layers")
    if isinstance(size, Sequence):
        length = len(size)
        f.set("intsize_len", length)
        if length != n:
            raise ValueError(format_message(f, a["msg"]["template"]))
    else:
        f.set(at + "intermediate_size", [size] * bounded_count(n))


def _gemma3n_sparsity_default(f: Frame, a: dict) -> None:
    at = "self." if a.get("on_self") else ""
    if f.get(at + "activation_sparsity_pattern") is None:
        n = f.get(at + "num_hidden_layers")
        sparse = 10 if n > 10 else 0
        f.set("num_sparse_layers", sparse)
        f.set(at + "activation_sparsity_pattern", [0.95] * sparse + [0.0] * bounded_count(n - sparse))


def _gemma3n_sparsity_check(f: Frame, a: dict) -> None:
    at = "self." if a.get("on_self") else ""
    length = len(f.get(at + "activation_sparsity_pattern"))
    f.set("len_asp", length)
    if length != f.get(at + "num_hidden_layers"):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _mamba2_head_check(f: Frame, a: dict) -> None:
    # transformers 4 checks the __init__ parameters, transformers 5 (on_self) the object's attributes
    at = "self." if a.get("on_self") else ""
    inner = f.get(at + "hidden_size") * f.get(at + "expand")
    heads = f.get(at + "num_heads") * f.get(at + "head_dim")
    if inner != heads:
        raise ValueError(f"Inconsistent configuration: hidden_size * expand ({inner}) must equal num_heads * "
                         f"head_dim ({heads}).")


def _granite_layer_types_check(f: Frame, a: dict) -> None:
    kinds = f.get("layer_types")
    if kinds is not None and any(kind not in ["mamba", "attention"] for kind in kinds):
        raise ValueError("layer_types must be a list strings in  [`mamba` `attention`]")


def _int_keys_and_values(f: Frame, a: dict) -> None:
    f.set(a["t"], {int(k): int(v) for k, v in f.get(a["a"]).items()})


def _max_of_values(f: Frame, a: dict) -> None:
    f.set(a["t"], max(f.get(a["a"]).values()))


def _bart_forced_bos(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.forced_bos_token_id is None and f.kwargs().get("force_bos_token_to_be_generated", False):
        obj.forced_bos_token_id = obj.bos_token_id


def _set_nested_attr(f: Frame, a: dict) -> None:
    """``o.name = s.attr``; ``s`` may be ``self`` itself (``self.ffn_config.hidden_size = self.d_model``)."""
    source = f.obj if a["s"] == "self" else f.get(a["s"])
    setattr(f.get(a["o"]), a["name"], getattr(source, a["attr"]))


def _causal_lm_type_check(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["s"]).model_type in set(f.lib.tables.get("causal_lm_model_types", ())))


def _paligemma_image_tokens(f: Frame, a: dict) -> None:
    vision = f.obj.vision_config
    f.obj.text_config.num_image_tokens = (vision.image_size // vision.patch_size) ** 2


def _opaque(f: Frame, a: dict) -> None:
    """A statement kvguard does not model: the config is declined, unless the statement is ``if x is None: …``
    and ``x`` holds a value, or ``if (x := kwargs.pop(key, None)) is not None: …`` and the key holds none (it
    then does nothing, the pop aside)."""
    guard = a.get("only_when_none")
    if guard is not None and f.get(guard) is not None:
        return
    popped = a.get("only_when_popped")
    # ``if (x := kwargs.pop(key, None)) is not None: …``: the key is gone from the keyword arguments whatever it
    # held (it is never stored as an attribute); only a value reaches the body
    if popped is not None and f.kwargs().pop(popped, None) is None:
        return
    raise Undecidable(f"{f.cls.name}.{f.method} does something kvguard does not model "
                      f"(reads {', '.join(a.get('reads', [])) or 'nothing'})")


# -- transformers 5 ------------------------------------------------------------------------------

class Returned(Exception):
    """A method's ``return`` step (the method runner catches it)."""

    def __init__(self, value: Any):
        super().__init__()
        self.value = value


def _return_value(f: Frame, a: dict) -> None:
    raise Returned(f.get(a["a"] if "a" in a else a["v"]))


def _args(f: Frame, a: dict) -> tuple:
    return tuple(f.get(x) for x in a.get("args", []))


def _call_method(f: Frame, a: dict) -> None:
    """``self.<m>(args)``: the method as the object's class resolves it."""
    f.lib.call(f.obj, a["m"], *_args(f, a))


def _super_method(f: Frame, a: dict) -> None:
    f.lib.super_call(f, a["m"], (), {})


def _return_super_method_kwargs(f: Frame, a: dict) -> None:
    kwargs = f.get(a["k"])
    if not isinstance(kwargs, dict):
        raise Undecidable(f"{f.cls.name}.{f.method}: **{a['k']} is not modelled")
    raise Returned(f.lib.super_call(f, a["m"], (), dict(kwargs)))


def _set_super_method(f: Frame, a: dict) -> None:
    f.set(a["t"], f.lib.super_call(f, a["m"], (), {}))


def _raise_if_not_multiple(f: Frame, a: dict) -> None:
    if f.get(a["a"]) % f.get(a["b"]) != 0:
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_ge(f: Frame, a: dict) -> None:
    if f.get(a["a"]) >= f.get(a["b"]):
        raise ValueError(format_message(f, a["msg"]["template"]))



def _kwargs_pop_or(f: Frame, a: dict) -> None:
    f.set(a["t"], f.kwargs().pop(f.get(a["k"]), f.get(a["v"])) or f.get(a["b"]))


def _int_of_attr_if_none_else_int(f: Frame, a: dict) -> None:
    given = f.get(a["h"])
    f.set(a["t"], int(getattr(f.get(a["s"]), a["a"])) if given is None else int(given))


def _raise_if_not_none_and_gt_const(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None and value > f.get(a["v"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_sub_items_outside_range(f: Frame, a: dict) -> None:
    """Each item of a sub-config's list ``l`` (when not None), named ``i``, must lie in [``lo``, the sub-config's
    ``n``)."""
    items = getattr(f.get(a["o"]), a["l"])
    if items is None:
        return
    for item in items:
        f.set(a["i"], item)
        if item < f.get(a["lo"]) or item >= getattr(f.get(a["o"]), a["n"]):
            raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_sub_count_product_differs(f: Frame, a: dict) -> None:
    """When a sub-config's list ``l`` is not None: ``c`` = its length + ``k``, and ``p``'s ``e`` must equal the
    sub-config's ``h`` times ``c``."""
    items = getattr(f.get(a["o"]), a["l"])
    if items is None:
        return
    f.set(a["c"], len(items) + f.get(a["k"]))
    if getattr(f.get(a["p"]), a["e"]) != getattr(f.get(a["o"]), a["h"]) * f.get(a["c"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_unless_len_and_items_in(f: Frame, a: dict) -> None:
    """``l`` must have ``n`` items, each one of ``allowed`` (the length first, as Python's ``or`` does)."""
    items = f.get(a["l"])
    allowed = f.get(a["allowed"])
    if len(items) != f.get(a["n"]) or any(item not in allowed for item in items):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _kwargs_single_value_if_keys_within(f: Frame, a: dict) -> None:
    """When the keys of ``r`` are among ``kinds``: its values that are not None, as the list ``l``, must be
    exactly one, which becomes the keyword argument ``k``."""
    value = f.get(a["r"])
    if set(value) <= f.get(a["kinds"]):
        found = [item for item in value.values() if item is not None]
        f.set(a["l"], found)
        if len(found) != 1:
            raise ValueError(format_message(f, a["msg"]["template"]))
        f.kwargs()[f.get(a["k"])] = found[0]


def _kwargs_update_from(f: Frame, a: dict) -> None:
    """``kwargs.update(key=name, ...)``."""
    kw = f.kwargs()
    for key, var in a["pairs"]:
        kw[key] = f.get(var)


def _const_truediv_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["n"]) / f.get(a["a"]))


def _product_with_increment(f: Frame, a: dict) -> None:
    """``t = a * b * (c + k)``, evaluated left to right as Python does."""
    f.set(a["t"], f.get(a["a"]) * f.get(a["b"]) * (f.get(a["c"]) + f.get(a["k"])))


def _steps_if_none(f: Frame, a: dict) -> None:
    """Steps that run only when a value is None (``if x is None: ...``)."""
    if f.get(a["v"]) is None:
        _run_nested(f, a["steps"])


def _run_nested(f: Frame, steps: list) -> None:
    for name, args in steps:
        fn = STEPS.get(name)
        if fn is None:
            raise Undecidable(f"{f.cls.name}.{f.method}: step {name!r} is not in kvguard's vocabulary")
        fn(f, args)


def _steps_if_truthy(f: Frame, a: dict) -> None:
    """Steps that run only when a value is truthy (``if x: ...``)."""
    from .objects import ConfigObject
    guard = f.get(a["c"])
    if isinstance(guard, ConfigObject):
        # a config object's truth is whatever its class's __len__ / __bool__ say: not measured
        raise Undecidable(f"{f.cls.name}.{f.method}: the truth of a config object is not modelled")
    if guard:
        _run_nested(f, a["steps"])


def _raise_if_lt_const(f: Frame, a: dict) -> None:
    if f.get(a["a"]) < f.get(a["v"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_not_dict(f: Frame, a: dict) -> None:
    if not isinstance(f.get(a["a"]), dict):
        raise ValueError(format_message(f, a["msg"]["template"]))


#: the builtin types ``raise_if_not_instance`` names
_BUILTIN_TYPES = {"list": list, "tuple": tuple, "dict": dict, "str": str, "int": int, "float": float, "bool": bool}


def _raise_if_not_instance(f: Frame, a: dict) -> None:
    """``if not isinstance(a, <types>): raise TypeError(msg)``."""
    types = tuple(_BUILTIN_TYPES[t] for t in a["types"])
    if not isinstance(f.get(a["a"]), types):
        raise TypeError(format_message(f, a["msg"]["template"]))


def _gated_act_split(f: Frame, a: dict) -> None:
    """T5's activation spec ``"gated-<act>"`` / ``"<act>"``: ``s`` = its parts split at "-", ``d`` = the last part,
    ``g`` = whether the first is "gated"; any other shape raises ValueError (``str.split`` itself raises on a
    value that is not a string, as Python does)."""
    parts = f.get(a["a"]).split("-")
    f.set(a["s"], parts)
    f.set(a["d"], parts[-1])
    f.set(a["g"], parts[0] == "gated")
    if len(parts) > 1 and parts[0] != "gated" or len(parts) > 2:
        raise ValueError(format_message(f, a["msg"]["template"]))


def _remap_legacy(f: Frame, layer_types: Any) -> list:
    """``remap_legacy_layer_types(layer_types)``: legacy layer-type names renamed (the line's table)."""
    table = f.lib.base["legacy_layer_type_remap"]
    return [table.get(t, t) for t in layer_types]


def _layer_types_every(f: Frame, a: dict) -> None:
    """``layer_types`` defaults to ``miss`` every ``period``-th layer and ``hit`` elsewhere, the period from the
    keyword arguments (``kwargs.pop``) or a constant; with ``else_remap`` legacy names are renamed otherwise."""
    obj = f.obj
    if obj.layer_types is None:
        period = f.kwargs().pop(f.get(a["k"]), f.get(a["default"])) if "k" in a else f.get(a["n"])
        f.set(a["p"], period)
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if bool((i + 1) % period) else miss for i in _layer_range(obj.num_hidden_layers)]
    elif a.get("else_remap"):
        obj.layer_types = _remap_legacy(f, obj.layer_types)


def _layer_types_first_and_every(f: Frame, a: dict) -> None:
    """``layer_types`` defaults to ``hit`` on the first layer and on every ``n``-th one, ``miss`` elsewhere
    (transformers 5's MiMoV2FlashConfig: full attention there, sliding attention in between)."""
    obj = f.obj
    if obj.layer_types is None:
        period = f.get(a["n"])
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if i == 0 or (i + 1) % period == 0 else miss
                           for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_every_within_window(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        every, hit, miss = f.get(a["n"]), f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if bool((i + 1) % every) and i < f.get(a["w"]) and f.get(a["u"]) else miss
                           for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_chunked_if_size(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types is None:
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if no_rope and f.get(a["c"]) is not None else miss for no_rope in f.get(a["s"])]


def _repeat(value: list, n: Any) -> list:
    return value * bounded_count(n)


def _per_layer_const_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], _repeat([f.get(a["v"])], f.obj.num_hidden_layers))


def _first_then_rest_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["first"]) + _repeat(f.get(a["rest"]), f.obj.num_hidden_layers - 1))


def _first_k_then_rest_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        layers = f.obj.num_hidden_layers
        first = min(f.get(a["k"]), layers)
        f.set(a["n"], first)
        f.set(a["t"], _repeat(f.get(a["first"]), first) + _repeat(f.get(a["rest"]), f.obj.num_hidden_layers - first))


def _const_if_none_else_remap(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["v"]))
    else:
        f.set(a["t"], _remap_legacy(f, f.get(a["t"])))


def _const_mul_if_none_else_remap(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["k"]) * f.get(a["a"]))
    else:
        f.set(a["t"], _remap_legacy(f, f.get(a["t"])))


def _last_layer_type_forced(f: Frame, a: dict) -> None:
    obj = f.obj
    if obj.layer_types:
        last = obj.layer_types[-1]
        f.set(a["l"], last)
        if last != f.get(a["v"]):
            obj.layer_types[-1] = f.get(a["v"])


def _set_attr_on(f: Frame, a: dict) -> None:
    setattr(f.get(a["o"]), a["attr"], f.get(a["v"]))


def _copy_attr_across_if_differs(f: Frame, a: dict) -> None:
    # vLLM's KimiK3Config: the vision projector's text_hidden_size follows the text model's hidden_size; the
    # comparison reads both attributes first (an object without one raises AttributeError there)
    target, source = f.get(a["o"]), f.get(a["s"])
    if getattr(target, a["x"]) != getattr(source, a["y"]):
        setattr(target, a["x"], getattr(source, a["y"]))


def _mul_const_if_none_set(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["b"]) * f.get(a["k"]))


def _set_or_const_mul(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) or f.get(a["k"]) * f.get(a["b"]))


def _set_attr_of_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], getattr(f.get(a["s"]), a["attr"]))


def _list_if_tuple(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if isinstance(value, tuple):
        f.set(a["a"], list(value))


def _set_from_kwarg_if_not_none(f: Frame, a: dict) -> None:
    value = f.kwargs().get(f.get(a["k"]))
    f.set(a["l"], value)
    if value is not None:
        f.set(a["t"], value)


def _set_kwarg_plus_if_not_none(f: Frame, a: dict) -> None:
    # MiMoV2FlashConfig (transformers 5.20+): the window is the checkpoint's sliding_window_size keyword plus
    # the query token; the keyword is read, not popped, so it also stays an attribute
    value = f.kwargs().get(f.get(a["k"]))
    if value is not None:
        f.set(a["t"], value + f.get(a["d"]))


def _kwarg_pop_if_present_else(f: Frame, a: dict) -> None:
    key = f.get(a["k"])
    kw = f.kwargs()
    f.set(a["t"], kw.pop(key) if key in kw else f.get(a["a"]))


def _const_if_false_and_attr(f: Frame, a: dict) -> None:
    if not f.get(a["a"]) and getattr(f.get(a["s"]), f.get(a["k"]), f.get(a["d"])):
        f.set(a["a"], f.get(a["v"]))


def _bidirectional_window(f: Frame, a: dict) -> None:
    if f.get(a["c"]) == f.get(a["v"]):
        f.set(a["a"], f.get(a["w"]))
        f.set(a["s"], f.get(a["s"]) // f.get(a["d"]) + f.get(a["p"]))


def _per_layer_overrides_by_type(f: Frame, a: dict) -> None:
    """Gemma 4: unless ``per_layer_config`` is given, the layers of one type get the same overrides (an
    attribute from a local name; a second one when the config's flag allows and the value is not None)."""
    kw = f.kwargs()
    key = f.get(a["k"])
    if key in kw:
        return
    overrides = {f.get(a["hk"]): f.get(a["g"])}
    value = f.get(a["ng"]) if getattr(f.obj, f.get(a["eq"]), f.get(a["eqd"])) else None
    f.set(a["n"], value)
    if value is not None:
        overrides[f.get(a["nk"])] = value
    hit = f.get(a["hit"])
    kw[key] = {layer_idx: overrides for layer_idx, layer_type in enumerate(f.obj.layer_types) if layer_type == hit}


def _dict_model_type_rename(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if not isinstance(value, dict):
        return
    current = value["model_type"] if a.get("subscript") else value.get("model_type", f.get(a["d"]) if "d" in a
                                                                        else None)
    if current == f.get(a["old"]):
        value["model_type"] = f.get(a["new"])


def _dict_under_sub_config_defaults(f: Frame, a: dict) -> None:
    value = f.get(a["t"])
    if isinstance(value, dict):
        defaults = f.lib.sub_config_init_kwargs(f.obj.kvg_facts, f.get(a["k"]))
        f.set(a["t"], {**defaults, **value})


def _dict_item_update_if_not_none(f: Frame, a: dict) -> None:
    source = f.get(a["s"])
    if source is not None:
        f.get(a["d"])[f.get(a["k"])].update(source)


def _dict_item_const_if_none(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    if target.get(f.get(a["k"])) is None:
        f.get(a["d"])[f.get(a["k"])] = f.get(a["v"])


def _dict_item_setdefault_kwarg_pop_item(f: Frame, a: dict) -> None:
    """``d[k].setdefault(key, kwargs.pop(kw, m[mk]))`` (Olmo 3: ``m`` itself, no ``mk``)."""
    target = f.get(a["d"])[f.get(a["k"])]
    default = f.get(a["m"])[f.get(a["mk"])] if "mk" in a else f.get(a["m"])
    target.setdefault(f.get(a["key"]), f.kwargs().pop(f.get(a["kw"]), default))


def _dict_setdefault_kwarg_pop(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    target.setdefault(f.get(a["k"]), f.kwargs().pop(f.get(a["kw"]), f.get(a["v"])))


def _dict_setdefault_kwarg_get(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    target.setdefault(f.get(a["k"]), f.kwargs().get(f.get(a["kw"]), f.get(a["v"])))


def _dict_setdefault_var(f: Frame, a: dict) -> None:
    f.get(a["d"]).setdefault(f.get(a["k"]), f.get(a["v"]))


def _dict_setdefault_values_list(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    target.setdefault(f.get(a["k"]), list(f.get(a["m"]).values()))


def _dict_pop_key(f: Frame, a: dict) -> None:
    f.get(a["d"]).pop(f.get(a["k"]), None)


def _dict_copy_or_empty(f: Frame, a: dict) -> None:
    f.set(a["t"], dict(f.get(a["t"]) or {}))


def _set_dict_pop(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["d"]).pop(f.get(a["k"]), f.get(a["v"])))


def _set_dict_get_or_none(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["d"]).get(f.get(a["k"])))


def _set_attrs_from_dict_except_properties(f: Frame, a: dict) -> None:
    """Every item of a dict set on the object, except the key ``skip`` and names that are properties of the
    class (which the loop leaves alone)."""
    is_property = getattr(f.lib, "is_class_property", None)
    if is_property is None:
        raise Undecidable(f"{f.cls.name}.{f.method}: which names are properties is modelled for transformers 5 only")
    skip = f.get(a["skip"])
    for key, value in f.get(a["d"]).items():
        f.set("key", key)
        f.set("value", value)
        if key == skip or is_property(f.obj, key):
            continue
        setattr(f.obj, key, value)


def _set_getattr_or_const(f: Frame, a: dict) -> None:
    f.set(a["t"], getattr(f.obj, f.get(a["k"]), f.get(a["d"])) or f.get(a["v"]))


def _set_getattr(f: Frame, a: dict) -> None:
    f.set(a["t"], getattr(f.obj, f.get(a["k"]), f.get(a["d"])))


def _fold_kwargs_into_sub_config_if_none(f: Frame, a: dict) -> None:
    """A flat checkpoint (no sub-config given): the keyword arguments the sub-config class names (its measured
    dataclass names and aliases, and ``extra``) become the sub-config's dict, taken out of ``kwargs`` in the
    order they came."""
    if f.get(a["t"]) is not None:
        return
    names = set(f.get(a["names"])) | set(f.get(a["extra"]))
    kw = f.kwargs()
    picked = [key for key in kw if key in names]
    f.set(a["t"], {key: kw.pop(key) for key in picked})


def _sub_config_or_default_with_key(f: Frame, a: dict) -> None:
    """None: the class built with one keyword; a dict: built from a copy of it with ``k`` defaulted (the given
    dict is left as it was); anything else is kept."""
    value = f.get(a["t"])
    if value is None:
        f.set(a["t"], f.lib.build_class_ref(f, _resolve_ref(f, a["c"]), {}, {a["kw"]: f.get(a["d"])}))
    elif isinstance(value, dict):
        source = dict(value)
        source.setdefault(f.get(a["k"]), f.get(a["v"]))
        f.set(a["t"], f.lib.build_class_ref(f, _resolve_ref(f, a["c"]), source))


def _fold_kwargs_for_sub_config(f: Frame, a: dict) -> None:
    """The same picking done whatever the sub-config holds (transformers 5.17 / 5.19): the class is kept in a local
    (a class reference the sub-config step builds with), the names in another, the picked keywords in ``t``."""
    f.set(a["c"], {CLASS_REF: {"sub": f.get(a["key"])}})
    names = set(f.get(a["names"])) | set(f.get(a["extra"]))
    f.set(a["k"], names)
    kw = f.kwargs()
    picked = [key for key in kw if key in names]
    f.set(a["t"], {key: kw.pop(key) for key in picked})


def _kwargs_setdefault_attr_of(f: Frame, a: dict) -> None:
    # the attribute is read before setdefault looks at the key (an argument is evaluated first)
    value = getattr(f.get(a["o"]), a["attr"])
    f.kwargs().setdefault(f.get(a["k"]), value)


def _set_item_if_no_attr_and_in(f: Frame, a: dict) -> None:
    source = f.get(a["d"])
    if not hasattr(f.obj, f.get(a["a"])) and f.get(a["k"]) in source:
        f.set(a["t"], source[f.get(a["k"])])


def _attr_of_const_if_none(f: Frame, a: dict) -> None:
    owner = f.get(a["o"])
    if getattr(owner, a["x"]) is None:
        setattr(owner, a["x"], f.get(a["v"]))


def _attr_of_getattr_default(f: Frame, a: dict) -> None:
    """``o.x = getattr(o, k, d)``; a value that takes no attributes (a JSON scalar or list kept as given) raises
    the AttributeError CPython 3.11 raises, the oracles' Python."""
    owner = f.get(a["o"])
    value = getattr(owner, f.get(a["k"]), f.get(a["d"]))
    if owner is None or isinstance(owner, (bool, int, float, str, list, dict)):
        raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{a['x']}'")
    setattr(owner, a["x"], value)


def _wrap_layer_indices_and_trim_depth_if_given(f: Frame, a: dict) -> None:
    """When ``g`` is not None: ``o``'s layer indices (counted from the end when negative) taken modulo ``d``'s depth,
    and ``d``'s depth cut to one past the deepest of them."""
    if f.get(a["g"]) is None:
        return
    depth_owner, ids_owner = f.get(a["d"]), f.get(a["o"])
    depth = getattr(depth_owner, a["depth"])
    f.set(a["n"], depth)
    setattr(ids_owner, a["ids"], [layer % depth for layer in getattr(ids_owner, a["ids"])])
    setattr(depth_owner, a["depth"], max(getattr(ids_owner, a["ids"])) + 1)


def _every_layer_index_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], list(_layer_range(f.get(a["n"]))))


def _patch_grid_cells_if_none(f: Frame, a: dict) -> None:
    """The number of patches of an image of size ``s`` (height, width) cut into ``p``-sized patches."""
    if f.get(a["t"]) is None:
        size, patch = f.get(a["s"]), f.get(a["p"])
        f.set(a["t"], (size[0] // patch) * (size[1] // patch))


def _raise_unless_layer_indices_in_depth(f: Frame, a: dict) -> None:
    """Every one of ``o``'s layer indices must index ``n`` layers (from either end)."""
    depth = f.get(a["n"])
    if not all(-depth <= layer < depth for layer in getattr(f.get(a["o"]), a["ids"])):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _pow_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["a"]) ** f.get(a["e"]))


def _pow_if_none_from(f: Frame, a: dict) -> None:
    given = f.get(a["s"])
    # the power only when nothing is given: a head size that cannot be raised raises only then
    f.set(a["t"], given if given is not None else f.get(a["a"]) ** f.get(a["e"]))


def _getattr_of_if_kwarg_none(f: Frame, a: dict) -> None:
    if f.kwargs().get(f.get(a["k"])) is None:
        f.set(a["t"], getattr(f.get(a["o"]), f.get(a["a"]), f.get(a["d"])))


def _rope_parameters_from_scaling_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is not None:
        return
    scaling = f.get(a["s"])
    if scaling is not None:
        # dict() of the given value itself: a string or number raises what the class's copy raises
        params = dict(scaling)
        old = f.get(a["old"])
        if old in params:
            # the legacy key leaves the copy even when the new one is already there
            moved = params.pop(old)
            params.setdefault(f.get(a["new"]), moved)
    else:
        params = f.get(a["default"])  # a fresh dict on every read
    key = f.get(a["key"])
    if key not in params:
        params[key] = f.get(a["theta"])
    f.set(a["t"], params)


def _dict_setdefault_div(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    target.setdefault(f.get(a["k"]), f.get(a["a"]) / f.get(a["b"]))


def _set_dict_get(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["d"]).get(f.get(a["k"]), f.get(a["v"])))


def _dict_item_const_if_in(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None and value in f.get(a["vals"]):
        f.get(a["d"])[f.get(a["k"])] = f.get(a["v"])


def _dict_item_const_if_get_eq(f: Frame, a: dict) -> None:
    target = f.get(a["d"])
    if target.get(f.get(a["k"]), target.get(f.get(a["k2"]))) == f.get(a["v"]):
        f.get(a["d"])[f.get(a["k"])] = f.get(a["w"])


def _kwargs_get_or_attr(f: Frame, a: dict) -> None:
    default = getattr(f.obj, f.get(a["a"]), f.get(a["d"]))
    f.set(a["t"], f.kwargs().get(f.get(a["k"]), default))


def _kwargs_setdefault_div_if_not_none(f: Frame, a: dict) -> None:
    value = f.get(a["r"])
    if value is not None:
        f.kwargs().setdefault(f.get(a["k"]), value / f.get(a["d"]))


def _item_scaled_if_attr(f: Frame, a: dict) -> None:
    test = getattr(f.obj, f.get(a["a"]), f.get(a["d"]))
    if (test == f.get(a["v"])) if "v" in a else test:
        f.get(a["o"])[f.get(a["k"])] = (f.get(a["x"]) - f.get(a["m"])) * f.get(a["f"])


def _init_param_names(f: Frame, cls: Any) -> list:
    """``inspect.signature(cls.__init__).parameters.keys()``: ``self`` and the class's keyword parameters."""
    record = cls.record
    if record.get("init_kind") == "custom":
        return ["self"] + [name for name, _ in record.get("params", [])] + (["kwargs"] if record.get("kwargs") else [])
    return ["self"] + [name for name, info in f.lib.fields_of(cls) if info.get("init", True)]


def _flat_sub_config_kwargs(f: Frame, a: dict) -> None:
    """A sub-config left out of a flat Hub config: the text model's keyword arguments are picked out of the
    top-level ones (those the sub-config class takes, and ``extra``) and its dtype copied."""
    if f.get(a["t"]) is not None:
        return
    spec = f.lib.sub_config_spec(f.obj.kvg_facts, f.get(a["key"]))
    names = _init_param_names(f, f.lib.class_facts(spec["class"])) + list(f.get(a["extra"]))
    kw = f.kwargs()
    f.set(a["t"], {key: kw.pop(key) for key in names if key in kw})
    value = f.get(a["t"])
    value["dtype"] = kw.get("torch_dtype", kw.get("dtype"))


def _sub_config_init_params(f: Frame, a: dict) -> None:
    name = f.lib.sub_configs(f.obj.kvg_facts).get(f.get(a["key"]))
    if not isinstance(name, str):
        raise Undecidable(f"{f.cls.name}: sub-config {a['key']!r} is not modelled")
    f.set(a["t"], _init_param_names(f, f.lib.class_facts(name)))


def _list_plus_const(f: Frame, a: dict) -> None:
    f.set(a["t"], list(f.get(a["a"])) + f.get(a["b"]))


def _kwargs_pop_keys(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    f.set(a["t"], {key: kw.pop(key) for key in f.get(a["k"]) if key in kw})


def _phi3_rope_validation_5(f: Frame, a: dict) -> None:
    """Phi-3 ``validate_rope`` (transformers 5): PreTrainedConfig's checks, then short/long factor lists of
    half the rotary dimension."""
    f.lib.super_call(f, "validate_rope", (), {})
    obj = f.obj
    params = obj.rope_parameters
    if not isinstance(params, dict):
        raise ValueError(f"`rope_parameters` must be a dictionary but got {params}")
    rope_type = obj.rope_parameters.get("rope_type", None)
    short = obj.rope_parameters.get("short_factor", None)
    long_ = obj.rope_parameters.get("long_factor", None)
    ndims = int(obj.hidden_size // obj.num_attention_heads * obj.rope_parameters["partial_rotary_factor"])
    if rope_type not in ["default", "longrope"]:
        raise ValueError(f"`rope_parameters`'s type field must be one of ['longrope'], got {rope_type}")
    for key, value in (("short_factor", short), ("long_factor", long_)):
        if value is not None:
            if not (isinstance(value, list) and all(isinstance(x, (int, float)) for x in value)):
                raise ValueError(f"`rope_parameters`'s {key} field must be a list of numbers, got {value}")
            if not len(value) == ndims // 2:
                raise ValueError(f"`rope_parameters`'s {key} field must have length {ndims // 2}, got {len(value)}")


def _phimoe_rope_validation_5(f: Frame, a: dict) -> None:
    """PhiMoE ``validate_rope`` (transformers 5): PreTrainedConfig's checks, then numeric short/long mscales for
    scaled RoPE (and ``original_max_position_embeddings`` taken from the RoPE settings)."""
    f.lib.super_call(f, "validate_rope", (), {})
    obj = f.obj
    if obj.rope_parameters["rope_type"] != "default":
        if "original_max_position_embeddings" in obj.rope_parameters:
            obj.original_max_position_embeddings = obj.rope_parameters["original_max_position_embeddings"]
        short = obj.rope_parameters.get("short_mscale", None)
        long_ = obj.rope_parameters.get("long_mscale", None)
        if not isinstance(short, (int, float)):
            raise TypeError(f"`rope_parameters`'s short_mscale field must be a number, got {short}")
        if not isinstance(long_, (int, float)):
            raise TypeError(f"`rope_parameters`'s long_mscale field must be a number, got {long_}")


def _append_if_differs(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if value is not None and value != f.get(a["b"]):
        f.get(a["l"]).append(f.get(a["v"]))


def _kwargs_get_or_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.kwargs().get(f.get(a["k"])) or f.get(a["v"]))


def _legacy_rope_type_renamed(f: Frame, a: dict) -> None:
    """A RoPE type another format names ``legacy`` (e.g. ``deepseek_yarn``) becomes ``new``: the settings move
    from the ``rope_scaling`` keyword to ``rope_parameters`` without their ``type`` key."""
    source = f.get(a["s"])
    if f.get(a["legacy"]) in (source.get("type"), source.get("rope_type")):
        del f.kwargs()[f.get(a["k"])]
        f.set(a["t"], {k: v for k, v in source.items() if k != "type"} | {"rope_type": f.get(a["new"])})
        f.get(a["l"]).append(f.get(a["note"]))


def _mistral4_rope_defaults(f: Frame, a: dict) -> None:
    """Mistral-4's default RoPE settings: YaRN constants, the model's context length and a partial rotary factor
    of rope / (nope + rope) head dims (Ministral 3: the same without the factor)."""
    if f.get(a["t"]) is not None:
        return
    if not a.get("no_partial_factor"):
        rope, nope = f.get(a["r"]), f.get(a["n"])
    f.set(a["t"], {"type": f.get(a["type"]), "rope_theta": f.get(a["theta"]), "factor": f.get(a["factor"]),
                   "original_max_position_embeddings": f.get(a["original"]), "max_position_embeddings": f.get(a["m"]),
                   "beta_fast": f.get(a["beta_fast"]), "beta_slow": f.get(a["beta_slow"]),
                   "mscale_all_dim": f.get(a["mscale_all_dim"]), "mscale": f.get(a["mscale"]),
                   "llama_4_scaling_beta": f.get(a["llama_4_scaling_beta"])})
    if not a.get("no_partial_factor"):
        f.get(a["t"])["partial_rotary_factor"] = f.get(a["r"]) / (nope + rope)


def _layer_types_except_every_field(f: Frame, a: dict) -> None:
    """``layer_types`` defaults to ``hit`` except on every ``p``-th layer (a field: zero divides by zero)."""
    obj = f.obj
    if obj.layer_types is None:
        every, count = f.get(a["p"]), obj.num_hidden_layers
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if (i + 1) % every != 0 and i < count else miss for i in _layer_range(count)]


def _per_layer_first_k_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        first_k, first, rest = f.get(a["k"]), f.get(a["first"]), f.get(a["rest"])
        f.set(a["t"], [first if i < first_k else rest for i in _layer_range(f.obj.num_hidden_layers)])


def _layer_types_at_indices(f: Frame, a: dict) -> None:
    """``hit`` on the layers an index list names (by default every layer), ``miss`` on the others."""
    if f.get(a["t"]) is not None:
        return
    if f.get(a["i"]) is None:
        f.set(a["i"], list(_layer_range(f.get(a["n"]))))
    indices, hit, miss = f.get(a["i"]), f.get(a["hit"]), f.get(a["miss"])
    f.set(a["t"], [hit if i in indices else miss for i in _layer_range(f.get(a["n"]))])


def _flags_except_every_if_none(f: Frame, a: dict) -> None:
    """A 0/1 flag per layer: 0 on every ``p``-th layer."""
    if f.get(a["t"]) is None:
        every = f.get(a["p"])
        f.set(a["t"], [int((i + 1) % every != 0) for i in _layer_range(f.get(a["n"]))])


def _layer_types_sliding_without_rope(f: Frame, a: dict) -> None:
    """``hit`` (sliding) on the layers without RoPE when a window is in use, ``miss`` elsewhere; the list is
    built in place, reading the RoPE flags layer by layer."""
    if f.get(a["t"]) is not None:
        return
    f.set(a["t"], [])
    kinds, hit, miss = f.get(a["t"]), f.get(a["hit"]), f.get(a["miss"])
    for i in _layer_range(f.get(a["n"])):
        has_rope = f.get(a["r"])[i]
        sliding = f.get(a["u"]) and f.get(a["w"]) is not None and not has_rope
        kinds.append(hit if sliding else miss)


def _sqrt_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], math.sqrt(f.get(a["a"])))


def _layer_types_hit_every(f: Frame, a: dict) -> None:
    """``layer_types`` defaults to ``hit`` on every ``n``-th layer, ``miss`` elsewhere."""
    obj = f.obj
    if obj.layer_types is None:
        every, hit, miss = f.get(a["n"]), f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if (i + 1) % every == 0 else miss for i in _layer_range(obj.num_hidden_layers)]


def _layer_types_hit_every_from_zero(f: Frame, a: dict) -> None:
    """``layer_types`` defaults to ``hit`` on layer 0 and every ``n``-th layer after it, ``miss`` elsewhere."""
    obj = f.obj
    if obj.layer_types is None:
        if "p" in a:
            f.set(a["p"], f.get(a["n"]))
        every, hit, miss = f.get(a["n"]), f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [hit if i % every == 0 else miss for i in _layer_range(obj.num_hidden_layers)]


def _per_layer_item_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], _repeat([f.get(a["d"])[f.get(a["k"])]], f.obj.num_hidden_layers))


def _int_if_truthy_else_none(f: Frame, a: dict) -> None:
    value = f.get(a["t"])
    f.set(a["t"], int(value) if value else None)


def _layer_types_prefix_and_rest(f: Frame, a: dict) -> None:
    """The first ``k`` layers slide except every ``pp``-th, the others except every ``p``-th (counted anew)."""
    obj = f.obj
    if obj.layer_types is not None:
        return
    hit, miss, first_k = f.get(a["hit"]), f.get(a["miss"]), f.get(a["k"])
    prefix_every = f.get(a["pp"])
    prefix = [hit if (i + 1) % prefix_every != 0 else miss for i in _layer_range(first_k)]
    f.set("prefix_layers", prefix)
    every = f.get(a["p"])
    rest = [hit if (i + 1) % every != 0 else miss for i in _layer_range(obj.num_hidden_layers - first_k)]
    f.set("rest_layers", rest)
    obj.layer_types = prefix + rest


def _sorted_unique_or_empty_if_none(f: Frame, a: dict) -> None:
    value = f.get(a["t"])
    f.set(a["t"], [] if value is None else sorted(set(value)))


def _const_if_truthy_else(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) else f.get(a["b"]))


def _layer_types_every_kwarg_else_rename(f: Frame, a: dict) -> None:
    """``miss`` except on every ``p``-th layer (the period a keyword argument), or the given list with one name
    replaced when it holds it."""
    obj = f.obj
    if obj.layer_types is None:
        every = f.kwargs().pop(f.get(a["k"]), f.get(a["default"]))
        f.set(a["p"], every)
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.layer_types = [miss if (i + 1) % every else hit for i in _layer_range(obj.num_hidden_layers)]
    elif f.get(a["old"]) in obj.layer_types:
        old, new = f.get(a["old"]), f.get(a["new"])
        obj.layer_types = [new if layer == old else layer for layer in obj.layer_types]


def _mlp_layer_types_from_kwargs(f: Frame, a: dict) -> None:
    """``hit`` (sparse) from layer ``first_k`` on every ``freq``-th layer, both keyword arguments."""
    obj = f.obj
    if obj.mlp_layer_types is None:
        first_k = f.kwargs().pop(f.get(a["fk"]), f.get(a["fd"]))
        f.set(a["f"], first_k)
        every = f.kwargs().pop(f.get(a["mk"]), f.get(a["md"]))
        f.set(a["m"], every)
        hit, miss = f.get(a["hit"]), f.get(a["miss"])
        obj.mlp_layer_types = [hit if i >= first_k and i % every == 0 else miss
                               for i in _layer_range(obj.num_hidden_layers)]


def _first_one_then_rest_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        count = f.obj.num_hidden_layers
        f.set(a["t"], _repeat([f.get(a["first"])], min(1, count)) + _repeat([f.get(a["rest"])], max(count - 1, 0)))


def _first_and_every_after_if_none(f: Frame, a: dict) -> None:
    """``hit`` on layer 0 and on every ``n``-th layer counted from layer 1, ``miss`` elsewhere."""
    if f.get(a["t"]) is None:
        every, hit, miss = f.get(a["n"]), f.get(a["hit"]), f.get(a["miss"])
        f.set(a["t"], [hit if i == 0 or (i - 1) % every == 0 else miss for i in _layer_range(f.obj.num_hidden_layers)])


def _names_folded_if_given(f: Frame, a: dict) -> None:
    given = f.get(a["t"])
    if given is not None:
        olds, new = f.get(a["olds"]), f.get(a["new"])
        f.set(a["t"], [new if name in olds else name for name in given])


def _const_if_flag_and_attr_none(f: Frame, a: dict) -> None:
    if f.get(a["c"]) and getattr(f.obj, f.get(a["a"]), f.get(a["d"])) is None:
        f.set(a["t"], f.get(a["v"]))


def _raise_if_ne(f: Frame, a: dict) -> None:
    if f.get(a["a"]) != f.get(a["b"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_attr_not_none(f: Frame, a: dict) -> None:
    if getattr(f.obj, f.get(a["a"]), f.get(a["d"])) is not None:
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_attr_truthy(f: Frame, a: dict) -> None:
    if getattr(f.obj, f.get(a["a"]), f.get(a["d"])):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _raise_if_in_and_not_positive(f: Frame, a: dict) -> None:
    """A kind of layer present (``v in l``) while a size it needs is missing or not positive."""
    if f.get(a["v"]) in f.get(a["l"]):
        size = f.get(a["w"])
        if size is None or size <= f.get(a["z"]):
            raise ValueError(format_message(f, a["msg"]["template"]))


def _indexer_types_default(f: Frame, a: dict) -> None:
    """Per layer "full" (computes the indexer's top-k) or "shared": from a pattern string / list in the keyword
    arguments, else every ``freq``-th layer after ``offset``."""
    if f.get(a["t"]) is not None:
        return
    kw = f.kwargs()
    pattern = kw.get(f.get(a["pattern_key"]))
    f.set("pattern", pattern)
    if pattern is not None:
        letters = f.get(a["letters"])
        f.set(a["t"], [letters[c] for c in pattern] if isinstance(pattern, str) else list(pattern))
        return
    freq = max(kw.get(f.get(a["freq_key"]), f.get(a["freq"])), 1)
    offset = kw.get(f.get(a["offset_key"]), f.get(a["offset"]))
    hit, miss = f.get(a["hit"]), f.get(a["miss"])
    f.set(a["t"], [hit if max(i - offset + 1, 0) % freq == 0 else miss for i in _layer_range(f.obj.num_hidden_layers)])


def _layer_types_from_pattern_kwarg(f: Frame, a: dict) -> None:
    """Layer types from a pattern string keyword (the class's own method turns it into a list), else a default
    list; with ``else_remap`` legacy names in a given list are renamed."""
    kw = f.kwargs()
    key = f.get(a["k"])
    if key in kw:
        pattern = kw.pop(key)
        f.set("pattern", pattern)
        if f.get(a["t"]) is None:
            f.set(a["t"], f.lib.call(f.obj, a["m"], pattern))
    elif f.get(a["t"]) is None:
        f.set(a["t"], f.get(a["default"]))
    elif a.get("else_remap"):
        f.set(a["t"], _remap_legacy(f, f.get(a["t"])))


def _from_pattern_kwarg_if_eq(f: Frame, a: dict) -> None:
    kw = f.kwargs()
    key = f.get(a["k"])
    if key in kw:
        pattern = kw.pop(key)
        f.set("pattern", pattern)
        if f.get(a["t"]) == f.get(a["v"]):
            f.set(a["t"], f.lib.call(f.obj, a["m"], pattern))


def _return_mapped_items(f: Frame, a: dict) -> None:
    mapping = f.get(a["m"])
    raise Returned([mapping[x] for x in f.get(a["s"])])


def _return_joined_mapped(f: Frame, a: dict) -> None:
    mapping = f.get(a["m"])
    raise Returned("".join(mapping[x] for x in f.get(a["s"])))


def _raise_if_len_ne(f: Frame, a: dict) -> None:
    """``if len(l) != n: raise ValueError(...)`` (``none_ok``: unless ``l`` is None)."""
    value = f.get(a["l"])
    if a.get("none_ok") and value is None:
        return
    if len(value) != f.get(a["n"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _dict_drop_if_dict(f: Frame, a: dict) -> None:
    value = f.get(a["a"])
    if isinstance(value, dict):
        value.pop(f.get(a["k"]), None)


def _set_sub_attr_if_false(f: Frame, a: dict) -> None:
    if not f.get(a["a"]) and getattr(f.get(a["s"]), a["x"]):
        f.set(a["a"], getattr(f.get(a["s"]), a["x"]))


def _raise_if_eq_and_ne(f: Frame, a: dict) -> None:
    if f.get(a["a"]) == f.get(a["v"]) and f.get(a["b"]) != f.get(a["n"]):
        raise ValueError(format_message(f, a["msg"]["template"]))


def _set_gt_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) > f.get(a["k"]))


def _set_const_if_gt_const(f: Frame, a: dict) -> None:
    f.set(a["t"], f.get(a["a"]) if f.get(a["c"]) > f.get(a["k"]) else f.get(a["b"]))


def _first_then_rest_clamped_if_none(f: Frame, a: dict) -> None:
    """``t = first * (1 if n > 0 else 0) + rest * max(n - 1, 0)`` when ``t`` is None (n: the layers)."""
    if f.get(a["t"]) is None:
        n = f.obj.num_hidden_layers
        first = f.get(a["first"]) * (1 if n > 0 else 0)
        f.set(a["t"], first + f.get(a["rest"]) * bounded_count(max(n - 1, 0)))


def _per_layer_attr_if_none(f: Frame, a: dict) -> None:
    if f.get(a["t"]) is None:
        f.set(a["t"], [f.get(a["a"])] * f.obj.num_hidden_layers)


def _len_compare_if_not_none(f: Frame, a: dict) -> None:
    value = f.get(a["n"])
    if value is not None:
        len(f.get(a["l"])) != value  # noqa: B015 - evaluated for what it raises (the branch only logs)


def _set_repr(values: set) -> str:
    return "{" + ", ".join(repr(v) for v in values) + "}" if values else "set()"


def _nemotron_h_layer_types_validation(f: Frame, a: dict) -> None:
    """Nemotron-H ``validate_layer_type``: ``layers_block_type`` (and the MTP block types when MTP layers exist)
    are lists of the four block kinds.  Its messages print Python sets: their order follows the process's string
    hashing, so only the exception type is exact when a set has more than one element."""
    obj = f.obj
    valid = set(a["valid"])

    def invalid_error(name: str, values: Any) -> ValueError:
        invalid = set(values) - valid
        exc = ValueError(f"`{name}` contains invalid types: {_set_repr(invalid)}. Must be one of: {_set_repr(valid)}")
        exc._kvg_hash_order = True  # type: ignore[attr-defined]
        return exc

    if not isinstance(obj.layer_types, list):
        raise ValueError(f"`layers_block_type` must be a list of strings. Got type: {type(obj.layer_types)}")
    if not all(block in valid for block in obj.layer_types):
        raise invalid_error("layers_block_type", obj.layer_types)
    if obj.num_nextn_predict_layers > 0:
        if obj.mtp_layers_block_type is None:
            raise ValueError(
                "mtp_layers_block_type is required when num_nextn_predict_layers > 0. Please provide an explicit list "
                "of layer types for MTP layers. Example: mtp_layers_block_type=['attention', 'moe']")
        if not isinstance(obj.mtp_layers_block_type, list):
            raise ValueError(f"`mtp_layers_block_type` must be a list of strings. Got type: "
                             f"{type(obj.mtp_layers_block_type)}")
        if not all(block in valid for block in obj.mtp_layers_block_type):
            raise invalid_error("mtp_layers_block_type", obj.mtp_layers_block_type)


# -- a conditional raise: ``if <condition>: raise <Error>(<message>)`` ----------------------------------------
# The condition is written in a closed vocabulary of named predicates over named values (a local, ``self.x``, a
# literal, the keyword arguments, a length, a list, a prefix); each is evaluated with Python's own operations on the
# values, so a comparison of a string with a number raises the TypeError the class raises.  The same conditions guard
# a block of steps (``steps_if``).

_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b, "is": lambda a, b: a is b, "is not": lambda a, b: a is not b,
}


def _condition_value(f: Frame, operand: Any) -> Any:
    """An operand of a condition: a name or literal (as every step reads them), ``{"kwargs": true}``,
    ``{"len": x}``, ``{"list": x}``, ``{"set": x}``, ``{"keys": x}`` (``x.keys()``) or ``{"prefix": [x, n]}``
    (``x[:n]``)."""
    if isinstance(operand, dict) and len(operand) == 1:
        (tag, inner), = operand.items()
        if tag == "kwargs":
            return f.kwargs()
        if tag == "len":
            return len(_condition_value(f, inner))
        if tag == "list":
            return list(_condition_value(f, inner))
        if tag == "set":
            return set(_condition_value(f, inner))
        if tag == "keys":
            return _condition_value(f, inner).keys()
        if tag == "prefix":
            return _condition_value(f, inner[0])[:_condition_value(f, inner[1])]
    return f.get(operand)


def _holds(f: Frame, cond: list) -> bool:
    """Whether a condition of the vocabulary holds, short-circuited as Python's ``and`` / ``or``."""
    from .objects import ConfigObject
    kind = cond[0]
    if kind == "and":
        return all(_holds(f, part) for part in cond[1])
    if kind == "or":
        return any(_holds(f, part) for part in cond[1])
    if kind == "not":
        return not _holds(f, cond[1])
    if kind == "truthy":
        value = _condition_value(f, cond[1])
        if isinstance(value, ConfigObject):
            raise Undecidable(f"{f.cls.name}.{f.method}: the truth of a config object is not modelled")
        return bool(value)
    if kind == "cmp":
        op, left, right = cond[1], _condition_value(f, cond[2]), _condition_value(f, cond[3])
        if op not in ("is", "is not") and (isinstance(left, ConfigObject) or isinstance(right, ConfigObject)):
            # a config object's comparison is its class's __eq__ / __contains__: not measured
            raise Undecidable(f"{f.cls.name}.{f.method}: a comparison with a config object is not modelled")
        return bool(_COMPARISONS[op](left, right))
    if kind == "disjoint":
        # ``a.isdisjoint(b)``: ``a`` a set or a dict's keys
        return bool(_condition_value(f, cond[1]).isdisjoint(_condition_value(f, cond[2])))
    raise Undecidable(f"{f.cls.name}.{f.method}: condition {kind!r} is not in kvguard's vocabulary")


def _raise_if(f: Frame, a: dict) -> None:
    """``if <cond>: raise <exc>(<message>)`` (Step5Config's refusals of its own keys, vLLM 0.33.0)."""
    if _holds(f, a["cond"]):
        raise _RAISABLE[a["exc"]](format_message(f, a["msg"]["template"]))


def _steps_if(f: Frame, a: dict) -> None:
    """Steps that run only when a condition of the vocabulary holds (CohereCompassTextConfig's RoPE keys dropped when
    the RoPE parameters are keyed by layer type)."""
    if _holds(f, a["cond"]):
        _run_nested(f, a["steps"])


def _steps_if_not_none(f: Frame, a: dict) -> None:
    """Steps that run only when a value is not None (``if x is not None: ...``)."""
    if f.get(a["v"]) is not None:
        _run_nested(f, a["steps"])


def _prefix_if_truthy(f: Frame, a: dict) -> None:
    """``t = a[:n] if a else None`` (``list(a[:n])`` with ``as_list``)."""
    value = f.get(a["a"])
    if not value:
        f.set(a["t"], None)
        return
    head = value[:f.get(a["n"])]
    f.set(a["t"], list(head) if a.get("as_list") else head)


def _kwargs_set_attr_of_if_missing(f: Frame, a: dict) -> None:
    """``if k not in kwargs and (t := getattr(o, attr, d)) is not None: kwargs[k] = t`` (the attribute read only
    when the key is missing)."""
    kw = f.kwargs()
    key = f.get(a["k"])
    if key in kw:
        return
    value = getattr(f.get(a["o"]), f.get(a["attr"]), f.get(a["d"]))
    f.set(a["t"], value)
    if value is not None:
        kw[key] = value


def _kwargs_set_if_none(f: Frame, a: dict) -> None:
    """``if kwargs.get(k) is None: kwargs[k] = v`` (``v`` a class attribute measured into the tables)."""
    kw = f.kwargs()
    key = f.get(a["k"])
    if kw.get(key) is None:
        kw[key] = f.get(a["v"])


STEPS: dict[str, Callable[[Frame, dict], None]] = {
    "set": _set, "set_const": _set_const, "default_if_none": _default_if_none,
    "set_default_if_none": _set_default_if_none, "const_if_none": _const_if_none,
    "set_const_if_none": _set_const_if_none, "set_or": _set_or, "set_or_const": _set_or_const,
    "set_if_else": _set_if_else, "set_if_else_const": _set_if_else_const,
    "set_b_if_none_else_a": _set_b_if_none_else_a,
    "kwargs_pop": _kwargs_pop, "kwargs_get": _kwargs_get, "kwargs_setdefault": _kwargs_setdefault,
    "kwargs_drop": _kwargs_drop, "kwargs_set": _kwargs_set,
    "floordiv": _floordiv, "floordiv_if_none": _floordiv_if_none, "floordiv_if_none_from": _floordiv_if_none_from,
    "floordiv_or": _floordiv_or, "add": _add, "mul": _mul, "mul_const": _mul_const,
    "rope_type_from_type": _rope_type_from_type, "rope_validation": _rope_validation,
    "layer_types_validation": _layer_types_validation,
    "layer_types_validation_any_length": _layer_types_validation_any_length,
    "layer_types_sliding_after": _layer_types_sliding_after,
    "layer_types_sliding_every": _layer_types_sliding_every,
    "layer_types_sliding_every_const": _layer_types_sliding_every,
    "layer_types_all_full": _layer_types_all_full,
    "sub_config": _sub_config,
    "get_if_not_none": _get_if_not_none, "set_const_if_none_other": _set_const_if_none_other,
    "const_if_contains": _const_if_contains, "list_default_or_replace": _list_default_or_replace,
    "floordiv_if_eq_const": _floordiv_if_eq_const,
    "raise_if_product_differs": _raise_if_product_differs, "rope_validation_if_eq": _rope_validation_if_eq,
    "pair_unless_sequence": _pair_unless_sequence, "to_list": _to_list,
    "dict_of_locals_if_none": _dict_of_locals_if_none, "dict_of_given_locals_if_none": _dict_of_given_locals_if_none,
    "attr_of_getattr_default": _attr_of_getattr_default,
    "wrap_layer_indices_and_trim_depth_if_given": _wrap_layer_indices_and_trim_depth_if_given,
    "raise_unless_layer_indices_in_depth": _raise_unless_layer_indices_in_depth,
    "every_layer_index_if_none": _every_layer_index_if_none, "raise_if_lt_const": _raise_if_lt_const,
    "raise_if_not_none_and_gt_const": _raise_if_not_none_and_gt_const, "steps_if_truthy": _steps_if_truthy,
    "const_truediv_if_none": _const_truediv_if_none, "product_with_increment": _product_with_increment,
    "steps_if_none": _steps_if_none, "raise_unless_len_and_items_in": _raise_unless_len_and_items_in,
    "kwargs_single_value_if_keys_within": _kwargs_single_value_if_keys_within,
    "kwargs_update_from": _kwargs_update_from,
    "raise_if_sub_items_outside_range": _raise_if_sub_items_outside_range,
    "raise_if_sub_count_product_differs": _raise_if_sub_count_product_differs,
    "int_of_attr_if_none_else_int": _int_of_attr_if_none_else_int, "kwargs_pop_or": _kwargs_pop_or,
    "patch_grid_cells_if_none": _patch_grid_cells_if_none,
    "exaone4_layer_types": _exaone4_layer_types, "layer_types_by_remainder_if_none": _layer_types_by_remainder_if_none,
    "dict_items_update_if_given": _dict_items_update_if_given,
    "layer_types_full_every_else_linear": lambda f, a: _layer_types_alternating(
        f, a, "full_attention", "linear_attention", hit_when_remainder=True),
    "layer_types_sliding_except_every": lambda f, a: _layer_types_alternating(
        f, a, "full_attention", "sliding_attention", hit_when_remainder=False),
    "layer_types_full_every_else_sliding": lambda f, a: _layer_types_alternating(
        f, a, "full_attention", "sliding_attention", hit_when_remainder=False, local=True),
    "lfm2_layer_types": _lfm2_layer_types, "smollm3_no_rope_layers": _smollm3_no_rope_layers,
    "smollm3_layer_types": _smollm3_layer_types, "gemma3n_intermediate_sizes": _gemma3n_intermediate_sizes,
    "gemma3n_sparsity_default": _gemma3n_sparsity_default, "gemma3n_sparsity_check": _gemma3n_sparsity_check,
    "mamba2_head_check": _mamba2_head_check, "granite_layer_types_check": _granite_layer_types_check,
    "int_keys_and_values": _int_keys_and_values, "max_of_values": _max_of_values,
    "bart_forced_bos": _bart_forced_bos, "set_nested_attr": _set_nested_attr,
    "causal_lm_type_check": _causal_lm_type_check, "paligemma_image_tokens": _paligemma_image_tokens,
    "set_attr_of": _set_attr_of, "set_if_else_const_first": _set_if_else_const_first,
    "minus_one_is_last_layer": _minus_one_is_last_layer, "mul_const_if_none": _mul_const_if_none,
    "const_mul_if_none": _const_mul_if_none, "int_mul": _int_mul, "int_mul_if_kwarg_none": _int_mul_if_kwarg_none,
    "int_mul_floordiv": _int_mul_floordiv, "const_mul_floordiv": _const_mul_floordiv,
    "ceil_div_if_auto": _ceil_div_if_auto, "floordiv_add_if": _floordiv_add_if,
    "none_if_empty_list": _none_if_empty_list, "add_if_none": _add_if_none, "const_if": _const_if,
    "one_of": _one_of, "raise_if_truthy": _raise_if_truthy, "drop_kwargs": _drop_kwargs,
    "no_extra_kwargs": _no_extra_kwargs, "indices_of": _indices_of,
    "const_if_none_else_set": _const_if_none_else_set, "rope_floats": _rope_floats,
    "rope_mrope_type": _rope_mrope_type, "layer_types_sliding_every_attr": _layer_types_sliding_every_attr,
    "layer_types_linear_every_kwarg": _layer_types_linear_every,
    "layer_types_linear_every_const": _layer_types_linear_every,
    "no_rope_layers_default": _no_rope_layers_default, "moe_layers_default": _moe_layers_default,
    "layer_types_chunked_from_no_rope": _layer_types_chunked_from_no_rope,
    "rope_scaling_type_factor": _rope_scaling_type_factor, "phi3_rope_type_adjustment": _phi3_rope_type_adjustment,
    "phi3_rope_validation": _phi3_rope_validation, "phimoe_rope_scaling": _phimoe_rope_scaling,
    "zamba2_long_context_rope_theta": _zamba2_long_context_rope_theta,
    "const_if_eq": _const_if_eq, "to_float": _to_float, "dict_set_if_missing": _dict_set_if_missing,
    "kwargs_set_if_missing": _kwargs_set_if_missing, "first_truthy": _first_truthy,
    "rope_parameters_type_factor": _rope_parameters_type_factor, "eagle_config": _eagle_config,
    "assert_in": _assert_in, "assert_not_none": _assert_not_none, "assert_keys_not_none": _assert_keys_not_none,
    "copy_attr_if_set": _copy_attr_if_set, "mul_if_none_else": _mul_if_none_else,
    "truncate_to_layers": _truncate_to_layers, "raise_if_value_missing": _raise_if_value_missing,
    "raise_if_all_equal": _raise_if_all_equal, "int_scaled_div_if_none": _int_scaled_div_if_none,
    "const_mul_if_none_here": _const_mul_if_none_here, "kwargs_setdefault_to": _kwargs_setdefault_to,
    "list_if_int": _list_if_int, "tuple_unless_none": _tuple_unless_none, "set_tuple": _set_tuple,
    "mul_floordiv_if_eq_const": _mul_floordiv_if_eq_const,
    "deepseek_ocr_model_type": lambda f, a: _deepseek_ocr_model_type(f, f.get(a["a"]), on_kwargs=True),
    "deepseek_ocr_model_type_attr": lambda f, a: _deepseek_ocr_model_type(f, f.get(a["a"]), on_kwargs=False),
    "deepseek_ocr_model_type_attr_kwargs": lambda f, a: _deepseek_ocr_model_type(
        f, f.kwargs()["architectures"], on_kwargs=False),
    "deepseek_ocr1_model_type_attr": lambda f, a: _deepseek_ocr_model_type(
        f, f.obj.architectures or f.kwargs().get("architectures", []), on_kwargs=False, second=False),
    "layer_types_validation_local": lambda f, a: f.lib.layer_types_validation(f.get("layer_types"),
                                                                              f.get("num_hidden_layers")),
    "kimi_k25_mm_hidden_size": _kimi_k25_mm_hidden_size,
    "olmo_hybrid_layer_types": _olmo_hybrid_layer_types,
    "laguna_rope_parameters": _laguna_rope_parameters,
    "validate_layer_types_either": lambda f, a: _validate_layer_types_either(f, a, counted=False),
    "validate_layer_types_either_counted": lambda f, a: _validate_layer_types_either(f, a, counted=True),
    "validate_local_layer_types_either": lambda f, a: _validate_layer_types_either(f, a, counted=True,
                                                                                   local=True),
    "rope_parameters_default_theta": _rope_parameters_default_theta,
    "rope_parameters_or_default_theta": _rope_parameters_or_default_theta,
    "raise_if_not_divisible": _raise_if_not_divisible, "raise_if_not_multiple_of": _raise_if_not_multiple_of,
    "halve_log2_times": _halve_log2_times, "mllama_aspect_ratios": _mllama_aspect_ratios,
    "layer_types_all_sliding_or_full": _layer_types_all_sliding_or_full,
    "rope_params_type_from_type": _rope_params_type_from_type, "layer_offset_below_period": _layer_offset_below_period,
    "raise_if_not_instance": _raise_if_not_instance, "gated_act_split": _gated_act_split,
    "opaque": _opaque,
    # -- transformers 5 --
    "return_value": _return_value, "call_method": _call_method, "super_method": _super_method,
    "return_super_method_kwargs": _return_super_method_kwargs, "set_super_method": _set_super_method,
    "raise_if_not_multiple": _raise_if_not_multiple, "raise_if_ge": _raise_if_ge,
    "raise_if_not_dict": _raise_if_not_dict, "layer_types_every": _layer_types_every,
    "layer_types_first_and_every": _layer_types_first_and_every,
    "layer_types_every_else_remap": lambda f, a: _layer_types_every(f, {**a, "else_remap": True}),
    "layer_types_every_within_window": _layer_types_every_within_window,
    "layer_types_chunked_if_size": _layer_types_chunked_if_size, "per_layer_const_if_none": _per_layer_const_if_none,
    "first_then_rest_if_none": _first_then_rest_if_none, "first_k_then_rest_if_none": _first_k_then_rest_if_none,
    "const_if_none_else_remap": _const_if_none_else_remap,
    "const_mul_if_none_else_remap": _const_mul_if_none_else_remap, "last_layer_type_forced": _last_layer_type_forced,
    "set_attr_on": _set_attr_on, "copy_attr_across_if_differs": _copy_attr_across_if_differs, "mul_const_if_none_set": _mul_const_if_none_set,
    "set_or_const_mul": _set_or_const_mul, "set_attr_of_if_none": _set_attr_of_if_none,
    "list_if_tuple": _list_if_tuple, "set_from_kwarg_if_not_none": _set_from_kwarg_if_not_none,
    "set_kwarg_plus_if_not_none": _set_kwarg_plus_if_not_none,
    "kwarg_pop_if_present_else": _kwarg_pop_if_present_else, "const_if_false_and_attr": _const_if_false_and_attr,
    "bidirectional_window": _bidirectional_window, "per_layer_overrides_by_type": _per_layer_overrides_by_type, "dict_model_type_rename": _dict_model_type_rename,
    "dict_item_update_if_not_none": _dict_item_update_if_not_none,
    "dict_item_const_if_none": _dict_item_const_if_none,
    "dict_item_setdefault_kwarg_pop_item": _dict_item_setdefault_kwarg_pop_item,
    "dict_setdefault_kwarg_pop": _dict_setdefault_kwarg_pop, "dict_setdefault_kwarg_get": _dict_setdefault_kwarg_get,
    "dict_setdefault_div": _dict_setdefault_div, "dict_setdefault_var": _dict_setdefault_var,
    "dict_setdefault_values_list": _dict_setdefault_values_list, "dict_pop_key": _dict_pop_key,
    "attr_of_const_if_none": _attr_of_const_if_none, "pow_if_none": _pow_if_none,
    "pow_if_none_from": _pow_if_none_from, "getattr_of_if_kwarg_none": _getattr_of_if_kwarg_none,
    "rope_parameters_from_scaling_if_none": _rope_parameters_from_scaling_if_none,
    "raise_if_ne": _raise_if_ne, "raise_if_attr_not_none": _raise_if_attr_not_none,
    "raise_if_attr_truthy": _raise_if_attr_truthy, "raise_if_in_and_not_positive": _raise_if_in_and_not_positive,
    "first_one_then_rest_if_none": _first_one_then_rest_if_none,
    "first_and_every_after_if_none": _first_and_every_after_if_none, "names_folded_if_given": _names_folded_if_given,
    "const_if_flag_and_attr_none": _const_if_flag_and_attr_none,
    "dict_under_sub_config_defaults": _dict_under_sub_config_defaults,
    "sorted_unique_or_empty_if_none": _sorted_unique_or_empty_if_none, "const_if_truthy_else": _const_if_truthy_else,
    "layer_types_every_kwarg_else_rename": _layer_types_every_kwarg_else_rename,
    "mlp_layer_types_from_kwargs": _mlp_layer_types_from_kwargs,
    "dict_copy_or_empty": _dict_copy_or_empty, "set_dict_pop": _set_dict_pop, "set_dict_get_or_none": _set_dict_get_or_none,
    "set_attrs_from_dict_except_properties": _set_attrs_from_dict_except_properties,
    "set_getattr": _set_getattr, "fold_kwargs_into_sub_config_if_none": _fold_kwargs_into_sub_config_if_none,
    "fold_kwargs_for_sub_config": _fold_kwargs_for_sub_config,
    "sub_config_or_default_with_key": _sub_config_or_default_with_key, "kwargs_setdefault_attr_of": _kwargs_setdefault_attr_of,
    "set_getattr_or_const": _set_getattr_or_const, "set_item_if_no_attr_and_in": _set_item_if_no_attr_and_in, "set_dict_get": _set_dict_get,
    "dict_item_const_if_in": _dict_item_const_if_in, "dict_item_const_if_get_eq": _dict_item_const_if_get_eq,
    "kwargs_get_or_attr": _kwargs_get_or_attr, "kwargs_setdefault_div_if_not_none": _kwargs_setdefault_div_if_not_none,
    "item_scaled_if_attr": _item_scaled_if_attr, "item_scaled_if_attr_eq": _item_scaled_if_attr,
    "flat_sub_config_kwargs": _flat_sub_config_kwargs, "sub_config_init_params": _sub_config_init_params,
    "list_plus_const": _list_plus_const, "kwargs_pop_keys": _kwargs_pop_keys,
    "phi3_rope_validation_5": _phi3_rope_validation_5, "phimoe_rope_validation_5": _phimoe_rope_validation_5,
    "append_if_differs": _append_if_differs, "kwargs_get_or_const": _kwargs_get_or_const,
    "legacy_rope_type_renamed": _legacy_rope_type_renamed, "mistral4_rope_defaults": _mistral4_rope_defaults,
    "layer_types_hit_every": _layer_types_hit_every, "layer_types_hit_every_from_zero": _layer_types_hit_every_from_zero,
    "per_layer_item_if_none": _per_layer_item_if_none, "int_if_truthy_else_none": _int_if_truthy_else_none,
    "layer_types_prefix_and_rest": _layer_types_prefix_and_rest,
    "layer_types_except_every_field": _layer_types_except_every_field,
    "per_layer_first_k_if_none": _per_layer_first_k_if_none, "layer_types_at_indices": _layer_types_at_indices,
    "flags_except_every_if_none": _flags_except_every_if_none,
    "layer_types_sliding_without_rope": _layer_types_sliding_without_rope, "sqrt_if_none": _sqrt_if_none,
    "indexer_types_default": _indexer_types_default, "noop": lambda f, a: None,
    "layer_types_from_pattern_kwarg": _layer_types_from_pattern_kwarg,
    "layer_types_from_pattern_kwarg_else_remap":
        lambda f, a: _layer_types_from_pattern_kwarg(f, {**a, "else_remap": True}),
    "from_pattern_kwarg_if_eq": _from_pattern_kwarg_if_eq, "return_mapped_items": _return_mapped_items,
    "return_joined_mapped": _return_joined_mapped, "len_compare_if_not_none": _len_compare_if_not_none,
    "raise_if_len_ne": _raise_if_len_ne, "per_layer_attr_if_none": _per_layer_attr_if_none,
    "set_gt_const": _set_gt_const, "dict_drop_if_dict": _dict_drop_if_dict,
    "set_sub_attr_if_false": _set_sub_attr_if_false, "raise_if_eq_and_ne": _raise_if_eq_and_ne, "set_const_if_gt_const": _set_const_if_gt_const,
    "first_then_rest_clamped_if_none": _first_then_rest_clamped_if_none,
    "nemotron_h_layer_types_validation": _nemotron_h_layer_types_validation,
    "raise_if": _raise_if, "steps_if": _steps_if, "steps_if_not_none": _steps_if_not_none,
    "prefix_if_truthy": _prefix_if_truthy,
    "kwargs_set_attr_of_if_missing": _kwargs_set_attr_of_if_missing, "kwargs_set_if_none": _kwargs_set_if_none,
}


def run_steps(frame: Frame, steps: list, on_super: Callable[[Frame, dict], None]) -> None:
    for name, args in steps:
        if name == "super":
            on_super(frame, args)
            continue
        fn = STEPS.get(name)
        if fn is None:
            raise Undecidable(f"{frame.cls.name}.{frame.method}: step {name!r} is not in kvguard's vocabulary")
        fn(frame, args)


# single classes' own derivations (transformers 5) are part of the vocabulary
STEPS.update(STEPS5)
