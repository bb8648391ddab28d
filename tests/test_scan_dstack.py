"""dstack run configurations (kvguard.scan.dstack): ``commands`` with the run's ``env``, the
``DSTACK_*`` variables its runner sets, the GPU count of ``resources.gpu`` as each node's GPUs, the
release ``image`` or a ``pip install`` pins.  Expectations worked out by hand from dstack's
configuration reference and vLLM's checks (README tables)."""

from __future__ import annotations

import json
import os

import pytest

from kvguard.cli import EXIT_REFUSE, run
from kvguard.scan import find_launches
from kvguard.scan.dstack import gpu_count, is_dstack_run

pytest.importorskip("yaml")

DEPLOY = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "dstack")


@pytest.mark.parametrize("spec, count", [
    ("24GB", 1), ("A100", 1), ("A100:2", 2), ("24GB..80GB:8", 8), ("H100,H200:8", 8), ("A100:80GB", 1),
    ("nvidia:H100:8", 8), ("..80GB:4", 4), ("24GB..:2", 2), ("2..2", 2),
    ("1..8", None), ("24GB:1..2", None), ("2..", None),          # the count is left open
    (8, 8), ({"count": 4}, 4), ({"name": "H100"}, 1), ({"count": {"min": 2, "max": 2}}, 2),
    ({"count": "1..2"}, None), (True, None), (None, None),
])
def test_gpu_count(spec, count):
    assert gpu_count(spec) == count


def test_a_run_is_a_task_or_service_with_commands():
    assert is_dstack_run({"type": "task", "commands": ["vllm serve m"]})
    assert is_dstack_run({"type": "service", "commands": []})
    assert not is_dstack_run({"type": "dev-environment", "commands": ["a"]})
    assert not is_dstack_run({"type": "task", "commands": "vllm serve m"})


def test_dstack_runs_through_the_cli(capsys):
    status = run(["scan", "--format", "json", DEPLOY])
    doc = json.loads(capsys.readouterr().out)
    found = {(os.path.basename(f["file"]), f["line"]): f for f in doc["findings"]}
    assert status == EXIT_REFUSE
    assert set(found) == {("serve.dstack.yml", 9), ("cluster.dstack.yml", 11), ("open.dstack.yml", 3)}
    serve = found[("serve.dstack.yml", 9)]       # DSTACK_GPUS_NUM = 4 on one node; the image pins 0.28.0
    assert serve["command"] == "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --decode-context-parallel-size 2"
    assert serve["result"]["check"] == "MC_dcp_tp_gt_kv" and serve["vllm_version"] == "0.28.0"
    assert any("each node of the dstack run is given 4 GPUs (resources.gpu: H100:4)" in n for n in serve["notes"])
    cluster = found[("cluster.dstack.yml", 11)]  # two nodes of 8: -tp 8 -pp 2 without Ray on 0.28.0 (pip pin)
    assert cluster["command"] == "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 8 --pipeline-parallel-size 2"
    assert cluster["vllm_version"] == "0.28.0" and cluster["result"]["check"] == "PC_gpu_count"
    assert found[("open.dstack.yml", 3)]["status"] == "undecidable"
    assert "DSTACK_GPUS_NUM" in found[("open.dstack.yml", 3)]["reason"]


def test_a_bare_env_name_is_not_in_the_file(tmp_path):
    run_file = tmp_path / "task.dstack.yml"
    run_file.write_text("type: task\nenv:\n  - VLLM_USE_V2_MODEL_RUNNER\ncommands:\n  - vllm serve Qwen/Qwen3-8B\n")
    launches, _, _ = find_launches([str(run_file)])
    assert [launch.unresolved for launch in launches] == [("VLLM_USE_V2_MODEL_RUNNER",)]
