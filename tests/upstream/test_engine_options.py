"""Differential test of the engine options kvguard.rules.engine_options models, against real releases.

Generates seeded ``vllm serve`` launches of a dense model with ``--config-format`` (registered parsers, names that are
none, rarely ``mistral``), ``--hf-config-path``, ``--distributed-executor-backend`` (the built-in names and names
without a dot; rarely a dotted one; sizes that leave the world below 1), microbatching (``--enable-dbo``, ``--ubatch-size``, ``--all2all-backend``, the DBO
thresholds), OffloadConfig's prefetch options (``--offload-backend``, ``--offload-group-size``,
``--offload-num-in-group``, ``--offload-prefetch-step``), ``--kv-offloading-backend`` / ``--kv-offloading-size`` and
the deprecated structured-output switches (0.10.2 - 0.11.2: ``--guided-decoding-disable-any-whitespace`` /
``--guided-decoding-disable-additional-properties`` with ``--guided-decoding-backend`` or, 0.11.x, the backend of
``--structured-outputs-config``), each drawn only on releases that define the option, and runs each through the release's own ``vllm serve`` path
(tests/upstream/serve_runner.py) and through kvguard with the oracle's host: the verdicts must agree.  Launches kvguard
declares undecidable (``mistral``, ``--hf-config-path``, a dotted executor name, any other executor name before
0.19.0, whose engine resolves it after the configuration, values below pydantic's bounds) are counted, never
compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.1 0.20.0 0.24.0 0.33.0"); KVG_ENGINE_OPTIONS_CASES
launches per release (default 16); seed KVG_ENGINE_OPTIONS_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps
``engine-options-<release>.json``.  Run directly for a full report:
``python -m tests.upstream.test_engine_options 0.11.1 0.33.0 --cases 40``.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.launch.argv import option_table  # noqa: E402
from kvguard.versions import resolve  # noqa: E402

from ._oracle import flag_switch, generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.1 0.20.0 0.24.0 0.33.0").split()

TARGET = "Qwen/Qwen3-8B"
FORMATS = ("auto", "hf", "x", "HF", "json", "gguf")
EXECUTORS = ("mp", "uni", "x", "1", "my_executor", "MP")
#: (negative values: ParallelConfig's Field(ge=0), 0.23.0+)
UBATCH_SIZES = ("0", "1", "2", "3", "64", "65536", "-1")
THRESHOLDS = ("0", "1", "2", "32", "4096", "-2")
#: argparse's type=bool of 0.11.x's switches: any word but "" is true
BOOL_WORDS = ("true", "false", "1", "0", "")
SWITCHES = ("--guided-decoding-disable-any-whitespace", "--guided-decoding-disable-additional-properties")
SO_BACKENDS = ("auto", "xgrammar", "guidance", "outlines")
#: PrefetchOffloadConfig's bounds too: a group size below 0, fewer than 1 in a group, a step below 0
GROUP_SIZES = ("0", "1", "2", "4", "-1")
IN_GROUP = ("1", "2", "3", "0")
STEPS = ("0", "1", "2", "-1")


def _choices(table: dict, option: str) -> list[str]:
    spec = table.get(option)
    return list(spec.choices or ()) if spec is not None else []


def _guided(rng, table: dict) -> list[str]:
    """The deprecated switches: 0.10.2's BooleanOptionalAction pairs, 0.11.x's type=bool words; a backend."""
    args: list[str] = []
    for switch in SWITCHES:
        if rng.random() < 0.6:
            if table[switch].nargs == 0:
                args += [rng.choice((switch, "--no-" + switch[2:]))]
            else:
                args += [switch, rng.choice(BOOL_WORDS)]
    if not args:
        args += [SWITCHES[0]] if table[SWITCHES[0]].nargs == 0 else [SWITCHES[0], "1"]
    if rng.random() < 0.5:
        args += ["--guided-decoding-backend", rng.choice(_choices(table, "--guided-decoding-backend") or SO_BACKENDS)]
    if "--structured-outputs-config" in table and rng.random() < 0.5:
        args += ["--structured-outputs-config", '{"backend": "%s"}' % rng.choice(SO_BACKENDS)]
    if rng.random() < 0.2:
        args += ["-tp", rng.choice(("2", "3"))]
    return args


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    cases = []
    for i in range(n):
        args: list[str] = []
        families = ("config", "executor", "ubatch", "ubatch", "offload", "offload")
        if SWITCHES[0] in table:
            families += ("guided",) * 6
        family = rng.choice(families)
        if family == "guided":
            args += _guided(rng, table)
        elif family == "config":
            if rng.random() < 0.8:
                args += ["--config-format", rng.choice(FORMATS + ("mistral",) * (rng.random() < 0.1))]
            if rng.random() < 0.2 or not args:
                args += ["--hf-config-path", rng.choice(("x", "1", "org/missing"))]
        elif family == "executor":
            if rng.random() < 0.7:
                name = rng.choice(EXECUTORS) if rng.random() < 0.9 else "my.pkg.Executor"
                args += ["--distributed-executor-backend", name]
            if rng.random() < 0.4 or not args:
                # a world size below 1 leaves ParallelConfig's backend unset (0.19.0 - 0.22.1)
                args += rng.choice((["-tp", "1"], ["-tp", "2"], ["-tp", "-1"], ["-pp", "0"], ["-tp", "-1", "-dp", "-2"]))
        elif family == "ubatch":
            args += flag_switch(rng, table, "enable-dbo", ("on", "off", "default", "default"))
            if "--ubatch-size" in table and rng.random() < 0.8:
                args += ["--ubatch-size", rng.choice(UBATCH_SIZES)]
            backends = _choices(table, "--all2all-backend")
            if backends and rng.random() < 0.4:
                args += ["--all2all-backend", rng.choice(backends)]
            for option in ("--dbo-decode-token-threshold", "--dbo-prefill-token-threshold"):
                if option in table and rng.random() < 0.25:
                    args += [option, rng.choice(THRESHOLDS)]
            if not args and "--enable-dbo" in table:
                args += ["--enable-dbo"]
        else:
            if "--offload-backend" in table:
                if rng.random() < 0.7:
                    args += ["--offload-backend", rng.choice(_choices(table, "--offload-backend"))]
                for option, values in (("--offload-group-size", GROUP_SIZES), ("--offload-num-in-group", IN_GROUP),
                                       ("--offload-prefetch-step", STEPS)):
                    if rng.random() < 0.4:
                        args += [option, rng.choice(values)]
            if "--kv-offloading-backend" in table and (rng.random() < 0.4 or not args):
                args += ["--kv-offloading-backend", rng.choice(("native", "lmcache"))]
                # (a size gives the offloading connector, whose set-up imports host libraries on some releases)
                if rng.random() < 0.3 and not resolve(version).within("0.14.0"):
                    args += ["--kv-offloading-size", rng.choice(("1", "2.5"))]
        ident = f"e{i}"
        cases.append(launch_case(root, ident, TARGET, _config(TARGET), args))
    return cases


#: a ValidationError's entries are compared too (PrefetchOffloadConfig's bounds, in declaration order)
run = generated_launches("kvg-engine-options-", generate, errors=True)


test_engine_options_agree_with_real_vllm = launch_differential(
    run, kind="engine-options",
    label="engine options (config format, executor, microbatching, offloading, structured-output switches)",
    cases=("KVG_ENGINE_OPTIONS_CASES", 16), seed="KVG_ENGINE_OPTIONS_SEED", versions=VERSIONS, since="0.10.2",
    also=("0.11.1", "0.20.0", "0.24.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
