# vLLM 0.20.0 reinstalled over the v0.10.2 image: its ENTRYPOINT is still the api_server
FROM vllm/vllm-openai:v0.10.2
RUN pip install vllm==0.20.0
CMD ["Qwen/Qwen3-8B", "-tp", "2"]
