"""The optional real backend: transformers builds a class the tables cannot follow, only when it is the release's
own transformers version, and the verdict says so; nothing changes without it."""

from __future__ import annotations

import sys
import types

import pytest

import kvguard
from kvguard.facts import backend

# a Qwen3 config whose class the tables cannot follow: a field the tables know nothing about is harmless, so
# force the failure by patching the class lookup of one load (below)
QWEN3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, "num_attention_heads": 64,
         "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 64, "vocab_size": 151936,
         "intermediate_size": 25600, "max_position_embeddings": 40960}


class _FakeConfig:
    """Stands for a transformers class: attributes from the dict."""

    model_type = "qwen3"

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    @classmethod
    def from_dict(cls, config_dict, **kwargs):
        return cls(**{**config_dict, **kwargs})

    def get_text_config(self):
        return self

    def update(self, values):
        self.__dict__.update(values)


def _install_fake(monkeypatch, version):
    module = types.ModuleType("transformers.models.auto.configuration_auto")
    module.CONFIG_MAPPING = {"qwen3": _FakeConfig}
    for name in ("transformers", "transformers.models", "transformers.models.auto"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "transformers.models.auto.configuration_auto", module)
    monkeypatch.setattr(backend, "installed_line", lambda: version)


def _unfollowable(monkeypatch):
    from kvguard.facts import loader

    real = loader._from_dict_tables

    def refuse(lib, cls, config_dict, kwargs):
        if cls.name == "Qwen3Config":
            raise kvguard.Undecidable("Qwen3Config does something kvguard does not model (test)")
        return real(lib, cls, config_dict, kwargs)

    monkeypatch.setattr(loader, "_from_dict_tables", refuse)


def test_without_the_extra_the_class_stays_undecidable(monkeypatch):
    _unfollowable(monkeypatch)
    monkeypatch.setattr(backend, "installed_line", lambda: None)
    with pytest.raises(kvguard.Undecidable, match="does something kvguard does not model"):
        kvguard.model_facts(QWEN3, vllm_version="0.20.0")


def test_another_transformers_version_is_not_used(monkeypatch):
    _unfollowable(monkeypatch)
    _install_fake(monkeypatch, "4.56.0")
    with pytest.raises(kvguard.Undecidable):
        kvguard.model_facts(QWEN3, vllm_version="0.20.0")


def test_the_releases_own_version_builds_the_class_and_says_so(monkeypatch):
    _unfollowable(monkeypatch)
    _install_fake(monkeypatch, "4.57.6")
    facts = kvguard.model_facts(QWEN3, vllm_version="0.20.0")
    assert (facts.total_num_kv_heads, facts.head_size, facts.num_hidden_layers) == (8, 128, 64)
    assert any("installed transformers 4.57.6" in a for a in facts.assumptions)


def test_importing_kvguard_does_not_import_transformers():
    import subprocess
    out = subprocess.run([sys.executable, "-c", "import kvguard, sys; print('transformers' in sys.modules)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
