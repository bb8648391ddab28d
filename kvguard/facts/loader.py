"""vLLM's config loading (``get_config`` → ``HFConfigParser.parse``), per release, over the class tables.

What a plain ``config.json`` in a local directory goes through in ``vllm serve`` of a given release:
the model type (and vLLM's own registry of config classes) choose the class, the class is built
from the dictionary (:mod:`kvguard.facts.transformers4`), vLLM remaps ``llm_config``, fills an empty
``architectures``, stores ``quantization_config`` and patches the RoPE settings; then
``get_hf_text_config`` picks the text config.  The release-dependent steps are version ranges in
:data:`FEATURES`, read from every release's ``vllm/transformers_utils/config.py``; vLLM's own tables
(``_CONFIG_REGISTRY``, ``_SPECULATIVE_DECODING_CONFIGS``, …) come from ``kvguard/data/facts/vllm.json``.

Each load is a fresh ``vllm serve`` process: what vLLM changes process-wide while loading (a registry
class's ``model_type``, AutoConfig registrations) lives in the load's own library object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..errors import Undecidable
from ..host_python import host_message
from . import rope_vllm, speculators
from .frame import TooLarge, literal
from .objects import ConfigObject
from .strict import StrictDataclassError
from .tables import transformers_tables, vllm_release_entry, vllm_release_tables, vllm_releases
from .transformers4 import Transformers4
from .transformers5 import Transformers5

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Union

    #: the library object of one load (:func:`library_for`)
    Library = Union[Transformers4, Transformers5]

__all__ = ["DEFAULT_PATH", "FEATURES", "REVIEWED", "LoadCrash", "hf_text_config", "load_config"]

DEFAULT_PATH = "/model"

#: release-dependent steps of get_config / HFConfigParser.parse: feature -> (first release, last release or None)
FEATURES: dict[str, tuple[str, "str | None"]] = {
    # get_config: fill an empty ``architectures`` from transformers' MODEL_MAPPING_NAMES
    "architectures_fill": ("0.11.1", None),
    # parse: registry classes (other than _SPECULATIVE_DECODING_CONFIGS) are registered with AutoConfig
    # (``config_class.model_type = model_type``) and loaded through it; before, ``config_class.from_pretrained``
    "registry_via_autoconfig": ("0.19.0", None),
    # get_config: with_retry(lambda: parse(...)): a failing parse is run a second time
    "parse_with_retry": ("0.27.0", None),
    # parse: model_type from _ARCHITECTURE_TO_MODEL_TYPE[architectures[0]] when absent
    "architecture_to_model_type": ("0.32.0", None),
    # get_hf_text_config: a bare assert (before) or a ValueError (from 0.13.0) for a text config without heads
    "text_config_value_error": ("0.13.0", None),
    # -- transformers 5 --
    # parse: _PATCH_HF_VALIDATE_ROPE model types wrap PreTrainedConfig.validate_rope (transformers 5 only)
    "validate_rope_patch": ("0.23.0", None),
    # parse: _PATCH_HF_ALLOWED_LAYER_TYPES extends transformers' ALLOWED_LAYER_TYPES
    "allowed_layer_types_patch": ("0.26.0", "0.31.0"),
    # parse: _PATCH_HF_NESTED_ROPE_VALIDATION model types wrap validate_rope (shared keys dropped)
    "nested_rope_validation_patch": ("0.31.0", None),
    # parse: a gemma4_text config.json with per-layer-type rope_parameters is loaded through Gemma4TextConfig
    "gemma4_text_rope_path": ("0.31.0", None),
    # parse: model type "vlm" registers qwen2_5_vl_visual (Qwen2_5_VLVisionConfig) with CONFIG_MAPPING
    "vlm_visual_registration": ("0.32.0", None),
}

#: the variants of vLLM's loading code (tools/facts_extract.py fingerprints it in every release, see
#: ``loader_fingerprints`` in kvguard/data/facts/vllm.json) this module was checked against, and what each
#: variant does, in FEATURES terms; tests/facts fails on a release with a variant not listed here
REVIEWED: dict[str, dict[str, str]] = {
    "HFConfigParser": {
        "30060c38444c": "0.10.2-0.11.0: registry classes -> config_class.from_pretrained",
        "c595205d8f1f": "0.11.1-0.12.0: same (PEP 604 annotations)",
        "c89a741115af": "0.13.0: hf_overrides may name the model_type",
        "7ce5a6ba475d": "0.14.x: trust_remote_code passed to get_config_dict / from_pretrained",
        "b71ae5231eac": "0.15.0-0.17.1: token no longer passed",
        "5524d01cbc47": "0.18.x: without_trust_remote_code; callable hf_overrides",
        "13698fa0e042": "0.19.x: _SPECULATIVE_DECODING_CONFIGS direct, other registry types via AutoConfig.register",
        "453268053d72": "0.20.0-0.22.1: also registers the on-disk model_type when hf_overrides changes it",
        "5518207b2c83": "0.23.0: _PATCH_HF_VALIDATE_ROPE",
        "06cbb7ae6636": "0.24.0-0.25.1: _register_config_class",
        "3acfdf8a168a": "0.26.0-0.30.0: _PATCH_HF_ALLOWED_LAYER_TYPES",
        "9ef1812b865a": "0.31.0: _PATCH_HF_NESTED_ROPE_VALIDATION, gemma4_text nested rope_parameters path",
        "8e0d7742ea11": "0.32.0-0.33.0: _ARCHITECTURE_TO_MODEL_TYPE, vlm visual registration; no layer-type patch",
    },
    "get_config": {
        "941f0d3a17e2": "0.10.2: no architectures fill; patch_rope_scaling",
        "8a1abf433fe5": "0.11.0: message text only",
        "ef962f479b88": "0.11.1-0.11.2: architectures fill from MODEL_MAPPING_NAMES",
        "3f98aea61199": "0.12.0: params.json first; patch_rope_parameters on config, text config, sub-configs",
        "22bdc78adc4b": "0.13.0-0.15.1: hf_overrides_kw passed to parse; GGUF defaults",
        "54a8c564791a": "0.16.0-0.17.1: Mistral format only for Mistral repos",
        "8c48df1fbf81": "0.18.0-0.23.0: hf_overrides_fn passed to parse",
        "33b456eb9dd1": "0.24.0-0.26.0: GGUF handling moved out",
        "f476140def3f": "0.27.0-0.33.0: parse wrapped in with_retry",
    },
    "LazyConfigDict": {
        "ef8a88acd995": "0.10.2-0.11.0: values are class names",
        "e84fd596c94d": "0.11.1+: values are class names or classes",
    },
    "_register_config_class": {"0c22cb757c9c": "0.24.0+: model_type + AutoConfig.register(exist_ok=True)"},
    "_patch_hf_transformers_validate_rope": {
        "e9d2680adff4": "0.23.0: transformers >= 5 only; PretrainedConfig.validate_rope assigned",
        "42b57a3f0270": "0.24.0-0.30.0: PretrainedConfig.validate_rope assigned",
        "32f042222409": "0.31.0+: installed with _install_hf_config_validator",
    },
    "_patch_hf_transformers_nested_rope_validation": {
        "0ebfc8fcb1f2": "0.31.0+: drops shared keys next to per-layer-type rope_parameters"},
    "_patch_hf_transformers_allowed_layer_types": {"2fa0bbf4a216": "0.26.0-0.31.0: ALLOWED_LAYER_TYPES += missing"},
    "_install_hf_config_validator": {"20dd7edd01a2": "0.31.0+: class attribute and every __class_validators__"},
    "with_retry": {
        "80d7481d45fd": "0.12.0-0.28.0: 2 attempts, any Exception",
        "3644c4819e68": "0.29.0+: fatal_errors (none passed by get_config)",
    },
}


class LoadCrash(Exception):
    """What vLLM raises while building its model config from config.json (type name and message)."""

    def __init__(self, exc_type: str, message: str, *, wrapped_by: "str | None" = None,
                 exc_module: "str | None" = None, cause: "tuple[str, str] | None" = None,
                 hash_order: bool = False):
        super().__init__(f"{exc_type}: {message}")
        self.exc_type = exc_type
        self.message = message
        self.wrapped_by = wrapped_by
        self.exc_module = exc_module
        self.cause = cause
        self.hash_order = hash_order


def _feature(release, name: str) -> bool:
    first, last = FEATURES[name]
    return release.within(first, last)


def _vllm_data_release(release) -> str:
    key = str(release.version)
    if vllm_release_entry(key) is not None:   # without decoding every release's tables (a cold check)
        return key
    have = vllm_releases()
    def vkey(v):
        return tuple(int(x) for x in v.split("."))
    older = [v for v in have if vkey(v) <= vkey(key)]
    return max(older, key=vkey) if older else min(have, key=vkey)


def library_for(release) -> "Transformers4 | Transformers5":
    """A fresh library object for one load (process-wide changes of the load stay in it)."""
    line = release.transformers
    tables = transformers_tables(line)
    vtables = vllm_release_tables(_vllm_data_release(release))
    lib: Library
    if int(line.split(".")[0]) >= 5:
        lib = Transformers5(tables, vtables)
    else:
        lib = Transformers4(tables, vtables)
    lib.release = release
    return lib


def _table(lib: Library, name: str, default: Any) -> Any:
    value = lib.vllm.get("tables", {}).get(name)
    return default if value is None else literal(value)


# ---------------------------------------------------------------------------------------------


def _crash(exc: BaseException, *, wrap: bool = True) -> LoadCrash:
    cause = exc.__cause__
    wrapped = "ModelConfig" if wrap and isinstance(exc, (ValueError, AssertionError)) else None
    return LoadCrash(type(exc).__name__, host_message(exc), wrapped_by=wrapped, exc_module=_module_of(exc),
                     cause=(type(cause).__name__, str(cause)) if cause is not None else None,
                     hash_order=bool(getattr(exc, "_kvg_hash_order", False)))


def _module_of(exc: BaseException) -> str:
    return getattr(exc, "_kvg_module", None) or type(exc).__module__


#: exceptions a modelled library raises on purpose (anything else is a failure of kvguard itself)
MODELLED_EXCEPTIONS = (ArithmeticError, AttributeError, KeyError, IndexError, TypeError, ValueError,
                       AssertionError, RuntimeError, NotImplementedError, StrictDataclassError)


def load_config(raw: Mapping[str, Any], release, *, path: "str | None" = None,
                trust_remote_code: "bool | None" = None) -> ConfigObject:
    """The config object ``release``'s ``get_config`` builds from ``raw`` (a local directory's config.json).

    Raises :class:`LoadCrash` for what vLLM raises, :class:`~kvguard.Undecidable` where kvguard cannot
    follow (remote code, a model type neither library knows, a step the tables do not model).
    """
    if not isinstance(raw, Mapping):
        raise TypeError("raw config must be a mapping")
    from ..launch.load import QUANT_CONFIG_UNKNOWN, SIDE_QUANT_CONFIG, WEIGHTS_DTYPES

    raw = dict(raw)
    raw.pop(WEIGHTS_DTYPES, None)   # read by kvguard.facts.model, never a config key
    side_quant = raw.pop(SIDE_QUANT_CONFIG, None)
    unknown_quant = raw.pop(QUANT_CONFIG_UNKNOWN, None)
    if unknown_quant is not None:
        raise Undecidable(str(unknown_quant))
    lib = library_for(release)
    try:
        config = _get_config(lib, dict(raw), release, path or DEFAULT_PATH, trust_remote_code, side_quant)
    except (LoadCrash, Undecidable):
        raise
    except RecursionError:
        raise Undecidable("the config is nested too deeply for kvguard to follow") from None
    except MODELLED_EXCEPTIONS as exc:
        _internal_if_ours(exc)
        raise _crash(exc) from None
    from .verified import emulation_level
    _mark(config, raw, emulation_level(raw, release), set())
    if lib.notes:
        earlier = config.kvg_assumptions if isinstance(config, ConfigObject) else ()
        object.__setattr__(config, "kvg_assumptions", tuple(earlier) + tuple(lib.notes))
    return config


def _internal_if_ours(exc: BaseException) -> None:
    """Re-raise ``exc`` as kvguard's own failure when it cannot be the modelled library's: a missing attribute of
    one of kvguard's own objects (a config value never is one)."""
    if isinstance(exc, AttributeError) and not isinstance(exc, StrictDataclassError):
        owner = getattr(exc, "obj", None)
        if owner is not None and not isinstance(owner, ConfigObject) \
                and type(owner).__module__.startswith("kvguard."):
            from ..errors import InternalError
            raise InternalError.of(exc) from exc


def _mark(obj: Any, raw: Any, level: str, seen: set) -> None:
    """Keep the raw mapping each object was built from (vLLM 0.23.0+ reads one raw key) and the verification
    level of the config on every object of it."""
    if not isinstance(obj, ConfigObject) or id(obj) in seen:
        return
    seen.add(id(obj))
    object.__setattr__(obj, "kvg_raw", dict(raw) if isinstance(raw, Mapping) else {})
    object.__setattr__(obj, "kvg_emulation", level)
    for key, value in list(obj.kvg_attrs.items()):
        if isinstance(value, ConfigObject):
            sub = raw.get(key) if isinstance(raw, Mapping) else None
            _mark(value, sub if isinstance(sub, Mapping) else {}, level, seen)


def hf_text_config(config: ConfigObject, release=None) -> Any:
    """vLLM's ``get_hf_text_config(hf_config)``: LoadCrash as vLLM raises (wrapped by ModelConfig).
    ``release``: the one ``config`` was loaded for (default)."""
    if release is None:
        release = config.kvg_facts.library.release if isinstance(config, ConfigObject) else None
        if release is None:
            raise TypeError("hf_text_config of a config kvguard did not load needs the release")
    try:
        text = config.get_text_config()
        if text is not config and not hasattr(text, "num_attention_heads"):
            remote = _remote_plain_read(config)
            if remote is not None and isinstance(text, Mapping):
                # the repository's configuration class (which vLLM runs) may build its text config from this
                # dictionary, as Intern-S1's InternS1Config does; kvguard's plain reading cannot say what it builds
                raise Undecidable(f"{remote}; its text_config stays a dictionary there, which the repository's "
                                  "class may build into a configuration: what vLLM reads of it is not modelled")
            if _feature(release, "text_config_value_error"):
                raise ValueError(
                    "The text_config extracted from the model config does not have `num_attention_heads` attribute. "
                    "This indicates a mismatch between the model config and vLLM's expectations. Please ensure that "
                    "the model config is compatible with vLLM.")
            raise AssertionError()
        return text
    except (LoadCrash, Undecidable):
        raise
    except MODELLED_EXCEPTIONS as exc:
        _internal_if_ours(exc)
        raise _crash(exc) from None


# ---------------------------------------------------------------------------------------------


def _config_dict_for(lib: Library, raw: dict) -> dict:
    """``PretrainedConfig.get_config_dict`` of a local directory holding ``raw``."""
    out = json.loads(json.dumps(raw))
    if not isinstance(lib, Transformers5) or lib.variant("_get_config_dict") == "commit_hash":  # major < 5 or
        out["_commit_hash"] = None
    if "model_type" not in out and "pretrained_cfg" in out:
        out["model_type"] = "timm_wrapper"
    return out


def _get_config(lib: Library, raw: dict, release, path: str, trust_remote_code, side_quant: Any = None):
    attempts = 2 if _feature(release, "parse_with_retry") else 1
    for attempt in range(attempts):
        try:
            config_dict, config = _parse(lib, raw, release, path, trust_remote_code)
            break
        except Undecidable:
            raise
        except Exception:  # noqa: BLE001 - with_retry: any Exception, the last one re-raised
            if attempt == attempts - 1:
                raise
    if _feature(release, "architectures_fill") and not config.architectures:
        model_type = config.model_type
        names = lib.tables.get("model_mapping_names", {})
        if model_type in names:
            config.update({"architectures": [literal(names[model_type])]})
    quantization = config_dict.get("quantization_config", None)
    if quantization is None:
        # ModelOpt up to 0.29: the checkpoint's hf_quant_config.json (kvguard.launch.load.load_checkpoint_config)
        quantization = side_quant
    if quantization is not None:
        config.quantization_config = quantization
        quantization.get("scale_fmt", None)
    rope_vllm.patch(lib, config, release)
    return config


def _parse(lib: Library, raw: dict, release, path: str, trust_remote_code):
    """``HFConfigParser.parse`` -> (config_dict, config)."""
    config_dict = _config_dict_for(lib, raw)
    model_type = config_dict.get("model_type")
    if model_type is None and config_dict.get("speculators_config") is not None:
        model_type = "speculators"
    arch_to_mt = _table(lib, "_ARCHITECTURE_TO_MODEL_TYPE", {}) \
        if _feature(release, "architecture_to_model_type") else {}
    if model_type is None and arch_to_mt:
        architectures = config_dict.get("architectures")
        if architectures:
            model_type = arch_to_mt.get(architectures[0])
    registry: dict = lib.vllm.get("registry", {})
    kwargs: dict = {}
    speculative = _table(lib, "_SPECULATIVE_DECODING_CONFIGS", set())
    gemma4_text_path = False
    if isinstance(lib, Transformers5):  # lib.major >= 5
        gemma4_text_path = _transformers5_patches(lib, config_dict, model_type, release)
    direct = (model_type in speculative) if _feature(release, "registry_via_autoconfig") \
        else (model_type in registry)
    if gemma4_text_path:
        config = _from_dict(lib, lib.class_facts("Gemma4TextConfig"), config_dict, {"name_or_path": str(path)})
    elif arch_to_mt and model_type in set(arch_to_mt.values()):
        cls = lib.class_for_model_type(model_type)
        config = _from_dict(lib, cls, config_dict, {"name_or_path": str(path)})
    elif direct:
        cls = _registry_class(lib, registry, model_type, release)
        config = _from_pretrained(lib, cls, config_dict, trust_remote_code, release)
    else:
        if model_type in registry:
            assert isinstance(model_type, str)  # registry's keys (vLLM's table) are str
            cls = _registry_class(lib, registry, model_type, release)
            lib.class_overrides[cls.name, "model_type"] = model_type
            lib.registered[model_type] = cls
            trust_remote_code = False
        overrides = _table(lib, "_AUTO_CONFIG_KWARGS_OVERRIDES", {})
        if model_type in overrides:
            kwargs.update(overrides[model_type])
        config = _auto_config(lib, config_dict, path, trust_remote_code, kwargs, release)
    mapping = _table(lib, "_CONFIG_ATTRS_MAPPING", {})
    for old, new in mapping.items():
        if hasattr(config, old):
            if not hasattr(config, new):
                config.update({new: getattr(config, old)})
    return config_dict, config


def _transformers5_patches(lib: Transformers5, config_dict: dict, model_type: Any, release) -> bool:
    """What parse changes in transformers 5 before loading (0.23.0+): wrappers around
    ``PreTrainedConfig.validate_rope``, extra ``ALLOWED_LAYER_TYPES``, the ``vlm`` registration; True when
    the gemma4_text path applies (its shared RoPE entries dropped from ``config_dict``)."""
    if _feature(release, "validate_rope_patch") and model_type in _table(lib, "_PATCH_HF_VALIDATE_ROPE", set()):
        lib.validate_rope_wrappers.append("ignore_keys")
    if _feature(release, "nested_rope_validation_patch") and \
            model_type in _table(lib, "_PATCH_HF_NESTED_ROPE_VALIDATION", set()):
        lib.validate_rope_wrappers.append("nested")
    if _feature(release, "allowed_layer_types_patch"):
        extra = _table(lib, "_PATCH_HF_ALLOWED_LAYER_TYPES", {}).get(model_type)
        if extra:
            allowed = lib.allowed_layer_types()
            lib.extra_layer_types += tuple(t for t in extra if t not in allowed)
    if _feature(release, "vlm_visual_registration") and model_type == "vlm":
        lib.registered["qwen2_5_vl_visual"] = lib.class_facts("Qwen2_5_VLVisionConfig")
    if not _feature(release, "gemma4_text_rope_path"):
        return False
    rope_parameters = config_dict.get("rope_parameters") or {}
    if model_type == "gemma4_text" and "full_attention" in rope_parameters:
        config_dict["rope_parameters"] = {k: v for k, v in rope_parameters.items() if k not in ("rope_type", "rope_theta")}
        return True
    return False


def _registry_class(lib: Library, registry: dict, model_type: Any, release):
    name = registry[model_type]
    if isinstance(name, dict):
        raise Undecidable(f"vLLM {release.version}'s config class for {model_type!r} could not be read "
                          f"({name.get('unavailable', 'unknown')})")
    return lib.class_facts(name)


def _from_pretrained(lib: Library, cls, config_dict: dict, trust_remote_code, release) -> ConfigObject:
    """``config_class.from_pretrained(model, revision=, code_revision=, trust_remote_code=, ...)``."""
    if cls.name == "vllm:SpeculatorsConfig":
        return speculators.load(lib, cls, config_dict, release)
    kind = next((k.record["from_pretrained"] for k in _lineage(cls) if "from_pretrained" in k.record), "plain")
    if kind == "rename_num_keys":
        # Medusa: any key with "num" and "heads" becomes num_heads, with "num" and "layers" num_hidden_layers
        for key in list(config_dict.keys()):
            if "num" in key:
                if "heads" in key:
                    config_dict["num_heads"] = config_dict.pop(key)
                elif "layers" in key:
                    config_dict["num_hidden_layers"] = config_dict.pop(key)
    elif kind != "plain":
        raise Undecidable(f"{cls.display}.from_pretrained is not modelled")
    return _from_dict(lib, cls, config_dict, {"code_revision": None})


def _from_dict(lib: Library, cls, config_dict: dict, kwargs: dict) -> Any:
    """``cls.from_dict(config_dict, **kwargs)``: from the tables; a transformers class they cannot follow from the
    installed transformers when it is the release's line (:mod:`kvguard.facts.backend`)."""
    import copy
    original = copy.deepcopy(config_dict)
    try:
        return _from_dict_tables(lib, cls, config_dict, kwargs)
    except TooLarge:
        raise
    except Undecidable:
        if cls.name.startswith("vllm:"):
            raise
        from . import backend
        real = backend.from_dict(lib.line, cls.class_attrs.get("model_type"), original, dict(kwargs))
        if real is None:
            raise
        lib.notes.append(f"the {cls.display} object was built by the installed transformers {lib.line}: kvguard's "
                         "tables do not model its class")
        return real


def _from_dict_tables(lib: Library, cls, config_dict: dict, kwargs: dict) -> ConfigObject:
    """``cls.from_dict(config_dict, **kwargs)`` (transformers 4.x; 5.x: :meth:`Transformers5.from_dict`)."""
    kwargs = dict(kwargs)
    config_dict = _own_from_dict(cls, config_dict, kwargs)
    if isinstance(lib, Transformers5):  # lib.major >= 5
        return lib.from_dict(cls, config_dict, kwargs)
    kwargs.pop("_from_auto", None)
    kwargs.pop("_from_pipeline", None)
    if "_commit_hash" in kwargs and "_commit_hash" in config_dict:
        kwargs["_commit_hash"] = config_dict["_commit_hash"]
    torch_dtype = kwargs.pop("torch_dtype", None)
    if torch_dtype is not None:
        kwargs["dtype"] = kwargs.get("dtype", torch_dtype)
    config_dict["attn_implementation"] = kwargs.pop("attn_implementation", None)
    config = lib.build(cls, dict(config_dict))
    if hasattr(config, "pruned_heads"):
        config.pruned_heads = {int(key): value for key, value in config.pruned_heads.items()}
    if "num_labels" in kwargs and "id2label" in kwargs:
        num_labels = kwargs["num_labels"]
        if len(kwargs["id2label"] if kwargs["id2label"] is not None else []) != num_labels:
            raise ValueError(f"You passed along `num_labels={num_labels}` with an incompatible id to label map: "
                             f"{kwargs['id2label']}. Since those arguments are inconsistent with each other, you "
                             "should remove one of them.")
    for key, value in kwargs.items():
        if hasattr(config, key):
            current = getattr(config, key)
            if isinstance(current, ConfigObject) and isinstance(value, dict):
                raise Undecidable("a sub-config passed as a from_dict keyword is not modelled")
            setattr(config, key, value)
    repr_check(config)
    return config


def _own_from_dict(cls, config_dict: dict, kwargs: dict) -> dict:
    """What a class's own ``from_dict`` does to the dict and the keywords before PretrainedConfig's (the tables
    name the behaviour by the override's fingerprint) -> the dict PretrainedConfig's ``from_dict`` receives."""
    own = next((k.record["from_dict"] for k in _lineage(cls) if "from_dict" in k.record), None)
    if own is None:
        return config_dict
    kind = own.get("kind")
    if kind == "timm_labels":
        _timm_labels(cls, config_dict, kwargs)
        return config_dict
    if kind == "timm_labels_copy":       # transformers 5: the same on a shallow copy of the dict
        config_dict = dict(config_dict)
        _timm_labels(cls, config_dict, kwargs)
        return config_dict
    if kind == "recurrent_loops_keyword":
        # transformers 5.24 DoryConfig: an ``n_recurrent_loops`` keyword moves into (a copy of) the dict, so the
        # class's own checks see it while the object is built, not when from_dict applies the keywords after
        if "n_recurrent_loops" in kwargs:
            config_dict = {**config_dict, "n_recurrent_loops": kwargs.pop("n_recurrent_loops")}
        return config_dict
    raise Undecidable(f"{cls.display}.from_dict is overridden in a way kvguard does not model")


def _timm_labels(cls, config_dict: dict, kwargs: dict) -> None:
    """timm's label keys: ``label_names`` become the ``id2label`` keyword (``label2id`` too when the names are
    unique, else None) unless the caller passed ``num_labels`` or ``id2label``; ``num_classes`` leaves the dict
    and becomes the ``num_labels`` keyword (a passed one wins when truthy); ``pretrained_cfg`` loses its own
    ``num_classes``.  Without label names the class asks timm for ImageNet's."""
    label_names = config_dict.get("label_names")
    custom = "num_labels" in kwargs or "id2label" in kwargs
    if label_names is None and not custom:
        raise Undecidable(f"{cls.display}.from_dict without label_names needs the timm package (ImportError "
                          "without it, ImageNet's labels with it); kvguard does not know which is installed")
    if label_names is not None and not custom:
        kwargs["id2label"] = dict(enumerate(label_names))
        kwargs["label2id"] = ({name: i for i, name in enumerate(label_names)}
                              if len(set(label_names)) == len(label_names) else None)
    passed = kwargs.pop("num_labels", None)
    num_classes = config_dict.pop("num_classes", None)
    kwargs["num_labels"] = passed or num_classes
    pretrained = config_dict.get("pretrained_cfg", _NO_VALUE)
    if pretrained is not _NO_VALUE and "num_classes" in pretrained:
        pretrained.pop("num_classes", None)


_NO_VALUE = object()


def _remote_as_base(lib: Library, config_dict: dict, path: str, kwargs: dict, auto_map: Any) -> ConfigObject:
    """A remote-code config (``auto_map.AutoConfig``) with ``--trust-remote-code``: vLLM would run the
    repository's configuration class; kvguard never runs it and reads config.json as a plain configuration
    of its declared base — transformers' class for the model type where there is one, else the base
    PretrainedConfig — and says so with the verdict."""
    model_type = config_dict.get("model_type")
    remote_class = auto_map.get("AutoConfig") if isinstance(auto_map, dict) else None
    if isinstance(model_type, str) and lib.knows_model_type(model_type):
        cls = lib.class_for_model_type(model_type)
        base = cls.display
    elif isinstance(lib, Transformers4):
        cls = lib.plain_class(model_type)
        base = "PretrainedConfig"
    else:
        # transformers 5's base class is not in kvguard's tables as a class of its own
        raise Undecidable(f"config.json names remote code ({remote_class}) for model type {model_type!r}, which "
                          f"transformers {lib.line} does not know; kvguard does not read it as a plain "
                          "PreTrainedConfig of transformers 5")
    shape = _REMOTE_SHAPES.get(model_type) if isinstance(model_type, str) else None
    if shape is not None:
        config_dict = shape(config_dict)
    config = _from_dict(lib, cls, config_dict, {"name_or_path": path, **kwargs})
    object.__setattr__(config, "kvg_assumptions", (
        f"{_REMOTE_PLAIN_READ} ({remote_class}); kvguard does not run it and read the config as a plain "
        f"{base} of model type {model_type!r}",))
    return config


#: how the assumption of a remote-code config read as a plain configuration begins (:func:`_remote_as_base`)
_REMOTE_PLAIN_READ = "config.json names remote code"


def _remote_plain_read(config: Any) -> "str | None":
    """The assumption under which ``config`` (a remote-code config.json) was read as a plain configuration, or
    None when it was read as the class vLLM itself uses."""
    for assumed in getattr(config, "kvg_assumptions", ()) or ():
        if isinstance(assumed, str) and assumed.startswith(_REMOTE_PLAIN_READ):
            return assumed
    return None


def _decilm_blocks(config_dict: dict) -> dict:
    """Nemotron-NAS (DeciLM) configs list ``block_configs`` as dicts; the repository's class turns each into an
    object whose ``attention`` / ``ffn`` parts vLLM reads by attribute (``block.attention.no_op``)."""
    from types import SimpleNamespace

    def objects(value: Any) -> Any:
        if isinstance(value, dict):
            return SimpleNamespace(**{k: objects(v) for k, v in value.items() if isinstance(k, str)})
        return value

    blocks = config_dict.get("block_configs")
    if isinstance(blocks, list):
        config_dict = dict(config_dict, block_configs=[objects(b) for b in blocks])
    return config_dict


#: how a remote-code model type's own class shapes what kvguard reads, where plain JSON values would not do
_REMOTE_SHAPES = {"nemotron-nas": _decilm_blocks}


_UNKNOWN_TYPE = (
    "The checkpoint you are trying to load has model type `{mt}` but Transformers does not recognize this "
    "architecture. This could be because of an issue with the checkpoint, or because your version of "
    "Transformers is out of date.\n\nYou can update Transformers with the command `pip install --upgrade "
    "transformers`. If this does not work, and the checkpoint is very new, then there may not be a release "
    "version that supports this model yet. In this case, you can get the most up-to-date code by installing "
    "Transformers from source with the command `pip install git+https://github.com/huggingface/transformers.git`")


def _auto_config(lib: Library, config_dict: dict, path: str, trust_remote_code, kwargs: dict, release):
    """transformers' ``AutoConfig.from_pretrained(path, trust_remote_code=..., **kwargs)``."""
    auto_map: Any = config_dict.get("auto_map")   # config.json's value, unchecked
    has_remote_code = "auto_map" in config_dict and "AutoConfig" in auto_map
    has_local_code = "model_type" in config_dict and lib.knows_model_type(config_dict["model_type"])
    if has_remote_code:
        if not has_local_code and not trust_remote_code:
            if trust_remote_code is None:
                raise Undecidable("config.json names remote code (auto_map.AutoConfig); vLLM needs "
                                  "--trust-remote-code and the repository's own configuration module")
            raise ValueError(
                f"The repository {path} contains custom code which must be executed to correctly load the "
                f"model. You can inspect the repository content at {path} .\n You can inspect the repository "
                f"content at https://hf.co/{path}.\nPlease pass the argument `trust_remote_code=True` to allow "
                "custom code to be run.")
        explicit_local = lib.major >= 5 and has_local_code and \
            lib.class_for_model_type(config_dict["model_type"]).name.startswith("vllm:")
        if trust_remote_code and not explicit_local:
            return _remote_as_base(lib, config_dict, path, kwargs, auto_map)
    if "model_type" in config_dict:
        if config_dict["model_type"] == "mistral" and "layer_types" in config_dict:
            config_dict["model_type"] = "ministral"
        model_type = config_dict["model_type"]
        if not (isinstance(model_type, str) and lib.knows_model_type(model_type)):
            if not isinstance(model_type, (str, int, float, bool, type(None))):
                raise TypeError(f"unhashable type: '{type(model_type).__name__}'")
            exc = Undecidable(
                f"model_type {model_type!r} is known neither to transformers {release.transformers} nor to vLLM "
                f"{release.version}'s config registry (vLLM would need the checkpoint's remote code; without "
                "--trust-remote-code it raises ValueError: The checkpoint you are trying to load has model type "
                f"`{model_type}` but Transformers does not recognize this architecture. ...)")
            exc.load_crash = LoadCrash("ValueError", _UNKNOWN_TYPE.format(mt=model_type),  # type: ignore[attr-defined]
                                       wrapped_by="ModelConfig")
            raise exc
        cls = lib.class_for_model_type(model_type)
        return _from_dict(lib, cls, config_dict, {"name_or_path": path, **kwargs})
    if lib.major >= 5:
        raise ValueError(f"Unrecognized model in {path}. Should have a `model_type` key in its config.json.")
    for pattern in sorted(lib.config_mapping, key=len, reverse=True):
        if pattern in str(path):
            return _from_dict(lib, lib.class_for_model_type(pattern), config_dict, {"name_or_path": path, **kwargs})
    raise ValueError(
        f"Unrecognized model in {path}. Should have a `model_type` key in its config.json, or contain one of the "
        f"following strings in its name: {', '.join(lib.config_mapping)}")


# ---------------------------------------------------------------------------------------------
# transformers 4.x logs ``f"Model config {config}"`` at the end of from_dict: the f-string runs the
# config's __repr__ (to_json_string -> to_diff_dict -> to_dict), which raises for some values


def repr_check(obj: ConfigObject, seen: "set | None" = None) -> None:
    """Raise what ``repr(obj)`` raises in transformers 4.x (nothing for a plain config)."""
    top = seen is None
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    record = obj.kvg_facts.record
    without_diff = any(k.record.get("json_without_diff") for k in _lineage(obj.kvg_facts))
    if "default_error" in record and not without_diff \
            and not getattr(obj, "has_no_defaults_at_init", False):
        exc_type, message = record["default_error"]   # measured: the class cannot be built with no arguments
        exc = _BUILTIN_EXCEPTIONS.get(exc_type)
        if exc is None:
            raise Undecidable(f"{obj.kvg_class_name}() raises {exc_type}; its repr is not modelled")
        raise exc(message)
    attrs = obj.kvg_attrs
    for value in attrs.values():
        if isinstance(value, ConfigObject):
            repr_check(value, seen)
    if "quantization_config" in attrs or hasattr(obj, "quantization_config"):
        quant = obj.quantization_config
        if not isinstance(quant, dict) and not isinstance(quant, ConfigObject):
            raise AttributeError(f"'{type(quant).__name__}' object has no attribute 'to_dict'")
    _dtype_to_str(attrs)
    subs = obj.kvg_facts.class_attrs.get("sub_configs") or {}
    for key, value in attrs.items():   # the per-key diff, after to_dict()
        if key in subs and not isinstance(value, ConfigObject):
            _plain_sub_config_diff(value)
    if top:
        _complex_check(obj, set())


def _complex_check(value: Any, seen: set) -> None:
    """json.dumps of the diff, last: a complex number (a class's ``x ** -0.5`` of a negative size; plain JSON
    values never hold one) is not serializable. A complex value always differs from the class defaults, so it is
    in the diff."""
    if isinstance(value, complex):
        raise TypeError("Object of type complex is not JSON serializable")
    if isinstance(value, ConfigObject):
        if id(value) in seen:
            return
        seen.add(id(value))
        value = value.kvg_attrs
    if isinstance(value, dict):
        for item in value.values():
            _complex_check(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _complex_check(item, seen)


def _plain_sub_config_diff(value: Any) -> None:
    """The diff of a key the class names as a sub-config when it holds a plain value, not a config object:
    the value's own type is built with no arguments and asked for ``to_dict`` (which plain values lack);
    None skips that and is then read as a mapping."""
    if value is not None:
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'to_dict'")
    raise AttributeError("'NoneType' object has no attribute 'items'")


_BUILTIN_EXCEPTIONS = {e.__name__: e for e in (AssertionError, ValueError, TypeError, KeyError, AttributeError,
                                                IndexError, ZeroDivisionError, RuntimeError)}


def _lineage(cls):
    while cls is not None:
        yield cls
        cls = cls.parent


def _dtype_to_str(values: dict) -> None:
    """``dict_dtype_to_str``: a ``dtype`` that is neither a dict, a string nor an int is printed as ``str(v)``
    split at its first dot (IndexError without one)."""
    dtype = values.get("dtype")
    if dtype is not None and not isinstance(dtype, (dict, str, int)):
        if isinstance(dtype, ConfigObject):
            raise Undecidable("a config object as dtype is not modelled")
        str(dtype).split(".")[1]
    for value in values.values():
        if isinstance(value, dict):
            _dtype_to_str(value)
