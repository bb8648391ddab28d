"""Options that change the model's config after vLLM loads it (--hf-overrides; --rope-scaling / --rope-theta in
0.10.2 - 0.11.0): kvguard reads config.json as written, so such a launch is undecidable, not judged on the unchanged
config.  Found from Qwen3's model-card YaRN launch (``--rope-scaling '{"rope_type":"yarn","factor":4.0,
"original_max_position_embeddings":32768}' --max-model-len 131072``): vLLM 0.10.2's own serve path accepts it
(tools/issue_reports.py --oracle), where kvguard refused it with the unscaled maximum length (40960)."""

from __future__ import annotations

import json

import pytest

from kvguard.cli import run

YARN = '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'


def _status(capsys, version: str, *args: str) -> tuple[int, str, dict]:
    status = run(["check", "--vllm-version", version, "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-32B",
                  *args])
    captured = capsys.readouterr()
    return status, captured.err, json.loads(captured.out or "{}")


@pytest.mark.parametrize("version", ["0.10.2", "0.20.0", "0.33.0"])
def test_hf_overrides_make_the_launch_undecidable(capsys, version):
    status, _, data = _status(capsys, version, "--hf-overrides", '{"rope_scaling": ' + YARN + "}",
                              "--max-model-len", "131072")
    assert (status, data["ok"], data["reason_kind"]) == (2, None, "undecidable")
    assert data["reason"].startswith('--hf-overrides {"rope_scaling": {"rope_type":"yarn"')


def test_rope_scaling_of_0_10_2_is_undecidable_and_unknown_later(capsys):
    status, _, data = _status(capsys, "0.10.2", "--rope-scaling", YARN, "--max-model-len", "131072")
    assert (status, data["reason_kind"]) == (2, "undecidable")
    assert data["reason"].startswith("--rope-scaling {")
    # 0.12.0 dropped the option: its parser refuses it first
    status, _, data = _status(capsys, "0.20.0", "--rope-scaling", YARN)
    assert (status, data["stage"]) == (1, "argparse")
    assert data["message"] == f"vllm: error: unrecognized arguments: --rope-scaling {YARN}"


def test_the_underscore_and_inline_spellings(capsys):
    status, _, data = _status(capsys, "0.33.0", '--hf_overrides={"num_hidden_layers": 2}')
    assert (status, data["reason_kind"]) == (2, "undecidable")
    assert data["reason"].startswith('--hf-overrides {"num_hidden_layers": 2} changes')


def test_an_empty_override_changes_nothing(capsys):
    status, _, data = _status(capsys, "0.33.0", "--hf-overrides", "{}", "-tp", "8")
    assert (status, data["ok"]) == (0, True)
    # and the unchanged config is still judged: 40960 tokens at most
    status, _, data = _status(capsys, "0.33.0", "--hf-overrides", "{}", "--max-model-len", "131072")
    assert (status, data["check"]) == (1, "MC_max_len")


@pytest.mark.parametrize("version", ["0.20.0", "0.33.0"])
def test_a_refusal_before_the_override_is_applied_stands(capsys, version):
    # get_config looks the parser up before it reads the config and applies the overrides (oracle: the same
    # refusal on 0.20.0 and 0.33.0)
    status, _, data = _status(capsys, version, "--hf-overrides", '{"num_hidden_layers": 2}', "--config-format",
                              "bogus")
    assert (status, data["check"], data["message"]) == (1, "MC_config_format_unknown", "Unknown config format `bogus`.")


def test_a_config_the_release_cannot_read_is_refused_before_the_override(capsys):
    # MiniMax-M3's model type is unknown to 0.33.0's Transformers: reading config.json fails before any override
    status = run(["check", "--vllm-version", "0.33.0", "--format", "json", "--", "vllm", "serve",
                  "MiniMaxAI/MiniMax-M3", "--hf-overrides", '{"text_config": {"rope_scaling": {"rope_type": "yarn"}}}'])
    data = json.loads(capsys.readouterr().out)
    assert (status, data["stage"], data["exc_type"]) == (1, "model_config", "ValueError")
    assert data["message"].startswith("The checkpoint you are trying to load has model type `minimax_m3`")


def test_a_later_refusal_is_undecidable_with_an_override(capsys):
    # the layout is checked after ModelConfig has read the changed config (oracle 0.33.0: ParallelConfig's bound,
    # 0.20.0: ZeroDivisionError); kvguard cannot know ModelConfig passes
    status, _, data = _status(capsys, "0.33.0", "--hf-overrides", '{"num_hidden_layers": 2}', "-tp", "0")
    assert (status, data["reason_kind"]) == (2, "undecidable")
