"""The ``vllm serve`` command line that two Kubernetes deployers render from their own settings.

:mod:`kvguard.scan` reads a deployment file as the launch it makes; for these two the
launch is not written in the file but built by the deployer, so the mapping is restated
here as data (key → flag), from reading their sources.

vLLM production-stack Helm chart (``servingEngineSpec.modelSpec[]`` in values files)
------------------------------------------------------------------------------------
Read from vllm-project/production-stack, chart ``vllm-stack`` (``helm/Chart.yaml``
version 0.1.9 in the copy read): ``helm/templates/deployment-vllm-multi.yaml`` (commits
f1f98228, 010004ee), ``helm/templates/ray-cluster.yaml`` (d6eece8a) and
``helm/templates/lws-vllm.yaml`` (58568836), with ``helm/values.yaml`` (e9ba5fa2).
One launch per ``modelSpec`` entry (none when ``servingEngineSpec.enableEngine`` is
false or the entry has ``enabled: false``), rendered by the template the entry selects:

- a ``raySpec`` entry: a KubeRay cluster whose head runs ``vllm serve MODEL --host
  0.0.0.0 --port PORT --distributed-executor-backend ray`` + the keys below
  (``pipelineParallelSize`` → ``--pipeline-parallel-size``; prefix caching only when on);
- an ``lwsSpec: {enabled: true}`` entry: a LeaderWorkerSet whose leader runs the keys
  below, then ``--distributed-executor-backend mp --pipeline-parallel-size
  (pipelineParallelSize, else lwsSpec.size) --nnodes SIZE --node-rank 0 --master-addr …``;
- otherwise a Deployment: the keys below; this template has no ``pipelineParallelSize``
  (the finding notes one that is set).

The keys, in the template's order: ``enableLoRA`` → ``--enable-lora``; ``enableTool`` →
``--enable-auto-tool-choice``; ``toolCallParser``; then under ``vllmConfig`` (skipped when
empty): ``enableChunkedPrefill`` (when present: ``--enable-chunked-prefill`` or
``--no-enable-chunked-prefill``), ``enablePrefixCaching`` (``--enable-prefix-caching``,
else ``--no-enable-prefix-caching`` except under Ray), ``maxModelLen``, ``dtype``,
``tensorParallelSize``, [``pipelineParallelSize``], ``maxNumSeqs``,
``gpuMemoryUtilization`` (``--gpu_memory_utilization`` in the Deployment),
``maxLoras`` (``--max_loras`` in the Deployment), [LWS: ``runner``, ``convert``],
``extraArgs`` (each item one argument, as the chart quotes it); [LWS:
``modelRevision`` → ``--revision``]; ``lmcacheConfig.enabled`` → ``--kv-transfer-config``;
``chatTemplate`` → ``--chat-template``.  ``vllmConfig.v0: 1`` sets ``VLLM_USE_V1=0``
(Ray: ``vllmConfig.v1``, default 0); ``VLLM_*`` and ``CUDA_VISIBLE_DEVICES`` entries of
``env`` reach the launch, then (Deployment) ``lmcacheConfig.cudaVisibleDevices``.
The image is ``repository:tag``.  The Deployment's container is given the GPUs of the
entry's ``resources`` when set, else ``requestGPU`` (``_helpers.tpl`` ``chart.resources``,
d6eece8a: a limit only above 0, of ``requestGPUType``, by default ``nvidia.com/gpu``).

KServe ``LLMInferenceService`` (serving.kserve.io)
-------------------------------------------------
Read from kserve/kserve: ``ParallelismSpec`` and its ``IsDataParallel`` /
``IsPipelineParallel`` (``pkg/apis/serving/v1alpha1/llm_inference_service_types_func.go``,
commit 944548d7), the preset selection in
``pkg/controller/v1alpha1/llmisvc/config_merge.go`` (ab1423f9) and the presets
``config/llmisvc/config-llm-template.yaml`` (bc3894bf) and
``config-llm-worker-data-parallel.yaml`` (d0e8a2cf).  ``spec.parallelism`` (and
``spec.prefill.parallelism`` for the prefill pool, a second launch) maps to
``--enable-expert-parallel`` (``expert``), ``--tensor-parallel-size`` (``tensor``),
``--pipeline-parallel-size`` (``pipeline``) and, for a data-parallel service
(``data`` or ``dataLocal``), ``--data-parallel-size`` (``data``, default 1),
``--data-parallel-size-local`` (``dataLocal``, default 1), ``--data-parallel-address``,
``--data-parallel-rpc-port`` (``dataRPCPort``, default 5555) and
``--data-parallel-start-rank 0`` (the leader).  The model is ``spec.model.uri`` without
``hf://`` (else ``spec.model.name``); ``VLLM_ADDITIONAL_ARGS`` and the other ``VLLM_*``
variables of the ``main`` container are applied.  The presets' other flags
(``--served-model-name``, ``--port``, TLS, …) vary between KServe releases and decide no
parallel check, so they are not rendered; the single-node preset read passes no parallel
flags itself, so ``spec.parallelism`` is read as the layout the service asks for.
A single-node service's ``main`` container ``resources`` (``nvidia.com/gpu``) is its GPU count.

KubeAI ``Model`` (kubeai.org)
-----------------------------
Read from substratusai/kubeai ``internal/modelcontroller/engine_vllm.go`` and ``model_source.go``: a model
whose ``spec.engine`` is ``VLLM`` runs one pod whose container starts ``python3 -m
vllm.entrypoints.openai.api_server --model=REF --served-model-name=NAME`` followed by ``spec.args``, with
``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`` and ``spec.env`` (sorted by name) in its environment.  REF is the
repository of an ``hf://`` ``spec.url`` (the same checkpoint when a ``cacheProfile`` has KubeAI serve it from its
cache directory); another source (``s3://``, ``gs://``, ``oss://``, ``pvc://``) is loaded into the pod, so its
URL is what kvguard looks up.  ``spec.image`` overrides the image of KubeAI's own configuration (not in the
file); ``spec.resourceProfile: NAME:N`` asks N units of a profile that KubeAI's configuration defines — its
default ``nvidia-gpu-*`` profiles are one GPU each, so N is the GPU count (noted).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any, Optional

from .gpus import gpu_count, resources_gpus

__all__ = ["ChartLaunch", "kserve_launches", "kubeai_launches", "production_stack_launches"]

_PARALLEL_FLAGS = ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size",
                   "--decode-context-parallel-size", "--prefill-context-parallel-size", "--enable-expert-parallel",
                   "-tp", "-pp", "-dp", "-dcp", "-pcp", "-ep")


@dataclass
class ChartLaunch:
    """One rendered launch: argv (``VAR=value`` prefixes first), its image, where to report it."""

    tokens: list[str]
    image: Optional[str]
    #: key paths, relative to the mapping the launch came from; the first that exists is reported
    anchors: list[tuple[Any, ...]]
    label: str
    notes: list[str] = field(default_factory=list)
    #: key path of the setting that names the image (the pin's line)
    image_anchor: tuple[Any, ...] = ()
    #: the GPUs the launch's container is given, and the setting that gives them (None: not limited)
    gpus: Optional[int] = None
    gpus_source: str = ""


def _text(value: Any) -> str:
    """A value as Helm's ``quote`` / Go's text/template prints it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _env_tokens(entries: Any) -> list[str]:
    """``NAME=value`` for the container's variables a launch reads (``VLLM_*``, ``CUDA_VISIBLE_DEVICES``)."""
    out = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and "value" in entry \
                and (entry["name"].startswith("VLLM_") or entry["name"] == "CUDA_VISIBLE_DEVICES") \
                and entry["name"] != "VLLM_ADDITIONAL_ARGS":
            out.append(f"{entry['name']}={_text(entry['value'])}")
    return out


def _model_spec_gpus(spec: dict) -> tuple[Optional[int], str]:
    """The GPUs of a Deployment's vLLM container: the entry's own ``resources`` when it has them, else
    ``requestGPU`` (a limit only when above 0, under ``requestGPUType``, by default ``nvidia.com/gpu``)."""
    if spec.get("resources"):
        n, where = resources_gpus(spec["resources"])
        return n, where or ""
    n = gpu_count(spec.get("requestGPU"))
    if not n or _text(spec.get("requestGPUType") or "nvidia.com/gpu") != "nvidia.com/gpu":
        return None, ""
    return n, f"requestGPU: {n}"


def _dict_value(d: dict, key: str) -> dict:
    """``d[key]`` when it is a mapping, else ``{}`` (a chart value of another type, or none)."""
    value = d.get(key)
    return value if isinstance(value, dict) else {}


def _kv_transfer(spec: dict, mode: str) -> list[str]:
    lmcache = spec.get("lmcacheConfig")
    if not isinstance(lmcache, dict) or not lmcache.get("enabled"):
        return []
    vllm_config = _dict_value(spec, "vllmConfig")
    role = _text(lmcache.get("kvRole") or "kv_both")
    config: dict[str, Any]
    if mode == "ray":
        v1 = "v1" in vllm_config and _text(vllm_config["v1"]) == "1"
        config = {"kv_connector": "LMCacheConnectorV1" if v1 else "LMCacheConnector", "kv_role": "kv_both"}
    elif "enablePD" in lmcache:
        config = {"kv_connector": "LMCacheConnectorV1", "kv_role": role,
                  "kv_connector_extra_config": {"discard_partial_chunks": False,
                                                "lmcache_rpc_port": _text(lmcache.get("nixlRole"))}}
    elif "v0" in vllm_config and _text(vllm_config["v0"]) == "1":
        config = {"kv_connector": "LMCacheConnector", "kv_role": role}
    else:
        config = {"kv_connector": "LMCacheConnectorV1", "kv_role": role}
    return ["--kv-transfer-config", json.dumps(config, separators=(",", ":"))]


def _vllm_config_args(cfg: dict, mode: str) -> list[str]:
    out: list[str] = []
    if "enableChunkedPrefill" in cfg:
        out.append("--enable-chunked-prefill" if cfg["enableChunkedPrefill"] else "--no-enable-chunked-prefill")
    if cfg.get("enablePrefixCaching"):
        out.append("--enable-prefix-caching")
    elif mode != "ray":
        out.append("--no-enable-prefix-caching")
    keyed = [("maxModelLen", "--max-model-len"), ("dtype", "--dtype"), ("tensorParallelSize", "--tensor-parallel-size")]
    if mode == "ray":
        keyed.append(("pipelineParallelSize", "--pipeline-parallel-size"))
    keyed.append(("maxNumSeqs", "--max-num-seqs"))
    if mode == "deployment":     # this template spells two flags with underscores (vLLM accepts both)
        keyed += [("gpuMemoryUtilization", "--gpu_memory_utilization"), ("maxLoras", "--max_loras")]
    else:
        keyed += [("gpuMemoryUtilization", "--gpu-memory-utilization"), ("maxLoras", "--max-loras")]
    if mode == "lws":
        keyed += [("runner", "--runner"), ("convert", "--convert")]
    for key, flag in keyed:
        if key in cfg:
            out += [flag, _text(cfg[key])]
    extra = cfg.get("extraArgs")
    if isinstance(extra, list):
        out += [_text(item) for item in extra]
    return out


def _first_parallel_extra(cfg: dict) -> Optional[int]:
    extra = cfg.get("extraArgs")
    for i, item in enumerate(extra if isinstance(extra, list) else []):
        if _text(item).split("=", 1)[0].split(" ", 1)[0] in _PARALLEL_FLAGS:
            return i
    return None


def _model_spec_launch(spec: dict, index: int, port: str) -> Optional[ChartLaunch]:
    model = spec.get("modelURL")
    if not isinstance(model, (str, int, float)) or not _text(model):
        return None
    cfg = _dict_value(spec, "vllmConfig")
    lws = _dict_value(spec, "lwsSpec")
    mode = "ray" if "raySpec" in spec else "lws" if lws.get("enabled") else "deployment"
    env = _env_tokens(spec.get("env"))
    if mode == "ray":
        env.append(f"VLLM_USE_V1={_text(cfg['v1']) if 'v1' in cfg else '0'}")
    elif "v0" in cfg and _text(cfg["v0"]) == "1":
        env.append("VLLM_USE_V1=0")
    lmcache = _dict_value(spec, "lmcacheConfig")
    if mode == "deployment" and "cudaVisibleDevices" in lmcache:
        # the Deployment sets it after the entry's `env`, and Kubernetes keeps the last of a repeated name
        env = [t for t in env if not t.startswith("CUDA_VISIBLE_DEVICES=")]
        env.append(f"CUDA_VISIBLE_DEVICES={_text(lmcache['cudaVisibleDevices'])}")
    args = ["vllm", "serve", _text(model), "--host", "0.0.0.0", "--port", port]
    if mode == "ray":
        args += ["--distributed-executor-backend", "ray"]
    if spec.get("enableLoRA"):
        args.append("--enable-lora")
    if spec.get("enableTool"):
        args.append("--enable-auto-tool-choice")
    if spec.get("toolCallParser"):
        args += ["--tool-call-parser", _text(spec["toolCallParser"])]
    if cfg:
        args += _vllm_config_args(cfg, mode)
    if mode == "lws" and spec.get("modelRevision"):
        args += ["--revision", _text(spec["modelRevision"])]
    args += _kv_transfer(spec, mode)
    if spec.get("chatTemplate"):
        template = _text(spec["chatTemplate"])
        args += ["--chat-template", "/templates/" + template if mode == "deployment" else template]
    notes = []
    if mode == "lws":
        size = _text(lws.get("size"))
        pp = _text(cfg["pipelineParallelSize"]) if "pipelineParallelSize" in cfg else size
        args += ["--distributed-executor-backend", "mp", "--pipeline-parallel-size", pp, "--nnodes", size,
                 "--node-rank", "0", "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    elif mode == "deployment" and "pipelineParallelSize" in cfg:
        notes.append("vllmConfig.pipelineParallelSize is not rendered by the chart's Deployment template "
                     "(only with raySpec or lwsSpec.enabled); vLLM runs without it")
    image = f"{_text(spec.get('repository'))}:{_text(spec.get('tag'))}" if spec.get("repository") else None
    extra_at = _first_parallel_extra(cfg)
    anchors: list[tuple[Any, ...]] = [("vllmConfig", "tensorParallelSize"), ("vllmConfig", "pipelineParallelSize")]
    if extra_at is not None:
        anchors.append(("vllmConfig", "extraArgs"))
    anchors += [("vllmConfig",), ("modelURL",)]
    kind = {"ray": "KubeRay head", "lws": "LeaderWorkerSet leader", "deployment": "Deployment"}[mode]
    name = _text(spec.get("name")) or str(index)
    # under Ray and LeaderWorkerSet the layout spans pods, and vLLM skips its one-node GPU count check
    gpus, gpus_source = _model_spec_gpus(spec) if mode == "deployment" else (None, "")
    return ChartLaunch(env + args, image, anchors, f"modelSpec {name} ({kind})", notes, image_anchor=("tag",),
                       gpus=gpus, gpus_source=gpus_source)


def production_stack_launches(values: dict) -> list[tuple[int, ChartLaunch]]:
    """(index in ``servingEngineSpec.modelSpec``, launch) for a production-stack values mapping."""
    engine = values.get("servingEngineSpec")
    if not isinstance(engine, dict) or engine.get("enableEngine") is False:
        return []
    specs = engine.get("modelSpec")
    port = _text(engine.get("containerPort") or 8000)
    out = []
    for index, spec in enumerate(specs if isinstance(specs, list) else []):
        if isinstance(spec, dict) and spec.get("enabled") is not False:
            launch = _model_spec_launch(spec, index, port)
            if launch is not None:
                out.append((index, launch))
    return out


def _main_container(pod: Any) -> tuple[int, dict]:
    """(index, container) of the ``main`` container KServe's presets merge into."""
    containers = pod.get("containers") if isinstance(pod, dict) else None
    for i, c in enumerate(containers if isinstance(containers, list) else []):
        if isinstance(c, dict) and c.get("name") == "main":
            return i, c
    return -1, {}


def _kserve_role(spec: dict, model: str, role: str, prefix: tuple[str, ...], multi_node: bool) -> ChartLaunch:
    par = _dict_value(spec, "parallelism")
    index, main = _main_container(spec.get("template"))
    env = _env_tokens(main.get("env"))
    args = ["vllm", "serve", model]
    if par.get("expert"):
        args.append("--enable-expert-parallel")
    if par.get("tensor"):
        args += ["--tensor-parallel-size", _text(par["tensor"])]
    if par.get("pipeline"):
        args += ["--pipeline-parallel-size", _text(par["pipeline"])]
    if par.get("data") or par.get("dataLocal"):
        args += ["--data-parallel-size", _text(par.get("data") or 1),
                 "--data-parallel-size-local", _text(par.get("dataLocal") or 1)]
        if multi_node:
            args += ["--data-parallel-address", "$(LWS_LEADER_ADDRESS)",
                     "--data-parallel-rpc-port", _text(par.get("dataRPCPort") or 5555),
                     "--data-parallel-start-rank", "0"]
    env_entries = main.get("env")
    for entry in env_entries if isinstance(env_entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == "VLLM_ADDITIONAL_ARGS":
            try:
                args += shlex.split(_text(entry.get("value")))
            except ValueError:
                args.append(_text(entry.get("value")))
    # a multi-node service's pods each hold part of the layout: only a single-node one is counted here
    gpus, where = (None, None) if multi_node else resources_gpus(main.get("resources"))
    return ChartLaunch(env + args, _text(main.get("image")) or None,
                       [prefix + ("parallelism",), ("spec", "model")], role,
                       image_anchor=prefix + ("template", "containers", index, "image"),
                       gpus=gpus, gpus_source=where or "")


def kserve_launches(doc: dict) -> list[ChartLaunch]:
    """The launches of a KServe ``LLMInferenceService`` document (decode/main, then prefill)."""
    if doc.get("kind") != "LLMInferenceService" or not str(doc.get("apiVersion", "")).startswith("serving.kserve.io/"):
        return []
    spec = _dict_value(doc, "spec")
    model_spec = _dict_value(spec, "model")
    uri, name = _text(model_spec.get("uri")), _text(model_spec.get("name"))
    model = uri[len("hf://"):] if uri.startswith("hf://") else (name or uri)
    if not model:
        return []
    meta = _dict_value(doc, "metadata")
    label = f"LLMInferenceService {_text(meta.get('name')) or '?'}"
    prefill = spec.get("prefill")
    out = [_kserve_role(spec, model, label + (" decode" if isinstance(prefill, dict) else ""), ("spec",),
                        spec.get("worker") is not None)]
    if isinstance(prefill, dict):
        out.append(_kserve_role(prefill, model, label + " prefill", ("spec", "prefill"),
                                prefill.get("worker") is not None))
    return out


#: KubeAI's default resource profiles with one NVIDIA GPU per unit (``charts/kubeai/values.yaml``)
_KUBEAI_GPU_PROFILE = "nvidia-gpu-"


def kubeai_launches(doc: dict) -> list[ChartLaunch]:
    """The launch of a KubeAI ``Model`` served by vLLM (none for other engines)."""
    if doc.get("kind") != "Model" or not str(doc.get("apiVersion", "")).startswith("kubeai.org/"):
        return []
    spec = _dict_value(doc, "spec")
    if _text(spec.get("engine")) != "VLLM":
        return []
    url = _text(spec.get("url"))
    model = url[len("hf://"):] if url.startswith("hf://") else url
    name = _text(_dict_value(doc, "metadata").get("name")) or "?"
    notes = []
    if url.startswith("hf://") and spec.get("cacheProfile"):
        notes.append("KubeAI serves the checkpoint from its cache directory (cacheProfile): its config is the "
                     "repository's")
    env = ["VLLM_ALLOW_RUNTIME_LORA_UPDATING=True"]
    given_env = _dict_value(spec, "env")
    env += [f"{key}={_text(given_env[key])}" for key in sorted(given_env) if isinstance(key, str)]
    args = spec.get("args")
    tokens = env + ["python3", "-m", "vllm.entrypoints.openai.api_server", f"--model={model}",
                    f"--served-model-name={name}"] + [_text(a) for a in (args if isinstance(args, list) else [])]
    gpus, source = None, ""
    profile = _text(spec.get("resourceProfile"))
    profile_name, _, count = profile.partition(":")
    if profile_name.startswith(_KUBEAI_GPU_PROFILE):
        gpus = gpu_count(count or 1)
        source = f"resourceProfile {profile}: KubeAI's default {_KUBEAI_GPU_PROFILE}* profiles are one GPU each"
    return [ChartLaunch(tokens, _text(spec.get("image")) or None, [("spec", "args"), ("spec", "url"), ("spec",)],
                        f"KubeAI Model {name}", notes, image_anchor=("spec", "image"),
                        gpus=gpus, gpus_source=source if gpus is not None else "")]
