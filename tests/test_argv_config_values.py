"""A config option's nested keys and values held against the release's measured field schema
(kvguard.launch.config_values): a key the class lacks at any depth, or a value kvguard cannot vouch for, is declined
(Undecidable, exit 2); a value that fits its field passes.

What the releases answered (tests/upstream/argv_runner.py on each oracle): 0.33.0 refuses
``-cc.pass_config.fuse_nope=True`` (``pass_config.fuse_nope``: unexpected_keyword_argument), ``--compilation-config
'{"cudagraph_mode": "NOPE"}'`` (a bare ``KeyError: 'NOPE'``), ``'{"mode": "x"}'`` and ``'{"mode": "3"}'`` ("Invalid
compilation mode"), ``--attention-config.backend NOPE`` ("Unknown attention backend"), ``--eplb-config
'{"num_redundant_experts": -1}'`` (greater_than_equal) and ``--aux-output-config '{"max_bytes": -1}'`` (greater_than);
it accepts ``-cc.pass_config.fuse_rope_kvcache=True``, ``'{"cudagraph_mode": "piecewise"}'``, ``'{"mode": 3}'`` and
``--kernel-config.enable_flashinfer_autotune=False``.  0.15.0's PassConfig has no ``fuse_rope_kvcache``; 0.20.0's has.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.cli import run
from kvguard.errors import Undecidable
from kvguard.launch.argv import parse_serve
from kvguard.launch.config_values import config_value_problem
from kvguard.versions import resolve

DECLINED = [
    ("0.33.0", ["-cc.pass_config.fuse_nope=True"], "has no field 'pass_config.fuse_nope'"),
    ("0.15.0", ["-cc.pass_config.fuse_rope_kvcache=True"], "has no field 'pass_config.fuse_rope_kvcache'"),
    ("0.33.0", ["--compilation-config", '{"cudagraph_mode": "NOPE"}'], "cannot vouch for cudagraph_mode='NOPE'"),
    ("0.33.0", ["--compilation-config", '{"mode": "x"}'], "cannot vouch for mode='x'"),
    ("0.33.0", ["--compilation-config", '{"mode": "3"}'], "cannot vouch for mode='3'"),
    ("0.33.0", ["--attention-config.backend", "NOPE"], "cannot vouch for backend='NOPE'"),
    ("0.33.0", ["--eplb-config", '{"num_redundant_experts": -1}'], "cannot vouch for num_redundant_experts=-1"),
    ("0.33.0", ["--aux-output-config", '{"max_bytes": -1}'], "cannot vouch for max_bytes=-1"),
]

PASSED = [
    ("0.33.0", ["-cc.pass_config.fuse_rope_kvcache=True"]),
    ("0.20.0", ["-cc.pass_config.fuse_rope_kvcache=True"]),
    ("0.33.0", ["--compilation-config", '{"cudagraph_mode": "piecewise"}']),
    ("0.33.0", ["--compilation-config", '{"mode": 3, "cudagraph_mode": "FULL_DECODE_ONLY"}']),
    ("0.33.0", ["--kernel-config.enable_flashinfer_autotune=False"]),
    ("0.33.0", ["--eplb-config", '{"num_redundant_experts": 0}']),
    ("0.33.0", ["--compilation-config", '{"custom_ops": ["all"]}']),      # a list field: not checked
]


@pytest.mark.parametrize("release,flags,reason", DECLINED)
def test_a_key_or_value_kvguard_cannot_vouch_for_is_declined(release, flags, reason):
    with pytest.raises(Undecidable) as info:
        parse_serve(["vllm", "serve", "Qwen/Qwen3-8B", *flags], resolve(release))
    assert reason in str(info.value)


@pytest.mark.parametrize("release,flags", PASSED)
def test_values_that_fit_their_fields_pass(release, flags):
    assert parse_serve(["vllm", "serve", "Qwen/Qwen3-8B", *flags], resolve(release)).model == "Qwen/Qwen3-8B"


@pytest.mark.parametrize("release,flags,reason", DECLINED[:3])
def test_cli_exits_2_and_names_the_value(release, flags, reason, capsys):
    assert run(["check", "--vllm-version", release, "--", "vllm", "serve", "Qwen/Qwen3-8B", *flags]) == 2
    assert reason in capsys.readouterr().err


SCHEMA = {
    "flag": "bool",
    "maybe_flag": "bool?",
    "count": "int>=0",
    "window": "int>0",
    "ratio": "float?>0<=1",
    "name": "str",
    "mode": ["NONE", "none", 0, "FULL", "full", 1],
    "backend": ["auto", "triton", None],
    "anything": "any",
    "nested": {"inner": "bool", "level": "int>=1<=256"},
}


@pytest.mark.parametrize("data", [
    {"flag": True}, {"flag": "yes"}, {"flag": "OFF"}, {"flag": 0}, {"maybe_flag": None},
    {"count": 0}, {"count": "12"}, {"window": 1}, {"ratio": 1}, {"ratio": 0.25}, {"ratio": None},
    {"name": "x"}, {"mode": "full"}, {"mode": 1}, {"backend": None}, {"anything": [1, {"a": 2}]},
    {"nested": {"inner": "True", "level": 256}}, {},
])
def test_fitting_values(data):
    assert config_value_problem(data, SCHEMA) is None


@pytest.mark.parametrize("data,problem", [
    ({"flag": "maybe"}, ("value", "flag='maybe' (the field is a bool)")),
    ({"flag": 2}, ("value", "flag=2 (the field is a bool)")),
    ({"flag": None}, ("value", "flag=None (the field is a bool)")),
    ({"count": -1}, ("value", "count=-1 (the field is an int >= 0)")),
    ({"count": 1.5}, ("value", "count=1.5 (the field is an int >= 0)")),
    ({"count": True}, ("value", "count=True (the field is an int >= 0)")),
    ({"window": 0}, ("value", "window=0 (the field is an int > 0)")),
    ({"ratio": 1.5}, ("value", "ratio=1.5 (the field is a float > 0 <= 1 or null)")),
    ({"name": 3}, ("value", "name=3 (the field is a str)")),
    ({"mode": "1"}, ("value", "mode='1' (the release accepts 'NONE', 'none', 0, 'FULL', 'full', 1)")),
    ({"mode": "Full"}, ("value", "mode='Full' (the release accepts 'NONE', 'none', 0, 'FULL', 'full', 1)")),
    ({"mode": None}, ("value", "mode=None (the release accepts 'NONE', 'none', 0, 'FULL', 'full', 1)")),
    ({"nested": {"level": 257}}, ("value", "nested.level=257 (the field is an int >= 1 <= 256)")),
    ({"nested": True}, ("value", "nested=True where the release expects an object")),
    ({"nested": {"bogus": 1}}, ("key", "nested.bogus")),
    ({"flag": True, "bogus": 1}, ("key", "bogus")),
])
def test_misfits(data, problem):
    assert config_value_problem(data, SCHEMA) == problem


_KEYS = st.sampled_from(sorted(SCHEMA))


@given(st.lists(_KEYS, max_size=4, unique=True), st.text(min_size=1, max_size=8), st.booleans())
def test_an_unknown_key_is_always_named_with_its_path(keys, extra, deep):
    """Whatever fitting keys come first, a key the class lacks is reported as a key, with its dotted path."""
    if extra in SCHEMA or extra in SCHEMA["nested"]:  # type: ignore[operator]
        return
    fitting = {"flag": True, "maybe_flag": None, "count": 3, "window": 2, "ratio": 0.5, "name": "n",
               "mode": "FULL", "backend": "auto", "anything": None, "nested": {"inner": False}}
    data = {key: fitting[key] for key in keys}
    if deep:
        data["nested"] = {"inner": True, extra: 1}
        assert config_value_problem(data, SCHEMA) == ("key", f"nested.{extra}")
    else:
        data[extra] = 1
        assert config_value_problem(data, SCHEMA) == ("key", extra)
