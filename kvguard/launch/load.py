"""Safe loading of a checkpoint's config.json (file, directory or mapping).

Nothing from a checkpoint is ever executed: only ``config.json`` is read, as
JSON, with a size bound.  Problems are :class:`~kvguard.InputError` naming the
file and the reason.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping

from ..errors import InputError

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["HF_QUANT_CONFIG", "MAX_CONFIG_BYTES", "QUANT_CONFIG_UNKNOWN", "SIDE_QUANT_CONFIG", "WEIGHTS_DTYPES",
           "load_checkpoint_config", "load_raw_config"]

#: the file ModelOpt up to 0.29 writes its quantization config into, beside config.json: every release's
#: ``get_config`` (vllm/transformers_utils/config.py, 0.10.2–0.33.0) reads it as the model's
#: ``quantization_config`` when config.json has none (``file_or_path_exists``: a file of the model directory)
HF_QUANT_CONFIG = "hf_quant_config.json"
#: the key the file's mapping is carried under in the loaded config (not a config.json key: kvguard.facts.loader
#: takes it out before the config is parsed)
SIDE_QUANT_CONFIG = "kvguard:hf_quant_config.json"
#: the key a catalog entry whose quantization config kvguard does not have carries the reason under (taken out by
#: kvguard.facts.loader, which answers Undecidable with it: the release reads that config before any check runs)
QUANT_CONFIG_UNKNOWN = "kvguard:quantization-config-unknown"
#: the key a catalog entry carries the safetensors dtype names of the checkpoint's weights under, as the Hugging Face
#: Hub's metadata lists them (read where vLLM reads the weights' dtypes: kvguard.facts.weights_dtype; taken out by
#: kvguard.facts.loader before the config is parsed)
WEIGHTS_DTYPES = "kvguard:safetensors-dtypes"

#: config.json files are a few KB; anything this large is not one
MAX_CONFIG_BYTES = 32 * 1024 * 1024


def load_raw_config(source: Any) -> tuple[dict[str, Any], str]:
    """Return ``(mapping, label)`` for a path to config.json, a directory holding one, or a mapping."""
    if isinstance(source, Mapping):
        return _check_mapping(dict(source), "<mapping>"), "<mapping>"
    if isinstance(source, (str, os.PathLike)):
        try:
            path = os.fspath(source)
            if not isinstance(path, str):
                raise InputError(f"config path must be text, not {type(path).__name__}", source="<config>")
            if "\x00" in path:
                raise InputError("path contains a NUL byte", source=repr(path))
            if os.path.isdir(path):
                path = os.path.join(path, "config.json")
                if not os.path.isfile(path):
                    raise InputError("directory holds no config.json", source=os.fspath(source))
            label = path
            try:
                info = os.stat(path)
            except FileNotFoundError:
                raise InputError("no such file", source=label) from None
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", source=label) from None
            if not stat.S_ISREG(info.st_mode):
                # a FIFO would block the reader, a device never ends
                raise InputError("not a regular file", source=label)
            size = info.st_size
            if size > MAX_CONFIG_BYTES:
                raise InputError(f"file is {size} bytes; a config.json is at most {MAX_CONFIG_BYTES}",
                                 source=label)
            try:
                with open(path, "rb") as fh:
                    data = fh.read(MAX_CONFIG_BYTES + 1)
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", source=label) from None
            if len(data) > MAX_CONFIG_BYTES:  # grew since stat
                raise InputError(f"file is over {MAX_CONFIG_BYTES} bytes", source=label)
        except (ValueError, OSError) as exc:
            if isinstance(exc, InputError):
                raise
            # os.stat & co. on a path they cannot take (e.g. too long, undecodable)
            raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                             source=repr(source)[:200]) from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=label) from None
        return _check_mapping(parse_json(text, label), label), label
    raise InputError(f"config must be a path or a mapping, not {type(source).__name__}", source="<config>")


def load_checkpoint_config(source: Any) -> tuple[dict[str, Any], str]:
    """:func:`load_raw_config`, plus the ``hf_quant_config.json`` beside a config.json whose
    ``quantization_config`` is absent or null, under :data:`SIDE_QUANT_CONFIG` (the facts loader applies it where
    the release's ``get_config`` does: after transformers has parsed config.json, which some releases' transformers
    refuse with a null ``quantization_config``)."""
    raw, label = load_raw_config(source)
    if raw.get("quantization_config") is not None or isinstance(source, Mapping):
        return raw, label
    beside = os.path.join(os.path.dirname(label), HF_QUANT_CONFIG)
    if not os.path.isfile(beside):
        return raw, label
    quant, _ = load_raw_config(beside)
    return dict(raw, **{SIDE_QUANT_CONFIG: quant}), label


def parse_json(text: str, label: str) -> Any:
    """The file's JSON as Python's ``json`` reads it, which is how transformers' ``PretrainedConfig`` and vLLM's
    ``get_config`` read config.json and hf_quant_config.json: ``NaN`` and ``Infinity`` are numbers there (Mamba
    configs such as nvidia/Nemotron-H-56B-Base-8K's ``time_step_limit`` hold ``Infinity``)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError("JSON nested too deeply", source=label) from None
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", source=label) from None


def _check_mapping(data: Any, label: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"top level must be a JSON object, not {type(data).__name__}", source=label)
    for key in data:
        if not isinstance(key, str):
            raise InputError("keys must be strings", source=label, key=repr(key))
    return data
