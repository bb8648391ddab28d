#!/usr/bin/env bash
set -euo pipefail
uv pip install "vllm==0.26.0"
vllm serve Qwen/Qwen3-32B -tp 4 -pcp 2 -dp 2
docker run --gpus all vllm/vllm-openai:v0.25.1 Qwen/Qwen3-32B -tp 2 -pcp 2 -dp 2
docker run --gpus all vllm/vllm-openai:latest Qwen/Qwen3-8B -tp 2
docker run --gpus all vllm/vllm-openai:v0.40.0 Qwen/Qwen3-8B -tp 2
docker run --gpus all vllm/vllm-openai:nightly Qwen/Qwen3-8B -tp 2
