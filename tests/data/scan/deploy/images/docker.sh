#!/bin/sh
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.11.0 \
    --model Qwen/Qwen3-32B --tensor-parallel-size 8
