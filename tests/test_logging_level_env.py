"""VLLM_LOGGING_LEVEL refused by dictConfig (FE_logging_level) and VLLM_ATTENTION_BACKEND refused while 0.13.0 - 0.14.1
build vllm serve's parser (undecidable), through kvguard.examine and kvguard.check.

Expected answers were recorded from the CPU oracles' serve path (tests/upstream/serve_runner.py, a case with its own
environment and ``logging``) on 0.10.2, 0.13.0, 0.14.1, 0.20.0, 0.30.0, 0.31.0 and 0.33.0:

- ``VLLM_LOGGING_LEVEL`` NOPE, "" and 10: ValueError "Unable to configure handler 'vllm'" at stage frontend on every
  release; to 0.30.0 before argparse (a bad --max-model-len as well), from 0.31.0 after it; ``debug`` and ``warn``
  accepted; with VLLM_CONFIGURE_LOGGING=0 accepted; with VLLM_LOGGING_CONFIG_PATH accepted to 0.30.0 and refused at
  the engine by LoggingConfig's validation (ValidationError) on 0.31.0 / 0.33.0;
- ``VLLM_ATTENTION_BACKEND=NOT_A_BACKEND``: ValueError "Invalid value 'NOT_A_BACKEND' for VLLM_ATTENTION_BACKEND. Valid
  options: [...]" at stage parser on 0.13.0 and 0.14.1; accepted on 0.10.2, 0.20.0, 0.30.0, 0.31.0, 0.33.0; with
  VLLM_LOGGING_LEVEL=NOPE too, the logging refusal first (0.13.0).
"""

from __future__ import annotations

import pytest

import kvguard
from kvguard.errors import Undecidable

MODEL = "Qwen/Qwen3-8B"
HANDLER = "Unable to configure handler 'vllm'"


def _examine(version: str, command: str):
    return kvguard.examine(version, f"{command}").verdict


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.14.1", "0.20.0", "0.30.0", "0.31.0", "0.33.0"])
@pytest.mark.parametrize("value", ["NOPE", "''", "10", "nope"])
def test_a_level_python_lacks_is_refused_by_dict_config(version, value):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL={value} vllm serve {MODEL}")
    assert (verdict.ok, verdict.stage, verdict.check, verdict.exc_type, verdict.message) == (
        False, "frontend", "FE_logging_level", "ValueError", HANDLER)


@pytest.mark.parametrize("version", ["0.10.2", "0.30.0", "0.31.0", "0.33.0"])
@pytest.mark.parametrize("value", ["debug", "warn", "Error", "INFO"])
def test_a_level_python_names_in_any_case_is_accepted(version, value):
    assert _examine(version, f"VLLM_LOGGING_LEVEL={value} vllm serve {MODEL}").ok


@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.30.0"])
def test_to_0_30_the_level_is_not_applied_with_logging_off_or_a_config_file(version):
    assert _examine(version, f"VLLM_LOGGING_LEVEL=NOPE VLLM_CONFIGURE_LOGGING=0 vllm serve {MODEL}").ok
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL=NOPE VLLM_LOGGING_CONFIG_PATH=/etc/log.json vllm serve {MODEL}")
    assert verdict.check != "FE_logging_level"


@pytest.mark.parametrize("version", ["0.10.2", "0.30.0"])
def test_to_0_30_the_import_refusal_outranks_argparse(version):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL=NOPE vllm serve {MODEL} --max-model-len abc")
    assert (verdict.check, verdict.exc_type, verdict.message) == ("FE_logging_level", "ValueError", HANDLER)


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
def test_from_0_31_argparse_outranks_the_level(version):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL=NOPE vllm serve {MODEL} --max-model-len abc")
    assert verdict.stage == "argparse"


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
@pytest.mark.parametrize("extra", [("VLLM_CONFIGURE_LOGGING=0", ""), ("VLLM_LOGGING_CONFIG_PATH=/etc/log.json", ""),
                                   ("", "--log-level DEBUG"), ("", "--logging-config.log_level DEBUG")])
def test_from_0_31_a_level_read_by_logging_config_is_undecidable(version, extra):
    env, args = extra
    with pytest.raises(Undecidable, match="VLLM_LOGGING_LEVEL='NOPE' is no log level"):
        _examine(version, f"VLLM_LOGGING_LEVEL=NOPE {env} vllm serve {MODEL} {args}")


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
def test_the_library_check_gives_the_refusal(version):
    config = {e.id: e.config for e in kvguard.catalog.entries()}[MODEL]
    verdict = kvguard.check(config, vllm_version=version, env={"VLLM_LOGGING_LEVEL": "NOPE"})
    assert (verdict.check, verdict.exc_type, verdict.message) == ("FE_logging_level", "ValueError", HANDLER)
    assert kvguard.check(config, vllm_version=version, env={"VLLM_LOGGING_LEVEL": "debug"}).ok


@pytest.mark.parametrize("version", ["0.13.0", "0.14.1"])
@pytest.mark.parametrize("value", ["NOT_A_BACKEND", "flashinfer", "''"])
def test_0_13_to_0_14_an_unknown_attention_backend_variable_is_undecidable(version, value):
    with pytest.raises(Undecidable, match="while `vllm serve` builds its argument parser"):
        _examine(version, f"VLLM_ATTENTION_BACKEND={value} vllm serve {MODEL}")
    config = {e.id: e.config for e in kvguard.catalog.entries()}[MODEL]
    with pytest.raises(Undecidable, match="AttentionBackendEnum"):
        kvguard.check(config, vllm_version=version, env={"VLLM_ATTENTION_BACKEND": value.strip("'")})


@pytest.mark.parametrize("version", ["0.13.0", "0.14.1"])
def test_0_13_to_0_14_a_member_name_passes_the_parser(version):
    assert _examine(version, f"VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve {MODEL}").ok


def test_the_logging_refusal_comes_before_the_parser():
    verdict = _examine("0.13.0", f"VLLM_ATTENTION_BACKEND=NOT_A_BACKEND VLLM_LOGGING_LEVEL=NOPE vllm serve {MODEL}")
    assert (verdict.check, verdict.message) == ("FE_logging_level", HANDLER)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.30.0", "0.31.0", "0.33.0"])
def test_elsewhere_the_attention_backend_variable_does_not_stop_the_parser(version):
    assert _examine(version, f"VLLM_ATTENTION_BACKEND=NOT_A_BACKEND vllm serve {MODEL}").ok
