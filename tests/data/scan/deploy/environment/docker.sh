#!/bin/sh
docker run -e VLLM_MLA_DISABLE --gpus all vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
export VLLM_MLA_DISABLE=1
docker run --gpus all vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
docker run -e VLLM_MLA_DISABLE --gpus all vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
unset VLLM_MLA_DISABLE
docker run --env-file vllm.env vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
docker run --env-file missing.env vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
