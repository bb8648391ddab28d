"""How a release's getters in ``vllm.envs.environment_variables`` treat probe values; runs INSIDE an oracle venv.

usage: VLLM_TARGET_DEVICE=cpu python env_parsers_runner.py IN.json OUT.json

IN.json: ``{"cases": [{"value": PROBE} | {"name": NAME, "value": PROBE}, …]}``.  For every ``VLLM_*`` variable the
release lists, each unnamed probe is put in the process environment under that name alone and the release's own
getter is called; a named case asks that one variable only.  Writes ``{"outcomes": {NAME: [OUTCOME, …]}, "named":
[OUTCOME, …]}``: per variable one outcome per unnamed probe, in the cases' order, and one per named case (None: the
getter returned; else ``[TYPE, MESSAGE]``; a named variable the release does not list: ``"absent"``).  This file
must not import kvguard.
"""

import json
import logging
import os
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def _outcome(getter, name, value):
    os.environ[name] = value
    try:
        getter()
        return None
    except Exception as exc:  # the release's own refusal, recorded as it is raised
        return [type(exc).__name__, str(exc)]
    finally:
        del os.environ[name]


def main() -> int:
    inp, out = sys.argv[1], sys.argv[2]
    cases = json.load(open(inp))["cases"]
    probes = [case["value"] for case in cases if "name" not in case]
    import vllm.envs as envs

    for name in [n for n in os.environ if n.startswith("VLLM_")]:
        del os.environ[name]
    getters = envs.environment_variables
    outcomes = {name: [_outcome(getter, name, probe) for probe in probes]
                for name, getter in getters.items() if name.startswith("VLLM_")}
    named = [_outcome(getters[case["name"]], case["name"], case["value"]) if case["name"] in getters else "absent"
             for case in cases if "name" in case]
    json.dump({"outcomes": outcomes, "named": named}, open(out, "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
