#!/usr/bin/env python3
"""Which names are transformers classes, per transformers line.

vLLM's model registry, asked for an architecture it does not register, first tries
the Transformers backend: ``getattr(transformers, arch, None)``
(``_try_resolve_transformers`` in vllm/model_executor/models/registry.py).  Only when
that fails does it refuse the architecture (retired: "was supported in vLLM until …",
"is not supported in-tree anymore …"; any other: "are not supported for now").  kvguard
needs the answer of that ``getattr`` for any architecture a config may name; this records,
from the real transformers of each line kvguard models (the base envs of
tools/oracle_env.py), every class-like public name (``dir(transformers)``, first letter
upper case) and the retired names of kvguard/data/archs.json: ``names`` (sorted) and, per
line, ``absent``: the indexes of the names that line lacks.  A class-like name not in
``names`` is no attribute of any line.

usage: python tools/transformers_exports.py [--root ORACLE_ROOT]   # rewrites kvguard/data/transformers_exports.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "kvguard" / "data" / "transformers_exports.json"
PROBE = ("import json, sys, transformers; names = json.load(sys.stdin); "
         "print(json.dumps(sorted({n for n in dir(transformers) if n[:1].isupper()} "
         "| {n for n in names if getattr(transformers, n, None) is not None})))")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle")))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from packaging.version import Version

    from kvguard.versions import KNOWN_RELEASES, Release

    data = json.loads((ROOT / "kvguard" / "data" / "archs.json").read_text())
    names = sorted(set(data["previously_supported"]) | set(data["oot_supported"]))
    lines = sorted({Release(Version(str(v))).transformers for v in KNOWN_RELEASES}, key=Version)
    present: dict[str, set[str]] = {}
    for line in lines:
        python = Path(args.root) / f"base-tf{line}" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"no base env for transformers {line} under {args.root} "
                             f"(python tools/oracle_env.py ensure a release of that line)")
        proc = subprocess.run([str(python), "-c", PROBE], input=json.dumps(names), capture_output=True,
                              text=True, check=True)
        present[line] = set(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(f"transformers {line}: {len(present[line])} class-like names, "
              f"{len(present[line] & set(names))} of {len(names)} retired names")
    every = sorted(set(names).union(*present.values()))
    index = {name: i for i, name in enumerate(every)}
    out = {"generator": "tools/transformers_exports.py", "names": every,
           "absent": {line: [index[n] for n in every if n not in present[line]] for line in lines}}
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
