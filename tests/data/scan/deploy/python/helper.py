"""A launcher whose helper starts the server: each call of it is a launch."""
import subprocess

MODEL = "Qwen/Qwen3-32B"


def launch_server(model, tp, port=8000, extra=None):
    cmd = ["vllm", "serve", model, "--tensor-parallel-size", str(tp), "--port", str(port)]
    return subprocess.Popen(cmd)


def rebinding(tp):
    tp = int(tp) * 2
    subprocess.run(["vllm", "serve", MODEL, "-tp", str(tp)])


def main(args, *rest):
    launch_server(MODEL, 3)
    launch_server("Qwen/Qwen3-8B", tp=2, port=9000)
    launch_server(args.model, args.tp)
    for tp in [4, 8]:
        launch_server(MODEL, tp)
    rebinding(2)
