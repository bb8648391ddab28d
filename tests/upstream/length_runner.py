"""ModelConfig's maximum length as a real release computes it; runs INSIDE an oracle venv.

usage: python length_runner.py CASES.json OUT.json

CASES: {"cases": [{"id", "config": {...config.json...}, "files": {name: json}, "model_dir": path,
        "max_model_len": int | null, "disable_sliding_window": bool, "dtype": str | null, "env": {...}}]}

Per case one ``ModelConfig(model=<dir with config.json and files>, max_model_len=…,
disable_sliding_window=…, dtype=…)`` (offline, tokenizer init skipped) — what ``create_engine_config``
builds first — and the ``max_model_len`` it ends with, or the exception the failing statement
raised (oracle_runner.describe: pydantic's ValidationError unwrapped).  Each case's environment
(VLLM_ALLOW_LONG_MAX_MODEL_LEN, …) is set for it alone: vLLM reads these variables when the
statement runs.  The model directory is the case's ``model_dir`` (some messages quote it).

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


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from oracle_runner import describe, shortcuts_from_env, torch_compat

    torch_compat()
    from vllm.config import ModelConfig

    shortcuts_from_env()
    results = []
    applied = {}
    for case in spec["cases"]:
        for key in applied:
            os.environ.pop(key, None)
        applied = {key: str(value) for key, value in (case.get("env") or {}).items()}
        os.environ.update(applied)
        work = case.get("model_dir") or tempfile.mkdtemp(prefix="kvg-len-")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        for name, content in (case.get("files") or {}).items():
            os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
            with open(os.path.join(work, name), "w") as fh:
                json.dump(content, fh)
        rec = {"id": case["id"]}
        kwargs = {"model": work, "tokenizer": work, "skip_tokenizer_init": True,
                  "disable_sliding_window": bool(case.get("disable_sliding_window"))}
        if case.get("max_model_len") is not None:
            kwargs["max_model_len"] = case["max_model_len"]
        if case.get("dtype"):
            kwargs["dtype"] = case["dtype"]
        try:
            mc = ModelConfig(**kwargs)
        except BaseException as exc:  # noqa: BLE001
            rec.update(stage="model", **describe(exc))
        else:
            value = mc.max_model_len
            rec.update(stage="ok", max_model_len=value if isinstance(value, int) else repr(value))
        results.append(rec)
        shutil.rmtree(work, ignore_errors=True)
    with open(out_path, "w") as fh:
        json.dump(results, fh, default=str)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
