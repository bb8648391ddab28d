"""Dockerfiles (``Dockerfile*``, ``*.dockerfile``, ``Containerfile``): ``RUN``, ``CMD`` and
``ENTRYPOINT`` in shell and exec form, ``ENV``/``ARG`` defaults, and the ``vllm/vllm-openai`` base
image's ``vllm serve`` entrypoint.

Read from the Dockerfile reference ("ENTRYPOINT", "CMD", "Understand how CMD and ENTRYPOINT interact",
"ARG", "Environment replacement", "Multi-stage builds"):

- the container runs the last stage's ``ENTRYPOINT`` and ``CMD`` (the last of each; ``FROM name`` starts from
  an earlier stage's); an ``ENTRYPOINT`` resets a ``CMD`` the stage has not set itself;
- exec form (``["vllm", "serve", "$M"]``) runs as written: no shell, and Docker substitutes nothing, so ``$M``
  reaches vLLM as it is; shell form runs as ``SHELL`` (``/bin/sh -c``) with the text (``SHELL ["/bin/bash",
  "-eu", "-c"]``: ``set -e`` and ``set -u``);
- a shell-form ``ENTRYPOINT`` ignores ``CMD``; an exec-form one (the vLLM image's ``vllm serve`` included) is
  given a shell-form ``CMD`` as ``/bin/sh -c TEXT``, three more arguments;
- ``ARG`` values are the build's: ``RUN`` sees them, the running container does not (its ``CMD`` /
  ``ENTRYPOINT`` shell sees the ``ENV`` values only); an ``ARG`` above the first ``FROM`` is for the ``FROM``
  lines, and a stage sees it only where it declares it again (``ARG NAME``); an ``ARG`` or ``ENV`` of one stage
  is not in the next unless that one starts ``FROM`` it (``ENV`` only);
- a container that runs a script (``CMD ["/start.sh"]``, ``ENTRYPOINT ["bash", "/app/serve.sh"]``) the image got
  by ``COPY`` / ``ADD`` from the build context (taken to be the Dockerfile's directory) runs it with the image's
  ``ENV`` exported: its launches are read from that file beside the Dockerfile, in that environment, and stand for
  the file's own reading (:func:`script_run_by_the_image`; ``COPY --from`` / a URL / a glob are not followed).

An excerpt without ``FROM`` (a README's) is read as one stage on an image kvguard does not know.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Optional

from ..launch.pins import ReleasePin, image_pin
from .beside import read_beside
from .result import Launch
from .shell import (
    IMAGE_RUNS_FIRST,
    launch_tokens,
    logical_lines,
    shebang_option_words,
    shell_command_options,
    shell_launches,
    start_shell_with,
)
from .variables import ENV_TOKEN, Variables

__all__ = ["dockerfile_launches"]

_LITERAL_REFERENCE = re.compile(r"\$(?:\{|\(|[A-Za-z_])")
_DEFAULT_SHELL = ("/bin/sh", "-c")
_SHELLS = (["/bin/sh", "-c"], ["sh", "-c"], ["/bin/bash", "-c"], ["bash", "-c"])

SHELL_CMD_AFTER_ENTRYPOINT = ("shell-form CMD after an exec-form ENTRYPOINT: the entrypoint is given `/bin/sh -c` "
                              "and the CMD's text as three more arguments (write CMD in exec form)")


@dataclass
class _Instruction:
    """A ``CMD`` or ``ENTRYPOINT``: its line, and its exec-form words or its shell-form text."""

    line: int
    words: Optional[list[str]]
    text: str = ""


@dataclass
class _Stage:
    """What a build stage ends with, which a later ``FROM name`` starts from."""

    vllm_image: bool = False
    pin: Optional[ReleasePin] = None
    image_release: Optional[ReleasePin] = None  # the base image's own pin: its tag decides the ENTRYPOINT
    entry: Optional[_Instruction] = None
    cmd: Optional[_Instruction] = None
    shell: tuple[str, ...] = _DEFAULT_SHELL
    #: the ``ENV`` values the image holds (None: one kvguard cannot know)
    env: dict[str, Optional[str]] = field(default_factory=dict)
    #: what ``COPY`` / ``ADD`` put in the image from the build context: (path in the image, path in the context)
    copied: list[tuple[str, str]] = field(default_factory=list)
    workdir: str = "/"


def _docker_args(rest: str) -> tuple[Optional[list[str]], str]:
    """(exec-form tokens, shell-form text): one of them is set."""
    rest = rest.strip()
    if rest.startswith("["):
        try:
            value = json.loads(rest)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value, ""
        except ValueError:
            pass
    return None, rest


def _arg_entries(rest: str) -> list[tuple[str, Optional[str]]]:
    """The ``NAME[=default]`` entries of an ``ARG`` line (None: no default)."""
    entries: list[tuple[str, Optional[str]]] = []
    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)(?:=(\"[^\"]*\"|'[^']*'|\S*))?", rest):
        entries.append((m.group(1), m.group(2)))
    return entries


def _env_entries(rest: str) -> list[tuple[str, str]]:
    pairs = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)", rest)
    if not pairs:
        parts = rest.split(None, 1)
        if len(parts) == 2:
            pairs = [(parts[0], parts[1])]
    return pairs


def _stage_scope(overrides: dict, stage: _Stage) -> Variables:
    """The build's variables at the start of a stage: the ``ENV`` it inherits, exported."""
    scope = Variables(overrides).with_environment(stage.env)
    scope.pin = stage.pin
    return scope


def dockerfile_launches(path: str, lines: list[tuple[int, str]], variables: Variables,
                        kind: str = "dockerfile") -> list[Launch]:
    out: list[Launch] = []
    overrides = dict(variables.overrides)
    global_args = Variables(overrides)      # the ARGs above the first FROM: for the FROM lines
    global_args.pin = variables.pin
    stages: dict[str, _Stage] = {}
    current: Optional[_Stage] = None
    name: Optional[str] = None
    scope = global_args
    cmd_set = False                         # the stage sets CMD itself (an ENTRYPOINT keeps it)
    for lineno, text in logical_lines(lines, dockerfile=True):
        m = re.match(r"^\s*([A-Za-z]+)\s+(.*)$", text)
        if not m:
            continue
        instr, rest = m.group(1).upper(), m.group(2)
        if current is None and instr in ("ENV", "SHELL", "CMD", "ENTRYPOINT"):
            # an excerpt without FROM (a README's): one stage, on an image kvguard does not know
            current = _Stage(pin=variables.pin)
            scope = Variables(overrides, global_args)
        if instr == "FROM":
            if current is not None:
                current.pin = scope.pin     # a `pip install vllm==X` in the stage pins the release
                if name is not None:
                    stages[name] = current
            # FROM [--platform=…] IMAGE [AS NAME]; an ARG above the first FROM may name the tag
            words = [w for w in global_args.expand(rest)[0].split() if not w.startswith("--")]
            image = words[0] if words else ""
            if image.lower() in stages:
                current = replace(stages[image.lower()], env=dict(stages[image.lower()].env),
                                  copied=list(stages[image.lower()].copied))
            else:
                pin = image_pin(image, f"{path}:{lineno}")
                current = _Stage(vllm_image="vllm/vllm-openai" in image, pin=pin, image_release=pin)
            name = words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
            scope = _stage_scope(overrides, current)
            cmd_set = False
        elif instr == "ARG":
            for arg, default in _arg_entries(rest):
                if current is None:
                    if default:
                        global_args.assign(arg, default)
                    continue
                if arg in current.env:
                    continue                # ENV wins over an ARG of the same name
                if default is None:
                    given = global_args.get(arg)
                    if given is not None:
                        scope.set_known(arg, given)
                elif default != "":
                    scope.assign(arg, default)
        elif instr == "ENV" and current is not None:
            for env, value in _env_entries(rest):
                scope.assign(env, value, export=True)
                current.env[env] = scope.get(env)
        elif instr == "WORKDIR" and current is not None:
            current.workdir = posixpath.join(current.workdir, scope.expand(rest.strip())[0])
        elif instr in ("COPY", "ADD") and current is not None:
            current.copied += _copied(rest, current.workdir, os.path.dirname(os.path.abspath(path)))
        elif instr == "SHELL" and current is not None:
            exec_form, _ = _docker_args(rest)
            if exec_form:
                current.shell = tuple(exec_form)
        elif instr == "RUN":
            exec_form, shell = _docker_args(rest)
            if exec_form is not None:
                shell = shlex.join(exec_form)
            # each RUN is a shell of its own: what it assigns is gone after it, a `pip install` pin stays
            run_scope = Variables(overrides, scope)
            if exec_form is None:       # the shell form runs as SHELL (`["/bin/bash", "-eu", "-c"]`): its options
                start_shell_with(run_scope, shell_command_options(list(current.shell if current else _DEFAULT_SHELL)))
            out += shell_launches(path, [(lineno, shell)], run_scope, kind)
            scope.pin = run_scope.pin
        elif instr in ("CMD", "ENTRYPOINT") and current is not None:
            exec_form, shell = _docker_args(rest)
            instruction = _Instruction(lineno, exec_form, shell)
            if instr == "ENTRYPOINT":
                current.entry = instruction
                if not cmd_set:
                    current.cmd = None
            else:
                current.cmd, cmd_set = instruction, True
    if current is None:
        return out
    current.pin = scope.pin
    return out + _container_launches(path, current, overrides, kind)




def _copied(rest: str, workdir: str, context: str) -> "list[tuple[str, str]]":
    """The (path in the image, path in the build context) pairs of a ``COPY`` / ``ADD``: none for one from another
    stage or image (``--from``), a URL, a glob, or a ``$`` kvguard would have to expand.  A directory of the build
    context (``context``) is copied as its contents; a file into a destination ending in ``/`` (or with others)
    keeps its name."""
    exec_form, text = _docker_args(rest)
    try:
        words = exec_form if exec_form is not None else shlex.split(text)
    except ValueError:
        return []
    if any(w.startswith("--from") for w in words):
        return []
    words = [w for w in words if not w.startswith("--")]
    if len(words) < 2 or any(ch in w for w in words for ch in "*?[$") or any("://" in w for w in words[:-1]):
        return []
    *sources, dest = words
    # a source is in the build context even when written from its root (`COPY /start.sh /`)
    sources = [posixpath.normpath(src.lstrip("/") or ".") for src in sources]
    dest = posixpath.join(workdir, dest)
    into_directory = dest.endswith("/") or len(sources) > 1
    sources = [src for src in sources if not src.startswith("..")]   # outside the context: Docker refuses it
    return [(dest.rstrip("/") or "/" if os.path.isdir(os.path.join(context, src)) or not into_directory
             else posixpath.join(dest, posixpath.basename(src.rstrip("/"))), src) for src in sources]


def _context_file(stage: _Stage, image_path: str) -> Optional[str]:
    """The build-context path of the file at ``image_path`` in the image (the last ``COPY`` that puts it there,
    itself or a directory holding it), or None."""
    image_path = posixpath.normpath(posixpath.join(stage.workdir, image_path))
    for dest, src in reversed(stage.copied):
        dest = posixpath.normpath(dest)
        if image_path == dest:
            return src
        if image_path.startswith(dest.rstrip("/") + "/"):
            inside = posixpath.normpath(posixpath.join(src, image_path[len(dest.rstrip("/")) + 1:]))
            return None if inside.startswith("../") else inside
    return None


_SCRIPT_SHELLS = ("sh", "bash", "dash", "zsh")


def script_run_by_the_image(path: str, stage: _Stage, words: "list[str]", line: int, overrides: dict,
                            kind: str) -> list[Launch]:
    """The launches of the script the container's command ``words`` run (``/start.sh ARGS``, ``bash /start.sh``,
    ``exec /start.sh``) when the image got it from the build context: read from the file beside the Dockerfile
    (``path``), with the image's ``ENV`` exported and ``ARGS`` as ``$1`` …; none when the words run no such script.
    Each is noted as run by the image (``line``: its ``CMD`` / ``ENTRYPOINT``)."""
    words = words[1:] if words[:1] == ["exec"] else words
    options: list[str] = []
    if words and posixpath.basename(words[0]) in _SCRIPT_SHELLS:
        options = [w for w in words[1:] if w.startswith("-")]
        if any("c" in w for w in options):
            return []       # `bash -c TEXT`: read as the shell form is
        words = words[1 + len(options):]
    if not words or "$" in words[0]:
        return []
    source = _context_file(stage, words[0])
    text = read_beside(path, source) if source is not None else None
    if source is None or text is None:
        return []
    script = posixpath.normpath(posixpath.join(posixpath.dirname(path), source))
    scope = Variables(overrides, _stage_scope(overrides, stage))
    lines = list(enumerate(text.splitlines(), 1))
    start_shell_with(scope, options or (shebang_option_words(lines[0][1]) if lines else []))
    scope.set_positional(words[1:])
    found = shell_launches(script, lines, scope, kind)
    note = (f"run by the image {path}:{line} builds (its CMD / ENTRYPOINT, the script copied from {source}): "
            "with its ENV",)
    for launch in found:
        launch.notes = launch.notes + note
        if launch.pin is None:
            launch.pin = stage.pin
    return found


def _container_launches(path: str, stage: _Stage, overrides: dict, kind: str) -> list[Launch]:
    """The launch the image built by the last stage starts: its ENTRYPOINT and CMD combined as Docker
    combines them, in the container's environment (the ``ENV`` values); else the launches of the script
    the container runs (:func:`script_run_by_the_image`)."""
    found = _image_launches(path, stage, overrides, kind)
    if found or kind != "dockerfile":
        return found
    entry, cmd = stage.entry, stage.cmd
    if entry is not None and entry.words is None:
        words, line = _first_command(entry.text), entry.line
    elif entry is None and cmd is not None and cmd.words is None:
        words, line = _first_command(cmd.text), cmd.line
    else:
        words = (entry.words if entry is not None and entry.words is not None else []) + \
            (cmd.words if cmd is not None and cmd.words is not None else [])
        line = cmd.line if cmd is not None else entry.line if entry is not None else 0
        if words[:2] in _SHELLS and len(words) > 2:
            words, line = _first_command(words[2]), line
    return script_run_by_the_image(path, stage, words, line, overrides, kind)


def _first_command(text: str) -> "list[str]":
    """The words of a shell text that is one simple command (none for a list, a pipeline, an expansion)."""
    if re.search(r"[;&|`<>()\n]", text):
        return []
    try:
        return shlex.split(text)
    except ValueError:
        return []


def _image_launches(path: str, stage: _Stage, overrides: dict, kind: str) -> list[Launch]:
    """The launch the image's ENTRYPOINT and CMD start themselves (see :func:`_container_launches`)."""
    runtime = _stage_scope(overrides, stage)
    entry, cmd = stage.entry, stage.cmd
    notes: tuple[str, ...] = ()
    shell_form = runtime.block_scope()      # a shell-form instruction runs as SHELL: with its options
    start_shell_with(shell_form, shell_command_options(list(stage.shell)))
    if entry is not None and entry.words is None:
        return shell_launches(path, [(entry.line, entry.text)], shell_form, kind)     # CMD ignored
    if entry is None and cmd is not None and cmd.words is None and not stage.vllm_image:
        return shell_launches(path, [(cmd.line, cmd.text)], shell_form, kind)
    if entry is None and cmd is None:
        return []
    cmd_words: list[str] = []
    if cmd is not None:
        cmd_words = cmd.words if cmd.words is not None else list(stage.shell) + [cmd.text]
        if cmd.words is None:
            notes = (SHELL_CMD_AFTER_ENTRYPOINT,)
    tokens = (entry.words if entry is not None and entry.words is not None else []) + cmd_words
    lineno = cmd.line if cmd is not None else entry.line if entry is not None else 0
    if tokens[:2] in _SHELLS and len(tokens) > 2 and (entry is not None or not stage.vllm_image):
        runtime.set_positional(tokens[4:])      # `sh -c SCRIPT NAME ARGS…`: $0 is NAME, "$@" the ARGS
        return shell_launches(path, [(lineno, tokens[2])], runtime, kind)
    implied = stage.vllm_image and entry is None
    if implied:
        # the image's ENTRYPOINT (`vllm serve`) runs, given the CMD's words, whatever they start with
        if launch_tokens(tokens) is not None:
            notes += (IMAGE_RUNS_FIRST,)
        launch: Optional[list[str]] = ["vllm", "serve"] + tokens
    else:
        launch = launch_tokens(tokens)
    if launch is None:
        return []
    given = {t.split("=", 1)[0] for t in launch if ENV_TOKEN.match(t)}
    env = [t for t in runtime.vllm_env() if t.split("=", 1)[0] not in given]
    unresolved = tuple(name for name in runtime.unknown_env() if name not in given)
    if not notes and any(_LITERAL_REFERENCE.search(t) for t in launch):
        notes += ("exec form: no shell expands `$NAME` here (Docker passes it to vLLM as written)",)
    # a `pip install vllm==X` over the image changes the release, not the ENTRYPOINT its tag set
    reinstalled = stage.image_release.version if implied and stage.image_release is not None \
        and stage.pin is not stage.image_release else None
    return [Launch(path, lineno, env + launch, kind, unresolved, pin=stage.pin, notes=notes,
                   image_entrypoint=implied, entrypoint_release=reinstalled)]
