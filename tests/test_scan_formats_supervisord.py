"""supervisord programs read as supervisord starts them (kvguard.scan.supervisord).

Expected launches are written by hand from supervisord's documentation ("Configuration File": ``%(ENV_X)s``
expressions are "environment variables that are present in the environment at the time that supervisord is
started", and a ``[program:x]``'s ``command`` "will be split with shlex", no shell) and its source
(``ProcessConfig``: the option's expressions are expanded when the file is read, ``shlex.split`` at spawn time),
so a value is substituted before the command is split, and a ``$NAME`` in the command is never expanded."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

CASES = [
    # an %(ENV_X)s value is text put in before the split: its blanks separate words
    ("command=vllm serve Qwen/Qwen3-8B %(ENV_ARGS)s\n", {"ARGS": "-tp 2 --max-model-len 4096"},
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "4096"], ()),
    # %(ENV_TP)s is supervisord's own environment, not the program's environment=
    ('command=vllm serve Qwen/Qwen3-8B -tp %(ENV_TP)s\nenvironment=TP="2"\n', {},
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "${TP}"], ("TP",)),
    # no shell: ${TP} and $TP reach vLLM as written, whatever environment= holds
    ('command=vllm serve Qwen/Qwen3-8B -tp ${TP}\nenvironment=TP="2"\n', {},
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "${TP}"], ()),
    ('command=vllm serve Qwen/Qwen3-8B -tp $TP\nenvironment=TP="2"\n', {},
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$TP"], ()),
    # an environment= value from supervisord's environment that kvguard does not know is unresolved
    ('command=vllm serve Qwen/Qwen3-8B\nenvironment=VLLM_LOGGING_PREFIX="%(ENV_PREFIX)s"\n', {},
     ["VLLM_LOGGING_PREFIX=$VLLM_LOGGING_PREFIX", "vllm", "serve", "Qwen/Qwen3-8B"], ("VLLM_LOGGING_PREFIX",)),
    ('command=vllm serve Qwen/Qwen3-8B\nenvironment=VLLM_LOGGING_PREFIX="%(ENV_PREFIX)s"\n', {"PREFIX": "p"},
     ["VLLM_LOGGING_PREFIX=p", "vllm", "serve", "Qwen/Qwen3-8B"], ()),
]


@pytest.mark.parametrize(("program", "given", "tokens", "unresolved"), CASES)
def test_program_command_as_supervisord_starts_it(tmp_path, program, given, tokens, unresolved):
    conf = tmp_path / "supervisord.conf"
    conf.write_text("[program:vllm]\n" + program, encoding="utf-8")
    launches, skipped, _ = find_launches([str(conf)], given)
    assert skipped == [] and len(launches) == 1
    assert (launches[0].tokens, launches[0].unresolved) == (tokens, unresolved)
