"""KV-cache capacity as vLLM's startup log prints it: ``GPU KV cache size`` and ``Maximum concurrency``.

Given the KV-cache memory of one GPU (the ``Available KV cache memory: X GiB`` figure vLLM logs,
or its exact byte count), :func:`predict_capacity` returns the number of KV-cache blocks, the
tokens and the maximum concurrency vLLM computes for a layout, and the log lines exactly as the
release words them.  :func:`kv_capacity` is the same arithmetic on plain numbers.

Scope: models whose every attention layer has one and the same full-attention or MLA KV-cache
spec, i.e. **one KV-cache group** (``FullAttentionSpec`` / ``MLAAttentionSpec``); and models whose
layers are sliding-window (``SlidingWindowSpec``), or sliding-window and full attention, of one page
size without context parallelism (:func:`kv_capacity_sliding`: several groups of one group size, the
hybrid KV-cache manager on or off; :func:`kv_capacity_sliding_pp` over pipeline stages; which layers
slide: :mod:`kvguard.kv.sliding`).  Chunked-local, hybrid (Mamba / linear
attention), encoder-decoder, heterogeneous-layer (different page sizes) and indexer/compressed
models (DeepSeek-V3.2 / V4) are :class:`~kvguard.errors.CapacityNotModelled` — never a number.

The rules mirror ``vllm/v1/core/kv_cache_utils.py`` (``kv_cache_planning.py`` in 0.33.0) and
``vllm/v1/kv_cache_interface.py`` of each release, one function per rule below; the differential
test ``tests/upstream/test_capacity.py`` runs the releases' own functions on generated cases.

* page (one layer, one block) = ``block_size * bytes_per_token_per_layer`` (``AttentionSpec.
  page_size_bytes``; full attention ``2 * heads * head_size * b``, MLA ``head_size * b``).
* per worker ``num_blocks = available // page // layers_on_that_worker`` (``get_num_blocks``;
  0.33.0: ``available // (page * layers)``, the same integer); the engine keeps the minimum over
  workers (``get_kv_cache_configs``), so the pipeline stage with most layers
  (``get_pp_indices``) governs.
* blocks one request of ``max_model_len`` tokens needs: ``cdiv(cdiv(max_model_len, shards),
  block_size)`` (``FullAttentionSpec.max_memory_usage_bytes`` / page), shards = dcp, times pcp
  in 0.12.0–0.25.1; ``Maximum concurrency = num_blocks / that``
  (``get_max_concurrency_for_kv_cache_config``).
* ``GPU KV cache size``: ``num_blocks * block_size * dcp`` (0.10.2–0.11.2),
  ``num_blocks * block_size * pcp * dcp`` (0.12.0–0.20.0), ``int(concurrency * max_model_len)``
  (0.20.1 on).  0.10.2–0.11.0 log per worker *before* the minimum is taken.
* the launch is refused (``ValueError``) when one request of ``max_model_len`` tokens does not
  fit a worker (``_check_enough_kv_cache_memory``; from 0.29.0 one block per worker is held back
  for the null block first).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Callable, Optional, Sequence, cast

from ..errors import CapacityNotModelled, InputError, reports_internal_errors
from .kvsize import (
    config_dtype,
    kv_bytes_per_token_per_layer,
    kv_cache_dtype_bytes,
    kv_cache_groups_reason,
    kv_token_shards,
)

__all__ = ["CAPACITY_RELEASES", "CapacityNotModelledResult", "CapacityPrediction", "DcpCapacity", "default_block_size",
           "in_flight_tokens", "kv_cache_group_layout", "kv_capacity", "kv_capacity_sliding", "kv_capacity_sliding_pp",
           "pp_partitions", "predict_capacity", "serve_max_num_batched_tokens", "serve_pp_runner"]

GIB = 1 << 30
#: the largest memory figure taken, in GiB (2**40 GiB: far above any GPU, far below float overflow)
_MAX_GIB = 1 << 40

#: releases whose capacity rules kvguard has (inclusive bounds; every release between them)
CAPACITY_RELEASES = ("0.10.2", "0.33.0")

#: vLLM's CacheConfig default block size on CUDA (``CacheConfig.DEFAULT_BLOCK_SIZE`` /
#: ``CudaPlatform.check_and_update_config``) — the attention backend may change it
_DEFAULT_BLOCK_SIZE = 16
#: what the MLA backends of a Hopper GPU use (FlashMLA: 64); CUTLASS MLA on Blackwell uses 128
_DEFAULT_MLA_BLOCK_SIZE = 64


def _cdiv(a: int, b: int) -> int:
    return -(a // -b)


def _format_gib(b: int) -> str:
    """``vllm.utils.mem_utils.format_gib`` (0.14.0 on)."""
    return f"{round(b / GIB, 2)}"


def pp_partitions(num_layers: int, pp: int, partition: Optional[str] = None) -> list[int]:
    """Layers per pipeline stage, as ``vllm.distributed.utils.get_pp_indices`` splits them
    (identical in 0.10.2–0.33.0): ``num_layers // pp`` each, the remainder one each on the stages
    before the last (from the second-to-last backwards); ``partition`` is
    ``VLLM_PP_LAYER_PARTITION`` ("a,b,…")."""
    if partition is not None:
        try:
            parts = [int(x) for x in partition.split(",")]
        except ValueError:
            raise InputError(f"Invalid partition string: {partition}", source="<capacity>",
                             key="VLLM_PP_LAYER_PARTITION") from None
        if len(parts) != pp or sum(parts) != num_layers:
            raise InputError(f"VLLM_PP_LAYER_PARTITION {partition!r} does not split {num_layers} layers "
                             f"over {pp} stages", source="<capacity>", key="VLLM_PP_LAYER_PARTITION")
        return parts
    parts = [num_layers // pp] * pp
    for i in range(2, num_layers % pp + 2):
        parts[-i] += 1
    return parts


@dataclass(frozen=True)
class DcpCapacity:
    """The capacity at one ``-dcp`` size (everything else equal)."""

    dcp: int
    num_blocks: int
    num_tokens: Optional[int]
    max_concurrency: float
    fits: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CapacityPrediction:
    """vLLM's KV-cache capacity for one layout, one GPU's KV memory and one ``max_model_len``."""

    vllm_version: str
    tp: int
    pp: int
    pcp: int
    dcp: int
    max_model_len: int
    #: KV-cache bytes one worker may use (the "Available KV cache memory")
    available_kv_bytes: int
    #: tokens per block (``--block-size``) and the scheduler's block of tokens over the DCP
    #: (and, in 0.12.0–0.25.1, PCP) ranks: block_size * shards
    block_size: int
    scheduler_block_size: int
    #: one layer's page on one rank: block_size * bytes per token per layer
    page_size_bytes: int
    bytes_per_token_per_layer: int
    layers_per_stage: tuple[int, ...]
    #: over how many ranks one sequence's tokens are spread (dcp, times pcp in 0.12.0–0.25.1)
    kv_token_shards: int
    #: blocks per worker (the minimum over the pipeline stages)
    num_blocks: int
    #: blocks one request of max_model_len tokens takes: cdiv(cdiv(max_model_len, shards), block_size)
    blocks_per_request: int
    #: the "GPU KV cache size" figure in tokens
    num_tokens: int
    max_concurrency: float
    #: False: vLLM refuses to start (``error``); log_lines are then empty
    fits: bool
    #: KV bytes one request of max_model_len needs on the governing worker
    needed_bytes_per_request: int
    #: vLLM's estimate of the longest max_model_len that fits (given only when it refuses)
    estimated_max_model_len: Optional[int]
    #: ("ValueError", message) when vLLM refuses to start
    error: Optional[tuple[str, str]]
    #: the capacity lines of the startup log, each distinct line once, in order (message text only)
    log_lines: tuple[str, ...]
    use_mla: Optional[bool] = None
    num_kv_heads_per_rank: Optional[int] = None
    head_size: Optional[int] = None
    kv_cache_dtype: Optional[str] = None
    dtype_bytes: Optional[int] = None
    by_dcp: tuple[DcpCapacity, ...] = ()
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["layers_per_stage"] = list(self.layers_per_stage)
        out["error"] = None if self.error is None else {"exc_type": self.error[0], "message": self.error[1]}
        out["log_lines"] = list(self.log_lines)
        out["by_dcp"] = [d.to_dict() for d in self.by_dcp]
        out["assumptions"] = list(self.assumptions)
        out["notes"] = list(self.notes)
        out["modelled"] = True
        return out


@dataclass(frozen=True)
class CapacityNotModelledResult:
    """The capacity section of an audit for a model kvguard does not size: the reason, no numbers."""

    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"modelled": False, "reason": self.reason}


# ---------------------------------------------------------------------------------------------
# release-keyed rules


def _release(vllm_version: Any):
    from ..versions import resolve
    release = resolve(vllm_version)
    if not release.within(*CAPACITY_RELEASES):
        raise CapacityNotModelled(f"capacity prediction covers vLLM {CAPACITY_RELEASES[0]}–{CAPACITY_RELEASES[1]}, "
                                  f"not {release.key}")
    return release


def _shards(release, dcp: int, pcp: int) -> int:
    """``FullAttentionSpec.max_memory_usage_bytes``: ``cdiv(max_model_len, dcp)``, ``dcp * pcp`` in
    0.12.0–0.25.1 (:func:`kvguard.kv.kvsize.kv_token_shards`)."""
    return kv_token_shards(release.key, dcp, pcp)


_DOCS_HINT = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
_TRY = "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."

#: vLLM's refusal when one request of max_model_len tokens does not fit, per release range
#: (``_check_enough_kv_cache_memory`` / ``check_enough_kv_cache_memory`` in
#: vllm/v1/core/kv_cache_utils.py): (since, until, message template, the estimate's sentence).
#: Values: max_model_len, needed_2f / available_2f (GiB, ``:.2f``, to 0.13.0), needed_gib /
#: available_gib (``format_gib``, 0.14.0 on), estimated (the sentence is left out when 0).
_NOT_ENOUGH_MEMORY = (
    ("0.10.2", "0.12.0",
     "To serve at least one request with the models's max seq len ({max_model_len}), ({needed_2f} GiB KV cache "
     "is needed, which is larger than the available KV cache memory ({available_2f} GiB). {estimate} " + _TRY,
     "Based on the available memory, the estimated maximum model length is {estimated}."),
    ("0.13.0", "0.13.0",
     "To serve at least one request with the models's max seq len ({max_model_len}), ({needed_2f} GiB KV cache "
     "is needed, which is larger than the available KV cache memory ({available_2f} GiB). {estimate} " + _TRY
     + _DOCS_HINT,
     "Based on the available memory, the estimated maximum model length is {estimated}."),
    ("0.14.0", "0.21.0",
     "To serve at least one request with the models's max seq len ({max_model_len}), ({needed_gib} GiB KV cache "
     "is needed, which is larger than the available KV cache memory ({available_gib} GiB). {estimate}" + _TRY
     + _DOCS_HINT,
     "Based on the available memory, the estimated maximum model length is {estimated}. "),
    ("0.22.0", None,
     "To serve at least one request with the model's max seq len ({max_model_len}), ({needed_gib} GiB KV cache "
     "is needed, which is larger than the available KV cache memory ({available_gib} GiB). {estimate}Try "
     "increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
     "`max_model_len` when initializing the engine." + _DOCS_HINT,
     "Based on the available memory, the estimated maximum model length is {estimated}. "),
)

#: vLLM's refusal when no memory is left for the cache blocks, per release range (same functions)
_NO_MEMORY = (
    ("0.10.2", "0.12.0", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                         "initializing the engine."),
    ("0.13.0", "0.21.0", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                         "initializing the engine." + _DOCS_HINT),
    ("0.22.0", None, "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                     "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                     "despite its name)." + _DOCS_HINT),
)


def _for_release(table, release):
    """The row of a (since, until, …) table that covers ``release``."""
    for row in table:
        if release.within(row[0], row[1]):
            return row
    raise CapacityNotModelled(f"no capacity message for vLLM {release.key}")  # pragma: no cover - table gap


def _not_enough_message(release, max_model_len: int, needed: int, available: int, estimated: int) -> str:
    _since, _until, template, estimate = _for_release(_NOT_ENOUGH_MEMORY, release)
    return template.format(max_model_len=max_model_len, needed_2f=f"{needed / GIB:.2f}",
                           available_2f=f"{available / GIB:.2f}", needed_gib=_format_gib(needed),
                           available_gib=_format_gib(available),
                           estimate=estimate.format(estimated=estimated) if estimated > 0 else "")


def _no_memory_message(release) -> str:
    return _for_release(_NO_MEMORY, release)[2]


def _estimated_max_model_len(needed: Callable[[int], int], check_mem: int, max_model_len: int) -> int:
    """The "estimated maximum model length" of vLLM's refusal: its binary search over [1, max_model_len] for the
    longest request whose ``needed(length)`` bytes fit ``check_mem``; 0 when one token does not fit."""
    if needed(1) > check_mem:
        return 0
    low, high, best = 1, max_model_len, 1
    while low <= high:
        mid = (low + high) // 2
        if needed(mid) <= check_mem:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def _report_lines(release, num_blocks: int, block_size: int, dcp: int, pcp: int, max_model_len: int,
                  concurrency: float) -> tuple[int, list[str]]:
    """(num_tokens, lines) as the release's report logs them for one KV-cache config."""
    lines = []
    if release.within(None, "0.11.2"):
        # _get_kv_cache_config_uniform_type / get_kv_cache_config_from_groups (0.10.2, 0.11.0),
        # _report_kv_cache_config (0.11.1–0.11.2): one group -> num_blocks // 1 * block_size
        tokens = num_blocks * block_size
        if dcp > 1:
            tokens *= dcp
            lines.append(f"Multiplying the GPU KV cache size by the dcp_world_size {dcp}.")
    elif release.within(None, "0.20.0"):
        # _report_kv_cache_config 0.12.0–0.20.0
        tokens = num_blocks * block_size
        if pcp * dcp > 1:
            tokens *= pcp * dcp
            lines.append(f"Multiplying the GPU KV cache size by the cp_world_size {pcp * dcp} "
                         f"(pcp_world_size {pcp} * dcp_world_size {dcp}).")
    else:
        # 0.20.1 on: num_tokens = int(max_concurrency * max_model_len) (get_kv_cache_capacity from 0.24.0)
        tokens = int(concurrency * max_model_len)
    if release.within(None, "0.27.1"):
        lines.append(f"GPU KV cache size: {tokens:,} tokens")
        lines.append(f"Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x")
    else:
        # update_kv_cache_capacity (0.28.0 on; 0.30.0 on: "%s KV cache size", "GPU" on CUDA)
        lines.append(f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_model_len:,} "
                     f"tokens per request: {concurrency:.2f}x")
    return tokens, lines


def _positive_int(value: Any, key: str, *, zero: bool = False) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < (0 if zero else 1):
        raise InputError("must be a " + ("non-negative" if zero else "positive") + " integer",
                         source="<capacity>", key=key)
    return value


def kv_capacity(vllm_version: Any, *, bytes_per_token_per_layer: int, num_layers: int, block_size: int,
                available_kv_bytes: int, max_model_len: int, pp: int = 1, dcp: int = 1, pcp: int = 1,
                pp_partition: Optional[str] = None) -> dict[str, Any]:
    """vLLM's single-group KV-cache accounting on plain numbers (one worker per pipeline stage,
    every worker with ``available_kv_bytes``).  Returns a dict of the :class:`CapacityPrediction`
    fields it decides (``num_blocks``, ``num_tokens``, ``max_concurrency``, ``log_lines``, …)."""
    try:
        return _kv_capacity(vllm_version, bytes_per_token_per_layer=bytes_per_token_per_layer,
                            num_layers=num_layers, block_size=block_size, available_kv_bytes=available_kv_bytes,
                            max_model_len=max_model_len, pp=pp, dcp=dcp, pcp=pcp, pp_partition=pp_partition)
    except OverflowError:  # sizes whose ratios no float holds (e.g. 10**400 bytes)
        raise InputError("numbers too large to size (a ratio overflows a float)", source="<capacity>") from None


def _kv_capacity(vllm_version: Any, *, bytes_per_token_per_layer: int, num_layers: int, block_size: int,
                 available_kv_bytes: int, max_model_len: int, pp: int, dcp: int, pcp: int,
                 pp_partition: Optional[str]) -> dict[str, Any]:
    release = _release(vllm_version)
    for key, value in (("bytes_per_token_per_layer", bytes_per_token_per_layer), ("num_layers", num_layers),
                       ("block_size", block_size), ("max_model_len", max_model_len), ("pp", pp),
                       ("dcp", dcp), ("pcp", pcp)):
        _positive_int(value, key)
    if not isinstance(available_kv_bytes, int) or isinstance(available_kv_bytes, bool):
        raise InputError("must be an integer number of bytes", source="<capacity>", key="available_kv_bytes")
    if pp > num_layers:   # before the per-stage list is built: its length is pp
        raise InputError(f"-pp {pp} leaves a pipeline stage without layers ({num_layers} layers)",
                         source="<capacity>", key="pp")
    from ..rules.check import MAX_ENUMERATED_GPUS

    if pp > MAX_ENUMERATED_GPUS:
        raise InputError(f"-pp {pp}: kvguard sizes pipelines of up to {MAX_ENUMERATED_GPUS:,} stages",
                         source="<capacity>", key="pp")
    stages = pp_partitions(num_layers, pp, pp_partition)
    if min(stages) < 1:
        raise InputError(f"-pp {pp} leaves a pipeline stage without layers ({num_layers} layers)",
                         source="<capacity>", key="pp")
    page = block_size * bytes_per_token_per_layer
    shards = _shards(release, dcp, pcp)
    blocks_per_request = _cdiv(_cdiv(max_model_len, shards), block_size)
    null_block = release.within("0.29.0")
    # 0.14.0–0.16.0 check once, every layer of the model against the smallest worker's memory
    # (get_kv_cache_configs with the global groups: with -pp it counts all stages' layers)
    checked = [num_layers] if release.within("0.14.0", "0.16.0") else stages

    def needed(layers: int, model_len: int) -> int:
        return layers * _cdiv(_cdiv(model_len, shards), block_size) * page

    out: dict[str, Any] = {
        "vllm_version": release.key, "block_size": block_size, "scheduler_block_size": block_size * shards,
        "page_size_bytes": page, "bytes_per_token_per_layer": bytes_per_token_per_layer,
        "layers_per_stage": tuple(stages), "kv_token_shards": shards, "blocks_per_request": blocks_per_request,
        "available_kv_bytes": available_kv_bytes, "max_model_len": max_model_len,
        "needed_bytes_per_request": needed(max(checked), max_model_len), "estimated_max_model_len": None,
        "error": None, "fits": True,
    }
    # the fit check, per worker in order (0.29.0 on: less one block held back for the null block)
    for layers in checked:
        check_mem = available_kv_bytes - page * layers if null_block else available_kv_bytes
        if check_mem <= 0:
            out.update(fits=False, error=("ValueError", _no_memory_message(release)))
            break
        need = needed(layers, max_model_len)
        if need > check_mem:
            est = _estimated_max_model_len(functools.partial(needed, layers), check_mem, max_model_len)
            out.update(fits=False, needed_bytes_per_request=need, estimated_max_model_len=est,
                       error=("ValueError", _not_enough_message(release, max_model_len, need, check_mem, est)))
            break
    per_stage = [max(available_kv_bytes // page // layers, 0) for layers in stages]
    num_blocks = min(per_stage)
    concurrency = num_blocks / blocks_per_request
    lines: list[str] = []
    if release.within(None, "0.11.0"):
        # logged per worker, before the engine takes the minimum
        for blocks in per_stage:
            lines.extend(_report_lines(release, blocks, block_size, dcp, pcp, max_model_len,
                                       blocks / blocks_per_request)[1])
        tokens = _report_lines(release, num_blocks, block_size, dcp, pcp, max_model_len, concurrency)[0]
    else:
        tokens, lines = _report_lines(release, num_blocks, block_size, dcp, pcp, max_model_len, concurrency)
    seen: list[str] = []
    for line in lines:
        if line not in seen:
            seen.append(line)
    out.update(num_blocks=num_blocks, max_concurrency=concurrency, num_tokens=tokens,
               log_lines=tuple(seen) if out["fits"] else ())
    return out


# ---------------------------------------------------------------------------------------------
# sliding-window layers (several KV-cache groups of one page size)

def in_flight_tokens(vllm_version: Any, max_num_batched_tokens: int, async_scheduling: bool, pp: int = 1,
                     v2_model_runner: bool = False) -> int:
    """The token count a sliding-window layer reserves beyond its window (``SlidingWindowSpec.
    max_memory_usage_bytes``): the scheduler's ``max_num_batched_tokens`` to 0.24.0; from 0.26.0
    ``VllmConfig.max_in_flight_tokens`` = ``max_concurrent_batches * max_num_batched_tokens``, where
    ``max_concurrent_batches`` is, with async scheduling, pp + 1 with the V2 model runner and 2 at ``-pp 1``
    with the V1 runner; else pp."""
    release = _release(vllm_version)
    if not release.within("0.26.0"):
        return max_num_batched_tokens
    if async_scheduling and (v2_model_runner or pp == 1):
        return max_num_batched_tokens * (pp + 1)
    return max_num_batched_tokens * pp


#: ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` (vllm/config/vllm.py, 0.26.0-0.28.0): the MoE architectures the V2
#: model runner takes by default (0.26.0; 0.27.0 adds KimiK3ForConditionalGeneration, 0.28.0 DeepseekV4ForCausalLM)
_DEFAULT_V2_MOE_ARCHITECTURES = (
    ("DeepseekV2ForCausalLM", "0.26.0"), ("GraniteMoeForCausalLM", "0.26.0"), ("InklingForCausalLM", "0.26.0"),
    ("InklingForConditionalGeneration", "0.26.0"), ("LongcatFlashNgramForCausalLM", "0.26.0"),
    ("Qwen2MoeForCausalLM", "0.26.0"), ("KimiK3ForConditionalGeneration", "0.27.0"),
    ("DeepseekV4ForCausalLM", "0.28.0"))

#: what a plain `vllm serve MODEL -pp N` leaves the model-runner choice and async scheduling to (stated with them)
_SERVE_PP_HOST = ("a plain `vllm serve` on one CUDA node (the multiprocessing executor, which supports async "
                  "scheduling; Triton importable; no speculative decoding, no -pcp, no vllm.logits_processors "
                  "plugin installed, no option Model Runner V2 lacks)")


def serve_pp_runner(vllm_version: Any, *, architectures: Sequence[str], is_moe: bool, pp: int,
                    env: Optional[Mapping[str, str]] = None,
                    async_scheduling: Optional[bool] = None) -> tuple[bool, bool, str]:
    """(``use_v2_model_runner``, resolved ``async_scheduling``, why) for a plain ``vllm serve`` of a generative
    attention model (no mamba layers) at ``-pp`` > 1 on one CUDA node, from 0.26.0 (vllm/config/vllm.py).

    Runner: ``VLLM_USE_V2_MODEL_RUNNER`` decides when set (``bool(int(value))``); else 0.26.0-0.28.0 take V2
    for a dense model or one of ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` and V1 for other MoE models, and
    from 0.29.0 every model takes V2 (no V2-unsupported feature on this launch: sequence parallelism stays off as
    the optimization levels' ``IS_DENSE`` is False).  Async scheduling: ``--no-async-scheduling`` turns it off;
    unset it resolves to on (the multiprocessing executor supports it), except from 0.31.0 on the V1 runner at
    -pp > 1, which turns it off."""
    release = _release(vllm_version)
    if not release.within("0.26.0"):
        raise ValueError("serve_pp_runner models 0.26.0 and later")
    raw = (env or {}).get("VLLM_USE_V2_MODEL_RUNNER")
    if raw is not None:
        try:
            v2 = bool(int(raw))
        except ValueError:
            raise CapacityNotModelled(f"VLLM_USE_V2_MODEL_RUNNER={raw!r} is not an integer: vLLM fails reading "
                                      "it") from None
        why = f"VLLM_USE_V2_MODEL_RUNNER={raw}"
    elif release.within("0.26.0", "0.28.0"):
        default_moe = any(a == name and release.within(since) for name, since in _DEFAULT_V2_MOE_ARCHITECTURES
                          for a in architectures)
        v2 = not is_moe or default_moe
        why = (f"vLLM {release.version} defaults to Model Runner V2 for a dense model or one of its default-V2 "
               "MoE architectures, else V1: " + ("a MoE model outside that list" if not v2 else
                                                  "a default-V2 MoE architecture" if is_moe else "a dense model"))
    else:
        v2 = True
        why = f"vLLM {release.version} defaults to Model Runner V2"
    if async_scheduling is None:
        async_scheduling = v2 or not release.within("0.31.0")
        how = "on (the default)" if async_scheduling else \
            "off (the default turns it off for the V1 runner at -pp > 1 from 0.31.0)"
    else:
        how = "on (--async-scheduling)" if async_scheduling else "off (--no-async-scheduling)"
    runner = "V2" if v2 else "V1"
    batches = pp + 1 if (v2 and async_scheduling) else pp
    return v2, async_scheduling, (
        f"model runner {runner} ({why}), async scheduling {how}: at -pp {pp} a sliding-window layer reserves "
        f"max_concurrent_batches = {batches} batches of max_num_batched_tokens in flight — assumes {_SERVE_PP_HOST}")


def kv_cache_group_layout(vllm_version: Any, layer_windows: Sequence[Optional[int]]) -> list[Optional[int]]:
    """The KV-cache groups vLLM forms for layers of one page size, one entry per group: ``None`` a
    full-attention group, an int a sliding-window group of that window.

    ``get_kv_cache_groups`` (kv_cache_utils.py; kv_cache_planning.py in 0.33.0): one group when every
    layer has the same spec; else the layers are bucketed by spec in first-seen order, the group size
    is :func:`_hybrid_group_size`, and each bucket is split into ``cdiv(len, group_size)`` groups (the last padded)."""
    release = _release(vllm_version)
    return _groups(release, layer_windows)[0]


def _groups(release, layer_windows: Sequence[Optional[int]]) -> tuple[list[Optional[int]], int]:
    """(:func:`kv_cache_group_layout`'s groups, the group size)."""
    buckets = Counter(layer_windows)  # first-seen order, as vLLM buckets the specs
    size = _hybrid_group_size(release, list(buckets.values()))
    return [kind for kind, count in buckets.items() for _ in range(_cdiv(count, size))], size


def _hybrid_group_size(release, bucket_sizes: list[int]) -> int:
    """``_get_kv_cache_groups_uniform_page_size``: the smallest bucket; from 0.12.0 the largest when it
    is under 1.25 times the smallest, from 0.18.0 under 1.5 times."""
    smallest, largest = min(bucket_sizes), max(bucket_sizes)
    ratio = 1.5 if release.within("0.18.0") else 1.25 if release.within("0.12.0") else None
    if ratio is not None and largest < smallest * ratio:
        return largest
    return smallest


def _group_blocks(window: Optional[int], model_len: int, block_size: int, in_flight: int) -> int:
    """Blocks one request of ``model_len`` tokens holds in one layer of the group: full attention
    ``cdiv(model_len, block_size)``; a window W ``cdiv(min(W - 1 + in_flight, model_len), block_size) + 1``
    (``SlidingWindowSpec.max_memory_usage_bytes`` / page)."""
    if window is None:
        return _cdiv(model_len, block_size)
    return _cdiv(min(window - 1 + in_flight, model_len), block_size) + 1


def kv_capacity_sliding(vllm_version: Any, *, bytes_per_token_per_layer: int, layer_windows: Sequence[Optional[int]],
                        block_size: int, available_kv_bytes: int, max_model_len: int, max_num_batched_tokens: int,
                        async_scheduling: bool = True,
                        disable_hybrid_kv_cache_manager: bool = False) -> dict[str, Any]:
    """vLLM's KV-cache accounting for layers of one page size, some or all of them sliding-window
    (``layer_windows``: one entry per layer, ``None`` full attention, an int the window), one worker
    (``-pp 1``, no context parallelism).  Returns the same keys as :func:`kv_capacity` plus
    ``kv_cache_groups``, ``group_size`` and ``unified`` (True: the hybrid KV-cache manager is off and
    vLLM sized the sliding-window layers as full attention, :func:`_unified_sliding`)."""
    try:
        if disable_hybrid_kv_cache_manager:
            return _unified_sliding(vllm_version, bytes_per_token_per_layer, list(layer_windows), block_size,
                                    available_kv_bytes, max_model_len, max_num_batched_tokens, async_scheduling)
        return _kv_capacity_sliding(vllm_version, bytes_per_token_per_layer, list(layer_windows), block_size,
                                    available_kv_bytes, max_model_len, max_num_batched_tokens, async_scheduling)
    except OverflowError:
        raise InputError("numbers too large to size (a ratio overflows a float)", source="<capacity>") from None


#: ``FullAttentionSpec.merge_window_sizes`` (vllm/v1/kv_cache_interface.py, 0.10.2-0.33.0): the layers turned
#: into full attention keep their windows, and one group may hold only one of them
_WINDOWS_DIFFER = "All attention layers in the same KV cache group must have the same window size."
#: ``unify_hybrid_kv_cache_specs`` (to 0.26.0) / ``_promote_local_kv_cache_specs`` (0.27.0 on) when the layers
#: stay of several kinds
_NOT_UNIFIED = (("0.10.2", "0.26.0", "Hybrid KV cache manager is disabled but failed to convert the KV cache specs "
                                     "to one unified type."),
                ("0.27.0", None, "Failed to promote local KV cache specs to one unified type."))


def _unified_sliding(vllm_version, per_layer: int, windows: list, block_size: int, available: int,
                     max_model_len: int, batched: int, async_scheduling: bool) -> dict[str, Any]:
    """The hybrid KV-cache manager off (``--disable-hybrid-kv-cache-manager``): ``get_kv_cache_groups``
    first calls ``unify_hybrid_kv_cache_specs`` (0.27.0 on through ``_promote_local_kv_cache_specs``,
    0.31.0 on per dcp-sharding class, one class here).  Layers of one spec stay as they are (all
    sliding with one window: the hybrid accounting, one group).  Full and sliding layers together:
    every ``SlidingWindowSpec`` becomes a ``FullAttentionSpec`` keeping its window, and the model is one
    full-attention group — the one-group accounting of :func:`kv_capacity` at ``-pp 1``.  Windows that
    then differ refuse (``merge_window_sizes``' ValueError); sliding layers of several windows without
    a full layer are not converted and refuse as not unified.

    Where the fit check sits: 0.10.2-0.13.0 check every worker's own (sliding) specs *before* the
    groups are formed, so the check is the hybrid one (a layer's window bound) while the blocks are
    counted as full attention; from 0.14.0 the check runs on the unified groups."""
    release = _release(vllm_version)
    kinds = set(windows)
    hybrid = _kv_capacity_sliding(release.key, per_layer, windows, block_size, available, max_model_len, batched,
                                  async_scheduling)
    hybrid["unified"] = False
    if len(kinds) == 1:
        return hybrid        # one spec for every layer: nothing to unify
    check_first = release.within(None, "0.13.0")
    if check_first and not hybrid["fits"]:
        return hybrid        # the worker's own check refuses before the specs are unified
    refusal = None
    if None not in kinds:
        refusal = _for_release(_NOT_UNIFIED, release)[2]
    elif len(kinds) > 2:
        refusal = _WINDOWS_DIFFER
    if refusal is not None:
        hybrid.update(fits=False, error=("ValueError", refusal), estimated_max_model_len=None, log_lines=())
        return hybrid
    out = _kv_capacity(release.key, bytes_per_token_per_layer=per_layer, num_layers=len(windows),
                       block_size=block_size, available_kv_bytes=available, max_model_len=max_model_len, pp=1,
                       dcp=1, pcp=1, pp_partition=None)
    out.update(kv_cache_groups=(None,), group_size=len(windows), in_flight_tokens=hybrid["in_flight_tokens"],
               unified=True)
    if check_first:
        # the check passed on the sliding specs: vLLM starts whatever the full-attention blocks give
        tokens, lines = _report_lines(release, out["num_blocks"], block_size, 1, 1, max_model_len,
                                      out["max_concurrency"])
        out.update(fits=True, error=None, estimated_max_model_len=None, num_tokens=tokens,
                   needed_bytes_per_request=hybrid["needed_bytes_per_request"], log_lines=tuple(lines))
    return out


def kv_capacity_sliding_pp(vllm_version: Any, *, bytes_per_token_per_layer: int,
                           layer_windows: Sequence[Optional[int]], block_size: int, available_kv_bytes: int,
                           max_model_len: int, max_num_batched_tokens: int, pp: int, async_scheduling: bool = True,
                           v2_model_runner: bool = False) -> dict[str, Any]:
    """:func:`kv_capacity_sliding` over ``pp`` pipeline stages (``get_pp_indices``' split, one worker per stage,
    each with ``available_kv_bytes``), the hybrid KV-cache manager on, no context parallelism.

    0.10.2: every worker groups its own layers (``get_kv_cache_config``), checks them, logs its figures and the
    engine keeps the smallest block count (``unify_kv_cache_configs``); the scheduler uses worker 0's groups.
    0.11.0 on: the groups are formed over the whole model (``get_kv_cache_groups`` on the merged specs) and
    each worker keeps its layers of every group (0.17.0 on ``_project_kv_cache_groups_to_worker``): its pool
    count is the most layers any group has on it (``pools_per_stage``), ``num_blocks = available // page //
    that``; the minimum over workers is kept.  The fit check: to 0.13.0 each worker's own layer bounds; 0.14.0-0.16.0 once, on
    the global groups (the first group's spec); 0.17.0-0.18.1 per worker (the first group's spec); 0.19.0 on
    per worker over every group; 0.29.0 on less one block of the worker's pools.  0.10.2 / 0.11.0 log per
    worker before the minimum."""
    try:
        return _kv_capacity_sliding_pp(vllm_version, bytes_per_token_per_layer, list(layer_windows), block_size,
                                       available_kv_bytes, max_model_len, max_num_batched_tokens, pp,
                                       async_scheduling, v2_model_runner)
    except OverflowError:
        raise InputError("numbers too large to size (a ratio overflows a float)", source="<capacity>") from None


def _grouped_layers(release, windows: Sequence[Optional[int]]) -> list[tuple[Optional[int], list[int]]]:
    """The KV-cache groups with their layer indices: the layers bucketed by spec in first-seen order, each
    bucket of n layers cut into ``cdiv(n, group size)`` groups; 0.11.0 on group i takes every that-many-th
    layer from the i-th (``layers[i::num_groups]``, so every pipeline stage holds some layers of each group),
    0.10.2 consecutive runs."""
    buckets: dict[Optional[int], list[int]] = {}
    for index, window in enumerate(windows):
        buckets.setdefault(window, []).append(index)
    size = _hybrid_group_size(release, [len(v) for v in buckets.values()])
    if release.within(None, "0.10.2"):
        return [(kind, members[i:i + size]) for kind, members in buckets.items()
                for i in range(0, len(members), size)]
    out = []
    for kind, members in buckets.items():
        count = _cdiv(len(members), size)
        out += [(kind, members[i::count]) for i in range(count)]
    return out


def _sliding_inputs(per_layer: int, windows: list, block_size: int, available: int, max_model_len: int,
                    batched: int) -> None:
    """InputError for a sliding-window sizing's inputs that are no sizes."""
    for key, value in (("bytes_per_token_per_layer", per_layer), ("block_size", block_size),
                       ("max_model_len", max_model_len), ("max_num_batched_tokens", batched)):
        _positive_int(value, key)
    if not isinstance(available, int) or isinstance(available, bool):
        raise InputError("must be an integer number of bytes", source="<capacity>", key="available_kv_bytes")
    if not windows:
        raise InputError("no layers", source="<capacity>", key="layer_windows")
    for w in windows:
        if w is not None:
            _positive_int(w, "layer_windows")


def _kv_capacity_sliding_pp(vllm_version, per_layer: int, windows: list, block_size: int, available: int,
                            max_model_len: int, batched: int, pp: int, async_scheduling: bool,
                            v2_model_runner: bool) -> dict[str, Any]:
    release = _release(vllm_version)
    _sliding_inputs(per_layer, windows, block_size, available, max_model_len, batched)
    _positive_int(pp, "pp")
    if pp > len(windows):
        raise InputError(f"-pp {pp} leaves a pipeline stage without layers ({len(windows)} layers)",
                         source="<capacity>", key="pp")
    in_flight = in_flight_tokens(release.key, batched, async_scheduling, pp, v2_model_runner)
    stages = pp_partitions(len(windows), pp)
    bounds = [sum(stages[:i]) for i in range(pp + 1)]
    workers = [windows[bounds[i]:bounds[i + 1]] for i in range(pp)]
    page = block_size * per_layer

    def blocks(kinds, model_len: int) -> int:
        return sum(_group_blocks(w, model_len, block_size, in_flight) for w in kinds)

    def refusal(check_mem: int, needed) -> Optional[tuple[tuple[str, str], Optional[int], int]]:
        """(error, estimated length, needed bytes) when one request does not fit ``check_mem``."""
        if check_mem <= 0:
            return ("ValueError", _no_memory_message(release)), None, needed(max_model_len)
        need = needed(max_model_len)
        if need <= check_mem:
            return None
        est = _estimated_max_model_len(needed, check_mem, max_model_len)
        return ("ValueError", _not_enough_message(release, max_model_len, need, check_mem, est)), est, need

    out: dict[str, Any] = {
        "vllm_version": release.key, "block_size": block_size, "scheduler_block_size": block_size,
        "page_size_bytes": page, "bytes_per_token_per_layer": per_layer, "layers_per_stage": tuple(stages),
        "kv_token_shards": 1, "available_kv_bytes": available, "max_model_len": max_model_len,
        "estimated_max_model_len": None, "error": None, "fits": True, "in_flight_tokens": in_flight,
    }
    lines: list[str] = []
    failed = None
    if release.within(None, "0.10.2"):
        per_worker = []
        for ww in workers:
            groups, size = _groups(release, ww)
            failed = refusal(available, lambda n, ww=ww: blocks(ww, n) * page)
            if failed is not None:
                break
            nb = max(available // page // size, 0)
            per_worker.append((groups, size, nb))
            lines += [f"GPU KV cache size: {nb // len(groups) * block_size:,} tokens",
                      f"Maximum concurrency for {max_model_len:,} tokens per request: "
                      f"{nb / blocks(groups, max_model_len):.2f}x"]
        needed_request = blocks(windows, max_model_len) * page
        if failed is None:
            # unify_kv_cache_configs sorts each worker's groups by spec (FullAttentionSpec before
            # SlidingWindowSpec, then the window) and asserts worker 0's specs pairwise against the others'
            ordered = [sorted(g, key=lambda w: (w is not None, w or 0)) for g, _, _ in per_worker]
            if any(a != b for other in ordered[1:] for a, b in zip(ordered[0], other)):
                failed = ("AssertionError", ""), None, needed_request
        if failed is None:
            groups, group_size = per_worker[0][0], per_worker[0][1]
            num_blocks = min(nb for _, _, nb in per_worker)
            sizes = [size for _, size, _ in per_worker]
    else:
        grouped = _grouped_layers(release, windows)
        groups = [kind for kind, _ in grouped]
        # _max_memory_usage_bytes_from_groups: the largest group's layer count (a sliding bucket split into
        # layers[i::n] can leave the first group a layer short of it)
        group_size = max(len(members) for _, members in grouped)
        # the most layers of one group on each worker
        sizes = [max(sum(bounds[i] <= layer < bounds[i + 1] for layer in members) for _, members in grouped)
                 for i in range(pp)]
        null_block = release.within("0.29.0")
        checks: list[tuple[int, Callable[[int], int]]]
        if release.within(None, "0.13.0"):
            checks = [(available, functools.partial(lambda ww, n: blocks(ww, n) * page, ww)) for ww in workers]
        elif release.within(None, "0.16.0"):
            checks = [(available, lambda n: group_size * page * _group_blocks(groups[0], n, block_size, in_flight))]
        elif release.within(None, "0.18.1"):
            checks = [(available, functools.partial(
                lambda k, n: k * page * _group_blocks(groups[0], n, block_size, in_flight), k)) for k in sizes]
        else:
            checks = [(available - (page * k if null_block else 0),
                       functools.partial(lambda k, n: k * page * blocks(groups, n), k)) for k in sizes]
        needed_request = checks[0][1](max_model_len)
        for check_mem, needed in checks:
            failed = refusal(check_mem, needed)
            if failed is not None:
                break
        per_stage = [max(available // page // k, 0) for k in sizes]
        num_blocks = min(per_stage)
        if release.within(None, "0.11.0") and failed is None:
            for nb in per_stage:
                lines += [f"GPU KV cache size: {nb // len(groups) * block_size:,} tokens",
                          f"Maximum concurrency for {max_model_len:,} tokens per request: "
                          f"{nb / blocks(groups, max_model_len):.2f}x"]
    if failed is not None:
        error, est, need = failed
        whole, whole_size = _groups(release, windows)
        out.update(fits=False, error=error, estimated_max_model_len=est, needed_bytes_per_request=need,
                   log_lines=(), num_blocks=0, max_concurrency=0.0, num_tokens=0,
                   blocks_per_request=blocks(whole, max_model_len), kv_cache_groups=tuple(whole),
                   group_size=whole_size, pools_per_stage=())
        return out
    blocks_per_request = blocks(groups, max_model_len)
    concurrency = num_blocks / blocks_per_request
    if release.within(None, "0.10.2"):
        # each worker logged its own figure before the minimum: the smallest of them
        tokens = min(nb // len(g) * block_size for g, _, nb in per_worker)
    elif release.within(None, "0.20.0"):
        tokens = num_blocks // len(groups) * block_size
        if not lines:
            lines = [f"GPU KV cache size: {tokens:,} tokens",
                     f"Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x"]
    else:
        tokens, lines = _report_lines(release, num_blocks, block_size, 1, 1, max_model_len, concurrency)
    seen: list[str] = []
    for line in lines:
        if line not in seen:
            seen.append(line)
    out.update(num_blocks=num_blocks, max_concurrency=concurrency, num_tokens=tokens,
               blocks_per_request=blocks_per_request, needed_bytes_per_request=needed_request,
               log_lines=tuple(seen), kv_cache_groups=tuple(groups), group_size=group_size,
               pools_per_stage=tuple(sizes))
    return out


def _kv_capacity_sliding(vllm_version, per_layer: int, windows: list, block_size: int, available: int,
                         max_model_len: int, batched: int, async_scheduling: bool) -> dict[str, Any]:
    release = _release(vllm_version)
    _sliding_inputs(per_layer, windows, block_size, available, max_model_len, batched)
    in_flight = in_flight_tokens(release.key, batched, async_scheduling)
    groups, group_size = _groups(release, windows)
    page = block_size * per_layer

    def per_group_blocks(model_len: int) -> int:
        return sum(_group_blocks(w, model_len, block_size, in_flight) for w in groups)

    if release.within(None, "0.13.0"):
        # check_enough_kv_cache_memory: every layer's own spec, no padding layers
        def needed(model_len: int) -> int:
            return sum(_group_blocks(w, model_len, block_size, in_flight) for w in windows) * page
    elif release.within(None, "0.18.1"):
        # _max_memory_usage_bytes_from_groups 0.14.0-0.18.1: the first group's spec stands for every group
        def needed(model_len: int) -> int:
            return group_size * page * _group_blocks(groups[0], model_len, block_size, in_flight)
    else:
        # _max_memory_usage_bytes_from_groups: group_size pools of one page per group's block
        def needed(model_len: int) -> int:
            return group_size * page * per_group_blocks(model_len)

    blocks_per_request = per_group_blocks(max_model_len)
    out: dict[str, Any] = {
        "vllm_version": release.key, "block_size": block_size, "scheduler_block_size": block_size,
        "page_size_bytes": page, "bytes_per_token_per_layer": per_layer, "layers_per_stage": (len(windows),),
        "kv_token_shards": 1, "blocks_per_request": blocks_per_request, "available_kv_bytes": available,
        "max_model_len": max_model_len, "needed_bytes_per_request": needed(max_model_len),
        "estimated_max_model_len": None, "error": None, "fits": True,
        "kv_cache_groups": tuple(groups), "group_size": group_size, "in_flight_tokens": in_flight,
    }
    # 0.29.0 on: the null block (one block of every pool) is held back before the check
    check_mem = available - page * group_size if release.within("0.29.0") else available
    if check_mem <= 0:
        out.update(fits=False, error=("ValueError", _no_memory_message(release)))
    elif out["needed_bytes_per_request"] > check_mem:
        est = _estimated_max_model_len(needed, check_mem, max_model_len)
        out.update(fits=False, estimated_max_model_len=est,
                   error=("ValueError", _not_enough_message(release, max_model_len, out["needed_bytes_per_request"],
                                                            check_mem, est)))
    num_blocks = max(available // page // group_size, 0)
    concurrency = num_blocks / blocks_per_request
    if release.within(None, "0.20.0"):
        # num_blocks // len(kv_cache_groups) * min block size
        tokens = num_blocks // len(groups) * block_size
        lines = [f"GPU KV cache size: {tokens:,} tokens",
                 f"Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x"]
    else:
        tokens, lines = _report_lines(release, num_blocks, block_size, 1, 1, max_model_len, concurrency)
    out.update(num_blocks=num_blocks, max_concurrency=concurrency, num_tokens=tokens,
               log_lines=tuple(lines) if out["fits"] else ())
    return out


# ---------------------------------------------------------------------------------------------
# models


#: registry flags (``vllm/model_executor/models/interfaces.py``) of architectures whose cache is not
#: (only) an attention KV cache
_REGISTRY_FLAGS = (("is_attention_free", "attention-free (no attention KV cache)"),
                   ("is_hybrid", "hybrid: attention layers beside Mamba / linear-attention layers"),
                   ("has_inner_state", "a model with a recurrent inner state"))


def _registry_reason(facts, release) -> Optional[str]:
    """What the release's model registry says against one attention KV-cache group (None: nothing).
    Catches hybrid and state-space architectures whatever their config looks like."""
    from ..archs import arch_flag, registered_arch

    arch = registered_arch(facts.architectures, release)
    if arch is None:
        return None
    for flag, what in _REGISTRY_FLAGS:
        if arch_flag(facts.architectures, flag, release):
            return f"{arch} is {what} in vLLM {release.version}'s model registry ({flag})"
    return None


def _available_bytes(available_kv_bytes, kv_memory_gib, gpu_memory_gib, gpu_memory_utilization, weights_gib,
                     other_gib) -> tuple[int, list[str]]:
    given = [available_kv_bytes is not None, kv_memory_gib is not None, gpu_memory_gib is not None]
    if sum(given) != 1:
        raise InputError("give exactly one of available_kv_bytes, kv_memory_gib (vLLM's 'Available KV cache "
                         "memory') or gpu_memory_gib with gpu_memory_utilization and weights_gib",
                         source="<capacity>", key="available_kv_bytes")

    def num(value, key, lo=0.0, hi=float(_MAX_GIB)):
        try:
            ok = (not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
                  and lo <= value <= hi)
        except OverflowError:  # an int too large for a float
            ok = False
        if not ok:
            raise InputError(f"must be a number >= {lo:g} and <= {hi:g}", source="<capacity>", key=key)
        return float(value)

    if available_kv_bytes is not None:
        if not isinstance(available_kv_bytes, int) or isinstance(available_kv_bytes, bool) or available_kv_bytes < 0:
            raise InputError("must be a non-negative integer", source="<capacity>", key="available_kv_bytes")
        return available_kv_bytes, []
    if kv_memory_gib is not None:
        g = num(kv_memory_gib, "kv_memory_gib")
        notes = [f"KV memory {g:g} GiB = {int(g * GIB):,} bytes; vLLM logs that figure rounded to 0.01 GiB, so "
                 "the real block count can differ by up to 5.4 MB worth of blocks (exact: available_kv_bytes)"]
        return int(g * GIB), notes
    if gpu_memory_utilization is None or weights_gib is None:
        raise InputError("gpu_memory_gib needs gpu_memory_utilization and weights_gib", source="<capacity>",
                         key="gpu_memory_utilization")
    total = num(gpu_memory_gib, "gpu_memory_gib")
    util = num(gpu_memory_utilization, "gpu_memory_utilization", 0.0, 1.0)
    weights = num(weights_gib, "weights_gib")
    other = num(other_gib, "other_gib")
    avail = math.ceil(total * GIB * util) - int(weights * GIB) - int(other * GIB)
    return avail, [f"KV memory estimated as ceil({total:g} GiB x {util:g}) - weights {weights:g} GiB - "
                   f"activation peak / non-torch / CUDA graphs {other:g} GiB = {avail:,} bytes (vLLM profiles "
                   "the last three; the figure it logs as 'Available KV cache memory' is the one to use)"]


@reports_internal_errors
def predict_capacity(config: Any, *, tp: int, max_model_len: int, pp: int = 1, pcp: int = 1, dcp: int = 1,
                     vllm_version: Optional[str] = None, kv_cache_dtype: str = "auto",
                     block_size: Optional[int] = None, available_kv_bytes: Optional[int] = None,
                     kv_memory_gib: Optional[float] = None, gpu_memory_gib: Optional[float] = None,
                     gpu_memory_utilization: Optional[float] = None, weights_gib: Optional[float] = None,
                     other_gib: float = 0.0, dcp_sizes: Optional[Sequence[int]] = None,
                     env: Optional[Mapping[str, str]] = None, trust_remote_code: bool = False,
                     max_num_batched_tokens: Optional[int] = None, async_scheduling: Optional[bool] = None,
                     disable_sliding_window: bool = False,
                     disable_hybrid_kv_cache_manager: bool = False) -> CapacityPrediction:
    """vLLM's ``GPU KV cache size`` / ``Maximum concurrency`` for ``config`` at this layout.

    ``config``: a path to config.json or its directory, a catalog model id, a mapping or
    :class:`~kvguard.ModelFacts` (then sliding-window / hybrid markers of the raw config cannot be
    seen: pass the config when in doubt).  The KV memory of one GPU is exactly one of
    ``available_kv_bytes``, ``kv_memory_gib`` (the ``Available KV cache memory`` vLLM logs) or
    ``gpu_memory_gib`` with ``gpu_memory_utilization``, ``weights_gib`` and ``other_gib``
    (activation peak, non-torch memory, CUDA graphs: yours to supply).  ``block_size`` defaults to
    16 (MLA: 64) and the result says so in ``assumptions``.  ``dcp_sizes``: also compute the
    capacity at each of these ``-dcp`` sizes (``by_dcp``).

    Models with sliding-window layers (:mod:`kvguard.kv.sliding`: gpt-oss, Gemma 2 / 3, Cohere2,
    Llama / Mistral, Qwen2 / Qwen3 as their configs make them) are sized with
    :func:`kv_capacity_sliding` without context parallelism (at ``-pp`` > 1
    :func:`kv_capacity_sliding_pp`; from 0.26.0 within one 8-GPU node, with the model runner and async
    scheduling :func:`serve_pp_runner` resolves from ``env`` and ``async_scheduling``); their figures depend on
    ``max_num_batched_tokens`` (default 8192, the ``vllm serve`` default on an H100-class 80 GB GPU)
    and, from 0.26.0, ``async_scheduling`` (default on), both reported as assumptions.
    ``disable_sliding_window``: ``--disable-sliding-window``.  ``disable_hybrid_kv_cache_manager``:
    ``--disable-hybrid-kv-cache-manager`` — vLLM then sizes the sliding-window layers of a model that also
    has full-attention layers as full attention (one group), see :func:`_unified_sliding`.

    Raises :class:`~kvguard.errors.CapacityNotModelled` for models with more than one KV-cache
    group or spec kvguard does not size, :class:`~kvguard.InputError` for bad input.
    """
    from ..facts import ModelFacts
    from ..rules.check import resolve_config

    release = _release(vllm_version)
    for key, value in (("tp", tp), ("pp", pp), ("pcp", pcp), ("dcp", dcp), ("max_model_len", max_model_len)):
        _positive_int(value, key)
    if block_size is not None:
        _positive_int(block_size, "block_size")
    avail, mem_notes = _available_bytes(available_kv_bytes, kv_memory_gib, gpu_memory_gib, gpu_memory_utilization,
                                        weights_gib, other_gib)
    label, cfg, raw, model_path = resolve_config(config)

    def refuse(reason: str):
        raise CapacityNotModelled(f"{label}: {reason} — vLLM keeps several KV-cache groups or other spec "
                                  "classes; kvguard predicts capacity only for one full-attention/MLA group")

    from .sliding import SLIDING_ARCHITECTURES, sliding_layer_windows

    if max_num_batched_tokens is not None:
        _positive_int(max_num_batched_tokens, "max_num_batched_tokens")
    reason = kv_cache_groups_reason(raw, release=release)  # before model_facts: such configs may need remote code
    raw_archs = raw.get("architectures") if isinstance(raw, Mapping) else None
    sliding_candidate = isinstance(raw_archs, list) and any(a in SLIDING_ARCHITECTURES for a in raw_archs)
    if reason is not None and not sliding_candidate:
        refuse(reason)
    if isinstance(cfg, ModelFacts):
        facts = cfg
    else:
        from ..rules.check import model_facts
        facts = model_facts(cfg, vllm_version=release.key, env=env, trust_remote_code=trust_remote_code,
                            model_path=model_path)
    windows: Optional[list[Optional[int]]] = None
    registry_reason = _registry_reason(facts, release)
    if registry_reason is not None:
        refuse(registry_reason)
    reason = kv_cache_groups_reason(raw, facts, release)
    from ..archs import registered_arch

    # the sliding-window architectures are always read layer by layer: CacheConfig.sliding_window can slide every
    # layer of a config whose keys alone look like one full-attention group (layer_types all full_attention with a
    # sliding_window, 0.11.1-0.26.0)
    if reason is not None or disable_sliding_window or registered_arch(facts.architectures, release) \
            in SLIDING_ARCHITECTURES:
        windows, why = sliding_layer_windows(facts, release, raw if isinstance(raw, Mapping) else None,
                                             disable_sliding_window=disable_sliding_window)
        if windows is None and reason is not None:
            refuse(f"{reason}; {why}")
        # windows None without a reason: the keys mark no sliding layer, the one-group accounting below
        if windows is not None and all(w is None for w in windows):
            windows = None      # every layer full attention: the one-group accounting below
    from ..quant.kv_cache import effective

    sized, named = effective(kv_cache_dtype, facts.resolved_top or {}, release)
    dtype_name, b = kv_cache_dtype_bytes(sized, model_dtype=config_dtype(raw), vllm_version=release.key)
    mla = bool(facts.use_mla)
    heads = facts.num_kv_heads(tp)
    # numbers here: kv_cache_groups_reason refused a model without a head size or layers
    head_size, num_layers = cast(int, facts.head_size), cast(int, facts.num_hidden_layers)
    per_layer = kv_bytes_per_token_per_layer(heads, head_size, b, mla=mla)
    assumptions = []
    if block_size is None:
        block_size = _DEFAULT_MLA_BLOCK_SIZE if mla else _DEFAULT_BLOCK_SIZE
        assumptions.append(
            f"block size {block_size}: " + ("what FlashMLA (Hopper) uses; other MLA backends differ (CUTLASS MLA on "
                                             "Blackwell: 128)" if mla else "vLLM's CacheConfig default on CUDA")
            + " — the attention backend can change it; pass the block size your launch uses")
    notes = list(mem_notes) + ([named] if named else [])
    if sized == "auto" and config_dtype(raw) in (None, "float32", "float"):
        notes.append("config dtype float32/unknown: --dtype auto sized as bfloat16 (a bf16-capable CUDA GPU)")
    partition = (env or {}).get("VLLM_PP_LAYER_PARTITION")
    if windows is not None:
        return _predict_sliding(release, label, windows, tp=tp, pp=pp, pcp=pcp, dcp=dcp, per_layer=per_layer,
                                block_size=block_size, avail=avail, max_model_len=max_model_len,
                                max_num_batched_tokens=max_num_batched_tokens, async_scheduling=async_scheduling,
                                heads=heads, head_size=head_size, dtype_name=dtype_name, b=b,
                                assumptions=assumptions, notes=notes,
                                disable_hybrid_kv_cache_manager=disable_hybrid_kv_cache_manager, partition=partition,
                                architectures=tuple(facts.architectures or ()), is_moe=facts.is_moe, env=env)
    core = kv_capacity(release.key, bytes_per_token_per_layer=per_layer, num_layers=num_layers,
                       block_size=block_size, available_kv_bytes=avail, max_model_len=max_model_len, pp=pp,
                       dcp=dcp, pcp=pcp, pp_partition=partition)
    by_dcp = []
    for d in sorted(set(dcp_sizes or ())):
        other = core if d == dcp else kv_capacity(
            release.key, bytes_per_token_per_layer=per_layer, num_layers=num_layers,
            block_size=block_size, available_kv_bytes=avail, max_model_len=max_model_len, pp=pp, dcp=d, pcp=pcp,
            pp_partition=partition)
        by_dcp.append(DcpCapacity(d, other["num_blocks"], other["num_tokens"], other["max_concurrency"],
                                  other["fits"]))
    return CapacityPrediction(tp=tp, pp=pp, pcp=pcp, dcp=dcp, use_mla=mla, num_kv_heads_per_rank=heads,
                              head_size=facts.head_size, kv_cache_dtype=dtype_name, dtype_bytes=b,
                              by_dcp=tuple(by_dcp), assumptions=tuple(assumptions), notes=tuple(notes), **core)


#: ``vllm serve``'s ``max_num_batched_tokens`` on an H100-class GPU of 80 GB (``EngineArgs.get_batch_defaults``:
#: device memory >= 70 GiB and not an A100, OPENAI_API_SERVER; the same in 0.10.2-0.33.0; 0.33.0 gives
#: 16384 from 160 GB), when it is not clamped to ``max_num_seqs * max_model_len`` (1024 sequences)
_SERVE_MAX_NUM_BATCHED_TOKENS = 8192
_SERVE_MAX_NUM_SEQS = 1024
#: the default host's GPUs per node (8x H100): a -pp launch within it runs on the multiprocessing executor
_SERVE_NODE_GPUS = 8


def serve_max_num_batched_tokens(max_model_len: int) -> int:
    """The ``max_num_batched_tokens`` :func:`predict_capacity` assumes when none is given (stated there)."""
    return min(_SERVE_MAX_NUM_BATCHED_TOKENS, _SERVE_MAX_NUM_SEQS * max_model_len)


def default_block_size(use_mla: bool) -> int:
    """The block size :func:`predict_capacity` assumes when none is given (stated there)."""
    return _DEFAULT_MLA_BLOCK_SIZE if use_mla else _DEFAULT_BLOCK_SIZE


_HYBRID_ON = ("hybrid KV-cache manager on (the CUDA default: no --disable-hybrid-kv-cache-manager; "
              "--kv-transfer-config also turns it off (0.10.2-0.22.1; from 0.23.0 for a KV connector without "
              "hybrid support), --kv-events-config too in 0.10.2-0.19.1 — pass --disable-hybrid-kv-cache-manager "
              "then)")
#: the warning ``unify_hybrid_kv_cache_specs`` logs when it turns sliding-window layers into full attention
_UNIFIED_WARNING = ("Hybrid KV cache manager is disabled for this hybrid model, This means we do not enable any "
                    "optimizations for saving KV cache memory (e.g., dropping the KV cache outside the sliding "
                    "window). The compute of layers like sliding window is still saved.")


def _group_summary(groups: Sequence[Optional[int]]) -> str:
    """"6 x window 1024, 1 x full" in the groups' order."""
    return ", ".join(f"{n} x {'full' if g is None else f'window {g}'}" for g, n in Counter(groups).items())


def _predict_sliding(release, label: str, windows: list, *, tp: int, pp: int, pcp: int, dcp: int, per_layer: int,
                     block_size: int, avail: int, max_model_len: int, max_num_batched_tokens: Optional[int],
                     async_scheduling: Optional[bool], heads: int, head_size: int, dtype_name: str, b: int,
                     assumptions: list, notes: list, disable_hybrid_kv_cache_manager: bool = False,
                     partition: Optional[str] = None, architectures: Sequence[str] = (), is_moe: bool = False,
                     env: Optional[Mapping[str, str]] = None) -> CapacityPrediction:
    if pcp != 1 or dcp != 1:
        raise CapacityNotModelled(f"{label}: sliding-window layers with -pcp/-dcp above 1 are not modelled "
                                  "(vLLM's SlidingWindowSpec refuses -dcp)")
    if pp != 1:
        why = None
        if release.within("0.26.0") and tp * pp > _SERVE_NODE_GPUS:
            why = (f"from 0.26.0 a sliding-window layer reserves max_concurrent_batches batches, which at -pp > 1 "
                   f"depends on async scheduling; {tp * pp} GPUs span more than one {_SERVE_NODE_GPUS}-GPU node, "
                   "where the executor (Ray, or multiprocessing over nodes) decides it — "
                   "kvguard.kv.capacity.kv_capacity_sliding_pp takes async_scheduling and v2_model_runner")
        elif disable_hybrid_kv_cache_manager:
            why = "--disable-hybrid-kv-cache-manager with -pp > 1 was not checked against the releases"
        elif partition is not None:
            why = "VLLM_PP_LAYER_PARTITION with sliding-window layers was not checked against the releases"
        if why is not None:
            raise CapacityNotModelled(f"{label}: sliding-window layers at -pp {pp}: {why}")
    kinds = sorted({w for w in windows if w is not None})
    assumptions = list(assumptions)
    if max_num_batched_tokens is None:
        max_num_batched_tokens = min(_SERVE_MAX_NUM_BATCHED_TOKENS, _SERVE_MAX_NUM_SEQS * max_model_len)
        assumptions.append(f"max_num_batched_tokens {max_num_batched_tokens}: the `vllm serve` default on an H100-class "
                           "80 GB GPU (chunked prefill on); a sliding-window layer reserves its window plus that many "
                           "tokens — pass --max-num-batched-tokens if yours differs")
    v2_model_runner = False
    if pp > 1 and release.within("0.26.0"):
        v2_model_runner, async_scheduling, decided = serve_pp_runner(
            release.key, architectures=architectures, is_moe=is_moe, pp=pp, env=env, async_scheduling=async_scheduling)
        assumptions.append(decided)
    if async_scheduling is None:
        async_scheduling = True
        if release.within("0.26.0"):
            assumptions.append("async scheduling on (the default for a generative model without an incompatible "
                               "speculative method): a sliding-window layer reserves two batches of tokens in flight")
    if not disable_hybrid_kv_cache_manager:
        assumptions.append(_HYBRID_ON)
    if pp > 1:
        core = kv_capacity_sliding_pp(release.key, bytes_per_token_per_layer=per_layer, layer_windows=windows,
                                      block_size=block_size, available_kv_bytes=avail, max_model_len=max_model_len,
                                      max_num_batched_tokens=max_num_batched_tokens, pp=pp,
                                      async_scheduling=async_scheduling, v2_model_runner=v2_model_runner)
        if core["error"] == ("AssertionError", ""):
            notes = list(notes) + ["vLLM 0.10.2 groups each pipeline stage's layers on its own and asserts that "
                                   "the stages' groups match (unify_kv_cache_configs): here they do not, a bare "
                                   "AssertionError at engine start"]
    else:
        core = kv_capacity_sliding(release.key, bytes_per_token_per_layer=per_layer, layer_windows=windows,
                                   block_size=block_size, available_kv_bytes=avail, max_model_len=max_model_len,
                                   max_num_batched_tokens=max_num_batched_tokens, async_scheduling=async_scheduling,
                                   disable_hybrid_kv_cache_manager=disable_hybrid_kv_cache_manager)
    groups = core.pop("kv_cache_groups")
    group_size = core.pop("group_size")
    core.pop("pools_per_stage", None)
    in_flight = core.pop("in_flight_tokens")
    unified = core.pop("unified", False)
    full = sum(w is None for w in windows)
    layers = (f"{len(windows) - full} sliding-window layers (window {', '.join(str(k) for k in kinds)}) and {full} "
              "full-attention layers")
    notes = list(notes)
    if unified:
        notes.append(f"{layers}; --disable-hybrid-kv-cache-manager: vLLM sizes every sliding-window layer as full "
                     f"attention, one KV-cache group of {group_size} layers, and warns: \"{_UNIFIED_WARNING}\"")
        if release.within(None, "0.13.0"):
            notes.append(f"vLLM {release.version} checks the fit on the sliding-window layers' own bounds before it "
                         "turns them into full attention: it may start with a maximum concurrency under 1")
    elif disable_hybrid_kv_cache_manager and core["error"] is not None and core["error"][1] in (
            _WINDOWS_DIFFER, *(row[2] for row in _NOT_UNIFIED)):
        notes.append(f"{layers}; --disable-hybrid-kv-cache-manager: vLLM cannot bring the layers to one KV-cache spec")
    else:
        if disable_hybrid_kv_cache_manager:
            notes.append("--disable-hybrid-kv-cache-manager: every layer has the same spec, nothing to unify")
        if pp > 1:
            notes.append("pipeline stages: each stage keeps its layers of every group and has as many pools as the "
                         "most layers one group has on it (0.10.2: each stage groups its own layers); the smallest "
                         "block count over the stages governs")
        notes.append(
            f"{layers}: {len(groups)} KV-cache groups of {group_size} layers "
            f"({_group_summary(groups)}); a sliding-window layer holds at "
            f"most cdiv(min(window - 1 + {in_flight}, max_model_len), block_size) + 1 blocks per request")
    return CapacityPrediction(tp=tp, pp=pp, pcp=pcp, dcp=dcp, use_mla=False, num_kv_heads_per_rank=heads,
                              head_size=head_size, kv_cache_dtype=dtype_name, dtype_bytes=b, by_dcp=(),
                              assumptions=tuple(assumptions), notes=tuple(notes), **core)
