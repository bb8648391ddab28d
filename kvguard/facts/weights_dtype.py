"""The dtype vLLM reads from a checkpoint's safetensors headers when its config names none.

``--dtype auto`` starts from the config's dtype: the top-level config's, else its text config's, its
``vision_config``'s, its ``encoder_config``'s.  When none has one, the release asks for the dtypes of the weights
and takes the one every other casts to without loss (``common_broadcastable_dtype``), else ``float32``
(vllm/config/__init__.py::_find_dtype in 0.10.2, vllm/config/model.py::_find_dtype in 0.11.0-0.13.x,
vllm/transformers_utils/model_arch_config_convertor.py::ModelArchConfigConvertorBase.get_torch_dtype from 0.14.0).
Where the dtypes come from depends on the release and on the model as vLLM is given it:

- up to the release before :data:`LOCAL_READ_SINCE`, only the Hugging Face Hub's safetensors metadata of the repo
  named so (``try_get_safetensors_metadata``): a local directory whose path is no valid repo id gets none (the Hub
  client refuses the id, vLLM takes the failure as no metadata) and the dtype is ``float32``;
- from :data:`LOCAL_READ_SINCE`, a path that exists is read in place: the JSON header of every ``*.safetensors``
  file directly in it (``get_safetensors_params_metadata``; each header is 8 bytes of little-endian length, then
  that many bytes of JSON mapping tensor names, and ``__metadata__``, to their ``dtype``); a repo id still asks the
  Hub first.

kvguard knows the dtypes of a local directory it can read and, for a checkpoint of its catalog, the Hub's (the
entry's ``safetensors_dtypes``, measured, with its source); otherwise the dtype stays open.
"""

from __future__ import annotations

import json
import os
import re
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Optional

__all__ = ["LOCAL_READ_SINCE", "common_dtype", "local_dtypes", "weights_dtype"]

#: the first release whose dtype read takes a local directory's own safetensors headers
LOCAL_READ_SINCE = "0.18.0"

#: safetensors' dtype names as the release's ``safetensors.torch._TYPES`` maps them (the names every pinned
#: safetensors maps; the pinned versions map a few more, which kvguard leaves open): the torch dtype's name, its
#: kind (0 bool, 1 integer, 2 floating point: vLLM's ``_get_precision_level``) and the bounds vLLM's
#: ``is_lossless_cast`` compares (``torch.iinfo``'s min / max; ``torch.finfo``'s min / max / resolution)
_SAFETENSORS_DTYPES: dict[str, tuple[str, int, tuple[Any, ...]]] = {
    "BOOL": ("bool", 0, ()),
    "U8": ("uint8", 1, (0, 255)),
    "I8": ("int8", 1, (-128, 127)),
    "I16": ("int16", 1, (-32768, 32767)),
    "I32": ("int32", 1, (-2147483648, 2147483647)),
    "I64": ("int64", 1, (-9223372036854775808, 9223372036854775807)),
    "F8_E4M3": ("float8_e4m3fn", 2, (-448.0, 448.0, 1.0)),
    "F8_E5M2": ("float8_e5m2", 2, (-57344.0, 57344.0, 1.0)),
    "F16": ("float16", 2, (-65504.0, 65504.0, 0.001)),
    "BF16": ("bfloat16", 2, (-3.3895313892515355e+38, 3.3895313892515355e+38, 0.01)),
    "F32": ("float32", 2, (-3.4028234663852886e+38, 3.4028234663852886e+38, 1e-06)),
    "F64": ("float64", 2, (-1.7976931348623157e+308, 1.7976931348623157e+308, 1e-15)),
}

#: a header is a few MB for the largest checkpoints (safetensors itself refuses one over 100 MB)
_MAX_HEADER_BYTES = 100 * 1024 * 1024

#: huggingface_hub's repo id check (validate_repo_id): ``name`` or ``namespace/name`` of word characters, ``-``
#: and ``.``, no ``--`` or ``..``, no trailing ``.git``, at most 96 characters
_REPO_ID = re.compile(r"^(\b[\w\-.]+\b/)?\b[\w\-.]+\b$")


def _lossless(src: str, dst: str) -> bool:
    """vLLM's ``is_lossless_cast`` of two safetensors dtype names."""
    if src == dst:
        return True
    _, src_kind, src_info = _SAFETENSORS_DTYPES[src]
    _, dst_kind, dst_info = _SAFETENSORS_DTYPES[dst]
    if src_kind != dst_kind:
        return src_kind < dst_kind
    if src_kind == 1:
        return src_info[0] >= dst_info[0] and src_info[1] <= dst_info[1]
    return src_info[0] >= dst_info[0] and src_info[1] <= dst_info[1] and src_info[2] >= dst_info[2]


def common_dtype(names: Iterable[str]) -> tuple[Optional[str], Optional[str]]:
    """(the torch dtype name vLLM's ``common_broadcastable_dtype`` picks from the weights' dtype names, None), or
    (None, why kvguard cannot tell); ``("float32", None)`` when no name maps (vLLM's fall-back)."""
    names = set(names)
    unknown = sorted(n for n in names if n not in _SAFETENSORS_DTYPES)
    if unknown:
        return None, (f"whether the host's safetensors maps the weights' dtype(s) {', '.join(unknown)} (vLLM skips a "
                      f"name it does not map) is not modelled")
    if not names:
        return "float32", None
    scores = {n: sum(_lossless(other, n) for other in names) for n in names}
    best = max(scores.values())
    winners = sorted(n for n, score in scores.items() if score == best)
    if len(winners) > 1:
        # max() over a set of torch dtypes: the first in the set's iteration order, which is the dtypes' hashes'
        return None, (f"the weights' dtypes {', '.join(winners)} tie in vLLM's common_broadcastable_dtype (the "
                      f"winner is the first of a set of torch dtypes): not modelled")
    return _SAFETENSORS_DTYPES[winners[0]][0], None


def local_dtypes(directory: str) -> tuple[Optional[frozenset[str]], Optional[str]]:
    """(the dtype names in the headers of the ``*.safetensors`` files directly in ``directory``, None), or
    (None, why kvguard cannot read them as vLLM does)."""
    import glob

    found: dict[str, Any] = {}   # tensor name -> dtype: vLLM merges the headers into one mapping
    if not os.path.isdir(directory):
        return frozenset(), None   # Path.glob of a file finds nothing
    for path in sorted(glob.glob(os.path.join(glob.escape(directory), "*.safetensors"))):
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(8)
                if len(head) < 8:
                    return None, f"{path}: shorter than a safetensors header (vLLM's read fails): not modelled"
                (length,) = struct.unpack("<Q", head)
                if length > _MAX_HEADER_BYTES:
                    return None, f"{path}: a safetensors header of {length} bytes is not modelled"
                header = json.loads(fh.read(length).decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            return None, f"{path}: its safetensors header does not read ({type(exc).__name__}; vLLM fails): not " \
                         f"modelled"
        if not isinstance(header, dict):
            return None, f"{path}: a safetensors header that is no JSON object is not modelled"
        for name, info in header.items():
            if not isinstance(info, dict):
                return None, f"{path}: a safetensors header entry that is no JSON object is not modelled"
            dtype = info.get("dtype")
            if dtype is not None and dtype != "" and not isinstance(dtype, str):
                return None, f"{path}: a safetensors dtype of {dtype!r:.40} is not modelled"
            if name in found and found[name] != dtype:
                # the later file wins, in the directory's listing order
                return None, f"{name!r} is in several safetensors files with different dtypes: not modelled"
            found[name] = dtype
    return frozenset(d for d in found.values() if d), None


def _hub_refuses_repo_id(name: str) -> bool:
    """Whether huggingface_hub refuses ``name`` as a repo id before any request (vLLM then has no metadata)."""
    return (len(name) > 96 or not _REPO_ID.match(name) or "--" in name or ".." in name
            or name.endswith(".git"))


def weights_dtype(recorded: Any, model_path: Optional[str], release) -> tuple[Optional[str], Optional[str]]:
    """(the dtype ``release`` reads from the checkpoint's weights, None) or (None, why kvguard cannot tell), for a
    config naming no dtype.  ``recorded``: the Hub's dtype names of a catalog checkpoint (None: unknown);
    ``model_path``: the model as vLLM is given it."""
    if model_path and os.path.exists(model_path):
        if release.within(LOCAL_READ_SINCE):
            names, why = local_dtypes(model_path)
            if names is None:
                return None, why
            return common_dtype(names)
        if _hub_refuses_repo_id(model_path):
            return "float32", None
        return None, (f"vLLM {release.version} asks the Hugging Face Hub for the safetensors metadata of "
                      f"{model_path!r} (a local path that is also a repo id): not modelled")
    if recorded is not None:
        return common_dtype(recorded)
    return None, ("the model dtype of a checkpoint whose config.json has no dtype (vLLM reads the weights' "
                  "safetensors metadata) is not modelled")
