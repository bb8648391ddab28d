"""GitHub Actions workflows: a document whose ``jobs`` hold ``steps``.

A ``run:`` step is a shell script that GitHub runs (with ``set -e`` on, as its shells run it on a runner that is
no Windows one; a ``shell`` command of the workflow's own, ``bash -eu {0}``, with the ``set -e`` / ``set -u`` its
options give) after substituting its ``${{ … }}`` expressions, in an environment made of the workflow's, the
job's and the step's ``env`` (the innermost wins), once for every combination of the job's ``strategy.matrix``
(``include`` / ``exclude`` as GitHub applies them).
``${{ matrix.X }}`` and ``${{ env.X }}`` are substituted here; any other expression (``secrets.*``,
``inputs.*``, ``vars.*``, functions) is a value the file does not hold: the launch stays unresolved when
it reaches something kvguard reads, as an unresolved shell variable does (``--set inputs.tp=8`` gives
``${{ inputs.tp }}``; ``--set TP=8`` wins over ``env`` as over a script's assignments).  A job's ``container`` image
pins the release its steps run (unless a step pins one itself), and its ``env`` is the environment below theirs.  A step whose ``shell`` (or the job's or the
workflow's ``defaults.run.shell``) is ``python`` runs its script as Python (:mod:`kvguard.scan.python`).
"""

from __future__ import annotations

import itertools
import re
import shlex
from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import image_pin
from .matrices import Collector
from .python import python_launches
from .shell import shell_command_options, shell_launches, start_shell_with
from .variables import env_text
from .yamlnodes import child, to_python

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .yamlfiles import YamlWalker

__all__ = ["MAX_COMBINATIONS", "is_workflow", "matrix_combinations", "workflow_launches"]

#: matrix combinations read per job (GitHub's own limit is 256 jobs per workflow run)
MAX_COMBINATIONS = 256

#: ``${{ expression }}`` (bounded: a stray ``${{`` costs one short look ahead)
_EXPRESSION = re.compile(r"\$\{\{([^}]{0,500})\}\}")
_PATH = re.compile(r"^(matrix|env)((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)$")


def is_workflow(plain: Any) -> bool:
    """A mapping with ``jobs`` of which one at least has a ``steps`` list."""
    jobs = plain.get("jobs") if isinstance(plain, dict) else None
    return isinstance(jobs, dict) and any(isinstance(job, dict) and isinstance(job.get("steps"), list)
                                          for job in jobs.values())


def matrix_combinations(matrix: Any) -> Optional[list[dict]]:
    """The combinations ``strategy.matrix`` runs, as GitHub expands it; ``[{}]`` without a matrix; None when
    the file does not say (an expression such as ``${{ fromJSON(…) }}``)."""
    if matrix is None:
        return [{}]
    if not isinstance(matrix, dict):
        return None
    axes = {k: v for k, v in matrix.items() if k not in ("include", "exclude")}
    if not all(isinstance(v, list) for v in axes.values()):
        return None
    combos = [dict(zip(axes, values)) for values in itertools.product(*axes.values())] if axes else []
    for rule in matrix.get("exclude") or []:
        if isinstance(rule, dict):
            combos = [c for c in combos if not all(c.get(k) == v for k, v in rule.items())]
    added: list[dict] = []
    for extra in matrix.get("include") or []:
        if not isinstance(extra, dict):
            continue
        # an entry extends every original combination whose original values it matches (never overwriting
        # one of those; a value an earlier entry added can be), else it is a combination of its own
        matched = [c for c in combos if all(c.get(k) == v for k, v in extra.items() if k in axes)]
        for c in matched:
            c.update({k: v for k, v in extra.items() if k not in axes})
        if not matched:
            added.append(dict(extra))
    return combos + added or ([{}] if not axes else [])


def _lookup(path: str, matrix: Optional[dict], env: dict[str, Optional[str]],
            overrides: "Mapping[str, str]") -> Optional[str]:
    if path in overrides:       # --set inputs.tp=8 gives ${{ inputs.tp }}
        return overrides[path]
    m = _PATH.match(path)
    if m is None:
        return None
    parts = m.group(2)[1:].split(".")
    if m.group(1) == "env":
        if len(parts) != 1:
            return None
        return overrides[parts[0]] if parts[0] in overrides else env.get(parts[0])
    value: Any = matrix
    for part in parts:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if isinstance(value, bool):
        return str(value).lower()
    return None if isinstance(value, (dict, list)) or value is None else str(value)


#: an operand of ``||``: a string, a number, ``true`` / ``false`` / ``null``, or a context path
_LITERAL = re.compile(r"^'((?:[^']|'')*)'$|^(-?[0-9]+(?:\.[0-9]+)?)$|^(true|false|null)$")
_MISSING = object()


def _operand(text: str, matrix: Optional[dict], env: dict[str, Optional[str]],
             overrides: "Mapping[str, str]") -> Any:
    """An operand's value as the expression gives it to ``||`` (None for ``null``; :data:`_MISSING` when this
    file does not say)."""
    m = _LITERAL.match(text)
    if m:
        if m.group(1) is not None:
            return m.group(1).replace("''", "'")
        if m.group(2) is not None:
            return float(m.group(2)) if "." in m.group(2) else int(m.group(2))
        return {"true": True, "false": False, "null": None}[m.group(3)]
    path = _PATH.match(text)
    key = path.group(2)[1:] if path and path.group(1) == "matrix" else None
    if key is not None and text not in overrides and isinstance(matrix, dict) and "." not in key:
        value = matrix.get(key)     # a key this combination does not have is null
        return value if value is None or isinstance(value, (str, int, float, bool)) else _MISSING
    value = _lookup(text, matrix, env, overrides)
    return value if value is not None else _MISSING


def _either(expression: str, matrix: Optional[dict], env: dict[str, Optional[str]],
            overrides: "Mapping[str, str]") -> Optional[str]:
    """``a || b || …``: the first operand that is not falsy (``false``, ``0``, ``''``, ``null``), else the last,
    as GitHub evaluates it; None when an operand it needs is not in the file."""
    operands = [part.strip() for part in expression.split("||")]
    value: Any = None
    for operand in operands:
        value = _operand(operand, matrix, env, overrides)
        if value is _MISSING:
            return None
        if value is not None and value is not False and value != "" and value != 0:
            break
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _substitute(text: str, matrix: Optional[dict], env: dict[str, Optional[str]],
               overrides: "Mapping[str, str]") -> tuple[str, list[str]]:
    """``text`` with the expressions this file holds substituted; each other one written as one word
    (``${{secrets.TP}}``), returned as unresolved."""
    unresolved: list[str] = []

    def sub(m: re.Match) -> str:
        expression = m.group(1).strip()
        value = _lookup(expression, matrix, env, overrides)
        if value is None and "||" in expression and not re.search(r"'[^']*\|\|", expression):
            value = _either(expression, matrix, env, overrides)     # (no `||` inside a string)
        if value is not None:
            return value
        word = "${{" + re.sub(r"\s+", "", m.group(1)) + "}}"
        unresolved.append(word)
        return word

    return _EXPRESSION.sub(sub, text), unresolved


def _env(plain: Any, matrix: Optional[dict], outer: dict[str, Optional[str]],
         overrides: "Mapping[str, str]") -> dict[str, Optional[str]]:
    """``outer`` with an ``env`` mapping's entries over it (a value the file does not hold: None)."""
    out = dict(outer)
    if not isinstance(plain, dict):
        return out
    for name, value in plain.items():
        if not isinstance(name, str) or isinstance(value, (dict, list)):
            continue
        text = env_text(value)
        text, unresolved = _substitute(text, matrix, out, overrides)
        out[name] = None if unresolved else text
    return out


def _step_shell(step: dict, job: dict, workflow: dict) -> object:
    """A ``run:`` step's ``shell``, else the job's, else the workflow's ``defaults.run.shell`` (None: none)."""
    shell = step.get("shell")
    for holder in (job, workflow):
        if shell is None:
            defaults = holder.get("defaults")
            run = defaults.get("run") if isinstance(defaults, dict) else None
            shell = run.get("shell") if isinstance(run, dict) else None
    return shell


def _runs_python(step: dict, job: dict, workflow: dict) -> bool:
    """Whether a ``run:`` step's script is Python: its shell (:func:`_step_shell`) is ``python`` or a ``python …
    {0}`` command."""
    shell = _step_shell(step, job, workflow)
    return isinstance(shell, str) and re.match(r"^\s*python[0-9.]*(?:\s|$)", shell) is not None


#: the command lines GitHub runs a step's script with on a runner that is no Windows one, by its ``shell``: none
#: named (``bash -e {0}``; in a container ``sh -e {0}``, the same options), ``bash``, ``sh``
_SHELL_COMMANDS = {None: "bash -e {0}", "bash": "bash --noprofile --norc -eo pipefail {0}", "sh": "sh -e {0}"}


def _shell_options(step: dict, job: dict, workflow: dict) -> list[str]:
    """The option words of the shell GitHub runs a shell step with (``bash -eu {0}``: ``["-eu", "{0}"]``): on a
    runner that is no Windows one, its shell's command line (:data:`_SHELL_COMMANDS`, or a ``bash`` / ``sh``
    command of the workflow's own, split into words as GitHub splits it); none where kvguard cannot tell (a
    Windows runner's default is PowerShell; a runner kvguard cannot read)."""
    runner = job.get("runs-on")
    labels = [runner] if isinstance(runner, str) else runner if isinstance(runner, list) else []
    if not labels or not all(isinstance(label, str) and "${{" not in label and "windows" not in label.lower()
                             for label in labels):
        return []
    shell = _step_shell(step, job, workflow)
    command = _SHELL_COMMANDS.get(shell, shell) if shell is None or isinstance(shell, str) else None
    if not isinstance(command, str):
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    return shell_command_options(words)


def workflow_launches(walker: "YamlWalker", node, plain: dict) -> None:
    """Every ``run:`` step of every job, once per matrix combination (:func:`matrix_combinations`)."""
    jobs = child(node, "jobs")
    overrides = walker.variables.overrides
    for _key, job_node in getattr(jobs, "value", []):
        job = to_python(job_node)
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue
        strategy = job.get("strategy")
        combos = matrix_combinations(strategy.get("matrix") if isinstance(strategy, dict) else None)
        known = combos is not None
        combos = (combos or [{}])[:MAX_COMBINATIONS]
        container = job.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        pin = image_pin(image, f"{walker.path}:{walker.line(child(job_node, 'container') or job_node)}") \
            if isinstance(image, str) else None
        found = Collector()
        for combo in combos:
            matrix = combo if known else None
            job_env = _env(job.get("env"), matrix, _env(plain.get("env"), matrix, {}, overrides), overrides)
            # the job's container is created with its own `env`; each step runs in it with the workflow's, job's
            # and step's `env` over that (they alone make the `env` context of `${{ env.X }}`)
            container_env = _env(container.get("env"), matrix, {}, overrides) if isinstance(container, dict) else {}
            carried = pin     # the steps of a job share a machine: a `pip install vllm==X` holds for the next
            for index, step in enumerate(job["steps"]):
                run_node = child(job_node, "steps", index, "run")
                if not isinstance(step, dict) or not isinstance(step.get("run"), str) or run_node is None:
                    continue
                walker.handled.add(id(run_node))
                env = _env(step.get("env"), matrix, job_env, overrides)
                script, unresolved = _substitute(step["run"], matrix, env, overrides)
                scope = walker.variables.with_environment({**container_env, **env})
                scope.pin = carried
                first = walker.line(run_node) + (1 if run_node.style in ("|", ">") else 0)
                lines = [(first + i, t) for i, t in enumerate(script.split("\n"))]
                if _runs_python(step, job, plain):
                    found_here = python_launches(walker.path, script, scope, walker.kind)
                    for launch in found_here:
                        launch.line += first - 1
                else:
                    start_shell_with(scope, _shell_options(step, job, plain))
                    found_here = shell_launches(walker.path, lines, scope, walker.kind)
                for launch in found_here:
                    words = [w for w in unresolved if any(w in t for t in launch.tokens)]
                    # the shell's own reading of an expression left in place (`${{inputs.tp}` of a "bad
                    # substitution") is not what the launch lacks: the expression's value is
                    launch.unresolved = tuple(dict.fromkeys(
                        [u for u in launch.unresolved
                         if not any(u != w and u.startswith("${{") and w.startswith(u) for w in words)] + words))
                    found.add(combo, launch)
                carried = scope.pin
        walker.out += found.launches()
