#!/usr/bin/env python3
"""Starts vLLM for the benchmark (a launcher as deployment repositories write them)."""
import asyncio
import os
import shlex
import subprocess
import sys

MODEL = "Qwen/Qwen3-30B-A3B"
TP = 4
PORT = 8000

os.environ["VLLM_USE_V1"] = "1"


def serve():
    cmd = [
        "vllm", "serve", MODEL,
        "--tensor-parallel-size", str(TP),
        "--port", f"{PORT}",
    ]
    return subprocess.Popen(cmd, env={**os.environ, "VLLM_LOGGING_LEVEL": "INFO"})


def serve_api_server(args):
    subprocess.run([sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL,
                    "--tensor-parallel-size", str(args.tp)], check=True)


def serve_shell():
    os.system(f"vllm serve {MODEL} -tp 3 --port {PORT}")


def serve_from_environment():
    subprocess.run(["vllm", "serve", MODEL, "-tp", os.environ.get("TP", "2")])


def serve_split():
    subprocess.run(shlex.split(f"vllm serve {MODEL} -tp 8 -dcp 3"))


async def serve_async():
    await asyncio.create_subprocess_exec("vllm", "serve", MODEL, "-tp", "16")


def not_vllm():
    subprocess.run(["nvidia-smi", "-L"])
