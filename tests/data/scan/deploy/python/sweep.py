"""A benchmark sweep: one server per layout."""
import subprocess

MODEL = "Qwen/Qwen3-32B"
TP_SIZES = [2, 4]


def sweep():
    for tp in TP_SIZES:
        for dcp in (1, 4):
            subprocess.run(["vllm", "serve", MODEL, "-tp", str(tp), "-dcp", str(dcp)], check=True)
    for model, tp in [("Qwen/Qwen3-8B", 3), ("Qwen/Qwen3-8B", 2)]:
        subprocess.run(f"vllm serve {model} -tp {tp}", shell=True)
    for tp in range(6, 9):
        subprocess.run(["vllm", "serve", MODEL, "-tp", str(tp)])


def reassigned(sizes):
    for tp in [1, 2]:
        tp = tp * 2
        subprocess.run(["vllm", "serve", MODEL, "-tp", str(tp)])
    for tp in sizes:
        subprocess.run(["vllm", "serve", MODEL, "-tp", str(tp)])
