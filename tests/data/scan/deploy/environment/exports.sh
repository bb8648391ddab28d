export VLLM_MLA_DISABLE=1
unset VLLM_MLA_DISABLE
vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
VLLM_MLA_DISABLE=1
vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
export VLLM_MLA_DISABLE
vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8
