"""Differential test of the host-fact options (kvguard.rules.host_options) against real releases.

Generates seeded ``vllm serve`` launches with ``--enable-sleep-mode`` (or its negative), ``--enable-cumem-allocator``
(0.22.0+), ``--device-ids`` lists (0.24.0+: duplicates, integer ids and UUID-like words mixed, ``-1``, ``01``, empty
items, with the CPU platform's device-control variable set now and then), ``--kda-prefill-backend`` (0.30.0+: its
CUDA-only and ROCm-only kernels, sometimes behind an OffloadConfig refusal) and a logging configuration
(VLLM_CONFIGURE_LOGGING, VLLM_LOGGING_CONFIG_PATH and, from 0.31.0, ``--logging-config``'s configure_logging and
pylogging_config_file, null included, and ``--log-config-file``: a file that exists, a valid dictConfig, or one that
is missing where logging configuration is off, refused before the file is looked for); some launches add an option
refused earlier (--config-format, --data-parallel-backend) or later (-tp 3, --max-model-len) to pin the position in
the release's order.  Each runs through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and
through kvguard with the oracle's host (the CPU platform: the branch that refuses sleep mode, the cumem allocator and
a UUID); the verdicts must agree.  A host file kvguard skips (the logging config) is accepted by both when it exists.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.22.0 0.24.0 0.33.0"); KVG_HOST_CASES launches per release
(default 16); seed KVG_HOST_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``host-options-<release>.json``.  Run directly for a
full report: ``python -m tests.upstream.test_host_options 0.10.2 0.33.0 --cases 40``.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.versions import resolve  # noqa: E402

from ._oracle import (  # noqa: E402
    check_launch_report,
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
    release_sample,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.22.0 0.24.0 0.33.0").split()

DEVICE_ITEMS = ("0", "1", "2", "01", " 3", "-1", "GPU-1a2b", "x", "")
KDA = ("auto", "triton", "flashkda", "flashinfer", "fused")
EARLIER = (["--config-format", "x"], ["--data-parallel-backend", "x"])
LATER = (["-tp", "3"], ["--max-model-len", "10000000"])


def _sleep(rng, release) -> list[str]:
    if rng.random() < 0.8:
        return ["--enable-sleep-mode"]
    return ["--disable-sleep-mode" if release.within("0.33.0") else "--no-enable-sleep-mode"]


def _logging(rng, release, existing: str, missing: str) -> tuple[list[str], dict[str, str]]:
    """A logging configuration: VLLM_CONFIGURE_LOGGING and VLLM_LOGGING_CONFIG_PATH, from 0.31.0 also
    --logging-config's configure_logging / pylogging_config_file (null included) and --log-config-file.  A file that
    may be read while logging is configured exists (kvguard skips a missing one); one named while logging is off may
    be missing (refused before it is looked for)."""
    env: dict[str, str] = {}
    args: list[str] = []
    off = rng.random() < 0.6
    if rng.random() < 0.7:
        env["VLLM_CONFIGURE_LOGGING"] = rng.choice(("0", "00", "-0")) if off else rng.choice(("1", "2"))
    if rng.random() < 0.7:
        off_for_sure = off and "VLLM_CONFIGURE_LOGGING" in env
        env["VLLM_LOGGING_CONFIG_PATH"] = rng.choice((existing, missing)) if off_for_sure else existing
    if release.within("0.31.0"):
        if rng.random() < 0.3:
            args += ["--logging-config.configure_logging", rng.choice(("false", "true", "0", "off", "yes"))]
            if env.get("VLLM_LOGGING_CONFIG_PATH") == missing:
                env["VLLM_LOGGING_CONFIG_PATH"] = existing     # configuration may end up on
        if rng.random() < 0.3:
            args += ["--logging-config", '{"pylogging_config_file": null}']
        elif rng.random() < 0.3:
            args += ["--logging-config.pylogging_config_file", existing]
        if rng.random() < 0.2:
            args += ["--log-config-file", existing]
    if rng.random() < 0.3:
        args += _sleep(rng, release)
    return args, env


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    release = resolve(version)
    os.makedirs(root, exist_ok=True)
    logging_file = os.path.join(root, "logging.json")
    Path(logging_file).write_text(json.dumps({"version": 1, "disable_existing_loggers": False}))
    cases = []
    for i in range(n):
        args: list[str] = []
        env: dict[str, str] = {}
        extra_logging = False
        kind = rng.choice(("sleep", "cumem", "device", "device", "logging", "logging", "kda"))
        if kind == "kda" and not release.within("0.30.0"):
            kind = "device"
        if kind == "cumem" and not release.within("0.22.0"):
            kind = "sleep"
        if kind == "device" and not release.within("0.24.0"):
            kind = "sleep"
        if kind == "sleep":
            args += _sleep(rng, release)
            if release.within("0.22.0") and rng.random() < 0.3:
                args += ["--enable-cumem-allocator"]
        elif kind == "cumem":
            args += ["--enable-cumem-allocator"]
            if rng.random() < 0.4:
                args += _sleep(rng, release)
        elif kind == "device":
            count = rng.choice((1, 2, 2, 3))
            args += ["--device-ids", ",".join(rng.choice(DEVICE_ITEMS) for _ in range(count))]
            if rng.random() < 0.25:
                env["CPU_VISIBLE_MEMORY_NODES"] = rng.choice(("0", "0,1", "x"))
        elif kind == "kda":
            args += ["--kda-prefill-backend", rng.choice(KDA)]
            if rng.random() < 0.25:
                args += ["--offload-backend", "prefetch", "--offload-group-size", "1", "--offload-num-in-group", "2"]
        else:
            args, env = _logging(rng, release, logging_file, os.path.join(root, "missing.json"))
            extra_logging = True
        draw = rng.random()
        if draw < 0.2:
            args += rng.choice(EARLIER)
        elif draw < 0.4:
            args += rng.choice(LATER)
        extra: dict = {"env": env} if env else {}
        if extra_logging:
            extra["logging"] = True
        cases.append(launch_case(root, f"h{i}", "qwen3-8b", _config("Qwen/Qwen3-8B"), args, **extra))
    return cases


run = generated_launches("kvg-host-", generate)

test_host_options_agree_with_real_vllm = launch_differential(
    run, kind="host-options", label="host-fact options (sleep mode, cumem allocator, --device-ids, KDA prefill kernel, logging file)",
    cases=("KVG_HOST_CASES", 16), seed="KVG_HOST_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.22.0", "0.24.0"))


#: logging configurations written out (args, env; "FILE": a dictConfig that exists, "MISSING": no such file), with
#: what each pins: the file refused before it is looked for, null replacing the variable, the import-time check
#: before argparse (to 0.30.0) or after it (0.31.0+), the logging refusal before every engine check
LOGGING_LAUNCHES = (
    ([], {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "MISSING"}),
    (["--no-such-option"], {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "MISSING"}),
    (["-tp", "3", "--enable-sleep-mode"], {"VLLM_CONFIGURE_LOGGING": "00", "VLLM_LOGGING_CONFIG_PATH": "FILE"}),
    ([], {"VLLM_CONFIGURE_LOGGING": "0"}),
    ([], {"VLLM_CONFIGURE_LOGGING": "1", "VLLM_LOGGING_CONFIG_PATH": "FILE"}),
)
#: the same with a model ModelConfig refuses (an architecture no release registers): to 0.30.0 the refusal when vLLM
#: is imported comes before the model is resolved; without a logging file the model's refusal shows
LOGGING_UNREGISTERED_MODEL = (
    ([], {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "MISSING"}),
    ([], {"VLLM_CONFIGURE_LOGGING": "0"}),
)
LOGGING_LAUNCHES_31 = (
    (["--logging-config", '{"pylogging_config_file": null}'],
     {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "MISSING"}),
    (["--logging-config.configure_logging", "false", "--logging-config.pylogging_config_file", "MISSING"], {}),
    (["--logging-config.configure_logging", "off", "--log-config-file", "MISSING"], {}),
    (["--logging-config.configure_logging", "yes"], {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "FILE"}),
    (["--log-config-file", ""], {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": "MISSING"}),
)


def logging_launches(version: str, root: str) -> list[dict]:
    release = resolve(version)
    os.makedirs(root, exist_ok=True)
    existing = os.path.join(root, "logging.json")
    Path(existing).write_text(json.dumps({"version": 1, "disable_existing_loggers": False}))
    names = {"FILE": existing, "MISSING": os.path.join(root, "missing.json")}
    written = LOGGING_LAUNCHES + (LOGGING_LAUNCHES_31 if release.within("0.31.0") else ())
    unregistered = dict(_config("Qwen/Qwen3-8B"), architectures=["NoSuchModelForCausalLM"])
    return [launch_case(root, f"l{i}", "qwen3-8b", _config("Qwen/Qwen3-8B"), [names.get(a, a) for a in args],
                        env={k: names.get(v, v) for k, v in env.items()}, logging=True)
            for i, (args, env) in enumerate(written)] + [
        launch_case(root, f"u{i}", "unregistered", unregistered, [names.get(a, a) for a in args],
                    env={k: names.get(v, v) for k, v in env.items()}, logging=True)
        for i, (args, env) in enumerate(LOGGING_UNREGISTERED_MODEL)]


@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.10.2", also=("0.24.0",)))
def test_logging_configurations_agree_with_real_vllm(version):
    report = generated_launches("kvg-logging-", lambda seed, n, release, root: logging_launches(release, root))(
        version, 0, 0)
    check_launch_report(report, "host-logging", "logging configurations")
    assert report["counts"].get("undecidable", 0) == 0, report["undecidable"]


if __name__ == "__main__":
    launches_main(__doc__, run)
