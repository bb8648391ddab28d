"""Every `vllm serve` launch in this deployment repository must start on the vLLM we run.

Needs kvguard installed (its pytest plugin provides the `kvguard_check` fixture) and PyYAML
for the Kubernetes manifests: pip install 'kvguard[yaml]'.
"""

from pathlib import Path

import pytest

from kvguard.pytest_plugin import launches_under

HERE = Path(__file__).parent
VLLM_VERSION = "0.28.0"     # the release our images pin (vllm/vllm-openai:v0.28.0)


@pytest.mark.parametrize("launch", launches_under(HERE))
def test_launch_starts(kvguard_check, launch):
    kvguard_check(launch, vllm_version=VLLM_VERSION)


def test_planned_long_context_layout(kvguard_check):
    # the layout we want for the next rollout: must be accepted and shard the cache
    verdict = kvguard_check("vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8", vllm_version=VLLM_VERSION)
    assert verdict.ok
    assert verdict.facts.duplication_factor(8) == 8     # MLA: every rank holds a copy without dcp
