"""vLLM's RoPE patches on the loaded config (``get_config``'s last step), per release.

vLLM rewrites the RoPE settings of the config it loaded so that its rotary-embedding code sees one
shape: 0.10.2–0.11.2 normalise ``rope_scaling`` (legacy ``type`` → ``rope_type``, ``su`` →
``longrope``, ``mrope`` → ``default``); from 0.12.0 the settings move to ``rope_parameters`` (with
``rope_theta``, later ``partial_rotary_factor`` and ``original_max_position_embeddings``), on the
config, its text config and every sub-config.  The variants below are the releases' own, read from
``vllm/transformers_utils/config.py``; their exceptions and messages are vLLM's.
"""

from __future__ import annotations

from ..errors import Undecidable

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["patch"]

#: variant -> (first release, last release or None); the releases between use the older variant
VARIANTS: tuple[tuple[str, str, "str | None"], ...] = (
    ("scaling", "0.10.2", "0.11.2"),          # patch_rope_scaling
    ("parameters_0.12", "0.12.0", "0.12.0"),  # rope_theta only; layer-type keys decide nesting
    ("parameters_0.13", "0.13.0", "0.13.0"),  # + rotary_emb_base / partial_rotary_factor aliases
    ("parameters_0.14", "0.14.0", "0.20.2"),  # + original_max_position_embeddings in the 4.x block; nesting check
    ("parameters_0.21", "0.21.0", None),      # nested settings left alone; patch_legacy_rope_type
)

#: patch_legacy_rope_type: from 0.22.1 a dict without ``rope_type`` is left as it is (before: ValueError)
LEGACY_ROPE_TYPE_TOLERANT_SINCE = "0.22.1"

_CONFLICT = ("Found conflicts between 'rope_type={rope_type}' (modern field) and 'type={legacy}' (legacy field). "
             "You should only specify one of them.")


def _variant(release) -> str:
    for name, first, last in VARIANTS:
        if release.within(first, last):
            return name
    raise Undecidable(f"vLLM {release.version}: RoPE patch not modelled")


def patch(lib: Any, config: Any, release) -> None:
    variant = _variant(release)
    if variant == "scaling":
        _patch_scaling(config)
        return
    _patch_parameters(lib, config, release, variant)
    _patch_parameters(lib, config.get_text_config(), release, variant)
    subs = config.sub_configs if hasattr(config, "sub_configs") else None
    if subs is not None and subs:
        for key in subs:
            _patch_parameters(lib, getattr(config, key), release, variant)


# -- 0.10.2–0.11.2 ---------------------------------------------------------------------------

def _patch_scaling(config: Any) -> None:
    text = getattr(config, "text_config", None)
    if text is not None:
        _patch_scaling(text)
    scaling = getattr(config, "rope_scaling", None)
    if scaling is not None:
        _normalise(scaling, "rope_scaling", strict_mrope=False, modern_pairs=False, tolerant=False)


def _normalise(params: Any, what: str, *, strict_mrope: bool, modern_pairs: bool, tolerant: bool) -> None:
    """Legacy ``type`` → ``rope_type``; ``su`` → ``longrope``; ``mrope`` → ``default``."""
    if "rope_type" in params and "type" in params:
        rope_type, legacy = params["rope_type"], params["type"]
        if modern_pairs and ((legacy == "su" and rope_type == "longrope")
                             or (legacy == "mrope" and rope_type == "default")):
            pass
        elif rope_type != legacy:
            raise ValueError(_CONFLICT.format(rope_type=rope_type, legacy=legacy))
    if "rope_type" not in params and "type" in params:
        params["rope_type"] = params["type"]
    if "rope_type" not in params:
        if tolerant:
            return
        raise ValueError(f"{what} should have a 'rope_type' key")
    if params["rope_type"] == "su":
        params["rope_type"] = "longrope"
    elif params["rope_type"] == "mrope":
        if strict_mrope:
            if "mrope_section" not in params:
                raise ValueError("Legacy rope_type 'mrope' requires 'mrope_section' in rope_parameters")
        elif "mrope_section" not in params:
            raise AssertionError()
        params["rope_type"] = "default"


# -- 0.12.0+ --------------------------------------------------------------------------------

def _getattr_iter(obj: Any, names: tuple[str, ...], default: Any) -> Any:
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _nested(lib: Any, params: Any) -> bool:
    """``is_rope_parameters_nested``: every key names an attention layer type."""
    if not params:
        return False
    return set(params.keys()).issubset(lib.attention_layer_types())


def _patch_parameters(lib: Any, config: Any, release, variant: str) -> None:
    if lib.major >= 5:
        _patch_parameters_5(lib, config, release)
        return
    modern_pairs = True
    strict_mrope = variant != "parameters_0.12"
    if variant == "parameters_0.12":
        theta, partial, ompe = getattr(config, "rope_theta", None), None, None
    else:
        theta = _getattr_iter(config, ("rope_theta", "rotary_emb_base"), None)
        partial = _getattr_iter(config, ("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"), None)
        ompe = getattr(config, "original_max_position_embeddings", None) \
            if variant in ("parameters_0.14", "parameters_0.21") else None
    if variant == "parameters_0.21":
        if _nested(lib, getattr(config, "rope_parameters", {})):
            return
        _fill_parameters(config, theta, partial, ompe, variant)
        _legacy_rope_type(lib, getattr(config, "rope_parameters", None), release)
        return
    _fill_parameters(config, theta, partial, ompe, variant)
    if variant == "parameters_0.12":
        if not hasattr(config, "rope_parameters"):
            return
    elif getattr(config, "rope_parameters", None) is None:
        return
    if variant in ("parameters_0.12", "parameters_0.13"):
        late_ompe = getattr(config, "original_max_position_embeddings", None)
        if late_ompe:
            config.rope_parameters["original_max_position_embeddings"] = late_ompe
        nested = set(config.rope_parameters.keys()).issubset(lib.allowed_layer_types())
    else:
        nested = _nested(lib, config.rope_parameters)
    if nested:
        for per_layer in config.rope_parameters.values():
            _normalise(per_layer, "rope_parameters", strict_mrope=strict_mrope, modern_pairs=modern_pairs,
                       tolerant=False)
    else:
        _normalise(config.rope_parameters, "rope_parameters", strict_mrope=strict_mrope,
                   modern_pairs=modern_pairs, tolerant=False)


def _fill_parameters(config: Any, theta: Any, partial: Any, ompe: Any, variant: str) -> None:
    """The transformers-4 block: ``rope_scaling`` becomes ``rope_parameters``, with theta and friends in it."""
    scaling = getattr(config, "rope_scaling", None)
    if scaling is not None:
        config.rope_parameters = scaling
    if variant == "parameters_0.12":
        if theta is not None:
            if not hasattr(config, "rope_parameters"):
                config.rope_parameters = {"rope_type": "default"}
            config.rope_parameters["rope_theta"] = theta
        return
    wanted = theta is not None or partial is not None or (ompe is not None and variant != "parameters_0.13")
    if wanted and not getattr(config, "rope_parameters", None):
        config.rope_parameters = {"rope_type": "default"}
    if theta is not None:
        config.rope_parameters["rope_theta"] = theta
    if partial is not None:
        config.rope_parameters["partial_rotary_factor"] = partial
    if ompe is not None and variant != "parameters_0.13":
        config.rope_parameters["original_max_position_embeddings"] = ompe


def _legacy_rope_type(lib: Any, params: Any, release) -> None:
    """``patch_legacy_rope_type`` (0.21.0+)."""
    if params is None:
        return
    tolerant = release.within(LEGACY_ROPE_TYPE_TOLERANT_SINCE)
    if _nested(lib, params):
        for per_layer in params.values():
            _normalise(per_layer, "rope_parameters", strict_mrope=True, modern_pairs=True, tolerant=tolerant)
    else:
        _normalise(params, "rope_parameters", strict_mrope=True, modern_pairs=True, tolerant=tolerant)


# -- transformers 5 --------------------------------------------------------------------------
# vLLM 0.24.0+ (transformers 5): the config already holds ``rope_parameters``; ``patch_rope_parameters``
# copies the legacy ``rope_theta`` / ``partial_rotary_factor`` aliases back, normalises legacy RoPE types
# and runs the config's own ``standardize_rope_params()`` / ``validate_rope()``.

#: patch_legacy_rope_type: ``telechat3-yarn`` becomes ``yarn``, None per-layer entries are skipped (0.30.0+)
TELECHAT3_YARN_SINCE = "0.30.0"
#: is_rope_parameters_nested: DeepSeek-V4's "main" / "compress" keys count as nesting (0.33.0+)
MAIN_COMPRESS_NESTED_SINCE = "0.33.0"


def _patch_parameters_5(lib: Any, config: Any, release) -> None:
    theta = _getattr_iter(config, ("rope_theta", "rotary_emb_base"), None)
    partial = _getattr_iter(config, ("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"), None)
    if theta is not None or getattr(config, "rope_parameters", None):
        if theta is not None:
            config.rope_theta = theta
        if partial is not None:
            config.partial_rotary_factor = partial
        _legacy_rope_type_5(lib, getattr(config, "rope_parameters", None), release)
        lib.call(config, "standardize_rope_params")
        lib.call(config, "validate_rope")


def _nested_5(lib: Any, params: Any, release) -> bool:
    """``is_rope_parameters_nested`` against ALLOWED_LAYER_TYPES as vLLM imported it."""
    if not params:
        return False
    allowed = set(lib.attention_layer_types())
    if release.within(MAIN_COMPRESS_NESTED_SINCE):
        allowed |= {"main", "compress"}
    return set(params.keys()).issubset(allowed)


def _legacy_rope_type_5(lib: Any, params: Any, release) -> None:
    if params is None:
        return
    telechat = release.within(TELECHAT3_YARN_SINCE)
    if _nested_5(lib, params, release):
        for per_layer in params.values():
            if telechat and per_layer is None:
                continue
            _normalise_5(per_layer, telechat)
    else:
        _normalise_5(params, telechat)


def _normalise_5(params: Any, telechat: bool) -> None:
    import math
    _normalise(params, "", strict_mrope=True, modern_pairs=True, tolerant=True)
    # after the legacy names are mapped, only a telechat config can still name telechat3-yarn
    if telechat and "rope_type" in params and params["rope_type"] == "telechat3-yarn":
        factor = params["factor"]
        params["rope_type"] = "yarn"
        params["attention_factor"] = 0.07 * math.log(factor) + 1.0
        params.pop("type", None)
