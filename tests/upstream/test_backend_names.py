"""Differential test of ``--attention-backend``'s name (kvguard.rules.backend_names) against real releases.

Generates seeded ``vllm serve`` launches with ``--attention-backend`` naming one of the release's backends (in any
case), ``auto``, a name of another release or none at all, sometimes with ``--attention-config`` setting a backend too,
and runs each through the release's own ``vllm serve`` path (tests/upstream/serve_runner.py) and through kvguard with
the oracle's host: the verdicts must agree.  Launches kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS from 0.13.0 (default "0.13.0 0.18.0 0.20.0 0.33.0"); KVG_BACKEND_CASES
launches per release (default 16); seed KVG_BACKEND_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps
``backend-names-<release>.json``.  Run directly for a full report:
``python -m tests.upstream.test_backend_names 0.13.0 0.33.0 --cases 60``.
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

from . import differential as gen  # noqa: E402
from ._oracle import (  # noqa: E402
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.13.0 0.18.0 0.20.0 0.33.0").split()
MEASURED = json.loads((HERE.parents[1] / "kvguard" / "data" / "backend_names.json").read_text())["releases"]
#: names some release defines, of any era (V0's suffixes, backends added or dropped later)
OTHERS = ("FLASH_ATTN_VLLM_V1", "XFORMERS", "TORCH_SDPA", "FLASH_ATTN_DIFFKV", "CPU_ATTN", "TURBOQUANT", "PALLAS",
          "IPEX", "nope", "")
CHECKPOINTS = {"qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"), "mistral": gen.gen_mistral}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    names = MEASURED[version]["names"]
    cases = []
    for i in range(n):
        name = rng.choice(sorted(CHECKPOINTS))
        draw = rng.random()
        if draw < 0.45:
            backend = rng.choice(names)
            backend = backend.lower() if rng.random() < 0.3 else backend
        elif draw < 0.6:
            backend = rng.choice(("auto", "AUTO", "Auto"))
        else:
            backend = rng.choice(OTHERS)
        args = ["--attention-backend", backend]
        if rng.random() < 0.15:
            args += ["--attention-config", json.dumps({"backend": rng.choice(names[:3])})]
        ident = f"b{i}"
        cases.append(launch_case(root, ident, name, CHECKPOINTS[name](rng), args))
    return cases


run = generated_launches("kvg-backends-", generate)


test_attention_backend_names_agree_with_real_vllm = launch_differential(
    run, kind="backend-names", label="--attention-backend names",
    cases=("KVG_BACKEND_CASES", 16), seed="KVG_BACKEND_SEED",
    versions=VERSIONS, since="0.13.0", also=("0.18.0", "0.20.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
