"""KV-cache bytes per token: kvguard vs the release's own KV cache spec classes.

For generated (KV heads per rank, head size, --kv-cache-dtype, MLA or not, block size) cases,
``tests/upstream/kvspec_runner.py`` builds vLLM's ``FullAttentionSpec`` / ``MLAAttentionSpec``
inside the release's oracle environment and reads ``page_size_bytes``; page / block_size must
equal kvguard's per-layer per-token bytes — both :func:`kvguard.kv.kvsize.
kv_bytes_per_token_per_layer` (what ``audit`` reports per layer) and
``ModelFacts.kv_bytes_per_token`` (what the per-rank totals are built from).  The dtype sizes are
kvguard's (``kv_cache_dtype_bytes``); the release's ``--kv-cache-dtype`` choices must match the
values kvguard accepts for it.

Releases: KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0"); skips without an oracle unless
KVG_REQUIRE_ORACLE=1.
"""

from __future__ import annotations

import json
import os
import random

import pytest

from kvguard.facts import ModelFacts
from kvguard.kv.kvsize import KV_CACHE_DTYPE_BYTES, kv_bytes_per_token_per_layer, kv_cache_dtype_bytes

from ._oracle import accepted_kv_cache_dtypes, attention_shape, run_runner
from ._oracle import oracle_or_skip as _python

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()


def generate(seed: int, version: str, n: int = 160) -> list[dict]:
    rng = random.Random(seed)
    dtypes = accepted_kv_cache_dtypes(version)
    cases = []
    for i in range(n):
        mla = i % 3 == 0
        heads, head_size = attention_shape(rng, mla)
        cases.append({"heads": heads, "head_size": head_size, "mla": mla, "kv_cache_dtype": rng.choice(dtypes),
                      "model_dtype": rng.choice(["bfloat16", "float16"]), "block_size": rng.choice([16, 32, 64])})
    return cases


def kvguard_bytes(case: dict, version: str) -> tuple[int, int]:
    _, b = kv_cache_dtype_bytes(case["kv_cache_dtype"], model_dtype=case["model_dtype"], vllm_version=version)
    per_layer = kv_bytes_per_token_per_layer(case["heads"], case["head_size"], b, mla=case["mla"])
    tp = 4
    facts = ModelFacts(vllm_version=version, model_type="x", text_model_type=None, architectures=(),
                       use_mla=case["mla"], is_deepseek_mla=case["mla"],
                       total_num_kv_heads=(128 if case["mla"] else case["heads"] * tp),
                       total_num_attention_heads=128, head_size=case["head_size"], num_hidden_layers=1,
                       num_experts=0)
    return per_layer, facts.kv_bytes_per_token(tp, dtype_bytes=b)


@pytest.mark.parametrize("version", VERSIONS)
def test_kv_bytes_per_token_match_vllm_spec_classes(version):
    python, python_env = _python(version)
    cases = generate(int(os.environ.get("KVG_DIFF_SEED", "7")), version)
    out = run_runner("kvspec_runner.py", python, python_env, cases)
    mismatches, agree = [], 0
    for case, rec in zip(cases, out["results"]):
        mine = kvguard_bytes(case, version)
        if "error" in rec or rec["bytes_per_token"] != mine[0] or rec["bytes_per_token"] != mine[1]:
            mismatches.append({"case": case, "oracle": rec, "kvguard": mine})
        else:
            agree += 1
    print(f"\nvLLM {version}: kv spec bytes/token agree {agree}/{len(cases)}")
    assert len(out["results"]) == len(cases)
    assert not mismatches, json.dumps(mismatches[:5], indent=1)
    # the --kv-cache-dtype values kvguard sizes are exactly the release's plain ones
    choices = set(out["cache_dtypes"])
    assert choices, "no CacheDType literal found"
    for name in ["auto", *KV_CACHE_DTYPE_BYTES]:
        assert (name in accepted_kv_cache_dtypes(version)) == (name in choices), name
