"""Release-dependent loader behaviour, with expected outcomes read from real runs.

Every expectation below is the real vLLM's answer recorded in ``data/unit_oracle_<release>.json.gz``
(tools/hfconfig_oracle.py --unit --record: real ``get_config`` + ``get_hf_text_config`` in each release's
oracle environment, fresh-process state per case); the test checks that the recording says what the comment
says and that kvguard answers the same.
"""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.facts.loader import LoadCrash, hf_text_config, load_config

from ._util import oracle, read, release

CASES = {c["id"]: c for c in read("unit_cases.json")}
_REC: dict[str, dict] = {}


def recorded(rel: str, case_id: str) -> dict:
    if rel not in _REC:
        _REC[rel] = {r["id"]: r for r in read(f"unit_oracle_{rel}.json.gz")["results"]}
    return _REC[rel][case_id]


def kvguard(rel: str, case_id: str) -> dict:
    c = CASES[case_id]
    return oracle.run_kvguard({"id": case_id, "config": c["config"], "path": c["path"]}, release(rel))


def outcome(r: dict):
    if r["outcome"] == "error":
        return ("error", r["error"]["type"], r["error"]["message"])
    return ("ok",)


def check(rel, case_id, expect):
    """The real release answered ``expect`` (outcome, exception type, start of the message) and kvguard agrees
    with that answer in full (attribute by attribute, or error type and message)."""
    o = recorded(rel, case_id)
    got = outcome(o)
    assert got[:2] == expect[:2], got
    if len(expect) > 2:
        assert got[2].startswith(expect[2]), got
    k = kvguard(rel, case_id)
    verdict, detail = oracle.compare(o, k)
    if verdict == "undecidable":
        # a model type neither transformers nor vLLM knows: vLLM would need the checkpoint's remote code, so
        # kvguard declines (Undecidable) and carries what vLLM raises without --trust-remote-code
        c = CASES[case_id]
        with pytest.raises(Undecidable) as ei:
            load_config(c["config"], release(rel), path=c["path"])
        crash = ei.value.load_crash
        assert (crash.exc_type, crash.message) == (o["error"]["type"], o["error"]["message"])
        return
    assert verdict == "agree", detail


@pytest.mark.parametrize("rel,expect", [
    ("0.10.2", ("error", "AssertionError")),   # patch_rope_scaling_dict: assert "mrope_section" in rope_scaling
    ("0.12.0", ("error", "AssertionError")),   # patch_rope_parameters_dict, same assert
    ("0.13.0", ("error", "ValueError", "Legacy rope_type 'mrope' requires 'mrope_section' in rope")),
    ("0.23.0", ("error", "ValueError", "Legacy rope_type 'mrope' requires 'mrope_section' in rope")),
])
def test_legacy_mrope_without_section(rel, expect):
    check(rel, "rope_mrope_no_section", expect)


@pytest.mark.parametrize("rel,expect", [
    ("0.10.2", ("ok",)),    # patch_rope_scaling only looks at rope_scaling
    ("0.12.0", ("error", "ValueError", "rope_parameters should have a 'rope_type' key")),
    ("0.20.0", ("error", "ValueError", "rope_parameters should have a 'rope_type' key")),
    ("0.21.0", ("ok",)),    # per-layer-type rope_parameters recognised on 4.x (is_rope_parameters_nested)
    ("0.24.0", ("ok",)),
])
def test_rope_parameters_nested_by_layer_type(rel, expect):
    check(rel, "rope_nested_plain", expect)


@pytest.mark.parametrize("rel,expect", [
    ("0.10.2", ("ok",)),                        # every registry class: MedusaConfig.from_pretrained
    ("0.19.0", ("error", "AttributeError")),    # registered with AutoConfig, whose from_dict path sets
    ("0.24.0", ("error", "AttributeError")),    # num_attention_heads: a read-only property of MedusaConfig
    ("0.25.0", ("ok",)),                        # medusa in _SPECULATIVE_DECODING_CONFIGS again
    ("0.32.0", ("ok",)),
    ("0.33.0", ("error", "ValueError", "The checkpoint you are trying to load has model type `medusa`")),
])
def test_medusa_loading_path(rel, expect):
    check(rel, "medusa_spec", expect)


@pytest.mark.parametrize("rel,expect", [
    ("0.31.0", ("error", "ValueError", "Unrecognized model in /tmp/kvgo_unit/longcat_no_model_type")),
    ("0.32.0", ("ok",)),   # _ARCHITECTURE_TO_MODEL_TYPE["LongcatFlashForCausalLM"]
    ("0.33.0", ("ok",)),
])
def test_model_type_from_architecture(rel, expect):
    check(rel, "longcat_no_model_type", expect)


def test_model_type_from_architecture_class():
    cfg = load_config(CASES["longcat_no_model_type"]["config"], release("0.32.0"))
    assert (cfg.kvg_class, cfg.model_type) == (recorded("0.32.0", "longcat_no_model_type")["hf_config"]["__class__"],
                                               "longcat_flash")


@pytest.mark.parametrize("rel", ["0.10.2", "0.11.1", "0.24.0", "0.31.0", "0.32.0"])
def test_architectures_fill(rel):
    """0.11.1+ fills an empty ``architectures`` from transformers' MODEL_MAPPING_NAMES."""
    o = recorded(rel, "no_architectures")
    arch = o["hf_config"]["architectures"]["v"]
    assert (arch is None) is (rel == "0.10.2")
    check(rel, "no_architectures", ("ok",))


@pytest.mark.parametrize("rel", ["0.19.0", "0.24.0", "0.28.0", "0.31.0", "0.33.0"])
def test_each_load_is_a_fresh_process(rel):
    """vLLM sets DeepseekV3Config.model_type = "kimi_k2" when it registers kimi_k2 (0.19.0+); a later
    deepseek_v3 load in the same process would see it.  kvguard models a fresh process for every load."""
    load_config(CASES["kimi_k2"]["config"], release(rel))
    o = recorded(rel, "deepseek_v3_after_kimi")
    assert o["hf_config"]["model_type"]["v"] == "deepseek_v3"
    check(rel, "deepseek_v3_after_kimi", ("ok",))
    cfg = load_config(CASES["deepseek_v3_after_kimi"]["config"], release(rel))
    assert cfg.model_type == "deepseek_v3"


@pytest.mark.parametrize("rel", ["0.24.0", "0.31.0"])
def test_gemma4_text_per_layer_rope_parameters(rel):
    """0.31.0+ loads gemma4_text with per-layer-type rope_parameters through Gemma4TextConfig.from_dict
    after dropping the shared keys, and patches validate_rope for it."""
    check(rel, "gemma4_text_nested_shared", ("ok",))


@pytest.mark.parametrize("rel", ["0.24.0", "0.26.0", "0.31.0", "0.32.0"])
def test_glm_moe_dsa_layer_types(rel):
    check(rel, "glm_moe_dsa_sparse_layers", outcome(recorded(rel, "glm_moe_dsa_sparse_layers")))


def test_text_config_assert_then_value_error():
    for rel, exc in (("0.12.0", "AssertionError"), ("0.13.0", "ValueError")):
        o = recorded(rel, "text_no_heads")
        assert o["text_error"]["type"] == exc
        cfg = load_config(CASES["text_no_heads"]["config"], release(rel))
        with pytest.raises(LoadCrash) as ei:
            hf_text_config(cfg)
        assert (ei.value.exc_type, ei.value.wrapped_by) == (exc, "ModelConfig")


def test_registry_class_overrides_transformers_on_5x():
    """qwen3_5 is in vLLM's _CONFIG_REGISTRY 0.17.0-0.31.0, where vLLM's class wins over transformers' own
    (registered with AutoConfig); 0.32.0 uses transformers' class."""
    for rel in ("0.24.0", "0.31.0", "0.32.0"):
        o = recorded(rel, "qwen3_5_registry")
        cfg = load_config(CASES["qwen3_5_registry"]["config"], release(rel))
        assert cfg.kvg_class == o["hf_config"]["__class__"]
    with pytest.raises(Undecidable):  # neither transformers 4.57.6 nor vLLM 0.10.2 know qwen3_5
        load_config(CASES["qwen3_5_registry"]["config"], release("0.10.2"))
