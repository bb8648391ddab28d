"""Every option of a release's ``vllm serve`` parser, alone, with a few values of its type, through the release's own
serve path and through kvguard: where kvguard passes an option over and the release refuses it (or the reverse),
kvguard is missing a check.

usage: python tools/option_sweep.py --vllm 0.20.0 [0.33.0 …] [--model Qwen/Qwen3-8B] [--report FILE]

Each launch is the catalog model's config.json in a folder with one option (and its value) added; options whose
values are config JSON (``parse_dataclass``) are left to tests/upstream/test_argv_differential.py.  The comparison
is tests/upstream/test_speculative.compare_launches (the oracle host: the CPU platform).  A disagreement names the
option and both answers; undecidable launches are counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KVG_ORACLE_INSPECT", "inprocess")
os.environ.setdefault("KVG_ORACLE_TORCHVISION", "stub")

from kvguard.launch.argv import option_table  # noqa: E402
from kvguard.versions import resolve  # noqa: E402
from tests.upstream.test_speculative import _config, compare_launches  # noqa: E402

#: options that name files, hosts or the model itself: their values are not launch settings kvguard decides
_SKIP = {"--model", "--config", "--help", "-h", "--tokenizer", "--served-model-name", "--revision",
         "--tokenizer-revision", "--code-revision", "--hf-token"}
#: the values drawn for each argparse type
_VALUES = {"int": ("0", "1", "2", "-1", "65536"), "float": ("0", "0.5", "-1", "1.5"), "str": ("x",),
           "_optional_type": ("1", "x"), "human_readable_int": ("0", "1k"), "human_readable_int_or_auto": ("0", "1k"),
           "bool": ("true", "false")}


def _values(spec) -> list[list[str]]:
    if spec.nargs == 0:
        return [[]]
    if spec.type in ("parse_dataclass", "loads", "union_dict_and_str"):
        return []
    if spec.choices:
        return [[str(choice)] for choice in list(spec.choices)[:4]]
    return [[value] for value in _VALUES.get(spec.type or "str", ("x",))]


def launches(version: str, model: str, root: str) -> list[dict]:
    table = option_table(resolve(version))
    config = _config(model)
    cases = []
    for opt, spec in sorted(table.items()):
        if opt in _SKIP or not opt.startswith("--"):
            continue
        for values in _values(spec):
            ident = f"o{len(cases)}"
            # the front end as vllm serve runs it (validate_parsed_serve_args, ServeSubcommand.cmd's checks, the API
            # server's validate_api_server_args), which kvguard models too: without it the release's answer to an
            # option those refuse (--enable-auto-tool-choice alone, ...) is not vllm serve's
            cases.append({"id": ident, "target": model, "config": config, "model_dir": os.path.join(root, ident),
                          "args": [opt, *values], "frontend": True})
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", nargs="+", required=True)
    parser.add_argument("--model", default="Qwen/Qwen3-8B")
    parser.add_argument("--report")
    options = parser.parse_args()
    reports = []
    for version in options.vllm:
        with tempfile.TemporaryDirectory(prefix="kvg-sweep-") as root:
            report = compare_launches(version, 0, launches(version, options.model, root))
        reports.append(report)
        print(version, dict(report["counts"]), flush=True)
        for mismatch in report["mismatches"]:
            print("  MISMATCH", " ".join(mismatch["args"]))
            print("    oracle :", json.dumps(mismatch["oracle"])[:300])
            print("    kvguard:", json.dumps(mismatch["kvguard"])[:300])
        reasons = Counter(u["reason"][:90] for u in report["undecidable"])
        for reason, count in reasons.most_common(8):
            print(f"  undecidable x{count}: {reason}")
    if options.report:
        Path(options.report).write_text(json.dumps(reports, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
