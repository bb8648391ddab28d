"""What the tests against real vLLM releases share: finding a release's oracle (or skipping),
running a runner script inside it, the --kv-cache-dtype values a release accepts.

Without an oracle a test skips — unless KVG_REQUIRE_ORACLE=1 (as in .ci/run), which
turns a missing oracle into a failure.  tools/oracle_env.py ensure X builds one.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from kvguard.errors import InputError
from kvguard.kv.kvsize import KV_CACHE_DTYPE_BYTES, kv_cache_dtype_bytes

from .differential import oracle_command

HERE = Path(__file__).resolve().parent


def release_sample(versions: list[str], since: str, *, also: tuple[str, ...] = ()) -> list[str]:
    """A CI sample of ``versions``: the first release from ``since``, those of ``also`` among them, and the last."""
    from packaging.version import Version

    later = [v for v in versions if Version(v.split("+")[0]) >= Version(since)]
    return list(dict.fromkeys(later[:1] + [v for v in later if v in also] + later[-1:]))


def oracle_or_skip(version: str) -> tuple[str, dict[str, str]]:
    """(python, environment overrides) of the oracle for ``version`` (differential.oracle_command)."""
    found = oracle_command(version)
    if found is None:
        root = os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle"))
        if os.environ.get("KVG_REQUIRE_ORACLE") == "1":
            pytest.fail(f"oracle for vLLM {version} missing under {root} (KVG_REQUIRE_ORACLE=1)")
        pytest.skip(f"no oracle for vLLM {version} (build one with python tools/oracle_env.py ensure {version})")
    return found


def run_runner(script: str, python: str, python_env: dict[str, str], cases: list[dict], *,
               unset: tuple[str, ...] = (), env: "dict[str, str] | None" = None) -> dict:
    """Run ``tests/upstream/<script>`` with the oracle's ``python`` on ``{"cases": cases}`` (and
    ``"env"``: the environment vLLM sees, for runners that read it); its output."""
    with tempfile.TemporaryDirectory(prefix="kvg-runner-") as tmp:
        inp, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        Path(inp).write_text(json.dumps({"cases": cases, **({"env": env} if env else {})}))
        # TMPDIR: the runner's per-case work folders go inside ``tmp`` and leave with it
        env = dict(os.environ, VLLM_CACHE_ROOT=os.path.join(tmp, "vllm-cache"), TMPDIR=tmp)
        for name in unset:
            env.pop(name, None)
        env.update(python_env)
        proc = subprocess.run([python, str(HERE / script), inp, out], env=env, capture_output=True, text=True,
                              timeout=900)
        if proc.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"{script} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return json.loads(Path(out).read_text())


def run_in_oracle(version: str, script: str, cases: list[dict], **overrides: str) -> "dict | list | None":
    """:func:`run_runner` of ``script`` on ``cases`` in the oracle of ``version`` (vLLM on its CPU platform, Hugging Face
    offline, ``overrides`` on top), or None when no oracle of it is built: how tools/measure_*_names.py ask a release."""
    found = oracle_command(version)
    if found is None:
        return None
    python, python_env = found
    return run_runner(script, python, dict(python_env, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1", **overrides),
                      cases)


def accepted_kv_cache_dtypes(version: str) -> list[str]:
    """``auto`` and the plain --kv-cache-dtype values kvguard sizes that ``version`` accepts."""
    out = ["auto"]
    for name in KV_CACHE_DTYPE_BYTES:
        try:
            kv_cache_dtype_bytes(name, vllm_version=version)
        except InputError:
            continue
        out.append(name)
    return out


def attention_shape(rng, mla: bool, heads=(1, 2, 4, 8, 16, 32, 64)) -> tuple[int, int]:
    """A generated layer's (KV heads per rank, head size): MLA's one latent head of kv_lora_rank +
    qk_rope_head_dim, or GQA/MHA heads of a usual size."""
    if mla:
        kv_lora, rope = rng.choice([(512, 64), (256, 64), (512, 32), (128, 64)])
        return 1, kv_lora + rope
    return rng.choice(heads), rng.choice([64, 80, 96, 112, 128, 192, 256])


def flag_switch(rng, table: dict, name: str, choices: tuple[str, ...] = ("on", "off", "default", "default")) -> list[str]:
    """``--NAME``, a negative spelling of it the release defines, or nothing (``choices``: the draw's weights)."""
    choice = rng.choice(choices)
    if choice == "default" or f"--{name}" not in table:
        return []
    if choice == "on":
        return [f"--{name}"]
    negatives = [opt for opt in (f"--no-{name}", "--" + name.replace("enable-", "disable-", 1)) if opt in table]
    return [rng.choice(negatives)] if negatives else []


def generated_launches(prefix: str, generate, *, errors: bool = False):
    """``run(version, n, seed)``: ``generate(seed, n, version, root)``'s launches through
    tests.upstream.test_speculative.compare_launches, their checkpoints in a temporary folder (``errors``: a
    ValidationError's every entry compared)."""
    import shutil

    from .test_speculative import compare_launches

    def run(version: str, n: int, seed: int) -> dict:
        root = tempfile.mkdtemp(prefix=prefix)
        try:
            return compare_launches(version, seed, generate(seed, n, version, root), errors=errors)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    return run


def launch_case(root: str, ident: str, target: str, config: dict, args: list[str], **extra) -> dict:
    """One generated launch for compare_launches: ``vllm serve`` of a checkpoint whose config.json is ``config``,
    written to ``root/ident`` (``extra``: the case's other keys — ``env``, ``files``, ``frontend``)."""
    return {"id": ident, "target": target, "config": config, "model_dir": os.path.join(root, ident), "args": args,
            **extra}


def launch_differential(run, *, kind: str, label: str, cases: tuple[str, int], seed: str,
                        versions: list[str], since: str, also: tuple[str, ...] = ()):
    """The pytest entry of a launch differential: for each release of ``release_sample(versions, since, also)``,
    ``run(version, n, seed)`` with ``n`` from the environment variable ``cases[0]`` (default ``cases[1]``) and the
    seed from ``seed`` (default 0), its report checked by :func:`check_launch_report` under ``kind`` / ``label``."""
    variable, default = cases

    @pytest.mark.parametrize("version", release_sample(versions, since, also=also))
    def test(version):
        report = run(version, int(os.environ.get(variable, str(default))), int(os.environ.get(seed, "0")))
        check_launch_report(report, kind, label)

    return test


def check_launch_report(report: dict, kind: str, label: str) -> None:
    """A launch differential's verdict: the report kept as ``KVG_DIFF_REPORT_DIR/<kind>-<release>.json`` (the CI
    summary reads it), its counts printed, some agreement and no disagreement asserted."""
    counts = report["counts"]
    out_dir = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        Path(out_dir, f"{kind}-{report['version']}.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"\nvLLM {report['version']} {label}: {counts}")
    assert counts.get("agree", 0) > 0
    assert not report["mismatches"], json.dumps(report["mismatches"][:5], indent=1, default=str)


def serve_records(python: str, python_env: dict[str, str], cases: list[dict]) -> dict[str, dict]:
    """serve_runner.py's record of each case, by id, on the CPU oracle (offline; the inspection and torchvision
    stand-ins CI states, in-process and stubbed unless the environment says otherwise)."""
    runner_env = dict(python_env, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
                      KVG_ORACLE_INSPECT=os.environ.get("KVG_ORACLE_INSPECT", "inprocess"),
                      KVG_ORACLE_TORCHVISION=os.environ.get("KVG_ORACLE_TORCHVISION", "stub"))
    return {r["id"]: r for r in run_runner("serve_runner.py", python, runner_env, cases)}


def serve_oracle_answer(record: dict) -> tuple:
    """A serve_runner record as a comparable answer: ok, argparse's refusal, or the refusal's stage, exception type,
    message and pydantic wrapper (the runner records every refusal of create_engine_config at its stage "engine")."""
    if record["stage"] in ("ok", "argparse"):
        return (record["stage"],)
    return (record["stage"], record.get("exc_type"), record.get("message"), record.get("wrapped_by"))


def serve_kvguard_answer(version: str, words: list[str]) -> tuple:
    """kvguard's answer to a ``[NAME=value ...] vllm serve MODEL ...`` command on the CPU oracles' host, in the form of
    serve_oracle_answer (``("undecidable",)`` where kvguard cannot decide)."""
    from kvguard import examine
    from kvguard.errors import Undecidable
    from kvguard.launch.layout import Host

    try:
        verdict = examine(version, words, host=Host(platform="cpu")).verdict
    except Undecidable:
        return ("undecidable",)
    if verdict.ok:
        return ("ok",)
    if verdict.stage == "argparse":
        return ("argparse",)
    stage = verdict.stage if verdict.stage == "frontend" else "engine"
    return (stage, verdict.exc_type, verdict.message, verdict.wrapped_by)


def launches_main(doc: str, run) -> None:
    """The command line of a launch differential run directly: ``VERSION… [--cases N] [--seed S]``, each release's
    counts, then its mismatches and undecidable launches (``run(version, cases, seed)`` returns the report of
    tests.upstream.test_speculative.compare_launches)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("versions", nargs="+")
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    for version in options.versions:
        report = run(version, options.cases, options.seed)
        print(version, dict(report["counts"]))
        for mismatch in report["mismatches"]:
            print("  MISMATCH", mismatch["target"], " ".join(mismatch["args"]))
            print("    oracle :", mismatch["oracle"])
            print("    kvguard:", mismatch["kvguard"])
        for case in report["undecidable"]:
            print("  UNDECIDABLE", " ".join(case["args"]), case["reason"][:160], "| oracle:", case["oracle"])
