"""--mm-tensor-ipc torch_shm (kvguard.launch.argv _TORCH_SHM_PROBLEM): on vLLM 0.19.0-0.33.0 a multimodal model's
torch_shm tensor IPC is refused by ModelConfig.verify_with_parallel_config with a world size above 1 and by
VllmConfig.__post_init__ without VLLM_WORKER_MULTIPROC_METHOD=spawn.  kvguard renders neither: undecidable for a
multimodal model, accepted for a text-only one (no MultiModalConfig).  What the releases answered
(tools/option_sweep.py --pairs on gemma-3-27b-it, 0.33.0), written out by hand."""

from __future__ import annotations

import pytest

REASON = ("--mm-tensor-ipc torch_shm: ModelConfig refuses it with more than one GPU (data, tensor or pipeline "
          "parallel) and VllmConfig without VLLM_WORKER_MULTIPROC_METHOD=spawn (ValueErrors kvguard does not render)")


@pytest.mark.parametrize("version", ["0.19.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("model", ["Qwen/Qwen2.5-VL-7B-Instruct", "google/gemma-3-27b-it"])
@pytest.mark.parametrize("args", [
    ("--mm-tensor-ipc", "torch_shm"),
    ("--mm-tensor-ipc", "torch_shm", "-tp", "2"),
    ("--mm-tensor-ipc", "direct_rpc", "--mm-tensor-ipc", "torch_shm"),
])
def test_a_multimodal_model_is_undecidable(serve_json, version, model, args):
    status, data = serve_json(version, *args, model=model)
    assert (status, data["ok"], data["reason_kind"], data["reason"]) == (2, None, "undecidable", REASON)


@pytest.mark.parametrize(("model", "args"), [
    # the last value counts
    ("Qwen/Qwen2.5-VL-7B-Instruct", ("--mm-tensor-ipc", "torch_shm", "--mm-tensor-ipc", "direct_rpc")),
    ("Qwen/Qwen2.5-VL-7B-Instruct", ("--mm-tensor-ipc", "direct_rpc", "-tp", "2")),
    ("Qwen/Qwen3-8B", ("--mm-tensor-ipc", "torch_shm", "-tp", "2")),
])
def test_what_is_accepted(serve_json, model, args):
    status, data = serve_json("0.33.0", *args, model=model)
    assert (status, data["ok"]) == (0, True)


def test_the_option_is_unknown_before_0_19_0(serve_json):
    status, data = serve_json("0.18.0", "--mm-tensor-ipc", "torch_shm", model="Qwen/Qwen2.5-VL-7B-Instruct")
    assert status == 1 and "unrecognized arguments: --mm-tensor-ipc torch_shm" in data["message"]
