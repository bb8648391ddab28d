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


#: a Medusa head in vLLM's own format (config.json of abhigoyal/vllm-medusa-llama-68m-random's shape, with
#: Llama-3.1-8B's hidden size and vocabulary): MedusaConfig, architecture MedusaModel
MEDUSA = {"architectures": ["MedusaModel"], "hidden_size": 4096, "model_type": "medusa", "num_heads": 5,
          "num_hidden_layers": 1, "vocab_size": 128256, "truncated_vocab_size": None, "torch_dtype": "float16"}


@pytest.mark.parametrize("release", ["0.11.0", "0.20.0", "0.25.0", "0.32.0"])
def test_a_medusa_draft(release):
    """Detected from its model type; MedusaModel has no SupportsPP (the draft runs with the target's pp up to
    0.29.0); it has no attention heads, so any draft tp passes; no n_predict, so the token count is required."""
    spec = {"model": "/drafts/medusa-head", "num_speculative_tokens": 3}
    assert kvguard.check(LLAMA, vllm_version=release, host=CPU, tp=2, speculative_config=spec,
                         draft_config=MEDUSA).ok
    v = kvguard.check(LLAMA, vllm_version=release, host=CPU, pp=2, speculative_config=spec, draft_config=MEDUSA)
    if release == "0.32.0":  # the draft runs with pp 1 from 0.30.0
        assert v.ok
    else:
        assert (v.check, v.exc_type) == ("SC_draft_verify(MC_pp_unsupported)", "NotImplementedError")
    v = kvguard.check(LLAMA, vllm_version=release, host=CPU, speculative_config={"model": "/drafts/medusa-head"},
                      draft_config=MEDUSA)
    assert v.exc_type == ("TypeError" if release == "0.11.0" else "ValueError")


def test_medusa_is_gone_in_0_33_0():
    v = kvguard.check(LLAMA, vllm_version="0.33.0", host=CPU, draft_config=MEDUSA,
                      speculative_config={"model": "/drafts/medusa-head", "num_speculative_tokens": 3})
    assert (v.check, v.exc_type) == ("SC_draft_model_config", "ValueError")
    assert v.message.startswith("The checkpoint you are trying to load has model type `medusa` but Transformers "
                                "does not recognize this architecture.")


def test_an_old_format_medusa_head():
    """No model_type: 0.25.0+ reads it as MedusaConfig when the method is medusa (hf_overrides names the type);
    otherwise AutoConfig matches the path against the types registered so far (process state: undecidable)."""
    old = {"medusa_num_heads": 5, "medusa_num_layers": 1, "base_model_name_or_path": "lmsys/vicuna-7b-v1.3"}
    spec = {"method": "medusa", "model": "/drafts/medusa-vicuna-7b-v1.3", "num_speculative_tokens": 3}
    assert kvguard.check(LLAMA, vllm_version="0.25.0", host=CPU, speculative_config=spec, draft_config=old).ok
    with pytest.raises(Undecidable, match="has no model_type"):
        kvguard.check(LLAMA, vllm_version="0.20.0", host=CPU, speculative_config=spec, draft_config=old)


V4_FLASH = lookup("deepseek-ai/DeepSeek-V4-Flash").config
#: a Qwen3DSparkModel draft for Qwen3-8B: Qwen3-8B's attention geometry and vocabulary, one layer, and the keys
#: vLLM's qwen3_dspark model / SpeculativeConfig read (markov_rank, dspark_block_size; no public checkpoint copy)
DSPARK_QWEN3 = {"architectures": ["Qwen3DSparkModel"], "model_type": "qwen3", "hidden_size": 4096,
                "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                "num_hidden_layers": 1, "max_position_embeddings": 40960, "vocab_size": 151936,
                "rms_norm_eps": 1e-06, "rope_theta": 1000000, "torch_dtype": "bfloat16", "block_size": 7,
                "dspark_block_size": 7, "markov_rank": 256}
QWEN8 = lookup("Qwen/Qwen3-8B").config


@pytest.mark.parametrize("release", ["0.25.0", "0.27.0", "0.28.0"])
def test_deepseek_v4_s_own_dspark_stages(release):
    """The target is its own draft, rewritten to DSparkDraftModel (no SupportsPP); DSpark forces the V2 model
    runner, which needs Triton (recorded from the oracles, CPU platform)."""
    spec = {"method": "dspark", "num_speculative_tokens": 3}
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=8, speculative_config=spec)
    assert (v.check, v.exc_type, v.message) == ("VC_mrv2_triton", "ValueError", "Model Runner V2 requires Triton.")
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=8, pp=2, speculative_config=spec)
    assert (v.check, v.exc_type) == ("SC_draft_verify(MC_pp_unsupported)", "NotImplementedError")
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=3, speculative_config=spec)
    assert v.message == "Total number of attention heads (64) must be divisible by tensor parallel size (3)."


@pytest.mark.parametrize(("release", "message"), [
    ("0.25.0", "Model Runner V2 requires Triton."),
    ("0.26.0", "DSpark requires num_speculative_tokens >= dspark_block_size (7); got 3. Smaller values produce "
               "incorrect output. Use num_speculative_tokens=7 or larger (e.g. 7)."),
    ("0.27.1", "DSpark requires num_speculative_tokens >= dspark_block_size (7); got 3. Smaller values produce "
               "incorrect output. Use num_speculative_tokens=7 or larger (e.g. 7)."),
    ("0.28.0", "Model Runner V2 requires Triton.")])
def test_a_qwen3_dspark_draft_and_its_block_size(release, message):
    spec = {"model": "/drafts/dspark_qwen3_8b_block7", "num_speculative_tokens": 3}
    v = kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=DSPARK_QWEN3)
    assert v.message == message


def test_a_dspark_draft_topk_outside_the_vocabulary_in_0_28_0():
    draft = dict(DSPARK_QWEN3, dspark_draft_topk=200000)
    spec = {"model": "/drafts/qwen3-draft", "num_speculative_tokens": 7}
    v = kvguard.check(QWEN8, vllm_version="0.28.0", host=CPU, speculative_config=spec, draft_config=draft)
    assert (v.exc_type, v.message) == ("ValueError", "dspark_draft_topk must be between 1 and the draft vocabulary "
                                                     "size (151936)")


V1_REFUSES_DSPARK = "Model Runner V1 does not support: dspark speculative decoding"


@pytest.mark.parametrize("release", ["0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"])
def test_deepseek_v4_s_own_dspark_stages_from_0_29_0(release):
    """From 0.29.0 DSpark no longer forces the V2 model runner: without Triton the V1 runner is chosen, which
    lists DSpark as unsupported; the draft's pipeline size is the target's up to 0.29.0 and 1 from 0.30.0
    (recorded from the oracles, CPU platform)."""
    spec = {"method": "dspark", "num_speculative_tokens": 3}
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=8, speculative_config=spec)
    assert (v.exc_type, v.message, v.wrapped_by) == ("ValueError", V1_REFUSES_DSPARK, "VllmConfig")
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=3, speculative_config=spec)
    assert v.message == "Total number of attention heads (64) must be divisible by tensor parallel size (3)."
    v = kvguard.check(V4_FLASH, vllm_version=release, host=CPU, tp=8, pp=2, speculative_config=spec)
    if release == "0.29.0":
        assert (v.check, v.exc_type) == ("SC_draft_verify(MC_pp_unsupported)", "NotImplementedError")
    else:
        assert v.message == V1_REFUSES_DSPARK


@pytest.mark.parametrize(("release", "message"), [
    ("0.29.0", "A speculative model was provided, but `num_speculative_tokens` was not provided"),
    ("0.30.0", "A speculative model was provided, but `num_speculative_tokens` was not provided"),
    ("0.31.0", V1_REFUSES_DSPARK), ("0.33.0", V1_REFUSES_DSPARK)])
def test_a_qwen3_dspark_draft_s_token_count_defaults_to_its_block_from_0_31_0(release, message):
    spec = {"model": "/drafts/dspark_qwen3_8b_block7"}
    v = kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=DSPARK_QWEN3)
    assert v.message == message


@pytest.mark.parametrize(("release", "message"), [
    ("0.28.0", "Model Runner V2 requires Triton."), ("0.29.0", V1_REFUSES_DSPARK), ("0.33.0", V1_REFUSES_DSPARK)])
def test_a_dspark_draft_found_by_its_architecture_alone(release, message):
    spec = {"model": "/drafts/qwen3-draft", "num_speculative_tokens": 7}
    v = kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=DSPARK_QWEN3)
    assert v.message == message


@pytest.mark.parametrize("release", ["0.29.0", "0.33.0"])
def test_a_qwen3_checkpoint_naming_dsparkdraftmodel_is_a_qwen3_dspark_draft_from_0_29_0(release):
    draft = dict(DSPARK_QWEN3, architectures=["DSparkDraftModel"])
    for spec in ({"model": "/drafts/qwen3-draft", "num_speculative_tokens": 7},
                 {"method": "dspark", "model": "/drafts/qwen3-draft", "num_speculative_tokens": 7}):
        v = kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=draft)
        assert v.message == V1_REFUSES_DSPARK


def test_a_qwen3_checkpoint_naming_dsparkdraftmodel_before_0_29_0_is_undecidable():
    """0.25.0-0.28.0 rewrite it to DeepSeek-V4's DSparkDraftModel (a Qwen3 config with DeepSeek-V4's type)."""
    draft = dict(DSPARK_QWEN3, architectures=["DSparkDraftModel"])
    spec = {"method": "dspark", "model": "/drafts/qwen3-draft", "num_speculative_tokens": 7}
    with pytest.raises(Undecidable, match="neither Qwen3DSparkModel nor a DeepSeek-V4 checkpoint"):
        kvguard.check(QWEN8, vllm_version="0.28.0", host=CPU, speculative_config=spec, draft_config=draft)


@pytest.mark.parametrize("release", ["0.29.0", "0.33.0"])
def test_a_dspark_draft_topk_outside_the_vocabulary_from_0_29_0(release):
    draft = dict(DSPARK_QWEN3, dspark_draft_topk=151937)
    spec = {"model": "/drafts/dspark_qwen3", "num_speculative_tokens": 4}
    v = kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=draft)
    assert (v.exc_type, v.message) == ("ValueError", "dspark_draft_topk must be between 1 and the draft vocabulary "
                                                     "size (151936)")


@pytest.mark.parametrize(("release", "message"), [
    ("0.28.0", "dspark_draft_topk is only supported by Qwen3DSparkModel"),
    ("0.29.0", "dspark_draft_topk is only supported by Qwen3DSparkModel and Qwen3OmniDSparkModel"),
    ("0.33.0", "dspark_draft_topk is only supported by Qwen3DSparkModel and Qwen3OmniDSparkModel")])
def test_deepseek_v4_s_stages_cannot_take_a_dspark_draft_topk(release, message):
    v4 = dict(V4_FLASH, dspark_draft_topk=8)
    v = kvguard.check(v4, vllm_version=release, host=CPU, tp=8,
                      speculative_config={"method": "dspark", "num_speculative_tokens": 3})
    assert (v.exc_type, v.message, v.wrapped_by) == ("ValueError", message, "SpeculativeConfig")


@pytest.mark.parametrize(("release", "arch"), [("0.26.0", "Gemma4DSparkModel"), ("0.29.0", "Qwen3OmniDSparkModel"),
                                               ("0.33.0", "MuseSparkDSparkModel")])
def test_other_dspark_models_are_detected_and_undecidable(release, arch):
    draft = dict(DSPARK_QWEN3, architectures=[arch])
    spec = {"model": "/drafts/some-draft", "num_speculative_tokens": 7}
    with pytest.raises(Undecidable, match=f"a {arch} DSpark draft is not modelled"):
        kvguard.check(QWEN8, vllm_version=release, host=CPU, speculative_config=spec, draft_config=draft)


#: the catalog's draft heads as tests/data/catalog_sources.md gives them (typed from SafeAILab/EAGLE's
#: eagle/traineagle3/config.json and eagle/train/EAGLE-LLaMA3-Instruct-8B.json): the keys the checks read
CATALOG_HEADS = {
    "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B": dict(
        architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=4096, num_attention_heads=32,
        num_key_value_heads=8, num_hidden_layers=1, vocab_size=128256, draft_vocab_size=32000,
        max_position_embeddings=2048, torch_dtype="float16"),
    "yuhuili/EAGLE-LLaMA3-Instruct-8B": dict(
        architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=4096, num_attention_heads=32,
        num_key_value_heads=8, num_hidden_layers=1, vocab_size=128256, max_position_embeddings=2048,
        torch_dtype="float16", rope_theta=500000.0),
}


@pytest.mark.parametrize("name", sorted(CATALOG_HEADS))
def test_the_catalog_heads_hold_their_sources_values(name):
    entry = lookup(name)
    assert entry is not None and entry.id == name
    assert {k: entry.config.get(k) for k in CATALOG_HEADS[name]} == CATALOG_HEADS[name]
    assert "draft_vocab_size" in entry.config if "EAGLE3" in name else "draft_vocab_size" not in entry.config


@pytest.mark.parametrize(("release", "refused"), [("0.10.2", True), ("0.20.0", True), ("0.33.0", False)])
def test_a_catalog_eagle3_head_named_by_its_hub_id(release, refused, monkeypatch, tmp_path, capsys):
    """`vllm serve` with the head's Hub id: not local, not cached — the catalog gives the draft's config; the
    method is detected from the name (no method given) and pp 2 decides per release (golden cases
    spec-catalog-eagle3-pp2: refused up to 0.29.0, accepted from 0.30.0)."""
    from kvguard.cli import run

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    spec = json.dumps({"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3})
    code = run(["check", "--vllm-version", release, "--unknown-host", "--format", "json", "--",
                "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-pp", "2", "--speculative-config", spec])
    out = json.loads(capsys.readouterr().out)
    assert any("architectures [Eagle3LlamaForCausalLM]" in n and "catalog: https://huggingface.co/yuhuili/EAGLE3-"
               "LLaMA3.1-Instruct-8B/blob/main/config.json" in n for n in out["notes"]), out["notes"]
    assert (code, out["exc_type"]) == ((1, "NotImplementedError") if refused else (0, None))


def test_a_catalog_eagle_head_named_by_its_hub_id_is_accepted(monkeypatch, tmp_path, capsys):
    from kvguard.cli import run

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    spec = json.dumps({"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B", "num_speculative_tokens": 3,
                       "method": "eagle"})
    code = run(["check", "--vllm-version", "0.33.0", "--unknown-host", "--format", "json", "--",
                "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-tp", "2", "--speculative-config", spec])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"], out
    assert any("architectures [EagleLlamaForCausalLM]" in n for n in out["notes"])


#: the registry's refusal of names it does not hold: its opening (the rest lists the release's registry, which
#: tests/test_archs.py checks against the releases)
UNSUPPORTED = "Model architectures [{names}] are not supported for now. Supported architectures: dict_keys(["
PHI4 = lookup("microsoft/phi-4").config


def _draft_dir(tmp_path, cfg, name="draft"):
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    return str(d)


def test_0_10_2_checks_the_token_count_before_any_lookup_of_an_eagle_renamed_mtp_draft():
    """The target's own MTP layers as an EAGLE-3 draft: ModelConfig looks up DeepSeekMTPModel (registered); the
    EAGLE-3 renaming comes after, and nothing looks Eagle3DeepSeekMTPModel up before _verify_args."""
    v = examine(resolve("0.10.2"), ["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--speculative-config",
                                    '{"method": "eagle3", "num_speculative_tokens": 0}']).verdict
    assert (v.check, v.exc_type, v.message) == (
        "SC_tokens_positive", "ValueError", "Expected num_speculative_tokens to be greater than zero (0).")
    v = examine(resolve("0.10.2"), ["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--speculative-config",
                                    '{"method": "eagle3", "num_speculative_tokens": 1}']).verdict
    assert (v.check, v.message) == ("SC_eagle3_target", "Eagle3 is only supported for ['llama', 'qwen'] models. Got "
                                    "self.target_model_config.hf_text_config.model_type='deepseek_v3'")


def test_0_10_2_looks_the_renamed_draft_up_under_pipeline_parallelism(tmp_path):
    """verify_with_parallel_config asks the registry whether the draft supports PP: the renamed architecture
    it does not hold is refused there (a config without auto_map: vLLM would otherwise try remote code)."""
    cfg = {k: v for k, v in R1.items() if k != "auto_map"}
    target = _draft_dir(tmp_path, cfg, "target")
    v = examine(resolve("0.10.2"), ["vllm", "serve", target, "-tp", "4", "-pp", "2", "--speculative-config",
                                    '{"method": "eagle3", "num_speculative_tokens": 1}']).verdict
    assert (v.check, v.exc_type, v.wrapped_by) == ("SC_draft_verify(MC_pp_unsupported)", "ValueError",
                                                   "SpeculativeConfig")
    assert v.message.startswith(UNSUPPORTED.format(names="'Eagle3DeepSeekMTPModel'"))
    with pytest.raises(Undecidable, match="architecture unknown to kvguard"):    # with auto_map: remote code
        examine(resolve("0.10.2"), ["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "4", "-pp", "2",
                                    "--speculative-config", '{"method": "eagle3", "num_speculative_tokens": 1}'])


@pytest.mark.parametrize("release", ["0.15.0", "0.28.0", "0.33.0"])
def test_from_0_15_0_the_renamed_eagle_draft_is_looked_up_at_once(tmp_path, release):
    draft = _draft_dir(tmp_path, PHI4)
    v = examine(resolve(release), ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--speculative-config",
                                   json.dumps({"method": "eagle", "model": draft, "num_speculative_tokens": 2})]).verdict
    assert (v.check, v.exc_type, v.wrapped_by) == ("SC_draft_registry", "ValueError", "SpeculativeConfig")
    assert v.message.startswith(UNSUPPORTED.format(names="'EaglePhi3ForCausalLM'"))


def test_before_0_15_0_the_renamed_draft_fails_only_in_the_workers(tmp_path):
    """The release's own configuration accepts it (tests/upstream/test_speculative.py's oracle); the workers'
    loader then cannot build EaglePhi3ForCausalLM: undecidable, never accepted."""
    draft = _draft_dir(tmp_path, PHI4)
    argv = ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--speculative-config",
            json.dumps({"method": "eagle", "model": draft, "num_speculative_tokens": 2})]
    with pytest.raises(Undecidable, match=r"\[EaglePhi3ForCausalLM\] \(its EAGLE renaming\) are not in vLLM 0\.14\.1"):
        examine(resolve("0.14.1"), argv)
    argv[4] = "3"                                     # -tp 3: a configuration refusal comes first
    v = examine(resolve("0.14.1"), argv).verdict
    assert (v.ok, v.stage) == (False, "speculative")     # the draft's 40 heads on 3 ranks


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


_SELECTOR_0_31 = (
    "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, dtype=torch.{dtype}, "
    "kv_cache_dtype=auto, block_size=None, use_mla=False, has_sink=False, use_sparse=False, use_mm_prefix=False, "
    "use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, has_sliding_window=False, "
    "use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, use_adaptive_verification=False, "
    "use_pcp=True, use_dcp=False, use_rswa=False). Reasons: {{{reasons}}}.")


@pytest.mark.parametrize(("dtype", "torch_dtype", "reasons"), [
    ("half", "float16", "FLASH_ATTN: [PCP not supported], FLASHINFER: [PCP not supported], TRITON_ATTN: [PCP not "
                        "supported], FLEX_ATTENTION: [PCP not supported], TURBOQUANT: [kv_cache_dtype not supported, "
                        "PCP not supported]"),
    ("float32", "float32", "FLASH_ATTN: [dtype not supported, PCP not supported], FLASHINFER: [dtype not supported, "
                           "PCP not supported], TRITON_ATTN: [PCP not supported], FLEX_ATTENTION: [PCP not "
                           "supported], TURBOQUANT: [dtype not supported, kv_cache_dtype not supported, PCP not "
                           "supported]"),
])
def test_the_selector_reads_the_given_dtype(dtype, torch_dtype, reasons):
    v = kvguard.check(QWEN32, vllm_version="0.31.0", host=Host.cuda_node(), tp=4, pcp=2, dtype=dtype)
    assert (v.check, v.exc_type) == ("W_attn_selector", "ValueError")
    assert v.message == _SELECTOR_0_31.format(dtype=torch_dtype, reasons=reasons)


@pytest.mark.parametrize(("options", "why"), [
    (["--block-size", "32"], "--block-size 32"),
    (["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'], "--kv-transfer-config"),
])
def test_selector_inputs_kvguard_does_not_model_skip_the_selector(capsys, options, why):
    from kvguard.cli import run

    # both are shown in the selector's config (block_size=..., use_kv_connector=...) and enter its reasons
    status = run(["check", "--vllm-version", "0.31.0", "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-32B",
                  "-tp", "4", "-pcp", "2", *options])
    data = json.loads(capsys.readouterr().out)
    skipped = {s["check"]: s["reason"] for s in data["skipped"]}
    assert status != 1 and why in skipped["W_attn_selector"]


def test_kv_transfer_config_none_is_no_connector():
    given = parse_serve(["vllm", "serve", "m", "--kv-transfer-config", "{}"], resolve("0.31.0"))
    none = parse_serve(["vllm", "serve", "m", "--kv-transfer-config", "None"], resolve("0.31.0"))
    assert given.fields["kv_transfer_config"] is True and none.fields["kv_transfer_config"] is False


def test_before_0_26_float32_skips_the_worker_checks_and_auto_does_not():
    refused = kvguard.check(QWEN32, vllm_version="0.20.0", host=Host.cuda_node(), tp=4, pcp=2)
    assert refused.check == "W_pcp_impl"
    fp32 = {**QWEN32, "torch_dtype": "float32"}   # "auto" runs a float32 checkpoint in bfloat16 on CUDA
    assert kvguard.check(fp32, vllm_version="0.20.0", host=Host.cuda_node(), tp=4, pcp=2).check == "W_pcp_impl"
    skipped = kvguard.check(QWEN32, vllm_version="0.20.0", host=Host.cuda_node(), tp=4, pcp=2, dtype="float32")
    assert skipped.ok and "W_pcp_impl" in [s.check for s in skipped.skipped]
