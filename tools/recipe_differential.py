"""The launches of a corpus of deployment files (default: the vLLM recipes beside the repository) through each
release's own ``vllm serve`` path, compared with kvguard's verdicts.

usage: python tools/recipe_differential.py [--vllm X ...] [--corpus DIR] [--report FILE.json]

``kvguard scan CORPUS --format json`` finds the launches; every distinct ``vllm serve MODEL …`` command line
whose model kvguard decides from its catalog runs through tests/upstream/serve_runner.py on the release's CPU
oracle (its parser, ``EngineArgs``, ``create_engine_config``) with the catalog's config.json, and through
kvguard with the oracle's host (``platform="cpu"``), as tests/upstream/test_speculative.compare_launches does.
The API server's flags that need a tokenizer (the oracle has none) are left out of both.  Disagreements of the
harness itself (a shell placeholder the scan kept, such as ``$PORT``; serve_runner's parser reading an unknown
option's value as its positional model) are counted as ``harness_artefacts``, not compared.

Prints one line per release and each disagreement; exit 1 on any.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the API server's flags that need the tokenizer the oracle does not have: name -> values it takes
FRONTEND_FLAGS = {"--reasoning-parser": 1, "--tool-call-parser": 1, "--enable-auto-tool-choice": 0,
                  "--chat-template": 1, "--tokenizer-mode": 1, "--reasoning-config": 1}


def without_frontend_flags(args: list[str]) -> list[str]:
    kept, index = [], 0
    while index < len(args):
        name, _, inline = args[index].partition("=")
        if name in FRONTEND_FLAGS:
            index += 1 + (0 if inline else FRONTEND_FLAGS[name])
            continue
        kept.append(args[index])
        index += 1
    return kept


def corpus_cases(corpus: str, root: str) -> list[dict]:
    """The distinct catalog-model launches kvguard decides in ``corpus``, as compare_launches cases."""
    from tests.upstream.test_speculative import _config

    scanned = subprocess.run([sys.executable, "-m", "kvguard", "scan", corpus, "--format", "json"],
                             capture_output=True, text=True, cwd=ROOT, check=False)
    if not scanned.stdout:
        raise SystemExit(f"kvguard scan wrote nothing (exit {scanned.returncode}): {scanned.stderr[-400:]}")
    cases, seen = [], set()
    for finding in json.loads(scanned.stdout)["findings"]:
        result = finding.get("result") or {}
        if finding["status"] not in ("accepted", "refused") or result.get("source") != "catalog":
            continue
        try:
            words = shlex.split(finding["command"])
        except ValueError:
            continue
        if words[:2] != ["vllm", "serve"] or len(words) < 3 or words[2].startswith("-"):
            continue
        model, args = words[2], without_frontend_flags(words[3:])
        if (model, tuple(args)) in seen:
            continue
        seen.add((model, tuple(args)))
        ident = f"r{len(cases)}"
        cases.append({"id": ident, "target": model, "config": _config(model), "args": args,
                      "model_dir": os.path.join(root, ident), "where": f"{finding['file']}:{finding['line']}"})
    return cases


def _artefact(mismatch: dict) -> bool:
    """A disagreement of the harness, not of kvguard: a shell placeholder the scan kept (``'$PORT'``), or an
    unknown option whose value serve_runner's parser (the API server's, given ``--model``) takes as its
    positional ``model_tag`` where ``vllm serve MODEL`` lists it among the unrecognized arguments, as kvguard
    does (tests/upstream/test_argv_differential.py runs the real ``vllm serve`` parser)."""
    refusal = mismatch["oracle"].get("argparse") or ""
    ours = (mismatch["kvguard"] or {}).get("argparse") or ""
    return "'$" in refusal or (refusal.startswith("unrecognized arguments: ") and ours.startswith(refusal + " "))


def main() -> int:
    import pytest  # noqa: F401  (the test modules' imports)

    from tests.upstream.differential import oracle_command
    from tests.upstream.test_speculative import compare_launches

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", nargs="*", help="releases (default: every built oracle)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "vllm-recipes"))
    parser.add_argument("--report", default=None)
    options = parser.parse_args()
    os.environ.setdefault("KVG_ORACLE_INSPECT", "inprocess")
    os.environ.setdefault("KVG_ORACLE_TORCHVISION", "stub")
    from kvguard.versions import SUPPORTED_VERSIONS

    versions = options.vllm or [v for v in SUPPORTED_VERSIONS if "+" not in v and oracle_command(v) is not None]
    root = tempfile.mkdtemp(prefix="kvg-recipes-")
    reports, failed = [], False
    try:
        cases = corpus_cases(options.corpus, root)
        where = {case["id"]: case["where"] for case in cases}
        print(f"{len(cases)} distinct decided launches in {options.corpus}")
        for version in versions:
            report = compare_launches(version, 0, cases)
            real = [m for m in report["mismatches"] if not _artefact(m)]
            report["harness_artefacts"] = len(report["mismatches"]) - len(real)
            counts = dict(report["counts"], harness_artefacts=report["harness_artefacts"], disagree=len(real))
            print(version, counts)
            for mismatch in real:
                failed = True
                print(f"  MISMATCH {where[mismatch['id']]}: {mismatch['target']} {' '.join(mismatch['args'])}")
                print(f"    oracle : {mismatch['oracle']}")
                print(f"    kvguard: {mismatch['kvguard']}")
            reports.append(report)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if options.report:
        Path(options.report).write_text(json.dumps(reports, indent=1, default=str))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
