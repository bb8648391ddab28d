"""Generated documentation stays current."""

from pathlib import Path

from kvguard.rules.reference import render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_rules_reference_is_current():
    on_disk = (ROOT / "docs" / "rules.md").read_text()
    assert on_disk == render_markdown(), "docs/rules.md is stale: run python tools/gen_rules_doc.py"


# --------------------------------------------------------------------------- README's PR 55030 table

#: the README table's column titles -> release keys, and its model names -> catalog ids
_COLUMNS = {"vLLM 0.20.0": "0.20.0", "vLLM 0.28.0": "0.28.0", "0.28.0 + PR 55030": "0.28.0+pr55030",
            "0.33.0 + PR 55030": "0.33.0+pr55030"}
_MODELS = {"Qwen3-32B": "Qwen/Qwen3-32B", "DeepSeek-R1": "deepseek-ai/DeepSeek-R1"}


def _readme_pr_table() -> tuple[list[str], list[list[str]]]:
    lines = (ROOT / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| launch | vLLM 0.20.0 |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return [c.strip() for c in lines[start].strip("|").split("|")], rows


def _cell_claim(cell: str, left: "tuple | None") -> tuple:
    """What a README cell says: ("accepted",) or ("refused", exception type); "same" repeats the left cell."""
    import re

    if cell == "same":
        assert left is not None
        return left
    raised = re.findall(r"`(\w+Error)\b", cell)
    if raised:
        return ("refused", raised[-1])   # the last one named is the one that surfaces
    assert "accepted" in cell, cell
    return ("accepted",)


def test_readme_pr55030_table_is_what_check_prints(capsys):
    """Every cell of the README's first table, PR 55030 columns included, is what `kvguard check`
    prints for that launch and release on a stated 8-GPU CUDA node with Triton."""
    import json
    import re

    from kvguard.cli import run

    header, rows = _readme_pr_table()
    assert header[1:] == list(_COLUMNS)
    assert len(rows) == 6
    for row in rows:
        launch = re.fullmatch(r"(\S+) `([^`]+)`", row[0])
        assert launch, row[0]
        model, flags = _MODELS[launch.group(1)], launch.group(2).split()
        left = None
        for title, cell in zip(header[1:], row[1:]):
            claim = left = _cell_claim(cell, left)
            status = run(["check", "--vllm-version", _COLUMNS[title], "--format", "json",
                          "--platform", "cuda", "--gpus-per-node", "8", "--host", "triton=1", "--host", "ray=0",
                          "--", "vllm", "serve", model, *flags])
            out = json.loads(capsys.readouterr().out)
            got = ("accepted",) if out["ok"] else ("refused", out["exc_type"])
            assert got == claim, (row[0], title, out.get("message"))
            assert status == (0 if out["ok"] else 1)
    # the headline cell names the refusal 0.28.0's model runner makes, whatever the PR changes
    headline = next(r for r in rows if r[0] == "Qwen3-32B `-tp 4 -pcp 2 -dcp 2`")
    assert "Model Runner V2 does not yet support: prefill context parallelism" in headline[3]


def _doc_and_code_files():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "kvguard").rglob("*.py")),
                 *sorted((ROOT / "kvguard").rglob("*.md")),
                 *(p for p in sorted((ROOT / ".ci").iterdir()) if p.is_file())]:
        yield path
    for folder in ("tools", "tests", "benchmarks"):  # the code; tests/data holds fixtures, not comments
        for path in sorted((ROOT / folder).rglob("*")):
            if (path.suffix in (".py", ".sh") and "data" not in path.relative_to(ROOT).parts
                    and path != Path(__file__).resolve()):  # this test names the patterns it looks for
                yield path


def test_docs_and_code_comments_name_no_path_outside_the_repository():
    """A clone has no ../shared or /work: the README, docs/ and the comments of kvguard/, tools/,
    tests/, benchmarks/ and .ci/ must not send a reader there."""
    import re

    outside = re.compile(r"\.\./shared|/work/|shared/upstream|shared/corpora")
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in _doc_and_code_files()
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if outside.search(line)]
    assert not found, "\n".join(found)


def test_readme_usage_lines_list_every_format():
    import argparse
    import re

    from kvguard.cli import _parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    from kvguard.report import COMMANDS

    for command in COMMANDS:
        formats = next(a.choices for a in sub.choices[command]._actions if a.dest == "format")
        usage = re.search(rf"^kvguard {command} .*?(?=^```)", readme, re.M | re.S).group(0)
        assert f"[--format {'|'.join(formats)}]" in usage, (command, usage)


def test_the_release_named_by_the_pre_commit_snippets_is_the_newest_in_the_changelog():
    """README's pre-commit `rev:` is the tag of the newest release the CHANGELOG records, and the
    package's version is that release or a later one (issue 10 item 17)."""
    import re

    from packaging.version import Version

    import kvguard

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[0] == "Unreleased"
    newest = headings[1]
    assert re.fullmatch(r"\d+\.\d+\.\d+", newest), headings
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert re.findall(r"^\s*rev: (\S+)", readme, re.M) == [f"v{newest}"]
    assert re.findall(r"^#\s*rev: (\S+)", hook, re.M) == [f"v{newest}"]
    assert Version(kvguard.__version__) >= Version(newest)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == kvguard.__version__


def _pr55030_doc():
    text = (ROOT / "docs" / "pr55030.md").read_text(encoding="utf-8")
    templates = {}
    for name in ("E1", "E2", "E3"):
        start = text.index(f'\n{name}: "') + len(name) + 4
        templates[name] = " ".join(text[start:text.index('"', start)].split())
    rows = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0][:1].isdigit():
            rows.append(([int(n) for n in cells[0].split(",")], cells[1], cells[2]))
    return templates, rows


def _llama(heads: int, kv_heads: int) -> dict:
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_attention_heads": heads,
            "num_key_value_heads": kv_heads, "hidden_size": 128 * heads, "num_hidden_layers": 4,
            "vocab_size": 32000, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


def test_the_pr55030_doc_table_and_messages_are_what_check_says():
    import kvguard

    # the table's rows are ParallelConfig + verify_with_parallel_config called directly (entry "config")
    templates, rows = _pr55030_doc()
    assert len(rows) >= 6
    for (tp, pcp, dcp, kv_heads, heads), released, patched in rows:
        config = _llama(heads, kv_heads)
        for versions, said in (("0.28.0", "0.33.0"), released), (("0.28.0+pr55030", "0.33.0+pr55030"), patched):
            for version in versions:
                got = kvguard.check(config, vllm_version=version, entry="config", tp=tp, pcp=pcp, dcp=dcp)
                where = (version, tp, pcp, dcp, kv_heads, heads, said, got.message)
                if said == "passes":
                    assert got.ok is True, where
                    continue
                assert got.ok is False, where
                if " maximum " in said:
                    assert f"maximum supported value ({said.rsplit(' ', 1)[1]})" in got.message, where
                if "release text" not in said:
                    values = {"tp": tp, "pcp": pcp, "dcp": dcp, "H": kv_heads, "num_q_per_kv": heads // kv_heads,
                              "max_dcp_size": got.message.split("maximum supported value (")[-1].split(")")[0]}
                    assert got.message == templates[said[:2]].format(**values), where
                else:
                    assert not any(got.message == t.format(tp=tp, pcp=pcp, dcp=dcp, H=kv_heads,
                                                           num_q_per_kv=heads // kv_heads, max_dcp_size=0)
                                   for t in templates.values()), where
