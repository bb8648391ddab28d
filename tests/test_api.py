"""The public API: facts of the seed models, inputs, errors."""

from __future__ import annotations

import json

import pytest

import kvguard
from kvguard import catalog


def cfg(name):
    return catalog.lookup(name).config


# duplication factors and legal dcp sizes the seeds and vLLM's docs state
@pytest.mark.parametrize("model, tp, total_kv, cache_h, dup, legal", [
    ("deepseek-ai/DeepSeek-R1", 8, 128, 1, 8, [1, 2, 4, 8]),
    ("moonshotai/Kimi-K2-Instruct", 16, 64, 1, 16, [1, 2, 4, 8, 16]),
    ("Qwen/Qwen3-235B-A22B", 8, 4, 4, 2, [1, 2]),
    ("Qwen/Qwen3-32B", 8, 8, 8, 1, [1]),
    ("Qwen/Qwen3-32B", 16, 8, 8, 2, [1, 2]),
])
@pytest.mark.parametrize("release", ["0.20.0", "0.28.0"])
def test_seed_duplication_facts(model, tp, total_kv, cache_h, dup, legal, release):
    facts = kvguard.model_facts(cfg(model), vllm_version=release)
    assert facts.total_num_kv_heads == total_kv
    assert facts.cache_kv_heads == cache_h
    assert facts.duplication_factor(tp) == dup
    assert kvguard.legal_dcp_sizes(cfg(model), tp, vllm_version=release) == legal


def test_mla_sizes_follow_kv_lora_rank():
    facts = kvguard.model_facts(cfg("deepseek-ai/DeepSeek-R1"), vllm_version="0.28.0")
    assert facts.use_mla and facts.head_size == 512 + 64
    # 61 layers x 576 x 2 bytes on every rank, not divided by tp (modelfacts §11)
    assert facts.kv_bytes_per_token(8) == 61 * 576 * 2
    off = kvguard.model_facts(cfg("deepseek-ai/DeepSeek-R1"), vllm_version="0.28.0", env={"VLLM_MLA_DISABLE": "1"})
    assert not off.use_mla and off.head_size == 192
    assert off.kv_bytes_per_token(8) == 61 * 2 * 16 * 192 * 2


def test_model_facts_raises_when_vllm_refuses_the_config():
    with pytest.raises(kvguard.ModelConfigRefused) as info:
        kvguard.model_facts(cfg("deepseek-ai/DeepSeek-R1"), vllm_version="0.28.0", env={"VLLM_MLA_DISABLE": "true"})
    assert info.value.verdict.message == "invalid literal for int() with base 10: 'true'"
    assert info.value.verdict.stage == "model_config"


def test_config_from_file_and_directory(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(cfg("Qwen/Qwen3-32B")))
    a = kvguard.check(tmp_path, vllm_version="0.28.0", tp=16, dcp=2)
    b = kvguard.check(tmp_path / "config.json", vllm_version="0.28.0", tp=16, dcp=2)
    assert a.ok and b.ok


def test_a_model_name_resolves_as_audit_and_the_command_line_resolve_it(tmp_path, monkeypatch, capsys):
    """`kvguard.check("Qwen/Qwen3-32B", …)` finds the config `kvguard audit` and `kvguard check --
    vllm serve Qwen/Qwen3-32B` find (here the built-in catalog): the same facts everywhere."""
    from kvguard.cli import run

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))   # the catalog, whatever is cached
    name, version = "Qwen/Qwen3-32B", "0.28.0"
    verdict = kvguard.check(name, vllm_version=version, tp=8, dcp=2)
    facts = verdict.facts
    assert not verdict.ok and verdict.check == "MC_dcp_tp_gt_kv"
    assert facts == kvguard.model_facts(name, vllm_version=version)
    assert facts == kvguard.model_facts(cfg(name), vllm_version=version)
    assert kvguard.legal_dcp_sizes(name, 8, vllm_version=version) == [1]
    audited = kvguard.audit(name, 8, vllm_version=version).models[0]
    assert (audited.model, audited.total_num_kv_heads, audited.head_size, audited.num_layers) == (
        name, facts.total_num_kv_heads, facts.head_size, facts.num_hidden_layers)
    assert run(["audit", name, "--tp", "8", "--vllm-version", version, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"][0] == audited.to_dict()
    assert run(["check", "--vllm-version", version, "--format", "json", "--", "vllm", "serve", name, "-tp", "8",
                "-dcp", "2"]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert (shown["model"], shown["source"], shown["check"], shown["message"]) == (
        name, "catalog", verdict.check, verdict.message)
    assert {k: shown["facts"][k] for k in facts.to_dict()} == json.loads(json.dumps(facts.to_dict()))
    # a model id found nowhere is an unknown model, as on the command line; a missing path a bad input
    with pytest.raises(kvguard.Undecidable, match="cannot find a config.json for 'no-such-org/no-such-model'"):
        kvguard.check("no-such-org/no-such-model", vllm_version=version)
    with pytest.raises(kvguard.InputError, match="no such file"):
        kvguard.check(str(tmp_path / "missing" / "config.json"), vllm_version=version)


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "top level must be a JSON object"),
    ("", "invalid JSON"),
])
def test_broken_config_files_are_input_errors(tmp_path, content, fragment):
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(kvguard.InputError, match=fragment) as info:
        kvguard.check(path, vllm_version="0.28.0")
    assert str(path) in str(info.value)


def test_directory_without_config(tmp_path):
    with pytest.raises(kvguard.InputError, match="no config.json"):
        kvguard.check(tmp_path, vllm_version="0.28.0")


@pytest.mark.parametrize("fields, key", [
    ({"tp": "8"}, "tensor_parallel_size"),
    ({"tp": 8.0}, "tensor_parallel_size"),
    ({"tp": True}, "tensor_parallel_size"),
    ({"tensor_parallel_sizes": 8}, "tensor_parallel_sizes"),
    ({"tp": 8, "tensor_parallel_size": 4}, "tensor_parallel_size"),
])
def test_bad_layouts_are_input_errors(fields, key):
    with pytest.raises(kvguard.InputError) as info:
        kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", **fields)
    assert info.value.key == key


def test_an_architecture_the_registry_does_not_hold_is_refused_by_name():
    config = dict(cfg("Qwen/Qwen3-32B"), architectures=["NoSuchForCausalLM"])
    verdict = kvguard.check(config, vllm_version="0.28.0")
    assert not verdict.ok and verdict.exc_type == "ValueError" and verdict.stage == "model_config"
    assert verdict.message.startswith("Model architectures ['NoSuchForCausalLM'] are not supported for now. "
                                      "Supported architectures: dict_keys(['AfmoeForCausalLM', ")


def test_an_architecture_left_to_the_transformers_backend_is_undecidable():
    # transformers 5.24.0 (0.28.0's) has a PersimmonForCausalLM class, vLLM's registry no such name: vLLM tries
    # its Transformers backend, which kvguard does not model
    config = dict(cfg("Qwen/Qwen3-32B"), architectures=["PersimmonForCausalLM"])
    with pytest.raises(kvguard.Undecidable, match="PersimmonForCausalLM"):
        kvguard.check(config, vllm_version="0.28.0")


def test_facts_of_another_release_are_rejected():
    facts = kvguard.model_facts(cfg("Qwen/Qwen3-32B"), vllm_version="0.20.0")
    with pytest.raises(kvguard.InputError):
        kvguard.check(facts, vllm_version="0.28.0")


def test_every_error_is_a_value_error():
    for exc in (kvguard.InputError, kvguard.UnsupportedVersion, kvguard.Undecidable, kvguard.ModelConfigRefused):
        assert issubclass(exc, ValueError)


def test_validate_raises_pydantic_validation_error_like_vllm():
    import pydantic

    with pytest.raises(pydantic.ValidationError) as info:
        kvguard.validate(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", tp=8, dcp=3)
    assert info.value.title == "ParallelConfig"
    assert info.value.errors()[0]["msg"] == "Value error, tp_size=8 must be divisible by dcp_size=3."
    with pytest.raises(ZeroDivisionError, match="integer modulo by zero"):
        kvguard.validate(cfg("Qwen/Qwen3-32B"), vllm_version="0.20.0", tp=8, dcp=0)


def test_host_decides_the_gpu_count_check():
    host = kvguard.Host.cuda_node(gpus_per_node=8)
    v = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", host=host, tp=16)
    assert v.check == "PC_gpu_count"
    assert v.message.startswith("World size (16) is larger than the number of available GPUs (8) in this node.")
    unknown = kvguard.check(cfg("Qwen/Qwen3-32B"), vllm_version="0.28.0", tp=16)
    assert unknown.ok and [s.check for s in unknown.skipped] == ["PC_gpu_count"]


MPT = {"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
       "max_seq_len": 2048, "vocab_size": 50432, "attn_config": {"attn_type": "multihead_attention"}}
RETIRED = ("Model architecture MPTForCausalLM was supported in vLLM until v0.28.0, and is not supported anymore. "
           "Please use an older version of vLLM if you want to use this model architecture.")


def test_retired_architecture_is_refused_like_the_registry():
    assert kvguard.check(MPT, vllm_version="0.28.0", tp=2).ok
    v = kvguard.check(MPT, vllm_version="0.29.0", tp=2)
    assert (v.exc_type, v.wrapped_by, v.message) == ("ValueError", "ModelConfig", RETIRED)


@pytest.mark.parametrize("change", [
    {"auto_map": {"AutoModelForCausalLM": "modeling_mpt.MPTForCausalLM"}},  # remote code first
    {"architectures": ["MptForCausalLM"]},  # a transformers class: the Transformers backend may take it
])
def test_retired_architecture_the_transformers_backend_may_take_is_undecidable(change):
    with pytest.raises(kvguard.Undecidable):
        kvguard.check(dict(MPT, **change), vllm_version="0.29.0", tp=2)


def test_the_python_api_knows_each_flag_from_the_release_that_added_it():
    """kvguard.check's keyword fields exist in the same releases as the command-line flags they mirror (a field
    refused as 'does not exist' on a release whose parser has the flag is a kvguard bug).  The exception:
    num_redundant_experts lives on in --eplb-config after its own flag is gone."""
    from kvguard.launch.argv import FLAGS
    from kvguard.rules.check import _FIELD_SINCE, _FIELD_UNTIL

    since = {flag.field: flag.since for flag in FLAGS if flag.since != "0.10.2"}
    until = {flag.field: flag.until for flag in FLAGS if flag.until and flag.field != "num_redundant_experts"}
    assert (_FIELD_SINCE, _FIELD_UNTIL) == (since, until)


def test_return_routed_experts_exists_from_0_14_0():
    config = "Qwen/Qwen3-8B"
    assert kvguard.check(config, vllm_version="0.14.0", enable_return_routed_experts=True).ok
    with pytest.raises(kvguard.InputError, match=r"does not exist in vLLM 0.13.0 \(added in 0.14.0\)"):
        kvguard.check(config, vllm_version="0.13.0", enable_return_routed_experts=True)
