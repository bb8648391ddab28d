"""Time `kvguard.plan` over every layout of 1,024 GPUs (8 per node) for one model.

    python benchmarks/plan_1024.py [MODEL] [VLLM_VERSION]

Prints the candidate / accepted counts and the wall time of one full plan (best of 5, after one
warm-up run that also derives and caches nothing across calls: each plan derives the model facts
once itself).
"""

from __future__ import annotations

import sys
import time

import kvguard


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else "deepseek-ai/DeepSeek-R1"
    version = sys.argv[2] if len(sys.argv) > 2 else None
    kvguard.plan(model, 1024, gpus_per_node=8, vllm_version=version)  # warm-up (imports, catalog)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        report = kvguard.plan(model, 1024, gpus_per_node=8, vllm_version=version)
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(f"{model} on 1,024 GPUs (vLLM {report.vllm_version}): {report.candidates} candidate layouts, "
          f"{report.accepted} accepted; plan took {best * 1000:.0f} ms (best of 5; "
          f"median {sorted(times)[2] * 1000:.0f} ms)")
    top = report.entries[0]
    print(f"best: {top.command}  ({top.kv_tokens_per_gpu_per_gib:,.0f} tokens/GPU/GiB)")


if __name__ == "__main__":
    main()
