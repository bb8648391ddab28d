"""Which files are read and as what: walking directories (``SKIP_DIRS``, ``--exclude``), the kind of
a file (its name, its ``#!``, or for standard input its content), the size limit, Go templates
(skipped), and the release pins beside a file.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import Iterable, Iterator, Mapping, Optional

from ..errors import InputError
from ..launch.pins import ReleasePin, beside_pin
from . import yamlnodes
from .compose import is_compose_file, project_env_file
from .configmaps import config_maps_of
from .dockerfile import dockerfile_launches
from .helmtemplates import RENDERED_NOTE, render_chart_template
from .kustomize import kustomized_note
from .makefile import is_makefile_name, makefile_launches
from .markdown import markdown_launches
from .notebook import NotebookUnreadable, is_notebook, notebook_launches
from .python import PythonUnreadable, is_python_script, python_launches
from .result import Launch, Skip
from .shell import shebang_option_words, shell_launches, start_shell_with
from .slurm import batch_job
from .supervisord import is_supervisord_name, supervisord_launches
from .systemd import is_unit_name, unit_launches
from .variables import Variables
from .yamlfiles import YamlWalker

__all__ = ["GO_TEMPLATE_REASON", "KINDS", "MAX_FILE_BYTES", "SKIP_DIRS", "STDIN", "find_launches", "kind_of"]

#: the path that names standard input (``kvguard scan -``)
STDIN = "-"

#: files larger than this are skipped (with a note)
MAX_FILE_BYTES = 5 * 1024 * 1024
#: the same for notebooks, whose cell outputs (images above all) make them large; only their sources are read
MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".env", "env", "__pycache__",
                       ".tox", ".nox", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                       "dist", "build", ".eggs"})


def kind_of(path: str, head: str) -> Optional[str]:
    name = os.path.basename(path)
    low = name.lower()
    if low.endswith((".md", ".markdown")):
        return "markdown"
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.startswith(("dockerfile", "containerfile")) or low.endswith(".dockerfile"):
        return "dockerfile"
    if is_makefile_name(low):
        return "makefile"
    if is_unit_name(low):
        return "systemd"
    if is_supervisord_name(low):
        return "supervisord"
    if low.endswith((".sh", ".bash", ".zsh", ".sbatch", ".slurm")):
        return "shell"
    if head.startswith("#!") and re.match(r"#!.*\b(ba|z|da|k)?sh\b", head.splitlines()[0]):
        return "shell"
    if is_python_script(low, head):
        return "python"
    if is_notebook(low):
        return "notebook"
    return None


#: a Go-template action (Helm chart templates, helmfile ``*.gotmpl``): ``{{ .Values.x }}``,
#: ``{{- include "…" . }}``, ``{{ $var }}``, ``{{/* comment */}}``, ``{{ if … }}`` — Jinja's
#: ``{{ name }}`` (no dot, no Go keyword) is not one
_GO_TEMPLATE = re.compile(r"\{\{-?\s*(?:\.|\$|/\*|(?:include|template|if|else|end|range|with|define|block|"
                          r"toYaml|toJson|tpl|required|default|printf|quote|lookup|nindent|indent)\b)")

#: why a Go-template file is not read (the launch exists only once the chart is rendered)
GO_TEMPLATE_REASON = ("Go template (Helm chart template): launches exist only after rendering; "
                      "scan the rendered output, e.g. `helm template CHART | kvguard scan --stdin-kind yaml -`")


def _exclude_patterns(patterns: Iterable[str], root: Optional[str]) -> tuple[str, ...]:
    """Globs with a ``/`` are paths relative to ``root`` (default: the working directory), made
    absolute here; a bare name (``*.gotmpl``, ``vendor``) matches a file or directory anywhere."""
    base = os.path.abspath(root or ".")
    return tuple(os.path.join(base, p) if "/" in p.rstrip("/") and not os.path.isabs(p) else p
                 for p in patterns)


def _excluded(path: str, patterns: tuple[str, ...]) -> bool:
    """``path`` (or a directory above it) matches one of the (absolute or bare-name) ``patterns``."""
    if not patterns:
        return False
    parts = os.path.abspath(path).replace(os.sep, "/").split("/")
    prefixes = ["/".join(parts[:i]) for i in range(2, len(parts) + 1)]
    for pat in patterns:
        pat = pat.replace(os.sep, "/").rstrip("/")
        if pat.endswith("/**"):
            pat = pat[:-3]
        if "/" in pat:
            if any(fnmatch.fnmatchcase(p, pat) for p in prefixes):
                return True
        elif any(fnmatch.fnmatchcase(part, pat) for part in parts):
            return True
    return False


def _walk(paths: Iterable[str], skipped: list[Skip], exclude: tuple[str, ...] = ()) -> Iterator[tuple[str, bool]]:
    for p in paths:
        if p == STDIN:
            yield p, True
        elif _excluded(p, exclude):
            continue        # excluded even when named (pre-commit names every staged file)
        elif os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                                 and not _excluded(os.path.join(root, d), exclude))
                for f in sorted(files):
                    if not _excluded(os.path.join(root, f), exclude):
                        yield os.path.join(root, f), False
        elif os.path.exists(p):
            yield p, True
        else:
            skipped.append(Skip(p, "unreadable: no such file or directory", fatal=True))


#: the kinds a file can be read as (``--stdin-kind``)
KINDS = ("shell", "markdown", "dockerfile", "yaml", "makefile", "systemd", "supervisord", "python", "notebook")


def _sniff_kind(text: str) -> str:
    """What text on standard input is, when neither a kind nor a file name is given."""
    if re.search(r"^\s*(`{3,}|~{3,})", text, re.M):
        return "markdown"
    if text.lstrip().startswith("{") and re.search(r'^\s*"(cells|worksheets)"\s*:', text, re.M):
        return "notebook"
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    if text.startswith("#!"):
        return "python" if is_python_script("", text[:200]) else "shell"
    if re.match(r"^(import\s|from\s+[\w.]+\s+import\s|(async\s+)?def\s)", first):
        return "python"
    if re.match(r"(?i)^(FROM|ARG)\s", first):
        return "dockerfile"
    if first == "---" or re.match(r"^(apiVersion|kind|services|servingEngineSpec|spec|metadata|model|version)\s*:",
                                  first) or re.search(r"^[A-Za-z_][\w.-]*:\s*$", text, re.M):
        return "yaml"
    return "shell"


def _read_stdin(limit: int) -> str:
    import sys
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read(limit + 1) if stream is not None else sys.stdin.read(limit + 1).encode("utf-8", "replace")
    if len(data) > limit:
        raise InputError(f"standard input is larger than {limit} bytes", source="<stdin>")
    return data.decode("utf-8", "replace")


#: a Go-template action of KServe's own (``{{.Name}}`` in a ServingRuntime's ``args``): the controller fills it from
#: the InferenceService's metadata when it makes the pod (kserve/kserve, ``replacePlaceholders``); the file is
#: applied as written, no chart renders it
_KSERVE_PLACEHOLDER = re.compile(r"\{\{\s*\.(?:Name|Namespace|Labels\.[\w.-]+|Annotations\.[\w.-]+)\s*\}\}")
_TEMPLATE_ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _kserve_placeholders_only(text: str, kind: str) -> bool:
    """A KServe manifest (``serving.kserve.io/``) whose only ``{{…}}`` are KServe's metadata placeholders."""
    return kind == "yaml" and "serving.kserve.io/" in text and \
        all(_KSERVE_PLACEHOLDER.fullmatch(m.group(0)) for m in _TEMPLATE_ACTION.finditer(text))


def _text_launches(path: str, text: str, kind: str, explicit: bool, overrides: Mapping[str, str],
                   skipped: list[Skip], strategies_from: Optional[str]) -> tuple[bool, list[Launch]]:
    if kind not in ("markdown", "notebook") and _GO_TEMPLATE.search(text) and not _kserve_placeholders_only(text, kind):
        rendered = render_chart_template(path, text) if kind == "yaml" and path != STDIN else None
        if rendered is not None:
            # a chart's template holding only what kvguard renders as Helm does, with the chart's values.yaml
            read, found = _text_launches(path, rendered.text, kind, explicit, overrides, skipped, strategies_from)
            for launch in found:
                launch.line = rendered.lines[launch.line - 1] if 0 < launch.line <= len(rendered.lines) \
                    else launch.line
                launch.notes = launch.notes + (RENDERED_NOTE,)
            return read, found
        # not a deployment file yet: its values are filled in by `helm template`/`helm install`;
        # never fatal, so a chart in the repository does not fail a pre-commit run that names it
        skipped.append(Skip(path, GO_TEMPLATE_REASON))
        return False, []
    lines = list(enumerate(text.split("\n"), start=1))
    variables = Variables(overrides)
    if kind == "markdown":
        return True, markdown_launches(path, lines, variables)
    if kind == "dockerfile":
        return True, dockerfile_launches(path, lines, variables)
    if kind == "makefile":
        return True, makefile_launches(path, lines, variables)
    if kind == "systemd":
        return True, unit_launches(path, lines, variables)
    if kind == "supervisord":
        return True, supervisord_launches(path, lines, variables)
    if kind in ("python", "notebook"):
        try:
            return True, (python_launches if kind == "python" else notebook_launches)(path, text, variables)
        except (PythonUnreadable, NotebookUnreadable) as exc:
            skipped.append(Skip(path, f"unreadable: {exc}", fatal=explicit))
            return False, []
    if kind == "yaml":
        yaml = yamlnodes.load_yaml()
        if yaml is None:
            skipped.append(Skip(path, "YAML not read: PyYAML is not installed (pip install 'kvguard[yaml]')",
                                fatal=explicit))
            return False, []
        out: list[Launch] = []
        if path != STDIN and is_compose_file(path):
            for name, value in project_env_file(path).items():
                variables.set_known(name, value)     # below --set, which stands for the shell's environment
        try:
            docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
            maps = config_maps_of([yamlnodes.to_python(doc) for doc in docs if doc is not None])
            for doc in docs:
                if doc is not None:
                    out += YamlWalker(path, 0, variables, "yaml", strategies_from, maps).walk_root(doc)
        except yaml.YAMLError as exc:
            skipped.append(Skip(path, f"unreadable: invalid YAML: {str(exc).splitlines()[0]}", fatal=explicit))
            return False, []
        except RecursionError:  # nested too deeply, or an alias that contains itself (`a: &a [*a]`)
            skipped.append(Skip(path, "unreadable: YAML nested too deeply or self-referencing", fatal=explicit))
            return False, []
        note = kustomized_note(path) if out and path != STDIN else None
        if note is not None:
            for launch in out:
                launch.notes = launch.notes + (note,)
        return True, out
    # run as a program (`./serve.sh`, `sbatch serve.sh`), the script's shell takes the options of its `#!` line
    start_shell_with(variables, shebang_option_words(lines[0][1]))
    job = batch_job(lines)
    if job is None:
        return True, shell_launches(path, lines, variables, "shell")
    launches = shell_launches(path, lines, variables.with_environment(job.environment()), "shell")
    if job.gpus is not None:
        for launch in launches:
            if launch.gpus is None:
                launch.give_gpus(job.gpus, job.gpus_source, "each node of the Slurm job")
    return True, launches


def _file_launches(path: str, explicit: bool, overrides: Mapping[str, str],
                   skipped: list[Skip]) -> tuple[bool, list[Launch]]:
    kind = kind_of(path, "")
    if kind is None:        # no telling name: a shell script only with a shell #! line
        try:
            with open(path, "rb") as fh:
                head = fh.read(256).decode("utf-8", "replace")
        except OSError as exc:
            if explicit:
                skipped.append(Skip(path, f"unreadable: {exc.strerror or exc}", fatal=True))
            return False, []
        kind = kind_of(path, head)
    if kind is None and not explicit:
        return False, []
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        skipped.append(Skip(path, f"unreadable: {exc.strerror or exc}", fatal=explicit))
        return False, []
    if kind is None:
        if not explicit:
            return False, []
        kind = "shell"
    limit = MAX_NOTEBOOK_BYTES if kind == "notebook" else MAX_FILE_BYTES
    if size > limit:
        skipped.append(Skip(path, f"too large: {size} bytes (limit {limit})"))
        return False, []
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        skipped.append(Skip(path, f"unreadable: {exc}", fatal=explicit))
        return False, []
    return _text_launches(path, text, kind, explicit, overrides, skipped, path)


def find_launches(paths: Iterable[str], variables: Optional[Mapping[str, str]] = None, *,
                  exclude: Iterable[str] = (), exclude_root: Optional[str] = None,
                  stdin_text: Optional[str] = None, stdin_kind: Optional[str] = None,
                  stdin_filename: Optional[str] = None) -> tuple[list[Launch], list[Skip], int]:
    """Every launch under ``paths``: (launches sorted by file and line, skipped files, files read).

    ``-`` among ``paths`` reads standard input (``stdin_text`` when given): as ``stdin_kind``
    (shell, markdown, dockerfile, yaml), else as the kind ``stdin_filename`` has, else as its
    content looks; findings name ``stdin_filename`` (default ``<stdin>``), and release pins beside
    that file apply.  ``exclude``: globs of paths not to read, relative to ``exclude_root``."""
    skipped: list[Skip] = []
    launches: list[Launch] = []
    files = 0
    beside: dict[str, Optional[ReleasePin]] = {}
    problems: list[tuple[str, str]] = []
    for path, explicit in _walk(paths, skipped, _exclude_patterns(exclude, exclude_root)):
        if path == STDIN:
            text = stdin_text if stdin_text is not None else _read_stdin(MAX_FILE_BYTES)
            name = stdin_filename or "<stdin>"
            kind = stdin_kind or (kind_of(stdin_filename, text[:256]) if stdin_filename else None) or _sniff_kind(text)
            if kind not in KINDS:
                raise InputError(f"unknown kind {kind!r} for standard input (known: {', '.join(KINDS)})",
                                 source="<stdin>")
            read, found = _text_launches(name, text, kind, True, variables or {}, skipped, stdin_filename)
            here = os.path.dirname(stdin_filename) if stdin_filename else None
        else:
            read, found = _file_launches(path, explicit, variables or {}, skipped)
            here = os.path.dirname(path)
        files += read
        for launch in found:
            if launch.pin is None and here is not None:
                if here not in beside:      # requirements / pyproject pins beside the file
                    beside[here] = beside_pin(here, problems)
                launch.pin = beside[here]
        launches += sorted(found, key=lambda found_launch: found_launch.line)
    for where, why in dict.fromkeys(problems):
        skipped.append(Skip(where, why))
    return _rendered_charts_only(_run_by_an_image_only(launches)), skipped, files


def _rendered_charts_only(launches: "list[Launch]") -> "list[Launch]":
    """``launches`` without the guesses from a chart's ``values.yaml`` (:mod:`~kvguard.scan.helm`) when a template of
    that chart was rendered into a launch (:mod:`~kvguard.scan.helmtemplates`): the rendering is what Helm starts."""
    charts = {os.path.dirname(os.path.dirname(os.path.abspath(launch.path))) for launch in launches
              if RENDERED_NOTE in launch.notes}
    if not charts:
        return launches
    return [launch for launch in launches if os.path.basename(launch.path) != "values.yaml"
            or os.path.dirname(os.path.abspath(launch.path)) not in charts]


def _run_by_an_image_only(launches: "list[Launch]") -> "list[Launch]":
    """``launches`` without a script's own reading of a launch that a Dockerfile's image runs (found when the
    Dockerfile is read, in the image's environment: :func:`~kvguard.scan.dockerfile.script_run_by_the_image`)."""
    by_image = {(os.path.abspath(launch.path), launch.line) for launch in launches
                if launch.kind == "dockerfile" and kind_of(launch.path, "") != "dockerfile"}
    if not by_image:
        return launches
    return [launch for launch in launches
            if launch.kind != "shell" or (os.path.abspath(launch.path), launch.line) not in by_image]
