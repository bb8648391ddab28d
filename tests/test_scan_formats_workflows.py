"""GitHub workflows: a ``run:`` step runs in the shell its ``shell`` key names (GitHub's "jobs.<job_id>.steps
[*].shell" and "defaults.run"): ``python`` (or ``python {0}``) runs the script as Python."""

from __future__ import annotations

from kvguard.scan import find_launches

_WORKFLOW = """name: serve
on: push
jobs:
  serve:
    runs-on: ubuntu-latest
    steps:
      - name: launch from python
        shell: python
        run: |
          import subprocess
          subprocess.run(["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"])
      - run: vllm serve Qwen/Qwen3-8B -tp 2 -dcp 3
  other:
    runs-on: ubuntu-latest
    defaults:
      run:
        shell: python {0}
    steps:
      - run: |
          import os
          os.system("vllm serve Qwen/Qwen3-8B -tp 5")
      - shell: bash
        run: vllm serve Qwen/Qwen3-8B -tp 6
"""


def test_a_python_step_is_read_as_python_and_a_shell_step_as_shell(tmp_path):
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    path = workflows / "serve.yml"
    path.write_text(_WORKFLOW)
    launches = find_launches([str(path)])[0]
    assert [(launch.line, launch.tokens) for launch in launches] == [
        (11, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "3"]),
        (12, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "-dcp", "3"]),
        (21, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "5"]),
        (23, ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "6"])]


_ERREXIT_WORKFLOW = """name: serve
on: push
jobs:
  default-shell:
    runs-on: ubuntu-latest
    steps:
      - run: |
          MODE=dev
          [ "$MODE" = prod ]
          vllm serve Qwen/Qwen3-8B -tp 2
      - shell: bash
        run: |
          MODE=dev
          [ "$MODE" = prod ] || true
          vllm serve Qwen/Qwen3-8B -tp 3
  own-shell:
    runs-on: [self-hosted, linux]
    steps:
      - shell: bash {0}
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 4
      - shell: sh -e {0}
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 5
  windows:
    runs-on: windows-latest
    steps:
      - shell: bash
        run: |
          false
          vllm serve Qwen/Qwen3-8B -tp 6
"""


def test_a_shell_step_runs_with_set_e_as_github_runs_it(tmp_path):
    """GitHub runs ``bash -e {0}`` (no shell named), ``bash --noprofile --norc -eo pipefail {0}`` (``bash``),
    ``sh -e {0}``: a command kvguard knows fails ends the step, whose launches below never run; a shell command of
    the workflow's own without ``-e`` goes on, as does a Windows runner's step, whose shell kvguard does not read
    there."""
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    path = workflows / "serve.yml"
    path.write_text(_ERREXIT_WORKFLOW)
    assert [launch.tokens[-1] for launch in find_launches([str(path)])[0]] == ["3", "4", "6"]
