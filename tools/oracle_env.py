#!/usr/bin/env python3
"""Cheap CPU-only oracles for many vLLM releases: one base env per transformers line.

The differential tier (tests/upstream) runs a real vLLM release's own config code.
Instead of one ~2 GB venv per release, this builds

  ROOT/base-tf<T>/          a venv per transformers line T: CPU torch 2.13.0, transformers==T
                            and vLLM's common runtime requirements (BASE_PACKAGES)
  ROOT/releases/<X>/        vLLM X alone (``vllm/`` + ``vllm-X.dist-info``), unpacked from the
                            release's wheel without its compiled parts (see below)
  ROOT/overlays/<X>/        only where needed: each distribution of the base whose version
                            release X's own requirements (Requires-Dist) exclude, installed
                            ``--no-deps --target`` at the newest version X accepts, plus what
                            those need that the base lacks or has at an excluded version

and a release runs as ``ROOT/base-tf<T>/bin/python`` with
``PYTHONPATH=ROOT/releases/<X>[:ROOT/overlays/<X>]``: ~0.05 GB and ~5-10 s per release
once its base exists (a base: ~1 min, 1.5 GB).

T is 4.57.6 where the release accepts it, else the newest 5.x it accepts (resolved by pip
once and recorded; a release keeps its line once built).  torch is the CPU build of 2.13.0
for every release (the releases pin CUDA builds of 2.8 ... 2.14 that cannot run here), and
triton (GPU compiler; xgrammar's dependency) is left out, as are Ray and the other GPU-only
requirements: the oracle host is vLLM on a machine without GPUs.  Every other requirement
of the release that the environment holds is honoured (``overlay.unsatisfied`` in
ROOT/releases/<X>/.kvguard-oracle.json lists what is not, if anything).

Not unpacked from the wheel: compiled extension modules (``*.so``), C/C++/CUDA headers
and the ``vllm-rs`` binary.  With CPU torch the CUDA extensions cannot load anyway (their
import raises ImportError either way, which vLLM catches); the Rust frontend is only used
when VLLM_USE_RUST_FRONTEND=1.

A release counts as built once two probes pass in it: ``from vllm.config import
ModelConfig, ParallelConfig; ParallelConfig(tensor_parallel_size=2)``, and the imports of
tests/upstream/serve_runner.py (CPU platform, EngineArgs, make_arg_parser).  A module a
probe finds missing is added to the base (then every release of that line has its overlay
re-derived on its next ``ensure``; ``python``/``command`` report such a release as not
built until then).

usage:
  python tools/oracle_env.py ensure X [X ...] [--root R] [--jobs N]
        build whatever is missing (base line, release target, overlay), probe, and print one
        line per release:  ``X <python> <PYTHONPATH>``.  Exit 1 (one line per failed release
        on stderr, ``oracle_env: vLLM X: <reason>``; logs under ROOT/logs/) if any release
        cannot be made to work.  ``--jobs N``: N releases at a time (their downloads, installs
        and probes overlap; a base is built once; .ci/run builds its 24 with 3).
  python tools/oracle_env.py python X [--root R] [--json]
        the shell command prefix of a built release: ``env PYTHONPATH=... <python>``, e.g.
        ``$(python tools/oracle_env.py python 0.28.0) tests/upstream/oracle_runner.py IN OUT``
        (``--json``: {"python": ..., "env": {"PYTHONPATH": ...}}).  Exit 1 if not built.
  python tools/oracle_env.py check X [X ...] [--root R]
        run tests/upstream/oracle_runner.py (a Qwen3 and a DeepSeek-V3 config, five layouts
        incl. dcp>1 and pp=2) and serve_runner.py (``-tp 2 -dcp 2`` and ``-tp 2`` on the
        Qwen3 config) in each built release; one JSON line per release; exit 1 if any
        release fails to build/run or shows an ImportError-like outcome.
  python tools/oracle_env.py list [--root R]
        the base lines and releases, with sizes and overlays.

From Python: ``command(root, X) -> (python, {"PYTHONPATH": ...}) | None`` and
``ensure(root, X)`` (raises ``Failure``); tests/upstream/differential.py's
``oracle_command`` uses the former.

ROOT defaults to $KVG_ORACLE_ROOT or ~/.cache/kvguard-oracle.  A vLLM wheel is taken from
$KVG_WHEEL_DIR or ~/.cache/kvguard-wheels/wheels when one is there (read-only), else
downloaded with ``pip download --no-deps`` into ROOT/.tmp and deleted after unpacking.
torch comes from the machine's local wheel (KVG_ORACLE_TORCH overrides the requirement);
a CUDA build is refused.  Idempotent: a piece is rebuilt only when its completion marker is
missing; builds under one ROOT are serialised by a lock file.  Standard library only
(requirement logic runs inside a python that has ``packaging`` or pip's vendored copy).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: the local CPU wheel (/opt/wheels here); "+cpu" so that pip never falls back to a CUDA build
TORCH = os.environ.get("KVG_ORACLE_TORCH", "torch==2.13.0+cpu")
TF4 = "4.57.6"
#: release -> the transformers line kvguard's release manifest records for it
MANIFEST = {row["version"]: row["transformers"]
            for row in json.loads((REPO / "kvguard" / "data" / "releases.json").read_text())["releases"]}
#: what every base holds besides torch and transformers: the modules that vLLM's config
#: code (ModelConfig, ParallelConfig, the model registry's inspection subprocess) and the
#: ``vllm serve`` argument/engine-config path import at module level.
BASE_PACKAGES = [
    "packaging", "llguidance", "apache-tvm-ffi", "huggingface_hub", "pydantic>=2.12", "regex", "cachetools", "psutil",
    "numpy", "requests",
    "tqdm", "blake3", "py-cpuinfo", "safetensors", "tokenizers", "msgspec", "pyyaml", "cloudpickle",
    "pyzmq>=25.0.0", "filelock", "typing_extensions>=4.10", "einops", "pybase64", "cbor2", "sentencepiece",
    "aiohttp", "openai", "openai-harmony", "pillow", "uvloop", "prometheus_client>=0.18.0", "fastapi",
    "partial-json-parser", "loguru", "gguf", "frozendict", "setproctitle", "watchfiles", "python-json-logger",
    "tiktoken", "lark==1.2.2", "prometheus-fastapi-instrumentator", "protobuf", "diskcache", "ijson",
    "mistral_common", "jsonschema", "lm-format-enforcer", "starlette", "opencv-python-headless",
]
#: installed --no-deps into the base (their other dependencies are in the base already;
#: xgrammar's triton, 1 GB of GPU compiler, is left out on purpose); the release's own pin,
#: if any, then goes to its overlay
BASE_NODEPS = ["compressed-tensors", "xgrammar"]
#: never installed by this tool beyond the base: the CPU torch stack is fixed, triton is a
#: GPU compiler, transformers is the line
NOT_OVERLAID = {"torch", "torchvision", "torchaudio", "triton", "transformers"}
#: module name -> distribution, for the import probe's self-healing
MODULE_DIST = {"PIL": "pillow", "cv2": "opencv-python-headless", "zmq": "pyzmq", "yaml": "pyyaml",
               "cpuinfo": "py-cpuinfo", "google": "protobuf", "pythonjsonlogger": "python-json-logger",
               "sklearn": "scikit-learn", "lmformatenforcer": "lm-format-enforcer", "jwt": "pyjwt",
               "dateutil": "python-dateutil"}

IMPORT_PROBE = ("from vllm.config import ModelConfig, ParallelConfig; ParallelConfig(tensor_parallel_size=2); "
                "print('KVG_ORACLE_OK')")
#: the modules tests/upstream/serve_runner.py imports (run with VLLM_TARGET_DEVICE=cpu)
SERVE_PROBE = """
import importlib
import vllm.platforms as platforms
from vllm.platforms.cpu import CpuPlatform
platforms._current_platform = CpuPlatform()
from vllm.engine.arg_utils import EngineArgs
for mod in ("vllm.entrypoints.openai.cli_args", "vllm.entrypoints.launchers.cli_args",
            "vllm.entrypoints.common.cli_args"):
    try:
        importlib.import_module(mod).make_arg_parser
        break
    except ModuleNotFoundError as exc:
        if not exc.name.startswith("vllm"):
            raise
else:
    raise SystemExit("no make_arg_parser")
print("KVG_ORACLE_OK")
"""


class Failure(Exception):
    """A release (or base) that cannot be made to work; str() is the one-line reason."""


def default_root() -> Path:
    return Path(os.environ.get("KVG_ORACLE_ROOT") or os.path.expanduser("~/.cache/kvguard-oracle"))


def _log(root: Path, name: str) -> Path:
    (root / "logs").mkdir(parents=True, exist_ok=True)
    return root / "logs" / f"{name}.log"


def _run(cmd, log: Path, env=None, check=True, cwd=None) -> subprocess.CompletedProcess:
    with open(log, "a") as fh:
        fh.write(f"\n$ {' '.join(map(str, cmd))}\n")
        fh.flush()
        proc = subprocess.run([str(c) for c in cmd], stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    if check and proc.returncode != 0:
        raise Failure(f"`{' '.join(map(str, cmd[:6]))} ...` exited {proc.returncode}; see {log}")
    return proc


def _capture(cmd, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=timeout)


@contextlib.contextmanager
def _locked(root: Path):
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_LINE_LOCKS: dict[str, threading.Lock] = {}
_LINE_LOCKS_GUARD = threading.Lock()


def _line_lock(line: str) -> threading.Lock:
    """One lock per transformers line: the jobs of ``ensure --jobs N`` build a base once and change it one at
    a time."""
    with _LINE_LOCKS_GUARD:
        return _LINE_LOCKS.setdefault(line, threading.Lock())


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _du(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


# --------------------------------------------------------------------------- packaging helpers
# Run inside a python that has `packaging` (a base env) or pip's vendored copy (any python).

_PKG_HELPER = r"""
import json, sys
try:
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version
import email, re
job = json.load(sys.stdin)
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
out = {}
if job["op"] == "requires":
    meta = email.message_from_bytes(open(job["metadata"], "rb").read())
    reqs = {}
    for line in meta.get_all("Requires-Dist") or []:
        r = Requirement(line)
        if r.marker is not None and not r.marker.evaluate({"extra": ""}):
            continue
        reqs[norm(r.name)] = str(r.specifier)
    out = {"requires": reqs, "requires_python": meta.get("Requires-Python")}
elif job["op"] == "unsatisfied":
    # requirements of the given distributions (all of them if none given) that the
    # environment, as this interpreter sees it (PYTHONPATH first), does not satisfy
    from importlib import metadata
    names = job.get("dists") or sorted({d.metadata["Name"] for d in metadata.distributions()})
    bad = []
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for line in dist.requires or []:
            r = Requirement(line)
            if r.marker is not None and not r.marker.evaluate({"extra": ""}):
                continue
            try:
                have = metadata.version(r.name)
            except metadata.PackageNotFoundError:
                have = None
            if have is None or not r.specifier.contains(have, prereleases=True):
                bad.append([name, norm(r.name), str(r.specifier), have])
    out = {"unsatisfied": bad}
elif job["op"] == "contains":
    out = {k: SpecifierSet(spec, prereleases=False).contains(Version(v), prereleases=False)
           for k, (spec, v) in job["pairs"].items()}
print(json.dumps(out))
"""


def _pkg(python: str, job: dict, pythonpath: str | None = None) -> dict:
    env = None
    if pythonpath is not None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([python, "-c", _PKG_HELPER], input=json.dumps(job), capture_output=True, text=True,
                          env=env)
    if proc.returncode != 0:
        raise Failure(f"packaging helper failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout)


def _resolve(python: str, requirement: str, log: Path) -> str:
    """The version pip would install for `requirement` (one index look-up)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as rep:
        _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--dry-run", "--ignore-installed",
              "--no-deps", "--report", rep.name, requirement], log)
        report = json.load(open(rep.name))
    return report["install"][0]["metadata"]["version"]


# --------------------------------------------------------------------------- release targets

SKIP_SUFFIXES = (".h", ".hpp", ".cuh", ".inl")


def _skip_member(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return (name.endswith(".so") or ".so." in base or base == "vllm-rs" or name.endswith(SKIP_SUFFIXES))


def _find_wheel(version: str) -> Path | None:
    dirs = [os.environ.get("KVG_WHEEL_DIR"), os.path.expanduser("~/.cache/kvguard-wheels/wheels")]
    for d in filter(None, dirs):
        hits = sorted(glob.glob(os.path.join(d, f"vllm-{version}-*.whl")))
        if hits:
            return Path(hits[0])
    return None


def ensure_release(root: Path, version: str) -> Path:
    """ROOT/releases/X: vllm X unpacked (no compiled parts). Returns the directory."""
    dest = root / "releases" / version
    marker = dest / ".kvguard-release.json"
    if marker.exists():
        return dest
    log = _log(root, f"release-{version}")
    t0 = time.time()
    wheel = _find_wheel(version)
    tmpdir = None
    if wheel is None:
        tmpdir = Path(tempfile.mkdtemp(prefix=f"wheel-{version}-", dir=_mk(root / ".tmp")))
        proc = _run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                     "--only-binary=:all:", f"vllm=={version}", "-d", tmpdir], log, check=False)
        if proc.returncode != 0:
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise Failure(f"no wheel of vllm=={version} could be downloaded (pip download exited "
                          f"{proc.returncode}; see {log})")
        hits = sorted(tmpdir.glob(f"vllm-{version}-*.whl"))
        if not hits:
            raise Failure(f"pip download of vllm=={version} gave no wheel; see {log}")
        wheel = hits[0]
    staging = root / "releases" / f".{version}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    skipped = 0
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = zf.namelist()
            if f"vllm-{version}.dist-info/METADATA" not in names:
                raise Failure(f"{wheel.name} holds no vllm-{version}.dist-info/METADATA")
            for info in zf.infolist():
                if info.is_dir():
                    continue
                if _skip_member(info.filename):
                    skipped += info.file_size
                    continue
                zf.extract(info, staging)
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
    (staging / ".kvguard-release.json").write_text(json.dumps(
        {"version": version, "wheel": wheel.name, "skipped_bytes": skipped,
         "unpack_seconds": round(time.time() - t0, 1)}, indent=1))
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)
    return dest


def _mk(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def release_requirements(root: Path, version: str, python: str) -> dict:
    meta = root / "releases" / version / f"vllm-{version}.dist-info" / "METADATA"
    return _pkg(python, {"op": "requires", "metadata": str(meta)})


# --------------------------------------------------------------------------- transformers line

def transformers_line(root: Path, version: str) -> str:
    """The transformers version release X runs with.

    A release in kvguard's manifest (kvguard/data/releases.json) runs with the line recorded
    there, checked against the release's own requirement; a release not yet in it (a new
    one) gets 4.57.6 where it accepts it, else the newest 5.x it accepts, which is what its
    manifest row should then record (docs/new-release.md).
    """
    state = root / "releases" / version / ".kvguard-line.json"
    got = _read_json(state)
    if got:
        return got["transformers"]
    py = _any_python(root)
    spec = release_requirements(root, version, py)["requires"].get("transformers", "")
    recorded = MANIFEST.get(version)
    if recorded is not None:
        if spec and not _pkg(py, {"op": "contains", "pairs": {"line": [spec, recorded]}})["line"]:
            raise Failure(f"vLLM {version} requires transformers{spec}, which excludes {recorded}, "
                          "the line kvguard/data/releases.json records for it")
        line = recorded
    elif _pkg(py, {"op": "contains", "pairs": {"tf4": [spec, TF4]}})["tf4"]:
        line = TF4
    else:
        line = _resolve(py, f"transformers{spec},>=5" if spec else "transformers>=5", _log(root, f"release-{version}"))
    state.write_text(json.dumps({"transformers": line, "release_spec": spec}))
    return line


def _any_python(root: Path) -> str:
    for py in sorted(root.glob("base-tf*/bin/python")):
        if (py.parent.parent / ".kvguard-base.json").exists():
            return str(py)
    return sys.executable


# --------------------------------------------------------------------------- base envs

def base_dir(root: Path, line: str) -> Path:
    return root / f"base-tf{line}"


def _base_python_interpreter() -> str:
    return os.environ.get("KVG_ORACLE_PYTHON") or getattr(sys, "_base_executable", None) or sys.executable


def ensure_base(root: Path, line: str) -> Path:
    venv = base_dir(root, line)
    marker = venv / ".kvguard-base.json"
    if marker.exists():
        return venv
    log = _log(root, f"base-tf{line}")
    t0 = time.time()
    shutil.rmtree(venv, ignore_errors=True)
    _run([_base_python_interpreter(), "-m", "venv", venv], log)
    py = venv / "bin" / "python"
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, TORCH, "packaging"], log)
    probe = _capture([py, "-c", "import torch; print(torch.__version__, torch.version.cuda)"])
    if probe.returncode != 0 or probe.stdout.split()[1:] != ["None"]:
        raise Failure(f"base tf{line}: torch is not a CPU build ({probe.stdout.strip() or probe.stderr[-200:]})")
    _run([*pip, f"transformers=={line}", *BASE_PACKAGES], log)
    _run([*pip, "--no-deps", *BASE_NODEPS], log)
    _complete_base(py, BASE_NODEPS, log)
    freeze = _capture([py, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"])
    pkgs = {_norm(p["name"]): p["version"] for p in json.loads(freeze.stdout)}
    if pkgs.get("torch") != probe.stdout.split()[0]:
        raise Failure(f"base tf{line}: torch changed to {pkgs.get('torch')} while installing the base; see {log}")
    marker.write_text(json.dumps({"transformers": line, "torch": pkgs.get("torch"), "packages": pkgs,
                                  "build_seconds": round(time.time() - t0, 1)}, indent=1))
    return venv


def base_packages(root: Path, line: str) -> dict:
    return _read_json(base_dir(root, line) / ".kvguard-base.json")["packages"]


def base_fingerprint(root: Path, line: str) -> str:
    pkgs = base_packages(root, line)
    return hashlib.sha256(json.dumps(pkgs, sort_keys=True).encode()).hexdigest()[:16]


def _complete_base(py: Path, dists: list[str], log: Path) -> None:
    """Install what ``dists`` (installed --no-deps) need beyond the base, never NOT_OVERLAID."""
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    for _round in range(4):
        bad = _pkg(str(py), {"op": "unsatisfied", "dists": [_norm(d) for d in dists]})["unsatisfied"]
        fix: dict[str, list[str]] = {}
        for _who, name, spec, _have in bad:
            if name not in NOT_OVERLAID:
                fix.setdefault(name, []).append(spec)
        if not fix:
            return
        _run([*pip, *(f"{n}{_merge(specs)}" for n, specs in sorted(fix.items()))], log)


def _add_to_base(root: Path, line: str, dist: str, log: Path) -> None:
    """Self-healing: a module a probe found missing goes into the base for good."""
    venv = base_dir(root, line)
    py = venv / "bin" / "python"
    _run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", dist], log)
    _complete_base(py, [dist], log)
    data = _read_json(venv / ".kvguard-base.json")
    freeze = _capture([py, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"])
    data["packages"] = {_norm(p["name"]): p["version"] for p in json.loads(freeze.stdout)}
    data.setdefault("added_by_probe", []).append(dist)
    (venv / ".kvguard-base.json").write_text(json.dumps(data, indent=1))


# --------------------------------------------------------------------------- overlays

def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _merge(specs: list[str]) -> str:
    return ",".join(sorted({p for spec in specs for p in spec.split(",") if p}))


def ensure_overlay(root: Path, version: str, line: str) -> dict:
    """Pins of release X that the base violates -> ROOT/overlays/X (--no-deps --target).

    The overlaid distributions' own requirements that base + overlay then miss or violate
    are added to the overlay too (newest version satisfying all who ask), until none are
    left; requirements on the fixed CPU torch stack, triton and the transformers line are
    recorded in ``unsatisfied`` instead.
    """
    venv = base_dir(root, line)
    py = str(venv / "bin" / "python")
    reqs = release_requirements(root, version, py)["requires"]
    pkgs = base_packages(root, line)
    pairs = {name: [spec, pkgs[name]] for name, spec in reqs.items()
             if spec and name in pkgs and name not in NOT_OVERLAID}
    ok = _pkg(py, {"op": "contains", "pairs": pairs})
    wanted = sorted(f"{name}{pairs[name][0]}" for name, good in ok.items() if not good)
    dest = root / "overlays" / version
    state = dest / ".kvguard-overlay.json"
    have = _read_json(state)
    fingerprint = base_fingerprint(root, line)
    if have is not None and have.get("requirements") == wanted and have.get("base") == fingerprint:
        return have
    shutil.rmtree(dest, ignore_errors=True)
    result = {"requirements": wanted, "added": [], "installed": {}, "unsatisfied": [], "base": fingerprint}
    if not wanted:
        return result
    log = _log(root, f"release-{version}")
    _mk(dest)
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "--upgrade",
           "--target", dest]
    _run([*pip, *wanted], log)
    for _round in range(8):
        inside = [_norm(m.group(1)) for d in dest.glob("*.dist-info")
                  if (m := re.match(r"(.+?)-([^-]+)\.dist-info$", d.name))]
        bad = _pkg(py, {"op": "unsatisfied", "dists": inside}, pythonpath=str(dest))["unsatisfied"]
        fix: dict[str, list[str]] = {}
        for _who, name, spec, _have in bad:
            if name in NOT_OVERLAID:
                continue
            fix.setdefault(name, []).append(spec)
        if not fix:
            break
        extra = [f"{name}{_merge(specs + [reqs.get(name, '')])}" for name, specs in sorted(fix.items())]
        result["added"].extend(extra)
        _run([*pip, *extra], log)
    else:
        raise Failure(f"vLLM {version}: overlay dependencies did not settle ({result['added']}); see {log}")
    for d in dest.glob("*.dist-info"):
        m = re.match(r"(.+?)-([^-]+)\.dist-info$", d.name)
        if m:
            result["installed"][_norm(m.group(1))] = m.group(2)
    # a `pip check` of the whole environment as the release sees it (informational)
    everything = _pkg(py, {"op": "unsatisfied"}, pythonpath=str(dest))["unsatisfied"]
    result["unsatisfied"] = [b for b in everything if b[1] not in ("torch", "triton")]
    state.write_text(json.dumps(result, indent=1))
    return result


# --------------------------------------------------------------------------- assembling a release

def command(root: Path, version: str) -> tuple[str, dict[str, str]] | None:
    """(python, env overrides) of a built, current release, or None.

    None too when the release's base has changed since its overlay was computed (a module
    was added to the base for another release): ``ensure`` then brings it up to date.
    """
    state = _read_json(root / "releases" / version / ".kvguard-oracle.json")
    if not state:
        return None
    python = root / state["python"]
    paths = [str(root / p) for p in state["pythonpath"]]
    if not python.exists() or not all(os.path.isdir(p) for p in paths):
        return None
    base = _read_json(base_dir(root, state["transformers"]) / ".kvguard-base.json")
    if not base or state.get("base") != base_fingerprint(root, state["transformers"]):
        return None
    return str(python), {"PYTHONPATH": os.pathsep.join(paths)}


def _probe_env(pythonpath: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PYTHONPATH=pythonpath, HF_HUB_OFFLINE="1", PYTHONNOUSERSITE="1")
    return env


def ensure(root: Path, version: str) -> tuple[str, dict[str, str]]:
    if not re.fullmatch(r"\d+(\.\d+)+(\.post\d+)?", version):
        raise Failure(f"{version!r} is not a vLLM release number")
    done = command(root, version)
    if done:
        return done
    (root / "releases" / version / ".kvguard-oracle.json").unlink(missing_ok=True)
    t0 = time.time()
    rel = ensure_release(root, version)
    t_unpack = time.time() - t0
    line = transformers_line(root, version)
    t1 = time.time()
    with _line_lock(line):
        venv = ensure_base(root, line)
    t_base = time.time() - t1
    log = _log(root, f"release-{version}")
    python = venv / "bin" / "python"
    probes = [("import", IMPORT_PROBE, {}), ("serve-import", SERVE_PROBE, {"VLLM_TARGET_DEVICE": "cpu"})]
    attempt = 0
    added_meanwhile: set[str] = set()
    while True:
        overlay = ensure_overlay(root, version, line)
        paths = [rel] + ([root / "overlays" / version] if overlay["requirements"] else [])
        pythonpath = os.pathsep.join(map(str, paths))
        failed = None
        for name, code, extra_env in probes:
            with tempfile.TemporaryDirectory(prefix="kvg-probe-") as tmp:
                env = _probe_env(pythonpath)
                env.update(extra_env, VLLM_CACHE_ROOT=tmp)
                proc = _capture([python, "-c", code], env=env, timeout=900)
            out = proc.stdout + proc.stderr
            with open(log, "a") as fh:
                fh.write(f"\n$ {name} probe (attempt {attempt})\n{out[-4000:]}\n")
            if "KVG_ORACLE_OK" not in proc.stdout:
                failed = (name, out)
                break
        if failed is None:
            break
        name, out = failed
        # the error that ended the probe (earlier lines hold vLLM's own caught warnings)
        last_line = ([ln for ln in out.strip().splitlines() if ln.strip()] or [""])[-1]
        missing = re.findall(r"No module named '([^']+)'", last_line)
        top = missing[0].split(".")[0] if missing else None
        if not top or top == "vllm":
            last = [ln for ln in out.strip().splitlines() if ln.strip()][-1:] or ["(no output)"]
            raise Failure(f"vLLM {version} on base tf{line}: {name} probe failed: {last[0][:300]} (log {log})")
        dist = MODULE_DIST.get(top, top)
        attempt += 1
        if attempt > 12:
            raise Failure(f"vLLM {version} on base tf{line}: module {missing[0]!r} stays missing (log {log})")
        with _line_lock(line):
            if _norm(dist) not in base_packages(root, line):
                _add_to_base(root, line, dist, log)
            elif dist in added_meanwhile:
                raise Failure(f"vLLM {version} on base tf{line}: module {missing[0]!r} stays missing (log {log})")
            else:
                added_meanwhile.add(dist)  # another job added it while this probe ran: probe again
    state = {"version": version, "transformers": line,
             "python": str(python.relative_to(root)),
             "pythonpath": [str(Path(p).relative_to(root)) for p in paths],
             "base": base_fingerprint(root, line), "overlay": overlay, "unpack_seconds": round(t_unpack, 1),
             "base_seconds": round(t_base, 1),
             "total_seconds": round(time.time() - t0, 1)}
    (rel / ".kvguard-oracle.json").write_text(json.dumps(state, indent=1))
    return command(root, version)


def ensure_many(root: Path, versions: list[str], jobs: int, done) -> int:
    """``ensure`` each release, ``jobs`` at a time (downloads, pip installs and probes overlap; a base is built
    once, by the first job that needs it); ``done(version, result_or_failure)`` as each finishes.  The
    releases are started one transformers line after another, so that the first jobs build different bases.
    A release whose base another job changed meanwhile (a module added by a probe) is ensured again at the
    end (and reported again).  Returns the number of releases that failed."""
    by_line: dict[str, list[str]] = {}
    for version in dict.fromkeys(versions):
        by_line.setdefault(MANIFEST.get(version, version), []).append(version)
    queues = list(by_line.values())
    order = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
    failed: dict[str, Failure] = {}

    def one(version: str):
        try:
            return ensure(root, version)
        except Failure as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(one, version): version for version in order}
        for future in as_completed(futures):
            version, result = futures[future], future.result()
            if isinstance(result, Failure):
                failed[version] = result
            done(version, result)
    for version in order:
        if version not in failed and command(root, version) is None:
            result = one(version)
            if isinstance(result, Failure):
                failed[version] = result
            done(version, result)
    return len(failed)


# --------------------------------------------------------------------------- self-check

QWEN3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 36,
         "intermediate_size": 12288, "vocab_size": 151936, "max_position_embeddings": 40960,
         "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6, "rope_theta": 1000000}
DSV3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
        "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61,
        "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1,
        "first_k_dense_replace": 3, "max_position_embeddings": 163840, "torch_dtype": "bfloat16"}
LAYOUTS = [{"tensor_parallel_size": 2}, {"tensor_parallel_size": 8, "decode_context_parallel_size": 2},
           {"tensor_parallel_size": 4, "pipeline_parallel_size": 2},
           {"tensor_parallel_size": 8, "decode_context_parallel_size": 8},
           {"tensor_parallel_size": 4, "decode_context_parallel_size": 3}]
ENV_ERRORS = ("ImportError", "ModuleNotFoundError", "AttributeError", "NameError", "SyntaxError")


def check(root: Path, version: str) -> dict:
    """Checks (a) import, (b) oracle_runner on two configs, (c) serve_runner -tp 2 -dcp 2."""
    cmd = command(root, version)
    if cmd is None:
        return {"version": version, "built": False}
    python, over = cmd
    res = {"version": version, "built": True}
    with tempfile.TemporaryDirectory(prefix="kvg-check-") as tmp:
        env = _probe_env(over["PYTHONPATH"])
        env["VLLM_CACHE_ROOT"] = os.path.join(tmp, "vllm-cache")
        t = time.time()
        p = _capture([python, "-c", IMPORT_PROBE], env=env)
        res["a"] = {"ok": "KVG_ORACLE_OK" in p.stdout, "seconds": round(time.time() - t, 1),
                    "tail": (p.stdout + p.stderr).strip().splitlines()[-1:]}
        cases = os.path.join(tmp, "cases.json")
        out = os.path.join(tmp, "out.json")
        json.dump({"env": {}, "cases": [{"id": "qwen3", "config": QWEN3, "layouts": LAYOUTS},
                                        {"id": "dsv3", "config": DSV3, "layouts": LAYOUTS}]}, open(cases, "w"))
        t = time.time()
        p = _capture([python, REPO / "tests" / "upstream" / "oracle_runner.py", cases, out], env=env)
        b = {"rc": p.returncode, "seconds": round(time.time() - t, 1)}
        if p.returncode == 0 and os.path.exists(out):
            recs = json.load(open(out))
            b["outcomes"] = {r["id"]: ([lay.get("stage") if lay.get("stage") == "ok" else lay.get("exc_type")
                                        for lay in r.get("layouts", [])] if r.get("stage") == "facts"
                                       else f"model:{r.get('exc_type')}: {str(r.get('message'))[:150]}")
                             for r in recs}
            b["facts"] = {r["id"]: r.get("facts") for r in recs}
            flat = [o for v in b["outcomes"].values() for o in (v if isinstance(v, list) else [v])]
            b["env_error"] = any(any(e in str(o) for e in ENV_ERRORS) for o in flat)
        else:
            b["tail"] = p.stderr.strip().splitlines()[-3:]
        res["b"] = b
        json.dump({"env": {}, "cases": [{"id": "qwen3-tp2-dcp2", "config": QWEN3, "args": ["-tp", "2", "-dcp", "2"]},
                                        {"id": "qwen3-tp2", "config": QWEN3, "args": ["-tp", "2"]}]},
                  open(cases, "w"))
        env["VLLM_TARGET_DEVICE"] = "cpu"
        t = time.time()
        p = _capture([python, REPO / "tests" / "upstream" / "serve_runner.py", cases, out], env=env)
        c = {"rc": p.returncode, "seconds": round(time.time() - t, 1)}
        if p.returncode == 0 and os.path.exists(out):
            recs = json.load(open(out))
            c["outcomes"] = {r["id"]: {"stage": r.get("stage"), "exc_type": r.get("exc_type"),
                                       "message": str(r.get("message"))[:200]} for r in recs}
            c["env_error"] = any(r.get("exc_type") in ENV_ERRORS for r in recs)
        else:
            c["tail"] = p.stderr.strip().splitlines()[-3:]
        res["c"] = c
    return res


# --------------------------------------------------------------------------- CLI

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", choices=["ensure", "python", "check", "list"])
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--json", action="store_true", help="python: print {python, env} as JSON")
    ap.add_argument("--jobs", type=int, default=1, help="ensure: releases built at a time (default 1)")
    args = ap.parse_intermixed_args(argv)  # options before or among the releases (ensure --jobs 3 X Y)
    root = (args.root or default_root()).expanduser().resolve()
    if args.op in ("ensure", "python", "check") and not args.versions:
        ap.error(f"{args.op} needs at least one release")
    if args.op == "ensure" and args.jobs > 1:
        def report(version, result):
            if isinstance(result, Failure):
                print(f"oracle_env: vLLM {version}: {result}", file=sys.stderr, flush=True)
            else:
                print(version, result[0], result[1]["PYTHONPATH"], flush=True)

        with _locked(root):
            return 1 if ensure_many(root, args.versions, args.jobs, report) else 0
    if args.op == "ensure":
        rc = 0
        for v in args.versions:
            try:
                with _locked(root):
                    python, env = ensure(root, v)
            except Failure as exc:
                print(f"oracle_env: vLLM {v}: {exc}", file=sys.stderr)
                rc = 1
                continue
            print(v, python, env["PYTHONPATH"], flush=True)
        return rc
    if args.op == "python":
        if len(args.versions) != 1:
            ap.error("python takes one release")
        cmd = command(root, args.versions[0])
        if cmd is None:
            print(f"oracle_env: vLLM {args.versions[0]} is not built under {root}, or its base "
                  f"changed since (python tools/oracle_env.py ensure {args.versions[0]})", file=sys.stderr)
            return 1
        python, env = cmd
        if args.json:
            print(json.dumps({"python": python, "env": env}))
        else:
            print(f"env PYTHONPATH={env['PYTHONPATH']} {python}")
        return 0
    if args.op == "check":
        rc = 0
        for v in args.versions:
            r = check(root, v)
            print(json.dumps(r, default=str), flush=True)
            bad = (not r.get("built") or not r["a"]["ok"] or r["b"].get("rc") != 0 or r["b"].get("env_error")
                   or r["c"].get("rc") != 0 or r["c"].get("env_error"))
            rc |= bool(bad)
        return rc
    if args.op == "list":
        for b in sorted(root.glob("base-tf*")):
            data = _read_json(b / ".kvguard-base.json") or {}
            print(f"base {b.name} {'ok' if data else 'INCOMPLETE'} {_du(b) / 1e9:.2f} GB")
        for r in sorted(root.glob("releases/*"), key=lambda p: [int(x) for x in re.findall(r"\d+", p.name)]):
            st = _read_json(r / ".kvguard-oracle.json")
            ov = root / "overlays" / r.name
            print(f"release {r.name} {'ok' if st else 'INCOMPLETE'} tf{(st or {}).get('transformers', '?')} "
                  f"{_du(r) / 1e6:.0f} MB overlay={(st or {}).get('overlay', {}).get('installed', {})} "
                  f"{_du(ov) / 1e6 if ov.exists() else 0:.0f} MB")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
