"""Markdown code blocks read as the kind of text they hold (kvguard.scan.markdown).

A ```` ```docker ```` block holds either a Dockerfile (its lines are Dockerfile instructions: the Dockerfile
reference) or the ``docker run`` commands a reader types into a shell; expected launches written by hand (``docker
run IMAGE ARGS`` gives ARGS to the vLLM image's ``vllm serve``)."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

CASES = [
    ("docker run --gpus all vllm/vllm-openai:v0.20.0 Qwen/Qwen3-8B -tp 2\n",
     [(4, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], True)]),
    ("FROM vllm/vllm-openai:v0.20.0\nENTRYPOINT []\nCMD vllm serve Qwen/Qwen3-8B -tp 2\n",
     [(6, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"], False)]),
]


@pytest.mark.parametrize(("block", "expected"), CASES)
def test_a_docker_block_is_read_as_what_it_holds(tmp_path, block, expected):
    readme = tmp_path / "README.md"
    readme.write_text("# Serving\n\n```docker\n" + block + "```\n", encoding="utf-8")
    launches, skipped, _ = find_launches([str(readme)])
    assert skipped == []
    assert [(launch.line, launch.tokens, launch.image_entrypoint) for launch in launches] == expected
