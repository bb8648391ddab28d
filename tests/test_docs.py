"""Generated documentation stays current."""

from pathlib import Path

from kvguard.rules.reference import render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_rules_reference_is_current():
    on_disk = (ROOT / "docs" / "rules.md").read_text()
    assert on_disk == render_markdown(), "docs/rules.md is stale: run python tools/gen_rules_doc.py"


def _doc_and_code_files():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "kvguard").rglob("*.py")),
                 *sorted((ROOT / "kvguard").rglob("*.md"))]:
        yield path


def test_docs_and_code_comments_name_no_path_outside_the_repository():
    """A clone has no ../shared or /work: the README, docs/ and kvguard's comments must not send
    a reader there."""
    import re

    outside = re.compile(r"\.\./shared|/work/|shared/upstream|shared/corpora")
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in _doc_and_code_files()
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if outside.search(line)]
    assert not found, "\n".join(found)


def test_readme_usage_lines_list_every_format():
    import argparse
    import re

    from kvguard.cli import _parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("check", "scan"):
        formats = next(a.choices for a in sub.choices[command]._actions if a.dest == "format")
        usage = re.search(rf"^kvguard {command} \[.*?(?=^```)", readme, re.M | re.S).group(0)
        assert f"[--format {'|'.join(formats)}]" in usage, (command, usage)
