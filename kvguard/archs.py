"""vLLM's model registry, as data: which architectures a release knows and their flags.

``kvguard/data/archs.json`` is generated from each release's
vllm/model_executor/models/registry.py and the model classes' interfaces by
tools/extract_registry.py.  Flags are lists of inclusive release ranges.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from .versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["arch_flag", "registered_arch", "registry_loaded", "registry_refusal", "supported_archs",
           "transformers_has"]


def _read(name: str) -> str:
    """A file of kvguard/data (read with plain file I/O: importlib.resources costs ~10 ms to import)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", name), encoding="utf-8") as fh:
        return fh.read()


#: the line that opens the architectures in archs.json and the one that closes them: the generator
#: writes one architecture per line between them (tools/extract_registry.py)
_ARCHS_OPEN = '\n "archs": {\n'
_ARCHS_CLOSE = "\n },\n"


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, Any], str]:
    """archs.json less its architectures, and the architectures' lines ('\\n  "Name": {...},' each), which
    ``_entry`` decodes one at a time.

    A check asks for one or two of the ~500 architectures: decoding them all was about 4% of a cold
    check.  A file not laid out as the generator writes it is decoded whole."""
    try:
        text = _read("archs.json")
    except (FileNotFoundError, OSError):
        return {}, ""
    start = text.find(_ARCHS_OPEN)
    end = text.find(_ARCHS_CLOSE, start)
    if start < 0 or end < 0:
        data = json.loads(text)
        entries = data.pop("archs", {})
        return data, "".join(f"\n  {json.dumps(name)}: {json.dumps(entry)}," for name, entry in entries.items())
    return (json.loads(text[:start] + "\n" + text[end + len(_ARCHS_CLOSE):]),
            text[start + len(_ARCHS_OPEN) - 1:end])


def _data() -> dict[str, Any]:
    """archs.json less its architectures (``_entry`` reads those)."""
    return _registry()[0]


@lru_cache(maxsize=None)
def _entry(name: str) -> Optional[dict[str, Any]]:
    """The registry entry of one architecture, None if the registry never named it."""
    if not name.isidentifier():  # registry names are class names; nothing else can be one of them
        return None
    lines = _registry()[1]
    start = lines.find(f'\n  "{name}": ')
    if start < 0:
        return None
    end = lines.find("\n", start + 1)
    return json.loads(lines[start + len(name) + 7:end if end >= 0 else len(lines)].rstrip(","))


def registry_loaded() -> bool:
    return bool(_registry()[1])


@lru_cache(maxsize=1)
def _exports() -> dict[str, Any]:
    """kvguard/data/transformers_exports.json (tools/transformers_exports.py)."""
    try:
        text = _read("transformers_exports.json")
    except (FileNotFoundError, OSError):
        return {}
    return json.loads(text)


@lru_cache(maxsize=None)
def _transformers_classes(line: str) -> Optional[frozenset[str]]:
    """The class-like public names of transformers ``line``; None if not recorded."""
    data = _exports()
    absent = data.get("absent", {}).get(line)
    if absent is None:
        return None
    names = data["names"]
    return frozenset(names) - {names[i] for i in absent}


def transformers_has(name: str, release: Release) -> Optional[bool]:
    """Whether ``getattr(transformers, name)`` finds something in the transformers of ``release``; None when
    not recorded (a name that does not start with a capital letter: the table holds class-like names only)."""
    classes = _transformers_classes(release.transformers)
    if classes is None or not name[:1].isupper():
        return None
    return name in classes


def _in_ranges(ranges, release: Release) -> bool:
    return any(release.within(first, last) for first, last in ranges or ())


def _registered(name: str, release: Release) -> bool:
    entry = _entry(name)
    return _in_ranges(entry.get("registered"), release) if entry else False


def _suffix_table(release: Release) -> list:
    for block in _data().get("suffixes", ()):
        if release.within(block["since"], block["until"]):
            return block["table"]
    return []


def normalize_arch(arch: str, release: Release) -> Optional[str]:
    """``_ModelRegistry._normalize_arch`` for the default runner/convert: the registered name vLLM uses.

    A registered name is itself; otherwise the first suffix of the release's
    ``_SUFFIX_TO_DEFAULTS`` table that ends the name is replaced by each table
    suffix in order, and the first registered result is used
    (``Qwen2_5_VLModel`` -> ``Qwen2_5_VLForConditionalGeneration``).
    """
    if _registered(arch, release):
        return arch
    table = _suffix_table(release)
    match = next((row for row in table if arch.endswith(row[0])), None)
    if match is None:
        return None
    for repl, _runner, _convert in table:
        base = arch.replace(match[0], repl)
        if _registered(base, release):
            return base
    return None


def suffix_runner(arch: str, release: Release) -> Optional[str]:
    """``try_match_architecture_defaults(arch)``'s runner type ("generate" / "pooling"), or None."""
    for suffix, runner, _convert in _suffix_table(release):
        if arch.endswith(suffix):
            return runner
    return None


def registered_arch(architectures, release: Release) -> Optional[str]:
    """The registry entry ``release`` resolves ``architectures`` to (first hit wins), or None."""
    for arch in architectures:
        if not isinstance(arch, str):
            continue
        found = normalize_arch(arch, release)
        if found is not None:
            return found
    return None


def arch_flag(architectures, flag: str, release: Release) -> Optional[bool]:
    """``flag`` (e.g. ``supports_pp``) of the architecture vLLM resolves, None if unknown."""
    arch = registered_arch(architectures, release)
    if arch is None:
        return None
    entry = _entry(arch)
    return _in_ranges(entry.get(flag) if entry else None, release)


#: ``_ModelRegistry._raise_for_unsupported`` (vllm/model_executor/models/registry.py): a retired
#: architecture (``_PREVIOUSLY_SUPPORTED_MODELS``, every release), one moved to a plugin
#: (``_OOT_SUPPORTED_MODELS``, 0.19.0+), and any other (every release), with the registry's names
#: in its order (``get_supported_archs()``, a ``dict_keys``)
RETIRED_TEMPLATE = ("Model architecture {arch} was supported in vLLM until v{version}, and is not supported "
                    "anymore. Please use an older version of vLLM if you want to use this model architecture.")
OOT_TEMPLATE = ("Model architecture {arch} is not supported in-tree anymore. Please install the plugin at "
                "{url} if you want to use this model architecture.")
UNSUPPORTED_TEMPLATE = ("Model architectures {architectures} are not supported for now. "
                        "Supported architectures: dict_keys({supported})")


@lru_cache(maxsize=1)
def _orders() -> dict[str, Any]:
    """kvguard/data/registry_order.json (tools/extract_registry.py): each release's registry order."""
    try:
        return json.loads(_read("registry_order.json"))
    except (FileNotFoundError, OSError):
        return {}


def supported_archs(release: Release) -> Optional[list[str]]:
    """The architectures ``release``'s ``ModelRegistry`` holds, in its order; None if not recorded."""
    data = _orders()
    for first, last, order in data.get("orders", ()):
        if release.within(first, last):
            names = data["names"]
            return [names[i] for i in order]
    return None


def _ranged_value(table: dict, arch: str, release: Release) -> Optional[str]:
    for first, last, value in table.get(arch, ()):
        if release.within(first, last):
            return value
    return None


def registry_refusal(architectures, release: Release, *, auto_map: bool) -> Optional[str]:
    """The ValueError text vLLM's registry raises for architectures it does not hold, or None.

    Follows ``inspect_model_cls`` when none of ``architectures`` is registered: with the
    default ``--model-impl auto`` vLLM first tries the Transformers backend for the first
    architecture (``auto_map`` in the config, a transformers class of that name, or a name the
    table of transformers classes cannot answer for: then this returns None, kvguard does not
    model that backend); then ``_raise_for_unsupported`` refuses the first retired or
    plugin-only architecture, else all of them ("not supported for now", with the registry's
    names).  None also when an architecture is registered, or when the release's registry
    order is not recorded.
    """
    names = [a for a in architectures or () if isinstance(a, str)]
    if not names or len(names) != len(architectures) or registered_arch(names, release) is not None:
        return None
    if auto_map or transformers_has(names[0], release) is not False:
        return None
    data = _data()
    for arch in names:
        version = _ranged_value(data.get("previously_supported", {}), arch, release)
        if version is not None:
            return RETIRED_TEMPLATE.format(arch=arch, version=version)
        url = _ranged_value(data.get("oot_supported", {}), arch, release)
        if url is not None:
            return OOT_TEMPLATE.format(arch=arch, url=url)
    supported = supported_archs(release)
    if supported is None:
        return None
    return UNSUPPORTED_TEMPLATE.format(architectures=repr(names), supported=repr(supported))
