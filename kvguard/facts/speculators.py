"""A speculators-format draft checkpoint (``config.json`` with ``speculators_config``), per release.

Mirrors what ``SpeculatorsConfig.from_pretrained`` in vLLM's
``vllm/transformers_utils/configs/speculators/`` (``base.py``, ``algos.py``) makes of such a config: a
plain configuration whose attributes are the checkpoint's ``transformer_layer_config`` plus what the
draft algorithm named by ``speculators_model_type`` adds (the draft architecture above all).  The release
differences below are facts read from every release's sources; the messages are vLLM's.

- 0.10.2–0.15.1 check the speculators structure first and start the attributes from vLLM's speculative
  settings (method, number of speculative tokens, target model), ``transformer_layer_config`` over them;
  from 0.16.0 the attributes are ``transformer_layer_config`` alone (``{}`` when absent), unchecked.
- the object is built as ``SpeculatorsConfig(**attributes)``: under transformers 4 every attribute is set,
  ``model_type`` included (so the object reports the layer config's model type); under transformers 5
  ``model_type`` stays the class's ("speculators").
- each draft algorithm adds its own attributes (:data:`ALGORITHMS` says from which release vLLM knows it):
  the draft architecture, the checkpoint keys it copies (with their defaults) and the ones it requires
  (a missing one raises ``KeyError``).  Releases after the last reviewed one are Undecidable until reviewed.
"""

from __future__ import annotations

from ..errors import Undecidable
from .objects import ClassFacts, ConfigObject

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LAST_REVIEWED", "load"]

#: the newest release whose speculators sources were read for this module
LAST_REVIEWED = "0.33.0"

#: SUPPORTED_SPECULATORS_TYPES in its registration order: algorithm -> (first release, its function's name)
ALGORITHMS: dict[str, tuple[str, str]] = {
    "eagle3": ("0.10.2", "update_eagle3"), "peagle": ("0.22.0", "update_peagle"),
    "dflash": ("0.20.0", "update_dflash"), "dflash2": ("0.29.0", "update_dflash2"),
    "dspark": ("0.25.0", "update_dspark"),
}
#: an unknown algorithm: the message prints the table (its functions with their addresses, which differ from
#: process to process; kvguard prints "0x…" there)
UNSUPPORTED = "Expected one of: {table}. Please ensure you're loading a speculators-format model."

#: 0.10.2-0.15.1: structure checked, speculative settings first; the key naming the token count
CHECKED_UNTIL = "0.15.1"
TOKENS_KEY = (("num_lookahead_tokens", "0.10.2", "0.10.2"), ("num_speculative_tokens", "0.11.0", CHECKED_UNTIL))

#: eagle3: the attributes it sets from the checkpoint, each (key, default or _ABSENT, first release)
_ABSENT = object()
EAGLE3_FROM_CHECKPOINT: tuple[tuple[str, Any, str], ...] = (
    ("draft_vocab_size", None, "0.10.2"),
    ("target_hidden_size", _ABSENT, "0.10.2"),      # only when present and not null
    ("norm_before_residual", True, "0.10.2"),
    ("norm_before_fc", False, "0.19.0"),
    ("fc_norm", False, "0.25.0"),
    ("norm_output", False, "0.25.0"),
)
#: eagle3's draft architecture: one name until 0.23.0, then chosen by the layer config's model type
EAGLE3_ARCHITECTURE = "Eagle3LlamaForCausalLM"
EAGLE3_ARCHITECTURES_BY_MODEL_TYPE_SINCE = "0.24.0"
EAGLE3_ARCHITECTURES = {"qwen3": "Eagle3Qwen3ForCausalLM", "llama": "Eagle3LlamaForCausalLM"}
EAGLE3_DEFAULT_MODEL_TYPE = "llama"
EAGLE3_UNSUPPORTED = "Unsupported model_type {model_type} for Eagle3 speculator"
#: eagle3 copies eagle_aux_hidden_state_layer_ids (when truthy) from this release
EAGLE3_AUX_LAYERS_SINCE = "0.11.1"

INVALID_STRUCTURE = "Invalid speculators config structure"
NO_LAYER_CONFIG = "Must provide transformer_layer_config"
LAYER_CONFIG_NOT_DICT = "'transformer_layer_config' must be a dictionary if provided"
MISSING_TOKENS = "Missing 'speculative_tokens' in proposal method. Got: {method}"

#: the keys the structure check looks up, as paths (an int is a list index)
_STRUCTURE_PATHS = (("speculators_config", "proposal_methods", 0, "speculative_tokens"),
                    ("speculators_config", "verifier", "name_or_path"),
                    ("speculators_model_type",))


def load(lib: Any, cls: ClassFacts, config_dict: dict, release) -> ConfigObject:
    """``SpeculatorsConfig.from_pretrained`` of ``release`` on ``config_dict`` (config.json as read)."""
    if not release.within(None, LAST_REVIEWED):
        raise Undecidable(f"vLLM {release.version}: the speculators format after {LAST_REVIEWED} is not reviewed")
    algorithm = config_dict.get("speculators_model_type")
    registered = {name: function for name, (first, function) in ALGORITHMS.items() if release.within(first)}
    if not _hashable(algorithm):
        raise Undecidable("a speculators_model_type that is a list or mapping is not modelled")
    if algorithm not in registered:
        table = ", ".join(f"'{name}': <function {function} at 0x…>" for name, function in registered.items())
        raise ValueError(UNSUPPORTED.format(table="{" + table + "}"))
    if release.within(None, CHECKED_UNTIL):
        attributes = _checked_start(config_dict, release)
    else:
        attributes = config_dict.get("transformer_layer_config", {})
        if not isinstance(attributes, dict):
            if algorithm == "dspark" and release.within(DSPARK_ARCHITECTURES_FROM_CHECKPOINT_SINCE):
                _dspark_architectures(config_dict)
            # the algorithm's first write into it fails as Python's item assignment does
            raise TypeError(_ITEM_ASSIGNMENT.get(type(attributes).__name__, _NO_ITEM_ASSIGNMENT).format(
                type=_JSON_TYPE_NAMES[type(attributes)]))
    _ALGORITHM_STEPS[algorithm](config_dict, attributes, release)
    return _build(lib, cls, attributes)


#: Python's messages for ``value["key"] = ...`` on a JSON value that is not an object
_ITEM_ASSIGNMENT = {"list": "list indices must be integers or slices, not str"}
_NO_ITEM_ASSIGNMENT = "'{type}' object does not support item assignment"
_JSON_TYPE_NAMES = {dict: "dict", list: "list", str: "str", int: "int", float: "float", bool: "bool",
                    type(None): "NoneType"}


def _hashable(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _checked_start(config_dict: dict, release) -> dict:
    """0.10.2-0.15.1: the structure check, then the speculative settings with the layer config over them."""
    for path in _STRUCTURE_PATHS:
        node: Any = config_dict
        for step in path:
            if isinstance(step, int):
                if not isinstance(node, (list, str)) or len(node) <= step:
                    raise ValueError(INVALID_STRUCTURE)
            elif not isinstance(node, dict) or step not in node:
                raise ValueError(INVALID_STRUCTURE)
            node = node[step]
    if "transformer_layer_config" not in config_dict:
        raise ValueError(NO_LAYER_CONFIG)
    layer_config = config_dict["transformer_layer_config"]
    if not isinstance(layer_config, dict):
        raise TypeError(LAYER_CONFIG_NOT_DICT)
    speculative = config_dict["speculators_config"]
    method = speculative["proposal_methods"][0]
    tokens = method.get("speculative_tokens")
    if tokens is None:
        if not _plain(method):
            raise Undecidable("the printed form of the proposal method is not modelled")
        raise ValueError(MISSING_TOKENS.format(method=method))
    key = next(name for name, first, last in TOKENS_KEY if release.within(first, last))
    attributes = {"method": config_dict.get("speculators_model_type"), key: tokens,
                  "target_model": speculative.get("verifier")["name_or_path"]}
    attributes.update(layer_config)
    return attributes


def _plain(value: Any) -> bool:
    """A JSON value whose Python printed form kvguard's own printing equals (str, numbers, lists, dicts)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def _eagle3(config_dict: dict, attributes: dict, release) -> None:
    _copy(config_dict, attributes, EAGLE3_FROM_CHECKPOINT, release)
    if release.within(EAGLE3_ARCHITECTURES_BY_MODEL_TYPE_SINCE):
        attributes["architectures"] = [_by_model_type(attributes, EAGLE3_ARCHITECTURES, EAGLE3_UNSUPPORTED)]
    else:
        attributes["architectures"] = [EAGLE3_ARCHITECTURE]
    if release.within(EAGLE3_AUX_LAYERS_SINCE) and config_dict.get("eagle_aux_hidden_state_layer_ids"):
        attributes["eagle_aux_hidden_state_layer_ids"] = config_dict["eagle_aux_hidden_state_layer_ids"]


#: peagle: its attributes from the checkpoint (as eagle3's) and its architectures by model type
PEAGLE_FROM_CHECKPOINT: tuple[tuple[str, Any, str], ...] = (
    ("draft_vocab_size", None, "0.22.0"),
    ("target_hidden_size", _ABSENT, "0.22.0"),
    ("norm_before_residual", False, "0.22.0"),
    ("norm_before_fc", False, "0.22.0"),
)
PEAGLE_ARCHITECTURE = "PeagleLlamaForCausalLM"
PEAGLE_ARCHITECTURES = {"qwen3": "PeagleQwen3ForCausalLM", "llama": "PeagleLlamaForCausalLM"}
PEAGLE_UNSUPPORTED = "Unsupported model_type {model_type} for PEagle speculator"
#: peagle's mask token id is stored as ``pard_token``
PEAGLE_MASK_TOKEN_AS = "pard_token"

#: dflash / dflash2 / dspark: the checkpoint keys they require
AUX_LAYERS_KEY = "aux_hidden_state_layer_ids"
MASK_TOKEN_KEY = "mask_token_id"
DFLASH_ARCHITECTURE = "DFlashDraftModel"
DFLASH2_ARCHITECTURE = "DFlash2DraftModel"
#: dflash: target layer ids are the aux layer ids minus one from this release (before: the same ids)
DFLASH_SHIFTED_SINCE = "0.22.0"
DFLASH_CAUSAL_SINCE = "0.26.0"
DFLASH_SAMPLE_FROM_ANCHOR_SINCE = "0.27.0"
#: dflash2: keys copied into dflash_config when present and not null
DFLASH2_KEYS = ("conv_kernel_size", "conv_group_size", "selector_rank", "selector_top_k")
#: dspark: its architecture (fixed; from 0.29.0 the checkpoint's own when it names one of the supported ones)
DSPARK_ARCHITECTURE = "Qwen3DSparkModel"
DSPARK_ARCHITECTURES_FROM_CHECKPOINT_SINCE = "0.29.0"
DSPARK_SUPPORTED_ARCHITECTURES = ("Qwen3DSparkModel", "Qwen3OmniDSparkModel")
#: dspark: 0.25.0-0.26.0 dspark_bonus_anchor = True; 0.27.0-0.28.0 sample_from_anchor only; from 0.29.0 both
DSPARK_SAMPLE_FROM_ANCHOR_SINCE = "0.27.0"
DSPARK_BONUS_ANCHOR = (("always", "0.25.0", "0.26.0"), ("negated_sample", "0.29.0", None))
#: dspark: keys copied when present and not null, each from its first release
DSPARK_KEYS: tuple[tuple[str, str], ...] = (
    ("draft_vocab_size", "0.25.0"), ("target_hidden_size", "0.25.0"), ("mask_token_id", "0.25.0"),
    ("markov_rank", "0.25.0"), ("markov_head_type", "0.25.0"), ("block_size", "0.25.0"),
    ("enable_confidence_head", "0.25.0"), ("confidence_head_with_markov", "0.25.0"),
    ("use_aux_hidden_state", "0.29.0"),
)


def _copy(config_dict: dict, attributes: dict, keys, release) -> None:
    """Copy checkpoint keys: with a default (``dict.get``), or only when present and not null (_ABSENT)."""
    for key, default, first in keys:
        if not release.within(first):
            continue
        if default is _ABSENT:
            if config_dict.get(key) is not None:
                attributes[key] = config_dict[key]
        else:
            attributes[key] = config_dict.get(key, default)


def _by_model_type(attributes: dict, table: dict, message: str) -> str:
    """The draft architecture named by the layer config's model type (``llama`` when it has none)."""
    model_type = attributes.get("model_type", EAGLE3_DEFAULT_MODEL_TYPE)
    if not _hashable(model_type):
        raise Undecidable("a layer config whose model_type is a list or mapping is not modelled")
    if model_type not in table:
        if not isinstance(model_type, (str, int, bool)) and model_type is not None:
            raise Undecidable("the printed form of this model_type is not modelled")
        raise ValueError(message.format(model_type=model_type))
    return table[model_type]


def _required(config_dict: dict, key: str) -> Any:
    if key not in config_dict:
        raise KeyError(key)
    return config_dict[key]


def _shifted(layer_ids: Any) -> list:
    """The aux layer ids minus one, each; failing as Python's iteration and subtraction do on JSON values."""
    if isinstance(layer_ids, (str, dict, list)):
        items = list(layer_ids)   # a string's characters, a mapping's keys
    else:
        raise TypeError(f"'{_JSON_TYPE_NAMES[type(layer_ids)]}' object is not iterable")
    out = []
    for item in items:
        if not isinstance(item, (int, float)):
            name = _JSON_TYPE_NAMES[type(item)]
            raise TypeError(f"unsupported operand type(s) for -: '{name}' and 'int'")
        out.append(item - 1)
    return out


def _peagle(config_dict: dict, attributes: dict, release) -> None:
    _copy(config_dict, attributes, PEAGLE_FROM_CHECKPOINT, release)
    if release.within(EAGLE3_ARCHITECTURES_BY_MODEL_TYPE_SINCE):
        attributes["architectures"] = [_by_model_type(attributes, PEAGLE_ARCHITECTURES, PEAGLE_UNSUPPORTED)]
    else:
        attributes["architectures"] = [PEAGLE_ARCHITECTURE]
    attributes[PEAGLE_MASK_TOKEN_AS] = _required(config_dict, MASK_TOKEN_KEY)
    if config_dict.get("eagle_aux_hidden_state_layer_ids"):
        attributes["eagle_aux_hidden_state_layer_ids"] = config_dict["eagle_aux_hidden_state_layer_ids"]


def _dflash(config_dict: dict, attributes: dict, release) -> None:
    attributes["architectures"] = [DFLASH_ARCHITECTURE]
    _copy(config_dict, attributes, (("draft_vocab_size", None, "0.20.0"), ("target_hidden_size", _ABSENT, "0.20.0")),
          release)
    layer_ids = _required(config_dict, AUX_LAYERS_KEY)
    attributes["eagle_aux_hidden_state_layer_ids"] = layer_ids
    draft = {MASK_TOKEN_KEY: _required(config_dict, MASK_TOKEN_KEY)}
    draft["target_layer_ids"] = _shifted(layer_ids) if release.within(DFLASH_SHIFTED_SINCE) else layer_ids
    if release.within(DFLASH_SAMPLE_FROM_ANCHOR_SINCE):
        draft["sample_from_anchor"] = config_dict.get("sample_from_anchor", False)
    if release.within(DFLASH_CAUSAL_SINCE):
        draft["causal"] = not config_dict.get("sliding_window_non_causal", True)
    attributes["dflash_config"] = draft


def _dflash2(config_dict: dict, attributes: dict, release) -> None:
    _dflash(config_dict, attributes, release)
    attributes["architectures"] = [DFLASH2_ARCHITECTURE]
    for key in DFLASH2_KEYS:
        if config_dict.get(key) is not None:
            attributes["dflash_config"][key] = config_dict[key]


def _dspark_architectures(config_dict: dict) -> list:
    """From 0.29.0: the checkpoint's architectures that dspark supports, else its default one."""
    named = config_dict.get("architectures") or []
    if not isinstance(named, list):
        raise Undecidable("dspark: architectures that are not a list are not modelled")
    if any(not _hashable(a) for a in named):
        raise Undecidable("dspark: architectures holding lists or mappings are not modelled")
    return [a for a in named if a in DSPARK_SUPPORTED_ARCHITECTURES] or [DSPARK_ARCHITECTURE]


def _dspark(config_dict: dict, attributes: dict, release) -> None:
    if release.within(DSPARK_ARCHITECTURES_FROM_CHECKPOINT_SINCE):
        attributes["architectures"] = _dspark_architectures(config_dict)
    else:
        attributes["architectures"] = [DSPARK_ARCHITECTURE]
    bonus = next((kind for kind, first, last in DSPARK_BONUS_ANCHOR if release.within(first, last)), None)
    if bonus == "always":
        attributes["dspark_bonus_anchor"] = True
    if release.within(DSPARK_SAMPLE_FROM_ANCHOR_SINCE):
        sample = config_dict.get("sample_from_anchor", False)
        attributes["sample_from_anchor"] = sample
        if bonus == "negated_sample":
            attributes["dspark_bonus_anchor"] = not sample
    layer_ids = _required(config_dict, AUX_LAYERS_KEY)
    attributes["eagle_aux_hidden_state_layer_ids"] = layer_ids
    attributes["target_layer_ids"] = _shifted(layer_ids)
    for key, first in DSPARK_KEYS:
        if release.within(first) and config_dict.get(key) is not None:
            attributes[key] = config_dict[key]


_ALGORITHM_STEPS = {"eagle3": _eagle3, "peagle": _peagle, "dflash": _dflash, "dflash2": _dflash2, "dspark": _dspark}


def _build(lib: Any, cls: ClassFacts, attributes: dict) -> ConfigObject:
    """``SpeculatorsConfig(**attributes)``.  Transformers 4: the base configuration's ``__init__`` with every
    attribute (``model_type`` included).  Transformers 5: ``model_type`` stays the class's; the attributes that
    are not fields of the base configuration are set first, one by one, then the base ``__init__`` runs with
    the fields alone (so e.g. a ``torch_dtype`` set first is overwritten by the default ``dtype``)."""
    record = {"model_type": cls.class_attrs.get("model_type", ""), "module": cls.record.get("module"),
              "init_kind": "inherited"}
    plain = ClassFacts(cls.name, record, lib, None)
    if lib.major < 5:
        return lib.build(plain, dict(attributes))
    fields = {name for name, _ in lib.fields_of(None)}
    obj = ConfigObject(plain)
    base_kwargs = {}
    for key, value in attributes.items():
        if key == "model_type":
            continue
        if key in fields:
            base_kwargs[key] = value
        else:
            setattr(obj, key, value)
    lib._init(obj, None, base_kwargs)
    return obj
