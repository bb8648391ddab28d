import subprocess
subprocess.run(["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"]
