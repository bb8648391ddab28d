#!/bin/sh
export VLLM_MLA_DISABLE="$(cat /etc/mla)"
vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
