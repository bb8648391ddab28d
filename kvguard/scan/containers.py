"""Containers in YAML, a Kubernetes container (:mod:`~kvguard.scan.kubernetes`) or a docker-compose
service (:mod:`~kvguard.scan.compose`), each of which says what command it runs: here is what they
share — the command's words (a list, or a string split as compose splits it), ``sh -c`` scripts
(run by the shell only when the container's own entrypoint or command names it: given to a vLLM image's
``vllm serve`` as arguments, no shell runs them) and multi-line commands, the ``VLLM_*`` entries of ``env`` / ``environment``, and the release the
image pins.  A mapping with no command keys may be Helm values (:mod:`~kvguard.scan.helm`)."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any, Optional

from ..launch.pins import image_pin
from .beside import not_beside
from .compose import compose_command, is_compose_service, read_dotenv
from .gpus import gpu_count, resources_gpus, visible_devices_gpus
from .helm import helm_launches
from .kubernetes import is_kubernetes_container, kubernetes_command, refused_by_the_api
from .result import Launch
from .shell import IMAGE_RUNS_FIRST, LAUNCH_HINT, launch_tokens, shell_launches, start_shell_with
from .variables import ENV_TOKEN, LITERAL_DOLLAR, Variables, compose_invalid, compose_literal, env_text, launch_reads
from .yamlnodes import scalar_text, to_python

if TYPE_CHECKING:
    from .yamlfiles import YamlWalker

__all__ = ["container_launches", "script_in_container"]

#: a name a container's environment can hold (Kubernetes also takes dots and dashes)
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _flavour(walker: "YamlWalker", keys: dict) -> str:
    """compose (entrypoint + command) | kubernetes (command + args) | unknown."""
    if is_compose_service(keys, walker.keys):
        return "compose"
    if is_kubernetes_container(keys, walker.keys):
        return "kubernetes"
    return "unknown"


_SHELL_GIVEN_TO_IMAGE = ("no entrypoint of its own: the image's entrypoint runs and is given the shell and its script "
                         "as arguments (set `entrypoint:` / `command:` to run the shell)")

#: Kubernetes' own expansion in ``command``, ``args`` and ``env`` values: ``$(NAME)`` of a variable
#: declared above; ``$$`` escapes a ``$`` (so ``$$(NAME)`` stays as written)
#: the option word of a shell given a command string (``-c``, ``-lc``, ``-ec``, ``-euxc``): one cluster of letters
#: with ``c``, and no ``o`` / ``O``, which would take the next word (the script) as their value
_COMMAND_STRING_OPTIONS = re.compile(r"^-(?![a-zA-Z]*[oO])[a-zA-Z]*c[a-zA-Z]*$")
_KUBELET_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def _kubelet_expand(text: str, declared: "dict[str, Optional[str]]") -> "Optional[str]":
    """``text`` with the ``$(NAME)`` references Kubernetes expands from the container's ``env``
    (``declared``: a value, or None when it comes from elsewhere); None if it refers to such a
    value.  A name not declared stays as written (the kubelet leaves it so)."""
    unknown = False

    def sub(m: re.Match) -> str:
        nonlocal unknown
        name = m.group(1)
        if name is None:
            return LITERAL_DOLLAR       # `$$`: a `$`, which nothing expands afterwards
        if name not in declared:
            return m.group(0)
        value = declared[name]
        if value is None:
            unknown = True
            return m.group(0)
        return value

    out = _KUBELET_REFERENCE.sub(sub, text)
    return None if unknown else out


def _declared_environment(keys: dict, flavour: str, injected: "Optional[dict[str, Optional[str]]]" = None,
                          walker: "Optional[YamlWalker]" = None) -> "dict[str, Optional[str]]":
    """The container's environment variables in order, each with its value, or None when the file
    does not hold it: a Kubernetes ``valueFrom`` (or a value referring to one), a compose entry
    taken from the host (``NAME`` alone, or a value compose interpolates from a ``$X`` it cannot know).
    ``injected``: variables a controller puts before the container's own (its own entries win).  A compose
    service's ``env_file`` files come first (read beside the scanned file; ``environment`` wins), and its
    values interpolate from ``walker``'s variables (``--set``, the project's ``.env``)."""
    plain = to_python(keys["env"]) if "env" in keys else to_python(keys["environment"]) if "environment" in keys \
        else None
    pairs: list[tuple[Any, Any]] = []
    #: the entries (indices in `pairs`) whose values the kubelet takes as they are (from a ConfigMap: no
    #: `$(NAME)` expansion)
    verbatim: set[int] = set()
    if flavour == "compose" and walker is not None and "env_file" in keys:
        pairs += _compose_env_files(walker, to_python(keys["env_file"]))
    if flavour == "kubernetes" and walker is not None and "envFrom" in keys:
        from_maps = _env_from_config_maps(walker, to_python(keys["envFrom"]))
        verbatim.update(range(len(pairs), len(pairs) + len(from_maps)))
        pairs += from_maps
    if isinstance(plain, dict):
        pairs += list(plain.items())
    elif isinstance(plain, list):
        for item in plain:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                # Kubernetes: `value` (default ""), or `valueFrom` a secret, config map or field
                if "valueFrom" not in item:
                    pairs.append((item["name"], item.get("value", "")))
                    continue
                found, value = _config_map_key(walker, item["valueFrom"]) if walker is not None else (True, None)
                if found:
                    verbatim.add(len(pairs))
                    pairs.append((item["name"], value))
            elif isinstance(item, str):
                name, sep, val = item.partition("=")
                pairs.append((name, val if sep else None))
    declared: dict[str, Optional[str]] = dict(injected or {})
    for index, (name, value) in enumerate(pairs):
        if not isinstance(name, str) or not ENV_NAME.match(name) or isinstance(value, (dict, list)):
            continue
        text = None if value is None else env_text(value)
        if text is not None and index in verbatim:
            pass
        elif text is not None and flavour == "kubernetes":
            text = _kubelet_expand(text, declared)
        elif text is not None and "$" in text:
            expanded, missing = walker.variables.expand(compose_literal(text)) if flavour == "compose" and walker \
                else ("", [text])
            text = None if missing else expanded
        declared[name] = text
    return declared


def _env_from_config_maps(walker: "YamlWalker", sources: Any) -> "list[tuple[str, str]]":
    """The variables a Kubernetes container's ``envFrom`` takes from ConfigMaps of the same file, in order
    (each key behind its source's ``prefix``); a source the file does not hold gives none (noted:
    :func:`_note_env_from`)."""
    pairs: list[tuple[str, str]] = []
    for source in sources if isinstance(sources, list) else []:
        ref = source.get("configMapRef") if isinstance(source, dict) else None
        data = walker.config_maps.data(ref.get("name"), walker.namespace) if isinstance(ref, dict) else None
        if data is not None:
            prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
            pairs += [(prefix + key, value) for key, value in data.items()]
    return pairs


def _unread_env_from(walker: "YamlWalker", sources: Any) -> bool:
    """Whether a Kubernetes ``envFrom`` has a source kvguard does not read: a Secret, a ConfigMap the file does
    not hold."""
    for source in sources if isinstance(sources, list) else [sources]:
        ref = source.get("configMapRef") if isinstance(source, dict) else None
        if not isinstance(ref, dict) or walker.config_maps.data(ref.get("name"), walker.namespace) is None:
            return True
    return False


def _config_map_key(walker: "YamlWalker", value_from: Any) -> "tuple[bool, Optional[str]]":
    """What an ``env`` entry's ``valueFrom`` sets: (True, the value) from a ``configMapKeyRef`` to a ConfigMap of
    the same file that has the key; (False, None) when the key is missing and the reference ``optional`` (the
    variable is not set); else (True, None): not known (another source; a ConfigMap not in the file; a missing
    key the kubelet refuses to start the container over)."""
    ref = value_from.get("configMapKeyRef") if isinstance(value_from, dict) else None
    if not isinstance(ref, dict) or len(value_from) != 1:
        return True, None
    data = walker.config_maps.data(ref.get("name"), walker.namespace)
    if data is None:
        return True, None
    if isinstance(ref.get("key"), str) and ref["key"] in data:
        return True, data[ref["key"]]
    return (False, None) if ref.get("optional") is True else (True, None)


def _compose_env_files(walker: "YamlWalker", value: Any) -> "list[tuple[str, Optional[str]]]":
    """The entries of a compose service's ``env_file`` (a path, a list of paths, or of ``{path, required}``),
    in order; a file not beside the scanned file gives none (noted: :func:`_note_env_from`)."""
    entries: list[tuple[str, Optional[str]]] = []
    for name in _env_file_names(value):
        entries += list((read_dotenv(walker.path, name) or {}).items())
    return entries


def _env_file_names(value: Any) -> "list[str]":
    """The paths a compose ``env_file`` names: a path, a list of paths, or of ``{path, required}``."""
    items = value if isinstance(value, list) else [value]
    names = [item.get("path") if isinstance(item, dict) else item for item in items]
    return [name for name in names if isinstance(name, str) and name]


def _missing_env_files(walker: "YamlWalker", keys: dict) -> "list[str]":
    """The ``env_file`` paths of a compose service that are not beside the scanned file."""
    names = _env_file_names(to_python(keys["env_file"])) if "env_file" in keys else []
    return [name for name in names if read_dotenv(walker.path, name) is None]


def _vllm_environment(declared: "dict[str, Optional[str]]", given: "set[str]") -> tuple[list[str], list[str]]:
    """``NAME=value`` words for the declared variables a check reads (``VLLM_*``, ``CUDA_VISIBLE_DEVICES``:
    :func:`~kvguard.scan.variables.launch_reads`) that a launch does not set itself, and the names among
    them whose values the file does not hold (written ``NAME=$NAME``: unresolved)."""
    words, unknown = [], []
    for name, value in declared.items():
        if launch_reads(name) and name not in given:
            words.append(f"{name}={value}" if value is not None else f"{name}=${name}")
            if value is None:
                unknown.append(name)
    return words, unknown


def _compose_script(script: str, host: Variables, declared: "dict[str, Optional[str]]") -> tuple[str, Variables]:
    """A compose service's ``sh -c`` script as its shell is given it, and the variables that shell sees.

    Compose interpolates the text first, from the host (``host``: ``--set``, the project's ``.env``): ``$X`` and
    ``${X:-d}`` are replaced as text, and ``$$`` becomes ``$``.  The shell then expands what is left (``$$X`` in the
    file) from the service's environment.  A host variable compose cannot know stays unresolved in the shell too."""
    interpolated, missing = host.expand(compose_literal(script))
    scope = host.with_environment(declared)
    for name in missing:
        if name.isidentifier():
            scope.set_unknown(name)
    return interpolated, scope


def _interpolated_before_splitting(host: Variables, text: str) -> str:
    """A compose string ``command`` / ``entrypoint`` as compose splits it: interpolated first (compose-go
    interpolates the whole file, then parses the string into words), so a ``$ARGS`` of ``-tp 2`` is two words.
    Each ``$`` of the result is written ``$$``, which the reading of the words takes as a ``$`` as it is.  A
    reference compose cannot know leaves the text as written (its words are unresolved anyway)."""
    if "$" not in text or compose_invalid(text):
        return text
    interpolated, missing = host.expand(compose_literal(text))
    return text if missing else interpolated.replace("$", "$$")


def _refused_by_compose(launches: "list[Launch]", pieces: "list[str]") -> None:
    """Compose refuses a file whose command holds a ``$`` it cannot interpolate (``$(nproc)``: "invalid
    interpolation format"), so the launch does not start as written: each piece unresolved, and said."""
    if not pieces:
        return
    note = (f"compose refuses {', '.join(f'`{p}`' for p in dict.fromkeys(pieces))}: a `$` not followed by a name, "
            "`{` or `$` is an invalid interpolation (write `$$` for a `$`)")
    for launch in launches:
        launch.unresolved = tuple(dict.fromkeys(launch.unresolved + tuple(pieces)))
        launch.notes = launch.notes + (note,)


_WORDS_GIVEN_TO_SH_C = ("compose splits a string `command` into words, so `{shell}` runs only the first, `{script}`, "
                        "as its script (the others are its $0, $1, …): the launch never starts as written (give the "
                        "script as one word: `command: [\"…\"]`, or a block scalar in a list item)")


def _split_into_words(flavour: str, entry_words: "Optional[list[str]]", command, at: int,
                      tokens: "list[str]") -> "Optional[tuple[str, list[str]]]":
    """A compose service whose ``entrypoint`` ends in ``sh -c`` and whose ``command`` is a string of several words
    (``tokens[at]``, the script, is the command's first word): the command's text (the script the file means) and
    no arguments; else None."""
    import yaml

    if flavour != "compose" or entry_words is None or at != len(entry_words) or \
            not isinstance(command, yaml.ScalarNode) or len(tokens) - at < 2 or \
            any(c.isspace() for c in tokens[at]):
        return None     # a first word holding blanks (`'vllm serve X' Y`) is a script that runs
    return re.sub(r"\\\r?\n", " ", str(command.value)), []


def _script_node(parts: list, script: str):
    """The node that holds a ``sh -c`` script (the line it is reported at)."""
    return next((n for n, t_list in parts if script in t_list), parts[-1][0])


def _script_lines(walker: "YamlWalker", parts: list, script: str, text: str) -> "list[tuple[int, str]]":
    """A ``sh -c`` script (``script`` as the container's words hold it, ``text`` as its shell reads it) as
    numbered lines, for the shell reading to join its ``\\``-newline continuations: from the line of the list
    item that holds it (the line below a ``|`` / ``>`` item's indicator), else of the node whose words hold it."""
    import yaml

    holder = _script_node(parts, script)
    first = walker.line(holder)
    if isinstance(holder, yaml.SequenceNode):
        item = next((v for v in holder.value if isinstance(v, yaml.ScalarNode) and scalar_text(v) == script), None)
        if item is not None:
            first = walker.line(item) + (1 if item.style in ("|", ">") else 0)
    return [(first + i, line) for i, line in enumerate(text.split("\n"))]


def _run_script(walker: "YamlWalker", declared: "dict[str, Optional[str]]", node, text: "Optional[str]",
                arguments: "Optional[list[str]]" = None, options: "Optional[list[str]]" = None) -> None:
    """The launches of a script the container runs (``node``'s text, or ``text`` read at its lines),
    with the container's environment in scope; ``arguments``: the script's ``$1`` … when a ``sh -c`` is given
    them (None: not known); ``options``: the shell's option words (``sh -ec``'s ``["-ec"]``)."""
    outer = walker.variables
    walker.variables = walker.variables.with_environment(declared)
    start_shell_with(walker.variables, options or [])
    if arguments is not None:
        walker.variables.set_positional(arguments)
    try:
        walker.text(node, text)
    finally:
        walker.variables = outer


def _given_gpus(keys: dict, flavour: str, declared: "dict[str, Optional[str]]") -> tuple[Optional[int], Optional[str]]:
    """The GPUs a container is given, and where the file says so: a Kubernetes container's
    ``resources.limits`` (else ``requests``) ``nvidia.com/gpu``; a compose service's ``deploy.resources.
    reservations.devices`` GPU entry (``count``, or its ``device_ids``; ``all``: the node's), else, with no
    device request, the ``NVIDIA_VISIBLE_DEVICES`` of its ``environment`` (:func:`visible_devices_gpus`)."""
    if flavour == "kubernetes" and "resources" in keys:
        n, where = resources_gpus(to_python(keys["resources"]))
        if n is not None:
            return n, where
    if flavour == "compose" and "gpus" in keys:
        # the service-level `gpus:` (compose 2.30): `all`, or a list of requests like the devices' entries
        requests = to_python(keys["gpus"])
        request = requests[0] if isinstance(requests, list) and requests else None
        return _gpu_request(request, "gpus") if isinstance(request, dict) else (None, None)
    if flavour == "compose" and "deploy" in keys:
        deploy = to_python(keys["deploy"])
        devices = deploy.get("resources", {}).get("reservations", {}).get("devices") \
            if isinstance(deploy, dict) and isinstance(deploy.get("resources"), dict) \
            and isinstance(deploy["resources"].get("reservations"), dict) else None
        for device in devices if isinstance(devices, list) else []:
            if isinstance(device, dict) and "gpu" in (device.get("capabilities") or []):
                return _gpu_request(device, "deploy.resources.reservations.devices")
    if flavour == "compose":
        # no device request: the NVIDIA runtime exposes the GPUs the environment lists
        visible = declared.get("NVIDIA_VISIBLE_DEVICES")
        n = visible_devices_gpus(visible)
        if n is not None:
            return n, f"environment NVIDIA_VISIBLE_DEVICES={visible}"
    return None, None


def _gpu_request(request: dict, where: str) -> tuple[Optional[int], Optional[str]]:
    """A compose GPU request's count: its ``device_ids``, else its ``count`` (``all``: the node's, None)."""
    if isinstance(request.get("device_ids"), list):
        return len(request["device_ids"]), f"{where} device_ids: {len(request['device_ids'])}"
    n = gpu_count(request.get("count"))
    return (n, f"{where} count: {n}") if n is not None else (None, None)


def _note_env_from(launches: "list[Launch]", keys: dict, walker: "YamlWalker", flavour: str) -> None:
    """A Kubernetes ``envFrom`` (config maps, secrets), or a compose ``env_file`` not beside the scanned file,
    sets variables the file does not hold: said on each launch, as a ``docker run --env-file`` not found is."""
    notes = []
    if "envFrom" in keys and (flavour != "kubernetes" or _unread_env_from(walker, to_python(keys["envFrom"]))):
        notes.append("envFrom: the variables of these config maps / secrets are not read (a VLLM_* one would "
                     "change what vLLM does)")
    if flavour == "compose":
        notes += [not_beside("env_file", name) for name in _missing_env_files(walker, keys)]
    for launch in launches:
        launch.notes = launch.notes + tuple(notes)


def _give_gpus(launches: "list[Launch]", gpus: Optional[int], where: Optional[str]) -> None:
    """The container's GPU count on each of its launches (:meth:`Launch.give_gpus`)."""
    if gpus is None:
        return
    for launch in launches:
        launch.give_gpus(gpus, where or "")


def _in_container(walker: "YamlWalker", first: int, keys: dict, image_text: str,
                  declared: "dict[str, Optional[str]]", flavour: str) -> None:
    """The launches found from ``walker.out[first]`` on run in this container (a ``sh -c``
    script, a multi-line command): they see its environment (the script's own assignments win),
    are given its GPUs, and run the release its image pins unless the script pins one."""
    pin = image_pin(image_text, f"{walker.path}:{walker.line(keys['image'])}") if image_text else None
    _give_gpus(walker.out[first:], *_given_gpus(keys, flavour, declared))
    _note_env_from(walker.out[first:], keys, walker, flavour)
    for launch in walker.out[first:]:
        given = {t.split("=", 1)[0] for t in launch.tokens if ENV_TOKEN.match(t)}
        words, unknown = _vllm_environment(declared, given)
        launch.tokens = words + launch.tokens
        launch.unresolved = tuple(dict.fromkeys(launch.unresolved + tuple(unknown)))
        if launch.pin is None:
            launch.pin = pin


def script_in_container(walker: "YamlWalker", script_node, keys: dict,
                        extra: "dict[str, Optional[str]]", with_gpus: bool = True) -> None:
    """The launches of a script that a process of a Kubernetes container (``keys``: the container's mapping) runs
    for someone else, as a Ray job's entrypoint runs on the head node: in the container's environment, then
    ``extra``; with its image's release unless the script or the scope pins one; given its GPUs if ``with_gpus``."""
    declared = _declared_environment(keys, "kubernetes", walker=walker) if keys else {}
    declared.update(extra)
    before = len(walker.out)
    _run_script(walker, declared, script_node, None)
    image_text = scalar_text(keys["image"]) if keys.get("image") is not None else ""
    container = keys if with_gpus else {k: v for k, v in keys.items() if k != "resources"}
    _in_container(walker, before, container, image_text, declared, "kubernetes")


def container_launches(walker: "YamlWalker", node) -> bool:
    """A mapping with command/args/entrypoint: a Kubernetes container, a compose service, Helm values.  The
    launches of a container of an API object that Kubernetes refuses (:func:`refused_by_the_api`) never start:
    said on each."""
    import yaml
    before = len(walker.out)
    handled = _container_launches(walker, node)
    if len(walker.out) > before and walker.api_object and len(walker.keys) >= 2 and \
            walker.keys[-2] in ("containers", "initContainers") and walker.keys[-1] == "[]":
        keys = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        problem = refused_by_the_api(*(to_python(keys[name]) if name in keys else None
                                       for name in ("command", "args", "env", "ports")))
        for launch in walker.out[before:] if problem else []:
            launch.not_started = problem
    return handled


def _container_launches(walker: "YamlWalker", node) -> bool:
    import yaml
    keys = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    command, args, entry = (None if keys.get(name) is None or id(keys[name]) in walker.handled else keys[name]
                            for name in ("command", "args", "entrypoint"))     # a RayJob's entrypoint: read
    if command is None and args is None and entry is None:
        return helm_launches(walker, node, keys)
    image_text = scalar_text(keys.get("image")) if keys.get("image") is not None else ""
    flavour = _flavour(walker, keys)
    if "repository" in keys and "image" not in keys and (command is not None or args is not None):
        # a chart's `image:` values block (vLLM's own example chart): the container it renders runs
        # `repository:tag` with this command, this `env`, and the chart's top-level `resources`
        tag = scalar_text(keys.get("tag")) if keys.get("tag") is not None else ""
        image_text = scalar_text(keys["repository"]) + (f":{tag}" if tag else "")
        keys = dict(keys, image=keys["repository"])
        outer = walker.stack[-2] if len(walker.stack) >= 2 else {}
        if "resources" not in keys and "resources" in outer:
            keys["resources"] = outer["resources"]
        flavour = "kubernetes"
    if flavour == "compose" and "$" in image_text:
        # compose interpolates the whole file: `image: vllm/vllm-openai:${VLLM_TAG:-v0.20.0}`
        expanded_image, image_missing = walker.variables.expand(image_text)
        if not image_missing:
            image_text = expanded_image
    vllm_image = "vllm/vllm-openai" in image_text or "vllm-openai" in image_text
    declared = _declared_environment(keys, flavour, walker.injected_environment() if flavour == "kubernetes" else None,
                                     walker)

    def kubelet(text: str) -> str:
        """``text`` as the container receives it (Kubernetes expands ``$(NAME)`` from ``env``)."""
        if flavour != "kubernetes":
            return text
        expanded = _kubelet_expand(text, declared)
        return text if expanded is None else expanded

    parts: list[tuple[Any, list[str]]] = []
    for n in (entry, command, args):
        if n is None or isinstance(n, yaml.ScalarNode) and n.tag.endswith(":null"):
            continue        # `command: null` / `command:` is no command
        if isinstance(n, yaml.SequenceNode):
            parts.append((n, [kubelet(scalar_text(v)) for v in n.value]))
        elif isinstance(n, yaml.ScalarNode):
            if flavour != "compose" and isinstance(n.value, str) and LAUNCH_HINT.search(n.value) and \
                    ("\n" in n.value or n is command or n is entry):
                before = len(walker.out)
                _run_script(walker, declared, n, kubelet(n.value))
                if len(walker.out) > before:
                    _in_container(walker, before, keys, image_text, declared, flavour)
                    return True
            # compose splits a string command shell-like (no shell runs it); `\` ends a line
            text = re.sub(r"\\\r?\n", " ", kubelet(str(n.value))) if n.value is not None else ""
            if flavour == "compose":
                text = _interpolated_before_splitting(walker.variables, text)
            try:
                parts.append((n, shlex.split(text)))
            except ValueError:
                parts.append((n, [text]))
    if not parts:
        return False
    refused = [p for _n, t_list in parts for t in t_list for p in compose_invalid(t)] if flavour == "compose" else []
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
    # sh -c "script" — unless the image's own entrypoint runs first: then no shell runs, the words are its arguments
    for i, tok in enumerate([] if implied else tokens[:-1]):
        if tok.rsplit("/", 1)[-1] in ("sh", "bash", "zsh") and _COMMAND_STRING_OPTIONS.match(tokens[i + 1]):
            options = tokens[i + 1:i + 2]       # `sh -ec SCRIPT`: set -e from the start
            script = tokens[i + 2] if i + 2 < len(tokens) else None
            if script is None:
                return False
            before = len(walker.out)
            # `sh -c SCRIPT NAME ARGS…`: the script's $0 is NAME, its "$@" the ARGS (none: empty)
            arguments: Optional[list[str]] = tokens[i + 4:]
            split = _split_into_words(flavour, entry_t, command, i + 2, tokens)
            if split is not None:
                # the launch the file means, read as the script it would be, never starts: said on each
                script, arguments = split
            if flavour == "compose":
                # compose interpolates the file from the host first; the container's shell sees `$$X`
                # as `$X`, from the service's environment
                text, scope = _compose_script(script, walker.variables, declared)
                start_shell_with(scope, options)
                interpolated = [walker.variables.expand(compose_literal(word)) for word in tokens[i + 4:]]
                scope.set_positional(None if any(miss for _w, miss in interpolated)
                                     else [word for word, _miss in interpolated])
                walker.out += shell_launches(walker.path, _script_lines(walker, parts, script, text), scope,
                                             walker.kind)
                _in_container(walker, before, keys, image_text, declared, flavour)
                _refused_by_compose(walker.out[before:], refused)
                for found in walker.out[before:] if split is not None else []:
                    found.not_started = _WORDS_GIVEN_TO_SH_C.format(shell=shlex.join(tokens[i:i + 2]),
                                                                     script=tokens[i + 2])
                return True
            node_of_script = next((v for n, _t in parts for v in (n.value if isinstance(n, yaml.SequenceNode)
                                                                  else []) if kubelet(scalar_text(v)) == script), None)
            if node_of_script is not None:
                _run_script(walker, declared, node_of_script, script, arguments, options)
            else:
                scope = walker.variables.with_environment(declared)
                scope.set_positional(arguments)
                start_shell_with(scope, options)
                walker.out += shell_launches(walker.path, _script_lines(walker, parts, script, script), scope,
                                             walker.kind)
            _in_container(walker, before, keys, image_text, declared, flavour)
            return True
    line_node = parts[-1][0]
    for n, t_list in parts:     # report the line that names the launcher, else the arguments'
        if LAUNCH_HINT.search(" ".join(t_list)):
            line_node = n
            break
    if implied:
        if tokens[:2] == ["vllm", "serve"] or launch_tokens(tokens) is not None:
            notes = (IMAGE_RUNS_FIRST,)
        elif tokens and tokens[0].rsplit("/", 1)[-1] in ("sh", "bash", "zsh"):
            notes = (_SHELL_GIVEN_TO_IMAGE,)
        tokens = ["vllm", "serve"] + tokens
    expanded, missing = [], []
    for t in tokens:
        # compose's `$$` is a `$` it leaves as it is
        e, miss = walker.variables.expand(compose_literal(t) if flavour == "compose" else t)
        expanded.append(e)
        missing += miss
    launch = launch_tokens(expanded)
    if launch is None and flavour == "unknown" and vllm_image and \
            not any(t.rsplit("/", 1)[-1] in ("sh", "bash", "python", "python3") for t in expanded[:1]):
        launch = ["vllm", "serve"] + expanded
        implied = True
    if launch is None:
        for _k, v in node.value:
            walker.walk(v)
        return True
    given = {t.split("=", 1)[0] for t in launch if ENV_TOKEN.match(t)}
    env, unknown = _vllm_environment(declared, given)
    unresolved = tuple(dict.fromkeys([v for v in missing if any(v in t for t in launch)] + unknown))
    line = walker.line(line_node)
    walker.out.append(Launch(walker.path, line, env + launch, walker.kind, unresolved,
                             pin=image_pin(image_text, f"{walker.path}:{walker.line(keys['image'])}")
                             if image_text else None, notes=notes, image_entrypoint=implied))
    _give_gpus(walker.out[-1:], *_given_gpus(keys, flavour, declared))
    _note_env_from(walker.out[-1:], keys, walker, flavour)
    _refused_by_compose(walker.out[-1:], refused)
    return True
