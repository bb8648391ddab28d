"""The command line's facts cache (kvguard.factcache): same answers, fewer derivations, never an error."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvguard
from kvguard import catalog, factcache
from kvguard.facts import Crash, ModelFacts
from kvguard.verdict import ErrorEntry

MODEL = "deepseek-ai/DeepSeek-R1"


def _typed(value):
    """Value and type, recursively (1 == 1.0 == True must not count as equal)."""
    if dataclasses.is_dataclass(value):
        return type(value), tuple((f.name, _typed(getattr(value, f.name))) for f in dataclasses.fields(value))
    if isinstance(value, (list, tuple)):
        return type(value), tuple(_typed(v) for v in value)
    if isinstance(value, dict):
        return type(value), tuple(sorted((k, _typed(v)) for k, v in value.items()))
    return type(value), value


@pytest.fixture
def cache(tmp_path):
    factcache.enable(str(tmp_path))
    yield tmp_path
    factcache.enable(None)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.28.0", "0.33.0"])
def test_facts_survive_the_cache_exactly(version):
    done = 0
    for entry in catalog.entries():
        try:
            facts = kvguard.model_facts(entry.config, vllm_version=version)
        except (kvguard.Undecidable, kvguard.ModelConfigRefused):
            continue  # no facts for this pair (e.g. an architecture the release does not know)
        encoded = json.loads(json.dumps(factcache.encode(facts)))
        assert _typed(factcache.decode(encoded)) == _typed(facts), entry.id
        done += 1
    assert done >= len(catalog.entries()) - 3


_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4),
                    st.floats(allow_nan=False, allow_infinity=False))
_VALUE = st.recursive(_SCALAR, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=3), inner, max_size=3)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_VALUE, min_size=5, max_size=5), names=st.lists(st.text(max_size=5), max_size=3))
def test_any_json_exact_value_round_trips(values, names):
    crash = Crash("ValidationError", "msg", "ModelConfig",
                  (ErrorEntry("int_type", ("x",), "Input should be a valid integer", values[4], None),))
    facts = ModelFacts("0.28.0", "llama", None, tuple(names), True, False, 8, 32, 128, 2, values[0],
                       hidden_size=values[1], kv_lora_rank=values[2], qk_rope_head_dim=values[3],
                       deferred={"num_experts": crash})
    for item in (facts, crash):
        assert _typed(factcache.decode(json.loads(json.dumps(factcache.encode(item))))) == _typed(item)


@pytest.mark.parametrize("odd", [float("nan"), float("inf"), {1: 2}, {"a": {1, 2}}, b"x", object()])
def test_values_json_cannot_hold_are_not_cached(odd):
    facts = ModelFacts("0.28.0", "llama", None, (), True, False, 8, 32, 128, 2, odd)
    with pytest.raises(factcache._NotCacheable):
        factcache.encode(facts)


def test_second_derivation_comes_from_the_cache(cache, monkeypatch):
    cfg = catalog.lookup(MODEL).config
    first = kvguard.model_facts(cfg, vllm_version="0.28.0")
    monkeypatch.setattr("kvguard.facts.derive", lambda *a, **k: pytest.fail("derived again"))
    monkeypatch.setattr("kvguard.rules.check.derive", lambda *a, **k: pytest.fail("derived again"))
    again = kvguard.model_facts(cfg, vllm_version="0.28.0")
    assert _typed(again) == _typed(first)
    assert len(list(cache.rglob("*.json"))) == 1


@pytest.mark.parametrize("change", ["release", "env", "config", "path", "trust"])
def test_the_key_covers_what_the_facts_depend_on(cache, change):
    cfg = dict(catalog.lookup("Qwen/Qwen3-32B").config)
    kvguard.model_facts(cfg, vllm_version="0.28.0")
    kwargs = {"vllm_version": "0.28.0"}
    if change == "release":
        kwargs["vllm_version"] = "0.20.0"
    elif change == "env":
        kwargs["env"] = {"VLLM_MLA_DISABLE": "1"}
    elif change == "config":
        cfg["num_key_value_heads"] = 4
    elif change == "path":
        kwargs["model_path"] = "/elsewhere"
    else:
        kwargs["trust_remote_code"] = True
    kvguard.model_facts(cfg, **kwargs)
    assert len(list(cache.rglob("*.json"))) == 2


def test_a_crash_is_cached_and_replayed(cache):
    cfg = dict(catalog.lookup("Qwen/Qwen3-32B").config, num_attention_heads="x")
    with pytest.raises(kvguard.ModelConfigRefused) as first:
        kvguard.model_facts(cfg, vllm_version="0.28.0")
    with pytest.raises(kvguard.ModelConfigRefused) as again:
        kvguard.model_facts(cfg, vllm_version="0.28.0")
    assert again.value.verdict.to_dict() == first.value.verdict.to_dict()
    assert len(list(cache.rglob("*.json"))) == 1


@pytest.mark.parametrize("content", [b"", b"{", b"[1]", b'{"facts": {"x": 1}}', b'{"crash": {"q": 1}}',
                                     b"\xff\xfe", b'{"facts": 1}', b" " * (2 << 20)])
def test_a_corrupt_entry_is_derived_again(cache, content):
    cfg = catalog.lookup(MODEL).config
    want = kvguard.model_facts(cfg, vllm_version="0.28.0")
    (entry,) = cache.rglob("*.json")
    entry.write_bytes(content)
    assert _typed(kvguard.model_facts(cfg, vllm_version="0.28.0")) == _typed(want)


def test_cache_dir_follows_the_environment(tmp_path):
    assert factcache.cache_dir({"KVGUARD_NO_CACHE": "1", "KVGUARD_CACHE_DIR": "/x"}) is None
    assert factcache.cache_dir({"KVGUARD_CACHE_DIR": "/x"}) == "/x"
    assert factcache.cache_dir({"XDG_CACHE_HOME": "/c"}) == os.path.join("/c", "kvguard")
    assert factcache.cache_dir({"KVGUARD_NO_CACHE": "0", "HOME": str(tmp_path)}) is not None


def test_the_library_api_does_not_write_a_cache_by_default(tmp_path):
    code = ("import kvguard; from kvguard import catalog\n"
            f"kvguard.model_facts(catalog.lookup({MODEL!r}).config, vllm_version='0.28.0')\n")
    env = dict(os.environ, KVGUARD_CACHE_DIR=str(tmp_path / "c"), XDG_CACHE_HOME=str(tmp_path / "x"),
               HOME=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert not any(tmp_path.rglob("*.json"))


def _cli(tmp_path, *extra):
    env = dict(os.environ, KVGUARD_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KVGUARD_NO_CACHE", None)
    cmd = [sys.executable, "-m", "kvguard", "check", *extra, "--vllm-version", "0.28.0", "--format", "json",
           "--", "vllm", "serve", MODEL, "-tp", "8", "-dcp", "8"]
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def test_the_command_line_answers_repeat_launches_from_the_cache(tmp_path):
    first = _cli(tmp_path)
    assert first.returncode == 0, first.stderr
    # one entry per derivation: the launch's, and the one with VLLM_MLA_DISABLE=1 that checks whether its
    # default decided the verdict (kvguard.envdefaults, an MLA model)
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 2
    again = _cli(tmp_path)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    assert sorted((tmp_path / "cache").rglob("*.json")) == entries


def test_no_cache_flag_leaves_no_entry(tmp_path):
    out = _cli(tmp_path, "--no-cache")
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "cache").exists()


def test_run_in_process_leaves_the_cache_off(tmp_path, monkeypatch):
    from kvguard.cli import run

    monkeypatch.setenv("KVGUARD_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("KVGUARD_NO_CACHE", raising=False)
    assert run(["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", MODEL, "-tp", "8"]) == 0
    assert factcache.enabled_dir() is None
    assert len(list((tmp_path / "c").rglob("*.json"))) == 2  # the launch's facts and VLLM_MLA_DISABLE=1's


@pytest.mark.parametrize("where", ["nul", "file", "under-a-file", "long"])
def test_a_cache_directory_that_cannot_exist_is_ignored(tmp_path, where):
    """Unwritable, unreadable or impossible: the facts are derived, nothing fails."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    directory = {"nul": str(tmp_path / "a\0b"), "file": str(blocker), "under-a-file": str(blocker / "cache"),
                 "long": str(tmp_path / ("x" * 5000))}[where]
    factcache.enable(directory)
    try:
        facts = kvguard.model_facts(catalog.lookup(MODEL).config, vllm_version="0.28.0")
    finally:
        factcache.enable(None)
    assert facts.use_mla is True


def test_a_deeply_nested_config_is_derived_without_the_cache(cache):
    cfg = dict(catalog.lookup("Qwen/Qwen3-32B").config)
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    cfg["extra_nested"] = deep
    try:
        kvguard.model_facts(cfg, vllm_version="0.28.0")
    except (kvguard.InputError, kvguard.Undecidable, kvguard.ModelConfigRefused):
        pass
    assert not list(cache.rglob("*.json"))
