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

from hfconfig_summary import chosen, describe_exc, summarize  # noqa: E402


def _no_sleep():
    try:
        import vllm.transformers_utils.repo_utils as ru
        ru.time.sleep = lambda *_: None
    except Exception:  # noqa: BLE001
        pass


_MISSING = object()
_PATCH_MARKERS = ("__vllm_patched__", "__vllm_nested_rope_patched__")


class _FreshProcess:
    """Undoes what vLLM's loader changes process-wide, so that every case sees a fresh ``vllm serve``.

    ``get_config`` registers vLLM's config classes with AutoConfig (setting ``config_class.model_type``,
    which for a transformers class such as DeepseekV3Config changes it for every later model) and, for some
    model types, patches ``PretrainedConfig.validate_rope`` / ``ALLOWED_LAYER_TYPES``.  kvguard models each
    load as a fresh process; this restores the state recorded after ``import vllm``.
    """

    def __init__(self):
        import transformers.configuration_utils as cu
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
        from vllm.transformers_utils import config as vc
        self.cu = cu
        self.mapping = CONFIG_MAPPING
        self.base = getattr(cu, "PreTrainedConfig", None) or cu.PretrainedConfig
        self.extra = dict(CONFIG_MAPPING._extra_content)
        self.allowed = getattr(cu, "ALLOWED_LAYER_TYPES", _MISSING)
        self.validate_rope = self.base.__dict__.get("validate_rope", _MISSING)
        self.model_types = {}
        for key in list(vc._CONFIG_REGISTRY.keys()):
            try:
                cls = vc._CONFIG_REGISTRY[key]
            except BaseException:  # noqa: BLE001 - a class whose module does not import here
                continue
            if isinstance(cls, type):
                self.model_types.setdefault(cls, cls.__dict__.get("model_type", _MISSING))

    @staticmethod
    def _unwrap(fn):
        while any(hasattr(fn, m) for m in _PATCH_MARKERS) and hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        return fn

    def restore(self):
        self.mapping._extra_content.clear()
        self.mapping._extra_content.update(self.extra)
        if self.allowed is not _MISSING:
            self.cu.ALLOWED_LAYER_TYPES = self.allowed
        cur = self.base.__dict__.get("validate_rope", _MISSING)
        if cur is not self.validate_rope:
            if self.validate_rope is _MISSING:
                delattr(self.base, "validate_rope")  # the original lives in RotaryEmbeddingConfigMixin
            else:
                self.base.validate_rope = self.validate_rope
        stack, seen = [self.base], set()
        while stack:
            cls = stack.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            vals = cls.__dict__.get("__class_validators__")
            if isinstance(vals, list) and any(any(hasattr(v, m) for m in _PATCH_MARKERS) for v in vals):
                cls.__class_validators__ = [self._unwrap(v) for v in vals]
            stack.extend(cls.__subclasses__())
        for cls, mt in self.model_types.items():
            if mt is _MISSING:
                if "model_type" in cls.__dict__:
                    delattr(cls, "model_type")
            elif cls.__dict__.get("model_type", _MISSING) != mt:
                cls.model_type = mt


def run_cases(cases, out_path, modelconfig=False):
    from vllm.transformers_utils.config import get_config, get_hf_text_config
    _no_sleep()
    fresh = _FreshProcess()
    results = []
    for case in cases:
        fresh.restore()
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
        if case.get("attrs"):
            rec["attrs"] = chosen(cfg, case["attrs"])
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
