"""--renderer-num-workers above 1 with the multimodal processor cache on (kvguard.launch.argv
_RENDERER_WORKERS_PROBLEM): vLLM 0.19.0-0.26.0's ModelConfig.__post_init__ refuses it right after building a
multimodal model's MultiModalConfig; 0.27.0+ refuses it for pooling runners only (not modelled: accepted for a
generating model, as the release does).  kvguard renders the refusal nowhere: undecidable for a multimodal model on
0.19.0-0.26.0.  What the releases answered (tools/option_sweep.py --pairs on Qwen3.5-35B-A3B, 0.20.0), by hand."""

from __future__ import annotations

import pytest

VL = "Qwen/Qwen2.5-VL-7B-Instruct"


def _reason(workers: int, version: str) -> str:
    return (f"--renderer-num-workers {workers} with the multimodal processor cache on: vLLM {version}'s ModelConfig "
            "refuses it for a multimodal model (a ValueError kvguard does not render)")


@pytest.mark.parametrize("version", ["0.19.0", "0.20.0", "0.26.0"])
@pytest.mark.parametrize(("args", "workers"), [
    (("--renderer-num-workers", "2"), 2),
    (("--renderer-num-workers", "2", "--mm-processor-cache-gb", "0.5"), 2),
    # the last --mm-processor-cache-gb counts
    (("--mm-processor-cache-gb", "0", "--renderer-num-workers", "3", "--mm-processor-cache-gb", "1"), 3),
])
def test_a_multimodal_model_is_undecidable(serve_json, version, args, workers):
    status, data = serve_json(version, *args, model=VL)
    assert (status, data["ok"], data["reason_kind"], data["reason"]) == (
        2, None, "undecidable", _reason(workers, version))


@pytest.mark.parametrize(("version", "model", "args"), [
    ("0.20.0", VL, ("--renderer-num-workers", "2", "--mm-processor-cache-gb", "0")),
    ("0.20.0", VL, ("--renderer-num-workers", "4", "--renderer-num-workers", "1")),
    ("0.20.0", "Qwen/Qwen3-8B", ("--renderer-num-workers", "2")),
    ("0.27.0", VL, ("--renderer-num-workers", "2")),
    ("0.33.0", VL, ("--renderer-num-workers", "2")),
])
def test_what_is_accepted(serve_json, version, model, args):
    status, data = serve_json(version, *args, model=model)
    assert (status, data["ok"]) == (0, True)
