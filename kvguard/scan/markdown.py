"""Markdown (``*.md``, ``*.markdown``): fenced code blocks only, each read as the kind its language
names (shell, Dockerfile, YAML).  A ``docker`` block is a Dockerfile when it holds Dockerfile instructions, else
the ``docker run`` commands a reader types (shell).
"""

from __future__ import annotations

import re

from .dockerfile import dockerfile_launches
from .result import Launch
from .shell import has_prompts, shell_launches
from .variables import Variables

__all__ = ["markdown_launches"]

_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "text", "shell-session", "shellsession", "terminal"}

#: a line that starts a Dockerfile instruction (a ``docker`` block without one holds commands to type)
_INSTRUCTION = re.compile(r"^\s*(?:FROM|ARG|RUN|CMD|ENTRYPOINT|ENV|COPY|ADD|WORKDIR|EXPOSE|LABEL|USER|VOLUME|SHELL|"
                          r"ONBUILD|STOPSIGNAL|HEALTHCHECK|MAINTAINER)\s", re.IGNORECASE)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*\{?\.?([\w+.-]*)")

#: a content tab (MkDocs Material / pymdownx.tabbed ``=== "H100"``, Docusaurus ``<TabItem``): its blocks
#: are an alternative to the other tabs' of its group, not a step after them
_TAB = re.compile(r'^(\s*)(?:===[!+]?\s+"|<TabItem\b)')
_TABS_END = re.compile(r"^\s*</Tabs>")


def _copy(variables: Variables) -> Variables:
    return Variables(variables.overrides, variables)


def _restore(variables: Variables, saved: Variables) -> None:
    """``variables`` back to the state ``saved`` holds (the object is shared with the blocks' readers)."""
    variables.local = dict(saved.local)
    variables.exported = set(saved.exported)
    variables.unknown = set(saved.unknown)
    variables.arrays = {k: list(v) for k, v in saved.arrays.items()}
    variables.pin = saved.pin


def _glued_fence(text: str, fence: str) -> "str | None":
    """The line without a closing fence glued to its end after other text, or None when it has none."""
    stripped = text.rstrip()
    run = len(stripped) - len(stripped.rstrip(fence[0]))
    if run < len(fence) or not stripped[:-run].strip():
        return None
    return stripped[:-run].rstrip()


def markdown_launches(path: str, lines: list[tuple[int, str]], variables: Variables) -> list[Launch]:
    from .yamlfiles import yaml_text_launches  # YAML strings hold Markdown guides too: loaded on first use

    out: list[Launch] = []
    i = 0
    # the open tab group: its indent, the state before it, whether `</Tabs>` closes it (Docusaurus) or the next
    # line as little indented as its tabs that is not one (MkDocs)
    tabs: "tuple[int, Variables, bool] | None" = None
    while i < len(lines):
        text = lines[i][1]
        tab = _TAB.match(text)
        if tab:
            if tabs is None or len(tab.group(1)) < tabs[0]:
                tabs = (len(tab.group(1)), _copy(variables), "<TabItem" in text)
            elif len(tab.group(1)) == tabs[0]:
                _restore(variables, tabs[1])    # the next tab starts from where the group started
        elif tabs is not None and text.strip() and (
                _TABS_END.match(text) if tabs[2] else len(text) - len(text.lstrip()) <= tabs[0]):
            _restore(variables, tabs[1])        # after the group: none of its alternatives carries on
            tabs = None
        m = _FENCE.match(text)
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        body: list[tuple[int, str]] = []
        i += 1
        while i < len(lines):
            stripped = lines[i][1].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            text = lines[i][1]
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
        if lang in _SHELL_LANGS:
            out += shell_launches(path, body, block_vars, "markdown", prompts=has_prompts(body))
        elif lang == "docker" and not any(_INSTRUCTION.match(text) for _number, text in body):
            out += shell_launches(path, body, block_vars, "markdown", prompts=has_prompts(body))
        elif lang in ("dockerfile", "docker", "containerfile"):
            out += dockerfile_launches(path, body, block_vars, kind="markdown")
        elif lang in ("yaml", "yml"):
            out += yaml_text_launches(path, body, block_vars, kind="markdown")
        # a guide's CUDA_VISIBLE_DEVICES pins the GPUs of one process (one rank of a data-parallel example):
        # it does not carry over to the guide's later, often alternative, launches
        variables.unset("CUDA_VISIBLE_DEVICES")
    return out
