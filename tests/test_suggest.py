"""For a refused launch, the nearest launches the same release accepts (issue 10, item 13).

Expected command lines are written out by hand; every host fact the answers depend on is stated.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvguard
from kvguard import catalog
from kvguard.cli import run
from kvguard.kv.suggestions import EDITABLE
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

#: an 8-GPU CUDA node with Triton, Ray stated either way
NODE = ["--platform", "cuda", "--gpus-per-node", "8", "--host", "triton=1"]
NO_RAY, RAY = NODE + ["--host", "ray=0"], NODE + ["--host", "ray=1"]
CUDA_NO_RAY = kvguard.Host(platform="cuda", gpus_per_node=8, ray=False, triton=True, nixl=False)
CUDA_RAY = kvguard.Host(platform="cuda", gpus_per_node=8, ray=True, triton=True, nixl=False)

QWEN = catalog.lookup("Qwen/Qwen3-32B").config
KIMI = catalog.lookup("moonshotai/Kimi-K2-Instruct").config


def _check_json(capsys, version, host, *launch):
    status = run(["check", "--vllm-version", version, "--format", "json", *host, "--", *launch])
    return status, json.loads(capsys.readouterr().out)


def _argvs(data):
    return [s["argv"] for s in data["suggestions"]]


# --------------------------------------------------------------------------- the examples


def test_kimi_k2_tp16_on_one_8_gpu_node_suggests_two_nodes(capsys):
    status, data = _check_json(capsys, "0.28.0", NO_RAY,
                               "vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16")
    assert status == 1 and data["check"] == "PC_gpu_count"
    first = data["suggestions"][0]
    assert first["argv"] == ["vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16",
                             "--nnodes", "2"]
    assert first["changes"] == [{"field": "nnodes", "flag": "--nnodes", "from": 1, "to": 2}]
    assert (first["gpus"], first["nodes"]) == (16, 2)
    assert first["notes"] == ["runs on 2 nodes: this command on node 0, plus --master-addr <node 0's address>; on "
                              "node 1 add --node-rank 1 --master-addr <node 0's address> --headless"]
    # one node's worth of GPUs comes after the launches that keep the GPU count
    assert data["suggestions"][1]["argv"] == ["vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "8", "-dcp", "8"]
    assert data["suggestions_host"] == {"platform": "cuda", "gpus_per_node": 8, "ray": False, "assumed": []}


def test_kimi_k2_with_ray_installed_also_suggests_the_ray_executor(capsys):
    _, data = _check_json(capsys, "0.28.0", RAY,
                          "vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16")
    assert _argvs(data)[:2] == [
        ["vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16", "--nnodes", "2"],
        ["vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16",
         "--distributed-executor-backend", "ray"],
    ]
    assert data["suggestions"][1]["notes"] == [
        "needs a Ray cluster of 2 nodes (ray start --head on one, ray start --address=<head> on the others); run this "
        "command on the head node"]


def test_qwen3_32b_tp8_dcp2_suggests_no_dcp_or_tp16_over_two_nodes(capsys):
    status, data = _check_json(capsys, "0.28.0", NO_RAY, "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2")
    assert status == 1
    assert _argvs(data) == [
        ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"],
        ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16", "-dcp", "2", "--nnodes", "2"],
    ]
    assert data["suggestions"][0]["changes"] == [
        {"field": "decode_context_parallel_size", "flag": "-dcp", "from": 2, "to": 1}]


def test_the_text_report_lists_the_suggestions_and_the_host_they_assume(capsys):
    status = run(["check", "--vllm-version", "0.28.0", *NO_RAY,
                  "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"])
    out = capsys.readouterr().out
    assert status == 1
    expected = (
        "nearest launches vLLM 0.28.0 accepts (only parallel flags changed, each one checked; host: platform cuda, "
        "8 GPUs per node, Ray not installed):\n"
        "  1. without -dcp 2 — 8 GPUs, 1 node\n"
        "     vllm serve Qwen/Qwen3-32B -tp 8\n"
        "  2. -tp 8 → 16, with --nnodes 2 — 16 GPUs, 2 nodes\n"
        "     vllm serve Qwen/Qwen3-32B -tp 16 -dcp 2 --nnodes 2\n"
        "     runs on 2 nodes: this command on node 0, plus --master-addr <node 0's address>; on node 1 add "
        "--node-rank 1 --master-addr <node 0's address> --headless")
    assert out.endswith(expected + "\n")


def test_unstated_host_facts_are_named_as_assumed(capsys):
    run(["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8",
         "-dcp", "2"])
    out = capsys.readouterr().out
    assert "(assumed: gpus_per_node, platform, ray)):" in out


def test_the_pr55030_key_on_033_does_not_suggest_a_pcp_layout_the_workers_refuse(capsys):
    # the PR lets -tp 4 -dcp 2 -pcp 2 through the configuration, but 0.33.0's V2 model runner refuses PCP for
    # a non-MLA model at worker start (MRV2 PCP currently supports MLA models only.)
    _, data = _check_json(capsys, "0.33.0+pr55030", NO_RAY, "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2")
    assert _argvs(data) == [
        ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"],
        ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16", "-dcp", "2", "--nnodes", "2"],
    ]
    _, data = _check_json(capsys, "0.33.0", NO_RAY, "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2")
    assert ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4", "-dcp", "2", "-pcp", "2"] not in _argvs(data)


def test_an_accepted_launch_has_no_suggestions(capsys):
    status, data = _check_json(capsys, "0.28.0", NO_RAY, "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8",
                               "-dcp", "8")
    assert status == 0 and data["suggestions"] is None
    status = run(["check", "--vllm-version", "0.28.0", *NO_RAY, "--", "vllm", "serve",
                  "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"])
    assert "nearest launches" not in capsys.readouterr().out


# --------------------------------------------------------------------------- the command line kept as given


def test_other_flags_env_prefixes_and_spellings_are_kept(capsys):
    _, data = _check_json(capsys, "0.28.0", NO_RAY,
                          "VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "32768",
                          "--tensor_parallel_size=8", "--decode-context-parallel-size", "2", "--enforce-eager")
    assert _argvs(data) == [
        ["VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "32768",
         "--tensor_parallel_size=8", "--enforce-eager"],
        ["VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "32768",
         "--tensor-parallel-size", "16", "--decode-context-parallel-size", "2", "--nnodes", "2", "--enforce-eager"],
    ]


def test_a_flag_given_twice_is_edited_where_it_takes_effect(capsys):
    _, data = _check_json(capsys, "0.28.0", NO_RAY,
                          "vllm", "serve", "Qwen/Qwen3-32B", "-dcp", "4", "-tp", "8", "-dcp", "2")
    assert _argvs(data)[0] == ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"]


def test_the_value_of_a_dotted_argument_is_no_flag_of_its_own(capsys):
    """`-cc.cache_dir WORD` takes WORD as its value (FlexibleArgumentParser folds it into JSON), even
    when WORD looks like an option: an ambiguous prefix (`--qu`) used to escape as a traceback,
    a parallel flag's spelling (`-dcp`) is not the launch's -dcp.  (cache_dir is a string field: any
    word fits it, so the launch goes on to the layout checks.)"""
    status, data = _check_json(capsys, "0.28.0", NO_RAY,
                               "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2", "-cc.cache_dir", "--qu")
    assert status == 1
    assert _argvs(data)[0] == ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-cc.cache_dir", "--qu"]
    status, data = _check_json(capsys, "0.28.0", NO_RAY,
                               "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-cc.cache_dir", "-dcp", "-dcp", "2")
    assert status == 1
    assert _argvs(data)[0] == ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-cc.cache_dir", "-dcp"]


def test_a_value_from_a_config_file_is_overridden_on_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serve.yaml").write_text("tensor-parallel-size: 8\ndecode-context-parallel-size: 2\n")
    _, data = _check_json(capsys, "0.28.0", NO_RAY, "vllm", "serve", "Qwen/Qwen3-32B", "--config", "serve.yaml")
    assert _argvs(data) == [
        ["vllm", "serve", "Qwen/Qwen3-32B", "--config", "serve.yaml", "-dcp", "1"],
        ["vllm", "serve", "Qwen/Qwen3-32B", "--config", "serve.yaml", "-tp", "16", "--nnodes", "2"],
    ]


def test_the_api_exposes_the_same(capsys):
    got = kvguard.suggest(QWEN, vllm_version="0.28.0", host=CUDA_NO_RAY, tp=8, dcp=2)
    assert [s.argv for s in got] == [
        ("vllm", "serve", "MODEL", "-tp", "8"),
        ("vllm", "serve", "MODEL", "-tp", "16", "-dcp", "2", "--nnodes", "2"),
    ]
    assert [s.describe() for s in got] == ["without -dcp 2", "-tp 8 → 16, with --nnodes 2"]
    assert all(s.verdict.ok for s in got)
    by_argv = kvguard.suggest(QWEN, argv="vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2", vllm_version="0.28.0",
                              host=CUDA_NO_RAY)
    assert by_argv[0].command == "vllm serve Qwen/Qwen3-32B -tp 8"
    assert "suggest" in kvguard.__all__ and "Suggestion" in kvguard.__all__


def test_the_api_answers_nothing_for_an_accepted_launch_and_for_a_refused_model_config():
    assert kvguard.suggest(QWEN, vllm_version="0.28.0", host=CUDA_NO_RAY, tp=8) == []
    # VLLM_MLA_DISABLE=true: vLLM's int() of it fails while building the model config
    r1, env = catalog.lookup("deepseek-ai/DeepSeek-R1").config, {"VLLM_MLA_DISABLE": "true"}
    assert kvguard.check(r1, vllm_version="0.28.0", env=env, tp=8, dcp=3).stage == "model_config"
    assert kvguard.suggest(r1, vllm_version="0.28.0", env=env, host=CUDA_NO_RAY, tp=8, dcp=3) == []
    with pytest.raises(kvguard.InputError):
        kvguard.suggest(QWEN, vllm_version="0.28.0", argv="vllm serve x -tp 8", tp=8)
    with pytest.raises(kvguard.InputError):
        kvguard.suggest(QWEN, vllm_version="0.28.0", tp=8, dcp=2, limit=-1)


def test_a_one_flag_fix_for_an_environment_refusal(capsys):
    # VLLM_USE_V2_MODEL_RUNNER=0 forbids PCP on 0.28.0: dropping -pcp is the nearest launch
    status = run(["check", "--vllm-version", "0.28.0", *NO_RAY, "--env", "VLLM_USE_V2_MODEL_RUNNER=0",
                  "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "4", "-pcp", "2"])
    out = capsys.readouterr().out
    assert status == 1
    assert "  1. without -pcp 2 — 4 GPUs, 1 node\n     vllm serve deepseek-ai/DeepSeek-R1 -tp 4\n" in out


def test_nothing_nearby_is_said_plainly(capsys, tmp_path):
    # the V2 model runner (forced by the environment) does not run mamba models: no parallel flag helps
    mamba = tmp_path / "config.json"
    mamba.write_text(json.dumps(catalog.lookup("state-spaces/mamba-2.8b-hf").config))
    status = run(["check", "--vllm-version", "0.20.0", *NO_RAY, "--env", "VLLM_USE_V2_MODEL_RUNNER=1",
                  "--model-config", str(mamba), "--", "vllm", "serve", "state-spaces/mamba-2.8b-hf", "-tp", "2"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.endswith(
        "no launch within 3 changes of the parallel flags (tensor-parallel-size, pipeline-parallel-size, "
        "data-parallel-size, prefill-context-parallel-size, decode-context-parallel-size, enable-expert-parallel, "
        "enable-eplb, nnodes, distributed-executor-backend) is accepted by vLLM 0.20.0 on this host (platform cuda, 8 GPUs per "
        "node, Ray not installed)\n")
    # vLLM refuses the model config itself: the refusal is not about the layout at all
    launch = ["--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "3"]
    status = run(["check", "--vllm-version", "0.28.0", "--format", "json", *NO_RAY,
                  "--env", "VLLM_MLA_DISABLE=true", *launch])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["stage"] == "model_config" and data["suggestions"] == []
    run(["check", "--vllm-version", "0.28.0", *NO_RAY, "--env", "VLLM_MLA_DISABLE=true", *launch])
    assert capsys.readouterr().out.endswith(
        "no nearby launch: vLLM refuses the model's config itself, whatever the parallel flags\n")
    # ModelConfig's own checks (here the quantization method) read no parallel flag
    run(["check", "--vllm-version", "0.28.0", *NO_RAY, "--", "vllm", "serve", "Qwen/Qwen3-32B-FP8", "-tp", "2",
         "--quantization", "awq"])
    assert capsys.readouterr().out.endswith(
        "no nearby launch among the parallel flags: ModelConfig refuses this launch (MC_quant_mismatch) whatever "
        "they are\n")


# --------------------------------------------------------------------------- bounded and fast


def test_a_refused_check_with_suggestions_stays_well_under_a_second(capsys):
    launch = ["vllm", "serve", "moonshotai/Kimi-K2-Instruct", "-tp", "16", "-dcp", "16"]
    run(["check", "--vllm-version", "0.28.0", *NO_RAY, "--", *launch])  # warm the imports
    capsys.readouterr()
    worst = 0.0
    for version in ("0.28.0", "0.20.0", "0.33.0+pr55030"):
        start = time.process_time()  # CPU time: a busy CI machine must not turn noise into a failure
        run(["check", "--vllm-version", version, "--format", "json", *NO_RAY, "--", *launch])
        worst = max(worst, time.process_time() - start)
        assert json.loads(capsys.readouterr().out)["suggestions"]
    assert worst < 0.5, worst


def test_huge_sizes_keep_the_search_bounded():
    start = time.process_time()
    got = kvguard.suggest(QWEN, vllm_version="0.28.0", host=CUDA_NO_RAY, tp=10 ** 18, dcp=3)
    assert time.process_time() - start < 1.0
    for s in got:
        assert s.layout.tensor_parallel_size <= 4096
    got = kvguard.suggest(KIMI, vllm_version="0.28.0", host=CUDA_NO_RAY, tp=4096, pp=4096, dcp=3)
    assert time.process_time() - start < 2.0


# --------------------------------------------------------------------------- property


_MODELS = {name: catalog.lookup(name).config for name in (
    "Qwen/Qwen3-32B", "Qwen/Qwen3-235B-A22B", "deepseek-ai/DeepSeek-R1", "meta-llama/Llama-3.1-8B-Instruct")}
_SIZES = st.sampled_from([1, 2, 3, 4, 8, 16, 32])
#: examples of the property (a long run: KVG_FUZZ_EXAMPLES=2000)
EXAMPLES = int(os.environ.get("KVG_FUZZ_EXAMPLES", "40"))


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=st.sampled_from(sorted(_MODELS)), release=st.sampled_from(["0.20.0", "0.28.0", "0.33.0+pr55030"]),
       tp=_SIZES, pp=st.sampled_from([1, 2]), dp=st.sampled_from([1, 2]), pcp=st.sampled_from([1, 2]),
       dcp=_SIZES, ep=st.booleans(), nnodes=st.sampled_from([1, 2]), ray=st.booleans(),
       extra=st.sampled_from([[], ["--max-model-len", "4096"], ["--enforce-eager", "--seed", "3"]]))
def test_every_suggestion_is_accepted_and_differs_only_in_parallel_flags(model, release, tp, pp, dp, pcp, dcp, ep,
                                                                         nnodes, ray, extra):
    host = CUDA_RAY if ray else CUDA_NO_RAY
    argv = ["vllm", "serve", model, "-tp", str(tp), "-pp", str(pp), "-dp", str(dp), "-dcp", str(dcp), *extra]
    if pcp > 1:
        argv += ["-pcp", str(pcp)]
    if ep:
        argv += ["--enable-expert-parallel"]
    if nnodes > 1:
        argv += ["--nnodes", str(nnodes)]
    cfg = _MODELS[model]
    rel = resolve(release)
    original = parse_serve(argv, rel)
    try:
        refused = not kvguard.check(cfg, vllm_version=release, host=host, model_path=model, **original.fields).ok
    except kvguard.Undecidable:
        # (e.g. local data-parallel engines past the node's GPUs): suggest cannot decide either
        with pytest.raises(kvguard.Undecidable):
            kvguard.suggest(cfg, argv=argv, vllm_version=release, host=host)
        return
    got = kvguard.suggest(cfg, argv=argv, vllm_version=release, host=host)
    if not refused:
        assert got == []
        return
    assert len(got) <= 3
    counts = [len(s.changes) for s in got]
    assert counts == sorted(counts)
    for s in got:
        assert list(s.argv) != argv
        again = parse_serve(list(s.argv), rel)
        # accepted by the public check, read from the printed command line
        assert kvguard.check(cfg, vllm_version=release, host=host, model_path=model, **again.fields).ok
        # the model, the environment and every flag kvguard does not edit are as given
        assert again.model == original.model and again.env == original.env
        assert again.passed_over == original.passed_over
        changed = {k for k in set(again.fields) | set(original.fields)
                   if again.fields.get(k, kvguard.Layout.model_fields[k].default)
                   != original.fields.get(k, kvguard.Layout.model_fields[k].default)}
        assert changed and changed <= set(EDITABLE)
        assert len(changed) == len(s.changes) <= 3


def test_a_failure_of_the_search_is_an_internal_error_not_an_answer(monkeypatch):
    """kvguard.suggest is a public function: a bug inside it leaves as kvguard.InternalError (an
    Undecidable, chained to the original), as check's does (issue 10 item 3)."""
    from kvguard.kv import suggestions

    def bug(*args, **kwargs):
        raise AttributeError("'Layout' object has no attribute 'nonexistent'")

    monkeypatch.setattr(suggestions, "_search", bug)
    with pytest.raises(kvguard.InternalError, match="internal error: AttributeError") as info:
        kvguard.suggest(QWEN, vllm_version="0.28.0", host=CUDA_NO_RAY, tp=8, dcp=2)
    assert isinstance(info.value, kvguard.Undecidable) and isinstance(info.value.__cause__, AttributeError)


def test_an_eplb_refusal_suggests_dropping_eplb():
    # gpt-oss implements no MixtureOfExperts: with EPLB the V1 runner refuses it, without EPLB it starts
    # (--enable-eplb is only ever dropped by a suggestion, never added)
    cfg = catalog.lookup("openai/gpt-oss-120b").config
    found = kvguard.suggest(cfg, argv="vllm serve openai/gpt-oss-120b -tp 2 -dp 4 --enable-expert-parallel --enable-eplb",
                            vllm_version="0.20.0", host=kvguard.Host.cuda_node())
    assert found[0].command == "vllm serve openai/gpt-oss-120b -tp 2 -dp 4 --enable-expert-parallel"
    assert found[0].describe() == "without --enable-eplb"
    assert all(c.field != "enable_eplb" or c.after is False for s in found for c in s.changes)
