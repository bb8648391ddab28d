"""Helm chart templates (``CHART/templates/*.yaml``) rendered with the chart's own ``values.yaml``, when every
action is one kvguard renders as Helm does: ``{{ .Values.a.b }}`` (piped through ``quote``, ``toString``, ``int``,
``default "TEXT"``),
``{{ toYaml .Values.a | nindent N }}`` / ``indent N``, ``{{ .Release.Name }}`` / ``.Release.Namespace`` /
``.Chart.Name`` / ``.Chart.Version`` / ``.Chart.AppVersion``, comments, and the ``{{-`` / ``-}}`` trims.  Any other
action (``if``, ``range``, ``with``, ``include``, ``default``, …), a value the chart does not set, or an action over
several lines (or one kvguard cannot print as Helm would: a nil through ``quote``, ``int`` of text) leaves the file a
template (skipped, as before: :data:`~kvguard.scan.files.GO_TEMPLATE_REASON`).

Read from Helm's engine and the Go ``text/template`` package: Helm reads values through JSON, so every number is a
float64 and prints as Go's ``%v`` does (``1048576`` as ``1.048576e+06``: :func:`go_number`); ``quote`` wraps the
text in double quotes; ``toYaml`` is the value as YAML without its final newline; ``nindent N`` puts a newline and
N spaces before every line, ``indent N`` the spaces only.  The release name a template sees is ``helm template``'s
default, ``release-name``.
"""

from __future__ import annotations

import decimal
import json
import math
import os
import re
from dataclasses import dataclass

from .beside import read_beside

__all__ = ["RENDERED_NOTE", "Rendered", "go_number", "render_chart_template"]

RENDERED_NOTE = ("a Helm chart template, rendered with the chart's values.yaml (other values, `--set` / `-f`, "
                 "render another launch)")

_ACTION = re.compile(r"\{\{(-\s)?\s*(.*?)\s*(\s-)?\}\}")
_VALUE = re.compile(r"^\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
_PIPE = re.compile(r'^(\.Values(?:\.[A-Za-z_][A-Za-z0-9_]*)+)((?:\s*\|\s*(?:quote|toString|int|default\s+"[^"\\]*"))+)$')
_STEP = re.compile(r'\|\s*(quote|toString|int|default\s+"([^"\\]*)")')
_TO_YAML = re.compile(r"^toYaml\s+(\.Values(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*\|\s*(nindent|indent)\s+(\d+)$")


@dataclass
class Rendered:
    """A template's rendering: its text, and for each of its lines (0-based) the template's line (1-based)."""

    text: str
    lines: "list[int]"


class _NotRendered(Exception):
    pass


def go_number(value: "int | float") -> str:
    """A finite number as Helm prints a value: a float64 through Go's ``%v`` (shortest digits; an exponent, two digits at
    least, from 1e+06 up or below 1e-04)."""
    number = float(value)
    if number == 0:
        return "0"
    sign, mantissa, exponent = decimal.Decimal(repr(number)).normalize().as_tuple()
    text = "".join(map(str, mantissa))
    point = len(text) + int(exponent)   # the decimal point's place among the digits
    exp = point - 1
    if exp < -4 or exp >= 6:
        body = text[0] + ("." + text[1:] if len(text) > 1 else "")
        out = f"{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    elif point <= 0:
        out = "0." + "0" * -point + text
    elif point >= len(text):
        out = text + "0" * (point - len(text))
    else:
        out = text[:point] + "." + text[point:]
    return ("-" if sign else "") + out


def _lookup(values: object, path: str) -> object:
    node = values
    for key in path.strip(".").split("."):
        if not isinstance(node, dict) or key not in node:
            raise _NotRendered(path)
        node = node[key]
    return node


def _scalar(value: object) -> str:
    """A value as ``{{ … }}`` prints it (lists and maps are not rendered: Go prints them as ``map[…]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and math.isfinite(value):
        return go_number(value)
    if isinstance(value, str):
        return value
    raise _NotRendered("not a scalar")


def _empty(value: object) -> bool:
    """Sprig's ``empty``, which ``default`` tests: nil, false, 0, "", an empty list or map."""
    return value is None or value is False or value == 0 and not isinstance(value, bool) or value in ("", [], {})


def _pipeline(values: object, path: str, steps: str) -> str:
    """``.Values.PATH | STEP | …`` with the steps ``default "TEXT"`` (TEXT when the value is empty or not set),
    ``int`` (a Go int: its digits), ``toString`` and ``quote`` (double quotes around the text; a nil value gives
    nothing, not rendered here)."""
    try:
        value: object = _lookup(values, path)
    except _NotRendered:
        value = None
    text: "str | None" = None       # the value as text once a step has made it one
    for step in _STEP.finditer(steps):
        if step.group(2) is not None or step.group(1).startswith("default"):
            if text is None and _empty(value):
                value = step.group(2)
            elif text == "":
                text = step.group(2)
            elif text == "0":
                raise _NotRendered("default of an int")    # empty to sprig, whatever printed it
        elif step.group(1) == "int":
            if text is not None or isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _NotRendered("int of a non-number")
            text = str(int(value))      # a Go int prints its digits
        else:
            if value is None and text is None:
                raise _NotRendered("nil")
            text = text if text is not None else _scalar(value)
            if step.group(1) == "quote":
                text = json.dumps(text)
    if text is None:
        if value is None:
            raise _NotRendered(path)
        text = _scalar(value)
    return text


def _evaluate(expression: str, values: object, chart: dict) -> str:
    if expression.startswith("/*") and expression.endswith("*/"):
        return ""
    m = _VALUE.match(expression)
    if m:
        return _scalar(_lookup(values, m.group(1)))
    m = _PIPE.match(expression)
    if m:
        return _pipeline(values, m.group(1)[len(".Values"):], m.group(2))
    m = _TO_YAML.match(expression)
    if m:
        import yaml

        dumped = yaml.safe_dump(_lookup(values, m.group(1)[len(".Values"):]), default_flow_style=False,
                                sort_keys=True).rstrip("\n")
        pad = " " * int(m.group(3))
        indented = "\n".join(pad + line for line in dumped.split("\n"))
        return ("\n" if m.group(2) == "nindent" else "") + indented
    if expression == ".Release.Name":
        return "release-name"
    if expression == ".Release.Namespace":
        return "default"
    if expression in (".Chart.Name", ".Chart.Version", ".Chart.AppVersion"):
        value = chart.get(expression[len(".Chart."):][0].lower() + expression[len(".Chart.") + 1:])
        if isinstance(value, str):
            return value
    raise _NotRendered(expression)


def render_chart_template(path: str, text: str) -> "Rendered | None":
    """``text`` (the template at ``path``) rendered with its chart's ``values.yaml``, or None when it is not a
    chart's template or holds what kvguard does not render."""
    if os.path.basename(os.path.dirname(os.path.abspath(path))) != "templates":
        return None
    chart_text = read_beside(path, os.path.join("..", "Chart.yaml"))
    values_text = read_beside(path, os.path.join("..", "values.yaml"))
    if chart_text is None or values_text is None:
        return None
    from .yamlnodes import load_yaml

    yaml = load_yaml()
    if yaml is None:
        return None
    try:
        chart, values = yaml.safe_load(chart_text), yaml.safe_load(values_text)
    except (yaml.YAMLError, RecursionError):
        return None
    if not isinstance(chart, dict) or not isinstance(values, (dict, type(None))):
        return None
    try:
        return _render(text, values or {}, chart)
    except _NotRendered:
        return None


def _render(text: str, values: object, chart: dict) -> Rendered:
    # the output's pieces: (text, the template line it starts on, whether it is the template's own text)
    out: "list[tuple[str, int, bool]]" = []
    at = 0
    for m in _ACTION.finditer(text):
        literal = text[at:m.start()]
        if "{{" in literal or "}}" in literal or "\n" in m.group(0):
            raise _NotRendered("an action kvguard does not read")
        if m.group(1):      # `{{- `: the whitespace before it goes, newlines too
            literal = literal.rstrip(" \t\r\n")
            if not literal:
                while out and not out[-1][0].rstrip(" \t\r\n"):
                    out.pop()
                if out:
                    out[-1] = (out[-1][0].rstrip(" \t\r\n"),) + out[-1][1:]
        out.append((literal, text.count("\n", 0, at) + 1, True))
        out.append((_evaluate(m.group(2), values, chart), text.count("\n", 0, m.start()) + 1, False))
        at = m.end()
        if m.group(3):      # ` -}}`: the whitespace after it goes
            rest = text[at:]
            at += len(rest) - len(rest.lstrip(" \t\r\n"))
    rest = text[at:]
    if "{{" in rest or "}}" in rest:
        raise _NotRendered("an action kvguard does not read")
    out.append((rest, text.count("\n", 0, at) + 1, True))
    # each rendered line's template line: a literal advances line by line, an action's output stays on its line
    lines = [out[0][1]]
    for piece, start, own in out:
        line = start
        for ch in piece:
            if ch == "\n":
                line += 1 if own else 0
                lines.append(line)
    return Rendered("".join(piece for piece, _start, _literal in out), lines)
