# vLLM 0.10.2 reinstalled over the v0.11.1 image: its ENTRYPOINT is still `vllm serve`
FROM vllm/vllm-openai:v0.11.1
RUN pip install vllm==0.10.2
CMD ["--model", "Qwen/Qwen3-32B", "-tp", "4"]
