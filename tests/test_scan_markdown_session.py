"""A guide's shell blocks are typed into one shell: a function one block defines is called by a later block, as the
variables one sets are read by a later one; a content tab's functions, like its variables, stay in that tab."""

from __future__ import annotations

from kvguard.scan import find_launches

_FENCE = "`" * 3


def _block(text: str, indent: str = "") -> str:
    lines = [_FENCE + "bash", *text.splitlines(), _FENCE]
    return "".join(indent + line + "\n" for line in lines)


def _launches(tmp_path, guide: str) -> list[tuple[int, list[str], tuple[str, ...]]]:
    path = tmp_path / "README.md"
    path.write_text(guide)
    return [(launch.line, launch.tokens[2:], launch.unresolved) for launch in find_launches([str(path)])[0]]


def test_a_function_a_block_defines_is_called_by_a_later_block(tmp_path):
    guide = ("# Serving\n\n" + _block('serve() {\n  vllm serve "$1" -tp $TP\n}\nTP=4') + "\nThen:\n\n"
             + _block("serve Qwen/Qwen3-8B"))
    assert _launches(tmp_path, guide) == [(5, ["Qwen/Qwen3-8B", "-tp", "4"], ())]


def test_a_function_no_block_calls_is_read_once_with_its_parameters_unresolved(tmp_path):
    guide = _block("serve() { vllm serve m --x $1; }") + "\n" + _block("echo ready")
    assert _launches(tmp_path, guide) == [(2, ["m", "--x", "$1"], ("$1",))]


def test_a_tab_s_functions_reach_neither_the_next_tab_nor_what_follows_the_group(tmp_path):
    guide = ('=== "H100"\n\n' + _block("start() { vllm serve h100 -tp 8; }\nstart", "    ")
             + '\n=== "A100"\n\n' + _block("start", "    ") + "\nAfter the tabs:\n\n" + _block("start"))
    assert _launches(tmp_path, guide) == [(4, ["h100", "-tp", "8"], ())]
