"""VLLM_LOGGING_LEVEL (FE_logging_level) and 0.13.0 - 0.14.1's parser-time VLLM_ATTENTION_BACKEND check against the
releases' own serve path (tests/upstream/serve_runner.py: each case's environment, logging applied as ``vllm serve``
applies it).

Each case's verdict must agree with the oracle's (stage, exception type, message; argparse's refusal as a refusal at
that stage), or kvguard must say it cannot decide where the oracle refuses or accepts.  A refusal kvguard renders
that the oracle does not give, or an acceptance the oracle refuses, fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from packaging.version import Version

from kvguard import catalog

from ._oracle import oracle_or_skip, release_sample, serve_kvguard_answer, serve_oracle_answer, serve_records

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.13.0 0.30.0 0.31.0 0.33.0").split()
#: CI's sample of KVG_ORACLE_VERSIONS (~28 s a release): the first, the parser-time check's 0.13.0, the last release
#: that configures logging at import and the first that does it after argparse, and the last
SAMPLE = release_sample(VERSIONS, "0.10.2", also=("0.13.0", "0.30.0", "0.31.0"))
MODEL = "Qwen/Qwen3-8B"

#: (id, arguments, environment); the logging config file is written by the test
CASES = (
    ("unknown", [], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("lowercase", [], {"VLLM_LOGGING_LEVEL": "debug"}),
    ("empty", [], {"VLLM_LOGGING_LEVEL": ""}),
    ("number", [], {"VLLM_LOGGING_LEVEL": "10"}),
    ("warn", [], {"VLLM_LOGGING_LEVEL": "warn"}),
    ("logging-off", [], {"VLLM_LOGGING_LEVEL": "NOPE", "VLLM_CONFIGURE_LOGGING": "0"}),
    ("config-file", [], {"VLLM_LOGGING_LEVEL": "NOPE", "VLLM_LOGGING_CONFIG_PATH": "{file}"}),
    ("bad-argument", ["--max-model-len", "abc"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("backend-unknown", [], {"VLLM_ATTENTION_BACKEND": "NOT_A_BACKEND"}),
    ("backend-and-level", [], {"VLLM_ATTENTION_BACKEND": "NOT_A_BACKEND", "VLLM_LOGGING_LEVEL": "NOPE"}),
)
#: 0.31.0+ (run there only: before, argparse refuses the options, and each case costs a fresh import): LoggingConfig's
#: log_level from the variable, validated where dataclasses.replace rebuilds LoggingConfig
LOGGING_CONFIG_CASES = (
    ("log-level-flag", ["--log-level", "DEBUG"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("log-config-file", ["--log-config-file", "{file}"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("log-config-file-missing", ["--log-config-file", "/srv/kvguard-missing/log.json"], {"VLLM_LOGGING_LEVEL": "warn"}),
    ("log-config-file-logging-off", ["--log-config-file", "{file}"],
     {"VLLM_LOGGING_LEVEL": "", "VLLM_CONFIGURE_LOGGING": "0"}),
    ("log-config-file-and-level", ["--log-level", "ERROR", "--log-config-file", "{file}"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("logging-config-off", ["--logging-config", '{"configure_logging": false}'], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("logging-config-empty", ["--logging-config", "{}"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("logging-config-level", ["--logging-config.log_level", "INFO"], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("logging-config-file", ["--logging-config", '{"pylogging_config_file": "{file}"}'], {"VLLM_LOGGING_LEVEL": "NOPE"}),
    ("config-file-warn", ["-tp", "3"], {"VLLM_LOGGING_LEVEL": "WARN", "VLLM_LOGGING_CONFIG_PATH": "{file}"}),
    ("config-file-empty-logging-off", [], {"VLLM_LOGGING_LEVEL": "FATAL", "VLLM_CONFIGURE_LOGGING": "0",
                                           "VLLM_LOGGING_CONFIG_PATH": ""}),
    ("logging-config-empty-file", ["--logging-config", '{"pylogging_config_file": ""}'], {"VLLM_LOGGING_LEVEL": "warn"}),
    ("config-file-null", ["--logging-config", '{"pylogging_config_file": null}'],
     {"VLLM_LOGGING_LEVEL": "NOPE", "VLLM_LOGGING_CONFIG_PATH": "{file}", "VLLM_CONFIGURE_LOGGING": "0"}),
)


@pytest.mark.parametrize("version", SAMPLE)
def test_logging_level_and_parser_backend_agree(version, tmp_path):
    python, python_env = oracle_or_skip(version)
    config_file = tmp_path / "logging.json"
    config_file.write_text(json.dumps({"version": 1, "disable_existing_loggers": False}))
    config = {e.id: e.config for e in catalog.entries()}[MODEL]
    cases = []
    for case_id, args, env in CASES + (LOGGING_CONFIG_CASES if Version(version) >= Version("0.31.0") else ()):
        env = {name: value.replace("{file}", str(config_file)) for name, value in env.items()}
        args = [word.replace("{file}", str(config_file)) for word in args]
        cases.append({"id": case_id, "args": args, "env": env, "logging": True, "config": config,
                      "model_dir": str(tmp_path / case_id)})
    for case in cases:
        Path(case["model_dir"]).mkdir()
    records = serve_records(python, python_env, cases)
    counts = {"agree": 0, "undecided": 0}
    disagree = []
    for case in cases:
        want = serve_oracle_answer(records[case["id"]])
        got = serve_kvguard_answer(version, [f"{name}={value}" for name, value in case["env"].items()]
                                   + ["vllm", "serve", MODEL, *case["args"]])
        if got == ("undecidable",):
            counts["undecided"] += 1
        elif got == want:
            counts["agree"] += 1
        else:
            disagree.append((case["id"], got, want))
    print(f"logging level / parser backend on {version}: agree {counts['agree']} / undecided "
          f"{counts['undecided']} / disagree {len(disagree)}")
    assert not disagree
    assert counts["agree"] >= 6      # the rendered refusals and acceptances are compared, not all undecided
