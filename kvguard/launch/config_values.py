"""A config option's JSON (``--compilation-config '{…}'``, ``-cc.pass_config.x=True``, ``--attention-config.backend
X``) held against the field schema of the release's config class.

vLLM's ``EngineArgs.add_cli_args`` (``vllm/engine/arg_utils.py``, 0.10.2–0.33.0) validates such a value into its config
dataclass while parsing: a key the class lacks, at any depth, or a value its field refuses, is an argparse error whose
message is pydantic's (or, for some enum fields, a bare ``KeyError``).  Pydantic's message carries a link naming the
host's pydantic version, so kvguard does not quote it: it declines (Undecidable) a value it cannot vouch for, and passes
one whose every key is a field and every checked value fits its field.

The schemas are measured per release by ``tests/upstream/argv_runner.py --dump-options`` (``f`` in
``kvguard/data/serve_options.json``), by validating probe values with the release's own parse function.  Kinds:

- a mapping: a nested config class (the key ``"*"`` in a mapping: the class lets unknown keys pass);
- ``"bool"``, ``"int"``, ``"float"``, ``"str"``, then ``"?"`` when None is accepted, then the field's declared
  bounds (``"int>=0"``, ``"float?>0<=1"``): checked by the kind's rules below, each probed in the release;
- a list: the enum or literal values the release accepts (names in either case, member values), None when nullable;
- ``"any"``: a field kvguard does not check (containers, unions, fields whose probes the host refused).

What stays unchecked: ``"any"`` fields, and constraints a class checks across fields or on ranges after validation.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's own import costs a cold check (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["config_value_problem"]

#: the strings a bool field reads as a bool (pydantic's lax mode, in any case), each probed in every release
_BOOL_WORDS = frozenset({"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"})
_INT_TEXT = re.compile(r"-?[0-9]+\Z")
#: a plain kind: the base, "?" when None is accepted, then the field's bounds ("int>=0", "float?>0<=1")
_PLAIN_KIND = re.compile(r"(bool|int|float|str)(\??)((?:[<>]=?-?[0-9.]+)*)\Z")
_BOUND = re.compile(r"([<>]=?)(-?[0-9.]+)")


def config_value_problem(data: dict[str, Any], schema: dict[str, Any],
                         path: tuple[str, ...] = ()) -> Optional[tuple[str, str]]:
    """The first key of ``data`` its class lacks (``("key", dotted path)``), or the first value kvguard cannot vouch
    for (``("value", description)``); None when every key is a field and every checked value fits its field."""
    for key, value in data.items():
        where = (*path, key)
        if key not in schema:
            if "*" in schema:       # a class that lets unknown keys pass
                continue
            return ("key", ".".join(where))
        kind = schema[key]
        if isinstance(kind, dict):
            if isinstance(value, dict):
                found = config_value_problem(value, kind, where)
                if found is not None:
                    return found
                continue
            return ("value", f"{'.'.join(where)}={value!r} where the release expects an object")
        if not _fits(kind, value):
            return ("value", f"{'.'.join(where)}={value!r} ({_expected(kind)})")
    return None


def _fits(kind: Any, value: Any) -> bool:
    if isinstance(kind, list):
        return any(type(value) is type(member) and value == member for member in kind) or (
            value is None and None in kind)
    if kind == "any":
        return True
    plain = _PLAIN_KIND.match(kind)
    if plain is None:               # a kind this kvguard does not know: not vouched for
        return False
    base, nullable, bounds = plain.groups()
    if value is None:
        return bool(nullable)
    if base == "bool":
        return (isinstance(value, bool) or (type(value) is int and value in (0, 1))
                or (isinstance(value, str) and value.lower() in _BOOL_WORDS))
    if base == "str":
        return isinstance(value, str)
    if base == "int" and isinstance(value, str) and _INT_TEXT.match(value):
        number: float = int(value)
    elif type(value) is int or (base == "float" and type(value) is float):
        number = value
    else:
        return False
    return all(_within(number, symbol, float(limit)) for symbol, limit in _BOUND.findall(bounds))


def _within(number: float, symbol: str, limit: float) -> bool:
    if symbol == ">=":
        return number >= limit
    if symbol == ">":
        return number > limit
    if symbol == "<=":
        return number <= limit
    return number < limit


def _expected(kind: Any) -> str:
    if isinstance(kind, list):
        shown = ", ".join(repr(member) for member in kind[:12])
        more = f", … ({len(kind)} in all)" if len(kind) > 12 else ""
        return f"the release accepts {shown}{more}"
    plain = _PLAIN_KIND.match(kind)
    if plain is None:
        return f"a field of kind {kind!r}"
    base, nullable, bounds = plain.groups()
    ranges = "".join(f" {symbol} {limit}" for symbol, limit in _BOUND.findall(bounds))
    return f"the field is {'an' if base == 'int' else 'a'} {base}{ranges}{' or null' if nullable else ''}"
