"""vLLM's config loading (``get_config`` → ``HFConfigParser.parse``) over the interpreter, per release.

Two kinds of vLLM code are involved:

* the functions of ``vllm/transformers_utils/config.py`` that act on the
  config object — ``patch_rope_scaling`` (0.10.2–0.11.2) /
  ``patch_rope_parameters`` (0.12.0+), ``patch_legacy_rope_type``,
  ``is_rope_parameters_nested``, ``_maybe_remap_hf_config_attrs``,
  ``get_hf_text_config``, ``getattr_iter`` — and the model-type tables the
  loader consults (``_SPECULATIVE_DECODING_CONFIGS``,
  ``_AUTO_CONFIG_KWARGS_OVERRIDES``, ``_PATCH_HF_*``,
  ``_ARCHITECTURE_TO_MODEL_TYPE``, ``_CONFIG_REGISTRY``): these are *data*,
  extracted per release into ``vllm.json`` and run by the interpreter, so each
  release runs its own;
* the control flow of ``get_config`` / ``HFConfigParser.parse`` (and
  transformers' ``AutoConfig.from_pretrained``): ported here by hand, with the
  release-dependent steps keyed by version ranges (:data:`FEATURES`).  The
  extraction fingerprints that code in every release; :data:`REVIEWED` lists
  the variants this port was checked against (``tests/hfconfig`` fails on an
  unreviewed one).

Each load behaves like a fresh ``vllm serve`` process: what vLLM changes
process-wide while loading (``config_class.model_type = ...``, AutoConfig
registrations, the ``validate_rope`` / ``ALLOWED_LAYER_TYPES`` patches) is
undone when the next load starts.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import MISSING as _MISSING
from functools import lru_cache
from typing import Any

from ..errors import Undecidable
from ._errors import LoadCrash
from ._interp import (
    UNBOUNDED, BoundMethod, ClassMethod, Inst, Interp, Klass, LazyBody, NativeFunc, Opaque, Unsupported,
)

_DATA = os.path.dirname(__file__)  # package data: hfconfig/*.json
_LOCK = threading.RLock()

DEFAULT_PATH = "/model"

#: release-dependent steps of the hand-ported control flow: feature -> (first release, last release or None)
FEATURES: dict[str, tuple[str, str | None]] = {
    # get_config: fill an empty ``architectures`` from transformers' MODEL_MAPPING_NAMES
    "architectures_fill": ("0.11.1", None),
    # get_config: patch_rope_scaling(config) before, patch_rope_parameters(config / text / sub-configs) after
    "patch_rope_parameters": ("0.12.0", None),
    # parse: registry classes (other than _SPECULATIVE_DECODING_CONFIGS) are registered with AutoConfig
    # (``config_class.model_type = model_type``) and loaded through it; before, ``config_class.from_pretrained``
    "registry_via_autoconfig": ("0.19.0", None),
    # parse: _PATCH_HF_VALIDATE_ROPE model types patch PretrainedConfig.validate_rope (transformers 5 only)
    "validate_rope_patch": ("0.23.0", None),
    # parse: _PATCH_HF_ALLOWED_LAYER_TYPES extends transformers' ALLOWED_LAYER_TYPES
    "allowed_layer_types_patch": ("0.26.0", "0.31.0"),
    # get_config: with_retry(lambda: parse(...)): a failing parse is run a second time
    "parse_with_retry": ("0.27.0", None),
    # parse: the validate_rope patches also replace @strict's class-validator snapshots
    # (_install_hf_config_validator); _PATCH_HF_NESTED_ROPE_VALIDATION; the gemma4_text path
    "install_hf_config_validator": ("0.31.0", None),
    "nested_rope_validation_patch": ("0.31.0", None),
    "gemma4_text_rope_path": ("0.31.0", None),
    # parse: model_type from _ARCHITECTURE_TO_MODEL_TYPE[architectures[0]] when absent, those model types
    # through CONFIG_MAPPING[...].from_dict; "vlm" registers qwen2_5_vl_visual
    "architecture_to_model_type": ("0.32.0", None),
    "vlm_visual_registration": ("0.32.0", None),
}

#: fingerprints (tools/hfconfig_extract.py: sha256 of the normalised source) of the loader code ported above,
#: with the releases that have them; every variant was read and its effect on a plain config.json is in FEATURES
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


def _feature(release, name: str) -> bool:
    first, last = FEATURES[name]
    return release.within(first, last)


# ---------------------------------------------------------------------------
# data


@lru_cache(maxsize=None)
def _store(dist: str) -> dict:
    """``<dist>.json``: versions, tables and, per module body hash, ``[offset, length]`` in ``<dist>.bodies``
    (format 3; the bodies — most of the data — are read and decoded only for the modules a config uses)."""
    with open(os.path.join(_DATA, f"{dist}.json"), encoding="utf-8") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def _blob(dist: str) -> bytes:
    with open(os.path.join(_DATA, f"{dist}.bodies"), "rb") as f:
        return f.read()


def _body_reader(dist: str, offset: int, length: int):
    return lambda: _blob(dist)[offset:offset + length].decode("utf-8")


def _vkey(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


def tf_versions() -> tuple[str, ...]:
    return tuple(_store("transformers")["versions"])


def vllm_releases() -> tuple[str, ...]:
    return tuple(_store("vllm")["releases"])


def tf_data_version(tf: str) -> str:
    """The extracted transformers version for ``tf``: itself, else the nearest older one of its major."""
    have = tf_versions()
    if tf in have:
        return tf
    major = tf.split(".")[0]
    same = sorted((v for v in have if v.split(".")[0] == major), key=_vkey)
    older = [v for v in same if _vkey(v) <= _vkey(tf)]
    if older:
        return older[-1]
    return same[0] if same else sorted(have, key=_vkey)[-1]


def vllm_data_release(release) -> str:
    """The extracted vLLM release for ``release``: itself, else the nearest older one."""
    key = str(release.version)
    have = vllm_releases()
    if key in have:
        return key
    older = [v for v in have if _vkey(v) <= _vkey(key)]
    return max(older, key=_vkey) if older else min(have, key=_vkey)


def _release_data(release) -> dict:
    return _store("vllm")["releases"][vllm_data_release(release)]


def _dataset(dist: str, version: str) -> dict:
    store = _store(dist)
    entry = store["versions" if dist == "transformers" else "releases"][version]
    bodies = store["bodies"]
    names = store.get("names", {})
    out = {k: v for k, v in entry.items() if k != "modules"}
    out["modules"] = {name: LazyBody(_body_reader(dist, *bodies[h]), names.get(h))
                      for name, h in entry["modules"].items()}
    return out


_INTERPS: dict[tuple, Interp] = {}


def get_interp(tf: str, vllm: str) -> Interp:
    """The interpreter for transformers ``tf`` + vLLM release ``vllm``'s modules (shared by releases whose
    extracted modules are identical)."""
    mods = _store("vllm")["releases"][vllm]["modules"]
    key = (tf, tuple(sorted(mods.items())))
    with _LOCK:
        it = _INTERPS.get(key)
        if it is None:
            it = Interp([_dataset("transformers", tf), _dataset("vllm", vllm)],
                        transformers_major=int(tf.split(".")[0]), transformers_version=tf)
            _install_hooks(it)
            it.kvg_undo = []
            _INTERPS[key] = it
        return it


def _install_hooks(it: Interp) -> None:
    """Natives for the file-reading class methods (``get_config_dict``)."""
    base = _base_config(it)

    def get_config_dict(i, a, kw):
        kw = dict(kw)
        for key in ("cache_dir", "force_download", "resume_download", "proxies", "token", "local_files_only",
                    "revision", "trust_remote_code", "subfolder", "_from_pipeline", "_from_auto", "_commit_hash"):
            kw.pop(key, None)
        return (_config_dict_for(i, i.current_raw), kw)

    base.ns["get_config_dict"] = ClassMethod(NativeFunc(get_config_dict, "get_config_dict"))
    base.ns["_get_config_dict"] = ClassMethod(NativeFunc(get_config_dict, "_get_config_dict"))
    it.current_raw = {}
    utils = it.natives.get("vllm.transformers_utils.utils")
    if utils is None:
        from ._interp import NativeModule
        it.natives["vllm.transformers_utils.utils"] = NativeModule("vllm.transformers_utils.utils", {
            "without_trust_remote_code": NativeFunc(
                lambda i, a, k: {kk: v for kk, v in a[0].items() if kk != "trust_remote_code"},
                "without_trust_remote_code", bind=False),
        })


def _base_config(it: Interp) -> Klass:
    mod = it.find_module("transformers.configuration_utils")
    for name in ("PreTrainedConfig", "PretrainedConfig"):
        k = mod.ns.get(name)
        if isinstance(k, Klass):
            return k
    raise Unsupported("no PretrainedConfig in the data")


def _config_dict_for(it: Interp, raw: dict) -> dict:
    """``PretrainedConfig.get_config_dict`` of a local directory holding ``raw``."""
    d = json.loads(json.dumps(raw))
    if it.tf_major < 5:
        d["_commit_hash"] = None
    if "model_type" not in d and "pretrained_cfg" in d:
        d["model_type"] = "timm_wrapper"
    return d


def _vllm_mod(it: Interp):
    mod = it.find_module("vllm.transformers_utils.config")
    if mod is None:
        raise Unsupported("vLLM's loader helpers are not in the data")
    return mod


def _vllm_fn(it: Interp, name: str):
    fn = _vllm_mod(it).ns.get(name, _MISSING)
    if fn is _MISSING or isinstance(fn, Opaque):
        raise Unsupported(f"vllm.transformers_utils.config.{name} is not in the data")
    return fn


def _vllm_table(it: Interp, name: str, default):
    v = _vllm_mod(it).ns.get(name, _MISSING)
    if v is _MISSING:
        return default
    if isinstance(v, Opaque):
        raise Unsupported(f"vllm.transformers_utils.config.{name}: {v.what}")
    return v


# ---------------------------------------------------------------------------
# process-wide changes, undone when the next load starts


def _undo(it: Interp) -> None:
    while it.kvg_undo:
        it.kvg_undo.pop()()


def _set_class_attr(it: Interp, k: Klass, name: str, value) -> None:
    old = k.ns.get(name, _MISSING)

    def undo():
        if old is _MISSING:
            k.ns.pop(name, None)
        else:
            k.ns[name] = old
        it.class_changed(k)

    it.kvg_undo.append(undo)
    it.setattr(k, name, value)


def _set_ns(it: Interp, ns: dict, name: str, value, klass: Klass | None = None) -> None:
    old = ns.get(name, _MISSING)

    def undo():
        if old is _MISSING:
            ns.pop(name, None)
        else:
            ns[name] = old
        if klass is not None:
            it.class_changed(klass)

    it.kvg_undo.append(undo)
    ns[name] = value
    if klass is not None:
        it.class_changed(klass)


# ---------------------------------------------------------------------------


def load_crash_of(e: BaseException, *, wrap: bool = True) -> LoadCrash:
    cause = e.__cause__
    wrapped = "ModelConfig" if wrap and isinstance(e, (ValueError, AssertionError)) else None
    return LoadCrash(type(e).__name__, str(e), wrapped_by=wrapped, exc_module=type(e).__module__,
                     cause=(type(cause).__name__, str(cause)) if cause is not None else None,
                     hash_order=bool(getattr(e, "_kvg_hash_order", False)))


def load(raw: Mapping[str, Any], release, *, path: str | None = None, trust_remote_code: bool | None = None):
    if not isinstance(raw, Mapping):
        raise TypeError("raw config must be a mapping")
    tf = tf_data_version(release.transformers)
    it = get_interp(tf, vllm_data_release(release))
    with _LOCK:
        _undo(it)
        it.current_raw = dict(raw)
        it.config_extra.clear()
        try:
            _vllm_mod(it)  # vLLM imported its config module before any patch (bindings made at import)
            it.bounded()
            cfg = _get_config(it, dict(raw), release, path or DEFAULT_PATH, trust_remote_code)
        except Unsupported as e:
            raise Undecidable(f"kvguard cannot emulate loading this config: {e}") from None
        except (LoadCrash, Undecidable):
            raise
        except RecursionError as e:
            raise Undecidable(f"kvguard cannot emulate loading this config: {e}") from None
        except Exception as e:  # noqa: BLE001 - an emulated exception: what vLLM raises
            raise load_crash_of(e) from None
        finally:
            it.steps = UNBOUNDED
    return cfg


class _Signal(Unsupported):
    """An Undecidable raised inside emulated code (Unsupported is not caught by emulated ``except``)."""

    def __init__(self, exc: Undecidable):
        super().__init__(str(exc))
        self.exc = exc


def _get_config(it: Interp, raw: dict, release, path: str, trust_remote_code):
    """``vllm.transformers_utils.config.get_config(path, trust_remote_code)`` for a directory with config.json."""
    attempts = 2 if _feature(release, "parse_with_retry") else 1
    for attempt in range(attempts):
        try:
            config_dict, config = _parse(it, raw, release, path, trust_remote_code)
            break
        except _Signal as s:
            raise s.exc from None
        except Exception:  # noqa: BLE001 - with_retry: any Exception, the last one re-raised
            if attempt == attempts - 1:
                raise
    if _feature(release, "architectures_fill") and not it.truth(it.getattr(config, "architectures")):
        mt = it.getattr(config, "model_type")
        names = it.tables.get("model_mapping_names", {})
        if _in(mt, names):
            arch = names[mt]
            arch = tuple(arch) if isinstance(arch, list) else arch  # a tuple in transformers' table
            it.call(it.getattr(config, "update"), [{"architectures": [arch]}], {})
    qc = config_dict.get("quantization_config", None)
    if qc is not None:
        it.setattr(config, "quantization_config", qc)
        if isinstance(qc, dict):
            qc.get("scale_fmt", None)
        else:
            raise AttributeError(f"'{type(qc).__name__}' object has no attribute 'get'")
    if _feature(release, "patch_rope_parameters"):
        patch = _vllm_fn(it, "patch_rope_parameters")
        it.call(patch, [config], {})
        it.call(patch, [it.call(it.getattr(config, "get_text_config"), [], {})], {})
        sub_configs = it.getattr(config, "sub_configs") if it.hasattr(config, "sub_configs") else None
        if sub_configs is not None and it.truth(sub_configs):
            for sc in it.iterate(sub_configs):
                it.call(patch, [it.getattr(config, sc)], {})
    else:
        it.call(_vllm_fn(it, "patch_rope_scaling"), [config], {})
    return config


def _in(key, container) -> bool:
    """``key in container`` for a plain dict/set (TypeError for an unhashable key, as in Python)."""
    return key in container


def _parse(it: Interp, raw: dict, release, path: str, trust_remote_code):
    """``HFConfigParser.parse``: -> (config_dict, config)."""
    config_dict = _config_dict_for(it, raw)
    model_type = config_dict.get("model_type")
    if model_type is None:
        model_type = "speculators" if config_dict.get("speculators_config") is not None else model_type
    arch_to_mt = _vllm_table(it, "_ARCHITECTURE_TO_MODEL_TYPE", {}) \
        if _feature(release, "architecture_to_model_type") else {}
    if model_type is None and arch_to_mt:
        architectures = config_dict.get("architectures")
        if architectures:
            model_type = arch_to_mt.get(architectures[0])
    if _feature(release, "validate_rope_patch") and _in(model_type, _vllm_table(it, "_PATCH_HF_VALIDATE_ROPE", ())):
        if it.tf_major >= 5:
            _patch_validate_rope(it, "ignore_keys", release)
    if _feature(release, "nested_rope_validation_patch") and \
            _in(model_type, _vllm_table(it, "_PATCH_HF_NESTED_ROPE_VALIDATION", ())):
        _patch_validate_rope(it, "nested", release)
    if _feature(release, "allowed_layer_types_patch"):
        extra = _vllm_table(it, "_PATCH_HF_ALLOWED_LAYER_TYPES", {}).get(model_type)
        if extra:
            _patch_allowed_layer_types(it, extra)
    if _feature(release, "vlm_visual_registration") and model_type == "vlm":
        vis = it.import_from("transformers", "Qwen2_5_VLVisionConfig")
        if not isinstance(vis, Klass):
            raise Unsupported("Qwen2_5_VLVisionConfig is not in the data")
        it.config_extra["qwen2_5_vl_visual"] = vis
    trc = bool(trust_remote_code)
    registry = _release_data(release)["config_registry"]
    kwargs = {"local_files_only": True}  # vLLM passes HF_HUB_OFFLINE; a local directory reads the same either way
    rope_parameters = config_dict.get("rope_parameters") or {}
    if _feature(release, "gemma4_text_rope_path") and model_type == "gemma4_text" and \
            _in("full_attention", rope_parameters):
        cls = it.import_from("transformers", "Gemma4TextConfig")
        if not isinstance(cls, Klass):
            raise Unsupported("Gemma4TextConfig is not in the data")
        config_dict["rope_parameters"] = {k: v for k, v in rope_parameters.items()
                                          if k not in ("rope_type", "rope_theta")}
        kwargs.setdefault("name_or_path", str(path))
        config = it.call(it.klass_getattr(cls, "from_dict"), [config_dict], kwargs)
    elif arch_to_mt and _in(model_type, set(arch_to_mt.values())):
        mapping = it.natives["transformers"].attrs["CONFIG_MAPPING"]
        kwargs.setdefault("name_or_path", str(path))
        config = it.call(it.klass_getattr(mapping.resolve(model_type), "from_dict"), [config_dict], kwargs)
    elif (_in(model_type, _vllm_table(it, "_SPECULATIVE_DECODING_CONFIGS", set()))
          if _feature(release, "registry_via_autoconfig") else _in(model_type, registry)):
        # speculative-decoding configs always, and before 0.19.0 every registry class:
        # config_class.from_pretrained(model, ...) instead of AutoConfig
        cls = _registry_class(it, registry, model_type, release)
        fp = it.klass_getattr(cls, "from_pretrained")
        config = it.call(fp, [path], {"revision": None, "code_revision": None, "trust_remote_code": trc,
                                      "token": None, **kwargs})
    else:
        if _in(model_type, registry):
            cls = _registry_class(it, registry, model_type, release)
            # config_class.model_type = model_type; AutoConfig.register(model_type, config_class, exist_ok=True)
            _set_class_attr(it, cls, "model_type", model_type)
            it.config_extra[model_type] = cls
            trust_remote_code = False
        overrides = _vllm_table(it, "_AUTO_CONFIG_KWARGS_OVERRIDES", {})
        if _in(model_type, overrides):
            kwargs.update(overrides[model_type])
        config = _auto_config(it, config_dict, path, trust_remote_code, kwargs, release)
    config = it.call(_vllm_fn(it, "_maybe_remap_hf_config_attrs"), [config], {})
    return config_dict, config


def _registry_class(it: Interp, registry: dict, model_type, release) -> Klass:
    name = registry[model_type]
    if name in _release_data(release).get("transformers_classes", ()):
        v = it.import_from("transformers", name)  # vLLM re-exports transformers' class
    else:
        v = it.import_from("vllm.transformers_utils.configs", name)
    if not isinstance(v, Klass):
        raise _Signal(Undecidable(f"vLLM {release.version}'s config class {name} is not modelled by kvguard"))
    return v


def _auto_config(it: Interp, config_dict: dict, path: str, trust_remote_code, kwargs: dict, release):
    """transformers' ``AutoConfig.from_pretrained(path, trust_remote_code=..., **kwargs)`` (4.57.6 / 5.x)."""
    mapping = it.natives["transformers"].attrs["CONFIG_MAPPING"]
    auto_map = config_dict.get("auto_map")
    has_remote_code = "auto_map" in config_dict and it.contains(auto_map, "AutoConfig")
    has_local_code = "model_type" in config_dict and it.contains(mapping, config_dict["model_type"])
    explicit_local = has_local_code and config_dict["model_type"] in it.config_extra
    if has_remote_code:
        if not has_local_code and not trust_remote_code:
            if trust_remote_code is None:
                raise _Signal(Undecidable(
                    "config.json names remote code (auto_map.AutoConfig); vLLM needs "
                    "--trust-remote-code and the repository's own configuration module"))
            raise ValueError(
                f"The repository {path} contains custom code which must be executed to correctly load the "
                f"model. You can inspect the repository content at {path} .\n You can inspect the repository "
                f"content at https://hf.co/{path}.\nPlease pass the argument `trust_remote_code=True` to allow "
                "custom code to be run.")
        if trust_remote_code and (not explicit_local if it.tf_major >= 5 else True):
            raise _Signal(Undecidable(
                "config.json names remote code (auto_map.AutoConfig) and trust_remote_code is set"))
    extra = {k: v for k, v in kwargs.items() if k != "local_files_only"}
    if "model_type" in config_dict:
        if config_dict["model_type"] == "mistral" and "layer_types" in config_dict:
            config_dict["model_type"] = "ministral"
        mt = config_dict["model_type"]
        if not (isinstance(mt, str) and it.contains(mapping, mt)):
            if not isinstance(mt, (str, int, float, bool, type(None))):
                raise TypeError(f"unhashable type: '{type(mt).__name__}'")
            e = Undecidable(
                f"model_type {mt!r} is known neither to transformers {release.transformers} nor to vLLM "
                f"{release.version}'s config registry (vLLM would need the checkpoint's remote code; without "
                "--trust-remote-code it raises ValueError: The checkpoint you are trying to load has model type "
                f"`{mt}` but Transformers does not recognize this architecture. ...)")
            e.load_crash = LoadCrash(
                "ValueError",
                f"The checkpoint you are trying to load has model type `{mt}` but Transformers does not recognize "
                "this architecture. This could be because of an issue with the checkpoint, or because your "
                "version of Transformers is out of date.\n\nYou can update Transformers with the command `pip "
                "install --upgrade transformers`. If this does not work, and the checkpoint is very new, then "
                "there may not be a release version that supports this model yet. In this case, you can get the "
                "most up-to-date code by installing Transformers from source with the command `pip install "
                "git+https://github.com/huggingface/transformers.git`", wrapped_by="ModelConfig")
            raise _Signal(e)
        cls = mapping.resolve(mt)
        return it.call(it.klass_getattr(cls, "from_dict"), [config_dict], {"name_or_path": path, **extra})
    if it.tf_major >= 5:
        raise ValueError(f"Unrecognized model in {path}. Should have a `model_type` key in its config.json.")
    for pattern in sorted(mapping.keys(), key=len, reverse=True):
        if pattern in str(path):
            cls = mapping.resolve(pattern)
            return it.call(it.klass_getattr(cls, "from_dict"), [config_dict], {"name_or_path": path, **extra})
    raise ValueError(
        f"Unrecognized model in {path}. Should have a `model_type` key in its config.json, or contain one of "
        f"the following strings in its name: {', '.join(mapping.keys())}")


# ---------------------------------------------------------------------------
# vLLM's process-wide transformers patches


def _config_classes(it: Interp):
    """Every config class created so far (loaded modules)."""
    for mod in list(it.modules.values()):
        if not mod.loaded:
            continue
        for v in list(mod.ns.values()):
            if isinstance(v, Klass) and it.is_config_class(v):
                yield v


def _patch_validate_rope(it: Interp, kind: str, release) -> None:
    """``_patch_hf_transformers_validate_rope`` ("ignore_keys") / ``..._nested_rope_validation`` ("nested").

    The wrapper replaces ``PretrainedConfig.validate_rope``; from 0.31.0 also every ``@strict``
    class-validator snapshot of the original (``_install_hf_config_validator``).  Before 0.31.0 the snapshots
    keep the original — except in classes created after the patch (transformers imports a model's
    configuration module when it is first used), which is what a fresh process does for the model being
    loaded: kvguard replaces the snapshots of every class then, which is the same for that model.
    """
    base = _base_config(it)
    own = base.ns.get("validate_rope", _MISSING)  # transformers 5 defines it in RotaryEmbeddingConfigMixin
    original, _ = base.lookup("validate_rope")
    if original is _MISSING or isinstance(original, Opaque):
        raise Unsupported("PretrainedConfig.validate_rope is not in the data")
    marker = "__vllm_patched__" if kind == "ignore_keys" else "__vllm_nested_rope_patched__"
    if isinstance(original, NativeFunc) and marker in getattr(original, "kvg_markers", ()):
        return

    def patched(i, a, kw):
        self = a[0]
        kw = dict(kw)
        if kind == "ignore_keys":
            ignore_keys_param = kw.pop("ignore_keys", None)
            cur = i.getattr(self, "ignore_keys_at_rope_validation")
            i.setattr(self, "ignore_keys_at_rope_validation", cur if i.truth(cur) else ignore_keys_param)
        else:
            rp = i.getattr(self, "rope_parameters") if i.hasattr(self, "rope_parameters") else None
            if isinstance(rp, dict):
                allowed = _allowed_layer_types(i)
                layer_types = set(rp) & set(allowed)
                shared = set(rp) - layer_types
                if layer_types and shared:
                    for key in shared:
                        del rp[key]
        return i.call(original, list(a), kw)

    fn = NativeFunc(patched, "patched_validate_rope")
    fn.kvg_markers = tuple(getattr(original, "kvg_markers", ())) + (marker,)

    def swap(old, new):
        for k in _config_classes(it):
            vals = k.ns.get("__class_validators__")
            if isinstance(vals, list) and any(_same_func(m, old) for _, m in vals):
                k.ns["__class_validators__"] = [(n, new if _same_func(m, old) else m) for n, m in vals]

    def undo():
        # also the classes created while the patch was in place (their snapshots hold the wrapper)
        if own is _MISSING:
            base.ns.pop("validate_rope", None)
        else:
            base.ns["validate_rope"] = own
        swap(fn, original)
        it.class_changed(base)

    it.kvg_undo.append(undo)
    base.ns["validate_rope"] = fn
    swap(original, fn)
    it.class_changed(base)


def _same_func(m, f) -> bool:
    return m is f or (isinstance(m, BoundMethod) and m.func is f)


def _allowed_layer_types(it: Interp) -> tuple:
    mod = it.find_module("transformers.configuration_utils")
    for name in ("ALLOWED_LAYER_TYPES", "ALLOWED_ATTENTION_LAYER_TYPES"):
        v = mod.ns.get(name)
        if isinstance(v, tuple):
            return v
    return ()


def _patch_allowed_layer_types(it: Interp, extra) -> None:
    mod = it.find_module("transformers.configuration_utils")
    cur = mod.ns.get("ALLOWED_LAYER_TYPES")
    if not isinstance(cur, tuple):
        raise Unsupported("transformers' ALLOWED_LAYER_TYPES is not in the data")
    missing = tuple(t for t in extra if t not in cur)
    if missing:
        _set_ns(it, mod.ns, "ALLOWED_LAYER_TYPES", cur + missing)


# ---------------------------------------------------------------------------


def hf_text_config(it: Interp, config, release=None):
    """vLLM's ``get_hf_text_config`` (the release's own, from the data)."""
    return it.call(_vllm_fn(it, "get_hf_text_config"), [config], {})


__all__ = ["LoadCrash", "load", "hf_text_config", "get_interp", "DEFAULT_PATH", "FEATURES", "REVIEWED"]
_ = Inst
