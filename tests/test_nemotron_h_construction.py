"""Nemotron-H's first Mamba-2 mixer at model construction (kvguard.quant.nemotron_h), through the CLI's JSON report and
kvguard.quant.outcome; and MiMo-V2-Flash's skipped reason.

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


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_nano_nvfp4_at_tp8_stays_open_past_the_mixer(serve_json, version):
    status, report = serve_json(version, "-tp", "8", model=NVFP4)
    assert report["ok"] is True
    assert "weight-shard checks of NemotronHForCausalLM are not modelled" in _skipped_mi(report)


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


def test_nvfp4_past_the_mixer_stays_open():
    check, _values, _layer, unmodelled = _outcome("0.24.0", NVFP4, 2, n_groups=1)
    assert check is None and "NemotronHForCausalLM" in unmodelled


@pytest.mark.parametrize("version", ["0.16.0", "0.23.0"])
def test_remote_code_releases_stay_as_they_were(serve_json, version):
    status, report = serve_json(version, "-tp", "16", "--nnodes", "2", "--trust-remote-code", model=NVFP4)
    assert report.get("check") != "MI_mamba2_groups"


def test_mimo_v2_skip_names_the_architecture(serve_json):
    status, report = serve_json("0.33.0", "-tp", "8", model="XiaomiMiMo/MiMo-V2-Flash")
    reason = _skipped_mi(report)
    assert "MiMoV2FlashForCausalLM" in reason and "moe_layer_freq" not in reason


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
