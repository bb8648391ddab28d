"""The compiled rows (kvguard.rules.compile) decide exactly what the plain row loop decides.

For every supported release key, both entries, several models (MLA, GQA, MoE, a
model whose facts crash when read) and hosts (a standard node, an unknown host that
makes host checks skip, a small node), generated layouts — valid, refused and
nonsense values — are checked with the compiled program and with the plain loop;
the verdicts must be equal field for field.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvguard
from kvguard import catalog
from kvguard.rules import engine
from kvguard.facts import Crash, ModelFacts
from kvguard.launch.layout import Host
from kvguard.rules.compile import _lambda_source, compile_rows
from kvguard.versions import SUPPORTED_VERSIONS

MODELS = ("deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-32B", "Qwen/Qwen3-30B-A3B")
HOSTS = (Host.cuda_node(), Host(), Host(platform="cuda", gpus_per_node=2, ray=True, triton=True, nixl=False),
         Host.standard())


def _facts(model: str, version: str) -> ModelFacts:
    return kvguard.model_facts(catalog.lookup(model).config, vllm_version=version)


def _both(facts, version, host, entry, fields):
    def run(compiled: bool):
        engine._COMPILE = compiled
        engine._COMPILE_AFTER = 0
        try:
            return kvguard.check(facts, vllm_version=version, host=host, entry=entry, **fields)
        except kvguard.InputError as exc:
            return ("InputError", str(exc))
        finally:
            engine._COMPILE, engine._COMPILE_AFTER = True, 32
    plain, compiled = run(False), run(True)
    if isinstance(plain, tuple):
        assert compiled == plain
        return
    assert compiled.to_dict() == plain.to_dict()
    assert (compiled.skipped, compiled.assumptions, compiled.errors) == (plain.skipped, plain.assumptions,
                                                                         plain.errors)


_SIZE = st.sampled_from([0, 1, 2, 3, 4, 8, 16, -1])
_LAYOUT = st.fixed_dictionaries({}, optional={
    "tp": _SIZE, "pp": _SIZE, "dp": _SIZE, "dcp": _SIZE, "pcp": _SIZE,
    "data_parallel_size_local": st.sampled_from([None, 0, 1, 2]), "data_parallel_rank": st.sampled_from([None, 0, 1, 5]),
    "enable_expert_parallel": st.booleans(), "enable_eplb": st.booleans(), "nnodes": st.sampled_from([1, 2]),
    "node_rank": st.sampled_from([0, 1, 3]), "distributed_executor_backend": st.sampled_from([None, "mp", "ray"]),
    "data_parallel_backend": st.sampled_from(["mp", "ray"]), "data_parallel_external_lb": st.booleans(),
    "data_parallel_hybrid_lb": st.booleans(), "headless": st.booleans(),
    "num_redundant_experts": st.sampled_from([0, 2]), "enable_elastic_ep": st.booleans(),
})


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=_LAYOUT, model=st.sampled_from(MODELS), host=st.sampled_from(HOSTS),
       entry=st.sampled_from(["serve", "config"]))
def test_compiled_rows_agree_with_the_plain_loop(version, fields, model, host, entry):
    _both(_facts(model, version), version, host, entry, fields)


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.28.0", "0.33.0"])
@pytest.mark.parametrize("fact", ["total_num_kv_heads", "total_num_attention_heads", "num_experts", "use_mla"])
def test_a_fact_that_crashes_when_read_crashes_in_both(version, fact):
    from dataclasses import replace

    facts = replace(_facts("Qwen/Qwen3-32B", version), deferred={fact: Crash("TypeError", "boom")})
    for fields in ({"tp": 8, "dcp": 2}, {"tp": 3}, {"tp": 2, "enable_expert_parallel": True, "dp": 2}):
        _both(facts, version, Host.cuda_node(), "serve", fields)


def test_most_conditions_are_inlined():
    from kvguard.rules.check import resolve_release

    calls, rows = engine._program(resolve_release("0.28.0", False), "serve")
    inlined = sum(_lambda_source(c) is not None for c in calls)
    assert inlined >= 35, inlined
    run, lines = compile_rows(calls, rows, "test")
    assert sorted(lines.values()) == list(range(len(calls)))


def test_rows_are_compiled_only_for_repeated_checks():
    from kvguard.rules.check import resolve_release

    release = resolve_release("0.25.0", False)
    facts = _facts("Qwen/Qwen3-32B", "0.25.0")
    key = ("compiled", release.version, release.patches, "serve")
    engine._SHARED.pop(key, None)
    engine._EVALUATIONS.pop(key[1:], None)
    release.__dict__.pop("_kvg_memo", None)
    kvguard.check(facts, vllm_version="0.25.0", host=Host.cuda_node(), tp=8)
    assert key not in engine._SHARED
    for _ in range(engine._COMPILE_AFTER):
        kvguard.check(facts, vllm_version="0.25.0", host=Host.cuda_node(), tp=8)
    assert key in engine._SHARED
