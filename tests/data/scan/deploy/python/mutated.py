import subprocess

cmd = ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"]
if __name__ == "__main__":
    cmd.append("--enforce-eager")
    subprocess.run(cmd)
