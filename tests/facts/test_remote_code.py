"""Remote-code configs (``auto_map.AutoConfig``) with ``--trust-remote-code``: kvguard never runs the
repository's class; it reads config.json as a plain configuration of its declared base and says so
(issue 11 item 4), or declines where it cannot."""

from __future__ import annotations

import pytest

from kvguard.errors import Undecidable
from kvguard.facts.loader import load_config
from kvguard.versions import resolve

REMOTE = {"auto_map": {"AutoConfig": "configuration_x.XConfig"}, "architectures": ["LlamaForCausalLM"],
          "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 2,
          "vocab_size": 1000}


@pytest.mark.parametrize("release", ["0.20.0", "0.33.0"])
def test_a_known_base_is_read_as_that_class_and_said_so(release):
    config = load_config(dict(REMOTE, model_type="llama"), resolve(release), trust_remote_code=True)
    assert config.num_key_value_heads == 8
    assert config.kvg_assumptions == ("config.json names remote code (configuration_x.XConfig); kvguard does not "
                                      "run it and read the config as a plain LlamaConfig of model type 'llama'",)


def test_an_unknown_type_on_transformers_4_is_a_plain_pretrained_config():
    config = load_config(dict(REMOTE, model_type="custom_xyz"), resolve("0.20.0"), trust_remote_code=True)
    assert config.num_hidden_layers == 2
    assert "plain PretrainedConfig of model type 'custom_xyz'" in config.kvg_assumptions[0]


def test_an_unknown_type_on_transformers_5_is_undecidable_not_an_internal_error():
    with pytest.raises(Undecidable, match=r"which transformers 5\.[0-9.]+ does not know"):
        load_config(dict(REMOTE, model_type="custom_xyz"), resolve("0.33.0"), trust_remote_code=True)


@pytest.mark.parametrize("release", ["0.10.2", "0.20.0"])
def test_a_text_config_the_remote_class_would_build_is_undecidable_not_refused(release):
    # Intern-S1's form: the repository's InternS1Config builds text_config (a qwen3_moe dictionary) into a config;
    # read as a plain PretrainedConfig it stays a dictionary without num_attention_heads, which vLLM would refuse
    # (AssertionError up to 0.12.x, ValueError from 0.13.0) -- a refusal the real class never meets
    raw = {"auto_map": {"AutoConfig": "configuration_interns1.InternS1Config"}, "model_type": "interns1",
           "architectures": ["InternS1ForConditionalGeneration"],
           "text_config": {"model_type": "qwen3_moe", "hidden_size": 4096, "num_attention_heads": 64,
                           "num_key_value_heads": 4, "num_hidden_layers": 94}}
    from kvguard.facts.loader import hf_text_config

    config = load_config(raw, resolve(release), trust_remote_code=True)
    with pytest.raises(Undecidable, match=r"its text_config stays a dictionary there, which the repository's class "
                                          r"may build into a configuration"):
        hf_text_config(config)
