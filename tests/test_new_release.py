"""docs/new-release.md is true: each of its steps left its mark for the newest release of the manifest.

The page's steps (``<!-- step: name -->``) and this file's checks are the same set, so a step added to
the page without a check here, or a check without a step, fails too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from kvguard.rules.reference import render_markdown
from kvguard.rules.table import rows_for
from kvguard.versions import KNOWN_RELEASES, PATCHES, RELEASES, resolve

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "new-release.md"
NEWEST = RELEASES[-1]
PREVIOUS = RELEASES[-2]


def _json(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def _rows(version: str) -> list[str]:
    return [row.id for row in rows_for(resolve(version))]


def check_review() -> None:
    # tools/new_release.py compares with the manifest's newest release by default
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "new_release.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert f"the newest of the manifest, {NEWEST.version}" in " ".join(out.split()), out


def check_manifest() -> None:
    doc = _json("kvguard/data/releases.json")
    assert doc["schema"] == "kvguard.releases/1"
    assert doc["releases"][-1]["version"] == NEWEST.version
    assert KNOWN_RELEASES[-1] == NEWEST.version
    from packaging.version import Version
    versions = [Version(row.version) for row in RELEASES]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    for row in RELEASES:
        assert SpecifierSet(row.transformers_requirement).contains(row.transformers, prereleases=True), row
    assert NEWEST.launch_checks in (PREVIOUS.launch_checks, f"V{int(PREVIOUS.launch_checks[1:]) + 1:02d}")
    for label, (bases, _, _) in PATCHES.items():
        assert set(bases) <= set(KNOWN_RELEASES), label


def check_rules() -> None:
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == render_markdown(), \
        "docs/rules.md is stale: python tools/gen_rules_doc.py"
    if NEWEST.launch_checks == PREVIOUS.launch_checks:
        assert _rows(NEWEST.version) == _rows(PREVIOUS.version)


def check_options() -> None:
    assert NEWEST.version in _json("kvguard/data/serve_options.json")["versions"]


def check_registry() -> None:
    assert NEWEST.version in _json("kvguard/data/archs.json")["releases"]
    facts = _json("kvguard/data/facts/vllm.json")["releases"]
    assert NEWEST.version in facts
    assert (ROOT / "kvguard" / "data" / "facts" / f"transformers-{NEWEST.transformers}.json").is_file()


def check_differential() -> None:
    spans = _json("kvguard/data/facts/verified.json")["model_types"]
    assert any(resolve(NEWEST.version).within(first, last) for ranges in spans.values() for first, last in ranges), \
        f"verified.json verifies no model type for {NEWEST.version}"


def check_golden() -> None:
    assert list((ROOT / "tests" / "cases" / NEWEST.version).glob("*.json")), "no golden cases recorded"


def check_changelog() -> None:
    assert NEWEST.version in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert NEWEST.version in (ROOT / "README.md").read_text(encoding="utf-8")


CHECKS = {name[len("check_"):]: fn for name, fn in globals().items() if name.startswith("check_")}
STEPS = re.findall(r"<!-- step: (\w+) -->", PAGE.read_text(encoding="utf-8"))


def test_the_page_and_this_test_name_the_same_steps_in_order():
    assert sorted(STEPS) == sorted(CHECKS) and len(STEPS) == len(set(STEPS))
    assert STEPS == list(CHECKS), "keep the checks in the page's order"


@pytest.mark.parametrize("step", STEPS)
def test_the_newest_release_went_through_the_step(step):
    CHECKS[step]()


def test_one_ci_release_per_launch_check_group_and_groups_are_contiguous():
    groups: dict[str, list[str]] = {}
    for row in RELEASES:
        if row.launch_checks in groups:
            assert list(groups)[-1] == row.launch_checks, f"{row.version}: group {row.launch_checks} is not contiguous"
        groups.setdefault(row.launch_checks, []).append(row.version)
    for group, versions in groups.items():
        assert sum(resolve(v).info.ci for v in versions) == 1, group


@pytest.mark.parametrize("version", [row.version for row in RELEASES])
def test_releases_of_one_launch_check_group_see_the_same_rule_rows(version):
    first = next(row for row in RELEASES if row.launch_checks == resolve(version).info.launch_checks)
    assert _rows(version) == _rows(first.version)


def test_ci_builds_the_manifests_ci_releases():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'kvguard/data/releases.json' in ci and '["ci"]' in ci
    assert not re.search(r"0\.\d+\.\d+ 0\.\d+\.\d+", ci), ".ci/run lists releases itself"
