"""A small, safe interpreter for the extracted config-class data.

The data files (``kvguard/hfconfig/*.json``, written by ``tools/hfconfig_extract.py``)
describe transformers' and vLLM's config modules as statement lists in a JSON
statement language whose expressions are strings in a Python-expression
subset.  This module evaluates them: it knows classes, instances, properties,
``super()``, closures, generators (eagerly), ``try``/``except`` and a
whitelist of builtins.  It never calls ``eval``/``exec``, never imports
anything named by the data, and gives the data access to plain values only
(numbers, strings, lists, dicts) and to the objects it creates itself.

Exceptions that the emulated code raises are real Python exceptions of the
same type and message (``ValueError``, ``TypeError`` from ``None + 1``,
``AttributeError`` from a missing attribute …).  Anything the interpreter
cannot follow raises :class:`Unsupported` (a ``BaseException``, so emulated
``except Exception`` clauses do not swallow it).
"""

from __future__ import annotations

import ast
import builtins
import collections
import collections.abc
import copy as _copy
import dataclasses
import math
import operator
import re as _re
import typing
from typing import Any

__all__ = ["Interp", "Unsupported", "Inst", "Klass", "TorchDtype"]


class Unsupported(BaseException):
    """The emulation cannot follow this code path."""


#: expression evaluations one config load may take (a DeepSeek-V3 load takes ~12,000; a
#: 10**6-layer config ~10**7) — about two seconds of interpretation
STEP_BUDGET = 2_000_000
UNBOUNDED = 1 << 62


class _Return(BaseException):
    def __init__(self, value):
        self.value = value


class _Break(BaseException):
    pass


class _Continue(BaseException):
    pass


_MISSING = dataclasses.MISSING

# ---------------------------------------------------------------------------
# exceptions that exist in the emulated libraries


class StrictDataclassError(Exception):
    pass


StrictDataclassError.__module__ = "huggingface_hub.errors"


class StrictDataclassDefinitionError(StrictDataclassError):
    pass


class StrictDataclassFieldValidationError(StrictDataclassError):
    def __init__(self, field: str, cause: Exception):
        msg = f"Validation error for field '{field}':"
        msg += f"\n    {cause.__class__.__name__}: {cause}"
        super().__init__(msg)


class StrictDataclassClassValidationError(StrictDataclassError):
    def __init__(self, validator: str, cause: Exception):
        msg = f"Class validation error for validator '{validator}':"
        msg += f"\n    {cause.__class__.__name__}: {cause}"
        super().__init__(msg)


for _c in (StrictDataclassDefinitionError, StrictDataclassFieldValidationError,
           StrictDataclassClassValidationError):
    _c.__module__ = "huggingface_hub.errors"


# ---------------------------------------------------------------------------
# torch stand-in


class TorchDtype:
    """Stands for a ``torch.dtype`` (``str()`` is ``"torch.bfloat16"``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, TorchDtype) and other.name == self.name

    def __hash__(self):
        return hash(("torch", self.name))

    @property
    def itemsize(self) -> int:
        return _DTYPE_SIZES.get(self.name, 0)


_DTYPE_CANON = {
    "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "uint8": "uint8", "int8": "int8",
    "int16": "int16", "short": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
    "bool": "bool", "complex32": "complex32", "chalf": "complex32", "complex64": "complex64",
    "cfloat": "complex64", "complex128": "complex128", "cdouble": "complex128", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64", "quint8": "quint8", "qint8": "qint8", "qint32": "qint32",
    "quint4x2": "quint4x2", "quint2x4": "quint2x4", "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2", "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float8_e8m0fnu": "float8_e8m0fnu", "float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "bits1x8": "bits1x8", "bits2x4": "bits2x4", "bits4x2": "bits4x2", "bits8": "bits8", "bits16": "bits16",
    "int1": "int1", "int2": "int2", "int3": "int3", "int4": "int4", "int5": "int5", "int6": "int6",
    "int7": "int7", "uint1": "uint1", "uint2": "uint2", "uint3": "uint3", "uint4": "uint4", "uint5": "uint5",
    "uint6": "uint6", "uint7": "uint7",
}
_DTYPE_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "uint8": 1, "int8": 1, "int16": 2,
                "int32": 4, "int64": 8, "bool": 1, "complex64": 8, "complex128": 16, "float8_e4m3fn": 1,
                "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "uint16": 2, "uint32": 4,
                "uint64": 8}


class _TorchModule:
    """``import torch`` inside emulated code: dtypes only."""

    def getattr(self, name):
        if name in _DTYPE_CANON:
            return TorchDtype(_DTYPE_CANON[name])
        if name == "dtype":
            return TorchDtype
        raise AttributeError(f"module 'torch' has no attribute '{name}'")


# ---------------------------------------------------------------------------
# object model


class Func:
    """A function from the data (or a lambda)."""

    __slots__ = ("spec", "module", "closure", "owner", "name", "defaults", "kwdefaults", "qualname",
                 "is_gen", "lambda_body")

    def __init__(self, spec, module, closure, name, defaults, kwdefaults, qualname, lambda_body=None):
        self.spec = spec
        self.module = module
        self.closure = closure
        self.owner = None
        self.name = name
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.qualname = qualname
        self.lambda_body = lambda_body
        self.is_gen = None

    def __repr__(self):
        return f"<function {self.qualname}>"


class NativeFunc:
    """A function implemented here; ``fn(interp, args, kwargs)``."""

    __slots__ = ("fn", "name", "bind", "klass", "kvg_markers")

    def __init__(self, fn, name="native", bind=True, klass=None):
        self.fn = fn
        self.name = name
        self.bind = bind
        self.klass = klass  # for a dataclass __init__: whose fields make its signature
        self.kvg_markers = ()  # function attributes vLLM sets on its patches (``__vllm_patched__``)

    def __repr__(self):
        return f"<native {self.name}>"


class BoundMethod:
    __slots__ = ("func", "obj")

    def __init__(self, func, obj):
        self.func = func
        self.obj = obj


class Property:
    __slots__ = ("fget", "fset", "fdel")

    def __init__(self, fget=None, fset=None, fdel=None):
        self.fget, self.fset, self.fdel = fget, fset, fdel


class ClassProperty(Property):
    __slots__ = ()


class ClassMethod:
    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f


class StaticMethod:
    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f


class Field:
    """A dataclass field."""

    __slots__ = ("name", "type", "default", "default_factory", "metadata", "init", "kw_only")

    def __init__(self, default=_MISSING, default_factory=_MISSING, metadata=None, init=True):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.metadata = metadata or {}
        self.init = init
        self.kw_only = True


class Opaque:
    """A name the emulation does not model (an import it does not follow)."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return f"<opaque {self.what}>"


class UnionT:
    """``A | B`` where one side is an emulated class."""

    __slots__ = ("args",)

    def __init__(self, args):
        flat = []
        for a in args:
            if isinstance(a, UnionT):
                flat.extend(a.args)
            elif getattr(a, "__origin__", None) is None and typing.get_origin(a) in (typing.Union,):
                flat.extend(typing.get_args(a))
            elif a is None:
                flat.append(type(None))
            elif a not in flat:
                flat.append(a)
        self.args = tuple(dict.fromkeys(flat))

    def __or__(self, other):
        return UnionT(self.args + (other,))

    def __ror__(self, other):
        return UnionT((other,) + self.args)


class Klass:
    """A class defined by the data."""

    def __init__(self, interp, name, module, bases, ns):
        self.interp = interp
        self.name = name
        self.module = module
        self.bases = bases
        self.ns = ns
        self.annotations: dict[str, Any] = ns.pop("__annotations__", {}) if isinstance(ns, dict) else {}
        self.mro = self._c3()
        self.typeddict = False
        self.is_exception = False

    # C3 linearisation over Klass bases (native bases are ignored: object)
    def _c3(self):
        seqs = [list(b.mro) for b in self.bases if isinstance(b, Klass)]
        seqs.append([b for b in self.bases if isinstance(b, Klass)])
        out = [self]
        while True:
            seqs = [s for s in seqs if s]
            if not seqs:
                return out
            for s in seqs:
                cand = s[0]
                if not any(cand in t[1:] for t in seqs):
                    break
            else:
                raise Unsupported(f"inconsistent MRO for {self.name}")
            out.append(cand)
            for t in seqs:
                if t and t[0] is cand:
                    del t[0]

    def lookup(self, name):
        for k in self.mro:
            if name in k.ns:
                return k.ns[name], k
        return _MISSING, None

    def is_sub(self, other) -> bool:
        return other in self.mro

    @property
    def qualname(self):
        return f"{self.module}.{self.name}"

    def __repr__(self):
        return f"<class '{self.qualname}'>"

    def __or__(self, other):
        return UnionT((self, other))

    def __ror__(self, other):
        return UnionT((other, self))

    def __getitem__(self, item):  # Generic[...] style subscripts in annotations
        return self


class Inst:
    """An instance of a :class:`Klass` (config objects are these)."""

    __slots__ = ("_k", "_d", "kvg_raw", "kvg_emulation", "kvg_model_type", "__weakref__")

    def __init__(self, k):
        object.__setattr__(self, "_k", k)
        object.__setattr__(self, "_d", {})
        object.__setattr__(self, "kvg_raw", None)
        object.__setattr__(self, "kvg_emulation", "generic")
        object.__setattr__(self, "kvg_model_type", None)

    # The Python-level protocol answers as the emulated object would.  An emulation gap
    # (Unsupported) surfaces as kvguard.errors.Undecidable.
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _py(self._k.interp.getattr, self, name)

    def __setattr__(self, name, value):
        if name in Inst.__slots__:
            object.__setattr__(self, name, value)
        else:
            _py(self._k.interp.setattr, self, name, value)

    def __delattr__(self, name):
        _py(self._k.interp.delattr, self, name)

    def __iter__(self):
        return iter(_py(lambda o: list(self._k.interp.iterate(o)), self))

    def __contains__(self, item):
        return _py(self._k.interp.contains, self, item)

    def __getitem__(self, item):
        return _py(self._k.interp.getitem, self, item)

    def __len__(self):
        return _py(self._k.interp.length, self)

    def __eq__(self, other):
        return _py(self._k.interp.eq, self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        return _py(self._k.interp.truth, self)

    def __repr__(self):
        return f"<{self._k.name} (kvguard emulation)>"

    @property
    def kvg_class(self) -> str:
        return self._k.name

    def kvg_dict(self) -> dict:
        """The instance ``__dict__`` (what ``vars(config)`` shows)."""
        return self._d

    def get_text_config(self, *args, **kwargs):
        """``config.get_text_config(...)`` as the real class answers it (class overrides included).

        An exception the real method raises (e.g. ValueError "Multiple valid text
        configs were found ...") is reported as :class:`~kvguard.hfconfig.LoadCrash`
        (``wrapped_by="ModelConfig"`` for ValueError/AssertionError: vLLM calls it
        inside ``ModelConfig.__post_init__``).
        """
        it = self._k.interp
        try:
            return it.call(it.getattr(self, "get_text_config"), list(args), kwargs)
        except Unsupported as e:
            from ..errors import Undecidable
            raise Undecidable(f"kvguard cannot emulate get_text_config(): {e}") from None
        except Exception as e:  # noqa: BLE001 - an emulated exception
            from ._load import load_crash_of
            raise load_crash_of(e) from None


def _py(fn, *args):
    try:
        return fn(*args)
    except Unsupported as e:
        from ..errors import Undecidable
        raise Undecidable(f"kvguard cannot emulate this config read: {e}") from None


class SuperProxy:
    __slots__ = ("start", "obj")

    def __init__(self, start, obj):
        self.start = start  # class after which lookup starts
        self.obj = obj


class LazyBody:
    """A module body kept as JSON text until the module is used; ``names``: what it defines at top level.

    ``source`` is the text, or a function returning it (read from the store's body file on first use)."""

    __slots__ = ("_source", "names")

    def __init__(self, source: "str | typing.Callable[[], str]", names: list[str] | None):
        self._source = source
        self.names = names

    @property
    def text(self) -> str:
        src = self._source
        return src if isinstance(src, str) else src()


class ModuleNS:
    def __init__(self, interp, name, stmts):
        self.interp = interp
        self.name = name
        self._body = stmts
        self.ns: dict[str, Any] = {"__name__": name}
        self.loaded = False

    @property
    def stmts(self) -> list:
        b = self._body
        if isinstance(b, LazyBody):
            import json
            b = self._body = json.loads(b.text)
        return b

    def top_names(self) -> list[str] | None:
        """Names defined at top level, without decoding the body when the data lists them."""
        b = self._body
        if isinstance(b, LazyBody) and b.names is not None:
            return b.names
        return None

    def load(self):
        if not self.loaded:
            self.loaded = True
            self.interp.exec_module(self)
        return self

    def get(self, name):
        self.load()
        if name in self.ns:
            return self.ns[name]
        # a submodule
        sub = self.interp.find_module(f"{self.name}.{name}")
        if sub is not None:
            return sub
        raise AttributeError(f"module '{self.name}' has no attribute '{name}'")


class NativeModule:
    def __init__(self, name, attrs, fallback=None):
        self.name = name
        self.attrs = attrs
        self.fallback = fallback

    def get(self, name):
        if name in self.attrs:
            return self.attrs[name]
        if self.fallback is not None:
            return self.fallback(name)
        return Opaque(f"{self.name}.{name}")


class Frame:
    __slots__ = ("locals", "parent", "module", "func", "first", "yields")

    def __init__(self, module, parent=None, func=None, first=_MISSING):
        self.locals = {}
        self.parent = parent
        self.module = module
        self.func = func
        self.first = first
        self.yields = None


class NativeObj:
    """Base for native objects the interpreter dispatches to."""

    def n_getattr(self, i, name):
        raise AttributeError(name)

    def n_getitem(self, i, idx):
        raise TypeError("not subscriptable")

    def n_contains(self, i, item):
        raise TypeError("not iterable")

    def n_iter(self, i):
        raise TypeError("not iterable")


class Logger:
    def getattr(self, name):
        return NativeFunc(lambda i, a, k: None, "logger." + name)


# ---------------------------------------------------------------------------

_SAFE_BUILTINS = {
    name: getattr(builtins, name)
    for name in (
        "len", "int", "float", "str", "bool", "list", "dict", "tuple", "set", "frozenset", "min", "max",
        "sum", "any", "all", "range", "enumerate", "zip", "sorted", "reversed", "abs", "round", "iter",
        "next", "divmod", "pow", "chr", "ord", "format", "hash", "slice", "object", "bytes", "complex",
        "callable", "map", "filter",
        "Exception", "BaseException", "ValueError", "TypeError", "KeyError", "IndexError", "AttributeError",
        "RuntimeError", "NotImplementedError", "AssertionError", "ZeroDivisionError", "ArithmeticError",
        "LookupError", "OverflowError", "ImportError", "ModuleNotFoundError", "OSError", "EnvironmentError",
        "StopIteration", "Warning", "UserWarning", "DeprecationWarning", "FutureWarning", "NameError",
        "NotImplemented", "Ellipsis", "True", "False", "None",
    )
}
_BUILTIN_EXC_TYPES = tuple(v for v in _SAFE_BUILTINS.values() if isinstance(v, type) and issubclass(v, BaseException))

_VALUE_TYPES = (int, float, complex, str, bytes, bool, type(None), list, dict, tuple, set, frozenset, range,
                slice, TorchDtype, collections.OrderedDict, collections.defaultdict, _re.Match, _re.Pattern)
_DUNDER_OK = {"__name__", "__class__", "__qualname__", "__module__", "__doc__"}

_BINOPS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow, "LShift": operator.lshift,
    "RShift": operator.rshift, "BitOr": operator.or_, "BitAnd": operator.and_, "BitXor": operator.xor,
    "MatMult": operator.matmul,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}

_PY_TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool", list: "list", dict: "dict",
                  tuple: "tuple", set: "set", type(None): "NoneType"}


def _bounded_repeat(a, b) -> None:
    """``seq * n`` builds ``len(seq) * n`` items in one step, outside the step budget: past the
    budget's size (``['mamba'] * num_hidden_layers`` with 10**9 layers) the emulation stops,
    as it does for a loop that long, instead of exhausting memory."""
    seq, n = (a, b) if isinstance(b, int) else (b, a)
    if isinstance(seq, (list, tuple, str, bytes)) and isinstance(n, int) and len(seq) * n > STEP_BUDGET:
        raise Unsupported(f"the config's code builds a sequence of {len(seq) * n:,} items (past the "
                          f"{STEP_BUDGET:,}-step budget; a huge per-layer count?); kvguard stops there")


def _type_name(v) -> str:
    if isinstance(v, Inst):
        return v._k.name
    if isinstance(v, Klass):
        return "type"
    return type(v).__name__


class Interp:
    """Evaluates a set of translated modules (one transformers line + vLLM classes)."""

    def __init__(self, datasets: list[dict], *, transformers_major: int, transformers_version: str | None = None):
        self.modules: dict[str, ModuleNS] = {}
        self.tables: dict[str, Any] = {}
        self.tf_major = transformers_major
        self.tf_version = transformers_version or ("5.24.0" if transformers_major >= 5 else "4.57.6")
        for ds in datasets:
            for name, stmts in ds["modules"].items():
                self.modules[name] = ModuleNS(self, name, stmts)
            for key in ("config_mapping_names", "special_model_type_to_module", "model_mapping_names", "act2fn",
                        "causal_lm_mapping_names"):
                if key in ds:
                    self.tables[key] = ds[key]
        self._expr_cache: dict[str, ast.AST] = {}
        self._dispatch: dict[type, Any] = {}
        self._default_cache: dict[Any, tuple] = {}
        #: expressions left before the emulation gives up (see :meth:`bounded`)
        self.steps = UNBOUNDED
        self._index: dict[str, list[str]] | None = None
        self.config_extra: dict[str, Any] = {}  # AutoConfig.register()
        self._torch = _TorchModule()
        self._logger = Logger()
        self.natives = self._build_natives()
        self.base_config = None  # PretrainedConfig Klass, resolved lazily
        self.depth = 0

    # ----------------------------------------------------------- modules
    def find_module(self, name):
        m = self.modules.get(name)
        if m is not None:
            return m.load()
        if name in self.natives:
            return self.natives[name]
        return None

    def _name_index(self):
        if self._index is None:
            idx: dict[str, list[str]] = {}
            for mname, mod in self.modules.items():
                names = mod.top_names()
                if names is not None:
                    for n in names:
                        idx.setdefault(n, []).append(mname)
                    continue
                for st in mod.stmts:
                    if st[0] == "class":
                        idx.setdefault(st[1]["name"], []).append(mname)
                    elif st[0] == "=" and len(st[1]) == 1 and st[1][0].isidentifier():
                        idx.setdefault(st[1][0], []).append(mname)
                    elif st[0] == "def":
                        idx.setdefault(st[1]["name"], []).append(mname)
            self._index = idx
        return self._index

    def import_from(self, modname, attr):
        if attr is None:
            m = self.find_module(modname)
            return m if m is not None else Opaque(modname)
        native = self.natives.get(modname)
        if native is not None and attr in native.attrs:
            return native.attrs[attr]
        m = self.modules.get(modname)
        if m is not None:
            m.load()
            if attr in m.ns and not isinstance(m.ns[attr], Opaque):
                return m.ns[attr]
            sub = self.find_module(f"{modname}.{attr}")
            if sub is not None:
                return sub
            if not modname.endswith(("__init__",)) and attr in m.ns:
                return m.ns[attr]
        sub = self.find_module(f"{modname}.{attr}")
        if sub is not None:
            return sub
        # a package re-export: look for the name in modules under that package
        cands = [mn for mn in self._name_index().get(attr, []) if mn.startswith(modname + ".")]
        if not cands and modname in ("transformers", "vllm.transformers_utils.configs"):
            cands = self._name_index().get(attr, [])
        if cands:
            cands.sort(key=lambda mn: (not mn.endswith("configuration_utils"), len(mn)))
            for mn in cands:
                mod = self.find_module(mn)
                if attr in mod.ns:
                    return mod.ns[attr]
        if native is not None and native.fallback is None:
            return native.get(attr)
        return Opaque(f"{modname}.{attr}")

    def exec_module(self, mod: ModuleNS):
        frame = Frame(mod)
        frame.locals = mod.ns
        for st in mod.stmts:
            try:
                self.exec_stmt(st, frame)
            except (Unsupported, Exception) as e:  # noqa: BLE001 - lenient at module level
                for name in _stmt_targets(st):
                    mod.ns.setdefault(name, Opaque(f"{mod.name}.{name}: {type(e).__name__}: {e}"))

    def class_by_name(self, modname, name):
        v = self.import_from(modname, name)
        if isinstance(v, Opaque):
            raise Unsupported(f"class {modname}.{name} not available")
        return v

    # ----------------------------------------------------------- expressions
    def parse(self, src: str) -> ast.AST:
        node = self._expr_cache.get(src)
        if node is None:
            node = ast.parse(src, mode="eval").body
            self._expr_cache[src] = node
        return node

    def ev(self, src, frame):
        return self.eval(self.parse(src), frame)

    def lookup_name(self, name, frame):
        f = frame
        while f is not None:
            if name in f.locals:
                return f.locals[name]
            f = f.parent
        ns = frame.module.ns
        if name in ns:
            return ns[name]
        if name in _SAFE_BUILTINS:
            return _SAFE_BUILTINS[name]
        nat = self._builtin_natives.get(name)
        if nat is not None:
            return nat
        raise NameError(f"name '{name}' is not defined")

    def bounded(self, steps: int = STEP_BUDGET) -> None:
        """Allow ``steps`` more expression evaluations, then raise :class:`Unsupported`: a config
        whose code runs far longer than any real one (``num_hidden_layers: 10**9`` and a per-layer
        list) is undecidable, not a hang."""
        self.steps = steps

    def eval(self, node, frame):
        self.steps -= 1
        if self.steps < 0:
            self.steps = UNBOUNDED
            raise Unsupported(f"the config's code runs past {STEP_BUDGET:,} steps in kvguard's interpreter "
                              "(a huge per-layer count?); kvguard stops there")
        meth = self._dispatch.get(type(node))
        if meth is None:
            meth = getattr(self, "e_" + type(node).__name__, None)
            if meth is None:
                raise Unsupported(f"expression {type(node).__name__}")
            self._dispatch[type(node)] = meth
        return meth(node, frame)

    def e_Constant(self, n, f):
        return n.value

    def e_Name(self, n, f):
        return self.lookup_name(n.id, f)

    def e_Attribute(self, n, f):
        return self.getattr(self.eval(n.value, f), n.attr)

    def e_Subscript(self, n, f):
        obj = self.eval(n.value, f)
        idx = self.eval(n.slice, f)
        return self.getitem(obj, idx)

    def e_Slice(self, n, f):
        return slice(*(self.eval(x, f) if x is not None else None for x in (n.lower, n.upper, n.step)))

    def e_Tuple(self, n, f):
        return tuple(self._seq(n.elts, f))

    def e_List(self, n, f):
        return list(self._seq(n.elts, f))

    def e_Set(self, n, f):
        return set(self._seq(n.elts, f))

    def _seq(self, elts, f):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.iterate(self.eval(e.value, f)))
            else:
                out.append(self.eval(e, f))
        return out

    def e_Dict(self, n, f):
        out = {}
        for k, v in zip(n.keys, n.values):
            if k is None:
                val = self.eval(v, f)
                if isinstance(val, Inst):
                    raise Unsupported("** of an emulated object")
                out.update(val)
            else:
                key = self.eval(k, f)  # a dict display evaluates the key first
                out[key] = self.eval(v, f)
        return out

    def e_BinOp(self, n, f):
        a = self.eval(n.left, f)
        b = self.eval(n.right, f)
        op = type(n.op).__name__
        if isinstance(a, (Klass, UnionT)) or isinstance(b, (Klass, UnionT)) or (
                op == "BitOr" and (isinstance(a, _TYPEISH) or isinstance(b, _TYPEISH))):
            if op == "BitOr":
                return UnionT((a, b))
        if isinstance(a, (Inst, Opaque)) or isinstance(b, (Inst, Opaque)):
            raise Unsupported(f"binary operator on emulated object ({op})")
        if op == "Mult":
            _bounded_repeat(a, b)
        return _BINOPS[op](a, b)

    def e_UnaryOp(self, n, f):
        v = self.eval(n.operand, f)
        if isinstance(n.op, ast.Not):
            return not self.truth(v)
        if isinstance(v, (Inst, Opaque)):
            raise Unsupported("unary operator on emulated object")
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.UAdd):
            return +v
        return ~v

    def e_BoolOp(self, n, f):
        if isinstance(n.op, ast.And):
            v = True
            for x in n.values:
                v = self.eval(x, f)
                if not self.truth(v):
                    return v
            return v
        v = False
        for x in n.values:
            v = self.eval(x, f)
            if self.truth(v):
                return v
        return v

    def e_Compare(self, n, f):
        left = self.eval(n.left, f)
        for op, rnode in zip(n.ops, n.comparators):
            right = self.eval(rnode, f)
            if isinstance(op, ast.In):
                ok = self.contains(right, left)
            elif isinstance(op, ast.NotIn):
                ok = not self.contains(right, left)
            elif isinstance(op, ast.Is):
                ok = left is right or (isinstance(left, TorchDtype) and left == right)
            elif isinstance(op, ast.IsNot):
                ok = not (left is right or (isinstance(left, TorchDtype) and left == right))
            elif isinstance(op, (ast.Eq, ast.NotEq)):
                ok = self.eq(left, right)
                if isinstance(op, ast.NotEq):
                    ok = not ok
            else:
                if isinstance(left, (Inst, Opaque)) or isinstance(right, (Inst, Opaque)):
                    raise Unsupported("ordering of emulated objects")
                ok = _CMPOPS[type(op)](left, right)
            if not ok:
                return False
            left = right
        return True

    def e_IfExp(self, n, f):
        return self.eval(n.body, f) if self.truth(self.eval(n.test, f)) else self.eval(n.orelse, f)

    def e_NamedExpr(self, n, f):
        v = self.eval(n.value, f)
        f.locals[n.target.id] = v
        return v

    def e_JoinedStr(self, n, f):
        parts = []
        for v in n.values:
            if isinstance(v, ast.Constant):
                parts.append(v.value)
            else:
                parts.append(self.e_FormattedValue(v, f))
        return "".join(parts)

    def e_FormattedValue(self, n, f):
        v = self.eval(n.value, f)
        if n.conversion == ord("r"):
            v = self.repr(v)
        elif n.conversion == ord("s"):
            v = self.str(v)
        elif n.conversion == ord("a"):
            v = ascii(v)
        spec = self.e_JoinedStr(n.format_spec, f) if n.format_spec is not None else ""
        if isinstance(v, (Inst, Klass, Opaque, Func, BoundMethod)):
            v = self.str(v)
        return format(v, spec)

    def e_Lambda(self, n, f):
        a = n.args
        spec = {"name": "<lambda>", "args": [x.arg for x in a.posonlyargs + a.args], "vararg": a.vararg.arg if a.vararg else None,
                "kwonly": [[x.arg, None] for x in a.kwonlyargs], "kwarg": a.kwarg.arg if a.kwarg else None,
                "defaults": [], "body": []}
        defaults = [self.eval(d, f) for d in a.defaults]
        return Func(spec, f.module, f, "<lambda>", defaults, {}, "<lambda>", lambda_body=n.body)

    def _comp(self, gens, f, emit):
        def rec(i, fr):
            if i == len(gens):
                emit(fr)
                return
            g = gens[i]
            seq = self.iterate(self.eval(g.iter, fr))
            hash_ordered = _hash_ordered(seq)
            for item in seq:
                self.assign(g.target, item, fr)
                try:
                    if all(self.truth(self.eval(c, fr)) for c in g.ifs):
                        rec(i + 1, fr)
                except Exception as e:
                    if hash_ordered:
                        _mark_hash_order(e)
                    raise
        inner = Frame(f.module, parent=f, func=f.func, first=f.first)
        rec(0, inner)

    def e_ListComp(self, n, f):
        out = []
        self._comp(n.generators, f, lambda fr: out.append(self.eval(n.elt, fr)))
        return out

    e_GeneratorExp = e_ListComp

    def e_SetComp(self, n, f):
        out = set()
        self._comp(n.generators, f, lambda fr: out.add(self.eval(n.elt, fr)))
        return out

    def e_DictComp(self, n, f):
        out = {}

        def emit(fr):
            key = self.eval(n.key, fr)  # key first (Python 3.8+)
            out[key] = self.eval(n.value, fr)
        self._comp(n.generators, f, emit)
        return out

    def e_Yield(self, n, f):
        fr = f
        while fr is not None and fr.yields is None:
            fr = fr.parent
        if fr is None:
            raise Unsupported("yield outside generator")
        fr.yields.append(self.eval(n.value, f) if n.value is not None else None)
        return None

    def e_YieldFrom(self, n, f):
        fr = f
        while fr is not None and fr.yields is None:
            fr = fr.parent
        if fr is None:
            raise Unsupported("yield outside generator")
        fr.yields.extend(self.iterate(self.eval(n.value, f)))
        return None

    def e_Starred(self, n, f):
        raise Unsupported("starred expression")

    def e_Call(self, n, f):
        fn_node = n.func
        # zero-argument super()
        if isinstance(fn_node, ast.Name) and fn_node.id == "super" and not n.args:
            if f.func is None or f.func.owner is None or f.first is _MISSING:
                fr = f
                while fr is not None and (fr.func is None or fr.func.owner is None):
                    fr = fr.parent
                if fr is None:
                    raise Unsupported("super() outside a method")
                return SuperProxy(fr.func.owner, fr.first)
            return SuperProxy(f.func.owner, f.first)
        fn = self.eval(fn_node, f)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, f)
                if v is None or isinstance(v, (int, float, bool)):
                    raise TypeError(f"{self._fullname(fn)}() argument after * must be an iterable, "
                                    f"not {type(v).__name__}")
                args.extend(self.iterate(v))
            else:
                args.append(self.eval(a, f))
        kwargs = {}
        for k in n.keywords:
            v = self.eval(k.value, f)
            if k.arg is None:
                if isinstance(v, Inst):
                    raise Unsupported("** of an emulated object")
                if not isinstance(v, dict):
                    raise TypeError(f"{self._fullname(fn)}() argument after ** must be a mapping, "
                                    f"not {type(v).__name__}")
                for kk, vv in v.items():
                    if kk in kwargs:
                        raise TypeError(f"{self._fullname(fn)}() got multiple values for keyword argument '{kk}'")
                    kwargs[kk] = vv
            else:
                kwargs[k.arg] = v
        return self.call(fn, args, kwargs)

    def _fullname(self, fn):
        if isinstance(fn, Klass):
            return f"{fn.module}.{fn.name}"
        if isinstance(fn, Func):
            return f"{fn.module.name}.{fn.qualname}" if fn.module is not None else fn.qualname
        if isinstance(fn, BoundMethod):
            return self._fullname(fn.func)
        if isinstance(fn, NativeFunc):
            return fn.name
        return getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))

    def _callable_name(self, fn):
        if isinstance(fn, Func):
            return fn.qualname
        if isinstance(fn, BoundMethod):
            return self._callable_name(fn.func)
        if isinstance(fn, Klass):
            return fn.name
        return getattr(fn, "__name__", "function")

    # ----------------------------------------------------------- calls
    def call(self, fn, args, kwargs):
        if isinstance(fn, Func):
            return self.call_func(fn, args, kwargs)
        if isinstance(fn, BoundMethod):
            return self.call(fn.func, [fn.obj, *args], kwargs)
        if isinstance(fn, NativeFunc):
            return fn.fn(self, args, kwargs)
        if isinstance(fn, Klass):
            return self.instantiate(fn, args, kwargs)
        if isinstance(fn, Opaque):
            raise Unsupported(f"call of {fn.what}")
        ov = self._type_call_overrides.get(fn) if isinstance(fn, type) else None
        if ov is not None:
            return ov(self, args, kwargs)
        if fn is TorchDtype:
            raise Unsupported("torch.dtype()")
        if isinstance(fn, type) and issubclass(fn, BaseException):
            return fn(*args, **kwargs)
        if fn in _PY_CALLABLES or _is_value_method(fn):
            if getattr(fn, "__name__", "") in ("format", "format_map") and isinstance(getattr(fn, "__self__", None), str):
                _check_format(fn.__self__)
                args = [self.str(a) if isinstance(a, (Inst, Klass)) else a for a in args]
            args = [self._to_py_callable(a) for a in args]
            kwargs = {k: self._to_py_callable(v) for k, v in kwargs.items()}
            if fn is isinstance:  # never reached: isinstance is native
                raise Unsupported("isinstance")
            return fn(*args, **kwargs)
        raise Unsupported(f"call of {fn!r}")

    def _to_py_callable(self, v):
        if isinstance(v, (Func, BoundMethod, NativeFunc)):
            return lambda *a, **k: self.call(v, list(a), k)
        return v

    def call_func(self, fn: Func, args, kwargs):
        spec = fn.spec
        frame = Frame(fn.module, parent=fn.closure, func=fn)
        loc = frame.locals
        params = spec["args"]
        nargs = len(params)
        if len(args) > nargs and not spec["vararg"]:
            raise TypeError(f"{fn.qualname}() takes {nargs} positional argument{'s' if nargs != 1 else ''} "
                            f"but {len(args)} were given")
        for name, v in zip(params, args):
            loc[name] = v
        if spec["vararg"]:
            loc[spec["vararg"]] = tuple(args[nargs:])
        kw_names = {k for k, _ in spec["kwonly"]}
        extra = {}
        for k, v in kwargs.items():
            if k in params:
                if k in loc:
                    raise TypeError(f"{fn.qualname}() got multiple values for argument '{k}'")
                loc[k] = v
            elif k in kw_names:
                loc[k] = v
            elif spec["kwarg"]:
                extra[k] = v
            else:
                raise TypeError(f"{fn.qualname}() got an unexpected keyword argument '{k}'")
        nd = len(fn.defaults)
        missing = []
        for i, name in enumerate(params):
            if name not in loc:
                j = i - (nargs - nd)
                if j >= 0:
                    loc[name] = fn.defaults[j]
                else:
                    missing.append(name)
        if missing:
            names = " and ".join(f"'{m}'" for m in missing) if len(missing) <= 2 else \
                ", ".join(f"'{m}'" for m in missing[:-1]) + f", and '{missing[-1]}'"
            raise TypeError(f"{fn.qualname}() missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) > 1 else ''}: {names}")
        for k, _ in spec["kwonly"]:
            if k not in loc:
                if k in fn.kwdefaults:
                    loc[k] = fn.kwdefaults[k]
                else:
                    raise TypeError(f"{fn.qualname}() missing 1 required keyword-only argument: '{k}'")
        if spec["kwarg"]:
            loc[spec["kwarg"]] = extra
        if params:
            frame.first = loc.get(params[0], _MISSING)
        if fn.lambda_body is not None:
            return self.eval(fn.lambda_body, frame)
        if fn.is_gen is None:
            fn.is_gen = _has_yield(spec["body"])
        if fn.is_gen:
            frame.yields = []
        self.depth += 1
        if self.depth > 200:
            self.depth = 0
            raise Unsupported("recursion too deep")
        try:
            self.exec_block(spec["body"], frame)
        except _Return as r:
            return r.value if not fn.is_gen else iter(frame.yields)
        finally:
            self.depth -= 1
        if fn.is_gen:
            return iter(frame.yields)
        return None

    def instantiate(self, k: Klass, args, kwargs):
        if k.typeddict:
            return dict(*args, **kwargs)
        if not args and not kwargs and self.is_config_class(k):
            # ``Cls()`` (what to_diff_dict / recursive_diff_dict build on every repr) depends on
            # nothing but the class: build it once, hand out deep copies
            hit = self._default_cache.get(k)
            if hit is None:
                try:
                    hit = (True, self._instantiate(k, [], {}))
                except Exception as e:  # noqa: BLE001 - an emulated exception, replayed below
                    hit = (False, e)
                self._default_cache[k] = hit
            ok, val = hit
            if not ok:
                raise _copy.copy(val).with_traceback(None)
            from ._natives import deepcopy_value
            return deepcopy_value(self, val, {})
        return self._instantiate(k, args, kwargs)

    def is_config_class(self, k: Klass) -> bool:
        return any(kk.name in ("PretrainedConfig", "PreTrainedConfig") and kk.module == "transformers.configuration_utils"
                   for kk in k.mro)

    def class_changed(self, k: Klass) -> None:
        """A class attribute changed (e.g. vLLM sets ``model_type``): drop cached default instances."""
        for kk in list(self._default_cache):
            if k in kk.mro:
                del self._default_cache[kk]

    def _instantiate(self, k: Klass, args, kwargs):
        obj = Inst(k)
        init, _ = k.lookup("__init__")
        if init is _MISSING:
            if args or kwargs:
                raise TypeError(f"{k.name}() takes no arguments")
            return obj
        self.call(self.bind(init, obj, k), args, kwargs)
        return obj

    def bind(self, attr, obj, k):
        if isinstance(attr, (Func,)) or (isinstance(attr, NativeFunc) and attr.bind):
            return BoundMethod(attr, obj)
        if isinstance(attr, ClassMethod):
            return BoundMethod(attr.f, k)
        if isinstance(attr, StaticMethod):
            return attr.f
        return attr

    # ----------------------------------------------------------- attributes
    def getattr(self, obj, name):
        if isinstance(obj, Inst):
            ga, _ = obj._k.lookup("__getattribute__")
            try:
                if ga is _MISSING:
                    return self.object_getattribute(obj, name)
                return self.call(ga, [obj, name], {})
            except AttributeError:
                gattr, _ = obj._k.lookup("__getattr__")
                if gattr is _MISSING:
                    raise
                return self.call(gattr, [obj, name], {})
        if isinstance(obj, Klass):
            return self.klass_getattr(obj, name)
        if isinstance(obj, SuperProxy):
            return self.super_getattr(obj, name)
        if isinstance(obj, (ModuleNS, NativeModule)):
            return obj.get(name)
        if isinstance(obj, (_TorchModule, Logger)):
            return obj.getattr(name)
        if isinstance(obj, NativeObj):
            return obj.n_getattr(self, name)
        if isinstance(obj, Opaque):
            raise Unsupported(f"attribute {name} of {obj.what}")
        if isinstance(obj, Property):
            if name in ("fget", "fset", "fdel"):
                return getattr(obj, name)
            if name == "setter":
                return NativeFunc(lambda i, a, k, p=obj: Property(p.fget, a[0], p.fdel), "setter", bind=False)
            if name == "getter":
                return NativeFunc(lambda i, a, k, p=obj: Property(a[0], p.fset, p.fdel), "getter", bind=False)
            if name == "__set__":
                return NativeFunc(lambda i, a, k, p=obj: i.call(p.fset, [a[0], a[1]], {}), "__set__", bind=False)
            if name == "__get__":
                return NativeFunc(lambda i, a, k, p=obj: i.call(p.fget, [a[0]], {}), "__get__", bind=False)
        if isinstance(obj, Field):
            return getattr(obj, name)
        if isinstance(obj, Func):
            if name == "__name__":
                return obj.name
            if name == "__qualname__":
                return obj.qualname
            raise Unsupported(f"function attribute {name}")
        if isinstance(obj, BoundMethod):
            if name == "__self__":
                return obj.obj
            if name == "__func__":
                return obj.func
            return self.getattr(obj.func, name)
        if isinstance(obj, BaseException):
            if name == "args":
                return obj.args
            if name in ("__class__",):
                return type(obj)
            if name == "__name__":
                return type(obj).__name__
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
        if isinstance(obj, type) and obj in _TYPEISH_SET:
            if name in ("__name__", "__qualname__", "__module__"):
                return getattr(obj, name)
            if obj in (dict, collections.OrderedDict) and name == "fromkeys":
                return obj.fromkeys
            raise Unsupported(f"attribute {name} of {obj}")
        if isinstance(obj, _VALUE_TYPES) or isinstance(obj, _ITER_TYPES):
            if name.startswith("_") and name not in _DUNDER_OK:
                if not hasattr(obj, name):
                    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
                raise Unsupported(f"private attribute {name}")
            return getattr(obj, name)
        raise Unsupported(f"attribute {name} of {type(obj).__name__}")

    def object_getattribute(self, obj, name, start=None):
        k = obj._k
        if name == "__dict__":
            return obj._d
        if name == "__class__":
            return k
        attr, owner = k.lookup(name)
        if isinstance(attr, Property):
            if isinstance(attr, ClassProperty):
                return self.call(attr.fget, [k], {})
            if attr.fget is None:
                raise AttributeError(f"property '{name}' of '{k.name}' object has no getter")
            return self.call(attr.fget, [obj], {})
        d = obj._d
        if name in d:
            return d[name]
        if attr is not _MISSING:
            return self.bind(attr, obj, k)
        raise AttributeError(f"'{k.name}' object has no attribute '{name}'")

    def klass_getattr(self, k: Klass, name):
        if name == "__name__":
            return k.name
        if name == "__qualname__":
            return k.name
        if name == "__module__":
            return k.module
        if name == "__mro__":
            return tuple(k.mro)
        if name == "__dict__":
            return k.ns
        if name == "__bases__":
            return tuple(k.bases)
        attr, _ = k.lookup(name)
        if attr is _MISSING:
            if name == "__init__" or name == "__init_subclass__":
                return NativeFunc(lambda i, a, kw: None, "object." + name)
            raise AttributeError(f"type object '{k.name}' has no attribute '{name}'")
        if isinstance(attr, ClassMethod):
            return BoundMethod(attr.f, k)
        if isinstance(attr, StaticMethod):
            return attr.f
        if isinstance(attr, ClassProperty):
            return self.call(attr.fget, [k], {})
        return attr

    def super_getattr(self, sp: SuperProxy, name):
        obj = sp.obj
        k = obj if isinstance(obj, Klass) else obj._k
        mro = k.mro
        try:
            i = mro.index(sp.start)
        except ValueError:
            raise Unsupported("super(): class not in MRO") from None
        for kk in mro[i + 1:]:
            if name in kk.ns:
                attr = kk.ns[name]
                if isinstance(obj, Klass):
                    if isinstance(attr, ClassMethod):
                        return BoundMethod(attr.f, obj)
                    if isinstance(attr, StaticMethod):
                        return attr.f
                    if isinstance(attr, (Func, NativeFunc)):
                        return attr
                    return attr
                if isinstance(attr, Property):
                    if isinstance(attr, ClassProperty):
                        return self.call(attr.fget, [k], {})
                    return self.call(attr.fget, [obj], {})
                return self.bind(attr, obj, k)
        # object's methods
        native = self._object_methods.get(name)
        if native is not None:
            if isinstance(obj, Klass):
                return native
            return BoundMethod(native, obj)
        raise AttributeError(f"'super' object has no attribute '{name}'")

    def setattr(self, obj, name, value):
        if isinstance(obj, Inst):
            sa, _ = obj._k.lookup("__setattr__")
            if sa is _MISSING:
                return self.object_setattr(obj, name, value)
            self.call(sa, [obj, name, value], {})
            return None
        if isinstance(obj, Klass):
            obj.ns[name] = value
            self.class_changed(obj)
            return None
        if isinstance(obj, Field):
            setattr(obj, name, value)
            return None
        if isinstance(obj, _VALUE_TYPES) and type(obj) in _PY_TYPE_NAMES:
            if hasattr(obj, name):
                raise AttributeError(f"'{type(obj).__name__}' object attribute '{name}' is read-only")
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
        raise Unsupported(f"setattr on {type(obj).__name__}")

    def object_setattr(self, obj, name, value):
        k = obj._k
        attr, _ = k.lookup(name)
        if isinstance(attr, Property):
            if attr.fset is None:
                raise AttributeError(f"property '{name}' of '{k.name}' object has no setter")
            self.call(attr.fset, [obj, value], {})
            return None
        obj._d[name] = value
        return None

    def delattr(self, obj, name):
        if isinstance(obj, Inst):
            da, _ = obj._k.lookup("__delattr__")
            if da is not _MISSING:
                self.call(da, [obj, name], {})
                return
            attr, _ = obj._k.lookup(name)
            if isinstance(attr, Property):
                if attr.fdel is None:
                    raise AttributeError(f"property '{name}' of '{obj._k.name}' object has no deleter")
                self.call(attr.fdel, [obj], {})
                return
            if name not in obj._d:
                raise AttributeError(f"'{obj._k.name}' object has no attribute '{name}'")
            del obj._d[name]
            return
        if isinstance(obj, Klass):
            if name not in obj.ns:
                raise AttributeError(name)
            del obj.ns[name]
            return
        raise Unsupported("delattr")

    def hasattr(self, obj, name):
        try:
            self.getattr(obj, name)
        except AttributeError:
            return False
        return True

    # ----------------------------------------------------------- protocols
    def _dunder(self, obj, name):
        attr, _ = obj._k.lookup(name)
        return attr

    def iterate(self, obj):
        if isinstance(obj, Inst):
            it = self._dunder(obj, "__iter__")
            if it is _MISSING:
                gi = self._dunder(obj, "__getitem__")
                if gi is _MISSING:
                    raise TypeError(f"'{obj._k.name}' object is not iterable")
                out = []
                bound = self.bind(gi, obj, obj._k)
                for idx in range(100000):
                    try:
                        out.append(self.call(bound, [idx], {}))
                    except (IndexError, StopIteration):
                        return out
                raise Unsupported("iteration too long")
            res = self.call(self.bind(it, obj, obj._k), [], {})
            return list(self.iterate(res)) if isinstance(res, Inst) else res
        if isinstance(obj, NativeObj):
            return obj.n_iter(self)
        if isinstance(obj, (Opaque, Klass, Func, BoundMethod, NativeFunc)):
            if isinstance(obj, Klass) and obj.is_sub(obj):
                raise Unsupported("iteration over a class")
            raise Unsupported(f"iteration over {obj!r}")
        return obj

    def contains(self, container, item):
        if isinstance(container, Inst):
            c = self._dunder(container, "__contains__")
            if c is not _MISSING:
                return self.truth(self.call(self.bind(c, container, container._k), [item], {}))
            for x in self.iterate(container):
                if x is item or self.eq(x, item):
                    return True
            return False
        if isinstance(container, NativeObj):
            return container.n_contains(self, item)
        if isinstance(container, (Opaque, Klass)):
            raise Unsupported("membership in emulated object")
        if isinstance(item, Inst):
            return any(x is item or self.eq(x, item) for x in container)
        return item in container

    def getitem(self, obj, idx):
        if isinstance(obj, Inst):
            gi = self._dunder(obj, "__getitem__")
            if gi is _MISSING:
                raise TypeError(f"'{obj._k.name}' object is not subscriptable")
            return self.call(self.bind(gi, obj, obj._k), [idx], {})
        if isinstance(obj, NativeObj):
            return obj.n_getitem(self, idx)
        if isinstance(obj, NativeFunc) and obj.name == "type":
            return type  # ``type[X]`` in an annotation
        if isinstance(obj, Klass):
            return obj  # Generic[...] in annotations
        if isinstance(obj, Opaque):
            raise Unsupported(f"subscript of {obj.what}")
        if isinstance(obj, type) or obj in (typing.Literal, typing.Union, typing.Optional, typing.ClassVar):
            if isinstance(idx, tuple) and any(isinstance(x, (Klass, UnionT)) for x in idx):
                if obj is typing.Union:
                    return UnionT(idx)
                if obj is typing.Optional:
                    return UnionT((idx, type(None)))
                return obj
            if isinstance(idx, (Klass, UnionT)):
                if obj is typing.Optional:
                    return UnionT((idx, type(None)))
                if obj is typing.ClassVar:
                    return typing.ClassVar
                return obj
        return obj[idx]

    def length(self, obj):
        if isinstance(obj, Inst):
            ln = self._dunder(obj, "__len__")
            if ln is _MISSING:
                raise TypeError(f"object of type '{obj._k.name}' has no len()")
            return self.call(self.bind(ln, obj, obj._k), [], {})
        if isinstance(obj, Opaque):
            raise Unsupported("len of opaque")
        return len(obj)

    def truth(self, v):
        if isinstance(v, Inst):
            b = self._dunder(v, "__bool__")
            if b is not _MISSING:
                return bool(self.call(self.bind(b, v, v._k), [], {}))
            ln = self._dunder(v, "__len__")
            if ln is not _MISSING:
                return bool(self.call(self.bind(ln, v, v._k), [], {}))
            return True
        if isinstance(v, Opaque):
            raise Unsupported(f"truth of {v.what}")
        return bool(v)

    def eq(self, a, b):
        if isinstance(a, Inst):
            e = self._dunder(a, "__eq__")
            if e is not _MISSING:
                r = self.call(self.bind(e, a, a._k), [b], {})
                if r is not NotImplemented:
                    return self.truth(r)
            return a is b
        if isinstance(b, Inst):
            return self.eq(b, a)
        if isinstance(a, Opaque) or isinstance(b, Opaque):
            raise Unsupported("comparison with opaque")
        return a == b

    def repr(self, v):
        if isinstance(v, (Inst, Opaque, Func, BoundMethod, NativeFunc)):
            if isinstance(v, Inst):
                r = self._dunder(v, "__repr__")
                if isinstance(r, Func):
                    return self.call(self.bind(r, v, v._k), [], {})
            raise Unsupported("repr of emulated object")
        if isinstance(v, Klass):
            return repr(v)
        if isinstance(v, (list, tuple, dict, set)) and _contains_emulated(v):
            raise Unsupported("repr of container with emulated objects")
        return repr(v)

    def str(self, v):
        if isinstance(v, str):
            return v
        if isinstance(v, BaseException):
            return str(v)
        return self.repr(v)

    # ----------------------------------------------------------- statements
    def exec_block(self, stmts, frame):
        for st in stmts:
            self.exec_stmt(st, frame)

    def exec_stmt(self, st, frame):
        op = st[0]
        if op == "expr":
            self.ev(st[1], frame)
        elif op == "=":
            value = self.ev(st[2], frame)
            for t in st[1]:
                self.assign(self.parse(t), value, frame)
        elif op == "if":
            if self.truth(self.ev(st[1], frame)):
                self.exec_block(st[2], frame)
            else:
                self.exec_block(st[3], frame)
        elif op == "return":
            raise _Return(self.ev(st[1], frame) if st[1] is not None else None)
        elif op == "raise":
            self.do_raise(st, frame)
        elif op == "ann":
            self.do_ann(st, frame)
        elif op == "aug":
            target = self.parse(st[1])
            cur = self.eval(target, frame)
            val = self.ev(st[3], frame)
            if isinstance(cur, (Inst, Opaque)) or isinstance(val, (Inst, Opaque)):
                raise Unsupported("augmented assignment on emulated object")
            if isinstance(cur, (list, set, dict)) and st[2] in ("Add", "BitOr"):
                if st[2] == "Add":
                    cur += val
                else:
                    cur |= val
                new = cur
            else:
                if st[2] == "Mult":
                    _bounded_repeat(cur, val)
                new = _BINOPS[st[2]](cur, val)
            self.assign(target, new, frame)
        elif op == "for":
            target = self.parse(st[1])
            broke = False
            seq = self.iterate(self.ev(st[2], frame))
            hash_ordered = _hash_ordered(seq)
            for item in list(seq):
                self.assign(target, item, frame)
                try:
                    self.exec_block(st[3], frame)
                except _Break:
                    broke = True
                    break
                except _Continue:
                    continue
                except Exception as e:
                    if hash_ordered:
                        _mark_hash_order(e)
                    raise
            if not broke:
                self.exec_block(st[4], frame)
        elif op == "while":
            n = 0
            broke = False
            while self.truth(self.ev(st[1], frame)):
                n += 1
                if n > 100000:
                    raise Unsupported("loop too long")
                try:
                    self.exec_block(st[2], frame)
                except _Break:
                    broke = True
                    break
                except _Continue:
                    continue
            if not broke:
                self.exec_block(st[3], frame)
        elif op == "continue":
            raise _Continue()
        elif op == "break":
            raise _Break()
        elif op == "del":
            for t in st[1]:
                self.delete(self.parse(t), frame)
        elif op == "assert":
            if not self.truth(self.ev(st[1], frame)):
                if st[2] is not None:
                    raise AssertionError(self.ev(st[2], frame))
                raise AssertionError()
        elif op == "try":
            self.do_try(st, frame)
        elif op == "import":
            for local, (mod, attr) in st[1].items():
                v = self.import_from(mod, attr)
                if attr is not None and isinstance(v, Opaque) and frame.func is None and mod in self.modules:
                    # a module-level ``from <extracted module> import <missing name>``: ImportError, as in
                    # Python (``try: ... except ImportError:`` fallbacks); inside functions the name stays
                    # opaque (Undecidable when used)
                    raise ImportError(f"cannot import name '{attr}' from '{mod}'")
                frame.locals[local] = v
        elif op == "def":
            fn = self.make_func(st[1], frame)
            frame.locals[st[1]["name"]] = self.decorate(fn, st[1]["deco"], frame)
        elif op == "class":
            k = self.make_class(st[1], frame)
            frame.locals[st[1]["name"]] = k
        elif op == "with":
            raise Unsupported("with statement")
        elif op == "log":
            # arguments of a logging / warnings call: evaluated for their side effects (exceptions)
            for src in st[1]:
                try:
                    self.ev(src, frame)
                except Unsupported:
                    pass
        elif op == "unsupported":
            raise Unsupported(st[1])
        else:
            raise Unsupported(f"statement {op}")

    def do_raise(self, st, frame):
        if st[1] is None:
            raise Unsupported("bare raise outside handler")  # handled in do_try
        exc = self.ev(st[1], frame)
        if isinstance(exc, type) and issubclass(exc, BaseException):
            exc = exc()
        if not isinstance(exc, BaseException):
            raise Unsupported(f"raise of {exc!r}")
        if st[2] is not None:
            cause = self.ev(st[2], frame)
            raise exc from cause
        raise exc

    def do_try(self, st, frame):
        _, body, handlers, orelse, final = st
        try:
            try:
                self.exec_block(body, frame)
            except (Unsupported, _Return, _Break, _Continue):
                raise
            except Exception as e:  # noqa: BLE001
                for typ_src, name, hbody in handlers:
                    if typ_src is not None:
                        typ = self.ev(typ_src, frame)
                        types = typ if isinstance(typ, tuple) else (typ,)
                        if any(isinstance(t, (Opaque, Klass)) for t in types):
                            raise Unsupported("except clause with emulated exception class") from e
                        if not isinstance(e, types):
                            continue
                    if name:
                        frame.locals[name] = e
                    try:
                        self.exec_block_reraise(hbody, frame, e)
                    finally:
                        if name:
                            frame.locals.pop(name, None)
                    break
                else:
                    raise
            else:
                self.exec_block(orelse, frame)
        finally:
            if final:
                self.exec_block(final, frame)

    def exec_block_reraise(self, stmts, frame, exc):
        for st in stmts:
            if st[0] == "raise" and st[1] is None:
                raise exc
            self.exec_stmt(st, frame)

    def do_ann(self, st, frame):
        target = self.parse(st[1])
        if isinstance(target, ast.Name) and frame.func is None and "__annotations__" in frame.locals:
            # class body: record the annotation
            try:
                ann = self.ev(st[2], frame)
            except (Unsupported, Exception):  # noqa: BLE001
                ann = Opaque(st[2])
            frame.locals["__annotations__"][target.id] = ann
        if st[3] is not None:
            self.assign(target, self.ev(st[3], frame), frame)

    def assign(self, target, value, frame):
        if isinstance(target, ast.Name):
            frame.locals[target.id] = value
        elif isinstance(target, ast.Attribute):
            self.setattr(self.eval(target.value, frame), target.attr, value)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, frame)
            idx = self.eval(target.slice, frame)
            if isinstance(obj, Inst):
                si = self._dunder(obj, "__setitem__")
                if si is _MISSING:
                    raise TypeError(f"'{obj._k.name}' object does not support item assignment")
                self.call(self.bind(si, obj, obj._k), [idx, value], {})
            elif isinstance(obj, (Opaque, Klass)):
                raise Unsupported("item assignment on emulated object")
            else:
                obj[idx] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self.iterate(value))
            star = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if star:
                i = star[0]
                after = len(target.elts) - i - 1
                if len(items) < len(target.elts) - 1:
                    raise ValueError(f"not enough values to unpack (expected at least {len(target.elts) - 1}, "
                                     f"got {len(items)})")
                for e, v in zip(target.elts[:i], items[:i]):
                    self.assign(e, v, frame)
                self.assign(target.elts[i].value, items[i:len(items) - after], frame)
                for e, v in zip(target.elts[i + 1:], items[len(items) - after:]):
                    self.assign(e, v, frame)
                return
            if len(items) != len(target.elts):
                if len(items) > len(target.elts):
                    raise ValueError(f"too many values to unpack (expected {len(target.elts)})")
                raise ValueError(f"not enough values to unpack (expected {len(target.elts)}, got {len(items)})")
            for e, v in zip(target.elts, items):
                self.assign(e, v, frame)
        else:
            raise Unsupported(f"assignment target {type(target).__name__}")

    def delete(self, target, frame):
        if isinstance(target, ast.Name):
            if target.id not in frame.locals:
                raise NameError(f"name '{target.id}' is not defined")
            del frame.locals[target.id]
        elif isinstance(target, ast.Attribute):
            self.delattr(self.eval(target.value, frame), target.attr)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, frame)
            if isinstance(obj, (Inst, Opaque, Klass)):
                raise Unsupported("del item of emulated object")
            del obj[self.eval(target.slice, frame)]
        else:
            raise Unsupported("del target")

    # ----------------------------------------------------------- definitions
    def make_func(self, spec, frame, owner_name=None):
        defaults = [self.ev(d, frame) for d in spec["defaults"]]
        kwdefaults = {k: self.ev(d, frame) for k, d in spec["kwonly"] if d is not None}
        if owner_name:
            qual = f"{owner_name}.{spec['name']}"
        elif frame.func is not None:
            qual = f"{frame.func.qualname}.<locals>.{spec['name']}"
        else:
            qual = spec["name"]
        closure = frame if frame.func is not None else None
        return Func(spec, frame.module, closure, spec["name"], defaults, kwdefaults, qual)

    def decorate(self, fn, decos, frame, in_class=False):
        out = fn
        for d in reversed(decos):
            if d == "property":
                out = Property(out)
            elif d == "classmethod":
                out = ClassMethod(out)
            elif d == "staticmethod":
                out = StaticMethod(out)
            elif d == "classproperty":
                out = ClassProperty(out)
            elif d.endswith(".setter") and in_class:
                prop = frame.locals.get(d[: -len(".setter")])
                if not isinstance(prop, Property):
                    raise Unsupported("setter of unknown property")
                out = (ClassProperty if isinstance(prop, ClassProperty) else Property)(prop.fget, out, prop.fdel)
            elif d.endswith(".getter") and in_class:
                prop = frame.locals.get(d[: -len(".getter")])
                out = Property(out, prop.fset, prop.fdel)
            elif d.endswith(".deleter") and in_class:
                prop = frame.locals.get(d[: -len(".deleter")])
                out = Property(prop.fget, prop.fset, out)
            else:
                try:
                    deco = self.ev(d, frame)
                except (Unsupported, Exception):  # noqa: BLE001
                    continue  # unknown decorator: keep the function as it is
                if isinstance(deco, (Opaque,)) or deco is None:
                    continue
                try:
                    res = self.call(deco, [out], {})
                except Unsupported:
                    continue
                out = res if res is not None else out
        return out

    def make_class(self, spec, frame):
        name = spec["name"]
        bases = []
        for b in spec["bases"]:
            try:
                bv = self.ev(b, frame)
            except (Unsupported, Exception):  # noqa: BLE001
                bv = Opaque(b)
            bases.append(bv)
        # exception classes and TypedDicts become native objects
        if any(isinstance(b, type) and issubclass(b, BaseException) for b in bases):
            real = [b for b in bases if isinstance(b, type) and issubclass(b, BaseException)]
            cls = type(name, tuple(real), {})
            cls.__module__ = frame.module.name
            return cls
        is_typeddict = any(b is TYPED_DICT_BASE or (isinstance(b, Klass) and b.typeddict) for b in bases)
        kbases = []
        for b in bases:
            if isinstance(b, Klass):
                kbases.append(b)
            elif isinstance(b, Opaque):
                kbases.append(self._empty_class(b.what))
            # object, typing.Generic, dict, etc. are ignored
        ns: dict[str, Any] = {"__annotations__": {}, "__module__": frame.module.name}
        cframe = Frame(frame.module, parent=None)
        cframe.locals = ns
        # class body names are visible only through the class frame, but module globals resolve too
        owner_funcs = []
        for st in spec["body"]:
            try:
                if st[0] == "def":
                    fn = self.make_func(st[1], cframe, owner_name=name)
                    owner_funcs.append(fn)
                    ns[st[1]["name"]] = self.decorate(fn, st[1]["deco"], cframe, in_class=True)
                else:
                    self.exec_stmt(st, cframe)
            except (Unsupported, Exception) as e:  # noqa: BLE001
                for t in _stmt_targets(st):
                    ns[t] = Opaque(f"{name}.{t}: {e}")
        fast = _FAST_METHODS.get((frame.module.name, name))
        if fast:
            for meth, impl in fast.items():
                cur = ns.get(meth)
                if isinstance(cur, Func):
                    ns[meth] = NativeFunc(impl, f"{name}.{meth}")
                elif isinstance(cur, ClassMethod) and isinstance(cur.f, Func):
                    ns[meth] = ClassMethod(NativeFunc(impl, f"{name}.{meth}"))
        k = Klass(self, name, frame.module.name, kbases, ns)
        k.typeddict = is_typeddict
        for fn in owner_funcs:
            fn.owner = k
        # __init_subclass__ of the nearest base that defines one
        if kbases:
            isc, owner = kbases[0].lookup("__init_subclass__") if len(kbases) == 1 else _first_lookup(k, "__init_subclass__")
            if isc is not _MISSING:
                f = isc.f if isinstance(isc, ClassMethod) else isc
                self.call(f, [k], {})
        out = k
        for d in reversed(spec["deco"]):
            try:
                deco = self.ev(d, frame)
            except (Unsupported, Exception):  # noqa: BLE001
                continue
            if isinstance(deco, Opaque):
                continue
            try:
                res = self.call(deco, [out], {})
            except Unsupported:
                continue
            if isinstance(res, Klass):
                out = res
        return out

    def _empty_class(self, what):
        k = Klass(self, what.rsplit(".", 1)[-1], "opaque", [], {})
        return k

    # ----------------------------------------------------------- natives
    def _build_natives(self):
        def n_isinstance(i, a, k):
            obj, typ = a
            return i.isinstance(obj, typ)

        def n_issubclass(i, a, k):
            c, typ = a
            types = typ if isinstance(typ, tuple) else (typ,)
            for t in types:
                if isinstance(c, Klass) and isinstance(t, Klass) and c.is_sub(t):
                    return True
                if isinstance(c, type) and isinstance(t, type) and issubclass(c, t):
                    return True
            return False

        def n_getattr(i, a, k):
            if len(a) == 3:
                try:
                    return i.getattr(a[0], a[1])
                except AttributeError:
                    return a[2]
            return i.getattr(a[0], a[1])

        def n_hasattr(i, a, k):
            return i.hasattr(a[0], a[1])

        def n_setattr(i, a, k):
            i.setattr(a[0], a[1], a[2])

        def n_delattr(i, a, k):
            i.delattr(a[0], a[1])

        def n_type(i, a, k):
            if len(a) != 1:
                raise Unsupported("type() with 3 args")
            v = a[0]
            if isinstance(v, Inst):
                return v._k
            return type(v)

        def n_repr(i, a, k):
            return i.repr(a[0])

        def n_str(i, a, k):
            if not a:
                return ""
            return i.str(a[0])

        def n_len(i, a, k):
            return i.length(a[0])

        def n_list(i, a, k):
            return list(i.iterate(a[0])) if a else []

        def n_tuple(i, a, k):
            return tuple(i.iterate(a[0])) if a else ()

        def n_set(i, a, k):
            return set(i.iterate(a[0])) if a else set()

        def n_dict(i, a, k):
            if a and isinstance(a[0], Inst):
                raise Unsupported("dict(emulated object)")
            return dict(*a, **k)

        def n_sorted(i, a, k):
            k = {kk: i._to_py_callable(v) for kk, v in k.items()}
            return sorted(list(i.iterate(a[0])), **k)

        def n_enumerate(i, a, k):
            return list(enumerate(i.iterate(a[0]), *a[1:], **k))

        def n_zip(i, a, k):
            return list(zip(*[i.iterate(x) for x in a], **k))

        def n_any(i, a, k):
            return any(i.truth(x) for x in i.iterate(a[0]))

        def n_all(i, a, k):
            return all(i.truth(x) for x in i.iterate(a[0]))

        def n_vars(i, a, k):
            if isinstance(a[0], Inst):
                return a[0]._d
            raise Unsupported("vars()")

        def n_bool(i, a, k):
            return i.truth(a[0]) if a else False

        def n_id(i, a, k):
            return id(a[0])

        def n_callable(i, a, k):
            v = a[0]
            if isinstance(v, Inst):
                return v._k.lookup("__call__")[0] is not _MISSING
            return isinstance(v, (Func, BoundMethod, NativeFunc, Klass)) or callable(v)

        def n_print(i, a, k):
            return None

        self._builtin_natives = {
            "isinstance": NativeFunc(n_isinstance, "isinstance", bind=False),
            "issubclass": NativeFunc(n_issubclass, "issubclass", bind=False),
            "getattr": NativeFunc(n_getattr, "getattr", bind=False),
            "hasattr": NativeFunc(n_hasattr, "hasattr", bind=False),
            "setattr": NativeFunc(n_setattr, "setattr", bind=False),
            "delattr": NativeFunc(n_delattr, "delattr", bind=False),
            "type": NativeFunc(n_type, "type", bind=False),
            "repr": NativeFunc(n_repr, "repr", bind=False),
            "len": NativeFunc(n_len, "len", bind=False),
            "sorted": NativeFunc(n_sorted, "sorted", bind=False),
            "enumerate": NativeFunc(n_enumerate, "enumerate", bind=False),
            "zip": NativeFunc(n_zip, "zip", bind=False),
            "any": NativeFunc(n_any, "any", bind=False),
            "all": NativeFunc(n_all, "all", bind=False),
            "vars": NativeFunc(n_vars, "vars", bind=False),
            "id": NativeFunc(n_id, "id", bind=False),
            "callable": NativeFunc(n_callable, "callable", bind=False),
            "print": NativeFunc(n_print, "print", bind=False),
        }
        # list/tuple/set/dict/str/bool are types: wrap calls but keep isinstance working
        self._type_call_overrides = {list: n_list, tuple: n_tuple, set: n_set, dict: n_dict, str: n_str,
                                     bool: n_bool}

        def obj_getattribute(i, a, k):
            return i.object_getattribute(a[0], a[1])

        def obj_setattr(i, a, k):
            return i.object_setattr(a[0], a[1], a[2])

        def obj_delattr(i, a, k):
            obj, name = a
            if name not in obj._d:
                raise AttributeError(name)
            del obj._d[name]

        def obj_init(i, a, k):
            return None

        def obj_init_subclass(i, a, k):
            return None

        def obj_repr(i, a, k):
            raise Unsupported("object.__repr__")

        def obj_eq(i, a, k):
            return NotImplemented

        self._object_methods = {
            "__getattribute__": NativeFunc(obj_getattribute, "object.__getattribute__"),
            "__setattr__": NativeFunc(obj_setattr, "object.__setattr__"),
            "__delattr__": NativeFunc(obj_delattr, "object.__delattr__"),
            "__init__": NativeFunc(obj_init, "object.__init__"),
            "__init_subclass__": NativeFunc(obj_init_subclass, "object.__init_subclass__"),
            "__post_init__": Opaque("object.__post_init__"),
            "__repr__": NativeFunc(obj_repr, "object.__repr__"),
            "__eq__": NativeFunc(obj_eq, "object.__eq__"),
        }

        from . import _natives
        return _natives.build(self)

    def isinstance(self, obj, typ):
        types = typ if isinstance(typ, tuple) else (typ,)
        for t in types:
            if isinstance(t, UnionT):
                if self.isinstance(obj, t.args):
                    return True
                continue
            if isinstance(t, Klass):
                if t.typeddict:
                    raise TypeError("TypedDict does not support instance and class checks")
                if isinstance(obj, Inst) and obj._k.is_sub(t):
                    return True
                continue
            if isinstance(t, Opaque):
                if isinstance(obj, (Inst, Opaque)):
                    raise Unsupported(f"isinstance with {t.what}")
                continue  # a plain value is not an instance of an unknown library class
            if t is TorchDtype:
                if isinstance(obj, TorchDtype):
                    return True
                continue
            if t is TYPED_DICT_BASE:
                raise TypeError("TypedDict does not support instance and class checks")
            if isinstance(t, type):
                if isinstance(obj, Inst):
                    if t is object:
                        return True
                    continue
                if isinstance(obj, Klass):
                    if t is type:
                        return True
                    continue
                if isinstance(obj, t):
                    return True
                continue
            if typing.get_origin(t) is not None:
                raise TypeError("Subscripted generics cannot be used with class and instance checks")
            raise Unsupported(f"isinstance with {t!r}")
        return False


def _cfg_getattribute(i, a, kw):
    """PretrainedConfig.__getattribute__ (attribute_map aliasing), natively for speed."""
    obj, key = a
    if key != "attribute_map":
        amap = i.object_getattribute(obj, "attribute_map")
        if key in amap:
            key = amap[key]
    if i.tf_major >= 5:
        return _het_getattribute(i, [obj, key], kw)
    return i.object_getattribute(obj, key)


def _cfg_setattr(i, a, kw):
    """PretrainedConfig.__setattr__ (attribute_map aliasing), natively for speed."""
    obj, key, value = a
    amap = i.object_getattribute(obj, "attribute_map")
    if key in amap:
        key = amap[key]
    return i.object_setattr(obj, key, value)


def _het_getattribute(i, a, kw):
    """HeterogeneousConfigMixin.__getattribute__ (transformers 5)."""
    obj, key = a
    spec = obj._d.get("_heterogeneity_spec")
    if spec is not None:
        if i.contains(i.getattr(spec, "per_layer_attributes"), key):
            if not i.truth(i.object_getattribute(obj, "allow_global_per_layer_attribute_access")):
                exc = i.import_from("transformers.integrations.heterogeneity.configuration_utils",
                                    "AmbiguousGlobalPerLayerAttributeError")
                if not (isinstance(exc, type) and issubclass(exc, BaseException)):
                    raise Unsupported("AmbiguousGlobalPerLayerAttributeError")
                raise exc(
                    f"'{key}' is a per-layer attribute and may vary across layers. Access it via the individual "
                    f"layer configs instead (e.g. config.per_layer_config[i].{key}). To read the global config "
                    f"value from config.{key} anyway, set `allow_global_per_layer_attribute_access` to `True` on "
                    f"the config. Warning: only do this if the caller can safely handle heterogeneous configs; "
                    f"code that assumes a homogeneous model may use the global value incorrectly.")
    return i.object_getattribute(obj, key)


def _encode_special_floats(i, a, kw):
    """PreTrainedConfig._encode_special_floats (classmethod; a[0] is the class)."""
    def enc(obj):
        if isinstance(obj, float):
            if math.isnan(obj):
                return {"__float__": "NaN"}
            if obj == float("inf"):
                return {"__float__": "Infinity"}
            if obj == float("-inf"):
                return {"__float__": "-Infinity"}
            return obj
        if isinstance(obj, dict):
            return {k: enc(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [enc(v) for v in obj]
        return obj
    return enc(a[1])


def _getattr_without_het(i, a, kw):
    """HeterogeneousConfigMixin._getattr_without_heterogeneous_validation."""
    obj, key = a[0], a[1]
    default = a[2] if len(a) > 2 else kw.get("default", _MISSING)
    if key != "attribute_map":
        amap = i.object_getattribute(obj, "attribute_map")
        if key in amap:
            key = amap[key]
    try:
        return i.object_getattribute(obj, key)
    except AttributeError:
        if default is _MISSING:
            raise
        return default


#: (module, class) -> {method: native}: exact re-implementations of hot, simple methods
_FAST_METHODS = {
    ("transformers.configuration_utils", "PretrainedConfig"): {
        "__getattribute__": _cfg_getattribute, "__setattr__": _cfg_setattr},
    ("transformers.configuration_utils", "PreTrainedConfig"): {
        "__getattribute__": _cfg_getattribute, "__setattr__": _cfg_setattr},
    ("transformers.integrations.heterogeneity.configuration_utils", "HeterogeneousConfigMixin"): {
        "__getattribute__": _het_getattribute, "_getattr_without_heterogeneous_validation": _getattr_without_het},
}

TYPED_DICT_BASE = object()
_TYPEISH = (type, type(int | None), type(typing.Optional[int]), type(list[int]))
def _hash_ordered(seq) -> bool:
    """A set / frozenset of 2+ strings: Python iterates it in an order that depends on the process's hash seed
    (PYTHONHASHSEED), so which element a loop over it fails on first differs between two ``vllm serve``."""
    if not isinstance(seq, (set, frozenset)) or len(seq) < 2:
        return False
    return sum(isinstance(x, (str, bytes)) for x in seq) >= 2


def _mark_hash_order(e: BaseException) -> None:
    try:
        e._kvg_hash_order = True
    except AttributeError:  # an exception type without __dict__
        pass


_TYPEISH_SET = {int, float, str, bool, list, dict, tuple, set, frozenset, type(None), object, bytes, complex,
                collections.OrderedDict, collections.defaultdict, type}
_ITER_TYPES = (type(iter([])), type(iter({})), type(iter(())), type(iter(set())), type({}.keys()),
               type({}.values()), type({}.items()), type(iter(range(0))), type(reversed([])),
               type(iter(str())), map, filter, zip, enumerate, reversed)
_PY_CALLABLES = {v for v in _SAFE_BUILTINS.values() if callable(v) and not isinstance(v, bool)}
_PY_CALLABLES |= {_re.match, _re.search, _re.sub, _re.fullmatch, _re.findall, _re.split, _re.compile,
                  math.ceil, math.floor, math.sqrt, math.log, math.log2, math.log10, math.isfinite, math.isinf,
                  math.isnan, math.prod, math.gcd, math.exp, math.pow, math.fsum, math.isclose, math.trunc,
                  collections.OrderedDict, collections.defaultdict, operator.itemgetter,
                  typing.cast}


def _is_value_method(fn) -> bool:
    self_obj = getattr(fn, "__self__", None)
    if self_obj is None:
        return False
    name = getattr(fn, "__name__", "")
    if name.startswith("_"):
        return False
    return isinstance(self_obj, _VALUE_TYPES) or self_obj in _TYPEISH_SET or isinstance(self_obj, _ITER_TYPES)


def _check_format(fmt: str) -> None:
    """str.format may only fill fields, not walk attributes of its arguments."""
    import string
    for _, field, spec, _ in string.Formatter().parse(fmt):
        if field and ("." in field or "[" in field):
            raise Unsupported("str.format with attribute or item access")
        if spec and "{" in spec:
            _check_format(spec)


def _contains_emulated(v) -> bool:
    if isinstance(v, (Inst, Opaque, Func, BoundMethod, NativeFunc)):
        return True
    if isinstance(v, dict):
        return any(_contains_emulated(x) for x in v.keys()) or any(_contains_emulated(x) for x in v.values())
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(_contains_emulated(x) for x in v)
    return False


def _first_lookup(k: Klass, name):
    for kk in k.mro[1:]:
        if name in kk.ns:
            return kk.ns[name], kk
    return _MISSING, None


def _has_yield(stmts) -> bool:
    s = repr(stmts)
    if "yield" not in s:
        return False
    # confirm on the AST (a string constant may say "yield")
    for node in _walk_exprs(stmts):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
    return False


def _walk_exprs(stmts):
    for st in stmts:
        op = st[0]
        for part in st[1:]:
            if isinstance(part, str):
                try:
                    yield from ast.walk(ast.parse(part, mode="eval"))
                except SyntaxError:
                    pass
            elif isinstance(part, list) and part and isinstance(part[0], list):
                if op == "try" and part is st[2]:
                    for h in part:
                        yield from _walk_exprs(h[2])
                else:
                    yield from _walk_exprs(part)


def _stmt_targets(st) -> list[str]:
    op = st[0]
    if op == "=":
        out = []
        for t in st[1]:
            out.extend(x.strip() for x in t.strip("()").split(",") if x.strip().isidentifier())
        return out
    if op == "ann":
        return [st[1]] if st[1].isidentifier() else []
    if op in ("def", "class"):
        return [st[1]["name"]]
    if op == "import":
        return list(st[1])
    return []
