"""Runs a real vLLM release's own config code on cases; executed INSIDE an oracle venv.

usage: python oracle_runner.py CASES.json OUT.json

CASES: {"env": {...}, "cases": [{"id", "config": {...config.json...},
        "layouts": [{ParallelConfig field: value, ...}, ...]}]}

Per case one ``ModelConfig(model=<dir with config.json>)`` (offline), then per
layout ``ParallelConfig(**layout)`` and ``model_config.verify_with_parallel_config``
— the path a Python caller of vLLM's config classes takes (kvguard's
``entry="config"``).  Every outcome is recorded as the exception the failing
statement raised: for pydantic's ValidationError the inner error (``ctx.error``)
or, for field-constraint failures, the error entries.

This file must not import kvguard: it runs with the oracle venv's Python.
"""

import json
import logging
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def describe(exc):
    """(exc_type, message, extra) of the statement that raised, unwrapping pydantic."""
    rec = {"exc_type": type(exc).__name__, "message": str(exc)}
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):
        entries = exc.errors()
        rec["title"] = getattr(exc, "title", None)
        first = entries[0]
        inner = (first.get("ctx") or {}).get("error")
        if first.get("type") in ("value_error", "assertion_error") and isinstance(inner, BaseException):
            rec.update(exc_type=type(inner).__name__, message=str(inner), wrapped_by=rec["title"])
        else:
            rec.update(exc_type="ValidationError", message=first.get("msg"), wrapped_by=rec["title"],
                       errors=[{"type": e.get("type"), "loc": [str(p) for p in e.get("loc", ())],
                                "msg": e.get("msg")} for e in entries])
    return rec


def fact(fn):
    try:
        value = fn()
        if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
            return value
        return repr(value)
    except Exception as exc:  # noqa: BLE001
        return {"error": type(exc).__name__, "message": str(exc)}


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    for key, value in (spec.get("env") or {}).items():
        os.environ[key] = str(value)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from vllm.config import ModelConfig, ParallelConfig

    results = []
    for case in spec["cases"]:
        work = tempfile.mkdtemp(prefix="kvg-oracle-")
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(case["config"], fh)
        rec = {"id": case["id"]}
        try:
            mc = ModelConfig(model=work, tokenizer=work, skip_tokenizer_init=True)
        except BaseException as exc:  # noqa: BLE001
            rec.update(stage="model", **describe(exc))
            results.append(rec)
            continue
        facts = {
            "use_mla": fact(lambda: bool(mc.use_mla)),
            "total_num_kv_heads": fact(lambda: mc.get_total_num_kv_heads()),
            "total_num_attention_heads": fact(lambda: mc.get_num_attention_heads(ParallelConfig())),
            "head_size": fact(lambda: mc.get_head_size()),
            "num_hidden_layers": fact(lambda: mc.get_total_num_hidden_layers()),
            "is_moe": fact(lambda: bool(mc.is_moe)),
        }
        rec.update(stage="facts", facts=facts, layouts=[])
        for lay in case["layouts"]:
            out = {}
            try:
                pc = ParallelConfig(**lay)
            except BaseException as exc:  # noqa: BLE001
                out.update(stage="parallel", **describe(exc))
                rec["layouts"].append(out)
                continue
            out["num_kv_heads"] = fact(lambda: mc.get_num_kv_heads(pc))
            try:
                mc.verify_with_parallel_config(pc)
            except BaseException as exc:  # noqa: BLE001
                out.update(stage="verify", **describe(exc))
                rec["layouts"].append(out)
                continue
            out["stage"] = "ok"
            rec["layouts"].append(out)
        results.append(rec)
    with open(out_path, "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
