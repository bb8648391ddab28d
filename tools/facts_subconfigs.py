"""Recognise how a config class builds a sub-config from what it was given (tools/facts_extract.py).

Config classes turn a ``text_config`` / ``vision_config`` / … argument into a config object in many
spellings (``if x is None: … elif isinstance(x, dict): …``, ``x or Cls()``, ``Cls(**x or {})``,
``CONFIG_MAPPING[x.get("model_type", "llama")](**x)``).  They all say the same kind of thing: *for
each kind of value the argument can hold, what becomes of it*.  This module works that out from the
statement by following it for each kind of value — None, an empty dict, a dict, a config object,
another falsy value, another truthy value — and writes the answer as one ``sub_config`` step:

    ["sub_config", {"var": "text_config", "cases": {"none": [op, ...], "dict": [op, ...], ...}}]

with ops from a small vocabulary (``build``, ``assign``, ``model_type_default``, ``model_type``,
``empty``, ``raise``, ``assert_kind``, ``read_item``, ``pop_item``, ``for_model``, …) whose arguments are names
and literal values.  A statement with anything else
in it is not a sub-config step (the caller records it as opaque).
"""

from __future__ import annotations

import ast
from typing import Callable

KINDS = ("none", "empty_dict", "dict", "dict_mt", "config", "falsy", "truthy")

#: set by tools/facts_extract.py: (a global name of the class's module, an attribute) -> the attribute of the
#: config class that name holds, measured (``default_model_type = AudioEncoderConfig.model_type``); None when the
#: name holds no config class with it
class_attribute: "Callable[[str, str], str | None] | None" = None
#: ``dict_mt``: a dict with a ``model_type`` key (``'model_type' in x`` tells them apart)


class NotSubConfig(Exception):
    pass


def _var(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    raise NotSubConfig


def _lit(node):
    """A literal value, tagged as the tables write literals (tuples, sets and dicts tagged)."""
    try:
        return _tagged(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError):
        raise NotSubConfig from None


def _tagged(value):
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(_tagged(v) for v in value)}
    if isinstance(value, tuple):
        return {"tuple": [_tagged(v) for v in value]}
    if isinstance(value, list):
        return [_tagged(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"dict": {k: _tagged(v) for k, v in value.items()}}
        return {"dict_items": [[_tagged(k), _tagged(v)] for k, v in value.items()]}
    return value


def _class_ref(node, var_names: set) -> dict:
    """The class a call builds: a class name, ``self.sub_configs["k"]``, ``CONFIG_MAPPING[...]``."""
    if isinstance(node, ast.Name):
        return {"class": node.id}
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "transformers" \
            and node.attr in ("PretrainedConfig", "PreTrainedConfig"):
        return {"class": "PretrainedConfig"}
    if isinstance(node, ast.Subscript):
        base, key = node.value, node.slice
        is_mapping = (isinstance(base, ast.Name) and base.id == "CONFIG_MAPPING") or (
            isinstance(base, ast.Attribute) and base.attr == "CONFIG_MAPPING")
        if isinstance(base, ast.Attribute) and base.attr == "sub_configs" and isinstance(base.value, ast.Name) \
                and base.value.id == "self":
            return {"sub": _lit(key)}
        if is_mapping:
            if isinstance(key, ast.Constant):
                return {"mapping": key.value}
            if isinstance(key, ast.Subscript) and isinstance(key.slice, ast.Constant):
                return {"mapping_key": [_var(key.value), key.slice.value]}
            if isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "get" \
                    and len(key.args) == 2 and isinstance(key.args[0], ast.Constant):
                return {"mapping_get": [_var(key.func.value), key.args[0].value, _lit(key.args[1])]}
            if isinstance(key, ast.Name):
                return {"mapping_var": key.id}
    raise NotSubConfig


def _dict_without(value) -> "tuple[str, list] | None":
    """``{k: v for k, v in X.items() if k != "a"}`` (or ``not in ("a", "b")``) -> (X, ["a", …]); else None."""
    if not (isinstance(value, ast.DictComp) and len(value.generators) == 1):
        return None
    gen = value.generators[0]
    if not (isinstance(gen.target, ast.Tuple) and len(gen.target.elts) == 2
            and all(isinstance(e, ast.Name) for e in gen.target.elts) and len(gen.ifs) == 1 and not gen.is_async):
        return None
    key, val = (e.id for e in gen.target.elts)
    if not (isinstance(value.key, ast.Name) and value.key.id == key and isinstance(value.value, ast.Name)
            and value.value.id == val):
        return None
    it = gen.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items"
            and not it.args and not it.keywords):
        return None
    test = gen.ifs[0]
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == key
            and len(test.ops) == 1 and len(test.comparators) == 1):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.NotEq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        names = [right.value]
    elif isinstance(test.ops[0], ast.NotIn) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts):
        names = [e.value for e in right.elts]
    else:
        return None
    return _var(it.func.value), names


def _call_op(target: str, call: ast.Call, var_names: set) -> dict:
    """``target = Cls(**x)`` / ``Cls()`` / ``Cls(k=v, ...)`` / ``Cls(**x or {})`` / ``Cls(**kwargs)``."""
    if call.args:
        raise NotSubConfig
    ref = _class_ref(call.func, var_names)
    op: dict = {"op": "build", "target": target, "class": ref}
    star = [kw.value for kw in call.keywords if kw.arg is None]
    named = [kw for kw in call.keywords if kw.arg is not None]
    if len(star) > 1:
        raise NotSubConfig
    literal_kw, var_kw = {}, {}
    for kw in named:
        if isinstance(kw.value, (ast.Name, ast.Attribute)):
            var_kw[kw.arg] = _var(kw.value)
        else:
            literal_kw[kw.arg] = _lit(kw.value)
    if literal_kw:
        op["kw"] = literal_kw
    if var_kw:
        op["kw_vars"] = var_kw
    if star:
        value = star[0]
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2 \
                and isinstance(value.values[1], ast.Dict) and not value.values[1].keys:
            op["from"] = _var(value.values[0])
            op["or_empty"] = True
        elif isinstance(value, ast.Dict) and len(value.keys) == 2 and value.keys[0] is None and value.keys[1] is None \
                and isinstance(value.values[0], ast.Attribute) and isinstance(value.values[0].value, ast.Name) \
                and value.values[0].value.id == "self":
            # {**self._class_defaults, **x}: the class's default keywords, overridden by x
            op["from"] = _var(value.values[1])
            op["under_class_value"] = value.values[0].attr
        elif (without := _dict_without(value)) is not None:
            # {k: v for k, v in x.items() if k != "model_type"}: x less the keys named
            op["from"], op["without"] = without
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "pop" \
                and isinstance(value.func.value, ast.Name) and value.func.value.id == "kwargs":
            op["from_kwargs_pop"] = [_lit(value.args[0]), _lit(value.args[1]) if len(value.args) > 1 else None]
        else:
            op["from"] = _var(value)
    return op


def _class_model_type(value, var_names: set) -> "str | None":
    """``SomeConfig.model_type`` where ``SomeConfig`` is no local but a config class of the module: its model type."""
    if not (isinstance(value, ast.Attribute) and value.attr == "model_type" and isinstance(value.value, ast.Name)
            and value.value.id != "self" and value.value.id not in var_names and class_attribute is not None):
        return None
    return class_attribute(value.value.id, "model_type")


def _message_parts(node, var_names: set) -> list:
    """An assertion's message: literal text and ``{"type_of": var}`` for ``{type(var)}`` in an f-string."""
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if not isinstance(node, ast.JoinedStr):
        raise NotSubConfig
    parts: list = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
            continue
        value = getattr(part, "value", None)
        if isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None \
                and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "type" \
                and len(value.args) == 1 and not value.keywords and _var(value.args[0]) in var_names:
            parts.append({"type_of": _var(value.args[0])})
            continue
        raise NotSubConfig
    return parts


def _assert_kinds(stmt: ast.Assert, var_names: set) -> dict:
    """``assert isinstance(x, (SomeConfig, dict)), msg``: the kinds of value that pass, the message otherwise."""
    test = stmt.test
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords):
        raise NotSubConfig
    var = _var(test.args[0])
    if var not in var_names:
        raise NotSubConfig
    results = {kind: _test(test, var, kind) for kind in KINDS}
    if any(r is None for r in results.values()):
        raise NotSubConfig
    return {"op": "assert_kind", "var": var, "kinds": [k for k in KINDS if results[k]],
            "message": _message_parts(stmt.msg, var_names)}


def _simple(stmt, var_names: set) -> list[dict]:
    """One statement of a branch -> ops."""
    if isinstance(stmt, ast.Assert):
        return [_assert_kinds(stmt, var_names)]
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, ast.Constant):
            return []
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            owner = value.func.value
            if value.func.attr == "pop" and len(value.args) == 1 and not value.keywords \
                    and isinstance(value.args[0], ast.Constant) and isinstance(owner, (ast.Name, ast.Attribute)) \
                    and _var(owner) in var_names:
                # x.pop("model_type"): the key removed from the dict (a KeyError when absent)
                return [{"op": "pop_item", "var": _var(owner), "key": value.args[0].value}]
            if isinstance(owner, ast.Name) and owner.id in ("logger", "warnings", "logging"):
                return []
            if value.func.attr == "setdefault" and len(value.args) == 2 and _lit(value.args[0]) == "model_type":
                if isinstance(value.args[1], ast.Name):
                    # the default held by a local (a class's model type measured into it above)
                    return [{"op": "model_type_default", "var": _var(owner), "value_from": value.args[1].id}]
                measured = _class_model_type(value.args[1], var_names)
                if measured is not None:
                    return [{"op": "model_type_default", "var": _var(owner), "value": measured}]
                return [{"op": "model_type_default", "var": _var(owner), "value": _lit(value.args[1])}]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            return [dict(_call_op("_discarded", value, var_names), op="build_discard")]
        raise NotSubConfig
    if isinstance(stmt, ast.Pass):
        return []
    if isinstance(stmt, ast.Import) and [alias.name for alias in stmt.names] == ["transformers"] \
            and stmt.names[0].asname is None:
        # a branch importing transformers to reach its CONFIG_MAPPING: nothing the config sees
        return []
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        value = stmt.value
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and target.slice.value == "model_type":
            var = _var(target.value)
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" \
                    and _var(value.func.value) == var and _lit(value.args[0]) == "model_type":
                return [{"op": "model_type_default", "var": var, "value": _lit(value.args[1])}]
            return [{"op": "model_type", "var": var, "value": _lit(value)}]
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and isinstance(target.slice.value, str):
            chain = _kwargs_get_chain(value)
            if chain is not None:
                # text_kwargs["dtype"] = kwargs.get("torch_dtype", kwargs.get("dtype"))
                return [{"op": "item_kwargs_get", "var": _var(target.value), "key": target.slice.value,
                         "chain": chain}]
        if isinstance(target, ast.Name) and isinstance(value, ast.Subscript) \
                and isinstance(value.value, (ast.Name, ast.Attribute)) and isinstance(value.slice, ast.Constant) \
                and isinstance(value.slice.value, str) and _var(value.value) in var_names:
            # model_type = x["model_type"]: an item of the dispatched dict (a KeyError when absent)
            return [{"op": "read_item", "target": target.id, "from": _var(value.value), "key": value.slice.value}]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "for_model" \
                and isinstance(value.func.value, ast.Name) and value.func.value.id == "AutoConfig" \
                and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and len(value.keywords) == 1 \
                and value.keywords[0].arg is None:
            # x = AutoConfig.for_model(model_type, **x)
            return [{"op": "for_model", "target": _var(target), "model_type": value.args[0].id,
                     "from": _var(value.keywords[0].value)}]
        if isinstance(target, ast.Name) and isinstance(value, ast.Subscript):
            # text_cls = CONFIG_MAPPING[text_config["model_type"]]: a local holding the class a later call builds
            return [{"op": "class_local", "target": target.id, "class": _class_ref(value, var_names)}]
        measured = _class_model_type(value, var_names)
        if isinstance(target, ast.Name) and measured is not None:
            # default_model_type = AudioEncoderConfig.model_type: a class's model type, measured into a literal
            return [{"op": "assign", "target": target.id, "from": {"literal": measured}}]
        if isinstance(target, ast.Name) and isinstance(value, ast.Attribute) and value.attr == "model_type" \
                and not (isinstance(value.value, ast.Name) and value.value.id == "self"):
            # model_type = self.text_config.model_type
            return [{"op": "read_attr", "target": target.id, "from": _var(value.value), "attr": "model_type"}]
        tname = _var(target)
        if isinstance(value, ast.Dict) and not value.keys:
            return [{"op": "empty", "target": tname}]
        if isinstance(value, (ast.Name, ast.Attribute)):
            return [{"op": "assign", "target": tname, "from": _var(value)}]
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Name) and func.id in ("deepcopy",) and len(value.args) == 1:
                return [{"op": "assign", "target": tname, "from": _var(value.args[0])}]
            if isinstance(func, ast.Attribute) and func.attr == "get" and len(value.args) == 2 \
                    and _lit(value.args[0]) == "model_type":
                return [{"op": "read_model_type", "target": tname, "from": _var(func.value),
                         "default": _lit(value.args[1])}]
            return [_call_op(tname, value, var_names)]
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2 \
                and isinstance(value.values[1], ast.Call):
            # target = x or Cls(): x when truthy, else a default-built class
            return [{"op": "or_build", "target": tname, "from": _var(value.values[0]),
                     "build": _call_op(tname, value.values[1], var_names)}]
        if isinstance(value, ast.IfExp) and isinstance(value.body, ast.Dict) and not value.body.keys \
                and isinstance(value.test, ast.Compare) and isinstance(value.test.ops[0], ast.Is) \
                and isinstance(value.orelse, (ast.Name, ast.Attribute)):
            return [{"op": "empty_if_none", "target": tname, "from": _var(value.orelse)}]
        if isinstance(value, ast.IfExp) and isinstance(value.body, ast.Call) and isinstance(value.orelse, ast.Call):
            return [{"op": "if_truthy_build", "target": tname, "test": _var(value.test),
                     "then": _call_op(tname, value.body, var_names),
                     "else": _call_op(tname, value.orelse, var_names)}]
    if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and isinstance(stmt.exc.func, ast.Name):
        args = stmt.exc.args
        if len(args) == 1 and isinstance(args[0], ast.Constant):
            return [{"op": "raise", "type": stmt.exc.func.id, "message": args[0].value}]
        raise NotSubConfig
    if isinstance(stmt, ast.If):
        rename = _model_type_rename(stmt) or _rename_if_eq(stmt)
        if rename is not None:
            return [rename]
        return [{"op": "branch", "step": recognise_dispatch(stmt)}]
    raise NotSubConfig


def _same_var(name: str, var: str) -> bool:
    """``x`` and ``self.x`` hold the same object in the classes that test one and use the other (the class
    stored its argument first)."""
    return name == var or name.removeprefix("self.") == var.removeprefix("self.")


def _rename_if_eq(stmt: ast.If) -> "dict | None":
    """``if v == old: v = new`` (a local) or ``if v == old: x.model_type = new`` (an attribute of a value)."""
    test = stmt.test
    if stmt.orelse or len(stmt.body) != 1 or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                                                   and isinstance(test.ops[0], ast.Eq)
                                                   and isinstance(test.left, ast.Name)):
        return None
    body = stmt.body[0]
    if not (isinstance(body, ast.Assign) and len(body.targets) == 1):
        return None
    target, local = body.targets[0], test.left.id
    try:
        old, new = _lit(test.comparators[0]), _lit(body.value)
        if isinstance(target, ast.Name) and target.id == local:
            return {"op": "local_rename", "var": local, "old": old, "new": new}
        if isinstance(target, ast.Attribute) and target.attr == "model_type" \
                and not (isinstance(target.value, ast.Name) and target.value.id == "self"):
            return {"op": "attr_set_if_eq", "test": local, "old": old, "var": _var(target.value), "attr": "model_type",
                    "new": new}
    except NotSubConfig:
        return None
    return None


def _kwargs_get_chain(value) -> "list | None":
    """``kwargs.get("a", kwargs.get("b"))`` -> ``["a", "b"]`` (the last default None)."""
    chain = []
    while True:
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"
                and isinstance(value.func.value, ast.Name) and value.func.value.id == "kwargs"
                and not value.keywords and 1 <= len(value.args) <= 2 and isinstance(value.args[0], ast.Constant)):
            return None
        chain.append(value.args[0].value)
        if len(value.args) == 1:
            return chain
        value = value.args[1]
        if isinstance(value, ast.Constant) and value.value is None:
            return chain


def _model_type_rename(stmt: ast.If) -> "dict | None":
    """``if d.get("model_type") == old: d["model_type"] = new`` (an old checkpoint's sub-config type renamed); the
    test may subscript the key instead (``d["model_type"] == old``, EXAONE 4.5's text config on transformers 5.17 /
    5.19: recorded with ``subscript``, a missing key being a KeyError)."""
    test = stmt.test
    if stmt.orelse or len(stmt.body) != 1 or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                                                   and isinstance(test.ops[0], ast.Eq)):
        return None
    read, body = test.left, stmt.body[0]
    if isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr == "get" \
            and len(read.args) == 1 and not read.keywords and _lit(read.args[0]) == "model_type":
        var, subscript = _var(read.func.value), False
    elif isinstance(read, ast.Subscript) and isinstance(read.slice, ast.Constant) \
            and read.slice.value == "model_type":
        var, subscript = _var(read.value), True
    else:
        return None
    if not (isinstance(body, ast.Assign) and len(body.targets) == 1 and isinstance(body.targets[0], ast.Subscript)
            and _lit(body.targets[0].slice) == "model_type" and _var(body.targets[0].value) == var):
        return None
    op = {"op": "model_type_rename", "var": var, "old": _lit(test.comparators[0]), "new": _lit(body.value)}
    if subscript:
        op["subscript"] = True
    return op


#: builtin type names an ``isinstance`` test may name besides ``dict`` (none of them is a config class)
_BUILTIN_TYPES = frozenset({"list", "tuple", "str", "int", "float", "bool", "set", "frozenset", "bytes",
                            "type", "object"})


def _test(node, var: str, kind: str):
    """The value of a branch test for a variable of ``kind`` (None: the test is not about ``var``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _test(node.operand, var, kind)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        for v in node.values:          # evaluated in order, as Python does
            result = _test(v, var, kind)
            if result is None:
                return None
            if result is not is_and:
                return result
        return is_and
    if isinstance(node, (ast.Name, ast.Attribute)):
        if not _same_var(_var(node), var):
            return None
        return kind in ("dict", "dict_mt", "config", "truthy")
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant) \
            and node.comparators[0].value is None and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        if not _same_var(_var(node.left), var):
            return None
        is_none = kind == "none"
        return is_none if isinstance(node.ops[0], ast.Is) else not is_none
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
            and isinstance(node.left, ast.Constant) and node.left.value == "model_type":
        if not _same_var(_var(node.comparators[0]), var) or kind not in ("empty_dict", "dict", "dict_mt"):
            return None
        hit = kind == "dict_mt"
        return hit if isinstance(node.ops[0], ast.In) else not hit
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
            and len(node.args) == 2:
        if not _same_var(_var(node.args[0]), var):
            return None
        kinds = node.args[1]
        names = [kinds] if not isinstance(kinds, ast.Tuple) else list(kinds.elts)
        hit = False
        for n in names:
            if isinstance(n, ast.Name) and n.id == "dict":
                hit = hit or kind in ("dict", "dict_mt", "empty_dict")
            elif isinstance(n, ast.Name) and n.id in _BUILTIN_TYPES:
                return None     # a test on a plain value's type: not a sub-config dispatch
            elif isinstance(n, (ast.Name, ast.Attribute)):
                hit = hit or kind == "config"
            else:
                return None
        return hit
    return None


def recognise_dispatch(stmt: ast.If) -> dict:
    """An if/elif/else chain whose tests are about one variable -> ``{"var", "cases"}``."""
    var = None
    node = stmt
    while True:
        for candidate in _names_in_test(node.test):
            var = var or candidate
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        break
    if var is None:
        raise NotSubConfig
    var_names = {var}
    guarded = _guarded_block(stmt, var)
    if guarded is not None:
        return guarded
    cases = {}
    for kind in KINDS:
        node = stmt
        ops = None
        while node is not None:
            result = _test(node.test, var, kind)
            if result is None and node is not stmt:
                # ``elif`` about another variable: the rest of the chain is an if statement of its own
                ops = [{"op": "branch", "step": recognise_dispatch(node)}]
                break
            if result is None:
                raise NotSubConfig
            if result:
                ops = [op for s in node.body for op in _simple(s, var_names)]
                break
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                node = node.orelse[0]
                continue
            ops = [op for s in node.orelse for op in _simple(s, var_names)]
            break
        cases[kind] = ops
    grouped: list = []
    for kind in KINDS:
        for entry in grouped:
            if entry[1] == cases[kind]:
                entry[0].append(kind)
                break
        else:
            grouped.append([[kind], cases[kind]])
    return {"var": var, "cases": grouped}


def _guarded_block(stmt: ast.If, var: str) -> "dict | None":
    """``if x is not None: <block>`` (no else, ``x`` a local name) whose block fits no op: nothing happens when
    ``x`` is None; for any other value the block runs, and kvguard does not model it (an ``unmodelled`` op
    naming what it reads)."""
    test = stmt.test
    if stmt.orelse or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                           and isinstance(test.ops[0], ast.IsNot) and isinstance(test.left, ast.Name)
                           and test.left.id == var and isinstance(test.comparators[0], ast.Constant)
                           and test.comparators[0].value is None):
        return None
    try:
        [op for s in stmt.body for op in _simple(s, {var})]
        return None           # the block fits the ops: the ordinary dispatch records it
    except NotSubConfig:
        pass
    reads = sorted({n.id for s in stmt.body for n in ast.walk(s) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load)})
    return {"var": var, "cases": [[["none"], []],
                                  [[k for k in KINDS if k != "none"], [{"op": "unmodelled", "reads": reads}]]]}


def _names_in_test(node) -> list[str]:
    out = []
    for sub in ast.walk(node):
        try:
            out.append(_var(sub))
        except NotSubConfig:
            continue
        if isinstance(sub, ast.Attribute):
            break
    return [n for n in out if n not in ("isinstance", "dict", "self")][:1]


def recognise(stmt) -> "dict | None":
    """A statement -> a ``sub_config`` step's arguments, or None."""
    try:
        if isinstance(stmt, ast.If):
            return recognise_dispatch(stmt)
        ops = _simple(stmt, set())
        if len(ops) == 1 and ops[0]["op"] in ("build", "or_build", "if_truthy_build"):
            return {"ops": ops}
    except NotSubConfig:
        return None
    return None
