"""The host the command line assumes: vLLM's official vllm-openai image on an 8-GPU CUDA node.

That image installs Ray, so `--distributed-executor-backend ray` is not refused for a missing Ray
module unless the user states `--host ray=0`.
"""

from __future__ import annotations

import json

import kvguard
from kvguard.cli import EXIT_ACCEPT, EXIT_REFUSE, run

RAY_LAUNCH = ["--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2", "--distributed-executor-backend", "ray"]
# vLLM's own text (ParallelConfig._verify_args), with its missing space after the period
RAY_MISSING = "Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`."


def test_ray_backend_accepted_on_the_assumed_host_and_said_so(capsys):
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", *RAY_LAUNCH])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_ACCEPT and data["ok"] is True
    assert "ray=True" in data["assumptions"]


def test_stated_missing_ray_still_refuses(capsys):
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", "--host", "ray=0", *RAY_LAUNCH])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_REFUSE
    assert (data["check"], data["exc_type"], data["message"]) == ("PA_ray_available", "ValueError", RAY_MISSING)
    assert not any(a.startswith("ray=") for a in data["assumptions"])      # stated, not assumed


def test_api_standard_host_has_ray():
    assert kvguard.Host.standard().ray is True and "ray" in kvguard.Host.standard().assumed
    assert kvguard.Host.cuda_node().ray is True and not kvguard.Host.cuda_node().assumed
    verdict = kvguard.check(kvguard.catalog.lookup("Qwen/Qwen3-32B").config, vllm_version="0.28.0",
                            host=kvguard.Host.standard(), tp=2, distributed_executor_backend="ray")
    assert verdict.ok
    refused = kvguard.check(kvguard.catalog.lookup("Qwen/Qwen3-32B").config, vllm_version="0.28.0",
                            host=kvguard.Host.standard(ray=False), tp=2, distributed_executor_backend="ray")
    assert (refused.ok, refused.check, refused.message) == (False, "PA_ray_available", RAY_MISSING)
