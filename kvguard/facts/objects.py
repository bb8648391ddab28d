"""The config object vLLM reads, as kvguard holds it: attributes, aliases, sub-configs.

vLLM never reads config.json directly; it reads attributes of the object transformers (or vLLM's own
registry of config classes) builds from it.  :class:`ConfigObject` answers ``getattr`` / ``hasattr``
/ ``in`` / ``[]`` the way that object does — instance attributes first, then the class's attribute
map and class-level values, and the real library's error for a missing attribute — so that the
fact derivations in :mod:`kvguard.facts.model` read it exactly as vLLM's code reads the real one.

How the attributes get their values (class defaults, derivations, sub-configs) is decided in
:mod:`kvguard.facts.build` from the class tables (``kvguard/data/facts/``).
"""

from __future__ import annotations

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ClassFacts", "ConfigObject", "TorchDtype"]

_MISSING = object()


class TorchDtype:
    """Stands for a ``torch.dtype`` (``str()`` is ``"torch.bfloat16"``, as for the real one)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TorchDtype) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("torch", self.name))

    @property
    def itemsize(self) -> int:
        return DTYPE_SIZES.get(self.name, 0)


#: torch dtype attribute names -> canonical dtype name (``torch.half is torch.float16``)
DTYPE_NAMES: dict[str, str] = {
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
DTYPE_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "uint8": 1, "int8": 1, "int16": 2,
               "int32": 4, "int64": 8, "bool": 1, "complex64": 8, "complex128": 16, "float8_e4m3fn": 1,
               "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "uint16": 2, "uint32": 4,
               "uint64": 8}


def torch_attribute(name: str) -> Any:
    """``getattr(torch, name)`` for the dtype names a config may hold; AttributeError as torch raises."""
    canon = DTYPE_NAMES.get(name)
    if canon is None:
        raise AttributeError(f"module 'torch' has no attribute '{name}'")
    return TorchDtype(canon)


class ClassFacts:
    """One configuration class as the tables describe it (see kvguard/data/facts/README.md)."""

    __slots__ = ("name", "display", "record", "library", "attribute_map", "class_attrs", "parent", "properties",
                 "hooks")

    def __init__(self, name: str, record: dict, library: Any, parent: "ClassFacts | None"):
        self.name = name
        #: the class name as Python prints it (vLLM's classes are keyed "vllm:<name>" in the tables)
        self.display = name.removeprefix("vllm:")
        self.record = record
        self.library = library
        self.parent = parent
        amap = dict(parent.attribute_map) if parent is not None else {}
        amap.update(record.get("attribute_map") or {})
        self.attribute_map: dict[str, str] = amap
        attrs = dict(parent.class_attrs) if parent is not None else dict(library.base_class_attrs)
        attrs["model_type"] = record.get("model_type", attrs.get("model_type", ""))
        attrs["attribute_map"] = amap
        for key in ("base_config_key", "has_no_defaults_at_init", "is_composition"):
            if key in record:
                attrs[key] = record[key]
        subs = record.get("sub_configs")
        if isinstance(subs, dict) and "opaque_property" not in subs:
            attrs["sub_configs"] = dict(subs)   # keys are what code reads; values name the classes
        self.class_attrs: dict[str, Any] = attrs
        props = dict(parent.properties) if parent is not None else {}
        props.update(record.get("properties") or {})
        self.properties: dict[str, dict] = props
        hooks = dict(parent.hooks) if parent is not None else {}
        hooks.update(record.get("hooks") or {})
        self.hooks: dict[str, dict] = hooks

    def mro_names(self) -> list[str]:
        out: list[str] = []
        k: ClassFacts | None = self
        while k is not None:
            out.append(k.name)
            k = k.parent
        return out

    def is_sub(self, name: str) -> bool:
        return name in self.mro_names()

    def __repr__(self) -> str:
        return f"<class facts {self.name}>"


class ConfigObject:
    """A resolved config object (``LlamaConfig(...)`` as transformers would have built it)."""

    __slots__ = ("_kvg_class", "_kvg_attrs", "kvg_raw", "kvg_emulation", "kvg_assumptions",
                 "kvg_registry_architectures", "kvg_text_config", "__weakref__")

    def __init__(self, cls: ClassFacts):
        object.__setattr__(self, "_kvg_class", cls)
        object.__setattr__(self, "_kvg_attrs", {})
        object.__setattr__(self, "kvg_raw", {})
        object.__setattr__(self, "kvg_emulation", "generic")
        #: what kvguard assumed to build this object (reported with the verdict)
        object.__setattr__(self, "kvg_assumptions", ())
        #: a speculative draft wrapped after ModelConfig read it (kvguard.speculative.draft): the architectures
        #: the model registry looked up, and the text config vLLM kept (None: this object's own)
        object.__setattr__(self, "kvg_registry_architectures", None)
        object.__setattr__(self, "kvg_text_config", None)

    # -- attribute protocol --------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        cls = object.__getattribute__(self, "_kvg_class")
        return cls.library.get_attribute(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        cls = object.__getattribute__(self, "_kvg_class")
        cls.library.set_attribute(self, name, value)

    def __delattr__(self, name: str) -> None:
        attrs = object.__getattribute__(self, "_kvg_attrs")
        if name not in attrs:
            raise AttributeError(name)
        del attrs[name]

    def __contains__(self, item: Any) -> bool:
        cls = object.__getattribute__(self, "_kvg_class")
        return cls.library.contains(self, item)

    def __iter__(self):
        cls = object.__getattribute__(self, "_kvg_class")
        return cls.library.iterate(self)

    def __getitem__(self, key: Any) -> Any:
        cls = object.__getattribute__(self, "_kvg_class")
        return cls.library.getitem(self, key)

    def __repr__(self) -> str:
        return f"<{self.kvg_class_name} (kvguard)>"

    # -- methods vLLM calls on the real object -------------------------------------------------
    def get_text_config(self, decoder: Any = None, encoder: Any = None) -> Any:
        cls = object.__getattribute__(self, "_kvg_class")
        if decoder is not None or encoder is not None:
            raise Undecidable("get_text_config(decoder=/encoder=) is not modelled")
        return cls.library.text_config_of(self)

    def update(self, values: dict) -> None:
        for key, value in values.items():
            setattr(self, key, value)

    def to_dict(self) -> dict:
        raise Undecidable("PretrainedConfig.to_dict() is not modelled")

    # -- kvguard's own -------------------------------------------------------------------------
    @property
    def kvg_facts(self) -> ClassFacts:
        """The class this object is an instance of, as the tables describe it."""
        return object.__getattribute__(self, "_kvg_class")

    @property
    def kvg_class(self) -> str:
        """The class name, as ``type(config).__name__`` prints it."""
        return object.__getattribute__(self, "_kvg_class").display

    @property
    def kvg_class_name(self) -> str:
        return object.__getattribute__(self, "_kvg_class").display

    @property
    def kvg_attrs(self) -> dict:
        """The instance's ``__dict__`` (canonical attribute names, in assignment order)."""
        return object.__getattribute__(self, "_kvg_attrs")
