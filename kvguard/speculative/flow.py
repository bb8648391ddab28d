"""The state ``SpeculativeConfig`` builds, and the steps the ``SC_*`` rows run (kvguard's own code).

Each function here is one derivation of ``EngineArgs.create_speculative_config`` /
``SpeculativeConfig.__post_init__`` / ``_verify_args`` as a release performs it; the refusals are
:mod:`kvguard.rules.table` rows that read :class:`SpecState` (``state.sc``).  Version boundaries are the
releases' own (read from each release's ``vllm/config/speculative.py``); names, lists and messages
are upstream facts.
"""

from __future__ import annotations

from ..errors import Undecidable
from ..versions import Release
from . import SPEC_FLAGS

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["SpecState", "DraftModel"]

#: ``MTPModelTypes`` (0.11.1+; ``MTP_MODEL_TYPES`` in 0.11.0): method names that mean MTP, per release
_MTP_TYPES: tuple[tuple[str, str, Optional[str]], ...] = (
    ("deepseek_mtp", "0.11.0", None), ("dots3_note_mtp", "0.28.0", None), ("mimo_mtp", "0.11.0", None),
    ("mimo_v2_mtp", "0.21.0", None), ("glm4_moe_mtp", "0.11.0", None), ("glm4_moe_lite_mtp", "0.15.0", None),
    ("glm_ocr_mtp", "0.16.0", None), ("ernie_mtp", "0.11.0", None), ("nemotron_h_mtp", "0.17.0", None),
    ("exaone_moe_mtp", "0.14.0", None), ("exaone4_5_mtp", "0.20.0", None), ("qwen3_next_mtp", "0.11.0", None),
    ("qwen4_exp_mtp", "0.29.0", None), ("qwen3_5_mtp", "0.17.0", None), ("longcat_flash_mtp", "0.11.0", None),
    ("bailing_hybrid_v3_mtp", "0.28.0", None), ("minimax_m3_mtp", "0.24.0", None),
    ("bailing_hybrid_mtp", "0.25.0", None), ("mtp", "0.11.0", None), ("kimi_k3_mtp", "0.27.0", None),
    ("pangu_ultra_moe_mtp", "0.11.1", None), ("step3p5_mtp", "0.15.1", None), ("step5_mtp", "0.33.0", None),
    ("hy_v3_mtp", "0.20.0", None), ("hy_v4_mtp", "0.29.0", None), ("gemma4_mtp", "0.21.0", None),
    ("inkling_mtp", "0.26.0", None), ("glm5_next_mtp", "0.30.0", None),
)
#: the draft model types 0.10.2 detects as MTP (and the method each becomes)
_MTP_0102 = {"deepseek_mtp": "deepseek_mtp", "mimo_mtp": "deepseek_mtp", "glm4_moe_mtp": "deepseek_mtp",
             "ernie_mtp": "ernie_mtp", "qwen3_next_mtp": "qwen3_next_mtp"}
#: 0.10.2: target text model types whose checkpoint is its own MTP draft when no model is given
_MTP_TARGETS_0102 = ("deepseek_v3", "mimo", "ernie4_5_moe", "qwen3_next")

#: ``eagle3_target_supported`` / ``aux_hidden_states_supported`` (substrings of the target's text model type)
EAGLE3_TARGETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("0.10.2", "0.10.2", ("llama", "qwen")),
    ("0.11.0", "0.15.1", ("llama", "qwen", "minicpm", "gpt_oss")),
    ("0.16.0", "0.16.0", ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe")),
    ("0.17.0", "0.17.1", ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe",
                          "nemotron_h")),
    ("0.18.0", "0.19.0", ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe",
                          "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25")),
    ("0.19.1", "0.20.2", ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe",
                          "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25", "minimax_m2", "gemma4")),
    ("0.21.0", "0.21.0", ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe",
                          "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25", "minimax_m2", "gemma4",
                          "laguna")),
)


def mtp_types(release: Release) -> tuple[str, ...]:
    if not release.within("0.11.0"):
        return ()
    if not release.within("0.11.1"):
        return ("deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp")
    return tuple(name for name, since, until in _MTP_TYPES if release.within(since, until))


def eagle_types(release: Release) -> tuple[str, ...]:
    """``EagleModelTypes`` (what async scheduling accepts as EAGLE-like)."""
    if not release.within("0.11.1"):
        return ("eagle", "eagle3", "mtp")
    out: tuple[str, ...] = ("eagle", "eagle3")
    if release.within("0.17.0"):
        out += ("extract_hidden_states",)
    out += mtp_types(release)
    if release.within("0.20.0"):
        out += ("dflash",)
    return out


def eagle3_targets(release: Release) -> Optional[tuple[str, ...]]:
    for since, until, names in EAGLE3_TARGETS:
        if release.within(since, until):
            return names
    return None


class DraftModel:
    """The draft ``ModelConfig`` as kvguard holds it."""

    def __init__(self, facts: Any, name: str, *, model_type: Optional[str], n_predict: Any = None,
                 source: str = "", raw: Optional[dict] = None, applied: Optional[dict] = None):
        self.facts = facts
        self.name = name
        self.model_type = model_type
        self.n_predict = n_predict
        self.source = source
        self.raw = raw
        self.applied = applied or {}

    @property
    def architectures(self) -> tuple[str, ...]:
        return tuple(self.facts.architectures)

    @property
    def vocab_size(self) -> Any:
        return vocab_size(self.facts)


def vocab_size(facts: Any) -> Any:
    """``ModelConfig.get_vocab_size()`` (the text config's ``vocab_size``, 0 when it has none)."""
    return (facts.resolved or {}).get("vocab_size", 0)


class SpecState:
    """``SpeculativeConfig`` while it is being built: the given values and what ``__post_init__`` sets."""

    def __init__(self, given: dict, conflict: Optional[tuple[str, str]]):
        self.given = given
        self.conflict = conflict
        self.values: dict = {}
        self.method: Any = None
        self.model: Any = None
        self.num: Any = None
        self.draft_tp: Any = None
        self.lookup_min: Any = None
        self.lookup_max: Any = None
        self.parallel_drafting = False
        self.branch: Optional[str] = None
        self.no_model = False          # num_speculative_tokens given without a model
        self.custom_no_model = False
        self.unsupported = False       # the model branch found no method
        self.draft: Optional[DraftModel] = None
        self.draft_is_target = False
        self.draft_pp = 1
        self.draft_ep = False
        self.n_predict: Any = None
        self.notes: list[str] = []

    def value(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


# ---------------------------------------------------------------------------------------------
# EngineArgs.create_speculative_config


def start(state) -> None:
    """The dict ``SpeculativeConfig(**…)`` receives: --speculative-config, the ``--spec-*`` flags merged in
    (0.22.0+; a key given both ways is refused), keys' dashes as underscores (0.26.0+)."""
    spec = state.spec
    if spec is None or not spec.given:
        return
    release = state.release
    given = dict(spec.config) if spec.config is not None else None
    conflict = None
    if release.within("0.22.0"):
        for dest, flag, key in SPEC_FLAGS:
            value = spec.flags.get(dest)
            if value is None:
                continue
            if given is None:
                given = {}
            if key in given:
                conflict = (flag, key)
                break
            given[key] = value
    if given is None:
        return
    if release.within("0.26.0") and conflict is None:
        given = {str(k).replace("-", "_"): v for k, v in given.items()}
    state.sc = SpecState(given, conflict)


# ---------------------------------------------------------------------------------------------
# SpeculativeConfig: pydantic's validation, then __post_init__


def validate_fields(state) -> None:
    from ..rules.engine import Refusal
    from . import fields

    sc = state.sc
    if sc is None:
        return
    values, errors = fields.validate(sc.given, state.release)
    if errors:
        raise Refusal("ValidationError", errors[0].msg, errors=errors)
    if "speculative_token_tree" in values and values["speculative_token_tree"] is not None:
        raise Undecidable("--speculative-config speculative_token_tree is not modelled")
    if values.get("quantization") is not None:
        sc.notes.append("the draft's --speculative-config quantization is not checked against its checkpoint")
    if values.get("max_model_len") is not None:
        raise Undecidable("--speculative-config max_model_len (the draft's maximum length) is not modelled")
    if state.release.within("0.19.0") and values.get("rejection_sample_method", "standard") not in ("standard", "strict"):
        raise Undecidable("--speculative-config rejection_sample_method other than the default is not modelled")
    sc.values = values
    sc.method = values.get("method")
    sc.model = values.get("model")
    sc.num = values.get("num_speculative_tokens")
    sc.draft_tp = values.get("draft_tensor_parallel_size")
    sc.lookup_min = values.get("prompt_lookup_min")
    sc.lookup_max = values.get("prompt_lookup_max")
    sc.parallel_drafting = bool(values.get("parallel_drafting", False))


def _custom_proposer_path(model: Any) -> bool:
    if model is None:
        return False
    if model.startswith(("http://", "https://", "file://")):
        return False
    if "/" in model:
        return False
    parts = model.split(".")
    return len(parts) >= 2 and all(part.isidentifier() for part in parts)


def infer_method(state) -> None:
    """The method before the draft is seen: a custom proposer path (0.22.0+), the default ``draft_model`` /
    ``ngram`` (0.17.0+), deprecated MTP names folded into ``mtp`` (0.11.0+)."""
    sc, release = state.sc, state.release
    if sc is None:
        return
    if release.within("0.22.0", "0.25.1"):
        m = sc.model
        if m is not None and "." in m and not m.startswith(("http://", "https://", "file://")) and "/" not in m:
            sc.method = "custom_class"
        elif sc.method is None and release.within("0.17.0"):
            sc.method = "ngram" if sc.model in ("ngram", "[ngram]") else "draft_model"
    elif release.within("0.26.0") and sc.method is None and _custom_proposer_path(sc.model):
        sc.method = "custom_class"
    elif sc.method is None and release.within("0.17.0"):
        sc.method = "ngram" if sc.model in ("ngram", "[ngram]") else "draft_model"
    if sc.method in mtp_types(release) and sc.method != "mtp":
        sc.method = "mtp"


def default_model(state) -> None:
    """``model`` from the method when only ``num_speculative_tokens`` is given (MTP: the target itself)."""
    sc, release = state.sc, state.release
    if sc is None:
        return
    if sc.model is None and sc.num is not None:
        if not release.within("0.11.0"):
            if state._facts.text_model_type in _MTP_TARGETS_0102:
                sc.model = state.spec.target_model
            elif sc.method in ("ngram", "[ngram]"):
                sc.model = "ngram"
            else:
                sc.no_model = True
        elif sc.method == "mtp":
            sc.model = state.spec.target_model
        elif sc.method == "dspark" and release.within("0.25.0"):
            sc.model = state.spec.target_model
        elif sc.method in ("ngram", "[ngram]"):
            sc.model = "ngram"
        elif sc.method == "ngram_gpu" and release.within("0.18.0"):
            sc.model = "ngram_gpu"
        elif sc.method == "suffix" and release.within("0.11.1"):
            sc.model = "suffix"
        elif sc.method == "extract_hidden_states" and release.within("0.17.0"):
            sc.model = "extract_hidden_states"
        elif sc.method == "custom_class" and release.within("0.22.0"):
            sc.custom_no_model = True
        else:
            sc.no_model = True
    if not release.within("0.17.0") and sc.method is None and sc.model in ("ngram", "[ngram]"):
        sc.method = "ngram"


def branch(state) -> None:
    """Which ``__post_init__`` branch runs (ngram, suffix, custom_class, extract_hidden_states, a model)."""
    sc, release = state.sc, state.release
    if sc is None:
        return
    if sc.method in ("ngram", "[ngram]") or (sc.method == "ngram_gpu" and release.within("0.18.0")):
        if sc.method == "[ngram]":
            sc.method = "ngram"
        sc.branch = "ngram"
        if sc.lookup_min is None and sc.lookup_max is None:
            sc.lookup_min = sc.lookup_max = 5
        elif sc.lookup_min is None:
            sc.lookup_min = sc.lookup_max
        elif sc.lookup_max is None:
            sc.lookup_max = sc.lookup_min
    elif sc.method == "suffix" and release.within("0.11.1"):
        sc.branch = "suffix"
    elif sc.method == "custom_class" and release.within("0.22.0"):
        sc.branch = "custom_class"
        sc.draft_is_target = True
    elif sc.method == "extract_hidden_states" and release.within("0.17.0"):
        raise Undecidable("speculative method 'extract_hidden_states' is not modelled")
    else:
        sc.branch = "model"


def target_as_draft(state) -> None:
    """ngram / custom_class: the draft config and parallel config are the target's own."""
    sc = state.sc
    if sc is not None and sc.branch in ("ngram", "custom_class"):
        sc.draft_is_target = True


def suffix_default(state) -> None:
    sc = state.sc
    if sc is not None and sc.branch == "suffix" and sc.num is None:
        sc.num = sc.value("suffix_decoding_max_tree_depth", 24)


# -- the model branch ----------------------------------------------------------------------------------


def build_draft(state) -> None:
    """``ModelConfig(model=<draft>, runner="draft", hf_overrides=…)``: the draft's facts, or its crash."""
    sc = state.sc
    if sc is None or sc.branch != "model" or sc.model is None:
        return
    from ..rules.engine import Refusal

    release = state.release
    spec = state.spec
    if sc.model == spec.target_model and spec.target_raw is not None:
        raw, source = dict(spec.target_raw), "the target's own checkpoint"
    else:
        if sc.model == spec.target_model:
            raise Undecidable("the draft is the target checkpoint, whose config.json kvguard was not given")
        if spec.resolve is None:
            raise Undecidable(f"cannot find the draft {sc.model!r}: no config.json given for it")
        raw, source = spec.resolve(sc.model, sc.value("revision"))
        raw = dict(raw)
    kind = None
    from . import speculators

    # 0.25.0+: an explicit medusa method builds the draft with hf_overrides={"model_type": "medusa"} instead of
    # the config override, so any checkpoint (old-format Medusa heads have no model_type) is read as MedusaConfig;
    # the key wins over the checkpoint's own model_type, which ends up overwritten by the same value
    medusa_forced = sc.method == "medusa" and release.within("0.25.0")
    if medusa_forced:
        raw["model_type"] = "medusa"
    elif "model_type" not in raw and not speculators.is_speculators(raw):
        # transformers' AutoConfig then matches the draft's path against every model type it knows, vLLM's own
        # configs included once registered (an old-format Medusa head at .../medusa-vicuna-7b loads as
        # MedusaConfig after vLLM has registered it); which are registered by then is process state
        raise Undecidable(f"the draft {sc.model!r} has no model_type in its config.json: which config class "
                          f"AutoConfig picks from its path in vLLM {release.version} is not modelled")
    elif speculators.is_speculators(raw):
        try:
            raw = speculators.draft_config(raw, release)
        except speculators.SpeculatorsError as exc:
            raise Refusal(exc.exc_type, exc.message, check="SC_draft_model_config",
                          wrapped_by="stage" if exc.exc_type == "ValueError" else None) from None
        kind = "speculators"
        sc.notes.append(f"the draft {sc.model} is a speculators checkpoint: read as vLLM's SpeculatorsConfig "
                        f"(its transformer_layer_config, a {raw.get('model_type')} config)")
    result = _draft_facts(state, raw, sc.model, override=not medusa_forced)
    if isinstance(result, Refusal):
        raise result
    facts, applied = result
    _registered(state, facts)
    model_type = kind or applied.get("model_type", facts.model_type)
    sc.draft = DraftModel(facts, sc.model, model_type=model_type,
                          n_predict=applied.get("n_predict"), source=source, raw=raw, applied=applied)


def _draft_facts(state, raw: dict, name: str, wrap: Optional[str] = None, *, override: bool = True):
    """(facts, applied override) of the draft, memoised per release and environment; a Refusal for vLLM's
    crash building the draft ModelConfig (re-wrapped by SpeculativeConfig, as pydantic re-raises it).
    ``wrap``: the EAGLE method whose EAGLEConfig wraps the draft (or ``dspark-v4``, the DeepSeek-V4 DSpark
    rewrite); ``override``: whether SpeculativeConfig's config override runs (not for a forced Medusa)."""
    from ..facts import Crash, derive
    from ..rules.engine import Refusal
    from .draft import override_callable

    release = state.release
    key = (release.key, tuple(sorted(state.env.items())), name, wrap, override, raw.get("model_type"))
    memo = state.spec.memo
    if key in memo:
        return memo[key]
    applied: dict = {}
    facts = derive(raw, release, state.env, trust_remote_code=state.spec.trust_remote_code, model_path=name,
                   hf_overrides=override_callable(release, applied, wrap, override=override))
    if isinstance(facts, Crash):
        wrapped = "stage" if facts.wrapped_by else None
        result: Any = Refusal(facts.exc_type, facts.message, check="SC_draft_model_config", wrapped_by=wrapped,
                              errors=facts.errors)
    else:
        result = (facts, applied)
    memo[key] = result
    return result


def _registered(state, facts: Any) -> None:
    """The draft's architecture must be in the release's registry (``update_arch_``: inspect_model_cls): its
    refusal (kvguard.archs.registry_refusal); undecidable when vLLM would try its Transformers backend."""
    from .. import archs
    from ..rules.engine import Refusal

    if archs.registry_loaded() and archs.registered_arch(facts.architectures, state.release) is None:
        raw = (state.sc.draft.raw or {}) if state.sc.draft is not None else {}
        message = archs.registry_refusal(list(facts.architectures), state.release, auto_map=bool(raw.get("auto_map")))
        if message is not None:
            raise Refusal("ValueError", message, check="SC_draft_registry", wrapped_by="stage")
        names = ", ".join(map(str, facts.architectures)) or "(none)"
        raise Undecidable(f"the draft's architectures [{names}] are not in vLLM {state.release.version}'s model "
                          "registry: what vLLM does then (its Transformers backend) is not modelled")


def detect_method(state) -> None:
    """``Automatically detect the method`` from the draft (its name, its model type after the override)."""
    sc, release = state.sc, state.release
    if sc is None or sc.draft is None:
        return
    d = sc.draft
    name = d.name.lower()
    mt = d.model_type
    wrapping = ("eagle", "eagle3") + (("dflash",) if release.within("0.20.0") else ()) \
        + (("dspark",) if release.within("0.25.0") else ())
    if sc.method in wrapping:
        pass
    elif "eagle-" in name:
        sc.method = "eagle"
    elif "eagle3" in name:
        sc.method = "eagle3"
    elif release.within("0.20.0") and ("dflash" in name or (release.within("0.28.0") and
                                                      "MuseGlimmerAssistantModel" in d.architectures)):
        sc.method = "dflash"
    elif release.within("0.25.0") and ("dspark" in name or _dspark_architecture(d, release)):
        sc.method = "dspark"
    elif mt in ("medusa", "mlp_speculator") and not release.within("0.33.0"):
        sc.method = mt
    elif not release.within("0.11.0"):
        if mt in _MTP_0102:
            sc.method = _MTP_0102[mt]
        else:
            sc.method = "draft_model"
            sc.unsupported = True
    elif mt in mtp_types(release):
        sc.method = "mtp"
    elif not release.within("0.23.0") and isinstance(mt, str) and mt in "longcat_flash_mtp":  # substring test
        sc.method = "longcat_flash_mtp"
    elif release.within("0.15.0") and sc.method == "draft_model":
        pass
    else:
        if not release.within("0.15.0"):
            sc.method = "draft_model"
        sc.unsupported = True
    if sc.method == "dspark":
        _dspark_modelled(state)


#: draft architectures that make SpeculativeConfig detect DSpark (with no method given), per release
_DSPARK_DETECTED = (("Qwen3DSparkModel", "0.25.0"), ("Gemma4DSparkModel", "0.26.0"),
                    ("Qwen3OmniDSparkModel", "0.29.0"), ("MuseSparkDSparkModel", "0.33.0"))
#: DSpark drafts that carry their own model (not rewritten to DeepSeek-V4's DSparkDraftModel), per release
_DSPARK_OWN_MODELS = (("Qwen3DSparkModel", "0.25.0"), ("Gemma4DSparkModel", "0.26.0"), ("K3DSparkModel", "0.27.0"),
                      ("Qwen3OmniDSparkModel", "0.29.0"), ("MuseSparkDSparkModel", "0.33.0"))
#: DSpark models kvguard does not model (their config conventions and, for Qwen3-Omni, a checkpoint contract)
_DSPARK_UNMODELLED = ("Gemma4DSparkModel", "K3DSparkModel", "Qwen3OmniDSparkModel", "MuseSparkDSparkModel")
#: ``_QWEN3_OMNI_TARGET_ARCHITECTURES`` (0.29.0+): targets whose DSpark drafts must meet the Omni contract
_QWEN3_OMNI_TARGETS = ("Qwen3OmniMoeForConditionalGeneration", "Qwen3OmniMoeThinkerForConditionalGeneration")


def _qwen3_named_dspark_draft(d: "DraftModel", release: Release) -> bool:
    """0.29.0+: a Qwen3 checkpoint that names DeepSeek's ``DSparkDraftModel`` is a Qwen3 DSpark draft (detected
    as DSpark, its architecture renamed to Qwen3DSparkModel)."""
    return release.within("0.29.0") and "DSparkDraftModel" in d.architectures and d.model_type == "qwen3"


def _dspark_architecture(d: "DraftModel", release: Release) -> bool:
    return (any(arch in d.architectures and release.within(since) for arch, since in _DSPARK_DETECTED)
            or _qwen3_named_dspark_draft(d, release))


def _qwen3_omni_target(state) -> bool:
    raw = state.spec.target_raw or {}
    return raw.get("model_type") == "qwen3_omni_moe" or bool(set(raw.get("architectures") or ()) &
                                                             set(_QWEN3_OMNI_TARGETS))


def _dspark_modelled(state) -> None:
    """The DSpark paths kvguard models (0.25.0+): a Qwen3DSparkModel draft (0.29.0+: or a Qwen3 checkpoint
    naming DSparkDraftModel) or DeepSeek-V4's own stages; anything else is undecidable, named."""
    release, d = state.release, state.sc.draft
    for arch in _DSPARK_UNMODELLED:
        if arch in d.architectures:
            raise Undecidable(f"a {arch} DSpark draft is not modelled")
    if d.model_type == "speculators":
        raise Undecidable("a speculators-format DSpark draft is not modelled")
    if release.within("0.29.0") and _qwen3_omni_target(state):
        raise Undecidable("a DSpark draft for a Qwen3-Omni target (vLLM's Qwen3-Omni DSpark checkpoint contract) "
                          "is not modelled")
    if "Qwen3DSparkModel" in d.architectures or _qwen3_named_dspark_draft(d, release):
        return
    model_type = (d.raw or {}).get("model_type")
    if model_type == "deepseek_v41" or (release.within("0.30.0") and state._facts.model_type == "deepseek_v41"):
        raise Undecidable("DeepSeek-V4.1's DSpark stages (DSparkV41DraftModel) are not modelled")
    if model_type != "deepseek_v4":
        # the rewrite gives any such draft DeepSeek-V4's model type; only a DeepSeek-V4 checkpoint is modelled
        raise Undecidable(f"a DSpark draft that is neither Qwen3DSparkModel nor a DeepSeek-V4 checkpoint "
                          f"(model type {model_type!r}) is not modelled")


def dspark_own_model(state) -> bool:
    sc = state.sc
    return any(arch in sc.draft.architectures and state.release.within(since)
               for arch, since in _DSPARK_OWN_MODELS)


def wrap_draft(state) -> None:
    """EAGLE / EAGLE-3 / DFlash drafts are wrapped in ``EAGLEConfig`` (architectures renamed); from 0.15.0
    the renamed architecture is looked up in the registry right away."""
    from ..rules.engine import Refusal

    sc, release = state.sc, state.release
    if sc is None or sc.draft is None or sc.unsupported:
        return
    d = sc.draft
    if sc.method in ("eagle", "eagle3") or (sc.method == "dflash" and release.within("0.20.0")):
        if d.model_type not in ("eagle", "speculators"):
            result = _draft_facts(state, d.raw, d.name, wrap=sc.method)
            if isinstance(result, Refusal):
                raise result
            facts, applied = result
            sc.draft = DraftModel(facts, d.name, model_type="eagle", n_predict=d.n_predict, source=d.source,
                                  raw=d.raw, applied=applied)
            if release.within("0.15.0"):
                _registered(state, facts)
    if sc.method == "dspark" and (_qwen3_named_dspark_draft(d, release) or not dspark_own_model(state)):
        from .draft import DSPARK_QWEN3, DSPARK_V4

        qwen3 = _qwen3_named_dspark_draft(d, release)
        result = _draft_facts(state, d.raw or {}, d.name, wrap=DSPARK_QWEN3 if qwen3 else DSPARK_V4)
        if isinstance(result, Refusal):
            raise result
        facts, applied = result
        sc.draft = DraftModel(facts, d.name, model_type=d.model_type if qwen3 else "deepseek_v4",
                              n_predict=d.n_predict, source=d.source, raw=d.raw, applied=applied)
        _registered(state, facts)
    if release.within("0.15.0"):
        _registered(state, sc.draft.facts)
    if sc.method in ("dflash", "dspark") and release.within("0.20.0"):
        sc.parallel_drafting = True
    d = sc.draft
    sc.notes.append(f"speculative draft: {d.name} (method {sc.method}; architectures [{', '.join(d.architectures)}]; "
                    f"{d.source})")
    sc.n_predict = sc.draft.n_predict
    if sc.method == "dspark" and release.within("0.31.0"):
        # 0.31.0+: a DSpark round drafts the draft's block, whatever its MTP stages: the token count defaults
        # to the config's block_size (else dspark_block_size), and n_predict no longer bounds it
        sc.n_predict = None
        if sc.num is None:
            block = draft_attr(state, "block_size")
            sc.num = block if block is not None else draft_attr(state, "dspark_block_size")
    elif sc.n_predict is not None and sc.num is None:
        sc.num = sc.n_predict


def draft_attr(state, name: str) -> Any:
    """``getattr(draft hf_config, name, None)`` for a key no config class of these drafts defines (the
    checkpoint's own value, kept as an attribute)."""
    sc = state.sc
    if sc is None or sc.draft is None or sc.unsupported or sc.method != "dspark":
        return None
    return (sc.draft.raw or {}).get(name)


def dspark_block_too_small(state) -> bool:
    """0.26.0-0.27.1: fewer speculative tokens than the draft's ``dspark_block_size``."""
    block = draft_attr(state, "dspark_block_size")
    return block is not None and state.sc.num < block


def dspark_topk_refusal(state) -> Optional[str]:
    """0.28.0+: the draft's ``dspark_draft_topk`` (from its config; the field itself is not modelled) must lie
    in [1, draft vocabulary] and needs a Qwen3DSparkModel draft (0.29.0+: or Qwen3OmniDSparkModel, which
    kvguard leaves undecidable before this check)."""
    topk = draft_attr(state, "dspark_draft_topk")
    if topk is None:
        return None
    raw = state.sc.draft.raw or {}
    vocab = raw.get("draft_vocab_size") or state.sc.draft.vocab_size
    if not 1 <= topk <= vocab:
        return f"dspark_draft_topk must be between 1 and the draft vocabulary size ({vocab})"
    if "Qwen3DSparkModel" not in state.sc.draft.architectures:
        if state.release.within("0.29.0"):
            return "dspark_draft_topk is only supported by Qwen3DSparkModel and Qwen3OmniDSparkModel"
        return "dspark_draft_topk is only supported by Qwen3DSparkModel"
    return None


def n_predict_indivisible(state) -> bool:
    sc = state.sc
    if sc is None or sc.draft is None or sc.unsupported or sc.n_predict is None or sc.num is None:
        return False
    if sc.num == sc.n_predict and sc.num is not None:
        return False
    return sc.num > sc.n_predict and sc.num % sc.n_predict != 0


def tree_type_error(state) -> bool:
    """0.10.2–0.16.0: the default token tree is ``range(num_speculative_tokens)`` (TypeError for None)."""
    sc = state.sc
    return sc is not None and sc.draft is not None and not sc.unsupported and not isinstance(sc.num, int)


def draft_tp(state) -> None:
    """``_verify_and_get_draft_tp``: the draft's tensor-parallel size (the target's unless given)."""
    sc = state.sc
    if sc is None or sc.draft is None or sc.unsupported:
        return
    if sc.draft_tp is None:
        # an MLP speculator runs unsharded unless told otherwise (up to 0.32.0, the releases that know it)
        mlp = sc.draft.model_type == "mlp_speculator" and not state.release.within("0.33.0")
        sc.draft_tp = 1 if mlp else state.tp


def draft_tp_invalid(state) -> bool:
    sc = state.sc
    return (sc is not None and sc.draft is not None and not sc.unsupported and sc.value("draft_tensor_parallel_size")
            is not None and sc.draft_tp not in (1, state.tp))


def draft_parallel(state) -> None:
    """``create_draft_parallel_config``: the target's pipeline size up to 0.29.0 (1 from 0.30.0), expert
    parallelism off up to 0.29.0, the target's in 0.30.0, the target's for a MoE draft from 0.31.0."""
    sc, release = state.sc, state.release
    if sc is None or sc.draft is None or sc.unsupported:
        return
    sc.draft_pp = 1 if release.within("0.30.0") else state.pp
    if not release.within("0.30.0"):
        sc.draft_ep = False
    elif not release.within("0.31.0"):
        sc.draft_ep = state.ep
    else:
        sc.draft_ep = state.ep and sc.draft.facts.is_moe


# ---------------------------------------------------------------------------------------------
# _verify_args


def verify_draft(state) -> None:
    """``draft_model_config.verify_with_parallel_config(draft_parallel_config)``: the release's own
    ``MC_*`` rows, evaluated on the draft and its parallel layout (the target's for ngram)."""
    from ..launch.layout import Layout
    from ..rules import Check
    from ..rules.engine import FactCrash, Refusal, SkipCheck, State
    from ..rules.table import rows_for

    sc = state.sc
    if sc is None or sc.num is None:
        return
    if sc.draft_is_target:
        sub = state
        label = "the target model with its own parallel config"
    elif sc.draft is not None and not sc.unsupported:
        lay = Layout(tensor_parallel_size=sc.draft_tp, pipeline_parallel_size=sc.draft_pp,
                     enable_expert_parallel=sc.draft_ep)
        sub = State(state.release, lay, sc.draft.facts, state.env, state.host, entry="config")
        sub.backend = state.backend
        label = "the draft"
    else:
        return
    for row in rows_for(state.release):
        if not row.id.startswith("MC_") or getattr(row, "stage", None) != "verify":
            continue
        assert isinstance(row, Check)  # every MC_ row of stage verify in kvguard.rules.table is a Check
        try:
            fired = row.when(sub)
        except SkipCheck as exc:
            refusal = _unregistered_draft(state, sub) if exc.need == "architecture" and sub is not state else None
            if refusal is not None:
                raise Refusal("ValueError", refusal, check=f"SC_draft_verify({row.id})", wrapped_by="stage") \
                    from None
            raise Undecidable(f"{label}: {exc.need} unknown to kvguard") from None
        except FactCrash as exc:
            crash = exc.crash
            raise Refusal(crash.exc_type, crash.message, check=f"SC_draft_verify({row.id})",
                          wrapped_by="stage" if crash.exc_type in ("ValueError", "AssertionError") else None) \
                from None
        if fired:
            raise Refusal(row.exc, row.message(sub), check=f"SC_draft_verify({row.id})")


def _unregistered_draft(state, sub) -> Optional[str]:
    """The registry's refusal when the draft's check looks its architecture up (is_pp_supported_model) and
    the release does not hold it: an EAGLE draft renamed after ModelConfig's own lookup, in the releases
    that do not look the new name up right away (kvguard.archs.registry_refusal; None when vLLM would try
    its Transformers backend)."""
    from ..archs import registry_refusal

    raw = state.sc.draft.raw or {}
    return registry_refusal(list(sub.facts.architectures), state.release, auto_map=bool(raw.get("auto_map")))


def draft_loads(state) -> None:
    """(Row w_draft_load, 0.10.2 – 0.14.1.)  Nothing looks the renamed architecture of an EAGLE draft up while
    the configuration is built: the workers' model loader does, when it builds the draft after the target.  One the registry does
    not hold fails there, with an error kvguard does not model: the launch is undecidable, not accepted."""
    from .. import archs

    sc, release = state.sc, state.release
    if sc is None or sc.draft is None or sc.num is None or sc.method not in ("eagle", "eagle3") \
            or sc.draft.model_type != "eagle":
        return
    if archs.registry_loaded() and archs.registered_arch(sc.draft.architectures, release) is None:
        names = ", ".join(map(str, sc.draft.architectures)) or "(none)"
        raise Undecidable(f"the draft's architectures [{names}] (its EAGLE renaming) are not in vLLM "
                          f"{release.version}'s model registry: the workers fail to load the draft, with an error "
                          "kvguard does not model")


def eagle3_unsupported_target(state) -> bool:
    sc = state.sc
    if sc is None or sc.method not in ("eagle3",) + (("extract_hidden_states", "dflash")
                                                     if state.release.within("0.17.0") else ()):
        return False
    names = eagle3_targets(state.release)
    if names is None:
        return False
    mt = state._facts.text_model_type
    return not any(n in mt for n in names)


def eagle3_bind(state) -> dict:
    return {"supported": str(list(eagle3_targets(state.release) or ())), "target_type": repr(state._facts.text_model_type),
            "method": state.sc.method}


def vocab_mismatch(state) -> bool:
    sc = state.sc
    if sc is None or sc.method != "draft_model" or sc.draft is None or sc.unsupported:
        return False
    return vocab_size(state._facts) != sc.draft.vocab_size


def vocab_bind(state) -> dict:
    return {"target_vocab": vocab_size(state._facts), "draft_vocab": state.sc.draft.vocab_size}


# ---------------------------------------------------------------------------------------------
# VllmConfig


def async_method_refused(state, allowed: tuple[str, ...]) -> bool:
    sc = state.sc
    if sc is None or state.async_scheduling is not True:
        return False
    return sc.method not in eagle_types(state.release) + allowed


def async_padded_refused(state) -> bool:
    sc = state.sc
    return sc is not None and state.async_scheduling is True and bool(sc.value("disable_padded_drafter_batch", False))


def v1_async_incompat(state) -> Optional[str]:
    """0.33.0: what the V1 model runner cannot combine with async scheduling (first one wins)."""
    sc = state.sc
    if sc is not None and sc.method not in eagle_types(state.release) + ("ngram_gpu", "draft_model", "dspark", "dflash"):
        return f"{sc.method}-based speculative decoding"
    if sc is not None and sc.value("disable_padded_drafter_batch", False):
        return "disable_padded_drafter_batch=True"
    if state.pp > 1:
        return "pipeline parallelism"
    return None


# ---------------------------------------------------------------------------------------------
# EngineArgs after SpeculativeConfig (0.10.2 - 0.11.0): SchedulerConfig(num_lookahead_slots=num)


def lookahead_slots(state) -> None:
    """``SchedulerConfig(num_lookahead_slots=speculative_config.num_lookahead_slots)``: the token count, which
    SpeculativeConfig did not validate in these releases, meets SchedulerConfig's ``int`` field."""
    from ..rules.engine import Refusal
    from ..verdict import ErrorEntry

    sc = state.sc
    if sc is None or isinstance(sc.num, int):
        return
    import pydantic

    try:
        pydantic.TypeAdapter(int).validate_python(sc.num)
    except pydantic.ValidationError as exc:
        errors = tuple(ErrorEntry(e["type"], ("num_lookahead_slots",), e["msg"], e.get("input"), e.get("ctx"))
                       for e in exc.errors())
        raise Refusal("ValidationError", errors[0].msg, check="EA_scheduler_lookahead", errors=errors,
                      wrapped_by="SchedulerConfig") from None
