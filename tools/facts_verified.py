#!/usr/bin/env python3
"""Write kvguard/data/facts/verified.json — which model types the differential tier verified, per release.

usage:
  python tools/facts_verified.py TABLE.json [TABLE.json ...] [--min-configs 30] [--dry-run]

Each TABLE.json is what ``tools/hfconfig_oracle.py --json`` writes: {release: {model_type: {agree,
undecidable, mismatch, gap, ...}}}.  A model type counts as verified ("exact") for a release when that
release's run compared at least ``--min-configs`` generated configs of it, every one of them agreed with the
real vLLM + transformers (``agree``, errors included) — no mismatch, no gap, and at most a fifth undecidable
(kvguard declining, as vLLM needs remote code) — .  Consecutive verified releases (in
kvguard.versions.KNOWN_RELEASES order) are merged into ranges.  A model type the given tables did not run on a
release keeps its entry there from the existing verified.json (``--replace`` drops them).  kvguard reports a config of a verified
(model type, release) as ``emulation: exact``, any other as ``generic`` with a note.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
OUT = os.path.join(ROOT, "kvguard", "data", "facts", "verified.json")


def verified(tables, min_configs: int) -> dict[str, dict[str, int]]:
    """-> {model_type: {release: configs compared}}"""
    out: dict[str, dict[str, int]] = {}
    for table in tables:
        for rel, rows in table.items():
            for mt, r in rows.items():
                n = r["agree"] + r["undecidable"] + r["mismatch"] + r["gap"]
                ok = n >= min_configs and r["mismatch"] == 0 and r["gap"] == 0 and r["agree"] >= min_configs \
                    and r["undecidable"] * 5 <= n
                if ok:
                    out.setdefault(mt, {})[rel] = max(n, out.get(mt, {}).get(rel, 0))
    return out


def _existing() -> dict[str, list[list[str]]]:
    try:
        with open(OUT, encoding="utf-8") as f:
            return json.load(f)["model_types"]
    except FileNotFoundError:
        return {}


def ranges(releases, known) -> list[tuple[str, str]]:
    idx = sorted(known.index(r) for r in releases if r in known)
    out = []
    for i in idx:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [(known[a], known[b]) for a, b in out]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tables", nargs="+")
    ap.add_argument("--min-configs", type=int, default=30)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--replace", action="store_true",
                    help="forget what verified.json says for what these tables did not run")
    args = ap.parse_args(argv)
    from kvguard.versions import KNOWN_RELEASES
    tables = []
    for p in args.tables:
        with open(p) as f:
            tables.append(json.load(f))
    ver = verified(tables, args.min_configs)
    measured = {(rel, mt) for table in tables for rel, rows in table.items() for mt in rows}
    if not args.replace:
        # what these tables did not run (a model type on a release) keeps what verified.json says for it
        for mt, spans in _existing().items():
            for first, last in spans:
                for rel in KNOWN_RELEASES[KNOWN_RELEASES.index(first):KNOWN_RELEASES.index(last) + 1]:
                    if (rel, mt) not in measured:
                        ver.setdefault(mt, {})[rel] = args.min_configs
    table = {mt: [list(r) for r in ranges(rels, list(KNOWN_RELEASES))] for mt, rels in sorted(ver.items())}
    data = {"generator": "tools/facts_verified.py", "min_configs": args.min_configs,
            "source": "tools/hfconfig_oracle.py --n 40 runs against the real vLLM + transformers of each release",
            "model_types": table}
    text = json.dumps(data, indent=1, sort_keys=True)
    if args.dry_run:
        print(text)
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{len(table)} model types -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
