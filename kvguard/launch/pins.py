"""Where a deployment pins its vLLM release, and which ruleset that pin selects.

A launch found by :mod:`kvguard.scan` runs the vLLM its deployment installs.  That
release is read, in this order of precedence, from

1. the command line / API (``--vllm-version``, ``[tool.kvguard] vllm-version``): an override;
2. the launch's own image: ``docker run … vllm/vllm-openai:v0.20.0``, a Kubernetes
   container's or compose service's ``image:``, a Dockerfile's ``FROM`` (a later
   ``RUN pip install vllm==X`` in the same stage wins, as it replaces the image's vLLM), the
   production-stack chart's ``repository``/``tag``;
3. an earlier ``pip install vllm==X`` / ``uv pip install vllm==X`` in the same script,
   Dockerfile stage or Markdown guide;
4. a pin in ``requirements*.txt`` or ``pyproject.toml`` beside the file (same directory):
   ``vllm==X`` in a requirements file, ``[project] dependencies`` /
   ``[project.optional-dependencies]`` / ``[dependency-groups]``, or
   ``[tool.poetry.dependencies] vllm = "X"``;
5. otherwise the default: the installed vLLM's version, else the newest release kvguard knows.

Only vLLM's own images pin a release (``vllm/vllm-openai``, ``-rocm``, ``-cpu``, ``-xpu``,
``vllm/vllm-tpu``, under any registry); their tags name releases (``v0.20.0``,
``v0.17.0-cu130`` → 0.20.0, 0.17.0).  ``latest`` (or no tag) is read as the newest release
kvguard knows, and the finding says so.  A pin kvguard does not know follows
``--nearest``: without it the launch is undecidable, with it the closest older ruleset is
used and named.  A ``nightly`` tag is newer than every known release (``--nearest``: the
newest); other tags (``gemma4-0505-cu129``, a digest) name no release, so only
``--vllm-version`` decides them.  Only exact pins count (``==`` / ``===``); ranges
(``vllm>=0.21``) pin nothing.
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional

from ..errors import UnsupportedVersion
from ..record import Record

__all__ = ["ReleaseChoice", "ReleasePin", "beside_pin", "choose_release", "default_release", "image_pin",
           "is_vllm_image", "pip_pin", "read_toml", "requirement_pin", "runner_pin"]

#: vLLM's own images (after any registry prefix)
_VLLM_IMAGE = re.compile(r"(?:^|/)vllm/vllm-(?:openai|openai-rocm|openai-cpu|openai-xpu|tpu)$")
_TAG_RELEASE = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+|(?:a|b|rc)\d+)?)(?:[-_+].*)?$")
_EXACT_REQ = re.compile(r"^\s*vllm\s*(?:\[[^\]]*\])?\s*===?\s*([0-9][0-9A-Za-z.+!_-]*)[\"']?\s*(?:;.*)?(?:#.*)?$",
                        re.I)
_INSTALLERS = ("pip", "pip3")


class ReleasePin(Record):
    """A release named by a deployment file."""

    version: str        # as written: "0.20.0", "latest", "nightly", or a tag naming no release
    source: str         # how: "image vllm/vllm-openai:v0.20.0", "pip install vllm==0.12.0", …
    where: str          # FILE:LINE (or FILE for files beside the launch)

    def describe(self) -> str:
        return f"{self.source} at {self.where}"


class ReleaseChoice(Record):
    """The release a launch is checked against, and why; ``release`` is None when no ruleset fits."""

    release: Any                      # kvguard.versions.Release or None
    source: str                       # "--vllm-version", "image vllm/vllm-openai:… at F:L", …
    reason: Optional[str] = None      # why it is undecidable (release is None)
    pinned: bool = False              # the launch's own deployment chose it

    @property
    def key(self) -> Optional[str]:
        return self.release.key if self.release is not None else None


def _image_parts(image: str) -> tuple[str, Optional[str], Optional[str]]:
    """(repository, tag, digest) of an image reference."""
    name, _, digest = image.partition("@")
    slash, colon = name.rfind("/"), name.rfind(":")
    if colon > slash:
        return name[:colon], name[colon + 1:], digest or None
    return name, None, digest or None


def is_vllm_image(image: str) -> bool:
    return bool(_VLLM_IMAGE.search(_image_parts(image.strip().strip("\"'"))[0]))


def image_pin(image: Optional[str], where: str) -> Optional[ReleasePin]:
    """The release a vLLM image reference names (None for other images)."""
    if not image:
        return None
    image = image.strip().strip("\"'")
    repo, tag, digest = _image_parts(image)
    if not _VLLM_IMAGE.search(repo):
        return None
    if tag is None:
        # Docker's default tag; a bare digest names an image, not a release
        tag = "latest" if digest is None else "@" + digest
    m = _TAG_RELEASE.match(tag)
    if m:
        version = m.group(1)
    elif tag == "latest" or tag.startswith("latest-"):
        version = "latest"
    elif tag == "nightly" or tag.startswith("nightly-"):
        version = "nightly"
    else:
        version = tag
    return ReleasePin(version, f"image {image}", where)


def pip_pin(command: list[str], where: str) -> Optional[ReleasePin]:
    """``pip install … vllm==X`` (also ``pip3``, ``python -m pip``, ``uv pip``) in one simple command."""
    if "install" not in command:
        return None
    at = command.index("install")
    head = [t.rsplit("/", 1)[-1] for t in command[:at]]
    if not head or head[-1] not in _INSTALLERS and not head[-1].startswith("pip3."):
        return None
    for tok in command[at + 1:]:
        m = _EXACT_REQ.match(tok)
        if m:
            return ReleasePin(m.group(1), " ".join(head + ["install", tok.strip().strip("\"'")]), where)
    return None


def requirement_pin(requirement: str, source: str, where: str) -> Optional[ReleasePin]:
    """The release an exact requirement (``vllm==X``, ``vllm[extra]===X``) names, said to come from ``source``."""
    m = _EXACT_REQ.match(requirement)
    return ReleasePin(m.group(1), f"{source} {requirement.strip()}", where) if m else None


#: ``uvx vllm@0.28.0 serve``: the release a tool runner's ``PACKAGE@VERSION`` names
_AT_VERSION = re.compile(r"^vllm(?:\[[^\]]*\])?@([0-9][0-9A-Za-z.+!_-]*)$")

#: the options through which a tool runner takes the package it runs (``uvx --from``, ``uv run --with``,
#: ``pipx run --spec``)
_RUNNER_OPTIONS = ("--from", "--with", "--spec")


def runner_pin(command: list[str], where: str) -> Optional[ReleasePin]:
    """The release a tool runner's command line runs vllm from: ``uvx vllm@X serve``, ``uvx --from vllm==X vllm
    serve``, ``uv run --with vllm==X vllm serve``, ``pipx run --spec vllm==X vllm serve``."""
    for i, token in enumerate(command):
        m = _AT_VERSION.match(token)
        if m:
            return ReleasePin(m.group(1), token, where)
        name, sep, inline = token.partition("=")
        if name in _RUNNER_OPTIONS:
            value = inline if sep else (command[i + 1] if i + 1 < len(command) else "")
            m = _EXACT_REQ.match(value)
            if m:
                return ReleasePin(m.group(1), f"{name} {value.strip()}", where)
    return None


def read_toml(path: str) -> tuple[Optional[dict], Optional[str]]:
    """(document, None) or (None, why it was not read).  tomllib on 3.11+, else tomli if installed."""
    try:
        import tomllib as toml  # noqa: PLC0415 - Python 3.11+
    except ImportError:
        try:
            import tomli as toml  # type: ignore[no-redef]  # noqa: PLC0415 - optional on 3.10
        except ImportError:
            return None, "not read: TOML needs Python 3.11+ or the tomli package (pip install tomli)"
    try:
        with open(path, "rb") as fh:
            data = fh.read(5 * 1024 * 1024 + 1)
        if len(data) > 5 * 1024 * 1024:
            return None, "not read: larger than 5 MB"
        return toml.loads(data.decode("utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"unreadable: {exc}"
    except (ValueError, RecursionError) as exc:        # TOMLDecodeError subclasses ValueError
        return None, f"unreadable: invalid TOML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def _requirement_strings(doc: dict) -> list[str]:
    out: list[str] = []
    project: dict = doc["project"] if isinstance(doc.get("project"), dict) else {}
    groups = [project.get("dependencies")]
    if isinstance(project.get("optional-dependencies"), dict):
        groups += list(project["optional-dependencies"].values())
    if isinstance(doc.get("dependency-groups"), dict):
        groups += list(doc["dependency-groups"].values())
    for group in groups:
        if isinstance(group, list):
            out += [g for g in group if isinstance(g, str)]
    tool: dict = doc["tool"] if isinstance(doc.get("tool"), dict) else {}
    poetry: dict = tool["poetry"] if isinstance(tool.get("poetry"), dict) else {}
    deps: dict = poetry["dependencies"] if isinstance(poetry.get("dependencies"), dict) else {}
    spec = deps.get("vllm")
    if isinstance(spec, dict):
        spec = spec.get("version")
    if isinstance(spec, str):
        # Poetry: a bare version means exactly that version
        out.append("vllm" + (spec if spec.lstrip().startswith(("=", "<", ">", "~", "^", "!")) else "==" + spec))
    return out


def beside_pin(directory: str, problems: list[tuple[str, str]]) -> Optional[ReleasePin]:
    """A ``vllm==X`` pin in ``requirements*.txt`` or ``pyproject.toml`` in ``directory``.

    Files that cannot be read are appended to ``problems`` as (path, reason)."""
    try:
        names = sorted(os.listdir(directory or "."))
    except OSError:
        return None
    for name in names:
        if not (name.startswith("requirements") and name.endswith(".txt")):
            continue
        path = os.path.join(directory, name)
        try:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read(1024 * 1024).splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            problems.append((path, f"vLLM pin not read: {exc}"))
            continue
        for lineno, line in enumerate(lines, start=1):
            m = _EXACT_REQ.match(line)
            if m:
                return ReleasePin(m.group(1), f"{name}: {line.split('#', 1)[0].strip()}", f"{path}:{lineno}")
    path = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(path):
        doc, why = read_toml(path)
        if doc is None:
            problems.append((path, f"vLLM pin {why}"))
            return None
        for req in _requirement_strings(doc):
            m = _EXACT_REQ.match(req)
            if m:
                return ReleasePin(m.group(1), f"pyproject.toml: {req.strip()}", path)
    return None


def default_release(nearest: bool = False) -> ReleaseChoice:
    """The release for launches nothing pins: the installed vLLM, else the newest kvguard knows."""
    from ..versions import KNOWN_RELEASES, resolve

    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version
        try:
            installed: Optional[str] = dist_version("vllm")
        except PackageNotFoundError:
            installed = None
    except ImportError:  # pragma: no cover - stdlib since 3.8
        installed = None
    if installed is None:
        return ReleaseChoice(resolve(KNOWN_RELEASES[-1]), "the newest release kvguard knows; nothing pins one")
    try:
        release = resolve(installed, nearest=nearest)
    except UnsupportedVersion as exc:
        return ReleaseChoice(None, f"the installed vLLM {installed}", reason=str(exc))
    extra = f", nearest older ruleset {release.key}" if release.requested else ""
    return ReleaseChoice(release, f"the installed vLLM {installed}{extra}")


def choose_release(pin: Optional[ReleasePin], override: Optional[ReleaseChoice], default: ReleaseChoice,
                   nearest: bool = False) -> ReleaseChoice:
    """The release a launch is checked against: ``override``, else its pin, else ``default``."""
    from ..versions import KNOWN_RELEASES, resolve

    if override is not None:
        return override
    if pin is None:
        return default
    newest = resolve(KNOWN_RELEASES[-1])
    if pin.version == "latest":
        return ReleaseChoice(newest, f"{pin.describe()}; latest: read as the newest release kvguard knows",
                             pinned=True)
    if pin.version == "nightly":
        if nearest:
            return ReleaseChoice(newest, f"{pin.describe()}; a nightly build: --nearest reads it as the newest "
                                 f"release kvguard knows", pinned=True)
        return ReleaseChoice(None, pin.describe(), pinned=True,
                             reason=f"{pin.describe()}: a nightly build, newer than every release kvguard knows "
                                    f"(pass --nearest for the newest known ruleset, or --vllm-version)")
    if not pin.version[:1].isdigit():
        return ReleaseChoice(None, pin.describe(), pinned=True,
                             reason=f"{pin.describe()}: the tag names no vLLM release; pass --vllm-version")
    try:
        release = resolve(pin.version, nearest=nearest)
    except UnsupportedVersion as exc:
        why = str(exc) if nearest else (f"not a release kvguard knows ({KNOWN_RELEASES[0]}–{KNOWN_RELEASES[-1]}); "
                                        f"pass --nearest for the closest older ruleset, or --vllm-version")
        return ReleaseChoice(None, pin.describe(), pinned=True, reason=f"vLLM {pin.version} ({pin.describe()}): {why}")
    if release.requested:
        return ReleaseChoice(release, f"{pin.describe()}; {pin.version} is not a release kvguard knows, "
                             f"--nearest: the closest older ruleset", pinned=True)
    return ReleaseChoice(release, pin.describe(), pinned=True)
