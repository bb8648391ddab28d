"""An on-disk cache of derived model facts, for the command line's repeated launches.

Deriving a model's facts runs the release's transformers/vLLM config code in
kvguard's interpreter (tens of milliseconds); a launch script that calls
``kvguard check`` on every start asks the same question each time.  The
command line therefore keeps each answer — the :class:`~kvguard.ModelFacts`,
or the :class:`~kvguard.facts.Crash` vLLM hits building its ModelConfig — in a
small JSON file keyed by everything the answer depends on: the config's
content, the release, the environment variables vLLM would see,
``--trust-remote-code``, the model path (it appears in messages) and a
fingerprint of kvguard's own code and data (version, sizes and modification
times of the files that derive facts).

Where: ``$KVGUARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/kvguard``, else
``~/.cache/kvguard``.  ``KVGUARD_NO_CACHE=1`` or ``--no-cache`` turns it off.
The cache is an optimisation only: an unreadable, corrupt or foreign entry is
ignored and the facts are derived again, and a directory that cannot be
written is not an error.  Entries hold plain JSON data (no code, no pickle).
The library API does not use it unless :func:`enable` is called.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any, Callable, Mapping, Optional

__all__ = ["cache_dir", "derive_cached", "enable", "enabled_dir"]

#: format of an entry; part of the key
_FORMAT = 1
#: an entry larger than this is not one kvguard wrote
_MAX_ENTRY = 1 << 20

_state: dict[str, Optional[str]] = {"dir": None}


def cache_dir(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The cache directory the environment asks for (None when ``KVGUARD_NO_CACHE`` is set)."""
    env = os.environ if environ is None else environ
    if env.get("KVGUARD_NO_CACHE", "") not in ("", "0"):
        return None
    if env.get("KVGUARD_CACHE_DIR"):
        return env["KVGUARD_CACHE_DIR"]
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kvguard")


def enable(directory: Optional[str]) -> None:
    """Use ``directory`` for facts derived from now on in this process (None: no cache)."""
    _state["dir"] = directory


def enabled_dir() -> Optional[str]:
    return _state["dir"]


_FINGERPRINT: list[str] = []


def _fingerprint() -> str:
    """kvguard's version and the size + mtime of every file the facts depend on."""
    if not _FINGERPRINT:
        from .__about__ import __version__

        root = os.path.dirname(os.path.abspath(__file__))
        parts = [__version__, str(_FORMAT)]
        for sub in ("", "launch", "facts", "data", "data/facts", "catalog", "rules"):
            folder = os.path.join(root, sub)
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                if name.endswith((".py", ".json", ".bodies")):
                    try:
                        st = os.stat(os.path.join(folder, name))
                    except OSError:
                        continue
                    parts.append(f"{sub}/{name}:{st.st_size}:{st.st_mtime_ns}")
        _FINGERPRINT.append(hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20])
    return _FINGERPRINT[0]


class _NotCacheable(Exception):
    pass


def _enc(v: Any) -> Any:
    """Typed JSON: scalars as they are, containers and kvguard's records tagged."""
    from .facts import Crash
    from .verdict import ErrorEntry

    t = type(v)
    if v is None or t is bool or t is int or t is str:
        return v
    if t is float:
        if not math.isfinite(v):
            raise _NotCacheable
        return v
    if t is tuple:
        return {"t": [_enc(x) for x in v]}
    if t is list:
        return {"l": [_enc(x) for x in v]}
    if t is dict:
        if not all(type(k) is str for k in v):
            raise _NotCacheable
        return {"d": {k: _enc(x) for k, x in v.items()}}
    if t is Crash:
        return {"crash": [v.exc_type, v.message, v.wrapped_by, _enc(v.errors)]}
    if t is ErrorEntry:
        return {"err": [v.type, _enc(v.loc), v.msg, _enc(v.input), _enc(v.ctx)]}
    raise _NotCacheable


def _dec(v: Any) -> Any:
    from .facts import Crash
    from .verdict import ErrorEntry

    if not isinstance(v, dict):
        if isinstance(v, list):
            raise ValueError("untagged list")
        return v
    if len(v) != 1:
        raise ValueError("bad tag")
    (tag, x), = v.items()
    if tag == "t":
        return tuple(_dec(i) for i in x)
    if tag == "l":
        return [_dec(i) for i in x]
    if tag == "d":
        return {k: _dec(i) for k, i in x.items()}
    if tag == "crash":
        exc_type, message, wrapped_by, errors = x
        return Crash(exc_type, message, wrapped_by, _dec(errors))
    if tag == "err":
        typ, loc, msg, inp, ctx = x
        return ErrorEntry(typ, _dec(loc), msg, _dec(inp), _dec(ctx))
    raise ValueError(f"unknown tag {tag!r}")


def encode(result: Any) -> dict:
    """A ModelFacts or Crash as typed JSON (raises _NotCacheable for values JSON cannot hold exactly)."""
    from dataclasses import fields

    from .facts import Crash, ModelFacts

    if type(result) is Crash:
        return {"crash": _enc(result)}
    if type(result) is ModelFacts:
        return {"facts": {f.name: _enc(getattr(result, f.name)) for f in fields(ModelFacts)}}
    raise _NotCacheable


def decode(entry: Any) -> Any:
    from dataclasses import fields

    from .facts import ModelFacts

    if not isinstance(entry, dict) or len(entry) != 1:
        raise ValueError("not an entry")
    if "crash" in entry:
        crash = _dec(entry["crash"])
        if type(crash).__name__ != "Crash":
            raise ValueError("not a crash")
        return crash
    data = entry["facts"]
    names = [f.name for f in fields(ModelFacts)]
    if not isinstance(data, dict) or sorted(data) != sorted(names):
        raise ValueError("fields differ")
    return ModelFacts(**{name: _dec(data[name]) for name in names})


def _key(raw: Mapping[str, Any], release_key: str, env: Mapping[str, str], trust_remote_code: bool,
         model_path: Optional[str]) -> Optional[str]:
    try:
        text = json.dumps([_fingerprint(), release_key, raw, sorted(env.items()), bool(trust_remote_code),
                           model_path], sort_keys=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):  # not JSON (or nested too deeply): not cached
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def derive_cached(derive: Callable[..., Any], raw: Mapping[str, Any], release: Any, env: Mapping[str, str], *,
                  trust_remote_code: bool = False, model_path: Optional[str] = None) -> Any:
    """``derive(raw, release, env, ...)``, answered from the cache when the same question was asked."""
    directory = _state["dir"]
    key = _key(raw, release.key, env, trust_remote_code, model_path) if directory else None
    if key is None:
        return derive(raw, release, env, trust_remote_code=trust_remote_code, model_path=model_path)
    path = os.path.join(directory, key[:2], key + ".json")
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_ENTRY + 1)
        if len(data) <= _MAX_ENTRY:
            return decode(json.loads(data))
    except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError, RecursionError):
        pass
    result = derive(raw, release, env, trust_remote_code=trust_remote_code, model_path=model_path)
    try:
        text = json.dumps(encode(result), allow_nan=False, separators=(",", ":"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old entry or the new one
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (_NotCacheable, OSError, ValueError, TypeError, RecursionError):
        pass
    return result
