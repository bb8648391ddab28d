#!/usr/bin/env python3
"""Extract SpeculativeConfig's pydantic field table from every release (kvguard/data/speculative.json).

``--speculative-config`` is handed to ``SpeculativeConfig(**dict)``, a pydantic dataclass: before any of
its own code runs, pydantic validates each given key against the field's annotation and constraints
(``num_speculative_tokens: int = Field(gt=0)``, ``method: Literal[...] | None``, …) and, from the
releases whose config forbids extra keys, refuses unknown ones.  This tool imports the real class in
each release's oracle environment and records, per field and in declaration order, what kvguard needs
to rebuild the same validation: a small type vocabulary (``int``, ``float``, ``bool``, ``str``,
``literal`` with its values in order, ``skip`` for SkipValidation, ``other`` for anything else), whether
None is allowed, the ``gt``/``ge`` bounds and the default.  Values only — no code is copied.

usage:
  python tools/spec_extract.py regenerate [--releases 0.10.2,0.28.0|all] [--root ORACLE_ROOT]
        (host python) run the extraction in each release's oracle and write kvguard/data/speculative.json
  python tools/spec_extract.py fields OUT.json        (inside an oracle)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "kvguard", "data", "speculative.json")


def _describe(annotation, metadata):
    """(kind, optional, values, skip) of an annotation, in kvguard's small vocabulary."""
    import types
    import typing

    skip = any(type(m).__name__ == "SkipValidation" for m in metadata)
    optional = False
    args = None
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(types, "UnionType", None)):
        args = [a for a in typing.get_args(annotation)]
        if type(None) in args:
            optional = True
            args = [a for a in args if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
        origin = typing.get_origin(annotation)
    if skip:
        return "skip", optional, None
    if annotation in (int, float, bool, str):
        return annotation.__name__, optional, None
    if origin is typing.Literal:
        return "literal", optional, list(typing.get_args(annotation))
    return "other", optional, None


def fields(out_path: str) -> None:
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    import vllm
    from vllm.config import SpeculativeConfig

    record = {"version": vllm.__version__.split("+")[0],
              "extra": (getattr(SpeculativeConfig, "__pydantic_config__", None) or {}).get("extra"),
              "fields": []}
    for name, info in SpeculativeConfig.__pydantic_fields__.items():
        kind, optional, values = _describe(info.annotation, info.metadata)
        entry = {"name": name, "kind": kind, "optional": optional}
        if kind == "other":
            entry["annotation"] = repr(info.annotation)[:200]
        if values is not None:
            entry["values"] = values
        for m in info.metadata:
            for bound in ("gt", "ge"):
                if type(m).__name__.lower() == bound:
                    entry[bound] = getattr(m, bound)
        default = info.default
        try:
            json.dumps(default)
            entry["default"] = default
        except TypeError:
            entry["default_repr"] = repr(default)[:80]
        record["fields"].append(entry)
    with open(out_path, "w") as fh:
        json.dump(record, fh)


def _releases(root: str) -> list[str]:
    names = [n for n in os.listdir(os.path.join(root, "releases")) if n[0].isdigit()]
    return sorted(names, key=lambda v: tuple(int(x) for x in v.split(".")))


def regenerate(releases: list[str], root: str) -> None:
    sys.path.insert(0, HERE)
    import oracle_env  # noqa: E402

    data = {"comment": "SpeculativeConfig's pydantic fields per release (tools/spec_extract.py); ranges of "
                       "identical tables", "tables": []}
    previous = None
    for version in releases:
        found = oracle_env.command(Path(root), version)
        if found is None:
            raise SystemExit(f"no oracle for vLLM {version} under {root}")
        python, env = found
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.json")
            proc = subprocess.run([python, os.path.abspath(__file__), "fields", out], env=dict(os.environ, **env),
                                  capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                raise SystemExit(f"vLLM {version}: {proc.stderr[-2000:]}")
            with open(out) as fh:
                record = json.load(fh)
        table = {"extra": record["extra"], "fields": record["fields"]}
        if previous is not None and previous["table"] == table:
            previous["until"] = version
        else:
            previous = {"since": version, "until": version, "table": table}
            data["tables"].append(previous)
        print(version, "same" if previous["since"] != version else "new", file=sys.stderr)
    with open(OUT, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("regenerate")
    r.add_argument("--releases", default="all")
    r.add_argument("--root", default=os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle")))
    f = sub.add_parser("fields")
    f.add_argument("out")
    args = p.parse_args()
    if args.cmd == "fields":
        fields(args.out)
    else:
        releases = _releases(args.root) if args.releases == "all" else args.releases.split(",")
        regenerate(releases, args.root)


if __name__ == "__main__":
    main()
