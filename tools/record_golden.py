"""Record golden cases from the real vLLM releases (the expected values kvguard's tests use).

usage: python tools/record_golden.py --vllm 0.28.0 --python ORACLE_PY [--only ID ...]

Runs every case of tools/golden_inputs.json through tests/upstream/serve_runner.py
(the release's own argument parser + EngineArgs.create_engine_config on the CPU
platform) and writes tests/cases/<release>/<id>.json with the outcome vLLM
produced.  kvguard is not consulted: expected values come from vLLM only.
Outcomes that belong to the CPU platform are recorded with the host they need
(``host`` in the case file), so kvguard is asked the same question.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvguard import catalog  # noqa: E402  (only to read the built-in configs)

#: the directory the oracle reads config.json from; vLLM quotes it in some messages, so the
#: golden cases pass it to kvguard as ``model_path``
MODEL_DIR = os.environ.get("KVG_GOLDEN_MODEL_DIR", "/tmp/kvguard-golden/model")


def _mem_total() -> int:
    """psutil.virtual_memory().total on Linux: MemTotal of /proc/meminfo, in bytes."""
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    raise SystemExit("no MemTotal in /proc/meminfo")


#: the oracle host: vLLM's CPU platform, no GPUs, no Ray/Triton/NIXL/intel_extension_for_pytorch, this machine's memory;
#: a CPU without AMX tiles unless the case's ``host`` says ``"amx": true`` (the oracle then answers
#: torch.cpu._is_amx_tile_supported() so: tests/upstream/oracle_runner.py cpu_amx_answer, KVG_ORACLE_CPU_AMX)
ORACLE_HOST = {"platform": "cpu", "gpus_per_node": 0, "ray": False, "triton": False, "nixl": False,
               "cpu_memory_bytes": _mem_total(), "arctic_inference": False, "ipex": False}


def _config(inputs: dict, name: str) -> dict:
    if name in inputs["configs"]:
        return inputs["configs"][name]
    entry = catalog.lookup(name)
    if entry is None:
        raise SystemExit(f"unknown model {name!r}")
    return entry.config


def _hub_cache(root: str, names: list[str]) -> None:
    """A Hugging Face cache holding the catalog's config.json of each Hub id a launch names (a case's ``hub``):
    the release finds the checkpoint offline as if it had been downloaded, while kvguard, asked the same
    command line, resolves the id from its catalog."""
    for name in names:
        entry = catalog.lookup(name)
        if entry is None or entry.id != name:
            raise SystemExit(f"hub: {name!r} is not a catalog id")
        repo = os.path.join(root, "models--" + name.replace("/", "--"))
        snapshot = os.path.join(repo, "snapshots", "0" * 40)
        os.makedirs(snapshot, exist_ok=True)
        os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
        Path(repo, "refs", "main").write_text("0" * 40)
        Path(snapshot, "config.json").write_text(json.dumps(entry.config))


def _applies(case: dict, version: str) -> bool:
    """A case lists the releases it is recorded for (default: the two supported since issue 2)."""
    return version in case.get("versions", ["0.20.0", "0.28.0"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vllm", required=True)
    ap.add_argument("--python", help="an oracle venv's python (else tools/oracle_env.py finds the release)")
    ap.add_argument("--oracle-root", help="root of tools/oracle_env.py (default $KVG_ORACLE_ROOT)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--vllm-cache", help="VLLM_CACHE_ROOT for the oracle (default: a fresh temporary one); a "
                    "cache holding the registry's model inspections avoids inspecting where the oracle host "
                    "cannot (e.g. 0.17.1's CPU kernels need a newer torch than its oracle base)")
    args = ap.parse_args(argv)
    extra_env: dict[str, str] = {}
    if not args.python:
        cmd = [sys.executable, str(ROOT / "tools" / "oracle_env.py"), "python", args.vllm, "--json"]
        if args.oracle_root:
            cmd += ["--root", args.oracle_root]
        found = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        args.python, extra_env = found["python"], found.get("env", {})
    # the pydantic the oracle imports: the version its ValidationErrors' links name (kvguard's host fact)
    found = subprocess.run([args.python, "-c", "import pydantic.version as v; print(v.VERSION)"], check=True,
                           capture_output=True, text=True, env=dict(os.environ, **extra_env)).stdout.strip()
    oracle_host = dict(ORACLE_HOST, pydantic=".".join(found.split(".")[:2]))
    inputs = json.loads((ROOT / "tools" / "golden_inputs.json").read_text())
    cases = [c for c in inputs["cases"] if (not args.only or c["id"] in args.only)
             and _applies(c, args.vllm)]
    groups: dict[str, list] = defaultdict(list)
    for case in cases:
        groups[json.dumps([case.get("env", {}), bool(case.get("logging")), bool(case.get("host", {}).get("amx"))],
                          sort_keys=True)].append(case)
    outdir = ROOT / "tests" / "cases" / args.vllm
    outdir.mkdir(parents=True, exist_ok=True)
    for env_key, group in groups.items():
        env = json.loads(env_key)[0]
        # a logging case's variables are the case's own (the runner imports vLLM under the run's environment, which
        # to 0.30.0 would refuse them there): serve_runner.py's "logging"
        logging = any(c.get("logging") for c in group)
        spec = {"env": {} if logging else env,
                "cases": [{"id": c["id"], "config": _config(inputs, c["model"]), "args": c["argv"],
                           "model_dir": MODEL_DIR, "files": c.get("files") or {},
                           **({"frontend": True} if c.get("frontend") else {}),
                           **({"logging": True, "env": env} if c.get("logging") else {})} for c in group]}
        with tempfile.TemporaryDirectory() as tmp:
            inp, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
            Path(inp).write_text(json.dumps(spec))
            hub = os.path.join(tmp, "hub")
            _hub_cache(hub, sorted({n for c in group for n in c.get("hub", ())}))
            proc_env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1", HF_HUB_CACHE=hub,
                            VLLM_CACHE_ROOT=args.vllm_cache or os.path.join(tmp, "cache"), **extra_env)
            proc_env.update({} if logging else env)
            proc_env["KVG_ORACLE_CPU_AMX"] = "1" if json.loads(env_key)[2] else "0"
            proc = subprocess.run([args.python, str(ROOT / "tests" / "upstream" / "serve_runner.py"), inp, out],
                                  env=proc_env, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                return 1
            results = {r["id"]: r for r in json.loads(Path(out).read_text())}
        for case in group:
            rec = results[case["id"]]
            if "failed to be inspected" in (rec.get("message") or ""):
                # the CPU oracle could not import the model class (a package it lacks): not vLLM's answer
                print(f"{args.vllm} {case['id']}: NOT recorded, the oracle host failed to inspect the model "
                      "(run with KVG_ORACLE_INSPECT=inprocess KVG_ORACLE_TORCHVISION=stub)", file=sys.stderr)
                continue
            if rec.get("stage") == "argparse":
                expect = {"argparse_error": rec.get("stderr")}
            elif rec.get("stage") == "ok":
                expect = {"ok": True}
            else:
                expect = {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"],
                          "wrapped_by": rec.get("wrapped_by")}
                if rec.get("errors"):
                    expect["errors"] = rec["errors"]
            golden = {
                "id": case["id"],
                "why": case.get("why", ""),
                "model": case["model"],
                "argv": case["argv"],
                "env": case.get("env", {}),
                "host": dict(oracle_host, **case.get("host", {})),
                "model_path": MODEL_DIR,
                **({"files": case["files"]} if case.get("files") else {}),
                **({"hub": case["hub"]} if case.get("hub") else {}),
                "expect": expect,
                "recorded_from": f"vLLM {args.vllm} (serve path: argparse, "
                                 + ("the front end's checks, " if case.get("frontend") else "")
                                 + ("the logging configuration, " if case.get("logging") else "")
                                 + "EngineArgs.create_engine_config, CPU platform) via tools/record_golden.py",
            }
            if case["model"] in inputs["configs"]:
                golden["config"] = inputs["configs"][case["model"]]
            (outdir / f"{case['id']}.json").write_text(json.dumps(golden, indent=1) + "\n")
            print(f"{args.vllm} {case['id']}: {json.dumps(expect)[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
