"""kvguard's pytest plugin (``kvguard_check`` fixture, ``launches_under``), run through pytester."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

pytest_plugins = ["pytester"]

HERE = os.path.dirname(__file__)
EXAMPLE = os.path.join(HERE, "..", "docs", "deployment-example")


def _plugin_args() -> list[str]:
    """``-p kvguard.pytest_plugin`` unless the installed entry point already loads it."""
    from importlib.metadata import entry_points
    try:
        eps = entry_points(group="pytest11")
    except TypeError:  # Python < 3.10 API
        eps = entry_points().get("pytest11", [])
    if any(ep.value == "kvguard.pytest_plugin" for ep in eps):
        return []
    return ["-p", "kvguard.pytest_plugin"]


def _run(pytester, *args):
    return pytester.runpytest_inprocess(*_plugin_args(), "-p", "no:cacheprovider", *args)


def test_entry_point_declared():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(HERE, "..", "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)["project"]
    assert project["entry-points"]["pytest11"] == {"kvguard": "kvguard.pytest_plugin"}
    assert project["optional-dependencies"]["yaml"] == ["pyyaml"]


def test_pass_and_fail_with_vllm_message(pytester):
    pytester.makepyfile(test_layouts="""
        def test_mla_full_dcp(kvguard_check):
            verdict = kvguard_check("vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8", vllm_version="0.28.0")
            assert verdict.ok and verdict.vllm_version == "0.28.0"

        def test_dcp_does_not_divide_tp(kvguard_check):
            kvguard_check("vllm serve Qwen/Qwen3-32B -tp 8 -dcp 3", vllm_version="0.28.0")

        def test_gqa_dcp_needs_tp_above_kv_heads(kvguard_check):
            kvguard_check(["vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"], vllm_version="0.20.0")
    """)
    result = _run(pytester)
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "ValueError: tp_size=8 must be divisible by dcp_size=3." in out
    # 0.20.0: the assert in verify_with_parallel_config (README's table), wrapped by VllmConfig
    assert "AssertionError: tensor parallel size 8 must be greater than total num kv heads 8" in out
    assert "1 validation error for VllmConfig" in out


def test_undecidable_fails_or_skips(pytester):
    pytester.makepyfile(test_unknown="""
        def test_unknown_model(kvguard_check):
            kvguard_check("vllm serve no-such-org/no-such-model -tp 2", vllm_version="0.28.0")

        def test_unknown_model_skipped(kvguard_check):
            kvguard_check("vllm serve no-such-org/no-such-model -tp 2", vllm_version="0.28.0",
                          undecidable="skip")

        def test_model_config_and_host(kvguard_check, tmp_path):
            import json
            import kvguard
            from kvguard.catalog import lookup
            cfg = tmp_path / "config.json"
            cfg.write_text(json.dumps(lookup("Qwen/Qwen3-32B").config))
            # Qwen3-32B: 8 KV heads, -tp 16 -dcp 2 is legal; 16 GPUs on the node
            v = kvguard_check("vllm serve my-model -tp 16 -dcp 2", vllm_version="0.28.0",
                              model_config=str(cfg), host=kvguard.Host.standard(gpus_per_node=16))
            assert v.ok
    """)
    result = _run(pytester, "-rs")
    out = result.stdout.str()
    result.assert_outcomes(failed=1, skipped=1, passed=1)
    assert "kvguard cannot decide: cannot find a config.json for 'no-such-org/no-such-model'" in out


def test_launches_under_ids_and_failures(pytester):
    shutil.copytree(os.path.join(HERE, "data", "scan", "synthetic"), pytester.path / "deploy")
    pytester.makepyfile(test_repo="""
        import pathlib
        import pytest
        from kvguard.pytest_plugin import launches_under

        @pytest.mark.parametrize("launch", launches_under(pathlib.Path(__file__).parent / "deploy"))
        def test_launch(kvguard_check, launch):
            kvguard_check(launch, vllm_version="0.28.0")
    """)
    result = _run(pytester, "-v")
    out = result.stdout.str()
    # 15 launches (see tests/test_scan.py): 7 accepted, 6 refused, 2 undecidable
    result.assert_outcomes(passed=7, failed=8)
    assert "test_launch[launch.sh:7]" in out and "test_launch[guide.md:6]" in out
    assert "vLLM 0.28.0 refuses this launch (" in out and "compose.yaml:4" in out
    assert "ValueError: PCP does not support data parallelism yet." in out


def test_deployment_example_runs(pytester):
    shutil.copytree(EXAMPLE, pytester.path / "example")
    result = _run(pytester, str(pytester.path / "example" / "test_launches.py"), "-v")
    out = result.stdout.str()
    result.assert_outcomes(passed=3)
    assert "test_launch_starts[launch.sh:10]" in out
    assert "test_launch_starts[k8s/qwen3-32b.yaml:18]" in out


def test_deployment_example_scans_clean(capsys):
    from kvguard.cli import EXIT_ACCEPT, run
    status = run(["scan", "--vllm-version", "0.28.0", EXAMPLE])
    out = capsys.readouterr().out
    assert status == EXIT_ACCEPT
    # launch.sh, the manifest and test_launches.py (a Python file that names vLLM, and starts nothing)
    assert "2 launch(es) found in 4 file(s): 2 checked (2 accepted, 0 refused), 0 undecidable" in out


def test_plugin_module_is_not_imported_by_kvguard():
    import subprocess
    code = "import sys, kvguard; print('kvguard.pytest_plugin' in sys.modules, 'pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# ----------------------------------------------------------------- launches_under: missing and empty paths


def test_launches_under_refuses_a_missing_or_empty_path(tmp_path):
    from kvguard.pytest_plugin import launches_under

    with pytest.raises(FileNotFoundError, match="no such file or directory"):
        launches_under(tmp_path / "deploy-typo")
    (tmp_path / "README.md").write_text("# Nothing to launch here\n\n```bash\necho hello\n```\n")
    with pytest.raises(ValueError, match=r"no `vllm serve` launch found in 1 file\(s\) read.*allow_empty=True"):
        launches_under(tmp_path)
    assert launches_under(tmp_path, allow_empty=True) == []
    assert launches_under(tmp_path / "README.md", allow_empty=True) == []


def test_launches_under_a_mistyped_directory_is_a_collection_error(pytester):
    pytester.makepyfile(test_repo="""
        import pytest
        from kvguard.pytest_plugin import launches_under

        @pytest.mark.parametrize("launch", launches_under("deploy-typo/"))
        def test_launch(kvguard_check, launch):
            kvguard_check(launch, vllm_version="0.28.0")
    """)
    result = _run(pytester)
    assert result.ret != 0                              # not "no tests ran" and green
    result.assert_outcomes(errors=1)
    assert "launches_under('deploy-typo/'): no such file or directory" in result.stdout.str()


def _readme_plugin_example() -> str:
    with open(os.path.join(HERE, "..", "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index("<!-- pytest-plugin-example")
    block = text[text.index("```python", start) + len("```python"):text.index("```\n", text.index("```python", start))]
    return "\n".join(line[2:] if line.startswith("  ") else line for line in block.splitlines())


def test_readme_plugin_example_runs(pytester):
    # the README's example: variables=, undecidable="skip" and an asserted refusal
    deploy = pytester.path / "deploy"
    deploy.mkdir()
    (deploy / "serve.sh").write_text("vllm serve deepseek-ai/DeepSeek-R1 -tp $GPUS -dcp 8\n"
                                     "vllm serve no-such-org/private-model -tp $GPUS\n")
    pytester.makepyfile(test_readme=_readme_plugin_example())
    result = _run(pytester, "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    assert "cannot find a config.json for 'no-such-org/private-model'" in result.stdout.str()


def test_launch_without_version_uses_the_release_its_file_pins(pytester):
    deploy = pytester.path / "deploy"
    deploy.mkdir()
    (deploy / "Dockerfile").write_text('FROM vllm/vllm-openai:v0.20.0\n'
                                       'CMD ["Qwen/Qwen3-32B", "-tp", "8", "-dcp", "2"]\n')
    pytester.makepyfile(test_pins="""
        import pytest
        from kvguard.pytest_plugin import launches_under

        @pytest.mark.parametrize("launch", launches_under("deploy"))
        def test_launch(kvguard_check, launch):
            kvguard_check(launch)
    """)
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "vLLM 0.20.0 refuses this launch" in out
    assert "AssertionError: tensor parallel size 8 must be greater than total num kv heads 8" in out
