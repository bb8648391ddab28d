"""Which model runner and async-scheduling setting a release resolves for ``vllm serve MODEL -pp N``; runs INSIDE an
oracle venv.

usage: python pp_runner_runner.py CASES.json OUT.json

CASES: {"cases": [{"id", "config": {...config.json...}, "pp", "tp", "max_num_batched_tokens",
        "async_scheduling": true | false | null, "env": {...}}]}

Per case the release's own ``EngineArgs(model=<dir>, pipeline_parallel_size=pp, tensor_parallel_size=tp,
max_num_batched_tokens=…, async_scheduling=…, distributed_executor_backend="mp").create_engine_config()`` builds
the ``VllmConfig`` (tokenizer init skipped); the record is its ``use_v2_model_runner``,
``scheduler_config.async_scheduling``, ``max_concurrent_batches`` and ``max_in_flight_tokens`` — the release's
own properties — or the exception the build raised.

What stands in for the default host (8x H100, CUDA, Triton installed), because the oracle is a CPU host:
* the executor backend is ``mp``, the one ``ParallelConfig`` picks on one node with enough GPUs (given
  explicitly: the CPU host has no GPUs to count);
* the CPU platform's ``check_and_update_config`` runs, but the async-scheduling setting it overwrites (the CPU
  platform turns it off; the CUDA platform's hook does not touch it) is put back after it;
* ``vllm.config.vllm.HAS_TRITON`` is True (the default host imports Triton; the V2 runner needs it).
Each case's environment (``VLLM_USE_V2_MODEL_RUNNER``) is set for it alone.

This file must not import kvguard.
"""

import json
import logging
import os
import shutil
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def _host_stand_ins():
    import vllm.platforms as platforms
    from vllm.platforms.cpu import CpuPlatform

    platforms._current_platform = CpuPlatform()
    real_hook = CpuPlatform.check_and_update_config.__func__

    def hook(cls, vllm_config):
        kept = vllm_config.scheduler_config.async_scheduling
        real_hook(cls, vllm_config)
        vllm_config.scheduler_config.async_scheduling = kept

    CpuPlatform.check_and_update_config = classmethod(hook)
    import vllm.config.vllm as vllm_config_module

    if hasattr(vllm_config_module, "HAS_TRITON"):
        vllm_config_module.HAS_TRITON = True


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from oracle_runner import describe, shortcuts_from_env, torch_compat

    torch_compat()
    _host_stand_ins()
    from vllm.engine.arg_utils import EngineArgs

    shortcuts_from_env()
    results = []
    applied = {}
    environ = dict(os.environ)
    for case in spec["cases"]:
        os.environ.clear()
        os.environ.update(environ)
        applied = {key: str(value) for key, value in (case.get("env") or {}).items()}
        os.environ.update(applied)
        try:
            import vllm.envs as envs
            if hasattr(envs, "disable_envs_cache"):
                envs.disable_envs_cache()
        except Exception:  # noqa: BLE001
            pass
        work = tempfile.mkdtemp(prefix="kvg-pprun-")
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        rec = {"id": case["id"]}
        kwargs = {"model": work, "tokenizer": work, "skip_tokenizer_init": True,
                  "pipeline_parallel_size": case["pp"], "tensor_parallel_size": case.get("tp", 1),
                  "max_num_batched_tokens": case["max_num_batched_tokens"],
                  "distributed_executor_backend": "mp"}
        if case.get("async_scheduling") is not None:
            kwargs["async_scheduling"] = case["async_scheduling"]
        if case.get("max_model_len") is not None:
            kwargs["max_model_len"] = case["max_model_len"]
        try:
            vc = EngineArgs(**kwargs).create_engine_config()
            rec.update(stage="ok", use_v2_model_runner=bool(vc.use_v2_model_runner),
                       async_scheduling=vc.scheduler_config.async_scheduling,
                       max_concurrent_batches=vc.max_concurrent_batches,
                       max_in_flight_tokens=vc.max_in_flight_tokens)
        except BaseException as exc:  # noqa: BLE001
            rec.update(stage="error", **describe(exc))
        results.append(rec)
        shutil.rmtree(work, ignore_errors=True)
    with open(out_path, "w") as fh:
        json.dump(results, fh, default=str)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
