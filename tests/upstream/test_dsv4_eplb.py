"""DeepSeek-V4 and --enable-eplb: whether the release's CUDA model implements ``MixtureOfExperts``, the fact behind
kvguard's W_eplb_no_moe_model for DeepseekV4ForCausalLM (kvguard.quant.dsv4.MIXTURE_OF_EXPERTS, 0.23.0).

The release builds DeepSeek-V4-Flash's CUDA model (four decoder layers, tp 1, the fp8 KV cache its attention takes
before 0.30.0) on the meta device (tests/upstream/quant_runner.py) and its own ``is_mixture_of_experts`` answers on
the built model — what the V1 worker asks before it registers the model for EPLB (vllm/v1/worker/gpu_model_runner.py);
0.20.0 - 0.22.x's model implements none, so the worker's first EPLB step asserts.  Found from a user's report:
https://github.com/vllm-project/vllm/issues/40740 ("assert is_mixture_of_experts fails" with DeepSeek-V4-Flash and
``--enable-eplb``).

Releases: KVG_ORACLE_VERSIONS from 0.20.0; CI: the boundary, 0.22.1 and 0.23.0, where they are among them (one build
each, ~30 s).  By hand: ``python -m tests.upstream.test_dsv4_eplb 0.20.0 0.21.0 0.22.1 0.23.0 0.33.0``.
"""

from __future__ import annotations

import os
import sys

import pytest

from kvguard import catalog
from kvguard.quant import dsv4
from kvguard.versions import resolve

from ._oracle import oracle_or_skip, run_runner
from .test_dsv4_model import cut

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.22.1 0.23.0").split()
#: the releases on either side of the fact's boundary
SAMPLE = [v for v in VERSIONS if v in ("0.22.1", "0.23.0")]


def registers_for_eplb(version: str) -> dict:
    """The release's own answer: the built model's ``is_mixture_of_experts`` (and whether it was built at all)."""
    python, python_env = oracle_or_skip(version)
    cases = [{"config": cut(catalog.lookup("deepseek-ai/DeepSeek-V4-Flash").config), "layouts": [{"tp": 1}],
              "engine_args": {"kv_cache_dtype": "fp8"}, "kv_after_config": True}]
    res = run_runner("quant_runner.py", python, python_env, cases)["results"][0]
    rec = (res.get("outcomes") or [{}])[0]
    return {"built": bool(rec.get("ok")), "setup_error": res.get("setup_error"), "message": rec.get("message"),
            "moe_model": bool((rec.get("moe_model") or {}).get("model"))}


@pytest.mark.parametrize("version", SAMPLE)
def test_deepseek_v4_mixture_of_experts_agrees(version):
    theirs = registers_for_eplb(version)
    assert theirs["built"], theirs
    assert resolve(version).within(dsv4.MIXTURE_OF_EXPERTS) == theirs["moe_model"], (version, theirs)


if __name__ == "__main__":
    for v in sys.argv[1:]:
        got = registers_for_eplb(v)
        print(v, got, "kvguard:", resolve(v).within(dsv4.MIXTURE_OF_EXPERTS))
