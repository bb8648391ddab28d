"""Differential test of validate_parsed_serve_args's checks (kvguard.rules.serve_args) against real releases.

Generates seeded ``vllm serve`` launches with the options the function reads -- --chat-template (Jinja text, built-in
template names, paths that exist everywhere and paths that exist nowhere), --enable-log-outputs / --enable-log-requests,
--enable-per-request-metrics / --disable-log-stats, --sse-keep-alive-interval, --grpc-port with --grpc / --port / --uds
/ VLLM_USE_RUST_FRONTEND / --headless, and --data-parallel-multi-port-external-lb with its neighbours -- and runs each
through the release's own ``vllm serve`` path with the front end (tests/upstream/serve_runner.py, ``"frontend": true``)
and through kvguard with the oracle's host: the verdicts must agree.

A path-like template that exists nowhere is refused by the oracle; kvguard, which cannot know the deployment host's
files, skips the check (listed as skipped; its verdict is that of the later checks): such a launch is counted as
``host_fact`` once the oracle's message is the release's own wording (0.13.0+ naming its built-in directory), never
compared.

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.10.2 0.11.0 0.22.0 0.23.0 0.29.0 0.32.0 0.33.0");
KVG_SERVE_ARGS_CASES launches per release (default 24); seed KVG_SERVE_ARGS_SEED.  Run directly for a full report:
``python -m tests.upstream.test_serve_args 0.22.0 0.33.0 --cases 60``.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from ._oracle import generated_launches, launch_case, launch_differential, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.10.2 0.11.0 0.22.0 0.23.0 0.29.0 0.32.0 0.33.0").split()

TEMPLATES = ("{{ messages }}", "template_chatml.jinja", "template_fuyu.jinja", "template_kimi_audio.jinja",
             "registry.py", ".", "/", "examples/tool_chat_template_hermes.jinja", "/nonexistent/kvg.jinja")
MISSING = ("examples/tool_chat_template_hermes.jinja", "/nonexistent/kvg.jinja", "template_fuyu.jinja",
           "template_kimi_audio.jinja", "template_chatml.jinja", "registry.py")


def _version(v: str) -> tuple:
    return tuple(int(x) for x in v.split("+")[0].split("."))


def _draw(rng, version: str) -> tuple[list[str], dict]:
    v = _version(version)
    args: list[str] = []
    env: dict = {}
    if rng.random() < 0.3:
        args += ["--chat-template", rng.choice(TEMPLATES)]
    if rng.random() < 0.3:
        args += ["--enable-log-outputs"]
    if rng.random() < 0.3:
        args += [rng.choice(["--enable-log-requests", "--disable-log-requests"])]
    if rng.random() < 0.3:
        args += ["--disable-log-stats"]
    if v >= (0, 25, 0) and rng.random() < 0.3:
        args += ["--enable-per-request-metrics"]
    if v >= (0, 29, 0) and rng.random() < 0.3:
        args += ["--sse-keep-alive-interval", rng.choice(["-1", "0", "15"])]
    if v >= (0, 32, 0) and rng.random() < 0.4:
        args += ["--grpc-port", rng.choice(["0", "8000", "9000", "70000", "-1"])]
        if rng.random() < 0.6:
            env["VLLM_USE_RUST_FRONTEND"] = rng.choice(["1", "1", "0", "yes"])
        if rng.random() < 0.2:
            args += ["--grpc"]
        if rng.random() < 0.2:
            args += ["--uds", "/tmp/kvg.sock"]
        if rng.random() < 0.15:
            args += ["--headless"]
    if v >= (0, 22, 0) and rng.random() < 0.45:
        args += ["--data-parallel-multi-port-external-lb"]
        args += ["-dp", rng.choice(["1", "2", "4", "4", "6"])]
        if rng.random() < 0.8:
            args += ["-dpl", rng.choice(["1", "2", "2", "3", "4", "8"])]
        extra = rng.choice(["", "", "", "uds", "key", "cert", "ca", "asc", "rank", "start", "node", "super", "ext",
                            "port"])
        args += {"uds": ["--uds", "/tmp/kvg.sock"], "key": ["--ssl-keyfile", "k.pem"],
                 "cert": ["--ssl-keyfile", "k.pem", "--ssl-certfile", "c.pem"], "ca": ["--ssl-ca-certs", "ca.pem"],
                 "asc": ["--api-server-count", rng.choice(["1", "2"])], "rank": ["-dpn", "0"],
                 "start": ["-dpr", rng.choice(["0", "2", "3"])], "node": ["--node-rank", "1"],
                 "super": ["--data-parallel-supervisor-port", rng.choice(["8001", "8003", "9256"])],
                 "ext": ["--data-parallel-hybrid-lb"], "port": ["--port", "9255"]}.get(extra, [])
    return args, env


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    cases = []
    for i in range(n):
        args, env = _draw(rng, version)
        ident = f"s{i}"
        case = launch_case(root, ident, "qwen3-8b", _config("Qwen/Qwen3-8B"), args, frontend=True)
        if env:
            case["env"] = env
        cases.append(case)
    return cases


def _host_fact(mismatch: dict, version: str) -> bool:
    """The oracle refused a template file it lacks, in the release's own words: kvguard skipped that check (whatever
    it answered after it holds only where the file exists)."""
    args = mismatch["args"]
    if "--chat-template" not in args:
        return False
    template = args[args.index("--chat-template") + 1]
    if template not in MISSING:
        return False
    text = f"The supplied chat template string ({template}) appears path-like, but doesn't exist!"
    message = mismatch["oracle"].get("message") or ""
    if _version(version) < (0, 13, 0):
        return mismatch["oracle"].get("exc_type") == "ValueError" and message == text
    want_type = "VLLMValidationError" if _version(version) >= (0, 30, 0) else "ValueError"
    tried = f" Tried: {template} and "
    return (mismatch["oracle"].get("exc_type") == want_type and message.startswith(text + tried)
            and message.split(tried, 1)[1].split(" (parameter=")[0].endswith(
                ("/vllm/transformers_utils/chat_templates/" + template) if not template.startswith("/") else template))


_run = generated_launches("kvg-serve-args-", generate)


def run(version: str, n: int, seed: int) -> dict:
    report = _run(version, n, seed)
    kept = []
    for mismatch in report["mismatches"]:
        if _host_fact(mismatch, version):
            report["counts"]["host_fact"] = report["counts"].get("host_fact", 0) + 1
            report["counts"]["disagree"] -= 1
        else:
            kept.append(mismatch)
    report["mismatches"] = kept
    return report


test_serve_args_checks_agree_with_real_vllm = launch_differential(
    run, kind="serve-args", label="validate_parsed_serve_args",
    cases=("KVG_SERVE_ARGS_CASES", 24), seed="KVG_SERVE_ARGS_SEED",
    versions=VERSIONS, since="0.10.2", also=("0.22.0", "0.32.0"))


if __name__ == "__main__":
    launches_main(__doc__, run)
