"""Runs inside an oracle venv (real vLLM + transformers): records what the real objects answer.

usage: python hfconfig_oracle_worker.py CASES.json OUT.json [--modelconfig]
       python hfconfig_oracle_worker.py --templates MODEL_TYPES.json OUT.json

CASES: [{"id": str, "config": {...}}].  For each case it writes config.json to
a temporary directory, calls ``vllm.transformers_utils.config.get_config(dir,
trust_remote_code=False)`` and ``get_hf_text_config``, and records the
attributes listed in ``ATTRS`` (shared with the comparing side through
``summarize``), or the exception.  Also records plain transformers
``AutoConfig.from_pretrained`` when the model type is a transformers one.
With ``--modelconfig`` it builds ``ModelConfig`` instead and records how
exceptions surface (pydantic wrapping).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hfconfig_summary import describe_exc, summarize  # noqa: E402


def _no_sleep():
    try:
        import vllm.transformers_utils.repo_utils as ru
        ru.time.sleep = lambda *_: None
    except Exception:  # noqa: BLE001
        pass


def run_cases(cases, out_path, modelconfig=False):
    from vllm.transformers_utils.config import get_config, get_hf_text_config
    _no_sleep()
    results = []
    for case in cases:
        d = case.get("path") or tempfile.mkdtemp(prefix="kvgo")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(case["config"], f)
        rec = {"id": case["id"]}
        if modelconfig:
            from vllm.config import ModelConfig
            try:
                ModelConfig(model=d, tokenizer=d, skip_tokenizer_init=True)
                rec["outcome"] = "ok"
            except BaseException as e:  # noqa: BLE001
                rec["outcome"] = "error"
                rec["error"] = describe_exc(e)
                if hasattr(e, "errors") and type(e).__name__ == "ValidationError":
                    rec["error"]["pydantic"] = [{"type": x.get("type"), "msg": x.get("msg"),
                                                 "title": getattr(e, "title", None)} for x in e.errors()]
                    rec["error"]["title"] = e.title
            results.append(rec)
            continue
        try:
            cfg = get_config(d, trust_remote_code=False)
        except BaseException as e:  # noqa: BLE001
            rec["outcome"] = "error"
            rec["error"] = describe_exc(e)
            results.append(rec)
            continue
        rec["outcome"] = "ok"
        rec["hf_config"] = summarize(cfg)
        try:
            text = get_hf_text_config(cfg)
            rec["text_is_self"] = text is cfg
            rec["hf_text_config"] = summarize(text) if text is not cfg else None
        except BaseException as e:  # noqa: BLE001
            rec["text_error"] = describe_exc(e)
        results.append(rec)
    with open(out_path, "w") as f:
        json.dump(results, f)


def templates(model_types, out_path):
    from transformers import AutoConfig
    out = {}
    for mt in model_types:
        try:
            cfg = AutoConfig.for_model(mt)
            d = cfg.to_dict()
            out[mt] = json.loads(json.dumps(d, default=str))
        except BaseException as e:  # noqa: BLE001
            out[mt] = {"__error__": f"{type(e).__name__}: {e}"}
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if sys.argv[1] == "--templates":
        templates(json.load(open(sys.argv[2])), sys.argv[3])
    else:
        run_cases(json.load(open(sys.argv[1])), sys.argv[2], modelconfig="--modelconfig" in sys.argv)
