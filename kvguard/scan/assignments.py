"""Assignment commands whose values the one-pattern reader in :mod:`kvguard.scan.shell` does not take: a command
substitution with blanks or quotes in it (``TP=$(python -c 'print(8)')``, ``TP=`nproc --all```), several
assignments in one command (``TP=8 PP=2``, ``export A=1 B=$(x)``, ``local TP=$(nproc) X``), a declaration
builtin with options (``declare -i TP=8``, ``typeset TP=…``).  A line such an assignment makes must set its names
— to a value kvguard cannot know when a command substitution gives it — rather than leave them as they were.

The words are split as bash splits a simple command: at blanks outside quotes, ``$(…)``, ``${…}`` and backquotes
(bash's "Shell Expansions": a command substitution is one word however many blanks it holds).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

__all__ = ["Assignment", "AssignmentCommand", "assignment_command", "open_substitution"]

#: the builtins whose ``NAME=value`` arguments are assignments (bash's "declaration builtins")
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})

_ASSIGNMENT_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)$", re.S)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: a redirection word (``2>/dev/null``, ``>`` followed by its file): no word of the command's own
_REDIRECTION = re.compile(r"^[0-9]*(?:[<>]|&>)")
#: the characters that end a simple command outside quotes and expansions
_OPERATOR_CHARACTERS = frozenset(";&|()")
#: a run of characters that open, close and end nothing, by what is open (the closer on top of the stack): nothing
#: (a word's characters), a command substitution or a ``${…}`` (blanks and operators too: they end no word there),
#: double quotes, single quotes, backquotes
_RUNS = {"": re.compile(r"[^\\'\"`$(){}\s;&|]+"), ")": re.compile(r"[^\\'\"`$(){}]+"),
         "}": re.compile(r"[^\\'\"`$(){}]+"), '"': re.compile(r'[^\\"`$]+'), "'": re.compile(r"[^']+"),
         "`": re.compile(r"[^\\`]+")}


class Assignment(NamedTuple):
    name: str
    append: bool        # ``NAME+=value``
    value: str          # as written, quotes and expansions kept


class AssignmentCommand(NamedTuple):
    """A simple command that assigns and runs nothing else: ``builtin`` is ``""`` for plain ``NAME=value`` words,
    else the declaration builtin (``export``, ``local`` …) with its option letters in ``options``; ``names``: the
    bare names it gives (``local X``, ``export Y``)."""
    builtin: str
    options: str
    assignments: list[Assignment]
    names: list[str]


def _open_context(stack: list[str], text: str, i: int) -> int:
    """How many characters at ``text[i]`` open a quote or an expansion (pushing its closer on ``stack``); 0 when
    none does."""
    top = stack[-1] if stack else ""
    char, pair = text[i], text[i:i + 2]
    if pair in ("$(", "${"):
        stack.append(")" if pair == "$(" else "}")
        return 2
    if char == '"' or char == "`":
        stack.append(char)
        return 1
    if char == "'" and top != '"':
        stack.append("'")
        return 1
    if char == "(" and top == ")":
        stack.append(")")       # a parenthesis inside a command substitution (a subshell, arithmetic)
        return 1
    return 0


def _words(text: str, stack: "Optional[list[str]]" = None) -> "tuple[Optional[list[str]], list[str]]":
    """The words of ``text`` when it is one simple command (None when an operator stands outside quotes and
    expansions), and the quotes and expansions open at its end (their closers, innermost last); ``stack``: the
    ones open before it (a line that goes on from the one above)."""
    words: list[str] = []
    current: list[str] = []
    stack = list(stack or [])
    simple = True
    i = 0
    while i < len(text):
        char = text[i]
        top = stack[-1] if stack else ""
        run = _RUNS[top].match(text, i)
        if run:     # characters that open, close and end nothing here, taken at once (a long line stays quick)
            current.append(run.group())
            i = run.end()
            continue
        if char == "\\" and top != "'":
            current.append(text[i:i + 2])
            i += 2
            continue
        if top in ("'", "`") or (top == '"' and text[i:i + 2] not in ("$(", "${") and char != "`"):
            if char == top:
                stack.pop()
            current.append(char)
            i += 1
            continue
        if top in (")", "}") and char == top:
            stack.pop()
            current.append(char)
            i += 1
            continue
        opened = _open_context(stack, text, i)
        if opened:
            current.append(text[i:i + opened])
            i += opened
            continue
        if not stack and char in " \t\n":
            if current:
                words.append("".join(current))
                current = []
        else:
            simple = simple and (bool(stack) or char not in _OPERATOR_CHARACTERS)
            current.append(char)
        i += 1
    if current:
        words.append("".join(current))
    return (words if simple else None), stack


def open_substitution(text: str, before: "Optional[list[str]]" = None) -> "Optional[list[str]]":
    """The quotes and expansions open at the end of ``text`` (``before``: the ones open at its start) when a
    command substitution is among them (``TP=$(`` whose command goes on over the lines below, ``TP="`` …
    ``$(nproc``); None when none is."""
    stack = _words(text, before)[1]
    return stack if any(closer in (")", "`") for closer in stack) else None


def _without_redirections(words: list[str]) -> list[str]:
    """``words`` without their redirections (``2>/dev/null``, ``> log``): the command's own words."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif _REDIRECTION.match(word):
            skip = re.fullmatch(r"[0-9]*(?:[<>]{1,2}|&>>?)", word) is not None     # its file is the next word
        else:
            kept.append(word)
    return kept


def assignment_command(text: str) -> Optional[AssignmentCommand]:
    """The assignments of ``text`` when it is a simple command that assigns and runs nothing else — only
    ``NAME=value`` words, or a declaration builtin with its options, assignments and names; None for any other
    text (``TP=8 vllm serve …``: the assignment is the command's environment alone), or one that leaves a quote or
    an expansion open."""
    words, still_open = _words(text)
    if words is None or still_open:
        return None
    words = _without_redirections(words)
    if not words:
        return None
    builtin, options = "", ""
    if words[0] in DECLARATIONS:
        builtin = words.pop(0)
        while words and re.fullmatch(r"[-+][A-Za-z]+", words[0]):
            options += words.pop(0)[1:]
    elif not _ASSIGNMENT_WORD.match(words[0]):
        return None
    assignments: list[Assignment] = []
    names: list[str] = []
    for word in words:
        m = _ASSIGNMENT_WORD.match(word)
        if m:
            assignments.append(Assignment(m.group(1), bool(m.group(2)), m.group(3)))
        elif builtin and _NAME.match(word):
            names.append(word)
        else:
            return None     # a command word after the assignments: they are its environment alone
    return AssignmentCommand(builtin, options, assignments, names)
