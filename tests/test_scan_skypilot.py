"""SkyPilot task YAMLs (kvguard.scan.skypilot): ``setup`` and ``run`` with the task's ``envs``, the
variables SkyPilot sets, the accelerator count as each node's GPUs and the release the task pins.
Expectations worked out by hand from SkyPilot's task YAML reference and vLLM's checks (README tables)."""

from __future__ import annotations

import json
import os

import pytest

from kvguard.cli import EXIT_REFUSE, run
from kvguard.scan import find_launches
from kvguard.scan.skypilot import accelerator_count, is_skypilot_task

pytest.importorskip("yaml")

DEPLOY = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "skypilot")


@pytest.mark.parametrize("resources, count", [
    ({"accelerators": "H100:8"}, 8),
    ({"accelerators": "A100"}, 1),
    ({"accelerators": {"H100": 4}}, 4),
    ({"accelerators": {"H100:8": None, "H200:8": None}}, 8),       # YAML's `{ H100:8, H200:8 }`
    ({"accelerators": {"L4": None, "A10g": None}}, 1),             # `{L4, A10g}`: one of either
    ({"accelerators": ["A100:8", "H100:8"]}, 8),
    ({"accelerators": {"L4": 1, "A100": 2}}, None),                # the count depends on what is found
    ({"accelerators": "T4:0.5"}, None),                            # a fraction of one GPU
    ({"accelerators": "{A100:4, H100:4}"}, 4),
    ({"any_of": [{"accelerators": "H100:8"}, {"accelerators": "H200:8"}]}, 8),
    ({"ordered": [{"accelerators": "H100:8"}, {"accelerators": "A100:4"}]}, None),
    ({"cpus": "8+"}, None),
    ("H100:8", None),
])
def test_accelerator_count(resources, count):
    assert accelerator_count(resources) == count


def test_a_task_needs_a_run_script_and_a_task_key():
    assert is_skypilot_task({"run": "vllm serve m", "resources": {}})
    assert not is_skypilot_task({"run": "vllm serve m"})
    assert not is_skypilot_task({"run": ["a"], "envs": {}})


def _findings(capsys) -> tuple[int, dict]:
    status = run(["scan", "--format", "json", DEPLOY])
    doc = json.loads(capsys.readouterr().out)
    return status, {(os.path.basename(f["file"]), f["line"]): f for f in doc["findings"]}


def test_skypilot_tasks_through_the_cli(capsys):
    status, found = _findings(capsys)
    assert status == EXIT_REFUSE
    assert set(found) == {("serve.sky.yaml", 15), ("multinode.sky.yaml", 16), ("alternatives.sky.yaml", 6),
                          ("alternatives.sky.yaml", 7)}
    # envs and SKYPILOT_NUM_GPUS_PER_NODE expand; image_id pins 0.28.0
    serve = found[("serve.sky.yaml", 15)]
    assert serve["command"] == ("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 8 "
                                "--decode-context-parallel-size 2")
    assert serve["status"] == "refused" and serve["result"]["check"] == "MC_dcp_tp_gt_kv"
    assert serve["vllm_version"] == "0.28.0" and "image vllm/vllm-openai:v0.28.0" in serve["vllm_version_source"]
    assert any("each node of the SkyPilot task is given 8 GPUs (resources.accelerators: {H100:8, H200:8})" in n
               for n in serve["notes"])
    # two nodes of 8: -tp 8 -pp 2 without --distributed-executor-backend ray is refused by 0.28.0 (setup's pin)
    multi = found[("multinode.sky.yaml", 16)]
    assert multi["command"] == "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 8 --pipeline-parallel-size 2"
    assert multi["vllm_version"] == "0.28.0" and "pip install vllm==0.28.0" in multi["vllm_version_source"]
    assert multi["result"]["check"] == "PC_gpu_count"
    assert multi["result"]["message"].startswith(
        "World size (16) is larger than the number of available GPUs (8) in this node.")
    # alternatives with different counts: the count is not known; a null env is given at launch
    assert found[("alternatives.sky.yaml", 6)]["status"] == "undecidable"
    assert "SKYPILOT_NUM_GPUS_PER_NODE" in found[("alternatives.sky.yaml", 6)]["reason"]
    assert found[("alternatives.sky.yaml", 7)]["status"] == "undecidable"
    assert "MODEL_NAME" in found[("alternatives.sky.yaml", 7)]["reason"]


def test_setup_variables_do_not_reach_run(tmp_path):
    task = tmp_path / "task.yaml"
    task.write_text("resources:\n  accelerators: H100:2\nsetup: |\n  TP=4\nrun: |\n  vllm serve Qwen/Qwen3-8B -tp $TP\n")
    launches, _, _ = find_launches([str(task)])
    assert [(launch.line, launch.unresolved, launch.gpus) for launch in launches] == [(6, ("TP",), 2)]
