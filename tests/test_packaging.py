"""kvguard installs as a package: `python -m build` gives an sdist and a wheel that hold every file
the package reads, the licence files and complete metadata, and the wheel alone runs the README's
main job (issue 10 item 17; `.ci/run` also installs the wheel into a fresh venv).

The build runs once per module on a copy of the repository (so no `build/` left over from an
earlier build can leak into the wheel), without build isolation (no network): `build` and a
setuptools new enough for the build backend are part of the `test` extra.
"""

from __future__ import annotations

import email
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.version import Version

import kvguard

ROOT = Path(__file__).resolve().parents[1]
# what `python -m build` needs to see of a clone; everything else of a clone is left out
_COPIED = ("pyproject.toml", "MANIFEST.in", "README.md", "LICENSE", "NOTICE", "CHANGELOG.md",
           ".pre-commit-hooks.yaml", "kvguard", "tests", "docs", "tools", "benchmarks")
_NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".hypothesis",
                                     ".pytest_cache", "build", "dist")


def _build_backend_missing() -> str:
    if importlib.util.find_spec("build") is None:
        return "the `build` package is not installed (pip install -e '.[test]')"
    try:
        setuptools_version = Version(metadata.version("setuptools"))
    except metadata.PackageNotFoundError:
        return "setuptools is not installed (pip install -e '.[test]')"
    if setuptools_version < Version("70.1"):
        return f"setuptools {setuptools_version} cannot build kvguard without isolation (pip install -e '.[test]')"
    return ""


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict:
    missing = _build_backend_missing()
    if missing:
        pytest.skip(missing)
    base = tmp_path_factory.mktemp("dist")
    tree = base / "kvguard-src"
    tree.mkdir()
    for name in _COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=_NOT_SOURCE)
        else:
            shutil.copy2(source, tree / name)
    out = base / "out"
    # sdist first, then the wheel built from the unpacked sdist (what `python -m build` does)
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = sorted(out.glob("*.whl"))
    sdists = sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    with zipfile.ZipFile(wheels[0]) as zf:
        wheel_names = set(zf.namelist())
        dist_info = next(n.split("/")[0] for n in wheel_names if n.split("/")[0].endswith(".dist-info"))
        meta = email.message_from_bytes(zf.read(f"{dist_info}/METADATA"))
        entry_points = zf.read(f"{dist_info}/entry_points.txt").decode()
    with tarfile.open(sdists[0]) as tf:
        sdist_names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    return {"wheel": wheels[0], "wheel_names": wheel_names, "dist_info": dist_info, "meta": meta,
            "entry_points": entry_points, "sdist": sdists[0], "sdist_names": sdist_names}


def _package_files_in_the_tree() -> set[str]:
    found = set()
    for folder, dirs, files in os.walk(ROOT / "kvguard"):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith((".pyc", ".pyo")):
                found.add((Path(folder) / name).relative_to(ROOT).as_posix())
    return found


def test_the_wheel_holds_every_file_of_the_package_tree(dist):
    in_tree = _package_files_in_the_tree()
    # the files the package reads at run time, named so that an empty walk cannot pass
    assert {"kvguard/py.typed", "kvguard/data/archs.json", "kvguard/data/serve_options.json",
            "kvguard/data/registry_order.json",
            "kvguard/data/transformers_exports.json", "kvguard/catalog/deepseek-ai--DeepSeek-R1.json",
            "kvguard/data/releases.json", "kvguard/data/facts/vllm.json",
            "kvguard/data/facts/transformers-4.57.6.json", "kvguard/data/facts/transformers-5.24.0.json",
            "kvguard/rules/table.py"} <= in_tree
    missing = sorted(in_tree - dist["wheel_names"])
    assert missing == [], f"files of kvguard/ left out of the wheel (extend package-data): {missing}"
    strays = sorted(n for n in dist["wheel_names"]
                    if not n.startswith(("kvguard/", dist["dist_info"] + "/")) or "__pycache__" in n)
    assert strays == []


def test_a_new_subdirectory_of_data_is_packaged_without_an_edit(dist, tmp_path):
    """A file in a new subdirectory of kvguard/data (e.g. data/facts/) is packaged without a
    pyproject edit (package-data globs `data/**/*.json`, `data/**/*.md`, and MANIFEST.in's
    `graft kvguard`): build a wheel of a copy with such files added."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "kvguard", tree / "kvguard", ignore=_NOT_SOURCE)
    for name in ("pyproject.toml", "MANIFEST.in", "README.md", "LICENSE", "NOTICE"):
        shutil.copy2(ROOT / name, tree / name)
    (tree / "kvguard/data/facts/heads").mkdir(parents=True)
    (tree / "kvguard/data/facts/heads/0.28.0.json").write_text("{}\n")
    (tree / "kvguard/data/facts/README.md").write_text("# facts\n")
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir",
                           str(tmp_path / "out"), str(tree)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = (tmp_path / "out").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "kvguard/data/facts/heads/0.28.0.json" in names
    assert "kvguard/data/facts/README.md" in names


def test_the_wheel_and_the_sdist_carry_the_licence_files(dist):
    assert f"{dist['dist_info']}/licenses/LICENSE" in dist["wheel_names"]
    assert f"{dist['dist_info']}/licenses/NOTICE" in dist["wheel_names"]
    assert {"LICENSE", "NOTICE", "README.md", "CHANGELOG.md", "pyproject.toml", "PKG-INFO",
            ".pre-commit-hooks.yaml"} <= dist["sdist_names"]
    # the sdist is the source: its tests with their data, docs and tools come along
    assert {"tests/test_packaging.py", "tests/conftest.py", "tests/cases/0.28.0/b-a2a.json",
            "docs/rules.md", "tools/new_release.py", "kvguard/data/archs.json"} <= dist["sdist_names"]
    assert not [n for n in dist["sdist_names"] if "__pycache__" in n or n.endswith(".pyc")]


def test_the_wheel_metadata_is_complete(dist):
    meta = dist["meta"]
    assert meta["Name"] == "kvguard"
    assert meta["Version"] == kvguard.__version__ == metadata.version("kvguard")
    assert "vllm serve" in meta["Summary"]
    assert meta["License-Expression"] == "Apache-2.0"
    assert sorted(meta.get_all("License-File")) == ["LICENSE", "NOTICE"]
    assert meta["Requires-Python"] == ">=3.10"
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().startswith("# kvguard\n")      # the README is the long description
    classifiers = meta.get_all("Classifier")
    for expected in ("Programming Language :: Python :: 3.10", "Programming Language :: Python :: 3.13",
                     "Framework :: Pytest", "Typing :: Typed", "Environment :: Console"):
        assert expected in classifiers
    assert sorted(meta.get_all("Provides-Extra")) == ["hub", "test", "transformers", "yaml"]
    requires = meta.get_all("Requires-Dist")
    assert "pydantic>=2" in requires and "packaging" in requires
    assert 'pyyaml; extra == "yaml"' in requires and 'huggingface_hub; extra == "hub"' in requires
    assert 'transformers>=4.57; extra == "transformers"' in requires   # the optional real backend
    assert "kvguard = kvguard.cli:main" in dist["entry_points"]
    assert "kvguard = kvguard.pytest_plugin" in dist["entry_points"]


def test_the_unpacked_wheel_alone_runs_the_readme_main_job(dist, tmp_path):
    """The wheel's files, and nothing of the clone, answer the README's main job (exit 0)."""
    site = tmp_path / "site"
    zipfile.ZipFile(dist["wheel"]).extractall(site)
    code = ("import sys, kvguard\n"
            f"assert kvguard.__file__.startswith({str(site)!r}), kvguard.__file__\n"
            "from kvguard.cli import run\n"
            "sys.exit(run(['check', '--', 'vllm', 'serve', 'deepseek-ai/DeepSeek-R1',"
            " '-tp', '8', '-dcp', '8']))\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ACCEPT"), proc.stdout
    assert "deepseek-ai/DeepSeek-R1" in proc.stdout
