"""CacheConfig's checks of the memory options it is given (vllm/config/cache.py), built by
``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) after the V1 support check and before the data-parallel
checks and ParallelConfig; pydantic wraps their ValueError in a ValidationError for CacheConfig.

- 0.10.2 / 0.11.0 (``CacheConfig._verify_args``): a negative ``--cpu-offload-gb``, then ``--gpu-memory-utilization``
  above 1.
- 0.11.1+: the fields' pydantic bounds instead (``gpu_memory_utilization`` in (0, 1]; ``cpu_offload_gb`` at least 0,
  in CacheConfig to 0.16.x and in UVAOffloadConfig from 0.17.0; ``swap_space`` at least 0 until the flag goes, 0.17.1;
  ``block_size`` greater than 0 from 0.23.0, ``SkipValidation`` before; of the options kvguard otherwise passes over,
  ``prefix_match_unit`` greater than 0 from 0.26.0, ``prefix_cache_retention_interval`` at least 0 from 0.29.0,
  ``mamba_block_size`` greater than 0 and, beside another of them, ``replayssm_buffer_len`` greater than 0 from
  0.27.0, declared last), checked together as the config is built, in
  declaration order: one ValidationError for CacheConfig, an error per field out of bounds (``greater_than`` /
  ``greater_than_equal`` / ``less_than_equal`` with the field's integer bound: "Input should be less than or equal to
  1"); the verdict's message is the first error's, which names no pydantic version.  Left undecidable: non-finite
  values and ``--cpu-offload-gb`` from 0.17.0 (UVAOffloadConfig).
- 0.33.0: ``--kv-cache-dtype`` is a free string (before, argparse's choices), checked by the ``cache_dtype`` field
  validator against ``KV_CACHE_DTYPES``: the ``CacheDType`` literal plus the names a platform registers with
  ``register_kv_cache_dtype`` when it activates.  No in-tree platform registers one, so the list is the literal's on
  every platform kvguard knows (the platform is read, and listed when assumed).  Alone, its ValueError is the
  ValidationError's one entry, placed at ``cache_dtype`` with the value as input (the verdict's ``loc``; the
  wrapped ValueError of kvguard's API exception carries them); beside a bound error it is a ``value_error`` entry
  ("Value error, Invalid kv_cache_dtype: …") of the one ValidationError, declared after ``gpu_memory_utilization``
  and before ``prefix_cache_retention_interval``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BOUND_ERRORS", "CACHE_DTYPE_MESSAGE", "CPU_OFFLOAD_MESSAGE", "GPU_MEMORY_MESSAGE",
           "KV_CACHE_DTYPES_0330", "bound_error", "broken_bound", "cache_dtype_bind", "cpu_offload_negative", "field_bounds", "gpu_memory_above_one",
           "unknown_cache_dtype"]

CPU_OFFLOAD_MESSAGE = "CPU offload space must be non-negative, but got {cpu_offload_gb}"
GPU_MEMORY_MESSAGE = "GPU memory utilization must be less than 1.0. Got {gpu_memory_utilization}."
CACHE_DTYPE_MESSAGE = "Invalid kv_cache_dtype: {quoted}. Valid values are: {valid}"
#: 0.33.0's ``CacheDType`` literal (vllm/config/cache.py), in its order: ``KV_CACHE_DTYPES`` on in-tree platforms
KV_CACHE_DTYPES_0330 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
                        "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
                        "turboquant_3bit_nc", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "ultraquant_4bit",
                        "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head", "nvfp4", "nvfp4_4over6")


def cpu_offload_negative(state: Any) -> bool:
    given = state.layout.cpu_offload_gb
    return given is not None and given < 0


def gpu_memory_above_one(state: Any) -> bool:
    given = state.layout.gpu_memory_utilization
    return given is not None and given > 1.0


def offload_bind(state: Any) -> dict:
    return {"cpu_offload_gb": state.layout.cpu_offload_gb}


def memory_bind(state: Any) -> dict:
    return {"gpu_memory_utilization": state.layout.gpu_memory_utilization}


#: pydantic's error type and message for a value below / above a CacheConfig field's bound (the bounds are the
#: integers the fields declare: ``gpu_memory_utilization: float = Field(..., gt=0, le=1)``, ``swap_space`` and
#: ``cpu_offload_gb`` ``Field(..., ge=0)``, from 0.23.0 ``block_size: int = Field(None, gt=0)``)
BOUND_ERRORS = {"gt": ("greater_than", "Input should be greater than {bound}"),
                "ge": ("greater_than_equal", "Input should be greater than or equal to {bound}"),
                "lt": ("less_than", "Input should be less than {bound}"),
                "le": ("less_than_equal", "Input should be less than or equal to {bound}")}


def _bounded_fields(state: Any) -> list:
    """``(field, value, ((kind, bound), …), flag)`` for CacheConfig's bounded fields the launch gives, in the class's
    declaration order (block_size, prefix_match_unit, gpu_memory_utilization, swap_space, cpu_offload_gb,
    prefix_cache_retention_interval, mamba_block_size, replayssm_buffer_len), with the release's bounds; ``cpu_offload_gb`` from 0.17.0
    belongs to the offload config (``"elsewhere"``).  The options kvguard otherwise passes over come as the layout's
    ``*_out_of_bounds`` fields (kvguard.launch.argv: set only outside the bound, from the last occurrence)."""
    lay, release = state.layout, state.release
    out: list[tuple[str, Any, tuple[tuple[str, int], ...], str]] = []
    if lay.block_size is not None and release.within("0.23.0"):
        out.append(("block_size", lay.block_size, (("gt", 0),), "--block-size"))
    if lay.prefix_match_unit_out_of_bounds is not None:        # the option exists from 0.26.0
        out.append(("prefix_match_unit", lay.prefix_match_unit_out_of_bounds, (("gt", 0),), "--prefix-match-unit"))
    if lay.gpu_memory_utilization is not None:
        out.append(("gpu_memory_utilization", lay.gpu_memory_utilization, (("gt", 0), ("le", 1)),
                    "--gpu-memory-utilization"))
    if release.within("0.11.1", "0.17.1"):
        out.append(("swap_space", lay.swap_space, (("ge", 0),), "--swap-space"))
    if lay.cpu_offload_gb is not None:
        out.append(("cpu_offload_gb" if release.within("0.11.1", "0.16.0") else "elsewhere", lay.cpu_offload_gb,
                    (("ge", 0),), "--cpu-offload-gb"))
    if lay.prefix_cache_retention_interval_out_of_bounds is not None:      # 0.29.0+
        out.append(("prefix_cache_retention_interval", lay.prefix_cache_retention_interval_out_of_bounds,
                    (("ge", 0),), "--prefix-cache-retention-interval"))
    if lay.mamba_block_size_out_of_bounds is not None and release.within("0.11.1"):
        out.append(("mamba_block_size", lay.mamba_block_size_out_of_bounds, (("gt", 0),), "--mamba-block-size"))
    if lay.replayssm_buffer_len is not None and release.within("0.27.0"):
        out.append(("replayssm_buffer_len", lay.replayssm_buffer_len, (("gt", 0),), "--replayssm-buffer-len"))
    return out


def broken_bound(value: Any, bounds: tuple) -> Any:
    """The first of a pydantic field's ``bounds`` (``(kind, bound)`` pairs: gt, ge, lt, le) that ``value`` breaks,
    or None."""
    for kind, bound in bounds:
        held = {"gt": value > bound, "ge": value >= bound, "lt": value < bound, "le": value <= bound}[kind]
        if not held:
            return kind, bound
    return None


def bound_error(name: str, value: Any, kind: str, bound: Any) -> Any:
    """pydantic's error for ``value`` of the field ``name`` past its ``kind`` bound: the bound prints without a
    fractional part where it has none ("less than 1" for ``lt=1.0``), the context keeps it as declared."""
    from ..verdict import ErrorEntry

    error_type, template = BOUND_ERRORS[kind]
    shown = int(bound) if isinstance(bound, float) and bound == int(bound) else bound
    return ErrorEntry(error_type, (name,), template.format(bound=shown), value, {kind: bound})


def field_bounds(state: Any) -> None:
    """0.11.1+: the pydantic bounds of the memory, swap and block options, checked together as CacheConfig is built:
    one ValidationError for CacheConfig with an error per field out of bounds, in declaration order.  Left
    undecidable: a non-finite value, ``--cpu-offload-gb`` below 0 from 0.17.0 (UVAOffloadConfig, built after
    ParallelConfig; CacheConfig's own errors come first), and errors beside which the same validation raises others
    kvguard does not render."""
    errors, declined, later = [], [], []
    for name, value, bounds, flag in _bounded_fields(state):
        broken = broken_bound(value, bounds)
        if broken is None:
            continue
        if name == "elsewhere":
            later.append((name, value, broken, flag))
            continue
        if value != value or value in (float("inf"), float("-inf")):
            declined.append(flag)
        errors.append((name, value, broken, flag))
    dtype_error = _unknown_dtype_entry(state)
    if dtype_error is not None and not errors:
        # the dtype's error alone, or beside the offload config's bound (built after CacheConfig): the
        # CC_cache_dtype_unknown row refuses
        return
    if dtype_error is None and [name for name, _value, _broken, _flag in errors] == ["replayssm_buffer_len"]:
        # alone, the CC_FIELD row decides it
        return
    if not errors:
        # only the offload config's bound: it is built after ParallelConfig, whose checks kvguard does not follow
        errors, declined = later, [flag for _name, _value, _broken, flag in later]
    if not errors:
        return
    if declined:
        out = ", ".join(f"{flag} {value}" for _name, value, _broken_bound, flag in errors)
        state.undecided(f"the config's field bounds refuse {out} with pydantic's message, kvguard does not render it "
                        "here (a non-finite value, or the offload config built later)")
    from .engine import Refusal

    entries = [bound_error(name, value, kind, bound) for name, value, (kind, bound), _flag in errors]
    if dtype_error is not None:
        # the cache dtype's field validator runs in its field's place: after gpu_memory_utilization (and the fields
        # before it), before prefix_cache_retention_interval
        place = sum(1 for entry in entries if entry.loc[0] in _DECLARED_BEFORE_CACHE_DTYPE)
        entries.insert(place, dtype_error)
    raise Refusal("ValidationError", entries[0].msg, errors=tuple(entries))


#: 0.33.0's bounded CacheConfig fields declared before ``cache_dtype`` (vllm/config/cache.py)
_DECLARED_BEFORE_CACHE_DTYPE = ("block_size", "prefix_match_unit", "gpu_memory_utilization")


def _unknown_dtype_entry(state: Any) -> Any:
    """0.33.0: the ``value_error`` entry of the cache dtype's field validator for a ``--kv-cache-dtype`` it does not
    know (the platform decides the list), else None."""
    given = state.layout.kv_cache_dtype
    if not state.release.within("0.33.0") or given is None or given in KV_CACHE_DTYPES_0330:
        return None
    state.need("platform")
    from ..verdict import ErrorEntry

    message = CACHE_DTYPE_MESSAGE.format(**cache_dtype_bind(state))
    return ErrorEntry("value_error", ("cache_dtype",), "Value error, " + message, given,
                      {"error": ValueError(message)})


def unknown_cache_dtype(state: Any) -> bool:
    """0.33.0: a ``--kv-cache-dtype`` the field validator does not know, alone in CacheConfig's validation (the
    cc_field_bounds step renders it beside a bound error): a ValueError wrapped for CacheConfig, its entry placed at
    ``cache_dtype`` with the value as input (the verdict's ``loc`` and ``errors``)."""
    entry = _unknown_dtype_entry(state)
    if entry is None:
        return False
    from .engine import Refusal

    raise Refusal("ValueError", entry.ctx["error"].args[0], errors=(entry,))


def cache_dtype_bind(state: Any) -> dict:
    return {"quoted": repr(state.layout.kv_cache_dtype), "valid": repr(list(KV_CACHE_DTYPES_0330))}
