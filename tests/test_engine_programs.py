"""The engine's program variants: a launch that gives none of an option-only row's options (Row.options) runs a
program without that row, a launch without speculative decoding one without the rows that need a draft
(Row.needs_draft), and its verdict is the one the whole program gives."""

from __future__ import annotations

import pytest

from kvguard.front import examine
from kvguard.launch.layout import Host, Layout
from kvguard.rules import engine
from kvguard.rules.table import RULES
from kvguard.versions import resolve

HOST = Host.cuda_node()


def test_the_options_of_option_only_rows_are_layout_fields():
    assert engine._OPTION_FIELDS <= set(Layout.model_fields)
    assert {"collect_detailed_traces", "ray_workers_use_nsight", "mamba_ssu_algorithm"} <= engine._OPTION_FIELDS


def test_the_rows_that_need_a_draft():
    drafts = {row.id for row in RULES if row.needs_draft}
    # by their stage, and by name where the stage is shared with rows every launch runs
    assert {"SC_draft_tp", "EA_spec_draft_model", "VC_async_spec", "VC_mtp_interleave"} <= drafts
    assert not {"PC_gpu_count", "VC_mamba_stochastic_rounding", "EA_mamba_backend_unknown"} & drafts


LAUNCHES = [
    ("0.33.0", ["Qwen/Qwen3-32B", "-tp", "8"]),
    ("0.33.0", ["Qwen/Qwen3-32B", "-tp", "8", "--collect-detailed-traces", "all"]),
    ("0.33.0", ["Qwen/Qwen3-32B", "--ray-workers-use-nsight"]),
    ("0.33.0", ["Qwen/Qwen3-32B", "--numa-bind-cpus", "3-1", "--numa-bind"]),
    ("0.33.0", ["Qwen/Qwen3-32B", "--enable-log-outputs", "-tp", "3"]),
    ("0.28.0", ["Qwen/Qwen3-32B", "--enable-mamba-cache-stochastic-rounding"]),
    ("0.20.0", ["deepseek-ai/DeepSeek-R1", "-tp", "8", "-dcp", "8", "--mamba-backend", "x"]),
    ("0.11.1", ["Qwen/Qwen3-32B", "--show-hidden-metrics-for-version", "x", "-dp", "3"]),
    ("0.10.2", ["Qwen/Qwen3-32B", "-tp", "16"]),
]


def _answer(version: str, argv: list[str]):
    return examine(version, ["vllm", "serve", *argv], host=HOST).verdict


@pytest.mark.parametrize(("version", "argv"), LAUNCHES)
def test_the_variant_answers_as_the_whole_program(monkeypatch, version, argv):
    gated = _answer(version, argv)
    # every field counts as an option-only row's: the whole program runs for every launch
    monkeypatch.setattr(engine, "_OPTION_FIELDS", frozenset(Layout.model_fields))
    whole = _answer(version, argv)
    assert (gated.ok, gated.check, gated.exc_type, gated.message) == (whole.ok, whole.check, whole.exc_type,
                                                                      whole.message)


def test_a_launch_without_the_options_skips_their_rows():
    release = resolve("0.33.0")
    _calls, rows = engine._program(release, "serve")
    assert not [row.id for row in rows if row.options]
    _calls, rows = engine._program(release, "serve" + engine._WITH_OPTIONS)
    assert {"OBS_traces_without_endpoint", "PA_nsight_without_ray"} <= {row.id for row in rows}
