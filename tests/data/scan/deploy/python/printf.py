"""Launch lines built with printf-style formatting and format specs, as older launchers write them."""
import os
import subprocess

MODEL = "Qwen/Qwen3-8B"
TP = 3
ARGS = (MODEL, 2)

os.system("vllm serve %s -tp %d" % (MODEL, TP))
os.system("vllm serve %s -tp %s" % ARGS)
os.system("vllm serve " + MODEL + " -tp " + str(TP) + " --max-model-len %d" % 4096)
subprocess.run(["vllm", "serve", MODEL, "-tp", f"{TP:d}", "--gpu-memory-utilization", f"{0.9:.2f}"])
os.system("vllm serve " + model_of(os.environ) + " -tp 2")
os.system("vllm serve %s -tp %d" % (MODEL, "four"))
os.system("vllm serve %s -tp %s" % (MODEL,))
os.system("vllm serve %s -tp %s 100%%" % (MODEL, TP))
