"""What both transformers lines' readers share: the model-type mapping, building a configuration class, and
the class a step names.

:class:`ConfigLibrary` is the base of :class:`~kvguard.facts.transformers4.Transformers4` and
:class:`~kvguard.facts.transformers5.Transformers5`.  Each line says how a class's ``__init__`` runs
(``_init``), where a class records its sub-configs (:meth:`ConfigLibrary.sub_config_name`), which classes it
has (``class_facts``) and in which order ``CONFIG_MAPPING`` lists its model types (``mapping_keys``).
"""

from __future__ import annotations

from ..errors import Undecidable
from .frame import Frame, literal, merge_keywords
from .objects import ClassFacts, ConfigObject

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ConfigLibrary"]


class ConfigLibrary:
    """A transformers line as kvguard reads it: its measured class tables plus kvguard's own code."""

    #: model types registered for this load (vLLM's own config classes) -> their class
    registered: dict
    #: ``CONFIG_MAPPING``: model type -> class name
    config_mapping: dict
    #: vLLM's own configuration classes (``classes``, ``class_aliases``) for the release read
    vllm: dict

    def class_facts(self, name: str) -> ClassFacts:
        raise NotImplementedError

    def mapping_keys(self) -> list:
        raise NotImplementedError

    def _init(self, obj: ConfigObject, cls: ClassFacts, kwargs: dict) -> None:
        raise NotImplementedError

    def sub_config_name(self, cls: ClassFacts, key: str) -> Optional[Any]:
        """The class name ``cls`` records for its sub-config ``key`` (None: none recorded)."""
        raise NotImplementedError

    # -- the model-type mapping -----------------------------------------------------------------
    def class_for_model_type(self, model_type: Any) -> ClassFacts:
        """``CONFIG_MAPPING[model_type]`` (KeyError as transformers raises it)."""
        if isinstance(model_type, str) and model_type in self.registered:
            return self.registered[model_type]
        name = self.config_mapping.get(model_type) if isinstance(model_type, str) else None
        if name is None:
            if not isinstance(model_type, str):
                hash(model_type)  # TypeError: unhashable type, as the mapping lookup raises
            raise KeyError(model_type)
        return self.class_facts(name)

    def knows_model_type(self, model_type: Any) -> bool:
        """``model_type in CONFIG_MAPPING``."""
        return model_type in self.registered or model_type in self.config_mapping

    # -- building ---------------------------------------------------------------------------------
    def build(self, cls: ClassFacts, kwargs: dict) -> ConfigObject:
        """``cls(**kwargs)``."""
        obj = ConfigObject(cls)
        self._init(obj, cls, kwargs)
        return obj

    def build_by_model_type(self, model_type: Any, kwargs: dict) -> ConfigObject:
        return self.build(self.class_for_model_type(model_type), dict(kwargs))

    def for_model(self, kwargs: dict) -> ConfigObject:
        """``AutoConfig.for_model(**kwargs)``."""
        if "model_type" not in kwargs:
            raise TypeError("AutoConfig.for_model() missing 1 required positional argument: 'model_type'")
        model_type = kwargs.pop("model_type")
        if self.knows_model_type(model_type):
            return self.build(self.class_for_model_type(model_type), kwargs)
        raise ValueError(f"Unrecognized model identifier: {model_type}. Should contain one of "
                         f"{', '.join(self.mapping_keys())}")

    def build_class_ref(self, frame: Frame, ref: dict, kwargs: Any, keywords: "dict | None" = None) -> ConfigObject:
        """A class named in a step (``{"class": name}``, ``{"sub": key}``, ``{"mapping": ...}``) built with
        ``kwargs`` (``**kwargs`` in the source: a non-mapping raises as Python does), after the call's
        explicit ``keywords``."""
        if "class" in ref:
            name = ref["class"]
            if frame.cls.name.startswith("vllm:"):
                if "vllm:" + name in self.vllm["classes"]:
                    name = "vllm:" + name
                else:
                    name = self.vllm.get("class_aliases", {}).get(name, name)
            cls = self.class_facts(name)
        elif "sub" in ref:
            sub_name = self.sub_config_name(frame.obj.kvg_facts, ref["sub"])
            if not isinstance(sub_name, str):
                raise Undecidable(f"{frame.cls.name}: sub-config {ref['sub']!r} is not modelled")
            cls = self.class_facts(sub_name)
        elif "mapping" in ref:
            cls = self.class_for_model_type(literal(ref["mapping"]))
        elif "mapping_value" in ref:
            cls = self.class_for_model_type(ref["mapping_value"])
        else:
            raise Undecidable(f"{frame.cls.name}: class reference {ref} is not modelled")
        if kwargs is None or not hasattr(kwargs, "keys"):
            # CPython names the called class by module and qualified name
            raise TypeError(f"{cls.record.get('module', '')}.{cls.display}() argument after ** must be a mapping, "
                            f"not {type(kwargs).__name__}")
        if keywords:
            return self.build(cls, merge_keywords(f"{cls.record.get('module', '')}.{cls.display}", keywords, kwargs))
        return self.build(cls, dict(kwargs))

    # -- the object protocol ----------------------------------------------------------------------
    def getitem(self, obj: ConfigObject, key: Any) -> Any:
        raise TypeError(f"'{obj.kvg_class_name}' object is not subscriptable")
