"""Jupyter notebooks (``*.ipynb``): the ``vllm serve`` its cells start, as IPython runs them.

The notebook is read as JSON (nbformat 4, and the ``worksheets`` of nbformat 3), never run.  What is read:

- code cells as one Python script in cell order (IPython runs them in one namespace), through the Python reader
  (:mod:`kvguard.scan.python`): ``subprocess``, ``os.system``, ... with the values the notebook assigns;
- a line that starts with ``!`` (``!vllm serve …``, ``!!…``, ``x = !…``) and the line magics ``%sx`` /
  ``%system``: shell text, with IPython's expansion of ``{expression}`` and of ``$name`` (``$$name`` is the
  shell's ``$name``; a ``$name`` an odd number of ``'`` follows is left); when a field names what the notebook's
  code does not bind (``$TP`` meant for the shell) or is no expression, IPython runs the whole line as written,
  its other fields unexpanded; a trailing backslash continues it;
- ``%env NAME=value`` / ``%env NAME value``: the environment of what the later cells start;
- a cell whose first line is ``%%bash``, ``%%sh``, ``%%script bash|sh`` or ``%%writefile NAME.sh``: shell text;
  other cell magics (``%%html``, ``%%writefile config.py``, ...) start nothing;
- markdown cells, as Markdown (:mod:`kvguard.scan.markdown`).

Each launch is reported at the line of the ``.ipynb`` file that holds its source line.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import string
from dataclasses import replace
from typing import Any, Optional

from .markdown import markdown_launches
from .python import PythonUnreadable, python_launches
from .result import Launch
from .shell import shell_launches
from .variables import Variables

__all__ = ["NotebookUnreadable", "is_notebook", "notebook_launches"]


class NotebookUnreadable(ValueError):
    """A notebook that names vLLM but is not a readable notebook (bad JSON, no cells, a code cell that names vLLM
    and does not parse)."""


def is_notebook(low_name: str) -> bool:
    return low_name.endswith(".ipynb")


#: cell magics whose body is shell text
_SHELL_CELL = re.compile(r"^%%(?:bash|sh|script\s+(?:ba)?sh|writefile\s+(?:-a\s+)?\S+\.(?:sh|bash))\b")
#: cell magics whose body is Python this kernel runs
_PYTHON_CELL = re.compile(r"^%%(?:time|timeit|capture|prun)\b")
_ASSIGNED_SHELL = re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*!(.*)$")
_SHELL_MAGIC = re.compile(r"^%(?:sx|system)\s+(.*)$")
_ENV_MAGIC = re.compile(r"^%env\s+([A-Za-z_]\w*)(?:\s*=\s*|\s+)(.*)$")
#: IPython's ``$name`` / ``$name.attr`` / ``$$name`` field in the text between ``{…}`` fields (DollarFormatter)
_DOLLAR_FIELD = re.compile(r"\$(\$?[\w.]+)")


def _cells(doc: Any) -> Optional[list[tuple[str, list[str]]]]:
    """(cell type, source lines) of each cell, or None for a document that is no notebook."""
    if not isinstance(doc, dict):
        return None
    cells = doc.get("cells")
    if cells is None and isinstance(doc.get("worksheets"), list):
        cells = [cell for sheet in doc["worksheets"] if isinstance(sheet, dict)
                 for cell in sheet.get("cells") or ()]
    if not isinstance(cells, list):
        return None
    out = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if isinstance(source, str):
            out.append((str(cell.get("cell_type", "")), source.splitlines()))
    return out


def _file_lines(text: str, cells: list[tuple[str, list[str]]]) -> list[list[int]]:
    """For each cell, the line of the notebook file that holds each of its source lines: each source line is
    found as the JSON string nbformat writes it, in order; one that is not (a cell written as one string) takes
    the line of the last one found."""
    out: list[list[int]] = []
    position, line = 0, 1
    for _kind, lines in cells:
        numbers = []
        for source_line in lines:
            for encoded in (json.dumps(source_line + "\n", ensure_ascii=False),
                            json.dumps(source_line, ensure_ascii=False),
                            json.dumps(source_line + "\n"), json.dumps(source_line)):
                found = text.find(encoded[:-1], position)   # without the closing quote: a prefix of the string
                if found >= 0:
                    line += text.count("\n", position, found)
                    position = found
                    break
            numbers.append(line)
        out.append(numbers)
    return out


def notebook_launches(path: str, text: str, variables: Variables, kind: str = "notebook") -> list[Launch]:
    """The launches a notebook's cells start (one that names no vLLM starts none without being read).

    Raises :class:`NotebookUnreadable` for a notebook that names vLLM but cannot be read."""
    if "vllm" not in text.lower():
        return []
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise NotebookUnreadable(f"invalid notebook JSON: {exc}") from None
    cells = _cells(doc)
    if cells is None:
        raise NotebookUnreadable("not a Jupyter notebook: no cells")
    numbers = _file_lines(text, cells)
    out: list[Launch] = []
    code: list[tuple[int, int, str]] = []       # (cell index, file line, source line) of the notebook's Python
    environment: dict[str, Optional[str]] = {}  # what `%env` has set in the cells above
    for index, ((cell_type, lines), where) in enumerate(zip(cells, numbers)):
        if cell_type == "markdown":
            out += markdown_launches(path, list(zip(where, lines)), Variables(variables.overrides, variables))
        elif cell_type == "code" and lines:
            first = lines[0].strip()
            if _SHELL_CELL.match(first):
                scope = Variables(variables.overrides, variables).with_environment(dict(environment))
                out += shell_launches(path, list(zip(where[1:], lines[1:])), scope, kind)
            elif not first.startswith("%%") or _PYTHON_CELL.match(first):
                start = 1 if first.startswith("%%") else 0
                code += [(index, number, line) for number, line in zip(where[start:], lines[start:])]
                for line in lines[start:]:
                    env = _ENV_MAGIC.match(line.strip())
                    if env:
                        environment[env.group(1)] = env.group(2).strip()
    return sorted(out + _code_launches(path, code, variables, kind), key=lambda launch: launch.line)


def _code_launches(path: str, code: list[tuple[int, int, str]], variables: Variables, kind: str) -> list[Launch]:
    """The launches of the notebook's code cells, read as one script; when that script does not parse, each
    cell on its own (a cell that names vLLM and does not parse makes the notebook unreadable)."""
    try:
        return _script_launches(path, code, variables, kind)
    except PythonUnreadable:
        pass
    out: list[Launch] = []
    for cell in sorted({index for index, _number, _line in code}):
        lines = [entry for entry in code if entry[0] == cell]
        try:
            out += _script_launches(path, lines, variables, kind)
        except PythonUnreadable as exc:
            if any("vllm" in line.lower() for _index, _number, line in lines):
                raise NotebookUnreadable(f"code cell {cell + 1}: {exc}") from None
    return out


def _script_launches(path: str, code: list[tuple[int, int, str]], variables: Variables, kind: str) -> list[Launch]:
    """The launches of code cells read as one script (:class:`PythonUnreadable` when it does not parse)."""
    if not code:
        return []
    names = _python_names("\n".join(line for _cell, _number, line in code))
    script, at = [], []
    i = 0
    while i < len(code):
        cell, number, line = code[i]
        continued = 0
        # IPython joins a line ending in a backslash with the next before it reads a shell escape
        while line.rstrip().endswith("\\") and line.lstrip().startswith(("!", "%")) \
                and i + continued + 1 < len(code) and code[i + continued + 1][0] == cell:
            continued += 1
            line = line.rstrip()[:-1] + " " + code[i + continued][2].strip()
        script.append(_as_python(line, names))
        at.append(number)
        for k in range(1, continued + 1):   # the lines joined into it stay as blank lines
            script.append("")
            at.append(code[i + k][1])
        i += continued + 1
    found = python_launches(path, "\n".join(script), variables, kind)
    return [replace(launch, line=at[launch.line - 1]) for launch in found]


def _python_names(source: str) -> frozenset[str]:
    """Names the notebook's code may bind: IPython evaluates a shell line's fields in the user's namespace (and the
    calling function's locals), so a field naming anything else leaves the line as written.  Read from the code
    with its shell lines as calls (assignments, loop and ``with`` targets, imports, definitions, parameters), and
    from every ``name =`` line when the code does not parse; a name bound anywhere counts."""
    names = set(re.findall(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)", source, re.M))
    script = "\n".join(_as_python(line, frozenset()) for line in source.split("\n"))
    try:
        tree = ast.parse(script)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return frozenset(names)


def _as_python(line: str, names: frozenset[str]) -> str:
    """One line of a code cell as the Python IPython runs for it: a shell escape or shell magic as
    ``os.system(...)`` of its expanded text, ``%env`` as an ``os.environ`` entry, any other magic as ``pass``."""
    stripped = line.lstrip()
    indent = line[:len(line) - len(stripped)]
    assigned = _ASSIGNED_SHELL.match(stripped)
    if assigned:
        return f"{indent}{assigned.group(1)} = os.system({_shell_string(assigned.group(2), names)})"
    if stripped.startswith("!"):
        return f"{indent}os.system({_shell_string(stripped.lstrip('!'), names)})"
    shell = _SHELL_MAGIC.match(stripped)
    if shell:
        return f"{indent}os.system({_shell_string(shell.group(1), names)})"
    env = _ENV_MAGIC.match(stripped)
    if env:
        return f"{indent}os.environ[{env.group(1)!r}] = {env.group(2).strip()!r}"
    if stripped.startswith("%"):
        return f"{indent}pass"
    return line


def _shell_string(command: str, names: frozenset[str]) -> str:
    """Python source of an f-string holding ``command`` as IPython expands it (``InteractiveShell.var_expand``
    with its ``DollarFormatter``): ``{expression}`` fields as ``str.format`` finds them, ``$name`` (and
    ``$name.attr``) in the text between them unless an odd number of ``'`` follows it there, ``$$name`` as
    ``$name``, ``{{``/``}}`` as braces.  Each field is evaluated in the notebook's namespace, and when one cannot
    be (a name the notebook does not bind, ``$TP`` meant for the shell, text that is no expression) IPython
    leaves the whole line as written."""
    try:
        pieces = list(string.Formatter().parse(command))
    except ValueError:
        return _as_written(command)
    parts = []
    for text, field, spec, conversion in pieces:
        last = 0
        for match in _DOLLAR_FIELD.finditer(text):
            if text[match.end():].count("'") % 2:
                continue        # followed by an odd number of single quotes: IPython leaves it
            parts.append(_literal(text[last:match.start()]))
            name = match.group(1)
            if name.startswith("$"):
                parts.append(_literal(name))
            elif re.fullmatch(r"\d+", name):
                parts.append(name)
            elif name.split(".")[0] in names and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", name):
                parts.append("{" + name + "}")
            else:
                return _as_written(command)
            last = match.end()
        parts.append(_literal(text[last:]))
        if field is None:
            continue
        expression = f"{field}:{spec}" if spec else field
        if not _evaluable(expression, names):
            return _as_written(command)
        if _usable(expression):
            parts.append("{" + expression + (f"!{conversion}" if conversion else "") + "}")
        else:
            parts.append(_literal("{" + expression + "}"))
    return 'f"' + "".join(parts) + '"'


def _as_written(command: str) -> str:
    """An f-string of ``command`` as it is: what IPython runs when it cannot expand the line."""
    return 'f"' + _literal(command) + '"'


def _evaluable(expression: str, names: frozenset[str]) -> bool:
    """Whether IPython's ``eval`` of a field can succeed: a Python expression whose names the notebook binds (or
    are builtins)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return False
    bound = {target.id for node in ast.walk(tree) if isinstance(node, (ast.comprehension,))
             for target in ast.walk(node.target) if isinstance(target, ast.Name)}
    bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for arg in node.args.args}
    return all(node.id in names or node.id in bound or hasattr(builtins, node.id)
               for node in ast.walk(tree) if isinstance(node, ast.Name))


def _usable(expression: str) -> bool:
    """An expression that can stand in a double-quoted f-string field on every Python kvguard runs on."""
    return bool(expression.strip()) and not re.search(r'["\\#]', expression)


def _literal(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "{{").replace("}", "}}")
