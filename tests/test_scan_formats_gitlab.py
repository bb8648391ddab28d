"""GitLab CI variables read as GitLab passes them to the job's shell (kvguard.scan.gitlab).

Expected launches are written by hand from GitLab's CI/CD YAML reference (``variables:expand``: with
``expand: false`` the value is a raw string, its ``$X`` not expanded) and its variables documentation ("use
``$$`` instead" for a ``$`` that is no reference; gitlab-org/gitlab#16442: ``A$$B/C`` reaches the job as
``A$B/C``), and gitlab-runner's ``JobVariables.ExpandValue`` (Go's ``os.Expand``, which takes ``${GPUS:-8}`` as
the name ``GPUS:-8``, not as a default).  The job's shell then expands ``$ARGS`` once: a ``$TP`` in its value stays as
written."""

from __future__ import annotations

import pytest

from kvguard.scan import find_launches

CASES = [
    ('  ARGS:\n    value: "-tp $TP"\n    expand: false\n', "vllm serve Qwen/Qwen3-8B $ARGS",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "$TP"]),
    ('  ARGS: "-tp $TP"\n', "vllm serve Qwen/Qwen3-8B $ARGS", ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "8"]),
    ('  LEN: "$$TP"\n', "vllm serve Qwen/Qwen3-8B -tp 2 --max-model-len $LEN",
     ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "$TP"]),
]


@pytest.mark.parametrize(("variables", "script", "tokens"), CASES)
def test_a_variable_as_gitlab_passes_it(tmp_path, variables, script, tokens):
    pipeline = tmp_path / ".gitlab-ci.yml"
    pipeline.write_text('variables:\n  TP: "8"\n' + variables +
                        "serve:\n  stage: deploy\n  script:\n    - " + script + "\n", encoding="utf-8")
    launches, skipped, _ = find_launches([str(pipeline)])
    assert skipped == [] and len(launches) == 1
    assert (launches[0].tokens, launches[0].unresolved) == (tokens, ())


def test_a_shell_default_in_a_variable_is_no_default_to_the_runner(tmp_path):
    pipeline = tmp_path / ".gitlab-ci.yml"
    pipeline.write_text('variables:\n  TP: "${GPUS:-8}"\nserve:\n  stage: deploy\n  script:\n'
                        "    - vllm serve Qwen/Qwen3-8B -tp $TP\n", encoding="utf-8")
    [launch] = find_launches([str(pipeline)])[0]
    assert launch.unresolved == ("TP",)
