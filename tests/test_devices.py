"""The GPUs a launch sees: CUDA_VISIBLE_DEVICES as vLLM counts it, a container's GPU allocation.

The expected counts are torch's (``torch.cuda._device_count_nvml``, which vLLM's
``cuda_device_count_stateless`` returns), read from its source; tests/upstream/test_devices.py runs
torch's own function on generated values.  The refusal is vLLM's ParallelConfig GPU-count check
(docs/rules.md PC_gpu_count).
"""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.front import examine, launch_gpus
from kvguard.launch.devices import visible_gpu_count

GPU_COUNT = "World size (4) is larger than the number of available GPUs (2) in this node."


@pytest.mark.parametrize(("value", "count"), [
    ("0,1", 2), ("0,1,2,3,4,5,6,7", 8), ("", 0), ("0,0", 0), ("1gpu2,2ampere", 2), (" 1, 2", 2),
    ("0,-1,2", 1), ("0,x,2", 1), ("+3", 1), ("9", 0), ("0,9,1", 1), ("7,8", 1), ("GPU-a,GPU-b", None),
    ("GPU-a,GPU-a", 0), ("MIG-a", None),
])
def test_visible_gpu_count(value, count):
    assert visible_gpu_count(value, 8) == count


def test_a_sign_alone_is_torch_s_value_error():
    with pytest.raises(ValueError):
        visible_gpu_count("0,-", 8)


def test_cuda_visible_devices_sets_the_gpus_vllm_counts():
    v = examine("0.28.0", "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B -tp 4").verdict
    assert (v.check, v.exc_type) == ("PC_gpu_count", "ValueError") and v.message.startswith(GPU_COUNT)
    assert examine("0.28.0", "CUDA_VISIBLE_DEVICES=3,2,1,0 vllm serve Qwen/Qwen3-8B -tp 4").verdict.ok
    with pytest.raises(Undecidable, match="leaves none of the node's GPUs visible"):
        examine("0.28.0", "CUDA_VISIBLE_DEVICES= vllm serve Qwen/Qwen3-8B -tp 4")
    uuid = examine("0.28.0", "CUDA_VISIBLE_DEVICES=GPU-1 vllm serve Qwen/Qwen3-8B -tp 4").verdict
    assert uuid.ok and "PC_gpu_count" in {s.check for s in uuid.skipped}


def test_a_container_s_gpus_are_the_count_and_cuda_visible_devices_applies_within():
    v = examine("0.28.0", "vllm serve Qwen/Qwen3-8B -tp 4", gpus=2).verdict
    assert v.check == "PC_gpu_count" and v.message.startswith(GPU_COUNT)
    assert examine("0.28.0", "vllm serve Qwen/Qwen3-8B -tp 4", gpus=4).verdict.ok
    assert not examine("0.28.0", "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B -tp 4", gpus=4).verdict.ok


@pytest.mark.parametrize(("launch", "gpus"), [
    ("docker run --gpus 2 vllm/vllm-openai:v0.28.0 m", 2),
    ("docker run --gpus=2 vllm/vllm-openai:v0.28.0 m", 2),
    ("docker run --gpus all vllm/vllm-openai:v0.28.0 m", None),
    ("docker run --gpus \"device=0,1,2\" vllm/vllm-openai:v0.28.0 m", 3),
    ("docker run --gpus count=4,capabilities=utility vllm/vllm-openai:v0.28.0 m", 4),
    ("podman run vllm/vllm-openai:v0.28.0 m", None),
    ("podman run --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 vllm/vllm-openai:v0.28.0 m", 2),
    ("podman run --device nvidia.com/gpu=all vllm/vllm-openai:v0.28.0 m", None),
    ("docker run --device=/dev/fuse --device nvidia.com/gpu=3 vllm/vllm-openai:v0.28.0 m", 1),
    ("docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,2,3 vllm/vllm-openai:v0.28.0 m", 3),
    ("docker run -e NVIDIA_VISIBLE_DEVICES=GPU-1a,GPU-2b vllm/vllm-openai:v0.28.0 m", 2),
    ("docker run --runtime=nvidia --env NVIDIA_VISIBLE_DEVICES=all vllm/vllm-openai:v0.28.0 m", None),
    ("docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=none vllm/vllm-openai:v0.28.0 m", None),
    ("docker run --gpus 4 -e NVIDIA_VISIBLE_DEVICES=0 vllm/vllm-openai:v0.28.0 m", 4),   # the request decides
    ("vllm serve m", None),
])
def test_docker_run_gpus(launch, gpus):
    import shlex

    assert launch_gpus(shlex.split(launch)) == gpus


def test_check_reads_a_docker_run_s_gpus(capsys):
    import json

    from kvguard.cli import EXIT_REFUSE, run

    status = run(["check", "--format", "json", "--", "docker", "run", "--gpus", "2", "vllm/vllm-openai:v0.28.0",
                  "Qwen/Qwen3-8B", "-tp", "4"])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_REFUSE and data["check"] == "PC_gpu_count" and data["message"].startswith(GPU_COUNT)


def test_a_guide_s_cuda_visible_devices_stays_in_its_code_block(tmp_path):
    from kvguard.scan import scan

    guide = tmp_path / "guide.md"
    guide.write_text("```bash\nexport CUDA_VISIBLE_DEVICES=0\nvllm serve Qwen/Qwen3-8B -tp 2\n```\n\n"
                     "```bash\nvllm serve Qwen/Qwen3-8B -tp 2\n```\n")
    result = scan([str(guide)], "0.28.0", lambda r, t, **k: examine(r, t, **k))
    assert {f.launch.line: f.status for f in result.findings} == {3: "refused", 7: "accepted"}


# ---- the node's data-parallel engines: each takes world-size GPUs of the node (docs/rules.md W_dp_devices)
DP_SHORT = "this node starts 2 data-parallel engines of 8 GPUs each (16 GPUs) and has 8"


@pytest.mark.parametrize("release", ["0.10.2", "0.17.0", "0.28.0", "0.33.0"])
def test_data_parallel_engines_past_the_node_s_gpus_are_undecidable(release):
    with pytest.raises(Undecidable, match=r"2 data-parallel engines of 8 GPUs each \(16 GPUs\) and has 8 \(assumed"):
        examine(release, "vllm serve Qwen/Qwen3-30B-A3B -tp 8 -dp 2")


@pytest.mark.parametrize("launch", [
    "vllm serve Qwen/Qwen3-30B-A3B -tp 4 -dp 2",                          # 8 GPUs: the node's
    "vllm serve Qwen/Qwen3-30B-A3B -tp 8 -dp 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1",
    "vllm serve Qwen/Qwen3-30B-A3B -tp 8 -dp 2 --data-parallel-backend ray",  # Ray places the engines
])
def test_data_parallel_engines_that_fit_or_are_placed_elsewhere(launch):
    assert examine("0.28.0", launch).verdict.ok


def test_data_parallel_engines_count_the_stated_and_visible_gpus():
    assert examine("0.28.0", "vllm serve Qwen/Qwen3-30B-A3B -tp 8 -dp 2", gpus=16).verdict.ok
    with pytest.raises(Undecidable, match=r"4 data-parallel engines of 2 GPUs each \(8 GPUs\) and has 4:"):
        examine("0.28.0", "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve Qwen/Qwen3-30B-A3B -tp 2 -dp 4")


def test_data_parallel_engines_through_the_cli(capsys):
    from kvguard.cli import EXIT_ACCEPT, EXIT_UNDECIDED, run

    assert run(["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-30B-A3B", "-tp", "8",
                "-dp", "2"]) == EXIT_UNDECIDED
    assert DP_SHORT in capsys.readouterr().err
    assert run(["check", "--vllm-version", "0.28.0", "--gpus-per-node", "16", "--", "vllm", "serve",
                "Qwen/Qwen3-30B-A3B", "-tp", "8", "-dp", "2"]) == EXIT_ACCEPT
    capsys.readouterr()
    assert run(["check", "--vllm-version", "0.28.0", "--unknown-host", "--format", "json", "--", "vllm", "serve",
                "Qwen/Qwen3-30B-A3B", "-tp", "8", "-dp", "2"]) == EXIT_ACCEPT
    import json
    skipped = json.loads(capsys.readouterr().out)["skipped"]
    assert any(s["check"] == "W_dp_devices" for s in skipped)


# ---- the workers of one node (docs/rules.md W_local_world_size, W_mp_devices)
LOCAL_WORLD = "local_world_size (16) must be less than or equal to the number of visible devices (8)."


def test_0_11_1_workers_refuse_more_ranks_than_the_node_s_gpus_for_every_backend():
    launch = "vllm serve Qwen/Qwen3-32B -tp 16 --distributed-executor-backend ray"
    v = examine("0.11.1", launch).verdict
    assert (v.check, v.exc_type, v.stage, v.message) == ("W_local_world_size", "AssertionError", "worker",
                                                         LOCAL_WORLD)
    # a Ray cluster spans its nodes: the other releases leave the count to Ray
    assert examine("0.11.0", launch).verdict.ok and examine("0.11.2", launch).verdict.ok
    # --nnodes splits the ranks over the nodes: 8 per node
    assert examine("0.11.1", "vllm serve Qwen/Qwen3-32B -tp 16 --nnodes 2").verdict.ok


@pytest.mark.parametrize("release", ["0.10.2", "0.11.2", "0.12.0", "0.33.0"])
def test_an_explicit_mp_backend_past_the_node_s_gpus_is_undecidable(release):
    with pytest.raises(Undecidable, match="mp starts 16 workers on this node, which has 8 GPUs"):
        examine(release, "vllm serve Qwen/Qwen3-32B -tp 16 --distributed-executor-backend mp")
    assert examine(release, "vllm serve Qwen/Qwen3-32B -tp 8 --distributed-executor-backend mp").verdict.ok


# ---- the Ray executor's placement group (docs/rules.md W_ray_cluster)
RAY_CLUSTER = ("the Ray executor asks the Ray cluster for a placement group of 16 GPUs, more than this node's 8 "
               "(assumed: state yours with --gpus-per-node); whether the cluster's other nodes have them is not "
               "read (without them vLLM waits 1800 seconds, then raises a ValueError)")


@pytest.mark.parametrize(("release", "launch"), [
    ("0.33.0", "vllm serve Qwen/Qwen3-32B -tp 16 --distributed-executor-backend ray"),
    ("0.20.0", "vllm serve Qwen/Qwen3-32B -tp 8 -pp 2 --distributed-executor-backend ray"),
    ("0.11.0", "vllm serve Qwen/Qwen3-32B -tp 16"),        # 0.10.2-0.11.0 pick Ray past the node's GPUs
    ("0.10.2", "vllm serve Qwen/Qwen3-32B -tp 8 -pp 2"),
])
def test_a_ray_cluster_past_the_node_s_gpus_is_listed_as_skipped(release, launch):
    verdict = examine(release, launch).verdict
    assert verdict.ok
    assert [(s.check, s.reason) for s in verdict.skipped if s.check == "W_ray_cluster"] == [
        ("W_ray_cluster", RAY_CLUSTER)]


@pytest.mark.parametrize(("release", "launch"), [
    ("0.33.0", "vllm serve Qwen/Qwen3-32B -tp 8 --distributed-executor-backend ray"),   # fits the node
    ("0.33.0", "vllm serve Qwen/Qwen3-32B -tp 8 -pp 2 --nnodes 2"),                      # mp over two nodes
    ("0.11.1", "vllm serve Qwen/Qwen3-32B -tp 4 -pp 2"),                                 # mp on one node
])
def test_launches_the_node_holds_skip_no_ray_cluster_check(release, launch):
    assert all(s.check != "W_ray_cluster" for s in examine(release, launch).verdict.skipped)


def test_stated_gpus_per_node_decide_the_ray_cluster_check(capsys):
    from kvguard.cli import EXIT_ACCEPT, run

    assert run(["check", "--vllm-version", "0.33.0", "--gpus-per-node", "16", "--format", "json", "--", "vllm",
                "serve", "Qwen/Qwen3-32B", "-tp", "16", "--distributed-executor-backend", "ray"]) == EXIT_ACCEPT
    import json
    assert all(s["check"] != "W_ray_cluster" for s in json.loads(capsys.readouterr().out)["skipped"])
