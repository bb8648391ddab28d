"""``--lora-modules``' own argparse action and the optional config options (``optional_type(parse_dataclass)``).

The answers are the releases' (tests/upstream/argv_runner.py on the oracles of 0.10.2, 0.24.0 and 0.33.0, and
tools/option_sweep.py on 0.24.0):
- ``--lora-modules x`` / ``a=b,c`` / ``a=b {bad``: "vllm serve: error: Invalid JSON format for --lora-modules: W"
  on all three;
- ``1``, ``NaN``, ``[1]``, ``{"name":"a"}``: "Invalid fields for --lora-modules: W - " and Python's TypeError
  (qualified class names, Python's own words): declined;
- ``a=b=c``: ``ValueError('too many values to unpack (expected 2)')`` on 0.10.2 and 0.24.0 (Python 3.11's words),
  accepted on 0.33.0 (split once);
- ``a=b``, ``{"name":"a","path":"b"}`` (and ``base_model_name``), ``None``, ``""``: accepted.
- ``--kv-transfer-config x`` / ``1`` on 0.24.0: an argparse error with pydantic's json_invalid / dataclass_type
  (pydantic's version in the message): declined.
"""

from __future__ import annotations

import pytest

from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

REFUSED = [
    ("0.10.2", ["x"]),
    ("0.24.0", ["x"]),
    ("0.33.0", ["x"]),
    ("0.24.0", ["a=b,c"]),
    ("0.33.0", ["a=b", "{bad"]),
]


@pytest.mark.parametrize(("version", "words"), REFUSED)
def test_words_that_are_no_json_are_the_parsers_error(version, words):
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(["vllm", "serve", "M", "--lora-modules", *words], resolve(version))
    assert (info.value.exc_type, info.value.message) == (
        "SystemExit", f"vllm serve: error: Invalid JSON format for --lora-modules: {words[-1]}")


DECLINED = [
    ("0.24.0", ["1"]),
    ("0.33.0", ["NaN"]),
    ("0.33.0", ["[1]"]),
    ("0.10.2", ['{"name":"a"}']),
    ("0.24.0", ['{"name":"a","path":"b","rank":8}']),
    ("0.10.2", ["a=b=c"]),
    ("0.24.0", ["a=b=c"]),
]


@pytest.mark.parametrize(("version", "words"), DECLINED)
def test_pythons_own_words_are_declined(version, words):
    with pytest.raises(Undecidable) as info:
        parse_serve(["vllm", "serve", "M", "--lora-modules", *words], resolve(version))
    assert "Python" in str(info.value)


ACCEPTED = [
    ("0.24.0", ["a=b"]),
    ("0.33.0", ["a=b=c"]),
    ("0.10.2", ['{"name":"a","path":"b"}']),
    ("0.33.0", ['{"name":"a","path":"b","base_model_name":null}']),
    ("0.24.0", ["None"]),
    ("0.24.0", [""]),
    ("0.24.0", ["sql=/adapters/sql", "chat=/adapters/chat"]),
]


@pytest.mark.parametrize(("version", "words"), ACCEPTED)
def test_module_paths_the_release_takes_pass(version, words):
    cmd = parse_serve(["vllm", "serve", "M", "--lora-modules", *words], resolve(version))
    assert cmd.model == "M"


@pytest.mark.parametrize("value", ["x", "1", "[1]", '"s"'])
@pytest.mark.parametrize("option", ["--kv-transfer-config", "--kv-events-config", "--pooler-config"])
def test_optional_config_values_that_are_no_object_are_declined(option, value):
    with pytest.raises(Undecidable) as info:
        parse_serve(["vllm", "serve", "M", option, value], resolve("0.24.0"))
    assert "JSON object" in str(info.value)


@pytest.mark.parametrize("value", ["None", "", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'])
def test_optional_config_values_the_release_takes_pass(value):
    cmd = parse_serve(["vllm", "serve", "M", "--kv-transfer-config", value], resolve("0.24.0"))
    assert cmd.model == "M"


def test_an_unknown_key_of_an_optional_config_is_declined():
    with pytest.raises(Undecidable) as info:
        parse_serve(["vllm", "serve", "M", "--kv-transfer-config", '{"kv_conector": "NixlConnector"}'],
                    resolve("0.24.0"))
    assert "kv_conector" in str(info.value)
