"""``VllmConfig.validate_mamba_block_size`` on every release that has it (kvguard.rules.mamba_block_size): what the
releases answered on their CPU platform (tests/upstream/test_mamba_block_size.py, tools/record_golden.py), written out
literally."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

MAMBA_BLOCK_SIZE = "--mamba-block-size can only be set with --enable-prefix-caching"
REFUSED = (1, False, "ValueError", MAMBA_BLOCK_SIZE, "VllmConfig", "VC_mamba_block_size")
ACCEPTED = (0, True, None, None, None, None)


def _check(capsys, version: str, *args: str, host: tuple[str, ...] = ()) -> tuple[int, dict]:
    extra = [item for fact in host for item in ("--host", fact)]
    status = run(["check", "--vllm-version", version, "--platform", "cpu", *extra, "--format", "json", "--",
                  "vllm", "serve", *args])
    return status, json.loads(capsys.readouterr().out or "{}")


def _verdict(capsys, version: str, *args: str, host: tuple[str, ...] = ()) -> tuple:
    status, data = _check(capsys, version, *args, host=host)
    return (status, data["ok"], data.get("exc_type"), data.get("message"), data.get("wrapped_by"), data.get("check"))


@pytest.mark.parametrize("version,expected", [
    # 0.11.x turn prefix caching on by default for a model that is not hybrid; the set-up keeps it for Falcon-Mamba
    ("0.11.1", ACCEPTED),
    # from 0.12.0 an attention-free model leaves it off
    ("0.12.0", REFUSED), ("0.17.1", REFUSED), ("0.21.0", REFUSED), ("0.25.0", REFUSED), ("0.26.0", REFUSED),
    ("0.33.0", REFUSED),
])
def test_a_mamba_block_size_without_prefix_caching(capsys, version, expected):
    assert _verdict(capsys, version, "tiiuae/falcon-mamba-7b", "--mamba-block-size", "16") == expected


@pytest.mark.parametrize("version", ["0.11.1", "0.12.0", "0.21.0", "0.29.0", "0.33.0"])
def test_a_plain_transformer_is_read_too(capsys, version):
    assert _verdict(capsys, version, "Qwen/Qwen3-8B", "--mamba-block-size", "64",
                    "--no-enable-prefix-caching") == REFUSED
    # prefix caching on by default for a generative decoder
    assert _verdict(capsys, version, "Qwen/Qwen3-8B", "--mamba-block-size", "64") == ACCEPTED
    # the maximum length itself is no Mamba block size
    assert _verdict(capsys, version, "Qwen/Qwen3-8B", "--max-model-len", "4096", "--mamba-block-size", "4096",
                    "--no-enable-prefix-caching") == ACCEPTED


@pytest.mark.parametrize("version,expected", [("0.12.0", REFUSED), ("0.14.1", REFUSED), ("0.15.0", ACCEPTED),
                                              ("0.17.1", ACCEPTED)])
def test_the_set_up_drops_prefix_caching_for_a_class_without_mamba_prefix_caching_to_0_14(capsys, version, expected):
    assert _verdict(capsys, version, "Qwen/Qwen3-Next-80B-A3B-Instruct", "--enable-prefix-caching",
                    "--mamba-block-size", "64") == expected


@pytest.mark.parametrize("version,expected", [("0.26.0", ACCEPTED), ("0.27.0", ACCEPTED), ("0.28.0", REFUSED),
                                              ("0.33.0", REFUSED)])
def test_the_cpu_platform_turns_prefix_caching_off_for_a_hybrid_mla_model_from_0_28(capsys, version, expected):
    # prefix caching on by default for a hybrid model from 0.28.0: the set-up gives the Mamba blocks the block size
    assert _verdict(capsys, version, "moonshotai/Kimi-Linear-48B-A3B-Instruct", host=("amx=0",)) == expected


def test_the_amx_mla_kernels_keep_prefix_caching_on_undecidable(capsys):
    status, data = _check(capsys, "0.33.0", "moonshotai/Kimi-Linear-48B-A3B-Instruct", host=("amx=1",))
    assert (status, data["ok"]) == (2, None) or data.get("undecidable"), data
    assert "AMX kernels" in json.dumps(data)


def test_an_amx_cpu_that_cannot_count_a_hybrid_models_linear_attention_layers_is_undecidable(capsys):
    # 0.24.0 refuses Kimi-Linear (no layers_block_type / attn_type_list / layer_types) at the platform's count
    status, data = _check(capsys, "0.24.0", "moonshotai/Kimi-Linear-48B-A3B-Instruct", host=("amx=1",))
    assert "refuses a model with none of them" in json.dumps(data), data
    assert _verdict(capsys, "0.24.0", "moonshotai/Kimi-Linear-48B-A3B-Instruct", host=("amx=0",)) == ACCEPTED
    # 0.25.0 has no such branch
    assert _verdict(capsys, "0.25.0", "moonshotai/Kimi-Linear-48B-A3B-Instruct", host=("amx=1",)) == ACCEPTED


def test_a_pooling_runners_default_is_undecidable(capsys):
    status, data = _check(capsys, "0.26.0", "Qwen/Qwen3-8B", "--runner", "pooling", "--mamba-block-size", "64")
    assert "pooling runner's prefix-caching default" in json.dumps(data), data


@pytest.mark.parametrize("version", ["0.29.0", "0.33.0"])
@pytest.mark.parametrize("option", [["--mm-encoder-only"],
                                    ["--ec-transfer-config", '{"ec_role": "ec_producer", "ec_connector": "X"}']])
def test_an_encoder_only_instance_is_undecidable(capsys, version, option):
    # oracle 0.29.0 / 0.33.0 (--mm-encoder-only): refused with MAMBA_BLOCK_SIZE, prefix caching turned off for the
    # encoder-only instance; kvguard does not model that reset, and accepted the launch
    status, data = _check(capsys, version, "Qwen/Qwen3.5-27B", "--mamba-block-size", "16", "--enable-prefix-caching",
                          *option)
    assert (status, data["reason_kind"]) == (2, "undecidable")
    assert data["reason"].startswith(f"{option[0]}: vLLM {version} resolves an encoder-only instance")


def test_without_the_option_or_before_0_29_the_launch_is_decided(capsys):
    assert _verdict(capsys, "0.33.0", "Qwen/Qwen3.5-27B", "--mamba-block-size", "16",
                    "--enable-prefix-caching") == ACCEPTED
    assert _verdict(capsys, "0.28.0", "Qwen/Qwen3.5-27B", "--mamba-block-size", "16", "--enable-prefix-caching",
                    "--mm-encoder-only") == ACCEPTED
    # a refusal before VllmConfig stands: ModelConfig's maximum length
    status, data = _check(capsys, "0.33.0", "Qwen/Qwen3.5-27B", "--mamba-block-size", "16", "--mm-encoder-only",
                          "--max-model-len", "10000000")
    assert (status, data["check"]) == (1, "MC_max_len")
