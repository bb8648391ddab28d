"""Speculative decoding and worker-start attention checks: the parts the golden cases do not cover.

Expected values are the releases' own (read from their sources and recorded from their oracles: the
differential tier tests/upstream/test_speculative.py checks the same paths at scale), never computed by
kvguard.
"""

from __future__ import annotations

import json

import pytest

import kvguard
from kvguard import Host
from kvguard.catalog import lookup
from kvguard.errors import ArgparseRefusal, Undecidable
from kvguard.front import examine
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

LLAMA = lookup("meta-llama/Llama-3.1-8B-Instruct").config
R1 = lookup("deepseek-ai/DeepSeek-R1").config
QWEN32 = lookup("Qwen/Qwen3-32B").config
CPU = Host(platform="cpu", gpus_per_node=0, ray=False, triton=False, nixl=False, arctic_inference=False)

HEAD = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
        "max_position_embeddings": 2048, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1,
        "rms_norm_eps": 1e-05, "vocab_size": 128256, "torch_dtype": "float16"}


# --------------------------------------------------------------------------- the command line

def test_dotted_keys_fold_into_one_object():
    cmd = parse_serve("vllm serve m --speculative-config.method ngram --speculative-config.num_speculative_tokens 3",
                      resolve("0.20.0"))
    assert cmd.speculative == {"speculative_config": {"method": "ngram", "num_speculative_tokens": 3}}


def test_sc_alias_exists_from_0_19_0():
    with pytest.raises(ArgparseRefusal, match="unrecognized arguments: -sc"):
        parse_serve(['vllm', 'serve', 'm', '-sc', '{"method": "ngram"}'], resolve("0.18.0"))
    assert parse_serve(['vllm', 'serve', 'm', '-sc', '{"method": "ngram"}'],
                       resolve("0.19.0")).speculative["speculative_config"] == {"method": "ngram"}


def test_spec_flags_exist_from_0_22_0_with_their_choices():
    with pytest.raises(ArgparseRefusal, match="unrecognized arguments: --spec-method"):
        parse_serve("vllm serve m --spec-method mtp", resolve("0.21.0"))
    cmd = parse_serve("vllm serve m --spec-method mtp --spec-tokens 2", resolve("0.28.0"))
    assert cmd.speculative == {"spec_method": "mtp", "spec_tokens": 2}
    with pytest.raises(ArgparseRefusal, match=r"argument --spec-method: invalid choice: 'bogus'"):
        parse_serve("vllm serve m --spec-method bogus", resolve("0.28.0"))


def test_a_value_that_is_no_json_is_argparse_s_refusal():
    with pytest.raises(ArgparseRefusal) as info:
        parse_serve(["vllm", "serve", "m", "--speculative-config", "{bad"], resolve("0.28.0"))
    # the release prints the address of json.loads in its process: kvguard prints 0x…
    assert str(info.value.message) == ("vllm serve: error: argument --speculative-config/-sc: Value {bad cannot be "
                                       "converted to <function loads at 0x…>.")


def test_a_flag_and_the_same_key_are_refused_together():
    v = examine(resolve("0.28.0"), ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                                                     "--spec-method", "ngram", "--speculative-config",
                                                     '{"method": "ngram", "num_speculative_tokens": 2}'],
                                 host=CPU).verdict
    assert (v.check, v.exc_type, v.wrapped_by, v.message) == (
        "EA_spec_flags", "ValueError", None,
        "--spec-method and --speculative-config['method'] are mutually exclusive")


# --------------------------------------------------------------------------- the draft

@pytest.mark.parametrize(("release", "ok"), [("0.13.0", True), ("0.14.0", False), ("0.29.0", False),
                                             ("0.30.0", True), ("0.33.0", True)])
def test_the_mtp_draft_under_pipeline_parallelism(release, ok):
    """DeepSeekMTPModel implements SupportsPP in 0.10.2-0.13.0 only; the draft runs with the target's pp up to
    0.29.0 and with pp 1 from 0.30.0."""
    v = kvguard.check(R1, vllm_version=release, host=CPU, tp=4, pp=2, model_path="/m",
                      speculative_config={"method": "mtp", "num_speculative_tokens": 1})
    assert v.ok is ok
    if not ok:
        assert (v.stage, v.check, v.exc_type, v.wrapped_by) == ("speculative", "SC_draft_verify(MC_pp_unsupported)",
                                                                "NotImplementedError", None)
        assert v.message == ("Pipeline parallelism is not supported for this model. Supported models implement the "
                             "`SupportsPP` interface.")


def test_the_draft_found_like_a_model_or_given(tmp_path):
    d = tmp_path / "EAGLE-LLaMA3.1-Instruct-8B"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(HEAD))
    spec = {"model": str(d), "num_speculative_tokens": 3}
    by_path = kvguard.check(LLAMA, vllm_version="0.20.0", host=CPU, pp=2, speculative_config=spec)
    given = kvguard.check(LLAMA, vllm_version="0.20.0", host=CPU, pp=2,
                          speculative_config={"model": "/elsewhere/EAGLE-x", "num_speculative_tokens": 3},
                          draft_config=HEAD)
    for v in (by_path, given):
        assert (v.check, v.exc_type) == ("SC_draft_verify(MC_pp_unsupported)", "NotImplementedError")
    assert any("EagleLlamaForCausalLM" in n for n in by_path.notes)


def test_a_draft_kvguard_cannot_find_is_undecidable():
    with pytest.raises(Undecidable, match="cannot find a config.json"):
        kvguard.check(LLAMA, vllm_version="0.20.0", host=CPU,
                      speculative_config={"model": "no-such-org/no-such-draft", "num_speculative_tokens": 3})


def test_unmodelled_keys_are_undecidable_not_accepted():
    with pytest.raises(Undecidable, match="speculative_token_tree"):
        kvguard.check(LLAMA, vllm_version="0.20.0", host=CPU,
                      speculative_config={"method": "ngram", "num_speculative_tokens": 2,
                                          "speculative_token_tree": "[(0,)]"})


def test_ngram_runs_the_target_checks_inside_speculative_config():
    v = kvguard.check(LLAMA, vllm_version="0.28.0", host=CPU, tp=3,
                      speculative_config={"method": "ngram", "num_speculative_tokens": 2})
    assert (v.stage, v.wrapped_by, v.message) == (
        "speculative", "SpeculativeConfig", "Total number of attention heads (32) must be divisible by tensor "
                                            "parallel size (3).")
    plain = kvguard.check(LLAMA, vllm_version="0.28.0", host=CPU, tp=3)
    assert (plain.stage, plain.wrapped_by) == ("verify", "VllmConfig")


def test_validate_raises_the_wrapped_error():
    import pydantic

    with pytest.raises(pydantic.ValidationError) as info:
        kvguard.validate(LLAMA, vllm_version="0.28.0", host=CPU,
                         speculative_config={"method": "ngram", "num_speculative_tokens": 0})
    assert info.value.title == "SpeculativeConfig"
    assert info.value.errors()[0]["msg"] == "Input should be greater than 0"


# --------------------------------------------------------------------------- speculators checkpoints

SPECULATOR = {"architectures": ["Eagle3Speculator"], "draft_vocab_size": 32000, "norm_before_residual": True,
              "speculators_model_type": "eagle3",
              "speculators_config": {"algorithm": "eagle3", "proposal_methods": [{"proposal_type": "greedy",
                                                                                  "speculative_tokens": 3}],
                                     "verifier": {"name_or_path": "meta-llama/Llama-3.1-8B-Instruct"}},
              "transformer_layer_config": {k: v for k, v in HEAD.items() if k not in ("architectures",
                                                                                      "torch_dtype")}}


def test_a_served_speculators_checkpoint_serves_its_verifier(tmp_path):
    d = tmp_path / "Llama-3.1-8B-Instruct-speculator.eagle3"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(SPECULATOR))
    report = examine(resolve("0.20.0"), ["vllm", "serve", str(d), "-pp", "2"], host=CPU)
    v = report.verdict
    assert report.model == "meta-llama/Llama-3.1-8B-Instruct"
    # the draft is the speculators checkpoint: Eagle3LlamaForCausalLM, no SupportsPP
    assert (v.check, v.exc_type) == ("SC_draft_verify(MC_pp_unsupported)", "NotImplementedError")
    ok = examine(resolve("0.30.0"), ["vllm", "serve", str(d), "-pp", "2"], host=CPU).verdict
    assert ok.ok


def test_0_33_0_refuses_a_local_verifier(tmp_path):
    d = tmp_path / "spec"
    d.mkdir()
    local = dict(SPECULATOR, speculators_config=dict(SPECULATOR["speculators_config"],
                                                     verifier={"name_or_path": str(tmp_path)}))
    (d / "config.json").write_text(json.dumps(local))
    v = examine(resolve("0.33.0"), ["vllm", "serve", str(d)], host=CPU).verdict
    assert (v.exc_type, v.message) == ("ValueError", "Speculators verifier must name a remote model repository. "
                                       "Select local verifiers explicitly with --model and --speculative-config.")


# --------------------------------------------------------------------------- plan and audit

def test_plan_ranks_only_layouts_the_draft_passes():
    from kvguard.kv.plan import plan

    spec = {"method": "mtp", "num_speculative_tokens": 1}
    with_draft = plan("deepseek-ai/DeepSeek-R1", 16, gpus_per_node=16, vllm_version="0.20.0", speculative_config=spec)
    without = plan("deepseek-ai/DeepSeek-R1", 16, gpus_per_node=16, vllm_version="0.20.0")
    assert all(e.pp == 1 for e in with_draft.entries)
    assert any(e.pp > 1 for e in without.entries)


def test_audit_says_what_the_draft_refuses():
    from kvguard.kv.economics import audit

    report = audit("deepseek-ai/DeepSeek-R1", 8, vllm_version="0.20.0", host=Host.cuda_node(),
                   speculative_config={"method": "mtp", "num_speculative_tokens": 1})
    notes = "\n".join(report.models[0].notes)
    assert "pipeline parallelism with this draft is refused in vLLM 0.20.0" in notes


# --------------------------------------------------------------------------- worker start

@pytest.mark.parametrize(("release", "check", "message"), [
    ("0.10.2", "W_dcp_lse", "DCP requires attention impls to return the softmax lse for decode, but the impl "
                            "FlashAttentionImpl does not return the softmax lse for decode."),
    ("0.11.1", None, None),
])
def test_dcp_on_flash_attention(release, check, message):
    v = kvguard.check(QWEN32, vllm_version=release, host=Host.cuda_node(16), tp=16, dcp=2)
    assert (v.check, v.message) == (check, message)


def test_pcp_at_worker_start_and_the_skipped_releases():
    v = kvguard.check(QWEN32, vllm_version="0.20.0", host=Host.cuda_node(), tp=4, pcp=2)
    assert (v.stage, v.check, v.exc_type, v.wrapped_by, v.message) == (
        "worker", "W_pcp_impl", "AssertionError", None,
        "PCP requires attention impls' support, but the impl FlashAttentionImpl does not support PCP.")
    # 0.26.0+: the selector filters backends by PCP support and no non-MLA one has it (text of 0.31.0's
    # CudaPlatform.get_attn_backend_cls on an sm_90 host)
    later = kvguard.check(QWEN32, vllm_version="0.31.0", host=Host.cuda_node(), tp=4, pcp=2)
    assert (later.stage, later.check, later.exc_type, later.wrapped_by) == (
        "model_init", "W_attn_selector", "ValueError", None)
    assert later.message == (
        "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, "
        "dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=None, use_mla=False, has_sink=False, "
        "use_sparse=False, use_mm_prefix=False, use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, "
        "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, "
        "use_adaptive_verification=False, use_pcp=True, use_dcp=False, use_rswa=False). Reasons: "
        "{FLASH_ATTN: [PCP not supported], FLASHINFER: [PCP not supported], TRITON_ATTN: [PCP not supported], "
        "FLEX_ATTENTION: [PCP not supported], TURBOQUANT: [kv_cache_dtype not supported, PCP not supported]}.")


def test_triton_backend_cannot_do_dcp_and_other_hosts_are_skipped():
    v = kvguard.check(QWEN32, vllm_version="0.28.0", host=Host.cuda_node(16), tp=16, dcp=2,
                      attention_backend="TRITON_ATTN")
    assert v.message == ("Decode Context Parallelism (DCP) requires attention implementations to return the "
                         "softmax LSE during decode, but TritonAttentionImpl does not. Try a different backend by "
                         "setting --attention-backend or disable DCP.")
    blackwell = Host(platform="cuda", gpus_per_node=16, ray=True, triton=True, nixl=False, gpu_capability=100)
    skipped = kvguard.check(QWEN32, vllm_version="0.28.0", host=blackwell, tp=16, dcp=2,
                            attention_backend="TRITON_ATTN")
    assert skipped.ok and "W_dcp_lse" in [s.check for s in skipped.skipped]
