"""HyperCLOVAX configs as vLLM builds them (``vllm/transformers_utils/configs/hyperclovax.py``, 0.22.1 - 0.31.0;
transformers' own class on 0.32.0+).

vLLM's ``HyperCLOVAXConfig.__init__`` keeps a given ``attention_multiplier`` and otherwise takes ``head_dim ** -0.5``
(step ``pow_if_none_from``), and, when no ``rope_parameters`` are given, builds them from a copy of ``rope_scaling``
(a legacy ``type`` moved to ``rope_type`` unless that is set) or the default rope type, ``rope_theta`` added when
absent (step ``rope_parameters_from_scaling_if_none``).  transformers 4.57.6 (0.22.1, 0.23.0) then logs the config's
repr, whose JSON refuses the complex multiplier of a negative head size.

``data/hyperclovax_cases.json``: hand-written configs, each naming the attributes compared beside the summary
(``attrs``); ``data/hyperclovax_cases_oracle_<release>.json.gz``: the real ``get_config`` + ``get_hf_text_config``
answers (``tools/hfconfig_oracle.py --unit --unit-cases tests/hfconfig/data/hyperclovax_cases.json --record
tests/hfconfig/data``), one release per transformers line.
"""

from __future__ import annotations

import pytest

from ._util import assert_agrees, case_ids, recorded

#: 4.57.6 and 5.24.0 / 5.17.0 with vLLM's class; 5.19.0 / 5.20.2 with transformers'
RELEASES = ("0.22.1", "0.24.0", "0.31.0", "0.32.0", "0.33.0")
#: the releases that build vLLM's own class
VLLM_CLASS = ("0.22.1", "0.24.0", "0.31.0")
STEM = "hyperclovax_cases"


@pytest.mark.parametrize("rel", RELEASES)
@pytest.mark.parametrize("case_id", case_ids(STEM))
def test_configs_match_recorded_oracle(rel, case_id):
    assert_agrees(STEM, rel, case_id)


@pytest.mark.parametrize("rel", RELEASES)
def test_recordings_hold_the_derived_values(rel):
    """The recordings hold what the class derives (so a kvguard that left the values alone would fail)."""
    answers = {i: rec for i, (_, rec) in recorded(STEM, rel).items()}
    assert answers["hcx_min"]["attrs"]["attention_multiplier"] == {"v": 128 ** -0.5}
    assert answers["hcx_head_dim_zero"]["error"] == {
        "type": "ZeroDivisionError", "module": "builtins", "message": "0.0 cannot be raised to a negative power"}
    assert answers["hcx_head_dim_zero_multiplier_given"]["attrs"]["attention_multiplier"] == {"v": 0.01}
    if rel not in VLLM_CLASS:
        return   # transformers' strict class (0.32.0+) refuses such values as fields, before deriving anything
    assert answers["hcx_head_dim_negative"]["error"]["message"] == "Object of type complex is not JSON serializable"
    both = dict(answers["hcx_scaling_both_keys"]["attrs"]["rope_parameters"]["v"]["__dict__"])
    assert both["rope_type"] == ("linear" if rel == "0.22.1" else "yarn")
    assert answers["hcx_scaling_string"]["error"]["message"] == \
        "dictionary update sequence element #0 has length 1; 2 is required"


@pytest.mark.parametrize("rel", ("0.22.1", "0.31.0"))
def test_vllm_class_derivations_through_the_api(rel):
    """kvguard's own reading of a config without the multiplier and with a legacy RoPE dict."""
    import kvguard

    cfg = {"architectures": ["HyperCLOVAXForCausalLM"], "model_type": "hyperclovax", "hidden_size": 2048,
           "num_attention_heads": 16, "rope_theta": 5.0, "rope_scaling": {"type": "dynamic", "factor": 2.0}}
    facts = kvguard.model_facts(cfg, vllm_version=rel)   # declined (Undecidable) before the two steps were named
    assert facts.head_size == 128
    assert facts.emulation == "exact"
    rope = facts.resolved["rope_parameters"]
    assert (rope["rope_type"], rope["factor"], rope["rope_theta"]) == ("dynamic", 2.0, 5.0)
