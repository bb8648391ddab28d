"""The environment variables that change a modelled verdict, and which of their defaults decided one.

kvguard's checks read some of vLLM's environment variables (``envs.VLLM_*``).  The command line
does not know the real launch's environment: what it does not see is taken as unset, vLLM's
default.  :func:`deciding_defaults` finds, for one checked launch, the variables left unset whose
other values would change the verdict — by checking the launch again with each value — so that the
report can list them as assumptions ("VLLM_MLA_DISABLE unset: with 1, vLLM refuses …").

:data:`VERDICT_ENV` lists every variable a modelled check reads, per release, with the values
that matter.  Variables vLLM's own launchers set for their worker processes (``VLLM_DP_SIZE``,
``VLLM_DP_RANK``, ``RANK``) are left out: operators do not set them for ``vllm serve``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .record import Record
from .versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["EnvAssumption", "VERDICT_ENV", "deciding_defaults", "read_by"]


class EnvVar(Record):
    name: str
    since: str
    until: Optional[str]
    #: the values tried against the default (the ones that change a modelled check)
    values: tuple[str, ...]
    #: what the variable does in the modelled checks
    effect: str
    #: which launches can read it, from (facts, layout, host, the environment vLLM sees); None: every launch of
    #: the releases
    reads: Optional[Callable[[Any, Any, Any, Mapping[str, str]], bool]] = None


def _mla(facts, layout, host, env) -> bool:
    return bool(getattr(facts, "is_deepseek_mla", False))


def _length_given(facts, layout, host, env) -> bool:
    return layout.max_model_len is not None and layout.max_model_len != -1


def _kv_dtype(facts, layout, host, env) -> bool:
    return layout.kv_cache_dtype != "auto"


def _ray_dp(facts, layout, host, env) -> bool:
    return layout.data_parallel_backend == "ray"


def _grpc_port(facts, layout, host, env) -> bool:
    return getattr(layout, "grpc_port", None) is not None


def _logging_file_named(facts, layout, host, env) -> bool:
    return bool(getattr(layout, "log_config_file", None) or getattr(layout, "logging_config_file", None)
                or env.get("VLLM_LOGGING_CONFIG_PATH"))


def _tpu(facts, layout, host, env) -> bool:
    return getattr(host, "platform", None) in ("tpu", None)


def _lora_off_cuda(facts, layout, host, env) -> bool:
    return bool(getattr(layout, "enable_lora", False)) and getattr(host, "platform", None) not in ("cuda", "rocm")


#: every environment variable a modelled check reads (kvguard.rules.table, kvguard.facts,
#: kvguard.length), per release, with the values tried and what they change
VERDICT_ENV: tuple[EnvVar, ...] = (
    EnvVar("VLLM_USE_V1", "0.10.2", "0.11.0", ("1",),
           "set to 1, the V1 engine is forced: a feature its oracle does not support is refused instead of "
           "falling back to V0"),
    EnvVar("VLLM_ATTENTION_BACKEND", "0.10.2", "0.11.0",
           ("XFORMERS", "FLASHINFER", "TRITON_ATTN_VLLM_V1", "DUAL_CHUNK_FLASH_ATTN"),
           "the attention backend: the V1 oracle's backend list, the FP8 KV-cache support, V0's interleaved "
           "attention cap, DualChunkFlashAttention's requirements (0.10.2)"),
    EnvVar("VLLM_FLASH_ATTN_VERSION", "0.10.2", "0.10.2", ("2",),
           "the FlashAttention version: FP8 KV cache needs FA3", _kv_dtype),
    EnvVar("VLLM_MLA_DISABLE", "0.10.2", None, ("1",),
           "turns MLA off: the model's KV heads then count as GQA/MHA heads", _mla),
    EnvVar("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0.10.2", None, ("1",),
           "turns the refusal of a --max-model-len above the derived maximum into a warning", _length_given),
    EnvVar("VLLM_USE_V2_MODEL_RUNNER", "0.20.0", None, ("1", "0"),
           "selects the model runner (V2 / V1), whose unsupported-feature checks differ"),
    EnvVar("VLLM_RAY_DP_PACK_STRATEGY", "0.11.1", None, ("span",),
           "span: Ray data parallelism places one DP rank per node (local DP size 1)", _ray_dp),
    EnvVar("VLLM_XLA_USE_SPMD", "0.10.2", None, ("1",),
           "TPU SPMD: the single-process executor", _tpu),
    EnvVar("VLLM_USE_RUST_FRONTEND", "0.32.0", None, ("1",),
           "the Rust frontend, which --grpc-port needs (validate_grpc_port_arg)", _grpc_port),
    # no value is tried: a path makes the reading check skipped (whether the file exists is the host's), which
    # leaves the verdict as it is (kvguard.rules.host_options.logging_file_unknown)
    # tried where a flag or VLLM_LOGGING_CONFIG_PATH names the logging file (to 0.30.0 only the variable can)
    EnvVar("VLLM_CONFIGURE_LOGGING", "0.10.2", None, ("0",),
           "0: logging configuration off, which refuses a logging config file (FE_logging_disabled)",
           _logging_file_named),
    EnvVar("VLLM_LOGGING_CONFIG_PATH", "0.10.2", None, (),
           "a logging config file vLLM reads at start (refused unless it exists on the host): the check is skipped"),
    # no value is tried: the default level (INFO) is one logging names, and an unknown one is no assumption to make
    EnvVar("VLLM_LOGGING_LEVEL", "0.10.2", None, (),
           "the level vLLM configures its logger with: a name Python's logging does not know is refused "
           "(FE_logging_level)"),
    # no value is tried: any integer gives the KV cache's size, which no check reads
    EnvVar("VLLM_LORA_ENABLE_DUAL_STREAM", "0.20.0", None, ("1",),
           "LoRA's dual CUDA streams: set off CUDA / ROCm with --enable-lora, LoRAConfig refuses it "
           "(LORA_dual_stream_platform)", _lora_off_cuda),
    EnvVar("VLLM_CPU_KVCACHE_SPACE", "0.10.2", None, (),
           "the CPU platform's KV cache size in GiB: a value int() refuses is refused (PLAT_cpu_kvcache_space)"),
)


class EnvAssumption(Record):
    """An unset variable whose default decided the verdict: with ``value`` the verdict is ``other``."""

    name: str
    value: str
    effect: str
    other: Any  # Verdict

    def describe(self) -> str:
        o = self.other
        if o.ok:
            then = "vLLM would accept the launch"
        else:
            then = f"vLLM would refuse it ({o.check}: {o.exc_type})"
        return f"{self.name} unset (vLLM's default); with {self.name}={self.value} {then}"

    def to_dict(self) -> dict:
        o = self.other
        return {"name": self.name, "assumed": None, "value": self.value, "effect": self.effect,
                "verdict": {"ok": o.ok, "check": o.check, "exc_type": o.exc_type, "message": o.message,
                            "wrapped_by": o.wrapped_by}}


def read_by(release: Release, facts: Any, layout: Any, host: Any, env: Mapping[str, str]) -> list[EnvVar]:
    """The variables of :data:`VERDICT_ENV` the release's modelled checks read for this launch (``env``: the
    variables vLLM sees)."""
    return [v for v in VERDICT_ENV if release.within(v.since, v.until)
            and (v.reads is None or v.reads(facts, layout, host, env))]


def _outcome(verdict) -> tuple:
    return (verdict.ok, verdict.check, verdict.exc_type, verdict.message)


def deciding_defaults(verdict, release: Release, env: Mapping[str, str], host: Any,
                      recheck: Callable[[dict], Any]) -> list[EnvAssumption]:
    """The unset variables whose default decided ``verdict``: each value of :data:`VERDICT_ENV`
    that changes the outcome when ``recheck(env with it)`` checks the launch again.  A recheck
    kvguard cannot decide (or that breaks) is not an assumption."""
    from .errors import KvguardError

    if verdict.layout is None:
        return []
    out = []
    base = _outcome(verdict)
    for var in read_by(release, verdict.facts, verdict.layout, host, env):
        if var.name in env:
            continue
        for value in var.values:
            try:
                other = recheck(dict(env, **{var.name: value}))
            except KvguardError:
                continue
            if _outcome(other) != base:
                out.append(EnvAssumption(var.name, value, var.effect, other))
                break
    return out
