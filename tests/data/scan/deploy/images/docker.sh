#!/bin/sh
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.11.0 \
    --model Qwen/Qwen3-32B --tensor-parallel-size 8
docker run --gpus all vllm/vllm-openai:v0.28.0 vllm serve Qwen/Qwen3-8B -tp 2
docker run --gpus 2 --entrypoint="" vllm/vllm-openai:v0.28.0 vllm serve Qwen/Qwen3-8B -tp 4
docker run --entrypoint python3 vllm/vllm-openai:v0.10.2 -m vllm.entrypoints.openai.api_server \
    --model Qwen/Qwen3-8B -tp 3
sudo -E docker run --gpus 2 vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
