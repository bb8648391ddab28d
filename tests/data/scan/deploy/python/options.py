#!/usr/bin/env python3
"""Serves a model with the layout given on the command line (argparse), as benchmark launchers do."""
import argparse
import subprocess


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="Qwen/Qwen3-32B")
    parser.add_argument("--tensor-parallel-size", "-tp", type=int, default=3)
    parser.add_argument("--pp", dest="pipeline", type=int, default=1)
    parser.add_argument("--port", required=True)
    parser.add_argument("--max-len", type=int)
    parser.add_argument("--eager", action="store_true")
    return parser.parse_args()


def serve(args):
    subprocess.run(["vllm", "serve", args.model, "-tp", str(args.tensor_parallel_size), "-pp", str(args.pipeline)])


def serve_on_port(opts):
    subprocess.run(["vllm", "serve", opts.model, "--port", opts.port])


def serve_long(args):
    subprocess.run(["vllm", "serve", args.model, "-tp", "4", "--max-model-len", str(args.max_len)])


if __name__ == "__main__":
    args = parse_args()
    serve(args)
    serve_on_port(args)
    serve_long(args)
