"""Differential test of the attention-backend facts kvguard's worker-start checks read (kvguard.attention).

For every release in KVG_ORACLE_VERSIONS: the release's own backend classes (imported in its oracle, or read
from its source where the module needs GPU kernels — tests/upstream/attention_runner.py) give each backend's
implementation class, whether it returns the softmax LSE for decode and whether it supports PCP; kvguard's
table must say the same, and the worker checks' message templates (W_dcp_lse, W_pcp_impl, W_pcp_backend,
W_mrv2_pcp) must be the release's own messages.  From 0.26.0 (the selector filters by context parallelism)
the release's own selector and CP check answer kvguard's select_backend on generated launches
(tests/upstream/attention_select_runner.py; KVG_ATTENTION_CASES per release, 40 by default; KVG_ATTENTION_SEED draws
another set of launches, for sweeps).
"""

from __future__ import annotations

import os
import random
import re

import pytest

from kvguard.attention import BACKENDS, SELECTOR_FILTERS_CP, SM90_PRIORITY, NotDecided, SelectorRefusal, select_backend
from kvguard.rules import Check
from kvguard.rules.table import rows_for
from kvguard.versions import resolve

from ._oracle import oracle_or_skip, run_runner

pytestmark = pytest.mark.upstream

def _versions() -> list[str]:
    """KVG_ATTENTION_VERSIONS, else a sample of KVG_ORACLE_VERSIONS (every third release and the last: the
    facts change rarely and each release costs an oracle start; `KVG_ATTENTION_VERSIONS=all` takes them all)."""
    own = os.environ.get("KVG_ATTENTION_VERSIONS")
    every = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.1 0.20.0 0.33.0").split()
    if own == "all":
        return every
    if own:
        return own.split()
    return sorted(set(every[::3] + every[-1:]), key=lambda v: tuple(int(x) for x in v.split(".")))


VERSIONS = _versions()


def _flat(text: str) -> str:
    """Source text and templates compared without quotes, f-prefixes and whitespace (string concatenation)."""
    return re.sub(r"f'|f\"|'|\"|\s+", "", text)


@pytest.mark.parametrize("version", VERSIONS)
def test_backend_facts_agree_with_the_release(version):
    python, env = oracle_or_skip(version)
    out = run_runner("attention_runner.py", python, dict(env, VLLM_TARGET_DEVICE="cpu"),
                     [{"id": name} for name in BACKENDS])
    release = resolve(version)
    for name, (impl, lse_since) in BACKENDS.items():
        real = out["backends"][name]
        assert real["impl"] == impl, (version, name, real)
        assert real["can_return_lse_for_decode"] == (lse_since is not None and release.within(lse_since)), \
            (version, name, real)
        # no non-MLA implementation of these releases supports PCP (W_pcp_impl refuses every one)
        assert real["supports_pcp"] is False, (version, name, real)
    # the worker checks kvguard applies to this release are the release's own messages
    source = "\n".join(out["messages"])
    flat = _flat(source)
    for row in rows_for(release):
        # the worker checks with a fixed template (W_attn_selector's message is the selector's, compared on
        # generated launches below)
        if isinstance(row, Check) and row.id.startswith("W_") and row.id != "W_attn_selector":
            template = row.template.replace("{backend}", "{backend.get_name()}")
            words = _flat(template.replace("{impl}", "{layer_impl.__class__.__name__}"))
            alt = _flat(template.replace("{impl}", "{layer.impl.__class__.__name__}"))
            own = _flat(template.replace("{impl}", "{type(self).__name__}"))   # raised by the implementation
            assert words in flat or alt in flat or own in flat, (version, row.id, row.template)


#: releases whose selector filters by context parallelism (kvguard.attention.select_backend)
SELECTOR_VERSIONS = [v for v in VERSIONS if resolve(v).within(SELECTOR_FILTERS_CP)] or ["0.33.0"]


def _selector_cases(seed: int, count: int) -> list[dict]:
    """Generated launches: PCP and DCP sizes, head sizes, dtypes, --attention-backend (or the default list)."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        head = rng.choice([32, 40, 64, 72, 80, 96, 112, 128, 160, 192, 256, 512])
        cases.append({"id": f"c{i}", "head_size": head, "dtype": rng.choice(["bfloat16", "float16", "float32"]),
                      "kv_cache_dtype": "auto", "use_mla": False, "pcp": rng.choice([1, 2, 4]),
                      "dcp": rng.choice([1, 2, 4]), "backend": rng.choice([None, None, *SM90_PRIORITY])})
    return cases


@pytest.mark.parametrize("version", SELECTOR_VERSIONS)
def test_selector_and_cp_check_agree_with_the_release(version):
    """The release's own CudaPlatform.get_attn_backend_cls (device capability 9.0 stood in) and
    check_attention_cp_compatibility answer kvguard's select_backend on generated launches: the same
    backend, or the same refusal character for character; then the same CP-check outcome."""
    python, env = oracle_or_skip(version)
    count = int(os.environ.get("KVG_ATTENTION_CASES", "40"))
    seed = int(version.replace(".", ""))
    if os.environ.get("KVG_ATTENTION_SEED"):
        seed = seed * 100_003 + int(os.environ["KVG_ATTENTION_SEED"])
    cases = _selector_cases(seed, count)
    out = run_runner("attention_select_runner.py", python, dict(env, VLLM_TARGET_DEVICE="cpu"), cases)
    release = resolve(version)
    agree = 0
    for case in cases:
        real = out["results"][case["id"]]
        try:
            name = select_backend(release, head_size=case["head_size"], dtype=case["dtype"], pcp=case["pcp"],
                                  dcp=case["dcp"], chosen=case["backend"])
        except SelectorRefusal as refusal:
            assert real.get("error") == ["ValueError", refusal.message], (version, case, real)
            agree += 1
            continue
        except NotDecided:
            continue
        assert real.get("selected") == name, (version, case, real)
        impl, since = BACKENDS[name]
        lse = since is not None and release.within(since)
        expected = None
        if case["dcp"] > 1 and not lse:
            expected = ["AssertionError", "Decode Context Parallelism (DCP) requires attention implementations to "
                        f"return the softmax LSE during decode, but {impl} does not. Try a different backend by "
                        "setting --attention-backend or disable DCP."]
        assert real.get("cp_check") == expected, (version, case, real)
        agree += 1
    print(f"vLLM {version} attention selector: {agree} of {count} generated launches agree")
    assert agree >= count // 2, (version, agree)
