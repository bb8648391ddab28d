import shlex
import subprocess

cmd = ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"]
if __name__ == "__main__":
    cmd.append("--enforce-eager")
    subprocess.run(cmd)


def conditional(eager):
    args = ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]
    if eager:
        args.append("--enforce-eager")
    subprocess.run(args)


def built():
    args = ["vllm", "serve", "Qwen/Qwen3-8B"]
    args += ["-tp", "2"]
    args.extend(["-dcp", "4"])
    subprocess.run(args + ["--port", "8000"])


def build_command(tp):
    return ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", str(tp)]


def joined():
    args = ["vllm", "serve", "Qwen/Qwen3-8B", "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}']
    subprocess.run(" ".join(args), shell=True)
    subprocess.run(shlex.join(args + ["-tp", "3"]), shell=True)


def shell_list():
    subprocess.run(["vllm serve Qwen/Qwen3-8B -tp 2 -dcp 4", "ignored"], shell=True)
