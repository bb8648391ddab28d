"""Shell scripts (``*.sh``, ``*.bash``, ``*.zsh``, a shell ``#!``) and the shell lines of every other
kind of file: logical lines (``\\`` continuations, terminal transcripts), commands split at
``;`` ``&&`` ``||`` ``|`` ``&``, and the launch in a command (``vllm serve``, the api_server module,
``docker run … vllm/vllm-openai``).
"""

from __future__ import annotations

import re
import shlex
from functools import partial
from typing import Callable, Iterable, Iterator, NamedTuple, Optional

from ..launch.images import CONTAINER_CLIS
from ..launch.pins import image_pin, pip_pin, runner_pin
from .assignments import AssignmentCommand, assignment_command, open_substitution
from .beside import not_beside, read_beside
from .conditions import arm_matches, condition_value, default_name
from .gpus import visible_devices_gpus
from .heredocs import HereDocument, continues, expanded_body, operators, set_apart, unescaped
from .matrices import Collector
from .result import Launch
from .shellblocks import Block, Lines, condition_loop_header, function_header, loop_header, read_block
from .undecidable import mentions
from .variables import ENV_TOKEN, LITERAL_DOLLAR, POSITIONAL, Variables, blank_quoted, launch_reads, translate_quoted

__all__ = ["IMAGE_RUNS_FIRST", "LAUNCH_HINT", "PLACEHOLDER", "CommandLaunch", "ShellSession", "has_prompts",
           "invocation_set_words", "is_container_run", "launch_and_image", "launch_tokens", "logical_lines", "one_word",
           "shebang_option_words", "shell_command_options", "shell_launches", "split_commands", "start_shell_with",
           "starts_its_own_launcher"]

LAUNCH_HINT = re.compile(r"\bvllm(?:\.entrypoints\.cli\.main|@[0-9][\w.+!-]*)?\s+serve\b|vllm\.entrypoints\.openai\.api_server|"
                         r"vllm/vllm-openai")

_ASSIGN = re.compile(r"^\s*(export\s+|declare\s+-x\s+|declare\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)="
                     r"((?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s\"'])*)\s*(?:#.*)?$")

#: a bash array assignment, ``A=(-tp 8)`` / ``A+=(…)``, whose elements may continue over the lines below
_ARRAY = re.compile(r"^\s*(?:declare\s+-a\s+|local\s+(?:-a\s+)?|readonly\s+(?:-a\s+)?)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)$")

#: the lines one array assignment may span
_MAX_ARRAY_LINES = 500

#: `unset X Y`, `unset -v X`; `export X Y` / `declare -x X` of variables set before
_NAMES = r"([A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:#.*)?$"
_UNSET = re.compile(r"^\s*unset\s+(?:-v\s+)?" + _NAMES)
_EXPORT = re.compile(r"^\s*(?:export|declare\s+-x)\s+" + _NAMES)
#: `local X Y` / `declare X` in a function: the names are the function's own from here on, unset
_LOCAL = re.compile(r"^\s*(?:local|declare)(?:\s+-[aAilnrtux]+)*\s+" + _NAMES)
#: the words that make an assignment in a function the function's own (``declare -g`` is the script's)
_LOCAL_WORDS = re.compile(r"^\s*(?:local\b|declare\b(?![^=]*\s-[a-zA-Z]*g))")

_OPERATORS = {";", "&&", "||", "|", "&", ";;", "|&"}
#: operator characters a quote or a backslash makes characters of a word (``';'``, ``\\&``): kept apart while
#: the line is split, which would otherwise take a word ``;`` for the operator
_QUOTED_OPERATOR = str.maketrans({";": "\ue030", "&": "\ue031", "|": "\ue032"})
_OPERATOR_CHARACTER = str.maketrans({"\ue030": ";", "\ue031": "&", "\ue032": "|"})

_WRAPPERS = {"env", "exec", "sudo", "nohup", "time", "command", "nice"}

#: programs that run their command somewhere else (another container, another host): the environment
#: of the command line that calls them is not the launch's
_ELSEWHERE = CONTAINER_CLIS | {"kubectl", "oc", "ssh"}

#: commands whose arguments are text, not a command they run (`echo Starting vllm serve now`)
_TEXT_COMMANDS = frozenset({"echo", "printf", "logger", "pgrep", "pkill", "grep", "egrep", "fgrep", "ps", "kill",
                            "killall", "sed", "awk", "wall", "notify-send"})


def split_commands(text: str) -> list[list[str]]:
    """The commands of one line of expanded shell text, each as its words (comments were cut before expansion:
    a ``#`` here is a character of a word, as in ``--served-model-name a#b``)."""
    lex = shlex.shlex(translate_quoted(text, _QUOTED_OPERATOR), posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        tokens = list(lex)
    except ValueError:
        return []
    out: list[list[str]] = []
    cur: list[str] = []
    for tok in tokens:
        if tok in _OPERATORS:
            out.append(cur)
            cur = []
        else:
            cur.append(tok.translate(_OPERATOR_CHARACTER))
    out.append(cur)
    return [c for c in out if c]


def _program(word: str) -> str:
    """The program a command word names: its file name, without a tool runner's ``@VERSION`` (``uvx vllm@0.28.0``)."""
    name = word.rsplit("/", 1)[-1]
    return name.split("@", 1)[0] if name.startswith("vllm@") else name


def _is_launcher(tokens: list[str], i: int) -> bool:
    tok = tokens[i]
    if _program(tok) == "vllm" and i + 1 < len(tokens) and tokens[i + 1] == "serve":
        return True
    if not (tok.rsplit("/", 1)[-1].startswith("python") and i + 2 < len(tokens) and tokens[i + 1] == "-m"):
        return False
    module = tokens[i + 2]
    return module == "vllm.entrypoints.openai.api_server" or (
        module in ("vllm.entrypoints.cli.main", "vllm") and i + 3 < len(tokens) and tokens[i + 3] == "serve")


PLACEHOLDER = re.compile(r"^(<[A-Za-z][^<>\s]*>|\.\.\.|…)$")     # <MODEL>, `vllm serve ... --flag`
#: a placeholder inside a value (`--speculative-config '{"model": <draft_model>}'`): a name with an underscore or
#: dash, or in capitals — not a tag a value may really hold (`<s>`, `<think>`)
EMBEDDED_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9]*[_-][A-Za-z0-9_-]*>|<[A-Z][A-Z0-9_]*>")


def _strip_redirections(tokens: list[str]) -> list[str]:
    for i, tok in enumerate(tokens):
        if PLACEHOLDER.match(tok):     # `vllm serve <MODEL>`: a placeholder, not a redirection
            continue
        if re.match(r"^\d*(>>?|<)", tok) or tok in (">", ">>", "<", "2>", "&>"):
            return tokens[:i]
    return tokens


#: words of the shell's grammar that may come before a simple command's own first word
_KEYWORDS = frozenset({"if", "then", "elif", "else", "while", "until", "do", "!", "{"})

#: how deep command strings are read inside command strings (`ssh host "bash -c '…'"`)
_MAX_NESTING = 3


def _command_index(cmd: list[str]) -> Optional[int]:
    """The index of a simple command's command word (after ``NAME=value`` words and ``if`` / ``then`` …)."""
    return next((i for i, t in enumerate(cmd) if not ENV_TOKEN.match(t) and t not in _KEYWORDS), None)


def _command_strings(cmd: list[str]) -> list[str]:
    """The command lines a simple command runs from a string argument (``bash -c "…"``, ``su -c "…"``,
    ``tmux new-session -d "…"``, ``ssh host "…"``): its arguments that hold a launch and more than one word
    (a command whose arguments are text, ``echo "…"``, runs none)."""
    start = _command_index(cmd)
    if start is None or cmd[start].rsplit("/", 1)[-1] in _TEXT_COMMANDS:
        return []
    return [t for t in cmd[start + 1:] if LAUNCH_HINT.search(t) and len(t.split()) > 1]


#: shells a command string is given to (``bash -c '…'``): a new process, which sees the exported variables only
_CHILD_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
#: ``kubectl`` / ``oc`` subcommands that take a manifest (``-f -``: a here-document)
_APPLY = frozenset({"apply", "create", "replace"})


def _here_document_launches(path: str, command: str, document: HereDocument, variables: Variables, kind: str,
                            nesting: int) -> list[Launch]:
    """The launches of a here-document, read as what ``command`` (the text before its operator) does with it: a
    manifest ``kubectl apply -f -`` / ``oc`` applies, a program ``python`` runs (a new process: the exported
    variables), or shell text — a script ``bash`` / ``sh`` runs or ``cat > run.sh`` writes (the exported
    variables), or that ``ssh`` / ``docker`` / ``kubectl exec`` runs elsewhere (only ``--set``).  An unquoted
    body is expanded first, as the script's shell does; what it cannot expand stays unresolved."""
    from .python import PythonUnreadable, python_launches
    from .yamlfiles import yaml_text_launches

    words = command.split()
    index = _command_index(words)
    while index is not None and index < len(words) and words[index] in _WRAPPERS:
        index += 1
    program = words[index].rsplit("/", 1)[-1] if index is not None and index < len(words) else ""
    body = expanded_body(document)
    missing: list[str] = []
    if not document.quoted:
        expanded = []
        for lineno, text in body:
            line, more = variables.expand(unescaped(text, LITERAL_DOLLAR))
            expanded.append((lineno, line))
            missing += more
        body = expanded
    if not body:
        return []
    prefixes = words[:index] if index is not None else []
    if program in ("kubectl", "oc") and _APPLY & set(words):
        launches = yaml_text_launches(path, body, Variables(variables.overrides), "yaml")
    elif program.startswith("python"):
        source = "\n".join(text for _, text in body)
        try:
            launches = python_launches(path, source, _runner_scope(prefixes + ["python"], variables, child=True),
                                       "python")
        except PythonUnreadable:
            return []
        for launch in launches:
            launch.line += body[0][0] - 1
    else:
        elsewhere = program in _ELSEWHERE
        scope = Variables(variables.overrides) if elsewhere else _runner_scope(prefixes + ["bash"], variables,
                                                                                child=True)
        if program in _CHILD_SHELLS and index is not None:
            start_shell_with(scope, words[index + 1:])      # `bash -e <<EOF`: the options its words give
        launches = shell_launches(path, body, scope, kind, _nesting=nesting + 1)
    for launch in launches:
        pieces = [piece for piece in dict.fromkeys(missing) if piece not in launch.unresolved]
        launch.unresolved += tuple(mentions(" ".join(launch.tokens), pieces))
    return launches


def _runner_scope(cmd: list[str], variables: Variables, child: bool = False) -> Variables:
    """The variables a command string sees: a child shell's, the exported ones and the command's own ``NAME=value``
    prefixes (a variable the script does not export is not there); ``ssh``'s, another machine's (``--set`` only);
    any other runner's, the script's as they are (``child``: a new process's all the same)."""
    start = _command_index(cmd)
    runner = cmd[start].rsplit("/", 1)[-1] if start is not None else ""
    if runner not in _CHILD_SHELLS and runner != "ssh" and not child:
        return variables
    scope = Variables(variables.overrides)
    scope.pin = variables.pin
    if runner == "ssh":
        return scope
    for name in variables.exported:
        value = variables.get(name)
        if value is not None:
            scope.set_known(name, value)
        elif name in variables.unknown:
            scope.set_unknown(name)
        scope.exported.add(name)
    for word in cmd[:start]:
        if ENV_TOKEN.match(word):
            name, _, value = word.partition("=")
            scope.set_known(name, value)
            scope.exported.add(name)
    if runner in _CHILD_SHELLS and start is not None:
        start_shell_with(scope, cmd[start + 1:])       # `bash -eu -c '…'`: the options its words give
    return scope


def launch_tokens(cmd: list[str]) -> Optional[list[str]]:
    """The ``vllm serve …`` part of one simple command (with its VAR=value prefix), or None."""
    return launch_and_image(cmd)[0]


def _option_values(cmd: list[str], names: tuple[str, ...]) -> list[str]:
    """The values of every ``--name VALUE`` / ``--name=VALUE`` among ``cmd``, in order."""
    values = []
    for j, tok in enumerate(cmd):
        if tok in names and j + 1 < len(cmd):
            values.append(cmd[j + 1])
        elif tok.split("=", 1)[0] in names and "=" in tok:
            values.append(tok.split("=", 1)[1])
    return values


def _option_value(cmd: list[str], names: tuple[str, ...]) -> Optional[str]:
    """The value of the last ``--name VALUE`` / ``--name=VALUE`` among ``cmd``."""
    values = _option_values(cmd, names)
    return values[-1] if values else None


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


def _env_options(options: list[str]) -> Iterator[tuple[str, str]]:
    """``("env", NAME[=value])`` for each ``-e`` / ``--env`` among ``docker run``'s options, and ``("file",
    path)`` for each ``--env-file``, in their order."""
    for j, t in enumerate(options):
        if t in ("-e", "--env", "--env-file") and j + 1 < len(options):
            yield ("file" if t == "--env-file" else "env"), options[j + 1]
        elif t.startswith("--env-file="):
            yield "file", t[len("--env-file="):]
        elif t.startswith("--env="):
            yield "env", t[len("--env="):]
        elif t.startswith("-e") and len(t) > 2 and not t.startswith("--"):
            yield "env", t[2:]


def _container_env(options: list[str]) -> list[str]:
    """``NAME=value`` given with ``-e`` / ``--env`` among ``docker run``'s options."""
    return [value for kind, value in _env_options(options) if kind == "env" and ENV_TOKEN.match(value)]


def _run_options(cmd: list[str]) -> Optional[list[str]]:
    """The words of a ``docker run`` / ``podman run`` command before its image (its options), or None for
    any other command."""
    cli = _container_cli_at(cmd)
    if cli is None:
        return None
    cmd = cmd[cli:]
    at = _container_image_at(cmd, cmd.index("run"))
    return cmd[:at] if at is not None else cmd


def container_env_inputs(cmd: list[str]) -> tuple[list[str], list[str]]:
    """What else a ``docker run`` gives its container's environment: the names ``-e NAME`` passes from the
    docker command's own environment, and the ``--env-file`` files (in their order)."""
    options = _run_options(cmd)
    if options is None:
        return [], []
    found = list(_env_options(options))
    names = [value for kind, value in found if kind == "env" and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", value)]
    return names, [value for kind, value in found if kind == "file"]


def container_gpus(cmd: list[str]) -> Optional[int]:
    """The GPUs ``docker run`` gives its container (:func:`container_gpus_given`)."""
    return container_gpus_given(cmd)[0]


def container_gpus_given(cmd: list[str]) -> tuple[Optional[int], Optional[str]]:
    """(the GPUs ``docker run`` gives its container, the option that does): ``--gpus 2``, ``count=2``,
    ``"device=0,1"`` (the ids listed), ``--device nvidia.com/gpu=0`` (CDI, one per GPU), else ``-e
    NVIDIA_VISIBLE_DEVICES=0,1`` (read by the NVIDIA runtime when no device is requested); (None, None) for
    ``all`` (the node's), none given, or a form not read."""
    options = _run_options(cmd)
    if options is None:
        return None, None
    # CDI devices (podman, Docker 25+): `--device nvidia.com/gpu=0` per GPU, `=all` for the node's
    cdi = [value.split("=", 1)[1] for value in _option_values(options, ("--device",))
           if value.startswith("nvidia.com/gpu=")]
    if cdi:
        return (None, None) if "all" in cdi else (len(cdi), "docker run --device nvidia.com/gpu")
    value = _option_value(options, ("--gpus",))
    if value is None:
        visible = [word.split("=", 1)[1] for word in _container_env(options)
                   if word.startswith("NVIDIA_VISIBLE_DEVICES=")]
        n = visible_devices_gpus(visible[-1]) if visible else None
        return (n, f"docker run -e NVIDIA_VISIBLE_DEVICES={visible[-1]}") if n is not None else (None, None)
    value = value.strip().strip("'\"")
    if value.isdigit():
        return int(value), "docker run --gpus"
    for part in value.split(","):
        part = part.strip().strip("'\"")
        if part.startswith("count=") and part[len("count="):].isdigit():
            return int(part[len("count="):]), "docker run --gpus"
    if value.startswith("device="):
        ids = [d for d in value[len("device="):].split(",") if d and "=" not in d]
        return (len(ids), "docker run --gpus") if ids else (None, None)
    return None, None


def read_env_file(script: str, name: str) -> Optional[list[tuple[str, Optional[str]]]]:
    """The entries of a docker ``--env-file`` (``NAME=value`` taken literally, ``NAME`` alone passed from the
    docker command's environment: None), the file's path taken from the scanned file's directory; None when it
    cannot be read there."""
    text = read_beside(script, name)
    if text is None:
        return None
    entries: list[tuple[str, Optional[str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        entries.append((key.strip(), value if sep else None))
    return entries


def _container_environment(path: str, cmd: list[str], given: set[str],
                           variables: Variables) -> tuple[list[str], list[str], list[str]]:
    """``NAME=value`` words (of the variables a check reads, :func:`launch_reads`) a ``docker run`` adds
    beyond its ``-e NAME=value`` ones (``--env-file`` entries, ``-e NAME`` from the docker command's
    environment: the script's exported value), the names among them whose values are unknown (written
    ``NAME=$NAME``), and notes on files not read."""
    passed, files = container_env_inputs(cmd)
    words: list[str] = []
    unknown: list[str] = []
    notes: list[str] = []

    def add(name: str, value: Optional[str]) -> None:
        if name in given or not launch_reads(name):     # (an env file's other entries may be secrets)
            return
        given.add(name)
        if value is not None:
            words.append(f"{name}={value}")
        else:
            words.append(f"{name}=${name}")
            unknown.append(name)

    def from_host(name: str) -> None:
        """``name`` as the docker command's environment holds it: the script's exported value (unknown when
        the script did not set it); one the script set without exporting is not passed at all."""
        if name in variables.overrides or name in variables.exported:
            add(name, variables.get(name))
        elif name in variables.local or name in variables.unknown:
            given.add(name)
        else:
            add(name, None)

    for name in passed:
        from_host(name)
    for env_file in reversed(files):      # the last file's entry wins; -e entries win over every file
        entries = read_env_file(path, env_file)
        if entries is None:
            notes.append(not_beside("--env-file", env_file))
            continue
        for name, value in reversed(entries):
            if value is None:
                from_host(name)
            else:
                add(name, value)
    return words, unknown, notes


class CommandLaunch(NamedTuple):
    """The launch in one simple command (None if none), the container image it runs in, and whether
    that image's own entrypoint starts it (its launcher is then written ``vllm serve``:
    :mod:`kvguard.launch.images`)."""

    tokens: Optional[list[str]]
    image: Optional[str] = None
    image_entrypoint: bool = False
    #: what of the script's exported variables a wrapper lets through (``env -i``, ``env -u``, ``sudo``)
    passes: "Optional[Passed]" = None


class Passed(NamedTuple):
    """The exported variables a launch's wrappers pass on: only ``kept`` (None: all) less ``removed``, with the
    assumption that decided it."""

    kept: Optional[frozenset[str]] = None
    removed: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()

    def lets(self, name: str) -> bool:
        return name not in self.removed and (self.kept is None or name in self.kept)


_ALL_PASSED = Passed()
#: sudo's options that take a value (``-u USER``)
_SUDO_VALUE_OPTIONS = frozenset("ugCDhprtTU")
SUDO_RESETS = ("sudo without -E: the script's exported variables are not passed unless --preserve-env names them "
               "(sudo's default env_reset; a sudoers env_keep could pass some)")


def _wrappers_pass(words: list[str]) -> Passed:
    """What the wrappers ``words`` (from the command word to the launcher) let through of the environment:
    ``env -i`` / ``env -`` nothing, ``env -u NAME`` all but NAME, ``exec -c`` nothing, ``sudo`` nothing unless
    ``-E`` (``--preserve-env=A,B``: those)."""
    kept: Optional[set[str]] = None
    removed: set[str] = set()
    notes: list[str] = []
    i = 0
    while i < len(words):
        program = words[i].rsplit("/", 1)[-1]
        j = i + 1
        if program == "env":
            while j < len(words) and words[j].startswith("-"):
                word = words[j]
                if word in ("-i", "-", "--ignore-environment"):
                    kept = set()
                elif word in ("-u", "--unset") and j + 1 < len(words):
                    removed.add(words[j + 1])
                    j += 1
                elif word.startswith(("--unset=", "-u")):
                    removed.add(word.split("=", 1)[1] if word.startswith("--") else word[2:])
                elif word == "--":
                    j += 1
                    break
                j += 1
        elif program == "exec":
            while j < len(words) and words[j].startswith("-"):
                if "c" in words[j][1:] and not words[j].startswith("--"):
                    kept = set()
                j += 1 + (words[j] == "-a")
        elif program == "sudo":
            preserve: Optional[set[str]] = set()
            while j < len(words) and words[j].startswith("-") and words[j] != "--":
                word = words[j]
                if word in ("-E", "--preserve-env"):
                    preserve = None
                elif word.startswith("--preserve-env="):
                    if preserve is not None:
                        preserve |= set(word.split("=", 1)[1].split(","))
                elif not word.startswith("--") and "E" in word[1:]:
                    preserve = None
                if not word.startswith("--") and word[-1] in _SUDO_VALUE_OPTIONS and len(word) == 2:
                    j += 1
                j += 1
            if preserve is not None:
                kept = preserve if kept is None else kept & preserve
                notes.append(SUDO_RESETS)
        i = j
    return Passed(frozenset(kept) if kept is not None else None, frozenset(removed), tuple(notes))




def _srun_export(options: list[str]) -> "tuple[Passed, list[str]]":
    """What ``srun``'s ``--export`` (its last, among ``options``: the words before the command it runs) passes of
    the caller's environment, and the ``NAME=value`` words it sets: ``ALL`` (the default) all, ``NONE`` none (the
    ``SLURM_*`` ones srun sets are not the launch's), else only the names it lists; ``NAME=value`` entries are set
    in either case."""
    export: Optional[str] = None
    for k, word in enumerate(options):
        if word.startswith("--export="):
            export = word.split("=", 1)[1]
        elif word == "--export" and k + 1 < len(options):
            export = options[k + 1]
    if export is None:
        return _ALL_PASSED, []
    entries = [e for e in export.split(",") if e]
    given = [e for e in entries if ENV_TOKEN.match(e)]
    if "ALL" in entries:
        return _ALL_PASSED, given
    names = {e.split("=", 1)[0] for e in entries if e != "NONE"}
    return Passed(frozenset(names)), given


def _vllm_image_launch(cmd: list[str]) -> Optional[CommandLaunch]:
    """The launch of ``docker run … vllm/vllm-openai:TAG ARGS`` (None for any other command): ARGS after the
    image's entrypoint — also when ARGS start with a launcher of their own, which the entrypoint then receives
    as arguments —, or after ``--entrypoint X``; CommandLaunch(None) when the container runs no server."""
    cli = _container_cli_at(cmd)
    if cli is None:
        return None
    cmd = cmd[cli:]
    at = _container_image_at(cmd, cmd.index("run"))
    if at is None or "vllm/vllm-openai" not in cmd[at]:
        return None
    image = cmd[at]
    rest = _strip_redirections(cmd[at + 1:])
    env = _container_env(cmd[:at])
    entrypoint = _option_value(cmd[:at], ("--entrypoint",))
    if entrypoint is not None:
        # `--entrypoint X` replaces the image's; the arguments follow X
        try:
            rest = shlex.split(entrypoint) + rest
        except ValueError:
            return CommandLaunch(None)
        return CommandLaunch(env + rest, image) if _is_launcher(rest, 0) else CommandLaunch(None)
    if not rest or (rest[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh", "python", "python3")
                    and not _is_launcher(rest, 0)):
        return CommandLaunch(None)     # an interactive container or another program: not a launch
    return CommandLaunch(env + ["vllm", "serve"] + rest, image, image_entrypoint=True)


#: said of an image launch whose arguments start with a launcher again
IMAGE_RUNS_FIRST = "the image's own entrypoint runs before this command, which starts with its own launcher"


#: options of the wrappers (sudo's) that take a value
_WRAPPER_VALUED = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-U", "--user", "--group", "-n"})


def _container_cli_at(cmd: list[str]) -> Optional[int]:
    """The index of ``docker`` / ``podman`` / ``nerdctl`` in a ``… run`` (``container run``) command, after
    ``NAME=value`` words and wrappers with their options (``sudo -E docker run``); None for any other."""
    i = 0
    while i < len(cmd):
        word = cmd[i]
        if word.rsplit("/", 1)[-1] in CONTAINER_CLIS:
            return i if "run" in cmd[i + 1:i + 3] else None
        if word in _WRAPPER_VALUED and i > 0 and cmd[0].rsplit("/", 1)[-1] == "sudo":
            i += 2
            continue
        if not (ENV_TOKEN.match(word) or word in _KEYWORDS or word.rsplit("/", 1)[-1] in _WRAPPERS
                or word.startswith("-") and i > 0):
            return None
        i += 1
    return None


def is_container_run(cmd: list[str]) -> bool:
    """A ``docker run`` / ``podman run`` / ``nerdctl run`` command (``sudo`` and ``NAME=value`` before it
    allowed)."""
    return _container_cli_at(cmd) is not None


def starts_its_own_launcher(tokens: list[str]) -> bool:
    """An image launch (``NAME=value`` words, the entrypoint written ``vllm serve``, the arguments) whose
    arguments start with a launcher again: the image's entrypoint receives it as arguments."""
    start = 0
    while start < len(tokens) and ENV_TOKEN.match(tokens[start]):
        start += 1
    return start + 2 < len(tokens) and _is_launcher(tokens, start + 2)


def launch_and_image(cmd: list[str]) -> CommandLaunch:
    """The launch in one simple command, and the container image it runs in."""
    in_image = _vllm_image_launch(cmd)
    if in_image is not None:
        return in_image
    start = _command_index(cmd)
    if start is not None and cmd[start].rsplit("/", 1)[-1] in _TEXT_COMMANDS:
        return CommandLaunch(None)
    for i in range(len(cmd)):
        if _is_launcher(cmd, i):
            start = i
            while start > 0 and (ENV_TOKEN.match(cmd[start - 1]) or cmd[start - 1] in _WRAPPERS):
                start -= 1
            if cmd[i] != "vllm" and _program(cmd[i]) == "vllm" and "/" not in cmd[i]:
                cmd = cmd[:i] + ["vllm"] + cmd[i + 1:]      # `uvx vllm@0.28.0 serve`: vllm's own command line
            command = _command_index(cmd)
            if command is None or command >= start:
                passes = _wrappers_pass(cmd[command:i]) if command is not None else _ALL_PASSED
                # the command line's own leading assignments are the environment the wrappers start with
                leading = [w for w in cmd[start:command] if passes.lets(w.split("=", 1)[0])]
                return CommandLaunch(_strip_redirections(leading + cmd[command:]) if command is not None
                                     else _strip_redirections(cmd[start:]), passes=passes)
            # vllm started by another command: the command line's own leading assignments are the environment
            # it runs vllm in (`CUDA_VISIBLE_DEVICES=0,1 numactl … vllm serve`), unless it runs vllm elsewhere
            # (`docker exec`, `ssh`); a NAME=value word among another program's arguments is that program's
            # (`uvx --from vllm==0.28.0 vllm serve`), among env's or sudo's it is the environment
            program = cmd[command].rsplit("/", 1)[-1]
            if program not in _WRAPPERS:
                while start < i and ENV_TOKEN.match(cmd[start]):
                    start += 1
            passes = _wrappers_pass(cmd[command:start]) if program in _WRAPPERS else _ALL_PASSED
            given: list[str] = []
            if program == "srun":
                passes, given = _srun_export(cmd[command + 1:start])
            leading = [] if program in _ELSEWHERE else [w for w in cmd[:command] if ENV_TOKEN.match(w)
                                                        and passes.lets(w.split("=", 1)[0])]
            return CommandLaunch(_strip_redirections(leading + given + cmd[start:]), passes=passes)
    return CommandLaunch(None)


#: an interactive prompt in a Markdown terminal transcript: `$ `, `% `, `(venv) $ `, `user@host:~/dir$ `
_PROMPT = re.compile(r"^\s*(?:\([^()\s]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*?)?\s*)?[$%]\s+")

#: the shell's continuation prompt (PS2) in a transcript
_PS2 = re.compile(r"^\s*>\s?")

#: a quoted argument continued over more transcript lines than this ends the command
_MAX_QUOTED_LINES = 200


def has_prompts(lines: list[tuple[int, str]]) -> bool:
    return any(_PROMPT.match(text) for _, text in lines)


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text)
    except ValueError:
        return True
    return False


def logical_lines(lines: list[tuple[int, str]], prompts: bool = False,
                  dockerfile: bool = False) -> Iterator[tuple[int, str]]:
    """Commands as the shell reads them: ``\\`` continuations joined, comments cut; a comment line ends a
    continued command.

    ``prompts``: the lines are a terminal transcript (`$ cmd`): only prompted lines start a
    command, `> ` continuation prompts are removed, an unclosed quote continues the command,
    and every other line is the commands' output.  ``dockerfile``: Docker's reading, which removes comment
    lines before it joins continued ones and leaves the other ``#`` to the shell that runs the instruction."""
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
        if dockerfile:
            if text.lstrip().startswith("#"):
                continue
        elif not quoted:
            text = _uncommented(text)
            if buf and not text.strip():
                # a comment line ends a continued command there (`# --enforce-eager \` continues nothing)
                yield start, " ".join(buf)
                buf = []
                continue
        # only a backslash right before the newline continues the line; `\ ` escapes a blank
        if continues(text):
            buf.append(text[:-1])
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


#: why a launch holds a word of blanks, which is most often a blank after a line's final backslash
BLANK_WORD = ("a word of vLLM's command line is a blank: a `\\` followed by a blank (as at a line's end before "
              "trailing spaces) escapes the blank, and the shell does not continue the line there")


def _uncommented(text: str) -> str:
    """``text`` without its comment: from a ``#`` that begins a word (outside quotes) to the end of the line."""
    if "#" not in text:
        return text
    quote, i = "", 0
    while i < len(text):
        ch = text[i]
        after, quote, plain = _step(text, i, quote, "'\"")
        if plain and ch == "#" and (i == 0 or text[i - 1] in " \t;&|()"):
            return text[:i].rstrip()
        i = after
    return text


def _step(text: str, i: int, quote: str, quotes: str) -> tuple[int, str, bool]:
    """One character of shell text at ``i`` with ``quote`` open: (the index after it, the quote open after it,
    whether it is plain — outside quotes and not escaped); ``quotes``: the characters that open one."""
    ch = text[i]
    if quote:
        if ch == "\\" and quote == '"':
            return i + 2, quote, False
        return i + 1, "" if ch == quote else quote, False
    if ch in quotes:
        return i + 1, ch, False
    if ch == "\\":
        return i + 2, quote, False
    return i + 1, quote, True


def _array_end(body: str, start: int = 0, state: tuple[int, str] = (1, "")) -> tuple[Optional[int], tuple[int, str]]:
    """Where the ``)`` that closes an array assignment's ``(`` is in ``body`` (the text after it), read from
    ``start`` with the nesting depth and open quote found before it; (None, the state at the end) when
    ``body`` does not close it yet (quotes, ``$(…)`` and comments respected)."""
    depth, quote = state
    i = start
    while i < len(body):
        ch = body[i]
        after, quote, plain = _step(body, i, quote, "'\"")
        if plain and ch == "#" and (i == 0 or body[i - 1] in " \t\n"):
            newline = body.find("\n", i)
            if newline < 0:
                return None, (depth, quote)
            after = newline
        elif plain and ch in "()":
            depth += 1 if ch == "(" else -1
            if depth == 0:
                return i, (depth, quote)
        i = after
    return None, (depth, quote)


def _group(text: str) -> "Optional[tuple[str, Optional[str], str]]":
    """A line that starts a subshell ``( … )`` or a group ``{ …; }``: ``(opener, inner, rest)`` — the commands
    inside when the line closes it (else None: the body goes on below) and what follows the closer after a
    ``;`` (redirections and ``&`` after it are dropped); None for any other line (``(( … ))`` included)."""
    stripped = text.lstrip()
    opener = stripped[0]
    if stripped.startswith("((") or (opener == "{" and not re.match(r"\{(?:\s|$)", stripped)):
        return None
    closer = ")" if opener == "(" else "}"
    depth, quote, i = 0, "", 0
    while i < len(stripped):
        ch = stripped[i]
        after, quote, plain = _step(stripped, i, quote, "'\"`")
        if plain and ch == opener and (opener == "(" or _brace_word(stripped, i)):
            depth += 1
        elif plain and ch == closer and (opener == "(" or _brace_word(stripped, i)):
            depth -= 1
            if depth == 0:
                inner = stripped[1:i].strip()
                if opener == "{":
                    inner = inner.rstrip(";").strip()
                rest = stripped[i + 1:].strip()
                return opener, inner, rest[1:].strip() if rest.startswith(";") and not rest.startswith(";;") else ""
        i = after
    return opener, None, ""


def _brace_word(text: str, i: int) -> bool:
    """Whether the brace at ``text[i]`` is a word of its own (``{`` / ``}`` of a group, not of ``${X}``)."""
    before = text[i - 1] if i else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    return before in " \t;&|" and (after in " \t;&|<>" or text[i] == "}")


def _subshell_body(commands: Lines) -> Optional[Block]:
    """The lines of a subshell whose ``(`` stands alone on its line, up to the ``)`` that closes it; None when
    the file ends first."""
    body: Block = []
    depth = 1
    for _ in range(_MAX_SUBSHELL_LINES):
        following = next(commands, None)
        if following is None:
            return None
        blanked = blank_quoted(following[1])
        for i, ch in enumerate(blanked):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                last, rest = following[1][:i].strip(), following[1][i + 1:].strip()
                if last:
                    body.append((following[0], last))
                if rest.startswith(";") and rest[1:].strip():
                    commands.push((following[0], rest[1:].strip()))     # `); vllm serve …`
                return body
        body.append(following)
    return None


#: the lines one subshell's body may span
_MAX_SUBSHELL_LINES = 2000

#: ``exit`` / ``exit N`` / ``exit $STATUS``, ``return [N]``, ``break [N]``, ``continue [N]``: a command that ends what
#: runs (the shell, the function, the loop, the loop's run)
_STOP = re.compile(r"^\s*(exit|return|break|continue)(?:\s+(\S+))?\s*;?\s*$")
#: ``exec COMMAND …`` (``exec`` with redirections only keeps the shell going)
_EXEC_COMMAND = re.compile(r"^\s*exec(?:\s+-[acl]+(?:\s+\S+)?)*\s+(?![0-9]*[<>&])\S")

#: ``eval ARGS``
_EVAL = re.compile(r"^\s*eval\s+(.*)$")
#: ``NAME=`` / ``NAME+=`` in text a command evaluates
_ASSIGNED_IN = re.compile(r"(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)\+?=")
#: the names an arithmetic expression assigns: ``X++``, ``--X``, ``X=…``, ``X+=…`` (not ``==``)
_ARITHMETIC_ASSIGNED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=)"
                                  r"|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)")
_ARITHMETIC_COMMAND = re.compile(r"^\s*(?:\(\((.*)\)\)|let\s+(.*))\s*$")
_PRINTF_V = re.compile(r"^\s*printf\s+-v\s+([A-Za-z_][A-Za-z0-9_]*)")
_READ_COMMAND = re.compile(r"^\s*(read|mapfile|readarray|getopts)\b(.*)$")
#: the options that take a value (``read -p PROMPT``; read's ``-a NAME`` names an array, taken as a name)
_VALUE_OPTIONS = {"read": frozenset({"-p", "-d", "-n", "-N", "-t", "-u", "-i"}),
                  "mapfile": frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"})}
_NAME_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_STEP = re.compile(r"^\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(\+\+|--)|(\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*))\s*$")
_ONE_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*([-+*/%]?)=(?!=)([^,=]*)$")


def _arithmetic_assignment(text: str) -> "Optional[tuple[str, str, int]]":
    """``(( X++ ))``, ``(( X += 2 ))``, ``let X=X*2`` — one assignment to one name — as ``(name, "$((…))",
    offset)``: the value the shell's own arithmetic gives it, and what to add to that value for the expression's
    (-1 after ``X++``, 1 after ``X--``, whose value is the one before; else 0); None for any other line."""
    m = _ARITHMETIC_COMMAND.match(text)
    if m is None:
        return None
    expression = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    if m.group(2) is not None:
        if expression[:1] in "\"'" and expression[-1:] == expression[:1]:
            expression = expression[1:-1]
        elif " " in expression:
            return None     # `let A=1 B=2`: several expressions
    step = _STEP.match(expression)
    if step:
        name, operator = (step.group(1), step.group(2)) if step.group(1) else (step.group(4), step.group(3))
        after = (-1 if operator == "++" else 1) if step.group(1) else 0
        return name, f"$(({name}{operator[0]}1))", after
    one = _ONE_ASSIGNMENT.match(expression)
    if one is None or "?" in one.group(3) or not one.group(3).strip():
        return None
    name, operator, value = one.groups()
    return name, f"$(({name}{operator}({value})))" if operator else f"$(({value}))", 0


def _names_set_by(text: str) -> list[str]:
    """The variables a command kvguard does not evaluate sets: ``(( … ))`` / ``let`` (the names they assign),
    ``printf -v NAME``, ``read`` (its names, else ``REPLY``), ``mapfile`` / ``readarray`` (``MAPFILE``),
    ``getopts`` (its name, ``OPTARG``, ``OPTIND``)."""
    m = _ARITHMETIC_COMMAND.match(text)
    if m:
        return [a or b for a, b in _ARITHMETIC_ASSIGNED.findall(m.group(1) or m.group(2))]
    m = _PRINTF_V.match(text)
    if m:
        return [m.group(1)]
    m = _READ_COMMAND.match(text)
    if m is None:
        return []
    command, words = m.group(1), re.split(r"[;&|<>]", m.group(2), maxsplit=1)[0].split()
    if command == "getopts":
        return words[1:2] + ["OPTARG", "OPTIND"]
    names, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word == "-a":
            continue        # its value is the array's name, taken below as a name
        elif word in _VALUE_OPTIONS["read" if command == "read" else "mapfile"]:
            skip = True
        elif _NAME_WORD.match(word):
            names.append(word)
    return names or ["REPLY" if command == "read" else "MAPFILE"]


#: the option letters of a declaration builtin that keep a value as written: ``-x`` exports it, ``-r`` makes it
#: read-only, ``-g`` the script's (any other — ``-i`` arithmetic, ``-l`` / ``-u`` case, ``-a`` / ``-A`` arrays, ``-n``
#: a reference — makes of it what kvguard does not follow)
_PLAIN_DECLARATION_OPTIONS = frozenset("xrg")


def _read_assignment_command(command: AssignmentCommand, variables: Variables) -> None:
    """What an assignment command the one-pattern reader does not take sets (:mod:`kvguard.scan.assignments`):
    each assignment in turn, as bash makes them (a command substitution's value is one kvguard cannot know); a
    name a declaration builtin's options change set to such a value; ``local X`` unset in the function,
    ``export X`` exported."""
    export = command.builtin == "export" or "x" in command.options
    own = command.builtin == "local" or (command.builtin in ("declare", "typeset") and "g" not in command.options)
    plain = set(command.options) <= _PLAIN_DECLARATION_OPTIONS
    for name, append, value in command.assignments:
        if own:
            variables.declared_local.add(name)
        if plain:
            variables.assign(name, value, export=export, append=append)
        else:
            variables.set_unknown(name)
            if export:
                variables.exported.add(name)
    for name in command.names:
        if export:
            variables.exported.add(name)
        elif own:
            variables.declared_local.add(name)
            variables.unset(name)
            variables.set_known(_UNSET_MARK + name, "on")


def _joined_substitution(text: str, commands: Lines) -> str:
    """An assignment whose command substitution goes on over the lines below (``TP=$(`` … ``)``): its lines joined
    as one command, up to the line that closes it."""
    if text.count("(") <= text.count(")") and text.count("`") % 2 == 0:
        return text         # (most lines: every one closed — a quoted parenthesis aside — without reading them)
    still_open = open_substitution(text)
    for _ in range(_MAX_SUBSTITUTION_LINES):
        if still_open is None:
            break
        following = next(commands, None)
        if following is None:
            break
        text += "\n" + following[1]
        still_open = open_substitution("\n" + following[1], still_open)     # (each line read once)
    return text


#: the lines one command substitution may span
_MAX_SUBSTITUTION_LINES = 500
#: the start of an assignment (``TP=``, ``export TP=``, ``local -r TP+=``)
_ASSIGNMENT_START = re.compile(r"^\s*(?:(?:export|declare|typeset|local|readonly)(?:\s+[-+][A-Za-z]+)*\s+)?"
                               r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def _split_list(text: str, and_or: bool) -> Optional[list[tuple[str, str]]]:
    """The commands of a line separated by ``;`` (and ``&&`` / ``||`` with ``and_or``) outside quotes, ``$(…)``,
    ``{…}`` and ``case … esac``, each with the operator before it (``""`` for the first); None for a ``case`` arm's
    line (``;;``, ``;&`` outside a ``case`` the line holds)."""
    parts: list[tuple[str, str]] = []
    depth, quote, start, i, operator = 0, "", 0, 0, ""
    cases = 0           # the `case … esac` the line has opened and not closed yet
    while i < len(text):
        ch = text[i]
        after, quote, plain = _step(text, i, quote, "'\"`")
        if plain and ch in "({":
            depth += 1
        elif plain and ch in ")}":
            depth = max(depth - 1, 0)
        elif plain and depth == 0 and _reserved_word_at(text, i, "case"):
            cases += 1
        elif plain and depth == 0 and cases and _reserved_word_at(text, i, "esac"):
            cases -= 1
        elif plain and depth == 0 and not cases and (ch == ";" or and_or and text.startswith(("&&", "||"), i)):
            if text.startswith((";;", ";&"), i):
                return None
            parts.append((operator, text[start:i]))
            operator = ";" if ch == ";" else text[i:i + 2]
            after = i + (1 if ch == ";" else 2)
            start = after
        i = after
    parts.append((operator, text[start:]))
    return [(operator, part) for operator, part in parts if part.strip()]


def _reserved_word_at(text: str, i: int, word: str) -> bool:
    """Whether ``word`` (``case``, ``esac``) stands at ``text[i]`` as a word of its own."""
    end = i + len(word)
    return text.startswith(word, i) and (i == 0 or text[i - 1] in " \t;&|(") and (end == len(text)
                                                                                 or text[end] in " \t;&|)")


#: an operator that joins the commands of a list
_LIST = re.compile(r";|&&|\|\|")

#: a command whose status kvguard may decide (:func:`kvguard.scan.conditions.condition_value`)
_TEST_COMMAND = re.compile(r"^\s*(?:\[\[?\s|test\s|true\s*$|false\s*$|:\s*$|!\s)")


def _sequence(text: str, functions: "Optional[dict[str, Block]]" = None) -> list[tuple[str, str]]:
    """The commands of a line joined by ``;`` / ``&&`` / ``||`` (outside quotes, ``$(…)`` and ``${…}``), each
    with the operator before it (``""`` for the first), when one of them assigns, exports or unsets a variable,
    sources a file or sets ``set -e`` (which a later one, or a later line, may read), is a test (whose status
    decides whether the next runs), ends what runs (``exit``, ``break``, ``exec …``: the commands after it do not
    run), or calls one of ``functions`` (read apart from the launches beside it); ``[("", text)]`` otherwise."""
    whole = [("", text)]
    if ";" not in text and "&&" not in text and "||" not in text:
        return whole
    parts = _split_list(text, and_or=True)
    if parts is None:
        return whole        # a `case` arm: not a plain sequence
    if len(parts) < 2 or not any(_ASSIGN.match(p) or _ARRAY.match(p) or _EXPORT.match(p) or _UNSET.match(p)
                                 or _SOURCE.match(p) or _TEST_COMMAND.match(p) or _names_set_by(p)
                                 or _EVAL.match(p) or _STOP.match(p) or _EXEC_COMMAND.match(p)
                                 or _SET_OPTIONS.match(p) or assignment_command(p) is not None for _, p in parts) and \
            not (functions and any(_calls_a_function(p, functions) for _, p in parts)):
        return whole
    return parts


#: marks a stand-in for an unresolved expansion while a line is split into words (private-use characters)
_STAND_IN = "\ue000{}\ue001"


def _stand_in(text: str, missing: list[str]) -> "tuple[str, list[str]]":
    """``text`` with each unresolved expansion that holds blanks or quotes (``$(nproc --all)``, ```cat f```)
    replaced by a one-word stand-in, so that splitting the line into words keeps it one word — the word that
    is unresolved — instead of cutting it into pieces vLLM would be given as they are."""
    stand_ins: list[str] = []
    for expansion in dict.fromkeys(missing):
        if expansion in text and any(c in expansion for c in " \t\n'\"\\;&|<>"):
            text = text.replace(expansion, _STAND_IN.format(len(stand_ins)))
            stand_ins.append(expansion)
    return text, stand_ins


def _restored(word: str, stand_ins: list[str]) -> str:
    for i, expansion in enumerate(stand_ins):
        word = word.replace(_STAND_IN.format(i), expansion)
    return word


class _Flow:
    """The functions a script defines (bash's are global) and the launches of their calls, while one text is
    read."""

    def __init__(self) -> None:
        self.functions: dict[str, Block] = {}
        self.calls: dict[str, Collector] = {}
        #: the text's here-documents, found by the line of their operator (a function's body may hold one, read
        #: at each call)
        self.documents: list[HereDocument] = []
        #: a command that ends what runs has run (``("exit", 1)``, ``("break", 2)``): each reading it ends gives it
        #: to the one that holds it, up to the branch, loop, call or text it ends
        self.stop: Optional[tuple[str, int]] = None
        #: the loop bodies being read in the function (or script) being read: ``break`` / ``continue`` end one
        self.loops = 0
        #: the kinds of stop a branch that may not run met: what the loop or function it is in leaves is not known
        self.uncertain: set[str] = set()
        #: the status the stop ends with when kvguard knows it (``exit 3``, ``return 1``, a failure ``set -e``
        #: ended on): a subshell, a call or a sourced file that ends so fails, which ``set -e`` acts on in turn
        self.stop_status: Optional[int] = None
        #: how many contexts in which bash ignores ``set -e`` hold what is being read (a command before ``&&`` /
        #: ``||``, a function called there, a function no text calls, a text where kvguard cannot tell them all)
        self.errexit_ignored = 0
        #: how many contexts in which kvguard cannot tell whether ``set -u`` ends the shell at a reference hold what
        #: is being read (a function no text calls, a text whose blocks a pipeline or ``&&`` / ``||`` takes or with
        #: a quote a line leaves open, a text typed into an interactive shell): a reference to a name kvguard knows
        #: is unset does not end the reading there
        self.nounset_unsure = 0


def _stop_made(text: str, flow: _Flow, in_function: bool) -> Optional[tuple[str, int]]:
    """The stop the command ``text`` makes: ``exit`` anywhere; ``return`` in a function or a sourced file (at an
    executed script's top bash refuses it and goes on); ``break N`` / ``continue N`` in a loop's body (bash refuses
    them elsewhere, in a function called from a loop or a subshell too, and goes on); None for any other
    command."""
    m = _STOP.match(text)
    if m is None:
        return None
    kind, argument = m.groups()
    if kind == "return" and not in_function:
        return None
    if kind in ("break", "continue"):
        if not flow.loops or not (argument is None or argument.isdigit() and int(argument) >= 1):
            return None
        return kind, int(argument or 1)
    return kind, 1


def _stop_status(text: str) -> Optional[int]:
    """The status ``exit N`` / ``return N`` ends with, when ``N`` is a number written out (bash keeps its low
    eight bits); None when it is the last command's (no ``N``) or an expansion."""
    m = _STOP.match(text)
    argument = m.group(2) if m else None
    return int(argument) % 256 if argument is not None and argument.isdigit() else None


#: the variable kvguard keeps ``set -e``'s state in: "on" while it is set, unknown where a branch that may not run
#: set or cleared it (a name no shell variable can have, so branches, subshells and calls carry it as they carry
#: variables: a subshell's ``set -e`` stays in it, a function's holds after the call, a child shell starts without)
_ERREXIT = "-o errexit"

#: ``set`` with options (``set -e``, ``set -euo pipefail``, ``set +o errexit``); ``set --`` is read apart
_SET_OPTIONS = re.compile(r"^\s*set\s+((?!--(?:\s|$))[-+].*)$")


def _option_set_by(words: str, letter: str, name: str) -> "tuple[Optional[str], Optional[list[str]]]":
    """What ``set WORDS`` does to the shell option ``-LETTER`` / ``-o NAME`` — ``"on"``, ``"off"``, ``"unknown"`` (an
    expansion among the options), None (left as it is) — and the positional parameters it gives after its options
    (None: none given)."""
    state: Optional[str] = None
    tokens = words.split()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if "$" in token or "`" in token:
            return "unknown", None
        if token in ("--", "-") or token[0] not in "-+":
            rest = tokens[i + (token in ("--", "-")):]
            return state, rest
        sign, letters = token[0], token[1:]
        for given in letters:
            if given == letter:
                state = "on" if sign == "-" else "off"
            elif given == "o":
                i += 1
                if i < len(tokens) and tokens[i] == name:
                    state = "on" if sign == "-" else "off"
        i += 1
    return state, None


#: the variable kvguard keeps ``set -u``'s state in, as :data:`_ERREXIT` keeps ``set -e``'s
_NOUNSET = "-o nounset"
#: the variable that says "on" while the name after it is one the text itself unset (``unset X``, ``local X``): the
#: environment the script runs in cannot have set it
_UNSET_MARK = "-unset "

#: the options kvguard follows: the variable that keeps each one's state, its letter, its ``-o`` name
_FOLLOWED_OPTIONS = ((_ERREXIT, "e", "errexit"), (_NOUNSET, "u", "nounset"))


def _apply_set_options(words: str, variables: Variables) -> Optional[list[str]]:
    """``set WORDS``: the options kvguard follows set, cleared, or unknown (an expansion among the words), as
    :func:`_option_set_by` reads them; the positional parameters the words give (None: none given)."""
    positional: Optional[list[str]] = None
    for key, letter, name in _FOLLOWED_OPTIONS:
        state, positional = _option_set_by(words, letter, name)
        if state == "unknown":
            variables.set_unknown(key)
        elif state is not None:
            variables.set_known(key, state)
    return positional


#: bash's long invocation options that take the next word as their value (the others take none)
_LONG_OPTIONS_WITH_VALUE = frozenset({"--rcfile", "--init-file"})


def invocation_set_words(words: "list[str]") -> str:
    """The options a shell's command line gives (``words``: the words after the shell's name, ``-eu script``,
    ``--noprofile --norc -eo pipefail {0}``), as ``set``'s words: its one-letter options and ``-o NAME``, up to the
    first word that is no option (the script, the command string's text); the long options and ``-O NAME`` are the
    invocation's own, and ``-c`` sets nothing ``set`` sets."""
    given: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-", "--") or len(word) < 2 or word[0] not in "-+":
            break
        i += 1
        if word.startswith("--"):
            i += word in _LONG_OPTIONS_WITH_VALUE
            continue
        for letter in word[1:]:
            if letter in "oO":      # each takes the next word, in the order the letters come
                if letter == "o" and i < len(words):
                    given += [word[0] + "o", words[i]]
                i += 1
            elif letter != "c":
                given.append(word[0] + letter)
    return " ".join(given)


#: a ``#!`` line: the interpreter's path, and the rest of the line
_SHEBANG = re.compile(r"^#!\s*(\S+)[ \t]*(.*?)\s*$")


def shebang_option_words(first_line: str) -> "list[str]":
    """The option words a script's ``#!`` line gives the shell that runs it as a program (``./serve.sh``, ``sbatch
    serve.sh``): ``#!/bin/bash -eu`` gives ``["-eu"]``, ``#!/usr/bin/env -S bash -eu`` too (``env -S`` splits
    the rest into words).  Linux hands the rest of the line to the interpreter as one word, so ``#!/bin/bash -e
    -u`` (bash refuses the word ``-e -u``) and ``#!/usr/bin/env bash -e`` (env finds no program ``bash -e``) start
    no script at all: no options, as for a line that names no shell."""
    m = _SHEBANG.match(first_line)
    if m is None:
        return []
    interpreter, rest = m.group(1).rsplit("/", 1)[-1], m.group(2)
    if interpreter in _CHILD_SHELLS:
        return [rest] if rest and not re.search(r"\s", rest) else []
    if interpreter != "env" or not rest.startswith("-S"):
        return []
    words = rest[2:].split()
    shell = next((i for i, word in enumerate(words) if not ENV_TOKEN.match(word)), None)
    if shell is None or words[shell].rsplit("/", 1)[-1] not in _CHILD_SHELLS:
        return []
    return words[shell + 1:]


def shell_command_options(command: "list[str]") -> "list[str]":
    """The words after the program of the command line ``command`` (``["/bin/bash", "-eu", "-c"]``) when that
    program is a shell whose options kvguard reads (bash, sh, …; else none): what :func:`start_shell_with` takes."""
    return list(command[1:]) if command and command[0].rsplit("/", 1)[-1] in _CHILD_SHELLS else []


def start_shell_with(variables: Variables, words: "list[str]") -> None:
    """The shell that reads text in ``variables`` is started with the option words ``words`` (``bash -eu``'s
    ``["-eu"]``, a GitHub step's ``shell: bash -eu {0}``): the options kvguard follows are set from the start, as
    ``set`` would set them."""
    options = invocation_set_words(words)
    if options:
        _apply_set_options(options, variables)


#: what a reference to a parameter may be: ``$NAME``, ``$1``, ``${…}``, a command substitution or arithmetic (left
#: alone: what trips in it ends the subshell alone, or is not followed), a special parameter (never unset)
_REFERENCE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|([1-9])|(\{)|(\(|[@*#?$!0_-]))")
#: a braced reference ``set -u`` acts on when its name is unset: ``${X}``, ``${#X}``, ``${X#p}``, ``${X/a/b}``,
#: ``${X^^}``, ``${X:1}`` (not ``${X:-w}``, ``${X-w}``, ``${X:=w}``, ``${X+w}``, ``${X:?m}``, ``${A[@]}``, ``${!X}``)
_BRACED_TRIPS = re.compile(r"^(#?)([A-Za-z_][A-Za-z0-9_]*|[1-9])(?:[#%/^,]|:(?![-=+?])|$)")
#: the words a compound command or a function's definition begins with: its references are read with its body
_COMPOUND_START = re.compile(r"^\s*(?:[({!]|(?:for|while|until|select|case|if|elif|then|else|do|done|fi|esac|"
                             r"function|time|coproc)(?:\s|$)|[\w.:-]+\s*\(\s*\))")
#: redirections with ``&`` (``2>&1``, ``&> log``): no list operator
_AMPERSAND_REDIRECTION = re.compile(r"[0-9]*[<>]&[0-9-]*|&>>?")


def _nounset_references(text: str) -> "Optional[list[str]]":
    """The names (``X``, ``1``) a simple command's expansions read where ``set -u`` ends the shell when they are
    unset, in order, outside single quotes, command substitutions and arithmetic; None when ``text`` is no simple
    command kvguard reads so (a list, a pipeline, a compound command, an array's assignment)."""
    if _COMPOUND_START.match(text) or "=(" in text or "`" in text:
        return None
    if re.search(r"[;&|]", _AMPERSAND_REDIRECTION.sub(" ", blank_quoted(text))):
        return None
    names: list[str] = []
    i, in_double = 0, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "'" and not in_double:
            end = text.find("'", i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        if char == '"':
            in_double = not in_double
            i += 1
            continue
        if char != "$":
            i += 1
            continue
        m = _REFERENCE.match(text, i)
        if m is None:
            i += 1
            continue
        if m.group(4):
            if m.group(4) == "(":
                return None         # a command substitution or arithmetic: not followed
            i = m.end()
            continue
        if m.group(3):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            if depth:
                return None
            braced = _BRACED_TRIPS.match(text[m.end():j - 1])
            if braced:
                names.append(braced.group(2))
            i = j
            continue
        names.append(m.group(1) or m.group(2))
        i = m.end()
    return names


def _nounset_on(variables: Variables, flow: _Flow) -> bool:
    """Whether ``set -u`` is surely on, where kvguard can tell what a reference does."""
    return not flow.nounset_unsure and variables.get(_NOUNSET) == "on"


def _known_unset(name: str, variables: Variables) -> Optional[bool]:
    """Whether ``name`` (``X``, ``1``) is unset: True when kvguard knows it is (the text itself unset it, a
    positional parameter past the ones given, an empty array), None when the text never set it (the environment
    the script runs with may give it), False when it is set."""
    if name.isdigit():
        given = variables.arrays.get(POSITIONAL)
        return given is not None and name not in variables.unknown and int(name) > len(given)
    if name in variables.overrides or name in variables.unknown:
        return False
    if name in variables.arrays:
        return not variables.arrays[name]
    if variables.get(name) is not None:
        return False
    return True if variables.get(_UNSET_MARK + name) == "on" else None


def _forget_unset(text: str, variables: Variables, first: bool = False) -> None:
    """A name the text unset is no longer known to be unset once a command names it as a word of its own, other
    than an assignment kvguard follows (``X=$(…)``, ``X[0]=2``, ``read X``, ``printf -v X``, ``declare -n R=X``),
    or a command sources a file or evals a text kvguard does not follow (which may set any name): it may be set
    there, to a value kvguard cannot know.  ``first``: the list ``text``'s first command alone (the
    others are read in turn, or all at once when kvguard reads the list as one)."""
    marked = [key[len(_UNSET_MARK):] for key, value in variables.local.items()
              if key.startswith(_UNSET_MARK) and value == "on"]
    if not marked:
        return
    for _, part in (_split_list(text, and_or=True) or [("", text)])[:1 if first else None]:
        if _ASSIGN.match(part):
            continue
        # a file or text kvguard does not follow, which may set any name
        followed = _SOURCE.match(part) or _EVAL.match(part)
        anything = bool(re.match(r"\s*(?:source|\.|eval)\s", part)) and \
            (followed is None or "$" in followed.group(1) or "`" in followed.group(1))
        if anything and followed is not None and _EVAL.match(part) and _eval_text_known(followed.group(1), variables):
            # an eval whose words kvguard expands in full (no assignment, substitution or arithmetic in them) runs a
            # text it reads: only the names written in that text may be set there
            anything = False
            part = part + " " + variables.expand(followed.group(1), quoting=True)[0]
        for name in marked:
            if variables.get(name) is None and name not in variables.unknown and \
                    (anything or re.search(r"(?<![$\w{#!])" + re.escape(name) + r"(?!\w)", part)):
                variables.set_unknown(name)


def _eval_text_known(args: str, variables: Variables) -> bool:
    """Whether an ``eval``'s arguments expand to a text kvguard knows whole: plain ``$NAME`` / ``${NAME}`` references
    to known values, no command substitution, arithmetic, assignment or operator form (their expansion may act)."""
    if "`" in args or "$(" in args or "=" in args or re.search(r"\$\{[^}]*[^A-Za-z0-9_}]", args):
        return False
    expanded, missing = variables.expand(args, quoting=True)
    return not missing and "$" not in expanded and "`" not in expanded


def _nounset_ends(text: str, variables: Variables, flow: _Flow) -> bool:
    """Under ``set -u`` (surely on), what the simple command ``text`` (or a list's first) reads: a name kvguard
    knows is unset (:func:`_known_unset`) ends the shell, as bash does (status 127: ``X: unbound variable``), and
    True is given; a name the text never set, which the environment the script runs with may give, is set after
    the command if the shell goes on — to a value kvguard cannot know (no longer the one the default ``[ -z "$X" ]
    && X=8`` would give it: bash does not reach that)."""
    if "$" not in text or not _nounset_on(variables, flow):
        return False
    names = _nounset_references(text)
    if names is None:
        parts = _split_list(text, and_or=True)
        if parts and len(parts) > 1:
            names = _nounset_references(parts[0][1])   # the list's first command: it runs before the others
    for name in names or ():
        unset = _known_unset(name, variables)
        if unset:
            flow.stop, flow.stop_status = ("exit", 1), 127
            return True
        if unset is None:
            variables.set_unknown(name)     # the shell goes on only if the environment gives it
    return False


def _nounset_ends_later(text: str, variables: Variables, flow: _Flow) -> bool:
    """Whether a command after the first of the list ``text`` (``echo; vllm serve m $X``) reads a name kvguard
    knows is unset under ``set -u``: the list is then read one command at a time, each as bash runs it."""
    if "$" not in text or not _nounset_on(variables, flow):
        return False
    parts = _split_list(text, and_or=True) or []
    return any(_known_unset(name, variables) for _, part in parts[1:] for name in _nounset_references(part) or ())


def _errexit_applies(variables: Variables, flow: _Flow) -> bool:
    """Whether a command that fails here surely ends the shell: ``set -e`` is surely on and bash does not ignore
    it where the command runs."""
    return not flow.errexit_ignored and variables.get(_ERREXIT) == "on"


def _fails_under_errexit(flow: _Flow, status: int = 1) -> None:
    """A command ``set -e`` acts on failed: the shell exits with its status."""
    flow.stop, flow.stop_status = ("exit", 1), status


#: a compound command or a subshell whose status ``&&``, ``||``, ``|`` or ``&`` takes after its closer (``done ||
#: true``, ``} | tee log``), or one ``!`` inverts: bash ignores ``set -e`` in its body, and kvguard does not keep
#: what follows a closer when it reads the body
_ERREXIT_IGNORED_BLOCK = re.compile(r"(?:(?<![\w$])(?:done|fi|esac)|[})])\s*(?:&&|\|\|?|&(?!>))"
                                    r"|(?:^|[;&|(]\s*)!\s*(?:[({]|(?:if|for|while|until|case)\b)")
#: the expansions and arithmetic commands a line may hold, set aside before a closer is looked for (their ``)`` /
#: ``}`` close no block)
_EXPANSION = re.compile(r"\$?\(\([^()]*\)\)|\$\([^()]*\)|\$\{[^{}]*\}")


def _ignores_errexit_somewhere(lines: Iterable[tuple[int, str]]) -> bool:
    """Whether a text has a block in a context where bash ignores ``set -e`` (:data:`_ERREXIT_IGNORED_BLOCK`), or a
    quote a line leaves open (``echo "`` … ``"``, whose lines kvguard would read as commands): kvguard does not tell
    that block's body from the others, or the quoted lines from commands, so it reads no ``set -e`` failure in
    that text as an exit."""
    for _, text in lines:
        uncommented = _uncommented(text).rstrip()
        if _open_quote(uncommented[:-1] if continues(uncommented) else uncommented):
            return True
        text = blank_quoted(text)
        for _ in range(8):
            text, count = _EXPANSION.subn(" ", text)
            if not count:
                break
        if _ERREXIT_IGNORED_BLOCK.search(text):
            return True
    return False


def _single_command(text: str) -> bool:
    """Whether ``text`` is one simple command: no ``;``, ``&``, ``|`` outside quotes."""
    return not re.search(r"[;&|]", blank_quoted(text))


def _always(variables: Variables) -> bool:
    """An ``else`` branch's condition."""
    return True


class _Branches:
    """An ``if`` … ``fi`` or ``case`` … ``esac`` being read.  A branch whose condition kvguard decides false (or
    that follows one decided true) does not run: it is not read.  One decided true with no undecided one before
    it is the one that runs: the variables after the block are what it left.  Otherwise each branch that may run
    starts from the variables as they were before the block, and what any of them sets is unknown after it."""

    def __init__(self, kind: str, variables: Variables, dead: bool = False) -> None:
        self.kind = kind
        self.before = variables.snapshot()
        self.changed: set[str] = set()
        self.exported: set[str] = set()     # exported by a branch: perhaps in the environment after the block
        self.in_arm = False         # a `case` arm is being read (until its `;;`)
        self.within_dead = dead     # the whole block is in code that does not run
        #: the branch being read does not run (none is being read yet), or the block is in code that does not run:
        #: the innermost block's answers for all that hold it
        self.dead = True
        self.runs_alone = False     # the branch being read runs, and no other does
        self.taken = False          # a branch read so far surely runs when reached: the later ones do not
        self.maybe = False          # a branch kvguard could not decide was read
        self.settled: Optional[tuple] = None    # the variables the one branch that runs left
        self.falls_through = False  # a `case` arm ended with `;&` / `;;&`: the next is not decided
        self.subject = ""           # a `case`'s word, as written
        self.branches = 0           # the branches begun so far
        #: the name an ``if`` block (of one condition, maybe an ``else``) gives a default
        #: (:func:`kvguard.scan.conditions.default_name`), the branch that gives it (0: the first, 1: the ``else``),
        #: and the variables that branch left when it set that name alone
        self.default_name: Optional[str] = None
        self.default_branch = 0
        self.default_left: Optional[tuple] = None

    def sure(self) -> bool:
        """Whether the branch being read surely runs when the block is reached."""
        return self.runs_alone and not self.falls_through

    def _close(self, variables: Variables) -> None:
        if self.dead:
            return
        if self.sure():
            self.settled = variables.snapshot()
        else:
            changed = variables.changed_since(self.before)
            self.changed |= changed
            self.exported |= variables.exported - self.before[3]
            if self.default_name is not None and self.branches - 1 == self.default_branch and \
                    changed <= {self.default_name}:
                self.default_left = variables.snapshot()

    def stop_here(self, variables: Variables, kind: str) -> None:
        """The branch being read, which may not run, ends here (``exit``, ``return`` … in it): the rest of it is not
        read.  What it set so far reaches the code after the block, where it is not known, unless the shell exits."""
        if kind != "exit":
            self.changed |= variables.changed_since(self.before)
            self.exported |= variables.exported - self.before[3]
        self.dead = True
        self.default_name = None

    def next_branch(self, variables: Variables, decide: "Callable[[Variables], Optional[bool]]") -> None:
        """The branch before ends and one starts, whose condition ``decide`` evaluates (None: undecided) in the
        variables as they were before the block."""
        self._close(variables)
        variables.restore(self.before)
        self.branches += 1
        if self.within_dead or (self.taken and not self.falls_through):
            self.dead = True
            return
        runs = None if self.falls_through else decide(variables)
        self.dead = runs is False
        self.runs_alone = runs is True and not self.maybe
        if runs is True:
            self.taken = True
        elif runs is None:
            self.maybe = True

    def fall_through(self) -> None:
        """The arm being read ends with ``;&`` / ``;;&``: the arms after it run or not as kvguard cannot decide."""
        if not self.dead:
            self.falls_through, self.maybe = True, True

    def end(self, variables: Variables) -> None:
        self._close(variables)
        variables.restore(self.before)
        if self.within_dead:
            return
        if self.settled is not None and not self.falls_through:
            variables.restore(self.settled)
            return
        if self.default_name is not None and self.default_left is not None:
            # `if [ -z "$X" ]; then X=8; fi`, `if [ -n "$X" ]; then …; else X=8; fi`: read as `${X:=8}` is, the
            # branch that gives the default the one that runs
            variables.restore(self.default_left)
            return
        for name in self.changed | self.exported:
            variables.set_unknown(name)
        variables.exported |= self.exported


#: the start of a ``case`` arm: its patterns and ``)``, then its first command (and maybe ``;;``)
_CASE_ARM = re.compile(r"^\s*\(?\s*([^\s()$;|][^();]*?)\s*\)\s*(.*)$")
_ARM_END = re.compile(r"\s*;;&?\s*$|\s*;&\s*$")


_KEYWORD = re.compile(r"\s*([a-z]*)")


def _keyword(text: str) -> str:
    """The reserved word a line may start with (``if``, ``fi``, ``case`` …): its leading lowercase letters."""
    m = _KEYWORD.match(text)
    return m.group(1) if m else ""


_THEN = re.compile(r"(?:^|[\s;])then\b")
#: ``case WORD in``
_CASE_HEADER = re.compile(r"^\s*case\s+(.*?)\s+in\s*$")


#: the reserved words that open, go on with or close a compound command
_COMPOUND_WORDS = frozenset({"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done"})


def _compound_pieces(text: str) -> Optional[list[str]]:
    """The commands of a line that holds a compound command's reserved words, a subshell or a group among several
    ``;``-separated commands (outside quotes, ``$(…)``, ``{…}``), each to be read as a line of its own; None for
    any other line (a ``case`` on one line included)."""
    parts = _split_list(text, and_or=False)
    if parts is None:
        return None
    pieces = [part.strip() for _, part in parts]
    if len(pieces) < 2 or not any(_keyword(piece) in _COMPOUND_WORDS and re.match(r"\s*[a-z]+(?:\s|$)", piece)
                                  or re.match(r"\s*(?:\((?!\()|\{(?:\s|$))", piece) for piece in pieces):
        return None
    return pieces


_ONE_LINE_CASE = re.compile(r"^\s*(case\s+\S+\s+in)\s+(.*\S)\s*;?\s*$")
#: the start of a ``case`` after the commands before it on its line (``X=1; case …``)
_CASE_AFTER = re.compile(r";\s*(?=case\s+\S+\s+in\s)")
_ARM_TERMINATOR = re.compile(r";;&|;;|;&")


#: the ``esac`` that ends a one-line ``case``, and the ``;`` before the commands after it
_ESAC = re.compile(r"(?:^|(?<=[\s;]))esac\s*(?:;|$)")


def _one_line_case(text: str) -> Optional[list[str]]:
    """``case W in a) …;; b) …;; esac`` on one line, with the commands before and after it (``X=1; case …; esac;
    vllm serve …``), as the lines it stands for (what precedes, its header, each arm with its terminator, ``esac``,
    what follows); None for any other line."""
    m = _ONE_LINE_CASE.match(text)
    start = _CASE_AFTER.search(blank_quoted(text)) if m is None else None
    if start is not None and ";;" not in blank_quoted(text[:start.start()]):
        rest = _one_line_case(text[start.end():])
        return [text[:start.start()].strip()] + rest if rest is not None else None
    if m is None:
        return None
    blanked_rest = blank_quoted(m.group(2))
    ends = list(_ESAC.finditer(blanked_rest))
    # the `esac` after an arm's terminator (a word `esac` in an arm is no end), else the last one
    end = next((e for e in ends if blanked_rest[:e.start()].rstrip().endswith((";;", ";&"))), ends[-1] if ends else None)
    if end is None:
        return None
    arms, after = m.group(2)[:end.start()], m.group(2)[end.end():].strip()
    blanked = blank_quoted(arms)
    pieces, last = [m.group(1)], 0
    for terminator in _ARM_TERMINATOR.finditer(blanked):
        pieces.append(arms[last:terminator.end()].strip())
        last = terminator.end()
    if arms[last:].strip():
        pieces.append(arms[last:].strip() + " ;;")      # the last arm may go without its `;;`
    return pieces + ["esac"] + ([after] if after else [])


def _condition(text: str) -> str:
    """The condition of an ``if`` / ``elif`` line: the text between the keyword and ``then`` (or the line's end)."""
    rest = re.sub(r"^\s*(?:el)?if\b", "", text)
    m = _THEN.search(blank_quoted(rest))
    return (rest[:m.start()] if m else rest).strip().rstrip(";").strip()


def _after_then(text: str) -> str:
    """The command after an ``if`` / ``elif`` line's ``then`` (empty when the branch starts below)."""
    m = re.search(r"(?:^|[\s;])then\b(.*)$", text)
    return m.group(1).strip() if m else ""


#: the most words a ``for`` loop is read once per (a longer list: its name unresolved)
_MAX_LOOP_WORDS = 64
#: how deep calls are followed (a function calling itself is read once)
_MAX_CALL_DEPTH = 8
_SHIFT = re.compile(r"^\s*shift(?:\s+([0-9]+))?\s*$")
_SET_POSITIONAL = re.compile(r"^\s*set\s+--(?:\s+(.*))?$")


def shell_launches(path: str, lines: list[tuple[int, str]], variables: Variables, kind: str,
                   prompts: bool = False, session: "Optional[ShellSession]" = None, _nesting: int = 0,
                   _flow: Optional[_Flow] = None, _calls: tuple[str, ...] = (),
                   _sourced_by: Optional[_Flow] = None) -> list[Launch]:
    """The launches of shell text; a command string another command runs (``bash -c "vllm serve …"``) is read
    as shell too, where its own first command word is the launcher (``_nesting``: how deep that is).

    A ``for`` loop over words is read once per word (its launches labelled ``loop tp=2``); a function's body at
    each call of it, its arguments as ``$1`` … (``call $1=…``), and once with them unresolved when the text never
    calls it (``_flow``: the functions and calls of the whole text; ``_calls``: the functions being read) — or,
    in a ``session``, when no text of the session calls it.  A condition kvguard decides
    (:mod:`kvguard.scan.conditions`) picks the branch that runs; code that does not run is not read, and an
    ``exit`` / ``exec`` (``return``, ``break``, ``continue``) ends the text (the function, the loop) where it surely
    runs, the branch it is in where it may not.  Under ``set -e`` a command kvguard knows fails ends the text as
    ``exit`` does, where bash does not ignore it (a test, ``(( … ))`` / ``let`` worth 0, a subshell, call or sourced
    file ending with a known failing status); one whose status it does not know may or may not end it, and the
    reading goes on.  Under ``set -u`` a simple command's reference to a name kvguard knows is unset ends the text
    as ``exit`` does; a name the text never sets may come from the environment: the reading goes on, the name
    set to a value kvguard cannot know (a text typed into an interactive shell, a guide's, reads on).  A sourced
    text (``_sourced_by``: the flow of the text that sources it) that surely exits ends that text too."""
    top = _flow is None
    flow = _flow if _flow is not None else _Flow()
    out: list[Launch] = []
    branches: list[_Branches] = []
    if top and not prompts:
        lines, flow.documents = set_apart(lines)
    if top and _sourced_by is not None:
        flow.errexit_ignored = _sourced_by.errexit_ignored
    if top and _sourced_by is not None:
        flow.nounset_unsure = _sourced_by.nounset_unsure
    if top and (session is not None or prompts):
        flow.nounset_unsure += 1    # typed into an interactive shell: an unbound variable ends its command alone
    if top and _ignores_errexit_somewhere(lines):
        flow.errexit_ignored += 1
        flow.nounset_unsure += 1
    if top and session is not None:
        flow.functions = session.functions
        session.documents += flow.documents
        flow.documents = session.documents
    commands = Lines(logical_lines(lines, prompts=prompts))

    def in_dead_code() -> bool:
        """Whether the line being read is in a branch that does not run (the innermost block knows)."""
        return bool(branches) and branches[-1].dead

    def read_command(lineno: int, text: str) -> list[Launch]:
        """One command of a branch's line (after ``then``, ``else``, a ``case`` pattern)."""
        if not text.strip() or in_dead_code():
            return []
        return shell_launches(path, [(lineno, text)], variables, kind, _nesting=_nesting, _flow=flow, _calls=_calls)

    exec_read = False       # the line read last was `exec COMMAND`

    def reading_ends() -> bool:
        """After a command that ends what runs (``flow.stop``): whether this reading ends there, which it does
        when the command surely runs whenever the reading does; else the innermost branch that may not run ends
        there instead (the rest of it is not read) and the reading goes on after that branch's block."""
        nonlocal exec_read
        if exec_read:
            exec_read = False
            if flow.stop is None:
                flow.stop, flow.stop_status = ("exit", 1), None
        if flow.stop is None:
            return False
        for depth in range(len(branches) - 1, -1, -1):
            if not branches[depth].sure():
                branches[depth].stop_here(variables, flow.stop[0])
                for inner in branches[depth + 1:]:
                    inner.within_dead = inner.dead = True
                if flow.stop[0] != "exit":
                    flow.uncertain.add(flow.stop[0])
                flow.stop = None
                return False
        return True

    for lineno, text in commands:
        if reading_ends():
            break
        if flow.documents and "<<" in text:
            found = operators(text)
            own = sorted((document for document in flow.documents if document.line >= lineno),
                         key=lambda document: document.line)
            for (start, _stop, _operator), document in zip(found, own):
                if not in_dead_code():
                    out += _here_document_launches(path, text[:start], document, variables, kind, _nesting)
            for start, stop, _operator in reversed(found):
                text = text[:start] + text[stop:]     # the redirection is no word of the command
        if ("$(" in text or "`" in text) and _ASSIGNMENT_START.match(text):
            text = _joined_substitution(text, commands)
        pieces = _compound_pieces(text) if ";" in text else None
        if pieces is None and "case" in text and "esac" in text:
            pieces = _one_line_case(text)
        if pieces is not None:
            # `if …; then …; fi`, `X=1; for …; do …; done`: read as the lines they stand for
            for piece in reversed(pieces):
                commands.push((lineno, piece))
            continue
        keyword = _keyword(text)
        if branches and branches[-1].kind == "case":
            arm = branches[-1]
            if keyword == "esac":
                branches.pop().end(variables)
                continue
            if not arm.in_arm:
                m = _CASE_ARM.match(text)
                if m:
                    patterns = m.group(1)
                    arm.next_branch(variables, partial(arm_matches, arm.subject, patterns))
                    arm.in_arm = True
                    text = m.group(2)
            arm_end = _ARM_END.search(text)
            if arm_end:
                if arm_end.group(0).strip() != ";;":
                    arm.fall_through()
                arm.in_arm = False
                out += read_command(lineno, _ARM_END.sub("", text))
                continue
            if not text.strip():
                continue
        if keyword == "if" and not re.search(r"[\s;]fi\s*;?\s*$", text):
            if not in_dead_code() and all(branch.sure() for branch in branches) and \
                    _nounset_ends(_condition(text), variables, flow):
                continue        # `if [ -z "$X" ]` with X unset under `set -u`: the shell ends there
            branches.append(_Branches("if", variables, dead=in_dead_code()))
            condition = _condition(text)
            branches[-1].next_branch(variables, partial(condition_value, condition))
            if branches[-1].maybe and not branches[-1].dead:
                first, other = default_name(condition, True, variables), default_name(condition, False, variables)
                branches[-1].default_name = first or other
                branches[-1].default_branch = 0 if first else 1
            out += read_command(lineno, _after_then(text))
            continue
        if keyword == "case":
            m = _CASE_HEADER.match(text)
            if m and not in_dead_code() and all(branch.sure() for branch in branches) and \
                    _nounset_ends(m.group(1), variables, flow):
                continue        # `case $X in` with X unset under `set -u`: the shell ends there
            if m:
                branches.append(_Branches("case", variables, dead=in_dead_code()))
                branches[-1].subject = m.group(1)
                continue
        if branches and branches[-1].kind == "if" and keyword in ("elif", "else", "then", "fi"):
            if keyword == "fi":
                branches.pop().end(variables)
            elif keyword == "then":
                out += read_command(lineno, text.lstrip()[4:])
            elif keyword == "elif":
                branches[-1].default_name = None        # conditions of its own: no default's fact
                condition = _condition(text)
                branches[-1].next_branch(variables, partial(condition_value, condition))
                out += read_command(lineno, _after_then(text))
            else:
                branches[-1].next_branch(variables, _always)
                out += read_command(lineno, text.lstrip()[4:])
            continue
        if in_dead_code():
            continue        # a branch that does not run: nothing in it is read
        if _nounset_ends(text, variables, flow):
            continue
        _forget_unset(text, variables, first=True)
        ending = _stop_made(text, flow, in_function=bool(_calls)) if "exit" in text or "return" in text or \
            "break" in text or "continue" in text else None
        if ending is not None:
            flow.stop, flow.stop_status = ending, _stop_status(text)
            continue
        top_return = _STOP.match(text) if not _calls and "return" in text else None
        if top_return is not None and top_return.group(1) == "return" and _errexit_applies(variables, flow):
            _fails_under_errexit(flow, 2)      # bash refuses `return` at an executed script's top: a failure
            continue
        if "set" in text:
            m = _SET_OPTIONS.match(text) if _single_command(text) else None
            if m:
                if _apply_set_options(m.group(1), variables) is not None:
                    variables.set_positional(None)
                continue
        if _TEST_COMMAND.match(text) and not text.lstrip().startswith("!") and _single_command(text):
            if _errexit_applies(variables, flow) and condition_value(text, variables) is False:
                _fails_under_errexit(flow)
            continue
        exec_read = bool(_EXEC_COMMAND.match(text))     # `exec COMMAND` ends the shell once that command is read
        group = _group(text) if text.lstrip()[:1] in ("(", "{") else None
        if group is not None:
            opener, inner, rest = group
            if rest:
                commands.push((lineno, rest))
            if opener == "(" and inner is None:
                group_body = _subshell_body(commands)
            elif inner is None:
                group_body = read_block((lineno, text), commands, "{", "}")
            else:
                group_body = [(lineno, inner)]
            if group_body is not None and opener == "{":
                out += shell_launches(path, group_body, variables, kind, _nesting=_nesting, _flow=flow, _calls=_calls)
            elif group_body is not None:
                # a subshell `( … )` is a copy of this shell: what it sets, and an `exit` in it, end there; bash
                # refuses `break` and `continue` in it and goes on
                loops, flow.loops = flow.loops, 0
                out += shell_launches(path, group_body, variables.block_scope(), kind, _nesting=_nesting, _flow=flow,
                                      _calls=_calls)
                failed = flow.stop is not None and flow.stop[0] in ("exit", "return") and bool(flow.stop_status)
                flow.loops, flow.stop = loops, None
                if failed and _errexit_applies(variables, flow):
                    _fails_under_errexit(flow, flow.stop_status or 1)     # `( exit 3 )` under `set -e`
            continue
        header = function_header(text) if "(" in text or "function" in text else None
        if header is not None:
            block = read_block((lineno, header[1]), commands, "{", "}")
            if block is not None:
                flow.functions[header[0]] = block
            continue
        loop = loop_header(text) if "for" in text else None
        if loop is not None:
            block = read_block((lineno, loop[2]), commands, "do", "done")
            if block is not None:
                out += _loop_launches(path, loop[0], loop[1], block, variables, kind, _nesting, flow, _calls)
            continue
        condition_loop = condition_loop_header(text) if "while" in text or "until" in text or "((" in text else None
        if condition_loop is not None:
            loop_keyword, condition, after = condition_loop
            block = read_block((lineno, after), commands, "do", "done")
            holds = condition_value(condition, variables) if loop_keyword != "for" else None
            if block is not None and holds is not (loop_keyword == "until"):
                runs = holds is (loop_keyword == "while")
                out += _condition_loop_launches(path, condition, runs, block, variables, kind, _nesting, flow,
                                                _calls)
            continue        # (a `while` whose condition kvguard decides false never runs its body)
        # `set -- a b; shift; X=$1` is a list: read below, each command in turn
        m = _SHIFT.match(text) or _SET_POSITIONAL.match(text) if not _LIST.search(blank_quoted(text)) else None
        if m:
            positional = variables.arrays.get(POSITIONAL)
            if m.re is _SHIFT:
                count = int(m.group(1) or 1)
                if positional is not None and count > len(positional):
                    # bash shifts nothing and fails
                    if _errexit_applies(variables, flow):
                        _fails_under_errexit(flow)
                    continue
                variables.set_positional(positional[count:] if positional is not None else None)
            else:
                expanded, missing = variables.expand(m.group(1) or "", quoting=True)
                words = split_commands(expanded)
                variables.set_positional(None if missing or len(words) > 1 else (words[0] if words else []))
            continue
        m = _ARRAY.match(text)
        if m:
            if _LOCAL_WORDS.match(text):
                variables.declared_local.add(m.group(1))
            body = m.group(3)
            end, state = _array_end(body)
            for _ in range(_MAX_ARRAY_LINES):
                if end is not None:
                    break
                following = next(commands, None)
                if following is None:
                    break
                read = len(body)
                body += "\n" + following[1]
                end, state = _array_end(body, read, state)
            if end is None:
                variables.set_unknown(m.group(1))
            else:
                variables.assign_array(m.group(1), body[:end], append=bool(m.group(2)))
                rest = body[end + 1:].strip()
                if rest.startswith(";") and rest[1:].strip() and "\n" not in rest:
                    commands.push((lineno, rest[1:].strip()))   # `A=(…); vllm serve "${A[@]}"`
            continue
        parts = _sequence(text, flow.functions)
        if len(parts) == 1 and _nounset_ends_later(text, variables, flow):
            parts = _split_list(text, and_or=True) or parts
        if len(parts) == 1:
            _forget_unset(text, variables)      # a list read as one: each of its commands
        if len(parts) > 1:
            # `TP=8; vllm serve … -tp $TP`: each command in turn, as the shell runs them; after `&&` / `||` only
            # when the status before lets it run (a test kvguard decides; anything else: as if it runs)
            status: Optional[bool] = None
            previous = ""
            for index, (operator, part) in enumerate(parts):
                if operator in ("&&", "||") and status is not None and (operator == "&&") != status:
                    continue
                maybe = operator in ("&&", "||") and status is None
                default = default_name(previous, operator == "&&", variables) if maybe else None
                if not maybe and _nounset_ends(part, variables, flow):
                    break
                status, previous = condition_value(part, variables), part
                if status is None and (_ASSIGN.match(part) or _EXPORT.match(part) or _UNSET.match(part)):
                    status = True
                # bash ignores `set -e` in a command that `&&` / `||` follows (and in what it calls)
                ignored = int(index + 1 < len(parts) and parts[index + 1][0] in ("&&", "||"))
                flow.errexit_ignored += ignored
                if not maybe:
                    out += shell_launches(path, [(lineno, part)], variables, kind, _nesting=_nesting, _flow=flow,
                                          _calls=_calls)
                    flow.errexit_ignored -= ignored
                    if flow.stop is not None:
                        break
                    continue
                # it may or may not run: its launches are reported, what it sets is unknown after it — unless it is
                # a default's assignment (`[ -z "$X" ] && X=8`), read as `${X:=8}` is; an `exit` in it ends it only
                before, scope = variables.snapshot(), Variables(variables.overrides, variables)
                out += shell_launches(path, [(lineno, part)], scope, kind, _nesting=_nesting, _flow=flow, _calls=_calls)
                flow.errexit_ignored -= ignored
                stopped, flow.stop = flow.stop, None
                if stopped is not None and stopped[0] != "exit":
                    flow.uncertain.add(stopped[0])
                if stopped is None or stopped[0] != "exit":
                    variables.take_changes(scope, before, exact=stopped is None and default is not None
                                           and scope.changed_since(before) <= {default})
                status = None
            continue
        if flow.functions and _calls_a_function(text, flow.functions):
            _function_calls(path, text, variables, kind, _nesting, flow, _calls)
            continue
        if text.lstrip().startswith(": "):
            variables.expand(text, quoting=True)      # `: "${TP:=8}"`: the null command, run for its expansions' assignments
            continue
        m = _EVAL.match(text)
        if m and _nesting < _MAX_NESTING:
            # eval: its arguments, expanded once and joined, run as shell text here
            expanded, missing = variables.expand(m.group(1), quoting=True)
            words = split_commands(expanded)
            if len(words) == 1 and not missing:
                out += shell_launches(path, [(lineno, " ".join(words[0]))], variables, kind, _nesting=_nesting + 1,
                                      _flow=flow, _calls=_calls)
            else:
                for name in _ASSIGNED_IN.findall(m.group(1)):
                    variables.set_unknown(name)
            continue
        arithmetic = _arithmetic_assignment(text)
        if arithmetic is not None:
            name, value, after_result = arithmetic
            variables.assign(name, value)
            result = variables.get(name) if name not in variables.unknown else None
            # the command fails when its expression is worth 0 (`(( X++ ))` with X at 0: the value before the step)
            if result is not None and re.fullmatch(r"-?[0-9]+", result) and \
                    int(result) + after_result == 0 and _errexit_applies(variables, flow):
                _fails_under_errexit(flow)
            continue
        names = _names_set_by(text)
        if names:
            for name in names:      # set by a command kvguard does not evaluate: a value it cannot know
                variables.set_unknown(name)
            if not LAUNCH_HINT.search(text):
                continue
        m = _SOURCE.match(text)
        if m:
            _source(path, m.group(1), variables, kind, _calls, flow)
            continue
        m = _UNSET.match(text) or _EXPORT.match(text)
        if m:
            for name in m.group(1).split():
                if m.re is _UNSET:
                    variables.unset(name)
                    variables.set_known(_UNSET_MARK + name, "on")
                else:
                    variables.exported.add(name)
            continue
        m = _LOCAL.match(text)
        if m and not _EXPORT.match(text):
            for name in m.group(1).split():
                variables.declared_local.add(name)
                variables.unset(name)
                variables.set_known(_UNSET_MARK + name, "on")
            continue
        m = _ASSIGN.match(text)
        if m:
            if _LOCAL_WORDS.match(text):
                variables.declared_local.add(m.group(2))
            variables.assign(m.group(2), m.group(4), export=bool(m.group(1)) and "x" in m.group(1),
                             append=bool(m.group(3)))
            continue
        assignments = assignment_command(text) if "=" in text else None
        if assignments is not None:
            _read_assignment_command(assignments, variables)
            if not LAUNCH_HINT.search(text):
                continue        # (a text that names a launch is still looked at for one below, as it was before)
        if "install" in text and "vllm" in text:        # `pip install vllm==X` pins what runs below
            for cmd in split_commands(variables.expand(text, quoting=True)[0]):
                pin = pip_pin(cmd, f"{path}:{lineno}")
                if pin is not None:
                    variables.pin = pin
        if not LAUNCH_HINT.search(text):
            continue
        expanded, missing = variables.expand(text, quoting=True)
        expanded, stand_ins = _stand_in(expanded, missing)
        for cmd in split_commands(expanded):
            cmd = [_restored(word, stand_ins) for word in cmd] if stand_ins else cmd
            command_launch = launch_and_image(cmd)
            tokens, image, image_entrypoint = command_launch[:3]
            passes = command_launch.passes or _ALL_PASSED
            if _nesting and tokens is not None and image is None and cmd[:len(tokens)] != tokens:
                tokens = None       # in a command string, only a launcher in command position runs
            if tokens is None:
                if _nesting < _MAX_NESTING:
                    for script in _command_strings(cmd):
                        out += shell_launches(path, [(lineno, script)], _runner_scope(cmd, variables), kind,
                                              _nesting=_nesting + 1)
                continue
            unresolved = tuple(dict.fromkeys([v for v in missing if any(v in t for t in tokens)] +
                                             [t for t in tokens if PLACEHOLDER.match(t)] +
                                             [m for t in tokens if not PLACEHOLDER.match(t)
                                              for m in EMBEDDED_PLACEHOLDER.findall(t)]))
            given = {t.split("=", 1)[0] for t in tokens if ENV_TOKEN.match(t)}
            notes: list[str] = [BLANK_WORD] if any(t and not t.strip() for t in tokens) else []
            notes += variables.notes
            if image is None:
                exported = [t for t in variables.vllm_env() if t.split("=", 1)[0] not in given
                            and passes.lets(t.split("=", 1)[0])]
                unresolved += tuple(n for n in variables.unknown_env()
                                    if n not in given and n not in unresolved and passes.lets(n))
                notes += passes.notes
            else:
                # a container sees only what `docker run` passes it, not the script's exported variables
                exported, unknown, notes = _container_environment(path, cmd, given, variables)
                unresolved += tuple(n for n in unknown if n not in unresolved)
                if image_entrypoint and starts_its_own_launcher(tokens):
                    notes.append(IMAGE_RUNS_FIRST)
            # a container runs the vLLM of its image, not the one installed beside `docker`; a tool runner
            # (`uvx vllm@X`, `uv run --with vllm==X`) the one it names
            pin = image_pin(image, f"{path}:{lineno}") if image is not None else \
                runner_pin(cmd, f"{path}:{lineno}") or variables.pin
            launch = Launch(path, lineno, exported + tokens, kind, unresolved, pin=pin, notes=tuple(notes),
                            image_entrypoint=image_entrypoint)
            gpus, given_by = container_gpus_given(cmd) if image is not None else (None, None)
            if gpus is not None:
                launch.give_gpus(gpus, given_by or "")
            out.append(launch)
    reading_ends()
    if _sourced_by is not None and flow.stop is not None:
        if flow.stop[0] == "exit":
            _sourced_by.stop, _sourced_by.stop_status = flow.stop, flow.stop_status
        elif flow.stop[0] == "return" and flow.stop_status and _errexit_applies(variables, _sourced_by):
            _fails_under_errexit(_sourced_by, flow.stop_status)
    if top:
        flow.stop = None            # the text ended here (`exit`): its functions are still read below
        if session is not None:
            session.called |= set(flow.calls)
            session.defined.update((id(block), (name, block)) for name, block in flow.functions.items())
        else:
            out += _uncalled_launches(path, flow, variables, kind, _nesting, set(flow.calls))
        for collector in flow.calls.values():
            out += collector.launches()
        out.sort(key=lambda launch: launch.line)
    return out


def _uncalled_launches(path: str, flow: _Flow, variables: Variables, kind: str, nesting: int, called: set[str],
                       functions: "Optional[Iterable[tuple[str, Block]]]" = None) -> list[Launch]:
    """The launches of the functions of ``flow`` (or ``functions``) none of ``called``: each body read once, its
    parameters unresolved, in the variables as the text left them."""
    out: list[Launch] = []
    # where a call kvguard does not see would run it, and whether bash ignores `set -e` there, is not known
    flow.errexit_ignored += 1
    flow.nounset_unsure += 1
    for name, block in functions if functions is not None else flow.functions.items():
        if name not in called:
            scope = Variables(variables.overrides, variables)
            scope.set_positional(None)
            out += shell_launches(path, block, scope, kind, _nesting=nesting, _flow=flow, _calls=(name,))
            flow.stop = None
    flow.errexit_ignored -= 1
    flow.nounset_unsure -= 1
    return out


class ShellSession:
    """One shell several texts are typed into in turn (a guide's code blocks): the functions one of them defines
    are there for the ones after it, as bash keeps them.  A function none of them calls is read once, its
    parameters unresolved, at :meth:`end`."""

    def __init__(self) -> None:
        #: the functions the shell holds now
        self.functions: dict[str, Block] = {}
        #: every function a text defined, by its body's identity (one a later content tab no longer has too)
        self.defined: dict[int, tuple[str, Block]] = {}
        self.called: set[str] = set()
        #: the texts' here-documents (a function's body may hold one): found by the line of their operator
        self.documents: list[HereDocument] = []

    def end(self, path: str, variables: Variables, kind: str) -> list[Launch]:
        """The launches of the functions no text called, in the variables as the last text left them."""
        flow = _Flow()
        flow.functions, flow.documents = self.functions, self.documents
        return _uncalled_launches(path, flow, variables, kind, 0, self.called, self.defined.values())


#: ``source FILE`` / ``. FILE`` (arguments after the file are not read)
_SOURCE = re.compile(r"^\s*(?:source|\.)\s+(\S+)\s*$")
#: a virtual environment's or conda's activation script: it sets the paths, never a launch's variables
_ACTIVATION = re.compile(r"(?:^|/)activate$")
#: how many files deep ``source`` is followed
_MAX_SOURCE_DEPTH = 8


def _source(path: str, word: str, variables: Variables, kind: str, calls: tuple[str, ...], flow: _Flow) -> None:
    """``source FILE``: the file read in this shell, for what it sets (its launches are its own file's, found when
    it is scanned); found as the path says, else beside the script.  One kvguard cannot read is noted on the
    launches below.  An ``exit`` the file surely reaches ends this shell (``flow``'s text) too; a ``return N`` at
    its top ends the file with that status, which ``set -e`` acts on."""
    expanded, missing = variables.expand(word, quoting=True)
    words = split_commands(expanded)
    name = words[0][0] if len(words) == 1 and len(words[0]) == 1 and not missing else None
    if name is not None and _ACTIVATION.search(name):
        return
    marker = f"source:{name}"
    text = read_beside(path, name) if name is not None else None
    why = "its name is not known" if name is None else "not found beside this file" if text is None else \
        "sourced within itself" if marker in calls or \
        sum(call.startswith("source:") for call in calls) >= _MAX_SOURCE_DEPTH else None
    if why is not None or text is None:
        variables.notes.append(f"source {word}: not read ({why}), so what it sets is not known")
        return
    lines = list(enumerate(text.splitlines(), 1))
    shell_launches(path, lines, variables, kind, _calls=calls + (marker,), _sourced_by=flow)


def _calls_a_function(text: str, functions: dict[str, Block]) -> bool:
    """Whether a command of ``text`` starts with the name of a function the script defines."""
    return any(part.split(None, 1)[0] in functions for part in re.split(r"&&|\|\||[;&|]", text) if part.strip())


def _function_calls(path: str, text: str, variables: Variables, kind: str, nesting: int, flow: _Flow,
                    calls: tuple[str, ...]) -> None:
    """Reads the functions ``text`` calls: each one's body with the call's words as ``$1`` …, an unresolved word
    unresolved there too; the launches go to the function's :class:`Collector` in ``flow``."""
    expanded, missing = variables.expand(text, quoting=True)
    expanded, stand_ins = _stand_in(expanded, missing)
    commands = split_commands(expanded)
    # a lone call runs in this shell: what its body sets (not `local`) holds after it; in a list or a pipeline
    # it may not run, or run in a subshell, so what it sets is unknown after the line
    alone = len(commands) == 1 and not re.search(r"[|&;]", blank_quoted(expanded))
    for cmd in commands:
        cmd = [_restored(word, stand_ins) for word in cmd] if stand_ins else cmd
        if not cmd or cmd[0] not in flow.functions:
            continue
        name, words = cmd[0], cmd[1:]
        collector = flow.calls.setdefault(name, Collector("call"))
        if name in calls or len(calls) >= _MAX_CALL_DEPTH:
            continue
        before = variables.snapshot()
        scope = Variables(variables.overrides, variables)
        scope.set_positional(words)
        for number, word in enumerate(words[:9], 1):
            if any(piece in word for piece in missing):
                scope.set_unknown(str(number))
        combo = {f"${number}": word for number, word in enumerate(words[:9], 1)}
        # the body is not in the caller's loops (bash refuses `break` there); `return` ends the call, and so does
        # `exit` when the call runs in a subshell (a pipeline, `&`)
        loops, uncertain, flow.loops, flow.uncertain = flow.loops, flow.uncertain, 0, set()
        # a body another text defined (a guide's earlier block) was not looked at with this text
        ignored = int(_ignores_errexit_somewhere(flow.functions[name]))
        flow.errexit_ignored += ignored
        flow.nounset_unsure += ignored
        for launch in shell_launches(path, flow.functions[name], scope, kind, _nesting=nesting, _flow=flow,
                                     _calls=calls + (name,)):
            collector.add(combo, launch)
        flow.errexit_ignored -= ignored
        flow.nounset_unsure -= ignored
        returned_maybe = "return" in flow.uncertain
        flow.loops, flow.uncertain = loops, uncertain
        if flow.stop is not None and flow.stop[0] == "return" and flow.stop_status and alone and \
                _errexit_applies(scope, flow):
            _fails_under_errexit(flow, flow.stop_status)      # `return 1` under `set -e`: the call failed
        if flow.stop is not None and (flow.stop[0] != "exit" or not alone):
            flow.stop = None
        if flow.stop is not None:
            return
        variables.take_changes(scope, before, exact=alone and not returned_maybe,
                               keep_out=frozenset(scope.declared_local) | _POSITIONAL_NAMES
                               | {_UNSET_MARK + name for name in scope.declared_local})


#: the positional parameters: a function's own, not the caller's
_POSITIONAL_NAMES = frozenset({POSITIONAL, "#", "*"} | {str(number) for number in range(1, 10)})

#: a loop over bash's sequence expression alone: ``{0..7}``, ``{8..2..2}``
_SEQUENCE = re.compile(r"^\{(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.(-?[0-9]+))?\}$")


def _sequence_words(words: str) -> Optional[list[str]]:
    """The integers of a sequence expression as bash counts them: from the first to the last, up or down, by
    the increment's size (1 when it is missing or 0); None past :data:`_MAX_LOOP_WORDS`."""
    m = _SEQUENCE.match(words)
    if m is None:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    step = abs(int(m.group(3) or 1)) or 1
    if abs(last - first) // step + 1 > _MAX_LOOP_WORDS:
        return None
    return [str(n) for n in range(first, last + (1 if last >= first else -1), step if last >= first else -step)]


def _loop_launches(path: str, name: str, words: Optional[str], block: Block, variables: Variables, kind: str,
                   nesting: int, flow: _Flow, calls: tuple[str, ...]) -> list[Launch]:
    """The launches of a ``for`` loop's body, read once per word of its list with ``name`` set to it; once with
    ``name`` unresolved when the list is not known (a substitution, a brace expansion, more than
    :data:`_MAX_LOOP_WORDS` words).  Each run starts from the variables the run before it left; after the loop
    ``name`` holds the last word and what the body set holds, as in bash (unknown after a loop read once)."""
    values: Optional[list[str]]
    if words is None:               # `for x; do`: the positional parameters
        given = variables.arrays.get(POSITIONAL)
        values = list(given) if given is not None else None
    elif _SEQUENCE.match(words):
        values = _sequence_words(words)
    else:
        expanded, missing = variables.expand(words, quoting=True)
        split = split_commands(expanded)
        values = None if missing or len(split) > 1 else (split[0] if split else [])
    if values is not None and len(values) > _MAX_LOOP_WORDS:
        values = None
    before = variables.snapshot()
    scope = variables.block_scope()
    flow.loops += 1
    uncertain, flow.uncertain = flow.uncertain, set()
    if values is None:
        # read once, for a run kvguard cannot count: what the body sets is unknown after the loop, and what ends
        # what runs in it (`exit`, `break`) may not run
        scope.set_unknown(name)
        launches = shell_launches(path, block, scope, kind, _nesting=nesting, _flow=flow, _calls=calls)
        flow.loops -= 1
        if flow.stop is not None and flow.stop[0] == "return":
            flow.uncertain.add("return")
        flow.stop, flow.uncertain = None, uncertain | flow.uncertain
        variables.take_changes(scope, before, exact=False)
        variables.set_unknown(name)
        return launches
    collector = Collector("loop")
    for value in values:
        # each run starts where the one before it ended, as in bash
        scope.set_known(name, value)
        for launch in shell_launches(path, block, scope, kind, _nesting=nesting, _flow=flow, _calls=calls):
            collector.add({name: value}, launch)
        if _loop_stops(flow):
            break
    flow.loops -= 1
    # a `break` / `continue` in a branch that may not run: the runs kvguard read may not be the ones bash makes
    exact = not flow.uncertain & {"break", "continue"}
    flow.uncertain |= uncertain
    variables.take_changes(scope, before, exact=exact)
    variables.declared_local |= scope.declared_local
    return collector.launches()


def _loop_stops(flow: _Flow) -> bool:
    """After a run of a loop's body: whether the loop ends there (``break``, ``exit``, ``return``, or a ``continue N``
    for an outer loop, which go on to the reading that holds the loop), the stop this loop answers taken."""
    if flow.stop is None:
        return False
    stop, count = flow.stop
    if stop not in ("break", "continue"):
        return True
    flow.stop = (stop, count - 1) if count > 1 else None
    return stop == "break" or count > 1


_ARITHMETIC_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a command's leading ``NAME=value`` words (``IFS= read -r line``)
_PREFIX_ASSIGNMENTS = re.compile(r"^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*")


def _condition_names(condition: str) -> set[str]:
    """The names a loop's condition sets: every name of an arithmetic header, else what its commands set
    (:func:`_names_set_by`: ``read x``'s ``x``)."""
    if condition.lstrip().startswith("(("):
        return set(_ARITHMETIC_NAME.findall(condition))
    parts = _split_list(condition, and_or=True) or [("", condition)]
    return {name for _, part in parts for name in _names_set_by(_PREFIX_ASSIGNMENTS.sub("", part))}


def _condition_loop_launches(path: str, condition: str, runs: bool, block: Block, variables: Variables, kind: str,
                             nesting: int, flow: _Flow, calls: tuple[str, ...]) -> list[Launch]:
    """The launches of a ``while`` / ``until`` / ``for ((…))`` loop's body, read once (``runs``: the condition
    surely lets it run once).  kvguard does not evaluate the condition after a run, so it cannot count the runs: a
    name the body sets (or the condition, ``read x``) is unknown in the body, where a later run sees what an earlier
    one set, and after the loop."""
    before = variables.snapshot()
    # a first reading finds the names the body sets; its launches and calls are not kept
    trial_flow = _Flow()
    trial_flow.functions, trial_flow.documents, trial_flow.loops = flow.functions, flow.documents, 1
    trial_flow.errexit_ignored = 1      # every name the body may set, past a failure `set -e` would end on too
    trial = Variables(variables.overrides, variables)
    shell_launches(path, block, trial, kind, _nesting=nesting, _flow=trial_flow, _calls=calls)
    changed = trial.changed_since(before) | _condition_names(condition)
    scope = variables.block_scope()
    for name in changed:
        scope.set_unknown(name)
    flow.loops += 1
    launches = shell_launches(path, block, scope, kind, _nesting=nesting, _flow=flow, _calls=calls)
    flow.loops -= 1
    # the body runs at least once when the condition surely holds: an `exit` or `return` in it then ends what holds
    # the loop too; else the body may not run
    if flow.stop is not None and runs:
        _loop_stops(flow)
    elif flow.stop is not None:
        if flow.stop[0] == "return":
            flow.uncertain.add("return")
        flow.stop = None
    variables.take_changes(scope, before, exact=False)
    for name in changed:
        variables.set_unknown(name)
    return launches


#: a reference a reader writes into shell text for a value it does not know (``${NAME}``, ``${NAME:-default}``)
_WRITTEN_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")


def one_word(text: str, literal_dollar: str = "$") -> str:
    """``text`` as one word of shell text for :func:`shell_launches`: quoted whole, the ``${NAME}`` references a
    reader wrote into it (for values it does not know) still expanded.  A reader that keeps the script's own
    dollar signs apart from its references marks them with ``literal_dollar``."""
    if "${" not in text:
        return shlex.quote(text.replace(literal_dollar, "$"))
    parts, last = [], 0
    for match in _WRITTEN_REFERENCE.finditer(text):
        parts.append(_double_quoted(text[last:match.start()], literal_dollar) + match.group(0))
        last = match.end()
    parts.append(_double_quoted(text[last:], literal_dollar))
    return '"' + "".join(parts) + '"'


def _double_quoted(text: str, literal_dollar: str) -> str:
    escaped = re.sub(r'(["\\$`])', r"\\\1", text)
    return escaped if literal_dollar == "$" else escaped.replace(literal_dollar, "\\$")
