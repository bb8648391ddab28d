"""vLLM's "speculators" checkpoint format (``SpeculatorsConfig``), as each release reads it.

A speculators checkpoint (``speculators_model_type``, ``speculators_config`` with its proposal methods and
verifier, ``transformer_layer_config``) is read in two places:

* as a **draft** (``--speculative-config '{"model": "<speculators checkpoint>"}'``): vLLM's config registry
  maps it to ``SpeculatorsConfig``, a config whose attributes are the ``transformer_layer_config`` with the
  algorithm's updates (EAGLE-3: ``architectures`` ``Eagle3LlamaForCausalLM``, from 0.24.0 by layer model type
  ``Eagle3LlamaForCausalLM`` / ``Eagle3Qwen3ForCausalLM``, …); up to 0.15.1 it is validated first and also
  carries the method and token count;
* **served directly** (``vllm serve <speculators checkpoint>``): ``maybe_override_with_speculators``
  (0.11.0+) serves the verifier it names and builds the speculative config from the checkpoint
  (replacing any ``--speculative-config`` up to 0.32.0, merged with it from 0.33.0, which also refuses a
  verifier that is not a Hub repository id); 0.10.2 serves the verifier without speculative decoding.

kvguard's own code; the format's keys, the supported algorithms per release and the messages are upstream
facts.  Algorithms other than EAGLE-3 (P-EAGLE, DFlash, DSpark) are not modelled (undecidable, named).
"""

from __future__ import annotations

import os
import re

from ..errors import Undecidable
from ..versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["is_speculators", "draft_config", "served_override", "supported_types"]

#: ``SUPPORTED_SPECULATORS_TYPES`` in registration order, per release (name, first release)
_TYPES = (("eagle3", "0.10.2"), ("peagle", "0.22.0"), ("dflash", "0.20.0"), ("dflash2", "0.29.0"),
          ("dspark", "0.25.0"))


def supported_types(r: Release) -> tuple[str, ...]:
    order = ["eagle3", "dflash", "peagle", "dspark", "dflash2"] if r.within("0.22.0") else ["eagle3", "dflash"]
    since = dict(_TYPES)
    return tuple(name for name in order if r.within(since[name]))


def _types_repr(r: Release) -> str:
    """``str(SUPPORTED_SPECULATORS_TYPES)``: the registered functions print with their address in the vLLM
    process, which kvguard cannot know (``0x…``)."""
    names = {"eagle3": "update_eagle3", "peagle": "update_peagle", "dflash": "update_dflash",
             "dflash2": "update_dflash2", "dspark": "update_dspark"}
    return "{" + ", ".join(f"'{t}': <function {names[t]} at 0x…>" for t in supported_types(r)) + "}"


def is_speculators(raw: Any) -> bool:
    """vLLM reads a config.json as speculators when it has ``speculators_config`` and no ``model_type``."""
    return isinstance(raw, dict) and raw.get("model_type") is None and raw.get("speculators_config") is not None


class SpeculatorsError(Exception):
    """What vLLM raises reading a speculators checkpoint (exception type name and message)."""

    def __init__(self, exc_type: str, message: str):
        super().__init__(message)
        self.exc_type = exc_type
        self.message = message


def _validate(config: dict) -> None:
    """``validate_speculators_config``."""
    try:
        spec = config["speculators_config"]
        methods = spec["proposal_methods"]
        first = methods[0]
        first["speculative_tokens"]
        spec["verifier"]["name_or_path"]
        config["speculators_model_type"]
    except (KeyError, IndexError, TypeError):
        raise SpeculatorsError("ValueError", "Invalid speculators config structure") from None
    if "transformer_layer_config" not in config:
        raise SpeculatorsError("ValueError", "Must provide transformer_layer_config")
    if not isinstance(config["transformer_layer_config"], dict):
        raise SpeculatorsError("TypeError", "'transformer_layer_config' must be a dictionary if provided")


def _check_type(config: dict, r: Release) -> str:
    kind = config.get("speculators_model_type")
    if kind not in supported_types(r):
        raise SpeculatorsError("ValueError", f"Expected one of: {_types_repr(r)}. Please ensure you're loading a "
                                             "speculators-format model.")
    if kind != "eagle3":
        raise Undecidable(f"speculators checkpoints of type {kind!r} are not modelled")
    return kind


def _proposal(config: dict) -> tuple[dict, Any]:
    spec = config["speculators_config"]
    methods = spec.get("proposal_methods")
    if not methods:
        raise SpeculatorsError("ValueError", "No proposal methods found in speculators config")
    first = methods[0]
    tokens = first.get("speculative_tokens")
    if tokens is None:
        raise SpeculatorsError("ValueError", f"Missing 'speculative_tokens' in proposal method. Got: {first}")
    return first, tokens


def _eagle3(config: dict, out: dict, r: Release) -> None:
    out["draft_vocab_size"] = config.get("draft_vocab_size")
    if config.get("target_hidden_size") is not None:
        out["target_hidden_size"] = config["target_hidden_size"]
    out["norm_before_residual"] = config.get("norm_before_residual", True)
    if r.within("0.19.0"):
        out["norm_before_fc"] = config.get("norm_before_fc", False)
    if r.within("0.25.0"):
        out["fc_norm"] = config.get("fc_norm", False)
        out["norm_output"] = config.get("norm_output", False)
    if r.within("0.24.0"):
        arch_map = {"qwen3": "Eagle3Qwen3ForCausalLM", "llama": "Eagle3LlamaForCausalLM"}
        model_type = out.get("model_type", "llama")
        if model_type not in arch_map:
            raise SpeculatorsError("ValueError", f"Unsupported model_type {model_type} for Eagle3 speculator")
        out["architectures"] = [arch_map[model_type]]
    else:
        out["architectures"] = ["Eagle3LlamaForCausalLM"]
    if r.within("0.11.1") and config.get("eagle_aux_hidden_state_layer_ids"):
        out["eagle_aux_hidden_state_layer_ids"] = config["eagle_aux_hidden_state_layer_ids"]


def draft_config(config: dict, r: Release) -> dict:
    """The attributes ``SpeculatorsConfig.from_pretrained`` gives the draft config (as a config.json of the
    transformer layer's model type, which kvguard reads through the model facts)."""
    kind = _check_type(config, r)
    if not r.within("0.16.0"):
        _validate(config)
        _first, tokens = _proposal(config)
        out: dict = {"method": kind, ("num_speculative_tokens" if r.within("0.11.0") else "num_lookahead_tokens"):
                     tokens, "target_model": config["speculators_config"].get("verifier")["name_or_path"]}
        out.update(config.get("transformer_layer_config", {}))
    else:
        out = dict(config.get("transformer_layer_config", {}) or {})
    _eagle3(config, out, r)
    if not isinstance(out.get("model_type"), str):
        raise Undecidable("a speculators checkpoint whose transformer_layer_config names no model_type is not "
                          "modelled")
    return out


def speculative_dict(config: dict, r: Release) -> dict:
    """``SpeculatorsConfig.extract_vllm_speculative_config`` (0.11.0+): the speculative config built from it."""
    kind = config.get("speculators_model_type")
    if not r.within("0.16.0"):
        kind = _check_type(config, r)
        _validate(config)
        _first, tokens = _proposal(config)
        out = {"method": kind, "num_speculative_tokens": tokens,
               "target_model": config["speculators_config"].get("verifier")["name_or_path"]}
        out.update(config.get("transformer_layer_config", {}))
        extra = dict(out)
        _eagle3(config, extra, r)
        return extra
    _validate(config)
    _first, tokens = _proposal(config)
    out = {"method": kind, "num_speculative_tokens": tokens}
    if r.within("0.22.0") and kind == "peagle":
        out.update({"method": "eagle3", "parallel_drafting": True})
    elif r.within("0.29.0") and kind == "dflash2":
        out["method"] = "dflash"
    if kind != "eagle3":
        raise Undecidable(f"speculators checkpoints of type {kind!r} are not modelled")
    return out


_REPO_ID = re.compile(r"^(\b[\w\-.]+\b/)?\b[\w\-.]{1,96}\b$")


def _valid_repo_id(name: str) -> bool:
    """huggingface_hub's ``validate_repo_id`` (no exception): one optional namespace, allowed characters,
    no ``--`` / ``..``, no leading or trailing ``-`` / ``.``."""
    if name.count("/") > 1 or not _REPO_ID.match(name):
        return False
    if "--" in name or ".." in name:
        return False
    if name.endswith(".git"):
        return False
    return True


def served_override(model: str, config: Any, user_spec: Optional[dict], r: Release
                    ) -> Optional[tuple[str, Optional[dict], tuple[str, ...]]]:
    """``maybe_override_with_speculators`` for a served checkpoint: None when it is no speculators checkpoint,
    else (the verifier vLLM serves instead, the speculative config it builds, notes).  Raises
    :class:`SpeculatorsError` for what vLLM raises there (an EngineArgs-stage refusal)."""
    if not isinstance(config, dict) or config.get("speculators_config") is None:
        return None
    if r.within("0.33.0") and os.path.isfile(model):
        return None
    try:
        verifier = config["speculators_config"]["verifier"]["name_or_path"]
    except (KeyError, TypeError):
        verifier = None
    if not r.within("0.11.0"):
        if not isinstance(verifier, str):
            raise Undecidable("0.10.2 reading a speculators checkpoint without a verifier name is not modelled")
        note = (f"{model} is a speculators checkpoint: vLLM {r.version} serves its verifier {verifier} and, "
                "without --speculative-config, no speculative decoding")
        return verifier, user_spec, (note,)
    spec = speculative_dict(config, r)
    if r.within("0.33.0"):
        method = spec["method"]
        if isinstance(user_spec, dict):
            spec.update(user_spec)
        spec["method"] = method
    spec["model"] = model
    error = ("Speculators verifier must name a remote model repository. Select local verifiers explicitly with "
             "--model and --speculative-config.")
    if r.within("0.33.0"):
        if not isinstance(verifier, str) or not _valid_repo_id(verifier):
            raise SpeculatorsError("ValueError", error)
        if os.path.lexists(verifier):
            raise SpeculatorsError("ValueError", error)
    note = (f"{model} is a speculators checkpoint: vLLM {r.version} serves its verifier {verifier} with the "
            "speculative config it carries" + (" (merged with --speculative-config)" if r.within("0.33.0")
                                               and user_spec else ""))
    return verifier, spec, (note,)
