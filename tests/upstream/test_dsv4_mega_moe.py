"""DeepSeek-V4's MegaMoE path (``--moe-backend deep_gemm_mega_moe``) at model construction: kvguard.quant.dsv4 vs the
release building its CUDA model (vllm/models/deepseek_v4/nvidia/model.py) on the meta device.

With expert parallel the MoE block takes ``_init_mega_moe_experts``, whose assert needs the EP group (dp x pcp x tp
ranks; the runner's ``get_ep_group`` stands in with that size) to divide the experts: bare on the routed experts to
0.22.x (0.20.x - 0.21.0: vllm/model_executor/models/deepseek_v4.py; 0.20.x takes the path with expert parallel only), ``n_physical_experts=… must be divisible by ep_size=…. Adjust num_redundant_experts.`` (routed + redundant)
from 0.23.0 — the form of vllm-project/vllm#52435 (``-dp 3 --enable-expert-parallel`` on DeepSeek-V4-Flash).  Before
it: layer 0's attention (the KV-cache dtype before 0.30.0, the vocabulary over tp) and the shared experts (replicated
when the MoE runs sequence-parallel, which the MegaMoE path makes it with tp > 1).  Where the assert passes, the
DeepGEMM MegaMoE experts need a GPU (the CPU oracle raises there; kvguard leaves them open: undecided).

The configs: the catalog's DeepSeek-V4-Flash / -Pro and NVIDIA's NVFP4 export of Flash, cut to four decoder layers as
tests/upstream/test_dsv4_model.py cuts them; the layouts below with the fp8 KV cache, and before 0.30.0 also the auto
one (refused by the attention first; from 0.30.0 read as fp8).  Compared:
accepted or not, exception type and message (tests/upstream/test_quant.py's ``compare``).

Releases: KVG_ORACLE_VERSIONS from 0.20.0 (CI: the first of them from 0.20.0, 0.30.0 and the last).
Full runs: ``python -m tests.upstream.test_dsv4_mega_moe V``.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from kvguard import catalog

from ._oracle import check_launch_report, release_sample, run_runner
from ._oracle import oracle_or_skip as _python
from .test_dsv4_model import cut
from .test_quant import compare

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.30.0 0.33.0").split()
SAMPLE = release_sample(VERSIONS, "0.20.0", also=("0.30.0",))

MODELS = ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro", "nvidia/DeepSeek-V4-Flash-NVFP4")

#: expert-parallel layouts: EP sizes that divide 256 / 384 routed experts or not (3, 5, 6, 24), the shared experts
#: replicated (tp > 1) or not, redundant experts that make the sum divide (258 / 6) or not (259 / 5), a tp the
#: vocabulary refuses first (3)
LAYOUTS = [{"tp": 1, "dp": 3, "ep": True}, {"tp": 1, "dp": 4, "ep": True}, {"tp": 2, "dp": 3, "ep": True},
           {"tp": 8, "dp": 3, "ep": True}, {"tp": 3, "ep": True},
           {"tp": 1, "dp": 6, "ep": True, "eplb": True, "redundant": 2},
           {"tp": 1, "dp": 5, "ep": True, "eplb": True, "redundant": 3},
           {"tp": 2, "dp": 4, "ep": True, "eplb": True, "redundant": 4}]


def cases(version: str) -> list:
    from kvguard.versions import resolve

    # the auto KV cache: refused by layer 0's attention before the MoE block until 0.30.0, read as fp8 after it
    kv_dtypes = ("fp8",) if resolve(version).within("0.30.0") else ("fp8", "auto")
    out = []
    for model in MODELS:
        cfg = cut(catalog.lookup(model).config)
        for kv in kv_dtypes:
            out.append({"config": cfg, "layouts": LAYOUTS, "kv_after_config": True,
                        "engine_args": {"kv_cache_dtype": kv, "moe_backend": "deep_gemm_mega_moe"}})
    return out


def run(version: str) -> dict:
    python, python_env = _python(version)
    todo = cases(version)
    out = run_runner("quant_runner.py", python, python_env, todo)
    report = compare(version, todo, out)
    report["mega_assert_reached"] = sum(
        1 for res in out["results"] for rec in res.get("outcomes", ())
        if rec.get("exc_type") == "AssertionError" and "_init_mega_moe_experts" in (rec.get("trace") or ""))
    return report


@pytest.mark.parametrize("version", SAMPLE)
def test_dsv4_mega_moe_agrees(version):
    report = run(version)
    c = report["counts"]
    c["undecidable"] = c["undecided"]  # the CI summary's name (.ci/run)
    check_launch_report(report, "dsv4-mega-moe", "DeepSeek-V4 MegaMoE construction")
    assert c["oracle_setup_failures"] == 0
    # the release reaches the assert (with the fp8 KV cache: Flash and its NVFP4 export fail it at EP sizes 3, 5, 6,
    # 24; Pro's 384 experts at 5, and from 0.23.0 at 6 with 2 redundant) and kvguard agrees on every decided case
    assert report["mega_assert_reached"] >= 10, report["mega_assert_reached"]
    assert c["agree"] >= 16, c


if __name__ == "__main__":
    rep = run(sys.argv[1])
    print(json.dumps({k: rep[k] for k in ("counts", "by_family", "undecided", "mega_assert_reached")}, indent=1))
    for m in rep["mismatches"][:12]:
        print(json.dumps(m, default=str)[:1500])
