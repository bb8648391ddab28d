"""The condition vocabulary of ``raise_if`` / ``steps_if`` (kvguard/facts/steps.py): named predicates over named values,
evaluated with Python's own operations.  Expected values are written by hand from what the statements they stand for
do in Python (``if max_position_embeddings is not None and max_position_embeddings <= 0: raise ...``, vLLM 0.33.0's
Step5Config; ``not set(self.rope_parameters.keys()).isdisjoint(self.layer_types)``, CohereCompassTextConfig)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.errors import Undecidable
from kvguard.facts.frame import Frame
from kvguard.facts.steps import STEPS


class _Cls:
    name = "vllm:Probe"


def _frame(**locals_) -> Frame:
    return Frame(object(), dict(locals_), _Cls(), None, "__init__")


POSITIVE = ["and", [["cmp", "is not", "m", {"literal": None}], ["cmp", "<=", "m", {"literal": 0}]]]
MESSAGE = {"template": "max_position_embeddings must be positive, got {m}."}


def _raise_if(frame: Frame, cond: list, exc: str = "ValueError") -> None:
    STEPS["raise_if"](frame, {"cond": cond, "exc": exc, "msg": MESSAGE})


@pytest.mark.parametrize("value", [None, 1, 4096])
def test_a_condition_that_does_not_hold_raises_nothing(value):
    _raise_if(_frame(m=value), POSITIVE)


@pytest.mark.parametrize("value", [0, -3])
def test_a_condition_that_holds_raises_the_message(value):
    with pytest.raises(ValueError) as caught:
        _raise_if(_frame(m=value), POSITIVE)
    assert str(caught.value) == f"max_position_embeddings must be positive, got {value}."


def test_a_string_compared_with_a_number_raises_pythons_type_error():
    with pytest.raises(TypeError) as caught:
        _raise_if(_frame(m="4096"), POSITIVE)
    assert str(caught.value) == "'<=' not supported between instances of 'str' and 'int'"


def test_and_stops_at_the_first_false_part():
    """``None is not None`` is false, so ``None <= 0`` (a TypeError) is never evaluated."""
    _raise_if(_frame(m=None), ["and", [["cmp", "is not", "m", {"literal": None}], ["cmp", "<=", "m", {"literal": 0}]]])


def test_a_key_in_the_keyword_arguments():
    cond = ["cmp", "in", {"literal": "max_position_embedding"}, {"kwargs": True}]
    _raise_if(_frame(m=1, kwargs={"max_position_embeddings": 1}), cond)
    with pytest.raises(ValueError):
        _raise_if(_frame(m=1, kwargs={"max_position_embedding": 1}), cond)


def test_a_length_and_a_prefix():
    cond = ["and", [["truthy", "l"], ["cmp", "!=", {"list": "l"}, {"list": {"prefix": ["s", "n"]}}]]]
    _raise_if(_frame(m=0, l=("a", "b"), s=["a", "b", "c"], n=2), cond)
    _raise_if(_frame(m=0, l=[], s=["x"], n=1), cond)
    with pytest.raises(ValueError):
        _raise_if(_frame(m=0, l=["a", "c"], s=["a", "b", "c"], n=2), cond)
    with pytest.raises(TypeError) as caught:
        _raise_if(_frame(m=0, l=["a"], s=7, n=1), cond)
    assert str(caught.value) == "'int' object is not subscriptable"


def test_a_guarded_block_runs_only_when_its_condition_holds():
    """CohereCompassTextConfig: the top-level keys go only when a key names one of the layer types."""
    cond = ["and", [["cmp", "is not", "lt", {"literal": None}],
                    ["not", ["disjoint", {"set": {"keys": "rp"}}, "lt"]]]]
    steps = [["dict_pop_key", {"d": "rp", "k": {"literal": "rope_theta"}}]]
    kept = {"full_attention": {}, "rope_theta": 1.0}
    frame = _frame(rp=kept, lt=["sliding_attention"])
    STEPS["steps_if"](frame, {"cond": cond, "steps": steps})
    assert kept == {"full_attention": {}, "rope_theta": 1.0}
    dropped = {"full_attention": {}, "rope_theta": 1.0}
    STEPS["steps_if"](_frame(rp=dropped, lt=["full_attention"]), {"cond": cond, "steps": steps})
    assert dropped == {"full_attention": {}}


def test_an_unknown_predicate_is_undecidable():
    with pytest.raises(Undecidable):
        _raise_if(_frame(m=0), ["xor", []])


@given(st.one_of(st.none(), st.integers(-5, 5)), st.one_of(st.none(), st.integers(-5, 5)))
def test_the_predicates_agree_with_python(a, b):
    """``a is None or (b is not None and a < b)`` written as the vocabulary writes it."""
    cond = ["or", [["cmp", "is", "a", {"literal": None}],
                   ["and", [["cmp", "is not", "b", {"literal": None}], ["cmp", "<", "a", "b"]]]]]
    expected = a is None or (b is not None and a < b)
    if expected:
        with pytest.raises(ValueError):
            _raise_if(_frame(a=a, b=b, m=0), cond)
    else:
        _raise_if(_frame(a=a, b=b, m=0), cond)
