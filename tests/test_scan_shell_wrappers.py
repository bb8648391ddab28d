"""Wrappers that change the environment a launch inherits: ``env -i`` / ``env -`` (none of it), ``env -u NAME``
(all but NAME), ``exec -c`` (none), ``sudo`` (none, its default ``env_reset``, unless ``-E`` or
``--preserve-env=LIST``).  From env(1), sudo(8) and the bash manual's ``exec``."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches
from kvguard.scan.shell import SUDO_RESETS

_EXPORT = "export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n"
_SERVE = "vllm serve Qwen/Qwen3-8B --max-model-len 100000"


@pytest.mark.parametrize("line, environment, notes", [
    (_SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], ()),
    ("env -i PATH=/usr/bin " + _SERVE, ["PATH=/usr/bin"], ()),
    ("env - " + _SERVE, [], ()),
    ("env --ignore-environment " + _SERVE, [], ()),
    ("env -u VLLM_ALLOW_LONG_MAX_MODEL_LEN " + _SERVE, [], ()),
    ("env --unset=VLLM_ALLOW_LONG_MAX_MODEL_LEN " + _SERVE, [], ()),
    ("env -u OTHER " + _SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], ()),
    ("exec -c " + _SERVE, [], ()),
    ("exec -a server " + _SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], ()),
    ("sudo " + _SERVE, [], (SUDO_RESETS,)),
    ("sudo -u svc " + _SERVE, [], (SUDO_RESETS,)),
    ("sudo -E " + _SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], ()),
    ("sudo --preserve-env=VLLM_ALLOW_LONG_MAX_MODEL_LEN -u svc " + _SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"],
     (SUDO_RESETS,)),
    ("sudo --preserve-env=HOME " + _SERVE, [], (SUDO_RESETS,)),
    # the command line's own assignments are the environment the wrapper starts from
    ("unset VLLM_ALLOW_LONG_MAX_MODEL_LEN; VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 sudo " + _SERVE, [], (SUDO_RESETS,)),
    ("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 env -i " + _SERVE, [], ()),
    # an assignment given to the wrapper itself reaches vLLM
    ("sudo VLLM_ALLOW_LONG_MAX_MODEL_LEN=2 " + _SERVE, ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=2"], (SUDO_RESETS,)),
])
def test_the_environment_a_wrapper_passes(tmp_path, line, environment, notes):
    path = tmp_path / "serve.sh"
    path.write_text(_EXPORT + line + "\n")
    (launch,) = find_launches([str(path)])[0]
    assert [word for word in launch.tokens if "=" in word and not word.startswith("-")] == environment
    assert launch.notes == notes


def test_a_refusal_the_cleared_environment_makes(tmp_path, capsys):
    from kvguard.cli import run

    path = tmp_path / "serve.sh"
    path.write_text(_EXPORT + "env -i PATH=/usr/bin " + _SERVE + "\n")
    assert run(["scan", str(path), "--vllm-version", "0.33.0"]) == 1
    assert "User-specified max_model_len (100000) is greater than the derived max_model_len" in capsys.readouterr().out
