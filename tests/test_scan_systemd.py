"""systemd units: ``ExecStart=`` read as systemd makes the program's words, not as a shell would.

The expected words follow systemd.service(5), "Command lines": ``${NAME}`` is replaced by the value as it is (one
argument), ``$NAME`` as a word of its own by the value split at blanks (its quotes respected), anything else with a
``$`` reaches the program as written; quotes and escapes are removed before the variables are substituted; the
``:`` prefix turns substitution off and ``@`` makes the second word ``argv[0]``.
"""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

_UNIT = "[Service]\n{environment}ExecStart={command}\n"


def _launches(tmp_path, command: str, environment: str = "") -> list:
    path = tmp_path / "vllm.service"
    path.write_text(_UNIT.format(environment=environment, command=command))
    return find_launches([str(path)])[0]


@pytest.mark.parametrize("environment, command, words", [
    # ${NAME}: exactly one argument, its blanks kept (a shell would split it)
    ('Environment="ARGS=-tp 8 -pp 2"\n', "/usr/bin/vllm serve Qwen/Qwen3-8B ${ARGS}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp 8 -pp 2"]),
    ('Environment="TP=4"\n', "/usr/bin/vllm serve Qwen/Qwen3-8B --tensor-parallel-size=${TP}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size=4"]),
    # $NAME as a word: split at blanks, quotes inside the value respected (a shell keeps them as characters)
    ("Environment=\"ARGS=--served-model-name 'my model' -tp 2\"\n", "/usr/bin/vllm serve Qwen/Qwen3-8B $ARGS",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "my model", "-tp", "2"]),
    # quotes are removed before the substitution: "$ARGS" is still split
    ('Environment="ARGS=-tp 2 -pp 2"\n', '/usr/bin/vllm serve Qwen/Qwen3-8B "$ARGS"',
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "-pp", "2"]),
    # $NAME inside a longer word and the shell's ${NAME:-default} are not systemd's: passed as written
    ("Environment=TP=4\n", "/usr/bin/vllm serve Qwen/Qwen3-8B --tensor-parallel-size=$TP",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size=$TP"]),
    ("Environment=TP=4\n", "/usr/bin/vllm serve Qwen/Qwen3-8B -tp ${TP:-2}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "${TP:-2}"]),
    # $$ is one $
    ("Environment=TP=4\n", "/usr/bin/vllm serve Qwen/Qwen3-8B --served-model-name $${TP}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "${TP}"]),
    # a variable's own $ is a character, never substituted again
    ("Environment=NAME=a$TP TP=4\n", "/usr/bin/vllm serve Qwen/Qwen3-8B --served-model-name ${NAME}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "a$TP"]),
    # quotes anywhere in a word; C-style escapes
    ("", '/usr/bin/vllm serve Qwen/Qwen3-8B --served-model-name="my model" -tp\\s2',
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name=my model", "-tp 2"]),
    # `:`: no substitution at all
    ("Environment=TP=4\n", ":/usr/bin/vllm serve Qwen/Qwen3-8B -tp ${TP}",
     ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "${TP}"]),
    # `@`: the second word is argv[0], not an argument
    ("", "@/opt/venv/bin/vllm vllm-server serve Qwen/Qwen3-8B -tp 2",
     ["/opt/venv/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]),
    ("", "-/usr/bin/vllm serve Qwen/Qwen3-8B -tp 2", ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]),
])
def test_execstart_words(tmp_path, environment, command, words):
    (launch,) = _launches(tmp_path, command, environment)
    assert launch.tokens == words
    assert launch.unresolved == ()


def test_a_lone_semicolon_separates_command_lines(tmp_path):
    (launch,) = _launches(tmp_path, "/usr/bin/nvidia-smi ; /usr/bin/vllm serve Qwen/Qwen3-8B -tp 2 \\; x")
    assert launch.tokens == ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", ";", "x"]


def test_a_variable_the_unit_does_not_set_is_unresolved(tmp_path):
    """The service manager's own environment may hold it: neither empty nor a guess."""
    (braced,) = _launches(tmp_path, "/usr/bin/vllm serve Qwen/Qwen3-8B -tp ${TP}")
    assert braced.unresolved == ("TP",)
    (split,) = _launches(tmp_path, "/usr/bin/vllm serve Qwen/Qwen3-8B $ARGS")
    assert split.unresolved == ("ARGS",)


def test_an_unquoted_name_that_is_no_name_is_dropped(tmp_path):
    (launch,) = _launches(tmp_path, "/usr/bin/vllm serve Qwen/Qwen3-8B $-tp -tp 2")
    assert launch.tokens == ["/usr/bin/vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]


def test_a_shell_gets_the_braced_values_and_expands_the_rest_itself(tmp_path):
    (launch,) = _launches(tmp_path, "/bin/bash -c 'vllm serve $MODEL -tp ${TP} -pp 3'",
                          'Environment="TP=4" "MODEL=Qwen/Qwen3-8B"\n')
    assert launch.tokens == ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4", "-pp", "3"]


def test_the_one_argument_reaches_vllm_as_one_word(tmp_path, capsys):
    """End to end: the launch is refused by vLLM's parser, not checked as `-tp 8 -pp 2`."""
    from kvguard.cli import run

    path = tmp_path / "vllm.service"
    path.write_text(_UNIT.format(environment='Environment="ARGS=-tp 2 -pp 2"\n',
                                 command="/usr/bin/vllm serve Qwen/Qwen3-8B ${ARGS}"))
    status = run(["scan", str(path), "--vllm-version", "0.33.0"])
    out = capsys.readouterr().out
    assert status == 1
    assert "vllm: error: unrecognized arguments: -tp 2 -pp 2" in out


def test_an_empty_environment_assignment_resets_the_list(tmp_path):
    (launch,) = _launches(tmp_path, "/usr/bin/vllm serve Qwen/Qwen3-8B -tp ${TP}", "Environment=TP=2\nEnvironment=\n")
    assert launch.unresolved == ("TP",)


@pytest.mark.parametrize("options, runs", [("-c", [["serve", "m", "--a"]]), ("-ec", []), ("-o errexit -c", [])])
def test_a_shell_the_unit_runs_starts_with_the_options_its_words_give(tmp_path, options, runs):
    unit = tmp_path / "vllm.service"
    unit.write_text(f"[Service]\nExecStart=/bin/bash {options} 'false; vllm serve m --a'\n")
    assert [launch.tokens[1:] for launch in find_launches([str(unit)])[0]] == runs
