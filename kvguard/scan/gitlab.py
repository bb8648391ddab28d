"""GitLab CI pipelines (``.gitlab-ci.yml``, or a document with ``stages`` / jobs with a ``stage``).

A job's ``before_script`` (else ``default:before_script``) and ``script`` run in one shell, in an
environment made of the pipeline's ``variables``, the job's, and one combination of its
``parallel:matrix``; ``extends`` merges the named jobs first (mappings deeply, other values replaced),
as GitLab does.  Hidden jobs (``.name``) do not run.  The job's ``image`` (else ``default:image`` or
the top-level ``image``) pins the release, unless its script pins one (``pip install vllm==X``).
GitLab expands the ``$X`` references among the variables' values (``$$`` is a ``$`` it leaves; a variable with
``expand: false`` is a raw value), and the job's shell expands the script.
Predefined variables (``$CI_…``) and ones set in the project's settings are not in the file: a launch
that reads them stays unresolved unless ``--set`` gives them.  ``!reference`` tags are not followed.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import TYPE_CHECKING, Any, Collection, Optional

from ..launch.pins import image_pin
from .matrices import Collector
from .shell import shell_launches
from .variables import LITERAL_DOLLAR, Variables, env_text
from .yamlnodes import child

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .yamlfiles import YamlWalker

__all__ = ["MAX_COMBINATIONS", "gitlab_launches", "is_gitlab_ci", "matrix_combinations"]

#: GitLab's own limit on the jobs one parallel:matrix makes
MAX_COMBINATIONS = 200

#: top-level keys that are not jobs
_KEYWORDS = frozenset({"default", "include", "stages", "variables", "workflow", "image", "services", "cache",
                       "before_script", "after_script", "pages", "spec"})


def plain_value(node) -> Any:
    """A composed node as plain Python; a tag the safe loader does not know (``!reference``) as None."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor(None, lambda loader, tagged: None)
    try:
        return _Loader(" ").construct_document(node)
    except Exception:  # noqa: BLE001 - anything odd: not a pipeline
        return None


def is_gitlab_ci(path: str, plain: Any) -> bool:
    """A mapping of jobs with ``script``, in a file named ``.gitlab-ci.yml`` or with GitLab's ``stages``."""
    if not isinstance(plain, dict):
        return False
    jobs = [v for k, v in plain.items() if k not in _KEYWORDS and isinstance(v, dict)]
    if not any("script" in job for job in jobs):
        return False
    return os.path.basename(path).startswith(".gitlab-ci") or "stages" in plain or \
        any("stage" in job for job in jobs)


def _merged(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _parents(job: dict) -> list[str]:
    ext = job.get("extends")
    return [ext] if isinstance(ext, str) else [e for e in ext if isinstance(e, str)] if isinstance(ext, list) else []


def _resolved(name: str, plain: dict, seen: tuple[str, ...] = ()) -> dict:
    """The job ``name`` with what it ``extends`` merged under it (a cycle or a missing name: left out)."""
    job = plain.get(name)
    if not isinstance(job, dict) or name in seen:
        return {}
    out: dict = {}
    for parent in _parents(job):
        out = _merged(out, _resolved(parent, plain, seen + (name,)))
    return _merged(out, {k: v for k, v in job.items() if k != "extends"})


def _owner(name: str, key: str, plain: dict, seen: tuple[str, ...] = ()) -> Optional[str]:
    """The job whose ``key`` the merged job ``name`` holds (itself, else the last parent that sets it)."""
    job = plain.get(name)
    if not isinstance(job, dict) or name in seen:
        return None
    if key in job:
        return name
    for parent in reversed(_parents(job)):
        found = _owner(parent, key, plain, seen + (name,))
        if found is not None:
            return found
    return None


def matrix_combinations(parallel: Any) -> list[dict]:
    """The variable sets ``parallel:matrix`` runs (each entry: the product of its lists); ``[{}]`` without."""
    entries = parallel.get("matrix") if isinstance(parallel, dict) else None
    if not isinstance(entries, list):
        return [{}]
    combos: list[dict] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        axes = {k: v if isinstance(v, list) else [v] for k, v in entry.items() if isinstance(k, str)}
        combos += [dict(zip(axes, values)) for values in itertools.product(*axes.values())]
    return combos or [{}]


def _text(value: Any) -> Optional[str]:
    """A variable's value as GitLab passes it (``{value: …}`` form included); None for one it cannot hold."""
    if isinstance(value, dict):
        value = value.get("value", "")
    if isinstance(value, (dict, list)):
        return None
    return env_text(value)


def _script_lines(walker: "YamlWalker", root, owner: Optional[str], key: str, plain: dict) -> list[tuple[int, str]]:
    """(line, command) of the ``key`` list (or string) the job ``owner`` sets (``default`` for defaults)."""
    if owner is None:
        return []
    value = plain.get(owner, {}).get(key)
    node = child(root, owner, key)
    if isinstance(value, str) and node is not None:
        first = walker.line(node) + (1 if node.style in ("|", ">") else 0)
        walker.handled.add(id(node))
        return [(first + i, t) for i, t in enumerate(value.split("\n"))]
    lines: list[tuple[int, str]] = []
    if not isinstance(value, list) or node is None:
        return lines
    walker.handled.add(id(node))
    for index, item in enumerate(value):
        item_node = child(root, owner, key, index)
        if not isinstance(item, str) or item_node is None:
            continue        # a nested list (!reference) is not followed
        first = walker.line(item_node) + (1 if item_node.style in ("|", ">") else 0)
        lines += [(first + i, t) for i, t in enumerate(item.split("\n"))]
    return lines


def gitlab_launches(walker: "YamlWalker", root) -> None:
    """Every job's script, once per ``parallel:matrix`` combination."""
    plain = plain_value(root)
    if not isinstance(plain, dict):
        return
    found_defaults = plain.get("default")
    defaults: dict = found_defaults if isinstance(found_defaults, dict) else {}
    for name in plain:
        if not isinstance(name, str) or name in _KEYWORDS or name.startswith("."):
            continue
        job = _resolved(name, plain)
        if "script" not in job:
            continue
        if "image" in job:
            image, where = job["image"], child(root, _owner(name, "image", plain) or name, "image")
        elif "image" in defaults:
            image, where = defaults["image"], child(root, "default", "image")
        else:
            image, where = plain.get("image"), child(root, "image")
        image_name = image.get("name") if isinstance(image, dict) else image
        where = where or child(root, name)
        pin = image_pin(image_name, f"{walker.path}:{walker.line(where)}") if isinstance(image_name, str) else None
        if "before_script" in job:
            before = _script_lines(walker, root, _owner(name, "before_script", plain), "before_script", plain)
        else:
            before = _script_lines(walker, root, "default" if "before_script" in defaults else None,
                                   "before_script", plain)
        lines = before + _script_lines(walker, root, _owner(name, "script", plain), "script", plain)
        found = Collector()
        for combo in matrix_combinations(job.get("parallel"))[:MAX_COMBINATIONS]:
            raw: dict[str, Optional[str]] = {}
            as_written: set[str] = set()       # `expand: false`: a raw value, its `$X` not expanded
            for source in (plain.get("variables"), job.get("variables")):
                for var, value in source.items() if isinstance(source, dict) else ():
                    if isinstance(var, str):
                        raw[var] = _text(value)
                        if isinstance(value, dict) and value.get("expand") is False:
                            as_written.add(var)
                        else:
                            as_written.discard(var)
            # a matrix value is a string (or a number): anything else is not a value GitLab runs the job with
            raw.update({var: None if isinstance(value, (dict, list)) else _text(value) for var, value in combo.items()})
            scope = walker.variables.with_environment(_expanded(raw, walker.variables.overrides, as_written))
            scope.pin = pin
            for launch in shell_launches(walker.path, lines, scope, walker.kind):
                found.add(combo, launch)
        walker.out += found.launches()


#: a ``${…}`` that is more than a name: the runner's expansion (Go's ``os.Expand``) looks the whole text up as a
#: variable's name, so ``${GPUS:-8}`` is no default
_SHELL_OPERATOR = re.compile(r"\$\{[A-Za-z_]\w*[^\w}][^}]*\}")


def _expanded(raw: "dict[str, Optional[str]]", overrides: "Mapping[str, str]",
              as_written: "Collection[str]" = ()) -> "dict[str, Optional[str]]":
    """The job's variables with the references among them expanded, as GitLab expands them once all are
    set (a pipeline variable may name a job's); None for one that refers to a value the file does not hold.
    ``$$`` is a ``$`` GitLab leaves as it is; the ``as_written`` ones (``expand: false``) are not expanded, and one
    with a shell operator (``${X:-d}``) is not known."""
    values: dict[str, str] = {var: text for var, text in raw.items() if var in as_written and text is not None}
    for _ in range(len(raw) + 1):
        changed = False
        for var, text in raw.items():
            if var in values or text is None:
                continue
            probe = Variables(overrides)
            probe.local = dict(values)
            if _SHELL_OPERATOR.search(text):
                continue        # `${X:-8}`: the runner's expansion has no operators (not the shell's default)
            expanded, missing = probe.expand(text.replace("$$", LITERAL_DOLLAR))
            if not missing:
                values[var] = expanded
                changed = True
        if not changed:
            break
    return {var: values.get(var) for var in raw}
