"""Where a launch's model config comes from: explicit file, local directory,
the Hugging Face cache (offline, read-only), the Hugging Face Hub (only when
asked: ``allow_download``, with the optional ``huggingface_hub``), or the
built-in catalog."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from .. import catalog
from ..errors import InputError, ModelNotFound, Undecidable
from ..record import Record
from .load import HF_QUANT_CONFIG, load_checkpoint_config, load_raw_config

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["ResolvedModel", "hf_cache_dir", "resolve_config", "resolve_model"]


class ResolvedModel(Record):
    name: str
    config: dict[str, Any]
    source: str     # "file", "directory", "hf-cache", "hf-hub", "catalog", "mapping"
    location: str   # path, or the catalog entry's source URL

    @property
    def model_path(self) -> Optional[str]:
        """The model as ``vllm serve MODEL`` is given it (a few upstream messages quote it): the
        directory of a local config.json, the id of a cached or catalogued model, None for a mapping."""
        if self.source in ("file", "directory"):
            return os.path.dirname(self.location)
        return None if self.source == "mapping" else self.name


def hf_cache_dir(env: Mapping[str, str]) -> str:
    """The hub cache directory as huggingface_hub computes it (HF_HUB_CACHE, HF_HOME, XDG)."""
    if env.get("HF_HUB_CACHE"):
        return env["HF_HUB_CACHE"]
    if env.get("HUGGINGFACE_HUB_CACHE"):
        return env["HUGGINGFACE_HUB_CACHE"]
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return os.path.join(home, "hub")


def _from_hf_cache(repo: str, revision: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    if repo.count("/") != 1:
        return None
    base = os.path.join(hf_cache_dir(env), "models--" + repo.replace("/", "--"))
    if not os.path.isdir(base):
        return None
    rev = revision or "main"
    commit = rev
    ref = os.path.join(base, "refs", rev)
    if os.path.isfile(ref):
        try:
            with open(ref, "rb") as fh:
                commit = fh.read(4096).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"unreadable Hugging Face cache ref: {exc}", source=ref) from None
    path = os.path.join(base, "snapshots", commit, "config.json")
    return path if os.path.isfile(path) else None


def _download(repo: str, revision: Optional[str]) -> str:
    """config.json of ``repo`` from the Hugging Face Hub (into the usual cache), via huggingface_hub."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise InputError("--allow-download needs huggingface_hub: pip install 'kvguard[hub]'",
                         source=repo) from None
    try:
        path = hf_hub_download(repo_id=repo, filename="config.json", revision=revision)
    except Exception as exc:  # noqa: BLE001 - network, 404, gated repo, bad id: all "cannot fetch"
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise Undecidable(f"could not download config.json of {repo!r} from the Hugging Face Hub: {reason}") \
            from None
    if load_raw_config(path)[0].get("quantization_config") is None:
        # vLLM then reads the repository's hf_quant_config.json, if it has one (load_checkpoint_config finds it
        # beside config.json in the snapshot)
        try:
            hf_hub_download(repo_id=repo, filename=HF_QUANT_CONFIG, revision=revision)
        except Exception as exc:  # noqa: BLE001
            if type(exc).__name__ not in ("EntryNotFoundError", "RemoteEntryNotFoundError"):
                reason = " ".join(str(exc).split())[:200] or type(exc).__name__
                raise Undecidable(f"could not download {HF_QUANT_CONFIG} of {repo!r} from the Hugging Face Hub "
                                  f"(vLLM reads it when config.json has no quantization_config): {reason}") from None
    return path


def resolve_model(model: Optional[str], *, model_config: Optional[str] = None,
                  revision: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
                  allow_download: bool = False) -> ResolvedModel:
    """Find the config.json for ``model``: explicit file, local path, Hugging Face cache, the
    Hub (only with ``allow_download``), the built-in catalog.  No network unless asked."""
    env = os.environ if env is None else env
    if model_config:
        raw, label = load_checkpoint_config(model_config)
        return ResolvedModel(model or label, raw, "file" if os.path.isfile(model_config) else "directory", label)
    if not model:
        raise InputError("no model given (expected `vllm serve MODEL …` or --model-config)", source="<argv>")
    if os.path.exists(model):
        raw, label = load_checkpoint_config(model)
        return ResolvedModel(model, raw, "directory" if os.path.isdir(model) else "file", label)
    cached = _from_hf_cache(model, revision, env)
    if cached:
        raw, label = load_checkpoint_config(cached)
        return ResolvedModel(model, raw, "hf-cache", label)
    if allow_download and model.count("/") == 1:
        path = _download(model, revision)
        raw, label = load_checkpoint_config(path)
        return ResolvedModel(model, raw, "hf-hub", label)
    entry = catalog.lookup(model)
    if entry is not None:
        return ResolvedModel(entry.id, entry.checkpoint_config(), "catalog", entry.source.get("url", ""))
    raise ModelNotFound(f"cannot find a config.json for {model!r}: not a local path, not in the Hugging Face "
                        f"cache ({hf_cache_dir(env)}), not in kvguard's catalog; pass --model-config PATH", model=model)


#: a Hugging Face model id (``org/name``, each part at most 96 characters as the Hub allows) or a
#: bare name: a string of this shape that names no local path is looked up as the command line
#: looks up ``vllm serve MODEL``; any other string is a path (``/abs/config.json``, ``./dir``), and
#: a missing one is an InputError
_MODEL_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?$")


def resolve_config(config: Any, *, env: Optional[Mapping[str, str]] = None) -> ResolvedModel:
    """A model config as the library takes it: a parsed mapping, a path to config.json or its
    directory, or a model id found as :func:`resolve_model` finds ``vllm serve MODEL`` (a local
    path, the Hugging Face cache, the built-in catalog; never the network) — so
    ``kvguard.check("Qwen/Qwen3-32B", …)`` reads the config ``kvguard audit Qwen/Qwen3-32B`` and
    ``kvguard check -- vllm serve Qwen/Qwen3-32B …`` read."""
    if isinstance(config, Mapping):
        raw, label = load_raw_config(config)
        return ResolvedModel(str(raw.get("_name_or_path") or raw.get("model_type") or label), raw, "mapping", label)
    if isinstance(config, str) and _MODEL_ID.match(config) and not config.endswith(".json") \
            and not os.path.exists(config):
        return resolve_model(config, env=env)
    raw, label = load_checkpoint_config(config)
    path = os.fspath(config)
    return ResolvedModel(path, raw, "directory" if os.path.isdir(path) else "file", label)
