"""The pydantic-free fast paths answer exactly what pydantic answers.

``kvguard.Layout`` validates plain values itself and hands anything else to a
strict pydantic model; ``facts._validate_arch`` skips vLLM's
``ModelArchitectureConfig`` validation when every value already has its
field's type.  Both are speed-ups (no pydantic import on a valid launch): for
generated inputs the result must equal pydantic's own, value *and* type, and
a refusal must be pydantic's refusal.
"""

from __future__ import annotations

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.facts.model import _arch_adapter, _arch_fields, _Raise, _validate_arch
from kvguard.launch.layout import _FIELDS, Layout, _strict_model
from kvguard.versions import resolve

#: values of every type a caller might pass, plain and odd (bool for int, int for float, subclasses)
_ANY = st.one_of(
    st.integers(-3, 3), st.integers(2**52, 2**54), st.booleans(), st.none(), st.text(max_size=3),
    st.floats(allow_nan=False), st.lists(st.text(max_size=2), max_size=2), st.tuples(st.floats(), st.none()),
    st.tuples(st.integers(), st.text(max_size=2)), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.sampled_from([1.0, 8.0, "8", b"8", [1], (1,)]),
)
_NAMES = st.sampled_from([name for name, _, _ in _FIELDS] + ["tp", "unknown_field"])


def _typed(value):
    """A value with its type, recursively (1 == 1.0 == True must not count as equal)."""
    if isinstance(value, (list, tuple)):
        return type(value), tuple(_typed(v) for v in value)
    if isinstance(value, dict):
        return type(value), tuple(sorted((k, _typed(v)) for k, v in value.items()))
    return type(value), value


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_NAMES, _ANY, max_size=4))
def test_layout_validates_like_the_strict_pydantic_model(data):
    try:
        expected = _strict_model()(**data)
    except pydantic.ValidationError as exc:
        with pytest.raises(pydantic.ValidationError) as got:
            Layout(**data)
        assert got.value.errors() == exc.errors()
        return
    lay = Layout(**data)
    assert _typed(lay.model_dump()) == _typed(expected.model_dump())
    assert lay.model_fields_set == expected.model_fields_set


def test_layout_defaults_equal_the_pydantic_model():
    assert _typed(Layout().model_dump()) == _typed(_strict_model()().model_dump())
    assert list(Layout.model_fields) == list(_strict_model().model_fields)


_ARCH_VALUES = st.one_of(
    st.integers(-2, 4096), st.integers(2**53 - 2, 2**53 + 2), st.booleans(), st.none(), st.text(max_size=4),
    st.floats(allow_nan=False), st.lists(st.text(max_size=3), max_size=3), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.dictionaries(st.integers(), st.integers(), max_size=1),
    st.tuples(st.integers(-2**60, 2**60), st.one_of(st.none(), st.text(max_size=3))),
    st.tuples(st.floats(), st.one_of(st.none(), st.text(max_size=3))),
    st.tuples(st.booleans(), st.none()), st.sampled_from(["8", 8.0, 8.5, (1.0, 2), (1,)]),
)


@pytest.mark.parametrize("version", ["0.14.0", "0.28.0", "0.33.0"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_architecture_fast_path_returns_what_pydantic_returns(version, data):
    release = resolve(version)
    fields = _arch_fields(release)
    values = {}
    # well-typed values (the fast path) except for up to two fields that may take anything (pydantic's path)
    odd = data.draw(st.sets(st.sampled_from([name for name, _ in fields]), max_size=2))
    for name, _ in fields:
        typical = {"architectures": st.lists(st.text(max_size=3), max_size=2), "model_type": st.text(max_size=3),
                   "derived_max_model_len_and_key": st.tuples(st.integers(1, 2**20), st.text(max_size=3)),
                   "quantization_config": st.none(), "is_deepseek_mla": st.booleans(),
                   "is_mm_prefix_lm": st.booleans(), "text_model_type": st.none(), "rswa_window": st.none()}
        values[name] = data.draw(_ARCH_VALUES if name in odd else typical.get(name, st.integers(0, 128)))
    try:
        obj = _arch_adapter(fields)(**values)
        expected = {name: getattr(obj, name) for name, _ in fields}
    except pydantic.ValidationError as exc:
        with pytest.raises(_Raise) as got:
            _validate_arch(values, release)
        assert [e.msg for e in got.value.crash.errors] == [e["msg"] for e in exc.errors()]
        return
    assert _typed(_validate_arch(values, release)) == _typed(expected)


def test_well_typed_architecture_values_skip_pydantic(monkeypatch):
    import kvguard.facts.model as facts

    release = resolve("0.28.0")
    values = {name: 1 for name, _ in _arch_fields(release)}
    values.update(architectures=["DeepseekV3ForCausalLM"], model_type="deepseek_v3", text_model_type=None,
                  quantization_config=None, is_deepseek_mla=True, is_mm_prefix_lm=False, rswa_window=None,
                  derived_max_model_len_and_key=(163840, "max_position_embeddings"))
    monkeypatch.setattr(facts, "_arch_adapter", lambda fields: pytest.fail("pydantic path taken"))
    out = _validate_arch(values, release)
    assert out["derived_max_model_len_and_key"] == (163840.0, "max_position_embeddings")
    assert type(out["derived_max_model_len_and_key"][0]) is float


def test_plain_layout_values_skip_pydantic(monkeypatch):
    import kvguard.launch.layout as layout

    monkeypatch.setattr(layout, "_strict_model", lambda: pytest.fail("pydantic path taken"))
    lay = Layout(tensor_parallel_size=8, decode_context_parallel_size=2, data_parallel_address=None,
                 enable_expert_parallel=True, swap_space=1.5)
    assert (lay.tp, lay.dcp, lay.swap_space) == (8, 2, 1.5)


def test_layout_field_types_are_the_type_hints():
    """launch/layout.py evaluates its field annotations from a small table instead of
    ``typing.get_type_hints`` (a cold check's cost); the result is the same."""
    from typing import Any, ClassVar, Optional, get_type_hints

    from kvguard.launch import layout

    hints = get_type_hints(layout.Layout, localns={"Any": Any, "ClassVar": ClassVar, "Optional": Optional})
    assert [(name, tp) for name, tp, _ in layout._FIELDS] == \
        [(name, tp) for name, tp in hints.items() if name not in ("model_fields", "model_fields_set")]
