"""The ordered launch checks of ``vllm serve``, 0.10.2 – 0.33.0 (data).

Row ids name where the check lives upstream (docs/rules.md lists them, generated from this table):
``EA_`` EngineArgs.create_engine_config (vllm/engine/arg_utils.py), ``FIELD``
ParallelConfig's pydantic field constraints, ``PC_`` ParallelConfig.__post_init__,
``PV_`` ParallelConfig._validate_parallel_config, ``PA_`` ParallelConfig._verify_args
(vllm/config/parallel.py), ``MC_`` ModelConfig.verify_with_parallel_config
(vllm/config/model.py), ``CC_`` CacheConfig.verify_with_parallel_config, ``VC_``
VllmConfig.__post_init__ (vllm/config/vllm.py), ``PLAT_`` the platform's
check_and_update_config.  Lower-case ids are derivation steps.

The evaluation state ``state`` (kvguard.rules.engine.State) exposes the launch fields
under short names (``tp pp dp dpl dp_rank start_rank pcp dcp ep nnodes node_rank
backend dp_backend dp_address external_lb hybrid_lb headless …``), the model facts
(``heads kv_heads use_mla is_moe supports_pp num_experts``), ``state.env`` (the
environment vLLM sees) and ``state.need(name)`` for host facts (raises "skipped" when
unknown).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from .. import attention as _attn
from ..facts.model import SLIDING_WINDOW_READ, SLIDING_WINDOW_UNSET
from ..length import NIE_MML as _LEN_NIE_MML  # kvguard.length: ModelConfig's maximum length
from ..length import NIE_ROPE as _LEN_NIE_ROPE
from ..length import POSITIVE_TEMPLATE as _LEN_POSITIVE
from ..length import TOO_LONG_TEMPLATE as _LEN_TOO_LONG
from ..length import NotModelled as _LenNotModelled
from ..length import allow_long as _allow_long
from ..length import derive as _len_derive
from ..length import outcome as _len_result
from ..memo import PerFacts
from ..speculative import flow as _sc
from ..versions import Release
from . import Check, FieldRule, Row, Step
from . import attention_env as _attention_env
from . import backend_names as _backend_names
from . import cache_config as _cache_config
from . import cpu_amx as _amx
from . import cpu_platform as _cpu
from . import engine_options as _eopts
from . import environ as _environ
from . import host_options as _host
from . import kv_transfer as _kv_transfer
from . import late_bounds as _late_bounds
from . import late_options as _late
from . import lora_config as _lora
from . import mamba_block_size as _mbs
from . import mamba_cache as _mamba
from . import mamba_rounding as _mamba_rounding
from . import mamba_state as _mamba_state
from . import observability as _obs
from . import parallel_flags as _pflags
from . import parsers as _parsers
from . import scheduler as _scheduler
from . import serve_args as _serve_args
from . import v1_features as _v1
from .v1_features import env_flag_set as _env_flag_set
from .v1_features import pp_without_supported_executor as _pp_backend

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any

# ---------------------------------------------------------------------------
# shared conditions and steps


def _feature_refused(feature: str) -> str:
    """The V1 engine's refusal of a feature (0.11.1+), in its own words (kvguard.rules.v1_features)."""
    return _v1.UNSUPPORTED_MESSAGE.replace("{feature}", feature)


def _oracle_check(check_id: str, key: str, *, description: str, bind=None) -> Check:
    """0.10.2 / 0.11.0's V1 oracle with VLLM_USE_V1=1 set: the first feature of its list the launch has raises
    (kvguard.rules.v1_features; the releases and the feature's name are the list's)."""
    entry = next(e for e in _v1.ORACLE_FEATURES if e.key == key)
    return Check(check_id, entry.since, entry.until, stage="engine_args", exc="NotImplementedError", scope="env",
                 when=lambda state: _v1.oracle_refuses(state, key), bind=bind,
                 template=_v1.ORACLE_MESSAGE.replace("{feature}", entry.feature),
                 source=f"{_S_ARGS}::EngineArgs._is_v1_supported_oracle", description=description)

def _ea_world(state) -> None:
    """create_engine_config: world sizes used by the --nnodes checks (0.11.1+)."""
    if state.nnodes > 1:
        within = state.pp * state.tp * (state.pcp if state.since["0.30.0"] else 1)
        state.ea_world_size = state.dp * within
        state.ea_world_within_dp = within


def _ea_infer_rank(state) -> None:
    """create_engine_config: infer the DP rank / local DP size from --node-rank (0.11.1+)."""
    state.inferred_rank = 0
    if state.nnodes > 1:
        local = state.ea_world_size // state.nnodes
        state.inferred_rank = (state.node_rank * local) // state.ea_world_within_dp
        if state.dp > 1 and state.external_lb_flag:
            if not state.since["0.31.0"] or state.dp_rank is None:
                state.dp_rank = state.inferred_rank
        elif state.dpl is None:
            state.dpl = max(local // state.ea_world_within_dp, 1)


def _ea_external_lb(state) -> None:
    if state.since["0.11.1"]:
        state.external_lb = state.external_lb_flag or state.dp_rank is not None
    else:
        state.external_lb = state.dp_rank is not None


def _ea_dp_local(state) -> None:
    """create_engine_config: the data_parallel_size_local / rank / LB mode ParallelConfig receives."""
    since = state.since
    if state.external_lb:
        state.pc_dpl = 1
        state.hybrid_lb = False
    elif state.dpl is not None:
        state.pc_dpl = state.dpl
        start_set = (state.start_rank is not None) if since["0.28.0"] else bool(state.start_rank)
        if since["0.11.1"] and start_set and not state.headless:
            state.hybrid_lb = True
        if state.hybrid_lb and state.pc_dpl == 1:
            state.external_lb = True
            state.hybrid_lb = False
        if state.pc_dpl == state.dp:
            state.hybrid_lb = False
        if since["0.28.0"]:
            state.dp_rank = state.start_rank if state.start_rank is not None else state.inferred_rank
        elif since["0.11.1"]:
            state.dp_rank = state.start_rank or state.inferred_rank
        else:
            state.dp_rank = state.start_rank or 0
    else:
        span = (since["0.11.1"] and state.dp_backend == "ray"
                and state.env.get("VLLM_RAY_DP_PACK_STRATEGY", "strict") == "span")
        state.pc_dpl = 1 if span else state.dp


def _to_parallel_config(state) -> None:
    """The values ``ParallelConfig(...)`` is constructed with."""
    state.dpl = state.pc_dpl
    state.dp_rank = state.dp_rank or 0


def _pc_world(state) -> None:
    state.world_size = state.pp * state.tp * (state.pcp if state.since["0.12.0"] else 1)
    if state.backend == "external_launcher":
        state.world_size *= state.dp


def _pc_dp_branch(state) -> None:
    """__post_init__: explicit DP (rank from RANK for external_launcher) or the env fallback."""
    state.dp_branch = state.dp > 1 or state.dpl == 0
    if state.dp_branch and state.backend == "external_launcher" and state.since["0.11.0"]:
        state.dp_rank = int(state.env["RANK"]) // (state.world_size // state.dp)


def _pc_env_dp(state) -> None:
    if not state.dp_branch:
        state.dp = int(state.env.get("VLLM_DP_SIZE", "1"))
        state.dp_rank = int(state.env.get("VLLM_DP_RANK", "0"))


def _gpu_shortfall(state) -> bool:
    across = state.world_size * state.dp if state.since["0.17.0"] else state.world_size
    if not (state.backend is None and across > 1):
        return False
    platform = state.need("platform")
    if platform == "tpu" and _env_flag_set(state, "VLLM_XLA_USE_SPMD"):
        return False
    if state.since["0.11.1"] and platform == "cuda" and state.nnodes > 1:
        return False
    if platform != "cuda":
        return False
    if state.need("gpus_per_node") >= state.world_size:
        return False
    if not state.since["0.11.1"]:
        return not state.need("ray")
    return True


def _pc_backend(state) -> None:
    """__post_init__: distributed executor backend auto-selection."""
    across = state.world_size * state.dp if state.since["0.17.0"] else state.world_size
    if state.backend is None and across > 1:
        platform = state.host.platform
        backend = "mp"
        if platform == "tpu" and _env_flag_set(state, "VLLM_XLA_USE_SPMD"):
            backend = "uni"
        elif state.since["0.11.1"] and platform == "cuda" and state.nnodes > 1:
            backend = "mp"
        elif state.dp_backend == "ray":
            backend = "ray"
        elif state.host.ray and state.host.in_ray_placement_group:
            backend = "ray"
        elif not state.since["0.11.1"] and state.host.ray and platform == "cuda" \
                and (state.host.gpus_per_node or 0) < state.world_size:
            backend = "ray"
        state.backend = backend
    if state.backend is None and state.world_size == 1:
        state.backend = "uni"


def _spec_dict_method(state):
    """``self.speculative_config.get("method")`` of EngineArgs (the dict as given, before any merging)."""
    spec = state.spec
    if spec is None or not isinstance(spec.config, dict):
        return None
    return spec.config.get("method")


def _dcp_guard(state) -> bool:
    return state.dcp > 1 and not state.use_mla


def _max_tp_dcp(state) -> int:
    return state.tp // state.kv_heads


def _pr_max_dcp(state) -> int:
    """PR 55030: ceiling ``max(1, tp // H) * pcp`` (computed before the first check)."""
    return max(1, state.tp // state.kv_heads) * state.pcp


def _v2_env(state):
    """``envs.VLLM_USE_V2_MODEL_RUNNER``.

    0.20.0–0.21.0: ``bool(int(os.getenv(..., "0")))``; 0.22.0+:
    ``maybe_convert_bool`` — None when unset, else ``bool(int(value))``.
    """
    value = state.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if not state.since["0.22.0"]:
        return bool(int("0" if value is None else value))
    return None if value is None else bool(int(value))


# ---------------------------------------------------------------------------
# speculative decoding (kvguard.speculative.flow builds state.sc; None without --speculative-config)


def _spec_method(state):
    return state.sc.method


def _spec_method_label(state) -> str:
    return f"speculative method '{state.sc.method}'"


def _spec_in(state, names) -> bool:
    return state.sc is not None and state.sc.method in names


def _spec_not_in(state, names) -> bool:
    return state.sc is not None and state.sc.method not in names


def _parallel_drafting(state, exempt=()) -> bool:
    return state.sc is not None and state.sc.parallel_drafting and state.sc.method not in exempt


#: the speculative entries of ``_validate_v2_model_runner`` (0.20.0-0.21.0) and
#: ``_get_v2_model_runner_unsupported_features`` (0.22.0+), in upstream order
SPEC_MRV2_UNSUPPORTED = (
    (_spec_method_label, "0.20.0", "0.21.0", lambda state: _spec_not_in(state, ("eagle", "eagle3", "mtp"))),
    ("ngram/ngram_gpu speculative decoding", "0.22.0", "0.29.0", lambda state: _spec_in(state, ("ngram", "ngram_gpu"))),
    (_spec_method_label, "0.22.0", "0.23.0",
     lambda state: _spec_not_in(state, ("ngram", "ngram_gpu", "eagle", "eagle3", "mtp"))),
    (_spec_method_label, "0.24.0", "0.24.0",
     lambda state: _spec_not_in(state, ("ngram", "ngram_gpu", "eagle", "eagle3", "mtp", "dflash"))),
    (_spec_method_label, "0.25.0", "0.28.0",
     lambda state: _spec_not_in(state, ("ngram", "ngram_gpu", "eagle", "eagle3", "mtp", "dflash", "dspark"))),
    (_spec_method_label, "0.29.0", "0.29.0",
     lambda state: _spec_not_in(state, ("ngram", "ngram_gpu", "eagle", "eagle3", "mtp", "dflash", "dspark",
                                "extract_hidden_states"))),
    (_spec_method_label, "0.30.0", "0.30.0",
     lambda state: _spec_in(state, ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator",
                            "custom_class"))),
    (_spec_method_label, "0.31.0", "0.31.0",
     lambda state: _spec_in(state, ("ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"))),
    (_spec_method_label, "0.32.0", "0.32.0", lambda state: _spec_in(state, ("suffix", "medusa", "mlp_speculator", "custom_class"))),
    (_spec_method_label, "0.33.0", None, lambda state: _spec_in(state, ("suffix", "custom_class"))),
    ("parallel drafting for speculative decoding", "0.22.0", "0.23.0", lambda state: _parallel_drafting(state)),
    ("parallel drafting for EAGLE speculative decoding", "0.24.0", "0.24.0",
     lambda state: _parallel_drafting(state, ("dflash",))),
    ("parallel drafting for EAGLE speculative decoding", "0.25.0", None,
     lambda state: _parallel_drafting(state, ("dflash", "dspark"))),
    ("EAGLE3 with pipeline parallelism", "0.22.0", "0.29.0", lambda state: _spec_in(state, ("eagle3",)) and state.pp > 1),
)


#: ``_get_v2_model_runner_unsupported_features`` (``_validate_v2_model_runner`` before
#: 0.22.0), the launch options kvguard models, in upstream order.
MRV2_UNSUPPORTED = (
    ("hybrid/mamba models", "0.20.0", "0.22.1", lambda state: state.has_inner_state),
    ("prefill context parallelism", "0.20.0", "0.25.1", lambda state: state.pcp > 1),
    ("prefill context parallelism", "0.26.0", "0.28.0", lambda state: state.pcp > 1 and not state.use_mla),
    ("pipeline parallelism with external_launcher", "0.24.0", None,
     lambda state: state.backend == "external_launcher" and state.pp > 1),
    *SPEC_MRV2_UNSUPPORTED,
    ("elastic expert parallelism", "0.24.0", "0.31.0", lambda state: state.elastic_ep),
    ("routed experts capture", "0.20.0", "0.27.1", lambda state: state.routed_experts),
)

#: the architectures ``_get_v1_model_runner_unsupported_features`` names "Step5" for (0.33.0)
STEP5_ARCHITECTURES = ("Step5ForCausalLM", "Step5ForConditionalGeneration")


def _registered_architecture(state):
    """``ModelConfig.architecture``: the first of the config's architectures the release registers."""
    from ..archs import registered_arch
    return registered_arch(state.facts.architectures, state.release)


#: ``_get_v1_model_runner_unsupported_features`` (0.29.0+), modelled options, in order.
MRV1_UNSUPPORTED = (
    ("prefill context parallel", "0.29.0", None, lambda state: state.pcp > 1),
    ("pipeline parallelism with async scheduling", "0.31.0", None,
     lambda state: state.pp > 1 and state.async_scheduling is True),
    ("dspark speculative decoding", "0.29.0", None, lambda state: state.sc is not None and state.sc.method == "dspark"),
    ("batch-sharded sampling", "0.29.0", None, lambda state: state.layout.enable_batch_sharded_sampling),
    # Step5's model exists for the V2 runner only (its architecture is ModelConfig.architecture, the registered one)
    ("Step5", "0.33.0", None, lambda state: _registered_architecture(state) in STEP5_ARCHITECTURES),
)


def _dspark_dcp_unmodelled(state) -> bool:
    """0.29.0+: DSpark with -dcp on an MLA model meets the MLA metadata builder's DSpark-DCP check, which
    depends on the backend and the draft's query mode; kvguard lists it as skipped."""
    from kvguard.rules.engine import SkipCheck

    if state.sc is not None and state.sc.method == "dspark" and state.dcp > 1 and state.use_mla:
        raise SkipCheck("whether the MLA backend supports DSpark with decode context parallelism")
    return False


def _unsupported(state, table) -> list:
    return [label(state) if callable(label) else label
            for label, when in _rows_of_release(state.release, table) if when(state)]


#: (table, release) -> the table's (label, when) rows the release has
_TABLE_ROWS: dict = {}


def _rows_of_release(release, table) -> tuple:
    key = (id(table), release.version)
    rows = _TABLE_ROWS.get(key)
    if rows is None:
        rows = _TABLE_ROWS[key] = tuple((label, when) for label, since, until, when in table
                                        if release.within(since, until))
    return rows


def _runner(state):
    """Which model runner ``VllmConfig`` validates: "v2", "v1" or None (no validation can refuse).

    ``VllmConfig.use_v2_model_runner`` (vllm/config/vllm.py): the env var decides
    when set; 0.27.0–0.28.0 force V2 for PCP, 0.25.0–0.28.0 for DSpark (from 0.29.0 DSpark is on V1's
    unsupported list instead); from 0.29.0 the default is V2
    when Triton imports and no V2-unsupported feature is used (else V1, which
    validates its own list).  Before 0.29.0 the default selection falls back
    silently, so only the env var or PCP lead to a refusal.  Needs the host's
    Triton for the default selection.
    """
    env = _v2_env(state)
    since = state.since
    if not since["0.22.0"]:
        return "v2" if env else None
    if since["0.30.0"] and (state.layout.hisparse or state.layout.watermark_config):
        # HiSparse (undecidable: vc_hisparse) and a watermark config force V2 before the variable is read
        return "v2"
    if env is not None:
        return "v2" if env else ("v1" if since["0.29.0"] else "v1-unchecked")
    if since["0.27.0", "0.28.0"] and state.pcp > 1:
        return "v2"
    if since["0.25.0", "0.28.0"] and state.sc is not None and state.sc.method == "dspark":
        return "v2"  # DSpark runs only in the V2 model runner: forced, then validated
    if not since["0.29.0"]:
        return None
    if since["0.29.0", "0.32.0"] and state.need("platform") == "rocm":
        state.need("rocm_default_v1_architectures")  # not modelled: ROCm picks V1 for some architectures
    if not state.need("triton"):
        return "v1"
    if _unsupported(state, MRV2_UNSUPPORTED):
        return "v1"
    return "v2"


# ---------------------------------------------------------------------------
# ModelConfig: maximum length (kvguard.length) and the V1 engine oracle's host checks (issue 12)


def _len_outcome(state):
    """kvguard.length's outcome for this launch: the derivation kept on the facts per release and switches,
    the outcome per given length (a check reads it on every evaluation)."""
    facts = state._facts
    env = state.env
    # what the derivation reads of the environment (0.10.2/0.11.0's V0 interleaved switch)
    env_key = (env.get("VLLM_USE_V1"), env.get("VLLM_ATTENTION_BACKEND")) if env else None
    # ids, not values, key the memo (hashing a Version per check costs); the entry keeps the release and the
    # sidecar alive, so their ids stay their own
    key = (id(state.release), state.disable_sliding_window is True, env_key, id(state.sidecar), state.max_model_len,
           _allow_long(env) if state.max_model_len is not None else None)
    memo = facts.__dict__.get("_kvg_len")
    if memo is None:
        memo = facts.__dict__.setdefault("_kvg_len", {})
    hit = memo.get(key)
    if hit is not None:
        return hit[0]
    try:
        derived = _len_derive(facts, state.release, disable_sliding_window=state.disable_sliding_window, env=env,
                              sidecar=state.sidecar)
    except _LenNotModelled as exc:
        result = str(exc)
    else:
        result = _len_result(derived, state.max_model_len, state.release, env)
    if len(memo) < 256:
        memo[key] = (result, state.release, state.sidecar)
    return result


#: ModelConfig's ``_FLOAT16_NOT_SUPPORTED_MODELS``: the model types (the checkpoint's ``model_type``) that refuse
#: an explicit float16 ``--dtype`` (the rows below key the list by release: plamo2 is in it up to 0.26.0)
_FLOAT16_REFUSED = ("gemma2", "gemma3", "gemma3_text", "glm4")
_FLOAT16_TEMPLATE = ("The model type {model_type!r} does not support float16. Reason: Numerical instability. Please "
                     "use bfloat16 or float32 instead.")


def _float16_refused(model_types: tuple[str, ...]) -> Callable[[Any], bool]:
    """``--dtype half`` / ``float16`` for one of ``model_types`` ("auto" never picks float16 for them)."""
    return lambda state: state.layout.dtype in ("half", "float16") and state.facts.model_type in model_types


def _mc_max_len(state) -> None:
    """ModelConfig.__post_init__ → get_and_verify_max_len: the length ModelConfig ends with."""
    # get_sliding_window() just before it: a heterogeneous config that varies the window per layer raises
    state._fact(SLIDING_WINDOW_READ, None)
    if state.since["0.19.0"] and state._facts.resolved.get("sliding_window") == 0:
        # a window of 0 means none: ModelConfig assigns None to the text config before the length
        state._fact(SLIDING_WINDOW_UNSET, None)
    out = _len_outcome(state)
    if type(out) is str:
        state.len_fired = state.len_final = state.len_unread = None
        state.len_unknown = out
        return
    state.len_unknown = None
    state.len_derived = derived = out.derived
    state.len_unread = derived.unread
    state.len_fired, state.len_final = out.fired, out.final
    if out.fired == "error":
        exc = out.error
        if type(exc) is NotImplementedError and str(exc) == _LEN_NIE_ROPE:
            state.len_fired = "disable_sw_rope"
            return
        raise type(exc)(*exc.args)


def _len_refuses(state, kind: str) -> bool:
    """The length check ``kind`` refuses; a user length kvguard cannot compare is 'skipped'."""
    if state.max_model_len is not None and state.max_model_len != -1:
        if state.len_unknown is not None:
            state.skip(f"the maximum length: {state.len_unknown} (not modelled)")
        if state.len_unread is not None:
            state.skip(f"the maximum length also reads {state.len_unread}; kvguard read only config.json "
                   "(pass the model directory)")
    return state.len_fired == kind


def _len_bind(state) -> dict:
    d = state.len_derived
    return {"len_key": d.key, "len_derived": d.value, "len_model_max_length": d.model_max_length}


def _mc_len_undecided(state) -> None:
    """A length below 1 passes ModelConfig before 0.23.0: what fails next is not ModelConfig's."""
    final = state.len_final
    if final is not None and final < 1:
        state.undecided(f"vLLM {state.release.version} takes max_model_len {final} as it is (ModelConfig refuses lengths below "
                    "1 from 0.23.0): what its scheduler and KV cache do with it depends on host defaults kvguard "
                    "does not model")


#: VllmConfig._resolve_mm_encoder_only (0.29.0+): an encoder-cache producer-only instance without MultiModalConfig
EC_PRODUCER_TEXT_MODEL = "An EC producer-only instance requires a multimodal model."


def _ec_producer_text_model(state) -> bool:
    """--ec-transfer-config as an encoder-cache producer only (ECTransferConfig.is_encode_only) for a model whose class
    takes no multimodal input (ModelConfig builds MultiModalConfig only for the registry's supports_multimodal)."""
    if not state.layout.ec_producer_only:
        return False
    return _late.text_only_model(state, "an EC producer-only instance is refused")


def _mc_multimodal_values(state) -> None:
    """A multimodal option's value outside its MultiModalConfig field's bounds: ModelConfig builds that config only
    for a model whose class supports multimodal input (0.11.0-0.33.0), and pydantic's refusal names the host's
    pydantic version; for any other model the value is never validated."""
    problem = state.layout.multimodal_value_problem
    if problem is None:
        return
    from ..archs import arch_flag

    multimodal = arch_flag(state.facts.architectures, "supports_multimodal", state.release)
    if multimodal is False:
        return
    state.undecided(problem if multimodal else f"{problem} (when the model supports multimodal input: vLLM "
                                               f"{state.release.version} does not register its architecture)")


#: MultiModalConfig's field default (0.11.0-0.33.0)
_MM_SHM_DEFAULT_MB = 128


def _mm_shm_size_without_shm(state) -> bool:
    """MultiModalConfig's model validator (0.11.1+): a shared-memory object size other than the default needs the
    shm processor cache (--mm-processor-cache-type shm); the config exists only for a multimodal model."""
    lay = state.layout
    given = lay.mm_shm_cache_max_object_size_mb
    if given is None or lay.mm_processor_cache_type == "shm":
        return False
    from ..archs import arch_flag

    multimodal = arch_flag(state.facts.architectures, "supports_multimodal", state.release)
    if multimodal is False:
        return False
    try:
        size = int(given)
    except ValueError:
        state.undecided(f"--mm-shm-cache-max-object-size-mb {given!r} is not a number kvguard can read")
        return False
    if size == _MM_SHM_DEFAULT_MB:
        return False
    if multimodal is None:
        state.undecided(f"vLLM {state.release.version} does not register the model's architecture: whether it builds "
                        "MultiModalConfig (which refuses --mm-shm-cache-max-object-size-mb without "
                        "--mm-processor-cache-type shm) is not known")
    return True


#: the CPU platform's refusal of a quantized KV cache (kvguard.rules.cpu_platform), one text in every release
_CPU_QUANTIZED_KV = "Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache."

GIB = 1 << 30


def _swap_usage(state):
    """CacheConfig: swap space bytes x tp (``math.ceil`` of the bytes from 0.14.0)."""
    per_gpu = state.swap_space * GIB
    if state.since["0.14.0"]:
        per_gpu = math.ceil(per_gpu)
    return per_gpu * state.tp


def _format_gib(b) -> str:
    """vllm.utils.mem_utils.format_gib."""
    return f"{round(b / GIB, 2)}"


#: str() of the ImportError vLLM keeps when ``import ray`` fails on a host without Ray
_RAY_IMPORT_ERR = "No module named 'ray'"

# ---------------------------------------------------------------------------
# ModelConfig._verify_quantization (kvguard.quant.verify): the checkpoint's method against --quantization

_QUANT_MISMATCH = ("Quantization method specified in the model config ({checkpoint}) does not match the quantization "
                   "method specified in the `quantization` argument ({user}).")
_QUANT_UNKNOWN = "Unknown quantization method: {method}. Must be one of {known}."
_QUANT_ACT_DTYPE = "torch.{dtype} is not supported for quantization method {method}. Supported dtypes: {supported}"
#: vLLM passes the format string and the method to ValueError as two arguments: str() is the tuple's repr
_QUANT_DEPRECATED = ("('The quantization method %s is deprecated and will be removed in future versions of vLLM. To "
                     "bypass, set `--allow-deprecated-quantization`.', {method!r})")


#: answers that read only the model's facts, the release and launch flags: the layouts of one model share them
_PER_MODEL = PerFacts(limit=1024)


def _per_model(state, what: str, compute: Callable[[], Any], *flags: Any) -> Any:
    """``compute()``, once per (facts object, release, ``what``, ``flags``)."""
    # the release's key names its version and patches (a str: its hash is kept, a ReleaseNumber's is a call)
    return _PER_MODEL.get(state.facts, (what, state.per_release.key, *flags), compute)


def _qv(state):
    """The outcome of ``_verify_quantization`` (kvguard.quant.verify), computed once per model and flags."""
    out = getattr(state, "_qv_out", None)
    if out is None:
        layout = state.layout
        allow = bool(layout.allow_deprecated_quantization)
        out = state._qv_out = _per_model(
            state, "verify_quantization", lambda: _verify_quantization(state.facts, state.release, layout.quantization,
                                                                       allow),
            layout.quantization, allow)
    return out


def _verify_quantization(facts, release, quantization, allow_deprecated: bool):
    from kvguard.quant.verify import verify  # on a miss only: an import costs ~10k instructions a call

    return verify(facts.resolved_top, facts.resolved, release, quantization, allow_deprecated)


def _qv_fires(state, check: str) -> bool:
    """Whether ``check`` is _verify_quantization's refusal; skipped when kvguard cannot decide it (an override
    it leaves open) or when the answer read the platform and the platform is not CUDA."""
    out = _qv(state)
    if out.unmodelled:
        state.unmodelled(out.unmodelled)
    if out.check is None:
        return False
    if out.reads_platform and state.need("platform") != "cuda":
        # the CPU / XPU platforms have AWQ / GPTQ overrides and lists of supported methods of their own
        state.unmodelled("ModelConfig's quantization checks of AWQ / GPTQ checkpoints and its deprecated methods "
                         "are modelled for CUDA")
    return out.check == check


def _qv_values(state) -> dict:
    return dict(_qv(state).values)


_MODELOPT_ALGO = "Unknown ModelOpt quant algo: {algo}"
_S_ARCH_CONVERTOR = "vllm/transformers_utils/model_arch_config_convertor.py"


def _modelopt_algo_early(state) -> bool:
    """0.14.0+: the ModelOpt normalization runs when ModelConfig builds its model_arch_config, before the dtype
    and the maximum length (kvguard.quant.modelopt); only its own reading can skip this check."""
    algo, why = _per_model(state, "modelopt_algo", lambda: _modelopt_algo(state.facts, state.release))
    if why is not None:
        state.unmodelled(why)
    state._modelopt_algo = algo
    return algo is not None


def _modelopt_algo(facts, release):
    from kvguard.quant.verify import modelopt_algo_refusal  # on a miss only: an import costs ~10k instructions a call

    return modelopt_algo_refusal(facts.resolved_top, facts.resolved, release)


def _act_dtype(state):
    """VllmConfig._get_quantization_config's activation-dtype refusal (kvguard.quant.verify), once per model and
    flags (it reads the facts, the release, --quantization, --dtype and _qv's outcome)."""
    out = getattr(state, "_qd_out", None)
    if out is None:
        layout = state.layout
        out = state._qd_out = _per_model(state, "act_dtype", lambda: _act_dtype_refusal(state), layout.quantization,
                                         layout.dtype, bool(layout.allow_deprecated_quantization))
    return out


def _act_dtype_refusal(state):
    from kvguard.quant.verify import act_dtype_refusal

    facts = state.facts
    return act_dtype_refusal(facts.resolved_top, facts.resolved, state.release, state.layout.quantization,
                             state.layout.dtype, _qv(state), (facts.weights_dtype, facts.weights_dtype_unknown))


def _modelopt_config_refusal(state):
    from kvguard.quant.verify import modelopt_config_refusal

    return modelopt_config_refusal(state.facts.resolved_top, state.facts.resolved, state.release,
                                   state.layout.quantization, _qv(state))


def _modelopt_config_refused(state) -> bool:
    """The ModelOpt FP8 / NVFP4 config's refusal of the checkpoint's algorithm (kvguard.quant.verify), once per
    model and flags (it reads the facts, the release, --quantization and _qv's outcome)."""
    out = getattr(state, "_mo_out", None)
    if out is None:
        layout = state.layout
        out = state._mo_out = _per_model(state, "modelopt_config", lambda: _modelopt_config_refusal(state),
                                         layout.quantization, bool(layout.allow_deprecated_quantization))
    values, why = out
    if why is not None:
        state.unmodelled(why)
    if values is not None and state.need("platform") != "cuda":
        state.unmodelled("VllmConfig's quantization checks of ModelOpt checkpoints are modelled for CUDA")
    return values is not None


def _modelopt_fields(state) -> "dict | None":
    """The _from_config refusals of the ModelOpt configs (kvguard.quant.verify.modelopt_fields_refusal), once."""
    if not hasattr(state, "_mf_out"):
        from kvguard.quant.verify import modelopt_fields_refusal

        state._mf_out = modelopt_fields_refusal(state.facts.resolved_top, state.facts.resolved, state.release,
                                                state.layout.quantization, _qv(state))
    return state._mf_out


def _modelopt_init(state) -> "tuple[str, dict] | None":
    """The ModelOpt configs' __init__ refusal of another class's algorithm (kvguard.quant.verify), once."""
    if not hasattr(state, "_mi_out"):
        from kvguard.quant.verify import modelopt_init_refusal

        state._mi_out = modelopt_init_refusal(state.facts.resolved_top, state.facts.resolved, state.release,
                                              state.layout.quantization, _qv(state))
    return state._mi_out


def _modelopt_init_refused(state, check_id: str) -> bool:
    found = _modelopt_init(state)
    return _modelopt_refusal_on_cuda(state, found is not None and found[0] == check_id)


def _modelopt_refusal_on_cuda(state, fired: bool) -> bool:
    if fired and state.need("platform") != "cuda":
        state.unmodelled("VllmConfig's quantization checks of ModelOpt checkpoints are modelled for CUDA")
    return fired


def _modelopt_no_algo(state) -> bool:
    from kvguard.quant.verify import modelopt_no_algo_refusal

    return _modelopt_refusal_on_cuda(state, modelopt_no_algo_refusal(
        state.facts.resolved_top, state.facts.resolved, state.release, state.layout.quantization, _qv(state)))


def _ct_package_refuses(state, read, refusal) -> None:
    """CompressedTensorsConfig.from_config (VllmConfig._get_quantization_config): the compressed-tensors package the
    release pins validates the checkpoint's QuantizationArgs; a refusal there is a pydantic ValidationError whose
    message names the host's pydantic version, so the launch is undecidable.  ``read``: the QuantizationArgs the
    package refuses (kvguard.quant.compressed_tensors); ``refusal``: what it refuses, given their names.  Called for
    a compressed-tensors checkpoint only."""
    top, text = state.facts.resolved_top, state.facts.resolved
    quant_cfg = top.get("quantization_config") or text.get("quantization_config")
    found = read(quant_cfg, state.release) if isinstance(quant_cfg, Mapping) else ()
    if found:
        state.undecided(f"vLLM {state.release.version} refuses this compressed-tensors checkpoint: its pinned "
                        f"compressed-tensors package {refusal(' / '.join(found))} (a pydantic ValidationError while "
                        f"VllmConfig builds the quantization config, whose message names the host's pydantic version: "
                        f"not modelled)")


def _ct_forbidden_args(state) -> None:
    """0.10.2 - 0.13.x: the pinned package forbids QuantizationArgs fields it does not know."""
    if _qv(state).quantization != "compressed-tensors":
        return   # before the import: a check of another method does not import kvguard.quant.compressed_tensors
    from kvguard.quant.compressed_tensors import forbidden_args

    _ct_package_refuses(state, forbidden_args, lambda names: f"forbids the QuantizationArgs field(s) {names}")


def _ct_static_token(state) -> None:
    """0.14.0+: the pinned package refuses static per-token quantization."""
    if _qv(state).quantization != "compressed-tensors":
        return
    from kvguard.quant.compressed_tensors import static_token_args

    _ct_package_refuses(state, static_token_args, lambda names: f"refuses static per-token quantization ({names}: "
                        f"'Cannot perform static token quantization, please use `dynamic=True`')")


def _capability_refused(state) -> bool:
    """VllmConfig's minimum-capability refusal of the ModelOpt config it built (kvguard.quant.verify), once."""
    out = getattr(state, "_qc_out", None)
    if out is None:
        from kvguard.quant.modelopt import ACT_DTYPES
        from kvguard.quant.verify import capability_refusal

        if _qv(state).quantization not in ACT_DTYPES:
            return False  # not a ModelOpt method (the others' minimum is at most 80: VC_quant_act_dtype)
        if state.need("platform") != "cuda":
            state.unmodelled("VllmConfig's capability check of ModelOpt methods is modelled for CUDA")
        out = state._qc_out = capability_refusal(state.facts.resolved_top, state.facts.resolved, state.release,
                                                 state.layout.quantization, _qv(state), state.need("gpu_capability"))
    values, why = out
    if why is not None:
        state.unmodelled(why)
    return values is not None


def _act_dtype_refused(state) -> bool:
    from kvguard.quant.verify import AUTO_PASSES

    values, why = _act_dtype(state)
    if why == AUTO_PASSES:
        values = why = None
        host_read = True
    else:
        host_read = values is not None
    if why is not None:
        state.unmodelled(why)
    if host_read and (state.need("platform") != "cuda" or state.need("gpu_capability") < 80):
        state.unmodelled("VllmConfig's quantization checks are modelled for CUDA, compute capability 80 or more")
    if values is not None:
        from kvguard.quant.verify import min_capability

        floor = min_capability(values["method"], state.release)
        if state.need("gpu_capability") < floor:
            # the method's minimum capability is checked first (ModelOpt FP8: 89 up to 0.26.0)
            state.unmodelled(f"VllmConfig's capability check of quantization method {values['method']} (minimum "
                             f"{floor}) comes first: not modelled")
    # the method's minimum capability (at most 80 for the methods modelled) and the dtypes are CUDA's
    return values is not None


_S_PARALLEL = "vllm/config/parallel.py"
_S_ARGS = "vllm/engine/arg_utils.py"
_S_MODEL = "vllm/config/model.py"
_S_VLLM = "vllm/config/vllm.py"
_S_SPEC = "vllm/config/speculative.py"
_S_MODELS_CONFIG = "vllm/model_executor/models/config.py"

_MRV2_V1 = "VLLM_USE_V2_MODEL_RUNNER does not yet support: {unsupported}"
_GPU_MSG = ("World size ({world_size}) is larger than the number of available GPUs ({gpus}) in "
            "this node. If this is intentional and you are using:\n- ray, set "
            "'--distributed-executor-backend ray'.\n- multiprocessing, set '--nnodes' appropriately.")


# ---------------------------------------------------------------------------
# model construction (kvguard.quant): the worker builds the model after every config check passed


def _mi(state):
    """The model-construction outcome of the launch (kvguard.quant.outcome), computed once per check."""
    out = getattr(state, "_mi_out", None)
    if out is None:
        from kvguard.quant import Launch, outcome

        out = state._mi_out = outcome(state.facts, state.release, Launch(tp=state.tp, dp=state.dp, pcp=state.pcp, pp=state.pp, ep=bool(state.ep), eplb=bool(state.eplb),
                                                       redundant=state.redundant, refined_fp8_moe_kernel=True,
                                                       quantization=state.layout.quantization,
                                                       dtype=state.layout.dtype,
                                                       moe_backend=state.layout.moe_backend or "auto",
                                                       all2all_backend=state.layout.all2all_backend,
                                                       kv_cache_dtype=state.cache_dtype,
                                                       mm_encoder_tp_mode=state.layout.mm_encoder_tp_mode,
                                                       mm_limits=(state.layout.limit_mm_per_prompt is not None
                                                                  or state.layout.language_model_only),
                                                       lora=state.layout.enable_lora,
                                                       attention_backend=state.layout.attention_backend))
    return out


#: the compute capability whose MoE kernel selection kvguard models (H100-class: Triton serves refined
#: FP8 block scales, vllm/model_executor/layers/fused_moe/oracle/fp8.py)
_MODELLED_CAPABILITY = 90
#: the environment variables that change the AWQ / GPTQ / compressed-tensors kernel choice in some release
WNA16_KERNEL_ENV = ("VLLM_BATCH_INVARIANT", "VLLM_DISABLED_KERNELS")
#: the environment variables that change the ModelOpt NVFP4 linear kernel choice in some release
MODELOPT_LINEAR_ENV = ("VLLM_DISABLED_KERNELS", "VLLM_NVFP4_GEMM_BACKEND", "VLLM_USE_FBGEMM",
                       "VLLM_USE_NVFP4_CT_EMULATIONS", "VLLM_USE_TRTLLM_FP4_GEMM")


def _mi_undecided(state) -> bool:
    """MI_model: never refuses; skips the model-construction checks when kvguard cannot decide them
    (an architecture or quantization method it does not model, an unknown host fact)."""
    state._mi_skip = True
    _dsv4_mega_refused_undecided(state)
    out = _mi(state)
    if "refined_fp8_moe_kernel" in out.needs:
        capability = state.need("gpu_capability")
        if capability != _MODELLED_CAPABILITY or not state.need("triton"):
            state.unmodelled(f"the FP8 MoE kernel selection for refined block scales is modelled for compute capability "
                         f"{_MODELLED_CAPABILITY} with Triton (this host: {capability})")
    if "dsv4_default_host" in out.needs:
        _dsv4_host(state, "dsv4_nvfp4_experts" in out.needs)
    if out.unmodelled:
        state.unmodelled(out.unmodelled)
    wna16, modelopt, gpt_oss, online_moe = _per_model(state, "mi_paths", lambda: _mi_paths(state),
                                                      state.layout.quantization)
    if wna16:
        # the AWQ / GPTQ kernel path is decided for CUDA compute capability 9.0 (Marlin's conversion, its layer
        # check, the mixed-precision kernel choice); the environment variables that change it are not modelled
        capability = state.need("gpu_capability")
        if capability != _MODELLED_CAPABILITY:
            state.unmodelled(f"the AWQ / GPTQ / compressed-tensors kernel choice is modelled for compute capability "
                             f"{_MODELLED_CAPABILITY} (this host: {capability})")
        for name in WNA16_KERNEL_ENV:
            if _environ.steers(state, name):
                state.unmodelled(f"{name} changes the AWQ / GPTQ / compressed-tensors kernel choice (not modelled)")
        _ct_nvfp4_moe_env(state)
    if modelopt:
        # the NVFP4 GEMM kernel is chosen while each layer is built: decided for the default host (FP4 Marlin on
        # compute capability 9.0, no size check); the environment variables that change the choice are not modelled
        capability = state.need("gpu_capability")
        if capability != _MODELLED_CAPABILITY:
            state.unmodelled(f"the ModelOpt linear kernel choice is modelled for compute capability "
                             f"{_MODELLED_CAPABILITY} (this host: {capability})")
        for name in MODELOPT_LINEAR_ENV:
            if _environ.steers(state, name):
                state.unmodelled(f"{name} changes the ModelOpt NVFP4 linear kernel choice (not modelled)")
        from kvguard.quant import family_has_moe, family_of
        from kvguard.quant.modelopt_shards import MOE_ENV

        family = family_of(state.facts.architectures)
        if family is not None and family_has_moe(family) or "NemotronHForCausalLM" in state.facts.architectures:
            # the experts' MoE backend is chosen while each MoE layer is built (decided for the default environment;
            # Nemotron-H's relu2 experts: kvguard.quant.nemotron_h)
            for name in MOE_ENV:
                if _environ.steers(state, name):
                    state.unmodelled(f"{name} changes the ModelOpt MoE backend selection (not modelled)")
    if gpt_oss:
        _gpt_oss_host(state, out)
    if online_moe:
        from kvguard.quant.online import FP8_MOE_ENV

        for name in FP8_MOE_ENV:
            if _environ.steers(state, name):
                state.unmodelled(f"{name} changes the FP8 MoE backend selection of online FP8 experts (not modelled)")
    state._mi_skip = False
    return False


def _dsv4_mega_refused_undecided(state) -> None:
    """DeepSeek-V4's MegaMoE experts assert that the EP group (dp x pcp x tp ranks) divides the routed (+ redundant)
    experts: a launch that fails it is refused by the release whatever is raised first.  Where kvguard does not
    decide what comes first (the construction left open, another host or platform, a variable steering the
    experts' selection), the launch is undecidable, never accepted with the model step skipped."""
    from kvguard.quant import dsv4 as _dsv4

    archs = state.facts.architectures
    moe_backend = state.layout.moe_backend or "auto"
    if not archs or archs[0] != _dsv4.ARCH or not state.ep or not _dsv4.mega_experts_path(moe_backend,
                                                                                           state.release):
        return
    routed = state.facts.resolved.get("n_routed_experts")
    if type(routed) is not int or routed < 1:
        return
    ep_size = state.dp * state.pcp * state.tp
    if _dsv4.mega_experts_indivisible(routed, state.redundant, ep_size, state.release) is None:
        return
    out = _mi(state)
    host = state.host
    decided = (out.check is not None and getattr(host, "platform", None) == "cuda"
               and getattr(host, "gpu_capability", None) == _MODELLED_CAPABILITY
               and not any(_environ.steers(state, name) for name in _dsv4.HOST_ENV))
    if not decided:
        counted = (f"{routed} routed experts" if not state.release.within(_dsv4.MEGA_EXPERTS_MESSAGE)
                   else f"{routed} routed + {state.redundant} redundant experts")
        state.undecided(f"DeepSeek-V4's MegaMoE experts (--moe-backend {moe_backend}) assert that the EP group "
                        f"divides the experts, and {counted} do not divide by ep_size={ep_size} (dp x pcp x tp): "
                        f"the release refuses the launch, but what it raises first is not decided here ("
                        f"{out.unmodelled or 'the host is not CUDA compute capability 90 in the default environment'})")


def _dsv4_host(state, nvfp4_experts: bool = False) -> None:
    """DeepSeek-V4's construction (kvguard.quant.dsv4) is decided for the default host: CUDA compute capability 9.0,
    where the release's MXFP4 MoE selection names Marlin for the FP4 experts (and its NVFP4 one, for a ModelOpt
    export's NVFP4 experts, Marlin from 0.24.0, none before), in the default environment."""
    from kvguard.quant.dsv4 import HOST_ENV, NVFP4_HOST_ENV

    capability = state.need("gpu_capability")
    if state.need("platform") != "cuda" or capability != _MODELLED_CAPABILITY:
        state.unmodelled(f"DeepSeek-V4's model construction is modelled for CUDA compute capability "
                         f"{_MODELLED_CAPABILITY} (this host: {capability})")
    for name in HOST_ENV:
        if _environ.steers(state, name):
            state.unmodelled(f"{name} changes DeepSeek-V4's MXFP4 MoE backend selection (not modelled)")
    for name in NVFP4_HOST_ENV if nvfp4_experts else ():
        if _environ.steers(state, name):
            state.unmodelled(f"{name} changes the NVFP4 MoE backend selection of DeepSeek-V4's experts (not modelled)")


def _gpt_oss_read(state) -> bool:
    """Whether the outcome read gpt-oss's layers (kvguard.quant.gpt_oss)."""
    from kvguard.quant import family_of
    from kvguard.quant.names import GPT_OSS_FAMILY

    return family_of(state.facts.architectures) == GPT_OSS_FAMILY


def _gpt_oss_host(state, out) -> None:
    """gpt-oss: the MLP block's world-size assert reads torch.distributed's world, which kvguard models as tp x pp x
    pcp x dp; the MXFP4 experts' backend choice is decided for the default host (compute capability 9.0, default
    environment).  A refusal before the experts (the sharding checks, the world assert) reads neither the GPU nor
    the environment."""
    if state.dp > 1 and state.backend == "external_launcher":
        state.unmodelled("torch.distributed's world size with --distributed-executor-backend external_launcher and "
                         "data parallelism (gpt-oss's MLP block asserts on it) is not modelled")
    if state.elastic_ep:
        state.unmodelled("torch.distributed's world size with elastic expert parallelism (gpt-oss's MLP block asserts "
                         "on it) is not modelled")
    if out.check in ("MI_gptoss_world", "MI_divide") or out.unmodelled:
        return
    from kvguard.quant import scheme_of
    from kvguard.quant.gpt_oss import MXFP4_ENV

    scheme = scheme_of(state.facts.resolved_top, state.facts.resolved)
    if scheme is None or scheme.method != "mxfp4":
        return
    capability = state.need("gpu_capability")
    if capability != _MODELLED_CAPABILITY:
        state.unmodelled(f"the MXFP4 MoE backend selection of gpt-oss's experts is modelled for compute capability "
                         f"{_MODELLED_CAPABILITY} (this host: {capability})")
    for name in MXFP4_ENV:
        if _environ.steers(state, name):
            state.unmodelled(f"{name} changes the MXFP4 MoE backend selection (not modelled)")


def _online_moe_read(state) -> bool:
    """Whether the outcome read online FP8 experts (--quantization fp8 of an unquantized MoE model it models)."""
    from kvguard.quant import family_has_moe, family_of, scheme_of

    quantization = state.layout.quantization
    if quantization is None or str(quantization).lower() != "fp8" or scheme_of(state.facts.resolved_top,
                                                                               state.facts.resolved) is not None:
        return False
    family = family_of(state.facts.architectures)
    return family is not None and family_has_moe(family)


def _modelopt_read(state) -> bool:
    """Whether the model's outcome reads a ModelOpt checkpoint's layers (kvguard.quant.modelopt_shards decides them;
    MI_model skips an outcome kvguard leaves open before it asks)."""
    from kvguard.quant import scheme_of

    # with the release: a ModelOpt hf_quant_config.json names no quant_method, only the release's normalization does
    scheme = scheme_of(state.facts.resolved_top, state.facts.resolved, state.release)
    return scheme is not None and scheme.method.startswith("modelopt")


def _mi_paths(state) -> tuple[bool, bool, bool, bool]:
    """Which construction paths the model's outcome reads (``_wna16_read``, ``_modelopt_read``, ``_gpt_oss_read``,
    ``_online_moe_read``): they read the facts, the release and --quantization only, so MI_model asks once per
    model rather than parsing the checkpoint's quantization config again for each layout."""
    return _wna16_read(state), _modelopt_read(state), _gpt_oss_read(state), _online_moe_read(state)


def _ct_nvfp4_moe_env(state) -> None:
    """compressed-tensors NVFP4 experts (kvguard.quant.compressed_tensors.nvfp4_moe_unmodelled): their MoE backend is
    chosen while each MoE layer is built by the function ModelOpt's NVFP4 experts call, decided for the default
    environment only (the environment variables of kvguard.quant.modelopt_shards.MOE_ENV)."""
    from kvguard.quant import family_has_moe, family_of, scheme_of
    from kvguard.quant.modelopt_shards import MOE_ENV

    scheme = scheme_of(state.facts.resolved_top, state.facts.resolved)
    family = family_of(state.facts.architectures)
    if scheme is None or scheme.ct != "nvfp4" or family is None or not family_has_moe(family):
        return
    for name in MOE_ENV:
        if _environ.steers(state, name):
            state.unmodelled(f"{name} changes the NVFP4 MoE backend selection of compressed-tensors experts (not "
                             f"modelled)")


def _wna16_read(state) -> bool:
    """Whether the outcome read the AWQ / GPTQ kernel path (a quantized model of a modelled family)."""
    from kvguard.quant import scheme_of

    scheme = scheme_of(state.facts.resolved_top, state.facts.resolved)
    return scheme is not None and scheme.modelled and scheme.method in ("awq", "gptq", "compressed-tensors")


def _before_first_attention(prefix: "str | None", check: "str | None" = None, first: int = 0) -> bool:
    """Whether a model-construction refusal at layer ``prefix`` comes before the attention backend of layer ``first``
    (the first decoder layer with attention) is selected: the embedding and other layers built before the decoder
    layers, any layer before ``first`` (Qwen3-Next's gated-delta-net layers select none), or layer ``first``'s
    attention module (its projections and asserts)."""
    if check == "MI_attn_assert":
        # (a multimodal wrapper's decoder: language_model.model.layers.N, Qwen3-VL's and Qwen3.5's)
        return prefix is None or prefix == f"model.layers.{first}" or prefix.endswith(f".model.layers.{first}")
    if not prefix:
        return False
    if ".layers." not in prefix and not prefix.startswith("layers."):
        return True
    after = prefix.split("layers.", 1)[1]
    index, _, rest = after.partition(".")
    if index.isdigit() and int(index) < first:
        return True
    # a Mamba mixer of layer 0 (Nemotron-H, kvguard.quant.nemotron_h): that layer holds no attention, so the first
    # attention backend is selected in a later layer
    return index == str(first) and ("attn" in rest or rest == "mixer")


def _first_attention_layer(state) -> int:
    """The index of the first decoder layer that selects an attention backend while it is built (the family's
    ``attention_layer``, kvguard/data/quant_archs.json), else 0."""
    from kvguard.quant import family_of, first_attention_layer

    family = family_of(state.facts.architectures)
    return 0 if family is None else first_attention_layer(family, state.facts.resolved)


def _selector_fires(state) -> bool:
    """W_attn_selector: the selector refuses, unless a model-construction refusal comes first (then that row
    reports it); skipped when model construction is not modelled and could refuse earlier."""
    message = _attn.selector_refusal(state)
    if message is None:
        return False
    out = _mi(state)
    if out.unmodelled:
        state.unmodelled(f"model construction before the first attention layer is not modelled ({out.unmodelled})")
    first = _first_attention_layer(state)
    if out.check is not None and _before_first_attention(out.layer, out.check, first):
        return False
    if out.check is None and out.layer is not None and _before_first_attention(out.layer, first=first):
        state.unmodelled("model construction before the first attention layer depends on a host fact")
    return True


def _local_world_size(state) -> int:
    """ParallelConfig.local_world_size: the world size over the nodes one data-parallel rank spans."""
    within = 1 if state.nnodes == 1 else state.nnodes // (state.dp // state.dpl)
    return state.world_size // within


def _local_world_exceeds_gpus(state) -> bool:
    if not state.since[None, "0.11.1"]:
        return _mp_devices_undecided(state)
    if state.need("platform") != "cuda":
        return False
    return _local_world_size(state) > state.need("gpus_per_node")


def _assumed_gpus(state) -> str:
    """How an undecidable reason says that the node's GPU count was the default host's."""
    return " (assumed: state yours with --gpus-per-node)" if "gpus_per_node" in state.host.assumed else ""


_S_MP_DEVICES = ("vllm/v1/executor/multiproc_executor.py::MultiprocExecutor (one worker per local rank), "
                 "vllm/v1/worker/gpu_worker.py::Worker.init_device")
_MP_DEVICES_WHAT = ("--distributed-executor-backend mp on one node with more ranks than GPUs (vLLM's GPU-count check "
                    "runs only when it picks the backend itself): the workers past the node's GPUs fail to select "
                    "their device — undecidable, not accepted (0.11.1 refuses it: W_local_world_size)")


def _gpus_outnumbered(state) -> "int | None":
    """This CUDA node's GPU count when the launch's workers outnumber it, else None."""
    if state.need("platform") != "cuda":
        return None
    gpus = state.need("gpus_per_node")
    return gpus if state.world_size > gpus else None


def _mp_devices_undecided(state) -> bool:
    # an mp backend vLLM picked itself passed PC_gpu_count: only a chosen one can outnumber the GPUs
    if state.layout.distributed_executor_backend != "mp" or state.nnodes > 1:
        return False
    gpus = _gpus_outnumbered(state)
    if gpus is not None:
        state.undecided(f"--distributed-executor-backend mp starts {state.world_size} workers on this node, which "
                        f"has {gpus} GPU{'s' if gpus != 1 else ''}{_assumed_gpus(state)}: the workers past its GPUs fail to "
                        f"select their device, with an error kvguard does not model")
    return False


#: ray_utils.PG_WAIT_TIMEOUT: how long the Ray executor waits for its placement group (every release)
_RAY_PLACEMENT_WAIT = 1800


def _ray_cluster_unread(state) -> bool:
    """W_ray_cluster: the Ray executor places its world-size workers through the Ray cluster; more GPUs than this
    node has can only come from other nodes, which kvguard does not read — the check is listed as skipped."""
    if state.backend != "ray":
        return False
    gpus = _gpus_outnumbered(state)
    if gpus is not None:
        state.skip(f"the Ray executor asks the Ray cluster for a placement group of {state.world_size} GPUs, more "
                   f"than this node's {gpus}{_assumed_gpus(state)}; whether the cluster's other nodes have them is "
                   f"not read (without them vLLM waits {_RAY_PLACEMENT_WAIT} seconds, then raises a ValueError)")
    return False


def _dp_devices_undecided(state) -> bool:
    """W_dp_devices: the engines of a node's data-parallel ranks take consecutive slices of world-size GPUs;
    a slice past the node's GPUs names devices it does not have (an IndexError turned into a bare Exception
    when CUDA_VISIBLE_DEVICES is set, a CUDA error in the workers when it is not)."""
    if state.dpl is None or state.dpl <= 1 or state.dp_backend == "ray" \
            or state.backend in ("ray", "external_launcher"):
        return False
    if state.need("platform") != "cuda":
        return False
    needed, gpus = state.dpl * state.world_size, state.need("gpus_per_node")
    if needed > gpus:
        state.undecided(f"this node starts {state.dpl} data-parallel engines of {state.world_size} GPU"
                        f"{'s' if state.world_size != 1 else ''} each ({needed} GPUs) and has {gpus}"
                        f"{_assumed_gpus(state)}: "
                        f"the engines "
                        f"past its GPUs fail as they start, with an error kvguard does not model (it depends on "
                        f"CUDA_VISIBLE_DEVICES); give each node at most {gpus // state.world_size} local "
                        f"data-parallel rank{'s' if gpus // state.world_size != 1 else ''} "
                        f"(--data-parallel-size-local)")
    return False


def _eplb_without_moe_model(state) -> bool:
    """W_eplb_no_moe_model: the model was built (its construction decided) with ``--enable-eplb`` but implements
    no ``MixtureOfExperts``.  The V1 runner's ``eplb_step``, in the profile run's dummy batch, asserts on the EPLB
    state (0.10.2-0.11.0 build it only for such a model), that the model is one (0.11.1-0.21.x) or on the MoE model
    it registered (0.22.0+): a bare ``AssertionError`` in every release.  The V2 runner's EPLB controller (0.20.0+,
    read in 0.20.0-0.33.0) steps only registered models."""
    return not getattr(state, "_mi_skip", True) and _mi(state).eplb_without_moe_model and _runner(state) != "v2"


def _mi_fires(state, check: str) -> bool:
    return not getattr(state, "_mi_skip", True) and _mi(state).check == check


def _mi_values(state) -> dict:
    return dict(_mi(state).values)


# ---------------------------------------------------------------------------
# kernel selection (issue 12): KernelConfig.set_platform_defaults, run by VllmConfig.__post_init__, and the
# DeepSeek-V4 model's MegaMoE path (facts of vllm/config/kernel.py and vllm/models/deepseek_v4/nvidia/model.py)

_S_KERNEL = "vllm/config/kernel.py"
_S_INT_WNA16 = "vllm/model_executor/layers/fused_moe/oracle/int_wna16.py"

#: the MoE backends served by the FlashInfer MoE-EP runtime, which dispatches and combines by itself
_FLASHINFER_MOE_EP_0_29 = frozenset({"flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl"})
_FLASHINFER_MOE_EP_0_32 = frozenset({"flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_cutedsl"})

#: the architectures a DeepSeek-V4-only MoE backend accepts, as the refusal prints them (sorted)
_DSV4_ARCHS_0_29 = "['DeepSeekV4MTPModel', 'DeepseekV4ForCausalLM']"
_DSV4_ARCHS_0_30 = "['DeepSeekV4MTPModel', 'DeepseekV41ForCausalLM', 'DeepseekV4ForCausalLM']"
_DSV4_ARCH_NAMES = frozenset({"DeepSeekV4MTPModel", "DeepseekV41ForCausalLM", "DeepseekV4ForCausalLM"})

_DSV4_ONLY_TEMPLATE = ("moe_backend={moe_backend!r} is only supported for DeepSeek-V4 models ({supported}), but "
                       "the model is {architectures}.")


def _moe_backend(state) -> str:
    return state.layout.moe_backend


def _dsv4_only_refused(state, backends: frozenset, archs_since_0_30: bool) -> bool:
    """validate_flashinfer_moe_ep_model: a DeepSeek-V4-only backend on another model."""
    if _moe_backend(state) not in backends:
        return False
    accepted = _DSV4_ARCH_NAMES if archs_since_0_30 else _DSV4_ARCH_NAMES - {"DeepseekV41ForCausalLM"}
    return not any(arch in accepted for arch in state.facts.architectures)


def _dsv4_only_bind(supported: str):
    return lambda state: {"moe_backend": _moe_backend(state), "supported": supported,
                          "architectures": repr(list(state.facts.architectures))}


def _parallel_all2all(state) -> str:
    """ParallelConfig.all2all_backend as set_platform_defaults reads it (0.32.0+): the flag, else the
    default; the removed pplx / naive backends fall back to allgather_reducescatter (a warning)."""
    given = state.layout.all2all_backend
    if given is None or given in ("pplx", "naive"):
        return "allgather_reducescatter"
    return given


def _moonep_undecided(state) -> bool:
    """VllmConfig.__post_init__'s moonep requirements (0.31.0+): undecidable, never passed (a quantized or
    non-BF16 checkpoint is refused there)."""
    if _parallel_all2all(state) == "moonep":
        state.undecided("--all2all-backend moonep: its checks read the checkpoint's quantization and dtype "
                         "(--dtype) and --expert-placement-strategy (not modelled)")
    return False


#: the MoE backends that make the CUDA DeepseekV4Model take its MegaMoE path: vLLM's own DeepGEMM MegaMoE
#: (0.22.0 – 0.28.0, and again from 0.32.0), plus the FlashInfer MoE-EP backends in 0.29.0 – 0.31.0
_NATIVE_MEGA_MOE = frozenset({"deep_gemm_mega_moe"})
_MEGA_MOE_0_29 = _NATIVE_MEGA_MOE | _FLASHINFER_MOE_EP_0_29
#: architectures whose model builds something else first (a vision tower; DeepSeek-V4.1's PCP check)
_DSV4_BUILT_AFTER_OTHERS = ("DeepseekV4ForConditionalGeneration", "DeepseekV41ForCausalLM")


def _dsv4_mega_without_ep(state, backends: frozenset) -> bool:
    """DeepseekV4Model.__init__ (the CUDA implementation), before any layer is built: the MegaMoE path
    needs --enable-expert-parallel.  ``auto`` never selects it (the model reads the flag as given)."""
    if _moe_backend(state) not in backends or state.ep:
        return False
    archs = state.facts.architectures
    if "DeepseekV4ForCausalLM" not in archs:
        if any(arch in _DSV4_BUILT_AFTER_OTHERS for arch in archs):
            state.unmodelled(f"{archs[0]} builds other modules before its DeepSeek-V4 decoder (not modelled)")
        return False
    if state.need("platform") != "cuda":
        state.unmodelled("DeepSeek-V4's model implementation is modelled for CUDA only (vllm/models/deepseek_v4/"
                         "nvidia)")
    return True


_S_DSV4_MODEL = "vllm/models/deepseek_v4/nvidia/model.py::DeepseekV4Model.__init__"
_DSV4_KV_WHAT = ("DeepSeek-V4's sparse-MLA attention (FlashMLA's FP8 block layout on compute capability 9.0) takes an "
                 "fp8 --kv-cache-dtype only, auto included in the refusal before 0.30.0")
_DSV4_MEGA_EP = ("DeepSeek V4 MegaMoE currently requires expert parallel. Enable it with --enable-expert-parallel, "
                 "or pick a different moe backend.")
_DSV4_MEGA_EP_WHAT = ("DeepSeek-V4 (CUDA) with a MegaMoE --moe-backend needs --enable-expert-parallel (raised before "
                      "any layer is built)")
_S_DSV4_MOE_MEGA = ("vllm/models/deepseek_v4/nvidia/model.py::DeepseekV4MoE._init_mega_moe_experts "
                    "(kvguard.quant.dsv4)")
_DSV4_MEGA_EXPERTS_WHAT = ("DeepSeek-V4 (CUDA) on the MegaMoE path: the EP group (dp x pcp x tp) must divide the "
                           "experts, after layer 0's attention and the MoE block's shared experts")
_S_LINEAR = "vllm/model_executor/layers/linear.py"
_S_FP8 = "vllm/model_executor/layers/quantization/fp8.py"
_S_FP8_UTILS = "vllm/model_executor/layers/quantization/utils/fp8_utils.py"
_S_FUSED_MOE = "vllm/model_executor/layers/fused_moe/layer.py"
_S_AWQ = "vllm/model_executor/layers/quantization/awq.py"
_S_CT = "vllm/model_executor/layers/quantization/compressed_tensors"
_S_AUTO_AWQ = "vllm/model_executor/layers/quantization/auto_awq.py"
_S_CHAT_UTILS = "vllm/entrypoints/chat_utils.py"
_S_SERVE_ARGS = ("vllm/entrypoints/openai/cli_args.py::validate_parsed_serve_args (0.29.0+: entrypoints/launchers/, "
                 "0.33.0: entrypoints/common/)")

# ---------------------------------------------------------------------------

RULES = (
    # ===================== the front end, before any config (kvguard.rules.parsers, kvguard.rules.serve_args) ==========
    # logging configuration off while a logging config file is named: refused before the file is looked for (to
    # 0.30.0 when vLLM is imported, before argparse: kvguard.front; 0.31.0+ right after argparse)
    Check("FE_logging_disabled", "0.10.2", "0.30.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
          stage="frontend", exc="RuntimeError", scope="env",
          when=_host.logging_disabled_with_file, template=_host.LOGGING_DISABLED_ENV,
          source="vllm/logger.py::_configure_vllm_root_logger (at import)",
          description="VLLM_CONFIGURE_LOGGING=0 with VLLM_LOGGING_CONFIG_PATH set, whether or not the file exists"),
    # 0.31.0+: --log-config-file replaces LoggingConfig's file right after argparse, and the replace validates the
    # level the variable gave it (kvguard.rules.host_options.logging_level_field), before the configuration is applied
    Step("fe_logging_level_field", "0.31.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
         stage="frontend", apply=_host.logging_level_field_frontend,
         description="--log-config-file while LoggingConfig's log_level is VLLM_LOGGING_LEVEL (no --log-level, no "
                     "log_level in --logging-config) and LogLevel lacks it: ValidationError for LoggingConfig "
                     "(vllm/logger.py::configure_logging_from_args's dataclasses.replace)"),
    Check("FE_logging_disabled", "0.31.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
          stage="frontend", exc="RuntimeError", scope="env",
          when=_host.logging_disabled_with_file, template=_host.LOGGING_DISABLED_CONFIG,
          source="vllm/logger.py::_configure_vllm_root_logger (configure_logging_from_args in "
                 "vllm/entrypoints/cli/main.py::main, before the sub-command's validate)",
          description="LoggingConfig's configure_logging false (--logging-config's, else VLLM_CONFIGURE_LOGGING) "
                      "while a logging config file is named (--log-config-file, --logging-config's "
                      "pylogging_config_file, else VLLM_LOGGING_CONFIG_PATH), whether or not the file exists"),
    # with logging configuration on and no logging config file, dictConfig applies the level: Python's logging
    # refuses a name it lacks (0.31.0+: LoggingConfig's log_level, VLLM_LOGGING_LEVEL unless the command line sets it)
    Check("FE_logging_level", "0.10.2", "0.30.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
          stage="frontend", exc="ValueError", scope="env",
          when=_host.logging_level_unknown, template=_host.LOGGING_LEVEL_MESSAGE,
          source="vllm/logger.py::_configure_vllm_root_logger (at import; logging.config.dictConfig)",
          description="VLLM_LOGGING_LEVEL, upper-cased, not a level name of Python's logging, while "
                      "VLLM_CONFIGURE_LOGGING is on and VLLM_LOGGING_CONFIG_PATH unset"),
    Check("FE_logging_level", "0.31.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
          stage="frontend", exc="ValueError", scope="env",
          when=_host.logging_level_unknown, template=_host.LOGGING_LEVEL_MESSAGE,
          source="vllm/logger.py::_configure_vllm_root_logger (configure_logging_from_args in "
                 "vllm/entrypoints/cli/main.py::main; logging.config.dictConfig)",
          description="VLLM_LOGGING_LEVEL, upper-cased, not a level name of Python's logging, while logging "
                      "configuration is on, no logging config file is named and the level is not the command "
                      "line's (--log-level, --logging-config's log_level)"),
    Check("FE_log_config_file", "0.31.0", options=("log_config_file",), stage="frontend", exc="RuntimeError",
          scope="env", when=_serve_args.log_config_file_unknown,
          template="('Could not load logging config. File does not exist: %s', {log_config_file!r})",
          source="vllm/entrypoints/cli/main.py::main (configure_logging_from_args before the sub-command's validate; "
                 "vllm/logger.py::_configure_vllm_root_logger)",
          description="a --log-config-file the host may not have (the release prints RuntimeError's argument tuple): "
                      "a host fact, so the check is skipped"),
    # the logging config file (kvguard.rules.host_options): read when vLLM is imported (to 0.30.0) or right after
    # argparse (0.31.0+), a host file, so the check is skipped
    Check("FE_logging_config_file", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
          stage="frontend", exc="RuntimeError", scope="env",
          when=_host.logging_file_unknown,
          template="('Could not load logging config. File does not exist: %s', {path!r})",
          source="vllm/logger.py::_configure_vllm_root_logger (at import to 0.30.0; 0.31.0+: from "
                 "configure_logging_from_args in vllm/entrypoints/cli/main.py::main, LoggingConfig's "
                 "pylogging_config_file defaulting to VLLM_LOGGING_CONFIG_PATH)",
          description="a logging config file named by VLLM_LOGGING_CONFIG_PATH or (0.31.0+) --logging-config's "
                      "pylogging_config_file, which the host may not have: a host fact, so the check is skipped"),
    Check("FE_chat_template_path", "0.10.2", "0.12.0", options=("chat_template",), stage="frontend", scope="feature",
          when=_serve_args.chat_template_missing, template=_serve_args.CHAT_TEMPLATE_MESSAGE,
          source=f"{_S_CHAT_UTILS}::validate_chat_template, first in validate_parsed_serve_args",
          description="a path-like --chat-template (none of '{', '}', newline) that does not exist: a host fact, "
                      "so the check is skipped unless the path exists everywhere"),
    Check("FE_chat_template_path", "0.13.0", "0.29.0", options=("chat_template",), stage="frontend", scope="feature",
          when=_serve_args.chat_template_missing,
          template=_serve_args.CHAT_TEMPLATE_MESSAGE + " Tried: {chat_template} and {builtin}",
          source=f"{_S_CHAT_UTILS}::validate_chat_template, first in validate_parsed_serve_args",
          description="a path-like --chat-template that is neither a file on the host nor a built-in template "
                      "(skipped unless a built-in name or a path that exists everywhere: BUILTIN is the install's "
                      "vllm/transformers_utils/chat_templates/NAME)"),
    Check("FE_chat_template_path", "0.30.0", options=("chat_template",), stage="frontend", exc="VLLMValidationError", scope="feature",
          when=_serve_args.chat_template_missing,
          template=_serve_args.CHAT_TEMPLATE_MESSAGE + " Tried: {chat_template} and {builtin} "
                                                        "(parameter=chat_template)",
          source=f"{_S_CHAT_UTILS}::validate_chat_template (0.32.0+: vllm/renderers/chat_utils/chat_template.py), "
                 "first in validate_parsed_serve_args",
          description="a path-like --chat-template that is neither a file on the host nor a built-in template "
                      "(skipped unless a built-in name or a path that exists everywhere)"),
    Check("FE_grpc_port", "0.32.0", options=("grpc_port",), stage="frontend", scope="feature",
          when=_serve_args.grpc_port_check, bind=_serve_args.grpc_port_bind, template="{text}",
          source="vllm/entrypoints/launchers/cli_args.py::validate_grpc_port_arg (0.33.0: entrypoints/common/), "
                 "after the chat template",
          description="--grpc-port with --grpc, without VLLM_USE_RUST_FRONTEND=1 (a value int() refuses: its "
                      "ValueError), without an API server, with --data-parallel-multi-port-external-lb, outside "
                      "0-65535, or equal to --port without --uds"),
    Check("FE_reasoning_effort_map", "0.33.0", options=("reasoning_effort_map",), stage="frontend", scope="feature",
          when=_late.effort_map_check, bind=_late.effort_map_bind, template="{text}",
          source="vllm/entrypoints/common/cli_args.py::validate_reasoning_effort_map, after the gRPC port",
          description="--reasoning-effort-map that is no JSON object of strings, or names an effort ReasoningEffort "
                      "lacks"),
    Check("FE_auto_tool_needs_parser", options=("enable_auto_tool_choice",), stage="frontend", exc="TypeError", scope="feature",
          when=_parsers.auto_tool_without_parser, template=_parsers.AUTO_TOOL_MESSAGE,
          source="vllm/entrypoints/openai/cli_args.py::validate_parsed_serve_args (0.29.0+: entrypoints/launchers/, "
                 "0.33.0+: entrypoints/common/), right after argparse",
          description="--enable-auto-tool-choice without --tool-call-parser"),
    Check("FE_log_outputs_needs_requests", "0.11.0", options=("enable_log_outputs",), stage="frontend", exc="TypeError", scope="feature",
          when=_serve_args.log_outputs_without_requests, template=_serve_args.LOG_OUTPUTS_MESSAGE,
          source=f"{_S_SERVE_ARGS}, after the tool-call parser",
          description="--enable-log-outputs without --enable-log-requests"),
    Check("FE_sse_keep_alive", "0.29.0", options=("sse_keep_alive_interval",), stage="frontend", scope="feature",
          when=_serve_args.sse_keep_alive_negative, template=_serve_args.SSE_MESSAGE,
          source=f"{_S_SERVE_ARGS}, after the output logging",
          description="a negative --sse-keep-alive-interval"),
    # the option exists from 0.25.0 (the row from 0.24.0, the first release of its launch-check group)
    Check("FE_per_request_metrics", "0.24.0", options=("enable_per_request_metrics",), stage="frontend", scope="feature",
          when=_serve_args.per_request_metrics_without_stats, template=_serve_args.PER_REQUEST_MESSAGE,
          source=f"{_S_SERVE_ARGS}, after the keep-alive interval (0.29.0+)",
          description="--enable-per-request-metrics (0.25.0+) with --disable-log-stats"),
    Check("FE_multi_port_external_lb", "0.22.0", options=("data_parallel_multi_port_external_lb",), stage="frontend", scope="feature",
          when=_serve_args.multi_port_check, bind=_serve_args.multi_port_bind, template="{text}",
          source="vllm/entrypoints/openai/dp_supervisor.py::validate_multi_port_external_lb_args (0.29.0+: "
                 "entrypoints/launchers/), last in validate_parsed_serve_args",
          description="--data-parallel-multi-port-external-lb with --grpc, --uds, HTTPS (0.22.x; 0.23.0+ a key "
                      "file without a certificate or the reverse), --api-server-count other than 1, "
                      "--data-parallel-rank, the other load balancers, -dp below 2, -dpl below 2 / above -dp / not "
                      "dividing it, ranks past -dp, or a supervisor port among the child ports"),
    # vllm serve --grpc (0.20.0+) starts no API server: the gRPC server's optional package is the host's
    Step("fe_grpc_server", "0.20.0", options=("grpc",), stage="frontend", apply=_parsers.grpc_server,
         description="--grpc: the gRPC server of the optional smg-grpc-servicer package (vllm[grpc]) instead of the "
                     "API server; whether the host has it is not modelled (undecidable)"),
    # vllm serve's own checks before it starts a server or the headless engine (kvguard.rules.serve_args)
    Check("FE_headless_api_servers", "0.10.2", "0.14.1", options=("headless",), stage="frontend", scope="feature",
          when=_serve_args.headless_run_api_servers, template=_serve_args.HEADLESS_RUN_MESSAGE,
          source="vllm/entrypoints/cli/serve.py::run_headless, first statement",
          description="--headless with --api-server-count above 1"),
    Check("FE_headless_api_servers", "0.15.0", options=("headless",), stage="frontend", scope="feature",
          when=_serve_args.headless_with_api_servers, bind=lambda state: {"count": state.layout.api_server_count},
          template=_serve_args.HEADLESS_COUNT_MESSAGE,
          source="vllm/entrypoints/cli/serve.py::ServeSubcommand.cmd, after --grpc's server",
          description="--headless with a positive --api-server-count"),
    Check("FE_lb_modes", "0.15.0", "0.21.0", options=("data_parallel_external_lb", "data_parallel_rank", "data_parallel_hybrid_lb", "data_parallel_start_rank", "data_parallel_multi_port_external_lb"), stage="frontend", scope="feature",
          when=_serve_args.lb_modes_both, template=_serve_args.LB_BOTH_MESSAGE,
          source="vllm/entrypoints/cli/serve.py::ServeSubcommand.cmd, after the headless check",
          description="the external (-dpe or -dpn) and the hybrid (-dph or -dpr) load-balancing modes together"),
    Check("FE_lb_modes", "0.22.0", options=("data_parallel_external_lb", "data_parallel_rank", "data_parallel_hybrid_lb", "data_parallel_start_rank", "data_parallel_multi_port_external_lb"), stage="frontend", scope="feature",
          when=_serve_args.lb_modes_many, template=_serve_args.LB_MODES_MESSAGE,
          source="vllm/entrypoints/cli/serve.py::ServeSubcommand.cmd, after the headless check",
          description="more than one of the multi-port (-dpm), external (-dpe or -dpn) and hybrid (-dph, or -dpr "
                      "without -dph / -dpm) load-balancing modes"),
    Check("FE_tool_call_parser", options=("enable_auto_tool_choice",), stage="frontend", exc="KeyError", scope="feature",
          when=_parsers.unknown_tool_parser, bind=_parsers.tool_bind, template="{quoted}",
          source="vllm/entrypoints/openai/api_server.py::validate_api_server_args (0.29.0+: entrypoints/launchers/"
                 "launcher.py, 0.33.0+: entrypoints/common/cli_args.py), from setup_server before the engine config",
          description="--enable-auto-tool-choice with a --tool-call-parser the release does not register "
                      "(kvguard/data/parser_names.json; not in headless mode; a --tool-parser-plugin: undecidable): "
                      "str(KeyError('invalid tool call parser: NAME (chose from { A,B,… })'))"),
    Check("FE_reasoning_parser", "0.11.0", options=("structured_reasoning_parser",), stage="frontend", exc="KeyError", scope="feature",
          when=_parsers.unknown_structured_reasoning_parser, bind=_parsers.structured_reasoning_bind,
          template="{quoted}",
          source="vllm/entrypoints/openai/api_server.py::validate_api_server_args (0.29.0+: entrypoints/launchers/"
                 "launcher.py, 0.33.0+: entrypoints/common/cli_args.py), right after the tool-call parser",
          description="a reasoning parser the release does not register named by --structured-outputs-config's "
                      "reasoning_parser (not --reasoning-parser; not without an API server; a "
                      "--reasoning-parser-plugin: undecidable): str(KeyError('invalid reasoning parser: NAME (chose "
                      "from { A,B,… })'))"),
    # ===================== create_engine_config's first statement: LoggingConfig's file replaced (0.31.0+)
    Step("ea_logging_level_field", "0.31.0", env=_host.LOGGING_ENV, options=_host.LOGGING_OPTIONS,
         stage="engine_args", apply=_host.logging_level_field_engine,
         description="a logging config file in LoggingConfig (--logging-config's pylogging_config_file, else "
                     "VLLM_LOGGING_CONFIG_PATH, an empty value too) while its log_level is VLLM_LOGGING_LEVEL and "
                     "LogLevel lacks it: ValidationError for LoggingConfig (EngineArgs.create_logging_config's "
                     "dataclasses.replace of log_config_file, which vllm serve copies from LoggingConfig)"),
    # ===================== create_engine_config's first check: the process environment (kvguard.rules.environ)
    Check("EA_unknown_env", _environ.VALIDATION_SINCE, options=("fail_on_environ_validation",), stage="engine_args",
          scope="env", when=_environ.unknown_refused, bind=_environ.unknown_bind, template=_environ.MESSAGE,
          source=f"{_S_ARGS}::EngineArgs.create_engine_config, vllm/envs.py::validate_environ (0.33.0+: "
                 "vllm/platforms/interface.py::Platform.validate_environ)",
          description="--fail-on-environ-validation with a VLLM_* variable the release does not define "
                      "(kvguard/data/env_names.json; several such: undecidable, vLLM names the first in the process "
                      "environment's order)"),
    # ===================== ModelConfig: maximum length (issue 12) ====================
    # ModelConfig is the first config create_engine_config builds: its field validation runs
    # before __post_init__ (and before any config.json is read), get_and_verify_max_len inside it
    FieldRule("MC_FIELD", "0.13.0", "0.13.0", stage="model_config",
              fields=(("max_model_len", "max_model_len", "gt?", 0),),
              source=f"{_S_MODEL}::ModelConfig (max_model_len: Field(gt=0))",
              description="--max-model-len must be positive"),
    FieldRule("MC_FIELD", "0.14.0", "0.24.0", stage="model_config",
              fields=(("max_model_len", "max_model_len", "ge?", -1),),
              source=f"{_S_MODEL}::ModelConfig (max_model_len: Field(ge=-1))",
              description="--max-model-len must be -1 (auto-fit) or more"),
    # 0.25.0+: max_logprobs (declared after max_model_len) is bounded too, an option kvguard otherwise passes over
    # (kvguard.launch.argv carries it only outside the bound)
    FieldRule("MC_FIELD", "0.25.0", stage="model_config",
              fields=(("max_model_len", "max_model_len", "ge?", -1),
                      ("max_logprobs", "max_logprobs_out_of_bounds", "ge?", -1)),
              source=f"{_S_MODEL}::ModelConfig (max_model_len, max_logprobs: Field(ge=-1))",
              description="--max-model-len must be -1 (auto-fit) or more, and --max-logprobs -1 (no limit) or more "
                          "(both in one ValidationError)"),
    # 0.11.0 - 0.12.0: VLLM_ATTENTION_BACKEND read through env_with_choices, before the sleep-mode check
    # (kvguard.rules.attention_env)
    Check("MC_attention_backend_env", "0.11.0", "0.12.0", stage="model_config", scope="env",
          when=_attention_env.unknown_backend, bind=_attention_env.unknown_bind, template=_attention_env.MESSAGE,
          source=f"{_S_MODEL}::ModelConfig.__post_init__ (its first read of envs.VLLM_ATTENTION_BACKEND), "
                 "vllm/envs.py::env_with_choices",
          description="VLLM_ATTENTION_BACKEND set to a name outside the release's attention backend enum "
                      "(case-sensitive; an empty value too)"),
    # the platform's support for sleep mode and the cumem allocator, before the model's config is read
    # (kvguard.rules.host_options)
    Check("MC_sleep_mode_platform", options=("enable_sleep_mode",), stage="model_config", scope="env",
          when=_host.sleep_unavailable, template=_host.SLEEP_MESSAGE,
          source=f"{_S_MODEL}::ModelConfig.__post_init__ (before get_config; 0.10.2: vllm/config/__init__.py), "
                 "vllm/platforms/interface.py::Platform.is_sleep_mode_available",
          description="--enable-sleep-mode on a platform without it (CUDA only to 0.11.0, CUDA and ROCm to 0.22.1, "
                      "CUDA, ROCm and XPU from 0.23.0; TPU from 0.11.1 is tpu_inference's: skipped)"),
    Check("MC_cumem_platform", "0.22.0", options=("enable_sleep_mode", "enable_cumem_allocator"),
          stage="model_config", scope="env", when=_host.cumem_unavailable, template=_host.CUMEM_MESSAGE,
          source=f"{_S_MODEL}::ModelConfig.__post_init__ (right after the sleep-mode check; 0.22.x "
                 "is_cumem_allocator_available in the same file, 0.23.0+ the platform's)",
          description="--enable-cumem-allocator, or sleep mode, which turns it on (0.22.x wherever sleep mode is "
                      "available, 0.23.0+ on CUDA and ROCm), on a platform whose build lacks the allocator (all "
                      "but CUDA and ROCm)"),
    # get_config: the config parser --config-format names, then the file it reads (kvguard.rules.engine_options)
    Check("MC_config_format_unknown", options=("config_format",), stage="model_config", scope="feature", when=_eopts.config_format_unknown,
          bind=lambda state: {"config_format": state.layout.config_format}, template=_eopts.CONFIG_FORMAT_MESSAGE,
          source="vllm/transformers_utils/config.py::get_config_parser, from get_config (ModelConfig.__post_init__)",
          description="--config-format names no registered config parser (hf, mistral; auto detects)"),
    Step("mc_config_read", options=("config_format", "hf_config_path"), stage="model_config", apply=_eopts.config_read,
         description="--config-format mistral (params.json) or --hf-config-path (another repository or directory): "
                     "files kvguard does not read (undecidable)"),
    Step("mc_terratorch_impl", options=("model_impl",), stage="model_config", apply=_eopts.terratorch_impl,
         description="--model-impl terratorch: the model class comes from the host's terratorch package (without "
                     "it ModelConfig fails on the missing class): undecidable"),
    Check("MC_quant_modelopt_algo", "0.14.0", stage="model_config", scope="feature",
          when=_modelopt_algo_early, bind=lambda state: {"algo": state._modelopt_algo},
          template=_MODELOPT_ALGO,
          source=f"{_S_ARCH_CONVERTOR}::ModelArchConfigConvertorBase._normalize_quantization_config (ModelConfig."
                 f"get_model_arch_config, early in __post_init__)",
          description="a ModelOpt checkpoint (producer modelopt; 0.26.0+ also a legacy modelopt_quant_config) whose "
                      "quantization.quant_algo is not FP8 / FP8_PER_CHANNEL_PER_TOKEN / FP8_PB_WO / NVFP4 (0.33.0+: "
                      "or MIXED_PRECISION), any case"),
    Check("MC_dtype_float16", "0.10.2", "0.26.0", options=("dtype",), stage="model_config", scope="feature",
          when=_float16_refused(_FLOAT16_REFUSED + ("plamo2",)), bind=lambda state: {"model_type": state.facts.model_type},
          template=_FLOAT16_TEMPLATE,
          source=f"{_S_MODEL}::_check_valid_dtype (from _get_and_verify_dtype, before the maximum length)",
          description="--dtype half / float16 for gemma2, gemma3, gemma3_text, glm4 or plamo2"),
    Check("MC_dtype_float16", "0.27.0", options=("dtype",), stage="model_config", scope="feature",
          when=_float16_refused(_FLOAT16_REFUSED), bind=lambda state: {"model_type": state.facts.model_type},
          template=_FLOAT16_TEMPLATE,
          source=f"{_S_MODEL}::_check_valid_dtype (from _get_and_verify_dtype, before the maximum length)",
          description="--dtype half / float16 for gemma2, gemma3, gemma3_text or glm4"),
    Step("mc_max_len", stage="model_config", apply=_mc_max_len,
         description="the derived maximum length (kvguard.length: config keys, --disable-sliding-window, RoPE "
                     "scaling, LongRoPE default) and what becomes of --max-model-len"),
    Check("MC_max_len_rope_sliding", "0.10.2", "0.11.2", stage="model_config", exc="NotImplementedError",
          scope="feature", when=lambda state: state.len_fired == "disable_sw_rope",
          template=_LEN_NIE_ROPE,
          source=f"{_S_MODEL}::_get_and_verify_max_len",
          description="--disable-sliding-window with RoPE scaling (other than su/longrope/llama3)"),
    Check("MC_max_len", stage="model_config", scope="other",
          when=lambda state: _len_refuses(state, "too_long"), bind=_len_bind,
          template=_LEN_TOO_LONG,
          source=f"{_S_MODEL}::_get_and_verify_max_len",
          description="--max-model-len above the derived maximum (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 turns it into a "
                      "warning)"),
    Check("MC_max_len_model_max_length", "0.10.2", "0.11.2", stage="model_config", exc="NotImplementedError",
          scope="feature", when=lambda state: _len_refuses(state, "disable_sw_mml"),
          template=_LEN_NIE_MML,
          source=f"{_S_MODEL}::_get_and_verify_max_len",
          description="--disable-sliding-window with a --max-model-len that only the config's model_max_length "
                      "allows"),
    # ModelConfig.__post_init__ builds MultiModalConfig (its fields' bounds) after the maximum length, for a multimodal
    # model only
    Step("mc_multimodal_values", "0.11.0", stage="model_config", apply=_mc_multimodal_values,
         description="a multimodal option (--mm-processor-cache-gb, --video-pruning-rate, …) outside its "
                     "MultiModalConfig field's bounds: refused, with pydantic's message (undecidable), only for a "
                     "model whose class supports multimodal input"),
    Check("MC_mm_shm_cache_size", "0.11.1", stage="model_config", scope="feature",
          when=_mm_shm_size_without_shm,
          template="'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' is 'shm'.",
          source="vllm/config/multimodal.py::MultiModalConfig._validate_multimodal_config (from ModelConfig."
                 "__post_init__)",
          description="a multimodal model given --mm-shm-cache-max-object-size-mb other than 128 without "
                      "--mm-processor-cache-type shm"),
    # ModelConfig.__post_init__ assigns hf_text_config.sliding_window = None after the maximum length and the
    # multimodal config; transformers 5's strict config classes check the assignment against the field's type
    Step("mc_sliding_window_unset", stage="model_config",
         apply=lambda state: state._fact(SLIDING_WINDOW_UNSET, None) if state.disable_sliding_window else None,
         description="--disable-sliding-window on a text config whose sliding_window field does not take None "
                     "(transformers 5: Gemma 3n / Gemma 4, MiMo-V2-Flash, DeepSeek-V4, …): the strict dataclass "
                     "refuses the assignment (StrictDataclassFieldValidationError, raw)"),
    Check("MC_quant_modelopt_algo", "0.10.2", "0.13.0", stage="model_config", scope="feature",
          when=lambda state: _qv_fires(state, "MC_quant_modelopt_algo"), bind=_qv_values,
          template=_MODELOPT_ALGO,
          source=f"{_S_MODEL}::ModelConfig._parse_quant_hf_config (start of _verify_quantization; 0.10.2: "
                 f"vllm/config/__init__.py)",
          description="a ModelOpt checkpoint (producer modelopt) whose quantization.quant_algo is not FP8 or NVFP4 "
                      "(as written)"),
    # the row spans the launch-check group 0.24.0 - 0.25.1; kvguard.quant.modelopt.unlisted_claim fires on 0.24.0 only
    Check("MC_quant_override_unlisted", "0.24.0", "0.25.1", stage="model_config", scope="feature",
          when=lambda state: _qv_fires(state, "MC_quant_override_unlisted"), bind=_qv_values,
          template="Quantization method {name} is an override but is has not been added to the `overrides` list "
                   "above. This is necessary to ensure that the overrides are checked in order of preference.",
          source=f"{_S_MODEL}::ModelConfig._verify_quantization (the override loop asks the methods missing from "
                 f"its overrides list first; vllm/model_executor/layers/quantization/__init__.py registers mxfp8 as "
                 f"ModelOptMxFp8Config)",
          description="0.24.0: a ModelOpt checkpoint whose quant_algo contains MXFP8: the unlisted mxfp8 method's "
                      "override claims it first, whatever --quantization names (0.25.0 lists it)"),
    Check("MC_quant_gpt_oss_humming", "0.21.0", options=("quantization",), stage="model_config", scope="feature",
          when=lambda state: (str(state.layout.quantization).lower() == "humming"
                              and _qv_fires(state, "MC_quant_gpt_oss_humming")),
          template="For gpt-oss model, use '--moe-backend humming' instead of '--quantization humming'.",
          source="vllm/model_executor/layers/quantization/humming.py::HummingConfig.override_quantization_method "
                 "(asked first of the override loop of ModelConfig._verify_quantization when named)",
          description="--quantization humming for a gpt-oss checkpoint with quant_method mxfp4"),
    Check("MC_quant_mismatch", stage="model_config", scope="feature",
          when=lambda state: _qv_fires(state, "MC_quant_mismatch"), bind=_qv_values,
          template=_QUANT_MISMATCH,
          source=f"{_S_MODEL}::ModelConfig._verify_quantization (end of __post_init__; 0.10.2: vllm/config/__init__.py)",
          description="the checkpoint's quant_method differs from --quantization and no method's "
                      "override_quantization_method claims the checkpoint (CUDA)"),
    Check("MC_quant_unknown", stage="model_config", scope="feature",
          when=lambda state: _qv_fires(state, "MC_quant_unknown"), bind=_qv_values,
          template=_QUANT_UNKNOWN,
          source=f"{_S_MODEL}::ModelConfig._verify_quantization",
          description="--quantization (argparse takes any string) or the checkpoint's quant_method is not one of the "
                      "release's QUANTIZATION_METHODS (kvguard/data/quant_methods.json)"),
    Check("MC_quant_deprecated", "0.14.0", stage="model_config", scope="feature",
          when=lambda state: _qv_fires(state, "MC_quant_deprecated"), bind=_qv_values,
          template=_QUANT_DEPRECATED,
          source=f"{_S_MODEL}::ModelConfig._verify_quantization (DEPRECATED_QUANTIZATION_METHODS)",
          description="a deprecated quantization method without --allow-deprecated-quantization"),
    Check("MC_max_len_positive", "0.23.0", stage="model_config", scope="other",
          when=lambda state: state.len_final is not None and state.len_final < 1,
          bind=lambda state: {"len_final_type": type(state.len_final).__name__},
          template=_LEN_POSITIVE,
          source=f"{_S_MODEL}::ModelConfig.validate_model_config_after",
          description="the maximum length ModelConfig ends with must be at least 1"),
    Step("mc_max_len_undecided", stage="model_config", apply=_mc_len_undecided,
         description="a length below 1 before 0.23.0 passes ModelConfig: kvguard cannot decide what follows"),

    # ===================== EngineArgs.create_engine_config ===================
    # the features the V1 engine refuses (kvguard.rules.v1_features), right after ModelConfig
    Check("EA_logits_processor_pattern", "0.11.1", "0.16.0", stage="engine_args", exc="NotImplementedError",
          scope="feature", when=_v1.logits_processor_pattern_set,
          template=_feature_refused("--logits-processor-pattern"),
          source=f"{_S_ARGS}::EngineArgs._check_feature_supported",
          description="--logits-processor-pattern is refused"),
    Check("EA_partial_prefill", "0.11.1", "0.26.0", stage="engine_args", exc="NotImplementedError",
          scope="feature", when=_v1.partial_prefill_set,
          template=_feature_refused("Concurrent Partial Prefill"),
          source=f"{_S_ARGS}::EngineArgs._check_feature_supported",
          description="--max-num-partial-prefills / --max-long-partial-prefills other than 1 are refused"),
    _oracle_check("EA_v1_oracle_sharded_state", "sharded_state",
                  description="--load-format sharded_state (V1 engine forced; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_logits_processor_pattern", "logits_processor_pattern",
                  description="--logits-processor-pattern (V1 engine forced; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_preemption_mode", "preemption_mode",
                  description="--preemption-mode (V1 engine forced; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_async_output_proc", "async_output_proc",
                  description="--disable-async-output-proc (V1 engine forced; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_scheduler_delay_factor", "scheduler_delay_factor",
                  description="--scheduler-delay-factor other than 0 (V1 engine forced; unset, vLLM falls back to "
                              "V0)"),
    _oracle_check("EA_kv_cache_dtype_oracle", "kv_cache_dtype",
                  description="--kv-cache-dtype needs an attention backend of the platform that supports it (V1 "
                              "engine forced; without VLLM_USE_V1=1 vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_prompt_embeds", "prompt_embeds",
                  description="--enable-prompt-embeds (V1 engine forced; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_v0_only_architecture", "v0_only_architecture",
                  description="a model class that supports only V0 (V1 engine forced: undecidable, the message lists"
                              " the architectures; unset, vLLM falls back to V0)"),
    _oracle_check("EA_v1_oracle_partial_prefill", "partial_prefill",
                  description="--max-num-partial-prefills / --max-long-partial-prefills other than 1 (V1 engine "
                              "forced; unset, vLLM falls back to V0)"),
    Check("EA_spec_draft_model", "0.10.2", "0.10.2", speculative=True, stage="engine_args", exc="NotImplementedError",
          when=lambda state: _spec_dict_method(state) == "draft_model" and _v1.draft_model_reached(state),
          scope="feature",
          template="Speculative decoding with draft model is not supported yet. Please consider using other "
                   "speculative decoding methods such as ngram, medusa, eagle, or deepseek_mtp.",
          source=f"{_S_ARGS}::EngineArgs._is_v1_supported_oracle",
          description="--speculative-config method draft_model (a separate draft checkpoint) is refused"),
    Check("EA_spec_draft_model", "0.11.0", "0.11.0", speculative=True, stage="engine_args", exc="NotImplementedError",
          when=lambda state: _spec_dict_method(state) == "draft_model" and _v1.draft_model_reached(state),
          scope="feature",
          template="Draft model speculative decoding is not supported yet. Please consider using other "
                   "speculative decoding methods such as ngram, medusa, eagle, or mtp.",
          source=f"{_S_ARGS}::EngineArgs._is_v1_supported_oracle",
          description="--speculative-config method draft_model (a separate draft checkpoint) is refused"),
    Check("EA_spec_draft_model", "0.11.1", "0.14.1", speculative=True, stage="engine_args", exc="NotImplementedError",
          when=lambda state: _spec_dict_method(state) == "draft_model", scope="feature",
          template="Draft model speculative decoding is not supported yet. Please consider using other "
                   "speculative decoding methods such as ngram, medusa, eagle, or mtp.",
          source=f"{_S_ARGS}::EngineArgs._check_feature_supported",
          description="--speculative-config method draft_model (a separate draft checkpoint) is refused"),
    _oracle_check("EA_attention_backend_oracle", "attention_backend",
                  bind=lambda state: {"backend": state.env["VLLM_ATTENTION_BACKEND"]},
                  description="VLLM_ATTENTION_BACKEND must name a V1 backend (V1 engine forced)"),
    _oracle_check("EA_pp_backend_oracle", "pipeline_parallel",
                  description="PP needs the ray, mp or external_launcher executor (V1 engine forced)"),
    _oracle_check("EA_cpu_sliding_window_oracle", "cpu_sliding_window",
                  description="a sliding-window model on the CPU platform (V1 engine forced)"),
    Check("EA_dual_chunk_eager", "0.10.2", "0.10.2", stage="engine_args", exc="AssertionError", scope="env",
          when=lambda state: state.env.get("VLLM_ATTENTION_BACKEND") == "DUAL_CHUNK_FLASH_ATTN" and not state.enforce_eager,
          template="Cuda graph is not supported with DualChunkFlashAttention. To run the model in eager mode, set "
                   "'enforce_eager=True' or use '--enforce-eager' in the CLI.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="VLLM_ATTENTION_BACKEND=DUAL_CHUNK_FLASH_ATTN needs --enforce-eager"),
    Check("EA_dual_chunk_cuda", "0.10.2", "0.10.2", stage="engine_args", exc="AssertionError", scope="env",
          when=lambda state: state.env.get("VLLM_ATTENTION_BACKEND") == "DUAL_CHUNK_FLASH_ATTN"
          and state.need("platform") != "cuda",
          template="DualChunkFlashAttention is only supported on CUDA platform.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="VLLM_ATTENTION_BACKEND=DUAL_CHUNK_FLASH_ATTN needs a CUDA platform"),
    Check("EA_pp_backend", "0.11.1", stage="engine_args", exc="NotImplementedError",
          when=_pp_backend,
          template=_feature_refused("Pipeline Parallelism without Ray distributed executor or multiprocessing "
                                    "executor or external launcher"),
          source=f"{_S_ARGS}::EngineArgs._check_feature_supported",
          description="PP needs the ray, mp or external_launcher executor"),
    Check("EA_dcp_div", "0.10.2", "0.15.1", stage="engine_args", exc="AssertionError",
          when=lambda state: not (state.tp % state.dcp == 0),
          template="tp_size={tp} must be divisible bydcp_size={dcp}.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="tp must be a multiple of dcp (bare assert; note the missing space)"),
    # CacheConfig (kvguard.rules.cache_config)
    Check("CC_cpu_offload_negative", "0.10.2", "0.11.0", stage="cache_config", scope="feature",
          when=_cache_config.cpu_offload_negative, bind=_cache_config.offload_bind,
          template=_cache_config.CPU_OFFLOAD_MESSAGE,
          source="vllm/config/cache.py::CacheConfig._verify_args",
          description="a negative --cpu-offload-gb"),
    Check("CC_gpu_memory_above_one", "0.10.2", "0.11.0", stage="cache_config", scope="feature",
          when=_cache_config.gpu_memory_above_one, bind=_cache_config.memory_bind,
          template=_cache_config.GPU_MEMORY_MESSAGE,
          source="vllm/config/cache.py::CacheConfig._verify_args",
          description="--gpu-memory-utilization above 1"),
    Step("cc_field_bounds", "0.11.1", stage="cache_config", apply=_cache_config.field_bounds,
         description="the pydantic bounds of --gpu-memory-utilization (0, 1], --cpu-offload-gb (at least 0), "
                     "--swap-space (at least 0, 0.11.1 - 0.17.1), --block-size (greater than 0, 0.23.0+), "
                     "--prefix-match-unit (greater than 0, 0.26.0+), --prefix-cache-retention-interval (at least 0, "
                     "0.29.0+) and --mamba-block-size (greater than 0), "
                     "checked together: a ValidationError for CacheConfig, an error per value out of bounds in "
                     "declaration order ('Input should be less than or equal to 1', …); --cpu-offload-gb from "
                     "0.17.0 (UVAOffloadConfig, built later) and non-finite values are undecidable; 0.33.0's "
                     "unknown --kv-cache-dtype beside them joins as its validator's value error, after "
                     "--gpu-memory-utilization"),
    Check("CC_cache_dtype_unknown", "0.33.0", stage="cache_config", scope="feature",
          when=_cache_config.unknown_cache_dtype, bind=_cache_config.cache_dtype_bind,
          template=_cache_config.CACHE_DTYPE_MESSAGE,
          source="vllm/config/cache.py::CacheConfig._validate_cache_dtype",
          description="a --kv-cache-dtype the release does not define (argparse's choices before 0.33.0)"),
    # (declared after cache_dtype, whose field validator 0.33.0's row above mirrors)
    FieldRule("CC_FIELD", "0.27.0", options=("replayssm_buffer_len",), stage="cache_config", scope="feature",
              fields=(("replayssm_buffer_len", "replayssm_buffer_len", "gt?", 0),),
              source="vllm/config/cache.py::CacheConfig (replayssm_buffer_len: Field(gt=0))",
              description="--replayssm-buffer-len must be positive"),
    Check("EA_headless_hybrid", options=("data_parallel_hybrid_lb",), stage="engine_args", exc="AssertionError",
          when=lambda state: state.headless and state.hybrid_lb,
          template="data_parallel_hybrid_lb is not applicable in headless mode",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--data-parallel-hybrid-lb cannot be used with --headless"),
    Check("EA_hybrid_and_external", "0.11.1", "0.26.0", options=("data_parallel_hybrid_lb",), stage="engine_args", exc="AssertionError",
          when=lambda state: state.hybrid_lb and state.external_lb_flag,
          template="data_parallel_hybrid_lb and data_parallel_external_lb cannot both be True.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="hybrid and external DP load balancing are exclusive"),
    Check("EA_hybrid_and_external", "0.27.0", options=("data_parallel_hybrid_lb",), stage="engine_args",
          when=lambda state: state.hybrid_lb and state.external_lb_flag,
          template="Invalid data-parallel launch options: `--data-parallel-hybrid-lb` and "
                   "`--data-parallel-external-lb` cannot be enabled together. Enable only one "
                   "load-balancing mode.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="hybrid and external DP load balancing are exclusive"),
    Check("EA_nnodes_dp_backend", "0.11.1", "0.26.0", options=("nnodes",), stage="engine_args", exc="AssertionError",
          when=lambda state: not (state.dp_backend == "mp" or state.nnodes == 1),
          template="nnodes > 1 is only supported with data_parallel_backend=mp",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--nnodes > 1 needs the mp data-parallel backend"),
    Check("EA_nnodes_dp_backend", "0.27.0", options=("nnodes",), stage="engine_args",
          when=lambda state: state.nnodes > 1 and state.dp_backend != "mp",
          template="Invalid data-parallel launch options: `--nnodes {nnodes}` requires "
                   "`--data-parallel-backend mp`; got `--data-parallel-backend {dp_backend}`. Use the "
                   "MP backend or set `--nnodes 1`.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--nnodes > 1 needs the mp data-parallel backend"),
    Step("ea_world", "0.11.1", stage="engine_args", apply=_ea_world,
         description="world size across nodes: dp*pp*tp (0.30.0+: *pcp)"),
    Check("EA_nnodes_world_size", "0.11.1", "0.26.0", options=("nnodes",), stage="engine_args", exc="AssertionError",
          when=lambda state: state.nnodes > 1 and not (state.ea_world_size % state.nnodes == 0),
          template="world_size={ea_world_size} must be divisible by nnodes={nnodes}.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="the world size must split evenly over --nnodes"),
    Check("EA_nnodes_world_size", "0.27.0", "0.29.0", options=("nnodes",), stage="engine_args",
          when=lambda state: state.nnodes > 1 and state.ea_world_size % state.nnodes != 0,
          template="Invalid data-parallel launch options: `--nnodes {nnodes}` must evenly divide the "
                   "total world size ({ea_world_size}). Adjust `--nnodes`, `--data-parallel-size`, "
                   "`--pipeline-parallel-size`, or `--tensor-parallel-size`.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="the world size must split evenly over --nnodes"),
    Check("EA_nnodes_world_size", "0.30.0", options=("nnodes",), stage="engine_args",
          when=lambda state: state.nnodes > 1 and state.ea_world_size % state.nnodes != 0,
          template="Invalid data-parallel launch options: `--nnodes {nnodes}` must evenly divide the "
                   "total world size ({ea_world_size}). Adjust `--nnodes`, `--data-parallel-size`, "
                   "`--pipeline-parallel-size`, `--tensor-parallel-size`, or "
                   "`--prefill-context-parallel-size`.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="the world size (with PCP) must split evenly over --nnodes"),
    Check("EA_node_rank", "0.11.1", "0.26.0", options=("nnodes",), stage="engine_args", exc="AssertionError",
          when=lambda state: state.nnodes > 1 and not (state.node_rank < state.nnodes),
          template="node_rank={node_rank} must be less than nnodes={nnodes}.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--node-rank must be below --nnodes"),
    Check("EA_node_rank", "0.27.0", options=("nnodes",), stage="engine_args",
          when=lambda state: state.nnodes > 1 and not 0 <= state.node_rank < state.nnodes,
          bind=lambda state: {"nnodes_max": state.nnodes - 1},
          template="Invalid data-parallel launch options: `--node-rank` must be between 0 and "
                   "{nnodes_max}; got `--node-rank {node_rank}`. Set it to this node's zero-based index.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--node-rank must be in [0, nnodes)"),
    Check("EA_extlb_nnodes_dp", "0.31.0", options=("nnodes",), stage="engine_args",
          when=lambda state: (state.nnodes > 1 and state.dp > 1 and state.external_lb_flag and state.dp_rank is None
                          and state.nnodes % state.dp != 0),
          template="Invalid data-parallel launch options: `--node-rank` cannot unambiguously identify "
                   "external data-parallel ranks when `--nnodes` is not divisible by "
                   "`--data-parallel-size`. Set a unique `--data-parallel-rank` for each external-LB "
                   "process.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="external-LB rank inference from --node-rank needs nnodes % dp == 0"),
    Step("ea_infer_rank", "0.11.1", stage="engine_args", apply=_ea_infer_rank,
         description="infer the DP rank (external LB) or local DP size from --node-rank"),
    Step("ea_external_lb", stage="engine_args", apply=_ea_external_lb,
         description="external LB mode: --data-parallel-external-lb or an explicit --data-parallel-rank"),
    Check("EA_ft_requires_extlb", "0.27.0", options=("enable_fault_tolerance",), stage="engine_args", scope="feature",
          when=lambda state: state.fault_tolerance and not state.external_lb,
          template="Fault tolerance requires external load balancer mode (--data-parallel-external-lb "
                   "or --data-parallel-rank). Internal LB mode is not supported.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--enable-fault-tolerance needs external DP load balancing"),
    Check("EA_nonmoe_extdp", "0.21.0", stage="engine_args",
          when=lambda state: state.dp > 1 and state.external_lb and not state.is_moe,
          template="Non-MoE models do not support external data parallel mode. For external load "
                   "balancing, launch independent vLLM instances without --data-parallel-* arguments.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="external DP load balancing needs a MoE model"),
    Check("EA_extlb_requires_rank", "0.11.1", "0.11.2", stage="engine_args", exc="AssertionError",
          when=lambda state: state.external_lb and not (state.dp_rank is not None),
          template="data_parallel_rank or node_rank must be spefified if data_parallel_external_lb is "
                   "enable.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="external LB needs a DP rank (note the typo)"),
    Check("EA_extlb_requires_rank", "0.12.0", "0.26.0", stage="engine_args", exc="AssertionError",
          when=lambda state: state.external_lb and not (state.dp_rank is not None),
          template="data_parallel_rank or node_rank must be specified if data_parallel_external_lb is "
                   "enable.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="external LB needs a DP rank"),
    Check("EA_extlb_requires_rank", "0.27.0", stage="engine_args",
          when=lambda state: state.external_lb and state.dp_rank is None,
          template="Invalid data-parallel launch options: `--data-parallel-external-lb` requires a "
                   "data-parallel rank. Set `--data-parallel-rank`, or set `--data-parallel-size` greater "
                   "than 1 and use `--nnodes` with `--node-rank` so the rank can be inferred.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="external LB needs a DP rank"),
    Check("EA_extlb_dpl", "0.10.2", "0.11.0", stage="engine_args", exc="AssertionError",
          when=lambda state: state.external_lb and state.dpl not in (1, None),
          template="data_parallel_size_local must be 1 when data_parallel_rank is set",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="an external DP rank needs --data-parallel-size-local 1"),
    Check("EA_extlb_dpl", "0.11.1", "0.26.0", stage="engine_args", exc="AssertionError",
          when=lambda state: state.external_lb and state.dpl not in (1, None),
          template="data_parallel_size_local must be 1 or None when data_parallel_rank is set",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="an external DP rank needs --data-parallel-size-local 1"),
    Check("EA_extlb_dpl", "0.27.0", stage="engine_args",
          when=lambda state: state.external_lb and state.dpl not in (1, None),
          template="Invalid data-parallel launch options: an external data-parallel rank requires "
                   "`--data-parallel-size-local 1`; got {dpl}. Set it to 1 or omit it.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="an external DP rank needs --data-parallel-size-local 1"),
    Check("EA_hybrid_requires_dpl", "0.10.2", "0.26.0", stage="engine_args", exc="AssertionError",
          when=lambda state: not state.external_lb and state.dpl is None and state.hybrid_lb,
          template="data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="hybrid LB needs --data-parallel-size-local"),
    Check("EA_hybrid_requires_dpl", "0.27.0", stage="engine_args",
          when=lambda state: not state.external_lb and state.dpl is None and state.hybrid_lb,
          template="Invalid data-parallel launch options: `--data-parallel-hybrid-lb` requires "
                   "`--data-parallel-size-local`. Set it to the number of data-parallel ranks on this "
                   "node.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="hybrid LB needs --data-parallel-size-local"),
    Step("ea_dp_local", stage="engine_args", apply=_ea_dp_local,
         description="the local DP size, DP rank and LB mode passed to ParallelConfig"),
    Check("EA_dp_backend", stage="engine_args", exc="AssertionError",
          when=lambda state: state.dp_address is None and not state.dp_backend == "ray" and not state.dp_backend == "mp",
          template="('data_parallel_backend can only be ray or mp, got %s', {dp_backend!r})",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--data-parallel-backend must be mp or ray (the assert's message is a tuple)"),
    Check("EA_async_uni", "0.10.2", "0.10.2", stage="engine_args", scope="feature",
          when=lambda state: state.async_scheduling and state.backend == "uni",
          template="Async scheduling is not supported with uni-process backend.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--async-scheduling needs a multi-process executor"),
    Check("EA_async_pp", "0.10.2", "0.11.0", stage="engine_args", scope="feature",
          when=lambda state: state.async_scheduling and state.pp > 1,
          template="Async scheduling is not supported with pipeline-parallel-size > 1.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--async-scheduling is incompatible with PP"),
    Check("EA_async_spec", "0.10.2", "0.11.0", speculative=True, stage="engine_args", scope="feature",
          when=lambda state: state.async_scheduling and state.spec is not None and state.spec.config is not None,
          template="Currently, speculative decoding is not supported with async scheduling.",
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--async-scheduling is incompatible with --speculative-config"),
    # --device-ids, resolved as ParallelConfig's assigned_physical_gpu_ids argument (kvguard.rules.host_options)
    Check("EA_device_ids_duplicates", "0.24.0", options=("device_ids",), stage="engine_args", scope="feature",
          when=_host.device_ids_duplicates, bind=lambda state: {"ids": str(_host.device_ids_values(state))},
          template=_host.DEVICE_IDS_DUPLICATES, source=f"{_S_ARGS}::EngineArgs._resolve_device_ids",
          description="--device-ids naming a device twice (after argparse made digit-only items integers)"),
    Check("EA_device_ids_not_int", "0.24.0", options=("device_ids",), stage="engine_args", scope="env",
          when=_host.device_ids_not_int, bind=_host.device_id_bind, template=_host.DEVICE_ID_NOT_INT,
          source=f"{_S_ARGS}::EngineArgs._resolve_device_ids (vllm/platforms/interface.py::"
                 "Platform.device_control_id_to_physical_device_id)",
          description="--device-ids of UUIDs only: one int() refuses is refused off CUDA (ROCm, XPU, CPU); on CUDA "
                      "NVML looks it up among the host's GPUs (skipped)"),
    Check("EA_device_ids_mixed", "0.24.0", options=("device_ids",), stage="engine_args", scope="feature",
          when=_host.device_ids_mixed, template=_host.DEVICE_IDS_MIXED,
          source=f"{_S_ARGS}::EngineArgs._resolve_device_ids",
          description="--device-ids mixing integer ids and UUIDs"),
    Check("EA_device_ids_visible_not_int", "0.24.0", options=("device_ids",), stage="engine_args", scope="env",
          when=_host.device_ids_visible_not_int, bind=_host.device_id_bind, template=_host.DEVICE_ID_NOT_INT,
          source=f"{_S_ARGS}::EngineArgs._resolve_device_ids (the device-control variable's entries converted)",
          description="integer --device-ids with a device-control variable (CUDA_VISIBLE_DEVICES, ...) given with "
                      "--env whose entry int() refuses: refused off CUDA, looked up by NVML on CUDA (skipped)"),
    Check("EA_device_ids_range", "0.24.0", options=("device_ids",), stage="engine_args", scope="env",
          when=_host.device_ids_range, bind=_host.device_range_bind, template=_host.DEVICE_IDS_RANGE,
          source=f"{_S_ARGS}::EngineArgs._resolve_device_ids",
          description="an integer --device-ids past the devices the device-control variable given with --env lists"),
    Step("ea_to_parallel_config", stage="engine_args", apply=_to_parallel_config,
         description="ParallelConfig receives data_parallel_rank=rank or 0 and the local DP size above"),

    # ===================== ParallelConfig: pydantic field validation =========
    Step("pc_numa_beside_bounds", "0.20.0", options=("numa_bind_nodes", "numa_bind_cpus"),
         apply=_pflags.numa_beside_bounds,
         description="a NUMA list its field validators refuse beside a field out of its bound, or both lists "
                     "refused: one ValidationError, every error in declaration order (the lists' value errors after "
                     "nnodes, before the decode context size)"),
    FieldRule("FIELD", "0.18.0", "0.22.1",
              fields=(("dcp_comm_backend", "dcp_comm_backend", "literal", ("ag_rs", "a2a")),),
              source=f"{_S_PARALLEL}::ParallelConfig (field types)",
              description="dcp_comm_backend must be one of the DCPCommBackend literals"),
    FieldRule("FIELD", "0.23.0", "0.28.0",
              fields=(("pipeline_parallel_size", "pp", "ge", 1),
                      ("tensor_parallel_size", "tp", "ge", 1),
                      ("prefill_context_parallel_size", "pcp", "ge", 1),
                      ("data_parallel_size", "dp", "ge", 1),
                      ("data_parallel_size_local", "dpl", "ge", 0),
                      ("data_parallel_rank", "dp_rank", "ge", 0),
                      # 0.28.0: the port's bound (the option is not checked before); kvguard otherwise passes over
                      # these two and carries them only outside their bounds
                      ("data_parallel_rpc_port", "data_parallel_rpc_port_out_of_bounds", "range?", (1, 65535)),
                      ("max_parallel_loading_workers", "max_parallel_loading_workers_out_of_bounds", "ge?", 1),
                      ("ubatch_size", "ubatch_size", "ge", 0),
                      ("dbo_decode_token_threshold", "dbo_decode_token_threshold", "ge?", 0),
                      ("dbo_prefill_token_threshold", "dbo_prefill_token_threshold", "ge?", 0),
                      ("node_rank", "node_rank", "ge", 0),
                      ("nnodes", "nnodes", "ge", 1),
                      ("decode_context_parallel_size", "dcp", "ge", 1),
                      ("dcp_comm_backend", "dcp_comm_backend", "literal", ("ag_rs", "a2a"))),
              source=f"{_S_PARALLEL}::ParallelConfig (Field(ge=...))",
              description="sizes >= 1, local DP size / ranks / microbatching (--ubatch-size, the DBO thresholds) "
                          ">= 0 (all failing fields in one error)"),
    FieldRule("FIELD", "0.29.0",
              fields=(("pipeline_parallel_size", "pp", "ge", 1),
                      ("tensor_parallel_size", "tp", "ge", 1),
                      ("prefill_context_parallel_size", "pcp", "ge", 1),
                      ("data_parallel_size", "dp", "ge", 1),
                      ("data_parallel_size_local", "dpl", "ge", 0),
                      ("data_parallel_rank", "dp_rank", "ge", 0),
                      # options kvguard otherwise passes over, carried only outside their bounds (the sync interval
                      # and the elastic EP size from 0.30.0)
                      ("data_parallel_rpc_port", "data_parallel_rpc_port_out_of_bounds", "range?", (1, 65535)),
                      ("dp_sync_interval", "dp_sync_interval_out_of_bounds", "ge?", 1),
                      ("max_parallel_loading_workers", "max_parallel_loading_workers_out_of_bounds", "ge?", 1),
                      ("elastic_ep_max_dp_size", "elastic_ep_max_dp_size_out_of_bounds", "ge?", 1),
                      ("ubatch_size", "ubatch_size", "ge", 0),
                      ("dbo_decode_token_threshold", "dbo_decode_token_threshold", "ge?", 0),
                      ("dbo_prefill_token_threshold", "dbo_prefill_token_threshold", "ge?", 0),
                      ("node_rank", "node_rank", "ge", 0),
                      ("nnodes", "nnodes", "ge", 1),
                      ("decode_context_parallel_size", "dcp", "ge", 1),
                      ("dcp_comm_backend", "dcp_comm_backend", "literal?", ("ag_rs", "a2a"))),
              source=f"{_S_PARALLEL}::ParallelConfig (Field(ge=...))",
              description="sizes >= 1, local DP size / ranks / microbatching (--ubatch-size, the DBO thresholds) "
                          ">= 0 (all failing fields in one error)"),

    # ParallelConfig's field validators of the NUMA options (kvguard.rules.parallel_flags)
    Step("pc_numa_entries", "0.20.0", options=("numa_bind_nodes", "numa_bind_cpus"), apply=_pflags.numa_entries,
         description="an empty or 'None' entry of --numa-bind-nodes / --numa-bind-cpus: pydantic's type error "
                     "names the host's pydantic version, so kvguard declines"),
    Check("FIELD_numa_nodes", "0.20.0", options=("numa_bind_nodes",), scope="feature", when=_pflags.nodes_negative,
          template=_pflags.NODES_NEGATIVE_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._validate_numa_bind_nodes",
          description="a negative --numa-bind-nodes entry"),
    Check("FIELD_numa_cpus_syntax", "0.20.0", options=("numa_bind_cpus",), scope="feature", when=_pflags.cpus_syntax,
          template=_pflags.CPUS_SYNTAX_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._validate_numa_bind_cpus",
          description="a --numa-bind-cpus entry that is no numactl CPU list (the first failing entry decides)"),
    Check("FIELD_numa_cpus_order", "0.20.0", options=("numa_bind_cpus",), scope="feature", when=_pflags.cpus_descending,
          bind=_pflags.descending_bind, template=_pflags.CPUS_DESCENDING_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._validate_numa_bind_cpus",
          description="a descending range in a --numa-bind-cpus entry"),

    # ===================== ParallelConfig.__post_init__ ========================
    Step("pc_world_size", apply=_pc_world,
         description="world_size = pp * tp * pcp (* dp with external_launcher)"),
    Check("PC_elastic_needs_eplb", "0.17.0", options=("enable_elastic_ep",), scope="feature",
          when=lambda state: state.elastic_ep and not state.eplb,
          template="Elastic EP is only supported with enable_eplb=True.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="elastic EP needs EPLB"),
    Check("PC_elastic_pp", "0.17.0", options=("enable_elastic_ep",), scope="feature",
          when=lambda state: state.elastic_ep and state.pp > 1,
          template="Elastic EP is not supported with pipeline parallelism (pipeline_parallel_size={pp}).",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="elastic EP is incompatible with PP"),
    Check("PC_elastic_lb", "0.17.0", "0.32.0", options=("enable_elastic_ep",), exc="NotImplementedError", scope="feature",
          when=lambda state: state.elastic_ep and (state.external_lb or state.hybrid_lb),
          template="Elastic EP is not compatible with data_parallel_external_lb or "
                   "data_parallel_hybrid_lb. Elastic EP relies on a single API server and core client to "
                   "coordinate scale up/down.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="elastic EP is incompatible with external/hybrid DP load balancing"),
    Check("PC_elastic_lb", "0.33.0", options=("enable_elastic_ep",), exc="NotImplementedError", scope="feature",
          when=lambda state: state.elastic_ep and state.hybrid_lb,
          template="Elastic EP is not compatible with data_parallel_hybrid_lb. Elastic EP supports a "
                   "single API server/core client path or data_parallel_external_lb, but not hybrid load "
                   "balancing.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="elastic EP is incompatible with hybrid DP load balancing"),
    Check("PC_elastic_nixl", "0.24.0", options=("enable_elastic_ep",), scope="feature",
          when=lambda state: state.elastic_ep and state.eplb_async and not state.need("nixl"),
          template="Elastic EP with async EPLB requires the NIXL package. Either install NIXL or set "
                   "--eplb-config.use_async=false.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="elastic EP with async EPLB needs NIXL installed"),
    Check("PC_dpl_gt_dp", "0.10.2", "0.11.0",
          when=lambda state: state.dpl > state.dp,
          template="data_parallel_size_local ({dpl}) must be <= data_parallel_size ({dp})",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="local DP size cannot exceed the DP size"),
    Step("pc_dp_branch", apply=_pc_dp_branch,
         description="explicit DP (dp > 1 or dpl == 0); external_launcher reads the rank from RANK"),
    Check("PC_dp_rank_range",
          when=lambda state: state.dp_branch and not 0 <= state.dp_rank < state.dp,
          template="data_parallel_rank ({dp_rank}) must be in the range [0, {dp})",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="the DP rank must be in [0, dp)"),
    Step("pc_env_dp", apply=_pc_env_dp,
         description="without explicit DP, data_parallel_size/rank come from VLLM_DP_SIZE/VLLM_DP_RANK"),
    Check("PC_extlb_dp1", "0.10.2", "0.11.0",
          when=lambda state: not state.dp_branch and state.external_lb,
          template="data_parallel_external_lb can only be set when data_parallel_size > 1",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="external LB needs DP > 1"),
    Check("PC_eplb_platform", "0.10.2", "0.11.0", scope="feature",
          when=lambda state: state.eplb and state.need("platform") != "cuda",
          template="Expert parallelism load balancing is only supported on CUDA devices now.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="EPLB needs CUDA"),
    Check("PC_eplb_redundant_neg", "0.10.2", "0.11.0", scope="feature",
          when=lambda state: state.eplb and state.redundant < 0,
          template="num_redundant_experts must be non-negative, but got {redundant}.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="num_redundant_experts must be >= 0"),
    Check("PC_eplb_needs_ep", "0.10.2", "0.11.0", scope="feature",
          when=lambda state: state.eplb and not state.ep,
          template="enable_expert_parallel must be True to use EPLB.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="EPLB needs expert parallelism"),
    Check("PC_eplb_needs_parallel", "0.10.2", "0.11.0", scope="feature",
          when=lambda state: state.eplb and state.tp * state.dp <= 1,
          template="EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but "
                   "got TP={tp},DP={dp}.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="EPLB needs TP or DP > 1"),
    Check("PC_redundant_without_eplb", "0.10.2", "0.11.0", scope="feature",
          when=lambda state: not state.eplb and state.redundant != 0,
          template="num_redundant_experts is set to {redundant} but EPLB is not enabled. Either enable "
                   "EPLB or unset num_redundant_experts.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="redundant experts need EPLB"),
    Check("PC_offline_dp_dense", "0.14.0", scope="env",
          when=lambda state: not state.dp_branch and state.dp > 1 and state.is_moe_model is False,
          template="Offline data parallel mode is not supported/useful for dense models.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="VLLM_DP_SIZE > 1 (offline DP) needs a MoE model"),
    Check("PC_gpu_count", "0.10.2", "0.11.0", scope="env",
          when=_gpu_shortfall,
          bind=lambda state: {"ray_import_err": _RAY_IMPORT_ERR},
          template="Unable to load Ray: {ray_import_err}. Ray is required for multi-node inference, "
                   "please install Ray with `pip install ray`.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="the world size exceeds this node's GPUs and Ray is not installed"),
    Check("PC_gpu_count", "0.11.1", "0.12.0", scope="env",
          when=_gpu_shortfall, bind=lambda state: {"gpus": state.host.gpus_per_node},
          template="Tensor parallel size ({world_size}) cannot be larger than the number of available "
                   "GPUs ({gpus}).",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="the world size exceeds this node's GPUs"),
    Check("PC_gpu_count", "0.13.0", scope="env",
          when=_gpu_shortfall, bind=lambda state: {"gpus": state.host.gpus_per_node},
          template=_GPU_MSG,
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="the world size exceeds this node's GPUs"),
    Step("pc_backend", apply=_pc_backend,
         description="executor backend auto-selection ('uni' for world size 1, else mp unless ray)"),
    Check("PC_nnodes_backend", "0.11.1", "0.11.2", scope="env",
          when=lambda state: state.backend != "mp" and state.nnodes > 1,
          template="nnodes > 1 can only be set when distributed exectuor backend is mp.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="--nnodes > 1 needs the mp executor (note the typo)"),
    Check("PC_nnodes_backend", "0.12.0", "0.12.0", scope="env",
          when=lambda state: state.backend not in ("mp", "uni") and state.nnodes > 1,
          template="nnodes > 1 can only be set when distributed executor backend is mp or uni.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="--nnodes > 1 needs the mp or uni executor"),
    Check("PC_nnodes_backend", "0.13.0", scope="env",
          when=lambda state: state.backend not in ("mp", "uni", "external_launcher") and state.nnodes > 1,
          template="nnodes > 1 can only be set when distributed executor backend is mp, uni or "
                   "external_launcher.",
          source=f"{_S_PARALLEL}::ParallelConfig.__post_init__",
          description="--nnodes > 1 needs the mp, uni or external_launcher executor"),

    # ===================== ParallelConfig._validate_parallel_config ===========
    Check("PV_ft_api", "0.27.0", options=("enable_fault_tolerance",), scope="other",
          when=lambda state: state.fault_tolerance and state.api_process_count > 1,
          template="Fault tolerance requires a single API server process (--api-server-count=1), but "
                   "got {api_process_count}. The FT system assumes one AsyncMPClient manages all engines.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="fault tolerance needs one API server"),
    Check("PV_dpl_gt_dp", "0.11.1",
          when=lambda state: state.dpl > state.dp,
          template="data_parallel_size_local ({dpl}) must be <= data_parallel_size ({dp})",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="local DP size cannot exceed the DP size (after the VLLM_DP_SIZE fallback)"),
    Check("PV_extlb_dp1", "0.11.1",
          when=lambda state: state.dp <= 1 and state.external_lb,
          template="data_parallel_external_lb can only be set when data_parallel_size > 1",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="external LB needs DP > 1"),
    Check("PV_numa_requires_bind", "0.20.0", options=("numa_bind_nodes", "numa_bind_cpus"), scope="feature", when=_pflags.numa_without_bind,
          template=_pflags.REQUIRES_BIND_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="--numa-bind-nodes / --numa-bind-cpus without --numa-bind"),
    Check("PV_eplb_platform", "0.11.1", "0.30.0", options=("enable_eplb",), scope="feature",
          when=lambda state: state.eplb and state.need("platform") not in ("cuda", "rocm"),
          template="Expert parallelism load balancing is only supported on CUDA devices or ROCm devices "
                   "now.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="EPLB needs CUDA or ROCm"),
    Check("PV_eplb_platform", "0.31.0", options=("enable_eplb",), scope="feature",
          when=lambda state: state.eplb and state.need("platform") not in ("cuda", "rocm", "xpu"),
          template="Expert parallelism load balancing is only supported on CUDA devices or ROCm devices "
                   "or XPU devices now.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="EPLB needs CUDA, ROCm or XPU"),
    Check("PV_eplb_needs_ep", "0.11.1", options=("enable_eplb",), scope="feature",
          when=lambda state: state.eplb and not state.ep,
          template="enable_expert_parallel must be True to use EPLB.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="EPLB needs expert parallelism"),
    Check("PV_eplb_needs_parallel", "0.11.1", "0.25.1", options=("enable_eplb",), scope="feature",
          when=lambda state: state.eplb and state.tp * state.dp <= 1,
          template="EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but "
                   "got TP={tp},DP={dp}.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="EPLB needs TP or DP > 1"),
    Check("PV_eplb_needs_parallel", "0.26.0", options=("enable_eplb",), scope="feature",
          when=lambda state: state.eplb and state.tp * state.pcp * state.dp <= 1,
          template="EPLB requires tensor, prefill-context, or data parallelism, but got TP={tp}, "
                   "PCP={pcp}, DP={dp}.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="EPLB needs TP, PCP or DP > 1"),
    Check("PV_redundant_without_eplb", "0.11.1", options=("num_redundant_experts",), scope="feature",
          when=lambda state: not state.eplb and state.redundant != 0,
          template="num_redundant_experts is set to {redundant} but EPLB is not enabled. Either enable "
                   "EPLB or unset num_redundant_experts.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="redundant experts need EPLB"),
    Check("PV_pcp_unsupported", "0.12.0", "0.12.0",
          when=lambda state: state.pcp > 1,
          template="Prefill context parallelism is not fully supported. Please set "
                   "prefill_context_parallel_size to 1.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="PCP exists but is refused in 0.12.0"),
    Check("PV_pcp_dp", "0.26.0", "0.29.0",
          when=lambda state: state.pcp > 1 and state.dp > 1,
          template="PCP does not support data parallelism yet.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="PCP cannot be combined with DP"),
    Check("PV_tp_dcp_div", "0.16.0", "0.25.1",
          when=lambda state: state.tp % state.dcp != 0,
          template="tp_size={tp} must be divisible bydcp_size={dcp}.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="tp must be a multiple of dcp (note the missing space)"),
    Check("PV_tp_dcp_div", "0.26.0",
          when=lambda state: state.pcp == 1 and state.tp % state.dcp != 0,
          template="tp_size={tp} must be divisible by dcp_size={dcp}.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="without PCP, tp must be a multiple of dcp"),
    Check("PV_pcp_dcp_span", "0.26.0",
          when=lambda state: not (state.pcp == 1) and state.dcp not in (1, state.pcp, state.tp * state.pcp),
          bind=lambda state: {"valid": sorted({1, state.pcp, state.tp * state.pcp})},
          template="When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x "
                   "PCP axis. Got TP={tp}, PCP={pcp}, DCP={dcp}; valid DCP sizes are {valid}.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="with PCP, dcp must be 1, pcp or tp*pcp"),
    Check("PV_dcp_a2a", "0.18.0", "0.28.0",
          when=lambda state: state.dcp_comm_backend == "a2a" and state.dcp <= 1,
          template="dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.",
          source=f"{_S_PARALLEL}::ParallelConfig._validate_parallel_config",
          description="the a2a DCP backend needs dcp > 1"),

    # ===================== ParallelConfig._verify_args ======================
    Check("PA_ray_available", scope="env",
          when=lambda state: state.backend == "ray" and not state.need("ray"),
          bind=lambda state: {"ray_import_err": _RAY_IMPORT_ERR},
          template="Failed to import Ray: {ray_import_err}.Please install Ray with `pip install ray`.",
          source=f"{_S_PARALLEL}::ParallelConfig._verify_args",
          description="the ray executor needs Ray installed (note the missing space)"),
    Check("PA_nsight_without_ray", options=("ray_workers_use_nsight",), scope="feature", when=_pflags.nsight_without_ray,
          template=_pflags.NSIGHT_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._verify_args",
          description="--ray-workers-use-nsight when the workers do not run on the ray executor"),
    Check("PA_dbo_thresholds", "0.30.0", options=("enable_dbo", "ubatch_size"), scope="feature", when=_eopts.dbo_thresholds_low,
          bind=_eopts.dbo_threshold_bind, template=_eopts.DBO_THRESHOLD_MESSAGE,
          source=f"{_S_PARALLEL}::ParallelConfig._verify_args",
          description="microbatching (--enable-dbo: 2 microbatches, else --ubatch-size above 1) with a DBO token "
                      "threshold (default 32 decode, 512 prefill) below the number of microbatches"),

    # ===================== speculative decoding =============================
    # EngineArgs.create_speculative_config, then SpeculativeConfig(**dict) (pydantic field validation,
    # __post_init__, _verify_args); kvguard.speculative.flow builds state.sc (None without a config)
    Step("sc_start", speculative=True, stage="engine_args", apply=_sc.start,
         description="the dict SpeculativeConfig receives: --speculative-config with the --spec-* flags merged "
                     "in (0.22.0+), dashes in its keys as underscores (0.26.0+)"),
    Check("EA_spec_flags", "0.22.0", speculative=True, stage="engine_args", scope="feature",
          when=lambda state: state.sc is not None and state.sc.conflict is not None,
          bind=lambda state: {"flag": state.sc.conflict[0], "key": state.sc.conflict[1]},
          template="{flag} and --speculative-config['{key}'] are mutually exclusive",
          source=f"{_S_ARGS}::EngineArgs.create_speculative_config",
          description="a --spec-* flag and the same --speculative-config key given together"),
    Step("sc_fields", stage="speculative", apply=_sc.validate_fields,
         description="pydantic validates the given keys against the release's SpeculativeConfig fields "
                     "(kvguard/data/speculative.json; all failures at once, a ValidationError for "
                     "SpeculativeConfig; unknown keys refused where the release forbids extra keys)"),
    Step("sc_method", stage="speculative", apply=_sc.infer_method,
         description="the method: a dotted proposer path is custom_class (0.22.0+), no method means "
                     "draft_model / ngram (0.17.0+), deprecated MTP names become mtp (0.11.0+)"),
    Step("sc_model", stage="speculative", apply=_sc.default_model,
         description="num_speculative_tokens without a model: MTP / DSpark read the target's own checkpoint "
                     "(0.10.2: any DeepSeek-V3 / MiMo / ERNIE-4.5-MoE / Qwen3-Next target), ngram names itself"),
    Check("SC_custom_class_model", "0.22.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.custom_no_model,
          template="method='custom_class' requires 'model' to contain the custom proposer module path "
                   "(e.g., 'my_module.MyProposer').",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="method custom_class needs a proposer path as model"),
    Check("SC_tokens_without_model", "0.10.2", "0.10.2", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.no_model,
          template="num_speculative_tokens was provided without speculative model.",
          source="vllm/config/__init__.py::SpeculativeConfig.__post_init__",
          description="num_speculative_tokens with neither a draft model nor a method that supplies one"),
    Check("SC_tokens_without_model", "0.11.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.no_model,
          template="num_speculative_tokens was provided but without speculative model.",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="num_speculative_tokens with neither a draft model nor a method that supplies one"),
    Step("sc_branch", stage="speculative", apply=_sc.branch,
         description="the branch __post_init__ takes (ngram: prompt-lookup defaults 5/5 or one from the other; "
                     "suffix; custom_class; a draft model)"),
    Check("SC_lookup_min", "0.10.2", "0.11.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "ngram" and state.sc.lookup_min < 1,
          bind=lambda state: {"lookup_min": state.sc.lookup_min},
          template="prompt_lookup_min={lookup_min} must be > 0",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="ngram prompt_lookup_min must be positive (a field bound from 0.11.1)"),
    Check("SC_lookup_max", "0.10.2", "0.11.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "ngram" and state.sc.lookup_max < 1,
          bind=lambda state: {"lookup_max": state.sc.lookup_max},
          template="prompt_lookup_max={lookup_max} must be > 0",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="ngram prompt_lookup_max must be positive (a field bound from 0.11.1)"),
    Check("SC_lookup_order", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "ngram" and state.sc.lookup_min > state.sc.lookup_max,
          bind=lambda state: {"lookup_min": state.sc.lookup_min, "lookup_max": state.sc.lookup_max},
          template="prompt_lookup_min={lookup_min} must be <= prompt_lookup_max={lookup_max}",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="ngram prompt_lookup_min must not exceed prompt_lookup_max"),
    Step("sc_target_as_draft", stage="speculative", apply=_sc.target_as_draft,
         description="ngram / custom_class: the draft model and parallel configs are the target's"),
    Check("SC_suffix_import", "0.11.1", stage="speculative", exc="ImportError", scope="env",
          when=lambda state: state.sc is not None and state.sc.branch == "suffix" and not state.need("arctic_inference"),
          template="Arctic Inference is required for suffix decoding. Install via `pip install "
                   "arctic-inference==0.1.1`.",
          source=f"{_S_SPEC}::SpeculativeConfig._validate_suffix_decoding",
          description="suffix decoding needs the arctic-inference package on the host"),
    Step("sc_suffix_default", "0.11.1", stage="speculative", apply=_sc.suffix_default,
         description="suffix decoding: num_speculative_tokens defaults to suffix_decoding_max_tree_depth"),
    Check("SC_suffix_depth", "0.11.1", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "suffix"
          and state.sc.value("suffix_decoding_max_tree_depth", 24) < 1,
          bind=lambda state: {"v": state.sc.value("suffix_decoding_max_tree_depth")},
          template="suffix_decoding_max_tree_depth={v} must be >= 1",
          source=f"{_S_SPEC}::SpeculativeConfig._validate_suffix_decoding",
          description="suffix decoding tree depth must be positive"),
    Check("SC_suffix_cached", "0.11.1", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "suffix"
          and state.sc.value("suffix_decoding_max_cached_requests", 10000) < 0,
          bind=lambda state: {"v": state.sc.value("suffix_decoding_max_cached_requests")},
          template="suffix_decoding_max_cached_requests={v} must be >= 0",
          source=f"{_S_SPEC}::SpeculativeConfig._validate_suffix_decoding",
          description="suffix decoding cache size must not be negative"),
    Check("SC_suffix_factor", "0.11.1", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "suffix"
          and state.sc.value("suffix_decoding_max_spec_factor", 1.0) < 0,
          bind=lambda state: {"v": state.sc.value("suffix_decoding_max_spec_factor")},
          template="suffix_decoding_max_spec_factor={v} must be >= 0",
          source=f"{_S_SPEC}::SpeculativeConfig._validate_suffix_decoding",
          description="suffix decoding spec factor must not be negative"),
    Check("SC_suffix_prob", "0.11.1", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.branch == "suffix"
          and not 0 <= state.sc.value("suffix_decoding_min_token_prob", 0.1) <= 1,
          bind=lambda state: {"v": state.sc.value("suffix_decoding_min_token_prob")},
          template="suffix_decoding_min_token_prob={v} must be in [0, 1]",
          source=f"{_S_SPEC}::SpeculativeConfig._validate_suffix_decoding",
          description="suffix decoding token probability must lie in [0, 1]"),
    Step("sc_draft", stage="speculative", apply=_sc.build_draft,
         description="the draft's ModelConfig: its checkpoint (the target's own for MTP; a path or Hub id "
                     "resolved like the target) through the model facts with SpeculativeConfig's config "
                     "override; vLLM's crash building it is re-raised wrapped by SpeculativeConfig"),
    Step("sc_detect", stage="speculative", apply=_sc.detect_method,
         description="the method from the draft: eagle-/eagle3/dflash/dspark in its name, its model type "
                     "after the override (MTP types), else draft_model"),
    Check("SC_draft_unsupported", "0.10.2", "0.10.2", stage="speculative", exc="NotImplementedError",
          scope="feature", when=lambda state: state.sc is not None and state.sc.unsupported,
          template="Speculative decoding with draft model is not supported yet. Please consider using other "
                   "speculative decoding methods such as ngram, medusa, eagle, or deepseek_mtp.",
          source="vllm/config/__init__.py::SpeculativeConfig.__post_init__",
          description="a draft that is no EAGLE / Medusa / MLP / MTP head is refused"),
    Check("SC_draft_unsupported", "0.11.0", "0.14.1", stage="speculative", exc="NotImplementedError",
          scope="feature", when=lambda state: state.sc is not None and state.sc.unsupported,
          template="Speculative decoding with draft model is not supported yet. Please consider using other "
                   "speculative decoding methods such as ngram, medusa, eagle, or mtp.",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="a draft that is no EAGLE / Medusa / MLP / MTP head is refused"),
    Check("SC_draft_unsupported", "0.15.0", stage="speculative", exc="NotImplementedError",
          scope="feature", when=lambda state: state.sc is not None and state.sc.unsupported,
          template="Unsupported speculative method: '{method}'",
          bind=lambda state: {"method": state.sc.method},
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="the method does not fit the draft (no method detected, not draft_model)"),
    Step("sc_wrap", stage="speculative", apply=_sc.wrap_draft,
         description="EAGLE / EAGLE-3 / DFlash drafts wrapped in EAGLEConfig (architectures Eagle..., "
                     "Eagle3..., DFlash...; looked up in the registry from 0.15.0, whose refusal of a name it does not "
                     "hold is check SC_draft_registry); a DSpark draft other than "
                     "Qwen3DSparkModel rewritten to DeepSeek-V4's DSparkDraftModel (0.25.0+; a qwen3 config naming "
                     "DSparkDraftModel renamed to Qwen3DSparkModel from 0.29.0); DFlash / DSpark "
                     "draft in parallel; num_speculative_tokens defaults to the draft's n_predict (DSpark, 0.31.0+: its "
                     "block_size / dspark_block_size)"),
    Check("SC_n_predict", stage="speculative", scope="feature", when=_sc.n_predict_indivisible,
          bind=lambda state: {"num": state.sc.num, "n_predict": state.sc.n_predict},
          template="num_speculative_tokens:{num} must be divisible by n_predict={n_predict!r}",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="more speculative tokens than MTP layers must be a multiple of them"),
    Check("SC_token_tree", "0.10.2", "0.16.0", stage="speculative", exc="TypeError", scope="feature",
          when=_sc.tree_type_error, bind=lambda state: {"kind": type(state.sc.num).__name__},
          template="'{kind}' object cannot be interpreted as an integer",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="a draft without num_speculative_tokens (nor n_predict): the default token tree "
                      "crashes on range(None)"),
    Check("SC_token_tree", "0.17.0", "0.20.2", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.draft is not None and not state.sc.unsupported
          and state.sc.num is None,
          template="A speculative model was provided, but neither `speculative_token_tree` nor "
                   "`num_speculative_tokens` was provided",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="a draft needs num_speculative_tokens (or n_predict in its config)"),
    Check("SC_token_tree", "0.21.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.draft is not None and not state.sc.unsupported
          and state.sc.num is None,
          template="A speculative model was provided, but `num_speculative_tokens` was not provided",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="a draft needs num_speculative_tokens (or n_predict in its config)"),
    Check("SC_dspark_block", "0.26.0", "0.27.1", stage="speculative", scope="feature",
          when=_sc.dspark_block_too_small,
          bind=lambda state: {"block": _sc.draft_attr(state, "dspark_block_size"), "num": state.sc.num},
          template="DSpark requires num_speculative_tokens >= dspark_block_size ({block}); got {num}. Smaller "
                   "values produce incorrect output. Use num_speculative_tokens={block} or larger (e.g. 7).",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="a DSpark draft needs at least its dspark_block_size speculative tokens"),
    Check("SC_dspark_topk", "0.28.0", stage="speculative", scope="feature",
          when=lambda state: _sc.dspark_topk_refusal(state) is not None,
          bind=lambda state: {"reason": _sc.dspark_topk_refusal(state)},
          template="{reason}",
          source=f"{_S_SPEC}::SpeculativeConfig.__post_init__",
          description="the DSpark draft's dspark_draft_topk: within [1, draft vocabulary], Qwen3DSparkModel only "
                      "(0.29.0+: or Qwen3OmniDSparkModel)"),
    Step("sc_draft_tp", stage="speculative", apply=_sc.draft_tp,
         description="the draft's tensor-parallel size: the target's unless draft_tensor_parallel_size"),
    Check("SC_draft_tp", stage="speculative", when=_sc.draft_tp_invalid,
          bind=lambda state: {"draft_tp": state.sc.draft_tp},
          template="speculative_draft_tensor_parallel_size={draft_tp} cannot be other value than 1 or target "
                   "model tensor_parallel_size",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_and_get_draft_tp",
          description="draft_tensor_parallel_size must be 1 or the target's tp"),
    Step("sc_draft_parallel", stage="speculative", apply=_sc.draft_parallel,
         description="the draft's ParallelConfig: pp = the target's up to 0.29.0 (1 from 0.30.0); expert "
                     "parallel off up to 0.29.0, the target's in 0.30.0, the target's for a MoE draft from 0.31.0"),
    Check("SC_tp_key", "0.15.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.value("tensor_parallel_size") is not None,
          template="'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
                   "'draft_tensor_parallel_size' instead.",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="tensor_parallel_size in --speculative-config (draft_tensor_parallel_size is meant)"),
    Check("SC_tokens_required", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.num is None,
          template="num_speculative_tokens must be provided with speculative model unless the draft model "
                   "config contains an n_predict parameter.",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="num_speculative_tokens is required (unless the draft config has n_predict)"),
    Check("SC_tokens_positive", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.num <= 0,
          bind=lambda state: {"num": state.sc.num},
          template="Expected num_speculative_tokens to be greater than zero ({num}).",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="num_speculative_tokens must be positive"),
    Step("sc_draft_verify", stage="speculative", apply=_sc.verify_draft,
         description="the draft's verify_with_parallel_config with the draft's ParallelConfig: the MC_* "
                     "checks below on the draft (heads % draft tp, expert parallelism without experts, "
                     "pipeline parallelism without SupportsPP in the release's registry); for ngram the "
                     "target's own checks, raised here (wrapped by SpeculativeConfig); check id "
                     "SC_draft_verify(MC_...)"),
    Check("SC_disable_by_batch", "0.10.2", "0.11.0", stage="speculative", scope="feature",
          when=lambda state: state.sc is not None and state.sc.value("disable_by_batch_size") is not None
          and state.sc.value("disable_by_batch_size") < 2,
          bind=lambda state: {"v": state.sc.value("disable_by_batch_size")},
          template="Expect the batch size threshold of disabling speculative decoding is > 1, but got "
                   "self.disable_by_batch_size={v!r}",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="disable_by_batch_size must exceed 1 (a field bound in 0.11.1 - 0.16.0)"),
    Check("SC_eagle3_target", "0.10.2", "0.16.0", stage="speculative", scope="feature",
          when=_sc.eagle3_unsupported_target, bind=_sc.eagle3_bind,
          template="Eagle3 is only supported for {supported} models. Got "
                   "self.target_model_config.hf_text_config.model_type={target_type}",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="EAGLE-3 only for the target model types the release lists"),
    Check("SC_eagle3_target", "0.17.0", "0.21.0", stage="speculative", scope="feature",
          when=_sc.eagle3_unsupported_target, bind=_sc.eagle3_bind,
          template="{method} is only supported for {supported} models. Got "
                   "self.target_model_config.hf_text_config.model_type={target_type}",
          source=f"{_S_SPEC}::SpeculativeConfig._verify_args",
          description="EAGLE-3 / hidden-state methods only for the target model types the release lists"),
    Check("SC_vocab", "0.15.0", stage="speculative", scope="feature",
          when=_sc.vocab_mismatch, bind=_sc.vocab_bind,
          template="Target and draft model should have the same vocabulary size. Target model "
                   "vocab_size={target_vocab}. Draft model vocab_size={draft_vocab}. Using models with "
                   "different tokenizers can cause out-of-bounds errors during speculative decoding.",
          source=f"{_S_SPEC}::SpeculativeConfig.verify_equal_vocab_size_if_draft_model",
          description="a draft_model draft must share the target's vocabulary size"),
    Step("ea_lookahead_slots", "0.10.2", "0.11.0", speculative=True, stage="engine_args", apply=_sc.lookahead_slots,
         description="SchedulerConfig(num_lookahead_slots=num_speculative_tokens): a token count that is no "
                     "integer (not validated by SpeculativeConfig here) is refused by SchedulerConfig's int "
                     "field (ValidationError for SchedulerConfig)"),

    # ===================== SchedulerConfig (kvguard.rules.scheduler) ========
    Step("sch_field_bounds", stage="scheduler", apply=_scheduler.field_bounds,
         description="SchedulerConfig's pydantic field bounds (max_num_batched_tokens and max_num_seqs at least 1 "
                     "from 0.11.1, max_num_active_seqs at least 1, the long-prefill threshold at least 0 from "
                     "0.25.0, num_lookahead_slots at least 0 on 0.11.1-0.11.2; and the options kvguard otherwise "
                     "passes over: --max-num-scheduled-tokens at least 0 on 0.26.0-0.31.0 and 1 from 0.32.0, "
                     "--max-num-queued-reqs / -tokens at least 0 from 0.29.0, --watermark in [0, 1) and "
                     "--prefill-schedule-interval at least 1 from 0.24.0, --stream-interval at least 1 from "
                     "0.11.1): a ValidationError for SchedulerConfig, an error per value out of bounds in "
                     "declaration order ('Input should be greater than or equal to 1'); a non-finite watermark is "
                     "undecidable"),
    Check("SCH_batched_below_len", stage="scheduler", scope="feature",
          when=_scheduler.batched_below_length, bind=_scheduler.length_bind, template=_scheduler.LENGTH_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig.verify_max_model_len",
          description="--max-num-batched-tokens below the maximum length without chunked prefill"),
    Check("SCH_batched_below_seqs", stage="scheduler", scope="feature",
          when=_scheduler.batched_below_seqs, bind=_scheduler.seqs_bind, template=_scheduler.SEQS_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig.verify_max_model_len",
          description="--max-num-batched-tokens below --max-num-seqs"),
    Check("SCH_active_above_seqs", "0.31.0", stage="scheduler", scope="feature",
          when=_scheduler.active_above_seqs, bind=_scheduler.active_bind, template=_scheduler.ACTIVE_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig.verify_max_model_len",
          description="--max-num-active-seqs above --max-num-seqs"),
    Check("SCH_lookahead_negative", "0.10.2", "0.11.0", options=("num_lookahead_slots",), stage="scheduler",
          scope="feature", when=_scheduler.lookahead_negative, bind=_scheduler.lookahead_bind,
          template=_scheduler.LOOKAHEAD_MESSAGE, source="vllm/config/scheduler.py::SchedulerConfig._verify_args",
          description="--num-lookahead-slots below 0 without a speculative config (whose slot count replaces it); "
                      "0.11.1+: the field's bound (pydantic, undecidable)"),
    Check("SCH_partial_below_one", "0.10.2", "0.11.0", stage="scheduler", scope="feature",
          when=_scheduler.partial_below_one, bind=_scheduler.partial_bind, template=_scheduler.PARTIAL_MIN_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig._verify_args",
          description="--max-num-partial-prefills below 1 (reached on 0.10.2's V0 engine and on 0.11.0 without "
                      "VLLM_USE_V1=1: kvguard.rules.v1_features)"),
    Check("SCH_partial_needs_chunked", "0.10.2", "0.11.0", stage="scheduler", scope="feature",
          when=_scheduler.partial_needs_chunked, template=_scheduler.PARTIAL_CHUNKED_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig._verify_args",
          description="--max-num-partial-prefills above 1 without chunked prefill"),
    Check("SCH_threshold_with_partial", "0.10.2", "0.11.0", stage="scheduler", scope="feature",
          when=_scheduler.threshold_above_length_with_partial, bind=_scheduler.threshold_bind,
          template=_scheduler.THRESHOLD_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig._verify_args",
          description="--long-prefill-token-threshold above the maximum length with concurrent partial prefills"),
    Check("SCH_long_partial_range", "0.10.2", "0.11.0", stage="scheduler", scope="feature",
          when=_scheduler.long_partial_out_of_range, bind=_scheduler.partial_bind,
          template=_scheduler.LONG_PARTIAL_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig._verify_args",
          description="--max-long-partial-prefills below 1 or above --max-num-partial-prefills"),
    Check("SCH_threshold_above_len", "0.27.0", stage="scheduler", scope="feature",
          when=_scheduler.threshold_above_length, bind=_scheduler.threshold_bind,
          template=_scheduler.THRESHOLD_MESSAGE,
          source="vllm/config/scheduler.py::SchedulerConfig.verify_max_model_len",
          description="--long-prefill-token-threshold above the maximum length"),

    # ===================== EngineArgs.create_engine_config, after SchedulerConfig =====
    Check("EA_default_mm_loras", options=("default_mm_loras",), stage="engine_args", scope="feature",
          when=_late.default_mm_loras_text_only, template=_late.DEFAULT_MM_LORAS_MESSAGE,
          source=f"{_S_ARGS}::EngineArgs.create_engine_config, right after SchedulerConfig",
          description="--default-mm-loras (any value JSON reads as true) for a model without multimodal input, "
                      "with or without --enable-lora"),
    Step("ea_lora_config_values", options=("default_mm_loras_problem",), stage="engine_args", apply=_late.lora_value_problem,
         description="with --enable-lora, a --default-mm-loras that is no mapping of strings: LoRAConfig refuses it "
                     "with pydantic's message (undecidable)"),
    # LoRAConfig(...), built with --enable-lora only (kvguard.rules.lora_config)
    Check("LORA_max_lora_rank", "0.10.2", "0.11.0", options=("lora_max_lora_rank",), stage="lora", scope="feature",
          when=_lora.rank_refused, bind=_lora.rank_bind, template=_lora.RANK_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig.__post_init__",
          description="--enable-lora with a --max-lora-rank outside (8, 16, 32, 64, 128, 256, 320, 512)"),
    Check("LORA_extra_vocab_size", "0.10.2", "0.11.0", options=("lora_extra_vocab_size",), stage="lora",
          scope="feature", when=_lora.extra_vocab_refused, bind=_lora.extra_vocab_bind,
          template=_lora.EXTRA_VOCAB_MESSAGE, source="vllm/config/lora.py::LoRAConfig.__post_init__",
          description="--enable-lora with a --lora-extra-vocab-size other than 256 or 512"),
    Check("LORA_max_loras", "0.10.2", "0.11.0", options=("lora_max_loras",), stage="lora", scope="feature",
          when=_lora.max_loras_below_one, bind=_lora.max_loras_bind, template=_lora.MAX_LORAS_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig.__post_init__",
          description="--enable-lora with --max-loras below 1 (0.11.1+: a field bound, lora_field_bounds)"),
    # 0.11.1+: the pydantic field bounds, before the model validator's checks
    Step("lora_field_bounds", "0.11.1", options=("lora_max_loras_out_of_bounds",
                                                 "lora_max_lora_cls_labels_out_of_bounds"),
         stage="lora", apply=_lora.field_bounds,
         description="--enable-lora with --max-loras / (0.31.0+) --max-lora-cls-labels below 1: a ValidationError "
                     "for LoRAConfig ('Input should be greater than or equal to 1'), an error per field in "
                     "declaration order"),
    Check("LORA_max_cpu_loras_0_10", "0.10.2", "0.13.0", options=("lora_max_cpu_loras",), stage="lora",
          scope="feature", when=_lora.cpu_loras_below, bind=_lora.cpu_loras_bind,
          template=_lora.CPU_LORAS_MESSAGE_0_10, source="vllm/config/lora.py::LoRAConfig.__post_init__",
          description="--enable-lora with a --max-cpu-loras above 0 below --max-loras"),
    Check("LORA_max_cpu_loras", "0.14.0", options=("lora_max_cpu_loras",), stage="lora", scope="feature",
          when=_lora.cpu_loras_below, bind=_lora.cpu_loras_bind, template=_lora.CPU_LORAS_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig._validate_lora_config",
          description="--enable-lora with a --max-cpu-loras above 0 below --max-loras"),
    Check("LORA_dual_stream_platform", "0.20.0", options=("enable_lora",), stage="lora", scope="env",
          when=_lora.dual_stream_off_cuda, template=_lora.DUAL_STREAM_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig._validate_lora_config",
          description="--enable-lora with VLLM_LORA_ENABLE_DUAL_STREAM set on a platform other than CUDA / ROCm"),
    # --attention-backend into AttentionBackendEnum (kvguard.rules.backend_names)
    Check("EA_attention_backend_twice", "0.13.0", stage="engine_args", scope="feature",
          when=_backend_names.backend_given_twice, template=_backend_names.EXCLUSIVE_MESSAGE,
          source=f"{_S_ARGS}::EngineArgs.create_engine_config",
          description="--attention-backend with --attention-config setting backend too"),
    Check("EA_attention_backend_unknown", "0.13.0", stage="engine_args", scope="feature",
          when=_backend_names.unknown_attention_backend, bind=_backend_names.unknown_bind,
          template=_backend_names.UNKNOWN_MESSAGE,
          source="vllm/v1/attention/backends/registry.py::AttentionBackendEnum (0.13.0: "
                 "vllm/attention/backends/registry.py), from EngineArgs.create_engine_config",
          description="--attention-backend names no backend of the release (kvguard/data/backend_names.json)"),

    # --mamba-backend into MambaBackendEnum (kvguard.rules.mamba_rounding)
    Check("EA_mamba_backend_unknown", "0.20.0", options=("mamba_backend",), stage="engine_args", scope="feature",
          when=_mamba_rounding.unknown_backend, bind=_mamba_rounding.backend_bind,
          template=_mamba_rounding.BACKEND_MESSAGE,
          source="vllm/config/mamba.py::_MambaBackendEnumMeta.__getitem__, from EngineArgs.create_engine_config",
          description="--mamba-backend names no member of MambaBackendEnum"),
    Check("EA_mamba_ssu_algorithm", "0.27.0", options=("mamba_ssu_algorithm",), stage="engine_args", scope="feature",
          when=_mamba_rounding.ssu_algorithm_without_flashinfer, template=_mamba_rounding.SSU_ALGORITHM_MESSAGE,
          source="vllm/config/mamba.py::MambaConfig.validate_ssu_algorithm, from EngineArgs.create_engine_config",
          description="--mamba-ssu-algorithm with a Mamba backend other than FlashInfer (a raw ValueError: the "
                      "engine arguments call the check on their copy of MambaConfig)"),

    # LoadConfig's field bounds (kvguard.rules.late_bounds), built after the Mamba and kernel configs' checks
    Step("load_prefetch_bounds", "0.21.0", options=("safetensors_prefetch_num_threads_out_of_bounds",
                                                    "safetensors_prefetch_block_size_out_of_bounds"),
         stage="load", apply=_late_bounds.load_prefetch_bounds,
         description="--safetensors-prefetch-num-threads / --safetensors-prefetch-block-size below 1: a "
                     "ValidationError for LoadConfig ('Input should be greater than or equal to 1'), an error per "
                     "field in declaration order"),
    # DecodingConfig.__post_init__ (0.10.2; kvguard.rules.engine_options), built after the load config
    Check("DC_any_whitespace", "0.10.2", "0.10.2", options=("guided_decoding_disable_any_whitespace",),
          stage="decoding", scope="feature", when=_eopts.whitespace_unsupported, template=_eopts.WHITESPACE_MESSAGE,
          source="vllm/config/__init__.py::DecodingConfig.__post_init__",
          description="--guided-decoding-disable-any-whitespace with a --guided-decoding-backend other than "
                      "xgrammar or guidance (auto by default)"),
    Check("DC_additional_properties", "0.10.2", "0.10.2", options=("guided_decoding_disable_additional_properties",),
          stage="decoding", scope="feature", when=_eopts.additional_properties_unsupported,
          template=_eopts.ADDITIONAL_PROPERTIES_MESSAGE,
          source="vllm/config/__init__.py::DecodingConfig.__post_init__",
          description="--guided-decoding-disable-additional-properties with a --guided-decoding-backend other than "
                      "guidance"),
    # ObservabilityConfig (kvguard.rules.observability): its field validators in field order, then its model validator
    Check("OBS_hidden_metrics_version", "0.11.1", options=("show_hidden_metrics_for_version",), stage="observability", exc="InvalidVersion", scope="feature",
          when=_obs.hidden_metrics_version_invalid, template=_obs.VERSION_MESSAGE,
          source="vllm/config/observability.py::ObservabilityConfig._validate_show_hidden_metrics_for_version",
          description="--show-hidden-metrics-for-version is no version (packaging's InvalidVersion, wrapped by "
                      "ObservabilityConfig)"),
    Step("obs_otlp_endpoint_late", "0.11.1", options=("otlp_traces_endpoint",), stage="observability", apply=_obs.otlp_endpoint,
         description="--otlp-traces-endpoint needs OpenTelemetry: a dependency from 0.17.0 (passes); before, an "
                     "optional extra whose absence is refused quoting the host's traceback (undecidable)"),
    Step("obs_trace_modules", options=("collect_detailed_traces",), stage="observability", apply=_obs.trace_modules,
         description="--collect-detailed-traces values other than model / worker / all: pydantic's message names "
                     "the host's pydantic version, so kvguard declines"),
    Step("obs_metrics_sample_bound", "0.12.0", stage="observability", apply=_obs.metrics_sample_bound,
         description="--kv-cache-metrics-sample outside (0, 1]: a ValidationError for ObservabilityConfig ('Input "
                     "should be greater than 0' / 'less than or equal to 1'); beside --custom-histogram-buckets or a "
                     "non-finite value, undecidable"),
    Step("obs_otlp_endpoint_early", "0.10.2", "0.11.0", options=("otlp_traces_endpoint",), stage="observability", apply=_obs.otlp_endpoint,
         description="ObservabilityConfig.__post_init__: --otlp-traces-endpoint needs OpenTelemetry, an optional "
                     "extra of these releases (undecidable)"),
    Check("OBS_traces_without_endpoint", "0.11.1", options=("collect_detailed_traces",), stage="observability", scope="feature",
          when=_obs.traces_without_endpoint, template=_obs.TRACES_MESSAGE,
          source="vllm/config/observability.py::ObservabilityConfig._validate_tracing_config",
          description="--collect-detailed-traces without --otlp-traces-endpoint"),

    # OffloadConfig's model validator (kvguard.rules.engine_options), built after ObservabilityConfig
    Check("OFF_prefetch_group", "0.17.0", options=("offload_backend", "offload_group_size", "offload_num_in_group", "offload_prefetch_step"), stage="offload", scope="feature", when=_eopts.offload_group_invalid,
          bind=_eopts.offload_group_bind, template=_eopts.OFFLOAD_GROUP_MESSAGE,
          source="vllm/config/offload.py::OffloadConfig.validate_offload_config",
          description="prefetch offloading (--offload-backend prefetch or --offload-group-size above 0) with more "
                      "layers offloaded per group (--offload-num-in-group, default 1) than the group holds"),
    Check("OFF_prefetch_step", "0.17.0", options=("offload_backend", "offload_group_size", "offload_num_in_group", "offload_prefetch_step"), stage="offload", scope="feature", when=_eopts.offload_step_invalid,
          bind=_eopts.offload_step_bind, template=_eopts.OFFLOAD_STEP_MESSAGE,
          source="vllm/config/offload.py::OffloadConfig.validate_offload_config",
          description="prefetch offloading with --offload-prefetch-step 0"),
    # after OffloadConfig, the KDA prefill kernel's platform (kvguard.rules.host_options)
    Check("EA_kda_prefill_platform", "0.30.0", options=("kda_prefill_backend",), stage="engine_args", scope="env",
          when=_host.kda_prefill_off_platform, bind=_host.kda_prefill_bind, template=_host.KDA_PREFILL_MESSAGE,
          source=f"{_S_ARGS}::EngineArgs.create_engine_config (after OffloadConfig, before VllmConfig)",
          description="--kda-prefill-backend flashkda off CUDA, or fused off ROCm"),

    # VllmConfig's field validation, before __post_init__ (kvguard.rules.late_bounds)
    Step("vc_shutdown_timeout_bound", "0.18.0", options=("shutdown_timeout_out_of_bounds",), stage="verify",
         apply=_late_bounds.shutdown_timeout_bound,
         description="--shutdown-timeout below 0: a ValidationError for VllmConfig ('Input should be greater than or "
                     "equal to 0')"),
    # VllmConfig.__post_init__'s first statement (0.29.0+), after its fields' validation
    Check("VC_ec_producer_text_model", "0.29.0", options=("ec_producer_only",), stage="verify", scope="feature",
          when=_ec_producer_text_model, template=EC_PRODUCER_TEXT_MODEL,
          source="vllm/config/vllm.py::VllmConfig._resolve_mm_encoder_only (first in __post_init__; "
                 "ECTransferConfig.is_encode_only in vllm/config/ec_transfer.py)",
          description="--ec-transfer-config with an ec_connector and ec_role ec_producer (a producer, not ec_both) "
                      "for a model whose class takes no multimodal input (no MultiModalConfig)"),

    # ===================== VllmConfig.__post_init__ ==========================
    # 0.30.0+: what forces Model Runner V2 before the variable (kvguard.rules.late_options), first: where vLLM reads it
    # and checks HiSparse / the watermark's speculative decoding is not modelled, so nothing later is decided
    Step("vc_hisparse", "0.30.0", options=("hisparse",), stage="verify", apply=_late.hisparse_unmodelled,
         description="HiSparse (--attention-config hisparse_config or the HiSparseConnector): V2 forced, "
                     "VLLM_USE_V2_MODEL_RUNNER=0 refused, its platform / PP / DCP / DSA-model checks (undecidable)"),
    Step("vc_watermark_speculative", "0.30.0", options=("watermark_config",), speculative=True, stage="verify",
         apply=_late.watermark_with_speculative,
         description="--watermark-config with speculative decoding: _check_supports_watermarking reads the draft's "
                     "options (undecidable)"),
    Step("vc_structured_reasoning_parser", "0.11.0", options=("structured_reasoning_parser",), stage="verify", apply=_parsers.structured_reasoning_in_engine,
         description="without an API server, a reasoning parser the release does not register named by "
                     "--structured-outputs-config (and no --reasoning-parser replacing it): the engine's lookup is "
                     "not modelled (undecidable)"),
    # (0.11.1 - 0.12.0: VllmConfig validates the StructuredOutputsConfig create_engine_config gave --reasoning-parser)
    Check("VC_reasoning_parser", "0.11.1", "0.12.0", stage="verify", scope="feature",
          when=_parsers.unknown_reasoning_parser, bind=_parsers.reasoning_config_bind,
          template=_parsers.REASONING_CONFIG_MESSAGE,
          source="vllm/config/structured_outputs.py::StructuredOutputsConfig._validate_structured_output_config",
          description="a --reasoning-parser the release does not register (kvguard/data/parser_names.json; a "
                      "--reasoning-parser-plugin: undecidable)"),
    Check("VC_any_whitespace", "0.11.1", "0.11.2", options=("guided_decoding_disable_any_whitespace",),
          stage="verify", scope="feature", when=_eopts.whitespace_unsupported, template=_eopts.WHITESPACE_MESSAGE,
          source="vllm/config/structured_outputs.py::StructuredOutputsConfig._validate_structured_output_config",
          description="--guided-decoding-disable-any-whitespace (type=bool: any word but '' is true) without the "
                      "xgrammar or guidance backend of --structured-outputs-config (--guided-decoding-backend is "
                      "not read)"),
    Check("VC_additional_properties", "0.11.1", "0.11.2", options=("guided_decoding_disable_additional_properties",),
          stage="verify", scope="feature", when=_eopts.additional_properties_unsupported,
          template=_eopts.ADDITIONAL_PROPERTIES_MESSAGE,
          source="vllm/config/structured_outputs.py::StructuredOutputsConfig._validate_structured_output_config",
          description="--guided-decoding-disable-additional-properties (type=bool) without the guidance backend of "
                      "--structured-outputs-config"),
    # try_verify_and_update_config: a Mamba / hybrid model's cache set-up (kvguard.rules.mamba_cache)
    Check("VC_mamba_chunked_prefill", "0.15.0", "0.31.0", stage="verify", exc="AssertionError", scope="feature",
          when=_mamba.chunked_prefill_refused_in_align_mode,
          template="Chunked prefill is required for mamba cache mode 'align'.",
          source=f"{_S_MODELS_CONFIG}::MambaModelConfig.verify_and_update_config",
          description="--no-enable-chunked-prefill on a Mamba / hybrid model with prefix caching on (by default "
                      "for hybrid models from 0.28.0) and the Mamba cache mode 'align'"),
    Check("VC_mamba_chunked_prefill", "0.32.0", "0.32.0", stage="verify", exc="AssertionError", scope="feature",
          when=_mamba.chunked_prefill_refused,
          template="Chunked prefill is required for mamba cache mode 'align'.",
          source=f"{_S_MODELS_CONFIG}::MambaModelConfig.verify_and_update_config",
          description="--no-enable-chunked-prefill on a Mamba / hybrid model with prefix caching on (by default "
                      "for hybrid models), in every Mamba cache mode"),
    Check("VC_mamba_chunked_prefill", "0.33.0", stage="verify", exc="AssertionError", scope="feature",
          when=_mamba.chunked_prefill_refused,
          template="Chunked prefill is required for Mamba prefix caching.",
          source=f"{_S_MODELS_CONFIG}::MambaModelConfig.verify_and_update_config",
          description="--no-enable-chunked-prefill on a Mamba / hybrid model with prefix caching on (by default "
                      "for hybrid models)"),
    Check("VC_mamba_align_spec", "0.15.0", "0.16.0", stage="verify", exc="AssertionError", scope="feature",
          when=_mamba.speculative_refused,
          template="Mamba cache mode 'align' is currently not compatible with speculative decoding.",
          source=f"{_S_MODELS_CONFIG}::MambaModelConfig.verify_and_update_config",
          description="speculative decoding on a Mamba / hybrid model with prefix caching on and the Mamba cache "
                      "mode 'align'"),
    # HybridAttentionMambaModelConfig's page sizing: the model class's Mamba state shapes (kvguard.rules.mamba_state)
    Check("VC_mamba_state_tp", "0.10.2", "0.19.1", stage="verify", exc="AssertionError",
          when=_mamba_state.indivisible_state, bind=_mamba_state.state_bind,
          template="{numerator} is not divisible by {denominator}",
          source=f"{_S_MODELS_CONFIG}::HybridAttentionMambaModelConfig.verify_and_update_config",
          description="a hybrid model's Mamba state sizes (convolution width, Mamba / value heads of Qwen3-Next, "
                      "Qwen3.5, Jamba, Granite 4, Bamba, Nemotron-H, Zamba2, Falcon-H1, LFM2) must divide by tp; "
                      "other hybrid architectures at tp > 1 are undecidable"),
    Check("MC_heads_tp", stage="verify",
          when=lambda state: state.heads % state.tp != 0,
          template="Total number of attention heads ({heads}) must be divisible by tensor parallel size "
                   "({tp}).",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="attention heads must be a multiple of tp"),
    Check("MC_ep_needs_moe", "0.10.2", "0.13.0", stage="verify",
          when=lambda state: state.ep and state.num_experts < 1,
          template="Number of experts in the model must be greater than 0 when expert parallelism is "
                   "enabled.",
          source=f"{_S_MODEL}::ModelConfig._verify_with_expert_parallelism",
          description="expert parallelism needs a MoE model"),
    Check("MC_ep_needs_moe", "0.14.0", stage="verify",
          when=lambda state: state.ep and not state.is_moe,
          template="Number of experts in the model must be greater than 0 when expert parallelism is "
                   "enabled.",
          source=f"{_S_MODEL}::ModelConfig._verify_with_expert_parallelism",
          description="expert parallelism needs a MoE model"),
    Check("MC_pp_unsupported", stage="verify", exc="NotImplementedError",
          when=lambda state: state.pp > 1 and not state.supports_pp,
          template="Pipeline parallelism is not supported for this model. Supported models implement the "
                   "`SupportsPP` interface.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="PP needs a model class implementing SupportsPP"),
    Check("MC_dcp_tp_gt_kv", "0.11.1", "0.26.0", stage="verify", exc="AssertionError",
          when=lambda state: _dcp_guard(state) and not (state.tp > state.kv_heads),
          template="tensor parallel size {tp} must be greater than total num kv heads {kv_heads} when "
                   "enable decode context parallel for GQA/MQA",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="DCP on a GQA/MQA model needs tp > KV heads"),
    Check("MC_dcp_tp_gt_kv", "0.27.0", stage="verify", unless_patch="pr55030",
          when=lambda state: _dcp_guard(state) and state.tp <= state.kv_heads,
          template="Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to "
                   "be greater than the model's total number of KV heads ({kv_heads}). Increase "
                   "`--tensor-parallel-size` or set `--decode-context-parallel-size 1`.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="DCP on a GQA/MQA model needs tp > KV heads"),
    Check("MC_dcp_tp_gt_kv", "0.28.0", stage="verify", patch="pr55030",
          when=lambda state: _dcp_guard(state) and _pr_max_dcp(state) >= 0 and state.tp <= state.kv_heads and state.pcp <= 1,
          template="Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to "
                   "be greater than the model's total number of KV heads ({kv_heads}), or "
                   "`--prefill-context-parallel-size` ({pcp}) to be greater than 1. Increase "
                   "`--tensor-parallel-size` or `--prefill-context-parallel-size`, or set "
                   "`--decode-context-parallel-size 1`.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config (PR 55030)",
          description="DCP on a GQA/MQA model needs tp > KV heads or PCP > 1"),
    Check("MC_dcp_max", "0.11.1", "0.26.0", stage="verify", exc="AssertionError",
          when=lambda state: _dcp_guard(state) and not (state.dcp <= _max_tp_dcp(state)),
          bind=lambda state: {"max_dcp_size": _max_tp_dcp(state)},
          template="decode context parallel size must less than or equal to (tensor parallel size {tp} "
                   "// total num kv heads {kv_heads}) = {max_dcp_size}, but got {dcp}",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="dcp is capped at tp // KV heads"),
    Check("MC_dcp_max", "0.27.0", stage="verify", unless_patch="pr55030",
          when=lambda state: _dcp_guard(state) and state.dcp > _max_tp_dcp(state),
          bind=lambda state: {"max_dcp_size": _max_tp_dcp(state)},
          template="`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value "
                   "({max_dcp_size}) for `--tensor-parallel-size` ({tp}) and {kv_heads} model KV heads.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="dcp is capped at tp // KV heads"),
    Check("MC_dcp_max", "0.28.0", stage="verify", patch="pr55030",
          when=lambda state: _dcp_guard(state) and state.dcp > _pr_max_dcp(state),
          bind=lambda state: {"max_dcp_size": _pr_max_dcp(state)},
          template="`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value "
                   "({max_dcp_size}) for `--tensor-parallel-size` ({tp}), "
                   "`--prefill-context-parallel-size` ({pcp}), and {kv_heads} model KV heads.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config (PR 55030)",
          description="dcp is capped at max(1, tp // KV heads) * pcp"),
    Check("MC_dcp_qperkv", "0.11.1", "0.26.0", stage="verify", exc="AssertionError",
          when=lambda state: _dcp_guard(state) and not ((state.heads // state.kv_heads) % state.dcp == 0),
          bind=lambda state: {"num_q_per_kv": state.heads // state.kv_heads},
          template="Total number of q per kv attn heads ({num_q_per_kv}) must be divisible by dcp world "
                   "size when enable decode context parallel for GQA ({dcp}).",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="query heads per KV head must be a multiple of dcp"),
    # PR 55030 leaves this check as it is: the PR branch divides by the full dcp too (its
    # description's `dcp // pcp` is not in the code)
    Check("MC_dcp_qperkv", "0.27.0", stage="verify",
          when=lambda state: _dcp_guard(state) and (state.heads // state.kv_heads) % state.dcp != 0,
          bind=lambda state: {"num_q_per_kv": state.heads // state.kv_heads},
          template="The model's number of query heads per KV head ({num_q_per_kv}) must be divisible by "
                   "`--decode-context-parallel-size` ({dcp}) for GQA/MQA.",
          source=f"{_S_MODEL}::ModelConfig.verify_with_parallel_config",
          description="query heads per KV head must be a multiple of dcp"),
    Check("CC_swap_space", "0.10.2", "0.13.0", stage="verify", scope="env",
          when=lambda state: _swap_usage(state) > 0.7 * state.need("cpu_memory_bytes"),
          bind=lambda state: {"usage": f"{_swap_usage(state) / GIB:.2f}", "total": f"{state.host.cpu_memory_bytes / GIB:.2f}"},
          template="Too large swap space. {usage} GiB out of the {total} GiB total CPU memory is allocated for "
                   "the swap space.",
          source="vllm/config/cache.py::CacheConfig.verify_with_parallel_config",
          description="tp x --swap-space must stay within 70% of the host's CPU memory"),
    Check("CC_swap_space", "0.14.0", "0.17.1", stage="verify", scope="env",
          when=lambda state: _swap_usage(state) > 0.7 * state.need("cpu_memory_bytes"),
          bind=lambda state: {"usage": _format_gib(_swap_usage(state)), "total": _format_gib(state.host.cpu_memory_bytes)},
          template="Too large swap space. {usage} GiB out of the {total} GiB total CPU memory is allocated for "
                   "the swap space.",
          source="vllm/config/cache.py::CacheConfig.verify_with_parallel_config",
          description="tp x --swap-space must stay within 70% of the host's CPU memory"),
    # 0.22.0-0.30.0 check --enable-return-routed-experts right after verify_with_parallel_config, before the
    # quantization config and async scheduling
    Check("VC_routed_experts_pp", "0.22.0", "0.30.0", stage="verify", scope="feature",
          when=lambda state: state.routed_experts and state.pp > 1,
          template="--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="returning routed experts is incompatible with PP"),
    Check("VC_routed_experts_cp", "0.28.0", "0.30.0", stage="verify", scope="feature",
          when=lambda state: state.routed_experts and (state.dcp > 1 or state.pcp > 1),
          template="--enable-return-routed-experts is incompatible with context parallelism (DCP > 1 or "
                   "PCP > 1).",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="returning routed experts is incompatible with DCP/PCP"),
    # any role of a named connector is a KV transfer instance; --kv-offloading-size configures its connector later
    # (_post_init_kv_transfer_config)
    Check("VC_routed_experts_kv_connector", "0.22.0", "0.30.0", options=("enable_return_routed_experts",),
          stage="verify", scope="feature",
          when=lambda state: state.routed_experts and state.layout.kv_connector is not None,
          template="--enable-return-routed-experts is incompatible with KV connectors (PD disaggregation, KV cache "
                   "offload).",
          source=f"{_S_VLLM}::VllmConfig.__post_init__ (KVTransferConfig.is_kv_transfer_instance)",
          description="returning routed experts is incompatible with a --kv-transfer-config connector"),
    # _verify_sampling_replay_config / _verify_trace_replay_config (kvguard.rules.late_options)
    Check("VC_sampling_mask_mrv2", "0.28.0", options=("return_sampling_mask",), stage="verify", scope="env",
          when=lambda state: _late.sampling_mask_without_mrv2(state, _runner), template=_late.SAMPLING_MASK_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig._verify_sampling_replay_config",
          description="--return-sampling-mask without the V2 model runner (VLLM_USE_V2_MODEL_RUNNER=0, or the "
                      "default's fallback; on V2 its other checks are undecidable)"),
    Check("VC_trace_replay_mrv2", "0.29.0", options=("enable_trace_replay",), stage="verify", scope="env",
          when=lambda state: _late.trace_replay_without_mrv2(state, _runner), template=_late.TRACE_REPLAY_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig._verify_trace_replay_config",
          description="--enable-trace-replay without the V2 model runner"),
    # LoRAConfig verified against the other configs (kvguard.rules.lora_config): 0.10.2 after
    # CacheConfig.verify_with_parallel_config, 0.11.1+ after the replay checks
    Check("VC_lora_v0_cpu_offload", "0.10.2", "0.10.2", options=("enable_lora",), stage="verify", scope="feature",
          when=_lora.v0_cpu_offload, template=_lora.V0_CPU_OFFLOAD_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig.verify_with_cache_config",
          description="--enable-lora with --cpu-offload-gb above 0 on the V0 engine (VLLM_USE_V1=0, or the V1 "
                      "oracle's fallback)"),
    Check("LC_lora_mega_moe", "0.33.0", options=("enable_lora",), stage="verify", scope="feature",
          when=_lora.mega_moe_refused, bind=_lora.mega_moe_bind, template=_lora.MEGA_MOE_MESSAGE,
          source="vllm/config/lora.py::LoRAConfig.verify_with_kernel_config",
          description="--enable-lora with a megakernel --moe-backend (deep_gemm_mega_moe, the FlashInfer MoE-EP "
                      "ones, aiter_mega_moe; lower-cased, '-' read as '_'), whatever the model"),
    Step("lora_class_unmodelled", "0.33.0", options=("enable_lora",), stage="verify",
         apply=_lora.lora_class_unmodelled,
         description="--enable-lora for a model class without SupportsLoRA: LoRAConfig.verify_with_model_config's "
                     "refusal is not rendered (undecidable)"),
    Step("lora_inkling_unmodelled", "0.26.0", options=("enable_lora",), stage="verify",
         apply=_lora.inkling_unmodelled,
         description="--enable-lora with an Inkling model: LoRAConfig.verify_with_model_config's INKLING_MULTIMEM_AR "
                     "check is not rendered (undecidable)"),
    # (0.20.0+: after the LoRA config's checks) kvguard.rules.mamba_rounding
    Check("VC_mamba_stochastic_rounding", "0.20.0", options=("enable_mamba_cache_stochastic_rounding",), stage="verify", scope="feature",
          when=_mamba_rounding.rounding_without_float16, template=_mamba_rounding.ROUNDING_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="--enable-mamba-cache-stochastic-rounding without a float16 SSM cache (an auto dtype a "
                      "Nemotron-H / Qwen3.5 config handler replaces: undecidable)"),
    Check("VC_quant_modelopt_no_algo", stage="verify", scope="feature",
          when=_modelopt_no_algo,
          template="Missing 'quant_algo' in quantization config",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptQuantConfigBase.from_config (0.10.2 - "
                 "0.11.x: ModelOptFp8Config / ModelOptNvFp4Config.from_config), from "
                 "VllmConfig._get_quantization_config",
          description="a ModelOpt checkpoint ModelConfig took as a ModelOpt method whose quantization config (the "
                      "nested mapping; from 0.12.0 also the flat config) has no quant_algo (or an empty one)"),
    Check("VC_quant_modelopt_algo", stage="verify", scope="feature",
          when=_modelopt_config_refused, bind=lambda state: dict(state._mo_out[0] or {}),
          template="ModelOpt currently only supports: {algos} quantizations in vLLM. Please check the "
                   "`hf_quant_config.json` file for your model's quant configuration.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptQuantConfigBase.from_config (0.10.2 - "
                 "0.11.x: ModelOptFp8Config / ModelOptNvFp4Config.from_config), from VllmConfig._get_quantization_config "
                 "before the capability and activation dtypes",
          description="a ModelOpt checkpoint ModelConfig took as modelopt / modelopt_fp4 whose quant_algo (upper-cased "
                      "from 0.14.0) is not in the release's QUANT_ALGOS"),
    Check("VC_quant_modelopt_fields", stage="verify", scope="feature",
          when=lambda state: _modelopt_refusal_on_cuda(state, "algo" in (_modelopt_fields(state) or {})),
          bind=lambda state: dict(_modelopt_fields(state) or {}),
          template="{algo} quantization requires the following fields in hf_quant_config.json: {missing}",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptNvFp4Config._from_config (0.10.2 - "
                 "0.11.x: its from_config) / ModelOptMxFp8Config._from_config (0.16.0+), from "
                 "VllmConfig._get_quantization_config",
          description="a nested ModelOpt NVFP4 (0.21.0+: or W4A16_NVFP4) mapping without group_size / "
                      "kv_cache_quant_algo / exclude_modules, or an MXFP8 one without kv_cache_quant_algo / "
                      "exclude_modules (after the algorithm check)"),
    Check("VC_quant_modelopt_fp8_algo", "0.14.0", stage="verify", scope="feature",
          when=lambda state: _modelopt_init_refused(state, "VC_quant_modelopt_fp8_algo"),
          bind=lambda state: dict((_modelopt_init(state) or ("", {}))[1]),
          template="Unsupported ModelOpt FP8 quant_algo for vLLM: {algo}. Supported: FP8 / "
                   "FP8_PER_CHANNEL_PER_TOKEN / FP8_PB_WO.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptFp8Config.__init__, from "
                 "VllmConfig._get_quantization_config",
          description="ModelConfig took a ModelOpt checkpoint as modelopt (FP8) whose quant_algo (upper-cased) is "
                      "another class's in QUANT_ALGOS (NVFP4, W4A16_NVFP4, MXFP8, MIXED_PRECISION)"),
    Check("VC_quant_modelopt_nvfp4_algo", "0.21.0", stage="verify", scope="feature",
          when=lambda state: _modelopt_init_refused(state, "VC_quant_modelopt_nvfp4_algo"),
          bind=lambda state: dict((_modelopt_init(state) or ("", {}))[1]),
          template="Unsupported ModelOpt NVFP4 quant_algo: {algo}. Supported: NVFP4 / W4A16_NVFP4.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptNvFp4Config.__init__, from "
                 "VllmConfig._get_quantization_config",
          description="ModelConfig took a ModelOpt checkpoint as modelopt_fp4 whose quant_algo (upper-cased) is "
                      "another class's in QUANT_ALGOS (the FP8 forms, MXFP8, MIXED_PRECISION); before 0.21.0 the "
                      "config takes any"),
    Check("VC_quant_modelopt_mxfp8_serialized", "0.16.0", stage="verify", scope="feature",
          when=lambda state: _modelopt_init_refused(state, "VC_quant_modelopt_mxfp8_serialized"),
          template="MXFP8 quantization requires a serialized checkpoint. Dynamic quantization is not supported.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptMxFp8Config.__init__, from "
                 "VllmConfig._get_quantization_config",
          description="ModelConfig took a ModelOpt checkpoint as modelopt_mxfp8 whose quant_algo (upper-cased) is "
                      "another in QUANT_ALGOS (not MXFP8)"),
    Check("VC_quant_modelopt_mixed_layers", "0.17.0", stage="verify", scope="feature",
          when=lambda state: _modelopt_refusal_on_cuda(state, "mixed" in (_modelopt_fields(state) or {})),
          template="MIXED_PRECISION quant_algo requires a non-empty 'quantized_layers' mapping in the quantization "
                   "config.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptMixedPrecisionConfig._from_config, "
                 "from VllmConfig._get_quantization_config",
          description="a flat ModelOpt MIXED_PRECISION export whose top-level quantized_layers is empty (after the "
                      "algorithm check)"),
    Step("vc_quant_ct_forbidden_args", stage="verify", apply=_ct_forbidden_args,
         description="0.10.2 - 0.13.x: a compressed-tensors checkpoint whose QuantizationArgs carry scale_dtype / "
                     "zp_dtype (compressed-tensors 0.13+ exports): the pinned compressed-tensors package forbids "
                     "them and VllmConfig's validation refuses the config; the pydantic message names the host's "
                     "pydantic version, so the launch is undecidable, never accepted"),
    Step("vc_quant_ct_static_token", stage="verify", apply=_ct_static_token,
         description="0.14.0+: a compressed-tensors checkpoint whose weights or input activations are static "
                     "per-token: the compressed-tensors package these releases pin refuses them while VllmConfig "
                     "builds the quantization config; the pydantic message names the host's pydantic version, so "
                     "the launch is undecidable, never accepted"),
    Check("VC_quant_capability", stage="verify", scope="feature",
          when=_capability_refused, bind=lambda state: dict(state._qc_out[0] or {}),
          template="The quantization method {method} is not supported for the current GPU. Minimum capability: "
                   "{minimum}. Current capability: {current}.",
          source=f"{_S_VLLM}::VllmConfig._get_quantization_config (0.10.2: vllm/config/__init__.py), after "
                 f"get_quant_config, before the activation dtypes",
          description="the GPU's compute capability is below the ModelOpt method's minimum (modelopt: 89 up to 0.26.0, "
                      "80 from 0.27.0; modelopt_fp4: 80, 75 from 0.14.0; modelopt_mxfp8: 100 up to 0.19.x, 80 from "
                      "0.20.0; modelopt_mixed: 89 up to 0.23.0, 75 from 0.24.0)"),
    Check("VC_quant_act_dtype", stage="verify", scope="feature",
          when=_act_dtype_refused, bind=lambda state: dict(_act_dtype(state)[0] or {}),
          template=_QUANT_ACT_DTYPE,
          source=f"{_S_VLLM}::VllmConfig._get_quantization_config (after verify_with_parallel_config; 0.10.2: "
                 f"vllm/config/__init__.py)",
          description="the model's dtype (--dtype, else the checkpoint's) is not one of the quantization method's "
                      "activation dtypes (plain AWQ / GPTQ: float16 only; FP8 and the Marlin methods: no float32; MXFP4 "
                      "(mxfp4 / gpt_oss_mxfp4) and ModelOpt MXFP8 (modelopt_mxfp8): bfloat16 only); "
                      "the minimum GPU capability passes on compute capability 80+"),
    Check("VC_executor_none", "0.19.0", stage="verify", when=_eopts.executor_none, template=_eopts.EXECUTOR_NONE_MESSAGE,
          source="vllm/v1/executor/abstract.py::Executor.get_class (VllmConfig.__post_init__)",
          description="no --distributed-executor-backend and a world size below 1 (-tp -1, -pp 0, -pcp 0 up to 0.22.1): "
                      "ParallelConfig chose no backend"),
    Check("VC_executor_backend", "0.19.0", options=("distributed_executor_backend",), stage="verify", scope="feature", when=_eopts.executor_unresolvable,
          template=_eopts.EXECUTOR_MESSAGE,
          source="vllm/v1/executor/abstract.py::Executor.get_class (VllmConfig.__post_init__), "
                 "vllm/utils/import_utils.py::resolve_obj_by_qualname",
          description="--distributed-executor-backend other than ray / mp / uni / external_launcher and without a "
                      "dot: no qualified class name to split (a dotted name is imported on the host: undecidable)"),
    Step("vc_executor_backend_late", "0.10.2", "0.18.1", options=("distributed_executor_backend",), stage="verify", apply=_eopts.executor_resolved_late,
         description="--distributed-executor-backend other than ray / mp / uni / external_launcher: resolved by the "
                     "engine after the configuration (not modelled: undecidable)"),
    Check("VC_async_pp", "0.11.1", "0.14.1", stage="verify", scope="feature",
          when=lambda state: state.async_scheduling is True and state.pp > 1,
          template="Async scheduling is not yet compatible with pipeline_parallel_size > 1.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="--async-scheduling is incompatible with PP"),
    Check("VC_async_spec", "0.11.1", "0.13.0", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ()),
          template="Currently, async scheduling is only supported with EAGLE/MTP kind of speculative decoding",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec", "0.14.0", "0.15.1", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ()),
          template="Currently, async scheduling is only supported with EAGLE/MTP kind of speculative decoding.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec", "0.16.0", "0.17.1", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ("draft_model",)),
          template="Currently, async scheduling is only supported with EAGLE/MTP/Draft Model kind of "
                   "speculative decoding.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec", "0.18.0", "0.24.0", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ("ngram_gpu", "draft_model")),
          template="Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind of "
                   "speculative decoding",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec", "0.25.0", "0.30.0", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ("ngram_gpu", "draft_model", "dspark")),
          template="Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark "
                   "kind of speculative decoding",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec", "0.31.0", "0.32.0", speculative=True, stage="verify", scope="feature",
          when=lambda state: _sc.async_method_refused(state, ("ngram_gpu", "draft_model", "dspark", "dflash")),
          template="Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash "
                   "kind of speculative decoding",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with a speculative method that is not EAGLE-like"),
    Check("VC_async_spec_padded", "0.11.1", "0.13.0", speculative=True, stage="verify", scope="feature",
          when=_sc.async_padded_refused,
          template="async scheduling for EAGLE/MTP kind of speculative decoding is enabled, but "
                   "disable_padded_drafter_batch=True disable_padded_drafter_batch=True is not supported for "
                   "this situation now. please set disable_padded_drafter_batch=Fasle",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with disable_padded_drafter_batch"),
    Check("VC_async_spec_padded", "0.14.0", "0.32.0", speculative=True, stage="verify", scope="feature",
          when=_sc.async_padded_refused,
          template="Async scheduling is not compatible with disable_padded_drafter_batch=True.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling with disable_padded_drafter_batch"),
    Check("VC_async_pp", "0.33.0", stage="verify", scope="feature",
          when=lambda state: state.async_scheduling is True and _sc.v1_async_incompat(state) is not None and _runner(state) == "v1",
          bind=lambda state: {"v1_async_sched_incompat": _sc.v1_async_incompat(state)},
          template="Async scheduling is not supported by the V1 model runner with {v1_async_sched_incompat}.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="explicit --async-scheduling on the V1 model runner with a non-EAGLE-like speculative "
                      "method, disable_padded_drafter_batch or PP"),
    Check("VC_per_request_spec_metrics", "0.29.0", options=("per_request_spec_decode_metrics",), stage="verify", scope="feature",
          when=_late.per_request_spec_without_spec, template=_late.PER_REQUEST_SPEC_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.__post_init__, after the async-scheduling checks",
          description="--per-request-spec-decode-metrics summary / detailed without speculative decoding"),
    Check("VC_mtp_interleave", "0.11.1", "0.11.2", speculative=True, stage="verify", exc="AssertionError", scope="feature",
          when=lambda state: state.sc is not None and state.layout.dcp_kv_cache_interleave_size != 1
          and (state.dcp <= 1 or state.need("kv_block_size")),
          template="MTP with dcp_kv_cache_interleave_size > 1 is not supported now.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="speculative decoding with --dcp-kv-cache-interleave-size > 1 (any method)"),
    Check("VC_mtp_interleave", "0.12.0", "0.12.0", speculative=True, stage="verify", exc="AssertionError", scope="feature",
          when=lambda state: state.sc is not None and (state.layout.cp_kv_cache_interleave_size or 1) != 1
          and (state.dcp <= 1 or state.need("kv_block_size")),
          template="MTP with cp_kv_cache_interleave_size > 1 is not supported now.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="speculative decoding with --cp-kv-cache-interleave-size > 1 (any method)"),
    # 0.17.0+: a KV connector the release does not register may be refused where the CUDA graph mode is resolved
    # (after the async-scheduling checks, before the platform's config hook), if it has full graphs: from here on,
    # any other refusal is undecidable (kvguard.rules.kv_transfer); 0.22.0+ refuses it for the hybrid KV cache
    # manager's default (VC_kv_connector_unregistered), else the engine's start does (w_kv_connector_lookup)
    Step("vc_kv_connector_lookup", _kv_transfer.GRAPH_LOOKUP_SINCE, options=("kv_connector",), stage="verify",
         apply=_kv_transfer.unregistered_lookup_pending,
         description="an unregistered KV connector: VllmConfig looks its class up where the CUDA graph mode has full "
                     "graphs (not resolved, but none on a CPU / TPU host or with --enforce-eager): the refusals "
                     "after it are undecidable"),
    # KernelConfig.set_platform_defaults (VllmConfig.__post_init__, before the platform's check_and_update_config)
    Check("VC_moe_backend_model", "0.29.0", "0.29.0", stage="verify", scope="feature",
          when=lambda state: _dsv4_only_refused(state, _FLASHINFER_MOE_EP_0_29, archs_since_0_30=False),
          bind=_dsv4_only_bind(_DSV4_ARCHS_0_29), template=_DSV4_ONLY_TEMPLATE,
          source=f"{_S_KERNEL}::validate_flashinfer_moe_ep_model",
          description="the FlashInfer MoE-EP --moe-backend values need a DeepSeek-V4 architecture"),
    Check("VC_moe_backend_model", "0.30.0", "0.31.0", stage="verify", scope="feature",
          when=lambda state: _dsv4_only_refused(state, _FLASHINFER_MOE_EP_0_29, archs_since_0_30=True),
          bind=_dsv4_only_bind(_DSV4_ARCHS_0_30), template=_DSV4_ONLY_TEMPLATE,
          source=f"{_S_KERNEL}::validate_flashinfer_moe_ep_model",
          description="the FlashInfer MoE-EP --moe-backend values need a DeepSeek-V4 architecture"),
    Check("VC_moe_backend_model", "0.32.0", stage="verify", scope="feature",
          when=lambda state: _dsv4_only_refused(state, frozenset({"flashinfer_moe_ep_mega_deep_gemm"}),
                                                archs_since_0_30=True),
          bind=_dsv4_only_bind(_DSV4_ARCHS_0_30), template=_DSV4_ONLY_TEMPLATE,
          source=f"{_S_KERNEL}::validate_flashinfer_moe_ep_model",
          description="--moe-backend flashinfer_moe_ep_mega_deep_gemm needs a DeepSeek-V4 architecture"),
    Check("VC_moe_backend_all2all", "0.32.0", stage="verify", scope="feature",
          when=lambda state: _moe_backend(state) in _FLASHINFER_MOE_EP_0_32
          and _parallel_all2all(state) not in ("passthrough", "allgather_reducescatter"),
          bind=lambda state: {"moe_backend": _moe_backend(state), "a2a": _parallel_all2all(state)},
          template="moe_backend={moe_backend!r} dispatches and combines itself and cannot be paired with "
                   "all2all_backend={a2a!r}; leave --all2all-backend unset.",
          source=f"{_S_KERNEL}::bind_passthrough_all2all_backend",
          description="a FlashInfer MoE-EP --moe-backend with an explicit --all2all-backend (other than the "
                      "default)"),
    Check("VC_all2all_passthrough", "0.32.0", stage="verify", scope="feature",
          when=lambda state: _moe_backend(state) not in _FLASHINFER_MOE_EP_0_32
          and _parallel_all2all(state) == "passthrough",
          bind=lambda state: {"moe_backend": _moe_backend(state)},
          template="all2all_backend='passthrough' is only valid with a moe_backend that dispatches and combines "
                   "itself (['flashinfer_moe_ep_cutedsl', 'flashinfer_moe_ep_mega_deep_gemm']), got "
                   "moe_backend={moe_backend!r}.",
          source=f"{_S_KERNEL}::bind_passthrough_all2all_backend",
          description="all2all_backend='passthrough' (Python API only: the CLI does not offer it) needs a "
                      "FlashInfer MoE-EP --moe-backend"),
    # VllmConfig._set_max_num_scheduled_tokens (kvguard.rules.scheduler), after the HiSparse checks, before the CUDA
    # graph mode's KV connector lookup and the platform's config hook
    Check("VC_spec_scheduled_tokens", "0.20.0", speculative=True, stage="verify", scope="feature",
          when=_scheduler.scheduled_tokens_refused, bind=_scheduler.scheduled_tokens_bind, template="{message}",
          source=f"{_S_VLLM}::VllmConfig._set_max_num_scheduled_tokens",
          description="a speculative launch left with no token to schedule: --max-num-scheduled-tokens 0 "
                      "(0.26.0-0.31.0); batched tokens at or below the draft's new slots per request times "
                      "max_num_seqs (0.20.0-0.27.x), those slots alone (0.28.0-0.32.0), or num_lookahead_tokens "
                      "(0.33.0: the speculative tokens for EAGLE / EAGLE3 / MTP / draft-model drafts, one more for "
                      "DFlash and a DSpark draft that does not sample from its anchor); where the host's batch "
                      "defaults decide, undecidable"),
    Check("PLAT_cuda_pcp_dp", "0.30.0", "0.30.0", stage="verify", scope="env",
          when=lambda state: state.pcp > 1 and state.dp > 1 and state.need("platform") == "cuda",
          template="PCP does not support data parallelism on CUDA yet.",
          source="vllm/platforms/cuda.py::CudaPlatformBase.check_and_update_config",
          description="PCP cannot be combined with DP on CUDA"),
    Check("PLAT_rocm_pcp_dp", "0.30.0", "0.30.0", stage="verify", scope="env",
          when=lambda state: state.pcp > 1 and state.dp > 1 and state.need("platform") == "rocm",
          template="PCP does not support data parallelism on ROCm yet.",
          source="vllm/platforms/rocm.py::RocmPlatform.check_and_update_config",
          description="PCP cannot be combined with DP on ROCm"),
    Check("PLAT_cpu_block_size", "0.10.2", "0.11.0", stage="verify", scope="env", exc="RuntimeError",
          when=_cpu.block_size_refused, bind=lambda state: {"block_size": state.layout.block_size},
          template="--block-size={block_size} requires intel_extension_for_pytorch",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, a block size other than 16 needs intel_extension_for_pytorch"),
    Check("PLAT_cpu_quantized_kv", "0.10.2", "0.10.2", stage="verify", scope="env", exc="RuntimeError",
          when=_cpu.refused_on_v0, template=_CPU_QUANTIZED_KV,
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, a quantized KV cache with chunked prefill or prefix caching turned on "
                      "(the V0 engine it falls back to leaves both off)"),
    Check("PLAT_cpu_quantized_kv", "0.11.0", "0.11.0", stage="verify", scope="env", exc="RuntimeError",
          when=_cpu.refused_with_chunked_prefill_forced, template=_CPU_QUANTIZED_KV,
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, a quantized KV cache (chunked prefill is on for a generative model "
                      "whatever the launch says)"),
    Check("PLAT_cpu_kvcache_space", "0.20.0", "0.28.0", stage="verify", scope="env",
          when=_cpu.kvcache_space_refused, bind=_cpu.kvcache_space_bind, template="{message}",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, VLLM_CPU_KVCACHE_SPACE set to a value int() refuses (the hook's "
                      "legacy setting, before its quantized-KV-cache and AMX branches)"),
    Check("PLAT_cpu_quantized_kv", "0.11.1", "0.20.2", stage="verify", scope="env", exc="RuntimeError",
          when=_cpu.refused_with_defaults, template=_CPU_QUANTIZED_KV,
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, a quantized KV cache with chunked prefill or prefix caching on (both "
                      "on by default for a generative model)"),
    Check("PLAT_cpu_kvcache_space", "0.10.2", "0.19.1", stage="verify", scope="env",
          when=_cpu.kvcache_space_refused, bind=_cpu.kvcache_space_bind, template="{message}",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, VLLM_CPU_KVCACHE_SPACE set to a value int() refuses (the getter, read "
                      "for the KV cache's size after the hook's refusals)"),
    # the hook's AMX branches (kvguard.rules.cpu_amx); 0.22.0 - 0.24.x's, which turns prefix caching off for a model
    # with linear-attention layers, refuses at VC_mamba_block_size (kvguard.rules.mamba_block_size)
    Check("PLAT_cpu_amx_linear_attention", "0.22.0", "0.25.1", stage="verify", scope="env",
          when=_amx.linear_attention_count, template="",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on an AMX CPU (to 0.24.x), a hybrid model whose linear-attention layers kvguard cannot count "
                      "(undecidable)"),
    Check("PLAT_cpu_amx_mla", "0.29.0", stage="verify", scope="env", when=_amx.mla_branch, template="",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on an AMX CPU, an MLA model on the AMX MLA backend (undecidable)"),
    Check("PLAT_cpu_kvcache_space", "0.29.0", stage="verify", scope="env",
          when=_cpu.kvcache_space_refused, bind=_cpu.kvcache_space_bind, template="{message}",
          source="vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
          description="on the CPU platform, VLLM_CPU_KVCACHE_SPACE set to a value int() refuses (the hook's "
                      "legacy setting, after its AMX MLA branch)"),
    Check("VC_mrv2_triton", "0.22.0", "0.22.1", stage="verify", scope="env",
          when=lambda state: _runner(state) == "v2" and not state.need("triton"),
          template="VLLM_USE_V2_MODEL_RUNNER requires Triton.",
          source=f"{_S_VLLM}::VllmConfig._validate_v2_model_runner",
          description="the V2 model runner needs Triton"),
    Check("VC_mrv2_triton", "0.23.0", "0.32.0", stage="verify", scope="env",
          when=lambda state: _runner(state) == "v2" and not state.need("triton"),
          template="Model Runner V2 requires Triton.",
          source=f"{_S_VLLM}::VllmConfig._validate_v2_model_runner",
          description="the V2 model runner needs Triton"),
    Check("VC_mrv2_unsupported", "0.20.0", "0.22.1", stage="verify", scope="env",
          when=lambda state: _runner(state) == "v2" and bool(_unsupported(state, MRV2_UNSUPPORTED)),
          bind=lambda state: {"unsupported": ", ".join(_unsupported(state, MRV2_UNSUPPORTED))},
          template=_MRV2_V1,
          source=f"{_S_VLLM}::VllmConfig._validate_v2_model_runner",
          description="the V2 model runner (VLLM_USE_V2_MODEL_RUNNER=1) does not support some options"),
    Check("VC_mrv2_unsupported", "0.23.0", stage="verify", scope="env",
          when=lambda state: _runner(state) == "v2" and bool(_unsupported(state, MRV2_UNSUPPORTED)),
          bind=lambda state: {"unsupported": ", ".join(_unsupported(state, MRV2_UNSUPPORTED))},
          template="Model Runner V2 does not yet support: {unsupported}",
          source=f"{_S_VLLM}::VllmConfig._validate_v2_model_runner",
          description="the V2 model runner (forced by VLLM_USE_V2_MODEL_RUNNER=1, or by PCP in "
                      "0.27.0-0.28.0) does not support some options"),
    Check("VC_pcp_requires_mrv2", "0.27.0", "0.28.0", stage="verify", scope="env",
          when=lambda state: _runner(state) != "v2" and state.pcp > 1,
          template="Prefill context parallelism requires Model Runner V2. Remove "
                   "VLLM_USE_V2_MODEL_RUNNER=0.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="PCP needs the V2 model runner (VLLM_USE_V2_MODEL_RUNNER=0 forbids it)"),
    Check("VC_mrv1_unsupported", "0.29.0", stage="verify", scope="env",
          when=lambda state: _runner(state) == "v1" and bool(_unsupported(state, MRV1_UNSUPPORTED)),
          bind=lambda state: {"unsupported": ", ".join(_unsupported(state, MRV1_UNSUPPORTED))},
          template="Model Runner V1 does not support: {unsupported}",
          source=f"{_S_VLLM}::VllmConfig._validate_v1_model_runner",
          description="the V1 model runner (VLLM_USE_V2_MODEL_RUNNER=0, or no Triton) does not support PCP "
                      "(and, from 0.31.0, explicit async scheduling with PP; on 0.33.0, Step5)"),
    Step("vc_batch_sharded_sampling", "0.29.0", options=("enable_batch_sharded_sampling",), stage="verify", apply=lambda state: _late.batch_sharded_on_v2(state, _runner),
         description="--enable-batch-sharded-sampling on the V2 model runner: its blockers read --max-logprobs and "
                     "the host's --max-num-seqs default (undecidable)"),
    Check("VC_moonep", "0.31.0", stage="verify", scope="feature",
          when=_moonep_undecided,
          template="", source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="--all2all-backend moonep's requirements (unquantized BF16 model, no EPLB, linear expert "
                      "placement): kvguard cannot decide them"),
    # microbatching's all2all backends (kvguard.rules.engine_options), after the platform's config hook
    Check("VC_ubatch_all2all", "0.11.0", "0.11.0", options=("enable_dbo", "ubatch_size"), stage="verify", exc="AssertionError", scope="feature",
          when=_eopts.ubatch_all2all_unsupported, bind=_eopts.ubatch_all2all_bind,
          template="Microbatching currently only supports the deepep_low_latency and deepep_high_throughput all2all "
                   "backend. {a2a} is not supported. To fix set the VLLM_ALL2ALL_BACKEND environment variable to "
                   "deepep_low_latency or deepep_high_throughput and install the DeepEP kernels.",
          source=f"{_S_VLLM}::VllmConfig.__post_init__ (vllm/config/__init__.py)",
          description="--enable-dbo without a DeepEP all2all backend (VLLM_ALL2ALL_BACKEND)"),
    Check("VC_ubatch_all2all", "0.11.1", "0.23.0", options=("enable_dbo", "ubatch_size"), stage="verify", exc="AssertionError", scope="feature",
          when=_eopts.ubatch_all2all_unsupported, bind=_eopts.ubatch_all2all_bind,
          template=_eopts.UBATCH_MESSAGE_0_11, source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="microbatching (--enable-dbo, --ubatch-size above 1) without a DeepEP --all2all-backend"),
    Check("VC_ubatch_all2all", "0.24.0", "0.32.0", options=("enable_dbo", "ubatch_size"), stage="verify", exc="AssertionError", scope="feature",
          when=_eopts.ubatch_all2all_unsupported, bind=_eopts.ubatch_all2all_bind,
          template=_eopts.UBATCH_MESSAGE_0_24, source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="microbatching without a DeepEP or nixl_ep --all2all-backend"),
    Check("VC_ubatch_all2all", "0.33.0", options=("enable_dbo", "ubatch_size"), stage="verify", exc="AssertionError", scope="feature",
          when=_eopts.ubatch_all2all_unsupported, bind=_eopts.ubatch_all2all_bind,
          template=_eopts.UBATCH_MESSAGE_0_33, source=f"{_S_VLLM}::VllmConfig.__post_init__",
          description="microbatching without an all2all backend the platform supports for it (DeepEP, nixl_ep; on "
                      "ROCm also allgather_reducescatter)"),
    Step("vc_reasoning_parser_package", "0.21.0", "0.29.0", stage="verify", apply=_parsers.reasoning_parser_package,
         description="a reasoning parser (--reasoning-parser or --structured-outputs-config's) whose module imports an "
                     "optional package (cohere_command3 / cohere_command4: cohere_melody): whether the host has it is "
                     "not modelled (undecidable)"),
    Check("VC_reasoning_parser", "0.20.0", stage="verify", exc="KeyError", scope="feature",
          when=_parsers.unknown_reasoning_parser_at_config, bind=_parsers.reasoning_bind, template="{quoted}",
          source="vllm/config/reasoning.py::ReasoningConfig.initialize_token_ids (VllmConfig.__post_init__), "
                 "vllm/reasoning/abs_reasoning_parsers.py::ReasoningParserManager.get_reasoning_parser",
          description="a --reasoning-parser the release does not register (kvguard/data/parser_names.json; a "
                      "--reasoning-parser-plugin or --reasoning-config: undecidable): str(KeyError(\"Reasoning "
                      "parser 'NAME' not found. Available parsers: A, B, …\"))"),
    Check("VC_kv_offloading_size", "0.11.1", "0.13.0", options=("kv_offloading_backend",), stage="verify", scope="feature",
          when=_eopts.kv_offloading_without_size, template=_eopts.KV_OFFLOADING_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig._post_init_kv_transfer_config (the end of __post_init__)",
          description="--kv-offloading-backend without --kv-offloading-size"),
    Check("VC_aux_mrv2", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="env",
          when=lambda state: _late.aux_without_mrv2(state, _runner), template=_late.AUX_MRV2,
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="--enable-return-routed-experts without the V2 model runner (in-tree platforms)"),
    Check("VC_aux_generate", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="feature",
          when=_late.aux_not_generate, template=_late.AUX_GENERATE,
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="--enable-return-routed-experts with a pooling runner"),
    Check("VC_aux_moe", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="feature",
          when=_late.aux_not_moe, template=_late.AUX_MOE,
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="--enable-return-routed-experts on a model without experts"),
    Check("VC_aux_prefix_caching", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="feature",
          when=_late.aux_without_prefix_caching, template=_late.AUX_PREFIX,
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="--enable-return-routed-experts without prefix caching"),
    Check("VC_aux_routed_pp", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="feature",
          when=lambda state: state.routed_experts and state.pp > 1,
          template="--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).",
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="returning routed experts is incompatible with PP"),
    Check("VC_aux_routed_cp", "0.31.0", options=("enable_return_routed_experts",), stage="verify", scope="feature",
          when=lambda state: state.routed_experts and (state.dcp > 1 or state.pcp > 1),
          template="--enable-return-routed-experts is incompatible with context parallelism (DCP/PCP > 1).",
          source=f"{_S_VLLM}::VllmConfig._verify_aux_output_compatibility",
          description="returning routed experts is incompatible with DCP/PCP"),
    # the hybrid KV cache manager's default, after _post_init_kv_transfer_config / _verify_aux_output_compatibility
    Check("VC_kv_connector_unregistered", _kv_transfer.HMA_LOOKUP_SINCE, options=("kv_connector",), stage="verify",
          scope="feature", when=_kv_transfer.unregistered_refused, bind=_kv_transfer.connector_bind,
          template=_kv_transfer.UNSUPPORTED,
          source=f"{_S_VLLM}::VllmConfig.__post_init__ (the hybrid KV cache manager's default: 0.22.0 "
                 "supports_hma(get_connector_class), 0.24.0+ KVConnectorFactory.supports_hma_config), "
                 "vllm/distributed/kv_transfer/kv_connector/factory.py::KVConnectorFactory.get_connector_class",
          description="--kv-transfer-config naming a connector the release does not register, without "
                      "--disable-hybrid-kv-cache-manager (kvguard.rules.kv_transfer.REGISTERED)"),
    # the model validators after __post_init__: validate_mamba_cached_kernel (kvguard.rules.late_options)
    # VllmConfig._verify_kv_transfer_compat, the end of __post_init__ (kvguard.rules.kv_transfer)
    Check("VC_kv_sleep_mode", "0.33.0", options=("kv_connector",), stage="verify", scope="feature",
          when=_kv_transfer.sleep_mode_refused, bind=_kv_transfer.connector_bind,
          template="{connector} does not support sleep mode.",
          source=f"{_S_VLLM}::VllmConfig._verify_kv_transfer_compat, "
                 "vllm/distributed/kv_transfer/kv_connector/v1/base.py::KVConnectorBase_V1.supports_sleep_mode",
          description="--enable-sleep-mode with a KV connector that cannot follow it (NixlPushConnector; "
                      "NixlConnector / NixlPullConnector unless kv_connector_extra_config's backends is [\"UCX\"])"),
    Check("VC_kv_expandable_segments", "0.21.0", "0.21.0", options=("kv_connector", "kv_offloading_size"),
          stage="verify", scope="env",
          when=_kv_transfer.expandable_segments_refused, bind=_kv_transfer.connector_bind,
          template="KV connector {connector} is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                   "unless enable_sleep_mode is also enabled. PyTorch's CUDA VMM allocator can remap KV cache "
                   "virtual addresses to different physical pages, invalidating any pinned/registered KV memory "
                   "(e.g. IB memory regions registered by NIXL or Mooncake). Either unset expandable_segments:True "
                   "or enable sleep mode (which routes KV allocations through CuMemAllocator's pool, where "
                   "expandable_segments is automatically disabled).",
          source=f"{_S_VLLM}::VllmConfig._verify_kv_transfer_compat",
          description="a KV connector with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, without sleep mode"),
    Check("VC_kv_expandable_segments", "0.22.0", options=("kv_connector", "kv_offloading_size"), stage="verify",
          scope="env",
          when=_kv_transfer.expandable_segments_refused, bind=_kv_transfer.connector_bind,
          template="KV connector {connector} is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                   "unless enable_cumem_allocator is also enabled. PyTorch's CUDA VMM allocator can remap KV cache "
                   "virtual addresses to different physical pages, invalidating any pinned/registered KV memory "
                   "(e.g. IB memory regions registered by NIXL or Mooncake). Either unset expandable_segments:True "
                   "or enable the cumem allocator (sleep mode does this automatically and also routes KV "
                   "allocations through CuMemAllocator's pool, where expandable_segments is automatically "
                   "disabled).",
          source=f"{_S_VLLM}::VllmConfig._verify_kv_transfer_compat",
          description="a KV connector with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, without the cumem "
                      "allocator (which sleep mode turns on)"),
    Check("VC_mamba_block_size", "0.11.1", "0.11.2", options=("mamba_block_size",), stage="verify",
          scope="env",
          when=_mbs.refused_0_11, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default, or by "
                      "the set-up turning it off for a model class without Mamba prefix caching, or by __post_init__ "
                      "for an encoder-decoder model"),
    Check("VC_mamba_block_size", "0.12.0", "0.14.1", options=("mamba_block_size",), stage="verify",
          scope="env",
          when=_mbs.refused_0_12, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default, or by "
                      "the set-up turning it off for a model class without Mamba prefix caching"),
    Check("VC_mamba_block_size", "0.15.0", "0.21.0", options=("mamba_block_size",), stage="verify",
          scope="env",
          when=_mbs.refused_0_15, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default"),
    Check("VC_mamba_block_size", "0.22.0", "0.25.1", stage="verify", scope="env",
          when=_mbs.refused_0_22, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default, or by "
                      "an AMX CPU's platform turning it off for a model with linear-attention "
                      "layers (to 0.24.x)"),
    Check("VC_mamba_block_size", "0.26.0", "0.27.1", options=("mamba_block_size",), stage="verify",
          scope="env",
          when=_mbs.refused_0_26, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default"),
    Check("VC_mamba_block_size", "0.28.0", stage="verify", scope="env",
          when=_mbs.refused_0_28, template=_mbs.MAMBA_BLOCK_SIZE_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_block_size",
          description="a Mamba block size (the launch's, or the one the Mamba cache set-up took with prefix caching "
                      "on) other than the maximum length, prefix caching left off by the launch or its default, or by "
                      "the CPU platform turning it off for an MLA model"),
    Check("VC_replayssm_arch", "0.27.0", "0.28.0", options=("use_replayssm",), stage="verify", scope="feature",
          when=_late.replayssm_unsupported, bind=_late.replayssm_bind, template=_late.REPLAYSSM_NEMOTRON_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_cached_kernel",
          description="--use-replayssm on a model class without ReplaySSM support (one without inner state; "
                      "others undecidable)"),
    Check("VC_replayssm_arch", "0.29.0", options=("use_replayssm",), stage="verify", scope="feature",
          when=_late.replayssm_unsupported, bind=_late.replayssm_bind, template=_late.REPLAYSSM_MESSAGE,
          source=f"{_S_VLLM}::VllmConfig.validate_mamba_cached_kernel",
          description="--use-replayssm on a model class without ReplaySSM support (one without inner state; "
                      "others undecidable)"),

    # ===================== the API server, then the workers ====================
    Check("API_v1_engine", "0.11.0", "0.11.0", stage="worker", exc="AssertionError", scope="env",
          when=_v1.api_server_without_v1,
          source="vllm/entrypoints/openai/api_server.py::build_async_engine_client_from_engine_args",
          description="without the V1 engine (VLLM_USE_V1=0, or the V1 oracle's fallback) 0.11.0's API server "
                      "stops at a bare assert on VLLM_USE_V1 (not modelled: undecidable)"),
    Check("W_ray_cluster", stage="worker", scope="env", when=_ray_cluster_unread, template="",
          source="vllm/v1/executor/ray_utils.py::initialize_ray_cluster, _wait_until_pg_ready (0.10.2: "
                 "vllm/executor/ray_utils.py)",
          description="the Ray executor (chosen, or picked by 0.10.2-0.11.0 when the world size exceeds the node's "
                      "GPUs) asks the Ray cluster for one GPU per worker: past this node's GPUs the answer depends "
                      "on the cluster's other nodes — listed as skipped, not decided"),
    Step("w_kv_connector_lookup", options=("kv_connector",), stage="worker",
         apply=_kv_transfer.unregistered_engine_lookup,
         description="an unregistered KV connector VllmConfig did not look up (before 0.22.0, or with "
                     "--disable-hybrid-kv-cache-manager given): the engine's start refuses it, in an order against "
                     "its other checks kvguard does not model (undecidable)"),
    Check("W_kv_connector_start", options=("kv_connector",), stage="worker", scope="env",
          when=_kv_transfer.worker_start_unmodelled, template="",
          source="vllm/distributed/kv_transfer/kv_transfer_state.py::ensure_kv_transfer_initialized",
          description="the KV connector's start on the workers (its package on the host, its "
                      "kv_connector_extra_config): not modelled, listed as skipped"),
    Check("W_dp_devices", stage="worker", scope="env",
          when=_dp_devices_undecided, template="",
          source="vllm/v1/engine/utils.py::CoreEngineProcManager (each local data-parallel engine's devices: "
                 "get_device_indices / set_device_control_env_var), vllm/v1/worker/gpu_worker.py::Worker.init_device",
          description="the node's data-parallel engines need more GPUs than it has (local DP size × world size): "
                      "the engines past its GPUs fail as they start, with an error that depends on the node's "
                      "CUDA_VISIBLE_DEVICES — undecidable, not accepted"),
    Check("W_mp_devices", "0.10.2", "0.11.0", stage="worker", scope="env", when=_mp_devices_undecided, template="",
          source=_S_MP_DEVICES, description=_MP_DEVICES_WHAT),
    Check("W_mp_devices", "0.12.0", stage="worker", scope="env", when=_mp_devices_undecided, template="",
          source=_S_MP_DEVICES, description=_MP_DEVICES_WHAT),
    # (the row spans 0.11.1's launch-check group, 0.11.1 - 0.11.2; it fires in 0.11.1 only: 0.11.2 asserts
    # only for local data-parallel engines, and is W_mp_devices' undecidable otherwise)
    Check("W_local_world_size", "0.11.1", "0.11.2", stage="worker", exc="AssertionError", scope="env",
          when=_local_world_exceeds_gpus,
          bind=lambda state: {"local": _local_world_size(state), "gpus": state.host.gpus_per_node},
          template="local_world_size ({local}) must be less than or equal to the number of visible devices "
                   "({gpus}).",
          source="vllm/v1/worker/gpu_worker.py::Worker.init_device",
          description="each worker checks that the ranks of one node fit its GPUs — for every executor backend "
                      "in 0.11.1 (a Ray cluster's -tp 16 over two 8-GPU nodes fails here); 0.11.2 checks only "
                      "local data-parallel engines, and an explicit mp backend past the GPUs is undecidable there"),
    # ===================== Model construction (worker: model init) ===========
    # The layers raise in construction order (kvguard.quant walks them); each row below is one of the
    # statements that can raise, with its release range.  Raised as they are (no pydantic wrapping).
    # the V2 model runner's constructor (0.33.0+) validates PCP before the model is built
    Check("W_mrv2_pcp", "0.33.0", stage="model_init", exc="NotImplementedError", scope="env",
          when=lambda state: state.pcp > 1 and _attn.mrv2_pcp_mla_only(state),
          template="MRV2 PCP currently supports MLA models only.",
          source="vllm/v1/worker/gpu/pcp_manager.py::PCPManager.validate_config (GPUModelRunner.__init__)",
          description="-pcp on the V2 model runner needs an MLA model (its other PCP checks: listed as skipped)"),
    Check("MI_dsv4_mega_moe_ep", "0.21.0", "0.28.0", stage="model_init", exc="NotImplementedError", scope="feature",
          when=lambda state: _dsv4_mega_without_ep(state, _NATIVE_MEGA_MOE), template=_DSV4_MEGA_EP,
          source=_S_DSV4_MODEL, description=_DSV4_MEGA_EP_WHAT),
    Check("MI_dsv4_mega_moe_ep", "0.29.0", "0.31.0", stage="model_init", exc="NotImplementedError",
          scope="feature", when=lambda state: _dsv4_mega_without_ep(state, _MEGA_MOE_0_29), template=_DSV4_MEGA_EP,
          source=_S_DSV4_MODEL, description=_DSV4_MEGA_EP_WHAT),
    Check("MI_dsv4_mega_moe_ep", "0.32.0", stage="model_init", exc="NotImplementedError", scope="feature",
          when=lambda state: _dsv4_mega_without_ep(state, _NATIVE_MEGA_MOE), template=_DSV4_MEGA_EP,
          source=_S_DSV4_MODEL, description=_DSV4_MEGA_EP_WHAT),
    Check("MI_model", stage="model_init", scope="geo",
          when=_mi_undecided, template="",
          source="vllm/model_executor/models/*.py (the architecture's layers, kvguard/data/quant_archs.json)",
          description="model construction is decided (skipped when kvguard does not model the architecture's "
                      "layers, the checkpoint's quantization method or the host's MoE kernel selection)"),
    # the attention selector (0.26.0+, kvguard.attention): the first attention layer's backend, chosen while
    # layer 0 is built — after the embedding and layer 0's attention projections, before its MLP
    Check("W_attn_selector", "0.26.0", stage="model_init", exc="ValueError", scope="env",
          when=lambda state: _selector_fires(state), bind=lambda state: {"message": _attn.selector_refusal(state)},
          template="{message}",
          source="vllm/platforms/cuda.py::CudaPlatform.get_attn_backend_cls (vllm/v1/attention/selector.py::"
                 "get_attn_backend)",
          description="the attention selector finds no backend for the layer (sm_90 priority list, filtered by "
                      "head size, dtype, PCP and, from 0.30.0, DCP support) or refuses --attention-backend"),
    Check("MI_attn_assert", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_attn_assert"), template="",
          source="vllm/model_executor/models/{llama,qwen2,qwen3,qwen3_moe,minimax_m2,mixtral}.py (the attention "
                 "module's __init__)",
          description="the attention module's bare asserts: heads divide by tp, KV heads divide by tp or tp by "
                      "them"),
    Check("MI_tp_gt_experts", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_tp_gt_experts"), bind=_mi_values,
          template="Tensor parallel size {tp} is greater than the number of experts {experts}.",
          source="vllm/model_executor/models/{qwen3_moe,minimax_m2,ernie45_moe}.py, mimo_v2_flash.py / mimo_v2.py "
                 "(the MoE block's __init__)",
          description="the MoE block refuses a tensor-parallel size above the expert count"),
    # Nemotron-H's first Mamba-2 mixer (kvguard.quant.nemotron_h): bare asserts with a message, before the mixer
    # builds any weight, so BF16 and quantized checkpoints alike
    Check("MI_mamba2_heads", "0.24.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_mamba2_heads"),
          template="Tensor parallel world size must divide num heads.",
          source="vllm/model_executor/layers/mamba/mamba_mixer2.py::MambaMixer2.__init__ (layer 0 of "
                 "vllm/model_executor/models/nemotron_h.py; kvguard.quant.nemotron_h)",
          description="Nemotron-H: tp must divide mamba_num_heads (the first Mamba layer's mixer)"),
    Check("MI_mamba2_groups", "0.24.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_mamba2_groups"),
          template="If tensor parallel world size does not divide num_groups, then num_groups must equal 1.",
          source="vllm/model_executor/layers/mamba/mamba_mixer2.py::MambaMixer2.__init__ (layer 0 of "
                 "vllm/model_executor/models/nemotron_h.py; kvguard.quant.nemotron_h)",
          description="Nemotron-H: tp must divide n_groups unless it is 1 (the first Mamba layer's mixer)"),
    Check("MI_dsv4_attn_heads", "0.20.0", "0.21.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_dsv4_attn_heads"), bind=_mi_values,
          template="DeepseekV4 attention does not support {heads} heads (must be <= 128).",
          source="vllm/model_executor/layers/deepseek_v4_attention.py::DeepseekV4MultiHeadLatentAttentionWrapper "
                 "(kvguard.quant.dsv4)",
          description="DeepSeek-V4: at most 128 query heads per rank (the MLA wrapper, after the projections)"),
    Check("MI_dsv4_flashmla_heads", "0.22.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_dsv4_flashmla_heads"), bind=_mi_values,
          template="DeepseekV4 FlashMLA does not support {heads} heads (FP8 decode kernel requires h_q in {{64, 128}}).",
          source="vllm/models/deepseek_v4/nvidia/flashmla.py::DeepseekV4FlashMLAAttention.get_padded_num_q_heads "
                 "(kvguard.quant.dsv4)",
          description="DeepSeek-V4 on compute capability 9.0 (FlashMLA): at most 128 query heads per rank"),
    Check("MI_dsv4_attention_backend", "0.24.0", stage="model_init", scope="feature", options=("attention_backend",),
          when=lambda state: _mi_fires(state, "MI_dsv4_attention_backend"), bind=_mi_values,
          template="{backend} is not a DeepSeek V4 attention backend. Use FLASHINFER_MLA_SPARSE_DSV4 for DeepSeek V4 "
                   "FlashInfer sparse MLA.",
          source="vllm/models/deepseek_v4/nvidia/model.py::_select_dsv4_attn_cls (kvguard.quant.dsv4)",
          description="DeepSeek-V4: --attention-backend FLASHINFER_MLA_SPARSE / FLASHINFER_MLA_SPARSE_SM120 is "
                      "refused when the model picks its attention class (layer 0; 0.27.0 - 0.28.0 before the "
                      "embedding); every other name but FLASHINFER_MLA_SPARSE_DSV4 builds FlashMLA's class on "
                      "compute capability 9.0"),
    Check("MI_dsv4_moe_backend", "0.20.0", stage="model_init", scope="feature", options=("moe_backend",),
          when=lambda state: _mi_fires(state, "MI_dsv4_moe_backend"), bind=_mi_values,
          template="moe_backend='{name}' is not supported for {kind} MoE. Expected one of {names}.",
          source="vllm/model_executor/layers/fused_moe/oracle/mxfp4.py::map_mxfp4_backend (the FP4 experts' "
                 "Mxfp4MoEMethod), oracle/fp8.py::map_fp8_backend (the FP8 experts' Fp8MoEMethod), "
                 "oracle/nvfp4.py::map_nvfp4_backend (ModelOptNvFp4FusedMoE) (kvguard.quant.dsv4)",
          description="DeepSeek-V4's routed experts: a --moe-backend the release takes but the experts' map lacks "
                      "is refused on every GPU once FusedMoE's own checks pass — MXFP4 experts from 0.21.0 "
                      "(cutlass, flashinfer_cutedsl, flashinfer_b12x, flydsl, hpc, batched_triton, rdna3 where the "
                      "release has them), FP8 experts from 0.20.1 (e.g. flashinfer_cutedsl, emulation), NVFP4 "
                      "experts from 0.22.0 (e.g. triton, deep_gemm, aiter)"),
    Check("MI_dsv4_nvfp4_clamp_backend", "0.22.0", stage="model_init", scope="feature", options=("moe_backend",),
          when=lambda state: _mi_fires(state, "MI_dsv4_nvfp4_clamp_backend"), bind=_mi_values,
          template="Model sets swiglu_limit={limit}, but the explicitly requested moe_backend='{name}' does not apply "
                   "the SwiGLU clamp. Use {alternatives} instead.",
          source="vllm/model_executor/layers/fused_moe/oracle/nvfp4.py::select_nvfp4_moe_backend "
                 "(NVFP4_BACKENDS_WITH_CLAMP; the NVFP4 experts' ModelOptNvFp4FusedMoE; kvguard.quant.dsv4)",
          description="DeepSeek-V4 exported by ModelOpt with NVFP4 experts and a swiglu_limit: a named --moe-backend "
                      "whose NVFP4 backend does not apply the SwiGLU clamp is refused on every GPU (0.22.0 - 0.23.0 "
                      "all but flashinfer_trtllm; 0.24.0 - 0.27.x all but it, flashinfer_cutlass and marlin; from "
                      "0.28.0 flashinfer_b12x, and flashinfer_cutedsl in the batched activation format (left open))"),
    Check("MI_dsv4_nvfp4_moe_backend", "0.22.0", "0.23.0", stage="model_init", exc="NotImplementedError",
          when=lambda state: _mi_fires(state, "MI_dsv4_nvfp4_moe_backend"),
          template="No NvFp4 MoE backend supports the deployment configuration.",
          source="vllm/model_executor/layers/fused_moe/oracle/nvfp4.py::select_nvfp4_moe_backend (the NVFP4 experts' "
                 "ModelOptNvFp4FusedMoE; vllm/models/deepseek_v4/quant_config.py; kvguard.quant.dsv4)",
          description="DeepSeek-V4 exported by ModelOpt with NVFP4 experts (moe_quant_algo NVFP4): experts with a "
                      "swiglu_limit may take FlashInfer TRT-LLM only, which compute capability 9.0 lacks, until "
                      "0.24.0 counts Marlin among the clamping backends"),
    Check("MI_dsv4_kv_cache_dtype", "0.20.0", "0.22.1", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_kv_cache_dtype"), bind=_mi_values,
          template="DeepseekV4 only supports fp8 kv-cache format for now, got {kv}",
          source="vllm/model_executor/layers/deepseek_v4_attention.py, vllm/models/deepseek_v4/attention.py (DeepseekV4MLAAttention.__init__) (kvguard.quant.dsv4)",
          description=_DSV4_KV_WHAT),
    Check("MI_dsv4_kv_cache_dtype", "0.23.0", "0.23.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_kv_cache_dtype"), bind=_mi_values,
          template="DeepseekV4 FlashMLA fp8 layout only supports fp8 kv-cache, got {kv}",
          source="vllm/models/deepseek_v4/attention.py::_resolve_dsv4_kv_cache_dtype (kvguard.quant.dsv4)",
          description=_DSV4_KV_WHAT),
    Check("MI_dsv4_kv_cache_dtype", "0.24.0", "0.29.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_kv_cache_dtype"), bind=_mi_values,
          template="DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got {kv}",
          source="vllm/models/deepseek_v4/attention.py::_resolve_dsv4_kv_cache_dtype (kvguard.quant.dsv4)",
          description=_DSV4_KV_WHAT),
    Check("MI_dsv4_kv_cache_dtype", "0.30.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_dsv4_kv_cache_dtype"), bind=_mi_values,
          template="DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache, got {kv}. Please set `--kv-cache-dtype "
                   "fp8` or select a backend that supports bfloat16 KV cache.",
          source="vllm/models/deepseek_v4/attention.py::_resolve_dsv4_kv_cache_dtype (kvguard.quant.dsv4)",
          description="DeepSeek-V4's sparse-MLA attention (FlashMLA's FP8 block layout on compute capability 9.0): "
                      "a --kv-cache-dtype other than auto or an fp8 one"),
    Check("MI_dsv4_mega_moe_experts", "0.20.0", "0.22.1", stage="model_init", exc="AssertionError", scope="feature",
          options=("moe_backend",), when=lambda state: _mi_fires(state, "MI_dsv4_mega_moe_experts"), template="",
          source=_S_DSV4_MOE_MEGA, description=_DSV4_MEGA_EXPERTS_WHAT + " (a bare assert on the routed experts)"),
    Check("MI_dsv4_mega_moe_experts", "0.23.0", stage="model_init", exc="AssertionError", scope="feature",
          options=("moe_backend",), when=lambda state: _mi_fires(state, "MI_dsv4_mega_moe_experts"),
          bind=_mi_values,
          template="n_physical_experts={experts} must be divisible by ep_size={ep}. Adjust num_redundant_experts.",
          source=_S_DSV4_MOE_MEGA, description=_DSV4_MEGA_EXPERTS_WHAT + " (routed + redundant)"),
    Check("MI_dsv4_experts_tp", "0.20.0", "0.23.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_experts_tp"), template="",
          source="vllm/model_executor/models/deepseek_v4.py, vllm/models/deepseek_v4/nvidia/model.py "
                 "(DeepseekV4MoE._init_fused_moe_experts; kvguard.quant.dsv4)",
          description="DeepSeek-V4 on the default MoE path: a bare assert that tp divides the routed experts"),
    Check("MI_dsv4_experts_tp", "0.24.0", "0.30.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_experts_tp"), bind=_mi_values,
          template="n_physical_experts={experts} must be divisible by tp_size={tp}. Adjust num_redundant_experts.",
          source="vllm/models/deepseek_v4/nvidia/model.py::DeepseekV4MoE._init_fused_moe_experts (kvguard.quant.dsv4)",
          description="DeepSeek-V4 on the default MoE path: tp must divide the routed + redundant experts (an assert "
                      "with a message; dropped in 0.31.0)"),
    # (the row spans 0.20.0's launch-check group; it fires from 0.20.1 only: 0.20.0 ignores the key)
    Check("MI_dsv4_expert_dtype", "0.20.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_dsv4_expert_dtype"), bind=_mi_values,
          template="Unsupported DeepSeek V4 expert_dtype={value}; expected one of ('fp4', 'fp8').",
          source="vllm/model_executor/models/deepseek_v4.py, vllm/models/deepseek_v4/quant_config.py "
                 "(DeepseekV4FP8Config.expert_dtype, read by the first block-FP8 linear; kvguard.quant.dsv4)",
          description="DeepSeek-V4: the checkpoint's expert_dtype must be fp4 (MXFP4 experts) or fp8 (block-FP8 "
                      "experts); 0.20.0 ignores it"),
    Check("MI_dsv4_shared_experts_attr", "0.20.0", "0.32.0", stage="model_init", exc="AttributeError",
          when=lambda state: _mi_fires(state, "MI_dsv4_shared_experts_attr"),
          template="'DeepseekV4Config' object has no attribute 'n_shared_experts'",
          source="vllm/model_executor/models/deepseek_v4.py, vllm/models/deepseek_v4/nvidia/model.py "
                 "(DeepseekV4MoE.__init__; kvguard.quant.dsv4)",
          description="DeepSeek-V4: a config without n_shared_experts (the config class has no default before "
                      "0.33.0) fails when the first MoE block reads it"),
    Check("MI_dsv4_shared_experts_empty", "0.20.0", stage="model_init", exc="ZeroDivisionError",
          when=lambda state: _mi_fires(state, "MI_dsv4_shared_experts_empty"),
          template="integer division or modulo by zero",
          source="vllm/model_executor/layers/quantization/utils/fp8_utils.py::validate_fp8_block_shape (the shared "
                 "experts' gate/up projection; kvguard.quant.dsv4)",
          description="DeepSeek-V4: shared experts with no rows (n_shared_experts 0, or under one weight block once "
                      "rounded to whole blocks from 0.24.0) split by tp divide by zero in the block-FP8 check"),
    Check("MI_divide", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_divide"), bind=_mi_values,
          template="{numerator} is not divisible by {denominator}",
          source=f"vllm/distributed/utils.py::ensure_divisibility ({_S_LINEAR})",
          description="a linear layer's sharded size (heads, KV-head replicas, input or output size) must "
                      "divide by tp"),
    Check("MI_merged_assert", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_merged_assert"), template="",
          source=f"{_S_LINEAR}::MergedColumnParallelLinear.__init__",
          description="each output of a merged column-parallel layer must divide by tp (bare assert)"),
    Check("MI_fused_shards", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fused_shards"), bind=_mi_values,
          template="Detected some but not all shards of {prefix} are quantized. All shards of fused layers to "
                   "have the same precision.",
          source="vllm/model_executor/layers/quantization/utils/quant_utils.py::is_layer_skipped",
          description="a fused layer (qkv_proj, gate_up_proj) whose shards the checkpoint leaves unquantized "
                      "only in part"),
    Check("MI_fp8_block_k", "0.10.2", "0.10.2", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_block_k"), bind=_mi_values,
          template="Weight input_size_per_partition = {size} is not divisible by weight quantization block_k = "
                   "{block}.",
          source=f"{_S_FP8}::Fp8LinearMethod.create_weights",
          description="block-FP8: a row-parallel layer's per-rank input must be a multiple of block_k"),
    Check("MI_fp8_block_k", "0.11.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_block_k"), bind=_mi_values,
          template="Weight input_size_per_partition = {size} is not divisible by weight quantization block_k = "
                   "{block}.",
          source=f"{_S_FP8_UTILS}::validate_fp8_block_shape",
          description="block-FP8: a row-parallel layer's per-rank input must be a multiple of block_k"),
    Check("MI_fp8_block_n", "0.10.2", "0.10.2", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_block_n"), bind=_mi_values,
          template="Weight output_partition_size = {size} is not divisible by weight quantization block_n = "
                   "{block}.",
          source=f"{_S_FP8}::Fp8LinearMethod.create_weights",
          description="block-FP8: a column-parallel layer's per-rank outputs must be multiples of block_n"),
    Check("MI_fp8_block_n", "0.11.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_block_n"), bind=_mi_values,
          template="Weight output_partition_size = {size} is not divisible by weight quantization block_n = "
                   "{block}.",
          source=f"{_S_FP8_UTILS}::validate_fp8_block_shape (merged layers with ragged shards exempt from 0.14.0: "
                 f"{_S_LINEAR}::ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch, which reads the fp8 "
                 f"config's weight_block_size; compressed-tensors block weights, {_S_CT}/schemes/"
                 f"compressed_tensors_w8a8_fp8.py, are never exempt)",
          description="block-FP8: a column-parallel layer's per-rank outputs must be multiples of block_n"),
    Check("MI_eplb_even", "0.10.2", "0.21.0", stage="model_init", exc="AssertionError", scope="feature",
          when=lambda state: _mi_fires(state, "MI_eplb_even"),
          template="EPLB currently only supports even distribution of experts across ranks.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__",
          description="with EPLB, the experts (routed + redundant) must split evenly over the EP ranks"),
    Check("MI_eplb_even", "0.22.0", stage="model_init", scope="feature",
          when=lambda state: _mi_fires(state, "MI_eplb_even"), bind=_mi_values,
          template="EPLB currently only supports even distribution of experts across ranks. Got {experts} experts "
                   "and {ep_size} EP ranks.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (0.24.0+: the MoE layer factory)",
          description="with EPLB, the experts (routed + redundant) must split evenly over the EP ranks"),
    Check("MI_redundant_without_eplb", stage="model_init", exc="AssertionError", scope="feature",
          when=lambda state: _mi_fires(state, "MI_redundant_without_eplb"),
          template="Redundant experts are only supported with EPLB.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (0.24.0+: the MoE layer factory), "
                 "vllm/model_executor/models/glm4_moe_lite.py (Glm4MoeLite: Glm4MoE without enable_eplb)",
          description="--enable-eplb with redundant experts on a model whose MoE layers take the redundant experts "
                      "but not EPLB (GLM-4.7-Flash): FusedMoE asserts that none came without EPLB"),
    Check("MI_eplb_unsupported", "0.10.2", "0.11.0", stage="model_init", exc="NotImplementedError", scope="feature",
          when=lambda state: _mi_fires(state, "MI_eplb_unsupported"),
          template="EPLB is only supported for FP8 quantization for now.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (the quant method must be Fp8MoEMethod or unquantized)",
          description="--enable-eplb with compressed-tensors, AWQ, GPTQ or ModelOpt (FP8 / NVFP4) MoE experts: up to "
                      "0.11.0 only the fp8 method's and the unquantized MoE layers take EPLB"),
    Check("MI_eplb_unsupported", "0.11.1", "0.14.1", stage="model_init", exc="NotImplementedError", scope="feature",
          when=lambda state: _mi_fires(state, "MI_eplb_unsupported"), bind=_mi_values,
          template="EPLB is not supported {method}. EPLB is only supported for FP8 quantization for now.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (the quant method's supports_eplb, read after the method is "
                 f"built and before its create_weights)",
          description="--enable-eplb with a MoE method without EPLB support (the AWQ / GPTQ Marlin MoE methods, "
                      "MoeWNA16Method, CompressedTensorsWNA16MarlinMoEMethod; CompressedTensorsWNA16MoEMethod in "
                      "0.11.x; ModelOptFp8MoEMethod; ModelOptNvFp4FusedMoE up to 0.12.x; the compressed-tensors NVFP4 "
                      "experts' CompressedTensorsW4A4MoeMethod, 0.12.0+ CompressedTensorsW4A4Nvfp4MoEMethod)"),
    Check("MI_eplb_unsupported", "0.15.0", stage="model_init", exc="NotImplementedError", scope="feature",
          when=lambda state: _mi_fires(state, "MI_eplb_unsupported"), bind=_mi_values,
          template="EPLB is not supported {method}.",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (0.24.0+: vllm/model_executor/layers/fused_moe/"
                 f"routed_experts.py, which reads the MoE parallel config's enable_eplb; the quant method's "
                 f"supports_eplb, read after the method is built and before its create_weights)",
          description="--enable-eplb with a MoE method without EPLB support (the AWQ / GPTQ MoE methods, "
                      "MoeWNA16Method, CompressedTensorsWNA16MarlinMoEMethod up to 0.26.x, from 0.27.0 "
                      "CompressedTensorsWNA16MoEMethod on a backend other than TRITON; ModelOptFp8MoEMethod; "
                      "CompressedTensorsW4A4Nvfp4MoEMethod (compressed-tensors NVFP4 / NVFP4A16 experts) on the FP4 "
                      "Marlin backend of compute capability 9.0)"),
    Check("MI_gptoss_world", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_gptoss_world"), template="",
          source="vllm/model_executor/models/gpt_oss.py::MLPBlock.__init__ (torch.distributed's world size: "
                 "vllm/distributed/parallel_state.py::init_distributed_environment)",
          description="gpt-oss: the intermediate size must divide torch.distributed's world size, tp x pp x pcp x dp "
                      "with or without expert parallel (bare assert)"),
    Check("MI_moe_intermediate", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_moe_intermediate"), template="",
          source=f"{_S_FUSED_MOE}::FusedMoE.__init__ (0.24.0+: vllm/model_executor/layers/fused_moe/config.py)",
          description="the MoE intermediate size must divide by the MoE TP size (tp x dp x pcp without expert "
                      "parallel; bare assert)"),
    Check("MI_moe_wna16_group", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_moe_wna16_group"), template="",
          source="vllm/model_executor/layers/quantization/moe_wna16.py::MoeWNA16Method.create_weights (the fall-back "
                 "of the AWQ / GPTQ MoE methods when the fused MoE Marlin kernel does not take the layer)",
          description="AWQ / GPTQ MoE experts on the MoE WNA16 kernels: the group size, halved until it divides the "
                      "per-rank intermediate size and the hidden size, must stay at least 32 (bare assert)"),
    Check("MI_moe_wna16_int8_group", "0.27.0", "0.28.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_moe_wna16_int8_group"), template="",
          source="vllm/model_executor/layers/quantization/moe_wna16.py::MoeWNA16Method.__init__",
          description="8-bit GPTQ MoE experts on the MoE WNA16 fall-back must have group_size -1 (bare assert, "
                      "before the kernel backend is selected)"),
    Check("MI_wna16_moe_backend_name", "0.26.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_wna16_moe_backend_name"), bind=_mi_values,
          template="moe_backend='{moe_backend}' is not supported for WNA16 MoE. Expected one of {names}.",
          source=f"{_S_INT_WNA16}::map_wna16_backend",
          description="--moe-backend with AWQ / GPTQ MoE experts must name a WNA16 MoE backend (the list "
                      "changes by release)"),
    Check("MI_wna16_moe_backend_unsupported", "0.26.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_wna16_moe_backend_unsupported"), bind=_mi_values,
          template="WNA16 MoE backend '{backend}' does not support the deployment configuration since {reason}.",
          source=f"{_S_INT_WNA16}::select_wna16_moe_backend (0.27.0+: _backend_incompatibility_reason first)",
          description="the WNA16 MoE backend --moe-backend names must take the layer (on the default host, CUDA "
                      "compute capability 9.0: FlashInfer TRT-LLM needs SM100; Triton takes no expert bias)"),
    Check("MI_ct_wna16_moe_hidden", "0.24.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_wna16_moe_hidden"), bind=_mi_values,
          template="CompressedTensors WNA16 MoE requires hidden_size ({hidden}) to be divisible by group_size "
                   "({group}).",
          source=f"{_S_CT}/compressed_tensors_moe/compressed_tensors_moe_wna16.py::"
                 "CompressedTensorsWNA16MoEMethod.create_weights",
          description="compressed-tensors integer-weight MoE experts on the WNA16 MoE method (up to 0.26.x the "
                      "fall-back where the fused Marlin MoE kernel does not take the layer; from 0.27.0 always): "
                      "the group size must divide the hidden size"),
    Check("MI_ct_wna16_moe_group", "0.24.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_wna16_moe_group"), bind=_mi_values,
          template="CompressedTensors WNA16 MoE with static group scales requires the MoE intermediate size per "
                   "tensor-parallel partition ({size}) to be divisible by group_size ({group}). Scale groups would "
                   "otherwise cross TP shard boundaries; use a compatible TP size or enable expert parallelism.",
          source=f"{_S_CT}/compressed_tensors_moe/compressed_tensors_moe_wna16.py::"
                 "CompressedTensorsWNA16MoEMethod.create_weights",
          description="compressed-tensors integer-weight MoE experts on the WNA16 MoE method: the group size must "
                      "divide the per-rank MoE intermediate size (the MoE TP size is tp x dp without expert "
                      "parallelism)"),
    Check("MI_ct_wna16_moe_int8_group", "0.23.0", "0.23.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_ct_wna16_moe_int8_group"), template="",
          source=f"{_S_CT}/compressed_tensors_moe/compressed_tensors_moe_wna16_marlin.py::CompressedTensorsWNA16MarlinMoEMethod.__init__",
          description="compressed-tensors 8-bit integer-weight MoE experts with group scales (W8A16 group 128 and the "
                      "like) on the WNA16 MoE method that selects a kernel backend: group_size must be -1 (bare "
                      "assert, before the selection)"),
    Check("MI_ct_wna16_moe_int8_group", "0.27.0", "0.28.0", stage="model_init", exc="AssertionError",
          when=lambda state: _mi_fires(state, "MI_ct_wna16_moe_int8_group"), template="",
          source=f"{_S_CT}/compressed_tensors_moe/compressed_tensors_moe_wna16.py::CompressedTensorsWNA16MoEMethod.__init__",
          description="compressed-tensors 8-bit integer-weight MoE experts with group scales (W8A16 group 128 and the "
                      "like) on the WNA16 MoE method that selects a kernel backend: group_size must be -1 (bare "
                      "assert, before the selection)"),
    Check("MI_wna16_moe_none", "0.20.0", stage="model_init", exc="NotImplementedError",
          when=lambda state: _mi_fires(state, "MI_wna16_moe_none"),
          template="No WNA16 MoE backend supports the deployment configuration.",
          source=f"{_S_INT_WNA16}::select_wna16_moe_backend",
          description="no WNA16 MoE backend of the host's priority list takes the AWQ / GPTQ MoE layer"),
    Check("MI_fp8_moe_block_n", "0.10.2", "0.29.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_moe_block_n"), bind=_mi_values,
          template="The output_size of gate's and up's weight = {size} is not divisible by weight quantization "
                   "block_n = {block}.",
          source=f"{_S_FP8}::Fp8MoEMethod.create_weights (0.29.0: unless the block scales are refined)",
          description="block-FP8 MoE: the per-partition intermediate size must be a multiple of block_n"),
    Check("MI_fp8_moe_block_n", "0.30.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_moe_block_n"), bind=_mi_values,
          template="The output_size of gate's and up's weight = {size} is not divisible by weight quantization "
                   "block_n = {block}.",
          source=f"{_S_FP8_UTILS}::validate_fp8_block_shape_moe (when the block scales cannot be refined)",
          description="block-FP8 MoE: the per-partition intermediate size must be a multiple of block_n"),
    Check("MI_fp8_moe_block_k", "0.10.2", "0.29.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_moe_block_k"), bind=_mi_values,
          template="The input_size of down's weight = {size} is not divisible by weight quantization block_k = "
                   "{block}.",
          source=f"{_S_FP8}::Fp8MoEMethod.create_weights (0.29.0: unless the block scales are refined)",
          description="block-FP8 MoE with tp > 1: the per-partition intermediate size must be a multiple of block_k"),
    Check("MI_fp8_moe_block_k", "0.30.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_fp8_moe_block_k"), bind=_mi_values,
          template="The input_size of down's weight = {size} is not divisible by weight quantization block_k = "
                   "{block}.",
          source=f"{_S_FP8_UTILS}::validate_fp8_block_shape_moe (when the block scales cannot be refined)",
          description="block-FP8 MoE with tp > 1: the per-partition intermediate size must be a multiple of block_k"),
    Check("MI_ct_fused_ignore", "0.10.2", "0.29.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_fused_ignore"), bind=_mi_values,
          template="Found a different quantization schemes for {shards} in {prefix}. vLLM requires all to use the "
                   "same scheme.",
          source=f"{_S_CT}/utils.py::should_ignore_layer (CompressedTensorsConfig.get_scheme)",
          description="compressed-tensors: the ignore list names some but not all shards of a fused layer (q_proj "
                      "but not k_proj / v_proj of qkv_proj)"),
    Check("MI_ct_fused_ignore", "0.30.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_fused_ignore"), bind=_mi_values,
          template="Found different quantization schemes for the shards of {prefix}. vLLM requires all to use the "
                   "same scheme.",
          source=f"{_S_CT}/utils.py::should_ignore_layer (CompressedTensorsConfig.get_scheme_dict)",
          description="compressed-tensors: the ignore list names some but not all shards of a fused layer (q_proj "
                      "but not k_proj / v_proj of qkv_proj), and not the fused layer itself"),
    Check("MI_ct_no_scheme", "0.10.2", "0.22.1", stage="model_init", exc="NotImplementedError",
          when=lambda state: _mi_fires(state, "MI_ct_no_scheme"),
          template="No compressed-tensors compatible scheme was found.",
          source=f"{_S_CT}/compressed_tensors.py::CompressedTensorsConfig._get_scheme_from_parts",
          description="compressed-tensors FP8 weights with block scales (0.10.2) and NVFP4 weights with FP8 "
                      "activations (0.10.2-0.22.x): no scheme takes them (the first quantized linear layer refuses)"),
    Check("MI_ct_nvfp4a16_moe", "0.10.2", "0.13.0", stage="model_init", exc="AttributeError",
          when=lambda state: _mi_fires(state, "MI_ct_nvfp4a16_moe"),
          template="'NoneType' object has no attribute 'num_bits'",
          source=f"{_S_CT}/compressed_tensors_moe.py::CompressedTensorsMoEMethod.get_moe_method (its "
                 f"CompressedTensorsConfig._is_dynamic_token_w8a8 test compares the weights' num_bits with the "
                 f"input activations', which are None; run from FusedMoE.__init__ after the intermediate-size assert)",
          description="compressed-tensors NVFP4A16 (weight-only NVFP4) on the MoE experts of Qwen3-MoE / Mixtral: no "
                      "MoE method takes them up to 0.13.x (the W4A4 test wants activations, the FP8 tests decline) "
                      "and the INT8 test reads the absent activations (the first MoE layer refuses)"),
    Check("MI_ct_nvfp4_activations", "0.23.0", "0.28.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_nvfp4_activations"),
          template="('For NVFP4 weights, input quantization must also be NVFP4 format, ', 'None for NVFP4A16')",
          source=f"{_S_CT}/compressed_tensors.py::CompressedTensorsConfig._get_scheme_from_parts (the ValueError "
                 f"is given two arguments: its message is the tuple's repr)",
          description="compressed-tensors NVFP4 weights with FP8 input activations: the NVFP4 branch refuses any "
                      "input activations other than NVFP4 or none (the first quantized linear layer refuses)"),
    Check("MI_ct_nvfp4_activations", "0.29.0", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_nvfp4_activations"),
          template="For NVFP4 weights, input quantization must also be NVFP4 format, None for NVFP4A16",
          source=f"{_S_CT}/compressed_tensors.py::CompressedTensorsConfig._get_scheme_from_parts",
          description="compressed-tensors NVFP4 weights with FP8 input activations: the NVFP4 branch refuses any "
                      "input activations other than NVFP4 or none (the first quantized linear layer refuses)"),
    Check("MI_ct_no_target", "0.17.0", "0.17.1", stage="model_init", exc="ValueError",
          when=lambda state: _mi_fires(state, "MI_ct_no_target"), bind=_mi_values,
          template="Unable to find matching target for {prefix} in the compressed-tensors config.",
          source=f"{_S_CT}/utils.py::find_matched_target (vllm/model_executor/models/deepseek_v2.py::"
                 f"DeepSeekV2FusedQkvAProj)",
          description="compressed-tensors with the 'Linear' target on DeepSeek-V2/V3 with a q LoRA rank: 0.17.x "
                      "builds fused_qkv_a_proj as DeepSeekV2FusedQkvAProj, which no target matches (unless ignored)"),
    Check("MI_awq_input", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_awq_input"),
          template="The input size is not aligned with the quantized weight shape. This can be caused by too large "
                   "tensor parallel size.",
          source=f"{_S_AWQ}::AWQLinearMethod.create_weights (0.24.0+: {_S_AUTO_AWQ}::BaseAWQLinearMethod."
                 f"create_weights; on CUDA the Marlin kernels' fall-back for layers whose per-rank shape Marlin "
                 f"does not take)",
          description="AWQ: a layer's per-rank input must be whole quantization groups (group_size -1: the whole "
                      "input, so no row-parallel split)"),
    Check("MI_awq_output", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_awq_output"),
          template="The output size is not aligned with the quantized weight shape. This can be caused by too large "
                   "tensor parallel size.",
          source=f"{_S_AWQ}::AWQLinearMethod.create_weights (0.24.0+: {_S_AUTO_AWQ}::BaseAWQLinearMethod."
                 f"create_weights)",
          description="AWQ: a layer's per-rank output must fill whole packed 32-bit words (8 four-bit values)"),
    Check("MI_nvfp4_input", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_nvfp4_input"),
          template="Unsupported model when in features size is not multiple of 16",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptNvFp4LinearMethod.create_weights "
                 "(0.33.0: KNvfp4Static.create_weights of ModelOptLinearMethod)",
          description="ModelOpt NVFP4 (quant_algo NVFP4): a quantized linear layer's per-rank input size must be a "
                      "multiple of 16 (the kernel the default host selects, FP4 Marlin, checks no size while the "
                      "layer is built)"),
    Check("MI_nvfp4a16_input", "0.21.0", "0.29.0", stage="model_init",
          when=lambda state: _mi_fires(state, "MI_nvfp4a16_input"),
          template="Unsupported model: input feature size is not a multiple of 16.",
          source="vllm/model_executor/layers/quantization/modelopt.py::ModelOptNvFp4W4A16LinearMethod.create_weights",
          description="ModelOpt NVFP4 built with the weight-only method (0.29.0: config groups that quantize no "
                      "input activations, read as W4A16_NVFP4): a quantized linear layer's per-rank input size must "
                      "be a multiple of 16"),
    # (the row spans 0.24.0's launch-check group, 0.24.0 - 0.25.1; it fires in the releases of
    # kvguard.quant.modelopt_shards.TIE_RAISES, 0.24.0 only: 0.25.0's base class shares the weight)
    Check("MI_lm_head_tie", "0.24.0", "0.25.1", stage="model_init", exc="NotImplementedError",
          when=lambda state: _mi_fires(state, "MI_lm_head_tie"), template="",
          source="vllm/model_executor/models/llama.py::LlamaForCausalLM.__init__ -> vocab_parallel_embedding.py::"
                 "ParallelLMHead.tie_weights -> quantization/base_config.py::QuantizeMethodBase.tie_weights",
          description="ModelOpt FP8 / NVFP4 with LlamaForCausalLM / MistralForCausalLM and tied word embeddings: "
                      "the LM head takes a linear method (the ModelOpt one, or UnquantizedLinearMethod when "
                      "excluded) whose tie_weights is the base class's bare NotImplementedError — in 0.24.0 only: "
                      "0.25.0+ the base shares the embedding's weight, so the row never fires in 0.25.x"),
    # ===================== worker start: attention backends ==================
    # the workers build the models first: the target (model_init above), which 0.10.2 - 0.32.0 wrap for LoRA
    # (kvguard.rules.lora_config), then the speculative draft
    Step("w_lora_class_unmodelled", "0.10.2", "0.32.0", options=("enable_lora",), stage="worker",
         apply=_lora.lora_class_unmodelled,
         description="--enable-lora for a model class without SupportsLoRA: the worker's refusal as it wraps the "
                     "model (LoRAModelRunnerMixin.load_lora_model) is not rendered (undecidable)"),
    Step("w_draft_load", "0.10.2", "0.14.1", stage="worker", apply=_sc.draft_loads,
         description="an EAGLE / EAGLE-3 draft whose renamed architecture the registry does not hold (looked up "
                     "only by the workers' model loader before 0.15.0): undecidable, the loader's error is not "
                     "modelled"),
    # the V1 runner's first EPLB step, in the profile run's dummy batch, before the KV cache is allocated (where
    # the checks below run)
    Check("W_eplb_no_moe_model", stage="worker", exc="AssertionError", scope="feature",
          when=_eplb_without_moe_model, template="",
          source="vllm/v1/worker/gpu_model_runner.py::GPUModelRunner.eplb_step (the profile run's dummy batch; "
                 "the V2 runner, vllm/v1/worker/gpu/eplb_utils.py, steps only registered MoE models)",
          description="--enable-eplb with a MoE model that implements no MixtureOfExperts (gpt-oss, MiniMax-M2, "
                      "Mixtral in 0.10.2, GLM-4.x MoE in 0.10.2-0.11.0, DeepSeek-V4 in 0.20.0-0.22.x): the V1 "
                      "model runner finds no model to balance (bare assert); the V2 runner skips EPLB"),
    # the workers' context-parallel compatibility check on the backend the release selects (kvguard.attention:
    # CUDA, compute capability 9.0, non-MLA FlashAttention / --attention-backend; MLA -dcp passes); a bare
    # AssertionError in a worker, after the configuration was accepted
    Check("W_dcp_lse", "0.10.2", "0.19.1", stage="worker", exc="AssertionError", scope="env",
          when=lambda state: state.dcp > 1 and _attn.dcp_lse_refused(state), bind=_attn.impl_bind,
          template="DCP requires attention impls to return the softmax lse for decode, but the impl {impl} does not "
                   "return the softmax lse for decode.",
          source="vllm/v1/worker/gpu_model_runner.py (0.13.0+: vllm/v1/worker/cp_utils.py::"
                 "check_attention_cp_compatibility)",
          description="-dcp needs an attention implementation that returns the softmax LSE for decode "
                      "(FlashAttention / FlashInfer from 0.11.1; Triton / Flex never)"),
    Check("W_dcp_lse", "0.20.0", stage="worker", exc="AssertionError", scope="env",
          when=lambda state: state.dcp > 1 and _attn.dcp_lse_refused(state), bind=_attn.impl_bind,
          template="Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE "
                   "during decode, but {impl} does not. Try a different backend by setting --attention-backend or "
                   "disable DCP.",
          source="vllm/v1/worker/cp_utils.py::check_attention_cp_compatibility",
          description="-dcp needs an attention implementation that returns the softmax LSE for decode"),
    Check("W_pcp_impl", "0.13.0", "0.25.1", stage="worker", exc="AssertionError", scope="env",
          when=lambda state: state.pcp > 1 and _attn.pcp_refused(state), bind=_attn.impl_bind,
          template="PCP requires attention impls' support, but the impl {impl} does not support PCP.",
          source="vllm/v1/worker/cp_utils.py::check_attention_cp_compatibility",
          description="-pcp needs an attention implementation that supports it (none of these releases' does)"),
    Check("W_mrv2_pcp", "0.26.0", "0.32.0", stage="worker", exc="NotImplementedError", scope="env",
          when=lambda state: state.pcp > 1 and _attn.mrv2_pcp_unmodelled(state),
          template="MRV2 PCP currently supports MLA models only.",
          source="vllm/v1/worker/gpu/pcp_manager.py::PCPManager.validate_config (initialize_kv_cache)",
          description="-pcp on the V2 model runner: its PCP checks (listed as skipped for MLA models; a non-MLA "
                      "model was refused by the attention selector before)"),
    Check("W_dspark_dcp", "0.29.0", stage="worker", scope="env",
          when=lambda state: _dspark_dcp_unmodelled(state),
          template="{impl} does not support {query_mode} MLA attention for DSpark with decode context parallelism. "
                   "Select a backend with explicit DSpark DCP support or set decode_context_parallel_size=1.",
          source="vllm/model_executor/layers/attention/mla_attention.py::MLACommonMetadataBuilder."
                 "_validate_dspark_dcp_support",
          description="DSpark with -dcp on an MLA model: whether the selected MLA backend supports DSpark's draft "
                      "queries with DCP (listed as skipped: not modelled)"),
    Check("W_pcp_backend", "0.26.0", stage="worker", exc="AssertionError", scope="env",
          when=lambda state: state.pcp > 1 and _attn.pcp_backend_refused(state),
          template="PCP requires attention backend support, but {backend} does not support PCP.",
          source="vllm/v1/worker/cp_utils.py::check_attention_cp_compatibility",
          description="-pcp on the selected backend: the selector kept only backends that support PCP (every MLA "
                      "backend does; a non-MLA model was refused by the selector), so this check passes"),
    # ===================== the engine core, after the KV cache (0.13.0 - 0.19.1) ====================
    Check("EC_reasoning_parser", "0.13.0", "0.19.1", stage="worker", exc="KeyError", scope="feature",
          when=_parsers.unknown_reasoning_parser_in_engine, bind=_parsers.reasoning_bind, template="{quoted}",
          source="vllm/v1/structured_output/__init__.py::StructuredOutputManager (EngineCore.__init__, after the KV "
                 "cache is set up), vllm/reasoning/abs_reasoning_parsers.py::ReasoningParserManager."
                 "get_reasoning_parser",
          description="a --reasoning-parser the release does not register (kvguard/data/parser_names.json; a "
                      "--reasoning-parser-plugin or --skip-tokenizer-init: undecidable): str(KeyError(\"Reasoning "
                      "parser 'NAME' not found. Available parsers: A, B, …\"))"),
)


def rows_for(release: Release) -> list[Row]:
    """The rows that apply to ``release``, in evaluation order."""
    return [row for row in RULES if row.applies(release)]


#: Upstream checks kvguard does not evaluate, with the reason (rendered in docs/rules.md).
#: Each needs an input kvguard does not take yet; with vLLM's defaults none of them fires.
NOT_MODELLED: tuple[tuple[str, str, "str | None", str], ...] = (
    ("PC_api_rank", "0.11.0", "0.11.0", "internal API-server process rank (defaults always pass)"),
    ("PV_api_rank", "0.11.1", None, "internal API-server process rank (defaults always pass)"),
    ("PV_numa", "0.20.0", None, "--numa-bind* flags"),
    ("PA_backend_type", "0.10.2", None, "an executor class object (Python API only; CLI values are strings)"),
    ("PA_nsight", "0.10.2", None, "--ray-workers-use-nsight"),
    ("PC_elastic_max_dp", "0.30.0", None, "--elastic-ep-max-dp-size"),
    ("MC_seed_external_launcher", "0.10.2", "0.11.2", "--seed with the external_launcher executor"),
    ("MC_torch_shm", "0.19.0", None, "--mm-tensor-ipc torch_shm"),
    ("MC_hcsp_platform", "0.32.0", None, "--enable-hc-sp"),
    ("MC_hcsp_model", "0.32.0", None, "--enable-hc-sp"),
    ("MC_hcsp_pp", "0.32.0", None, "--enable-hc-sp"),
    ("VC_dcp_block_size", "0.11.1", "0.17.1", "the platform-filled KV block size"),
    ("VC_nixl_pcp", "0.29.0", "0.29.0", "--kv-transfer-config with NixlConnector"),
    ("VC_nixl_dcp", "0.29.0", None, "--kv-transfer-config with NixlConnector"),
    ("VC_nixl_dcp_mla", "0.29.0", None, "--kv-transfer-config with NixlConnector"),
    ("VC_nixl_dcp_hybrid", "0.29.0", "0.29.0", "--kv-transfer-config with NixlConnector"),
    ("VC_hisparse_pp", "0.30.0", None, "--attention-config with HiSparse"),
    ("VC_hisparse_dcp", "0.30.0", None, "--attention-config with HiSparse"),
    ("VC_batch_sharded", "0.29.0", None, "--enable-batch-sharded-sampling"),
    ("VC_adaptive_pp", "0.29.0", None, "speculative adaptive verification"),
    ("W_mtp_interleave", "0.13.0", None, "speculative decoding with cp_kv_cache_interleave_size > 1 on the "
                                         "selected attention implementation"),
    ("EA_spec_lora_tokens", "0.15.0", None, "--enable-lora with speculative decoding (max_num_batched_tokens)"),
    ("VC_recoverssm_pp", "0.29.0", None, "RecoverSSM cache mode"),
    ("MI_dsv4_mega_moe_routing", "0.20.0", None, "DeepSeek-V4's layers before its first MoE block (MegaMoE "
                                                 "with a checkpoint's scoring function, top-k normalisation or "
                                                 "expert dtype it does not support)"),
)
