"""ERNIE-4.5-VL (``Ernie4_5_VLMoeForConditionalGeneration``) at model construction against the releases: the first
vision block's head split (kvguard.quant.ernie45_vl) on generated configs.

The published configs (baidu/ERNIE-4.5-VL-28B-A3B-PT, -424B-A47B-PT) were not found as stored copies: the generated
configs start from the 28B's sizes as public test fixtures state them (text: hidden 2560, intermediate 12288, 28
layers, 20 heads, 4 KV heads, vocabulary 103424, experts [64, 64] of [1536, 512], top 6, 2 shared experts, MoE
layers [1, 1] to [29, 28]; vision: depth 32, width 1280) with the vision head count the DFNRope vision config class
defaults to (16), and vary the tower's width and heads, the quantization and tp.  The checkpoint's config names
remote code (model type ``ernie4_5_moe_vl``, unknown to transformers): the oracle reads it through a configuration
class written here (:data:`CONFIG_MODULE`: the JSON values as attributes, the vision config an object), kvguard
with ``trust_remote_code`` as a plain configuration (kvguard.facts.loader; undecided on transformers 5).
"""

from __future__ import annotations

import copy
import os
import random

import pytest

from kvguard.errors import ModelConfigRefused, Undecidable
from kvguard.quant import Launch, outcome, render
from kvguard.rules.check import model_facts
from kvguard.versions import resolve

from ._oracle import oracle_or_skip as _python
from ._oracle import release_sample, run_runner
from .test_quant import VERSIONS, keep_report

pytestmark = pytest.mark.upstream

ARCH = "Ernie4_5_VLMoeForConditionalGeneration"
#: the configuration module the generated configs' auto_map names (the oracle imports it from the model folder)
CONFIG_MODULE = '''
from transformers import PretrainedConfig


class KvgErnie45VLConfig(PretrainedConfig):
    """The config.json values as attributes; the vision config an object, as the checkpoint's own class makes it."""

    model_type = "ernie4_5_moe_vl"

    def __init__(self, vision_config=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(vision_config, dict):
            vision_config = PretrainedConfig(**vision_config)
        self.vision_config = vision_config
'''
#: the 28B's sizes (see the module docstring), two text layers and two vision blocks (the head split reads block 0)
BASE = {
    "architectures": [ARCH],
    "auto_map": {"AutoConfig": "configuration_kvg_ernie45_vl.KvgErnie45VLConfig"},
    "model_type": "ernie4_5_moe_vl",
    "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 2, "num_attention_heads": 20,
    "num_key_value_heads": 4, "vocab_size": 103424, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
    "hidden_act": "silu", "rope_theta": 500000, "use_bias": False, "tie_word_embeddings": True,
    "moe_num_experts": [64, 64], "moe_intermediate_size": [1536, 512], "moe_k": 6, "moe_num_shared_experts": 2,
    "moe_layer_start_index": [1, 1], "moe_layer_end_index": [29, 28], "moe_layer_interval": 1,
    "pixel_hidden_size": 1280, "spatial_conv_size": 2, "temporal_conv_size": 2, "use_temporal_conv": True,
    "im_patch_id": 100295,  # (any token id: the model stores it)
    "vision_config": {"depth": 2, "embed_dim": 1280, "hidden_size": 1280, "num_heads": 16, "mlp_ratio": 4,
                      "patch_size": 14, "spatial_merge_size": 2, "in_channels": 3, "hidden_act": "quick_gelu"},
    "torch_dtype": "bfloat16",
}
TP_SIZES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32)
#: the first release whose config kvguard reads with transformers 5, which leaves this remote-code config undecided
TRANSFORMERS_5 = "0.24.0"
#: CI: the releases kvguard decides (transformers 4): the first, 0.11.1 (the last whose wrapper builds the resampler
#: after the language model read) and the last of them
SAMPLE = release_sample([v for v in VERSIONS if not resolve(v).within(TRANSFORMERS_5)], "0.10.2", also=("0.11.1",))


def variants(rng: random.Random, n: int) -> list[dict]:
    """``n`` configs: the tower's heads (16 mostly; 12 / 20 / 10 / 8 / 24) and width (1280 mostly; 1200 / 960 /
    1000), unquantized, online FP8 or block FP8 ([128, 128]), at four tp sizes each."""
    out = []
    for _ in range(n):
        cfg = copy.deepcopy(BASE)
        tower = cfg["vision_config"]
        tower["num_heads"] = rng.choice([16, 16, 16, 12, 20, 10, 8, 24])
        tower["embed_dim"] = tower["hidden_size"] = rng.choice([1280, 1280, 1200, 960, 1000])
        cfg["pixel_hidden_size"] = tower["embed_dim"]
        kind = rng.choice(["none", "online", "block"])
        engine: dict = {"trust_remote_code": True}
        if kind == "online":
            engine["quantization"] = "fp8"
        elif kind == "block":
            cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                          "weight_block_size": [128, 128]}
        out.append({"config": cfg, "engine_args": engine, "files": {"configuration_kvg_ernie45_vl.py": CONFIG_MODULE},
                    "layouts": [{"tp": tp} for tp in rng.sample(TP_SIZES, 4)]})
    return out


def kvguard_says(cfg: dict, tp: int, version: str, quantization) -> "tuple | str":
    """(ok, exc_type, message), or why kvguard does not decide it."""
    try:
        facts = model_facts(cfg, vllm_version=version, trust_remote_code=True)
    except (Undecidable, ModelConfigRefused) as exc:
        return f"config: {type(exc).__name__}"
    release = resolve(version)
    res = outcome(facts, release, Launch(tp=tp, quantization=quantization, refined_fp8_moe_kernel=True))
    if res.unmodelled:
        return res.unmodelled
    if res.check is None:
        return (True, None, None)
    exc, message = render(res, release)
    return (False, exc, message)


def run_ernie45_vl(version: str, n: int, seed: int = 7) -> dict:
    """Build ``n`` generated configs (:func:`variants`) in the release and compare with kvguard: agree / disagree on
    what kvguard decides, undecided (by reason) on the rest (tools/quant_differential.py --ernie45-vl)."""
    python, python_env = _python(version)
    cases = variants(random.Random(seed * 9470 + 1), n)
    out = run_runner("quant_runner.py", python, python_env, cases)
    counts = {"agree": 0, "disagree": 0, "undecided": 0, "oracle_setup_failures": 0}
    mismatches: list = []
    undecided: dict = {}
    for case, res in zip(cases, out["results"]):
        quantization = case["engine_args"].get("quantization")
        if "setup_error" in res:
            counts["oracle_setup_failures"] += 1
            mismatches.append({"tower": case["config"]["vision_config"], "setup_error": res["setup_error"]})
            continue
        for lay, rec in zip(case["layouts"], res["outcomes"]):
            mine = kvguard_says(case["config"], lay["tp"], version, quantization)
            theirs = (rec["ok"], rec.get("exc_type"), rec.get("message"))
            if isinstance(mine, str):
                counts["undecided"] += 1
                key = f"{mine.split(' (')[0]} -> {'accepted' if rec['ok'] else rec.get('exc_type')}"
                undecided[key] = undecided.get(key, 0) + 1
            elif mine == theirs:
                counts["agree"] += 1
            else:
                counts["disagree"] += 1
                mismatches.append({"tower": case["config"]["vision_config"], "tp": lay["tp"],
                                   "quantization": quantization or case["config"].get("quantization_config"),
                                   "kvguard": mine, "oracle": theirs, "where": rec.get("where")})
    return {"version": version, "counts": counts, "mismatches": mismatches, "undecided": undecided,
            "by_family": {"vision head split": {"agree": counts["agree"], "disagree": counts["disagree"]}},
            "layer_lists": {"agree": 0, "disagree": 0}}


@pytest.mark.parametrize("version", SAMPLE)
def test_ernie45_vl_construction_agrees(version):
    report = run_ernie45_vl(version, int(os.environ.get("KVG_ERNIE45_VL_CONFIGS", "3")),
                            int(os.environ.get("KVG_DIFF_SEED", "7")))
    keep_report(report, version, "ernie45-vl-construction")
    counts = report["counts"]
    print(f"\nvLLM {version}: ERNIE-4.5-VL construction agree {counts['agree']}, disagree {counts['disagree']}, "
          f"undecided {counts['undecided']}, oracle set-up failures {counts['oracle_setup_failures']}")
    assert not report["mismatches"], report["mismatches"][:4]
    assert counts["agree"] > 0


#: golden cases (tests/cases/<release>/<id>.json), recorded by :func:`record_golden` from the release itself:
#: (id, argv, why)
GOLDEN = (
    ("mi-ernie45-vl-28b-tower-tp5", ["-tp", "5", "--trust-remote-code"],
     "ERNIE-4.5-VL-28B's sizes at -tp 5: its 20 text heads pass the configuration's check, but the vision tower is "
     "built first and its first block divides the tower's 16 heads by 5"),
    ("mi-ernie45-vl-28b-tower-tp5-encoder-data", ["-tp", "5", "--mm-encoder-tp-mode", "data", "--trust-remote-code"],
     "the same with --mm-encoder-tp-mode data: the wrapper declares no supports_encoder_tp_data, ModelConfig falls "
     "back to weights and the tower is split by tp all the same"),
)


def record_golden(version: str) -> None:
    """Write :data:`GOLDEN` for ``version`` from the release's own construction (quant_runner.py, the config read
    through :data:`CONFIG_MODULE`): ``python -m tests.upstream.test_quant_ernie45_vl V1 V2 ...``."""
    import json
    from pathlib import Path

    from kvguard import Host

    python, python_env = _python(version)
    config = dict(BASE, num_hidden_layers=28, vision_config=dict(BASE["vision_config"], depth=32))
    cases = [{"config": config, "layouts": [{"tp": 5}], "files": {"configuration_kvg_ernie45_vl.py": CONFIG_MODULE},
              "engine_args": {"trust_remote_code": True, **({"mm_encoder_tp_mode": "data"} if "data" in argv else {})}}
             for _, argv, _ in GOLDEN]
    out = run_runner("quant_runner.py", python, python_env, cases)
    host = Host.cuda_node()
    for (case_id, argv, why), res in zip(GOLDEN, out["results"]):
        rec = res["outcomes"][0]
        expect = {"ok": True} if rec["ok"] else {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"],
                                                 "wrapped_by": None}
        case = {"id": case_id, "why": why, "model": "baidu/ERNIE-4.5-VL-28B-A3B-PT", "argv": argv, "env": {},
                "host": {"platform": host.platform, "gpus_per_node": host.gpus_per_node, "ray": True, "triton": True,
                         "nixl": False, "gpu_capability": 90, "cpu_memory_bytes": 1 << 40},
                "config": config, "expect": expect,
                "recorded_from": f"vLLM {version}: the model built on the meta device at the launch's sizes "
                                 f"(tests/upstream/quant_runner.py via tests/upstream/test_quant_ernie45_vl.py "
                                 f"record_golden; the remote-code config read through its CONFIG_MODULE)"}
        path = Path(__file__).resolve().parents[1] / "cases" / version / f"{case_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=1) + "\n")
        print(version, case_id, expect)


if __name__ == "__main__":
    import sys

    for v in sys.argv[1:]:
        record_golden(v)
