#!/bin/sh
vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2
