"""Slurm batch scripts (kvguard.scan.slurm): the GPUs each node of the job is given, from the
``#SBATCH`` header as sbatch(1) reads it; expectations worked out by hand from Slurm's manual."""

from __future__ import annotations

import json
import os

import pytest

from kvguard.cli import EXIT_REFUSE, run
from kvguard.scan import find_launches
from kvguard.scan.slurm import batch_job

DEPLOY = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy", "slurm")


def _lines(text: str) -> list[tuple[int, str]]:
    return list(enumerate(text.split("\n"), start=1))


@pytest.mark.parametrize("header, gpus, nodes", [
    ("#SBATCH --gres=gpu:4", 4, None),
    ("#SBATCH --gres=gpu:a100:2", 2, None),
    ("#SBATCH --gres=gpu", 1, None),
    ("#SBATCH --gres=gpu:h100", 1, None),
    ("#SBATCH --gres=shard:2,gpu:2", 2, None),
    ("#SBATCH --gres gpu:8", 8, None),
    ("#SBATCH --gpus-per-node=8", 8, None),
    ("#SBATCH --gpus-per-node=h100:4  # four", 4, None),
    ("#SBATCH -N 1\n#SBATCH --gpus=2", 2, 1),
    ("#SBATCH -N2\n#SBATCH -G 8", None, 2),           # per job over two nodes: a node's share is not known
    ("#SBATCH --gpus=8", None, None),                  # nodes not fixed
    ("#SBATCH --nodes=2-4\n#SBATCH --gres=gpu:8", 8, None),
    ("#SBATCH --gres=gpu:2\n#SBATCH --gres=gpu:4", 4, None),   # the later directive wins
    ("#SBATCH --mem=0", None, None),
])
def test_header_gpus_and_nodes(header, gpus, nodes):
    job = batch_job(_lines("#!/bin/bash\n" + header + "\nvllm serve m"))
    assert job is not None and (job.gpus, job.nodes) == (gpus, nodes)


def test_no_header_and_directives_after_the_first_command():
    assert batch_job(_lines("#!/bin/bash\nvllm serve m -tp 8\n")) is None
    job = batch_job(_lines("#!/bin/bash\n#SBATCH -N 1\necho hi\n#SBATCH --gres=gpu:2\n"))
    assert job is not None and job.gpus is None and job.nodes == 1


def test_environment_slurm_gives_the_job():
    job = batch_job(_lines("#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n"))
    assert job is not None
    assert job.environment() == {"SLURM_GPUS_ON_NODE": "8", "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2"}


def _findings(path: str, capsys) -> tuple[int, dict]:
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", path])
    doc = json.loads(capsys.readouterr().out)
    return status, {f["line"]: f for f in doc["findings"]}


def test_a_node_short_of_gpus_is_refused_through_the_cli(capsys):
    status, found = _findings(os.path.join(DEPLOY, "serve.sbatch"), capsys)
    assert status == EXIT_REFUSE and set(found) == {9, 10}
    assert found[9]["status"] == "refused" and found[9]["result"]["check"] == "PC_gpu_count"
    assert found[9]["result"]["message"].startswith(
        "World size (8) is larger than the number of available GPUs (4) in this node.")
    assert any("each node of the Slurm job is given 4 GPUs (#SBATCH --gres=gpu:4)" in n for n in found[9]["notes"])
    # $SLURM_GPUS_ON_NODE is the node's count: -tp 4 on 4 GPUs starts
    assert found[10]["status"] == "accepted" and found[10]["command"] == "vllm serve Qwen/Qwen3-8B -tp 4"


def test_a_directive_after_a_command_is_not_read():
    launches, _, _ = find_launches([os.path.join(DEPLOY, "late.slurm")])
    assert [(launch.line, launch.gpus) for launch in launches] == [(5, None)]
