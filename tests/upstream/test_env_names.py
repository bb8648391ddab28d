"""The vLLM environment variables each release defines (kvguard/data/env_names.json, kvguard.rules.environ) against
the real releases.

- The launch differential: seeded ``vllm serve`` launches of an unquantized model with or without
  ``--fail-on-environ-validation`` (0.17.0+; an unrecognized argument before), under environments drawn from names
  the release defines, names only other releases define (a recipe's variable for a newer or older release), names
  no release defines and names outside the ``VLLM_`` prefix, run through the release's own ``vllm serve`` path
  (tests/upstream/serve_runner.py) and through kvguard: the verdicts must agree; kvguard's undecidable launches
  (several unknown names: vLLM names the first in the process environment's order) are counted, never compared.
- The names the host-dependent skips list (a variable that changes a kernel choice leaves the model construction
  undecided): on every release whose list lacks such a name, the name appears nowhere in the release's source, so
  kvguard may ignore it there (kvguard.rules.environ.steers).

Releases: a sample of KVG_ORACLE_VERSIONS (default "0.16.0 0.17.0 0.24.0 0.33.0"; the launches on 0.17.x, 0.24.0 and the last);
KVG_ENV_CASES launches per release (default 12); seed KVG_ENV_SEED.  Run directly for a full report:
``python -m tests.upstream.test_env_names 0.17.0 0.33.0 --cases 60``.
"""

from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kvguard.launch.argv import option_table  # noqa: E402
from kvguard.rules.environ import READ_OUTSIDE_ENVS, defines  # noqa: E402
from kvguard.versions import KNOWN_RELEASES, resolve  # noqa: E402

from ._oracle import check_launch_report, flag_switch, generated_launches, launches_main  # noqa: E402
from .test_speculative import _config  # noqa: E402

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.16.0 0.17.0 0.24.0 0.33.0").split()
#: the CI sample: the first release with the switch (0.17.x), the first after the FlashInfer MoE variables left
#: (0.24.0), and the last
SAMPLE = [v for v in VERSIONS if v in ("0.17.0", "0.17.1", "0.24.0", "0.33.0")] or VERSIONS[-1:]

#: names some releases define and others do not, inert for an unquantized dense model where they are defined (MoE
#: kernel switches; the values are ones the releases parse)
VARYING = {"VLLM_USE_FLASHINFER_MOE_FP4": "1", "VLLM_USE_FLASHINFER_MOE_FP8": "0", "VLLM_FLASHINFER_MOE_BACKEND": "latency",
           "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1", "VLLM_TEST_FORCE_FP8_MARLIN": "0",
           "VLLM_B12X_MOE_FP4_FORCE_A16": "0", "VLLM_MARLIN_INPUT_DTYPE": "fp8", "VLLM_MOE_USE_DEEP_GEMM": "0"}
#: names every release defines, inert here
KNOWN = {"VLLM_LOGGING_LEVEL": "INFO", "VLLM_NO_USAGE_STATS": "1", "VLLM_DO_NOT_TRACK": "1"}
#: names no release defines (a typo of a real one among them), and names outside the prefix
UNKNOWN = {"VLLM_KVG_PROBE": "1", "VLLM_TENSOR_PARALLEL_SIZE": "8", "VLLM_USE_FLASHINFER_MOE_FP16": "1"}
OUTSIDE = {"KVG_PROBE": "1", "vllm_use_v1": "0", "NCCL_DEBUG": "WARN"}


def generate(seed: int, n: int, version: str, root: str) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    table = option_table(resolve(version))
    pools = (VARYING, VARYING, KNOWN, UNKNOWN, OUTSIDE)
    cases = []
    for i in range(n):
        args = flag_switch(rng, table, "fail-on-environ-validation", ("on", "on", "on", "off", "default"))
        env: dict[str, str] = {}
        for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
            pool = rng.choice(pools)
            name = rng.choice(sorted(pool))
            env[name] = pool[name]
        ident = f"e{i}"
        cases.append({"id": ident, "target": "qwen3-8b", "config": _config("Qwen/Qwen3-8B"),
                      "model_dir": os.path.join(root, ident), "args": args, "env": env})
    return cases


run = generated_launches("kvg-env-", generate)


@pytest.mark.parametrize("version", SAMPLE)
def test_unknown_environment_variables_agree_with_real_vllm(version):
    report = run(version, int(os.environ.get("KVG_ENV_CASES", "12")), int(os.environ.get("KVG_ENV_SEED", "0")))
    check_launch_report(report, "env-names", "environment variable launches")


def _skip_lists() -> dict[str, tuple[str, ...]]:
    """Every tuple of variable names a host-dependent skip reads (kvguard.rules.table and the modules it names)."""
    from kvguard.quant.dsv4 import HOST_ENV, NVFP4_HOST_ENV
    from kvguard.quant.gpt_oss import MXFP4_ENV
    from kvguard.quant.modelopt_shards import MOE_ENV
    from kvguard.quant.online import FP8_MOE_ENV
    from kvguard.rules.table import MODELOPT_LINEAR_ENV, WNA16_KERNEL_ENV

    return {"MOE_ENV": MOE_ENV, "FP8_MOE_ENV": FP8_MOE_ENV, "HOST_ENV": HOST_ENV, "NVFP4_HOST_ENV": NVFP4_HOST_ENV,
            "MXFP4_ENV": MXFP4_ENV, "MODELOPT_LINEAR_ENV": MODELOPT_LINEAR_ENV, "WNA16_KERNEL_ENV": WNA16_KERNEL_ENV}


def _source_root(version: str) -> Path:
    """The release's vllm package folder, as its oracle's python finds it (without importing vLLM)."""
    import subprocess

    from ._oracle import oracle_or_skip

    python, python_env = oracle_or_skip(version)
    found = subprocess.run([python, "-c", "import importlib.util; "
                            "print(importlib.util.find_spec('vllm').submodule_search_locations[0])"],
                           env=dict(os.environ, **python_env), capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


@pytest.mark.parametrize("version", [v for v in VERSIONS if v in KNOWN_RELEASES])
def test_names_a_release_lacks_appear_nowhere_in_its_source(version):
    source = _source_root(version)
    release = resolve(version)
    names = sorted({name for names in _skip_lists().values() for name in names
                    if not defines(release, name) and name not in READ_OUTSIDE_ENVS})
    if not names:
        return
    pattern = re.compile(rb"\b(" + b"|".join(name.encode() for name in names) + rb")\b")
    found = sorted({match.decode() for path in source.rglob("*.py") for match in pattern.findall(path.read_bytes())})
    assert not found, f"vLLM {version} does not define {found} in vllm.envs but its source names them"


if __name__ == "__main__":
    launches_main(__doc__, run)
