#!/usr/bin/env python3
"""Compare kvguard/data/archs.json with the real vLLM model registry.

Run it with the python of an oracle venv (a CPU-only venv where the release's
vLLM is installed: tools/oracle_env.py builds them), e.g.::

    HF_HUB_OFFLINE=1 ORACLE_ROOT/0.28.0/bin/python tools/check_registry_oracle.py \
        [--archs kvguard/data/archs.json] [--out /tmp/report-0.28.0.json] [--no-e2e]

The release is the installed vLLM's version. Two tiers:

1. Registry tier, per architecture: the real ``ModelRegistry`` (its set of
   architectures and each entry's module/class) against archs.json, then the
   model class is imported in this process and ``_ModelInfo.from_model_cls(cls)``
   gives the real flags, compared flag by flag with archs.json. Modules that do
   not import on this CPU-only venv are counted, with the error.
2. End-to-end tier: for a handful of architectures, a ``config.json`` in a temp
   dir, ``ModelConfig(model=d, tokenizer=d, skip_tokenizer_init=True)``, then
   ``mc.verify_with_parallel_config(ParallelConfig(pipeline_parallel_size=2))``:
   a ``NotImplementedError("Pipeline parallelism is not supported ...")`` must
   happen exactly when archs.json says the architecture lacks ``supports_pp``.

Exit status 0 when every obtainable answer agrees, 1 otherwise.
"""
from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
import tempfile
import traceback
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ARCHS = os.path.join(HERE, "..", "kvguard", "data", "archs.json")

# Small configs for the end-to-end tier: (architecture, config.json)
_LLAMA = {"hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 8,
          "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 1000,
          "max_position_embeddings": 2048}
E2E_CASES = [
    ("LlamaForCausalLM", {"model_type": "llama", **_LLAMA}),
    ("Qwen2ForCausalLM", {"model_type": "qwen2", **_LLAMA}),
    ("MistralForCausalLM", {"model_type": "mistral", **_LLAMA}),
    ("MambaForCausalLM", {"model_type": "mamba", "hidden_size": 256, "num_hidden_layers": 4,
                          "vocab_size": 1000, "state_size": 16, "expand": 2, "conv_kernel": 4}),
    ("Mamba2ForCausalLM", {"model_type": "mamba2", "hidden_size": 256, "num_hidden_layers": 4,
                           "vocab_size": 1000, "state_size": 16, "expand": 2, "conv_kernel": 4,
                           "num_heads": 8, "head_dim": 64, "n_groups": 1}),
    ("BertModel", {"model_type": "bert", "hidden_size": 256, "num_attention_heads": 8,
                   "num_hidden_layers": 4, "intermediate_size": 512, "vocab_size": 1000}),
    ("WhisperForConditionalGeneration", {"model_type": "whisper", "d_model": 256,
                                         "encoder_attention_heads": 8, "decoder_attention_heads": 8,
                                         "encoder_layers": 2, "decoder_layers": 2, "vocab_size": 1000}),
    ("Gemma3nForCausalLM", {"model_type": "gemma3n_text", **_LLAMA, "head_dim": 32}),
    ("JambaForCausalLM", {"model_type": "jamba", **_LLAMA}),
    # an architecture vLLM does not register: resolved through the suffix table
    # (``_normalize_arch``) or the Transformers backend
    ("LlamaForTokenClassification", {"model_type": "llama", **_LLAMA}),
]


# optional packages that model modules import and the oracle venvs lack
STUB_TOPLEVEL = ("torchvision", "mistral_common", "loguru", "timm", "torchaudio", "tiktoken",
                 "terratorch", "numba", "llguidance", "xgrammar", "setproctitle")


def install_stubs(names=STUB_TOPLEVEL):
    """Make missing optional packages importable as permissive dummies, so that
    model modules whose only problem on this CPU venv is such an import can be
    inspected. Results obtained this way are reported separately."""
    import importlib.abc
    import importlib.machinery
    import types

    class _Meta(type):
        def __getattr__(cls, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _mk(name)

        def __getitem__(cls, k):
            return cls

        def __or__(cls, o):
            return cls

        def __ror__(cls, o):
            return cls

        def __iter__(cls):
            return iter(())

    def _mk(name):
        return _Meta(str(name), (), {
            "__init__": lambda self, *a, **k: None,
            "__call__": lambda self, *a, **k: self,
            "__getattr__": lambda self, n: _mk(n)(),
        })

    class _StubModule(types.ModuleType):
        __path__ = []

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _mk(name)

    class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path, target=None):
            top = fullname.split(".")[0]
            if top in names or (names is STUB_TOPLEVEL and fullname.startswith("transformers.models.")):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            m = _StubModule(spec.name)
            m.__spec__ = spec
            return m

        def exec_module(self, module):
            pass

    sys.meta_path.append(_Finder())  # last: real packages win


def static_normalize(data, version, arch, static):
    """kvguard's reading of _ModelRegistry._normalize_arch with the default
    runner/convert of the architecture's suffix."""
    if arch in static:
        return arch
    rels = data["releases"]
    i = rels.index(version)
    table = next(s["table"] for s in data["suffixes"] if rels.index(s["since"]) <= i <= rels.index(s["until"]))
    for suffix, _runner, _convert in table:
        if arch.endswith(suffix):
            for repl, _r, _c in table:
                base = arch.replace(suffix, repl)
                if base in static:
                    return base
            return None
    return None


def release_answers(archs_json, version):
    data = json.load(open(archs_json))
    rels = data["releases"]
    if version not in rels:
        raise SystemExit(f"{version} not in archs.json releases")
    i = rels.index(version)

    def on(rngs):
        return any(rels.index(a) <= i <= rels.index(b) for a, b in rngs)

    out = {}
    for arch, rec in data["archs"].items():
        if not on(rec["registered"]):
            continue
        flags = {fl: on(rec[fl]) for fl in data["flags"]}
        impl = next(v for a, b, v in rec["impl"] if rels.index(a) <= i <= rels.index(b))
        unres = {}
        for fl, items in data["unresolved"].get(arch, {}).items():
            for a, b, reason in items:
                if rels.index(a) <= i <= rels.index(b):
                    unres[fl] = reason
        out[arch] = {"flags": flags, "impl": impl, "unresolved": unres}
    return data, out


def registry_tier(static, report):
    from vllm.model_executor.models.registry import ModelRegistry, _ModelInfo

    real_archs = set(ModelRegistry.get_supported_archs())
    static_archs = set(static)
    report["registered"] = {
        "real": len(real_archs), "static": len(static_archs),
        "only_real": sorted(real_archs - static_archs),
        "only_static": sorted(static_archs - real_archs),
    }
    flags = None
    per_flag = {}
    failures = {}
    mismatches = []
    impl_mismatch = []
    ok_archs = 0
    real_flags = {}
    for arch in sorted(real_archs & static_archs):
        entry = ModelRegistry.models[arch]
        mod = getattr(entry, "module_name", None)
        cls_name = getattr(entry, "class_name", None)
        want_impl = static[arch]["impl"]
        got_impl = f"{mod.replace('vllm.model_executor.models.', '')}:{cls_name}" if mod else None
        if got_impl and got_impl != want_impl:
            impl_mismatch.append([arch, got_impl, want_impl])
        try:
            cls = entry.load_model_cls() if mod is None else getattr(importlib.import_module(mod), cls_name)
            info = _ModelInfo.from_model_cls(cls)
        except BaseException as exc:  # noqa: BLE001 - model code may raise anything on CPU
            failures[arch] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
            continue
        ok_archs += 1
        flags = flags or [f for f in static[arch]["flags"] if hasattr(info, f)]
        real_flags[arch] = {fl: bool(getattr(info, fl)) for fl in flags}
        for fl in flags:
            real = bool(getattr(info, fl))
            d = per_flag.setdefault(fl, {"agree": 0, "disagree": 0, "static_unresolved": 0})
            if fl in static[arch]["unresolved"]:
                d["static_unresolved"] += 1
                continue
            if real == static[arch]["flags"][fl]:
                d["agree"] += 1
            else:
                d["disagree"] += 1
                mismatches.append({"arch": arch, "flag": fl, "real": real, "static": static[arch]["flags"][fl]})
    report["registry_tier"] = {
        "compared_archs": ok_archs,
        "import_failures": len(failures),
        "per_flag": per_flag,
        "mismatches": mismatches,
        "impl_mismatches": impl_mismatch,
        "failures": failures,
        "real_flags": real_flags,
    }


def e2e_tier(data, version, static, report):
    from vllm.config import ModelConfig, ParallelConfig

    rows = []
    for arch, cfg in E2E_CASES:
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"architectures": [arch], **cfg}, f)
        row = {"arch": arch}
        try:
            mc = ModelConfig(model=d, tokenizer=d, skip_tokenizer_init=True)
        except BaseException as exc:  # noqa: BLE001
            row["model_config_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            rows.append(row)
            continue
        row["resolved_architecture"] = getattr(mc, "architecture", None)
        try:
            mc.verify_with_parallel_config(ParallelConfig(pipeline_parallel_size=2))
            row["real_pp_ok"] = True
        except NotImplementedError as exc:
            row["real_pp_ok"] = False if "Pipeline parallelism is not supported" in str(exc) else None
            row["real_error"] = str(exc)[:200]
        except BaseException as exc:  # noqa: BLE001
            row["real_pp_ok"] = None
            row["real_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        # static answer: the arch itself, or the architecture vLLM resolved it to
        key = static_normalize(data, version, arch, static)
        if key in static and "supports_pp" not in static[key]["unresolved"]:
            row["static_pp_ok"] = static[key]["flags"]["supports_pp"]
            row["static_key"] = key
        row["agree"] = row.get("real_pp_ok") is not None and row.get("real_pp_ok") == row.get("static_pp_ok")
        rows.append(row)
    report["e2e_tier"] = rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archs", default=DEFAULT_ARCHS)
    ap.add_argument("--out")
    ap.add_argument("--no-e2e", action="store_true")
    ap.add_argument("--version", help="release to compare with (default: the installed vLLM's); "
                    "use with PYTHONPATH=<extracted vllm tree of another release> to run that "
                    "release's sources on this venv's torch/transformers (a weaker, 'transplanted' oracle)")
    ap.add_argument("--stub-missing", action="store_true",
                    help="stub missing optional packages (torchvision, mistral_common, ...) so more "
                         "model modules import; reported as a separate, weaker tier")
    args = ap.parse_args()
    from importlib.metadata import version as dist_version

    ver = args.version or dist_version("vllm").split("+")[0]
    data, static = release_answers(args.archs, ver)
    report = {"vllm": ver, "python": sys.version.split()[0], "stubbed": args.stub_missing}
    if args.stub_missing:
        if args.version:
            # an older/newer release's sources may need packages this venv lacks just to import
            install_stubs(("setproctitle", "xgrammar", "llguidance", "numba"))
        # import vLLM (and transformers' optional-package probes) before the broad stubs
        import vllm.model_executor.models.registry  # noqa: F401
        install_stubs()
    if args.version:
        import vllm

        print(f"vllm imported from {os.path.dirname(vllm.__file__)}", file=sys.stderr)
    try:
        registry_tier(static, report)
    except BaseException:  # noqa: BLE001
        report["registry_tier_error"] = traceback.format_exc()
    if not args.no_e2e:
        try:
            e2e_tier(data, ver, static, report)
        except BaseException:  # noqa: BLE001
            report["e2e_tier_error"] = traceback.format_exc()
    if args.out:
        json.dump(report, open(args.out, "w"), indent=1)
    rt = report.get("registry_tier", {})
    reg = report.get("registered", {})
    stubbed = " (missing optional packages stubbed)" if args.stub_missing else ""
    print(f"vLLM {ver}{stubbed}: registered real={reg.get('real')} static={reg.get('static')} "
          f"only_real={reg.get('only_real')} only_static={reg.get('only_static')}")
    print(f"  classes imported and inspected: {rt.get('compared_archs')}, import failures: {rt.get('import_failures')}")
    for fl, d in sorted(rt.get("per_flag", {}).items()):
        print(f"  {fl:26s} agree={d['agree']:4d} disagree={d['disagree']:3d} "
              f"static-unresolved={d['static_unresolved']}")
    for m in rt.get("mismatches", []):
        print(f"  MISMATCH {m}")
    for m in rt.get("impl_mismatches", []):
        print(f"  IMPL MISMATCH {m}")
    for arch, err in sorted(rt.get("failures", {}).items()):
        print(f"  import failed: {arch}: {err}")
    for row in report.get("e2e_tier", []):
        print(f"  e2e {row}")
    for k in ("registry_tier_error", "e2e_tier_error"):
        if k in report:
            print(report[k])
    bad = (rt.get("mismatches") or rt.get("impl_mismatches") or reg.get("only_real") or reg.get("only_static")
           or any(not r.get("agree") and "model_config_error" not in r for r in report.get("e2e_tier", []))
           or "registry_tier_error" in report)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
