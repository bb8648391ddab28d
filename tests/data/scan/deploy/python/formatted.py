import os
import subprocess

MODEL = "Qwen/Qwen3-32B"


def launch(args):
    cmd = f"vllm serve {MODEL} -tp 2 -dcp 4"
    subprocess.Popen(cmd.split())
    subprocess.Popen(f"vllm serve {args.model} -tp 3".split())
    os.system("vllm serve {} -tp {}".format(MODEL, 3))
    os.system("vllm serve {m} -tp {tp} -dcp {dcp}".format(m=MODEL, tp=args.tp, dcp=3))
    subprocess.run("vllm serve {0} -tp {1:d}".format(MODEL, 4), shell=True)
    subprocess.run("vllm serve {0} -tp {1} {".format(MODEL, 3), shell=True)
    subprocess.run("vllm serve {0} -tp {1:99999d}".format(MODEL, 3), shell=True)
