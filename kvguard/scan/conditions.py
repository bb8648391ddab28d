"""The conditions of a shell script's ``if`` / ``elif`` and the patterns of its ``case`` arms, evaluated as bash
evaluates them when every value in them is known.

Read from the bash manual ("Bash Conditional Expressions", the ``test`` builtin's rules by number of arguments,
"Pattern Matching", "Conditional Constructs").  Only what can be decided exactly is decided:

- ``[ … ]`` / ``test …`` with up to four arguments: ``-z`` / ``-n``, a string's being non-empty, ``=`` / ``==``
  / ``!=``, the integer comparisons ``-eq -ne -lt -le -gt -ge``, ``!`` and ``( … )``; an operand that word
  splitting or pathname expansion could change (an unquoted value that is empty or holds blanks or a pattern
  character) is undecided;
- ``[[ … ]]`` with one such test, where the right side of ``==`` / ``!=`` is a pattern unless quoted;
- ``true``, ``false``, ``:`` and ``!``, and ``&&`` / ``||`` lists of all these;
- a ``case`` arm's ``|``-separated patterns against the subject word;
- whether a variable is empty, where the code it guards sets that variable (:func:`default_name`): the fact
  ``${X:=value}`` states, decided as kvguard decides that one.

An operand is a literal word, a quoted literal or a variable reference (``$X``, ``${X}``, ``"$X"``, ``$1``,
``${X:-}``) that the script gives a value; anything else — a command's status, a file test, ``=~``, ``<``, a variable
the environment may hold — is undecided (None), so the caller reads every branch as it did before.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Optional

from .variables import Variables, blank_quoted, translate_quoted

__all__ = ["arm_matches", "condition_value", "default_name"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*|[1-9]"
#: a literal word, a quoted literal, or a reference: ``$X``, ``${X}``, ``${X:-}`` / ``${X-}`` (the same where X is set)
_OPERAND = re.compile(r'^(?:(")?\$(?:(' + _NAME + r")|\{(" + _NAME + r')(?::?-)?\})(?(1)")|"([^"$`\\]*)"|'
                      r"'([^']*)'|([^\s\"'$`\\]+))$")
_PATTERN_CHARACTERS = re.compile(r"[*?\[]")
#: an integer ``test`` compares (bash's are 64-bit: a longer one is left undecided)
_INTEGER = re.compile(r"^\s*[-+]?[0-9]{1,18}\s*$")
_COMPARISONS = {"-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
                "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b}
#: ``&&`` / ``||`` between the commands of a condition
_LIST_OPERATOR = re.compile(r"&&|\|\|")


class _Operand:
    """One argument of a test: its value, whether it was quoted, whether it came from a variable."""

    def __init__(self, value: str, quoted: bool, expanded: bool) -> None:
        self.value, self.quoted, self.expanded = value, quoted, expanded


def _operand(word: str, variables: Variables) -> Optional[_Operand]:
    m = _OPERAND.match(word)
    if m is None:
        return None
    name = m.group(2) or m.group(3)
    if name is not None:
        value = variables.positional(name) if name.isdigit() else variables.get(name)
        if value is None:
            return None         # unknown, or unset in the script and perhaps set in the environment
        return _Operand(value, quoted=m.group(1) is not None, expanded=True)
    if m.group(4) is not None:
        return _Operand(m.group(4), quoted=True, expanded=False)
    if m.group(5) is not None:
        return _Operand(m.group(5), quoted=True, expanded=False)
    return _Operand(m.group(6), quoted=False, expanded=False)


_QUOTED_BLANKS = str.maketrans({" ": "\x00", "\t": "\x00"})


def _words(text: str) -> Optional[list[str]]:
    """The words of a test as written (quotes kept), split at unquoted blanks; None when a quote is left open."""
    blanked = blank_quoted(text)
    if blanked.count('"') or blanked.count("'"):
        return None
    # the blanks inside quotes made characters, the others split the words; the same places in ``text``
    marked = translate_quoted(text, _QUOTED_BLANKS)
    return [text[m.start():m.end()] for m in re.finditer(r"\S+", marked)]


def _integer(operand: _Operand) -> Optional[int]:
    return int(operand.value) if _INTEGER.match(operand.value) else None


def _binary(left: _Operand, operator: str, right: _Operand, pattern: bool) -> Optional[bool]:
    if operator in ("=", "=="):
        return _matches(left.value, right, pattern)
    if operator == "!=":
        found = _matches(left.value, right, pattern)
        return None if found is None else not found
    compare = _COMPARISONS.get(operator)
    if compare is None:
        return None
    a, b = _integer(left), _integer(right)
    return None if a is None or b is None else compare(a, b)


def _matches(value: str, right: _Operand, pattern: bool) -> Optional[bool]:
    """``value`` against ``right``: a pattern when ``pattern`` and unquoted, else a string."""
    if not pattern or right.quoted or not _PATTERN_CHARACTERS.search(right.value):
        return value == right.value
    return _glob(value, right.value)


def _glob(value: str, pattern: str) -> Optional[bool]:
    """Bash pattern matching where Python's :func:`fnmatch.fnmatchcase` means the same (no ``[^…]``, no
    backslash, no extended patterns)."""
    if "\\" in pattern or "[^" in pattern or re.search(r"[?*+@!]\(", pattern):
        return None
    return fnmatch.fnmatchcase(value, pattern)


def _test(arguments: list[_Operand]) -> Optional[bool]:
    """``test`` / ``[`` by its number of arguments (POSIX's rules, as bash's builtin applies them)."""
    texts = [a.value for a in arguments]      # quoting is gone by the time `test` sees its arguments
    count = len(arguments)
    if count == 0:
        return False
    if count == 1:
        return arguments[0].value != ""
    if count == 2:
        if texts[0] == "!":
            return arguments[1].value == ""
        if texts[0] == "-z":
            return arguments[1].value == ""
        if texts[0] == "-n":
            return arguments[1].value != ""
        return None
    if count == 3:
        if texts[1] in ("=", "==", "!=") or texts[1] in _COMPARISONS:
            return _binary(arguments[0], texts[1], arguments[2], pattern=False)
        if texts[0] == "!":
            inner = _test(arguments[1:])
            return None if inner is None else not inner
        if texts[0] == "(" and texts[2] == ")":
            return arguments[1].value != ""
        return None
    if count == 4 and texts[0] == "!":
        inner = _test(arguments[1:])
        return None if inner is None else not inner
    return None


def _bracket_test(words: list[str], variables: Variables) -> Optional[bool]:
    operands = []
    for word in words:
        operand = _operand(word, variables)
        if operand is None:
            return None
        if not operand.quoted and operand.expanded and (not operand.value or re.search(r"\s", operand.value)
                                                         or _PATTERN_CHARACTERS.search(operand.value)):
            return None     # word splitting or pathname expansion would change the arguments
        if not operand.quoted and not operand.expanded and _PATTERN_CHARACTERS.search(operand.value):
            return None
        operands.append(operand)
    return _test(operands)


def _double_bracket_test(words: list[str], variables: Variables) -> Optional[bool]:
    negate = bool(words) and words[0] == "!"
    words = words[1:] if negate else words
    operands = [_operand(word, variables) for word in words]
    if any(operand is None for operand in operands) or not operands:
        return None
    known = [operand for operand in operands if operand is not None]
    result: Optional[bool] = None
    if len(known) == 1:
        result = known[0].value != ""
    elif len(known) == 2 and words[0] in ("-z", "-n"):
        result = (known[1].value == "") == (words[0] == "-z")
    elif len(known) == 3 and (words[1] in ("=", "==", "!=") or words[1] in _COMPARISONS):
        result = _binary(known[0], words[1], known[2], pattern=True)
    if result is None:
        return None
    return not result if negate else result


def _command_value(command: str, variables: Variables) -> Optional[bool]:
    words = _words(command.strip())
    if not words:
        return None
    if words[0] == "!":
        inner = _command_value(command.strip()[1:], variables)
        return None if inner is None else not inner
    if words in (["true"], [":"]):
        return True
    if words == ["false"]:
        return False
    if words[0] == "[" and words[-1] == "]":
        return _bracket_test(words[1:-1], variables)
    if words[0] == "test":
        return _bracket_test(words[1:], variables)
    if words[0] == "[[" and words[-1] == "]]":
        return _double_bracket_test(words[1:-1], variables)
    return None


def condition_value(text: str, variables: Variables) -> Optional[bool]:
    """Whether the condition ``text`` (an ``if`` / ``elif`` list, without its keyword and ``then``) holds; None
    when kvguard cannot decide it."""
    blanked = blank_quoted(text)
    if re.search(r"[;&|]", _LIST_OPERATOR.sub("  ", blanked)) or "`" in blanked or "$(" in blanked:
        return None
    pieces, operators, last = [], [], 0
    for m in _LIST_OPERATOR.finditer(blanked):
        pieces.append(text[last:m.start()])
        operators.append(m.group(0))
        last = m.end()
    pieces.append(text[last:])
    if any("[[" in piece and "]]" not in piece for piece in pieces):
        return None         # `&&` / `||` inside `[[ … ]]`
    value = _command_value(pieces[0], variables)
    for operator, piece in zip(operators, pieces[1:]):
        if value is None:
            return None
        if (operator == "&&") == value:     # `&&` after success, `||` after failure: the next command runs
            value = _command_value(piece, variables)
    return value


def arm_matches(subject: str, patterns: str, variables: Variables) -> Optional[bool]:
    """Whether a ``case`` arm whose patterns are ``patterns`` (``a|b*``) is taken for the subject word
    ``subject`` (as written after ``case``); None when kvguard cannot decide it."""
    word = _operand(subject.strip(), variables)
    if word is None:
        return None
    blanked = blank_quoted(patterns)
    last, alternatives = 0, []
    for i, char in enumerate(blanked):
        if char == "|":
            alternatives.append(patterns[last:i].strip())
            last = i + 1
    alternatives.append(patterns[last:].strip())
    for alternative in alternatives:
        pattern = _operand(alternative, variables)
        if pattern is None:
            return None
        found = _matches(word.value, pattern, pattern=True)
        if found is None:
            return None
        if found:
            return True
    return False


#: a reference to a variable whose value a test asks about: ``$X``, ``${X}``, ``${X:-}``, ``${X-}`` (empty when unset)
_REFERENCE = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::?-)?\})$")
_EMPTY_WORDS = frozenset({'""', "''"})


def _emptiness(words: list[str]) -> Optional[tuple[str, bool]]:
    """``(X, holds when X is empty)`` for a test that asks whether X is empty and nothing else (``[ -z "$X" ]``,
    ``test -n "$X"``, ``[[ ! $X ]]``, ``[ "$X" = "" ]``, ``! [ … ]``); None for any other.  In ``[`` / ``test`` an
    unquoted reference is taken only where its vanishing keeps the answer (``[ -z $X ]`` is ``[ -z ]``, true; ``[ -n
    $X ]`` is ``[ -n ]``, true as well)."""
    negated = False
    while words and words[0] == "!":
        negated, words = not negated, words[1:]
    if len(words) >= 2 and words[0] == "[[" and words[-1] == "]]":
        inner, double = words[1:-1], True
    elif len(words) >= 2 and words[0] == "[" and words[-1] == "]":
        inner, double = words[1:-1], False
    elif words and words[0] == "test":
        inner, double = words[1:], False
    else:
        return None
    if inner and inner[0] == "!":
        negated, inner = not negated, inner[1:]
        if not double and len(inner) < 2:
            return None         # `[ ! "$X" ]`: the rules by number of arguments, not read here
    if len(inner) == 2 and inner[0] in ("-z", "-n"):
        operand, when_empty = inner[1], inner[0] == "-z"
    elif len(inner) == 1:
        operand, when_empty = inner[0], False
    elif len(inner) == 3 and inner[1] in ("=", "==", "!=") and inner[2] in _EMPTY_WORDS:
        operand, when_empty = inner[0], inner[1] != "!="
    else:
        return None
    quoted = len(operand) > 1 and operand[0] == operand[-1] == '"'
    m = _REFERENCE.match(operand[1:-1] if quoted else operand)
    if m is None or not (quoted or double or inner[0] == "-z" and not negated and len(inner) == 2):
        return None
    return m.group(1) or m.group(2), when_empty != negated


def default_name(condition: str, holds: bool, variables: Variables) -> Optional[str]:
    """The name X when the code that runs on ``condition``'s status being ``holds`` (after ``&&``: True, after
    ``||``: False; an ``if``'s branch: True) runs exactly when X is empty — ``[ -z "$X" ] && X=8``, ``if [ -z
    "${X:-}" ]; then X=8; fi`` — and ``${X:=8}`` would take its word for X (:meth:`Variables.takes_default`: the
    file never sets X).  Where that code sets X alone, it is that one fact, and read as kvguard reads ``${X:=8}``:
    it runs.  None for any other condition."""
    words = _words(condition.strip())
    found = _emptiness(words) if words else None
    if found is None or found[1] != holds:
        return None
    return found[0] if variables.takes_default(found[0]) else None
