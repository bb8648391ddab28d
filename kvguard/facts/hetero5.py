"""Heterogeneous (per-layer) configs of transformers 5 (``per_layer_config``), in kvguard's own code.

transformers 5 lets a config name per-layer overrides of its attributes (``per_layer_config``: layer index ->
attribute -> value; Gemma 4 builds one for its full-attention layers).  Mirrors
``transformers/integrations/heterogeneity/configuration_utils.py`` (``HeterogeneousConfigMixin``), the same in
every 5.x line so far (its functions are fingerprinted by tools/facts_transformers5.py, behaviour group
``heterogeneity``):

* assigning ``per_layer_config`` normalises the overrides (integer layer indices, a ``skip`` list sorted),
  refuses indices outside ``[0, num_hidden_layers)`` and layers with both ``sliding_window`` and
  ``attention_chunk_size``, requires a global value for an attribute not given for every layer, drops overrides
  equal to the global value and records what is left (the "heterogeneity spec");
* reading an attribute that varies per layer from the whole config raises ``AmbiguousGlobalPerLayerAttributeError``
  (unless ``allow_global_per_layer_attribute_access`` is set), iterating the config hides such keys;
* ``per_layer_config`` reads as a sequence of per-layer configs (a shallow copy with the layer's overrides
  assigned); ``to_dict`` prints the overrides under ``per_layer_config``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence

from ..errors import Undecidable
from .objects import ConfigObject

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["AmbiguousGlobalPerLayerAttributeError", "HeterogeneitySpec", "PerLayerConfigView", "apply",
           "ambiguous", "iter_keys", "update_to_dict_output"]

#: more layers than this are not expanded one config per layer (the real loop would run that long)
MAX_LAYERS = 100_000

_MISSING = object()


class AmbiguousGlobalPerLayerAttributeError(RuntimeError):
    """Raised by transformers when a per-layer attribute is read from a heterogeneous config as a whole."""

    _kvg_module = "transformers.integrations.heterogeneity.configuration_utils"


class HeterogeneitySpec:
    """What assigning ``per_layer_config`` leaves on the config (``config._heterogeneity_spec``)."""

    __slots__ = ("per_layer_overrides", "per_layer_attributes", "explicit_per_layer_attributes")

    def __init__(self, per_layer_overrides: dict, per_layer_attributes: set, explicit: set):
        self.per_layer_overrides = per_layer_overrides
        self.per_layer_attributes = per_layer_attributes
        self.explicit_per_layer_attributes = explicit

    def __deepcopy__(self, memo: dict) -> "HeterogeneitySpec":
        return HeterogeneitySpec(copy.deepcopy(self.per_layer_overrides, memo),
                                 set(self.per_layer_attributes), set(self.explicit_per_layer_attributes))


def spec_of(obj: ConfigObject) -> "HeterogeneitySpec | None":
    spec = obj.kvg_attrs.get("_heterogeneity_spec")
    return spec if isinstance(spec, HeterogeneitySpec) else None


def ambiguous(obj: ConfigObject, name: str) -> None:
    """Reading ``name`` (after the attribute map) from ``obj`` as a whole: raise as transformers does when the
    attribute varies per layer."""
    spec = spec_of(obj)
    if spec is not None and name in spec.per_layer_attributes \
            and not obj.kvg_attrs.get("allow_global_per_layer_attribute_access", False):
        raise AmbiguousGlobalPerLayerAttributeError(
            f"'{name}' is a per-layer attribute and may vary across layers. Access it via the individual layer "
            f"configs instead (e.g. config.per_layer_config[i].{name}). To read the global config value from "
            f"config.{name} anyway, set `allow_global_per_layer_attribute_access` to `True` on the config. "
            f"Warning: only do this if the caller can safely handle heterogeneous configs; code that assumes "
            f"a homogeneous model may use the global value incorrectly.")


def iter_keys(obj: ConfigObject, keys: Iterable) -> list:
    """``_iter_config_keys_with_heterogeneous_adjustment``: per-layer attributes hidden."""
    spec = spec_of(obj)
    if spec is not None and not obj.kvg_attrs.get("allow_global_per_layer_attribute_access", False):
        return [key for key in keys if key not in spec.per_layer_attributes]
    return list(keys)


def _raw(lib: Any, obj: ConfigObject, name: str, default: Any = _MISSING) -> Any:
    """``_getattr_without_heterogeneous_validation``."""
    try:
        return lib.get_attribute(obj, name, per_layer_check=False)
    except AttributeError:
        if default is _MISSING:
            raise
        return default


def _has_raw(lib: Any, obj: ConfigObject, name: str) -> bool:
    try:
        _raw(lib, obj, name)
    except AttributeError:
        return False
    return True


# -- assigning per_layer_config -----------------------------------------------------------------

def apply(lib: Any, obj: ConfigObject, per_layer_config: Any) -> None:
    """The ``per_layer_config`` setter."""
    if per_layer_config is None:
        obj.kvg_attrs.pop("_heterogeneity_spec", None)
        return
    if isinstance(per_layer_config, ConfigObject):
        raise Undecidable("a config object as per_layer_config is not modelled")
    overrides = {int(layer_idx): _normalize(layer_overrides)
                 for layer_idx, layer_overrides in per_layer_config.items()}
    _validate_layer_indices(obj, overrides)
    _validate_sliding_window_and_attention_chunk_size(lib, obj, overrides)
    spec = _make_spec(lib, obj, overrides)
    lib.set_attribute(obj, "_heterogeneity_spec", spec)


def _normalize(layer_overrides: Any) -> Any:
    if isinstance(layer_overrides, ConfigObject):
        raise Undecidable("a config object as a layer's overrides is not modelled")
    normalized = copy.deepcopy(layer_overrides)
    if "skip" in normalized:
        skip = normalized.pop("skip")
        if isinstance(skip, str) or not isinstance(skip, Iterable):
            raise TypeError("`skip` must be an iterable of strings.")
        skip = set(skip)
        if not all(isinstance(item, str) for item in skip):
            raise TypeError("`skip` must contain only strings.")
        if skip:
            normalized["skip"] = sorted(skip)
    return normalized


def _layers(n: Any) -> range:
    if isinstance(n, int) and n > MAX_LAYERS:
        raise Undecidable(f"num_hidden_layers={n}: kvguard does not check that many layers one by one")
    return range(n)


def _validate_layer_indices(obj: ConfigObject, overrides: dict) -> None:
    if not overrides:
        return
    num_hidden_layers = obj.num_hidden_layers
    invalid = [i for i in overrides if i < 0 or i >= num_hidden_layers]
    if invalid:
        raise ValueError(f"`per_layer_config` keys must be integer layer indices in the range [0, "
                         f"{num_hidden_layers}); got {invalid}.")


def _validate_sliding_window_and_attention_chunk_size(lib: Any, obj: ConfigObject, overrides: dict) -> None:
    problematic = []
    for layer_idx in _layers(obj.num_hidden_layers):
        layer_overrides = overrides.get(layer_idx, {})
        sliding_window = layer_overrides.get("sliding_window", _raw(lib, obj, "sliding_window", None))
        chunk = layer_overrides.get("attention_chunk_size", _raw(lib, obj, "attention_chunk_size", None))
        if sliding_window is not None and chunk is not None:
            problematic.append(layer_idx)
    if problematic:
        raise ValueError(
            f"The following layers have the mutually exclusive `sliding_window` and `attention_chunk_size` both "
            f"defined: {problematic}. To fix this, either remove a conflicting attribute from the global config,"
            f"or set it to `None` in `per_layer_config` for the problematic layers.")


def _attributes(overrides: dict) -> set:
    out: set = set()
    for layer_overrides in overrides.values():
        out.update(layer_overrides)
    out.discard("skip")
    return out


def _make_spec(lib: Any, obj: ConfigObject, overrides: dict) -> HeterogeneitySpec:
    explicit = _attributes(overrides)
    missing = set()
    for attr in sorted(explicit, key=str):  # (a set of names: only the sorted message is printed)
        if len(overrides) != obj.num_hidden_layers:
            if not _has_raw(lib, obj, attr):
                missing.add(attr)
        else:
            for layer_overrides in overrides.values():
                if attr not in layer_overrides:
                    if not _has_raw(lib, obj, attr):
                        missing.add(attr)
                    break
    if missing:
        raise ValueError(f"The following attributes are missing: {sorted(missing)}\nPlease define them globally, "
                         "or provide them for every layer in `per_layer_config`")
    for attr in explicit:
        if not _has_raw(lib, obj, attr):
            continue
        global_value = _raw(lib, obj, attr)
        if isinstance(global_value, ConfigObject):
            raise Undecidable(f"a per-layer override of the sub-config {attr!r} is not modelled")
        for layer_overrides in overrides.values():
            if attr in layer_overrides and layer_overrides[attr] == global_value:
                del layer_overrides[attr]
    for layer_idx, layer_overrides in list(overrides.items()):
        if not layer_overrides:
            del overrides[layer_idx]
    return HeterogeneitySpec(overrides, _attributes(overrides), explicit)


# -- reading per_layer_config ------------------------------------------------------------------

def layer_config(lib: Any, obj: ConfigObject, layer_overrides: dict) -> ConfigObject:
    """``_get_layer_config``: a shallow copy of ``obj`` with the layer's overrides assigned."""
    out = ConfigObject(obj.kvg_facts)
    out.kvg_attrs.update(obj.kvg_attrs)
    out.kvg_attrs.pop("_heterogeneity_spec", None)
    lib.set_attribute(out, "skip", layer_overrides.get("skip", []))
    for attr, value in layer_overrides.items():
        if attr == "skip":
            continue
        lib.set_attribute(out, attr, value)
    return out


class PerLayerConfigView(Sequence):
    """``config.per_layer_config``: the config of each layer (the config itself when it is homogeneous)."""

    def __init__(self, lib: Any, obj: ConfigObject):
        self._lib = lib
        self._config = obj

    def __len__(self) -> int:
        return self._config.num_hidden_layers

    def __getitem__(self, layer_idx: Any) -> Any:
        config = self._config
        if isinstance(layer_idx, str):
            layer_types = getattr(config, "layer_types", None)
            if layer_types is None:
                raise ValueError(f"Layer type '{layer_idx}' requested, but config.layer_types is not defined. ")
            if layer_idx not in layer_types:
                raise ValueError(f"Layer type '{layer_idx}' not found in config.layer_types: {layer_types}. "
                                 f"Available layer types: {set(layer_types)}")
            spec = spec_of(config)
            if spec is None:
                return config
            overrides = spec.per_layer_overrides
            reference = overrides.get(layer_types.index(layer_idx), {})
            for idx, layer_type in enumerate(layer_types):
                if layer_type == layer_idx and overrides.get(idx, {}) != reference:
                    raise ValueError(f"Layer type '{layer_idx}' is not homogeneous across layers (layer {idx} "
                                     "differs). Use an integer index to access a specific layer's config.")
            return layer_config(self._lib, config, reference)
        if isinstance(layer_idx, slice):
            return [self[i] for i in _layers_slice(layer_idx, len(self))]
        if layer_idx < 0:
            layer_idx += len(self)
        if layer_idx < 0 or layer_idx >= len(self):
            raise IndexError("list index out of range")
        if layer_idx >= MAX_LAYERS:
            raise Undecidable(f"more than {MAX_LAYERS} per-layer configs are not modelled")
        spec = spec_of(config)
        if spec is None:
            return config
        return layer_config(self._lib, config, spec.per_layer_overrides.get(layer_idx, {}))


def _layers_slice(s: slice, n: int) -> range:
    r = range(*s.indices(n))
    if len(r) > MAX_LAYERS:
        raise Undecidable(f"more than {MAX_LAYERS} per-layer configs are not modelled")
    return r


# -- printing ----------------------------------------------------------------------------------

def update_to_dict_output(lib: Any, obj: ConfigObject, d: dict) -> None:
    """``_update_heterogeneous_to_dict_output``."""
    spec = spec_of(obj)
    if spec is None:
        return
    if obj.kvg_attrs.get("serialize_explicit_per_layer_config", False):
        overrides = _explicit_overrides(lib, obj, spec)
    else:
        overrides = spec.per_layer_overrides
    if overrides:
        digits = len(str(max(overrides.keys())))
        d["per_layer_config"] = {str(i).zfill(digits): copy.deepcopy(o) for i, o in overrides.items()}
    else:
        d["per_layer_config"] = {}
    d.pop("_heterogeneity_spec", None)


def _explicit_overrides(lib: Any, obj: ConfigObject, spec: HeterogeneitySpec) -> dict:
    out = {}
    for layer_idx in _layers(obj.num_hidden_layers):
        layer_overrides = copy.deepcopy(spec.per_layer_overrides.get(layer_idx, {}))
        for attr in spec.explicit_per_layer_attributes:
            if attr not in layer_overrides:
                layer_overrides[attr] = _raw(lib, obj, attr)
        if layer_overrides:
            out[layer_idx] = layer_overrides
    return out
