"""Hypothesis properties over generated configs and layouts.

* every refusal's message is the release's upstream template (tests/data/
  upstream_templates.json, copied from the release sources) filled in, and its
  exception type is the one the upstream statement raises;
* ``legal_dcp_sizes`` agrees with ``check``;
* ``validate`` raises exactly what ``check`` reports;
* the duplication facts follow vLLM's ``get_num_kv_heads``.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvguard

DATA = Path(__file__).resolve().parents[1] / "data" / "upstream_templates.json"
RELEASES = ("0.20.0", "0.28.0", "0.28.0+pr55030", "0.33.0", "0.33.0+pr55030")


@lru_cache(maxsize=None)
def _group(release: str) -> dict:
    base = release.split("+")[0]
    for group in json.loads(DATA.read_text())["groups"].values():
        if base in group["versions"]:
            return group
    raise KeyError(release)


def _regex(template: str) -> re.Pattern:
    """An upstream f-string template as a full-match regex ({expr} -> anything; braces may nest)."""
    out, depth, i = [], 0, 0
    literal = []
    while i < len(template):
        ch = template[i]
        if depth == 0 and template.startswith("{{", i):
            literal.append("{")
            i += 2
            continue
        if depth == 0 and template.startswith("}}", i):
            literal.append("}")
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                out.append(re.escape("".join(literal)))
                literal = []
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append(".*?")
        elif depth == 0:
            literal.append(ch)
        i += 1
    out.append(re.escape("".join(literal)))
    return re.compile("".join(out), re.S)


# PR 55030's two changed messages, as the PR branch's code writes them (typed by hand from its
# reading; no release holds them, so tests/data/upstream_templates.json cannot)
_PR55030 = {
    "MC_dcp_tp_gt_kv": re.compile(
        r"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` \(\d+\) to be greater than "
        r"the model's total number of KV heads \(\d+\), or `--prefill-context-parallel-size` \(1\) to be greater "
        r"than 1\. Increase `--tensor-parallel-size` or `--prefill-context-parallel-size`, or set "
        r"`--decode-context-parallel-size 1`\."),
    "MC_dcp_max": re.compile(
        r"`--decode-context-parallel-size` \(\d+\) exceeds the maximum supported value \(\d+\) for "
        r"`--tensor-parallel-size` \(\d+\), `--prefill-context-parallel-size` \(\d+\), and \d+ model KV heads\."),
}

CRASHES = {"ZeroDivisionError", "TypeError", "KeyError", "AttributeError"}


@st.composite
def configs(draw):
    kind = draw(st.sampled_from(["llama", "qwen3", "mistral", "deepseek_v3", "kimi_k2", "qwen3_moe", "mamba"]))
    if kind == "mamba":
        return {"architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 768,
                "num_hidden_layers": 4, "vocab_size": 50280, "state_size": 16, "torch_dtype": "bfloat16"}
    heads = draw(st.sampled_from([1, 2, 4, 8, 16, 24, 32, 40, 48, 64, 128]))
    kv = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    arch = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM", "mistral": "MistralForCausalLM",
            "deepseek_v3": "DeepseekV3ForCausalLM", "kimi_k2": "DeepseekV3ForCausalLM",
            "qwen3_moe": "Qwen3MoeForCausalLM"}[kind]
    cfg = {"architectures": [arch], "model_type": kind, "num_attention_heads": heads, "num_key_value_heads": kv,
           "hidden_size": heads * 128, "head_dim": 128, "num_hidden_layers": 4, "vocab_size": 32000,
           "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    if kind in ("deepseek_v3", "kimi_k2"):
        cfg.update(qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, n_routed_experts=8,
                   num_experts_per_tok=2)
        if draw(st.booleans()):
            cfg["kv_lora_rank"] = 512
    if kind == "qwen3_moe":
        cfg.update(num_experts=8, num_experts_per_tok=2, moe_intermediate_size=768)
    return cfg


sizes = st.one_of(st.sampled_from([1, 2, 4, 8, 16, 32, 64]), st.integers(-1, 70))
layouts = st.fixed_dictionaries({
    "tensor_parallel_size": sizes,
    "pipeline_parallel_size": st.sampled_from([1, 1, 2, 0]),
    "data_parallel_size": st.sampled_from([1, 1, 2]),
    "prefill_context_parallel_size": st.sampled_from([1, 1, 2, 3, 4]),
    "decode_context_parallel_size": sizes,
    "enable_expert_parallel": st.booleans(),
    "max_model_len": st.sampled_from([None, None, None, 1024, 4096, 4097, 10**6, -1, 0, -3]),
})

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _verdict(cfg, lay, release, env=None):
    try:
        return kvguard.check(cfg, lay, vllm_version=release, env=env)
    except kvguard.Undecidable:
        return None


@SETTINGS
@given(cfg=configs(), lay=layouts, release=st.sampled_from(RELEASES),
       mla_off=st.booleans())
def test_messages_are_the_releases_templates(cfg, lay, release, mla_off):
    env = {"VLLM_MLA_DISABLE": "1"} if mla_off else None
    verdict = _verdict(cfg, lay, release, env)
    if verdict is None or verdict.ok:
        return
    if verdict.exc_type in CRASHES:
        return  # vLLM's own arithmetic/type crash: Python's text, not a template
    group = _group(release)
    if verdict.stage == "model_config" and not (verdict.check or "").startswith("MC_"):
        return  # the model facts' own refusal (kvguard.facts), not a launch check's template
    if verdict.stage == "model_init":
        # model construction's messages are checked against the releases building the model
        # (tests/upstream/test_quant.py)
        return
    if verdict.check in ("FIELD", "MC_FIELD"):
        assert verdict.exc_type == "ValidationError"
        assert all(e.msg.startswith("Input should be") for e in verdict.errors)
        return
    if release.endswith("pr55030") and verdict.check in _PR55030:
        assert _PR55030[verdict.check].fullmatch(verdict.message), verdict.message
        assert verdict.exc_type == "ValueError"
        return
    templates = group["templates"][verdict.check]
    assert any(_regex(t).fullmatch(verdict.message) for t in templates), (verdict.check, verdict.message)
    assert group["exc"][verdict.check] == verdict.exc_type


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(), tp=st.sampled_from([1, 2, 4, 8, 16, 32, 64]), pcp=st.sampled_from([1, 2, 4]),
       release=st.sampled_from(RELEASES))
def test_legal_dcp_sizes_agree_with_check(cfg, tp, pcp, release):
    try:
        legal = kvguard.legal_dcp_sizes(cfg, tp, pcp, vllm_version=release)
        facts = kvguard.model_facts(cfg, vllm_version=release)
    except (kvguard.Undecidable, kvguard.ModelConfigRefused):
        return
    for dcp in range(0, 2 * tp * pcp + 2):
        verdict = kvguard.check(facts, vllm_version=release, tp=tp, pcp=pcp, dcp=dcp)
        assert verdict.ok == (dcp in legal), (dcp, legal, verdict.message)


@SETTINGS
@given(cfg=configs(), lay=layouts, release=st.sampled_from(RELEASES))
def test_validate_raises_what_check_reports(cfg, lay, release):
    verdict = _verdict(cfg, lay, release)
    if verdict is None:
        return
    if verdict.ok:
        assert kvguard.validate(cfg, lay, vllm_version=release).ok
        return
    with pytest.raises(BaseException) as info:
        kvguard.validate(cfg, lay, vllm_version=release)
    exc = info.value
    if verdict.wrapped_by:
        assert isinstance(exc, pydantic.ValidationError) and exc.title == verdict.wrapped_by
        assert isinstance(exc, ValueError)  # `except ValueError` code behaves as with vLLM
        first = exc.errors()[0]
        if verdict.exc_type == "ValidationError":
            assert first["msg"] == verdict.message
        else:
            assert type(first["ctx"]["error"]).__name__ == verdict.exc_type
            assert str(first["ctx"]["error"]) == verdict.message
    else:
        assert type(exc).__name__ == verdict.exc_type
        assert str(exc) == verdict.message


@SETTINGS
@given(cfg=configs(), tp=st.integers(1, 128), release=st.sampled_from(RELEASES), mla_off=st.booleans())
def test_duplication_facts(cfg, tp, release, mla_off):
    try:
        facts = kvguard.model_facts(cfg, vllm_version=release, env={"VLLM_MLA_DISABLE": "1"} if mla_off else None)
    except (kvguard.Undecidable, kvguard.ModelConfigRefused):
        return
    if facts.use_mla:
        assert facts.cache_kv_heads == 1 and facts.num_kv_heads(tp) == 1
        assert facts.duplication_factor(tp) == tp
    elif facts.total_num_kv_heads > 0:
        h = facts.total_num_kv_heads
        assert facts.num_kv_heads(tp) == max(1, h // tp)
        assert facts.duplication_factor(tp) == max(1, tp // h)
        if h % tp == 0 or tp % h == 0:  # the layouts vLLM's head checks let through
            # every KV head is stored, duplicated duplication_factor times across the TP group
            assert facts.num_kv_heads(tp) * tp == h * facts.duplication_factor(tp)


@pytest.mark.parametrize("text", ["0.28.0", "v0.28.0", "0.28.0+cu130", "0.28.0.post1", " 0.28.0 "])
def test_version_spellings_resolve_to_the_release(text):
    from kvguard.versions import resolve

    assert resolve(text).key == "0.28.0"


def test_pr55030_alias():
    from kvguard.versions import resolve

    # the alias names the newest release the patch is modelled on; the 0.28.0 key stays
    assert resolve("pr55030").key == "0.33.0+pr55030"
    assert resolve("0.28.0+pr55030").patches == frozenset({"pr55030"})
    assert resolve("0.33.0+pr55030").key == "0.33.0+pr55030"
    assert kvguard.SUPPORTED_VERSIONS[-2:] == ("0.28.0+pr55030", "0.33.0+pr55030")
    with pytest.raises(kvguard.UnsupportedVersion, match="applies to vLLM 0.28.0, 0.33.0, not 0.29.0"):
        resolve("0.29.0+pr55030")
