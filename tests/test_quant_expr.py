"""The expression language of kvguard/data/quant_archs.json (kvguard.quant.expr): what it accepts, what it
refuses, and that its arithmetic is Python's."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvguard.quant
from kvguard.quant.expr import ExpressionError, evaluate, names_in

#: the keys of a layer item whose values are expressions (the rest are names, ranges and flags)
EXPRESSION_KEYS = ("when", "hidden", "head_size", "heads", "kv_heads", "vocab", "experts", "intermediate", "in", "out",
                   "fires")


def _template_expressions() -> list[str]:
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(kvguard.quant.__file__))), "data",
                        "quant_archs.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    found: set[str] = set()
    for family in data["families"].values():
        if "moe_layer" in family:
            found.add(family["moe_layer"])
        if isinstance(family.get("head_dim"), str):
            found.add(family["head_dim"])
        for item in family.get("pre", []) + family.get("layer", []):
            found.update(item[key] for key in EXPRESSION_KEYS if isinstance(item.get(key), str))
            found.update(value for value in item.get("outs", ()) if isinstance(value, str))
            found.update(value for value in item.get("values", {}).values() if isinstance(value, str))
    return sorted(found)


TEMPLATES = _template_expressions()


def test_every_template_expression_is_in_the_vocabulary():
    assert len(TEMPLATES) > 30
    for text in TEMPLATES:
        names_in(text)   # raises ValueError outside the vocabulary


@pytest.mark.parametrize(("text", "names", "value"), [
    ("hidden_size", {"hidden_size": 4096}, 4096),
    ("missing", {}, None),
    ("None", {}, None),
    ("num_attention_heads * (qk_nope_head_dim + v_head_dim)", {"num_attention_heads": 128, "qk_nope_head_dim": 128,
                                                               "v_head_dim": 128}, 32768),
    ("-x + 3", {"x": 1}, 2),
    ("7 // 2 + 7 % 2", {}, 4),
    ("q_lora_rank is not None", {"q_lora_rank": 1536}, True),
    ("a if b is None else [c, d]", {"a": 1, "b": 0, "c": 2, "d": 3}, [2, 3]),
    ("i not in (layers or []) and n > 0 and (i + 1) % step == 0", {"i": 3, "n": 8, "step": 2}, True),
    ("i not in (layers or []) and n > 0", {"i": 3, "layers": [3], "n": 8}, False),
    ("layer_head_dim[i] * 2", {"layer_head_dim": [256, 512], "i": 1}, 1024),
    ("layer_head_dim[i]", {"layer_head_dim": (256, 512), "i": -1}, 512),
    ("not moe_layer and (mlp_only_layers or []) != []", {"moe_layer": False, "mlp_only_layers": [1]}, True),
])
def test_values(text, names, value):
    assert evaluate(text, names) == value


@pytest.mark.parametrize("text", [
    "f(x)", "x.y", "x ** 2", "x << 1", "x >> 1", "x & 1", "x | 1", "~x", "(a, b)", "x[1:2]", "x[i, j]",
    "lambda: 1", "[i for i in x]", "x[i] + x", "(a)[0]", "[1][0]", "'text'", "1.5", "a if b", "x = 1", "a @ b",
    "import os", "__import__('os')",
    # the expression becomes a lambda's body in parentheses: what would close them early, or leave them empty
    "", "  ", "a) + (b", "a), (b", "(a",
])
def test_forms_outside_the_vocabulary_are_refused(text):
    with pytest.raises(ValueError, match="unsupported expression"):
        evaluate(text, {"x": [1, 2], "a": 1, "b": 1, "i": 0, "j": 0})


@pytest.mark.parametrize(("text", "names"), [
    ("layer_head_dim[i]", {"layer_head_dim": [256], "i": 3}),     # shorter than the layers
    ("layer_head_dim[i]", {"i": 0}),                              # not in the config
    ("layer_head_dim[i]", {"layer_head_dim": "abc", "i": 0}),     # a string is no per-layer list
    ("layer_head_dim[i]", {"layer_head_dim": {0: 1}, "i": 0}),    # nor a mapping
    ("layer_head_dim[i]", {"layer_head_dim": [1, 2], "i": True}),  # an index is an int, not a bool
    ("a + b", {"a": 1}),                                          # a value left unset
    ("a // b", {"a": 1, "b": 0}),
    ("a < b", {"a": 1, "b": None}),
])
def test_arithmetic_that_fails_is_an_expression_error(text, names):
    with pytest.raises(ExpressionError):
        evaluate(text, names)


def test_names_read():
    assert names_in("num_attention_heads % tp != 0 or layer_kv[i] % tp != 0") == ("num_attention_heads", "tp",
                                                                                  "layer_kv", "i")
    assert names_in(7) == ()


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6).filter(bool), st.integers(0, 5))
def test_arithmetic_is_pythons(a, b, i):
    values = list(range(10, 16))
    expected = (a * b + a // b - a % b if a > b else -a) + values[i]
    assert evaluate("(a * b + a // b - a % b if a > b else -a) + values[i]", {"a": a, "b": b, "i": i,
                                                                          "values": values}) == expected

