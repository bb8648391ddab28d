"""The vLLM environment variables a release defines, and its unknown-variable check; runs INSIDE an oracle venv.

usage: VLLM_TARGET_DEVICE=cpu python env_names_runner.py IN.json OUT.json

IN.json: ``{"cases": [{"env": {NAME: VALUE, …}}, …]}``.  For each case the process environment's ``VLLM_*``
variables are replaced by the case's (in the case's order), and the release's own validation runs with
``hard_fail=True`` — what ``--fail-on-environ-validation`` asks of ``EngineArgs.create_engine_config``: 0.17.0 –
0.32.0 ``vllm.envs.validate_environ``, 0.33.0+ the platform's ``validate_environ``.  Releases without it answer
``"absent"`` for every case.

Writes ``{"names": [...], "results": [{"exc": TYPE, "message": STR} | None | "absent", …]}``: ``names`` the keys of
``vllm.envs.environment_variables`` in the release's order.  This file must not import kvguard.
"""

import json
import logging
import os
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def _validator():
    """The release's validation with hard failure, or None where it has none."""
    import vllm.envs as envs

    try:
        from vllm.platforms.interface import Platform
    except ImportError:  # pragma: no cover - every release has the module
        Platform = None
    if Platform is not None and hasattr(Platform, "validate_environ"):
        return lambda: Platform.validate_environ(True)
    if hasattr(envs, "validate_environ"):
        return lambda: envs.validate_environ(True)
    return None


def main() -> int:
    inp, out = sys.argv[1], sys.argv[2]
    cases = json.load(open(inp))["cases"]
    import vllm.envs as envs

    names = list(envs.environment_variables)
    validate = _validator() if cases else None
    kept = {name: value for name, value in os.environ.items() if not name.startswith("VLLM_")}
    results = []
    for case in cases:
        if validate is None:
            results.append("absent")
            continue
        os.environ.clear()
        os.environ.update(kept)
        os.environ.update(case["env"])
        try:
            validate()
            results.append(None)
        except Exception as exc:  # the release's own refusal, recorded as it is raised
            results.append({"exc": type(exc).__name__, "message": str(exc)})
    json.dump({"names": names, "results": results}, open(out, "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
