"""CUDA_VISIBLE_DEVICES as vLLM counts it (kvguard.launch.devices) against torch's own parser.

vLLM's ``cuda_device_count_stateless()`` returns ``torch.cuda._device_count_nvml()``; this runs that function
of the torch each oracle environment installs (the first and the last release asked for), on generated
values, with NVML's own device count fixed at 8 and its UUID list unavailable (-1: kvguard's None).
"""

from __future__ import annotations

import json
import os
import random
import subprocess

import pytest

from kvguard.launch.devices import visible_gpu_count

from ._oracle import oracle_or_skip

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()

_PROBE = """
import json, os, sys
import torch.cuda as cuda
cuda._raw_device_count_nvml = lambda: 8
cuda._raw_device_uuid_nvml = lambda: None
out = []
for value in json.load(open(sys.argv[1])):
    os.environ["CUDA_VISIBLE_DEVICES"] = value
    try:
        out.append(cuda._device_count_nvml())
    except ValueError:
        out.append("ValueError")
print(json.dumps(out))
"""


def values(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    pieces = ["0", "1", "2", "3", "7", "8", "9", "12", "-1", "+3", "-", "", " 2", "1gpu", "gpu1", "GPU-1a2b",
              "MIG-x", "03", "4 ", "x"]
    out = ["", "0", "0,1", "0,0", "1gpu2,2ampere", "GPU-a,GPU-b", "MIG-a", "0,9,1", "7,8"]
    for _ in range(n):
        out.append(",".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))))
    return out


@pytest.mark.parametrize("version", list(dict.fromkeys(VERSIONS[:1] + VERSIONS[-1:])))
def test_visible_gpu_count_agrees_with_torch(version, tmp_path):
    python, python_env = oracle_or_skip(version)
    cases = values(7, 300)
    path = tmp_path / "values.json"
    path.write_text(json.dumps(cases))
    env = dict(os.environ, **python_env)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    proc = subprocess.run([python, "-c", _PROBE, str(path)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches = [(value, count, _ours(value)) for value, count in zip(cases, theirs)
                  if (None if count != "ValueError" and count < 0 else count) != _ours(value)]
    assert not mismatches, mismatches[:10]


def _ours(value: str):
    try:
        return visible_gpu_count(value, 8)
    except ValueError:
        return "ValueError"
