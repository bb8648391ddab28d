"""Makefiles (``Makefile``, ``GNUmakefile``, ``*.mk``): the launches in their rules' recipes.

Read from the GNU make manual ("Writing Recipes", "How to Use Variables", "Special Built-in Target Names"):

- a recipe line starts with a tab; make expands its own references first — ``$(NAME)`` and ``${NAME}`` (a
  variable of the makefile, else one given on make's command line or in the environment), ``$X`` for the
  one-character variable ``X`` (so ``$TP`` is ``$(T)P``, not the shell's ``$TP``), ``$$`` for one
  ``$`` the shell sees — then hands the line to a shell of its own; a recipe line ending in ``\\`` goes on
  on the next; leading ``@``, ``-`` and ``+`` are make's, not the shell's;
- ``.ONESHELL:`` hands a rule's whole recipe to one shell (without it, what one line's shell sets — a variable,
  ``set -e`` — is gone on the next line);
- make starts each shell as ``$(SHELL) $(.SHELLFLAGS) LINE`` (``.SHELLFLAGS`` is ``-c``, ``-ec`` under ``.POSIX:``):
  ``.SHELLFLAGS := -eu -o pipefail -c`` is ``set -e`` and ``set -u`` in every recipe's shell;
- ``NAME = value``, ``:=``, ``::=``, ``:::=`` set a variable, ``?=`` sets it unless it is set already (kvguard
  reads the makefile's default, as it reads ``${TP:-8}``), ``+=`` appends with a space, ``!=`` runs a shell
  command (its value is not known); ``export NAME = value`` also puts it in the recipes' environment;
- ``make TARGET NAME=value`` overrides the makefile's assignments: ``--set NAME=value``.

A reference kvguard does not know (a make function such as ``$(shell nproc)``, a variable set nowhere in the
file) is left to the shell as ``$(…)`` / ``${NAME}``, where it is unresolved.
"""

from __future__ import annotations

import re
from typing import Optional

from .result import Launch
from .shell import shell_command_options, shell_launches, start_shell_with
from .variables import Variables

__all__ = ["is_makefile_name", "makefile_launches"]

_ASSIGNMENT = re.compile(r"^(export\s+|override\s+)*([A-Za-z_.][A-Za-z0-9_.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$")
#: $(NAME) / ${NAME} without nested references or spaces (a function call has a space: $(shell nproc)), and
#: ``$X``: a ``$`` followed by one letter, digit or underscore is a reference to that one-character variable
#: (``$MODEL`` is ``$(M)ODEL``)
_REFERENCE = re.compile(r"\$(?:\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\{([A-Za-z_][A-Za-z0-9_.-]*)\}|([A-Za-z0-9_]))")
_DOLLARS = "\x00"
#: how deep a variable's value may refer to others before kvguard stops expanding
_MAX_DEPTH = 16


def is_makefile_name(low_name: str) -> bool:
    return low_name in ("makefile", "gnumakefile") or low_name.endswith(".mk")


def _continued(text: str) -> bool:
    return text.endswith("\\") and not text.endswith("\\\\")


class _MakeVariables:
    def __init__(self, overrides: "dict[str, str]"):
        self.overrides = overrides
        self.values: dict[str, Optional[str]] = {}     # None: set by a shell command (!=)
        self.exported: set[str] = set()

    def assign(self, name: str, operator: str, value: str, export: bool) -> None:
        if export:
            self.exported.add(name)
        if operator == "?=":
            if name not in self.values:
                self.values[name] = value
        elif operator == "+=":
            before = self.values.get(name)
            self.values[name] = None if name in self.values and before is None else \
                (f"{before} {value}" if before else value)
        elif operator == "!=":
            self.values[name] = None
        elif operator in (":=", "::=", ":::="):
            self.values[name] = self.expand(value)      # simply expanded: now
        else:
            self.values[name] = value

    def expand(self, text: str, depth: int = 0) -> str:
        """``text`` as make hands it on: its variables' values in place, ``$$`` kept for :meth:`for_shell`."""
        text = text.replace("$$", _DOLLARS)

        def sub(m: re.Match) -> str:
            name = m.group(1) or m.group(2) or m.group(3)
            if name in self.overrides:
                return self.overrides[name]
            value = self.values.get(name)
            if value is None or depth >= _MAX_DEPTH:
                return "${" + name + "}"         # the shell's: unresolved unless --set gives it
            return self.expand(value, depth + 1)

        return _REFERENCE.sub(sub, text)

    @staticmethod
    def for_shell(text: str) -> str:
        return text.replace(_DOLLARS, "$")

    def environment(self) -> "dict[str, Optional[str]]":
        out: dict[str, Optional[str]] = {}
        for name in sorted(self.exported):
            value = self.overrides.get(name, self.values.get(name))
            out[name] = None if value is None else self.for_shell(self.expand(value))
        return out


#: a target-specific assignment (`serve-small: TP = 2`): the variable differs between rules
_TARGET_ASSIGNMENT = re.compile(r"^[^\t#=:]+:(?!=)\s*(?:export\s+|override\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*"
                                r"(?:\?=|:::=|::=|:=|\+=|!=|=)")
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef)\b")


def _shell_option_words(make: _MakeVariables, posix: bool) -> "list[str]":
    """The words make starts each recipe's shell with (``$(SHELL) $(.SHELLFLAGS) LINE``): ``.SHELLFLAGS`` as the
    makefile (or make's command line) sets it, ``-eu -o pipefail -c``; else make's default, ``-c``, or ``-ec``
    under ``.POSIX:``.  None that kvguard reads when ``SHELL`` is no shell it knows or a value it cannot know."""
    shell = make.overrides.get("SHELL", make.values.get("SHELL", "/bin/sh"))
    flags = make.overrides.get(".SHELLFLAGS", make.values.get(".SHELLFLAGS", "-ec" if posix else "-c"))
    if shell is None or flags is None:
        return []
    return shell_command_options(make.for_shell(make.expand(f"{shell} {flags}")).split())


def makefile_launches(path: str, lines: list[tuple[int, str]], variables: Variables,
                      kind: str = "makefile") -> list[Launch]:
    make = _MakeVariables(dict(variables.overrides))
    one_shell = any(text.strip().startswith(".ONESHELL:") for _, text in lines)
    # each rule's recipe: its command lines, each a list of physical lines (a backslash goes on to the next),
    # without make's own prefixes; make expands them when it runs them, once the whole file is read
    recipes: list[list[list[tuple[int, str]]]] = []
    in_recipe = continued = False
    assignment: Optional[tuple[int, str]] = None      # a variable line a backslash continues
    conditionals = 0                                   # ifeq / ifdef … blocks open around this line
    varying: set[str] = set()     # set per target or under a condition: its value in a recipe is not known
    for number, text in lines:
        if continued:       # the shell joins it; make drops a leading tab of the recipe prefix
            recipes[-1][-1].append((number, text[1:] if text.startswith("\t") else text))
            continued = _continued(text)
            continue
        if assignment is not None:
            text = assignment[1][:-1] + " " + text.strip()      # make joins a variable's lines with a space
            number = assignment[0]
            assignment = None
        if text.startswith("\t") and (in_recipe or not text.strip().startswith("#")):
            if not in_recipe:
                recipes.append([])
                in_recipe = True
            line = text[1:].lstrip()
            while line[:1] in ("@", "-", "+"):
                line = line[1:].lstrip()
            recipes[-1].append([(number, line)])
            continued = _continued(text)
            continue
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue        # a blank or comment line does not end a recipe
        in_recipe = False
        if _continued(text):
            assignment = (number, text)
            continue
        if _CONDITIONAL.match(stripped):
            conditionals += 1
            continue
        if stripped == "endif" or stripped.startswith("endif "):
            conditionals = max(0, conditionals - 1)
            continue
        target_specific = _TARGET_ASSIGNMENT.match(stripped)
        if target_specific:
            varying.add(target_specific.group(1))
            continue
        m = _ASSIGNMENT.match(stripped)
        if m:       # (a rule, `target: …`, never matches: a name cannot hold a colon)
            prefixes, name, operator, value = m.groups()
            make.assign(name, operator, value.strip(), export=bool(prefixes and "export" in prefixes))
            if conditionals:
                varying.add(name)
        elif stripped.startswith("export "):
            make.exported.update(stripped.split()[1:])
    for name in varying:
        make.values[name] = None
    out: list[Launch] = []
    environment = make.environment()
    options = _shell_option_words(make, posix=any(text.strip().startswith(".POSIX:") for _, text in lines))
    for recipe in recipes:
        expanded = [[(number, make.for_shell(make.expand(line))) for number, line in command] for command in recipe]
        shells = [[line for command in expanded for line in command]] if one_shell else expanded
        for shell in shells:
            scope = Variables(variables.overrides, variables).with_environment(environment)
            start_shell_with(scope, options)
            out += shell_launches(path, shell, scope, kind)
    return out
