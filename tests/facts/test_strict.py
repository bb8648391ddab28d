"""The strict-dataclass type checks of transformers 5 configs (huggingface_hub's type validator), as kvguard
models them: the container's TypeError chained to the item's.  Expected chains are huggingface_hub's own, recorded
in the transformers 5.24.0 oracle environment."""

from __future__ import annotations

import pytest

from kvguard.facts.strict import parse_type, type_check

CASES = [
    ("list[int]", [1, "a"], ["Invalid item at index 1 in list 'f'", "Field 'f[1]' expected int, got str (value: 'a')"]),
    ("dict[str, int]", {"a": "x"},
     ["Invalid key or value in dict 'f'", "Field 'f['a']' expected int, got str (value: 'x')"]),
    ("tuple[int, ...]", (1, "a"),
     ["Invalid item at index 1 in tuple 'f'", "Field 'f[1]' expected int, got str (value: 'a')"]),
    ("tuple[int, str]", (1, 2), ["Invalid item at index 1 in tuple 'f'", "Field 'f[1]' expected str, got int (value: 2)"]),
    ("tuple[int, str]", (1,), ["Field 'f' expected a tuple of length 2, got 1"]),
    ("set[int]", {"a"}, ["Invalid item in set 'f'", "Field 'f item' expected int, got str (value: 'a')"]),
    ("list[list[int]]", [[1], [2, "x"]],
     ["Invalid item at index 1 in list 'f'", "Invalid item at index 1 in list 'f[1]'",
      "Field 'f[1][1]' expected int, got str (value: 'x')"]),
    ("dict[str, list[int]]", {"a": 1}, ["Invalid key or value in dict 'f'", "Field 'f['a']' expected a list, got int"]),
    ("tuple[int, tuple[str, ...]]", (1, 2),
     ["Invalid item at index 1 in tuple 'f'", "Field 'f[1]' expected a tuple, got int"]),
    ("list[dict[str, float]]", [1, 2], ["Invalid item at index 0 in list 'f'", "Field 'f[0]' expected a dict, got int"]),
    ("set[int]", "str", ["Field 'f' expected a set, got str"]),
]


def _chain(exc):
    messages = []
    while exc is not None:
        assert type(exc) is TypeError
        messages.append(str(exc))
        exc = exc.__cause__
    return messages


@pytest.mark.parametrize(("annotation", "value", "expected"), CASES, ids=[c[0] + "-" + repr(c[1]) for c in CASES])
def test_container_refusals_chain_like_the_validator(annotation, value, expected):
    with pytest.raises(TypeError) as info:
        type_check("f", value, parse_type(annotation), {})
    assert _chain(info.value) == expected


@pytest.mark.parametrize(("annotation", "value"), [("list[int]", []), ("dict[str, list[int]]", {"a": [1, 2]}),
                                                    ("tuple[int, ...]", ()), ("tuple[int, str]", (1, "a")),
                                                    ("set[int]", {1, 2})])
def test_well_typed_containers_pass(annotation, value):
    assert type_check("f", value, parse_type(annotation), {}) is None
