"""Markdown (``*.md``, ``*.markdown``): fenced code blocks only, each read as the kind its language
names (shell, Dockerfile, YAML).  A ``docker`` block is a Dockerfile when it holds Dockerfile instructions, else
the ``docker run`` commands a reader types (shell).  The shell blocks are typed into one shell: what one sets and the
functions it defines are there for the blocks after it (a content tab's, for the blocks of that tab only).  A
``python`` block is read as a Python script is (:mod:`~kvguard.scan.python`: the ``vllm serve`` it starts through
``subprocess`` / ``os``), each block on its own; one that does not parse starts nothing kvguard reads.  A block
inside a block quote (``> ```bash``, GitHub's ``> [!NOTE]`` alerts) is read without the quote's ``>`` markers; the
quote ends the block where a line leaves it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .dockerfile import dockerfile_launches
from .python import PythonUnreadable, python_launches
from .result import Launch
from .shell import ShellSession, has_prompts, shell_launches
from .shellblocks import Block
from .variables import Variables

__all__ = ["markdown_launches"]

_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "text", "shell-session", "shellsession", "terminal"}

#: a line that starts a Dockerfile instruction (a ``docker`` block without one holds commands to type)
_INSTRUCTION = re.compile(r"^\s*(?:FROM|ARG|RUN|CMD|ENTRYPOINT|ENV|COPY|ADD|WORKDIR|EXPOSE|LABEL|USER|VOLUME|SHELL|"
                          r"ONBUILD|STOPSIGNAL|HEALTHCHECK|MAINTAINER)\s", re.IGNORECASE)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*\{?\.?([\w+.-]*)")
_PYTHON_LANGS = {"python", "py", "python3"}
#: one level of a block quote's marker (CommonMark: up to three spaces, `>`, an optional space)
_QUOTE_MARKER = re.compile(r"^ {0,3}> ?")

#: a content tab (MkDocs Material / pymdownx.tabbed ``=== "H100"``, Docusaurus ``<TabItem``): its blocks
#: are an alternative to the other tabs' of its group, not a step after them
_TAB = re.compile(r'^(\s*)(?:===[!+]?\s+"|<TabItem\b)')
_TABS_END = re.compile(r"^\s*</Tabs>")


class _Saved(NamedTuple):
    """What a guide's shell holds at one point: its variables and its functions."""

    variables: Variables
    functions: dict[str, Block]


def _copy(variables: Variables, session: ShellSession) -> _Saved:
    return _Saved(Variables(variables.overrides, variables), dict(session.functions))


def _restore(variables: Variables, session: ShellSession, saved: _Saved) -> None:
    """``variables`` and ``session``'s functions back to what ``saved`` holds (the objects are shared with the
    blocks' readers)."""
    variables.local = dict(saved.variables.local)
    variables.exported = set(saved.variables.exported)
    variables.unknown = set(saved.variables.unknown)
    variables.arrays = {k: list(v) for k, v in saved.variables.arrays.items()}
    variables.pin = saved.variables.pin
    session.functions.clear()
    session.functions.update(saved.functions)


def _glued_fence(text: str, fence: str) -> "str | None":
    """The line without a closing fence glued to its end after other text, or None when it has none."""
    stripped = text.rstrip()
    run = len(stripped) - len(stripped.rstrip(fence[0]))
    if run < len(fence) or not stripped[:-run].strip():
        return None
    return stripped[:-run].rstrip()


def _unquoted(text: str, depth: "int | None") -> "tuple[int, str]":
    """How many block-quote markers start ``text`` (at most ``depth`` when given), and the text after them."""
    count = 0
    while depth is None or count < depth:
        m = _QUOTE_MARKER.match(text)
        if not m:
            break
        text, count = text[m.end():], count + 1
    return count, text


def _python_block_launches(path: str, body: "list[tuple[int, str]]", variables: Variables) -> list[Launch]:
    """The launches of a ``python`` block, read as a script on its own (its lines numbered as the guide's)."""
    first = body[0][0]
    try:
        found = python_launches(path, "\n".join(text for _number, text in body),
                                Variables(variables.overrides, variables), kind="markdown")
    except PythonUnreadable:
        return []       # a fragment (`...`, a REPL session): what it starts is not read
    for launch in found:
        launch.line += first - 1
    return found


def markdown_launches(path: str, lines: list[tuple[int, str]], variables: Variables) -> list[Launch]:
    from .yamlfiles import yaml_text_launches  # YAML strings hold Markdown guides too: loaded on first use

    out: list[Launch] = []
    # the shell a reader types the blocks into: a function one block defines is there for the blocks after it
    session = ShellSession()
    i = 0
    # the open tab group: its indent, the state before it, whether `</Tabs>` closes it (Docusaurus) or the next
    # line as little indented as its tabs that is not one (MkDocs)
    tabs: "tuple[int, _Saved, bool] | None" = None
    while i < len(lines):
        text = lines[i][1]
        tab = _TAB.match(text)
        if tab:
            if tabs is None or len(tab.group(1)) < tabs[0]:
                tabs = (len(tab.group(1)), _copy(variables, session), "<TabItem" in text)
            elif len(tab.group(1)) == tabs[0]:
                _restore(variables, session, tabs[1])   # the next tab starts from where the group started
        elif tabs is not None and text.strip() and (
                _TABS_END.match(text) if tabs[2] else len(text) - len(text.lstrip()) <= tabs[0]):
            _restore(variables, session, tabs[1])       # after the group: none of its alternatives carries on
            tabs = None
        depth, text = _unquoted(text, None)
        m = _FENCE.match(text)
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        body: list[tuple[int, str]] = []
        i += 1
        while i < len(lines):
            inside, text = _unquoted(lines[i][1], depth)
            if inside < depth:
                i -= 1          # the quote ends the block; the line after it is read again
                break
            stripped = text.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            glued = _glued_fence(text, fence)
            if glued is not None:
                # "vllm serve X  ```": a closing fence typed at the end of the command's line. CommonMark keeps
                # the block open, but what a reader runs is the command without the fence
                cut = len(glued) - len(glued.lstrip(" "))
                body.append((lines[i][0], glued[min(cut, indent):]))
                break
            cut = len(text) - len(text.lstrip(" "))
            body.append((lines[i][0], text[min(cut, indent):]))
            i += 1
        i += 1
        block_vars = variables     # assignments carry over to later blocks, as a reader runs them
        if lang in _SHELL_LANGS or lang == "docker" and not any(_INSTRUCTION.match(text) for _number, text in body):
            out += shell_launches(path, body, block_vars, "markdown", prompts=has_prompts(body), session=session)
        elif lang in ("dockerfile", "docker", "containerfile"):
            out += dockerfile_launches(path, body, block_vars, kind="markdown")
        elif lang in ("yaml", "yml"):
            out += yaml_text_launches(path, body, block_vars, kind="markdown")
        elif lang in _PYTHON_LANGS and body:
            out += _python_block_launches(path, body, block_vars)
        # a guide's CUDA_VISIBLE_DEVICES pins the GPUs of one process (one rank of a data-parallel example):
        # it does not carry over to the guide's later, often alternative, launches
        variables.unset("CUDA_VISIBLE_DEVICES")
    uncalled = session.end(path, variables, "markdown")
    return sorted(out + uncalled, key=lambda launch: launch.line) if uncalled else out
