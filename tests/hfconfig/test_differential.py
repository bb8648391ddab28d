"""Differential tier: kvguard.hfconfig against the real vLLM + transformers.

Needs the oracle venvs (``$KVG_ORACLE_ROOT/<release>/bin/python``, default
/work/oracle); skipped when they are absent.  The full run (all model types,
hundreds of configs each) is ``python tools/hfconfig_oracle.py --n 100``.
"""

from __future__ import annotations

import pytest

from ._util import RELEASES, oracle, oracle_venv

pytestmark = pytest.mark.upstream

TYPES = ["llama", "mpt", "falcon", "RefinedWebModel", "deepseek_v3", "kimi_k2", "qwen2_5_vl", "gemma3", "eagle",
         "chatglm", "gpt_oss", "qwen3_next", "nemotron_h", "jamba", "medusa"]


@pytest.mark.parametrize("rel", RELEASES)
def test_generated_configs_agree_with_real_vllm(rel, tmp_path):
    if oracle_venv(rel) is None:
        pytest.skip(f"no oracle venv for vLLM {rel}")
    rc = oracle.main(["--versions", rel, "--n", "12", "--types", ",".join(TYPES),
                      "--mismatches", str(tmp_path / "mm.json")])
    assert rc == 0, (tmp_path / "mm.json").read_text()[:4000]
