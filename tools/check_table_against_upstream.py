"""Compare kvguard's rule table with the upstream reading of every release group.

usage: python tools/check_table_against_upstream.py --variants VARIANTS_JSON

VARIANTS_JSON: the upstream reading of every release group's launch checks (read from the
release sources; not part of this repository).  For each group of releases in it:
the checks kvguard evaluates must appear in the same order, with the same
exception type and the same literal message text (placeholders aside).
Checks listed in NOT_MODELLED are excluded.  Exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from packaging.version import Version  # noqa: E402

from kvguard.rules import Check, FieldRule  # noqa: E402
from kvguard.rules.table import NOT_MODELLED, rows_for  # noqa: E402
from kvguard.versions import Release  # noqa: E402


def literals(template: str) -> list[str]:
    """The literal pieces of a template, braces nesting; '{{'/'}}' are literal braces."""
    out, cur, depth, i = [], [], 0, 0
    while i < len(template):
        if depth == 0 and template.startswith("{{", i):
            cur.append("{")
            i += 2
            continue
        if depth == 0 and template.startswith("}}", i):
            cur.append("}")
            i += 2
            continue
        ch = template[i]
        if ch == "{":
            if depth == 0:
                out.append("".join(cur))
                cur = []
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif depth == 0:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", required=True, help="the upstream reading of every release group (JSON)")
    args = ap.parse_args(argv)
    data = json.loads(Path(args.variants).read_text())
    skip = {cid for cid, *_ in NOT_MODELLED}
    problems = 0
    for gid, group in data.items():
        for version in group["versions"]:
            release = Release(Version(version))
            ours = [row for row in rows_for(release) if isinstance(row, (Check, FieldRule))]
            upstream = [c for c in group["checks"] if c["id"] not in skip]
            # field constraints are one row here, one per field upstream
            up_ids = []
            for c in upstream:
                cid = "FIELD" if c["id"].startswith("FIELD_") else c["id"]
                if not up_ids or up_ids[-1] != cid:
                    up_ids.append(cid)
            our_ids = [r.id for r in ours if not (isinstance(r, FieldRule) and r.until == "0.22.1")]
            if our_ids != up_ids:
                problems += 1
                print(f"{gid} {version}: order differs\n  upstream: {up_ids}\n  kvguard:  {our_ids}")
            by_id = {c["id"]: c for c in upstream}
            for row in ours:
                if not isinstance(row, Check) or row.id not in by_id:
                    continue
                up = by_id[row.id]
                if up["exc_type"] != row.exc:
                    problems += 1
                    print(f"{gid} {version} {row.id}: exception {row.exc} vs upstream {up['exc_type']}")
                if literals(up["template"]) != literals(row.template):
                    problems += 1
                    print(f"{gid} {version} {row.id}: template differs\n  upstream: {up['template']!r}\n"
                          f"  kvguard:  {row.template!r}")
    print("table matches the upstream reading" if not problems else f"{problems} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
