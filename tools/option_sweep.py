"""Every option of a release's ``vllm serve`` parser, alone, with a few values of its type, through the release's own
serve path and through kvguard: where kvguard passes an option over and the release refuses it (or the reverse),
kvguard is missing a check.

usage: python tools/option_sweep.py --vllm 0.20.0 [0.33.0 …] [--model Qwen/Qwen3-8B …] [--report FILE]
       python tools/option_sweep.py --vllm 0.28.0 --pairs 100 --seed 3 --model deepseek-ai/DeepSeek-V2-Lite …

``--pairs N`` draws N launches per model instead: two options at a time, each with one of the values the single
sweep gives it, and now and then a parallel layout (``-tp`` / ``-pp`` / ``-dp`` / ``-dcp``); interactions between
options and models of other kinds (MoE, MLA, multimodal, Mamba / hybrid, quantized) are where a lone option's
sweep on one dense model sees nothing.  Each disagreement is classed: ``wrong_accept`` (kvguard accepts what the
release refuses, the worst), ``other_refusal`` (both refuse, differently), ``wrong_refusal`` (kvguard refuses what
the release accepts), ``host_file`` (the release refuses a file the oracle host lacks: a chat template, a logging
config; kvguard leaves those to the operator's host).

Each launch is the catalog model's config.json in a folder with one option (and its value) added; options whose
values are config JSON (``parse_dataclass``) are left to tests/upstream/test_argv_differential.py.  The comparison
is tests/upstream/test_speculative.compare_launches (the oracle host: the CPU platform).  A disagreement names the
option and both answers; undecidable launches are counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
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


#: the parallel layouts a pair launch adds now and then (the oracle host has no GPUs: vLLM's CPU platform decides)
_LAYOUTS = (["-tp", "2"], ["-pp", "2"], ["-dp", "2"], ["-tp", "2", "-dcp", "2"], ["-tp", "4", "-pp", "2"])


def pair_launches(version: str, model: str, root: str, count: int, seed: int) -> list[dict]:
    """``count`` launches of two options each (distinct, drawn with the single sweep's values) on ``model``, a
    quarter of them with a parallel layout too; the same ``seed`` draws the same launches."""
    table = option_table(resolve(version))
    config = _config(model)
    drawable = [(opt, choices) for opt, spec in sorted(table.items())
                if opt not in _SKIP and opt.startswith("--") and (choices := _values(spec))]
    rng = random.Random(f"{seed}:{version}:{model}")
    cases = []
    for index in range(count):
        (first, first_values), (second, second_values) = rng.sample(drawable, 2)
        args = [first, *rng.choice(first_values), second, *rng.choice(second_values)]
        if rng.random() < 0.25:
            args += rng.choice(_LAYOUTS)
        ident = f"p{index}"
        cases.append({"id": ident, "target": model, "config": config, "model_dir": os.path.join(root, ident),
                      "args": args, "frontend": True})
    return cases


#: the release's refusals of a file the oracle host lacks: kvguard leaves the operator's files to the operator (a
#: noted skip, e.g. FE_chat_template_path), so these are the oracle host's answers, not a launch's
_HOST_FILE_MESSAGES = ("appears path-like, but doesn't exist", "Could not load logging config. File does not exist",
                       "FP8 scale file not found", "Parent directory for FP8 scale save path not found")


def disagreement_class(oracle: dict, kvguard: dict, skipped: list[str]) -> str:
    """How kvguard's answer differs from the release's: a host file first, then the worst first; an acceptance
    that listed skipped checks (``skipped``: their names) is ``accept_with_skips``, the release's refusal is likely
    one of them."""
    if any(text in (oracle.get("message") or "") for text in _HOST_FILE_MESSAGES):
        return "host_file"
    if kvguard.get("ok") and not oracle.get("ok"):
        return "accept_with_skips" if skipped else "wrong_accept"
    if oracle.get("ok") and not kvguard.get("ok"):
        return "wrong_refusal"
    return "other_refusal"


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
    parser.add_argument("--model", nargs="+", default=["Qwen/Qwen3-8B"], help="catalog names")
    parser.add_argument("--pairs", type=int, default=0, help="launches of two options each, per model and release")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=80, help="launches per oracle run (its runner times out)")
    parser.add_argument("--report")
    options = parser.parse_args()
    reports = []
    for version in options.vllm:
        for model in options.model:
            with tempfile.TemporaryDirectory(prefix="kvg-sweep-") as root:
                cases = (pair_launches(version, model, root, options.pairs, options.seed) if options.pairs
                         else launches(version, model, root))
                report = _compare_in_batches(version, options.seed, cases, options.batch)
                by_id = {case["id"]: case for case in cases}
                for mismatch in report["mismatches"]:
                    accepted = mismatch["kvguard"].get("ok")
                    mismatch["skipped"] = _skipped_checks(version, by_id[mismatch["id"]]) if accepted else []
                    mismatch["class"] = disagreement_class(mismatch["oracle"], mismatch["kvguard"],
                                                           mismatch["skipped"])
            report["model"] = model
            report["classes"] = dict(Counter(m["class"] for m in report["mismatches"]))
            reports.append(report)
            print(version, model, dict(report["counts"]), report["classes"], flush=True)
            _print_details(report)
    if options.report:
        Path(options.report).write_text(json.dumps(reports, indent=1, default=str))
    return 0


def _compare_in_batches(version: str, seed: int, cases: list[dict], batch: int) -> dict:
    merged: dict = {"version": version, "seed": seed, "counts": Counter(), "mismatches": [], "undecidable": []}
    for start in range(0, len(cases), batch):
        report = compare_launches(version, seed, cases[start:start + batch])
        merged["counts"].update(report["counts"])
        merged["mismatches"] += report["mismatches"]
        merged["undecidable"] += report["undecidable"]
    merged["counts"] = dict(merged["counts"])
    return merged


def _skipped_checks(version: str, case: dict) -> list[str]:
    """The checks kvguard's acceptance of the launch skipped (asked as compare_launches asks: the case's folder)."""
    from kvguard.front import examine
    from kvguard.launch.layout import Host
    from tests.upstream.test_speculative import oracle_host

    report = examine(resolve(version), ["vllm", "serve", case["model_dir"], *case["args"]],
                     host=Host(**oracle_host()), env={})
    return [skip.check for skip in report.verdict.skipped]


def _print_details(report: dict) -> None:
    for mismatch in report["mismatches"]:
        print("  MISMATCH", mismatch.get("class", ""), " ".join(mismatch["args"]),
              f"(skipped: {' '.join(mismatch['skipped'])})" if mismatch.get("skipped") else "")
        print("    oracle :", json.dumps(mismatch["oracle"])[:300])
        print("    kvguard:", json.dumps(mismatch["kvguard"])[:300])
    reasons = Counter(u["reason"][:90] for u in report["undecidable"])
    for reason, count in reasons.most_common(8):
        print(f"  undecidable x{count}: {reason}")


if __name__ == "__main__":
    raise SystemExit(main())
