"""Differential tier: kvguard.hfconfig against the real vLLM + transformers.

Needs the oracle environments (tools/oracle_env.py, root $KVG_ORACLE_ENV_ROOT, else
$KVG_ORACLE_ROOT, else ~/.cache/kvguard-oracle; or classic venvs ``$KVG_ORACLE_ROOT/<release>/bin/python``);
skipped when they are absent.  The full run (all model types, 40 configs each)
is ``python tools/hfconfig_oracle.py --versions X --n 40``.

Each release costs an oracle start (importing vLLM) for the generated and the trap configs, so by default the
tier runs a sample of ``RELEASES`` (one release each of transformers 4.57.6, 5.24.0, 5.17.0 and 5.20.2, with
the 5.x loader, the 0.31.0 strict-validator patches and the newest loader); ``KVG_HFCONFIG_DIFF=all`` runs every
release of ``RELEASES``.  The recorded answers of every release are replayed oracle-free by test_recorded.py /
test_releases.py / test_wrapping.py either way.
"""

from __future__ import annotations

import os

import pytest

from ._util import RELEASES, oracle, oracle_env

pytestmark = pytest.mark.upstream

TYPES = ["llama", "mpt", "falcon", "RefinedWebModel", "deepseek_v3", "kimi_k2", "qwen2_5_vl", "gemma3", "eagle",
         "chatglm", "gpt_oss", "qwen3_next", "nemotron_h", "jamba", "medusa", "qwen3_5", "gemma4_text", "laguna"]

SAMPLE = ("0.20.0", "0.28.0", "0.31.0", "0.33.0")
LIVE = RELEASES if os.environ.get("KVG_HFCONFIG_DIFF") == "all" else tuple(r for r in RELEASES if r in SAMPLE)


@pytest.mark.parametrize("rel", LIVE)
def test_generated_configs_agree_with_real_vllm(rel, tmp_path):
    if oracle_env(rel) is None:
        pytest.skip(f"no oracle environment for vLLM {rel}")
    rc = oracle.main(["--versions", rel, "--n", "6", "--types", ",".join(TYPES),
                      "--mismatches", str(tmp_path / "mm.json")])
    assert rc == 0, (tmp_path / "mm.json").read_text()[:4000]


@pytest.mark.parametrize("rel", LIVE)
def test_trap_configs_agree_with_real_vllm(rel, tmp_path):
    if oracle_env(rel) is None:
        pytest.skip(f"no oracle environment for vLLM {rel}")
    rc = oracle.main(["--unit", "--versions", rel, "--mismatches", str(tmp_path / "mm.json")])
    assert rc == 0, (tmp_path / "mm.json").read_text()[:4000]
