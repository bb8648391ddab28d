"""vLLM's config loading (``get_config`` → ``HFConfigParser.parse``) over the interpreter.

This is the hand-ported part: the order in which vLLM and transformers'
``AutoConfig`` pick a class and post-process the object.  Everything a class
itself does comes from the extracted data (``_interp``).

Code paths, by release:

* transformers 4.x releases (0.10.2–0.23.0) follow vLLM 0.20.0's
  ``transformers_utils/config.py`` (verified against 0.20.0);
* transformers 5.x releases (0.24.0+) follow vLLM 0.28.0's (verified against
  0.28.0).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..errors import Undecidable
from ._errors import LoadCrash
from ._interp import (
    _MISSING, ClassMethod, Inst, Interp, Klass, NativeFunc, Unsupported,
)

_DATA = os.path.dirname(__file__)  # package data: hfconfig/*.json
_LOCK = threading.RLock()

#: transformers versions whose classes were extracted; others use the nearest
_TF_DATA = ("4.57.6", "5.24.0")
#: vLLM releases whose own config classes were extracted
_VLLM_DATA = ("0.20.0", "0.28.0")

DEFAULT_PATH = "/model"


def _read(name: str) -> dict:
    with open(os.path.join(_DATA, name), encoding="utf-8") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def _registries() -> dict:
    return _read("vllm_registry.json")


def tf_data_version(tf: str) -> str:
    major = tf.split(".")[0]
    same = [v for v in _TF_DATA if v.split(".")[0] == major]
    return same[-1] if same else _TF_DATA[-1]


def vllm_data_version(release) -> str:
    return "0.20.0" if release.transformers_major < 5 else "0.28.0"


_INTERPS: dict[tuple[str, str], Interp] = {}


def get_interp(tf: str, vllm: str) -> Interp:
    key = (tf, vllm)
    with _LOCK:
        it = _INTERPS.get(key)
        if it is None:
            it = Interp([_read(f"transformers-{tf}.json"), _read(f"vllm-{vllm}.json")],
                        transformers_major=int(tf.split(".")[0]))
            _install_hooks(it)
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


# ---------------------------------------------------------------------------


def _registry(release) -> dict[str, str]:
    regs = _registries()["per_version"]
    key = str(release.version)
    if key in regs:
        return regs[key]
    # nearest older
    from packaging.version import Version
    older = [v for v in regs if Version(v) <= release.version]
    return regs[max(older, key=Version)] if older else {}


def _speculative(release) -> set[str]:
    return {"eagle", "speculators", "medusa"} if release.transformers_major >= 5 else {"eagle", "speculators"}


def _resolve_registry_class(it: Interp, cls_name: str, release) -> Klass:
    if cls_name == "DeepseekV3Config":  # vLLM re-exports transformers' class
        v = it.import_from("transformers", "DeepseekV3Config")
    else:
        v = it.import_from("vllm.transformers_utils.configs", cls_name)
    if not isinstance(v, Klass):
        raise Undecidable(f"vLLM {release.version}'s config class {cls_name} is not modelled by kvguard")
    return v


def _crash(e: BaseException, *, wrap: bool = True) -> LoadCrash:
    cause = e.__cause__
    wrapped = "ModelConfig" if wrap and isinstance(e, (ValueError, AssertionError)) else None
    return LoadCrash(type(e).__name__, str(e), wrapped_by=wrapped, exc_module=type(e).__module__,
                     cause=(type(cause).__name__, str(cause)) if cause is not None else None)


def load(raw: Mapping[str, Any], release, *, path: str | None = None, trust_remote_code: bool | None = None):
    if not isinstance(raw, Mapping):
        raise TypeError("raw config must be a mapping")
    tf = tf_data_version(release.transformers)
    it = get_interp(tf, vllm_data_version(release))
    with _LOCK:
        it.current_raw = dict(raw)
        it.config_extra.clear()
        try:
            cfg = _load(it, dict(raw), release, path or DEFAULT_PATH, trust_remote_code)
        except Unsupported as e:
            raise Undecidable(f"kvguard cannot emulate loading this config: {e}") from None
        except (LoadCrash, Undecidable):
            raise
        except RecursionError as e:
            raise Undecidable(f"kvguard cannot emulate loading this config: {e}") from None
        except Exception as e:  # noqa: BLE001 - an emulated exception: what vLLM raises
            raise _crash(e) from None
    return cfg


def _load(it: Interp, raw: dict, release, path: str, trust_remote_code):
    config_dict = _config_dict_for(it, raw)
    v5 = it.tf_major >= 5
    # --- HFConfigParser.parse
    model_type = config_dict.get("model_type")
    if model_type is None:
        model_type = "speculators" if config_dict.get("speculators_config") is not None else model_type
    if model_type is None and release.within("0.32.0", None) and config_dict.get("architectures"):
        raise Undecidable("vLLM 0.32.0+ infers model_type from architectures[0]; kvguard does not model that table")
    registry = _registry(release)
    trc = bool(trust_remote_code)
    direct = model_type in _speculative(release) or not release.within("0.19.0", None)
    if model_type in registry and direct:
        # speculative-decoding configs always, and before 0.19.0 every registry class:
        # config_class.from_pretrained(model, ...) instead of AutoConfig
        cls = _resolve_registry_class(it, registry[model_type], release)
        fp = it.klass_getattr(cls, "from_pretrained")
        config = it.call(fp, [path], {"revision": None, "code_revision": None, "trust_remote_code": trc,
                                      "local_files_only": True, "token": None})
    else:
        if model_type in registry:
            cls = _resolve_registry_class(it, registry[model_type], release)
            if cls.ns.get("model_type") != model_type:
                cls.ns["model_type"] = model_type
                it.class_changed(cls)
            it.config_extra[model_type] = cls
            trc = False
            trust_remote_code = False
        config = _auto_config(it, config_dict, path, trust_remote_code, model_type, release)
    # _maybe_remap_hf_config_attrs
    if it.hasattr(config, "llm_config") and not it.hasattr(config, "text_config"):
        it.call(it.getattr(config, "update"), [{"text_config": it.getattr(config, "llm_config")}], {})
    # --- get_config post-processing
    if not it.truth(it.getattr(config, "architectures")):
        mt = it.getattr(config, "model_type")
        names = it.tables.get("model_mapping_names", {})
        if isinstance(mt, str) and mt in names:
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
    # vLLM 0.28.0 patches PretrainedConfig.validate_rope for these model types (process-wide)
    sarvam = v5 and model_type in ("sarvam_mla",) and release.within("0.28.0", None)
    _patch_rope_parameters(it, config, v5, sarvam)
    _patch_rope_parameters(it, it.call(it.getattr(config, "get_text_config"), [], {}), v5, sarvam)
    sub_configs = it.getattr(config, "sub_configs") if it.hasattr(config, "sub_configs") else None
    if it.truth(sub_configs) if sub_configs is not None else False:
        for sc in it.iterate(sub_configs):
            _patch_rope_parameters(it, it.getattr(config, sc), v5, sarvam)
    return config


def _auto_config(it: Interp, config_dict: dict, path: str, trust_remote_code, model_type, release):
    mapping = it.natives["transformers"].attrs["CONFIG_MAPPING"]
    auto_map = config_dict.get("auto_map")
    has_remote_code = "auto_map" in config_dict and it.contains(auto_map, "AutoConfig")
    has_local_code = "model_type" in config_dict and it.contains(mapping, config_dict["model_type"])
    explicit_local = has_local_code and config_dict["model_type"] in it.config_extra
    if has_remote_code:
        if not has_local_code and not trust_remote_code:
            if trust_remote_code is None:
                raise Undecidable("config.json names remote code (auto_map.AutoConfig); vLLM needs "
                                  "--trust-remote-code and the repository's own configuration module")
            raise LoadCrash(
                "ValueError",
                f"The repository {path} contains custom code which must be executed to correctly load the "
                f"model. You can inspect the repository content at {path} .\n You can inspect the repository "
                f"content at https://hf.co/{path}.\nPlease pass the argument `trust_remote_code=True` to allow "
                "custom code to be run.", wrapped_by="ModelConfig")
        if trust_remote_code and (not explicit_local if it.tf_major >= 5 else True):
            raise Undecidable("config.json names remote code (auto_map.AutoConfig) and trust_remote_code is set")
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
            raise e
        cls = mapping.resolve(mt)
        kwargs = {"name_or_path": path}
        if model_type in ("Llama_Nemotron_Nano_VL",):
            kwargs["attn_implementation"] = "eager"
        if model_type in ("internvl_chat", "NVLM_D"):
            kwargs["has_no_defaults_at_init"] = True
        return it.call(it.klass_getattr(cls, "from_dict"), [config_dict], kwargs)
    if it.tf_major >= 5:
        raise ValueError(f"Unrecognized model in {path}. Should have a `model_type` key in its config.json.")
    for pattern in sorted(mapping.keys(), key=len, reverse=True):
        if pattern in str(path):
            cls = mapping.resolve(pattern)
            return it.call(it.klass_getattr(cls, "from_dict"), [config_dict], {"name_or_path": path})
    raise ValueError(
        f"Unrecognized model in {path}. Should have a `model_type` key in its config.json, or contain one of "
        f"the following strings in its name: {', '.join(mapping.keys())}")


# ---------------------------------------------------------------------------
# vllm.transformers_utils.config.patch_rope_parameters


def _getattr_iter(it, obj, names, default=None):
    for name in names:
        if it.hasattr(obj, name):
            return it.getattr(obj, name)
    return default


def _allowed_layer_types(it) -> tuple:
    mod = it.find_module("transformers.configuration_utils")
    for name in ("ALLOWED_ATTENTION_LAYER_TYPES", "ALLOWED_LAYER_TYPES"):
        v = mod.ns.get(name)
        if isinstance(v, tuple):
            return v
    return ()


def _is_nested(it, rp) -> bool:
    if not rp:
        return False
    return set(rp.keys()).issubset(_allowed_layer_types(it))


def _patch_legacy_rope_dict(rp: dict, *, v5: bool) -> None:
    if "rope_type" in rp and "type" in rp:
        rope_type = rp["rope_type"]
        legacy = rp["type"]
        if (legacy == "su" and rope_type == "longrope") or (legacy == "mrope" and rope_type == "default"):
            pass
        elif rope_type != legacy:
            raise ValueError(
                f"Found conflicts between 'rope_type={rope_type}' (modern field) and 'type={legacy}' (legacy "
                "field). You should only specify one of them.")
    if "rope_type" not in rp and "type" in rp:
        rp["rope_type"] = rp["type"]
    if "rope_type" not in rp:
        if v5:
            return
        raise ValueError("rope_parameters should have a 'rope_type' key")
    if rp["rope_type"] == "su":
        rp["rope_type"] = "longrope"
    elif rp["rope_type"] == "mrope":
        if "mrope_section" not in rp:
            raise ValueError("Legacy rope_type 'mrope' requires 'mrope_section' in rope_parameters")
        rp["rope_type"] = "default"


def _patch_legacy(it, rp, *, v5: bool) -> None:
    if rp is None:
        return
    if _is_nested(it, rp):
        for sub in list(rp.values()):
            _patch_legacy_rope_dict(sub, v5=v5)
    else:
        _patch_legacy_rope_dict(rp, v5=v5)


def _patch_rope_parameters(it: Interp, config, v5: bool, patched_validate_rope: bool = False) -> None:
    rope_theta = _getattr_iter(it, config, ["rope_theta", "rotary_emb_base"])
    prf = _getattr_iter(it, config, ["partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"])
    if v5:
        if rope_theta is not None or it.truth(_getattr_iter(it, config, ["rope_parameters"])):
            if rope_theta is not None:
                it.setattr(config, "rope_theta", rope_theta)
            if prf is not None:
                it.setattr(config, "partial_rotary_factor", prf)
            _patch_legacy(it, _getattr_iter(it, config, ["rope_parameters"]), v5=True)
            it.call(it.getattr(config, "standardize_rope_params"), [], {})
            if patched_validate_rope:
                cur = it.getattr(config, "ignore_keys_at_rope_validation")
                it.setattr(config, "ignore_keys_at_rope_validation", cur if it.truth(cur) else None)
            it.call(it.getattr(config, "validate_rope"), [], {})
        return
    ompe = _getattr_iter(it, config, ["original_max_position_embeddings"])
    rope_scaling = _getattr_iter(it, config, ["rope_scaling"])
    if rope_scaling is not None:
        it.setattr(config, "rope_parameters", rope_scaling)
    if (rope_theta is not None or prf is not None or ompe is not None) and \
            not it.truth(_getattr_iter(it, config, ["rope_parameters"])):
        it.setattr(config, "rope_parameters", {"rope_type": "default"})
    if rope_theta is not None:
        _setitem(it.getattr(config, "rope_parameters"), "rope_theta", rope_theta)
    if prf is not None:
        _setitem(it.getattr(config, "rope_parameters"), "partial_rotary_factor", prf)
    if ompe is not None:
        _setitem(it.getattr(config, "rope_parameters"), "original_max_position_embeddings", ompe)
    rp = _getattr_iter(it, config, ["rope_parameters"])
    if rp is None:
        return
    if _is_nested(it, rp):
        for sub in list(rp.values()):
            _patch_legacy_rope_dict(sub, v5=False)
    else:
        _patch_legacy_rope_dict(rp, v5=False)


def _setitem(obj, key, value):
    if isinstance(obj, Inst):
        raise Unsupported("item assignment on emulated object")
    obj[key] = value


def hf_text_config(it: Interp, config, release=None):
    """vLLM's ``get_hf_text_config`` (T1 assert before 0.13.0, T2 ValueError after)."""
    text = it.call(it.getattr(config, "get_text_config"), [], {})
    if text is not config and not it.hasattr(text, "num_attention_heads"):
        if release is not None and not release.within("0.13.0", None):
            raise AssertionError()
        raise ValueError(
            "The text_config extracted from the model config does not have `num_attention_heads` attribute. "
            "This indicates a mismatch between the model config and vLLM's expectations. Please ensure that "
            "the model config is compatible with vLLM.")
    return text


__all__ = ["LoadCrash", "load", "hf_text_config", "get_interp", "DEFAULT_PATH"]
_ = _MISSING
