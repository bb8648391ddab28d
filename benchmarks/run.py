"""kvguard's speed, measured in one run on one machine (stdlib only).

    python benchmarks/run.py [--short] [--vllm 0.28.0] [--corpus PATH]
                             [--oracle-root DIR] [--repeats N] [--json]

Measures (medians of repeats; CPU time where a figure is compared — user + system of the
process and its children —, because the wall clock of a shared machine says more about the
other jobs than about kvguard):

* the first check of a model as a process (kvguard keeps no facts cache, so every check is one):
  ``python -m kvguard check --vllm-version V -- vllm serve deepseek-ai/DeepSeek-R1 -tp 8 -dcp 8``,
  alternated with a bare ``python -c pass`` in the same run, both from bytecode and from an empty
  working directory (``python -m`` puts it on ``sys.path``; a crowded one costs a directory
  listing that has nothing to do with kvguard); the ratio of their CPU times is the figure;
* ``import kvguard`` in a fresh process (the import itself, timed inside the process, and the
  whole process), asserting that torch / transformers / vllm / numpy stay unimported;
* layout checks per CPU second with the model facts cached (``facts = kvguard.model_facts(...)``,
  then ``kvguard.check(facts, tp=…, dcp=…, …)`` over varied layouts, in this process: one core);
* ``kvguard scan`` of a corpus directory (``--corpus``), as a process;
* ``kvguard.plan`` of 1,024 GPUs;
* with an oracle (``--oracle-root``; built by tools/oracle_env.py), vLLM's own path for the same
  work: a cold process that imports ``vllm.config``, builds ``ModelConfig`` from the same
  config.json (kvguard's catalog copy, in a temporary directory, ``HF_HUB_OFFLINE=1``), then
  ``ParallelConfig`` and ``verify_with_parallel_config``; and, in one warm process, the cost of
  ``ParallelConfig(**layout)`` + ``verify_with_parallel_config`` per layout.

``--short`` (CI) keeps every measurement to a few repeats and skips the oracle's cold process
unless ``--oracle-root`` is given.  Targets: the first check of a model <= 3x a bare Python start
(CPU time), >= 25,000 cached checks/s/core, cold check >= 50x faster than vLLM's pre-flight, a
light import.  Results and method: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MODEL = "deepseek-ai/DeepSeek-R1"
HEAVY = ("torch", "transformers", "vllm", "numpy")
TARGET_COLD_RATIO = 50.0
TARGET_CHECKS_PER_S = 25_000
#: the first check of a model / a bare ``python -c pass``, CPU time
TARGET_FIRST_CHECK_RATIO = 3.0


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("VLLM_MLA_DISABLE", None)
    # both sides run from bytecode, as a pip-installed package does: the warm-up run writes the
    # .pyc files (kvguard's and the unpacked vLLM release's) that a PYTHONDONTWRITEBYTECODE
    # environment would otherwise make every process recompile
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


#: CPU seconds (user + system) of the last _timed_run's process and its children: less sensitive
#: than wall time to other jobs on the machine
_LAST_CPU = [0.0]


def _timed_run(cmd: list, env: dict, ok_codes=(0, 1, 2), cwd: str | None = None) -> tuple[float, str]:
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # microseconds (os.times() counts clock ticks)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _LAST_CPU[0] = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    if proc.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(cmd[:6])}… exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
    return dt, proc.stdout


def _median(xs):
    return statistics.median(xs)


# --------------------------------------------------------------------------- kvguard


def bench_cold_check(version: str, repeats: int) -> dict:
    """The first check of a model as a process, alternated with a bare ``python -c pass`` in the
    same run (CPU time of each child; medians): their ratio is the figure."""
    cmd = [sys.executable, "-m", "kvguard", "check", "--vllm-version", version, "--",
           "vllm", "serve", MODEL, "-tp", "8", "-dcp", "8"]
    bare = [sys.executable, "-c", "pass"]
    env = _env()
    times, cpu, bare_times, bare_cpu = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="kvg-bench-cwd-") as cwd:
        _timed_run(cmd, env, cwd=cwd)  # warms the OS file cache and writes the .pyc files
        _timed_run(bare, env, cwd=cwd)
        for _ in range(repeats):
            times.append(_timed_run(cmd, env, cwd=cwd)[0])
            cpu.append(_LAST_CPU[0])
            bare_times.append(_timed_run(bare, env, cwd=cwd)[0])
            bare_cpu.append(_LAST_CPU[0])
    return {"repeats": repeats, "median_s": _median(times), "min_s": min(times), "cpu_median_s": _median(cpu),
            "python_startup_s": _median(bare_times), "python_startup_cpu_s": _median(bare_cpu),
            "ratio_cpu": _median(cpu) / _median(bare_cpu), "ratio_wall": _median(times) / _median(bare_times)}


_IMPORT_PROBE = r"""
import json, sys, time
t0 = time.process_time()
import kvguard
dt = time.process_time() - t0
heavy = sorted(m for m in %r if m in sys.modules)
print(json.dumps({"import_s": dt, "heavy": heavy, "modules": len(sys.modules)}))
"""


def bench_import(repeats: int) -> dict:
    env = _env()
    cmd = [sys.executable, "-c", _IMPORT_PROBE % (HEAVY,)]
    _timed_run(cmd, env)
    inner, outer, heavy, modules = [], [], set(), 0
    for _ in range(repeats):
        _dt, out = _timed_run(cmd, env, ok_codes=(0,))
        rec = json.loads(out)
        outer.append(_LAST_CPU[0])
        inner.append(rec["import_s"])
        heavy.update(rec["heavy"])
        modules = rec["modules"]
    assert not heavy, f"import kvguard pulled in heavy modules: {sorted(heavy)}"
    return {"import_median_s": _median(inner), "process_median_s": _median(outer), "heavy": sorted(heavy),
            "modules": modules, "repeats": repeats}


def _layouts() -> list:
    out = []
    for tp in (1, 2, 4, 8, 16, 32):
        for dcp in (1, 2, 3, 4, 8, 16):
            for pp, dp in ((1, 1), (2, 1), (1, 2), (4, 2)):
                out.append({"tp": tp, "dcp": dcp, "pp": pp, "dp": dp})
    return out


def _answer(facts, version: str, host, lay: dict):
    """A check's verdict, or None when kvguard cannot decide it (an answer the benchmark counts too)."""
    import kvguard

    try:
        return kvguard.check(facts, vllm_version=version, host=host, **lay)
    except kvguard.Undecidable:
        return None


def bench_cached_checks(version: str, seconds: float, repeats: int,
                        models=(MODEL, "Qwen/Qwen3-32B")) -> dict:
    import kvguard
    from kvguard import catalog

    layouts = _layouts()
    out = {"layouts": len(layouts), "repeats": repeats}
    for model in models:
        facts = kvguard.model_facts(catalog.lookup(model).config, vllm_version=version)
        host = kvguard.Host.cuda_node()
        verdicts = [_answer(facts, version, host, lay) for lay in layouts]  # warms every code path once
        refused = sum(v is not None and not v.ok for v in verdicts)
        undecidable = sum(v is None for v in verdicts)
        rates = []
        for _ in range(repeats):
            n = 0
            t0 = time.process_time()  # this process's CPU time: the other jobs of the machine do not count
            deadline = t0 + seconds
            while True:
                for lay in layouts:
                    _answer(facts, version, host, lay)
                n += len(layouts)
                now = time.process_time()
                if now >= deadline:
                    break
            rates.append(n / (now - t0))
        out[model] = {"checks_per_s": _median(rates), "refused": refused, "undecidable": undecidable}
    out["checks_per_s"] = min(out[m]["checks_per_s"] for m in models)
    return out


def bench_scan(version: str, corpus: str, repeats: int) -> dict:
    cmd = [sys.executable, "-m", "kvguard", "scan", "--vllm-version", version, "--set", "GPUS=8",
           "--set", "NODES=2", "--set", "GPUS_PER_NODE=8", "--format", "json", corpus]
    env = _env()
    dt, out = _timed_run(cmd, env)
    times, cpu = [dt], [_LAST_CPU[0]]
    for _ in range(max(0, repeats - 1)):
        times.append(_timed_run(cmd, env)[0])
        cpu.append(_LAST_CPU[0])
    data = json.loads(out)
    files = sum(1 for _d, _s, fs in os.walk(corpus) for _f in fs)
    return {"median_s": _median(times), "cpu_median_s": _median(cpu), "repeats": len(times),
            "findings": len(data.get("findings", [])), "summary": data.get("summary"), "files": files}


def bench_plan(version: str, repeats: int) -> dict:
    import kvguard

    if not hasattr(kvguard, "plan"):
        return {"skipped": "kvguard.plan does not exist in this tree"}
    kvguard.plan(MODEL, 1024, gpus_per_node=8, vllm_version=version)
    times, report = [], None
    for _ in range(repeats):
        t0 = time.process_time()
        report = kvguard.plan(MODEL, 1024, gpus_per_node=8, vllm_version=version)
        times.append(time.process_time() - t0)
    return {"median_s": _median(times), "repeats": repeats,
            "candidates": getattr(report, "candidates", None), "accepted": getattr(report, "accepted", None)}


# --------------------------------------------------------------------------- vLLM (oracle)

_ORACLE_COLD = r"""
import json, logging, os, sys, time, warnings
t0 = time.perf_counter()
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
os.environ["HF_HUB_OFFLINE"] = "1"
from vllm.config import ModelConfig, ParallelConfig
t_import = time.perf_counter()
work = sys.argv[1]
mc = ModelConfig(model=work, tokenizer=work, skip_tokenizer_init=True)
t_model = time.perf_counter()
pc = ParallelConfig(tensor_parallel_size=8, decode_context_parallel_size=8)
mc.verify_with_parallel_config(pc)
t_end = time.perf_counter()
print(json.dumps({"import_s": t_import - t0, "model_config_s": t_model - t_import,
                  "parallel_verify_s": t_end - t_model, "use_mla": bool(mc.use_mla)}))
"""

_ORACLE_WARM = r"""
import json, logging, os, sys, time, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
os.environ["HF_HUB_OFFLINE"] = "1"
from vllm.config import ModelConfig, ParallelConfig
work, layouts, seconds = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
mc = ModelConfig(model=work, tokenizer=work, skip_tokenizer_init=True)
names = {"tp": "tensor_parallel_size", "dcp": "decode_context_parallel_size",
         "pp": "pipeline_parallel_size", "dp": "data_parallel_size"}
layouts = [{names[k]: v for k, v in lay.items()} for lay in layouts]
def one(lay):
    try:
        mc.verify_with_parallel_config(ParallelConfig(**lay))
        return True
    except Exception:
        return False
refused = sum(not one(lay) for lay in layouts)
n, t0 = 0, time.perf_counter()
while True:
    for lay in layouts:
        one(lay)
    n += len(layouts)
    if time.perf_counter() - t0 >= seconds:
        break
print(json.dumps({"checks_per_s": n / (time.perf_counter() - t0), "refused": refused, "n": n}))
"""


def _oracle(root: str, version: str) -> tuple[str, dict]:
    cmd = [sys.executable, os.path.join(ROOT, "tools", "oracle_env.py"), "python", version, "--root", root,
           "--json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"no oracle for vLLM {version} under {root}: {proc.stderr.strip()[-400:]}")
    spec = json.loads(proc.stdout)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(spec.get("env") or {})
    env["HF_HUB_OFFLINE"] = "1"
    return spec["python"], env


def bench_oracle(root: str, version: str, repeats: int, seconds: float) -> dict:
    from kvguard import catalog

    python, env = _oracle(root, version)
    work = tempfile.mkdtemp(prefix="kvg-bench-")
    try:
        with open(os.path.join(work, "config.json"), "w") as fh:
            json.dump(catalog.lookup(MODEL).config, fh)
        cold, cpu, parts = [], [], []
        cmd = [python, "-c", _ORACLE_COLD, work]
        _timed_run(cmd, env, ok_codes=(0,), cwd=work)  # warm the file cache / .pyc files
        for _ in range(repeats):
            dt, out = _timed_run(cmd, env, ok_codes=(0,), cwd=work)
            cold.append(dt)
            cpu.append(_LAST_CPU[0])
            parts.append(json.loads(out))
        warm_cmd = [python, "-c", _ORACLE_WARM, work, json.dumps(_layouts()), str(seconds)]
        _dt, out = _timed_run(warm_cmd, env, ok_codes=(0,), cwd=work)
        warm = json.loads(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"cold_median_s": _median(cold), "cold_cpu_median_s": _median(cpu), "repeats": repeats,
            "import_s": _median([p["import_s"] for p in parts]),
            "model_config_s": _median([p["model_config_s"] for p in parts]),
            "parallel_verify_s": _median([p["parallel_verify_s"] for p in parts]),
            "warm_checks_per_s": warm["checks_per_s"], "warm_refused": warm["refused"], "python": python}


# --------------------------------------------------------------------------- report


def _ms(s: float) -> str:
    return f"{s * 1000:,.1f} ms"


def render(r: dict) -> str:
    rows = [("measurement", "result", "note")]
    c = r["cold_check"]
    rows.append(("first `kvguard check` of a model (process)", _ms(c["cpu_median_s"]) + " CPU",
                 f"wall {_ms(c['median_s'])} (min {_ms(c['min_s'])}); median of {c['repeats']}; no facts cache: "
                 "every check derives the facts"))
    rows.append(("bare `python -c pass` (same run)", _ms(c["python_startup_cpu_s"]) + " CPU",
                 f"wall {_ms(c['python_startup_s'])}; alternated with the check"))
    met_first = c["ratio_cpu"] <= TARGET_FIRST_CHECK_RATIO
    rows.append(("first check / python -c pass", f"**{c['ratio_cpu']:.2f}x**",
                 f"CPU time; target <= {TARGET_FIRST_CHECK_RATIO:.0f}x: {'met' if met_first else 'NOT met'}; "
                 f"wall {c['ratio_wall']:.2f}x"))
    i = r["import"]
    rows.append(("`import kvguard` (fresh process)", _ms(i["import_median_s"]) + " CPU",
                 f"whole process {_ms(i['process_median_s'])} CPU; {i['modules']} modules; "
                 f"no {'/'.join(HEAVY)}"))
    k = r["cached"]
    per_model = "; ".join(f"{m}: {k[m]['checks_per_s']:,.0f}/s" for m in k if isinstance(k[m], dict))
    rows.append(("cached checks / CPU s (one core)", f"{k['checks_per_s']:,.0f}",
                 f"{k['layouts']} layouts, median of {k['repeats']}; {per_model}"))
    if "scan" in r:
        s = r["scan"]
        rows.append((f"`kvguard scan` {os.path.basename(r['corpus'].rstrip('/'))}", _ms(s["cpu_median_s"]) + " CPU",
                     f"wall {_ms(s['median_s'])}; {s['files']} files, {s['findings']} findings, "
                     f"median of {s['repeats']}"))
    p = r.get("plan")
    if p is not None:
        if "skipped" in p:
            rows.append(("`kvguard.plan` 1,024 GPUs", "skipped", p["skipped"]))
        else:
            rows.append(("`kvguard.plan` 1,024 GPUs", _ms(p["median_s"]) + " CPU",
                         f"{p['candidates']} candidates, {p['accepted']} accepted, median of {p['repeats']}"))
    o = r.get("oracle")
    if o is not None and "error" not in o:
        rows.append((f"vLLM {r['vllm']} pre-flight (cold process)", _ms(o["cold_median_s"]),
                     f"import vllm.config {_ms(o['import_s'])}, ModelConfig {_ms(o['model_config_s'])}, "
                     f"ParallelConfig+verify {_ms(o['parallel_verify_s'])}; CPU time "
                     f"{_ms(o['cold_cpu_median_s'])}; median of {o['repeats']}"))
        rows.append((f"vLLM {r['vllm']} ParallelConfig+verify / s (warm)", f"{o['warm_checks_per_s']:,.0f}",
                     "same layouts, one process"))
        ratio = o["cold_median_s"] / c["median_s"]
        cpu_ratio = o["cold_cpu_median_s"] / c["cpu_median_s"] if c["cpu_median_s"] else float("nan")
        rows.append(("ratio: vLLM pre-flight / kvguard check (cold, first check of the model)", f"{ratio:,.0f}x",
                     f"target >= {TARGET_COLD_RATIO:.0f}x: "
                     f"{'met' if ratio >= TARGET_COLD_RATIO else 'NOT met'} (wall); by CPU time {cpu_ratio:,.0f}x"))
        rows.append(("ratio: kvguard cached / vLLM warm per layout",
                     f"{k['checks_per_s'] / o['warm_checks_per_s']:,.1f}x", ""))
    elif o is not None:
        rows.append(("vLLM oracle", "skipped", o["error"]))
    met = k["checks_per_s"] >= TARGET_CHECKS_PER_S
    rows.append((f"target: >= {TARGET_CHECKS_PER_S:,} cached checks/s/core", "met" if met else "NOT met",
                 f"{k['checks_per_s']:,.0f}/s"))
    lines = ["| " + " | ".join(rows[0]) + " |", "| --- | ---: | --- |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    head = (f"kvguard benchmarks — vLLM rules {r['vllm']}, Python {sys.version.split()[0]}, "
            f"{os.cpu_count()} CPUs, load average {r['loadavg']}, mode {'short' if r['short'] else 'full'}")
    return head + "\n\n" + "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--short", action="store_true", help="a few seconds in all (CI)")
    ap.add_argument("--vllm", default="0.28.0", help="vLLM release whose rules (and oracle) to use")
    ap.add_argument("--corpus", help="a directory to `kvguard scan`")
    ap.add_argument("--oracle-root", help="root of tools/oracle_env.py environments (e.g. ~/.cache/kvguard-oracle)")
    ap.add_argument("--repeats", type=int, help="repeats per measurement (default 3 short, 11 full)")
    ap.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    args = ap.parse_args(argv)
    repeats = args.repeats or (3 if args.short else 11)
    seconds = 0.3 if args.short else 2.0
    r: dict = {"vllm": args.vllm, "short": args.short, "python": sys.version.split()[0],
               "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    r["cold_check"] = bench_cold_check(args.vllm, repeats)
    r["import"] = bench_import(repeats)
    r["cached"] = bench_cached_checks(args.vllm, seconds, min(repeats, 5))
    if args.corpus:
        r["corpus"] = args.corpus
        r["scan"] = bench_scan(args.vllm, args.corpus, 1 if args.short else 3)
    r["plan"] = bench_plan(args.vllm, 1 if args.short else 5)
    if args.oracle_root:
        try:
            r["oracle"] = bench_oracle(args.oracle_root, args.vllm, 1 if args.short else 5,
                                       1.0 if args.short else 5.0)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            r["oracle"] = {"error": str(exc).splitlines()[0][:200]}
    print(render(r))
    if args.json:
        print(json.dumps(r, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
