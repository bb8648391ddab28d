#!/usr/bin/env python3
"""Maintenance tool: extract config-class data for :mod:`kvguard.hfconfig`.

Reads the *sources* (AST only, nothing is imported) of

* transformers: ``configuration_utils.py``, the RoPE / heterogeneity mixins,
  ``utils/type_validators.py`` and every ``models/*/configuration_*.py``;
* vLLM: ``vllm/transformers_utils/configs/**.py`` (vLLM's own config classes),
  the loader helpers of ``vllm/transformers_utils/config.py`` that act on the
  config object (``patch_rope_*``, ``patch_legacy_rope_type``,
  ``is_rope_parameters_nested``, ``_maybe_remap_hf_config_attrs``,
  ``get_hf_text_config`` and the model-type tables the loader consults) and
  ``getattr_iter`` from ``vllm/config/utils.py``,

and adds them to one of two content-addressed stores in ``kvguard/hfconfig/``:

* ``transformers.json``: ``{"versions": {VER: {"modules": {name: hash}, tables...}},
  "bodies": {hash: [offset, length] of its JSON text of [STATEMENT, ...] in transformers.bodies},
  "names": {hash: [top-level names]}}`` (format 3)
* ``vllm.json``: ``{"releases": {VER: {"modules": {name: hash}, "config_registry": {...},
  "transformers_classes": [...], "fingerprints": {...}}}, "bodies": {...}, "names": {...}}``

A module body that is identical in several versions is stored once (keyed by
the SHA-256 of its JSON text); each version lists the hash of every module it
has.  Bodies are JSON texts kept in a side file (``<store>.bodies``) so that
kvguard reads and decodes only the modules a load uses.
Each module becomes a list of statements in a small JSON statement language
(``["=", targets, expr]``, ``["if", test, body, orelse]``, ``["raise", exc]``
…) whose expressions are strings in a safe Python-expression subset that
:mod:`kvguard.hfconfig._interp` evaluates (names, attributes, arithmetic,
comparisons, calls of whitelisted builtins and of the extracted classes).
Logging and warnings calls, docstrings and comments are dropped.

The model-type tables (transformers ``CONFIG_MAPPING_NAMES``,
``MODEL_MAPPING_NAMES``) and the activation names are read from the sources
too (literal dicts).  ``fingerprints`` (vLLM) are hashes of the loader code
kvguard ports by hand (``HFConfigParser``, ``get_config``, the transformers
patches, ``with_retry``); ``kvguard/hfconfig/_load.py`` lists the variants it
was reviewed against and a test fails when a release brings a new one.

Usage::

    # from a wheel (downloads it, no dependencies):
    python tools/hfconfig_extract.py transformers 5.24.0
    python tools/hfconfig_extract.py vllm 0.28.0
    # from an unpacked tree / site-packages:
    python tools/hfconfig_extract.py transformers 4.57.6 --src /path/to/site-packages
    python tools/hfconfig_extract.py vllm 0.33.0 --src ~/.cache/kvguard-wheels/src/0.33.0
    # every release unpacked under a directory (<dir>/<ver>/vllm/...):
    python tools/hfconfig_extract.py vllm all --src-root ~/.cache/kvguard-wheels/src
    # drop a version from a store
    python tools/hfconfig_extract.py vllm 0.28.0 --remove
"""
from __future__ import annotations

import argparse
import ast
import glob
import hashlib
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


#: top-level names of vllm/transformers_utils/config.py that kvguard runs from the data (they act on the
#: config object; the rest of the loader is ported in kvguard/hfconfig/_load.py)
VLLM_LOADER_NAMES = (
    "patch_rope_scaling", "patch_rope_scaling_dict", "patch_rope_parameters", "patch_rope_parameters_dict",
    "patch_legacy_rope_type", "is_rope_parameters_nested", "set_default_rope_theta",
    "_maybe_remap_hf_config_attrs", "_CONFIG_ATTRS_MAPPING", "get_hf_text_config",
    "_maybe_update_auto_config_kwargs", "_AUTO_CONFIG_KWARGS_OVERRIDES", "_SPECULATIVE_DECODING_CONFIGS",
    "_PATCH_HF_VALIDATE_ROPE", "_PATCH_HF_NESTED_ROPE_VALIDATION", "_PATCH_HF_ALLOWED_LAYER_TYPES",
    "_ARCHITECTURE_TO_MODEL_TYPE",
)
#: loader code ported by hand: its normalised source is fingerprinted per release (see _load.REVIEWED)
VLLM_FINGERPRINTED = {
    "vllm/transformers_utils/config.py": (
        "HFConfigParser", "get_config", "LazyConfigDict", "_register_config_class",
        "_patch_hf_transformers_validate_rope", "_patch_hf_transformers_nested_rope_validation",
        "_patch_hf_transformers_allowed_layer_types", "_install_hf_config_validator"),
    "vllm/transformers_utils/repo_utils.py": ("with_retry",),
}


def _strip_docstrings(node):
    node = ast.parse(ast.unparse(node))  # a copy
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and n.body and \
                isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant) and \
                isinstance(n.body[0].value.value, str):
            n.body = n.body[1:] or [ast.Pass()]
    return node


def _fingerprint(node) -> str:
    text = ast.unparse(_strip_docstrings(node))
    for old, new in (("PreTrainedConfig", "PretrainedConfig"),):  # the transformers 5 class rename
        text = text.replace(old, new)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _bound_names(st) -> set:
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in st.names}
    if isinstance(st, ast.Try):
        out = set()
        for sub in st.body + [s for h in st.handlers for s in h.body]:
            out |= _bound_names(sub)
        return out
    return set()


def _select_module(path: str, modname: str, names) -> list:
    """The top-level statements of ``path`` defining ``names``, plus the imports they use."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    chosen = []
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)) and st.name in names:
            chosen.append(st)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            tgt = st.targets[0] if isinstance(st, ast.Assign) else st.target
            if isinstance(tgt, ast.Name) and tgt.id in names:
                chosen.append(st)
    used = {n.id for st in chosen for n in ast.walk(st) if isinstance(n, ast.Name)}
    imports = []
    for st in tree.body:
        if isinstance(st, (ast.Import, ast.ImportFrom)) or (
                isinstance(st, ast.Try) and all(isinstance(x, (ast.Import, ast.ImportFrom))
                                                for x in st.body + [s for h in st.handlers for s in h.body])):
            if _bound_names(st) & used:
                imports.append(st)
    mod = ast.Module(body=imports + chosen, type_ignores=[])
    package = modname.rsplit(".", 1)[0]
    return Translator(modname, package, False).module(mod)


def _registry(src: str) -> tuple[dict, set]:
    """``_CONFIG_REGISTRY`` (model_type -> class name) and the registry names imported from transformers."""
    p = os.path.join(src, "vllm", "transformers_utils", "config.py")
    with open(p, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = {}
    for st in tree.body:
        if isinstance(st, ast.ImportFrom) and st.level == 0 and st.module:
            for a in st.names:
                imported[a.asname or a.name] = st.module
    reg: dict = {}
    from_tf: set = set()

    def take(key, value):
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            reg[key] = value.value
        elif isinstance(value, ast.Name):
            reg[key] = value.id
            if imported.get(value.id, "").split(".")[0] == "transformers":
                from_tf.add(value.id)
        else:
            raise ValueError(f"registry entry {key!r}: unsupported value {ast.unparse(value)}")

    for st in tree.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            tgt = st.targets[0] if isinstance(st, ast.Assign) else st.target
            if _src(tgt) != "_CONFIG_REGISTRY":
                continue
            val = st.value
            if isinstance(val, ast.Call):
                for k in val.keywords:
                    if k.arg is not None:
                        take(k.arg, k.value)
                    elif isinstance(k.value, ast.Dict):
                        for kk, vv in zip(k.value.keys, k.value.values):
                            take(ast.literal_eval(kk), vv)
                    else:
                        raise ValueError(f"registry: unsupported **{ast.unparse(k.value)}")
                for a in val.args:
                    if isinstance(a, ast.Dict):
                        for kk, vv in zip(a.keys, a.values):
                            take(ast.literal_eval(kk), vv)
            elif isinstance(val, ast.Dict):
                for kk, vv in zip(val.keys, val.values):
                    take(ast.literal_eval(kk), vv)
    # classes vllm.transformers_utils.configs re-exports from transformers
    init = os.path.join(src, "vllm", "transformers_utils", "configs", "__init__.py")
    if os.path.exists(init):
        with open(init, encoding="utf-8") as f:
            itree = ast.parse(f.read())
        for st in itree.body:
            if isinstance(st, ast.ImportFrom) and st.level == 0 and (st.module or "").split(".")[0] == "transformers":
                from_tf.update(a.asname or a.name for a in st.names)
            if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Dict):
                for kk, vv in zip(st.value.keys, st.value.values):
                    if isinstance(kk, ast.Constant) and isinstance(vv, ast.Constant) and vv.value == "transformers":
                        from_tf.add(kk.value)
    return reg, from_tf


def _fingerprints(src: str) -> dict:
    out = {}
    for rel, names in VLLM_FINGERPRINTED.items():
        p = os.path.join(src, rel)
        if not os.path.exists(p):
            continue
        with open(p, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for st in tree.body:
            if isinstance(st, (ast.FunctionDef, ast.ClassDef)) and st.name in names:
                out[st.name] = _fingerprint(st)
    return out


def extract_vllm(src: str, version: str) -> dict:
    root = os.path.join(src, "vllm", "transformers_utils", "configs")
    modules = {}
    for p in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(p, src)[:-3].replace("/", ".")
        if rel.endswith(".__init__"):
            rel = rel[: -len(".__init__")]
        modules[rel] = translate_file(p, rel)
    modules["vllm.transformers_utils.config"] = _select_module(
        os.path.join(src, "vllm", "transformers_utils", "config.py"), "vllm.transformers_utils.config",
        VLLM_LOADER_NAMES)
    utils = os.path.join(src, "vllm", "config", "utils.py")
    if os.path.exists(utils):
        modules["vllm.config.utils"] = _select_module(utils, "vllm.config.utils", ("getattr_iter",))
    reg, from_tf = _registry(src)
    return {"kind": "vllm", "version": version, "modules": modules, "config_registry": reg,
            "transformers_classes": sorted(from_tf), "fingerprints": _fingerprints(src)}


# --- the content-addressed stores -------------------------------------------

STORES = {"transformers": "transformers.json", "vllm": "vllm.json"}
_VERSIONS_KEY = {"transformers": "versions", "vllm": "releases"}


def _vkey(v: str):
    return tuple(int(x) for x in v.split("."))


def _top_names(stmts) -> list:
    """The names a module body defines at top level (classes, functions, single-name assignments): the
    interpreter's index for package re-exports, so that it need not decode every body."""
    out = []
    for st in stmts:
        if st[0] in ("class", "def"):
            out.append(st[1]["name"])
        elif st[0] == "=" and len(st[1]) == 1 and st[1][0].isidentifier():
            out.append(st[1][0])
    return out


def _bodies_path(path: str) -> str:
    return os.path.splitext(path)[0] + ".bodies"


def read_store(dist: str, path: str | None = None) -> dict:
    """The store with every body as JSON text (format 3 keeps them in ``<store>.bodies``, indexed by
    ``[offset, length]``; format 2 inline)."""
    path = path or os.path.join(OUT_DIR, STORES[dist])
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            store = json.load(f)
        if store.get("format") == 3:
            with open(_bodies_path(path), "rb") as f:
                blob = f.read()
            store["bodies"] = {h: blob[off:off + n].decode("utf-8") for h, (off, n) in store["bodies"].items()}
        return store
    return {"kind": f"kvguard-hfconfig-{dist}", "format": 3, _VERSIONS_KEY[dist]: {}, "bodies": {}, "names": {}}


def add_to_store(store: dict, dist: str, data: dict) -> None:
    """Bodies are stored as JSON text (decoded lazily, per module, by kvguard) keyed by its SHA-256."""
    key = _VERSIONS_KEY[dist]
    entry = {k: v for k, v in data.items() if k not in ("kind", "version", "modules")}
    mods = {}
    store.setdefault("names", {})
    for name, stmts in data["modules"].items():
        text = json.dumps(stmts, separators=(",", ":"))
        h = hashlib.sha256(text.encode()).hexdigest()[:16]
        store["bodies"].setdefault(h, text)
        store["names"][h] = _top_names(stmts)
        mods[name] = h
    store[key][data["version"]] = {"modules": mods, **entry}


def write_store(store: dict, dist: str, path: str | None = None) -> str:
    key = _VERSIONS_KEY[dist]
    used = {h for e in store[key].values() for h in e["modules"].values()}
    texts = {h: store["bodies"][h] for h in sorted(used)}
    store["names"] = {h: store["names"][h] for h in sorted(used)}
    store["format"] = 3
    store[key] = {v: store[key][v] for v in sorted(store[key], key=_vkey)}
    path = path or os.path.join(OUT_DIR, STORES[dist])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # bodies: one file of concatenated UTF-8 texts, indexed by [offset, length] in the JSON store
    index, chunks, offset = {}, [], 0
    for h, text in texts.items():
        data = text.encode("utf-8")
        index[h] = [offset, len(data)]
        chunks.append(data)
        offset += len(data)
    with open(_bodies_path(path), "wb") as f:
        f.write(b"".join(chunks))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({**store, "bodies": index}, f, separators=(",", ":"))
    store["bodies"] = texts
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dist", choices=["transformers", "vllm"])
    ap.add_argument("version", help="a version, or 'all' with --src-root")
    ap.add_argument("--src", help="unpacked tree (site-packages) instead of downloading the wheel")
    ap.add_argument("--src-root", help="directory of unpacked trees, one per version (<root>/<ver>/...)")
    ap.add_argument("--store", default=None, help="store file (default kvguard/hfconfig/<dist>.json)")
    ap.add_argument("--remove", action="store_true", help="drop the version from the store")
    ap.add_argument("--dump", default=None, help="also write the plain (unshared) extraction to this file")
    args = ap.parse_args(argv)
    store = read_store(args.dist, args.store)
    if args.remove:
        store[_VERSIONS_KEY[args.dist]].pop(args.version, None)
        print(write_store(store, args.dist, args.store))
        return 0
    if args.version == "all":
        if not args.src_root:
            ap.error("'all' needs --src-root")
        jobs = [(v, os.path.join(args.src_root, v)) for v in sorted(os.listdir(args.src_root), key=_vkey)]
    else:
        src = args.src or (os.path.join(args.src_root, args.version) if args.src_root else None) \
            or _fetch_wheel(args.dist, args.version)
        jobs = [(args.version, src)]
    extract = extract_transformers if args.dist == "transformers" else extract_vllm
    for ver, src in jobs:
        data = extract(src, ver)
        n_unsup = sum(json.dumps(m).count('"unsupported"') for m in data["modules"].values())
        add_to_store(store, args.dist, data)
        if args.dump:
            with open(args.dump, "w", encoding="utf-8") as f:
                json.dump(data, f, separators=(",", ":"))
        print(f"{args.dist} {ver}: {len(data['modules'])} modules, {n_unsup} unsupported statements")
    out = write_store(store, args.dist, args.store)
    print(f"{out}: {len(store[_VERSIONS_KEY[args.dist]])} versions, {len(store['bodies'])} module bodies, "
          f"{os.path.getsize(out) // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
