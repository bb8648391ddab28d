"""The CPU platform's AMX branches (kvguard.rules.cpu_amx) and the host fact ``amx``: what the releases answered on
their CPU platform with and without AMX tiles (tests/upstream/test_cpu_amx.py, serve path, the oracle's
``torch.cpu._is_amx_tile_supported()`` answered both ways), written out literally."""

from __future__ import annotations

import json

import pytest

import kvguard
from kvguard.cli import run

MAMBA_BLOCK_SIZE = "--mamba-block-size can only be set with --enable-prefix-caching"


def _check(capsys, version: str, *args: str, platform: "str | None" = "cpu",
           host: tuple[str, ...] = (), unknown_host: bool = False) -> tuple[int, dict]:
    extra = [item for fact in host for item in ("--host", fact)]
    if platform is not None:
        extra += ["--platform", platform]
    if unknown_host:
        extra.append("--unknown-host")
    status = run(["check", "--vllm-version", version, *extra, "--format", "json", "--", "vllm", "serve", *args])
    return status, json.loads(capsys.readouterr().out or "{}")


FALCON = ("tiiuae/falcon-mamba-7b", "--enable-chunked-prefill", "--enable-prefix-caching", "--mamba-cache-mode",
          "none")


@pytest.mark.parametrize("version", ["0.22.0", "0.22.1", "0.23.0", "0.24.0"])
def test_an_amx_cpu_turns_prefix_caching_off_after_the_mamba_cache_setup(capsys, version):
    # the set-up took the block size (16) as the Mamba block size; the platform then turned prefix caching off
    status, data = _check(capsys, version, *FALCON, host=("amx=1",))
    assert (status, data["ok"], data["exc_type"], data["message"], data["wrapped_by"], data["check"]) == (
        1, False, "ValueError", MAMBA_BLOCK_SIZE, "VllmConfig", "VC_mamba_block_size")


def test_without_amx_the_same_launch_is_accepted_and_the_assumption_is_named(capsys):
    status, data = _check(capsys, "0.22.1", *FALCON)
    assert (status, data["ok"]) == (0, True)
    assert "amx=False" in data["assumptions"]
    status, data = _check(capsys, "0.22.1", *FALCON, host=("amx=0",))
    assert (status, data["ok"]) == (0, True)
    assert "amx=False" not in data["assumptions"]       # stated, not assumed


def test_the_text_report_names_the_assumed_fact(capsys):
    status = run(["check", "--vllm-version", "0.22.1", "--platform", "cpu", "--", "vllm", "serve", *FALCON])
    out = capsys.readouterr().out
    assert status == 0
    assert "assumed of the CPU host: amx=False (state yours with" in out


def test_unknown_host_skips_the_check_and_lists_it(capsys):
    status, data = _check(capsys, "0.22.1", *FALCON, unknown_host=True)
    assert (status, data["ok"]) == (0, True)
    assert {"check": "VC_mamba_block_size",
            "reason": "depends on whether the CPU has AMX tiles; pass a Host with amx=…"} in data["skipped"]


def test_the_api_reads_the_fact_from_a_host():
    refused = kvguard.check("tiiuae/falcon-mamba-7b", vllm_version="0.22.1",
                            host=kvguard.Host(platform="cpu", amx=True),
                            enable_chunked_prefill=True, enable_prefix_caching=True)
    assert (refused.ok, refused.message) == (False, MAMBA_BLOCK_SIZE)
    accepted = kvguard.check("tiiuae/falcon-mamba-7b", vllm_version="0.22.1",
                             host=kvguard.Host(platform="cpu", amx=False),
                             enable_chunked_prefill=True, enable_prefix_caching=True)
    assert accepted.ok


@pytest.mark.parametrize("version,args", [
    # the Mamba cache set-up took the maximum length (prefix caching off there): the branch changes nothing
    ("0.22.1", ("tiiuae/falcon-mamba-7b",)),
    ("0.24.0", ("tiiuae/falcon-mamba-7b", "--no-enable-prefix-caching")),
    # the block size is the maximum length (2,048): the Mamba block size equals it
    ("0.22.1", ("tiiuae/falcon-mamba-7b", "--enable-prefix-caching", "--block-size", "2048")),
    # a plain transformer has no linear-attention layer
    ("0.22.1", ("Qwen/Qwen3-8B", "--enable-prefix-caching")),
    # 0.25.0 - 0.28.x reset only the SSM cache dtype, after every check that reads it
    ("0.25.0", FALCON),
    ("0.28.0", ("tiiuae/falcon-mamba-7b", "--enable-prefix-caching")),
])
def test_launches_the_fact_does_not_decide_accept_on_either_cpu(capsys, version, args):
    for fact in ("amx=1", "amx=0"):
        status, data = _check(capsys, version, *args, host=(fact,))
        assert (status, data["ok"]) == (0, True), fact
    status, data = _check(capsys, version, *args)
    assert "amx=False" not in data["assumptions"]


def test_a_launch_mamba_block_size_without_prefix_caching_is_refused_on_any_cpu(capsys):
    for fact in ("amx=1", "amx=0"):
        status, data = _check(capsys, "0.22.1", "tiiuae/falcon-mamba-7b", "--mamba-block-size", "16", host=(fact,))
        assert (status, data["ok"], data["message"]) == (1, False, MAMBA_BLOCK_SIZE), fact


def test_a_hybrid_model_whose_layer_types_count_linear_attention_is_refused_on_amx(capsys):
    status, data = _check(capsys, "0.22.1", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--enable-prefix-caching",
                          host=("amx=1",))
    assert (status, data["ok"], data["message"]) == (1, False, MAMBA_BLOCK_SIZE)
    status, data = _check(capsys, "0.22.1", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--enable-prefix-caching",
                          host=("amx=0",))
    assert (status, data["ok"]) == (0, True)


@pytest.mark.parametrize("version", ["0.29.0", "0.30.0", "0.33.0"])
def test_an_mla_model_on_an_amx_cpu_is_undecidable(capsys, version):
    status, data = _check(capsys, version, "deepseek-ai/DeepSeek-V2-Lite", host=("amx=1",))
    assert (status, data["ok"], data["reason_kind"]) == (2, None, "undecidable")
    assert data["reason"] == (f"on an AMX CPU (host fact amx=1) vLLM {version}'s CPU platform runs an MLA model on "
                              "its AMX kernels: it keeps the block size and leaves chunked prefill and prefix "
                              "caching on, which kvguard does not model there")
    status, data = _check(capsys, version, "deepseek-ai/DeepSeek-V2-Lite")
    assert (status, data["ok"]) == (0, True)
    assert "amx=False" in data["assumptions"]


def test_the_reference_cpu_mla_backend_does_not_read_the_fact(capsys):
    status, data = _check(capsys, "0.33.0", "deepseek-ai/DeepSeek-V2-Lite", "--attention-backend", "CPU_MLA",
                          host=("amx=1",))
    assert (status, data["ok"]) == (0, True)
    status, data = _check(capsys, "0.33.0", "deepseek-ai/DeepSeek-V2-Lite", "--attention-backend", "CPU_MLA")
    assert "amx=False" not in data["assumptions"]


def test_other_platforms_never_read_the_fact(capsys):
    status, data = _check(capsys, "0.33.0", "deepseek-ai/DeepSeek-V2-Lite", platform="cuda", host=("amx=1",))
    assert (status, data["ok"]) == (0, True)
    status, data = _check(capsys, "0.22.1", *FALCON, platform="cuda")
    assert (status, data["ok"]) == (0, True)
    assert "amx=False" not in data["assumptions"]


def test_the_fact_takes_only_0_or_1(capsys):
    status = run(["check", "--vllm-version", "0.22.1", "--host", "amx=maybe", "--", "vllm", "serve",
                  "tiiuae/falcon-mamba-7b"])
    assert status == 2
    assert "--host amx: expected 0 or 1, got 'maybe'" in capsys.readouterr().err
