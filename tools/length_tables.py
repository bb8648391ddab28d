"""Measure, in each release's oracle, the layer types that make ``rope_parameters`` "nested" for the
maximum length (kvguard.length.NESTED_LAYER_TYPES) and compare with kvguard's table.

usage: python tools/length_tables.py [VERSION ...]      (default: every oracle built)

0.12.0–0.13.0 test ``set(keys) <= ALLOWED_LAYER_TYPES`` inline (the transformers tuple vLLM imported);
from 0.14.0 ``is_rope_parameters_nested``.  The tool runs the release's own predicate on one-key
dicts for every candidate name (the union of the transformers lines' layer types and the names vLLM
adds) and prints the set it accepts; exit 1 when a release differs from kvguard's table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvguard.length import NESTED_LAYER_TYPES  # noqa: E402
from kvguard.versions import KNOWN_RELEASES, resolve  # noqa: E402

PROBE = r'''
import json, logging, warnings
warnings.filterwarnings("ignore"); logging.disable(logging.CRITICAL)
import vllm.config  # noqa: F401
import vllm.transformers_utils.config as vc
from transformers import configuration_utils as cu
names = set(cu.ALLOWED_LAYER_TYPES) | set(getattr(cu, "ALLOWED_ATTN_LAYER_TYPES", ()))
names |= set(getattr(cu, "ALLOWED_MLP_LAYER_TYPES", ())) | set(json.loads(CANDIDATES))
f = getattr(vc, "is_rope_parameters_nested", None)
if f is None:
    import vllm.config.model as m
    out = sorted(set(getattr(m, "ALLOWED_LAYER_TYPES", ())))
else:
    out = sorted(k for k in names if f({k: {"rope_type": "default"}}))
print(json.dumps(out))
'''

CANDIDATES = sorted({name for types, _first, _last in NESTED_LAYER_TYPES for name in types}
                    | {"mamba", "attention", "rope_type", "factor", "", "deepseek_sparse_attention",
                       "qwen_sparse_attention"})


def main(argv: list[str]) -> int:
    versions = argv or [v for v in KNOWN_RELEASES if resolve(v).within("0.12.0")]
    status = 0
    for version in versions:
        found = subprocess.run([sys.executable, str(ROOT / "tools" / "oracle_env.py"), "python", version, "--json"],
                               capture_output=True, text=True)
        if found.returncode != 0:
            print(f"{version}: no oracle")
            continue
        spec = json.loads(found.stdout)
        env = dict(__import__("os").environ, VLLM_TARGET_DEVICE="cpu", **spec.get("env", {}))
        code = PROBE.replace("CANDIDATES", repr(json.dumps(CANDIDATES)))
        proc = subprocess.run([spec["python"], "-c", code], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"{version}: probe failed: {proc.stderr[-500:]}")
            status = 1
            continue
        measured = set(json.loads(proc.stdout.strip().splitlines()[-1]))
        release = resolve(version)
        ours = next((set(t) for t, first, last in NESTED_LAYER_TYPES if release.within(first, last)), set())
        same = measured == ours
        status |= not same
        print(f"{version}: {'same' if same else 'DIFFERS'} {sorted(measured)}"
              + ("" if same else f" (kvguard: {sorted(ours)})"))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
