# the final stage starts from the vllm stage: its image, its pip install and its CMD
FROM vllm/vllm-openai:v0.11.1 AS vllm
RUN pip install vllm==0.10.2
CMD ["--model", "Qwen/Qwen3-32B", "-tp", "4"]
FROM vllm
ENV HF_HOME=/models
