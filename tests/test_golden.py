"""Golden cases per release, through the API and the CLI.

Each tests/cases/<release>/<id>.json holds an input launch and what the real
vLLM release raised for it (recorded by tools/record_golden.py from the
release's own code; the PR 55030 cases are typed from the PR reading).
"""

from __future__ import annotations

import json
import re

import pytest

import kvguard
from kvguard.cli import run
from kvguard.launch.argv import parse_serve
from kvguard.versions import resolve

from .conftest import golden_cases, model_config


def _fields(release: str, case: dict) -> dict:
    if "layout" in case:
        return dict(case["layout"])
    return parse_serve(case["argv"], resolve(release)).fields


def _write_files(case: dict) -> None:
    """The speculative drafts a case names, written where its command line points (as the recorder did)."""
    import os

    for directory, config in (case.get("files") or {}).items():
        os.makedirs(directory, exist_ok=True)
        # the path is the one the recorded messages print, shared by concurrent runs: replace the file
        # whole, so another run never reads it half written
        partial = os.path.join(directory, f"config.json.{os.getpid()}")
        with open(partial, "w") as fh:
            json.dump(config, fh)
        os.replace(partial, os.path.join(directory, "config.json"))


def _speculative(release: str, case: dict):
    """The case's speculative decoding input as the command line gives it (None without one)."""
    if "argv" not in case:
        return None
    from kvguard.speculative.launch import input_from_command

    _write_files(case)
    cmd = parse_serve(case["argv"], resolve(release))
    return input_from_command(cmd, model_config(case), model_path=case.get("model_path"))


def _expected_view(verdict) -> dict:
    if verdict.ok:
        return {"ok": True}
    out = {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message, "wrapped_by": verdict.wrapped_by}
    if verdict.exc_type == "ValidationError" and verdict.errors:
        out["errors"] = [{"type": e.type, "loc": list(e.loc), "msg": e.msg} for e in verdict.errors]
    return out


def _kwargs(release, case):
    return dict(vllm_version=release, env=case.get("env"), host=kvguard.Host(**case.get("host", {})),
                entry=case.get("entry", "serve"), model_path=case.get("model_path"),
                speculative_config=_speculative(release, case), **_fields(release, case))


@pytest.mark.parametrize(("release", "case"), golden_cases())
def test_golden_api(release, case):
    if "argparse_error" in case["expect"]:
        # vLLM's parser rejects the command line; so does kvguard's (an ArgparseRefusal: an InputError), with
        # the recorded error (the recorder's parser named itself after its script: only the error is common)
        recorded = case["expect"]["argparse_error"][0].split(": error: ", 1)[1]
        with pytest.raises(kvguard.InputError, match=re.escape(recorded)):
            parse_serve(case["argv"], resolve(release), pydantic=case.get("host", {}).get("pydantic"))
        return
    verdict = kvguard.check(model_config(case), **_kwargs(release, case))
    assert _expected_view(verdict) == case["expect"]


@pytest.mark.parametrize(("release", "case"),
                         [c for c in golden_cases() if "argparse_error" not in c.values[1]["expect"]])
def test_golden_validate_raises_the_same(release, case):
    kwargs = _kwargs(release, case)
    expect = case["expect"]
    if expect.get("ok"):
        assert kvguard.validate(model_config(case), **kwargs).ok
        return
    with pytest.raises(BaseException) as info:
        kvguard.validate(model_config(case), **kwargs)
    exc = info.value
    if expect["wrapped_by"]:
        import pydantic

        assert isinstance(exc, pydantic.ValidationError)
        assert exc.title == expect["wrapped_by"]
        first = exc.errors()[0]
        if expect["exc_type"] == "ValidationError":
            assert [e["msg"] for e in exc.errors()] == [e["msg"] for e in expect["errors"]]
        else:
            prefix = "Assertion failed, " if expect["exc_type"] == "AssertionError" else "Value error, "
            assert first["msg"] == prefix + expect["message"]
            assert type(first["ctx"]["error"]).__name__ == expect["exc_type"]
    else:
        assert type(exc).__name__ == expect["exc_type"]
        assert str(exc) == expect["message"]


@pytest.mark.parametrize(("release", "case"), [c for c in golden_cases() if "argv" in c.values[1]])
def test_golden_cli(release, case, tmp_path, capsys):
    _write_files(case)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(model_config(case)))
    argv = ["check", "--vllm-version", release, "--model-config", str(cfg), "--format", "json"]
    for key, value in case.get("env", {}).items():
        argv += ["--env", f"{key}={value}"]
    for key, value in case.get("host", {}).items():
        argv += ["--host", f"{key}={int(value) if isinstance(value, bool) else value}"]
    argv += ["--", "vllm", "serve", case.get("model_path") or case["model"], *case["argv"]]
    status = run(argv)
    captured = capsys.readouterr()
    expect = case["expect"]
    if "argparse_error" in expect:
        # vLLM's parser refuses: a refusal at stage argparse, as `vllm` prints it (the recorder's single
        # parser named itself after its script and had no positional model: only the option is common)
        out = json.loads(captured.out)
        recorded = expect["argparse_error"][0].split(": error: ", 1)[1]
        assert status == 1 and (out["ok"], out["stage"], out["exc_type"]) == (False, "argparse", "SystemExit")
        # unrecognized arguments are the top-level parser's error ("vllm: error:"), a bad value the serve
        # sub-parser's ("vllm serve: error:")
        prog = "vllm" if recorded.startswith("unrecognized arguments") else "vllm serve"
        assert out["message"].startswith(f"{prog}: error: {recorded}"), (out["message"], recorded)
        return
    out = json.loads(captured.out)
    assert status == (0 if expect.get("ok") else 1)
    assert out["ok"] is bool(expect.get("ok"))
    if not expect.get("ok"):
        assert (out["exc_type"], out["message"], out["wrapped_by"]) == (
            expect["exc_type"], expect["message"], expect["wrapped_by"])
