"""Find ``vllm serve`` launches in files: shell scripts, Markdown, Dockerfiles, YAML.

:func:`find_launches` walks paths and returns every launch it finds as a
:class:`Launch` (file, 1-based line, the command's tokens); :func:`check_launch`
checks one with the same machinery as ``kvguard check`` and returns a
:class:`Finding`.  Nothing here imports PyYAML at module level: YAML files are
read with ``yaml.compose_all(..., Loader=yaml.SafeLoader)`` (safe loading, with
line numbers) when PyYAML is installed (``pip install kvguard[yaml]``), and are
reported as skipped otherwise.

What is recognised
------------------
- Shell (``*.sh``, ``*.bash``, ``*.zsh``, files with a shell ``#!``): logical lines
  (``\\`` continuations joined), split into commands at ``;``, ``&&``, ``||``,
  ``|``, ``&``; a command is a launch when it runs ``vllm serve``,
  ``python -m vllm.entrypoints.openai.api_server`` or ``docker run … IMAGE``
  with a ``vllm/vllm-openai`` image (the arguments after the image, after the
  ``--entrypoint`` when one is given).  Simple
  assignments earlier in the same file or block (``TP=8``, ``export TP=8``)
  resolve later ``$TP`` / ``${TP}``; ``${TP:-8}`` uses its default.
- Markdown (``*.md``, ``*.markdown``): fenced code blocks only (``bash``, ``sh``,
  ``shell``, ``console``, ``zsh``, untyped, ``text``: shell; ``dockerfile``;
  ``yaml``/``yml``); inline code and prose are not read.  A shell block with
  prompts (``$ ``, ``% ``, ``(venv) $ ``, ``user@host:~$ ``) is a terminal transcript:
  only prompted lines start commands, ``> `` continuation prompts and unclosed quotes
  continue them, and every other line is output.
- Dockerfiles (``Dockerfile*``, ``*.dockerfile``, ``Containerfile``): ``RUN``,
  ``CMD``, ``ENTRYPOINT`` in shell and exec (JSON) form; ``ENTRYPOINT`` +
  ``CMD`` are combined; a ``vllm/vllm-openai`` base image supplies
  ``vllm serve`` to a bare ``CMD``; ``ENV``/``ARG`` defaults resolve variables.
- YAML (``*.yaml``, ``*.yml``): Kubernetes containers (``command`` replaces the
  image's entrypoint, ``args`` follow; including ``sh -c`` scripts), docker-compose
  services (``entrypoint`` + ``command``, each a list or a string split as compose
  splits it; an ``entrypoint`` drops the image's default command; a ``command``
  alone follows the image's entrypoint, ``vllm serve`` for ``vllm/vllm-openai``),
  ``VLLM_*`` entries of ``env`` / ``environment``, the production-stack chart's
  ``servingEngineSpec.modelSpec[]`` and KServe ``LLMInferenceService`` documents
  (rendered as :mod:`kvguard.scan.charts` describes),
  Helm-values-like argument lists (``args``/``extraArgs``/``vllmArgs``… with a
  parallel flag, the model from ``--model`` or a sibling ``model``/``modelName``
  key), and any string holding a launch (scripts, Markdown guides).
- vLLM recipe YAMLs (``model.model_id`` + ``model.base_args``): besides the
  guide's code blocks, one launch per variant × compatible strategy:
  ``vllm serve MODEL base_args variant.extra_args strategy.vllm_args
  strategy_overrides[strategy].vllm_args`` plus the strategy's parallel flag
  set to ``$GPUS`` for single-node strategies, ``$TOTAL_GPUS`` (default
  ``$NODES`` × ``$GPUS_PER_NODE``) for multi-node ones (``parallelism: tp_pp`` → ``-tp $GPUS_PER_NODE -pp $NODES``,
  ``tp_dp`` → ``-tp $GPUS_PER_NODE -dp $NODES -dpl 1``; multi-node data-parallel
  strategies add ``--data-parallel-size-local $GPUS_PER_NODE``, the other multi-node ones
  the head node's rendezvous ``--nnodes $NODES --node-rank 0``).  The GPU
  count is a deploy-time choice: those launches are undecidable until
  ``--set GPUS=8`` (and ``--set NODES=2 --set GPUS_PER_NODE=8`` for
  multi-node ones) states it.  Strategies are read from a ``strategies/`` directory next to
  (or above) the recipe; ``pd_cluster`` (prefill/decode roles) is not synthesised;
  only the head node (rank 0) of a multi-node launch is checked.

Go templates (Helm chart ``templates/``, helmfile ``*.gotmpl``: any non-Markdown file
with ``{{ .Values… }}``-style actions) are not deployment files until rendered: they are
listed as skipped, never fatal.  ``-`` reads standard input (:func:`find_launches`).

Releases
--------
Each launch carries the release its deployment pins (:mod:`kvguard.launch.pins`: image tag,
``pip install vllm==X``, requirements / pyproject beside the file); :func:`scan` checks it
against that release unless one is given.

Variables
---------
``--set NAME=VALUE`` values win over assignments found in the file.  ``$(NAME)``
(Kubernetes' dependent-variable syntax in ``command``/``args``) is the variable
NAME; other command substitutions (``$(nproc)``, backticks, ``$((…))``) stay
unresolved.  A variable
that stays unresolved makes the launch undecidable only when it reaches
something kvguard reads (the model, a parallel flag, a ``VLLM_*`` variable):
``--port $PORT`` does not matter.  Single quotes are not honoured ('$TP' is
treated like $TP).  A launch that vLLM's argument parser refuses whatever its
variables hold (``-tp $TP --no-such-flag``: each variable a value of an option
or the model) is a refusal.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional

from ..errors import ArgparseRefusal, InputError, KvguardError, Undecidable
from ..launch.pins import ReleaseChoice, ReleasePin, beside_pin, choose_release, default_release, image_pin, pip_pin

__all__ = ["Finding", "Launch", "MAX_FILE_BYTES", "ReleaseChoice", "ReleasePin", "STDIN", "ScanResult", "Skip",
           "check_launch", "find_launches", "release_for", "scan", "summarize"]

#: the path that names standard input (``kvguard scan -``)
STDIN = "-"

#: files larger than this are skipped (with a note)
MAX_FILE_BYTES = 5 * 1024 * 1024

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".env", "env", "__pycache__",
                       ".tox", ".nox", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                       "dist", "build", ".eggs"})

_LAUNCH_HINT = re.compile(r"\bvllm\s+serve\b|vllm\.entrypoints\.openai\.api_server|vllm/vllm-openai")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)|"
                  r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$\(\([^)]*\)\)|"
                  r"\$\([^)]*\)|`[^`]*`")
_ASSIGN = re.compile(r"^\s*(export\s+|declare\s+-x\s+|declare\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)"
                     r"\s*(?:#.*)?$")
_ENV_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = {";", "&&", "||", "|", "&", ";;", "|&"}
_WRAPPERS = {"env", "exec", "sudo", "nohup", "time", "command", "nice"}
_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "text", "shell-session", "shellsession", "terminal"}
_HELM_ARG_KEYS = ("args", "extraArgs", "extra_args", "vllmArgs", "vllm_args", "serverArgs", "server_args",
                  "engineArgs", "engine_args")
_HELM_MODEL_KEYS = ("model", "modelName", "model_name", "modelId", "model_id", "modelURL", "modelUrl")
_PARALLEL_HINT = re.compile(r"^(--tensor[-_]parallel[-_]size|-tp|--pipeline[-_]parallel[-_]size|-pp|"
                            r"--data[-_]parallel[-_]size|-dp|--decode[-_]context[-_]parallel[-_]size|-dcp|"
                            r"--prefill[-_]context[-_]parallel[-_]size|-pcp|--enable[-_]expert[-_]parallel|-ep)"
                            r"(=.*)?$")


@dataclass
class Launch:
    """One launch found in a file."""

    path: str
    line: int
    tokens: list[str]
    kind: str                                   # shell | markdown | dockerfile | yaml | recipe
    unresolved: tuple[str, ...] = ()            # variables left unexpanded in ``tokens``
    label: Optional[str] = None                 # e.g. "variant nvfp4 × strategy single_node_tp"
    pin: Optional[ReleasePin] = None            # the vLLM release its deployment pins (kvguard.launch.pins)
    notes: tuple[str, ...] = ()                 # how the file was read, where it matters

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def command(self) -> str:
        return shlex.join(self.tokens)


@dataclass
class Skip:
    path: str
    reason: str
    #: a file named on the command line that cannot be read: counts toward exit status 2
    #: (files met while walking a directory are only reported)
    fatal: bool = False


@dataclass
class Finding:
    """A launch and what kvguard says about it."""

    launch: Launch
    status: str                                 # accepted | refused | undecidable
    report: Any = None                          # LaunchReport when checked
    reason: Optional[str] = None                # why undecidable
    reason_kind: Optional[str] = None           # unresolved-variable | unknown-model | bad-arguments | …
    vllm_version: Optional[str] = None          # the release checked against (None: no ruleset fits)
    vllm_version_source: Optional[str] = None   # where that release came from (kvguard.launch.pins)
    release_pinned: bool = False                # the launch's own deployment chose the release

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.launch.path, "line": self.launch.line, "kind": self.launch.kind,
                               "label": self.launch.label, "command": self.launch.command,
                               "status": self.status, "vllm_version": self.vllm_version,
                               "vllm_version_source": self.vllm_version_source,
                               "notes": list(self.launch.notes)}
        if self.status == "undecidable":
            out.update(reason_kind=self.reason_kind, reason=self.reason,
                       unresolved=list(self.launch.unresolved))
        if self.report is not None:
            out["result"] = self.report.to_dict()
        return out


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    files: int = 0
    vllm_version: Optional[str] = None          # the release of launches nothing pins
    vllm_version_source: Optional[str] = None   # where that release came from

    @property
    def exit_status(self) -> int:
        """1 if any launch is refused, else 2 if any is undecidable or a file unreadable, else 0."""
        if any(f.status == "refused" for f in self.findings):
            return 1
        if any(f.status == "undecidable" for f in self.findings) or any(s.fatal for s in self.skipped):
            return 2
        return 0


# --------------------------------------------------------------------------- variables


class _Vars:
    def __init__(self, overrides: Mapping[str, str], parent: Optional["_Vars"] = None):
        self.overrides = dict(overrides)
        self.local: dict[str, str] = dict(parent.local) if parent else {}
        self.exported: set[str] = set(parent.exported) if parent else set()
        #: the latest `pip install vllm==X` (or Dockerfile base image) above this point
        self.pin: Optional[ReleasePin] = parent.pin if parent else None

    def get(self, name: str) -> Optional[str]:
        if name in self.overrides:
            return self.overrides[name]
        return self.local.get(name)

    def vllm_env(self) -> list[str]:
        """``NAME=value`` for the exported VLLM_* variables (what a launch below them sees)."""
        out = []
        for name in sorted(self.exported):
            value = self.get(name)
            if name.startswith("VLLM_") and value is not None:
                out.append(f"{name}={value}")
        return out

    def assign(self, name: str, raw: str, export: bool = False) -> None:
        if export:
            self.exported.add(name)
        value, missing = self.expand(raw)
        if missing:
            self.local.pop(name, None)
            return
        try:
            parts = shlex.split(value)
        except ValueError:
            return
        self.local[name] = parts[0] if len(parts) == 1 else " ".join(parts)

    def expand(self, text: str) -> tuple[str, list[str]]:
        missing: list[str] = []

        def sub(m: re.Match) -> str:
            name = m.group(1) or m.group(3) or m.group(4)   # ${X}, $X, $(X) (Kubernetes' syntax)
            if name is None:        # $(…), $((…)), `…`
                missing.append(m.group(0))
                return m.group(0)
            value = self.get(name)
            if value is None and m.group(1) and m.group(2) is not None:
                value = m.group(2)
            if value is None:
                missing.append(name)
                return m.group(0)
            return value

        return _VAR.sub(sub, text), missing


# --------------------------------------------------------------------------- shell


def _split_commands(text: str) -> list[list[str]]:
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    try:
        tokens = list(lex)
    except ValueError:
        return []
    out, cur = [], []
    for tok in tokens:
        if tok in _OPERATORS:
            out.append(cur)
            cur = []
        else:
            cur.append(tok)
    out.append(cur)
    return [c for c in out if c]


def _is_launcher(tokens: list[str], i: int) -> bool:
    tok = tokens[i]
    if tok.rsplit("/", 1)[-1] == "vllm" and i + 1 < len(tokens) and tokens[i + 1] == "serve":
        return True
    return (tok.rsplit("/", 1)[-1].startswith("python") and i + 2 < len(tokens) and tokens[i + 1] == "-m"
            and tokens[i + 2] == "vllm.entrypoints.openai.api_server")


_PLACEHOLDER = re.compile(r"^(<[A-Za-z][^<>\s]*>|\.\.\.|…)$")     # <MODEL>, `vllm serve ... --flag`


def _strip_redirections(tokens: list[str]) -> list[str]:
    for i, tok in enumerate(tokens):
        if _PLACEHOLDER.match(tok):     # `vllm serve <MODEL>`: a placeholder, not a redirection
            continue
        if re.match(r"^\d*(>>?|<)", tok) or tok in (">", ">>", "<", "2>", "&>"):
            return tokens[:i]
    return tokens


def _launch_tokens(cmd: list[str]) -> Optional[list[str]]:
    """The ``vllm serve …`` part of one simple command (with its VAR=value prefix), or None."""
    return launch_and_image(cmd)[0]


def _option_value(cmd: list[str], names: tuple[str, ...]) -> Optional[str]:
    """The value of the last ``--name VALUE`` / ``--name=VALUE`` among ``cmd``."""
    value = None
    for j, tok in enumerate(cmd):
        if tok in names and j + 1 < len(cmd):
            value = cmd[j + 1]
        elif tok.split("=", 1)[0] in names and "=" in tok:
            value = tok.split("=", 1)[1]
    return value


#: `docker run` / `podman run` options that take no value (every other option takes the next word
#: unless written `--opt=value` or, for a one-letter option, `-pVALUE`)
_CONTAINER_FLAGS = frozenset({
    "--detach", "--disable-content-trust", "--init", "--interactive", "--no-healthcheck", "--oom-kill-disable",
    "--privileged", "--publish-all", "--quiet", "--read-only", "--rm", "--sig-proxy", "--tty", "--use-api-socket",
    # podman
    "--env-host", "--http-proxy", "--no-hosts", "--read-only-tmpfs", "--replace", "--rmi",
})
_CONTAINER_SHORT_FLAGS = frozenset("diPqt")


def _container_image_at(cmd: list[str], run: int) -> Optional[int]:
    """The index of the image in ``cmd`` (``docker run`` at ``cmd[run]``): the first word after the
    options of `run`, as the container CLI reads them; None when there is none."""
    i = run + 1
    while i < len(cmd):
        tok = cmd[i]
        if tok == "--":
            return i + 1 if i + 1 < len(cmd) else None
        if not tok.startswith("-") or tok == "-":
            return i
        if tok.startswith("--"):
            i += 1 if "=" in tok or tok in _CONTAINER_FLAGS else 2
        elif all(c in _CONTAINER_SHORT_FLAGS for c in tok[1:]):
            i += 1                                  # -d, -it, -dit
        else:                                       # -e VALUE, -p8000:8000, -it -e…: the rest is the value
            first_valued = next(j for j, c in enumerate(tok[1:], 1) if c not in _CONTAINER_SHORT_FLAGS)
            i += 1 if first_valued < len(tok) - 1 else 2
    return None


def _container_env(options: list[str]) -> list[str]:
    """``NAME=value`` given with ``-e`` / ``--env`` among ``docker run``'s options."""
    env = []
    for j, t in enumerate(options):
        if t in ("-e", "--env") and j + 1 < len(options):
            value = options[j + 1]
        elif t.startswith("--env="):
            value = t[len("--env="):]
        elif t.startswith("-e") and len(t) > 2 and not t.startswith("--"):
            value = t[2:]
        else:
            continue
        if _ENV_TOKEN.match(value):
            env.append(value)
    return env


def launch_and_image(cmd: list[str]) -> tuple[Optional[list[str]], Optional[str]]:
    """(the launch in one simple command, the container image it runs in) — (None, None) if none."""
    for i in range(len(cmd)):
        if _is_launcher(cmd, i):
            start = i
            while start > 0 and (_ENV_TOKEN.match(cmd[start - 1]) or cmd[start - 1] in _WRAPPERS):
                start -= 1
            return _strip_redirections(cmd[start:]), None
    if cmd and cmd[0].rsplit("/", 1)[-1] in ("docker", "podman") and "run" in cmd[:3]:
        i = _container_image_at(cmd, cmd.index("run"))
        tok = cmd[i] if i is not None else ""
        if "vllm/vllm-openai" in tok:
            rest = _strip_redirections(cmd[i + 1:])
            entrypoint = _option_value(cmd[:i], ("--entrypoint",))
            if entrypoint is not None:
                # `--entrypoint X` replaces the image's `vllm serve`; the arguments follow X
                try:
                    rest = shlex.split(entrypoint) + rest
                except ValueError:
                    return None, None
                if not _is_launcher(rest, 0):
                    return None, None
            if not rest or rest[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh", "python", "python3"):
                return None, None     # an interactive container or another program: not a launch
            env = _container_env(cmd[:i])
            if _is_launcher(rest, 0):
                return env + rest, tok
            return env + ["vllm", "serve"] + rest, tok
    return None, None


#: an interactive prompt in a Markdown terminal transcript: `$ `, `% `, `(venv) $ `, `user@host:~/dir$ `
_PROMPT = re.compile(r"^\s*(?:\([^()\s]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*?)?\s*)?[$%]\s+")
#: the shell's continuation prompt (PS2) in a transcript
_PS2 = re.compile(r"^\s*>\s?")


#: a quoted argument continued over more transcript lines than this ends the command
_MAX_QUOTED_LINES = 200


def _has_prompts(lines: list[tuple[int, str]]) -> bool:
    return any(_PROMPT.match(text) for _, text in lines)


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text)
    except ValueError:
        return True
    return False


def _logical_lines(lines: list[tuple[int, str]], prompts: bool = False) -> Iterator[tuple[int, str]]:
    """Commands as the shell reads them: ``\\`` continuations joined.

    ``prompts``: the lines are a terminal transcript (`$ cmd`): only prompted lines start a
    command, `> ` continuation prompts are removed, an unclosed quote continues the command,
    and every other line is the commands' output."""
    buf: list[str] = []
    start = 0
    quoted = False      # the command so far ends inside a quote (transcripts)
    for lineno, raw in lines:
        text = raw.rstrip("\r\n")
        if quoted and not _PS2.match(text):     # the quote is never closed: the command ended
            yield start, " ".join(buf)
            buf, quoted = [], False
        if prompts:
            m = (_PS2 if buf else _PROMPT).match(text)
            if m:
                text = text[m.end():]
            elif not buf:
                continue                                # output, not a command
        if not buf:
            start = lineno
        stripped = text.rstrip()
        if buf and stripped.lstrip().startswith("#"):   # a comment line inside a continuation
            continue
        if stripped.endswith("\\") and not stripped.endswith("\\\\"):
            buf.append(stripped[:-1])
            continue
        buf.append(text)
        # `$ vllm serve … '{"a":` / `> 1}'`; re-reading the buffer per line is bounded by the cap
        quoted = prompts and len(buf) < _MAX_QUOTED_LINES and _open_quote(" ".join(buf))
        if quoted:
            continue
        yield start, " ".join(buf)
        buf = []
    if buf:
        yield start, " ".join(buf)


def _shell_launches(path: str, lines: list[tuple[int, str]], variables: _Vars, kind: str,
                    prompts: bool = False) -> list[Launch]:
    out = []
    for lineno, text in _logical_lines(lines, prompts=prompts):
        m = _ASSIGN.match(text)
        if m:
            variables.assign(m.group(2), m.group(3), export=bool(m.group(1)) and "x" in m.group(1))
            continue
        if "install" in text and "vllm" in text:        # `pip install vllm==X` pins what runs below
            for cmd in _split_commands(variables.expand(text)[0]):
                pin = pip_pin(cmd, f"{path}:{lineno}")
                if pin is not None:
                    variables.pin = pin
        if not _LAUNCH_HINT.search(text):
            continue
        expanded, missing = variables.expand(text)
        for cmd in _split_commands(expanded):
            tokens, image = launch_and_image(cmd)
            if tokens is None:
                continue
            unresolved = tuple(dict.fromkeys([v for v in missing if any(v in t for t in tokens)] +
                                             [t for t in tokens if _PLACEHOLDER.match(t)]))
            given = {t.split("=", 1)[0] for t in tokens if _ENV_TOKEN.match(t)}
            exported = [t for t in variables.vllm_env() if t.split("=", 1)[0] not in given]
            # a container runs the vLLM of its image, not the one installed beside `docker`
            pin = image_pin(image, f"{path}:{lineno}") if image is not None else variables.pin
            out.append(Launch(path, lineno, exported + tokens, kind, unresolved, pin=pin))
    return out


# --------------------------------------------------------------------------- markdown


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*\{?\.?([\w+.-]*)")


def _markdown_launches(path: str, lines: list[tuple[int, str]], variables: _Vars) -> list[Launch]:
    out: list[Launch] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i][1])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        body: list[tuple[int, str]] = []
        i += 1
        while i < len(lines):
            stripped = lines[i][1].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            text = lines[i][1]
            cut = len(text) - len(text.lstrip(" "))
            body.append((lines[i][0], text[min(cut, indent):]))
            i += 1
        i += 1
        block_vars = variables     # assignments carry over to later blocks, as a reader runs them
        if lang in _SHELL_LANGS:
            out += _shell_launches(path, body, block_vars, "markdown", prompts=_has_prompts(body))
        elif lang in ("dockerfile", "docker", "containerfile"):
            out += _dockerfile_launches(path, body, block_vars, kind="markdown")
        elif lang in ("yaml", "yml"):
            out += _yaml_text_launches(path, body, block_vars, kind="markdown")
    return out


# --------------------------------------------------------------------------- Dockerfile


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


def _dockerfile_launches(path: str, lines: list[tuple[int, str]], variables: _Vars,
                         kind: str = "dockerfile") -> list[Launch]:
    out: list[Launch] = []
    base_vllm = False
    stages: dict[str, tuple[bool, Optional[ReleasePin]]] = {}   # `FROM … AS name`: what the stage runs
    entry: Optional[tuple[int, list[str], list[str]]] = None     # (line, tokens, missing)
    cmd: Optional[tuple[int, list[str], list[str]]] = None
    for lineno, text in _logical_lines(lines):
        m = re.match(r"^\s*([A-Za-z]+)\s+(.*)$", text)
        if not m:
            continue
        instr, rest = m.group(1).upper(), m.group(2)
        if instr == "FROM":
            # FROM [--platform=…] IMAGE [AS NAME]; `ARG V=…` above it may name the tag
            words = [w for w in variables.expand(rest)[0].split() if not w.startswith("--")]
            image = words[0] if words else ""
            if image.lower() in stages:
                base_vllm, variables.pin = stages[image.lower()]
            else:
                base_vllm = "vllm/vllm-openai" in image
                variables.pin = image_pin(image, f"{path}:{lineno}")
            if len(words) >= 3 and words[1].lower() == "as":
                stages[words[2].lower()] = (base_vllm, variables.pin)
            entry = cmd = None
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
            out += _shell_launches(path, [(lineno, shell)], variables, kind)
        elif instr in ("CMD", "ENTRYPOINT"):
            exec_form, shell = _docker_args(rest)
            if exec_form is None:
                if _LAUNCH_HINT.search(shell):    # shell form: `/bin/sh -c "…"`, a script line
                    found = _shell_launches(path, [(lineno, shell)], _Vars(variables.overrides, variables), kind)
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
                expanded = []
                missing: list[str] = []
                for tok in exec_form:   # exec form: no shell, but Docker substitutes nothing either;
                    e, miss = variables.expand(tok)   # ENV values are seen by `sh -c` only — we expand
                    expanded.append(e)               # to let --set/ENV resolve them
                    missing += miss
                value = (lineno, expanded, missing)
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
        launch = None
        if tokens[:2] in (["/bin/sh", "-c"], ["sh", "-c"], ["/bin/bash", "-c"], ["bash", "-c"]) and len(tokens) > 2:
            out += _shell_launches(path, [(lineno, tokens[2])], _Vars(variables.overrides, variables), kind)
        else:
            launch = _launch_tokens(tokens)
            if launch is None and base_vllm and entry is None and tokens:
                launch = ["vllm", "serve"] + tokens
        if launch is not None:
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
            given = {t.split("=", 1)[0] for t in launch if _ENV_TOKEN.match(t)}
            env = [t for t in variables.vllm_env() if t.split("=", 1)[0] not in given]
            out.append(Launch(path, lineno, env + launch, kind, unresolved, pin=variables.pin))
    return out


# --------------------------------------------------------------------------- YAML


def _yaml():
    try:
        import yaml  # noqa: PLC0415 - optional dependency
    except ImportError:
        return None
    return yaml


def _yaml_text_launches(path: str, lines: list[tuple[int, str]], variables: _Vars,
                        kind: str = "yaml", strategies_from: Optional[str] = None) -> list[Launch]:
    yaml = _yaml()
    if yaml is None:
        return []
    text = "\n".join(t for _, t in lines)
    offset = lines[0][0] - 1 if lines else 0
    out: list[Launch] = []
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        for doc in docs:
            if doc is not None:
                out += _YamlWalker(path, offset, variables, kind, strategies_from).walk_root(doc)
    except yaml.YAMLError:
        return []
    except RecursionError:  # nested too deeply, or an alias that contains itself (`a: &a [*a]`)
        return []
    return out


class _YamlWalker:
    def __init__(self, path: str, offset: int, variables: _Vars, kind: str, strategies_from: Optional[str]):
        self.path, self.offset, self.variables, self.kind = path, offset, variables, kind
        self.strategies_from = strategies_from
        self.recipe = False
        self.stack: list[dict] = []      # the enclosing mappings' keys, innermost last
        self.keys: list[str] = []        # the key path to the node being walked ("[]": a list item)
        self.out: list[Launch] = []

    def line(self, node) -> int:
        return node.start_mark.line + 1 + self.offset

    def walk_root(self, node) -> list[Launch]:
        import yaml
        if isinstance(node, yaml.MappingNode):
            plain = _plain(node)
            if isinstance(plain, dict) and isinstance(plain.get("model"), dict) and \
                    "model_id" in plain["model"] and "base_args" in plain["model"]:
                self.recipe = True
                self.out += _recipe_launches(self.path, node, plain, self.variables, self.offset,
                                             self.strategies_from)
            if isinstance(plain, dict) and self.kserve(node, plain):
                return self.out
        self.walk(node)
        return self.out

    def walk(self, node) -> None:
        import yaml
        if isinstance(node, yaml.MappingNode):
            self.stack.append({k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)})
            try:
                if not self.recipe and self.container(node):
                    return
                for k, v in node.value:
                    key = k.value if isinstance(k, yaml.ScalarNode) else "?"
                    if key == "servingEngineSpec" and self.production_stack(node):
                        continue
                    self.keys.append(str(key))
                    try:
                        self.walk(v)
                    finally:
                        self.keys.pop()
            finally:
                self.stack.pop()
        elif isinstance(node, yaml.SequenceNode):
            self.keys.append("[]")
            try:
                for v in node.value:
                    self.walk(v)
            finally:
                self.keys.pop()
        elif isinstance(node, yaml.ScalarNode) and isinstance(node.value, str) and "\n" in node.value \
                or isinstance(node, yaml.ScalarNode) and _LAUNCH_HINT.search(str(node.value)):
            self.text(node)

    def text(self, node) -> None:
        value = str(node.value)
        if not _LAUNCH_HINT.search(value):
            return
        first = self.line(node) + (1 if node.style in ("|", ">") else 0)
        lines = [(first + i, t) for i, t in enumerate(value.split("\n"))]
        sub = _Vars(self.variables.overrides, self.variables)
        if "```" in value or "~~~" in value:
            self.out += _markdown_launches(self.path, lines, sub)
        else:
            self.out += _shell_launches(self.path, lines, sub, self.kind)

    # ----------------------------------------------------------------- rendered by a deployer

    def emit(self, line_node, tokens: list[str], image: Optional[str], label: Optional[str] = None,
             notes: tuple[str, ...] = (), image_node=None) -> None:
        expanded, missing = [], []
        for t in tokens:
            e, miss = self.variables.expand(t)
            expanded.append(e)
            missing += miss
        unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in expanded)))
        pin = image_pin(image, f"{self.path}:{self.line(image_node or line_node)}") if image else None
        self.out.append(Launch(self.path, self.line(line_node), expanded, self.kind, unresolved, label=label,
                               pin=pin, notes=notes))

    def production_stack(self, node) -> bool:
        """``servingEngineSpec.modelSpec[]`` of the production-stack chart (kvguard.scan.charts)."""
        from .charts import production_stack_launches

        engine = _child(node, "servingEngineSpec")
        plain = _plain(engine)
        if not isinstance(plain, dict) or not isinstance(plain.get("modelSpec"), list):
            return False
        for index, launch in production_stack_launches({"servingEngineSpec": plain}):
            item = _child(engine, "modelSpec", index)
            anchor = next((n for n in (_child(item, *a, key=True) for a in launch.anchors) if n is not None), item)
            self.emit(anchor, launch.tokens, launch.image, launch.label, tuple(launch.notes),
                      _child(item, *launch.image_anchor, key=True))
        return True

    def kserve(self, node, plain: dict) -> bool:
        """A KServe LLMInferenceService document (kvguard.scan.charts)."""
        from .charts import kserve_launches

        launches = kserve_launches(plain)
        for launch in launches:
            anchor = next((n for n in (_child(node, *a, key=True) for a in launch.anchors) if n is not None), node)
            self.emit(anchor, launch.tokens, launch.image, launch.label, tuple(launch.notes),
                      _child(node, *launch.image_anchor, key=True))
        return bool(launches)

    # ----------------------------------------------------------------- containers

    def _flavour(self, keys: dict) -> str:
        """compose (entrypoint + command) | kubernetes (command + args) | unknown."""
        if "entrypoint" in keys or len(self.keys) >= 2 and self.keys[-2] == "services":
            return "compose"
        if "args" in keys or len(self.keys) >= 2 and self.keys[-2] in ("containers", "initContainers") \
                and self.keys[-1] == "[]":
            return "kubernetes"
        return "unknown"

    def _container_env(self, keys: dict) -> list[str]:
        """``VLLM_*=value`` from a Kubernetes ``env`` list or a compose ``environment``."""
        plain = _plain(keys["env"]) if "env" in keys else _plain(keys["environment"]) if "environment" in keys \
            else None
        pairs: list[tuple[Any, Any]] = []
        if isinstance(plain, dict):
            pairs = list(plain.items())
        elif isinstance(plain, list):
            for item in plain:
                if isinstance(item, dict) and "name" in item and "value" in item:
                    pairs.append((item["name"], item["value"]))
                elif isinstance(item, str) and "=" in item:
                    pairs.append(tuple(item.split("=", 1)))
        return [f"{k}={'' if v is None else str(v).lower() if isinstance(v, bool) else v}"
                for k, v in pairs if isinstance(k, str) and k.startswith("VLLM_") and not isinstance(v, (dict, list))]

    def _in_container(self, first: int, keys: dict, image_text: str) -> None:
        """The launches found from ``self.out[first]`` on run in this container (a ``sh -c``
        script, a multi-line command): they see its ``VLLM_*`` environment (the script's own
        assignments win) and run the release its image pins unless the script pins one."""
        env = self._container_env(keys)
        pin = image_pin(image_text, f"{self.path}:{self.line(keys['image'])}") if image_text else None
        for launch in self.out[first:]:
            given = {t.split("=", 1)[0] for t in launch.tokens if _ENV_TOKEN.match(t)}
            launch.tokens = [t for t in env if t.split("=", 1)[0] not in given] + launch.tokens
            if launch.pin is None:
                launch.pin = pin

    def container(self, node) -> bool:
        """A mapping with command/args/entrypoint: a Kubernetes container, a compose service, Helm values."""
        import yaml
        keys = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        command, args, entry = keys.get("command"), keys.get("args"), keys.get("entrypoint")
        if command is None and args is None and entry is None:
            return self.helm(node, keys)
        image_text = _scalar_text(keys.get("image")) if keys.get("image") is not None else ""
        vllm_image = "vllm/vllm-openai" in image_text or "vllm-openai" in image_text
        flavour = self._flavour(keys)
        parts: list[tuple[Any, list[str]]] = []
        for n in (entry, command, args):
            if n is None or isinstance(n, yaml.ScalarNode) and n.tag.endswith(":null"):
                continue        # `command: null` / `command:` is no command
            if isinstance(n, yaml.SequenceNode):
                parts.append((n, [_scalar_text(v) for v in n.value]))
            elif isinstance(n, yaml.ScalarNode):
                if flavour != "compose" and isinstance(n.value, str) and _LAUNCH_HINT.search(n.value) and \
                        ("\n" in n.value or n is command or n is entry):
                    before = len(self.out)
                    self.text(n)
                    if len(self.out) > before:
                        self._in_container(before, keys, image_text)
                        return True
                # compose splits a string command shell-like (no shell runs it); `\` ends a line
                text = re.sub(r"\\\r?\n", " ", str(n.value)) if n.value is not None else ""
                try:
                    parts.append((n, shlex.split(text)))
                except ValueError:
                    parts.append((n, [text]))
        if not parts:
            return False
        by_node = {id(n): t for n, t in parts}
        entry_t, command_t, args_t = (by_node.get(id(n)) for n in (entry, command, args))
        notes: tuple[str, ...] = ()
        implied = False     # the image's own entrypoint (`vllm serve`) starts the command
        if flavour == "compose":
            # compose: `entrypoint` replaces the image's ENTRYPOINT and drops its CMD; `command`
            # replaces CMD, appended to whichever entrypoint runs
            if entry_t is not None:
                tokens = entry_t + (command_t or [])
            else:
                implied = vllm_image
                tokens = command_t or []
        elif flavour == "kubernetes":
            # Kubernetes: `command` replaces ENTRYPOINT (and the image's CMD), `args` replaces CMD
            if command_t is not None:
                tokens = command_t + (args_t or [])
            else:
                implied = vllm_image
                tokens = args_t or []
        else:
            tokens = [t for _, t_list in parts for t in t_list]
        if not tokens and not implied:
            return False
        # sh -c "script"
        for i, tok in enumerate(tokens[:-1]):
            if tok.rsplit("/", 1)[-1] in ("sh", "bash", "zsh") and tokens[i + 1] in ("-c", "-lc", "-ec", "-xc"):
                script = tokens[i + 2] if i + 2 < len(tokens) else None
                if script is None:
                    return False
                before = len(self.out)
                node_of_script = next((v for n, _t in parts for v in (n.value if isinstance(n, yaml.SequenceNode)
                                                                       else []) if _scalar_text(v) == script), None)
                if node_of_script is not None:
                    self.text(node_of_script)
                else:
                    host = next((n for n, t_list in parts if script in t_list), parts[-1][0])
                    self.out += _shell_launches(self.path, [(self.line(host), script)],
                                                _Vars(self.variables.overrides, self.variables), self.kind)
                self._in_container(before, keys, image_text)
                return True
        line_node = parts[-1][0]
        for n, t_list in parts:     # report the line that names the launcher, else the arguments'
            if _LAUNCH_HINT.search(" ".join(t_list)):
                line_node = n
                break
        if implied:
            if tokens[:2] == ["vllm", "serve"] or _launch_tokens(tokens) is not None:
                notes = ("the image's entrypoint `vllm serve` runs before this command, which starts with its "
                         "own launcher",)
            tokens = ["vllm", "serve"] + tokens
        expanded, missing = [], []
        for t in tokens:
            e, miss = self.variables.expand(t)
            expanded.append(e)
            missing += miss
        launch = _launch_tokens(expanded)
        if launch is None and flavour == "unknown" and vllm_image and \
                not any(t.rsplit("/", 1)[-1] in ("sh", "bash", "python", "python3") for t in expanded[:1]):
            launch = ["vllm", "serve"] + expanded
        if launch is None:
            for _k, v in node.value:
                self.walk(v)
            return True
        unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
        given = {t.split("=", 1)[0] for t in launch if _ENV_TOKEN.match(t)}
        env = [t for t in self._container_env(keys) if t.split("=", 1)[0] not in given]
        line = self.line(line_node)
        self.out.append(Launch(self.path, line, env + launch, self.kind, unresolved,
                               pin=image_pin(image_text, f"{self.path}:{self.line(keys['image'])}")
                               if image_text else None, notes=notes))
        return True

    def helm(self, node, keys) -> bool:
        import yaml
        for key in _HELM_ARG_KEYS:
            n = keys.get(key)
            if not isinstance(n, yaml.SequenceNode):
                continue
            tokens = [_scalar_text(v) for v in n.value]
            flat = [t for tok in tokens for t in tok.split()] if any(" " in t for t in tokens) else tokens
            if not any(_PARALLEL_HINT.match(t) for t in flat):
                continue
            model = None
            if not any(t == "--model" or t.startswith("--model=") for t in flat):
                for scope in reversed(self.stack):      # this mapping, then its ancestors
                    for mk in _HELM_MODEL_KEYS:
                        if isinstance(scope.get(mk), yaml.ScalarNode) and _scalar_text(scope[mk]):
                            model = _scalar_text(scope[mk])
                            break
                    if model:
                        break
                else:
                    continue        # no model anywhere: a flag list, not a launch
            expanded, missing = [], []
            for t in flat:
                e, miss = self.variables.expand(t)
                expanded.append(e)
                missing += miss
            launch = ["vllm", "serve"] + ([model] if model else []) + expanded
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
            key_line = next((self.line(k) for k, v in node.value if v is n), self.line(n))
            self.out.append(Launch(self.path, key_line, launch, self.kind, unresolved))   # the `extraArgs:` line
            return True
        return False




def _child(node, *path: Any, key: bool = False):
    """The node at ``path`` below ``node`` (mapping keys, list indexes), or None.  ``key``: when the
    last step is a mapping key, its key node (the line a reader looks at) instead of its value."""
    import yaml
    found = None
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, yaml.SequenceNode) or not 0 <= step < len(node.value):
                return None
            node = found = node.value[step]
            continue
        if not isinstance(node, yaml.MappingNode):
            return None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == step:
                found, node = k, v
                break
        else:
            return None
    return found if key and path and isinstance(path[-1], str) else node


def _scalar_text(node) -> str:
    value = getattr(node, "value", "")
    return value if isinstance(value, str) else ""


def _plain(node) -> Any:
    """A composed node as plain Python (safe constructor)."""
    import yaml
    try:
        return yaml.SafeLoader(" ").construct_document(node)
    except Exception:  # noqa: BLE001 - anything odd: not a recipe
        return None


# --------------------------------------------------------------------------- recipes


def _find_strategy(start: Optional[str], name: str) -> Optional[dict]:
    yaml = _yaml()
    if yaml is None or not start:
        return None
    d = os.path.dirname(os.path.abspath(start))
    for _ in range(6):
        candidate = os.path.join(d, "strategies", name + ".yaml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, encoding="utf-8") as fh:
                    data = yaml.safe_load(fh)
            except (OSError, yaml.YAMLError, UnicodeDecodeError):
                return None
            return data if isinstance(data, dict) else None
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def _key_line(node, *path: str) -> Optional[int]:
    import yaml
    for key in path:
        if not isinstance(node, yaml.MappingNode):
            return None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                found_key, node = k, v
                break
        else:
            return None
    return found_key.start_mark.line + 1


def _strs(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _total_gpus(variables: _Vars) -> str:
    """A multi-node launch's GPU count: $TOTAL_GPUS, else $NODES × $GPUS_PER_NODE when both are known."""
    if variables.get("TOTAL_GPUS") is not None:
        return "$TOTAL_GPUS"
    nodes, per_node = variables.get("NODES"), variables.get("GPUS_PER_NODE")
    if nodes and per_node and nodes.isdigit() and per_node.isdigit():
        return str(int(nodes) * int(per_node))
    return "$TOTAL_GPUS"


def _recipe_launches(path: str, root, recipe: dict, variables: _Vars, offset: int,
                     strategies_from: Optional[str]) -> list[Launch]:
    model = recipe["model"]
    base = _strs(model.get("base_args"))
    base_env = model.get("base_env") if isinstance(model.get("base_env"), dict) else {}
    variants = recipe.get("variants") if isinstance(recipe.get("variants"), dict) else {"default": {}}
    strategies = _strs(recipe.get("compatible_strategies"))
    overrides = recipe.get("strategy_overrides") if isinstance(recipe.get("strategy_overrides"), dict) else {}
    out: list[Launch] = []
    for vname, variant in variants.items():
        variant = variant if isinstance(variant, dict) else {}
        model_id = str(variant.get("model_id") or model.get("model_id"))
        extra = _strs(variant.get("extra_args"))
        env = dict(base_env)
        if isinstance(variant.get("extra_env"), dict):
            env.update(variant["extra_env"])
        line = (_key_line(root, "variants", str(vname)) or _key_line(root, "model", "model_id") or 1) + offset
        for sname in strategies:
            strategy = _find_strategy(strategies_from or path, sname)
            if strategy is None or strategy.get("deploy_type") == "pd_cluster" or "prefill" in strategy:
                continue
            s_args = _strs(strategy.get("vllm_args"))
            o = overrides.get(sname)
            o_args = _strs(o.get("vllm_args")) if isinstance(o, dict) else []
            flag = str(strategy.get("parallel_flag") or "--tensor-parallel-size")
            multi = strategy.get("deploy_type") == "multi_node"
            parallelism = strategy.get("parallelism")
            rendezvous = ["--nnodes", "$NODES", "--node-rank", "0"] if multi else []
            total = _total_gpus(variables) if multi else "$GPUS"
            if parallelism == "tp_pp":
                par = ["--tensor-parallel-size", "$GPUS_PER_NODE", "--pipeline-parallel-size", "$NODES"] + rendezvous
            elif parallelism == "tp_dp":     # one replica per node: DP rendezvous, one local rank
                par = ["--tensor-parallel-size", "$GPUS_PER_NODE", "--data-parallel-size", "$NODES",
                       "--data-parallel-size-local", "1"]
            elif flag in ("--data-parallel-size", "-dp"):
                par = [flag, total] + (["--data-parallel-size-local", "$GPUS_PER_NODE"] if multi else [])
            else:
                par = [flag, total] + rendezvous
            env_tokens = [f"{k}={v}" for k, v in env.items() if str(k).startswith("VLLM_")]
            raw = env_tokens + ["vllm", "serve", model_id] + base + extra + s_args + o_args + par
            tokens, missing = [], []
            for t in raw:
                e, miss = variables.expand(t)
                tokens.append(e)
                missing += miss
            unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in tokens)))
            out.append(Launch(path, line, tokens, "recipe", unresolved,
                              label=f"variant {vname} × strategy {sname}"))
    return out


# --------------------------------------------------------------------------- files


def _kind(path: str, head: str) -> Optional[str]:
    name = os.path.basename(path)
    low = name.lower()
    if low.endswith((".md", ".markdown")):
        return "markdown"
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.startswith(("dockerfile", "containerfile")) or low.endswith(".dockerfile"):
        return "dockerfile"
    if low.endswith((".sh", ".bash", ".zsh")):
        return "shell"
    if head.startswith("#!") and re.match(r"#!.*\b(ba|z|da|k)?sh\b", head.splitlines()[0]):
        return "shell"
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
KINDS = ("shell", "markdown", "dockerfile", "yaml")


def _sniff_kind(text: str) -> str:
    """What text on standard input is, when neither a kind nor a file name is given."""
    if re.search(r"^\s*(`{3,}|~{3,})", text, re.M):
        return "markdown"
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    if text.startswith("#!"):
        return "shell"
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


def _text_launches(path: str, text: str, kind: str, explicit: bool, overrides: Mapping[str, str],
                   skipped: list[Skip], strategies_from: Optional[str]) -> tuple[bool, list[Launch]]:
    if kind != "markdown" and _GO_TEMPLATE.search(text):
        # not a deployment file yet: its values are filled in by `helm template`/`helm install`;
        # never fatal, so a chart in the repository does not fail a pre-commit run that names it
        skipped.append(Skip(path, GO_TEMPLATE_REASON))
        return False, []
    lines = list(enumerate(text.split("\n"), start=1))
    variables = _Vars(overrides)
    if kind == "markdown":
        return True, _markdown_launches(path, lines, variables)
    if kind == "dockerfile":
        return True, _dockerfile_launches(path, lines, variables)
    if kind == "yaml":
        yaml = _yaml()
        if yaml is None:
            skipped.append(Skip(path, "YAML not read: PyYAML is not installed (pip install 'kvguard[yaml]')",
                                fatal=explicit))
            return False, []
        out: list[Launch] = []
        try:
            docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
            for doc in docs:
                if doc is not None:
                    out += _YamlWalker(path, 0, variables, "yaml", strategies_from).walk_root(doc)
        except yaml.YAMLError as exc:
            skipped.append(Skip(path, f"unreadable: invalid YAML: {str(exc).splitlines()[0]}", fatal=explicit))
            return False, []
        except RecursionError:  # nested too deeply, or an alias that contains itself (`a: &a [*a]`)
            skipped.append(Skip(path, "unreadable: YAML nested too deeply or self-referencing", fatal=explicit))
            return False, []
        return True, out
    return True, _shell_launches(path, lines, variables, "shell")


def _file_launches(path: str, explicit: bool, overrides: Mapping[str, str],
                   skipped: list[Skip]) -> tuple[bool, list[Launch]]:
    kind = _kind(path, "")
    if kind is None:        # no telling name: a shell script only with a shell #! line
        try:
            with open(path, "rb") as fh:
                head = fh.read(256).decode("utf-8", "replace")
        except OSError as exc:
            if explicit:
                skipped.append(Skip(path, f"unreadable: {exc.strerror or exc}", fatal=True))
            return False, []
        kind = _kind(path, head)
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
    if size > MAX_FILE_BYTES:
        skipped.append(Skip(path, f"too large: {size} bytes (limit {MAX_FILE_BYTES})"))
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
            kind = stdin_kind or (_kind(stdin_filename, text[:256]) if stdin_filename else None) or _sniff_kind(text)
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
        launches += sorted(found, key=lambda l: l.line)
    for where, why in dict.fromkeys(problems):
        skipped.append(Skip(where, why))
    return launches, skipped, files


# --------------------------------------------------------------------------- checking


def _mentions(text: str, unresolved: Iterable[str]) -> list[str]:
    hits = []
    for name in unresolved:
        if name.startswith(("$", "`", "<", ".", "…")):
            if name in text:
                hits.append(name)
        elif re.search(r"\$[{(]?" + re.escape(name) + r"\b", text):
            hits.append(name)
    return hits


#: fields whose value no modelled check reads (only whether they are given)
_VALUE_FREE = frozenset({"data_parallel_address"})


def _var_label(names: list[str]) -> str:
    return ", ".join(n if n.startswith(("$", "`", "<", ".", "…")) else "$" + n for n in names)


def _unresolved(launch: Launch, hits: list[str]) -> Finding:
    if all(h.startswith(("<", ".", "…")) for h in hits):
        return Finding(launch, "undecidable", reason=f"placeholder {', '.join(hits)} in the launch",
                       reason_kind="placeholder")
    return Finding(launch, "undecidable", reason=f"unresolved variable {_var_label(hits)} "
                   f"(give it with --set NAME=VALUE)", reason_kind="unresolved-variable")


#: a value for an option's value slot that its argparse ``type`` accepts (a typed slot holding an
#: unresolved variable); a slot of any other type keeps the variable as written
_VALID_VALUE = {"int": "1", "float": "1", "_optional_type": "1", "human_readable_int": "1",
                "human_readable_int_or_auto": "1", "loads": "{}"}
_ENV_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _refused_whatever_the_variables_hold(launch: Launch, release, build_report) -> Optional["Finding"]:
    """The refusal of vLLM's argument parser when it stands whatever the unresolved variables hold,
    else None.

    A variable is taken to stand for one word that is not an option (how ``-tp $TP`` and
    ``vllm serve $MODEL`` are written).  It can then change the parser's answer only through its
    value, so the refusal stands when every word holding a variable is a value of an option (not
    ``--config``, whose file could say anything), the model right after ``vllm serve``, or a
    ``VAR=value`` prefix, and the command line still refuses with each typed value slot holding a
    value its type accepts — with a message that names no variable.  A variable anywhere else (an
    extra word, an option's name, after ``--``) could add or remove arguments: None."""
    from ..launch.argv import launcher_and_arguments, option_spans, option_table, parse_serve

    unresolved = launch.unresolved
    prefix, args = launcher_and_arguments(launch.tokens)
    for word in prefix:
        if _mentions(word, unresolved) and not (_ENV_PREFIX.match(word) and
                                                not _mentions(word.split("=", 1)[0], unresolved)):
            return None
    table = option_table(release)
    spans, _ = option_spans(args, release)
    values: dict[int, Any] = {}      # index in args of an option's value -> the option's spec
    inline: dict[int, Any] = {}      # index in args of an `--option=value` word -> the option's spec
    for found in spans.values():
        for start, end, opt in found:
            for i in range(start + 1, end):
                values[i] = table[opt]
            if "=" in args[start]:
                inline[start] = table[opt]
    probed = list(args)
    for i, word in enumerate(args):
        if not _mentions(word, unresolved):
            continue
        if i in inline:
            name = word.split("=", 1)[0]
            spec = inline[i]
            if _mentions(name, unresolved):
                return None
        elif i in values:
            name, spec = None, values[i]
        elif i == 0 and prefix[-1:] == ["serve"] and not word.startswith("-"):
            continue                 # the model, as `vllm serve MODEL` gives it
        else:
            return None
        if spec.dest == "config":
            return None
        valid = str(spec.choices[0]) if spec.choices else _VALID_VALUE.get(spec.type or "")
        if valid is not None:
            probed[i] = valid if name is None else f"{name}={valid}"
    tokens = prefix + probed
    try:
        parse_serve(tokens, release)
    except ArgparseRefusal as refusal:
        if _mentions(refusal.message, unresolved):
            return None
    except InputError:
        return None
    else:
        return None                 # the refusal was about a variable's value
    report = build_report(release, tokens)
    if report.verdict.ok or report.verdict.stage != "argparse":
        return None
    names = _var_label(_mentions(" ".join(launch.tokens), unresolved))
    report.verdict = report.verdict.with_notes(
        f"{names} unresolved: vLLM's argument parser refuses this command line whatever "
        f"{'it holds' if ', ' not in names else 'they hold'} (the refusal is about other arguments)")
    return Finding(launch, "refused", report=report)


def check_launch(launch: Launch, release, build_report: Callable[[Any, list[str]], Any]) -> Finding:
    """Check one launch against ``release``: ``build_report(release, tokens)`` returns a LaunchReport
    (or raises KvguardError) — :func:`kvguard.front.examine` with the options bound."""
    from ..launch.argv import parse_serve

    if launch.unresolved:
        try:
            cmd = parse_serve(launch.tokens, release)
        except InputError as exc:
            if isinstance(exc, ArgparseRefusal):
                refused = _refused_whatever_the_variables_hold(launch, release, build_report)
                if refused is not None:
                    return refused
            hits = _mentions(str(exc), launch.unresolved)
            if hits:
                return _unresolved(launch, hits)
            return Finding(launch, "undecidable", reason=str(exc), reason_kind="bad-arguments")
        relevant = [cmd.model or ""] + [str(v) for k, v in cmd.fields.items() if k not in _VALUE_FREE] + \
            [v for k, v in cmd.env.items() if k.startswith("VLLM_")]
        hits = _mentions(" ".join(relevant), launch.unresolved)
        if hits:
            return _unresolved(launch, hits)
    try:
        report = build_report(release, launch.tokens)
    except InputError as exc:
        return Finding(launch, "undecidable", reason=str(exc), reason_kind="bad-arguments")
    except Undecidable as exc:
        kind = "unknown-model" if "cannot find a config.json" in str(exc) else "undecidable"
        return Finding(launch, "undecidable", reason=str(exc), reason_kind=kind)
    except KvguardError as exc:
        return Finding(launch, "undecidable", reason=str(exc), reason_kind=type(exc).__name__)
    except RecursionError:
        return Finding(launch, "undecidable", reason="input nested too deeply", reason_kind="bad-arguments")
    return Finding(launch, "accepted" if report.verdict.ok else "refused", report=report)


def release_for(launch: Launch, vllm_version=None, *, nearest: bool = False,
                source: str = "the release asked for", default: Optional[ReleaseChoice] = None) -> ReleaseChoice:
    """The release ``launch`` is checked against (:mod:`kvguard.launch.pins`): ``vllm_version`` when given
    (an override, described as ``source``), else the release its deployment pins, else ``default``
    (the installed vLLM, else the newest known).  Raises UnsupportedVersion for a bad ``vllm_version``."""
    from ..versions import resolve

    override = ReleaseChoice(resolve(vllm_version, nearest=nearest), source) if vllm_version is not None else None
    return choose_release(launch.pin, override, default or default_release(nearest), nearest)


def _check_choice(launch: Launch, choice: ReleaseChoice, build_report: Callable[[Any, list[str]], Any]) -> Finding:
    if choice.release is None:
        finding = Finding(launch, "undecidable", reason=choice.reason, reason_kind="unknown-version")
    else:
        finding = check_launch(launch, choice.release, build_report)
    finding.vllm_version, finding.vllm_version_source = choice.key, choice.source
    finding.release_pinned = choice.pinned
    return finding


def scan(paths: Iterable[str], release=None, build_report: Optional[Callable[[Any, list[str]], Any]] = None,
         variables: Optional[Mapping[str, str]] = None, *, nearest: bool = False,
         release_source: str = "the release asked for", **find_options: Any) -> ScanResult:
    """Find the launches under ``paths`` and check each against its release.

    ``release`` (a version string or Release) overrides every pin, described as
    ``release_source``; without it each launch uses the release its deployment pins, else the
    default (:mod:`kvguard.launch.pins`).  ``build_report(release, tokens)`` checks one launch
    (default: :func:`kvguard.front.examine` on the standard host).  ``find_options`` go to
    :func:`find_launches` (``exclude``, ``exclude_root``, ``stdin_text``, ``stdin_kind``,
    ``stdin_filename``)."""
    from ..versions import resolve

    if build_report is None:
        from ..front import examine as build_report
    override = ReleaseChoice(resolve(release, nearest=nearest), release_source) if release is not None else None
    default = override or default_release(nearest)
    launches, skipped, files = find_launches(paths, variables, **find_options)
    result = ScanResult(skipped=skipped, files=files, vllm_version=default.key,
                        vllm_version_source=default.source if default.release is not None else default.reason)
    for launch in launches:
        choice = choose_release(launch.pin, override, default, nearest)
        result.findings.append(_check_choice(launch, choice, build_report))
    return result


def summarize(result: ScanResult) -> dict[str, Any]:
    by_reason: dict[str, int] = {}
    for f in result.findings:
        if f.status == "undecidable":
            by_reason[f.reason_kind or "undecidable"] = by_reason.get(f.reason_kind or "undecidable", 0) + 1
    checked = [f for f in result.findings if f.status != "undecidable"]
    return {
        "files": result.files,
        "found": len(result.findings),
        "checked": len(checked),
        "accepted": sum(f.status == "accepted" for f in result.findings),
        "refused": sum(f.status == "refused" for f in result.findings),
        "undecidable": len(result.findings) - len(checked),
        "undecidable_by_reason": dict(sorted(by_reason.items())),
        "skipped_files": len(result.skipped),
    }
