#!/bin/sh
docker run --gpus 2 vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
docker run --gpus all vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
docker run --gpus count=4 -e CUDA_VISIBLE_DEVICES=0,1 vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B -tp 4 --max-model-len 4096
docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1 vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=all vllm/vllm-openai:v0.28.0 Qwen/Qwen3-8B -tp 4
