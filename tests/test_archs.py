"""kvguard/archs.py reads the registry's architectures one line at a time: the same entries as a whole decode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvguard
from kvguard import archs
from kvguard.versions import resolve

DATA = Path(kvguard.__file__).parent / "data"


@pytest.fixture
def whole():
    return json.loads((DATA / "archs.json").read_text(encoding="utf-8"))


@pytest.fixture
def fresh(monkeypatch):
    """archs with its caches emptied before and after, reading the text the test gives."""
    def use(text: str) -> None:
        monkeypatch.setattr(archs, "_read", lambda name: text if name == "archs.json" else
                            (DATA / name).read_text(encoding="utf-8"))
        archs._registry.cache_clear()
        archs._entry.cache_clear()
    yield use
    archs._registry.cache_clear()
    archs._entry.cache_clear()


def test_the_file_keeps_one_architecture_per_line(whole):
    text = (DATA / "archs.json").read_text(encoding="utf-8")
    assert archs._ARCHS_OPEN in text and archs._ARCHS_CLOSE in text
    for name, entry in whole["archs"].items():
        assert f'\n  "{name}": {json.dumps(entry, separators=(",", ":"))}' in text


@pytest.mark.parametrize("layout", ["as generated", "decoded whole"])
def test_every_entry_reads_as_the_whole_file_decodes_it(whole, fresh, layout):
    text = (DATA / "archs.json").read_text(encoding="utf-8")
    fresh(text if layout == "as generated" else json.dumps(whole, indent=4))
    assert len(whole["archs"]) > 400
    for name, entry in whole["archs"].items():
        assert archs._entry(name) == entry, name
    data = archs._data()
    for key in whole:
        if key != "archs":
            assert data[key] == whole[key], key
    assert archs.registry_loaded()


@pytest.mark.parametrize("name", ["NoSuchForCausalLM", "LlamaForCausal", "lamaForCausalLM", "",
                                  'LlamaForCausalLM": {"registered', "LlamaForCausalLM\n", "Llama ForCausalLM"])
def test_a_name_the_registry_never_held_is_not_found(name):
    assert archs._entry(name) is None


def test_flags_read_from_single_entries():
    release = resolve("0.28.0")
    assert archs.arch_flag(["LlamaForCausalLM"], "supports_pp", release) is True
    assert archs.arch_flag(["MambaForCausalLM"], "is_attention_free", release) is True
    assert archs.arch_flag(["LlamaForCausalLM"], "is_attention_free", release) is False
    assert archs.arch_flag(["NoSuchForCausalLM"], "supports_pp", release) is None
    # a suffix the release's table normalizes (Qwen2_5_VLModel -> Qwen2_5_VLForConditionalGeneration)
    assert archs.registered_arch(["Qwen2_5_VLModel"], release) == "Qwen2_5_VLForConditionalGeneration"


def test_no_registry_file_means_no_registry(monkeypatch):
    def missing(name):
        raise FileNotFoundError(name)
    monkeypatch.setattr(archs, "_read", missing)
    archs._registry.cache_clear()
    archs._entry.cache_clear()
    try:
        assert not archs.registry_loaded()
        assert archs._entry("LlamaForCausalLM") is None
    finally:
        archs._registry.cache_clear()
        archs._entry.cache_clear()


# the registry's order (kvguard/data/registry_order.json): what vLLM lists when it refuses an architecture


def _names(text: str) -> list[str]:
    return json.loads(text.replace("'", '"'))


@pytest.mark.parametrize("version", ["0.10.2", "0.11.2", "0.17.0", "0.25.1", "0.28.0", "0.33.0"])
def test_every_release_lists_exactly_the_architectures_it_registers(version):
    release = resolve(version)
    order = archs.supported_archs(release)
    assert order is not None and len(order) == len(set(order))
    registered = {name for name in json.loads((DATA / "archs.json").read_text())["archs"]
                  if archs._registered(name, release)}
    assert set(order) == registered


def test_the_order_is_the_registry_s_own_not_sorted():
    # measured on the releases' own ModelRegistry.get_supported_archs() (CPU oracles)
    assert len(archs.supported_archs(resolve("0.10.2"))) == 210
    assert len(archs.supported_archs(resolve("0.33.0"))) == 415
    assert archs.supported_archs(resolve("0.33.0"))[:4] == ["AfmoeForCausalLM", "AliceAIForCausalLM",
                                                            "ApertusForCausalLM", "AXK1ForCausalLM"]


def test_an_architecture_no_release_holds_is_refused_by_name():
    release = resolve("0.28.0")
    message = archs.registry_refusal(["AcmeForCausalLM", "FooModel"], release, auto_map=False)
    head = "Model architectures ['AcmeForCausalLM', 'FooModel'] are not supported for now. Supported architectures: "
    assert message.startswith(head + "dict_keys([")
    assert message.endswith("])")
    assert _names(message[len(head) + len("dict_keys("):-1]) == archs.supported_archs(release)


@pytest.mark.parametrize("names, auto_map", [
    (["LlamaForCausalLM"], False),             # registered
    (["AcmeForCausalLM", "LlamaForCausalLM"], False),  # one registered among them
    (["AcmeForCausalLM"], True),               # custom code: vLLM tries its Transformers backend
    (["LlamaModel"], False),                   # a registered name by its suffix
    ([], False),
])
def test_no_refusal_where_vllm_finds_a_model_or_tries_transformers(names, auto_map):
    assert archs.registry_refusal(names, resolve("0.28.0"), auto_map=auto_map) is None


def test_a_retired_architecture_is_refused_as_retired_before_the_list():
    message = archs.registry_refusal(["AcmeForCausalLM", "MPTForCausalLM"], resolve("0.29.0"), auto_map=False)
    assert message.startswith("Model architecture MPTForCausalLM was supported in vLLM until v")


def test_without_the_order_file_the_registry_does_not_refuse(monkeypatch):
    monkeypatch.setattr(archs, "_orders", lambda: {})
    assert archs.supported_archs(resolve("0.28.0")) is None
    assert archs.registry_refusal(["AcmeForCausalLM"], resolve("0.28.0"), auto_map=False) is None


@pytest.mark.parametrize("name, version, expected", [
    ("LlamaForCausalLM", "0.28.0", True),
    ("Qwen3VLMoeForConditionalGeneration", "0.10.2", True),   # transformers 4.57.6 has Qwen3-VL
    ("PersimmonForCausalLM", "0.28.0", True),
    ("AcmeForCausalLM", "0.28.0", False),
    ("Step3p7FlashForCausalLM", "0.33.0", False),
    ("logging", "0.28.0", None),                                # not class-like: not in the table
])
def test_which_names_transformers_answers(name, version, expected):
    assert archs.transformers_has(name, resolve(version)) is expected


def test_a_transformers_class_is_left_to_the_transformers_backend():
    # Qwen3-VL is a transformers 4.57.6 class that 0.10.2 does not register: vLLM serves it through its
    # Transformers backend (the catalog differential, 0.10.2), which kvguard does not model
    assert archs.registry_refusal(["Qwen3VLMoeForConditionalGeneration"], resolve("0.10.2"), auto_map=False) is None
    assert archs.registry_refusal(["Qwen3VLMoeForConditionalGeneration", "AcmeForCausalLM"], resolve("0.10.2"),
                                  auto_map=False) is None
