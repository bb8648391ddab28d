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

Container fields: 0.20.0 and 0.33.0 refuse ``-cc '{"cudagraph_capture_sizes": "x"}'`` and ``null`` (list_type) and
accept ``[-1]``, ``[0]``, ``[4, 1, 1]``, ``["1"]``, ``[1.0]`` and ``[true]`` while parsing (kvguard vouches for the
first four kinds of item only); 0.33.0 refuses ``custom_ops`` ``["+"]`` and ``["+a", "-a"]``, which 0.20.0 accepts,
and both refuse ``"all"`` bare; a field whose kind is not measured (``compile_sizes``: ``list[int | str]``) is
declined whatever its value.  A value that is no JSON object (``-cc '{bad'``, ``3``, ``''``, ``[1]``) is refused by
0.10.2, 0.20.0 and 0.33.0 (json_invalid, dataclass_type), ``'{"max_cudagraph_capture_size": 2k}'`` accepted by 0.20.0
and 0.33.0 (their parser expands 2k first): kvguard declines all of them.  0.20.0 refuses ``-cc '{"mode": 3, "backend":
"foo"}'`` (value_error: "Invalid backend for piecewise compilation") and takes either field alone; 0.33.0 refuses
``cudagraph_mm_encoder: true`` with a negative ``encoder_cudagraph_max_vision_items_per_batch``.
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
    # container fields (list kinds measured per release)
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes":"x"}'], "cannot vouch for cudagraph_capture_sizes='x'"),
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes":null}'], "cannot vouch for cudagraph_capture_sizes=None"),
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes":[1, "x"]}'], "cannot vouch for cudagraph_capture_sizes=[1, 'x']"),
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes":[1.5]}'], "cannot vouch for cudagraph_capture_sizes=[1.5]"),
    ("0.20.0", ["-cc.cudagraph_capture_sizes+=4,x"], "cannot vouch for cudagraph_capture_sizes=['4', 'x']"),
    ("0.20.0", ["-cc", '{"custom_ops": ["rms_norm"]}'], "cannot vouch for custom_ops=['rms_norm']"),
    ("0.33.0", ["-cc", '{"custom_ops": ["all", "none"]}'], "cannot vouch for custom_ops=['all', 'none']"),
    ("0.33.0", ["-cc", '{"custom_ops": ["+rms_norm", "-rms_norm"]}'], "custom_ops=['+rms_norm', '-rms_norm']"),
    ("0.33.0", ["-cc", '{"custom_ops": "all"}'], "cannot vouch for custom_ops='all'"),
    ("0.33.0", ["-cc", '{"encoder_cudagraph_token_budgets": [0]}'], "encoder_cudagraph_token_budgets=[0]"),
    ("0.33.0", ["-cc", '{"splitting_ops": "x"}'], "cannot vouch for splitting_ops='x'"),
    ("0.33.0", ["-cc", '{"inductor_compile_config": [1]}'], "cannot vouch for inductor_compile_config=[1]"),
    # a field whose kind kvguard did not establish (list[int | str]): any value is declined
    ("0.33.0", ["-cc", '{"compile_sizes": [1, 2]}'], "cannot vouch for compile_sizes=[1, 2]"),
    # two fields the class checks together (the schema's measured pairs), whatever the two values
    ("0.20.0", ["-cc", '{"mode": 3, "backend": "foo"}'], "backend with mode (the release checks the two fields"),
    ("0.20.0", ["-cc.mode=3", "-cc.backend=inductor"], "backend with mode"),
    ("0.33.0", ["-cc", '{"cudagraph_mm_encoder": true, "encoder_cudagraph_max_vision_items_per_batch": -1}'],
     "cudagraph_mm_encoder with encoder_cudagraph_max_vision_items_per_batch"),
    ("0.10.2", ["-O", '{"use_cudagraph": false, "full_cuda_graph": true}'], "full_cuda_graph with use_cudagraph"),
    # no JSON object: refused (json_invalid, dataclass_type) unless the release's 8k expansion makes it one
    ("0.33.0", ["-cc", "{bad"], "cannot read '{bad' as a JSON object"),
    ("0.20.0", ["--compilation-config", "3"], "cannot read '3' as a JSON object"),
    ("0.10.2", ["--compilation-config", ""], "cannot read '' as a JSON object"),
    ("0.33.0", ["--attention-config", "[1]"], "cannot read '[1]' as a JSON object"),
    ("0.33.0", ["-cc", '{"max_cudagraph_capture_size": 2k}'], "cannot read"),
    # Literal[...] | str fields: 0.33.0 parses any word, checked later (a platform, a registry) -- only the
    # literal's words are vouched for; 0.33.0 refuses mxfp4 with minimax_m3_indexer_cp (ValueError, a pair)
    ("0.33.0", ["--attention-config.indexer_kv_dtype", "fp16"], "cannot vouch for indexer_kv_dtype='fp16'"),
    ("0.33.0", ["-ac", '{"indexer_kv_dtype": "mxfp4", "minimax_m3_indexer_cp": true}'],
     "indexer_kv_dtype with minimax_m3_indexer_cp"),
    ("0.33.0", ["--weight-transfer-config", '{"backend": "gloo"}'], "cannot vouch for backend='gloo'"),
    ("0.23.0", ["--weight-transfer-config", '{"backend": "sparse_nccl"}'], "cannot vouch for backend='sparse_nccl'"),
]

PASSED = [
    ("0.33.0", ["-cc.pass_config.fuse_rope_kvcache=True"]),
    ("0.20.0", ["-cc.pass_config.fuse_rope_kvcache=True"]),
    ("0.33.0", ["--compilation-config", '{"cudagraph_mode": "piecewise"}']),
    ("0.33.0", ["--compilation-config", '{"mode": 3, "cudagraph_mode": "FULL_DECODE_ONLY"}']),
    ("0.33.0", ["--kernel-config.enable_flashinfer_autotune=False"]),
    ("0.33.0", ["--eplb-config", '{"num_redundant_experts": 0}']),
    ("0.33.0", ["--compilation-config", '{"custom_ops": ["all"]}']),
    ("0.33.0", ["--compilation-config", '{"cudagraph_mode":"FULL_AND_PIECEWISE", "custom_ops":["+rms_norm", '
                '"+quant_fp8", "none"]}']),
    ("0.10.2", ["--compilation-config", '{"custom_ops": ["rms_norm"]}']),  # 0.10.2 does not check the syntax
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes": [1, 2, 4, 8]}']),
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes": [8, 1, "16", 8]}']),  # unsorted, repeated, a string of digits
    ("0.20.0", ["-cc", '{"cudagraph_capture_sizes": [-1, 0]}']),          # refused later, not while parsing
    ("0.20.0", ["-cc.cudagraph_capture_sizes+=4,8"]),
    ("0.11.1", ["--compilation-config", '{"cudagraph_capture_sizes": null}']),             # nullable there
    ("0.25.0", ["--compilation-config", '{"mode":0,"max_cudagraph_capture_size":512,"compile_ranges_endpoints":[512]}']),
    ("0.33.0", ["-cc", '{"splitting_ops": [], "inductor_compile_config": {"size_asserts": false}}']),
    ("0.33.0", ["-cc", '{"encoder_cudagraph_token_budgets": [1, 64]}']),
    ("0.33.0", ["-cc", '{"backend": "foo"}']),         # alone: 0.33.0 checks it against mode 3 only
    ("0.33.0", ["-cc", '{"encoder_cudagraph_max_vision_items_per_batch": -1}']),
    # the vLLM recipes' MiniMax-M3 launches (0.33.0's oracle started all 6: tools/recipe_differential.py)
    ("0.33.0", ["--attention_config.indexer_kv_dtype", "fp8"]),
    ("0.33.0", ["-ac", '{"indexer_kv_dtype": "bf16"}']),
    ("0.33.0", ["--weight-transfer-config", '{"backend": "ipc"}']),
    ("0.27.0", ["--weight-transfer-config", '{"backend": "sparse_nccl"}']),   # Literal["nccl", "ipc", "sparse_nccl"]
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
    # a missing key is refused with pydantic's message on the assumed host's pydantic (tests/test_argv_pydantic.py)
    assert run(["check", "--vllm-version", release, "--unknown-host", "--", "vllm", "serve", "Qwen/Qwen3-8B",
                *flags]) == 2
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
    "sizes": "list[int>=0]",
    "maybe_sizes": "list[int]?",
    "names": "list[str]",
    "ops": "list[op]",
    "options": "dict",
}


@pytest.mark.parametrize("data", [
    {"flag": True}, {"flag": "yes"}, {"flag": "OFF"}, {"flag": 0}, {"maybe_flag": None},
    {"count": 0}, {"count": "12"}, {"window": 1}, {"ratio": 1}, {"ratio": 0.25}, {"ratio": None},
    {"name": "x"}, {"mode": "full"}, {"mode": 1}, {"backend": None},
    {"nested": {"inner": "True", "level": 256}}, {},
    {"sizes": []}, {"sizes": [0, 8, 1, 8]}, {"sizes": ["16"]}, {"maybe_sizes": None}, {"maybe_sizes": [-3]},
    {"names": ["a", ""]}, {"ops": ["all"]}, {"ops": ["none", "+rms_norm", "-silu_and_mul", "+rms_norm"]},
    {"ops": []}, {"options": {}}, {"options": {"a": [1], "b": None}},
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
    ({"anything": [1, {"a": 2}]}, ("value", "anything=[1, {'a': 2}] (a field kvguard does not check)")),
    ({"anything": None}, ("value", "anything=None (a field kvguard does not check)")),
    ({"sizes": "x"}, ("value", "sizes='x' (the field is a list of int >= 0 items)")),
    ({"sizes": 8}, ("value", "sizes=8 (the field is a list of int >= 0 items)")),
    ({"sizes": None}, ("value", "sizes=None (the field is a list of int >= 0 items)")),
    ({"sizes": [1, -1]}, ("value", "sizes=[1, -1] (the field is a list of int >= 0 items)")),
    ({"sizes": [True]}, ("value", "sizes=[True] (the field is a list of int >= 0 items)")),
    ({"sizes": [2.0]}, ("value", "sizes=[2.0] (the field is a list of int >= 0 items)")),
    ({"sizes": ["x"]}, ("value", "sizes=['x'] (the field is a list of int >= 0 items)")),
    ({"maybe_sizes": [None]}, ("value", "maybe_sizes=[None] (the field is a list of int items or null)")),
    ({"names": [1]}, ("value", "names=[1] (the field is a list of str items)")),
    ({"names": {"a": "b"}}, ("value", "names={'a': 'b'} (the field is a list of str items)")),
    ({"ops": ["rms_norm"]}, ("value", "ops=['rms_norm'] (the field is a list of 'all', 'none', '+OP' or '-OP' "
                                      "items, at most one of 'all' and 'none', no OP both enabled and disabled)")),
    ({"ops": ["all", "none"]}, ("value", "ops=['all', 'none'] (the field is a list of 'all', 'none', '+OP' or "
                                         "'-OP' items, at most one of 'all' and 'none', no OP both enabled and "
                                         "disabled)")),
    ({"options": [1]}, ("value", "options=[1] (the field is an object)")),
])
def test_misfits(data, problem):
    assert config_value_problem(data, SCHEMA) == problem


@pytest.mark.parametrize("ops", [["all", "all"], ["none", "all"], [""], ["+"], ["-"], ["ALL"], ["+a", "-a"],
                                 ["-a", "none", "+a"], [7], [None], "all", None,
                                 ["-rotary_embedding"]])
def test_custom_ops_misfits(ops):
    assert config_value_problem({"ops": ops}, SCHEMA) is not None


PAIRED = {"mode": "int?", "backend": "str", "size": "int", "nested": {"a": "bool", "b": "bool", "&": [["a", "b"]]},
          "&": [["backend", "mode"]]}


@pytest.mark.parametrize("data,problem", [
    ({"mode": 3, "backend": "x"}, ("value", "backend with mode (the release checks the two fields together)")),
    ({"backend": "x", "size": 1, "mode": None}, ("value", "backend with mode (the release checks the two fields "
                                                          "together)")),
    ({"nested": {"b": True, "a": False}}, ("value", "nested.a with b (the release checks the two fields together)")),
    ({"mode": 3, "backend": 1}, ("value", "backend=1 (the field is a str)")),     # a misfit first
    ({"&": [], "mode": 3}, ("key", "&")),
    ({"*": 1}, ("key", "*")),
])
def test_pairs_checked_together(data, problem):
    assert config_value_problem(data, PAIRED) == problem


@pytest.mark.parametrize("data", [{"mode": 3, "size": 2}, {"backend": "x", "size": 2}, {"nested": {"a": True}},
                                  {"mode": 3, "nested": {"b": False}}])
def test_one_field_of_a_pair_passes(data):
    assert config_value_problem(data, PAIRED) is None


_KEYS = st.sampled_from(sorted(key for key in SCHEMA if key != "anything"))


@given(st.lists(_KEYS, max_size=4, unique=True), st.text(min_size=1, max_size=8), st.booleans())
def test_an_unknown_key_is_always_named_with_its_path(keys, extra, deep):
    """Whatever fitting keys come first, a key the class lacks is reported as a key, with its dotted path."""
    if extra in SCHEMA or extra in SCHEMA["nested"]:  # type: ignore[operator]
        return
    fitting = {"flag": True, "maybe_flag": None, "count": 3, "window": 2, "ratio": 0.5, "name": "n",
               "mode": "FULL", "backend": "auto", "nested": {"inner": False}, "sizes": [1], "maybe_sizes": None,
               "names": ["x"], "ops": ["all"], "options": {}}
    data = {key: fitting[key] for key in keys}
    if deep:
        data["nested"] = {"inner": True, extra: 1}
        assert config_value_problem(data, SCHEMA) == ("key", f"nested.{extra}")
    else:
        data[extra] = 1
        assert config_value_problem(data, SCHEMA) == ("key", extra)
