"""Generated documentation stays current."""

from pathlib import Path

from kvguard.rules.reference import render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_rules_reference_is_current():
    on_disk = (ROOT / "docs" / "rules.md").read_text()
    assert on_disk == render_markdown(), "docs/rules.md is stale: run python tools/gen_rules_doc.py"
