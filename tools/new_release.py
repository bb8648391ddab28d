"""Review a new vLLM release against the newest one kvguard knows: what changed in the checked code?

usage:
  python tools/new_release.py 0.34.0                 # compare with the newest known release
  python tools/new_release.py 0.34.0 --base 0.33.0   # or any other
  python tools/new_release.py --extract 0.33.0       # print one release's extraction (JSON)

For each release it fetches the wheel (``pip download --no-deps``; cached in
``~/.cache/kvguard-wheels``), reads only the files kvguard mirrors, and extracts
with ``ast`` (nothing is imported):

* every ``raise``/``assert`` in the functions behind the launch checks
  (EngineArgs.create_engine_config & _check_feature_supported,
  ParallelConfig.__post_init__ / _validate_parallel_config / _verify_args and its
  field declarations, ModelConfig.verify_with_parallel_config /
  _verify_with_expert_parallelism, VllmConfig.__post_init__ and its
  _validate_* helpers): exception type, message template (f-string
  placeholders as ``{expr}``) and the enclosing conditions;
* the option strings of the launch flags kvguard parses;
* the MLA model-type list, the KV-head attribute list and the
  MODEL_ARCH_CONFIG_CONVERTORS keys;
* the transformers requirement (which transformers line the release runs with).

It prints what differs from the base release — new, removed and changed
messages, conditions, flags and lists — which is the to-do list for the table
edit (kvguard/rules/table.py, kvguard/facts/vllm.py, kvguard/launch/argv.py) and the
golden cases.  Then: tools/extract_registry.py for the model registry,
tools/oracle_env.py + tests/upstream for the differential run.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("KVG_WHEEL_CACHE", Path.home() / ".cache" / "kvguard-wheels"))

#: file -> {class or "": [functions]} whose raise/assert statements are launch checks
TARGETS = {
    "vllm/engine/arg_utils.py": {"EngineArgs": ["create_engine_config", "_check_feature_supported",
                                                "_is_v1_supported_oracle", "add_cli_args"]},
    "vllm/config/parallel.py": {"ParallelConfig": ["__post_init__", "_validate_parallel_config", "_verify_args"]},
    "vllm/config/model.py": {"ModelConfig": ["verify_with_parallel_config", "_verify_with_expert_parallelism"]},
    "vllm/config/vllm.py": {"VllmConfig": ["__post_init__", "_validate_v2_model_runner", "_validate_v1_model_runner",
                                           "_verify_aux_output_compatibility", "use_v2_model_runner",
                                           "_get_v2_model_runner_unsupported_features",
                                           "_get_v1_model_runner_unsupported_features"]},
    "vllm/transformers_utils/model_arch_config_convertor.py": {"ModelArchConfigConvertorBase": [
        "get_total_num_kv_heads", "is_deepseek_mla", "get_head_size", "get_num_hidden_layers"]},
}

FLAG_PREFIXES = ("--tensor-parallel", "--pipeline-parallel", "--data-parallel", "--decode-context",
                 "--prefill-context", "--dcp-", "--cp-", "--enable-expert-parallel", "--nnodes", "--node-rank",
                 "--distributed-executor", "--enable-eplb", "--enable-elastic-ep", "--async-scheduling",
                 "--enable-fault-tolerance", "--enable-return-routed-experts", "-tp", "-pp", "-dp", "-dcp", "-pcp",
                 "-ep", "-n", "-r")


def fetch(version: str) -> Path:
    """The wheel of ``version`` (downloaded once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    found = sorted(CACHE.glob(f"vllm-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "-q", "-d", str(CACHE), f"vllm=={version}"], check=True)
        found = sorted(CACHE.glob(f"vllm-{version}-*.whl"))
    if not found:
        raise SystemExit(f"no wheel for vllm {version}")
    return found[0]


def _template(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(part, ast.FormattedValue):
                text = ast.unparse(part.value)
                if part.conversion != -1:
                    text += "!" + chr(part.conversion)
                if part.format_spec is not None:
                    text += ":" + (_template(part.format_spec) or "")
                out.append("{" + text + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        if left is not None and right is not None:
            return left + right
    return "<" + ast.unparse(node) + ">"


def _exc(node: ast.Raise) -> tuple[str, str | None]:
    exc = node.exc
    if isinstance(exc, ast.Call):
        name = ast.unparse(exc.func)
        return name, _template(exc.args[0]) if exc.args else None
    return ast.unparse(exc) if exc is not None else "re-raise", None


class _Walker(ast.NodeVisitor):
    def __init__(self):
        self.conds: list[str] = []
        self.found: list[dict] = []

    def visit_If(self, node: ast.If):
        self.conds.append(ast.unparse(node.test))
        for stmt in node.body:
            self.visit(stmt)
        self.conds[-1] = f"not ({self.conds[-1]})"
        for stmt in node.orelse:
            self.visit(stmt)
        self.conds.pop()

    def visit_Raise(self, node: ast.Raise):
        exc, msg = _exc(node)
        self.found.append({"kind": "raise", "exc": exc, "message": msg, "when": " and ".join(self.conds)})

    def visit_Assert(self, node: ast.Assert):
        self.found.append({"kind": "assert", "exc": "AssertionError", "message": _template(node.msg),
                           "when": " and ".join(self.conds + [f"not ({ast.unparse(node.test)})"])})


def extract(version: str) -> dict:
    wheel = fetch(version)
    out: dict = {"version": version, "checks": {}, "flags": [], "lists": {}, "requires": []}
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        if meta:
            out["requires"] = [line.split(":", 1)[1].strip() for line in zf.read(meta).decode().splitlines()
                               if line.startswith("Requires-Dist:") and "transformers" in line]
        for path, classes in TARGETS.items():
            if path not in names:
                if path.endswith("model.py") and "vllm/config/__init__.py" in names:
                    path = "vllm/config/__init__.py"
                else:
                    continue
            tree = ast.parse(zf.read(path).decode())
            for cls in ast.walk(tree):
                if not isinstance(cls, ast.ClassDef) or cls.name not in classes:
                    continue
                for fn in cls.body:
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name in classes[cls.name]:
                        walker = _Walker()
                        for stmt in fn.body:
                            walker.visit(stmt)
                        out["checks"][f"{cls.name}.{fn.name}"] = walker.found
                        if fn.name == "add_cli_args":
                            for call in ast.walk(fn):
                                if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "add_argument":
                                    opts = [a.value for a in call.args if isinstance(a, ast.Constant)
                                            and isinstance(a.value, str) and a.value.startswith("-")]
                                    if any(o.startswith(FLAG_PREFIXES) for o in opts):
                                        out["flags"].append(opts)
                        if fn.name == "is_deepseek_mla":
                            tuples = [n for n in ast.walk(fn) if isinstance(n, ast.Tuple)
                                      and all(isinstance(e, ast.Constant) for e in n.elts)]
                            out["lists"]["mla_model_types"] = [[e.value for e in t.elts] for t in tuples]
                        if fn.name == "get_total_num_kv_heads":
                            lists = [n for n in ast.walk(fn) if isinstance(n, ast.List)]
                            out["lists"]["kv_head_attributes"] = [[ast.unparse(e) for e in n.elts] for n in lists]
                if isinstance(cls, ast.ClassDef) and cls.name == "ParallelConfig":
                    fields = [f"{ast.unparse(s.target)}: {ast.unparse(s.annotation)} = "
                              f"{ast.unparse(s.value) if s.value else ''}"
                              for s in cls.body if isinstance(s, ast.AnnAssign)]
                    out["lists"]["parallel_config_fields"] = fields
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "MODEL_ARCH_CONFIG_CONVERTORS"
                                                        for t in node.targets) and isinstance(node.value, ast.Dict):
                    out["lists"]["convertors"] = sorted(f"{ast.unparse(k)}: {ast.unparse(v)}"
                                                        for k, v in zip(node.value.keys, node.value.values))
    return out


def _key(check: dict) -> str:
    return f"{check['exc']}: {check['message']}"


def diff(base: dict, new: dict) -> list[str]:
    lines: list[str] = []
    for fn in sorted(set(base["checks"]) | set(new["checks"])):
        old = {_key(c): c for c in base["checks"].get(fn, [])}
        cur = {_key(c): c for c in new["checks"].get(fn, [])}
        for key in cur.keys() - old.keys():
            lines.append(f"+ {fn}: {key}\n    when {cur[key]['when']}")
        for key in old.keys() - cur.keys():
            lines.append(f"- {fn}: {key}")
        for key in cur.keys() & old.keys():
            if cur[key]["when"] != old[key]["when"]:
                lines.append(f"~ {fn}: {key}\n    was  {old[key]['when']}\n    now  {cur[key]['when']}")
        if [_key(c) for c in base["checks"].get(fn, []) if _key(c) in cur] != \
                [_key(c) for c in new["checks"].get(fn, []) if _key(c) in old]:
            lines.append(f"~ {fn}: the order of its checks changed")
    old_flags, new_flags = {tuple(f) for f in base["flags"]}, {tuple(f) for f in new["flags"]}
    lines += [f"+ flag {' '.join(f)}" for f in sorted(new_flags - old_flags)]
    lines += [f"- flag {' '.join(f)}" for f in sorted(old_flags - new_flags)]
    for name in sorted(set(base["lists"]) | set(new["lists"])):
        old, cur = base["lists"].get(name) or [], new["lists"].get(name) or []
        if old == cur:
            continue
        flat_old = [json.dumps(x) for x in old]
        flat_new = [json.dumps(x) for x in cur]
        added = [x for x in flat_new if x not in flat_old]
        removed = [x for x in flat_old if x not in flat_new]
        lines.append(f"~ {name}: " + "; ".join([*(f"+ {x}" for x in added), *(f"- {x}" for x in removed)]
                                             or ["same items, new order"]))
    if base["requires"] != new["requires"]:
        lines.append(f"~ transformers requirement: {base['requires']} -> {new['requires']}")
    return lines


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    from kvguard.versions import KNOWN_RELEASES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("version", nargs="?")
    ap.add_argument("--base", default=KNOWN_RELEASES[-1],
                    help=f"the release to compare with (default: the newest of the manifest, {KNOWN_RELEASES[-1]})")
    ap.add_argument("--extract", metavar="VERSION", help="print one release's extraction as JSON")
    args = ap.parse_args(argv)
    if args.extract:
        print(json.dumps(extract(args.extract), indent=1))
        return 0
    if not args.version:
        ap.error("give a version")
    lines = diff(extract(args.base), extract(args.version))
    print(f"vLLM {args.version} against {args.base}: {len(lines)} difference(s) in the checked code")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
