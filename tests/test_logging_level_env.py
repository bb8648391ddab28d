"""VLLM_LOGGING_LEVEL refused by dictConfig (FE_logging_level) and VLLM_ATTENTION_BACKEND refused while 0.13.0 - 0.14.1
build vllm serve's parser (undecidable), through kvguard.examine and kvguard.check.

Expected answers were recorded from the CPU oracles' serve path (tests/upstream/serve_runner.py, a case with its own
environment and ``logging``) on 0.10.2, 0.13.0, 0.14.1, 0.20.0, 0.30.0, 0.31.0 and 0.33.0:

- ``VLLM_LOGGING_LEVEL`` NOPE, "" and 10: ValueError "Unable to configure handler 'vllm'" at stage frontend on every
  release; to 0.30.0 before argparse (a bad --max-model-len as well), from 0.31.0 after it; ``debug`` and ``warn``
  accepted; with VLLM_CONFIGURE_LOGGING=0 accepted; with VLLM_LOGGING_CONFIG_PATH accepted to 0.30.0 and refused at
  the engine by LoggingConfig's validation (ValidationError) on 0.31.0 / 0.33.0;
- 0.31.0 / 0.32.0 / 0.33.0, a level LoggingConfig's LogLevel lacks (NOPE, WARN, ""): with --log-config-file a
  ValidationError for LoggingConfig at stage frontend (logging off or a missing file too); with a file named by
  VLLM_LOGGING_CONFIG_PATH or --logging-config's pylogging_config_file (an empty name too) the same at the engine;
  accepted with --log-level, with --logging-config.log_level, with --logging-config's configure_logging false, and
  with a null pylogging_config_file;
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


LOG_LEVEL_CHOICES = "Input should be 'CRITICAL', 'ERROR', 'WARNING', 'INFO', 'DEBUG' or 'NOTSET'"


def _logging_config_refusal(verdict) -> tuple:
    return (verdict.ok, verdict.stage, verdict.check, verdict.exc_type, verdict.message, verdict.wrapped_by,
            [(e.type, e.loc, e.input) for e in verdict.errors])


@pytest.mark.parametrize("version", ["0.31.0", "0.32.0", "0.33.0"])
@pytest.mark.parametrize("value, env, args", [
    ("NOPE", "", "--log-config-file /etc/log.json"),
    ("warn", "", "--log-config-file /srv/missing.json"),
    ("''", "VLLM_CONFIGURE_LOGGING=0", "--log-config-file /etc/log.json"),
    ("fatal", "", "--log-config-file ''"),
])
def test_from_0_31_log_config_file_validates_the_variables_level_right_after_argparse(version, value, env, args):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL={value} {env} vllm serve {MODEL} {args}")
    level = value.strip("'").upper()
    assert _logging_config_refusal(verdict) == (
        False, "frontend", "fe_logging_level_field", "ValidationError", LOG_LEVEL_CHOICES, "LoggingConfig",
        [("literal_error", ("log_level",), level)])


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
@pytest.mark.parametrize("value, env, args", [
    ("NOPE", "VLLM_LOGGING_CONFIG_PATH=/etc/log.json", ""),
    ("WARN", "VLLM_LOGGING_CONFIG_PATH=/etc/log.json", "-tp 3"),
    ("NOPE", "", """--logging-config '{"pylogging_config_file": "/etc/log.json"}'"""),
    ("FATAL", "VLLM_CONFIGURE_LOGGING=0 VLLM_LOGGING_CONFIG_PATH=''", ""),
    ("warn", "", """--logging-config '{"pylogging_config_file": ""}'"""),
])
def test_from_0_31_a_named_file_validates_the_variables_level_at_the_engine(version, value, env, args):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL={value} {env} vllm serve {MODEL} {args}")
    assert _logging_config_refusal(verdict) == (
        False, "engine_args", "ea_logging_level_field", "ValidationError", LOG_LEVEL_CHOICES, "LoggingConfig",
        [("literal_error", ("log_level",), value.upper())])


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
@pytest.mark.parametrize("env, args", [
    ("VLLM_CONFIGURE_LOGGING=0", ""),
    ("", "--log-level DEBUG"),
    ("", "--logging-config.log_level DEBUG"),
    ("", "--log-level ERROR --log-config-file /etc/log.json"),
    ("", """--logging-config '{"configure_logging": false}'"""),
    ("VLLM_CONFIGURE_LOGGING=0 VLLM_LOGGING_CONFIG_PATH=/etc/log.json", """--logging-config '{"pylogging_config_file": null}'"""),
])
def test_from_0_31_a_level_logging_config_replaces_or_never_validates_is_accepted(version, env, args):
    assert _examine(version, f"VLLM_LOGGING_LEVEL=NOPE {env} vllm serve {MODEL} {args}").ok


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
def test_from_0_31_an_empty_logging_config_keeps_the_variables_level_for_dict_config(version):
    verdict = _examine(version, f"VLLM_LOGGING_LEVEL=NOPE vllm serve {MODEL} --logging-config '{{}}'")
    assert (verdict.check, verdict.exc_type, verdict.message) == ("FE_logging_level", "ValueError", HANDLER)


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0"])
def test_from_0_31_a_configure_logging_variable_no_integer_stays_undecidable(version):
    with pytest.raises(Undecidable, match="VLLM_CONFIGURE_LOGGING='yes' is no integer"):
        _examine(version, f"VLLM_LOGGING_LEVEL=NOPE VLLM_CONFIGURE_LOGGING=yes vllm serve {MODEL} "
                          "--log-config-file /etc/log.json")


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
