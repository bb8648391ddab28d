"""systemd service units (``*.service``): the launch in ``ExecStart=``, in the environment the unit gives it.

Read from systemd.service(5) ("Command lines") and systemd.exec(5) ("Environment"), and for the substitution
rules from ``replace_env_argv`` in systemd's ``src/basic/env-util.c``:

- ``ExecStart=`` is one command line, not a shell script: its prefixes (``@``, ``-``, ``:``, ``+``, ``!``)
  are systemd's (``@``: the second word is ``argv[0]``; ``:``: no variable is substituted); a line ending in
  ``\\`` goes on on the next; words are split at blanks, with single and double quotes anywhere in a word and
  C-style escapes (``\\n``, ``\\s``, ``\\x41`` …); a lone ``;`` separates two command lines;
- variables are substituted per word after the split, and only from the unit's environment:
  a word that is exactly ``$NAME`` becomes the value split at blanks (quotes in the value respected; an unset
  variable gives no word at all); ``${NAME}`` inside a word is replaced by the value as it is, never split (an
  unset one by nothing); ``$NAME`` inside a longer word, ``${NAME:-default}`` and other shell forms are not
  systemd's and reach the program as written; ``$$`` is one ``$``; ``%%`` is one ``%``;
- ``Environment=`` sets variables (several ``NAME=value`` words, quoted or not, per line; a later one wins; an
  empty one resets the list);
  ``EnvironmentFile=`` names a file of ``NAME=value`` lines whose settings override ``Environment=``'s: read
  as docker's ``--env-file`` is (the path as written, else beside the unit), noted when it is not there (a
  leading ``-``: optional);
- a template unit's specifiers are what its instance name says: ``%i`` / ``%I`` (``vllm@8.service``) stand
  for ``$INSTANCE`` here (``--set INSTANCE=8``); the other specifiers (``%h``, ``%n``, …) for
  ``$SYSTEMD_h``, ``$SYSTEMD_n``, … — unresolved unless given.

A variable the unit does not set may come from the service manager's own environment, so it is unresolved
(``--set NAME=value`` gives it), not taken as unset.  A unit that runs a shell (``ExecStart=/bin/bash -c "vllm
serve …"``) is read as that shell reads the script systemd hands it (``${NAME}`` already substituted, ``$NAME``
left to the shell, which sees the unit's environment).
"""

from __future__ import annotations

import re
import shlex
from typing import Optional

from .beside import not_beside
from .compose import read_dotenv
from .result import Launch
from .shell import one_word, shell_launches
from .variables import Variables

__all__ = ["is_unit_name", "unit_launches"]

_EXEC_PREFIXES = "@-:+!"
_SPECIFIER = re.compile(r"%(.)")


def is_unit_name(low_name: str) -> bool:
    return low_name.endswith(".service")


def _directives(lines: list[tuple[int, str]]) -> list[tuple[int, str, str, str]]:
    """(line, section, key, value) of each ``Key=value`` line, continuation lines joined with a space."""
    out: list[tuple[int, str, str, str]] = []
    section = ""
    pending: Optional[tuple[int, str]] = None
    for number, raw in lines:
        text = raw.strip()
        if pending is not None:
            first, joined = pending
            if text.startswith(("#", ";")):
                continue        # a comment inside a continued line is skipped
            number, text = first, joined + " " + text
            pending = None
        if not text or text.startswith(("#", ";")):
            continue
        if text.endswith("\\"):
            pending = (number, text[:-1].rstrip())
            continue
        if text.startswith("[") and text.endswith("]"):
            section = text[1:-1]
            continue
        key, sep, value = text.partition("=")
        if sep:
            out.append((number, section, key.strip(), value.strip()))
    if pending is not None:
        key, sep, value = pending[1].partition("=")
        if sep:
            out.append((pending[0], section, key.strip(), value.strip()))
    return out


#: a ``$`` that is a character of a word (``$$``, a value's own, one systemd leaves as written), not a reference
_LITERAL_DOLLAR = "\ue020"
#: a specifier's stand-in while the words are made: ``\ue021NAME\ue022`` becomes the reference ``${NAME}``
_STAND_IN = re.compile("\ue021([A-Za-z_][A-Za-z0-9_]*)\ue022")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: systemd.service(5)'s C-style escapes (``\\x``, ``\\u``, ``\\U`` and octal are read apart)
_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "s": " ",
              "\\": "\\", '"': '"', "'": "'"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
#: a word that separates two command lines of one ``ExecStart=``
_SEPARATOR = object()


def _specifiers(text: str) -> str:
    """``%%`` one ``%``; ``%i`` / ``%I`` the instance, others a variable named after the specifier."""
    def sub(m: re.Match) -> str:
        letter = m.group(1)
        if letter == "%":
            return "%"
        if not letter.isalpha():
            return m.group(0)
        return "\ue021" + ("INSTANCE" if letter in "iI" else "SYSTEMD_" + letter) + "\ue022"

    return _SPECIFIER.sub(sub, text)


def _escape(text: str, i: int) -> tuple[str, int]:
    """The character(s) a backslash at ``text[i]`` stands for in a command line, and the index after it; an escape
    systemd does not know is kept as written."""
    letter = text[i + 1]
    if letter in _C_ESCAPES:
        return _C_ESCAPES[letter], i + 2
    digits = _HEX_ESCAPES.get(letter)
    if digits is not None:
        code = text[i + 2:i + 2 + digits]
        if len(code) == digits and all(c in "0123456789abcdefABCDEF" for c in code):
            return chr(int(code, 16)), i + 2 + digits
    octal = text[i + 1:i + 4]
    if len(octal) == 3 and all(c in "01234567" for c in octal):
        return chr(int(octal, 8)), i + 4
    return "\\" + letter, i + 2


def _words(text: str, c_escapes: bool) -> Optional[list]:
    """``text`` split into words as systemd splits them: at blanks, quotes anywhere in a word, a backslash escaping,
    quoted or not (``c_escapes``: the C-style escapes of a command line; else the next character itself); a word
    ``;`` as :data:`_SEPARATOR`, a word ``\\;`` as a ``;`` argument.  None: a quote left open (systemd ignores
    such a line)."""
    words: list = []
    word: list[str] = []
    in_word, quote = False, ""

    def close() -> None:
        text = "".join(word)
        words.append(_SEPARATOR if text == ";" else ";" if text == "\\;" else text)

    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):     # an escape inside quotes too, unlike a shell's
            value, i = _escape(text, i) if c_escapes else (text[i + 1], i + 2)
            word.append(value)
            in_word = True
            continue
        if quote:
            if char == quote:
                quote = ""
            else:
                word.append(char)
        elif char in "'\"":
            quote, in_word = char, True
        elif char in " \t\n":
            if in_word:
                close()
            word, in_word = [], False
        else:
            word.append(char)
            in_word = True
        i += 1
    if quote:
        return None
    if in_word:
        close()
    return words


def _value(name: str, scope: Variables, unresolved: list[str]) -> Optional[str]:
    """The unit environment's value of ``name`` with its dollars as characters; None (noted in ``unresolved``)
    when kvguard cannot know it."""
    value = scope.get(name)
    if value is None:
        unresolved.append(name)
        return None
    return value.replace("$", _LITERAL_DOLLAR)


def _within_word(word: str, scope: Variables, unresolved: list[str]) -> str:
    """``word`` with its ``${NAME}`` replaced by their values as they are and ``$$`` by a ``$``; every other
    ``$`` kept as written."""
    out: list[str] = []
    i = 0
    while i < len(word):
        if word.startswith("$$", i):
            out.append(_LITERAL_DOLLAR)
            i += 2
        elif word.startswith("${", i):
            stops = [j for j in (word.find("}", i), word.find(":", i)) if j >= 0]
            stop = min(stops) if stops else -1
            if stop < 0 or word[stop] == ":":
                # `${NAME:-word}` is not systemd's syntax: the text stays, scanning goes on after the colon
                upto = len(word) if stop < 0 else stop + 1
                out.append(word[i:upto].replace("$", _LITERAL_DOLLAR))
                i = upto
                continue
            name = word[i + 2:stop]
            if _NAME.match(name):
                value = _value(name, scope, unresolved)
                out.append("${" + name + "}" if value is None else value)
            i = stop + 1
        else:
            out.append(_LITERAL_DOLLAR if word[i] == "$" else word[i])
            i += 1
    return "".join(out)


def _substituted(word: str, scope: Variables, unresolved: list[str]) -> list[str]:
    """The words systemd makes of one command-line word (``replace_env_argv``)."""
    if word.startswith("$") and word[1:2] not in ("{", "$"):
        name = word[1:]
        if not _NAME.match(name):
            return []       # not a variable's name: systemd drops the word
        value = _value(name, scope, unresolved)
        if value is None:
            return ["${" + name + "}"]
        return [w for w in _words(value, c_escapes=False) or value.split() if isinstance(w, str)]
    return [_within_word(word, scope, unresolved)]


def _command_lines(command: str, scope: Variables, unresolved: list[str]) -> list[list[str]]:
    """The command lines of one ``ExecStart=`` value, each as the words the program is started with (its
    ``$`` characters marked :data:`_LITERAL_DOLLAR`, what kvguard cannot know as ``${NAME}`` references)."""
    words = _words(_specifiers(command), c_escapes=True)
    if words is None:
        return []
    lines: list[list] = [[]]
    for word in words:
        if word is _SEPARATOR:
            lines.append([])
        else:
            lines[-1].append(word)
    out = []
    for line in lines:
        if not line:
            continue
        head = line[0]
        prefixes = head[:len(head) - len(head.lstrip(_EXEC_PREFIXES))]
        line = [head[len(prefixes):]] + line[1:]
        if "@" in prefixes:     # the second word is the program's argv[0], not an argument
            line = line[:1] + line[2:]
        if ":" in prefixes:
            made = [w.replace("$", _LITERAL_DOLLAR) for w in line]
        else:
            made = [new for w in line for new in _substituted(w, scope, unresolved)]
        out.append([_STAND_IN.sub(r"${\1}", w) for w in made])
    return out


def unit_launches(path: str, lines: list[tuple[int, str]], variables: Variables, kind: str = "systemd") -> list[Launch]:
    environment: dict[str, Optional[str]] = {}
    env_files: list[str] = []
    starts: list[tuple[int, str]] = []
    for number, section, key, value in _directives(lines):
        if section != "Service":
            continue
        if key == "Environment" and not value:
            environment.clear()     # an empty assignment resets the list
        elif key == "Environment":
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            for word in words:
                name, sep, val = word.partition("=")
                if sep and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
                    environment[name] = val
        elif key == "EnvironmentFile" and value:
            env_files.append(value.lstrip("-"))
        elif key == "ExecStart":
            if not value:
                starts = []     # an empty assignment resets the list
            else:
                starts.append((number, value))
    missing_files = []
    for name in env_files:
        entries = read_dotenv(path, name)
        if entries is None:
            missing_files.append(name)
        else:
            environment.update(entries)
    out: list[Launch] = []
    for number, command in starts:
        scope = Variables(variables.overrides, variables).with_environment(environment)
        scope.set_unknown("INSTANCE")
        notes = tuple(not_beside("EnvironmentFile", name) for name in missing_files)
        for words in _command_lines(command, scope, []):
            # no shell runs the command line: each word goes to the program as one word
            text = " ".join(one_word(word, _LITERAL_DOLLAR) for word in words)
            found = shell_launches(path, [(number, text)], scope, kind)
            for launch in found:
                launch.notes = launch.notes + notes
            out += found
    return out
