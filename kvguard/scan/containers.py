"""Containers in YAML, a Kubernetes container (:mod:`~kvguard.scan.kubernetes`) or a docker-compose
service (:mod:`~kvguard.scan.compose`), each of which says what command it runs: here is what they
share — the command's words (a list, or a string split as compose splits it), ``sh -c`` scripts
and multi-line commands, the ``VLLM_*`` entries of ``env`` / ``environment``, and the release the
image pins.  A mapping with no command keys may be Helm values (:mod:`~kvguard.scan.helm`)."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

from ..launch.pins import image_pin
from .compose import compose_command, is_compose_service
from .helm import helm_launches
from .kubernetes import is_kubernetes_container, kubernetes_command
from .result import Launch
from .shell import LAUNCH_HINT, launch_tokens, shell_launches
from .variables import ENV_TOKEN, Variables
from .yamlnodes import scalar_text, to_python

if TYPE_CHECKING:
    from .yamlfiles import YamlWalker

__all__ = ["container_launches"]


def _flavour(walker: "YamlWalker", keys: dict) -> str:
    """compose (entrypoint + command) | kubernetes (command + args) | unknown."""
    if is_compose_service(keys, walker.keys):
        return "compose"
    if is_kubernetes_container(keys, walker.keys):
        return "kubernetes"
    return "unknown"


def _environment(keys: dict) -> list[str]:
    """``VLLM_*=value`` from a Kubernetes ``env`` list or a compose ``environment``."""
    plain = to_python(keys["env"]) if "env" in keys else to_python(keys["environment"]) if "environment" in keys \
        else None
    pairs: list[tuple[Any, Any]] = []
    if isinstance(plain, dict):
        pairs = list(plain.items())
    elif isinstance(plain, list):
        for item in plain:
            if isinstance(item, dict) and "name" in item and "value" in item:
                pairs.append((item["name"], item["value"]))
            elif isinstance(item, str) and "=" in item:
                name, val = item.split("=", 1)
                pairs.append((name, val))
    return [f"{k}={'' if v is None else str(v).lower() if isinstance(v, bool) else v}"
            for k, v in pairs if isinstance(k, str) and k.startswith("VLLM_") and not isinstance(v, (dict, list))]


def _in_container(walker: "YamlWalker", first: int, keys: dict, image_text: str) -> None:
    """The launches found from ``walker.out[first]`` on run in this container (a ``sh -c``
    script, a multi-line command): they see its ``VLLM_*`` environment (the script's own
    assignments win) and run the release its image pins unless the script pins one."""
    env = _environment(keys)
    pin = image_pin(image_text, f"{walker.path}:{walker.line(keys['image'])}") if image_text else None
    for launch in walker.out[first:]:
        given = {t.split("=", 1)[0] for t in launch.tokens if ENV_TOKEN.match(t)}
        launch.tokens = [t for t in env if t.split("=", 1)[0] not in given] + launch.tokens
        if launch.pin is None:
            launch.pin = pin


def container_launches(walker: "YamlWalker", node) -> bool:
    """A mapping with command/args/entrypoint: a Kubernetes container, a compose service, Helm values."""
    import yaml
    keys = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    command, args, entry = keys.get("command"), keys.get("args"), keys.get("entrypoint")
    if command is None and args is None and entry is None:
        return helm_launches(walker, node, keys)
    image_text = scalar_text(keys.get("image")) if keys.get("image") is not None else ""
    vllm_image = "vllm/vllm-openai" in image_text or "vllm-openai" in image_text
    flavour = _flavour(walker, keys)
    parts: list[tuple[Any, list[str]]] = []
    for n in (entry, command, args):
        if n is None or isinstance(n, yaml.ScalarNode) and n.tag.endswith(":null"):
            continue        # `command: null` / `command:` is no command
        if isinstance(n, yaml.SequenceNode):
            parts.append((n, [scalar_text(v) for v in n.value]))
        elif isinstance(n, yaml.ScalarNode):
            if flavour != "compose" and isinstance(n.value, str) and LAUNCH_HINT.search(n.value) and \
                    ("\n" in n.value or n is command or n is entry):
                before = len(walker.out)
                walker.text(n)
                if len(walker.out) > before:
                    _in_container(walker, before, keys, image_text)
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
        tokens, implied = compose_command(entry_t, command_t, vllm_image)
    elif flavour == "kubernetes":
        tokens, implied = kubernetes_command(command_t, args_t, vllm_image)
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
            before = len(walker.out)
            node_of_script = next((v for n, _t in parts for v in (n.value if isinstance(n, yaml.SequenceNode)
                                                                  else []) if scalar_text(v) == script), None)
            if node_of_script is not None:
                walker.text(node_of_script)
            else:
                host = next((n for n, t_list in parts if script in t_list), parts[-1][0])
                walker.out += shell_launches(walker.path, [(walker.line(host), script)],
                                             Variables(walker.variables.overrides, walker.variables), walker.kind)
            _in_container(walker, before, keys, image_text)
            return True
    line_node = parts[-1][0]
    for n, t_list in parts:     # report the line that names the launcher, else the arguments'
        if LAUNCH_HINT.search(" ".join(t_list)):
            line_node = n
            break
    if implied:
        if tokens[:2] == ["vllm", "serve"] or launch_tokens(tokens) is not None:
            notes = ("the image's entrypoint `vllm serve` runs before this command, which starts with its "
                     "own launcher",)
        tokens = ["vllm", "serve"] + tokens
    expanded, missing = [], []
    for t in tokens:
        e, miss = walker.variables.expand(t)
        expanded.append(e)
        missing += miss
    launch = launch_tokens(expanded)
    if launch is None and flavour == "unknown" and vllm_image and \
            not any(t.rsplit("/", 1)[-1] in ("sh", "bash", "python", "python3") for t in expanded[:1]):
        launch = ["vllm", "serve"] + expanded
    if launch is None:
        for _k, v in node.value:
            walker.walk(v)
        return True
    unresolved = tuple(dict.fromkeys(v for v in missing if any(v in t for t in launch)))
    given = {t.split("=", 1)[0] for t in launch if ENV_TOKEN.match(t)}
    env = [t for t in _environment(keys) if t.split("=", 1)[0] not in given]
    line = walker.line(line_node)
    walker.out.append(Launch(walker.path, line, env + launch, walker.kind, unresolved,
                             pin=image_pin(image_text, f"{walker.path}:{walker.line(keys['image'])}")
                             if image_text else None, notes=notes))
    return True
