#!/usr/bin/env bash
# Synthetic launch script for kvguard scan tests.
set -euo pipefail
TP=8
export VLLM_MLA_DISABLE=0

vllm serve Qwen/Qwen3-32B \
  --tensor-parallel-size $TP \
  --decode-context-parallel-size 2 \
  --port 8000

vllm serve deepseek-ai/DeepSeek-R1 -tp ${TP} -dcp 8 --port "${PORT}" > server.log 2>&1 &

vllm serve Qwen/Qwen3-32B -tp $GPUS -dcp 2

echo "starting" && python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B -tp 2

vllm serve Qwen/Qwen3-32B -tp ${TP_SIZE:-4}
