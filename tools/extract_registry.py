#!/usr/bin/env python3
"""Extract vLLM's model-registry facts statically, for every supported release.

How to add a new vLLM release
-----------------------------
1. Append the version to ``RELEASES`` below (keep the list ordered).
2. Run ``python tools/extract_registry.py --all -o kvguard/data/archs.json`` (it writes
   ``registry_order.json`` beside it: each release's registry order).
   Wheels that are not cached yet are fetched with
   ``pip download --no-deps --only-binary=:all: vllm==X`` into ``--cache``
   (default ``~/.cache/kvguard-wheels``); only ``vllm/**/*.py`` is kept, under
   ``CACHE/src/X/``, and the wheel is deleted (``--keep-wheels`` keeps it).
   Already extracted releases are reused, so a rerun only costs the analysis
   (a few seconds per release).
3. Read the summary printed on stderr: per release, the number of registered
   architectures, of ``supports_pp`` ones, and of *unresolved* ones. Anything
   unresolved is listed in ``archs.json["unresolved"]`` with its reason; look at
   it in that release's source (``CACHE/src/X/vllm/...``) and extend this script
   (``KNOWN_EXTERNALS``, ``HARMLESS_DECORATORS``, the evaluator) rather than
   hand-editing the JSON.
4. If the release changed ``interfaces.py`` (``supports_pp``,
   ``_supports_pp_attributes``, ``_SupportsPPType``), ``registry.py``
   (``_normalize_arch``, ``inspect_model_cls``, the ``_..._MODELS`` dicts or how
   ``ModelRegistry`` is built) or ``config/model.py`` (``_SUFFIX_TO_DEFAULTS``,
   ``try_match_architecture_defaults``), the per-release ``fingerprints`` printed
   with ``--dump X`` change: re-read those functions and update the evaluator.
5. Check against the real registry (see tools/check_registry_oracle.py): with an
   oracle venv of the release, ``HF_HUB_OFFLINE=1 ORACLE_PY
   tools/check_registry_oracle.py [--stub-missing]``; without one, run the
   release's extracted sources on a neighbouring oracle venv (weaker, the
   "transplanted" oracle)::

       PYTHONPATH=~/.cache/kvguard-wheels/src/X HF_HUB_OFFLINE=1 \
           ORACLE_ROOT/0.28.0/bin/python tools/check_registry_oracle.py \
           --version X --stub-missing --no-e2e

   Every inspected architecture must agree on every flag.

archs.json
----------
``releases``: the release list; every range below is an inclusive
``[first, last]`` pair over it. ``archs[NAME]``: ``registered`` and one range
list per flag in ``flags`` (a flag may switch on and off), ``impl``
(``[first, last, "module:Class"]``, module relative to
vllm.model_executor.models unless fully qualified) and ``group`` (which
``_..._MODELS`` dicts hold the name). ``suffixes``: ``_SUFFIX_TO_DEFAULTS`` rows
``[suffix, runner, convert]`` in order, plus ``_RUNNER_CONVERTS``.
``previously_supported`` / ``oot_supported``: ``[first, last, value]``.
``transformers_backend``: names of ``_TRANSFORMERS_BACKEND_MODELS`` (what
``_try_resolve_transformers`` can return). ``pp_rules``: how ``supports_pp``
is decided per release. ``fingerprints``: hashes of the upstream functions the
rules mirror (a change means: re-read them). ``unresolved``: per architecture
and flag, ``[first, last, reason]`` for what the analysis could not decide
(those flags are left out of the ranges; treat them as unknown).

How vLLM turns ``config.json`` ``architectures`` into these flags
(``_ModelRegistry.inspect_model_cls``, the same in every release 0.10.2-0.33.0):
with ``model_impl="auto"``, (a) if no listed architecture is registered and
``convert_type == "none"``, the Transformers backend is tried first
(``getattr(transformers, arch)`` or the config's ``auto_map``, then
``is_backend_compatible()``; it yields one of the ``Transformers*`` classes,
which all support PP); (b) otherwise, for each architecture in order,
``_normalize_arch``: a registered name is itself, else the first suffix of the
table matching it (filtered by the runner/convert type) is replaced by each
table suffix in order and the first registered result is used; the first hit
wins; (c) the Transformers backend again; (d) ``_raise_for_unsupported``
(``previously_supported`` / ``oot_supported`` messages, else "not supported").
Module selection that depends on the platform (``current_platform.is_rocm()``
in module ``__getattr__`` or module-level ``if``) is evaluated for CUDA.

What it computes
----------------
For each release: every architecture name registered in
``vllm/model_executor/models/registry.py`` (all module-level ``_..._MODELS``
dicts merged into ``_VLLM_MODELS``, which builds ``ModelRegistry``), the
``(module, class)`` it points at, and, by resolving the class and its bases
through vLLM's own sources (imports, aliases, re-exports, ``as_*`` adapter
functions that build classes, class decorators), the flags
``_ModelInfo.from_model_cls`` would compute:

* ``supports_pp``: ``interfaces.supports_pp(cls)`` = ``_supports_pp_attributes``
  (``isinstance(cls, _SupportsPPType)``, a runtime protocol check that only tests
  that ``supports_pp``, ``make_empty_intermediate_tensors`` and ``forward`` exist
  as class attributes; from 0.28.0 also true when ``SupportsPP`` is in the MRO)
  **and** ``_supports_pp_inspect`` (the ``forward`` found through the MRO accepts
  an ``intermediate_tensors`` keyword, or ends in ``**kwargs``).
* ``is_attention_free``, ``is_hybrid``, ``has_inner_state``,
  ``supports_multimodal``: ``getattr(cls, name, False)`` through the MRO.
* ``supports_lora``: ``interfaces.supports_lora(cls)`` = ``isinstance(cls, _SupportsLoRAType)``, a runtime protocol
  check that only tests that the protocol's members (``supports_lora``, ``packed_modules_mapping``,
  ``embedding_modules``; ``embedding_padding_modules`` too to 0.11.2) exist as class attributes
  (``pp_rules``' ``lora_protocol_attrs``).
* ``is_pooling_model`` / ``is_text_generation_model``: ``is_vllm_model`` (init
  takes ``vllm_config``, ``forward`` takes ``input_ids`` and ``positions``, the
  release's embedding method exists) and the pooling flag / ``compute_logits``.

Plus, per release: the suffix table used by ``_normalize_arch`` /
``try_match_architecture_defaults`` / ``iter_architecture_defaults``
(``_SUFFIX_TO_DEFAULTS``), ``_RUNNER_CONVERTS``, ``_PREVIOUSLY_SUPPORTED_MODELS``
and ``_OOT_SUPPORTED_MODELS``.

Usage::

    python tools/extract_registry.py --all -o kvguard/data/archs.json
    python tools/extract_registry.py --dump 0.28.0 > /tmp/0.28.0.json   # one release, full detail
    python tools/extract_registry.py 0.20.0 0.28.0 -o /tmp/two.json

Standard library only; never imports vLLM.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

#: every release of kvguard's manifest
RELEASES = [row["version"] for row in json.loads(
    (Path(__file__).resolve().parents[1] / "kvguard" / "data" / "releases.json").read_text())["releases"]]

FLAGS = (
    "supports_pp",
    "is_attention_free",
    "is_hybrid",
    "has_inner_state",
    "supports_multimodal",
    "is_pooling_model",
    "is_text_generation_model",
    "supports_mamba_prefix_caching",
    "supports_lora",
)
# getattr(cls, NAME, False) flags of _ModelInfo.from_model_cls (supports_mamba_prefix_caching: 0.15.0+, read by
# MambaModelConfig's cache set-up, kvguard/rules/mamba_cache.py)
GETATTR_FLAGS = ("is_attention_free", "is_hybrid", "has_inner_state", "supports_multimodal",
                 "supports_mamba_prefix_caching")
# attributes whose post-hoc modification (decorator, module-level assignment)
# would change an answer
SENSITIVE = set(GETATTR_FLAGS) | {
    "supports_pp", "make_empty_intermediate_tensors", "forward", "is_pooling_model",
    "compute_logits", "embed_input_ids", "get_input_embeddings",
    "supports_lora", "packed_modules_mapping", "embedding_modules", "embedding_padding_modules",
}

# Classes outside vLLM that show up in model MROs. Value: the attributes the
# analysis needs from them (name -> description). Anything not listed is
# assumed absent. Unknown externals are reported.
NN_MODULE = {"forward": ("varargs",), "__init__": ("any",)}
KNOWN_EXTERNALS = {
    "torch.nn.Module": NN_MODULE,
    "torch.nn.modules.module.Module": NN_MODULE,
    "builtins.object": {},
    "typing.Protocol": {},
    "typing_extensions.Protocol": {},
    "typing.Generic": {},
    "abc.ABC": {},
}
# externals that subclass nn.Module (forward given by the subclass or nn.Module)
EXTERNAL_MODULE_SUBCLASSES = {"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"}

# `current_platform.is_xxx()` as seen on the CUDA platform kvguard predicts for
PLATFORM_PREDICATES = {
    "is_cuda": True, "is_cuda_alike": True, "is_rocm": False, "is_tpu": False,
    "is_xpu": False, "is_cpu": False, "is_out_of_tree": False,
}

# class decorators known not to touch the attributes above (checked once by hand;
# vLLM-defined decorators are also scanned automatically)
HARMLESS_DECORATORS = {
    "register_processor",  # MULTIMODAL_REGISTRY.register_processor(...)
    "support_torch_compile",  # wraps __init__/__call__, appends a base at the end
    "default_pooling_type",  # sets default_*_pooling_type
    "attn_type",  # sets attn_type
    "dataclass",
    "runtime_checkable",  # typing: marks a Protocol runtime-checkable
    "final",
}


# ----------------------------------------------------------------------------
# fetching
# ----------------------------------------------------------------------------

def ensure_release(version: str, cache: str, keep_wheels: bool = False) -> str:
    """Return CACHE/src/VERSION (holding vllm/**/*.py), downloading if needed."""
    src = os.path.join(cache, "src", version)
    if os.path.isfile(os.path.join(src, ".ok")):
        return src
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    found = [f for f in os.listdir(wheels) if f.startswith(f"vllm-{version}-") and f.endswith(".whl")]
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
               f"vllm=={version}", "-d", wheels]
        print(f"[extract_registry] {' '.join(cmd)}", file=sys.stderr)
        subprocess.run(cmd, check=True)
        found = [f for f in os.listdir(wheels) if f.startswith(f"vllm-{version}-") and f.endswith(".whl")]
    if not found:
        raise SystemExit(f"no wheel for vllm=={version}")
    whl = os.path.join(wheels, sorted(found)[0])
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            if info.filename.startswith("vllm/") and info.filename.endswith(".py"):
                z.extract(info, src)
    with open(os.path.join(src, ".ok"), "w") as f:
        f.write(os.path.basename(whl) + "\n")
    if not keep_wheels:
        os.remove(whl)
    return src


# ----------------------------------------------------------------------------
# values of the little static evaluator
# ----------------------------------------------------------------------------

class Unresolved:
    def __init__(self, reason):
        self.reason = reason

    def __repr__(self):
        return f"Unresolved({self.reason})"


class External:
    """Something outside vLLM: a module or an attribute of one."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"External({self.name})"


class ModuleRef:
    def __init__(self, name):
        self.name = name


class Const:
    def __init__(self, value):
        self.value = value


class FuncRef:
    def __init__(self, node, scope, qualname):
        self.node = node
        self.scope = scope  # Scope the function was defined in
        self.qualname = qualname


class ClassRef:
    def __init__(self, node, scope, qualname):
        self.node = node
        self.scope = scope
        self.qualname = qualname
        self._members = None
        self.extra = {}  # attr -> (value expr, scope) from module-level "Cls.attr = v"
        self.notes = []

    def __repr__(self):
        return f"ClassRef({self.qualname})"


class Scope:
    """Name resolution: function locals (dict of Values) chained to a module."""

    def __init__(self, module, local=None, parent=None, fname=None):
        self.module = module
        self.local = local
        self.parent = parent
        self.fname = fname


# ----------------------------------------------------------------------------
# modules
# ----------------------------------------------------------------------------

def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _platform_test(test):
    """`current_platform.is_xxx()` / `not ...` on the CUDA platform, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = _platform_test(test.operand)
        return None if v is None else not v
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
            and test.func.attr in PLATFORM_PREDICATES and not test.args
            and ast.unparse(test.func.value).endswith("current_platform")):
        return PLATFORM_PREDICATES[test.func.attr]
    return None


class Module:
    def __init__(self, name, path, is_pkg):
        self.name = name
        self.path = path
        self.is_pkg = is_pkg
        with open(path, encoding="utf-8") as f:
            self.source = f.read()
        self.tree = ast.parse(self.source)
        self.bindings = {}
        self.stars = []
        self.post_attrs = []  # (target expr, attr, value expr)
        self.has_getattr = False
        self.platform_ifs = []
        self._collect(self.tree.body, only_new=False)

    def absolute(self, mod, level):
        if not level:
            return mod
        parts = self.name.split(".")
        if not self.is_pkg:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        return f"{base}.{mod}" if mod else base

    def _bind(self, name, binding, only_new):
        if only_new and name in self.bindings:
            return
        prev = self.bindings.get(name)
        if binding[0] == "expr":
            binding = binding + (prev,)
        self.bindings[name] = binding

    def _collect(self, stmts, only_new):
        for st in stmts:
            if isinstance(st, ast.ClassDef):
                self._bind(st.name, ("class", st), only_new)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if st.name == "__getattr__":
                    self.has_getattr = True
                self._bind(st.name, ("func", st), only_new)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        self._bind(a.asname, ("module", a.name), only_new)
                    else:
                        top = a.name.split(".")[0]
                        self._bind(top, ("module", top), only_new)
            elif isinstance(st, ast.ImportFrom):
                mod = self.absolute(st.module, st.level)
                for a in st.names:
                    if a.name == "*":
                        self.stars.append(mod)
                    else:
                        self._bind(a.asname or a.name, ("from", mod, a.name), only_new)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if st.value is None:
                    continue
                for t in targets:
                    if isinstance(t, ast.Name):
                        self._bind(t.id, ("expr", st.value), only_new)
                    elif isinstance(t, ast.Attribute):
                        self.post_attrs.append((t.value, t.attr, st.value))
            elif isinstance(st, ast.If):
                pt = _platform_test(st.test)
                if _is_type_checking(st.test):
                    self._collect(st.orelse, only_new)
                elif pt is not None:
                    self.platform_ifs.append(st.lineno)
                    self._collect(st.body if pt else st.orelse, only_new)
                else:
                    self._collect(st.body, only_new)
                    self._collect(st.orelse, True)
            elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
                self._collect(st.body, only_new)
                for h in st.handlers:
                    self._collect(h.body, True)
                self._collect(st.orelse, only_new)
                self._collect(st.finalbody, only_new)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                self._collect(st.body, only_new)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                f = st.value.func
                if isinstance(f, ast.Name) and f.id == "setattr" and st.value.args:
                    a1 = st.value.args[1] if len(st.value.args) > 1 else None
                    if isinstance(a1, ast.Constant):
                        self.post_attrs.append((st.value.args[0], a1.value, st.value.args[2]
                                                if len(st.value.args) > 2 else ast.Constant(None)))


# ----------------------------------------------------------------------------
# the analysis of one release
# ----------------------------------------------------------------------------

def _strip_doc(node):
    node = ast.parse(ast.unparse(node)).body[0]
    for x in ast.walk(node):
        body = getattr(x, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            x.body = body[1:] or [ast.Pass()]
    return node


def fingerprint(node):
    return hashlib.sha1(ast.dump(_strip_doc(node), annotate_fields=False).encode()).hexdigest()[:8]


class Release:
    def __init__(self, version, root):
        self.version = version
        self.root = root
        self._mods = {}
        self._class_cache = {}
        self._call_cache = {}
        self._mro_cache = {}
        self._post_applied = set()
        self.notes = []
        self._read_rules()

    # --- modules ---------------------------------------------------------
    def module(self, name):
        if name in self._mods:
            return self._mods[name]
        m = None
        if name == "vllm" or name.startswith("vllm."):
            p = os.path.join(self.root, *name.split("."))
            if os.path.isfile(p + ".py"):
                m = Module(name, p + ".py", False)
            elif os.path.isfile(os.path.join(p, "__init__.py")):
                m = Module(name, os.path.join(p, "__init__.py"), True)
        self._mods[name] = m
        if m is not None:
            self._apply_post_attrs(m)
        return m

    def module_exists(self, name):
        p = os.path.join(self.root, *name.split("."))
        return os.path.isfile(p + ".py") or os.path.isfile(os.path.join(p, "__init__.py"))

    def _apply_post_attrs(self, m):
        for target, attr, value in m.post_attrs:
            if attr not in SENSITIVE:
                continue
            v = self.eval(target, Scope(m))
            if isinstance(v, ClassRef):
                v.extra[attr] = (value, Scope(m))
            else:
                self.notes.append(f"{m.name}: module-level assignment to .{attr} on {ast.unparse(target)}")

    # --- name lookup -------------------------------------------------------
    def lookup(self, modname, name, depth=0):
        if depth > 40:
            return Unresolved(f"import cycle at {modname}.{name}")
        if not (modname == "vllm" or modname.startswith("vllm.")):
            return External(f"{modname}.{name}")
        m = self.module(modname)
        if m is None:
            return Unresolved(f"module {modname} not found")
        b = m.bindings.get(name)
        if b is not None:
            return self.eval_binding(m, name, b, depth)
        for star in m.stars:
            v = self.lookup(star, name, depth + 1)
            if not isinstance(v, Unresolved):
                return v
        if m.is_pkg and self.module_exists(f"{modname}.{name}"):
            return ModuleRef(f"{modname}.{name}")
        if m.has_getattr:
            # PEP 562 module __getattr__ (lazy / platform-dependent re-exports):
            # evaluate it symbolically for this name, on the CUDA platform
            b = m.bindings.get("__getattr__")
            if b and b[0] == "func":
                v = self.call(FuncRef(b[1], Scope(m), f"{modname}.__getattr__"), [Const(name)], {})
                if not isinstance(v, Unresolved):
                    self.notes.append(f"{modname}.{name} resolved through the module __getattr__ "
                                      "(CUDA platform assumed)")
                    return v
                return Unresolved(f"{modname}.{name} comes from a module __getattr__: {v.reason}")
            return Unresolved(f"{modname}.{name} comes from a module __getattr__")
        return Unresolved(f"{name} not found in {modname}")

    def eval_binding(self, m, name, b, depth=0):
        kind = b[0]
        if kind == "class":
            return self._classref(b[1], Scope(m), f"{m.name}.{b[1].name}")
        if kind == "func":
            return FuncRef(b[1], Scope(m), f"{m.name}.{b[1].name}")
        if kind == "module":
            if b[1] == "vllm" or b[1].startswith("vllm."):
                return ModuleRef(b[1])
            return External(b[1])
        if kind == "from":
            mod, attr = b[1], b[2]
            if not (mod == "vllm" or mod.startswith("vllm.")):
                return External(f"{mod}.{attr}")
            pm = self.module(mod)
            if pm is not None and (attr in pm.bindings or pm.stars):
                v = self.lookup(mod, attr, depth + 1)
                if not isinstance(v, Unresolved) or not self.module_exists(f"{mod}.{attr}"):
                    return v
            if self.module_exists(f"{mod}.{attr}"):
                return ModuleRef(f"{mod}.{attr}")
            return self.lookup(mod, attr, depth + 1)
        if kind == "expr":
            expr, prev = b[1], b[2]
            return self.eval(expr, Scope(m), shadow=(name, prev))
        return Unresolved(f"binding kind {kind}")

    def _classref(self, node, scope, qualname, key=None):
        key = key or (qualname, node.lineno)
        c = self._class_cache.get(key)
        if c is None:
            c = ClassRef(node, scope, qualname)
            self._class_cache[key] = c
        return c

    # --- expressions ------------------------------------------------------------
    def resolve_name(self, name, scope, shadow=None):
        s = scope
        while s is not None and s.local is not None:
            if name in s.local:
                return s.local[name]
            s = s.parent
        m = scope.module
        if shadow and shadow[0] == name:
            prev = shadow[1]
            if prev is None:
                return Unresolved(f"{name} used before definition")
            return self.eval_binding(m, name, prev)
        if name in m.bindings or m.stars:
            v = self.lookup(m.name, name)
            if not (isinstance(v, Unresolved) and name not in m.bindings):
                return v
        import builtins
        if hasattr(builtins, name):
            return External(f"builtins.{name}")
        return Unresolved(f"name {name} not found in {m.name}")

    def eval(self, e, scope, shadow=None):
        if isinstance(e, ast.Name):
            return self.resolve_name(e.id, scope, shadow)
        if isinstance(e, ast.Attribute):
            base = self.eval(e.value, scope, shadow)
            if isinstance(base, ModuleRef):
                return self.lookup(base.name, e.attr)
            if isinstance(base, External):
                return External(f"{base.name}.{e.attr}")
            if isinstance(base, ClassRef):
                found = self.find_attr(base, e.attr)
                if found is None:
                    return Unresolved(f"{base.qualname}.{e.attr} not found")
                if isinstance(found, Unresolved):
                    return found
                _owner, kind, val, vscope = found
                if kind == "func":
                    return FuncRef(val, vscope, f"{_owner}.{e.attr}")
                if kind == "class":
                    return self._classref(val, vscope, f"{_owner}.{e.attr}")
                if kind == "expr":
                    return self.eval(val, vscope)
                return Unresolved(f"{base.qualname}.{e.attr}: {kind}")
            return base if isinstance(base, Unresolved) else Unresolved(
                f"attribute {e.attr} of {type(base).__name__}")
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Dict):  # {"A": A, "B": B}[name]
                key = self.eval(e.slice, scope, shadow)
                if not isinstance(key, Const):
                    return Unresolved(f"dict lookup with non-constant key {ast.unparse(e.slice)}")
                for k, v in zip(e.value.keys, e.value.values):
                    if isinstance(k, ast.Constant) and k.value == key.value:
                        return self.eval(v, scope, shadow)
                return Unresolved(f"key {key.value!r} not in dict literal")
            return self.eval(e.value, scope, shadow)  # Generic[T], Base[X] -> the class
        if isinstance(e, ast.Constant):
            return Const(e.value)
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            vals = [self.eval(x, scope, shadow) for x in e.elts]
            if all(isinstance(x, Const) for x in vals):
                return Const(tuple(x.value for x in vals))
            return Unresolved("non-constant sequence")
        if isinstance(e, ast.Compare) and len(e.ops) == 1:
            left = self.eval(e.left, scope, shadow)
            right = self.eval(e.comparators[0], scope, shadow)
            if isinstance(left, Const) and isinstance(right, Const):
                op = e.ops[0]
                try:
                    if isinstance(op, ast.Eq):
                        return Const(left.value == right.value)
                    if isinstance(op, ast.NotEq):
                        return Const(left.value != right.value)
                    if isinstance(op, ast.In):
                        return Const(left.value in right.value)
                    if isinstance(op, ast.NotIn):
                        return Const(left.value not in right.value)
                except TypeError:
                    pass
            return Unresolved(f"comparison {ast.unparse(e)[:60]}")
        if isinstance(e, ast.Call):
            f = self.eval(e.func, scope, shadow)
            if isinstance(f, FuncRef):
                args = [self.eval(a, scope, shadow) for a in e.args]
                kwargs = {k.arg: self.eval(k.value, scope, shadow) for k in e.keywords if k.arg}
                return self.call(f, args, kwargs)
            if isinstance(f, External) and f.name in ("typing.cast", "builtins.cast"):
                return self.eval(e.args[1], scope, shadow)
            if isinstance(f, External) and f.name == "builtins.getattr" and len(e.args) == 2:
                obj = self.eval(e.args[0], scope, shadow)
                attr = self.eval(e.args[1], scope, shadow)
                if isinstance(obj, ModuleRef) and isinstance(attr, Const) and isinstance(attr.value, str):
                    return self.lookup(obj.name, attr.value)
            if isinstance(e.func, ast.Attribute) and e.func.attr in PLATFORM_PREDICATES and not e.args:
                base = ast.unparse(e.func.value)
                if base.endswith("current_platform"):
                    return Const(PLATFORM_PREDICATES[e.func.attr])
            return Unresolved(f"call of {ast.unparse(e.func)} ({type(f).__name__})")
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            v = self.eval(e.operand, scope, shadow)
            return Const(not v.value) if isinstance(v, Const) else Unresolved("not of non-constant")
        return Unresolved(f"unsupported expression {ast.unparse(e)[:60]}")

    # --- calling functions that build classes ---------------------------------------
    def call(self, f, args, kwargs):
        key = (f.qualname, f.node.lineno, tuple(self._vkey(a) for a in args),
               tuple(sorted((k, self._vkey(v)) for k, v in kwargs.items())))
        if key in self._call_cache:
            return self._call_cache[key]
        self._call_cache[key] = Unresolved(f"recursive call of {f.qualname}")
        local = {}
        a = f.node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        for p, v in zip(params, args):
            local[p] = v
        for k, v in kwargs.items():
            local[k] = v
        # defaults
        defaults = a.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            local.setdefault(p, self.eval(d, f.scope))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                local.setdefault(p.arg, self.eval(d, f.scope))
        scope = Scope(f.scope.module, local, f.scope if f.scope.local is not None else None,
                      fname=f"{f.qualname}{key[2]}")
        rets = self._exec(f.node.body, scope, f)
        if not rets:
            res = Unresolved(f"{f.qualname} returns nothing evaluable")
        elif len(rets) == 1:
            res = rets[0]
        else:
            keys = {self._vkey(r) for r in rets}
            res = rets[-1] if len(keys) == 1 else Unresolved(
                f"{f.qualname} has several possible results ({', '.join(sorted(map(str, keys)))})")
        self._call_cache[key] = res
        return res

    def _vkey(self, v):
        if isinstance(v, ClassRef):
            return ("class", v.qualname, v.node.lineno)
        if isinstance(v, FuncRef):
            return ("func", v.qualname)
        if isinstance(v, External):
            return ("ext", v.name)
        if isinstance(v, ModuleRef):
            return ("mod", v.name)
        if isinstance(v, Const):
            return ("const", repr(v.value))
        return ("unresolved", getattr(v, "reason", "?"))

    def _exec(self, stmts, scope, f):
        """Execute a function body symbolically; return the possible return values
        (stops at the first definite return)."""
        rets = []
        for st in stmts:
            if isinstance(st, ast.Return):
                rets.append(self.eval(st.value, scope) if st.value else Const(None))
                return rets
            if isinstance(st, ast.Raise):
                return rets
            if isinstance(st, ast.ClassDef):
                key = (scope.fname, st.name, st.lineno)
                scope.local[st.name] = self._classref(st, scope, f"{scope.fname}.{st.name}", key=key)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scope.local[st.name] = FuncRef(st, scope, f"{f.qualname}.{st.name}")
            elif isinstance(st, ast.ImportFrom):
                mod = scope.module.absolute(st.module, st.level)
                for a in st.names:
                    scope.local[a.asname or a.name] = self.eval_binding(
                        scope.module, a.name, ("from", mod, a.name))
            elif isinstance(st, ast.Import):
                for a in st.names:
                    nm = a.asname or a.name.split(".")[0]
                    tgt = a.name if a.asname else a.name.split(".")[0]
                    scope.local[nm] = ModuleRef(tgt) if tgt.startswith("vllm") else External(tgt)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if st.value is None:
                    continue
                for t in targets:
                    if isinstance(t, ast.Name):
                        scope.local[t.id] = self.eval(st.value, scope)
                    elif isinstance(t, ast.Attribute) and t.attr in SENSITIVE:
                        tv = self.eval(t.value, scope)
                        if isinstance(tv, ClassRef):
                            tv.extra[t.attr] = (st.value, scope)
            elif isinstance(st, ast.If):
                cond = self.eval_cond(st.test, scope)
                if cond is True:
                    r = self._exec(st.body, scope, f)
                    if r:
                        return rets + r
                elif cond is False:
                    r = self._exec(st.orelse, scope, f)
                    if r:
                        return rets + r
                else:
                    rets += self._exec(st.body, scope, f)
                    rets += self._exec(st.orelse, scope, f)
        return rets

    def eval_cond(self, test, scope):
        if isinstance(test, (ast.Compare, ast.Constant)) or (
                isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
                and test.func.attr in PLATFORM_PREDICATES):
            v = self.eval(test, scope)
            return bool(v.value) if isinstance(v, Const) else None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            v = self.eval_cond(test.operand, scope)
            return None if v is None else (not v)
        if isinstance(test, ast.BoolOp):
            vals = [self.eval_cond(v, scope) for v in test.values]
            if isinstance(test.op, ast.And):
                if any(v is False for v in vals):
                    return False
                return True if all(v is True for v in vals) else None
            if any(v is True for v in vals):
                return True
            return False if all(v is False for v in vals) else None
        if isinstance(test, ast.Call) and len(test.args) == 1 and isinstance(test.func, ast.Name):
            fname = test.func.id
            arg = self.eval(test.args[0], scope)
            if isinstance(arg, ClassRef):
                pred = {
                    "is_pooling_model": "is_pooling_model",
                    "supports_multimodal": "supports_multimodal",
                    "is_attention_free": "is_attention_free",
                    "is_hybrid": "is_hybrid",
                    "has_inner_state": "has_inner_state",
                    "supports_pp": "supports_pp",
                    "is_text_generation_model": "is_text_generation_model",
                }.get(fname)
                if pred:
                    r = self.flags(arg)
                    v = r["flags"].get(pred)
                    return v if isinstance(v, bool) else None
        return None

    # --- classes ----------------------------------------------------------------------
    def members(self, c):
        """Attributes a class body defines: name -> (kind, value, scope)."""
        if c._members is not None:
            return c._members
        mem = {}
        body_scope = c.scope

        def walk(stmts):
            for st in stmts:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    mem[st.name] = ("func", st, body_scope)
                elif isinstance(st, ast.ClassDef):
                    mem[st.name] = ("class", st, body_scope)
                elif isinstance(st, ast.Assign):
                    for t in st.targets:
                        if isinstance(t, ast.Name):
                            mem[t.id] = ("expr", st.value, body_scope)
                        elif isinstance(t, ast.Tuple):
                            for el in t.elts:
                                if isinstance(el, ast.Name):
                                    mem[el.id] = ("opaque", None, body_scope)
                elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    if st.value is not None:
                        mem[st.target.id] = ("expr", st.value, body_scope)
                elif isinstance(st, ast.If):
                    c.notes.append(f"conditional class body at line {st.lineno}")
                    walk(st.body)
                    walk(st.orelse)
        walk(c.node.body)
        for attr, (val, sc) in c.extra.items():
            mem[attr] = ("expr", val, sc)
        c._members = mem
        return mem

    def bases(self, c):
        out = []
        for b in c.node.bases:
            v = self.eval(b, c.scope)
            out.append(v)
        return out

    def mro(self, c):
        """C3 linearisation; elements are ClassRef or External (leaf)."""
        key = id(c)
        if key in self._mro_cache:
            return self._mro_cache[key]
        self._mro_cache[key] = None  # cycle guard
        seqs = []
        problems = []
        for b in self.bases(c):
            if isinstance(b, ClassRef):
                sub = self.mro(b)
                if sub is None:
                    problems.append(f"cyclic base {b.qualname}")
                    continue
                seqs.append(list(sub[0]))
                problems += sub[1]
            elif isinstance(b, External):
                seqs.append([b])
            else:
                where = ast.unparse(c.node.bases[len(seqs)] if len(seqs) < len(c.node.bases) else c.node)[:50]
                why = b.reason if isinstance(b, Unresolved) else type(b).__name__
                problems.append(f"base {where} of {c.qualname}: {why}")
        seqs.append([x for x in (s[0] for s in seqs)])

        def same(x, y):
            if isinstance(x, External) and isinstance(y, External):
                return x.name == y.name
            return x is y

        result = [c]
        seqs = [s for s in seqs if s]
        while seqs:
            for s in seqs:
                cand = s[0]
                if not any(any(same(cand, y) for y in t[1:]) for t in seqs):
                    break
            else:
                problems.append(f"no C3 linearisation for {c.qualname}")
                # fall back: depth-first, first occurrence
                for s in seqs:
                    for x in s:
                        if not any(same(x, y) for y in result):
                            result.append(x)
                break
            result.append(cand)
            seqs = [[y for y in t if not same(y, cand)] for t in seqs]
            seqs = [s for s in seqs if s]
        # 'object' only ever appears last: drop explicit builtins.object from the middle
        res = [x for x in result if not (isinstance(x, External) and x.name == "builtins.object")]
        self._mro_cache[key] = (res, problems)
        return self._mro_cache[key]

    def find_attr(self, c, name, trace=None):
        """First definition of NAME along the MRO: (owner, kind, value, scope),
        None when absent, Unresolved when undecidable."""
        mro, problems = self.mro(c)
        if problems and trace is not None:
            trace.extend(problems)
        for k in mro:
            if isinstance(k, ClassRef):
                mem = self.members(k)
                if name in mem:
                    kind, val, sc = mem[name]
                    return (k.qualname, kind, val, sc)
            else:
                ext = k.name
                if ext in KNOWN_EXTERNALS:
                    if name in KNOWN_EXTERNALS[ext]:
                        return (ext, "external", KNOWN_EXTERNALS[ext][name], None)
                    continue
                if ext in EXTERNAL_MODULE_SUBCLASSES:
                    if name in NN_MODULE:
                        return (ext, "external", NN_MODULE[name], None)
                    continue
                if name in ("forward", "__init__", "compute_logits", "embed_input_ids",
                            "get_input_embeddings"):
                    return Unresolved(f"{name} may come from external base {ext}")
                if trace is not None:
                    trace.append(f"external base {ext} assumed not to define {name}")
        if problems:
            return Unresolved("; ".join(problems))
        return None

    def attr_value(self, c, name, trace):
        """getattr(cls, name, <absent>) as (present, value) with value a Python
        constant, a 'callable' marker, or Unresolved."""
        found = self.find_attr(c, name, trace)
        if found is None:
            return (False, None)
        if isinstance(found, Unresolved):
            return found
        owner, kind, val, sc = found
        if kind in ("func", "class"):
            return (True, "callable")
        if kind == "external":
            return (True, "callable")
        if kind == "opaque":
            return Unresolved(f"{owner}.{name} bound by tuple unpacking")
        v = self.eval(val, sc)
        if isinstance(v, Const):
            return (True, v.value)
        if isinstance(v, (FuncRef, ClassRef)):
            return (True, "callable")
        if isinstance(v, External) and v.name.startswith("builtins.") and v.name[9:] in ("True", "False", "None"):
            return (True, {"True": True, "False": False, "None": None}[v.name[9:]])
        return Unresolved(f"{owner}.{name} = {ast.unparse(val)[:60]}: {getattr(v, 'reason', type(v).__name__)}")

    def signature(self, c, name, trace):
        """Parameters of method NAME through the MRO: dict with keys names, kwargs,
        varargs, owner; None if absent; Unresolved if undecidable."""
        found = self.find_attr(c, name, trace)
        if found is None:
            return None
        if isinstance(found, Unresolved):
            return found
        owner, kind, val, sc = found
        if kind == "external":
            if val == ("varargs",):
                return {"names": [], "kwargs": None, "varargs": True, "owner": owner}
            return {"names": [], "kwargs": "kwargs", "varargs": True, "owner": owner}
        node = None
        if kind == "func":
            node = val
        elif kind == "expr":
            v = self.eval(val, sc)
            if isinstance(v, FuncRef):
                node = v.node
            else:
                return Unresolved(f"{owner}.{name} = {ast.unparse(val)[:60]}")
        else:
            return Unresolved(f"{owner}.{name} is a {kind}")
        for d in node.decorator_list:
            dn = ast.unparse(d)
            if dn not in ("staticmethod", "classmethod", "override", "typing.override",
                          "torch.inference_mode()", "torch.no_grad()"):
                trace.append(f"{owner}.{name} decorated with @{dn}")
        a = node.args
        return {
            "names": [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs],
            "kwargs": a.kwarg.arg if a.kwarg else None,
            "varargs": a.vararg is not None,
            "owner": owner,
        }

    @staticmethod
    def supports_kw(sig, kw):
        if kw in sig["names"]:
            return True
        return bool(sig["kwargs"]) and sig["kwargs"] != kw

    def decorators_ok(self, c, trace):
        """Check class decorators along the MRO for unknown modifications."""
        bad = []
        mro, _ = self.mro(c)
        for k in mro:
            if not isinstance(k, ClassRef):
                continue
            for d in k.node.decorator_list:
                fn = d.func if isinstance(d, ast.Call) else d
                last = fn.attr if isinstance(fn, ast.Attribute) else (fn.id if isinstance(fn, ast.Name) else None)
                if last in HARMLESS_DECORATORS:
                    continue
                v = self.eval(fn, k.scope)
                if isinstance(v, FuncRef):
                    touched = set()
                    for n in ast.walk(v.node):
                        if isinstance(n, (ast.Assign, ast.AnnAssign)):
                            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                                if isinstance(t, ast.Attribute) and t.attr in SENSITIVE:
                                    touched.add(t.attr)
                        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
                            touched.add("setattr")
                    if touched:
                        bad.append(f"{k.qualname} decorated with @{ast.unparse(d)[:50]} which sets {sorted(touched)}")
                else:
                    bad.append(f"{k.qualname} decorated with unknown @{ast.unparse(d)[:50]}")
        return bad

    # --- the flags -----------------------------------------------------------------
    def flags(self, c):
        cache = getattr(c, "_flags", None)
        if cache is not None:
            return cache
        c._flags = {"flags": {}, "unresolved": {}, "trace": []}  # recursion guard
        trace = []
        flags = {}
        unresolved = {}
        for reason in self.decorators_ok(c, trace):
            for fl in FLAGS:
                unresolved.setdefault(fl, reason)

        # getattr flags
        for name in GETATTR_FLAGS:
            r = self.attr_value(c, name, trace)
            if isinstance(r, Unresolved):
                unresolved[name] = r.reason
            else:
                present, val = r
                flags[name] = bool(val) if present and val != "callable" else (present and val == "callable")

        # supports_pp
        r = self._supports_pp(c, trace)
        if isinstance(r, Unresolved):
            unresolved["supports_pp"] = r.reason
        else:
            flags["supports_pp"] = r

        # supports_lora
        r = self._supports_lora(c, trace)
        if isinstance(r, Unresolved):
            unresolved["supports_lora"] = r.reason
        else:
            flags["supports_lora"] = r

        # is_vllm_model / pooling / text generation
        vm = self._is_vllm_model(c, trace)
        if isinstance(vm, Unresolved):
            unresolved["is_pooling_model"] = vm.reason
            unresolved["is_text_generation_model"] = vm.reason
        else:
            if not vm:
                flags["is_pooling_model"] = False
                flags["is_text_generation_model"] = False
            else:
                r = self.attr_value(c, "is_pooling_model", trace)
                if isinstance(r, Unresolved):
                    unresolved["is_pooling_model"] = r.reason
                else:
                    flags["is_pooling_model"] = bool(r[0] and r[1])
                ok = True
                for attr in self.rules["textgen_attrs"]:
                    r = self.attr_value(c, attr, trace)
                    if isinstance(r, Unresolved):
                        unresolved["is_text_generation_model"] = r.reason
                        ok = None
                        break
                    if not r[0] or r[1] is None:
                        ok = False
                if ok is not None:
                    flags["is_text_generation_model"] = ok
        for k in list(unresolved):
            flags.pop(k, None)
        res = {"flags": flags, "unresolved": unresolved, "trace": sorted(set(trace + c.notes))}
        c._flags = res
        return res

    def _supports_lora(self, c, trace):
        """interfaces.supports_lora(cls): isinstance(cls, _SupportsLoRAType), a runtime protocol check that only
        asks whether each member exists as a class attribute (a value of False would still pass)."""
        for attr in self.rules["lora_protocol_attrs"]:
            found = self.find_attr(c, attr, trace)
            if found is None:
                return False
            if isinstance(found, Unresolved):
                return found
        return True

    def _supports_pp(self, c, trace):
        attrs_ok = None
        if self.rules["pp_mro_shortcut"]:
            mro, _ = self.mro(c)
            if any(isinstance(k, ClassRef) and k.qualname == self.rules["supportspp_qualname"] for k in mro):
                attrs_ok = True
        if attrs_ok is None:
            attrs_ok = True
            for attr in self.rules["pp_protocol_attrs"]:
                r = self.attr_value(c, attr, trace)
                if isinstance(r, Unresolved):
                    return r
                present, val = r
                if not present:
                    attrs_ok = False
                    break
                if val is None and attr in self.rules["pp_protocol_callables"]:
                    attrs_ok = False
                    break
        if not attrs_ok:
            return False
        sig = self.signature(c, "forward", trace)
        if sig is None:
            return False
        if isinstance(sig, Unresolved):
            return sig
        return self.supports_kw(sig, "intermediate_tensors")

    def _is_vllm_model(self, c, trace):
        sig = self.signature(c, "__init__", trace)
        if isinstance(sig, Unresolved):
            return sig
        if sig is not None and not self.supports_kw(sig, "vllm_config"):
            return False
        for attr in self.rules["vllm_model_methods"]:
            r = self.attr_value(c, attr, trace)
            if isinstance(r, Unresolved):
                return r
            if not r[0] or r[1] is None:
                return False
        sig = self.signature(c, "forward", trace)
        if sig is None:
            return False
        if isinstance(sig, Unresolved):
            return sig
        return self.supports_kw(sig, "input_ids") and self.supports_kw(sig, "positions")

    # --- version rules read from interfaces*.py ------------------------------------------
    def _read_rules(self):
        base = "vllm.model_executor.models"
        itf = self.module(f"{base}.interfaces")
        itb = self.module(f"{base}.interfaces_base")
        rules = {"fingerprints": {}}

        def last(m, name):
            found = None
            for n in m.tree.body:
                if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == name:
                    found = n
            return found

        ppt = last(itf, "_SupportsPPType")
        attrs, callables = [], []
        for st in ppt.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                attrs.append(st.target.id)
            elif isinstance(st, ast.FunctionDef):
                attrs.append(st.name)
                callables.append(st.name)
        rules["pp_protocol_attrs"] = attrs
        rules["pp_protocol_callables"] = callables
        lora_type = last(itf, "_SupportsLoRAType")
        rules["lora_protocol_attrs"] = [st.target.id for st in lora_type.body
                                        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)]
        if any(isinstance(st, ast.FunctionDef) for st in lora_type.body):
            raise SystemExit(f"{self.version}: _SupportsLoRAType has methods; update the extractor")
        spa = last(itf, "_supports_pp_attributes")
        rules["pp_mro_shortcut"] = "SupportsPP in model.__mro__" in ast.unparse(spa)
        rules["supportspp_qualname"] = f"{base}.interfaces.SupportsPP"
        spi = last(itf, "_supports_pp_inspect")
        if "intermediate_tensors" not in ast.unparse(spi):
            raise SystemExit(f"{self.version}: _supports_pp_inspect changed; update the extractor")
        # is_vllm_model: which checks
        ivm = last(itb, "is_vllm_model")
        src = ast.unparse(ivm)
        meths = []
        if "_check_vllm_model_embed_input_ids" in src:
            meths.append("embed_input_ids")
        if "_check_vllm_model_get_input_embeddings" in src:
            meths.append("get_input_embeddings")
        rules["vllm_model_methods"] = meths
        itg = last(itb, "is_text_generation_model")
        if "compute_logits" in ast.unparse(itg):
            rules["textgen_attrs"] = ["compute_logits"]
        else:
            tg = last(itb, "VllmModelForTextGeneration")
            vmc = last(itb, "VllmModel")
            names = []
            for cls in (vmc, tg):
                for st in cls.body:
                    if isinstance(st, ast.FunctionDef) and not st.name.startswith("__"):
                        names.append(st.name)
                    elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                        names.append(st.target.id)
            rules["textgen_attrs"] = sorted(set(names))
        for name in ("supports_pp", "_supports_pp_attributes", "_supports_pp_inspect", "_SupportsPPType",
                     "SupportsPP", "is_attention_free", "IsAttentionFree"):
            n = last(itf, name)
            if n is not None:
                rules["fingerprints"][f"interfaces.{name}"] = fingerprint(n)
        for name in ("is_vllm_model", "is_text_generation_model", "is_pooling_model"):
            n = last(itb, name)
            if n is not None:
                rules["fingerprints"][f"interfaces_base.{name}"] = fingerprint(n)
        self.rules = rules


# ----------------------------------------------------------------------------
# registry.py and the suffix table
# ----------------------------------------------------------------------------

def _literal(node, env):
    """literal_eval with **NAME / dict-comprehension support over env."""
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(_literal(v, env))
            else:
                out[_literal(k, env)] = _literal(v, env)
        return out
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise ValueError(f"unknown name {node.id}")
    if isinstance(node, ast.DictComp):
        # {k: (mod, arch) for k, (mod, arch) in D.items() if arch == "X"}
        gen = node.generators[0]
        it = gen.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items"):
            raise ValueError("unsupported dict comprehension")
        src = _literal(it.func.value, env)
        out = {}
        for k, v in src.items():
            local = dict(env)
            _assign(gen.target, (k, v), local)
            if all(_cond(c, local) for c in gen.ifs):
                out[_literal(node.key, local)] = _literal(node.value, local)
        return out
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [_literal(e, env) for e in node.elts]
        return tuple(vals) if isinstance(node, ast.Tuple) else vals
    return ast.literal_eval(node)


def _assign(target, value, env):
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, ast.Tuple):
        for t, v in zip(target.elts, value):
            _assign(t, v, env)
    else:
        raise ValueError("unsupported target")


def _cond(node, env):
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _literal(node.left, env)
        right = _literal(node.comparators[0], env)
        op = node.ops[0]
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
        if isinstance(op, ast.In):
            return left in right
        if isinstance(op, ast.NotIn):
            return left not in right
    raise ValueError(f"unsupported condition {ast.unparse(node)}")


def read_registry(rel):
    m = rel.module("vllm.model_executor.models.registry")
    env = {}
    dicts = {}
    order = []
    for st in m.tree.body:
        target = None
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            target, value = st.targets[0].id, st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            target, value = st.target.id, st.value
        if target is None or not isinstance(value, ast.Dict):
            continue
        try:
            env[target] = _literal(value, env)
        except (ValueError, SyntaxError) as exc:
            raise SystemExit(f"{rel.version}: cannot read {target}: {exc}") from None
        dicts[target] = value
        order.append(target)
    if "_VLLM_MODELS" not in env:
        raise SystemExit(f"{rel.version}: no _VLLM_MODELS in registry.py")
    # which component dicts make up _VLLM_MODELS
    parts = [ast.unparse(v) for k, v in zip(dicts["_VLLM_MODELS"].keys, dicts["_VLLM_MODELS"].values) if k is None]
    # how ModelRegistry is built
    reg_src = None
    resolve_fqmn = False
    for st in m.tree.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ModelRegistry" for t in st.targets):
            reg_src = ast.unparse(st.value)
        if isinstance(st, ast.FunctionDef) and st.name == "_resolve_module_name":
            resolve_fqmn = 'startswith("vllm.")' in ast.unparse(st).replace("'", '"')
    if reg_src is None or "_VLLM_MODELS.items()" not in reg_src:
        raise SystemExit(f"{rel.version}: ModelRegistry is not built from _VLLM_MODELS; update the extractor")
    fps = {}
    for n in ast.walk(m.tree):
        if isinstance(n, ast.ClassDef) and n.name == "_ModelRegistry":
            for f in n.body:
                if isinstance(f, ast.FunctionDef) and f.name in (
                        "_normalize_arch", "inspect_model_cls", "_raise_for_unsupported",
                        "_try_resolve_transformers", "is_pp_supported_model"):
                    fps[f"registry.{f.name}"] = fingerprint(f)
        if isinstance(n, ast.ClassDef) and n.name == "_ModelInfo":
            for f in n.body:
                if isinstance(f, ast.FunctionDef) and f.name == "from_model_cls":
                    fps["registry._ModelInfo.from_model_cls"] = fingerprint(f)
    entries = {}
    for arch, (mod, cls) in env["_VLLM_MODELS"].items():
        modname = mod if (resolve_fqmn and mod.startswith("vllm.")) else f"vllm.model_executor.models.{mod}"
        group = "+".join(p for p in parts if p in env and arch in env[p]) or None
        entries[arch] = {"module": modname, "class": cls, "group": group}
    return {
        "order": list(env["_VLLM_MODELS"]),  # ModelRegistry.models / get_supported_archs() order
        "entries": entries,
        "previously_supported": env.get("_PREVIOUSLY_SUPPORTED_MODELS", {}),
        "oot_supported": env.get("_OOT_SUPPORTED_MODELS", {}),
        "transformers_backend": sorted(env.get("_TRANSFORMERS_BACKEND_MODELS", {})),
        "transformers_supported": sorted(env.get("_TRANSFORMERS_SUPPORTED_MODELS", {})),
        "groups": parts,
        "fingerprints": fps,
    }


def read_suffixes(rel):
    for modname in ("vllm.config.model", "vllm.config"):
        m = rel.module(modname)
        if m is None or "_SUFFIX_TO_DEFAULTS" not in m.source:
            continue
        out = {"module": modname}
        for st in m.tree.body:
            tgt = None
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                tgt = st.target.id
            elif isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
                tgt = st.targets[0].id
            if tgt == "_SUFFIX_TO_DEFAULTS":
                out["table"] = [[s, r, c] for s, (r, c) in ast.literal_eval(st.value)]
            elif tgt == "_RUNNER_CONVERTS":
                out["runner_converts"] = {k: list(v) for k, v in ast.literal_eval(st.value).items()}
            elif isinstance(st, ast.FunctionDef) and st.name in (
                    "iter_architecture_defaults", "try_match_architecture_defaults"):
                out.setdefault("fingerprints", {})[f"config.{st.name}"] = fingerprint(st)
        return out
    raise SystemExit(f"{rel.version}: _SUFFIX_TO_DEFAULTS not found")


def analyse(version, root):
    rel = Release(version, root)
    reg = read_registry(rel)
    suf = read_suffixes(rel)
    archs = {}
    for arch, e in sorted(reg["entries"].items()):
        v = rel.lookup(e["module"], e["class"])
        rec = {"module": e["module"], "class": e["class"], "group": e["group"]}
        if isinstance(v, ClassRef):
            fl = rel.flags(v)
            rec["resolved"] = v.qualname
            rec["flags"] = fl["flags"]
            rec["unresolved"] = fl["unresolved"]
            rec["trace"] = fl["trace"]
        else:
            rec["flags"] = {}
            reason = v.reason if isinstance(v, Unresolved) else f"{e['module']}.{e['class']} is {type(v).__name__}"
            rec["unresolved"] = {fl: f"class not resolved: {reason}" for fl in FLAGS}
            rec["trace"] = []
        archs[arch] = rec
    fps = dict(rel.rules["fingerprints"])
    fps.update(reg["fingerprints"])
    fps.update(suf.pop("fingerprints", {}))
    return {
        "version": version,
        "archs": archs,
        "suffixes": suf,
        "previously_supported": reg["previously_supported"],
        "oot_supported": reg["oot_supported"],
        "transformers_backend": reg["transformers_backend"],
        "transformers_supported": reg["transformers_supported"],
        "groups": reg["groups"],
        "registry_order": reg["order"],
        "rules": {k: v for k, v in rel.rules.items() if k != "fingerprints"},
        "fingerprints": fps,
        "notes": sorted(set(rel.notes)),
    }


# ----------------------------------------------------------------------------
# merging releases into version ranges
# ----------------------------------------------------------------------------

def ranges(releases, present):
    out = []
    start = prev = None
    for r in releases:
        if r in present:
            if start is None:
                start = r
            prev = r
        elif start is not None:
            out.append([start, prev])
            start = None
    if start is not None:
        out.append([start, prev])
    return out


def by_value(releases, values):
    """values: release -> hashable (or absent). -> list of [first, last, value]."""
    out = []
    for r in releases:
        if r not in values:
            continue
        v = values[r]
        if out and out[-1][2] == v and releases.index(out[-1][1]) == releases.index(r) - 1:
            out[-1][1] = r
        else:
            out.append([r, r, v])
    return out


def merge(per):
    releases = [r for r in RELEASES if r in per]
    all_archs = sorted({a for p in per.values() for a in p["archs"]})
    archs = {}
    unresolved = {}
    for a in all_archs:
        rec = {}
        reg = {r for r in releases if a in per[r]["archs"]}
        rec["registered"] = ranges(releases, reg)
        for fl in FLAGS:
            on = {r for r in reg if per[r]["archs"][a]["flags"].get(fl) is True}
            rec[fl] = ranges(releases, on)
        impl = {r: (per[r]["archs"][a]["module"].replace("vllm.model_executor.models.", "") + ":"
                    + per[r]["archs"][a]["class"])
                for r in reg}
        rec["impl"] = by_value(releases, impl)
        grp = {r: "+".join(g.strip("_").replace("_MODELS", "").lower()
                        for g in (per[r]["archs"][a]["group"] or "").split("+") if g) for r in reg}
        rec["group"] = by_value(releases, grp)
        archs[a] = rec
        # unresolved: flag -> reason -> releases
        ur = {}
        for r in reg:
            for fl, reason in per[r]["archs"][a]["unresolved"].items():
                ur.setdefault(fl, {}).setdefault(reason, set()).add(r)
        if ur:
            unresolved[a] = {fl: [[*rg, reason] for reason, rs in sorted(d.items()) for rg in ranges(releases, rs)]
                             for fl, d in sorted(ur.items())}
    suffixes = [
        {"since": f, "until": u, "module": v[0], "table": json.loads(v[1]), "runner_converts": json.loads(v[2])}
        for f, u, v in by_value(releases, {
            r: (per[r]["suffixes"]["module"], json.dumps(per[r]["suffixes"]["table"]),
                json.dumps(per[r]["suffixes"].get("runner_converts")))
            for r in releases})
    ]
    prev = {}
    for r in releases:
        for a, v in per[r]["previously_supported"].items():
            prev.setdefault(a, {}).setdefault(v, set()).add(r)
    previously = {a: [[*rg, v] for v, rs in sorted(d.items()) for rg in ranges(releases, rs)]
                  for a, d in sorted(prev.items())}
    oot = {}
    for r in releases:
        for a, v in per[r]["oot_supported"].items():
            oot.setdefault(a, {}).setdefault(v, set()).add(r)
    oot_out = {a: [[*rg, v] for v, rs in sorted(d.items()) for rg in ranges(releases, rs)]
               for a, d in sorted(oot.items())}
    tb = {}
    for r in releases:
        for a in per[r]["transformers_backend"]:
            tb.setdefault(a, set()).add(r)
    rules = by_value(releases, {r: json.dumps(per[r]["rules"], sort_keys=True) for r in releases})
    fps = by_value(releases, {r: json.dumps(per[r]["fingerprints"], sort_keys=True) for r in releases})
    return {
        "schema": 1,
        "generator": "tools/extract_registry.py",
        "releases": releases,
        "flags": list(FLAGS),
        "archs": archs,
        "suffixes": suffixes,
        "previously_supported": previously,
        "oot_supported": oot_out,
        "transformers_backend": {a: ranges(releases, rs) for a, rs in sorted(tb.items())},
        "pp_rules": [{"since": f, "until": u, **json.loads(v)} for f, u, v in rules],
        "fingerprints": [{"since": f, "until": u, **json.loads(v)} for f, u, v in fps],
        "unresolved": unresolved,
    }


def registry_orders(per):
    """The order of each release's ``ModelRegistry.models`` (``get_supported_archs()``, which vLLM prints
    when it refuses an architecture it does not know) as kvguard/data/registry_order.json: ``names`` (every
    architecture, sorted) and ``orders``: ``[first, last, [indexes into names]]`` per run of releases with the
    same order.  Kept apart from archs.json: only that refusal reads it."""
    releases = [r for r in RELEASES if r in per]
    names = sorted({a for r in releases for a in per[r]["registry_order"]})
    index = {name: i for i, name in enumerate(names)}
    runs: list = []
    for r in releases:
        order = [index[a] for a in per[r]["registry_order"]]
        if runs and runs[-1][2] == order:
            runs[-1][1] = r
        else:
            runs.append([r, r, order])
    return {"schema": 1, "generator": "tools/extract_registry.py", "names": names, "orders": runs}


def write_orders(obj, path):
    """registry_order.json: the names on one line, then one release run per line."""
    head = json.dumps({k: v for k, v in obj.items() if k != "orders"}, separators=(",", ":"))
    runs = ",\n".join(json.dumps(run, separators=(",", ":")) for run in obj["orders"])
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head[:-1] + ',\n"orders":[\n' + runs + "\n]}\n")


def write_compact(obj, path):
    """One arch per line: diffable and small."""
    lines = ["{"]
    keys = list(obj)
    for i, k in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        v = obj[k]
        if (k in ("archs", "unresolved", "previously_supported", "oot_supported", "transformers_backend")
                and isinstance(v, dict) and v):
            # one entry per line: kvguard.archs decodes only the architectures a check asks for
            lines.append(f" {json.dumps(k)}: {{")
            items = list(v.items())
            for j, (a, rec) in enumerate(items):
                c2 = "," if j < len(items) - 1 else ""
                lines.append(f"  {json.dumps(a)}: {json.dumps(rec, separators=(',', ':'))}{c2}")
            lines.append(f" }}{comma}")
        elif k in ("suffixes", "pp_rules", "fingerprints") and isinstance(v, list):
            lines.append(f" {json.dumps(k)}: [")
            for j, rec in enumerate(v):
                c2 = "," if j < len(v) - 1 else ""
                lines.append(f"  {json.dumps(rec, separators=(',', ':'))}{c2}")
            lines.append(f" ]{comma}")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}{comma}")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--all", action="store_true", help="every release in RELEASES")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/kvguard-wheels"))
    ap.add_argument("--keep-wheels", action="store_true")
    ap.add_argument("-o", "--output", help="merged archs.json to write")
    ap.add_argument("--dump", metavar="VERSION", help="print one release's full analysis as JSON")
    args = ap.parse_args(argv)
    if args.dump:
        root = ensure_release(args.dump, args.cache, args.keep_wheels)
        json.dump(analyse(args.dump, root), sys.stdout, indent=1, sort_keys=True)
        return 0
    versions = RELEASES if args.all else args.versions
    if not versions:
        ap.error("give versions or --all")
    unknown = [v for v in versions if v not in RELEASES]
    if unknown:
        ap.error(f"not in RELEASES: {unknown}")
    per = {}
    for v in versions:
        root = ensure_release(v, args.cache, args.keep_wheels)
        per[v] = analyse(v, root)
        a = per[v]["archs"]
        n_pp = sum(1 for r in a.values() if r["flags"].get("supports_pp") is True)
        n_af = sum(1 for r in a.values() if r["flags"].get("is_attention_free") is True)
        n_un = sum(1 for r in a.values() if r["unresolved"])
        n_un_pp = sum(1 for r in a.values()
                      if "supports_pp" in r["unresolved"] or "is_attention_free" in r["unresolved"])
        print(f"{v}: {len(a)} registered, {n_pp} supports_pp, {n_af} attention-free, "
              f"{n_un} with an unresolved flag ({n_un_pp} of supports_pp/is_attention_free)", file=sys.stderr)
    merged = merge(per)
    if args.output:
        write_compact(merged, args.output)
        print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes)", file=sys.stderr)
        if set(versions) == set(RELEASES):
            orders_path = os.path.join(os.path.dirname(os.path.abspath(args.output)), "registry_order.json")
            write_orders(registry_orders(per), orders_path)
            print(f"wrote {orders_path} ({os.path.getsize(orders_path)} bytes)", file=sys.stderr)
    else:
        json.dump(merged, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
