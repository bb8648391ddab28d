"""`vllm serve` command lines as a release's parser reads the flags kvguard models."""

from __future__ import annotations

import pytest

from kvguard.argv import parse_serve
from kvguard.errors import InputError
from kvguard.versions import Release
from packaging.version import Version


def R(v):
    return Release(Version(v))


@pytest.mark.parametrize("argv", [
    "vllm serve M -tp 8 -dcp 2",
    "vllm serve M --tensor-parallel-size 8 --decode-context-parallel-size 2",
    "vllm serve M --tensor-parallel-size=8 --decode-context-parallel-size=2",
    "vllm serve M --tensor_parallel_size 8 --decode_context_parallel_size=2",
    "vllm serve --model M -tp 8 -dcp 2",
    "python -m vllm.entrypoints.openai.api_server --model M -tp 8 -dcp 2",
    "/usr/local/bin/vllm serve M -tp 4 -tp 8 -dcp 2",
    "--model M -tp 8 -dcp 2",
])
def test_spellings(argv):
    cmd = parse_serve(argv, R("0.28.0"))
    assert cmd.model == "M"
    assert cmd.fields["tensor_parallel_size"] == 8
    assert cmd.fields["decode_context_parallel_size"] == 2


def test_env_assignments_and_unknown_flags():
    cmd = parse_serve("VLLM_MLA_DISABLE=1 HF_HOME=/x vllm serve M --max-model-len 4096 --enforce-eager "
                      "--compilation-config '{\"level\": 3}' -tp 2", R("0.28.0"))
    assert cmd.env == {"VLLM_MLA_DISABLE": "1", "HF_HOME": "/x"}
    assert cmd.fields == {"tensor_parallel_size": 2}


def test_boolean_optional_forms():
    assert parse_serve("vllm serve M --enable-expert-parallel", R("0.20.0")).fields == {"enable_expert_parallel": True}
    assert parse_serve("vllm serve M --no-enable-expert-parallel", R("0.20.0")).fields == {"enable_expert_parallel": False}


@pytest.mark.parametrize("alias, release, ok", [
    ("-pcp 2", "0.11.2", False), ("-pcp 2", "0.12.0", True),
    ("-ep", "0.13.0", False), ("-ep", "0.14.0", True), ("-ep", "0.20.0", True),
    ("--dcp-comm-backend a2a", "0.17.1", False), ("--dcp-comm-backend a2a", "0.18.0", True),
])
def test_aliases_exist_only_in_their_releases(alias, release, ok):
    argv = f"vllm serve M {alias}"
    if ok:
        parse_serve(argv, R(release))
    else:
        with pytest.raises(InputError, match="unrecognized arguments"):
            parse_serve(argv, R(release))


def test_unterminated_quote_is_input_error():
    with pytest.raises(InputError):
        parse_serve("vllm serve M --x 'oops", R("0.28.0"))
