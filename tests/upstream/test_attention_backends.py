"""Differential test of the attention-backend facts kvguard's worker-start checks read (kvguard.attention).

For every release in KVG_ORACLE_VERSIONS: the release's own backend classes (imported in its oracle, or read
from its source where the module needs GPU kernels — tests/upstream/attention_runner.py) give each backend's
implementation class, whether it returns the softmax LSE for decode and whether it supports PCP; kvguard's
table must say the same, and the worker checks' message templates (W_dcp_lse, W_pcp_impl) must be the
release's own assert messages.
"""

from __future__ import annotations

import os
import re

import pytest

from kvguard.attention import BACKENDS
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
        if isinstance(row, Check) and row.stage == "worker":
            template = row.template.replace("{backend}", "{backend.get_name()}")
            words = _flat(template.replace("{impl}", "{layer_impl.__class__.__name__}"))
            alt = _flat(template.replace("{impl}", "{layer.impl.__class__.__name__}"))
            assert words in flat or alt in flat, (version, row.id, row.template)
