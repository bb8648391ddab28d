#!/usr/bin/env python3
"""Maintenance tool: extract config-class data for :mod:`kvguard.hfconfig`.

Reads the *sources* (AST only, nothing is imported) of

* transformers: ``configuration_utils.py``, the RoPE / heterogeneity mixins,
  ``utils/type_validators.py`` and every ``models/*/configuration_*.py``;
* vLLM: ``vllm/transformers_utils/configs/**.py`` (vLLM's own config classes),

and writes one JSON file per source tree into ``kvguard/hfconfig/``.
Each module becomes a list of statements in a small JSON statement language
(``["=", targets, expr]``, ``["if", test, body, orelse]``, ``["raise", exc]``
…) whose expressions are strings in a safe Python-expression subset that
:mod:`kvguard.hfconfig._interp` evaluates (names, attributes, arithmetic,
comparisons, calls of whitelisted builtins and of the extracted classes).
Logging and warnings calls, docstrings and comments are dropped.

The model-type tables (transformers ``CONFIG_MAPPING_NAMES``,
``MODEL_MAPPING_NAMES``) and the activation names are read from the sources
too (literal dicts).

Usage::

    # from a wheel (downloads it, no dependencies):
    python tools/hfconfig_extract.py transformers 5.24.0
    python tools/hfconfig_extract.py vllm 0.28.0
    # from an unpacked tree / site-packages:
    python tools/hfconfig_extract.py transformers 4.57.6 --src /path/to/site-packages

Output: ``kvguard/hfconfig/transformers-<ver>.json`` or
``kvguard/hfconfig/vllm-<ver>.json``.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "kvguard", "hfconfig")

DROP_CALL_PREFIXES = ("logger.", "logging.", "warnings.", "warn(", "print(")


class Unsupported(Exception):
    pass


def _src(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_dropped_expr(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):  # docstrings, ellipsis
        return True
    if isinstance(node, ast.Call):
        s = _src(node.func)
        if s.startswith(("logger.", "logging.", "warnings.")) or s in ("warn", "print"):
            return True
    return False


class Translator:
    """AST statements -> JSON statement lists."""

    def __init__(self, modname: str, package: str, future_annotations: bool = False):
        self.modname = modname
        self.package = package
        self.future_annotations = future_annotations

    # --- imports -----------------------------------------------------
    def resolve_from(self, node: ast.ImportFrom) -> str:
        if node.level == 0:
            return node.module or ""
        parts = self.package.split(".")
        if node.level > 1:
            parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts)
        return base + ("." + node.module if node.module else "")

    def imports(self, node) -> list:
        out = {}
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = [a.name, None]
                else:
                    top = a.name.split(".")[0]
                    out[top] = [top, None]
        else:
            mod = self.resolve_from(node)
            for a in node.names:
                if a.name == "*":
                    continue
                out[a.asname or a.name] = [mod, a.name]
        return ["import", out]

    # --- functions ---------------------------------------------------
    def func(self, node: ast.FunctionDef) -> dict:
        a = node.args
        pos = [x.arg for x in a.posonlyargs + a.args]
        defaults = [_src(d) for d in a.defaults]
        kwonly = [[x.arg, (_src(d) if d is not None else None)] for x, d in zip(a.kwonlyargs, a.kw_defaults)]
        try:
            body = self.block(node.body)
        except Unsupported as e:
            body = [["unsupported", str(e)]]
        return {
            "name": node.name,
            "args": pos,
            "defaults": defaults,
            "vararg": a.vararg.arg if a.vararg else None,
            "kwonly": kwonly,
            "kwarg": a.kwarg.arg if a.kwarg else None,
            "deco": [_src(d) for d in node.decorator_list],
            "body": body,
        }

    def klass(self, node: ast.ClassDef) -> dict:
        body = []
        for st in node.body:
            try:
                body.extend(self.stmt(st, class_body=True))
            except Unsupported as e:
                body.append(["unsupported", str(e)])
        return {
            "name": node.name,
            "bases": [_src(b) for b in node.bases],
            "keywords": {k.arg: _src(k.value) for k in node.keywords if k.arg},
            "deco": [_src(d) for d in node.decorator_list],
            "body": body,
        }

    # --- statements --------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for st in stmts:
            out.extend(self.stmt(st))
        return out

    def stmt(self, st, class_body=False) -> list:
        if isinstance(st, ast.Expr):
            v = st.value
            if isinstance(v, ast.Call) and (_src(v.func).startswith(("logger.", "logging.", "warnings."))
                                            or _src(v.func) in ("warn", "print")):
                # the call itself is dropped, but its arguments are evaluated eagerly by Python
                # (an f-string that formats the config runs its __repr__ and may raise)
                args = [_src(a) for a in v.args if not isinstance(a, ast.Constant)]
                args += [_src(k.value) for k in v.keywords if not isinstance(k.value, ast.Constant)]
                return [["log", args]] if args else []
            if _is_dropped_expr(v):
                return []
            return [["expr", _src(v)]]
        if isinstance(st, ast.Assign):
            return [["=", [_src(t) for t in st.targets], _src(st.value)]]
        if isinstance(st, ast.AnnAssign):
            ann = repr(_src(st.annotation)) if self.future_annotations else _src(st.annotation)
            return [["ann", _src(st.target), ann,
                     _src(st.value) if st.value is not None else None]]
        if isinstance(st, ast.AugAssign):
            return [["aug", _src(st.target), type(st.op).__name__, _src(st.value)]]
        if isinstance(st, ast.If):
            return [["if", _src(st.test), self.block(st.body), self.block(st.orelse)]]
        if isinstance(st, ast.For):
            return [["for", _src(st.target), _src(st.iter), self.block(st.body), self.block(st.orelse)]]
        if isinstance(st, ast.While):
            return [["while", _src(st.test), self.block(st.body), self.block(st.orelse)]]
        if isinstance(st, ast.Raise):
            return [["raise", _src(st.exc) if st.exc else None, _src(st.cause) if st.cause else None]]
        if isinstance(st, ast.Return):
            return [["return", _src(st.value) if st.value is not None else None]]
        if isinstance(st, ast.Pass):
            return []
        if isinstance(st, ast.Continue):
            return [["continue"]]
        if isinstance(st, ast.Break):
            return [["break"]]
        if isinstance(st, ast.Delete):
            return [["del", [_src(t) for t in st.targets]]]
        if isinstance(st, ast.Assert):
            return [["assert", _src(st.test), _src(st.msg) if st.msg else None]]
        if isinstance(st, ast.Try) or (hasattr(ast, "TryStar") and isinstance(st, ast.TryStar)):
            handlers = [[_src(h.type) if h.type else None, h.name, self.block(h.body)] for h in st.handlers]
            return [["try", self.block(st.body), handlers, self.block(st.orelse), self.block(st.finalbody)]]
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            return [self.imports(st)]
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [["def", self.func(st)]]
        if isinstance(st, ast.ClassDef):
            return [["class", self.klass(st)]]
        if isinstance(st, (ast.Global, ast.Nonlocal)):
            return []
        if isinstance(st, ast.With):
            # only "with suppress(...)" style blocks would matter; run the body
            return [["with", [_src(i.context_expr) for i in st.items], self.block(st.body)]]
        raise Unsupported(f"{type(st).__name__} at line {getattr(st, 'lineno', '?')}")

    def module(self, tree: ast.Module) -> list:
        out = []
        for st in tree.body:
            try:
                out.extend(self.stmt(st))
            except Unsupported as e:
                out.append(["unsupported", str(e)])
        return out


def translate_file(path: str, modname: str) -> list:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = modname if path.endswith("__init__.py") else modname.rsplit(".", 1)[0]
    future = any(isinstance(st, ast.ImportFrom) and st.module == "__future__"
                 and any(a.name == "annotations" for a in st.names) for st in tree.body)
    return Translator(modname, package, future).module(tree)


# --- literal tables ----------------------------------------------------------

def _dict_literals(path: str, names: tuple[str, ...]) -> dict:
    """Top-level `NAME = OrderedDict([...])` / dict literals and NAME.update({...})."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found: dict[str, dict] = {}

    def lit(node):
        if isinstance(node, ast.Call) and _src(node.func).split("[")[0] in ("OrderedDict", "dict") and node.args:
            node = node.args[0]
        if isinstance(node, ast.Call) and _src(node.func) == "OrderedDict" and node.keywords:
            # OrderedDict(**{...}, **NAME)
            out = {}
            for k in node.keywords:
                if k.arg is None:
                    if isinstance(k.value, ast.Name) and k.value.id in found:
                        out.update(found[k.value.id])
                    else:
                        out.update(lit(k.value))
            return out
        v = ast.literal_eval(node)
        return dict(v)

    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            n = st.targets[0].id
            if n in names:
                try:
                    found[n] = lit(st.value)
                except Exception:  # noqa: BLE001
                    pass
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            fn = st.value.func
            if isinstance(fn, ast.Attribute) and fn.attr == "update" and isinstance(fn.value, ast.Name) \
                    and fn.value.id in names and fn.value.id in found:
                try:
                    found[fn.value.id].update(lit(st.value.args[0]))
                except Exception:  # noqa: BLE001
                    pass
    return found


def transformers_tables(tf: str) -> dict:
    cfg_names: dict = {}
    special: dict = {}
    for p in (os.path.join(tf, "models/auto/auto_mappings.py"), os.path.join(tf, "models/auto/configuration_auto.py")):
        if os.path.exists(p):
            d = _dict_literals(p, ("CONFIG_MAPPING_NAMES", "SPECIAL_MODEL_TYPE_TO_MODULE_NAME"))
            if "CONFIG_MAPPING_NAMES" in d:
                if p.endswith("configuration_auto.py") and cfg_names:
                    merged = dict(cfg_names)
                    merged.update(d["CONFIG_MAPPING_NAMES"])
                    cfg_names = merged
                else:
                    cfg_names = d["CONFIG_MAPPING_NAMES"]
            special.update(d.get("SPECIAL_MODEL_TYPE_TO_MODULE_NAME", {}))
    # configuration_auto.py may re-order/prepend entries (gpt-sw3) and add updates
    p = os.path.join(tf, "models/auto/configuration_auto.py")
    with open(p, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for st in tree.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            fn = st.value.func
            if isinstance(fn, ast.Attribute) and fn.attr == "update" and isinstance(fn.value, ast.Name):
                try:
                    upd = ast.literal_eval(st.value.args[0])
                except Exception:  # noqa: BLE001
                    continue
                if fn.value.id == "CONFIG_MAPPING_NAMES":
                    cfg_names.update(upd)
                elif fn.value.id == "SPECIAL_MODEL_TYPE_TO_MODULE_NAME":
                    special.update(upd)
        if isinstance(st, ast.Assign) and _src(st.targets[0]) == "CONFIG_MAPPING_NAMES" \
                and _src(st.value).startswith("OrderedDict(**{'gpt-sw3'"):
            cfg_names = {"gpt-sw3": "GPT2Config", **cfg_names}
    model_names = {}
    p = os.path.join(tf, "models/auto/modeling_auto.py")
    d = _dict_literals(p, ("MODEL_MAPPING_NAMES", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"))
    model_names = d.get("MODEL_MAPPING_NAMES", {})
    causal_names = d.get("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", {})
    # activation names (ACT2FN keys) for the activation_fn_key validator
    acts = []
    p = os.path.join(tf, "activations.py")
    if os.path.exists(p):
        with open(p, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for st in tree.body:
            if isinstance(st, ast.Assign) and _src(st.targets[0]) == "ACT2CLS" and isinstance(st.value, ast.Dict):
                acts = [ast.literal_eval(k) for k in st.value.keys]
    return {"config_mapping_names": cfg_names, "special_model_type_to_module": special,
            "model_mapping_names": model_names, "causal_lm_mapping_names": causal_names, "act2fn": acts}


# --- drivers -----------------------------------------------------------------

def _fetch_wheel(dist: str, version: str) -> str:
    tmp = tempfile.mkdtemp(prefix=f"kvg-{dist}-")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, f"{dist}=={version}"],
                   check=True)
    whl = glob.glob(os.path.join(tmp, "*.whl"))[0]
    out = os.path.join(tmp, "src")
    with zipfile.ZipFile(whl) as z:
        z.extractall(out)
    return out


def extract_transformers(src: str, version: str) -> dict:
    tf = os.path.join(src, "transformers")
    files = [
        "configuration_utils.py",
        "modeling_rope_utils.py",
        "integrations/heterogeneity/configuration_utils.py",
        "utils/type_validators.py",
        "generation/configuration_utils.py",
    ]
    files += ["backbone_utils.py", "utils/backbone_utils.py"]
    files += sorted(os.path.relpath(p, tf) for p in glob.glob(os.path.join(tf, "models/*/configuration_*.py")))
    files += sorted(os.path.relpath(p, tf) for p in glob.glob(os.path.join(tf, "models/deprecated/*/configuration_*.py")))
    modules = {}
    for rel in files:
        p = os.path.join(tf, rel)
        if not os.path.exists(p):
            continue
        modname = "transformers." + rel[:-3].replace("/", ".")
        modules[modname] = translate_file(p, modname)
    return {"kind": "transformers", "version": version, "modules": modules, **transformers_tables(tf)}


def extract_vllm(src: str, version: str) -> dict:
    root = os.path.join(src, "vllm", "transformers_utils", "configs")
    modules = {}
    for p in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(p, src)[:-3].replace("/", ".")
        if rel.endswith(".__init__"):
            rel = rel[: -len(".__init__")]
        modules[rel] = translate_file(p, rel)
    # the registry itself (model_type -> class name) from transformers_utils/config.py
    reg = {}
    p = os.path.join(src, "vllm", "transformers_utils", "config.py")
    with open(p, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for st in ast.walk(tree):
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            tgt = st.targets[0] if isinstance(st, ast.Assign) else st.target
            if _src(tgt) == "_CONFIG_REGISTRY" and isinstance(st.value, ast.Call):
                for k in st.value.keywords:
                    if isinstance(k.value, ast.Constant):
                        reg[k.arg] = k.value.value
                if st.value.args and isinstance(st.value.args[0], ast.Dict):
                    for k, v in zip(st.value.args[0].keys, st.value.args[0].values):
                        if isinstance(k, ast.Constant) and isinstance(v, ast.Constant):
                            reg[k.value] = v.value
    return {"kind": "vllm", "version": version, "modules": modules, "config_registry": reg}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dist", choices=["transformers", "vllm"])
    ap.add_argument("version")
    ap.add_argument("--src", help="unpacked tree (site-packages) instead of downloading the wheel")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    src = args.src or _fetch_wheel(args.dist, args.version)
    data = extract_transformers(src, args.version) if args.dist == "transformers" else extract_vllm(src, args.version)
    out = args.out or os.path.join(OUT_DIR, f"{args.dist}-{args.version}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=False)
    n_unsup = sum(json.dumps(m).count('"unsupported"') for m in data["modules"].values())
    print(f"{out}: {len(data['modules'])} modules, {os.path.getsize(out) // 1024} KiB, "
          f"{n_unsup} unsupported statements")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
