"""Differential test of the KV connector checks (kvguard.rules.kv_transfer) against real releases.

Generates seeded ``vllm serve`` launches with ``--kv-transfer-config`` naming a connector the release registers (in
every role, some with a port, an engine id or extra settings), now and then one it does not register or a connector
without a role (undecidable for kvguard), ``PYTORCH_CUDA_ALLOC_CONF`` unset, with ``expandable_segments:True`` (alone
or among other settings) or ``:False``, ``--enable-cumem-allocator`` (0.22.0+), ``--enforce-eager`` and the user's
choice of the hybrid KV cache manager; some launches add an option refused earlier (--config-format), later (-tp 3)
or after the CUDA graph mode is resolved (--enable-dbo, an unregistered --reasoning-parser, from 0.31.0
--enable-return-routed-experts on this dense model: between VllmConfig's two lookups of an unregistered connector,
0.22.0+) to pin the position in the release's order.  The oracle's CPU platform has no static graphs, so
its VllmConfig never makes the CUDA graph lookup: kvguard, told the host, decides those launches as on a CPU host
(on a GPU host only with --enforce-eager), and an unregistered connector's refusal at the engine's start (before
0.22.0, or with the hybrid manager chosen) stays undecidable, the runner stopping before the engine.  Each runs through
the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and through kvguard with the oracle's host;
the verdicts must agree.  The sleep-mode branch (0.33.0) is not reached on the CPU oracle, whose platform refuses
sleep mode first: tests/test_kv_transfer.py states it by hand.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.21.0 0.22.0 0.33.0"); KVG_KV_TRANSFER_CASES launches
per release (default 12); seed KVG_KV_TRANSFER_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``kv-transfer-<release>.json``.
Run directly for a full report: ``python -m tests.upstream.test_kv_transfer 0.21.0 0.33.0 --cases 40``.
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

from kvguard.rules.kv_transfer import DECIDED, REGISTERED  # noqa: E402
from kvguard.versions import resolve  # noqa: E402

from ._oracle import generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.21.0 0.22.0 0.33.0").split()

ALLOC = (None, None, "expandable_segments:True", "expandable_segments:True", "expandable_segments:False",
         "max_split_size_mb:128,expandable_segments:True", "garbage_collection_threshold:0.6")
EARLIER = (["--config-format", "x"],)
LATER = (["-tp", "3"], ["--enable-dbo"], ["--reasoning-parser", "nosuch"], ["--enable-return-routed-experts"])


def _transfer_config(rng: random.Random, release) -> dict:
    names = [name for name, since, until in REGISTERED if release.within(since, until)]
    decided = [name for name in names if name in DECIDED]
    data: dict = {"kv_connector": rng.choice(decided if rng.random() < 0.8 else names), "kv_role": rng.choice(("kv_producer", "kv_consumer", "kv_both"))}
    draw = rng.random()
    if draw < 0.2:
        data["kv_connector"] = "NoSuchConnector"
    elif draw < 0.25:
        # a connector an earlier release registered (kvguard.rules.kv_transfer.REGISTERED)
        gone = [name for name, _since, until in REGISTERED if until is not None and not release.within(None, until)]
        data["kv_connector"] = rng.choice(gone or ["NoSuchConnector"])
    elif draw < 0.28:
        del data["kv_role"]
    if rng.random() < 0.3:
        data["kv_port"] = rng.choice((14580, 20001))
    if rng.random() < 0.2:
        data["engine_id"] = "engine-0"
    if rng.random() < 0.2:
        data["kv_connector_extra_config"] = {"backends": ["UCX"]}
    return data


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    release = resolve(version)
    os.makedirs(root, exist_ok=True)
    cases = []
    for i in range(n):
        args = ["--kv-transfer-config", json.dumps(_transfer_config(rng, release))]
        env: dict[str, str] = {}
        alloc = rng.choice(ALLOC)
        if alloc is not None:
            env["PYTORCH_CUDA_ALLOC_CONF"] = alloc
        if release.within("0.22.0") and rng.random() < 0.25:
            args.append("--enable-cumem-allocator")
        if rng.random() < 0.2:
            args.append("--enforce-eager")
        if rng.random() < 0.2:
            # the user's choice of the hybrid KV cache manager (its negation's spelling: the release's)
            args.append(rng.choice(("--disable-hybrid-kv-cache-manager", "--disable-hybrid-kv-cache-manager",
                                    "--enable-hybrid-kv-cache-manager" if release.within("0.33.0")
                                    else "--no-disable-hybrid-kv-cache-manager")))
        draw = rng.random()
        if draw < 0.15:
            args += rng.choice(EARLIER)
        elif draw < 0.4:
            args += rng.choice(LATER)
        extra: dict = {"env": env} if env else {}
        if "--reasoning-parser" in args:
            # the engine core's parser lookup (0.13.0 - 0.19.1) is one of the front end's checks in the runner
            extra["frontend"] = True
        cases.append(launch_case(root, f"k{i}", "qwen3-8b", _config("Qwen/Qwen3-8B"), args, **extra))
    return cases


run = generated_launches("kvg-kv-transfer-", generate)

test_kv_transfer_agrees_with_real_vllm = launch_differential(
    run, kind="kv-transfer", label="KV connector checks (--kv-transfer-config, PYTORCH_CUDA_ALLOC_CONF)",
    cases=("KVG_KV_TRANSFER_CASES", 12), seed="KVG_KV_TRANSFER_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.21.0", "0.22.0", "0.22.1"))


if __name__ == "__main__":
    launches_main(__doc__, run)
