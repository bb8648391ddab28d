"""A config option's JSON (``--compilation-config '{…}'``, ``-cc.pass_config.x=True``, ``--attention-config.backend
X``) held against the field schema of the release's config class.

vLLM's ``EngineArgs.add_cli_args`` (``vllm/engine/arg_utils.py``, 0.10.2–0.33.0) validates such a value into its config
dataclass while parsing: a key the class lacks, at any depth, or a value its field refuses, is an argparse error whose
message is pydantic's (or, for some enum fields, a bare ``KeyError``).  Pydantic's message carries a link naming the
host's pydantic version (the host fact ``pydantic``).  kvguard passes a value whose every key is a field and every
checked value fits its field; one whose only faults are keys the class lacks is refused with pydantic's message
(:func:`unknown_keys` lists them in pydantic's order; kvguard.launch.pydantic_text renders it); any other value it
cannot vouch for is declined (Undecidable).

The schemas are measured per release by ``tests/upstream/argv_runner.py --dump-options`` (``f`` in
``kvguard/data/serve_options.json``), by validating probe values with the release's own parse function.  Kinds:

- a mapping: a nested config class (the key ``"*"`` in a mapping: the class lets unknown keys pass; the key ``"&"``:
  the pairs of its fields the class checks together while parsing, found by giving two fields values each accepted
  alone -- 0.20.0's ``mode`` 3 with a ``backend`` other than inductor or eager, ``cudagraph_mm_encoder`` with a
  negative ``encoder_cudagraph_max_vision_items_per_batch`` -- a value giving both fields of such a pair is declined
  whatever the two values);
- ``"bool"``, ``"int"``, ``"float"``, ``"str"``, then ``"?"`` when None is accepted, then the field's declared
  bounds (``"int>=0"``, ``"float?>0<=1"``): checked by the kind's rules below, each probed in the release;
- a list: the enum or literal values the release accepts (names in either case, member values), None when nullable;
  a ``Literal[...] | str`` field (0.33.0's ``indexer_kv_dtype``, WeightTransferConfig's ``backend``), which takes any
  word while parsing and checks it later, is listed with its literal's words alone, so another word is declined;
- ``"list[E]"``, then ``"?"`` when None is accepted: a list field whose items are of the plain kind ``E`` with its
  bounds (``"list[int]"``, ``"list[int>0]"``, ``"list[str]?"``), measured by probing the item rules inside a list
  (``["3"]`` is an int item there too, as pydantic's lax mode reads it) and the list's own: empty, unsorted and
  repeated lists accepted, a bare item or an object refused.  ``-cc '{"cudagraph_capture_sizes": "x"}'`` is thus
  declined, ``[8, 1, "16"]`` passes (0.10.2-0.33.0 check neither order nor sign while parsing);
- ``"list[op]"``: CompilationConfig.custom_ops where the class checks its syntax after validation (0.11.0 on; 0.10.2's
  is a ``"list[str]"``): items
  ``"all"``, ``"none"``, ``"+OP"`` or ``"-OP"``, at most one of ``"all"`` and ``"none"``; kvguard also declines an
  OP both enabled and disabled (0.33.0 refuses it, older releases take it) and ``-rotary_embedding`` (which some
  pass_config fusions contradict);
- ``"dict"``, ``"dict?"``: a plain object field (``inductor_compile_config``) taking any keys and values;
- ``"any"``: a field whose kind the probes did not establish (unions such as ``list[int | str]``, ``dict[str, str]``
  fields the class resolves, sets, paths, fields the class does not let be set): kvguard vouches for no value of it,
  so a launch giving one is declined like any other value it cannot vouch for.

The same kinds bound a plain option's value (``b`` in the option table, measured from the declared constraints of
the config field the option's dest names: ``--stream-interval`` ``"int>=1"``, ``--optimization-level`` ``["0", "1",
"2", "3"]``): :func:`option_value_problem` holds the value argparse made against it, and kvguard.launch.argv declines
a value outside (pydantic's ValidationError names the host's pydantic version).

What stays unchecked: checks across fields the pair probes do not reach (three fields, a field and a nested class's
field -- but ``-rotary_embedding``, below --, values outside the probes), and the engine config's checks after parsing
(``cudagraph_capture_sizes`` against ``max_cudagraph_capture_size``, a negative capture size).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's own import costs a cold check (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["config_value_problem", "option_value_problem", "unknown_keys"]

#: the strings a bool field reads as a bool (pydantic's lax mode, in any case), each probed in every release
_BOOL_WORDS = frozenset({"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"})
_INT_TEXT = re.compile(r"-?[0-9]+\Z")
#: a plain kind: the base, "?" when None is accepted, then the field's bounds ("int>=0", "float?>0<=1")
_PLAIN_KIND = re.compile(r"(bool|int|float|str)(\??)((?:[<>]=?-?[0-9.]+)*)\Z")
_BOUND = re.compile(r"([<>]=?)(-?[0-9.]+)")
#: a list kind: the element's plain kind (or "op"), then "?" when the field accepts None
_LIST_KIND = re.compile(r"list\[(.+)\](\??)\Z")
#: a schema's own keys: "*" (the class lets unknown keys pass), "&" (the pairs of fields it checks together)
_SPECIAL = frozenset({"*", "&"})


def config_value_problem(data: dict[str, Any], schema: dict[str, Any],
                         path: tuple[str, ...] = ()) -> Optional[tuple[str, str]]:
    """The first key of ``data`` its class lacks (``("key", dotted path)``), or the first value kvguard cannot vouch
    for (``("value", description)``); None when every key is a field and every checked value fits its field."""
    for key, value in data.items():
        where = (*path, key)
        if key not in schema or key in _SPECIAL:
            if "*" in schema and key != "*":       # a class that lets unknown keys pass
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
    for first, second in schema.get("&", ()):
        if first in data and second in data:
            return ("value", f"{'.'.join((*path, first))} with {second} (the release checks the two fields together)")
    return None


def unknown_keys(data: dict[str, Any], schema: dict[str, Any],
                 path: tuple[str, ...] = ()) -> Optional[list[tuple[tuple[str, ...], Any]]]:
    """The keys of ``data`` its class lacks, as (location, value) in the order pydantic reports them, when those are
    all the release refuses: every other key a field, every other value one kvguard vouches for.  None when kvguard
    cannot tell what else pydantic reports (a value it does not vouch for, two fields checked together, nested
    errors under two fields of one class, whose order is the class's field order).

    pydantic validates a class's fields first (a nested class's errors under its field), then names each unexpected
    key in the input's order.  A class none of whose fields the release's probes reached (every kind "any", at any
    depth: a field whose validator reads the object itself, as 0.24.0's quantization specs do, raising TypeError
    on one) is not followed."""
    if not _probed(schema):
        return None
    nested: list[tuple[tuple[str, ...], Any]] = []
    extra: list[tuple[tuple[str, ...], Any]] = []
    erring_fields = 0
    for key, value in data.items():
        where = (*path, key)
        if key not in schema or key in _SPECIAL:
            if "*" in schema and key != "*":
                continue                        # a class that lets unknown keys pass
            extra.append((where, value))
            continue
        kind = schema[key]
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                return None
            inner = unknown_keys(value, kind, where)
            if inner is None:
                return None
            if inner:
                erring_fields += 1
                nested += inner
        elif not _fits(kind, value):
            return None
    if erring_fields > 1 or any(first in data and second in data for first, second in schema.get("&", ())):
        return None
    return nested + extra


def _probed(schema: dict[str, Any]) -> bool:
    """Whether some field of the class, or of a class it nests, has a kind the probes established."""
    return any(_probed(kind) if isinstance(kind, dict) else kind != "any"
               for key, kind in schema.items() if key not in _SPECIAL)


def option_value_problem(kind: Any, value: Any) -> Optional[str]:
    """A plain option's value (as argparse made it: an int, float, str or optional_type's None) held against the
    declared constraints of the config field it is validated into (``b`` in ``kvguard/data/serve_options.json``:
    ``"int>=1"``, ``"float?>0<=1"``, or the list of the values the field accepts): None when it fits, else what the
    field expects."""
    if _fits(kind, value):
        return None
    return _expected(kind)


def _fits(kind: Any, value: Any) -> bool:
    if isinstance(kind, list):
        return any(type(value) is type(member) and value == member for member in kind) or (
            value is None and None in kind)
    if not isinstance(kind, str) or kind == "any":     # a field kvguard does not check: not vouched for
        return False
    if kind in ("dict", "dict?"):
        return isinstance(value, dict) or (value is None and kind == "dict?")
    listed = _LIST_KIND.match(kind)
    if listed is not None:
        element, nullable = listed.groups()
        if value is None:
            return bool(nullable)
        if not isinstance(value, list):
            return False
        if element == "op":
            return _fits_ops(value)
        return _PLAIN_KIND.match(element) is not None and all(_fits(element, item) for item in value)
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


def _fits_ops(ops: list[Any]) -> bool:
    """A custom-ops list as every release that checks its syntax takes it: each item "all", "none", "+NAME" or
    "-NAME", at most one of "all" and "none", and no NAME both enabled and disabled (0.33.0 refuses that).
    ``-rotary_embedding`` is not vouched for: the class adds ``+rotary_embedding`` when some pass_config fusions
    are on, and 0.33.0 then refuses the pair -- a check across fields kvguard does not follow."""
    if not all(isinstance(op, str) and (op in ("all", "none") or (len(op) > 1 and op[0] in "+-")) for op in ops):
        return False
    if "-rotary_embedding" in ops:
        return False
    if sum(op in ("all", "none") for op in ops) > 1:
        return False
    enabled = {op[1:] for op in ops if op[0] == "+"}
    return not enabled & {op[1:] for op in ops if op[0] == "-"}


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
    if kind == "any":
        return "a field kvguard does not check"
    if kind in ("dict", "dict?"):
        return f"the field is an object{' or null' if kind == 'dict?' else ''}"
    listed = _LIST_KIND.match(kind)
    if listed is not None:
        element, nullable = listed.groups()
        if element == "op":
            items = ("'all', 'none', '+OP' or '-OP' items, at most one of 'all' and 'none', no OP both enabled and "
                     "disabled")
        else:
            plain = _PLAIN_KIND.match(element)
            if plain is None:
                return f"a field of kind {kind!r}"
            base, maybe, bounds = plain.groups()
            ranges = "".join(f" {symbol} {limit}" for symbol, limit in _BOUND.findall(bounds))
            items = f"{base}{ranges} items{' or nulls' if maybe else ''}"
        return f"the field is a list of {items}{' or null' if nullable else ''}"
    plain = _PLAIN_KIND.match(kind)
    if plain is None:
        return f"a field of kind {kind!r}"
    base, nullable, bounds = plain.groups()
    ranges = "".join(f" {symbol} {limit}" for symbol, limit in _BOUND.findall(bounds))
    return f"the field is {'an' if base == 'int' else 'a'} {base}{ranges}{' or null' if nullable else ''}"
