#!/usr/bin/env python3
"""Extract the model-facts tables kvguard reads, from a real transformers / vLLM installation.

Runs inside an oracle environment (tools/oracle_env.py): it imports the real library, reads
each configuration class — its attribute map, its parameters and their defaults, its sub-configs,
and the statements of its ``__init__`` / ``__post_init__`` — and writes what it finds as facts:
values, names and named steps from a small vocabulary (tools/facts_patterns.py).  No code is
written out: a statement that fits no step is recorded as ``opaque`` with the names it reads and
writes.  Measured facts (the attributes of a default-constructed instance) are recorded beside the
ones read from the source, so that the differential test can tell a recognised step from a
mis-recognised one.

usage (inside an oracle python):
  python tools/facts_extract.py transformers OUT.json [--coverage MODEL_TYPES.json]
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import sys
import textwrap
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from facts_patterns import LOG_OBJECTS, PATTERNS  # noqa: E402

_MISSING = object()
_BASE_NAMES = ("PretrainedConfig", "PreTrainedConfig")


# ---------------------------------------------------------------------------------------------
# pattern matching


def _compile(src: str) -> list[ast.stmt]:
    return ast.parse(src).body


_COMPILED = [(name, _compile(src)) for name, src in PATTERNS]


class _NoMatch(Exception):
    pass


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _NoMatch from None


def _var(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    raise _NoMatch


def _class_ref(node):
    if isinstance(node, ast.Name):
        return {"class": node.id}
    if isinstance(node, ast.Subscript):
        base = node.value
        key = node.slice
        if isinstance(base, ast.Attribute) and base.attr == "sub_configs" and isinstance(base.value, ast.Name) \
                and base.value.id == "self":
            return {"sub": _literal(key)}
        if isinstance(base, ast.Name) and base.id == "CONFIG_MAPPING":
            try:
                return {"mapping": _literal(key)}
            except _NoMatch:
                return {"mapping_of": _var(key) if not isinstance(key, ast.Subscript) else _subscript_var(key)}
    raise _NoMatch


def _subscript_var(node):
    if isinstance(node, ast.Subscript):
        return {"item": [_var(node.value), _literal(node.slice)]}
    raise _NoMatch


def _match(pat, node, env: dict) -> None:
    if isinstance(pat, ast.Name) and pat.id[:2] in ("V_", "K_", "C_"):
        kind, key = pat.id[:1], pat.id
        if kind == "V":
            value = _var(node)
        elif kind == "K":
            value = {"$literal": _literal(node)}
        else:
            value = {"$class": _class_ref(node)}
        if key in env and env[key] != value:
            raise _NoMatch
        env[key] = value
        return
    if type(pat) is not type(node):
        raise _NoMatch
    if isinstance(pat, ast.AST):
        for field in pat._fields:
            if field in ("ctx", "type_comment", "kind"):
                continue
            _match(getattr(pat, field), getattr(node, field, None), env)
        return
    if isinstance(pat, list):
        if len(pat) != len(node):
            raise _NoMatch
        for a, b in zip(pat, node):
            _match(a, b, env)
        return
    if pat != node:
        raise _NoMatch


def _plain(env: dict) -> dict:
    out = {}
    for key, value in env.items():
        name = key[2:]
        if isinstance(value, dict) and "$literal" in value:
            value = {"literal": _jsonable(value["$literal"])}
        elif isinstance(value, dict) and "$class" in value:
            value = value["$class"]
        out[name] = value
    return out


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(_jsonable(v) for v in value)}
    if isinstance(value, tuple):
        return {"tuple": [_jsonable(v) for v in value]}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"dict": {k: _jsonable(v) for k, v in value.items()}}
        return {"dict_items": [[_jsonable(k), _jsonable(v)] for k, v in value.items()]}
    return value


def _is_noise(stmt: ast.stmt) -> bool:
    """Docstrings, ``pass`` and logging calls: nothing a config object keeps."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            base = value.func.value
            if isinstance(base, ast.Name) and base.id in LOG_OBJECTS:
                # arguments of a log call are formatted: an f-string over plain names cannot raise
                return all(_harmless(arg) for arg in value.args)
    return False


def _harmless(node) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Call, ast.Subscript)):
            return False
    return True


def _names(node) -> tuple[list[str], list[str]]:
    reads, writes = set(), set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (writes if isinstance(sub.ctx, ast.Store) else reads).add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            (writes if isinstance(sub.ctx, ast.Store) else reads).add("self." + sub.attr)
    return sorted(reads), sorted(writes)


def recognise(stmt: ast.stmt) -> list:
    """One statement -> one step ``[name, {args}]`` (or several for an if/else of steps)."""
    for name, pattern in _COMPILED:
        if len(pattern) != 1:
            continue
        env: dict = {}
        try:
            _match(pattern[0], stmt, env)
        except _NoMatch:
            continue
        return [name, _plain(env)]
    reads, writes = _names(stmt)
    rec = {"reads": reads, "writes": writes}
    if os.environ.get("KVG_FACTS_DEBUG"):
        rec["src"] = ast.unparse(stmt)
    return ["opaque", rec]


def _super_call(stmt: ast.stmt):
    """``super().__init__(...)`` / ``super().__post_init__(...)`` -> its keywords, else None."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("__init__", "__post_init__")
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"):
        return None
    keywords = []
    for kw in call.keywords:
        if kw.arg is None:
            keywords.append(["**", _var(kw.value) if isinstance(kw.value, (ast.Name, ast.Attribute)) else None])
            continue
        try:
            keywords.append([kw.arg, _var(kw.value)])
        except _NoMatch:
            try:
                keywords.append([kw.arg, {"literal": _jsonable(_literal(kw.value))}])
            except _NoMatch:
                keywords.append([kw.arg, None])
    return {"method": func.attr, "keywords": keywords, "positional": len(call.args)}


def steps_of(fn) -> list:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return [["opaque", {"reads": [], "writes": [], "why": "no source"}]]
    tree = ast.parse(src).body[0]
    out = []
    for stmt in tree.body:
        if _is_noise(stmt):
            continue
        call = _super_call(stmt)
        if call is not None:
            out.append(["super", call])
            continue
        out.append(recognise(stmt))
    return out


def params_of(fn) -> tuple[list, bool]:
    sig = inspect.signature(fn)
    params = []
    has_kwargs = False
    for p in list(sig.parameters.values())[1:]:
        if p.kind is p.VAR_KEYWORD:
            has_kwargs = True
            continue
        if p.kind is p.VAR_POSITIONAL:
            params.append([p.name, {"varargs": True}])
            continue
        if p.default is p.empty:
            params.append([p.name, {"required": True}])
            continue
        params.append([p.name, _default(p.default)])
    return params, has_kwargs


def _default(value):
    try:
        text = json.dumps(_jsonable(value))
    except (TypeError, ValueError):
        return {"opaque_default": type(value).__name__}
    return {"literal": json.loads(text)}


# ---------------------------------------------------------------------------------------------
# transformers


def _config_classes():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES
    seen: dict[str, type] = {}
    order = []

    def add(cls):
        if not isinstance(cls, type) or cls.__name__ in seen:
            return
        seen[cls.__name__] = cls
        order.append(cls)
        subs = cls.__dict__.get("sub_configs")
        if isinstance(subs, dict):
            for value in subs.values():
                if isinstance(value, type):
                    add(value)
                elif isinstance(value, str) and value in CONFIG_MAPPING_NAMES:
                    try:
                        add(CONFIG_MAPPING[value])
                    except Exception:  # noqa: BLE001 - a class whose module does not import here
                        pass
        for base in cls.__mro__[1:]:
            if isinstance(base, type) and base.__name__ not in _BASE_NAMES + ("object", "PushToHubMixin"):
                add(base)

    for mt in CONFIG_MAPPING_NAMES:
        try:
            add(CONFIG_MAPPING[mt])
        except Exception:  # noqa: BLE001
            continue
    return order


def describe_class(cls) -> dict:
    import transformers
    base_cls = getattr(transformers, "PreTrainedConfig", None) or transformers.PretrainedConfig
    rec: dict = {"model_type": cls.__dict__.get("model_type", getattr(cls, "model_type", "")),
                 "module": cls.__module__}
    parent = next((b for b in cls.__mro__[1:] if isinstance(b, type) and issubclass(b, base_cls)), None)
    if parent is not None and parent.__name__ not in _BASE_NAMES:
        rec["parent"] = parent.__name__
    amap = getattr(cls, "attribute_map", {})
    if amap:
        rec["attribute_map"] = dict(amap)
    subs = cls.__dict__.get("sub_configs")
    if isinstance(subs, dict):
        rec["sub_configs"] = {k: (v.__name__ if isinstance(v, type) else {"auto": v}) for k, v in subs.items()}
    elif isinstance(subs, property):
        rec["sub_configs"] = {"opaque_property": True}
    for attr in ("base_config_key", "has_no_defaults_at_init", "is_composition"):
        if attr in cls.__dict__:
            rec[attr] = cls.__dict__[attr]
    init = cls.__dict__.get("__init__")
    if init is not None:
        rec["params"], rec["kwargs"] = params_of(init)
        rec["init"] = steps_of(init)
    for meth in ("__post_init__",):
        fn = cls.__dict__.get(meth)
        if fn is not None:
            rec["post_init"] = steps_of(fn)
    if "get_text_config" in cls.__dict__:
        rec["get_text_config"] = steps_of(cls.__dict__["get_text_config"])
    props = {name: "property" for name, value in cls.__dict__.items() if isinstance(value, property)}
    if props:
        rec["properties"] = sorted(props)
    return rec


def transformers_tables(coverage: str | None) -> dict:
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    classes = _config_classes()
    out = {"kind": "kvguard-facts-transformers", "line": transformers.__version__,
           "config_mapping": dict(CONFIG_MAPPING_NAMES),
           "classes": {cls.__name__: describe_class(cls) for cls in classes}}
    if coverage:
        _coverage(out, coverage)
    return out


def _coverage(out: dict, path: str) -> None:
    with open(path) as f:
        wanted = json.load(f)
    classes = out["classes"]
    names = {out["config_mapping"].get(mt) for mt in wanted}
    todo = list(names - {None})
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in classes:
            continue
        seen.add(name)
        rec = classes[name]
        for v in (rec.get("sub_configs") or {}).values():
            if isinstance(v, str):
                todo.append(v)
        if "parent" in rec:
            todo.append(rec["parent"])
    total = opaque = 0
    by_class = {}
    for name in sorted(seen):
        rec = classes[name]
        steps = rec.get("init", []) + rec.get("post_init", [])
        n = sum(1 for s in steps if s[0] == "opaque")
        total += len(steps)
        opaque += n
        if n:
            by_class[name] = n
    print(f"{len(seen)} classes, {total} steps, {opaque} opaque", file=sys.stderr)
    for name, n in sorted(by_class.items(), key=lambda kv: -kv[1]):
        print(f"  {n:3} {name}", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("transformers",))
    ap.add_argument("out")
    ap.add_argument("--coverage", help="JSON list of model types whose classes to report opaque steps for")
    args = ap.parse_args(argv)
    data = transformers_tables(args.coverage)
    with open(args.out, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"), sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
