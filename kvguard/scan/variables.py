"""Shell-like variables while reading a file: assignments, ``export``, ``--set`` values, and their
expansion (``$X``, ``${X}``, ``${X:-default}``, Kubernetes' ``$(X)``).
"""

from __future__ import annotations

import re
import shlex
from typing import Mapping, Optional

from ..launch.pins import ReleasePin

__all__ = ["ENV_TOKEN", "LITERAL_DOLLAR", "POSITIONAL", "VARIABLE", "Variables", "blank_quoted", "compose_invalid",
           "compose_literal", "env_text", "launch_reads", "translate_quoted"]

#: ``${X}`` with its operators (``${X:-d}``, ``${X:=d}``, ``${X:+a}``, ``${X:?m}``, ``${#X}``, an array's
#: ``${A[@]}`` / ``${A[1]}``, a positional ``${2:-8}``), any other ``${…}``, ``$X``, Kubernetes' ``$(X)``,
#: ``$((arithmetic))``, command substitutions (``$(…)``, backquotes), which kvguard never runs, and the
#: script's arguments and special parameters (``$1``, ``"$@"``, ``$#``), which the file does not hold
VARIABLE = re.compile(r"\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(\[[^\]{}]*\])?(?:(:?[-=+?])([^}]*))?\}|(\$\{[^}]*\})|"
                      r"\$([A-Za-z_][A-Za-z0-9_]*)|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|"
                      r"\$\(\(([^()]*(?:\([^()]*\)[^()]*)*)\)\)|\$\([^)]*\)|`[^`]*`|(\$[0-9@*#?$!-])")

#: the ``$`` expansions one line may hold (more: unresolved, unread)
_MAX_EXPANSIONS = 1000

#: marks a command substitution set aside while the rest of a line is expanded (private-use characters)
_SUBSTITUTION = "\ue002{}\ue003"
#: marks a ``${…}`` holding another, set aside the same way
_PARAMETER_STAND_IN = "\ue004{}\ue005"
#: stands for a ``$`` that is no expansion (quoted with ``'…'``, escaped, compose's and Kubernetes' ``$$``) until
#: :meth:`Variables.expand` gives it back as ``$``
LITERAL_DOLLAR = "\ue006"
#: an unquoted brace expansion: ``{2,4}``, ``{1..8}``, which the shell makes several words of
_BRACE_EXPANSION = re.compile(r"(?<![$\\])\{[^{}\s'\"]*(?:,|\.\.)[^{}\s'\"]*\}")


def _command_substitutions(text: str) -> "list[tuple[int, int]]":
    """The spans of the ``$(…)`` command substitutions of ``text`` that the plain pattern cannot end — the ones
    holding parentheses or quotes — found as the shell ends them: at the parenthesis that balances the opening
    one, outside quotes.  ``$((…))`` arithmetic is not one."""
    spans: list[tuple[int, int]] = []
    i = 0
    while True:
        start = text.find("$(", i)
        if start < 0 or len(spans) >= _MAX_EXPANSIONS:
            return spans
        if text.startswith("$((", start):
            i = start + 3
            continue
        depth, j, quote = 1, start + 2, None
        while j < len(text) and depth:
            c = text[j]
            if quote:
                if c == quote:
                    quote = None
                elif c == "\\" and quote == '"':
                    j += 1
            elif c in "'\"":
                quote = c
            elif c == "\\":
                j += 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            j += 1
        if depth:
            return spans        # not closed on this line: left to the plain pattern
        body = text[start + 2:j - 1]
        if any(c in body for c in "()'\""):
            spans.append((start, j))
        i = j


def _shell_quoting(text: str, quote: str = "") -> "tuple[str, list[str]]":
    """``text`` with each ``$`` that the shell leaves as it is — inside ``'…'``, or escaped ``\\$`` — replaced by
    :data:`LITERAL_DOLLAR`, ``$'…'`` without escapes as ``'…'`` and the old arithmetic ``$[…]`` as ``$((…))``;
    with the unquoted brace expansions, which kvguard does not expand (unresolved)."""
    if "'" not in text and "\\" not in text and "$[" not in text and "{" not in text:
        return text, []
    out: list[str] = []
    braces: list[str] = []
    plain, i = 0, 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            out.append(LITERAL_DOLLAR if c == "$" else c)
            quote = "" if c == "'" else quote
            i += 1
            continue
        if c == "\\" and i + 1 < len(text):
            # `\$` is a dollar sign in a word and in "…"; the backslash goes, as the shell drops it
            out.append(LITERAL_DOLLAR if text[i + 1] == "$" else text[i:i + 2])
            i += 2
            continue
        if c == "$" and not quote and text.startswith("$'", i):
            end = text.find("'", i + 2)
            if end > 0 and "\\" not in text[i + 2:end]:
                out.append("'" + text[i + 2:end].replace("$", LITERAL_DOLLAR) + "'")
                i = end + 1
                continue
        if c == "$" and text.startswith("$[", i):
            end = text.find("]", i + 2)
            if end > 0:
                out.append("$((" + text[i + 2:end] + "))")
                i = end + 1
                continue
        if c == '"':
            quote = "" if quote else '"'
        elif c == "'" and not quote:
            quote = "'"
        if not quote and c not in "\"'":
            plain += 1
        out.append(c)
        i += 1
    protected = "".join(out)
    if "{" in protected and plain:
        braces = [m.group(0) for m in _BRACE_EXPANSION.finditer(blank_quoted(protected))]
    return protected, braces


def _inside_double_quotes(text: str, quote: str = "") -> bytearray:
    """For each character of a shell line, whether it stands inside ``"…"`` (1) or not (0)."""
    inside = bytearray(len(text))
    i = 0
    while i < len(text):
        c = text[i]
        inside[i] = quote == '"'
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            i += 1
            if i < len(text):
                inside[i] = quote == '"'
        elif c == '"':
            quote = "" if quote else '"'
        elif c == "'" and not quote:
            quote = "'"
        i += 1
    return inside


#: what a variable's value may hold that splitting the expanded line would not take as it is
_UNQUOTED_SPECIAL = re.compile(r"""[^\sA-Za-z0-9_\-./:=,+@%]""")
_QUOTED_SPECIAL = re.compile(r'["\\]')


def _as_value(value: str, in_double_quotes: bool) -> str:
    """A variable's value written into a shell line so that splitting the line into words takes its quotes,
    backslashes and other signs as characters, as the shell does with an expansion's result; unquoted, it is
    still split at blanks."""
    if in_double_quotes:
        return _QUOTED_SPECIAL.sub(lambda m: "\\" + m.group(0), value)
    return _UNQUOTED_SPECIAL.sub(lambda m: "\\" + m.group(0), value)


_QUOTED_OR_ESCAPED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.")


def blank_quoted(text: str) -> str:
    """``text`` with what its quotes hold and its escaped characters blanked out (same length), so that patterns
    match only the shell's own unquoted text."""
    return _QUOTED_OR_ESCAPED.sub(lambda m: " " * len(m.group(0)), text)


def translate_quoted(text: str, table: "dict[int, str]") -> str:
    """``text`` with what its quotes hold and its escaped characters translated by ``table`` (``str.translate``),
    its unquoted text as it is."""
    return _QUOTED_OR_ESCAPED.sub(lambda m: m.group(0).translate(table), text)


def _nested_parameters(text: str) -> "list[tuple[int, int]]":
    """The spans of the ``${…}`` expansions of ``text`` that hold another one (``${TP:-${GPUS:-8}}``), ended
    where the shell ends them: at the brace that balances the opening one.  The plain pattern would end them at
    the first ``}``."""
    spans: list[tuple[int, int]] = []
    i = 0
    while len(spans) < _MAX_EXPANSIONS:
        start = text.find("${", i)
        if start < 0:
            break
        depth, j, nested = 1, start + 2, False
        while j < len(text) and depth:
            if text.startswith("${", j):
                depth, nested, j = depth + 1, True, j + 2
                continue
            if text[j] == "}":
                depth -= 1
            j += 1
        if depth:
            break               # not closed on this line: left to the plain pattern
        if nested:
            spans.append((start, j))
            i = j
        else:
            i = start + 2
    return spans


#: one ``${…}`` expansion whose word may hold others: its parts as :data:`VARIABLE`'s first five groups
_PARAMETER = re.compile(r"\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(\[[^\]{}]*\])?(?:(:?[-=+?])(.*))?\}", re.DOTALL)

#: ``"${A[@]}"``: each element of the array one word
_QUOTED_ARRAY = re.compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}"')
#: ``"$@"``: each positional parameter one word
_QUOTED_POSITIONAL = re.compile(r'"\$(?:@|\{@\})"')
#: the positional parameters a script or function is given: ``$1`` …, ``$#``, ``$@``
POSITIONAL = "@"

#: an arithmetic expression once its variables are values: integers, operators, parentheses
_ARITHMETIC = re.compile(r"^[0-9+\-*/%() \t]*$")
_ARITH_NAME = re.compile(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")

ENV_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

#: environment variables besides VLLM_* that change a verdict (the GPUs vLLM counts: kvguard.launch.devices)
_READ_BY_CHECKS = frozenset({"CUDA_VISIBLE_DEVICES"})


#: a ``$`` that compose's interpolation does not take as a reference: ``$$`` (one ``$``), and a ``$`` not followed
#: by a name or ``{`` (``$(date)``, ``$1``), which compose refuses (:func:`compose_invalid`)
_COMPOSE_LITERAL = re.compile(r"\$\$|\$(?![A-Za-z_{])")
#: compose-go's template pattern: ``$$``, ``$NAME``, ``${…}``, and else an empty "invalid" alternative
_COMPOSE_INVALID = re.compile(r"\$\$|\$(?![A-Za-z_{])(\S{0,24})")


def compose_literal(text: str) -> str:
    """``text`` of a compose file with each ``$`` that is no compose reference written :data:`LITERAL_DOLLAR`, so
    that :meth:`Variables.expand` expands only what compose does (``$NAME``, ``${NAME…}``) and gives ``$$`` back
    as one ``$``."""
    return _COMPOSE_LITERAL.sub(LITERAL_DOLLAR, text) if "$" in text else text


def compose_invalid(text: str) -> "list[str]":
    """The pieces of ``text`` that compose refuses to interpolate ("invalid interpolation format … You may need to
    escape any $ with another $"): a ``$`` followed by neither ``$``, a name nor ``{``, as in ``$(nproc)``."""
    if "$" not in text:
        return []
    return ["$" + m.group(1) for m in _COMPOSE_INVALID.finditer(text) if m.group(0) != "$$"]


def env_text(value: object) -> str:
    """A YAML scalar as an environment variable holds it (``true`` for YAML's boolean, ``""`` for null)."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def launch_reads(name: str) -> bool:
    """Whether a launch's environment variable ``name`` can change kvguard's verdict (``VLLM_*``,
    ``CUDA_VISIBLE_DEVICES``): the ones carried from a file's environment to its launches."""
    return name.startswith("VLLM_") or name in _READ_BY_CHECKS


class Variables:
    def __init__(self, overrides: Mapping[str, str], parent: Optional["Variables"] = None):
        self.overrides = dict(overrides)
        self.local: dict[str, str] = dict(parent.local) if parent else {}
        self.exported: set[str] = set(parent.exported) if parent else set()
        #: names set to a value kvguard cannot know (``X=$(cat f)``, a Kubernetes ``valueFrom``)
        self.unknown: set[str] = set(parent.unknown) if parent else set()
        #: the latest `pip install vllm==X` (or Dockerfile base image) above this point
        self.pin: Optional[ReleasePin] = parent.pin if parent else None
        #: bash arrays (``A=(-tp 8)``): their elements; ``$A`` is the first
        self.arrays: dict[str, list[str]] = {k: list(v) for k, v in parent.arrays.items()} if parent else {}
        #: what a launch below should say about how its variables were read (a sourced file not found)
        self.notes: list[str] = list(parent.notes) if parent else []
        #: the names a function's body declares ``local`` (its own scope's: never inherited)
        self.declared_local: set[str] = set()

    def get(self, name: str) -> Optional[str]:
        if name in self.overrides:
            return self.overrides[name]
        return self.local.get(name)

    def takes_default(self, name: str, colon: bool = True) -> Optional[bool]:
        """Whether ``${name:-word}`` / ``${name:=word}`` (``colon``; ``${name-word}`` without) takes its word: when
        the name is unset — one the file never sets is taken as unset, the environment as not setting it — or,
        with ``colon``, empty; None when its value is not known."""
        value = self.get(name)
        if value is None and name in self.unknown:
            return None
        return value is None or (colon and value == "")

    def snapshot(self) -> tuple:
        """What the variables hold now, for :meth:`restore` (the start of a conditional's branch)."""
        return (dict(self.local), set(self.unknown), {k: list(v) for k, v in self.arrays.items()}, set(self.exported),
                self.pin)

    def restore(self, snapshot: tuple) -> None:
        local, unknown, arrays, exported, self.pin = snapshot
        self.local, self.unknown, self.exported = dict(local), set(unknown), set(exported)
        self.arrays = {k: list(v) for k, v in arrays.items()}

    def changed_since(self, snapshot: tuple) -> set[str]:
        """The names set, unset or changed since ``snapshot``."""
        local, unknown, arrays = snapshot[:3]
        names = set(self.local) | set(local) | self.unknown | unknown | set(self.arrays) | set(arrays)
        return {name for name in names if self.local.get(name) != local.get(name)
                or (name in self.unknown) != (name in unknown) or self.arrays.get(name) != arrays.get(name)}

    def block_scope(self) -> "Variables":
        """A copy of these variables for a block read apart (a loop's body, a subshell), the function's ``local``
        names included; :meth:`take_changes` brings back what it sets."""
        scope = Variables(self.overrides, self)
        scope.declared_local = set(self.declared_local)
        return scope

    def take_changes(self, scope: "Variables", before: tuple, exact: bool, keep_out: "frozenset[str]" = frozenset()) -> None:
        """What code read in ``scope`` (a copy of these variables when they were ``before``, a :meth:`snapshot`)
        set, unset or exported, here too: as it is there (``exact``), or with values kvguard cannot know (the
        code may or may not have run); the names in ``keep_out`` (a function's locals) stay as they are."""
        for name in scope.changed_since(before) - keep_out:
            if not exact:
                self.set_unknown(name)
                continue
            self.local.pop(name, None)
            self.arrays.pop(name, None)
            self.unknown.discard(name)
            if name in scope.local:
                self.local[name] = scope.local[name]
            if name in scope.arrays:
                self.arrays[name] = list(scope.arrays[name])
            if name in scope.unknown:
                self.unknown.add(name)
            if name not in scope.exported:
                self.exported.discard(name)
        self.exported |= scope.exported - before[3] - keep_out
        if scope.pin is not None:
            self.pin = scope.pin

    def positional(self, name: str) -> Optional[str]:
        """``$1`` … ``$9``, ``$#``, ``$@`` / ``$*`` (their words joined) when a call gave them (:meth:`set_positional`),
        else None."""
        given = self.arrays.get(POSITIONAL)
        if given is None or name in self.unknown:
            return None
        if name in ("@", "*", "#") and any(str(number) in self.unknown for number in range(1, 10)):
            return None
        if name in ("@", "*"):
            return " ".join(given)
        if name == "#":
            return str(len(given))
        return (given[int(name) - 1] if int(name) <= len(given) else "") if name.isdigit() and name != "0" else None

    def set_positional(self, words: Optional[list[str]]) -> None:
        """The positional parameters ``$1`` … are ``words`` (a function's call, ``set --``, ``shift``); None:
        values kvguard cannot know."""
        for number in range(1, 10):
            self.local.pop(str(number), None)
            self.unknown.discard(str(number))
        if words is None:
            self.arrays.pop(POSITIONAL, None)
            for number in range(1, 10):
                self.unknown.add(str(number))
            return
        self.arrays[POSITIONAL] = list(words)
        for number, word in enumerate(words[:9], 1):
            self.local[str(number)] = word

    def vllm_env(self) -> list[str]:
        """``NAME=value`` for the exported variables a check reads (:func:`launch_reads`: what of its
        environment matters to a launch below them); one whose value is unknown as ``NAME=$NAME`` (one of
        :meth:`unknown_env`)."""
        out = []
        for name in sorted(self.exported):
            value = self.get(name)
            if launch_reads(name) and value is not None:
                out.append(f"{name}={value}")
            elif launch_reads(name) and name in self.unknown:
                out.append(f"{name}=${name}")
        return out

    def unknown_env(self) -> list[str]:
        """The exported variables a check reads set to values kvguard cannot know (unresolved for a launch)."""
        return [name for name in sorted(self.exported)
                if launch_reads(name) and name in self.unknown and self.get(name) is None]

    def set_known(self, name: str, value: str) -> None:
        """``name`` holds ``value`` (an environment entry: no expansion, no word splitting)."""
        self.local[name] = value
        self.unknown.discard(name)

    def with_environment(self, entries: Mapping[str, Optional[str]]) -> "Variables":
        """A scope below this one in which ``entries`` are the process's environment: exported, each set to
        its value, or to one kvguard cannot know (None); ``--set`` values still win."""
        scope = Variables(self.overrides, self)
        for name, value in entries.items():
            scope.exported.add(name)
            if value is None:
                scope.set_unknown(name)
            else:
                scope.set_known(name, value)
        return scope

    def unset(self, name: str) -> None:
        """``unset name``: neither set nor exported any more (a ``--set`` value still wins)."""
        self.local.pop(name, None)
        self.arrays.pop(name, None)
        self.exported.discard(name)
        self.unknown.discard(name)

    def set_unknown(self, name: str) -> None:
        """``name`` is set, to a value kvguard cannot know."""
        self.local.pop(name, None)
        self.arrays.pop(name, None)
        self.unknown.add(name)

    def assign(self, name: str, raw: str, export: bool = False, append: bool = False) -> None:
        """``name=raw`` (``name+=raw`` with ``append``) as the shell assigns it."""
        if export:
            self.exported.add(name)
        value, missing = self.expand(raw, quoting=True)
        if missing:
            self.set_unknown(name)
            return
        try:
            parts = shlex.split(value)
        except ValueError:
            self.set_unknown(name)
            return
        text = parts[0] if len(parts) == 1 else " ".join(parts)
        if append:
            if name in self.unknown and self.get(name) is None:
                return                  # still unknown
            if name in self.arrays:     # `A+=x` appends to the array's first element
                self.arrays[name][0:1] = [(self.arrays[name][0] if self.arrays[name] else "") + text]
                self.local[name] = self.arrays[name][0]
                return
            text = (self.get(name) or "") + text
        self.arrays.pop(name, None)
        self.set_known(name, text)

    def assign_array(self, name: str, raw: str, append: bool = False) -> None:
        """``name=(raw)`` (``name+=(raw)`` with ``append``): the words of ``raw``, expanded."""
        value, missing = self.expand(raw, quoting=True)
        try:
            words = shlex.split(value, comments=True)
        except ValueError:
            missing.append(name)
        if missing or (append and name in self.unknown and self.get(name) is None):
            self.set_unknown(name)
            return
        if append:
            before = self.arrays.get(name)
            words = (before if before is not None else ([self.local[name]] if name in self.local else [])) + words
        self.arrays[name] = words
        self.local[name] = words[0] if words else ""
        self.unknown.discard(name)

    def _array(self, name: str) -> Optional[list[str]]:
        """The elements of ``name`` (a scalar is an array of one); None when not known."""
        if name in self.arrays and name not in self.overrides:
            return self.arrays[name]
        value = self.get(name)
        return None if value is None else [value]

    def _arithmetic(self, expression: str) -> Optional[str]:
        """``$((expression))`` as bash computes it (integers; ``/`` and ``%`` truncate toward zero); None when
        a name in it is not a known integer, or it is more than kvguard reads."""
        unknown = False

        def value(m: re.Match) -> str:
            nonlocal unknown
            found = self.get(m.group(1))
            if found is None or not re.fullmatch(r"\s*-?\d+\s*", found):
                unknown = True
                return "0"
            return f"({found.strip()})"

        text = _ARITH_NAME.sub(value, expression)
        if unknown or len(text) > 500 or not _ARITHMETIC.match(text) or "**" in text:
            return None
        return _evaluate(text)

    def expand(self, text: str, quoting: bool = False, _quote: str = "") -> tuple[str, list[str]]:
        """``text`` with its expansions made, and what is unresolved in it.  With ``quoting``, ``text`` is a shell
        line: its quotes and escapes keep a ``$`` from expanding (see :func:`_shell_quoting`), and the values put
        in are written so that splitting the line takes them as the shell does (:func:`_as_value`).  ``_quote``
        is the quote ``text`` stands in (the word of a ``"${X:-word}"``)."""
        if text.count("$") > _MAX_EXPANSIONS:
            # no launch holds this many; scanning for each one's end would take quadratic time
            return text, ["$"]
        missing: list[str] = []
        if quoting:
            text, missing = _shell_quoting(text, _quote)
        inside = bytearray()

        def put(value: str, position: int) -> str:
            return _as_value(value, bool(inside[position])) if quoting else value

        def quoted_array(m: re.Match) -> str:
            elements = self._array(m.group(1))
            if elements is None:
                missing.append(m.group(1))
                return m.group(0)
            return shlex.join(elements) if m.group(2) == "@" else shlex.quote(" ".join(elements))

        def sub(m: re.Match) -> str:
            if m.group(6) is not None or m.group(10) is not None or (
                    m.group(9) is None and m.group(2) is None and m.group(7) is None and m.group(8) is None):
                if m.group(10) is not None and m.group(10)[1:] in self.overrides:
                    return put(self.overrides[m.group(10)[1:]], m.start())     # `--set 1=Qwen/Qwen3-8B` gives $1
                if m.group(10) is not None:
                    given = self.positional(m.group(10)[1:])
                    if given is not None:
                        return put(given, m.start())
                missing.append(m.group(0))      # another ${…} form, $(…), `…`, $1, "$@": never guessed
                return m.group(0)
            if m.group(9) is not None:          # $((arithmetic))
                result = self._arithmetic(m.group(9))
                if result is None:
                    missing.append(m.group(0))
                    return m.group(0)
                return result
            name = m.group(2) or m.group(7) or m.group(8)   # ${X…}, $X, $(X) (Kubernetes' syntax)
            if m.group(2) is not None:
                if m.group(5) is not None and "${" in m.group(5):
                    missing.append(m.group(0))      # an opening brace never closed: the shell refuses the line
                    return m.group(0)
                return self._braced(m.group(0), name, m.groups()[:5], missing, quoting, inside[m.start()] if quoting else 0)
            value = self.get(name)
            if value is None:
                missing.append(name)
                return m.group(0)
            return put(value, m.start())

        def quoted_positional(m: re.Match) -> str:
            given = self.arrays.get(POSITIONAL) if self.positional("@") is not None else None
            if given is None:
                missing.append("$@")
                return m.group(0)
            return shlex.join(given)

        text = _QUOTED_ARRAY.sub(quoted_array, text) if '"${' in text else text
        text = _QUOTED_POSITIONAL.sub(quoted_positional, text) if '"$' in text and quoting else text
        # a command substitution whose text holds parentheses or quotes (`$(python -c 'print(8)')`): whole,
        # unresolved, and out of the expansions' way while the rest of the line is expanded
        spans = _command_substitutions(text) if "$(" in text else []
        originals = [text[start:end] for start, end in spans]
        for i, (start, end) in reversed(list(enumerate(spans))):
            text = text[:start] + _SUBSTITUTION.format(i) + text[end:]
        missing += originals
        # an expansion holding another: set aside whole, like the substitutions, and expanded on its own
        nested = _nested_parameters(text) if text.count("${") > 1 else []
        parameters = [text[start:end] for start, end in nested]
        for i, (start, end) in reversed(list(enumerate(nested))):
            text = text[:start] + _PARAMETER_STAND_IN.format(i) + text[end:]
        if quoting:
            inside = _inside_double_quotes(text, _quote)
            quoted = [inside[text.index(_PARAMETER_STAND_IN.format(i))] for i in range(len(parameters))]
        text = VARIABLE.sub(sub, text)
        for i, parameter in enumerate(parameters):
            text = text.replace(_PARAMETER_STAND_IN.format(i),
                                self._nested(parameter, missing, quoting, quoted[i] if quoting else 0), 1)
        for i, original in enumerate(originals):
            text = text.replace(_SUBSTITUTION.format(i), original, 1)
        return text.replace(LITERAL_DOLLAR, "$"), missing

    def _nested(self, text: str, missing: list[str], quoting: bool, in_double_quotes: int) -> str:
        """A ``${X<op>word}`` whose word holds other expansions; any other form is unresolved."""
        m = _PARAMETER.fullmatch(text)
        if m is None or m.group(4) is None:
            missing.append(text)
            return text
        return self._braced(text, m.group(2), m.groups(), missing, quoting, in_double_quotes)

    def _braced(self, original: str, name: str, parts: "tuple[Optional[str], ...]", missing: list[str],
                quoting: bool = False, in_double_quotes: int = 0) -> str:
        """``${…}`` (written ``original``) of the variable ``name``: its length, an array element, or an operator's
        result; ``parts`` are the length mark, the name, the index, the operator and the word.  ``quoting`` and
        ``in_double_quotes`` as for :meth:`expand`: how a value is put in."""

        def put(value: str) -> str:
            return _as_value(value, bool(in_double_quotes)) if quoting else value

        length, index, op, word = parts[0], parts[2], parts[3], parts[4] or ""
        known = name in self.overrides or name in self.local
        if name in self.unknown and not known:
            missing.append(name)
            return original
        if index is not None:
            elements = self._array(name)
            inner = index[1:-1].strip()
            if op is not None or elements is None or not (inner in ("@", "*") or inner.isdigit()):
                missing.append(name if elements is None else original)
                return original
            if length:
                return str(len(elements) if inner in ("@", "*") else len(elements[int(inner)])
                           if int(inner) < len(elements) else 0)
            if inner in ("@", "*"):
                return shlex.join(w for e in elements for w in e.split())
            return put(elements[int(inner)]) if int(inner) < len(elements) else ""
        value = self.get(name)
        if length:
            if op is not None or value is None:
                missing.append(name if value is None else original)
                return original
            return str(len(value))
        if op is None:
            if value is None:
                missing.append(name)
                return original
            return put(value)
        unset = self.takes_default(name, colon=op.startswith(":"))
        kind = op[-1]
        if kind in "-=":
            if value is not None and not unset:
                return put(value)
            expanded, more = self.expand(word, quoting, '"' if in_double_quotes else "")
            missing += more
            if kind == "=" and not more:
                if quoting and any(c in expanded for c in "\\'\""):
                    self.set_unknown(name)      # the value is the word after quote removal, not read here
                else:
                    self.set_known(name, expanded)
            return expanded
        if kind == "+":
            if unset:
                return ""
            expanded, more = self.expand(word, quoting, '"' if in_double_quotes else "")
            missing += more
            return expanded
        if value is None or unset:      # `${X:?message}`: the shell stops
            missing.append(name)
            return original
        return put(value)


def _evaluate(text: str) -> Optional[str]:
    """An integer expression of ``+ - * / %`` and parentheses, with C's (and bash's) truncating division."""
    import ast

    try:
        tree = ast.parse(text.strip().replace("/", "//"), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = walk(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                if right == 0:
                    raise ZeroDivisionError
                quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right >= 0) else -1)
                return quotient if isinstance(node.op, ast.FloorDiv) else left - right * quotient
        raise ValueError("not an integer expression")

    try:
        result = walk(tree)
    except (ValueError, ZeroDivisionError, RecursionError):
        return None
    return str(result) if abs(result) < 10 ** 18 else None
