"""ModelConfig's quantization checks: kvguard vs the release's own ModelConfig, on generated inputs.

Inputs: real checkpoints' configs (kvguard's catalog: unquantized, FP8, AWQ, compressed-tensors; plus a
GPTQ and a few variants of the quantization config: no ``quant_method``, an upper-case or
``compressed_tensors`` spelling, a method the release does not know, a deprecated one) crossed with
``--quantization`` values (none, the release's methods, a few it does not know) and
``--allow-deprecated-quantization``.  ``tests/upstream/quant_verify_runner.py`` builds
``ModelConfig(model=dir, quantization=…)`` in the release's oracle (the quantization modules see CUDA
with compute capability 9.0: the default host); kvguard must give the same refusal (exception type,
message, pydantic wrapping), or accept when ModelConfig accepts.  A case kvguard leaves undecided (a
skipped ``MC_quant_*`` check) is counted apart, never as agreement; every mismatch fails.

A second differential builds the whole ``create_engine_config`` (``vllm_config``) for FP8 / AWQ / GPTQ /
unquantized checkpoints of several config dtypes × ``--quantization`` × ``--dtype``: VllmConfig's
activation-dtype refusal (``VC_quant_act_dtype``) must agree; an oracle refusal elsewhere (the CPU oracle
host) with kvguard passing these checks is counted apart (``oracle_other``).

A third, ``KVG_QVERIFY_PART=gpt_oss python -m tests.upstream.test_quant_verify V …`` (not in the pytest run),
crosses every gpt-oss config (the catalog's 20b / 120b, config dtypes, other sizes, an MXFP4 checkpoint of another
model type) with --quantization and --dtype (308 cases, both checks, compared as the second).


``KVG_QVERIFY_PART=modelopt python -m tests.upstream.test_quant_verify V …`` (not in the pytest run) crosses the
ModelOpt configs of both export layouts (modelopt_quant_configs) with --quantization through ModelConfig (339 cases)
and with --quantization none / fp8 x --dtype through the whole engine config, the MXFP8 / MIXED_PRECISION exports and
variants (modelopt_mx_mixed_configs: also W4A16_NVFP4 and methods of another class than the algorithm) also with
--dtype bfloat16 and their own method named (306); the CI sample takes
three of them.

A third set (0.20.0+ matters) takes DeepSeek-V4 checkpoints (the real Flash / Pro configs and variants) through
both, for DeepSeek-V4's FP8 override and the activation dtypes of ``deepseek_v4_fp8``; and
``test_dsv4_override_matches_the_release_sources`` runs each release's own override function, read from its source.

Releases: KVG_ORACLE_VERSIONS (default "0.20.0 0.28.0").  Size: KVG_QVERIFY_CASES (default 16),
KVG_QVERIFY_DTYPE_CASES (default 12) and KVG_QVERIFY_DSV4_CASES (default 12) per release; ``python -m
tests.upstream.test_quant_verify V1 V2 …`` runs more (80, 40 and 40; KVG_QVERIFY_PART=dsv4: the DeepSeek-V4 cases
only).  Reports: KVG_DIFF_REPORT_DIR/qverify-<release>.json and qverify-dtype-<release>.json (its ``dsv4`` key).
"""

from __future__ import annotations

import ast
import copy
import json
import os
import random
import sys

import pytest

import kvguard
from kvguard import catalog
from kvguard.launch.layout import Host
from kvguard.quant.verify import methods
from kvguard.rules.check import resolve_release

from ._oracle import oracle_or_skip as _python
from ._oracle import run_runner

pytestmark = pytest.mark.upstream

VERSIONS = os.environ.get("KVG_ORACLE_VERSIONS", "0.20.0 0.28.0").split()

_BASES = ("Qwen/Qwen3-8B", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen/Qwen3-30B-A3B-FP8")
_GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
_NOT_METHODS = ("foo", "FP8", "awq-marlin", "bitsandbytes", "gguf", "ipex", "cpu_awq", "deepspeedfp")


def _configs() -> list[tuple[str, dict]]:
    entries = {e.id: e.config for e in catalog.entries()}
    out = [(name, entries[name]) for name in _BASES]
    plain = entries["Qwen/Qwen3-8B"]
    out.append(("gptq", dict(plain, quantization_config=dict(_GPTQ))))
    out.append(("no-method", dict(plain, quantization_config={"bits": 4})))
    out.append(("upper-FP8", dict(plain, quantization_config={"quant_method": "FP8", "activation_scheme": "dynamic"})))
    out.append(("ct-underscore", dict(plain, quantization_config={"quant_method": "compressed_tensors",
                                                                    "config_groups": {}})))
    out.append(("unknown-method", dict(plain, quantization_config={"quant_method": "bogus"})))
    out.append(("fbgemm", dict(plain, quantization_config={"quant_method": "fbgemm_fp8"})))
    out.append(("compression-config", dict(plain, compression_config={"quant_method": "compressed-tensors"})))
    out.append(("gpt-oss-20b", entries["openai/gpt-oss-20b"]))
    out.append(("mxfp4-qwen3", dict(plain, quantization_config={"quant_method": "mxfp4"})))
    return out


_MO_PRODUCER = {"name": "modelopt", "version": "0.29.0"}
_MO_GROUPS = {"group_0": {"input_activations": {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16},
                          "weights": {"dynamic": False, "num_bits": 4, "type": "float", "group_size": 16},
                          "targets": ["Linear"]}}


def _nested(algo, **extra) -> dict:
    """The older export (hf_quant_config.json's layout in config.json): producer + quantization."""
    return {"producer": dict(_MO_PRODUCER, version="0.15.0"),
            "quantization": {"quant_algo": algo, "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"], **extra}}


def _flat(algo, method="modelopt", **extra) -> dict:
    """The newer export: quant_method modelopt, quant_algo at the top level."""
    return {"config_groups": _MO_GROUPS, "ignore": ["lm_head"], "quant_algo": algo, "producer": dict(_MO_PRODUCER),
            "quant_method": method, **extra}


def modelopt_quant_configs() -> list[tuple[str, dict]]:
    """ModelOpt quantization configs of both layouts (the NVIDIA nvidia/*-FP8 / *-FP4 / *-NVFP4 exports and
    variants): the algorithms each release's normalization and overrides read, spellings, a method named
    directly, the legacy export without a producer, algorithms nothing lists."""
    mixed_layers = {"model.layers.0.mlp.experts": {"quant_algo": "NVFP4", "group_size": 16},
                    "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}
    return [
        ("mo-flat-nvfp4", _flat("NVFP4", group_size=16)),
        ("mo-flat-fp8", _flat("FP8")),
        ("mo-flat-mxfp8", _flat("MXFP8")),
        ("mo-flat-mixed", _flat("MIXED_PRECISION", quantized_layers=mixed_layers)),
        ("mo-flat-w4a8", _flat("W4A8_AWQ")),
        ("mo-flat-nvfp4-awq", _flat("NVFP4_AWQ")),
        ("mo-flat-fp8-pbwo", _flat("FP8_PB_WO")),
        ("mo-flat-fp4-method", _flat("NVFP4", method="modelopt_fp4")),
        ("mo-flat-upper-method-lower-algo", _flat("fp8", method="ModelOpt")),
        ("mo-flat-no-algo", {k: v for k, v in _flat("FP8").items() if k != "quant_algo"}),
        ("mo-nested-fp8", _nested("FP8")),
        ("mo-nested-nvfp4", _nested("NVFP4", group_size=16)),
        ("mo-nested-fp8-lower", _nested("fp8")),
        ("mo-nested-fp8-pbwo", _nested("FP8_PB_WO")),
        ("mo-nested-fp8-pcpt", _nested("FP8_PER_CHANNEL_PER_TOKEN")),
        ("mo-nested-mixed", _nested("MIXED_PRECISION", quantized_layers=mixed_layers)),
        ("mo-nested-w4a8", _nested("W4A8_AWQ")),
        ("mo-nested-mxfp8", _nested("MXFP8")),
        ("mo-nested-no-algo", {"producer": dict(_MO_PRODUCER), "quantization": {"exclude_modules": ["lm_head"]}}),
        ("mo-nested-method-no-producer", {"quant_method": "modelopt", "quantization": {"quant_algo": "NVFP4"}}),
        ("mo-nested-fp4-method-no-producer", {"quant_method": "modelopt_fp4", "quantization": {"quant_algo": "FP8"}}),
        ("mo-legacy-fp8", {"quantization": {"quant_algo": "FP8", "modelopt_quant_config": {}}}),
        ("mo-legacy-int4", {"quantization": {"quant_algo": "W4A16_AWQ", "modelopt_quant_config": {}}}),
        ("mo-other-producer", {"producer": {"name": "other"}, "quantization": {"quant_algo": "W4A8_AWQ"},
                               "quant_method": "fp8", "activation_scheme": "dynamic"}),
    ]


#: --quantization values for ModelOpt checkpoints: none, each ModelOpt name, other methods (fp8, awq), the names
#: whose overrides claim any checkpoint (humming, gguf), ROCm's petit_nvfp4, spellings, an unknown name
_MO_USERS = (None, "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "fp8", "awq", "humming", "gguf",
             "petit_nvfp4", "MODELOPT", "ModelOpt_FP4", "foo", "moe_wna16")


def generate_modelopt(version: str) -> list[dict]:
    """Every ModelOpt config (on Qwen3-8B's) x --quantization, through ModelConfig."""
    plain = {e.id: e.config for e in catalog.entries()}["Qwen/Qwen3-8B"]
    cases = []
    for name, quant in modelopt_quant_configs():
        for user in _MO_USERS:
            cases.append({"id": f"m-{name}-{user}", "config": dict(copy.deepcopy(plain), quantization_config=quant),
                          "quantization": user, "allow_deprecated_quantization": False})
    # where the normalization's refusal stands among ModelConfig's checks: before the float16 refusal of gemma2
    # from 0.14.0 (model_arch_config), after it before
    gemma2 = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "torch_dtype": "bfloat16",
              "num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1024, "max_position_embeddings": 4096}
    for name in ("mo-nested-w4a8", "mo-nested-fp8", "mo-flat-nvfp4"):
        quant = dict(modelopt_quant_configs())[name]
        cases.append({"id": f"m-gemma2-{name}-half", "config": dict(gemma2, quantization_config=copy.deepcopy(quant)),
                      "quantization": None, "dtype": "half", "allow_deprecated_quantization": False})
    return cases


def modelopt_mx_mixed_configs() -> list[tuple[str, dict]]:
    """MXFP8 / MIXED_PRECISION exports and variants for the engine config: the config's dtype, the per-layer
    algorithms, quantized_layers empty / nested only, an MXFP8 mapping without its required fields, MXFP8 spellings
    from_config refuses."""
    base = dict(modelopt_quant_configs())
    layers = base["mo-flat-mixed"]["quantized_layers"]
    # the nested layout without a producer (ModelConfig's normalization refuses MXFP8 from 0.14.0): the overrides
    # claim it
    nested_mx = {"quant_method": "modelopt", "quantization": {"quant_algo": "MXFP8", "exclude_modules": ["lm_head"]}}
    return [
        ("mo-flat-mxfp8-float16", _flat("MXFP8")),
        ("mo-flat-mxfp8-lower", _flat("mxfp8")),
        ("mo-flat-mxfp8-suffix", _flat("MXFP8_W8")),
        ("mo-nested-mxfp8-no-kv", nested_mx),
        ("mo-nested-mxfp8-method", {"quant_method": "modelopt", "quantization": dict(nested_mx["quantization"],
                                                                                     kv_cache_quant_algo=None)}),
        ("mo-flat-mixed-fp8-only", _flat("MIXED_PRECISION", quantized_layers={
            "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}})),
        ("mo-flat-mixed-float16", _flat("MIXED_PRECISION", quantized_layers=layers)),
        ("mo-flat-mixed-empty", _flat("MIXED_PRECISION", quantized_layers={})),
        # Qwen3.6's NVFP4 exports: FP8 attention / linear attention, W4A16_NVFP4 MLP or experts (0.22.0+ build a
        # W4A16_NVFP4 sub-config; before, such a layer is read as no algorithm), the first NVFP4-family entry's
        # group_size
        ("mo-flat-mixed-w4a16", _flat("MIXED_PRECISION", quantized_layers={
            "model.language_model.layers.0.linear_attn.in_proj_qkv": {"quant_algo": "FP8"},
            "model.language_model.layers.0.mlp.experts": {"quant_algo": "W4A16_NVFP4", "group_size": 16}})),
        ("mo-flat-mixed-w4a16-only", _flat("MIXED_PRECISION", quantized_layers={
            "model.layers.0.mlp.gate_proj": {"quant_algo": "W4A16_NVFP4", "group_size": 32}})),
        ("mo-flat-mixed-pbwo", _flat("MIXED_PRECISION", quantized_layers={
            "model.layers.0.mlp.experts": {"quant_algo": "FP8_PB_WO", "group_size": 128}})),
        # W4A16_NVFP4 (QUANT_ALGOS from 0.21.0), flat and nested without a producer (the overrides claim both)
        ("mo-flat-w4a16-nvfp4", _flat("W4A16_NVFP4", group_size=16)),
        ("mo-nested-w4a16-nvfp4-method", {"quant_method": "modelopt", "quantization": {
            "quant_algo": "W4A16_NVFP4", "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"],
            "group_size": 16}}),
        # a ModelOpt method of one class for an algorithm of another (the class's __init__ refuses it, or not)
        ("mo-flat-fp4-method-fp8", _flat("FP8", method="modelopt_fp4")),
        ("mo-flat-fp4-method-pbwo", _flat("FP8_PB_WO", method="modelopt_fp4")),
        ("mo-flat-mxfp8-method-pbwo", _flat("FP8_PB_WO", method="modelopt_mxfp8")),
        ("mo-flat-mixed-method-pbwo", _flat("FP8_PB_WO", method="modelopt_mixed", quantized_layers=layers)),
        ("mo-nested-lower-nvfp4-method", {"quant_method": "modelopt", "quantization": {
            "quant_algo": "nvfp4", "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"], "group_size": 16}}),
        # no quant_algo in the nested mapping (each class's own from_config up to 0.11.x)
        ("mo-nested-fp4-method-no-algo", {"quant_method": "modelopt_fp4", "quantization": {
            "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}}),
    ]


def generate_modelopt_dtype(version: str) -> list[dict]:
    """Every ModelOpt config x --quantization (none, fp8) x --dtype, through the whole create_engine_config: the
    normalization and overrides, the ModelOpt config VllmConfig builds, its minimum capability (the oracle's
    platform reports compute capability 9.0 while VllmConfig builds it: ``cuda_capability``) and its activation
    dtypes; the MXFP8 / MIXED_PRECISION exports also with --dtype bfloat16 and --quantization naming their method."""
    plain = {e.id: e.config for e in catalog.entries()}["Qwen/Qwen3-8B"]
    mx_mixed = ("mxfp8", "mixed")
    cases = []
    for name, quant in modelopt_quant_configs() + modelopt_mx_mixed_configs():
        config = dict(copy.deepcopy(plain), quantization_config=quant)
        if name.endswith("-float16"):
            config["torch_dtype"] = "float16"
        ours = any(f"-{m}" in name for m in mx_mixed)
        users = (None, "fp8", "modelopt_mxfp8" if "mxfp8" in name else "modelopt_mixed") if ours else (None, "fp8")
        for user in users:
            dtypes = ("auto", "float16", "float32", "bfloat16") if ours and user is None else ("auto", "float16",
                                                                                              "float32")
            for dtype in dtypes:
                cases.append({"id": f"md-{name}-{user}-{dtype}", "config": copy.deepcopy(config),
                              "quantization": user, "dtype": None if dtype == "auto" else dtype,
                              "allow_deprecated_quantization": False, "vllm_config": True, "cuda_capability": 90})
    return cases


def run_modelopt(version: str) -> tuple[dict, dict]:
    """(ModelConfig's report, the whole engine config's) for the ModelOpt cases, through one oracle start."""
    python, python_env = _python(version)
    cases, dtype_cases = generate_modelopt(version), generate_modelopt_dtype(version)
    records = run_runner("quant_verify_runner.py", python, python_env, cases + dtype_cases)
    return (compare(version, cases, records[:len(cases)]),
            compare_dtype(version, dtype_cases, records[len(cases):]))


def generate(seed: int, version: str, n: int) -> list[dict]:
    rng = random.Random(f"{seed}-{version}")
    known, deprecated = methods(resolve_release(version))
    users = [None, None, *known, *deprecated, *_NOT_METHODS, "fp8", "awq", "gptq", "compressed-tensors", "mxfp4",
             "gpt_oss_mxfp4"]
    configs = _configs()
    cases = []
    for i in range(n):
        name, cfg = configs[i % len(configs)] if i < len(configs) else rng.choice(configs)
        user = rng.choice(users)
        cases.append({"id": f"{i}-{name}-{user}", "config": copy.deepcopy(cfg), "quantization": user,
                      "allow_deprecated_quantization": rng.random() < 0.25})
    return cases


def _oracle_view(rec: dict) -> dict:
    if rec["stage"] == "ok":
        return {"ok": True}
    return {"ok": False, "exc_type": rec["exc_type"], "message": rec["message"], "wrapped_by": rec.get("wrapped_by")}


def kvguard_view(case: dict, version: str) -> "dict | None":
    """kvguard's answer for ModelConfig, None when kvguard leaves it undecided."""
    fields = {"quantization": case["quantization"]}
    if case.get("dtype"):
        fields["dtype"] = case["dtype"]
    if case["allow_deprecated_quantization"] and resolve_release(version).within("0.14.0"):
        fields["allow_deprecated_quantization"] = True
    verdict = kvguard.check(case["config"], vllm_version=version, host=Host.standard(), **fields)
    if not verdict.ok and verdict.stage == "model_config":
        return {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                "wrapped_by": verdict.wrapped_by}
    if any(s.check.startswith("MC_quant") for s in verdict.skipped):
        return None
    return {"ok": True}


def compare(version: str, cases: list[dict], records: list[dict]) -> dict:
    out = {"version": version, "agree": 0, "undecided": 0, "disagree": [], "undecided_cases": []}
    for case, rec in zip(cases, records):
        want = _oracle_view(rec)
        got = kvguard_view(case, version)
        if got is None:
            out["undecided"] += 1
            out["undecided_cases"].append({"id": case["id"], "oracle": want})
        elif got == want:
            out["agree"] += 1
        else:
            out["disagree"].append({"id": case["id"], "oracle": want, "kvguard": got})
    return out


def _source_lists(path: str) -> tuple[list, list]:
    """QuantizationMethods' literal values and DEPRECATED_QUANTIZATION_METHODS of a release's source."""
    import ast

    tree = ast.parse(open(path, encoding="utf-8").read())
    names: list = []
    deprecated: list = []
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        if target == "QuantizationMethods" and isinstance(value, ast.Subscript):
            items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            names = [item.value for item in items if isinstance(item, ast.Constant)]
        elif target == "DEPRECATED_QUANTIZATION_METHODS" and isinstance(value, ast.List):
            deprecated = [item.value for item in value.elts if isinstance(item, ast.Constant)]
    return names, deprecated


def test_method_lists_match_the_release_sources():
    """kvguard/data/quant_methods.json against each release's vllm/model_executor/layers/quantization/__init__.py
    (the unpacked sources of the oracle)."""
    from kvguard.versions import KNOWN_RELEASES

    root = os.path.join(os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle")),
                        "releases")
    checked = 0
    for version in KNOWN_RELEASES:
        path = os.path.join(root, version, "vllm", "model_executor", "layers", "quantization", "__init__.py")
        if not os.path.exists(path):
            continue
        assert methods(resolve_release(version)) == _source_lists(path), version
        checked += 1
    if not checked:
        pytest.skip(f"no release sources under {root}")


# ---------------------------------------------------------------------------
# DeepSeek-V4's FP8 override, from each release's source: the function itself run on kvguard's inputs

def _class_of(path: str, name: str):
    tree = ast.parse(open(path, encoding="utf-8").read())
    return next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name), None)


def _dsv4_override(vllm_dir: str):
    """(override_quantization_method of the DeepseekV4FP8Config CUDA builds, its class node) or None."""
    import __future__

    init = open(os.path.join(vllm_dir, "model_executor", "layers", "quantization", "__init__.py"),
                encoding="utf-8").read()
    if "deepseek_v4_fp8" not in init:
        return None
    # from the release with DeepSeek-V4.1 CUDA builds its class (the package picks it on is_cuda())
    sub = "deepseek_v41" if "vllm.models.deepseek_v41" in init else "deepseek_v4"
    candidates = [os.path.join(vllm_dir, "models", sub, "quant_config.py"),
                  os.path.join(vllm_dir, "model_executor", "models", f"{sub}.py")]
    path = next(p for p in candidates if os.path.exists(p))
    cls_node = _class_of(path, "DeepseekV4FP8Config")
    funcs = [f for f in cls_node.body if isinstance(f, ast.FunctionDef)
             and f.name in ("override_quantization_method", "_is_quark_mxfp4_ocp")]
    for f in funcs:
        f.decorator_list = []
    code = compile(ast.Module(body=funcs, type_ignores=[]), path, "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)
    scope: dict = {}
    exec(code, scope)  # noqa: S102 - two pure functions of the release's source

    class Cls:
        _is_quark_mxfp4_ocp = staticmethod(scope.get("_is_quark_mxfp4_ocp", lambda cfg: False))

    class HfConfig:
        def __init__(self, model_type):
            self.model_type = model_type

    fn = scope["override_quantization_method"]
    return (lambda cfg, user, model_type: fn(Cls, cfg, user, hf_config=HfConfig(model_type))), cls_node


def _overrides_list(vllm_dir: str) -> list:
    tree = ast.parse(open(os.path.join(vllm_dir, "config", "model.py"), encoding="utf-8").read())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "overrides" and isinstance(node.value, ast.List)):
            return [e.value for e in node.value.elts]
    raise LookupError("no overrides list")


def test_dsv4_override_matches_the_release_sources():
    """kvguard.quant.dsv4_fp8.claim against each release's own override function (run on the inputs kvguard
    decides: methods fp8 / deepseek_v4_fp8 / others, model types, --quantization) and its overrides order
    (gguf, humming); the class keeps Fp8Config's activation dtypes and minimum capability."""
    from kvguard.quant import dsv4_fp8
    from kvguard.versions import KNOWN_RELEASES

    root = os.path.join(os.environ.get("KVG_ORACLE_ROOT", os.path.expanduser("~/.cache/kvguard-oracle")),
                        "releases")
    checked = 0
    for version in KNOWN_RELEASES:
        vllm_dir = os.path.join(root, version, "vllm")
        if not os.path.isdir(vllm_dir):
            continue
        release = resolve_release(version)
        found = _dsv4_override(vllm_dir)
        if found is None:
            assert not release.within("0.20.0"), version
            continue
        override, cls_node = found
        assert release.within("0.20.0"), version
        defined = {f.name for f in cls_node.body if isinstance(f, ast.FunctionDef)}
        assert not defined & {"get_supported_act_dtypes", "get_min_capability"}, version
        overrides = _overrides_list(vllm_dir)
        known = methods(release)[0]
        model_py = open(os.path.join(vllm_dir, "config", "model.py"), encoding="utf-8").read()
        assert ('if self.quantization == "humming":' in model_py) is ("humming" in known), version
        for method in ("fp8", "deepseek_v4_fp8", "awq", "compressed-tensors", "modelopt", "quark"):
            for model_type in ("deepseek_v4", "deepseek_v4_text", "deepseek_v41", "deepseek_v3", None):
                for user in (None, "fp8", "deepseek_v4_fp8", "awq", "humming", "gguf"):
                    want = override({"quant_method": method}, user, model_type) == "deepseek_v4_fp8"
                    if user == "humming" and "humming" in known:
                        want = False  # asked first when named, and it claims
                    if user == "gguf" and "gguf" in known and not (
                            "gguf" in overrides and overrides.index("gguf") > overrides.index("deepseek_v4_fp8")):
                        want = False  # GGUF's override claims first
                    got = dsv4_fp8.claim(method, user, model_type, release)
                    if isinstance(got, str):
                        # left open: only where CUDA's class claims (the other model types) or for Quark
                        assert want or method == "quark", (version, method, model_type, user, got)
                    else:
                        assert got is want, (version, method, model_type, user, got)
        checked += 1
    if not checked:
        pytest.skip(f"no release sources under {root}")


# ---------------------------------------------------------------------------
# VllmConfig._get_quantization_config: the activation-dtype refusal (the whole create_engine_config in the oracle)

_QUANT_IDS = ("MC_quant_mismatch", "MC_quant_unknown", "MC_quant_deprecated", "MC_quant_gpt_oss_humming",
              "MC_quant_modelopt_algo", "MC_quant_override_unlisted", "VC_quant_modelopt_no_algo",
              "VC_quant_modelopt_algo", "VC_quant_modelopt_fields", "VC_quant_modelopt_fp8_algo",
              "VC_quant_modelopt_nvfp4_algo", "VC_quant_modelopt_mxfp8_serialized", "VC_quant_modelopt_mixed_layers",
              "VC_quant_capability", "VC_quant_act_dtype")
#: (the ModelOpt configs' own refusals while VllmConfig builds them count too: kvguard must leave them undecided)
_QUANT_MESSAGES = ("Quantization method specified in the model config", "Unknown quantization method",
                   "('The quantization method", " is not supported for quantization method ",
                   "For gpt-oss model, use '--moe-backend humming'", "Unknown ModelOpt quant algo",
                   "is an override but is has not been added", "ModelOpt", "quant_algo",
                   "NVFP4 quantization requires", "must be a string, got", "must be a list, got",
                   "must be an integer, got", "is not supported for the current GPU", "MXFP8 quantization requires",
                   "MIXED_PRECISION", "quantized_layers")
_DTYPES = ("auto", "auto", "float16", "bfloat16", "float32", "half", "float")


def _dtype_configs() -> list[tuple[str, dict]]:
    entries = {e.id: e.config for e in catalog.entries()}
    awq, fp8 = entries["Qwen/Qwen2.5-72B-Instruct-AWQ"], entries["Qwen/Qwen3-32B-FP8"]
    plain = entries["Qwen/Qwen3-8B"]
    gptq = dict(plain, quantization_config=dict(_GPTQ))
    out = [("fp8", fp8), ("plain", plain)]
    for dtype in ("float16", "bfloat16", None):
        out.append((f"awq-{dtype}", dict(awq, torch_dtype=dtype) if dtype else awq))
        out.append((f"gptq-{dtype}", dict(gptq, torch_dtype=dtype) if dtype else gptq))
    out.append(("awq-g256-bfloat16", dict(awq, torch_dtype="bfloat16",
                                          quantization_config=dict(awq["quantization_config"], group_size=256))))
    for size in ("20b", "120b"):
        out.append((f"gpt-oss-{size}", entries[f"openai/gpt-oss-{size}"]))
    for dtype in ("bfloat16", "float16", "float32"):
        out.append((f"gpt-oss-20b-{dtype}", dict(entries["openai/gpt-oss-20b"], torch_dtype=dtype)))
    return out


def generate_dtype(seed: int, version: str, n: int) -> list[dict]:
    rng = random.Random(f"dtype-{seed}-{version}")
    users = [None, None, "awq", "gptq", "awq_marlin", "gptq_marlin", "marlin", "fp8", "auto_awq", "auto_gptq", "mxfp4",
             "gpt_oss_mxfp4"]
    configs = _dtype_configs()
    cases = []
    for i in range(n):
        name, cfg = configs[i % len(configs)] if i < len(configs) else rng.choice(configs)
        user, dtype = rng.choice(users), rng.choice(_DTYPES)
        cases.append({"id": f"d{i}-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                      "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                      "vllm_config": True})
    return cases + online_dtype_cases() if n else cases


def online_dtype_cases() -> list[dict]:
    """Online FP8 (``--quantization fp8`` of an unquantized checkpoint, bfloat16 and float16 configs) at every
    ``--dtype``: the online config's activation dtypes."""
    plain = {e.id: e.config for e in catalog.entries()}["Qwen/Qwen3-8B"]
    cases = []
    for name, cfg in (("plain", plain), ("plain-float16", dict(plain, torch_dtype="float16"))):
        for user in ("fp8", "FP8"):
            for dtype in ("auto", "float16", "bfloat16", "float32", "half", "float"):
                if user == "FP8" and dtype not in ("auto", "float32"):
                    continue
                cases.append({"id": f"online-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                              "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                              "vllm_config": True})
    return cases


def _oracle_quant_view(rec: dict) -> "dict | str":
    if rec["stage"] == "ok":
        return {"ok": True}
    if any(m in rec["message"] for m in _QUANT_MESSAGES):
        return _oracle_view(rec)
    return "other"


def kvguard_quant_view(case: dict, version: str) -> "dict | None":
    verdict = kvguard.check(case["config"], vllm_version=version, host=Host.standard(),
                            quantization=case["quantization"], dtype=case["dtype"] or "auto")
    if not verdict.ok and verdict.check in _QUANT_IDS:
        return {"ok": False, "exc_type": verdict.exc_type, "message": verdict.message,
                "wrapped_by": verdict.wrapped_by}
    if any(s.check in _QUANT_IDS for s in verdict.skipped):
        return None
    return {"ok": True}


def compare_dtype(version: str, cases: list[dict], records: list[dict]) -> dict:
    out = {"version": version, "agree": 0, "undecided": 0, "oracle_other": 0, "disagree": [], "undecided_cases": []}
    for case, rec in zip(cases, records):
        want = _oracle_quant_view(rec)
        got = kvguard_quant_view(case, version)
        if got is None:
            out["undecided"] += 1
            out["undecided_cases"].append({"id": case["id"], "oracle": want})
        elif want == "other" and got == {"ok": True}:
            out["oracle_other"] += 1  # vLLM refused elsewhere (the CPU oracle host); these checks passed
        elif got == want:
            out["agree"] += 1
        else:
            out["disagree"].append({"id": case["id"], "oracle": want if want != "other" else rec, "kvguard": got})
    return out


def _gpt_oss_configs() -> list[tuple[str, dict]]:
    """The gpt-oss checkpoints (catalog) and variants: a config dtype, other head / expert / intermediate sizes
    (ModelConfig and VllmConfig read no size of the MXFP4 method: these show that), another model type."""
    entries = {e.id: e.config for e in catalog.entries()}
    small, large = entries["openai/gpt-oss-20b"], entries["openai/gpt-oss-120b"]
    out = [("gpt-oss-20b", small), ("gpt-oss-120b", large)]
    for dtype in ("bfloat16", "float16", "float32"):
        out.append((f"gpt-oss-20b-{dtype}", dict(small, torch_dtype=dtype)))
    out.append(("gpt-oss-h32-e16-i1440", dict(small, num_attention_heads=32, num_local_experts=16,
                                              intermediate_size=1440, torch_dtype="bfloat16")))
    out.append(("mxfp4-qwen3", dict(entries["Qwen/Qwen3-8B"], quantization_config={"quant_method": "mxfp4"})))
    return out


#: other names GptOssMxfp4Config's override replaces (or humming's claims / refuses first; gguf's and moe_wna16's
#: overrides come after it; an online-quantization name; the CPU AWQ and auto-round overrides' names)
_GPT_OSS_OTHER_USERS = ("awq", "humming", "gguf", "moe_wna16", "modelopt", "compressed-tensors", "cpu_awq", "inc",
                        "fp8_per_tensor", "Foo-Bar")


def generate_gpt_oss(version: str) -> list[dict]:
    """Every gpt-oss config x --quantization (none, the MXFP4 names, an upper-case spelling, another method, an
    unknown one) x --dtype, through the whole create_engine_config."""
    cases = []
    for name, cfg in _gpt_oss_configs():
        for user in (None, "mxfp4", "MXFP4", "gpt_oss_mxfp4", "fp8", "foo", *_GPT_OSS_OTHER_USERS):
            for dtype in ("auto", "float16", "bfloat16", "float32") if user not in _GPT_OSS_OTHER_USERS else (
                    "auto", "float16"):
                cases.append({"id": f"g-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                              "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                              "vllm_config": True})
    return cases


def run_gpt_oss(version: str) -> dict:
    python, python_env = _python(version)
    cases = generate_gpt_oss(version)
    return compare_dtype(version, cases, run_runner("quant_verify_runner.py", python, python_env, cases))


# ---------------------------------------------------------------------------
# a multimodal checkpoint whose quantization config sits in text_config only (ModelConfig reads hf_config's, else
# hf_config.text_config's: Kimi-K2.5, whose top-level config copies it up to 0.28.x and not from 0.29.0)

_TEXT_CONFIG_USERS = (None, None, "compressed-tensors", "fp8", "awq", "gptq", "foo", "modelopt", "moe_wna16",
                      "awq_marlin", "gptq_marlin")


def _text_config_configs() -> list[tuple[str, dict]]:
    k25 = copy.deepcopy(catalog.lookup("moonshotai/Kimi-K2.5").config)
    out = [("kimi-k25", k25)]
    fp8 = copy.deepcopy(k25)
    fp8["text_config"]["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic",
                                                 "weight_block_size": [128, 128]}
    out.append(("kimi-k25-fp8", fp8))
    for name, q in (("upper-FP8", {"quant_method": "FP8", "activation_scheme": "dynamic"}),
                    ("bogus", {"quant_method": "bogus"}), ("no-method", {"bits": 4})):
        variant = copy.deepcopy(k25)
        variant["text_config"]["quantization_config"] = q
        out.append((f"kimi-k25-{name}", variant))
    plain = copy.deepcopy(k25)
    del plain["text_config"]["quantization_config"]
    out.append(("kimi-k25-unquantized", plain))
    return out


def generate_text_config(version: str) -> list[dict]:
    """Every Kimi-K2.5 config (the published compressed-tensors W4A16 in text_config, a block-FP8 one, a method the
    release does not know, an upper-case spelling, none named, unquantized) x --quantization, through ModelConfig."""
    return [{"id": f"t-{name}-{user}", "config": copy.deepcopy(cfg), "quantization": user,
             "allow_deprecated_quantization": False}
            for name, cfg in _text_config_configs() for user in _TEXT_CONFIG_USERS]


def generate_text_config_dtype(version: str) -> list[dict]:
    """The same configs x --quantization (none, the checkpoint's, fp8) x --dtype, through the whole
    create_engine_config (VllmConfig's activation-dtype check)."""
    return [{"id": f"td-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
             "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False, "vllm_config": True}
            for name, cfg in _text_config_configs() for user in (None, "compressed-tensors", "fp8")
            for dtype in ("auto", "float16", "float32")]


def run_text_config(version: str) -> tuple[dict, dict]:
    """(ModelConfig's report, the whole engine config's) for the text_config cases, through one oracle start."""
    python, python_env = _python(version)
    cases, dtype_cases = generate_text_config(version), generate_text_config_dtype(version)
    records = run_runner("quant_verify_runner.py", python, python_env, cases + dtype_cases)
    return (compare(version, cases, records[:len(cases)]),
            compare_dtype(version, dtype_cases, records[len(cases):]))


# ---------------------------------------------------------------------------
# DeepSeek-V4 checkpoints (0.20.0+: DeepseekV4FP8Config's override claims their FP8 checkpoints)

_DSV4_USERS = (None, None, "fp8", "deepseek_v4_fp8", "deepseek_v4_fp8", "humming", "gguf", "awq", "modelopt",
               "mxfp4", "compressed-tensors", "foo")


def _dsv4_configs() -> list[tuple[str, dict]]:
    """The real DeepSeek-V4-Flash / -Pro configs and variants of their quantization config, dtype and model
    type; a non-V4 FP8 checkpoint (--quantization deepseek_v4_fp8 claims it too)."""
    entries = {e.id: e.config for e in catalog.entries()}
    flash, pro = entries["deepseek-ai/DeepSeek-V4-Flash"], entries["deepseek-ai/DeepSeek-V4-Pro"]
    quant = flash["quantization_config"]
    out = [("v4-flash", flash), ("v4-pro", pro), ("v4-flash-fp8-experts", dict(flash, expert_dtype="fp8")),
           ("v4-named-method", dict(flash, quantization_config=dict(quant, quant_method="deepseek_v4_fp8"))),
           ("v4-upper-FP8", dict(pro, quantization_config=dict(quant, quant_method="FP8"))),
           ("v4-float16", dict(flash, torch_dtype="float16")),
           ("v4-no-dtype", {k: v for k, v in pro.items() if k != "torch_dtype"}),
           ("v4-unquantized", {k: v for k, v in flash.items() if k != "quantization_config"}),
           ("qwen3-fp8", entries["Qwen/Qwen3-32B-FP8"])]
    return out


def generate_dsv4(seed: int, version: str, n: int) -> list[dict]:
    """Half ModelConfig cases, half whole-engine-config cases (with --dtype)."""
    rng = random.Random(f"dsv4-{seed}-{version}")
    configs = _dsv4_configs()
    cases = []
    for i in range(n):
        name, cfg = configs[i % len(configs)] if i < len(configs) else rng.choice(configs)
        user = rng.choice(_DSV4_USERS)
        engine = i % 2 == 1
        dtype = rng.choice(_DTYPES) if engine else "auto"
        cases.append({"id": f"v{i}-{name}-{user}-{dtype}", "config": copy.deepcopy(cfg), "quantization": user,
                      "dtype": None if dtype == "auto" else dtype, "allow_deprecated_quantization": False,
                      "vllm_config": engine})
    return cases


def compare_dsv4(version: str, cases: list[dict], records: list[dict]) -> dict:
    model = [(c, r) for c, r in zip(cases, records) if not c["vllm_config"]]
    engine = [(c, r) for c, r in zip(cases, records) if c["vllm_config"]]
    first = compare(version, [c for c, _ in model], [r for _, r in model])
    second = compare_dtype(version, [c for c, _ in engine], [r for _, r in engine])
    return {"version": version, "model_config": first, "vllm_config": second}


# ---------------------------------------------------------------------------
# the KV-cache dtype a checkpoint gives --kv-cache-dtype auto (0.14.0+: ModelOpt's KV-cache quantization;
# kvguard.quant.kv_cache)

_KV_ENTRIES = (None, "FP8", "fp8", "NVFP4", "nvfp4", "INT8", "bf16",
               {"dynamic": False, "num_bits": 8, "type": "float"}, {"dynamic": False, "num_bits": 4, "type": "float"},
               {"dynamic": True, "num_bits": 8, "type": "float"}, {"num_bits": 8, "type": "int", "dynamic": False})


def generate_cache_dtype(seed: int, version: str, n: int) -> list[dict]:
    """ModelConfig cases of ModelOpt FP8 / NVFP4 checkpoints (flat config.json, nested with and without
    quant_method, nested in hf_quant_config.json beside config.json) whose KV-cache entries (kv_cache_quant_algo,
    kv_cache_scheme, at either level) vary, and compressed-tensors / fp8 checkpoints with a KV-cache scheme."""
    rng = random.Random(f"cache-dtype-{seed}-{version}")
    base = {k: v for k, v in catalog.lookup("meta-llama/Llama-3.1-8B-Instruct").config.items()}
    ct = catalog.lookup("Qwen/Qwen3-32B-FP8").config
    cases = []
    for i in range(n):
        algo = rng.choice(["FP8", "NVFP4"])
        extra = {"group_size": 16} if algo == "NVFP4" else {}
        entry, key = rng.choice(_KV_ENTRIES), rng.choice(["kv_cache_quant_algo", "kv_cache_scheme"])
        form = rng.choice(["flat", "nested", "nested-named", "file", "other-method"])
        files = {}
        cfg = dict(base)
        if form == "flat":
            cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": algo, "ignore": ["lm_head"],
                                          "producer": {"name": "modelopt", "version": "0.31.0"}, key: entry,
                                          **({"kv_cache_scheme": None} if key != "kv_cache_scheme" else {}), **extra}
        elif form == "other-method":
            # compressed-tensors' kv_cache_scheme / an fp8 checkpoint's: the releases leave "auto" as it is
            q = dict(ct["quantization_config"])
            q["kv_cache_scheme"] = entry if isinstance(entry, dict) else None
            cfg = dict(ct, quantization_config=q)
        else:
            nested = {"producer": {"name": "modelopt", "version": "0.23.0"},
                      "quantization": {"quant_algo": algo, "exclude_modules": ["lm_head"], key: entry,
                                       **({"kv_cache_quant_algo": None} if key != "kv_cache_quant_algo" else {}),
                                       **extra}}
            if form == "nested-named":
                nested["quant_method"] = "modelopt_fp4" if algo == "NVFP4" else "modelopt"
            if form == "file":
                files["hf_quant_config.json"] = nested
            else:
                cfg["quantization_config"] = nested
        cases.append({"id": f"kv{i}-{form}-{algo}-{key}-{entry}", "config": copy.deepcopy(cfg), "files": files,
                      "quantization": None, "dtype": None, "allow_deprecated_quantization": False,
                      "vllm_config": False, "cache_dtype": True})
    return cases


def compare_cache_dtype(version: str, cases: list[dict], records: list[dict]) -> dict:
    """kvguard's ``--kv-cache-dtype auto`` (kvguard.quant.kv_cache) against the release's, where both build the
    ModelConfig; a case ModelConfig refuses counts apart (the first differential compares those)."""
    import tempfile

    from kvguard.errors import ModelConfigRefused
    from kvguard.quant.kv_cache import checkpoint_cache_dtype

    release = resolve_release(version, False)
    agree, refused, disagree = 0, 0, []
    for case, rec in zip(cases, records):
        source = case["config"]
        if case["files"]:
            source = tempfile.mkdtemp(prefix="kvg-kvdtype-")
            for name, content in {"config.json": case["config"], **case["files"]}.items():
                with open(os.path.join(source, name), "w") as fh:
                    json.dump(content, fh)
        try:
            facts = kvguard.model_facts(source, vllm_version=version)
        except ModelConfigRefused:
            facts = None
        if rec.get("stage") != "ok" or facts is None:
            refused += 1
            continue
        mine = checkpoint_cache_dtype(facts.resolved_top or {}, release) or "auto"
        if mine == rec["cache_dtype"]:
            agree += 1
        else:
            disagree.append({"id": case["id"], "kvguard": mine, "release": rec["cache_dtype"]})
    return {"version": version, "agree": agree, "refused": refused, "disagree": disagree}


def run_both(version: str, n: int, n_dtype: int, seed: int, n_dsv4: int = 0, n_cache: int = 0
             ) -> tuple[dict, dict]:
    """Both kinds of case through one oracle start (the release's import dominates the cost); with ``n_dsv4``
    the DeepSeek-V4 cases too (their report is the second one's ``dsv4``), with ``n_cache`` the KV-cache dtype
    cases (its ``cache_dtype``)."""
    python, python_env = _python(version)
    cases, dtype_cases = generate(seed, version, n), generate_dtype(seed, version, n_dtype)
    dsv4_cases = generate_dsv4(seed, version, n_dsv4) if n_dsv4 else []
    cache_cases = generate_cache_dtype(seed, version, n_cache) if n_cache else []
    records = run_runner("quant_verify_runner.py", python, python_env, cases + dtype_cases + dsv4_cases
                         + cache_cases)
    split = len(cases) + len(dtype_cases)
    dtype_report = compare_dtype(version, dtype_cases, records[len(cases):split])
    if dsv4_cases:
        dtype_report["dsv4"] = compare_dsv4(version, dsv4_cases, records[split:split + len(dsv4_cases)])
    if cache_cases:
        dtype_report["cache_dtype"] = compare_cache_dtype(version, cache_cases, records[split + len(dsv4_cases):])
    return compare(version, cases, records[:len(cases)]), dtype_report


def test_a_case_does_not_see_the_engine_an_earlier_case_chose():
    """0.10.2's create_engine_config writes VLLM_USE_V1=1 into os.environ after a model V1 takes (Qwen3-8B); a
    sliding-window model built next (gpt-oss-120b at float32) must still fall back to V0 on the CPU oracle and reach
    VllmConfig's activation-dtype refusal, as in a fresh process (not the CPU platform's V1 refusal)."""
    python, python_env = _python("0.10.2")
    entries = {e.id: e.config for e in catalog.entries()}
    cases = [{"id": "first", "config": copy.deepcopy(entries["Qwen/Qwen3-8B"]), "quantization": None,
              "dtype": None, "vllm_config": True},
             {"id": "second", "config": copy.deepcopy(entries["openai/gpt-oss-120b"]), "quantization": None,
              "dtype": "float32", "vllm_config": True}]
    first, second = run_runner("quant_verify_runner.py", python, python_env, cases)
    assert first["stage"] == "ok", first
    assert (second["exc_type"], second["message"]) == (
        "ValueError", "torch.float32 is not supported for quantization method mxfp4. Supported dtypes: "
                      "[torch.bfloat16]"), second


@pytest.mark.parametrize("version", VERSIONS)
def test_quant_checks_agree_with_real_vllm(version):
    report, dtype_report = run_both(version, int(os.environ.get("KVG_QVERIFY_CASES", "16")),
                                    int(os.environ.get("KVG_QVERIFY_DTYPE_CASES", "12")),
                                    int(os.environ.get("KVG_DIFF_SEED", "7")),
                                    int(os.environ.get("KVG_QVERIFY_DSV4_CASES", "12")),
                                    int(os.environ.get("KVG_QVERIFY_CACHE_CASES", "8")))
    out = os.environ.get("KVG_DIFF_REPORT_DIR")
    if out:
        os.makedirs(out, exist_ok=True)
        for name, rep in ((f"qverify-{version}.json", report), (f"qverify-dtype-{version}.json", dtype_report)):
            with open(os.path.join(out, name), "w") as fh:
                json.dump(rep, fh, indent=1)
    reports = [report, dtype_report]
    if "dsv4" in dtype_report:
        reports += [dtype_report["dsv4"]["model_config"], dtype_report["dsv4"]["vllm_config"]]
    if "cache_dtype" in dtype_report:
        reports.append(dtype_report["cache_dtype"])
    for rep in reports:
        assert not rep["disagree"], json.dumps(rep["disagree"][:5], indent=1)
    assert report["agree"] > 0 and dtype_report["agree"] > 0


if __name__ == "__main__":
    part = os.environ.get("KVG_QVERIFY_PART", "both")
    for v in sys.argv[1:] or VERSIONS:
        if part == "modelopt":
            m, md = run_modelopt(v)
            print(v, "modelopt model_config: agree", m["agree"], "undecided", m["undecided"], "disagree",
                  len(m["disagree"]))
            for case in m["disagree"][:8]:
                print("  ", json.dumps(case)[:600])
            print(v, "modelopt vllm_config: agree", md["agree"], "undecided", md["undecided"], "oracle_other",
                  md["oracle_other"], "disagree", len(md["disagree"]))
            for case in md["disagree"][:8]:
                print("  ", json.dumps(case)[:700])
            continue
        if part == "cache_dtype":
            _, d = run_both(v, 0, 0, int(os.environ.get("KVG_DIFF_SEED", "7")), 0,
                            int(os.environ.get("KVG_QVERIFY_CACHE_CASES", "60")))
            c = d["cache_dtype"]
            print(v, "cache_dtype: agree", c["agree"], "refused", c["refused"], "disagree", len(c["disagree"]))
            for case in c["disagree"][:8]:
                print("  ", json.dumps(case)[:400])
            continue
        if part == "text_config":
            t, td = run_text_config(v)
            print(v, "text_config model_config: agree", t["agree"], "undecided", t["undecided"], "disagree",
                  len(t["disagree"]))
            for case in t["disagree"][:8]:
                print("  ", json.dumps(case)[:700])
            print(v, "text_config vllm_config: agree", td["agree"], "undecided", td["undecided"], "oracle_other",
                  td["oracle_other"], "disagree", len(td["disagree"]))
            for case in td["disagree"][:8]:
                print("  ", json.dumps(case)[:700])
            continue
        if part == "gpt_oss":
            g = run_gpt_oss(v)
            print(v, "gpt-oss: agree", g["agree"], "undecided", g["undecided"], "oracle_other", g["oracle_other"],
                  "disagree", len(g["disagree"]))
            for case in g["disagree"][:6]:
                print("  ", json.dumps(case)[:700])
            continue
        r, d = run_both(v, int(os.environ.get("KVG_QVERIFY_CASES", "80")) if part not in ("act_dtype", "dsv4") else 0,
                        int(os.environ.get("KVG_QVERIFY_DTYPE_CASES", "40")) if part not in ("model_config", "dsv4")
                        else 0,
                        int(os.environ.get("KVG_DIFF_SEED", "7")),
                        int(os.environ.get("KVG_QVERIFY_DSV4_CASES", "40")) if part in ("both", "dsv4") else 0)
        if "dsv4" in d:
            for kind in ("model_config", "vllm_config"):
                rep = d["dsv4"][kind]
                print(v, f"dsv4 {kind}: agree", rep["agree"], "undecided", rep["undecided"], "oracle_other",
                      rep.get("oracle_other", 0), "disagree", len(rep["disagree"]))
                for case in rep["disagree"][:6]:
                    print("  ", json.dumps(case)[:700])
        if part == "dsv4":
            continue
        if part != "act_dtype":
            print(v, "model_config: agree", r["agree"], "undecided", r["undecided"], "disagree", len(r["disagree"]))
            for case in r["disagree"][:6]:
                print("  ", json.dumps(case)[:600])
        if part != "model_config":
            print(v, "act_dtype: agree", d["agree"], "undecided", d["undecided"], "oracle_other", d["oracle_other"],
                  "disagree", len(d["disagree"]))
            for case in d["disagree"][:6]:
                print("  ", json.dumps(case)[:700])
