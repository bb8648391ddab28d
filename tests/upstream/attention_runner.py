"""The attention backends' context-parallel capabilities in a real release; runs INSIDE an oracle venv.

usage: python attention_runner.py CASES.json OUT.json   (CASES: {"cases": [{"id": backend name}]})

Per backend: the release's backend class (``AttentionBackendEnum[name].get_class()`` / the registry's class
path, else the module by its conventional path), its implementation class name, and the implementation's
``can_return_lse_for_decode`` and ``supports_pcp`` — read from the class itself, or, when the module cannot
be imported on this CPU host (GPU kernels), from the class bodies of the release's own source with ``ast``
(the attributes are class-level constants).  Also the worker check's messages as the release's source
writes them (``gpu_model_runner.py`` / ``cp_utils.py``, and the V2 model runner's ``pcp_manager.py``).  Must not import kvguard.
"""

import ast
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

MODULES = {"FLASH_ATTN": "flash_attn", "FLASHINFER": "flashinfer", "TRITON_ATTN": "triton_attn",
           "FLEX_ATTENTION": "flex_attention"}


def _vllm_root():
    import importlib.util

    return os.path.dirname(importlib.util.find_spec("vllm").origin)


def _class_attrs(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            out = {"bases": [ast.unparse(b) for b in node.bases]}
            for stmt in node.body:
                target = value = None
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    target, value = stmt.target.id, stmt.value
                elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    target, value = stmt.targets[0].id, stmt.value
                if target and isinstance(value, ast.Constant):
                    out[target] = value.value
            return out
    return None


def from_source(name):
    root = _vllm_root()
    path = os.path.join(root, "v1", "attention", "backends", MODULES[name] + ".py")
    tree = ast.parse(open(path).read())
    impl = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "get_impl_cls":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Name):
                    impl = sub.value.id
    attrs = _class_attrs(tree, impl) if impl else None
    return {"impl": impl, "can_return_lse_for_decode": (attrs or {}).get("can_return_lse_for_decode", False),
            "supports_pcp": (attrs or {}).get("supports_pcp", False), "how": "source"}


def messages():
    root = _vllm_root()
    out = []
    for rel in ("v1/worker/gpu_model_runner.py", "v1/worker/cp_utils.py"):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            tree = ast.parse(open(path).read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Assert) and node.msg is not None:
                    text = ast.unparse(node.msg)
                    if "DCP" in text or "PCP" in text:
                        out.append(text)
    # the V2 model runner's PCP checks (0.26.0+): the messages of its NotImplementedErrors; the MLA layer's
    # DSpark-with-DCP check (0.29.0+, W_dspark_dcp)
    for rel, keep in (("v1/worker/gpu/pcp_manager.py", None),
                      ("model_executor/layers/attention/mla_attention.py", "DSpark")):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            for node in ast.walk(ast.parse(open(path).read())):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                    text = ast.unparse(node.exc.args[0])
                    if keep is None or keep in text:
                        out.append(text)
    return out


def main(cases_path, out_path):
    spec = json.load(open(cases_path))
    out = {"backends": {}, "messages": messages()}
    for case in spec["cases"]:
        name = case["id"]
        try:
            import importlib

            mod = importlib.import_module(f"vllm.v1.attention.backends.{MODULES[name]}")
            backend = next(v for k, v in vars(mod).items() if isinstance(v, type) and hasattr(v, "get_impl_cls")
                           and getattr(v, "get_name", None) and v.__module__ == mod.__name__
                           and not k.startswith("_") and "Backend" in k)
            impl = backend.get_impl_cls()
            out["backends"][name] = {"impl": impl.__name__,
                                     "can_return_lse_for_decode": bool(getattr(impl, "can_return_lse_for_decode",
                                                                               False)),
                                     "supports_pcp": bool(getattr(impl, "supports_pcp", False)), "how": "import"}
        except Exception:  # noqa: BLE001 - GPU-only module on a CPU host: read the class body
            out["backends"][name] = from_source(name)
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
