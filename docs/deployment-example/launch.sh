#!/usr/bin/env bash
# Start the DeepSeek-R1 server on one 8-GPU node.
# MLA keeps one latent KV "head": at -tp 8 every rank would hold the whole cache (duplication
# factor 8); -dcp 8 shards the tokens across those copies instead.
set -euo pipefail

TP=${TP:-8}
DCP=8

exec vllm serve deepseek-ai/DeepSeek-R1 \
  --tensor-parallel-size "$TP" \
  --decode-context-parallel-size "$DCP" \
  --port 8000
