"""Kimi-K2.5 / K2.6 model construction (kvguard.quant.kimi_k25 and the deepseek_v2 family under the multimodal
wrapper), through the CLI's JSON report.

The expected values are read in the releases, not computed by kvguard: vllm/model_executor/models/kimi_k25_vit.py's
MoonViTEncoderLayer divides the vision config's 16 heads by tp (vision.py falls back to a data-parallel encoder from
0.26.0 when tp does not divide them; ``--mm-encoder-tp-mode data`` never splits it), and kimi_k25.py builds the
language model as DeepseekV2ForCausalLM under ``language_model`` from 0.16.0 (its layers at
``language_model.model.layers``, checkpoint names mapped from ``language_model.layers``), in 0.15.x as a bare
DeepseekV2Model named ``language_model`` (its layers at ``language_model.layers``, no mapper).  The oracle differential is tests/upstream/test_quant.py's
run_kimi.
"""

from __future__ import annotations

import copy

import pytest

K25 = "moonshotai/Kimi-K2.5"
NVFP4 = ("nvidia/Kimi-K2.5-NVFP4", "nvidia/Kimi-K2.6-NVFP4")


def _skipped_mi(report: dict) -> list:
    return [s for s in report.get("skipped") or [] if "MI_model" in str(s)]


@pytest.mark.parametrize("version", ["0.15.0", "0.15.1", "0.16.0", "0.17.0", "0.24.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("model", (K25, *NVFP4))
def test_published_checkpoints_build_at_tp8(serve_json, version, model):
    status, report = serve_json(version, "-tp", "8", model=model)
    assert report["ok"] is True, report.get("message")
    assert not _skipped_mi(report)


@pytest.mark.parametrize("version", ["0.15.0", "0.15.1", "0.16.0", "0.20.0", "0.25.0"])
def test_vision_heads_refuse_tp32_before_the_fallback(serve_json, version):
    status, report = serve_json(version, "-tp", "32", "--nnodes", "4", model=K25)
    assert (report["ok"], report["check"], report["exc_type"], report["message"], report["wrapped_by"]) == (
        False, "MI_divide", "AssertionError", "16 is not divisible by 32", None)
    assert report["stage"] == "model_init"


@pytest.mark.parametrize("version", ["0.26.0", "0.29.0", "0.33.0"])
def test_vision_encoder_falls_back_to_data_parallel(serve_json, version):
    status, report = serve_json(version, "-tp", "32", "--nnodes", "4", model=K25)
    assert report["ok"] is True and not _skipped_mi(report)


@pytest.mark.parametrize("version", ["0.16.0", "0.25.0"])
def test_data_parallel_encoder_is_not_split(serve_json, version):
    status, report = serve_json(version, "-tp", "32", "--nnodes", "4", "--mm-encoder-tp-mode", "data", model=K25)
    assert report["ok"] is True and not _skipped_mi(report)


@pytest.mark.parametrize("limits", [("--limit-mm-per-prompt", '{"vision_chunk": 0}'), ("--language-model-only",)])
def test_a_launch_that_may_build_no_tower_is_left_open(serve_json, limits):
    # kimi_k25.py builds the tower inside _mark_tower_model("vision_chunk"): nothing when the limits leave it out, so
    # the tower's refusal at -tp 32 (above) must not be reported
    status, report = serve_json("0.20.0", "-tp", "32", "--nnodes", "4", *limits, model=K25)
    assert report["ok"] is True
    assert any("no vision tower" in str(s) for s in _skipped_mi(report))


def _outcome(version: str, config: dict, **launch):
    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    return outcome(model_facts(config, vllm_version=version), resolve(version), Launch(**launch))


def _unquantized() -> dict:
    from kvguard import catalog

    cfg = copy.deepcopy(catalog.lookup(K25).config)
    cfg.pop("quantization_config", None)
    cfg["text_config"].pop("quantization_config", None)
    return cfg


@pytest.mark.parametrize("version,open_", [("0.16.0", False), ("0.17.0", True), ("0.33.0", True)])
def test_online_fp8_quantizes_the_tower_from_0_17(version, open_):
    # --quantization fp8 on the unquantized form: up to 0.16.x the tower is built without the quantization config
    res = _outcome(version, _unquantized(), tp=8, quantization="fp8")
    assert ("vision tower" in (res.unmodelled or "")) is open_
    if not open_:
        assert res.check is None and res.unmodelled is None


@pytest.mark.parametrize("heads,intermediate,tp,version,expected", [
    (16, 4304, 16, "0.25.0", None),
    (12, 4304, 8, "0.25.0", "12 is not divisible by 8"),
    (12, 4304, 8, "0.26.0", None),                      # heads tp does not divide: data-parallel encoder
    (16, 4200, 16, "0.26.0", "4200 is not divisible by 16"),  # heads split, then MLP2's fc0
    (16, 4200, 16, "0.16.0", "4200 is not divisible by 16"),
])
def test_vision_tower_sizes(heads, intermediate, tp, version, expected):
    cfg = _unquantized()
    cfg["vision_config"].update(num_attention_heads=heads, intermediate_size=intermediate)
    res = _outcome(version, cfg, tp=tp)
    if expected is None:
        assert res.check is None and res.unmodelled is None
    else:
        assert (res.check, res.layer, f"{res.values['numerator']} is not divisible by {res.values['denominator']}") \
            == ("MI_divide", res.layer, expected)
        assert res.layer.startswith("vision_tower.encoder.blocks.0")


def test_modelopt_tower_not_excluded_stays_open():
    from kvguard import catalog

    cfg = copy.deepcopy(catalog.lookup(NVFP4[0]).config)
    q = cfg["quantization_config"]
    q["ignore"] = [x for x in q["ignore"] if not x.startswith(("vision_tower", "mm_projector"))]
    assert "vision_tower" in (_outcome("0.33.0", cfg, tp=8).unmodelled or "")
    assert _outcome("0.16.0", cfg, tp=8).unmodelled is None


@pytest.mark.parametrize("spelling,version,refused", [
    # 0.15.x matches the exclusion list as written against its own names (language_model.layers.N)
    ("language_model.model.layers", "0.15.1", True),
    ("language_model.layers", "0.15.1", False),
    # 0.16.0+ renames language_model.layers. to language_model.model.layers. (hf_to_vllm_mapper): both spellings match
    ("language_model.model.layers", "0.16.0", False),
    ("language_model.layers", "0.16.0", False),
])
def test_modelopt_exclusions_in_each_releases_names(spelling, version, refused):
    # NVFP4 with a dense MLP of 18440 features: 2305 per rank at -tp 8 (not a multiple of 16) unless layer 0's MLP is
    # excluded; the oracle gave these four answers (0.15.1, 0.16.0)
    from kvguard import catalog

    cfg = copy.deepcopy(catalog.lookup(NVFP4[0]).config)
    text = cfg["text_config"]
    text.update(num_hidden_layers=3, first_k_dense_replace=1, intermediate_size=18440)
    q = cfg["quantization_config"]
    q["ignore"] = [x for x in q["ignore"] if ".layers." not in x] + [f"{spelling}.0.mlp*", f"{spelling}.*.self_attn*"]
    res = _outcome(version, cfg, tp=8)
    assert res.unmodelled is None
    if refused:
        assert (res.check, res.layer) == ("MI_nvfp4_input", "language_model.layers.0.mlp.down_proj")
    else:
        assert res.check is None


@pytest.mark.parametrize("version,layer", [
    ("0.15.0", "language_model.layers.0.mlp.gate_up_proj"),
    ("0.15.1", "language_model.layers.0.mlp.gate_up_proj"),
    ("0.16.0", "language_model.model.layers.0.mlp.gate_up_proj"),
])
def test_the_refusing_layer_is_named_as_the_release_names_it(version, layer):
    cfg = _unquantized()
    cfg["text_config"]["intermediate_size"] = 18433  # odd: the dense MLP's merged gate / up shards do not split in 2
    res = _outcome(version, cfg, tp=2)
    assert (res.check, res.layer) == ("MI_merged_assert", layer)
