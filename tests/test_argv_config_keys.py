"""A config option's JSON naming a key its config class lacks (``--compilation-config``, ``--attention-config``,
dotted ``--attention-config.x``): the release's parser refuses it with pydantic's message, which names the
host's pydantic version: parse_serve declines it (Undecidable) unless told that version, with which it quotes the
refusal (tests/test_argv_pydantic.py); the command line assumes pydantic 2.14 and exits 2 with ``--unknown-host``.

What the releases answered (tests/upstream/serve_runner.py): 0.20.0, 0.28.0 and 0.33.0 refuse
``--compilation-config '{"bogus": 1}'`` and ``--attention-config '{"bogus": 1}'`` at argparse
(``unexpected_keyword_argument``); 0.33.0 refuses ``--attention_config.use_fp4_indexer_cache True`` (the field is
not in its AttentionConfig) and 0.28.0 accepts it; 0.10.2's CompilationConfig ignores unknown keys.
"""

from __future__ import annotations

import pytest

from kvguard.cli import run
from kvguard.errors import Undecidable
from kvguard.launch.argv import option_table, parse_serve
from kvguard.versions import resolve


@pytest.mark.parametrize("release,flags", [
    ("0.20.0", ["--compilation-config", '{"bogus": 1}']),
    ("0.28.0", ["--attention-config", '{"bogus": 1}']),
    ("0.33.0", ["--compilation-config", '{"bogus": 1}']),
    ("0.33.0", ["--attention_config.use_fp4_indexer_cache", "True"]),
    ("0.33.0", ["-cc.bogus", "1"]),
])
def test_an_unknown_key_is_declined(release, flags):
    with pytest.raises(Undecidable, match="has no field 'bogus'|has no field 'use_fp4_indexer_cache'"):
        parse_serve(["vllm", "serve", "Qwen/Qwen3-8B", *flags], resolve(release))


@pytest.mark.parametrize("release,flags", [
    ("0.28.0", ["--attention_config.use_fp4_indexer_cache", "True"]),
    ("0.33.0", ["--compilation-config", '{"mode": 3}']),
    ("0.10.2", ["--compilation-config", '{"bogus": 1}']),
])
def test_known_keys_and_classes_that_ignore_extras_pass(release, flags):
    parse_serve(["vllm", "serve", "Qwen/Qwen3-8B", *flags], resolve(release))


def test_the_table_marks_the_classes_that_let_unknown_keys_pass():
    old = option_table(resolve("0.10.2"))["--compilation-config"].fields
    assert old is not None and old["*"] == "any" and old["level"] == "int?"
    fields = option_table(resolve("0.33.0"))["--compilation-config"].fields
    assert fields is not None and "mode" in fields and "bogus" not in fields and "*" not in fields


def test_cli_refuses_on_the_assumed_pydantic_and_exits_2_without_it(capsys):
    launch = ["--", "vllm", "serve", "Qwen/Qwen3-8B", "--compilation-config", '{"bogus": 1}']
    assert run(["check", "--vllm", "0.33.0", *launch]) == 1
    assert "bogus\n  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=1, input_type=int]" \
        in capsys.readouterr().out
    assert run(["check", "--vllm", "0.33.0", "--unknown-host", *launch]) == 2
    assert "has no field 'bogus'" in capsys.readouterr().err


# 0.12.0's oracle: --ec-transfer-config '{"ec_connector": true}' is pydantic's string_type refusal (ec_connector is
# str | None); kvguard does not establish that field's kind, so only a string or null is passed over
@pytest.mark.parametrize("value", ['{"ec_connector": true}', '{"ec_connector": 1}', '{"ec_connector": ["a"]}'])
def test_a_connector_name_that_is_not_a_string_is_declined(value):
    with pytest.raises(Undecidable, match="cannot vouch for ec_connector="):
        parse_serve(["vllm", "serve", "M", "--ec-transfer-config", value], resolve("0.12.0"))


@pytest.mark.parametrize("value", ['{"ec_connector": "ECExampleConnector"}', '{"ec_connector": null}'])
def test_a_connector_name_string_or_null_passes(value):
    command = parse_serve(["vllm", "serve", "M", "--ec-transfer-config", value], resolve("0.12.0"))
    assert command.model == "M"
