"""Differential test of the V1 engine's feature refusals (kvguard.rules.v1_features) against real releases.

Generates seeded ``vllm serve`` launches with the options the V1 engine refuses or (0.10.2 / 0.11.0) falls back to
V0 for — concurrent partial prefills, ``--logits-processor-pattern``, 0.10.2's ``--preemption-mode``,
``--disable-async-output-proc``, ``--scheduler-delay-factor``, ``--enable-prompt-embeds``, ``--load-format
sharded_state`` — mixed with the oracle's other inputs (a quantized KV cache, pipeline parallelism on the ``uni``
executor, a sliding-window model on this CPU host, a draft-model speculative config, batched tokens), each with
``VLLM_USE_V1`` unset, 1 or 0, and runs each through the release's own ``vllm serve`` path
(tests/upstream/serve_runner.py) and through kvguard with the oracle's host: the verdicts must agree.  Launches
kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.11.1 0.16.0 0.26.0"); KVG_V1F_CASES launches
per release (default 24); seed KVG_V1F_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``v1-features-<release>.json``.  Run
directly for a full report: ``python -m tests.upstream.test_v1_features 0.10.2 0.11.0 --cases 120``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.11.1 0.16.0 0.26.0").split()

#: the checkpoints: name -> config.json builder (gemma2 keeps a sliding window: the CPU oracle's own fallback)
CHECKPOINTS = {
    "qwen3-8b": lambda rng: _config("Qwen/Qwen3-8B"),
    "mistral": gen.gen_mistral,
    "gemma2": gen.gen_gemma2,
}

#: option -> the values drawn for it ("" is vLLM's optional_type None, as "None" is)
VALUED = {
    "--max-num-partial-prefills": ("0", "1", "1", "2", "4"),
    "--max-long-partial-prefills": ("0", "1", "1", "2"),
    "--logits-processor-pattern": ("x.*", "None", ""),
    "--preemption-mode": ("swap", "recompute"),
    "--scheduler-delay-factor": ("0", "0.0", "0.5"),
    "--load-format": ("sharded_state", "auto", "safetensors"),
    "--kv-cache-dtype": ("fp8", "auto"),
    "--max-num-batched-tokens": ("128", "1024", "65536"),
    "--long-prefill-token-threshold": ("0", "1000", "200000"),
}
ENVS = (None, None, "1", "0")


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    names = sorted(CHECKPOINTS)
    offered = [opt for opt in VALUED if opt in table]
    cases = []
    for i in range(n):
        name = rng.choice(names)
        args: list[str] = []
        for opt in rng.sample(offered, k=min(len(offered), rng.choice((1, 1, 2, 3)))):
            args += [opt, rng.choice(VALUED[opt])]
        args += flag_switch(rng, table, "disable-async-output-proc", ("on", "default", "default"))
        args += flag_switch(rng, table, "enable-prompt-embeds", ("on", "default", "default", "default"))
        args += flag_switch(rng, table, "enable-chunked-prefill", ("on", "off", "default", "default"))
        if rng.random() < 0.15:
            args += ["-pp", "2", "--distributed-executor-backend", "uni"]
        ident = f"v{i}"
        config = CHECKPOINTS[name](rng)
        case = launch_case(root, ident, name, config, args)
        if rng.random() < 0.1:
            draft = os.path.join(root, ident + "-draft")
            case["files"] = {draft: config}
            args += ["--speculative-config",
                     '{"method": "draft_model", "model": "' + draft + '", "num_speculative_tokens": 2}']
        env = rng.choice(ENVS)
        if env is not None:
            case["env"] = {"VLLM_USE_V1": env}
        cases.append(case)
    return cases


run = generated_launches("kvg-v1f-", generate)


#: the releases where the checks change — 0.10.2 (the V1 oracle's long list, V0 behind it), 0.11.0 (its short list,
#: no V0 engine), 0.11.1 (_check_feature_supported), 0.16.0 (the last with --logits-processor-pattern), 0.26.0 (the
#: last with the partial-prefill options) — those asked for
test_v1_feature_checks_agree_with_real_vllm = launch_differential(
    run, kind="v1-features", label="V1 feature checks",
    cases=("KVG_V1F_CASES", 24), seed="KVG_V1F_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.11.0", "0.11.1", "0.16.0", "0.26.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
