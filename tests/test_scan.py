"""``kvguard scan``: finding launches in files and checking each.

Expected lines and verdicts were written by reading the files under
tests/data/scan/ (written for these tests; recipes/ in the layout of the public vLLM
recipes) and applying vLLM's rules by hand.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.cli import EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED, run
from kvguard.front import examine
from kvguard.launch.layout import Host
from kvguard.scan import MAX_FILE_BYTES, find_launches, scan
from kvguard.versions import resolve

pytest.importorskip("yaml")

DATA = os.path.join(os.path.dirname(__file__), "data", "scan")
SYN = os.path.join(DATA, "synthetic")
RECIPES = os.path.join(DATA, "recipes")
V = "0.28.0"


def _scan(paths, variables=None, host=None, version=V):
    release = resolve(version)
    return scan(paths, release, lambda r, t, **k: examine(r, t, host=host, **k), variables)


def _by_line(result, name):
    return {f.launch.line: f for f in result.findings if os.path.basename(f.launch.path) == name}


def _run(capsys, *argv):
    status = run(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


# ----------------------------------------------------------------- synthetic files


def test_shell_script_lines_variables_and_verdicts():
    found = _by_line(_scan([os.path.join(SYN, "launch.sh")]), "launch.sh")
    assert sorted(found) == [7, 12, 14, 16, 18]
    # TP=8 from the script; Qwen3-32B has 8 KV heads: dcp needs tp > 8 in 0.28.0
    assert found[7].status == "refused"
    v = found[7].report.verdict
    assert v.exc_type == "ValueError" and v.wrapped_by == "VllmConfig"
    assert v.message.startswith("Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (8)")
    assert found[7].launch.tokens[0] == "VLLM_MLA_DISABLE=0"          # exported VLLM_* reaches the launch
    # ${TP} resolved; "${PORT}" unresolved but irrelevant (passed over); the redirection is cut
    assert found[12].status == "accepted"
    assert found[12].launch.tokens[-2:] == ["--port", "${PORT}"]
    # $GPUS is nowhere: undecidable
    assert found[14].status == "undecidable" and found[14].reason_kind == "unresolved-variable"
    assert "$GPUS" in found[14].reason
    # after `echo … &&`: the api_server entry point
    assert found[16].status == "accepted" and found[16].report.model == "Qwen/Qwen3-8B"
    # ${TP_SIZE:-4}: the default applies
    assert found[18].status == "accepted" and found[18].report.layout["tensor_parallel_size"] == 4


def test_set_resolves_and_overrides_variables():
    res = _scan([os.path.join(SYN, "launch.sh")], {"GPUS": "16"}, host=Host.standard(gpus_per_node=16))
    found = _by_line(res, "launch.sh")
    # Qwen3-32B -tp 16 -dcp 2: tp > H=8 and dcp 2 <= 16 // 8 -> accepted
    assert found[14].status == "accepted"
    assert found[14].report.layout["tensor_parallel_size"] == 16
    # --set wins over the script's own TP=8
    res = _scan([os.path.join(SYN, "launch.sh")], {"TP": "2"})
    assert _by_line(res, "launch.sh")[7].report.layout["tensor_parallel_size"] == 2


@pytest.mark.parametrize(("line", "word", "after"), [
    ("vllm serve Qwen/Qwen3-32B -tp $(echo 8)", "$(echo 8)", []),   # the blanks inside do not split the word
    ("vllm serve Qwen/Qwen3-32B -tp `nproc --all`", "`nproc --all`", []),
    ("vllm serve Qwen/Qwen3-32B -tp $(python -c 'print(8)') -dcp 3", "$(python -c 'print(8)')", ["-dcp", "3"]),
])
def test_a_command_substitution_is_one_unresolved_word(tmp_path, line, word, after):
    script = tmp_path / "serve.sh"
    script.write_text(line + "\n", encoding="utf-8")
    finding = scan([str(script)], "0.28.0", examine).findings[0]
    assert (finding.status, finding.reason_kind) == ("undecidable", "unresolved-variable")
    assert finding.launch.tokens == ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", word] + after


def test_markdown_fenced_blocks_only():
    found = _by_line(_scan([os.path.join(SYN, "guide.md")]), "guide.md")
    # line 3 is inline code, lines 10-11 a python block, line 21 `vllm bench serve`: not launches
    assert sorted(found) == [6, 16, 22]
    v = found[6].report.verdict
    assert (v.exc_type, v.message, v.wrapped_by) == ("ValueError", "tp_size=8 must be divisible by dcp_size=3.",
                                                     "ParallelConfig")
    # console block: `$ export TP=8` then a continued `$ vllm serve …` (MLA: dcp 4 divides tp 8)
    assert found[16].status == "accepted"
    assert found[16].launch.tokens == ["vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "4"]
    # docker run with the vllm-openai image: the arguments after the image
    assert found[22].status == "accepted"
    assert found[22].launch.tokens[:3] == ["vllm", "serve", "Qwen/Qwen3-32B"]


def test_dockerfiles_exec_and_shell_form():
    res = _scan([os.path.join(SYN, "Dockerfile"), os.path.join(SYN, "Dockerfile.shell")])
    exec_form = _by_line(res, "Dockerfile")
    assert sorted(exec_form) == [5]                      # ENTRYPOINT + CMD, reported at CMD
    assert exec_form[5].launch.tokens[:3] == ["vllm", "serve", "Qwen/Qwen3-32B"]
    assert exec_form[5].status == "refused"
    assert exec_form[5].report.verdict.message.startswith("Decode context parallelism for GQA/MQA")
    shell_form = _by_line(res, "Dockerfile.shell")
    assert sorted(shell_form) == [4]                     # CMD with a continuation, $TP from ENV
    assert shell_form[4].status == "accepted"
    assert shell_form[4].report.layout["decode_context_parallel_size"] == 8


def test_kubernetes_manifest():
    found = _by_line(_scan([os.path.join(SYN, "deployment.yaml")]), "deployment.yaml")
    assert sorted(found) == [11, 24, 35]
    assert found[11].status == "refused"                 # command ["vllm", "serve"] + args, -dcp 3
    assert found[11].report.verdict.message == "tp_size=8 must be divisible by dcp_size=3."
    assert found[24].status == "accepted"                # inside the `sh -c` block scalar
    assert found[35].status == "undecidable"             # $(TP): Kubernetes variable syntax
    assert found[35].reason_kind == "unresolved-variable"
    res = _scan([os.path.join(SYN, "deployment.yaml")], {"TP": "2"})
    assert _by_line(res, "deployment.yaml")[35].status == "accepted"


def test_compose_and_helm_values():
    res = _scan([os.path.join(SYN, "compose.yaml"), os.path.join(SYN, "values.yaml")])
    compose = _by_line(res, "compose.yaml")
    assert sorted(compose) == [4]                        # redis service: not a launch
    v = compose[4].report.verdict
    assert (v.exc_type, v.message) == ("ValueError", "PCP does not support data parallelism yet.")
    values = _by_line(res, "values.yaml")
    assert sorted(values) == [6]                         # the extraArgs: line; model from modelURL above
    assert values[6].report.model == "Qwen/Qwen3-32B"
    assert values[6].status == "refused"


def test_directory_walk_summary_and_skips(tmp_path):
    shutil.copytree(SYN, tmp_path / "repo")
    (tmp_path / "repo" / "node_modules").mkdir()
    (tmp_path / "repo" / "node_modules" / "x.sh").write_text("vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3\n")
    big = tmp_path / "repo" / "big.sh"
    big.write_text("#" * (MAX_FILE_BYTES + 1))
    res = _scan([str(tmp_path / "repo")])
    from kvguard.scan import summarize
    s = summarize(res)
    assert (s["found"], s["checked"], s["accepted"], s["refused"], s["undecidable"]) == (15, 13, 7, 6, 2)
    assert s["undecidable_by_reason"] == {"unresolved-variable": 2}
    assert [os.path.basename(k.path) for k in res.skipped] == ["big.sh"]
    assert "too large" in res.skipped[0].reason
    assert not any("node_modules" in f.launch.path for f in res.findings)


def test_yaml_without_pyyaml_is_skipped(monkeypatch):
    import kvguard.scan.yamlnodes as yamlnodes
    monkeypatch.setattr(yamlnodes, "load_yaml", lambda: None)
    launches, skipped, _ = find_launches([os.path.join(SYN, "compose.yaml"), os.path.join(SYN, "launch.sh")])
    assert [os.path.basename(s.path) for s in skipped] == ["compose.yaml"]
    assert "PyYAML" in skipped[0].reason
    assert len(launches) == 5


def test_placeholders_are_undecidable(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("```bash\nvllm serve <MODEL> -tp 8\nvllm serve ... --tool-call-parser hermes\n"
                   "vllm serve Qwen/Qwen3-8B --port <PORT>\n```\n")
    found = _by_line(_scan([str(doc)]), "doc.md")
    assert sorted(found) == [2, 3, 4]
    assert found[2].reason_kind == "placeholder" and "<MODEL>" in found[2].reason
    assert found[3].reason_kind == "placeholder"
    assert found[4].status == "accepted"          # a placeholder kvguard does not read


def test_a_plugin_option_with_an_unresolved_variable_does_not_end_the_scan(tmp_path, capsys):
    # a launch that is undecidable while its variables are probed (a vllm-omni option) is one finding; the
    # other launches of the scan are still checked and the exit status is the scan's
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3-8B --omni --port $PORT\n"
                      "vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8\n"
                      "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3\n")
    found = _by_line(_scan([str(script)]), "run.sh")
    assert found[1].status == "undecidable" and "vllm-omni" in found[1].reason
    assert (found[2].status, found[3].status) == ("accepted", "refused")
    status, _, _ = _run(capsys, "scan", "--vllm-version", V, str(script))
    assert status == EXIT_REFUSE


def test_a_placeholder_inside_a_value_is_a_placeholder(tmp_path):
    # documentation writes the draft as <eagle3_model_name> inside the JSON: vLLM's parser would refuse the
    # text as written, but the launch the page describes is not that text
    doc = tmp_path / "doc.md"
    doc.write_text("```bash\nvllm serve Qwen/Qwen3-8B --speculative-config "
                   "'{\"model\": <eagle3_model_name>, \"method\": \"eagle3\", \"num_speculative_tokens\": 3}'\n"
                   "vllm serve Qwen/Qwen3-8B --speculative-config '{\"model\": eagle, \"method\": \"eagle3\"}'\n```\n")
    found = _by_line(_scan([str(doc)]), "doc.md")
    assert found[2].reason_kind == "placeholder" and "<eagle3_model_name>" in found[2].reason
    assert found[3].status == "refused"       # no placeholder: the JSON is broken as written


def test_unreadable_files_exit_status(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "manifests").mkdir(parents=True)
    # broken YAML: listed as skipped while walking, no effect on the status
    (repo / "manifests" / "deploy.yaml").write_text("spec:\n  replicas: 2\n  x: [\n")
    (repo / "run.sh").write_text("vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8\n")
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, str(repo))
    assert status == EXIT_ACCEPT
    assert "deploy.yaml: skipped: unreadable: invalid YAML" in out
    # named on the command line: cannot decide (Go templates are another matter: test_scan_files.py)
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, str(repo / "manifests" / "deploy.yaml"),
                          str(repo / "run.sh"))
    assert status == EXIT_UNDECIDED


def test_import_kvguard_does_not_import_yaml():
    import subprocess
    import sys
    code = "import sys, kvguard, kvguard.scan, kvguard.cli; print('yaml' in sys.modules, 'pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# ----------------------------------------------------------------- recipes


def test_recipe_qwen3_32b():
    path = os.path.join(RECIPES, "models", "Qwen", "Qwen3-32B.yaml")
    res = _scan([path])
    found = [(f.launch.line, f.launch.label, f.status) for f in res.findings]
    # 3 variants (lines 8, 10, 12) x 2 strategies, rendered for the site's default hardware (H200, 8 GPUs):
    # single-node TP 8 (no vram_minimum_gb to fit); the multi-node ones need the node count
    synth = [f for f in res.findings if f.launch.kind == "recipe"]
    assert [(f.launch.line, f.launch.label) for f in synth] == [
        (8, "variant default × strategy single_node_tp"), (8, "variant default × strategy multi_node_tp"),
        (10, "variant fp8 × strategy single_node_tp"), (10, "variant fp8 × strategy multi_node_tp"),
        (12, "variant awq × strategy single_node_tp"), (12, "variant awq × strategy multi_node_tp")]
    single = [f for f in synth if f.launch.label.endswith("single_node_tp")]
    assert [f.launch.tokens[-2:] for f in single] == [["--tensor-parallel-size", "8"]] * 3
    assert [f.status for f in single] == ["accepted", "accepted", "undecidable"]   # no config.json for the AWQ one
    assert all("rendered as the recipes site renders it for h200" in f.launch.notes[0] for f in synth)
    multi = [f for f in synth if f.launch.label.endswith("multi_node_tp")]
    assert all(f.status == "undecidable" and f.reason_kind == "unresolved-variable" for f in multi)
    # the guide's launches: TP from `export TP=4`, many flags, single node, docker run; not `vllm bench serve`
    guide = [(line, status) for line, label, status in found if label is None]
    # line 35 passes --disable-log-requests, which vLLM 0.17.0-0.32.0 no longer defines: vLLM's parser refuses
    assert guide == [(35, "refused"), (43, "accepted"), (58, "accepted"), (64, "accepted")]
    line35 = _by_line(res, "Qwen3-32B.yaml")[35].report.verdict
    assert (line35.stage, line35.message) == ("argparse", "vllm: error: unrecognized arguments: --disable-log-requests")
    awq = [f for f in synth if f.launch.label.startswith("variant awq")][0]
    assert awq.launch.tokens[:5] == ["vllm", "serve", "Qwen/Qwen3-32B-AWQ", "--quantization", "awq"]


def test_recipe_with_gpu_count_set():
    path = os.path.join(RECIPES, "models", "Qwen", "Qwen3-32B.yaml")
    res = _scan([path], {"GPUS": "8", "NODES": "2", "GPUS_PER_NODE": "8"})
    synth = {f.launch.label: f for f in res.findings if f.launch.kind == "recipe"}
    assert synth["variant default × strategy single_node_tp"].status == "accepted"
    multi = synth["variant default × strategy multi_node_tp"]
    assert multi.status == "accepted"
    assert multi.launch.tokens[-6:] == ["--tensor-parallel-size", "16", "--nnodes", "2", "--node-rank", "0"]
    # Qwen/Qwen3-32B-FP8 is in the built-in catalog (issue 12): 25600 / 8 = 3200 = 25 blocks of 128 per rank
    assert synth["variant fp8 × strategy single_node_tp"].status == "accepted"


def test_recipe_llama4_scout_multi_node_tp_refused():
    path = os.path.join(RECIPES, "models", "meta-llama", "Llama-4-Scout-17B-16E-Instruct.yaml")
    res = _scan([path], {"GPUS": "8", "NODES": "2", "GPUS_PER_NODE": "8"})
    assert len([f for f in res.findings if f.launch.kind == "recipe"]) == 3 * 7
    default = {f.launch.label.split("strategy ")[1]: f for f in res.findings
               if f.launch.label and f.launch.label.startswith("variant default ")}
    # 40 attention heads: -tp 16 does not divide them
    for s in ("multi_node_tp", "multi_node_tep"):
        v = default[s].report.verdict
        assert default[s].status == "refused"
        assert (v.exc_type, v.message) == (
            "ValueError", "Total number of attention heads (40) must be divisible by tensor parallel size (16).")
    for s in ("single_node_tp", "single_node_tep", "single_node_dep", "multi_node_tp_pp", "multi_node_dep"):
        assert default[s].status == "accepted", s
    guide = sorted(f.launch.line for f in res.findings if f.launch.kind != "recipe")
    assert guide == [38, 46]


def test_recipe_kimi_k2_and_guide_markdown():
    res = _scan([os.path.join(RECIPES, "models", "moonshotai", "Kimi-K2-Instruct.yaml"),
                 os.path.join(RECIPES, "moonshotai", "Kimi-K2.md")])
    yaml_found = _by_line(res, "Kimi-K2-Instruct.yaml")
    synth = [f for f in res.findings if f.launch.kind == "recipe"]
    assert len(synth) == 7                               # 8 strategies, pd_cluster not synthesised
    assert all(f.launch.line == 12 for f in synth)
    tp_pp = [f for f in synth if f.launch.label.endswith("multi_node_tp_pp")][0]
    assert "--decode-context-parallel-size" in tp_pp.launch.tokens   # strategy_overrides applied
    guide = sorted(line for line, f in yaml_found.items() if f.launch.kind != "recipe")
    assert guide == [38, 50, 58, 71]
    # TP8 x PP2 = 16 ranks on one standard 8-GPU node without --nnodes or Ray
    # ... but it also passes --disable-log-requests, unknown to vLLM 0.17.0-0.32.0: vLLM's parser refuses first
    refusal = yaml_found[38].report.verdict
    assert yaml_found[38].status == "refused" and refusal.stage == "argparse"
    assert refusal.message == "vllm: error: unrecognized arguments: --disable-log-requests"
    # $MASTER_IP only feeds --data-parallel-address, whose value no check reads
    assert yaml_found[50].status == "accepted" and yaml_found[58].status == "accepted"
    assert yaml_found[71].status == "accepted"
    md = _by_line(res, "Kimi-K2.md")
    assert sorted(md) == [9, 16, 19]
    assert md[9].status == "refused" and "--disable-log-requests" in md[9].report.verdict.message


def _site_rules(variables=None):
    launches, _, _ = find_launches([os.path.join(RECIPES, "models", "example", "Site-Rules.yaml")], variables or {})
    return {x.label: x.tokens for x in launches if x.kind == "recipe"}


def test_recipe_rendered_for_the_sites_default_hardware():
    rendered = _site_rules()
    head = ["VLLM_USE_V2_MODEL_RUNNER=1", "vllm", "serve"]
    common = ["--trust-remote-code", "--max-model-len", "auto"]      # one base_args item, split as the shell splits it
    # H200 (141 GB a GPU): 72 GB fits one GPU -> TP 1; the hopper block adds its flag and its env (over base_env);
    # features on by default follow; spec_decoding and long_context are opt-in
    assert rendered["variant default × strategy single_node_tp"] == head + ["Qwen/Qwen3-30B-A3B"] + common + [
        "--tensor-parallel-size", "1", "--async-scheduling", "--reasoning-parser", "qwen3"]
    # the variant's tp; its --max-num-seqs 64 is shadowed by the strategy override's 128 under TEP (last wins)
    assert rendered["variant fp8 × strategy single_node_tp"] == head + ["Qwen/Qwen3-30B-A3B-FP8"] + common + [
        "--max-num-seqs", "64", "--tensor-parallel-size", "4", "--async-scheduling", "--reasoning-parser", "qwen3"]
    assert rendered["variant fp8 × strategy single_node_tep"] == head + ["Qwen/Qwen3-30B-A3B-FP8"] + common + [
        "--enable-expert-parallel", "--tensor-parallel-size", "8", "--max-num-seqs", "128", "--async-scheduling",
        "--reasoning-parser", "qwen3"]
    # 200 GB does not fit one GPU -> the node's 8; the variant's hopper block follows the recipe's
    assert rendered["variant big × strategy single_node_tp"] == head + ["Qwen/Qwen3-30B-A3B"] + common + [
        "--tensor-parallel-size", "8", "--async-scheduling", "--kv-cache-dtype", "fp8", "--reasoning-parser", "qwen3"]
    # NVFP4 opens on B200: the blackwell block, base_env as given
    assert rendered["variant nvfp4 × strategy single_node_tp"] == [
        "VLLM_USE_V2_MODEL_RUNNER=0", "vllm", "serve", "nvidia/Qwen3-30B-A3B-NVFP4"] + common + [
        "--tensor-parallel-size", "1", "--attention-backend", "FLASHINFER", "--reasoning-parser", "qwen3"]


def test_recipe_rendered_for_a_stated_hardware_profile():
    rendered = _site_rules({"HARDWARE": "h100", "GPUS": "4"})
    # NVFP4 is not offered on a Hopper GPU: no launch
    assert sorted(label.split(" ×")[0] for label in rendered) == ["variant big"] * 2 + ["variant default"] * 2 + \
        ["variant fp8"] * 2
    assert rendered["variant default × strategy single_node_tep"][-8:] == [
        "--enable-expert-parallel", "--tensor-parallel-size", "4", "--max-num-seqs", "128", "--async-scheduling",
        "--reasoning-parser", "qwen3"]
    assert rendered["variant fp8 × strategy single_node_tp"][-5:-3] == ["--tensor-parallel-size", "4"]
    # the hardware the recipe marks unsupported offers nothing
    assert _site_rules({"HARDWARE": "mi300x"}) == {}


def test_recipe_unknown_hardware_profile_is_an_input_error(capsys):
    status, _, err = _run(capsys, "scan", "--set", "HARDWARE=h800", os.path.join(RECIPES, "models", "example"))
    assert status == EXIT_UNDECIDED
    assert "HARDWARE=h800 is not a hardware profile of the vLLM recipes site" in err


# ----------------------------------------------------------------- CLI


def test_cli_scan_exit_codes(capsys):
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, os.path.join(SYN, "launch.sh"))
    assert status == EXIT_REFUSE
    assert "launch.sh:7: REFUSE" in out
    assert "5 launch(es) found in 1 file(s): 4 checked (3 accepted, 1 refused), 1 undecidable " \
           "(unresolved-variable 1)" in out
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, os.path.join(SYN, "Dockerfile.shell"))
    assert status == EXIT_ACCEPT
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, os.path.join(RECIPES, "strategies"),
                          os.path.join(RECIPES, "models", "Qwen", "Qwen3-32B.yaml"))
    assert status == EXIT_REFUSE       # its guide's line 35: vLLM 0.28.0's parser refuses --disable-log-requests
    # undecidable and nothing refused -> 2 (the recipe's launches leave the GPU count as $GPUS)
    status, out, _ = _run(capsys, "scan", "--vllm-version", "0.16.0", os.path.join(RECIPES, "strategies"),
                          os.path.join(RECIPES, "models", "Qwen", "Qwen3-32B.yaml"))
    assert status == EXIT_UNDECIDED, out
    status, _, err = _run(capsys, "scan", "/nonexistent/path")
    assert status == EXIT_UNDECIDED
    status, _, err = _run(capsys, "scan", "--set", "NOEQUALS", SYN)
    assert status == EXIT_UNDECIDED and "--set expects K=V" in err


def test_cli_scan_json(capsys):
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "json", SYN)
    assert status == EXIT_REFUSE
    doc = json.loads(out)
    assert doc["schema"] == 1 and doc["vllm_version"] == V
    assert doc["summary"]["found"] == 15 and doc["summary"]["refused"] == 6
    first = doc["findings"][0]
    for key in ("file", "line", "kind", "command", "status"):
        assert key in first
    refused = [f for f in doc["findings"] if f["status"] == "refused"]
    assert all(f["result"]["ok"] is False and f["result"]["check"] for f in refused)
    und = [f for f in doc["findings"] if f["status"] == "undecidable"]
    assert {f["reason_kind"] for f in und} == {"unresolved-variable"}


def _check_sarif(doc):
    assert doc["version"] == "2.1.0"
    assert "$schema" in doc
    run0 = doc["runs"][0]
    driver = run0["tool"]["driver"]
    assert driver["name"] == "kvguard"
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids))
    for result in run0["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning")
        assert result["message"]["text"]
    return run0


def test_cli_scan_sarif(capsys):
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "sarif", SYN)
    assert status == EXIT_REFUSE
    run0 = _check_sarif(json.loads(out))
    results = run0["results"]
    assert len(results) == 8                              # 6 refused + 2 undecidable; accepted: none
    rules = {r["id"]: r for r in run0["tool"]["driver"]["rules"]}
    # the help travels inline: a relative helpUri resolves to nothing from an installed package
    assert all("helpUri" not in r and r["help"]["text"] and r["help"]["markdown"] for r in rules.values())
    assert "tp_size={tp} must be divisible by dcp_size={dcp}." in rules["PV_tp_dcp_div"]["help"]["markdown"]
    assert "kvguard-undecidable" in rules
    locs = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1],
                   r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results)
    assert locs == [("Dockerfile", 5), ("compose.yaml", 4), ("deployment.yaml", 11), ("deployment.yaml", 35),
                    ("guide.md", 6), ("launch.sh", 7), ("launch.sh", 14), ("values.yaml", 6)]
    dcp3 = [r for r in results if r["ruleId"] == "PV_tp_dcp_div"][0]
    assert "ValueError: tp_size=8 must be divisible by dcp_size=3." in dcp3["message"]["text"]


def test_sarif_rule_help_is_the_rules_doc_section():
    from kvguard.report.sarif import rule_help
    doc = os.path.join(os.path.dirname(__file__), "..", "docs", "rules.md")
    with open(doc, encoding="utf-8") as fh:
        text = fh.read()
    help_md = rule_help("PV_tp_dcp_div")
    first = help_md.split("\n\n", 1)[0]
    assert f"### {first}" in text and first.startswith("`PV_tp_dcp_div` — ")
    assert help_md.split("\n\n", 1)[1].split("\n\n")[0] in text
    assert rule_help("no-such-check") is None


def test_cli_check_sarif(capsys):
    # docs/rules.md: EA_dcp_div (0.10.2 – 0.15.1), a raw AssertionError without the space
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.15.1", "--format", "sarif", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3")
    assert status == EXIT_REFUSE
    run0 = _check_sarif(json.loads(out))
    assert [r["ruleId"] for r in run0["results"]] == ["EA_dcp_div"]
    assert "AssertionError: tp_size=8 must be divisible bydcp_size=3." in run0["results"][0]["message"]["text"]
    assert "tp_size={tp} must be divisible bydcp_size={dcp}." in run0["tool"]["driver"]["rules"][0]["help"]["text"]
    status, out, _ = _run(capsys, "check", "--format", "sarif", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1",
                          "-tp", "8", "-dcp", "8")
    assert status == EXIT_ACCEPT
    assert _check_sarif(json.loads(out))["results"] == []


def test_cli_scan_github(capsys):
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "github",
                          os.path.join(SYN, "guide.md"))
    assert status == EXIT_REFUSE
    lines = out.splitlines()
    assert lines[0].startswith("::error file=") and ",line=6," in lines[0]
    # the refusal, then the nearest launch the release accepts (GitHub's `%0A` is a line break)
    assert lines[0].endswith("::ValueError: tp_size=8 must be divisible by dcp_size=3.%0A"
                             "nearest accepted: vllm serve Qwen/Qwen3-32B -tp 8")


def test_a_scan_shows_the_nearest_accepted_launch_of_each_refusal(capsys):
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, os.path.join(SYN, "guide.md"))
    assert status == EXIT_REFUSE
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.endswith("REFUSE  vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3")))
    assert lines[at + 2] == "    nearest accepted: without -dcp 3: vllm serve Qwen/Qwen3-32B -tp 8"
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "json", os.path.join(SYN, "guide.md"))
    refused = [f for f in json.loads(out)["findings"] if f["status"] == "refused"]
    assert [s["command"] for s in refused[0]["result"]["suggestions"]][:1] == ["vllm serve Qwen/Qwen3-32B -tp 8"]
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "sarif", os.path.join(SYN, "guide.md"))
    assert json.loads(out)["runs"][0]["results"][0]["message"]["text"].endswith(
        "\nlaunch: vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3\nnearest accepted: vllm serve Qwen/Qwen3-32B -tp 8")
    # a container given 2 GPUs: its launches are searched on 2 GPUs per node
    status, out, _ = _run(capsys, "scan", "-q", os.path.join(DATA, "deploy", "environment", "gpus.sh"))
    assert "    nearest accepted: with --nnodes 2: vllm serve Qwen/Qwen3-8B -tp 4 --nnodes 2" in out.splitlines()


def test_a_named_file_that_cannot_be_read_is_said_in_every_format(capsys, tmp_path):
    """Exit 2 for a named path kvguard cannot read: github annotates it, SARIF raises it above a
    note, JSON lists it (issue 10 item 4); a Go template (skipped by design) stays a note."""
    missing = str(tmp_path / "no-such-launch.sh")
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "github", missing)
    assert status == EXIT_UNDECIDED
    assert out.splitlines()[0] == (f"::warning file={missing.replace(':', '%3A')},title=kvguard cannot read::"
                                   "unreadable: no such file or directory")
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "github", "-q", missing)
    assert status == EXIT_UNDECIDED and out.startswith("::warning file=")
    template = tmp_path / "deployment.yaml"
    template.write_text("command: [vllm, serve, {{ .Values.model }}]\n")
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "sarif", missing, str(template))
    assert status == EXIT_UNDECIDED
    notes = json.loads(out)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["message"]["text"]) for n in notes] == [
        ("warning", "skipped: unreadable: no such file or directory"),
        ("note", "skipped: Go template (Helm chart template): launches exist only after rendering; scan the "
                 "rendered output, e.g. `helm template CHART | kvguard scan --stdin-kind yaml -`")]
    status, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "github", str(template))
    assert status == EXIT_ACCEPT and not out.startswith("::")


def test_precommit_hook_declared():
    path = os.path.join(os.path.dirname(__file__), "..", ".pre-commit-hooks.yaml")
    import yaml
    with open(path, encoding="utf-8") as fh:
        hooks = yaml.safe_load(fh)
    hook = [h for h in hooks if h["id"] == "kvguard-scan"][0]
    assert hook["entry"].split()[:2] == ["kvguard", "scan"]
    assert hook["language"] == "python"


# ----------------------------------------------------------------- unresolved variables and argparse refusals


def test_an_argparse_refusal_that_no_value_of_the_variable_changes_is_a_refusal(tmp_path, capsys):
    """A variable standing for one value word (`-tp $TP`, `vllm serve $MODEL`, `VLLM_X=$X`) cannot
    cure an error about other arguments: the parser's refusal stands whatever it holds (exit 1).
    Where the refusal can depend on the variable, the launch stays undecidable."""
    script = tmp_path / "launch.sh"
    script.write_text(
        "vllm serve Qwen/Qwen3-32B -tp $TP --no-such-flag\n"                       # 1 refused
        "vllm serve Qwen/Qwen3-32B -tp $TP -dcp eight\n"                           # 2 refused ($TP's own error first)
        "vllm serve $MODEL -tp eight\n"                                            # 3 refused
        "VLLM_X=$X vllm serve Qwen/Qwen3-32B --tensor-parallel-size=$TP --bogus\n"  # 4 refused
        "vllm serve Qwen/Qwen3-32B --distributed-executor-backend $B -pp two\n"    # 5 refused (a choices slot)
        "vllm serve Qwen/Qwen3-32B -tp 8 $EXTRA --no-such-flag\n"                  # 6 $EXTRA may be any words
        "vllm serve Qwen/Qwen3-32B --config $CFG --no-such-flag\n"                 # 7 the file may say anything
        "vllm serve Qwen/Qwen3-32B -tp $TP\n"                                      # 8 no refusal without $TP
        "vllm serve Qwen/Qwen3-32B --$OPT 8 --bogus\n"                             # 9 a variable in an option's name
        'vllm serve Qwen/Qwen3-32B --max-model-len "$LEN"\n'                       # 10 a length only $LEN gives
        "vllm serve Qwen/Qwen3-32B --max-model-len <n_of_tokens>\n"                # 11 a placeholder, not a value
        "vllm serve Qwen/Qwen3-32B --max-model-len $LEN --bogus\n")                # 12 refused
    res = _scan([str(script)])
    status = {f.launch.line: (f.status, f.reason_kind) for f in res.findings}
    assert status == {1: ("refused", None), 2: ("refused", None), 3: ("refused", None), 4: ("refused", None),
                      5: ("refused", None), 6: ("undecidable", "unresolved-variable"),
                      7: ("undecidable", "unresolved-variable"), 8: ("undecidable", "unresolved-variable"),
                      9: ("undecidable", "unresolved-variable"), 10: ("undecidable", "unresolved-variable"),
                      11: ("undecidable", "placeholder"), 12: ("refused", None)}
    by_line = {f.launch.line: f.report.verdict for f in res.findings if f.status == "refused"}
    assert by_line[1].message == "vllm: error: unrecognized arguments: --no-such-flag"
    assert by_line[2].message == ("vllm serve: error: argument --decode-context-parallel-size/-dcp: "
                                  "invalid int value: 'eight'")
    assert by_line[3].message == "vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: 'eight'"
    assert by_line[4].message == "vllm: error: unrecognized arguments: --bogus"
    assert by_line[5].message == ("vllm serve: error: argument --pipeline-parallel-size/-pp: "
                                  "invalid int value: 'two'")
    assert ("$TP unresolved: vLLM's argument parser refuses this command line whatever it holds (the refusal is "
            "about other arguments)") in by_line[1].notes
    # the command line: a refusal wins over the undecidable launches (exit 1)
    code, out, _ = _run(capsys, "scan", "--vllm-version", V, "--format", "json", str(script))
    assert code == EXIT_REFUSE
    assert json.loads(out)["summary"]["refused"] == 6


def test_an_undecidable_launch_names_every_variable_that_must_be_given(tmp_path):
    """A variable vLLM's parser would refuse as a value (`-tp $TP`) and one it reads later (the model) are both
    named: giving only the first would leave the launch undecidable again."""
    script = tmp_path / "launch.sh"
    script.write_text('vllm serve $MODEL -tp $TP --max-model-len "$LEN"\nvllm serve $MODEL -tp 2 --port $PORT\n')
    reasons = {f.launch.line: (f.reason_kind, f.reason) for f in _scan([str(script)]).findings}
    assert reasons == {
        1: ("unresolved-variable", "unresolved variables $MODEL, $TP, $LEN (give them with --set NAME=VALUE)"),
        2: ("unresolved-variable", "unresolved variable $MODEL (give it with --set NAME=VALUE)")}


# ----------------------------------------------------------------- the recipes site's de-duplication

_ARG_WORDS = st.sampled_from(["--a", "--b", "-c", "1", "x", "--a=2", "-1"])


@given(st.lists(_ARG_WORDS, max_size=12))
def test_recipe_dedupe_keeps_each_flag_once(args):
    from kvguard.scan.recipes import _dedupe
    out = _dedupe(args)
    assert _dedupe(out) == out                              # nothing left to remove
    flags = [w for w in out if w.startswith("-")]
    assert sorted(flags) == sorted({w for w in args if w.startswith("-")})
    assert len(out) <= len(args)


def test_recipe_dedupe_last_value_wins():
    from kvguard.scan.recipes import _dedupe
    assert _dedupe(["--max-num-seqs", "64", "-tp", "8", "--max-num-seqs", "128", "--x"]) == [
        "-tp", "8", "--max-num-seqs", "128", "--x"]
    # a flag item holding its value stays apart from the bare flag (the site compares whole items)
    assert _dedupe(["--max-model-len auto", "--max-model-len", "4096"]) == ["--max-model-len auto", "--max-model-len",
                                                                            "4096"]


def test_markdown_closing_fence_glued_to_the_command(tmp_path):
    guide = tmp_path / "guide.md"
    guide.write_text("# Serve\n\n```bash\nvllm serve Qwen/Qwen3-32B -tp 8 -dcp 3  ```\n\nProse after the block.\n"
                     "```bash\nvllm serve Qwen/Qwen3-32B -tp 2\n```\n")
    found = _by_line(_scan([str(guide)]), "guide.md")
    assert sorted(found) == [4, 8]
    # the fence is markup, not a shell word: the command before it is the launch
    assert found[4].launch.tokens == ["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3"]
    assert found[4].report.verdict.message == "tp_size=8 must be divisible by dcp_size=3."
    assert found[8].status == "accepted"
