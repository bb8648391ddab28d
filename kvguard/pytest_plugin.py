"""pytest plugin for deployment repositories (registered as the ``pytest11`` entry point ``kvguard``).

Fixture ``kvguard_check``::

    def test_launch(kvguard_check):
        verdict = kvguard_check("vllm serve Qwen/Qwen3-32B -tp 8 -dcp 2", vllm_version="0.28.0")

fails the test with vLLM's own exception type and message when that release
would refuse the launch (``pytest.fail``), and returns the
:class:`~kvguard.Verdict` otherwise.  ``model_config`` is a config.json (or its
directory) to use instead of resolving the model; ``host`` a
:class:`~kvguard.Host` (default: the command line's standard CUDA node,
``Host.standard()``); ``env`` extra environment variables vLLM would see.
A launch kvguard cannot decide (unknown model, unresolved variable, bad
arguments) fails the test too, with kvguard's reason — pass
``undecidable="skip"`` to skip instead.

Parametrise over every launch in a directory::

    from kvguard.pytest_plugin import launches_under

    @pytest.mark.parametrize("launch", launches_under("deploy/"))
    def test_deploy_launches(kvguard_check, launch):
        kvguard_check(launch, vllm_version="0.28.0")

``launches_under(path, variables=None, allow_empty=False)`` returns ``pytest.param`` objects
with ``FILE:LINE`` ids (FILE relative to ``path``) (see :mod:`kvguard.scan` for what is
recognised); a path that does not exist or holds no launch is an error at collection unless
``allow_empty=True``.  Each launch is checked against ``vllm_version`` when given, else the
release its deployment pins (image tag, pip pin, requirements beside it: :mod:`kvguard.launch.pins`).

An expected refusal is asserted with ``pytest.raises(pytest.fail.Exception, match=…)``.

This module imports pytest: it is meant to be loaded by pytest (``import kvguard``
never imports it).
"""

from __future__ import annotations

import os
import shlex
from typing import Any, Mapping, Optional

import pytest

__all__ = ["KvguardChecker", "kvguard_check", "launches_under", "refusal_text"]


def refusal_text(verdict, command: Optional[str] = None, where: Optional[str] = None) -> str:
    """The failure message: vLLM's exception type and message (and pydantic's wrapping)."""
    head = f"vLLM {verdict.vllm_version} refuses this launch"
    if where:
        head += f" ({where})"
    lines = [head + ":"]
    if command:
        lines.append(f"  {command}")
    lines.append(f"{verdict.exc_type}: {verdict.message}")
    if verdict.wrapped_by:
        lines.append(f"(surfaces as pydantic_core.ValidationError: 1 validation error for {verdict.wrapped_by}: "
                     f"{verdict.user_message})")
    lines.append(f"[kvguard check {verdict.check} at stage {verdict.stage}]")
    return "\n".join(lines)


class KvguardChecker:
    """The callable the ``kvguard_check`` fixture returns."""

    def __init__(self, rootdir: Optional[str] = None):
        self.rootdir = rootdir

    def __call__(self, launch: Any, vllm_version: Optional[str] = None, model_config: Optional[str] = None,
                 host: Any = None, env: Optional[Mapping[str, str]] = None, *, undecidable: str = "fail"):
        from .errors import KvguardError
        from .front import examine
        from .scan import Launch, check_launch, release_for

        def give_up(reason: str):
            if undecidable == "skip":
                pytest.skip(f"kvguard cannot decide: {reason}")
            pytest.fail(f"kvguard cannot decide: {reason}", pytrace=False)

        if isinstance(launch, Launch):
            item = launch
        else:
            try:
                tokens = shlex.split(launch) if isinstance(launch, str) else [str(t) for t in launch]
            except ValueError as exc:
                give_up(f"cannot split command line: {exc}")
            item = Launch("<test>", 0, tokens, "test")
        try:    # vllm_version, else the release the launch's deployment pins (kvguard.launch.pins)
            choice = release_for(item, vllm_version, source="vllm_version")
        except KvguardError as exc:
            give_up(str(exc))
        if choice.release is None:
            give_up(choice.reason or "no vLLM release")

        def build(release, tokens, **launch_facts):
            return examine(release, tokens, host=host, env=dict(env or {}), model_config=model_config,
                           **launch_facts)

        finding = check_launch(item, choice.release, build)
        where = item.where if item.path != "<test>" else None
        if finding.status == "undecidable":
            give_up(f"{finding.reason}" + (f" ({where})" if where else ""))
        verdict = finding.report.verdict
        if not verdict.ok:
            pytest.fail(refusal_text(verdict, item.command, where), pytrace=False)
        return verdict


def launches_under(path: "str | os.PathLike[str]", variables: Optional[Mapping[str, str]] = None, *,
                   allow_empty: bool = False) -> list:
    """One ``pytest.param(launch, id="FILE:LINE")`` per launch found under ``path``.

    A ``path`` that does not exist raises FileNotFoundError, and one that holds no launch raises
    ValueError (both at collection, naming the path, so a mistyped or moved directory does not
    pass as "nothing to test"); ``allow_empty=True`` returns ``[]`` for an empty one instead."""
    from .scan import find_launches

    root = os.fspath(path)
    if not os.path.exists(root):
        raise FileNotFoundError(f"kvguard launches_under({root!r}): no such file or directory (relative paths "
                                f"are resolved from the working directory, {os.getcwd()!r}, not from the test "
                                f"file)")
    launches, skipped, files = find_launches([root], variables)
    if not launches and not allow_empty:
        why = "".join(f"; {s.path}: skipped: {s.reason}" for s in skipped[:5])
        raise ValueError(f"kvguard launches_under({root!r}): no `vllm serve` launch found in {files} file(s) "
                         f"read{why} (pass allow_empty=True if that is expected)")
    base = root if os.path.isdir(root) else os.path.dirname(root)
    params = []
    seen: dict[str, int] = {}
    for launch in launches:
        ident = f"{os.path.relpath(launch.path, base).replace(os.sep, '/')}:{launch.line}"
        if launch.label:
            ident += f" [{launch.label}]"
        n = seen.get(ident, 0)
        seen[ident] = n + 1
        params.append(pytest.param(launch, id=ident if n == 0 else f"{ident}#{n + 1}"))
    return params


@pytest.fixture
def kvguard_check(request) -> KvguardChecker:
    """``kvguard_check(launch, vllm_version=None, model_config=None, host=None, env=None)``."""
    return KvguardChecker(str(request.config.rootpath))
