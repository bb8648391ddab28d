"""Nemotron-H's first Mamba-2 mixer at model construction (kvguard.quant.nemotron_h), and its ModelOpt NVFP4 export past
it, through the CLI's JSON report and kvguard.quant.outcome; and MiMo-V2-Flash's skipped reason.

The expected values are read in the releases, not computed by kvguard: vllm/model_executor/layers/mamba/
mamba_mixer2.py's MambaMixer2.__init__ asserts that tp divides the Mamba heads, then that tp divides n_groups or
n_groups is 1; nemotron_h.py builds the vocabulary embedding and then layer 0, whose ``M`` builds that mixer first.
Decided from 0.24.0 (before, the checkpoint's remote configuration code builds the config).  Nemotron-3-Nano has 64 Mamba
heads and 8 groups and starts with ``M``.  The oracle differential is tests/upstream/test_nemotron_h.py.
"""

from __future__ import annotations

import copy

import pytest

from kvguard import catalog

BF16 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
NVFP4 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
GROUPS = "If tensor parallel world size does not divide num_groups, then num_groups must equal 1."
HEADS = "Tensor parallel world size must divide num heads."


def _skipped_mi(report: dict) -> str:
    return " ".join(str(s) for s in report.get("skipped") or [] if "MI_model" in str(s))


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.29.0", "0.31.0", "0.33.0"])
@pytest.mark.parametrize("model", (BF16, NVFP4))
def test_nano_refuses_tp16_on_its_groups(serve_json, version, model):
    status, report = serve_json(version, "-tp", "16", "--nnodes", "2", model=model)
    assert (report["ok"], report["check"], report["stage"], report["exc_type"], report["message"],
            report["wrapped_by"]) == (False, "MI_mamba2_groups", "model_init", "AssertionError", GROUPS, None)


@pytest.mark.parametrize("version", ["0.24.0", "0.28.0", "0.29.0", "0.33.0"])
@pytest.mark.parametrize("tp", ["1", "2", "4", "8"])
def test_nano_nvfp4_is_built_past_the_mixer(serve_json, version, tp):
    # every NVFP4 layer's per-rank input is a multiple of 16 (the oracle builds the model: accepted)
    status, report = serve_json(version, "-tp", tp, model=NVFP4)
    assert report["ok"] is True and _skipped_mi(report) == "", report.get("skipped")


def test_pipeline_stages_leave_the_mixer_open(serve_json):
    status, report = serve_json("0.33.0", "-tp", "16", "-pp", "2", "--nnodes", "4", model=NVFP4)
    assert report.get("check") != "MI_mamba2_groups"
    assert "NemotronHForCausalLM" in _skipped_mi(report)


def _outcome(version: str, model: str, tp: int, pp: int = 1, quantization=None, **changes):
    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    entry = catalog.lookup(model)
    cfg = copy.deepcopy(dict(entry.config))
    cfg.pop("auto_map", None)
    cfg.update(changes)
    if entry.hf_quant_config:
        import json
        import tempfile
        from pathlib import Path

        directory = Path(tempfile.mkdtemp(prefix="kvg-nemotron-h-"))
        (directory / "config.json").write_text(json.dumps(cfg))
        (directory / "hf_quant_config.json").write_text(json.dumps(dict(entry.hf_quant_config)))
        source = str(directory)
    else:
        source = cfg
    facts = model_facts(source, vllm_version=version)
    res = outcome(facts, resolve(version), Launch(tp=tp, pp=pp, quantization=quantization,
                                                  refined_fp8_moe_kernel=True))
    return res.check, dict(res.values), res.layer, res.unmodelled


CASES = [
    # (release, model, tp, config changes, --quantization, check, layer)
    ("0.33.0", BF16, 32, {"mamba_num_heads": 48}, None, "MI_mamba2_heads", "model.layers.0.mixer"),
    ("0.24.0", NVFP4, 16, {"mamba_num_heads": 40}, None, "MI_mamba2_heads", "model.layers.0.mixer"),
    ("0.33.0", BF16, 16, {"n_groups": 1}, None, None, None),
    ("0.28.0", BF16, 4, {"n_groups": 6}, None, "MI_mamba2_groups", "model.layers.0.mixer"),
    ("0.29.0", NVFP4, 2, {"n_groups": 1}, None, None, None),
    ("0.33.0", BF16, 4, {"n_groups": 1}, "fp8", None, None),
    ("0.33.0", BF16, 16, {"hybrid_override_pattern": "*EMEM", "num_hidden_layers": 5}, None, None, None),
]


@pytest.mark.parametrize("version,model,tp,changes,quantization,check,layer", CASES)
def test_first_mixer(version, model, tp, changes, quantization, check, layer):
    got = _outcome(version, model, tp, quantization=quantization, **changes)
    assert got[:1] == (check,) and (check is None or got[2] == layer), got


def test_nvfp4_past_the_mixer_is_decided():
    assert _outcome("0.24.0", NVFP4, 2, n_groups=1) == (None, {}, None, None)


def _nvfp4(version: str, tp: int, drop: tuple[str, ...] = (), algo: str = "NVFP4", **changes):
    """The NVFP4 export with config changes and the exclusion-list entries containing a ``drop`` text removed;
    ``algo``: another quant_algo in its hf_quant_config.json (FP8: the group size dropped)."""
    import json
    import tempfile
    from pathlib import Path

    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    entry = catalog.lookup(NVFP4)
    cfg = copy.deepcopy(dict(entry.config))
    cfg.pop("auto_map", None)
    cfg.update(changes)
    quant = copy.deepcopy(dict(entry.hf_quant_config))
    quant["quantization"]["exclude_modules"] = [n for n in quant["quantization"]["exclude_modules"]
                                                if not any(d in n for d in drop)]
    if algo != "NVFP4":
        quant["quantization"]["quant_algo"] = algo
        quant["quantization"].pop("group_size")
    directory = Path(tempfile.mkdtemp(prefix="kvg-nemotron-h-"))
    (directory / "config.json").write_text(json.dumps(cfg))
    (directory / "hf_quant_config.json").write_text(json.dumps(quant))
    res = outcome(model_facts(str(directory), vllm_version=version), resolve(version), Launch(tp=tp))
    return res.check, dict(res.values), res.layer, res.unmodelled


#: (changes, dropped exclusions, tp, check, values, layer), each built by 0.24.0 and 0.33.0 in the oracle with the
#: same outcome (tests/upstream/test_nemotron_h.py's builds; the sizes by hand from nemotron_h.py / mamba_mixer2.py)
NVFP4_CASES = [
    # 48 Mamba heads of width 8 over 16 ranks (1 group: the mixer asserts hold): layer 0's out_proj takes 24
    ({"mamba_num_heads": 48, "mamba_head_dim": 8, "n_groups": 1}, (), 16, "MI_nvfp4_input", {"size": 24},
     "model.layers.0.mixer.out_proj"),
    ({"mamba_num_heads": 48, "mamba_head_dim": 8, "n_groups": 1}, (), 8, None, {}, None),
    # 24 heads of 40: o_proj takes 120 per rank at tp 8, but every attention layer (5, 12, ...) is excluded by its
    # backbone.* name ...
    ({"num_attention_heads": 24, "head_dim": 40}, (), 8, None, {}, None),
    # ... unless the list leaves layer 5's o_proj out
    ({"num_attention_heads": 24, "head_dim": 40}, ("layers.5.mixer.o_proj",), 8, "MI_nvfp4_input", {"size": 120},
     "model.layers.5.mixer.o_proj"),
    # the shared experts' down_proj: 1000 / 2 = 500 (layer 1 is the first E)
    ({"moe_shared_expert_intermediate_size": 1000}, (), 2, "MI_nvfp4_input", {"size": 500},
     "model.layers.1.mixer.shared_experts.down_proj"),
    # the LM head quantized: 2688 input features, a multiple of 16
    ({}, ("lm_head",), 2, None, {}, None),
    # a hidden size of 2680: layer 0's in_proj (column: the full input) at any tp
    ({"hidden_size": 2680}, (), 1, "MI_nvfp4_input", {"size": 2680}, "model.layers.0.mixer.in_proj"),
    # the latent MoE (Nemotron-3 Super / Ultra): fc1_latent_proj reads the hidden size (2688), fc2_latent_proj the
    # latent width, both replicated (whole on every rank, whatever tp)
    ({"moe_latent_size": 1024}, (), 2, None, {}, None),
    ({"moe_latent_size": 1000}, (), 2, "MI_nvfp4_input", {"size": 1000}, "model.layers.1.mixer.fc2_latent_proj"),
    ({"moe_latent_size": 1000}, (), 8, "MI_nvfp4_input", {"size": 1000}, "model.layers.1.mixer.fc2_latent_proj"),
    # ... after layer 1's shared experts, whose down_proj (1000 / 2 = 500) refuses first
    ({"moe_latent_size": 1000, "moe_shared_expert_intermediate_size": 1000}, (), 2, "MI_nvfp4_input", {"size": 500},
     "model.layers.1.mixer.shared_experts.down_proj"),
]


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
@pytest.mark.parametrize("changes,drop,tp,check,values,layer", NVFP4_CASES)
def test_nvfp4_layers_past_the_mixer(version, changes, drop, tp, check, values, layer):
    assert _nvfp4(version, tp, drop, **changes) == (check, values, layer, None)


def test_nvfp4_fused_qkv_named_in_part_is_refused():
    # only k_proj of layer 5 excluded: is_layer_excluded refuses the fused qkv_proj
    check, values, layer, _ = _nvfp4("0.33.0", 2, ("layers.5.mixer.q_proj", "layers.5.mixer.v_proj"))
    assert (check, values, layer) == ("MI_fused_shards", {"prefix": "model.layers.5.mixer.qkv_proj"},
                                      "model.layers.5.mixer.qkv_proj")


@pytest.mark.parametrize("launch,reason", [
    (("-tp", "2", "-dp", "2"), "data, prefill-context or expert parallelism"),
    (("-tp", "2", "--enable-expert-parallel"), "data, prefill-context or expert parallelism"),
    (("-tp", "2", "--dtype", "float16"), "--dtype float16"),
    (("-tp", "2", "--moe-backend", "marlin"), "--moe-backend"),
])
def test_nvfp4_launches_left_open(serve_json, launch, reason):
    status, report = serve_json("0.33.0", *launch, model=NVFP4)
    assert reason in _skipped_mi(report), report.get("skipped")


def test_nvfp4_moe_environment_left_open(serve_json):
    status, report = serve_json("0.33.0", "-tp", "2", model=NVFP4, env=("VLLM_B12X_MOE_FP4_FORCE_A16=1",))
    assert "VLLM_B12X_MOE_FP4_FORCE_A16 changes the ModelOpt MoE backend selection" in _skipped_mi(report)
    # a variable 0.33.0 no longer defines (vllm/envs.py lists it up to 0.23.0) leaves nothing open
    status, report = serve_json("0.33.0", "-tp", "2", model=NVFP4, env=("VLLM_USE_FLASHINFER_MOE_FP4=1",))
    assert "VLLM_USE_FLASHINFER_MOE_FP4" not in _skipped_mi(report)


#: ModelOpt FP8 (per-tensor): ModelOptFp8LinearMethod checks no size, the relu2 experts take Triton; what refuses is
#: the model's own asserts and divisions (hand-worked from nemotron_h.py; built alike by the oracles of 0.24.0 - 0.33.0
#: in tests/upstream/test_nemotron_h.py --fp8)
FP8_CASES = [
    # sizes the NVFP4 method refuses (2680 features into layer 0's in_proj, 500 into the shared experts' down_proj)
    ({"hidden_size": 2680}, 1, None, {}, None),
    ({"moe_shared_expert_intermediate_size": 1000}, 2, None, {}, None),
    # 30 attention heads over 4 ranks: layer 5 (the first attention layer) asserts
    ({"num_attention_heads": 30}, 4, "MI_attn_assert", {}, "model.layers.5.mixer"),
    ({"moe_latent_size": 1000}, 8, None, {}, None),
]


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
@pytest.mark.parametrize("changes,tp,check,values,layer", FP8_CASES)
def test_fp8_past_the_mixer(version, changes, tp, check, values, layer):
    assert _nvfp4(version, tp, (), "FP8", **changes) == (check, values, layer, None)


def test_fp8_per_channel_left_open():
    check, _values, _layer, unmodelled = _nvfp4("0.33.0", 2, (), "FP8_PER_CHANNEL_PER_TOKEN")
    assert check is None and "quant_algo 'FP8_PER_CHANNEL_PER_TOKEN'" in unmodelled


def test_a_latent_width_that_is_no_size_is_left_open():
    check, _values, _layer, unmodelled = _nvfp4("0.33.0", 2, moe_latent_size=0)
    assert check is None and "moe_latent_size=0" in unmodelled


@pytest.mark.parametrize("version", ["0.16.0", "0.23.0"])
def test_remote_code_releases_stay_as_they_were(serve_json, version):
    status, report = serve_json(version, "-tp", "16", "--nnodes", "2", "--trust-remote-code", model=NVFP4)
    assert report.get("check") != "MI_mamba2_groups"


def test_a_per_layer_moe_layer_freq_list_is_built_not_skipped(serve_json):
    # MiMo-V2-Flash's moe_layer_freq is a per-layer list (the mimo_v2_flash family reads it); block FP8 at -tp 8
    # (256 experts of 2048 / 8 = 256 rows per rank, two blocks) builds
    status, report = serve_json("0.33.0", "-tp", "8", model="XiaomiMiMo/MiMo-V2-Flash")
    assert _skipped_mi(report) == "" and report["ok"] is True


@pytest.mark.parametrize("pattern,tp,pp,open_", [
    ("*EMEM", 16, 1, True),    # layer 1's mixer: 8 groups over 16 ranks, the same assert as layer 0's
    ("*EMEM", 8, 1, False),    # every mixer's asserts hold: unquantized, nothing left to refuse
    ("*E*E", 16, 1, False),    # no Mamba layer, no mixer assert
    ("MEMEM", 16, 2, True),    # two stages: each stage's mixers assert alike
    ("MEMEM", 8, 2, False),
])
def test_an_unquantized_launch_the_first_mixer_leaves_open_is_not_accepted_when_a_mixer_refuses(pattern, tp, pp,
                                                                                                open_):
    check, _values, _layer, unmodelled = _outcome("0.33.0", BF16, tp, pp=pp, hybrid_override_pattern=pattern,
                                                  num_hidden_layers=len(pattern))
    assert check is None
    assert (unmodelled is not None) is open_, unmodelled
    if open_:
        assert unmodelled.startswith("the model construction of NemotronHForCausalLM")


# ModelOpt MIXED_PRECISION (kvguard.quant.modelopt_mixed): Nemotron-3-Super's NVFP4 export, config.json's flat
# quantization_config with its per-layer quantized_layers table in the export's backbone.* names.  Read in the
# releases: ModelOptMixedPrecisionConfig.get_quant_method looks each layer up after the model's mapper renamed
# backbone.* to model.*; FP8 layers take ModelOptFp8LinearMethod (no size check), NVFP4 the NVFP4 method, W4A16_NVFP4
# ModelOptNvFp4W4A16LinearMethod ("Unsupported model: input feature size is not a multiple of 16." up to 0.29.0; from
# 0.30.0 the shared NVFP4 weight scheme's message), an unlisted layer is unquantized.  The real table lists layer 3's
# fc2_latent_proj as FP8 and no other fc2_latent_proj.
SUPER_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
W4A16_MESSAGE = "Unsupported model: input feature size is not a multiple of 16."
NVFP4_MESSAGE = "Unsupported model when in features size is not multiple of 16"


def _mixed(version: str, tp: int, layers: "dict | None" = None, ignore: "list | None" = None, **changes):
    from kvguard.quant import Launch, outcome
    from kvguard.rules.check import model_facts
    from kvguard.versions import resolve

    cfg = copy.deepcopy(dict(catalog.lookup(SUPER_NVFP4).config))
    quant = cfg["quantization_config"]
    quant["quantized_layers"].update(layers or {})
    if ignore is not None:
        quant["ignore"] = ignore
    cfg.update(changes)
    facts = model_facts(cfg, vllm_version=version)
    res = outcome(facts, resolve(version), Launch(tp=tp, refined_fp8_moe_kernel=True))
    return res.check, dict(res.values), res.layer, res.unmodelled


@pytest.mark.parametrize("version", ["0.24.0", "0.29.0", "0.30.0", "0.33.0"])
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_super_mixed_export_is_built(version, tp):
    assert _mixed(version, tp) == (None, {}, None, None)


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_super_mixed_fp8_latent_projection_takes_any_width(version):
    # layer 3's fc2_latent_proj (1000 features, replicated) is FP8, the other layers' unlisted: no size check
    assert _mixed(version, 8, moe_latent_size=1000) == (None, {}, None, None)


_FC2 = "backbone.layers.3.mixer.fc2_latent_proj"


@pytest.mark.parametrize("version,algo,check", [
    ("0.24.0", "W4A16_NVFP4", "MI_nvfp4a16_input"),
    ("0.29.0", "W4A16_NVFP4", "MI_nvfp4a16_input"),
    ("0.30.0", "W4A16_NVFP4", "MI_nvfp4_input"),
    ("0.33.0", "W4A16_NVFP4", "MI_nvfp4_input"),
    ("0.24.0", "NVFP4", "MI_nvfp4_input"),
    ("0.33.0", "nvfp4", "MI_nvfp4_input"),
])
def test_super_mixed_nvfp4_latent_projection_refuses_its_width(version, algo, check):
    assert _mixed(version, 8, {_FC2: {"quant_algo": algo, "group_size": 16}}, moe_latent_size=1000) == (
        check, {"size": 1000}, "model.layers.3.mixer.fc2_latent_proj", None)


def test_super_mixed_w4a16_messages():
    from kvguard.rules.table import RULES

    templates = {c.id: c.template for c in RULES if getattr(c, "id", None) in ("MI_nvfp4a16_input", "MI_nvfp4_input")}
    assert templates == {"MI_nvfp4a16_input": W4A16_MESSAGE, "MI_nvfp4_input": NVFP4_MESSAGE}


def test_super_mixed_excluded_layer_is_unquantized():
    assert _mixed("0.33.0", 8, {_FC2: {"quant_algo": "NVFP4", "group_size": 16}}, ignore=[_FC2],
                  moe_latent_size=1000) == (None, {}, None, None)


def test_super_mixed_fused_qkv_of_two_algorithms_is_left_open():
    layers = {"backbone.layers.7.mixer.q_proj": {"quant_algo": "FP8"},
              "backbone.layers.7.mixer.k_proj": {"quant_algo": "NVFP4", "group_size": 16}}
    check, _values, _layer, unmodelled = _mixed("0.33.0", 8, layers)
    assert check is None and "model.layers.7.mixer.qkv_proj" in unmodelled


def test_super_mixed_experts_of_an_undecided_algorithm_are_left_open():
    layers = {"backbone.layers.1.mixer.experts.0.up_proj": {"quant_algo": "FP8_PB_WO", "group_size": 128}}
    check, _values, _layer, unmodelled = _mixed("0.33.0", 8, layers)
    assert check is None and "FP8_PB_WO" in unmodelled
