"""Differential test of the Mamba / hybrid cache set-up (kvguard.rules.mamba_cache) against real releases.

Generates seeded ``vllm serve`` launches of Mamba and hybrid checkpoints (Qwen3-Next from the catalog; Jamba,
Mamba, Falcon-Mamba, Qwen3.5 and LFM2 configs from the layout differential's generators; a GraniteMoeHybrid
config whose ``layer_types`` are all attention, which vLLM does not treat as hybrid) with the switches the
set-up reads — chunked prefill and prefix caching on, off or left to the release, ``--mamba-cache-mode`` where
the release has it, n-gram speculative decoding — and a layout, and runs each through the release's own
``vllm serve`` path (tests/upstream/serve_runner.py, as tests/upstream/test_speculative.py does) and through
kvguard: the verdicts must agree.  Launches kvguard declares undecidable are counted, never compared.

Releases: a sample of KVG_ORACLE_VERSIONS from 0.15.0 (default "0.15.0 0.20.0 0.28.0 0.32.0 0.33.0"; the
first, the last and the releases where the set-up changes); KVG_MAMBA_CASES launches per release (default 24); seed KVG_MAMBA_SEED.  ``KVG_DIFF_REPORT_DIR`` keeps ``mamba-cache-<release>.json``.
Run directly for a full report: ``python -m tests.upstream.test_mamba_cache 0.15.0 0.28.0 --cases 120``.
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

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.15.0 0.20.0 0.28.0 0.32.0 0.33.0").split()


def _granite_attention_only(rng: random.Random) -> dict:
    """A GraniteMoeHybrid checkpoint without Mamba layers (granite-4.0-micro's shape)."""
    layers = 8
    return {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
            "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": layers,
            "intermediate_size": 8192, "shared_intermediate_size": 8192, "num_local_experts": 0,
            "layer_types": ["attention"] * layers, "max_position_embeddings": 4096, "vocab_size": 49160,
            "torch_dtype": "bfloat16"}


#: the checkpoints: name -> config.json builder
CHECKPOINTS = {
    "qwen3-next": lambda rng: _config("Qwen/Qwen3-Next-80B-A3B-Instruct"),
    "jamba": gen.gen_jamba,
    "mamba": gen.gen_mamba,
    "falcon-mamba": gen.gen_falcon_mamba,
    "qwen3.5": gen.gen_qwen3_5,
    "lfm2": gen.gen_lfm2,
    "granite-attention-only": _granite_attention_only,
}

_NGRAM = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    modes = list(table["--mamba-cache-mode"].choices or ()) if "--mamba-cache-mode" in table else []
    cases = []
    names = sorted(CHECKPOINTS)
    if not resolve(version).within("0.20.0"):
        # before 0.20.0 the hybrid set-up goes on to size the Mamba state from model-specific config keys
        # (get_mamba_state_shape_from_config), which kvguard does not model; the generated LFM2 config lacks
        # one of them (conv_dim)
        names.remove("lfm2")
    for i in range(n):
        name = rng.choice(names)
        config = CHECKPOINTS[name](rng)
        args = flag_switch(rng, table, "enable-chunked-prefill") + flag_switch(rng, table, "enable-prefix-caching")
        if modes and rng.random() < 0.5:
            args += ["--mamba-cache-mode", rng.choice(modes)]
        if rng.random() < 0.25:
            args += ["--speculative-config", _NGRAM]
        if rng.random() < 0.3:
            args += ["-tp", "2"]
        ident = f"m{i}"
        cases.append(launch_case(root, ident, name, config, args))
    return cases


run = generated_launches("kvg-mamba-", generate)


#: the releases where the set-up changes: 0.15.0 (the first), 0.20.0 (speculative decoding keeps 'align'),
#: 0.22.0, 0.28.0 (prefix caching on by default), 0.32.0 (every mode), 0.33.0 (the new message) — those asked for
test_mamba_cache_setup_agrees_with_real_vllm = launch_differential(
    run, kind="mamba-cache", label="Mamba cache set-up",
    cases=("KVG_MAMBA_CASES", 24), seed="KVG_MAMBA_SEED",
    versions=VERSIONS, since="0.15.0", also=("0.20.0", "0.22.1", "0.28.0", "0.32.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
