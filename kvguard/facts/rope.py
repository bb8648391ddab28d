"""RoPE settings as the config classes check them while they are built.

transformers 4.x validates ``config.rope_scaling`` per RoPE type (transformers
``modeling_rope_utils.rope_config_validation``, 4.57.6): required keys missing raise a KeyError
naming them; everything else it checks only logs a warning — but the comparisons behind those
warnings run on whatever value the config holds, so a value of the wrong type raises there as
Python does.  This module checks the same things in the same order.

The key sets per RoPE type are facts of the line (the ``rope`` table of the class tables).
"""

from __future__ import annotations

from typing import Any

from ..errors import Undecidable

__all__ = ["validate_rope_4"]


class HashOrder(KeyError):
    """A KeyError whose message prints a set of strings: its order follows Python's string hashing, which
    differs from process to process, so only its type and its elements are facts."""


def _check_received_keys(rope_type: Any, received: set, required: set, optional: "set | None",
                         ignore: "set | None") -> None:
    if "type" in received:
        received -= {"type"}
        required.add("rope_type")
    if ignore is not None:
        received -= ignore
    missing = required - received
    if missing:
        exc = KeyError(f"Missing required keys in `rope_scaling` for 'rope_type'='{rope_type}': {missing}")
        if len(missing) > 1:
            exc._kvg_hash_order = True  # type: ignore[attr-defined]
        raise exc


def validate_rope_4(config: Any, ignore_keys: Any, table: dict) -> None:
    """``rope_config_validation(config, ignore_keys)`` of transformers 4.x."""
    scaling = getattr(config, "rope_scaling", None)
    if scaling is None:
        return
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    spec = table.get(rope_type) if isinstance(rope_type, str) else None
    if spec is None:
        hash(rope_type)  # the validator table lookup: TypeError for an unhashable rope type
        return  # a warning: no validator for this rope type
    own_type = scaling.get("rope_type", scaling.get("type", None))
    received = set(scaling.keys())
    required = set(spec["required"])
    optional = set(spec["optional"]) if spec.get("optional") is not None else None
    ignore = set(ignore_keys) if ignore_keys is not None else None
    _check_received_keys(own_type, received, required, optional, ignore)
    if optional is not None:
        received - required - optional
    check = _CHECKS.get(rope_type)
    if check is not None:
        check(config, scaling)


def _factor_warning(factor: Any) -> None:
    if factor is None or not isinstance(factor, float) or factor < 1.0:
        pass  # a warning


def _linear(config: Any, scaling: dict) -> None:
    _factor_warning(scaling["factor"])


def _yarn(config: Any, scaling: dict) -> None:
    factor = scaling["factor"]
    _factor_warning(factor)
    attention_factor = scaling.get("attention_factor")
    if attention_factor is not None and (not isinstance(attention_factor, float) or attention_factor < 0):
        pass
    beta_fast = scaling.get("beta_fast")
    beta_slow = scaling.get("beta_slow")
    if (beta_fast or 32) < (beta_slow or 1):
        pass
    original = config.rope_scaling.get("original_max_position_embeddings")
    if original is not None:
        implicit = config.max_position_embeddings / original
        if implicit != factor:
            pass


def _longrope(config: Any, scaling: dict) -> None:
    partial = getattr(config, "partial_rotary_factor", 1.0)
    head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
    dim = int(head_dim * partial)
    for key in ("short_factor", "long_factor"):
        value: Any = scaling.get(key)   # what the config holds, unchecked: transformers iterates it as is
        if not isinstance(value, list) and all(isinstance(x, (int, float)) for x in value):
            pass
        if len(value) != dim // 2:
            pass
    if hasattr(config, "original_max_position_embeddings"):
        return
    factor = scaling.get("factor")
    if factor is not None and (not isinstance(factor, float) or factor < 1.0):
        pass
    attention_factor = scaling.get("attention_factor")
    if attention_factor is not None and (not isinstance(attention_factor, float) or attention_factor < 0.0):
        pass


def _llama3(config: Any, scaling: dict) -> None:
    _factor_warning(scaling["factor"])
    low = scaling["low_freq_factor"]
    high = scaling["high_freq_factor"]
    if high <= low:
        pass
    original = scaling["original_max_position_embeddings"]
    if original >= config.max_position_embeddings:
        pass


_CHECKS = {"linear": _linear, "dynamic": _linear, "yarn": _yarn, "longrope": _longrope, "llama3": _llama3}

_ = Undecidable
