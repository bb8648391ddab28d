#!/usr/bin/env python3
"""Differential test of kvguard.hfconfig against real vLLM + transformers, for any release.

For every model type in scope it generates configs (seeded random mutations of
a realistic template: keys removed, set to None, odd values, aliases, nested
sub-config dicts present / absent / broken), runs the real
``vllm.transformers_utils.config.get_config`` + ``get_hf_text_config`` in an
oracle environment (``tools/hfconfig_oracle_worker.py``, which restores the
process-wide state vLLM's loader changes after every case, so each case sees
a fresh process) and ``kvguard.hfconfig`` here, and compares attribute by
attribute (``tools/hfconfig_summary.py``), including load errors (type and
message).

The oracle for release X is the environment ``tools/oracle_env.py python X``
names (base env of X's transformers line + the release's files on PYTHONPATH;
root ``--env-root``, default $KVG_ORACLE_ENV_ROOT, else $KVG_ORACLE_ROOT, else
oracle_env.py's default), else a classic venv
``<--oracle-root>/X/bin/python``.

usage:
  python tools/hfconfig_oracle.py [--versions 0.20.0,0.28.0] [--n 40] [--types llama,mpt]
                                   [--env-root DIR] [--oracle-root DIR] [--record tests/hfconfig/data]
                                   [--json table.json] [--all]  (--all with --types: only those of the line)
Prints agreement counts per model type and release; writes mismatches to
/tmp/hfconfig_oracle_mismatches.json.  ``--record DIR`` also stores a sample
of the oracle answers as oracle-free test data (oracle_<release>.json.gz).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from hfconfig_summary import chosen, summarize  # noqa: E402

TEMPLATES = os.path.join(ROOT, "tests", "hfconfig", "data", "templates.json")

SCOPE = [
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen3_next", "qwen2_5_vl",
    "qwen3_vl", "qwen3_vl_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "phimoe", "gpt_oss", "glm4",
    "glm4_moe", "deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_linear", "glm4_moe_lite",
    "longcat_flash", "deepseek_mtp", "falcon", "RefinedWeb", "RefinedWebModel", "mpt", "dbrx", "chatglm",
    "gpt_bigcode", "gpt2", "bloom", "starcoder2", "nemotron", "nemotron-nas", "nemotron_h", "mamba",
    "falcon_mamba", "jamba", "granite", "granitemoe", "olmo2", "cohere", "cohere2", "ernie4_5", "ernie4_5_moe",
    "minimax_m2", "step3_text", "seed_oss", "llama4", "llama4_text", "eagle", "medusa", "zamba2",
    "qwen2_5_omni", "qwen3_omni_moe", "deepseek_vl_v2", "kimi_vl",
    # model types a release's loader treats specially (registry overrides of transformers classes on 5.x,
    # the validate_rope / layer-type / nested-rope patches, the gemma4_text path) and newer families
    "gemma4", "gemma4_text", "glm_moe_dsa", "laguna", "sarvam_mla", "deepseek_v4", "qwen3_5", "qwen3_5_moe",
    "step3p5", "hy_v3", "kimi_k25", "afmoe", "olmo_hybrid", "lfm2_moe", "flex_olmo", "mistral4",
    # Mamba hybrids built with a tuple-valued time_step_limit and "auto" Mamba head sizes on 5.x
    "granitemoehybrid", "falcon_h1", "bamba", "mamba2",
    # MiMo-V2-Flash (transformers 5's derived layer types and window), vLLM's Kimi-K3 and MiniMax-M3 classes
    "mimo_v2_flash", "kimi_k3", "minimax_m3_vl",
    # vLLM's BagelConfig (a property read through llm_config), MiDashengLMConfig, Qwen3ASRConfig and FlintConfig
    "bagel", "midashenglm", "qwen3_asr", "flint",
    # HunYuan-VL (HunyuanOCR): a flat checkpoint's text keys folded into the text config, the xdrope RoPE alias
    "hunyuan_vl",
    # vLLM's OpenVLAConfig (its Llama text config built from a copy of the given dict)
    "openvla",
    # vLLM's IsaacConfig (a Qwen3 config, its text config built from the flat keys; the vision config's
    # pixel-shuffle attributes defaulted from the top level)
    "isaac",
    # Molmo2 (transformers 5.20+): the legacy vit_config key, the feature layers wrapped and the ViT cut after them
    "molmo2",
    # ModernBERT (transformers 5): the sliding_window property over local_attention, layer types every n-th global
    "modernbert",
    # VibeVoice-ASR (transformers 5): max_position_embeddings a property over the audio chunk and the hop length
    "vibevoice_asr",
    # Mellum (transformers 5): MTP layer types defaulted only when there are MTP layers, at most one of them
    "mellum",
    # vLLM's FunAudioChatConfig: its audio encoder's model type read off the encoder class, its hidden size an int
    "funaudiochat",
    # checkpoint-shaped (transformers' defaults leave the checks unreached): Granite Speech Plus with
    # concatenated encoder layers (their range and the projector's input size checked), HRM-Text with its
    # per-stack layer count, vLLM 0.33.0's Beam with per-layer attention / MLP kinds and per-kind RoPE parameters
    "granite_speech_plus", "hrm_text", "beam",
    # vLLM's own HyperCLOVAXConfig (0.22.1-0.31.0): the attention multiplier head_dim ** -0.5 unless given, the RoPE
    # parameters from a copy of rope_scaling (legacy 'type' moved) or the default, rope_theta added
    "hyperclovax",
]

# keys worth mutating (present or not in the template)
MUTATE_KEYS = [
    "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size", "num_hidden_layers",
    "n_head", "n_heads", "n_head_kv", "num_kv_heads", "multi_query", "new_decoder_architecture",
    "multi_query_group_num", "num_attention_groups", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
    "v_head_dim", "hidden_size_per_head", "num_layers", "num_nextn_predict_layers", "layer_types",
    "sliding_window", "max_position_embeddings", "torch_dtype", "dtype", "num_experts", "n_routed_experts",
    "num_local_experts", "num_experts_per_tok", "moe_num_experts", "d_model", "n_layers", "n_layer",
    "attn_config", "architectures", "model_type", "rope_scaling", "rope_theta", "is_causal",
    "global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "quantization_config",
    "partial_rotary_factor", "intermediate_size", "vocab_size", "use_mla", "attention_head_dim",
    "kv_n_heads", "attn_type", "n_heads_in_group", "no_op", "compress_ratios", "index_topk", "num_heads",
    "layers_block_type", "attn_type_list", "hybrid_override_pattern", "mtp_num_hidden_layers",
]
INTS = [0, 1, 2, 3, 4, 5, 7, 8, 12, 16, 32, 40, 64, 128, 4096, -1]


def _rand_value(rng, key, cur):
    r = rng.random()
    if r < 0.30:
        return "__delete__"
    if r < 0.42:
        return None
    if r < 0.75:
        if isinstance(cur, int) and not isinstance(cur, bool) and cur > 1 and rng.random() < 0.5:
            return rng.choice([cur // 2, cur * 2, cur + 1, max(1, cur // 3)])
        return rng.choice(INTS)
    if r < 0.80:
        return str(rng.choice([8, 32]))
    if r < 0.85:
        return float(rng.choice([8, 32]))
    if r < 0.90:
        return rng.choice([True, False])
    if r < 0.93:
        return []
    if r < 0.96:
        return {}
    if key == "layer_types":
        n = rng.choice([2, 4, 24, 32])
        return [rng.choice(["full_attention", "sliding_attention", "linear_attention", "bogus"]) for _ in range(n)]
    if key == "rope_scaling":
        return rng.choice([{"type": "linear", "factor": 2.0}, {"rope_type": "yarn", "factor": 4.0,
                           "original_max_position_embeddings": 4096}, {"type": "dynamic"},
                           {"rope_type": "llama3", "type": "linear", "factor": 8.0}])
    if key == "torch_dtype" or key == "dtype":
        return rng.choice(["bfloat16", "float16", "float32", "auto", "bogus"])
    return rng.choice(INTS)


def mutate(rng, d, depth=0):
    d = copy.deepcopy(d)
    keys = list(dict.fromkeys([k for k in MUTATE_KEYS] + [k for k in d if rng.random() < 0.05]))
    n = rng.choice([1, 1, 2, 3, 4])
    for key in rng.sample(keys, min(n, len(keys))):
        if depth == 0 and key == "model_type" and rng.random() < 0.9:
            continue
        v = _rand_value(rng, key, d.get(key))
        if v == "__delete__":
            d.pop(key, None)
        else:
            d[key] = v
    if depth == 0 and isinstance(d.get("text_config"), dict) and rng.random() < 0.12:
        # legacy flat layout: the text model's keys at the top level
        flat = d.pop("text_config")
        for k2, v2 in flat.items():
            d.setdefault(k2, v2)
    for key, val in list(d.items()):
        if isinstance(val, dict) and key.endswith(("_config", "config", "model")) and key != "quantization_config" \
                and depth < 2:
            r = rng.random()
            if r < 0.08:
                d.pop(key)
            elif r < 0.14:
                d[key] = None
            elif r < 0.55:
                d[key] = mutate(rng, val, depth + 1)
    return d


def gen_cases(types, n, seed, templates):
    cases = []
    for mt in types:
        tpl = templates.get(mt)
        if tpl is None:
            continue
        rng = random.Random(f"{seed}:{mt}")
        cases.append({"id": f"{mt}#0", "mt": mt, "config": tpl})
        for j in range(1, n):
            cases.append({"id": f"{mt}#{j}", "mt": mt, "config": mutate(rng, tpl)})
    for idx, c in enumerate(cases):
        c["path"] = f"/tmp/kvgo_cases/c{idx}"
    return cases


def default_env_root() -> str | None:
    # the root tools/oracle_env.py builds in
    root = os.environ.get("KVG_ORACLE_ENV_ROOT") or os.environ.get("KVG_ORACLE_ROOT")
    return root or os.path.join(os.path.expanduser("~"), ".cache", "kvguard-oracle")


def _oracles(args):
    """(release, python, env) for each of ``--versions`` that has an oracle (the others are reported)."""
    for ver in args.versions.split(","):
        found = find_oracle(ver, args.env_root, args.oracle_root)
        if found is None:
            print(f"{ver}: no oracle environment; skipped")
            continue
        yield (ver, *found)


def find_oracle(ver: str, env_root: str | None, oracle_root: str | None):
    """-> (python, extra environment) for release ``ver``, or None."""
    cmd = [sys.executable, os.path.join(HERE, "oracle_env.py"), "python", ver, "--json"]
    if env_root:
        cmd += ["--root", env_root]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.strip():
        info = json.loads(r.stdout)
        return info["python"], info.get("env", {})
    if oracle_root:
        py = os.path.join(oracle_root, ver, "bin", "python")
        if os.path.exists(py):
            return py, {}
    return None


def oracle_env_vars(extra: dict) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", VLLM_LOGGING_LEVEL="ERROR")
    env.pop("PYTHONPATH", None)
    env.update(extra)
    return env


def _run_worker(python, payload, *, mode=None, env=None, timeout=7200, out=None):
    """hfconfig_oracle_worker.py in the oracle: ``payload`` as its input file, its output parsed
    (``mode``: None, "--modelconfig" or "--templates"; ``out``: keep the output at this path)."""
    with tempfile.TemporaryDirectory() as d:
        ip, op = os.path.join(d, "in.json"), out or os.path.join(d, "out.json")
        with open(ip, "w") as f:
            json.dump(payload, f)
        worker = os.path.join(HERE, "hfconfig_oracle_worker.py")
        argv = [worker, mode, ip, op] if mode == "--templates" else [worker, ip, op] + ([mode] if mode else [])
        subprocess.run([python, *argv], check=True, env=oracle_env_vars(env or {}), timeout=timeout,
                       stdout=subprocess.DEVNULL)
        with open(op) as f:
            return json.load(f)


def run_oracle(python, cases, timeout=7200, env=None):
    payload = [{"id": c["id"], "config": c["config"], "path": c.get("path"), "attrs": c.get("attrs")} for c in cases]
    return {r["id"]: r for r in _run_worker(python, payload, env=env, timeout=timeout)}


def run_kvguard(case, release):
    from kvguard.errors import Undecidable
    from kvguard.facts.loader import LoadCrash, load_config
    from kvguard.facts.loader import hf_text_config as text_config_of

    def hf_text_config(cfg):
        return text_config_of(cfg, release)
    rec = {"id": case["id"]}
    try:
        cfg = load_config(case["config"], release, path=case.get("path"))
    except LoadCrash as e:
        rec["outcome"] = "error"
        rec["error"] = {"type": e.exc_type, "module": e.exc_module, "message": e.message}
        if e.cause:
            rec["error"]["cause"] = list(e.cause)
        if e.hash_order:
            rec["error"]["hash_order"] = True
        return rec
    except Undecidable as e:
        rec["outcome"] = "undecidable"
        rec["reason"] = str(e)
        return rec
    rec["outcome"] = "ok"
    rec["emulation"] = cfg.kvg_emulation
    rec["hf_config"] = summarize(cfg)
    if case.get("attrs"):
        rec["attrs"] = chosen(cfg, case["attrs"])
    try:
        text = hf_text_config(cfg)
        rec["text_is_self"] = text is cfg
        rec["hf_text_config"] = summarize(text) if text is not cfg else None
    except LoadCrash as e:
        rec["text_error"] = {"type": e.exc_type, "module": e.exc_module, "message": e.message}
        if e.hash_order:
            rec["text_error"]["hash_order"] = True
    return rec


_UNKNOWN_MARKERS = ("but Transformers does not recognize this architecture", "Unrecognized model in",
                    "Failed to load the model config", "requires you to execute the configuration file",
                    "contains custom code which must be executed")


def compare(o, k):
    """-> (verdict, detail): verdict in agree / undecidable / mismatch / gap."""
    if k["outcome"] == "undecidable":
        if o["outcome"] == "error" and any(m in o["error"]["message"] for m in _UNKNOWN_MARKERS):
            return "undecidable", None
        return "gap", {"oracle": o.get("error") or "ok", "kvguard": k.get("reason")}
    if o["outcome"] != k["outcome"]:
        return "mismatch", {"oracle": o.get("error") or "ok", "kvguard": k.get("error") or "ok"}
    if o["outcome"] == "error":
        if not _same_err(o["error"], k["error"]):
            return "mismatch", {"oracle": o["error"], "kvguard": k["error"]}
        return "agree", None
    diffs = {}
    if "attrs" in o or "attrs" in k:   # a case's own attributes (recorded only for cases that name some)
        diffs.update(_diff(o.get("attrs"), k.get("attrs"), "attrs"))
    for part in ("text_is_self", "text_error"):
        if o.get(part) != k.get(part) and not (part == "text_error" and _same_err(o.get(part), k.get(part))):
            diffs[part] = [o.get(part), k.get(part)]
    for part in ("hf_config", "hf_text_config"):
        a, b = o.get(part), k.get(part)
        if a is None or b is None:
            if a != b:
                diffs[part] = [a is None, b is None]
            continue
        d = _diff(a, b, part)
        diffs.update(d)
    return ("agree", None) if not diffs else ("mismatch", diffs)


def same_message(a: str, b: str) -> bool:
    """Equal, or equal up to the iteration order of a printed set of strings (hash-seed dependent) and the
    addresses of printed functions (``<function f at 0x7f…>``, process dependent; kvguard prints ``0x…``)."""
    if a == b:
        return True
    import re
    pat = re.compile(r"\{('[^']*'(?:, '[^']*')*)\}")
    address = re.compile(r"(<function [\w.]+ at )0x(?:[0-9a-f]+|\u2026)>")
    canon = lambda s: pat.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}",  # noqa: E731
                              address.sub(r"\g<1>0x>", s))
    return canon(a) == canon(b)


def _same_err(a, b):
    """Same type and message; when kvguard says the exception escaped a loop over a set of strings
    (``hash_order``: which element fails first depends on the process's hash seed), the same type suffices."""
    return isinstance(a, dict) and isinstance(b, dict) and a["type"] == b["type"] and \
        (same_message(a["message"], b["message"]) or bool(b.get("hash_order")))


def _diff(a, b, path):
    out = {}
    if isinstance(a, dict) and isinstance(b, dict):
        for key in set(a) | set(b):
            if key not in a or key not in b:
                out[f"{path}.{key}"] = [a.get(key, "<absent>"), b.get(key, "<absent>")]
                continue
            out.update(_diff(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for idx, (x, y) in enumerate(zip(a, b)):
            out.update(_diff(x, y, f"{path}[{idx}]"))
        return out
    if a != b:
        out[path] = [a, b]
    return out


def gen_cases_all(py, ver, args, env=None):
    from kvguard.facts.tables import transformers_tables
    from kvguard.versions import resolve
    tf = resolve(ver).transformers
    names = list(transformers_tables(tf)["config_mapping_order"])
    names = [n for n in names if n not in SCOPE]
    cache = f"/tmp/kvg_templates_{tf}.json"
    if os.path.exists(cache):
        with open(cache) as f:
            tpls = json.load(f)
    else:
        tpls = _run_worker(py, names, mode="--templates", env=env, out=cache)
    tpls = {k: {kk: vv for kk, vv in v.items() if not kk.startswith("_") and kk != "transformers_version"}
            for k, v in tpls.items() if "__error__" not in v}
    wanted = set(args.types.split(",")) if args.types else None
    return gen_cases([n for n in names if n in tpls and (wanted is None or n in wanted)], args.n, args.seed, tpls)


def load_templates():
    with open(TEMPLATES) as f:
        return json.load(f)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--versions", default="0.20.0,0.28.0")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", default="kvguard")
    ap.add_argument("--types", default=None)
    ap.add_argument("--env-root", default=default_env_root(),
                    help="tools/oracle_env.py root (per-release oracle environments)")
    ap.add_argument("--oracle-root", default=None,
                    help="classic venvs <root>/<release>/bin/python (fallback)")
    ap.add_argument("--record", default=None, help="directory to store oracle answers as test data")
    ap.add_argument("--record-per-type", type=int, default=6)
    ap.add_argument("--mismatches", default="/tmp/hfconfig_oracle_mismatches.json")
    ap.add_argument("--json", default=None, help="write the agreement table as JSON")
    ap.add_argument("--all", action="store_true",
                    help="every transformers model type of the release's line (templates from that venv)")
    ap.add_argument("--unit", action="store_true",
                    help="the hand-written trap configs of tests/hfconfig/data/unit_cases.json instead of generated "
                         "ones (--record writes unit_oracle_<release>.json.gz)")
    ap.add_argument("--unit-cases", default=None,
                    help="with --unit: another file of trap configs (a list, or {\"cases\": [...]}); --record writes "
                         "<its name>_oracle_<release>.json.gz")
    ap.add_argument("--modelconfig", action="store_true",
                    help="build the real ModelConfig for tests/hfconfig/data/modelconfig_cases.json and record how "
                         "load errors surface (--record writes modelconfig_<release>.json)")
    args = ap.parse_args(argv)
    if args.unit:
        return main_unit(args)
    if args.modelconfig:
        return main_modelconfig(args)
    from packaging.version import Version

    from kvguard.versions import Release
    types = args.types.split(",") if args.types else SCOPE
    templates = load_templates()
    cases = gen_cases(types, args.n, args.seed, templates)
    table = {}
    mismatches = []
    for ver, py, extra_env in _oracles(args):
        if args.all:
            cases = gen_cases_all(py, ver, args, extra_env)
        t0 = time.time()
        oracle = run_oracle(py, cases, env=extra_env)
        t1 = time.time()
        release = Release(Version(ver))
        recorded = []
        for case in cases:
            o = oracle[case["id"]]
            k = run_kvguard(case, release)
            verdict, detail = compare(o, k)
            row = table.setdefault(ver, {}).setdefault(case["mt"], {"agree": 0, "undecidable": 0, "mismatch": 0,
                                                                    "gap": 0, "exact": 0})
            row[verdict] += 1
            if case["id"].endswith("#0"):
                row["template_ok"] = o["outcome"] == "ok" and verdict == "agree"
            if k.get("emulation") == "exact":
                row["exact"] += 1
            if verdict in ("mismatch", "gap"):
                mismatches.append({"release": ver, "id": case["id"], "config": case["config"], "diff": detail})
            if args.record and verdict in ("agree", "undecidable") and \
                    int(case["id"].split("#")[1]) < args.record_per_type:
                recorded.append({"id": case["id"], "config": case["config"], "path": case["path"], "oracle": o})
        t2 = time.time()
        print(f"{ver}: oracle {t1 - t0:.0f}s, kvguard {t2 - t1:.1f}s for {len(cases)} configs")
        if args.record:
            os.makedirs(args.record, exist_ok=True)
            import gzip
            with gzip.open(os.path.join(args.record, f"oracle_{ver}.json.gz"), "wt", encoding="utf-8") as f:
                json.dump({"release": ver, "source": "tools/hfconfig_oracle.py --record (real vLLM get_config + "
                           "get_hf_text_config in the oracle venv)", "cases": recorded}, f, separators=(",", ":"))
    for ver, rows in table.items():
        print(f"\n== vLLM {ver} ==")
        print(f"{'model_type':22} {'configs':>7} {'agree':>6} {'undec':>6} {'mism':>5} {'gap':>4}")
        tot = {"n": 0, "agree": 0, "undecidable": 0, "mismatch": 0, "gap": 0}
        for mt, r in sorted(rows.items()):
            n = r["agree"] + r["undecidable"] + r["mismatch"] + r["gap"]
            print(f"{mt:22} {n:7} {r['agree']:6} {r['undecidable']:6} {r['mismatch']:5} {r['gap']:4}")
            tot["n"] += n
            for key in ("agree", "undecidable", "mismatch", "gap"):
                tot[key] += r[key]
        print(f"{'TOTAL':22} {tot['n']:7} {tot['agree']:6} {tot['undecidable']:6} {tot['mismatch']:5} "
              f"{tot['gap']:4}")
    with open(args.mismatches, "w") as f:
        json.dump(mismatches, f, indent=1, default=str)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)
    print(f"\n{len(mismatches)} mismatches/gaps written to {args.mismatches}")
    return 0 if not mismatches else 1


UNIT_CASES = os.path.join(ROOT, "tests", "hfconfig", "data", "unit_cases.json")


def main_unit(args) -> int:
    from packaging.version import Version

    from kvguard.versions import Release
    path = getattr(args, "unit_cases", None) or UNIT_CASES
    with open(path) as f:
        cases = json.load(f)
    if isinstance(cases, dict):
        cases = cases["cases"]
    stem = "unit" if path == UNIT_CASES else os.path.basename(path).removesuffix(".json")
    bad = []
    for ver, py, extra_env in _oracles(args):
        oracle = run_oracle(py, cases, env=extra_env)
        release = Release(Version(ver))
        counts = {"agree": 0, "undecidable": 0, "mismatch": 0, "gap": 0}
        results = []
        for case in cases:
            o = oracle[case["id"]]
            verdict, detail = compare(o, run_kvguard(case, release))
            counts[verdict] += 1
            results.append(o)
            if verdict in ("mismatch", "gap"):
                bad.append({"release": ver, "id": case["id"], "diff": detail})
        print(f"{ver}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        if args.record:
            os.makedirs(args.record, exist_ok=True)
            import gzip
            with gzip.open(os.path.join(args.record, f"{stem}_oracle_{ver}.json.gz"), "wt", encoding="utf-8") as f:
                json.dump({"release": ver, "source": "tools/hfconfig_oracle.py --unit --record (real vLLM get_config "
                           "+ get_hf_text_config in the oracle environment)", "results": results}, f,
                          separators=(",", ":"))
    with open(args.mismatches, "w") as f:
        json.dump(bad, f, indent=1, default=str)
    print(f"{len(bad)} mismatches/gaps written to {args.mismatches}")
    return 0 if not bad else 1


def main_modelconfig(args) -> int:
    with open(os.path.join(ROOT, "tests", "hfconfig", "data", "modelconfig_cases.json")) as f:
        cases = json.load(f)
    for ver, py, extra_env in _oracles(args):
        results = _run_worker(py, cases, mode="--modelconfig", env=extra_env, timeout=3600)
        print(f"{ver}: " + ", ".join(f"{r['id']}={r['outcome'] if r['outcome'] == 'ok' else r['error']['type']}"
                                     for r in results))
        if args.record:
            with open(os.path.join(args.record, f"modelconfig_{ver}.json"), "w") as f:
                json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
