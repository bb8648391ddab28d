"""The differential tier as a pytest test: kvguard vs the real release, on generated inputs.

Runs for every release in KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0") whose
oracle exists under KVG_ORACLE_ROOT (tools/oracle_env.py ensure or
tools/oracle_venv.sh builds them; see differential.oracle_command).
Without oracles the tests skip — unless KVG_REQUIRE_ORACLE=1 (as in .ci/run),
which turns a missing oracle into a failure.  Size: KVG_DIFF_CONFIGS x
KVG_DIFF_LAYOUTS per release and environment (default 12 x 20).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ._oracle import oracle_or_skip as _python
from ._oracle import release_sample
from .differential import catalog_cases, compare, generate, run_oracle

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()
ENVS = [{}, {"VLLM_MLA_DISABLE": "1"}]


@pytest.mark.parametrize("env", ENVS, ids=["default", "mla-disabled"])
@pytest.mark.parametrize("version", VERSIONS)
def test_agrees_with_real_vllm(version, env):
    python, python_env = _python(version)
    n_configs = int(os.environ.get("KVG_DIFF_CONFIGS", "12"))
    n_layouts = int(os.environ.get("KVG_DIFF_LAYOUTS", "20"))
    seed = int(os.environ.get("KVG_DIFF_SEED", "7")) + (1 if env else 0)
    cases = generate(seed, n_configs, n_layouts, version=version)
    report = compare(version, cases, run_oracle(python, cases, env, python_env=python_env), env)
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        name = f"differential-{version}-{'mla-off' if env else 'default'}.json"
        (Path(out) / name).write_text(json.dumps(report, indent=1, default=str))
    counts = report["counts"]
    print(f"\nvLLM {version} {env or ''}: {counts}")
    assert counts.get("layouts", 0) > 0
    # configs the oracle host could not inspect are not compared: keep them rare
    assert counts.get("oracle_env_failures", 0) <= max(1, n_configs // 10), report["oracle_host_failures"]
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


# transformers 5 releases: the first, 0.28.0 (the per-layer conversion) and the last
@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.24.0", also=("0.28.0",)))
def test_per_layer_configs_agree(version):
    """Heterogeneous configs (transformers 5's per_layer_config; Gemma 4, whose text config is one): refused
    where a release reads a varying attribute off the whole config, converted layer by layer from 0.28.0
    (families opted into the generator; the full runs are tests/upstream/differential.py --families)."""
    python, python_env = _python(version)
    cases = generate(int(os.environ.get("KVG_DIFF_SEED", "7")) + 2, int(os.environ.get("KVG_PER_LAYER_CONFIGS", "9")),
                     6, version=version, families=["gemma4_text", "gemma4", "per_layer"])
    report = compare(version, cases, run_oracle(python, cases, {}, python_env=python_env), {})
    print(f"\nvLLM {version} per-layer: {report['counts']}")
    assert report["counts"].get("agree", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


# the registry's order changes with nearly every release; the golden case b-unsupported-architecture has
# each group release's list, this samples the generated inputs
@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.10.2", also=("0.17.1", "0.24.0", "0.28.0")))
def test_unregistered_architectures_agree(version):
    """Architectures the release does not register (made up, registered only by newer releases, retired, a
    registered one among them): refused by name with the registry's own list, or accepted
    (families opted into the generator; the full runs are tests/upstream/differential.py --families)."""
    python, python_env = _python(version)
    cases = generate(int(os.environ.get("KVG_DIFF_SEED", "7")) + 3,
                     int(os.environ.get("KVG_UNREGISTERED_CONFIGS", "10")), 2, version=version,
                     families=["unregistered"])
    report = compare(version, cases, run_oracle(python, cases, {}, python_env=python_env), {})
    print(f"\nvLLM {version} unregistered: {report['counts']}")
    assert report["counts"].get("model_refusals", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


#: model types whose transformers 5 (or vLLM) configuration classes kvguard follows with their own named steps
TRANSFORMERS5_FAMILIES = ["exaone4", "exaone_moe", "ministral3", "minicpm3", "lfm2", "gemma3n", "granite_swa",
                          "cohere2_moe", "deepseek_v41", "hy_v4", "smollm3", "olmo3"]


@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.24.0", also=("0.30.0",)))
def test_transformers5_model_types_agree(version):
    """EXAONE 4, Ministral 3, MiniCPM3, LFM2, Gemma 3n, Granite SWA, Cohere2-MoE, DeepSeek-V4.1 …: their classes'
    layer types, defaults and refusals decide the layout and the KV facts (families opted into the generator; the
    full runs are tests/upstream/differential.py --families)."""
    python, python_env = _python(version)
    cases = generate(int(os.environ.get("KVG_DIFF_SEED", "7")) + 5, int(os.environ.get("KVG_T5_CONFIGS", "18")), 4,
                     version=version, families=TRANSFORMERS5_FAMILIES)
    report = compare(version, cases, run_oracle(python, cases, {}, python_env=python_env), {})
    print(f"\nvLLM {version} transformers 5 model types: {report['counts']}")
    assert report["counts"].get("agree", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


@pytest.mark.parametrize("version", release_sample(VERSIONS, "0.24.0", also=("0.28.0",)))
def test_catalog_checkpoints_agree(version):
    """The built-in catalog's config.json files as published, unchanged, on generated layouts: the models
    operators launch by name (the full runs: tests/upstream/differential.py --catalog)."""
    python, python_env = _python(version)
    cases = catalog_cases(int(os.environ.get("KVG_DIFF_SEED", "7")) + 4, 3, version=version)
    report = compare(version, cases, run_oracle(python, cases, {}, python_env=python_env), {})
    print(f"\nvLLM {version} catalog: {report['counts']}")
    assert report["counts"].get("agree", 0) > 0
    assert report["counts"].get("oracle_env_failures", 0) <= 15, report["oracle_host_failures"]
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


@pytest.mark.parametrize("version", VERSIONS[:1] + VERSIONS[-1:] if len(VERSIONS) > 1 else VERSIONS)
def test_oracle_shortcuts_change_no_answer(version):
    """CI runs the oracle with KVG_ORACLE_INSPECT=inprocess and KVG_ORACLE_TORCHVISION=stub
    (oracle_runner.inspect_in_process / stub_torchvision).  On a sample, the oracle's raw records
    equal those of vLLM's own subprocess inspection without the stand-in — except the configs the
    plain host fails to inspect (torchvision missing), which only the stand-in lets through."""
    python, python_env = _python(version)
    cases = generate(11, 6, 4, version=version)  # each architecture costs the plain host a subprocess (~15 s)
    plain = run_oracle(python, cases, {}, python_env=dict(python_env, KVG_ORACLE_INSPECT="subprocess",
                                                          KVG_ORACLE_TORCHVISION="none"))
    fast = run_oracle(python, cases, {}, python_env=dict(python_env, KVG_ORACLE_INSPECT="inprocess",
                                                         KVG_ORACLE_TORCHVISION="stub"))
    assert len(plain) == len(fast) == len(cases)
    host_failures = [p["id"] for p in plain if "failed to be inspected" in (p.get("message") or "")]
    assert [f for f in fast if "failed to be inspected" in (f.get("message") or "")] == []

    def answer(record: dict) -> dict:  # the checkpoint's temporary directory differs from run to run
        return {key: value for key, value in record.items() if key != "model_path"}

    assert ([answer(f) for f in fast if f["id"] not in host_failures]
            == [answer(p) for p in plain if p["id"] not in host_failures])
    assert len(host_failures) < len(cases)
