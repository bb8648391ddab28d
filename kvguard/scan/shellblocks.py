"""Bash's loops and function definitions in a script read line by line: a ``for NAME in WORDS; do …; done`` loop,
a loop on a condition (``while …; do …; done``, ``until …``, the arithmetic ``for ((…))``) and a function
definition (``name() { …; }``, ``function name { …; }``), each with the lines of its body.

What they mean follows the bash manual ("Looping Constructs", "Shell Functions", "Positional Parameters");
:func:`kvguard.scan.shell.shell_launches` reads a loop's body once per word and a function's body at each call of
it, its arguments as ``$1``, ``$2``, ….
"""

from __future__ import annotations

import re
from typing import Iterator, Optional

from .variables import blank_quoted

__all__ = ["Block", "Lines", "condition_loop_header", "function_header", "loop_header", "read_block"]

#: the lines one loop or function body may span
_MAX_BODY_LINES = 2000

_LOOP = re.compile(r"^\s*for\s+([A-Za-z_][A-Za-z0-9_]*)(\s+in\b(.*))?\s*;?\s*(?:do\b.*)?$")
_CONDITION_LOOP = re.compile(r"^\s*(while\b|until\b|for\s*\(\()(.*)$")
_FUNCTION = re.compile(r"^\s*(?:function\s+([A-Za-z_][A-Za-z0-9_.:-]*)\s*(?:\(\s*\))?|"
                       r"([A-Za-z_][A-Za-z0-9_.:-]*)\s*\(\s*\))\s*(.*)$")
_WORD = re.compile(r"[^\s;&|()]+")

Block = list[tuple[int, str]]


class Lines:
    """A script's logical lines, one at a time, with the one last read given back when it was not the block's."""

    def __init__(self, lines: Iterator[tuple[int, str]]) -> None:
        self._lines = lines
        self._back: list[tuple[int, str]] = []

    def __iter__(self) -> "Lines":
        return self

    def __next__(self) -> tuple[int, str]:
        return self._back.pop() if self._back else next(self._lines)

    def push(self, line: tuple[int, str]) -> None:
        self._back.append(line)


def _words(text: str) -> Iterator[re.Match]:
    """The words of ``text`` outside quotes, with their places (quoted text is blanked, not removed)."""
    return _WORD.finditer(blank_quoted(text))


def loop_header(text: str) -> Optional[tuple[str, Optional[str], str]]:
    """``(name, words, after)`` of a ``for`` line: the loop's name, the text of its word list (None for ``for
    NAME`` / ``for NAME; do``, which loops over the positional parameters) and what follows it, from ``do`` on
    when the line has it; None for any other line (``for ((…))`` included)."""
    m = _LOOP.match(text)
    if m is None:
        return None
    rest = text[m.end(1):]
    words = None
    if m.group(2) is not None:
        listed = rest[rest.index("in") + 2:]
        do = next((w for w in _words(listed) if w.group(0) == "do"), None)
        words = (listed[:do.start()] if do else listed).strip().rstrip(";").strip()
        return m.group(1), words, listed[do.start():] if do else ""
    do = next((w for w in _words(rest) if w.group(0) == "do"), None)
    return m.group(1), words, rest[do.start():] if do else ""


def condition_loop_header(text: str) -> Optional[tuple[str, str, str]]:
    """``(keyword, condition, after)`` of a ``while`` / ``until`` / ``for ((…))`` line: its keyword (``while``,
    ``until``, ``for``), the text of its condition (or arithmetic header) and what follows it, from ``do`` on
    when the line has it; None for any other line."""
    m = _CONDITION_LOOP.match(text)
    if m is None:
        return None
    keyword, rest = m.group(1)[:5].rstrip("( "), m.group(2)
    if keyword == "for":
        rest = "((" + rest
    do = next((w for w in _words(rest) if w.group(0) == "do"), None)
    condition = (rest[:do.start()] if do else rest).strip().rstrip(";").strip()
    return keyword, condition, rest[do.start():] if do else ""


def function_header(text: str) -> Optional[tuple[str, str]]:
    """``(name, after)`` of a line that defines a function, ``after`` from its ``{`` on (empty when the body
    starts on a later line); None for any other line."""
    m = _FUNCTION.match(text)
    if m is None:
        return None
    after = m.group(3)
    if after and not after.startswith("{"):
        return None                 # `name() ( subshell )` and the like: not read
    return m.group(1) or m.group(2), after


def read_block(first: tuple[int, str], commands: Lines, opener: str, closer: str) -> Optional[Block]:
    """The body of a block whose header line ends with ``first`` (its text from the ``opener`` on, or empty
    when the opener is on the next line), read from ``commands`` up to the ``closer`` that balances the opener
    (``do`` … ``done``, ``{`` … ``}``), giving back what follows the closer after a ``;``; None when the file ends
    first, or when neither the header's line nor the next has the opener (that line is given back)."""
    body: Block = []
    depth = 0
    line, text = first
    for read in range(_MAX_BODY_LINES):
        if read == 1 and not depth and not any(word.group(0) == opener for word in _words(text)):
            commands.push((line, text))
            return None
        start = 0
        for word in _words(text):
            if word.group(0) == opener:
                depth += 1
                if depth == 1:
                    start = word.end()
            elif word.group(0) == closer and depth:
                depth -= 1
                if depth == 0:
                    piece = text[start:word.start()].strip().rstrip(";").strip()
                    if piece:
                        body.append((line, piece))
                    rest = text[word.end():].strip()
                    if rest.startswith(";") and rest[1:].strip():
                        # `…; done; vllm serve …`: the commands after the block are a line of their own
                        commands.push((line, rest[1:].strip()))
                    return body
        if depth:
            piece = text[start:].strip()
            if piece:
                body.append((line, piece))
        following = next(commands, None)
        if following is None:
            return None
        line, text = following
    return None
