"""The draft's ModelConfig as a release builds it: the config override, EAGLE wrapping, facts.

``SpeculativeConfig`` builds the draft with ``ModelConfig(model=<draft>, runner="draft",
hf_overrides=SpeculativeConfig.hf_config_override)``: the draft's config.json is loaded like any model's
(the same facts layer), then rewritten by the override — a target checkpoint used as its own MTP draft
becomes ``deepseek_mtp`` / ``DeepSeekMTPModel``, ``qwen3_next_mtp`` / ``Qwen3NextMTP``, … with ``n_predict``
taken from ``num_nextn_predict_layers`` —, then, for EAGLE / EAGLE-3 / DFlash, wrapped in vLLM's
``EAGLEConfig`` (architectures renamed ``Eagle…`` / ``Eagle3…`` / ``DFlash…``).  Which model types the
override knows, and what it sets, are per-release facts written down here as data-driven code; a
branch kvguard does not model (one that promotes a multimodal checkpoint's text config, or reads a
constant from a model module) makes the launch undecidable, named.
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import Undecidable
from ..versions import Release

__all__ = ["DSPARK_QWEN3", "DSPARK_V4", "dspark_v4", "eagle_config", "hf_config_override", "override_callable"]


def _undecidable(release: Release, what: str) -> Undecidable:
    return Undecidable(f"vLLM {release.version}'s speculative draft config override for {what} is not modelled")


def _update(cfg: Any, values: dict) -> None:
    """``PretrainedConfig.update(values)``: one setattr per key, in order."""
    for key, value in values.items():
        setattr(cfg, key, value)


def _mtp(cfg: Any, model_type: Optional[str], arch: str, *, n_default: Any = None, layers_zero: bool = False,
         n_from: str = "num_nextn_predict_layers") -> None:
    if model_type is not None:
        cfg.model_type = model_type
    values: dict[str, Any] = {}
    if layers_zero:
        values["num_hidden_layers"] = 0
    values["n_predict"] = getattr(cfg, n_from, n_default)
    values["architectures"] = [arch]
    _update(cfg, values)


def hf_config_override(cfg: Any, r: Release) -> Any:
    """``SpeculativeConfig.hf_config_override`` of release ``r``, applied to the loaded draft config."""
    def first_arch() -> Any:
        return cfg.architectures[0]

    initial = first_arch() if r.within("0.12.0") else None
    if r.within("0.33.0") and initial == "RadioMBartPrefixForCausalLM":
        raise _undecidable(r, "RadioMBartPrefixForCausalLM")
    mt = cfg.model_type
    use_v32 = r.within("0.29.0") and mt in ("deepseek_v32", "glm_moe_dsa")
    if r.within("0.28.0") and mt == "dots3_note":
        raise _undecidable(r, "dots3_note")
    ds = ("deepseek_v3",) + (("deepseek_v32",) if r.within("0.11.0") else ()) \
        + (("glm_moe_dsa",) if r.within("0.16.0") else ())
    if cfg.model_type in ds:
        cfg.model_type = "deepseek_mtp"
    if cfg.model_type == "deepseek_mtp":
        _mtp(cfg, None, "DeepseekV32MTPModel" if use_v32 else "DeepSeekMTPModel")
    v4 = (("deepseek_v4",) if r.within("0.20.0") else ()) + (("deepseek_v41",) if r.within("0.30.0") else ())
    if cfg.model_type in v4:
        if cfg.model_type == "deepseek_v41":
            raise _undecidable(r, "deepseek_v41")
        _mtp(cfg, "deepseek_mtp", "DeepSeekV4MTPModel")
    if r.within("0.11.1"):
        mt = cfg.model_type
        if not isinstance(mt, str):
            raise TypeError(f"'in <string>' requires string as left operand, not {type(mt).__name__}")
        if mt in "pangu_ultra_moe":  # a substring test upstream
            cfg.model_type = "pangu_ultra_moe_mtp"
        if cfg.model_type == "pangu_ultra_moe_mtp":
            _mtp(cfg, None, "OpenPanguMTPModel")
    if r.within("0.27.0") and cfg.model_type == "kimi_k3":
        raise _undecidable(r, "kimi_k3")
    if first_arch() == "MiMoForCausalLM":
        _mtp(cfg, "mimo_mtp", "MiMoMTPModel", layers_zero=True)
    if r.within("0.21.0") and first_arch() in ("MiMoV2ForCausalLM", "MiMoV2OmniForCausalLM",
                                               "MiMoV2FlashForCausalLM"):
        raise _undecidable(r, first_arch())
    if first_arch() == "Glm4MoeForCausalLM":
        _mtp(cfg, "glm4_moe_mtp", "Glm4MoeMTPModel", layers_zero=not r.within("0.14.0"))
    if r.within("0.15.0") and first_arch() == "Glm4MoeLiteForCausalLM":
        _mtp(cfg, "glm4_moe_lite_mtp", "Glm4MoeLiteMTPModel", layers_zero=True)
    if r.within("0.16.0") and first_arch() == "GlmOcrForConditionalGeneration":
        _mtp(cfg, "glm_ocr_mtp", "GlmOcrMTPModel", layers_zero=True)
    if cfg.model_type == "ernie4_5_moe":
        cfg.model_type = "ernie_mtp"
    if cfg.model_type == "ernie_mtp":
        _mtp(cfg, None, "ErnieMTPModel")
    omni = ("NemotronH_Super_Omni_Reasoning_V3",) + (("NemotronH_Omni_Reasoning_V3",) if r.within("0.29.0") else ())
    if r.within("0.20.0") and first_arch() in omni:
        raise _undecidable(r, first_arch())
    if r.within("0.17.0"):
        kinds = {"nemotron_h"} | ({"nemotron_h_puzzle"} if r.within("0.19.0") else set())
        if cfg.model_type in kinds and hasattr(cfg, "num_nextn_predict_layers") and cfg.num_nextn_predict_layers > 0:
            cfg.model_type = "nemotron_h_mtp"
        if cfg.model_type == "nemotron_h_mtp":
            _mtp(cfg, None, "NemotronHMTPModel", n_default=1)
    if cfg.model_type == "qwen3_next":
        cfg.model_type = "qwen3_next_mtp"
    if cfg.model_type == "qwen3_next_mtp":
        _mtp(cfg, None, "Qwen3NextMTP")
    if r.within("0.29.0") and cfg.model_type in ("qwen4_exp", "qwen4_exp_text", "qwen4_exp_mtp"):
        raise _undecidable(r, "qwen4_exp")
    if r.within("0.25.0"):
        archs = getattr(cfg, "architectures", []) or []
        if r.within("0.30.0") and initial == "BailingMoeV3VLForConditionalGeneration":
            raise _undecidable(r, initial)
        if r.within("0.28.0") and initial == "BailingMoeV3ForCausalLM":
            cfg.model_type = "bailing_hybrid_v3_mtp"
        elif cfg.model_type == "bailing_hybrid" or "BailingMoeV2_5ForCausalLM" in archs:
            cfg.model_type = "bailing_hybrid_mtp"
        if cfg.model_type == "bailing_hybrid_mtp":
            _mtp(cfg, None, "BailingMoeV25MTPModel")
        if r.within("0.28.0") and cfg.model_type == "bailing_hybrid_v3_mtp":
            _mtp(cfg, None, "BailingMoeV3MTPModel")
    if r.within("0.14.0"):
        if cfg.model_type == "exaone_moe":
            cfg.model_type = "exaone_moe_mtp"
        if cfg.model_type == "exaone_moe_mtp":
            _mtp(cfg, None, "ExaoneMoeMTP")
    if r.within("0.20.0"):
        if "exaone4_5" in cfg.model_type:
            cfg.model_type = "exaone4_5_mtp"
        if cfg.model_type == "exaone4_5_mtp":
            _mtp(cfg, None, "Exaone4_5_MTP")
    if r.within("0.17.0"):
        qwen35 = ("qwen3_5", "qwen3_5_moe") + (("qwen3_5_text", "qwen3_5_moe_text") if r.within("0.28.0") else ())
        if cfg.model_type in qwen35:
            is_moe = cfg.model_type in ("qwen3_5_moe", "qwen3_5_moe_text")
            cfg.model_type = "qwen3_5_mtp"
            n_predict = getattr(cfg, "mtp_num_hidden_layers", None)
            if n_predict is None and r.within("0.30.0"):
                from ..facts import loader
                n_predict = getattr(loader.hf_text_config(cfg, r), "mtp_num_hidden_layers", None)
            _update(cfg, {"n_predict": n_predict, "architectures": ["Qwen3_5MoeMTP" if is_moe else "Qwen3_5MTP"]})
    if r.within("0.22.0") and cfg.model_type in ("intern_s2_preview", "interns2_mobius"):
        raise _undecidable(r, cfg.model_type)
    longcat = ("longcat_flash",) + (("longcat_flash_ngram",) if r.within("0.31.0", "0.31.0") else ())
    if r.within("0.11.0") and cfg.model_type in longcat:
        _mtp(cfg, "longcat_flash_mtp", "LongCatFlashMTPModel", n_default=1)
    if r.within("0.23.0"):
        if cfg.model_type in ("step3p5", "step3p7") or first_arch() in ("Step3p5ForCausalLM",
                                                                        "Step3p7ForConditionalGeneration"):
            if hasattr(cfg, "text_config"):
                raise _undecidable(r, "step3p5 / step3p7 with a text config")
            _mtp(cfg, "step3p5_mtp", "Step3p5MTP", n_default=1)
    elif r.within("0.15.1") and cfg.model_type == "step3p5":
        _mtp(cfg, "step3p5_mtp", "Step3p5MTP", n_default=1)
    if r.within("0.33.0") and (cfg.model_type in ("step5", "step5_vl") or {"Step5ForCausalLM",
                               "Step5ForConditionalGeneration"} & set(getattr(cfg, "architectures", None) or [])):
        raise _undecidable(r, "step5")
    if r.within("0.12.0") and initial == "MistralLarge3ForCausalLM":
        _update(cfg, {"architectures": ["EagleMistralLarge3ForCausalLM"]})
    if r.within("0.20.0") and cfg.model_type == "hy_v3":
        _mtp(cfg, "hy_v3_mtp", "HYV3MTPModel")
    if r.within("0.29.0") and cfg.model_type == "hy_v4":
        _mtp(cfg, "hy_v4_mtp", "HYV4MTPModel")
    if r.within("0.26.0") and cfg.model_type in ("inkling_mm_model", "inkling_model"):
        raise _undecidable(r, cfg.model_type)
    if r.within("0.21.0") and cfg.model_type in ("gemma4_assistant", "gemma4_unified_assistant"):
        raise _undecidable(r, cfg.model_type)
    if r.within("0.24.0") and (cfg.model_type in ("minimax_m3_vl", "minimax_m3_mtp")
                               or initial in ("MiniMaxM3SparseForConditionalGeneration", "MiniMaxM3MTP")):
        raise _undecidable(r, "MiniMax-M3")
    if r.within("0.30.0") and cfg.model_type == "glm5_next":
        raise _undecidable(r, "glm5_next")
    if r.within("0.33.0") and cfg.model_type == "muse_glimmer_assistant":
        raise _undecidable(r, "muse_glimmer_assistant")
    return cfg


def eagle_config(cfg: Any, method: str, r: Release) -> Any:
    """``EAGLEConfig(cfg, method=method, model_type="eagle")``: vLLM's wrapper, built by the facts library that
    loaded ``cfg`` (kvguard's class tables of the release's transformers line, 4.x or 5.x)."""
    from ..facts.objects import ConfigObject

    if isinstance(cfg, ConfigObject):
        lib = cfg.kvg_facts.library
        return lib.build(lib.class_facts("vllm:EAGLEConfig"), {"model": cfg, "method": method, "model_type": "eagle"})
    # a config built by the real transformers backend (kvguard[transformers]) has no kvguard class tables
    raise Undecidable(f"an EAGLE draft in vLLM {r.version}: EAGLEConfig is not modelled for this config")


#: ``wrap`` value for SpeculativeConfig's DeepSeek-V4 DSpark rewrite (0.25.0+)
DSPARK_V4 = "dspark-v4"


def dspark_v4(cfg: Any) -> Any:
    """A DSpark draft that is no self-contained DSpark model is DeepSeek-V4's, whose stages ship in the target
    checkpoint: SpeculativeConfig gives the (MTP-overridden) config back DeepSeek-V4's model type and the
    DSparkDraftModel architecture, then re-reads the architecture (``update_arch_``)."""
    cfg.model_type = "deepseek_v4"
    cfg.architectures = ["DSparkDraftModel"]
    return cfg


#: ``wrap`` value for 0.29.0+'s renaming of a Qwen3 checkpoint's DSparkDraftModel to Qwen3DSparkModel
DSPARK_QWEN3 = "dspark-qwen3"


def override_callable(r: Release, applied: Optional[dict] = None, wrap: Optional[str] = None, *,
                      override: bool = True):
    """The draft's config as SpeculativeConfig leaves it: the override (what ModelConfig's hf_overrides does),
    then, for ``wrap`` (eagle / eagle3 / dflash), the EAGLEConfig wrapper.  ``applied`` records the model
    type, n_predict and architectures the override left."""
    from ..facts import loader

    def apply(cfg: Any) -> Any:
        try:
            out = hf_config_override(cfg, r) if override else cfg
            if applied is not None:
                applied["model_type"] = getattr(out, "model_type", None)
                applied["n_predict"] = getattr(out, "n_predict", None)
                applied["architectures"] = list(getattr(out, "architectures", None) or [])
            if wrap == DSPARK_V4:
                out = dspark_v4(out)
            elif wrap == DSPARK_QWEN3:
                # the architecture only: the Qwen3 config stays as it is, then is re-read (update_arch_)
                out.architectures = ["Qwen3DSparkModel"]
            elif wrap is not None:
                seen = list(getattr(out, "architectures", None) or [])
                # before 0.15.0 SpeculativeConfig swaps the draft's hf_config alone: its hf_text_config stays
                # the one ModelConfig read from the draft's own config
                text = None if r.within("0.15.0") else loader.hf_text_config(out, r)
                out = eagle_config(out, wrap, r)
                # the wrapper is SpeculativeConfig's, after ModelConfig looked the draft up in the model
                # registry: that lookup saw the architectures before the renaming
                object.__setattr__(out, "kvg_registry_architectures", seen)
                if text is not None:
                    object.__setattr__(out, "kvg_text_config", text)
        except (Undecidable, loader.LoadCrash):
            raise
        except (AttributeError, IndexError, TypeError, KeyError, ValueError, AssertionError) as exc:
            # raised in ModelConfig.__post_init__ (the override) or SpeculativeConfig.__post_init__ (the wrapper)
            wrapped = "ModelConfig" if isinstance(exc, (ValueError, AssertionError)) else None
            raise loader.LoadCrash(type(exc).__name__, str(exc), wrapped_by=wrapped) from None
        return out
    return apply
