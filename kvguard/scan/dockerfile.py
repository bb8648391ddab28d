"""Dockerfiles (``Dockerfile*``, ``*.dockerfile``, ``Containerfile``): ``RUN``, ``CMD`` and
``ENTRYPOINT`` in shell and exec form, ``ENV``/``ARG`` defaults, and the ``vllm/vllm-openai`` base
image's ``vllm serve`` entrypoint.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Optional

from ..launch.pins import ReleasePin, image_pin
from .result import Launch
from .shell import LAUNCH_HINT, launch_tokens, logical_lines, shell_launches
from .variables import ENV_TOKEN, Variables

__all__ = ["dockerfile_launches"]

_LITERAL_REFERENCE = re.compile(r"\$(?:\{|\(|[A-Za-z_])")


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


def dockerfile_launches(path: str, lines: list[tuple[int, str]], variables: Variables,
                        kind: str = "dockerfile") -> list[Launch]:
    out: list[Launch] = []
    base_vllm = False
    # `FROM … AS name`: what the stage ends with — a vLLM image?, the release pin (its image's, or a `pip install`
    # in it), its image's own pin, its ENTRYPOINT and CMD — which a later `FROM name` starts from
    stages: dict[str, tuple] = {}
    stage: Optional[str] = None
    image_release: Optional[ReleasePin] = None   # the base image's own pin: its tag decides the ENTRYPOINT
    entry: Optional[tuple[int, list[str], list[str]]] = None     # (line, tokens, missing)
    cmd: Optional[tuple[int, list[str], list[str]]] = None
    for lineno, text in logical_lines(lines, dockerfile=True):
        m = re.match(r"^\s*([A-Za-z]+)\s+(.*)$", text)
        if not m:
            continue
        instr, rest = m.group(1).upper(), m.group(2)
        if instr == "FROM":
            if stage is not None:
                stages[stage] = (base_vllm, variables.pin, image_release, entry, cmd)
            # FROM [--platform=…] IMAGE [AS NAME]; `ARG V=…` above it may name the tag
            words = [w for w in variables.expand(rest)[0].split() if not w.startswith("--")]
            image = words[0] if words else ""
            if image.lower() in stages:
                base_vllm, variables.pin, image_release, entry, cmd = stages[image.lower()]
            else:
                base_vllm = "vllm/vllm-openai" in image
                variables.pin = image_release = image_pin(image, f"{path}:{lineno}")
                entry = cmd = None
            stage = words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
        elif instr in ("ENV", "ARG"):
            pairs = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)", rest)
            if not pairs:
                parts = rest.split(None, 1)
                if len(parts) == 2 and instr == "ENV":
                    pairs = [(parts[0], parts[1])]
            for name, value in pairs:
                if value != "" or instr == "ENV":
                    variables.assign(name, value, export=instr == "ENV")
        elif instr == "RUN":
            exec_form, shell = _docker_args(rest)
            if exec_form is not None:
                shell = shlex.join(exec_form)
            out += shell_launches(path, [(lineno, shell)], variables, kind)
        elif instr in ("CMD", "ENTRYPOINT"):
            exec_form, shell = _docker_args(rest)
            if exec_form is None:
                if LAUNCH_HINT.search(shell):    # shell form: `/bin/sh -c "…"`, a script line
                    found = shell_launches(path, [(lineno, shell)], Variables(variables.overrides, variables), kind)
                    if found:
                        out += found
                        if instr == "ENTRYPOINT":
                            entry = None
                        else:
                            cmd = None
                        continue
                expanded, missing = variables.expand(shell)
                try:
                    tokens = shlex.split(expanded)
                except ValueError:
                    continue
                value = (lineno, tokens, missing)
            else:
                # exec form: no shell runs it and Docker substitutes nothing in CMD / ENTRYPOINT, so
                # `$TP` reaches vLLM as written (ENV values are seen by a `sh -c` script only)
                value = (lineno, list(exec_form), [])
            if instr == "ENTRYPOINT":
                entry = value
            else:
                cmd = value
    combined: Optional[tuple[int, list[str], list[str]]] = None
    if entry is not None:
        tokens = entry[1] + (cmd[1] if cmd else [])
        combined = (cmd[0] if cmd else entry[0], tokens, entry[2] + (cmd[2] if cmd else []))
    elif cmd is not None:
        combined = cmd
    if combined is not None:
        lineno, tokens, missing = combined
        launch, implied = None, False
        if tokens[:2] in (["/bin/sh", "-c"], ["sh", "-c"], ["/bin/bash", "-c"], ["bash", "-c"]) and len(tokens) > 2:
            out += shell_launches(path, [(lineno, tokens[2])], Variables(variables.overrides, variables), kind)
        else:
            launch = launch_tokens(tokens)
            if launch is None and base_vllm and entry is None and tokens:
                launch, implied = ["vllm", "serve"] + tokens, True
        if launch is not None:
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
            given = {t.split("=", 1)[0] for t in launch if ENV_TOKEN.match(t)}
            env = [t for t in variables.vllm_env() if t.split("=", 1)[0] not in given]
            notes: tuple[str, ...] = ()
            if any(_LITERAL_REFERENCE.search(t) for t in launch) and not missing:
                notes = ("exec form: no shell expands `$NAME` here (Docker passes it to vLLM as written)",)
            # a `pip install vllm==X` over the image changes the release, not the ENTRYPOINT its tag set
            reinstalled = image_release.version if implied and image_release is not None \
                and variables.pin is not image_release else None
            out.append(Launch(path, lineno, env + launch, kind, unresolved, pin=variables.pin, notes=notes,
                              image_entrypoint=implied, entrypoint_release=reinstalled))
    return out
