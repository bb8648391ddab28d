"""The launches of a corpus of deployment files (default: the vLLM recipes beside the repository) through each
release's own ``vllm serve`` path, compared with kvguard's verdicts.

usage: python tools/recipe_differential.py [--vllm X ...] [--corpus DIR] [--report FILE.json] [--containing TEXT ...]

``kvguard scan CORPUS --format json`` finds the launches; every distinct ``vllm serve MODEL …`` command line
whose model kvguard decides from its catalog runs through tests/upstream/serve_runner.py on the release's CPU
oracle (its parser, ``EngineArgs``, ``create_engine_config``), and through kvguard with the oracle's host
(``platform="cpu"``), as tests/upstream/test_speculative.compare_launches does.  Both read the same model directory:
the catalog's config.json, its hf_quant_config.json (a ModelOpt export's quantization, which every release's
``get_config`` reads beside config.json) and, where the entry records the weights' safetensors dtypes, a
safetensors file of those dtypes (read where config.json names no dtype).  A launch's environment prefix
(``VLLM_USE_DEEP_GEMM=0 vllm serve …``, optionally after ``env``) is the oracle's process environment for that case
(``vllm.envs`` reads ``os.environ``) and stays on kvguard's command line, which reads it there.  Entries whose
quantization config kvguard's copy does not hold (``quantization_unknown``) are left out.
The API server's flags that need a tokenizer (the oracle has none) are left out of both.  Disagreements of the
harness itself (a shell placeholder the scan kept, such as ``$PORT``; serve_runner's parser reading an unknown
option's value as its positional model) are counted as ``harness_artefacts``, not compared.

Prints one line per release and each disagreement; exit 1 on any.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


#: a shell's ``NAME=value`` word before the command (POSIX: a name is letters, digits and underscores, not led by a
#: digit)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def environment_prefix(words: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """(the prefix's words, its assignments as a mapping, the command after it) of a launch's words: the ``NAME=value``
    words before the command, optionally after ``env``."""
    start = 1 if words[:1] == ["env"] else 0
    end = start
    while end < len(words) and _ASSIGNMENT.match(words[end]):
        end += 1
    if end == 0:
        return [], {}, words
    assignments = dict(word.split("=", 1) for word in words[start:end])
    return words[:end], assignments, words[end:]


def write_checkpoint_files(directory: str, model: str) -> None:
    """The files of ``model``'s catalog entry that the release and kvguard read beside config.json (which
    compare_launches writes): hf_quant_config.json, and a safetensors file of the recorded weights' dtypes (one
    one-element tensor each: the header is all either side reads)."""
    from kvguard import catalog
    from tests.upstream.quant_verify_runner import write_safetensors

    entry = catalog.lookup(model)
    os.makedirs(directory, exist_ok=True)
    if entry.hf_quant_config is not None:
        Path(directory, "hf_quant_config.json").write_text(json.dumps(entry.hf_quant_config))
    if entry.safetensors_dtypes is not None:
        tensors = {f"weight_{index}": dtype for index, dtype in enumerate(entry.safetensors_dtypes["dtypes"])}
        write_safetensors(os.path.join(directory, "model.safetensors"), tensors)


#: the revision the offline Hugging Face cache of draft models lists as ``main`` (any 40 hex digits: a snapshot's name)
_SNAPSHOT = "0" * 40


def speculative_models(args: list[str]) -> list[str]:
    """The ``model`` of each ``--speculative-config`` JSON value among ``args`` (a draft named by its Hub id)."""
    found, index = [], 0
    while index < len(args):
        name, equals, inline = args[index].partition("=")
        index += 1
        if name.replace("_", "-") != "--speculative-config":
            continue
        value = inline if equals else (args[index] if index < len(args) else "")
        index += 0 if equals else 1
        try:
            parsed = json.loads(value)
        except ValueError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("model"), str):
            found.append(parsed["model"])
    return found


def cache_hub_copy(hub: str, model: str) -> bool:
    """``model``'s catalog files as an offline Hugging Face cache holds a downloaded repository (under ``hub``, the
    HF_HUB_CACHE both sides read: the oracle runs with HF_HUB_OFFLINE=1); False when the catalog lacks it."""
    from kvguard import catalog
    from tests.upstream.test_speculative import _config

    entry = catalog.lookup(model)
    if entry is None or model.count("/") != 1:
        return False
    base = Path(hub, "models--" + model.replace("/", "--"))
    snapshot = base / "snapshots" / _SNAPSHOT
    write_checkpoint_files(str(snapshot), model)
    (snapshot / "config.json").write_text(json.dumps(_config(model)))
    (base / "refs").mkdir(parents=True, exist_ok=True)
    (base / "refs" / "main").write_text(_SNAPSHOT)
    return True


def corpus_cases(corpus: str, root: str, containing: tuple[str, ...] = ()) -> list[dict]:
    """The distinct catalog-model launches kvguard decides in ``corpus`` (``containing``: only those whose command
    line holds each of these texts), as compare_launches cases."""
    from kvguard import catalog
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
        if not all(text in finding["command"] for text in containing):
            continue
        try:
            words = shlex.split(finding["command"])
        except ValueError:
            continue
        prefix, env, words = environment_prefix(words)
        if words[:2] != ["vllm", "serve"] or len(words) < 3 or words[2].startswith("-"):
            continue
        model, args = words[2], without_frontend_flags(words[3:])
        entry = catalog.lookup(model)
        if entry is None or entry.quantization_unknown is not None:
            continue
        if (tuple(prefix), model, tuple(args)) in seen:
            continue
        seen.add((tuple(prefix), model, tuple(args)))
        ident = f"r{len(cases)}"
        case = {"id": ident, "target": model, "config": _config(model), "args": args,
                "model_dir": os.path.join(root, ident), "where": f"{finding['file']}:{finding['line']}"}
        if prefix:
            case.update(env=env, env_prefix=prefix)
        write_checkpoint_files(case["model_dir"], model)
        for draft in speculative_models(args):
            cache_hub_copy(os.path.join(root, "hub"), draft)
        cases.append(case)
    return cases


#: a documentation placeholder as argparse quotes the value it refused (``'<prefill_http_port_rank0>'``)
_QUOTED_PLACEHOLDER = re.compile(r"'<[^'<>]+>'")


def _artefact(mismatch: dict) -> bool:
    """A disagreement of the harness, not of kvguard: a shell variable (``'$PORT'``) or a documentation placeholder
    (``'<port>'``) the scan kept, whose value kvguard passes over as the text it stands for (kvguard.launch.argv), or
    an unknown option whose value serve_runner's parser (the API server's, given ``--model``) takes as its
    positional ``model_tag`` where ``vllm serve MODEL`` lists it among the unrecognized arguments, as kvguard
    does (tests/upstream/test_argv_differential.py runs the real ``vllm serve`` parser)."""
    refusal = mismatch["oracle"].get("argparse") or ""
    ours = (mismatch["kvguard"] or {}).get("argparse") or ""
    return ("'$" in refusal or bool(_QUOTED_PLACEHOLDER.search(refusal))
            or (refusal.startswith("unrecognized arguments: ") and ours.startswith(refusal + " ")))


#: the CPU oracle's build lacks vLLM's CUDA kernels: importing a module that names one (0.33.0's
#: compilation/passes/fusion/matcher_utils.py reads ``torch.ops._C.rotary_embedding`` when
#: ``pass_config.fuse_allreduce_rms`` brings in the fusion passes) fails there and on no GPU host
_MISSING_KERNEL = "'_OpNamespace' '_C' object has no attribute "


#: 0.10.2-0.12.0's ModelConfig refuses VLLM_ATTENTION_BACKEND=FLASHINFER when the flashinfer package is missing, as it
#: is from the CPU oracle and not from the official image kvguard assumes
_NO_FLASHINFER = "VLLM_ATTENTION_BACKEND is set to FLASHINFER, but flashinfer module was not found."


def _host_failure(mismatch: dict) -> bool:
    """The oracle host failed where a GPU host does not (:data:`_MISSING_KERNEL`, :data:`_NO_FLASHINFER`): not
    compared."""
    oracle = mismatch["oracle"]
    message = oracle.get("message") or ""
    return ((oracle.get("exc_type") == "AttributeError" and message.startswith(_MISSING_KERNEL))
            or (oracle.get("exc_type") == "ValueError" and message.startswith(_NO_FLASHINFER)))


def main() -> int:
    import pytest  # noqa: F401  (the test modules' imports)

    from tests.upstream.differential import oracle_command
    from tests.upstream.test_speculative import compare_launches

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", nargs="*", help="releases (default: every built oracle)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "vllm-recipes"))
    parser.add_argument("--report", default=None)
    parser.add_argument("--containing", nargs="*", default=(), metavar="TEXT",
                        help="only the launches whose command line holds each TEXT (to reduce a disagreement)")
    options = parser.parse_args()
    os.environ.setdefault("KVG_ORACLE_INSPECT", "inprocess")
    os.environ.setdefault("KVG_ORACLE_TORCHVISION", "stub")
    from kvguard.versions import SUPPORTED_VERSIONS

    versions = options.vllm or [v for v in SUPPORTED_VERSIONS if "+" not in v and oracle_command(v) is not None]
    root = tempfile.mkdtemp(prefix="kvg-recipes-")
    # a speculative draft named by its Hub id is read from this offline cache, by the oracle (which inherits this
    # process's environment) and by kvguard alike (cache_hub_copy)
    os.environ["HF_HUB_CACHE"] = os.path.join(root, "hub")
    reports, failed = [], False
    try:
        cases = corpus_cases(options.corpus, root, tuple(options.containing))
        where = {case["id"]: case["where"] for case in cases}
        prefixes = {case["id"]: "".join(f"{word} " for word in case.get("env_prefix", ())) for case in cases}
        print(f"{len(cases)} distinct decided launches in {options.corpus} "
              f"({sum(1 for case in cases if case.get('env_prefix'))} with an environment prefix)")
        for version in versions:
            report = compare_launches(version, 0, cases)
            host = [m for m in report["mismatches"] if _host_failure(m)]
            real = [m for m in report["mismatches"] if not _artefact(m) and not _host_failure(m)]
            report["host_failures"] = len(host)
            report["harness_artefacts"] = len(report["mismatches"]) - len(real) - len(host)
            counts = dict(report["counts"], harness_artefacts=report["harness_artefacts"], host_failures=len(host),
                          disagree=len(real))
            print(version, counts)
            for mismatch in real:
                failed = True
                print(f"  MISMATCH {where[mismatch['id']]}: {prefixes[mismatch['id']]}{mismatch['target']} "
                      f"{' '.join(mismatch['args'])}")
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
