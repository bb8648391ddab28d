"""Differential test of the option values whose config a release builds only for some launches, against real releases.

``EngineArgs.create_engine_config`` builds LoRAConfig only with ``--enable-lora`` (0.10.2-0.33.0), and
``ModelConfig.__post_init__`` builds MultiModalConfig only for a model whose class supports multimodal input
(0.11.0-0.33.0): a value outside such a config's field bounds (``--max-loras 0``, ``--mm-processor-cache-gb -1``,
``--video-pruning-rate 2``) is refused, with pydantic's message, only where the config is built, and a launch without
it starts.  The generator draws the LoRA and multimodal options the release's option table bounds (``b``), with a
value inside or outside the bounds, with and without ``--enable-lora``, on a text model (Qwen3-8B) and a multimodal
one (a Qwen2.5-VL checkpoint), and runs each through the release's own serve path
(tests/upstream/serve_runner.py) and through kvguard with the oracle's host: the verdicts must agree (launches
kvguard declares undecidable are counted, never compared).

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.11.1 0.20.0 0.33.0"); KVG_GATED_CASES launches per release
(default 24); seed KVG_GATED_SEED.  Run directly for a full report:
``python -m tests.upstream.test_gated_configs 0.11.1 0.33.0 --cases 60``.
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

from . import differential as gen  # noqa: E402
from ._oracle import (  # noqa: E402
    flag_switch,
    generated_launches,
    launch_case,
    launch_differential,
    launches_main,
)
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.11.1 0.20.0 0.33.0").split()

CHECKPOINTS = {
    "qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"),
    "qwen2.5-vl": gen.gen_qwen2_5_vl,
}
#: the options drawn: LoRAConfig's and MultiModalConfig's fields the option table bounds (those a release lacks are
#: left out per release)
LORA = ("--max-loras", "--max-lora-cls-labels")
MULTIMODAL = ("--mm-processor-cache-gb", "--mm-shm-cache-max-object-size-mb", "--video-pruning-rate",
              "--mm-ipc-gpu-memory-gb", "--mm-encoder-fp8-scale-save-margin", "--mm-encoder-attn-backend",
              "--mm-encoder-attn-dtype")
#: per option: values outside its field's bounds, then values inside (no negative number with a fraction: the
#: release's parser reads "-0.5" as a dotted option -0 with key 5, and kvguard's launch names the model positionally
#: where the runner passes --model, so argparse's two messages differ)
VALUES = {
    "--max-loras": (("0", "-1"), ("1", "4")),
    "--max-lora-cls-labels": (("0", "-2"), ("1", "8")),
    "--mm-processor-cache-gb": (("-1", "-3"), ("0", "8")),
    "--mm-shm-cache-max-object-size-mb": (("-1",), ("0", "128", "64")),
    "--video-pruning-rate": (("1.5", "-1", "1"), ("0", "0.5")),
    "--mm-ipc-gpu-memory-gb": (("-1",), ("0", "2")),
    "--mm-encoder-fp8-scale-save-margin": (("0", "-1"), ("1.5",)),
    "--mm-encoder-attn-backend": (("x", "NOPE"), ("TORCH_SDPA", "flash_attn")),
    "--mm-encoder-attn-dtype": (("fp16", "x"), ("fp8",)),
}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    options = [opt for opt in LORA + MULTIMODAL if opt in table]
    names = sorted(CHECKPOINTS)
    cases = []
    for i in range(n):
        name = rng.choice(names)
        args = flag_switch(rng, table, "enable-lora", ("on", "off", "default", "default"))
        for opt in rng.sample(options, rng.choice((1, 1, 2))):
            bad, good = VALUES[opt]
            args += [opt, rng.choice(bad if rng.random() < 0.75 else good)]
        if "--mm-shm-cache-max-object-size-mb" in args and rng.random() < 0.5:
            args += ["--mm-processor-cache-type", rng.choice(("shm", "lru"))]   # the size needs the shm cache
        ident = f"g{i}"
        cases.append(launch_case(root, ident, name, CHECKPOINTS[name](rng), args))
    return cases


run = generated_launches("kvg-gated-", generate)


test_gated_config_values_agree_with_real_vllm = launch_differential(
    run, kind="gated-configs", label="LoRA / multimodal config values",
    cases=("KVG_GATED_CASES", 24), seed="KVG_GATED_SEED", versions=VERSIONS, since="0.11.1", also=("0.20.0",))


if __name__ == "__main__":
    launches_main(__doc__, run)
