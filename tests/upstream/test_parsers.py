"""Differential test of the tool-call and reasoning parser checks (kvguard.rules.parsers) against real releases.

Generates seeded ``vllm serve`` launches with ``--tool-call-parser`` and ``--reasoning-parser`` naming parsers the
release registers, parsers only other releases register (a recipe for a newer model run on an older release) and
names none does, with and without ``--enable-auto-tool-choice``, sometimes a reasoning parser named by
``--structured-outputs-config`` (the one the API server looks up), ``--headless``, ``--api-server-count`` (below 1:
no API server), ``--grpc`` or ``--skip-tokenizer-init``, and runs each through the release's own ``vllm serve`` path with its front end
(tests/upstream/serve_runner.py with ``"frontend": true``: validate_parsed_serve_args, the API server's
validate_api_server_args, create_engine_config, the engine core's reasoning-parser lookup) and through kvguard with
the oracle's host: the verdicts must agree.  Launches kvguard declares undecidable are counted, never compared.

The runner loads no tokenizer: from 0.20.0 VllmConfig builds the reasoning parser a launch names with the
tokenizer, and a registered parser fails on the missing one ("The model tokenizer must be passed …", an
AttributeError on None, …; the runner marks a failure raised inside ``initialize_token_ids`` other than the
lookup's KeyError).  Such an answer belongs to the harness, not the launch: it is counted as
``harness_no_tokenizer`` when kvguard accepts the launch, and a disagreement otherwise.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.1 0.20.0 0.28.0 0.33.0"); KVG_PARSER_CASES launches
per release (default 24); seed KVG_PARSER_SEED.  Run directly for a full report:
``python -m tests.upstream.test_parsers 0.11.1 0.33.0 --cases 120``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.launch.argv import option_table  # noqa: E402
from kvguard.rules.parsers import registered  # noqa: E402
from kvguard.versions import KNOWN_RELEASES, resolve  # noqa: E402

from . import differential as gen  # noqa: E402
from ._oracle import check_launch_report, flag_switch, launches_main, release_sample  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.1 0.20.0 0.28.0 0.33.0").split()

CHECKPOINTS = {
    "qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"),
    "mistral": gen.gen_mistral,
}
#: names no release registers, and spellings the parsers read specially ("None": optional_type's None for the tool
#: parser; "none": 0.33.0's "no reasoning parser")
ODD = ("x", "None", "none", "qwen4", "Qwen3")


def _names(version: str, kind: str) -> list[str]:
    names = registered(version, kind)
    if names is None:  # 0.10.2 / 0.11.0's reasoning parsers: --reasoning-parser's argparse choices
        names = list(option_table(resolve(version))["--reasoning-parser"].choices or ())
    return names


def _all_names(kind: str) -> list[str]:
    return sorted({name for v in KNOWN_RELEASES for name in (registered(v, kind) or ())})


def _pick(rng, own: list[str], everyone: list[str]) -> str:
    draw = rng.random()
    if draw < 0.45:
        return rng.choice(own)
    others = [name for name in everyone if name not in own]
    if draw < 0.8 and others:
        return rng.choice(others)
    return rng.choice(ODD)


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    tools, reasoners = _names(version, "tool"), _names(version, "reasoning")
    all_tools, all_reasoners = _all_names("tool"), _all_names("reasoning")
    names = sorted(CHECKPOINTS)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        args = flag_switch(rng, table, "enable-auto-tool-choice", ("on", "on", "off", "default"))
        if rng.random() < 0.8:
            args += ["--tool-call-parser", _pick(rng, tools, all_tools)]
        if rng.random() < 0.6:
            args += ["--reasoning-parser", _pick(rng, reasoners, all_reasoners)]
        if rng.random() < 0.25 and "--structured-outputs-config" in table:
            # the API server looks up this JSON's parser (not --reasoning-parser's)
            parser = _pick(rng, reasoners, all_reasoners)
            args += ["--structured-outputs-config", json.dumps({"reasoning_parser": parser})]
        headless = rng.random() < 0.15
        if headless:
            args += ["--headless"]
        if rng.random() < 0.25:
            # fewer than one API server runs no API server, as --headless (an explicit count with --headless is
            # refused from 0.20.0, not modelled: not drawn)
            args += ["--api-server-count", rng.choice(("0", "-1")) if headless else rng.choice(("0", "0", "1", "2"))]
        if rng.random() < 0.1 and "--grpc" in table:
            args += ["--grpc"]   # the gRPC server's optional package: kvguard declines (counted, never compared)
        if rng.random() < 0.1:
            args += ["--skip-tokenizer-init"]
        ident = f"p{i}"
        cases.append({"id": ident, "target": name, "config": CHECKPOINTS[name](rng), "frontend": True,
                      "model_dir": os.path.join(root, ident), "args": args})
    return cases


def run(version: str, n: int, seed: int) -> dict:
    """compare_launches' comparison (tests/upstream/test_speculative.py), the harness's tokenizer-less failures
    counted apart."""
    from collections import Counter

    from ._oracle import oracle_or_skip, run_runner
    from .test_speculative import _kvguard_outcome, _oracle_outcome

    python, python_env = oracle_or_skip(version)
    root = tempfile.mkdtemp(prefix="kvg-parsers-")
    try:
        cases = generate(seed, n, version, root)
        for case in cases:
            os.makedirs(case["model_dir"], exist_ok=True)
            Path(case["model_dir"], "config.json").write_text(json.dumps(case["config"]))
        env = dict(python_env, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
                   KVG_ORACLE_INSPECT=os.environ.get("KVG_ORACLE_INSPECT", "inprocess"),
                   KVG_ORACLE_TORCHVISION=os.environ.get("KVG_ORACLE_TORCHVISION", "stub"))
        records = {r["id"]: r for r in run_runner("serve_runner.py", python, env, cases)}
        counts: Counter = Counter()
        mismatches, undecidable = [], []
        for case in cases:
            rec = records[case["id"]]
            want = _oracle_outcome(rec)
            if "failed to be inspected" in (want.get("message") or ""):
                counts["oracle_env_failures"] += 1
                continue
            got = _kvguard_outcome(case, version)
            if "undecidable" in got:
                counts["undecidable"] += 1
                undecidable.append({"id": case["id"], "args": case["args"], "reason": got["undecidable"],
                                    "oracle": want})
                continue
            if rec.get("harness") == "no_tokenizer" and got == {"ok": True}:
                # the release took the launch's parser names; kvguard accepts the launch (else: a disagreement)
                counts["harness_no_tokenizer"] += 1
                continue
            key = "accepted" if want.get("ok") else ("argparse" if "argparse" in want else "refused")
            if got == want:
                counts["agree"] += 1
                counts[f"agree_{key}"] += 1
            else:
                counts["disagree"] += 1
                mismatches.append({"id": case["id"], "target": case["target"], "args": case["args"],
                                   "oracle": want, "kvguard": got})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"version": version, "seed": seed, "counts": dict(counts), "mismatches": mismatches,
            "undecidable": undecidable}


@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.10.2", also=("0.11.1", "0.20.0", "0.28.0")))
def test_parser_checks_agree_with_real_vllm(version):
    report = run(version, int(os.environ.get("KVG_PARSER_CASES", "24")), int(os.environ.get("KVG_PARSER_SEED", "0")))
    check_launch_report(report, "parsers", "tool-call / reasoning parsers")


if __name__ == "__main__":
    launches_main(__doc__, run)
