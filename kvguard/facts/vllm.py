"""Versioned tables behind the model facts (vLLM 0.10.2 – 0.33.0).

Each entry is ``(value, first_release, last_release)``; ``None`` as last
release means "still current".  Sources: ``ModelArchConfigConvertorBase`` and
``MODEL_ARCH_CONFIG_CONVERTORS`` in vllm/transformers_utils/
model_arch_config_convertor.py (0.14.0+), ``ModelConfig`` in
vllm/config/model.py (0.10.2–0.13.0, vllm/config/__init__.py in 0.10.2).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..versions import Release

TYPE_CHECKING = False  # typing's own costs a cold check ~4% (docs/performance.md)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")
    Ranged = tuple[T, str, "str | None"]


def active(table: Iterable[Ranged], release: Release) -> list:
    """The values of ``table`` that apply to ``release``, in table order."""
    return [value for value, since, until in table if release.within(since, until)]


def lookup(table: Iterable[tuple[str, T, str, "str | None"]], key: object, release: Release):
    """``table`` rows are ``(key, value, since, until)``; the value for ``key`` or None."""
    for k, value, since, until in table:
        if k == key and release.within(since, until):
            return value
    return None


#: ``is_deepseek_mla``: text-config model types whose ``kv_lora_rank`` makes
#: them MLA (vllm/transformers_utils/model_arch_config_convertor.py
#: ``ModelArchConfigConvertorBase.is_deepseek_mla``; ModelConfig before 0.14.0).
MLA_MODEL_TYPES: tuple[Ranged[str], ...] = (
    ("AXK1", "0.17.0", "0.25.1"),
    ("axk1", "0.26.0", None),
    ("deepseek_v2", "0.10.2", None),
    ("deepseek_v3", "0.10.2", None),
    ("deepseek_v32", "0.11.0", None),
    ("deepseek_v4", "0.20.0", None),
    ("deepseek_v41", "0.30.0", None),
    ("dots3_note", "0.28.0", None),
    ("deepseek_mtp", "0.10.2", None),
    ("k3_dspark", "0.27.0", None),
    ("glm5_next", "0.30.0", None),
    ("glm5_next_text", "0.30.0", None),
    ("glm_moe_dsa", "0.16.0", None),
    ("glm4_moe_lite", "0.15.0", None),
    ("glm4_moe_lite_mtp", "0.15.0", None),
    ("kimi_k2", "0.10.2", None),
    ("kimi_linear", "0.11.1", None),
    ("longcat_flash", "0.11.0", None),
    ("longcat_flash_ngram", "0.26.0", "0.31.0"),
    ("pangu_ultra_moe", "0.11.1", None),
    ("pangu_ultra_moe_mtp", "0.11.1", None),
    ("bailing_hybrid", "0.17.0", None),
    ("bailing_hybrid_mtp", "0.25.0", None),
    ("bailing_hybrid_v3_mtp", "0.28.0", None),
    ("hy_v4", "0.29.0", None),
    ("hy_v4_mtp", "0.29.0", None),
)

#: the ``eagle`` branch of ``is_deepseek_mla``: inner ``model.model_type``s
MLA_EAGLE_INNER_TYPES: tuple[Ranged[str], ...] = (
    ("AXK1", "0.17.0", "0.25.1"),
    ("axk1", "0.26.0", None),
    ("deepseek_v2", "0.10.2", None),
    ("deepseek_v3", "0.10.2", None),
    ("deepseek_v32", "0.11.0", None),
    ("deepseek_mtp", "0.15.0", None),
)

#: ``get_total_num_kv_heads``: attributes tried in order on the text config
KV_HEAD_ATTRIBUTES: tuple[Ranged[str], ...] = (
    ("n_head_kv", "0.10.2", None),
    ("num_kv_heads", "0.10.2", None),
    ("num_key_value_heads", "0.10.2", None),
    ("multi_query_group_num", "0.10.2", None),
    ("num_attention_groups", "0.20.0", None),
)

#: ``get_num_experts``: attributes tried in order (getattr_iter, default 0)
EXPERT_ATTRIBUTES: tuple[str, ...] = ("num_experts", "moe_num_experts", "n_routed_experts",
                                      "num_local_experts")

#: ``_verify_with_expert_parallelism`` in 0.10.2–0.11.0: its own loop and order
OLD_EXPERT_ATTRIBUTES: tuple[str, ...] = ("moe_num_experts", "num_experts", "n_routed_experts",
                                          "num_local_experts")

#: ``get_num_experts_per_token`` (ModelArchitectureConfig field from 0.28.0)
EXPERTS_PER_TOKEN_ATTRIBUTES: tuple[str, ...] = (
    "num_experts_per_tok", "num_experts_per_token", "top_k_experts", "moe_topk", "moe_top_k",
)

#: ``derive_max_model_len_and_key``: keys tried (smallest value wins)
MAX_LEN_KEYS: tuple[str, ...] = (
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len",
)

#: ``MODEL_ARCH_CONFIG_CONVERTORS`` (0.14.0+): hf_config.model_type -> convertor kind.
#: Kinds: falcon, mpt, dbrx, nemotron_nas, zero_kv (mamba-like: 0 heads, head size 0),
#: zamba2, cohere_asr, moss_audio, gemma4, gemma4_mtp, mimo_v2, and layer overrides
#: ``layers:<attr>:<default>``.
CONVERTORS: tuple[tuple[str, str, str, "str | None"], ...] = (
    ("falcon", "falcon", "0.14.0", None),
    ("RefinedWeb", "falcon", "0.14.0", None),
    ("RefinedWebModel", "falcon", "0.14.0", None),
    ("mpt", "mpt", "0.14.0", "0.28.0"),
    ("dbrx", "dbrx", "0.14.0", None),
    ("nemotron-nas", "nemotron_nas", "0.14.0", None),
    ("mamba", "zero_kv", "0.14.0", None),
    ("falcon_mamba", "zero_kv", "0.14.0", None),
    ("timm_wrapper", "zero_kv", "0.14.0", None),
    ("medusa", "zero_kv", "0.14.0", "0.32.0"),
    ("zamba2", "zamba2", "0.14.0", None),
    ("cohere_asr", "cohere_asr", "0.19.0", None),
    ("moss_audio", "moss_audio", "0.24.0", None),
    ("gemma4", "gemma4", "0.19.0", None),
    ("gemma4_text", "gemma4", "0.19.0", None),
    ("gemma4_unified", "gemma4", "0.23.0", None),
    ("gemma4_unified_text", "gemma4", "0.23.0", None),
    ("diffusion_gemma_text", "gemma4", "0.24.0", None),
    ("diffusion_gemma", "gemma4", "0.31.0", None),
    ("gemma4_mtp", "gemma4_mtp", "0.21.0", None),
    ("mimo_v2", "mimo_v2", "0.21.0", None),
    ("mimo_v2_flash", "mimo_v2", "0.21.0", None),
    ("deepseek_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("mimo_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("glm4_moe_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("glm_ocr_mtp", "layers:num_nextn_predict_layers:0", "0.16.0", None),
    ("ernie_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("qwen3_next_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("pangu_ultra_moe_mtp", "layers:num_nextn_predict_layers:0", "0.14.0", None),
    ("longcat_flash_mtp", "layers:num_nextn_predict_layers:1", "0.14.0", None),
    ("qwen3_5_mtp", "layers:mtp_num_hidden_layers:0", "0.17.0", None),
    ("step3p5_mtp", "layers:num_nextn_predict_layers:0", "0.23.0", None),
    ("bailing_hybrid_mtp", "layers:num_nextn_predict_layers:0", "0.25.0", None),
    ("bailing_hybrid_v3_mtp", "layers:num_nextn_predict_layers:0", "0.28.0", None),
    ("mimo_v2_mtp", "mimo_v2_mtp", "0.21.0", None),
    ("mimo_v2_omni_mtp", "mimo_v2_mtp", "0.21.0", None),
    ("qwen4_exp_mtp", "qwen4_exp_mtp", "0.29.0", None),
    ("longcat_flash", "layers:num_layers:", "0.32.0", None),
    # convertors whose __init__ re-routes hf_config.architectures before the conversion
    ("deepseek_v4", "deepseek_v4", "0.30.0", None),
    ("qwen3_5", "checkpoint_file_routes", "0.33.0", None),
    ("qwen3_omni_moe", "checkpoint_file_routes", "0.32.0", None),
)

#: ``DeepseekV4ModelArchConfigConvertor.__init__`` (0.30.0+): a config with a vision tower
#: (``vision_n_layers > 0``) whose architectures are exactly the text model's, and that is not the inner
#: copy the VL wrapper marks, is routed to the VL class.
DEEPSEEK_V4_TEXT_ARCHITECTURES = ["DeepseekV4ForCausalLM"]
DEEPSEEK_V4_VL_ARCHITECTURE = "DeepseekV4ForConditionalGeneration"
DEEPSEEK_V4_VISION_LAYERS = "vision_n_layers"
DEEPSEEK_V4_VL_INNER_MARK = "_dsv4_vl_inner"

#: ``checkpoint_file_routes`` convertors: when hf_config.architectures is exactly the first list and the
#: checkpoint (``hf_config.name_or_path``) has the file, the architecture becomes the third entry
#: (model type, architectures as loaded, file, routed architecture, since, until).
CHECKPOINT_FILE_ROUTES: tuple[tuple[str, list[str], str, str, str, "str | None"], ...] = (
    ("qwen3_5", ["Qwen3_5ForConditionalGeneration"], "joint_head_config.json", "ClefFlashForJointSchema",
     "0.33.0", None),
    ("qwen3_5", ["Qwen3_5Model"], "decision_config.json", "D3ForSequenceClassification", "0.33.0", None),
    ("qwen3_omni_moe", ["Qwen3OmniMoeForConditionalGeneration"], "joint_head_config.json",
     "ClefOmniForJointSchema", "0.32.0", None),
)

#: Layer-count rules before the convertors (0.10.2–0.13.0): ``get_layers_start_end_indices``
#: / ``get_total_num_hidden_layers``; key matched on hf_config.model_type except
#: deepseek_mtp (hf_text_config.model_type).
OLD_NEXTN_LAYER_TYPES: tuple[Ranged[str], ...] = (
    ("mimo_mtp", "0.10.2", "0.13.0"),
    ("glm4_moe_mtp", "0.10.2", "0.13.0"),
    ("ernie_mtp", "0.10.2", "0.13.0"),
    ("qwen3_next_mtp", "0.10.2", "0.13.0"),
    ("pangu_ultra_moe_mtp", "0.11.1", "0.13.0"),
)

#: Falcon model types (KV-head override: ``multi_query`` without
#: ``new_decoder_architecture`` means one KV head).
FALCON_MODEL_TYPES: tuple[str, ...] = ("falcon", "RefinedWeb", "RefinedWebModel")

#: ``ModelRegistry.inspect_model_cls`` with an empty architecture list (vllm/model_executor/models/
#: registry.py, every release 0.10.2-0.33.0); ModelConfig.__post_init__ asks the registry right after
#: get_hf_text_config (0.10.2-0.13.0) or after the ModelArchitectureConfig conversion (0.14.0+).
NO_ARCHITECTURES = "No model architectures are specified"
#: the first release that converts the config into ModelArchitectureConfig before asking the registry
ARCH_CONFIG_SINCE = "0.14.0"

#: Heterogeneous (per-layer) configs, vllm/config/model_arch.py and model_arch_config_convertor.py (0.28.0+):
#: a config whose ``is_heterogeneous`` is true is converted one layer at a time (the convertor's
#: ``get_per_layer_hf_configs`` and ``convert_layer``) and ModelArchitectureConfig.from_layers merges the
#: layers: a field equal on every layer is kept, a numeric one that varies becomes its maximum, anything
#: else that varies is refused.  Messages as the releases word them.
PER_LAYER_CONVERSION_SINCE = "0.28.0"
PER_LAYER_MLA_REFUSAL = (
    "Heterogeneous MLA models are not supported: `get_head_size` patches the config in place for them, "
    "which a per-layer conversion would apply to a throwaway copy.")
PER_LAYER_NO_LAYERS = "a model must have at least one layer"
PER_LAYER_NOT_NUMERIC = (
    "{name!r} varies across layers and has no whole-model value: {values}. Only numeric fields collapse "
    "(with `max`, to size buffers for the largest layer); give this one an explicit rule in "
    "ModelArchitectureConfig.from_layers.")
PER_LAYER_COUNT = "got {count} per-layer configs for a model with {layers} layers"
#: convertors whose per-layer configs are the main stack's, picked by ``mtp_layer_types`` (each MTP layer
#: takes the first main layer of its type): model type, since, until
PER_LAYER_BY_MTP_TYPE: tuple[Ranged[str], ...] = (("step3p5_mtp", "0.33.0", None),)
