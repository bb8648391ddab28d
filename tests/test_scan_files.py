"""Deployment files read as the launch they make, checked against the release they pin.

The files under tests/data/scan/deploy/ were written for these tests; the expected lines,
argv and verdicts were worked out by hand from Docker's / Kubernetes' / the charts' rules
(kvguard.scan, kvguard.scan.charts, kvguard.launch.pins) and vLLM's checks (README tables, docs/rules.md).
Every case runs through the API (kvguard.scan.scan) and the CLI (kvguard scan --format json).
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.cli import EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED, run
from kvguard.front import examine as build_report
from kvguard.scan import find_launches, scan

pytest.importorskip("yaml")

DEPLOY = os.path.join(os.path.dirname(__file__), "data", "scan", "deploy")

GQA_DCP_028 = ("Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (8) to be greater than "
               "the model's total number of KV heads (8).")
GQA_DCP_020 = "tensor parallel size 8 must be greater than total num kv heads 8"

# (file, vllm-version override or None, line, expectations)
#   status; check; exc (exc_type); message (prefix); argv (exact tokens); has (tokens that must appear in
#   order, as one run); lacks (a token that must not appear); release (vllm_version); source (a part of
#   vllm_version_source); note (a part of a note); reason (an undecidable's reason, prefix); label
CASES = [
    # ---- item 6: docker-compose entrypoint + command, as Docker joins them
    ("compose/compose.yaml", None, 5, dict(
        status="refused", check="PV_tp_dcp_div", message="tp_size=8 must be divisible by dcp_size=3.",
        argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3"], release="0.28.0",
        source="image vllm/vllm-openai:v0.28.0 at")),
    ("compose/compose.yaml", None, 9, dict(
        status="accepted", argv=["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"])),
    ("compose/compose.yaml", None, 13, dict(     # command only: the image's ENTRYPOINT `vllm serve` runs it
        status="refused", message=GQA_DCP_028,
        argv=["vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", "8", "--decode-context-parallel-size",
              "2"])),
    ("compose/compose.yaml", None, 17, dict(     # entrypoint [sh, -c] + command [script]
        status="accepted", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"])),
    ("compose/compose.yaml", None, 20, dict(     # a string entrypoint + a folded command
        status="refused", message="PCP does not support data parallelism yet.",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B", "-tp", "4",
              "-pcp", "2", "-dp", "2"])),
    ("compose/compose.yaml", None, 26, dict(     # the image's `vllm serve` + the command's own: vLLM refuses it
        status_not="accepted", argv=["VLLM_MLA_DISABLE=1", "vllm", "serve", "vllm", "serve", "Qwen/Qwen3-8B"],
        note="the image's own entrypoint runs before this command")),
    # ---- the image's own entrypoint: `python3 -m vllm.entrypoints.openai.api_server` up to v0.11.0 (the
    # vllm-openai target of docker/Dockerfile in each release's sdist), `vllm serve` from v0.11.1
    ("images/compose.yaml", None, 5, dict(       # --model is the api_server's own option: not 0.10.2's serve error
        status="accepted", release="0.10.2", note="vLLM's images before 0.11.1 start",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B", "-tp", "4"])),
    ("images/compose.yaml", "0.10.2", 5, dict(   # the release asked for decides the image's entrypoint
        status="accepted", argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                                 "Qwen/Qwen3-32B", "-tp", "4"])),
    ("images/compose.yaml", None, 8, dict(
        status="accepted", release="0.11.1", argv=["vllm", "serve", "--model", "Qwen/Qwen3-32B", "-tp", "4"])),
    ("images/compose.yaml", None, 11, dict(      # the api_server parses a positional model and serves --model
        status="undecidable", reason="`python -m vllm.entrypoints.openai.api_server` does not read a positional "
                                     "model ('Qwen/Qwen3-8B'): it serves --model, by default Qwen/Qwen3-0.6B")),
    ("images/compose.yaml", "0.20.0", 11, dict(
        status="accepted", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"])),
    ("images/compose.yaml", None, 14, dict(
        status="refused", message="api_server.py: error: unrecognized arguments: serve Qwen/Qwen3-8B",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "vllm", "serve", "Qwen/Qwen3-8B"])),
    # vLLM reinstalled over a vLLM image: the release is the reinstalled one, the ENTRYPOINT the image tag's
    ("images/reinstall-older.Dockerfile", None, 4, dict(
        status="refused", release="0.10.2", source="pip install vllm==0.10.2 at", note="ENTRYPOINT is its tag's (0.11.1",
        message="With `vllm serve`, you should provide the model as a positional argument or in a config file instead "
                "of via the `--model` option.", argv=["vllm", "serve", "--model", "Qwen/Qwen3-32B", "-tp", "4"])),
    ("images/multistage.Dockerfile", None, 4, dict(  # `FROM vllm` (the stage) inherits its pin and its CMD
        status="refused", release="0.10.2", source="pip install vllm==0.10.2 at", note="ENTRYPOINT is its tag's (0.11.1",
        argv=["vllm", "serve", "--model", "Qwen/Qwen3-32B", "-tp", "4"])),
    ("images/reinstall-newer.Dockerfile", None, 4, dict(
        status="undecidable", release="0.20.0", note="ENTRYPOINT is its tag's (0.10.2",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "Qwen/Qwen3-8B", "-tp", "2"],
        reason="`python -m vllm.entrypoints.openai.api_server` does not read a positional model ('Qwen/Qwen3-8B')")),
    ("images/docker.sh", None, 2, dict(
        status="accepted", release="0.11.0",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B",
              "--tensor-parallel-size", "8"])),
    ("images/docker.sh", "0.10.2", 2, dict(
        status="accepted", has=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model"])),
    ("images/docker.sh", None, 4, dict(          # the arguments' own `vllm serve` reaches the image's as arguments
        status="refused", message="vllm: error: unrecognized arguments: serve Qwen/Qwen3-8B", release="0.28.0",
        argv=["vllm", "serve", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"],
        note="the image's own entrypoint runs before this command")),
    ("images/docker.sh", None, 5, dict(          # --entrypoint="": the command alone, in the image's container
        status="refused", release="0.28.0", note="given 2 GPUs (docker run --gpus)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.",
        argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"])),
    ("images/docker.sh", None, 6, dict(          # --entrypoint python3: -m … follows it
        status="refused", release="0.10.2",
        message="Total number of attention heads (32) must be divisible by tensor parallel size (3).",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B", "-tp", "3"])),
    ("images/docker.sh", None, 8, dict(          # `sudo -E docker run`: the container's GPUs and pin all the same
        status="refused", release="0.28.0", note="given 2 GPUs (docker run --gpus)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.",
        argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"])),
    ("images/Dockerfile", None, 3, dict(
        status="accepted", release="0.10.2",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B", "-tp", "2"])),
    ("images/k8s.yaml", None, 11, dict(
        status="refused", release="0.11.0",
        message="Total number of attention heads (64) must be divisible by tensor parallel size (3).",
        argv=["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B",
              "--tensor-parallel-size", "3"])),
    # ---- compose interpolation from the project's .env; a service's env_file is its environment
    ("compose-env/compose.yaml", None, 5, dict(
        status="refused", release="0.28.0", note="env_file missing.env: not found beside this file",
        message="World size (4) is larger than the number of available GPUs (2) in this node.",
        argv=["VLLM_USE_V1=1", "CUDA_VISIBLE_DEVICES=0,1", "vllm", "serve", "Qwen/Qwen3-32B",
              "--tensor-parallel-size", "4"])),
    ("compose-env/compose.yaml", None, 12, dict(     # $$X: the service's environment (env_file, then environment)
        status="accepted", argv=["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"])),
    ("compose-env/compose.yaml", None, 18, dict(     # the shell's own environment: not in any file
        status="undecidable", reason_kind="unresolved-variable")),
    # ---- item 7: Markdown terminal transcripts
    ("guides/transcript.md", "0.28.0", 5, dict(
        status="refused", message="tp_size=8 must be divisible by dcp_size=3.",
        argv=["vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", "8", "--decode-context-parallel-size",
              "3"])),
    ("guides/transcript.md", "0.28.0", 13, dict(
        status="accepted", has=["-dcp", "8", "--served-model-name", "deepseek r1"])),
    ("guides/transcript.md", "0.28.0", 19, dict(status="accepted",
                                                argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"])),
    ("guides/transcript.md", "0.28.0", 24, dict(status="accepted",
                                                argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"])),
    # ---- item 8: production-stack chart values and KServe LLMInferenceService
    ("prodstack/values.yaml", None, 13, dict(
        status="refused", check="MC_dcp_tp_gt_kv", message=GQA_DCP_028, label="modelSpec qwen (Deployment)",
        has=["--tensor-parallel-size", "8", "--decode-context-parallel-size", "2"], release="0.28.0",
        source="values.yaml:7")),
    ("prodstack/values.yaml", None, 23, dict(
        status="accepted", label="modelSpec r1-ray (KubeRay head)",
        has=["--distributed-executor-backend", "ray", "--tensor-parallel-size", "8", "--pipeline-parallel-size",
             "2", "--decode-context-parallel-size", "8"])),
    ("prodstack/values.yaml", None, 34, dict(
        status="accepted", label="modelSpec r1-lws (LeaderWorkerSet leader)",
        has=["--distributed-executor-backend", "mp", "--pipeline-parallel-size", "2", "--nnodes", "2",
             "--node-rank", "0"])),
    ("prodstack/values.yaml", None, 40, dict(
        status="accepted", lacks="--pipeline-parallel-size", note="pipelineParallelSize is not rendered")),
    # the Deployment's container is given requestGPU GPUs, or its own resources' (the chart's chart.resources)
    ("prodstack/values.yaml", None, 55, dict(
        status="refused", check="PC_gpu_count", label="modelSpec short-of-gpus (Deployment)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.",
        note="the container is given 2 GPUs (requestGPU: 2)")),
    ("prodstack/values.yaml", None, 65, dict(
        status="accepted", note="the container is given 4 GPUs (resources.limits nvidia.com/gpu: 4)")),
    ("prodstack/values.yaml", None, 76, dict(       # lmcacheConfig.cudaVisibleDevices comes after env
        status="refused", check="PC_gpu_count",
        message="World size (2) is larger than the number of available GPUs (1) in this node.",
        argv=["CUDA_VISIBLE_DEVICES=0", "vllm", "serve", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "8000",
              "--no-enable-prefix-caching", "--tensor-parallel-size", "2"])),
    ("kserve/llmisvc.yaml", None, 45, dict(
        status="refused", check="PC_gpu_count", label="LLMInferenceService one-gpu",
        message="World size (2) is larger than the number of available GPUs (1) in this node.",
        note="the container is given 1 GPU (resources.limits nvidia.com/gpu: 1)")),
    # a LeaderWorkerSet's pods get LWS_GROUP_SIZE (the group size), LWS_WORKER_INDEX (0 on the leader)
    ("lws/lws.yaml", None, 15, dict(
        status="accepted", release="0.28.0",
        argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-pp", "2", "--distributed-executor-backend", "ray"])),
    ("lws/lws.yaml", None, 38, dict(             # 16 ranks, 8 GPUs in the leader, no Ray backend
        status="refused", check="PC_gpu_count",
        message="World size (16) is larger than the number of available GPUs (8) in this node.",
        argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-pp", "2"])),
    ("lws/lws.yaml", None, 47, dict(            # the worker template of a group of 2 makes worker 1
        status="accepted", argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-pp", "2", "--nnodes", "2",
                                 "--node-rank", "1", "--headless"])),
    ("kserve/llmisvc.yaml", None, 11, dict(
        status="refused", message=GQA_DCP_028, label="LLMInferenceService qwen3-32b",
        has=["--tensor-parallel-size", "8", "--data-parallel-size", "2", "--data-parallel-size-local", "1"],
        release="0.28.0", source="llmisvc.yaml:19")),
    ("kserve/llmisvc.yaml", None, 31, dict(
        status="accepted", argv=["vllm", "serve", "deepseek-ai/DeepSeek-R1", "--tensor-parallel-size", "8"])),
    ("kserve/llmisvc.yaml", None, 34, dict(
        status="accepted", label="LLMInferenceService r1-pd prefill",
        argv=["vllm", "serve", "deepseek-ai/DeepSeek-R1", "--enable-expert-parallel", "--tensor-parallel-size",
              "8"])),
    # ---- a KubeRay RayJob's entrypoint runs on the head node: its image, environment and (no entrypoint
    # resources asked) GPUs; runtimeEnvYAML's env_vars join the environment, its pip `vllm==X` pins the release
    ("kuberay/rayjob.yaml", None, 7, dict(
        status="refused", check="PC_gpu_count", release="0.20.0", source="image vllm/vllm-openai:v0.20.0 at",
        message="World size (8) is larger than the number of available GPUs (4) in this node.",
        note="given 4 GPUs (resources.limits nvidia.com/gpu: 4)")),
    ("kuberay/rayjob.yaml", None, 26, dict(
        status="accepted", release="0.11.0", source="runtimeEnvYAML pip: vllm==0.11.0 at",
        argv=["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "python", "-m", "vllm.entrypoints.openai.api_server", "--model",
              "Qwen/Qwen3-32B", "-tp", "4", "--max-model-len", "64000"])),
    ("kuberay/rayjob.yaml", None, 47, dict(
        status="accepted", release="0.28.0",
        argv=["VLLM_MLA_DISABLE=1", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-pp", "2",
              "--distributed-executor-backend", "ray"])),
    # ---- a KubeAI Model: the controller's api_server command with --model (the hf:// repository),
    # --served-model-name and spec.args; spec.env; spec.image pins; resourceProfile nvidia-gpu-*:N gives N GPUs
    ("kubeai/models.yaml", None, 10, dict(
        status="refused", check="MC_heads_tp", label="KubeAI Model qwen3-32b",
        message="Total number of attention heads (64) must be divisible by tensor parallel size (3).",
        argv=["VLLM_ALLOW_RUNTIME_LORA_UPDATING=True", "python3", "-m", "vllm.entrypoints.openai.api_server",
              "--model=Qwen/Qwen3-32B", "--served-model-name=qwen3-32b", "--tensor-parallel-size=3",
              "--max-model-len=32768"],
        note="given 4 GPUs (resourceProfile nvidia-gpu-h100:4")),
    ("kubeai/models.yaml", None, 27, dict(
        status="refused", check="PC_gpu_count", release="0.20.0", source="image vllm/vllm-openai:v0.20.0 at",
        message="World size (8) is larger than the number of available GPUs (4) in this node.",
        has=["VLLM_USE_V1=1", "python3"], note="cacheProfile")),
    ("kubeai/models.yaml", None, 49, dict(status="undecidable", reason="cannot find a config.json for "
                                                                        "'s3://my-bucket/llama-3.1-8b'")),
    # ---- Makefiles: make expands $(NAME) / ${NAME} (the file's assignments: ?= a default, := now, += appended)
    # and $$ before each recipe line's own shell; `export NAME = value` is the recipes' environment
    ("make/Makefile", None, 11, dict(
        status="refused", check="PV_tp_dcp_div", message="tp_size=8 must be divisible by dcp_size=3.",
        argv=["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "--max-model-len", "32768", "-dcp",
              "3"])),
    ("make/Makefile", None, 15, dict(           # a make function's value is not known: one unresolved word
        status="undecidable", reason="unresolved variable $(shell nproc)", lacks="nproc)")),
    ("make/Makefile", None, 18, dict(
        status="refused", check="PC_gpu_count", release="0.20.0", argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"],
        note="given 2 GPUs (docker run --gpus)")),
    # make expands a recipe when it runs it (MODEL set below the rule is read); a variable a target sets for
    # itself or a condition chooses is not known
    ("make/late.mk", None, 3, dict(status="undecidable", reason="unresolved variable $TP",
                                   has=["vllm", "serve", "Qwen/Qwen3-32B"])),
    ("make/late.mk", None, 6, dict(status="undecidable", reason="unresolved variable $SMALL")),
    ("make/oneshell.mk", None, 4, dict(         # .ONESHELL: one shell runs the recipe, TP=4 reaches the launch
        status="refused", check="PC_gpu_count", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4", "-pp", "3"])),
    # ---- systemd units: ExecStart= in the unit's Environment= (no shell; ${TP} one word); %i the instance
    ("systemd/vllm.service", None, 9, dict(
        status="refused", check="PC_gpu_count",
        message="World size (8) is larger than the number of available GPUs (4) in this node.",
        argv=["CUDA_VISIBLE_DEVICES=0,1,2,3", "VLLM_USE_V1=1", "/opt/vllm/bin/vllm", "serve", "Qwen/Qwen3-32B",
              "--tensor-parallel-size", "8", "--port", "8000"])),
    ("systemd/vllm@.service", None, 4, dict(
        status="undecidable", reason="unresolved variable $INSTANCE", note="EnvironmentFile /etc/default/vllm")),
    ("systemd/shell.service", None, 2, dict(status="refused", check="PV_tp_dcp_div")),
    ("systemd/envfile.service", None, 5, dict(  # the EnvironmentFile beside the unit overrides Environment=
        status="refused", message="tp_size=4 must be divisible by dcp_size=3.",
        argv=["VLLM_USE_V1=1", "/usr/bin/vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4", "-dcp", "3"])),
    # ---- supervisord programs: command (no shell; continuation lines), environment=, %(ENV_X)s from --set
    ("supervisord/supervisord.conf", None, 6, dict(status="undecidable", reason="unresolved variable $TP")),
    ("supervisord/supervisord.conf", "0.28.0", 14, dict(
        status="refused", check="PC_gpu_count",
        message="World size (4) is larger than the number of available GPUs (2) in this node.",
        argv=["CUDA_VISIBLE_DEVICES=0,1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "4"])),
    # ---- Python launchers: subprocess argument lists (no shell), os.system / shlex.split text, os.environ, env=
    ("python/launch.py", "0.28.0", 22, dict(
        status="accepted", argv=["VLLM_LOGGING_LEVEL=INFO", "VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-30B-A3B",
                                 "--tensor-parallel-size", "4", "--port", "8000"])),
    ("python/launch.py", "0.28.0", 26, dict(status="undecidable", reason="unresolved variable $args_tp")),
    ("python/launch.py", "0.28.0", 31, dict(
        status="refused", check="MC_heads_tp",
        message="Total number of attention heads (32) must be divisible by tensor parallel size (3).")),
    ("python/launch.py", "0.28.0", 35, dict(status="accepted", has=["-tp", "2"])),    # os.environ.get default
    ("python/launch.py", "0.28.0", 39, dict(status="refused", message="tp_size=8 must be divisible by dcp_size=3.")),
    ("python/launch.py", "0.28.0", 43, dict(status="refused", check="PC_gpu_count")),
    # a list replayed from the statements that run before the call; a change in a branch leaves its name
    ("python/mutated.py", "0.28.0", 7, dict(
        status="refused", check="MC_heads_tp", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3", "--enforce-eager"])),
    ("python/mutated.py", "0.28.0", 14, dict(status="undecidable", reason="unresolved variable $args",
                                             has=["-tp", "2"])),
    ("python/mutated.py", "0.28.0", 21, dict(
        status="refused", message="tp_size=2 must be divisible by dcp_size=4.",
        argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "-dcp", "4", "--port", "8000"])),
    ("python/mutated.py", "0.28.0", 25, dict(status="undecidable", reason="unresolved variable $tp")),  # a helper's
    # " ".join: the shell splits the JSON that shlex.join keeps whole
    ("python/mutated.py", "0.28.0", 30, dict(
        status="refused", exc="SystemExit",
        argv=["vllm", "serve", "Qwen/Qwen3-8B", "--speculative-config", "{method:", "ngram,",
              "num_speculative_tokens:", "3}"])),
    ("python/mutated.py", "0.28.0", 31, dict(
        status="refused", check="SC_draft_verify(MC_heads_tp)",
        argv=["vllm", "serve", "Qwen/Qwen3-8B", "--speculative-config",
              '{"method": "ngram", "num_speculative_tokens": 3}', "-tp", "3"])),
    # ---- Jupyter notebooks: code cells as one script, `!` lines with IPython's expansion, %env, %%bash, markdown
    ("notebook/serve.ipynb", "0.28.0", 12, dict(status="refused", check="MC_heads_tp")),       # a markdown cell
    ("notebook/serve.ipynb", "0.28.0", 31, dict(
        status="refused", message="tp_size=2 must be divisible by dcp_size=4.",
        argv=["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2", "-dcp", "4"])),   # {MODEL}, {TP}
    ("notebook/serve.ipynb", "0.28.0", 40, dict(
        status="refused", check="MC_heads_tp",
        argv=["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", "3"])),  # $MODEL, `\`
    # `args` is bound nowhere: IPython cannot expand {args.model} and leaves the whole line as written
    ("notebook/serve.ipynb", "0.28.0", 50, dict(
        status="undecidable", reason="unresolved variable $NOT_PYTHON", has=["{args.model}"])),
    ("notebook/serve.ipynb", "0.28.0", 60, dict(
        status="refused", check="PC_gpu_count", argv=["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-8B", "-tp", "16"])),
    ("notebook/serve.ipynb", "0.28.0", 70, dict(status="refused", check="MC_heads_tp")),       # %%writefile x.sh
    ("notebook/serve.ipynb", "0.28.0", 90, dict(status="accepted", has=["-tp", "2"])),         # subprocess
    ("notebook/serve.ipynb", "0.28.0", 91, dict(status="refused", check="PC_gpu_count")),      # out = !…
    # str.split() and str.format(): a field kvguard cannot format is an unresolved word, an unmatched brace no launch
    ("python/formatted.py", "0.28.0", 9, dict(status="refused", check="PV_tp_dcp_div")),
    ("python/formatted.py", "0.28.0", 10, dict(status="undecidable", reason="unresolved variable $args_model")),
    ("python/formatted.py", "0.28.0", 11, dict(
        status="refused", check="MC_heads_tp", argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "3"])),
    ("python/formatted.py", "0.28.0", 12, dict(status="undecidable", reason="unresolved variable $args_tp")),
    ("python/formatted.py", "0.28.0", 13, dict(status="accepted", argv=["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4"])),
    ("python/formatted.py", "0.28.0", 15, dict(status="undecidable", reason="unresolved variable $format_field")),
    ("python/mutated.py", "0.28.0", 35, dict(status="refused", check="PV_tp_dcp_div")),  # shell=True: the first item
    # ---- item 10: the release each launch's deployment pins
    ("pins/Dockerfile", None, 3, dict(
        status="refused", exc="AssertionError", message=GQA_DCP_020, release="0.20.0",
        source="image vllm/vllm-openai:v0.20.0 at")),        # ARG default names the FROM tag
    ("pins/Dockerfile.pip", None, 3, dict(
        status="refused", exc="ValueError", message=GQA_DCP_028, release="0.28.0",
        source="pip install vllm==0.28.0 at")),              # a later pip pin replaces the image's vLLM
    ("pins/serve.sh", None, 4, dict(
        status="refused", message="PCP does not support data parallelism yet.", release="0.26.0",
        source="uv pip install vllm==0.26.0 at")),
    ("pins/serve.sh", None, 5, dict(                        # refused by the workers (attention backend)
        status="refused", exc="AssertionError", release="0.25.1", source="image vllm/vllm-openai:v0.25.1",
        message="PCP requires attention impls' support, but the impl FlashAttentionImpl does not support PCP.")),
    ("pins/serve.sh", None, 6, dict(status="accepted", release="0.33.0", source="latest: read as the newest")),
    ("pins/serve.sh", None, 7, dict(status="undecidable", reason_kind="unknown-version", release=None)),
    ("pins/serve.sh", None, 8, dict(status="undecidable", reason_kind="unknown-version", release=None)),
    ("pins/beside/run.sh", None, 2, dict(
        status="refused", exc="AssertionError", release="0.20.0", source="requirements.txt: vllm==0.20.0")),
    ("pins/pyproject/launch.sh", None, 2, dict(
        status="refused", exc="ValueError", release="0.28.0", source="pyproject.toml: vllm[audio]==0.28.0")),
    # ---- the container's environment: Kubernetes expands $(NAME) from `env`; a shell sees the environment
    ("environment/k8s.yaml", None, 10, dict(
        status="refused", check="MC_heads_tp",
        argv=["vllm", "serve", "--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "3"],
        message="Total number of attention heads (32) must be divisible by tensor parallel size (3).")),
    ("environment/k8s.yaml", None, 15, dict(            # PP from a config map: not in the file
        status="undecidable", reason_kind="unresolved-variable", unresolved=["PP"], has=["-tp", "2"])),
    ("environment/k8s.yaml", None, 21, dict(            # a VLLM_* variable from a secret that 0.28.0 does not
        status="accepted")),                            # define (VLLM_USE_V1: up to 0.11.0): its value is not read
    ("environment/k8s.yaml", None, 37, dict(            # one it defines and reads: undecidable
        status="undecidable", reason_kind="unresolved-variable", unresolved=["VLLM_USE_DEEP_GEMM"])),
    ("environment/k8s.yaml", None, 26, dict(            # bash sees TP, itself $(N) expanded by Kubernetes
        status="refused", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])),
    ("environment/k8s.yaml", None, 32, dict(            # $$(TP): Kubernetes' escape, passed as written
        status="refused", argv=["vllm", "serve", "--model", "Qwen/Qwen3-8B", "-tp", "$(TP)"],
        message="vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: '$(TP)'")),
    ("environment/compose.yaml", None, 5, dict(         # $$TP: compose leaves $TP to the container's shell
        status="refused", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])),
    ("environment/compose.yaml", None, 11, dict(        # $TP: compose's own interpolation, from the host
        status="undecidable", reason_kind="unresolved-variable", unresolved=["TP"])),
    ("environment/compose.yaml", None, 17, dict(        # $${TP:-2}: the shell's ${TP:-2}, TP from the service
        status="refused", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])),
    ("environment/compose.yaml", None, 23, dict(        # "$$SPEC": the service's JSON value, its quotes kept
        status="accepted", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--speculative-config",
                                 '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'])),
    ("environment/compose.yaml", None, 28, dict(        # $$HOME in a command compose splits: the word $HOME
        status="refused", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3", "--served-model-name", "$HOME"])),
    ("environment/Dockerfile", None, 3, dict(           # exec form: Docker expands nothing
        status="refused", check="argparse", argv=["vllm", "serve", "--model", "Qwen/Qwen3-8B", "-tp", "$TP"],
        message="vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: '$TP'",
        note="exec form: no shell expands `$NAME` here")),
    ("environment/Dockerfile.shell", None, 3, dict(     # shell-form ENTRYPOINT: sh -c sees ENV
        status="refused", argv=["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])),
    ("environment/serve.sh", None, 3, dict(             # an exported VLLM_* set from a command's output
        status="undecidable", reason_kind="unresolved-variable", unresolved=["VLLM_MLA_DISABLE"])),
    # ---- docker run: the container sees what -e / --env-file pass, not the script's exports
    ("environment/docker.sh", None, 2, dict(            # -e NAME from a docker environment the file does not hold
        status="undecidable", reason_kind="unresolved-variable", unresolved=["VLLM_MLA_DISABLE"])),
    ("environment/docker.sh", None, 4, dict(            # exported, not passed: MLA on
        status="accepted", argv=["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"])),
    ("environment/docker.sh", None, 5, dict(            # -e NAME passes the exported value: 128 KV heads
        status="refused", check="MC_dcp_tp_gt_kv", release="0.20.0", has=["VLLM_MLA_DISABLE=1", "vllm", "serve"])),
    ("environment/docker.sh", None, 7, dict(            # the env file beside the script (its HF_TOKEN not shown)
        status="refused", check="MC_dcp_tp_gt_kv",
        argv=["VLLM_MLA_DISABLE=1", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"])),
    ("environment/docker.sh", None, 8, dict(            # an env file that is not there: noted
        status="accepted", note="--env-file missing.env: not found beside this file")),
    # ---- the shell's own environment: unset, a later export of a variable set before
    ("environment/exports.sh", "0.20.0", 3, dict(status="accepted", argv=["vllm", "serve", "deepseek-ai/DeepSeek-R1",
                                                                        "-tp", "8", "-dcp", "8"])),
    ("environment/exports.sh", "0.20.0", 5, dict(status="accepted", lacks="VLLM_MLA_DISABLE=1")),   # not exported
    ("environment/exports.sh", "0.20.0", 7, dict(status="refused", check="MC_dcp_tp_gt_kv",
                                                 has=["VLLM_MLA_DISABLE=1", "vllm"])),
    # ---- the GPUs a container is given (and CUDA_VISIBLE_DEVICES within them): vLLM counts those
    ("environment/gpus.yaml", None, 8, dict(
        status="refused", check="PC_gpu_count", note="given 2 GPUs (resources.limits nvidia.com/gpu: 2)")),
    ("environment/gpus.yaml", None, 14, dict(status="accepted", note="given 4 GPUs")),
    ("environment/gpus.yaml", None, 22, dict(
        status="refused", note="given 2 GPUs (deploy.resources.reservations.devices device_ids: 2)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.")),
    ("environment/gpus.yaml", None, 37, dict(status="accepted", note="envFrom: the variables of these config maps")),
    ("environment/gpus.sh", None, 2, dict(status="refused", note="given 2 GPUs (docker run --gpus)",
                                          message="World size (4) is larger than the number of available GPUs (2)")),
    ("environment/gpus.sh", None, 3, dict(status="accepted")),                  # --gpus all: the node's 8
    ("environment/gpus.sh", None, 4, dict(status="refused",                     # 4 given, 2 of them visible
                                          message="World size (4) is larger than the number of available GPUs (2)")),
    ("environment/gpus.sh", None, 5, dict(status="refused", check="PC_gpu_count")),
    # no device request: the NVIDIA runtime exposes what NVIDIA_VISIBLE_DEVICES lists (`all`: the node's)
    ("environment/gpus.sh", None, 6, dict(status="refused", note="given 2 GPUs (docker run -e "
                                                                  "NVIDIA_VISIBLE_DEVICES=0,1)",
                                          message="World size (4) is larger than the number of available GPUs (2)")),
    ("environment/gpus.sh", None, 7, dict(status="accepted")),
    ("environment/gpus.yaml", None, 44, dict(
        status="refused", note="given 2 GPUs (environment NVIDIA_VISIBLE_DEVICES=GPU-5d2c3b1e,GPU-77c2a0f4)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.")),
    ("environment/gpus.yaml", None, 50, dict(                                   # compose's service-level gpus:
        status="refused", note="given 2 GPUs (gpus count: 2)",
        message="World size (4) is larger than the number of available GPUs (2) in this node.")),
    ("environment/gpus.yaml", None, 56, dict(status="accepted")),             # gpus: all, the node's 8
    # ---- vLLM's own example chart: image.repository:tag, image.command, image.env, the chart's resources
    ("environment/chart-values.yaml", None, 6, dict(
        status="refused", check="PC_gpu_count", release="0.28.0", source="image vllm/vllm-openai:v0.28.0",
        note="given 1 GPU (resources.limits nvidia.com/gpu: 1)", has=["VLLM_USE_V1=1", "vllm", "serve"])),
    # ---- --vllm-version overrides every pin
    ("pins/Dockerfile", "0.28.0", 3, dict(status="refused", exc="ValueError", release="0.28.0",
                                          source="--vllm-version")),
    ("pins/serve.sh", "0.28.0", 5, dict(status="refused", release="0.28.0", source="--vllm-version")),
]

#: every launch line of each file (none found elsewhere, e.g. the compose redis service)
LINES = {"compose/compose.yaml": {5, 9, 13, 17, 20, 26}, "guides/transcript.md": {5, 13, 19, 24},
         "prodstack/values.yaml": {13, 23, 34, 40, 55, 65, 76}, "kserve/llmisvc.yaml": {11, 31, 34, 45},
         "lws/lws.yaml": {15, 38, 47}, "kuberay/rayjob.yaml": {7, 26, 47}, "kubeai/models.yaml": {10, 27, 49},
         "make/Makefile": {11, 15, 18}, "make/oneshell.mk": {4}, "make/late.mk": {3, 6}, "systemd/vllm.service": {9},
         "systemd/vllm@.service": {4}, "systemd/shell.service": {2},
         "systemd/envfile.service": {5}, "supervisord/supervisord.conf": {6, 14},
         "python/launch.py": {22, 26, 31, 35, 39, 43}, "python/mutated.py": {7, 14, 21, 25, 30, 31, 35},
         "python/formatted.py": {9, 10, 11, 12, 13, 15}, "notebook/serve.ipynb": {12, 31, 40, 50, 60, 70, 90, 91},
         "python/sweep.py": {11, 13, 15, 21, 23}, "python/helper.py": {9, 14},
         "pins/serve.sh": {4, 5, 6, 7, 8}, "environment/k8s.yaml": {10, 15, 21, 26, 32, 37},
         "environment/compose.yaml": {5, 11, 17, 23, 28}, "images/compose.yaml": {5, 8, 11, 14}}


def _needs_toml(rel: str) -> None:
    if rel.startswith("pins/pyproject") and sys.version_info < (3, 11):
        pytest.importorskip("tomli")


def _contains_run(tokens: list[str], run_: list[str]) -> bool:
    return any(tokens[i:i + len(run_)] == run_ for i in range(len(tokens) - len(run_) + 1))


def _check(view: dict, expect: dict) -> None:
    """``view``: one finding as plain values (the same keys from the API and from JSON)."""
    if "status" in expect:
        assert view["status"] == expect["status"], view
    if "status_not" in expect:
        assert view["status"] != expect["status_not"], view
    for key, field in (("check", "check"), ("exc", "exc_type")):
        if key in expect:
            assert view[field] == expect[key], view
    if "message" in expect:
        assert view["message"].startswith(expect["message"]), view
    if "argv" in expect:
        assert view["tokens"] == expect["argv"]
    if "has" in expect:
        assert _contains_run(view["tokens"], expect["has"]), view["tokens"]
    if "lacks" in expect:
        assert expect["lacks"] not in view["tokens"]
    if "release" in expect:
        assert view["vllm_version"] == expect["release"], view
    if "source" in expect:
        assert expect["source"] in view["vllm_version_source"], view
    if "reason_kind" in expect:
        assert view["reason_kind"] == expect["reason_kind"], view
    if "reason" in expect:
        assert (view["reason"] or "").startswith(expect["reason"]), view
    if "note" in expect:
        assert any(expect["note"] in n for n in view["notes"]), view["notes"]
    if "label" in expect:
        assert view["label"] == expect["label"]
    if "unresolved" in expect:
        assert view["unresolved"] == expect["unresolved"], view


def _api_findings(rel: str, version) -> dict[int, dict]:
    result = scan([os.path.join(DEPLOY, rel)], version, lambda r, t, **k: build_report(r, t, **k), None,
                  release_source="--vllm-version")
    out = {}
    for f in result.findings:
        v = f.report.verdict if f.report is not None else None
        out[f.launch.line] = {"status": f.status, "tokens": f.launch.tokens, "label": f.launch.label,
                              "vllm_version": f.vllm_version, "vllm_version_source": f.vllm_version_source,
                              "reason_kind": f.reason_kind, "reason": f.reason, "notes": list(f.launch.notes),
                              "unresolved": list(f.launch.unresolved),
                              "check": v.check if v else None, "exc_type": v.exc_type if v else None,
                              "message": v.message if v else None}
    return out


def _cli_findings(rel: str, version, capsys, *extra: str) -> tuple[int, dict[int, dict]]:
    argv = ["scan", "--format", "json", *extra] + (["--vllm-version", version] if version else [])
    status = run(argv + [os.path.join(DEPLOY, rel)])
    doc = json.loads(capsys.readouterr().out)
    out = {}
    for f in doc["findings"]:
        res = f.get("result") or {}
        out[f["line"]] = {"status": f["status"], "tokens": _split(f["command"]), "label": f["label"],
                          "vllm_version": f["vllm_version"], "vllm_version_source": f["vllm_version_source"],
                          "reason_kind": f.get("reason_kind"), "reason": f.get("reason"), "notes": f["notes"],
                          "check": res.get("check"),
                          "unresolved": f.get("unresolved", []),
                          "exc_type": res.get("exc_type"), "message": res.get("message")}
    return status, out


def _split(command: str) -> list[str]:
    import shlex
    return shlex.split(command)


@pytest.mark.parametrize(("rel", "version", "line", "expect"), CASES,
                         ids=[f"{c[0]}:{c[2]}{'@' + c[1] if c[1] else ''}" for c in CASES])
def test_case_api(rel, version, line, expect):
    _needs_toml(rel)
    found = _api_findings(rel, version)
    assert line in found, sorted(found)
    _check(found[line], expect)


@pytest.mark.parametrize(("rel", "version", "line", "expect"), CASES,
                         ids=[f"{c[0]}:{c[2]}{'@' + c[1] if c[1] else ''}" for c in CASES])
def test_case_cli(rel, version, line, expect, capsys):
    _needs_toml(rel)
    _status, found = _cli_findings(rel, version, capsys)
    assert line in found, sorted(found)
    _check(found[line], expect)


@pytest.mark.parametrize("rel", sorted(LINES))
def test_every_launch_and_only_launches(rel, capsys):
    launches, skipped, _ = find_launches([os.path.join(DEPLOY, rel)])
    assert {launch.line for launch in launches} == LINES[rel] and skipped == []
    _status, found = _cli_findings(rel, "0.28.0", capsys)
    assert set(found) == LINES[rel]


def test_a_compose_dotenv_file_is_read_as_compose_reads_it(tmp_path):
    from kvguard.scan.compose import read_dotenv

    (tmp_path / ".env").write_text(
        "# comment\nA=1\nexport B = two words  # a comment\nC='$literal # kept'\nD=\"x\\ny\"\nE=${A}\n"
        "F=\"quoted\"\nG='open\nnot a line\n", encoding="utf-8")
    scanned = str(tmp_path / "compose.yaml")
    assert read_dotenv(scanned, ".env") == {"A": "1", "B": "two words", "C": "$literal # kept", "F": "quoted"}
    assert read_dotenv(scanned, str(tmp_path / ".env")) == read_dotenv(scanned, ".env")    # absolute: as written
    assert read_dotenv(scanned, "absent.env") is None


def test_set_stands_for_the_shell_environment_which_compose_prefers_to_its_env_file():
    result = scan([os.path.join(DEPLOY, "compose-env", "compose.yaml")], None, build_report,
                  {"TP": "2", "HOST_TP": "2"})
    assert [(f.launch.line, f.status, f.launch.tokens[-2:]) for f in result.findings] == [
        (5, "accepted", ["--tensor-parallel-size", "2"]), (12, "accepted", ["-tp", "2"]),
        (18, "accepted", ["-tp", "2"])]


def test_a_leader_worker_set_makes_one_launch_per_worker_where_the_index_reaches_it():
    result = scan([os.path.join(DEPLOY, "lws", "workers.yaml")], "0.28.0", build_report)
    seen = [(f.launch.line, f.launch.label, f.status, f.launch.tokens[-3:]) for f in result.findings]
    assert seen == [
        (14, None, "accepted", ["0", "--master-addr", "$(LWS_LEADER_ADDRESS)"]),   # the leader: index 0
        (21, "worker 1", "accepted", ["--node-rank", "1", "--headless"]),
        (21, "worker 2", "accepted", ["--node-rank", "2", "--headless"]),
        (25, None, "refused", ["Qwen/Qwen3-8B", "-tp", "3"]),                     # the same in every worker
    ]


def test_make_variables_given_on_the_command_line_win(capsys):
    # `make serve TP=4` is `--set TP=4`: it overrides the makefile's `TP := 8`
    status, found = _cli_findings("make/Makefile", None, capsys, "--set", "TP=4")
    assert status == EXIT_REFUSE
    assert found[11]["tokens"][:6] == ["VLLM_USE_V1=1", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4"]
    assert found[11]["message"] == "tp_size=4 must be divisible by dcp_size=3."


def test_a_template_units_instance_is_given_with_set(capsys):
    status, found = _cli_findings("systemd/vllm@.service", None, capsys, "--set", "INSTANCE=3")
    assert status == EXIT_REFUSE
    assert found[4]["message"] == "Total number of attention heads (32) must be divisible by tensor parallel size (3)."


def test_a_supervisord_environment_reference_is_given_with_set(capsys):
    status, found = _cli_findings("supervisord/supervisord.conf", None, capsys, "--set", "TP=8")
    assert status == EXIT_REFUSE
    assert found[6]["tokens"] == ["CUDA_VISIBLE_DEVICES=0,1", "VLLM_USE_V1=1", "python3", "-m",
                                  "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B",
                                  "--tensor-parallel-size", "8", "--decode-context-parallel-size", "3"]


def test_a_ray_job_driver_that_asks_ray_for_gpus_is_not_given_the_head_nodes():
    result = scan([os.path.join(DEPLOY, "kuberay", "rayjob.yaml")], None, build_report)
    by_line = {f.launch.line: f.launch for f in result.findings}
    assert by_line[7].gpus == 4
    assert by_line[47].gpus is None and not any("GPU" in note for note in by_line[47].notes)


def test_a_ray_jobs_runtime_env_vars_are_its_drivers_environment(tmp_path):
    text = open(os.path.join(DEPLOY, "kuberay", "rayjob.yaml"), encoding="utf-8").read()
    (tmp_path / "job.yaml").write_text(text.replace('VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"', 'OTHER: "1"'),
                                       encoding="utf-8")
    finding = next(f for f in scan([str(tmp_path / "job.yaml")], None, build_report).findings if f.launch.line == 26)
    assert (finding.status, finding.report.verdict.check) == ("refused", "MC_max_len")
    assert finding.report.verdict.message.startswith("User-specified max_model_len (64000) is greater than the derived "
                                              "max_model_len (max_position_embeddings=40960 or model_max_length=None")


def test_without_a_leader_template_the_worker_template_makes_the_leader_too():
    result = scan([os.path.join(DEPLOY, "lws", "no-leader.yaml")], "0.28.0", build_report)
    assert [(f.launch.label, f.launch.tokens[-1]) for f in result.findings] == [("worker 0", "0"), ("worker 1", "1")]


def test_a_leader_worker_set_of_more_than_17_pods_leaves_the_worker_index_open(tmp_path):
    text = open(os.path.join(DEPLOY, "lws", "workers.yaml"), encoding="utf-8").read().replace("size: 3", "size: 18")
    (tmp_path / "lws.yaml").write_text(text, encoding="utf-8")
    result = scan([str(tmp_path / "lws.yaml")], "0.28.0", build_report)
    workers = [f for f in result.findings if f.launch.line == 21]
    assert [(f.status, f.reason_kind, f.launch.label) for f in workers] == [("undecidable", "unresolved-variable", None)]
    assert "$(LWS_WORKER_INDEX)" in workers[0].launch.tokens


def test_production_stack_switched_off_entry_and_disabled_engine(tmp_path):
    # `enabled: false` renders nothing (the entry with tensorParallelSize 3 is not a launch)
    launches, _, _ = find_launches([os.path.join(DEPLOY, "prodstack", "values.yaml")])
    assert [launch.label for launch in launches] == [
        "modelSpec qwen (Deployment)", "modelSpec r1-ray (KubeRay head)",
        "modelSpec r1-lws (LeaderWorkerSet leader)", "modelSpec qwen-pp (Deployment)",
        "modelSpec short-of-gpus (Deployment)", "modelSpec own-resources (Deployment)",
        "modelSpec lmcache-devices (Deployment)"]
    values = tmp_path / "values.yaml"
    values.write_text("servingEngineSpec:\n  enableEngine: false\n  modelSpec:\n    - name: a\n"
                      "      modelURL: Qwen/Qwen3-32B\n      vllmConfig:\n        tensorParallelSize: 8\n"
                      "        extraArgs: [--decode-context-parallel-size, '2']\n")
    assert find_launches([str(values)])[0] == []


def test_nearest_reads_unknown_and_nightly_pins_as_the_closest_older(capsys):
    status, found = _cli_findings("pins/serve.sh", None, capsys, "--nearest")
    assert found[7]["status"] == "accepted" and found[7]["vllm_version"] == "0.33.0"
    assert "closest older ruleset" in found[7]["vllm_version_source"]
    assert found[8]["status"] == "accepted" and "nightly" in found[8]["vllm_version_source"]
    assert status == EXIT_REFUSE            # line 4 stays refused by its own pin (0.26.0)


def test_scan_text_names_a_pinned_release_and_where_it_came_from(capsys):
    status = run(["scan", os.path.join(DEPLOY, "pins", "Dockerfile")])
    out = capsys.readouterr().out
    assert status == EXIT_REFUSE
    assert "vLLM 0.20.0 MC_dcp_tp_gt_kv: AssertionError" in out
    assert f"release: vLLM 0.20.0 (image vllm/vllm-openai:v0.20.0 at {os.path.join(DEPLOY, 'pins', 'Dockerfile')}:2)" \
        in out


# ----------------------------------------------------------------- item 9: Go templates


def test_go_templates_named_explicitly_are_skipped_without_failing(capsys):
    templates = [os.path.join(DEPLOY, "chart", "templates", n) for n in ("deployment.yaml", "job.yaml",
                                                                          "_helpers.tpl")]
    launches, skipped, files = find_launches(templates)
    assert launches == [] and files == 0
    assert [os.path.basename(s.path) for s in skipped] == ["deployment.yaml", "job.yaml", "_helpers.tpl"]
    assert all(s.reason.startswith("Go template") and not s.fatal for s in skipped)
    # as pre-commit runs it: every staged file named, plus a launch that starts
    run_sh = os.path.join(DEPLOY, "pins", "beside", "run.sh")
    status = run(["scan", "--vllm-version", "0.28.0", *templates, os.path.join(DEPLOY, "compose", "compose.yaml")])
    out = capsys.readouterr().out
    assert status == EXIT_REFUSE                # compose.yaml's refusals, nothing from the templates
    assert out.count("skipped: Go template") == 3
    status = run(["scan", "--vllm-version", "0.28.0", *templates])
    assert status == EXIT_ACCEPT
    assert os.path.exists(run_sh)


def test_go_template_in_a_walked_chart_is_listed_as_skipped(capsys):
    status = run(["scan", "--format", "json", os.path.join(DEPLOY, "chart")])
    doc = json.loads(capsys.readouterr().out)
    assert status == EXIT_ACCEPT and doc["findings"] == []
    assert sorted(os.path.basename(s["file"]) for s in doc["skipped"]) == ["deployment.yaml", "job.yaml"]


# ----------------------------------------------------------------- item 10: `check -- docker run …`


def test_check_docker_run_takes_the_release_from_the_image_tag(capsys):
    docker = ["docker", "run", "--gpus", "all", "-e", "VLLM_MLA_DISABLE=0", "vllm/vllm-openai:v0.20.0",
              "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"]
    status = run(["check", "--format", "json", "--", *docker])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_REFUSE
    assert (data["vllm_version"], data["exc_type"]) == ("0.20.0", "AssertionError")
    assert data["message"].startswith(GQA_DCP_020)
    assert data["vllm_version_source"] == "image vllm/vllm-openai:v0.20.0 at the command line"
    status = run(["check", "--format", "json", "--vllm-version", "0.28.0", "--", *docker])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_REFUSE
    assert (data["vllm_version"], data["exc_type"], data["vllm_version_source"]) == (
        "0.28.0", "ValueError", "--vllm-version")
    status = run(["check", "--", "docker", "run", "vllm/vllm-openai:v0.40.0", "Qwen/Qwen3-8B"])
    err = capsys.readouterr().err
    assert status == EXIT_UNDECIDED and "0.40.0" in err and "--nearest" in err
    status = run(["check", "--", "docker", "run", "ubuntu:24.04", "bash"])
    assert status == EXIT_UNDECIDED and "vllm/vllm-openai image" in capsys.readouterr().err


def test_unreadable_pin_files_are_listed_not_fatal(tmp_path, capsys):
    if sys.version_info < (3, 11):
        pytest.importorskip("tomli")
    (tmp_path / "pyproject.toml").write_text("[project\nname = 'broken'\n")
    (tmp_path / "run.sh").write_text("vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8\n")
    status = run(["scan", "--no-config", str(tmp_path / "run.sh")])
    out = capsys.readouterr().out
    assert status == EXIT_ACCEPT
    assert "pyproject.toml: skipped: vLLM pin unreadable: invalid TOML" in out


# ----------------------------------------------------------------- items 6 and 10: `sh -c` scripts in a container


def test_a_shell_script_in_a_container_sees_its_environment_and_its_image_release(tmp_path):
    """`command: [/bin/sh, -c]` + `args: [script]`, a `sh -c` list and a multi-line `command`: the
    launch inside runs in the container, so the container's VLLM_* variables and its image's release
    apply (they used to be dropped: DeepSeek-R1 -dcp 8 with VLLM_MLA_DISABLE=1 passed on 0.33.0)."""
    (tmp_path / "deploy.yaml").write_text(
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: args-script\n"
        "          image: vllm/vllm-openai:v0.20.0\n"
        "          env: [{name: VLLM_MLA_DISABLE, value: '1'}]\n"
        "          command: [/bin/sh, -c]\n"
        "          args: [vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8]\n"             # line 11
        "        - name: block-script\n"
        "          image: vllm/vllm-openai:v0.20.0\n"
        "          env: [{name: VLLM_MLA_DISABLE, value: '1'}]\n"
        "          command:\n"
        "            - /bin/sh\n"
        "            - -c\n"
        "            - |\n"
        "              pip install vllm==0.28.0\n"
        "              vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8\n"           # line 20
        "        - name: own-assignment\n"
        "          image: vllm/vllm-openai:v0.20.0\n"
        "          env: [{name: VLLM_MLA_DISABLE, value: '1'}]\n"
        "          command: [/bin/sh, -c, 'VLLM_MLA_DISABLE=0 vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8']\n")
    (tmp_path / "compose.yaml").write_text(
        "services:\n"
        "  vllm:\n"
        "    image: vllm/vllm-openai:v0.20.0\n"
        "    environment: {VLLM_MLA_DISABLE: '1'}\n"
        "    entrypoint: /bin/bash -c\n"
        "    command: ['vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8']\n")          # line 6
    res = scan([str(tmp_path / "deploy.yaml"), str(tmp_path / "compose.yaml")],
               build_report=lambda r, t, **k: build_report(r, t, **k))
    found = {(os.path.basename(f.launch.path), f.launch.line): f for f in res.findings}
    assert sorted(found) == [("compose.yaml", 6), ("deploy.yaml", 11), ("deploy.yaml", 20), ("deploy.yaml", 24)]
    mla_off = ["VLLM_MLA_DISABLE=1", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"]
    for key, release in ((("deploy.yaml", 11)), "0.20.0"), ((("deploy.yaml", 20)), "0.28.0"), \
                        ((("compose.yaml", 6)), "0.20.0"):
        f = found[key]
        assert f.launch.tokens == mla_off, key
        assert (f.status, f.vllm_version, f.report.verdict.check) == ("refused", release, "MC_dcp_tp_gt_kv"), key
    assert found[("deploy.yaml", 11)].vllm_version_source.startswith("image vllm/vllm-openai:v0.20.0 at ")
    assert found[("deploy.yaml", 20)].vllm_version_source.startswith("pip install vllm==0.28.0 at ")
    own = found[("deploy.yaml", 24)]       # the script's own assignment wins over the container's
    assert own.launch.tokens == ["VLLM_MLA_DISABLE=0", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8",
                                 "-dcp", "8"]
    assert (own.status, own.vllm_version) == ("accepted", "0.20.0")


@pytest.mark.parametrize("options", [
    # vLLM's documented `docker run`: `--ipc=host` right before the image
    ["--runtime", "nvidia", "--gpus", "all", "-v", "/root/.cache/huggingface:/root/.cache/huggingface",
     "-p", "8000:8000", "--ipc=host"],
    ["--gpus", "all", "--rm", "-it"],
    ["-d", "--shm-size", "16g", "--gpus", "all", "--privileged"],
    ["--gpus=all", "-p8000:8000", "--init"],
])
def test_docker_run_options_before_the_image_are_read_as_docker_reads_them(tmp_path, capsys, options):
    """A flag without a value (`--rm`, `-it`, `--privileged`) or an `--opt=value` right before the
    image used to hide the launch (the image was taken for that option's value)."""
    launch = ["docker", "run", "-e", "VLLM_MLA_DISABLE=1", *options, "vllm/vllm-openai:v0.20.0",
              "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"]
    status = run(["check", "--format", "json", "--", *launch])
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_REFUSE
    assert (data["vllm_version"], data["check"]) == ("0.20.0", "MC_dcp_tp_gt_kv")   # MLA off: 128 KV heads
    (tmp_path / "run.sh").write_text(" ".join(launch) + "\n")
    (found,) = find_launches([str(tmp_path / "run.sh")])[0]
    assert found.tokens == ["VLLM_MLA_DISABLE=1", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"]


@pytest.mark.parametrize("env_option", [["-e", "VLLM_MLA_DISABLE=1"], ["--env", "VLLM_MLA_DISABLE=1"],
                                        ["--env=VLLM_MLA_DISABLE=1"], ["-eVLLM_MLA_DISABLE=1"]])
def test_docker_run_env_in_every_spelling_reaches_the_launch(tmp_path, env_option):
    (tmp_path / "run.sh").write_text(" ".join(["docker", "run", *env_option, "--gpus", "all",
                                               "vllm/vllm-openai:v0.20.0", "deepseek-ai/DeepSeek-R1",
                                               "-tp", "8", "-dcp", "8"]) + "\n")
    (found,) = find_launches([str(tmp_path / "run.sh")])[0]
    assert found.tokens[0] == "VLLM_MLA_DISABLE=1"


# ---- GitHub Actions workflows: (line, label) -> (status, tokens, release)
WORKFLOW = {
    (21, "matrix tp=2, pp=1"): ("accepted", "vllm serve Qwen/Qwen3-8B -tp 2 -pp 1", "0.28.0"),
    (21, "matrix tp=2, pp=2"): ("accepted", "vllm serve Qwen/Qwen3-8B -tp 2 -pp 2", "0.28.0"),
    (21, "matrix tp=3, pp=1"): ("refused", "vllm serve Qwen/Qwen3-8B -tp 3 -pp 1", "0.28.0"),   # 32 heads
    (21, "matrix tp=4, pp=1"): ("accepted", "vllm serve Qwen/Qwen3-8B -tp 4 -pp 1", "0.28.0"),   # include
    (31, None): ("undecidable", "VLLM_MLA_DISABLE=$VLLM_MLA_DISABLE vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8",
                 "0.20.0"),                                                   # a secret; the job's container
    (32, None): ("accepted", "vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8", "0.20.0"),      # ${{ env.TP }}
    (33, None): ("undecidable", "vllm serve deepseek-ai/DeepSeek-R1 -tp ${{inputs.tp}} -dcp 8", "0.20.0"),
    (39, None): ("undecidable", "vllm serve Qwen/Qwen3-8B -tp ${{matrix.tp}}", None),   # a matrix from fromJSON
}


def test_a_workflow_is_read_per_job_step_and_matrix_combination(capsys):
    path = os.path.join(DEPLOY, "workflow", "serve.yml")
    result = scan([path], None, lambda r, t, **k: build_report(r, t, **k), None)
    api = {(f.launch.line, f.launch.label): (f.status, " ".join(f.launch.tokens),
                                             f.vllm_version if f.launch.pin is not None else None)
           for f in result.findings}
    assert api == WORKFLOW
    status = run(["scan", "--format", "json", path])
    doc = json.loads(capsys.readouterr().out)
    cli = {(f["line"], f["label"]): (f["status"], " ".join(_split(f["command"]))) for f in doc["findings"]}
    assert cli == {key: value[:2] for key, value in WORKFLOW.items()}
    assert status == EXIT_REFUSE


def test_a_workflow_expression_is_given_with_set(capsys):
    path = os.path.join(DEPLOY, "workflow", "serve.yml")
    status = run(["scan", "--format", "json", "--set", "inputs.tp=4", "--set", "MLA=1", path])
    doc = json.loads(capsys.readouterr().out)
    by_line = {f["line"]: f for f in doc["findings"] if f["label"] is None}
    assert by_line[33]["status"] == "refused"           # -tp 4 -dcp 8
    assert by_line[33]["result"]["check"] == "PV_tp_dcp_div"
    assert by_line[31]["status"] == "undecidable"       # MLA is the secret's name, not a variable
    assert status == EXIT_REFUSE


@pytest.mark.parametrize(("matrix", "combinations"), [
    (None, [{}]),
    ({"tp": [1, 2]}, [{"tp": 1}, {"tp": 2}]),
    ({"tp": [1, 2], "exclude": [{"tp": 1}]}, [{"tp": 2}]),
    # an include extends the combinations whose original values it matches, else it is one of its own
    ({"tp": [1, 2], "include": [{"tp": 2, "gpu": "h100"}, {"tp": 8}]},
     [{"tp": 1}, {"tp": 2, "gpu": "h100"}, {"tp": 8}]),
    ({"tp": [1, 2], "include": [{"gpu": "h100"}]}, [{"tp": 1, "gpu": "h100"}, {"tp": 2, "gpu": "h100"}]),
    ({"include": [{"tp": 1}, {"tp": 2}]}, [{"tp": 1}, {"tp": 2}]),
    # GitHub's documented example (Using a matrix for your jobs: "Expanding or adding matrix configurations")
    ({"fruit": ["apple", "pear"], "animal": ["cat", "dog"],
      "include": [{"color": "green"}, {"color": "pink", "animal": "cat"}, {"fruit": "apple", "shape": "circle"},
                  {"fruit": "banana"}, {"fruit": "banana", "animal": "cat"}]},
     [{"fruit": "apple", "animal": "cat", "color": "pink", "shape": "circle"},
      {"fruit": "apple", "animal": "dog", "color": "green", "shape": "circle"},
      {"fruit": "pear", "animal": "cat", "color": "pink"},
      {"fruit": "pear", "animal": "dog", "color": "green"},
      {"fruit": "banana"}, {"fruit": "banana", "animal": "cat"}]),
    ("${{ fromJSON(x) }}", None),
    ({"tp": "${{ fromJSON(x) }}"}, None),
])
def test_matrix_combinations_as_github_expands_them(matrix, combinations):
    from kvguard.scan.workflows import matrix_combinations

    assert matrix_combinations(matrix) == combinations


@pytest.mark.parametrize("expression, substituted", [
    # GitHub's `||`: the first operand that is not falsy (false, 0, '', null), else the last; a key this
    # matrix combination does not have is null
    ("${{ matrix.pp || 1 }}", "1"), ("${{ matrix.tp || 1 }}", "2"), ("${{ matrix.flag || 'x' }}", "x"),
    ("${{ matrix.zero || '0' }}", "0"), ("${{ matrix.pp || env.PP }}", "4"), ("${{ matrix.pp || '' }}", ""),
    ("${{ matrix.flag || false }}", "false"), ("${{ matrix.pp || 'it''s' }}", "it's"),
    # an operand the file does not hold, or a `||` inside a string: unresolved
    ("${{ env.X || 3 }}", "${{env.X||3}}"), ("${{ 'a||b' || 1 }}", "${{'a||b'||1}}"),
    ("${{ secrets.TP || 2 }}", "${{secrets.TP||2}}"),
])
def test_workflow_or_expressions(expression, substituted):
    from kvguard.scan.workflows import _substitute

    text, unresolved = _substitute(expression, {"tp": 2, "flag": False, "zero": 0}, {"PP": "4"}, {})
    assert text == substituted and unresolved == ([] if "{" not in substituted else [substituted])


# ---- GitLab CI: (line, label) -> (status, tokens, release, check)
GITLAB = {
    (13, None): ("refused", "vllm serve Qwen/Qwen3-8B -tp 3", "0.20.0", "MC_heads_tp"),   # .serve's script, TP 3
    (27, "matrix TP=2"): ("refused", "vllm serve deepseek-ai/DeepSeek-R1 -tp 2 -dcp 8", "0.28.0", "PV_tp_dcp_div"),
    (27, "matrix TP=4"): ("refused", "vllm serve deepseek-ai/DeepSeek-R1 -tp 4 -dcp 8", "0.28.0", "PV_tp_dcp_div"),
    (27, "matrix TP=8, VLLM_MLA_DISABLE=1"): (
        "refused", "VLLM_MLA_DISABLE=1 vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8", "0.28.0", "MC_dcp_tp_gt_kv"),
    (35, None): ("undecidable", "vllm serve Qwen/Qwen3-8B -tp $CI_NODE_TOTAL", "0.33.0", None),   # predefined
}


def test_a_gitlab_pipeline_is_read_per_job_and_matrix_combination(capsys):
    path = os.path.join(DEPLOY, "gitlab", ".gitlab-ci.yml")
    result = scan([path], None, lambda r, t, **k: build_report(r, t, **k), None)
    api = {(f.launch.line, f.launch.label): (f.status, " ".join(f.launch.tokens), f.vllm_version,
                                             f.report.verdict.check if f.report is not None else None)
           for f in result.findings}
    assert api == GITLAB
    status = run(["scan", "--format", "json", path])
    doc = json.loads(capsys.readouterr().out)
    cli = {(f["line"], f["label"]): (f["status"], " ".join(_split(f["command"])), f["vllm_version"],
                                     (f.get("result") or {}).get("check")) for f in doc["findings"]}
    assert cli == GITLAB
    assert status == EXIT_REFUSE


@pytest.mark.parametrize(("parallel", "combinations"), [
    (None, [{}]),
    ({"matrix": [{"TP": ["2", "4"], "PP": "1"}]}, [{"TP": "2", "PP": "1"}, {"TP": "4", "PP": "1"}]),
    ({"matrix": [{"TP": "8"}, {"TP": ["1", "2"], "GPU": ["a", "b"]}]},
     [{"TP": "8"}, {"TP": "1", "GPU": "a"}, {"TP": "1", "GPU": "b"}, {"TP": "2", "GPU": "a"}, {"TP": "2", "GPU": "b"}]),
    (3, [{}]),
])
def test_gitlab_parallel_matrix_combinations(parallel, combinations):
    from kvguard.scan.gitlab import matrix_combinations

    assert matrix_combinations(parallel) == combinations


def test_a_step_s_or_job_s_name_is_no_launch(tmp_path):
    """`name: Run vllm serve with tp 2` labels a step; read as a launch it was refused (model "with")."""
    workflow = tmp_path / "smoke.yml"
    workflow.write_text("on: push\njobs:\n  smoke:\n    name: vllm serve smoke test\n    steps:\n"
                        "      - name: Run vllm serve with tp 2\n        run: vllm serve Qwen/Qwen3-8B -tp 2\n"
                        "      - description: vllm serve m -tp 3\n")
    launches, _skipped, _files = find_launches([str(workflow)])
    assert [(launch.line, launch.tokens) for launch in launches] == [
        (7, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"])]


@pytest.mark.parametrize("line", ["echo Starting vllm serve now", "logger -t boot vllm serve started",
                                  "pkill -f vllm serve", "FOO=1 echo vllm serve Qwen/Qwen3-8B -tp 3"])
def test_a_command_whose_arguments_are_text_launches_nothing(tmp_path, line):
    script = tmp_path / "run.sh"
    script.write_text(line + "\nnohup vllm serve Qwen/Qwen3-8B -tp 2 &\n")
    launches, _skipped, _files = find_launches([str(script)])
    assert [launch.line for launch in launches] == [2]


@pytest.mark.parametrize(("line", "found"), [
    ('bash -c "vllm serve Qwen/Qwen3-8B -tp 3"', True),
    ('tmux new-session -d -s v "vllm serve Qwen/Qwen3-8B -tp 3"', True),
    ('screen -dmS v bash -c "vllm serve Qwen/Qwen3-8B -tp 3"', True),
    ('su vllm -c "cd /srv && vllm serve Qwen/Qwen3-8B -tp 3"', True),
    ('ssh gpu1 "source env/bin/activate; vllm serve Qwen/Qwen3-8B -tp 3"', True),
    ('git commit -m "pass -tp to vllm serve Qwen/Qwen3-8B -tp 3"', False),    # not in command position
    ('if pgrep -f "vllm serve Qwen/Qwen3-8B -tp 3"; then echo up; fi', False),
])
def test_a_command_string_another_command_runs_is_read(tmp_path, line, found):
    script = tmp_path / "run.sh"
    script.write_text(line + "\n")
    launches, _skipped, _files = find_launches([str(script)])
    assert [launch.tokens[-5:] for launch in launches] == (
        [["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"]] if found else [])


@pytest.mark.parametrize("settings, gpus", [
    ("requestGPU: 2", 2),
    ("requestGPU: 0", None),                                        # no limit rendered at 0
    ("requestGPU: 2\n      requestGPUType: amd.com/gpu", None),      # another device plugin's resource
    ("requestGPU: 2\n      lwsSpec: {enabled: true, size: 2}", None),  # the layout spans the set's pods
    ("requestGPU: 2\n      raySpec: {headNode: {requestGPU: 2}}", None),
    ("requestGPU: 8\n      resources: {requests: {nvidia.com/gpu: '3'}}", 3),
])
def test_production_stack_gpus_follow_the_chart_template(tmp_path, settings, gpus):
    values = tmp_path / "values.yaml"
    values.write_text("servingEngineSpec:\n  modelSpec:\n    - name: a\n      modelURL: Qwen/Qwen3-8B\n"
                      f"      {settings}\n      vllmConfig:\n        tensorParallelSize: 4\n")
    launches, _, _ = find_launches([str(values)])
    assert [launch.gpus for launch in launches] == [gpus]


def test_a_python_launchers_unresolved_argument_is_given_with_set(capsys):
    status, found = _cli_findings("python/launch.py", "0.28.0", capsys, "--set", "args_tp=8")
    assert status == EXIT_REFUSE
    assert found[26]["status"] == "accepted"
    assert found[26]["tokens"][-2:] == ["--tensor-parallel-size", "8"]


def test_a_python_script_that_does_not_parse_is_skipped_and_named(capsys):
    status = run(["scan", "--format", "json", os.path.join(DEPLOY, "python", "broken.py")])
    doc = json.loads(capsys.readouterr().out)
    assert status == EXIT_UNDECIDED
    assert doc["findings"] == []
    (reason,) = [s["reason"] for s in doc["skipped"]]
    # the parser's own words differ between Python versions ("'(' was never closed" from 3.10)
    assert reason.startswith(f"unreadable: invalid Python (parsed by Python {sys.version_info[0]}."
                             f"{sys.version_info[1]}): ") and reason.endswith("(line 2)")


def test_python_scripts_that_name_no_vllm_are_not_parsed(tmp_path):
    from kvguard.scan.python import python_launches
    from kvguard.scan.variables import Variables

    assert python_launches("x.py", "this is not Python (", Variables({})) == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "import subprocess\n", "subprocess.run(", "[", "]", ")", '"vllm"', '"serve"', "MODEL", "MODEL = 1\n", ", ",
    "os.system(", 'f"vllm serve {MODEL}"', "*args", "env={**os.environ}", "shell=True", "\n", "cmd", "cmd.append(",
    '"-tp"', "str(", "sys.executable", "os.environ.get(", '"TP"', "shlex.split(", "\x00", "${", "$", "'",
    "X = X\n", "X", "cmd = X\n", " + ", "cmd += ", "cmd.extend(", '" ".join(', "shlex.join(", "def f():\n    ",
    "return ", "if X:\n    ", "cmd = cmd + [", "list(", ".split()", '"vllm serve {} {x:3d}".format(', "x=", "{",
    "for X in [1, 2]:\n    ", "for X, Y in [(1, 2)]:\n    ", "for X in range(3):\n    ", "for X in range(0, 9, 0):\n    ",
    "def f(X, Y=2, *Z, W=None):\n    ", "f(", "f(*cmd)", "f(X=", "class C:\n    ",
]), max_size=30))
def test_python_launcher_reader_never_crashes(parts):
    from kvguard.scan.python import PythonUnreadable, python_launches
    from kvguard.scan.variables import Variables

    try:
        launches = python_launches("gen.py", "".join(parts), Variables({}))
    except PythonUnreadable:
        return
    assert all(launch.line >= 1 for launch in launches)


def test_a_python_sweep_is_one_launch_per_loop_value(capsys):
    """A call inside `for` loops over literals (a list, a tuple of tuples, `range(...)`) runs once per value:
    each is checked, labelled with its values; a loop that rebinds its name, or runs over a parameter, leaves
    the name unresolved."""
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", os.path.join(DEPLOY, "python/sweep.py")])
    found = [(f["line"], f["label"], f["status"], f["command"].split(" -tp ")[-1])
             for f in json.loads(capsys.readouterr().out)["findings"]]
    assert status == EXIT_REFUSE
    assert found == [
        (11, "loop tp=2, dcp=1", "accepted", "2 -dcp 1"), (11, "loop tp=2, dcp=4", "refused", "2 -dcp 4"),
        (11, "loop tp=4, dcp=1", "accepted", "4 -dcp 1"), (11, "loop tp=4, dcp=4", "refused", "4 -dcp 4"),
        (13, "loop model=Qwen/Qwen3-8B, tp=3", "refused", "3"), (13, "loop model=Qwen/Qwen3-8B, tp=2", "accepted", "2"),
        (15, "loop tp=6", "refused", "6"), (15, "loop tp=7", "refused", "7"), (15, "loop tp=8", "accepted", "8"),
        (21, None, "undecidable", "'${tp}'"), (23, None, "undecidable", "'${tp}'")]


def test_a_python_helper_is_one_launch_per_call_of_it(capsys):
    """A function that starts the server is read once per call of it in the script, its parameters as the call
    gives them (the caller's own loops read too); a parameter the function binds again stays unresolved."""
    status = run(["scan", "--format", "json", "--vllm-version", "0.28.0", os.path.join(DEPLOY, "python/helper.py")])
    found = [(f["line"], f["label"], f["status"], f["command"].split(" serve ")[-1])
             for f in json.loads(capsys.readouterr().out)["findings"]]
    assert status == EXIT_REFUSE
    assert found == [
        (9, "call model=Qwen/Qwen3-32B, tp=3, port=8000", "refused",
         "Qwen/Qwen3-32B --tensor-parallel-size 3 --port 8000"),
        (9, "call model=Qwen/Qwen3-8B, tp=2, port=9000", "accepted", "Qwen/Qwen3-8B --tensor-parallel-size 2 --port 9000"),
        (9, "call model=${args_model}, tp=${args_tp}, port=8000", "undecidable",
         "'${args_model}' --tensor-parallel-size '${args_tp}' --port 8000"),
        (9, "call model=Qwen/Qwen3-32B, tp=4, port=8000", "accepted", "Qwen/Qwen3-32B --tensor-parallel-size 4 --port 8000"),
        (9, "call model=Qwen/Qwen3-32B, tp=8, port=8000", "accepted", "Qwen/Qwen3-32B --tensor-parallel-size 8 --port 8000"),
        (14, None, "undecidable", "Qwen/Qwen3-32B -tp '${tp}'")]


def test_a_notebook_that_is_not_json_is_skipped_and_named(tmp_path):
    notebook = tmp_path / "broken.ipynb"
    notebook.write_text('{"cells": [{"cell_type": "code", "source": "!vllm serve m -tp 2"')
    launches, skipped, _ = find_launches([str(notebook)])
    assert launches == []
    assert [skip.reason.split(":")[:2] for skip in skipped] == [["unreadable", " invalid notebook JSON"]]


def test_a_notebook_larger_than_other_files_may_be_is_read(tmp_path):
    """Cell outputs (an image) make a notebook larger than the limit for other files; its sources are read."""
    from kvguard.scan.files import MAX_FILE_BYTES

    notebook = tmp_path / "plots.ipynb"
    image = "A" * (MAX_FILE_BYTES + 1024)
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["!vllm serve Qwen/Qwen3-8B -tp 3"],
                                               "outputs": [{"data": {"image/png": image}}]}]}, indent=1))
    launches, skipped, _ = find_launches([str(notebook)])
    assert [launch.tokens[-1] for launch in launches] == ["3"] and skipped == []


def test_a_notebook_written_without_line_breaks_reports_its_cells_line(tmp_path):
    """A notebook saved as one line of JSON (no nbformat indentation): every launch is on line 1."""
    notebook = tmp_path / "compact.ipynb"
    cells = [{"cell_type": "code", "source": "TP = 3\n!vllm serve Qwen/Qwen3-8B -tp {TP}", "outputs": []}]
    notebook.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}))
    launches, skipped, _ = find_launches([str(notebook)])
    assert [(launch.line, launch.tokens) for launch in launches] == [(1, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])]
    assert skipped == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "!vllm serve m -tp 2", "!vllm serve {X} -tp $Y", "X = 1", "%env A=1", "%%bash", "%%writefile a.sh",
    "vllm serve m -tp 3", "  !vllm serve \\", "{", "}", "$$", "!!", "x = !vllm serve", "if X:", "    pass", "%%html",
    '"', "\\", "%sx vllm serve m", "{{", "$X.y",
]), max_size=12), st.sampled_from(["code", "markdown", "raw"]))
def test_notebook_reader_never_crashes(lines, cell_type):
    from kvguard.scan.notebook import NotebookUnreadable, notebook_launches
    from kvguard.scan.variables import Variables

    text = json.dumps({"cells": [{"cell_type": cell_type, "source": "\n".join(lines)},
                                 {"cell_type": "code", "source": ["!vllm serve m -tp 2"]}]}, indent=1)
    try:
        launches = notebook_launches("gen.ipynb", text, Variables({}))
    except NotebookUnreadable:
        return
    assert all(launch.line >= 1 for launch in launches)


def test_a_python_env_dict_replaces_the_inherited_environment_unless_it_spreads_it():
    from kvguard.scan.python import python_launches
    from kvguard.scan.variables import Variables

    source = ('import os, subprocess\nos.environ["VLLM_USE_V1"] = "1"\n'
              'subprocess.run(["vllm", "serve", "m"], env={"VLLM_LOGGING_LEVEL": "INFO"})\n'
              'subprocess.run(["vllm", "serve", "m"], env={**os.environ, "VLLM_LOGGING_LEVEL": "INFO"})\n')
    first, second = python_launches("x.py", source, Variables({}))
    assert first.tokens == ["VLLM_LOGGING_LEVEL=INFO", "vllm", "serve", "m"]
    assert second.tokens == ["VLLM_LOGGING_LEVEL=INFO", "VLLM_USE_V1=1", "vllm", "serve", "m"]


def test_python_launchers_through_import_aliases():
    from kvguard.scan.python import python_launches
    from kvguard.scan.variables import Variables

    source = ("import subprocess as sp\nfrom subprocess import Popen as P\nfrom os import environ\n"
              'sp.run(["vllm", "serve", "m", "-tp", "2"])\n'
              'P(["vllm", "serve", "m", "-tp", environ.get("TP", "4")])\n'
              'run(["vllm", "serve", "m"])\n'       # a wrapper kvguard does not know: the list is the launch
              'sp.run(["pkill", "-f", "vllm serve m"])\n'
              'DEPS = ["pip", "install", "vllm"]\n'
              'HELP = ["vllm serve m -tp 2"]\n')     # one word naming a launch: text, not an argument list
    assert [(launch.line, launch.tokens) for launch in python_launches("x.py", source, Variables({}))] == [
        (4, ["vllm", "serve", "m", "-tp", "2"]), (5, ["vllm", "serve", "m", "-tp", "4"]), (6, ["vllm", "serve", "m"])]


def test_a_python_name_bound_again_anywhere_is_not_taken_as_its_first_value():
    from kvguard.scan.python import python_launches
    from kvguard.scan.variables import Variables

    source = ('import subprocess\nMODEL = "a"\nTP = "2"\nfor MODEL, TP in [("b", "8")]:\n'
              '    subprocess.run(["vllm", "serve", MODEL, "-tp", TP])\n'
              'X = "4"\nwith open("f") as X:\n    subprocess.run(["vllm", "serve", "m", "-tp", X])\n'
              'Y = "4"\nsubprocess.run(["vllm", "serve", "m", "-tp", Y])\n'
              'for MODEL in [READ_ELSEWHERE]:\n    subprocess.run(["vllm", "serve", MODEL])\n')
    found = {launch.line: (launch.unresolved, launch.tokens[2:])
             for launch in python_launches("x.py", source, Variables({}))}
    # in the loop, the loop's value (not the first one); a `with` target and an unread loop stay unresolved
    assert found == {5: ((), ["b", "-tp", "8"]), 8: (("X",), ["m", "-tp", "${X}"]), 10: ((), ["m", "-tp", "4"]),
                     12: (("MODEL",), ["${MODEL}"])}
