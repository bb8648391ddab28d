"""The transformers 5.x behaviours kvguard models, checked against answers recorded from the real libraries.

``data/unit_cases5.json`` holds trap configs for what kvguard/facts/transformers5.py, strict.py, rope5.py,
repr5.py, hetero5.py and classes5.py model; ``data/unit_cases5_oracle_<release>.json.gz`` is what the real
vLLM ``get_config`` + ``get_hf_text_config`` answered for each (tools/hfconfig_oracle.py --unit --unit-cases
tests/facts/data/unit_cases5.json --record tests/facts/data).  Every expected value below is read from those
recordings (or from the generated-config recordings of tests/hfconfig/data), none is written by hand.
"""

from __future__ import annotations

import gzip
import json
import os

import pytest
from packaging.version import Version

from kvguard.errors import Undecidable
from kvguard.facts import hetero5, repr5, rope5
from kvguard.facts.loader import LoadCrash, hf_text_config, library_for, load_config
from kvguard.facts.strict import StrictDataclassFieldValidationError, check_field
from kvguard.versions import Release

from ..hfconfig._util import oracle

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
HFDATA = os.path.join(os.path.dirname(HERE), "hfconfig", "data")

with open(os.path.join(DATA, "unit_cases5.json"), encoding="utf-8") as _fh:
    CASES = {c["id"]: c for c in json.load(_fh)["cases"]}


def _recorded() -> dict:
    out = {}
    for name in sorted(os.listdir(DATA)):
        if name.startswith("unit_cases5_oracle_") and name.endswith(".json.gz"):
            with gzip.open(os.path.join(DATA, name), "rt", encoding="utf-8") as fh:
                data = json.load(fh)
            out[data["release"]] = {r["id"]: r for r in data["results"]}
    return out


RECORDED = _recorded()
RELEASES = sorted(RECORDED, key=Version)


def release(v: str) -> Release:
    return Release(Version(v))


def answer(rel: str, case_id: str) -> dict:
    return RECORDED[rel][case_id]


def crash_of(rel: str, case_id: str) -> LoadCrash:
    with pytest.raises(LoadCrash) as info:
        load_config(CASES[case_id]["config"], release(rel))
    return info.value


def test_recordings_cover_every_line():
    assert {release(r).transformers for r in RELEASES} == {"5.17.0", "5.19.0", "5.20.2", "5.24.0"}
    for rel in RELEASES:
        assert set(RECORDED[rel]) == set(CASES), rel


@pytest.mark.parametrize("rel,case_id", [(r, c) for r in RELEASES for c in CASES])
def test_trap_configs_agree_with_the_recorded_answer(rel, case_id):
    """Every trap config: what kvguard answers is what the real vLLM answered (the same exception and message,
    or the same summary of the config object); never Undecidable."""
    case = CASES[case_id]
    mine = oracle.run_kvguard({"id": case_id, "config": case["config"]}, release(rel))
    verdict, detail = oracle.compare(answer(rel, case_id), mine)
    assert verdict == "agree", detail


# -- @strict field checks (strict.py) ------------------------------------------------------------

#: trap config -> (model type, the field whose value is wrong)
STRICT_FIELDS = {
    "s_int_str": ("llama", "num_hidden_layers"), "s_int_bool": ("llama", "num_attention_heads"),
    "s_int_float": ("llama", "num_attention_heads"), "s_union_float": ("qwen2", "sliding_window"),
    "s_list_elem": ("qwen2", "layer_types"), "s_list_tuple": ("qwen2", "layer_types"),
    "s_literal": ("gemma4_text", "use_bidirectional_attention"), "s_rope_int": ("llama", "rope_parameters"),
    "s_eos_list": ("llama", "eos_token_id"), "s_float_int": ("llama", "rms_norm_eps"),
}


@pytest.mark.parametrize("rel,case_id", [(r, c) for r in RELEASES for c in STRICT_FIELDS])
def test_strict_field_messages(rel, case_id):
    """``check_field`` raises huggingface_hub's message character for character (the recorded one)."""
    model_type, field = STRICT_FIELDS[case_id]
    recorded = answer(rel, case_id)["error"]
    assert recorded["type"] == "StrictDataclassFieldValidationError"
    lib = library_for(release(rel))
    spec = lib.field_checks(lib.class_for_model_type(model_type))[field]
    with pytest.raises(StrictDataclassFieldValidationError) as info:
        check_field(field, CASES[case_id]["config"][field], spec, lib.type_classes)
    assert str(info.value) == recorded["message"]
    assert [type(info.value.__cause__).__name__, str(info.value.__cause__)] == recorded["cause"]


def test_strict_accepts_the_declared_types():
    lib = library_for(release(RELEASES[-1]))
    checks = lib.field_checks(lib.class_for_model_type("llama"))
    for field, value in (("num_hidden_layers", 2), ("eos_token_id", [1, 2]), ("eos_token_id", None),
                         ("rope_parameters", {"rope_type": "default"}), ("rms_norm_eps", 1e-5)):
        check_field(field, value, checks[field], lib.type_classes)


# -- RoPE (rope5.py) -----------------------------------------------------------------------------

@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id,rope_type", [("r_yarn_no_factor", "yarn"), ("r_llama3_missing", "llama3")])
def test_rope_type_checks_name_the_missing_keys(rel, case_id, rope_type):
    recorded = answer(rel, case_id)["error"]
    lib = library_for(release(rel))
    obj = load_config(CASES["r_partial"]["config"], release(rel))
    obj.rope_parameters = dict(CASES[case_id]["config"]["rope_parameters"])
    rope5.standardize_rope_params(lib, obj)  # as __post_init__ does before the checks
    with pytest.raises(KeyError) as info:
        rope5.run_type_check(lib, obj, rope_type, obj.rope_parameters, None)
    assert oracle.same_message(str(info.value), recorded["message"])


@pytest.mark.parametrize("rel", RELEASES)
def test_longrope_factor_lists_have_half_the_rotary_dimension(rel):
    recorded = answer(rel, "r_longrope_short")["error"]
    crash = crash_of(rel, "r_longrope_short")
    assert (crash.exc_type, crash.message) == (recorded["type"], recorded["message"])
    assert list(crash.cause) == recorded["cause"]


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", ["r_linear_small", "r_unknown", "r_extra_key", "r_dynamic_legacy", "r_partial"])
def test_rope_parameters_the_checks_let_through(rel, case_id):
    """transformers 5 only warns for these: the config loads."""
    assert answer(rel, case_id)["outcome"] == "ok"
    load_config(CASES[case_id]["config"], release(rel))


# -- printing the config (repr5.py) -----------------------------------------------------------------

@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id,field", [("p_quant_int", "quantization_config"), ("p_dtype_list", "dtype")])
def test_printing_the_config_raises_as_recorded(rel, case_id, field):
    recorded = answer(rel, case_id)["error"]
    lib = library_for(release(rel))
    raw = dict(CASES[case_id]["config"])
    value = raw.pop(field)
    obj = load_config(raw, release(rel))
    obj.kvg_attrs[field] = value
    with pytest.raises(Exception) as info:
        repr5.check_repr(lib, obj)
    assert (type(info.value).__name__, str(info.value)) == (recorded["type"], recorded["message"])


@pytest.mark.parametrize("rel", RELEASES)
def test_a_dotted_dtype_prints(rel):
    assert answer(rel, "p_dtype_float")["outcome"] == "ok"
    obj = load_config(CASES["p_dtype_float"]["config"], release(rel))
    repr5.check_repr(library_for(release(rel)), obj)


# -- per-layer configs (hetero5.py) -----------------------------------------------------------------

def _summary(rel: str, case_id: str) -> dict:
    recorded = answer(rel, case_id)
    assert recorded["outcome"] == "ok", recorded
    return recorded["hf_config"]


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", ["h_gemma4_default", "h_gemma4_kv", "h_gemma4_explicit"])
def test_reading_a_per_layer_attribute_of_the_whole_config_raises(rel, case_id):
    recorded = _summary(rel, case_id)["head_dim"]["error"]
    obj = load_config(CASES[case_id]["config"], release(rel))
    assert obj.is_heterogeneous is True
    with pytest.raises(hetero5.AmbiguousGlobalPerLayerAttributeError) as info:
        obj.head_dim  # noqa: B018
    assert [type(info.value).__name__, str(info.value)] == recorded


@pytest.mark.parametrize("rel", RELEASES)
def test_gemma4_kv_heads_per_layer_only_with_attention_k_eq_v(rel):
    plain = load_config(CASES["h_gemma4_default"]["config"], release(rel))
    shared = load_config(CASES["h_gemma4_kv"]["config"], release(rel))
    assert "num_key_value_heads" in _summary(rel, "h_gemma4_default")["__keys__"]
    assert "num_key_value_heads" not in _summary(rel, "h_gemma4_kv")["__keys__"]
    assert plain.per_layer_attributes == {"head_dim"}
    assert shared.per_layer_attributes == {"head_dim", "num_key_value_heads"}
    assert sorted(k for k in plain if not str(k).startswith("_")) == _summary(rel, "h_gemma4_default")["__keys__"]


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", ["h_gemma4_same_head_dim", "h_gemma4_allow_global", "h_equal_global"])
def test_no_ambiguity_when_nothing_varies_or_global_reads_are_allowed(rel, case_id):
    obj = load_config(CASES[case_id]["config"], release(rel))
    assert obj.head_dim == _summary(rel, case_id)["head_dim"]["v"]
    assert obj.is_heterogeneous is _summary(rel, case_id)["is_heterogeneous"]["v"]


@pytest.mark.parametrize("rel", RELEASES)
def test_per_layer_view(rel):
    """``per_layer_config[i]``: the layer's config (its overrides assigned), the config itself when no layer
    differs; indexed by layer type when all layers of the type agree."""
    obj = load_config(CASES["h_gemma4_default"]["config"], release(rel))
    view = obj.per_layer_config
    assert len(view) == 6
    full = view[5]
    assert full.head_dim == 512 and "_heterogeneity_spec" not in full.kvg_attrs
    assert view[0].head_dim == 256 and view[-1].head_dim == 512
    assert view["full_attention"].head_dim == 512
    with pytest.raises(IndexError):
        view[6]
    with pytest.raises(ValueError, match="not found in config.layer_types"):
        view["bogus"]
    plain = load_config(CASES["r_partial"]["config"], release(rel))
    assert plain.is_heterogeneous is False and plain.per_layer_config[1] is plain
    # overrides all equal to the global values: still heterogeneous (an empty spec), each layer a copy
    same = load_config(CASES["h_equal_global"]["config"], release(rel))
    assert _summary(rel, "h_equal_global")["is_heterogeneous"] == {"v": True}
    assert same.per_layer_config[1] is not same and same.per_layer_config[1].num_key_value_heads == 8


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", ["h_out_of_range", "h_negative", "h_bad_key", "h_list", "h_skip_str", "h_skip_ints",
                                     "h_sw_chunk", "h_missing_global"])
def test_assigning_per_layer_config_refuses_as_recorded(rel, case_id):
    """The setter alone (``hetero5.apply`` on a config built without the overrides) raises the recorded error."""
    recorded = answer(rel, case_id)["error"]
    raw = dict(CASES[case_id]["config"])
    overrides = raw.pop("per_layer_config")
    obj = load_config(raw, release(rel))
    with pytest.raises(Exception) as info:
        hetero5.apply(library_for(release(rel)), obj, overrides)
    assert (type(info.value).__name__, str(info.value)) == (recorded["type"], recorded["message"])


def test_per_layer_overrides_are_normalised():
    rel = RELEASES[-1]
    obj = load_config(CASES["h_skip_ok"]["config"], release(rel))
    spec = obj.kvg_attrs["_heterogeneity_spec"]
    assert spec.per_layer_overrides == {1: {"skip": ["attention", "mlp"]}}
    assert spec.per_layer_attributes == set()
    printed = repr5.to_dict(library_for(release(rel)), obj)
    assert printed["per_layer_config"] == {"1": {"skip": ["attention", "mlp"]}}
    assert "_heterogeneity_spec" not in printed


def test_too_many_layers_is_undecidable():
    rel = RELEASES[-1]
    raw = {**CASES["h_every_layer"]["config"], "num_hidden_layers": 10 ** 9,
           "per_layer_config": {"0": {"num_key_value_heads": 4}}}
    with pytest.raises(Undecidable):
        load_config(raw, release(rel))


# -- single classes' derivations (classes5.py) and other 5.x steps -----------------------------------

def _v(rel: str, case_id: str, attr: str):
    return _summary(rel, case_id)[attr].get("v")


@pytest.mark.parametrize("rel", [r for r in RELEASES if release(r).transformers in ("5.19.0", "5.20.2")])
def test_deepseek_v4_legacy_keywords(rel):
    cfg = load_config(CASES["dsv4_ratios"]["config"], release(rel))
    if _summary(rel, "dsv4_ratios")["__class__"] != "DeepseekV4Config" or cfg.kvg_class != "DeepseekV4Config" \
            or cfg.kvg_facts.record.get("module", "").startswith("vllm."):
        pytest.skip("the release reads deepseek_v4 with vLLM's own class")
    assert cfg.layer_types == _v(rel, "dsv4_ratios", "layer_types")
    assert cfg.layer_types == ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                               "compressed_sparse_attention"]
    crash = crash_of(rel, "dsv4_bad_ratio")
    assert (crash.exc_type, crash.message) == (answer(rel, "dsv4_bad_ratio")["error"]["type"],
                                               answer(rel, "dsv4_bad_ratio")["error"]["message"])


@pytest.mark.parametrize("rel", RELEASES)
def test_step3p5_mtp_layers_split_off(rel):
    cfg = load_config(CASES["step3p5_mtp"]["config"], release(rel))
    for attr in ("layer_types", "num_hidden_layers", "is_heterogeneous"):
        assert _summary(rel, "step3p5_mtp")[attr] == {"v": getattr(cfg, attr)}


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", ["laguna_heads_len", "mllama_tiles", "step3p5_enum_bad", "dsv4_bad_ratio"])
def test_class_checks_refuse_as_recorded(rel, case_id):
    recorded = answer(rel, case_id)
    if recorded["outcome"] == "ok":
        cfg = load_config(CASES[case_id]["config"], release(rel))
        assert cfg.model_type == _v(rel, case_id, "model_type")
        return
    crash = crash_of(rel, case_id)
    assert (crash.exc_type, crash.message) == (recorded["error"]["type"], recorded["error"]["message"])


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id,attr", [("hy_v3_no_layers", "num_hidden_layers"), ("olmo_hybrid_two", "layer_types"),
                                          ("kimi_k25_k2_text", "text_config"), ("qwen3_vl_old_vision", "vision_config"),
                                          ("llava_tie", "text_config")])
def test_class_defaults_as_recorded(rel, case_id, attr):
    cfg = load_config(CASES[case_id]["config"], release(rel))
    mine = oracle.run_kvguard({"id": case_id, "config": CASES[case_id]["config"]}, release(rel))
    assert mine["hf_config"][attr] == _summary(rel, case_id)[attr]
    assert hf_text_config(cfg) is not None


# -- PreTrainedConfig.__post_init__ per line (transformers5.py) --------------------------------------

def _generated(rel: str, model_type: str) -> list:
    with gzip.open(os.path.join(HFDATA, f"oracle_{rel}.json.gz"), "rt", encoding="utf-8") as fh:
        cases = json.load(fh)["cases"]
    return [c for c in cases if c["config"].get("model_type") == model_type and c["oracle"]["outcome"] == "ok"]


@pytest.mark.parametrize("rel", ["0.28.0", "0.31.0", "0.32.0", "0.33.0"])
def test_tied_embeddings_copy_the_tensor_parallel_plan_before_5_24(rel):
    """transformers 5.17-5.20 copy a class's tensor-parallel plan onto the instance when embeddings are tied
    (the plan becomes one of the config's keys); 5.24 no longer does."""
    cases = [c for c in _generated(rel, "gemma") if c["config"].get("tie_word_embeddings", True)]
    assert cases
    for case in cases:
        cfg = load_config(case["config"], release(rel))
        keys = sorted(k for k in cfg if not str(k).startswith("_"))
        assert keys == case["oracle"]["hf_config"]["__keys__"]
        assert ("base_model_tp_plan" in keys) is (release(rel).transformers != "5.24.0")


@pytest.mark.parametrize("rel", ["0.24.0", "0.31.0", "0.32.0", "0.33.0"])
def test_an_infinite_field_default_is_read(rel):
    # NemotronHConfig's dataclass field ``time_step_limit: ... = (0.0, float("inf"))`` (transformers 5.x
    # configuration_nemotron_h.py); a config.json without the key takes it
    obj = load_config({"model_type": "nemotron_h"}, release(rel))
    assert obj.time_step_limit == (0.0, float("inf"))
