"""Regenerate docs/rules.md from the rule table (the test suite checks it is current)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvguard.rules.reference import render_markdown  # noqa: E402

if __name__ == "__main__":
    (ROOT / "docs" / "rules.md").write_text(render_markdown())
    print("wrote docs/rules.md")
