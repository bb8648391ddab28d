"""What the differential test compares: a JSON summary of a config object.

Used on both sides: by ``hfconfig_oracle_worker.py`` on the real objects
(inside an oracle venv) and by ``hfconfig_oracle.py`` / the tests on
kvguard's emulated ones.  Plain Python only (no vLLM/transformers imports).
"""

from __future__ import annotations

#: attributes whose presence/value vLLM's model facts read (the brief's list)
ATTRS = (
    "model_type", "architectures", "num_attention_heads", "num_key_value_heads", "n_head_kv", "num_kv_heads",
    "multi_query_group_num", "num_attention_groups", "multi_query", "new_decoder_architecture", "attn_config",
    "block_configs", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "head_dim",
    "hidden_size_per_head", "hidden_size", "num_hidden_layers", "num_layers", "num_nextn_predict_layers",
    "compress_ratios", "compress_rates", "layer_types", "global_head_dim", "num_global_key_value_heads",
    "attention_k_eq_v", "is_heterogeneous", "is_causal", "num_experts", "moe_num_experts", "n_routed_experts",
    "num_local_experts", "num_experts_per_tok", "text_config", "thinker_config", "language_config",
    "vision_config", "max_position_embeddings", "sliding_window", "torch_dtype", "dtype", "quantization_config",
    "encoder", "transf_decoder", "model", "attention_head_dim", "llm_config", "n_head", "n_heads", "d_model",
    "n_layer", "n_layers", "num_heads", "use_mla", "mtp_num_hidden_layers", "index_topk",
)
#: attributes read on nested configs (attn_config, block_configs[i].attention …)
NESTED_ATTRS = ATTRS + ("kv_n_heads", "attention", "no_op", "n_heads_in_group", "replace_with_linear")
#: membership tests vLLM does (``"kv_n_heads" in hf_config.attn_config``)
MEMBERSHIP = ("kv_n_heads", "num_key_value_heads", "head_dim", "num_attention_heads")

MAX_DEPTH = 3


def _is_config(v) -> bool:
    t = type(v)
    return any(c.__name__ in ("PretrainedConfig", "PreTrainedConfig") for c in t.__mro__) or \
        t.__name__ in ("Inst", "ConfigObject")


def _class_name(v) -> str:
    if type(v).__name__ == "ConfigObject":
        return v.kvg_class_name.removeprefix("vllm:")
    k = getattr(v, "_k", None)
    if k is not None and type(v).__name__ == "Inst":
        return k.name
    return type(v).__name__


def norm(v, depth=0):
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, float) and v != v:
            return {"__float__": "nan"}
        if isinstance(v, float) and v in (float("inf"), float("-inf")):
            return {"__float__": str(v)}
        return v
    if isinstance(v, (list, tuple)):
        out = [norm(x, depth + 1) for x in v]
        return out if isinstance(v, list) else {"__tuple__": out}
    if isinstance(v, dict):
        return {"__dict__": [[norm(k, depth + 1), norm(x, depth + 1)] for k, x in v.items()]}
    if type(v).__name__ in ("dtype", "TorchDtype"):
        return {"__dtype__": str(v)}
    if _is_config(v):
        if depth >= MAX_DEPTH:
            return {"__config__": _class_name(v)}
        return summarize(v, depth + 1)
    return {"__repr__": type(v).__name__}


def describe_exc(e: BaseException) -> dict:
    out = {"type": type(e).__name__, "module": type(e).__module__, "message": str(e)}
    if e.__cause__ is not None:
        out["cause"] = [type(e.__cause__).__name__, str(e.__cause__)]
    return out


def _get(cfg, name):
    try:
        return {"v": norm(getattr(cfg, name))}
    except AttributeError:
        return {"missing": True}
    except BaseException as e:  # noqa: BLE001
        return {"error": [type(e).__name__, str(e)]}


def chosen(cfg, names) -> dict:
    """The values of attributes a case names beside the summary (``"attrs"``: the ones a class derives that the
    summary does not hold, such as RoPE parameters or a muP multiplier), each read as the summary reads one."""
    return {name: _get_path(cfg, name) for name in names}


def _get_path(cfg, name):
    """``a.b.c``: each name read off what the previous one gave (a sub-config's attribute), as ``_get`` reads one."""
    *heads, last = name.split(".")
    for head in heads:
        try:
            cfg = getattr(cfg, head)
        except AttributeError:
            return {"missing": True}
        except BaseException as e:  # noqa: BLE001
            return {"error": [type(e).__name__, str(e)]}
    return _get(cfg, last)


def summarize(cfg, depth=0) -> dict:
    out = {"__class__": _class_name(cfg)}
    attrs = ATTRS if depth == 0 else NESTED_ATTRS
    for name in attrs:
        r = _get(cfg, name)
        if name == "block_configs" and "v" in r and isinstance(r["v"], list):
            r["v"] = r["v"][:4]
        out[name] = r
    try:
        keys = list(iter(cfg))
        out["__keys__"] = sorted(str(k) for k in keys if not str(k).startswith("_"))
    except BaseException as e:  # noqa: BLE001
        out["__keys__"] = {"error": [type(e).__name__, str(e)]}
    mem = {}
    for k in MEMBERSHIP:
        try:
            mem[k] = k in cfg
        except BaseException as e:  # noqa: BLE001
            mem[k] = {"error": [type(e).__name__, str(e)]}
    out["__in__"] = mem
    try:
        t = cfg.get_text_config()
        out["__text__"] = "self" if t is cfg else _class_name(t)
    except BaseException as e:  # noqa: BLE001
        out["__text__"] = {"error": [type(e).__name__, str(e)]}
    try:
        cfg["kv_n_heads"]
        out["__getitem__"] = "ok"
    except BaseException as e:  # noqa: BLE001
        out["__getitem__"] = [type(e).__name__, str(e)]
    return out
