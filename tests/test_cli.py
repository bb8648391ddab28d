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
    (["check", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "eight"], "invalid int value"),
    (["check", "--vllm-version", "0.20.0", "--", "vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2", "--dcp-comm-backend", "x"],
     "invalid choice"),
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
    status, out, _ = _run(capsys, "diff", "--from", "0.20.0", "--to", "0.28.0", "--",
                          "vllm", "serve", "Qwen/Qwen3-32B", "-pcp", "2", "-dp", "2")
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


QWEN3_8B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
            "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 36, "head_dim": 128,
            "intermediate_size": 12288, "vocab_size": 151936, "torch_dtype": "bfloat16"}


def _fake_hub(monkeypatch, tmp_path, calls, fail=None):
    import types

    def hf_hub_download(repo_id, filename, revision=None):
        calls.append((repo_id, filename, revision))
        if fail:
            raise fail
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
    assert calls == [("acme/unknown-8b", "config.json", "v1")]
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
    (["-tp", "8", "--no-such-flag"], 2, "stderr", "kvguard: "),
])
def test_the_process_flushes_its_output_and_exit_status(tmp_path, args, status, stream, text):
    """main() leaves with os._exit (no interpreter teardown): what it printed must still arrive, to a
    file as to a pipe, with the right status."""
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as fo, err.open("w") as fe:
        proc = subprocess.run([sys.executable, "-m", "kvguard", "check", "--no-cache", "--vllm-version", "0.28.0",
                               "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", *args], stdout=fo, stderr=fe)
    assert proc.returncode == status
    assert text in (out if stream == "stdout" else err).read_text()
    piped = subprocess.run([sys.executable, "-m", "kvguard", "check", "--no-cache", "--vllm-version", "0.28.0",
                            "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", *args], capture_output=True, text=True)
    assert piped.returncode == status
    assert text in (piped.stdout if stream == "stdout" else piped.stderr)
