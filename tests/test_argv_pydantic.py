"""A config option's JSON naming keys its class lacks, refused by the release's parser with pydantic's ValidationError:
the whole argparse error, its documentation link naming the host's pydantic version (the host fact ``pydantic``).

The expected messages are the oracles' (tests/upstream/argv_runner.py, vLLM 0.33.0 on pydantic 2.14.4), copied as
printed; the input_value cut and reprs were compared with pydantic 2.14.4 on 3000 random values.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.cli import run
from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.front import examine
from kvguard.launch.argv import parse_serve
from kvguard.launch.layout import Host
from kvguard.launch.pydantic_text import input_value_text, pydantic_version
from kvguard.versions import resolve

V33 = resolve("0.33.0")

AC_FP4 = ("vllm serve: error: argument --attention-config/-ac: 1 validation error for AttentionConfig\n"
          "use_fp4_indexer_cache\n"
          "  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=True, input_type=bool]\n"
          "    For further information visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")
CC_NESTED = ("vllm serve: error: argument --compilation-config/-cc: 1 validation error for CompilationConfig\n"
             "pass_config.fuse_minimax_qk_norm\n"
             "  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=True, input_type=bool]\n"
             "    For further information visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")
CC_TWO = ("vllm serve: error: argument --compilation-config/-cc: 2 validation errors for CompilationConfig\n"
          "use_inductor\n"
          "  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=False, input_type=bool]\n"
          "    For further information visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument\n"
          "foo\n"
          "  Unexpected keyword argument [type=unexpected_keyword_argument, "
          "input_value='abcdefghijklmnopqrstuvwx...defghijklmnopqrstuvwxyz', input_type=str]\n"
          "    For further information visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")
API_FLOAT = ("api_server.py: error: argument --compilation-config/-cc: 1 validation error for CompilationConfig\n"
             "use_inductor\n"
             "  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=1.5, input_type=float]\n"
             "    For further information visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")


def _refusal(command: list[str], pydantic: str = "2.14") -> ArgparseRefusal:
    with pytest.raises(ArgparseRefusal) as caught:
        parse_serve(command, V33, pydantic=pydantic)
    return caught.value


@pytest.mark.parametrize("command,message", [
    (["vllm", "serve", "m", "--attention-config", '{"use_fp4_indexer_cache": true}'], AC_FP4),
    (["vllm", "serve", "m", "-cc", '{"pass_config": {"fuse_minimax_qk_norm": true}}'], CC_NESTED),
    (["vllm", "serve", "m", "-cc.pass_config.fuse_minimax_qk_norm=true"], CC_NESTED),
    (["vllm", "serve", "m", "-cc", '{"use_inductor": false, "foo": "' + "abcdefghijklmnopqrstuvwxyz" * 5 + '"}'],
     CC_TWO),
    (["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", "-cc", '{"use_inductor": 1.5}'],
     API_FLOAT),
])
def test_the_message_is_the_releases(command, message):
    refusal = _refusal(command)
    assert (refusal.exc_type, refusal.message, refusal.pydantic) == ("SystemExit", message, "2.14")


def test_the_link_names_the_hosts_pydantic():
    refusal = _refusal(["vllm", "serve", "m", "-ac", '{"use_fp4_indexer_cache": true}'], pydantic="2.12")
    assert refusal.message.endswith("https://errors.pydantic.dev/2.12/v/unexpected_keyword_argument")


@pytest.mark.parametrize("command,pydantic", [
    # the host's pydantic unknown
    (["vllm", "serve", "m", "-ac", '{"use_fp4_indexer_cache": true}'], None),
    # a variable that drops the link
    (["PYDANTIC_ERRORS_INCLUDE_URL=0", "vllm", "serve", "m", "-ac", '{"use_fp4_indexer_cache": true}'], "2.14"),
    # a value kvguard does not vouch for beside the unknown key: pydantic may report it too
    (["vllm", "serve", "m", "-cc", '{"use_inductor": false, "mode": "x"}'], "2.14"),
    # errors under two nested classes: their order is the class's field order
    (["vllm", "serve", "m", "-cc", '{"pass_config": {"a": 1}, "dynamic_shapes_config": {"b": 1}}'], "2.14"),
    # JSON pydantic's parser reads otherwise than Python's (NaN), a repeated key
    (["vllm", "serve", "m", "-cc", '{"use_inductor": NaN}'], "2.14"),
    (["vllm", "serve", "m", "-cc", '{"use_inductor": 1, "use_inductor": 2}'], "2.14"),
])
def test_what_kvguard_cannot_list_is_declined(command, pydantic):
    with pytest.raises(Undecidable, match="unexpected_keyword_argument"):
        parse_serve(command, V33, pydantic=pydantic)


def test_examine_reports_the_assumed_version():
    report = examine(V33, ["vllm", "serve", "m", "-ac", '{"use_fp4_indexer_cache": true}'])
    assert report.verdict.message == AC_FP4 and report.verdict.assumptions == ("pydantic='2.14'",)
    stated = examine(V33, ["vllm", "serve", "m", "-ac", '{"use_fp4_indexer_cache": true}'],
                     host=Host.standard(pydantic="2.14"))
    assert stated.verdict.message == AC_FP4 and stated.verdict.assumptions == ()


def test_cli(capsys):
    launch = ["--", "vllm", "serve", "Qwen/Qwen3-8B", "-ac", '{"use_fp4_indexer_cache": true}']
    assert run(["check", "--vllm", "0.33.0", "--format", "json", "--host", "pydantic=2.13.1", *launch]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["message"] == AC_FP4.replace("/2.14/", "/2.13/") and out["assumptions"] == []
    assert run(["check", "--vllm", "0.33.0", "--unknown-host", *launch]) == 2
    assert "which the host does not state" in capsys.readouterr().err
    assert run(["check", "--vllm", "0.33.0", "--host", "pydantic=1.10", *launch]) == 2


@pytest.mark.parametrize("text,version", [("2.12", "2.12"), ("2.14.4", "2.14"), (" 2.013 ", "2.13")])
def test_pydantic_version(text, version):
    assert pydantic_version(text) == version


@pytest.mark.parametrize("text", ["2", "1.10", "3.0", "2.x", "latest", "2.14.4.1"])
def test_pydantic_version_refuses(text):
    with pytest.raises(ValueError):
        pydantic_version(text)


@pytest.mark.parametrize("value,text", [
    ("a" * 48, "'" + "a" * 48 + "'"),
    ("a" * 49, "'" + "a" * 24 + "..." + "a" * 23 + "'"),
    ("é" * 60, "'" + "é" * 12 + "..." + "é" * 11 + "'"),
    ("é" + "a" * 47, "'é" + "a" * 22 + "..." + "a" * 23 + "'"),
    ({"b" * 60: 1}, "{'" + "b" * 23 + "..." + "b" * 19 + "': 1}"),
    (1e400, "inf"), (12345678901234567890123, "12345678901234567890123"), (None, "None"),
])
def test_input_value_as_pydantic_prints_it(value, text):
    assert input_value_text(value) == text


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4), max_leaves=12))
def test_input_value_is_the_repr_or_its_ends(value):
    text = input_value_text(value)
    whole = repr(value)
    if len(whole.encode()) <= 50:
        assert text == whole
    else:
        # the cut's "..." may sit beside dots of the value itself ("63." + "..."): some split must fit
        splits = [(text[:at], text[at + 3:]) for at in range(len(text)) if text.startswith("...", at)]
        assert any(whole.startswith(head) and whole.endswith(tail)
                   and 22 <= len(head.encode()) <= 25 and 21 <= len(tail.encode()) <= 24 for head, tail in splits)
