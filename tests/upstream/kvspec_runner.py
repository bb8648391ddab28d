"""Runs inside a vLLM release's oracle environment: KV-cache page sizes from vLLM's own spec classes.

Usage: ``python kvspec_runner.py IN.json OUT.json`` with IN = ``{"cases": [{"heads": int,
"head_size": int, "kv_cache_dtype": str, "model_dtype": str, "mla": bool, "block_size": int}, …]}``.
For each case the release's ``FullAttentionSpec`` (or ``MLAAttentionSpec``; before that class
existed, ``FullAttentionSpec(use_mla=True)``) is built with ``num_kv_heads``/``head_size``/``dtype``/
``block_size`` and ``page_size_bytes`` read; the dtype is the release's own mapping of
``--kv-cache-dtype`` (``STR_DTYPE_TO_TORCH_DTYPE``; ``auto`` = the model dtype).  OUT holds
``{"results": [one record per case: page_size_bytes, bytes_per_token (page / block_size), dtype,
spec_class — or error], "cache_dtypes": the release's --kv-cache-dtype choices}``.  Standard library + the release only.
"""

from __future__ import annotations

import dataclasses
import json
import sys


def _str_dtype_map():
    try:
        from vllm.utils.torch_utils import STR_DTYPE_TO_TORCH_DTYPE  # newer releases
    except ImportError:
        from vllm.utils import STR_DTYPE_TO_TORCH_DTYPE  # older releases
    return STR_DTYPE_TO_TORCH_DTYPE


def _spec(case: dict, dtype):
    from vllm.v1 import kv_cache_interface as kvi

    fields_of = lambda cls: {f.name for f in dataclasses.fields(cls)}  # noqa: E731
    kwargs = dict(block_size=case["block_size"], num_kv_heads=case["heads"], head_size=case["head_size"],
                  dtype=dtype)
    if case["mla"]:
        cls = getattr(kvi, "MLAAttentionSpec", None)
        if cls is None:
            cls = kvi.FullAttentionSpec
            kwargs["use_mla"] = True
        elif "cache_dtype_str" in fields_of(cls):
            kwargs["cache_dtype_str"] = case["kv_cache_dtype"]
        if "use_mla" in fields_of(cls) and "use_mla" not in kwargs:
            kwargs["use_mla"] = True
    else:
        cls = kvi.FullAttentionSpec
        if "use_mla" in fields_of(cls):
            kwargs["use_mla"] = False
    return cls(**kwargs)


def _kv_dtype(case: dict):
    """The torch dtype the release stores the case's cache in: ``--kv-cache-dtype`` through the release's
    own mapping, ``auto`` the model dtype."""
    import torch

    if case["kv_cache_dtype"] == "auto":
        return {"bfloat16": torch.bfloat16, "float16": torch.float16}[case["model_dtype"]]
    return _str_dtype_map()[case["kv_cache_dtype"]]


def main(inp: str, out: str) -> None:
    with open(inp) as fh:
        cases = json.load(fh)["cases"]
    results = []
    for case in cases:
        try:
            dtype = _kv_dtype(case)
            spec = _spec(case, dtype)
            page = spec.page_size_bytes
            results.append({"page_size_bytes": page, "bytes_per_token": page / case["block_size"],
                            "dtype": str(dtype), "spec_class": type(spec).__name__})
        except Exception as exc:  # reported, compared as a failure by the test
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    with open(out, "w") as fh:
        json.dump({"results": results, "cache_dtypes": _cache_dtypes()}, fh)


def _cache_dtypes() -> list:
    """The release's ``--kv-cache-dtype`` choices (``CacheDType`` literal in vllm/config/cache.py)."""
    import typing
    try:
        from vllm.config.cache import CacheDType
    except ImportError:
        return []
    return [str(a) for a in typing.get_args(CacheDType)]


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
