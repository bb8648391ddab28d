"""Values a release's ``vllm/envs.py`` getters refuse, for the VLLM_* variables kvguard does not model (0.10.2 – 0.33.0).

Each variable of ``vllm.envs.environment_variables`` is parsed when vLLM reads it (``int(...)``, ``float(...)``, a
choice among listed options, JSON, …); a value its getter refuses raises there.  kvguard/data/env_parsers.json
holds, per release range, a classification of each getter measured in the release's oracle with probe values
(tools/measure_env_parsers.py, tests/upstream/env_parsers_runner.py): ``"int"`` / ``"float"`` / ``"json"`` (refuses what
Python's ``int()`` / ``float()`` / ``json.loads`` refuses, with their message), ``["choices", OPTIONS, CASE_SENSITIVE]``, or
``{"refused": {PROBE: [TYPE, MESSAGE]}, "like": CLASS}`` (no class predicted every probe: those probes are known,
and, with ``like``, that the getter refuses what that class refuses, in words not measured for other values).

Where vLLM first reads such a variable (import, a platform, a worker, a request) is not modelled, so a refused
value makes the launch undecidable (:func:`refusal_undecidable`, asked by kvguard.rules.check.check right after the
refusals of vLLM's import and argument parser, and by kvguard.front.examine before the model is resolved) instead
of silently accepted.  Variables kvguard
reads elsewhere (:data:`MODELLED`) keep their own handling only where a rule reads the value as the release's getter
does (:data:`READ_BY_RULES`, and VLLM_USE_RUST_FRONTEND with ``--grpc-port``); the others (the MoE / quantization
kernel switches, VLLM_BATCH_INVARIANT, VLLM_MARLIN_INPUT_DTYPE, VLLM_FLASH_ATTN_VERSION, …) are read by kvguard only
as set or unset, so a value their getter refuses is undecidable here too.  A launch the rules accept while one of
the variables they read has a refused value they did not reach is undecidable as well (:func:`accepted_undecidable`):
from 0.11.1 the engine core reads every variable once it has started (``enable_envs_cache``, after the model and the
KV cache are set up), and 0.10.2 - 0.11.0 hash some of them when compiling the model.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MODELLED", "READ_BY_RULES", "accepted_undecidable", "choices_listed", "classify", "is_placeholder", "kind",
           "predict", "refusal_undecidable", "refusals"]

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "env_parsers.json")

#: the VLLM_* names kvguard's own code reads or names (tests/test_env_values.py keeps it equal to the names in
#: kvguard/**/*.py); a refused value keeps a rule's handling only where :data:`READ_BY_RULES` says so
MODELLED = frozenset({
    "VLLM_ADDITIONAL_ARGS", "VLLM_ALL2ALL_BACKEND", "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_ALLOW_RUNTIME_LORA_UPDATING",
    "VLLM_ATTENTION_BACKEND", "VLLM_B12X_MOE_FP4_FORCE_A16", "VLLM_BATCH_INVARIANT", "VLLM_CONFIGURE_LOGGING",
    "VLLM_CPU_KVCACHE_SPACE", "VLLM_CRASHES", "VLLM_DISABLED_KERNELS", "VLLM_DP_RANK", "VLLM_DP_SIZE", "VLLM_FLASHINFER_MOE_BACKEND",
    "VLLM_FLASH_ATTN_VERSION", "VLLM_HUMMING_INPUT_QUANT_CONFIG", "VLLM_IMAGE", "VLLM_LOGGING_CONFIG_PATH",
    "VLLM_LOGGING_LEVEL", "VLLM_LORA_ENABLE_DUAL_STREAM", "VLLM_MARLIN_INPUT_DTYPE", "VLLM_MLA_DISABLE", "VLLM_MOE_USE_DEEP_GEMM",
    "VLLM_MXFP4_USE_MARLIN", "VLLM_NVFP4_GEMM_BACKEND", "VLLM_PP_LAYER_PARTITION", "VLLM_RAY_DP_PACK_STRATEGY",
    "VLLM_ROCM_USE_AITER", "VLLM_ROCM_USE_AITER_MOE", "VLLM_TAG", "VLLM_TEST_FORCE_FP8_MARLIN", "VLLM_USE_DEEP_GEMM",
    "VLLM_USE_FBGEMM", "VLLM_USE_FLASHINFER_MOE_FP4", "VLLM_USE_FLASHINFER_MOE_FP8",
    "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16", "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8",
    "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS", "VLLM_USE_NVFP4_CT_EMULATIONS", "VLLM_USE_RUST_FRONTEND",
    "VLLM_USE_TRTLLM_FP4_GEMM", "VLLM_USE_V1", "VLLM_USE_V2_MODEL_RUNNER", "VLLM_V1", "VLLM_WORKER_MULTIPROC_METHOD",
    "VLLM_XLA_USE_SPMD",
})

#: the MODELLED variables a rule reads as the release's getter does wherever the release reads them (from the
#: release given), so the rule's answer to a refused value stands: VLLM_ATTENTION_BACKEND (ModelConfig 0.11.0 - 0.12.0,
#: the parser 0.13.0 - 0.14.1: kvguard.rules.attention_env), the logging pair (kvguard.rules.host_options), VLLM_DP_SIZE
#: / VLLM_DP_RANK (ParallelConfig's fallback without explicit DP, their only reader from 0.12.0), VLLM_USE_V1
#: (0.10.2 - 0.11.0), VLLM_MLA_DISABLE (ModelConfig.use_mla and the MLA config conversion: kvguard.facts.model) and
#: VLLM_USE_V2_MODEL_RUNNER from 0.20.0 (kvguard.rules.table's model runner; before, kvguard does not read it)
READ_BY_RULES = {
    "VLLM_ATTENTION_BACKEND": "0.10.2", "VLLM_CONFIGURE_LOGGING": "0.10.2", "VLLM_LOGGING_LEVEL": "0.10.2",
    "VLLM_DP_RANK": "0.10.2", "VLLM_DP_SIZE": "0.10.2", "VLLM_USE_V1": "0.10.2", "VLLM_MLA_DISABLE": "0.10.2",
    "VLLM_USE_V2_MODEL_RUNNER": "0.20.0",
}


def _read_by_rules(release: Any, name: str, value: str, grpc_port: Any, platform: Any) -> bool:
    if name == "VLLM_CPU_KVCACHE_SPACE":
        # CpuPlatform.check_and_update_config parses it (kvguard.rules.cpu_platform), from 0.20.0 a non-empty value
        # only (the getter reads an empty one when the engine starts); other platforms read it only then
        return platform == "cpu" and (value != "" or not release.within("0.20.0"))
    if name == "VLLM_USE_RUST_FRONTEND":
        # kvguard.rules.serve_args reads it (bool(int(value))) only to check --grpc-port; vLLM's serve reads it always
        return grpc_port is not None
    since = READ_BY_RULES.get(name)
    return since is not None and release.within(since)


#: the classes whose refusals are Python's own parser's, message included
_PARSERS: "dict[str, Any]" = {"int": int, "float": float, "json": json.loads}


def predict(name: str, kind: Any, value: str) -> "list[str] | None":
    """What the getter classified as ``kind`` does with ``value``: ``[TYPE, MESSAGE]`` when it refuses it, else None
    (for a ``refused`` table, None also for a value outside it: not known; ``["", ""]`` for one its ``like`` class
refuses: refused, the exception not measured)."""
    if isinstance(kind, str):
        try:
            _PARSERS[kind](value)
        except ValueError as exc:   # Python's own message, the one vLLM's getter raises
            return [type(exc).__name__, str(exc)]
        return None
    if isinstance(kind, list):      # ["choices", options, case_sensitive]
        options, case_sensitive = kind[1], kind[2]
        allowed = options if case_sensitive else [option.lower() for option in options]
        if (value if case_sensitive else value.lower()) in allowed:
            return None
        return ["ValueError", f"Invalid value '{value}' for {name}. Valid options: {options}."]
    known = kind["refused"].get(value)
    if known is not None or kind.get("like") not in _PARSERS:
        return known
    # the getter refused exactly the probes this parser refuses, in its own exception: refused, the exception unknown
    return None if predict(name, kind["like"], value) is None else ["", ""]


def choices_listed(name: str, outcomes: list, probes: "tuple[str, ...]") -> "list[str] | None":
    """The options a choice-like refusal of the first probe lists, or None (tools/measure_env_parsers.py only)."""
    import ast
    import re

    first = outcomes[0]
    if not first:
        return None
    found = re.fullmatch(rf"Invalid value '{re.escape(probes[0])}' for {re.escape(name)}\. Valid options: (\[.*\])\.",
                         first[1])
    if found is None:
        return None
    try:
        options = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return None
    return options if isinstance(options, list) and all(isinstance(o, str) for o in options) else None


def classify(name: str, seen: list) -> Any:
    """The first classification predicting every ``(value, outcome)`` of ``seen``; None when no value was refused."""
    if not any(outcome for _, outcome in seen):
        return None
    candidates: list = list(_PARSERS)
    options = choices_listed(name, [seen[0][1]], (seen[0][0],))
    if options is not None:
        candidates += [["choices", options, True], ["choices", options, False]]
    for candidate in candidates:
        if all(predict(name, candidate, value) == outcome for value, outcome in seen):
            return candidate
    table: dict = {"refused": {value: outcome for value, outcome in seen if outcome}}
    for like in _PARSERS:
        if all((predict(name, like, value) is None) == (outcome is None) for value, outcome in seen):
            table["like"] = like
            break
    return table


@lru_cache(maxsize=None)
def _parsers() -> dict:
    with open(_DATA, encoding="utf-8") as handle:
        return json.load(handle)["parsers"]


def kind(release: Any, name: str) -> Any:
    """``name``'s getter classification in ``release``, or None (refuses none of the probes, or not defined)."""
    for first, last, found in _parsers().get(name, ()):
        if release.within(first, last):
            return found
    return None


def is_placeholder(value: str) -> bool:
    """Unexpanded shell text or a documentation placeholder (``$PORT``, ``<unique_port>``): a value not written yet."""
    return "$" in value or (value.startswith("<") and value.endswith(">"))


def refusals(release: Any, env: Any, grpc_port: Any = None, platform: Any = None, *,
             exempt: bool = True) -> "list[tuple[str, str, list[str]]]":
    """``(name, value, [TYPE, MESSAGE])`` for each VLLM_* variable of ``env`` no rule reads as the release does
    (see :data:`READ_BY_RULES`; ``grpc_port``: the launch's ``--grpc-port``; ``platform``: the host's, None when
    not known; ``exempt=False``: every variable) whose getter in ``release`` refuses its value, in ``env``'s order.
    Unexpanded shell text and documentation placeholders (``$PORT``, ``<unique_port>``) stand for a value not written
    yet, as for an option's value (kvguard.launch.argv): not read."""
    out = []
    for name, value in env.items():
        if not name.startswith("VLLM_") or (exempt and _read_by_rules(release, name, value, grpc_port, platform)):
            continue
        if is_placeholder(value):
            continue
        found = kind(release, name)
        refused = None if found is None else predict(name, found, value)
        if refused is not None:
            out.append((name, value, refused))
    return out


def refusal_undecidable(release: Any, env: Any, grpc_port: Any = None, platform: Any = None) -> None:
    """Raise Undecidable when a variable no rule reads as ``release`` does has a value its getter refuses."""
    refused = refusals(release, env, grpc_port, platform)
    if not refused:
        return
    from ..errors import Undecidable

    shown = "; ".join(f"{name}={value!r}: {exc}: {message}" if exc else
                      f"{name}={value!r} (the exception for this value not measured)"
                      for name, value, (exc, message) in refused)
    raise Undecidable(f"vLLM {release.version} refuses the value of {shown} (its vllm.envs getter raises) — "
                      "kvguard does not model where vLLM reads it, so whether and at which stage the launch fails "
                      "is not decided")


def accepted_undecidable(release: Any, env: Any, grpc_port: Any = None, platform: Any = None) -> None:
    """Raise Undecidable for a launch the rules accept while a variable they read (:data:`READ_BY_RULES`, the
    exemptions of :func:`refusals`) has a value its getter refuses: the rule did not reach the value (VLLM_MLA_DISABLE
    for a model without MLA, VLLM_DP_SIZE with explicit DP, …), but the release does later — from 0.11.1 the engine
    core reads every variable once it has started (``vllm.envs.enable_envs_cache``), 0.10.2 - 0.11.0 hash some of
    them when compiling the model — a stage kvguard does not model."""
    everything = refusals(release, env, exempt=False)
    if not everything:
        return
    exempted = {name for name, _, _ in refusals(release, env, grpc_port, platform)}
    late = [(name, value, refused) for name, value, refused in everything if name not in exempted]
    if not late:
        return
    from ..errors import Undecidable

    shown = "; ".join(f"{name}={value!r}: {exc}: {message}" if exc else f"{name}={value!r}"
                      for name, value, (exc, message) in late)
    raise Undecidable(f"vLLM {release.version} refuses the value of {shown} (its vllm.envs getter raises) where the "
                      "launch's checks do not read it; the release reads it after them (the engine core's variable "
                      "cache from 0.11.1, the compile hash before), which kvguard does not model")
