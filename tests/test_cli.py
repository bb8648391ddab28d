"""The command line: exit codes, formats, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kvguard.cli import EXIT_ACCEPT, EXIT_REFUSE, EXIT_UNDECIDED, run


def _run(capsys, *argv):
    status = run(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_main_job_accepts_deepseek_r1_full_dcp(capsys):
    status, out, err = _run(capsys, "check", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8")
    assert status == EXIT_ACCEPT
    assert "ACCEPT" in out and "catalog" in out
    assert "duplication factor 8" in out


def test_refusal_exit_1_and_json_keys(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.20.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3")
    assert status == EXIT_REFUSE
    data = json.loads(out)
    for key in ("ok", "exc_type", "message", "wrapped_by", "stage", "check", "vllm_version", "facts"):
        assert key in data
    assert data["message"] == "tp_size=8 must be divisible bydcp_size=3."
    assert data["facts"]["duplication_factor"] == 1
    assert data["facts"]["legal_dcp_sizes"] == [1]


@pytest.mark.parametrize("argv, fragment", [
    (["check", "--vllm-version", "0.9.0", "--", "vllm", "serve", "Qwen/Qwen3-32B"], "not supported"),
    (["check", "--vllm-version", "banana", "--", "vllm", "serve", "Qwen/Qwen3-32B"], "not a vLLM version"),
    (["check", "--", "vllm", "serve", "no-such/model", "-tp", "2"], "cannot find a config.json"),
    (["check", "--model-config", "/nonexistent/config.json", "--", "vllm", "serve", "m"], "no such file"),
    (["check"], "nothing to check"),
    (["frobnicate"], "invalid choice"),
])
def test_cannot_decide_is_exit_2_with_one_line(capsys, argv, fragment):
    status, out, err = _run(capsys, *argv)
    assert status == EXIT_UNDECIDED
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_nearest_uses_older_ruleset_and_says_so(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.34.0", "--nearest", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3")
    data = json.loads(out)
    assert data["vllm_version"] == "0.33.0"
    assert any("0.34.0" in n for n in data["notes"])


def test_env_assignment_before_vllm_reaches_the_checks(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "VLLM_MLA_DISABLE=1", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8")
    data = json.loads(out)
    assert status == EXIT_REFUSE
    assert data["check"] == "MC_dcp_tp_gt_kv"
    assert "(128)" in data["message"]


def test_github_format(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "github", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2")
    assert status == EXIT_REFUSE
    assert out.startswith("::error title=kvguard MC_dcp_tp_gt_kv")


def test_python_dash_m_kvguard():
    proc = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.28.0",
                           "--gpus-per-node", "16", "--",
                           "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16", "-dcp", "2"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "ACCEPT" in proc.stdout


def test_diff_reports_the_changed_message(capsys):
    status, out, _ = _run(capsys, "diff", "--from", "0.20.0", "--to", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3")
    data = json.loads(out)
    assert status == EXIT_REFUSE
    assert data["verdict_changed"]
    change = next(c for c in data["changes"] if c["what"] == "message")
    assert change["from"] == "tp_size=8 must be divisible bydcp_size=3."
    assert change["to"] == "tp_size=8 must be divisible by dcp_size=3."


def test_diff_accepts_and_refuses(capsys):
    # DeepSeek-R1 (MLA): 0.20.0 accepts -pcp 2 -dp 2 (its worker-start PCP check is listed as skipped: which MLA
    # implementation is not modelled); Qwen3-32B would meet FlashAttentionImpl's refusal at worker start there
    status, out, _ = _run(capsys, "diff", "--from", "0.20.0", "--to", "0.28.0", "--",
                          "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-pcp", "2", "-dp", "2")
    assert status == EXIT_REFUSE
    assert "vLLM 0.20.0: accepted" in out
    assert "PCP does not support data parallelism yet." in out


def test_diff_same_verdict_exit_0(capsys):
    status, out, _ = _run(capsys, "diff", "--from", "0.28.0", "--to", "pr55030", "--",
                          "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8")
    assert status == EXIT_ACCEPT
    assert "no change" in out or "same verdict" in out


def test_cli_assumes_a_standard_cuda_node_and_says_so(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16")
    data = json.loads(out)
    assert status == EXIT_REFUSE and data["check"] == "PC_gpu_count"
    assert "gpus_per_node=8" in data["assumptions"]
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--unknown-host", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16")
    data = json.loads(out)
    assert status == EXIT_ACCEPT and data["assumptions"] == []
    assert [s["check"] for s in data["skipped"]] == ["PC_gpu_count"]
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--gpus-per-node", "16",
                          "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "16")
    data = json.loads(out)
    assert status == EXIT_ACCEPT and not any(a.startswith("gpus_per_node") for a in data["assumptions"])


def test_pcp_on_cuda_in_0_28_is_refused_by_the_model_runner(capsys):
    # 0.28.0 forces Model Runner V2 for PCP; on a CUDA node it rejects PCP for non-MLA models
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4", "-pcp", "2")
    data = json.loads(out)
    assert status == EXIT_REFUSE
    assert data["message"] == "Model Runner V2 does not yet support: prefill context parallelism"


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
def test_pcp_on_cuda_from_0_29_reaches_the_workers_for_qwen3_32b(capsys, version):
    # the Model Runner V2 refusal of 0.28.0 is gone from 0.29.0 on: the configuration accepts the launch, and
    # the workers refuse it — 0.29.0's attention selector keeps no backend (none supports PCP), 0.33.0's V2
    # model runner refuses PCP for a non-MLA model in its constructor
    status, out, _ = _run(capsys, "check", "--vllm-version", version, "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "4", "-pcp", "2")
    data = json.loads(out)
    assert status == 1 and data["ok"] is False
    expected = {"0.29.0": ("W_attn_selector", "ValueError"), "0.33.0": ("W_mrv2_pcp", "NotImplementedError")}
    assert (data["check"], data["exc_type"]) == expected[version]


QWEN3_8B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
            "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 36, "head_dim": 128,
            "intermediate_size": 12288, "vocab_size": 151936, "torch_dtype": "bfloat16"}


def _fake_hub(monkeypatch, tmp_path, calls, fail=None):
    import types

    class EntryNotFoundError(Exception):
        """huggingface_hub's answer for a file the repository does not have"""

    def hf_hub_download(repo_id, filename, revision=None):
        calls.append((repo_id, filename, revision))
        if fail:
            raise fail
        if filename != "config.json":
            raise EntryNotFoundError(f"404: {filename}")
        path = tmp_path / "dl" / "config.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(QWEN3_8B))
        return str(path)

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))


def test_download_only_when_asked(capsys, monkeypatch, tmp_path):
    calls = []
    _fake_hub(monkeypatch, tmp_path, calls)
    code, out, err = _run(capsys, "check", "--format", "json", "--", "vllm", "serve", "acme/unknown-8b", "-tp", "8",
                          "-dcp", "2")
    assert code == EXIT_UNDECIDED and calls == []          # not local, not cached, not in the catalog
    code, out, err = _run(capsys, "check", "--allow-download", "--format", "json", "--", "vllm", "serve",
                          "acme/unknown-8b", "--revision", "v1", "-tp", "8", "-dcp", "2")
    # config.json has no quantization_config: vLLM would read the repository's hf_quant_config.json (404 here)
    assert calls == [("acme/unknown-8b", "config.json", "v1"), ("acme/unknown-8b", "hf_quant_config.json", "v1")]
    doc = json.loads(out)
    assert doc["source"] == "hf-hub" and doc["facts"]["total_num_kv_heads"] == 8
    assert code == EXIT_REFUSE    # 8 KV heads at -tp 8: tp must exceed H for -dcp 2


def test_download_failures_are_one_line(capsys, monkeypatch, tmp_path):
    _fake_hub(monkeypatch, tmp_path, [], fail=OSError("403 gated\nrepo"))
    code, out, err = _run(capsys, "check", "--allow-download", "--", "vllm", "serve", "acme/gated-8b", "-tp", "2")
    assert code == EXIT_UNDECIDED and "403 gated repo" in err and "Traceback" not in err
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)       # not installed
    code, out, err = _run(capsys, "check", "--allow-download", "--", "vllm", "serve", "acme/gated-8b", "-tp", "2")
    assert code == EXIT_UNDECIDED and "kvguard[hub]" in err


@pytest.mark.parametrize("args, status, stream, text", [
    (["-tp", "8", "-dcp", "8"], 0, "stdout", "ACCEPT"),
    (["-tp", "8", "-dcp", "3"], 1, "stdout", "tp_size=8 must be divisible by dcp_size=3."),
    (["-tp", "8", "--no-such-flag"], 1, "stdout", "vllm: error: unrecognized arguments: --no-such-flag"),
])
def test_the_process_flushes_its_output_and_exit_status(tmp_path, args, status, stream, text):
    """main() leaves with os._exit (no interpreter teardown): what it printed must still arrive, to a
    file as to a pipe, with the right status."""
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as fo, err.open("w") as fe:
        proc = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.28.0",
                               "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", *args], stdout=fo, stderr=fe)
    assert proc.returncode == status
    assert text in (out if stream == "stdout" else err).read_text()
    piped = subprocess.run([sys.executable, "-m", "kvguard", "check", "--vllm-version", "0.28.0",
                            "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", *args], capture_output=True, text=True)
    assert piped.returncode == status
    assert text in (piped.stdout if stream == "stdout" else piped.stderr)


# --------------------------------------------------------------------------- the exit status is the verdict

def _kvguard_into_closed_pipe(*argv: str) -> int:
    """Run ``kvguard ARGV`` with its stdout a pipe whose reader has already gone (``| true``,
    ``| head`` after its line): the process's own exit status (what ``set -o pipefail`` reports)."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)   # before the child writes: its first write meets a closed pipe, every time
    try:
        proc = subprocess.run([sys.executable, "-m", "kvguard", *argv], stdout=write_end,
                              stderr=subprocess.DEVNULL, timeout=120)
    finally:
        os.close(write_end)
    return proc.returncode


def _refused_script(tmp_path) -> str:
    path = tmp_path / "launch.sh"
    path.write_text("vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2\n")
    return str(path)


@pytest.mark.parametrize("command, status", [
    (["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"], 1),
    (["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"],
     0),
    (["check", "--vllm-version", "9.9", "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-32B"], 2),
    (["scan", "--vllm-version", "0.28.0", "SCRIPT"], 1),
    (["diff", "--from", "0.10.2", "--to", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"],
     1),
    (["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--min-replica-gpus", "16", "--vllm-version", "0.28.0"], 1),
    (["audit", "Qwen/Qwen3-32B", "--tp", "8", "--vllm-version", "9.9", "--format", "json"], 2),
])
def test_a_closed_output_pipe_keeps_the_verdicts_exit_status(tmp_path, command, status):
    argv = [_refused_script(tmp_path) if a == "SCRIPT" else a for a in command]
    assert _kvguard_into_closed_pipe(*argv) == status


def test_pipefail_sees_the_refusal_through_a_pipe():
    import shlex

    script = (f"set -o pipefail; {shlex.quote(sys.executable)} -m kvguard check --vllm-version 0.28.0 -- "
              "vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2 | true")
    proc = subprocess.run(["bash", "-c", script], timeout=120)
    assert proc.returncode == 1


# --------------------------------------------------------------------------- every outcome machine-readable

UNDECIDED = {
    "check": ["check", "--vllm-version", "9.9", "--", "vllm", "serve", "Qwen/Qwen3-32B"],
    "diff": ["diff", "--from", "0.20.0", "--to", "9.9", "--", "vllm", "serve", "Qwen/Qwen3-32B"],
    "audit": ["audit", "no-such/model", "--tp", "8"],
    "plan": ["plan", "Qwen/Qwen3-32B", "--gpus", "8", "--vllm-version", "banana"],
    "scan": ["scan", "--vllm-version", "9.9", "."],
}
KINDS = {"check": "unsupported_version", "diff": "unsupported_version", "audit": "undecidable",
         "plan": "unsupported_version", "scan": "unsupported_version"}


@pytest.mark.parametrize("command", sorted(UNDECIDED))
def test_json_when_kvguard_cannot_decide(capsys, command):
    status, out, err = _run(capsys, UNDECIDED[command][0], "--format", "json", *UNDECIDED[command][1:])
    assert status == EXIT_UNDECIDED
    assert len(err.strip().splitlines()) == 1 and err.startswith("kvguard: ")
    doc = json.loads(out)
    assert doc["ok"] is None and doc["schema"] == 1 and doc["command"] == command
    assert doc["reason_kind"] == KINDS[command]
    assert doc["reason"] and doc["reason"] in err
    if command == "scan":
        assert doc["findings"] == [] and doc["skipped"] == []


def test_json_names_bad_kvguard_arguments_a_usage_error(capsys):
    status, out, _ = _run(capsys, "check", "--format", "json", "--no-such-option", "--", "vllm", "serve", "m")
    assert status == EXIT_UNDECIDED
    doc = json.loads(out)
    assert doc["ok"] is None and doc["reason_kind"] == "usage_error" and "--no-such-option" in doc["reason"]
    status, out, _ = _run(capsys, "check", "--format", "json", "--vllm-version", "0.28.0", "--env", "NOEQUALS",
                          "--", "vllm", "serve", "Qwen/Qwen3-32B")
    assert status == EXIT_UNDECIDED and json.loads(out)["reason_kind"] == "usage_error"


@pytest.mark.parametrize("command", sorted(UNDECIDED))
def test_sarif_when_kvguard_cannot_decide(capsys, command):
    status, out, err = _run(capsys, UNDECIDED[command][0], "--format", "sarif", *UNDECIDED[command][1:])
    assert status == EXIT_UNDECIDED
    run0 = json.loads(out)["runs"][0]
    assert [r["ruleId"] for r in run0["results"]] == ["kvguard-undecidable"]
    result = run0["results"][0]
    assert result["level"] == "warning" and result["message"]["text"].split(": ", 1)[1] in err
    assert result["properties"]["reason_kind"] == KINDS[command]
    assert run0["tool"]["driver"]["rules"][0]["id"] == "kvguard-undecidable"


@pytest.mark.parametrize("command", sorted(UNDECIDED))
def test_github_annotation_when_kvguard_cannot_decide(capsys, command):
    status, out, err = _run(capsys, UNDECIDED[command][0], "--format", "github", *UNDECIDED[command][1:])
    assert status == EXIT_UNDECIDED
    assert out.startswith("::warning title=kvguard cannot decide::") and len(out.splitlines()) == 1
    reason = err.split(": ", 2)[2].strip()           # kvguard: cannot decide: REASON
    assert out == f"::warning title=kvguard cannot decide::{reason} ({KINDS[command]})\n"


def test_an_internal_error_is_exit_2_in_every_format(capsys, monkeypatch):
    from kvguard.report.json import JsonReporter
    from kvguard.report.text import TextReporter

    def broken(*args, **kwargs):
        raise TypeError("a bug in kvguard")

    monkeypatch.setattr(TextReporter, "check", broken)
    monkeypatch.setattr(JsonReporter, "check", broken)
    argv = ["check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"]
    status, out, err = _run(capsys, *argv)
    assert status == EXIT_UNDECIDED
    assert err == "kvguard: cannot decide: internal error: TypeError: a bug in kvguard\n"
    status, out, err = _run(capsys, *argv[:1], "--format", "json", *argv[1:])
    assert status == EXIT_UNDECIDED
    doc = json.loads(out)
    assert doc["ok"] is None and doc["reason_kind"] == "internal_error"
    assert doc["reason"] == "internal error: TypeError: a bug in kvguard"


def test_diff_json_carries_schema_and_why_a_side_is_undecided(capsys):
    status, out, _ = _run(capsys, "diff", "--from", "0.20.0", "--to", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "3")
    assert json.loads(out)["schema"] == 1
    status, out, _ = _run(capsys, "diff", "--from", "0.20.0", "--to", "0.28.0", "--format", "json",
                          "--model-config", "/nonexistent/config.json", "--", "vllm", "serve", "m")
    assert status == EXIT_UNDECIDED
    doc = json.loads(out)
    assert doc["schema"] == 1
    assert doc["after"]["ok"] is None and doc["after"]["reason_kind"] == "input_error"


@pytest.mark.parametrize("command", ["check", "diff", "scan", "audit", "plan"])
def test_help_states_the_exit_codes(capsys, command):
    with pytest.raises(SystemExit):
        run([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit status:" in text
    assert "2 kvguard cannot" in text or "else 2 if" in text
    if command == "check":
        assert "0 vLLM accepts the launch; 1 vLLM refuses it" in text


# --------------------------------------------------------------------------- kvguard's own environment

def test_vllm_variables_of_kvguards_environment_are_named_when_not_applied(capsys, monkeypatch):
    monkeypatch.setenv("VLLM_MLA_DISABLE", "1")
    argv = ["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve",
            "deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8"]
    status, out, _ = _run(capsys, *argv)
    doc = json.loads(out)
    assert doc["facts"]["use_mla"] is True          # not applied: vLLM as kvguard checked it keeps MLA
    notes = [n for n in doc["notes"] if "VLLM_MLA_DISABLE" in n]
    assert len(notes) == 1 and "not applied" in notes[0] and "--env-from-os" in notes[0]
    status, out, _ = _run(capsys, *[a for a in argv if a not in ("--format", "json")])
    assert "note: VLLM_MLA_DISABLE is set in kvguard's environment but not applied" in out
    status, out, _ = _run(capsys, *argv[:1], "--env-from-os", *argv[1:])
    doc = json.loads(out)
    assert doc["facts"]["use_mla"] is False and not [n for n in doc["notes"] if "VLLM_MLA_DISABLE" in n]
    at = argv.index("vllm")
    status, out, _ = _run(capsys, *argv[:at], "VLLM_MLA_DISABLE=0", *argv[at:])
    assert not [n for n in json.loads(out)["notes"] if "VLLM_MLA_DISABLE" in n]


# --------------------------------------------------------------------------- vLLM's argument parser refuses

@pytest.mark.parametrize("version, launch, message", [
    # an option the release does not know: argparse's top-level `vllm` parser reports it
    ("0.28.0", ["-tp", "8", "--no-such-flag"], "vllm: error: unrecognized arguments: --no-such-flag"),
    ("0.11.0", ["-tp", "4", "-pcp", "2"], "vllm: error: unrecognized arguments: -pcp 2"),
    # a bad value or a missing argument: the `vllm serve` sub-parser, naming every option string
    ("0.28.0", ["-tp", "eight"], "vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: 'eight'"),
    ("0.20.0", ["-tp", "2", "--dcp-comm-backend", "x"],
     "vllm serve: error: argument --dcp-comm-backend: invalid choice: 'x' (choose from 'a2a', 'ag_rs')"),
    ("0.28.0", ["-dcp"], "vllm serve: error: argument --decode-context-parallel-size/-dcp: expected one argument"),
])
def test_argparse_refusals_are_refusals(capsys, version, launch, message):
    status, out, err = _run(capsys, "check", "--vllm-version", version, "--format", "json", "--",
                            "vllm", "serve", "Qwen/Qwen3-32B", *launch)
    assert status == EXIT_REFUSE and err == ""
    doc = json.loads(out)
    assert doc["ok"] is False and doc["stage"] == "argparse" and doc["check"] == "argparse"
    assert doc["exc_type"] == "SystemExit" and doc["message"] == message
    status, out, _ = _run(capsys, "check", "--vllm-version", version, "--", "vllm", "serve", "Qwen/Qwen3-32B", *launch)
    assert status == EXIT_REFUSE and f"message: {message}" in out and "at argparse" in out


def test_argparse_refusal_hints_are_kvguards_notes(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "--decode-context-paralel-size", "2")
    doc = json.loads(out)
    assert doc["message"] == "vllm: error: unrecognized arguments: --decode-context-paralel-size 2"
    assert any(n.startswith("did you mean --decode-context-parallel-size?") for n in doc["notes"])
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.11.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-pcp", "2")
    assert "vLLM 0.11.0 has no -pcp: it appeared in 0.12.0" in json.loads(out)["notes"]


def test_flexible_argument_parser_exceptions_are_refusals(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.10.2", "--format", "json", "--",
                          "vllm", "serve", "--model", "Qwen/Qwen3-32B")
    assert status == EXIT_REFUSE
    doc = json.loads(out)
    assert (doc["stage"], doc["check"], doc["exc_type"]) == ("argparse", "FlexibleArgumentParser", "ValueError")
    assert doc["message"].startswith("With `vllm serve`, you should provide the model as a positional argument")


def test_the_task_hint_of_newer_releases_is_part_of_the_message(capsys):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.29.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "--task", "embed")
    assert status == EXIT_REFUSE
    message = json.loads(out)["message"]
    assert message.startswith("vllm: error: unrecognized arguments: --task embed\n\nHint: --task is not a vllm serve "
                              "option. For embedding, reranking, or reward models, use --runner pooling.")
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "--task", "embed")
    assert json.loads(out)["message"] == "vllm: error: unrecognized arguments: --task embed"


def test_help_or_version_in_the_launch_is_no_launch(capsys):
    status, _, err = _run(capsys, "check", "--vllm-version", "0.28.0", "--", "vllm", "serve", "Qwen/Qwen3-32B",
                          "--help")
    assert status == EXIT_UNDECIDED and "prints help and exits" in err


def test_diff_shows_an_option_a_release_lacks_as_its_refusal(capsys):
    status, out, _ = _run(capsys, "diff", "--from", "0.11.0", "--to", "0.13.0", "--", "vllm", "serve",
                          "deepseek-ai/DeepSeek-R1", "-tp", "4", "-pcp", "2")
    assert status == EXIT_ACCEPT
    assert "vLLM 0.11.0: refused by argparse: SystemExit: vllm: error: unrecognized arguments: -pcp 2" in out


def test_no_cache_is_still_accepted_and_changes_nothing(capsys):
    """The facts cache is gone; scripts that pass --no-cache keep working."""
    argv = ["check", "--vllm-version", "0.28.0", "--format", "json", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1",
            "-tp", "8", "-dcp", "8"]
    plain = _run(capsys, *argv)
    flagged = _run(capsys, argv[0], "--no-cache", *argv[1:])
    assert plain[0] == flagged[0] == EXIT_ACCEPT and plain[1] == flagged[1]


@pytest.mark.parametrize(("options", "per_token"), [
    ([], 36 * 2 * 8 * 128 * 2),                      # Qwen3-8B: 36 layers, K and V, 8 KV heads of 128, bfloat16
    (["--dtype", "half"], 36 * 2 * 8 * 128 * 2),
    (["--dtype", "float32"], 36 * 2 * 8 * 128 * 4),  # the "auto" KV cache takes the model's dtype
])
def test_kv_bytes_per_token_follow_the_given_dtype(capsys, options, per_token):
    status, out, _ = _run(capsys, "check", "--vllm-version", "0.28.0", "--format", "json", "--",
                          "vllm", "serve", "Qwen/Qwen3-8B", *options)
    data = json.loads(out)
    assert status == 0 and data["facts"]["kv_bytes_per_token_per_rank"] == per_token


def test_download_reads_the_repository_s_hf_quant_config(capsys, monkeypatch, tmp_path):
    # a ModelOpt NVFP4 export up to ModelOpt 0.29: config.json without quantization_config, hf_quant_config.json
    # beside it; a Qwen3-8B with intermediate size 12000 at -tp 8: down_proj's 1500 inputs per rank are not a
    # multiple of 16, which only the NVFP4 linear method refuses
    side = {"producer": {"name": "modelopt", "version": "0.23.0"},
            "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                             "exclude_modules": ["lm_head"]}}
    calls = []

    def hf_hub_download(repo_id, filename, revision=None):
        calls.append(filename)
        path = tmp_path / "dl" / filename
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(dict(QWEN3_8B, intermediate_size=12000) if filename == "config.json" else side))
        return str(path)

    import types

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    code, out, err = _run(capsys, "check", "--allow-download", "--format", "json", "--vllm-version", "0.33.0",
                          "--", "vllm", "serve", "acme/model-fp4", "-tp", "8")
    assert calls == ["config.json", "hf_quant_config.json"]
    doc = json.loads(out)
    assert (code, doc["check"], doc["message"]) == (EXIT_REFUSE, "MI_nvfp4_input", "Unsupported model when in "
                                                                                   "features size is not multiple of 16")


def test_a_failed_hf_quant_config_download_is_undecided(capsys, monkeypatch, tmp_path):
    def hf_hub_download(repo_id, filename, revision=None):
        if filename != "config.json":
            raise OSError("502 bad gateway")
        path = tmp_path / "dl" / filename
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(QWEN3_8B))
        return str(path)

    import types

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    code, out, err = _run(capsys, "check", "--allow-download", "--", "vllm", "serve", "acme/model", "-tp", "8")
    assert code == EXIT_UNDECIDED and "hf_quant_config.json" in err and "502 bad gateway" in err


def test_a_command_line_that_names_its_command_builds_that_parser_alone():
    """A cold check pays for the check subcommand's parser only; a command line that names none (or an unknown
    one) gets them all, for the help and for argparse's "invalid choice" list."""
    import argparse

    from kvguard.cli import _parser

    def commands(parser):
        (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return list(sub.choices)

    assert commands(_parser("check")) == ["check"]
    assert commands(_parser("scan")) == ["scan"]
    assert commands(_parser(None)) == ["check", "diff", "scan", "audit", "plan"]
